//! The nesting limit of decoding.
//!
//! Decoding recursive trees from untrusted bytes must not overflow the
//! stack: conditions and expressions decode through a guard that counts
//! how deep the decoder is, so a crafted table nested a million levels
//! deep is an error, not a crash. Converting to the IR and dropping then
//! recurse no deeper than the decoder was allowed to.

use std::cell::Cell;

/// Deepest nesting of conditions and expressions a table may hold.
pub(super) const MAX_DEPTH: usize = 256;

thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// The message of the first custom error of the current decode:
    /// postcard's error keeps only that there was one.
    static MESSAGE: Cell<Option<String>> = const { Cell::new(None) };
}

/// Runs a decode with the nesting counter reset before and after (a
/// decode that failed midway leaves it wherever it stopped); a failure
/// comes with the message of the custom error that made it, if one did.
pub(super) fn with_limit<T, E>(
    decode: impl FnOnce() -> Result<T, E>,
) -> Result<T, (E, Option<String>)> {
    DEPTH.with(|d| d.set(0));
    MESSAGE.with(|m| m.set(None));
    let out = decode();
    DEPTH.with(|d| d.set(0));
    let message = MESSAGE.with(Cell::take);
    out.map_err(|e| (e, message))
}

/// A custom decode error whose message [`with_limit`] hands back.
pub(super) fn custom<E: serde::de::Error>(message: String) -> E {
    MESSAGE.with(|m| {
        let first = m.take().unwrap_or_else(|| message.clone());
        m.set(Some(first));
    });
    E::custom(message)
}

/// One level of nesting, given back when dropped.
pub(super) struct DepthGuard;

impl DepthGuard {
    /// Enters one level; an error beyond [`MAX_DEPTH`].
    pub(super) fn enter<E: serde::de::Error>() -> Result<DepthGuard, E> {
        let depth = DEPTH.with(|d| {
            let next = d.get() + 1;
            d.set(next);
            next
        });
        // Made before the check, so the level is given back either way.
        let guard = DepthGuard;
        if depth > MAX_DEPTH {
            return Err(custom(format!(
                "conditions or expressions nested too deeply (more than {MAX_DEPTH} levels)"
            )));
        }
        Ok(guard)
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

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
}

/// Runs a decode with the nesting counter reset before and after (a
/// decode that failed midway leaves it wherever it stopped).
pub(super) fn with_limit<T>(decode: impl FnOnce() -> T) -> T {
    DEPTH.with(|d| d.set(0));
    let out = decode();
    DEPTH.with(|d| d.set(0));
    out
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
            return Err(E::custom("conditions nested too deeply"));
        }
        Ok(guard)
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

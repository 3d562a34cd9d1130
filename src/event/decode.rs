//! Decoding events: JSON text from a host or an agent into a [`Value`] and a
//! [`HookContext`], the one way every entry point does it (`hookc claude`,
//! `eval`, `explain`, rule tests, [`crate::systems::claude_code::protocol::Event::parse`],
//! [`HookContext::from_json`]).
//!
//! Plain `serde_json::from_str` refuses two kinds of input that an agent
//! produces, and a refused event is a policy that did not run. This module
//! takes both:
//!
//! - **Lone UTF-16 surrogate escapes** (`"\ud800"`): JavaScript's
//!   `JSON.stringify` writes them for strings cut in the middle of a
//!   surrogate pair, so model-written tool input and MCP results carry
//!   them. Each one is read as U+FFFD (the replacement character), the
//!   way [`String::from_utf16_lossy`] reads it. Valid text is never
//!   changed: a surrogate *pair* stays a pair, and an escaped backslash
//!   followed by `ud800` (`"\\ud800"`) is text, not an escape.
//! - **Deep nesting**: serde_json stops at 128 levels; an MCP tool's
//!   input can go deeper. Events are accepted up to [`MAX_DEPTH`] levels
//!   of arrays and objects. Past it the event is refused with
//!   [`DecodeError::TooDeep`] before anything is built, and a host treats
//!   that as a failure of the policy (`hookc claude` blocks the event in
//!   either fail mode: an agent chooses how deep its tool input nests).
//!
//! # The depth limit
//!
//! A JSON value is a tree, and cloning, comparing, serializing and
//! dropping one recurses once per level, in serde_json as in hookc. The
//! limit keeps every such walk of an event within the stack of the main
//! thread: `hookc claude` answers an event at [`MAX_DEPTH`] levels, with a
//! command reading it on stdin and a template rendering it, in under 2 MiB
//! of stack when optimized (under 6 MiB unoptimized), and the main thread
//! of Linux and macOS has 8 MiB (`tests/it/hardening.rs` runs such an event
//! through `hookc claude`, `eval` and `explain`). A host that dispatches
//! on threads with small stacks (Rust's spawned threads get 2 MiB) keeps
//! its events shallower, or gives those threads more stack.
//!
//! Values a host builds in memory are not parsed; [`check_depth`] measures
//! them without recursion, and [`crate::systems::claude_code::protocol::Event::from_fields`] and
//! [`context`] apply it.

use super::HookContext;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

/// The deepest nesting of arrays and objects accepted in an event: the
/// event object itself is level 1. Far above any real event (Claude Code's
/// deepest are a few tens of levels), and within the stack of the main
/// thread (see the module docs).
pub const MAX_DEPTH: usize = 2_000;

/// Why a text is not an event.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The text is not JSON.
    #[error("{0}")]
    Json(serde_json::Error),
    /// Arrays and objects nest deeper than [`MAX_DEPTH`].
    #[error("it nests arrays and objects more than {limit} levels deep")]
    TooDeep {
        /// The limit, [`MAX_DEPTH`].
        limit: usize,
    },
    /// The JSON is not a hook context (a required field is missing or has
    /// the wrong type).
    #[error("{0}")]
    Context(serde_json::Error),
}

/// Parses an event's JSON text: lone surrogate escapes read as U+FFFD,
/// nesting accepted up to [`MAX_DEPTH`].
///
/// # Errors
///
/// [`DecodeError::TooDeep`] past the limit, [`DecodeError::Json`] for text
/// that is not JSON.
///
/// # Example
///
/// ```
/// let value = hookc::event::parse(r#"{"text": "a\ud800b"}"#)?;
/// assert_eq!(value["text"], "a\u{fffd}b");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse(text: &str) -> Result<Value, DecodeError> {
    let text = prepare(text)?;
    let mut de = serde_json::Deserializer::from_str(&text);
    // `prepare` measured the depth: serde_json's own limit (128) would
    // refuse events hookc accepts.
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de).map_err(DecodeError::Json)?;
    de.end().map_err(DecodeError::Json)?;
    Ok(value)
}

/// The hook context of a JSON value (an ORCS `HookContext` object), after
/// [`check_depth`].
///
/// # Errors
///
/// [`DecodeError::TooDeep`] past the limit, [`DecodeError::Context`] when
/// the value is not a hook context.
pub fn context(value: Value) -> Result<HookContext, DecodeError> {
    check_depth(&value)?;
    HookContext::deserialize(value).map_err(DecodeError::Context)
}

/// Checks that `value` nests arrays and objects at most [`MAX_DEPTH`]
/// levels deep, without recursion (a value built in memory can be deeper
/// than any stack).
///
/// # Errors
///
/// [`DecodeError::TooDeep`] past the limit.
pub fn check_depth(value: &Value) -> Result<(), DecodeError> {
    let mut stack: Vec<(&Value, usize)> = vec![(value, 1)];
    while let Some((value, depth)) = stack.pop() {
        let deeper = depth + 1;
        match value {
            Value::Array(items) if depth <= MAX_DEPTH => {
                stack.extend(items.iter().map(|item| (item, deeper)));
            }
            Value::Object(fields) if depth <= MAX_DEPTH => {
                stack.extend(fields.values().map(|field| (field, deeper)));
            }
            Value::Array(_) | Value::Object(_) => {
                return Err(DecodeError::TooDeep { limit: MAX_DEPTH })
            }
            _ => {}
        }
    }
    Ok(())
}

/// The text serde_json reads: `text` itself unless it has lone surrogate
/// escapes, which become `\uFFFD` (same length, so serde_json's error
/// positions still point into `text`). Measures the nesting on the way.
fn prepare(text: &str) -> Result<Cow<'_, str>, DecodeError> {
    let bytes = text.as_bytes();
    let mut fixed: Option<Vec<u8>> = None;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if in_string {
            match byte {
                b'"' => in_string = false,
                b'\\' => {
                    i += escape_len(bytes, i, &mut fixed);
                    continue;
                }
                _ => {}
            }
        } else {
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(DecodeError::TooDeep { limit: MAX_DEPTH });
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        i += 1;
    }
    Ok(match fixed {
        None => Cow::Borrowed(text),
        // Only ASCII was replaced by ASCII: still UTF-8.
        Some(bytes) => Cow::Owned(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
    })
}

/// The length of the escape at `bytes[at]` (a backslash in a string),
/// replacing a lone surrogate escape with `\uFFFD` in `fixed` (a copy of
/// `bytes` made on the first replacement). A malformed escape counts two
/// bytes: serde_json reports it.
fn escape_len(bytes: &[u8], at: usize, fixed: &mut Option<Vec<u8>>) -> usize {
    if bytes.get(at + 1) != Some(&b'u') {
        return 2;
    }
    let Some(unit) = hex4(bytes, at + 2) else {
        return 2;
    };
    let high = (0xD800..0xDC00).contains(&unit);
    let low = (0xDC00..0xE000).contains(&unit);
    if high && bytes.get(at + 6..at + 8) == Some(b"\\u") {
        if let Some(next) = hex4(bytes, at + 8) {
            if (0xDC00..0xE000).contains(&next) {
                // A pair: one character.
                return 12;
            }
        }
    }
    if high || low {
        let copy = fixed.get_or_insert_with(|| bytes.to_vec());
        if let Some(escape) = copy.get_mut(at..at + 6) {
            escape.copy_from_slice(b"\\uFFFD");
        }
    }
    6
}

/// The code unit of four hex digits at `bytes[at..at + 4]`.
fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = bytes.get(at..at + 4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

#[cfg(test)]
mod tests;

//! The event: what a dispatch runs on, and how it is read from JSON.
//!
//! This is the vocabulary every stage shares, so it depends on none of
//! them: [`HookContext`] (ORCS's hook context: the point, the component,
//! the principal, the payload and metadata), [`Val`] (a field's value as a
//! rule reads it), [`Principal`] and [`Target`] (the component a call is
//! for, and [`Target::parse`], the one reader of target text), and the decoding every entry point uses to
//! read an event ([`parse`], [`context`], the depth limit [`MAX_DEPTH`]).
//! The runtime dispatches on these types, effects hand them to commands,
//! webhooks and handlers, and hook-system adapters build them.

mod context;
mod decode;
mod host;
mod target;

pub use context::{json_eq, HookContext, Principal, Val};
pub(crate) use context::{member, member_mut, walk};
pub use decode::{check_depth, context, parse, DecodeError, MAX_DEPTH};
pub use host::HostFacts;
pub(crate) use target::ContextTarget;
pub use target::{Target, TargetError};

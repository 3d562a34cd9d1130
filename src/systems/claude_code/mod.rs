//! Claude Code: command hooks for every hook event.
//!
//! [`schema`] is the built-in `claude-code` catalog (the events and the
//! fields of their input JSON); [`protocol`] turns an event into a hook
//! context and the dispatch's report into the answer Claude Code reads
//! (`hookc claude` is its command line); [`import`] turns the `hooks` of
//! settings files into rules.

#[cfg(feature = "compiler")]
pub mod import;
pub mod outputs;
pub mod protocol;
pub mod schema;

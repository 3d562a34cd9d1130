//! ORCS: the runtime whose lifecycle (ADR-002) is hookc's own event model.
//!
//! [`schema`] is the built-in `orcs` catalog and the typed [`schema::HookPoint`];
//! [`import`] turns the `[[hooks]]` of `orcs.toml` layers into rules.

#[cfg(feature = "compiler")]
pub mod import;
pub mod schema;

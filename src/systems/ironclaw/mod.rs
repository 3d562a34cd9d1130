//! IronClaw: hook bundles at six points, with content edits applied the way
//! IronClaw's host applies them.
//!
//! [`schema`] is the built-in `ironclaw` catalog; [`import`] turns hook
//! bundles (`hooks/hooks.json`, `*.hook.json`, `capabilities.json`) into
//! rules.

#[cfg(feature = "compiler")]
pub mod import;
pub mod schema;

//! Rules from other hook systems' configuration, as `.hooks` text.
//!
//! Each importer reads one system's configuration and writes the rules it
//! means, so they can be read, linted, tested and compiled like any other
//! rules; [`orcs::compile`] compiles ORCS configuration layers directly.
//! What a source field cannot become is reported as a warning, never
//! dropped silently; `hookc import` runs them from the command line.

pub mod claude_settings;
pub mod ironclaw;
pub mod mcp_router;
pub mod orcs;

//! Rules from other hook systems' configuration, as `.hooks` text.
//!
//! Each importer reads one system's configuration and writes the rules it
//! means, so they can be read, linted, tested and compiled like any other
//! rules; [`orcs::compile`] compiles ORCS configuration layers directly.
//! What a source field cannot become is reported as a warning, never
//! dropped silently; `hookc import` runs them from the command line.

pub(crate) mod write;

// Each importer lives with the rest of its hook system's code.
pub use crate::systems::claude_code::import as claude_settings;
pub use crate::systems::ironclaw::import as ironclaw;
pub use crate::systems::mcp_router::import as mcp_router;
pub use crate::systems::orcs::import as orcs;

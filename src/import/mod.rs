//! Rules from other hook systems' configuration, as `.hooks` text: what the
//! importers share.
//!
//! Each importer reads one system's configuration and writes the rules it
//! means, so they can be read, linted, tested and compiled like any other
//! rules; `systems::orcs::import::compile` compiles ORCS configuration
//! layers directly. Each importer lives with its system
//! ([`crate::systems`]); this module holds what they share: [`write`]
//! writes `.hooks` text in the canonical layout.
//! What a source field cannot become is reported as a warning, never
//! dropped silently; `hookc import` runs them from the command line.

pub(crate) mod write;

//! Rules from other hook systems' configuration, as `.hooks` text.
//!
//! Each importer reads one system's configuration and writes the rules it
//! means, so they can be read, linted, tested and compiled like any other
//! rules; [`orcs::compile`] compiles ORCS configuration layers directly.

pub mod orcs;

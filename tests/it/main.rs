//! The integration tests, in one binary.
//!
//! Each module was once a test binary of its own; linking the crate into
//! one binary instead of two dozen is most of what `cargo test` costs on a
//! small machine. Two suites keep binaries of their own because they own
//! the process: `tests/alloc.rs` replaces the global allocator, and
//! `tests/exec.rs` checks that no zombie child or pipe thread is left in the
//! whole test process.
//!
//! Modules with a `#![cfg(…)]` (`lua`, `webhook`, the Unix-only suites)
//! compile to nothing where their feature or platform is missing.

mod common;

mod architecture;
mod bindings;
mod claude;
mod cli;
mod completions;
mod diff;
mod explain;
mod fmt;
mod golden;
mod hardening;
mod host;
mod import;
mod lints;
mod lsp;
mod lua;
mod orcs_config;
mod outputs;
mod packs;
mod point_ids;
mod rate_store;
mod rate_trace;
mod readme;
mod reference;
mod regex_budget;
mod registry;
mod rule_tests;
mod schema_command;
mod schemas;
mod semantics;
mod signing;
mod test_reports;
mod untrusted;
mod watch;
mod webhook;
mod witness;

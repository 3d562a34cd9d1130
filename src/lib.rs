//! hookc: a declarative hook-rules engine.
//!
//! People write `.hooks` rule files that say *at which lifecycle point*, *for
//! which target*, *under which conditions*, *do what*. hookc checks them like a
//! compiler and compiles them into a static dispatch [`Table`]; a host loads
//! the table once and calls [`Table::dispatch`] at each lifecycle point.
//!
//! The pipeline, one module a stage:
//!
//! ```text
//! .hooks text ─ syntax ─▶ ast ─ check ─▶ diagnostics ─ compile ─▶ ir::Program
//!     ─ table ─▶ bytes ─ Table::from_bytes ─▶ Table ─ runtime ─▶ Outcome
//! ```
//!
//! `syntax`, `check` and `compile` sit behind the default `compiler` feature;
//! without it the crate is the runtime alone (load a table, dispatch).
//! Beside the pipeline: [`event`] (the event types every stage shares),
//! [`effects`] (commands, webhooks, handlers), [`store`] (`rate(…)` counts),
//! [`registry`] (a live table with native hooks) and [`systems`] (one home
//! per hook system: ORCS, Claude Code, IronClaw, MCP Router). Dependencies
//! run one way, from the pipeline's stages up to the systems and the CLI;
//! `ARCHITECTURE.md` in the repository is the map.
//!
//! # Example
//!
//! ```
//! use hookc::{HookContext, HookPoint, Target};
//!
//! let table = hookc::compile_str(
//!     "guard.hooks",
//!     r#"
//!     hook block-rm on tool.pre_execute at builtin::* {
//!         when payload.args contains "rm -rf"
//!         abort "blocked: {payload.args}"
//!     }
//!     "#,
//! )?
//! .table;
//!
//! // Tables round-trip through bytes: this is what a host embeds or loads.
//! let table = hookc::Table::from_bytes(&table.to_bytes())?;
//!
//! let mut scratch = table.scratch();
//! let mut ctx = HookContext::new(
//!     HookPoint::ToolPreExecute,
//!     "builtin::llm",
//!     serde_json::json!({"tool": "exec", "args": "rm -rf /"}),
//! );
//! let target = Target::new("builtin::llm");
//! let outcome = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut ctx);
//! assert!(outcome.is_abort());
//! assert_eq!(outcome.reason(), Some("blocked: rm -rf /"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The public API
//!
//! What a host needs is re-exported here, and the modules it reads are
//! documented: compile ([`compile_str`], [`compile_paths`], [`Options`],
//! their [`diag::Diagnostics`]); load a [`Table`] ([`table`]: bytes,
//! signatures, [`table::LoadError`]); dispatch ([`Scratch`], [`PointId`],
//! [`Outcome`], one owned [`Report`], [`Explanation`]); the live
//! [`Registry`] with [`NativeHook`]s; the host's [`Effects`] and rate
//! [`store`]s; the event types ([`event`]); the hook systems
//! ([`systems`], [`claude`]); and [`embed`] for build scripts.
//!
//! Everything else (the IR, the syntax tree, the checker, the loader, the
//! importers, the CLI and the language server) is public only so the `hookc` binary, the tests
//! and the benchmarks reach it: hidden from these docs and outside any
//! compatibility promise. The IR is not the table format either: the
//! bytes are [`table::encoding`]'s, versioned on their own.

// The parser pest derives names `alloc` (pest is built without `std`:
// see `Cargo.toml`).
#[cfg(feature = "compiler")]
extern crate alloc;

// The API.
pub mod diag;
pub mod effects;
pub mod event;
pub mod fql;
pub mod paths;
pub mod registry;
pub mod runtime;
pub mod schema;
pub mod shell;
pub mod span;
pub mod store;
pub mod systems;
pub mod table;

#[cfg(feature = "compiler")]
pub mod compile;
#[cfg(feature = "compiler")]
pub mod embed;

// Internals, for the binary, the tests and the benchmarks.
#[doc(hidden)]
pub mod ir;
#[doc(hidden)]
pub mod net_guard;
mod short_eq;

#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod analysis;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod check;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod config;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod import;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod load;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod output;
#[cfg(feature = "compiler")]
mod parallel;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod scenarios;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod strings;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod syntax;
#[cfg(feature = "compiler")]
#[doc(hidden)]
pub mod watch;

#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod lsp;

/// Claude Code command hooks (see [`systems::claude_code::protocol`]).
pub use systems::claude_code::protocol as claude;

pub use effects::{Effects, Handler, HookAction};
pub use event::HostFacts;
pub use fql::{FqlError, FqlPattern};
pub use ir::{FailMode, LogLevel};
pub use registry::Registry;
pub use runtime::{
    AsPoint, Decision, Explanation, HookContext, NativeHook, Outcome, OutcomeKind, Principal,
    Report, Scratch, Target,
};
pub use schema::{PointId, PointKind};
pub use systems::orcs::schema::HookPoint;
pub use table::{LoadError, Table};

#[cfg(feature = "compiler")]
pub use compile::{compile_paths, compile_sources, compile_str, Compiled, Options};

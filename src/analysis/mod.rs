//! Questions about a compiled rule set, answered from its program rather
//! than by testing it: which event makes a rule fire ([`witness`]), which
//! events two rule sets answer differently ([`diff`]), both over the
//! condition solver ([`solve`]), and the most work one dispatch at a point
//! can do ([`cost`]).
//!
//! The answers are built from the IR a table holds ([`crate::Table::program`])
//! and checked by running them through the table's own dispatch, so what
//! this module prints is what `hookc eval` does.

pub mod cost;
pub mod diff;
pub mod solve;
pub mod witness;

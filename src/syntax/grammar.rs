//! The pest parser generated from `grammar/hooks.pest`.
//!
//! Nothing outside `syntax/` sees these types: [`lower`](super::lower) turns
//! the pairs into the AST and pest errors into diagnostics.

/// The parser for `.hooks` files; its [`Rule`] enum has one variant per rule
/// of the grammar, documented there.
#[derive(pest_derive::Parser)]
#[grammar = "../grammar/hooks.pest"]
pub(crate) struct HooksParser;

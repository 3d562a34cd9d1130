//! Source text to AST: the only module that names pest.
//!
//! [`parse()`] turns one [`SourceFile`] into an [`ast::File`] plus the syntax
//! errors found. The grammar is `grammar/hooks.pest`; nothing else defines
//! the syntax. Parsing goes item by item: after a syntax error it resumes at
//! the next line that starts with a top-level keyword (`schema`, `import`,
//! `list`, `pattern`, `macro`, `hook`, or `test` followed by a name), so one
//! run reports every error.
//!
//! Diagnostic codes produced here: `syntax` (the text does not match the
//! grammar, or a token is malformed: escapes, durations, regex flags) and
//! `nesting-limit` (an expression nested more than 64 levels deep in
//! brackets and prefix operators, or more than 256 levels of operators in
//! all, so that later stages can walk trees recursively).

pub mod ast;
mod build;
mod errors;
mod grammar;
mod parse;
pub mod pretty;
mod unescape;
mod vocab;

pub(crate) use parse::condition_at;
pub(crate) use unescape::regex_body_offset;
pub(crate) use vocab::RESERVED;

#[cfg(test)]
mod tests;

use crate::diag::Diagnostics;
use crate::span::SourceFile;

/// Parses one file: the items that parsed, and a diagnostic for every syntax
/// error (parsing resumes at the next top-level item after an error).
///
/// [`pretty`] prints a parsed file back in the canonical layout (`hookc fmt`).
pub fn parse(file: &SourceFile) -> (ast::File, Diagnostics) {
    parse::parse_file(file)
}

//! Source text to AST: the only module that names pest.
//!
//! [`parse`] turns one [`SourceFile`] into an [`ast::File`] plus the syntax
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
mod grammar;
mod lower;
pub mod pretty;

pub(crate) use lower::regex_body_offset;

/// Every reserved word: never a rule id, list, pattern or macro name. The
/// grammar's `keyword` rule is the truth; a test checks that they agree.
pub(crate) const RESERVED: &[&str] = &[
    "hook",
    "on",
    "at",
    "priority",
    "disabled",
    "fail",
    "open",
    "closed",
    "timeout",
    "when",
    "unless",
    "and",
    "or",
    "not",
    "in",
    "contains",
    "any",
    "starts_with",
    "ends_with",
    "matches",
    "glob",
    "exists",
    "true",
    "false",
    "null",
    "continue",
    "abort",
    "deny",
    "skip",
    "replace",
    "set",
    "unset",
    "rewrite",
    "prepend",
    "append",
    "meta",
    "log",
    "ask",
    "allow",
    "context",
    "exec",
    "sh",
    "webhook",
    "call",
    "schema",
    "import",
    "list",
    "pattern",
    "macro",
];

#[cfg(test)]
mod tests;

use crate::diag::Diagnostics;
use crate::span::SourceFile;

/// Parses one file: the items that parsed, and a diagnostic for every syntax
/// error (parsing resumes at the next top-level item after an error).
///
/// [`pretty`] prints a parsed file back in the canonical layout (`hookc fmt`).
pub fn parse(file: &SourceFile) -> (ast::File, Diagnostics) {
    lower::parse_file(file)
}

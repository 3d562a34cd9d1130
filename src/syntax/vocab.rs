//! The words and limits the parser's stages share: the reserved words, the
//! keyword lists error messages offer, the nesting limits, and operator
//! precedence.

use crate::syntax::ast::BinaryOp;

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
    "all",
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
    "override",
    "let",
];

/// The deepest expression nesting (brackets and prefix operators) accepted.
pub(crate) const NEST_LIMIT: usize = 64;

/// Bracket depth past which an item is refused before pest sees it: the
/// slack covers the rule body's braces and index brackets, so the precise
/// limit is enforced by the lowering.
pub(super) const PRESCAN_LIMIT: usize = NEST_LIMIT + 8;

/// The deepest expression tree accepted, operator chains included: a
/// left-associative chain of `n` operands is `n - 1` levels deep, and later
/// stages walk trees recursively.
pub(crate) const TREE_LIMIT: usize = 256;

/// How deep the expression being lowered sits.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Depth {
    /// Brackets and prefix operators around it (limit [`NEST_LIMIT`]).
    pub(super) nest: usize,
    /// Tree levels above it (limit [`TREE_LIMIT`]).
    pub(super) tree: usize,
}

/// Cumulative pest calls allowed for one item (a bound on parsing work).
pub(super) const CALL_LIMIT: usize = 20_000_000;

/// Keywords that start a top-level item; recovery resumes at them.
pub(super) const ITEM_KEYWORDS: [&str; 8] = [
    "schema", "import", "list", "pattern", "macro", "hook", "override", "test",
];

/// How errors name a top-level item.
pub(super) const ITEM_PHRASE: &str =
    "a top-level item (`schema`, `import`, `list`, `pattern`, `macro`, `hook`, `override` or `test`)";

/// The forms of `expect` in a test.
pub(super) const EXPECT_KEYWORDS: [&str; 6] =
    ["abort", "continue", "skip", "ask", "fired", "decision"];

/// Keywords that start an action.
pub(super) const ACTION_KEYWORDS: [&str; 19] = [
    "continue", "abort", "deny", "skip", "replace", "set", "unset", "rewrite", "prepend", "append",
    "meta", "log", "ask", "allow", "context", "exec", "sh", "webhook", "call",
];

/// Keywords that start a line of a rule's body: conditions, `let`, actions.
pub(super) const BODY_KEYWORDS: [&str; 25] = [
    "when", "unless", "let", "continue", "abort", "deny", "skip", "replace", "set", "unset",
    "rewrite", "prepend", "append", "meta", "log", "ask", "allow", "context", "exec", "sh",
    "webhook", "call", "output", "lua", "trace",
];

/// Keywords that start a header option.
pub(super) const OPTION_KEYWORDS: [&str; 4] = ["priority", "disabled", "fail", "timeout"];

/// Keywords that continue an expression.
pub(super) const OPERATOR_KEYWORDS: [&str; 10] = [
    "and",
    "or",
    "not",
    "in",
    "contains",
    "starts_with",
    "ends_with",
    "matches",
    "glob",
    "exists",
];

/// Binding strength of an infix operator (higher binds tighter): the
/// parser climbs it, the printer parenthesizes by it.
pub(crate) const fn precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Contains
        | BinaryOp::StartsWith
        | BinaryOp::EndsWith => 3,
        BinaryOp::BitOr => 4,
        BinaryOp::BitXor => 5,
        BinaryOp::BitAnd => 6,
        BinaryOp::Shl | BinaryOp::Shr => 7,
        BinaryOp::Add | BinaryOp::Sub => 8,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 9,
    }
}

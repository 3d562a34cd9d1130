//! The canonical layout of `.hooks` files: what `hookc fmt` writes.
//!
//! [`format_source`] parses a file and prints it back from the AST in one
//! layout, whatever the input's layout was; comments (which the parser skips)
//! are collected from the source text and put back. Printing is idempotent:
//! formatting formatted text changes nothing, and the output parses to the
//! same AST as the input.
//!
//! # The layout
//!
//! - Items in source order, separated by exactly one blank line, except
//!   that consecutive `schema` and `import` lines form one block with no
//!   blank line between them; no blank lines at the start or end of the
//!   file; a single `\n` ends every line (CRLF becomes LF).
//! - Indentation is 4 spaces per level; no tabs, no trailing blanks.
//! - A rule header is one line, `hook ID on A, B at FQL OPTIONS {`, with its
//!   options in a fixed order: `priority N`, `fail open|closed`,
//!   `timeout D`, `disabled`. Options are kept as written (an explicit
//!   `fail open` stays); a timeout is written in the largest unit that
//!   divides it (`5000ms` becomes `5s`). A target is bare (`at builtin::*`)
//!   unless it needs quotes. A rule without a body is `hook … {}`.
//! - Inside a rule or a test: one condition, action or statement per line,
//!   in source order; a single blank line between two lines is kept (it
//!   groups them), more become one.
//! - Expressions: one space around binary operators and keywords (`a & ~8`,
//!   `x == -1`, `p not in list`), none after prefix operators, and the
//!   fewest parentheses the precedence needs (`(a or b) and c`, `a - (b -
//!   c)`). `not (x in l)` is written `x not in l`; a field written
//!   `payload["name"]` is written `payload.name` when `name` is a plain name.
//! - Strings are re-escaped canonically: `\"`, `\\`, `\n`, `\t`, `\r`, `\b`,
//!   `\f`, other control characters (C0, DEL, C1), the bidirectional
//!   controls (U+202A–U+202E, U+2066–U+2069) and the characters that show
//!   as a space or as nothing (a no-break space, U+2028, a zero-width space,
//!   a soft hyphen, a byte-order mark) as `\uXXXX`, everything else (`/`,
//!   non ASCII) as itself. Regexes keep their text; only `/` is
//!   escaped (the parser already turned a raw control or bidi character in
//!   a regex into `\x{…}`, so none is written raw either).
//! - Arrays and objects are `[1, 2]` and `{"k": v, "l": w}` on one line.
//!   An array or object that ends a line and would pass 100 columns, or that
//!   holds a comment, is broken: one element per line, indented one level,
//!   each followed by a comma, the closing bracket on its own line.
//! - A `webhook` is one line: the URL, then one `include` clause with every
//!   included path (clauses written separately are merged, in order), then
//!   the `header` clauses in order.
//! - Keyword aliases are kept as written (`deny` stays `deny`, `unless`
//!   stays `unless`, `log warning` stays `warning`).
//!
//! # Comments
//!
//! A comment on its own line stays on its own line, before the item or line
//! that follows it (blank lines between a comment group and what follows are
//! kept, at most one). A comment at the end of a line stays at the end of
//! that line, after one space. A comment inside an element list stays with
//! its element. A condition that holds a comment between its `and` / `or`
//! operands is broken there (however short it is): a comment on its own
//! line stays on its own line before the operand that followed it, one at
//! the end of an operand's line (or after the operator ending it) stays at
//! the end of that operand's line. A comment elsewhere inside a line (say,
//! between a function's arguments) moves to its own line just before that
//! line. Comments after the last item stay at the end of the file. No
//! comment is ever dropped; comment text is kept as written (trailing blanks
//! removed).

use super::ast::{
    Action, ActionKind, BinaryOp, CommandPart, Condition, Expect, ExpectKind, Expr, ExprKind, File,
    Hook, HookOption, HookOptionKind, Item, Mock, MockKind, MockReply, Path, RegexLit, RegexRef,
    SchemaRef, Segment, StrLit, TestDecl, UnaryOp,
};
use crate::diag::Diagnostics;
use crate::span::{SourceFile, Span};
use serde_json::Value;

mod comments;
mod expr;
mod items;

use comments::*;
use expr::*;
use items::*;

/// The indentation of one level.
const INDENT: &str = "    ";

/// Lines longer than this break their trailing array or object.
const WIDTH: usize = 100;

/// Parses `source` and prints it in the canonical layout.
///
/// # Errors
///
/// The syntax errors, when the file does not parse: a file that does not
/// parse is never formatted.
pub fn format_source(source: &SourceFile) -> Result<String, Diagnostics> {
    let (file, diags) = super::parse(source);
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(format_file(source, &file))
}

/// Prints a parsed file in the canonical layout; `source` is the text it was
/// parsed from (for comments and keyword aliases).
pub fn format_file(source: &SourceFile, file: &File) -> String {
    let text: &str = &source.text;
    let comments = collect_comments(text, file);
    let mut p = Printer {
        src: text,
        used: vec![false; comments.len()],
        comments,
    };
    let mut out = Buf::default();
    let mut prev: Option<&Item> = None;
    for item in &file.items {
        let span = item_span(item);
        let header = |i: &Item| matches!(i, Item::Schema(_) | Item::Import(_));
        // `override` lines form one block, like `schema` and `import` ones.
        let overrides = |i: &Item| matches!(i, Item::Override(_));
        let blank =
            prev.is_some_and(|p| !(header(p) && header(item) || overrides(p) && overrides(item)));
        p.leading(&mut out, start(span), 0, Some(blank));
        prev = Some(item);
        p.item(&mut out, item);
        p.trailing(&mut out, end(span));
    }
    // Comments after the last item.
    let rest = p.take_before(text.len() + 1);
    if !rest.is_empty() && !out.lines.is_empty() {
        out.blank();
    }
    p.emit_comments(&mut out, &rest, 0, true);
    let mut s = out.lines.join("\n");
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// The comments of a parsed file in source order, as written (trailing
/// blanks removed), `#` included.
pub fn comments(source: &SourceFile, file: &File) -> Vec<String> {
    collect_comments(&source.text, file)
        .into_iter()
        .map(|c| c.text)
        .collect()
}

/// The spans of the tokens of a parsed file that hold text as written:
/// strings (triple-quoted ones too), regexes, paths (whose bracketed keys
/// are strings) and quoted FQL targets, sorted by start. Outside them a
/// file holds only names, numbers, operators, blanks and comments.
pub fn literal_spans(file: &File) -> Vec<Span> {
    let mut spans = Vec::new();
    for item in &file.items {
        opaque_item(item, &mut spans);
    }
    spans.sort_by_key(|s| s.start);
    spans
}

/// Quotes a string with the canonical escapes.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // Control characters (C0, DEL, C1) and bidirectional controls
            // are never written raw: a terminal or an editor would act on
            // them (or reorder the line) instead of showing them.
            c if crate::diag::escape::is_unsafe(c) || crate::diag::escape::looks_blank(c) => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An expression in canonical form, on one line (comments are not known
/// here): for messages that quote a condition.
pub fn expr_to_string(expr: &Expr) -> String {
    let mut p = Printer {
        src: "",
        comments: Vec::new(),
        used: Vec::new(),
    };
    p.expr(expr, 0)
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

/// Output lines; an entry may hold several physical lines (a broken array).
#[derive(Default)]
struct Buf {
    lines: Vec<String>,
    /// Nothing was written since the last block opened (or the start).
    fresh: bool,
}

impl Buf {
    /// A buffer for the inside of a block.
    fn block() -> Buf {
        Buf {
            lines: Vec::new(),
            fresh: true,
        }
    }

    fn push(&mut self, indent: usize, text: &str) {
        self.lines.push(format!("{}{text}", INDENT.repeat(indent)));
        self.fresh = false;
    }

    /// One blank line, unless at the start of a block or after one.
    fn blank(&mut self) {
        if self.fresh || self.lines.last().is_none_or(String::is_empty) {
            return;
        }
        self.lines.push(String::new());
    }

    /// Appends to the last line.
    fn append(&mut self, text: &str) {
        if let Some(last) = self.lines.last_mut() {
            last.push_str(text);
        }
    }
}

/// The span of an item, from its keyword to its end.
pub fn item_span(item: &Item) -> Span {
    match item {
        Item::Schema(d) => d.span,
        Item::Import(d) => d.span,
        Item::List(d) => d.span,
        Item::Pattern(d) => d.span,
        Item::Macro(d) => d.span,
        Item::Hook(h) => h.span,
        Item::Override(d) => d.span,
        Item::Test(t) => t.span,
    }
}

struct Printer<'s> {
    src: &'s str,
    comments: Vec<Comment>,
    used: Vec<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(text: &str) -> String {
        match format_source(&SourceFile::new("t.hooks", text)) {
            Ok(s) => s,
            Err(d) => panic!("{}", crate::diag::render::human(&d, false)),
        }
    }

    #[test]
    fn canonical_header_and_body() {
        let out = fmt("hook  x on a.b,c.d  at \"builtin::llm\" timeout 5000ms disabled priority 5 fail closed {when payload.n&8!=0 set payload.n=payload.n&~8}");
        assert_eq!(
            out,
            "hook x on a.b, c.d at builtin::llm priority 5 fail closed timeout 5s disabled {\n    when payload.n & 8 != 0\n    set payload.n = payload.n & ~8\n}\n"
        );
    }

    #[test]
    fn webhook_clauses_on_one_line() {
        // Comments inside the action move before it; `#` in strings is text.
        let input = "hook x on p {\n    webhook \"https://h.example/#a\" # the hook\n        header \"X-A\" \"#1\"\n        include payload.a, payload[\"b c\"] # fields\n        include metadata.k\n    abort\n}\n";
        let out = fmt(input);
        assert_eq!(
            out,
            "hook x on p {\n    # the hook\n    # fields\n    webhook \"https://h.example/#a\" include payload.a, payload[\"b c\"], metadata.k header \"X-A\" \"#1\"\n    abort\n}\n"
        );
        assert_eq!(fmt(&out), out);
        let plain = "hook x on p {\n    webhook \"https://h.example\"\n}\n";
        assert_eq!(fmt(plain), plain);
    }

    /// A string holding a character that shows as a space, or not at all,
    /// keeps it escaped; other non-ASCII text is written as itself.
    #[test]
    fn invisible_characters_stay_escaped() {
        for (c, escaped) in [
            ('\u{a0}', "\\u00a0"),
            ('\u{2009}', "\\u2009"),
            ('\u{3000}', "\\u3000"),
            ('\u{2028}', "\\u2028"),
            ('\u{200b}', "\\u200b"),
            ('\u{ad}', "\\u00ad"),
            ('\u{feff}', "\\ufeff"),
        ] {
            assert_eq!(quote(&format!(":{c}()")), format!("\":{escaped}()\""));
        }
        assert_eq!(quote("é ü"), "\"é ü\"");
        let written = "hook x on p {\n    when payload.a == \":\\u00a0()\"\n}\n";
        assert_eq!(fmt(written), written);
    }
}

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
//!   `\f`, other control characters (C0, DEL, C1) and the bidirectional
//!   controls (U+202A–U+202E, U+2066–U+2069) as `\uXXXX`, everything else
//!   (`/`, non ASCII) as itself. Regexes keep their text; only `/` is
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
//! its element; a comment elsewhere inside a line (say, in the middle of a
//! condition split over several lines) moves to its own line just before
//! that line. Comments after the last item stay at the end of the file. No
//! comment is ever dropped; comment text is kept as written (trailing blanks
//! removed).

use super::ast::{
    Action, ActionKind, BinaryOp, Condition, Expect, ExpectKind, Expr, ExprKind, File, Hook,
    HookOptionKind, Item, Path, RegexLit, RegexRef, SchemaRef, Segment, StrLit, TestDecl, UnaryOp,
};
use crate::diag::Diagnostics;
use crate::span::{SourceFile, Span};
use serde_json::Value;

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
        let blank = prev.is_some_and(|p| !(header(p) && header(item)));
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
            c if crate::diag::escape::is_unsafe(c) => {
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

// ---------------------------------------------------------------------------
// Comments
// ---------------------------------------------------------------------------

/// A `#` comment of the source.
#[derive(Clone, Debug)]
struct Comment {
    /// Byte offset of the `#`.
    start: usize,
    /// The text, `#` included, trailing blanks removed.
    text: String,
}

/// Every comment of `text`: `#` outside strings, regexes, paths and FQL
/// targets (the only tokens that may hold a `#`), whose spans the AST knows.
fn collect_comments(text: &str, file: &File) -> Vec<Comment> {
    let opaque = literal_spans(file);
    let bytes = text.as_bytes();
    let mut comments = Vec::new();
    let mut next = opaque.iter().peekable();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        while next.peek().is_some_and(|s| end(**s) <= i) {
            next.next();
        }
        if let Some(s) = next.peek() {
            if start(**s) <= i {
                i = end(**s).max(i + 1);
                continue;
            }
        }
        if b == b'#' {
            let len = text
                .get(i..)
                .and_then(|rest| rest.find(['\n', '\r']))
                .unwrap_or(text.len() - i);
            let body = text.get(i..i + len).unwrap_or("#").trim_end();
            comments.push(Comment {
                start: i,
                text: body.to_owned(),
            });
            i += len.max(1);
            continue;
        }
        i += 1;
    }
    comments
}

fn opaque_item(item: &Item, out: &mut Vec<Span>) {
    match item {
        Item::Schema(d) => {
            if let SchemaRef::Path(s) = &d.schema {
                out.push(s.span);
            }
        }
        Item::Import(d) => out.push(d.path.span),
        Item::List(d) => d.items.iter().for_each(|e| opaque_expr(e, out)),
        Item::Pattern(d) => out.push(d.regex.span),
        Item::Macro(d) => opaque_expr(&d.body, out),
        Item::Hook(h) => {
            if let Some(t) = &h.target {
                out.push(t.span);
            }
            for c in &h.conditions {
                opaque_expr(&c.expr, out);
            }
            for a in &h.actions {
                opaque_action(a, out);
            }
        }
        Item::Test(t) => {
            out.push(t.name.span);
            opaque_expr(&t.event, out);
            if let Some(target) = &t.target {
                out.push(target.span);
            }
            for e in &t.expects {
                match &e.kind {
                    ExpectKind::Abort(s) | ExpectKind::Ask(s) => {
                        out.extend(s.as_ref().map(|s| s.span));
                    }
                    ExpectKind::Skip(v) => v.iter().for_each(|v| opaque_expr(v, out)),
                    ExpectKind::Fired(v) | ExpectKind::Condition(v) => opaque_expr(v, out),
                    ExpectKind::Continue | ExpectKind::Decision(_) => {}
                }
            }
        }
    }
}

fn opaque_action(a: &Action, out: &mut Vec<Span>) {
    match &a.kind {
        ActionKind::Continue | ActionKind::Allow => {}
        ActionKind::Abort(s) | ActionKind::Ask(s) => out.extend(s.as_ref().map(|s| s.span)),
        ActionKind::Skip(e) => e.iter().for_each(|e| opaque_expr(e, out)),
        ActionKind::Replace(e) => opaque_expr(e, out),
        ActionKind::Set(p, e) => {
            out.push(p.span);
            opaque_expr(e, out);
        }
        ActionKind::Unset(p) => out.push(p.span),
        ActionKind::Rewrite(p, re, s) => {
            out.push(p.span);
            opaque_regex(re, out);
            out.push(s.span);
        }
        ActionKind::Prepend(p, s) | ActionKind::Append(p, s) => {
            out.push(p.span);
            out.push(s.span);
        }
        ActionKind::Meta(k, e) => {
            out.push(k.span);
            opaque_expr(e, out);
        }
        ActionKind::Log(_, s)
        | ActionKind::Context(s)
        | ActionKind::Sh(s)
        | ActionKind::Call(s)
        | ActionKind::CallLua(s)
        | ActionKind::Lua(s) => out.push(s.span),
        ActionKind::Trace(file, fields) => {
            out.push(file.span);
            out.extend(fields.iter().map(|p| p.span));
        }
        ActionKind::Webhook(w) => {
            out.push(w.url.span);
            out.extend(w.include.iter().map(|p| p.span));
            for (name, value) in &w.headers {
                out.push(name.span);
                out.push(value.span);
            }
        }
        ActionKind::Exec(p, args) => {
            out.push(p.span);
            out.extend(args.iter().map(|a| a.span));
        }
    }
}

fn opaque_regex(re: &RegexRef, out: &mut Vec<Span>) {
    if let RegexRef::Literal(lit) = re {
        out.push(lit.span);
    }
}

fn opaque_expr(e: &Expr, out: &mut Vec<Span>) {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Name(_) => {}
        ExprKind::Str(s) => out.push(s.span),
        ExprKind::Array(items) => items.iter().for_each(|i| opaque_expr(i, out)),
        ExprKind::Object(entries) => {
            for (k, v) in entries {
                out.push(k.span);
                opaque_expr(v, out);
            }
        }
        ExprKind::Path(p) => out.push(p.span),
        ExprKind::Unary(_, x) | ExprKind::Exists(x) => opaque_expr(x, out),
        ExprKind::Binary(_, a, b) | ExprKind::ContainsAny(a, b) | ExprKind::In(a, b) => {
            opaque_expr(a, out);
            opaque_expr(b, out);
        }
        ExprKind::Matches(a, re) => {
            opaque_expr(a, out);
            opaque_regex(re, out);
        }
        ExprKind::Glob(a, s) => {
            opaque_expr(a, out);
            out.push(s.span);
        }
        ExprKind::Rate(r) => out.push(r.key.span),
    }
}

// ---------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------

fn start(span: Span) -> usize {
    span.start as usize
}

fn end(span: Span) -> usize {
    span.end as usize
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
        Item::Test(t) => t.span,
    }
}

/// Binding levels for parenthesization (higher binds tighter).
const LEVEL_OR: u8 = 1;
const LEVEL_AND: u8 = 2;
/// Predicates: tests (`==`, `in`, `matches`, …) and `not`.
const LEVEL_TEST: u8 = 3;
/// Arithmetic starts here; see [`arith_level`].
const LEVEL_ARITH: u8 = 4;
const LEVEL_PREFIX: u8 = 10;
const LEVEL_ATOM: u8 = 11;

fn arith_level(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => LEVEL_OR,
        BinaryOp::And => LEVEL_AND,
        BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Contains
        | BinaryOp::StartsWith
        | BinaryOp::EndsWith => LEVEL_TEST,
        BinaryOp::BitOr => LEVEL_ARITH,
        BinaryOp::BitXor => 5,
        BinaryOp::BitAnd => 6,
        BinaryOp::Shl | BinaryOp::Shr => 7,
        BinaryOp::Add | BinaryOp::Sub => 8,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 9,
    }
}

fn level(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, ..) => arith_level(*op),
        ExprKind::Unary(UnaryOp::Not, _)
        | ExprKind::In(..)
        | ExprKind::ContainsAny(..)
        | ExprKind::Matches(..)
        | ExprKind::Glob(..)
        | ExprKind::Exists(_)
        | ExprKind::Rate(_) => LEVEL_TEST,
        ExprKind::Unary(..) => LEVEL_PREFIX,
        ExprKind::Literal(Value::Number(n)) if n.as_f64().is_some_and(|f| f < 0.0) => LEVEL_PREFIX,
        _ => LEVEL_ATOM,
    }
}

/// True for names the grammar accepts bare: `[A-Za-z_][A-Za-z0-9_]*`, or
/// with `-` after the first character when `dashes` is set.
fn is_name(s: &str, dashes: bool) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (dashes && c == '-'))
}

/// A timeout in the largest unit that divides it.
fn duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".to_owned();
    }
    for (unit, scale) in [("h", 3_600_000), ("m", 60_000), ("s", 1_000)] {
        if ms % scale == 0 {
            return format!("{}{unit}", ms / scale);
        }
    }
    format!("{ms}ms")
}

/// A regex literal with `/` escaped.
fn regex_lit(lit: &RegexLit) -> String {
    let mut out = String::from("/");
    let mut chars = lit.pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push('\\');
                if let Some(next) = chars.next() {
                    if next == '/' {
                        out.push('\\');
                    }
                    out.push(next);
                }
            }
            '/' => out.push_str("\\/"),
            c => out.push(c),
        }
    }
    out.push('/');
    out.push_str(&lit.flags);
    out
}

fn path(p: &Path) -> String {
    let mut out = p.root.name.clone();
    for seg in &p.segments {
        match seg {
            Segment::Field(f) if is_name(f, false) => {
                out.push('.');
                out.push_str(f);
            }
            Segment::Field(f) => {
                out.push('[');
                out.push_str(&quote(f));
                out.push(']');
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A JSON value that is not an AST node (only scalars occur in practice).
fn json(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(json).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", quote(k), json(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        other => other.to_string(),
    }
}

struct Printer<'s> {
    src: &'s str,
    comments: Vec<Comment>,
    used: Vec<bool>,
}

impl Printer<'_> {
    /// Unused comments that start before `pos`, marked used, in order.
    fn take_before(&mut self, pos: usize) -> Vec<Comment> {
        let mut out = Vec::new();
        for (c, used) in self.comments.iter().zip(self.used.iter_mut()) {
            if c.start >= pos {
                break;
            }
            if !*used {
                *used = true;
                out.push(c.clone());
            }
        }
        out
    }

    /// True when an unused comment starts inside `span`.
    fn has_comments(&self, span: Span) -> bool {
        self.comments
            .iter()
            .zip(&self.used)
            .any(|(c, used)| !used && c.start > start(span) && c.start < end(span))
    }

    /// True when `pos` starts its line (after blanks) and the line before
    /// it is blank.
    fn blank_before(&self, pos: usize) -> bool {
        let before = self.src.get(..pos).unwrap_or("");
        let Some(nl) = before.rfind('\n') else {
            return false;
        };
        let (head, line) = before.split_at(nl);
        if !line.trim().is_empty() {
            return false;
        }
        let prev = head
            .rfind('\n')
            .map_or(head, |i| head.get(i + 1..).unwrap_or(""));
        prev.trim().is_empty()
    }

    /// Own-line comments, keeping single blank lines between them.
    fn emit_comments(&self, out: &mut Buf, comments: &[Comment], indent: usize, blanks: bool) {
        for (k, c) in comments.iter().enumerate() {
            if blanks && k > 0 && self.blank_before(c.start) {
                out.blank();
            }
            out.push(indent, &c.text);
        }
    }

    /// The comments before `pos`, each on its own line, with the blank line
    /// before the group: forced (`Some(true)`), none (`Some(false)`), or as
    /// in the source (`None`).
    fn leading(&mut self, out: &mut Buf, pos: usize, indent: usize, blank: Option<bool>) {
        let comments = self.take_before(pos);
        let first = comments.first().map_or(pos, |c| c.start);
        let want = match blank {
            Some(b) => b,
            None => self.blank_before(first),
        };
        if want {
            out.blank();
        }
        self.emit_comments(out, &comments, indent, true);
        if !comments.is_empty() && self.blank_before(pos) {
            out.blank();
        }
    }

    /// The comments before a closing brace or bracket at `pos`: like
    /// [`Printer::leading`], but a block never ends with a blank line.
    fn closing(&mut self, out: &mut Buf, pos: usize, indent: usize) {
        let comments = self.take_before(pos);
        if let Some(first) = comments.first() {
            if self.blank_before(first.start) {
                out.blank();
            }
        }
        self.emit_comments(out, &comments, indent, true);
    }

    /// Comments left inside a line's span: moved before it.
    fn hoist(&mut self, out: &mut Buf, end: usize, indent: usize) {
        let comments = self.take_before(end);
        self.emit_comments(out, &comments, indent, false);
    }

    /// A comment after `end` on the same line (only blanks and commas in
    /// between) goes at the end of the last line.
    fn trailing(&mut self, out: &mut Buf, end: usize) {
        let found = self
            .comments
            .iter()
            .zip(self.used.iter_mut())
            .find(|(c, used)| !**used && c.start >= end);
        if let Some((c, used)) = found {
            let gap = self.src.get(end..c.start).unwrap_or("\n");
            if gap.bytes().all(|b| matches!(b, b' ' | b'\t' | b',')) {
                *used = true;
                out.append(" ");
                out.append(&c.text);
            }
        }
    }

    /// One line of a block: leading comments, hoisted comments, the text,
    /// a trailing comment.
    fn line(
        &mut self,
        out: &mut Buf,
        span: Span,
        indent: usize,
        text: impl FnOnce(&mut Self) -> String,
    ) {
        self.leading(out, start(span), indent, None);
        let text = text(self);
        self.hoist(out, end(span), indent);
        out.push(indent, &text);
        self.trailing(out, end(span));
    }

    /// Where the `{` after `from` is (skipping blanks and comments).
    fn brace(&self, from: usize) -> usize {
        let bytes = self.src.as_bytes();
        let mut i = from;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'{' => return i,
                b'#' => {
                    while bytes.get(i).is_some_and(|&c| c != b'\n') {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        from
    }

    fn item(&mut self, out: &mut Buf, item: &Item) {
        let span = item_span(item);
        match item {
            Item::Schema(d) => {
                let text = match &d.schema {
                    SchemaRef::Builtin(name) => format!("schema {}", name.name),
                    SchemaRef::Path(p) => format!("schema {}", quote(&p.value)),
                };
                self.hoist(out, end(span), 0);
                out.push(0, &text);
            }
            Item::Import(d) => {
                self.hoist(out, end(span), 0);
                out.push(0, &format!("import {}", quote(&d.path.value)));
            }
            Item::List(d) => {
                let head = format!("list {} = ", d.name.name);
                let items = Expr {
                    kind: ExprKind::Array(d.items.clone()),
                    span: Span::new(start(d.name.span), end(span)),
                };
                let text = self.tail(&items, 0, head.len(), 0);
                self.hoist(out, end(span), 0);
                out.push(0, &format!("{head}{text}"));
            }
            Item::Pattern(d) => {
                self.hoist(out, end(span), 0);
                out.push(
                    0,
                    &format!("pattern {} = {}", d.name.name, regex_lit(&d.regex)),
                );
            }
            Item::Macro(d) => {
                let text = self.expr(&d.body, 0);
                self.hoist(out, end(span), 0);
                out.push(0, &format!("macro {} = {text}", d.name.name));
            }
            Item::Hook(h) => self.hook(out, h),
            Item::Test(t) => self.test(out, t),
        }
    }

    fn hook(&mut self, out: &mut Buf, h: &Hook) {
        let mut head = format!("hook {} on ", h.id.name);
        let points: Vec<&str> = h.points.iter().map(|p| p.name.as_str()).collect();
        head.push_str(&points.join(", "));
        if let Some(t) = &h.target {
            head.push_str(" at ");
            let bare = !t.value.is_empty()
                && t.value.chars().all(|c| {
                    c.is_ascii_alphanumeric()
                        || matches!(c, '_' | '*' | '.' | ':' | '/' | '#' | '@' | '-')
                });
            if bare {
                head.push_str(&t.value);
            } else {
                head.push_str(&quote(&t.value));
            }
        }
        let rank = |k: &HookOptionKind| match k {
            HookOptionKind::Priority(_) => 0,
            HookOptionKind::Fail(_) => 1,
            HookOptionKind::Timeout(_) => 2,
            HookOptionKind::Disabled => 3,
        };
        let mut options: Vec<&HookOptionKind> = h.options.iter().map(|o| &o.kind).collect();
        options.sort_by_key(|k| rank(k));
        for opt in options {
            head.push(' ');
            head.push_str(&match opt {
                HookOptionKind::Priority(n) => format!("priority {n}"),
                HookOptionKind::Fail(crate::ir::FailMode::Open) => "fail open".to_owned(),
                HookOptionKind::Fail(crate::ir::FailMode::Closed) => "fail closed".to_owned(),
                HookOptionKind::Timeout(ms) => format!("timeout {}", duration(*ms)),
                HookOptionKind::Disabled => "disabled".to_owned(),
            });
        }
        let open = self.brace(end(h.header_span));
        let close = end(h.span).saturating_sub(1);
        let lines: Vec<Line<'_>> = h
            .conditions
            .iter()
            .map(Line::Condition)
            .chain(h.actions.iter().map(Line::Action))
            .collect();
        self.block(out, &head, open, close, &lines);
    }

    fn test(&mut self, out: &mut Buf, t: &TestDecl) {
        let head = format!("test {}", quote(&t.name.value));
        let open = self.brace(end(t.name.span));
        let close = end(t.span).saturating_sub(1);
        let mut lines = vec![Line::Event(&t.event, t.event_span)];
        if let Some(target) = &t.target {
            lines.push(Line::Target(target, t.target_span.unwrap_or(target.span)));
        }
        if let Some((count, span)) = t.repeat {
            lines.push(Line::Repeat(count, span));
        }
        lines.extend(t.expects.iter().map(Line::Expect));
        self.block(out, &head, open, close, &lines);
    }

    /// `head {`, the lines, `}`; `{}` when empty.
    fn block(&mut self, out: &mut Buf, head: &str, open: usize, close: usize, lines: &[Line<'_>]) {
        self.hoist(out, open, 0);
        let empty = lines.is_empty() && !self.has_comments(Span::new(open, close + 1));
        if empty {
            out.push(0, &format!("{head} {{}}"));
            return;
        }
        out.push(0, &format!("{head} {{"));
        self.trailing(out, open + 1);
        let mut body = Buf::block();
        for line in lines {
            let span = line.span();
            self.line(&mut body, span, 1, |p| p.body_line(line));
        }
        self.closing(&mut body, close, 1);
        out.lines.append(&mut body.lines);
        out.push(0, "}");
    }

    fn body_line(&mut self, line: &Line<'_>) -> String {
        let indent = 1;
        let col = INDENT.len();
        match line {
            Line::Condition(c) => {
                let kw = if c.negated { "unless " } else { "when " };
                format!("{kw}{}", self.expr(&c.expr, indent))
            }
            Line::Action(a) => self.action(a, indent, col),
            Line::Event(e, _) => format!("event {}", self.tail(e, indent, col + 6, 0)),
            Line::Target(t, _) => format!("target {}", quote(&t.value)),
            Line::Repeat(n, _) => format!("repeat {n}"),
            Line::Expect(e) => {
                let head = "expect ";
                let col = col + head.len();
                let body = match &e.kind {
                    ExpectKind::Abort(r) => with_reason("abort", r.as_ref()),
                    ExpectKind::Ask(r) => with_reason("ask", r.as_ref()),
                    ExpectKind::Continue => "continue".to_owned(),
                    ExpectKind::Skip(None) => "skip".to_owned(),
                    ExpectKind::Skip(Some(v)) => {
                        let text = self.tail(v, indent, col + 5, 0);
                        format!("skip {}", guard_expect(text, &["expect"]))
                    }
                    ExpectKind::Fired(v) => format!("fired {}", self.tail(v, indent, col + 6, 0)),
                    ExpectKind::Decision(d) => format!("decision {}", d.name),
                    ExpectKind::Condition(c) => {
                        let text = self.expr(c, indent);
                        guard_expect(text, &["fired", "decision", "expect"])
                    }
                };
                format!("{head}{body}")
            }
        }
    }

    fn action(&mut self, a: &Action, indent: usize, col: usize) -> String {
        match &a.kind {
            ActionKind::Continue => "continue".to_owned(),
            ActionKind::Abort(r) => {
                let written = self.src.get(start(a.span)..).unwrap_or("");
                let kw = if written.starts_with("deny") {
                    "deny"
                } else {
                    "abort"
                };
                with_reason(kw, r.as_ref())
            }
            ActionKind::Skip(None) => "skip".to_owned(),
            ActionKind::Skip(Some(v)) => format!("skip {}", self.tail(v, indent, col + 5, 0)),
            ActionKind::Replace(v) => format!("replace {}", self.tail(v, indent, col + 8, 0)),
            ActionKind::Set(p, v) => {
                let head = format!("set {} = ", path(p));
                let text = self.tail(v, indent, col + head.len(), 0);
                format!("{head}{text}")
            }
            ActionKind::Unset(p) => format!("unset {}", path(p)),
            ActionKind::Rewrite(p, re, s) => format!(
                "rewrite {} {} -> {}",
                path(p),
                regex_ref(re),
                quote(&s.value)
            ),
            ActionKind::Prepend(p, s) => format!("prepend {} {}", path(p), quote(&s.value)),
            ActionKind::Append(p, s) => format!("append {} {}", path(p), quote(&s.value)),
            ActionKind::Meta(k, v) => {
                let key = if is_name(&k.value, true) {
                    k.value.clone()
                } else {
                    quote(&k.value)
                };
                let head = format!("meta {key} = ");
                let text = self.tail(v, indent, col + head.len(), 0);
                format!("{head}{text}")
            }
            ActionKind::Log(level, s) => format!("log {} {}", level.name, quote(&s.value)),
            ActionKind::Ask(r) => with_reason("ask", r.as_ref()),
            ActionKind::Allow => "allow".to_owned(),
            ActionKind::Context(s) => format!("context {}", quote(&s.value)),
            ActionKind::Exec(p, args) => {
                let mut text = format!("exec {}", quote(&p.value));
                for arg in args {
                    text.push(' ');
                    text.push_str(&quote(&arg.value));
                }
                text
            }
            ActionKind::Sh(s) => format!("sh {}", quote(&s.value)),
            ActionKind::Webhook(w) => {
                let mut text = format!("webhook {}", quote(&w.url.value));
                for (i, p) in w.include.iter().enumerate() {
                    text.push_str(if i == 0 { " include " } else { ", " });
                    text.push_str(&path(p));
                }
                for (name, value) in &w.headers {
                    text.push_str(&format!(
                        " header {} {}",
                        quote(&name.value),
                        quote(&value.value)
                    ));
                }
                text
            }
            ActionKind::Call(s) => format!("call {}", quote(&s.value)),
            ActionKind::CallLua(s) => format!("call lua {}", quote(&s.value)),
            ActionKind::Lua(code) => {
                // Code over lines (or with quotes) reads best raw.
                if (code.value.contains('\n') || code.value.contains('"'))
                    && !code.value.contains("\"\"\"")
                {
                    format!("lua \"\"\"{}\"\"\"", code.value)
                } else {
                    format!("lua {}", quote(&code.value))
                }
            }
            ActionKind::Trace(file, fields) => {
                let mut text = format!("trace {}", quote(&file.value));
                for (i, p) in fields.iter().enumerate() {
                    text.push_str(if i == 0 { " " } else { ", " });
                    text.push_str(&path(p));
                }
                text
            }
        }
    }

    // -- expressions --------------------------------------------------------

    /// An expression that ends a line starting at column `col`: an array or
    /// object is broken when the line would be too long. `extra` counts
    /// what follows it on the line (a comma).
    fn tail(&mut self, e: &Expr, indent: usize, col: usize, extra: usize) -> String {
        if matches!(e.kind, ExprKind::Array(_) | ExprKind::Object(_)) && !self.has_comments(e.span)
        {
            let flat = self.expr(e, indent);
            if col + flat.chars().count() + extra <= WIDTH {
                return flat;
            }
            return self.broken(e, indent);
        }
        self.expr(e, indent)
    }

    /// An expression, in parentheses when it binds looser than `min`.
    fn operand(&mut self, e: &Expr, indent: usize, min: u8) -> String {
        let text = self.expr(e, indent);
        if level(e) < min {
            format!("({text})")
        } else {
            text
        }
    }

    fn expr(&mut self, e: &Expr, indent: usize) -> String {
        match &e.kind {
            ExprKind::Literal(v) => json(v),
            ExprKind::Str(s) => quote(&s.value),
            ExprKind::Array(_) | ExprKind::Object(_) => {
                if self.has_comments(e.span) {
                    self.broken(e, indent)
                } else {
                    self.flat(e, indent)
                }
            }
            ExprKind::Path(p) => path(p),
            ExprKind::Name(n) => n.name.clone(),
            ExprKind::Unary(UnaryOp::Not, inner) => match &inner.kind {
                ExprKind::In(a, set) => {
                    let a = self.operand(a, indent, LEVEL_ARITH);
                    let set = self.expr(set, indent);
                    format!("{a} not in {set}")
                }
                _ => format!("not {}", self.operand(inner, indent, LEVEL_TEST)),
            },
            ExprKind::Unary(op, inner) => {
                let sign = if *op == UnaryOp::Neg { "-" } else { "~" };
                format!("{sign}{}", self.operand(inner, indent, LEVEL_PREFIX))
            }
            ExprKind::Binary(op, a, b) => {
                let lvl = arith_level(*op);
                let (min_a, min_b) = if lvl == LEVEL_TEST {
                    (LEVEL_ARITH, LEVEL_ARITH)
                } else {
                    (lvl, lvl + 1)
                };
                let a = self.operand(a, indent, min_a);
                let b = self.operand(b, indent, min_b);
                format!("{a} {} {b}", op.as_str())
            }
            ExprKind::In(a, set) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                let set = self.expr(set, indent);
                format!("{a} in {set}")
            }
            ExprKind::ContainsAny(a, set) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                let set = self.expr(set, indent);
                format!("{a} contains any {set}")
            }
            ExprKind::Matches(a, re) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                format!("{a} matches {}", regex_ref(re))
            }
            ExprKind::Glob(a, s) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                format!("{a} glob {}", quote(&s.value))
            }
            ExprKind::Exists(a) => {
                let a = self.operand(a, indent, LEVEL_ARITH);
                format!("{a} exists")
            }
            ExprKind::Rate(r) => {
                let limit = if r.limit.fract() == 0.0 && r.limit.abs() < 1e15 {
                    format!("{}", r.limit as i64)
                } else {
                    r.limit.to_string()
                };
                format!(
                    "rate({}) {} {limit} per {}",
                    quote(&r.key.value),
                    r.op.as_str(),
                    r.window_text
                )
            }
        }
    }

    /// `[a, b]` / `{"k": v}` on one line.
    fn flat(&mut self, e: &Expr, indent: usize) -> String {
        match &e.kind {
            ExprKind::Array(items) => {
                let items: Vec<String> = items.iter().map(|i| self.expr(i, indent)).collect();
                format!("[{}]", items.join(", "))
            }
            ExprKind::Object(entries) => {
                let entries: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", quote(&k.value), self.expr(v, indent)))
                    .collect();
                format!("{{{}}}", entries.join(", "))
            }
            _ => self.expr(e, indent),
        }
    }

    /// An array or object with one element per line.
    fn broken(&mut self, e: &Expr, indent: usize) -> String {
        let (open, close) = match e.kind {
            ExprKind::Object(_) => ("{", "}"),
            _ => ("[", "]"),
        };
        let inner = indent + 1;
        let col = inner * INDENT.len();
        let mut body = Buf::block();
        match &e.kind {
            ExprKind::Array(items) => {
                for item in items {
                    self.line(&mut body, item.span, inner, |p| {
                        let text = p.tail(item, inner, col, 1);
                        format!("{text},")
                    });
                }
            }
            ExprKind::Object(entries) => {
                for (k, v) in entries {
                    let span = Span::new(start(k.span), end(v.span));
                    self.line(&mut body, span, inner, |p| {
                        let key = quote(&k.value);
                        let text = p.tail(v, inner, col + key.len() + 2, 1);
                        format!("{key}: {text},")
                    });
                }
            }
            _ => return self.expr(e, indent),
        }
        self.closing(&mut body, end(e.span).saturating_sub(1), inner);
        let mut text = String::from(open);
        for line in &body.lines {
            text.push('\n');
            text.push_str(line);
        }
        text.push('\n');
        text.push_str(&INDENT.repeat(indent));
        text.push_str(close);
        text
    }
}

/// One line of a rule or test body.
enum Line<'a> {
    Condition(&'a Condition),
    Action(&'a Action),
    /// The event and the line's span.
    Event(&'a Expr, Span),
    /// The target and the line's span.
    Target(&'a StrLit, Span),
    /// `repeat N` and the line's span.
    Repeat(u32, Span),
    Expect(&'a Expect),
}

impl Line<'_> {
    fn span(&self) -> Span {
        match self {
            Line::Condition(c) => c.span,
            Line::Action(a) => a.span,
            Line::Event(_, span) | Line::Target(_, span) | Line::Repeat(_, span) => *span,
            Line::Expect(e) => e.span,
        }
    }
}

fn regex_ref(re: &RegexRef) -> String {
    match re {
        RegexRef::Literal(lit) => regex_lit(lit),
        RegexRef::Name(n) => n.name.clone(),
    }
}

fn with_reason(kw: &str, reason: Option<&StrLit>) -> String {
    match reason {
        Some(r) => format!("{kw} {}", quote(&r.value)),
        None => kw.to_owned(),
    }
}

/// Parenthesizes an expression that would read as another `expect` form
/// (a macro named `fired`, say).
fn guard_expect(text: String, words: &[&str]) -> String {
    let clash = words.iter().any(|w| {
        text.strip_prefix(w)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
    });
    if clash {
        format!("({text})")
    } else {
        text
    }
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
}

//! What is written at an offset of a parsed file: a hook point, a field
//! path, a name, a function, an import. Hover and go-to-definition start
//! here; hover and completion share the text helpers (the word at an
//! offset, whether a line ends in a string or a comment, the fields of a
//! quantifier's variable).
//!
//! The walk follows the syntax tree, so it sees only the items that parsed
//! (an item with a syntax error is not in the tree). A span contains the
//! offsets from its first byte to just after its last, so a cursor at the
//! end of a word is on the word.

use crate::span::Span;
use crate::syntax::ast::{self, ActionKind, ExprKind, Item, RegexRef};

/// A thing written at an offset.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Found<'a> {
    /// A point in a rule's header.
    Point(&'a ast::Ident),
    /// A field path, with the points of the rule it is in (none outside a
    /// rule).
    Path(&'a ast::Path, &'a [ast::Ident]),
    /// A name used in an expression (a list, pattern or macro, or a
    /// variable).
    Name(&'a ast::Ident),
    /// The name a `list`, `pattern` or `macro` defines (or a `list … +=`
    /// extends).
    Definition(&'a ast::Ident),
    /// A built-in function's name in a call.
    Function(&'a ast::Ident),
    /// The path of the file's `n`th `import`.
    Import(&'a ast::StrLit, usize),
    /// A `schema` declaration.
    Schema(&'a ast::SchemaDecl),
    /// The rule an `override` names.
    Override(&'a ast::Ident),
}

/// The innermost thing written at `offset` in `file`.
pub(crate) fn at(file: &ast::File, offset: u32) -> Option<Found<'_>> {
    let mut imports = 0;
    for item in &file.items {
        if let Item::Import(import) = item {
            if contains(import.path.span, offset) {
                return Some(Found::Import(&import.path, imports));
            }
            imports += 1;
            continue;
        }
        if !contains(crate::syntax::pretty::item_span(item), offset) {
            continue;
        }
        return in_item(item, offset);
    }
    None
}

fn in_item(item: &Item, offset: u32) -> Option<Found<'_>> {
    match item {
        Item::Schema(decl) => Some(Found::Schema(decl)),
        Item::Import(_) => None,
        Item::List(list) => {
            if contains(list.name.span, offset) {
                return Some(Found::Definition(&list.name));
            }
            list.items.iter().find_map(|e| expr(e, offset, &[]))
        }
        Item::Pattern(pattern) => {
            contains(pattern.name.span, offset).then_some(Found::Definition(&pattern.name))
        }
        Item::Macro(m) => {
            if contains(m.name.span, offset) {
                return Some(Found::Definition(&m.name));
            }
            expr(&m.body, offset, &[])
        }
        Item::Hook(hook) => {
            if let Some(point) = hook.points.iter().find(|p| contains(p.span, offset)) {
                return Some(Found::Point(point));
            }
            let points = hook.points.as_slice();
            hook.conditions
                .iter()
                .find_map(|c| expr(&c.expr, offset, points))
                .or_else(|| hook.actions.iter().find_map(|a| action(a, offset, points)))
        }
        Item::Override(o) => contains(o.id.span, offset).then_some(Found::Override(&o.id)),
        Item::Test(test) => test.expects.iter().find_map(|e| match &e.kind {
            ast::ExpectKind::Condition(c) => expr(c, offset, &[]),
            _ => None,
        }),
    }
}

fn action<'a>(a: &'a ast::Action, offset: u32, points: &'a [ast::Ident]) -> Option<Found<'a>> {
    if !contains(a.span, offset) {
        return None;
    }
    let path = |p: &'a ast::Path| contains(p.span, offset).then_some(Found::Path(p, points));
    match &a.kind {
        ActionKind::Skip(Some(e)) | ActionKind::Replace(e) => expr(e, offset, points),
        ActionKind::Meta(_, e) | ActionKind::Output(_, e) => expr(e, offset, points),
        ActionKind::Set(p, e) => path(p).or_else(|| expr(e, offset, points)),
        ActionKind::Unset(p) | ActionKind::Prepend(p, _) | ActionKind::Append(p, _) => path(p),
        ActionKind::Rewrite(p, regex, _) => path(p).or_else(|| regex_name(regex, offset)),
        ActionKind::Webhook(w) => w.include.iter().find_map(path),
        ActionKind::Trace(_, paths) => paths.iter().find_map(path),
        _ => None,
    }
}

fn regex_name(regex: &RegexRef, offset: u32) -> Option<Found<'_>> {
    match regex {
        RegexRef::Name(name) if contains(name.span, offset) => Some(Found::Name(name)),
        _ => None,
    }
}

fn expr<'a>(e: &'a ast::Expr, offset: u32, points: &'a [ast::Ident]) -> Option<Found<'a>> {
    if !contains(e.span, offset) {
        return None;
    }
    let sub = |inner: &'a ast::Expr| expr(inner, offset, points);
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Str(_) | ExprKind::Rate(_) => None,
        ExprKind::Array(items) => items.iter().find_map(sub),
        ExprKind::Object(entries) => entries.iter().find_map(|(_, v)| sub(v)),
        ExprKind::Path(p) => Some(Found::Path(p, points)),
        ExprKind::Name(name) => Some(Found::Name(name)),
        ExprKind::Unary(_, a) | ExprKind::Exists(a) | ExprKind::Glob(a, _) => sub(a),
        ExprKind::Binary(_, a, b) | ExprKind::ContainsAny(a, b) | ExprKind::In(a, b) => {
            sub(a).or_else(|| sub(b))
        }
        ExprKind::Matches(a, regex) => sub(a).or_else(|| regex_name(regex, offset)),
        ExprKind::Quantifier(q) => sub(&q.over).or_else(|| sub(&q.body)),
        ExprKind::Call(name, args) => {
            if contains(name.span, offset) {
                return Some(Found::Function(name));
            }
            args.iter().find_map(sub)
        }
    }
}

/// True when `offset` is in `span` or just after it.
pub(crate) fn contains(span: Span, offset: u32) -> bool {
    span.start <= offset && offset <= span.end
}

/// The parts of a path as written, each with its span: the root, then each
/// `.field`, `[index]` or `["key"]` step (the span of a step is its name,
/// index or quoted key). `None` when the text does not read as the path's
/// segments (it always does for a path that parsed).
pub(crate) fn path_parts(text: &str, path: &ast::Path) -> Option<Vec<Span>> {
    let start = path.span.start as usize;
    let written = text.get(start..path.span.end as usize)?;
    let mut parts = vec![path.root.span];
    let mut at = path.root.name.len();
    for segment in &path.segments {
        let rest = written.get(at..)?;
        let (skip, len) = match segment {
            ast::Segment::Field(f) if rest.starts_with('.') => (1, f.len()),
            ast::Segment::Field(_) | ast::Segment::Index(_) => {
                let inner = rest.strip_prefix('[')?;
                (1, closing_bracket(inner)?)
            }
        };
        parts.push(Span::new(start + at + skip, start + at + skip + len));
        at += skip + len + usize::from(rest.as_bytes().get(skip + len) == Some(&b']'));
    }
    Some(parts)
}

/// The length of the text before the `]` that closes an index or a quoted
/// key.
fn closing_bracket(text: &str) -> Option<usize> {
    if !text.starts_with('"') {
        return text.find(']');
    }
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(i + 1),
            _ => escaped = false,
        }
    }
    None
}

/// The word (letters, digits, `_`) at or just before `offset`, with its span.
pub(crate) fn word_at(text: &str, offset: usize) -> Option<(Span, &str)> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let offset = offset.min(text.len());
    let before = text.get(..offset)?;
    let after = text.get(offset..)?;
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = offset + after.find(|c: char| !is_word(c)).unwrap_or(after.len());
    let word = text.get(start..end)?;
    (!word.is_empty()).then(|| (Span::new(start, end), word))
}

/// True when the end of `line` (a line's text up to a point) is inside a
/// string or a comment.
pub(crate) fn in_string_or_comment(line: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '#' if !in_string => return true,
            _ => {}
        }
    }
    in_string
}

/// The fields of `var` when the rule binds it (before the cursor) to a
/// command of a shell view (`any c in shell(…)`) or to a redirection (`any
/// r in c.redirects`).
pub(crate) fn variable_fields(rule: &str, var: &str) -> Vec<(String, String)> {
    let words: Vec<&str> = rule
        .split(|c: char| c.is_whitespace() || c == ':')
        .filter(|w| !w.is_empty())
        .collect();
    let bound = words.windows(4).rev().find_map(|w| match w {
        [q, v, "in", over] if (*q == "any" || *q == "all") && *v == var => Some(*over),
        _ => None,
    });
    let fields: Vec<(&str, &str)> = match bound {
        Some(over) if over.starts_with("shell(") => crate::check::command_fields().collect(),
        Some(over) if over.ends_with(".redirects") => crate::check::redirect_fields().collect(),
        _ => Vec::new(),
    };
    fields
        .into_iter()
        .map(|(name, ty)| (name.to_owned(), ty.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::SourceFile;

    fn parse(text: &str) -> ast::File {
        crate::syntax::parse(&SourceFile::new("t.hooks", text)).0
    }

    #[test]
    fn finds_points_paths_names_and_functions() {
        let text = "list l = [\"a\"]\nhook a on tool.pre_execute {\n    when lower(payload.args) in l\n    abort\n}\n";
        let file = parse(text);
        let at = |needle: &str| u32::try_from(text.find(needle).unwrap() + 1).unwrap();
        assert!(
            matches!(at_text(&file, at("tool.pre")), Some(Found::Point(p)) if p.name == "tool.pre_execute")
        );
        assert!(
            matches!(at_text(&file, at("lower")), Some(Found::Function(f)) if f.name == "lower")
        );
        assert!(
            matches!(at_text(&file, at("payload")), Some(Found::Path(p, points)) if p.root.name == "payload" && points.len() == 1)
        );
        assert!(matches!(at_text(&file, at("l\n")), Some(Found::Name(n)) if n.name == "l"));
        assert!(matches!(at_text(&file, 5), Some(Found::Definition(n)) if n.name == "l"));
        assert!(at_text(&file, at("abort")).is_none());
    }

    fn at_text(file: &ast::File, offset: u32) -> Option<Found<'_>> {
        at(file, offset)
    }

    #[test]
    fn words_strings_and_comments() {
        let text = "when abc == 1";
        assert_eq!(word_at(text, 6).map(|(_, w)| w), Some("abc"));
        assert_eq!(word_at(text, 8).map(|(_, w)| w), Some("abc"), "just after");
        assert_eq!(word_at(text, 9), None);
        assert!(in_string_or_comment("    when x == \"a b"));
        assert!(!in_string_or_comment("    when x == \"a\\\"b\" and"));
        assert!(in_string_or_comment("    when x  # a note"));
        assert!(!in_string_or_comment("    when x == \"#\" and "));
    }

    #[test]
    fn path_parts_span_each_step() {
        let text = "macro m = payload.a[0][\"x]y\"].b == 1\n";
        let file = parse(text);
        let Some(Item::Macro(m)) = file.items.first() else {
            panic!("a macro");
        };
        let ExprKind::Binary(_, left, _) = &m.body.kind else {
            panic!("a comparison");
        };
        let ExprKind::Path(path) = &left.kind else {
            panic!("a path");
        };
        let parts = path_parts(text, path).unwrap();
        let words: Vec<&str> = parts.iter().map(|s| &text[s.range()]).collect();
        assert_eq!(words, ["payload", "a", "0", "\"x]y\"", "b"]);
    }

    #[test]
    fn variables_of_shell_views_have_fields() {
        let rule = "hook a on PreToolUse {\n    when any c in shell(payload.tool_input.command):\n        any r in c.redirects: r.";
        let names = |var| -> Vec<String> {
            variable_fields(rule, var)
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        assert!(
            names("c").contains(&"program".to_owned()),
            "{:?}",
            names("c")
        );
        assert_eq!(names("r"), ["op", "target"]);
        assert!(names("x").is_empty());
    }
}

//! `regex-matches-empty`: a `matches` regex that matches every string.

use super::walk;
use super::{declare_lint, Cx, Sink};
use crate::check::names::DefKind;
use crate::diag::Diagnostic;
use crate::ir::RegexSource;
use crate::span::Span;
use crate::syntax::ast;

declare_lint! {
    /// ## What it does
    /// Finds `matches` regexes (written in place or named by a `pattern`)
    /// that match the empty string without needing a word boundary or both
    /// ends of the text: `/a*/`, `/(foo)?/`, `/^/`, `/x|/`. Such a regex finds
    /// an empty match in every string, so the condition holds for every
    /// string value. A regex that matches the empty string only as a whole
    /// text, such as `/^$/`, is fine.
    ///
    /// ## Why is this bad?
    /// `payload.args matches /(rm -rf)?/` looks like a test for `rm -rf`, but
    /// it holds for every string: a rule meant to be narrow fires on every
    /// call (and `unless` it never does). It usually comes from a `*` or `?`
    /// that should have been a `+`, or an empty alternative.
    ///
    /// ## Example
    /// ```text
    /// hook block-rm on tool.pre_execute {
    ///     when payload.args matches /(rm\s+-rf)*/
    ///     abort "blocked"
    /// }
    /// ```
    ///
    /// Write `/rm\s+-rf/`. To test only that the field is there, write
    /// `payload.args exists`.
    pub static REGEX_MATCHES_EMPTY = "regex-matches-empty", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for used in matched_regexes(cx) {
        if !matches_every_string(cx, &used.source) {
            continue;
        }
        let source = &used.source;
        let shown = format!("/{}/{}", source.pattern, source.flags);
        let mut d = Diagnostic::warning(
            REGEX_MATCHES_EMPTY.code,
            format!("regex `{shown}` matches the empty string, so it matches every string"),
        )
        .with_primary(used.span, "matches every string");
        let help = "require at least one character (`+` rather than `*`, no empty alternative); to test that the field is there, use `exists`";
        d = match used.named {
            Some(name) => d.with_help(format!("`{name}` is this regex; {help}")),
            None => d.with_help(help),
        };
        sink.report(
            &REGEX_MATCHES_EMPTY,
            used.file,
            &[(used.file, used.anchor)],
            d,
        );
    }
}

/// A regex a `matches` tests, where it is used.
pub(super) struct MatchedRegex<'a> {
    /// The file it is used in.
    pub(super) file: usize,
    /// The header of the rule or macro using it, where a lint comment
    /// applies.
    pub(super) anchor: Span,
    /// The regex.
    pub(super) source: RegexSource,
    /// Where to point: the regex, or the name of its `pattern`.
    pub(super) span: Span,
    /// The `pattern`'s name, when it is named.
    pub(super) named: Option<&'a str>,
}

/// Every regex a `matches` tests in the rules' conditions and the macros'
/// bodies, in the order they are written (a regex used twice, twice).
pub(super) fn matched_regexes<'a>(cx: &Cx<'a>) -> Vec<MatchedRegex<'a>> {
    let mut out = Vec::new();
    for (fi, file) in cx.roots() {
        for item in &file.ast.items {
            let (roots, anchor): (Vec<&ast::Expr>, Span) = match item {
                ast::Item::Hook(h) => (
                    h.conditions.iter().map(|c| &c.expr).collect(),
                    h.header_span,
                ),
                ast::Item::Macro(m) => (vec![&m.body], m.span),
                _ => continue,
            };
            for root in roots {
                walk::exprs(root, &mut |e| {
                    let ast::ExprKind::Matches(_, re) = &e.kind else {
                        return;
                    };
                    if let Some((source, span, named)) = resolve(cx, fi, re) {
                        out.push(MatchedRegex {
                            file: fi,
                            anchor,
                            source,
                            span,
                            named,
                        });
                    }
                });
            }
        }
    }
    out
}

/// [`matched_regexes`], each regex once, where it is first used.
pub(super) fn first_uses<'a>(cx: &Cx<'a>) -> Vec<MatchedRegex<'a>> {
    let mut seen = std::collections::HashSet::new();
    matched_regexes(cx)
        .into_iter()
        .filter(|used| seen.insert(used.source.clone()))
        .collect()
}

/// The regex a `matches` operand stands for, where to point, and the
/// pattern's name when it is named.
fn resolve<'a>(
    cx: &Cx<'a>,
    file: usize,
    re: &'a ast::RegexRef,
) -> Option<(RegexSource, Span, Option<&'a str>)> {
    match re {
        ast::RegexRef::Literal(lit) => Some((
            RegexSource {
                pattern: lit.pattern.clone(),
                flags: lit.flags.clone(),
            },
            lit.span,
            None,
        )),
        ast::RegexRef::Name(name) => {
            let def = walk::resolve(cx.scopes, file, &name.name)?;
            if def.kind != DefKind::Pattern {
                return None;
            }
            let Some(ast::Item::Pattern(p)) =
                cx.loaded.files.get(def.file)?.ast.items.get(def.item)
            else {
                return None;
            };
            Some((
                RegexSource {
                    pattern: p.regex.pattern.clone(),
                    flags: p.regex.flags.clone(),
                },
                name.span,
                Some(name.name.as_str()),
            ))
        }
    }
}

/// True when the regex finds a match in every string: it matches the empty
/// string, and the only assertions it has are start-of-text ones (which
/// every string has at its start) or end-of-text ones (at its end).
fn matches_every_string(cx: &Cx<'_>, source: &RegexSource) -> bool {
    // Cheap tests first: most regexes need at least one character.
    cx.regex_shape(source)
        .is_some_and(|s| s.minimum_len == Some(0) && s.one_end_only)
        && regex::Regex::new(&source.to_inline()).is_ok_and(|re| re.is_match(""))
}

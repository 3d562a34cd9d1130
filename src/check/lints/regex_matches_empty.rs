//! `regex-matches-empty`: a `matches` regex that matches every string.

use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::ir::RegexSource;

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
    for used in cx.matched_regexes() {
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

/// True when the regex finds a match in every string: it matches the empty
/// string, and the only assertions it has are start-of-text ones (which
/// every string has at its start) or end-of-text ones (at its end).
fn matches_every_string(cx: &Cx<'_>, source: &RegexSource) -> bool {
    // Cheap tests first: most regexes need at least one character.
    cx.regex_shape(source)
        .is_some_and(|s| s.minimum_len == Some(0) && s.one_end_only)
        && regex::Regex::new(&source.to_inline()).is_ok_and(|re| re.is_match(""))
}

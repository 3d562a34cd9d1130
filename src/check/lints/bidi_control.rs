//! `bidi-control`: a raw bidirectional control character in a string or
//! regex literal ("Trojan Source").

use super::{declare_lint, Cx, Sink};
use crate::diag::{escape, Diagnostic};
use crate::span::Span;
use crate::syntax::pretty;

declare_lint! {
    /// ## What it does
    /// Finds a raw bidirectional control character in a string or regex
    /// literal: the embeddings and overrides U+202A–U+202E and the isolates
    /// U+2066–U+2069, written as the character itself rather than as an
    /// escape (`\u202e` in a string, `\x{202E}` in a regex).
    ///
    /// Comments are not checked: a comment runs to the end of its line, and
    /// these characters reorder text only up to the end of the line, so one
    /// in a comment can only reorder that comment.
    ///
    /// ## Why is this bad?
    /// These characters are invisible, and an editor, a terminal or a code
    /// review tool that honours them shows the rest of the line reordered
    /// ("Trojan Source", CVE-2021-42574): a rule can read as testing one
    /// thing while it tests another, or a condition can seem to end inside
    /// a string. hookc never prints them raw (its output shows `\u{202e}`),
    /// but the file is read elsewhere too.
    ///
    /// ## Example
    /// A rule whose string holds a RIGHT-TO-LEFT OVERRIDE before `"exec"`
    /// (shown here as `<U+202E>`) displays as if it tested another value:
    ///
    /// ```text
    /// hook block on tool.pre_execute {
    ///     when payload.tool == "<U+202E>exec"
    ///     abort "no"
    /// }
    /// ```
    ///
    /// Write the escape instead, `"\u202eexec"`, so that the character is
    /// visible; `hookc fmt` does this for strings and regexes.
    pub static BIDI_CONTROL = "bidi-control", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for (fi, file) in cx.roots() {
        let text: &str = &file.source.text;
        if !text.contains(escape::is_bidi_control) {
            continue;
        }
        let literals = pretty::literal_spans(&file.ast);
        let items: Vec<Span> = file.ast.items.iter().map(pretty::item_span).collect();
        // The characters of each literal that holds any, in order.
        let mut found: Vec<(Span, Vec<(usize, char)>)> = Vec::new();
        for (at, c) in text.char_indices() {
            if !escape::is_bidi_control(c) {
                continue;
            }
            let after = literals.partition_point(|s| s.start as usize <= at);
            let Some(literal) = after
                .checked_sub(1)
                .and_then(|i| literals.get(i))
                .filter(|s| at < s.end as usize)
            else {
                // In a comment (or in a file that did not parse).
                continue;
            };
            match found.last_mut() {
                Some((span, chars)) if span == literal => chars.push((at, c)),
                _ => found.push((*literal, vec![(at, c)])),
            }
        }
        for (literal, chars) in found {
            let what = match text
                .get(literal.start as usize..)
                .and_then(|t| t.chars().next())
            {
                Some('/') => "regex",
                _ => "string",
            };
            let Some(&(first_at, first)) = chars.first() else {
                continue;
            };
            let name = escape::bidi_name(first).unwrap_or("bidirectional control");
            let code = u32::from(first);
            let count = match chars.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            let mut d = Diagnostic::warning(
                BIDI_CONTROL.code,
                format!("{what} literal holds a raw {name} (U+{code:04X}){count}"),
            )
            .with_primary(
                Span::new(first_at, first_at + first.len_utf8()),
                "reorders how the rest of the line is shown",
            );
            for &(at, c) in chars.iter().skip(1) {
                d = d.with_secondary(Span::new(at, at + c.len_utf8()), "");
            }
            let escape = if what == "regex" {
                format!("\\x{{{code:04X}}}")
            } else {
                format!("\\u{code:04x}")
            };
            d = d.with_help(format!(
                "write `{escape}` to keep the character visible (`hookc fmt` rewrites it)"
            ));
            let anchor = items
                .iter()
                .copied()
                .find(|s| s.start <= literal.start && literal.end <= s.end)
                .unwrap_or(literal);
            sink.report(&BIDI_CONTROL, fi, &[(fi, anchor)], d);
        }
    }
}

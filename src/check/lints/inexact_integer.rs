//! `inexact-integer`: an integer literal beyond 64 bits, which the language
//! reads as the float nearest to it.

use super::walk;
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::ast;

declare_lint! {
    /// ## What it does
    /// Finds integer literals outside the 64-bit signed range
    /// (−9223372036854775808 to 9223372036854775807) in conditions, values
    /// of actions, lists and macros.
    ///
    /// The language's integers are 64-bit signed; an integer literal
    /// outside that range is read as the nearest float (as JSON numbers are
    /// by many readers), so it is rounded: `18446744073709551615` becomes
    /// `18446744073709551616.0`.
    ///
    /// ## Why is this bad?
    /// The rule tests or writes another number than the one written, and
    /// nothing says so: past 2^63 neighbouring integers share a float (every
    /// integer from 18446744073709550592 to 18446744073709553664 reads as
    /// 18446744073709551616), so a comparison holds for numbers it was not
    /// written for, and an edit writes a number nobody wrote.
    ///
    /// ## Example
    /// ```text
    /// hook quota on tool.pre_execute {
    ///     when payload.bytes > 18446744073709551615
    ///     abort "over quota"
    /// }
    /// ```
    ///
    /// Write a number within 64 bits, a float when an approximation is
    /// meant (`1.8e19`), or compare strings when the value is an
    /// identifier.
    pub static INEXACT_INTEGER = "inexact-integer", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for (fi, file) in cx.roots() {
        let text: &str = &file.source.text;
        for item in &file.ast.items {
            let (exprs, anchor): (Vec<&ast::Expr>, Span) = match item {
                ast::Item::Hook(hook) => (walk::hook_exprs(hook), hook.span),
                ast::Item::List(list) => (list.items.iter().collect(), list.span),
                ast::Item::Macro(mac) => (vec![&mac.body], mac.span),
                _ => continue,
            };
            let mut found: Vec<(Span, &str)> = Vec::new();
            for e in exprs {
                walk::exprs(e, &mut |x| {
                    if let ast::ExprKind::Literal(serde_json::Value::Number(n)) = &x.kind {
                        let written = text.get(x.span.start as usize..x.span.end as usize);
                        if let Some(written) = written.filter(|w| n.is_f64() && is_integer(w)) {
                            found.push((x.span, written));
                        }
                    }
                });
            }
            for (span, written) in found {
                let read = text_of(written);
                let d = Diagnostic::warning(
                    INEXACT_INTEGER.code,
                    format!("integer `{written}` does not fit in 64 bits: it is read as the float {read}"),
                )
                .with_primary(span, "beyond 64 bits: a float")
                .with_help(
                    "integers are 64-bit signed (-9223372036854775808 to 9223372036854775807): write one within that range, a float if an approximation is meant (`1.8e19`), or a string for an identifier",
                )
                .in_file(&file.source);
                sink.report(&INEXACT_INTEGER, fi, &[(fi, anchor)], d);
            }
        }
    }
}

/// True for an integer as written: digits, after an optional minus.
fn is_integer(written: &str) -> bool {
    let digits = written.strip_prefix('-').unwrap_or(written).trim_start();
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The float the language reads for the integer `written`, in full
/// (`18446744073709551616`), so that the rounding shows.
fn text_of(written: &str) -> String {
    let compact: String = written.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .parse::<f64>()
        .map_or(compact.clone(), |read| format!("{read:.0}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_written() {
        assert!(is_integer("18446744073709551615"));
        assert!(is_integer("-9223372036854775809"));
        assert!(is_integer("- 9223372036854775809"));
        assert!(!is_integer("1.5"));
        assert!(!is_integer("2e3"));
        assert!(!is_integer("-"));
        assert!(!is_integer(""));
        assert_eq!(text_of("18446744073709551615"), "18446744073709551616");
        assert_eq!(text_of("- 9223372036854775809"), "-9223372036854775808");
    }
}

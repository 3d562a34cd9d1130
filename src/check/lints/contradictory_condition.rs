//! `contradictory-condition`: a rule whose conditions can never all hold.

use super::logic::{self, Conjunct, Fact, Test};
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::ir::RegexId;

declare_lint! {
    /// ## What it does
    /// Finds rules that can never match because their conditions contradict
    /// each other, or because one of them can never hold:
    ///
    /// - one field equal to two different values: `x == "a" and x == "b"`;
    /// - a value and its negation: `x == 1 and x != 1`, `x exists and not x exists`;
    /// - a value outside a list it must be in: `x in ["a", "b"] and x == "c"`,
    ///   or two lists with nothing in common;
    /// - an empty numeric range: `x > 5 and x < 3`, `x >= 2 and x < 2`;
    /// - a value the field must be equal to that fails another test of it:
    ///   `x == "ls" and x starts_with "rm"`;
    /// - string tests whose languages do not meet, decided through a
    ///   product of their DFAs: `x matches /^[0-9]+$/ and x matches
    ///   /^[a-z]/`, `x glob "/etc/**" and not (x contains "/etc/")` (for a
    ///   test that needs a string: `contains` alone also holds on arrays);
    /// - `x in []`, `false`;
    /// - a `matches` regex that no string matches because a part of it that
    ///   every match needs matches nothing, such as the empty class in
    ///   `/id-[^\s\S]/`.
    ///
    /// Conditions are the `when` and `unless` lines split at `and`, with
    /// macros expanded; the analysis only reports what follows for certain.
    ///
    /// This lint warns rather than denies: a rule that never matches does
    /// nothing at run time, and generated rule sets (importers, tests) may
    /// hold such rules on purpose. Deny it in `hookc.toml` to make it an
    /// error.
    ///
    /// ## Why is this bad?
    /// The rule never fires. In a guard rule that is a silent hole: the
    /// author believes something is blocked that never is.
    ///
    /// ## Example
    /// ```text
    /// hook block-shells on tool.pre_execute {
    ///     when payload.tool == "exec" and payload.tool == "sh"
    ///     abort "no shells"
    /// }
    /// ```
    ///
    /// The author meant `payload.tool in ["exec", "sh"]`.
    pub static CONTRADICTORY_CONDITION = "contradictory-condition", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for (rule, conjuncts) in cx.rules.iter().zip(cx.conjuncts()) {
        let anchors = [(rule.file, rule.span)];
        if let Some(c) = conjuncts.iter().find_map(|c| empty_regex(cx, c)) {
            let (conjunct, id) = c;
            let re = logic::show_regex(cx, id);
            let d = Diagnostic::warning(
                CONTRADICTORY_CONDITION.code,
                format!(
                    "regex `{re}` can never match, so rule `{}` never does",
                    rule.id
                ),
            )
            .with_primary(conjunct.span, "never holds")
            .with_help(
                "the regex has a part no string matches, such as an empty class `[^\\s\\S]`",
            );
            sink.report(&CONTRADICTORY_CONDITION, rule.file, &anchors, d);
            continue;
        }
        let Some((a, b)) = logic::contradiction(cx, conjuncts) else {
            continue;
        };
        let sa = logic::show_conjunct(cx, a);
        let d = if std::ptr::eq(a, b) {
            Diagnostic::warning(
                CONTRADICTORY_CONDITION.code,
                format!(
                    "condition `{sa}` can never hold, so rule `{}` never matches",
                    rule.id
                ),
            )
            .with_primary(a.span, "never holds")
            .with_help("remove the rule, or fix the condition")
        } else {
            let sb = logic::show_conjunct(cx, b);
            let mut d = Diagnostic::warning(
                CONTRADICTORY_CONDITION.code,
                format!(
                    "conditions `{sa}` and `{sb}` can never both hold, so rule `{}` never matches",
                    rule.id
                ),
            )
            .with_primary(b.span, "contradicts");
            if a.span != b.span {
                d = d.with_secondary(a.span, "this condition");
            }
            d.with_help(help(a, b))
        };
        sink.report(&CONTRADICTORY_CONDITION, rule.file, &anchors, d);
    }
}

fn help(a: &Conjunct<'_>, b: &Conjunct<'_>) -> &'static str {
    match (&a.fact, &b.fact) {
        (
            Fact::Field {
                test: Test::Eq(_),
                holds: true,
                ..
            },
            Fact::Field {
                test: Test::Eq(_),
                holds: true,
                ..
            },
        ) => "a field has one value; to accept either, write `field in [a, b]`",
        (
            Fact::Field {
                test: Test::Cmp(..),
                ..
            },
            Fact::Field {
                test: Test::Cmp(..),
                ..
            },
        ) => "no number is in this range; check the bounds and the comparison operators",
        (x, y) if *x == y.clone().negate() => {
            "a condition and its negation never hold together; remove one of them"
        }
        _ => "check the values; to accept either, join the conditions with `or`",
    }
}

/// The regex of a positive `matches` conjunct, when no string matches it.
fn empty_regex<'a, 'e>(cx: &Cx<'_>, c: &'a Conjunct<'e>) -> Option<(&'a Conjunct<'e>, RegexId)> {
    let Fact::Field {
        test: Test::Matches(id),
        holds: true,
        ..
    } = c.fact
    else {
        return None;
    };
    let source = cx.regex_source(id)?;
    let shape = cx.regex_shape(source)?;
    shape.minimum_len.is_none().then_some((c, id))
}

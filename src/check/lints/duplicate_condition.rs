//! `duplicate-condition`: a condition tested twice in one rule, or implied by
//! another of its conditions.

use super::logic::{self, Conjunct};
use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;

declare_lint! {
    /// ## What it does
    /// Finds a rule condition that is tested twice, or that another condition
    /// of the same rule already implies. The rule's `when` and `unless` lines
    /// are split at `and` (macros expanded), and each part is compared with
    /// the others: `x == "a"` twice is a duplicate; with `x == "a"`, the
    /// condition `x in ["a", "b"]`, `x != "b"` or `x exists` adds nothing, and
    /// so does `x > 3` next to `x > 5`.
    ///
    /// ## Why is this bad?
    /// A redundant condition is noise at best. Often it is a typo for a
    /// different field or value, so the rule is broader than its author
    /// thinks it is.
    ///
    /// ## Example
    /// ```text
    /// macro is_exec = payload.tool == "exec"
    ///
    /// hook block-rm on tool.pre_execute {
    ///     when is_exec and payload.args contains "rm"
    ///     when payload.tool == "exec"
    ///     abort "no rm"
    /// }
    /// ```
    ///
    /// The second line repeats the macro; remove it.
    pub static DUPLICATE_CONDITION = "duplicate-condition", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    for (rule, conjuncts) in cx.rules.iter().zip(cx.conjuncts()) {
        if logic::contradiction(cx, conjuncts).is_some() {
            // Anything follows from a contradiction; that lint says more.
            continue;
        }
        let mut reported = vec![false; conjuncts.len()];
        for (j, later) in conjuncts.iter().enumerate() {
            let earlier = conjuncts.iter().enumerate().find(|&(i, c)| {
                i != j
                    && !reported.get(i).copied().unwrap_or(false)
                    && logic::implies(cx, &c.fact, &later.fact)
                    && (i < j || !logic::implies(cx, &later.fact, &c.fact))
            });
            let Some((_, earlier)) = earlier else {
                continue;
            };
            if let Some(r) = reported.get_mut(j) {
                *r = true;
            }
            sink.report(
                &DUPLICATE_CONDITION,
                rule.file,
                &[(rule.file, rule.span)],
                diagnostic(cx, later, earlier),
            );
        }
    }
}

fn diagnostic(cx: &Cx<'_>, dup: &Conjunct<'_>, by: &Conjunct<'_>) -> Diagnostic {
    let shown = logic::show_conjunct(cx, dup);
    let other = logic::show_conjunct(cx, by);
    let same = logic::implies(cx, &dup.fact, &by.fact);
    let (message, label, help) = if same {
        (
            format!("condition `{shown}` is tested twice"),
            "tested again here",
            "remove one of them".to_string(),
        )
    } else {
        (
            format!("condition `{shown}` is implied by `{other}`"),
            "adds nothing",
            format!("`{other}` already implies it; remove it, or check that it tests the field and value you meant"),
        )
    };
    let mut d =
        Diagnostic::warning(DUPLICATE_CONDITION.code, message).with_primary(dup.span, label);
    if by.span != dup.span {
        d = d.with_secondary(
            by.span,
            if same {
                "first tested here"
            } else {
                "implied by this"
            },
        );
    }
    d.with_help(help)
}

//! `conflicting-decisions`: two rules at one priority that answer one event
//! differently, so that the answer depends on declaration order.

use super::logic::{self, Fact};
use super::{declare_lint, point_list, rule_ref, Cx, Sink};
use crate::check::CheckedRule;
use crate::diag::Diagnostic;
use crate::ir::Action;
use std::collections::BTreeMap;

declare_lint! {
    /// ## What it does
    /// Finds two rules on the same point with the same priority that give
    /// one event different answers: both end the chain (`abort`, `deny`,
    /// `skip`) with different outcomes or reasons, or both `ask` with
    /// different questions. The first one declared decides; the other
    /// never speaks on those events.
    ///
    /// Only overlaps that exist are reported: the lint builds field values
    /// on which both rules' conditions hold (constants of `==` and `in`,
    /// numbers inside the bounds, and for string tests a string in the
    /// intersection of their languages, found through a product of their
    /// DFAs), checks them, and shows them. Rules whose conditions it cannot
    /// solve (expressions, `shell(…)` views) are left alone.
    ///
    /// ## Why is this bad?
    /// Rules of one priority run in declaration order: which reason the
    /// user sees, or whether the call is denied or skipped, depends on
    /// where the rules happen to be written (and, for rules in two files,
    /// on the order of the files on the command line).
    ///
    /// ## Example
    /// ```text
    /// hook deny-rm on tool.pre_execute priority 10 {
    ///     when payload.args starts_with "rm "
    ///     abort "no rm"
    /// }
    ///
    /// hook deny-force on tool.pre_execute priority 10 {
    ///     when payload.args matches /\s-[a-z]*f/
    ///     abort "no forced operations"
    /// }
    /// ```
    ///
    /// `rm -f x` is refused with "no rm" only because `deny-rm` comes
    /// first. Give the rule whose answer should win the lower priority
    /// number, or narrow one condition so the two never meet.
    pub static CONFLICTING_DECISIONS = "conflicting-decisions", Warn, check;
}

/// The most pairs of rules of one priority compared at one point: a point
/// with thousands of rules at one priority is compared up to there (the
/// lint may miss a pair past it; it never reports one that is not).
const MAX_PAIRS: usize = 4_096;

/// What a rule answers when it fires: its first action that ends the
/// chain, or else its first `ask`, as written.
fn verdict(rule: &CheckedRule) -> Option<String> {
    if let Some(i) = logic::always_ends(rule) {
        return rule.actions.get(i).map(|a| format!("{:?}", a.node));
    }
    rule.actions
        .iter()
        .find(|a| matches!(a.node, Action::Ask(_)))
        .map(|a| format!("{:?}", a.node))
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    let conjuncts = cx.conjuncts();
    let verdicts: Vec<Option<String>> = cx
        .rules
        .iter()
        .map(|r| if r.enabled { verdict(r) } else { None })
        .collect();
    // For each later rule, the earlier rule it conflicts with, the points,
    // and the values both hold on.
    let mut found: BTreeMap<usize, (usize, Vec<&str>, String)> = BTreeMap::new();
    for point in cx.points() {
        let mut group: Vec<usize> = Vec::new();
        let mut priority = None;
        let mut pairs = 0;
        for &bi in &point.rules {
            let Some(b) = cx.rule(bi) else { continue };
            if priority != Some(b.priority) {
                group.clear();
                priority = Some(b.priority);
            }
            let Some(vb) = verdicts.get(bi).and_then(Option::as_ref) else {
                continue;
            };
            let cb = conjuncts.get(bi).map_or(&[][..], Vec::as_slice);
            // The first earlier rule that conflicts, and the values both
            // match.
            let earlier = group.iter().copied().find_map(|ai| {
                if pairs >= MAX_PAIRS {
                    return None;
                }
                pairs += 1;
                let (a, Some(va)) = (cx.rule(ai)?, verdicts.get(ai)?) else {
                    return None;
                };
                if va == vb || !logic::overlaps(&a.target, &b.target) {
                    return None;
                }
                let ca = conjuncts.get(ai).map_or(&[][..], Vec::as_slice);
                let facts: Vec<&Fact<'_>> = ca.iter().chain(cb).map(|c| &c.fact).collect();
                Some((ai, logic::example(cx, &facts)?))
            });
            if let Some((ai, values)) = earlier {
                let shown = values
                    .iter()
                    .map(|(path, v)| match v {
                        Some(v) => {
                            let v = v.to_string();
                            format!("{path} = {}", crate::diag::escape::shorten(&v, 48))
                        }
                        None => format!("{path} absent"),
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                let entry = found.entry(bi).or_insert_with(|| (ai, Vec::new(), shown));
                if entry.0 == ai {
                    entry.1.push(point.point.as_str());
                }
            }
            group.push(bi);
        }
    }
    for (bi, (ai, points, shown)) in found {
        let (Some(a), Some(b)) = (cx.rule(ai), cx.rule(bi)) else {
            continue;
        };
        let at = point_list(&points);
        let on = if shown.is_empty() {
            "every event".to_string()
        } else {
            format!("an event with {shown}")
        };
        let mut d = Diagnostic::warning(
            CONFLICTING_DECISIONS.code,
            format!(
                "rules `{}` and `{}` answer differently at priority {} on {at}",
                a.id, b.id, b.priority
            ),
        )
        .with_primary(b.span, format!("never answers {on}"));
        if a.file == b.file {
            d = d.with_secondary(a.span, "answers it first, being declared first");
        }
        d = d.with_help(format!(
            "both match {on}, and rule {} decides only because it is declared first; give the rule that should win a lower priority number, or narrow one condition",
            rule_ref(cx, a, b.file)
        ));
        sink.report(
            &CONFLICTING_DECISIONS,
            b.file,
            &[(b.file, b.span), (a.file, a.span)],
            d,
        );
    }
}

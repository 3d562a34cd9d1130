//! `edit-conflict`: two rules at one priority that edit the same field.

use super::logic::{self, Conjunct};
use super::{declare_lint, point_list, rule_ref, Cx, Sink};
use crate::check::CheckedRule;
use crate::diag::Diagnostic;
use crate::ir::{Action, FieldPath};
use std::collections::BTreeMap;

declare_lint! {
    /// ## What it does
    /// Finds two rules on the same point with the same priority that both
    /// edit the same field (`set`, `unset`, `rewrite`, `prepend`, `append`,
    /// `meta`, or `replace` for the whole payload), where one field is the
    /// other or lies under it (`payload.args` and `payload.args.cmd`).
    ///
    /// Pairs that cannot conflict are left alone: rules whose targets never
    /// match the same call, whose conditions cannot hold together, one of
    /// which always ends the chain (its edits are then dropped), or that set
    /// the field to the same constant (or both unset it).
    ///
    /// ## Why is this bad?
    /// Rules of one priority run in declaration order, so which edit wins
    /// (or what the second edit sees) depends on where the rules happen to be
    /// written, and for rules in different files on the order of the files on
    /// the command line. Stating the order with `priority` makes it part of
    /// the rules.
    ///
    /// ## Example
    /// ```text
    /// hook tag-exec on tool.pre_execute {
    ///     when payload.tool == "exec"
    ///     set payload.sandbox_root = "/sandbox"
    /// }
    ///
    /// hook tag-all on tool.pre_execute {
    ///     set payload.sandbox_root = "/tmp"
    /// }
    /// ```
    ///
    /// Give the rule that must win the higher priority number (it runs
    /// later), e.g. `priority 110` on `tag-exec`.
    pub static EDIT_CONFLICT = "edit-conflict", Warn, check;
}

/// The edits of `a` and `b` that conflict, if two do: `(path, action of a,
/// action of b)`.
pub(super) fn conflicting_edit(
    a: &CheckedRule,
    b: &CheckedRule,
) -> Option<(FieldPath, usize, usize)> {
    if logic::always_ends(a).is_some() || logic::always_ends(b).is_some() {
        return None;
    }
    for (pa, ia) in logic::edits(a) {
        for (pb, ib) in logic::edits(b) {
            if !logic::paths_overlap(&pa, &pb) {
                continue;
            }
            let same = match (
                a.actions.get(ia).map(|x| &x.node),
                b.actions.get(ib).map(|x| &x.node),
            ) {
                (Some(Action::Unset(x)), Some(Action::Unset(y))) => x == y,
                (Some(Action::Set(x, vx)), Some(Action::Set(y, vy))) => {
                    x == y
                        && matches!((vx, vy), (crate::ir::Expr::Const(p), crate::ir::Expr::Const(q)) if p == q)
                }
                _ => false,
            };
            if !same {
                let path = if pa.segments.len() >= pb.segments.len() {
                    pa
                } else {
                    pb
                };
                return Some((path, ia, ib));
            }
        }
    }
    None
}

/// True when two rules can both run on one call: their targets overlap and
/// their conditions can hold together.
pub(super) fn can_meet(
    cx: &Cx<'_>,
    a: &CheckedRule,
    b: &CheckedRule,
    ca: &[Conjunct<'_>],
    cb: &[Conjunct<'_>],
) -> bool {
    logic::overlaps(&a.target, &b.target) && !logic::disjoint(cx, ca, cb)
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    let editors: Vec<bool> = cx
        .rules
        .iter()
        .map(|r| r.enabled && !logic::edits(r).is_empty())
        .collect();
    let conjuncts = cx.conjuncts();
    let mut found: BTreeMap<usize, (usize, Vec<&str>, FieldPath, usize, usize)> = BTreeMap::new();
    for point in cx.points() {
        let mut group: Vec<usize> = Vec::new();
        let mut priority = None;
        for &bi in &point.rules {
            let Some(b) = cx.rule(bi) else { continue };
            if priority != Some(b.priority) {
                group.clear();
                priority = Some(b.priority);
            }
            if !editors.get(bi).copied().unwrap_or(false) {
                continue;
            }
            let cb = conjuncts.get(bi).map_or(&[][..], Vec::as_slice);
            for &ai in &group {
                let Some(a) = cx.rule(ai) else { continue };
                let ca = conjuncts.get(ai).map_or(&[][..], Vec::as_slice);
                let Some((path, ia, ib)) = conflicting_edit(a, b) else {
                    continue;
                };
                if !can_meet(cx, a, b, ca, cb) {
                    continue;
                }
                let entry = found
                    .entry(bi)
                    .or_insert_with(|| (ai, Vec::new(), path, ia, ib));
                if entry.0 == ai {
                    entry.1.push(point.point.as_str());
                }
                break;
            }
            group.push(bi);
        }
    }
    for (bi, (ai, points, path, ia, ib)) in found {
        let (Some(a), Some(b)) = (cx.rule(ai), cx.rule(bi)) else {
            continue;
        };
        let at = point_list(&points);
        let here = b.actions.get(ib).map_or(b.span, |x| x.span);
        let mut d = Diagnostic::warning(
            EDIT_CONFLICT.code,
            format!(
                "rules `{}` and `{}` both edit `{path}` at {at} with the same priority {}",
                a.id, b.id, b.priority
            ),
        )
        .with_primary(here, format!("`{}` edits it here", b.id));
        if a.file == b.file {
            let there = a.actions.get(ia).map_or(a.span, |x| x.span);
            d = d.with_secondary(there, format!("`{}` edits it first", a.id));
        }
        let order = if a.file == b.file {
            "declaration order".to_string()
        } else {
            "the order of the files on the command line".to_string()
        };
        d = d.with_help(format!(
            "which edit wins depends only on {order} ({} runs first); give one of them a different `priority`",
            rule_ref(cx, a, b.file)
        ));
        sink.report(
            &EDIT_CONFLICT,
            b.file,
            &[(b.file, b.span), (a.file, a.span)],
            d,
        );
    }
}

//! `priority-tie`: two rules at one priority from different files.

use super::edit_conflict::{can_meet, conflicting_edit};
use super::logic;
use super::{declare_lint, point_list, Cx, Sink};
use crate::diag::Diagnostic;
use std::collections::BTreeMap;

declare_lint! {
    /// ## What it does
    /// Notes two rules on the same point with the same priority that come
    /// from different files, when their order can make a difference: one
    /// always ends the chain, one edits a field the other reads, one runs an
    /// `exec` or `call` effect, or both add context. Rules whose targets
    /// never match the same call, or whose conditions cannot hold together,
    /// are left alone, and so are two edits of one field (`edit-conflict`
    /// reports those).
    ///
    /// This is a note, not a warning: the order is well defined, only not
    /// stated in the rules.
    ///
    /// ## Why is this bad?
    /// Rules of one priority run in declaration order: files in the order
    /// they are named on the command line (directories in sorted path order),
    /// then rules in file order. Renaming a file, or naming the files in
    /// another order, silently changes which rule runs first.
    ///
    /// ## Example
    /// ```text
    /// # audit.hooks
    /// hook audit on tool.pre_execute {
    ///     log info "tool {payload.tool}"
    /// }
    ///
    /// # guard.hooks
    /// hook block on tool.pre_execute {
    ///     when payload.tool == "exec"
    ///     abort "no exec"
    /// }
    /// ```
    ///
    /// Whether blocked calls are audited depends on whether `audit.hooks`
    /// is named first. Give `audit` a lower priority number to log every
    /// call, or a higher one to log only calls that were not blocked.
    pub static PRIORITY_TIE = "priority-tie", Note, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    let conjuncts = cx.conjuncts();
    let mut found: BTreeMap<usize, (usize, Vec<&str>)> = BTreeMap::new();
    for point in cx.points() {
        // The enabled rules of the current priority, grouped by file in the
        // order their files first appear: a tie needs two files, so a rule
        // is compared only with the rules of the other files (comparing it
        // with every earlier rule is quadratic in a file of one priority).
        let mut group: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        let mut priority = None;
        for (seq, &bi) in point.rules.iter().enumerate() {
            let Some(b) = cx.rule(bi) else { continue };
            if priority != Some(b.priority) {
                group.clear();
                priority = Some(b.priority);
            }
            if !b.enabled {
                continue;
            }
            let cb = conjuncts.get(bi).map_or(&[][..], Vec::as_slice);
            let mut earlier: Vec<(usize, usize)> = group
                .iter()
                .filter(|(file, _)| *file != b.file)
                .flat_map(|(_, rules)| rules.iter().copied())
                .collect();
            // The first tie in execution order.
            earlier.sort_unstable();
            let tie = earlier.into_iter().map(|(_, ai)| ai).find(|&ai| {
                let Some(a) = cx.rule(ai) else { return false };
                let ca = conjuncts.get(ai).map_or(&[][..], Vec::as_slice);
                conflicting_edit(a, b).is_none()
                    && logic::order_matters(a, b)
                    && can_meet(cx, a, b, ca, cb)
            });
            if let Some(ai) = tie {
                let entry = found.entry(bi).or_insert_with(|| (ai, Vec::new()));
                if entry.0 == ai {
                    entry.1.push(point.point.as_str());
                }
            }
            match group.iter_mut().find(|(file, _)| *file == b.file) {
                Some((_, rules)) => rules.push((seq, bi)),
                None => group.push((b.file, vec![(seq, bi)])),
            }
        }
    }
    for (bi, (ai, points)) in found {
        let (Some(a), Some(b)) = (cx.rule(ai), cx.rule(bi)) else {
            continue;
        };
        let at = point_list(&points);
        let first = cx.source(a.file).map_or("?", |s| &*s.name);
        let d = Diagnostic::note(
            PRIORITY_TIE.code,
            format!(
                "rule `{}` ties with `{}` ({}) at priority {} on {at}",
                b.id,
                a.id,
                cx.location(a.file, a.span),
                b.priority
            ),
        )
        .with_primary(b.span, format!("runs after `{}` only because `{first}` is named first", a.id))
        .with_help("rules of one priority run in the order of their files on the command line; give them different priorities to state the order");
        sink.report(
            &PRIORITY_TIE,
            b.file,
            &[(b.file, b.span), (a.file, a.span)],
            d,
        );
    }
}

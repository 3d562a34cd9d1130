//! `point-cost`: a point where one event can wait longer on commands and
//! handlers than the budget.

use super::{declare_lint, Cx, Sink};
use crate::diag::Diagnostic;
use crate::fql::heaviest_component;

declare_lint! {
    /// ## What it does
    /// Adds up, for each hook point, the timeouts of the commands (`exec`,
    /// `sh`), native handlers (`call`) and Lua handlers that the enabled
    /// rules one event can reach may run: a rule's `timeout`, or the
    /// host's default of 60 s for a rule without one. Dispatch looks only
    /// at the rules whose target matches the event's component, so the
    /// sum is taken over the heaviest component (the rules for
    /// `builtin::exec` and those for `builtin::*` and `*::*` together, not
    /// the rules for other tools). When that sum passes the budget
    /// (`[cost] timeout-budget-ms` in `hookc.toml`, 120000 by default), it
    /// reports the point at its first rule that waits. `hookc inspect` and
    /// `hookc lint --format json` show the whole cost of each point.
    ///
    /// The lint is `allow` by default: hosts differ in how long they may
    /// wait (Claude Code's own hooks run up to 10 minutes), so a project
    /// turns it on with its budget:
    ///
    /// ```toml
    /// [lints]
    /// point-cost = "warn"
    ///
    /// [cost]
    /// timeout-budget-ms = 30000
    /// ```
    ///
    /// ## Why is this bad?
    /// Effects run one after another on the dispatching thread, and the
    /// host waits for the dispatch: an agent's tool call can hang for the
    /// sum of the timeouts when every program is slow. Webhooks only queue,
    /// and are not counted.
    ///
    /// ## Example
    /// ```text
    /// schema orcs
    ///
    /// hook lint-first on tool.pre_execute at builtin::exec {
    ///     exec "./bin/lint"       # 60 s: no timeout
    /// }
    ///
    /// hook scan-too on tool.pre_execute at builtin::* {
    ///     exec "./bin/scan"       # 60 s more for the same event
    ///     call "audit"            # and 60 s more
    /// }
    /// ```
    ///
    /// Use instead: a `timeout` on each rule that runs a program, or a
    /// larger budget where the host can wait:
    ///
    /// ```text
    /// hook lint-first on tool.pre_execute at builtin::exec timeout 5000ms {
    ///     exec "./bin/lint"
    /// }
    /// ```
    pub static POINT_COST = "point-cost", Allow, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    let budget = cx.point_timeout_budget_ms;
    for point in cx.points() {
        let rules: Vec<_> = point
            .rules
            .iter()
            .filter_map(|&i| cx.rule(i))
            .filter(|r| r.enabled)
            .map(|r| {
                let wait = r
                    .actions
                    .iter()
                    .filter_map(|a| a.node.blocking_timeout_ms(r.timeout_ms))
                    .fold(0u64, u64::saturating_add);
                (r, wait)
            })
            .collect();
        let worst = heaviest_component(rules.iter().map(|(r, wait)| (&r.target, *wait)));
        if worst <= budget {
            continue;
        }
        let waiting: Vec<&str> = rules
            .iter()
            .filter(|(_, wait)| *wait > 0)
            .map(|(r, _)| r.id.as_str())
            .collect();
        let Some((first, _)) = rules.iter().find(|(_, wait)| *wait > 0) else {
            continue;
        };
        let d = Diagnostic::warning(
            POINT_COST.code,
            format!(
                "one event at `{}` can wait {worst} ms on commands and handlers, over the budget of {budget} ms",
                point.point
            ),
        )
        .with_primary(first.span, "the first rule that waits")
        .with_help(format!(
            "the rules that wait: {}; set a `timeout` on each (a rule without one waits up to {} ms), narrow their targets, or raise `[cost] timeout-budget-ms` in `hookc.toml`",
            waiting
                .iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", "),
            crate::ir::DEFAULT_EFFECT_TIMEOUT_MS,
        ));
        sink.report(&POINT_COST, first.file, &[(first.file, first.span)], d);
    }
}

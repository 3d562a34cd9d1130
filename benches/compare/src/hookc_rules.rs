//! The workload for hookc: a `.hooks` file, compiled into a table.

use crate::workload::{Event, RuleTarget, Workload, POINT};
use hookc::{HookContext, HookPoint, Table, Target};
use serde_json::json;
use std::fmt::Write as _;

/// The file name diagnostics would cite.
pub const FILE_NAME: &str = "compare.hooks";

/// The point the rules are on, as dispatch names it.
pub const HOOK_POINT: HookPoint = HookPoint::ToolPreExecute;

/// The rules as a `.hooks` file, in chain order. Every rule has the default
/// priority, so ties run in file order and the first match aborts:
///
/// ```text
/// hook r3 on tool.pre_execute at *::* {
///     when payload.tool == "exec-3" and payload.args contains "cmd3 --flag"
///     abort "blocked"
/// }
/// ```
pub fn source(workload: &Workload) -> String {
    let mut out = String::with_capacity(workload.len() * 140);
    for rule in &workload.rules {
        let target = match rule.target {
            RuleTarget::Exact(component) => component,
            RuleTarget::Any => "*::*",
        };
        let _ = write!(
            out,
            "hook {id} on {POINT} at {target} {{\n    \
             when payload.tool == \"{tool}\" and payload.args contains \"{needle}\"\n    \
             abort \"blocked\"\n}}\n",
            id = rule.id(),
            tool = rule.tool,
            needle = rule.needle,
        );
    }
    out
}

/// Compiles `source` into a table; the error lists the first diagnostics.
pub fn compile(source: &str) -> Result<Table, String> {
    hookc::compile_str(FILE_NAME, source)
        .map(|compiled| compiled.table)
        .map_err(|diagnostics| {
            let first: Vec<String> = diagnostics
                .iter()
                .take(5)
                .map(|d| format!("{}: {}", d.code, d.message))
                .collect();
            format!("the .hooks source does not compile: {}", first.join("; "))
        })
}

/// The context a host hands hookc for `event`: its payload has `tool` and
/// `args`.
pub fn context(event: &Event) -> HookContext {
    HookContext::new(
        POINT,
        &event.component,
        json!({ "tool": event.tool, "args": event.args }),
    )
}

/// The rules that fire on `event`, as indexes, in chain order. The first
/// matching rule aborts the chain, so this is at most one rule: the first
/// the workload says matches.
pub fn fired(table: &Table, event: &Event) -> Result<Vec<usize>, String> {
    let mut scratch = table.scratch();
    let mut ctx = context(event);
    let outcome = table.dispatch(
        &mut scratch,
        HOOK_POINT,
        &Target::new(&event.component),
        &mut ctx,
    );
    let fired: Result<Vec<usize>, String> = outcome.fired().map(rule_index).collect();
    let fired = fired?;
    // A rule that fires aborts, and only a rule that fires can abort.
    if outcome.is_abort() == fired.is_empty() {
        return Err(format!(
            "event `{}`: {} rules fired but the outcome is {:?}",
            event.name,
            fired.len(),
            outcome.kind()
        ));
    }
    Ok(fired)
}

/// The index in a rule id `r{index}`.
pub(crate) fn rule_index(id: &str) -> Result<usize, String> {
    id.strip_prefix('r')
        .and_then(|index| index.parse().ok())
        .ok_or_else(|| format!("`{id}` is not a workload rule id"))
}

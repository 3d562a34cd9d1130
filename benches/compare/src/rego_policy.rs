//! The workload for regorus: one Rego module whose package is the hook
//! point, where each rule adds its id to the `deny` set.

use crate::hookc_rules::rule_index;
use crate::workload::{Event, RuleTarget, Workload};
use regorus::{Engine, PolicyLengthConfig, Value};
use std::fmt::Write as _;
use std::num::NonZeroUsize;

/// The file name the policy is added under.
pub const FILE_NAME: &str = "compare.rego";

/// The rule a host evaluates per call: the ids of the rules that deny it.
pub const QUERY: &str = "data.hooks.tool_pre_execute.deny";

/// The rules as one Rego module, in chain order:
///
/// ```text
/// package hooks.tool_pre_execute
///
/// deny contains "r3" if {
///     input.tool == "exec-3"
///     contains(input.args, "cmd3 --flag")
/// }
/// ```
///
/// An exact target is one more condition, first:
/// `input.component == "builtin::llm"`.
pub fn source(workload: &Workload) -> String {
    let mut out = String::with_capacity(workload.len() * 130);
    out.push_str("package hooks.tool_pre_execute\n");
    for rule in &workload.rules {
        let _ = write!(out, "\ndeny contains \"{}\" if {{\n", rule.id());
        if let RuleTarget::Exact(component) = rule.target {
            let _ = writeln!(out, "    input.component == \"{component}\"");
        }
        let _ = write!(
            out,
            "    input.tool == \"{tool}\"\n    contains(input.args, \"{needle}\")\n}}\n",
            tool = rule.tool,
            needle = rule.needle,
        );
    }
    out
}

/// An engine with no policy yet, whose size limits admit `source` (by
/// default regorus refuses files of 1 MiB or 20,000 lines).
pub fn engine_for(source: &str) -> Engine {
    let defaults = PolicyLengthConfig::default();
    // The lexer counts the line after the last newline too, and a file must
    // stay under both limits.
    let lines = source.bytes().filter(|&b| b == b'\n').count() + 2;
    let bytes = source.len() + 1;
    let mut engine = Engine::new();
    engine.set_policy_length_config(PolicyLengthConfig {
        max_col: defaults.max_col,
        max_file_bytes: defaults
            .max_file_bytes
            .max(NonZeroUsize::new(bytes).unwrap_or(NonZeroUsize::MIN)),
        max_lines: defaults
            .max_lines
            .max(NonZeroUsize::new(lines).unwrap_or(NonZeroUsize::MIN)),
    });
    engine
}

/// An engine with `source` added.
pub fn engine(source: &str) -> Result<Engine, String> {
    let mut engine = engine_for(source);
    engine
        .add_policy(FILE_NAME.to_string(), source.to_string())
        .map_err(|e| format!("Rego policy: {e}"))?;
    Ok(engine)
}

/// The input a host gives the engine for `event`.
pub fn input(event: &Event) -> Value {
    Value::from(serde_json::json!({
        "component": event.component,
        "tool": event.tool,
        "args": event.args,
    }))
}

/// The rules that deny `event`, as indexes, in chain order.
pub fn fired(engine: &mut Engine, event: &Event) -> Result<Vec<usize>, String> {
    engine.set_input(input(event));
    let deny = engine
        .eval_rule(QUERY.to_string())
        .map_err(|e| format!("event `{}`: {e}", event.name))?;
    let ids = deny
        .as_set()
        .map_err(|e| format!("event `{}`: `deny` is not a set: {e}", event.name))?;
    let mut fired = Vec::with_capacity(ids.len());
    for id in ids.iter() {
        let id = id
            .as_string()
            .map_err(|e| format!("event `{}`: a `deny` element: {e}", event.name))?;
        fired.push(rule_index(id)?);
    }
    fired.sort_unstable();
    Ok(fired)
}

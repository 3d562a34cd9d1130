//! `hookc eval`: run one event through the rules and print the outcome.

use super::{pretty_json, print_stdout, table_or_rules, Failure, Format, Status};
use crate::{HookContext, OutcomeKind, Table};
use serde_json::{Map, Value};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The rules and the event: what `eval` and `explain` both read. The help
/// text is `eval`'s; `explain` words three of them its own way.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("rules").required(true).args(["paths", "table"])))]
pub(crate) struct RulesAndEvent {
    /// `.hooks` files or directories to compile and run (or use --table)
    #[arg(value_name = "PATH")]
    pub(super) paths: Vec<PathBuf>,

    /// A table written by `hookc compile`, instead of rule files
    #[arg(long, value_name = "FILE", conflicts_with = "paths")]
    pub(super) table: Option<PathBuf>,

    /// The event: a HookContext JSON file, or `-` for stdin
    #[arg(long, value_name = "FILE")]
    pub(super) event: PathBuf,

    /// Dispatch at this hook point instead of the event's `hook_point`
    #[arg(long, value_name = "POINT")]
    pub(super) point: Option<String>,

    /// Target component instead of the event's, as `scope::name[/child][#instance]`
    #[arg(long, value_name = "FQN")]
    pub(super) target: Option<String>,

    /// Record effects instead of running them: no command, webhook,
    /// handler, Lua or trace runs; each leaves an `info` log line
    #[arg(long)]
    pub(super) no_effects: bool,
}

impl RulesAndEvent {
    /// The effects the event runs with: the process's, or recorded only;
    /// rules read this process's environment and measure paths from the
    /// project as `hookc claude` names it: `CLAUDE_PROJECT_DIR` when it is
    /// set, else a Claude Code event's `cwd` (`claude_cwd`), else the
    /// current directory. So `eval` and `explain` answer a Claude Code
    /// event as the hook does, wherever they run.
    pub(super) fn effects(
        &self,
        claude_cwd: Option<&str>,
    ) -> std::borrow::Cow<'static, crate::Effects> {
        let base = if self.no_effects {
            crate::Effects::new().recording_only()
        } else {
            crate::Effects::global().clone()
        };
        let dir = std::env::var("CLAUDE_PROJECT_DIR")
            .ok()
            .filter(|d| !d.is_empty())
            .or_else(|| claude_cwd.filter(|cwd| !cwd.is_empty()).map(str::to_owned))
            .or_else(|| {
                std::env::current_dir()
                    .ok()
                    .and_then(|d| d.to_str().map(str::to_owned))
            });
        let facts = crate::event::HostFacts::from_process(dir.as_deref());
        std::borrow::Cow::Owned(base.with_host_facts(facts))
    }
}

/// Arguments of `hookc eval`.
#[derive(Debug, clap::Args)]
pub(crate) struct EvalArgs {
    #[command(flatten)]
    input: RulesAndEvent,

    /// Child id of the target (overrides the event's `child_id`)
    #[arg(long, value_name = "ID")]
    child: Option<String>,

    /// Channel instance of the target (overrides the event's `instance`)
    #[arg(long, value_name = "ID")]
    instance: Option<String>,

    /// Output: `json` (the outcome report) or `human` (a short summary)
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,

    /// The most Pike VM steps the dispatch may spend on regexes the lazy
    /// DFA cannot decide (default 33554432); past it, an atom that needs
    /// one more fails through its rule's failure mode
    #[arg(long, value_name = "STEPS")]
    regex_budget: Option<u64>,
}

/// Loads the rules, runs the event, prints the outcome; exit 1 on abort.
pub(crate) fn run(args: EvalArgs) -> Result<Status, Failure> {
    // The event first: it is cheap to check, and its errors do not depend
    // on the rules.
    let (name, text) = read_event(&args.input.event)?;
    let event = parse_event(
        &name,
        &text,
        "an event is a JSON object: an ORCS HookContext or a Claude Code hook event",
    )?;
    let Value::Object(fields) = event else {
        return Err(Failure::new(format!("event `{name}` is not a JSON object")).help(EVENT_HELP));
    };
    let (mut fields, claude_cwd) = as_hook_context(fields)?;
    apply_overrides(&mut fields, &args)?;
    for required in ["hook_point", "component_id"] {
        if !fields.contains_key(required) {
            return Err(
                Failure::new(format!("event `{name}` has no `{required}` field")).help(EVENT_HELP),
            );
        }
    }
    let mut ctx = hook_context(&name, Value::Object(fields))?;

    let table = match table_or_rules(
        args.input.table.as_deref(),
        &args.input.paths,
        Status::RulesInvalid,
    )? {
        Ok(table) => table,
        Err(status) => return Ok(status),
    };

    check_point(&table, &ctx.hook_point, &name)?;

    let before = serde_json::to_value(&ctx).unwrap_or(Value::Null);
    let effects = args.input.effects(claude_cwd.as_deref());
    let report = match args.regex_budget {
        None => table.dispatch_context_with(&mut ctx, &effects),
        Some(steps) => {
            let named = crate::event::ContextTarget::of(&ctx);
            let mut scratch = table
                .scratch()
                .with_regex_budget(crate::runtime::RegexBudget(steps));
            let outcome = table.dispatch_with(
                &mut scratch,
                named.point(),
                &named.target(),
                &mut ctx,
                &effects,
            );
            outcome.report(&ctx)
        }
    };
    let aborted = report.outcome == OutcomeKind::Abort;
    match args.format {
        Format::Json => print_stdout(&pretty_json(&report)?),
        Format::Human => {
            let report = serde_json::to_value(&report)
                .map_err(|e| Failure::new(format!("cannot serialize the outcome: {e}")))?;
            print_stdout(&crate::diag::escape::guard(human_summary(&report, &before)));
        }
    }
    super::flush::flush_global();
    Ok(if aborted {
        Status::Findings
    } else {
        Status::Ok
    })
}

pub(super) const EVENT_HELP: &str =
    "an event is an ORCS HookContext JSON object with at least `hook_point` and \
`component_id`, e.g. {\"hook_point\": \"tool.pre_execute\", \"component_id\": \"builtin::llm\", \
\"payload\": {\"tool\": \"exec\", \"args\": \"ls\"}}, or a Claude Code hook event \
(with `hook_event_name`), as `hookc claude` reads it";

/// Reads the event file (or stdin for `-`): its display name and text.
pub(super) fn read_event(path: &Path) -> Result<(String, String), Failure> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            Failure::new(format!("cannot read `<stdin>`: {}", super::io_reason(&e)))
        })?;
        return Ok(("<stdin>".to_string(), text));
    }
    let text = std::fs::read_to_string(path).map_err(|e| Failure::cannot_read(path, &e))?;
    Ok((path.display().to_string(), text))
}

/// The event's JSON, read as every entry point reads events
/// ([`crate::event::parse`]); `help` says what an event is.
pub(super) fn parse_event(name: &str, text: &str, help: &str) -> Result<Value, Failure> {
    crate::event::parse(text).map_err(|e| match e {
        crate::event::DecodeError::TooDeep { .. } => {
            Failure::new(format!("event `{name}` is too deep: {e}"))
        }
        _ => Failure::new(format!("cannot parse event `{name}`: {e}")).help(help),
    })
}

/// The hook context of the event's JSON. Its depth was checked when the
/// text was parsed (a Claude Code event mapped to a context is one level
/// deeper than the event, and is fine).
pub(super) fn hook_context(name: &str, event: Value) -> Result<HookContext, Failure> {
    serde_json::from_value(event).map_err(|e| {
        Failure::new(format!("event `{name}` is not a valid hook context: {e}")).help(EVENT_HELP)
    })
}

/// Writes the command-line overrides into the event's JSON fields.
fn apply_overrides(fields: &mut Map<String, Value>, args: &EvalArgs) -> Result<(), Failure> {
    if let Some(point) = &args.input.point {
        fields.insert("hook_point".into(), Value::from(point.as_str()));
    }
    if let Some(fqn) = &args.input.target {
        let (component, child, instance) = split_fqn(fqn)?;
        fields.insert("component_id".into(), Value::from(component));
        if let Some(child) = child {
            fields.insert("child_id".into(), Value::from(child));
        }
        if let Some(instance) = instance {
            fields.insert("instance".into(), Value::from(instance));
        }
    }
    if let Some(child) = &args.child {
        fields.insert("child_id".into(), Value::from(child.as_str()));
    }
    if let Some(instance) = &args.instance {
        fields.insert("instance".into(), Value::from(instance.as_str()));
    }
    Ok(())
}

/// Splits `scope::name[/child][#instance]` into its parts.
pub(super) fn split_fqn(fqn: &str) -> Result<(&str, Option<&str>, Option<&str>), Failure> {
    let invalid = |why: &str| {
        Failure::new(format!("invalid --target `{fqn}`: {why}"))
            .help("write a component as `scope::name`, optionally with `/child` and `#instance`, e.g. `builtin::llm/agent-1#primary`")
    };
    let target = crate::event::Target::parse(fqn).map_err(|e| invalid(&e.to_string()))?;
    Ok((target.component, target.child, target.instance))
}

/// The hook points the table knows: its schema's, plus any it has rules for.
fn known_points(table: &Table) -> Vec<String> {
    let program = table.program();
    let mut names: Vec<String> = crate::systems::builtin_schema(&program.schema)
        .map(|schema| schema.points.into_iter().map(|p| p.name).collect())
        .unwrap_or_default();
    for point in &program.points {
        if !names.contains(&point.name) {
            names.push(point.name.clone());
        }
    }
    names
}

/// Fails (exit 2) with a suggestion when `point` is not a known hook point.
pub(super) fn check_point(table: &Table, point: &str, event: &str) -> Result<(), Failure> {
    let known = known_points(table);
    if known.iter().any(|p| p == point) {
        return Ok(());
    }
    let mut failure = Failure::new(format!("unknown hook point `{point}` in event `{event}`"));
    let schema = &table.program().schema;
    if let Some(other) = crate::systems::builtin_schema_with_point(point, schema) {
        failure = failure.help(format!(
            "`{point}` is a point of the `{other}` schema; these rules are of the `{schema}` schema"
        ));
    } else if let Some(best) =
        crate::diag::suggest::suggest(point, known.iter().map(String::as_str))
    {
        failure = failure.help(format!("did you mean `{best}`?"));
    }
    Err(failure.help(format!("known hook points: {}", known.join(", "))))
}

/// The longest value shown on a line of `--format human`, in characters.
const VALUE_WIDTH: usize = 200;

/// A few readable lines about an outcome report.
fn human_summary(report: &Value, before: &Value) -> String {
    let mut out = String::new();
    // Values come from the event and from commands: escaped, and cut to
    // a line.
    let mut line = |key: &str, value: &str| {
        let value = crate::diag::escape::shorten(value, VALUE_WIDTH);
        out.push_str(&format!("{key:<9} {value}\n"));
    };
    let text = |v: Option<&Value>| match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    let list = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|items| items.iter().map(log_line).collect())
            .unwrap_or_default()
    };

    line(
        "outcome",
        &text(report.get("outcome")).unwrap_or_else(|| "?".into()),
    );
    if let Some(reason) = text(report.get("reason")) {
        line("reason", &reason);
    }
    if let Some(value) = text(report.get("value")) {
        line("value", &value);
    }
    if let Some(decision) = text(report.get("decision")) {
        line("decision", &decision);
    }
    let fired = list(report.get("fired"));
    line(
        "fired",
        &if fired.is_empty() {
            "(none)".to_string()
        } else {
            fired.join(", ")
        },
    );
    if let Some(after) = report.get("context") {
        let mut changes = Vec::new();
        for root in ["payload", "metadata"] {
            crate::runtime::json_diff(root, before.get(root), after.get(root), &mut changes);
        }
        for change in changes {
            line("changed", &change);
        }
    }
    for (key, field) in [
        ("context", "additional_context"),
        ("log", "logs"),
        ("warning", "warnings"),
    ] {
        for item in list(report.get(field)) {
            line(key, &item);
        }
    }
    if let Some(Value::Object(outputs)) = report.get("outputs") {
        for (name, value) in outputs {
            line("output", &format!("{name} = {value}"));
        }
    }
    out
}

/// One log line, warning or context entry as text.
fn log_line(item: &Value) -> String {
    match item {
        Value::String(s) => s.clone(),
        Value::Object(fields) => match (
            fields.get("level"),
            fields.get("rule"),
            fields.get("message"),
        ) {
            (
                Some(Value::String(level)),
                Some(Value::String(rule)),
                Some(Value::String(message)),
            ) => {
                format!("{level} [{rule}] {message}")
            }
            (Some(Value::String(level)), _, Some(Value::String(message))) => {
                format!("{level} {message}")
            }
            _ => item.to_string(),
        },
        other => other.to_string(),
    }
}

/// An event's fields as a hook context's, with the project directory it
/// names: a raw Claude Code event (what `hookc claude` reads on stdin:
/// `hook_event_name` and no `hook_point`) runs as `hookc claude` would run
/// it, its `cwd` the project; any other event is a hook context already,
/// and names none.
pub(super) fn as_hook_context(
    fields: Map<String, Value>,
) -> Result<(Map<String, Value>, Option<String>), Failure> {
    if fields.contains_key("hook_point") || !fields.contains_key("hook_event_name") {
        return Ok((fields, None));
    }
    let cwd = fields.get("cwd").and_then(Value::as_str).map(str::to_owned);
    Ok((claude_event_fields(fields)?, cwd))
}

/// A Claude Code hook event as the JSON of its hook context, through the
/// mapping `hookc claude` dispatches on ([`crate::systems::claude_code::protocol::hook_context`]), so
/// that the options can still override its fields.
fn claude_event_fields(event: Map<String, Value>) -> Result<Map<String, Value>, Failure> {
    match serde_json::to_value(crate::systems::claude_code::protocol::hook_context(event)) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(Failure::new("a hook context is not a JSON object")),
        Err(e) => Err(Failure::new(format!("cannot convert the event: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fqn_parts() {
        assert!(matches!(
            split_fqn("builtin::llm"),
            Ok(("builtin::llm", None, None))
        ));
        assert!(matches!(
            split_fqn("builtin::llm/agent-1#primary"),
            Ok(("builtin::llm", Some("agent-1"), Some("primary")))
        ));
        assert!(matches!(
            split_fqn("lua::x#0"),
            Ok(("lua::x", None, Some("0")))
        ));
        for bad in [
            "llm",
            "::llm",
            "builtin::",
            "builtin::llm/",
            "builtin::llm#",
        ] {
            assert!(split_fqn(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn diffs() {
        let a = serde_json::json!({"caps": 15, "keep": 1, "gone": true});
        let b = serde_json::json!({"caps": 7, "keep": 1, "new": "x"});
        let mut out = Vec::new();
        crate::runtime::json_diff("payload", Some(&a), Some(&b), &mut out);
        assert_eq!(
            out,
            [
                "payload.caps: 15 -> 7",
                "payload.gone: true -> (removed)",
                "payload.new: (unset) -> \"x\""
            ]
        );
    }
}

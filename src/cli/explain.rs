//! `hookc explain`: why each rule of a point fired or did not, for an event.

use super::eval::{
    as_hook_context, check_point, hook_context, parse_event, read_event, split_fqn, RulesAndEvent,
    EVENT_HELP,
};
use super::{check_sources, emit_diagnostics, has_io_errors, pretty_json, print_stdout};
use super::{Failure, Format, Status};
use crate::runtime::CondExplanation;
use crate::span::SourceFile;
use crate::Table;
use serde_json::Value;

/// Arguments of `hookc explain`: the rules and the event as `eval` reads
/// them (with help in explain's words), and the output format.
#[derive(Debug, clap::Args)]
#[command(
    mut_arg("paths", |a| a.help("`.hooks` files or directories to compile and explain (or use --table)")),
    mut_arg("event", |a| a.help("The event: a HookContext or Claude Code event JSON file, or `-` for stdin")),
    mut_arg("point", |a| a.help("Explain this hook point instead of the event's")),
)]
pub(crate) struct ExplainArgs {
    #[command(flatten)]
    input: RulesAndEvent,

    /// Output: `human` (rule by rule) or `json` (the explanation)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Loads the rules, explains the event, prints the explanation.
pub(crate) fn run(args: ExplainArgs) -> Result<Status, Failure> {
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
    if let Some(point) = &args.input.point {
        fields.insert("hook_point".into(), Value::from(point.as_str()));
    }
    if let Some(fqn) = &args.input.target {
        let (component, child, instance) = split_fqn(fqn)?;
        fields.insert("component_id".into(), Value::from(component));
        for (key, value) in [("child_id", child), ("instance", instance)] {
            match value {
                Some(v) => fields.insert(key.into(), Value::from(v)),
                None => fields.remove(key),
            };
        }
    }
    for required in ["hook_point", "component_id"] {
        if !fields.contains_key(required) {
            return Err(
                Failure::new(format!("event `{name}` has no `{required}` field")).help(EVENT_HELP),
            );
        }
    }
    let ctx = hook_context(&name, Value::Object(fields))?;

    let (table, sources) = match load(&args)? {
        Ok(loaded) => loaded,
        Err(status) => return Ok(status),
    };
    let builtin = crate::systems::builtin_schema(&table.program().schema).is_some();
    if builtin {
        check_point(&table, &ctx.hook_point, &name)?;
    }

    let named = crate::event::ContextTarget::of(&ctx);
    let effects = args.input.effects(claude_cwd.as_deref());
    let mut explanation = table.explain_with(named.point(), &named.target(), &ctx, &effects);
    for rule in &mut explanation.rules {
        as_written(&mut rule.condition, &sources);
    }
    match args.format {
        Format::Json => print_stdout(&pretty_json(&explanation)?),
        // Each value is escaped and cut by the explanation; the guard makes
        // sure nothing raw reaches the terminal.
        Format::Human => print_stdout(&crate::diag::escape::guard(explanation.to_string())),
    }
    super::flush::flush_global();
    Ok(Status::Ok)
}

/// Each condition shown as the rules write it, where the sources say
/// (`lower(payload.tool) == "rm"`, not the regex it compiles to), when it
/// fits on its line; as the table renders it otherwise.
fn as_written(cond: &mut CondExplanation, sources: &[SourceFile]) {
    match cond {
        CondExplanation::Atom {
            atom, at: Some(at), ..
        } => {
            let written = sources
                .iter()
                .find(|file| *file.name == at.file)
                .and_then(|file| {
                    let offset = file.offset(at.line, at.col)?;
                    crate::syntax::condition_at(file, offset)
                });
            if let Some(written) = written {
                *atom = written.to_string();
            }
        }
        CondExplanation::Not { operand, .. } => as_written(operand, sources),
        CondExplanation::All { operands, .. } | CondExplanation::Any { operands, .. } => {
            for operand in operands {
                as_written(operand, sources);
            }
        }
        CondExplanation::True | CondExplanation::Atom { at: None, .. } => {}
    }
}

/// The table: loaded from `--table` (no sources), or compiled from the
/// paths (warnings printed), with the sources compiled. `Err(status)` when
/// the rules do not compile (already reported).
fn load(args: &ExplainArgs) -> Result<Result<(Table, Vec<SourceFile>), Status>, Failure> {
    if let Some(path) = &args.input.table {
        return Ok(Ok((super::inspect::load_table(path)?.0, Vec::new())));
    }
    check_sources(&args.input.paths)?;
    Ok(
        match crate::compile_paths(&args.input.paths, &crate::Options::default()) {
            Ok(compiled) => {
                emit_diagnostics(&compiled.warnings, Format::Human)?;
                Ok((compiled.table, compiled.sources))
            }
            Err(diags) => {
                emit_diagnostics(&diags, Format::Human)?;
                Err(if has_io_errors(&diags) {
                    Status::Reported
                } else {
                    Status::Findings
                })
            }
        },
    )
}

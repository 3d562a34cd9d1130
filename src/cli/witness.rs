//! `hookc witness`: for each rule, an event that makes it fire, or why
//! there is none.

use super::{pretty_json, print_stdout, table_or_rules};
use super::{Failure, Format, Status};
use crate::analysis::witness::{self, Verdict, Witness};
use crate::Table;
use std::path::PathBuf;

/// Arguments of `hookc witness`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("rules").required(true).args(["paths", "table"])))]
pub(crate) struct WitnessArgs {
    /// `.hooks` files or directories to compile (or use --table)
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// A table written by `hookc compile`, instead of rule files
    #[arg(long, value_name = "FILE", conflicts_with = "paths")]
    table: Option<PathBuf>,

    /// Only the rule with this id
    #[arg(long, value_name = "ID")]
    rule: Option<String>,

    /// Output: `human` (rule by rule, each event as JSON) or `json` (an array)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Loads the rules, searches a witness per rule, prints them; exit 1 when
/// a rule has none.
pub(crate) fn run(args: WitnessArgs) -> Result<Status, Failure> {
    let table = match table_or_rules(args.table.as_deref(), &args.paths, Status::Findings)? {
        Ok(table) => table,
        Err(status) => return Ok(status),
    };
    if let Some(id) = &args.rule {
        check_rule(&table, id)?;
    }
    let found = witness::witnesses(&table, &effects, args.rule.as_deref());
    match args.format {
        Format::Json => print_stdout(&pretty_json(&found)?),
        Format::Human => print_stdout(&crate::diag::escape::guard(human(&found)?)),
    }
    Ok(if found.iter().all(|w| w.verdict == Verdict::Witness) {
        Status::Ok
    } else {
        Status::Findings
    })
}

/// The effects each event is checked with: recorded, never run, with a
/// rate store of their own, and the host facts `hookc eval` gives rules
/// (this process's environment, the current directory or
/// `CLAUDE_PROJECT_DIR`).
pub(super) fn effects() -> crate::Effects {
    let dir = std::env::var("CLAUDE_PROJECT_DIR")
        .ok()
        .filter(|d| !d.is_empty())
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .and_then(|d| d.to_str().map(str::to_owned))
        });
    let facts = crate::event::HostFacts::from_process(dir.as_deref());
    crate::Effects::new()
        .recording_only()
        .with_host_facts(facts)
}

/// Fails (exit 2) with a suggestion when no rule has the id `id`.
fn check_rule(table: &Table, id: &str) -> Result<(), Failure> {
    let program = table.program();
    let ids = program
        .points
        .iter()
        .flat_map(|p| p.rules.iter().map(|r| r.id.as_str()));
    if ids.clone().any(|r| r == id) {
        return Ok(());
    }
    let mut failure = Failure::new(format!("no rule has the id `{id}`"));
    if let Some(best) = crate::diag::suggest::suggest(id, ids) {
        failure = failure.help(format!("did you mean `{best}`?"));
    }
    Err(failure)
}

/// Rule by rule: `rule ID at POINT (file:line): witness` and the event, or the
/// verdict and its reason; then a count.
fn human(found: &[Witness]) -> Result<String, Failure> {
    let mut out = String::new();
    let mut counts = [0usize; 3];
    for w in found {
        let (name, slot) = match w.verdict {
            Verdict::Witness => ("witness", 0),
            Verdict::Unreachable => ("unreachable", 1),
            Verdict::Undecided => ("undecided", 2),
        };
        if let Some(count) = counts.get_mut(slot) {
            *count += 1;
        }
        out.push_str(&format!(
            "rule {} at {} ({}:{}): {name}",
            w.rule, w.point, w.file, w.line
        ));
        if let Some(reason) = &w.reason {
            out.push_str(&format!(": {reason}"));
        }
        out.push('\n');
        if let Some(event) = &w.event {
            out.push_str(&pretty_json(event)?);
        }
    }
    let [witnesses, unreachable, undecided] = counts;
    out.push_str(&format!(
        "{}: {witnesses} with a witness, {unreachable} unreachable, {undecided} undecided\n",
        super::plural(found.len(), "rule", "rules")
    ));
    Ok(out)
}

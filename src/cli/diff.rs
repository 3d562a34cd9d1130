//! `hookc diff`: the events two rule sets answer differently.

use super::{pretty_json, print_stdout, table_or_rules};
use super::{Failure, Format, Status};
use crate::analysis::diff::{self, Answer, ChangeKind, Diff, PointDiff};
use std::path::{Path, PathBuf};

/// The most undecided changes of a point the human output lists.
const MAX_UNDECIDED_SHOWN: usize = 3;

/// Arguments of `hookc diff`.
#[derive(Debug, clap::Args)]
pub(crate) struct DiffArgs {
    /// The old rules: a `.hooks` file, a directory, or a compiled table
    #[arg(value_name = "OLD")]
    old: PathBuf,

    /// The new rules: a `.hooks` file, a directory, or a compiled table
    #[arg(value_name = "NEW")]
    new: PathBuf,

    /// Output: `human` (point by point, each counterexample as JSON) or
    /// `json` (one document)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Loads both rule sets, compares them, prints the comparison; exit 0
/// when they answer every event the same way, 1 when not (or not proven).
pub(crate) fn run(args: DiffArgs) -> Result<Status, Failure> {
    let Some(old) = load(&args.old)? else {
        return Ok(Status::RulesInvalid);
    };
    let Some(new) = load(&args.new)? else {
        return Ok(Status::RulesInvalid);
    };
    let (old_schema, new_schema) = (&old.program().schema, &new.program().schema);
    if old_schema != new_schema {
        return Err(Failure::new(format!(
            "the two rule sets are written for different schemas (`{old_schema}` and `{new_schema}`)"
        ))
        .help("a diff compares two versions of one policy: give both the same `schema`"));
    }
    let found = diff::diff(&old, &new, &super::witness::effects);
    match args.format {
        Format::Json => print_stdout(&pretty_json(&found)?),
        Format::Human => print_stdout(&crate::diag::escape::guard(human(&found)?)),
    }
    Ok(if found.equivalent {
        Status::Ok
    } else {
        Status::Findings
    })
}

/// The table at `path`: a compiled table, or the rules compiled (their
/// diagnostics printed; `None` when they have errors).
fn load(path: &Path) -> Result<Option<crate::Table>, Failure> {
    let paths = [path.to_path_buf()];
    let table = super::inspect::is_table(&paths).then_some(path);
    let sources: &[PathBuf] = if table.is_some() { &[] } else { &paths };
    match table_or_rules(table, sources, Status::RulesInvalid)? {
        Ok(table) => Ok(Some(table)),
        Err(Status::Reported) => Err(Failure::new(format!("`{}` cannot be read", path.display()))),
        Err(_) => Ok(None),
    }
}

/// Point by point: its verdict, its changes, each counterexample with both
/// answers; then a count.
fn human(found: &Diff) -> Result<String, Failure> {
    let mut out = String::new();
    let mut counts = [0usize; 3];
    for point in &found.points {
        let (verdict, slot) = match point.status {
            diff::Status::Same if point.changes.is_empty() => {
                counts[0] += 1;
                continue;
            }
            diff::Status::Same | diff::Status::Equivalent => ("same behaviour", 0),
            diff::Status::Different => ("different", 1),
            diff::Status::Undecided => ("undecided", 2),
        };
        if let Some(count) = counts.get_mut(slot) {
            *count += 1;
        }
        out.push_str(&format!("point {}: {verdict}\n", point.point));
        changes(&mut out, point);
        for difference in &point.differences {
            out.push_str(&format!(
                "  {}: this event is answered differently\n",
                difference.change
            ));
            for line in pretty_json(&difference.event)?.lines() {
                out.push_str(&format!("    {line}\n"));
            }
            answers(&mut out, &difference.old, &difference.new)?;
        }
        for why in point.undecided.iter().take(MAX_UNDECIDED_SHOWN) {
            out.push_str(&format!("  undecided: {why}\n"));
        }
        if point.undecided.len() > MAX_UNDECIDED_SHOWN {
            out.push_str(&format!(
                "  … and {} more undecided (all in --format json)\n",
                point.undecided.len() - MAX_UNDECIDED_SHOWN
            ));
        }
    }
    if found.equivalent && found.sources_differ {
        out.push_str("the sources differ; what they do does not\n");
    }
    let [same, different, undecided] = counts;
    out.push_str(&format!(
        "{}: {same} with the same behaviour, {different} different, {undecided} undecided\n",
        super::plural(found.points.len(), "point", "points")
    ));
    Ok(out)
}

/// One line per change: `  changed  ID (condition)`, `  renamed  OLD → NEW`;
/// the pairs one moved rule makes, on one line.
fn changes(out: &mut String, point: &PointDiff) {
    let mut shown_moves: Vec<&str> = Vec::new();
    for change in &point.changes {
        let other = change.other.as_deref().unwrap_or("?");
        let proven = |harmless: bool| {
            if harmless {
                "  (proven to change no answer)"
            } else {
                ""
            }
        };
        let line = match change.kind {
            ChangeKind::Added => format!("added    {}{}", change.rule, proven(change.harmless)),
            ChangeKind::Removed => format!("removed  {}{}", change.rule, proven(change.harmless)),
            ChangeKind::Changed => format!(
                "changed  {}{} ({}){}",
                change.rule,
                change
                    .other
                    .as_ref()
                    .map(|was| format!(" (was {was})"))
                    .unwrap_or_default(),
                change.parts.join(", "),
                proven(change.harmless)
            ),
            ChangeKind::Renamed => format!("renamed  {other} → {}", change.rule),
            ChangeKind::Swapped => {
                if shown_moves.contains(&change.rule.as_str()) {
                    continue;
                }
                shown_moves.push(&change.rule);
                let moves: Vec<_> = point
                    .changes
                    .iter()
                    .filter(|c| c.kind == ChangeKind::Swapped && c.rule == change.rule)
                    .collect();
                let others: Vec<&str> = moves.iter().filter_map(|c| c.other.as_deref()).collect();
                let list = match others.get(..3) {
                    Some(first) if others.len() > 3 => {
                        format!("{}, … ({} rules)", first.join(", "), others.len())
                    }
                    _ => others.join(", "),
                };
                format!(
                    "moved    {} now runs before {list}{}",
                    change.rule,
                    proven(moves.iter().all(|c| c.harmless))
                )
            }
        };
        out.push_str(&format!("  {line}\n"));
    }
}

/// `old:` and `new:` lines: the outcome, reason and decision, then each
/// other part of the answer that differs.
fn answers(out: &mut String, old: &Answer, new: &Answer) -> Result<(), Failure> {
    for (name, answer) in [("old", old), ("new", new)] {
        let mut line = format!("    {name}: {}", outcome(answer));
        if let Some(decision) = &answer.decision {
            line.push_str(&format!(
                ", decision {}",
                serde_json::to_value(decision)
                    .unwrap_or_default()
                    .as_str()
                    .unwrap_or("?")
            ));
        }
        if let Some(reason) = &answer.reason {
            line.push_str(&format!(
                ", reason {}",
                serde_json::Value::from(reason.as_str())
            ));
        }
        if !answer.fired.is_empty() {
            line.push_str(&format!(" (fired: {})", answer.fired.join(", ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    let parts: [(&str, serde_json::Value, serde_json::Value); 5] = [
        ("value", json(&old.value)?, json(&new.value)?),
        (
            "event after edits",
            old.context.clone(),
            new.context.clone(),
        ),
        ("logs", json(&old.logs)?, json(&new.logs)?),
        (
            "context",
            json(&old.additional_context)?,
            json(&new.additional_context)?,
        ),
        ("outputs", json(&old.outputs)?, json(&new.outputs)?),
    ];
    for (name, old, new) in parts {
        if old != new {
            out.push_str(&format!("    old {name}: {old}\n    new {name}: {new}\n"));
        }
    }
    Ok(())
}

fn outcome(answer: &Answer) -> String {
    serde_json::to_value(answer.outcome)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn json(value: &impl serde::Serialize) -> Result<serde_json::Value, Failure> {
    serde_json::to_value(value).map_err(|e| Failure::new(format!("cannot write JSON: {e}")))
}

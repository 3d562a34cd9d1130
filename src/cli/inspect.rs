//! `hookc inspect`: a readable summary of a compiled table, or with
//! `--format json` all of it as data: the format version, the schema and
//! its points, the source digest, the signature, the sizes, and per point
//! its rules in execution order with the matchers built for each field.

use super::{
    check_paths, check_sources, emit_diagnostics, has_io_errors, plural, pretty_json, print_stdout,
    Failure, Format, Status,
};
use crate::analysis::cost::{point_costs, PointCost};
use crate::ir::{Action, Cond, PointProgram, Program, Rule, NO_FIELD};
use crate::table::{FieldStats, LiteralSearchKind};
use crate::Table;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Arguments of `hookc inspect`.
#[derive(Debug, clap::Args)]
pub(crate) struct InspectArgs {
    /// A table written by `hookc compile`, or `.hooks` files and directories
    #[arg(required = true, value_name = "FILE")]
    paths: Vec<PathBuf>,

    /// Output format: `human` or `json`
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Loads a compiled table from a file and checks it whole (a tool reads
/// all of it anyway, and a corrupted part is an error here, not a
/// surprise later): the table and the file's size.
pub(crate) fn load_table(path: &Path) -> Result<(Table, usize), Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::cannot_read(path, &e))?;
    let size = bytes.len();
    let table = Table::from_owned_bytes(bytes)
        .and_then(|table| table.validate().map(|()| table))
        .map_err(|e| Failure::new(format!("cannot load table `{}`: {e}", path.display())))?;
    Ok((table, size))
}

/// True when the paths name one compiled table rather than rule sources.
pub(crate) fn is_table(paths: &[PathBuf]) -> bool {
    match paths {
        [path] => path.is_file() && path.extension().is_none_or(|ext| ext != "hooks"),
        _ => false,
    }
}

/// Prints the summary of a table, compiling sources first if given them.
pub(crate) fn run(args: InspectArgs) -> Result<Status, Failure> {
    check_paths(&args.paths)?;
    let (table, size, name) = if is_table(&args.paths) {
        let (table, size) = load_table(args.paths.first().map_or(Path::new(""), PathBuf::as_path))?;
        let name = args
            .paths
            .first()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        (table, size, name)
    } else {
        check_sources(&args.paths)?;
        match crate::compile_paths(&args.paths, &crate::Options::default()) {
            Ok(compiled) => {
                emit_diagnostics(&compiled.warnings, Format::Human)?;
                let size = compiled.table.byte_len();
                let name = args
                    .paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                (compiled.table, size, name)
            }
            Err(diags) => {
                emit_diagnostics(&diags, Format::Human)?;
                return Ok(if has_io_errors(&diags) {
                    Status::Reported
                } else {
                    Status::Findings
                });
            }
        }
    };
    match args.format {
        Format::Json => print_stdout(&pretty_json(&to_json(&table, &name, size))?),
        // Rule text (strings, patterns) is shown: nothing raw reaches the
        // terminal.
        Format::Human => print_stdout(&crate::diag::escape::guard(to_human(&table, &name, size))),
    }
    Ok(Status::Ok)
}

/// The rule ids of a program, each once.
fn rule_ids(program: &Program) -> BTreeSet<&str> {
    program
        .points
        .iter()
        .flat_map(|p| p.rules.iter().map(|r| r.id.as_str()))
        .collect()
}

/// `file:line:col` of a rule.
fn origin(program: &Program, rule: &Rule) -> String {
    let file = usize::try_from(rule.origin.file)
        .ok()
        .and_then(|i| program.files.get(i))
        .map_or("?", String::as_str);
    format!("{file}:{}:{}", rule.origin.line, rule.origin.col)
}

/// The distinct atoms a condition reads.
fn cond_atoms(cond: &Cond, out: &mut BTreeSet<u32>) {
    match cond {
        Cond::True => {}
        Cond::Atom(atom) => {
            out.insert(*atom);
        }
        Cond::Not(inner) => cond_atoms(inner, out),
        Cond::All(items) | Cond::Any(items) => {
            for item in items {
                cond_atoms(item, out);
            }
        }
    }
}

fn atom_count(rule: &Rule) -> usize {
    let mut atoms = BTreeSet::new();
    cond_atoms(&rule.cond, &mut atoms);
    atoms.len()
}

/// The keyword an action is written with.
fn action_keyword(action: &Action) -> &'static str {
    match action {
        Action::Continue => "continue",
        Action::Abort(_) => "abort",
        Action::Skip(_) => "skip",
        Action::Replace(_) => "replace",
        Action::Set(..) => "set",
        Action::Unset(_) => "unset",
        Action::Rewrite(..) => "rewrite",
        Action::Prepend(..) => "prepend",
        Action::Append(..) => "append",
        Action::Meta(..) => "meta",
        Action::Output(..) => "output",
        Action::Log(..) => "log",
        Action::Ask(_) => "ask",
        Action::Allow => "allow",
        Action::Context(_) => "context",
        Action::Exec { shell: true, .. } => "sh",
        Action::Exec { shell: false, .. } => "exec",
        Action::Webhook { .. } => "webhook",
        Action::Call(_) => "call",
        Action::Lua(_) => "lua",
        Action::Trace { .. } => "trace",
    }
}

fn fail_mode(rule: &Rule) -> &'static str {
    match rule.fail {
        crate::ir::FailMode::Open => "open",
        crate::ir::FailMode::Closed => "closed",
    }
}

fn rule_json(program: &Program, point: &PointProgram, rule: &Rule) -> Value {
    json!({
        "priority": rule.priority,
        "id": rule.id,
        "target": rule.target.to_string(),
        "enabled": rule.enabled,
        "fail": fail_mode(rule),
        "timeout_ms": rule.timeout_ms,
        "atoms": atom_count(rule),
        "trigger": rule.trigger.map(|a| crate::runtime::atom_text(program, point, a)),
        "actions": rule.actions.iter().map(action_keyword).collect::<Vec<_>>(),
        "origin": origin(program, rule),
    })
}

fn matcher_json(stats: &FieldStats) -> Value {
    json!({
        "field": stats.field,
        "atoms": stats.atoms,
        "eq_keys": stats.eq_keys,
        "dfa_patterns": stats.dfa_patterns,
        "dfa_bytes": stats.dfa_bytes,
        "literals": stats.literals,
        "literal_search": stats.literal_search.as_ref().map(|k| k.name()),
        "literal_substring": match &stats.literal_search {
            Some(LiteralSearchKind::Substring(text)) => json!(text),
            _ => Value::Null,
        },
        "literal_anchors": match &stats.literal_search {
            Some(LiteralSearchKind::Anchors(n)) => json!(n),
            _ => Value::Null,
        },
        "literal_short": stats.literal_short,
        "ac_bytes": stats.ac_bytes,
        "comparisons": stats.comparisons,
    })
}

/// How the host applies an edit at a point, as `hookc schema` shows it.
fn edits_json(edits: &crate::schema::EditApplication) -> Value {
    match super::schema::edits(edits) {
        None => Value::Null,
        Some((mode, text, field)) => json!({"mode": mode, "text": text, "field": field}),
    }
}

/// Atoms that no field matcher computes: numeric comparisons, expressions,
/// and regexes too costly for a DFA.
fn one_by_one(point: &PointProgram) -> usize {
    point.atom_field.iter().filter(|&&f| f == NO_FIELD).count()
}

fn point_json(table: &Table, point: &PointProgram, cost: Option<&PointCost>) -> Value {
    let program = table.program();
    json!({
        "name": point.name,
        "kind": point.kind,
        "edits": edits_json(&point.edits),
        "atoms": point.atoms.len(),
        "rules": point.rules.iter().map(|r| rule_json(program, point, r)).collect::<Vec<_>>(),
        "matchers": table.field_stats(&point.name).iter().map(matcher_json).collect::<Vec<_>>(),
        "atoms_one_by_one": one_by_one(point),
        "cost": cost,
    })
}

/// The source digest, `None` when the sources were not read from files.
fn digest(program: &Program) -> Option<&str> {
    Some(program.source_digest.as_str()).filter(|d| !d.is_empty())
}

fn to_json(table: &Table, name: &str, size: usize) -> Value {
    let program = table.program();
    let costs = point_costs(table);
    let dfas = table.dfa_sizes();
    let schema_points: Vec<Value> = program
        .schema_points
        .iter()
        .map(|p| {
            let rules = table.point(&p.name).map_or(0, |points| points.rules.len());
            json!({"name": p.name, "kind": p.kind, "rules": rules})
        })
        .collect();
    json!({
        "table": name,
        "format_version": crate::table::VERSION,
        "schema": program.schema,
        "schema_points": schema_points,
        "command_input": program.command_input,
        "digest": digest(program),
        "signature": {
            "signed": table.signer().is_some(),
            "key_id": table.signer().map(|key| key.id()),
        },
        "bytes": size,
        "files": program.files,
        "rules": rule_ids(program).len(),
        "rule_entries": table.rule_entries(),
        "regexes": program.regexes.len(),
        "expression_dfas": program.regex_dfas.iter().filter(|&&d| d != crate::ir::NO_DFA).count(),
        "rate_counters": program.rates.len(),
        "dfas": {"sections": dfas.len(), "bytes": dfas.iter().sum::<usize>()},
        "points": program
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| point_json(table, p, costs.get(i)))
            .collect::<Vec<_>>(),
    })
}

/// One line about a field's matchers: what is computed in one pass over it.
fn matcher_line(stats: &FieldStats) -> String {
    let mut parts = vec![plural(stats.atoms, "atom", "atoms")];
    if stats.dfa_patterns > 0 {
        parts.push(format!(
            "{} in one DFA ({})",
            plural(stats.dfa_patterns, "regex", "regexes"),
            plural(stats.dfa_bytes, "byte", "bytes")
        ));
    }
    if stats.literals > 0 {
        let how = match &stats.literal_search {
            Some(LiteralSearchKind::Substring(text)) => {
                format!("found by the substring {text:?} they begin with")
            }
            Some(LiteralSearchKind::Anchors(n)) => format!(
                "found by their first bytes ({})",
                plural(*n, "anchor", "anchors")
            ),
            _ => "in one Aho-Corasick automaton".to_string(),
        };
        parts.push(format!(
            "{} {how}",
            plural(stats.literals - stats.literal_short, "literal", "literals")
        ));
        if stats.literal_short > 0 {
            parts.push(format!(
                "{} too short for that, searched for on their own",
                plural(stats.literal_short, "literal", "literals")
            ));
        }
    }
    if stats.eq_keys > 0 {
        parts.push(format!(
            "{} in a perfect hash",
            plural(stats.eq_keys, "constant", "constants")
        ));
    }
    if stats.comparisons > 0 {
        parts.push(format!(
            "{} with its number",
            plural(stats.comparisons, "comparison", "comparisons")
        ));
    }
    format!("    {}: {}\n", stats.field, parts.join(", "))
}

/// Left-aligned columns, two spaces apart, each row indented.
fn columns(rows: &[Vec<String>], indent: &str) -> String {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..count)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = indent.to_string();
        for (i, cell) in row.iter().enumerate() {
            let width = widths.get(i).copied().unwrap_or(0);
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn to_human(table: &Table, name: &str, size: usize) -> String {
    let program = table.program();
    let mut out = String::new();
    out.push_str(&format!("table   {name}\n"));
    out.push_str(&format!("schema  {}\n", program.schema));
    out.push_str(&format!(
        "size    {} (format version {})\n",
        plural(size, "byte", "bytes"),
        crate::table::VERSION
    ));
    if let Some(digest) = digest(program) {
        out.push_str(&format!("digest  {digest} (of the sources)\n"));
    }
    if let Some(key) = table.signer() {
        out.push_str(&format!(
            "signed  by key {} (checked by loaders given the public key)\n",
            key.id()
        ));
    }
    out.push_str(&format!(
        "rules   {} on {}\n",
        plural(rule_ids(program).len(), "rule", "rules"),
        plural(program.points.len(), "point", "points"),
    ));
    out.push_str(&format!(
        "files   {}\n",
        plural(program.files.len(), "file", "files")
    ));
    for file in &program.files {
        out.push_str(&format!("  {file}\n"));
    }
    let costs = point_costs(table);
    for (i, point) in program.points.iter().enumerate() {
        out.push_str(&format!(
            "\n{} ({}): {}, {}\n",
            point.name,
            point.kind,
            plural(point.rules.len(), "rule", "rules"),
            plural(point.atoms.len(), "atom", "atoms"),
        ));
        let mut rows = vec![[
            "priority", "id", "target", "state", "fail", "atoms", "actions", "origin",
        ]
        .map(String::from)
        .to_vec()];
        for rule in &point.rules {
            let actions: Vec<&str> = rule.actions.iter().map(action_keyword).collect();
            let fail = match rule.timeout_ms {
                Some(ms) => format!("{} {ms}ms", fail_mode(rule)),
                None => fail_mode(rule).to_string(),
            };
            rows.push(vec![
                rule.priority.to_string(),
                rule.id.clone(),
                rule.target.to_string(),
                if rule.enabled { "enabled" } else { "disabled" }.to_string(),
                fail,
                atom_count(rule).to_string(),
                if actions.is_empty() {
                    "-".to_string()
                } else {
                    actions.join(",")
                },
                origin(program, rule),
            ]);
        }
        out.push_str(&columns(&rows, "  "));
        let matchers = table.field_stats(&point.name);
        let single = one_by_one(point);
        if !matchers.is_empty() || single > 0 {
            out.push_str("  matchers\n");
            for stats in &matchers {
                out.push_str(&matcher_line(stats));
            }
            if single > 0 {
                out.push_str(&format!(
                    "    {single} {} evaluated one by one, when a candidate rule needs {}\n",
                    if single == 1 { "atom" } else { "atoms" },
                    if single == 1 { "it" } else { "them" },
                ));
            }
        }
        if let Some(cost) = costs.get(i) {
            out.push_str(&cost_lines(cost));
        }
    }
    out
}

/// The worst case of one dispatch at a point, as a few lines.
fn cost_lines(cost: &PointCost) -> String {
    let mut out = String::from("  cost (worst case of one dispatch)\n");
    out.push_str(&format!(
        "    candidates  at most {} of {} enabled\n",
        plural(
            usize::try_from(cost.candidates_max).unwrap_or(usize::MAX),
            "rule",
            "rules"
        ),
        cost.rules,
    ));
    let scanned = cost.fields.len();
    out.push_str(&format!(
        "    scans       {}, DFAs {}, {} one by one\n",
        plural(scanned, "field", "fields"),
        plural(cost.dfa_bytes, "byte", "bytes"),
        plural(cost.atoms_one_by_one, "atom", "atoms"),
    ));
    if !cost.effects.is_empty() {
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for effect in &cost.effects {
            match kinds.iter_mut().find(|(k, _)| *k == effect.kind) {
                Some((_, n)) => *n += 1,
                None => kinds.push((effect.kind, 1)),
            }
        }
        let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        out.push_str(&format!("    effects     {}\n", list.join(", ")));
    }
    out.push_str(&format!(
        "    wait        at most {} ms on commands and handlers\n",
        cost.worst_case_timeout_ms
    ));
    for part in &cost.unbounded {
        out.push_str(&format!("    unbounded   {}: {}\n", part.kind, part.what));
    }
    out
}

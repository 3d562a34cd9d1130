//! Checked rules in, a dispatch [`Program`] out.
//!
//! Per hook point the compiler sorts the point's rules (priority ascending,
//! then declaration order across files), indexes them by FQL target, and turns
//! every condition into a boolean tree over *atoms*: leaf conditions numbered
//! once per point and shared by every rule that uses them. The result is
//! validated and loaded into a [`Table`].

mod atoms;

use crate::check::{self, Checked, CheckedRule};
use crate::diag::{Diagnostic, Diagnostics};
use crate::fql::Segment;
use crate::ir::{FqlIndex, PointProgram, Program, Rule};
use crate::load::{self, Loaded};
use crate::span::SourceFile;
use crate::table::Table;
use std::collections::BTreeMap;
use std::path::Path;

/// Compiler settings: resource limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The most rules one hook point may have.
    pub max_rules_per_point: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_rules_per_point: 100_000,
        }
    }
}

/// A successful compilation: the table, and the warnings found on the way.
#[derive(Debug)]
pub struct Compiled {
    /// The compiled table.
    pub table: Table,
    /// Warnings and notes (there are no errors, or there would be no table).
    pub warnings: Diagnostics,
    /// The sources that were compiled, roots and imports.
    pub sources: Vec<SourceFile>,
}

/// Compiles the `.hooks` files under `paths` (files, or directories searched
/// recursively).
///
/// # Errors
///
/// Every diagnostic found (errors and warnings) when at least one is an
/// error.
pub fn compile_paths<P: AsRef<Path>>(paths: &[P], options: &Options) -> Result<Compiled, Diagnostics> {
    compile_loaded(load::load_paths(paths), options)
}

/// Compiles in-memory sources; imports are read from disk relative to each
/// source's name.
///
/// # Errors
///
/// Every diagnostic found when at least one is an error.
pub fn compile_sources(sources: Vec<SourceFile>, options: &Options) -> Result<Compiled, Diagnostics> {
    compile_loaded(load::load_sources(sources), options)
}

/// Compiles one in-memory source with default options.
///
/// # Errors
///
/// Every diagnostic found when at least one is an error.
pub fn compile_str(name: &str, text: &str) -> Result<Compiled, Diagnostics> {
    compile_sources(vec![SourceFile::new(name, text)], &Options::default())
}

/// Every finding about the files under `paths`: I/O, syntax, check and
/// compile diagnostics, errors and warnings alike.
pub fn lint_paths<P: AsRef<Path>>(paths: &[P], options: &Options) -> Diagnostics {
    match compile_paths(paths, options) {
        Ok(compiled) => compiled.warnings,
        Err(diagnostics) => diagnostics,
    }
}

fn compile_loaded(loaded: Loaded, options: &Options) -> Result<Compiled, Diagnostics> {
    let mut diagnostics = loaded.diagnostics.clone();
    let checked = check::check(&loaded);
    let Checked {
        schema,
        rules,
        regexes,
        files,
        diagnostics: found,
    } = checked;
    diagnostics.extend(found);
    let sources: Vec<SourceFile> = loaded.files.iter().map(|f| f.source.clone()).collect();
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let program = lower(schema, rules, regexes, files, &loaded, options, &mut diagnostics);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    match Table::from_program(program) {
        Ok(table) => Ok(Compiled {
            table,
            warnings: diagnostics,
            sources,
        }),
        Err(e) => {
            diagnostics.push(Diagnostic::error("internal", format!("the compiled table does not validate: {e}")));
            Err(diagnostics)
        }
    }
}

/// Partitions rules by point, orders and indexes them, and builds atoms.
fn lower(
    schema: String,
    rules: Vec<CheckedRule>,
    regexes: Vec<crate::ir::RegexSource>,
    files: Vec<String>,
    loaded: &Loaded,
    options: &Options,
    diagnostics: &mut Diagnostics,
) -> Program {
    // Rules arrive in declaration order; a stable sort by priority keeps
    // declaration order among ties.
    let mut by_point: BTreeMap<String, (crate::schema::PointKind, Vec<&CheckedRule>)> = BTreeMap::new();
    for rule in &rules {
        for (point, kind) in &rule.points {
            by_point.entry(point.clone()).or_insert_with(|| (*kind, Vec::new())).1.push(rule);
        }
    }
    let mut points = Vec::new();
    for (name, (kind, mut list)) in by_point {
        list.sort_by_key(|r| r.priority);
        if list.len() > options.max_rules_per_point {
            if let Some(rule) = list.get(options.max_rules_per_point) {
                if let Some(file) = loaded.files.get(rule.file) {
                    diagnostics.push(
                        Diagnostic::error(
                            "limit",
                            format!(
                                "point `{name}` has {} rules, more than the limit of {}",
                                list.len(),
                                options.max_rules_per_point
                            ),
                        )
                        .in_file(&file.source)
                        .with_primary(rule.span, "this rule is over the limit")
                        .with_help("raise `max_rules_per_point` or split the rules across points"),
                    );
                }
            }
            continue;
        }
        let mut atoms = atoms::Atoms::default();
        let mut index = FqlIndex::default();
        let mut exact: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut scope: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut target: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut compiled = Vec::with_capacity(list.len());
        for (i, rule) in list.iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            match (&rule.target.scope, &rule.target.target) {
                (Segment::Exact(s), Segment::Exact(t)) => exact.entry(format!("{s}::{t}")).or_default().push(i),
                (Segment::Exact(s), Segment::Any) => scope.entry(s.clone()).or_default().push(i),
                (Segment::Any, Segment::Exact(t)) => target.entry(t.clone()).or_default().push(i),
                (Segment::Any, Segment::Any) => index.any.push(i),
            }
            compiled.push(Rule {
                id: rule.id.clone(),
                target: rule.target.clone(),
                priority: rule.priority,
                enabled: rule.enabled,
                fail: rule.fail,
                timeout_ms: rule.timeout_ms,
                cond: atoms.cond(rule.cond.as_ref()),
                actions: rule.actions.clone(),
                origin: rule.origin,
            });
        }
        index.exact = exact.into_iter().collect();
        index.scope = scope.into_iter().collect();
        index.target = target.into_iter().collect();
        points.push(PointProgram {
            name,
            kind,
            rules: compiled,
            index,
            atoms: atoms.into_vec(),
        });
    }
    Program {
        schema,
        points,
        regexes,
        files,
    }
}

#[cfg(test)]
mod tests;

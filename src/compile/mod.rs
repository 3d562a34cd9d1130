//! Loaded files in, a dispatch [`Program`] out.
//!
//! `compile_loaded` drives the stages: `check` (names, types,
//! diagnostics), `lower` (the rules that pass, as IR conditions and
//! actions), the lints (on the lowered rules), then the compile proper:
//! per hook point the compiler sorts the point's rules (priority ascending,
//! then declaration order across files), indexes them by FQL target, and turns
//! every condition into a boolean tree over *atoms*: leaf conditions numbered
//! once per point and shared by every rule that uses them. The result is
//! validated and loaded into a [`Table`].

mod atoms;
mod hoist;
mod lower;
pub(crate) mod matchers;
mod specialize;
mod utf8_text;

use crate::check::{self, Checked, CheckedRule};
pub use crate::check::{Level as LintLevel, LintLevels};
use crate::diag::{Diagnostic, Diagnostics};
use crate::fql::Segment;
use crate::ir::{Atom, Bucket, Cond, FqlIndex, Keyed, PointProgram, Program, Rule};
use crate::load::{self, LoadedSources};
use crate::span::SourceFile;
use crate::table::Table;
use std::collections::BTreeMap;
use std::path::Path;

/// Compiler settings: resource limits. Exceeding one is an error that points
/// at the rule over the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The most rules one hook point may have.
    pub max_rules_per_point: usize,
    /// The largest DFA (in bytes) built for the regexes of one field.
    pub dfa_size_limit: usize,
    /// The longest template (in bytes) an action may hold.
    pub max_template_len: usize,
    /// DFAs whose dense form is larger than this (in bytes) are stored in
    /// regex-automata's sparse form: several times smaller, somewhat slower.
    pub dense_dfa_limit: usize,
    /// A regex with a long counted repetition (`[0-9A-Z]{16}`) whose DFA
    /// alone would be larger than this (in bytes) is matched by the regex
    /// engine on its own instead of joining the field's DFA.
    pub pattern_dfa_budget: usize,
    /// The largest DFA (in bytes) for all the regexes of one field; above
    /// it, regexes with a required literal are prefiltered by that literal
    /// and checked one by one, and only the rest form the DFA (up to
    /// `dfa_size_limit`).
    pub field_dfa_budget: usize,
    /// Lint levels (from `hookc.toml`); lints not set run at their default.
    pub lints: check::LintLevels,
    /// Where the host keeps `rate(…)` counts (`[rate] store` in
    /// `hookc.toml`), for the `rate-without-store` lint; `None`: the host's
    /// default.
    pub rate_store: Option<crate::store::StoreSpec>,
    /// The most milliseconds one event at a point may wait on commands and
    /// handlers (the sum of their timeouts) before the `point-cost` lint
    /// reports the point (`[cost] timeout-budget-ms` in `hookc.toml`).
    pub point_timeout_budget_ms: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_rules_per_point: 100_000,
            dfa_size_limit: 16 << 20,
            max_template_len: 64 << 10,
            dense_dfa_limit: 256 << 10,
            pattern_dfa_budget: crate::check::DEFAULT_PATTERN_DFA_BUDGET,
            field_dfa_budget: 1 << 20,
            lints: check::LintLevels::default(),
            rate_store: None,
            point_timeout_budget_ms: crate::check::DEFAULT_POINT_TIMEOUT_BUDGET_MS,
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
    /// The names of the files the table's rules come from, each once, in
    /// the order their first rule was declared.
    rule_files: Vec<String>,
}

impl Compiled {
    /// The names of the files the table's rules come from (as
    /// [`sources`](Self::sources) names them), each once: known from the
    /// compile, so a caller need not decode the table's program for them.
    pub fn rule_files(&self) -> &[String] {
        &self.rule_files
    }
}

/// Compiles the `.hooks` files under `paths` (files, or directories searched
/// recursively).
///
/// # Errors
///
/// Every diagnostic found (errors and warnings) when at least one is an
/// error.
pub fn compile_paths<P: AsRef<Path>>(
    paths: &[P],
    options: &Options,
) -> Result<Compiled, Diagnostics> {
    compile_loaded(load::load_paths(paths), options)
}

/// [`compile_paths`], freeing what the compile is done with as
/// `leftovers` says.
pub(crate) fn compile_paths_with<P: AsRef<Path>>(
    paths: &[P],
    options: &Options,
    leftovers: Leftovers,
) -> Result<Compiled, Diagnostics> {
    compile_loaded_with(load::load_paths(paths), options, leftovers)
}

/// What a compile does with its syntax trees and checked rules once the
/// table is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leftovers {
    /// Freed before the compile returns: the library's calls, whose caller
    /// may compile again at once (a thread still freeing the last compile
    /// would slow the next one on a small machine).
    Free,
    /// For a large compile, freed on a thread of their own
    /// ([`crate::parallel::drop_aside`]), so the result is there sooner:
    /// `watch`, which waits for the next change.
    FreeAside,
    /// Never freed: the commands that print the result and exit
    /// (`compile`, `lint`). The system takes the memory back when the
    /// process ends; freeing a million small allocations first cost a
    /// 10,000-rule compile about 55 ms of a core, beside the printing of
    /// its warnings.
    Leak,
}

impl Leftovers {
    /// Done with `value`, what a compile of `rules` rules leaves, as
    /// `self` says: below [`DROP_ASIDE_RULES`] it is freed at once.
    fn release<T: Send + 'static>(self, value: T, rules: usize) {
        let large = rules >= DROP_ASIDE_RULES;
        match self {
            Leftovers::FreeAside if large => crate::parallel::drop_aside(value),
            Leftovers::Leak if large => std::mem::forget(value),
            _ => drop(value),
        }
    }
}

/// Compiles in-memory sources; imports are read from disk relative to each
/// source's name.
///
/// # Errors
///
/// Every diagnostic found when at least one is an error.
pub fn compile_sources(
    sources: Vec<SourceFile>,
    options: &Options,
) -> Result<Compiled, Diagnostics> {
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

/// Rules from which the leftovers are released as [`Leftovers`] says
/// (below, they take less than a millisecond to free, and are freed).
const DROP_ASIDE_RULES: usize = 512;

/// Checks and compiles loaded files.
pub(crate) fn compile_loaded(
    loaded: LoadedSources,
    options: &Options,
) -> Result<Compiled, Diagnostics> {
    compile_loaded_with(loaded, options, Leftovers::Free)
}

/// [`compile_loaded`], freeing what the compile is done with as
/// `leftovers` says.
pub(crate) fn compile_loaded_with(
    loaded: LoadedSources,
    options: &Options,
    leftovers: Leftovers,
) -> Result<Compiled, Diagnostics> {
    let mut diagnostics = loaded.diagnostics.clone();
    // Names and types first, then the rules that pass lowered to the IR,
    // then the lints on the lowered rules.
    let analysis = check::check(&loaded);
    let (rules, regexes) = lower::lower_rules(&loaded, &analysis);
    // The table is built, encoded and validated while the lints run; it is
    // thrown away when they (or the check) find an error.
    let (mut checked, built) = analysis.lint(
        &loaded,
        rules,
        regexes,
        &options.lints,
        options.rate_store.as_ref(),
        check::lints::Budgets {
            pattern_dfa: options.pattern_dfa_budget,
            point_timeout_ms: options.point_timeout_budget_ms,
        },
        |checked| {
            if checked.diagnostics.has_errors() || diagnostics.has_errors() {
                return None;
            }
            let mut found = Diagnostics::default();
            let (program, dfas) = lower(checked, &loaded, options, &mut found);
            let table = Table::from_owned_bytes(crate::table::encode(&program, &dfas));
            leftovers.release(program, checked.rules.len());
            Some((table, found))
        },
    );
    diagnostics.extend(std::mem::take(&mut checked.diagnostics));
    let sources: Vec<SourceFile> = loaded.files.iter().map(|f| f.source.clone()).collect();
    let rule_files = rule_files(&checked);
    let rules = checked.rules.len();
    leftovers.release((checked, loaded), rules);
    let Some((table, found)) = built.filter(|_| !diagnostics.has_errors()) else {
        return Err(diagnostics);
    };
    diagnostics.extend(found);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    match table {
        Ok(table) => Ok(Compiled {
            table,
            warnings: diagnostics,
            sources,
            rule_files,
        }),
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                "internal",
                format!("the compiled table does not validate: {e}"),
            ));
            Err(diagnostics)
        }
    }
}

/// The names of the files `checked`'s rules come from, each once: every
/// checked rule is in the table (on each of its points), with its origin.
fn rule_files(checked: &Checked) -> Vec<String> {
    let mut seen = vec![false; checked.files.len()];
    checked
        .rules
        .iter()
        .filter_map(|rule| {
            let file = rule.origin.file as usize;
            let first = !std::mem::replace(seen.get_mut(file)?, true);
            first.then(|| checked.files.get(file).cloned())?
        })
        .collect()
}

/// Partitions rules by point, orders and indexes them, and builds atoms.
fn lower(
    checked: &Checked,
    loaded: &LoadedSources,
    options: &Options,
    diagnostics: &mut Diagnostics,
) -> (Program, Vec<Vec<u8>>) {
    let Checked {
        schema,
        command_input,
        points: schema_points,
        rules,
        regexes,
        files,
        diagnostics: _,
        regex_facts,
    } = checked;
    // Rules arrive in declaration order; a stable sort by priority keeps
    // declaration order among ties.
    let mut by_point: BTreeMap<String, (crate::schema::PointKind, Vec<&CheckedRule>)> =
        BTreeMap::new();
    for rule in rules {
        for (point, kind) in &rule.points {
            by_point
                .entry(point.clone())
                .or_insert_with(|| (*kind, Vec::new()))
                .1
                .push(rule);
        }
    }
    let mut points = Vec::new();
    let mut dfas = matchers::DfaPool::default();
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
        let mut compiled = Vec::with_capacity(list.len());
        for rule in &list {
            if let Some(d) = template_over_limit(rule, options.max_template_len, loaded) {
                diagnostics.push(d);
            }
            let cond = atoms.conjunction(&rule.conditions);
            let cond_origins = cond_origins(rule, &cond, loaded);
            compiled.push(Rule {
                id: rule.id.clone(),
                target: rule.target.clone(),
                priority: rule.priority,
                enabled: rule.enabled,
                fail: rule.fail,
                timeout_ms: rule.timeout_ms,
                cond,
                actions: rule.actions.iter().map(|a| a.node.clone()).collect(),
                origin: rule.origin,
                cond_origins,
                trigger: None,
            });
        }
        let mut atoms = atoms.into_vec();
        specialize::atoms(&mut atoms);
        hoist::atoms(&mut atoms);
        let built = match matchers::build(&atoms, regexes, regex_facts, &mut dfas, options) {
            Ok(built) => built,
            Err(too_large) => {
                let culprit = list
                    .iter()
                    .zip(&compiled)
                    .find(|(_, r)| uses_atom(&r.cond, too_large.atom))
                    .map(|(c, _)| *c);
                if let Some(file) = culprit.and_then(|c| loaded.files.get(c.file)) {
                    let span = culprit.map(|c| c.span).unwrap_or_default();
                    diagnostics.push(
                        Diagnostic::error(
                            "limit",
                            format!(
                                "the regexes on `{}` at `{name}` need a DFA larger than the limit of {} bytes",
                                too_large.field, options.dfa_size_limit
                            ),
                        )
                        .in_file(&file.source)
                        .with_primary(span, "this rule's regex is part of it")
                        .with_help(format!("raise `dfa_size_limit` or simplify the regexes ({})", too_large.message)),
                    );
                }
                continue;
            }
        };
        let triggers = choose_triggers(&mut compiled, &atoms, &built.atom_field);
        let index = fql_index(&compiled, &built.atom_field);
        // Behaviour that differs per hook system is recorded here, from
        // the schema, so that dispatch never asks which schema it runs.
        let edits = schema_points
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.edits.clone())
            .unwrap_or_default();
        points.push(PointProgram {
            name,
            kind,
            edits,
            rules: compiled,
            index,
            atoms,
            atom_field: built.atom_field,
            fields: built.fields,
            triggers,
        });
    }
    let rates = assign_rate_counters(&mut points);
    let regex_dfas = matchers::expression_dfas(&points, regexes, regex_facts, &mut dfas, options);
    let regex_needs = regex_needs(regexes, regex_facts);
    (
        Program {
            schema: schema.clone(),
            schema_points: schema_points.clone(),
            points,
            regexes: regexes.clone(),
            files: files.clone(),
            rates,
            command_input: *command_input,
            source_digest: loaded.digest.clone(),
            regex_dfas,
            regex_needs,
        },
        dfas.sections,
    )
}

/// Each regex's needed literals, as [`Program::regex_needs`] holds them:
/// empty altogether when no regex has any. The checker found them for the
/// regexes the rules write; one the lowering made is parsed here.
fn regex_needs(
    regexes: &[crate::ir::RegexSource],
    facts: &crate::check::RegexFactsMap,
) -> Vec<Vec<String>> {
    use crate::check::typeck::needs::needs;
    let all: Vec<Vec<String>> = regexes
        .iter()
        .map(|r| match facts.get(r) {
            Some(facts) => facts.needs.clone(),
            None => needs(&r.to_inline()),
        })
        .collect();
    if all.iter().all(Vec::is_empty) {
        return Vec::new();
    }
    all
}

/// Gives each `rate(…)` test its counter: tests with the same key template
/// and window share one, which keeps enough arrivals for the largest limit.
fn assign_rate_counters(points: &mut [PointProgram]) -> Vec<crate::ir::RateSpec> {
    let mut specs: Vec<(crate::ir::Template, crate::ir::RateSpec)> = Vec::new();
    for atom in points.iter_mut().flat_map(|p| p.atoms.iter_mut()) {
        let Atom::Rate(test) = atom else { continue };
        let found = specs
            .iter()
            .position(|(key, spec)| *key == test.key && spec.window_ms == test.window_ms);
        let i = found.unwrap_or_else(|| {
            specs.push((
                test.key.clone(),
                crate::ir::RateSpec {
                    window_ms: test.window_ms,
                    keep: 0,
                },
            ));
            specs.len() - 1
        });
        if let Some((_, spec)) = specs.get_mut(i) {
            spec.keep = spec.keep.max(test.keep());
        }
        test.counter = u32::try_from(i).unwrap_or(u32::MAX);
    }
    specs.into_iter().map(|(_, spec)| spec).collect()
}

/// Where each atom leaf of a rule's compiled condition is written (empty
/// when the checker's span tree does not line up with the condition).
fn cond_origins(rule: &CheckedRule, cond: &Cond, loaded: &LoadedSources) -> Vec<crate::ir::Origin> {
    let mut leaves = Vec::new();
    let lined_up = rule.conditions.len() == rule.condition_spans.len()
        && rule
            .conditions
            .iter()
            .zip(&rule.condition_spans)
            .all(|(c, spans)| atoms::leaf_spans(&c.node, spans, &mut leaves).is_some());
    if !lined_up || leaves.len() != atoms::count_atoms(cond) {
        return Vec::new();
    }
    leaves
        .into_iter()
        .map(|leaf| {
            let (line, col) = loaded
                .files
                .get(leaf.file)
                .map_or((0, 0), |f| f.source.line_col(leaf.span.start));
            crate::ir::Origin {
                file: u32::try_from(leaf.file).unwrap_or(u32::MAX),
                line,
                col,
            }
        })
        .collect()
}

/// True when the condition tree mentions `atom`.
fn uses_atom(cond: &Cond, atom: u32) -> bool {
    match cond {
        Cond::True => false,
        Cond::Atom(a) => *a == atom,
        Cond::Not(c) => uses_atom(c, atom),
        Cond::All(cs) | Cond::Any(cs) => cs.iter().any(|c| uses_atom(c, atom)),
    }
}

/// Atoms that must hold for the condition to hold.
fn necessary(cond: &Cond, out: &mut Vec<u32>) {
    match cond {
        Cond::Atom(a) => out.push(*a),
        Cond::All(cs) => cs.iter().for_each(|c| necessary(c, out)),
        Cond::True | Cond::Not(_) | Cond::Any(_) => {}
    }
}

/// Gives each rule a trigger: of the atoms its condition needs, one that a
/// field matcher computes in bulk, preferring the atom fewest rules need (the
/// most selective) and then the cheapest matcher. Returns atom → rules.
///
/// A comparison with a number is never a trigger: it is decided from its
/// field's number when a candidate asks, not found by a scan, and a bound
/// is usually passed by most values (`size > 0`).
fn choose_triggers(rules: &mut [Rule], atoms: &[Atom], atom_field: &[u32]) -> Vec<Vec<u32>> {
    let needs: Vec<Vec<u32>> = rules
        .iter()
        .map(|r| {
            let mut n = Vec::new();
            necessary(&r.cond, &mut n);
            n.retain(|a| {
                atom_field
                    .get(*a as usize)
                    .is_some_and(|f| *f != crate::ir::NO_FIELD)
                    && !matches!(atoms.get(*a as usize), Some(Atom::Cmp(..)))
            });
            n.sort_unstable();
            n.dedup();
            n
        })
        .collect();
    let mut uses = vec![0usize; atoms.len()];
    for n in &needs {
        for a in n {
            if let Some(u) = uses.get_mut(*a as usize) {
                *u += 1;
            }
        }
    }
    let cost = |a: u32| match atoms.get(a as usize) {
        Some(Atom::Eq(..) | Atom::In(..)) => 0,
        Some(Atom::Matches(..) | Atom::StartsWith(..) | Atom::EndsWith(..)) => 1,
        _ => 2,
    };
    let mut triggers = vec![Vec::new(); atoms.len()];
    for (i, (rule, n)) in rules.iter_mut().zip(&needs).enumerate() {
        rule.trigger = n.iter().copied().min_by_key(|&a| {
            (
                uses.get(a as usize).copied().unwrap_or(usize::MAX),
                cost(a),
                a,
            )
        });
        if let Some(list) = rule.trigger.and_then(|a| triggers.get_mut(a as usize)) {
            list.push(u32::try_from(i).unwrap_or(u32::MAX));
        }
    }
    triggers
}

/// Groups rules by the shape of their target.
fn fql_index(rules: &[Rule], atom_field: &[u32]) -> FqlIndex {
    let mut exact: BTreeMap<String, Bucket> = BTreeMap::new();
    let mut scope: BTreeMap<String, Bucket> = BTreeMap::new();
    let mut target: BTreeMap<String, Bucket> = BTreeMap::new();
    let mut any = Bucket::default();
    for (i, rule) in rules.iter().enumerate() {
        let bucket = match (&rule.target.scope, &rule.target.target) {
            (Segment::Exact(s), Segment::Exact(t)) => exact.entry(format!("{s}::{t}")).or_default(),
            (Segment::Exact(s), Segment::Any) => scope.entry(s.clone()).or_default(),
            (Segment::Any, Segment::Exact(t)) => target.entry(t.clone()).or_default(),
            (Segment::Any, Segment::Any) => &mut any,
        };
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        bucket.rules.push(i);
        match rule.trigger.and_then(|a| atom_field.get(a as usize)) {
            Some(&field) => bucket.fields |= 1u64 << field.min(63),
            None => bucket.untriggered.push(i),
        }
    }
    FqlIndex {
        exact: keyed(exact),
        scope: keyed(scope),
        target: keyed(target),
        any,
    }
}

fn keyed(groups: BTreeMap<String, Bucket>) -> Keyed {
    let mut keys = BTreeMap::new();
    let mut buckets = Vec::with_capacity(groups.len());
    for (i, (key, bucket)) in groups.into_iter().enumerate() {
        keys.insert(key, vec![u32::try_from(i).unwrap_or(u32::MAX)]);
        buckets.push(bucket);
    }
    Keyed {
        map: matchers::str_map(keys),
        buckets,
    }
}

/// An error when one of the rule's templates is longer than the limit.
fn template_over_limit(
    rule: &CheckedRule,
    limit: usize,
    loaded: &LoadedSources,
) -> Option<Diagnostic> {
    use crate::ir::{Action, TemplatePart};
    let len = |t: &crate::ir::Template| -> usize {
        t.parts
            .iter()
            .map(|p| match p {
                TemplatePart::Lit(s) => s.len(),
                TemplatePart::Path(_) | TemplatePart::Expr(_) => 0,
            })
            .sum()
    };
    let longest = rule
        .actions
        .iter()
        .filter_map(|a| match &a.node {
            Action::Abort(t)
            | Action::Ask(t)
            | Action::Context(t)
            | Action::Log(_, t)
            | Action::Prepend(_, t)
            | Action::Append(_, t) => Some(len(t)),
            _ => None,
        })
        .max()?;
    if longest <= limit {
        return None;
    }
    let file = loaded.files.get(rule.file)?;
    Some(
        Diagnostic::error(
            "limit",
            format!(
                "rule `{}` has a template of {longest} bytes, over the limit of {limit}",
                rule.id
            ),
        )
        .in_file(&file.source)
        .with_primary(rule.span, "in this rule")
        .with_help("raise `max_template_len` or shorten the text"),
    )
}

#[cfg(test)]
mod tests;

//! Per-field matchers: one pass over a field computes all of its atoms.
//!
//! For each field that atoms test, the compiler gathers the atoms that can be
//! decided from a string value in bulk: equalities with string constants go
//! into a perfect hash ([`StrMap`]); regexes, globs, prefixes and suffixes
//! into one multi-pattern DFA (regex-automata, `MatchKind::All`, so a single
//! overlapping scan reports every pattern that matches); substrings into one
//! literal search (built at load from the stored literals, see
//! [`crate::table::literals`]). Comparisons with a number (`<`, `<=`, `>`,
//! `>=`) join their field too, so that a dispatch reads the field once and
//! compares each with what it read. Everything else is evaluated one atom
//! at a time, only when a candidate rule needs it.

use crate::check::{RegexFacts, RegexFactsMap};
use crate::ir::{Atom, FieldMatcher, FieldPath, RegexSource, StrMap, NO_FIELD};
use crate::table::DfaKind;
use regex_automata::dfa::{dense, StartKind};
use regex_automata::MatchKind;
use serde_json::Value;
use std::collections::BTreeMap;

/// The matchers of one point.
pub(super) struct Built {
    pub(super) fields: Vec<FieldMatcher>,
    pub(super) atom_field: Vec<u32>,
}

/// The DFA sections of a table, each pattern set built once: a pattern set
/// used on several fields or points shares one section.
#[derive(Default)]
pub(super) struct DfaPool {
    /// Section bytes: a kind word (see [`crate::table::DfaKind`]), then the
    /// serialized DFA.
    pub(super) sections: Vec<Vec<u8>>,
    by_patterns: std::collections::HashMap<Vec<String>, u32>,
}

impl DfaPool {
    fn get_or_build(&mut self, patterns: Vec<String>, size: DfaSize) -> Result<u32, String> {
        if let Some(&i) = self.by_patterns.get(&patterns) {
            return Ok(i);
        }
        let section = build_dfa(&patterns, size)?;
        let i = u32::try_from(self.sections.len()).unwrap_or(u32::MAX);
        self.sections.push(section);
        self.by_patterns.insert(patterns, i);
        Ok(i)
    }
}

/// A field whose DFA would exceed the size limit.
pub(super) struct TooLarge {
    /// The field.
    pub(super) field: FieldPath,
    /// An atom of the field (to point at a rule that uses it).
    pub(super) atom: u32,
    /// The builder's message.
    pub(super) message: String,
}

#[derive(Default)]
struct Acc<'f> {
    bulk: Vec<u32>,
    eq: BTreeMap<String, Vec<u32>>,
    patterns: Vec<String>,
    /// What the checker learned of each pattern (`None` for those it did
    /// not parse: prefixes, suffixes, globs, case-folded comparisons).
    pattern_facts: Vec<Option<&'f RegexFacts>>,
    dfa_atoms: Vec<u32>,
    literals: BTreeMap<String, Vec<u32>>,
}

/// Builds the field matchers of one point's atoms. `facts` is what the
/// checker learned parsing the regexes written in the rules, so that they
/// are not parsed again here.
pub(super) fn build(
    atoms: &[Atom],
    regexes: &[RegexSource],
    facts: &RegexFactsMap,
    pool: &mut DfaPool,
    limits: &super::Options,
) -> Result<Built, TooLarge> {
    let mut by_field: BTreeMap<FieldPath, Acc> = BTreeMap::new();
    let mut atom_field = vec![NO_FIELD; atoms.len()];
    for (i, atom) in atoms.iter().enumerate() {
        let id = u32::try_from(i).unwrap_or(u32::MAX);
        let Some(path) = atom.field() else { continue };
        let strings = |values: &[Value]| -> Option<Vec<String>> {
            values
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        let acc = || Acc::default();
        match atom {
            Atom::Eq(_, Value::String(s)) => {
                by_field
                    .entry(path.clone())
                    .or_insert_with(acc)
                    .eq
                    .entry(s.clone())
                    .or_default()
                    .push(id);
            }
            Atom::In(_, values) => match strings(values) {
                Some(keys) if !keys.is_empty() => {
                    let a = by_field.entry(path.clone()).or_insert_with(acc);
                    for k in keys {
                        let list = a.eq.entry(k).or_default();
                        if list.last() != Some(&id) {
                            list.push(id);
                        }
                    }
                }
                _ => continue,
            },
            Atom::Matches(_, re) => {
                let Some(source) = regexes.get(re.0 as usize) else {
                    continue;
                };
                let a = by_field.entry(path.clone()).or_insert_with(acc);
                a.patterns.push(source.to_inline());
                a.pattern_facts.push(facts.get(source));
                a.dfa_atoms.push(id);
            }
            Atom::StartsWith(_, prefix) => {
                let a = by_field.entry(path.clone()).or_insert_with(acc);
                a.patterns
                    .push(format!("^{}", regex_syntax::escape(prefix)));
                a.pattern_facts.push(None);
                a.dfa_atoms.push(id);
            }
            Atom::EndsWith(_, suffix) => {
                let a = by_field.entry(path.clone()).or_insert_with(acc);
                a.patterns
                    .push(format!("{}$", regex_syntax::escape(suffix)));
                a.pattern_facts.push(None);
                a.dfa_atoms.push(id);
            }
            Atom::Contains(_, Value::String(needle)) if !needle.is_empty() => {
                by_field
                    .entry(path.clone())
                    .or_insert_with(acc)
                    .literals
                    .entry(needle.clone())
                    .or_default()
                    .push(id);
            }
            Atom::ContainsAny(_, values) => match strings(values) {
                Some(needles) if !needles.is_empty() && needles.iter().all(|n| !n.is_empty()) => {
                    let a = by_field.entry(path.clone()).or_insert_with(acc);
                    for n in needles {
                        let list = a.literals.entry(n).or_default();
                        if list.last() != Some(&id) {
                            list.push(id);
                        }
                    }
                }
                _ => continue,
            },
            // Decided against the field's number, read once per
            // generation (see `runtime::matchers`); no automaton.
            Atom::Cmp(..) => {
                by_field.entry(path.clone()).or_insert_with(acc);
            }
            _ => continue,
        }
        if let Some(a) = by_field.get_mut(path) {
            a.bulk.push(id);
        }
    }
    let mut fields = Vec::new();
    for (path, mut acc) in by_field {
        // Patterns whose DFA alone would blow up (long counted repetitions
        // under an unanchored, all-matches search) are left to the regex
        // engine, one atom at a time, instead of bloating the field's DFA.
        let expensive: Vec<usize> = (0..acc.patterns.len())
            .filter(|&i| {
                acc.patterns.get(i).is_some_and(|p| {
                    let facts = acc.pattern_facts.get(i).copied().flatten();
                    too_costly(p, facts, limits.pattern_dfa_budget)
                })
            })
            .collect();
        for &i in expensive.iter().rev() {
            acc.patterns.remove(i);
            acc.pattern_facts.remove(i);
            let atom = acc.dfa_atoms.remove(i);
            acc.bulk.retain(|&a| a != atom);
        }
        if acc.bulk.is_empty() {
            continue;
        }
        let field_id = u32::try_from(fields.len()).unwrap_or(u32::MAX);
        for &a in &acc.bulk {
            if let Some(slot) = atom_field.get_mut(a as usize) {
                *slot = field_id;
            }
        }
        // All patterns in one DFA when it stays small; otherwise the
        // patterns that have a required literal move to the literal
        // automaton as prefiltered checks, and the rest form the DFA.
        let mut checks: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut dfa = None;
        if !acc.patterns.is_empty() {
            let small = if acc.patterns.len() <= MAX_PATTERNS_PER_DFA {
                pool.get_or_build(
                    acc.patterns.clone(),
                    DfaSize::field(limits, limits.field_dfa_budget.min(limits.dfa_size_limit)),
                )
                .ok()
            } else {
                None
            };
            dfa = match small {
                Some(index) => Some(index),
                None => {
                    let mut i = acc.patterns.len();
                    while i > 0 {
                        i -= 1;
                        let literal = acc.patterns.get(i).and_then(|p| {
                            required_literal(p, acc.pattern_facts.get(i).copied().flatten())
                        });
                        if let Some(literal) = literal {
                            acc.patterns.remove(i);
                            acc.pattern_facts.remove(i);
                            checks
                                .entry(literal)
                                .or_default()
                                .push(acc.dfa_atoms.remove(i));
                        }
                    }
                    if acc.patterns.is_empty() {
                        None
                    } else {
                        let first = acc.dfa_atoms.first().copied().unwrap_or(0);
                        let index = pool
                            .get_or_build(
                                acc.patterns,
                                DfaSize::field(limits, limits.dfa_size_limit),
                            )
                            .map_err(|message| TooLarge {
                                field: path.clone(),
                                atom: first,
                                message,
                            })?;
                        Some(index)
                    }
                }
            };
        }
        let mut keys: Vec<String> = acc.literals.keys().chain(checks.keys()).cloned().collect();
        keys.sort();
        keys.dedup();
        let literal_atoms = keys
            .iter()
            .map(|k| acc.literals.get(k).cloned().unwrap_or_default())
            .collect();
        let literal_checks = keys
            .iter()
            .map(|k| {
                let mut v = checks.get(k).cloned().unwrap_or_default();
                v.sort_unstable();
                v
            })
            .collect();
        let literals = keys;
        fields.push(FieldMatcher {
            path,
            bulk: acc.bulk,
            eq: str_map(acc.eq),
            dfa,
            dfa_atoms: acc.dfa_atoms,
            literals,
            literal_atoms,
            literal_checks,
        });
    }
    Ok(Built { fields, atom_field })
}

/// [`crate::table::regexes::too_costly`], without parsing the pattern when
/// it cannot hold: only a long counted repetition makes a pattern too
/// costly, which the checker's `facts` say when it parsed the pattern, and
/// which is written with a `{` (`{n}`, `{n,m}`, `{n,}`) otherwise.
fn too_costly(pattern: &str, facts: Option<&RegexFacts>, budget: usize) -> bool {
    let may_be = match facts {
        Some(facts) => facts.long_repetition,
        None => pattern.contains('{'),
    };
    may_be && crate::table::regexes::too_costly(pattern, budget)
}

/// The most patterns tried in one DFA before prefiltering by literals.
const MAX_PATTERNS_PER_DFA: usize = 64;

/// The shortest literal worth prefiltering on.
const MIN_PREFILTER_LITERAL: usize = 3;

/// A literal that every match of `pattern` contains, the longest one found
/// in its top-level sequence; `None` when there is none long enough. The
/// checker's `facts` have it for the regexes written in the rules; other
/// patterns are parsed here.
fn required_literal(pattern: &str, facts: Option<&RegexFacts>) -> Option<String> {
    let literal = match facts {
        Some(facts) => facts.required_literal.clone(),
        None => crate::check::required_literal(&regex_syntax::parse(pattern).ok()?),
    }?;
    (literal.len() >= MIN_PREFILTER_LITERAL).then_some(literal)
}

/// How large a DFA section may grow, in bytes.
#[derive(Clone, Copy, Debug)]
struct DfaSize {
    /// The most the builder may use for the dense DFA (and for building it).
    build: usize,
    /// The largest dense form stored as is; above it, the sparse form.
    dense: usize,
    /// The largest section stored, in whichever form.
    stored: usize,
}

impl DfaSize {
    /// A field's DFA: built up to `build`, stored in any size.
    fn field(limits: &super::Options, build: usize) -> DfaSize {
        DfaSize {
            build,
            dense: limits.dense_dfa_limit,
            stored: usize::MAX,
        }
    }

    /// One regex's DFA: stored when it fits the pattern budget, dense or
    /// sparse. Unicode classes (`\w`, `(?i)` folds, a `[^/]` that is not
    /// repeated without bound: see `utf8_text`) make dense DFAs several times
    /// larger than their sparse form, and a hook process validates a
    /// sparse section faster than it compiles the regex; so the dense
    /// form may grow to a few budgets on its way to a sparse one.
    fn pattern(limits: &super::Options) -> DfaSize {
        DfaSize {
            build: limits
                .pattern_dfa_budget
                .saturating_mul(PATTERN_BUILD_FACTOR),
            dense: limits.pattern_dfa_budget,
            stored: limits.pattern_dfa_budget,
        }
    }
}

/// How many pattern budgets a regex's dense DFA may use while it is built
/// (see [`DfaSize::pattern`]).
const PATTERN_BUILD_FACTOR: usize = 4;

/// One DFA for all patterns, as a table section: dense (fastest) when its
/// serialized form fits `size.dense`, sparse (far smaller for patterns
/// with long counted repetitions or Unicode classes) otherwise.
fn build_dfa(patterns: &[String], size: DfaSize) -> Result<Vec<u8>, String> {
    let nfa = super::utf8_text::nfa(patterns)?;
    let dfa = dense::Builder::new()
        .configure(
            dense::DFA::config()
                .match_kind(MatchKind::All)
                // The runtime's searches are all unanchored: anchored
                // start states would only be validated and stored.
                .start_kind(StartKind::Unanchored)
                .unicode_word_boundary(true)
                .minimize(true)
                .dfa_size_limit(Some(size.build))
                .determinize_size_limit(Some(size.build)),
        )
        .build_from_nfa(&nfa)
        .map_err(|e| e.to_string())?;
    let (bytes, padding) = dfa.to_bytes_native_endian();
    let dense = bytes.get(padding..).unwrap_or(&[]);
    let mut section = Vec::new();
    if dense.len() <= size.dense {
        section.extend_from_slice(&(DfaKind::Dense as u32).to_le_bytes());
        section.extend_from_slice(dense);
    } else {
        let sparse = dfa.to_sparse().map_err(|e| e.to_string())?;
        section.extend_from_slice(&(DfaKind::Sparse as u32).to_le_bytes());
        section.extend_from_slice(&sparse.to_bytes_native_endian());
    }
    if section.len() > size.stored {
        return Err(format!(
            "its DFA takes {} bytes, more than the {} allowed",
            section.len(),
            size.stored
        ));
    }
    Ok(section)
}

/// A DFA section for each regex that `matches` uses inside an expression
/// (field atoms have their field's DFA), as [`Program::regex_dfas`]: a
/// hook process decides those regexes without compiling them. A regex
/// whose DFA would pass the pattern budget gets none and is compiled on
/// first use, as before.
///
/// [`Program::regex_dfas`]: crate::ir::Program::regex_dfas
pub(super) fn expression_dfas(
    points: &[crate::ir::PointProgram],
    regexes: &[RegexSource],
    facts: &RegexFactsMap,
    dfas: &mut DfaPool,
    limits: &super::Options,
) -> Vec<u32> {
    let mut used = std::collections::BTreeSet::new();
    for point in points {
        for atom in &point.atoms {
            if let Atom::Expr(e) = atom {
                matched_regexes(e, &mut used);
            }
        }
    }
    if used.is_empty() {
        return Vec::new();
    }
    let mut out = vec![crate::ir::NO_DFA; regexes.len()];
    for id in used {
        let (Some(source), Some(slot)) = (regexes.get(id as usize), out.get_mut(id as usize))
        else {
            continue;
        };
        let pattern = source.to_inline();
        if too_costly(&pattern, facts.get(source), limits.pattern_dfa_budget) {
            continue;
        }
        if let Ok(i) = dfas.get_or_build(vec![pattern], DfaSize::pattern(limits)) {
            *slot = i;
        }
    }
    out
}

/// The regexes `matches` tests in `e`.
fn matched_regexes(e: &crate::ir::Expr, out: &mut std::collections::BTreeSet<u32>) {
    if let crate::ir::Expr::Matches(_, re) = e {
        out.insert(re.0);
    }
    e.each_child(|child, _| matched_regexes(child, out));
}

pub(super) fn str_map(entries: BTreeMap<String, Vec<u32>>) -> StrMap {
    if entries.is_empty() {
        return StrMap::default();
    }
    let (keys, values): (Vec<String>, Vec<Vec<u32>>) = entries.into_iter().unzip();
    let hash = hash_over(&keys);
    StrMap {
        keys,
        values,
        ..hash
    }
}

/// A perfect hash over `keys` (distinct), which it does not hold: its
/// slots give indexes into `keys` ([`StrMap::index_in`]).
pub(crate) fn hash_over(keys: &[String]) -> StrMap {
    let state = phf_generator::generate_hash(&keys.iter().map(String::as_str).collect::<Vec<_>>());
    StrMap {
        hash_key: state.key,
        disps: state.disps,
        map: state
            .map
            .into_iter()
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect(),
        ..StrMap::default()
    }
}

#[cfg(test)]
mod tests {
    /// Skipping the parse of a pattern without `{` changes no answer: the
    /// long repetitions are counted ones, written with braces (also in
    /// verbose mode, and after an escaped brace).
    #[test]
    fn the_brace_test_agrees_with_the_full_one() {
        let budget = crate::Options::default().pattern_dfa_budget;
        let patterns = [
            r"\w{100}",
            r"(?x) [a-z] {7} # spaced out",
            r"\{x\}[0-9]{3}",
            r"[0-7]{3}",
            r"a+b*c?",
            r"git\s+push\s+--force",
            r"(?i)\bkey\b",
        ];
        let mut costly = 0;
        for pattern in patterns {
            let full = crate::table::regexes::too_costly(pattern, budget);
            assert_eq!(super::too_costly(pattern, None, budget), full, "{pattern}");
            costly += usize::from(full);
        }
        assert!(costly > 0, "no pattern of the test is costly");
    }

    /// Every search of a field's or an expression's DFA is unanchored, so
    /// a section holds no anchored start states: a pattern that does not
    /// begin with `^` would otherwise bring a second set of states, each
    /// stored, and validated by every hook process that searches it.
    #[test]
    fn dfa_sections_hold_only_unanchored_starts() {
        use regex_automata::dfa::{dense, Automaton, StartKind};
        use regex_automata::{Anchored, Input};
        let patterns = vec![r"(^|[/=])\.hookc(/|$)".to_string(), r"rm\s+-rf".to_string()];
        let section = super::build_dfa(
            &patterns,
            super::DfaSize::pattern(&crate::Options::default()),
        )
        .unwrap();
        let (kind, body) = section.split_at(4);
        assert_eq!(kind, (crate::table::DfaKind::Dense as u32).to_le_bytes());
        let mut words = vec![0u32; body.len() / 4];
        bytemuck::cast_slice_mut::<u32, u8>(&mut words).copy_from_slice(body);
        let (dfa, _) = dense::DFA::from_bytes(bytemuck::cast_slice(&words)).unwrap();
        assert_eq!(dfa.start_kind(), StartKind::Unanchored);
        let text = "cd x && rm  -rf .hookc/";
        let found = dfa.try_search_fwd(&Input::new(text)).unwrap();
        assert!(found.is_some(), "an unanchored search finds the patterns");
        let anchored = dfa.try_search_fwd(&Input::new(text).anchored(Anchored::Yes));
        assert!(anchored.is_err(), "an anchored search has no start state");
    }
}

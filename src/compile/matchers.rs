//! Per-field matchers: one pass over a field computes all of its atoms.
//!
//! For each field that atoms test, the compiler gathers the atoms that can be
//! decided from a string value in bulk: equalities with string constants go
//! into a perfect hash ([`StrMap`]); regexes, globs, prefixes and suffixes
//! into one multi-pattern DFA (regex-automata, `MatchKind::All`, so a single
//! overlapping scan reports every pattern that matches); substrings into one
//! Aho-Corasick automaton (rebuilt at load from the stored literals, since it
//! has no stable serialized form). Everything else is evaluated one atom at a
//! time, only when a candidate rule needs it.

use crate::ir::{Atom, FieldMatcher, FieldPath, RegexSource, StrMap, NO_FIELD};
use regex_automata::dfa::dense;
use regex_automata::util::syntax;
use regex_automata::MatchKind;
use serde_json::Value;
use std::collections::BTreeMap;

/// The matchers of one point.
pub(super) struct Built {
    pub(super) fields: Vec<FieldMatcher>,
    pub(super) atom_field: Vec<u32>,
    /// Serialized DFAs, in the order of their [`FieldMatcher::dfa`] indices
    /// (numbered from the `first_dfa` given to [`build`]).
    pub(super) dfas: Vec<Vec<u8>>,
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
struct Acc {
    bulk: Vec<u32>,
    eq: BTreeMap<String, Vec<u32>>,
    patterns: Vec<String>,
    dfa_atoms: Vec<u32>,
    literals: BTreeMap<String, Vec<u32>>,
}

/// Builds the field matchers of one point's atoms.
pub(super) fn build(
    atoms: &[Atom],
    regexes: &[RegexSource],
    first_dfa: u32,
    dfa_size_limit: usize,
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
                a.dfa_atoms.push(id);
            }
            Atom::StartsWith(_, prefix) => {
                let a = by_field.entry(path.clone()).or_insert_with(acc);
                a.patterns
                    .push(format!("^{}", regex_syntax::escape(prefix)));
                a.dfa_atoms.push(id);
            }
            Atom::EndsWith(_, suffix) => {
                let a = by_field.entry(path.clone()).or_insert_with(acc);
                a.patterns
                    .push(format!("{}$", regex_syntax::escape(suffix)));
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
            _ => continue,
        }
        if let Some(a) = by_field.get_mut(path) {
            a.bulk.push(id);
        }
    }
    let mut fields = Vec::new();
    let mut dfas = Vec::new();
    for (fi, (path, acc)) in by_field.into_iter().enumerate() {
        let field_id = u32::try_from(fi).unwrap_or(u32::MAX);
        for &a in &acc.bulk {
            if let Some(slot) = atom_field.get_mut(a as usize) {
                *slot = field_id;
            }
        }
        let dfa = if acc.patterns.is_empty() {
            None
        } else {
            let bytes = build_dfa(&acc.patterns, dfa_size_limit).map_err(|message| TooLarge {
                field: path.clone(),
                atom: acc.dfa_atoms.first().copied().unwrap_or(0),
                message,
            })?;
            let index = first_dfa + u32::try_from(dfas.len()).unwrap_or(u32::MAX);
            dfas.push(bytes);
            Some(index)
        };
        let (literals, literal_atoms): (Vec<String>, Vec<Vec<u32>>) =
            acc.literals.into_iter().unzip();
        fields.push(FieldMatcher {
            path,
            bulk: acc.bulk,
            eq: str_map(acc.eq),
            dfa,
            dfa_atoms: acc.dfa_atoms,
            literals,
            literal_atoms,
        });
    }
    Ok(Built {
        fields,
        atom_field,
        dfas,
    })
}

/// One dense DFA for all patterns, serialized native-endian without the
/// leading alignment padding.
fn build_dfa(patterns: &[String], limit: usize) -> Result<Vec<u8>, String> {
    let dfa = dense::Builder::new()
        .configure(
            dense::DFA::config()
                .match_kind(MatchKind::All)
                .unicode_word_boundary(true)
                .dfa_size_limit(Some(limit))
                .determinize_size_limit(Some(limit)),
        )
        .syntax(syntax::Config::new().utf8(true).unicode(true))
        .build_many(patterns)
        .map_err(|e| e.to_string())?;
    let (bytes, padding) = dfa.to_bytes_native_endian();
    Ok(bytes.get(padding..).unwrap_or(&[]).to_vec())
}

pub(super) fn str_map(entries: BTreeMap<String, Vec<u32>>) -> StrMap {
    if entries.is_empty() {
        return StrMap::default();
    }
    let (keys, values): (Vec<String>, Vec<Vec<u32>>) = entries.into_iter().unzip();
    let state = phf_generator::generate_hash(&keys.iter().map(String::as_str).collect::<Vec<_>>());
    StrMap {
        keys,
        values,
        hash_key: state.key,
        disps: state.disps,
        map: state
            .map
            .into_iter()
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect(),
    }
}

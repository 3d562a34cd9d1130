//! Cost bounds: the most work one dispatch at a point can do, read from
//! the compiled program and the sizes of its automata.
//!
//! For each point with rules, a [`PointCost`] says how many rules one
//! event can make candidates (every enabled rule whose target matches the
//! heaviest component, [`crate::fql::heaviest_component`]), which fields
//! a dispatch scans and how (a perfect hash of constants, one DFA, one
//! literal search, regexes verified one by one after a literal), the atoms
//! evaluated one by one, the effects the rules can run with their
//! timeouts, and the sum of the timeouts one event can wait on: the
//! worst-case wall time of a dispatch, apart from the matching itself.
//!
//! The scans are linear in the field's length (a DFA or a literal search
//! reads each byte once). What is not bounded that way is named in
//! [`PointCost::unbounded`]: a regex the regex engine matches because no
//! DFA was built for it, a `shell(…)` view parsed from a command string, a
//! quantifier over a list, a `rate(…)` count read from a store.

use crate::fql::heaviest_component;
use crate::ir::{Atom, Expr, Func, PointProgram, Program, RegexId, Rule, NO_DFA, NO_FIELD};
use crate::Table;
use serde::Serialize;
use std::collections::BTreeSet;

/// The worst case of one dispatch at a point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PointCost {
    /// The point's name.
    pub point: String,
    /// Its enabled rules.
    pub rules: usize,
    /// The most rules one event can make candidates.
    pub candidates_max: u64,
    /// The fields scanned in bulk, with their matchers.
    pub fields: Vec<FieldCost>,
    /// Bytes of the DFAs a dispatch can run: the fields' and those of the
    /// regexes inside expressions.
    pub dfa_bytes: usize,
    /// Atoms no field matcher computes, evaluated one by one when a
    /// candidate rule needs them.
    pub atoms_one_by_one: usize,
    /// The effects the enabled rules can run, in execution order.
    pub effects: Vec<EffectCost>,
    /// The most milliseconds one event can wait on commands and handlers:
    /// the sum of their timeouts over the heaviest component's rules.
    pub worst_case_timeout_ms: u64,
    /// The parts whose cost is not linear in the event's size, or not
    /// bounded by the table alone.
    pub unbounded: Vec<Unbounded>,
}

/// How one field is scanned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldCost {
    /// The field, e.g. `payload.command`.
    pub path: String,
    /// Atoms computed in the one pass.
    pub atoms: usize,
    /// Constants looked up in a perfect hash.
    pub eq_keys: usize,
    /// Patterns in the field's DFA.
    pub dfa_patterns: usize,
    /// Bytes of the field's DFA.
    pub dfa_bytes: usize,
    /// Literals searched for.
    pub literals: usize,
    /// How: `substring` (one text they all begin with), `anchors` (a
    /// packed search for their first bytes) or `automaton` (Aho-Corasick);
    /// `None` without literals.
    pub literal_search: Option<&'static str>,
    /// Regexes kept out of the DFA, each verified by the regex engine
    /// when its literal is found.
    pub regexes_verified: usize,
    /// Comparisons with a number, decided against the value read once.
    pub comparisons: usize,
}

/// An effect a rule can run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EffectCost {
    /// The rule's id.
    pub rule: String,
    /// `command`, `handler`, `lua`, `webhook`, `trace`, `ask` or `log`
    /// ([`crate::ir::Action::effect_kind`]).
    pub kind: &'static str,
    /// How long the dispatch can wait on it; `None` when it does not wait
    /// (a webhook only queues).
    pub timeout_ms: Option<u64>,
    /// True when the timeout is the host's default (the rule sets none).
    pub default_timeout: bool,
}

/// A part of a dispatch whose cost the table does not bound.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Unbounded {
    /// `regex-engine`, `shell-view`, `quantifier` or `rate-store`.
    pub kind: &'static str,
    /// What it is, e.g. the regex or the field.
    pub what: String,
}

/// The cost of every point of the table that has rules, in the program's
/// order.
pub fn point_costs(table: &Table) -> Vec<PointCost> {
    let program = table.program();
    program
        .points
        .iter()
        .map(|point| point_cost(table, program, point))
        .collect()
}

fn point_cost(table: &Table, program: &Program, point: &PointProgram) -> PointCost {
    let dfa_sizes = table.dfa_sizes();
    let enabled: Vec<&Rule> = point.rules.iter().filter(|r| r.enabled).collect();
    let fields: Vec<FieldCost> = table
        .field_stats(&point.name)
        .into_iter()
        .enumerate()
        .map(|(i, stats)| FieldCost {
            path: stats.field,
            atoms: stats.atoms,
            eq_keys: stats.eq_keys,
            dfa_patterns: stats.dfa_patterns,
            dfa_bytes: stats.dfa_bytes,
            literals: stats.literals,
            literal_search: stats.literal_search.as_ref().map(|k| k.name()),
            regexes_verified: point.fields.get(i).map_or(0, |m| {
                m.literal_checks
                    .iter()
                    .flatten()
                    .collect::<BTreeSet<_>>()
                    .len()
            }),
            comparisons: stats.comparisons,
        })
        .collect();
    let mut unbounded = BTreeSet::new();
    let mut expr_dfas = BTreeSet::new();
    let mut walker = Walker {
        program,
        unbounded: &mut unbounded,
        dfas: &mut expr_dfas,
    };
    for (atom, field) in point.atoms.iter().zip(&point.atom_field) {
        match atom {
            Atom::Matches(path, id) if *field == NO_FIELD => {
                walker.regex(*id, &path.to_string());
            }
            Atom::Rate(_) => walker.rate(),
            Atom::Expr(expr) => walker.expr(expr),
            _ => {}
        }
    }
    for matcher in &point.fields {
        let checked: BTreeSet<&u32> = matcher.literal_checks.iter().flatten().collect();
        for atom in checked {
            if let Some(Atom::Matches(path, id)) = point.atoms.get(*atom as usize) {
                walker.regex(*id, &path.to_string());
            }
        }
    }
    let dfa_bytes = fields.iter().map(|f| f.dfa_bytes).sum::<usize>()
        + expr_dfas
            .iter()
            .filter_map(|&d| dfa_sizes.get(d as usize))
            .sum::<usize>();
    let effects = enabled
        .iter()
        .flat_map(|rule| {
            rule.actions.iter().filter_map(|action| {
                Some(EffectCost {
                    rule: rule.id.clone(),
                    kind: action.effect_kind()?,
                    timeout_ms: action.blocking_timeout_ms(rule.timeout_ms),
                    default_timeout: rule.timeout_ms.is_none()
                        && action.blocking_timeout_ms(None).is_some(),
                })
            })
        })
        .collect();
    PointCost {
        point: point.name.clone(),
        rules: enabled.len(),
        candidates_max: heaviest_component(enabled.iter().map(|r| (&r.target, 1))),
        fields,
        dfa_bytes,
        atoms_one_by_one: point.atom_field.iter().filter(|&&f| f == NO_FIELD).count(),
        effects,
        worst_case_timeout_ms: heaviest_component(
            enabled.iter().map(|r| (&r.target, rule_timeout_ms(r))),
        ),
        unbounded: unbounded.into_iter().collect(),
    }
}

/// The most milliseconds one run of a rule can wait on its effects.
pub fn rule_timeout_ms(rule: &Rule) -> u64 {
    rule.actions
        .iter()
        .filter_map(|a| a.blocking_timeout_ms(rule.timeout_ms))
        .fold(0, u64::saturating_add)
}

/// Collects the unbounded parts and the DFAs of expressions.
struct Walker<'a> {
    program: &'a Program,
    unbounded: &'a mut BTreeSet<Unbounded>,
    dfas: &'a mut BTreeSet<u32>,
}

impl Walker<'_> {
    /// A regex matched on `subject`: by its DFA when the table has one,
    /// else by the regex engine.
    fn regex(&mut self, id: RegexId, subject: &str) {
        let dfa = self
            .program
            .regex_dfas
            .get(id.0 as usize)
            .copied()
            .unwrap_or(NO_DFA);
        if dfa == NO_DFA {
            let pattern = self
                .program
                .regexes
                .get(id.0 as usize)
                .map_or_else(|| "?".to_string(), |r| r.to_inline());
            self.unbounded.insert(Unbounded {
                kind: "regex-engine",
                what: format!("{subject} matches /{pattern}/"),
            });
        } else {
            self.dfas.insert(dfa);
        }
    }

    fn rate(&mut self) {
        self.unbounded.insert(Unbounded {
            kind: "rate-store",
            what: "a `rate(…)` count read from the host's store".to_string(),
        });
    }

    fn expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Const(_) | Expr::Path(_) | Expr::Var(..) | Expr::Exists(_) => {}
            Expr::Template(_) => {}
            Expr::Array(items) => items.iter().for_each(|e| self.expr(e)),
            Expr::Object(items) => items.iter().for_each(|(_, e)| self.expr(e)),
            Expr::Unary(_, e) => self.expr(e),
            Expr::Binary(_, a, b) | Expr::In(a, b) | Expr::ContainsAny(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Matches(subject, id) => {
                self.expr(subject);
                self.regex(*id, &subject_text(subject));
            }
            Expr::Capture(subject, id, _) => {
                self.expr(subject);
                self.regex(*id, &subject_text(subject));
            }
            Expr::Rate(_) => self.rate(),
            Expr::Quantifier(_, list, body) => {
                self.unbounded.insert(Unbounded {
                    kind: "quantifier",
                    what: format!("a quantifier over {}", subject_text(list)),
                });
                self.expr(list);
                self.expr(body);
            }
            Expr::Call(func, args) => {
                if *func == Func::Shell {
                    self.unbounded.insert(Unbounded {
                        kind: "shell-view",
                        what: format!(
                            "shell({})",
                            args.first().map_or_else(String::new, subject_text)
                        ),
                    });
                }
                args.iter().for_each(|e| self.expr(e));
            }
            Expr::WordsAny(list, _) | Expr::InSet(list, _) => self.expr(list),
            Expr::Let(value, body) => {
                self.expr(value);
                self.expr(body);
            }
        }
    }
}

/// A short name for the subject of a test: the field it reads, or what
/// it is.
fn subject_text(expr: &Expr) -> String {
    match expr {
        Expr::Path(path) => path.to_string(),
        Expr::Var(..) => "a quantifier's element".to_string(),
        Expr::Call(Func::Shell, args) => format!(
            "shell({})",
            args.first().map_or_else(String::new, subject_text)
        ),
        Expr::Call(..) => "a function's result".to_string(),
        _ => "an expression".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs(src: &str) -> Vec<PointCost> {
        match crate::compile_str("test.hooks", src) {
            Ok(compiled) => point_costs(&compiled.table),
            Err(diags) => panic!("{diags:?}"),
        }
    }

    #[test]
    fn candidates_and_timeouts_are_those_of_the_heaviest_component() {
        let found = costs(
            r#"
schema orcs

hook a on tool.pre_execute at builtin::exec timeout 1000ms {
    exec "./check"
    exec "./check-again"
}

hook b on tool.pre_execute at builtin::read timeout 5000ms {
    exec "./read-check"
}

hook c on tool.pre_execute at builtin::* {
    call "audit"
    webhook "https://hooks.example.com/x"
}

hook d on tool.pre_execute at builtin::llm disabled {
    exec "./never"
}

hook e on tool.pre_execute at *::exec {
    log info "exec"
}
"#,
        );
        let [cost] = found.as_slice() else {
            panic!("{found:?}")
        };
        assert_eq!(cost.point, "tool.pre_execute");
        assert_eq!(cost.rules, 4);
        // `builtin::exec`: a, c, e.
        assert_eq!(cost.candidates_max, 3);
        // `builtin::read`: b's 5,000 + c's handler at the default 60,000
        // (`builtin::exec` waits 2 × 1,000 + 60,000); a webhook only
        // queues, a disabled rule never runs.
        assert_eq!(cost.worst_case_timeout_ms, 65_000);
        let kinds: Vec<(&str, &str, Option<u64>, bool)> = cost
            .effects
            .iter()
            .map(|e| (e.rule.as_str(), e.kind, e.timeout_ms, e.default_timeout))
            .collect();
        assert_eq!(
            kinds,
            [
                ("a", "command", Some(1000), false),
                ("a", "command", Some(1000), false),
                ("b", "command", Some(5000), false),
                ("c", "handler", Some(60_000), true),
                ("c", "webhook", None, false),
                ("e", "log", None, false),
            ]
        );
        assert!(cost.unbounded.is_empty(), "{:?}", cost.unbounded);
    }

    #[test]
    fn fields_are_reported_with_their_automata_and_unbounded_parts_named() {
        let found = costs(
            r#"
schema orcs

hook a on tool.pre_execute {
    when payload.tool == "exec"
    when payload.command matches /rm\s+-rf/
    abort "no"
}

hook b on tool.pre_execute {
    when any c in shell(payload.command): c.program == "curl"
    abort "no curl"
}
"#,
        );
        let [cost] = found.as_slice() else {
            panic!("{found:?}")
        };
        assert_eq!(cost.candidates_max, 2);
        assert_eq!(cost.worst_case_timeout_ms, 0);
        let fields: Vec<(&str, usize, usize)> = cost
            .fields
            .iter()
            .map(|f| (f.path.as_str(), f.eq_keys, f.dfa_patterns))
            .collect();
        assert_eq!(fields, [("payload.command", 0, 1), ("payload.tool", 1, 0)]);
        assert!(cost.dfa_bytes > 0);
        assert_eq!(
            cost.dfa_bytes,
            cost.fields.iter().map(|f| f.dfa_bytes).sum::<usize>()
        );
        let kinds: Vec<&str> = cost.unbounded.iter().map(|u| u.kind).collect();
        assert_eq!(kinds, ["quantifier", "shell-view"], "{:?}", cost.unbounded);
        assert_eq!(cost.atoms_one_by_one, 1);
    }
}

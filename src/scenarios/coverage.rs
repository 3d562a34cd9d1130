//! Coverage of a test run (`hookc test --coverage`): which rules no test
//! made fire, and which parts of their conditions no test made true, or
//! false, per file.
//!
//! It is counted from the explanation of each test's dispatch
//! ([`Table::dispatch_explained`](crate::Table)): the observer behind
//! `hookc explain`, shown every rule of the point on the context as the
//! chain had it, with the value of every part of its condition computed by
//! the table's own matchers. There is no second evaluator.
//!
//! - A **rule** is covered when a test made it fire.
//! - A rule's condition is split into **parts**: each `when` or `unless`
//!   line and each operand of an `and` or an `or` (a line of several `and`
//!   operands is those operands: the table keeps no line boundary between
//!   them). The operand of a `not` (and an `unless` line's expression) is
//!   the `not` itself, counted once. A part is covered when a test
//!   evaluated it true and a test evaluated it false.
//! - A part is **evaluated** when the chain reached its rule (the chain had
//!   not ended before it), the rule is enabled, its target matches the
//!   event's, and its turn came as the condition is read left to right with
//!   short circuits: every operand of an `and` before it held, every
//!   operand of an `or` before it failed.
//!
//! A rule on several points is one rule: what a test did at any of them
//! counts.

use crate::ir::{Cond, Origin, PointProgram, Program};
use crate::runtime::{CondExplanation, Explanation, RuleStatus};
use serde::Serialize;
use std::collections::HashMap;

/// What the tests exercised, per file of rules.
///
/// As JSON (in `hookc test --coverage --format json`, under `coverage`):
///
/// ```json
/// {"rules": {"covered": 3, "total": 4}, "conditions": {"covered": 5, "total": 8},
///  "files": [{"file": "guard.hooks",
///             "rules": {"covered": 3, "total": 4}, "conditions": {"covered": 5, "total": 8},
///             "uncovered_rules": [{"id": "audit", "line": 20, "col": 1, "enabled": true}],
///             "uncovered_conditions": [{"rule": "block-rm", "condition": "payload.tool == \"exec\"",
///                                       "file": "guard.hooks", "line": 4, "col": 10,
///                                       "true": 3, "false": 0, "missed": "never_false"}]}]}
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Rules that fired, of all rules.
    pub rules: Count,
    /// Condition parts evaluated both true and false, of all parts.
    pub conditions: Count,
    /// Every file with rules, in the order the table names them.
    pub files: Vec<FileCoverage>,
}

/// How many of how many.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    /// How many are covered.
    pub covered: usize,
    /// How many there are.
    pub total: usize,
}

impl Count {
    /// True when every one is covered (or there are none).
    pub fn complete(&self) -> bool {
        self.covered == self.total
    }

    fn add(&mut self, covered: bool) {
        self.total += 1;
        if covered {
            self.covered += 1;
        }
    }
}

/// The coverage of the rules written in one file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FileCoverage {
    /// The file, as the table names it.
    pub file: String,
    /// Its rules that fired, of its rules.
    pub rules: Count,
    /// The parts of its rules' conditions covered, of all of them.
    pub conditions: Count,
    /// Its rules no test made fire, in file order.
    pub uncovered_rules: Vec<UncoveredRule>,
    /// The parts of its rules' conditions not covered, in rule order.
    pub uncovered_conditions: Vec<UncoveredCondition>,
}

/// A rule no test made fire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UncoveredRule {
    /// Its id.
    pub id: String,
    /// 1-based line of its `hook` keyword.
    pub line: u32,
    /// 1-based column of its `hook` keyword.
    pub col: u32,
    /// False for a `disabled` rule, which no test can make fire.
    pub enabled: bool,
}

/// A part of a condition that no test made true, or none made false.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UncoveredCondition {
    /// The id of the rule it belongs to.
    pub rule: String,
    /// The part, written like source.
    pub condition: String,
    /// The file it is written in (a macro's, when it comes from one).
    pub file: String,
    /// 1-based line where it starts.
    pub line: u32,
    /// 1-based column where it starts.
    pub col: u32,
    /// How many times it was evaluated true.
    #[serde(rename = "true")]
    pub when_true: usize,
    /// How many times it was evaluated false.
    #[serde(rename = "false")]
    pub when_false: usize,
    /// What no test did.
    pub missed: Missed,
}

/// What no test did to a part of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Missed {
    /// No test evaluated it.
    NeverEvaluated,
    /// It was evaluated, never true.
    NeverTrue,
    /// It was evaluated, never false.
    NeverFalse,
}

impl Missed {
    /// `never evaluated`, `never true` or `never false`.
    pub fn describe(self) -> &'static str {
        match self {
            Missed::NeverEvaluated => "never evaluated",
            Missed::NeverTrue => "never true",
            Missed::NeverFalse => "never false",
        }
    }
}

/// A rule as the tally knows it: by where it is written and its id.
type RuleKey = (String, u32, u32, String);

/// The counts of a test run so far.
#[derive(Debug)]
pub(crate) struct Tally {
    rules: Vec<RuleTally>,
    by_key: HashMap<RuleKey, usize>,
    /// The files of the table, in order.
    files: Vec<String>,
}

#[derive(Debug)]
struct RuleTally {
    id: String,
    file: String,
    line: u32,
    col: u32,
    enabled: bool,
    fired: usize,
    parts: Vec<Part>,
}

/// One part of a condition and its counts.
#[derive(Debug)]
struct Part {
    text: String,
    file: String,
    line: u32,
    col: u32,
    when_true: usize,
    when_false: usize,
}

/// Where a node of a condition tree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// The whole condition.
    Root,
    /// The operand of a `not`.
    UnderNot,
    /// An operand of an `and` or an `or`.
    Operand,
}

/// Whether a node is a part: it tests something (an atom is below it), and
/// it is neither the `and` of a rule's lines nor the operand of a `not`.
fn is_part(place: Place, is_all: bool, has_atoms: bool) -> bool {
    has_atoms
        && match place {
            Place::Root => !is_all,
            Place::UnderNot => false,
            Place::Operand => true,
        }
}

impl Tally {
    /// No test run yet: every rule of `program`, each part of its condition
    /// never evaluated.
    pub(crate) fn new(program: &Program) -> Tally {
        let mut tally = Tally {
            rules: Vec::new(),
            by_key: HashMap::new(),
            files: program.files.clone(),
        };
        for point in &program.points {
            for rule in &point.rules {
                let (file, line, col) = place_of(program, rule.origin);
                let key = (file.clone(), line, col, rule.id.clone());
                if tally.by_key.contains_key(&key) {
                    continue;
                }
                let mut walk = Skeleton {
                    program,
                    point,
                    origins: &rule.cond_origins,
                    leaf: 0,
                    fallback: (file.clone(), line, col),
                    parts: Vec::new(),
                };
                walk.visit(&rule.cond, Place::Root);
                tally.by_key.insert(key, tally.rules.len());
                tally.rules.push(RuleTally {
                    id: rule.id.clone(),
                    file,
                    line,
                    col,
                    enabled: rule.enabled,
                    fired: 0,
                    parts: walk.parts,
                });
            }
        }
        tally
    }

    /// Counts what one dispatch did.
    pub(crate) fn record(&mut self, explanation: &Explanation) {
        for rule in &explanation.rules {
            let key = (
                rule.origin.file.clone(),
                rule.origin.line,
                rule.origin.col,
                rule.id.clone(),
            );
            let Some(tally) = self.by_key.get(&key).and_then(|&i| self.rules.get_mut(i)) else {
                continue;
            };
            if rule.status == RuleStatus::Fired {
                tally.fired += 1;
            }
            // The explanation has the shape of the table's condition; a
            // rule the observer was not shown has none, and counts nothing.
            if count_parts(&rule.condition, Place::Root) != tally.parts.len() {
                continue;
            }
            let reached =
                rule.status != RuleStatus::NotReached && rule.enabled && rule.target.matched;
            let mut next = 0;
            record_parts(
                &rule.condition,
                Place::Root,
                reached,
                &mut next,
                &mut tally.parts,
            );
        }
    }

    /// The coverage counted, per file.
    pub(crate) fn finish(self) -> Coverage {
        let mut order: Vec<String> = self.files;
        for rule in &self.rules {
            if !order.contains(&rule.file) {
                order.push(rule.file.clone());
            }
        }
        let mut files: Vec<FileCoverage> = order
            .into_iter()
            .map(|file| FileCoverage {
                file,
                ..FileCoverage::default()
            })
            .collect();
        let mut rules = self.rules;
        rules.sort_by_key(|r| (r.line, r.col));
        for rule in rules {
            let Some(entry) = files.iter_mut().find(|f| f.file == rule.file) else {
                continue;
            };
            entry.rules.add(rule.fired > 0);
            if rule.fired == 0 {
                entry.uncovered_rules.push(UncoveredRule {
                    id: rule.id.clone(),
                    line: rule.line,
                    col: rule.col,
                    enabled: rule.enabled,
                });
            }
            for part in rule.parts {
                let missed = match (part.when_true, part.when_false) {
                    (0, 0) => Some(Missed::NeverEvaluated),
                    (0, _) => Some(Missed::NeverTrue),
                    (_, 0) => Some(Missed::NeverFalse),
                    _ => None,
                };
                entry.conditions.add(missed.is_none());
                if let Some(missed) = missed {
                    entry.uncovered_conditions.push(UncoveredCondition {
                        rule: rule.id.clone(),
                        condition: part.text,
                        file: part.file,
                        line: part.line,
                        col: part.col,
                        when_true: part.when_true,
                        when_false: part.when_false,
                        missed,
                    });
                }
            }
        }
        files.retain(|f| f.rules.total > 0);
        let mut coverage = Coverage {
            files,
            ..Coverage::default()
        };
        for f in &coverage.files {
            coverage.rules.covered += f.rules.covered;
            coverage.rules.total += f.rules.total;
            coverage.conditions.covered += f.conditions.covered;
            coverage.conditions.total += f.conditions.total;
        }
        coverage
    }
}

/// `(file, line, col)` of an origin.
fn place_of(program: &Program, origin: Origin) -> (String, u32, u32) {
    let file = program
        .files
        .get(origin.file as usize)
        .cloned()
        .unwrap_or_else(|| "?".to_string());
    (file, origin.line, origin.col)
}

/// The parts of a rule's condition, from the table: their text and where
/// they are written.
struct Skeleton<'p> {
    program: &'p Program,
    point: &'p PointProgram,
    /// Where each atom leaf is written, depth first.
    origins: &'p [Origin],
    /// The next leaf.
    leaf: usize,
    /// Where the rule is written, for a part whose place is not known.
    fallback: (String, u32, u32),
    parts: Vec<Part>,
}

impl Skeleton<'_> {
    /// Visits the tree in the order [`record_parts`] visits its
    /// explanation: a part before its operands, operands left to right.
    fn visit(&mut self, cond: &Cond, place: Place) {
        if is_part(place, matches!(cond, Cond::All(_)), has_atoms(cond)) {
            // A part starts where its first atom is written.
            let (file, line, col) = match self.origins.get(self.leaf) {
                Some(origin) => place_of(self.program, *origin),
                None => self.fallback.clone(),
            };
            let text = self.text(cond);
            self.parts.push(Part {
                text,
                file,
                line,
                col,
                when_true: 0,
                when_false: 0,
            });
        }
        match cond {
            Cond::True => {}
            Cond::Atom(_) => self.leaf += 1,
            Cond::Not(inner) => self.visit(inner, Place::UnderNot),
            Cond::All(items) | Cond::Any(items) => {
                for item in items {
                    self.visit(item, Place::Operand);
                }
            }
        }
    }

    /// A condition written like source: operands that are operations
    /// themselves in parentheses.
    fn text(&self, cond: &Cond) -> String {
        let operand = |c: &Cond| {
            let text = self.text(c);
            let simple = match c {
                Cond::All(items) | Cond::Any(items) => items.len() < 2,
                Cond::Atom(_) => !text.contains(' '),
                Cond::True | Cond::Not(_) => true,
            };
            if simple {
                text
            } else {
                format!("({text})")
            }
        };
        let join = |items: &[Cond], op: &str| {
            items
                .iter()
                .map(|c| match c {
                    // An atom needs no parentheses beside `and` / `or`.
                    Cond::Atom(_) => self.text(c),
                    _ => operand(c),
                })
                .collect::<Vec<_>>()
                .join(op)
        };
        match cond {
            Cond::True => "true".to_string(),
            Cond::Atom(a) => crate::runtime::atom_text(self.program, self.point, *a),
            Cond::Not(inner) => format!("not {}", operand(inner)),
            Cond::All(items) => join(items, " and "),
            Cond::Any(items) => join(items, " or "),
        }
    }
}

/// True when an atom is below `cond`.
fn has_atoms(cond: &Cond) -> bool {
    match cond {
        Cond::True => false,
        Cond::Atom(_) => true,
        Cond::Not(inner) => has_atoms(inner),
        Cond::All(items) | Cond::Any(items) => items.iter().any(has_atoms),
    }
}

/// True when an atom is below an explained condition.
fn explained_has_atoms(cond: &CondExplanation) -> bool {
    match cond {
        CondExplanation::True => false,
        CondExplanation::Atom { .. } => true,
        CondExplanation::Not { operand, .. } => explained_has_atoms(operand),
        CondExplanation::All { operands, .. } | CondExplanation::Any { operands, .. } => {
            operands.iter().any(explained_has_atoms)
        }
    }
}

/// The number of parts of an explained condition.
fn count_parts(cond: &CondExplanation, place: Place) -> usize {
    let own = usize::from(is_part(
        place,
        matches!(cond, CondExplanation::All { .. }),
        explained_has_atoms(cond),
    ));
    own + match cond {
        CondExplanation::True | CondExplanation::Atom { .. } => 0,
        CondExplanation::Not { operand, .. } => count_parts(operand, Place::UnderNot),
        CondExplanation::All { operands, .. } | CondExplanation::Any { operands, .. } => operands
            .iter()
            .map(|o| count_parts(o, Place::Operand))
            .sum(),
    }
}

/// Counts the value of every part of `cond` that was evaluated
/// (`evaluated`: the node's turn came), in [`Skeleton::visit`]'s order.
fn record_parts(
    cond: &CondExplanation,
    place: Place,
    evaluated: bool,
    next: &mut usize,
    parts: &mut [Part],
) {
    if is_part(
        place,
        matches!(cond, CondExplanation::All { .. }),
        explained_has_atoms(cond),
    ) {
        if let (true, Some(part)) = (evaluated, parts.get_mut(*next)) {
            if cond.value() {
                part.when_true += 1;
            } else {
                part.when_false += 1;
            }
        }
        *next += 1;
    }
    match cond {
        CondExplanation::True | CondExplanation::Atom { .. } => {}
        CondExplanation::Not { operand, .. } => {
            record_parts(operand, Place::UnderNot, evaluated, next, parts);
        }
        CondExplanation::All { operands, .. } => {
            // An `and` stops at its first false operand.
            let mut live = evaluated;
            for operand in operands {
                record_parts(operand, Place::Operand, live, next, parts);
                live &= operand.value();
            }
        }
        CondExplanation::Any { operands, .. } => {
            // An `or` stops at its first true operand.
            let mut live = evaluated;
            for operand in operands {
                record_parts(operand, Place::Operand, live, next, parts);
                live &= !operand.value();
            }
        }
    }
}

//! Semantic diff: where two rule sets answer an event differently.
//!
//! Two programs are compared point by point. At each point the enabled
//! rules of both (in execution order) are matched: by id, then, among the
//! rest, by meaning (a rule whose target, condition, actions, failure mode
//! and timeout are written the same way is the same rule under another
//! id). What is left is a set of [`Change`]s: rules changed, added,
//! removed, renamed, and pairs of rules whose order flipped.
//!
//! For every change the search looks for an event on which the two tables
//! answer differently ([`Difference`]): events that fire the changed rule,
//! that satisfy its new condition and not its old one (and the reverse),
//! that satisfy both conditions of a pair that changed order. The events
//! come from the [`Solver`] over the atoms of both programs merged into
//! one [`Space`] (an atom written the same way in both is one atom, so a
//! condition of one can be negated next to one of the other). Each is run
//! through both tables' dispatch (effects recorded, never run) and kept
//! only when the answers differ: the outcome, reason, value, decision,
//! final event (edits), log lines, added context or host outputs. Which
//! rules fired is shown but not compared: a rename changes no answer.
//!
//! A change without a counterexample is harmless when it is proven so: a
//! rename; a rule added or removed whose condition no event satisfies; a
//! condition rewritten whose old and new forms imply each other (both
//! differences proven empty, through the DFA products of their string
//! tests); two rules swapped that never fire on one event, or have the
//! same actions, and edit nothing. A point whose changes are all harmless
//! is equivalent; one with a change neither shown harmful nor proven
//! harmless is undecided, with that change named.

use super::solve::{Candidates, Solver, Space};
use crate::fql::FqlPattern;
use crate::ir::{Atom, Cond, PointProgram, Program, RegexSource, Rule};
use crate::{Effects, HookContext, Report, Table};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// The most events one query of a change runs through both tables.
const EVENTS_PER_QUERY: usize = 8;

/// The most times a query is tried again with the condition of a rule
/// that ended the chain first negated.
const MAX_AVOIDED: usize = 3;

/// The most pairs of rules that changed order looked at per point.
const MAX_SWAPS: usize = 32;

/// The comparison of two rule sets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    /// True when every point answers every event the same way.
    pub equivalent: bool,
    /// True when the two were compiled from sources whose text differs
    /// (both digests known): with `equivalent`, a rewrite that changes
    /// nothing (formatting, comments, files, names).
    pub sources_differ: bool,
    /// Per hook point with rules in either set, by name.
    pub points: Vec<PointDiff>,
}

/// The comparison at one hook point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PointDiff {
    /// The point's name.
    pub point: String,
    /// What the comparison found.
    pub status: Status,
    /// The rules that changed, and how.
    pub changes: Vec<Change>,
    /// Events on which the two answer differently, one per change shown
    /// harmful.
    pub differences: Vec<Difference>,
    /// The changes neither shown harmful nor proven harmless, each with
    /// what stopped the search.
    pub undecided: Vec<String>,
}

/// The verdict for a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The same rules, in the same order (ids aside).
    Same,
    /// Changed rules, every change proven to change no answer.
    Equivalent,
    /// An event is answered differently.
    Different,
    /// No event found that is answered differently, and no proof there is
    /// none.
    Undecided,
}

/// One change of the rules at a point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// What happened to the rule.
    pub kind: ChangeKind,
    /// The rule's id (in the new set, when it is there).
    pub rule: String,
    /// For a rename (or a rule renamed and changed), the old id; for a
    /// swap, the other rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other: Option<String>,
    /// For a changed rule, the parts that changed (`target`, `condition`,
    /// `actions`, `fail`, `timeout`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<&'static str>,
    /// Whether the change is proven to change no answer.
    pub harmless: bool,
}

/// How a rule changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// In the new set only.
    Added,
    /// In the old set only.
    Removed,
    /// In both, written differently.
    Changed,
    /// The same rule under another id.
    Renamed,
    /// Two rules that run in the other order.
    Swapped,
}

/// An event both tables answer, differently.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// The change it shows, as the human output names it.
    pub change: String,
    /// The event, as `hookc eval --event` reads it.
    pub event: Value,
    /// The old table's answer.
    pub old: Answer,
    /// The new table's answer.
    pub new: Answer,
}

/// What a table answers to an event: what a host sees of a dispatch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answer {
    /// `continue`, `skip`, `abort` or `ask`.
    pub outcome: crate::OutcomeKind,
    /// The reason of an abort or ask.
    pub reason: Option<String>,
    /// The result of a skip.
    pub value: Option<Value>,
    /// The combined decision.
    pub decision: Option<crate::Decision>,
    /// The event after the rules' edits.
    pub context: Value,
    /// `level: message` per log line (effects recorded show here too).
    pub logs: Vec<String>,
    /// Text added by `context` actions.
    pub additional_context: Vec<String>,
    /// Fields of the host's answer.
    pub outputs: serde_json::Map<String, Value>,
    /// The rules that fired (shown, not compared).
    pub fired: Vec<String>,
}

impl Answer {
    fn of(report: Report) -> Answer {
        Answer {
            outcome: report.outcome,
            reason: report.reason,
            value: report.value,
            decision: report.decision,
            context: serde_json::to_value(&report.context).unwrap_or(Value::Null),
            logs: report
                .logs
                .iter()
                .map(|l| format!("{}: {}", l.level.as_str(), l.message))
                .collect(),
            additional_context: report.additional_context,
            outputs: report.outputs,
            fired: report.fired,
        }
    }

    /// True when a host would see the same answer.
    fn same_as(&self, other: &Answer) -> bool {
        self.outcome == other.outcome
            && self.reason == other.reason
            && self.value == other.value
            && self.decision == other.decision
            && self.context == other.context
            && self.logs == other.logs
            && self.additional_context == other.additional_context
            && self.outputs == other.outputs
    }
}

/// Compares `old` with `new` at every point with rules in either. Each
/// event is run with a fresh `effects()`: they should record effects, not
/// run them.
pub fn diff(old: &Table, new: &Table, effects: &dyn Fn() -> Effects) -> Diff {
    let (old_program, new_program) = (old.program(), new.program());
    let names: BTreeSet<&str> = old_program
        .points
        .iter()
        .chain(&new_program.points)
        .map(|p| p.name.as_str())
        .collect();
    let points: Vec<PointDiff> = names
        .into_iter()
        .map(|name| {
            let old = Side::new(old, point_of(old_program, name));
            let new = Side::new(new, point_of(new_program, name));
            Comparison::new(name, old, new, effects).run()
        })
        .collect();
    let (a, b) = (&old_program.source_digest, &new_program.source_digest);
    Diff {
        sources_differ: !a.is_empty() && !b.is_empty() && a != b,
        equivalent: points
            .iter()
            .all(|p| matches!(p.status, Status::Same | Status::Equivalent)),
        points,
    }
}

/// The rules of `name` in `program`, if it has any.
fn point_of<'p>(program: &'p Program, name: &str) -> Option<&'p PointProgram> {
    program.points.iter().find(|p| p.name == name)
}

/// One table's rules at the point compared.
struct Side<'a> {
    table: &'a Table,
    program: &'a Program,
    point: Option<&'a PointProgram>,
    /// The enabled rules, in execution order.
    rules: Vec<&'a Rule>,
    /// Per atom of the point, how it is written, regexes and counters
    /// spelled out.
    atom_keys: Vec<String>,
}

impl<'a> Side<'a> {
    fn new(table: &'a Table, point: Option<&'a PointProgram>) -> Side<'a> {
        let program = table.program();
        let rules = point.map_or_else(Vec::new, |p| p.rules.iter().filter(|r| r.enabled).collect());
        let atom_keys = point.map_or_else(Vec::new, |p| {
            p.atoms
                .iter()
                .map(|a| canonical(&format!("{a:?}"), program))
                .collect()
        });
        Side {
            table,
            program,
            point,
            rules,
            atom_keys,
        }
    }

    /// The parts of rule `i` as written: target, condition, actions,
    /// failure mode and timeout.
    fn parts(&self, i: usize) -> [String; 5] {
        let Some(rule) = self.rules.get(i) else {
            return Default::default();
        };
        [
            rule.target.to_string(),
            cond_key(&rule.cond, &self.atom_keys),
            canonical(&format!("{:?}", rule.actions), self.program),
            format!("{:?}", rule.fail),
            format!("{:?}", rule.timeout_ms),
        ]
    }

    /// The id of rule `i`.
    fn id(&self, i: usize) -> &str {
        self.rules.get(i).map_or("?", |r| r.id.as_str())
    }

    /// The position of the rule with id `id`, if enabled.
    fn position(&self, id: &str) -> Option<usize> {
        self.rules.iter().position(|r| r.id == id)
    }
}

/// The names of the parts [`Side::parts`] lists.
const PART_NAMES: [&str; 5] = ["target", "condition", "actions", "fail", "timeout"];

/// A `Debug` rendering with each regex id replaced by the regex (pattern
/// and flags) and each rate counter's number dropped (the key and window
/// it is made from are shown): so that the same text in two programs,
/// which number their regexes and counters each their own way, reads the
/// same.
fn canonical(debug: &str, program: &Program) -> String {
    static IDS: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let Some(ids) = IDS
        .get_or_init(|| regex::Regex::new(r"RegexId\((\d+)\)|counter: (\d+)").ok())
        .as_ref()
    else {
        return debug.to_string();
    };
    ids.replace_all(debug, |caps: &regex::Captures<'_>| match caps.get(1) {
        Some(id) => {
            let source = id
                .as_str()
                .parse::<usize>()
                .ok()
                .and_then(|i| program.regexes.get(i));
            format!("Regex({source:?})")
        }
        None => "counter: _".to_string(),
    })
    .into_owned()
}

/// A condition written with its atoms' keys.
fn cond_key(cond: &Cond, keys: &[String]) -> String {
    let list = |parts: &[Cond]| {
        parts
            .iter()
            .map(|p| cond_key(p, keys))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match cond {
        Cond::True => "true".into(),
        Cond::Atom(a) => keys.get(*a as usize).cloned().unwrap_or_default(),
        Cond::Not(inner) => format!("not({})", cond_key(inner, keys)),
        Cond::All(parts) => format!("all({})", list(parts)),
        Cond::Any(parts) => format!("any({})", list(parts)),
    }
}

/// `cond` with its atom numbers mapped through `map`.
fn remap(cond: &Cond, map: &[u32]) -> Cond {
    match cond {
        Cond::True => Cond::True,
        Cond::Atom(a) => Cond::Atom(map.get(*a as usize).copied().unwrap_or(u32::MAX)),
        Cond::Not(inner) => Cond::Not(Box::new(remap(inner, map))),
        Cond::All(parts) => Cond::All(parts.iter().map(|p| remap(p, map)).collect()),
        Cond::Any(parts) => Cond::Any(parts.iter().map(|p| remap(p, map)).collect()),
    }
}

/// The atoms of both sides as one space, and for each side its atoms'
/// numbers there. An atom with the same key on both sides is one atom; a
/// `matches` atom's regex is copied into the space's list.
fn merge(name: &str, sides: [&Side<'_>; 2]) -> (Space, [Vec<u32>; 2]) {
    let mut space = Space {
        point: name.to_string(),
        atoms: Vec::new(),
        texts: Vec::new(),
        regexes: Vec::new(),
    };
    let mut keys: HashMap<&str, u32> = HashMap::new();
    let mut maps: [Vec<u32>; 2] = Default::default();
    for (side, map) in sides.into_iter().zip(maps.iter_mut()) {
        let Some(point) = side.point else { continue };
        for (i, atom) in point.atoms.iter().enumerate() {
            let key = side.atom_keys.get(i).map_or("", String::as_str);
            if let Some(&at) = keys.get(key) {
                map.push(at);
                continue;
            }
            let atom = match atom {
                Atom::Matches(path, re) => {
                    let source: Option<&RegexSource> = side.program.regexes.get(re.0 as usize);
                    let id = match source {
                        Some(source) => match space.regexes.iter().position(|r| r == source) {
                            Some(at) => at,
                            None => {
                                space.regexes.push(source.clone());
                                space.regexes.len() - 1
                            }
                        },
                        None => usize::MAX,
                    };
                    Atom::Matches(path.clone(), crate::ir::RegexId(id as u32))
                }
                // An expression keeps its side's regex numbers: the solver
                // does not evaluate expressions, and its text is kept.
                other => other.clone(),
            };
            map.push(space.atoms.len() as u32);
            keys.insert(key, space.atoms.len() as u32);
            space.atoms.push(atom);
            space
                .texts
                .push(crate::runtime::atom_text(side.program, point, i as u32));
        }
    }
    (space, maps)
}

/// A rule of one side, by its position in [`Side::rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    Old(usize),
    New(usize),
}

/// A change with the rules it is about.
struct Found {
    change: Change,
    rules: Vec<At>,
}

/// The comparison of one point.
struct Comparison<'a> {
    name: &'a str,
    old: Side<'a>,
    new: Side<'a>,
    space: Space,
    maps: [Vec<u32>; 2],
    effects: &'a dyn Fn() -> Effects,
}

impl<'a> Comparison<'a> {
    fn new(
        name: &'a str,
        old: Side<'a>,
        new: Side<'a>,
        effects: &'a dyn Fn() -> Effects,
    ) -> Comparison<'a> {
        let (space, maps) = merge(name, [&old, &new]);
        Comparison {
            name,
            old,
            new,
            space,
            maps,
            effects,
        }
    }

    fn run(self) -> PointDiff {
        let changes = self.changes();
        let mut solver = Solver::new(&self.space);
        let mut out = PointDiff {
            point: self.name.to_string(),
            status: Status::Same,
            changes: Vec::new(),
            differences: Vec::new(),
            undecided: Vec::new(),
        };
        for mut found in changes {
            found.change.harmless = self.harmless(&mut solver, &found);
            if !found.change.harmless {
                match self.counterexample(&mut solver, &found) {
                    Ok(difference) => out.differences.push(difference),
                    Err(why) => out
                        .undecided
                        .push(format!("{}: {why}", label(&found.change))),
                }
            }
            out.changes.push(found.change);
        }
        out.status = if !out.differences.is_empty() {
            Status::Different
        } else if !out.undecided.is_empty() {
            Status::Undecided
        } else if out.changes.iter().all(|c| c.kind == ChangeKind::Renamed) {
            Status::Same
        } else {
            Status::Equivalent
        };
        out
    }

    /// The changes from the old rules to the new: matched by id, then by
    /// meaning; then the pairs whose order flipped.
    fn changes(&self) -> Vec<Found> {
        // The parts of each rule not matched yet (`None` once matched).
        let mut old_left: Vec<Option<[String; 5]>> = (0..self.old.rules.len())
            .map(|i| Some(self.old.parts(i)))
            .collect();
        let mut new_left: Vec<Option<[String; 5]>> = (0..self.new.rules.len())
            .map(|i| Some(self.new.parts(i)))
            .collect();
        // (old, new) positions of the rules in both.
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut found = Vec::new();
        let change = |kind, rule: &str, other: Option<&str>, parts: Vec<&'static str>| Change {
            kind,
            rule: rule.to_string(),
            other: other.map(str::to_string),
            parts,
            harmless: false,
        };
        for (n, slot) in new_left.iter_mut().enumerate() {
            let id = self.new.id(n);
            let Some(o) = self.old.position(id) else {
                continue;
            };
            let (Some(old), Some(new)) = (old_left.get_mut(o).and_then(Option::take), slot.take())
            else {
                continue;
            };
            pairs.push((o, n));
            let parts: Vec<&'static str> = PART_NAMES
                .iter()
                .zip(old.iter().zip(&new))
                .filter(|(_, (a, b))| a != b)
                .map(|(name, _)| *name)
                .collect();
            if !parts.is_empty() {
                found.push(Found {
                    change: change(ChangeKind::Changed, id, None, parts),
                    rules: vec![At::Old(o), At::New(n)],
                });
            }
        }
        for (n, slot) in new_left.iter_mut().enumerate() {
            let Some(parts) = slot.as_ref() else { continue };
            let twin = old_left.iter().position(|o| o.as_ref() == Some(parts));
            if let Some(o) = twin {
                if let Some(old) = old_left.get_mut(o) {
                    *old = None;
                }
                *slot = None;
                pairs.push((o, n));
                found.push(Found {
                    change: change(
                        ChangeKind::Renamed,
                        self.new.id(n),
                        Some(self.old.id(o)),
                        Vec::new(),
                    ),
                    rules: vec![At::Old(o), At::New(n)],
                });
            }
        }
        // A rule renamed and rewritten: the same target, actions, failure
        // mode and timeout, another condition.
        for (n, slot) in new_left.iter_mut().enumerate() {
            let Some(parts) = slot.as_ref() else { continue };
            let Some(o) = old_left.iter().position(|o| {
                o.as_ref().is_some_and(|o| {
                    o.iter()
                        .zip(parts)
                        .zip(PART_NAMES)
                        .all(|((a, b), name)| name == "condition" || a == b)
                })
            }) else {
                continue;
            };
            if let Some(old) = old_left.get_mut(o) {
                *old = None;
            }
            *slot = None;
            pairs.push((o, n));
            found.push(Found {
                change: change(
                    ChangeKind::Changed,
                    self.new.id(n),
                    Some(self.old.id(o)),
                    vec!["condition"],
                ),
                rules: vec![At::Old(o), At::New(n)],
            });
        }
        for (n, slot) in new_left.iter().enumerate() {
            if slot.is_some() {
                found.push(Found {
                    change: change(ChangeKind::Added, self.new.id(n), None, Vec::new()),
                    rules: vec![At::New(n)],
                });
            }
        }
        for (o, slot) in old_left.iter().enumerate() {
            if slot.is_some() {
                found.push(Found {
                    change: change(ChangeKind::Removed, self.old.id(o), None, Vec::new()),
                    rules: vec![At::Old(o)],
                });
            }
        }
        // Pairs in the old order; a flip is a later pair with an earlier
        // new position.
        pairs.sort_unstable();
        let mut swaps = 0;
        'flips: for (i, &(oa, na)) in pairs.iter().enumerate() {
            for &(ob, nb) in pairs.iter().skip(i + 1) {
                if nb < na {
                    if swaps >= MAX_SWAPS {
                        break 'flips;
                    }
                    swaps += 1;
                    found.push(Found {
                        change: change(
                            ChangeKind::Swapped,
                            self.new.id(nb),
                            Some(self.new.id(na)),
                            Vec::new(),
                        ),
                        rules: vec![At::Old(oa), At::Old(ob), At::New(na), At::New(nb)],
                    });
                }
            }
        }
        found
    }

    /// The rule at `at`, its target and its condition in the merged space.
    fn rule(&self, at: At) -> Option<(&'a Rule, Cond)> {
        let (side, map, i) = match at {
            At::Old(i) => (&self.old, &self.maps[0], i),
            At::New(i) => (&self.new, &self.maps[1], i),
        };
        let rule = *side.rules.get(i)?;
        Some((rule, remap(&rule.cond, map)))
    }

    /// Whether `found` is proven to change no answer.
    fn harmless(&self, solver: &mut Solver<'_>, found: &Found) -> bool {
        let rules: Vec<(&Rule, Cond)> =
            found.rules.iter().filter_map(|&at| self.rule(at)).collect();
        let never = |solver: &mut Solver<'_>, (rule, cond): &(&Rule, Cond)| {
            solver.never(&rule.target, cond)
        };
        match (found.change.kind, rules.as_slice()) {
            (ChangeKind::Renamed, _) => true,
            (ChangeKind::Added | ChangeKind::Removed, [one]) => never(solver, one),
            (ChangeKind::Changed, [(old, old_cond), (new, new_cond)]) => {
                if found.change.parts == ["condition"] {
                    let gained = Cond::All(vec![
                        new_cond.clone(),
                        Cond::Not(Box::new(old_cond.clone())),
                    ]);
                    let lost = Cond::All(vec![
                        old_cond.clone(),
                        Cond::Not(Box::new(new_cond.clone())),
                    ]);
                    solver.never(&new.target, &gained) && solver.never(&old.target, &lost)
                } else {
                    solver.never(&old.target, old_cond) && solver.never(&new.target, new_cond)
                }
            }
            (ChangeKind::Swapped, [(a, a_cond), (b, b_cond), ..]) => {
                let inert = inert(a) && inert(b);
                // Both are old rules: their regex numbers are one program's.
                let same_actions = a.actions == b.actions;
                let both = Cond::All(vec![a_cond.clone(), b_cond.clone()]);
                inert
                    && (same_actions
                        || !targets_meet(&a.target, &b.target)
                        || solver.never(&a.target, &both))
            }
            _ => false,
        }
    }

    /// An event the two tables answer differently that shows `found`, or
    /// what stopped the search.
    fn counterexample(&self, solver: &mut Solver<'_>, found: &Found) -> Result<Difference, String> {
        let rules: Vec<(&Rule, Cond)> =
            found.rules.iter().filter_map(|&at| self.rule(at)).collect();
        let not = |c: &Cond| Cond::Not(Box::new(c.clone()));
        let mut queries: Vec<(&FqlPattern, Cond)> = Vec::new();
        match (found.change.kind, rules.as_slice()) {
            (ChangeKind::Changed, [(old, old_cond), (new, new_cond)]) => {
                queries.push((
                    &new.target,
                    Cond::All(vec![new_cond.clone(), not(old_cond)]),
                ));
                queries.push((
                    &old.target,
                    Cond::All(vec![old_cond.clone(), not(new_cond)]),
                ));
                queries.push((&new.target, new_cond.clone()));
                queries.push((&old.target, old_cond.clone()));
            }
            (ChangeKind::Swapped, [(a, a_cond), (b, b_cond), ..]) => {
                let both = Cond::All(vec![a_cond.clone(), b_cond.clone()]);
                queries.push((&a.target, both.clone()));
                queries.push((&b.target, both));
            }
            (_, list) => {
                queries.extend(list.iter().map(|(rule, cond)| (&rule.target, cond.clone())))
            }
        }
        let mut reasons: Vec<String> = Vec::new();
        let mut runs = 0;
        for (target, cond) in queries {
            let mut avoided: Vec<Cond> = Vec::new();
            for _ in 0..=MAX_AVOIDED {
                let mut parts = vec![cond.clone()];
                parts.extend(avoided.iter().map(not));
                let Candidates {
                    events,
                    proof,
                    reasons: why,
                } = solver.candidates(target, &Cond::All(parts), EVENTS_PER_QUERY);
                if proof.is_some() {
                    break;
                }
                reasons.extend(why);
                let mut enders = Vec::new();
                for (event, notes) in events {
                    runs += 1;
                    let (old, new) = match (
                        self.answer(&self.old, &event),
                        self.answer(&self.new, &event),
                    ) {
                        (Ok(old), Ok(new)) => (old, new),
                        (Err(why), _) | (_, Err(why)) => {
                            reasons.push(why);
                            continue;
                        }
                    };
                    if !old.same_as(&new) {
                        return Ok(Difference {
                            change: label(&found.change),
                            event,
                            old,
                            new,
                        });
                    }
                    reasons.extend(notes);
                    enders.extend(self.ender(&old, At::Old));
                    enders.extend(self.ender(&new, At::New));
                }
                let fresh: Vec<Cond> = enders
                    .into_iter()
                    .filter(|at| !found.rules.contains(at))
                    .filter_map(|at| self.rule(at).map(|(_, c)| c))
                    .filter(|c| !avoided.contains(c))
                    .collect();
                match fresh.into_iter().next() {
                    Some(c) => avoided.push(c),
                    None => break,
                }
            }
        }
        let mut unique: Vec<String> = Vec::new();
        for why in reasons {
            if !unique.contains(&why) {
                unique.push(why);
            }
        }
        unique.truncate(2);
        let events = if runs == 1 { "event" } else { "events" };
        let mut why = format!(
            "{runs} {events} tried, none answered differently, and no proof the change is harmless"
        );
        if !unique.is_empty() {
            why.push_str(&format!(" ({})", unique.join("; ")));
        }
        Err(why)
    }

    /// The rule that ended the chain in `answer`, if one did.
    fn ender(&self, answer: &Answer, at: fn(usize) -> At) -> Option<At> {
        if answer.outcome == crate::OutcomeKind::Continue {
            return None;
        }
        let side = match at(0) {
            At::Old(_) => &self.old,
            At::New(_) => &self.new,
        };
        answer.fired.last().and_then(|id| side.position(id)).map(at)
    }

    /// `event` run through `side`'s table.
    fn answer(&self, side: &Side<'_>, event: &Value) -> Result<Answer, String> {
        let mut ctx: HookContext = serde_json::from_value(event.clone())
            .map_err(|e| format!("the event built is not a hook context: {e}"))?;
        let effects = (self.effects)();
        Ok(Answer::of(
            side.table.dispatch_context_with(&mut ctx, &effects),
        ))
    }
}

/// The change in a few words: "`a` changed (condition)".
fn label(change: &Change) -> String {
    let other = change.other.as_deref().unwrap_or("?");
    match change.kind {
        ChangeKind::Added => format!("`{}` added", change.rule),
        ChangeKind::Removed => format!("`{}` removed", change.rule),
        ChangeKind::Changed => match &change.other {
            Some(was) => format!(
                "`{}` (was `{was}`) changed ({})",
                change.rule,
                change.parts.join(", ")
            ),
            None => format!("`{}` changed ({})", change.rule, change.parts.join(", ")),
        },
        ChangeKind::Renamed => format!("`{other}` renamed `{}`", change.rule),
        ChangeKind::Swapped => format!("`{}` now runs before `{other}`", change.rule),
    }
}

/// True for a rule whose actions change nothing a later rule reads: no
/// edit, and no effect whose reply could make one.
fn inert(rule: &Rule) -> bool {
    rule.actions
        .iter()
        .all(|a| a.edited_root().is_none() && !a.is_effect())
}

/// False when no component can match both patterns.
fn targets_meet(a: &FqlPattern, b: &FqlPattern) -> bool {
    let meet = |x: Option<&str>, y: Option<&str>| match (x, y) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    };
    meet(a.scope.exact(), b.scope.exact()) && meet(a.target.exact(), b.target.exact())
}

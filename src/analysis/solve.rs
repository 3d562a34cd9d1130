//! Events that satisfy a condition: the search [`super::witness`] and
//! [`super::diff`] share.
//!
//! A condition (a boolean tree over atoms, [`Cond`]) is listed as the ways
//! it can hold ([`conjunctions`]: conjunctions of atoms and negated
//! atoms), and for each the [`Solver`] gives every field its atoms test a
//! value that satisfies them: the constant of `==` and `in`, a number
//! inside the bounds of the comparisons, for string tests (`contains`,
//! `starts_with`, `ends_with`, `matches`, globs) a shortest string in the
//! intersection of their languages and outside those of the negated ones
//! ([`crate::strings`]), nothing at all where only negations test a field.
//! The target comes from the rule's FQL pattern ([`build_event`]).
//!
//! The atoms live in a [`Space`]: those of one point of one program, or
//! (for a diff) those of a point in two programs, merged so that an atom
//! written the same way in both is one atom.

use crate::fql::{FqlPattern, Segment as FqlSegment};
use crate::ir::{Atom, CmpOp, Cond, FieldPath, PointProgram, Program, RegexSource, Root, Segment};
use crate::strings::{self, Lang, Search};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// The most conjunctions of a condition the search looks at.
const MAX_CONJUNCTIONS: usize = 64;

/// The most alternatives of one field tried.
const MAX_ALTERNATIVES: usize = 4;

/// An atom and whether it must hold (`true`) or not.
pub type Literal = (u32, bool);

/// The ways a condition can hold, each a conjunction of literals without a
/// contradiction, and whether the list is whole (not cut at
/// `MAX_CONJUNCTIONS`, 64).
pub fn conjunctions(cond: &Cond, holds: bool) -> (Vec<Vec<Literal>>, bool) {
    match (cond, holds) {
        (Cond::True, true) => (vec![Vec::new()], true),
        (Cond::True, false) => (Vec::new(), true),
        (Cond::Atom(a), _) => (vec![vec![(*a, holds)]], true),
        (Cond::Not(inner), _) => conjunctions(inner, !holds),
        (Cond::All(parts), true) | (Cond::Any(parts), false) => {
            let mut acc: Vec<Vec<Literal>> = vec![Vec::new()];
            let mut whole = true;
            for part in parts {
                let (options, part_whole) = conjunctions(part, holds);
                whole &= part_whole;
                let mut next = Vec::new();
                'product: for left in &acc {
                    for right in &options {
                        if let Some(joined) = join(left, right) {
                            if next.len() >= MAX_CONJUNCTIONS {
                                whole = false;
                                break 'product;
                            }
                            next.push(joined);
                        }
                    }
                }
                acc = next;
            }
            (acc, whole)
        }
        (Cond::Any(parts), true) | (Cond::All(parts), false) => {
            let mut acc = Vec::new();
            let mut whole = true;
            for part in parts {
                let (options, part_whole) = conjunctions(part, holds);
                whole &= part_whole;
                for option in options {
                    if acc.len() >= MAX_CONJUNCTIONS {
                        return (acc, false);
                    }
                    acc.push(option);
                }
            }
            (acc, whole)
        }
    }
}

/// Two conjunctions as one; `None` when an atom would have to be both.
fn join(left: &[Literal], right: &[Literal]) -> Option<Vec<Literal>> {
    let mut out = left.to_vec();
    for &(atom, holds) in right {
        match out.iter().find(|(a, _)| *a == atom) {
            Some(&(_, h)) if h != holds => return None,
            Some(_) => {}
            None => out.push((atom, holds)),
        }
    }
    Some(out)
}

/// How the search of one conjunction went.
enum Solved {
    /// Values to try, per field (the first of each first), and what the
    /// search left to the dispatch (expression and rate atoms).
    Choices(Vec<(FieldPath, Vec<Option<Value>>)>, Vec<String>),
    /// No event satisfies it: the proof.
    Unsat(String),
    /// No values were found; the reason.
    Unknown(String),
}

/// Why a field has no value.
enum NoValue {
    /// None exists: the proof.
    Proven(String),
    /// None was found: the reason.
    Unknown(String),
}

/// The atoms a search reads: the condition's leaves, how each is written,
/// and the regexes `matches` atoms refer to.
#[derive(Clone, Debug)]
pub struct Space {
    /// The hook point's name.
    pub point: String,
    /// The atoms; a [`Cond::Atom`] is an index here.
    pub atoms: Vec<Atom>,
    /// Each atom as written, for reasons and proofs.
    pub texts: Vec<String>,
    /// The regexes of the `matches` atoms.
    pub regexes: Vec<RegexSource>,
}

impl Space {
    /// The atoms of `point` in `program`.
    pub fn of(program: &Program, point: &PointProgram) -> Space {
        let texts = (0..point.atoms.len())
            .map(|i| crate::runtime::atom_text(program, point, i as u32))
            .collect();
        Space {
            point: point.name.clone(),
            atoms: point.atoms.clone(),
            texts,
            regexes: program.regexes.clone(),
        }
    }

    /// The atom `index` as written, shortened for a message.
    fn text(&self, index: u32) -> String {
        let text = self.texts.get(index as usize).map_or("?", String::as_str);
        crate::diag::escape::shorten(text, 80).into_owned()
    }
}

/// The events found for a condition.
#[derive(Debug, Default)]
pub struct Candidates {
    /// Events that satisfy the condition's field tests, each with what the
    /// search left to the dispatch (expressions, `rate(…)` counts).
    pub events: Vec<(Value, Vec<String>)>,
    /// Set when no event satisfies the condition: the proof.
    pub proof: Option<String>,
    /// Why some ways the condition can hold gave no event.
    pub reasons: Vec<String>,
}

/// Finds values for the fields of conjunctions, in one [`Space`].
#[derive(Debug)]
pub struct Solver<'a> {
    space: &'a Space,
    regexes: HashMap<u32, Option<regex::Regex>>,
    automata: strings::Automata,
}

impl<'a> Solver<'a> {
    /// A solver over the atoms of `space`.
    pub fn new(space: &'a Space) -> Solver<'a> {
        Solver {
            space,
            regexes: HashMap::new(),
            automata: strings::Automata::default(),
        }
    }

    /// Events of the solver's point and a component `target` matches, at
    /// most `limit`, on which `cond` holds as far as field tests tell; or
    /// the proof that `cond` holds on none.
    pub fn candidates(&mut self, target: &FqlPattern, cond: &Cond, limit: usize) -> Candidates {
        let (options, whole) = conjunctions(cond, true);
        let mut found = Candidates::default();
        let mut proofs = Vec::new();
        for conj in &options {
            match self.solve(target, conj) {
                Solved::Unsat(why) => proofs.push(why),
                Solved::Unknown(why) => found.reasons.push(why),
                Solved::Choices(fields, notes) => {
                    for values in alternatives(&fields) {
                        if found.events.len() >= limit {
                            break;
                        }
                        match build_event(&self.space.point, target, &values) {
                            Ok(event) => found.events.push((event, notes.clone())),
                            Err(why) => found.reasons.push(why),
                        }
                    }
                }
            }
        }
        if whole && proofs.len() == options.len() {
            found.proof =
                Some(proofs.into_iter().next().unwrap_or_else(|| {
                    "its condition is false whatever its parts are".to_string()
                }));
        }
        found
    }

    /// True when `cond` is proven to hold on no event.
    pub fn never(&mut self, target: &FqlPattern, cond: &Cond) -> bool {
        self.candidates(target, cond, 0).proof.is_some()
    }

    /// Values for the fields of one conjunction.
    fn solve(&mut self, target: &FqlPattern, conj: &[Literal]) -> Solved {
        let mut fields: BTreeMap<FieldPath, (Vec<&Atom>, Vec<&Atom>)> = BTreeMap::new();
        let mut notes = Vec::new();
        for &(index, holds) in conj {
            let space = self.space;
            let Some(atom) = space.atoms.get(index as usize) else {
                return Solved::Unknown("an atom is missing from the program".into());
            };
            match atom.field() {
                Some(path) => {
                    let entry = fields.entry(path.clone()).or_default();
                    if holds {
                        entry.0.push(atom);
                    } else {
                        entry.1.push(atom);
                    }
                }
                None => {
                    let text = self.space.text(index);
                    let what = if matches!(atom, Atom::Rate(_)) {
                        "a `rate(…)` count, which one event does not set"
                    } else {
                        "an expression the search does not solve"
                    };
                    let must = if holds { "true" } else { "false" };
                    notes.push(format!("`{text}` must be {must}: {what}"));
                }
            }
        }
        let mut choices = Vec::new();
        for (path, (pos, neg)) in fields {
            match self.values(target, &path, &pos, &neg) {
                Ok(values) => choices.push((path, values)),
                Err(NoValue::Proven(why)) => {
                    return Solved::Unsat(format!("{why}: {}", self.tests(conj, &path)))
                }
                Err(NoValue::Unknown(why)) => return Solved::Unknown(why),
            }
        }
        Solved::Choices(choices, notes)
    }

    /// The tests of `path` in `conj`, as written (`not` before those that
    /// must not hold).
    fn tests(&self, conj: &[Literal], path: &FieldPath) -> String {
        let texts: Vec<String> = conj
            .iter()
            .filter(|(a, _)| {
                self.space
                    .atoms
                    .get(*a as usize)
                    .and_then(Atom::field)
                    .is_some_and(|p| p == path)
            })
            .map(|&(a, holds)| {
                let text = self.space.text(a);
                if holds {
                    format!("`{text}`")
                } else {
                    format!("not `{text}`")
                }
            })
            .collect();
        texts.join(", ")
    }

    /// Values of `path` (`None`: absent) for which every atom of `pos`
    /// holds and none of `neg`, best first.
    fn values(
        &mut self,
        target: &FqlPattern,
        path: &FieldPath,
        pos: &[&Atom],
        neg: &[&Atom],
    ) -> Result<Vec<Option<Value>>, NoValue> {
        // `complete`: the candidates are all the values that can satisfy
        // `pos`, so none passing is a proof.
        let (candidates, complete): (Vec<Option<Value>>, bool) = if path.root == Root::Point {
            let point = path
                .segments
                .is_empty()
                .then(|| Value::from(self.space.point.as_str()));
            (vec![point], true)
        } else if let Some(value) = pos.iter().find_map(|a| match a {
            Atom::Eq(_, v) => Some(v),
            _ => None,
        }) {
            if value.is_null() {
                (vec![None, Some(Value::Null)], true)
            } else {
                (vec![Some(value.clone())], true)
            }
        } else if let Some(values) = pos.iter().find_map(|a| match a {
            Atom::In(_, vs) => Some(vs),
            _ => None,
        }) {
            (values.iter().cloned().map(Some).collect(), true)
        } else if pos.iter().any(|a| matches!(a, Atom::Cmp(..))) {
            (
                numbers(path, pos, neg)?.into_iter().map(Some).collect(),
                false,
            )
        } else if pos.iter().any(|a| is_text_test(a)) {
            (self.texts(path, pos, neg)?, false)
        } else {
            let mut values = Vec::new();
            if pos.is_empty() {
                values.push(None);
            }
            let langs: Vec<Lang> = neg
                .iter()
                .filter_map(|a| self.lang(a))
                .map(Lang::complement)
                .collect();
            if let Search::Found(texts) = strings::shortest(&mut self.automata, &langs, 2, |_| true)
            {
                values.extend(texts.into_iter().map(|t| Some(Value::from(t))));
            }
            values.extend(
                [Value::from("x"), Value::from(1), Value::Bool(true)]
                    .into_iter()
                    .map(Some),
            );
            (values, false)
        };
        let mut undecidable = path.normalized;
        let mut passing = Vec::new();
        for candidate in candidates {
            let candidate = present(&self.space.point, target, path, candidate);
            if !fits(target, path, candidate.as_ref()) {
                continue;
            }
            let mut ok = true;
            for (atom, want) in pos
                .iter()
                .map(|a| (a, true))
                .chain(neg.iter().map(|a| (a, false)))
            {
                match self.holds(atom, candidate.as_ref()) {
                    Some(h) if h != want => ok = false,
                    Some(_) => {}
                    None => undecidable = true,
                }
            }
            if ok && !passing.contains(&candidate) {
                passing.push(candidate);
            }
        }
        if passing.is_empty() {
            let why = format!("no value of `{path}` passes all of its tests");
            return Err(if complete && !undecidable {
                NoValue::Proven(why)
            } else {
                NoValue::Unknown(why)
            });
        }
        Ok(passing)
    }

    /// Strings for a field that string tests must hold on.
    fn texts(
        &mut self,
        path: &FieldPath,
        pos: &[&Atom],
        neg: &[&Atom],
    ) -> Result<Vec<Option<Value>>, NoValue> {
        // `contains` a non-string is an element of an array.
        let elements: Vec<Value> = pos
            .iter()
            .filter_map(|a| match a {
                Atom::Contains(_, v) if !v.is_string() => Some(v.clone()),
                Atom::ContainsAny(_, vs) => vs.iter().find(|v| !v.is_string()).cloned(),
                _ => None,
            })
            .collect();
        if !elements.is_empty() {
            return Ok(vec![Some(Value::Array(elements))]);
        }
        let mut langs = Vec::new();
        for atom in pos {
            if let Some(lang) = self.lang(atom) {
                langs.push(lang);
            }
        }
        for atom in neg {
            if let Some(lang) = self.lang(atom) {
                langs.push(lang.complement());
            }
        }
        let normalized = path.normalized;
        let found = strings::shortest(&mut self.automata, &langs, 6, |text| {
            !normalized || crate::paths::normalize(text) == text
        });
        match found {
            Search::Found(texts) => Ok(texts.into_iter().map(|t| Some(Value::from(t))).collect()),
            Search::Empty => {
                let why = format!("no string `{path}` passes all of its tests");
                // `contains` alone may hold on an array or an object: only
                // tests that need a string prove anything.
                let string_only = pos.iter().any(|a| {
                    matches!(
                        a,
                        Atom::StartsWith(..) | Atom::EndsWith(..) | Atom::Matches(..)
                    )
                });
                if string_only && !normalized {
                    return Err(NoValue::Proven(why));
                }
                // An array of the needles: `contains` holds on it where the
                // tests that need a string do not.
                let needles: Vec<Value> = pos
                    .iter()
                    .filter_map(|a| match a {
                        Atom::Contains(_, v) => Some(v.clone()),
                        Atom::ContainsAny(_, vs) => vs.first().cloned(),
                        _ => None,
                    })
                    .collect();
                if string_only || needles.is_empty() {
                    Err(NoValue::Unknown(why))
                } else {
                    Ok(vec![Some(Value::Array(needles))])
                }
            }
            Search::GaveUp(why) if !neg.is_empty() => {
                // A negated language can be too large for a DFA (the
                // complement of `.*a.{n}` needs a state per subset of the
                // last n positions): search the wanted languages alone,
                // and reject the strings a negated test holds on, by the
                // test itself. What this finds is no proof either way.
                let wanted: Vec<Lang> = pos.iter().filter_map(|a| self.lang(a)).collect();
                let regexes: Vec<Option<regex::Regex>> = neg
                    .iter()
                    .map(|a| match a {
                        Atom::Matches(_, re) => self.regex(re.0).cloned(),
                        _ => None,
                    })
                    .collect();
                let found = strings::shortest(&mut self.automata, &wanted, 6, |text| {
                    (!normalized || crate::paths::normalize(text) == text)
                        && neg
                            .iter()
                            .zip(&regexes)
                            .all(|(atom, re)| !text_holds(atom, text, re.as_ref()))
                });
                match found {
                    Search::Found(texts) => {
                        Ok(texts.into_iter().map(|t| Some(Value::from(t))).collect())
                    }
                    _ => Err(NoValue::Unknown(format!("`{path}`: {why}"))),
                }
            }
            Search::GaveUp(why) => Err(NoValue::Unknown(format!("`{path}`: {why}"))),
        }
    }

    /// The language of the strings a string test holds on.
    fn lang(&self, atom: &Atom) -> Option<Lang> {
        match atom {
            Atom::Contains(_, Value::String(s)) => Some(Lang::containing(s)),
            Atom::ContainsAny(_, vs) if vs.iter().all(Value::is_string) => {
                let needles: Vec<&str> = vs.iter().filter_map(Value::as_str).collect();
                Some(Lang::containing_any(&needles))
            }
            Atom::StartsWith(_, s) => Some(Lang::starting_with(s)),
            Atom::EndsWith(_, s) => Some(Lang::ending_with(s)),
            Atom::Matches(_, re) => {
                let source = self.space.regexes.get(re.0 as usize)?;
                Some(Lang::matching(&source.to_inline()))
            }
            _ => None,
        }
    }

    /// Whether a field atom holds when its field is `value`, as the
    /// dispatch decides it; `None` when this cannot tell.
    fn holds(&mut self, atom: &Atom, value: Option<&Value>) -> Option<bool> {
        let path = atom.field()?;
        let normalized;
        let value = match value {
            Some(Value::String(s)) if path.normalized && path.root == Root::Payload => {
                if crate::paths::is_windows_shaped(s) {
                    return None;
                }
                normalized = Value::from(crate::paths::normalize(s).into_owned());
                Some(&normalized)
            }
            other => other,
        };
        let text = || value.and_then(Value::as_str);
        Some(match atom {
            Atom::Eq(_, v) => value.map_or(v.is_null(), |x| crate::event::json_eq(x, v)),
            Atom::In(_, vs) => {
                value.is_some_and(|x| vs.iter().any(|v| crate::event::json_eq(x, v)))
            }
            Atom::Cmp(_, op, n) => value
                .and_then(Value::as_f64)
                .is_some_and(|x| op.test(x, *n)),
            Atom::Contains(_, needle) => value.is_some_and(|x| contains(x, needle)),
            Atom::ContainsAny(_, needles) => {
                value.is_some_and(|x| needles.iter().any(|n| contains(x, n)))
            }
            Atom::StartsWith(_, s) => text().is_some_and(|t| t.starts_with(s.as_str())),
            Atom::EndsWith(_, s) => text().is_some_and(|t| t.ends_with(s.as_str())),
            Atom::Matches(_, re) => match text() {
                None => false,
                Some(t) => self.regex(re.0)?.is_match(t),
            },
            Atom::Exists(_) => value.is_some(),
            Atom::Rate(_) | Atom::Expr(_) => return None,
        })
    }

    /// The regex `id`, compiled once.
    fn regex(&mut self, id: u32) -> Option<&regex::Regex> {
        let space = self.space;
        self.regexes
            .entry(id)
            .or_insert_with(|| {
                let source = space.regexes.get(id as usize)?;
                regex::Regex::new(&source.to_inline()).ok()
            })
            .as_ref()
    }
}

/// True for the tests a string (or, for `contains`, an array) satisfies.
fn is_text_test(atom: &Atom) -> bool {
    matches!(
        atom,
        Atom::Contains(..)
            | Atom::ContainsAny(..)
            | Atom::StartsWith(..)
            | Atom::EndsWith(..)
            | Atom::Matches(..)
    )
}

/// Whether a string test holds on `text` (`regex`: the compiled regex of
/// a `matches`); false for any other atom.
fn text_holds(atom: &Atom, text: &str, regex: Option<&regex::Regex>) -> bool {
    match atom {
        Atom::Contains(_, Value::String(s)) => text.contains(s.as_str()),
        Atom::ContainsAny(_, vs) => vs
            .iter()
            .filter_map(Value::as_str)
            .any(|s| text.contains(s)),
        Atom::StartsWith(_, s) => text.starts_with(s.as_str()),
        Atom::EndsWith(_, s) => text.ends_with(s.as_str()),
        Atom::Matches(..) => regex.is_some_and(|re| re.is_match(text)),
        _ => false,
    }
}

/// `contains` on a JSON value, as the dispatch decides it.
fn contains(haystack: &Value, needle: &Value) -> bool {
    match (haystack, needle) {
        (Value::String(s), Value::String(n)) => s.contains(n.as_str()),
        (Value::Object(map), Value::String(n)) => map.contains_key(n),
        (Value::Array(items), _) => items.iter().any(|i| crate::event::json_eq(i, needle)),
        _ => false,
    }
}

/// Numbers that the comparisons of `pos` and the negated ones of `neg`
/// allow, best first; a proof when none can.
fn numbers(path: &FieldPath, pos: &[&Atom], neg: &[&Atom]) -> Result<Vec<Value>, NoValue> {
    // Bounds: (value, strict).
    let mut low: Option<(f64, bool)> = None;
    let mut high: Option<(f64, bool)> = None;
    let bounds = pos
        .iter()
        .map(|a| (a, false))
        .chain(neg.iter().map(|a| (a, true)));
    for (atom, negated) in bounds {
        let Atom::Cmp(_, op, n) = atom else { continue };
        let op = if negated {
            match op {
                CmpOp::Lt => CmpOp::Ge,
                CmpOp::Le => CmpOp::Gt,
                CmpOp::Gt => CmpOp::Le,
                CmpOp::Ge => CmpOp::Lt,
            }
        } else {
            *op
        };
        let n = *n;
        match op {
            CmpOp::Gt | CmpOp::Ge => {
                let strict = op == CmpOp::Gt;
                if low.is_none_or(|(l, s)| n > l || (n == l && strict && !s)) {
                    low = Some((n, strict));
                }
            }
            CmpOp::Lt | CmpOp::Le => {
                let strict = op == CmpOp::Lt;
                if high.is_none_or(|(h, s)| n < h || (n == h && strict && !s)) {
                    high = Some((n, strict));
                }
            }
        }
    }
    let inside = |x: f64| {
        low.is_none_or(|(l, s)| if s { x > l } else { x >= l })
            && high.is_none_or(|(h, s)| if s { x < h } else { x <= h })
    };
    if let (Some((l, ls)), Some((h, hs))) = (low, high) {
        if l > h || (l == h && (ls || hs)) {
            return Err(NoValue::Proven(format!(
                "no number `{path}` is both {} {l} and {} {h}",
                if ls { ">" } else { ">=" },
                if hs { "<" } else { "<=" }
            )));
        }
    }
    let mut tries: Vec<f64> = Vec::new();
    match (low, high) {
        (None, None) => tries.push(0.0),
        (Some((l, _)), None) => tries.extend([l, l.floor() + 1.0, l + 1.0]),
        (None, Some((h, _))) => tries.extend([h, h.ceil() - 1.0, h - 1.0]),
        (Some((l, _)), Some((h, _))) => {
            tries.extend([l, l.floor() + 1.0, h, h.ceil() - 1.0, (l + h) / 2.0]);
        }
    }
    let mut out = Vec::new();
    for x in tries {
        if !x.is_finite() || !inside(x) {
            continue;
        }
        let value = if x.fract() == 0.0 && x.abs() < 9.0e15 {
            Value::from(x as i64)
        } else {
            Value::from(x)
        };
        if !out.contains(&value) {
            out.push(value);
        }
    }
    if out.is_empty() {
        return Err(NoValue::Unknown(format!("no number found for `{path}`")));
    }
    Ok(out)
}

/// A candidate as the event holds it: fields every event has read as their
/// default when the candidate is absent.
fn present(
    point: &str,
    target: &FqlPattern,
    path: &FieldPath,
    value: Option<Value>,
) -> Option<Value> {
    if value.is_some() {
        return value;
    }
    let principal_field = matches!(
        path.segments.as_slice(),
        [Segment::Field(f)] if f == "type" || f == "id"
    );
    match path.root {
        Root::Component if path.segments.is_empty() => Some(Value::from(component(target))),
        Root::Point if path.segments.is_empty() => Some(Value::from(point)),
        Root::Channel if path.segments.is_empty() => Some(Value::from("")),
        Root::Principal if principal_field => Some(Value::from("")),
        Root::Depth | Root::TimestampMs if path.segments.is_empty() => Some(Value::from(0)),
        Root::MaxDepth if path.segments.is_empty() => Some(Value::from(4)),
        _ => None,
    }
}

/// Whether the event can hold `value` at `path` with the target.
fn fits(target: &FqlPattern, path: &FieldPath, value: Option<&Value>) -> bool {
    let text = value.and_then(Value::as_str);
    let byte = || {
        value
            .and_then(Value::as_u64)
            .is_some_and(|n| n <= u64::from(u8::MAX))
    };
    let flat = path.segments.is_empty();
    match path.root {
        Root::Payload => true,
        Root::Metadata => !flat || value.is_none_or(Value::is_object),
        Root::Component => {
            flat && text.is_some_and(|c| {
                c.contains("::")
                    && target.matches(c, child(target).as_deref(), instance(target).as_deref())
            })
        }
        Root::Child => match (&target.child, value) {
            (None, None) => flat,
            (Some(_), None) => false,
            (want, Some(_)) => {
                flat && text
                    .is_some_and(|c| !c.is_empty() && want.as_ref().is_none_or(|w| w.matches(c)))
            }
        },
        Root::Instance => match (&target.instance, value) {
            (_, None) => flat,
            (want, Some(_)) => {
                flat && text
                    .is_some_and(|i| !i.is_empty() && want.as_ref().is_none_or(|w| w.matches(i)))
            }
        },
        Root::Channel | Root::Point => flat && text.is_some(),
        Root::Principal => match path.segments.as_slice() {
            [Segment::Field(f)] if f == "type" || f == "id" => text.is_some(),
            _ => value.is_none(),
        },
        Root::Depth | Root::MaxDepth => flat && byte(),
        Root::TimestampMs => flat && value.and_then(Value::as_u64).is_some(),
    }
}

/// A component the pattern matches.
fn component(target: &FqlPattern) -> String {
    let part = |s: &FqlSegment| s.exact().unwrap_or("witness").to_string();
    format!("{}::{}", part(&target.scope), part(&target.target))
}

/// A child id the pattern matches, when it names one.
fn child(target: &FqlPattern) -> Option<String> {
    target
        .child
        .as_ref()
        .map(|c| c.exact().unwrap_or("child").to_string())
}

/// The instance the pattern names exactly, if any.
fn instance(target: &FqlPattern) -> Option<String> {
    target
        .instance
        .as_ref()
        .and_then(|i| i.exact().map(str::to_string))
}

/// The value lists to try, one value per field: the first of each, then
/// one field at a time on an alternative.
fn alternatives(
    fields: &[(FieldPath, Vec<Option<Value>>)],
) -> Vec<Vec<(&FieldPath, &Option<Value>)>> {
    let first: Vec<(&FieldPath, &Option<Value>)> = fields
        .iter()
        .filter_map(|(p, vs)| vs.first().map(|v| (p, v)))
        .collect();
    let mut out = vec![first.clone()];
    for (i, (_, values)) in fields.iter().enumerate() {
        for value in values.iter().skip(1).take(MAX_ALTERNATIVES - 1) {
            let mut next = first.clone();
            if let Some(slot) = next.get_mut(i) {
                slot.1 = value;
            }
            out.push(next);
        }
    }
    out
}

/// The hook context JSON of an event of `point`, a component `target` matches, and
/// these field values; an error when two values collide (a field and a
/// field inside it).
pub fn build_event(
    point: &str,
    target: &FqlPattern,
    values: &[(&FieldPath, &Option<Value>)],
) -> Result<Value, String> {
    let mut event = Map::new();
    event.insert("hook_point".into(), Value::from(point));
    event.insert("component_id".into(), Value::from(component(target)));
    if let Some(child) = child(target) {
        event.insert("child_id".into(), Value::from(child));
    }
    if let Some(instance) = instance(target) {
        event.insert("instance".into(), Value::from(instance));
    }
    let mut payload = Value::Null;
    let mut metadata = Value::Null;
    let mut principal = Map::new();
    for &(path, value) in values {
        let Some(value) = value else { continue };
        let key = match path.root {
            Root::Payload => {
                place(&mut payload, &path.segments, value, path)?;
                continue;
            }
            Root::Metadata => {
                place(&mut metadata, &path.segments, value, path)?;
                continue;
            }
            Root::Principal => {
                if let [Segment::Field(f)] = path.segments.as_slice() {
                    principal.insert(
                        if f == "type" { "type" } else { "id" }.into(),
                        value.clone(),
                    );
                }
                continue;
            }
            Root::Point => continue,
            Root::Component => "component_id",
            Root::Child => "child_id",
            Root::Instance => "instance",
            Root::Channel => "channel_id",
            Root::Depth => "depth",
            Root::MaxDepth => "max_depth",
            Root::TimestampMs => "timestamp_ms",
        };
        event.insert(key.into(), value.clone());
    }
    if !principal.is_empty() {
        event.insert("principal".into(), Value::Object(principal));
    }
    event.insert(
        "payload".into(),
        if payload.is_null() {
            Value::Object(Map::new())
        } else {
            payload
        },
    );
    if !metadata.is_null() {
        event.insert("metadata".into(), metadata);
    }
    Ok(Value::Object(event))
}

/// Writes `value` at `segments` below `root`, making objects and arrays on
/// the way.
fn place(
    root: &mut Value,
    segments: &[Segment],
    value: &Value,
    path: &FieldPath,
) -> Result<(), String> {
    let collide = || format!("`{path}` and a field inside it need values that do not fit together");
    let mut at = root;
    for segment in segments {
        at = match segment {
            Segment::Field(name) => {
                if at.is_null() {
                    *at = Value::Object(Map::new());
                }
                match at {
                    Value::Object(map) => map.entry(name.clone()).or_insert(Value::Null),
                    _ => return Err(collide()),
                }
            }
            Segment::Index(i) => {
                if at.is_null() {
                    *at = Value::Array(Vec::new());
                }
                match at {
                    Value::Array(items) => {
                        let i = *i as usize;
                        if items.len() <= i {
                            items.resize(i + 1, Value::Null);
                        }
                        items.get_mut(i).ok_or_else(collide)?
                    }
                    _ => return Err(collide()),
                }
            }
        };
    }
    if !at.is_null() && at != value {
        return Err(collide());
    }
    *at = value.clone();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conjunctions_respect_negation() {
        let cond = Cond::All(vec![
            Cond::Atom(0),
            Cond::Not(Box::new(Cond::Any(vec![Cond::Atom(1), Cond::Atom(0)]))),
        ]);
        let (options, whole) = conjunctions(&cond, true);
        assert!(whole);
        assert!(options.is_empty(), "{options:?}");
        let cond = Cond::Not(Box::new(Cond::All(vec![Cond::Atom(0), Cond::Atom(1)])));
        let (options, _) = conjunctions(&cond, true);
        assert_eq!(options, [vec![(0, false)], vec![(1, false)]]);
    }

    #[test]
    fn numbers_lie_inside_their_bounds() {
        let path = FieldPath {
            root: Root::Payload,
            segments: vec![Segment::Field("n".into())],
            normalized: false,
        };
        let gt = Atom::Cmp(path.clone(), CmpOp::Gt, 3.0);
        let lt = Atom::Cmp(path.clone(), CmpOp::Lt, 3.5);
        let found = numbers(&path, &[&gt, &lt], &[]).ok().unwrap_or_default();
        assert_eq!(found, [Value::from(3.25)]);
        let le = Atom::Cmp(path.clone(), CmpOp::Le, 3.0);
        assert!(matches!(
            numbers(&path, &[&gt, &le], &[]),
            Err(NoValue::Proven(_))
        ));
        // not (n > 3) is n <= 3.
        assert!(matches!(
            numbers(&path, &[&gt], &[&gt]),
            Err(NoValue::Proven(_))
        ));
    }

    /// The negated regex's whole language is too large a DFA (`.*a.{16}`):
    /// the strings of the wanted one are checked against it one by one.
    #[test]
    fn a_negated_regex_too_large_for_a_dfa_is_checked_by_the_regex() {
        let src = r#"
schema orcs
hook a on tool.pre_execute {
    when payload.args matches /AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}/
    when not (payload.args matches /AKIA[0-9A-Z]{16}/)
    abort "x"
}
"#;
        let table = match crate::compile_str("t.hooks", src) {
            Ok(compiled) => compiled.table,
            Err(diags) => panic!("{diags:?}"),
        };
        let program = table.program();
        let point = &program.points[0];
        let space = Space::of(program, point);
        let rule = &point.rules[0];
        let found = Solver::new(&space).candidates(&rule.target, &rule.cond, 2);
        let args: Vec<&str> = found
            .events
            .iter()
            .filter_map(|(e, _)| e.pointer("/payload/args")?.as_str())
            .collect();
        assert!(!args.is_empty(), "{found:?}");
        assert!(args.iter().all(|a| a.starts_with("ghp_")), "{args:?}");
    }
}

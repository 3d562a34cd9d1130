//! Checks what a table holds before the runtime trusts it: every index
//! points somewhere, every rule is indexed exactly once and where its
//! target says.
//!
//! A load checks the meta block ([`points`], [`rates`]); a dispatch checks
//! each rule body and atom it decodes ([`rule_body`], [`atom`]; a rule's
//! head, in words, is checked as it is read: module
//! [`layout::head`](super::layout::head)); [`program`] checks a whole decoded program,
//! every index against every other
//! ([`Table::validate`](super::Table::validate)).

use super::rule::RuleBody;
use super::wire::Meta;
use super::LoadError;
use crate::fql::Segment;
use crate::ir::{
    Action, Atom, Bucket, Cond, Expr, Origin, PointProgram, Program, RateSpec, RegexId, Rule,
    NO_FIELD,
};
use std::collections::HashMap;

/// Deepest condition or expression nesting accepted.
pub(crate) const MAX_NESTING: usize = 256;

// A rule's condition, read from its words, nests as deep as a decoded one.
const _: () = assert!(MAX_NESTING == super::layout::head::MAX_DEPTH);

pub(super) fn program(program: &Program, dfas: &[super::LazyDfa<'_>]) -> Result<(), LoadError> {
    for pair in program.points.windows(2) {
        if let [a, b] = pair {
            if a.name >= b.name {
                return Err(LoadError::invalid(format!(
                    "points `{}` and `{}` are not sorted and unique",
                    a.name, b.name
                )));
            }
        }
    }
    schema_points(program)?;
    let regexes = program.regexes.len();
    // How many patterns each DFA section is expected to have, by the first
    // matcher that names it: every other must agree.
    let mut patterns = HashMap::new();
    regex_dfas(program, dfas.len(), &mut patterns)?;
    for point in &program.points {
        self::point(point, regexes, program.files.len())?;
        self::matchers(point, dfas.len(), &mut patterns)?;
        for atom in &point.atoms {
            self::atom(atom, regexes, &program.rates)?;
        }
    }
    rates(&program.rates)
}

/// The points of a meta block: sorted and unique, each of the schema and
/// of the kind the schema gives it.
pub(super) fn points(meta: &Meta) -> Result<(), LoadError> {
    for pair in meta.points.windows(2) {
        if let [a, b] = pair {
            if a.name >= b.name {
                return Err(LoadError::invalid(format!(
                    "points `{}` and `{}` are not sorted and unique",
                    a.name, b.name
                )));
            }
        }
    }
    schema_point_list(
        &meta.schema_points,
        meta.points.iter().map(|p| (p.name.as_str(), p.kind)),
    )
}

/// The rate counters keep a number of arrivals a test can need.
pub(super) fn rates(rates: &[RateSpec]) -> Result<(), LoadError> {
    for spec in rates {
        if spec.keep == 0 || f64::from(spec.keep) > crate::ir::MAX_RATE_LIMIT + 1.0 {
            return Err(LoadError::invalid("a rate counter keeps too many arrivals"));
        }
    }
    Ok(())
}

/// The schema's points are unique and few enough for a [`PointId`], and
/// every point with rules is one of them, of the same kind.
///
/// [`PointId`]: crate::schema::PointId
fn schema_points(program: &Program) -> Result<(), LoadError> {
    schema_point_list(
        &program.schema_points,
        program.points.iter().map(|p| (p.name.as_str(), p.kind)),
    )
}

fn schema_point_list<'p>(
    schema_points: &[crate::ir::SchemaPoint],
    points: impl Iterator<Item = (&'p str, crate::schema::PointKind)>,
) -> Result<(), LoadError> {
    if schema_points.len() > usize::from(u16::MAX) {
        return Err(LoadError::invalid("the schema has too many points"));
    }
    let mut names: Vec<&str> = schema_points.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    if let Some(pair) = names.windows(2).find(|w| w.first() == w.get(1)) {
        return Err(LoadError::invalid(format!(
            "the schema lists point `{}` twice",
            pair.first().copied().unwrap_or_default()
        )));
    }
    for (name, kind) in points {
        match schema_points.iter().find(|p| p.name == name) {
            Some(p) if p.kind == kind => {}
            Some(_) => {
                return Err(LoadError::invalid(format!(
                    "point `{name}` has another kind than its schema says"
                )))
            }
            None => {
                return Err(LoadError::invalid(format!(
                    "point `{name}` is not a point of the schema"
                )))
            }
        }
    }
    Ok(())
}

/// An atom's regexes exist, its expressions are well formed, and a rate
/// test's counter fits it.
pub(super) fn atom(atom: &Atom, regexes: usize, rates: &[RateSpec]) -> Result<(), LoadError> {
    match atom {
        Atom::Matches(_, re) => regex(*re, regexes),
        Atom::Expr(e) => expr(e, regexes, 0, 0),
        Atom::Rate(test) => rate(test, rates),
        _ => Ok(()),
    }
}

/// A rule's condition names atoms of its point (`atoms` of them), its
/// actions name regexes that exist, its origins name source files.
fn rule(rule: &Rule, atoms: usize, regexes: usize, files: usize) -> Result<(), LoadError> {
    let in_rule = |e: LoadError| LoadError::invalid(format!("rule `{}`: {e}", rule.id));
    cond(&rule.cond, atoms, 0)?;
    origins(
        std::iter::once(&rule.origin).chain(&rule.cond_origins),
        files,
    )
    .map_err(in_rule)?;
    actions(&rule.actions, regexes)
}

/// A rule's body as a dispatch decodes it: its actions name regexes that
/// exist, its origins name source files.
pub(super) fn rule_body(body: &RuleBody, regexes: usize, files: usize) -> Result<(), LoadError> {
    origins(
        std::iter::once(&body.origin).chain(&body.cond_origins),
        files,
    )?;
    actions(&body.actions, regexes)
}

/// Origins name source files (`files` of them; none known: any).
fn origins<'a>(
    mut origins: impl Iterator<Item = &'a Origin>,
    files: usize,
) -> Result<(), LoadError> {
    if files > 0 && origins.any(|o| o.file as usize >= files) {
        return Err(LoadError::invalid("file index out of range"));
    }
    Ok(())
}

/// Actions name regexes that exist.
fn actions(actions: &[Action], regexes: usize) -> Result<(), LoadError> {
    for action in actions {
        match action {
            Action::Skip(e)
            | Action::Replace(e)
            | Action::Set(_, e)
            | Action::Meta(_, e)
            | Action::Output(_, e) => expr(e, regexes, 0, 0)?,
            Action::Rewrite(_, re, _) => regex(*re, regexes)?,
            _ => {}
        }
    }
    Ok(())
}

/// A rate test's counter exists, has its window, and keeps enough arrivals.
fn rate(test: &crate::ir::RateTest, rates: &[crate::ir::RateSpec]) -> Result<(), LoadError> {
    match rates.get(test.counter as usize) {
        Some(spec) if spec.window_ms == test.window_ms && spec.keep >= test.keep() => Ok(()),
        Some(_) => Err(LoadError::invalid(format!(
            "rate counter {} does not fit its test",
            test.counter
        ))),
        None => Err(LoadError::invalid(format!(
            "rate counter {} out of range",
            test.counter
        ))),
    }
}

fn point(point: &PointProgram, regexes: usize, files: usize) -> Result<(), LoadError> {
    let name = &point.name;
    let rules = point.rules.len();
    let mut seen = vec![false; rules];
    let index = &point.index;
    let mut check_bucket =
        |bucket: &Bucket, fits: &dyn Fn(&crate::ir::Rule) -> bool| -> Result<(), LoadError> {
            for list in [&bucket.rules, &bucket.untriggered] {
                for pair in list.windows(2) {
                    if let [a, b] = pair {
                        if a >= b {
                            return Err(LoadError::invalid(format!(
                                "point `{name}`: an index list is not ascending"
                            )));
                        }
                    }
                }
            }
            for &i in &bucket.rules {
                let rule = point.rules.get(i as usize).ok_or_else(|| {
                    LoadError::invalid(format!("point `{name}`: rule index {i} out of range"))
                })?;
                match seen.get_mut(i as usize) {
                    Some(s) if !*s => *s = true,
                    _ => {
                        return Err(LoadError::invalid(format!(
                            "point `{name}`: rule `{}` indexed twice",
                            rule.id
                        )))
                    }
                }
                if !fits(rule) {
                    return Err(LoadError::invalid(format!(
                        "point `{name}`: rule `{}` is indexed under the wrong target",
                        rule.id
                    )));
                }
                let listed = bucket.untriggered.binary_search(&i).is_ok();
                match rule.trigger {
                    None if !listed => {
                        return Err(LoadError::invalid(format!(
                            "point `{name}`: rule `{}` is never a candidate",
                            rule.id
                        )))
                    }
                    Some(a) => {
                        let field = point
                            .atom_field
                            .get(a as usize)
                            .copied()
                            .unwrap_or(NO_FIELD);
                        let triggered = point
                            .triggers
                            .get(a as usize)
                            .is_some_and(|t| t.binary_search(&i).is_ok());
                        if listed
                            || field == NO_FIELD
                            || !triggered
                            || bucket.fields & (1u64 << field.min(63)) == 0
                        {
                            return Err(LoadError::invalid(format!(
                                "point `{name}`: rule `{}` has an inconsistent trigger",
                                rule.id
                            )));
                        }
                    }
                    None => {}
                }
            }
            if bucket
                .untriggered
                .iter()
                .any(|u| bucket.rules.binary_search(u).is_err())
            {
                return Err(LoadError::invalid(format!(
                    "point `{name}`: an untriggered rule is not in its group"
                )));
            }
            Ok(())
        };
    for keyed in [&index.exact, &index.scope, &index.target] {
        let map = &keyed.map;
        let consistent = keyed.buckets.len() == map.keys.len()
            && map.values.len() == map.keys.len()
            && hash_fits(map)
            && map
                .keys
                .iter()
                .enumerate()
                .all(|(i, k)| map.get(k) == [u32::try_from(i).unwrap_or(u32::MAX)]);
        if !consistent {
            return Err(LoadError::invalid(format!(
                "point `{name}`: inconsistent target index"
            )));
        }
    }
    for (key, bucket) in index.exact.iter() {
        check_bucket(
            bucket,
            &|r| match (r.target.scope.exact(), r.target.target.exact()) {
                (Some(scope), Some(target)) => crate::fql::split_component(key) == (scope, target),
                _ => false,
            },
        )?;
    }
    for (key, bucket) in index.scope.iter() {
        check_bucket(bucket, &|r| {
            r.target.scope.exact() == Some(key) && r.target.target == Segment::Any
        })?;
    }
    for (key, bucket) in index.target.iter() {
        check_bucket(bucket, &|r| {
            r.target.scope == Segment::Any && r.target.target.exact() == Some(key)
        })?;
    }
    check_bucket(&index.any, &|r| {
        r.target.scope == Segment::Any && r.target.target == Segment::Any
    })?;
    if let Some(i) = seen.iter().position(|s| !s) {
        let id = point.rules.get(i).map_or("?", |r| r.id.as_str());
        return Err(LoadError::invalid(format!(
            "point `{name}`: rule `{id}` is not indexed"
        )));
    }
    let atoms = point.atoms.len();
    for rule in &point.rules {
        self::rule(rule, atoms, regexes, files)?;
    }
    Ok(())
}

fn regex(id: RegexId, regexes: usize) -> Result<(), LoadError> {
    if (id.0 as usize) < regexes {
        Ok(())
    } else {
        Err(LoadError::invalid(format!(
            "regex index {} out of range",
            id.0
        )))
    }
}

fn cond(c: &Cond, atoms: usize, depth: usize) -> Result<(), LoadError> {
    if depth > MAX_NESTING {
        return Err(LoadError::invalid("condition nested too deeply"));
    }
    match c {
        Cond::True => Ok(()),
        Cond::Atom(a) if (*a as usize) < atoms => Ok(()),
        Cond::Atom(a) => Err(LoadError::invalid(format!("atom index {a} out of range"))),
        Cond::Not(c) => cond(c, atoms, depth + 1),
        Cond::All(cs) | Cond::Any(cs) => cs.iter().try_for_each(|c| cond(c, atoms, depth + 1)),
    }
}

/// `bound`: how many quantifiers are around `e` (a variable must name one).
fn expr(e: &Expr, regexes: usize, depth: usize, bound: u32) -> Result<(), LoadError> {
    if depth > MAX_NESTING {
        return Err(LoadError::invalid("expression nested too deeply"));
    }
    let d = depth + 1;
    match e {
        Expr::Const(_) | Expr::Path(_) | Expr::Exists(_) => Ok(()),
        Expr::Template(_) => Ok(()),
        Expr::Array(items) => items.iter().try_for_each(|e| expr(e, regexes, d, bound)),
        Expr::Object(fields) => fields
            .iter()
            .try_for_each(|(_, e)| expr(e, regexes, d, bound)),
        Expr::Unary(_, e) => expr(e, regexes, d, bound),
        Expr::Binary(_, a, b) | Expr::In(a, b) | Expr::ContainsAny(a, b) => {
            expr(a, regexes, d, bound)?;
            expr(b, regexes, d, bound)
        }
        Expr::Matches(a, re) => {
            regex(*re, regexes)?;
            expr(a, regexes, d, bound)
        }
        // The compiler turns every rate test into an atom of its own.
        Expr::Rate(_) => Err(LoadError::invalid("a rate test outside a condition")),
        Expr::Quantifier(_, list, body) | Expr::Let(list, body) => {
            expr(list, regexes, d, bound)?;
            expr(body, regexes, d, bound + 1)
        }
        Expr::Var(var, _) if *var < bound => Ok(()),
        Expr::Var(var, _) => Err(LoadError::invalid(format!(
            "variable {var} outside its quantifier"
        ))),
        Expr::Capture(subject, re, _) => {
            regex(*re, regexes)?;
            expr(subject, regexes, d, bound)
        }
        Expr::WordsAny(value, test) => {
            string_set(&test.set)?;
            expr(value, regexes, d, bound)
        }
        Expr::InSet(value, set) => {
            string_set(set)?;
            expr(value, regexes, d, bound)
        }
        Expr::Call(func, args) if args.len() == func.arity() => {
            args.iter().try_for_each(|arg| expr(arg, regexes, d, bound))
        }
        Expr::Call(func, args) => Err(LoadError::invalid(format!(
            "`{}` called with {} arguments, not {}",
            func.as_str(),
            args.len(),
            func.arity()
        ))),
    }
}

/// A set's strings are where its bounds say, in order, and its perfect
/// hash, when it has one, gives a slot to each of them.
fn string_set(set: &crate::ir::StringSet) -> Result<(), LoadError> {
    let (text, ends) = (set.text(), set.ends());
    let mut start = 0;
    for &end in ends {
        let end = end as usize;
        if end < start || !text.is_char_boundary(end) {
            return Err(LoadError::invalid(
                "a string set's bounds do not fit its text",
            ));
        }
        start = end;
    }
    if start != text.len() {
        return Err(LoadError::invalid(
            "a string set's text goes on after its last string",
        ));
    }
    if !set.hash.keys.is_empty() || !hash_fits_keys(&set.hash, set.len()) {
        return Err(LoadError::invalid(
            "a string set's hash does not fit its strings",
        ));
    }
    Ok(())
}

/// A map's perfect hash, when it has one, finds its keys ([`StrMap`]s a
/// table decodes into the IR have none: the table looks keys up in its
/// own hash tables, and the IR's searches them one by one).
///
/// [`StrMap`]: crate::ir::StrMap
fn hash_fits(map: &crate::ir::StrMap) -> bool {
    hash_fits_keys(map, map.keys.len())
}

/// A map's perfect hash, when it has one, gives a slot to each of `keys`
/// keys, its own or those it was built over ([`StrMap::index_in`]).
///
/// [`StrMap::index_in`]: crate::ir::StrMap::index_in
fn hash_fits_keys(map: &crate::ir::StrMap, keys: usize) -> bool {
    if map.disps.is_empty() && map.map.is_empty() {
        return true;
    }
    !map.disps.is_empty() && map.map.len() == keys && map.map.iter().all(|&k| (k as usize) < keys)
}

/// Records that a matcher expects DFA section `d` to have `n` patterns:
/// an error when it is not a section, or another expects another number.
fn expect_patterns(
    d: u32,
    n: usize,
    sections: usize,
    patterns: &mut HashMap<u32, usize>,
) -> Result<(), LoadError> {
    if d as usize >= sections {
        return Err(LoadError::invalid(format!("DFA index {d} out of range")));
    }
    match *patterns.entry(d).or_insert(n) {
        m if m == n => Ok(()),
        m => Err(LoadError::invalid(format!(
            "DFA section {d} is expected to have {m} patterns and {n}"
        ))),
    }
}

/// Each regex's prebuilt DFA is a section of the table with one pattern.
fn regex_dfas(
    program: &Program,
    sections: usize,
    patterns: &mut HashMap<u32, usize>,
) -> Result<(), LoadError> {
    let table = &program.regex_dfas;
    if !table.is_empty() && table.len() != program.regexes.len() {
        return Err(LoadError::invalid(format!(
            "{} regex DFAs for {} regexes",
            table.len(),
            program.regexes.len()
        )));
    }
    for &d in table.iter().filter(|&&d| d != crate::ir::NO_DFA) {
        expect_patterns(d, 1, sections, patterns).map_err(|_| {
            LoadError::invalid(format!("regex DFA {d} is not a one-pattern section"))
        })?;
    }
    Ok(())
}

/// The field matchers, the atom → field map and the trigger lists agree with
/// each other and with the DFA sections.
fn matchers(
    point: &PointProgram,
    sections: usize,
    patterns: &mut HashMap<u32, usize>,
) -> Result<(), LoadError> {
    let name = &point.name;
    let atoms = point.atoms.len();
    let rules = point.rules.len();
    let bad = |what: &str| Err(LoadError::invalid(format!("point `{name}`: {what}")));
    if point.atom_field.len() != atoms || point.triggers.len() != atoms {
        return bad("atom tables have the wrong length");
    }
    for (a, field) in point.atom_field.iter().enumerate() {
        if *field == NO_FIELD {
            continue;
        }
        let Some(f) = point.fields.get(*field as usize) else {
            return bad("atom field index out of range");
        };
        if f.bulk
            .binary_search(&u32::try_from(a).unwrap_or(u32::MAX))
            .is_err()
        {
            return bad("an atom is missing from its field");
        }
        if point.atoms.get(a).and_then(Atom::field) != Some(&f.path) {
            return bad("an atom is on the wrong field");
        }
    }
    for list in &point.triggers {
        if list.iter().any(|&r| r as usize >= rules)
            || list.windows(2).any(|w| matches!(w, [a, b] if a >= b))
        {
            return bad("trigger list out of range or not ascending");
        }
    }
    for (fi, f) in point.fields.iter().enumerate() {
        let fi = u32::try_from(fi).unwrap_or(u32::MAX);
        let in_field = |a: &u32| point.atom_field.get(*a as usize) == Some(&fi);
        if f.bulk.windows(2).any(|w| matches!(w, [a, b] if a >= b)) || !f.bulk.iter().all(in_field)
        {
            return bad("bulk atoms out of range or not ascending");
        }
        let eq = &f.eq;
        if eq.values.len() != eq.keys.len()
            || !hash_fits(eq)
            || !eq.values.iter().flatten().all(in_field)
        {
            return bad("inconsistent equality map");
        }
        if f.literal_atoms.len() != f.literals.len()
            || f.literal_checks.len() != f.literals.len()
            || !f.literal_atoms.iter().flatten().all(in_field)
            || !f.literal_checks.iter().flatten().all(in_field)
        {
            return bad("inconsistent literal table");
        }
        if !f.dfa_atoms.iter().all(in_field) {
            return bad("DFA atom out of range");
        }
        match f.dfa {
            None if f.dfa_atoms.is_empty() => {}
            None => return bad("DFA patterns without a DFA"),
            Some(d) => {
                if expect_patterns(d, f.dfa_atoms.len(), sections, patterns).is_err() {
                    return bad("DFA index out of range or pattern count mismatch");
                }
            }
        }
    }
    Ok(())
}

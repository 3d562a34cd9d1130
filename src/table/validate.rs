//! Checks a decoded program before the runtime trusts it: every index points
//! somewhere, every rule is indexed exactly once and where its target says.

use super::LoadError;
use crate::fql::Segment;
use crate::ir::{Action, Atom, Bucket, Cond, Expr, PointProgram, Program, RegexId, NO_FIELD};

/// Deepest condition or expression nesting accepted.
pub(crate) const MAX_NESTING: usize = 256;

pub(super) fn program(program: &Program, dfas: &mut [super::LazyDfa<'_>]) -> Result<(), LoadError> {
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
    regex_dfas(program, dfas)?;
    for point in &program.points {
        self::point(point, regexes, program.files.len())?;
        self::matchers(point, dfas)?;
        for atom in &point.atoms {
            if let Atom::Rate(test) = atom {
                rate(test, &program.rates)?;
            }
        }
    }
    for spec in &program.rates {
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
    if program.schema_points.len() > usize::from(u16::MAX) {
        return Err(LoadError::invalid("the schema has too many points"));
    }
    let mut names: Vec<&str> = program
        .schema_points
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    names.sort_unstable();
    if let Some(pair) = names.windows(2).find(|w| w.first() == w.get(1)) {
        return Err(LoadError::invalid(format!(
            "the schema lists point `{}` twice",
            pair.first().copied().unwrap_or_default()
        )));
    }
    for point in &program.points {
        match program.schema_points.iter().find(|p| p.name == point.name) {
            Some(p) if p.kind == point.kind => {}
            Some(_) => {
                return Err(LoadError::invalid(format!(
                    "point `{}` has another kind than its schema says",
                    point.name
                )))
            }
            None => {
                return Err(LoadError::invalid(format!(
                    "point `{}` is not a point of the schema",
                    point.name
                )))
            }
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
            && (map.keys.is_empty() || (!map.disps.is_empty() && map.map.len() == map.keys.len()))
            && map.map.iter().all(|&k| (k as usize) < map.keys.len())
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
    for atom in &point.atoms {
        match atom {
            Atom::Matches(_, re) => regex(*re, regexes)?,
            Atom::Expr(e) => expr(e, regexes, 0, 0)?,
            _ => {}
        }
    }
    for rule in &point.rules {
        if files > 0
            && std::iter::once(&rule.origin)
                .chain(&rule.cond_origins)
                .any(|o| o.file as usize >= files)
        {
            return Err(LoadError::invalid(format!(
                "rule `{}`: file index out of range",
                rule.id
            )));
        }
        cond(&rule.cond, atoms, 0)?;
        for action in &rule.actions {
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
        Expr::Quantifier(_, list, body) => {
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
        Expr::WordsAny(command, test) => {
            let hashed = &test.hash;
            let consistent = if hashed.keys.is_empty() {
                hashed.disps.is_empty() && hashed.map.is_empty()
            } else {
                !hashed.disps.is_empty()
                    && hashed.map.len() == hashed.keys.len()
                    && hashed.map.iter().all(|&k| (k as usize) < hashed.keys.len())
            };
            if !consistent {
                return Err(LoadError::invalid(
                    "a word set's hash does not fit its keys",
                ));
            }
            expr(command, regexes, d, bound)
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

/// The field matchers, the atom → field map and the trigger lists agree with
/// each other and with the DFA sections.
/// Each regex's prebuilt DFA is a section of the table with one pattern.
fn regex_dfas(program: &Program, dfas: &mut [super::LazyDfa<'_>]) -> Result<(), LoadError> {
    let table = &program.regex_dfas;
    if !table.is_empty() && table.len() != program.regexes.len() {
        return Err(LoadError::invalid(format!(
            "{} regex DFAs for {} regexes",
            table.len(),
            program.regexes.len()
        )));
    }
    for &d in table.iter().filter(|&&d| d != crate::ir::NO_DFA) {
        match dfas.get_mut(d as usize).map(|dfa| dfa.expect_patterns(1)) {
            Some(true) => {}
            _ => {
                return Err(LoadError::invalid(format!(
                    "regex DFA {d} is not a one-pattern section"
                )))
            }
        }
    }
    Ok(())
}

fn matchers(point: &PointProgram, dfas: &mut [super::LazyDfa<'_>]) -> Result<(), LoadError> {
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
            || (!eq.keys.is_empty() && (eq.disps.is_empty() || eq.map.len() != eq.keys.len()))
            || eq.map.iter().any(|&k| k as usize >= eq.keys.len())
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
            Some(d) => match dfas
                .get_mut(d as usize)
                .map(|dfa| dfa.expect_patterns(f.dfa_atoms.len()))
            {
                Some(true) => {}
                _ => return bad("DFA index out of range or pattern count mismatch"),
            },
        }
    }
    Ok(())
}

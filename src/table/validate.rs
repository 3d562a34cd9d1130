//! Checks a decoded program before the runtime trusts it: every index points
//! somewhere, every rule is indexed exactly once and where its target says.

use super::LoadError;
use crate::fql::Segment;
use crate::ir::{Action, Atom, Cond, Expr, PointProgram, Program, RegexId};

/// Deepest condition or expression nesting accepted.
pub(crate) const MAX_NESTING: usize = 256;

pub(super) fn program(program: &Program) -> Result<(), LoadError> {
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
    let regexes = program.regexes.len();
    for point in &program.points {
        self::point(point, regexes, program.files.len())?;
    }
    Ok(())
}

fn point(point: &PointProgram, regexes: usize, files: usize) -> Result<(), LoadError> {
    let name = &point.name;
    let rules = point.rules.len();
    let mut seen = vec![false; rules];
    let index = &point.index;
    let mut check_list = |list: &[u32], fits: &dyn Fn(&crate::ir::Rule) -> bool| -> Result<(), LoadError> {
        for pair in list.windows(2) {
            if let [a, b] = pair {
                if a >= b {
                    return Err(LoadError::invalid(format!("point `{name}`: an index list is not ascending")));
                }
            }
        }
        for &i in list {
            let rule = point
                .rules
                .get(i as usize)
                .ok_or_else(|| LoadError::invalid(format!("point `{name}`: rule index {i} out of range")))?;
            let slot = seen.get_mut(i as usize);
            match slot {
                Some(s) if !*s => *s = true,
                _ => return Err(LoadError::invalid(format!("point `{name}`: rule `{}` indexed twice", rule.id))),
            }
            if !fits(rule) {
                return Err(LoadError::invalid(format!(
                    "point `{name}`: rule `{}` is indexed under the wrong target",
                    rule.id
                )));
            }
        }
        Ok(())
    };
    for (key, list) in &index.exact {
        check_list(list, &|r| r.target.is_exact() && format!("{}::{}", r.target.scope, r.target.target) == *key)?;
    }
    for (key, list) in &index.scope {
        check_list(list, &|r| r.target.scope.exact() == Some(key) && r.target.target == Segment::Any)?;
    }
    for (key, list) in &index.target {
        check_list(list, &|r| r.target.scope == Segment::Any && r.target.target.exact() == Some(key))?;
    }
    check_list(&index.any, &|r| r.target.scope == Segment::Any && r.target.target == Segment::Any)?;
    for kind in [&index.exact, &index.scope, &index.target] {
        for pair in kind.windows(2) {
            if let [(a, _), (b, _)] = pair {
                if a >= b {
                    return Err(LoadError::invalid(format!("point `{name}`: index keys are not sorted and unique")));
                }
            }
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        let id = point.rules.get(i).map_or("?", |r| r.id.as_str());
        return Err(LoadError::invalid(format!("point `{name}`: rule `{id}` is not indexed")));
    }
    let atoms = point.atoms.len();
    for atom in &point.atoms {
        match atom {
            Atom::Matches(_, re) => regex(*re, regexes)?,
            Atom::Expr(e) => expr(e, regexes, 0)?,
            _ => {}
        }
    }
    for rule in &point.rules {
        if files > 0 && rule.origin.file as usize >= files {
            return Err(LoadError::invalid(format!("rule `{}`: file index out of range", rule.id)));
        }
        cond(&rule.cond, atoms, 0)?;
        for action in &rule.actions {
            match action {
                Action::Skip(e) | Action::Replace(e) | Action::Set(_, e) | Action::Meta(_, e) => expr(e, regexes, 0)?,
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
        Err(LoadError::invalid(format!("regex index {} out of range", id.0)))
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

fn expr(e: &Expr, regexes: usize, depth: usize) -> Result<(), LoadError> {
    if depth > MAX_NESTING {
        return Err(LoadError::invalid("expression nested too deeply"));
    }
    let d = depth + 1;
    match e {
        Expr::Const(_) | Expr::Path(_) | Expr::Exists(_) => Ok(()),
        Expr::Template(_) => Ok(()),
        Expr::Array(items) => items.iter().try_for_each(|e| expr(e, regexes, d)),
        Expr::Object(fields) => fields.iter().try_for_each(|(_, e)| expr(e, regexes, d)),
        Expr::Unary(_, e) => expr(e, regexes, d),
        Expr::Binary(_, a, b) | Expr::In(a, b) | Expr::ContainsAny(a, b) => {
            expr(a, regexes, d)?;
            expr(b, regexes, d)
        }
        Expr::Matches(a, re) => {
            regex(*re, regexes)?;
            expr(a, regexes, d)
        }
    }
}

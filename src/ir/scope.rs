//! Variables and the scopes that bind them.
//!
//! A variable is written by depth ([`Expr::Var`]): `0` is the innermost
//! value bound around it, `1` the one around that. Two forms bind one: a
//! quantifier binds its element in its body, and [`Expr::Let`] binds its
//! value in its body. A template's holes see no variable (they are
//! evaluated outside every scope), so they are not walked here.

use super::Expr;

/// The direct sub-expressions of an expression (`iter` or `iter_mut`),
/// each given to `f` with how many variables the expression binds around
/// it: one for a quantifier's or a `let`'s body, none otherwise.
macro_rules! each_child {
    ($e:expr, $f:ident, $iter:ident) => {
        match $e {
            Expr::Quantifier(_, first, body) | Expr::Let(first, body) => {
                $f(first, 0);
                $f(body, 1);
            }
            Expr::Array(items) | Expr::Call(_, items) => items.$iter().for_each(|i| $f(i, 0)),
            Expr::Object(fields) => fields.$iter().for_each(|(_, v)| $f(v, 0)),
            Expr::Unary(_, x)
            | Expr::Matches(x, _)
            | Expr::Capture(x, ..)
            | Expr::WordsAny(x, _)
            | Expr::InSet(x, _) => $f(x, 0),
            Expr::Binary(_, a, b) | Expr::In(a, b) | Expr::ContainsAny(a, b) => {
                $f(a, 0);
                $f(b, 0);
            }
            Expr::Const(_)
            | Expr::Path(_)
            | Expr::Template(_)
            | Expr::Exists(_)
            | Expr::Rate(_)
            | Expr::Var(..) => {}
        }
    };
}

impl Expr {
    /// Each direct sub-expression, with how many variables `self` binds
    /// around it (a quantifier's or a `let`'s body: one; anything else:
    /// none).
    pub fn each_child<'e>(&'e self, mut f: impl FnMut(&'e Expr, u32)) {
        each_child!(self, f, iter)
    }

    /// [`Expr::each_child`], to edit each.
    pub fn each_child_mut(&mut self, mut f: impl FnMut(&mut Expr, u32)) {
        each_child!(self, f, iter_mut)
    }

    /// The depth, where the expression stands, of the innermost variable
    /// it reads from around it (the variables it binds itself are not
    /// read from around it); `None` when it reads none.
    pub fn innermost_var(&self) -> Option<u32> {
        match self {
            Expr::Var(depth, _) => Some(*depth),
            _ => {
                let mut innermost: Option<u32> = None;
                self.each_child(|child, binds| {
                    let read = child.innermost_var().and_then(|d| d.checked_sub(binds));
                    innermost = match (innermost, read) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                });
                innermost
            }
        }
    }

    /// Moves the variables from `cutoff` out by `by` (a negative `by` moves
    /// them in): what the expression must become when `by` scopes are
    /// put around it (or taken away) below the `cutoff` innermost ones.
    /// A variable the move would put inside `cutoff` is a caller's error;
    /// it is kept at `cutoff`.
    pub fn shift_vars(&mut self, by: i64, cutoff: u32) {
        match self {
            Expr::Var(depth, _) if *depth >= cutoff => {
                let moved = (i64::from(*depth) + by).max(i64::from(cutoff));
                *depth = u32::try_from(moved).unwrap_or(u32::MAX);
            }
            _ => self.each_child_mut(|child, binds| child.shift_vars(by, cutoff + binds)),
        }
    }

    /// The expression with every [`Expr::Let`] undone: each use of a
    /// bound value is the value again, as it was written before the
    /// compiler moved it out (what explanations show).
    pub fn inline_lets(&self) -> Expr {
        let mut out = self.clone();
        out.inline_in_place();
        out
    }

    fn inline_in_place(&mut self) {
        self.each_child_mut(|child, _| child.inline_in_place());
        if let Expr::Let(value, body) = self {
            let mut body = std::mem::replace(&mut **body, Expr::Const(serde_json::Value::Null));
            body.substitute(value, 0);
            *self = body;
        }
    }

    /// Puts `value` (an expression of the scope around a `let`) where
    /// this `let` body reads variable `depth`, and moves the body's
    /// variables from `depth` out in by one, as the `let` goes away.
    fn substitute(&mut self, value: &Expr, depth: u32) {
        match self {
            Expr::Var(d, segments) if *d == depth && segments.is_empty() => {
                let mut moved = value.clone();
                moved.shift_vars(i64::from(depth), 0);
                *self = moved;
            }
            Expr::Var(d, _) if *d > depth => *d -= 1,
            // The compiler binds only values read whole.
            _ => self.each_child_mut(|child, binds| child.substitute(value, depth + binds)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Func, Quantifier, Segment};

    fn var(depth: u32) -> Expr {
        Expr::Var(depth, Vec::new())
    }

    fn lower(e: Expr) -> Expr {
        Expr::Call(Func::Lower, vec![e])
    }

    fn any(list: Expr, body: Expr) -> Expr {
        Expr::Quantifier(Quantifier::Any, Box::new(list), Box::new(body))
    }

    /// Whether `e` reads one of the `n` innermost variables in scope.
    fn reads_innermost(e: &Expr, n: u32) -> bool {
        e.innermost_var().is_some_and(|d| d < n)
    }

    #[test]
    fn reading_the_innermost_counts_the_scopes_inside() {
        // `any $ in $1: $0 == $2`: inside the quantifier, `$2` is the
        // outer scope's `$1`.
        let e = any(
            var(1),
            Expr::Binary(crate::ir::BinaryOp::Eq, Box::new(var(0)), Box::new(var(2))),
        );
        assert!(reads_innermost(&e, 2));
        assert!(!reads_innermost(&e, 1));
        assert!(!reads_innermost(&any(var(3), var(0)), 3));
        assert_eq!(
            lower(Expr::Const(serde_json::Value::Null)).innermost_var(),
            None
        );
    }

    #[test]
    fn shifting_leaves_the_variables_bound_inside() {
        let mut e = any(
            var(0),
            Expr::Binary(
                crate::ir::BinaryOp::Eq,
                Box::new(var(0)),
                Box::new(Expr::Var(1, vec![Segment::Field("name".into())])),
            ),
        );
        e.shift_vars(2, 0);
        let expected = any(
            var(2),
            Expr::Binary(
                crate::ir::BinaryOp::Eq,
                Box::new(var(0)),
                Box::new(Expr::Var(3, vec![Segment::Field("name".into())])),
            ),
        );
        assert_eq!(e, expected);
        e.shift_vars(-2, 0);
        assert!(reads_innermost(&e, 1));
    }

    #[test]
    fn inlining_a_let_puts_the_value_back_where_it_was_read() {
        // Written: `any $ in $0.args: lower($1.program) == $0`, with the
        // call moved out: `let lower($0.program) in any $ in $1.args:
        // $1 == $0`.
        let program = || Expr::Var(0, vec![Segment::Field("program".into())]);
        let args = |d| Expr::Var(d, vec![Segment::Field("args".into())]);
        let written = any(
            args(0),
            Expr::Binary(
                crate::ir::BinaryOp::Eq,
                Box::new(lower(Expr::Var(1, vec![Segment::Field("program".into())]))),
                Box::new(var(0)),
            ),
        );
        let hoisted = Expr::Let(
            Box::new(lower(program())),
            Box::new(any(
                args(1),
                Expr::Binary(crate::ir::BinaryOp::Eq, Box::new(var(1)), Box::new(var(0))),
            )),
        );
        assert_eq!(hoisted.inline_lets(), written);
    }
}

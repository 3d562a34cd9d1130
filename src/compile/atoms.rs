//! Conditions to boolean trees over atoms, each atom numbered once per point.

use crate::ir::{Atom, BinaryOp, CmpOp, Cond, Expr, UnaryOp};
use serde_json::Value;
use std::collections::HashMap;

/// The atoms of one point, deduplicated.
#[derive(Default)]
pub(super) struct Atoms {
    list: Vec<Atom>,
    ids: HashMap<String, u32>,
}

impl Atoms {
    /// The condition tree of a rule (`True` when it has no condition).
    pub(super) fn cond(&mut self, expr: Option<&Expr>) -> Cond {
        match expr {
            None => Cond::True,
            Some(e) => self.lower(e),
        }
    }

    pub(super) fn into_vec(self) -> Vec<Atom> {
        self.list
    }

    fn lower(&mut self, e: &Expr) -> Cond {
        match e {
            Expr::Binary(BinaryOp::And, _, _) => {
                let mut parts = Vec::new();
                self.flatten(e, BinaryOp::And, &mut parts);
                Cond::All(parts)
            }
            Expr::Binary(BinaryOp::Or, _, _) => {
                let mut parts = Vec::new();
                self.flatten(e, BinaryOp::Or, &mut parts);
                Cond::Any(parts)
            }
            Expr::Unary(UnaryOp::Not, inner) => match self.lower(inner) {
                Cond::Not(c) => *c,
                c => Cond::Not(Box::new(c)),
            },
            Expr::Const(Value::Bool(true)) => Cond::True,
            Expr::Const(Value::Bool(false)) => Cond::Not(Box::new(Cond::True)),
            Expr::Binary(BinaryOp::Ne, a, b) => Cond::Not(Box::new(
                self.atom(leaf(&Expr::Binary(BinaryOp::Eq, a.clone(), b.clone()))),
            )),
            _ => self.atom(leaf(e)),
        }
    }

    fn flatten(&mut self, e: &Expr, op: BinaryOp, out: &mut Vec<Cond>) {
        match e {
            Expr::Binary(o, a, b) if *o == op => {
                self.flatten(a, op, out);
                self.flatten(b, op, out);
            }
            _ => out.push(self.lower(e)),
        }
    }

    fn atom(&mut self, atom: Atom) -> Cond {
        // Atoms hold floats and JSON values, so their canonical JSON text is
        // the dedup key.
        let key = serde_json::to_string(&atom).unwrap_or_default();
        let next = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        let id = *self.ids.entry(key).or_insert(next);
        if id == next {
            self.list.push(atom);
        }
        Cond::Atom(id)
    }
}

/// Where the atoms [`Atoms::cond`] makes for `expr` are written, in the order
/// it makes them (the leaves of the condition, depth first, left to right).
/// It mirrors `lower`: `and`/`or`/`not` recurse, boolean constants make no
/// atom, everything else is one. `None` when `spans` does not have the shape
/// of `expr`.
pub(super) fn leaf_spans<'s>(
    expr: &Expr,
    spans: &'s crate::check::CondSpans,
    out: &mut Vec<&'s crate::check::CondSpans>,
) -> Option<()> {
    match expr {
        Expr::Binary(BinaryOp::And | BinaryOp::Or, a, b) => match spans.children.as_slice() {
            [sa, sb] => {
                leaf_spans(a, sa, out)?;
                leaf_spans(b, sb, out)
            }
            _ => None,
        },
        Expr::Unary(UnaryOp::Not, inner) => match spans.children.as_slice() {
            [s] => leaf_spans(inner, s, out),
            _ => None,
        },
        Expr::Const(Value::Bool(_)) => Some(()),
        _ => {
            out.push(spans);
            Some(())
        }
    }
}

/// The number of atom leaves of a condition tree.
pub(super) fn count_atoms(cond: &Cond) -> usize {
    match cond {
        Cond::True => 0,
        Cond::Atom(_) => 1,
        Cond::Not(c) => count_atoms(c),
        Cond::All(cs) | Cond::Any(cs) => cs.iter().map(count_atoms).sum(),
    }
}

/// The field atom for a leaf condition, or an expression atom when the leaf
/// does not test one field against constants.
fn leaf(e: &Expr) -> Atom {
    match e {
        Expr::Path(p) => Atom::Eq(p.clone(), Value::Bool(true)),
        Expr::Binary(op, a, b) => match (op, a.as_ref(), b.as_ref()) {
            (BinaryOp::Eq, Expr::Path(p), Expr::Const(c))
            | (BinaryOp::Eq, Expr::Const(c), Expr::Path(p)) => Atom::Eq(p.clone(), c.clone()),
            (
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
                Expr::Path(p),
                Expr::Const(Value::Number(n)),
            ) => match (cmp(*op), n.as_f64()) {
                (Some(op), Some(n)) => Atom::Cmp(p.clone(), op, n),
                _ => Atom::Expr(e.clone()),
            },
            (
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
                Expr::Const(Value::Number(n)),
                Expr::Path(p),
            ) => match (cmp(*op).map(flip), n.as_f64()) {
                (Some(op), Some(n)) => Atom::Cmp(p.clone(), op, n),
                _ => Atom::Expr(e.clone()),
            },
            (BinaryOp::Contains, Expr::Path(p), Expr::Const(c)) => {
                Atom::Contains(p.clone(), c.clone())
            }
            (BinaryOp::StartsWith, Expr::Path(p), Expr::Const(Value::String(s))) => {
                Atom::StartsWith(p.clone(), s.clone())
            }
            (BinaryOp::EndsWith, Expr::Path(p), Expr::Const(Value::String(s))) => {
                Atom::EndsWith(p.clone(), s.clone())
            }
            _ => Atom::Expr(e.clone()),
        },
        Expr::In(a, b) => match (a.as_ref(), b.as_ref()) {
            (Expr::Path(p), Expr::Const(Value::Array(items))) => Atom::In(p.clone(), items.clone()),
            _ => Atom::Expr(e.clone()),
        },
        Expr::ContainsAny(a, b) => match (a.as_ref(), b.as_ref()) {
            (Expr::Path(p), Expr::Const(Value::Array(items))) => {
                Atom::ContainsAny(p.clone(), items.clone())
            }
            _ => Atom::Expr(e.clone()),
        },
        Expr::Matches(a, re) => match a.as_ref() {
            Expr::Path(p) => Atom::Matches(p.clone(), *re),
            _ => Atom::Expr(e.clone()),
        },
        Expr::Exists(p) => Atom::Exists(p.clone()),
        Expr::Rate(r) => Atom::Rate(r.clone()),
        _ => Atom::Expr(e.clone()),
    }
}

fn cmp(op: BinaryOp) -> Option<CmpOp> {
    Some(match op {
        BinaryOp::Lt => CmpOp::Lt,
        BinaryOp::Le => CmpOp::Le,
        BinaryOp::Gt => CmpOp::Gt,
        BinaryOp::Ge => CmpOp::Ge,
        _ => return None,
    })
}

/// `3 < x` is `x > 3`.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
    }
}

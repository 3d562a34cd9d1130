//! Conditions to boolean trees over atoms, each atom numbered once per point.

use crate::ir::{Atom, BinaryOp, CmpOp, Cond, Expr, FieldPath, RateTest, RegexId, UnaryOp};
use crate::span::Spanned;
use crate::strings::FastHasher;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// The atoms of one point, deduplicated: two atoms are one when their
/// canonical JSON texts are equal (atoms hold floats and JSON values).
///
/// Most atoms are compared by value instead ([`Leaf::by_value`]), which is the
/// same test for them without writing the JSON: a `contains any` of a
/// 20-item list was written twice over (the list as JSON text inside the
/// atom's) for every rule that used it.
#[derive(Default)]
pub(super) struct Atoms {
    list: Vec<Atom>,
    /// The ids of the atoms by a hash that atoms with equal JSON texts
    /// share (see [`Atoms::atom`]).
    buckets: HashMap<u64, Vec<u32>, crate::strings::Fast>,
    /// The JSON text of each atom that is not compared by value, by id.
    texts: HashMap<u32, String, crate::strings::Fast>,
}

impl Atoms {
    /// The condition tree of a rule's ANDed lines: `True` without one, a
    /// line lowered as it is, several flattened into one `All` (with the
    /// `and`s inside each).
    pub(super) fn conjunction(&mut self, lines: &[Spanned<Expr>]) -> Cond {
        match lines {
            [] => Cond::True,
            [line] => self.lower(&line.node),
            lines => {
                let mut parts = Vec::new();
                for line in lines {
                    self.flatten(&line.node, BinaryOp::And, &mut parts);
                }
                Cond::All(parts)
            }
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
            // A field against a constant: `!=` is the negation of the
            // field's `==` atom, which its field matcher decides (a missing
            // field reads as null, so `payload.x != "a"` holds without it).
            // Any other comparison stays an atom of its own: an operand
            // that cannot be evaluated (`null & 8`) makes it false, as it
            // makes `==` false; negating `==` would make it true.
            Expr::Binary(BinaryOp::Ne, a, b) => {
                let eq = Expr::Binary(BinaryOp::Eq, a.clone(), b.clone());
                match leaf(&eq) {
                    Leaf::Expr(_) => self.atom(leaf(e)),
                    field => Cond::Not(Box::new(self.atom(field))),
                }
            }
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

    /// The id of the atom `leaf` makes, numbered when the point has no
    /// equal atom yet (only then are its constants copied).
    fn atom(&mut self, leaf: Leaf<'_>) -> Cond {
        // An atom compared by value and one compared by JSON text never
        // have equal texts (see `Leaf::by_value`), so each kind is hashed
        // and compared its own way.
        let (hash, text) = if leaf.by_value() {
            let mut h = FastHasher::default();
            0u8.hash(&mut h);
            leaf.hash_value(&mut h);
            (h.finish(), None)
        } else {
            let text = serde_json::to_string(&leaf.atom()).unwrap_or_default();
            let mut h = FastHasher::default();
            (1u8, &text).hash(&mut h);
            (h.finish(), Some(text))
        };
        let bucket = self.buckets.entry(hash).or_default();
        let found = bucket.iter().copied().find(|&id| match &text {
            None => self
                .list
                .get(id as usize)
                .is_some_and(|other| leaf.is_value_of(other)),
            Some(text) => self.texts.get(&id) == Some(text),
        });
        if let Some(id) = found {
            return Cond::Atom(id);
        }
        let id = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        bucket.push(id);
        if let Some(text) = text {
            self.texts.insert(id, text);
        }
        self.list.push(leaf.atom());
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

/// The atom a leaf condition makes, borrowed from the condition: a field
/// atom, or an expression atom when the leaf does not test one field
/// against constants.
#[derive(Clone, Copy)]
enum Leaf<'e> {
    Eq(&'e FieldPath, &'e Value),
    In(&'e FieldPath, &'e [Value]),
    Cmp(&'e FieldPath, CmpOp, f64),
    Contains(&'e FieldPath, &'e Value),
    ContainsAny(&'e FieldPath, &'e [Value]),
    StartsWith(&'e FieldPath, &'e str),
    EndsWith(&'e FieldPath, &'e str),
    Matches(&'e FieldPath, RegexId),
    Exists(&'e FieldPath),
    Rate(&'e RateTest),
    Expr(&'e Expr),
}

impl Leaf<'_> {
    /// The atom, its constants copied.
    fn atom(self) -> Atom {
        match self {
            Leaf::Eq(p, v) => Atom::Eq(p.clone(), v.clone()),
            Leaf::In(p, items) => Atom::In(p.clone(), items.to_vec()),
            Leaf::Cmp(p, op, n) => Atom::Cmp(p.clone(), op, n),
            Leaf::Contains(p, v) => Atom::Contains(p.clone(), v.clone()),
            Leaf::ContainsAny(p, items) => Atom::ContainsAny(p.clone(), items.to_vec()),
            Leaf::StartsWith(p, s) => Atom::StartsWith(p.clone(), s.to_string()),
            Leaf::EndsWith(p, s) => Atom::EndsWith(p.clone(), s.to_string()),
            Leaf::Matches(p, re) => Atom::Matches(p.clone(), re),
            Leaf::Exists(p) => Atom::Exists(p.clone()),
            Leaf::Rate(r) => Atom::Rate(r.clone()),
            Leaf::Expr(e) => Atom::Expr(e.clone()),
        }
    }

    /// True for the atoms whose JSON texts are equal exactly when their
    /// parts are (`==`): field tests whose constants hold no object (the
    /// JSON text keeps an object's key order, `==` does not) and no float
    /// zero (`-0.0` and `0.0` are `==` but written apart), and whose
    /// comparison bound is a finite number other than zero (JSON writes
    /// every non-finite one as `null`). The JSON text of any other atom has
    /// an object, a float zero or a `null` where these have none, so no
    /// atom of one kind has the text of one of the other. Every other atom
    /// is compared by its JSON text.
    fn by_value(self) -> bool {
        fn plain(v: &Value) -> bool {
            match v {
                Value::Object(_) => false,
                Value::Array(items) => items.iter().all(plain),
                Value::Number(n) => !(n.is_f64() && n.as_f64() == Some(0.0)),
                Value::Null | Value::Bool(_) | Value::String(_) => true,
            }
        }
        match self {
            Leaf::Eq(_, v) | Leaf::Contains(_, v) => plain(v),
            Leaf::In(_, items) | Leaf::ContainsAny(_, items) => items.iter().all(plain),
            Leaf::Cmp(_, _, n) => n.is_finite() && n != 0.0,
            Leaf::StartsWith(..) | Leaf::EndsWith(..) | Leaf::Matches(..) | Leaf::Exists(_) => true,
            Leaf::Rate(_) | Leaf::Expr(_) => false,
        }
    }

    /// Hashes an atom compared by value: its kind and its parts, a bound by
    /// its bits (such bounds are not zero, so equal ones have equal bits).
    fn hash_value(self, h: &mut FastHasher) {
        std::mem::discriminant(&self).hash(h);
        match self {
            Leaf::Eq(p, v) | Leaf::Contains(p, v) => (p, v).hash(h),
            Leaf::In(p, items) | Leaf::ContainsAny(p, items) => (p, items).hash(h),
            Leaf::Cmp(p, op, n) => (p, op, n.to_bits()).hash(h),
            Leaf::StartsWith(p, s) | Leaf::EndsWith(p, s) => (p, s).hash(h),
            Leaf::Matches(p, re) => (p, re).hash(h),
            Leaf::Exists(p) => p.hash(h),
            Leaf::Rate(_) | Leaf::Expr(_) => {}
        }
    }

    /// True when `atom` is the atom this leaf makes, compared by value.
    fn is_value_of(self, atom: &Atom) -> bool {
        match (self, atom) {
            (Leaf::Eq(p, v), Atom::Eq(q, w)) | (Leaf::Contains(p, v), Atom::Contains(q, w)) => {
                p == q && v == w
            }
            (Leaf::In(p, a), Atom::In(q, b))
            | (Leaf::ContainsAny(p, a), Atom::ContainsAny(q, b)) => p == q && a == b.as_slice(),
            (Leaf::Cmp(p, op, n), Atom::Cmp(q, op2, m)) => p == q && op == *op2 && n == *m,
            (Leaf::StartsWith(p, s), Atom::StartsWith(q, t))
            | (Leaf::EndsWith(p, s), Atom::EndsWith(q, t)) => p == q && s == t,
            (Leaf::Matches(p, re), Atom::Matches(q, re2)) => p == q && re == *re2,
            (Leaf::Exists(p), Atom::Exists(q)) => p == q,
            _ => false,
        }
    }
}

/// The atom a leaf condition makes.
fn leaf(e: &Expr) -> Leaf<'_> {
    match e {
        Expr::Path(p) => Leaf::Eq(p, &TRUE),
        Expr::Binary(op, a, b) => match (op, a.as_ref(), b.as_ref()) {
            (BinaryOp::Eq, Expr::Path(p), Expr::Const(c))
            | (BinaryOp::Eq, Expr::Const(c), Expr::Path(p)) => Leaf::Eq(p, c),
            (
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
                Expr::Path(p),
                Expr::Const(Value::Number(n)),
            ) => match (cmp(*op), n.as_f64()) {
                (Some(op), Some(n)) => Leaf::Cmp(p, op, n),
                _ => Leaf::Expr(e),
            },
            (
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
                Expr::Const(Value::Number(n)),
                Expr::Path(p),
            ) => match (cmp(*op).map(flip), n.as_f64()) {
                (Some(op), Some(n)) => Leaf::Cmp(p, op, n),
                _ => Leaf::Expr(e),
            },
            (BinaryOp::Contains, Expr::Path(p), Expr::Const(c)) => Leaf::Contains(p, c),
            (BinaryOp::StartsWith, Expr::Path(p), Expr::Const(Value::String(s))) => {
                Leaf::StartsWith(p, s)
            }
            (BinaryOp::EndsWith, Expr::Path(p), Expr::Const(Value::String(s))) => {
                Leaf::EndsWith(p, s)
            }
            _ => Leaf::Expr(e),
        },
        Expr::In(a, b) => match (a.as_ref(), b.as_ref()) {
            (Expr::Path(p), Expr::Const(Value::Array(items))) => Leaf::In(p, items),
            _ => Leaf::Expr(e),
        },
        Expr::ContainsAny(a, b) => match (a.as_ref(), b.as_ref()) {
            (Expr::Path(p), Expr::Const(Value::Array(items))) => Leaf::ContainsAny(p, items),
            _ => Leaf::Expr(e),
        },
        Expr::Matches(a, re) => match a.as_ref() {
            Expr::Path(p) => Leaf::Matches(p, *re),
            _ => Leaf::Expr(e),
        },
        Expr::Exists(p) => Leaf::Exists(p),
        Expr::Rate(r) => Leaf::Rate(r),
        _ => Leaf::Expr(e),
    }
}

/// The constant a bare path is compared with (`payload.flag` is
/// `payload.flag == true`).
static TRUE: Value = Value::Bool(true);

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Root, Segment};
    use serde_json::json;

    fn field(name: &str) -> FieldPath {
        FieldPath {
            root: Root::Payload,
            segments: vec![Segment::Field(name.to_string())],
            normalized: false,
        }
    }

    /// The leaf that makes `atom`.
    fn view(atom: &Atom) -> Leaf<'_> {
        match atom {
            Atom::Eq(p, v) => Leaf::Eq(p, v),
            Atom::In(p, items) => Leaf::In(p, items),
            Atom::Cmp(p, op, n) => Leaf::Cmp(p, *op, *n),
            Atom::Contains(p, v) => Leaf::Contains(p, v),
            Atom::ContainsAny(p, items) => Leaf::ContainsAny(p, items),
            Atom::StartsWith(p, s) => Leaf::StartsWith(p, s),
            Atom::EndsWith(p, s) => Leaf::EndsWith(p, s),
            Atom::Matches(p, re) => Leaf::Matches(p, *re),
            Atom::Exists(p) => Leaf::Exists(p),
            Atom::Rate(r) => Leaf::Rate(r),
            Atom::Expr(e) => Leaf::Expr(e),
        }
    }

    /// Two atoms are one exactly when their JSON texts are equal, whether
    /// they are compared by value or by text: numbers written apart (`1`,
    /// `1.0`, `0.0`, `-0.0`), objects with their keys in another order,
    /// bounds JSON writes alike (`null` for every non-finite one).
    #[test]
    fn atoms_are_one_when_their_json_texts_are_equal() {
        let (a, b) = (field("a"), field("b"));
        let list = json!(["curl http://evil3", "wget http://drop3"]);
        let items = |v: &Value| v.as_array().cloned().unwrap_or_default();
        let atoms = vec![
            Atom::Eq(a.clone(), json!("x")),
            Atom::Eq(a.clone(), json!("x")),
            Atom::Eq(b.clone(), json!("x")),
            Atom::Eq(a.clone(), json!(1)),
            Atom::Eq(a.clone(), json!(1.0)),
            Atom::Eq(a.clone(), json!(0)),
            Atom::Eq(a.clone(), json!(0.0)),
            Atom::Eq(a.clone(), json!(-0.0)),
            Atom::Eq(a.clone(), json!(0.0)),
            Atom::Eq(a.clone(), json!({"k": 1, "l": 2})),
            Atom::Eq(a.clone(), json!({"l": 2, "k": 1})),
            Atom::Eq(a.clone(), json!({"k": 1, "l": 2})),
            Atom::In(a.clone(), vec![json!(1), json!({"k": 1})]),
            Atom::In(a.clone(), vec![json!(1), json!({"k": 1})]),
            Atom::Cmp(a.clone(), CmpOp::Gt, 5.0),
            Atom::Cmp(a.clone(), CmpOp::Gt, 5.0),
            Atom::Cmp(a.clone(), CmpOp::Ge, 5.0),
            Atom::Cmp(a.clone(), CmpOp::Gt, 0.0),
            Atom::Cmp(a.clone(), CmpOp::Gt, -0.0),
            Atom::Cmp(a.clone(), CmpOp::Gt, f64::INFINITY),
            Atom::Cmp(a.clone(), CmpOp::Gt, f64::NAN),
            Atom::Cmp(a.clone(), CmpOp::Gt, f64::NEG_INFINITY),
            Atom::ContainsAny(a.clone(), items(&list)),
            Atom::ContainsAny(a.clone(), items(&list)),
            Atom::ContainsAny(b.clone(), items(&list)),
            Atom::Contains(a.clone(), json!("rm")),
            Atom::StartsWith(a.clone(), "rm".into()),
            Atom::EndsWith(a.clone(), "rm".into()),
            Atom::Matches(a.clone(), RegexId(1)),
            Atom::Matches(a.clone(), RegexId(1)),
            Atom::Matches(a.clone(), RegexId(2)),
            Atom::Exists(a.clone()),
            Atom::Exists(a.clone()),
            Atom::Expr(Expr::Path(b.clone())),
            Atom::Expr(Expr::Path(b.clone())),
        ];
        let mut deduped = Atoms::default();
        let ids: Vec<Cond> = atoms.iter().map(|x| deduped.atom(view(x))).collect();
        let mut by_text: Vec<String> = Vec::new();
        let expected: Vec<Cond> = atoms
            .iter()
            .map(|x| {
                let text = serde_json::to_string(x).unwrap();
                let id = by_text.iter().position(|t| *t == text).unwrap_or_else(|| {
                    by_text.push(text);
                    by_text.len() - 1
                });
                Cond::Atom(u32::try_from(id).unwrap())
            })
            .collect();
        assert_eq!(ids, expected);
        assert_eq!(deduped.into_vec().len(), by_text.len());
        // The cases above are not all one: the test sees both answers.
        assert!(by_text.len() > 10 && by_text.len() < atoms.len() - 10);
    }
}

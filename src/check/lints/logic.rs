//! Reasoning about lowered conditions: a rule's conjuncts as *facts* about
//! fields, and when one fact implies another or two cannot both hold.
//!
//! Everything here is conservative: "implies" and "contradicts" answer true
//! only when that follows from the runtime's semantics (JSON equality with
//! numbers compared by value, comparisons that are false on non-numbers,
//! string tests that are false on non-strings); anything the analysis does
//! not understand is an opaque fact, equal only to itself.

use super::Cx;
use crate::check::CheckedRule;
use crate::fql::{FqlPattern, Segment as FqlSegment};
use crate::ir::{Action, BinaryOp, CmpOp, Expr, FieldPath, RegexId, Root, Segment, UnaryOp};
use crate::runtime::json_eq;
use crate::span::Span;
use serde_json::Value;

/// A test of one field against constants.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Test {
    /// `== value`.
    Eq(Value),
    /// `in [values]`.
    In(Vec<Value>),
    /// `< n` and friends, with a numeric constant.
    Cmp(CmpOp, f64),
    /// `starts_with "s"`.
    StartsWith(String),
    /// `ends_with "s"`.
    EndsWith(String),
    /// `contains value`.
    Contains(Value),
    /// `matches /re/` or `glob`.
    Matches(RegexId),
    /// `exists`.
    Exists,
}

/// One conjunct of a rule's condition, understood as far as possible.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Fact<'e> {
    /// `true` or `false`.
    Const(bool),
    /// A test of a field; `holds` is false for a negated test.
    Field {
        path: &'e FieldPath,
        test: Test,
        holds: bool,
    },
    /// Anything else, negated when `holds` is false.
    Other { expr: &'e Expr, holds: bool },
}

impl<'e> Fact<'e> {
    /// The negation.
    pub(crate) fn negate(self) -> Fact<'e> {
        match self {
            Fact::Const(b) => Fact::Const(!b),
            Fact::Field { path, test, holds } => Fact::Field {
                path,
                test,
                holds: !holds,
            },
            Fact::Other { expr, holds } => Fact::Other {
                expr,
                holds: !holds,
            },
        }
    }
}

/// A conjunct: its expression, what it says, and the condition line it is on.
#[derive(Clone, Debug)]
pub(crate) struct Conjunct<'e> {
    /// The expression as lowered (an `unless` line's is negated).
    pub(crate) expr: &'e Expr,
    /// True when the conjunct is the negation of `expr`.
    pub(crate) negated: bool,
    /// What it says.
    pub(crate) fact: Fact<'e>,
    /// The `when`/`unless` line.
    pub(crate) span: Span,
}

/// The ANDed conjuncts of a rule: its `when`/`unless` lines split at `and`
/// (and at `or` under a `not`, by De Morgan).
pub(crate) fn conjuncts(rule: &CheckedRule) -> Vec<Conjunct<'_>> {
    let mut out = Vec::new();
    for c in &rule.conditions {
        flatten(&c.node, false, c.span, &mut out);
    }
    out
}

fn flatten<'e>(e: &'e Expr, negated: bool, span: Span, out: &mut Vec<Conjunct<'e>>) {
    match e {
        Expr::Binary(BinaryOp::And, a, b) if !negated => {
            flatten(a, false, span, out);
            flatten(b, false, span, out);
        }
        Expr::Binary(BinaryOp::Or, a, b) if negated => {
            flatten(a, true, span, out);
            flatten(b, true, span, out);
        }
        Expr::Unary(UnaryOp::Not, inner) => flatten(inner, !negated, span, out),
        _ => {
            let f = fact(e);
            out.push(Conjunct {
                expr: e,
                negated,
                fact: if negated { f.negate() } else { f },
                span,
            });
        }
    }
}

/// What an expression (not a negation) says.
pub(crate) fn fact(e: &Expr) -> Fact<'_> {
    let other = Fact::Other {
        expr: e,
        holds: true,
    };
    let field = |path, test| Fact::Field {
        path,
        test,
        holds: true,
    };
    match e {
        Expr::Const(Value::Bool(b)) => Fact::Const(*b),
        Expr::Unary(UnaryOp::Not, inner) => fact(inner).negate(),
        Expr::Binary(op, a, b) => {
            let (path, value, flipped) = match (&**a, &**b) {
                (Expr::Path(p), Expr::Const(v)) => (p, v, false),
                (Expr::Const(v), Expr::Path(p)) => (p, v, true),
                _ => return other,
            };
            match op {
                BinaryOp::Eq => field(path, Test::Eq(value.clone())),
                BinaryOp::Ne => field(path, Test::Eq(value.clone())).negate(),
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                    let Some(n) = value.as_f64().filter(|_| value.is_number()) else {
                        return other;
                    };
                    let op = match (op, flipped) {
                        (BinaryOp::Lt, false) | (BinaryOp::Gt, true) => CmpOp::Lt,
                        (BinaryOp::Le, false) | (BinaryOp::Ge, true) => CmpOp::Le,
                        (BinaryOp::Gt, false) | (BinaryOp::Lt, true) => CmpOp::Gt,
                        _ => CmpOp::Ge,
                    };
                    field(path, Test::Cmp(op, n))
                }
                BinaryOp::Contains if !flipped => field(path, Test::Contains(value.clone())),
                BinaryOp::StartsWith if !flipped => match value {
                    Value::String(s) => field(path, Test::StartsWith(s.clone())),
                    _ => other,
                },
                BinaryOp::EndsWith if !flipped => match value {
                    Value::String(s) => field(path, Test::EndsWith(s.clone())),
                    _ => other,
                },
                _ => other,
            }
        }
        Expr::In(lhs, list) => match (&**lhs, &**list) {
            (Expr::Path(p), Expr::Const(Value::Array(items))) => field(p, Test::In(items.clone())),
            _ => other,
        },
        Expr::Matches(lhs, id) => match &**lhs {
            Expr::Path(p) => field(p, Test::Matches(*id)),
            _ => other,
        },
        Expr::Exists(p) => field(p, Test::Exists),
        _ => other,
    }
}

/// The value of a test on a known, non-null value; `None` when unknown.
fn eval(cx: &Cx<'_>, test: &Test, v: &Value) -> Option<bool> {
    Some(match test {
        Test::Eq(c) => json_eq(v, c),
        Test::In(items) => items.iter().any(|c| json_eq(v, c)),
        Test::Cmp(op, n) => v.is_number() && v.as_f64().is_some_and(|x| op.test(x, *n)),
        Test::StartsWith(s) => v.as_str().is_some_and(|x| x.starts_with(s.as_str())),
        Test::EndsWith(s) => v.as_str().is_some_and(|x| x.ends_with(s.as_str())),
        Test::Contains(needle) => match (v, needle) {
            (Value::String(h), Value::String(n)) => h.contains(n.as_str()),
            (Value::Object(map), Value::String(n)) => map.contains_key(n),
            (Value::Array(items), n) => items.iter().any(|i| json_eq(i, n)),
            _ => false,
        },
        Test::Matches(id) => {
            let re = cx.regex(*id)?;
            v.as_str().is_some_and(|s| re.is_match(s))
        }
        Test::Exists => true,
    })
}

/// The values a field can have when a positive test holds, if the test
/// pins it to a few non-null constants.
fn candidates(test: &Test) -> Option<&[Value]> {
    let values = match test {
        Test::Eq(v) => std::slice::from_ref(v),
        Test::In(items) => items.as_slice(),
        _ => return None,
    };
    (!values.iter().any(Value::is_null)).then_some(values)
}

/// True when a positive test can only hold on a field that is present.
fn needs_presence(test: &Test) -> bool {
    match test {
        Test::Eq(v) => !v.is_null(),
        Test::In(items) => !items.iter().any(Value::is_null),
        Test::Cmp(..)
        | Test::StartsWith(_)
        | Test::EndsWith(_)
        | Test::Contains(_)
        | Test::Matches(_)
        | Test::Exists => true,
    }
}

/// The numeric bound a positive comparison puts on its field: `(n, strict,
/// lower)`.
fn bound(op: CmpOp, n: f64) -> (f64, bool, bool) {
    match op {
        CmpOp::Lt => (n, true, false),
        CmpOp::Le => (n, false, false),
        CmpOp::Gt => (n, true, true),
        CmpOp::Ge => (n, false, true),
    }
}

/// True when `a` implies `b`: whenever `a` holds, so does `b`.
pub(crate) fn implies(cx: &Cx<'_>, a: &Fact<'_>, b: &Fact<'_>) -> bool {
    if a == b {
        return true;
    }
    match (a, b) {
        (Fact::Const(false), _) | (_, Fact::Const(true)) => true,
        (
            Fact::Field {
                path: pa,
                test: ta,
                holds: true,
            },
            Fact::Field {
                path: pb,
                test: tb,
                holds: hb,
            },
        ) if pa == pb => {
            if let Some(values) = candidates(ta) {
                return values
                    .iter()
                    .all(|v| eval(cx, tb, v).is_some_and(|r| r == *hb));
            }
            match (ta, tb, hb) {
                (_, Test::Exists, true) => needs_presence(ta),
                (Test::Cmp(oa, na), Test::Cmp(ob, nb), true) => {
                    let (xa, sa, la) = bound(*oa, *na);
                    let (xb, sb, lb) = bound(*ob, *nb);
                    la == lb
                        && if la {
                            xa > xb || (xa == xb && (sa || !sb))
                        } else {
                            xa < xb || (xa == xb && (sa || !sb))
                        }
                }
                // A number in a range is not equal to a value outside it.
                (Test::Cmp(op, n), Test::Eq(c), false) => {
                    !(c.is_number() && c.as_f64().is_some_and(|x| op.test(x, *n)))
                }
                (Test::StartsWith(x), Test::StartsWith(y), true) => x.starts_with(y.as_str()),
                (Test::EndsWith(x), Test::EndsWith(y), true) => x.ends_with(y.as_str()),
                // A test that holds only on strings, and a string test
                // that holds on every string the first one does: their
                // languages, through a DFA product.
                (ta, tb, true) if needs_string(ta) => text_never(cx, (ta, true), (tb, false)),
                // ... and one whose language does not meet the first's.
                (ta, tb, false) if needs_string(ta) => text_never(cx, (ta, true), (tb, true)),
                _ => false,
            }
        }
        // `not ta` implies `not tb` when `tb` implies `ta`: on strings, the
        // languages; on anything else `tb` (a test that needs a string)
        // is false.
        (
            Fact::Field {
                path: pa,
                test: ta,
                holds: false,
            },
            Fact::Field {
                path: pb,
                test: tb,
                holds: false,
            },
        ) if pa == pb && needs_string(tb) => text_never(cx, (tb, true), (ta, false)),
        _ => false,
    }
}

/// True for the tests that hold only on a string.
pub(crate) fn needs_string(test: &Test) -> bool {
    matches!(
        test,
        Test::StartsWith(_) | Test::EndsWith(_) | Test::Matches(_)
    )
}

/// A string test, as the key of what is known about it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TextKey {
    Starts(String),
    Ends(String),
    Contains(String),
    Matches(RegexId),
}

impl TextKey {
    fn of(test: &Test) -> Option<TextKey> {
        Some(match test {
            Test::StartsWith(s) => TextKey::Starts(s.clone()),
            Test::EndsWith(s) => TextKey::Ends(s.clone()),
            Test::Contains(Value::String(s)) => TextKey::Contains(s.clone()),
            Test::Matches(id) => TextKey::Matches(*id),
            _ => return None,
        })
    }
}

/// True when no string passes the test `a` (or fails it, with `false`)
/// and passes (or fails) `b`: the product of their DFAs, one of them
/// complemented for `false`, has no string ([`Cx::text_never`]).
fn text_never(cx: &Cx<'_>, (a, ha): (&Test, bool), (b, hb): (&Test, bool)) -> bool {
    let (Some(ka), Some(kb)) = (TextKey::of(a), TextKey::of(b)) else {
        return false;
    };
    cx.text_never(
        (ka, ha),
        (kb, hb),
        || in_both(cx, (a, ha), (b, hb)),
        || {
            let lang = |t: &Test, holds: bool| {
                text_lang(cx, t).map(|l| if holds { l } else { l.complement() })
            };
            Some([lang(a, ha)?, lang(b, hb)?])
        },
    )
}

/// True when a string passes (or fails) `a` and passes (or fails) `b`,
/// found without automata: the empty string, or a string spelled from a
/// test that must pass ([`text_example`]), each checked by evaluating both
/// tests on it. False says nothing.
fn in_both(cx: &Cx<'_>, (a, ha): (&Test, bool), (b, hb): (&Test, bool)) -> bool {
    let spelled = [(a, ha), (b, hb)]
        .into_iter()
        .filter(|&(_, holds)| holds)
        .filter_map(|(test, _)| text_example(cx, test));
    std::iter::once(String::new()).chain(spelled).any(|text| {
        let value = Value::String(text);
        eval(cx, a, &value) == Some(ha) && eval(cx, b, &value) == Some(hb)
    })
}

/// A string a string test probably holds on: its needle, or one its
/// regex probably matches ([`crate::strings::guess_match`]).
fn text_example(cx: &Cx<'_>, test: &Test) -> Option<String> {
    match test {
        Test::StartsWith(s) | Test::EndsWith(s) | Test::Contains(Value::String(s)) => {
            Some(s.clone())
        }
        Test::Matches(id) => crate::strings::guess_match(&cx.regex_source(*id)?.to_inline()),
        _ => None,
    }
}

/// The strings a string test holds on (for `contains`, the strings it
/// holds on; it also holds on arrays and objects).
pub(crate) fn text_lang(cx: &Cx<'_>, test: &Test) -> Option<crate::strings::Lang> {
    use crate::strings::Lang;
    Some(match test {
        Test::StartsWith(s) => Lang::starting_with(s),
        Test::EndsWith(s) => Lang::ending_with(s),
        Test::Contains(Value::String(s)) => Lang::containing(s),
        Test::Matches(id) => Lang::matching(&cx.regex_source(*id)?.to_inline()),
        _ => return None,
    })
}

/// Why two facts cannot both hold, if they cannot.
pub(crate) fn contradicts(cx: &Cx<'_>, a: &Fact<'_>, b: &Fact<'_>) -> bool {
    if *a == b.clone().negate() {
        return true;
    }
    match (a, b) {
        (Fact::Const(false), _) | (_, Fact::Const(false)) => true,
        (
            Fact::Field {
                path: pa,
                test: ta,
                holds: ha,
            },
            Fact::Field {
                path: pb,
                test: tb,
                holds: hb,
            },
        ) if pa == pb => {
            // One pins the field to constants: evaluate the other on each.
            for (t1, h1, t2, h2) in [(ta, ha, tb, hb), (tb, hb, ta, ha)] {
                if !*h1 {
                    continue;
                }
                if let Some(values) = candidates(t1) {
                    if values
                        .iter()
                        .all(|v| eval(cx, t2, v).is_some_and(|r| r != *h2))
                    {
                        return true;
                    }
                }
                // Present versus absent.
                if *t2 == Test::Exists && !*h2 && needs_presence(t1) {
                    return true;
                }
            }
            match (ta, ha, tb, hb) {
                (Test::Cmp(oa, na), true, Test::Cmp(ob, nb), true) => {
                    let (xa, sa, la) = bound(*oa, *na);
                    let (xb, sb, lb) = bound(*ob, *nb);
                    if la == lb {
                        return false;
                    }
                    let ((lo, lo_strict), (hi, hi_strict)) = if la {
                        ((xa, sa), (xb, sb))
                    } else {
                        ((xb, sb), (xa, sa))
                    };
                    lo > hi || (lo == hi && (lo_strict || hi_strict))
                }
                (Test::StartsWith(x), true, Test::StartsWith(y), true) => {
                    !x.starts_with(y.as_str()) && !y.starts_with(x.as_str())
                }
                (Test::EndsWith(x), true, Test::EndsWith(y), true) => {
                    !x.ends_with(y.as_str()) && !y.ends_with(x.as_str())
                }
                // Two string tests, one of which needs a string: no string
                // passes both (their languages do not meet).
                (ta, true, tb, true) if needs_string(ta) || needs_string(tb) => {
                    text_never(cx, (ta, true), (tb, true))
                }
                // A test that needs a string, and the negation of one that
                // holds on every string the first holds on.
                (ta, true, tb, false) | (tb, false, ta, true) if needs_string(ta) => {
                    text_never(cx, (ta, true), (tb, false))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// True when a fact can never hold on its own.
pub(crate) fn never_holds(fact: &Fact<'_>) -> bool {
    match fact {
        Fact::Const(false) => true,
        Fact::Field {
            test: Test::In(items),
            holds: true,
            ..
        } => items.is_empty(),
        _ => false,
    }
}

/// The conjuncts of `rule` that cannot hold together: the first pair found
/// (or one conjunct twice, when it cannot hold on its own).
pub(crate) fn contradiction<'a, 'e>(
    cx: &Cx<'_>,
    conjuncts: &'a [Conjunct<'e>],
) -> Option<(&'a Conjunct<'e>, &'a Conjunct<'e>)> {
    for (i, a) in conjuncts.iter().enumerate() {
        if never_holds(&a.fact) {
            return Some((a, a));
        }
        for b in conjuncts.iter().skip(i + 1) {
            if contradicts(cx, &a.fact, &b.fact) {
                return Some((a, b));
            }
        }
    }
    None
}

/// True when the conjunction of two rules' conditions can never hold.
pub(crate) fn disjoint(cx: &Cx<'_>, a: &[Conjunct<'_>], b: &[Conjunct<'_>]) -> bool {
    a.iter()
        .any(|x| never_holds(&x.fact) || b.iter().any(|y| contradicts(cx, &x.fact, &y.fact)))
        || b.iter().any(|y| never_holds(&y.fact))
}

/// True when FQL pattern `a` matches every call `b` matches.
pub(crate) fn covers(a: &FqlPattern, b: &FqlPattern) -> bool {
    fn seg(a: &FqlSegment, b: &FqlSegment) -> bool {
        match (a, b) {
            (FqlSegment::Any, _) => true,
            (FqlSegment::Exact(x), FqlSegment::Exact(y)) => x == y,
            (FqlSegment::Exact(_), FqlSegment::Any) => false,
        }
    }
    let child = match (&a.child, &b.child) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(x), Some(y)) => seg(x, y),
    };
    // An instance pattern is ignored by calls without an instance, so
    // `#*` covers like no instance at all, and an exact instance covers
    // only the same exact instance.
    let instance = match (&a.instance, &b.instance) {
        (None | Some(FqlSegment::Any), _) => true,
        (Some(FqlSegment::Exact(x)), Some(FqlSegment::Exact(y))) => x == y,
        (Some(FqlSegment::Exact(_)), _) => false,
    };
    seg(&a.scope, &b.scope) && seg(&a.target, &b.target) && child && instance
}

/// True when some call matches both FQL patterns.
pub(crate) fn overlaps(a: &FqlPattern, b: &FqlPattern) -> bool {
    fn seg(a: &FqlSegment, b: &FqlSegment) -> bool {
        match (a, b) {
            (FqlSegment::Exact(x), FqlSegment::Exact(y)) => x == y,
            _ => true,
        }
    }
    let child = match (&a.child, &b.child) {
        (Some(x), Some(y)) => seg(x, y),
        _ => true,
    };
    // A call without an instance matches any instance pattern.
    seg(&a.scope, &b.scope) && seg(&a.target, &b.target) && child
}

/// The action that ends the chain whenever the rule runs, if there is one:
/// the first `abort` or `skip`, with no effect before it that could fail
/// open (and so leave the rule without ending the chain).
pub(crate) fn always_ends(rule: &CheckedRule) -> Option<usize> {
    for (i, action) in rule.actions.iter().enumerate() {
        match &action.node {
            Action::Abort(_) | Action::Skip(_) => return Some(i),
            Action::Exec { .. } | Action::Webhook { .. } | Action::Call(_)
                if rule.fail == crate::ir::FailMode::Open =>
            {
                return None
            }
            _ => {}
        }
    }
    None
}

/// A field an action edits, with the action's index. `replace` edits the
/// whole payload, `meta k` the metadata key `k`.
pub(crate) fn edits(rule: &CheckedRule) -> Vec<(FieldPath, usize)> {
    rule.actions
        .iter()
        .enumerate()
        .filter_map(|(i, action)| {
            let path = match &action.node {
                Action::Set(p, _)
                | Action::Unset(p)
                | Action::Rewrite(p, ..)
                | Action::Prepend(p, _)
                | Action::Append(p, _) => p.clone(),
                Action::Meta(key, _) => FieldPath {
                    root: Root::Metadata,
                    segments: vec![Segment::Field(key.clone())],
                    normalized: false,
                },
                Action::Replace(_) => FieldPath {
                    root: Root::Payload,
                    segments: Vec::new(),
                    normalized: false,
                },
                _ => return None,
            };
            Some((path, i))
        })
        .collect()
}

/// True when one path is the other or lies under it.
pub(crate) fn paths_overlap(a: &FieldPath, b: &FieldPath) -> bool {
    a.root == b.root && {
        let n = a.segments.len().min(b.segments.len());
        a.segments.get(..n) == b.segments.get(..n)
    }
}

/// True for actions whose effect could change what a later rule sees
/// beyond the fields [`edits`] lists: effects and handlers run by the host.
pub(crate) fn edits_unknown(rule: &CheckedRule) -> bool {
    rule.actions.iter().any(|a| {
        matches!(
            a.node,
            Action::Exec { .. } | Action::Call(_) | Action::Lua(_)
        )
    })
}

/// Every field path an expression reads.
pub(crate) fn reads<'e>(e: &'e Expr, out: &mut Vec<&'e FieldPath>) {
    match e {
        Expr::Const(_) => {}
        Expr::Path(p) | Expr::Exists(p) => out.push(p),
        Expr::Template(t) => {
            for part in &t.parts {
                if let crate::ir::TemplatePart::Path(p) = part {
                    out.push(p);
                }
            }
        }
        Expr::Array(items) => items.iter().for_each(|i| reads(i, out)),
        Expr::Object(fields) => fields.iter().for_each(|(_, v)| reads(v, out)),
        Expr::Unary(_, x) | Expr::Matches(x, _) | Expr::WordsAny(x, _) | Expr::InSet(x, _) => {
            reads(x, out)
        }
        Expr::Binary(_, a, b) | Expr::In(a, b) | Expr::ContainsAny(a, b) => {
            reads(a, out);
            reads(b, out);
        }
        Expr::Rate(r) => {
            for part in &r.key.parts {
                if let crate::ir::TemplatePart::Path(p) = part {
                    out.push(p);
                }
            }
        }
        Expr::Quantifier(_, list, body) | Expr::Let(list, body) => {
            reads(list, out);
            reads(body, out);
        }
        Expr::Var(..) => {}
        Expr::Call(_, args) => args.iter().for_each(|a| reads(a, out)),
        Expr::Capture(subject, ..) => reads(subject, out),
    }
}

/// An expression as it would be written, for messages.
pub(crate) fn show(cx: &Cx<'_>, e: &Expr) -> String {
    let mut out = String::new();
    write_expr(cx, e, false, &mut out);
    out
}

/// A conjunct as written, `not` included (a negated `==` is shown as `!=`).
pub(crate) fn show_conjunct(cx: &Cx<'_>, c: &Conjunct<'_>) -> String {
    if !c.negated {
        return show(cx, c.expr);
    }
    let mut out = String::new();
    match c.expr {
        Expr::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), a, b) => {
            write_expr(cx, a, true, &mut out);
            out.push_str(if *op == BinaryOp::Eq { " != " } else { " == " });
            write_expr(cx, b, true, &mut out);
        }
        _ => {
            out.push_str("not ");
            write_expr(cx, c.expr, true, &mut out);
        }
    }
    out
}

/// A JSON value as rules write it: `["a", "b"]`, `{"k": 1}`.
fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                write_value(item, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn write_expr(cx: &Cx<'_>, e: &Expr, nested: bool, out: &mut String) {
    let compound = matches!(
        e,
        Expr::Binary(..)
            | Expr::In(..)
            | Expr::ContainsAny(..)
            | Expr::Matches(..)
            | Expr::WordsAny(..)
            | Expr::InSet(..)
    );
    if nested && compound {
        out.push('(');
    }
    match e {
        Expr::Const(v) => write_value(v, out),
        Expr::Path(p) => out.push_str(&p.to_string()),
        Expr::Exists(p) => {
            out.push_str(&p.to_string());
            out.push_str(" exists");
        }
        Expr::Template(t) => {
            out.push('"');
            for part in &t.parts {
                match part {
                    crate::ir::TemplatePart::Lit(s) => out.push_str(s),
                    crate::ir::TemplatePart::Path(p) => {
                        out.push('{');
                        out.push_str(&p.to_string());
                        out.push('}');
                    }
                    crate::ir::TemplatePart::Expr(e) => {
                        out.push('{');
                        write_expr(cx, e, false, out);
                        out.push('}');
                    }
                }
            }
            out.push('"');
        }
        Expr::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(cx, item, false, out);
            }
            out.push(']');
        }
        Expr::Object(fields) => {
            out.push('{');
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                write_expr(cx, v, false, out);
            }
            out.push('}');
        }
        Expr::Unary(op, x) => {
            out.push_str(match op {
                UnaryOp::Not => "not ",
                UnaryOp::Neg => "-",
                UnaryOp::BitNot => "~",
            });
            write_expr(cx, x, true, out);
        }
        Expr::Binary(op, a, b) => {
            write_expr(cx, a, true, out);
            out.push(' ');
            out.push_str(op.as_str());
            out.push(' ');
            write_expr(cx, b, true, out);
        }
        Expr::In(a, b) => {
            write_expr(cx, a, true, out);
            out.push_str(" in ");
            write_expr(cx, b, true, out);
        }
        Expr::ContainsAny(a, b) => {
            write_expr(cx, a, true, out);
            out.push_str(" contains any ");
            write_expr(cx, b, true, out);
        }
        Expr::Matches(a, id) => {
            write_expr(cx, a, true, out);
            out.push_str(" matches ");
            out.push_str(&show_regex(cx, *id));
        }
        Expr::Rate(r) => {
            out.push_str("rate(");
            write_expr(cx, &Expr::Template(r.key.clone()), false, out);
            let op = match r.op {
                crate::ir::CmpOp::Lt => "<",
                crate::ir::CmpOp::Le => "<=",
                crate::ir::CmpOp::Gt => ">",
                crate::ir::CmpOp::Ge => ">=",
            };
            out.push_str(&format!(") {op} {} per {}ms", r.limit, r.window_ms));
        }
        Expr::Quantifier(q, list, body) => {
            out.push_str(q.keyword());
            out.push_str(" $ in ");
            write_expr(cx, list, true, out);
            out.push_str(": ");
            write_expr(cx, body, false, out);
        }
        Expr::Var(depth, segments) => out.push_str(&crate::ir::show_var(*depth, segments)),
        // Only compiled tables hold it: shown as written.
        Expr::Let(..) => write_expr(cx, &e.inline_lets(), nested, out),
        Expr::Capture(_, _, group) => out.push_str(group),
        Expr::InSet(value, set) => {
            write_expr(cx, value, true, out);
            out.push_str(" in ");
            out.push_str(&set.show());
        }
        Expr::WordsAny(command, test) => {
            let mut shown = String::new();
            write_expr(cx, command, true, &mut shown);
            out.push_str(&test.show(&shown));
        }
        Expr::Call(f, args) => {
            out.push_str(f.as_str());
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(cx, a, false, out);
            }
            out.push(')');
        }
    }
    if nested && compound {
        out.push(')');
    }
}

/// A regex as written: `/pattern/flags`.
pub(crate) fn show_regex(cx: &Cx<'_>, id: RegexId) -> String {
    match cx.regex_source(id) {
        Some(src) => format!("/{}/{}", src.pattern.replace('/', "\\/"), src.flags),
        None => String::from("/?/"),
    }
}

/// Every field path a rule reads: in its conditions and in its actions'
/// values and templates.
pub(crate) fn rule_reads(rule: &CheckedRule) -> Vec<&FieldPath> {
    let mut out = Vec::new();
    for e in rule.conditions.iter().map(|c| &c.node) {
        reads(e, &mut out);
    }
    fn template<'r>(t: &'r crate::ir::Template, out: &mut Vec<&'r FieldPath>) {
        for part in &t.parts {
            if let crate::ir::TemplatePart::Path(p) = part {
                out.push(p);
            }
        }
    }
    for action in &rule.actions {
        match &action.node {
            Action::Abort(t)
            | Action::Prepend(_, t)
            | Action::Append(_, t)
            | Action::Log(_, t)
            | Action::Ask(t)
            | Action::Context(t) => template(t, &mut out),
            Action::Skip(e) | Action::Replace(e) | Action::Set(_, e) | Action::Meta(_, e) => {
                reads(e, &mut out);
            }
            // A rewrite reads the field it edits.
            Action::Rewrite(p, ..) => out.push(p),
            _ => {}
        }
    }
    out
}

/// True when running `a` before `b` or `b` before `a` can make a difference
/// beyond their edits of the same field: one ends the chain before the
/// other acts, one edits what the other reads, an effect that might edit
/// anything, or both add context.
pub(crate) fn order_matters(a: &CheckedRule, b: &CheckedRule) -> bool {
    let acts = |r: &CheckedRule| {
        r.actions
            .iter()
            .any(|x| !matches!(x.node, Action::Continue))
    };
    let context = |r: &CheckedRule| {
        r.actions
            .iter()
            .any(|x| matches!(x.node, Action::Context(_)))
    };
    let feeds = |w: &CheckedRule, r: &CheckedRule| {
        let reads = rule_reads(r);
        edits(w)
            .iter()
            .any(|(p, _)| reads.iter().any(|q| paths_overlap(p, q)))
    };
    (always_ends(a).is_some() && acts(b))
        || (always_ends(b).is_some() && acts(a))
        || (edits_unknown(a) && acts(b))
        || (edits_unknown(b) && acts(a))
        || feeds(a, b)
        || feeds(b, a)
        || (context(a) && context(b))
}

/// Field values on which every fact of `facts` holds, found and checked
/// (by [`eval`] on each value): a proof that the facts can hold together.
/// `None` when none is found: an opaque fact, a field tested both as a
/// number and as a string, a product of regexes the search cannot walk.
/// A field set to `None` is absent.
pub(crate) fn example<'e>(
    cx: &Cx<'_>,
    facts: &[&Fact<'e>],
) -> Option<Vec<(&'e FieldPath, Option<Value>)>> {
    let mut fields: Vec<(&'e FieldPath, Vec<(&Test, bool)>)> = Vec::new();
    for fact in facts {
        match fact {
            Fact::Const(true) => {}
            Fact::Field { path, test, holds } => match fields.iter_mut().find(|(p, _)| p == path) {
                Some((_, tests)) => tests.push((test, *holds)),
                None => fields.push((path, vec![(test, *holds)])),
            },
            _ => return None,
        }
    }
    let mut out = Vec::with_capacity(fields.len());
    for (path, tests) in fields {
        out.push((path, field_example(cx, &tests)?));
    }
    Some(out)
}

/// A value (`None`: absent) on which each test holds or not as paired.
fn field_example(cx: &Cx<'_>, tests: &[(&Test, bool)]) -> Option<Option<Value>> {
    let passes = |v: &Value| {
        tests
            .iter()
            .all(|(t, holds)| eval(cx, t, v).is_some_and(|r| r == *holds))
    };
    // Absent: every test is false on a missing field.
    if tests.iter().all(|(_, holds)| !holds) {
        return Some(None);
    }
    let pinned = tests.iter().find_map(|(t, holds)| match (t, holds) {
        (Test::Eq(v), true) => Some(std::slice::from_ref(v)),
        (Test::In(items), true) => Some(items.as_slice()),
        _ => None,
    });
    if let Some(values) = pinned {
        return values
            .iter()
            .find(|v| !v.is_null() && passes(v))
            .cloned()
            .map(Some);
    }
    if tests.iter().any(|(t, h)| *h && matches!(t, Test::Cmp(..))) {
        let mut tries = vec![0.0];
        for (t, _) in tests {
            if let Test::Cmp(_, n) = t {
                tries.extend([*n, n.floor() + 1.0, n.ceil() - 1.0, n + 0.5, n - 0.5]);
            }
        }
        return tries
            .into_iter()
            .filter(|x| x.is_finite())
            .map(|x| {
                if x.fract() == 0.0 && x.abs() < 9.0e15 {
                    Value::from(x as i64)
                } else {
                    Value::from(x)
                }
            })
            .find(|v| passes(v))
            .map(Some);
    }
    let mut langs = Vec::new();
    for (t, holds) in tests {
        if let Some(lang) = text_lang(cx, t) {
            langs.push(if *holds { lang } else { lang.complement() });
        }
    }
    let found = cx.text_example(&langs, &|s: &str| passes(&Value::from(s)))?;
    Some(Some(Value::from(found)))
}

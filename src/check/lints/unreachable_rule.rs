//! `unreachable-rule`: a rule that an earlier rule always stops first.

use super::logic::{self, Conjunct, Fact, Test};
use super::{declare_lint, rule_ref, Cx, Sink};
use crate::ir::FieldPath;
use std::collections::HashMap;

declare_lint! {
    /// ## What it does
    /// Finds rules that can never run because an earlier rule on the same
    /// point always ends the chain first: its target covers this rule's
    /// target, its conditions hold whenever this rule's conditions do, and
    /// its actions always end in `abort` (or `deny`) or `skip`.
    ///
    /// "Earlier" is the execution order: a lower priority, or the same
    /// priority and declared before. Conditions are compared as written
    /// after macros are expanded: the earlier rule has no condition, or each
    /// of its conditions is one of this rule's or follows from one (`x ==
    /// "a"` implies `x in ["a", "b"]`, `x > 5` implies `x > 3`). A rule in
    /// between that edits a field this rule tests keeps it reachable, and so
    /// does an `exec`, `webhook` or `call` before the earlier rule's abort
    /// when that rule fails open.
    ///
    /// ## Why is this bad?
    /// The rule is dead code: whatever it was meant to do never happens.
    /// Usually the priorities are the wrong way round, or the earlier rule is
    /// broader than intended.
    ///
    /// ## Example
    /// ```text
    /// hook block-exec on tool.pre_execute priority 10 {
    ///     when payload.tool == "exec"
    ///     abort "no exec"
    /// }
    ///
    /// # never runs: `block-exec` aborts every call it would see
    /// hook block-rm on tool.pre_execute at builtin::llm priority 20 {
    ///     when payload.tool == "exec" and payload.args contains "rm"
    ///     abort "no rm"
    /// }
    /// ```
    ///
    /// Give `block-rm` a lower priority than `block-exec` if its reason
    /// should win, or delete it.
    pub static UNREACHABLE_RULE = "unreachable-rule", Warn, check;
}

fn check(cx: &Cx<'_>, sink: &mut Sink<'_>) {
    let conjuncts: Vec<Vec<Conjunct<'_>>> = cx.rules.iter().map(logic::conjuncts).collect();
    let ends: Vec<Option<usize>> = cx.rules.iter().map(logic::always_ends).collect();
    let contradictory: Vec<bool> = conjuncts
        .iter()
        .map(|c| logic::contradiction(cx, c).is_some())
        .collect();
    // For each rule, the points where it is unreachable and the rule that
    // ends the chain before it at the first of them.
    let mut found: HashMap<usize, (Vec<&str>, usize)> = HashMap::new();
    for point in cx.points() {
        // Chain positions of the latest edits: by edited path, and by every
        // path an edit lies under; and of the latest effect that might edit
        // anything.
        let mut exact: HashMap<FieldPath, usize> = HashMap::new();
        let mut under: HashMap<FieldPath, usize> = HashMap::new();
        let mut unknown: Option<usize> = None;
        // Enabled rules that always end the chain, by chain position.
        let mut index = Index::default();
        for (pos, &bi) in point.rules.iter().enumerate() {
            let Some(b) = cx.rule(bi) else { continue };
            if !b.enabled {
                continue;
            }
            // The latest position before `b` that edits what `b` reads: an
            // earlier rule before it sees another event than `b` does.
            let mut read = Vec::new();
            for e in b.conditions.iter().map(|c| &c.node) {
                logic::reads(e, &mut read);
            }
            let mut barrier = unknown;
            for r in read {
                barrier = barrier.max(under.get(r).copied());
                let mut prefix = r.clone();
                loop {
                    barrier = barrier.max(exact.get(&prefix).copied());
                    if prefix.segments.pop().is_none() {
                        break;
                    }
                }
            }
            let bc = conjuncts.get(bi).map_or(&[][..], Vec::as_slice);
            let contradictory = contradictory.get(bi).copied().unwrap_or(true);
            // A rule that can never match is another lint's business.
            if !contradictory {
                let mut candidates = index.candidates(bc);
                candidates.retain(|&p| barrier.is_none_or(|bar| p >= bar));
                candidates.sort_unstable();
                candidates.dedup();
                let shadow = candidates.into_iter().find_map(|p| {
                    let ai = *point.rules.get(p)?;
                    let a = cx.rule(ai)?;
                    let ac = conjuncts.get(ai)?;
                    (logic::covers(&a.target, &b.target)
                        && ac
                            .iter()
                            .all(|x| bc.iter().any(|y| logic::implies(cx, &y.fact, &x.fact))))
                    .then_some(ai)
                });
                if let Some(ai) = shadow {
                    found
                        .entry(bi)
                        .or_insert_with(|| (Vec::new(), ai))
                        .0
                        .push(point.point.as_str());
                }
            }
            if logic::edits_unknown(b) {
                unknown = Some(pos);
            }
            for (path, _) in logic::edits(b) {
                let mut prefix = path.clone();
                exact.insert(path, pos);
                loop {
                    under.insert(prefix.clone(), pos);
                    if prefix.segments.pop().is_none() {
                        break;
                    }
                }
            }
            // A rule that can never match never ends the chain.
            if ends.get(bi).copied().flatten().is_some() && !contradictory {
                index.insert(bc, pos);
            }
        }
    }
    let mut found: Vec<_> = found.into_iter().collect();
    found.sort_by_key(|(bi, _)| *bi);
    for (bi, (points, ai)) in found {
        let (Some(b), Some(a)) = (cx.rule(bi), cx.rule(ai)) else {
            continue;
        };
        let at = if points.len() == b.points.len() {
            String::new()
        } else {
            format!(
                " at {}",
                points
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let ender = ends
            .get(ai)
            .copied()
            .flatten()
            .and_then(|i| a.actions.get(i).map(|a| a.span));
        let mut d = crate::diag::Diagnostic::warning(
            UNREACHABLE_RULE.code,
            format!("rule `{}` can never run{at}", b.id),
        )
        .with_primary(b.span, "unreachable");
        if a.file == b.file {
            d = d.with_secondary(a.span, format!("`{}` runs first", a.id));
            if let Some(span) = ender {
                d = d.with_secondary(span, "and always ends the chain here");
            }
        }
        d = d.with_help(format!(
            "rule {} runs first whenever this one would match, and always ends the chain; give this rule a lower priority or remove it",
            rule_ref(cx, a, b.file)
        ));
        sink.report(
            &UNREACHABLE_RULE,
            b.file,
            &[(b.file, b.span), (a.file, a.span)],
            d,
        );
    }
}

/// What an earlier rule's condition needs of a later rule's conditions, as
/// a lookup key: a conjunct of the earlier rule is implied only by a
/// conjunct of the later one that yields the same key (see [`Index`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// The same conjunct, exactly (by its debug form).
    Exact(String),
    /// `path == value`, the value normalized as JSON equality sees it.
    Eq(String, String),
    /// A test implied by a test of another constant on the field: `exists`
    /// (by any test that needs the field), a comparison, `!=`,
    /// `starts_with`, `ends_with`.
    Kind(&'static str, String),
}

/// A JSON value in a form where values equal under JSON equality (numbers
/// compared by value) are equal strings.
fn normalize(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Number(n) => format!("n:{}", n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(normalize).collect::<Vec<_>>().join(",")
        ),
        Value::Object(map) => {
            let mut fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k:?}:{}", normalize(v)))
                .collect();
            fields.sort();
            format!("{{{}}}", fields.join(","))
        }
        other => other.to_string(),
    }
}

/// The key an earlier rule is filed under for one of its conjuncts, and how
/// selective it is (lower is more selective); `None` for a conjunct that
/// always holds.
fn key(fact: &Fact<'_>) -> Option<(u8, Key)> {
    Some(match fact {
        Fact::Const(true) => return None,
        Fact::Field {
            path,
            test,
            holds: true,
        } => {
            let p = path.to_string();
            match test {
                Test::Eq(v) => (1, Key::Eq(p, normalize(v))),
                Test::Exists => (4, Key::Kind("exists", p)),
                Test::Cmp(..) => (3, Key::Kind("cmp", p)),
                Test::StartsWith(_) => (2, Key::Kind("starts", p)),
                Test::EndsWith(_) => (2, Key::Kind("ends", p)),
                _ => (0, Key::Exact(format!("{fact:?}"))),
            }
        }
        Fact::Field {
            path,
            test: Test::Eq(_),
            holds: false,
        } => (3, Key::Kind("ne", path.to_string())),
        _ => (0, Key::Exact(format!("{fact:?}"))),
    })
}

/// Rules that always end the chain, filed under the key of their most
/// selective conjunct, so that a later rule looks only at the rules whose
/// conditions its own could imply.
///
/// The invariant: when `implies(y, x)`, the key of `x` is among the probes
/// of `y` ([`Index::candidates`]), or `x`'s field is tested with a value
/// that `y` pins (`path_rules`).
#[derive(Default)]
struct Index {
    by_key: std::collections::HashMap<Key, Vec<usize>>,
    /// Positions filed under a key on a field, other than `==`: a later
    /// `==` or `in` on the field can imply any test of it.
    by_path: std::collections::HashMap<String, Vec<usize>>,
    /// Positions of rules without a condition.
    always: Vec<usize>,
}

impl Index {
    fn insert(&mut self, conjuncts: &[Conjunct<'_>], pos: usize) {
        // Of the most selective conjuncts, the one whose key has the fewest
        // rules yet: rules that share a conjunct (a macro every rule uses)
        // would otherwise all land under its key, and every later rule
        // with it would be checked against all of them (quadratic).
        let best = conjuncts
            .iter()
            .filter_map(|c| key(&c.fact).map(|k| (k, c)))
            .min_by_key(|((rank, key), _)| (*rank, self.by_key.get(key).map_or(0, Vec::len)));
        let Some(((_, key), c)) = best else {
            self.always.push(pos);
            return;
        };
        if let (Fact::Field { path, .. }, false) = (&c.fact, matches!(key, Key::Eq(..))) {
            self.by_path.entry(path.to_string()).or_default().push(pos);
        }
        self.by_key.entry(key).or_default().push(pos);
    }

    /// The positions of the rules whose conditions `conjuncts` may imply
    /// (unsorted, maybe repeated).
    fn candidates(&self, conjuncts: &[Conjunct<'_>]) -> Vec<usize> {
        let mut out = self.always.clone();
        let probe = |k: Key, out: &mut Vec<usize>| {
            if let Some(list) = self.by_key.get(&k) {
                out.extend_from_slice(list);
            }
        };
        for c in conjuncts {
            probe(Key::Exact(format!("{:?}", c.fact)), &mut out);
            let Fact::Field { path, test, holds } = &c.fact else {
                continue;
            };
            let p = path.to_string();
            if !*holds {
                if matches!(test, Test::Eq(_)) {
                    probe(Key::Kind("ne", p), &mut out);
                }
                continue;
            }
            let pins: &[serde_json::Value] = match test {
                Test::Eq(v) => std::slice::from_ref(v),
                Test::In(items) => items,
                _ => &[],
            };
            if !pins.is_empty() {
                for v in pins {
                    probe(Key::Eq(p.clone(), normalize(v)), &mut out);
                }
                if let Some(list) = self.by_path.get(&p) {
                    out.extend_from_slice(list);
                }
            }
            match test {
                Test::Cmp(..) => {
                    probe(Key::Kind("cmp", p.clone()), &mut out);
                    probe(Key::Kind("ne", p.clone()), &mut out);
                }
                Test::StartsWith(_) => probe(Key::Kind("starts", p.clone()), &mut out),
                Test::EndsWith(_) => probe(Key::Kind("ends", p.clone()), &mut out),
                _ => {}
            }
            probe(Key::Kind("exists", p), &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Expr, Root, Segment};
    use crate::span::Span;
    use serde_json::json;

    fn field(name: &str) -> FieldPath {
        FieldPath {
            root: Root::Payload,
            segments: vec![Segment::Field(name.to_string())],
            normalized: false,
        }
    }

    #[test]
    fn rules_sharing_a_conjunct_are_filed_apart() {
        // A thousand rules `shared and payload.fN == "x"`: a later rule
        // with `shared and payload.f500 == "x"` must be checked against the
        // rule of `f500` (and at most the first one, filed under `shared`),
        // not against all of them, or the lint is quadratic.
        let expr = Expr::Const(json!(true));
        let shared = field("everywhere");
        let own: Vec<FieldPath> = (0..1000).map(|i| field(&format!("f{i}"))).collect();
        let conjunct = |path| Conjunct {
            expr: &expr,
            negated: false,
            fact: Fact::Field {
                path,
                test: Test::Eq(json!("x")),
                holds: true,
            },
            span: Span::default(),
        };
        let mut index = Index::default();
        for (pos, path) in own.iter().enumerate() {
            index.insert(&[conjunct(&shared), conjunct(path)], pos);
        }
        let mut found = index.candidates(&[conjunct(&shared), conjunct(&own[500])]);
        found.sort_unstable();
        assert!(found.contains(&500) && found.len() <= 2, "{found:?}");
    }
}

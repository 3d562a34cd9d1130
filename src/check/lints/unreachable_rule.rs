//! `unreachable-rule`: a rule that an earlier rule always stops first.

use super::logic::{self, Conjunct, Fact, Test};
use super::{declare_lint, point_list, rule_ref, Cx, Sink};
use crate::ir::FieldPath;
use crate::strings::Fast;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

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
    /// "a"` implies `x in ["a", "b"]`, `x > 5` implies `x > 3`); string
    /// tests by their languages, through a product of their DFAs (`x
    /// starts_with "rm -rf /"` implies `x matches /(^|\s)rm\s+-[a-z]*r/`:
    /// no string is in the first and not the second). A rule in
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
    let conjuncts = cx.conjuncts();
    // Each rule's keys, once: a rule on several points is filed and
    // looked up on each.
    let keys: Vec<RuleKeys> = conjuncts.iter().map(|c| RuleKeys::of(c)).collect();
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
        let mut exact: HashMap<FieldPath, usize, Fast> = HashMap::default();
        let mut under: HashMap<FieldPath, usize, Fast> = HashMap::default();
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
            let Some(bkeys) = keys.get(bi) else { continue };
            let contradictory = contradictory.get(bi).copied().unwrap_or(true);
            // A rule that can never match is another lint's business.
            if !contradictory {
                let mut candidates = index.candidates(bkeys, cx.text_searches_left());
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
                index.insert(bc, bkeys, pos);
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
            format!(" at {}", point_list(&points))
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

/// The most earlier rules a later one is compared with through the
/// languages of their string tests: the latest ones on the same field.
const TEXT_CANDIDATES: usize = 32;

/// What an earlier rule's condition needs of a later rule's conditions, as
/// a lookup key: a conjunct of the earlier rule is implied only by a
/// conjunct of the later one that yields the same key (see [`Index`]).
///
/// Fields and values are keyed by digests (a field's [`path_digest`], a
/// value's normalized text's): equal ones share a digest, and two that
/// only share a digest add a candidate the full comparison turns down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// The same conjunct, exactly: its [`digest`], which conjuncts with the
    /// same debug form share.
    Exact(u64),
    /// `path == value`, the value normalized as JSON equality sees it.
    Eq(u64, u64),
    /// A test implied by a test of another constant on the field: `exists`
    /// (by any test that needs the field), a comparison, `!=`, a string
    /// test (`starts_with`, `ends_with`, `contains` a string, `matches`,
    /// by another whose language is inside its own), a negated one.
    Kind(&'static str, u64),
}

/// True for the string tests ([`logic::text_lang`]): filed and looked up
/// together, since one may imply another through their languages.
fn is_text(test: &Test) -> bool {
    matches!(
        test,
        Test::StartsWith(_)
            | Test::EndsWith(_)
            | Test::Matches(_)
            | Test::Contains(serde_json::Value::String(_))
    )
}

/// The digest of a field path for the [`Key`]s: implication is only ever
/// between tests of the same path.
fn path_digest(path: &FieldPath) -> u64 {
    let mut h = DefaultHasher::new();
    path.hash(&mut h);
    h.finish()
}

/// The digest of a value for [`Key::Eq`]: that of its [`normalize`]d text.
fn value_digest(v: &serde_json::Value) -> u64 {
    let mut h = DefaultHasher::new();
    normalize(v).hash(&mut h);
    h.finish()
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

/// A digest of a conjunct for [`Key::Exact`]: conjuncts with the same debug
/// form (the same test of the same field, or the same other expression)
/// get the same digest, computed from their parts rather than from a
/// string of the form. Two different conjuncts that share a digest only
/// make a rule a candidate that the full comparison then turns down. The
/// default hasher, not [`FastHasher`](crate::strings::FastHasher), which
/// collides on short field names and would file unrelated rules together.
fn digest(fact: &Fact<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    match fact {
        Fact::Const(b) => (0u8, b).hash(&mut h),
        Fact::Field { path, test, holds } => {
            (1u8, path, holds).hash(&mut h);
            match test {
                Test::Eq(v) => (0u8, v).hash(&mut h),
                Test::In(items) => (1u8, items).hash(&mut h),
                Test::Cmp(op, n) => {
                    (2u8, op).hash(&mut h);
                    hash_number(*n, &mut h);
                }
                Test::StartsWith(s) => (3u8, s).hash(&mut h),
                Test::EndsWith(s) => (4u8, s).hash(&mut h),
                Test::Contains(v) => (5u8, v).hash(&mut h),
                Test::Matches(id) => (6u8, id).hash(&mut h),
                Test::Exists => 7u8.hash(&mut h),
            }
        }
        Fact::Other { expr, holds } => {
            (2u8, holds).hash(&mut h);
            hash_expr(expr, &mut h);
        }
    }
    h.finish()
}

/// Hashes a number so that numbers with the same debug form hash alike (a
/// NaN, which JSON never holds, prints as `NaN` whatever its bits).
fn hash_number(n: f64, h: &mut DefaultHasher) {
    if n.is_nan() { 0u64 } else { n.to_bits() }.hash(h);
}

/// Hashes an expression so that expressions with the same debug form hash
/// alike: the forms conditions are usually made of by their parts, any
/// other by its debug form, streamed into the hasher.
fn hash_expr(e: &crate::ir::Expr, h: &mut DefaultHasher) {
    use crate::ir::Expr;
    match e {
        Expr::Const(v) => (0u8, v).hash(h),
        Expr::Path(p) => (1u8, p).hash(h),
        Expr::Unary(op, a) => {
            (2u8, op).hash(h);
            hash_expr(a, h);
        }
        Expr::Binary(op, a, b) => {
            (3u8, op).hash(h);
            hash_expr(a, h);
            hash_expr(b, h);
        }
        Expr::In(a, b) => {
            4u8.hash(h);
            hash_expr(a, h);
            hash_expr(b, h);
        }
        Expr::ContainsAny(a, b) => {
            5u8.hash(h);
            hash_expr(a, h);
            hash_expr(b, h);
        }
        Expr::Matches(a, id) => {
            (6u8, id).hash(h);
            hash_expr(a, h);
        }
        Expr::Exists(p) => (7u8, p).hash(h),
        other => {
            /// Feeds formatted text to the hasher.
            struct Stream<'h>(&'h mut DefaultHasher);
            impl std::fmt::Write for Stream<'_> {
                fn write_str(&mut self, s: &str) -> std::fmt::Result {
                    // `write` hashes a stream of bytes: how the text is
                    // cut into pieces does not change the digest.
                    self.0.write(s.as_bytes());
                    Ok(())
                }
            }
            8u8.hash(h);
            let _ = std::fmt::Write::write_fmt(&mut Stream(h), format_args!("{other:?}"));
        }
    }
}

/// The key an earlier rule is filed under for one of its conjuncts (whose
/// [`digest`] is `digest`), and how selective it is (lower is more
/// selective); `None` for a conjunct that always holds.
fn key(fact: &Fact<'_>, digest: u64) -> Option<(u8, Key)> {
    Some(match fact {
        Fact::Const(true) => return None,
        Fact::Field {
            path,
            test,
            holds: true,
        } => {
            let p = path_digest(path);
            match test {
                Test::Eq(v) => (1, Key::Eq(p, value_digest(v))),
                Test::Exists => (4, Key::Kind("exists", p)),
                Test::Cmp(..) => (3, Key::Kind("cmp", p)),
                Test::StartsWith(_) => (2, Key::Kind("starts", p)),
                Test::EndsWith(_) => (2, Key::Kind("ends", p)),
                _ => (0, Key::Exact(digest)),
            }
        }
        Fact::Field {
            path,
            test: Test::Eq(_),
            holds: false,
        } => (3, Key::Kind("ne", path_digest(path))),
        _ => (0, Key::Exact(digest)),
    })
}

/// What the [`Index`] needs of one rule's conjuncts, worked out once per
/// rule: the key each conjunct would be filed under, and the keys and
/// field paths a later rule with them looks up.
struct RuleKeys {
    /// [`key`] of each conjunct, in order.
    filed: Vec<Option<(u8, Key)>>,
    /// The keys of the conjuncts this rule's conjuncts may imply.
    probes: Vec<Key>,
    /// The fields this rule pins to values (`==`, `in`): any test of them
    /// filed under the field may be implied.
    pinned: Vec<u64>,
    /// The fields this rule tests with string tests (negated or not): one
    /// may imply a string test of another rule through their languages.
    text_paths: Vec<u64>,
}

impl RuleKeys {
    fn of(conjuncts: &[Conjunct<'_>]) -> RuleKeys {
        let mut filed = Vec::with_capacity(conjuncts.len());
        let mut probes = Vec::new();
        let mut pinned = Vec::new();
        let mut text_paths = Vec::new();
        for c in conjuncts {
            let digest = digest(&c.fact);
            let filed_under = key(&c.fact, digest);
            filed.push(filed_under);
            probes.push(Key::Exact(digest));
            let Fact::Field { path, test, holds } = &c.fact else {
                continue;
            };
            let p = path_digest(path);
            if !*holds {
                if matches!(test, Test::Eq(_)) {
                    probes.push(Key::Kind("ne", p));
                }
                if is_text(test) {
                    text_paths.push(p);
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
                    // The key the conjunct is filed under has the value's
                    // digest already.
                    let value = match (test, filed_under) {
                        (Test::Eq(_), Some((_, Key::Eq(_, value)))) => value,
                        _ => value_digest(v),
                    };
                    probes.push(Key::Eq(p, value));
                }
                pinned.push(p);
            }
            match test {
                Test::Cmp(..) => {
                    probes.push(Key::Kind("cmp", p));
                    probes.push(Key::Kind("ne", p));
                }
                Test::StartsWith(_) => probes.push(Key::Kind("starts", p)),
                Test::EndsWith(_) => probes.push(Key::Kind("ends", p)),
                _ => {}
            }
            if is_text(test) {
                text_paths.push(p);
            }
            probes.push(Key::Kind("exists", p));
        }
        text_paths.sort_unstable();
        text_paths.dedup();
        RuleKeys {
            filed,
            probes,
            pinned,
            text_paths,
        }
    }
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
    by_key: HashMap<Key, Vec<usize>, Fast>,
    /// Positions filed under a key on a field, other than `==`: a later
    /// `==` or `in` on the field can imply any test of it.
    by_path: HashMap<u64, Vec<usize>, Fast>,
    /// Positions of rules without a condition.
    always: Vec<usize>,
    /// Positions by the fields their string tests test.
    by_text: HashMap<u64, Vec<usize>, Fast>,
}

impl Index {
    /// Files the rule at `pos`, whose conjuncts are `conjuncts` with their
    /// `keys`.
    fn insert(&mut self, conjuncts: &[Conjunct<'_>], keys: &RuleKeys, pos: usize) {
        for p in &keys.text_paths {
            self.by_text.entry(*p).or_default().push(pos);
        }
        // Of the most selective conjuncts, the one whose key has the fewest
        // rules yet: rules that share a conjunct (a macro every rule uses)
        // would otherwise all land under its key, and every later rule
        // with it would be checked against all of them (quadratic).
        let best = conjuncts
            .iter()
            .zip(&keys.filed)
            .filter_map(|(c, k)| k.map(|k| (k, c)))
            .min_by_key(|((rank, key), _)| (*rank, self.by_key.get(key).map_or(0, Vec::len)));
        let Some(((_, key), c)) = best else {
            self.always.push(pos);
            return;
        };
        if let (Fact::Field { path, .. }, false) = (&c.fact, matches!(key, Key::Eq(..))) {
            self.by_path.entry(path_digest(path)).or_default().push(pos);
        }
        self.by_key.entry(key).or_default().push(pos);
    }

    /// The positions of the rules whose conditions a rule with `keys` may
    /// imply (unsorted, maybe repeated). With `languages`, also the latest
    /// [`TEXT_CANDIDATES`] rules with a string test of a field this rule
    /// tests with one: implication between string tests goes through
    /// their languages, which no key can file (while the lint run may
    /// still search DFA products, [`Cx::text_never`]).
    fn candidates(&self, keys: &RuleKeys, languages: bool) -> Vec<usize> {
        let mut out = self.always.clone();
        for k in &keys.probes {
            if let Some(list) = self.by_key.get(k) {
                out.extend_from_slice(list);
            }
        }
        for p in &keys.pinned {
            if let Some(list) = self.by_path.get(p) {
                out.extend_from_slice(list);
            }
        }
        if languages {
            for p in &keys.text_paths {
                if let Some(list) = self.by_text.get(p) {
                    let from = list.len().saturating_sub(TEXT_CANDIDATES);
                    out.extend(list.iter().skip(from));
                }
            }
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

    /// Conjuncts written alike in two rules (each rule has its own copy of
    /// a list it names) share a digest, so that a later rule finds the
    /// earlier one; conjuncts that differ get different digests.
    #[test]
    fn conjuncts_written_alike_share_a_digest() {
        let contains_any = |list: serde_json::Value| {
            Expr::ContainsAny(
                Box::new(Expr::Path(field("args"))),
                Box::new(Expr::Const(list)),
            )
        };
        let a = contains_any(json!(["curl http://evil3", "wget http://drop3"]));
        let b = contains_any(json!(["curl http://evil3", "wget http://drop3"]));
        let other = contains_any(json!(["curl http://evil4", "wget http://drop3"]));
        let digest_of = |e: &Expr| digest(&logic::fact(e));
        assert_eq!(digest_of(&a), digest_of(&b));
        assert_ne!(digest_of(&a), digest_of(&other));
        let path = field("command");
        let matches = |id: u32, holds: bool| Fact::Field {
            path: &path,
            test: Test::Matches(crate::ir::RegexId(id)),
            holds,
        };
        assert_eq!(digest(&matches(3, true)), digest(&matches(3, true)));
        assert_ne!(digest(&matches(3, true)), digest(&matches(4, true)));
        assert_ne!(digest(&matches(3, true)), digest(&matches(3, false)));
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
            let conjuncts = [conjunct(&shared), conjunct(path)];
            index.insert(&conjuncts, &RuleKeys::of(&conjuncts), pos);
        }
        let probe = [conjunct(&shared), conjunct(&own[500])];
        let mut found = index.candidates(&RuleKeys::of(&probe), true);
        found.sort_unstable();
        assert!(found.contains(&500) && found.len() <= 2, "{found:?}");
    }
}

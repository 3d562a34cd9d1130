//! The compiled matchers (perfect hash, multi-pattern DFA, Aho-Corasick,
//! trigger index) against a straightforward reference evaluator, on generated
//! rule sets and events.
//!
//! The reference walks every rule in order and evaluates its condition
//! directly on the JSON event, the way a seed registry would; it shares no
//! code with the engine (regexes go through the `regex` crate's `is_match`).
//!
//! Rules edit the event as they fire (`meta` keys, `set`, `append` and
//! `unset` of the fields conditions read), and conditions read what earlier
//! rules wrote (`metadata`, a comparison of two fields): dispatch forgets
//! only the memoized atoms an edit touches, and must still agree.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "generated indices are in range by construction"
)]

use hookc::{HookContext, OutcomeKind, Target};
use proptest::prelude::*;
use serde_json::{json, Value};

const TOOLS: &[&str] = &["exec", "read", "write", "fetch"];
const WORDS: &[&str] = &[
    "rm", "-rf", "/tmp", "ls", "curl", "key", "AKIA1234", "été", "x",
];
/// Longer words that share their beginnings and overlap (`ababab` holds
/// `abab` twice): a field whose literals are all like these is searched by
/// their first bytes and confirmed in place, not by an automaton.
const LONG_WORDS: &[&str] = &[
    "curl http://evil",
    "curl http://evil1",
    "curl http://evil12",
    "abab",
    "ababab",
    "babab",
    "héllo wörld",
    "héllo",
];
const REGEXES: &[&str] = &[
    r"rm\s+-rf",
    r"^ls",
    r"curl .*",
    r"AKIA[0-9]+",
    r"\bkey\b",
    r"(?i)ÉTÉ",
    r"x$",
    r"[0-9]{3,}",
];
const COMPONENTS: &[&str] = &["builtin::llm", "builtin::hil", "plugin::tools", "lua::comp"];
const PATTERNS: &[&str] = &[
    "builtin::llm",
    "builtin::*",
    "*::llm",
    "*::*",
    "plugin::tools",
    "*::tools",
];
/// The fields text tests read; `cmd` and `n` are also compared with
/// numbers, and hold numbers, text or lists by event, so that one field's
/// matchers decide text tests and comparisons together.
const FIELDS: &[&str] = &["tool", "cmd", "n"];

/// The comparisons, as written.
const OPS: &[&str] = &["<", "<=", ">", ">="];

#[derive(Clone, Debug)]
enum C {
    Eq(usize, String),
    In(usize, Vec<String>),
    Contains(usize, String),
    ContainsAny(usize, Vec<String>),
    Starts(usize, String),
    Ends(usize, String),
    Matches(usize, usize),
    /// `payload.<field> <op> <bound>` (field `cmd` or `n`, an index into
    /// [`OPS`]).
    Cmp(usize, usize, f64),
    Exists(usize),
    /// `metadata.rK exists`: rule `K` fired and marked the event.
    Marked(usize),
    /// `metadata.rK == "on"`: the same, through a field matcher on the
    /// metadata (which a `meta` edit must make it read again).
    MarkedOn(usize),
    /// `payload.tool == payload.cmd`: an atom that reads two fields.
    SameFields,
    Not(Box<C>),
    And(Box<C>, Box<C>),
    Or(Box<C>, Box<C>),
}

#[derive(Clone, Debug)]
enum A {
    Mark,
    Abort,
    SetTool(String),
    SetCmd(String),
    AppendCmd(String),
    UnsetCmd,
    SetN(Value),
}

#[derive(Clone, Debug)]
struct R {
    target: usize,
    priority: i32,
    cond: Option<C>,
    action: A,
}

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(WORDS).prop_map(str::to_string)
}

fn long_word() -> impl Strategy<Value = String> {
    prop::sample::select(LONG_WORDS).prop_map(str::to_string)
}

/// A word of an event's text, or of a literal it is searched for.
fn any_word() -> impl Strategy<Value = String> {
    prop_oneof![word(), long_word()]
}

fn tool() -> impl Strategy<Value = String> {
    prop::sample::select(TOOLS).prop_map(str::to_string)
}

fn leaf() -> impl Strategy<Value = C> {
    let field = 0..FIELDS.len();
    prop_oneof![
        (field.clone(), prop_oneof![tool(), word()]).prop_map(|(f, s)| C::Eq(f, s)),
        (
            field.clone(),
            prop::collection::vec(prop_oneof![tool(), word()], 1..3)
        )
            .prop_map(|(f, v)| C::In(f, v)),
        (field.clone(), any_word()).prop_map(|(f, s)| C::Contains(f, s)),
        (field.clone(), long_word()).prop_map(|(f, s)| C::Contains(f, s)),
        (field.clone(), prop::collection::vec(any_word(), 1..4))
            .prop_map(|(f, v)| C::ContainsAny(f, v)),
        (field.clone(), prop::collection::vec(long_word(), 1..4))
            .prop_map(|(f, v)| C::ContainsAny(f, v)),
        (field.clone(), word()).prop_map(|(f, s)| C::Starts(f, s)),
        (field.clone(), word()).prop_map(|(f, s)| C::Ends(f, s)),
        (field.clone(), 0..REGEXES.len()).prop_map(|(f, r)| C::Matches(f, r)),
        (1usize..3, 0..OPS.len(), -2i32..24).prop_map(|(f, op, half)| C::Cmp(
            f,
            op,
            f64::from(half) / 2.0
        )),
        field.prop_map(C::Exists),
        (0usize..8).prop_map(C::Marked),
        (0usize..8).prop_map(C::MarkedOn),
        Just(C::SameFields),
    ]
}

fn cond() -> impl Strategy<Value = C> {
    leaf().prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| C::Not(Box::new(c))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| C::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner).prop_map(|(a, b)| C::Or(Box::new(a), Box::new(b))),
        ]
    })
}

fn rule() -> impl Strategy<Value = R> {
    (
        0..PATTERNS.len(),
        0i32..4,
        prop::option::weighted(0.9, cond()),
        prop_oneof![
            6 => Just(A::Mark),
            1 => Just(A::Abort),
            2 => tool().prop_map(A::SetTool),
            1 => prop_oneof![tool(), word()].prop_map(A::SetCmd),
            1 => word().prop_map(A::AppendCmd),
            1 => Just(A::UnsetCmd),
            1 => prop_oneof![(0i64..12).prop_map(|n| json!(n)), word().prop_map(|w| json!(w))]
                .prop_map(A::SetN),
        ],
    )
        .prop_map(|(target, priority, cond, action)| R {
            target,
            priority,
            cond,
            action,
        })
}

fn event() -> impl Strategy<Value = (usize, Value)> {
    (
        0..COMPONENTS.len(),
        prop::option::weighted(0.9, tool()),
        prop::option::weighted(0.9, prop::collection::vec(any_word(), 0..6)),
        prop_oneof![
            3 => (0i64..12).prop_map(|n| Some(json!(n))),
            1 => (0i64..12).prop_map(|n| Some(json!(n as f64 + 0.5))),
            1 => word().prop_map(|w| Some(json!(w))),
            1 => Just(None),
        ],
        any::<bool>(),
        prop::option::weighted(0.1, 0i64..12),
    )
        .prop_map(|(c, tool, cmd, n, cmd_is_list, cmd_number)| {
            let mut payload = serde_json::Map::new();
            if let Some(t) = tool {
                payload.insert("tool".into(), json!(t));
            }
            if let Some(words) = cmd {
                // Now and then the field is a list, not a string: the
                // matchers must fall back to evaluating atoms one by one.
                let v = if cmd_is_list && words.len() % 3 == 0 {
                    json!(words)
                } else {
                    json!(words.join(" "))
                };
                payload.insert("cmd".into(), v);
            }
            if let Some(k) = cmd_number {
                payload.insert("cmd".into(), json!(k));
            }
            if let Some(n) = n {
                payload.insert("n".into(), n);
            }
            (c, Value::Object(payload))
        })
}

fn lit(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn list(v: &[String]) -> String {
    format!(
        "[{}]",
        v.iter().map(|s| lit(s)).collect::<Vec<_>>().join(", ")
    )
}

fn render(c: &C) -> String {
    let f = |i: &usize| format!("payload.{}", FIELDS[*i]);
    match c {
        C::Eq(i, s) => format!("{} == {}", f(i), lit(s)),
        C::In(i, v) => format!("{} in {}", f(i), list(v)),
        C::Contains(i, s) => format!("{} contains {}", f(i), lit(s)),
        C::ContainsAny(i, v) => format!("{} contains any {}", f(i), list(v)),
        C::Starts(i, s) => format!("{} starts_with {}", f(i), lit(s)),
        C::Ends(i, s) => format!("{} ends_with {}", f(i), lit(s)),
        C::Matches(i, r) => format!("{} matches /{}/", f(i), REGEXES[*r]),
        C::Cmp(i, op, k) => format!("{} {} {k:?}", f(i), OPS[*op]),
        C::Exists(i) => format!("{} exists", f(i)),
        C::Marked(k) => format!("metadata.r{k} exists"),
        C::MarkedOn(k) => format!("metadata.r{k} == \"on\""),
        C::SameFields => "payload.tool == payload.cmd".to_string(),
        C::Not(c) => format!("not ({})", render(c)),
        C::And(a, b) => format!("({}) and ({})", render(a), render(b)),
        C::Or(a, b) => format!("({}) or ({})", render(a), render(b)),
    }
}

fn source(rules: &[R]) -> String {
    let mut out = String::new();
    for (i, r) in rules.iter().enumerate() {
        out += &format!(
            "hook r{i} on tool.pre_execute at \"{}\" priority {} {{\n",
            PATTERNS[r.target], r.priority
        );
        if let Some(c) = &r.cond {
            out += &format!("    when {}\n", render(c));
        }
        out += match &r.action {
            A::Mark => format!("    meta r{i} = \"on\"\n"),
            A::Abort => "    abort \"stop\"\n".to_string(),
            A::SetTool(t) => format!("    set payload.tool = {}\n", lit(t)),
            A::SetCmd(t) => format!("    set payload.cmd = {}\n", lit(t)),
            A::AppendCmd(w) => format!("    append payload.cmd {}\n", lit(&format!(" {w}"))),
            A::UnsetCmd => "    unset payload.cmd\n".to_string(),
            A::SetN(n) => format!("    set payload.n = {n}\n"),
        }
        .as_str();
        out += "}\n";
    }
    out
}

// ---- the reference ----

fn text(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

fn contains(v: Option<&Value>, needle: &str) -> bool {
    match v {
        Some(Value::String(s)) => s.contains(needle),
        Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some(needle)),
        _ => false,
    }
}

fn eval(c: &C, payload: &Value, marked: &[usize]) -> bool {
    let get = |i: &usize| payload.get(FIELDS[*i]);
    let eval = |c: &C, payload: &Value| eval(c, payload, marked);
    match c {
        C::Eq(i, s) => text(get(i)) == Some(s.as_str()),
        C::In(i, v) => text(get(i)).is_some_and(|t| v.iter().any(|s| s == t)),
        C::Contains(i, s) => contains(get(i), s),
        C::ContainsAny(i, v) => v.iter().any(|s| contains(get(i), s)),
        C::Starts(i, s) => text(get(i)).is_some_and(|t| t.starts_with(s.as_str())),
        C::Ends(i, s) => text(get(i)).is_some_and(|t| t.ends_with(s.as_str())),
        C::Matches(i, r) => {
            text(get(i)).is_some_and(|t| regex::Regex::new(REGEXES[*r]).unwrap().is_match(t))
        }
        C::Cmp(i, op, k) => get(i)
            .and_then(Value::as_f64)
            .is_some_and(|n| match OPS[*op] {
                "<" => n < *k,
                "<=" => n <= *k,
                ">" => n > *k,
                _ => n >= *k,
            }),
        C::Exists(i) => get(i).is_some(),
        C::Marked(k) | C::MarkedOn(k) => marked.contains(k),
        // A missing field reads as `null`.
        C::SameFields => {
            payload.get("tool").unwrap_or(&Value::Null)
                == payload.get("cmd").unwrap_or(&Value::Null)
        }
        C::Not(c) => !eval(c, payload),
        C::And(a, b) => eval(a, payload) && eval(b, payload),
        C::Or(a, b) => eval(a, payload) || eval(b, payload),
    }
}

fn fql_matches(pattern: &str, component: &str) -> bool {
    let (ps, pt) = pattern.split_once("::").unwrap();
    let (cs, ct) = component.split_once("::").unwrap();
    (ps == "*" || ps == cs) && (pt == "*" || pt == ct)
}

/// Outcome, fired ids and final payload, the slow and obvious way.
fn reference(rules: &[R], component: &str, payload: &Value) -> (OutcomeKind, Vec<String>, Value) {
    let mut order: Vec<usize> = (0..rules.len()).collect();
    order.sort_by_key(|&i| rules[i].priority);
    let original = payload.clone();
    let mut payload = payload.clone();
    let mut fired = Vec::new();
    let mut marked = Vec::new();
    for i in order {
        let r = &rules[i];
        if !fql_matches(PATTERNS[r.target], component) {
            continue;
        }
        if !r.cond.as_ref().is_none_or(|c| eval(c, &payload, &marked)) {
            continue;
        }
        fired.push(format!("r{i}"));
        match &r.action {
            A::Mark => marked.push(i),
            A::Abort => return (OutcomeKind::Abort, fired, original),
            A::SetTool(t) => payload["tool"] = json!(t),
            A::SetCmd(t) => payload["cmd"] = json!(t),
            A::AppendCmd(w) => match payload.get("cmd") {
                Some(Value::String(cmd)) => payload["cmd"] = json!(format!("{cmd} {w}")),
                None | Some(Value::Null) => payload["cmd"] = json!(format!(" {w}")),
                // Not a string: the append is dropped with a warning.
                Some(_) => {}
            },
            A::UnsetCmd => {
                payload.as_object_mut().unwrap().remove("cmd");
            }
            A::SetN(n) => payload["n"] = n.clone(),
        }
    }
    (OutcomeKind::Continue, fired, payload)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn automata_agree_with_the_reference(
        rules in prop::collection::vec(rule(), 1..24),
        events in prop::collection::vec(event(), 1..6),
    ) {
        let text = source(&rules);
        // Default options (regexes in one DFA per field), and a zero DFA
        // budget that sends every regex with a literal to the prefilter.
        let prefilter = hookc::Options { field_dfa_budget: 0, ..hookc::Options::default() };
        for options in [hookc::Options::default(), prefilter] {
        let compiled = hookc::compile_sources(vec![hookc::span::SourceFile::new("gen.hooks", text.as_str())], &options)
            .map_err(|d| TestCaseError::fail(format!("{d}\n{text}")))?;
        let table = hookc::Table::from_bytes(&compiled.table.to_bytes()).unwrap();
        let mut scratch = table.scratch();
        for (c, payload) in events.iter().cloned() {
            let component = COMPONENTS[c];
            let mut ctx = HookContext::new("tool.pre_execute", component, payload.clone());
            let outcome = table.dispatch(&mut scratch, hookc::HookPoint::ToolPreExecute, &Target::new(component), &mut ctx);
            let got: Vec<String> = outcome.fired().map(str::to_string).collect();
            let (kind, fired, final_payload) = reference(&rules, component, &payload);
            prop_assert_eq!(&got, &fired, "fired differs for {} {}\n{}", component, payload, text);
            prop_assert_eq!(outcome.kind(), kind);
            prop_assert_eq!(&ctx.payload, &final_payload);
        }
        }
    }
}

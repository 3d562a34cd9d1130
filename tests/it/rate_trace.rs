//! `rate(…)` conditions and the `trace` action, end to end: compiled from
//! rule text, dispatched through the table, and the shipped packs that use
//! them (`rules/ratelimit.hooks`, `rules/claude-code/trace.hooks`).

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on bad fixtures"
)]

use hookc::effects::ExecConfig;
use hookc::{Effects, HookContext, OutcomeKind, Report, Table, Target};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rate-trace")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A table and the effects of the host that dispatches it: its own
/// in-memory `rate(…)` counts, apart from every other test's.
struct Host {
    table: Table,
    effects: Effects,
}

impl std::ops::Deref for Host {
    type Target = Table;

    fn deref(&self) -> &Table {
        &self.table
    }
}

fn host(table: Table) -> Host {
    Host {
        table,
        effects: Effects::new(),
    }
}

fn table(rules: &str) -> Host {
    let compiled = hookc::compile_str("r.hooks", rules)
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}"));
    host(Table::from_bytes(&compiled.table.to_bytes()).unwrap())
}

fn errors(rules: &str) -> String {
    match hookc::compile_str("r.hooks", rules) {
        Ok(_) => panic!("compiled, but should not:\n{rules}"),
        Err(d) => d.to_string(),
    }
}

fn request(t: &Host, component: &str, operation: &str) -> Report {
    let mut ctx = HookContext::new(
        "request.pre_dispatch",
        component,
        json!({"operation": operation}),
    );
    let mut scratch = t.scratch();
    let outcome = t.dispatch_with(
        &mut scratch,
        "request.pre_dispatch",
        &Target::new(component),
        &mut ctx,
        &t.effects,
    );
    outcome.report(&ctx)
}

const LIMIT_3: &str = r#"
hook limit on request.pre_dispatch priority 20 {
    when rate("{component}:{payload.operation}") > 3 per 60s
    abort "rate limit exceeded: {component}:{payload.operation}"
}
"#;

#[test]
fn the_limit_counts_each_key_apart() {
    let t = table(LIMIT_3);
    let outcomes: Vec<OutcomeKind> = (0..5)
        .map(|_| request(&t, "builtin::llm", "chat").outcome)
        .collect();
    use OutcomeKind::{Abort, Continue};
    assert_eq!(outcomes, [Continue, Continue, Continue, Abort, Abort]);
    assert_eq!(
        request(&t, "builtin::llm", "chat").reason.as_deref(),
        Some("rate limit exceeded: builtin::llm:chat")
    );
    // Another operation, another component: their own counts.
    assert_eq!(request(&t, "builtin::llm", "embed").outcome, Continue);
    assert_eq!(request(&t, "plugin::x", "chat").outcome, Continue);
}

#[test]
fn the_window_slides() {
    let t = table(
        r#"
hook limit on request.pre_dispatch {
    when rate("{component}") >= 2 per 300ms
    abort "slow down"
}
"#,
    );
    assert_eq!(request(&t, "a::b", "x").outcome, OutcomeKind::Continue);
    assert_eq!(request(&t, "a::b", "x").outcome, OutcomeKind::Abort);
    std::thread::sleep(Duration::from_millis(350));
    assert_eq!(
        request(&t, "a::b", "x").outcome,
        OutcomeKind::Continue,
        "both earlier events left the window"
    );
}

#[test]
fn an_event_counts_once_however_many_tests_share_the_counter() {
    // Two rules test the same key and window (one counter): each event adds
    // one to it, not two, even with an edit between the tests.
    let t = table(
        r#"
hook warn on request.pre_dispatch priority 1 {
    when rate("{component}") > 1 per 60s
    meta warned = true
}
hook block on request.pre_dispatch priority 2 {
    when rate("{component}") > 3 per 60s
    abort "blocked"
}
"#,
    );
    assert_eq!(t.program().rates.len(), 1, "one shared counter");
    let mut kinds = Vec::new();
    let mut warned = Vec::new();
    for _ in 0..5 {
        let r = request(&t, "a::b", "x");
        kinds.push(r.outcome);
        warned.push(r.fired.contains(&"warn".to_string()));
    }
    use OutcomeKind::{Abort, Continue};
    assert_eq!(kinds, [Continue, Continue, Continue, Abort, Abort]);
    assert_eq!(warned, [false, true, true, true, true]);
}

#[test]
fn rates_only_count_where_the_rule_reaches_them() {
    // The rate test comes after a condition: events it never reaches are
    // not counted.
    let t = table(
        r#"
hook limit on request.pre_dispatch {
    when payload.operation == "chat"
    when rate("{component}") > 1 per 60s
    abort "too many chats"
}
"#,
    );
    for _ in 0..5 {
        assert_eq!(request(&t, "a::b", "embed").outcome, OutcomeKind::Continue);
    }
    assert_eq!(request(&t, "a::b", "chat").outcome, OutcomeKind::Continue);
    assert_eq!(request(&t, "a::b", "chat").outcome, OutcomeKind::Abort);
}

#[test]
fn bad_rate_tests_are_errors() {
    let e = errors(r#"hook h on request.pre_dispatch { meta n = rate("{component}") > 1 per 1s }"#);
    assert!(
        e.contains("`rate(…)` can only be used in `when` and `unless`"),
        "{e}"
    );
    let e = errors(r#"hook h on request.pre_dispatch { when rate("k") == 1 per 1s abort }"#);
    assert!(
        e.contains("a rate is compared with `>`, `>=`, `<` or `<=`"),
        "{e}"
    );
    let e = errors(r#"hook h on request.pre_dispatch { when rate("k") > 1000000 per 1s abort }"#);
    assert!(
        e.contains("a rate limit must be between 0 and 100000"),
        "{e}"
    );
    let e = errors(r#"hook h on request.pre_dispatch { when rate("k") > 1 per 0s abort }"#);
    assert!(e.contains("a rate window must be longer than 0"), "{e}");
    let e =
        errors(r#"hook h on request.pre_dispatch { when rate("{payload.x") > 1 per 1s abort }"#);
    assert!(e.contains("error"), "{e}");
}

#[test]
fn the_shipped_rate_limit_refuses_the_101st_request() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let compiled = hookc::compile_paths(&[root.join("rules")], &hookc::Options::default())
        .unwrap_or_else(|d| panic!("{d}"));
    let t = host(compiled.table);
    for i in 0..100 {
        let r = request(&t, "plugin::search", "query");
        assert_eq!(r.outcome, OutcomeKind::Continue, "request {i}");
    }
    let r = request(&t, "plugin::search", "query");
    assert_eq!(
        r.reason.as_deref(),
        Some("rate limit exceeded: plugin::search:query (100 a minute)")
    );
}

fn trace_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_shipped_agent_trace_hashes_what_was_written() {
    let dir = tmp_dir("agent-trace");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let compiled = hookc::compile_paths(
        &[root.join("rules/claude-code/trace.hooks")],
        &hookc::Options::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let mut exec = ExecConfig::default();
    exec.project_dir = Some(dir.clone());
    let effects = Effects::new().with_exec(exec);
    let t = compiled.table;
    for (tool, input) in [
        (
            "Write",
            json!({"file_path": "/p/src/a.ts", "content": "test"}),
        ),
        (
            "Edit",
            json!({"file_path": "/p/src/b.ts", "old_string": "x", "new_string": "y"}),
        ),
        ("Read", json!({"file_path": "/p/src/c.ts"})),
    ] {
        let component = format!("claude-code::{tool}");
        let mut ctx = HookContext::new(
            "PostToolUse",
            &component,
            json!({"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": input}),
        );
        let mut scratch = t.scratch();
        let outcome = t.dispatch_with(
            &mut scratch,
            "PostToolUse",
            &Target::new(&component),
            &mut ctx,
            &effects,
        );
        assert!(outcome.is_continue());
        assert!(outcome.warnings().is_empty(), "{:?}", outcome.warnings());
    }
    let lines = trace_lines(&dir.join(".hookc/agent_trace.jsonl"));
    assert_eq!(lines.len(), 2, "writes and edits are traced, reads are not");
    assert_eq!(lines[0]["rule"], "trace-file-changes");
    assert_eq!(lines[0]["component"], "claude-code::Write");
    // `printf test | sha256sum`
    assert_eq!(
        lines[0]["hashes"]["payload.tool_input.content"],
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    );
    assert_eq!(
        lines[0]["hashes"]["payload.tool_input.new_string"],
        Value::Null
    );
    assert_eq!(
        lines[1]["hashes"]["payload.tool_input.content"],
        Value::Null
    );
    assert!(lines[1]["hashes"]["payload.tool_input.new_string"]
        .as_str()
        .is_some_and(|h| h.starts_with("sha256:")));
    let text = std::fs::read_to_string(dir.join(".hookc/agent_trace.jsonl")).unwrap();
    assert!(!text.contains("\"test\""), "contents never reach the trace");
}

#[test]
fn a_trace_that_cannot_be_written_follows_the_failure_mode() {
    let dir = tmp_dir("unwritable");
    // A directory where the trace file should be.
    std::fs::create_dir_all(dir.join("trace.jsonl")).unwrap();
    let t = table(
        r#"
hook lenient on tool.pre_execute priority 1 { trace "trace.jsonl" payload.x }
hook strict on tool.post_execute fail closed { trace "trace.jsonl" payload.x }
"#,
    );
    let mut exec = ExecConfig::default();
    exec.project_dir = Some(dir.clone());
    let effects = Effects::new().with_exec(exec);
    let mut scratch = t.scratch();
    let target = Target::new("a::b");
    let mut ctx = HookContext::new("tool.pre_execute", "a::b", json!({"x": 1}));
    let outcome = t.dispatch_with(
        &mut scratch,
        "tool.pre_execute",
        &target,
        &mut ctx,
        &effects,
    );
    assert!(outcome.is_continue());
    assert!(
        outcome.warnings()[0]
            .starts_with("rule `lenient` failed open: cannot append to trace `trace.jsonl`"),
        "{:?}",
        outcome.warnings()
    );
    let mut ctx = HookContext::new("tool.post_execute", "a::b", json!({"x": 1}));
    let outcome = t.dispatch_with(
        &mut scratch,
        "tool.post_execute",
        &target,
        &mut ctx,
        &effects,
    );
    assert!(outcome.is_abort());
    assert!(outcome
        .reason()
        .is_some_and(|r| r.starts_with("rule `strict` failed closed: cannot append to trace")));
}

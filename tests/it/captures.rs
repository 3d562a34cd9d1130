//! Named regex groups bind names: a `when` line's `matches /(?P<name>…)/`
//! makes `name` usable in the rule's later conditions and in its action
//! templates; compiled, round-tripped through bytes and dispatched.

#![expect(
    clippy::panic,
    clippy::expect_used,
    reason = "test helpers fail the test on bad fixtures"
)]

use hookc::{HookContext, Table, Target};
use serde_json::{json, Value};

fn table(rules: &str) -> Table {
    let compiled = hookc::compile_str("c.hooks", rules)
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}"));
    Table::from_bytes(&compiled.table.to_bytes()).expect("table round-trips")
}

/// `(fired, reason)` of a `tool.pre_execute` dispatch with `payload`.
fn run(table: &Table, payload: Value) -> (Vec<String>, Option<String>) {
    let mut ctx = HookContext::new("tool.pre_execute", "builtin::llm", payload);
    let mut scratch = table.scratch();
    let outcome = table.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("builtin::llm"),
        &mut ctx,
    );
    let report = outcome.report(&ctx);
    (report.fired, report.reason)
}

#[test]
fn a_capture_is_used_in_later_conditions_and_in_messages() {
    let t = table(
        r#"hook r on tool.pre_execute {
            when payload.args matches /open (?P<file>\S+)/
            when basename(file) ends_with ".env"
            abort "refusing to open {file}"
        }"#,
    );
    let (fired, reason) = run(&t, json!({"args": "open /proj/prod.env now"}));
    assert_eq!(fired, ["r"]);
    assert_eq!(reason.as_deref(), Some("refusing to open /proj/prod.env"));
    assert!(run(&t, json!({"args": "open /proj/a.rs"})).0.is_empty());
    assert!(run(&t, json!({"args": "close x"})).0.is_empty());
}

#[test]
fn only_a_when_line_s_top_level_matches_bind() {
    // Inside `or` the group may not have matched: it binds nothing, and
    // the name is unknown.
    let err = hookc::compile_str(
        "c.hooks",
        r#"hook r on tool.pre_execute {
            when payload.args matches /(?P<word>\w+)/ or payload.x == 1
            abort "{word}"
        }"#,
    )
    .expect_err("word is not bound");
    assert!(
        err.to_string().contains("unknown context field `word`"),
        "{err}"
    );
    // A capture is not a rate key.
    let err = hookc::compile_str(
        "c.hooks",
        r#"hook r on tool.pre_execute {
            when payload.args matches /(?P<word>\w+)/
            when rate("{word}") > 3 per 1s
            abort
        }"#,
    )
    .expect_err("a capture is not a rate key");
    assert!(
        err.to_string()
            .contains("a rate key cannot use a capture or a `let` name"),
        "{err}"
    );
    // A group may not hide a name.
    let err = hookc::compile_str(
        "c.hooks",
        "list word = [\"x\"]\nhook r on tool.pre_execute { when payload.args matches /(?P<word>\\w+)/ when payload.args in word abort }",
    )
    .expect_err("the group hides the list");
    assert!(
        err.to_string()
            .contains("the regex group `word` already names something else"),
        "{err}"
    );
}

#[test]
fn a_let_names_a_value_for_later_lines_and_messages() {
    let t = table(
        r#"hook r on tool.pre_execute {
            when payload.args matches /open (?P<file>\S+)/
            let name = lower(basename(file))
            let size = len(payload.args)
            when name ends_with ".env" and size < 100
            abort "refusing {name} ({size} bytes of arguments)"
        }"#,
    );
    let (fired, reason) = run(&t, json!({"args": "open /p/PROD.ENV"}));
    assert_eq!(fired, ["r"]);
    assert_eq!(
        reason.as_deref(),
        Some("refusing prod.env (16 bytes of arguments)")
    );
    assert!(run(&t, json!({"args": "open /p/a.rs"})).0.is_empty());
    // A `let` may not hide a name, and is known only after its line.
    for (rules, want) in [
        (
            "list xs = [1]\nhook r on tool.pre_execute { let xs = 1 when payload.n in xs abort }",
            "`xs` already names something else",
        ),
        (
            "hook r on tool.pre_execute { when n == 1 let n = payload.n abort }",
            "unknown name `n`",
        ),
        (
            "hook r on tool.pre_execute { let shell = 1 abort }",
            "`shell` already names something else",
        ),
    ] {
        let err = hookc::compile_str("c.hooks", rules).expect_err(rules);
        assert!(err.to_string().contains(want), "{rules}: {err}");
    }
}

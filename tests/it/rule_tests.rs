//! `hookc test` and `hookc::scenarios`: tests written next to the rules.
//!
//! The shipped rules carry their own tests; these check that they pass,
//! that together they exercise every shipped rule both firing and not
//! firing, how failures are reported, how the checker refuses malformed
//! tests, and that tests never reach the compiled table.

#![expect(
    clippy::panic,
    clippy::unwrap_used,
    reason = "tests fail loudly on purpose"
)]

use crate::common;
use common::Run;

use hookc::scenarios::{run_test_sources, run_tests, run_tests_as, TestReport, TestRun};
use hookc::span::SourceFile;
use hookc::syntax::{self, ast};
use std::collections::BTreeMap;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn hookc(args: &[&str]) -> Run {
    common::hookc_in(root(), args, None)
}

fn run_one(text: &str) -> TestReport {
    match run_test_sources(vec![SourceFile::new("t.hooks", text)]) {
        Ok(report) => report,
        Err(d) => panic!("{}", hookc::diag::render::human(&d, false)),
    }
}

// ---------------------------------------------------------------- shipped rules

/// The tests of the shipped rules under `path`, run with their effects in
/// a project directory of their own, `project`, so that what the pack's
/// `trace` rule appends lands there and not in the checkout.
fn shipped_tests(path: &str, project: &str) -> (TestReport, std::path::PathBuf) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rule-tests")
        .join(format!("{project}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = TestRun {
        project_dir: Some(dir.clone()),
        ..TestRun::default()
    };
    let report = run_tests_as(&[root().join(path)], &hookc::Options::default(), &run)
        .unwrap_or_else(|d| panic!("{}", hookc::diag::render::human(&d, false)));
    (report, dir)
}

/// The trace lines the pack's tests appended in `project`.
fn trace_lines(project: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(project.join(".hookc/agent_trace.jsonl")).unwrap();
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn shipped_rule_tests_pass() {
    let (report, _) = shipped_tests("rules", "all");
    for t in &report.tests {
        assert!(t.passed, "{}:\n{}", t.full_name(), t.failures.join("\n"));
    }
    assert!(report.tests.len() >= 14, "{} tests", report.tests.len());
    assert!(report.ok());
}

/// The Claude Code pack passes its own tests and its corpus: at least 150
/// commands and writes, evasions and look-alikes, each with the decision
/// the pack must give.
#[test]
fn the_claude_code_pack_holds_on_its_corpus() {
    let (report, project) = shipped_tests("rules/claude-code", "claude-code");
    // The write of "a write is traced", hashed, never written out.
    let lines = trace_lines(&project);
    assert!(!lines.is_empty());
    assert!(
        lines.iter().all(|l| l["rule"] == "trace-file-changes"),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.to_string().contains("export {}")),
        "{lines:?}"
    );
    let failed: Vec<String> = report
        .tests
        .iter()
        .filter(|t| !t.passed)
        .map(|t| format!("{}:\n{}", t.full_name(), t.failures.join("\n")))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    let corpus: Vec<_> = report
        .tests
        .iter()
        .filter(|t| t.full_name().contains("corpus.hooks"))
        .collect();
    assert!(corpus.len() >= 150, "{} corpus tests", corpus.len());
    for decision in ["deny: ", "ask: ", "none: "] {
        let n = corpus
            .iter()
            .filter(|t| t.full_name().contains(decision))
            .count();
        assert!(n >= 40, "{n} corpus tests expect `{decision}`");
    }
}

/// Every shipped rule fires in some test (`expect fired` names it) and, in
/// another test at one of its points, does not.
#[test]
fn shipped_tests_exercise_every_rule_firing_and_not_firing() {
    let mut rules: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // (hook point, fired ids) per test.
    let mut tests: Vec<(String, String, Vec<String>)> = Vec::new();
    for entry in std::fs::read_dir(root().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "hooks") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let (file, diags) = syntax::parse(&SourceFile::new(path.display().to_string(), text));
        assert!(!diags.has_errors());
        for item in &file.items {
            match item {
                ast::Item::Hook(h) => {
                    let points = h.points.iter().map(|p| p.name.clone()).collect();
                    rules.insert(h.id.name.clone(), points);
                }
                ast::Item::Test(t) => {
                    let ast::ExprKind::Object(entries) = &t.event.kind else {
                        panic!("event of {}", t.name.value);
                    };
                    let point = entries
                        .iter()
                        .find(|(k, _)| k.value == "hook_point")
                        .and_then(|(_, v)| match &v.kind {
                            ast::ExprKind::Str(s) => Some(s.value.clone()),
                            _ => None,
                        })
                        .unwrap();
                    let fired = t.expects.iter().find_map(|e| match &e.kind {
                        ast::ExpectKind::Fired(list) => match &list.kind {
                            ast::ExprKind::Array(items) => Some(
                                items
                                    .iter()
                                    .map(|i| match &i.kind {
                                        ast::ExprKind::Str(s) => s.value.clone(),
                                        _ => panic!("fired id"),
                                    })
                                    .collect::<Vec<_>>(),
                            ),
                            _ => None,
                        },
                        _ => None,
                    });
                    // Tests of definitions alone need no `expect fired`.
                    if let Some(fired) = fired {
                        tests.push((t.name.value.clone(), point, fired));
                    }
                }
                _ => {}
            }
        }
    }
    assert!(rules.len() >= 5);
    for (id, points) in &rules {
        let fires = tests.iter().any(|(_, _, fired)| fired.contains(id));
        let idle = tests
            .iter()
            .any(|(_, point, fired)| points.contains(point) && !fired.contains(id));
        assert!(fires, "no shipped test makes rule `{id}` fire");
        assert!(idle, "no shipped test at a point of `{id}` has it not fire");
    }
}

#[test]
fn cli_runs_the_shipped_tests() {
    let run = hookc(&["test", "rules/"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    insta::assert_snapshot!("shipped", run.stdout);
    assert!(run.stdout.contains("\ntest result: ok. "), "{}", run.stdout);
    assert!(
        run.stdout.ends_with(" passed, 0 failed\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn cli_reports_failures_and_exits_1() {
    let run = hookc(&["test", "tests/fixtures/rule_tests/failing.hooks"]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    insta::assert_snapshot!("failing", run.stdout);
    assert!(run
        .stdout
        .contains("\ntest result: FAILED. 1 passed; 2 failed\n1 passed, 2 failed\n"));
}

#[test]
fn cli_json_report() {
    let run = hookc(&[
        "test",
        "--format",
        "json",
        "tests/fixtures/rule_tests/failing.hooks",
    ]);
    assert_eq!(run.code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["passed"], 1);
    assert_eq!(v["failed"], 2);
    assert_eq!(v["tests"][0]["name"], "passes");
    assert_eq!(v["tests"][0]["passed"], true);
    assert_eq!(v["tests"][1]["line"], 26);
    assert_eq!(v["tests"][1]["failures"].as_array().unwrap().len(), 4);
}

#[test]
fn cli_malformed_tests_exit_2_with_diagnostics() {
    let run = hookc(&["test", "tests/fixtures/rule_tests/bad.hooks"]);
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "");
    let lint = hookc(&["lint", "tests/fixtures/rule_tests/bad.hooks"]);
    assert_eq!(lint.code, Some(1));
    assert_eq!(lint.stderr, run.stderr);
    insta::assert_snapshot!("bad", run.stderr);
    let run = hookc(&["test", "no/such/dir"]);
    assert_eq!(run.code, Some(2));
}

// ---------------------------------------------------------------- library

const RULES: &str = r#"
schema orcs
list shells = ["sh", "bash"]

hook skip-cached on tool.pre_execute at plugin::* priority 5 {
    when payload.cached == true
    skip {"result": "cached", "n": 1}
}

hook ask-shell on tool.pre_execute priority 10 {
    when payload.tool in shells
    ask "run a shell?"
}

hook allow-ls on tool.pre_execute priority 20 {
    when payload.args == "ls"
    allow
    meta seen = payload.args
}

hook child-only on tool.pre_execute at builtin::llm/worker priority 30 {
    set payload.n = payload.n + 1
}
"#;

fn with_tests(tests: &str) -> String {
    format!("{RULES}\n{tests}")
}

#[test]
fn every_expect_form_passes_when_it_holds() {
    let report = run_one(&with_tests(
        r#"
test "skip" {
    event {"hook_point": "tool.pre_execute", "component_id": "plugin::cache", "payload": {"cached": true}}
    expect skip {"n": 1, "result": "cached"}
    expect skip
    expect fired ["skip-cached"]
    expect decision none
}

test "ask" {
    event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {"tool": "bash", "args": "ls", "n": 1}}
    expect ask "run a shell?"
    expect ask
    expect fired ["ask-shell", "allow-ls"]
    expect decision ask
    expect metadata.seen == "ls"
    expect payload.n == 1
    expect payload.tool in shells
}

test "target with a child" {
    event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {"n": 1}}
    target "builtin::llm/worker#main"
    expect continue
    expect fired ["child-only"]
    expect payload.n == 2
    expect child == "worker" and instance == "main"
}
"#,
    ));
    for t in &report.tests {
        assert!(t.passed, "{}:\n{}", t.name, t.failures.join("\n"));
    }
    assert_eq!(report.passed(), 3);
}

#[test]
fn failures_say_what_was_expected_and_what_happened() {
    let report = run_one(&with_tests(
        r#"
test "all wrong" {
    event {"hook_point": "tool.pre_execute", "component_id": "plugin::cache", "payload": {"cached": true}}
    expect skip {"n": 2}
    expect abort "nope"
    expect continue
    expect fired []
    expect decision deny
    expect payload.cached == false
}
"#,
    ));
    let t = &report.tests[0];
    assert!(!t.passed);
    assert_eq!(report.failed(), 1);
    let lines: Vec<&str> = t.failures.iter().map(String::as_str).collect();
    assert_eq!(
        lines,
        [
            r#"t.hooks:28:5: expected skip value {"n":2}, got {"result":"cached","n":1}"#,
            r#"t.hooks:29:5: expected `abort "nope"`, the outcome is `skip {"result":"cached","n":1}`"#,
            r#"t.hooks:30:5: expected `continue`, the outcome is `skip {"result":"cached","n":1}`"#,
            r#"t.hooks:31:5: expected fired [], got ["skip-cached"]"#,
            "t.hooks:32:5: expected decision `deny`, got `none`",
            "t.hooks:33:5: expected `payload.cached == false` to hold on the final context\n  final payload: {\"cached\":true}\n  final metadata: {}",
        ]
    );
    assert_eq!((t.line, t.col), (26, 1));
    assert_eq!(t.full_name(), "t.hooks::all wrong");
}

#[test]
fn conditions_hold_at_the_depth_limit() {
    // At the limit no rule runs; conditions on the final context are still
    // evaluated (each in a table of its own, as a matching rule would stop
    // the chain).
    let report = run_one(&with_tests(
        r#"
test "at the limit" {
    event {"hook_point": "tool.pre_execute", "component_id": "plugin::cache", "depth": 4, "max_depth": 4, "payload": {"cached": true}}
    expect continue
    expect fired []
    expect depth == 4
    expect payload.cached == true
    expect not (payload.cached == false)
}

test "at the limit, failing" {
    event {"hook_point": "tool.pre_execute", "component_id": "plugin::cache", "depth": 4, "max_depth": 4}
    expect depth == 3
}
"#,
    ));
    assert!(report.tests[0].passed, "{:?}", report.tests[0].failures);
    assert!(!report.tests[1].passed);
    assert_eq!(report.tests[1].failures.len(), 1);
}

#[test]
fn conditions_resolve_names_in_their_own_file() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rule-tests-names");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("defs.hooks"),
        "macro is_exec = payload.tool == \"exec\"\npattern digits = /[0-9]+/\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("a.hooks"),
        r#"import "defs.hooks"
hook mark on tool.pre_execute {
    when is_exec
    set payload.args = "0"
}
test "uses imported names" {
    event {"hook_point": "tool.pre_execute", "component_id": "a::b", "payload": {"tool": "exec"}}
    expect is_exec and payload.args matches digits
    expect fired ["mark"]
}
"#,
    )
    .unwrap();
    let report = run_tests(&[dir.join("a.hooks")]).unwrap();
    assert!(report.ok(), "{:?}", report.tests);
}

#[test]
fn tests_are_not_part_of_the_table() {
    let with = hookc::compile_str(
        "t.hooks",
        &with_tests(
            r#"
test "t" {
    event {"hook_point": "tool.pre_execute", "component_id": "a::b", "payload": {"args": "x"}}
    expect payload.args matches /x+/
    expect fired []
}
"#,
        ),
    )
    .unwrap();
    let without = hookc::compile_str("t.hooks", RULES).unwrap();
    assert_eq!(with.table.program(), without.table.program());
}

#[test]
fn a_file_without_tests_runs_none() {
    let report = run_one(RULES);
    assert!(report.tests.is_empty());
    assert!(report.ok());
}

// ---------------------------------------------------------------- syntax

#[test]
fn parsing_recovers_around_test_blocks() {
    let text = r#"
test "broken" {
    event {"hook_point": }
}
hook a on tool.pre_execute {
    abort
}
hook b on tool.pre_execute {
    when payload.a ==
}
test "ok" {
    event {"hook_point": "tool.pre_execute", "component_id": "a::b"}
    expect fired ["a"]
}
"#;
    let (file, diags) = syntax::parse(&SourceFile::new("t.hooks", text));
    let errors: Vec<_> = diags.iter().map(|d| d.location().unwrap().1).collect();
    assert_eq!(
        errors,
        [3, 10],
        "{}",
        hookc::diag::render::human(&diags, false)
    );
    let kinds: Vec<&str> = file
        .items
        .iter()
        .map(|i| match i {
            ast::Item::Hook(_) => "hook",
            ast::Item::Test(_) => "test",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["hook", "test"]);
}

#[test]
fn test_and_its_keywords_are_not_reserved() {
    let text = r#"
macro test = payload.event == "expect"
macro fired = payload.target exists
hook event on tool.pre_execute {
    when test and
        fired
    abort
}
test "names" {
    event {"hook_point": "tool.pre_execute", "component_id": "a::b", "payload": {"event": "expect", "target": 1}}
    expect (fired)
    expect test
    expect fired ["event"]
}
"#;
    let report = run_one(text);
    assert!(report.ok(), "{:?}", report.tests);
    let out = hookc::syntax::pretty::format_source(&SourceFile::new("t.hooks", text)).unwrap();
    assert!(out.contains("    when test and fired\n"), "{out}");
    assert!(out.contains("    expect (fired)\n"), "{out}");
}

/// Tests whose events are raw Claude Code events.
const RAW_EVENT_TESTS: &str = r#"schema claude-code
hook no-rm on PreToolUse at claude-code::Bash {
    when payload.tool_input.command contains "rm -rf"
    deny "no recursive deletes"
}

test "the event Claude Code writes" {
    event {
        "session_id": "s1",
        "transcript_path": "/t.jsonl",
        "cwd": "/p",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
    }
    expect abort "no recursive deletes"
    expect fired ["no-rm"]
}

test "another tool is another component" {
    event {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/p/a"}}
    expect continue
}
"#;

/// A test's event may be the raw JSON Claude Code writes on a hook's stdin:
/// it runs as `hookc claude` would run it (point from `hook_event_name`,
/// component from `tool_name`).
#[test]
fn a_raw_claude_code_event_is_a_test_event() {
    let report = run_one(RAW_EVENT_TESTS);
    assert_eq!(report.tests.len(), 2);
    for t in &report.tests {
        assert!(t.passed, "{}: {:?}", t.name, t.failures);
    }
    // The same file through the command line.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rule-tests-raw-events");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("raw.hooks");
    std::fs::write(&file, RAW_EVENT_TESTS).unwrap();
    let run = hookc(&["test", file.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stdout.contains("2 passed, 0 failed"), "{run:#?}");
    // An unknown point in `hook_event_name` is reported like one in
    // `hook_point`.
    let bad = run_test_sources(vec![SourceFile::new(
        "t.hooks",
        "schema claude-code\ntest \"x\" {\n    event {\"hook_event_name\": \"PreToolUs\"}\n    expect continue\n}\n",
    )]);
    let Err(d) = bad else {
        panic!("an unknown point is an error")
    };
    let text = hookc::diag::render::human(&d, false);
    assert!(
        text.contains("unknown hook point `PreToolUs`")
            && text.contains("did you mean `PreToolUse`?"),
        "{text}"
    );
}

/// `expect output` and `expect exit`: a test of a raw Claude Code event
/// asserts exactly what Claude Code reads from the hook.
#[test]
fn a_test_asserts_the_answer_claude_code_reads() {
    let report = run_one(
        r#"schema claude-code
hook no-force on PreToolUse at claude-code::Bash {
    when payload.tool_input.command contains "--force"
    deny "no force pushes"
}
hook finish-first on TaskCompleted {
    abort "tests are red"
}

test "deny as Claude Code reads it" {
    event {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force"}}
    expect output {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no force pushes"}}
    expect exit 0
}

test "nothing to say is no output" {
    event {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
    expect output null
}

test "a block by exit code" {
    event {"hook_event_name": "TaskCompleted", "task_id": "t1"}
    expect exit 2
}

test "a wrong answer fails" {
    event {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force"}}
    expect output {"decision": "block"}
    expect exit 2
}

test "an ORCS event has no Claude Code answer" {
    event {"hook_point": "PreToolUse", "component_id": "claude-code::Bash", "payload": {"tool_name": "Bash", "tool_input": {"command": "ls"}}}
    expect output null
}
"#,
    );
    let by_name = |name: &str| {
        report
            .tests
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no test {name}"))
    };
    for name in [
        "deny as Claude Code reads it",
        "nothing to say is no output",
        "a block by exit code",
    ] {
        let t = by_name(name);
        assert!(t.passed, "{name}: {:?}", t.failures);
    }
    let wrong = by_name("a wrong answer fails");
    assert!(!wrong.passed);
    assert!(
        wrong.failures[0]
            .contains("expected output {\"decision\":\"block\"}, got {\"hookSpecificOutput\""),
        "{:?}",
        wrong.failures
    );
    assert!(
        wrong.failures[1].contains("expected exit 2, got 0"),
        "{:?}",
        wrong.failures
    );
    let orcs = by_name("an ORCS event has no Claude Code answer");
    assert!(
        orcs.failures[0].contains("needs a raw Claude Code event"),
        "{:?}",
        orcs.failures
    );
}

/// `mock "handler" REPLY`: a test stubs the native handler `call` runs,
/// through `hookc test` on a real file; formatted, and a rule's failure
/// mode still applies to a handler no test mocks.
#[test]
fn a_test_mocks_the_handler_a_rule_calls() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mock-handlers");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("audit.hooks"),
        r#"hook audit on tool.pre_execute fail closed {
    call "audit"
}

test "the audit blocks" {
    event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm"}
    mock "audit" abort "denied by audit"
    expect abort "denied by audit"
}

test "the audit lets it through" {
    event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm"}
    mock "audit" continue
    expect continue
    expect fired ["audit"]
}

test "the audit answers from a cache" {
    event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm"}
    mock "audit" skip {"cached": true}
    expect skip {"cached": true}
}

test "without a mock there is no handler, and the rule fails closed" {
    event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm"}
    expect abort
}
"#,
    )
    .unwrap();
    let run = hookc(&["test", dir.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("4 passed; 0 failed"), "{}", run.stdout);
    let fmt = hookc(&["fmt", "--check", dir.to_str().unwrap()]);
    assert_eq!(fmt.code, Some(0), "{}{}", fmt.stdout, fmt.stderr);
}

/// `mock exec|sh|webhook`: in a test, a command answers as scripted (read
/// as a real exit would be: exit 2 blocks with stderr, a JSON stdout is a
/// reply, another code is a failure the rule's mode handles) and a webhook
/// is not sent; nothing runs. Through `hookc test` on a real file, which
/// `hookc fmt --check` leaves as written.
#[test]
fn a_test_mocks_the_commands_and_webhooks_a_rule_runs() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mock-effects");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("ran");
    let rules = format!(
        r#"hook gate on tool.pre_execute {{
    when payload.step == "test"
    sh "touch {marker}; npm test --silent"
}}

hook lint on tool.pre_execute fail closed {{
    when payload.step == "lint"
    exec "./no/such/linter" "--fix"
}}

hook notify on tool.pre_execute {{
    when payload.step == "notify"
    webhook "https://hooks.example.com/T0/B0"
}}

test "the tests are red" {{
    event {{"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {{"step": "test"}}}}
    mock sh "*npm test*" exit 2 stderr "3 tests fail"
    expect abort "3 tests fail"
}}

test "the tests are green" {{
    event {{"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {{"step": "test"}}}}
    mock sh "*npm test*"
    expect continue
    expect fired ["gate"]
}}

test "the linter replies in JSON" {{
    event {{"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {{"step": "lint"}}}}
    mock exec "./no/such/*" stdout {{"decision": "block", "reason": "lint errors"}}
    expect abort "lint errors"
}}

test "a crashing linter fails closed" {{
    event {{"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {{"step": "lint"}}}}
    mock exec "./no/such/linter" stderr "segfault" exit 139
    expect abort "rule `lint` failed closed: `./no/such/linter` exited with code 139: segfault"
}}

test "a mock of another program does not stand in" {{
    event {{"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {{"step": "lint"}}}}
    mock exec "./other" exit 0
    mock sh "*" exit 0
    expect abort
}}

test "the webhook is not sent" {{
    event {{"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {{"step": "notify"}}}}
    mock webhook "https://hooks.example.com/*"
    expect continue
    expect fired ["notify"]
}}

test "a refused webhook is a warning, never a block" {{
    event {{"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {{"step": "notify"}}}}
    mock webhook "https://hooks.example.com/*" fail "queue full"
    expect abort
}}
"#,
        marker = marker.display()
    );
    std::fs::write(dir.join("effects.hooks"), rules).unwrap();
    let run = hookc(&["test", "--format", "json", dir.to_str().unwrap()]);
    assert_eq!(
        run.code,
        Some(1),
        "one test fails on purpose: {}{}",
        run.stdout,
        run.stderr
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let tests = report["tests"].as_array().unwrap();
    for t in tests {
        let name = t["name"].as_str().unwrap();
        let failures = t["failures"].to_string();
        if name == "a refused webhook is a warning, never a block" {
            assert_eq!(t["passed"], false);
            assert!(
                failures.contains("expected `abort`, the outcome is `continue`")
                    && failures.contains("webhook to https://hooks.example.com/T0/B0 queue full"),
                "{failures}"
            );
        } else {
            assert_eq!(t["passed"], true, "{name}: {failures}");
        }
    }
    assert_eq!(tests.len(), 7);
    assert!(!marker.exists(), "a mocked `sh` ran");
    // Formatting keeps every mock line as written, and the tests as they were.
    let fmt = hookc(&["fmt", dir.to_str().unwrap()]);
    assert_eq!(fmt.code, Some(0), "{}{}", fmt.stdout, fmt.stderr);
    let formatted = std::fs::read_to_string(dir.join("effects.hooks")).unwrap();
    for line in [
        "mock sh \"*npm test*\" exit 2 stderr \"3 tests fail\"",
        "mock exec \"./no/such/*\" stdout {\"decision\": \"block\", \"reason\": \"lint errors\"}",
        "mock exec \"./no/such/linter\" stderr \"segfault\" exit 139",
        "mock webhook \"https://hooks.example.com/*\" fail \"queue full\"",
        "mock sh \"*npm test*\"\n",
    ] {
        assert!(formatted.contains(line), "{line:?} lost in:\n{formatted}");
    }
    let outcomes = |stdout: &str| {
        let report: serde_json::Value = serde_json::from_str(stdout).unwrap();
        report["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["name"].to_string(), t["passed"].clone()))
            .collect::<Vec<_>>()
    };
    let again = hookc(&["test", "--format", "json", dir.to_str().unwrap()]);
    assert_eq!(
        outcomes(&again.stdout),
        outcomes(&run.stdout),
        "formatting changed the tests"
    );
}

/// `mock` lines the checker refuses: a part given twice, a glob that is
/// not one, a `stdout` that is not JSON.
#[test]
fn malformed_mocks_are_errors() {
    let text = r#"hook a on tool.pre_execute { sh "x" }
test "t" {
    event {"hook_point": "tool.pre_execute", "component_id": "builtin::llm"}
    mock sh "x" exit 1 exit 2
    mock exec "[unclosed" exit 0
    mock sh "y" stdout {"a": payload.x}
}
"#;
    let Err(d) = run_test_sources(vec![SourceFile::new("t.hooks", text)]) else {
        panic!("malformed mocks must not run")
    };
    let text = hookc::diag::render::human(&d, false);
    for needle in [
        "`exit` is given twice",
        "`[unclosed` is not a valid glob",
        "`stdout` takes text or a JSON object",
        "t.hooks:4:",
        "t.hooks:5:",
        "t.hooks:6:",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}

/// `event file "…"`: a test reads its event from a file beside the rules
/// (a raw Claude Code event as Claude Code writes it), through `hookc
/// test` on real files; a missing file is an error at the path.
#[test]
fn a_test_reads_its_event_from_a_file() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("event-file");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("events")).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/claude/events/pre_tool_use_bash_rm.json"),
        dir.join("events/rm.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("guard.hooks"),
        r#"schema claude-code

hook no-rm on PreToolUse at claude-code::Bash {
    when payload.tool_input.command contains "rm -rf"
    deny "no recursive deletes"
}

test "the sample rm is denied" {
    event file "events/rm.json"
    expect decision deny
    expect output {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no recursive deletes"}}
    expect exit 0
}
"#,
    )
    .unwrap();
    let run = hookc(&["test", dir.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("1 passed; 0 failed"), "{}", run.stdout);
    let fmt = hookc(&["fmt", dir.to_str().unwrap()]);
    assert_eq!(fmt.code, Some(0), "{}{}", fmt.stdout, fmt.stderr);
    let formatted = std::fs::read_to_string(dir.join("guard.hooks")).unwrap();
    assert!(
        formatted.contains("    event file \"events/rm.json\"\n"),
        "{formatted}"
    );

    std::fs::write(dir.join("events/rm.json"), "[1, 2]").unwrap();
    std::fs::write(dir.join("events/bad.json"), "{not json").unwrap();
    std::fs::write(
        dir.join("more.hooks"),
        "schema claude-code\ntest \"gone\" {\n    event file \"events/none.json\"\n}\ntest \"bad\" {\n    event file \"events/bad.json\"\n}\n",
    )
    .unwrap();
    let run = hookc(&["test", dir.to_str().unwrap()]);
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    for needle in [
        "cannot read the event file `events/none.json`",
        "more.hooks:3:16",
        "cannot read the event file `events/bad.json`: not JSON",
        "cannot read the event file `events/rm.json`: it holds JSON, but not an object",
        "guard.hooks:9:16",
    ] {
        assert!(
            run.stderr.contains(needle),
            "missing {needle:?} in:\n{}",
            run.stderr
        );
    }
}

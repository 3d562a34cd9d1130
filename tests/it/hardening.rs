//! No event, file or race turns a rule off: `hookc claude` (and `eval`,
//! `explain`) run as Claude Code runs them, on the inputs that used to make
//! them fail open.
//!
//! - events serde_json alone refuses (lone surrogate escapes, deep nesting);
//! - tables that load but cannot be the policy (another schema, no rules);
//! - tables crafted past their checksum (a condition nested 300 deep);
//!
//! Every test sets the variables `hookc claude` reads itself, so the
//! machine's own settings do not leak in.

#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests fail loudly on purpose"
)]

use hookc::event::MAX_DEPTH;
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty temp directory for one test.
fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hardening-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What one run printed and how it exited.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Stdout as the one JSON object Claude Code parses.
    #[track_caller]
    fn json(&self) -> Value {
        hookc::event::parse(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:#?}"))
    }

    /// A PreToolUse deny, with its reason.
    #[track_caller]
    fn denied(&self) -> String {
        assert_eq!(self.code, Some(0), "{self:#?}");
        let answer = self.json();
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], "deny",
            "{self:#?}"
        );
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// Runs `hookc` in `dir` with `args`, `stdin` and, among the variables
/// `hookc claude` reads, only `env`.
fn hookc_in(dir: &Path, args: &[&OsStr], stdin: &str, env: &[(&str, &OsStr)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookc"));
    command
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("HOOKC_TABLE")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("HOOKC_LOG")
        .env_remove("RUST_LOG");
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hookc binary runs");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    // A command that exits without reading stdin closes the pipe early.
    let _ = pipe.write_all(stdin.as_bytes());
    drop(pipe);
    let out = child.wait_with_output().expect("hookc finishes");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

fn hookc(args: &[&OsStr], stdin: &str) -> Run {
    hookc_in(root(), args, stdin, &[])
}

/// Writes `rules` (a `claude-code` policy) to `dir/policy.hooks` and
/// compiles it to `dir/policy.tbl`.
fn compile(dir: &Path, rules: &str) -> PathBuf {
    let source = dir.join("policy.hooks");
    std::fs::write(&source, rules).unwrap();
    let table = dir.join("policy.tbl");
    let run = hookc(
        &[
            OsStr::new("compile"),
            source.as_os_str(),
            OsStr::new("-o"),
            table.as_os_str(),
        ],
        "",
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    table
}

/// `hookc claude --table TABLE [extra…]` on `stdin`.
fn claude(table: &Path, extra: &[&str], stdin: &str) -> Run {
    let mut args = vec![
        OsStr::new("claude"),
        OsStr::new("--table"),
        table.as_os_str(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    hookc(&args, stdin)
}

// ---------------------------------------------------------------- events

const DENY_RM: &str = r#"schema claude-code

hook deny-rm-root on PreToolUse at claude-code::Bash {
    when payload.tool_input.command contains "rm -rf /"
    deny "no recursive delete of /: {payload.tool_input.command}"
}
"#;

/// A Bash `rm -rf /` event; `extra` is JSON text spliced into its
/// `tool_input`, verbatim (so that it can hold escapes serde_json refuses).
fn rm_event(extra: &str) -> String {
    format!(
        r#"{{"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {{"command": "rm -rf /", {extra}}}}}"#
    )
}

/// JSON text nesting `levels` arrays and objects (alternately) around `1`.
fn nested(levels: usize) -> String {
    let mut open = String::new();
    let mut close = String::new();
    for level in 0..levels {
        if level % 2 == 0 {
            open.push_str(r#"{"k": "#);
            close.insert(0, '}');
        } else {
            open.push('[');
            close.insert(0, ']');
        }
    }
    format!("{open}1{close}")
}

#[test]
fn a_lone_surrogate_in_another_field_does_not_turn_the_rule_off() {
    let table = compile(&tmp_dir("surrogate"), DENY_RM);
    // JavaScript's JSON.stringify writes a string cut inside a surrogate
    // pair like this.
    let event = rm_event(r#""description": "delete it all \ud83d", "note": "\udc00\\ud800""#);
    assert!(serde_json::from_str::<Value>(&event).is_err());
    let run = claude(&table, &[], &event);
    assert_eq!(run.denied(), "no recursive delete of /: rm -rf /");
}

#[test]
fn a_thousand_levels_of_tool_input_do_not_turn_the_rule_off() {
    let table = compile(&tmp_dir("deep-1000"), DENY_RM);
    let event = rm_event(&format!(r#""options": {}"#, nested(1000)));
    assert!(serde_json::from_str::<Value>(&event).is_err());
    let run = claude(&table, &[], &event);
    assert_eq!(run.denied(), "no recursive delete of /: rm -rf /");
}

#[test]
fn eval_reads_such_events_too() {
    for extra in [
        r#""note": "\ud800""#.to_string(),
        format!(r#""deep": {}"#, nested(1000)),
    ] {
        let event = format!(
            r#"{{"hook_point": "tool.pre_execute", "component_id": "builtin::llm",
                "payload": {{"tool": "exec", "args": "rm -rf /", {extra}}}}}"#
        );
        let run = hookc(
            &[
                OsStr::new("eval"),
                OsStr::new("rules/"),
                OsStr::new("--event"),
                OsStr::new("-"),
                OsStr::new("--format"),
                OsStr::new("human"),
            ],
            &event,
        );
        assert_eq!(run.code, Some(1), "{run:#?}");
        assert!(
            run.stdout.starts_with(
                "outcome   abort
"
            ),
            "{run:#?}"
        );
        assert!(
            run.stdout.contains("\nfired     block-dangerous\n"),
            "{run:#?}"
        );
    }
}

/// The whole event at the limit: the event object, `tool_input`, and the
/// levels inside it.
fn event_at_depth(levels: usize) -> String {
    rm_event(&format!(r#""deep": {}"#, nested(levels - 2)))
}

#[test]
fn an_event_at_the_depth_limit_is_dispatched_and_printed() {
    // Every walk of the event runs: a command gets it on stdin, a template
    // renders it, the answer is printed, `eval` and `explain` print it.
    let dir = tmp_dir("deep-limit");
    let table = compile(
        &dir,
        &format!(
            "{DENY_RM}\nhook echo-input on PreToolUse priority 1 {{\n    sh \"cat > /dev/null\"\n    log info \"{{payload.tool_input}}\"\n    set payload.tool_input.seen = true\n}}\n"
        ),
    );
    let event = event_at_depth(MAX_DEPTH);
    let run = claude(&table, &["--fail-closed"], &event);
    assert_eq!(run.denied(), "no recursive delete of /: rm -rf /");
    assert!(run.stderr.contains("info [echo-input]: {"), "{run:#?}");

    // `explain` reads the Claude Code event; `eval` an ORCS context whose
    // payload is that event (one level less in it).
    let claude_event = dir.join("claude.json");
    std::fs::write(&claude_event, &event).unwrap();
    let orcs_event = dir.join("orcs.json");
    std::fs::write(
        &orcs_event,
        format!(
            r#"{{"hook_point": "PreToolUse", "component_id": "claude-code::Bash", "payload": {}}}"#,
            event_at_depth(MAX_DEPTH - 1)
        ),
    )
    .unwrap();
    for (command, event, format) in [
        ("eval", &orcs_event, "json"),
        ("eval", &orcs_event, "human"),
        ("explain", &claude_event, "json"),
        ("explain", &claude_event, "human"),
    ] {
        let run = hookc(
            &[
                OsStr::new(command),
                OsStr::new("--table"),
                table.as_os_str(),
                OsStr::new("--event"),
                event.as_os_str(),
                OsStr::new("--format"),
                OsStr::new(format),
            ],
            "",
        );
        let want = if command == "eval" { 1 } else { 0 };
        assert_eq!(run.code, Some(want), "{command} {format}: {run:#?}");
        assert!(run.stdout.contains("deny-rm-root"), "{command} {format}");
    }
}

/// Past the limit the event is blocked whatever the fail mode: an agent
/// can nest an MCP tool's input (or any field a tool passes through) as
/// deep as it likes, and under the default open mode a refused event was
/// an allowed one, `rm -rf /` included.
#[test]
fn past_the_depth_limit_the_event_is_blocked_in_either_mode() {
    let table = compile(&tmp_dir("deep-past"), DENY_RM);
    let event = event_at_depth(MAX_DEPTH + 1);
    let closed = claude(&table, &["--fail-closed"], &event);
    assert_eq!(closed.code, Some(2), "{closed:#?}");
    assert_eq!(closed.stdout, "");
    assert!(
        closed
            .stderr
            .contains(&format!("more than {MAX_DEPTH} levels deep")),
        "{closed:#?}"
    );
    let open = claude(&table, &[], &event);
    assert_eq!(
        (open.code, open.stdout.as_str()),
        (Some(2), ""),
        "{open:#?}"
    );
    assert!(open.stderr.contains("levels deep"), "{open:#?}");
    assert!(open.stderr.contains("failing closed"), "{open:#?}");
    // Far past it: refused before anything is built, not a crash.
    let absurd = rm_event(&format!(r#""deep": {}"#, "[".repeat(1_000_000)));
    assert_eq!(claude(&table, &["--fail-closed"], &absurd).code, Some(2));
    assert_eq!(claude(&table, &[], &absurd).code, Some(2));
}

// ---------------------------------------------------------------- tables that cannot be the policy

/// A Bash `rm -rf /` event of the sample events.
fn plain_rm_event() -> String {
    rm_event(r#""description": "clean up""#)
}

#[test]
fn a_table_of_another_schema_is_a_failure_of_the_policy() {
    let dir = tmp_dir("orcs-table");
    let table = dir.join("orcs.tbl");
    let run = hookc(
        &[
            OsStr::new("compile"),
            OsStr::new("rules/"),
            OsStr::new("-o"),
            table.as_os_str(),
        ],
        "",
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    let closed = claude(&table, &["--fail-closed"], &plain_rm_event());
    assert_eq!(closed.code, Some(2), "{closed:#?}");
    assert_eq!(
        closed.stderr,
        "hookc: the table's schema is `orcs`, not `claude-code`: its points are not Claude Code events, so none of its rules would run (failing closed)\n"
    );
    let open = claude(&table, &[], &plain_rm_event());
    assert_eq!(
        (open.code, open.stdout.as_str()),
        (Some(0), ""),
        "{open:#?}"
    );
    assert!(
        open.stderr
            .starts_with("hookc: the table's schema is `orcs`")
            && open.stderr.contains("failing open"),
        "{open:#?}"
    );
}

#[test]
fn a_table_without_rules_is_a_failure_of_the_policy() {
    let dir = tmp_dir("no-rules-table");
    let table = compile(
        &dir,
        "schema claude-code\n\n# Nothing but a definition.\nlist dangerous = [\"rm -rf\"]\n",
    );
    let closed = claude(&table, &["--fail-closed"], &plain_rm_event());
    assert_eq!(closed.code, Some(2), "{closed:#?}");
    assert_eq!(
        closed.stderr,
        "hookc: the table has no rules (failing closed)\n"
    );
    // The same for `.hooks` without rules, found in the project.
    let project = tmp_dir("no-rules-project");
    std::fs::create_dir_all(project.join(".hookc")).unwrap();
    std::fs::copy(dir.join("policy.hooks"), project.join(".hookc/lib.hooks")).unwrap();
    let run = hookc_in(
        &project,
        &[OsStr::new("claude"), OsStr::new("--fail-closed")],
        &plain_rm_event(),
        &[("CLAUDE_PROJECT_DIR", project.as_os_str())],
    );
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(run.stderr.contains("the table has no rules"), "{run:#?}");
    let open = claude(&table, &[], &plain_rm_event());
    assert_eq!(
        (open.code, open.stdout.as_str()),
        (Some(0), ""),
        "{open:#?}"
    );
    assert!(open.stderr.contains("the table has no rules"), "{open:#?}");
}

// ---------------------------------------------------------------- tables crafted past their checksum

/// A table of this format version whose one rule's condition is words
/// nested 300 deep, resealed so that its checksums hold (written by the
/// library's `crafted_tables_for_the_command_line_are_blessed`).
fn crafted(name: &str) -> PathBuf {
    root()
        .join("tests/golden")
        .join(format!("v{}", hookc::table::VERSION))
        .join(name)
}

/// `hookc claude` reads a rule's condition as it evaluates it: one nested
/// past the limit ends the chain as a corrupted table, a deny that says
/// where, whether the hook fails open or closed; never a stack overflow
/// and never a pass.
#[test]
fn a_crafted_condition_denies_under_claude_as_a_corrupted_table() {
    let table = crafted("crafted_deep_condition_claude.tbl");
    let event = std::fs::read_to_string(
        root().join("tests/fixtures/claude/events/pre_tool_use_bash_rm.json"),
    )
    .unwrap();
    for extra in [&[][..], &["--fail-closed"][..]] {
        let run = claude(&table, extra, &event);
        assert_eq!(
            run.denied(),
            "corrupted table: rule `guard` of point `PreToolUse`: a condition nested too deeply",
            "{extra:?}"
        );
        assert!(
            run.stderr
                .contains("warning: corrupted table: rule `guard`"),
            "{run:#?}"
        );
    }
}

/// `hookc eval` and `inspect` check a whole table before they use it: the
/// crafted condition is refused with exit 2 and the reason, not run.
#[test]
fn a_crafted_condition_is_refused_by_eval_and_inspect() {
    let table = crafted("crafted_deep_condition.tbl");
    let event = r#"{"hook_point": "tool.pre_execute", "component_id": "a::b", "payload": {"tool": "exec"}}"#;
    let eval = hookc(
        &[
            OsStr::new("eval"),
            OsStr::new("--table"),
            table.as_os_str(),
            OsStr::new("--event"),
            OsStr::new("-"),
        ],
        event,
    );
    let inspect = hookc(&[OsStr::new("inspect"), table.as_os_str()], "");
    for run in [eval, inspect] {
        assert_eq!((run.code, run.stdout.as_str()), (Some(2), ""), "{run:#?}");
        assert!(
            run.stderr.starts_with("error: cannot load table `")
                && run.stderr.contains(
                    "corrupted table: rule `a` of point `tool.pre_execute`: a condition nested deeper than 256"
                ),
            "{run:#?}"
        );
    }
}

// ---------------------------------------------------------------- the deadline

/// True while a process of group `pgid` is alive.
fn group_alive(pgid: &str) -> bool {
    Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("kill -0 -- -{pgid} 2>/dev/null"))
        .status()
        .unwrap()
        .success()
}

#[test]
fn a_fail_closed_command_past_the_deadline_is_killed_and_blocks() {
    let dir = tmp_dir("deadline-closed");
    let table = compile(
        &dir,
        r#"schema claude-code

hook slow-check on PreToolUse at claude-code::Bash fail closed {
    sh "echo $$ > \"$HOOKC_PROJECT_DIR/pgid\"; sleep 30 & sleep 30"
}
"#,
    );
    let start = std::time::Instant::now();
    let run = hookc_in(
        root(),
        &[
            OsStr::new("claude"),
            OsStr::new("--table"),
            table.as_os_str(),
            OsStr::new("--deadline"),
            OsStr::new("1s"),
        ],
        &plain_rm_event(),
        &[("CLAUDE_PROJECT_DIR", dir.as_os_str())],
    );
    // Well before the command's 30 s (and its 60 s timeout).
    assert!(
        start.elapsed() < std::time::Duration::from_secs(15),
        "{run:#?}"
    );
    let reason = run.denied();
    assert!(
        reason.starts_with("rule `slow-check` failed closed: stopped at the event's deadline"),
        "{reason}"
    );
    let pgid = std::fs::read_to_string(dir.join("pgid")).unwrap();
    assert!(
        !group_alive(pgid.trim()),
        "the command's group outlived hookc"
    );
}

#[test]
fn rules_after_a_command_stopped_at_the_deadline_still_run() {
    let dir = tmp_dir("deadline-open");
    let table = compile(
        &dir,
        &format!(
            "{DENY_RM}\nhook slow-audit on PreToolUse priority 1 {{\n    sh \"sleep 30\"\n}}\n\nhook later-check on PreToolUse priority 2 fail closed {{\n    sh \"exit 0\"\n}}\n"
        ),
    );
    let run = claude(&table, &["--deadline", "1s"], &plain_rm_event());
    // The open rule's command is stopped with a warning; the closed rule's
    // command cannot start after the deadline, so it blocks.
    let reason = run.denied();
    assert!(
        reason.starts_with("rule `later-check` failed closed: stopped at the event's deadline"),
        "{reason}"
    );
    assert!(
        run.stderr
            .contains("warning: rule `slow-audit` failed open: stopped at the event's deadline"),
        "{run:#?}"
    );
    // Without the closed rule, the deny rule after the stopped one denies.
    let dir = tmp_dir("deadline-open-deny");
    let table = compile(
        &dir,
        &format!(
            "{DENY_RM}\nhook slow-audit on PreToolUse priority 1 {{\n    sh \"sleep 30\"\n}}\n"
        ),
    );
    let run = claude(&table, &["--deadline", "1s"], &plain_rm_event());
    assert_eq!(run.denied(), "no recursive delete of /: rm -rf /");
}

// ---------------------------------------------------------------- the project directory

#[test]
fn relative_paths_in_effects_are_in_the_project_not_the_working_directory() {
    let project = tmp_dir("project-paths");
    let elsewhere = tmp_dir("project-paths-cwd");
    std::fs::create_dir_all(project.join("bin")).unwrap();
    let check = project.join("bin/check.sh");
    std::fs::write(
        &check,
        "#!/bin/sh\necho \"checked in $(pwd)\" >&2\nexit 2\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&check, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let table = compile(
        &project,
        r#"schema claude-code

hook trace-bash on PreToolUse at claude-code::Bash priority 1 fail closed {
    trace "audit/trace.jsonl" payload.tool_input.command
}

hook project-check on PreToolUse at claude-code::Bash priority 2 fail closed {
    exec "./bin/check.sh"
}
"#,
    );
    let canonical = project.canonicalize().unwrap();
    // Through CLAUDE_PROJECT_DIR, and through the event's `cwd` without it;
    // hookc itself runs in another directory (the agent ran `cd`).
    let mut event: Value = serde_json::from_str(&plain_rm_event()).unwrap();
    event["cwd"] = json!(project.to_str().unwrap());
    for env in [vec![("CLAUDE_PROJECT_DIR", project.as_os_str())], vec![]] {
        let _ = std::fs::remove_dir_all(project.join("audit"));
        let run = hookc_in(
            &elsewhere,
            &[
                OsStr::new("claude"),
                OsStr::new("--table"),
                table.as_os_str(),
            ],
            &event.to_string(),
            &env,
        );
        let reason = run.denied();
        let ran_in = reason.strip_prefix("checked in ").unwrap();
        assert_eq!(Path::new(ran_in).canonicalize().unwrap(), canonical);
        let trace = std::fs::read_to_string(project.join("audit/trace.jsonl")).unwrap();
        assert_eq!(trace.lines().count(), 1);
        assert!(!elsewhere.join("audit").exists());
    }
}

// ---------------------------------------------------------------- webhooks at exit

#[test]
fn undelivered_webhooks_are_reported_before_exit() {
    // `.invalid` never resolves (RFC 6761): the delivery fails at the
    // lookup, or is still in flight at the bound; either way it is
    // reported, never silently lost with the process.
    let dir = tmp_dir("webhook-exit");
    let table = compile(
        &dir,
        r#"schema claude-code

hook notify-bash on PreToolUse at claude-code::Bash {
    webhook "https://hookc-test.invalid/hooks/secret-token"
}
"#,
    );
    let run = claude(&table, &["--webhook-flush", "3s"], &plain_rm_event());
    assert_eq!((run.code, run.stdout.as_str()), (Some(0), ""), "{run:#?}");
    assert!(
        run.stderr.contains(
            "hookc: webhook of rule `notify-bash` to https://hookc-test.invalid/… not delivered: "
        ) || run
            .stderr
            .contains("hookc: 1 webhook not delivered: still in flight after 3s"),
        "{run:#?}"
    );
    assert!(!run.stderr.contains("secret-token"), "{run:#?}");
}

// ---------------------------------------------------------------- the deadline, from the library

/// Dispatches an empty payload at `tool.pre_execute` on `rules` with
/// `effects`; the report and how long it took.
fn dispatch_lib(rules: &str, effects: &hookc::Effects) -> (hookc::Report, std::time::Duration) {
    let table = hookc::compile_str("deadline.hooks", rules)
        .unwrap_or_else(|d| panic!("{d}"))
        .table;
    let mut ctx = hookc::HookContext::new("tool.pre_execute", "builtin::llm", json!({}));
    let start = std::time::Instant::now();
    let report = table.dispatch_context_with(&mut ctx, effects);
    (report, start.elapsed())
}

#[test]
fn every_effect_of_a_dispatch_shares_its_deadline() {
    use std::time::Duration;
    // Two commands that each fit their own timeout (10 s) but not, together
    // with a handler, the dispatch's 1.5 s.
    let rules = r#"
hook first on tool.pre_execute priority 1 {
    sh "sleep 1"
}
hook slow-handler on tool.pre_execute priority 2 {
    call "slow"
}
hook second on tool.pre_execute priority 3 fail closed timeout 10s {
    sh "sleep 30"
}
"#;
    let effects = hookc::Effects::new()
        .with_handler("slow", |_: &mut hookc::HookContext| {
            std::thread::sleep(Duration::from_millis(300));
            hookc::HookAction::Continue
        })
        .with_dispatch_deadline(Duration::from_millis(1500));
    let (report, took) = dispatch_lib(rules, &effects);
    assert!(took < Duration::from_secs(8), "{took:?}");
    assert_eq!(report.outcome, hookc::OutcomeKind::Abort, "{report:#?}");
    assert_eq!(
        report.reason.as_deref(),
        Some("rule `second` failed closed: stopped at the event's deadline (1500ms after the dispatch started)")
    );
    // The first command and the handler ended in time.
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);

    // A handler that returns after the deadline has its result dropped.
    let effects = hookc::Effects::new()
        .with_handler("slow", |ctx: &mut hookc::HookContext| {
            std::thread::sleep(Duration::from_millis(600));
            ctx.payload = json!({"edited": true});
            hookc::HookAction::Allow
        })
        .with_dispatch_deadline(Duration::from_millis(200));
    let (report, _) = dispatch_lib(
        "hook late on tool.pre_execute {\n    call \"slow\"\n}\n",
        &effects,
    );
    assert_eq!(report.decision, None, "{report:#?}");
    assert_eq!(report.context.payload, json!({}));
    assert_eq!(
        report.warnings,
        ["rule `late` failed open: stopped at the event's deadline (200ms after the dispatch started)"]
    );

    // Each dispatch has its own deadline: the same effects, a second time.
    let effects = hookc::Effects::new().with_dispatch_deadline(Duration::from_millis(500));
    for _ in 0..2 {
        let (report, _) = dispatch_lib(
            "hook quick on tool.pre_execute fail closed {\n    sh \"exit 0\"\n}\n",
            &effects,
        );
        assert_eq!(report.outcome, hookc::OutcomeKind::Continue, "{report:#?}");
    }
}

#[cfg(feature = "lua")]
#[test]
fn a_lua_handler_is_stopped_at_the_deadline() {
    use std::time::Duration;
    let effects = hookc::Effects::new().with_dispatch_deadline(Duration::from_millis(300));
    let (report, took) = dispatch_lib(
        "hook spin on tool.pre_execute fail closed timeout 30s {\n    lua \"\"\"function(ctx) while true do end end\"\"\"\n}\n",
        &effects,
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(
        report.reason.as_deref(),
        Some("rule `spin` failed closed: stopped at the event's deadline (300ms after the dispatch started)")
    );
}

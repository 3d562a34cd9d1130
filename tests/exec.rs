//! The `exec` and `sh` effects with real processes: what a command gets
//! (stdin, environment, working directory), what each reply and exit code
//! does to the outcome, and the faults (hangs, crashes, garbage, floods of
//! output, commands that ignore stdin or leave children behind): each has its
//! documented outcome, within a time bound, with no zombie and no pipe thread
//! left behind.
//!
//! The tests take a lock so that they run one at a time: the checks for
//! zombies and leftover threads look at the whole test process. The scripts
//! are in `tests/fixtures/exec/`; what they print comes from the rule text,
//! never from the event.

#![cfg(unix)]
#![expect(
    clippy::panic,
    clippy::expect_used,
    reason = "test helpers fail the test on bad fixtures"
)]

use hookc::effects::ExecConfig;
use hookc::{Decision, Effects, HookContext, OutcomeKind, Report, Table, Target};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

const POINT: &str = "tool.pre_execute";
const COMPONENT: &str = "builtin::llm";

static SERIAL: Mutex<()> = Mutex::new(());

/// Runs the test alone (see the module doc).
fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/exec/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `text` as a `.hooks` string literal.
fn lit(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn table(rules: &str) -> Table {
    hookc::compile_str("exec.hooks", rules)
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}\n{rules}"))
        .table
}

/// Effects with a 10 s default timeout, so that a broken test fails rather
/// than hangs for a minute.
fn effects() -> Effects {
    Effects::new().with_exec(ExecConfig::new().with_default_timeout(Duration::from_secs(10)))
}

/// Dispatches `payload` at `tool.pre_execute`; the report and how long the
/// dispatch took.
fn dispatch(table: &Table, effects: &Effects, payload: Value) -> (Report, Duration) {
    let mut ctx = HookContext::new(POINT, COMPONENT, payload);
    let mut scratch = table.scratch();
    let started = Instant::now();
    let outcome = table.dispatch_with(
        &mut scratch,
        POINT,
        &Target::new(COMPONENT),
        &mut ctx,
        effects,
    );
    let elapsed = started.elapsed();
    (outcome.report(&ctx), elapsed)
}

/// Runs one rule with `action` on an empty payload.
fn run(options: &str, action: &str) -> (Report, Duration) {
    let rules = format!("hook r on {POINT} {options} {{\n    {action}\n}}\n");
    dispatch(&table(&rules), &effects(), json!({}))
}

/// The one warning of a report.
fn warning(report: &Report) -> &str {
    match report.warnings.as_slice() {
        [one] => one,
        other => panic!("expected one warning, got {other:?}"),
    }
}

/// A scratch directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("hookc-exec-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// State and parent of a process, from `/proc/<pid>/stat`; `None` when it
/// is gone.
fn proc_state(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

fn has_proc() -> bool {
    Path::new("/proc/self/stat").exists()
}

/// Waits (up to 2 s) for `pid` to be dead: gone, or a zombie of someone
/// else (a killed grandchild waits for init to reap it).
fn assert_dead(pid: u32) {
    if !has_proc() {
        return;
    }
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        match proc_state(pid) {
            None => return,
            Some(('Z' | 'X', ppid)) if ppid != std::process::id() => return,
            Some(state) if Instant::now() >= until => {
                panic!("process {pid} is still alive: {state:?}")
            }
            Some(_) => thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// The pids a fixture wrote to `file`, one a line.
fn pids(file: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(file).expect("pid file");
    text.lines()
        .map(|l| l.trim().parse().expect("a pid"))
        .collect()
}

/// No zombie child of the test process, and no pipe thread left.
fn assert_clean() {
    if !has_proc() {
        return;
    }
    let me = std::process::id();
    let mut zombies = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        if let Some(('Z', ppid)) = proc_state(pid) {
            if ppid == me {
                zombies.push(pid);
            }
        }
    }
    assert!(zombies.is_empty(), "zombie children left: {zombies:?}");

    // A joined thread may linger in /proc for a moment while it exits.
    let until = Instant::now() + Duration::from_millis(500);
    loop {
        let threads: Vec<String> = std::fs::read_dir("/proc/self/task")
            .expect("/proc/self/task")
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
            .map(|comm| comm.trim().to_string())
            .filter(|comm| comm.starts_with("hookc-exec"))
            .collect();
        if threads.is_empty() {
            return;
        }
        assert!(Instant::now() < until, "pipe threads left: {threads:?}");
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn stdin_carries_the_context_json() {
    let _serial = serial();
    let dir = TempDir::new("stdin");
    let rules = format!(
        "hook r on {POINT} {{ exec \"/bin/sh\" {} {} }}",
        lit(&fixture("record.sh")),
        lit(&dir.0.display().to_string()),
    );
    // Shell metacharacters in the event stay data: they only reach stdin.
    let payload = json!({
        "tool": "exec",
        "args": "$(touch pwned) `touch pwned2`; touch pwned3",
        "tool_input": {"command": "ls\n'\"", "n": [1, 2.5, null]},
    });
    let expected = serde_json::to_value(HookContext::new(POINT, COMPONENT, payload.clone()))
        .expect("context serializes");
    let effects = Effects::new().with_exec(ExecConfig::new().with_project_dir(&dir.0));
    let (report, _) = dispatch(&table(&rules), &effects, payload);
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let stdin = std::fs::read_to_string(dir.path("stdin.json")).expect("stdin recorded");
    let got: Value = serde_json::from_str(&stdin).expect("stdin is JSON");
    assert_eq!(got, expected);
    for name in ["pwned", "pwned2", "pwned3"] {
        assert!(!dir.path(name).exists(), "{name} was created");
    }
    assert_clean();
}

#[test]
fn under_the_claude_code_schema_stdin_is_the_claude_event() {
    let _serial = serial();
    let dir = TempDir::new("claude-stdin");
    let rules = format!(
        "schema claude-code\n\
         hook tidy on PreToolUse {{\n    set payload.tool_input.command = \"ls -la\"\n}}\n\
         hook record on PreToolUse {{\n    exec \"/bin/sh\" {} {}\n}}\n",
        lit(&fixture("record.sh")),
        lit(&dir.0.display().to_string()),
    );
    let event = json!({
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "cwd": "/tmp",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    });
    let table = table(&rules);
    let mut ctx = HookContext::new("PreToolUse", "claude-code::Bash", event.clone());
    let mut scratch = table.scratch();
    let effects = Effects::new().with_exec(ExecConfig::new().with_project_dir(&dir.0));
    let outcome = table.dispatch_with(
        &mut scratch,
        "PreToolUse",
        &Target::new("claude-code::Bash"),
        &mut ctx,
        &effects,
    );
    let report = outcome.report(&ctx);
    assert_eq!(report.outcome, OutcomeKind::Continue, "{report:#?}");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    // The command reads what Claude Code would give it (the event, not
    // hookc's context around it), with the earlier rule's edit.
    let stdin = std::fs::read_to_string(dir.path("stdin.json")).expect("stdin recorded");
    let got: Value = serde_json::from_str(&stdin).expect("stdin is JSON");
    let mut expected = event;
    expected["tool_input"]["command"] = json!("ls -la");
    assert_eq!(got, expected);
    assert_clean();
}

#[test]
fn environment_and_working_directory() {
    let _serial = serial();
    let dir = TempDir::new("env");
    let rules = format!(
        "hook record-env on {POINT} {{ exec \"/bin/sh\" {} {} }}",
        lit(&fixture("record.sh")),
        lit(&dir.0.display().to_string()),
    );
    let effects = Effects::new().with_exec(ExecConfig::new().with_project_dir(&dir.0));
    let (report, _) = dispatch(&table(&rules), &effects, json!({}));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let env = std::fs::read_to_string(dir.path("env.txt")).expect("env recorded");
    let lines: Vec<&str> = env.lines().collect();
    let project = dir.0.display().to_string();
    let physical = dir
        .0
        .canonicalize()
        .expect("canonical")
        .display()
        .to_string();
    let claude = std::env::var("CLAUDE_PROJECT_DIR").unwrap_or_else(|_| project.clone());
    assert_eq!(
        lines,
        [
            physical.as_str(),
            project.as_str(),
            POINT,
            "record-env",
            claude.as_str()
        ]
    );
    assert_clean();
}

#[test]
fn exit_zero_with_nothing_or_text_continues() {
    let _serial = serial();
    for action in [
        "sh \"exit 0\"",
        "sh \"echo\"",
        "sh \"echo just some text; echo '{not json either'\"",
        "sh \"echo '{}'\"",
        "sh \"echo '  {\\\"unknown\\\": true}  '\"",
    ] {
        let (report, _) = run("", action);
        assert_eq!(report.outcome, OutcomeKind::Continue, "{action}");
        assert_eq!(report.decision, None, "{action}");
        assert!(
            report.warnings.is_empty(),
            "{action}: {:?}",
            report.warnings
        );
        assert_eq!(report.fired, ["r"]);
    }
    assert_clean();
}

/// What a reply (printed with exit 0) does to a pre-execute call on a
/// Claude-style payload.
#[test]
fn replies_decide_and_edit() {
    let _serial = serial();
    let payload = json!({"tool": "Bash", "tool_input": {"command": "rm -rf /"}});
    struct Case {
        stdout: Value,
        outcome: OutcomeKind,
        decision: Option<Decision>,
        reason: Option<&'static str>,
    }
    let case = |stdout, outcome, decision, reason| Case {
        stdout,
        outcome,
        decision,
        reason,
    };
    let cases = [
        case(
            json!({"decision": "block", "reason": "lint errors"}),
            OutcomeKind::Abort,
            Some(Decision::Deny),
            Some("lint errors"),
        ),
        case(
            json!({"continue": false, "stopReason": "build is broken"}),
            OutcomeKind::Abort,
            Some(Decision::Deny),
            Some("build is broken"),
        ),
        case(
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "destructive"}}),
            OutcomeKind::Abort,
            Some(Decision::Deny),
            Some("destructive"),
        ),
        case(
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}),
            OutcomeKind::Ask,
            Some(Decision::Ask),
            Some("sure?"),
        ),
        case(
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "allow"}}),
            OutcomeKind::Continue,
            Some(Decision::Allow),
            None,
        ),
        case(
            json!({"decision": "approve"}),
            OutcomeKind::Continue,
            Some(Decision::Allow),
            None,
        ),
        case(
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "not today"}}}),
            OutcomeKind::Abort,
            Some(Decision::Deny),
            Some("not today"),
        ),
        case(
            json!({"outcome": "abort", "reason": "hookc says no", "decision": "deny"}),
            OutcomeKind::Abort,
            Some(Decision::Deny),
            Some("hookc says no"),
        ),
        case(
            json!({"outcome": "ask", "reason": "hookc asks"}),
            OutcomeKind::Ask,
            Some(Decision::Ask),
            Some("hookc asks"),
        ),
        case(
            json!({"outcome": "skip", "value": {"cached": true}}),
            OutcomeKind::Skip,
            None,
            None,
        ),
    ];
    for c in cases {
        let text = c.stdout.to_string();
        let rules = format!(
            "hook r on {POINT} {{ exec \"/bin/sh\" {} {} }}",
            lit(&fixture("reply.sh")),
            lit(&text)
        );
        let (report, _) = dispatch(&table(&rules), &effects(), payload.clone());
        assert!(report.warnings.is_empty(), "{text}: {:?}", report.warnings);
        assert_eq!(report.outcome, c.outcome, "{text}");
        assert_eq!(report.decision, c.decision, "{text}");
        assert_eq!(report.reason.as_deref(), c.reason, "{text}");
        if c.outcome == OutcomeKind::Skip {
            assert_eq!(report.value, Some(json!({"cached": true})));
        }
    }

    // Edits: `updatedInput` replaces `payload.tool_input`, additional
    // context is collected; a later rule sees the edit.
    let reply = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "updatedInput": {"command": "ls"},
        "additionalContext": "Branch: main"}});
    let rules = format!(
        "hook r on {POINT} priority 1 {{ exec \"/bin/sh\" {} {} }}\n\
         hook after on {POINT} priority 2 {{\n    when payload.tool_input.command == \"ls\"\n    context \"saw ls\"\n}}",
        lit(&fixture("reply.sh")),
        lit(&reply.to_string())
    );
    let (report, _) = dispatch(&table(&rules), &effects(), payload.clone());
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert_eq!(report.decision, Some(Decision::Allow));
    assert_eq!(
        report.context.payload,
        json!({"tool": "Bash", "tool_input": {"command": "ls"}})
    );
    assert_eq!(report.additional_context, ["Branch: main", "saw ls"]);
    assert_eq!(report.fired, ["r", "after"]);

    // hookc's form: `context.payload` and `context.metadata`.
    let reply = json!({"outcome": "continue", "additional_context": ["a", "b"],
        "context": {"payload": {"tool": "x"}, "metadata": {"seen": 1}}});
    let rules = format!(
        "hook r on {POINT} {{ exec \"/bin/sh\" {} {} }}",
        lit(&fixture("reply.sh")),
        lit(&reply.to_string())
    );
    let (report, _) = dispatch(&table(&rules), &effects(), payload);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert_eq!(report.context.payload, json!({"tool": "x"}));
    assert_eq!(report.context.metadata.get("seen"), Some(&json!(1)));
    assert_eq!(report.additional_context, ["a", "b"]);
    assert_clean();
}

#[test]
fn exit_two_aborts_with_stderr() {
    let _serial = serial();
    let reply = |stderr: &str| {
        format!(
            "exec \"/bin/sh\" {} \"\" {} \"2\"",
            lit(&fixture("reply.sh")),
            lit(stderr)
        )
    };
    let (report, _) = run("", &reply("  not on my watch\n"));
    assert_eq!(report.outcome, OutcomeKind::Abort);
    assert_eq!(report.decision, Some(Decision::Deny));
    assert_eq!(report.reason.as_deref(), Some("not on my watch"));

    let (report, _) = run("", &reply(""));
    assert_eq!(report.outcome, OutcomeKind::Abort);
    assert_eq!(
        report.reason.as_deref(),
        Some("`/bin/sh` exited with code 2")
    );

    // stdout is ignored on exit 2, even an allow.
    let (report, _) = run(
        "",
        "sh \"echo '{\\\"decision\\\": \\\"approve\\\"}'; echo denied >&2; exit 2\"",
    );
    assert_eq!(report.outcome, OutcomeKind::Abort);
    assert_eq!(report.reason.as_deref(), Some("denied"));
    assert_clean();
}

/// Every exit code, under both failure modes: 0 continues, 2 aborts with
/// stderr, any other code is a failure: a warning when the rule fails open,
/// an abort naming the rule when it fails closed.
#[test]
fn every_exit_code() {
    let _serial = serial();
    let script = lit(&fixture("exit_code.sh"));
    let open = table(&format!(
        "hook lenient on {POINT} {{ exec \"/bin/sh\" {script} }}"
    ));
    let closed = table(&format!(
        "hook strict on {POINT} fail closed {{ exec \"/bin/sh\" {script} }}"
    ));
    let effects = effects();
    for code in 0..=255 {
        let (o, _) = dispatch(&open, &effects, json!({"code": code}));
        let (c, _) = dispatch(&closed, &effects, json!({"code": code}));
        match code {
            0 => {
                for r in [&o, &c] {
                    assert_eq!(r.outcome, OutcomeKind::Continue);
                    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
                }
            }
            2 => {
                for r in [&o, &c] {
                    assert_eq!(r.outcome, OutcomeKind::Abort);
                    assert_eq!(r.reason.as_deref(), Some("exit code 2"));
                }
            }
            _ => {
                let failure = format!("`/bin/sh` exited with code {code}: exit code {code}");
                assert_eq!(o.outcome, OutcomeKind::Continue, "code {code}");
                assert_eq!(
                    o.warnings,
                    [format!("rule `lenient` failed open: {failure}")]
                );
                assert_eq!(c.outcome, OutcomeKind::Abort, "code {code}");
                assert_eq!(c.decision, Some(Decision::Deny));
                assert_eq!(
                    c.reason,
                    Some(format!("rule `strict` failed closed: {failure}"))
                );
            }
        }
    }
    assert_clean();
}

#[test]
fn a_hanging_command_times_out_and_its_group_dies() {
    let _serial = serial();
    let dir = TempDir::new("hang");
    for (mode, id) in [("", "hang-open"), ("fail closed", "hang-closed")] {
        let pid_file = dir.path(id);
        let rules = format!(
            "hook {id} on {POINT} timeout 300ms {mode} {{ exec \"/bin/sh\" {} {} }}",
            lit(&fixture("hang.sh")),
            lit(&pid_file.display().to_string())
        );
        let (report, elapsed) = dispatch(&table(&rules), &effects(), json!({}));
        assert!(
            elapsed >= Duration::from_millis(300) && elapsed < Duration::from_secs(3),
            "{elapsed:?}"
        );
        let failure = "timed out after 300ms";
        if mode.is_empty() {
            assert_eq!(report.outcome, OutcomeKind::Continue);
            assert_eq!(
                warning(&report),
                format!("rule `{id}` failed open: {failure}")
            );
        } else {
            assert_eq!(report.outcome, OutcomeKind::Abort);
            assert_eq!(
                report.reason,
                Some(format!("rule `{id}` failed closed: {failure}"))
            );
        }
        let pids = pids(&pid_file);
        assert_eq!(pids.len(), 2, "the leader and its background child");
        for pid in pids {
            assert_dead(pid);
        }
    }
    assert_clean();
}

#[test]
fn a_background_child_holding_stdout_does_not_keep_us_waiting() {
    let _serial = serial();
    let dir = TempDir::new("background");
    let pid_file = dir.path("pid");
    let rules = format!(
        "hook r on {POINT} timeout 10s {{ exec \"/bin/sh\" {} {} }}",
        lit(&fixture("background.sh")),
        lit(&pid_file.display().to_string())
    );
    let (report, elapsed) = dispatch(&table(&rules), &effects(), json!({}));
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert_eq!(report.additional_context, ["done"]);
    for pid in pids(&pid_file) {
        assert_dead(pid);
    }
    assert_clean();
}

#[test]
fn a_crash_is_a_signal_failure() {
    let _serial = serial();
    let dir = TempDir::new("crash");
    // In a scratch directory, without a core file.
    let effects = Effects::new().with_exec(ExecConfig::new().with_project_dir(&dir.0));
    for (script, signal) in [
        ("ulimit -c 0; echo dying >&2; kill -SEGV $$", 11),
        ("kill -KILL $$", 9),
    ] {
        for mode in ["", "fail closed"] {
            let rules = format!("hook r on {POINT} {mode} {{ sh {} }}", lit(script));
            let (report, _) = dispatch(&table(&rules), &effects, json!({}));
            let stderr = if signal == 11 { ": dying" } else { "" };
            let failure = format!("`sh` was killed by signal {signal}{stderr}");
            if mode.is_empty() {
                assert_eq!(report.outcome, OutcomeKind::Continue);
                assert_eq!(warning(&report), format!("rule `r` failed open: {failure}"));
            } else {
                assert_eq!(report.outcome, OutcomeKind::Abort);
                assert_eq!(
                    report.reason,
                    Some(format!("rule `r` failed closed: {failure}"))
                );
            }
        }
    }
    assert_clean();
}

#[test]
fn garbage_is_a_bad_reply() {
    let _serial = serial();
    for text in [
        "{not json",
        "{\"decision\": \"block\"} {\"again\": 1}",
        "{\"decision\": \"maybe\"}",
        "{\"hookSpecificOutput\": {\"updatedInput\": \"rm -rf /\"}}",
    ] {
        let action = format!(
            "exec \"/bin/sh\" {} {}",
            lit(&fixture("reply.sh")),
            lit(text)
        );
        let (report, _) = run("", &action);
        assert_eq!(report.outcome, OutcomeKind::Continue, "{text}");
        let w = warning(&report);
        assert!(
            w.starts_with("rule `r` failed open: `/bin/sh` printed a reply that is not valid: "),
            "{w}"
        );
        let (report, _) = run("fail closed", &action);
        assert_eq!(report.outcome, OutcomeKind::Abort, "{text}");
        let reason = report.reason.as_deref().unwrap_or_default();
        assert!(
            reason.starts_with("rule `r` failed closed: `/bin/sh` printed a reply"),
            "{reason}"
        );
    }
    // Binary noise that does not start with `{` is only text.
    let (report, _) = run(
        "",
        "sh \"head -c 4096 /dev/urandom | tr -d '{' | tr '\\\\0' x\"",
    );
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.outcome, OutcomeKind::Continue);
    assert_clean();
}

#[test]
fn too_much_output_is_a_failure_and_stops_the_command() {
    let _serial = serial();
    let too_large = "printed more than 1048576 bytes";
    for action in [
        // 10 MB, then the end.
        "sh \"head -c 10000000 /dev/zero | tr '\\\\0' a\"",
        // Never ends.
        "exec \"yes\" \"{\"",
        // Ignores SIGPIPE: only the group kill stops it.
        "sh \"trap '' PIPE; while :; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done\"",
    ] {
        let (report, elapsed) = run("timeout 20s", action);
        assert!(elapsed < Duration::from_secs(5), "{action}: {elapsed:?}");
        assert_eq!(report.outcome, OutcomeKind::Continue, "{action}");
        let w = warning(&report);
        assert!(
            w.starts_with("rule `r` failed open: `") && w.ends_with(too_large),
            "{w}"
        );
        let (report, _) = run("timeout 20s fail closed", action);
        assert_eq!(report.outcome, OutcomeKind::Abort, "{action}");
    }

    // A flood on stderr is cut, not a failure; the reply on stdout counts.
    let (report, elapsed) = run(
        "",
        "sh \"head -c 3000000 /dev/zero | tr '\\\\0' e >&2; echo '{\\\"decision\\\": \\\"block\\\", \\\"reason\\\": \\\"after the noise\\\"}'\"",
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_eq!(report.outcome, OutcomeKind::Abort);
    assert_eq!(report.reason.as_deref(), Some("after the noise"));

    // A failure message keeps only the start of stderr.
    let (report, _) = run(
        "",
        "sh \"head -c 100000 /dev/zero | tr '\\\\0' e >&2; exit 3\"",
    );
    let w = warning(&report);
    assert!(
        w.starts_with("rule `r` failed open: `sh` exited with code 3: eeee"),
        "{w}"
    );
    assert!(w.chars().count() < 600, "{} characters", w.chars().count());
    assert_clean();
}

#[test]
fn a_command_that_ignores_stdin_does_not_deadlock() {
    let _serial = serial();
    // Far more than a pipe holds.
    let payload = json!({"blob": "x".repeat(1_000_000)});
    for action in [
        // Never reads, exits later.
        "sh \"sleep 0.2\"",
        // Closes stdin at once.
        "sh \"exec 0<&-; sleep 0.1; echo '{}'\"",
        // Reads a little, then exits.
        "sh \"head -c 10 >/dev/null\"",
        // Exits at once.
        "exec \"true\"",
    ] {
        let rules = format!("hook r on {POINT} timeout 5s {{ {action} }}");
        let (report, elapsed) = dispatch(&table(&rules), &effects(), payload.clone());
        assert!(elapsed < Duration::from_secs(3), "{action}: {elapsed:?}");
        assert!(
            report.warnings.is_empty(),
            "{action}: {:?}",
            report.warnings
        );
        assert_eq!(report.outcome, OutcomeKind::Continue, "{action}");
    }
    // A command that never reads and never exits still times out.
    let rules = format!("hook r on {POINT} timeout 300ms {{ sh \"sleep 30\" }}");
    let (report, elapsed) = dispatch(&table(&rules), &effects(), payload);
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    assert_eq!(
        warning(&report),
        "rule `r` failed open: timed out after 300ms"
    );
    assert_clean();
}

#[test]
fn commands_that_cannot_start_are_failures() {
    let _serial = serial();
    let dir = TempDir::new("spawn");
    let not_executable = dir.path("not-executable");
    std::fs::write(&not_executable, "#!/bin/sh\nexit 0\n").expect("write");
    let not_executable = not_executable.display().to_string();
    for program in [
        "/nonexistent/hookc-no-such-program",
        not_executable.as_str(),
    ] {
        let (report, _) = run("", &format!("exec {}", lit(program)));
        assert_eq!(report.outcome, OutcomeKind::Continue);
        let w = warning(&report);
        assert!(
            w.starts_with(&format!("rule `r` failed open: cannot run `{program}`: ")),
            "{w}"
        );
        let (report, _) = run("fail closed", &format!("exec {}", lit(program)));
        assert_eq!(report.outcome, OutcomeKind::Abort);
    }

    // A project directory that does not exist.
    let effects = Effects::new().with_exec(ExecConfig::new().with_project_dir(dir.path("missing")));
    let (report, _) = dispatch(
        &table(&format!("hook r on {POINT} {{ sh \"exit 0\" }}")),
        &effects,
        json!({}),
    );
    let w = warning(&report);
    assert!(
        w.contains("cannot run `sh`") && w.contains("is not a directory"),
        "{w}"
    );
    assert_clean();
}

/// Faults from several threads at once: each dispatch still gets its own
/// outcome, and nothing is left behind.
#[test]
fn concurrent_faults() {
    let _serial = serial();
    let rules = format!(
        "hook hang on {POINT} timeout 300ms {{\n    when payload.kind == \"hang\"\n    sh \"sleep 30\" }}\n\
         hook flood on {POINT} {{\n    when payload.kind == \"flood\"\n    exec \"yes\" }}\n\
         hook crash on {POINT} {{\n    when payload.kind == \"crash\"\n    sh \"kill -KILL $$\" }}\n\
         hook fine on {POINT} {{\n    when payload.kind == \"fine\"\n    sh \"exit 2\" }}\n"
    );
    let table = table(&rules);
    let effects = effects();
    let started = Instant::now();
    thread::scope(|s| {
        for kind in ["hang", "flood", "crash", "fine"] {
            for _ in 0..2 {
                let (table, effects) = (&table, &effects);
                s.spawn(move || {
                    let (report, _) = dispatch(table, effects, json!({"kind": kind}));
                    if kind == "fine" {
                        assert_eq!(report.outcome, OutcomeKind::Abort);
                    } else {
                        let w = warning(&report);
                        let expected = match kind {
                            "hang" => "timed out after 300ms",
                            "flood" => "printed more than",
                            _ => "killed by signal 9",
                        };
                        assert!(w.contains(expected), "{kind}: {w}");
                    }
                });
            }
        }
    });
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_clean();
}

//! `hookc claude` as Claude Code runs it: a process with an event JSON on
//! stdin, read back through its exit code, stdout and stderr.
//!
//! The events are the sample events of `../shared/claude-code/fixtures/`,
//! copied to `tests/fixtures/claude/events/`; the policy,
//! `tests/fixtures/claude/policy.hooks`, has a rule for each shape of answer
//! (see `src/systems/claude_code/protocol.rs` for the mapping these tests pin down). Every test
//! sets the environment the command reads (`HOOKC_TABLE`,
//! `CLAUDE_PROJECT_DIR`) itself, so the machine's own settings do not leak in.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests fail loudly on purpose"
)]

use serde_json::{json, Value};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

const EVENTS: &str = "tests/fixtures/claude/events";
const POLICY: &str = "tests/fixtures/claude/policy.hooks";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty temp directory for one test.
fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("claude-tests")
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
        assert!(
            self.stdout.ends_with('\n') && self.stdout.trim_end().lines().count() == 1,
            "stdout is not one line: {self:#?}"
        );
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:#?}"))
    }

    #[track_caller]
    fn assert_silent_ok(&self) {
        assert_eq!(self.code, Some(0), "{self:#?}");
        assert_eq!(self.stdout, "", "{self:#?}");
    }
}

/// Runs `hookc` from the crate root with `args`, `stdin`, and only the
/// given variables among those `hookc claude` reads.
fn hookc(args: &[&OsStr], stdin: &str, env: &[(&str, &OsStr)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookc"));
    command
        .args(args)
        .current_dir(root())
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
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("stdin is written");
    let out = child.wait_with_output().expect("hookc finishes");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// The policy, compiled once.
fn policy_table() -> &'static Path {
    static TABLE: OnceLock<PathBuf> = OnceLock::new();
    compiled_once(&TABLE, POLICY, "policy")
}

/// The shipped Claude Code pack, compiled once.
fn pack_table() -> &'static Path {
    static TABLE: OnceLock<PathBuf> = OnceLock::new();
    compiled_once(&TABLE, "rules/claude-code", "pack")
}

/// `source` compiled into `table` the first time it is asked for.
fn compiled_once(table: &'static OnceLock<PathBuf>, source: &str, name: &str) -> &'static Path {
    table.get_or_init(|| {
        // One directory per test process (see `cli::shipped_table`).
        let path = tmp_dir(&format!("{name}-{}", std::process::id())).join(format!("{name}.tbl"));
        let run = hookc(
            &[
                OsStr::new("compile"),
                OsStr::new(source),
                OsStr::new("-o"),
                path.as_os_str(),
            ],
            "",
            &[],
        );
        assert_eq!(run.code, Some(0), "{run:#?}");
        path
    })
}

fn event_text(name: &str) -> String {
    std::fs::read_to_string(root().join(EVENTS).join(name)).unwrap()
}

fn event_json(name: &str) -> Value {
    serde_json::from_str(&event_text(name)).unwrap()
}

/// `hookc COMMAND <policy> --event EVENT --format json` (`eval` or
/// `explain`): its exit code and its JSON report.
fn report_of(command: &str, event: &Path) -> (Option<i32>, Value) {
    let run = hookc(
        &[
            OsStr::new(command),
            OsStr::new(POLICY),
            OsStr::new("--event"),
            event.as_os_str(),
            OsStr::new("--format"),
            OsStr::new("json"),
        ],
        "",
        &[],
    );
    let report = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{command} {}: {e}: {}{}",
            event.display(),
            run.stdout,
            run.stderr
        )
    });
    (run.code, report)
}

/// `hookc claude --table <policy>` on `stdin`.
fn claude(stdin: &str) -> Run {
    hookc(
        &[
            OsStr::new("claude"),
            OsStr::new("--table"),
            policy_table().as_os_str(),
        ],
        stdin,
        &[],
    )
}

/// What the policy answers to each sample event: stdout as JSON, or
/// `None` for an empty stdout (exit 0 in every case).
fn expected(event: &str) -> Option<Value> {
    let pre = |fields: Value| {
        let mut specific = json!({"hookEventName": "PreToolUse"});
        specific
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        Some(json!({ "hookSpecificOutput": specific }))
    };
    let context = |name: &str, text: &str| {
        Some(json!({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}))
    };
    match event {
        "notification_permission_prompt.json"
        | "post_tool_batch_reads.json"
        | "pre_tool_use_webfetch.json"
        | "session_end_prompt_input_exit.json"
        | "stop_failure_rate_limit.json"
        | "stop_hook_active.json" => None,
        "permission_request_bash_rm.json" => Some(json!({"hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "recursive deletes are never approved"},
        }})),
        "post_tool_use_bash_npm_test.json" => {
            let mut output = event_json(event)["tool_response"].clone();
            output["stdout"] = json!(
                "> jest --runInBand\n\nPASS src/routes/invoices.test.ts\nPASS src/db/pool.test.ts\n\nTest Suites: 2 passed, 2 total\nTests:       42 passed, 42 total\n"
            );
            Some(json!({"hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "updatedToolOutput": output,
            }}))
        }
        "post_tool_use_failure_bash.json" => Some(json!({
            "decision": "block",
            "reason": "the tests fail: fix them before anything else",
        })),
        "post_tool_use_write_src.json" => context(
            "PostToolUse",
            "`/home/dev/acme-api/src/routes/invoices.ts` changed: run its tests",
        ),
        "pre_compact_auto.json" => {
            Some(json!({"decision": "block", "reason": "compact by hand with /compact"}))
        }
        "pre_tool_use_bash_compound_rm.json" => pre(json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": "`git stash && rm -fr node_modules && npm ci` deletes recursively; delete the files one by one",
        })),
        "pre_tool_use_bash_rm.json" => pre(json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": "`rm -rf ./build /tmp/acme-cache` deletes recursively; delete the files one by one",
        })),
        "pre_tool_use_bash_npm_test.json" => {
            let mut input = event_json(event)["tool_input"].clone();
            input["timeout"] = json!(600_000);
            pre(json!({"permissionDecision": "allow", "updatedInput": input}))
        }
        "pre_tool_use_bash_subagent.json" => pre(json!({
            "permissionDecision": "ask",
            "permissionDecisionReason": "hookc rewrote this call's input (rules `label-subagent-commands`)",
            "updatedInput": {"command": "ls -la src/routes", "description": "List route files (Explore subagent)"},
        })),
        "pre_tool_use_edit_outside_src.json" => pre(json!({
            "permissionDecision": "ask",
            "permissionDecisionReason": "`/home/dev/acme-api/package.json` is outside src/: write it?",
        })),
        "pre_tool_use_write_outside_src.json" => pre(json!({
            "permissionDecision": "ask",
            "permissionDecisionReason": "`/home/dev/acme-api/.env.production` is outside src/: write it?",
        })),
        "pre_tool_use_write_windows.json" => pre(json!({
            "permissionDecision": "ask",
            "permissionDecisionReason": "`C:\\Users\\dev\\acme-api\\scripts\\deploy.ps1` is outside src/: write it?",
        })),
        "pre_tool_use_edit_src.json"
        | "pre_tool_use_write_src.json"
        | "pre_tool_use_mcp_github_create_issue.json" => {
            pre(json!({"permissionDecision": "allow"}))
        }
        "pre_tool_use_read_env.json" => pre(json!({
            "additionalContext": "`/home/dev/acme-api/.env` holds secrets: never repeat its values",
        })),
        "session_start_resume.json" => {
            context("SessionStart", "working in /home/dev/acme-api (resume)")
        }
        "session_start_startup.json" => {
            context("SessionStart", "working in /home/dev/acme-api (startup)")
        }
        "stop_first_attempt.json" => Some(json!({
            "decision": "block",
            "reason": "run `npm test` and report the result before finishing",
        })),
        "subagent_start_explore.json" => {
            context("SubagentStart", "you explore: read, do not write")
        }
        "subagent_stop_general.json" => context(
            "SubagentStop",
            "subagent general-purpose finished: review its changes",
        ),
        "user_prompt_expansion_deploy.json" => Some(json!({
            "decision": "block",
            "reason": "deploying to staging needs a human",
        })),
        "user_prompt_submit_plain.json" => context(
            "UserPromptSubmit",
            "Conventions: TypeScript strict mode; tests next to the code as *.test.ts",
        ),
        "user_prompt_submit_secret.json" => Some(json!({
            "decision": "block",
            "reason": "the prompt holds a credential; remove it and use an environment variable",
        })),
        other => panic!("no expected answer for the sample event `{other}`: add one"),
    }
}

// ---------------------------------------------------------------- answers

#[test]
fn every_sample_event_gets_its_answer() {
    let mut names: Vec<String> = std::fs::read_dir(root().join(EVENTS))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 30, "the sample events: {names:?}");
    for name in &names {
        let run = claude(&event_text(name));
        assert_eq!(run.code, Some(0), "{name}: {run:#?}");
        match expected(name) {
            Some(answer) => assert_eq!(run.json(), answer, "{name}"),
            None => assert_eq!(run.stdout, "", "{name}"),
        }
    }
}

/// The sample events run as-is through `hookc test` (`event file`, with
/// the answer `hookc claude` gives as `expect output`), `eval` and
/// `explain`: the three agree with the hook on every one.
#[test]
fn every_sample_event_runs_as_is_in_test_eval_and_explain() {
    let dir = tmp_dir("sample-events-as-tests");
    let mut names: Vec<String> = std::fs::read_dir(root().join(EVENTS))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    let mut tests = String::from("schema claude-code\n");
    for name in &names {
        let output = expected(name).map_or_else(|| "null".to_owned(), |v| v.to_string());
        let path = root().join(EVENTS).join(name);
        tests.push_str(&format!(
            "\ntest {name:?} {{\n    event file {:?}\n    expect output {output}\n    expect exit 0\n}}\n",
            path.display().to_string()
        ));
    }
    let samples = dir.join("samples.hooks");
    std::fs::write(&samples, tests).unwrap();
    let run = hookc(
        &[OsStr::new("test"), OsStr::new(POLICY), samples.as_os_str()],
        "",
        &[],
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains(&format!("{} passed; 0 failed", names.len())),
        "{}",
        run.stdout
    );

    for name in &names {
        let path = root().join(EVENTS).join(name);
        let (_, eval) = report_of("eval", &path);
        let (_, explain) = report_of("explain", &path);
        assert_eq!(
            eval["outcome"], explain["outcome"]["outcome"],
            "{name}: eval and explain disagree"
        );
        let blocked = expected(name).is_some_and(|answer| {
            answer["decision"] == "block"
                || answer["hookSpecificOutput"]["permissionDecision"] == "deny"
                || answer["hookSpecificOutput"]["decision"]["behavior"] == "deny"
        });
        // An ask where nobody can be asked is the hook's block too.
        let stops = eval["outcome"] == "abort" || eval["outcome"] == "ask";
        assert!(
            if blocked {
                stops
            } else {
                eval["outcome"] != "abort"
            },
            "{name}: eval says {} where the hook {}",
            eval["outcome"],
            if blocked { "blocks" } else { "does not block" }
        );
    }
}

#[test]
fn hook_specific_output_names_the_event() {
    for name in ["pre_tool_use_bash_rm.json", "session_start_startup.json"] {
        let answer = claude(&event_text(name)).json();
        assert_eq!(
            answer["hookSpecificOutput"]["hookEventName"],
            event_json(name)["hook_event_name"]
        );
    }
}

#[test]
fn log_lines_go_to_stderr_only() {
    let run = claude(&event_text("notification_permission_prompt.json"));
    run.assert_silent_ok();
    assert_eq!(
        run.stderr,
        "hookc: info [log-notifications]: notified: Claude needs your permission to use Bash\n"
    );
}

/// The hook process allocates from its arena (`src/bin/hookc.rs`): with
/// `HOOKC_LOG=debug` it says how many bytes it bumped, and they are some;
/// without a logger it says nothing.
#[test]
fn the_hook_process_allocates_from_its_arena() {
    let args = [
        OsStr::new("claude"),
        OsStr::new("--table"),
        policy_table().as_os_str(),
    ];
    let event = event_text("pre_tool_use_bash_rm.json");
    let run = hookc(&args, &event, &[("HOOKC_LOG", OsStr::new("debug"))]);
    let line = run
        .stderr
        .lines()
        .find(|l| l.contains("small allocations bumped out of the arena"))
        .unwrap_or_else(|| panic!("no arena line: {run:#?}"));
    let bytes: usize = line
        .split("bytes=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no byte count in {line:?}"));
    assert!(bytes > 0, "{line}");
    let quiet = hookc(&args, &event, &[]);
    assert!(!quiet.stderr.contains("arena"), "{quiet:#?}");
}

#[test]
fn an_ask_where_nobody_is_asked_blocks_and_says_so() {
    let run = claude(&event_text("user_prompt_expansion_deploy.json"));
    assert_eq!(run.json()["decision"], "block");
    assert!(
        run.stderr
            .contains("UserPromptExpansion has no ask; blocking instead"),
        "{run:#?}"
    );
}

#[test]
fn a_stop_already_continued_by_a_hook_is_not_blocked_again() {
    let mut event = event_json("stop_first_attempt.json");
    event["stop_hook_active"] = json!(true);
    let run = claude(&event.to_string());
    run.assert_silent_ok();
    assert!(
        run.stderr
            .contains("not blocking Stop again (stop_hook_active is true)"),
        "{run:#?}"
    );
}

#[test]
fn task_completed_blocks_with_exit_code_2() {
    let event = json!({
        "session_id": "s",
        "transcript_path": "/t.jsonl",
        "cwd": "/home/dev/acme-api",
        "hook_event_name": "TaskCompleted",
        "task_id": "task-7",
        "task_subject": "ship the release",
    });
    let run = claude(&event.to_string());
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "run the release checklist first\n");
}

#[test]
fn unknown_events_answer_nothing() {
    let event = json!({
        "session_id": "s",
        "cwd": "/home/dev/acme-api",
        "hook_event_name": "SomethingNew",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    });
    let run = claude(&event.to_string());
    run.assert_silent_ok();
    assert_eq!(run.stderr, "");
}

#[test]
fn unknown_fields_are_tolerated() {
    let mut event = event_json("pre_tool_use_bash_rm.json");
    event["a_future_field"] = json!({"nested": [1, 2, 3]});
    event["tool_input"]["a_future_option"] = json!(true);
    let answer = claude(&event.to_string()).json();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn minimal_events_work() {
    // Only `hook_event_name` is required.
    let run = claude(
        r#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf x"}}"#,
    );
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
}

// ---------------------------------------------------------------- failures

/// The policy's table with one byte flipped where every load reads it
/// (the schema's name, in the program block's head).
fn corrupt_table(name: &str) -> PathBuf {
    corrupted_at(name, b"claude-code")
}

/// The policy's table with the first byte of the first place it holds
/// `text` flipped.
fn corrupted_at(name: &str, text: &[u8]) -> PathBuf {
    let path = tmp_dir(name).join("corrupt.tbl");
    let mut bytes = std::fs::read(policy_table()).unwrap();
    let at = bytes
        .windows(text.len())
        .position(|w| w == text)
        .unwrap_or_else(|| panic!("the table holds {}", String::from_utf8_lossy(text)));
    bytes[at] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A flipped byte in the block of the event's point (a PreToolUse rule's
/// id) is found before the dispatch, and fails by the mode as a table that
/// does not load; an event of another point is answered.
#[test]
fn a_corrupted_point_block_fails_by_the_mode() {
    let table = corrupted_at("corrupt-point", b"deny-recursive-rm");
    let event = event_text("pre_tool_use_bash_rm.json");
    let open = claude_with(&table, &[], &event);
    open.assert_silent_ok();
    assert!(
        open.stderr.contains("cannot load table `") && open.stderr.contains("checksum"),
        "{open:#?}"
    );
    let closed = claude_with(&table, &["--fail-closed"], &event);
    assert_eq!(
        (closed.code, closed.stdout.as_str()),
        (Some(2), ""),
        "{closed:#?}"
    );
    // The Stop point's block is whole: its rules answer.
    let stop = claude_with(
        &table,
        &["--fail-closed"],
        &event_text("stop_first_attempt.json"),
    );
    assert_eq!(stop.code, Some(0), "{stop:#?}");
    assert!(!stop.stderr.contains("cannot load"), "{stop:#?}");
}

fn claude_with(table: &Path, extra: &[&str], stdin: &str) -> Run {
    let mut args = vec![
        OsStr::new("claude"),
        OsStr::new("--table"),
        table.as_os_str(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    hookc(&args, stdin, &[])
}

#[test]
fn a_corrupt_table_fails_open() {
    let table = corrupt_table("corrupt-open");
    let run = claude_with(&table, &[], &event_text("pre_tool_use_bash_rm.json"));
    run.assert_silent_ok();
    assert!(
        run.stderr.contains("hookc: cannot load table `") && run.stderr.contains("corrupt.tbl`"),
        "{run:#?}"
    );
    assert!(
        run.stderr
            .contains("failing open: no decision (`--fail-closed` blocks instead)"),
        "{run:#?}"
    );
}

/// A table cut short (a copy interrupted, a disk full) is refused, never
/// half read: open without a decision, or closed with exit 2.
#[test]
fn a_truncated_table_fails_by_the_mode() {
    let bytes = std::fs::read(policy_table()).unwrap();
    for keep in [0, 16, 40, bytes.len() / 2, bytes.len() - 1] {
        let path = tmp_dir("truncated").join(format!("cut-{keep}.tbl"));
        std::fs::write(&path, &bytes[..keep]).unwrap();
        let event = event_text("pre_tool_use_bash_rm.json");
        let open = claude_with(&path, &[], &event);
        open.assert_silent_ok();
        assert!(
            open.stderr.contains("cannot load table `"),
            "{keep}: {open:#?}"
        );
        let closed = claude_with(&path, &["--fail-closed"], &event);
        assert_eq!(
            (closed.code, closed.stdout.as_str()),
            (Some(2), ""),
            "{keep}: {closed:#?}"
        );
        assert!(
            closed.stderr.contains("failing closed"),
            "{keep}: {closed:#?}"
        );
    }
}

#[test]
fn a_corrupt_table_with_fail_closed_blocks() {
    let table = corrupt_table("corrupt-closed");
    let run = claude_with(
        &table,
        &["--fail-closed"],
        &event_text("pre_tool_use_bash_npm_test.json"),
    );
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("hookc: cannot load table `"),
        "{run:#?}"
    );
    assert!(run.stderr.ends_with("(failing closed)\n"), "{run:#?}");
}

#[test]
fn fail_closed_denies_a_permission_request_in_json() {
    // Claude Code ignores exit code 2 at PermissionRequest.
    let table = corrupt_table("corrupt-permission");
    let run = claude_with(
        &table,
        &["--fail-closed"],
        &event_text("permission_request_bash_rm.json"),
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    let answer = run.json();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "PermissionRequest"
    );
    assert_eq!(answer["hookSpecificOutput"]["decision"]["behavior"], "deny");
}

/// A bug that panics fails by the mode, as a policy that cannot be used
/// does: a panic's own exit code (101) is "no decision" to Claude Code,
/// even under `--fail-closed`. (Debug builds panic when asked.)
#[cfg(debug_assertions)]
#[test]
fn a_panic_fails_by_the_mode() {
    let panic = [("HOOKC_TEST_PANIC", OsStr::new("1"))];
    let with = |extra: &[&str], event: &str| {
        let mut args = vec![
            OsStr::new("claude"),
            OsStr::new("--table"),
            policy_table().as_os_str(),
        ];
        args.extend(extra.iter().map(OsStr::new));
        hookc(&args, &event_text(event), &panic)
    };
    let open = with(&[], "pre_tool_use_bash_rm.json");
    open.assert_silent_ok();
    assert!(
        open.stderr
            .contains("hookc failed on this event: HOOKC_TEST_PANIC is set")
            && open.stderr.contains("failing open"),
        "{open:#?}"
    );
    let closed = with(&["--fail-closed"], "pre_tool_use_bash_rm.json");
    assert_eq!(
        (closed.code, closed.stdout.as_str()),
        (Some(2), ""),
        "{closed:#?}"
    );
    assert!(closed.stderr.contains("failing closed"), "{closed:#?}");
    let permission = with(&["--fail-closed"], "permission_request_bash_rm.json");
    assert_eq!(permission.code, Some(0), "{permission:#?}");
    assert_eq!(
        permission.json()["hookSpecificOutput"]["decision"]["behavior"],
        "deny"
    );
}

/// A table that is not in a regular file (a named pipe, as `--table
/// <(…)` gives) cannot be read at an offset: it is read whole, and
/// answers as the file does.
#[cfg(unix)]
#[test]
fn a_table_from_a_pipe_answers_as_its_file() {
    let dir = tmp_dir("fifo");
    let fifo = dir.join("pack.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let bytes = std::fs::read(pack_table()).unwrap();
    for event in [
        "pre_tool_use_bash_rm.json",
        "pre_tool_use_write_outside_src.json",
    ] {
        let writer = {
            let (fifo, bytes) = (fifo.clone(), bytes.clone());
            std::thread::spawn(move || std::fs::write(fifo, bytes).unwrap())
        };
        let piped = claude_with(&fifo, &[], &event_text(event));
        writer.join().unwrap();
        let file = claude_with(pack_table(), &[], &event_text(event));
        assert_eq!(piped.code, Some(0), "{piped:#?}");
        assert_eq!(piped.stderr, "", "{event}");
        assert!(!file.stdout.is_empty(), "{event}: the pack answers it");
        assert_eq!(piped.stdout, file.stdout, "{event}");
    }
}

#[test]
fn a_missing_table_fails_open() {
    let missing = tmp_dir("missing").join("nope.tbl");
    let run = claude_with(&missing, &[], &event_text("pre_tool_use_bash_rm.json"));
    run.assert_silent_ok();
    assert!(
        run.stderr.contains("cannot read table `") && run.stderr.contains("no such file"),
        "{run:#?}"
    );
}

#[test]
fn stdin_that_is_not_an_event_fails_per_the_mode() {
    for stdin in ["", "{not json", "[1, 2]", r#"{"tool_name": "Bash"}"#] {
        let open = claude(stdin);
        open.assert_silent_ok();
        assert!(open.stderr.starts_with("hookc: the event "), "{open:#?}");
        let closed = claude_with(policy_table(), &["--fail-closed"], stdin);
        assert_eq!(closed.code, Some(2), "{closed:#?}");
        assert_eq!(closed.stdout, "");
    }
}

#[test]
fn rules_that_do_not_compile_fail_open_or_closed() {
    let dir = tmp_dir("broken-rules");
    std::fs::write(
        dir.join("broken.hooks"),
        "schema claude-code\nhook x on PreToolUse {\n    when payload.tool_name ==\n}\n",
    )
    .unwrap();
    let args = |extra: &'static str| {
        let mut args = vec![OsStr::new("claude"), OsStr::new("--rules"), dir.as_os_str()];
        if !extra.is_empty() {
            args.push(OsStr::new(extra));
        }
        args
    };
    let event = event_text("pre_tool_use_bash_rm.json");
    let open = hookc(&args(""), &event, &[]);
    open.assert_silent_ok();
    assert!(open.stderr.contains("do not compile"), "{open:#?}");
    let closed = hookc(&args("--fail-closed"), &event, &[]);
    assert_eq!(closed.code, Some(2), "{closed:#?}");
    assert!(closed.stderr.contains("do not compile"), "{closed:#?}");
}

#[test]
fn no_rules_anywhere_fails_open() {
    let empty = tmp_dir("no-rules");
    let run = hookc(
        &[OsStr::new("claude")],
        &event_text("pre_tool_use_bash_rm.json"),
        &[("CLAUDE_PROJECT_DIR", empty.as_os_str())],
    );
    run.assert_silent_ok();
    assert!(run.stderr.contains("hookc: no rules:"), "{run:#?}");
}

// ---------------------------------------------------------------- finding the rules

fn expect_rm_denied(run: &Run) {
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{run:#?}"
    );
}

#[test]
fn hookc_table_names_the_table() {
    let run = hookc(
        &[OsStr::new("claude")],
        &event_text("pre_tool_use_bash_rm.json"),
        &[("HOOKC_TABLE", policy_table().as_os_str())],
    );
    expect_rm_denied(&run);
}

#[test]
fn the_flag_comes_before_hookc_table() {
    let corrupt = corrupt_table("flag-first");
    let run = hookc(
        &[
            OsStr::new("claude"),
            OsStr::new("--table"),
            policy_table().as_os_str(),
        ],
        &event_text("pre_tool_use_bash_rm.json"),
        &[("HOOKC_TABLE", corrupt.as_os_str())],
    );
    expect_rm_denied(&run);
}

#[test]
fn rules_flag_compiles_the_sources() {
    // A copy, since `--rules` writes its cache beside the sources.
    let dir = tmp_dir("rules-flag");
    let policy = dir.join("policy.hooks");
    std::fs::copy(root().join(POLICY), &policy).unwrap();
    let run = hookc(
        &[
            OsStr::new("claude"),
            OsStr::new("--rules"),
            policy.as_os_str(),
        ],
        &event_text("pre_tool_use_bash_rm.json"),
        &[],
    );
    expect_rm_denied(&run);
}

/// A project directory with `.hookc/` holding the policy as a table or as
/// source.
fn project(name: &str, as_table: bool) -> PathBuf {
    let project = tmp_dir(name);
    let hookc_dir = project.join(".hookc");
    std::fs::create_dir_all(&hookc_dir).unwrap();
    if as_table {
        std::fs::copy(policy_table(), hookc_dir.join("rules.tbl")).unwrap();
    } else {
        std::fs::copy(root().join(POLICY), hookc_dir.join("policy.hooks")).unwrap();
    }
    project
}

#[test]
fn the_project_table_is_found_through_claude_project_dir() {
    let project = project("project-table", true);
    let run = hookc(
        &[OsStr::new("claude")],
        &event_text("pre_tool_use_bash_rm.json"),
        &[("CLAUDE_PROJECT_DIR", project.as_os_str())],
    );
    expect_rm_denied(&run);
}

#[test]
fn the_project_rules_directory_is_compiled_without_a_table() {
    let project = project("project-rules", false);
    let run = hookc(
        &[OsStr::new("claude")],
        &event_text("pre_tool_use_bash_rm.json"),
        &[("CLAUDE_PROJECT_DIR", project.as_os_str())],
    );
    expect_rm_denied(&run);
}

#[test]
fn without_claude_project_dir_the_event_cwd_is_the_project() {
    let project = project("project-cwd", true);
    let mut event = event_json("pre_tool_use_bash_rm.json");
    event["cwd"] = json!(project.to_str().unwrap());
    let run = hookc(&[OsStr::new("claude")], &event.to_string(), &[]);
    expect_rm_denied(&run);
}

#[test]
fn a_table_of_another_schema_is_noted() {
    let dir = tmp_dir("orcs-schema");
    let table = dir.join("orcs.tbl");
    let compile = hookc(
        &[
            OsStr::new("compile"),
            OsStr::new("rules/guard.hooks"),
            OsStr::new("rules/common.hooks"),
            OsStr::new("-o"),
            table.as_os_str(),
        ],
        "",
        &[],
    );
    assert_eq!(compile.code, Some(0), "{compile:#?}");
    let run = claude_with(&table, &[], &event_text("pre_tool_use_bash_rm.json"));
    run.assert_silent_ok();
    assert!(
        run.stderr.contains("the table's schema is `orcs`"),
        "{run:#?}"
    );
}

#[test]
fn help_says_where_the_rules_come_from_and_how_it_fails() {
    let run = hookc(&[OsStr::new("claude"), OsStr::new("--help")], "", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    for needle in [
        "--table",
        "--rules",
        "--fail-closed",
        "HOOKC_TABLE",
        "CLAUDE_PROJECT_DIR",
        ".hookc/rules.tbl",
        "fails open",
    ] {
        assert!(
            run.stdout.contains(needle),
            "`{needle}` missing:\n{}",
            run.stdout
        );
    }
}

#[test]
fn explain_reads_a_claude_event_the_same_way() {
    let run = hookc(
        &[
            OsStr::new("explain"),
            OsStr::new("--table"),
            policy_table().as_os_str(),
            OsStr::new("--event"),
            OsStr::new("tests/fixtures/claude/events/pre_tool_use_bash_rm.json"),
            OsStr::new("--format"),
            OsStr::new("json"),
        ],
        "",
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    let text = &run.stdout;
    assert!(text.contains("claude-code::Bash"), "{text}");
    assert!(text.contains("deny-recursive-rm"), "{text}");
}

/// The whole path of a Claude Code user who already has command hooks:
/// `hookc import claude-settings`, `hookc compile`, then `hookc claude` as
/// the one hook. The imported command reads the Claude Code event on stdin,
/// exactly as Claude Code would give it, and blocks with exit 2.
#[test]
fn imported_command_hooks_run_unchanged_under_hookc_claude() {
    let dir = tmp_dir("imported-commands");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
        "type": "command",
        "command": "cat > \"$HOOKC_TEST_RECORD\"; if grep -q 'rm -rf' \"$HOOKC_TEST_RECORD\"; then echo 'rm -rf is blocked by policy' >&2; exit 2; fi",
    }]}]}});
    let settings_path = dir.join("settings.json");
    std::fs::write(&settings_path, settings.to_string()).unwrap();
    let rules = dir.join("rules/claude.hooks");
    let table = dir.join("build/hooks.tbl");
    let run = hookc(
        &[
            OsStr::new("import"),
            OsStr::new("claude-settings"),
            settings_path.as_os_str(),
            OsStr::new("-o"),
            rules.as_os_str(),
        ],
        "",
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    let run = hookc(
        &[
            OsStr::new("compile"),
            rules.as_os_str(),
            OsStr::new("-o"),
            table.as_os_str(),
        ],
        "",
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");

    let record = dir.join("stdin.json");
    let answer = |event: &str| {
        hookc(
            &[
                OsStr::new("claude"),
                OsStr::new("--table"),
                table.as_os_str(),
            ],
            &event_text(event),
            &[("HOOKC_TEST_RECORD", record.as_os_str())],
        )
    };
    let blocked = answer("pre_tool_use_bash_rm.json");
    assert_eq!(blocked.code, Some(0), "{blocked:#?}");
    let output = blocked.json();
    assert_eq!(
        output["hookSpecificOutput"]["permissionDecision"], "deny",
        "{blocked:#?}"
    );
    assert_eq!(
        output["hookSpecificOutput"]["permissionDecisionReason"],
        "rm -rf is blocked by policy"
    );
    // The command read the event itself, not hookc's context around it.
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(seen, event_json("pre_tool_use_bash_rm.json"));

    answer("pre_tool_use_bash_npm_test.json").assert_silent_ok();
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(seen, event_json("pre_tool_use_bash_npm_test.json"));
}

/// `hookc claude …` is parsed by its own arguments alone (the process
/// starts on every tool call); with a global flag or `--help` the whole
/// command line's parser answers, the same way.
#[test]
fn the_hook_answers_alike_through_either_parser() {
    let table = policy_table().as_os_str();
    for event in ["pre_tool_use_bash_rm.json", "pre_tool_use_write_src.json"] {
        let stdin = event_text(event);
        let own = hookc(
            &[OsStr::new("claude"), OsStr::new("--table"), table],
            &stdin,
            &[],
        );
        for whole in [
            [
                OsStr::new("-v"),
                OsStr::new("claude"),
                OsStr::new("--table"),
                table,
            ],
            [
                OsStr::new("claude"),
                OsStr::new("--table"),
                table,
                OsStr::new("-v"),
            ],
        ] {
            let run = hookc(&whole, &stdin, &[]);
            assert_eq!(
                (run.code, &run.stdout),
                (own.code, &own.stdout),
                "{event}: {whole:?}"
            );
        }
        assert_eq!(own.stderr, "", "{event}");
    }
    let help = hookc(&[OsStr::new("claude"), OsStr::new("--help")], "", &[]);
    assert_eq!(help.code, Some(0), "{help:#?}");
    assert!(
        help.stdout.starts_with("Answer a Claude Code hook event"),
        "{help:#?}"
    );
}

/// A typo in the hook command of `settings.json` must not read as a block
/// of every tool call (clap's usage exit is 2): it fails by the mode.
#[test]
fn bad_arguments_fail_by_the_mode_never_as_a_usage_error() {
    let event = event_text("pre_tool_use_bash_rm.json");
    let args = |list: &[&'static str]| -> Vec<&'static OsStr> {
        list.iter().map(|a| OsStr::new(*a)).collect()
    };
    // Open: exit 0, no decision, the error on stderr.
    for bad in [
        &["claude", "--tabel", "x.tbl"][..],
        &["claude", "--table"][..],
        &["-v", "claude", "--deadline", "soon"][..],
        &["claude", "extra"][..],
    ] {
        let run = hookc(&args(bad), &event, &[]);
        assert_eq!(run.code, Some(0), "{bad:?}: {run:#?}");
        assert_eq!(run.stdout, "", "{bad:?}");
        assert!(
            run.stderr
                .starts_with("hookc: the hook command's arguments cannot be used: ")
                && run.stderr.contains("failing open"),
            "{bad:?}: {run:#?}"
        );
    }
    // `--fail-closed` among them: a block (exit 2), or a JSON deny where
    // Claude Code ignores exit codes.
    let run = hookc(
        &args(&["claude", "--fail-closed", "--tabel", "x"]),
        &event,
        &[],
    );
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(run.stderr.ends_with("(failing closed)\n"), "{run:#?}");
    let run = hookc(
        &args(&["claude", "--tabel", "x", "--fail-closed"]),
        &event_text("permission_request_bash_rm.json"),
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(
        run.json()["hookSpecificOutput"]["decision"]["behavior"],
        "deny"
    );
    // Help is still help, and other commands keep clap's usage errors.
    assert_eq!(hookc(&args(&["claude", "--help"]), "", &[]).code, Some(0));
    assert_eq!(
        hookc(&args(&["eval", "--tabel", "x"]), "", &[]).code,
        Some(2)
    );
}

/// `hookc eval` takes the raw event Claude Code writes, and decides as
/// `hookc claude` does on it.
#[test]
fn eval_runs_a_raw_claude_code_event_as_the_hook_would() {
    let eval = |name: &str| report_of("eval", &root().join(EVENTS).join(name));
    let (code, report) = eval("pre_tool_use_bash_rm.json");
    assert_eq!(code, Some(1), "an abort is exit 1 for eval");
    assert_eq!(report["outcome"], "abort");
    assert_eq!(
        report["reason"],
        claude(&event_text("pre_tool_use_bash_rm.json")).json()["hookSpecificOutput"]
            ["permissionDecisionReason"]
    );
    assert_eq!(report["context"]["hook_point"], "PreToolUse");
    let (code, report) = eval("pre_tool_use_bash_npm_test.json");
    assert_eq!((code, &report["outcome"]), (Some(0), &json!("continue")));
}

/// A project whose `.hookc/rules.tbl` is compiled from `.hookc/guard.hooks`
/// holding `rules`.
fn compiled_project(name: &str, rules: &str) -> PathBuf {
    let project = tmp_dir(name);
    let dir = project.join(".hookc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("guard.hooks"), rules).unwrap();
    let run = hookc(
        &[
            OsStr::new("compile"),
            dir.as_os_str(),
            OsStr::new("-o"),
            dir.join("rules.tbl").as_os_str(),
        ],
        "",
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    project
}

const FORCE_PUSH: &str = r#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force"}}"#;

fn guard(decision: &str) -> String {
    format!(
        "schema claude-code\nhook no-force on PreToolUse at claude-code::Bash {{\n    when any c in shell(payload.tool_input.command): c.flags contains \"--force\"\n    {decision} \"no force pushes\"\n}}\n"
    )
}

/// A `.hookc/rules.tbl` older than the rules beside it is never used
/// silently: the rules are compiled (once, into the cache) and used, with a
/// note; rules that no longer compile take the fail mode.
#[test]
fn a_stale_table_gives_way_to_its_sources() {
    let project = compiled_project("stale", &guard("deny"));
    let env = [("CLAUDE_PROJECT_DIR", project.as_os_str())];
    let run = hookc(&[OsStr::new("claude")], FORCE_PUSH, &env);
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{run:#?}"
    );
    assert_eq!(run.stderr, "", "a fresh table says nothing: {run:#?}");
    // The sources change; the table does not.
    std::fs::write(project.join(".hookc/guard.hooks"), guard("ask")).unwrap();
    let run = hookc(&[OsStr::new("claude")], FORCE_PUSH, &env);
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "ask",
        "{run:#?}"
    );
    assert!(
        run.stderr.contains("is older than the rules in"),
        "{run:#?}"
    );
    let cached: Vec<_> = std::fs::read_dir(project.join(".hookc/cache"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(cached.len(), 1, "one compiled table in the cache");
    // The next event reads the cache (the same answer, nothing compiled:
    // a cached table whose bytes are gone would be compiled again).
    let again = hookc(&[OsStr::new("claude")], FORCE_PUSH, &env);
    assert_eq!(
        again.json()["hookSpecificOutput"]["permissionDecision"],
        "ask"
    );
    // Rules that no longer compile: the fail mode, with the error.
    std::fs::write(
        project.join(".hookc/guard.hooks"),
        "schema claude-code\nhook x on PreToolUse {\n",
    )
    .unwrap();
    let open = hookc(&[OsStr::new("claude")], FORCE_PUSH, &env);
    open.assert_silent_ok();
    assert!(
        open.stderr
            .contains("is older than the rules beside it, and the rules in"),
        "{open:#?}"
    );
    let closed = hookc(
        &[OsStr::new("claude"), OsStr::new("--fail-closed")],
        FORCE_PUSH,
        &env,
    );
    assert_eq!(closed.code, Some(2), "{closed:#?}");
}

/// `--rules` compiles through the same cache: the first event writes it,
/// keyed by the sources and the build of hookc, and it keeps one table.
#[test]
fn rules_are_compiled_once_into_the_cache() {
    let project = compiled_project("rules-cache", &guard("deny"));
    let dir = project.join(".hookc");
    std::fs::remove_file(dir.join("rules.tbl")).unwrap();
    let run = hookc(
        &[OsStr::new("claude"), OsStr::new("--rules"), dir.as_os_str()],
        FORCE_PUSH,
        &[],
    );
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{run:#?}"
    );
    let cached = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("cache"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let first = cached(&dir);
    assert_eq!(first.len(), 1, "{first:?}");
    // DIGEST-vVERSION-BUILD.tbl: this build's id, 16 hex digits.
    let build = first[0]
        .trim_end_matches(".tbl")
        .rsplit('-')
        .next()
        .unwrap();
    assert_eq!(build.len(), 16, "{first:?}");
    assert!(build.bytes().all(|b| b.is_ascii_hexdigit()), "{first:?}");
    // A table another build compiled is not read: the sources are compiled
    // again, and the other build's table removed.
    let other = first[0].replace(build, "0123456789abcdef");
    std::fs::rename(
        dir.join("cache").join(&first[0]),
        dir.join("cache").join(&other),
    )
    .unwrap();
    let again = |dir: &std::path::Path| {
        hookc(
            &[OsStr::new("claude"), OsStr::new("--rules"), dir.as_os_str()],
            FORCE_PUSH,
            &[],
        )
    };
    let run = again(&dir);
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{run:#?}"
    );
    assert_eq!(cached(&dir), first);
    // A cached table is used only for the sources it was compiled from,
    // and the table of the sources before the edit is removed; a file the
    // cache did not name stays.
    std::fs::write(dir.join("cache").join("mine.tbl"), "not the cache's").unwrap();
    std::fs::write(dir.join("guard.hooks"), guard("ask")).unwrap();
    let run = again(&dir);
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "ask",
        "{run:#?}"
    );
    let edited = cached(&dir);
    assert_eq!(edited.len(), 2, "{edited:?}");
    assert_eq!(edited[1], "mine.tbl");
    assert_ne!(edited[0], first[0]);
    assert!(edited[0].ends_with(&format!("-{build}.tbl")), "{edited:?}");
}

/// `--log-file` / `HOOKC_LOG_FILE`: one JSON line per event, the errors
/// too, rotated past 1 MiB.
#[test]
fn every_event_leaves_a_line_in_the_decision_log() {
    let project = compiled_project("decision-log", &guard("deny"));
    let log = project.join("decisions.jsonl");
    let env = [("CLAUDE_PROJECT_DIR", project.as_os_str())];
    let with_session = r#"{"hook_event_name": "PreToolUse", "session_id": "s-1", "tool_name": "Bash", "tool_input": {"command": "git push --force"}}"#;
    let args = [
        OsStr::new("claude"),
        OsStr::new("--log-file"),
        log.as_os_str(),
    ];
    let run = hookc(&args, with_session, &env);
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    let quiet = r#"{"hook_event_name": "PreToolUse", "session_id": "s-1", "tool_name": "Bash", "tool_input": {"command": "ls"}}"#;
    hookc(&args, quiet, &env).assert_silent_ok();
    // The variable names the file when no flag does; an unusable event is
    // logged with its error.
    hookc(
        &[OsStr::new("claude")],
        "not json",
        &[("HOOKC_LOG_FILE", log.as_os_str())],
    )
    .assert_silent_ok();
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0]["session"], "s-1");
    assert_eq!(lines[0]["event"], "PreToolUse");
    assert_eq!(lines[0]["tool"], "Bash");
    assert_eq!(lines[0]["fired"], serde_json::json!(["no-force"]));
    assert_eq!(lines[0]["decision"], "deny");
    assert_eq!(lines[0]["reason"], "no force pushes");
    assert_eq!(lines[0]["exit_code"], 0);
    assert_eq!(lines[0]["table"].as_str().map(str::len), Some(64));
    assert!(lines[0]["duration_ms"].as_f64().is_some_and(|ms| ms > 0.0));
    assert_eq!(lines[1]["decision"], Value::Null);
    assert_eq!(lines[1]["fired"], serde_json::json!([]));
    assert!(
        lines[2]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{text}"
    );
    // Past the cap the log starts again beside its predecessor.
    std::fs::write(&log, vec![b'x'; 1 << 20]).unwrap();
    hookc(&args, quiet, &env).assert_silent_ok();
    let rotated = project.join("decisions.jsonl.1");
    assert_eq!(std::fs::metadata(&rotated).unwrap().len(), 1 << 20);
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 1);
    // A log that cannot be written is a note, not a different answer.
    let bad = [
        OsStr::new("claude"),
        OsStr::new("--log-file"),
        project.as_os_str(),
    ];
    let run = hookc(&bad, with_session, &env);
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    assert!(
        run.stderr.contains("cannot write the decision log"),
        "{run:#?}"
    );
}

/// `hookc init claude` sets a project up in one command: the pack, its
/// table and the hook entries, other settings kept, a backup written; a
/// second run changes nothing; `--dry-run` writes nothing.
#[test]
fn init_sets_a_project_up_once() {
    let project = tmp_dir("init");
    let claude_dir = project.join(".claude");
    std::fs::create_dir_all(&claude_dir).unwrap();
    let original = "{\n    \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n    \"hooks\": {\n        \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./check.sh\"}]}]\n    }\n}\n";
    std::fs::write(claude_dir.join("settings.json"), original).unwrap();
    let init = |extra: &[&str]| {
        let mut args = vec![
            OsStr::new("init"),
            OsStr::new("claude"),
            OsStr::new("--project"),
            project.as_os_str(),
        ];
        args.extend(extra.iter().map(OsStr::new));
        hookc(&args, "", &[])
    };
    // A dry run: the diff, and nothing written.
    let dry = init(&["--dry-run"]);
    assert_eq!(dry.code, Some(0), "{dry:#?}");
    assert!(dry.stdout.starts_with("--- "), "{dry:#?}");
    assert!(
        dry.stdout
            .lines()
            .any(|l| l.starts_with('+') && l.contains("\"args\": [")),
        "{dry:#?}"
    );
    assert!(dry.stderr.contains("would create"), "{dry:#?}");
    assert!(!project.join(".hookc").exists());
    assert_eq!(
        std::fs::read_to_string(claude_dir.join("settings.json")).unwrap(),
        original
    );
    // The real run.
    let run = init(&[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(project.join(".hookc/guards.hooks").is_file());
    assert!(project.join(".hookc/rules.tbl").is_file());
    assert_eq!(
        std::fs::read_to_string(claude_dir.join("settings.json.bak")).unwrap(),
        original
    );
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(claude_dir.join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(settings["permissions"]["allow"][0], "Bash(npm test)");
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./check.sh"
    );
    let ours = &settings["hooks"]["PreToolUse"][1]["hooks"][0];
    assert_eq!(ours["args"], serde_json::json!(["claude"]));
    assert!(Path::new(ours["command"].as_str().unwrap()).is_absolute());
    assert_eq!(
        settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["args"],
        serde_json::json!(["claude"])
    );
    // Every byte it did not add is kept: indentation, the one-line
    // `permissions` object, the other hook as written.
    let written = std::fs::read_to_string(claude_dir.join("settings.json")).unwrap();
    assert!(
        written.starts_with("{\n    \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n    \"hooks\": {\n        \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./check.sh\"}]},"),
        "{written}"
    );
    assert!(written.ends_with("    }\n}\n"), "{written}");
    // The hook it wrote answers from any working directory.
    let command = ours["command"].as_str().unwrap();
    let out = Command::new(command)
        .arg("claude")
        .current_dir(std::env::temp_dir())
        .env("CLAUDE_PROJECT_DIR", &project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(FORCE_PUSH.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");
    // Again: nothing changes, and an edited pack file is kept.
    let settings_text = std::fs::read_to_string(claude_dir.join("settings.json")).unwrap();
    std::fs::write(project.join(".hookc/guards.hooks"), guard("deny")).unwrap();
    let again = init(&[]);
    assert_eq!(again.code, Some(0), "{again:#?}");
    assert!(again.stderr.contains("kept"), "{again:#?}");
    assert_eq!(
        std::fs::read_to_string(claude_dir.join("settings.json")).unwrap(),
        settings_text
    );
    assert_eq!(
        std::fs::read_to_string(project.join(".hookc/guards.hooks")).unwrap(),
        guard("deny")
    );
    // Settings that are not JSON are an error, not overwritten.
    std::fs::write(claude_dir.join("settings.json"), "{ not json").unwrap();
    let bad = init(&[]);
    assert_eq!(bad.code, Some(2), "{bad:#?}");
    assert!(bad.stderr.contains("is not JSON"), "{bad:#?}");
    assert_eq!(
        std::fs::read_to_string(claude_dir.join("settings.json")).unwrap(),
        "{ not json"
    );
}

/// `hookc init claude --user`: the policy in the user's configuration
/// directory, the hooks in `~/.claude/settings.json`, naming its table.
#[cfg(target_os = "linux")]
#[test]
fn init_for_the_user() {
    let home = tmp_dir("init-user");
    let config = home.join(".config");
    let run = hookc(
        &[
            OsStr::new("init"),
            OsStr::new("claude"),
            OsStr::new("--user"),
        ],
        "",
        &[
            ("HOME", home.as_os_str()),
            ("XDG_CONFIG_HOME", config.as_os_str()),
        ],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    let table = config.join("hookc/rules.tbl");
    assert!(table.is_file(), "{run:#?}");
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude/settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["args"],
        serde_json::json!(["claude", "--table", table.display().to_string()])
    );
}

/// `hookc doctor`: a project set up by `init` has no problem; a typo in
/// the hook's arguments, a command that is not there, or no policy, are
/// problems (exit 1), in JSON too.
#[test]
fn doctor_finds_a_miswired_hook() {
    let project = tmp_dir("doctor");
    let home = [("HOME", project.as_os_str())];
    let init = hookc(
        &[
            OsStr::new("init"),
            OsStr::new("claude"),
            OsStr::new("--project"),
            project.as_os_str(),
        ],
        "",
        &[],
    );
    assert_eq!(init.code, Some(0), "{init:#?}");
    let doctor = |format: &str| {
        hookc(
            &[
                OsStr::new("doctor"),
                OsStr::new("--project"),
                project.as_os_str(),
                OsStr::new("--format"),
                OsStr::new(format),
            ],
            "",
            &home,
        )
    };
    let ok = doctor("human");
    assert_eq!(ok.code, Some(0), "{ok:#?}");
    assert!(
        ok.stdout
            .contains("schema claude-code, 35 rules, fresh, unsigned"),
        "{ok:#?}"
    );
    assert!(ok.stdout.contains("no problems found"), "{ok:#?}");
    let report: Value = serde_json::from_str(&doctor("json").stdout).unwrap();
    assert_eq!(report["problems"], serde_json::json!([]));
    assert_eq!(report["entries"].as_array().map(Vec::len), Some(2));
    assert_eq!(report["policy"]["fresh"], true);
    // A typo in the arguments: hookc fails open on every event.
    let settings_path = project.join(".claude/settings.json");
    let settings = std::fs::read_to_string(&settings_path).unwrap();
    std::fs::write(
        &settings_path,
        settings.replacen("\"claude\"", "\"claude\", \"--tabel\", \"x\"", 1),
    )
    .unwrap();
    let bad = doctor("human");
    assert_eq!(bad.code, Some(1), "{bad:#?}");
    assert!(
        bad.stdout
            .contains("the hook runs but fails: the hook command's arguments cannot be used"),
        "{bad:#?}"
    );
    // A command that is not there.
    std::fs::write(
        &settings_path,
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/no/such/hookc", "args": ["claude"]}]}]}}"#,
    )
    .unwrap();
    let missing: Value = serde_json::from_str(&doctor("json").stdout).unwrap();
    assert!(
        missing["problems"][0]
            .as_str()
            .is_some_and(|p| p.contains("is not a file and not on PATH")),
        "{missing}"
    );
    // Stale sources are reported, not a problem: the hook compiles them.
    std::fs::write(&settings_path, settings.as_bytes()).unwrap();
    std::fs::write(project.join(".hookc/guards.hooks"), guard("ask")).unwrap();
    let stale = doctor("human");
    assert_eq!(stale.code, Some(0), "{stale:#?}");
    assert!(
        stale.stdout.contains("stale (its sources changed"),
        "{stale:#?}"
    );
}

/// `log-file` under `[claude]` in the rules' `hookc.toml` names the
/// decision log, relative to the file.
#[test]
fn the_decision_log_can_be_configured() {
    let project = tmp_dir("decision-log-config");
    let dir = project.join(".hookc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("guard.hooks"), guard("deny")).unwrap();
    std::fs::write(
        dir.join("hookc.toml"),
        "[claude]\nlog-file = \"state/decisions.jsonl\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("state")).unwrap();
    let env = [("CLAUDE_PROJECT_DIR", project.as_os_str())];
    let run = hookc(&[OsStr::new("claude")], FORCE_PUSH, &env);
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{run:#?}"
    );
    let log = std::fs::read_to_string(dir.join("state/decisions.jsonl")).unwrap();
    let line: Value = serde_json::from_str(log.trim()).unwrap();
    assert_eq!(line["decision"], "deny");
}

/// `hookc doctor` warns when nothing in the policy keeps the agent from
/// writing it (the trace pack alone has no such rule); the guards pack does.
#[test]
fn doctor_warns_about_a_policy_the_agent_may_write() {
    let project = tmp_dir("doctor-guard");
    let init = hookc(
        &[
            OsStr::new("init"),
            OsStr::new("claude"),
            OsStr::new("--pack"),
            OsStr::new("trace"),
            OsStr::new("--project"),
            project.as_os_str(),
        ],
        "",
        &[],
    );
    assert_eq!(init.code, Some(0), "{init:#?}");
    let args = [
        OsStr::new("doctor"),
        OsStr::new("--project"),
        project.as_os_str(),
        OsStr::new("--format"),
        OsStr::new("json"),
    ];
    let run = hookc(&args, "", &[("HOME", project.as_os_str())]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        report["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("keeps the agent from writing `.hookc/`")),
        "{report}"
    );
    assert_eq!(report["policy"]["guarded"], false);
    // With the guards, no warning.
    let all = hookc(
        &[
            OsStr::new("init"),
            OsStr::new("claude"),
            OsStr::new("--pack"),
            OsStr::new("all"),
            OsStr::new("--project"),
            project.as_os_str(),
        ],
        "",
        &[],
    );
    assert_eq!(all.code, Some(0), "{all:#?}");
    let run = hookc(&args, "", &[("HOME", project.as_os_str())]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["warnings"], serde_json::json!([]), "{report}");
}

// ---------------------------------------------------------------- outputs

/// A value of the type an output takes, for the tests.
fn output_value(name: &str, ty: hookc::schema::FieldType) -> Value {
    use hookc::schema::FieldType;
    match ty {
        FieldType::Bool => json!(false),
        FieldType::List => json!([format!("/home/dev/{name}")]),
        FieldType::Any | FieldType::Object => json!({ "set-by": name }),
        _ => json!(format!("v-{name}")),
    }
}

/// Every output the `claude-code` schema declares, at every event, set by
/// a rule and answered by `hookc claude`: each value arrives where the
/// protocol reads it (top level, `hookSpecificOutput`, its `decision`, or
/// stdout alone for `WorktreeCreate`'s path).
#[test]
fn every_output_field_of_every_event_reaches_claude_code() {
    let schema = hookc::systems::builtin_schema("claude-code").unwrap();
    let mut rules = String::from("schema claude-code\n");
    let mut checked = 0;
    for point in &schema.points {
        if point.outputs.is_empty() {
            continue;
        }
        let id = point.name.to_lowercase();
        rules.push_str(&format!("\nhook out-{id} on {} {{\n", point.name));
        // `decision.*` goes along with a decision.
        if point.name == "PermissionRequest" {
            rules.push_str("    allow\n");
        }
        for out in &point.outputs {
            let value = output_value(&out.path, out.ty);
            rules.push_str(&format!("    output {} = {value}\n", out.path));
        }
        rules.push_str("}\n");
    }
    let dir = tmp_dir("every-output");
    std::fs::write(dir.join("outputs.hooks"), &rules).unwrap();
    for point in &schema.points {
        if point.outputs.is_empty() {
            continue;
        }
        let event = json!({
            "session_id": "s", "transcript_path": "/t", "cwd": "/home/dev",
            "hook_event_name": point.name, "tool_name": "Bash", "tool_input": {"command": "ls"},
        });
        let run = hookc(
            &[OsStr::new("claude"), OsStr::new("--rules"), dir.as_os_str()],
            &event.to_string(),
            &[],
        );
        assert_eq!(run.code, Some(0), "{}: {run:#?}", point.name);
        if point.name == "WorktreeCreate" {
            assert_eq!(run.stdout, "v-worktreePath\n", "{run:#?}");
            checked += 1;
            continue;
        }
        let answer = run.json();
        for out in &point.outputs {
            let want = output_value(&out.path, out.ty);
            let got = match out.path.as_str() {
                "continue" | "stopReason" | "systemMessage" | "terminalSequence" => {
                    &answer[&out.path]
                }
                name => match name.strip_prefix("decision.") {
                    Some(key) => &answer["hookSpecificOutput"]["decision"][key],
                    None => &answer["hookSpecificOutput"][name],
                },
            };
            assert_eq!(
                got, &want,
                "{} output `{}` in {answer}",
                point.name, out.path
            );
            checked += 1;
        }
        if answer.get("hookSpecificOutput").is_some() {
            assert_eq!(answer["hookSpecificOutput"]["hookEventName"], point.name);
        }
    }
    assert!(checked >= 60, "only {checked} outputs checked");
}

/// A command hook's reply keeps its event-specific fields: what Claude
/// Code would have read from the command reaches it through `hookc
/// claude`, merged with the rules' own answer.
#[test]
fn a_command_hooks_reply_keeps_its_event_specific_fields() {
    let dir = tmp_dir("reply-fields");
    std::fs::write(
        dir.join("start.hooks"),
        r#"schema claude-code

hook banner on SessionStart {
    sh "printf '%s' '{\"systemMessage\": \"welcome\", \"hookSpecificOutput\": {\"hookEventName\": \"SessionStart\", \"sessionTitle\": \"from-the-hook\", \"watchPaths\": [\"/home/dev/.env\"], \"additionalContext\": \"read CONTRIBUTING.md\"}}'"
    context "branch main"
}
"#,
    )
    .unwrap();
    let run = hookc(
        &[OsStr::new("claude"), OsStr::new("--rules"), dir.as_os_str()],
        &event_text("session_start_startup.json"),
        &[],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(
        run.json(),
        json!({
            "systemMessage": "welcome",
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": "read CONTRIBUTING.md\nbranch main",
                "sessionTitle": "from-the-hook",
                "watchPaths": ["/home/dev/.env"],
            }
        })
    );
    // `eval` and `explain` show the outputs too.
    let event = root().join(EVENTS).join("session_start_startup.json");
    for command in ["eval", "explain"] {
        let run = hookc(
            &[
                OsStr::new(command),
                dir.as_os_str(),
                OsStr::new("--event"),
                event.as_os_str(),
                OsStr::new("--format"),
                OsStr::new("human"),
            ],
            "",
            &[],
        );
        assert!(
            run.stdout
                .contains("output    sessionTitle = \"from-the-hook\"")
                && run.stdout.contains("output    systemMessage = \"welcome\""),
            "{command}: {run:#?}"
        );
    }
}

/// What an event cannot take is dropped with a note on stderr, never sent:
/// an output the outcome already set, a `decision.*` without a decision,
/// anything beside an exit-2 block.
#[test]
fn outputs_an_event_cannot_take_are_noted_not_sent() {
    let dir = tmp_dir("outputs-dropped");
    std::fs::write(
        dir.join("drop.hooks"),
        r#"schema claude-code

hook deny-and-defer on PreToolUse {
    output permissionDecision = "defer"
    deny "no"
}

hook bare on PermissionRequest {
    output decision.interrupt = true
}

hook red on TaskCompleted {
    output systemMessage = "fix them"
    abort "tests are red"
}
"#,
    )
    .unwrap();
    let claude_on = |event: Value| {
        hookc(
            &[OsStr::new("claude"), OsStr::new("--rules"), dir.as_os_str()],
            &event.to_string(),
            &[],
        )
    };
    let base = |name: &str| {
        json!({"session_id": "s", "transcript_path": "/t", "cwd": "/", "hook_event_name": name,
               "tool_name": "Bash", "tool_input": {"command": "ls"}, "task_id": "t"})
    };
    let pre = claude_on(base("PreToolUse"));
    assert_eq!(
        pre.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{pre:#?}"
    );
    assert!(
        pre.stderr
            .contains("`permissionDecision` is kept as the outcome set it"),
        "{pre:#?}"
    );
    let request = claude_on(base("PermissionRequest"));
    assert_eq!(request.stdout, "", "{request:#?}");
    assert!(
        request
            .stderr
            .contains("PermissionRequest sends `decision.interrupt` only with an allow or a deny"),
        "{request:#?}"
    );
    let task = claude_on(base("TaskCompleted"));
    assert_eq!(
        (task.code, task.stdout.as_str()),
        (Some(2), ""),
        "{task:#?}"
    );
    assert_eq!(task.stderr, "tests are red\n");
}

/// The shipped pack's owned scope is measured from the project, as the
/// hook names it: `CLAUDE_PROJECT_DIR`, else the event's `cwd`, read as
/// written (it need not exist here). A `src/` of another directory is
/// outside the scope, and so is every path when the project is unknown.
#[test]
fn the_shipped_scope_is_the_projects_own() {
    let write = |cwd: Option<&str>, file: &str| {
        let mut event = json!({
            "session_id": "s",
            "transcript_path": "/t",
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": file, "content": "x"},
        });
        if let Some(cwd) = cwd {
            event["cwd"] = json!(cwd);
        }
        event.to_string()
    };
    // The pack compiled once, not `--rules rules/claude-code`, which would
    // write its cache into the checkout.
    let decision = |stdin: &str, env: &[(&str, &OsStr)]| {
        let run = hookc(
            &[
                OsStr::new("claude"),
                OsStr::new("--table"),
                pack_table().as_os_str(),
            ],
            stdin,
            env,
        );
        assert_eq!(run.code, Some(0), "{run:#?}");
        match run.stdout.as_str() {
            "" => "none".to_owned(),
            _ => run.json()["hookSpecificOutput"]["permissionDecision"]
                .as_str()
                .unwrap()
                .to_owned(),
        }
    };
    let project = Some("/nowhere/acme-api");
    for (cwd, file, want) in [
        (project, "/nowhere/acme-api/src/a.ts", "none"),
        (project, "/nowhere/acme-api/packages/web/src/app.ts", "none"),
        (project, "/nowhere/acme-api/package.json", "deny"),
        (project, "/nowhere/other/src/a.ts", "deny"),
        (project, "/home/dev/.vscode/extensions/x/src/e.js", "deny"),
        (
            project,
            "/nowhere/acme-api/src/../../other/src/a.ts",
            "deny",
        ),
        (None, "/nowhere/acme-api/src/a.ts", "deny"),
    ] {
        assert_eq!(decision(&write(cwd, file), &[]), want, "{cwd:?} {file}");
    }
    // `CLAUDE_PROJECT_DIR` stays where the session started; the event's
    // `cwd` may have moved.
    let env = [("CLAUDE_PROJECT_DIR", OsStr::new("/nowhere/acme-api"))];
    let moved = write(Some("/nowhere/other"), "/nowhere/acme-api/src/a.ts");
    assert_eq!(decision(&moved, &env), "none");
    let moved = write(Some("/nowhere/acme-api"), "/nowhere/other/src/a.ts");
    assert_eq!(decision(&moved, &env), "deny");
}

/// `hookc eval` and `hookc explain` measure `relpath` from the project as
/// `hookc claude` names it (`CLAUDE_PROJECT_DIR`, else the event's
/// `cwd`), not from the directory they run in: a Claude Code event gets
/// the hook's answer wherever it is tried.
#[test]
fn eval_and_explain_measure_the_scope_as_the_hook_does() {
    let event = |file: &str| {
        json!({
            "session_id": "s",
            "transcript_path": "/t",
            "cwd": "/nowhere/acme-api",
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": file, "content": "x"},
        })
        .to_string()
    };
    let table = pack_table();
    let run = |command: &str, stdin: &str, env: &[(&str, &OsStr)]| {
        let mut args = vec![
            OsStr::new(command),
            OsStr::new("--table"),
            table.as_os_str(),
            OsStr::new("--event"),
            OsStr::new("-"),
        ];
        if command == "explain" {
            args.extend([OsStr::new("--format"), OsStr::new("json")]);
        }
        hookc(&args, stdin, env)
    };
    for (file, decision, code) in [
        ("/nowhere/acme-api/src/a.ts", Value::Null, 0),
        ("/nowhere/acme-api/package.json", json!("deny"), 1),
        ("/nowhere/other/src/a.ts", json!("deny"), 1),
    ] {
        let eval = run("eval", &event(file), &[]);
        assert_eq!(eval.code, Some(code), "{file}: {eval:#?}");
        let report: Value = serde_json::from_str(&eval.stdout).unwrap();
        assert_eq!(report["decision"], decision, "{file}");
        let explain = run("explain", &event(file), &[]);
        assert_eq!(explain.code, Some(0), "{file}: {explain:#?}");
        let explanation: Value = serde_json::from_str(&explain.stdout).unwrap();
        let fired = explanation["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "deny-writes-outside-scope" && r["status"] == "fired");
        assert_eq!(
            fired,
            decision == json!("deny"),
            "{file}: {}",
            explain.stdout
        );
    }
    // `CLAUDE_PROJECT_DIR` wins over the event's `cwd`, as in the hook.
    let env = [("CLAUDE_PROJECT_DIR", OsStr::new("/nowhere/other"))];
    let eval = run("eval", &event("/nowhere/other/src/a.ts"), &env);
    assert_eq!(eval.code, Some(0), "{eval:#?}");
}

/// `hookc claude` loads its table for one event: the command field's
/// literals are found by walking the text in place, and a command longer
/// than the walk's credit builds the packed search first. Either way the
/// pack's literal first lines decide as the corpus says (`.bash` in the
/// startup-file rule, the short `$` of the unset-variable rule).
#[test]
fn the_hook_finds_the_packs_literals_walked_or_packed() {
    let bash = |command: &str| {
        json!({
            "session_id": "s",
            "transcript_path": "/t",
            "cwd": "/nowhere/acme-api",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        })
        .to_string()
    };
    // Longer than the 20 anchors' credit of 2,600 bytes.
    let long = format!("echo {} && ", "x".repeat(3_000));
    for prefix in ["", long.as_str()] {
        for (command, decision) in [
            ("echo 'export X=1' >> ~/.bashrc", json!("ask")),
            ("rm -rf \"$STEAMROOT/\"*", json!("deny")),
            ("npm test", Value::Null),
        ] {
            let command = format!("{prefix}{command}");
            let run = claude_with(pack_table(), &[], &bash(&command));
            assert_eq!(run.code, Some(0), "{run:#?}");
            let answer = if run.stdout.trim().is_empty() {
                Value::Null
            } else {
                run.json()["hookSpecificOutput"]["permissionDecision"].clone()
            };
            assert_eq!(answer, decision, "{} bytes: {}", command.len(), run.stdout);
        }
    }
}

//! `hookc import` end to end: each source system's own configuration (the
//! fixtures under `tests/fixtures/import/`, shaped after the seeds'
//! examples) is imported, the generated rules are snapshotted, checked to
//! be in `hookc fmt`'s layout, compiled, and events are dispatched to see
//! the source system's behaviour on its own examples.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests fail loudly on bad fixtures"
)]

use crate::common;
use common::{hookc_in, Run};

use hookc::effects::{ExecConfig, WebhookConfig};
use hookc::ir::{Action, FailMode, Rule};
use hookc::span::SourceFile;
use hookc::systems::claude_code::import as claude_settings;
use hookc::systems::ironclaw::import as ironclaw;
use hookc::systems::mcp_router::import as mcp_router;
use hookc::{Effects, HookContext, OutcomeKind, Report, Table, Target};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(path: &str) -> String {
    let full = root().join("tests/fixtures/import").join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("import")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A run as the import snapshots show it. A trait, not an inherent method:
/// the `cli` tests give `Run` a `render` of their own, which redacts.
trait Rendered {
    /// Exit code, stdout and stderr in one reviewable text.
    fn render(&self) -> String;
}

impl Rendered for Run {
    fn render(&self) -> String {
        let code = self
            .code
            .map_or_else(|| "signal".to_string(), |c| c.to_string());
        format!(
            "exit: {code}\n----- stdout -----\n{}----- stderr -----\n{}",
            self.stdout, self.stderr
        )
    }
}

fn hookc<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    hookc_in(root(), args, None)
}

/// Generated text is what `hookc fmt` prints.
#[track_caller]
fn assert_canonical(text: &str) {
    let formatted = hookc::syntax::pretty::format_source(&SourceFile::new("generated.hooks", text))
        .unwrap_or_else(|e| panic!("the generated text does not parse: {e:?}\n{text}"));
    assert_eq!(formatted, text, "not in the canonical layout");
}

/// Effects that send no webhook (every post is dropped) and run commands
/// in `dir`.
fn quiet_effects(dir: &Path) -> Effects {
    let mut webhooks = WebhookConfig::default();
    webhooks.max_in_flight = 0;
    let mut exec = ExecConfig::default();
    exec.project_dir = Some(dir.to_path_buf());
    Effects::new().with_webhooks(webhooks).with_exec(exec)
}

fn dispatch(table: &Table, effects: &Effects, mut ctx: HookContext) -> Report {
    let point = ctx.hook_point.clone();
    let component = ctx.component_id.clone();
    let mut scratch = table.scratch();
    let outcome = table.dispatch_with(
        &mut scratch,
        point.as_str(),
        &Target::new(&component),
        &mut ctx,
        effects,
    );
    outcome.report(&ctx)
}

fn rule<'a>(table: &'a Table, point: &str, id: &str) -> &'a Rule {
    let program = table.program();
    let point = program
        .points
        .iter()
        .find(|p| p.name == point)
        .unwrap_or_else(|| panic!("no rules on `{point}`"));
    point
        .rules
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no rule `{id}` on `{}`", point.name))
}

// ---------------------------------------------------------------------------
// IronClaw
// ---------------------------------------------------------------------------

fn ironclaw_source() -> (String, hookc::diag::Diagnostics) {
    let mut bundles =
        ironclaw::Bundles::from_json("hooks/hooks.json", &fixture("ironclaw/hooks.json")).unwrap();
    bundles.merge(
        ironclaw::Bundles::from_json(
            "channels/slack.capabilities.json",
            &fixture("ironclaw/slack.capabilities.json"),
        )
        .unwrap(),
    );
    bundles.to_source()
}

/// The IronClaw rules compiled from a directory (the `ironclaw` schema is
/// built in: nothing else is needed beside them).
fn ironclaw_table() -> (Table, PathBuf) {
    let (text, diagnostics) = ironclaw_source();
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    let dir = tmp_dir("ironclaw-table");
    std::fs::write(dir.join("ironclaw.hooks"), &text).unwrap();
    let compiled = hookc::compile_paths(&[dir.join("ironclaw.hooks")], &hookc::Options::default())
        .unwrap_or_else(|d| panic!("{}", hookc::diag::render::human(&d, false)));
    assert!(
        compiled.warnings.is_empty(),
        "{}",
        hookc::diag::render::human(&compiled.warnings, false)
    );
    (compiled.table, dir)
}

fn ironclaw_event(point: &str, content: &str) -> HookContext {
    let payload = match point {
        "beforeToolCall" => json!({
            "content": content,
            "tool_name": "read_file",
            "parameters": serde_json::from_str::<Value>(content).unwrap(),
            "user_id": "user-1",
            "context": "chat",
        }),
        "transformResponse" => json!({
            "content": content, "response": content, "user_id": "user-1", "thread_id": "t-1",
        }),
        _ => json!({"content": content, "user_id": "user-1", "channel": "test"}),
    };
    HookContext::new(point, "ironclaw::agent", payload)
}

#[test]
fn ironclaw_bundles_import_to_canonical_rules() {
    let (text, diagnostics) = ironclaw_source();
    assert_canonical(&text);
    insta::assert_snapshot!("ironclaw_rules", text);
    let messages: Vec<String> = diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.severity, d.message))
        .collect();
    assert_eq!(
        messages,
        ["warning: hooks/hooks.json: outbound webhook `tool-audit`: `max_in_flight` 8 is not imported"]
    );
}

#[test]
fn ironclaw_rules_behave_as_in_ironclaw() {
    let (table, dir) = ironclaw_table();
    let effects = quiet_effects(&dir);
    let content = |r: &Report| r.context.payload["content"].as_str().unwrap().to_string();

    // block-forbidden (IronClaw's own test): the guard matches, the event
    // is rejected with the reason, and the earlier edit (high-prio) is gone.
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("beforeInbound", "this is forbidden"),
    );
    assert_eq!(r.outcome, OutcomeKind::Abort);
    assert_eq!(r.reason.as_deref(), Some("forbidden content"));
    assert_eq!(r.fired, ["high-prio", "block-forbidden"]);
    assert_eq!(content(&r), "this is forbidden");

    // IronClaw's priority test: "hello" -> "hello-HIGH" -> "hello-HIGH-LOW".
    let r = dispatch(&table, &effects, ironclaw_event("beforeInbound", "hello"));
    assert_eq!(r.outcome, OutcomeKind::Continue);
    assert_eq!(content(&r), "hello-HIGH-LOW");
    assert_eq!(
        r.fired,
        ["high-prio", "redact-secret", "low-prio", "log-events"]
    );

    // redact-secret (IronClaw's own test), chained with the appends.
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("beforeInbound", "contains secret here"),
    );
    assert_eq!(content(&r), "contains [redacted] here-HIGH-LOW");

    // A guard that does not match is a no-op.
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("beforeOutbound", "all clear"),
    );
    assert_eq!(content(&r), "all clear!");
    assert_eq!(r.fired, ["redact-keys", "append-bang"]);

    // Bundles chain across files: redact-keys (50), then the channel's
    // append-bang (100).
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("beforeOutbound", "key sk-abc123 here"),
    );
    assert_eq!(content(&r), "key [REDACTED] here!");

    // A tool call's content is its parameters as JSON text.
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("beforeToolCall", r#"{"path":"/etc/passwd"}"#),
    );
    assert_eq!(r.outcome, OutcomeKind::Abort);
    assert_eq!(r.reason.as_deref(), Some("tool calls may not touch /etc"));
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("beforeToolCall", r#"{"path":"/home/alice/notes.txt"}"#),
    );
    assert_eq!(r.outcome, OutcomeKind::Continue);
    assert_eq!(r.fired, ["tool-audit"]);

    // Replacements with group references, then prepend, then append; the
    // braces of `{agent}` stay literal.
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("transformResponse", "Answer: use key sk-XYZ"),
    );
    assert_eq!(content(&r), "[bot] use key [REDACTED]\n-- sent by {agent}");
}

/// IronClaw's host applies a hook's content edit before the next hook
/// runs (`apply_modification`): a tool call's content is parsed back into
/// its parameters, and the next hook sees them as compact JSON; content
/// that is not JSON, and any edit of a session event, is ignored. The
/// imported rules see the same.
#[test]
fn imported_ironclaw_hooks_see_edits_as_ironclaws_host_applies_them() {
    let bundle = r#"{"rules": [
        {"name": "dry-run", "points": ["beforeToolCall"], "priority": 10,
         "replacements": [{"pattern": "^\\{", "replacement": "{\"dry_run\": true, "}]},
        {"name": "no-dry-run-on-etc", "points": ["beforeToolCall"], "priority": 20,
         "when_regex": "^\\{\"dry_run\":true,\"path\":\"/etc/", "reject_reason": "no dry runs on /etc"},
        {"name": "bang", "points": ["beforeToolCall", "onSessionStart"], "priority": 30, "append": "!"},
        {"name": "saw-bang", "points": ["beforeToolCall", "onSessionStart"], "priority": 40,
         "when_regex": "!$", "reject_reason": "saw an edit IronClaw drops"}
    ]}"#;
    let (text, diagnostics) = ironclaw::Bundles::from_json("hooks/hooks.json", bundle)
        .unwrap()
        .to_source();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let table = hookc::compile_str("ironclaw.hooks", &text)
        .unwrap_or_else(|d| panic!("{}", hookc::diag::render::human(&d, false)))
        .table;
    let effects = quiet_effects(&tmp_dir("ironclaw-edits"));

    // The next hook sees `{"dry_run":true,…}`: the edit was parsed and
    // written back compact, as IronClaw's `serde_json::to_string` does.
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("beforeToolCall", r#"{"path":"/etc/passwd"}"#),
    );
    assert_eq!(r.outcome, OutcomeKind::Abort, "{r:#?}");
    assert_eq!(r.reason.as_deref(), Some("no dry runs on /etc"));

    // `!` makes the content invalid JSON: dropped, with a warning, and the
    // parameters keep the earlier edit.
    let r = dispatch(
        &table,
        &effects,
        ironclaw_event("beforeToolCall", r#"{"path":"/home/alice/notes.txt"}"#),
    );
    assert_eq!(r.outcome, OutcomeKind::Continue, "{r:#?}");
    assert_eq!(r.fired, ["dry-run", "bang"]);
    assert_eq!(
        r.context.payload["parameters"],
        json!({"dry_run": true, "path": "/home/alice/notes.txt"})
    );
    assert_eq!(
        r.context.payload["content"],
        r#"{"dry_run":true,"path":"/home/alice/notes.txt"}"#
    );
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0]
        .starts_with("rule `bang`: the edit of `payload.content` is dropped: it is not JSON"));

    // A session event's content is never edited.
    let r = dispatch(&table, &effects, ironclaw_event("onSessionStart", "s-1"));
    assert_eq!(r.outcome, OutcomeKind::Continue, "{r:#?}");
    assert_eq!(r.fired, ["bang"]);
    assert_eq!(r.context.payload["content"], "s-1");
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
}

#[test]
fn ironclaw_options_and_webhooks_are_carried() {
    let (table, _dir) = ironclaw_table();
    let no_etc = rule(&table, "beforeToolCall", "no-etc");
    assert_eq!(no_etc.fail, FailMode::Closed);
    assert_eq!(no_etc.timeout_ms, Some(1500));
    assert_eq!(no_etc.priority, 5);
    let redact = rule(&table, "beforeInbound", "redact-secret");
    assert_eq!(
        (redact.fail, redact.timeout_ms, redact.priority),
        (FailMode::Open, None, 100)
    );

    let log_events = rule(&table, "beforeInbound", "log-events");
    assert_eq!(log_events.priority, 300, "IronClaw's webhook default");
    assert_eq!(
        log_events.timeout_ms,
        Some(2000),
        "IronClaw's webhook default"
    );
    match log_events.actions.as_slice() {
        [Action::Webhook { url, headers, .. }] => {
            assert_eq!(url, "https://example.com/events");
            assert_eq!(headers, &[("X-Source".to_string(), "ironclaw".to_string())]);
        }
        other => panic!("{other:?}"),
    }
    let audit = rule(&table, "beforeToolCall", "tool-audit");
    assert_eq!((audit.priority, audit.timeout_ms), (20, Some(1000)));
    assert!(
        matches!(audit.actions.as_slice(), [Action::Webhook { url, .. }] if url == "https://hooks.example.com/audit")
    );

    // One rule on two points.
    rule(&table, "beforeOutbound", "redact-keys");
    rule(&table, "transformResponse", "redact-keys");
}

// ---------------------------------------------------------------------------
// Claude Code settings
// ---------------------------------------------------------------------------

fn claude_source() -> (String, hookc::diag::Diagnostics) {
    let mut settings = claude_settings::Settings::from_json(
        ".claude/settings.json",
        &fixture("claude/settings.json"),
    )
    .unwrap();
    settings.merge(
        claude_settings::Settings::from_json(
            ".claude/settings.local.json",
            &fixture("claude/settings.local.json"),
        )
        .unwrap(),
    );
    settings.to_source()
}

fn claude_table() -> Table {
    let (text, diagnostics) = claude_source();
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    let compiled = hookc::compile_str("claude.hooks", &text)
        .unwrap_or_else(|d| panic!("{}", hookc::diag::render::human(&d, false)));
    assert!(
        compiled.warnings.is_empty(),
        "{}",
        hookc::diag::render::human(&compiled.warnings, false)
    );
    compiled.table
}

/// A Claude Code event from the fixtures as a hook context: the point is
/// its name, the payload the event (as `hookc explain` and `hookc claude`
/// read them).
fn claude_event(name: &str) -> HookContext {
    let event: Value =
        serde_json::from_str(&fixture(&format!("claude/events/{name}.json"))).unwrap();
    let point = event["hook_event_name"].as_str().unwrap().to_string();
    let component = match event["tool_name"].as_str() {
        Some(tool) => format!("claude-code::{tool}"),
        None => "claude-code::session".to_string(),
    };
    HookContext::new(point, component, event)
}

#[test]
fn claude_settings_import_to_canonical_rules() {
    let (text, diagnostics) = claude_source();
    assert_canonical(&text);
    insta::assert_snapshot!("claude_settings_rules", text);
    let messages: Vec<String> = diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.severity, d.message))
        .collect();
    insta::assert_snapshot!("claude_settings_diagnostics", messages.join("\n"));
}

#[test]
fn claude_matchers_select_the_hooks_claude_code_runs() {
    let table = claude_table();
    let dir = tmp_dir("claude-matchers");
    let effects = quiet_effects(&dir);
    // For each event: the handlers Claude Code runs for it (§3: exact
    // names, `|` lists, unanchored regexes, `*`; events without matchers).
    let cases: &[(&str, &[&str])] = &[
        (
            "pre_tool_use_bash_npm_test",
            &["pre-tool-use-1", "pre-tool-use-4"],
        ),
        (
            "pre_tool_use_edit_src",
            &["pre-tool-use-2", "pre-tool-use-4"],
        ),
        (
            "pre_tool_use_mcp_github_create_issue",
            &["pre-tool-use-3", "pre-tool-use-4"],
        ),
        ("pre_tool_use_read_env", &["pre-tool-use-4"]),
        ("post_tool_use_write_src", &["post-tool-use-1"]),
        ("user_prompt_submit_plain", &["user-prompt-submit-1"]),
        ("stop_first_attempt", &["stop-1"]),
        ("session_start_startup", &["session-start-1"]),
        ("session_start_resume", &[]),
        ("notification_permission_prompt", &["notification-1"]),
    ];
    for (event, expected) in cases {
        let report = dispatch(&table, &effects, claude_event(event));
        assert_eq!(report.fired, *expected, "{event}: {report:#?}");
    }
}

#[test]
fn claude_timeouts_and_handler_forms_are_carried() {
    let table = claude_table();
    let timeout = |point: &str, id: &str| rule(&table, point, id).timeout_ms;
    assert_eq!(timeout("PreToolUse", "pre-tool-use-1"), Some(10_000));
    assert_eq!(
        timeout("PreToolUse", "pre-tool-use-2"),
        Some(600_000),
        "Claude Code's default"
    );
    assert_eq!(
        timeout("UserPromptSubmit", "user-prompt-submit-1"),
        Some(5_000)
    );
    assert_eq!(
        timeout("SessionEnd", "session-end-1"),
        Some(1_500),
        "SessionEnd's budget"
    );
    assert_eq!(timeout("Notification", "notification-1"), Some(600_000));

    let actions = |point: &str, id: &str| rule(&table, point, id).actions.clone();
    // Shell form: `sh`; exec form: `exec` with the arguments; bash: `bash -c`.
    assert!(matches!(&actions("PreToolUse", "pre-tool-use-1")[..],
        [Action::Exec { shell: true, program, .. }] if program.starts_with("if grep -q 'rm -rf'")));
    match &actions("PreToolUse", "pre-tool-use-2")[..] {
        [Action::Exec {
            program,
            args,
            shell: false,
            ..
        }] => {
            assert_eq!(
                program, "./.claude/hooks/check-path",
                "the project directory is `.`"
            );
            assert_eq!(args, &["--allow", "src/", "--allow", "tests/"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&actions("Stop", "stop-1")[..],
        [Action::Exec { program, args, shell: false, .. }] if program == "bash" && args == &["-c", "./.claude/hooks/before-stop"]));
    assert!(matches!(&actions("SessionEnd", "session-end-1")[..],
        [Action::Exec { program, args, shell: false, .. }] if program == "./.claude/hooks/save-notes" && args == &["--quick"]));
}

#[test]
fn claude_command_hooks_block_with_exit_2() {
    let table = claude_table();
    let dir = tmp_dir("claude-exec");
    let effects = quiet_effects(&dir);
    let blocked = dispatch(&table, &effects, claude_event("pre_tool_use_bash_rm"));
    let allowed = dispatch(&table, &effects, claude_event("pre_tool_use_bash_npm_test"));
    // Exit 2 blocks with stderr as the reason; the chain stops there.
    assert_eq!(blocked.outcome, OutcomeKind::Abort, "{blocked:#?}");
    assert_eq!(
        blocked.reason.as_deref().map(str::trim),
        Some("rm -rf is blocked by policy")
    );
    assert_eq!(blocked.fired, ["pre-tool-use-1"]);
    // Exit 0 with no output goes on; the missing log script (exit 127) is
    // a non-blocking warning, as in Claude Code.
    assert_eq!(allowed.outcome, OutcomeKind::Continue, "{allowed:#?}");
    assert!(
        allowed
            .warnings
            .iter()
            .any(|w| w.contains("pre-tool-use-4")),
        "{allowed:#?}"
    );
}

// ---------------------------------------------------------------------------
// MCP Router
// ---------------------------------------------------------------------------

fn mcp_conversion() -> mcp_router::Conversion {
    mcp_router::Hooks::from_json("mcp-hooks.json", &fixture("mcp-router/hooks.json"))
        .unwrap()
        .to_source("rules/mcp-router")
}

#[test]
fn mcp_router_hooks_import_to_canonical_rules() {
    let conversion = mcp_conversion();
    assert!(
        conversion.diagnostics.is_empty(),
        "{:?}",
        conversion.diagnostics
    );
    assert_canonical(&conversion.text);
    insta::assert_snapshot!("mcp_router_rules", conversion.text);
    let paths: Vec<&str> = conversion.scripts.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "rules/mcp-router/block-file-deletion.mjs",
            "rules/mcp-router/limit-search-results.mjs",
            "rules/mcp-router/hide-internal-tools.mjs",
            "rules/mcp-router/log-responses.mjs",
            "rules/mcp-router/production-servers-only-in-office-hours.mjs",
        ]
    );
    insta::assert_snapshot!("mcp_router_runner", conversion.scripts[0].text);
}

#[test]
fn mcp_router_order_type_and_enabled_are_carried() {
    let conversion = mcp_conversion();
    let table = hookc::compile_str("mcp.hooks", &conversion.text)
        .unwrap_or_else(|d| panic!("{}", hookc::diag::render::human(&d, false)))
        .table;
    let program = table.program();
    let order = |point: &str| -> Vec<(String, i32, bool)> {
        program
            .points
            .iter()
            .find(|p| p.name == point)
            .unwrap()
            .rules
            .iter()
            .map(|r| (r.id.clone(), r.priority, r.enabled))
            .collect()
    };
    // executionOrder ascending; `both` on both points; enabled=false kept
    // but off.
    assert_eq!(
        order("request.pre_dispatch"),
        [
            ("log-responses".to_string(), 0, false),
            ("block-file-deletion".to_string(), 1, true),
            ("limit-search-results".to_string(), 2, true),
            (
                "production-servers-only-in-office-hours".to_string(),
                5,
                true
            ),
        ]
    );
    assert_eq!(
        order("request.post_dispatch"),
        [
            ("log-responses".to_string(), 0, false),
            ("hide-internal-tools".to_string(), 10, true),
        ]
    );
    let block = rule(&table, "request.pre_dispatch", "block-file-deletion");
    assert_eq!((block.fail, block.timeout_ms), (FailMode::Open, Some(5000)));
    assert!(matches!(&block.actions[..],
        [Action::Exec { program, args, shell: false, .. }] if program == "node" && args == &["rules/mcp-router/block-file-deletion.mjs"]));
}

/// True when `node` runs. The MCP Router runners need Node.js; a machine
/// without it skips their tests with a message, unless `HOOKC_REQUIRE_NODE`
/// is set (as `.ci/run` does), where a missing `node` fails them.
fn node_available() -> bool {
    let ok = std::process::Command::new("node")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("HOOKC_REQUIRE_NODE").is_none(),
            "`node` does not run, and HOOKC_REQUIRE_NODE is set"
        );
        eprintln!("no `node` on PATH: the MCP Router runners are not run");
    }
    ok
}

/// Runs a generated runner with `node`, the event on stdin, as `exec` does.
fn node(script: &Path, event: &Value) -> Option<(i32, String, String)> {
    use std::io::Write;
    let mut child = std::process::Command::new("node")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    ))
}

#[test]
fn mcp_router_scripts_behave_as_in_mcp_router() {
    let dir = tmp_dir("mcp-runners");
    let conversion = mcp_router::Hooks::from_json("hooks.json", &fixture("mcp-router/hooks.json"))
        .unwrap()
        .to_source(&dir.to_string_lossy());
    for script in &conversion.scripts {
        std::fs::write(&script.path, &script.text).unwrap();
    }
    let event = |point: &str, payload: Value| json!({"hook_point": point, "component_id": "mcp::files", "payload": payload});
    if !node_available() {
        return;
    }
    let blocked = node(
        &dir.join("block-file-deletion.mjs"),
        &event(
            "request.pre_dispatch",
            json!({"request": {"method": "tools/call", "params": {"name": "delete_file", "arguments": {"path": "a.txt"}}}}),
        ),
    )
    .unwrap();
    // {continue: false, error} -> exit 2, `code: message` on stderr.
    assert_eq!(
        blocked,
        (
            2,
            String::new(),
            "FORBIDDEN: deleting files is not allowed".to_string()
        )
    );

    // A returned context is the new payload.
    let search =
        json!({"request": {"method": "tools/call", "params": {"name": "search", "query": "q"}}});
    let (code, stdout, _) = node(
        &dir.join("limit-search-results.mjs"),
        &event("request.pre_dispatch", search),
    )
    .unwrap();
    assert_eq!(code, 0);
    let reply: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        reply,
        json!({"context": {"payload": {"request": {"method": "tools/call", "params": {"name": "search", "query": "q", "maxResults": 10, "language": "ja"}}}}})
    );

    // A post hook edits the response.
    let list = json!({
        "request": {"method": "tools/list", "params": {}},
        "response": {"tools": [{"name": "read"}, {"name": "internal_debug"}]},
    });
    let (code, stdout, _) = node(
        &dir.join("hide-internal-tools.mjs"),
        &event("request.post_dispatch", list),
    )
    .unwrap();
    assert_eq!(code, 0);
    let reply: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        reply["context"]["payload"]["response"]["tools"],
        json!([{"name": "read"}])
    );

    // Nothing to say: exit 0, no output.
    let other = json!({"request": {"method": "tools/call", "params": {"name": "read"}}});
    let quiet = node(
        &dir.join("block-file-deletion.mjs"),
        &event("request.pre_dispatch", other),
    )
    .unwrap();
    assert_eq!(quiet, (0, String::new(), String::new()));

    // A script error is logged and the flow goes on (exit 1: a warning).
    let (code, _, stderr) = node(
        &dir.join("hide-internal-tools.mjs"),
        &event("request.post_dispatch", json!({})),
    )
    .unwrap();
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("hook \"Hide internal tools\" failed: "),
        "{stderr}"
    );
}

#[test]
fn mcp_router_rules_run_the_scripts() {
    if !node_available() {
        return;
    }
    let dir = tmp_dir("mcp-dispatch");
    // Scripts are named relative to the project directory: here `dir`.
    let conversion = mcp_router::Hooks::from_json("hooks.json", &fixture("mcp-router/hooks.json"))
        .unwrap()
        .to_source("mcp-router");
    std::fs::create_dir_all(dir.join("mcp-router")).unwrap();
    for script in &conversion.scripts {
        std::fs::write(dir.join(&script.path), &script.text).unwrap();
    }
    let table = hookc::compile_str("mcp.hooks", &conversion.text)
        .unwrap()
        .table;
    let effects = quiet_effects(&dir);
    let ctx = HookContext::new(
        "request.pre_dispatch",
        "mcp::files",
        json!({"request": {"method": "tools/call", "params": {"name": "delete_file"}}}),
    );
    let report = dispatch(&table, &effects, ctx);
    assert_eq!(report.outcome, OutcomeKind::Abort, "{report:#?}");
    assert_eq!(
        report.reason.as_deref(),
        Some("FORBIDDEN: deleting files is not allowed")
    );
    assert_eq!(report.fired, ["block-file-deletion"]);

    // A returned context is the payload the next rule (and the host) sees.
    let ctx = HookContext::new(
        "request.pre_dispatch",
        "mcp::search",
        json!({"request": {"method": "tools/call", "params": {"name": "search", "query": "q"}}}),
    );
    let report = dispatch(&table, &effects, ctx);
    assert_eq!(report.outcome, OutcomeKind::Continue, "{report:#?}");
    assert_eq!(
        report.context.payload["request"]["params"],
        json!({"name": "search", "query": "q", "maxResults": 10, "language": "ja"})
    );
    assert!(report.warnings.is_empty(), "{report:#?}");

    // A post hook edits the response.
    let ctx = HookContext::new(
        "request.post_dispatch",
        "mcp::files",
        json!({
            "request": {"method": "tools/list", "params": {}},
            "response": {"tools": [{"name": "read"}, {"name": "internal_debug"}]},
        }),
    );
    let report = dispatch(&table, &effects, ctx);
    assert_eq!(report.fired, ["hide-internal-tools"]);
    assert_eq!(
        report.context.payload["response"]["tools"],
        json!([{"name": "read"}])
    );

    // A script error is a warning and the flow goes on (fail open).
    let ctx = HookContext::new("request.post_dispatch", "mcp::files", json!({}));
    let report = dispatch(&table, &effects, ctx);
    assert_eq!(report.outcome, OutcomeKind::Continue, "{report:#?}");
    assert_eq!(report.warnings.len(), 1, "{report:#?}");
    assert!(
        report.warnings[0].contains("hide-internal-tools"),
        "{report:#?}"
    );
}

// ---------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------

const FIXTURES: &str = "tests/fixtures/import";

#[test]
fn cli_prints_each_format() {
    let runs = [
        (
            "cli_orcs",
            hookc(&[
                "import",
                "orcs",
                &format!("{FIXTURES}/orcs/orcs.toml"),
                &format!("{FIXTURES}/orcs/project.toml"),
            ]),
        ),
        (
            "cli_ironclaw",
            hookc(&[
                "import",
                "ironclaw",
                &format!("{FIXTURES}/ironclaw/hooks.json"),
                &format!("{FIXTURES}/ironclaw/slack.capabilities.json"),
            ]),
        ),
        (
            "cli_claude_settings",
            hookc(&[
                "import",
                "claude-settings",
                &format!("{FIXTURES}/claude/settings.json"),
                &format!("{FIXTURES}/claude/settings.local.json"),
            ]),
        ),
        (
            "cli_mcp_router",
            hookc(&[
                "import",
                "mcp-router",
                &format!("{FIXTURES}/mcp-router/hooks.json"),
            ]),
        ),
    ];
    for (name, run) in runs {
        assert_eq!(run.code, Some(0), "{name}:\n{}", run.render());
        assert_canonical(&run.stdout);
        insta::assert_snapshot!(name, run.render());
    }
}

#[test]
fn cli_writes_the_rules_and_the_files_they_need() {
    let dir = tmp_dir("cli-output");
    for file in [
        "ironclaw/hooks.json",
        "mcp-router/hooks.json",
        "claude/settings.json",
        "orcs/orcs.toml",
    ] {
        std::fs::copy(
            root().join(FIXTURES).join(file),
            dir.join(file.replace('/', "-")),
        )
        .unwrap();
    }
    // `rules/` does not exist yet: the first import makes it.
    let run = |args: &[&str]| hookc_in(&dir, args, None);

    let r = run(&[
        "import",
        "ironclaw",
        "ironclaw-hooks.json",
        "-o",
        "rules/ironclaw.hooks",
    ]);
    insta::assert_snapshot!("cli_output_ironclaw", r.render());
    // Only the rules are written: the schema is built in.
    assert_eq!(
        std::fs::read_dir(dir.join("rules")).unwrap().count(),
        1,
        "rules/ holds only ironclaw.hooks"
    );
    let r = run(&[
        "import",
        "mcp-router",
        "mcp-router-hooks.json",
        "-o",
        "rules/mcp.hooks",
    ]);
    insta::assert_snapshot!("cli_output_mcp_router", r.render());
    assert!(dir
        .join("rules/mcp-router/block-file-deletion.mjs")
        .is_file());
    let r = run(&[
        "import",
        "claude-settings",
        "claude-settings.json",
        "-o",
        "rules/claude.hooks",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.render());
    let r = run(&["import", "orcs", "orcs-orcs.toml", "-o", "rules/orcs.hooks"]);
    assert_eq!(r.code, Some(0), "{}", r.render());

    // What was written is formatted and lints clean, each file with its
    // own schema (so one lint run each).
    let r = run(&["fmt", "--check", "rules/"]);
    assert_eq!(r.code, Some(0), "{}", r.render());
    for file in ["ironclaw", "mcp", "claude", "orcs"] {
        let r = run(&["lint", &format!("rules/{file}.hooks")]);
        assert_eq!(r.code, Some(0), "{file}:\n{}", r.render());
    }
    // The IronClaw rules run with `hookc eval`.
    let r = hookc_in(
        &dir,
        &[
            "eval",
            "rules/ironclaw.hooks",
            "--event",
            "-",
            "--format",
            "human",
        ],
        Some(
            r#"{"hook_point": "beforeInbound", "component_id": "ironclaw::agent", "payload": {"content": "this is forbidden", "user_id": "u", "channel": "c"}}"#,
        ),
    );
    assert_eq!(r.code, Some(1), "{}", r.render());
    assert!(
        r.stdout.contains("reason    forbidden content"),
        "{}",
        r.render()
    );
}

/// `--format json`: what was imported, as data (the rules, the files
/// written, what was left out, the diagnostics), and nothing else on
/// stdout.
#[test]
fn cli_json_says_what_was_imported() {
    let r = hookc(&[
        "import",
        "claude-settings",
        &format!("{FIXTURES}/claude/settings.json"),
        &format!("{FIXTURES}/claude/settings.local.json"),
        "--format",
        "json",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.render());
    assert_eq!(r.stderr, "", "the warnings are in the document");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["from"], "claude-settings");
    assert_eq!(v["ok"], true);
    assert_eq!(v["output"], serde_json::Value::Null);
    assert_eq!(
        v["inputs"][1],
        format!("{FIXTURES}/claude/settings.local.json")
    );
    let rules = v["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 10, "{rules:#?}");
    assert_eq!(rules[0]["id"], "pre-tool-use-1");
    assert_eq!(rules[0]["points"], serde_json::json!(["PreToolUse"]));
    assert_eq!(rules[0]["line"], 5);
    let text = v["text"].as_str().unwrap();
    assert!(text.contains("hook pre-tool-use-1 on PreToolUse"), "{text}");
    // The same text as the human output prints.
    let human = hookc(&[
        "import",
        "claude-settings",
        &format!("{FIXTURES}/claude/settings.json"),
        &format!("{FIXTURES}/claude/settings.local.json"),
    ]);
    assert_eq!(human.stdout, text);
    let left_out: Vec<&str> = v["not_imported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert!(
        left_out
            .iter()
            .any(|m| m.ends_with("`async` is not imported")),
        "{left_out:#?}"
    );
    assert!(
        left_out
            .iter()
            .any(|m| m.contains("an `http` handler is not imported")),
        "{left_out:#?}"
    );
    assert_eq!(
        v["diagnostics"]["warnings"].as_u64().unwrap() as usize,
        left_out.len()
    );
    assert_eq!(v["files"], serde_json::json!([]));

    // With `-o`: the files written, the companions included.
    let dir = tmp_dir("cli-json");
    std::fs::copy(
        root().join(FIXTURES).join("mcp-router/hooks.json"),
        dir.join("hooks.json"),
    )
    .unwrap();
    let r = hookc_in(
        &dir,
        &[
            "import",
            "mcp-router",
            "hooks.json",
            "-o",
            "rules/mcp.hooks",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(r.code, Some(0), "{}", r.render());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["output"], "rules/mcp.hooks");
    let files = v["files"].as_array().unwrap();
    assert_eq!(
        files[0],
        serde_json::json!({"path": "rules/mcp.hooks", "kind": "rules", "written": true})
    );
    assert!(
        files.iter().any(|f| f["kind"] == "companion"
            && f["path"] == "rules/mcp-router/block-file-deletion.mjs"
            && f["written"] == true),
        "{files:#?}"
    );
    for f in files {
        assert!(dir.join(f["path"].as_str().unwrap()).is_file(), "{f}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("rules/mcp.hooks")).unwrap(),
        v["text"].as_str().unwrap()
    );

    // Input that does not convert: `ok` false, the errors, exit 1.
    std::fs::write(dir.join("bad.json"), "{not json").unwrap();
    let r = hookc_in(
        &dir,
        &["import", "mcp-router", "bad.json", "--format", "json"],
        None,
    );
    assert_eq!(r.code, Some(1), "{}", r.render());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["text"], serde_json::Value::Null);
    assert_eq!(v["rules"], serde_json::json!([]));
    assert_eq!(v["diagnostics"]["errors"], 1);
    assert!(
        v["diagnostics"]["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("is not valid JSON"),
        "{v:#}"
    );
}

/// IronClaw's own cases: a later hook of a name replaces the earlier one
/// (its registry test), a redundant `Content-Type` header, and a tool's
/// `capabilities.json` without hooks next to a bundle: the import goes on,
/// with warnings, and the rules run as IronClaw runs the bundle.
#[test]
fn cli_imports_ironclaws_own_cases() {
    let dir = tmp_dir("cli-cases");
    for file in ["cases.hook.json", "github.capabilities.json"] {
        std::fs::copy(
            root().join(FIXTURES).join("ironclaw").join(file),
            dir.join(file),
        )
        .unwrap();
    }
    let run = |args: &[&str], stdin: Option<&str>| hookc_in(&dir, args, stdin);
    let r = run(
        &[
            "import",
            "ironclaw",
            "github.capabilities.json",
            "cases.hook.json",
        ],
        None,
    );
    assert_eq!(r.code, Some(0), "{}", r.render());
    insta::assert_snapshot!("cli_ironclaw_cases", r.render());

    let r = run(
        &[
            "import",
            "ironclaw",
            "github.capabilities.json",
            "cases.hook.json",
            "-o",
            "ironclaw.hooks",
        ],
        None,
    );
    assert_eq!(r.code, Some(0), "{}", r.render());
    let r = run(&["lint", "ironclaw.hooks"], None);
    assert_eq!(r.code, Some(0), "{}", r.render());
    // "hello" -> "hello-B": only the later `dup` runs.
    let r = run(
        &["eval", "ironclaw.hooks", "--event", "-"],
        Some(
            r#"{"hook_point": "beforeInbound", "component_id": "ironclaw::agent", "payload": {"content": "hello", "user_id": "u", "channel": "c"}}"#,
        ),
    );
    assert_eq!(r.code, Some(0), "{}", r.render());
    let outcome: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(outcome["context"]["payload"]["content"], "hello-B");
    assert_eq!(outcome["fired"], json!(["dup"]));
}

#[test]
fn cli_errors() {
    let dir = tmp_dir("cli-errors");
    std::fs::write(dir.join("bad.json"), "{\"rules\": [").unwrap();
    std::fs::write(
        dir.join("refused.json"),
        r#"[{"name": "x", "points": ["beforeInbound"], "when_regex": "(", "reject_reason": "no"}]"#,
    )
    .unwrap();
    let run = |args: &[&str]| hookc_in(&dir, args, None);
    // Invalid input: exit 1, the rules are neither printed nor written.
    let r = run(&["import", "ironclaw", "bad.json", "-o", "out.hooks"]);
    insta::assert_snapshot!("cli_invalid_json", r.render());
    assert!(!dir.join("out.hooks").exists());
    let r = run(&["import", "ironclaw", "refused.json"]);
    insta::assert_snapshot!("cli_refused_entry", r.render());
    // Unreadable: exit 2.
    let r = run(&["import", "claude-settings", "missing.json"]);
    insta::assert_snapshot!("cli_missing_file", r.render());
    // An unknown format is a usage error.
    let r = run(&["import", "yaml", "bad.json"]);
    assert_eq!(r.code, Some(2), "{}", r.render());
    assert!(
        r.stderr
            .contains("[possible values: orcs, ironclaw, claude-settings, mcp-router]"),
        "{}",
        r.stderr
    );
}

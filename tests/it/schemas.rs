//! Schemas: the built-in `claude-code` catalog, custom TOML schemas, and the
//! checks the checker makes with them (unknown fields, edit types, actions a
//! point cannot take).

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "tests fail loudly on purpose"
)]

use crate::common;

use hookc::diag::{Diagnostic, Diagnostics, Severity};
use hookc::schema::PointKind;
use hookc::{HookContext, Target};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/schemas")
        .join(name)
}

/// Every diagnostic of a compilation, errors or not.
fn diagnostics(text: &str) -> Diagnostics {
    match hookc::compile_str("t.hooks", text) {
        Ok(compiled) => compiled.warnings,
        Err(d) => d,
    }
}

/// The one diagnostic with `code`, and its `line:col`.
#[track_caller]
fn one(text: &str, code: &str) -> (Diagnostic, (u32, u32)) {
    let all = diagnostics(text);
    let found: Vec<_> = all.iter().filter(|d| d.code == code).collect();
    assert_eq!(found.len(), 1, "expected one `{code}` in:\n{all}");
    let d = found[0].clone();
    let (_, line, col) = d.location().unwrap();
    (d, (line, col))
}

// ------------------------------------------------------------ claude-code

#[test]
fn every_claude_code_fixture_event_is_a_point() {
    let schema = hookc::systems::builtin_schema("claude-code").unwrap();
    let mut dirs = vec![fixture("claude-code-events")];
    // The shared fixtures, when this crate sits in its workspace.
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/claude-code/fixtures");
    if shared.is_dir() {
        dirs.push(shared);
    }
    let mut seen = 0;
    for dir in dirs {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let event: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = event["hook_event_name"].as_str().unwrap();
            let point = schema
                .point(name)
                .unwrap_or_else(|| panic!("{}: no point `{name}`", path.display()));
            // Every field the event has at the top level is declared.
            for key in event.as_object().unwrap().keys() {
                assert!(
                    point.payload.iter().any(|f| f.path == *key),
                    "{}: `{name}` does not declare `{key}`",
                    path.display()
                );
            }
            seen += 1;
        }
    }
    assert!(seen >= 30, "only {seen} fixtures");
}

#[test]
fn claude_code_points_kinds_and_blocking() {
    let schema = hookc::systems::builtin_schema("claude-code").unwrap();
    let point = |name: &str| schema.point(name).unwrap();
    assert_eq!(point("PreToolUse").kind, PointKind::Pre);
    assert!(point("PreToolUse").blocking);
    assert_eq!(point("PostToolUse").kind, PointKind::Post);
    assert!(
        point("PostToolUse").blocking,
        "a PostToolUse block is honoured"
    );
    assert!(point("UserPromptSubmit").blocking);
    assert!(point("Stop").blocking);
    for passive in [
        "SessionStart",
        "SessionEnd",
        "Notification",
        "PermissionDenied",
        "PostCompact",
        "StopFailure",
        "InstructionsLoaded",
    ] {
        assert!(!point(passive).blocking, "{passive}");
    }
    assert!(hookc::systems::BUILTIN_SCHEMAS.contains(&"claude-code"));
}

#[test]
fn a_claude_code_rule_on_the_tool_command_compiles_and_dispatches() {
    let compiled = hookc::compile_paths(&[fixture("claude.hooks")], &hookc::Options::default())
        .unwrap_or_else(|d| panic!("{d}"));
    assert!(compiled.warnings.is_empty(), "{}", compiled.warnings);
    let table = compiled.table;
    assert_eq!(table.program().schema, "claude-code");
    let event: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("claude-code-events/pre_tool_use_bash_rm.json")).unwrap(),
    )
    .unwrap();
    let mut ctx = HookContext::new("PreToolUse", "claude-code::Bash", event);
    let mut scratch = table.scratch();
    let outcome = table.dispatch(
        &mut scratch,
        "PreToolUse",
        &Target::new("claude-code::Bash"),
        &mut ctx,
    );
    assert!(outcome.is_abort());
    assert_eq!(
        outcome.reason(),
        Some("blocked destructive command: rm -rf ./build /tmp/acme-cache")
    );
}

#[test]
fn unknown_claude_code_point_suggests_the_event() {
    let (d, at) = one(
        "schema claude-code\nhook a on PreToolUs { continue }",
        "unknown-point",
    );
    assert_eq!(d.help.as_deref(), Some("did you mean `PreToolUse`?"));
    assert_eq!(at, (2, 11));
}

// ---------------------------------------------------------- unknown fields

#[test]
fn unknown_payload_field_is_a_warning_with_a_suggestion() {
    let (d, at) = one(
        "schema claude-code\nhook a on PreToolUse {\n    when payload.tool_nme == \"Bash\"\n    deny\n}",
        "unknown-field",
    );
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.message, "unknown field `payload.tool_nme`");
    assert_eq!(d.help.as_deref(), Some("did you mean `payload.tool_name`?"));
    assert_eq!(at, (3, 10));

    // Nested: the misspelt part is swapped, the rest kept.
    let (d, _) = one(
        "schema claude-code\nhook a on PostToolUse { when payload.tool_inptu.command exists continue }",
        "unknown-field",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("did you mean `payload.tool_input.command`?")
    );

    // In a template hole too.
    let (d, _) = one(
        "schema claude-code\nhook a on UserPromptSubmit { context \"{payload.promt}\" }",
        "unknown-field",
    );
    assert_eq!(d.help.as_deref(), Some("did you mean `payload.prompt`?"));
}

#[test]
fn open_objects_accept_any_field() {
    // MCP tools have their own arguments; `tool_response` is `any`.
    let found = diagnostics(
        "schema claude-code\nhook a on PostToolUse {\n    when payload.tool_input.owner == \"acme\" and payload.tool_response.anything exists\n    continue\n}",
    );
    assert!(found.is_empty(), "{found}");
}

#[test]
fn a_field_known_at_one_point_only_warns_for_the_other() {
    let (d, _) = one(
        "schema claude-code\nhook a on PreToolUse, PostToolUse { when payload.tool_response exists continue }",
        "unknown-field",
    );
    assert_eq!(
        d.labels[0].message,
        "not declared at `PreToolUse` by the `claude-code` schema"
    );
}

#[test]
fn unknown_roots_stay_errors() {
    let (d, _) = one(
        "schema claude-code\nhook a on PreToolUse { when paylod.tool_name == \"x\" continue }",
        "unknown-field",
    );
    assert_eq!(d.severity, Severity::Error);
}

#[test]
fn a_macro_used_twice_warns_once() {
    let found = diagnostics(
        "macro m = payload.tol == \"x\"\nhook a on tool.pre_execute { when m continue }\nhook b on tool.pre_execute { when m continue }",
    );
    assert_eq!(
        found.iter().filter(|d| d.code == "unknown-field").count(),
        1,
        "{found}"
    );
}

// -------------------------------------------------------------- edit types

#[test]
fn set_with_a_value_of_another_type_is_an_error() {
    let (d, at) = one(
        "schema claude-code\nhook a on PreToolUse {\n    set payload.tool_input.timeout = \"long\"\n}",
        "type-mismatch",
    );
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(
        d.message,
        "cannot set `payload.tool_input.timeout` to a string: it is an int"
    );
    assert_eq!(
        d.help.as_deref(),
        Some(
            "the `claude-code` schema types `payload.tool_input.timeout` as `int` at `PreToolUse`"
        )
    );
    assert_eq!(at, (3, 38));

    // ORCS too; an int fits a float, an optional field takes null.
    one(
        "hook a on child.pre_spawn { set payload.capabilities = \"all\" }",
        "type-mismatch",
    );
    let found = diagnostics(
        "schema claude-code\nhook a on PreToolUse { set payload.tool_input.timeout = null }\nhook b on PostModelSwitch { set payload.estimated_cache_write_usd = 3 }",
    );
    assert!(!found.has_errors(), "{found}");
    // A required field does not.
    let (d, _) = one(
        "schema claude-code\nhook a on PreToolUse { set payload.tool_name = null }",
        "type-mismatch",
    );
    assert!(d.help.unwrap().contains("cannot be null"));
}

#[test]
fn string_edits_of_other_types_are_errors() {
    let (d, _) = one(
        "schema claude-code\nhook a on PreToolUse { append payload.tool_input.timeout \"0\" }",
        "type-mismatch",
    );
    assert_eq!(
        d.message,
        "`append` edits strings, `payload.tool_input.timeout` is an int"
    );
    one(
        "hook a on child.pre_spawn { rewrite payload.capabilities /8/ -> \"0\" }",
        "type-mismatch",
    );
}

// ---------------------------------------------------------------- blocking

#[test]
fn blocking_actions_at_points_that_cannot_block_are_errors() {
    let (d, at) = one(
        "schema claude-code\nhook a on SessionStart {\n    deny \"no\"\n}",
        "cannot-block",
    );
    assert_eq!(d.message, "`deny` is not allowed at `SessionStart`");
    assert_eq!(at, (3, 5));
    assert!(d.help.unwrap().contains("`context"));
    for action in ["abort", "ask \"sure?\"", "skip {}"] {
        let keyword = action.split(' ').next().unwrap();
        let (d, _) = one(
            &format!("schema claude-code\nhook a on Notification, PreToolUse {{ {action} }}"),
            "cannot-block",
        );
        assert_eq!(
            d.message,
            format!("`{keyword}` is not allowed at `Notification`")
        );
    }
    // Observing is fine.
    let found = diagnostics(
        "schema claude-code\nhook a on SessionStart { context \"hi\" log info \"start\" }",
    );
    assert!(found.is_empty(), "{found}");
    // ORCS points all block (an abort ends the chain everywhere).
    assert!(!diagnostics("hook a on bus.on_register { abort }").has_errors());
}

// ---------------------------------------------------------- custom schemas

#[test]
fn a_custom_toml_schema_loads_and_checks() {
    let compiled = hookc::compile_paths(&[fixture("app.hooks")], &hookc::Options::default())
        .unwrap_or_else(|d| panic!("{d}"));
    assert!(compiled.warnings.is_empty(), "{}", compiled.warnings);
    let table = compiled.table;
    assert_eq!(table.program().schema, "jobs");
    let mut ctx = HookContext::new(
        "job.pre_run",
        "runner::jobs",
        serde_json::json!({"job": {"id": "j1", "retries": 9, "command": "make"}}),
    );
    let mut scratch = table.scratch();
    table.dispatch(
        &mut scratch,
        "job.pre_run",
        &Target::new("runner::jobs"),
        &mut ctx,
    );
    assert_eq!(ctx.payload["job"]["retries"], 5);

    // The schema is used everywhere: points, fields, types, kinds.
    let dir = std::env::temp_dir().join(format!("hookc-schemas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture("app.schema.toml"), dir.join("app.schema.toml")).unwrap();
    let check = |rules: &str| {
        let path = dir.join("t.hooks");
        std::fs::write(&path, format!("schema \"app.schema.toml\"\n{rules}")).unwrap();
        hookc::compile_paths(&[&path], &hookc::Options::default())
            .map_or_else(|d| d, |c| c.warnings)
    };
    let found = check("hook a on job.pre_rn { continue }");
    let d = found.iter().find(|d| d.code == "unknown-point").unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean `job.pre_run`?"));
    assert_eq!(d.labels[0].message, "not a point of the `jobs` schema");

    let found = check("hook a on job.pre_run { when payload.job.commnd == \"x\" continue }");
    let d = found.iter().find(|d| d.code == "unknown-field").unwrap();
    assert_eq!(
        d.help.as_deref(),
        Some("did you mean `payload.job.command`?")
    );

    let found = check("hook a on job.pre_run { when payload.env.HOME == \"/root\" continue }");
    assert!(found.is_empty(), "`any` is open: {found}");

    let found = check("hook a on job.pre_run { set payload.job.retries = \"many\" }");
    assert!(found.iter().any(|d| d.code == "type-mismatch"), "{found}");

    let found = check("hook a on job.pre_run { when payload.job.retries == \"x\" continue }");
    assert!(found.iter().any(|d| d.code == "type-mismatch"), "{found}");

    let found = check("hook a on job.queued { abort }");
    assert!(found.iter().any(|d| d.code == "cannot-block"), "{found}");

    let found = check("hook a on job.pre_run { replace {} }");
    assert!(
        found.iter().any(|d| d.code == "replace-not-post"),
        "{found}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn toml_schema_errors_point_into_the_toml_file() {
    let err =
        hookc::compile_paths(&[fixture("bad.hooks")], &hookc::Options::default()).unwrap_err();
    let d = err.iter().find(|d| d.code == "invalid-schema").unwrap();
    assert_eq!(d.message, "unknown field type `strin`");
    assert_eq!(d.help.as_deref(), Some("did you mean `string`?"));
    let (file, line, col) = d.location().unwrap();
    assert!(
        file.ends_with("tests/fixtures/schemas/bad.schema.toml"),
        "{file}"
    );
    assert_eq!((line, col), (8, 12));
    // No misleading errors about the rules of a schema that did not load.
    assert!(!err.iter().any(|d| d.code == "unknown-point"), "{err}");

    // Two files naming the same schema file: its errors are reported once.
    let err = hookc::compile_paths(
        &[fixture("bad.hooks"), fixture("bad2.hooks")],
        &hookc::Options::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.iter().filter(|d| d.code == "invalid-schema").count(),
        1,
        "{err}"
    );

    let err =
        hookc::compile_paths(&[fixture("broken.hooks")], &hookc::Options::default()).unwrap_err();
    let d = err.iter().find(|d| d.code == "invalid-schema").unwrap();
    assert!(
        d.message.starts_with("invalid schema file: "),
        "{}",
        d.message
    );
    let (file, line, col) = d.location().unwrap();
    assert!(file.ends_with("broken.schema.toml"), "{file}");
    assert_eq!((line, col), (5, 8));
    assert!(d.help.is_some());
}

#[test]
fn a_missing_schema_file_is_reported_at_the_declaration() {
    let (d, at) = one(
        "schema \"nowhere/app.schema.toml\"\nhook a on x { continue }",
        "schema-not-found",
    );
    assert_eq!(
        d.message,
        "cannot read schema `nowhere/app.schema.toml`: no such file"
    );
    assert_eq!(at, (1, 8));
}

#[test]
fn a_claude_code_rule_and_its_json_diagnostics_render() {
    let found = diagnostics(
        "schema claude-code\nhook a on PreToolUse { when payload.tool_nme == \"Bash\" deny }",
    );
    let text = hookc::diag::render::human(&found, false);
    assert!(
        text.contains("warning[unknown-field]: unknown field `payload.tool_nme`"),
        "{text}"
    );
    assert!(
        text.contains("help: did you mean `payload.tool_name`?"),
        "{text}"
    );
}

/// The schemas as a user meets them: `hookc lint` and `hookc eval` on files.
#[test]
fn schemas_through_the_cli() {
    let dir = fixture("");
    let run = |args: &[&str]| common::hookc_in(&dir, args, None);

    let clean = run(&["lint", "--deny-warnings", "claude.hooks"]);
    assert_eq!(clean.code, Some(0), "{}", clean.stderr);
    let custom = run(&["lint", "--deny-warnings", "app.hooks"]);
    assert_eq!(custom.code, Some(0), "{}", custom.stderr);

    let broken = run(&["lint", "broken.hooks"]);
    assert_eq!(broken.code, Some(1));
    assert!(
        broken.stderr.contains("broken.schema.toml:"),
        "{}",
        broken.stderr
    );

    // `eval` takes ORCS contexts; `explain` also reads a raw Claude Code event.
    let explained = run(&[
        "explain",
        "claude.hooks",
        "--event",
        "claude-code-events/pre_tool_use_bash_rm.json",
        "--format",
        "json",
    ]);
    assert_eq!(explained.code, Some(0), "{}", explained.stderr);
    let explanation: Value = serde_json::from_str(&explained.stdout).unwrap();
    assert_eq!(explanation["outcome"]["outcome"], "abort", "{explanation}");
    assert_eq!(explanation["outcome"]["fired"][0], "block-destructive");
}

// --------------------------------------------------------------- ironclaw

/// Dispatches the event of `ironclaw-events/<name>.json` (an ORCS-style
/// context) through the rules of `ironclaw-edits.hooks`.
fn ironclaw_dispatch(table: &hookc::Table, name: &str) -> hookc::Report {
    let text = std::fs::read_to_string(fixture(&format!("ironclaw-events/{name}.json"))).unwrap();
    let mut ctx: HookContext = serde_json::from_str(&text).unwrap();
    let point = ctx.hook_point.clone();
    let component = ctx.component_id.clone();
    let mut scratch = table.scratch();
    let outcome = table.dispatch(
        &mut scratch,
        point.as_str(),
        &Target::new(&component),
        &mut ctx,
    );
    outcome.report(&ctx)
}

#[test]
fn ironclaw_edits_reach_the_next_rule_as_ironclaws_host_applies_them() {
    let compiled = hookc::compile_paths(
        &[fixture("ironclaw-edits.hooks")],
        &hookc::Options::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    assert!(compiled.warnings.is_empty(), "{}", compiled.warnings);
    let table = compiled.table;

    // A tool call's content edit is parsed into the parameters, and the
    // next rule sees both; an edit that is not JSON is dropped, with a
    // warning, so the rule after it never sees it.
    let r = ironclaw_dispatch(&table, "tool_call");
    assert_eq!(r.outcome, hookc::OutcomeKind::Continue, "{r:#?}");
    assert_eq!(r.fired, ["sandbox", "see-parameters", "break-json"]);
    assert_eq!(
        r.additional_context,
        [r#"parameters: /sandbox/notes.txt; content: {"path":"/sandbox/notes.txt"}"#]
    );
    assert_eq!(
        r.context.payload["parameters"]["path"],
        "/sandbox/notes.txt"
    );
    assert_eq!(
        r.context.payload["content"],
        r#"{"path":"/sandbox/notes.txt"}"#
    );
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].starts_with(
            "rule `break-json`: the edit of `payload.content` is dropped: it is not JSON"
        ),
        "{:?}",
        r.warnings
    );

    // A session event's content edit is not applied.
    let r = ironclaw_dispatch(&table, "session_start");
    assert_eq!(r.outcome, hookc::OutcomeKind::Continue, "{r:#?}");
    assert_eq!(r.fired, ["tag-session"]);
    assert_eq!(r.context.payload["content"], "session-1");
    assert_eq!(
        r.warnings,
        ["rule `tag-session`: the edit of `payload.content` is dropped: the host does not apply edits of it at `onSessionStart`"]
    );

    // The response is the content.
    let r = ironclaw_dispatch(&table, "response");
    assert_eq!(r.fired, ["sign", "see-response"]);
    assert_eq!(r.context.payload["content"], "Done. -- bot");
    assert_eq!(r.context.payload["response"], "Done. -- bot");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);

    // The compiler recorded it per point, from the schema.
    let edits = |point: &str| {
        table
            .program()
            .points
            .iter()
            .find(|p| p.name == point)
            .map(|p| p.edits.clone())
    };
    assert!(matches!(
        edits("beforeToolCall"),
        Some(hookc::schema::EditApplication::Json { .. })
    ));
    assert!(matches!(
        edits("onSessionStart"),
        Some(hookc::schema::EditApplication::Ignore { .. })
    ));
}

#[test]
fn hookc_eval_applies_ironclaw_edits() {
    let dir = fixture("");
    let eval = |event: &str| {
        let run = common::hookc_in(
            &dir,
            &[
                "eval",
                "ironclaw-edits.hooks",
                "--event",
                &format!("ironclaw-events/{event}.json"),
            ],
            None,
        );
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
        serde_json::from_str::<Value>(&run.stdout).unwrap()
    };
    let out = eval("tool_call");
    assert_eq!(out["outcome"], "continue", "{out:#}");
    assert_eq!(
        out["fired"],
        serde_json::json!(["sandbox", "see-parameters", "break-json"])
    );
    assert_eq!(
        out["context"]["payload"]["parameters"]["path"],
        "/sandbox/notes.txt"
    );
    assert_eq!(
        out["context"]["payload"]["content"],
        r#"{"path":"/sandbox/notes.txt"}"#
    );
    let out = eval("session_start");
    assert_eq!(out["fired"], serde_json::json!(["tag-session"]), "{out:#}");
    assert_eq!(out["context"]["payload"]["content"], "session-1");
    assert_eq!(out["warnings"].as_array().unwrap().len(), 1, "{out:#}");
    let out = eval("response");
    assert_eq!(
        out["context"]["payload"]["response"], "Done. -- bot",
        "{out:#}"
    );
}

/// What a command reads on stdin is the schema's to say, and the table
/// records it: `command-input = "payload"` gives commands the payload alone
/// (as the `claude-code` schema does), the default the whole context.
#[cfg(unix)]
#[test]
fn a_custom_schema_chooses_what_commands_read_on_stdin() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("schemas-command-input");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Blocks (exit 2) when stdin is the whole context: it has a `hook_point`.
    let rule = "hook probe on job.pre_run {\n    sh \"grep -q hook_point && exit 2; exit 0\"\n}\n";
    let run = |input: Option<&str>| {
        let header = input.map_or(String::new(), |i| format!("command-input = \"{i}\"\n"));
        std::fs::write(
            dir.join("app.schema.toml"),
            format!(
                "name = \"jobs\"\n{header}[[points]]\nname = \"job.pre_run\"\nkind = \"pre\"\n"
            ),
        )
        .unwrap();
        let path = dir.join("probe.hooks");
        std::fs::write(&path, format!("schema \"app.schema.toml\"\n{rule}")).unwrap();
        let table = hookc::compile_paths(&[&path], &hookc::Options::default())
            .unwrap_or_else(|d| panic!("{d}"))
            .table;
        // Through bytes: the choice is in the table, not in the schema file.
        let table = hookc::Table::from_bytes(&table.to_bytes()).unwrap();
        let mut ctx =
            HookContext::new("job.pre_run", "runner::jobs", serde_json::json!({"job": 1}));
        table.dispatch_context(&mut ctx).outcome
    };
    assert_eq!(
        run(None),
        hookc::OutcomeKind::Abort,
        "the context, by default"
    );
    assert_eq!(run(Some("context")), hookc::OutcomeKind::Abort);
    assert_eq!(
        run(Some("payload")),
        hookc::OutcomeKind::Continue,
        "the payload alone"
    );
}

/// `rules` (after their `schema` line) compiled with each of `options`
/// against a schema `fs` whose point `file.pre_write` has a `path` field
/// `target` and a `string` field `label`.
fn fs_tables(name: &str, rules: &str, options: &[hookc::Options]) -> Vec<hookc::Table> {
    let dir = std::env::temp_dir().join(format!("hookc-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("fs.schema.toml"),
        "name = \"fs\"\n[[points]]\nname = \"file.pre_write\"\nkind = \"pre\"\n[points.fields]\n\"target\" = \"path\"\n\"label\" = \"string\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("r.hooks"),
        format!("schema \"fs.schema.toml\"\n{rules}"),
    )
    .unwrap();
    let tables = options
        .iter()
        .map(|options| {
            hookc::compile_paths(&[dir.join("r.hooks")], options)
                .map_err(|d| d.to_string())
                .unwrap()
                .table
        })
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    tables
}

#[test]
fn path_fields_read_normalized_and_string_fields_as_written() {
    let [table]: [hookc::Table; 1] = fs_tables(
        "path-fields",
        r#"hook scoped on file.pre_write {
    unless payload.target glob "/proj/src/**"
    abort "outside src: {payload.target}"
}
hook labelled on file.pre_write priority 200 {
    when payload.label == "a/../b"
    abort "the label is read as written"
}
"#,
        &[hookc::Options::default()],
    )
    .try_into()
    .unwrap();
    let run = |target: &str, label: &str| {
        let mut ctx = HookContext::new(
            "file.pre_write",
            "app::fs",
            serde_json::json!({"target": target, "label": label}),
        );
        let report = table.dispatch_context(&mut ctx);
        // The event itself is never rewritten.
        assert_eq!(report.context.payload["target"], target);
        (report.outcome, report.reason)
    };
    use hookc::OutcomeKind::{Abort, Continue};
    assert_eq!(run("/proj/src/a.rs", "x"), (Continue, None));
    for evasion in [
        "/proj/src/../.claude/settings.json",
        "/proj/src/./../../etc/passwd",
    ] {
        let (outcome, reason) = run(evasion, "x");
        assert_eq!(outcome, Abort, "{evasion}");
        // The message quotes the path as the event has it.
        assert_eq!(reason, Some(format!("outside src: {evasion}")));
    }
    assert_eq!(run("/proj//src/./b.rs", "x"), (Continue, None));
    // A `string` field is compared as written: `a/../b` is not `b`.
    assert_eq!(
        run("/proj/src/a.rs", "a/../b"),
        (Abort, Some("the label is read as written".to_string()))
    );
}

/// A regex on a path field that the field's literal search proposes (every
/// regex with a literal is a prefiltered check when the field's DFA budget
/// is zero) is decided on the path as normalized, as the literal was found
/// in it, and says what the field's DFA says.
#[test]
fn a_prefiltered_regex_on_a_path_reads_the_path_normalized() {
    let tables = fs_tables(
        "path-checks",
        r#"hook secrets on file.pre_write {
    when payload.target matches /^\/proj\/secrets\/[a-z]+\.pem$/
    abort "a secret"
}
hook logs on file.pre_write {
    when payload.target matches /\/var\/log\/[a-z]+\.log$/
    abort "a log"
}
"#,
        &[
            hookc::Options::default(),
            hookc::Options {
                field_dfa_budget: 0,
                ..hookc::Options::default()
            },
        ],
    );
    let [in_dfa, checked]: [hookc::Table; 2] = tables.try_into().unwrap();
    let run = |table: &hookc::Table, target: &str| {
        let mut ctx = HookContext::new(
            "file.pre_write",
            "app::fs",
            serde_json::json!({ "target": target }),
        );
        table.dispatch_context(&mut ctx).reason
    };
    let secret = Some("a secret".to_string());
    let log = Some("a log".to_string());
    for (target, expected) in [
        ("/proj/secrets/key.pem", &secret),
        // The literal is only in the normalized path.
        ("/proj/src/../secrets/key.pem", &secret),
        ("/proj/./secrets//id.pem", &secret),
        // The literal is there, the regex does not match.
        ("/x/proj/secrets/key.pem", &None),
        ("/proj/secrets/key.pem.bak", &None),
        ("/var/log/app.log", &log),
        ("/var/log/../log/app.log", &log),
        ("/var/log/app.log/x", &None),
        ("/proj/src/a.rs", &None),
    ] {
        assert_eq!(&run(&checked, target), expected, "prefiltered: {target}");
        assert_eq!(&run(&in_dfa, target), expected, "in the DFA: {target}");
    }
}

/// A Windows path matches without regard to case, every kind of condition
/// on it (Windows compares file names so); a POSIX path keeps exact case.
/// Functions and messages see the path as the agent wrote it.
#[test]
fn windows_paths_match_without_regard_to_case() {
    let rules = r#"schema claude-code

hook settings on PreToolUse at claude-code::Write {
    when payload.tool_input.file_path glob "**/.claude/settings*.json"
    deny "settings: {payload.tool_input.file_path}"
}

hook exact on PreToolUse at claude-code::Write {
    when payload.tool_input.file_path == "c:/proj/secret.txt"
        or payload.tool_input.file_path in ["/proj/secret.txt", "D:/Keys/ID_RSA"]
    deny "exact"
}

hook prefix on PreToolUse at claude-code::Write {
    when payload.tool_input.file_path starts_with "c:/windows/"
        or payload.tool_input.file_path ends_with ".PS1"
        or payload.tool_input.file_path contains "/system32/"
        or payload.tool_input.file_path matches /\/node_modules\//
    deny "prefix"
}

hook keeps-case on PreToolUse at claude-code::Write priority 200 {
    when basename(payload.tool_input.file_path) == "Mixed.TXT"
    deny "functions see the case as written"
}
"#;
    let table = hookc::compile_str("w.hooks", rules)
        .unwrap_or_else(|d| panic!("{d}"))
        .table;
    let decide = |path: &str| {
        let event = serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": path, "content": "x"},
        });
        let event = hookc::claude::Event::parse(&event.to_string()).unwrap();
        event.dispatch(&table).reason
    };
    let denied = |path: &str, reason: &str| {
        assert_eq!(decide(path).as_deref(), Some(reason), "{path}");
    };
    denied(
        r"C:\Users\Dev\.CLAUDE\Settings.Local.JSON",
        r"settings: C:\Users\Dev\.CLAUDE\Settings.Local.JSON",
    );
    denied(r"C:\Proj\SECRET.txt", "exact");
    denied(r"d:\keys\id_rsa", "exact");
    denied(r"C:\WINDOWS\notepad.exe", "prefix");
    denied(r"C:\tools\deploy.ps1", "prefix");
    denied(r"E:\x\System32\y.dll", "prefix");
    denied(r"C:\app\Node_Modules\left-pad\index.js", "prefix");
    // Windows opens `secret.txt` for `ſecret.txt`: the long s upper-cases
    // to `S` (lower-casing keeps it apart).
    denied("C:\\Proj\\\u{17F}ecret.txt", "exact");
    denied("c:/PROJ/\u{17F}ECRET.TXT", "exact");
    denied("E:\\x\\\u{17F}ystem32\\y.dll", "prefix");
    denied(r"C:\x\Mixed.TXT", "functions see the case as written");
    assert_eq!(decide(r"C:\x\mixed.txt"), None);
    assert_eq!(decide(r"C:\Users\Dev\.claudex\settings.json"), None);
    // POSIX paths: exact case.
    denied(
        "/home/dev/.claude/settings.json",
        "settings: /home/dev/.claude/settings.json",
    );
    assert_eq!(decide("/home/dev/.CLAUDE/settings.json"), None);
    assert_eq!(decide("/proj/SECRET.txt"), None);
    denied("/proj/secret.txt", "exact");
}

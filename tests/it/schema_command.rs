//! `hookc schema`: the real binary on the built-in schemas and on schema
//! files, its three formats, its errors, and the unknown-point hint of the
//! checker that names the schema a point belongs to.
//!
//! Long outputs are insta snapshots; the JSON document is checked against
//! the library's own schemas, so it cannot drift from what the checker uses.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail the test loudly"
)]

use crate::common::{self, Run};
use hookc::schema::{FieldType, Schema};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty temp directory for one test.
fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("schema-command")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn hookc(args: &[&str]) -> Run {
    common::hookc_in(root(), args, None)
}

fn hookc_in(dir: &Path, args: &[&str]) -> Run {
    common::hookc_in(dir, args, None)
}

/// Exit code and both streams, for snapshots and failure messages.
fn render(run: &Run) -> String {
    format!(
        "exit: {:?}\n----- stdout -----\n{}----- stderr -----\n{}",
        run.code, run.stdout, run.stderr
    )
}

#[track_caller]
fn ok(run: &Run) -> &Run {
    assert_eq!(run.code, Some(0), "{}", render(run));
    assert_eq!(run.stderr, "", "{}", render(run));
    run
}

/// A usage error: exit 2, nothing on stdout; returns stderr.
#[track_caller]
fn usage_error(run: &Run) -> &str {
    assert_eq!(run.code, Some(2), "{}", render(run));
    assert_eq!(run.stdout, "", "{}", render(run));
    &run.stderr
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&ok(run).stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", render(run)))
}

fn builtin(name: &str) -> Schema {
    hookc::systems::builtin_schema(name).unwrap()
}

const CUSTOM: &str = r#"name = "jobs"
description = "the points of the job runner"
command-input = "payload"

[[points]]
name = "job.pre_run"
kind = "pre"
description = "Before a job runs: rules may refuse it."
[points.fields]
"job.id" = "string"
"job.retries" = "int?"
"job.env" = "any"
[points.outputs]
"banner" = "string"

[[points]]
name = "job.done"
kind = "event"
"#;

// -- the list of built-in schemas ------------------------------------------------

#[test]
fn without_a_name_the_builtin_schemas_are_listed() {
    let run = hookc(&["schema"]);
    insta::assert_snapshot!("list_human", ok(&run).stdout);
    let listed = json(&hookc(&["schema", "--format", "json"]));
    let names: Vec<(&str, u64)> = listed["schemas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["points"].as_u64().unwrap()))
        .collect();
    assert_eq!(names, [("orcs", 25), ("claude-code", 33), ("ironclaw", 6)]);
    let markdown = hookc(&["schema", "--format", "markdown"]);
    assert!(ok(&markdown)
        .stdout
        .starts_with("| schema | points | description |\n|---|---|---|\n| `orcs` | 25 |"));
}

// -- one built-in schema -----------------------------------------------------------

#[test]
fn the_orcs_schema_for_a_terminal() {
    let run = hookc(&["schema", "orcs"]);
    insta::assert_snapshot!("orcs_human", ok(&run).stdout);
}

#[test]
fn one_point_as_markdown() {
    let run = hookc(&[
        "schema",
        "claude-code",
        "--point",
        "PreToolUse",
        "--format",
        "markdown",
    ]);
    insta::assert_snapshot!("claude_code_pre_tool_use_markdown", ok(&run).stdout);
}

#[test]
fn ironclaw_as_json() {
    let run = hookc(&["schema", "ironclaw", "--format", "json"]);
    insta::assert_snapshot!("ironclaw_json", ok(&run).stdout);
}

/// Every built-in schema's JSON says what the checker's schema says: every
/// point in order with its kind, blocking and doc, every field with its type.
#[test]
fn the_json_document_is_the_schema_the_checker_uses() {
    for name in hookc::systems::BUILTIN_SCHEMAS {
        let schema = builtin(name);
        let doc = json(&hookc(&["schema", name, "--format", "json"]));
        assert_eq!(doc["schema"], *name);
        assert_eq!(doc["file"], Value::Null);
        assert_eq!(doc["doc"], schema.doc.as_str());
        let points = doc["points"].as_array().unwrap();
        assert_eq!(points.len(), schema.points.len(), "{name}");
        for (shown, point) in points.iter().zip(&schema.points) {
            assert_eq!(shown["name"], point.name.as_str());
            assert_eq!(shown["kind"], point.kind.to_string());
            assert_eq!(shown["blocking"], point.blocking);
            assert_eq!(shown["doc"], point.doc.as_str());
            assert!(!point.doc.is_empty(), "{name}: {}", point.name);
            let fields = shown["fields"].as_array().unwrap();
            assert_eq!(fields.len(), point.payload.len(), "{}", point.name);
            for (field, def) in fields.iter().zip(&point.payload) {
                assert_eq!(field["path"], format!("payload.{}", def.path));
                assert_eq!(field["type"], def.ty.as_str());
                assert_eq!(field["optional"], def.optional);
                assert_eq!(field["open"], point.is_open(def));
            }
            let outputs = shown["outputs"].as_array().unwrap();
            assert_eq!(outputs.len(), point.outputs.len(), "{}", point.name);
        }
    }
}

#[test]
fn nested_payload_fields_and_open_objects_are_shown() {
    let doc = json(&hookc(&[
        "schema",
        "claude-code",
        "--point",
        "PreToolUse",
        "--format",
        "json",
    ]));
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 1);
    let field = |path: &str| {
        points[0]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("no `{path}`"))
            .clone()
    };
    assert_eq!(
        field("payload.tool_input"),
        serde_json::json!({"path": "payload.tool_input", "type": "object", "optional": false, "open": true})
    );
    assert_eq!(
        field("payload.tool_input.command"),
        serde_json::json!({"path": "payload.tool_input.command", "type": "string", "optional": true, "open": false})
    );
    assert_eq!(
        field("payload.effort")["open"],
        false,
        "declared children: closed"
    );
    assert_eq!(doc["command_input"], "payload");
    let human = hookc(&["schema", "claude-code", "--point", "PreToolUse"]);
    let line = ok(&human)
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("payload.tool_input "))
        .unwrap();
    assert!(line.ends_with("object (open)"), "{line}");
}

/// The context fields are those rules can read at every point, with the
/// types the checker gives them.
#[test]
fn the_context_fields_are_every_root_of_a_path() {
    let doc = json(&hookc(&["schema", "orcs", "--format", "json"]));
    let context = doc["context"].as_array().unwrap();
    let schema = builtin("orcs");
    for root in hookc::ir::Root::ALL {
        let entry = context
            .iter()
            .find(|c| c["path"] == root.as_str())
            .unwrap_or_else(|| panic!("no `{}` in {context:?}", root.as_str()));
        let ty = schema.field_type("tool.pre_execute", root.as_str(), &[]);
        assert_eq!(entry["type"], ty.map(FieldType::as_str).unwrap());
        assert!(!entry["doc"].as_str().unwrap().is_empty());
    }
}

/// Every Markdown table has as many cells in each row as in its header.
#[test]
fn markdown_tables_are_well_formed() {
    for name in hookc::systems::BUILTIN_SCHEMAS {
        let run = hookc(&["schema", name, "--format", "markdown"]);
        let text = &ok(&run).stdout;
        assert!(text.starts_with(&format!("# Schema `{name}`\n")));
        let mut columns = None;
        for line in text.lines() {
            if !line.starts_with('|') {
                columns = None;
                continue;
            }
            // Cells are split at pipes that are not escaped.
            let cells = line.replace("\\|", "").matches('|').count() - 1;
            match columns {
                None => columns = Some(cells),
                Some(n) => assert_eq!(cells, n, "{name}: {line}"),
            }
        }
        let headings = text.lines().filter(|l| l.starts_with("## `")).count();
        assert_eq!(headings, builtin(name).points.len(), "{name}");
    }
}

// -- custom schemas ----------------------------------------------------------------

#[test]
fn a_schema_file_is_shown_like_a_builtin_one() {
    let dir = tmp_dir("custom");
    std::fs::write(dir.join("jobs.schema.toml"), CUSTOM).unwrap();
    let run = hookc_in(&dir, &["schema", "jobs.schema.toml"]);
    insta::assert_snapshot!("custom_human", ok(&run).stdout);

    let doc = json(&hookc_in(
        &dir,
        &["schema", "jobs.schema.toml", "--format", "json"],
    ));
    assert_eq!(doc["schema"], "jobs");
    assert_eq!(doc["file"], "jobs.schema.toml");
    assert_eq!(doc["doc"], "the points of the job runner");
    let pre = &doc["points"][0];
    assert_eq!(pre["doc"], "Before a job runs: rules may refuse it.");
    assert_eq!(
        pre["outputs"],
        serde_json::json!([{"name": "banner", "type": "string", "optional": false}])
    );
    // The parent a file leaves out is declared as an object.
    assert_eq!(pre["fields"][0]["path"], "payload.job");
    assert_eq!(pre["fields"][0]["type"], "object");
    // A point without fields accepts every field.
    assert_eq!(doc["points"][1]["fields"], serde_json::json!([]));
    let one = hookc_in(&dir, &["schema", "jobs.schema.toml", "--point", "job.done"]);
    assert!(ok(&one).stdout.contains(
        "job.done  event, cannot block\n  payload: not declared (every field is accepted)\n"
    ));
}

#[test]
fn a_schema_file_with_errors_is_reported_where_they_are() {
    let dir = tmp_dir("invalid");
    std::fs::write(
        dir.join("bad.toml"),
        "name = \"bad\"\n[[points]]\nname = \"a.b\"\nkind = \"prex\"\n",
    )
    .unwrap();
    let run = hookc_in(&dir, &["schema", "bad.toml"]);
    let stderr = usage_error(&run);
    assert!(
        stderr.contains("error[invalid-schema]: unknown point kind `prex`"),
        "{stderr}"
    );
    assert!(stderr.contains("bad.toml:4:8"), "{stderr}");
    assert!(stderr.contains("did you mean `pre`?"), "{stderr}");
    let run = hookc_in(&dir, &["schema", "missing.toml"]);
    assert_eq!(
        usage_error(&run),
        "error: cannot read `missing.toml`: no such file or directory\n"
    );
}

/// A description is text anyone may write: control characters never reach
/// the terminal raw.
#[test]
fn control_characters_in_a_schema_file_are_escaped() {
    let dir = tmp_dir("escape");
    let text = CUSTOM.replace(
        "the points of the job runner",
        "a \\u001b[31mred\\u0007 schema",
    );
    std::fs::write(dir.join("jobs.toml"), text).unwrap();
    for format in ["human", "markdown"] {
        let run = hookc_in(&dir, &["schema", "jobs.toml", "--format", format]);
        let out = &ok(&run).stdout;
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out}");
        assert!(out.contains("a \\u{1b}[31mred\\u{7} schema"), "{out}");
    }
    let doc = json(&hookc_in(
        &dir,
        &["schema", "jobs.toml", "--format", "json"],
    ));
    assert_eq!(doc["doc"], "a \u{1b}[31mred\u{7} schema");
}

// -- errors ------------------------------------------------------------------------

#[test]
fn an_unknown_schema_suggests_the_one_meant() {
    assert_eq!(
        usage_error(&hookc(&["schema", "claude_code"])),
        "error: unknown schema `claude_code`\nhelp: did you mean `claude-code`?\n"
    );
    assert_eq!(
        usage_error(&hookc(&["schema", "Orcs"])),
        "error: unknown schema `Orcs`\nhelp: did you mean `orcs`?\n"
    );
    assert_eq!(
        usage_error(&hookc(&["schema", "nothing"])),
        "error: unknown schema `nothing`\nhelp: built-in schemas are orcs, claude-code, ironclaw; \
         a custom schema is a TOML file (`hookc schema app.schema.toml`)\n"
    );
    let run = hookc(&["schema", "mcp-router"]);
    let stderr = usage_error(&run);
    assert!(
        stderr.starts_with("error: `mcp-router` is not a schema\n"),
        "{stderr}"
    );
    assert!(stderr.contains("run `hookc schema orcs`"), "{stderr}");
}

#[test]
fn an_unknown_point_suggests_the_one_meant() {
    assert_eq!(
        usage_error(&hookc(&["schema", "orcs", "--point", "tool.pre_exec"])),
        "error: unknown point `tool.pre_exec` in the `orcs` schema\nhelp: did you mean `tool.pre_execute`?\n"
    );
    assert_eq!(
        usage_error(&hookc(&["schema", "claude-code", "--point", "pretooluse"])),
        "error: unknown point `pretooluse` in the `claude-code` schema\nhelp: did you mean `PreToolUse`?\n"
    );
    assert_eq!(
        usage_error(&hookc(&["schema", "orcs", "--point", "PreToolUse"])),
        "error: unknown point `PreToolUse` in the `orcs` schema\nhelp: `PreToolUse` is a point of the \
         `claude-code` schema: run `hookc schema claude-code --point PreToolUse`\n"
    );
    assert_eq!(
        usage_error(&hookc(&["schema", "ironclaw", "--point", "zzz"])),
        "error: unknown point `zzz` in the `ironclaw` schema\nhelp: run `hookc schema ironclaw` for its points\n"
    );
    // `--point` needs a schema.
    let run = hookc(&["schema", "--point", "PreToolUse"]);
    assert!(
        usage_error(&run).contains("<NAME|FILE>"),
        "{}",
        render(&run)
    );
}

// -- the checker's hint --------------------------------------------------------------

const CLAUDE_RULE: &str = "hook no-rm on PreToolUse {\n    deny \"no\"\n}\n";

#[test]
fn a_claude_code_point_without_the_schema_says_to_declare_it() {
    let dir = tmp_dir("hint");
    std::fs::write(dir.join("claude.hooks"), CLAUDE_RULE).unwrap();
    let run = hookc_in(&dir, &["lint", "claude.hooks"]);
    assert_eq!(run.code, Some(1), "{}", render(&run));
    assert!(
        run.stderr.contains(
            "help: `PreToolUse` is a point of the `claude-code` schema, not of `orcs`: \
             declare `schema claude-code` in the file"
        ),
        "{}",
        render(&run)
    );
    assert!(!run.stderr.contains("lint --help"), "{}", render(&run));
    // Following the hint is enough.
    std::fs::write(
        dir.join("claude.hooks"),
        format!("schema claude-code\n\n{CLAUDE_RULE}"),
    )
    .unwrap();
    ok(&hookc_in(&dir, &["lint", "claude.hooks"]));
}

#[test]
fn an_unknown_point_names_the_schema_command() {
    let dir = tmp_dir("no-near-point");
    std::fs::write(
        dir.join("a.hooks"),
        "hook a on zzz.qqq {\n    continue\n}\n",
    )
    .unwrap();
    let run = hookc_in(&dir, &["lint", "a.hooks", "--format", "json"]);
    assert_eq!(run.code, Some(1), "{}", render(&run));
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["diagnostics"][0]["help"],
        "run `hookc schema orcs` for the points of the `orcs` schema"
    );
}

/// A rule test whose event is at a point of another schema gets the same
/// hint.
#[test]
fn a_test_event_at_a_point_of_another_schema_gets_the_hint() {
    let dir = tmp_dir("test-hint");
    std::fs::write(
        dir.join("a.hooks"),
        "hook a on tool.pre_execute {\n    continue\n}\n\ntest \"claude\" {\n    event {\"hook_point\": \"Stop\", \"component_id\": \"x::y\"}\n    expect continue\n}\n",
    )
    .unwrap();
    let run = hookc_in(&dir, &["test", "a.hooks"]);
    assert_eq!(run.code, Some(2), "{}", render(&run));
    assert!(
        run.stderr
            .contains("help: `Stop` is a point of the `claude-code` schema, not of `orcs`"),
        "{}",
        render(&run)
    );
}

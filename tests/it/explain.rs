//! `Table::explain` and `hookc explain`: every rule of a point with why it
//! fired or did not, computed from the compiled table.

#![expect(clippy::panic, reason = "tests fail loudly on purpose")]

use crate::common;

use hookc::runtime::{CondExplanation, Explanation, RuleStatus};
use hookc::{HookContext, OutcomeKind, Table, Target};
use serde_json::{json, Value};
use std::path::Path;

fn table(text: &str) -> Table {
    hookc::compile_str("t.hooks", text)
        .unwrap_or_else(|d| panic!("{d}"))
        .table
}

fn explain(table: &Table, point: &str, component: &str, payload: Value) -> Explanation {
    let ctx = HookContext::new(point, component, payload);
    table.explain(point, &Target::new(component), &ctx)
}

/// The atoms of a condition tree, depth first: (rendering, value).
fn atoms(c: &CondExplanation) -> Vec<(String, bool)> {
    match c {
        CondExplanation::True => Vec::new(),
        CondExplanation::Atom { atom, value, .. } => vec![(atom.clone(), *value)],
        CondExplanation::Not { operand, .. } => atoms(operand),
        CondExplanation::All { operands, .. } | CondExplanation::Any { operands, .. } => {
            operands.iter().flat_map(atoms).collect()
        }
    }
}

#[test]
fn every_rule_with_its_target_condition_and_status() {
    let t = table(
        r#"
        hook block on tool.pre_execute at builtin::* priority 10 {
            when payload.tool == "exec" and payload.args contains "rm -rf"
            abort "blocked: {payload.args}"
        }
        hook other-scope on tool.pre_execute at plugin::* priority 20 {
            log info "plugin"
        }
        hook off on tool.pre_execute priority 30 disabled {
            log info "never"
        }
        hook after on tool.pre_execute priority 40 {
            log info "after"
        }
        "#,
    );
    let e = explain(
        &t,
        "tool.pre_execute",
        "builtin::llm",
        json!({"tool": "exec", "args": "rm -rf /"}),
    );
    assert_eq!(e.kind, Some(hookc::PointKind::Pre));
    let ids: Vec<&str> = e.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["block", "other-scope", "off", "after"]);

    let block = &e.rules[0];
    assert_eq!(block.status, RuleStatus::Fired);
    assert!(block.matched);
    assert_eq!(
        atoms(&block.condition),
        [
            ("payload.tool == \"exec\"".to_string(), true),
            ("payload.args contains \"rm -rf\"".to_string(), true),
        ]
    );
    assert_eq!(block.actions[0].action, "abort \"blocked: {payload.args}\"");
    assert_eq!(block.actions[0].result, Some(json!("blocked: rm -rf /")));
    assert_eq!((block.origin.line, block.origin.col), (2, 9));

    // The rest: the chain ended at `block`, but each is still evaluated.
    let other = &e.rules[1];
    assert_eq!(other.status, RuleStatus::NotReached);
    assert!(!other.target.matched);
    assert_eq!(
        other.target.mismatch.as_deref(),
        Some("scope `builtin` is not `plugin`")
    );
    assert!(!e.rules[2].enabled);
    assert!(e.rules[3].matched, "`after` would have matched");
    assert_eq!(e.rules[3].status, RuleStatus::NotReached);

    assert_eq!(e.outcome.outcome, OutcomeKind::Abort);
    assert_eq!(e.outcome.reason.as_deref(), Some("blocked: rm -rf /"));
    assert_eq!(e.outcome.fired, ["block"]);
    assert!(e.notes.is_empty(), "{:?}", e.notes);
}

#[test]
fn conditions_see_the_edits_of_earlier_rules() {
    let t = table(
        r#"
        hook narrow on child.pre_spawn priority 1 {
            when payload.capabilities & 8 != 0
            set payload.capabilities = payload.capabilities & ~8
        }
        hook check on child.pre_spawn priority 2 {
            when payload.capabilities == 7
            log info "narrowed"
        }
        "#,
    );
    let e = explain(
        &t,
        "child.pre_spawn",
        "builtin::llm",
        json!({"capabilities": 15}),
    );
    assert_eq!(e.rules[0].status, RuleStatus::Fired);
    assert_eq!(e.rules[0].changes, ["payload.capabilities: 15 -> 7"]);
    let check = &e.rules[1];
    assert_eq!(check.status, RuleStatus::Fired, "it sees 7, not 15");
    let CondExplanation::Atom { fields, value, .. } = &check.condition else {
        panic!("{:?}", check.condition);
    };
    assert!(value);
    assert_eq!(fields[0].path, "payload.capabilities");
    assert_eq!(fields[0].value, Some(json!(7)));
    // The caller's context is not touched.
    assert_eq!(e.outcome.context.payload, json!({"capabilities": 7}));
}

#[test]
fn rules_the_index_skips_are_explained_too() {
    // `b` is triggered by `payload.tool == "read"`: dispatch never looks at
    // it for an `exec` event, but explain shows its false atom.
    let t = table(
        r#"
        hook a on tool.pre_execute { when payload.tool == "exec" log info "a" }
        hook b on tool.pre_execute { when payload.tool == "read" and payload.args matches /x/ log info "b" }
        hook c on tool.pre_execute at lua::* { log info "c" }
        "#,
    );
    let e = explain(
        &t,
        "tool.pre_execute",
        "builtin::llm",
        json!({"tool": "exec"}),
    );
    assert_eq!(e.rules[0].status, RuleStatus::Fired);
    assert_eq!(e.rules[1].status, RuleStatus::NoMatch);
    assert_eq!(
        atoms(&e.rules[1].condition),
        [
            ("payload.tool == \"read\"".to_string(), false),
            ("payload.args matches /x/".to_string(), false),
        ]
    );
    assert_eq!(e.rules[2].status, RuleStatus::NoMatch);
    assert!(!e.rules[2].target.matched);
    assert!(e.notes.is_empty(), "{:?}", e.notes);
}

#[test]
fn condition_parts_point_at_their_source_even_in_macros() {
    let t = table(
        "macro is_exec = payload.tool == \"exec\"\n\
         hook a on tool.pre_execute {\n\
         \x20   when is_exec or payload.args starts_with \"sudo\"\n\
         \x20   unless payload.dry_run == true\n\
         \x20   log info \"x\"\n\
         }\n",
    );
    let e = explain(
        &t,
        "tool.pre_execute",
        "a::b",
        json!({"tool": "read", "args": "sudo ls"}),
    );
    let mut at = Vec::new();
    fn walk(c: &CondExplanation, out: &mut Vec<(u32, u32)>) {
        match c {
            CondExplanation::Atom { at, .. } => {
                let at = at.as_ref().unwrap();
                assert_eq!(at.file, "t.hooks");
                out.push((at.line, at.col));
            }
            CondExplanation::Not { operand, .. } => walk(operand, out),
            CondExplanation::All { operands, .. } | CondExplanation::Any { operands, .. } => {
                operands.iter().for_each(|o| walk(o, out))
            }
            CondExplanation::True => {}
        }
    }
    walk(&e.rules[0].condition, &mut at);
    assert_eq!(at, [(1, 17), (3, 21), (4, 12)]);
    assert_eq!(e.rules[0].status, RuleStatus::Fired);
}

#[test]
fn the_depth_guard_is_explained() {
    let t = table("hook a on tool.pre_execute { log info \"x\" }");
    let mut ctx = HookContext::new("tool.pre_execute", "a::b", json!({}));
    ctx.depth = 4;
    let e = t.explain("tool.pre_execute", &Target::new("a::b"), &ctx);
    assert_eq!(e.rules[0].status, RuleStatus::DepthLimit);
    assert!(e.outcome.warnings[0].contains("depth 4 reached the limit 4"));
}

#[test]
fn explanations_agree_with_dispatch_on_the_shipped_rules() {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let compiled = hookc::compile_paths(&[rules], &hookc::Options::default()).unwrap();
    let table = compiled.table;
    for entry in
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/events")).unwrap()
    {
        let path = entry.unwrap().path();
        let ctx: HookContext =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let target = Target::new(&ctx.component_id);
        let e = table.explain(ctx.hook_point.as_str(), &target, &ctx);
        let mut copy = ctx.clone();
        let mut scratch = table.scratch();
        let report = table
            .dispatch(&mut scratch, ctx.hook_point.as_str(), &target, &mut copy)
            .report(&copy);
        assert_eq!(e.outcome, report, "{}", path.display());
        let fired: Vec<&str> = e
            .rules
            .iter()
            .filter(|r| r.status == RuleStatus::Fired)
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(fired, report.fired, "{}", path.display());
        assert!(e.notes.is_empty(), "{}: {:?}", path.display(), e.notes);
        // Round-trips as JSON.
        let back: Explanation = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
        assert_eq!(back, e);
    }
}

#[test]
fn a_point_without_rules() {
    let t = table("hook a on tool.pre_execute { continue }");
    let e = explain(&t, "bus.on_register", "a::b", json!({}));
    assert!(e.rules.is_empty());
    assert_eq!(e.kind, None);
    assert_eq!(e.outcome.outcome, OutcomeKind::Continue);
}

// ---------------------------------------------------------------- the CLI

fn hookc(args: &[&str], stdin: Option<&str>) -> String {
    let out = common::hookc_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, stdin);
    let code = out
        .code
        .map_or_else(|| "signal".to_string(), |c| c.to_string());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).display().to_string();
    format!(
        "exit: {code}\n----- stdout -----\n{}----- stderr -----\n{}",
        out.stdout, out.stderr
    )
    .replace(&root, "[ROOT]")
}

const ORCS_RULES: &str = "tests/fixtures/explain/orcs.hooks";
const ORCS_EVENTS: &str = "tests/fixtures/explain";
const CLAUDE_RULES: &str = "tests/fixtures/schemas/claude.hooks";
const CLAUDE_EVENTS: &str = "tests/fixtures/schemas/claude-code-events";

#[test]
fn cli_human_orcs_abort() {
    insta::assert_snapshot!(hookc(
        &[
            "explain",
            ORCS_RULES,
            "--event",
            &format!("{ORCS_EVENTS}/tool_exec_rm.json"),
        ],
        None
    ));
}

#[test]
fn cli_human_orcs_edit() {
    insta::assert_snapshot!(hookc(
        &[
            "explain",
            ORCS_RULES,
            "--event",
            &format!("{ORCS_EVENTS}/child_spawn_llm.json"),
        ],
        None
    ));
}

#[test]
fn cli_human_claude_code_event() {
    insta::assert_snapshot!(hookc(
        &[
            "explain",
            CLAUDE_RULES,
            "--event",
            &format!("{CLAUDE_EVENTS}/pre_tool_use_bash_npm_test.json"),
        ],
        None
    ));
}

#[test]
fn cli_human_claude_code_ask() {
    insta::assert_snapshot!(hookc(
        &[
            "explain",
            CLAUDE_RULES,
            "--event",
            &format!("{CLAUDE_EVENTS}/pre_tool_use_write_outside_src.json"),
        ],
        None
    ));
}

#[test]
fn cli_json_claude_code_stop() {
    insta::assert_snapshot!(hookc(
        &[
            "explain",
            CLAUDE_RULES,
            "--format",
            "json",
            "--event",
            &format!("{CLAUDE_EVENTS}/stop_hook_active.json"),
        ],
        None
    ));
}

#[test]
fn cli_from_a_table_and_stdin_with_overrides() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("explain-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let tbl = dir.join("claude.tbl");
    let compiled = hookc(
        &["compile", CLAUDE_RULES, "-o", tbl.to_str().unwrap()],
        None,
    );
    assert!(compiled.starts_with("exit: 0"), "{compiled}");
    let event =
        std::fs::read_to_string(format!("{CLAUDE_EVENTS}/user_prompt_submit_secret.json")).unwrap();
    let out = hookc(
        &[
            "explain",
            "--table",
            tbl.to_str().unwrap(),
            "--event",
            "-",
            "--target",
            "claude-code::prompt",
        ],
        Some(&event),
    );
    assert!(out.starts_with("exit: 0"), "{out}");
    assert!(
        out.contains("point `UserPromptSubmit` (pre) for `claude-code::prompt`"),
        "{out}"
    );
    assert!(out.contains("✓ block-secret-prompts"), "{out}");
    assert!(out.contains("outcome   abort"), "{out}");
}

#[test]
fn cli_unknown_point() {
    insta::assert_snapshot!(hookc(
        &[
            "explain",
            ORCS_RULES,
            "--event",
            &format!("{ORCS_EVENTS}/tool_exec_rm.json"),
            "--point",
            "tool.pre_exec",
        ],
        None
    ));
}

#[test]
fn cli_help() {
    insta::assert_snapshot!(hookc(&["explain", "--help"], None));
}

#[test]
fn every_atom_has_a_location_whatever_the_shape() {
    let t = table(
        r#"
        list l = ["a", "b"]
        macro m = payload.x == 1 or not (payload.y != 2)
        hook a on tool.pre_execute {
            when (payload.a not in l and m) or payload.b == true
            unless not (payload.c exists or payload.d < 3)
            when true
            when payload.e & 4 == 4 and not false
            log info "x"
        }
        "#,
    );
    let e = explain(
        &t,
        "tool.pre_execute",
        "a::b",
        json!({"a": "c", "c": 0, "x": 1, "e": 4}),
    );
    fn walk(c: &CondExplanation, out: &mut Vec<(u32, u32)>) {
        match c {
            CondExplanation::Atom { at, atom, .. } => {
                let at = at
                    .as_ref()
                    .unwrap_or_else(|| panic!("`{atom}` has no location"));
                out.push((at.line, at.col));
            }
            CondExplanation::Not { operand, .. } => walk(operand, out),
            CondExplanation::All { operands, .. } | CondExplanation::Any { operands, .. } => {
                operands.iter().for_each(|o| walk(o, out))
            }
            CondExplanation::True => {}
        }
    }
    let mut at = Vec::new();
    walk(&e.rules[0].condition, &mut at);
    assert_eq!(
        at,
        [
            (5, 19), // payload.a not in l
            (3, 19), // payload.x == 1, in the macro
            (3, 41), // (payload.y != 2)
            (5, 48), // payload.b == true
            (6, 25), // payload.c exists
            (6, 45), // payload.d < 3
            (8, 18), // payload.e & 4 == 4
        ]
    );
    assert_eq!(e.rules[0].status, RuleStatus::Fired);
    // `hookc explain` on the rule file prints it so too.
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("pairs.hooks");
    std::fs::write(
        &rules,
        "hook pairs on tool.pre_execute {\n    when any c in shell(payload.args):\n        \
         any s in c.args:\n            any w in shell(payload.args):\n                \
         lower(w.program) == \"cp\" and lower(basename(s)) == lower(w.args[1])\n    \
         abort \"runs what it copied\"\n}\n",
    )
    .unwrap();
    let event = r#"{"hook_point": "tool.pre_execute", "component_id": "builtin::llm", "payload": {"args": "cp a X.sh; bash ./x.sh"}}"#;
    let run = common::hookc_in(
        dir.path(),
        &["explain", "pairs.hooks", "--event", "-"],
        Some(event),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains(
            "when    ✓ any $ in shell(payload.args): any $ in $0.args: any $ in shell(payload.args): \
             (lower($0.program) == \"cp\") and (lower(basename($1)) == lower($0.args[1])) → true"
        ),
        "{}",
        run.stdout
    );
}

/// `explain` shows the shell view a condition tested, beside the field.
#[test]
fn explain_shows_the_shell_view_a_condition_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let event = r#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "sudo rm -rf /"}}"#;
    let run = common::hookc_in(
        root,
        &["explain", "rules/claude-code/", "--event", "-"],
        Some(event),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    // One line per simple command, below the condition that read it.
    assert!(
        run.stdout.contains(
            "        shell(payload.tool_input.command): 1 command\n          1. rm  flags -r -f  operands /  wrapped by sudo\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("✓ deny-catastrophic-rm"),
        "{}",
        run.stdout
    );
    // JSON keeps the whole view.
    let run = common::hookc_in(
        root,
        &[
            "explain",
            "rules/claude-code/",
            "--event",
            "-",
            "--format",
            "json",
        ],
        Some(event),
    );
    assert!(
        run.stdout
            .contains(r#""path": "shell(payload.tool_input.command)""#)
            && run.stdout.contains(r#""program": "rm""#),
        "{}",
        run.stdout
    );
}

/// Conditions are shown as the rules write them (`lower(payload.tool) ==
/// "rm"`, a glob, a list's name), not as they compile (a regex); a negated
/// test shows the positive test its `not` holds. From a table alone,
/// without the sources, the compiled form is all there is.
#[test]
fn cli_human_conditions_as_written() {
    let rules = "tests/fixtures/explain/written/rules.hooks";
    let event = "tests/fixtures/explain/written/event.json";
    insta::assert_snapshot!(hookc(&["explain", rules, "--event", event], None));
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("explain-written");
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("rules.tbl");
    let table = table.to_str().unwrap();
    hookc(&["compile", rules, "-o", table], None);
    let compiled = hookc(&["explain", "--table", table, "--event", event], None);
    assert!(
        compiled.contains("✓ payload.tool matches /^(?:[rR][mM])$/ → true"),
        "{compiled}"
    );
}

/// A call the compiler moved out of a quantifier (it reads only an outer
/// element) is shown where it was written, and decides as written.
#[test]
fn calls_moved_out_of_a_quantifier_are_shown_as_written() {
    let t = table(
        r#"
        hook pairs on tool.pre_execute {
            when any c in shell(payload.args):
                any s in c.args:
                    any w in shell(payload.args):
                        lower(w.program) == "cp" and lower(basename(s)) == lower(w.args[1])
            abort "runs what it copied"
        }
        "#,
    );
    let e = explain(
        &t,
        "tool.pre_execute",
        "builtin::llm",
        json!({"args": "cp a X.sh; bash ./x.sh"}),
    );
    assert_eq!(
        atoms(&e.rules[0].condition),
        [(
            "any $ in shell(payload.args): any $ in $0.args: any $ in shell(payload.args): \
             (lower($0.program) == \"cp\") and (lower(basename($1)) == lower($0.args[1]))"
                .to_string(),
            true
        )]
    );
    assert_eq!(e.rules[0].status, RuleStatus::Fired);
}

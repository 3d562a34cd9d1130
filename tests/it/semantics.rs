//! The dispatch semantics of DESIGN.md, one rule a test: order, FQL, chain
//! control, edits, decisions, the depth guard. Every test compiles real
//! `.hooks` text, round-trips the table through bytes, and dispatches.

#![expect(
    clippy::panic,
    clippy::expect_used,
    reason = "test helpers fail the test on bad fixtures"
)]

use hookc::{HookContext, OutcomeKind, Report, Table, Target};
use serde_json::{json, Value};

fn table(files: &[(&str, &str)]) -> Table {
    let sources = files
        .iter()
        .map(|(name, text)| hookc::span::SourceFile::new(*name, *text))
        .collect();
    let compiled = hookc::compile_sources(sources, &hookc::Options::default())
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}"));
    Table::from_bytes(&compiled.table.to_bytes()).expect("table round-trips")
}

fn dispatch(table: &Table, point: &str, target: Target<'_>, payload: Value) -> Report {
    let mut ctx = HookContext::new(point, target.component, payload);
    ctx.child_id = target.child.map(str::to_string);
    ctx.instance = target.instance.map(str::to_string);
    let mut scratch = table.scratch();
    let outcome = table.dispatch(&mut scratch, point, &target, &mut ctx);
    outcome.report(&ctx)
}

fn run(rules: &str, point: &str, component: &str, payload: Value) -> Report {
    dispatch(
        &table(&[("test.hooks", rules)]),
        point,
        Target::new(component),
        payload,
    )
}

fn fired(r: &Report) -> Vec<&str> {
    r.fired.iter().map(String::as_str).collect()
}

#[test]
fn priority_ascending_then_declaration_order() {
    let r = run(
        r#"
        hook c on tool.pre_execute priority 100 { log info "c" }
        hook a on tool.pre_execute priority 10 { log info "a" }
        hook d on tool.pre_execute { log info "d" }
        hook b on tool.pre_execute priority 10 { log info "b" }
        hook e on tool.pre_execute priority -5 { log info "e" }
        "#,
        "tool.pre_execute",
        "builtin::llm",
        json!({}),
    );
    assert_eq!(fired(&r), ["e", "a", "b", "c", "d"]);
    assert_eq!(r.outcome, OutcomeKind::Continue);
}

#[test]
fn ties_follow_file_order_across_files() {
    let t = table(&[
        ("one.hooks", "hook one-a on tool.pre_execute { continue }\nhook one-b on tool.pre_execute priority 5 { continue }"),
        ("two.hooks", "hook two-a on tool.pre_execute { continue }\nhook two-b on tool.pre_execute priority 5 { continue }"),
    ]);
    let r = dispatch(&t, "tool.pre_execute", Target::new("x::y"), json!({}));
    assert_eq!(fired(&r), ["one-b", "two-b", "one-a", "two-a"]);
}

#[test]
fn disabled_rules_never_run() {
    let r = run(
        r#"
        hook off on tool.pre_execute disabled { abort "never" }
        hook on-rule on tool.pre_execute { continue }
        "#,
        "tool.pre_execute",
        "builtin::llm",
        json!({}),
    );
    assert_eq!(fired(&r), ["on-rule"]);
    assert_eq!(r.outcome, OutcomeKind::Continue);
}

#[test]
fn fql_exact_wildcards_and_no_partial_globbing() {
    let rules = r#"
        hook exact on tool.pre_execute at builtin::llm { continue }
        hook scope on tool.pre_execute at builtin::* { continue }
        hook name on tool.pre_execute at *::llm { continue }
        hook everything on tool.pre_execute at *::* { continue }
        hook partial on tool.pre_execute at "builtin::ll*" { continue }
        hook plugin on tool.pre_execute at plugin::* { continue }
    "#;
    let t = table(&[("t.hooks", rules)]);
    let r = dispatch(
        &t,
        "tool.pre_execute",
        Target::new("builtin::llm"),
        json!({}),
    );
    assert_eq!(fired(&r), ["exact", "scope", "name", "everything"]);
    let r = dispatch(
        &t,
        "tool.pre_execute",
        Target::new("plugin::llm"),
        json!({}),
    );
    assert_eq!(fired(&r), ["name", "everything", "plugin"]);
    let r = dispatch(
        &t,
        "tool.pre_execute",
        Target::new("builtin::ll*"),
        json!({}),
    );
    assert_eq!(fired(&r), ["scope", "everything", "partial"]);
    let r = dispatch(
        &t,
        "tool.pre_execute",
        Target::new("Builtin::llm"),
        json!({}),
    );
    assert_eq!(
        fired(&r),
        ["name", "everything"],
        "names are case-sensitive"
    );
}

#[test]
fn fql_child_paths_and_instances() {
    let rules = r#"
        hook no-child on child.pre_run at builtin::llm { continue }
        hook any-child on child.pre_run at builtin::llm/* { continue }
        hook agent-1 on child.pre_run at builtin::llm/agent-1 { continue }
        hook nested on child.pre_run at builtin::llm/agent-1/sub { continue }
        hook primary on child.pre_run at "builtin::llm#primary" { continue }
    "#;
    let t = table(&[("t.hooks", rules)]);
    let base = Target::new("builtin::llm");
    let r = dispatch(&t, "child.pre_run", base, json!({}));
    assert_eq!(fired(&r), ["no-child", "primary"]);
    let r = dispatch(&t, "child.pre_run", base.with_child("agent-1"), json!({}));
    assert_eq!(fired(&r), ["no-child", "any-child", "agent-1", "primary"]);
    let r = dispatch(
        &t,
        "child.pre_run",
        base.with_child("agent-1/sub"),
        json!({}),
    );
    assert_eq!(fired(&r), ["no-child", "any-child", "nested", "primary"]);
    let r = dispatch(
        &t,
        "child.pre_run",
        base.with_instance("secondary"),
        json!({}),
    );
    assert_eq!(fired(&r), ["no-child"]);
    let r = dispatch(
        &t,
        "child.pre_run",
        base.with_instance("primary"),
        json!({}),
    );
    assert_eq!(fired(&r), ["no-child", "primary"]);
}

#[test]
fn abort_ends_the_chain_at_every_point_kind_and_drops_edits() {
    for point in ["tool.pre_execute", "tool.post_execute", "auth.on_grant"] {
        let rules = format!(
            r#"
            hook edit on {point} priority 1 {{ set payload.edited = true }}
            hook stop on {point} priority 2 {{ abort "stopped at {{point}}" }}
            hook after on {point} priority 3 {{ set payload.after = true }}
            "#
        );
        let r = run(&rules, point, "builtin::llm", json!({"x": 1}));
        assert_eq!(r.outcome, OutcomeKind::Abort, "{point}");
        assert_eq!(
            r.reason.as_deref(),
            Some(format!("stopped at {point}").as_str())
        );
        assert_eq!(fired(&r), ["edit", "stop"]);
        assert_eq!(
            r.context.payload,
            json!({"x": 1}),
            "edits before an abort are dropped"
        );
        assert_eq!(r.decision, Some(hookc::Decision::Deny));
    }
}

#[test]
fn abort_puts_back_each_part_as_it_was_before_its_first_edit() {
    // The metadata is edited first, then the payload, then the metadata
    // again (a key set in place, a key removed): the abort puts both back,
    // keys in their order.
    let t = table(&[(
        "test.hooks",
        r#"
        hook m1 on tool.pre_execute priority 1 { meta seen = true }
        hook p on tool.pre_execute priority 2 { set payload.x = 2 }
        hook m2 on tool.pre_execute priority 3 { meta first = "changed" }
        hook u on tool.pre_execute priority 4 { unset metadata.keep }
        hook p2 on tool.pre_execute priority 5 { append payload.s "!" }
        hook stop on tool.pre_execute priority 6 {
            when metadata.first == "changed" and payload.x == 2 and payload.s == "a!"
            abort "stopped"
        }
        "#,
    )]);
    let mut ctx = HookContext::new(
        "tool.pre_execute",
        "builtin::llm",
        json!({"x": 1, "s": "a"}),
    );
    ctx.metadata.insert("first".into(), json!("a"));
    ctx.metadata.insert("keep".into(), json!(1));
    let original = ctx.clone();
    let mut scratch = t.scratch();
    for round in 0..2 {
        let outcome = t.dispatch(
            &mut scratch,
            "tool.pre_execute",
            &Target::new("builtin::llm"),
            &mut ctx,
        );
        assert_eq!(outcome.kind(), OutcomeKind::Abort, "round {round}");
        assert_eq!(outcome.fired().count(), 6, "round {round}");
        assert_eq!(ctx, original, "round {round}: the context is as it was");
        let keys: Vec<&String> = ctx.metadata.keys().collect();
        assert_eq!(keys, ["first", "keep"], "round {round}: key order kept");
    }
}

#[test]
fn a_meta_edit_is_seen_by_tests_evaluated_before_it() {
    // Each test on the metadata is first evaluated (false) before the
    // `meta` edit, then asked again after it: a field test, and an
    // expression reading two roots.
    for test in ["metadata.level == 2", "metadata.level == payload.want"] {
        let rules = format!(
            r#"
            hook early on tool.pre_execute priority 1 {{ when {test} abort "early" }}
            hook bump on tool.pre_execute priority 2 {{ meta level = 2 }}
            hook late on tool.pre_execute priority 3 {{ when {test} abort "late" }}
            "#
        );
        let r = run(
            &rules,
            "tool.pre_execute",
            "builtin::llm",
            json!({"want": 2}),
        );
        assert_eq!(r.reason.as_deref(), Some("late"), "{test}");
        assert_eq!(fired(&r), ["bump", "late"], "{test}");
    }
}

#[test]
fn deny_is_abort() {
    let r = run(
        r#"hook d on tool.pre_execute { deny "no" }"#,
        "tool.pre_execute",
        "a::b",
        json!({}),
    );
    assert_eq!(r.outcome, OutcomeKind::Abort);
    assert_eq!(r.reason.as_deref(), Some("no"));
}

#[test]
fn skip_ends_the_chain_with_a_value() {
    let r = run(
        r#"
        hook m on request.pre_dispatch priority 1 { meta seen = true }
        hook s on request.pre_dispatch priority 2 { skip {"skipped": true, "op": "{payload.operation}"} }
        hook never on request.pre_dispatch priority 3 { abort "unreachable" }
        "#,
        "request.pre_dispatch",
        "builtin::llm",
        json!({"operation": "chat"}),
    );
    assert_eq!(r.outcome, OutcomeKind::Skip);
    assert_eq!(r.value, Some(json!({"skipped": true, "op": "chat"})));
    assert_eq!(fired(&r), ["m", "s"]);
    assert!(
        r.context.metadata.is_empty(),
        "metadata edits are dropped too"
    );
}

#[test]
fn replace_at_post_points_swaps_the_payload_and_goes_on() {
    let r = run(
        r#"
        hook swap on tool.post_execute priority 1 { replace {"result": "replaced"} }
        hook sees on tool.post_execute priority 2 {
            when payload.result == "replaced"
            append payload.result " and seen"
        }
        "#,
        "tool.post_execute",
        "builtin::llm",
        json!({"result": "original"}),
    );
    assert_eq!(r.outcome, OutcomeKind::Continue);
    assert_eq!(fired(&r), ["swap", "sees"]);
    assert_eq!(r.context.payload, json!({"result": "replaced and seen"}));
}

#[test]
fn replace_at_pre_or_event_points_is_an_error() {
    for point in ["tool.pre_execute", "bus.on_register"] {
        let err = hookc::compile_str("t.hooks", &format!("hook r on {point} {{ replace {{}} }}"))
            .unwrap_err();
        assert!(
            err.iter().any(|d| d.code == "replace-not-post"),
            "{point}: {err}"
        );
    }
}

#[test]
fn edits_chain_into_later_conditions() {
    let r = run(
        r#"
        hook narrow on child.pre_spawn at builtin::llm priority 1 {
            when payload.capabilities & 8 != 0
            set payload.capabilities = payload.capabilities & ~8
        }
        hook check on child.pre_spawn priority 2 {
            when payload.capabilities & 8 == 0
            meta narrowed = true
        }
        "#,
        "child.pre_spawn",
        "builtin::llm",
        json!({"capabilities": 15}),
    );
    assert_eq!(fired(&r), ["narrow", "check"]);
    assert_eq!(r.context.payload["capabilities"], json!(7));
    assert_eq!(r.context.metadata["narrowed"], json!(true));
}

#[test]
fn rewrite_prepend_append_unset() {
    let r = run(
        r#"
        pattern secret = /AKIA[0-9A-Z]{16}/
        hook redact on tool.post_execute {
            when payload.result matches secret
            rewrite payload.result secret -> "[REDACTED]"
            prepend payload.note "n:"
            append payload.result "!"
            unset payload.debug
        }
        "#,
        "tool.post_execute",
        "x::y",
        json!({"result": "key AKIAABCDEFGHIJKLMNOP here", "note": "x", "debug": 1}),
    );
    assert_eq!(
        r.context.payload,
        json!({"result": "key [REDACTED] here!", "note": "n:x"})
    );
}

#[test]
fn rewrite_replacements_name_the_regex_groups() {
    let r = run(
        r#"
        hook swap on tool.pre_execute {
            rewrite payload.who /(\w+)@(?P<host>[\w.]+)/ -> "${host}: $1 costs $$5"
        }
        "#,
        "tool.pre_execute",
        "x::y",
        json!({"who": "ann@example.org"}),
    );
    assert_eq!(r.context.payload["who"], "example.org: ann costs $5");
}

#[test]
fn decisions_combine_most_restrictive_wins() {
    let allow_then_ask = run(
        r#"
        hook a on tool.pre_execute priority 1 { allow }
        hook b on tool.pre_execute priority 2 { ask "sure?" }
        hook c on tool.pre_execute priority 3 { allow }
        "#,
        "tool.pre_execute",
        "x::y",
        json!({}),
    );
    assert_eq!(allow_then_ask.outcome, OutcomeKind::Ask);
    assert_eq!(allow_then_ask.decision, Some(hookc::Decision::Ask));
    assert_eq!(allow_then_ask.reason.as_deref(), Some("sure?"));
    assert_eq!(
        fired(&allow_then_ask),
        ["a", "b", "c"],
        "ask does not stop the chain"
    );

    let ask_then_abort = run(
        r#"
        hook a on tool.pre_execute priority 1 { ask "sure?" }
        hook b on tool.pre_execute priority 2 { abort "no" }
        "#,
        "tool.pre_execute",
        "x::y",
        json!({}),
    );
    assert_eq!(ask_then_abort.outcome, OutcomeKind::Abort);
    assert_eq!(ask_then_abort.decision, Some(hookc::Decision::Deny));
    assert_eq!(ask_then_abort.reason.as_deref(), Some("no"));

    let allow_only = run(
        "hook a on tool.pre_execute { allow }",
        "tool.pre_execute",
        "x::y",
        json!({}),
    );
    assert_eq!(allow_only.outcome, OutcomeKind::Continue);
    assert_eq!(allow_only.decision, Some(hookc::Decision::Allow));

    let none = run(
        "hook a on tool.pre_execute { continue }",
        "tool.pre_execute",
        "x::y",
        json!({}),
    );
    assert_eq!(none.decision, None);
}

#[test]
fn depth_guard_stops_the_chain_with_a_warning() {
    let t = table(&[(
        "t.hooks",
        r#"
        hook first on tool.pre_execute priority 1 { meta a = 1 }
        hook second on tool.pre_execute priority 2 { abort "would abort" }
        "#,
    )]);
    let mut ctx = HookContext::new("tool.pre_execute", "x::y", json!({}));
    ctx.depth = 4;
    let mut scratch = t.scratch();
    let outcome = t.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("x::y"),
        &mut ctx,
    );
    assert_eq!(outcome.kind(), OutcomeKind::Continue);
    assert_eq!(outcome.fired().count(), 0);
    assert_eq!(outcome.warnings().len(), 1);
    assert!(
        outcome.warnings()[0].contains("depth 4 reached the limit 4"),
        "{:?}",
        outcome.warnings()
    );

    // Below the limit the chain runs.
    ctx.depth = 3;
    let outcome = t.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("x::y"),
        &mut ctx,
    );
    assert!(outcome.is_abort());
}

#[test]
fn conditions_and_operators() {
    let rules = r#"
        list dangerous = ["rm -rf", "mkfs", "dd if="]
        macro is_exec = payload.tool == "exec"
        hook contains-any on tool.pre_execute { when is_exec and payload.args contains any dangerous
            context "dangerous" }
        hook listed on tool.pre_execute { when payload.tool in ["exec", "shell"] context "in" }
        hook not-in on tool.pre_execute { when payload.tool not in ["read"] context "not-in" }
        hook prefix on tool.pre_execute { when payload.args starts_with "rm" and payload.args ends_with "/" context "affix" }
        hook cmp on tool.pre_execute { when payload.size > 10 and payload.size <= 100 context "cmp" }
        hook arith on tool.pre_execute { when payload.size * 2 + 1 == 101 and payload.size % 7 == 1 context "arith" }
        hook bits on tool.pre_execute { when (payload.caps | 16) ^ 1 == 31 and payload.caps << 1 == 28 and payload.caps >> 2 == 3 context "bits" }
        hook has-size on tool.pre_execute { when payload.size exists and not payload.nothing exists context "exists" }
        hook unless-read on tool.pre_execute { unless payload.tool == "read" context "unless" }
        hook either on tool.pre_execute { when payload.tool == "nope" or depth == 0 context "or" }
        hook globbed on tool.pre_execute { when payload.path glob "src/**/*.rs" context "glob" }
        hook regexp on tool.pre_execute { when payload.args matches /^RM/i context "regex" }
        hook fields on tool.pre_execute { when component == "builtin::llm" and point == "tool.pre_execute" and principal.id == "u1" context "fields" }
        hook neg on tool.pre_execute { when -payload.size < 0 and payload.list contains 2 context "neg" }
    "#;
    let t = table(&[("t.hooks", rules)]);
    let mut ctx = HookContext::new(
        "tool.pre_execute",
        "builtin::llm",
        json!({"tool": "exec", "args": "rm -rf /", "size": 50, "caps": 14, "path": "src/a/b.rs", "list": [1, 2]}),
    );
    ctx.principal.id = "u1".into();
    let mut scratch = t.scratch();
    let outcome = t.dispatch(
        &mut scratch,
        "tool.pre_execute",
        &Target::new("builtin::llm"),
        &mut ctx,
    );
    assert_eq!(
        outcome.additional_context(),
        [
            "dangerous",
            "in",
            "not-in",
            "affix",
            "cmp",
            "arith",
            "bits",
            "exists",
            "unless",
            "or",
            "glob",
            "regex",
            "fields",
            "neg"
        ]
    );
}

/// A comparison whose operand cannot be evaluated (`null & 8`, a bit
/// operation on a missing field or a string) does not hold, whether it is
/// written `==` or `!=`; a missing field compared as itself still reads as
/// null (`payload.x != "a"` holds without it).
#[test]
fn a_comparison_that_cannot_be_evaluated_holds_for_neither_operator() {
    let rules = r#"
        hook bit-set on child.pre_spawn { when payload.caps & 8 != 0 abort "bit set" }
        hook bit-clear on child.pre_spawn { when payload.caps & 8 == 0 context "bit clear" }
        hook not-a on child.pre_spawn { when payload.mode != "a" context "not a" }
    "#;
    let answer = |payload: Value| {
        let r = run(rules, "child.pre_spawn", "builtin::llm", payload);
        fired(&r).iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(answer(json!({"caps": 15, "mode": "a"})), ["bit-set"]);
    assert_eq!(
        answer(json!({"caps": 7, "mode": "b"})),
        ["bit-clear", "not-a"]
    );
    assert_eq!(answer(json!({})), ["not-a"], "no caps: neither bit rule");
    assert_eq!(
        answer(json!({"caps": "15", "mode": "a"})),
        Vec::<String>::new(),
        "caps a string: neither bit rule"
    );
}

#[test]
fn templates_fill_from_the_context() {
    let r = run(
        r#"hook t on request.pre_dispatch { abort "op={payload.operation} n={payload.n} obj={payload.o} missing=[{payload.none}] {{literal}}" }"#,
        "request.pre_dispatch",
        "x::y",
        json!({"operation": "chat", "n": 3, "o": {"a": 1}}),
    );
    assert_eq!(
        r.reason.as_deref(),
        Some(r#"op=chat n=3 obj={"a":1} missing=[] {literal}"#)
    );
}

#[test]
fn points_without_rules_continue() {
    let r = run(
        "hook a on tool.pre_execute { abort }",
        "tool.post_execute",
        "x::y",
        json!({}),
    );
    assert_eq!(r.outcome, OutcomeKind::Continue);
    assert!(r.fired.is_empty());
}

#[test]
fn failed_effects_warn_when_open_and_abort_when_closed() {
    let open = run(
        r#"hook e on tool.pre_execute { exec "./no-such-check.sh" }"#,
        "tool.pre_execute",
        "x::y",
        json!({}),
    );
    assert_eq!(open.outcome, OutcomeKind::Continue);
    assert_eq!(open.warnings.len(), 1, "{:?}", open.warnings);
    assert!(
        open.warnings[0].starts_with("rule `e` failed open: cannot run `./no-such-check.sh`"),
        "{:?}",
        open.warnings
    );
    let closed = run(
        r#"hook e on tool.pre_execute fail closed { call "unregistered" }"#,
        "tool.pre_execute",
        "x::y",
        json!({}),
    );
    assert_eq!(closed.outcome, OutcomeKind::Abort);
    assert_eq!(
        closed.reason.as_deref(),
        Some("rule `e` failed closed: no handler named `unregistered` is registered")
    );
    assert_eq!(closed.decision, Some(hookc::Decision::Deny));
}

#[test]
fn log_lines_are_recorded() {
    let r = run(
        r#"hook audit on request.pre_dispatch at builtin::* priority 50 { log info "request {payload.operation} from {principal.id}" }"#,
        "request.pre_dispatch",
        "builtin::llm",
        json!({"operation": "chat"}),
    );
    assert_eq!(r.logs.len(), 1);
    assert_eq!(r.logs[0].message, "request chat from ");
    assert_eq!(r.logs[0].rule, "audit");
}

#[test]
fn orcs_points_dispatch_by_enum_too() {
    let t = table(&[("t.hooks", "hook a on auth.on_grant { abort \"x\" }")]);
    let mut ctx = HookContext::new(hookc::HookPoint::AuthOnGrant, "x::y", json!({}));
    let mut scratch = t.scratch();
    let outcome = t.dispatch(
        &mut scratch,
        hookc::HookPoint::AuthOnGrant,
        &Target::new("x::y"),
        &mut ctx,
    );
    assert!(outcome.is_abort());
}

//! The live registry: native hooks interleaved with the table by priority,
//! registration by owner, switching hooks and rules off, `call` handlers,
//! panics as failures, and atomic reloads under load.

#![expect(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "tests fail loudly on bad fixtures"
)]

use hookc::ir::FailMode;
use hookc::NativeHook;
use hookc::{FqlPattern, HookAction, HookContext, OutcomeKind, Registry, Table, Target};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

fn table(rules: &str) -> Table {
    let compiled = hookc::compile_str("test.hooks", rules)
        .unwrap_or_else(|d| panic!("rules do not compile:\n{d}"));
    Table::from_bytes(&compiled.table.to_bytes()).expect("table round-trips")
}

const POINT: &str = "tool.pre_execute";

fn ctx(payload: serde_json::Value) -> HookContext {
    HookContext::new(POINT, "builtin::llm", payload)
}

/// A native hook built from a closure.
struct Native<F> {
    id: String,
    fql: FqlPattern,
    point: &'static str,
    priority: i32,
    fail: FailMode,
    run: F,
}

impl<F: Fn(&mut HookContext) -> HookAction + Send + Sync> NativeHook for Native<F> {
    fn id(&self) -> &str {
        &self.id
    }
    fn fql_pattern(&self) -> &FqlPattern {
        &self.fql
    }
    fn hook_point(&self) -> &str {
        self.point
    }
    fn priority(&self) -> i32 {
        self.priority
    }
    fn fail_mode(&self) -> FailMode {
        self.fail
    }
    fn execute(&self, ctx: &mut HookContext) -> HookAction {
        (self.run)(ctx)
    }
}

fn native<F>(id: &str, priority: i32, run: F) -> Box<Native<F>>
where
    F: Fn(&mut HookContext) -> HookAction + Send + Sync + 'static,
{
    Box::new(Native {
        id: id.to_string(),
        fql: FqlPattern::parse("builtin::*").unwrap(),
        point: POINT,
        priority,
        fail: FailMode::Open,
        run,
    })
}

/// Appends `name` to `payload.trail`.
fn mark(ctx: &mut HookContext, name: &str) {
    let trail = ctx.payload["trail"].as_str().unwrap_or("").to_string();
    ctx.payload["trail"] = json!(format!("{trail}{name},"));
}

const ORDERED: &str = r#"
hook t10 on tool.pre_execute at builtin::* priority 10 { append payload.trail "t10," }
hook t50 on tool.pre_execute at builtin::* priority 50 { append payload.trail "t50," }
hook t90 on tool.pre_execute at builtin::* priority 90 { append payload.trail "t90," }
"#;

#[test]
fn native_hooks_run_between_rules_by_priority() {
    let registry = Registry::new(table(ORDERED));
    registry.register(native("n5", 5, |c| {
        mark(c, "n5");
        HookAction::Continue
    }));
    registry.register(native("n50", 50, |c| {
        mark(c, "n50");
        HookAction::Continue
    }));
    registry.register(native("n60", 60, |c| {
        mark(c, "n60");
        HookAction::Continue
    }));
    registry.register(native("n200", 200, |c| {
        mark(c, "n200");
        HookAction::Continue
    }));
    let mut scratch = registry.scratch();
    let mut ctx = ctx(json!({"trail": ""}));
    let v = registry.dispatch(&mut scratch, POINT, &Target::new("builtin::llm"), &mut ctx);
    assert_eq!(v.outcome, OutcomeKind::Continue);
    // On a tie (50) the table's rule runs first.
    assert_eq!(ctx.payload["trail"], "n5,t10,t50,n50,n60,t90,n200,");
    assert_eq!(v.fired, ["n5", "t10", "t50", "n50", "n60", "t90", "n200"]);
}

#[test]
fn a_native_edit_is_seen_by_the_rules_after_it() {
    let registry = Registry::new(table(
        r#"hook gate on tool.pre_execute at builtin::* priority 50 {
            when metadata.flag == "on"
            abort "flag was on"
        }"#,
    ));
    registry.register(native("flagger", 10, |c| {
        c.metadata.insert("flag".into(), json!("on"));
        HookAction::Continue
    }));
    let mut scratch = registry.scratch();
    let mut c = ctx(json!({}));
    let v = registry.dispatch(&mut scratch, POINT, &Target::new("builtin::llm"), &mut c);
    assert_eq!(v.reason.as_deref(), Some("flag was on"));
    // The abort restores the context the chain started with.
    assert!(!c.metadata.contains_key("flag"));
}

#[test]
fn an_abort_after_rule_and_native_edits_restores_every_field() {
    // A rule edits the metadata; native code then edits the payload, the
    // metadata and a field rules cannot write; a later rule aborts.
    let registry = Registry::new(table(
        r#"
        hook mark on tool.pre_execute priority 5 { meta marked = true }
        hook gate on tool.pre_execute priority 50 {
            when metadata.flag == "on" and metadata.marked == true
            abort "flag was on"
        }"#,
    ));
    registry.register(native("editor", 10, |c| {
        c.metadata.insert("flag".into(), json!("on"));
        c.payload = json!({"replaced": true});
        c.channel_id = "edited".into();
        HookAction::Continue
    }));
    let mut scratch = registry.scratch();
    let mut c = ctx(json!({"x": 1}));
    c.metadata.insert("before".into(), json!(1));
    let original = c.clone();
    let v = registry.dispatch(&mut scratch, POINT, &Target::new("builtin::llm"), &mut c);
    assert_eq!(v.reason.as_deref(), Some("flag was on"));
    assert_eq!(c, original, "the abort restores the whole context");
}

#[test]
fn native_hooks_run_at_points_the_table_has_no_rules_for() {
    let registry = Registry::new(table(ORDERED));
    let mut hook = native("stop", 100, |_| HookAction::Abort {
        reason: "no signals".into(),
    });
    hook.point = "signal.pre_dispatch";
    registry.register(hook);
    let mut scratch = registry.scratch();
    let mut c = HookContext::new("signal.pre_dispatch", "builtin::llm", json!({}));
    let v = registry.dispatch(
        &mut scratch,
        "signal.pre_dispatch",
        &Target::new("builtin::llm"),
        &mut c,
    );
    assert!(v.is_abort());
    assert_eq!(v.fired, ["stop"]);
}

#[test]
fn point_ids_resolved_once_outlive_reloads_and_find_native_hooks() {
    let registry = Registry::new(table(ORDERED));
    let pre = registry.table().point_id(POINT).unwrap();
    let signal = registry.table().point_id("signal.pre_dispatch").unwrap();
    assert_eq!(pre, hookc::HookPoint::ToolPreExecute.id());
    let mut hook = native("stop", 100, |_| HookAction::Abort {
        reason: "no signals".into(),
    });
    hook.point = "signal.pre_dispatch";
    registry.register(hook);
    let mut scratch = registry.scratch();
    let run = |scratch: &mut hookc::Scratch, id| {
        let mut c = ctx(json!({"trail": ""}));
        let v = registry.dispatch(scratch, id, &Target::new("builtin::llm"), &mut c);
        (v, c.payload["trail"].clone())
    };
    let (v, trail) = run(&mut scratch, pre);
    assert_eq!(
        (v.outcome, trail),
        (OutcomeKind::Continue, json!("t10,t50,t90,"))
    );
    // A point without rules: its native hook runs, found by the id's name.
    assert_eq!(run(&mut scratch, signal).0.fired, ["stop"]);
    // A reload to another table of the same schema keeps the ids valid.
    registry.reload(table(&format!(
        "hook only on {POINT} {{ set payload.trail = \"new\" }}"
    )));
    assert_eq!(run(&mut scratch, pre).1, json!("new"));
    assert_eq!(run(&mut scratch, signal).0.fired, ["stop"]);
    // An id of another schema names no point of this one: nothing runs.
    let claude = hookc::compile_str(
        "c.hooks",
        "schema claude-code\nhook a on PreToolUse { deny \"no\" }",
    )
    .unwrap()
    .table;
    let foreign = claude.point_id("PreToolUse").unwrap();
    let (v, trail) = run(&mut scratch, foreign);
    assert_eq!(
        (v.outcome, v.fired.len(), trail),
        (OutcomeKind::Continue, 0, json!(""))
    );
}

#[test]
fn native_hooks_follow_their_fql_pattern() {
    let registry = Registry::new(table(ORDERED));
    let mut hook = native("plugins-only", 1, |_| HookAction::Abort {
        reason: "plugin".into(),
    });
    hook.fql = FqlPattern::parse("plugin::*").unwrap();
    registry.register(hook);
    let mut scratch = registry.scratch();
    let v = registry.dispatch(
        &mut scratch,
        POINT,
        &Target::new("builtin::llm"),
        &mut ctx(json!({})),
    );
    assert_eq!(v.outcome, OutcomeKind::Continue);
    let mut c = HookContext::new(POINT, "plugin::x", json!({}));
    let v = registry.dispatch(&mut scratch, POINT, &Target::new("plugin::x"), &mut c);
    assert!(v.is_abort());
}

#[test]
fn unregister_by_id_and_by_owner_and_switch_off() {
    let registry = Registry::new(table(ORDERED));
    for (id, owner) in [("a", "comp-1"), ("b", "comp-1"), ("c", "comp-2")] {
        let name = id.to_string();
        registry.register_owned(
            native(id, 1, move |c| {
                mark(c, &name);
                HookAction::Continue
            }),
            owner,
        );
    }
    registry.register(native("d", 1, |c| {
        mark(c, "d");
        HookAction::Continue
    }));
    let trail = |registry: &Registry| {
        let mut scratch = registry.scratch();
        let mut c = ctx(json!({"trail": ""}));
        registry.dispatch(&mut scratch, POINT, &Target::new("builtin::llm"), &mut c);
        c.payload["trail"].as_str().unwrap().to_string()
    };
    assert_eq!(trail(&registry), "a,b,c,d,t10,t50,t90,");
    assert!(registry.set_enabled("b", false));
    assert!(
        registry.set_enabled("t50", false),
        "table rules switch off too"
    );
    assert!(!registry.set_enabled("nope", false));
    assert_eq!(trail(&registry), "a,c,d,t10,t90,");
    assert_eq!(registry.unregister_by_owner("comp-1"), 2);
    assert!(registry.unregister("d"));
    assert!(!registry.unregister("d"));
    assert_eq!(trail(&registry), "c,t10,t90,");
    // A switched-off rule stays off in the next table.
    registry.reload(table(ORDERED));
    assert_eq!(trail(&registry), "c,t10,t90,");
    assert!(registry.set_enabled("t50", true));
    assert_eq!(trail(&registry), "c,t10,t50,t90,");
}

#[test]
fn rate_counts_survive_a_reload() {
    let limit = |window: &str, extra: &str| {
        table(&format!(
            "hook limit on {POINT} {{\n    when rate(\"{{component}}\") > 3 per {window}\n    abort \"too many\"\n}}\n{extra}"
        ))
    };
    let registry = Registry::new(limit("60s", ""));
    let outcome = |registry: &Registry| {
        let mut scratch = registry.scratch();
        let mut c = ctx(json!({}));
        registry
            .dispatch(&mut scratch, POINT, &Target::new("builtin::llm"), &mut c)
            .outcome
    };
    for _ in 0..3 {
        assert_eq!(outcome(&registry), OutcomeKind::Continue);
    }
    // The policy is edited (one more rule) and reloaded: the counter with
    // the same key and window keeps its three events, so the fourth is over.
    let extra = format!("hook other on {POINT} {{\n    when payload.x == 1\n    abort \"x\"\n}}\n");
    registry.reload(limit("60s", &extra));
    assert_eq!(outcome(&registry), OutcomeKind::Abort);
    // Reloading the very table the registry holds changes nothing.
    registry.reload(registry.table());
    assert_eq!(outcome(&registry), OutcomeKind::Abort);
    // Another window is another counter: it starts empty.
    registry.reload(limit("30s", ""));
    for _ in 0..3 {
        assert_eq!(outcome(&registry), OutcomeKind::Continue);
    }
    assert_eq!(outcome(&registry), OutcomeKind::Abort);
    // A higher limit on the same key and window goes on from the four
    // events counted: six more are under it, the eleventh is over.
    registry.reload(table(&format!(
        "hook limit on {POINT} {{\n    when rate(\"{{component}}\") > 10 per 30s\n    abort \"too many\"\n}}\n"
    )));
    for _ in 0..6 {
        assert_eq!(outcome(&registry), OutcomeKind::Continue);
    }
    assert_eq!(outcome(&registry), OutcomeKind::Abort);
}

#[test]
fn a_panicking_native_hook_is_a_failure_and_leaves_the_context_alone() {
    let registry = Registry::new(table(ORDERED));
    registry.register(native("boom", 1, |c| {
        c.payload["trail"] = json!("scribbled");
        panic!("native hook exploded");
    }));
    let mut scratch = registry.scratch();
    let mut c = ctx(json!({"trail": ""}));
    let v = registry.dispatch(&mut scratch, POINT, &Target::new("builtin::llm"), &mut c);
    assert_eq!(v.outcome, OutcomeKind::Continue);
    assert_eq!(c.payload["trail"], "t10,t50,t90,");
    assert_eq!(v.warnings.len(), 1, "{:?}", v.warnings);
    assert!(
        v.warnings[0].contains("hook `boom` failed open")
            && v.warnings[0].contains("native hook exploded"),
        "{:?}",
        v.warnings
    );

    let mut closed = native("strict", 1, |_| panic!("strict hook exploded"));
    closed.fail = FailMode::Closed;
    registry.register(closed);
    let mut c = ctx(json!({"trail": ""}));
    let v = registry.dispatch(&mut scratch, POINT, &Target::new("builtin::llm"), &mut c);
    assert!(v.is_abort());
    let reason = v.reason.unwrap();
    assert!(
        reason.starts_with("hook `strict` failed closed"),
        "{reason}"
    );
}

#[test]
fn call_runs_the_handler_registered_under_its_name() {
    let registry = Registry::new(table(
        r#"
        hook ask-policy on tool.pre_execute at builtin::* { call "policy" }
        hook after on tool.pre_execute at builtin::* priority 200 { append payload.trail "after," }
        hook strict on tool.post_execute at builtin::* fail closed { call "missing" }
        "#,
    ));
    let mut scratch = registry.scratch();
    let target = Target::new("builtin::llm");

    // Not registered yet: a failure, open by default.
    let mut c = ctx(json!({"trail": ""}));
    let v = registry.dispatch(&mut scratch, POINT, &target, &mut c);
    assert_eq!(v.outcome, OutcomeKind::Continue);
    assert!(
        v.warnings[0].contains("no handler named `policy`"),
        "{:?}",
        v.warnings
    );

    registry.register_handler("policy", |c: &mut HookContext| {
        if c.payload["tool"] == "rm" {
            HookAction::Abort {
                reason: "policy says no".into(),
            }
        } else {
            mark(c, "policy");
            HookAction::Continue
        }
    });
    let mut c = ctx(json!({"trail": "", "tool": "ls"}));
    let v = registry.dispatch(&mut scratch, POINT, &target, &mut c);
    assert_eq!(v.outcome, OutcomeKind::Continue);
    assert_eq!(c.payload["trail"], "policy,after,");
    let mut c = ctx(json!({"trail": "", "tool": "rm"}));
    let v = registry.dispatch(&mut scratch, POINT, &target, &mut c);
    assert_eq!(v.reason.as_deref(), Some("policy says no"));
    assert_eq!(c.payload["trail"], "", "no rule after the abort ran");

    let mut c = HookContext::new("tool.post_execute", "builtin::llm", json!({}));
    let v = registry.dispatch(&mut scratch, "tool.post_execute", &target, &mut c);
    assert!(v.is_abort());
    assert_eq!(
        v.reason.as_deref(),
        Some("rule `strict` failed closed: no handler named `missing` is registered")
    );
    assert!(registry.unregister_handler("policy"));
}

#[test]
fn call_handlers_can_come_with_the_effects() {
    let table = table(r#"hook h on tool.pre_execute at builtin::* { call "tag" }"#);
    let effects = hookc::Effects::new().with_handler("tag", |c: &mut HookContext| {
        c.metadata.insert("tagged".into(), json!(true));
        HookAction::Ask {
            reason: "check the tag".into(),
        }
    });
    let mut scratch = table.scratch();
    let mut c = ctx(json!({}));
    let outcome = table.dispatch_with(
        &mut scratch,
        POINT,
        &Target::new("builtin::llm"),
        &mut c,
        &effects,
    );
    assert!(outcome.is_ask());
    assert_eq!(outcome.reason(), Some("check the tag"));
    assert_eq!(c.metadata["tagged"], true);
}

/// Four threads dispatch 1,000,000 events in total while the table is
/// reloaded every millisecond, alternating between two tables. Every
/// dispatch must return the outcome of exactly one of the two tables (never
/// a mix, never nothing), and the generation it reports must be that
/// table's.
#[test]
fn reloading_every_millisecond_under_four_dispatching_threads() {
    const THREADS: u64 = 4;
    const TOTAL: u64 = 1_000_000;
    let rules = |name: &str| {
        format!(
            r#"
            hook edit on tool.pre_execute at builtin::* priority 1 {{ meta table = "{name}" }}
            hook stop on tool.pre_execute at builtin::* priority 2 {{ abort "table {name}" }}
            "#
        )
    };
    // Generation g runs table A when g is even, B when odd.
    let a = Arc::new(table(&rules("A")));
    let b = Arc::new(table(&rules("B")));
    let registry = Arc::new(Registry::new(Arc::clone(&a)));
    let done = Arc::new(AtomicBool::new(false));
    let reloads = Arc::new(AtomicU64::new(0));

    let reloader = {
        let (registry, done, reloads) = (registry.clone(), done.clone(), reloads.clone());
        let (a, b) = (a.clone(), b.clone());
        thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let next = if registry.generation() % 2 == 0 {
                    &b
                } else {
                    &a
                };
                registry.reload(Arc::clone(next));
                reloads.fetch_add(1, Ordering::Relaxed);
                thread::sleep(Duration::from_millis(1));
            }
        })
    };
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let registry = registry.clone();
            thread::spawn(move || {
                let mut scratch = registry.scratch();
                let target = Target::new("builtin::llm");
                let mut seen = [0u64; 2];
                for _ in 0..TOTAL / THREADS {
                    let mut c = ctx(json!({}));
                    let v = registry.dispatch(&mut scratch, POINT, &target, &mut c);
                    let name = if v.generation.unwrap().is_multiple_of(2) {
                        "A"
                    } else {
                        "B"
                    };
                    assert_eq!(v.outcome, OutcomeKind::Abort);
                    assert_eq!(v.reason.as_deref(), Some(&*format!("table {name}")));
                    assert_eq!(v.fired, ["edit", "stop"]);
                    seen[(v.generation.unwrap() % 2) as usize] += 1;
                }
                seen
            })
        })
        .collect();
    let mut seen = [0u64; 2];
    for worker in workers {
        let s = worker.join().expect("a dispatching thread panicked");
        seen[0] += s[0];
        seen[1] += s[1];
    }
    done.store(true, Ordering::Relaxed);
    reloader.join().expect("the reloader panicked");
    assert_eq!(seen[0] + seen[1], TOTAL, "every dispatch returned once");
    assert!(seen[0] > 0 && seen[1] > 0, "both tables served: {seen:?}");
    assert!(
        reloads.load(Ordering::Relaxed) > 10,
        "the table was reloaded"
    );
}

#[test]
fn native_edits_are_applied_as_the_points_host_applies_them() {
    // Under the `ironclaw` schema, a tool call's content is its parameters
    // as JSON: a native hook's edit of it is parsed before the next rule,
    // and one that is not JSON is dropped with a warning naming the hook.
    let registry = Registry::new(table(
        r#"schema ironclaw
        hook see on beforeToolCall priority 50 {
            when payload.parameters.path == "/sandbox/a"
            context "saw {payload.content}"
        }"#,
    ));
    let mut sandbox = native("sandbox", 10, |c| {
        c.payload["content"] = json!(r#"{"path":"/sandbox/a"}"#);
        HookAction::Continue
    });
    sandbox.point = "beforeToolCall";
    registry.register(sandbox);
    let mut garble = native("garble", 60, |c| {
        c.payload["content"] = json!("not json");
        HookAction::Continue
    });
    garble.point = "beforeToolCall";
    registry.register(garble);
    let mut scratch = registry.scratch();
    let mut c = HookContext::new(
        "beforeToolCall",
        "builtin::llm",
        json!({"content": r#"{"path":"/tmp/a"}"#, "parameters": {"path": "/tmp/a"}}),
    );
    let v = registry.dispatch(
        &mut scratch,
        "beforeToolCall",
        &Target::new("builtin::llm"),
        &mut c,
    );
    assert_eq!(v.fired, ["sandbox", "see", "garble"]);
    assert_eq!(v.additional_context, [r#"saw {"path":"/sandbox/a"}"#]);
    assert_eq!(c.payload["parameters"], json!({"path": "/sandbox/a"}));
    assert_eq!(c.payload["content"], r#"{"path":"/sandbox/a"}"#);
    assert_eq!(v.warnings.len(), 1, "{:?}", v.warnings);
    assert!(
        v.warnings[0].starts_with("hook `garble`: the edit of `payload.content` is dropped"),
        "{:?}",
        v.warnings
    );

    // At a point the table has no rules for, the point's built-in schema
    // says how: a session event's content is not edited.
    let mut tag = native("tag", 10, |c| {
        c.payload["content"] = json!("s-1-tagged");
        HookAction::Continue
    });
    tag.point = "onSessionEnd";
    registry.register(tag);
    let mut c = HookContext::new("onSessionEnd", "builtin::llm", json!({"content": "s-1"}));
    let v = registry.dispatch(
        &mut scratch,
        "onSessionEnd",
        &Target::new("builtin::llm"),
        &mut c,
    );
    assert_eq!(v.fired, ["tag"]);
    assert_eq!(c.payload["content"], "s-1");
    assert_eq!(v.warnings.len(), 1, "{:?}", v.warnings);
}

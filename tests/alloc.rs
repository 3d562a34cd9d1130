//! Dispatch allocates nothing on the matching path.
//!
//! `allocation-counter` replaces the global allocator in this test binary and
//! counts the allocations made on the current thread inside `measure`, so the
//! harness's other threads never disturb the count. With a warm scratch (one
//! dispatch first), a dispatch of an event that matches no rule, and of one
//! that ends in `abort` with a constant reason, must allocate zero times at 1,
//! 100 and 10,000 rules on the point (the shared generator in
//! `benches/common/mod.rs`). A dispatch whose rule edits the context
//! (`set payload.x = 1`) must allocate: that proves the counter counts.

#![expect(clippy::expect_used, reason = "test setup fails the test")]

#[path = "../benches/common/mod.rs"]
#[expect(
    dead_code,
    reason = "the allocation test uses the generator and the events, not every helper"
)]
mod common;

use hookc::{HookContext, HookPoint, Table, Target};

/// Allocations made on this thread while `f` runs.
fn count<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let mut out = None;
    let info = allocation_counter::measure(|| out = Some(f()));
    (info.count_total, out.expect("the closure ran"))
}

/// Allocations made by the second of two dispatches of `ctx` (the first warms
/// the scratch), and the outcome's kind and fired count.
fn warm_dispatch(table: &Table, ctx: &HookContext) -> (u64, hookc::OutcomeKind, usize) {
    let mut scratch = table.scratch();
    let target = Target::new(common::COMPONENT);
    let mut warm = ctx.clone();
    let _ = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut warm);
    let mut ctx = ctx.clone();
    let (allocations, (kind, fired)) = count(|| {
        let outcome = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut ctx);
        (outcome.kind(), outcome.fired().count())
    });
    (allocations, kind, fired)
}

#[test]
fn the_counter_counts() {
    let (allocations, v) = count(|| vec![1u8; 64]);
    assert_eq!(v.len(), 64);
    assert!(allocations >= 1, "a Vec allocation was not counted");
    let (allocations, ()) = count(|| ());
    assert_eq!(allocations, 0);
}

#[test]
fn no_match_and_constant_abort_allocate_nothing() {
    let mut failures = Vec::new();
    for n in [1, 100, 10_000] {
        let set = common::rule_set(n);
        let table = common::try_compile(&set.render()).unwrap_or_else(|e| panic!("{e}"));
        let events = common::events(&set);
        for event in [&events.no_match, &events.one_match] {
            let (allocations, kind, fired) = warm_dispatch(&table, &event.ctx);
            assert_eq!(
                fired,
                event.expected.len(),
                "{n} rules, {}: fired",
                event.name
            );
            assert_eq!(
                kind == hookc::OutcomeKind::Abort,
                event.aborts,
                "{n} rules, {}: outcome {kind:?}",
                event.name
            );
            eprintln!(
                "{n} rules, {}: {kind:?}, {allocations} allocations",
                event.name
            );
            if allocations != 0 {
                failures.push(format!(
                    "{n} rules, {}: {allocations} allocations",
                    event.name
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "dispatch allocated:\n{}",
        failures.join("\n")
    );
}

#[test]
fn an_edit_allocates() {
    let table = hookc::compile_str(
    "edit.hooks",
    "hook edit on tool.pre_execute at *::* {\n    when payload.tool == \"exec\"\n    set payload.x = 1\n}\n",
)
.expect("compiles")
.table;
    let ctx = HookContext::new(
        common::POINT,
        common::COMPONENT,
        serde_json::json!({"tool": "exec", "command": "ls -la", "size": 1}),
    );
    let (allocations, kind, fired) = warm_dispatch(&table, &ctx);
    assert_eq!(kind, hookc::OutcomeKind::Continue);
    assert_eq!(fired, 1);
    eprintln!("edit (`set payload.x = 1`): {allocations} allocations");
    assert!(
        allocations > 0,
        "an edit must allocate (the counter must count)"
    );
}

/// A live registry adds only a lock-free snapshot load to a dispatch: with
/// no native hooks, `Registry::dispatch_with` allocates nothing either.
#[test]
fn registry_dispatch_allocates_nothing() {
    let set = common::rule_set(100);
    let table = common::try_compile(&set.render()).unwrap_or_else(|e| panic!("{e}"));
    let events = common::events(&set);
    let registry = hookc::Registry::new(table);
    let target = Target::new(common::COMPONENT);
    let mut scratch = registry.scratch();
    for event in [&events.no_match, &events.one_match] {
        let mut warm = event.ctx.clone();
        registry.dispatch_with(
            &mut scratch,
            HookPoint::ToolPreExecute,
            &target,
            &mut warm,
            |_, _| (),
        );
        let mut ctx = event.ctx.clone();
        let (allocations, fired) = count(|| {
            registry.dispatch_with(
                &mut scratch,
                HookPoint::ToolPreExecute,
                &target,
                &mut ctx,
                |outcome, _| outcome.fired().count(),
            )
        });
        assert_eq!(fired, event.expected.len(), "{}", event.name);
        assert_eq!(
            allocations, 0,
            "{}: registry dispatch allocated",
            event.name
        );
    }
}

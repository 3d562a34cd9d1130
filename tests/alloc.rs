//! Dispatch allocates nothing on the matching path.
//!
//! A counting `#[global_allocator]` (wrapping `std::alloc::System`) counts the
//! allocations made on the current thread while a thread-local switch is on,
//! so the harness's other threads and other tests never disturb the count.
//! With a warm scratch (one dispatch first), a dispatch of an event that
//! matches no rule, and of one that ends in `abort` with a constant reason,
//! must allocate zero times at 1, 100 and 10,000 rules on the point (the
//! shared generator in `benches/common/mod.rs`). A dispatch whose rule edits
//! the context (`set payload.x = 1`) must allocate: that proves the counter
//! counts.
//!
//! Set `HOOKC_ALLOC_BACKTRACE=1` to print a backtrace for every counted
//! allocation (run with `-- --nocapture`).
//!
//! # Disabled while `Cargo.toml` forbids `unsafe_code`
//!
//! A global allocator needs `unsafe impl GlobalAlloc`, and `Cargo.toml` sets
//! `[lints.rust] unsafe_code = "forbid"` for every target, tests included;
//! neither an `allow`/`expect` attribute nor a command-line `-A unsafe_code`
//! can lift a `forbid`. So the `counting` module is compiled out by a
//! `cfg(any())` (always false) and a placeholder test shows up as ignored.
//! To enable: set `unsafe_code = "deny"` in `Cargo.toml` (and, to keep the
//! library itself strict, `#![forbid(unsafe_code)]` in `src/lib.rs`), then
//! delete the `#[cfg(any())]` line and the placeholder test. The module's
//! `expect(unsafe_code)` scopes the exception to the allocator.

#[path = "../benches/common/mod.rs"]
#[expect(
    dead_code,
    reason = "the allocation test uses the generator and the events, not every helper"
)]
mod common;

/// Shows in `cargo test` output while the counting tests are compiled out.
#[test]
#[ignore = "disabled: a counting global allocator needs unsafe code, and Cargo.toml forbids unsafe_code (see tests/alloc.rs)"]
fn counting_allocator_tests_are_disabled() {}

#[cfg(any())] // Delete this line (and the placeholder test above) once `unsafe_code` is `deny`.
mod counting {
    #![expect(
        unsafe_code,
        reason = "a counting global allocator needs `unsafe impl GlobalAlloc`"
    )]

    use super::common;
    use hookc::{HookContext, HookPoint, Table, Target};
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// `System`, counting allocations (not frees) on threads that switched
    /// counting on.
    struct Counting;

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    /// Print a backtrace per counted allocation (`HOOKC_ALLOC_BACKTRACE`).
    static BACKTRACES: AtomicBool = AtomicBool::new(false);

    thread_local! {
        /// Is this thread counting?
        static COUNTING: Cell<bool> = const { Cell::new(false) };
        /// Allocations counted on this thread.
        static COUNT: Cell<usize> = const { Cell::new(0) };
    }

    fn note() {
        // `try_with`: thread-locals may be gone while a thread exits.
        if !COUNTING.try_with(Cell::get).unwrap_or(false) {
            return;
        }
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        if BACKTRACES.load(Ordering::Relaxed) {
            // Capturing and printing allocate: stop counting meanwhile.
            COUNTING.with(|c| c.set(false));
            eprintln!(
                "--- allocation during a counted dispatch:\n{}",
                std::backtrace::Backtrace::force_capture()
            );
            COUNTING.with(|c| c.set(true));
        }
    }

    // SAFETY: every method forwards to `System` with the caller's arguments
    // unchanged; counting touches only const-initialized thread-locals, which do
    // not allocate.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            note();
            // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            note();
            // SAFETY: forwarded as is.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            note();
            // SAFETY: forwarded as is; `ptr` came from `System` through us.
            unsafe { System.realloc(ptr, layout, new_size) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: forwarded as is; `ptr` came from `System` through us.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    /// Runs `f` and returns how many allocations it made on this thread.
    fn count<R>(f: impl FnOnce() -> R) -> (usize, R) {
        BACKTRACES.store(
            std::env::var_os("HOOKC_ALLOC_BACKTRACE").is_some(),
            Ordering::Relaxed,
        );
        COUNT.with(|c| c.set(0));
        COUNTING.with(|c| c.set(true));
        let r = f();
        COUNTING.with(|c| c.set(false));
        (COUNT.with(Cell::get), r)
    }

    /// Allocations made by the second of two dispatches of `ctx` (the first warms
    /// the scratch), and the outcome's kind and fired count.
    fn warm_dispatch(table: &Table, ctx: &HookContext) -> (usize, hookc::OutcomeKind, usize) {
        let mut scratch = table.scratch();
        let target = Target::new(common::COMPONENT);
        let mut warm = ctx.clone();
        let _ = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut warm);
        let mut ctx = ctx.clone();
        let (allocations, (kind, fired)) = count(|| {
            let outcome =
                table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut ctx);
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
            "dispatch allocated (rerun with HOOKC_ALLOC_BACKTRACE=1 for where):\n{}",
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
}

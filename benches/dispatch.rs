//! Dispatch benches: hookc's compiled table against a naive registry written
//! the way the ORCS seed (ADR-002 §5.2) designs it, on the same generated
//! rules and events.
//!
//! Groups:
//!
//! - `dispatch/{hookc,naive}/{no_match,one_match,one_percent}/{0,10,100,1000,10000}`
//! - `load/{from_bytes,from_owned_bytes,first_dispatch}/10000` (ten
//!   samples): a load of the 10,000-rule table from borrowed bytes (copied
//!   into the table), from owned ones (taken as they are), and a load with
//!   the first dispatch after it (the point's block read, its searches
//!   built, its candidates decoded)
//! - `registry/{table,registry,registry_hook}/{no_match,one_match}/1000`: the
//!   cost a live `Registry` adds to a dispatch (the snapshot load; with
//!   `registry_hook`, one native hook on the point that runs on every
//!   event), against the bare table in the same run
//!
//! It also prints each table's size in bytes and bytes per rule (1,000 and
//! 10,000 rules), and per rule count how many rules reach the event's
//! target.
//!
//! What each iteration measures, for both engines: one dispatch of one event
//! on `tool.pre_execute` for `builtin::llm`, starting from a context the host
//! already built. hookc edits the context in place, so where no rule edits it
//! (`no_match`, `one_match`) the same context is reused; where rules edit it
//! (`one_percent`: `meta`) a fresh clone is made per iteration outside the
//! timing (`iter_batched`). The naive registry takes the context by value
//! (as the seed's `dispatch(.., ctx: HookContext)` does), so it always gets a
//! fresh clone outside the timing, and its result is dropped outside the
//! timing too.
//!
//! Before measuring, both engines are run on every event and must fire
//! exactly the rules the generator says, in order, with the same final
//! context; the bench panics otherwise.

#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "benchmark setup: a broken generator or table must stop the bench"
)]

mod common;
#[path = "common/seed_registry.rs"]
mod seed_registry;

use common::{Event, GenAction, GenCond, RuleSet, COMPONENT};
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use hookc::{HookContext, HookPoint, OutcomeKind, Scratch, Table, Target};
use regex::Regex;
use serde_json::Value;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

/// Rule counts per point.
const SIZES: [usize; 5] = [0, 10, 100, 1000, 10_000];

// ---------------------------------------------------------------------------
// The naive baseline: ORCS ADR-002 §3.3 FqlPattern, §4 Hook/HookAction,
// §5.2 HookRegistry::dispatch.
// ---------------------------------------------------------------------------

mod naive {
    use super::*;

    pub use super::seed_registry::*;

    /// A condition over the payload, checked in order.
    pub enum Cond {
        ToolEq(String),
        Matches(Regex),
        ContainsAny(Arc<Vec<String>>),
        SizeGt(i64),
    }

    impl Cond {
        fn test(&self, ctx: &HookContext) -> bool {
            let field = |name: &str| ctx.payload.get(name);
            match self {
                Cond::ToolEq(t) => field("tool").and_then(Value::as_str) == Some(t.as_str()),
                Cond::Matches(re) => field("command")
                    .and_then(Value::as_str)
                    .is_some_and(|s| re.is_match(s)),
                Cond::ContainsAny(items) => field("args")
                    .and_then(Value::as_str)
                    .is_some_and(|s| items.iter().any(|i| s.contains(i.as_str()))),
                Cond::SizeGt(k) => field("size")
                    .and_then(Value::as_f64)
                    .is_some_and(|v| v > *k as f64),
            }
        }
    }

    /// A declarative rule as a seed-style hook (IronClaw's rule hooks, run by
    /// ORCS's registry).
    pub struct RuleHook {
        pub id: String,
        pub fql: FqlPattern,
        pub point: HookPoint,
        pub priority: i32,
        pub conds: Vec<Cond>,
        pub action: GenAction,
    }

    impl Hook for RuleHook {
        fn id(&self) -> &str {
            &self.id
        }

        fn fql_pattern(&self) -> &FqlPattern {
            &self.fql
        }

        fn hook_point(&self) -> HookPoint {
            self.point
        }

        fn priority(&self) -> i32 {
            self.priority
        }

        fn execute(&self, mut ctx: HookContext) -> (HookAction, bool) {
            if !self.conds.iter().all(|c| c.test(&ctx)) {
                return (HookAction::Continue(ctx), false);
            }
            let action = match self.action {
                GenAction::Abort => HookAction::Abort {
                    reason: common::REASON.to_string(),
                },
                GenAction::Log => {
                    tracing::warn!(hook_id = self.id.as_str(), "{}", common::LOG_MESSAGE);
                    HookAction::Continue(ctx)
                }
                GenAction::Meta(key) => {
                    ctx.metadata.insert(key.to_string(), Value::Bool(true));
                    HookAction::Continue(ctx)
                }
                GenAction::Continue => HookAction::Continue(ctx),
            };
            (action, true)
        }
    }

    /// Builds the registry from the same generated rules hookc compiles.
    pub fn build(set: &RuleSet) -> HookRegistry {
        let lists: Vec<Arc<Vec<String>>> = set
            .lists
            .iter()
            .map(|l| Arc::new(l.items.clone()))
            .collect();
        let mut registry = HookRegistry::new();
        for rule in &set.rules {
            let conds = rule
                .conds
                .iter()
                .map(|c| match c {
                    GenCond::ToolEq(t) => Cond::ToolEq(t.to_string()),
                    GenCond::CommandMatches(re) => {
                        Cond::Matches(Regex::new(re).expect("generated regex"))
                    }
                    GenCond::ArgsContainsAny(l) => {
                        Cond::ContainsAny(lists.get(*l).expect("generated list").clone())
                    }
                    GenCond::SizeGt(k) => Cond::SizeGt(*k),
                })
                .collect();
            registry.register(Box::new(RuleHook {
                id: rule.id.clone(),
                fql: FqlPattern::parse(&rule.target.fql()),
                point: HookPoint::ToolPreExecute,
                priority: i32::try_from(rule.priority).expect("priority fits i32"),
                conds,
                action: rule.action,
            }));
        }
        registry
    }
}

// ---------------------------------------------------------------------------
// Setup and checks
// ---------------------------------------------------------------------------

struct Fixture {
    n: usize,
    table: Table,
    naive: naive::HookRegistry,
    events: common::Events,
}

/// The fixture for `n` rules, or `None` (said loudly) when hookc cannot
/// compile them, so that the other sizes are still measured.
fn fixture(n: usize) -> Option<Fixture> {
    let set = common::rule_set(n);
    let text = set.render();
    assert_eq!(text, common::rules(n), "the generator is deterministic");
    let table = match common::try_compile(&text) {
        Ok(table) => table,
        Err(e) => {
            eprintln!("SKIPPED dispatch/*/*/{n} (and load at this size): {e}");
            return None;
        }
    };
    eprintln!(
        "rules: {n}: {} source bytes; {} rules reach {COMPONENT}, {} of them check `tool == \"exec\"`",
        text.len(),
        set.reaching(COMPONENT),
        set.reaching_with_tool(COMPONENT, "exec"),
    );
    assert_eq!(table.rule_count(), n, "table rule count");
    let naive = naive::build(&set);
    let events = common::events(&set);
    let fixture = Fixture {
        n,
        table,
        naive,
        events,
    };
    check(&fixture);
    Some(fixture)
}

/// Both engines fire exactly the expected rules on every event, with the
/// same outcome and the same final context.
fn check(f: &Fixture) {
    let component = naive::ComponentId::parse(COMPONENT);
    naive::check_outcomes(&f.events.no_match.ctx);
    for event in f.events.all() {
        let fired = common::check_hookc(&f.table, event);
        assert_eq!(fired, event.expected.len());
        // hookc's final context.
        let mut scratch = f.table.scratch();
        let mut hookc_ctx = event.ctx.clone();
        let outcome = f.table.dispatch(
            &mut scratch,
            HookPoint::ToolPreExecute,
            &Target::new(COMPONENT),
            &mut hookc_ctx,
        );
        let hookc_abort = outcome.is_abort();
        // The naive registry.
        let mut naive_fired = Vec::new();
        let action = f.naive.dispatch(
            HookPoint::ToolPreExecute,
            &component,
            None,
            event.ctx.clone(),
            &mut naive_fired,
        );
        let naive_ids = f.naive.ids(HookPoint::ToolPreExecute, &naive_fired);
        assert_eq!(
            naive_ids, event.expected,
            "naive: event `{}` at {} rules",
            event.name, f.n
        );
        match action {
            naive::HookAction::Continue(ctx) => {
                assert!(
                    !hookc_abort,
                    "event `{}`: hookc aborted, naive continued",
                    event.name
                );
                assert_eq!(
                    ctx, hookc_ctx,
                    "event `{}`: final contexts differ",
                    event.name
                );
            }
            naive::HookAction::Abort { reason } => {
                assert!(
                    hookc_abort,
                    "event `{}`: naive aborted, hookc did not",
                    event.name
                );
                assert_eq!(reason, common::REASON);
                assert_eq!(
                    hookc_ctx, event.ctx,
                    "event `{}`: an abort leaves the context as it was",
                    event.name
                );
            }
            other => panic!("event `{}`: unexpected naive action {other:?}", event.name),
        }
        eprintln!(
            "check: {} rules, {:<11}: {} fired (hookc = naive = generator)",
            f.n,
            event.name,
            event.expected.len()
        );
    }
}

fn edits(event: &Event) -> bool {
    // `one_percent` runs `meta` rules; the others end with no edit.
    event.name == "one_percent"
}

// ---------------------------------------------------------------------------
// Benches
// ---------------------------------------------------------------------------

fn all(c: &mut Criterion) {
    let fixtures: Vec<Fixture> = SIZES.iter().filter_map(|&n| fixture(n)).collect();
    let mut bytes_10k = None;
    for f in fixtures.iter().filter(|f| f.n >= 1000) {
        let bytes = f.table.to_bytes();
        eprintln!(
            "table size: {} rules: {} bytes, {:.1} bytes/rule",
            f.n,
            bytes.len(),
            bytes.len() as f64 / f.n as f64
        );
        if f.n == 10_000 {
            bytes_10k = Some(bytes);
        }
    }

    let mut group = c.benchmark_group("dispatch");
    group.throughput(Throughput::Elements(1));
    for f in &fixtures {
        bench_fixture(&mut group, f);
    }
    group.finish();

    if let Some(f) = fixtures.iter().find(|f| f.n == 1000) {
        bench_registry(c, f);
    }

    let Some(bytes) = bytes_10k else {
        eprintln!("SKIPPED load/from_bytes/10000: no 10,000-rule table");
        return;
    };
    let Some(f10k) = fixtures.iter().find(|f| f.n == 10_000) else {
        return;
    };
    let loaded = Table::from_bytes(&bytes).expect("round trip");
    assert_eq!(loaded.rule_count(), 10_000);
    let mut group = c.benchmark_group("load");
    // A load of the "before" table takes most of a second: ten samples.
    group.sample_size(10);
    group.bench_with_input(
        BenchmarkId::new("from_bytes", 10_000),
        &bytes,
        |b, bytes| {
            b.iter_with_large_drop(|| Table::from_bytes(black_box(bytes)).expect("loads"));
        },
    );
    // The bytes handed over, as `hookc claude` hands over what it read:
    // no copy (the copy is made outside the timing).
    group.bench_with_input(
        BenchmarkId::new("from_owned_bytes", 10_000),
        &bytes,
        |b, bytes| {
            b.iter_batched(
                || bytes.clone(),
                |owned| Table::from_owned_bytes(black_box(owned)).expect("loads"),
                BatchSize::LargeInput,
            );
        },
    );
    // A load and the first dispatch after it (a fresh scratch): what a
    // process answering one event pays, the point's block read, its
    // literal searches built and its candidate rules decoded included.
    let target = Target::new(COMPONENT);
    let event = &f10k.events.no_match;
    group.bench_with_input(
        BenchmarkId::new("first_dispatch", 10_000),
        &bytes,
        |b, bytes| {
            b.iter_batched(
                || (bytes.clone(), event.ctx.clone()),
                |(owned, mut ctx)| {
                    let table = Table::from_owned_bytes(black_box(owned)).expect("loads");
                    let mut scratch = table.scratch();
                    let kind = table
                        .dispatch(&mut scratch, HookPoint::ToolPreExecute, &target, &mut ctx)
                        .kind();
                    (table, kind)
                },
                BatchSize::LargeInput,
            );
        },
    );
    group.finish();
}

/// One timed hookc dispatch. Never inlined, so that a profiler can count a
/// dispatch's instructions by this name (`valgrind --tool=callgrind
/// --toggle-collect='*timed_dispatch*'`) whatever the compiler inlines
/// below it; the call costs a few instructions, the same in every build.
#[inline(never)]
fn timed_dispatch(
    table: &Table,
    scratch: &mut Scratch,
    target: &Target<'_>,
    ctx: &mut HookContext,
) -> OutcomeKind {
    table
        .dispatch(scratch, HookPoint::ToolPreExecute, target, ctx)
        .kind()
}

fn bench_fixture(group: &mut BenchmarkGroup<'_, WallTime>, f: &Fixture) {
    let n = f.n;
    let target = Target::new(COMPONENT);
    let component = naive::ComponentId::parse(COMPONENT);
    for event in f.events.all() {
        let mut scratch = f.table.scratch();
        let id = format!("hookc/{}", event.name);
        if edits(event) {
            group.bench_with_input(BenchmarkId::new(id, n), &n, |b, _| {
                b.iter_batched(
                    || event.ctx.clone(),
                    |mut ctx| {
                        black_box(timed_dispatch(
                            &f.table,
                            &mut scratch,
                            black_box(&target),
                            black_box(&mut ctx),
                        ));
                        ctx
                    },
                    BatchSize::SmallInput,
                );
            });
        } else {
            let mut ctx = event.ctx.clone();
            group.bench_with_input(BenchmarkId::new(id, n), &n, |b, _| {
                b.iter(|| {
                    black_box(timed_dispatch(
                        &f.table,
                        &mut scratch,
                        black_box(&target),
                        black_box(&mut ctx),
                    ))
                });
            });
            assert_eq!(
                ctx, event.ctx,
                "a non-editing event leaves the context unchanged"
            );
        }

        let mut fired = Vec::with_capacity(n);
        group.bench_with_input(
            BenchmarkId::new(format!("naive/{}", event.name), n),
            &n,
            |b, _| {
                b.iter_batched(
                    || event.ctx.clone(),
                    |ctx| {
                        f.naive.dispatch(
                            HookPoint::ToolPreExecute,
                            black_box(&component),
                            None,
                            black_box(ctx),
                            &mut fired,
                        )
                    },
                    BatchSize::SmallInput,
                );
            },
        );
    }
}

/// A native hook that runs on every event and does nothing.
struct Noop(hookc::FqlPattern);

impl hookc::NativeHook for Noop {
    fn id(&self) -> &str {
        "noop"
    }
    fn fql_pattern(&self) -> &hookc::FqlPattern {
        &self.0
    }
    fn hook_point(&self) -> &str {
        "tool.pre_execute"
    }
    fn priority(&self) -> i32 {
        i32::MIN
    }
    fn execute(&self, _ctx: &mut HookContext) -> hookc::HookAction {
        hookc::HookAction::Continue
    }
}

fn bench_registry(c: &mut Criterion, f: &Fixture) {
    let target = Target::new(COMPONENT);
    let plain = hookc::Registry::new(Table::from_bytes(&f.table.to_bytes()).expect("round trip"));
    let hooked = hookc::Registry::new(Table::from_bytes(&f.table.to_bytes()).expect("round trip"));
    hooked.register(Box::new(Noop(
        hookc::FqlPattern::parse("*::*").expect("valid FQL"),
    )));
    let mut group = c.benchmark_group("registry");
    group.throughput(Throughput::Elements(1));
    for event in [&f.events.no_match, &f.events.one_match] {
        let mut ctx = event.ctx.clone();
        let mut scratch = f.table.scratch();
        group.bench_function(
            BenchmarkId::new(format!("table/{}", event.name), f.n),
            |b| {
                b.iter(|| {
                    let outcome = f.table.dispatch(
                        &mut scratch,
                        HookPoint::ToolPreExecute,
                        black_box(&target),
                        black_box(&mut ctx),
                    );
                    black_box(outcome.kind())
                });
            },
        );
        for (name, registry) in [("registry", &plain), ("registry_hook", &hooked)] {
            let mut scratch = registry.scratch();
            group.bench_function(
                BenchmarkId::new(format!("{name}/{}", event.name), f.n),
                |b| {
                    b.iter(|| {
                        registry.dispatch_with(
                            &mut scratch,
                            HookPoint::ToolPreExecute,
                            black_box(&target),
                            black_box(&mut ctx),
                            |outcome, _| black_box(outcome.kind()),
                        )
                    });
                },
            );
        }
        assert_eq!(ctx, event.ctx, "no rule or hook edits these events");
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = all
}
criterion_main!(benches);

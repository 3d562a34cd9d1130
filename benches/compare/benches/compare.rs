//! hookc, cedar-policy and regorus on the same rules and calls, in one run.
//!
//! Groups:
//!
//! - `compare/{hookc,seed,cedar,regorus}/{no_match,one_match}/{10,1000,10000}`:
//!   one call, from a request the host already built, to the engine's
//!   answer. hookc: `Table::dispatch` (the first matching rule aborts);
//!   seed: the seed design's `HookRegistry::dispatch` over one boxed hook
//!   per rule (the first matching hook aborts; the context it takes by
//!   value is cloned outside the timing);
//!   Cedar: `Authorizer::is_authorized` (every policy is evaluated);
//!   regorus: `Engine::eval_rule` of the `deny` set, with the call as the
//!   engine's input.
//! - `compile/{hookc,cedar,regorus}/{1000,10000}`: from source text to
//!   something that answers calls. hookc: `compile_str` (parse, check,
//!   lints, matchers); Cedar: `PolicySet::from_str` (parse); regorus:
//!   `Engine::add_policy` (parse).
//! - `load/hookc/{1000,10000}`: `Table::from_bytes` on the compiled table.
//!
//! Before anything is timed, each engine answers every bench event and must
//! give the workload's answer (as `tests/agree.rs` checks on more events);
//! the bench panics otherwise. Each engine's results are dropped outside
//! the timing where its API allows it (compile, load).
//!
//! Cedar and regorus take milliseconds per call at 1,000 rules and tens of
//! milliseconds at 10,000, so their measurements use ten flat samples.

use cedar_policy::PolicySet;
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion,
    SamplingMode, Throughput,
};
use hookc::{Table, Target};
use hookc_compare::cedar_policies::{self, Cedar};
use hookc_compare::seed_registry::HookRegistry;
use hookc_compare::workload::{Workload, COMPONENT};
use hookc_compare::{hookc_rules, rego_policy, seed_hooks};
use std::hint::black_box;
use std::str::FromStr;
use std::time::Duration;

/// Rule counts of the dispatch benches.
const SIZES: [usize; 3] = [10, 1000, 10_000];

/// Rule counts of the compile and load benches.
const COMPILE_SIZES: [usize; 2] = [1000, 10_000];

/// The three engines built from one workload.
struct Engines {
    workload: Workload,
    table: Table,
    cedar: Cedar,
    rego: regorus::Engine,
    seed: HookRegistry,
}

impl Engines {
    /// Builds every engine and checks each answers the bench events as the
    /// workload says.
    fn new(n: usize) -> Engines {
        let workload = Workload::new(n);
        let table = hookc_rules::compile(&hookc_rules::source(&workload)).expect("hookc compiles");
        let cedar = Cedar::new(&cedar_policies::source(&workload)).expect("Cedar parses");
        let mut rego =
            rego_policy::engine(&rego_policy::source(&workload)).expect("regorus parses");
        let seed = seed_hooks::registry(&workload);
        hookc_compare::seed_registry::check_outcomes(&hookc_rules::context(&workload.no_match()));
        for event in workload.bench_events() {
            let expected = workload.expected(&event);
            let first: Vec<usize> = expected.iter().copied().take(1).collect();
            let hookc = hookc_rules::fired(&table, &event).expect("hookc answers");
            let cedar = cedar.fired(&event).expect("Cedar answers");
            let rego = rego_policy::fired(&mut rego, &event).expect("regorus answers");
            assert_eq!(hookc, first, "hookc, {n} rules, {}", event.name);
            let seed = seed_hooks::fired(&seed, &event).expect("the seed registry answers");
            assert_eq!(seed, first, "seed registry, {n} rules, {}", event.name);
            assert_eq!(cedar, expected, "Cedar, {n} rules, {}", event.name);
            assert_eq!(rego, expected, "regorus, {n} rules, {}", event.name);
        }
        Engines {
            workload,
            table,
            cedar,
            rego,
            seed,
        }
    }
}

/// Sets `group` for the engines that take milliseconds per iteration.
fn slow(group: &mut BenchmarkGroup<'_, WallTime>) {
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
}

/// Sets `group` back to criterion's defaults for nanosecond iterations.
fn fast(group: &mut BenchmarkGroup<'_, WallTime>) {
    group.sample_size(100).sampling_mode(SamplingMode::Auto);
}

fn dispatch(c: &mut Criterion) {
    let mut group = c.benchmark_group("compare");
    group.throughput(Throughput::Elements(1));
    for n in SIZES {
        let mut engines = Engines::new(n);
        let target = Target::new(COMPONENT);
        for event in engines.workload.bench_events() {
            fast(&mut group);
            let mut scratch = engines.table.scratch();
            let mut ctx = hookc_rules::context(&event);
            group.bench_function(BenchmarkId::new(format!("hookc/{}", event.name), n), |b| {
                b.iter(|| {
                    let outcome = engines.table.dispatch(
                        &mut scratch,
                        hookc_rules::HOOK_POINT,
                        black_box(&target),
                        black_box(&mut ctx),
                    );
                    outcome.is_abort()
                });
            });

            // The seed's dispatch takes the context by value: a fresh clone
            // per iteration, made and dropped outside the timing.
            let component = seed_hooks::component(&event);
            let seed_ctx = hookc_rules::context(&event);
            let mut seed_fired = Vec::with_capacity(n);
            group.bench_function(BenchmarkId::new(format!("seed/{}", event.name), n), |b| {
                b.iter_batched(
                    || seed_ctx.clone(),
                    |ctx| {
                        engines.seed.dispatch(
                            seed_hooks::HOOK_POINT,
                            black_box(&component),
                            None,
                            black_box(ctx),
                            &mut seed_fired,
                        )
                    },
                    BatchSize::SmallInput,
                );
            });

            if n > 100 {
                slow(&mut group);
            }
            let request = Cedar::request(&event).expect("a valid request");
            let cedar = &engines.cedar;
            group.bench_function(BenchmarkId::new(format!("cedar/{}", event.name), n), |b| {
                b.iter(|| {
                    let response = cedar.authorizer.is_authorized(
                        black_box(&request),
                        &cedar.policies,
                        &cedar.entities,
                    );
                    response.decision()
                });
            });

            engines.rego.set_input(rego_policy::input(&event));
            let rego = &mut engines.rego;
            group.bench_function(
                BenchmarkId::new(format!("regorus/{}", event.name), n),
                |b| {
                    b.iter(|| {
                        rego.eval_rule(black_box(rego_policy::QUERY).to_string())
                            .expect("regorus evaluates")
                    });
                },
            );
        }
    }
    group.finish();
}

fn compile(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    slow(&mut group);
    let mut tables = Vec::new();
    for n in COMPILE_SIZES {
        let workload = Workload::new(n);
        let hooks = hookc_rules::source(&workload);
        let cedar = cedar_policies::source(&workload);
        let rego = rego_policy::source(&workload);
        eprintln!(
            "{n} rules: .hooks {} bytes, Cedar {} bytes, Rego {} bytes",
            hooks.len(),
            cedar.len(),
            rego.len()
        );
        group.bench_function(BenchmarkId::new("hookc", n), |b| {
            b.iter_with_large_drop(|| hookc_rules::compile(black_box(&hooks)).expect("compiles"));
        });
        group.bench_function(BenchmarkId::new("cedar", n), |b| {
            b.iter_with_large_drop(|| PolicySet::from_str(black_box(&cedar)).expect("parses"));
        });
        group.bench_function(BenchmarkId::new("regorus", n), |b| {
            b.iter_batched(
                || (rego_policy::engine_for(&rego), rego.clone()),
                |(mut engine, text)| {
                    engine
                        .add_policy(rego_policy::FILE_NAME.to_string(), black_box(text))
                        .expect("parses");
                    engine
                },
                BatchSize::LargeInput,
            );
        });
        let bytes = hookc_rules::compile(&hooks).expect("compiles").to_bytes();
        eprintln!("{n} rules: hookc table {} bytes", bytes.len());
        tables.push((n, bytes));
    }
    group.finish();

    let mut group = c.benchmark_group("load");
    slow(&mut group);
    for (n, bytes) in &tables {
        group.bench_with_input(BenchmarkId::new("hookc", n), bytes, |b, bytes| {
            b.iter_with_large_drop(|| Table::from_bytes(black_box(bytes)).expect("loads"));
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = dispatch, compile
}
criterion_main!(benches);

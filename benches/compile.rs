//! Compile-time benches: `hookc::compile_str` on 1,000 and 10,000 generated
//! rules (the generator in `benches/common/mod.rs`), from text to a table.
//!
//! Group: `compile/compile_str/{1000,10000}`.

#[expect(
    dead_code,
    reason = "the compile benches use only the rule text of the shared generator"
)]
mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

fn bench_compile(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    for n in [1000, 10_000] {
        let text = common::rules(n);
        let table = match common::try_compile(&text) {
            Ok(table) => table,
            Err(e) => {
                eprintln!("SKIPPED compile/compile_str/{n}: {e}");
                continue;
            }
        };
        assert_eq!(table.rule_count(), n);
        eprintln!("compile: {n} rules, {} bytes of source", text.len());
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("compile_str", n), &text, |b, text| {
            // The table's drop is not part of compiling it.
            b.iter_with_large_drop(|| hookc::compile_str("bench.hooks", black_box(text)));
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_compile
}
criterion_main!(benches);

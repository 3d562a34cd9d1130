//! Compile-time benches: `hookc::compile_str` on 1,000 and 10,000 generated
//! rules (the generator in `benches/common/mod.rs`), from text to a table;
//! and linting 10,000 rules that each read a field the schema does not
//! declare, as `hookc lint` does it (check, lints, rendered warnings).
//!
//! Groups: `compile/compile_str/{1000,10000}`, `lint/unknown_fields/10000`.

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

/// `n` rules that each read their own undeclared field and one that a
/// shared macro reads, and always abort: every rule gets an `unknown-field`
/// warning, and every rule is a candidate for `unreachable-rule`.
fn unknown_fields(n: usize) -> String {
    let mut text = String::from("macro shared = payload.everywhere == \"x\"\n\n");
    for i in 0..n {
        text.push_str(&format!(
            "hook r{i} on tool.pre_execute {{\n    when shared and payload.unknown_{i} == \"x\"\n    abort \"no\"\n}}\n\n"
        ));
    }
    text
}

fn bench_lint(c: &mut Criterion) {
    let mut group = c.benchmark_group("lint");
    group.sample_size(10);
    let n = 10_000;
    let text = unknown_fields(n);
    let lint = |text: &str| match hookc::compile_str("bench.hooks", text) {
        Ok(compiled) => hookc::diag::render::human(&compiled.warnings, false),
        Err(diags) => hookc::diag::render::human(&diags, false),
    };
    let rendered = lint(&text);
    assert!(
        rendered.ends_with(&format!("warning: {} warnings emitted\n", n + 1)),
        "{}",
        rendered
            .get(rendered.len().saturating_sub(300)..)
            .unwrap_or("")
    );
    group.throughput(Throughput::Elements(n as u64));
    group.bench_with_input(BenchmarkId::new("unknown_fields", n), &text, |b, text| {
        b.iter(|| lint(black_box(text)));
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_compile, bench_lint
}
criterion_main!(benches);

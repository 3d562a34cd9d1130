//! The per-dispatch regex budget: a regex that the lazy DFA cannot decide
//! is matched by the Pike VM, whose work is bounded by the scratch's
//! `RegexBudget`; past it, the atom fails through the rule's failure mode.
//! The crafted case: a Unicode `\b` regex (which the DFAs cannot decide on
//! non-ASCII text) with a large NFA, on a megabyte of non-ASCII text. No
//! timing is asserted: the outcome and the warning are.

#![expect(clippy::unwrap_used, reason = "tests fail loudly on purpose")]

use crate::common;

use hookc::runtime::RegexBudget;
use hookc::{HookContext, HookPoint, OutcomeKind, Report, Scratch, Table, Target};
use serde_json::json;
use std::path::Path;

/// 1 MiB of a word character that is not ASCII.
fn big_text() -> String {
    "é".repeat(1 << 19)
}

/// `\w{60}z\b`: a Unicode word boundary and a long run of a large class
/// (thousands of NFA states): on a run of word characters, a match may
/// start at every one of them, and the Pike VM follows them all.
const CRAFTED: &str = r"\w{60}z\b";

fn table(rule: &str) -> Table {
    hookc::compile_str("budget.hooks", rule).unwrap().table
}

fn run(table: &Table, scratch: &mut Scratch, text: &str) -> Report {
    let mut ctx = HookContext::new(
        HookPoint::ToolPreExecute,
        "builtin::llm",
        json!({"tool": "exec", "args": text}),
    );
    let target = Target::new("builtin::llm");
    let outcome = table.dispatch(scratch, HookPoint::ToolPreExecute, &target, &mut ctx);
    outcome.report(&ctx)
}

#[test]
fn default_budget_fails_open_with_a_warning_naming_it() {
    let t = table(&format!(
        "hook block on tool.pre_execute {{\n    when payload.args matches /{CRAFTED}/\n    abort \"no\"\n}}\n"
    ));
    let mut scratch = t.scratch();
    assert_eq!(scratch.regex_budget(), RegexBudget::DEFAULT);
    let report = run(&t, &mut scratch, &big_text());
    assert_eq!(report.outcome, OutcomeKind::Continue, "{report:?}");
    assert!(report.fired.is_empty());
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    let warning = &report.warnings[0];
    assert!(
        warning.starts_with("rule `block` failed open: regex `/"),
        "{warning}"
    );
    assert!(warning.contains("on `payload.args`"), "{warning}");
    assert!(
        warning.contains("of the dispatch's 33554432-step regex budget"),
        "{warning}"
    );
}

#[test]
fn configured_budget_fails_closed_with_the_reason() {
    let t = table(&format!(
        "hook block on tool.pre_execute fail closed {{\n    when payload.args matches /{CRAFTED}/\n    abort \"no\"\n}}\n"
    ));
    let mut scratch = t.scratch().with_regex_budget(RegexBudget(10_000));
    let report = run(&t, &mut scratch, &big_text());
    assert_eq!(report.outcome, OutcomeKind::Abort, "{report:?}");
    let reason = report.reason.as_deref().unwrap();
    assert!(
        reason.starts_with("rule `block` failed closed: regex `/"),
        "{reason}"
    );
    assert!(reason.contains("10000-step regex budget"), "{reason}");
    assert!(report.fired.is_empty(), "the rule did not fire: it failed");
    // A budget that pays: the rule decides on its condition again.
    scratch.set_regex_budget(RegexBudget::UNLIMITED);
    let text = format!("é {}z é", "ü".repeat(60));
    let report = run(&t, &mut scratch, &text);
    assert_eq!(report.outcome, OutcomeKind::Abort);
    assert_eq!(report.reason.as_deref(), Some("no"));
    assert_eq!(report.fired, ["block"]);
}

#[test]
fn an_unknown_condition_never_reads_as_true() {
    // `unless` a failed atom is unknown too: the rule does not apply (fail
    // open), it does not fire because the negation "held".
    let t = table(&format!(
        "hook tag on tool.pre_execute {{\n    unless payload.args matches /{CRAFTED}/\n    set payload.tag = \"plain\"\n}}\n\n\
         hook other on tool.pre_execute {{\n    when payload.args matches /{CRAFTED}/ and payload.tool == \"other\"\n    abort \"no\"\n}}\n\n\
         hook either on tool.pre_execute {{\n    when payload.args matches /{CRAFTED}/ or payload.tool == \"exec\"\n    log info \"either\"\n}}\n"
    ));
    let mut scratch = t.scratch().with_regex_budget(RegexBudget(1_000));
    let report = run(&t, &mut scratch, &big_text());
    assert_eq!(report.outcome, OutcomeKind::Continue, "{report:?}");
    // `tag` failed open; `other` is false whatever the regex (its other
    // conjunct is false); `either` is true whatever the regex.
    assert_eq!(report.fired, ["either"], "{report:?}");
    assert!(report.context.payload.get("tag").is_none());
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].starts_with("rule `tag` failed open"),
        "{:?}",
        report.warnings
    );
}

#[test]
fn the_budget_is_per_dispatch() {
    let t = table(&format!(
        "hook block on tool.pre_execute fail closed {{\n    when payload.args matches /{CRAFTED}/\n    abort \"no\"\n}}\n"
    ));
    // Enough for one small field, not for two in a row if it were shared.
    let text = format!("é {}", "ü".repeat(200));
    let mut probe = t.scratch().with_regex_budget(RegexBudget::UNLIMITED);
    assert_eq!(run(&t, &mut probe, &text).outcome, OutcomeKind::Continue);
    let mut scratch = t.scratch().with_regex_budget(RegexBudget(2_000_000));
    for _ in 0..3 {
        let report = run(&t, &mut scratch, &text);
        assert_eq!(report.outcome, OutcomeKind::Continue, "{report:?}");
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }
}

#[test]
fn cli_eval_takes_a_budget() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("regex-budget");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("r.hooks"),
        format!(
            "hook block on tool.pre_execute fail closed {{\n    when payload.args matches /{CRAFTED}/\n    abort \"no\"\n}}\n"
        ),
    )
    .unwrap();
    let event = json!({
        "hook_point": "tool.pre_execute",
        "component_id": "builtin::llm",
        "payload": {"tool": "exec", "args": "é".repeat(20_000)},
    });
    std::fs::write(dir.join("e.json"), event.to_string()).unwrap();
    let run = common::hookc_in(
        &dir,
        &[
            "eval",
            "r.hooks",
            "--event",
            "e.json",
            "--regex-budget",
            "5000",
        ],
        None,
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let reason = report["reason"].as_str().unwrap();
    assert!(reason.contains("5000-step regex budget"), "{reason}");
    // The default budget pays for 40 KB: the rule decides, and does not
    // match.
    let run = common::hookc_in(&dir, &["eval", "r.hooks", "--event", "e.json"], None);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    // A budget that is not a number is a usage error.
    let run = common::hookc_in(
        &dir,
        &[
            "eval",
            "r.hooks",
            "--event",
            "e.json",
            "--regex-budget",
            "lots",
        ],
        None,
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}

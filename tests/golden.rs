//! A table written by an earlier build must keep loading and deciding the
//! same way, or fail with a typed version error once the format changes.
//!
//! Regenerate after a deliberate format change (and bump the directory):
//! `HOOKC_BLESS=1 cargo test --test golden`.

use hookc::table::LoadErrorKind;
use hookc::{HookContext, HookPoint, Table, Target};
use serde_json::json;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/v2/guard.tbl");
const RULES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/v2/guard.hooks");

fn check(table: &Table) {
    let mut scratch = table.scratch();
    let mut ctx = HookContext::new(HookPoint::ToolPreExecute, "plugin::x", json!({"tool": "exec", "args": "rm -rf /"}));
    let outcome = table.dispatch(&mut scratch, HookPoint::ToolPreExecute, &Target::new("plugin::x"), &mut ctx);
    assert!(outcome.is_abort());
    assert_eq!(outcome.reason(), Some("blocked dangerous command"));

    let mut ctx = HookContext::new(HookPoint::ChildPreSpawn, "builtin::llm", json!({"capabilities": 15}));
    table.dispatch(&mut scratch, HookPoint::ChildPreSpawn, &Target::new("builtin::llm"), &mut ctx);
    assert_eq!(ctx.payload["capabilities"], 7);

    let mut ctx = HookContext::new(HookPoint::ToolPostExecute, "a::b", json!({"result": "k=AKIAABCDEFGHIJKLMNOP"}));
    table.dispatch(&mut scratch, HookPoint::ToolPostExecute, &Target::new("a::b"), &mut ctx);
    assert_eq!(ctx.payload["result"], "k=[REDACTED]");
}

#[test]
fn golden_table_keeps_loading() {
    if std::env::var_os("HOOKC_BLESS").is_some() {
        let compiled = hookc::compile_paths(&[RULES], &hookc::Options::default()).unwrap();
        std::fs::write(GOLDEN, compiled.table.to_bytes()).unwrap();
    }
    let bytes = std::fs::read(GOLDEN).expect("the golden table is committed");
    match Table::from_bytes(&bytes) {
        Ok(table) => check(&table),
        Err(e) => assert!(
            matches!(e.kind(), LoadErrorKind::Version { found: 2, .. }),
            "a golden table may only stop loading with a version error: {e}"
        ),
    }
}

#[test]
fn freshly_compiled_rules_decide_the_same() {
    let compiled = hookc::compile_paths(&[RULES], &hookc::Options::default()).unwrap();
    check(&compiled.table);
}

//! A table written by an earlier build must keep loading and deciding the
//! same way, or fail with a typed version error once the format changes.
//!
//! Regenerate after a deliberate format change (and bump the directory):
//! `HOOKC_BLESS=1 cargo test --test it golden::` writes `tests/golden/v<VERSION>/guard.tbl`;
//! keep the older directories. The `crafted_*.tbl` beside it (tables
//! crafted past their checksum, for `hardening`'s command-line tests) are
//! written by `HOOKC_BLESS=1 cargo test --lib crafted_tables`.

#![expect(
    clippy::indexing_slicing,
    reason = "test helpers index JSON payloads they just built"
)]

use hookc::table::LoadErrorKind;
use hookc::{HookContext, HookPoint, Table, Target};
use serde_json::json;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
const RULES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/v4/guard.hooks");

fn check(table: &Table) {
    let mut scratch = table.scratch();
    let mut ctx = HookContext::new(
        HookPoint::ToolPreExecute,
        "plugin::x",
        json!({"tool": "exec", "args": "rm -rf /"}),
    );
    let outcome = table.dispatch(
        &mut scratch,
        HookPoint::ToolPreExecute,
        &Target::new("plugin::x"),
        &mut ctx,
    );
    assert!(outcome.is_abort());
    assert_eq!(outcome.reason(), Some("blocked dangerous command"));

    let mut ctx = HookContext::new(
        HookPoint::ChildPreSpawn,
        "builtin::llm",
        json!({"capabilities": 15}),
    );
    table.dispatch(
        &mut scratch,
        HookPoint::ChildPreSpawn,
        &Target::new("builtin::llm"),
        &mut ctx,
    );
    assert_eq!(ctx.payload["capabilities"], 7);

    let mut ctx = HookContext::new(
        HookPoint::ToolPostExecute,
        "a::b",
        json!({"result": "k=AKIAABCDEFGHIJKLMNOP"}),
    );
    table.dispatch(
        &mut scratch,
        HookPoint::ToolPostExecute,
        &Target::new("a::b"),
        &mut ctx,
    );
    assert_eq!(ctx.payload["result"], "k=[REDACTED]");
}

/// `tests/golden/vN/guard.tbl` was written by format version N: the current
/// version's table must load and decide as its rules say; older ones must be
/// refused with a version error, never misread.
#[test]
fn golden_tables_load_or_fail_with_a_version_error() {
    let current = format!("{DIR}/v{}/guard.tbl", hookc::table::VERSION);
    if std::env::var_os("HOOKC_BLESS").is_some() {
        let compiled = hookc::compile_paths(&[RULES], &hookc::Options::default()).unwrap();
        std::fs::write(&current, compiled.table.to_bytes()).unwrap();
    }
    let mut seen_current = false;
    for entry in std::fs::read_dir(DIR).unwrap() {
        let dir = entry.unwrap().path();
        let version: u32 = dir
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .trim_start_matches('v')
            .parse()
            .unwrap();
        let path = dir.join("guard.tbl");
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        match Table::from_bytes(&bytes) {
            Ok(table) => {
                assert_eq!(
                    version,
                    hookc::table::VERSION,
                    "{} loads but is not current",
                    path.display()
                );
                check(&table);
                seen_current = true;
            }
            Err(e) => assert!(
                matches!(e.kind(), LoadErrorKind::Version { found, .. } if *found == version),
                "{} may only fail with a version error: {e}",
                path.display()
            ),
        }
    }
    assert!(
        seen_current,
        "commit a golden table for the current format: HOOKC_BLESS=1 cargo test --test it golden::"
    );
}

#[test]
fn freshly_compiled_rules_decide_the_same() {
    let compiled = hookc::compile_paths(&[RULES], &hookc::Options::default()).unwrap();
    check(&compiled.table);
}

/// `tests/golden/vN/guard.signed.tbl` is the same rules compiled and signed with the test
/// key (ed25519 from the seed `[42; 32]`; signatures are deterministic, so
/// blessing writes the same bytes): the current version's must verify and
/// decide the same; older ones must fail with a version error.
#[test]
fn signed_golden_tables_verify_or_fail_with_a_version_error() {
    let key = hookc::table::SecretKey::from_seed(&[42; 32]);
    let current = format!("{DIR}/v{}/guard.signed.tbl", hookc::table::VERSION);
    if std::env::var_os("HOOKC_BLESS").is_some() {
        let compiled = hookc::compile_paths(&[RULES], &hookc::Options::default()).unwrap();
        std::fs::write(&current, compiled.table.to_signed_bytes(&key)).unwrap();
    }
    let mut seen_current = false;
    for entry in std::fs::read_dir(DIR).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(bytes) = std::fs::read(dir.join("guard.signed.tbl")) else {
            continue;
        };
        let version: u32 = dir
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .trim_start_matches('v')
            .parse()
            .unwrap();
        match Table::from_bytes_verified(&bytes, &key.public_key()) {
            Ok(table) => {
                assert_eq!(version, hookc::table::VERSION);
                check(&table);
                seen_current = true;
            }
            Err(e) => assert!(
                matches!(e.kind(), LoadErrorKind::Version { found, .. } if *found == version),
                "{}: {e}",
                dir.display()
            ),
        }
    }
    assert!(
        seen_current,
        "commit a signed golden table for the current format: HOOKC_BLESS=1 cargo test --test it golden::"
    );
}

/// The program section of a table: the bytes the header's program length
/// names, right after the header.
fn program_section(table: &[u8]) -> &[u8] {
    let len = u32::from_le_bytes([table[20], table[21], table[22], table[23]]) as usize;
    &table[hookc::table::HEADER_LEN..hookc::table::HEADER_LEN + len]
}

/// The golden rules compiled today give the golden table of the current
/// version byte for byte: its program section, once the source file is
/// given the name it was blessed under (an absolute path of the checkout
/// that blessed it), and its DFA sections. A change of the compiler's
/// output or of the encoding that is not a format version fails here.
#[test]
fn freshly_compiled_rules_give_the_golden_bytes() {
    let golden = std::fs::read(format!("{DIR}/v{}/guard.tbl", hookc::table::VERSION)).unwrap();
    let blessed = Table::from_bytes(&golden).unwrap();
    let compiled = hookc::compile_paths(&[RULES], &hookc::Options::default()).unwrap();
    let fresh = compiled.table.to_bytes();

    let mut program = compiled.table.program().clone();
    assert_eq!(program.files.len(), 1, "{:?}", program.files);
    program.files.clone_from(&blessed.program().files);
    assert_eq!(&program, blessed.program());
    let encoded = hookc::table::encode(&program, &[]);
    assert_eq!(program_section(&encoded), program_section(&golden));

    let dfas = |table: &[u8]| -> Vec<u8> {
        let start = (hookc::table::HEADER_LEN + program_section(table).len()).next_multiple_of(4);
        table[start..].to_vec()
    };
    assert_eq!(dfas(&fresh), dfas(&golden));
    assert_eq!(fresh[28..32], golden[28..32], "the number of DFA sections");
}

//! `Table::from_bytes` must never panic, and a table it accepts must be safe
//! to inspect and dispatch on.
//!
//! Each input is tried twice:
//! 1. as raw bytes;
//! 2. "framed": a valid header (label, endianness check, `VERSION`, program
//!    length, DFA count) is put in front and every checksum is written
//!    anew (`reseal`) so the mutations reach the program block, the point
//!    blocks and the DFA sections. If the input already starts with the
//!    label (e.g. the golden table seed), only its checksums are fixed up;
//!    otherwise the first 3 input bytes choose the DFA count (byte 0 % 4)
//!    and the program length (bytes 1..3, u16 LE, clamped).
#![no_main]

use hookc::table::{HEADER_LEN, LABEL, VERSION};
use libfuzzer_sys::fuzz_target;

fn framed(data: &[u8]) -> Option<Vec<u8>> {
    if data.starts_with(LABEL) {
        if data.len() < HEADER_LEN {
            return None;
        }
        let mut out = data.to_vec();
        let _ = hookc::table::encoding::reseal(&mut out);
        return Some(out);
    }
    let (&dfa_count, rest) = data.split_first()?;
    let (len, body) = rest.split_at_checked(2)?;
    let program_len = usize::from(u16::from_le_bytes([len[0], len[1]])).min(body.len());
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(LABEL);
    out.extend_from_slice(&0xFEFFu32.to_ne_bytes());
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(program_len as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&u32::from(dfa_count % 4).to_le_bytes());
    out.extend_from_slice(body);
    let _ = hookc::table::encoding::reseal(&mut out);
    Some(out)
}

/// What a host and a tool do with a table that loads: dispatch at every
/// point of its schema (the point blocks, rules and atoms are read there,
/// lazily), then read and check it whole.
fn exercise(table: &hookc::Table) {
    let _ = table.rule_count();
    let _ = table.byte_len();
    let _ = table.to_bytes();
    let names: Vec<String> = (0..u16::MAX)
        .map_while(|slot| table.point_name(hookc::PointId::new(table.schema_tag(), slot)))
        .map(str::to_string)
        .collect();
    let mut scratch = table.scratch();
    for name in &names {
        let _ = table.field_stats(name);
        let mut ctx = hookc::HookContext::new(
            name,
            "builtin::llm",
            serde_json::json!({"tool": "exec", "args": "rm -rf /", "n": 7, "path": "src/a.rs"}),
        );
        let target = hookc::Target::new("builtin::llm");
        let _ = table.dispatch(&mut scratch, name.as_str(), &target, &mut ctx);
    }
    let _ = table.validate();
    let _ = table.program();
}

fuzz_target!(|data: &[u8]| {
    if let Ok(table) = hookc::Table::from_bytes(data) {
        exercise(&table);
    }
    if let Some(bytes) = framed(data) {
        if let Ok(table) = hookc::Table::from_bytes(&bytes) {
            exercise(&table);
        }
    }
});

//! Parse + check + compile arbitrary `.hooks` text, then render the
//! diagnostics. None of it may panic.
//!
//! Note: `compile_str` resolves `import "…"` and `schema "…"` against the
//! file system relative to the current directory, as the library does.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 is not interesting for a text parser: skip it so the
    // fuzzer does not waste executions on lossy-replacement variants.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match hookc::compile_str("fuzz.hooks", text) {
        Ok(compiled) => {
            let _ = hookc::diag::render::human(&compiled.warnings, false);
            let _ = hookc::diag::render::json(&compiled.warnings);
            // The compiled table must round-trip through its bytes.
            let bytes = compiled.table.to_bytes();
            if let Err(e) = hookc::Table::from_bytes(&bytes) {
                panic!("a compiled table does not load: {e}");
            }
        }
        Err(diags) => {
            let _ = hookc::diag::render::human(&diags, false);
            let _ = hookc::diag::render::json(&diags);
        }
    }
});

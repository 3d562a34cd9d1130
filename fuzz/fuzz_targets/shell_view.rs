#![no_main]
//! The shell view never panics and returns on any text; its JSON form is
//! built for every view.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let view = hookc::shell::parse(text);
        let _ = view.to_json();
    }
});

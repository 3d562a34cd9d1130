#![no_main]
//! The shell view never panics and returns on any text; its JSON form is
//! built for every view; and parsing into buffers reused from input to
//! input (as the cache of a dispatch does) gives the view a fresh parse
//! gives.

use hookc::shell::Buffers;
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let view = hookc::shell::parse(text);
        let _ = view.to_json();
        BUFFERS.with_borrow_mut(|buffers| {
            let reused = buffers.parse(text);
            assert_eq!(reused, view, "a view parsed into reused buffers differs");
            buffers.recycle(reused);
        });
    }
});

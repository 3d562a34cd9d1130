//! The arena as a test binary's global allocator: what a process does
//! with its memory (growing vectors, strings, maps, threads) works the
//! same, and the small allocations come from the region.

use hookc_arena::Arena;
use std::collections::HashMap;

#[global_allocator]
static ALLOC: Arena<{ 1 << 20 }> = Arena::new();

#[test]
fn a_process_allocates_as_it_would_from_the_system() {
    ALLOC.enable();
    let words: Vec<String> = (0..5000).map(|i| format!("word-{i}")).collect();
    assert!(
        ALLOC.owns(words[10].as_ptr()),
        "small strings come from the region"
    );
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for word in &words {
        *counts.entry(word.as_str()).or_default() += word.len();
    }
    assert_eq!(counts.len(), 5000);
    assert_eq!(counts["word-4999"], 9);

    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || (0..2000).map(|i| format!("{t}:{i}")).collect::<Vec<_>>())
        })
        .collect();
    for (t, thread) in threads.into_iter().enumerate() {
        let made = thread.join().unwrap_or_default();
        assert_eq!(made.len(), 2000);
        assert_eq!(made[1999], format!("{t}:1999"));
    }

    // Past the region: the system's, and still right.
    let big: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 32 << 10]).collect();
    assert!(
        big.iter().any(|b| !ALLOC.owns(b.as_ptr())),
        "the region ran out"
    );
    assert!(big
        .iter()
        .enumerate()
        .all(|(i, b)| b.iter().all(|&x| x == i as u8)));
}

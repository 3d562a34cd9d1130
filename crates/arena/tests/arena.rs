//! The arena's contract, through `GlobalAlloc`, each test on an arena of
//! its own (a static, as the binary's is).

use hookc_arena::{Arena, LARGEST};
use std::alloc::{GlobalAlloc, Layout};

fn layout(size: usize, align: usize) -> Layout {
    Layout::from_size_align(size, align).unwrap_or_else(|e| panic!("{e}"))
}

/// Fills `size` bytes at `ptr` with `byte`.
fn fill(ptr: *mut u8, size: usize, byte: u8) {
    assert!(!ptr.is_null());
    // SAFETY: `ptr` was just allocated with `size` bytes.
    unsafe { ptr.write_bytes(byte, size) };
}

/// The `size` bytes at `ptr`.
fn bytes(ptr: *const u8, size: usize) -> Vec<u8> {
    // SAFETY: `ptr` holds `size` initialized bytes.
    unsafe { std::slice::from_raw_parts(ptr, size) }.to_vec()
}

#[test]
fn off_until_enabled_then_small_allocations_come_from_the_region() {
    static ARENA: Arena<4096> = Arena::new();
    let arena = &ARENA;
    let small = layout(24, 8);
    // SAFETY: a non-zero layout; freed with it below.
    let before = unsafe { arena.alloc(small) };
    assert!(!arena.owns(before), "off: from the system");
    arena.enable();
    // SAFETY: as above.
    let after = unsafe { arena.alloc(small) };
    assert!(arena.owns(after), "on: from the region");
    assert_eq!(arena.used(), 24);
    // SAFETY: each freed once, with its layout.
    unsafe {
        arena.dealloc(before, small);
        arena.dealloc(after, small);
    }
}

#[test]
fn allocations_are_aligned_and_do_not_overlap() {
    static ARENA: Arena<{ 1 << 16 }> = Arena::new();
    let arena = &ARENA;
    arena.enable();
    let mut blocks = Vec::new();
    for (i, &(size, align)) in [
        (1, 1),
        (3, 2),
        (8, 8),
        (17, 16),
        (5, 64),
        (100, 4),
        (1, 128),
    ]
    .iter()
    .cycle()
    .take(70)
    .enumerate()
    {
        let l = layout(size, align);
        // SAFETY: a non-zero layout.
        let ptr = unsafe { arena.alloc(l) };
        assert!(arena.owns(ptr));
        assert_eq!(ptr as usize % align, 0, "aligned to {align}");
        fill(ptr, size, i as u8);
        blocks.push((ptr, size, i as u8));
    }
    for &(ptr, size, byte) in &blocks {
        assert_eq!(
            bytes(ptr, size),
            vec![byte; size],
            "no later block wrote over it"
        );
    }
}

#[test]
fn only_the_last_allocation_gives_its_bytes_back() {
    static ARENA: Arena<4096> = Arena::new();
    let arena = &ARENA;
    arena.enable();
    let l = layout(100, 4);
    // SAFETY: non-zero layouts, each freed once with its own.
    unsafe {
        let first = arena.alloc(l);
        let second = arena.alloc(l);
        assert_eq!(arena.used(), 200);
        arena.dealloc(first, l);
        assert_eq!(arena.used(), 200, "not the last: its bytes stay");
        arena.dealloc(second, l);
        assert_eq!(arena.used(), 100, "the last: its bytes come back");
        let third = arena.alloc(l);
        assert_eq!(third, second, "and are handed out again");
    }
}

#[test]
fn the_last_allocation_grows_in_place_and_others_move_with_their_bytes() {
    static ARENA: Arena<4096> = Arena::new();
    let arena = &ARENA;
    arena.enable();
    let l = layout(16, 8);
    // SAFETY: non-zero layouts; `realloc` is given each block's own.
    unsafe {
        let first = arena.alloc(l);
        fill(first, 16, 0xa1);
        let grown = arena.realloc(first, l, 64);
        assert_eq!(grown, first, "the last one grows where it is");
        assert_eq!(arena.used(), 64);
        fill(grown.add(16), 48, 0xa2);
        let second = arena.alloc(l);
        let moved = arena.realloc(grown, layout(64, 8), 128);
        assert_ne!(moved, grown, "not the last any more: it moves");
        assert!(arena.owns(moved));
        let mut expected = vec![0xa1; 16];
        expected.extend([0xa2; 48]);
        assert_eq!(bytes(moved, 64), expected, "with its bytes");
        let shrunk = arena.realloc(second, l, 8);
        assert_eq!(shrunk, second, "shrinking never moves");
    }
}

#[test]
fn large_allocations_and_what_does_not_fit_come_from_the_system() {
    static ARENA: Arena<1024> = Arena::new();
    let arena = &ARENA;
    arena.enable();
    // SAFETY: non-zero layouts, each freed once with its own.
    unsafe {
        let large = layout(LARGEST + 1, 8);
        let ptr = arena.alloc(large);
        assert!(
            !ptr.is_null() && !arena.owns(ptr),
            "larger than LARGEST: the system's"
        );
        arena.dealloc(ptr, large);

        let most = layout(1000, 8);
        let held = arena.alloc(most);
        assert!(arena.owns(held));
        let over = layout(100, 8);
        let spilled = arena.alloc(over);
        assert!(
            !spilled.is_null() && !arena.owns(spilled),
            "the region is full"
        );
        fill(spilled, 100, 7);
        assert_eq!(bytes(spilled, 100), vec![7; 100]);
        arena.dealloc(spilled, over);

        fill(held, 1000, 3);
        let moved = arena.realloc(held, most, 2000);
        assert!(
            !moved.is_null() && !arena.owns(moved),
            "grown past the region: moved out"
        );
        assert_eq!(bytes(moved, 1000), vec![3; 1000]);
        arena.dealloc(moved, layout(2000, 8));
    }
}

#[test]
fn zeroed_allocations_are_zero_even_where_bytes_came_back() {
    static ARENA: Arena<4096> = Arena::new();
    let arena = &ARENA;
    arena.enable();
    let l = layout(64, 8);
    // SAFETY: non-zero layouts, each freed once with its own.
    unsafe {
        let dirty = arena.alloc(l);
        fill(dirty, 64, 0xff);
        arena.dealloc(dirty, l);
        let zeroed = arena.alloc_zeroed(l);
        assert_eq!(zeroed, dirty, "the same bytes again");
        assert_eq!(bytes(zeroed, 64), vec![0; 64]);
    }
}

/// The region is zero past its last allocation: untouched at first, and
/// where bytes came back (freed, or cut off by a shrink) they were zeroed
/// as they came back. A zeroed allocation relies on it and writes nothing.
#[test]
fn the_region_is_zero_past_its_last_allocation() {
    static ARENA: Arena<4096> = Arena::new();
    let arena = &ARENA;
    arena.enable();
    let l = layout(256, 8);
    // SAFETY: non-zero layouts; each block freed or resized once, with its
    // own layout.
    unsafe {
        let fresh = arena.alloc(l);
        assert_eq!(bytes(fresh, 256), vec![0; 256], "untouched: zero");
        fill(fresh, 256, 0xee);
        arena.dealloc(fresh, l);
        let again = arena.alloc(l);
        assert_eq!(again, fresh, "the bytes that came back");
        assert_eq!(bytes(again, 256), vec![0; 256], "zeroed as they came back");

        fill(again, 256, 0xdd);
        let shrunk = arena.realloc(again, l, 16);
        assert_eq!(shrunk, again);
        assert_eq!(bytes(shrunk, 16), vec![0xdd; 16], "what it keeps is kept");
        let tail = arena.alloc(layout(240, 1));
        assert_eq!(tail, again.add(16), "the cut-off bytes, handed out again");
        assert_eq!(
            bytes(tail, 240),
            vec![0; 240],
            "zeroed as they were cut off"
        );

        // Not the last: its bytes stay as they are, never handed out again.
        fill(tail, 240, 0xcc);
        let later = arena.alloc(layout(8, 8));
        arena.dealloc(tail, layout(240, 1));
        assert_eq!(arena.used(), later as usize + 8 - shrunk as usize);
        let zeroed = arena.alloc_zeroed(layout(64, 8));
        assert!(zeroed as usize >= later as usize + 8, "past the last one");
        assert_eq!(bytes(zeroed, 64), vec![0; 64]);
    }
}

#[test]
fn threads_never_get_the_same_bytes() {
    static ARENA: Arena<{ 1 << 20 }> = Arena::new();
    let arena = &ARENA;
    arena.enable();
    let threads: Vec<_> = (0..4u8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut blocks = Vec::new();
                for i in 0..2000usize {
                    let size = 1 + i % 40;
                    let l = layout(size, 8);
                    // Every fifth allocation zeroed: zero even where another
                    // thread's bytes came back.
                    let zeroed = i % 5 == 0;
                    // SAFETY: a non-zero layout.
                    let ptr = unsafe {
                        if zeroed {
                            arena.alloc_zeroed(l)
                        } else {
                            arena.alloc(l)
                        }
                    };
                    if zeroed {
                        assert_eq!(bytes(ptr, size), vec![0; size], "thread {t}");
                    }
                    fill(ptr, size, t + 1);
                    blocks.push((ptr as usize, size));
                    if i % 3 == 0 {
                        let (last, size) = blocks.pop().unwrap_or_else(|| panic!("pushed"));
                        // SAFETY: freed once, with its layout.
                        unsafe { arena.dealloc(last as *mut u8, layout(size, 8)) };
                    }
                }
                for &(ptr, size) in &blocks {
                    assert_eq!(
                        bytes(ptr as *const u8, size),
                        vec![t + 1; size],
                        "thread {t}"
                    );
                }
                blocks.len()
            })
        })
        .collect();
    for thread in threads {
        assert!(thread.join().is_ok_and(|kept| kept > 1000));
    }
}

//! The global allocator of a short-lived process.
//!
//! A `hookc claude` process answers one event and exits. Most of what it
//! allocates (the rules and atoms its event reaches, decoded into small
//! trees; the event's own tree; the shell view's words) lives until the
//! process ends, and the process never frees it. A general-purpose
//! allocator spends 150 to 200 instructions on each of those calls, a
//! fifth of what the hook process does; a bump of a pointer spends about
//! ten.
//!
//! [`Arena`] is that bump, over a static region the binary reserves (it
//! takes address space, and memory only as it is used). It serves small
//! allocations once [switched on](Arena::enable); everything else goes
//! to the system allocator, as it does before the switch and once the
//! region is used up. So a process that is not short-lived (the same
//! binary's `lsp` or `watch`) never switches it on, and one that is uses at
//! most the region more than it would have.
//!
//! Memory bumped out of the region is not reused, with one exception that
//! keeps growing buffers and temporary strings cheap: the last allocation
//! made can grow or shrink in place, and freeing it gives its bytes back.
//!
//! Every byte of the region past the last allocation is zero: the region
//! starts zeroed (in `.bss`, so the system maps zero pages only as they are
//! touched), and bytes given back are zeroed as they come back. So a
//! zeroed allocation from the region (a dispatch's scratch tables, sized
//! by the table) costs a bump, not a write of every byte: its pages are
//! touched only where it is used.
//!
//! ```
//! use hookc_arena::Arena;
//!
//! #[global_allocator]
//! static ALLOC: Arena<{ 1 << 20 }> = Arena::new();
//!
//! fn main() {
//!     ALLOC.enable();
//!     let words: Vec<String> = (0..10).map(|i| i.to_string()).collect();
//!     assert!(ALLOC.owns(words.as_ptr().cast()));
//! }
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The largest allocation bumped out of the region; larger ones (a table's
/// bytes, a big event) go to the system allocator, which maps them.
pub const LARGEST: usize = 64 << 10;

/// A bump allocator over a static region of `N` bytes, in front of the
/// system allocator. See the [crate] documentation.
#[derive(Debug)]
pub struct Arena<const N: usize> {
    /// The region, 64-byte aligned; zero from the first free byte on.
    region: UnsafeCell<MaybeUninit<Region<N>>>,
    /// The offset of the region's first free byte.
    next: AtomicUsize,
    /// Whether small allocations come from the region.
    on: AtomicBool,
}

#[repr(C, align(64))]
struct Region<const N: usize>([u8; N]);

// SAFETY: the region's bytes are only handed out through `alloc`, each
// byte range to one caller (the offset moves by compare-and-swap), so no
// two threads reach the same bytes through the arena.
unsafe impl<const N: usize> Sync for Arena<N> {}

impl<const N: usize> Arena<N> {
    /// An arena that is off: everything goes to the system allocator until
    /// [`Arena::enable`].
    pub const fn new() -> Arena<N> {
        Arena {
            region: UnsafeCell::new(MaybeUninit::zeroed()),
            next: AtomicUsize::new(0),
            on: AtomicBool::new(false),
        }
    }

    /// From now on, small allocations come from the region while it lasts.
    pub fn enable(&self) {
        self.on.store(true, Ordering::Relaxed);
    }

    /// How many of the region's bytes are in use (or were, and were not
    /// given back).
    pub fn used(&self) -> usize {
        self.next.load(Ordering::Relaxed)
    }

    /// Whether `ptr` points into the region.
    pub fn owns(&self, ptr: *const u8) -> bool {
        let address = ptr as usize;
        address >= self.base() && address < self.base() + N
    }

    fn base(&self) -> usize {
        self.region.get() as usize
    }

    /// `size` bytes aligned to `align` from the region, or `None` when they
    /// do not fit.
    fn bump(&self, size: usize, align: usize) -> Option<*mut u8> {
        let base = self.base();
        let mut next = self.next.load(Ordering::Relaxed);
        loop {
            // `align` is a power of two (a `Layout`'s).
            let start = (base + next).checked_add(align - 1)? & !(align - 1);
            let end = start.checked_add(size)?;
            if end > base + N {
                return None;
            }
            // Acquire: bytes another thread gave back (and zeroed) before
            // its release of `next` are seen as it left them.
            match self.next.compare_exchange_weak(
                next,
                end - base,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    // Derived from the region's own pointer, so that the
                    // result keeps its provenance.
                    let region: *mut u8 = self.region.get().cast();
                    return Some(region.wrapping_add(start - base));
                }
                Err(now) => next = now,
            }
        }
    }

    /// Moves the end of the allocation at `ptr` from `old` to `new` bytes
    /// when it is the last one made and the region has room; false when
    /// it is not.
    ///
    /// Bytes given back (`new < old`) are zeroed first, so that the region
    /// stays zero past its last allocation. They are the caller's own until
    /// the move, so zeroing them is harmless even when another thread's
    /// allocation comes between the check and the move and the move fails.
    fn resize_last(&self, ptr: *mut u8, old: usize, new: usize) -> bool {
        let start = ptr as usize - self.base();
        let Some(end) = start.checked_add(new).filter(|&end| end <= N) else {
            return false;
        };
        if self.next.load(Ordering::Relaxed) != start + old {
            return false;
        }
        if new < old {
            // SAFETY: `ptr` holds `old` bytes (the caller's allocation),
            // so its bytes `new..old` are in it; the caller gives them up.
            unsafe { ptr.add(new).write_bytes(0, old - new) };
        }
        // Release: the zeroed bytes, to whichever thread bumps them next.
        self.next
            .compare_exchange(start + old, end, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }
}

impl<const N: usize> Default for Arena<N> {
    fn default() -> Arena<N> {
        Arena::new()
    }
}

// The four are never inlined: the binary calls them from thousands of
// places, and a copy at each made its code 15 % larger.
//
// SAFETY: `alloc` returns either the system allocator's block or a range
// of the region no other allocation holds (`bump`), aligned as the layout
// asks and `layout.size()` long; `dealloc` and `realloc` tell the two
// apart by address (`owns`) and hand the system's blocks back to it.
unsafe impl<const N: usize> GlobalAlloc for Arena<N> {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() <= LARGEST && self.on.load(Ordering::Relaxed) {
            if let Some(ptr) = self.bump(layout.size(), layout.align()) {
                return ptr;
            }
        }
        // SAFETY: the caller's layout has a non-zero size, as
        // `GlobalAlloc::alloc` requires of it.
        unsafe { System.alloc(layout) }
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() <= LARGEST && self.on.load(Ordering::Relaxed) {
            if let Some(ptr) = self.bump(layout.size(), layout.align()) {
                // Past the last allocation, the region is zero (see the
                // crate documentation).
                return ptr;
            }
        }
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if self.owns(ptr) {
            // The last allocation's bytes come back; any other's stay.
            self.resize_last(ptr, layout.size(), 0);
        } else {
            // SAFETY: not the region's, so the system allocator's, with
            // this layout (the caller's promise).
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.owns(ptr) {
            // SAFETY: the system allocator's block, with this layout and a
            // valid new size (the caller's promise).
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        if self.resize_last(ptr, layout.size(), new_size) || new_size <= layout.size() {
            return ptr;
        }
        // SAFETY: `new_size` with the old alignment is a valid layout (the
        // caller's promise for `realloc`).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: `new_layout` has a non-zero size (it is larger than the
        // old one).
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: the old block holds `layout.size()` bytes, the new
            // one more; they do not overlap (the new one was just handed
            // out, the old one is still held).
            unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size()) };
        }
        new
    }
}

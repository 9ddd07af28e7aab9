//! A counting global allocator: the bytes live now and the most live at once since the last
//! [`Counting::restart`]. A test binary installs it with
//! `#[global_allocator] static COUNTING: Counting = Counting::new();`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// The system allocator, counting what it hands out.
#[derive(Debug)]
pub struct Counting {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl Counting {
    /// A counter at zero.
    #[must_use]
    pub const fn new() -> Counting {
        Counting {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Starts a new peak from what is live now, and returns that.
    pub fn restart(&self) -> usize {
        let live = self.live.load(SeqCst);
        self.peak.store(live, SeqCst);
        live
    }

    /// The most live at once since [`Counting::restart`] returned `start`, above it.
    pub fn peak_above(&self, start: usize) -> usize {
        self.peak.load(SeqCst).saturating_sub(start)
    }

    fn grew(&self, by: usize) {
        let live = self.live.fetch_add(by, SeqCst) + by;
        self.peak.fetch_max(live, SeqCst);
    }
}

impl Default for Counting {
    fn default() -> Counting {
        Counting::new()
    }
}

#[allow(
    unsafe_code,
    reason = "a counting global allocator is the only way to measure what a bake holds"
)]
// SAFETY: every method forwards to the system allocator with the caller's arguments unchanged
// and only updates two counters.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.live.fetch_sub(layout.size(), SeqCst);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            self.grew(new_size - layout.size());
        } else {
            self.live.fetch_sub(layout.size() - new_size, SeqCst);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

//! `merge` on hostile inputs does work bounded by its inputs: a shard plan of 4,294,967,295
//! slices with three given is checked without a step or an allocation per missing slice (a
//! counting allocator, armed on the checking thread only, would otherwise stop the process
//! long before the 2 GiB the old list of names reached).

use slangpack_format::{PackageBuilder, ShardRecord};
use slangpack_pack::merge_check::{check_shards, ShardCheck};
use slangpack_pack::PackError;
use slangpack_reader::Package;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Whether allocations of this thread are counted (and capped).
    static ARMED: Cell<bool> = const { Cell::new(false) };
    /// Allocations of this thread while armed.
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// Past this many allocations an armed thread gets none (the process stops with an allocation
/// failure instead of running on for minutes).
const CAP: u64 = 1 << 20;

/// Counts the allocations of armed threads.
struct Counting;

/// Counts one allocation of the current thread if armed; whether it may go ahead.
fn counted() -> bool {
    ARMED.with(|armed| {
        if !armed.get() {
            return true;
        }
        COUNT.with(|count| {
            count.set(count.get() + 1);
            count.get() <= CAP
        })
    })
}

#[allow(
    unsafe_code,
    reason = "a counting global allocator is the only way to measure what a call allocates"
)]
// SAFETY: every method forwards to the system allocator with the caller's arguments unchanged,
// or returns null (an allocation failure, which the caller must handle) for an armed thread
// past its cap; the thread-local cells are const-initialised and have no destructor, so
// reading them never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !counted() {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !counted() {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !counted() {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// What `f` returns and how many allocations it made (on this thread).
fn allocations<T>(f: impl FnOnce() -> T) -> (T, u64) {
    COUNT.with(|count| count.set(0));
    ARMED.with(|armed| armed.set(true));
    let value = f();
    ARMED.with(|armed| armed.set(false));
    (value, COUNT.with(Cell::get))
}

/// An empty slice `index` of a plan of `count` slices.
fn shard(index: u32, count: u32) -> Package {
    let mut p = PackageBuilder::new();
    p.set_shard(ShardRecord {
        shard_index: index,
        shard_count: count,
        plan_hash_lo: 7,
        plan_hash_hi: 9,
        plan_job_count: 3,
        job_count: 0,
        library_count: 0,
        reserved: 0,
    });
    Package::from_bytes(&p.finish().expect("a package")).expect("opens")
}

#[test]
fn missing_slices_of_a_huge_plan_are_reported_as_runs() {
    let n = u32::MAX;
    let given = [shard(1, n), shard(2, n), shard(n, n)];
    let inputs: Vec<(&str, &Package)> = ["s1", "s2", "sN"].into_iter().zip(&given).collect();
    let (checked, count) = allocations(|| check_shards(&inputs, false));
    let Err(PackError::Input(message)) = checked else {
        panic!("missing slices are an error: {checked:?}");
    };
    assert!(
        message.contains(
            "4294967292 of 4294967295 shards are missing: 3/4294967295 to \
             4294967294/4294967295"
        ),
        "{message}"
    );
    assert!(message.len() < 300, "{message}");
    assert!(count < 100, "{count} allocations");

    // With --allow-partial, the same line as a warning.
    let (checked, count) = allocations(|| check_shards(&inputs, true));
    let Ok(ShardCheck::Partial(lines)) = checked else {
        panic!("a deliberate subset: {checked:?}");
    };
    assert_eq!(
        lines,
        ["4294967292 of 4294967295 shards are missing: 3/4294967295 to 4294967294/4294967295"]
    );
    assert!(count < 100, "{count} allocations");
}

#[test]
fn missing_slices_are_listed_as_single_slices_and_runs() {
    // Slices 2, 5 and 6 of 9 given: 1, 3-4 and 7-9 missing.
    let given = [shard(5, 9), shard(2, 9), shard(6, 9)];
    let inputs: Vec<(&str, &Package)> = ["a", "b", "c"].into_iter().zip(&given).collect();
    let Ok(ShardCheck::Partial(lines)) = check_shards(&inputs, true) else {
        panic!("a deliberate subset");
    };
    assert_eq!(
        lines,
        ["6 of 9 shards are missing: 1/9, 3/9 to 4/9, 7/9 to 9/9"]
    );
    // One slice missing: named as before.
    let given = [shard(1, 3), shard(3, 3)];
    let inputs: Vec<(&str, &Package)> = ["a", "c"].into_iter().zip(&given).collect();
    let Ok(ShardCheck::Partial(lines)) = check_shards(&inputs, true) else {
        panic!("a deliberate subset");
    };
    assert_eq!(lines, ["1 of 3 shards are missing: 2/3"]);
    // Every slice there.
    let given = [shard(2, 2), shard(1, 2)];
    let inputs: Vec<(&str, &Package)> = ["a", "b"].into_iter().zip(&given).collect();
    assert_eq!(
        check_shards(&inputs, false).expect("complete"),
        ShardCheck::Complete {
            shard_count: 2,
            plan_job_count: 3
        }
    );
}

//! Arbitrary bytes → `Package::from_bytes` → every accessor. Opening may fail (with an error,
//! never a panic); whatever opens must be walkable without a panic or a broken invariant:
//! entries loaded lazily in a scrambled order, and, on a second opening, from two threads at
//! once (`walk::walk_bytes`). Each input is tried as given and again with its checksums
//! recomputed (`walk::replay`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/src/walk.rs"]
#[allow(dead_code, reason = "the tests use helpers this target does not")]
mod walk;

fuzz_target!(|data: &[u8]| {
    // A mutation inside a section almost always breaks a checksum first; the replay recomputes
    // them so the validation behind the checksums sees the mutated content too.
    std::hint::black_box(walk::replay(data));
});

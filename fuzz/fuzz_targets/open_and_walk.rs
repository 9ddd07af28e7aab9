//! Arbitrary bytes → `Package::from_bytes` → every accessor. Opening may fail (with an error,
//! never a panic); whatever opens must be walkable without a panic or a broken invariant.
//! Each input is tried as given and again with its checksums recomputed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slangpack_reader::Package;

#[path = "../../tests/src/walk.rs"]
#[allow(dead_code, reason = "the tests use helpers this target does not")]
mod walk;

fuzz_target!(|data: &[u8]| {
    if let Ok(package) = Package::from_bytes(data) {
        std::hint::black_box(walk::walk(&package));
    }
    // A mutation inside a section almost always breaks a checksum first; recompute them so
    // the validation behind the checksums sees the mutated content too.
    let mut fixed = data.to_vec();
    if walk::refix_checksums(&mut fixed) && fixed != data {
        if let Ok(package) = Package::from_bytes(&fixed) {
            std::hint::black_box(walk::walk(&package));
        }
    }
});

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
    packed_spirv(data);
});

/// The bytes as packed SPIR-V (2.6): unpacking them into a module of any size errs or fills
/// it, never panics; and the bytes as words pack and unpack back to themselves.
fn packed_spirv(data: &[u8]) {
    let words: Vec<u32> = data
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut out = vec![0u8; words.len() * 4];
    let _ = slangpack_format::unpack_spirv(data, &mut out);
    let packed = slangpack_format::pack_spirv(&words);
    assert!(packed.len() <= slangpack_format::packed_spirv_bound(out.len()));
    slangpack_format::unpack_spirv(&packed, &mut out).expect("packed words unpack");
    assert!(out == data[..out.len()], "packed words unpack to themselves");
}

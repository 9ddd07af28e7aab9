//! What opening a package costs per entry it indexes, measured on packages of one page of
//! entries: the question behind issue 48's fifth target (open of 10 000 entries within 3x of a
//! 1-entry package). A package's open decodes and checks its whole index (the directory and the
//! container tables, unpacked column by column and decompressed), so its time grows with its
//! entries; a layout whose index is paged (a small table of pages opened first, each page's
//! index decoded at the first touch of one of its entries) would open in about the time of the
//! page table and pay one page at a first load. This prints, from bytes (best of seven 0.3 s
//! loops): the 1-entry `pbr` package's open and open + first binding; then packages of K
//! consecutive entries (in key order, from the `pbr` permutations) of the huge package's 10 000,
//! for K = 16, 64, 256, 1024 and all of them, each assembled on its own in the default layout:
//! its size, its index's stored size, its open and its open + first binding of its middle entry.
//!
//! Usage: `cargo run --profile bench -p slangpack-benches --bin page-open` (a minute: the whole
//! huge package is assembled at level 19).

use slangpack_benches::{
    best_micros, examples_baked, pbr_entries, synthesize, HUGE_AXES, PBR_BINDING, PBR_KEY,
};
use slangpack_format::FileHeader;
use slangpack_pack::assemble::{assemble_with, BakedEntry};
use slangpack_reader::Package;
use zerocopy::FromBytes;

/// The best microseconds per call of `f` over seven loops of 0.3 s.
fn best(f: impl FnMut()) -> f64 {
    best_micros(7, 0.3, f)
}

/// Prints `name`'s package of `entries`: its size, its index's, its open and its open + first
/// binding of `key`.
fn report(name: &str, entries: &[BakedEntry], key: &str) {
    let bytes = assemble_with(entries, true, true).expect("assembling");
    let index = FileHeader::read_from_prefix(&bytes).map_or(0, |(h, _)| h.index_size);
    let open = best(|| {
        std::hint::black_box(Package::from_bytes(&bytes).expect("open"));
    });
    let first = best(|| {
        let package = Package::from_bytes(&bytes).expect("open");
        let entry = package.load(key).expect("entry");
        std::hint::black_box(entry.bind().binding(PBR_BINDING).map(|b| b.binding));
    });
    println!(
        "| {name} | {} | {} | {index} | {open:.2} | {first:.2} |",
        entries.len(),
        bytes.len()
    );
}

fn main() {
    let examples = examples_baked();
    println!(
        "| package | entries | bytes | index (stored) | open, µs | open + first binding, µs |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let pbr = pbr_entries(&examples);
    report("`pbr`", &pbr, PBR_KEY);
    let mut huge = synthesize(&examples, &HUGE_AXES, false);
    huge.sort_by(|a, b| a.key.cmp(&b.key));
    let start = huge
        .iter()
        .position(|e| e.key.starts_with("pbr?"))
        .expect("pbr permutations")
        + 1000;
    for k in [16, 64, 256, 1024] {
        let page = &huge[start..(start + k).min(huge.len())];
        let key = page[page.len() / 2].key.clone();
        report(&format!("a page of {k}"), page, &key);
    }
    let key = huge[start].key.clone();
    report("the huge package", &huge, &key);
}

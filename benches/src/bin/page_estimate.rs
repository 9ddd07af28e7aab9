//! Estimates what a layout of one zstd frame per page of K entries would store, against the
//! default layout's package: the design question behind issue 48's one-stream targets (each
//! entry today is two or three frames and as many directory records).
//!
//! For the example programs and the 1024 synthesized permutations of the large package (each
//! with its own reflection blob), entries in key order are grouped K at a time; a page is one
//! frame (level 19, no frame magic, no content size, no dictionary id) of its entries' SPIR-V
//! modules, bind views and packed raw tables, compressed against the package's two
//! dictionaries as one; the page count times 12 bytes plus 4 bytes per entry stands for the
//! directory. It prints the estimated package size per K and the time to decompress one page
//! with the dictionary already loaded.
//!
//! Usage: `cargo run --profile bench -p slangpack-benches --bin page-estimate`.

use slangpack_benches::{dictionary, examples_baked, spirv_bytes, synthesize_large};
use slangpack_format::SectionKind;
use slangpack_pack::assemble::{assemble_with, BakedEntry};
use zstd::zstd_safe::CParameter;

/// The frame magic a magicless frame leaves out.
const MAGIC: usize = 4;

/// Estimated directory bytes per page (offset, size, checksum, after compression) and per entry.
const PER_PAGE: usize = 12;
const PER_ENTRY: usize = 4;

fn main() {
    let examples = examples_baked();
    let large = synthesize_large(&examples);
    println!("| package | K | pages | frames | dictionaries | directory (estimate) | total | default layout | one page raw | decompress one page |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, entries) in [("examples", examples), ("large", large)] {
        estimate(name, entries);
    }
}

/// Prints the rows of `entries` for each page size.
fn estimate(name: &str, mut entries: Vec<BakedEntry>) {
    entries.sort_by(|a, b| a.key.cmp(&b.key));
    let package = assemble_with(&entries, true, true).expect("assembling");
    let mut dict = dictionary(&package, SectionKind::Dictionary);
    dict.extend(dictionary(&package, SectionKind::TablesDictionary));
    let stored_dict = zstd::bulk::compress(&dict, 19).expect("zstd").len();
    for k in [1usize, 2, 4, 8, 16] {
        let mut c = zstd::bulk::Compressor::with_dictionary(19, &dict).expect("zstd");
        c.set_parameter(CParameter::DictIdFlag(false))
            .expect("zstd");
        c.set_parameter(CParameter::ContentSizeFlag(false))
            .expect("zstd");
        let (mut frames, mut pages) = (0, 0);
        let mut first: Option<(Vec<u8>, usize)> = None;
        for page in entries.chunks(k) {
            let raw = page_bytes(page);
            let frame = c.compress(&raw).expect("zstd");
            frames += frame.len() - MAGIC;
            pages += 1;
            first.get_or_insert((frame, raw.len()));
        }
        let (frame, raw) = first.unwrap_or_default();
        let mut d = zstd::bulk::Decompressor::with_dictionary(&dict).expect("zstd");
        let loops = 2000;
        let started = std::time::Instant::now();
        for _ in 0..loops {
            std::hint::black_box(d.decompress(&frame, raw).expect("zstd"));
        }
        let per = started.elapsed() / loops;
        let directory = pages * PER_PAGE + entries.len() * PER_ENTRY;
        let total = frames + stored_dict + directory;
        println!(
            "| {name} | {k} | {pages} | {frames} | {stored_dict} | {directory} | {total} | {} | {raw} | {per:.2?} |",
            package.len()
        );
    }
}

/// A page's content: each entry's modules, then its blob's bind view and packed raw tables
/// (the blob whole where it does not split or pack).
fn page_bytes(page: &[BakedEntry]) -> Vec<u8> {
    let mut raw = Vec::new();
    for e in page {
        for ep in &e.entry_points {
            raw.extend(spirv_bytes(&ep.spirv));
        }
        let blob = &e.reflection[..];
        let split = slangpack_format::blob_split(blob)
            .and_then(|at| Some((at, slangpack_format::pack_raw_tables(blob, at)?)));
        match split {
            Some((at, packed)) => {
                raw.extend_from_slice(&blob[..at]);
                raw.extend(packed);
            }
            None => raw.extend_from_slice(blob),
        }
    }
    raw
}

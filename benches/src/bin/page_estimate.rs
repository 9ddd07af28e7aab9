//! Estimates what a layout of one zstd frame per page of K entries would store, against the
//! default layout's package: the design question behind issue 48's one-stream targets (each
//! entry today is two or three frames and as many directory records).
//!
//! For the example programs, the 100 permutations of issue 48's compute shader and the 1024
//! synthesized permutations of the large package (each with its own reflection blob), entries
//! in key order are grouped K at a time; a page is one
//! frame (level 19, no frame magic, no content size, no dictionary id) of its entries' SPIR-V
//! modules, bind views and packed raw tables, compressed against the package's two
//! dictionaries as one; the page count times 12 bytes plus 4 bytes per entry stands for the
//! directory. It prints the estimated package size per K and the time to decompress one page
//! with the dictionary already loaded; then, per package, what no framing of this content goes
//! below: every entry's modules, bind views and packed raw tables as one zstd stream (level 19,
//! no dictionary), the bind views alone and the packed raw tables alone.
//!
//! Usage: `cargo run --profile bench -p slangpack-benches --bin page-estimate`.

use slangpack_benches::{
    dictionary, examples_baked, permutations_ab, spirv_bytes, synthesize_large, work_dir,
};
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
    let ab = permutations_ab(&work_dir());
    let sets = [
        ("examples", examples),
        ("issue-48 shader", ab),
        ("large", large),
    ];
    println!("| package | K | pages | frames | dictionaries | directory (estimate) | total | default layout | one page raw | decompress one page |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, entries) in &sets {
        estimate(name, entries.clone());
    }
    println!();
    println!("| package | modules, bind views and packed raw tables as one stream | modules alone | bind views alone | packed raw tables alone |");
    println!("|---|---:|---:|---:|---:|");
    for (name, entries) in &sets {
        let parts = contents(entries);
        let all: Vec<u8> = parts.iter().flat_map(|p| p.concat()).collect();
        let [modules, binds, tables] = [0, 1, 2]
            .map(|i| zstd_len(&parts.iter().flat_map(|p| p[i].clone()).collect::<Vec<u8>>()));
        println!(
            "| {name} | {} | {modules} | {binds} | {tables} |",
            zstd_len(&all)
        );
    }
}

/// The zstd frame size of `bytes` at the writer's level, no dictionary.
fn zstd_len(bytes: &[u8]) -> usize {
    zstd::bulk::compress(bytes, 19).expect("zstd").len()
}

/// Per entry: its modules, its blob's bind view (the blob whole where it does not split) and
/// its packed raw tables, each back to back.
fn contents(entries: &[BakedEntry]) -> Vec<[Vec<u8>; 3]> {
    entries
        .iter()
        .map(|e| {
            let modules: Vec<u8> = e
                .entry_points
                .iter()
                .flat_map(|ep| spirv_bytes(&ep.spirv))
                .collect();
            let (bind, tables) = blob_parts(&e.reflection);
            [modules, bind, tables]
        })
        .collect()
}

/// A blob's bind view and packed raw tables (the blob whole and nothing where it does not
/// split or pack).
fn blob_parts(blob: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let split = slangpack_format::blob_split(blob)
        .and_then(|at| Some((at, slangpack_format::pack_raw_tables(blob, at)?)));
    match split {
        Some((at, packed)) => (blob[..at].to_vec(), packed),
        None => (blob.to_vec(), Vec::new()),
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
        let mut stored = std::collections::HashSet::new();
        for page in entries.chunks(k) {
            let raw = page_bytes(page, &mut stored);
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
/// (the blob whole where it does not split or pack), each module and blob only where no
/// earlier page or entry holds the same bytes (`stored`: their hashes), as the package stores
/// each once by content.
fn page_bytes(page: &[BakedEntry], stored: &mut std::collections::HashSet<u64>) -> Vec<u8> {
    let mut raw = Vec::new();
    let mut first = |bytes: &[u8]| stored.insert(xxhash_rust::xxh3::xxh3_64(bytes));
    for e in page {
        for ep in &e.entry_points {
            let module = spirv_bytes(&ep.spirv);
            if first(&module) {
                raw.extend(module);
            }
        }
        if first(&e.reflection) {
            let (bind, tables) = blob_parts(&e.reflection);
            raw.extend(bind);
            raw.extend(tables);
        }
    }
    raw
}

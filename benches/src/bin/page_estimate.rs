//! Estimates what a layout of one zstd frame per page of K entries would store, against the
//! default layout's package: the design question behind issue 48's one-stream targets (each
//! entry today is two or three frames and as many directory records).
//!
//! For the example programs, the 100 permutations of issue 48's compute shader and the 1024
//! synthesized permutations of the large package (each with its own reflection blob), entries
//! in key order are grouped K at a time (each module and blob in the page of the first entry
//! that holds it, as the package stores each once by content); a page is one frame (level 19,
//! no frame magic, no content size, no dictionary id) of its entries' SPIR-V modules, bind
//! views and packed raw tables, each at a multiple of 8, compressed against the package's two
//! dictionaries as one. The directory is counted three ways: a guess of 12 bytes a page and 4
//! an entry; the compressed index as a page layout would write it (today's records but for
//! the modules' and blobs', one record per page and one per member, no checksum on a member,
//! then today's container tables), compressed at level 19; and the same index with every table
//! packed column by column (zigzag LEB128 differences, as SPEC.md 6.1 packs raw tables) before
//! zstd. It prints the package size per K each way and the time to decompress one page with
//! the dictionary already loaded; then, per package, what no framing of this content goes
//! below: every entry's modules, bind views and packed raw tables as one zstd stream (level 19,
//! no dictionary), the modules, bind views and packed raw tables alone.
//!
//! Usage: `cargo run --profile bench -p slangpack-benches --bin page-estimate [-- --huge]`
//! (`--huge` adds the 10 000-entry package: a minute more).

use slangpack_benches::{
    dictionary, examples_baked, permutations_ab, spirv_bytes, synthesize, synthesize_large,
    work_dir, HUGE_AXES,
};
use slangpack_format::{FileHeader, SectionKind, SectionRecord};
use slangpack_pack::assemble::{assemble_with, BakedEntry};
use zerocopy::{FromBytes, IntoBytes};
use zstd::zstd_safe::CParameter;

/// The frame magic a magicless frame leaves out.
const MAGIC: usize = 4;

/// Estimated directory bytes per page (offset, size, checksum, after compression) and per entry.
const PER_PAGE: usize = 12;
const PER_ENTRY: usize = 4;

/// The file header's size.
const HEADER: usize = 72;

/// The section kind and compression a page layout would give pages and their members (values
/// no format version uses).
const PAGE: u32 = 0x7000;
const IN_PAGE: u32 = 0x70;

fn main() {
    let examples = examples_baked();
    let large = synthesize_large(&examples);
    let ab = permutations_ab(&work_dir());
    let mut sets = vec![
        ("examples", examples.clone()),
        ("issue-48 shader", ab),
        ("large", large),
    ];
    // The huge package (10 000 entries) only when asked: a minute of level-19 compression.
    if std::env::args().any(|a| a == "--huge") {
        sets.push(("huge", synthesize(&examples, &HUGE_AXES, false)));
    }
    println!("| package | K | pages | frames | dictionaries | directory (estimate) | total | index raw | index as written | total with it | index packed | total with it | default layout | one page raw | decompress one page |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
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
        // The directory as a page layout would write it: today's records of everything but
        // the modules and blobs, then a record per page and per member.
        let (today, containers) = index_of(&package);
        let mut directory: Vec<SectionRecord> = today
            .iter()
            .filter(|r| {
                !matches!(
                    r.section_kind(),
                    SectionKind::Spirv | SectionKind::Reflection
                )
            })
            .copied()
            .collect();
        let mut members = Vec::new();
        let mut offset = package.len();
        for page in entries.chunks(k) {
            let at = directory.len() as u32;
            let (raw, records) = page_bytes(page, &mut stored, at);
            let frame = c.compress(&raw).expect("zstd");
            let hash = xxhash_rust::xxh3::xxh3_64(&frame) & 0xffff_ffff;
            directory.push(record(
                PAGE,
                (2, 0, 0),
                (offset, frame.len() - MAGIC, raw.len()),
                hash,
            ));
            offset += frame.len() - MAGIC;
            members.extend(records);
            frames += frame.len() - MAGIC;
            pages += 1;
            first.get_or_insert((frame, raw.len()));
        }
        directory.extend(members);
        let records: Vec<u8> = directory
            .iter()
            .flat_map(|r| r.as_bytes().to_vec())
            .collect();
        let index_raw = records.len() + containers.len();
        let index = zstd_len(&[&records[..], &containers].concat());
        // The same index with every table packed column by column as the raw tables are.
        let mut packed = pack_columns(&records, size_of::<SectionRecord>());
        let mut at = 0;
        for r in today.iter().filter(|r| r.section_kind().is_container()) {
            let len = r.stored_size() as usize;
            let table = &containers[at..at + len];
            match r.record_stride {
                0 => packed.extend_from_slice(table),
                stride => packed.extend(pack_columns(table, stride as usize)),
            }
            at += len;
        }
        let packed_index = zstd_len(&packed);
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
        let real = HEADER + frames + stored_dict + index;
        let real_packed = HEADER + frames + stored_dict + packed_index;
        println!(
            "| {name} | {k} | {pages} | {frames} | {stored_dict} | {directory} | {total} | {index_raw} | {index} | {real} | {packed_index} | {real_packed} | {} | {raw} | {per:.2?} |",
            package.len()
        );
    }
}

/// A page's content: each entry's modules, then its blob's bind view and packed raw tables
/// (the blob whole where it does not split or pack), each module and blob only where no
/// earlier page or entry holds the same bytes (`stored`: their hashes), as the package stores
/// each once by content; each member starts at a multiple of 8. With the content, each
/// member's directory record as a page layout would write it: its kind, a compression of its
/// own, the bind view's size (a split blob) as its stride, the page (`page`) as its count, its
/// place and size in the page, its raw size, no checksum (the page's covers it).
fn page_bytes(
    page: &[BakedEntry],
    stored: &mut std::collections::HashSet<u64>,
    index: u32,
) -> (Vec<u8>, Vec<SectionRecord>) {
    let mut raw = Vec::new();
    let mut members = Vec::new();
    let mut first = |bytes: &[u8]| stored.insert(xxhash_rust::xxh3::xxh3_64(bytes));
    let mut add = |raw: &mut Vec<u8>, kind: SectionKind, bytes: &[u8], full: usize, head: usize| {
        raw.resize(raw.len().next_multiple_of(8), 0);
        members.push(record(
            kind.to_raw(),
            (IN_PAGE, head as u32, index),
            (raw.len(), bytes.len(), full),
            0,
        ));
        raw.extend_from_slice(bytes);
    };
    for e in page {
        for ep in &e.entry_points {
            let module = spirv_bytes(&ep.spirv);
            if first(&module) {
                add(&mut raw, SectionKind::Spirv, &module, module.len(), 0);
            }
        }
        if first(&e.reflection) {
            let (bind, tables) = blob_parts(&e.reflection);
            let head = if tables.is_empty() { 0 } else { bind.len() };
            let member = [bind, tables].concat();
            add(
                &mut raw,
                SectionKind::Reflection,
                &member,
                e.reflection.len(),
                head,
            );
        }
    }
    (raw, members)
}

/// A directory record: `kind`, (compression, stride, count), (offset, stored size, raw
/// size), checksum.
fn record(
    kind: u32,
    (compression, record_stride, record_count): (u32, u32, u32),
    (offset, stored, raw): (usize, usize, usize),
    hash: u64,
) -> SectionRecord {
    let fields = [kind, compression, record_stride, record_count];
    let mut record = SectionRecord::new(fields, offset as u64, stored as u64, raw as u64);
    (record.hash_lo, record.hash_hi) = slangpack_format::split_u64(hash);
    record
}

/// `table` (records of `stride` bytes) column by column, each `u32` word as the zigzag
/// LEB128 of its difference from the word above it: how SPEC.md 6.1 packs raw tables.
fn pack_columns(table: &[u8], stride: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for column in (0..stride).step_by(4) {
        let mut above = 0u32;
        for record in table.chunks_exact(stride) {
            let word = u32::from_le_bytes(record[column..column + 4].try_into().expect("a word"));
            let d = word.wrapping_sub(above) as i32;
            let mut z = ((d << 1) ^ (d >> 31)) as u32;
            while z >= 0x80 {
                out.push(z as u8 | 0x80);
                z >>= 7;
            }
            out.push(z as u8);
            above = word;
        }
    }
    out
}

/// The package's compressed index, decompressed: its directory's records and the container
/// tables after them.
fn index_of(package: &[u8]) -> (Vec<SectionRecord>, Vec<u8>) {
    let (header, _) = FileHeader::read_from_prefix(package).expect("a header");
    let at = header.section_dir_offset() as usize;
    let stored = &package[at..at + header.stored_directory_size() as usize];
    let raw =
        slangpack_format::index_content(&header, stored, 1 << 30).expect("a compressed index");
    let stride = header.section_record_size as usize;
    let count = header.section_count as usize;
    let records = (0..count)
        .map(|i| {
            SectionRecord::read_from_prefix(&raw[i * stride..])
                .expect("a record")
                .0
        })
        .collect();
    (records, raw[count * stride..].to_vec())
}

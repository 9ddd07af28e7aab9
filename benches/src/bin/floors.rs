//! The floors behind issue 48's targets that a default package does not reach: what any layout
//! of the same facts must spend, measured on this machine, beside what the default spends.
//!
//! * **Open -> first binding against rspirv-reflect (target 10x).** The `pbr` package's raw
//!   layout (SPIR-V stored as it is) from bytes to its first binding; the default layout's, with
//!   [`Package::load`] and with [`Package::load_bind`] (the bind view alone); and what decoding
//!   `pbr`'s two modules costs however they are compressed: zstd (level 19, no dictionary) of the
//!   modules as they are and of the modules packed by the SPIR-V grammar, and the unpacking of
//!   the packed ones. The 10x budget is rspirv-reflect's time over ten.
//! * **Stored reflection against Slang's JSON + zstd (target: no larger).** Per example program,
//!   level 19 without a dictionary: the bind view (the blob up to its raw tables) as the default
//!   stores it, the same packed column by column (as the raw tables are), the raw tables packed,
//!   and Slang's JSON (written by the criterion fixtures into `target/slangpack-bench`; absent
//!   until `cargo xtask bench` has run).
//! * **Peak memory of a bake against twice its package (target 7).** With a package path as the
//!   argument: its index unpacked (the directory and the container tables), which the writer
//!   holds whole to pack it column by column and compress it, against twice the package.
//!
//! Usage: `cargo run --profile bench -p slangpack-benches --bin floors [-- PACKAGE]`.

use slangpack_benches::{
    best_micros, examples_baked, pbr_entries, rspirv_binding, rspirv_reflect, work_dir,
    PBR_BINDING, PBR_KEY,
};
use slangpack_format::{pack_raw_tables, pack_spirv, pack_table, unpack_spirv, SectionKind};
use slangpack_pack::assemble::{assemble, assemble_with};
use slangpack_reader::Package;
use std::hint::black_box;

/// The best microseconds per call of `f` over nine loops of 0.25 s.
fn best(f: impl FnMut()) -> f64 {
    best_micros(9, 0.25, f)
}

/// zstd at level 19 without a dictionary: the stored size of `bytes`.
fn zstd19(bytes: &[u8]) -> usize {
    zstd::bulk::compress(bytes, 19).map_or(0, |z| z.len())
}

/// The `u32` at byte `at` of `bytes`.
fn word(bytes: &[u8], at: usize) -> usize {
    bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, |b| u32::from_le_bytes(b) as usize)
}

/// The first binding of `key` through [`Package::load`].
fn first_binding(bytes: &[u8]) -> Option<u32> {
    let package = Package::from_bytes(bytes).ok()?;
    let entry = package.load(PBR_KEY).ok()?;
    entry.bind().binding(PBR_BINDING).map(|b| b.binding)
}

fn open_floor() {
    let examples = examples_baked();
    let pbr = pbr_entries(&examples);
    let default = assemble_with(&pbr, true, true).expect("the default pbr package");
    let raw = assemble(&pbr, true).expect("the raw pbr package");
    let raw_package = Package::from_bytes(&raw).expect("open");
    let entry = raw_package.load(PBR_KEY).expect("the pbr entry");
    let modules: Vec<Vec<u32>> = entry.entry_points().map(|ep| ep.spirv().to_vec()).collect();
    let module_bytes: Vec<Vec<u8>> = modules
        .iter()
        .map(|m| m.iter().flat_map(|w| w.to_le_bytes()).collect())
        .collect();
    let refs: Vec<&[u8]> = module_bytes.iter().map(Vec::as_slice).collect();
    let rspirv = best(|| {
        let sets = rspirv_reflect(black_box(&refs));
        black_box(rspirv_binding(&sets, PBR_BINDING));
    });
    let raw_time = best(|| {
        black_box(first_binding(black_box(&raw)));
    });
    let default_time = best(|| {
        black_box(first_binding(black_box(&default)));
    });
    let bind_only = best(|| {
        let package = Package::from_bytes(black_box(&default)).expect("open");
        let view = package.load_bind(PBR_KEY).expect("the bind view");
        black_box(view.binding(PBR_BINDING).map(|b| b.binding));
    });
    let packed: Vec<Vec<u8>> = modules.iter().map(|m| pack_spirv(m)).collect();
    let words: usize = modules.iter().map(Vec::len).sum();
    let mut out = vec![0u8; words * 4];
    let unpack = best(|| {
        let mut at = 0;
        for (p, m) in packed.iter().zip(&modules) {
            let end = at + m.len() * 4;
            unpack_spirv(black_box(p), &mut out[at..end]).expect("unpacking");
            at = end;
        }
    });
    let compress = |parts: &[Vec<u8>]| -> Vec<Vec<u8>> {
        parts
            .iter()
            .map(|p| zstd::bulk::compress(p, 19).expect("zstd"))
            .collect()
    };
    let (plain, plain_packed) = (compress(&module_bytes), compress(&packed));
    let mut decompressor = zstd::bulk::Decompressor::new().expect("zstd");
    let mut buffer = Vec::with_capacity(words * 4);
    let mut decode = |frames: &[Vec<u8>]| {
        best(|| {
            for frame in frames {
                buffer.clear();
                let n = decompressor
                    .decompress_to_buffer(black_box(frame), &mut buffer)
                    .expect("a zstd frame");
                black_box(n);
            }
        })
    };
    let (zstd_plain, zstd_packed) = (decode(&plain), decode(&plain_packed));
    let sum = |parts: &[Vec<u8>]| parts.iter().map(Vec::len).sum::<usize>();
    let budget = rspirv / 10.0;
    println!("## `pbr` open -> first binding, from bytes (target: 10x rspirv-reflect)\n");
    println!("| what | µs |\n|---|---:|");
    println!("| rspirv-reflect: both modules reflected, then the lookup | {rspirv:.2} |");
    println!("| the 10x budget (rspirv-reflect / 10) | {budget:.2} |");
    println!("| raw layout (`--spirv raw`): open -> load -> first binding | {raw_time:.2} |");
    println!("| default layout: open -> load -> first binding | {default_time:.2} |");
    println!("| default layout: open -> bind view alone (`load_bind`) -> first binding | {bind_only:.2} |");
    println!(
        "| zstd 19, no dictionary, of the {} modules as they are ({} words, {} B stored): decompression | {zstd_plain:.2} |",
        modules.len(),
        words,
        sum(&plain)
    );
    println!(
        "| the modules packed by the SPIR-V grammar ({} B, {} B stored): zstd decompression | {zstd_packed:.2} |",
        sum(&packed),
        sum(&plain_packed)
    );
    println!("| their unpacking to words | {unpack:.2} |");
    println!(
        "\nWhat is left of the budget beside the raw layout's load for decoding the modules: {:.2} µs; \
         the cheapest zstd decoding measured above: {:.2} µs.\n",
        budget - raw_time,
        zstd_plain.min(zstd_packed + unpack)
    );
}

fn reflection_floor() {
    let examples = examples_baked();
    let raw = assemble(&examples, true).expect("the examples package");
    let package = Package::from_bytes(&raw).expect("open");
    println!("## Stored reflection, level 19, no dictionary (target: Slang's JSON + zstd)\n");
    println!(
        "| program | bind view, raw | as the default stores it | packed column by column | raw tables, packed | Slang JSON |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for key in package.keys().map(String::from).collect::<Vec<_>>() {
        let entry = package.load(&key).expect("an example entry");
        let view = entry.reflection().expect("its reflection");
        let blob = view.as_bytes();
        let split = word(blob, 56);
        let (dir, count, size) = (word(blob, 8), word(blob, 12), word(blob, 16));
        let mut tables: Vec<(usize, usize, usize)> = (0..count)
            .map(|i| dir + i * size)
            .map(|r| (word(blob, r + 4), word(blob, r + 8), word(blob, r + 12)))
            .filter(|&(offset, _, stride)| offset < split && stride > 0 && stride % 4 == 0)
            .collect();
        tables.sort_unstable();
        let head = &blob[..split];
        let (mut rest, mut packed, mut at) = (Vec::new(), Vec::new(), 0);
        for (offset, n, stride) in tables {
            rest.extend_from_slice(&head[at.min(offset)..offset]);
            pack_table(&head[offset..offset + n * stride], stride, &mut packed);
            at = offset + n * stride;
        }
        rest.extend_from_slice(&head[at.min(split)..]);
        rest.extend_from_slice(&packed);
        let tables = pack_raw_tables(blob, split).map_or(0, |t| zstd19(&t));
        let json = std::fs::read(work_dir().join(format!("{}.json", key.replace('/', "_"))))
            .map_or_else(
                |_| "not written yet".to_owned(),
                |j| format!("{} B", zstd19(&j)),
            );
        println!(
            "| `{key}` | {split} B | {} B | {} B | {tables} B | {json} |",
            zstd19(head),
            zstd19(&rest)
        );
    }
    println!();
}

fn index_floor(path: &str) {
    let package = Package::open(path).expect("the package");
    let sections: Vec<_> = package.sections().collect();
    let bytes = package.as_bytes().len() as u64;
    let directory = sections.len() * 48;
    let containers: u64 = sections
        .iter()
        .filter(|s| SectionKind::from_raw(s.kind).is_container())
        .map(|s| s.stored_size())
        .sum();
    println!(
        "## The index a writer holds (target 7: peak within the Slang sessions + 2x the package)\n"
    );
    println!(
        "`{path}`: {} B, {} entries, {} sections; its index unpacked: the directory {directory} B + the container tables {containers} B = {} B, {:.1}x twice the package.\n",
        bytes,
        package.len(),
        sections.len(),
        directory as u64 + containers,
        (directory as u64 + containers) as f64 / (2 * bytes) as f64
    );
}

fn main() {
    open_floor();
    reflection_floor();
    if let Some(path) = std::env::args().nth(1) {
        index_floor(&path);
    }
}

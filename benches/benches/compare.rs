//! slangpack against what an engine would use instead, in one run (see BENCHMARKS.md).
//!
//! `cargo xtask bench` runs this and prints the table; `cargo bench -p slangpack-benches
//! --bench compare -- --test` runs every benchmark once (what CI does).
//!
//! Groups (criterion ids `group/name`, read back by `bench-table`):
//! * `open`: open a package (checksums, decompression, validation), look the entry up, first
//!   binding lookup by name;
//! * `hot`: lookups on an open package, a full bind-view walk, SPIR-V access;
//! * `alt_open` / `alt_hot`: the same work through live Slang, Slang's JSON reflection,
//!   spirq and rspirv-reflect;
//! * `limits`: memcpy, zstd decompression and xxh3 of the same bytes.

use criterion::{black_box, BenchmarkId, Criterion, SamplingMode};
use slangpack_benches::*;
use slangpack_reader::Package;
use slangpack_writer::compile::{CompileOptions, Compiler, Source};
use std::time::Duration;

/// Open, then the first binding lookup: what a renderer does for a material at load time.
fn open_first_binding(package: &Package, key: &str) -> u32 {
    let entry = package.load(key).expect("entry");
    let binding = entry
        .reflection()
        .bind()
        .binding(PBR_BINDING)
        .expect("binding");
    binding.set * 64 + binding.binding
}

fn open(c: &mut Criterion, fx: &Fixtures) {
    let mut g = c.benchmark_group("open");
    let pbr_path = work_dir().join("pbr.slangpack");
    let large_path = work_dir().join("large.slangpack");
    // Every large entry key of the pbr program; the lookup picks one in the middle.
    let large_key = fx
        .large_keys
        .iter()
        .filter(|k| k.starts_with("pbr?"))
        .nth(100)
        .expect("a pbr permutation")
        .clone();

    g.bench_function("pbr_from_bytes", |b| {
        b.iter(|| {
            let p = Package::from_bytes(black_box(&fx.package_pbr)).expect("open");
            open_first_binding(&p, PBR_KEY)
        })
    });
    g.bench_function("pbr_mmap", |b| {
        b.iter(|| {
            let p = Package::open(black_box(&pbr_path)).expect("open");
            open_first_binding(&p, PBR_KEY)
        })
    });
    g.bench_function("examples_from_bytes", |b| {
        b.iter(|| {
            let p = Package::from_bytes(black_box(&fx.package)).expect("open");
            open_first_binding(&p, PBR_KEY)
        })
    });
    g.bench_function("examples_mmap", |b| {
        b.iter(|| {
            let p = Package::open(black_box(&fx.package_path)).expect("open");
            open_first_binding(&p, PBR_KEY)
        })
    });
    g.bench_function("examples_raw_from_bytes", |b| {
        b.iter(|| {
            let p = Package::from_bytes(black_box(&fx.package_raw)).expect("open");
            open_first_binding(&p, PBR_KEY)
        })
    });
    g.bench_function("large_from_bytes", |b| {
        b.iter(|| {
            let p = Package::from_bytes(black_box(&fx.large)).expect("open");
            open_first_binding(&p, &large_key)
        })
    });
    g.bench_function("large_mmap", |b| {
        b.iter(|| {
            let p = Package::open(black_box(&large_path)).expect("open");
            open_first_binding(&p, &large_key)
        })
    });
    g.bench_function("large_raw_from_bytes", |b| {
        b.iter(|| {
            let p = Package::from_bytes(black_box(&fx.large_raw)).expect("open");
            open_first_binding(&p, &large_key)
        })
    });
    g.finish();
}

/// Reads every field an engine binds with, names included, and folds them into a number.
fn walk_bind_view(bind: &slangpack_reader::BindView<'_>, entry_points: u32) -> u64 {
    let mut acc = u64::from(bind.set_slot_count());
    for set in bind.sets() {
        for b in bind.set(set.set).unwrap_or(&[]) {
            acc = acc.wrapping_add(u64::from(b.set ^ b.binding ^ b.descriptor_type ^ b.count));
            acc = acc.wrapping_add(bind.string(b.path).len() as u64 + u64::from(b.stage_flags));
        }
    }
    for pc in bind.push_constants() {
        acc = acc.wrapping_add(u64::from(pc.offset + pc.size + pc.stage_flags));
    }
    for layout in bind.buffer_layouts() {
        acc = acc.wrapping_add(bind.string(layout.name).len() as u64 + u64::from(layout.size));
        for m in bind.members(layout) {
            acc = acc.wrapping_add(u64::from(m.offset ^ m.size ^ m.type_kind ^ m.array_count));
            acc = acc.wrapping_add(bind.string(m.path).len() as u64);
        }
    }
    for ep in 0..entry_points {
        for v in bind.vertex_inputs(ep) {
            acc = acc.wrapping_add(u64::from(v.location ^ v.format));
            acc = acc.wrapping_add(bind.string(v.semantic_name).len() as u64);
        }
    }
    for s in bind.specialization_constants() {
        acc = acc.wrapping_add(u64::from(s.id ^ s.default_lo));
    }
    acc
}

fn hot(c: &mut Criterion, fx: &Fixtures) {
    let package = Package::from_bytes(&fx.package).expect("open");
    let large = Package::from_bytes(&fx.large).expect("open");
    let entry = package.load(PBR_KEY).expect("pbr");
    let bind = entry.reflection().bind();
    let entry_points = entry.entry_points().len() as u32;
    let large_key = fx.large_keys[fx.large_keys.len() / 2].clone();

    let mut g = c.benchmark_group("hot");
    g.bench_function("binding", |b| {
        b.iter(|| bind.binding(black_box(PBR_BINDING)).map(|b| b.binding))
    });
    g.bench_function("member", |b| {
        b.iter(|| {
            bind.buffer_member(black_box(PBR_MEMBER))
                .map(|(_, m)| m.offset)
        })
    });
    g.bench_function("walk", |b| {
        b.iter(|| walk_bind_view(black_box(&bind), entry_points))
    });
    g.bench_function("spirv", |b| {
        b.iter(|| {
            let entry = package.load(black_box(PBR_KEY)).expect("pbr");
            entry
                .entry_points()
                .map(|ep| {
                    let words = ep.spirv();
                    (words.as_ptr() as usize).wrapping_add(words.len())
                })
                .fold(0usize, usize::wrapping_add)
        })
    });
    g.bench_function("large_entry", |b| {
        b.iter(|| large.load(black_box(&large_key)).map(|e| e.index()))
    });
    g.finish();
}

fn alternatives(c: &mut Criterion, fx: &Fixtures) {
    let global = shader_slang::GlobalSession::new().expect("a Slang global session");
    let compiler = Compiler::new().expect("Slang");
    let pbr = fx.entry(PBR_KEY);
    let words: Vec<&[u32]> = pbr.entry_points.iter().map(|ep| &ep.spirv[..]).collect();
    let spirv_files: Vec<Vec<u8>> = words.iter().map(|w| spirv_bytes(w)).collect();
    let spirv_refs: Vec<&[u8]> = spirv_files.iter().map(|b| &b[..]).collect();
    let json_text = fx.json(PBR_KEY);
    let source = Source::read(&fx.shader_dir.join("pbr.slang")).expect("pbr.slang");
    let options = CompileOptions::default();

    // The other ways must find what the bind view finds.
    let disagreements = cross_check(&global, &fx.shader_dir, &fx.package_pbr, &words, json_text);
    assert!(
        disagreements.is_empty(),
        "the other ways disagree with the bind view:\n{}",
        disagreements.join("\n")
    );
    let live = LiveProgram::load(&global, &fx.shader_dir, "pbr");
    let json: serde_json::Value = serde_json::from_str(json_text).expect("Slang's JSON");
    let spirq_eps = spirq_reflect(&words);
    let rspirv_sets = rspirv_reflect(&spirv_refs);
    let (buffer, member) = PBR_MEMBER_BUFFER;

    let mut g = c.benchmark_group("alt_open");
    g.sampling_mode(SamplingMode::Flat);
    g.bench_function("slang_load_link_lookup", |b| {
        b.iter(|| {
            let live = LiveProgram::load(&global, &fx.shader_dir, black_box("pbr"));
            slang_lookup(live.layout(), PBR_BINDING)
        })
    });
    g.bench_function("slang_compile_spirv", |b| {
        b.iter(|| {
            let program = compiler
                .compile(PBR_KEY, black_box(&source), &options)
                .expect("compile");
            program.entry_points.len()
        })
    });
    g.bench_function("json_parse_lookup", |b| {
        b.iter(|| {
            let json: serde_json::Value = serde_json::from_str(black_box(json_text)).expect("json");
            json_lookup(&json, PBR_BINDING)
        })
    });
    g.bench_function("spirq_reflect_lookup", |b| {
        b.iter(|| {
            let eps = spirq_reflect(black_box(&words));
            spirq_binding(&eps, PBR_BINDING)
        })
    });
    g.bench_function("rspirv_reflect_lookup", |b| {
        b.iter(|| {
            let sets = rspirv_reflect(black_box(&spirv_refs));
            rspirv_binding(&sets, PBR_BINDING)
        })
    });
    g.finish();

    let layout = live.layout();
    let mut g = c.benchmark_group("alt_hot");
    g.bench_function("slang_binding", |b| {
        b.iter(|| slang_lookup(layout, black_box(PBR_BINDING)))
    });
    g.bench_function("slang_member", |b| {
        b.iter(|| slang_lookup(layout, black_box(PBR_MEMBER)))
    });
    g.bench_function("json_binding", |b| {
        b.iter(|| json_lookup(&json, black_box(PBR_BINDING)))
    });
    g.bench_function("json_member", |b| {
        b.iter(|| json_lookup(&json, black_box(PBR_MEMBER)))
    });
    g.bench_function("spirq_binding", |b| {
        b.iter(|| spirq_binding(&spirq_eps, black_box(PBR_BINDING)))
    });
    g.bench_function("spirq_member", |b| {
        b.iter(|| spirq_member(&spirq_eps, black_box(buffer), black_box(member)))
    });
    g.bench_function("rspirv_binding", |b| {
        b.iter(|| rspirv_binding(&rspirv_sets, black_box(PBR_BINDING)))
    });
    g.finish();
}

fn limits(c: &mut Criterion, fx: &Fixtures) {
    let mut g = c.benchmark_group("limits");
    let pbr_spirv: Vec<u32> = fx
        .entry(PBR_KEY)
        .entry_points
        .iter()
        .flat_map(|ep| ep.spirv.iter().copied())
        .collect();
    let mut dctx = zstd::bulk::Decompressor::new().expect("zstd");
    let mut buf = Vec::new();
    for (name, bytes) in [
        ("pbr", &fx.package_pbr),
        ("examples", &fx.package),
        ("large", &fx.large),
    ] {
        let sections = compressed_sections(bytes);
        let mut copy = vec![0u8; bytes.len()];
        g.bench_with_input(BenchmarkId::new("memcpy", name), bytes, |b, bytes| {
            b.iter(|| {
                copy.copy_from_slice(black_box(bytes));
                copy[0]
            })
        });
        g.bench_with_input(BenchmarkId::new("xxh3", name), bytes, |b, bytes| {
            b.iter(|| xxhash_rust::xxh3::xxh3_64(black_box(bytes)))
        });
        g.bench_function(BenchmarkId::new("zstd", name), |b| {
            b.iter(|| decompress_all(&mut dctx, black_box(&sections), &mut buf))
        });
    }
    let mut copy = vec![0u32; pbr_spirv.len()];
    g.bench_function("memcpy_pbr_spirv", |b| {
        b.iter(|| {
            copy.copy_from_slice(black_box(&pbr_spirv));
            copy[0]
        })
    });
    g.finish();
}

fn main() {
    let fx = Fixtures::build();
    fx.write_sizes().expect("writing sizes.json");
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    open(&mut c, &fx);
    hot(&mut c, &fx);
    alternatives(&mut c, &fx);
    limits(&mut c, &fx);
    c.final_summary();
}

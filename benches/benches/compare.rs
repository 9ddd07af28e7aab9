//! slangpack against what an engine would use instead, in one run (see BENCHMARKS.md).
//!
//! `cargo xtask bench` runs this and prints the table; `cargo bench -p slangpack-benches
//! --bench compare -- --test` runs every benchmark once (what CI does).
//!
//! Groups (criterion ids `group/name`, read back by `bench-table`):
//! * `open`: open a package (header, directory, key index), load the entry (checksums,
//!   decompression, validation of its sections), first binding lookup by name;
//! * `open_only`: the open alone; `first_load`: the load and lookup alone, on a package just
//!   opened; `verify`: open and check everything (`Package::verify_all`);
//! * `hot`: lookups on an open package, a full bind-view walk, SPIR-V access;
//! * `alt_open` / `alt_hot`: the same work through live Slang, Slang's JSON reflection,
//!   spirq and rspirv-reflect;
//! * `limits`: memcpy, zstd decompression and xxh3 of the same bytes.

use criterion::{black_box, BatchSize, BenchmarkId, Criterion, SamplingMode};
use slangpack_benches::*;
use slangpack_reader::Package;
use slangpack_writer::compile::{CompileOptions, Compiler, Source};
use std::time::Duration;

/// Open, then the first binding lookup: what a renderer does for a material at load time.
fn open_first_binding(package: &Package, key: &str) -> u32 {
    let entry = package.load(key).expect("entry");
    let binding = entry.bind().binding(PBR_BINDING).expect("binding");
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

    let pbr_raw_path = work_dir().join("pbr-raw.slangpack");
    // The `pbr` package stored both ways, opened from bytes and memory-mapped.
    for (name, bytes, path) in [
        ("pbr", &fx.package_pbr, &pbr_path),
        ("pbr_raw", &fx.package_pbr_raw, &pbr_raw_path),
    ] {
        g.bench_function(format!("{name}_from_bytes"), |b| {
            b.iter(|| {
                let p = Package::from_bytes(black_box(bytes)).expect("open");
                open_first_binding(&p, PBR_KEY)
            })
        });
        g.bench_function(format!("{name}_mmap"), |b| {
            b.iter(|| {
                let p = Package::open(black_box(path)).expect("open");
                open_first_binding(&p, PBR_KEY)
            })
        });
    }
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
    let huge_path = work_dir().join("huge.slangpack");
    g.bench_function("huge_from_bytes", |b| {
        b.iter(|| {
            let p = Package::from_bytes(black_box(&fx.huge)).expect("open");
            open_first_binding(&p, &fx.huge_key)
        })
    });
    g.bench_function("huge_mmap", |b| {
        b.iter(|| {
            let p = Package::open(black_box(&huge_path)).expect("open");
            open_first_binding(&p, &fx.huge_key)
        })
    });
    g.finish();

    // Open alone (mapped): the header, the directory and the key index.
    let mut g = c.benchmark_group("open_only");
    let huge_flat_path = work_dir().join("huge-flat.slangpack");
    for (name, path) in [
        ("pbr_mmap", &pbr_path),
        ("large_mmap", &large_path),
        ("huge_mmap", &huge_path),
        ("huge_flat_mmap", &huge_flat_path),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| Package::open(black_box(path)).expect("open").len())
        });
    }
    g.finish();

    // The first load of one entry and its first binding, on a package just opened (the open is
    // not timed): checksums, decompression and validation of that entry's sections.
    let mut g = c.benchmark_group("first_load");
    for (name, path, key) in [
        ("pbr", &pbr_path, PBR_KEY),
        ("large", &large_path, large_key.as_str()),
        ("huge", &huge_path, fx.huge_key.as_str()),
        ("huge_flat", &huge_flat_path, fx.huge_key.as_str()),
    ] {
        g.bench_function(name, |b| {
            b.iter_batched(
                || Package::open(path).expect("open"),
                |p| {
                    let found = open_first_binding(&p, key);
                    (p, found)
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

/// Open and check everything, against memcpy + xxh3 (+ zstd) of the same bytes.
fn verify(c: &mut Criterion, fx: &Fixtures) {
    let mut g = c.benchmark_group("verify");
    g.sample_size(10);
    for (name, bytes) in [
        ("examples", &fx.package),
        ("examples_raw", &fx.package_raw),
        ("large", &fx.large),
        ("large_raw", &fx.large_raw),
        ("huge", &fx.huge),
        ("huge_raw", &fx.huge_raw),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let p = Package::from_bytes(black_box(bytes)).expect("open");
                p.verify_all().expect("verify");
                p.len()
            })
        });
    }
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
    let bind = entry.bind();
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
    // Handles: the name resolved once, per-frame reads are an index.
    let binding = bind.binding_handle(PBR_BINDING).expect("handle");
    let member = bind.member_handle(PBR_MEMBER).expect("handle");
    g.bench_function("binding_handle", |b| {
        b.iter(|| bind.binding_at(black_box(binding)).map(|b| b.binding))
    });
    g.bench_function("member_handle", |b| {
        b.iter(|| bind.member_at(black_box(member)).map(|(_, m)| m.offset))
    });
    // 500 bindings: the name index stays O(1), a scan does not.
    let many = Package::from_bytes(&fx.many).expect("open");
    let many_entry = many.entries().next().expect("one entry").expect("loads");
    let many_bind = many_entry.bind();
    assert_eq!(many_bind.bindings().len(), MANY_BINDINGS + 1);
    let spirq_many = spirq_reflect(&[&fx.many_spirv[..]]);
    assert_eq!(
        many_bind.binding(MANY_BINDING).map(|b| (b.set, b.binding)),
        spirq_binding(&spirq_many, MANY_BINDING),
        "spirq finds what the bind view finds"
    );
    g.bench_function("binding_500", |b| {
        b.iter(|| {
            many_bind
                .binding(black_box(MANY_BINDING))
                .map(|b| b.binding)
        })
    });
    g.finish();
    let mut g = c.benchmark_group("alt_hot");
    g.bench_function("spirq_binding_500", |b| {
        b.iter(|| spirq_binding(&spirq_many, black_box(MANY_BINDING)))
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

/// The limits of a first load: one entry's own bytes (xxh3 and a copy of its sections, zstd of
/// its frames), and the same with what the first load in a just-opened package does once.
fn entry_limits(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    fx: &Fixtures,
    buf: &mut Vec<u8>,
) {
    // One entry's own bytes: xxh3 and a copy of its sections, zstd of its reflection.
    let large_key = fx
        .large_keys
        .iter()
        .filter(|k| k.starts_with("pbr?"))
        .nth(100)
        .expect("a pbr permutation");
    for (name, bytes, key) in [
        ("pbr", &fx.package_pbr, PBR_KEY),
        ("large", &fx.large, large_key.as_str()),
        ("huge", &fx.huge, fx.huge_key.as_str()),
    ] {
        let sections = entry_sections(bytes, key);
        let frames: Vec<Frame> = sections.iter().flat_map(|(_, f)| f.clone()).collect();
        let mut d = Decompressors::of(bytes);
        let mut copy = vec![0u8; sections.iter().map(|(s, _)| s.len()).sum()];
        g.bench_function(BenchmarkId::new("entry", name), |b| {
            b.iter(|| {
                let mut at = 0;
                let mut hash = 0;
                for (s, _) in &sections {
                    hash ^= xxhash_rust::xxh3::xxh3_64(black_box(s));
                    copy[at..at + s.len()].copy_from_slice(s);
                    at += s.len();
                }
                hash ^ decompress_all(&mut d, black_box(&frames), buf) as u64
            })
        });
    }
    // The same, plus what the first load in a just-opened package also does once for the
    // package: xxh3 and zstd of its dictionary section, and the dictionary made ready to
    // decompress with (a `DDict`, as the reader makes it).
    for (name, bytes, key) in [
        ("pbr", &fx.package_pbr, PBR_KEY),
        ("large", &fx.large, large_key.as_str()),
        ("huge", &fx.huge, fx.huge_key.as_str()),
    ] {
        let sections = entry_sections(bytes, key);
        let frames: Vec<Frame> = sections.iter().flat_map(|(_, f)| f.clone()).collect();
        let stored_dictionary = dictionary_section(bytes);
        let mut plain = zstd::bulk::Decompressor::new().expect("zstd");
        let mut copy = vec![0u8; sections.iter().map(|(s, _)| s.len()).sum()];
        let mut dict = Vec::new();
        g.bench_function(BenchmarkId::new("entry_and_dictionary", name), |b| {
            b.iter(|| {
                let mut at = 0;
                let mut hash = 0;
                for (s, _) in &sections {
                    hash ^= xxhash_rust::xxh3::xxh3_64(black_box(s));
                    copy[at..at + s.len()].copy_from_slice(s);
                    at += s.len();
                }
                dict.clear();
                if let Some((stored, frame)) = &stored_dictionary {
                    hash ^= xxhash_rust::xxh3::xxh3_64(black_box(stored));
                    match frame {
                        Some(f) => {
                            dict.reserve(f.raw);
                            plain
                                .decompress_to_buffer(&f.stored, &mut dict)
                                .expect("the dictionary");
                        }
                        None => dict.extend_from_slice(stored),
                    }
                }
                let ready = zstd::dict::DecoderDictionary::copy(&dict);
                let mut with_dict =
                    zstd::bulk::Decompressor::with_prepared_dictionary(&ready).expect("zstd");
                for frame in black_box(&frames) {
                    buf.clear();
                    buf.reserve(frame.raw);
                    // A load decompresses nothing with the tables' dictionary.
                    let written = match frame.dictionary {
                        FrameDictionary::Package => {
                            with_dict.decompress_to_buffer(&frame.stored, buf)
                        }
                        _ => plain.decompress_to_buffer(&frame.stored, buf),
                    };
                    hash ^= written.expect("a valid zstd frame") as u64;
                }
                hash
            })
        });
    }
}

fn limits(c: &mut Criterion, fx: &Fixtures) {
    let mut g = c.benchmark_group("limits");
    let pbr_spirv: Vec<u32> = fx
        .entry(PBR_KEY)
        .entry_points
        .iter()
        .flat_map(|ep| ep.spirv.iter().copied())
        .collect();
    let mut buf = Vec::new();
    for (name, bytes) in [
        ("pbr", &fx.package_pbr),
        ("pbr_raw", &fx.package_pbr_raw),
        ("examples", &fx.package),
        ("examples_raw", &fx.package_raw),
        ("large", &fx.large),
        ("large_raw", &fx.large_raw),
        ("huge", &fx.huge),
        ("huge_raw", &fx.huge_raw),
    ] {
        let sections = compressed_sections(bytes);
        let mut d = Decompressors::of(bytes);
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
            b.iter(|| decompress_all(&mut d, black_box(&sections), &mut buf))
        });
    }
    // What open checksums: the directory and the container tables.
    for (name, bytes) in [
        ("pbr", &fx.package_pbr),
        ("large", &fx.large),
        ("huge", &fx.huge),
    ] {
        let checked = open_checked_bytes(bytes);
        g.bench_function(BenchmarkId::new("open_xxh3", name), |b| {
            b.iter(|| {
                checked
                    .iter()
                    .fold(0, |h, s| h ^ xxhash_rust::xxh3::xxh3_64(black_box(s)))
            })
        });
    }
    entry_limits(&mut g, fx, &mut buf);
    let mut copy = vec![0u32; pbr_spirv.len()];
    g.bench_function("memcpy_pbr_spirv", |b| {
        b.iter(|| {
            copy.copy_from_slice(black_box(&pbr_spirv));
            copy[0]
        })
    });
    g.finish();
}

/// The `slangpack` binary `cargo xtask bench` builds (`SLANGPACK_CLI` names another).
fn cli_binary() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("SLANGPACK_CLI")
        .map(std::path::PathBuf::from)
        .or_else(|| Some(work_dir().parent()?.join("release").join("slangpack")))?;
    path.is_file().then_some(path)
}

/// Whole processes of the package tools: `slangpack --version` (the start alone) against
/// `slangpack-bake --version` (the same start with Slang loaded, which every subcommand paid
/// while one binary linked the compiler), and `slangpack extract` of one entry point of one
/// entry, from the 1-entry `pbr` package and from the large and huge packages (one `pbr`
/// permutation): a tool that reads one entry loads one entry.
fn tools(c: &mut Criterion, fx: &Fixtures) {
    let Some(cli) = cli_binary() else {
        eprintln!("tools: no slangpack binary (cargo build --release -p slangpack-cli); skipped");
        return;
    };
    let large_key = fx
        .large_keys
        .iter()
        .find(|k| k.starts_with("pbr?"))
        .expect("a pbr permutation")
        .clone();
    let out = work_dir().join("extract.spv");
    let mut g = c.benchmark_group("tools");
    g.sample_size(15);
    let bake = cli.with_file_name(format!("slangpack-bake{}", std::env::consts::EXE_SUFFIX));
    for (name, binary) in [("start_slangpack", &cli), ("start_slangpack_bake", &bake)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let status = std::process::Command::new(binary)
                    .arg("--version")
                    .stdout(std::process::Stdio::null())
                    .status()
                    .expect("running --version");
                assert!(status.success(), "{} --version failed", binary.display());
            })
        });
    }
    for (name, package, key) in [
        ("extract_pbr", "pbr.slangpack", PBR_KEY.to_owned()),
        ("extract_large", "large.slangpack", large_key),
        ("extract_huge", "huge.slangpack", fx.huge_key.clone()),
    ] {
        let package = work_dir().join(package);
        g.bench_function(name, |b| {
            b.iter(|| {
                let status = std::process::Command::new(&cli)
                    .arg("extract")
                    .arg(&package)
                    .args(["--entry", &key, "--entry-point", "fragmentMain", "-o"])
                    .arg(&out)
                    .status()
                    .expect("running slangpack extract");
                assert!(status.success(), "slangpack extract failed");
            })
        });
    }
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
    verify(&mut c, &fx);
    hot(&mut c, &fx);
    alternatives(&mut c, &fx);
    limits(&mut c, &fx);
    tools(&mut c, &fx);
    c.final_summary();
}

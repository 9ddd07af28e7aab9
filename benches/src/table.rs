//! The one table of `cargo xtask bench`: criterion's medians (from
//! `target/criterion/<group>/<name>/new/estimates.json`) and the fixture sizes
//! (`target/slangpack-bench/sizes.json`), as ratios of slangpack against each alternative and
//! each limit.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// What a cell measures.
#[derive(Clone, Copy, Debug)]
pub enum Measure {
    /// A criterion benchmark id (`group/name`): its median time.
    Time(&'static str),
    /// The sum of several benchmarks' medians.
    TimeSum(&'static [&'static str]),
    /// A byte count from `sizes.json`.
    Bytes(&'static str),
    /// A fixed duration in nanoseconds: a target to meet.
    Nanos(f64),
    /// A benchmark's median plus a fixed allowance in nanoseconds (a target such as "Slang's
    /// compile plus 100 ms").
    TimePlus(&'static str, f64),
    /// Nothing measured; the text says why.
    Note(&'static str),
}

/// How the ratio of a row reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Another way to do the same work: `theirs / ours`, "N× faster".
    Alternative,
    /// A lower bound on the same bytes: `ours / limit`, "N× the limit".
    Limit,
    /// A byte count against another: "N× smaller".
    Size,
    /// Only our number.
    Alone,
}

/// One row: our measurement of `work` against `other`.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The work, in words.
    pub work: &'static str,
    /// slangpack's measurement.
    pub ours: Measure,
    /// What it is compared with, in words.
    pub against: &'static str,
    /// Its measurement.
    pub other: Measure,
    /// How the ratio reads.
    pub kind: Kind,
}

const fn row(
    work: &'static str,
    ours: Measure,
    against: &'static str,
    other: Measure,
    kind: Kind,
) -> Row {
    Row {
        work,
        ours,
        against,
        other,
        kind,
    }
}

use Kind::*;
use Measure::*;

const OPEN_PBR: &str =
    "**Open** `pbr` package (1 entry, 2 entry points; default layout: compressed SPIR-V and bind view) from bytes → first binding";
const HOT_BINDING: &str = "**Hot** binding by name `gScene.material.textures.albedo`";
const HOT_MEMBER: &str = "**Hot** buffer member by name `gScene.material.params.roughness`";
/// The warm-remote-cache bake row's label.
const BAKE_WARM_CACHE: &str = "**Bake** a fresh checkout of the 100 permutations from a warm team cache (BuildGrid, the Remote Execution API over gRPC on this machine)";

const BAKE_NOOP: &str =
    "**Bake** no-op rebake of 100 permutations (nothing changed: no Slang session, no assembly, no write)";

/// The watch-mode latency row's work (two rows compare it).
const WATCH_EDIT: &str = "**Watch** edit → new package: `blur.slang` saved under `bake --watch` of the 4 example programs, until the package with its new code is written";

/// The rows of the table, in order.
pub const ROWS: &[Row] = &[
    // Open, against the other ways.
    row(OPEN_PBR, Time("open/pbr_from_bytes"), "live Slang: session, load, compose, link, reflection lookup (no code generation)", Time("alt_open/slang_load_link_lookup"), Alternative),
    row(OPEN_PBR, Time("open/pbr_from_bytes"), "live Slang: full compile to SPIR-V (what gives the same SPIR-V), writer's `Compiler::compile`", Time("alt_open/slang_compile_spirv"), Alternative),
    row(OPEN_PBR, Time("open/pbr_from_bytes"), "Slang's JSON reflection (`spReflection_ToJson`) parsed with serde_json, then the same lookup", Time("alt_open/json_parse_lookup"), Alternative),
    row(OPEN_PBR, Time("open/pbr_from_bytes"), "spirq 1.3: reflect both SPIR-V modules, then the same lookup", Time("alt_open/spirq_reflect_lookup"), Alternative),
    row(OPEN_PBR, Time("open/pbr_from_bytes"), "rspirv-reflect 0.9: reflect both SPIR-V modules (descriptor sets), then the same lookup", Time("alt_open/rspirv_reflect_lookup"), Alternative),
    row(OPEN_PBR, Time("open/pbr_from_bytes"), "spirv-reflect 0.2.3", Note("not run: aborts with an assertion in `ParseInterfaceVariables` on Slang's SPIR-V 1.5 (tried on seven shaders)"), Alternative),
    row("**Open** `pbr` package, raw layout (`--spirv raw`), memory-mapped → first binding", Time("open/pbr_raw_mmap"), "rspirv-reflect 0.9: reflect both SPIR-V modules (descriptor sets), then the same lookup", Time("alt_open/rspirv_reflect_lookup"), Alternative),
    row("**Open** `pbr` package, raw layout (`--spirv raw`), memory-mapped → first binding", Time("open/pbr_raw_mmap"), "spirq 1.3: reflect both SPIR-V modules, then the same lookup", Time("alt_open/spirq_reflect_lookup"), Alternative),
    row("**Open** `pbr` package, raw layout (`--spirv raw`), from bytes → first binding", Time("open/pbr_raw_from_bytes"), "rspirv-reflect 0.9: reflect both SPIR-V modules (descriptor sets), then the same lookup", Time("alt_open/rspirv_reflect_lookup"), Alternative),
    // The tools start without the compiler, and read one entry.
    row("**Start** the package tools, whole `slangpack --version` process (links no Slang)", Time("tools/start_slangpack"), "the same start with Slang loaded: whole `slangpack-bake --version` process (every subcommand's start while one binary linked the compiler)", Time("tools/start_slangpack_bake"), Alternative),
    row("**Extract** one entry point of the 1-entry `pbr` package, whole `slangpack extract` process", Time("tools/extract_pbr"), "limit: the tool's start alone, whole `slangpack --version` process", Time("tools/start_slangpack"), Limit),
    row("**Extract** one entry point of one `pbr` permutation of the large package (1024 entries), whole `slangpack extract` process", Time("tools/extract_large"), "limit: the same extract from the 1-entry `pbr` package", Time("tools/extract_pbr"), Limit),
    row("**Extract** one entry point of one `pbr` permutation of the huge package (10 000 entries), whole `slangpack extract` process", Time("tools/extract_huge"), "limit: the same extract from the 1-entry `pbr` package", Time("tools/extract_pbr"), Limit),
    // Open, against the limits.
    row(OPEN_PBR, Time("open/pbr_from_bytes"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/pbr", "limits/xxh3/pbr", "limits/zstd/pbr"]), Limit),
    row("**Open** `pbr` package memory-mapped → first binding", Time("open/pbr_mmap"), "limit: xxh3 + zstd of the same bytes", TimeSum(&["limits/xxh3/pbr", "limits/zstd/pbr"]), Limit),
    row("**Open** examples package (4 entries) from bytes → first binding", Time("open/examples_from_bytes"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/examples", "limits/xxh3/examples", "limits/zstd/examples"]), Limit),
    row("**Open** examples package memory-mapped → first binding", Time("open/examples_mmap"), "limit: xxh3 + zstd of the same bytes", TimeSum(&["limits/xxh3/examples", "limits/zstd/examples"]), Limit),
    row("**Open** `pbr` package, raw layout (`--spirv raw`), from bytes → first binding", Time("open/pbr_raw_from_bytes"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/pbr_raw", "limits/xxh3/pbr_raw", "limits/zstd/pbr_raw"]), Limit),
    row("**Open** examples package, raw layout (`--spirv raw`), from bytes → first binding", Time("open/examples_raw_from_bytes"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/examples_raw", "limits/xxh3/examples_raw", "limits/zstd/examples_raw"]), Limit),
    row("**Open** large package (1024 entries, 1536 SPIR-V modules) from bytes → first binding", Time("open/large_from_bytes"), "limit: memcpy of the same bytes", Time("limits/memcpy/large"), Limit),
    row("**Open** large package (1024 entries, 1536 SPIR-V modules) from bytes → first binding", Time("open/large_from_bytes"), "limit: xxh3 of the same bytes", Time("limits/xxh3/large"), Limit),
    row("**Open** large package (1024 entries, 1536 SPIR-V modules) from bytes → first binding", Time("open/large_from_bytes"), "limit: zstd decompression of its 1024 reflection sections", Time("limits/zstd/large"), Limit),
    row("**Open** large package (1024 entries, 1536 SPIR-V modules) from bytes → first binding", Time("open/large_from_bytes"), "limit: memcpy + xxh3 + zstd", TimeSum(&["limits/memcpy/large", "limits/xxh3/large", "limits/zstd/large"]), Limit),
    row("**Open** large package memory-mapped → first binding", Time("open/large_mmap"), "limit: xxh3 + zstd of the same bytes", TimeSum(&["limits/xxh3/large", "limits/zstd/large"]), Limit),
    row("**Open** large package, raw layout (`--spirv raw`), from bytes → first binding", Time("open/large_raw_from_bytes"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/large_raw", "limits/xxh3/large_raw", "limits/zstd/large_raw"]), Limit),
    row("**Open** huge package (10 000 entries, 15 000 SPIR-V modules) from bytes → first binding", Time("open/huge_from_bytes"), "limit: memcpy of the same bytes (the copy `from_bytes` makes)", Time("limits/memcpy/huge"), Limit),
    row("**Open** huge package memory-mapped → first binding", Time("open/huge_mmap"), "", Note(""), Alone),
    // Open alone, then the first load: open does not grow with what the package holds.
    row("**Open only** (memory-mapped): `pbr` package, 1 entry", Time("open_only/pbr_mmap"), "limit: xxh3 of what open checksums (the directory and the container tables)", Time("limits/open_xxh3/pbr"), Limit),
    row("**Open only** (memory-mapped): large package, 1024 entries", Time("open_only/large_mmap"), "limit: xxh3 of what open checksums (the directory and the container tables)", Time("limits/open_xxh3/large"), Limit),
    row("**Open only** (memory-mapped): huge package, 10 000 entries (paged: 157 pages of 64 entries)", Time("open_only/huge_mmap"), "limit: xxh3 of what open checksums (the page table)", Time("limits/open_xxh3/huge"), Limit),
    row("**Open only** (memory-mapped): large package, 1024 entries", Time("open_only/large_mmap"), "the `pbr` package (1 entry)", Time("open_only/pbr_mmap"), Limit),
    row("**Open only** (memory-mapped): huge package, 10 000 entries (paged: 157 pages of 64 entries)", Time("open_only/huge_mmap"), "the `pbr` package (1 entry)", Time("open_only/pbr_mmap"), Limit),
    row("**Open only** (memory-mapped): huge package, 10 000 entries, not paged (one index, as 2.9 wrote it)", Time("open_only/huge_flat_mmap"), "the `pbr` package (1 entry)", Time("open_only/pbr_mmap"), Limit),
    row("**First load** of `pbr` + first binding, package just opened (mapped)", Time("first_load/pbr"), "limit: xxh3 + zstd + memcpy of that entry's own sections", Time("limits/entry/pbr"), Limit),
    row("**First load** of `pbr` + first binding, package just opened (mapped)", Time("first_load/pbr"), "limit: the same plus what the package's first load does once: xxh3 + zstd of the dictionary, the dictionary made ready (`DDict`)", Time("limits/entry_and_dictionary/pbr"), Limit),
    row("**First load** of one entry of the large package + first binding", Time("first_load/large"), "limit: xxh3 + zstd + memcpy of that entry's own sections", Time("limits/entry/large"), Limit),
    row("**First load** of one entry of the large package + first binding", Time("first_load/large"), "limit: the same plus what the package's first load does once: xxh3 + zstd of the dictionary, the dictionary made ready (`DDict`)", Time("limits/entry_and_dictionary/large"), Limit),
    row("**First load** of one entry of the huge package + first binding", Time("first_load/huge"), "limit: xxh3 + zstd + memcpy of that entry's own sections", Time("limits/entry/huge"), Limit),
    row("**First load** of one entry of the huge package + first binding", Time("first_load/huge"), "limit: the same plus what the package's first load does once: xxh3 + zstd of the dictionary, the dictionary made ready (`DDict`)", Time("limits/entry_and_dictionary/huge"), Limit),
    row("**First load** of one entry of the huge package + first binding (paged: its page's index read too)", Time("first_load/huge"), "the same first load in the huge package not paged", Time("first_load/huge_flat"), Limit),
    // Full verification (`Package::verify_all`, what `slangpack verify` does).
    row("**Verify** examples package, raw layout (open + check everything)", Time("verify/examples_raw"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/examples_raw", "limits/xxh3/examples_raw", "limits/zstd/examples_raw"]), Limit),
    row("**Verify** large package, raw layout", Time("verify/large_raw"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/large_raw", "limits/xxh3/large_raw", "limits/zstd/large_raw"]), Limit),
    row("**Verify** huge package, raw layout", Time("verify/huge_raw"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/huge_raw", "limits/xxh3/huge_raw", "limits/zstd/huge_raw"]), Limit),
    row("**Verify** examples package (default layout)", Time("verify/examples"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/examples", "limits/xxh3/examples", "limits/zstd/examples"]), Limit),
    row("**Verify** large package (default layout)", Time("verify/large"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/large", "limits/xxh3/large", "limits/zstd/large"]), Limit),
    row("**Verify** huge package (default layout)", Time("verify/huge"), "limit: memcpy + xxh3 + zstd of the same bytes", TimeSum(&["limits/memcpy/huge", "limits/xxh3/huge", "limits/zstd/huge"]), Limit),
    // Hot path.
    row(HOT_BINDING, Time("hot/binding"), "live Slang reflection, walking the linked program's layout", Time("alt_hot/slang_binding"), Alternative),
    row(HOT_BINDING, Time("hot/binding"), "Slang JSON, walking the parsed `serde_json::Value`", Time("alt_hot/json_binding"), Alternative),
    row(HOT_BINDING, Time("hot/binding"), "spirq, searching its reflected variables", Time("alt_hot/spirq_binding"), Alternative),
    row(HOT_BINDING, Time("hot/binding"), "rspirv-reflect, searching its descriptor-set maps", Time("alt_hot/rspirv_binding"), Alternative),
    row(HOT_MEMBER, Time("hot/member"), "live Slang reflection, walking the linked program's layout", Time("alt_hot/slang_member"), Alternative),
    row(HOT_MEMBER, Time("hot/member"), "Slang JSON, walking the parsed `serde_json::Value`", Time("alt_hot/json_member"), Alternative),
    row(HOT_MEMBER, Time("hot/member"), "spirq, walking the buffer's struct type", Time("alt_hot/spirq_member"), Alternative),
    row(HOT_MEMBER, Time("hot/member"), "rspirv-reflect", Note("has no buffer member layouts"), Alternative),
    row("**Hot** full bind-view walk of `pbr` (sets, bindings, push constants, buffers, members, vertex inputs, names)", Time("hot/walk"), "", Note(""), Alone),
    row("**Hot** entry lookup by key + SPIR-V of both `pbr` entry points (zero-copy `&[u32]`)", Time("hot/spirv"), "limit: memcpy of the same SPIR-V words", Time("limits/memcpy_pbr_spirv"), Limit),
    row("**Hot** entry lookup by key in the large package (1024 entries)", Time("hot/large_entry"), "", Note(""), Alone),
    row("**Hot** binding through a handle (name resolved once)", Time("hot/binding_handle"), "spirq, searching its reflected variables by name", Time("alt_hot/spirq_binding"), Alternative),
    row("**Hot** buffer member through a handle (name resolved once)", Time("hot/member_handle"), "spirq, walking the buffer's struct type", Time("alt_hot/spirq_member"), Alternative),
    row("**Hot** binding by name among 500 (`t499`, the last declared)", Time("hot/binding_500"), "spirq, searching its reflected variables", Time("alt_hot/spirq_binding_500"), Alternative),
    // Sizes.
    row("**Size** `pbr` reflection + bind view as stored (default layout; with each dictionary the blob uses)", Bytes("pbr_reflection_zstd"), "Slang's JSON reflection of `pbr`", Bytes("pbr_json"), Size),
    row("**Size** `pbr` reflection + bind view as stored (default layout; with each dictionary the blob uses)", Bytes("pbr_reflection_zstd"), "Slang's JSON reflection of `pbr`, zstd (same level)", Bytes("pbr_json_zstd"), Size),
    row("**Size** what `pbr`'s reflection + bind view add to its default package (the package less the same with an empty blob)", Bytes("pbr_reflection_adds"), "Slang's JSON reflection of `pbr`, zstd (same level)", Bytes("pbr_json_zstd"), Size),
    row("**Size** `pbr` reflection + bind view, raw tables", Bytes("pbr_reflection_raw"), "Slang's JSON reflection of `pbr`", Bytes("pbr_json"), Size),
    row("**Size** examples reflection + bind views as stored (default layout; with each dictionary a blob uses)", Bytes("examples_reflection_zstd"), "Slang's JSON reflection of the 4 programs", Bytes("examples_json"), Size),
    row("**Size** examples reflection + bind views as stored (default layout; with each dictionary a blob uses)", Bytes("examples_reflection_zstd"), "Slang's JSON reflection of the 4 programs, each zstd (same level)", Bytes("examples_json_zstd"), Size),
    row("**Size** what the examples' reflection + bind views add to their default package (the package less the same with empty blobs)", Bytes("examples_reflection_adds"), "Slang's JSON reflection of the 4 programs, each zstd (same level)", Bytes("examples_json_zstd"), Size),
    row("**Size** examples reflection + bind views, raw tables", Bytes("examples_reflection_raw"), "Slang's JSON reflection of the 4 programs", Bytes("examples_json"), Size),
    row("**Size** examples package, default layout (4 entries)", Bytes("examples_package"), "its SPIR-V and Slang's JSON reflection as one zstd stream (level 19; nothing loadable on its own)", Bytes("examples_stream"), Size),
    row("**Size** examples package, default layout (4 entries)", Bytes("examples_package"), "the same package in the raw layout (`--spirv raw`)", Bytes("examples_package_raw"), Size),
    row("**Size** examples package, default layout (4 entries)", Bytes("examples_package"), "the SPIR-V alone", Bytes("examples_spirv"), Size),
    row("**Size** large package, default layout (1024 synthesized permutations)", Bytes("large_package"), "its SPIR-V and the 4 programs' Slang JSON reflection as one zstd stream", Bytes("large_stream"), Size),
    row("**Size** large package, default layout (1024 synthesized permutations)", Bytes("large_package"), "the same package in the raw layout (`--spirv raw`)", Bytes("large_package_raw"), Size),
    row("**Size** large package, default layout (1024 synthesized permutations)", Bytes("large_package"), "its SPIR-V alone as one zstd stream (level 19)", Bytes("large_spirv_stream"), Size),
    row("**Size** 100 permutations of a compute shader (axes A, B; texture, sampler, constant buffer, structured buffer; `-O 3`), default layout", Bytes("perm_ab_package"), "reference: its 100 modules as one zstd stream + one Slang JSON reflection, zstd (level 19)", Bytes("perm_ab_reference"), Size),
    row("**Size** 100 permutations of a compute shader (axes A, B; texture, sampler, constant buffer, structured buffer; `-O 3`), default layout", Bytes("perm_ab_package"), "slangmake 0.4.1 `--compress zstd` on the same shader (issue 48, measured by the people who plan the work)", Note("8010 B"), Size),
    row("**Size** 100 permutations of a compute shader (axes A, B; texture, sampler, constant buffer, structured buffer; `-O 3`), default layout", Bytes("perm_ab_package"), "the same package in the raw layout (`--spirv raw`)", Bytes("perm_ab_package_raw"), Size),
    row("**Size** 100 permutations of a compute shader (axes A, B; texture, sampler, constant buffer, structured buffer; `-O 3`), default layout", Bytes("perm_ab_package"), "the SPIR-V alone", Bytes("perm_ab_spirv"), Size),
    row("**Size** every `tests/shaders/*.slang` baked one package per file, summed, default layout", Bytes("test_shaders_package"), "each file's SPIR-V and Slang JSON reflection as one zstd stream, summed", Bytes("test_shaders_reference"), Size),
    row("**Size** every `tests/shaders/*.slang` baked one package per file, summed, default layout", Bytes("test_shaders_package"), "the same packages in the raw layout (`--spirv raw`)", Bytes("test_shaders_package_raw"), Size),
    row("**Size** 100 real permutations of a small box-blur shader (`RADIUS` 1..100), default layout", Bytes("perm100_package_spirvz"), "its SPIR-V alone as one zstd stream (level 19; no module loadable on its own)", Bytes("perm100_spirv_stream"), Size),
    row("**Size** 100 real permutations of a small box-blur shader (`RADIUS` 1..100), default layout", Bytes("perm100_package_spirvz"), "the same package in the raw layout (`--spirv raw`)", Bytes("perm100_package"), Size),
    row("**Size** huge package, default layout (10 000 entries)", Bytes("huge_package"), "the same package in the raw layout (`--spirv raw`)", Bytes("huge_package_raw"), Size),
    row("**Size** huge package, default layout (10 000 entries, paged: 157 pages of 64 entries)", Bytes("huge_package"), "the same package not paged (one index, as 2.9 wrote it)", Bytes("huge_package_flat"), Size),
    // Bake throughput (`benches/benches/bake.rs`).
    row(BAKE_NOOP, Time("bake/noop_rebake_100"), "target (issue 15)", Nanos(100e6), Limit),
    row("**Bake** package assembly alone, the same 100 entries (what a no-op rebake no longer does)", Time("bake/assemble_100"), "", Note(""), Alone),
    row("**Bake** 100 permutations cold, `-j1`", Time("bake/cold_100_j1"), "limit: Slang alone, the same 100 compilations serially (global session, then each permutation's session, load, compose, link, SPIR-V)", Time("bake/slang_only_100_j1"), Limit),
    row("**Bake** 100 permutations cold, `-j2`", Time("bake/cold_100_j2"), "the same bake into the raw layout (`--spirv raw`, the default before format 2.0)", Time("bake/cold_100_j2_raw"), Limit),
    row("**Bake** 100 permutations cold, `-j1`, in worker processes (the default)", Time("bake/cold_100_j1"), "the same bake in this process (`--in-process`)", Time("bake/cold_100_j1_in_process"), Limit),
    row("**Bake** 100 permutations cold, `-j2`, in worker processes (the default)", Time("bake/cold_100_j2"), "the same bake in this process (`--in-process`)", Time("bake/cold_100_j2_in_process"), Limit),
    row(BAKE_WARM_CACHE, Time("bake/warm_grpc_cache_fresh_checkout_100"), "target (issue 50): the no-op rebake x 2 plus the transfers (what the bake reads from BuildGrid: connecting, the result of the package's assembly and the package, read alone through the same calls)", TimeSum(&["bake/noop_rebake_100", "bake/noop_rebake_100", "bake/transfers_grpc_cache_fresh_checkout_100"]), Limit),
    row(BAKE_WARM_CACHE, Time("bake/warm_grpc_cache_fresh_checkout_100"), "the transfers alone", Time("bake/transfers_grpc_cache_fresh_checkout_100"), Limit),
    row(BAKE_WARM_CACHE, Time("bake/warm_grpc_cache_fresh_checkout_100"), "the cold bake, `-j2`", Time("bake/cold_100_j2"), Limit),
    row("**Bake** a fresh checkout of the 100 permutations from a warm cache directory", Time("bake/warm_dir_cache_fresh_checkout_100"), "the no-op rebake", Time("bake/noop_rebake_100"), Limit),
    row("**Bake** a fresh checkout of the 100 permutations from a warm cache directory", Time("bake/warm_dir_cache_fresh_checkout_100"), "target (issue 50): the no-op rebake x 2 plus the transfers (the same reads from the directory alone)", TimeSum(&["bake/noop_rebake_100", "bake/noop_rebake_100", "bake/transfers_dir_cache_fresh_checkout_100"]), Limit),
    row("**Bake** 100 permutations cold through a build farm on this machine (BuildGrid's execution service, two bots; every action runs)", Time("bake/farm_cold_100_2_bots"), "target (issue 51, within 1.2x): the same bake here, `-j2`", Time("bake/cold_100_j2"), Limit),
    row("**Bake** 100 permutations cold through a build farm on this machine (BuildGrid's execution service, two bots; every action runs)", Time("bake/farm_cold_100_2_bots"), "the same bake here, `-j2`, while the farm is up and idle", Time("bake/cold_100_j2_beside_idle_farm"), Limit),
    row("**Bake** the same farm bake with the farm as a read-only cache (`--cache-read-only`: every action runs, the bake writes no permutation's result and no package)", Time("bake/farm_cold_100_2_bots_read_only"), "the same bake here, `-j2`", Time("bake/cold_100_j2"), Limit),
    row("**Bake** the same farm bake with the farm as a read-only cache (`--cache-read-only`: every action runs, the bake writes no permutation's result and no package)", Time("bake/farm_cold_100_2_bots_read_only"), "the same bake here, `-j2`, while the farm is up and idle", Time("bake/cold_100_j2_beside_idle_farm"), Limit),
    // Watch mode (`benches/benches/watch.rs`).
    row(WATCH_EDIT, Time("watch/edit_to_package_blur"), "target (issue 27): Slang's compile of the changed entry (on a warm global session, as the kept worker has) + 100 ms", TimePlus("watch/slang_compile_blur_warm_session", 100e6), Limit),
    row(WATCH_EDIT, Time("watch/edit_to_package_blur"), "Slang's compile of the changed entry on a warm global session", Time("watch/slang_compile_blur_warm_session"), Limit),
    row(WATCH_EDIT, Time("watch/edit_to_package_blur"), "Slang alone with a new global session, then the compile", Time("watch/slang_only_blur"), Limit),
    row("**Watch** the same rebake without watching (`bake_to_file` with the package as `previous`, after the edit; a worker and a global session started for it)", Time("watch/rebake_blur"), "", Note(""), Alone),
];

/// Reads the median of every criterion benchmark under `criterion_dir`, keyed `group/name`
/// (parameterised ids give `group/name/parameter`).
pub fn read_medians(criterion_dir: &Path) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    collect(criterion_dir, criterion_dir, &mut out);
    out
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, f64>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for item in read.flatten() {
        let path = item.path();
        if !path.is_dir() {
            continue;
        }
        let estimates = path.join("new/estimates.json");
        if let Some(median) = std::fs::read_to_string(&estimates)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("median")?.get("point_estimate")?.as_f64())
        {
            if let Ok(rel) = path.strip_prefix(root) {
                let id = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(id, median);
            }
        }
        if path
            .file_name()
            .is_some_and(|n| n != "new" && n != "base" && n != "report")
        {
            collect(root, &path, out);
        }
    }
}

/// Reads `sizes.json` (`{"name": bytes}`); empty when missing.
pub fn read_sizes(path: &Path) -> BTreeMap<String, f64> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<BTreeMap<String, f64>>(&t).ok())
        .unwrap_or_default()
}

fn value(m: Measure, times: &BTreeMap<String, f64>, sizes: &BTreeMap<String, f64>) -> Option<f64> {
    match m {
        Time(id) => times.get(id).copied(),
        TimeSum(ids) => ids.iter().map(|id| times.get(*id)).sum(),
        Bytes(name) => sizes.get(name).copied(),
        Nanos(ns) => Some(ns),
        TimePlus(id, ns) => times.get(id).map(|t| t + ns),
        Note(_) => None,
    }
}

/// A duration in nanoseconds, to three significant figures.
pub fn format_time(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", sig3(v))
}

fn format_bytes(b: f64) -> String {
    if b < 1e4 {
        format!("{b:.0} B")
    } else if b < 1e7 {
        format!("{} KB", sig3(b / 1e3))
    } else {
        format!("{} MB", sig3(b / 1e6))
    }
}

fn sig3(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn format(m: Measure, v: Option<f64>) -> String {
    match (m, v) {
        (Note(text), _) => text.to_string(),
        (Bytes(_), Some(b)) => format_bytes(b),
        (_, Some(ns)) => format_time(ns),
        (_, None) => "not measured".to_string(),
    }
}

fn ratio(kind: Kind, ours: Option<f64>, other: Option<f64>) -> String {
    let (Some(ours), Some(other)) = (ours, other) else {
        return String::new();
    };
    if ours <= 0.0 || other <= 0.0 {
        return String::new();
    }
    match kind {
        Alternative if other >= ours => format!("slangpack {}× faster", sig3(other / ours)),
        Alternative => format!("slangpack {}× slower", sig3(ours / other)),
        Limit if ours / other > 2.0 => format!("**{}× the limit**", sig3(ours / other)),
        Limit => format!("{}× the limit", sig3(ours / other)),
        Size if other >= ours => format!("slangpack {}× smaller", sig3(other / ours)),
        Size => format!("slangpack {}× larger", sig3(ours / other)),
        Alone => String::new(),
    }
}

/// The markdown table of [`ROWS`].
pub fn render(times: &BTreeMap<String, f64>, sizes: &BTreeMap<String, f64>) -> String {
    let mut out = String::new();
    out.push_str("| Work | slangpack | Compared with | Its median / size | Ratio |\n");
    out.push_str("|---|---:|---|---:|---|\n");
    let mut previous = "";
    for r in ROWS {
        let ours = value(r.ours, times, sizes);
        let other = value(r.other, times, sizes);
        let (work, ours_text) = if r.work == previous {
            ("″".to_string(), "″".to_string())
        } else {
            (r.work.to_string(), format(r.ours, ours))
        };
        previous = r.work;
        let _ = writeln!(
            out,
            "| {work} | {ours_text} | {} | {} | {} |",
            r.against,
            if r.kind == Alone {
                String::new()
            } else {
                format(r.other, other)
            },
            ratio(r.kind, ours, other)
        );
    }
    out
}

/// The limit rows where slangpack is more than twice the limit, as `(work, against, ratio)`.
pub fn over_twice_the_limit(
    times: &BTreeMap<String, f64>,
    sizes: &BTreeMap<String, f64>,
) -> Vec<(&'static str, &'static str, f64)> {
    ROWS.iter()
        .filter(|r| r.kind == Limit)
        .filter_map(|r| {
            let ours = value(r.ours, times, sizes)?;
            let other = value(r.other, times, sizes)?;
            (ours / other > 2.0).then_some((r.work, r.against, ours / other))
        })
        .collect()
}

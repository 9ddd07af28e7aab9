//! Prints the table of `cargo xtask bench` from criterion's results and writes BENCHMARKS.md.
//!
//! Usage: `bench-table [--write PATH]` (run by `cargo xtask bench` after
//! `cargo bench -p slangpack-benches --bench compare`). Reads the medians from
//! `<target>/criterion/**/new/estimates.json` and the byte counts from
//! `<target>/slangpack-bench/sizes.json`.

use slangpack_benches::table::{over_twice_the_limit, read_medians, read_sizes, render};
use slangpack_benches::work_dir;
use std::process::ExitCode;

const COMMAND: &str = "cargo xtask bench";

const INTRO: &str = "# Benchmarks

slangpack against what an engine would use instead, measured in the same run so that the
ratios hold on a shared, noisy machine even where the absolute times drift. Every number is
criterion's median. Produced by `cargo xtask bench` (criterion, `benches/benches/compare.rs`
and `benches/benches/bake.rs`; the table comes from `bench-table`, which reads criterion's
`estimates.json` files).
";

const NOTES: &str = "## What is measured

* **Open**: `Package::from_bytes` (copies the bytes into an 8-aligned buffer) or
  `Package::open` (memory map), which check the header, the section directory, the container
  tables and the key index; then `package.load(key)`, which checksums, decompresses (one
  reused zstd context per thread) and validates that entry's SPIR-V and the bind-view part of
  its reflection blob (a 1.6 blob's first frame: header, directory, strings, bind view; the
  raw Slang tables wait for `entry.reflection()`); then `entry.bind().binding(name)`. **Open only** is the first step alone;
  **first load** the second and third on a package just opened (`iter_batched`: the open is
  not timed), against xxh3 + zstd decompression + a copy of that entry's own sections.
  **Verify** is `from_bytes` + `verify_all()` (every section, blob and entry; what
  `slangpack verify` does). The limits are the same bytes through `copy_from_slice`,
  `xxh3_64`, and zstd decompression of the same compressed sections with one reused context.
* **Extract** runs the release `slangpack extract` binary (a whole process, its start-up
  included) for the SPIR-V of `fragmentMain` of one `pbr` permutation; `extract` opens the
  package and loads that entry alone, so the package's entry count should barely show.
* **The other ways** do the same job for `pbr` (nested parameter blocks, a push-constant
  block, a vertex and a fragment stage): find the absolute Vulkan set and binding of
  `gScene.material.textures.albedo` and the offset of `gScene.material.params.roughness`.
  Before timing, each is checked to find what the bind view finds (set 1, binding 1; offset
  16). Live Slang gets a global session made once, outside the timing (an engine makes one at
  start-up); each iteration creates a session, loads the module from `examples/shaders`,
  composes it with its entry points and links. The JSON walk sums `binding` offsets along the
  path the way a consumer of `spReflection_ToJson` has to; the SPIR-V crates search the
  reflected variables by the dotted names Slang gives them.
* **Lookups by name** (`bind.binding(name)`, `bind.buffer_member(path)`) go through a table
  the reader builds from the baked name index when it loads the blob: every name spelled out
  in one arena, at most a quarter full, so a lookup hashes (xxh3), reads one entry and
  compares the name once.
* **Handles** (`bind.binding_handle(name)` once, then `bind.binding_at(handle)` per frame) read
  a binding with one bounds-checked index and no hashing. **500 bindings**: a generated compute
  program reading `t0` ... `t499` (baked by the real compiler), looking up `t499`.
* **spirv-reflect** (the crate, 0.2.3, a binding of SPIRV-Reflect) is not linked: it aborts the
  process with an assertion in `ParseInterfaceVariables` on Slang's SPIR-V 1.5 output
  (tried on seven shaders), so it has no number.
* **The large package** has 1024 entries: the 4 baked example programs under 256
  combinations of four axes (`QUALITY`, `SHADOWS`, `MSAA`, `LIGHTS`), keyed as the writer
  keys permutations. Baking 1024 real permutations takes minutes on two cores, so the entries
  are copies of the real baked entries; each copy's reflection blob carries its permutation
  number in a reserved header word and each SPIR-V module in the low half of its generator
  word, so nothing is deduplicated. **The huge package** has 10 000 entries the same way
  (2500 combinations), every SPIR-V module distinct and each program's reflection shared by
  its permutations (as permutations that change no layout share it).
* **Sizes**: our reflection is the raw tables *and* the bind view (the JSON has no bind view).
  `--compress-spirv` stores each SPIR-V module and each reflection blob as its own zstd frame
  (an entry stays loadable on its own) with a dictionary shared by the package, and the
  section directory and container tables as one more frame (the compressed index, SPEC.md
  4.4). The 100 permutations are `RADIUS` = 1 ..= 100 of a small box-blur compute shader,
  baked for real (skipped by `--test` runs).
* **Bake** (`benches/benches/bake.rs`): the same 100 permutations. **Cold** is `bake()` from
  nothing (planning, one Slang global session per worker, compiling, the reflection walk, the
  bind view and its checks against the SPIR-V, dependency hashes, assembly), against Slang
  alone doing the same 100 compilations serially through the writer's `compile_job` (a global
  session, then per permutation a session with its defines, load, compose, link, SPIR-V):
  the cold `-j1` bake over that is the writer's own share. The **no-op rebake** is
  `bake_to_file` with the package as `previous` and nothing changed: it hashes the inputs,
  takes every entry from the package, starts no Slang session, and leaves the file as it is
  (no assembly, no write). `--test` runs bake a tenth of the permutations, once.
* **Watch** (`benches/benches/watch.rs`): the writer's watch loop (`slangpack bake --watch`)
  over the 4 example programs in a thread; each iteration saves `blur.slang` with a constant of
  its body changed and waits for the loop to report the package holding the new code written:
  the file-system notification, the 20 ms debounce, the incremental rebake (planning, hashing
  the inputs, the compile worker kept warm since the last rebake compiling `blur`, assembly,
  the atomic replace). Against Slang alone on that entry: its `compile_job` on a warm global
  session (the target adds the issue's 100 ms allowance), and a new global session then the
  compile; **rebake** is the same rebake called
  directly, without watching (so with a worker and a global session started for it).
";

const WHY: &str = "Why:

* **Validation.** A load checks every table, every index and every string pool of the
  entry's reflection blob, once, so that afterwards no accessor can fail, panic or read out of
  bounds; memcpy, xxh3 and zstd do none of that. The rows with reflection stored raw isolate
  it.
* **Open** costs the directory: the header, the section directory, the container tables
  (entries, entry points, dependencies, strings), the key index and the table of further
  targets' code, a few words per entry; nothing per blob, module or code blob, and nothing
  allocated per entry. It still grows with the entry count: those bytes are xxh3-checked (the
  `open_xxh3` limit) and one pass of structural checks reads every section record and key
  record. A perf profile of the 10 000-entry open: xxh3 34%, the directory loop 24%, the
  layout check 13%, the key index 9%, the string pool 8%, the kernel under 3%. Not growing at
  all would take per-page checksums of the directory and tables, checked at first touch (a
  format change).
* **Memory mapping small files.** `Package::open` pays for open, mmap, munmap and page faults,
  more than copying a small file costs, so on the small packages the mapped open is slower
  than `from_bytes`; opening the 1-entry package is almost all system calls.
* **zstd** at the writer's level 19 decompresses at roughly 1 GB/s here and is the largest
  single part of a first load of a compressed entry: 80% of its instructions (callgrind, one
  large-package entry), the rest being validation and the bind view's name table. The limit
  decompresses the same frames in a hot loop into one reused buffer; a load decompresses into
  fresh memory that it keeps.
";

/// Package sizes with `--compress-spirv`: printed by `package-sizes`, not by criterion, so
/// kept here to survive the file's regeneration.
const COMPRESSED_SIZES: &str = "## Package size with `--compress-spirv`, and where the bytes go

Not timed, so not part of the criterion run: printed by
`cargo run --profile bench -p slangpack-benches --bin package-sizes`, which bakes with the
Slang pinned here (the 1024 permutations are synthesized as for the large package). Bytes; the
third column is every SPIR-V module of the package as one zstd stream (level 19), which no
module can be loaded from on its own; the last six columns split the `--compress-spirv`
package.

| package | SPIR-V alone | SPIR-V as one zstd stream | default | `--compress-spirv` | header | directory and container tables | dictionary | SPIR-V | reflection | other sections and padding |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| examples (4 programs, 6 entry points) | 17632 | 4848 | 31504 | 15808 | 72 | 686 | 14762 | 119 | 160 | 9 |
| 100 permutations of a small compute shader | 141584 | 1572 | 161984 | 9280 | 72 | 4621 | 1267 | 3271 | 41 | 8 |
| 1024 synthesized permutations (large package) | 4513792 | 9650 | 7961464 | 143632 | 72 | 46927 | 14757 | 37846 | 44024 | 6 |

The `--compress-spirv` assemblies of these took 194 ms, 34 ms and 1.08 s (printed on stderr).
Before the dictionary drew one of each kind of content from the whole package (a candidate of
whole modules and blobs, each added when the dictionary so far leaves it more than 64 bytes and
a 64th of it to store; with the sample no longer aliasing with entries of two entry points, and
every candidate judged on every module and blob), the same three were 16 192, 9 288 and
1 286 744 bytes, assembled in 276 ms, 101 ms and 10.96 s. In the large package the second
entry point of `blur` and of `pbr` never reached the sample (every 24th module), so no
dictionary held them and each of their 512 copies cost about 570 bytes; the dictionary chosen
held only some of the programs' blobs, so a blob cost about 890 bytes (now 43, two frames).

The C++ peer (slangmake 0.4.1) writes 10 109 bytes for 100 permutations of its small compute
shader (issue 15), compressing everything as one stream; ours stays loadable entry by entry:
one frame per SPIR-V module and reflection blob.

Before format 1.2 (one frame per module with the first module as dictionary, reflection
without it, each container table compressed on its own, the directory's 48 bytes per section
stored plain, every section 8-aligned), the same packages were 19.0 KB, 19 168 B and 3281 KB.
The 19 168 B of the 100 permutations were the directory (5136 B), the container tables
(5465 B, mostly hashes: each entry's key, options and entry-point hash, the key index repeating
the key hashes), SPIR-V frames (6852 B: the first module, `RADIUS` = 1, is the odd one out as a
dictionary), the dictionary (541 B), the reflection blob (777 B), the header and padding. Now a
dictionary of a middle module and blob brings the frames to 33 B each, the directory and
container tables are one frame (the compressed index, SPEC.md 4.4: zstd finds the repeated
hashes), compressed sections are not padded, and the permutations of a program share one
options hash (the key spells their defines).
";

/// Bake cost at 100, 1,000 and 10,000 permutations: printed by `bake-scale`, not by
/// criterion, so kept here to survive the file's regeneration.
const BAKE_SCALE: &str = "## Bake cost as the permutation count grows

Not part of the criterion run (a 10,000-permutation cold bake takes a minute): printed by
`cargo run --profile bench -p slangpack-benches --bin bake-scale` after
`cargo build --release -p slangpack-cli`. One small compute shader under 100, 1,000 and 10,000
permutations (two, three and four axes of ten values; every permutation's SPIR-V differs, the
layout does not), baked by the `slangpack` binary at `-j2` into a new file (cold), then again
with nothing changed (the no-op rebake, whole process). Peak memory is the kernel's high-water
mark of the `slangpack` process; the compile workers, which hold the Slang sessions, are
separate processes (the largest in parentheses).

| permutations | bake | cold | peak memory (largest worker) | no-op rebake | per permutation | peak memory | package |
|---:|---|---:|---:|---:|---:|---:|---:|
| 100 | default | 0.75 s | 11.6 MB (207.8 MB) | 4.9 ms | 48.9 µs | 10.2 MB | 160.3 KB |
| 100 | `--compress-spirv` | 0.83 s | 22.5 MB (207.8 MB) | 4.9 ms | 49.4 µs | 8.7 MB | 8.9 KB |
| 1000 | default | 5.34 s | 15.3 MB (207.8 MB) | 7.2 ms | 7.2 µs | 12.5 MB | 1.6 MB |
| 1000 | `--compress-spirv` | 5.35 s | 28.4 MB (207.6 MB) | 7.1 ms | 7.1 µs | 11.8 MB | 70.6 KB |
| 10000 | default | 55.02 s | 57.5 MB (207.6 MB) | 33.8 ms | 3.4 µs | 41.8 MB | 16.4 MB |
| 10000 | `--compress-spirv` | 51.70 s | 80.4 MB (207.6 MB) | 32.3 ms | 3.2 µs | 28.5 MB | 727.1 KB |

`--compress-spirv` costs no cold-bake time at these counts (the package dictionary is chosen by
a quick estimate over every module and blob; before, the assembly compressed every module twice
at level 19). A no-op rebake costs 3-7 µs per permutation from 1,000 on; at 100 the process
start dominates. At 10,000 permutations, a cold bake holds the plan (10 MB: every job's
options), every finished entry's SPIR-V (14 MB, kept by the package builder as it arrives) and
the builder's tables, and streams the package into its output file: 57.5 MB for a 16.4 MB
package, where it was 149 MB before entries with equal reflection blobs shared one, the builder
stopped keeping a second copy of every module, and the package stopped being laid out in memory
beside its sections. A no-op rebake judges every entry by its record alone, checks the previous
package's checksums once and takes it as it is mapped (its pages are the 16.4 MB above the plan):
it was 58.7 MB while it loaded every entry and copied the package. `--compress-spirv` adds 23 MB
at 10,000 permutations (zstd's dictionary trainer's copy of the modules and its tables, and the
level-19 contexts); it added 59 MB while each frame kept zstd's bound as its capacity and the
compressed index was compressed with match tables sized for its 2 MB (50 MB of context).
";

/// Package sizes per target set: measured with `slangpack bake`, not by criterion (see the
/// section's text), so kept here to survive the file's regeneration.
const TARGET_SIZES: &str = "## Package size per target set

Not timed, so not part of the criterion run: the bytes of `slangpack bake` outputs with the
Slang pinned here (packages are deterministic, so these only change with Slang or the
shaders). Every further target stores each entry point's code as zstd-compressed text beside
a bind view of its own; the SPIR-V stays uncompressed.

The four example programs (`examples/shaders`: `pbr`, `blur`, `bindless`, `layered`), each
with every target it bakes for (`pbr` and `blur`: GLSL, HLSL, Metal; `bindless`: GLSL;
`layered`: all five; what the others lack is in README.md), baked per program and merged with
`slangpack merge`:

| targets | package | over SPIR-V only |
| --- | ---: | ---: |
| `spirv` | 31 368 B | |
| `spirv,glsl` (all four) | 36 344 B | +4.9 KB (1.16×) |
| every target each program bakes for | 46 256 B | +14.5 KB (1.47×) |
| `spirv`, reflection stored raw (`--no-compress`) | 89 264 B | |

The three example programs that bake for all five targets (`layered`,
`examples/build-rs/shaders/tint.slang`, `examples/wgpu/shaders/scale.slang`; 3 entry points;
`slangpack bake FILES --target T`):

| targets | package | over SPIR-V only |
| --- | ---: | ---: |
| `spirv` | 13 208 B | |
| `spirv,wgsl` | 15 328 B | +2.1 KB |
| `spirv,glsl` | 15 120 B | +1.9 KB |
| `spirv,hlsl` | 15 496 B | +2.2 KB |
| `spirv,metal` | 15 504 B | +2.2 KB |
| all five | 21 336 B | +7.9 KB (1.62×) |
| all five, `--no-compress` | 59 064 B | |
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let write = match args.as_slice() {
        [] => None,
        [flag, path] if flag == "--write" => Some(path.clone()),
        _ => {
            eprintln!("usage: bench-table [--write PATH]");
            return ExitCode::from(2);
        }
    };
    let work = work_dir();
    let Some(target) = work.parent() else {
        eprintln!("bench-table: no target directory");
        return ExitCode::FAILURE;
    };
    let times = read_medians(&target.join("criterion"));
    let sizes = read_sizes(&work.join("sizes.json"));
    if times.is_empty() {
        eprintln!(
            "bench-table: no criterion results under {}; run `{COMMAND}` first",
            target.join("criterion").display()
        );
        return ExitCode::FAILURE;
    }
    let table = render(&times, &sizes);
    println!("{table}");
    let over = over_twice_the_limit(&times, &sizes);
    if !over.is_empty() {
        println!("More than twice a limit:");
        for (work, against, r) in &over {
            println!("  {r:.1}×  {work} — {against}");
        }
    }
    if let Some(path) = write {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|s| s.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let mut over_text = String::from("## Where slangpack is more than twice a limit\n\n");
        if over.is_empty() {
            over_text.push_str("Nowhere in this run.\n");
        }
        for (work, against, r) in &over {
            over_text.push_str(&format!("* {r:.1}×: {work} — {against}\n"));
        }
        let text = format!(
            "{INTRO}\nReproduce with `{COMMAND}` (machine of the last run: {cpu}, {cores} cores).\n\n{table}\n{over_text}\n{WHY}\n{NOTES}\n{COMPRESSED_SIZES}\n{BAKE_SCALE}\n{TARGET_SIZES}"
        );
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("bench-table: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
        println!("wrote {path}");
    }
    ExitCode::SUCCESS
}

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

/// How the table's run was made, and what is not from it.
const RUN: &str = "The table is one full `cargo xtask bench` run on the final code of its session
(2026-12-07 13:47-13:57 UTC, nothing else running on this machine; an AMD EPYC, 2 cores),
format 3.0: a package of more than 4,096 entries is paged (SPEC.md 4.5), its open reading a
page table and each page of 64 entries read at the first touch of one of them. The huge
package (10,000 entries) is therefore paged; new rows give the same package not paged beside
it (its open, its first load, its size). What paging changed, in this run: the open of the huge
package 1.46 ms -> 18.5 µs (1.30x the `pbr` package's open, against 103x not paged), its open to
the first binding from bytes 1.43 ms (the last session's run) -> 60.7 µs, the first load of one
of its entries 78.6 µs paged and not paged alike (its page's index read, about 64 entries'
records, against the first touches of the whole index's tables), its size 108 KB -> 213 KB
(1.97x: each page's index about 680 bytes, zstd finding the keys' and records' repeats within a
page only), and its full check 75.6 ms (the last session's run) -> 90.7 ms (every page checks the
sections it lists, the dictionary among them). No other package is paged; their rows moved
with this machine's noise, which was large in this session: a full run ten minutes earlier on
the same code (13:34-13:45 UTC) had `pbr`'s open to the first binding from bytes at 36.4 µs
(30.1 here; 22.0 in the last session's run), the binding by name at 6.78 ns against spirq's
13.8 (10.9 against 10.4 here), and the huge package's open at 28.2 µs against `pbr`'s 15.8
(1.78x). The lookup's code did not change (see \"Binding by name against spirq's scan\").
The sections after the table that are not criterion's come from their own binaries, named in
each, run on the same code right after it (13:58-14:06 UTC): the package sizes, and the bake
cost as the permutation count grows (local bakes; its farm table is from format 2.3).
";

/// The floors behind the targets a default package does not reach (`floors`), in words.
const FLOORS: &str = "## Floors: what any layout of the same facts spends

Not timed by criterion: printed by `cargo run --profile bench -p slangpack-benches --bin floors
[-- PACKAGE]` on this session's final code (2026-12-07 14:04-14:06 UTC, same machine, one
process, best of nine loops of 0.25 s, from bytes).

`pbr`'s open to its first binding against ten times rspirv-reflect's speed:

| what | µs |
|---|---:|
| rspirv-reflect: both modules reflected, then the lookup | 59.86 |
| the 10x budget (rspirv-reflect / 10) | 5.99 |
| raw layout (`--spirv raw`): open -> load -> first binding | 5.54 |
| default layout: open -> load -> first binding | 21.92 |
| default layout: open -> bind view alone (`load_bind`) -> first binding | 16.38 |
| zstd 19, no dictionary, of the 2 modules as they are (1,759 words, 2,403 B stored): decompression | 9.99 |
| the modules packed by the SPIR-V grammar (3,204 B, 1,949 B stored): zstd decompression | 6.95 |
| their unpacking to words | 3.96 |

The raw layout's whole load leaves 0.45 µs of the budget for decoding the modules; the cheapest
zstd decoding of them takes 9.99 µs. A layout that stores SPIR-V zstd-compressed and decodes it
at the load stays under 10x here whatever else it does.

Stored reflection per example program, level 19 without a dictionary, against Slang's JSON +
zstd:

| program | bind view, raw | as the default stores it | packed column by column | raw tables, packed | Slang JSON |
|---|---:|---:|---:|---:|---:|
| `bindless` | 2160 B | 773 B | 698 B | 714 B | 629 B |
| `blur` | 2624 B | 895 B | 792 B | 941 B | 862 B |
| `layered/layered` | 2560 B | 912 B | 818 B | 895 B | 1028 B |
| `pbr` | 5248 B | 1661 B | 1386 B | 2173 B | 2368 B |

The raw tables alone are what the JSON is (4,723 against 4,887 bytes over the four); the bind
view, facts the JSON does not hold (absolute sets and bindings, stage masks, flattened member
paths), is the excess: packed by columns it is still 3,694 bytes over the four, where at most
164 would meet the JSON.

The index a writer holds: the 10,000-permutation package of the bake-scale shader (167,312 bytes,
paged) has an index of 2,257,640 bytes unpacked (the directory 741,360, the container tables
1,516,280), 6.7x twice the package: a writer that packs its index column by column holds it
whole, before its plan's keys and defines (3.4 MB at 10,000 permutations).
";

/// The team cache rows in words: kept here to survive the file's regeneration.
const TEAM_CACHE: &str = "## The team cache

The **Bake** rows of a fresh checkout from a warm cache: the 100 permutations at another path,
no previous package, every entry taken from the cache and nothing compiled, beside the no-op
rebake (the previous package's bytes taken as they are) and the transfers alone (what that bake
reads from the store through the store's own calls: connecting, the result of the package's
assembly, the package). Issue 50's target is the no-op rebake twice plus the transfers.

Since the package itself is cached (docs/cli.md, \"The package itself\"), such a bake asks for
one action result (the assembly of its permutations, keyed by what it knows before compiling)
and reads one blob, verifies it whole and takes it as the previous package; before, it asked for
every permutation's result and entry and assembled the package: 45.2 ms from a directory and
167 ms from BuildGrid (about 110 calls), against a no-op rebake of 130 µs then. What the
BuildGrid bake does beyond the transfers is, timed inside one bake on this machine (with other
work running): the plan (100-145 µs) and the per-entry checks of options and dependency hashes
(about 50 µs), which the no-op does too; `verify_all` of the 100-entry package (110-150 µs:
every module and blob decompressed, since a cache is not trusted); the permutations list and
the assembly's description (about 70 µs). Three changes since the previous run: each job is
checked against the cached package once (the cache's read-ahead had checked every job a second
time); a server named on the command line is dialed before the plan and its Capabilities
request written out then, so that BuildGrid, which answers one call at a time in about 0.7 ms
here, answers it while the bake plans (the bake minus its transfers went from 0.40-0.46 ms to
0.25-0.32 ms in three alternating runs); and the connection is closed on a thread of its own
once the bake has its package (the client runtime's teardown, about 110 µs, which the transfers
row still pays at the end of its own use of the store). Connecting on a thread while the bake
plans was tried in the previous session and measured slower on two cores; a verification on
two threads was slower still (a new thread's decompression context).

The **farm** rows (issue 51): each sample bakes a source that differs by a comment, so every
action misses the action cache and runs on one of two bots on this same machine. An action
compiles a batch of permutations (by default the permutations divided by `-j`: two actions of
50 here) in one process with one Slang global session (about 0.25 s), as a local worker does;
the farm's job writes each entry in the form the cache stores it, and the bake checks those
bytes as it checks a cache hit (decompressed, verified, key, options hash and dependencies)
and stores them in the farm's action cache as they came. The farm's own processes share the
two cores: BuildGrid (Python), PostgreSQL for its queue, and the Python test bots
(`tests/farm`). Three comparisons say where the 1.40x goes (this run: 1.19 s against 846 ms;
format 2.4's: 1.02 s against 737 ms, 1.38x). The same local bake while the farm is up and idle
takes 927 ms, not 846 (821 and 737 before): BuildGrid's assigner polls
PostgreSQL every 20-40 ms (its default is 1-2 s, which every action would wait), about 7% of a
core. The farm as a read-only cache (`--cache-read-only`: every action still runs, the bake
writes nothing back) takes 1.07 s (952 ms before): the 100 permutations' results written back
(one `UpdateActionResult` each, about 1.2 ms of BuildGrid's CPU apiece, plus the package's own
entry) cost the farm bake about 0.07-0.13 s on these cores, most of it while the second action
still runs. What is left, 1.16x the local bake beside the idle farm (1.16x before), is the
farm's latency and CPU. The breakdown that follows was measured in the session before, on
format 2.3: the time line of one farm bake (timestamps
from the bake and the bots' logs, `SLANGPACK_BOT_TIMES=1`) has 15-20 ms before the actions go
out (plan, one `FindMissingBlobs` for every permutation's action, `job.json`), 44-54 ms until
a bot holds a lease (BuildGrid's queue and assigner), 7-12 ms to stage the input root, the
jobs 0.82-0.90 s each (0.08 s apart: the cores are shared with BuildGrid and with the first
action's results being read, checked and written back), 6 ms to upload the outputs, 15 ms
until `Execute` answers, 12 ms to read and check 50 entries, then the assembly (48 ms, 36 ms
locally). By process, a farm bake takes the jobs 1.51-1.65 s of CPU (the local workers
1.46-1.59 s), BuildGrid 0.26-0.33 s (0.18-0.19 s read-only; 0.06-0.07 s of it the idle
polling), PostgreSQL 0.03-0.06 s, the bots 0.01-0.04 s and the bake itself 0.05-0.06 s. A
client with no cost at all would still pay the lease, the staging and the answer (about
0.07 s) and the farm's own CPU (BuildGrid, PostgreSQL and the bots, 0.25-0.28 s read-only:
about 0.13 s of two cores), 1.0 s or 1.25x that session's local bake: 1.2x is out of reach while
the farm shares its cores; on a farm with its own workers these costs leave the
bake's machine. Before batches, every permutation was its own action (77.5 s); two actions of
50 took 1.63 s, then 1.31 s once the entries came in the cache's form.

At 10,000 permutations (`cargo run --profile bench -p slangpack-benches --bin bake-scale --
--farm 10000`, after `cargo build --release -p slangpack-cli`; 40 actions of 250 on the same
two bots), on this session's final code with the machine otherwise idle (17:08-17:15 UTC): the
local cold bake 54.95 s; through the farm 79.9 s for the first bake on a fresh farm (the
toolchain sent), 82.8 s for the next (1.51x) and 74.8 s with the farm as a read-only cache
(1.36x): the 10,000 results written back cost 8 s here, and each round of two actions of
250 permutations about 1 s more than the local bake's share of the same compiles: a Slang
global session per action (about 0.25 s; the local bake starts two in all) and about 0.75 s of
the farm's own work per action (the lease, 250 output files put in BuildGrid's disk storage by
the bot, read back and checked by the bake). The bake's process peaked at 85-87 MB through the farm
against 56.9 MB locally then (49.2 MB locally in format 2.4, below; the Slang sessions are the
bots' jobs'); it reached 113-148 MB while
the toolchain's files were read whole to be hashed and sent (a 29 MB library read whole raised
the allocator's threshold for returning freed memory): they are now hashed and sent a block at
a time.
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
* **Start** runs the release `slangpack --version` (a whole process: spawned, waited for);
  `slangpack` links no Slang. The same start of `slangpack-bake`, the binary beside it that
  links Slang and that `slangpack bake` runs, is what every subcommand paid for its start
  while one binary linked the compiler.
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
* **Layouts**: the default layout stores each SPIR-V module and each reflection blob (bind
  view included) as its own zstd frames (an entry stays loadable on its own) with a dictionary
  shared by the package (the raw tables, packed, with a second one, which no load needs), and
  the section directory and container tables as one more frame (the compressed index, SPEC.md
  4.4); a load decompresses the entry's modules and bind view once. The raw
  layout (`--spirv raw`) stores SPIR-V as it is and each bind view as raw zstd blocks viewed in
  place, only the raw tables compressed. The `pbr`, large and huge packages are assembled from
  the baked entries in each layout.
* **Sizes**: our reflection is the raw tables *and* the bind view (the JSON has no bind view).
  The one-stream references compress every module and Slang's JSON reflection of every
  program at once (zstd level 19), as a tool that decompresses its whole payload at open
  does: no entry of them loads on its own. The A/B permutations are the issue-48 shader (100
  permutations, `-O 3`); the `RADIUS` permutations a small box-blur compute shader; the test
  shaders every `tests/shaders/*.slang` that bakes with default options, one package each;
  all baked for real (skipped by `--test` runs).
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
  bounds; memcpy, xxh3 and zstd do none of that. The rows of the raw layout show it with
  less decompression.
* **Open** costs the directory: the header, the section directory, the container tables
  (entries, entry points, dependencies, strings), the key index and the table of further
  targets' code, a few words per entry; nothing per blob, module or code blob, and nothing
  allocated per entry. It still grows with the entry count: in the default layout the
  directory and container tables are one zstd frame (the compressed index, SPEC.md 4.4), in
  format 2.2 packed column by column, that open decompresses and unpacks whole and then checks
  record by record. The 10 000-entry package's index is 19,217 bytes stored in format 2.3,
  whose small sections share checksum runs (82,722 in 2.2, 166,637 before packing); in 2.2 it
  was 1,142,102 bytes packed and 2,585,730 unpacked, and of its 1.64 ms open from bytes (a
  loop of 600) decompressing took 0.44 ms (1.38 ms for the unpacked index of format 2.1) and
  unpacking about 0.5 ms (`perf`: `unpack_table` 30% of the samples), the checks and the copy
  the rest; the open-only row went from 1.75 ms in 2.2's run to 1.60 ms in this one. Not growing at all would take an index that open does not
  decompress whole: a small top level naming pages of entries, each page checksummed,
  decompressed and checked at its first touch (a format change).
* **Memory mapping small files.** `Package::open` pays for open, mmap, munmap and page faults,
  more than copying a small file costs, so on the small packages the mapped open is slower
  than `from_bytes`; opening the 1-entry package is almost all system calls.
* **zstd** at the writer's level 19 decompresses at roughly 1 GB/s here and is the largest
  single part of a first load of a compressed entry: 80% of its instructions (callgrind, one
  large-package entry), the rest being validation and the bind view's name table. The limit
  decompresses the same frames in a hot loop into one reused buffer; a load decompresses into
  fresh memory that it keeps. Most of a package's first load is its dictionary, decompressed
  once: the `pbr` package's (13,044 bytes from 3,607) takes 18 µs of its 24 µs open -> first
  binding, the examples' and the large package's (31,904 bytes) 36 µs, whatever the level it
  was stored at (1 to 19 alike: SPIR-V is many short matches); preparing it for zstd then
  takes 0.2-0.9 µs and the bind view's own frame 0.13 µs.
";

/// Package sizes with `--compress-spirv`: printed by `package-sizes`, not by criterion, so
/// kept here to survive the file's regeneration.
const COMPRESSED_SIZES: &str = "## Package size in the default layout and with `--spirv raw`, and where the bytes go

Not timed, so not part of the criterion run: printed by
`cargo run --profile bench -p slangpack-benches --bin package-sizes`, which bakes with the
Slang pinned here (the 1024 permutations are synthesized as for the large package). Bytes; the
third column is every SPIR-V module of the package as one zstd stream (level 19), which no
module can be loaded from on its own; the last six columns split the default package.

| package | SPIR-V alone | SPIR-V as one zstd stream | `--spirv raw` | default | header | directory and container tables | dictionary | raw tables' dictionary | SPIR-V | reflection | other sections and padding |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| examples (4 programs, 6 entry points) | 17632 | 4848 | 39120 | 11792 | 72 | 509 | 6693 | 4369 | 15 | 128 | 6 |
| 100 permutations of a small compute shader | 141584 | 1572 | 161264 | 2832 | 72 | 713 | 771 | 0 | 978 | 287 | 11 |
| 100 permutations of the issue-48 compute shader (axes A, B; `-O 3`) | 198920 | 2815 | 159944 | 4168 | 72 | 697 | 2244 | 0 | 479 | 669 | 7 |
| 1024 synthesized permutations (large package) | 4513792 | 9650 | 9919496 | 29960 | 72 | 3617 | 6717 | 4369 | 7432 | 7741 | 12 |

Format 2.9 (2026-12-07, 11:17 UTC) lets each module of a module run give its packed length in
its directory record (SPEC.md 5.6.2), and the writer gives them unless they cost more than 1%
of the package. Where consecutive modules have the same length they cost nothing measurable
after the index's packing and compression: the large package 29,968 -> 29,960, the huge one
108,032 -> 107,944; elsewhere a few bytes (the examples 11,776 -> 11,792, the issue-48 shader
4,144 -> 4,168, the 100 small permutations 2,832 as before). Where they vary they cost about
what the raw sizes beside them cost: 9,088 bytes on 71,160 for the 10,000 permutations of the
bake-scale shader (below), which the writer therefore leaves out. What they buy: a load finds
its module in the run's frame without stepping over the modules before it by their words (the
large package's first load had spent most of its time doing that: 77.0 -> 51.0 µs in the
table). The sizes move by a few bytes with the build as well as the code: two builds of one
commit (`cargo build --release -p slangpack-benches` alone, and together with `-p
slangpack-cli`) wrote the large package at 29,968 and 29,960 bytes, each every time (not
chased: dependency features unify differently in the two builds).

Format 2.8 (2026-12-07, 07:33 UTC) stores the bind views of consecutive blobs that share raw
tables (2.5, `ZstdSharedTables`) in one zstd frame, a bind-view run (SPEC.md 6.1.1): every blob
of the run but the last is a directory record without stored bytes, and the last one's frame
holds all their bind views, back to back, up to 16 KiB (each view's header says how long it
is). The large package's 1,024 synthesized permutations differ in one header word of their
bind views: alone, each of the 1,020 that share raw tables spent a frame of about 19 bytes on a
few matches into the dictionary; in runs of seven, 7,741 bytes in all (reflection column
19,512 -> 7,741; the package 41,672 -> 29,968, 2.31x its one-stream reference, which the 3x
target of issue 48 asks). Measured before the format change (the same bind views in runs of K,
one level-19 frame each, with the package dictionary): 18,424 bytes at K = 1, 8,378 at 4, 6,075
at 8, 4,347 at 16, 3,647 at 32; the bound of 16 KiB keeps what a load decompresses for its bind
view to seven of these views. The other packages here hold no blobs that share raw
tables and are stored as in 2.7 (their index columns move by a few bytes between bakes).

Format 2.7 (2026-12-07, 04:28 UTC) stores consecutive packed modules in one zstd frame, a module
run (SPEC.md 5.6.2): every module of the run but the last is a directory record without stored
bytes, and the last one's frame holds the packed bytes of all of them, back to back, up to
64 KiB of packed bytes (the sum of `raw size / 4 × 6 + 20`). Each module of a package of
permutations had its own frame, about 18.6 bytes in the large package (frame and block headers
and the sequences of a few matches into the dictionary), which no dictionary shrinks; in one
frame, each module after the first is a few matches into the one before it. The SPIR-V column:
examples 89 -> 15 bytes (their six modules are one run), the 100 small permutations 2,764 ->
978, the issue-48 shader's 1,607 -> 479, the large package 28,634 -> 7,432; the packages
11,856 -> 11,776, 4,592 -> 2,832 (38%), 5,320 -> 4,144 (22%), 63,432 -> 41,672 (34%), the huge
one 314,312 -> 108,032 (66%; its 15,000 modules of 2.5 KB raw each, near-copies, were 283 KB of
frames), `pbr` 5,488 -> 5,472. What it costs: a load decompresses its module's run, not its
module alone, and unpacks the modules before its own only to find where its own starts (a
thread keeps the run for the next load from it, so an entry's second module, or a walk of the
package, decompresses each run once): the first load of one entry of the large package went
from 52.6 to 78.6 µs in the table above. The bound of 64 KiB follows a measurement made before
the format change (the large package's packed modules in runs of K, one frame of level 19 each,
with its dictionary: 28,634 bytes at K = 1, 19,177 at 2, 13,427 at 4, 9,692 at 8, 7,003 at 16,
5,361 at 32; the issue-48 shader's 1,607, 1,158, 918, 752, 556, 457): past about 16 a run saves
little and costs each load more.

Format 2.6 (2026-12-07, 01:30 UTC) packs each module of the default layout before zstd (SPEC.md
5.6.1): an instruction's opcode and word count as LEB128, its result id as the difference from
one past the previous result id (mostly 0), an id operand as its difference from that result id
(ids mostly name recent results), the target of a debug name, decoration or execution mode as
its difference from the same opcode's previous target (they come sorted), literals as LEB128,
strings and constants' bits as words; which operand is which comes from the SPIR-V core
grammar (a table generated once from `rspirv`'s copy and checked against it by a test). The
dictionary is chosen over the packed modules. The examples' six modules as one zstd stream:
4,642 bytes as they are, 3,765 packed; each alone, 6,247 and 5,002. The packages: examples
12,728 -> 11,856 bytes (6.9%), the 100 small permutations 4,704 -> 4,592 (2.4%), the issue-48
shader's 5,872 -> 5,320 (9.4%), the large package 63,912 -> 63,432 (0.8%: its modules are
near-copies of the dictionary already), the huge one 324,016 -> 314,312 (3.0%), `pbr` 5,816 ->
5,488 (5.6%). A first version that stored each packed frame with its content size (so a reader
knew how many packed bytes to allocate) lost 1.5 KB of the large package's gain to the field,
one byte more a module than the window descriptor it replaces; the reader now decompresses into
a per-thread buffer sized by the most a module of its raw size packs into (6 bytes a word).
Unpacking costs the first load of `pbr`'s two modules (1,759 words) about 2 µs (table above:
24.4 -> 26.5 µs, in a run slower by several percent throughout).

Format 2.5 (2026-12-06, 22:48 UTC) stores no name index: a bind view's name index is one slot
that says its names are its records' own (a binding's path and sampler path, a buffer's name,
`buffer.member`; SPEC.md 6.7), and the reader builds the table it looks names up in from them at
the load, as it built one from the baked slots. Those held 8 bytes of xxh3 a name, which no
dictionary or packing shrinks: examples 13,464 -> 12,728 bytes (5.5%), `pbr` 6,144 -> 5,816
(5.3%), the issue-48 shader's 100 permutations 6,016 -> 5,872 (2.4%), `--spirv raw` of the
examples 40,800 -> 39,120 (4.1%). 2.5 also stores the raw tables of a split blob once where
several blobs hold the same ones (`ZstdSharedTables`, SPEC.md 4.2): the permutations of an
uber-shader whose switches choose which declared resources are used differ in their bind views
(which bindings each uses) and not in Slang's raw tables (`tests/shaders/uber_permutations.slang`:
4 permutations, 3,064 -> 3,032 bytes, 3 of 4 blobs sharing). The large package's 1024 blobs
differ only in a header word (how it is synthesized), so all share: 81,048 -> 63,912 bytes
(21.1%), reflection 35,832 -> 19,512 (about 19 bytes a blob, its bind view's frame). The huge
package's blobs were whole copies already (one blob a program): 324,712 -> 324,016.

Format 2.4 (2026-12-06) stores every zstd frame of a section bare, without the 4-byte magic
number that opens a zstd frame (SPEC.md 4.2; the reader decodes them as zstd's magicless
format and finds a split blob's second frame from the first one's block headers), and a frame
that is a section's only one without its content size (the section's raw size says it; the
window descriptor that replaces the field is 1 byte, the field 2 for most modules). A package
of many small permutations is mostly frames of a few dozen bytes, so: examples 13,536 -> 13,464
bytes (0.5%), the 100 small permutations 5,248 -> 4,728 (9.9%), the issue-48 shader's 6,384 ->
6,016 (5.8%), the large package 97,168 -> 81,048 (16.6%), the huge one 400,488 -> 324,712
(18.9%; its 15,000 modules 24.5 -> 19.6 bytes each), `pbr` 6,168 -> 6,144. What a module of
the large package still stores, about 18.6 bytes: the descriptor and window bytes, a 3-byte
block header, and its difference from the dictionary (a compressed block's own headers and
sequences). The bind views' bytes (examples, as one stream with zeroed tables, scratch
measurement): string references 743 of 3,863, strings 1,104, the name index 647 (its 64-bit
hashes do not compress; a reader that hashed the names at load, as it does to check them, would
not need it), buffer members 268, descriptor bindings 186.

Format 2.2 packs the compressed index (SPEC.md 4.4): the directory and the container tables
column by column (zigzag LEB128 differences, as the raw tables are packed) before zstd, where
that stores it smaller. Only the directory-and-container-tables column changed: 538, 1823, 1685
and 26,477 bytes in 2.1, so the packages shrank by 8 bytes, 10.5%, 8.8% and 9.7% (the huge
package from 548 KB to 464 KB, 15%). What was then left of the large package's index (14,881
bytes for 1024 entries and about 2,570 sections) was mostly the 32-bit checksum of each
compressed section (about 10 KB that no packing shrinks). Format 2.3 lets consecutive small
sections share one checksum, a checksum run's (SPEC.md 4.3 rule 3; the writer makes runs of at
most 1 KiB, each hashed at the first touch of one of its sections): the index column went from
531, 1152, 1037 and 14,881 bytes in 2.2 to 494, 693, 714 and 4,052, so the packages shrank by
0.3%, 8.0%, 4.8% and 10.0% (the huge package from 463,992 to 400,488 bytes, 13.7%; its index
from 82,722 to 19,217).

What would take the packages within reach of their one-stream references (issue 48, targets
1 and 3): `cargo run --profile bench -p slangpack-benches --bin page-estimate` stores the same
entries as one frame per page of K entries (modules, bind views and packed raw tables, each
stored once by content and 8-aligned, against the two dictionaries as one; no frame magic,
content size or dictionary id) and writes the compressed index such a layout needs: a record
per page and per member (no checksum on a member: the page's covers it) beside today's
container tables. Bytes of the whole package, that index compressed as today's is / with its
tables packed column by column first (zigzag LEB128 differences, as SPEC.md 6.1 packs raw
tables):

| package | default layout | K = 1 | K = 2 | K = 4 | K = 8 | K = 16 | one-stream reference |
|---|---:|---:|---:|---:|---:|---:|---:|
| large (1024 entries) | 108,000 | 73,638 / 60,502 | 59,671 / 46,689 | 46,661 / **36,468 (2.80x)** | 44,516 / 30,999 | 41,112 / 27,704 | 13.0 KB |
| issue-48 shader (100 permutations) | 6,704 | 7,396 / 6,621 | 6,600 / 5,931 | 6,270 / 5,569 | 6,056 / 5,312 | 5,938 / 5,121 | 3,503 (proxy) |
| examples (4 entries) | 13,576 | 13,752 / 13,761 | 13,722 / 13,723 | 13,691 / 13,698 | | | 8,001 |

The default layout's column is format 2.2's, whose index is packed (2.3's checksum runs make
it 97,168, 6,384 and 13,536 bytes, above); the page layouts' rows are the same estimate as
before, whose members already held no checksum. Pages alone leave the large package at 3.59x with K = 4 (its
index, mostly the container tables and a record per member, is 14,821 bytes of it); packed,
that index is 4,628 bytes. One page of 4 large entries (28 KB raw) decompresses in 0.7 µs once
the dictionary is loaded.
What no framing goes below, from the same binary: every entry's modules, bind views and packed
raw tables as one zstd stream with no dictionary (nothing loadable on its own) is 13,004 bytes
for the examples (modules 4,848, bind views 3,870, raw tables 4,374, each alone), 4,459 for the
issue-48 shader (2,815, 877, 673) and 21,772 for the large package (9,650, 7,384, 4,942). So
the examples stay above 1.5x their reference (12,001 bytes) and the issue-48 shader above its
proxy (3,503) in any layout of this content: the bind view and the raw tables, each about the
size of Slang's JSON compressed, are what sets them apart, not how they are framed.
zstd level 22 instead of 19 changed no package by more than 1.5% in format 2.1 (examples
13,576, the 100 small permutations 6,472, the issue-48 shader's 7,368, large 119,592) and
slowed the assemblies (large 1.09 to 1.40 s).

Format 2.1 (2026-12-06; the default-layout assemblies took 112 ms, 44 ms, 65 ms and 1.04 s,
against 264 ms, 48 ms, 71 ms and 1.57 s in 2.0: the dictionary estimates no longer compress
whole blobs) keeps two dictionaries: one of what a load decompresses (modules, bind views) and
one of the split blobs' raw tables, which only `Entry::reflection` reads, stored packed
(columns of zigzag LEB128 differences, SPEC.md 6.1). In 2.0 the one dictionary held whole
blobs: the 1-entry `pbr` package's held its middle module and whole blob (about 41 KB), and a
first load decompressed all of it; in 2.1 its dictionary holds the middle module and the bind
view (13,044 bytes) and the raw tables are not in one at all (one blob: no dictionary pays for
itself). The packages shrank with it: examples 15,648 to 13,584 bytes, the issue-48 shader's
7,736 to 7,352, the large package 123,320 to 119,600, `pbr` 7,232 to 6,176; the huge package
grew 1.2% (541 to 548 KB), its dictionary of modules no longer sharing room with blobs. Packing
alone took the `pbr` blob's raw tables from 3,209 to 2,173 bytes at level 19.

Format 2.0 (2026-12-05; the default-layout assemblies took 264 ms, 48 ms, 71 ms and 1.57 s)
stores no hash a reader can derive: no key index, no key hashes, no entry-point hashes (the
reader hashes each module's words when it loads it), and a 32-bit checksum on sections stored
as zstd frames. Only the directory and container tables changed (the SPIR-V, reflection and
dictionary columns are 1.8's to the byte). In format 1.8 the examples, the small compute
shader's 100 permutations and the large package were, default layout, 15 808, 9 280 and
143 632 bytes (directory and container tables 686, 4 621 and 46 927), the issue-48 shader's
10 104. That shader's package is now 7 736 bytes against slangmake's 8 010 (issue 48's target
1). What is left of its index (1 683 bytes for 100 entries and 70 distinct modules) is each
module's 32-bit checksum (about 4.4 bytes after zstd), its directory record's offset and sizes,
and the entry, entry-point and dependency records and keys, whose counters zstd cannot predict.
Its dictionary (4 141 bytes) is larger than its 70 frames together (1 792): the dictionary
search (SPEC.md 4.2) found that the smallest total.

Format 1.8's rerun 2026-12-05 (Intel Xeon, 2 cores): the default-layout assemblies took 224 ms, 41 ms and
1.30 s. The default layout is what `--compress-spirv` made before it became the default (the
same bytes). Earlier runs: the assemblies took 276 ms, 52 ms and 1.33 s (printed on stderr).
The `--spirv raw` column (then the default) grew by the bind views stored as raw zstd blocks
(31 504 and
7 961 464 bytes before, SPEC.md 6.1: a load decompresses nothing), and again by 4 bytes a
blob when that frame came to declare its size in 8 bytes, so that a load views it in place
(40 872, 162 536 and 10 355 768 before).
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
| 100 | `--spirv raw` | 1.74 s | 12.4 MB (208.1 MB) | 9.8 ms | 98.3 µs | 10.7 MB | 159.6 KB |
| 100 | default | 1.89 s | 15.4 MB (208.1 MB) | 14.5 ms | 144.9 µs | 11.0 MB | 2.5 KB |
| 1000 | `--spirv raw` | 14.17 s | 14.6 MB (208.1 MB) | 24.7 ms | 24.7 µs | 12.0 MB | 1.6 MB |
| 1000 | default | 17.28 s | 18.4 MB (208.1 MB) | 24.7 ms | 24.7 µs | 12.1 MB | 9.4 KB |
| 10000 | `--spirv raw` | 101.82 s | 33.2 MB (208.1 MB) | 36.2 ms | 3.6 µs | 23.3 MB | 16.3 MB |
| 10000 | default | 74.36 s | 39.3 MB (208.0 MB) | 53.2 ms | 5.3 µs | 25.1 MB | 167.3 KB |

Format 3.0's run (2026-12-07 13:58-14:04 UTC, this session's final code; a fuzz target ran
beside it on one of the two cores, so its times are not comparable with the runs below: its
peaks and sizes are). The 10,000-permutation package is paged (SPEC.md 4.5: 157 pages of 64
entries): 167.3 KB against 71.2 KB not paged, each page's index about 610 bytes where the one
index spent 111 bytes on 64 entries (zstd finds the keys' and records' repeats within a page
only), and the page table 14.4 KB stored as it is (read at open). The bake makes the package
whole, then its pages from it (the index decoded again, each page's index compressed): peak
39.3 MB against 38.4 MB not paged. The 100- and 1,000-permutation packages are not paged.

Format 2.9's run (2026-12-07 11:18-11:22 UTC, this session's final code, machine otherwise
idle; an AMD EPYC, where the runs before were on an Intel Xeon). At 100 and 1,000 permutations
the writer gives each module of a run its packed length (SPEC.md 5.6.2): 2.5 KB and 9.5 KB as
before. At 10,000 it leaves them out: their lengths vary with the permutation, and they would
cost 9,088 bytes on 71,160 (the same bake with them: 80,248 bytes); the package is 71.2 KB as in
2.7 and 2.8, at 63.41 s cold against the raw layout's 61.09 s (the writer compresses the index
twice to choose, which costs no measurable time), peak 38.4 MB.

Format 2.7's run (2026-12-07 04:29-04:33 UTC, this session's final code, machine otherwise
idle). Module runs (SPEC.md 5.6.2) took the default layout's packages from 4.0 to 2.5 KB at 100
permutations, 29.6 to 9.7 KB at 1,000 and 259.5 to 71.2 KB at 10,000 (each module was a frame
of its own of about 20 bytes; fifteen of them now share one). The bake compresses each run as
one frame (plain and with the dictionary, unless the estimates already put every module's
dictionary frame at half its plain one): 63.34 s cold at 10,000 against the raw layout's
61.98 s, peak 38.2 MB (38.3 MB in 2.6; a run's packed bytes, at most 64 KiB, are the only new
buffer).

Format 2.6's run (2026-12-07 01:30-01:32 UTC, this session's final code, machine otherwise
idle; every row of both layouts slower than 2.5's run, the raw layout's too, as the criterion
table's are). The default layout's package at 10,000 went from 280.1 to 259.5 KB (its modules
packed, SPEC.md 5.6.1) and its peak from 39.3 to 38.3 MB (raw layout 32.9 MB); the bake packs
each module as it reads it back for each estimate and for its compression, which costs no
measurable time (62.38 s against the raw layout's 62.65 s).

Format 2.5's run (2026-12-06 22:42-22:44 UTC): 100, 1,000 and 10,000 permutations, raw then
default: 0.85 / 0.86 s, 5.82 / 6.03 s, 57.15 / 59.16 s cold; peaks 11.8 / 15.5 MB, 14.3 / 19.0
MB, 32.7 / 39.3 MB; packages 159.6 / 4.3 KB, 1.6 MB / 28.3 KB, 16.3 MB / 280.1 KB.
Format 2.5's run (2026-12-06 22:42-22:44 UTC, this session's final code, machine otherwise
idle). The default layout's peak at 10,000 went from 49.2 MB to 39.3 MB (the raw layout's:
32.7 MB) and its package from 287.6 to 280.1 KB: the bake no longer reads every module back
from the spool into one buffer to choose and train the dictionary. It reads each module in turn
for each estimate and for its compression, and trains on evenly spaced modules that fit in
4 MiB (here 15 MB of modules; the package came out smaller, not larger). At 100 and 1,000 the
modules fit in 4 MiB: 15.3 -> 15.5 MB and 19.2 -> 19.0 MB. What is left above the raw layout
at 10,000 (6.6 MB) is that 4 MiB training buffer and the trainer's tables.

Format 2.4's run (2026-12-06 19:17-19:21 UTC, this session's final code, machine otherwise
idle). The default layout's peak at 10,000 went from 56.9 MB (format 2.3, 17:13 UTC) to
49.2 MB and its package from 337.5 to 287.6 KB (bare frames); at 100 and 1,000 from 22.9 and
27.1 MB to 15.3 and 19.2 MB. Two fixed costs went (heaptrack): the dictionary trainer's
frequency table (zstd's fastCover at its default 2^20 slots, 6 MB; now 2^18, which gave every
measured dictionary byte for byte the same), and the compressed index's level-19 context
(18 MB for the 822 KB packed index of 10,000 permutations, sized for the whole index; now its
window and match tables stop at 2^17, which left that index 5 bytes smaller). What is left above
the raw layout's 33.0 MB at 10,000 is the 15 MB of modules read back from the spool into the
buffer the dictionary is chosen and trained from (below; gone in 2.5, above).

Format 2.0's run (2026-12-05, the final code of its session, alone on the machine). The default
layout (compressed SPIR-V, shared dictionary) costs the cold bake 1.4-6% over `--spirv raw`
(61.2 s against 60.3 s at 10,000); the criterion row of 100 permutations at `-j2` in the table
above says 1.04x. Its peak is 56.4 MB against the raw layout's 32.5 MB at 10,000: the
dictionary is chosen over every module and blob (below). The rows before format 2.0 (then
\"default\" was raw and `--compress-spirv` the small layout): 83.6 s and 86.9 s cold at 10,000,
33.2 MB and 57.4 MB, packages of 16.4 MB and 727.1 KB.

Rerun at 10,000 on the final code of 2026-12-06's session before (format 2.3, 17:13-17:15 UTC, machine otherwise
idle): `--spirv raw` 54.36 s cold, peak 33.0 MB (largest worker 208.1 MB), no-op rebake
32.6 ms, package 16.3 MB; default 54.95 s, 56.9 MB (208.1 MB), 33.6 ms, 337.5 KB.

Through a build farm on this machine (`bake-scale --farm 10000`: BuildGrid and two test bots as
`tests/src/farm.rs` starts them, default layout, each bake a source the farm has not seen; the
peak is the bake's process, the Slang sessions are the bots' jobs'; format 2.3, 17:08-17:12 UTC):

| permutations | farm as | cold | peak memory | actions | package |
|---:|---|---:|---:|---:|---:|
| 10000 | cache (first bake: toolchain sent) | 79.94 s | 85.3 MB | 40 | 337.5 KB |
| 10000 | cache | 82.79 s | 86.8 MB | 40 | 337.5 KB |
| 10000 | read-only cache | 74.84 s | 85.1 MB | 40 | 337.5 KB |

`--compress-spirv` costs little cold-bake time at these counts (86.9 s against 83.6 s at
10,000, +4%; the package dictionary is chosen by a quick estimate over every module and blob).
A no-op rebake costs 4-9 µs per permutation from 1,000 on; at 100 the process start dominates.
Whole-process times vary with this shared machine by up to 2x between sessions (the last
session's table had 62.9 s cold at 10,000, the one before 111 s); the memory figures do not
depend on it. The high-water mark is read every millisecond, so a process that ends within a
few milliseconds may be under-read (a 100-permutation no-op once read 1.9 MB).

What the peaks are made of. A `slangpack --version` already holds 8.5-9.0 MB (the binary and
the Slang library it links, whose sessions run in the workers); `slangpack verify` of the
10,000-entry package holds 25.5 MB, that plus its 16.4 MB of mapped pages.
- **Cold bake, default, 10,000 permutations: 33.2 MB**, 24.7 MB above that 8.5 MB, for a
  16.4 MB package. Each entry goes into the package builder as its compile returns it, and the
  builder spools each distinct SPIR-V module to an unnamed scratch file beside the output, then
  copies it into the package as the layout writes it: what stays in memory is the plan, the
  reports, the builder's records and hashes, and the layout. It was 52.5 MB while the bake
  held every module until the last compile (57.5 MB before the plan shared each program's
  options); 14.3 MB of that was SPIR-V (heaptrack).
- **No-op rebake, 10,000: 22.2 MB** (21.2-21.5 MB in three runs of the command by hand) = the
  8.5 MB, a heap peak of 7.9 MB (heaptrack: the plan's per-permutation defines and keys,
  3.4 MB; the reports; the previous package's index) and the pages of the previous package's
  directory and container tables. It was 36.3 MB while every one of the package's 16.4 MB of
  mapped pages was touched twice: once to check the checksums, once to compare the package
  with the output file it already is. Now the checksums are computed from reads of the file
  through a 64 KiB buffer (`Package::check_checksums` on a mapped package), and the bake knows
  the output holds the package when it is the file the package was read from, unchanged since
  (device, inode, length and modification time, taken before and after the open), without
  comparing a byte. It was 58.7 MB while it loaded every entry and copied the package.
- **`--compress-spirv` cold, 10,000: 57.4 MB.** The dictionary is chosen over every module, so
  the modules are read back from the scratch file into one 14.3 MB buffer, which the zstd
  dictionary trainer takes as it is (it copied them into a buffer of its own before: 71.8 MB;
  77.5 MB while every module was held from its compile). The trainer's tables (6.4 MB) and the
  level-19 contexts are most of the rest. Training on a part of the modules would cut the
  buffer but costs size: capped at 4 MiB, the package grew 3.4% (727.1 -> 751.6 KB).
";

/// Lookup by name against spirq's scan over consecutive full runs: one run's row is within
/// this machine's noise, so the runs are kept here.
const LOOKUP_RUNS: &str = "## Binding by name against spirq's scan, over consecutive full runs

One run's `pbr` binding-by-name row is within this machine's noise of spirq's scan over the
program's six descriptors (earlier single runs had 13.6 against 10.1, 16.0 against 17.3 and
13.5 against 11.7 ns). Three consecutive runs of `cargo xtask bench` after the lookup's last
changes: 8.88 against 14.7 ns (1.65x faster), 7.90 against 11.3 (1.44x) and 7.46 against 9.36
(1.25x); the 500-binding row stayed O(1) (7.7-10.9 ns against 1.42-1.62 µs). Three more on
2026-12-04, after the load's changes (the bind view viewed in place): 7.17 against 8.96 ns
(1.25x), 7.18 against 11.1 (1.55x) and 6.93 against 8.89 (1.28x; the table above); the
500-binding row 6.81-6.94 ns against 1.26-1.32 µs.

A lookup is a chain of dependent loads: the name's bytes and its hash, the table entry, the
arena's copy of the name, the record. What the last changes took out of it: the view holds the
table's slices and rotation by value (one load fewer; 22% less, interleaved A/B); the probe of
the baked index (taken only where the load could not build the table) gets a check that
captures nothing, so the table's path no longer sets aside the caller's state on the stack
(the function's prologue lost its spills); names of 16 to 32 bytes are compared as two
overlapping 128-bit halves (`gScene.material.textures.albedo` is 31). Interleaved A/B of the
last two (`compare --bench '^(hot/binding|alt_hot/spirq_binding)$' --measurement-time 5`,
three pairs): 11.0 / 9.0, 9.2 / 8.6 and 9.2 / 10.5 ns, with spirq at 12.1-14.0 ns in the same
processes.
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
| `spirv` | 40 872 B | |
| `spirv,glsl` (all four) | 47 280 B | +6.4 KB (1.16×) |
| every target each program bakes for | 61 496 B | +20.6 KB (1.50×) |
| `spirv`, reflection stored raw (`--no-compress`) | 89 664 B | |

The three example programs that bake for all five targets (`layered`,
`examples/build-rs/shaders/tint.slang`, `examples/wgpu/shaders/scale.slang`; 3 entry points;
`slangpack bake FILES --target T`):

| targets | package | over SPIR-V only |
| --- | ---: | ---: |
| `spirv` | 17 768 B | |
| `spirv,wgsl` | 20 376 B | +2.6 KB |
| `spirv,glsl` | 20 192 B | +2.4 KB |
| `spirv,hlsl` | 21 024 B | +3.3 KB |
| `spirv,metal` | 21 184 B | +3.4 KB |
| all five | 28 848 B | +11.1 KB (1.62×) |
| all five, `--no-compress` | 60 312 B | |

Both tables were measured again on 2026-12-04 (the release `slangpack`); the figures before
them predated the bind views stored as raw zstd blocks, which every target's bind view is by
default (SPEC.md 6.1).
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
            "{INTRO}\nReproduce with `{COMMAND}` (machine of the last run: {cpu}, {cores} cores).\n{RUN}\n{table}\n{TEAM_CACHE}\n{LOOKUP_RUNS}\n{over_text}\n{WHY}\n{NOTES}\n{COMPRESSED_SIZES}\n{BAKE_SCALE}\n{FLOORS}\n{TARGET_SIZES}"
        );
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("bench-table: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
        println!("wrote {path}");
    }
    ExitCode::SUCCESS
}

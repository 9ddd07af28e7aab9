//! Fixtures and the "other ways" for slangpack's benchmarks (`benches/compare.rs`), and the
//! table the `bench-table` binary prints from criterion's results.
//!
//! Everything here is set-up or a reference implementation of a lookup done without
//! slangpack: baking the example shaders, synthesizing the large package, Slang's JSON
//! reflection, a live Slang session, and SPIR-V reflection with `spirq` and `rspirv-reflect`.
//! No timing happens here.

use slangpack_format::{Compression, FileHeader};
use slangpack_pack::assemble::{assemble, assemble_with, BakedEntry};
use slangpack_writer::bake::{bake, BakeConfig};
use slangpack_writer::compile::{CompileOptions, Compiler};
use slangpack_writer::entry::compile_job;
use slangpack_writer::plan::{permutation_key, plan};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use zerocopy::FromBytes;

pub mod table;

mod alternatives;
pub use alternatives::*;

/// The best microseconds per call of `f` over `loops` loops of `seconds` each: what the
/// benches' own binaries (not criterion's) print.
pub fn best_micros(loops: u32, seconds: f64, mut f: impl FnMut()) -> f64 {
    (0..loops)
        .map(|_| {
            let started = std::time::Instant::now();
            let mut n = 0u32;
            while started.elapsed().as_secs_f64() < seconds {
                f();
                n += 1;
            }
            started.elapsed().as_secs_f64() * 1e6 / f64::from(n)
        })
        .fold(f64::MAX, f64::min)
}

/// The entries of `entries` whose key is [`PBR_KEY`]: the `pbr` package's.
#[must_use]
pub fn pbr_entries(entries: &[BakedEntry]) -> Vec<BakedEntry> {
    entries
        .iter()
        .filter(|e| e.key == PBR_KEY)
        .cloned()
        .collect()
}

/// The example entry the comparisons use: nested parameter blocks, a push-constant block,
/// vertex and fragment stages.
pub const PBR_KEY: &str = "pbr";
/// A descriptor two parameter blocks deep: set 1, binding 1.
pub const PBR_BINDING: &str = "gScene.material.textures.albedo";
/// A uniform member two parameter blocks deep: offset 16 in `gScene.material`'s buffer.
pub const PBR_MEMBER: &str = "gScene.material.params.roughness";
/// The buffer that holds [`PBR_MEMBER`], and the member's path inside it.
pub const PBR_MEMBER_BUFFER: (&str, &str) = ("gScene.material", "params.roughness");

/// Permutation axes of the synthesized large package: 4 × 2 × 4 × 8 = 256 combinations of
/// each of the 4 example programs, 1024 entries.
pub const LARGE_AXES: [(&str, &[&str]); 4] = [
    ("QUALITY", &["0", "1", "2", "3"]),
    ("SHADOWS", &["0", "1"]),
    ("MSAA", &["1", "2", "4", "8"]),
    ("LIGHTS", &["1", "2", "3", "4", "5", "6", "7", "8"]),
];

/// Permutation axes of the synthesized huge package: 5 × 5 × 10 × 10 = 2500 combinations of
/// each of the 4 example programs, 10 000 entries.
pub const HUGE_AXES: [(&str, &[&str]); 4] = [
    ("QUALITY", &["0", "1", "2", "3", "4"]),
    ("SHADOWS", &["0", "1", "2", "3", "4"]),
    ("MSAA", &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]),
    (
        "LIGHTS",
        &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
    ),
];

/// Descriptor bindings of the generated program of [`Fixtures::many`].
pub const MANY_BINDINGS: usize = 500;

/// The binding the 500-binding lookups look for: the last declared (a linear scan's worst).
pub const MANY_BINDING: &str = "t499";

/// Everything the benchmarks read, built once per run.
pub struct Fixtures {
    /// `examples/shaders`.
    pub shader_dir: PathBuf,
    /// The baked example entries.
    pub entries: Vec<BakedEntry>,
    /// The example package as `slangpack bake` writes it by default (SPIR-V and reflection
    /// compressed against a shared dictionary, the compressed index).
    pub package: Vec<u8>,
    /// A package of the `pbr` entry alone (the programs the comparisons use), default layout.
    pub package_pbr: Vec<u8>,
    /// The same entries in the raw layout (`--spirv raw`: SPIR-V as it is, bind views as raw
    /// blocks, the raw tables compressed).
    pub package_raw: Vec<u8>,
    /// The `pbr` package in the raw layout.
    pub package_pbr_raw: Vec<u8>,
    /// [`Fixtures::package`] on disk, for `Package::open` (memory-mapped).
    pub package_path: PathBuf,
    /// Slang's JSON reflection (`spReflection_ToJson`) of each example program, by key.
    pub slang_json: Vec<(String, String)>,
    /// The large package: 1024 entries synthesized from the baked examples, default layout.
    pub large: Vec<u8>,
    /// The large package in the raw layout.
    pub large_raw: Vec<u8>,
    /// Keys of the large package, in the order they were generated.
    pub large_keys: Vec<String>,
    /// The huge package: 10 000 entries synthesized from the baked examples, every SPIR-V
    /// module distinct, each program's reflection shared by its permutations.
    pub huge: Vec<u8>,
    /// The huge package in the raw layout.
    pub huge_raw: Vec<u8>,
    /// The huge package in the default layout, not paged (SPEC.md 4.5: what 2.9 wrote).
    pub huge_flat: Vec<u8>,
    /// A `pbr` permutation in the middle of the huge package.
    pub huge_key: String,
    /// A package of one generated compute program with [`MANY_BINDINGS`] textures.
    pub many: Vec<u8>,
    /// The SPIR-V of that program.
    pub many_spirv: Vec<u32>,
    /// Sizes of packages in both layouts, of their SPIR-V alone and of the one-stream
    /// references.
    pub spirv_sizes: Vec<(&'static str, u64)>,
}

/// The repository's `examples/shaders`.
pub fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/shaders")
        .canonicalize()
        .expect("examples/shaders exists")
}

/// The programs of `examples/shaders` baked at `-j2` with the default options, as entries.
///
/// # Panics
/// When the bake fails.
#[must_use]
pub fn examples_baked() -> Vec<BakedEntry> {
    let mut config = BakeConfig::new(vec![shader_dir()]);
    config.jobs = 2;
    bake(&config)
        .expect("baking examples/shaders")
        .baked_entries()
        .expect("reading the examples back")
}

/// Whether criterion runs each benchmark once instead of measuring: under `cargo test
/// --benches` (no `--bench` argument) or with `--test` (what `cargo xtask bench --test`, CI's
/// quick pass, runs). Fixtures that take long to make are then made smaller or skipped.
pub fn criterion_test_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench")
}

/// What the reflection blobs of `entries` add to their default-layout package: the package's
/// size less that of the same package with every blob an empty one (a blob of no tables). The
/// package's dictionary, shared by modules and bind views, is then counted where it pays.
pub fn reflection_adds(entries: &[BakedEntry]) -> u64 {
    let empty: std::sync::Arc<[u8]> = slangpack_format::ReflectionBuilder::new().finish().into();
    let without: Vec<BakedEntry> = entries
        .iter()
        .cloned()
        .map(|mut e| {
            e.reflection = empty.clone();
            e
        })
        .collect();
    let size = |e: &[BakedEntry]| assemble_with(e, true, true).map_or(0, |b| b.len() as u64);
    size(entries).saturating_sub(size(&without))
}

/// Where fixtures are written: `target/slangpack-bench/`.
pub fn work_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("slangpack-bench")
}

impl Fixtures {
    /// Bakes the example shaders with the real Slang compiler, compiles them once more for
    /// Slang's JSON reflection, and synthesizes the large package.
    ///
    /// # Panics
    /// When Slang fails on the examples (a broken checkout): benchmarks cannot run then.
    pub fn build() -> Fixtures {
        let shader_dir = shader_dir();
        let mut config = BakeConfig::new(vec![shader_dir.clone()]);
        config.jobs = 2;
        let outcome = bake(&config).expect("baking examples/shaders");
        let entries = outcome.baked_entries().expect("reading the examples back");
        let package = outcome.bytes.into_vec();
        let package_raw = assemble(&entries, true).expect("assembling the raw-layout package");

        let dir = work_dir();
        std::fs::create_dir_all(&dir).expect("creating target/slangpack-bench");
        let package_path = dir.join("examples.slangpack");
        std::fs::write(&package_path, &package).expect("writing the example package");
        let pbr = pbr_entries(&entries);
        let package_pbr = assemble_with(&pbr, true, true).expect("assembling the pbr package");
        std::fs::write(dir.join("pbr.slangpack"), &package_pbr).expect("writing the pbr package");
        let package_pbr_raw = assemble(&pbr, true).expect("assembling the raw pbr package");
        std::fs::write(dir.join("pbr-raw.slangpack"), &package_pbr_raw)
            .expect("writing the raw pbr package");

        let compiler = Compiler::new().expect("starting Slang");
        let plan = plan(&config).expect("planning the examples");
        let mut slang_json = Vec::new();
        for job in &plan.jobs {
            if let Some(program) = compile_job(&compiler, job).expect("compiling an example") {
                let json = program.reflection_json().expect("Slang JSON reflection");
                std::fs::write(
                    dir.join(format!("{}.json", job.key.replace('/', "_"))),
                    &json,
                )
                .expect("writing Slang's JSON");
                slang_json.push((job.key.clone(), json));
            }
        }
        slang_json.sort();

        let large_entries = synthesize_large(&entries);
        let large_keys = large_entries.iter().map(|e| e.key.clone()).collect();
        let large =
            assemble_with(&large_entries, true, true).expect("assembling the large package");
        let large_raw = assemble(&large_entries, true).expect("assembling the large package");
        std::fs::write(dir.join("large.slangpack"), &large).expect("writing the large package");

        let huge_entries = synthesize(&entries, &HUGE_AXES, false);
        let huge_key = huge_entries
            .iter()
            .filter(|e| e.key.starts_with("pbr?"))
            .nth(1250)
            .expect("a pbr permutation")
            .key
            .clone();
        let huge = assemble_with(&huge_entries, true, true).expect("assembling the huge package");
        let huge_raw = assemble(&huge_entries, true).expect("assembling the huge package");
        let huge_flat = {
            let mut builder = slangpack_pack::assemble::stored_builder(true, true);
            builder.set_paging(0, 0);
            for e in huge_entries.iter().cloned() {
                slangpack_pack::assemble::add_entry(&mut builder, e).expect("a huge entry");
            }
            slangpack_pack::assemble::finish(builder).expect("assembling the flat huge package")
        };
        std::fs::write(dir.join("huge-flat.slangpack"), &huge_flat)
            .expect("writing the flat huge package");
        std::fs::write(dir.join("huge.slangpack"), &huge).expect("writing the huge package");

        let (many, many_spirv) = many_bindings(&dir);

        let spirv_len = |entries: &[BakedEntry]| -> u64 {
            entries
                .iter()
                .flat_map(|e| &e.entry_points)
                .map(|ep| 4 * ep.spirv.len() as u64)
                .sum()
        };
        let spirvz = |entries: &[BakedEntry]| -> u64 {
            assemble_with(entries, true, true).map_or(0, |b| b.len() as u64)
        };
        let jsons: Vec<&[u8]> = slang_json.iter().map(|(_, j)| j.as_bytes()).collect();
        let mut spirv_sizes = vec![
            ("examples_package_spirvz", spirvz(&entries)),
            ("examples_spirv_stream", spirv_stream(&entries)),
            ("examples_stream", one_stream(&entries, &jsons)),
            ("large_package_spirvz", spirvz(&large_entries)),
            ("large_spirv", spirv_len(&large_entries)),
            ("large_spirv_stream", spirv_stream(&large_entries)),
            ("large_stream", one_stream(&large_entries, &jsons)),
        ];
        // Real permutations of small compute shaders, and every test shader: baking them
        // takes a while, so `--test` runs (CI) skip them.
        if !criterion_test_mode() {
            let perm = permutations_100(&dir);
            spirv_sizes.push(("perm100_spirv", spirv_len(&perm)));
            spirv_sizes.push((
                "perm100_package",
                assemble(&perm, true).map_or(0, |b| b.len() as u64),
            ));
            spirv_sizes.push(("perm100_package_spirvz", spirvz(&perm)));
            spirv_sizes.push(("perm100_spirv_stream", spirv_stream(&perm)));
            spirv_sizes.extend(permutations_ab_sizes(&dir));
            spirv_sizes.extend(test_shader_sizes());
        }

        Fixtures {
            shader_dir,
            entries,
            package,
            package_pbr,
            package_raw,
            package_pbr_raw,
            package_path,
            slang_json,
            large,
            large_raw,
            large_keys,
            huge,
            huge_raw,
            huge_flat,
            huge_key,
            many,
            many_spirv,
            spirv_sizes,
        }
    }

    /// Byte counts for the table's size rows, as `(name, bytes)`.
    pub fn sizes(&self) -> Vec<(&'static str, u64)> {
        let len = |b: &[u8]| b.len() as u64;
        // Reflection as stored: its sections' bytes, and the dictionary's when any of them
        // is compressed against it (the dictionary is then counted whole).
        // (Each of the two dictionaries, 2.1, when a blob uses it.)
        let stored = |b: &[u8]| {
            use slangpack_format::SectionKind;
            let sections = slangpack_format::read_sections(b).expect("a package's sections");
            let blobs = sections
                .iter()
                .filter(|s| s.kind == SectionKind::Reflection.to_raw());
            let uses = |c: Compression| blobs.clone().any(|s| s.compression == c.to_raw());
            let split = uses(Compression::ZstdSplitDictionaries);
            let dict: u64 = sections
                .iter()
                .filter(|s| match SectionKind::from_raw(s.kind) {
                    SectionKind::Dictionary => uses(Compression::ZstdDictionary) || split,
                    SectionKind::TablesDictionary => split,
                    _ => false,
                })
                .map(|s| s.stored.len() as u64)
                .sum();
            blobs.map(|s| s.stored.len() as u64).sum::<u64>() + dict
        };
        let json: String = self.slang_json.iter().map(|(_, j)| j.as_str()).collect();
        let pbr = self.entry(PBR_KEY);
        let spirv = |e: &BakedEntry| {
            e.entry_points
                .iter()
                .map(|ep| 4 * ep.spirv.len() as u64)
                .sum::<u64>()
        };
        let pbr_entries = std::slice::from_ref(pbr);
        vec![
            ("examples_package", len(&self.package)),
            ("examples_reflection_adds", reflection_adds(&self.entries)),
            ("pbr_reflection_adds", reflection_adds(pbr_entries)),
            ("examples_package_raw", len(&self.package_raw)),
            ("examples_spirv", self.entries.iter().map(spirv).sum()),
            (
                "examples_reflection_raw",
                self.entries.iter().map(|e| e.reflection.len() as u64).sum(),
            ),
            ("examples_reflection_zstd", stored(&self.package)),
            ("examples_json", json.len() as u64),
            (
                "examples_json_zstd",
                self.slang_json
                    .iter()
                    .map(|(_, j)| zstd_len(j.as_bytes()))
                    .sum(),
            ),
            ("pbr_package", len(&self.package_pbr)),
            ("pbr_spirv", spirv(pbr)),
            ("pbr_reflection_raw", pbr.reflection.len() as u64),
            ("pbr_reflection_zstd", stored(&self.package_pbr)),
            ("pbr_json", self.json(PBR_KEY).len() as u64),
            ("pbr_json_zstd", zstd_len(self.json(PBR_KEY).as_bytes())),
            ("large_package", len(&self.large)),
            ("large_package_raw", len(&self.large_raw)),
            ("large_entries", self.large_keys.len() as u64),
            ("huge_package", len(&self.huge)),
            ("huge_package_raw", len(&self.huge_raw)),
            ("huge_package_flat", len(&self.huge_flat)),
        ]
        .into_iter()
        .chain(self.spirv_sizes.iter().copied())
        .collect()
    }

    /// Writes [`Fixtures::sizes`] to `target/slangpack-bench/sizes.json` for `bench-table`.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn write_sizes(&self) -> std::io::Result<()> {
        let map: serde_json::Map<String, serde_json::Value> = self
            .sizes()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect();
        let text = serde_json::to_string_pretty(&map).map_err(std::io::Error::other)?;
        std::fs::write(work_dir().join("sizes.json"), text)
    }

    /// The baked example entry `key`.
    ///
    /// # Panics
    /// When there is no such entry.
    pub fn entry(&self, key: &str) -> &BakedEntry {
        self.entries
            .iter()
            .find(|e| e.key == key)
            .expect("an example entry")
    }

    /// Slang's JSON reflection of example `key`.
    ///
    /// # Panics
    /// When there is no such program.
    pub fn json(&self, key: &str) -> &str {
        self.slang_json
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, j)| j.as_str())
            .expect("an example program")
    }
}

/// 1024 entries: every baked example under each combination of [`LARGE_AXES`], keyed as the
/// writer keys permutations (`pbr?LIGHTS=3&MSAA=4&QUALITY=1&SHADOWS=0`).
///
/// Baking 1024 real permutations takes minutes on a two-core machine, so the permutations are
/// copies of the real entries. So that the package is not deduplicated down to four blobs (as a
/// real permutation set is not), each copy's reflection blob carries its permutation number
/// in the header's reserved word and each SPIR-V module in the low half of its generator word:
/// every reflection blob and SPIR-V module in the package is distinct, so opening it
/// decompresses, checksums and validates 1024 blobs.
/// The bytes of every SPIR-V module of `entries`, in order, as one zstd stream at the writer's
/// level (19): what compressing the whole SPIR-V at once gives, with no module loadable on its
/// own.
#[must_use]
pub fn spirv_stream(entries: &[BakedEntry]) -> u64 {
    let bytes: Vec<u8> = entries
        .iter()
        .flat_map(|e| &e.entry_points)
        .flat_map(|ep| ep.spirv.iter().flat_map(|w| w.to_le_bytes()))
        .collect();
    zstd::bulk::compress(&bytes, 19).map_or(0, |z| z.len() as u64)
}

pub fn synthesize_large(entries: &[BakedEntry]) -> Vec<BakedEntry> {
    synthesize(entries, &LARGE_AXES, true)
}

/// Every entry of `entries` under each combination of `axes` (see [`synthesize_large`]);
/// with `distinct_reflection` false, each program's permutations share its reflection blob
/// (as permutations that change no layout do) and only the SPIR-V differs.
pub fn synthesize(
    entries: &[BakedEntry],
    axes: &[(&str, &[&str])],
    distinct_reflection: bool,
) -> Vec<BakedEntry> {
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for &(name, values) in axes {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((name.to_string(), v.to_string()));
                    c
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    let mut n: u32 = 0;
    for entry in entries {
        for defines in &combos {
            n += 1;
            let mut e = entry.clone();
            e.key = permutation_key(Path::new(&entry.key), defines);
            // ReflectionHeader::reserved1, the last word of the 64-byte header.
            if distinct_reflection && e.reflection.len() >= 64 {
                let mut blob = e.reflection.to_vec();
                blob[60..64].copy_from_slice(&n.to_le_bytes());
                e.reflection = blob.into();
            }
            for ep in &mut e.entry_points {
                if let Some(generator) = ep.spirv.get_mut(2) {
                    *generator = (*generator & 0xffff_0000) | (n & 0xffff);
                }
            }
            out.push(e);
        }
    }
    out.sort_by(|a, b| a.key.cmp(&b.key));
    out
}

/// 100 permutations (`RADIUS` 1 ..= 100) of a small compute shader (a box blur over a
/// structured buffer), baked by the real compiler.
///
/// # Panics
/// When Slang fails on the shader.
pub fn permutations_100(dir: &Path) -> Vec<BakedEntry> {
    let path = permutations_100_source(dir);
    let mut config = BakeConfig::new(vec![path]);
    config.jobs = 2;
    bake(&config)
        .expect("baking 100 permutations")
        .baked_entries()
        .expect("reading the permutations back")
}

/// A package of one generated compute program reading [`MANY_BINDINGS`] textures `t0` ...
/// `t499` (all used, so all are in the SPIR-V), baked by the real compiler; and its SPIR-V.
///
/// # Panics
/// When Slang fails on the generated source.
pub fn many_bindings(dir: &Path) -> (Vec<u8>, Vec<u32>) {
    use std::fmt::Write as _;
    let mut source = String::from("// Generated by slangpack-benches: many bindings.\n");
    for i in 0..MANY_BINDINGS {
        let _ = writeln!(source, "Texture2D<float4> t{i};");
    }
    source.push_str(
        "RWStructuredBuffer<float4> gOut;\n[shader(\"compute\")]\n[numthreads(1, 1, 1)]\n",
    );
    source.push_str("void main(uint3 id : SV_DispatchThreadID)\n{\n    float4 s = 0;\n");
    for i in 0..MANY_BINDINGS {
        let _ = writeln!(source, "    s += t{i}.Load(int3(id.xy, 0));");
    }
    source.push_str("    gOut[id.x] = s;\n}\n");
    let many_dir = dir.join("many");
    std::fs::create_dir_all(&many_dir).expect("creating the many-bindings directory");
    let path = many_dir.join("many.slang");
    std::fs::write(&path, source).expect("writing the many-bindings shader");
    let mut config = BakeConfig::new(vec![path]);
    config.jobs = 1;
    let outcome = bake(&config).expect("baking the many-bindings shader");
    let entries = outcome.baked_entries().expect("reading the shader back");
    let spirv = entries[0].entry_points[0].spirv.clone();
    (outcome.bytes.into_vec(), spirv)
}

/// Size of `bytes` compressed with zstd at the level the package builder uses.
fn zstd_len(bytes: &[u8]) -> u64 {
    zstd::bulk::compress(bytes, slangpack_format::DEFAULT_ZSTD_LEVEL).map_or(0, |c| c.len() as u64)
}

/// Which dictionary a [`Frame`] is decompressed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameDictionary {
    /// None.
    Plain,
    /// The package's `Dictionary`.
    Package,
    /// The package's `TablesDictionary` (2.1).
    Tables,
}

/// Zstd frames a reader decompresses: their stored bytes, the bytes they decompress to, and
/// the dictionary they need.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The stored bytes.
    pub stored: Vec<u8>,
    /// The bytes they decompress to.
    pub raw: usize,
    /// The dictionary they are decompressed with.
    pub dictionary: FrameDictionary,
}

impl Frame {
    /// The frames of `section` (of a package whose dictionary sections `has` says it holds:
    /// `Dictionary`, `TablesDictionary`): all of them, or with `load` only those a load
    /// decompresses (a split blob's first frame alone). Empty when it is not zstd.
    fn of(section: &slangpack_format::RawSection, has: (bool, bool), load: bool) -> Vec<Frame> {
        use FrameDictionary::*;
        let stored = &section.stored;
        let first = zstd::zstd_safe::find_frame_compressed_size(stored).unwrap_or(stored.len());
        let split = section.kind == slangpack_format::SectionKind::Reflection.to_raw()
            && first < stored.len();
        let head = || {
            zstd::zstd_safe::get_frame_content_size(&stored[..first])
                .ok()
                .flatten()
                .expect("a first frame declares its size") as usize
        };
        let with = |d: bool, which| if d { which } else { Plain };
        let (first_dict, rest_dict) = match Compression::from_raw(section.compression) {
            Compression::Zstd | Compression::ZstdPackedSpirv => (Plain, Plain),
            Compression::ZstdDictionary | Compression::ZstdDictionaryPackedSpirv => {
                (Package, Package)
            }
            Compression::ZstdSplitDictionaries => (with(has.0, Package), with(has.1, Tables)),
            // A bind view alone (2.5), or a bind-view run's (2.8).
            Compression::ZstdSharedTables => (with(has.0, Package), Plain),
            _ => return vec![],
        };
        // A packed module's frame holds its packed bytes (2.6): at most the bound, the room
        // a reader decompresses it into (unpacking it is the reader's own work, not zstd's).
        let raw = match Compression::from_raw(section.compression) {
            c if c.is_packed_spirv() => {
                slangpack_format::packed_spirv_bound(section.raw_size as usize)
            }
            Compression::ZstdSharedTables => head(),
            _ => section.raw_size as usize,
        };
        let packed = section.compression == Compression::ZstdSplitDictionaries.to_raw();
        let frame = |bytes: &[u8], raw, dictionary| Frame {
            stored: bytes.to_vec(),
            raw,
            dictionary,
        };
        match (split, load) {
            (false, _) => vec![frame(stored, raw, first_dict)],
            (true, true) => vec![frame(&stored[..first], head(), first_dict)],
            (true, false) if first_dict == rest_dict && !packed => {
                vec![frame(stored, raw, first_dict)]
            }
            (true, false) => {
                // The second frame holds the raw tables packed: its own declared size.
                let rest = &stored[first..];
                let packed = zstd::zstd_safe::get_frame_content_size(rest)
                    .ok()
                    .flatten()
                    .map_or(raw - head(), |n| n as usize);
                vec![
                    frame(&stored[..first], head(), first_dict),
                    frame(rest, packed, rest_dict),
                ]
            }
        }
    }
}

/// The frames of section `i` of `sections` ([`Frame::of`]); the frame of a module run (2.7)
/// with room for every packed module of the run (the buffer a reader decompresses it into),
/// none for a module stored in a later section's frame.
fn frames_at(
    sections: &[slangpack_format::RawSection],
    i: usize,
    has: (bool, bool),
    load: bool,
) -> Vec<Frame> {
    let mut frames = Frame::of(&sections[i], has, load);
    if let Some((first, holder)) = slangpack_format::module_run_of(sections, i) {
        let room = sections[first..=holder]
            .iter()
            .map(|s| slangpack_format::packed_spirv_bound(s.raw_size as usize))
            .sum();
        for f in &mut frames {
            f.raw = room;
        }
    }
    frames
}

/// Whether `sections` hold a `Dictionary` and a `TablesDictionary`.
fn has_dictionaries(sections: &[slangpack_format::RawSection]) -> (bool, bool) {
    let has =
        |kind: slangpack_format::SectionKind| sections.iter().any(|s| s.kind == kind.to_raw());
    (
        has(slangpack_format::SectionKind::Dictionary),
        has(slangpack_format::SectionKind::TablesDictionary),
    )
}

/// Every zstd-compressed section of a package (the dictionaries, SPIR-V modules, reflection
/// blobs, target code; not the compressed index) as its frames: what opening and loading
/// everything has to decompress.
///
/// # Panics
/// On a malformed package (the fixtures are baked by the writer).
pub fn compressed_sections(package: &[u8]) -> Vec<Frame> {
    let mut seen = std::collections::HashSet::new();
    let mut frames = Vec::new();
    for sections in section_lists(package, None) {
        let has = has_dictionaries(&sections);
        for (i, s) in sections.iter().enumerate() {
            // A section several pages of a paged package list is decompressed once.
            if seen.insert((
                s.kind,
                s.stored.as_ptr() as usize,
                s.stored.len(),
                s.raw_size,
            )) {
                frames.extend(frames_at(&sections, i, has, false));
            }
        }
    }
    frames
}

/// The sections of `package` as [`slangpack_format::read_sections`] gives them, as one list;
/// of a paged package (3.0, SPEC.md 4.5), a list per page (the page's own directory, its
/// sections in the file as stored, zstd frames with their magic numbers): every page's, or
/// with `key` the list of the page that holds it.
///
/// # Panics
/// On a malformed package or a missing key.
pub fn section_lists(package: &[u8], key: Option<&str>) -> Vec<Vec<slangpack_format::RawSection>> {
    if let Some(sections) = slangpack_format::read_sections(package) {
        return vec![sections];
    }
    let reader = slangpack_reader::Package::from_bytes(package).expect("a valid package");
    let mut pages: Vec<&slangpack_reader::Package> = Vec::new();
    let entries: Vec<_> = match key {
        Some(k) => vec![reader.load(k).expect("the entry")],
        None => reader.entries().map(|e| e.expect("an entry")).collect(),
    };
    for entry in entries {
        let page = entry.package();
        if pages
            .last()
            .is_none_or(|p| p.first_entry() != page.first_entry())
        {
            pages.push(page);
        }
    }
    pages
        .into_iter()
        .map(|page| {
            page.sections()
                .filter(|r| !r.section_kind().is_container())
                .map(|r| {
                    let mut s =
                        slangpack_format::RawSection::copied(package, &r).expect("a section");
                    if page.has_bare_frames() && r.compression_kind().is_zstd() {
                        s.stored =
                            slangpack_format::restore_magic(&s.stored).expect("a bare frame");
                    }
                    s
                })
                .collect()
        })
        .collect()
}

/// The sections [`section_lists`] gives for `key`: the package's, or its page's.
fn sections_for(package: &[u8], key: Option<&str>) -> Vec<slangpack_format::RawSection> {
    section_lists(package, key)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// The raw bytes of the package's dictionary section of `kind` (`Dictionary` or
/// `TablesDictionary`; empty when it has none).
///
/// # Panics
/// On a malformed package.
pub fn dictionary(package: &[u8], kind: slangpack_format::SectionKind) -> Vec<u8> {
    let sections = sections_for(package, None);
    sections
        .iter()
        .find(|s| s.kind == kind.to_raw())
        .map(|s| match Frame::of(s, (false, false), false).first() {
            Some(f) => zstd::bulk::decompress(&f.stored, f.raw).expect("the dictionary"),
            None => s.stored.clone(),
        })
        .unwrap_or_default()
}

/// The package's `Dictionary` section as stored, with its frame when zstd-compressed (`None`
/// when the package has no dictionary): what the first load of any entry in a just-opened
/// package reads besides the entry's own sections, once per package.
///
/// # Panics
/// On a malformed package.
#[must_use]
pub fn dictionary_section(package: &[u8]) -> Option<(Vec<u8>, Option<Frame>)> {
    sections_for(package, None)
        .into_iter()
        .find(|s| s.kind == slangpack_format::SectionKind::Dictionary.to_raw())
        .map(|s| {
            let frame = Frame::of(&s, (false, false), false).pop();
            (s.stored, frame)
        })
}

/// The stored bytes of the sections that loading entry `key` reads (its reflection blob and
/// its entry points' SPIR-V modules), each with the frames the load decompresses (of a split
/// blob the first alone): what the first load of that entry has to checksum and decompress. A
/// module of a module run (2.7) and a bind view of a bind-view run (2.8) are read from their
/// run's frame: that section, once.
///
/// # Panics
/// On a malformed package or a missing key.
pub fn entry_sections(package: &[u8], key: &str) -> Vec<(Vec<u8>, Vec<Frame>)> {
    let reader = slangpack_reader::Package::from_bytes(package).expect("a valid package");
    let entry = reader.load(key).expect("the entry");
    let reflection = entry.record().reflection;
    let spirv: Vec<u32> = entry.entry_points().map(|ep| ep.spirv_index()).collect();
    let (mut nth_spirv, mut nth_reflection) = (0u32, 0u32);
    let mut out = Vec::new();
    let sections = sections_for(package, Some(key));
    let has = has_dictionaries(&sections);
    let mut runs = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        let wanted = match slangpack_format::SectionKind::from_raw(section.kind) {
            slangpack_format::SectionKind::Spirv => {
                nth_spirv += 1;
                spirv.contains(&(nth_spirv - 1))
            }
            slangpack_format::SectionKind::Reflection => {
                nth_reflection += 1;
                reflection == nth_reflection - 1
            }
            _ => false,
        };
        if !wanted {
            continue;
        }
        let run = slangpack_format::module_run_of(&sections, i)
            .or_else(|| slangpack_format::bind_run_of(&sections, i));
        let at = match run {
            Some((_, holder)) if runs.contains(&holder) => continue,
            Some((_, holder)) => {
                runs.push(holder);
                holder
            }
            None => i,
        };
        let frames = frames_at(&sections, at, has, true);
        out.push((sections[at].stored.clone(), frames));
    }
    out
}

/// The bytes `Package::open` checksums: the stored directory (or compressed index) and, in
/// a package without a compressed index, the container tables and the entry-point targets
/// table (what open reads and checks; no blob, module or code).
///
/// # Panics
/// On a malformed package.
pub fn open_checked_bytes(package: &[u8]) -> Vec<Vec<u8>> {
    let (header, _) = FileHeader::read_from_prefix(package).expect("a package header");
    let at = header.section_dir_offset() as usize;
    let mut out = vec![package[at..at + header.stored_directory_size() as usize].to_vec()];
    // A paged package's open checks its page table alone (SPEC.md 4.5).
    if !header.has_compressed_index() && !header.is_paged() {
        let sections = slangpack_format::read_sections(package).expect("sections");
        out.extend(
            sections
                .into_iter()
                .filter(|s| {
                    let kind = slangpack_format::SectionKind::from_raw(s.kind);
                    kind.is_container() || kind == slangpack_format::SectionKind::EntryPointTargets
                })
                .map(|s| s.stored),
        );
    }
    out
}

/// The bytes of every SPIR-V module of `entries` followed by `reflection` (Slang's JSON of
/// each program), as one zstd stream at the writer's level: the reference a package of
/// per-entry frames is measured against (no entry of it loadable on its own).
#[must_use]
pub fn one_stream(entries: &[BakedEntry], reflection: &[&[u8]]) -> u64 {
    let mut bytes: Vec<u8> = entries
        .iter()
        .flat_map(|e| &e.entry_points)
        .flat_map(|ep| ep.spirv.iter().flat_map(|w| w.to_le_bytes()))
        .collect();
    for json in reflection {
        bytes.extend_from_slice(json);
    }
    zstd_len(&bytes)
}

/// Slang's JSON reflection of every program `config` plans (one per permutation), compiled
/// through the writer's own job path.
///
/// # Panics
/// When Slang fails on a program the bake compiled.
fn slang_jsons(config: &BakeConfig) -> Vec<String> {
    let compiler = Compiler::new().expect("starting Slang");
    let plan = plan(config).expect("planning");
    plan.jobs
        .iter()
        .filter_map(|job| compile_job(&compiler, job).expect("compiling a program"))
        .map(|program| program.reflection_json().expect("Slang JSON reflection"))
        .collect()
}

/// The permutation shader of the size comparison (issue 48): one compute shader with a
/// `RWStructuredBuffer<float4>`, a constant buffer `{float4 tint; float scale; uint count}`,
/// a `Texture2D` and a `SamplerState`, `[numthreads(64,1,1)]`, a loop to `A` and branches on
/// `B`, under axes `A` and `B` of ten values each, written to `dir/perm_ab/perm_ab.slang`.
///
/// # Panics
/// When the file cannot be written.
pub fn permutations_ab_source(dir: &Path) -> PathBuf {
    let source = "//! slangpack-axis A 0 1 2 3 4 5 6 7 8 9\n\
         //! slangpack-axis B 0 1 2 3 4 5 6 7 8 9\n\
         struct Params { float4 tint; float scale; uint count; };\n\
         RWStructuredBuffer<float4> gOut;\n\
         ConstantBuffer<Params> gParams;\n\
         Texture2D gTexture;\n\
         SamplerState gSampler;\n\
         [shader(\"compute\")]\n\
         [numthreads(64, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID)\n\
         {\n\
         \x20   float2 uv = float2(id.x % 64, id.x / 64) / 64.0;\n\
         \x20   float4 acc = gTexture.SampleLevel(gSampler, uv, 0);\n\
         \x20   for (int i = 0; i < A; i++)\n\
         \x20       acc = acc * gParams.scale + gParams.tint;\n\
         \x20   if (B == 1) acc = acc.wzyx;\n\
         \x20   else if (B == 2) acc = sqrt(abs(acc));\n\
         \x20   else if (B > 5) acc *= float(B);\n\
         \x20   if (id.x < gParams.count) gOut[id.x] = acc;\n\
         }\n";
    let perm_dir = dir.join("perm_ab");
    std::fs::create_dir_all(&perm_dir).expect("creating the permutations directory");
    let path = perm_dir.join("perm_ab.slang");
    std::fs::write(&path, source).expect("writing the permutation shader");
    path
}

/// The bake of the issue-48 permutation shader ([`permutations_ab_source`]): `-O 3`, two jobs.
fn permutations_ab_config(dir: &Path) -> BakeConfig {
    let mut config = BakeConfig::new(vec![permutations_ab_source(dir)]);
    config.jobs = 2;
    config.options.optimization = slangpack_writer::compile::Optimization::Maximal;
    config
}

/// The 100 permutations of the issue-48 shader ([`permutations_ab_source`]), baked at `-O 3`
/// by the real compiler.
///
/// # Panics
/// When Slang fails on the shader.
pub fn permutations_ab(dir: &Path) -> Vec<BakedEntry> {
    bake(&permutations_ab_config(dir))
        .expect("baking the permutations")
        .baked_entries()
        .expect("reading the permutations back")
}

/// Sizes of the issue-48 permutation shader ([`permutations_ab_source`]) baked at `-O 3`: the
/// default package, the raw layout, the SPIR-V alone, and the reference (its 100 modules as
/// one zstd stream plus one permutation's Slang JSON reflection, zstd: what a tool that
/// compresses its whole payload at once stores).
///
/// # Panics
/// When Slang fails on the shader.
pub fn permutations_ab_sizes(dir: &Path) -> Vec<(&'static str, u64)> {
    let config = permutations_ab_config(dir);
    let outcome = bake(&config).expect("baking the permutations");
    let entries = outcome
        .baked_entries()
        .expect("reading the permutations back");
    let json = slang_jsons(&config).into_iter().next().unwrap_or_default();
    vec![
        ("perm_ab_package", outcome.bytes.len() as u64),
        (
            "perm_ab_package_raw",
            assemble(&entries, true).map_or(0, |b| b.len() as u64),
        ),
        (
            "perm_ab_spirv",
            entries
                .iter()
                .flat_map(|e| &e.entry_points)
                .map(|ep| 4 * ep.spirv.len() as u64)
                .sum(),
        ),
        (
            "perm_ab_reference",
            spirv_stream(&entries) + zstd_len(json.as_bytes()),
        ),
    ]
}

/// Every `.slang` file directly under `tests/shaders` baked into a package of its own
/// (default options; files the default bake refuses, which need options of their own, are
/// left out), summed: the default packages, the raw layout, and each file's SPIR-V and Slang
/// JSON reflection as one zstd stream. Files declaring specialization constants are left out
/// too: Slang 2026.12's JSON reflection (`spReflection_ToJson`) throws a C++ exception on
/// arrays sized by one, which no Rust caller can catch (the process aborts).
///
/// # Panics
/// When the directory cannot be read.
pub fn test_shader_sizes() -> Vec<(&'static str, u64)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/shaders");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("reading tests/shaders")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "slang"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !text.contains("vk::constant_id") && !text.contains("SpecializationConstant")
        })
        .collect();
    files.sort();
    let (mut package, mut raw, mut reference, mut count) = (0, 0, 0, 0);
    for file in files {
        let mut config = BakeConfig::new(vec![file]);
        config.jobs = 2;
        let Ok(outcome) = bake(&config) else {
            continue;
        };
        let entries = outcome.baked_entries().expect("reading the package back");
        let jsons = slang_jsons(&config);
        let jsons: Vec<&[u8]> = jsons.iter().map(String::as_bytes).collect();
        package += outcome.bytes.len() as u64;
        raw += assemble(&entries, true).map_or(0, |b| b.len() as u64);
        reference += one_stream(&entries, &jsons);
        count += 1;
    }
    vec![
        ("test_shaders_files", count),
        ("test_shaders_package", package),
        ("test_shaders_package_raw", raw),
        ("test_shaders_reference", reference),
    ]
}

/// One reused zstd context per dictionary a [`Frame`] may need: none, the package's
/// `Dictionary`, its `TablesDictionary`.
pub struct Decompressors<'d> {
    plain: zstd::bulk::Decompressor<'d>,
    package: zstd::bulk::Decompressor<'d>,
    tables: zstd::bulk::Decompressor<'d>,
}

impl Decompressors<'static> {
    /// The contexts for `package`'s frames, each with its [`dictionary`].
    ///
    /// # Panics
    /// When zstd cannot make a context.
    #[must_use]
    pub fn of(package: &[u8]) -> Self {
        use slangpack_format::SectionKind;
        let with = |kind| {
            zstd::bulk::Decompressor::with_dictionary(&dictionary(package, kind)).expect("zstd")
        };
        Decompressors {
            plain: zstd::bulk::Decompressor::new().expect("zstd"),
            package: with(SectionKind::Dictionary),
            tables: with(SectionKind::TablesDictionary),
        }
    }
}

/// Decompresses every frame of `frames` with one reused context each (what the reader does
/// at open and load), with the dictionary each needs; returns the bytes produced.
///
/// # Panics
/// On a corrupt frame.
pub fn decompress_all(d: &mut Decompressors<'_>, frames: &[Frame], buf: &mut Vec<u8>) -> usize {
    let mut total = 0;
    for frame in frames {
        buf.clear();
        buf.reserve(frame.raw);
        let dctx = match frame.dictionary {
            FrameDictionary::Plain => &mut d.plain,
            FrameDictionary::Package => &mut d.package,
            FrameDictionary::Tables => &mut d.tables,
        };
        total += dctx
            .decompress_to_buffer(&frame.stored, buf)
            .expect("a valid zstd frame");
    }
    total
}

/// SPIR-V words as little-endian bytes (what a file holds; rspirv-reflect takes bytes).
pub fn spirv_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The axis [`permutations_100_source`] declares: values 1 ..= 100.
pub const PERMUTATIONS_100_AXIS: &str = "RADIUS";

/// Writes a small compute shader (a box blur over a structured buffer) declaring 100
/// permutations (`RADIUS` 1 ..= 100) to `dir/perm100/blur1d.slang` and returns its path.
///
/// # Panics
/// When the file cannot be written.
pub fn permutations_100_source(dir: &Path) -> PathBuf {
    let values: Vec<String> = (1..=100).map(|r| r.to_string()).collect();
    let source = format!(
        "//! slangpack-axis {PERMUTATIONS_100_AXIS} {}\n\
         RWStructuredBuffer<float> gData;\n\
         [shader(\"compute\")]\n\
         [numthreads(64, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID)\n\
         {{\n\
         \x20   float s = 0;\n\
         \x20   for (int i = -RADIUS; i <= RADIUS; i++)\n\
         \x20       s += gData[(id.x + i) & 1023];\n\
         \x20   gData[id.x] = s / float(2 * RADIUS + 1);\n\
         }}\n",
        values.join(" ")
    );
    let perm_dir = dir.join("perm100");
    std::fs::create_dir_all(&perm_dir).expect("creating the permutations directory");
    let path = perm_dir.join("blur1d.slang");
    std::fs::write(&path, source).expect("writing the permutation shader");
    path
}

/// Where a package's bytes go, as `(part, bytes)`: the header, the section directory and the
/// container tables (the compressed index, when there is one), the dictionary, the raw tables'
/// dictionary, the SPIR-V modules, the reflection blobs, and the rest (target code, padding).
/// The parts add up to the package's length.
///
/// # Panics
/// On a malformed package (the fixtures are baked by the writer).
pub fn where_the_bytes_go(package: &[u8]) -> [(&'static str, u64); 7] {
    use slangpack_format::SectionKind as Kind;
    let reader = slangpack_reader::Package::from_bytes(package).expect("a valid package");
    let (header, _) = FileHeader::read_from_prefix(package).expect("a package header");
    let compressed_index = header.has_compressed_index();
    let mut index = header.stored_directory_size();
    let (mut dictionary, mut tables, mut spirv, mut reflection) = (0, 0, 0, 0);
    for s in reader.sections() {
        let stored = s.stored_size();
        match s.section_kind() {
            Kind::Dictionary => dictionary += stored,
            Kind::TablesDictionary => tables += stored,
            Kind::Spirv => spirv += stored,
            Kind::Reflection => reflection += stored,
            kind if kind.is_container() && !compressed_index => index += stored,
            _ => {}
        }
    }
    let head = u64::from(header.header_size);
    let rest = package.len() as u64 - head - index - dictionary - tables - spirv - reflection;
    [
        ("header", head),
        ("directory and container tables", index),
        ("dictionary", dictionary),
        ("raw tables' dictionary", tables),
        ("SPIR-V", spirv),
        ("reflection", reflection),
        ("other sections and padding", rest),
    ]
}

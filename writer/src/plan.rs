//! The first step of a bake: from a [`BakeConfig`] to the [`Plan`], the jobs to answer.
//!
//! The inputs are discovered once, each manifest and each `.slang` input read once; every
//! permutation becomes a [`Job`] that carries everything the later steps ask of it (its key,
//! its options, its options hash, its source relative to the bake root), and a sharded bake's
//! slice is chosen here. Reuse, compilation and assembly (the `reuse`, `execute`,
//! `worker` and `bake` modules) read the plan and hand nothing back to it.

use crate::compile::CompileOptions;
use crate::config::BakeConfig;
pub use crate::config::Shard;
use crate::error::BakeError;
use crate::manifest::{self, Program};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use xxhash_rust::xxh3::Xxh3;

/// One compilation to make: a program source under a set of options, named by its key.
///
/// The permutations of a program share its source paths and its options (one allocation
/// each, however many permutations there are); a job owns its key and its defines.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Job {
    /// The canonical permutation key (see [`permutation_key`]).
    pub key: String,
    /// The main module's path.
    pub source: Arc<Path>,
    /// The main module's path relative to the bake root, as entries record their
    /// dependencies (see [`relative_to`]).
    pub relative: Arc<str>,
    /// The program's options, shared by its permutations; their `defines` are empty: this
    /// permutation's are [`Job::defines`] ([`Job::options`] puts the two together).
    pub program: Arc<CompileOptions>,
    /// This permutation's defines, sorted: the program's, then its axes' values.
    pub defines: Vec<(String, String)>,
    /// The hash of what makes this job's entry ([`options_hash`]): the entry records it, and
    /// reuse and the cache compare it.
    pub options_hash: u64,
    /// Whether a program without entry points is silently skipped (true for files found by
    /// scanning a directory: they are modules other programs import).
    pub skip_if_library: bool,
}

impl Job {
    /// This permutation's options: the program's, with [`Job::defines`] as their defines.
    #[must_use]
    pub fn options(&self) -> CompileOptions {
        let mut options = CompileOptions::clone(&self.program);
        options.defines.clone_from(&self.defines);
        options
    }
}

/// What the plan learnt of a `.slang` input while reading it for its axes.
#[derive(Clone, Copy, Debug)]
pub struct SourceFacts {
    /// The xxh3 of its bytes, as an entry records a dependency's content hash.
    pub content_hash: u64,
    /// Whether its text declares an entry point (see [`declares_shader`]).
    pub declares_shader: bool,
}

/// A bake's plan: the bake root and the jobs of this bake (a shard's slice, when sharded).
#[derive(Debug)]
pub struct Plan {
    /// The directory keys and dependency paths are relative to.
    pub root: PathBuf,
    /// The jobs, in the order the inputs name them (in key order when sharded).
    pub jobs: Vec<Job>,
    /// The `ShardPlan` record of a sharded bake, its `library_count` still 0 (assembly
    /// counts the libraries).
    pub shard: Option<slangpack_format::ShardRecord>,
    /// Whether SPIR-V is stored compressed: [`BakeConfig::compress_spirv`] (on by default),
    /// unless a manifest's `[package]` says `compress_spirv = false`.
    pub compress_spirv: bool,
    /// What reading the `.slang` inputs told, by their path relative to the root.
    pub sources: HashMap<String, SourceFacts>,
    /// The team cache of the first manifest with a `[cache]` table, used where the
    /// configuration names none.
    pub cache: Option<crate::config::CacheSettings>,
}

/// Plans the bake `config` names: manifests (`.toml`) expand into their programs and
/// permutations, `.slang` files into one job per combination of the axes they declare.
///
/// # Errors
/// Unreadable inputs, manifest errors, [`BakeError::Input`] when two jobs share a key or a
/// shard's counts do not fit the format.
pub fn plan(config: &BakeConfig) -> Result<Plan, BakeError> {
    let root = resolve_root(config.root.as_deref(), &config.inputs)?;
    // Slang's version without a global session: a rebake that reuses everything starts none.
    let slang_version = slangpack_slang::com::build_tag();
    let mut plan = Plan {
        jobs: Vec::new(),
        shard: None,
        compress_spirv: config.compress_spirv,
        sources: HashMap::new(),
        cache: None,
        root,
    };
    for (path, scanned) in discover(&config.inputs)? {
        let programs = if path.extension().is_some_and(|e| e == "toml") {
            let manifest = manifest::Manifest::read(&path)?;
            // Raw SPIR-V where the configuration or any manifest asks for it.
            plan.compress_spirv &= manifest.package.compress_spirv != Some(false);
            if let (None, Some(cache)) = (&plan.cache, &manifest.cache) {
                plan.cache = Some(cache.settings(&path)?);
            }
            manifest.programs(&path, &config.options)?
        } else {
            let text = std::fs::read_to_string(&path).map_err(|e| BakeError::io(&path, e))?;
            plan.sources.insert(
                relative_to(&path, &plan.root),
                SourceFacts {
                    content_hash: xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
                    declares_shader: declares_shader(&text),
                },
            );
            vec![Program {
                axes: manifest::source_axes(&text),
                source: path.clone(),
                options: config.options.clone(),
                scanned,
            }]
        };
        let before = plan.jobs.len();
        for program in &programs {
            permutations(program, &plan.root, &slang_version, &mut plan.jobs);
        }
        if plan.jobs.len() == before {
            return Err(BakeError::Input(format!(
                "{}: no [[program]] entries",
                path.display()
            )));
        }
    }
    crate::options::check_entry_point_files(
        &config.options.entry_points,
        plan.jobs.iter().map(|j| (&*j.source, &*j.relative)),
    )
    .map_err(BakeError::Input)?;
    let mut keys: Vec<(&str, &Path)> = plan
        .jobs
        .iter()
        .map(|j| (j.key.as_str(), &*j.source))
        .collect();
    keys.sort();
    if let Some(pair) = keys.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(BakeError::Input(format!(
            "two programs have the key `{}` ({} and {})",
            pair[0].0,
            pair[0].1.display(),
            pair[1].1.display()
        )));
    }
    if let Some(shard) = config.shard {
        plan.jobs.sort_by(|a, b| a.key.cmp(&b.key));
        let (plan_hash, plan_jobs) = plan_hash(&plan.jobs);
        plan.jobs = shard.select(std::mem::take(&mut plan.jobs));
        plan.shard = Some(slangpack_format::ShardRecord {
            shard_index: count_u32(shard.index())?,
            shard_count: count_u32(shard.count())?,
            plan_hash_lo: plan_hash as u32,
            plan_hash_hi: (plan_hash >> 32) as u32,
            plan_job_count: plan_jobs,
            job_count: count_u32(plan.jobs.len())?,
            library_count: 0,
            reserved: 0,
        });
    }
    Ok(plan)
}

/// Appends the jobs of `program`: one per combination of its axes (one when it has none).
fn permutations(program: &Program, root: &Path, slang_version: &str, jobs: &mut Vec<Job>) {
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (name, values) in &program.axes {
        combos = combos
            .into_iter()
            .flat_map(|combo| {
                values.iter().map(move |value| {
                    let mut next = combo.clone();
                    next.push((name.clone(), value.clone()));
                    next
                })
            })
            .collect();
    }
    let relative: Arc<str> = relative_to(&program.source, root).into();
    let source: Arc<Path> = program.source.as_path().into();
    let mut shared = program.options.clone();
    shared.entry_points =
        crate::options::entry_points_for(&shared.entry_points, &program.source, &relative);
    let program_defines = std::mem::take(&mut shared.defines);
    let shared = Arc::new(shared);
    // The permutations of a program differ only in defines the key spells, so they share
    // one options hash unless the defines cannot be spelled (see `options_hash`).
    let mut shared_hash = None;
    jobs.reserve_exact(combos.len());
    for combo in combos {
        let mut defines = program_defines.clone();
        let extra: BTreeMap<String, String> = combo.into_iter().collect();
        manifest::merge_defines(&mut defines, &extra);
        let mut job = Job {
            key: permutation_key(Path::new(&*relative), &defines),
            source: Arc::clone(&source),
            relative: Arc::clone(&relative),
            program: Arc::clone(&shared),
            defines,
            options_hash: 0,
            skip_if_library: program.scanned,
        };
        let spelled = key_spells_defines(&job.defines);
        job.options_hash = match shared_hash {
            Some(hash) if spelled => hash,
            _ => {
                let hash = options_hash(&job.options(), root, slang_version);
                shared_hash = spelled.then_some(hash);
                hash
            }
        };
        jobs.push(job);
    }
}

/// The canonical key of a permutation: the module path relative to the bake root with `/`
/// separators and without the `.slang` extension, then the defines sorted by name as
/// `?NAME=VALUE&NAME=VALUE` (nothing when there are none).
pub fn permutation_key(relative: &Path, defines: &[(String, String)]) -> String {
    let mut key: String = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let mut defines: Vec<&(String, String)> = defines.iter().collect();
    defines.sort();
    for (i, (name, value)) in defines.iter().enumerate() {
        key.push(if i == 0 { '?' } else { '&' });
        key.push_str(name);
        key.push('=');
        key.push_str(value);
    }
    key
}

impl Shard {
    /// The jobs of this slice, in key order.
    pub fn select(self, mut jobs: Vec<Job>) -> Vec<Job> {
        jobs.sort_by(|a, b| a.key.cmp(&b.key));
        jobs.into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count() == self.index() - 1)
            .map(|(_, job)| job)
            .collect()
    }
}

/// Expands the inputs: `.slang` files are taken as they are; directories are scanned
/// recursively for `.slang` files, in sorted order. Returns `(path, found_by_scan)`.
///
/// # Errors
/// [`BakeError::Io`] for unreadable inputs, [`BakeError::Input`] when nothing is found.
pub fn discover(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>, BakeError> {
    let mut found = Vec::new();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| BakeError::io(input, e))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            scan(input, &mut files)?;
            files.sort();
            found.extend(files.into_iter().map(|f| (f, true)));
        } else {
            found.push((input.clone(), false));
        }
    }
    if found.is_empty() {
        return Err(BakeError::Input(
            "no .slang files found in the inputs".into(),
        ));
    }
    Ok(found)
}

fn scan(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), BakeError> {
    let entries = std::fs::read_dir(dir).map_err(|e| BakeError::io(dir, e))?;
    for entry in entries {
        let path = entry.map_err(|e| BakeError::io(dir, e))?.path();
        if path.is_dir() {
            scan(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "slang") {
            out.push(path);
        }
    }
    Ok(())
}

/// The bake root: `root` canonicalized when given, else [`bake_root`] of the inputs.
///
/// # Errors
/// [`BakeError::Io`] when `root` cannot be resolved.
pub fn resolve_root(root: Option<&Path>, inputs: &[PathBuf]) -> Result<PathBuf, BakeError> {
    match root {
        Some(root) => root.canonicalize().map_err(|e| BakeError::io(root, e)),
        None => Ok(bake_root(inputs)),
    }
}

/// The directory keys and dependency paths are relative to: the common ancestor of the inputs
/// (a file input contributes its directory).
pub fn bake_root(inputs: &[PathBuf]) -> PathBuf {
    let dirs: Vec<PathBuf> = inputs
        .iter()
        .map(|p| {
            let p = p.canonicalize().unwrap_or_else(|_| p.clone());
            if p.is_dir() {
                p
            } else {
                p.parent().map(Path::to_path_buf).unwrap_or_default()
            }
        })
        .collect();
    let Some(first) = dirs.first() else {
        return PathBuf::from(".");
    };
    let mut root = first.clone();
    for dir in &dirs[1..] {
        while !dir.starts_with(&root) {
            if !root.pop() {
                break;
            }
        }
    }
    root
}

/// `path` relative to `root`, with `/` separators; paths outside the root keep their absolute
/// form (and so make the package depend on where it was baked).
pub fn relative_to(path: &Path, root: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let rel = path.strip_prefix(root).unwrap_or(&path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether `text` holds the word `shader` followed (after optional white space) by `(`: how
/// every `[shader("stage")]` attribute, or a macro making one, is spelled.
pub fn declares_shader(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices("shader").any(|(at, word)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let word_start = !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        word_start && text[at + word.len()..].trim_start().starts_with('(')
    })
}

/// A hash of the whole bake plan (every job's key and options hash, in key order) and its
/// job count: what the `ShardPlan` record of a sharded bake names (SPEC.md 5.9). `jobs` are in
/// key order.
fn plan_hash(jobs: &[Job]) -> (u64, u32) {
    let mut h = Xxh3::new();
    h.update(b"slangpack-plan-v1");
    for job in jobs {
        h.update(&(job.key.len() as u64).to_le_bytes());
        h.update(job.key.as_bytes());
        h.update(&job.options_hash.to_le_bytes());
    }
    (h.digest(), u32::try_from(jobs.len()).unwrap_or(u32::MAX))
}

/// `n` as a record's `u32` count.
pub(crate) fn count_u32(n: usize) -> Result<u32, BakeError> {
    u32::try_from(n).map_err(|_| BakeError::Input(format!("{n} permutations are too many")))
}

/// A hash of what made an entry: this writer build ([`crate::WRITER_BUILD`]), the format
/// version, the Slang version and every option, with include directories relative to the
/// bake root so the hash does not depend on where the tree sits, and without the defines when
/// the permutation key spells them (no name or value holds `?`, `&` or `=`). An incremental
/// rebake reuses an entry only when its key, this hash and every dependency's content hash
/// still match.
pub fn options_hash(options: &CompileOptions, root: &Path, slang_version: &str) -> u64 {
    options_hash_of(options, root, slang_version, crate::WRITER_BUILD)
}

/// Whether the permutation key spells every one of `defines` unambiguously, so that they
/// stay out of the options hash.
fn key_spells_defines(defines: &[(String, String)]) -> bool {
    let spelled = |s: &String| !s.contains(['?', '&', '=']);
    defines
        .iter()
        .all(|(name, value)| spelled(name) && spelled(value))
}

/// [`options_hash`] for the writer build `writer`.
fn options_hash_of(
    options: &CompileOptions,
    root: &Path,
    slang_version: &str,
    writer: &str,
) -> u64 {
    let mut h = Xxh3::new();
    let mut field = |s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    field("slangpack-options-v2");
    field(writer);
    field(&format!(
        "format {}.{}",
        slangpack_format::VERSION_MAJOR,
        slangpack_format::VERSION_MINOR
    ));
    field(slang_version);
    field(&options.profile);
    field(&format!("{:?}", options.optimization));
    field(&format!("{:?}", options.matrix_layout));
    field(&format!("{:?}", options.debug_level));
    field(&format!("{:?}", options.buffer_layout));
    field(&format!("{:?}", options.floating_point_mode));
    field(if options.keep_entry_point_names {
        "slang entry names"
    } else {
        "main"
    });
    field(&format!("{:?}", options.binding_shifts));
    field(&format!("{:?}", options.globals_binding));
    field(&format!("{:?}", options.warnings));
    for dir in &options.include_dirs {
        field(&relative_to(dir, root));
    }
    // The defines are spelled by the key (`pbr?MSAA=4&SHADOWS=1`), which an entry must match
    // to be reused; they go into the hash only when the key cannot spell them unambiguously,
    // so that the permutations of a program share one options hash (in a package with a
    // compressed index, 8 bytes less per entry).
    if !key_spells_defines(&options.defines) {
        let mut defines = options.defines.clone();
        defines.sort();
        for (name, value) in &defines {
            field(name);
            field(value);
        }
    }
    for name in options.entry_points.iter().chain(&options.modules) {
        field(name);
    }
    for (ty, interface) in &options.conformances {
        field(ty);
        field(interface);
    }
    for ty in &options.type_arguments {
        field(ty);
    }
    for capability in &options.capabilities {
        field(capability);
    }
    field("targets");
    for target in &options.targets {
        field(target.name());
    }
    h.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_canonical() {
        let defines = vec![
            ("B".to_string(), "2".to_string()),
            ("A".to_string(), "1".to_string()),
        ];
        assert_eq!(
            permutation_key(Path::new("dir/pbr.slang"), &defines),
            "dir/pbr?A=1&B=2"
        );
        assert_eq!(permutation_key(Path::new("blur.slang"), &[]), "blur");
    }

    fn jobs(keys: &[&str]) -> Vec<Job> {
        keys.iter()
            .map(|key| Job {
                key: key.to_string(),
                source: Path::new("a.slang").into(),
                relative: "a.slang".into(),
                program: Arc::default(),
                defines: Vec::new(),
                options_hash: 0,
                skip_if_library: false,
            })
            .collect()
    }

    #[test]
    fn shards_partition_the_keys_in_balanced_stable_slices() {
        let keys = ["e", "a", "g", "c", "b", "f", "d"];
        let mut reversed = keys;
        reversed.reverse();
        for count in 1..=9 {
            let mut seen = Vec::new();
            for index in 1..=count {
                let shard = Shard::new(index, count).unwrap();
                let slice: Vec<String> = shard
                    .select(jobs(&keys))
                    .into_iter()
                    .map(|j| j.key)
                    .collect();
                // Independent of the order the jobs came in.
                let again: Vec<String> = shard
                    .select(jobs(&reversed))
                    .into_iter()
                    .map(|j| j.key)
                    .collect();
                assert_eq!(slice, again);
                let expected = keys.len() / count + usize::from(index <= keys.len() % count);
                assert_eq!(slice.len(), expected, "{shard}");
                seen.extend(slice);
            }
            seen.sort();
            assert_eq!(seen, ["a", "b", "c", "d", "e", "f", "g"], "N = {count}");
        }
        let two: Vec<String> = "2/3"
            .parse::<Shard>()
            .unwrap()
            .select(jobs(&keys))
            .into_iter()
            .map(|j| j.key)
            .collect();
        assert_eq!(two, ["b", "e"]);
    }

    #[test]
    fn shard_specs_are_checked() {
        assert_eq!(
            " 3 / 7".parse::<Shard>().unwrap(),
            Shard::new(3, 7).unwrap()
        );
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    /// The jobs of `s.slang` under `axes`, each checked to carry its own options' hash.
    fn jobs_of(axes: &[(&str, &[&str])]) -> Vec<Job> {
        let root = std::env::temp_dir();
        let program = Program {
            source: root.join("s.slang"),
            options: CompileOptions::default(),
            axes: axes
                .iter()
                .map(|(name, values)| {
                    (
                        name.to_string(),
                        values.iter().map(|v| v.to_string()).collect(),
                    )
                })
                .collect(),
            scanned: false,
        };
        let mut jobs = Vec::new();
        permutations(&program, &root, "2026.12", &mut jobs);
        for job in &jobs {
            assert_eq!(
                job.options_hash,
                options_hash(&job.options(), &root, "2026.12")
            );
        }
        jobs
    }

    #[test]
    fn permutations_cover_every_combination_with_canonical_keys() {
        let jobs = jobs_of(&[("B", &["0", "1"]), ("A", &["x", "y"])]);
        let keys: Vec<&str> = jobs.iter().map(|j| j.key.as_str()).collect();
        assert_eq!(keys, ["s?A=x&B=0", "s?A=y&B=0", "s?A=x&B=1", "s?A=y&B=1"]);
    }

    #[test]
    fn a_shared_hash_is_only_taken_where_the_key_spells_the_defines() {
        let jobs = jobs_of(&[("A", &["1", "2", "1&B=2", "1&B=3"])]);
        assert_eq!(jobs[0].options_hash, jobs[1].options_hash);
        assert_ne!(jobs[1].options_hash, jobs[2].options_hash);
        assert_ne!(jobs[2].options_hash, jobs[3].options_hash);
    }

    #[test]
    fn shader_attributes_are_found_in_text() {
        assert!(declares_shader("[shader(\"compute\")]"));
        assert!(declares_shader("#define CS [ shader (\"compute\") ]"));
        assert!(!declares_shader(
            "// no shaders here\nmodule common;\nfloat myshader(x);"
        ));
        assert!(!declares_shader("float shader_scale(float x);"));
    }

    #[test]
    fn defines_the_key_spells_are_left_out_of_the_options_hash() {
        let root = Path::new("/");
        let with = |defines: &[(&str, &str)]| {
            let options = CompileOptions {
                defines: defines
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
                ..CompileOptions::default()
            };
            options_hash(&options, root, "2026.12")
        };
        // Permutations share one hash; their keys tell them apart.
        assert_eq!(with(&[("RADIUS", "1")]), with(&[("RADIUS", "2")]));
        assert_eq!(with(&[]), with(&[("A", "1"), ("B", "2")]));
        // `A=1&B=2` as one value spells the key of two defines: the hash tells them apart.
        assert_ne!(with(&[("A", "1&B=2")]), with(&[("A", "1"), ("B", "2")]));
        assert_ne!(with(&[("A", "1&B=2")]), with(&[("A", "1&B=3")]));
    }

    #[test]
    fn options_hash_names_the_writer_build_and_slang() {
        let (options, root) = (CompileOptions::default(), Path::new("/"));
        let this = options_hash_of(&options, root, "2026.12", crate::WRITER_BUILD);
        assert_eq!(this, options_hash(&options, root, "2026.12"));
        assert_ne!(
            this,
            options_hash_of(&options, root, "2026.12", "0.0.9+src.0")
        );
        assert_ne!(this, options_hash(&options, root, "2026.13"));
        assert!(crate::WRITER_BUILD.starts_with(env!("CARGO_PKG_VERSION")));
        assert_eq!(
            crate::WRITER_BUILD.len(),
            env!("CARGO_PKG_VERSION").len() + 5 + 16
        );
    }
}

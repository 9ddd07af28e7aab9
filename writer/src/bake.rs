//! From compiled programs to package bytes: the bake configuration, the per-permutation
//! results and their assembly through `slangpack_format::PackageBuilder`.

use crate::compile::{CompileOptions, CompiledProgram};
use crate::error::BakeError;
use crate::jobs::{self, Job, Shard};
use crate::manifest;
use slangpack_reader::Package;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// Everything a bake needs: inputs, compile options, and how to write the package.
#[derive(Clone)]
pub struct BakeConfig {
    /// `.slang` files and directories (scanned recursively).
    pub inputs: Vec<PathBuf>,
    /// The directory keys and dependency paths are relative to; `None` takes the common
    /// ancestor of the inputs.
    pub root: Option<PathBuf>,
    /// Compile options shared by every program.
    pub options: CompileOptions,
    /// Store reflection zstd-compressed (the default) or raw.
    pub compress: bool,
    /// Store SPIR-V zstd-compressed, with a dictionary shared across the package's modules
    /// where it helps (`--compress-spirv`, or `compress_spirv = true` in a manifest's
    /// `[package]` table); off by default, so that SPIR-V is served straight from the mapping.
    pub compress_spirv: bool,
    /// Worker threads (each with its own Slang global session).
    pub jobs: usize,
    /// Keep baking the other permutations when one fails (it is left out and reported).
    pub keep_going: bool,
    /// A package from an earlier bake whose entries are reused when their key, options hash
    /// and every dependency's content hash still match (an incremental rebake).
    pub previous: Option<PathBuf>,
    /// Called from the workers as each permutation finishes: `(finished, total, key)`.
    pub progress: Option<std::sync::Arc<ProgressFn>>,
    /// Bake only this slice of the permutations (`--shard K/N`); the slices' packages merge
    /// into exactly the package of a whole bake. A slice without entries (more slices than
    /// permutations) gives a package without entries.
    pub shard: Option<Shard>,
    /// Compile in this process's threads instead of worker processes (`--in-process`): a
    /// compiler crash then ends the whole bake. For debugging; off by default where workers
    /// are available (Linux, see [`crate::worker`]).
    pub in_process: bool,
    /// Limits of each compile job in a worker process.
    pub limits: crate::worker::Limits,
    /// A shared cache directory (`--cache DIR`, see [`crate::cache`]): entries found there
    /// for the inputs as they are are taken instead of compiled, and compiled ones are stored.
    pub cache: Option<PathBuf>,
    /// A remote cache speaking the Bazel remote-cache HTTP protocol (`--cache-url`,
    /// `http://host[:port][/path]`), asked after [`BakeConfig::cache`]; see [`crate::cache`].
    pub cache_url: Option<String>,
}

/// A progress callback: `(finished, total, key)`.
pub type ProgressFn = dyn Fn(usize, usize, &str) + Send + Sync;

impl std::fmt::Debug for BakeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BakeConfig")
            .field("inputs", &self.inputs)
            .field("root", &self.root)
            .field("options", &self.options)
            .field("compress", &self.compress)
            .field("compress_spirv", &self.compress_spirv)
            .field("jobs", &self.jobs)
            .field("keep_going", &self.keep_going)
            .field("previous", &self.previous)
            .field("progress", &self.progress.is_some())
            .field("shard", &self.shard)
            .field("in_process", &self.in_process)
            .field("limits", &self.limits)
            .field("cache", &self.cache)
            .field("cache_url", &self.cache_url)
            .finish()
    }
}

impl BakeConfig {
    /// A configuration baking `inputs` with default options on all cores.
    pub fn new(inputs: Vec<PathBuf>) -> BakeConfig {
        BakeConfig {
            inputs,
            root: None,
            options: CompileOptions::default(),
            compress: true,
            compress_spirv: false,
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
            keep_going: false,
            previous: None,
            progress: None,
            shard: None,
            in_process: !crate::worker::available(),
            limits: crate::worker::Limits::default(),
            cache: None,
            cache_url: None,
        }
    }
}

use slangpack_pack::assemble::BakedEntry;

/// What a bake produced.
#[derive(Debug)]
pub struct BakeOutcome {
    /// The package bytes.
    pub bytes: Vec<u8>,
    /// The baked permutations, in key order.
    pub entries: Vec<BakedEntry>,
    /// Permutations that failed and were left out (only with `keep_going`).
    pub failures: Vec<BakeError>,
    /// How many entries were taken from the previous package instead of being recompiled.
    pub reused: usize,
    /// How many programs went to Slang (0: nothing changed, and no Slang session started).
    pub compiled: usize,
    /// The keys of the entries that were compiled rather than reused, in key order.
    pub compiled_keys: Vec<String>,
    /// How many permutations were taken from [`BakeConfig::cache`] (entries, and modules
    /// without entry points) instead of being compiled.
    pub from_cache: usize,
    /// What went wrong with the cache (never an error: the entry was compiled instead).
    pub cache_warnings: Vec<String>,
    /// Whether the package was assembled. A rebake that reuses every entry of the previous
    /// package, and stores them as that package does, takes its bytes as they are instead.
    pub assembled: bool,
}

/// Compiles everything `config` names and assembles the package in memory.
///
/// # Errors
/// The first compile error (or, with `keep_going`, an error when every permutation failed),
/// I/O errors reading inputs, and [`BakeError::Input`] for unusable inputs.
pub fn bake(config: &BakeConfig) -> Result<BakeOutcome, BakeError> {
    let root = match &config.root {
        Some(root) => root.canonicalize().map_err(|e| BakeError::io(root, e))?,
        None => jobs::bake_root(&config.inputs),
    };
    let mut jobs = plan(config, &root)?;
    // Slang's version without a global session: a rebake that reuses everything starts none.
    let slang_version = slangpack_slang::com::build_tag();
    let mut shard_record = None;
    if let Some(shard) = config.shard {
        let (plan_hash, plan_jobs) = plan_hash(&jobs, &root, &slang_version);
        jobs = shard.select(jobs);
        shard_record = Some(slangpack_format::ShardRecord {
            shard_index: count_u32(shard.index())?,
            shard_count: count_u32(shard.count())?,
            plan_hash_lo: plan_hash as u32,
            plan_hash_hi: (plan_hash >> 32) as u32,
            plan_job_count: plan_jobs,
            job_count: count_u32(jobs.len())?,
            library_count: 0,
            reserved: 0,
        });
    }
    // An unreadable or invalid previous package only means nothing is reused.
    let previous = config
        .previous
        .as_ref()
        .and_then(|path| Package::open(path).ok());
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let progress = |key: &str| {
        if let Some(progress) = &config.progress {
            let done = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(done, jobs.len(), key);
        }
    };

    // What the previous package still answers (hashing inputs only), then the cache, then
    // the compilations.
    let mut unchanged = Unchanged::new(previous.as_ref(), &root);
    let mut cache = match (&config.cache, &config.cache_url) {
        (None, None) => None,
        (dir, url) => Some(
            crate::cache::Cache::new(dir.as_deref(), url.as_deref(), &root)
                .map_err(BakeError::Input)?,
        ),
    };
    // Per job, in job order: its outcome, or `None` until it is compiled.
    let mut results: Vec<Option<JobOutcome>> = Vec::new();
    let mut to_compile = Vec::new();
    for job in &jobs {
        let options_hash = options_hash(&job.options, &root, &slang_version);
        if let Some(entry) = unchanged.entry(job, options_hash) {
            results.push(Some(Ok(Some((entry, Origin::Previous)))));
            progress(&job.key);
        } else if unchanged.is_library(job) {
            results.push(Some(Ok(None)));
            progress(&job.key);
        } else if let Some(found) = cache.as_mut().and_then(|c| c.lookup(job, options_hash)) {
            // Counted as neither reused (it is not the previous package's) nor compiled.
            results.push(Some(Ok(match found {
                crate::cache::Cached::Entry(entry) => Some((entry, Origin::Cache)),
                crate::cache::Cached::Library => None,
            })));
            progress(&job.key);
        } else {
            results.push(None);
            to_compile.push((job.clone(), options_hash));
        }
    }
    let compiled = to_compile.len();
    let outcomes = if config.in_process {
        let compile_jobs: Vec<Job> = to_compile.iter().map(|(job, _)| job.clone()).collect();
        let hashes: HashMap<&str, u64> = to_compile
            .iter()
            .map(|(job, hash)| (job.key.as_str(), *hash))
            .collect();
        jobs::compile_all(
            &compile_jobs,
            config.jobs,
            config.keep_going,
            |compiler, job| {
                let options_hash = hashes.get(job.key.as_str()).copied().unwrap_or_default();
                let result = bake_job(compiler, job, &root, options_hash);
                progress(&job.key);
                result
            },
        )?
    } else {
        crate::worker::compile_all(
            &to_compile,
            &root,
            config.jobs,
            config.keep_going,
            config.limits,
            &progress,
        )?
    };
    if let Some(cache) = &mut cache {
        for ((job, options_hash), outcome) in to_compile.iter().zip(&outcomes) {
            if let Ok(entry) = outcome {
                cache.store(job, *options_hash, entry.as_ref());
            }
        }
    }
    let outcomes: Vec<JobOutcome> = outcomes
        .into_iter()
        .map(|r| r.map(|entry| entry.map(|e| (e, Origin::Compiled))))
        .collect();
    let mut outcomes = outcomes.into_iter();
    let results: Vec<_> = results
        .into_iter()
        .filter_map(|slot| slot.or_else(|| outcomes.next()))
        .collect();
    let mut entries = Vec::new();
    let mut failures = Vec::new();
    let mut reused = 0;
    let mut compiled_keys = Vec::new();
    let mut libraries = 0;
    for result in results {
        match result {
            Ok(Some((entry, origin))) => {
                reused += usize::from(origin == Origin::Previous);
                if origin == Origin::Compiled {
                    compiled_keys.push(entry.key.clone());
                }
                entries.push(entry);
            }
            Ok(None) => libraries += 1,
            Err(e) => failures.push(e),
        }
    }
    if entries.is_empty() && (config.shard.is_none() || !failures.is_empty()) {
        return Err(failures
            .into_iter()
            .next()
            .unwrap_or_else(|| BakeError::Input("the inputs hold no entry points".into())));
    }
    entries.sort_by(|a, b| a.key.cmp(&b.key));
    compiled_keys.sort();
    let compress_spirv = config.compress_spirv || manifests_compress_spirv(&config.inputs)?;
    // Every entry of the previous package reused, nothing else baked, stored alike: assembling
    // would give the previous package byte for byte (assembly is deterministic, and the
    // entries' options hashes say that this writer build made that package).
    if let Some(record) = &mut shard_record {
        record.library_count = count_u32(libraries)?;
    }
    let unchanged_package = previous.as_ref().filter(|previous| {
        previous.shard_plan().ok().flatten() == shard_record
            && failures.is_empty()
            && reused == entries.len()
            && previous.len() == entries.len()
            && slangpack_pack::assemble::stored_as(previous, config.compress, compress_spirv)
    });
    let bytes = match unchanged_package {
        Some(previous) => previous.as_bytes().to_vec(),
        None => slangpack_pack::assemble::assemble_shard(
            &entries,
            config.compress,
            compress_spirv,
            shard_record,
        )?,
    };
    Ok(BakeOutcome {
        bytes,
        entries,
        failures,
        reused,
        compiled,
        compiled_keys,
        from_cache: cache.as_ref().map_or(0, |c| c.hits),
        cache_warnings: cache.map(|c| c.warnings).unwrap_or_default(),
        assembled: unchanged_package.is_none(),
    })
}

/// A hash of the whole bake plan (every job's key and options hash, in key order) and its
/// job count: what the `ShardPlan` record of a sharded bake names (SPEC.md 5.9).
fn plan_hash(jobs: &[Job], root: &Path, slang_version: &str) -> (u64, u32) {
    let mut keyed: Vec<(&str, u64)> = jobs
        .iter()
        .map(|job| {
            (
                job.key.as_str(),
                options_hash(&job.options, root, slang_version),
            )
        })
        .collect();
    keyed.sort_unstable();
    let mut h = Xxh3::new();
    h.update(b"slangpack-plan-v1");
    for (key, options) in &keyed {
        h.update(&(key.len() as u64).to_le_bytes());
        h.update(key.as_bytes());
        h.update(&options.to_le_bytes());
    }
    (h.digest(), u32::try_from(keyed.len()).unwrap_or(u32::MAX))
}

fn count_u32(n: usize) -> Result<u32, BakeError> {
    u32::try_from(n).map_err(|_| BakeError::Input(format!("{n} permutations are too many")))
}

/// Whether a manifest among `inputs` asks for compressed SPIR-V (`[package] compress_spirv`).
fn manifests_compress_spirv(inputs: &[PathBuf]) -> Result<bool, BakeError> {
    for (path, _) in jobs::discover(inputs)? {
        if path.extension().is_some_and(|e| e == "toml")
            && manifest::package_options(&path)?.compress_spirv == Some(true)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Expands the inputs into jobs: manifests (`.toml`) into their programs and permutations,
/// `.slang` files into one job per combination of the axes they declare.
///
/// # Errors
/// Unreadable inputs, manifest errors, and [`BakeError::Input`] when two jobs share a key.
pub fn plan(config: &BakeConfig, root: &Path) -> Result<Vec<Job>, BakeError> {
    let mut jobs = Vec::new();
    for (path, scanned) in jobs::discover(&config.inputs)? {
        if path.extension().is_some_and(|e| e == "toml") {
            jobs.extend(manifest::jobs_from_manifest(&path, root, &config.options)?);
        } else {
            jobs.extend(manifest::jobs_from_source(
                &path,
                root,
                &config.options,
                scanned,
            )?);
        }
    }
    let mut keys: Vec<(&str, &Path)> = jobs
        .iter()
        .map(|j| (j.key.as_str(), j.source.as_path()))
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
    Ok(jobs)
}

/// A job's outcome: its entry and where it came from, nothing (a library module), or the
/// error that left it out.
type JobOutcome = Result<Option<(BakedEntry, Origin)>, BakeError>;

/// Where an entry of a bake came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// The previous package (an incremental rebake).
    Previous,
    /// The shared cache.
    Cache,
    /// Slang.
    Compiled,
}

/// What the previous package answers without compiling: its entries whose options and
/// dependencies are unchanged, and the library modules it knows. Each file is read and hashed
/// once per bake, however many permutations depend on it.
struct Unchanged<'a> {
    previous: Option<&'a Package>,
    root: &'a Path,
    /// Content hash per dependency path (as stored: relative to the root); `None` when the
    /// file cannot be read.
    hashes: HashMap<String, Option<u64>>,
    /// Every dependency the previous package records, with its hash then.
    recorded: Option<HashMap<String, u64>>,
}

impl<'a> Unchanged<'a> {
    fn new(previous: Option<&'a Package>, root: &'a Path) -> Self {
        Unchanged {
            previous,
            root,
            hashes: HashMap::new(),
            recorded: None,
        }
    }

    /// The content hash of the dependency at `path` (relative to the root, or absolute).
    fn content_hash(&mut self, path: &str) -> Option<u64> {
        let root = self.root;
        *self.hashes.entry(path.to_string()).or_insert_with(|| {
            std::fs::read(root.join(path))
                .ok()
                .map(|bytes| xxhash_rust::xxh3::xxh3_64(&bytes))
        })
    }

    /// The previous package's entry for `job`, if its options and every dependency are
    /// unchanged.
    fn entry(&mut self, job: &Job, options_hash: u64) -> Option<BakedEntry> {
        let entry = self.previous?.load(&job.key).ok()?;
        if entry.options_hash() != options_hash {
            return None;
        }
        let source = jobs::relative_to(&job.source, self.root);
        let mut has_source = false;
        for dep in entry.dependencies() {
            if self.content_hash(dep.path()) != Some(dep.content_hash()) {
                return None;
            }
            has_source |= dep.path() == source;
        }
        if !has_source {
            return None;
        }
        // An entry without reflection (not the writer's) is recompiled.
        slangpack_pack::merge::baked_entry(&entry).ok()
    }

    /// Whether `job` is a module without entry points found by scanning a directory that
    /// needs no compiling to know it: the previous package has no entry for it, records it,
    /// unchanged, as a dependency of an entry (so it compiled as an import), and its text has
    /// no `shader(`, without which it declares no entry point (`[shader("...")]`).
    fn is_library(&mut self, job: &Job) -> bool {
        let Some(previous) = self.previous else {
            return false;
        };
        if !job.skip_if_library || previous.find(&job.key).is_some() {
            return false;
        }
        let recorded = self.recorded.get_or_insert_with(|| {
            previous
                .entries()
                .flatten()
                .flat_map(|entry| {
                    entry
                        .dependencies()
                        .map(|dep| (dep.path().to_string(), dep.content_hash()))
                        .collect::<Vec<_>>()
                })
                .collect()
        });
        let source = jobs::relative_to(&job.source, self.root);
        let Some(&then) = recorded.get(&source) else {
            return false;
        };
        if self.content_hash(&source) != Some(then) {
            return false;
        }
        std::fs::read_to_string(&job.source).is_ok_and(|text| !declares_shader(&text))
    }
}

/// Whether `text` holds the word `shader` followed (after optional white space) by `(`: how
/// every `[shader("stage")]` attribute, or a macro making one, is spelled.
fn declares_shader(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices("shader").any(|(at, word)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let word_start = !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        word_start && text[at + word.len()..].trim_start().starts_with('(')
    })
}

/// Bakes and writes the package to `output` atomically (nothing is written on failure). An
/// `output` that already holds exactly these bytes is left untouched (no write, the same
/// inode and modification time); with `output` as [`BakeConfig::previous`] and nothing
/// changed, nothing is assembled either (see [`BakeOutcome::assembled`]).
///
/// # Errors
/// As [`bake()`], plus [`BakeError::Io`] when the output cannot be written.
pub fn bake_to_file(config: &BakeConfig, output: &Path) -> Result<BakeOutcome, BakeError> {
    let outcome = bake(config)?;
    if std::fs::read(output).is_ok_and(|old| old == outcome.bytes) {
        // Unchanged: leave the file (and its modification time) alone.
        return Ok(outcome);
    }
    slangpack_pack::write_atomically(output, &outcome.bytes)?;
    Ok(outcome)
}

/// Compiles one job and bakes its entry: what a compile worker does for each job it is given.
/// `Ok(None)` is a library module a directory scan found.
///
/// # Errors
/// As [`jobs::compile_job`], and the bind view's and the targets' checks.
pub(crate) fn bake_job(
    compiler: &crate::compile::Compiler,
    job: &Job,
    root: &Path,
    options_hash: u64,
) -> Result<Option<BakedEntry>, BakeError> {
    match jobs::compile_job(compiler, job, root)? {
        Some(program) => bake_entry(job, &program, root, options_hash).map(Some),
        None => Ok(None),
    }
}

fn bake_entry(
    job: &Job,
    program: &CompiledProgram,
    root: &Path,
    options_hash: u64,
) -> Result<BakedEntry, BakeError> {
    let mut builder = crate::reflect::build_reflection(program)?;
    crate::bind_view::build_bind_view(program, &job.key, &mut builder)?;
    let mut skipped = Vec::new();
    let entry_points =
        crate::targets::build_target_views(program, &job.key, &mut builder, &mut skipped)?;
    let reflection = builder.finish();
    let mut dependencies = Vec::new();
    for path in &program.dependencies {
        let bytes = std::fs::read(path).map_err(|e| BakeError::io(path, e))?;
        dependencies.push((
            jobs::relative_to(path, root),
            xxhash_rust::xxh3::xxh3_64(&bytes),
        ));
    }
    dependencies.sort();
    dependencies.dedup();
    Ok(BakedEntry {
        key: job.key.clone(),
        entry_points,
        reflection,
        dependencies,
        options_hash,
        warnings: skipped
            .iter()
            .fold(program.warnings.clone(), |mut all, line| {
                if !all.is_empty() && !all.ends_with('\n') {
                    all.push('\n');
                }
                all.push_str(&format!("warning: {line}\n"));
                all
            }),
    })
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
        field(&jobs::relative_to(dir, root));
    }
    // The defines are spelled by the key (`pbr?MSAA=4&SHADOWS=1`), which an entry must match
    // to be reused; they go into the hash only when the key cannot spell them unambiguously,
    // so that the permutations of a program share one options hash (in a package with a
    // compressed index, 8 bytes less per entry).
    let spelled = |s: &String| !s.contains(['?', '&', '=']);
    if !options
        .defines
        .iter()
        .all(|(name, value)| spelled(name) && spelled(value))
    {
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
    fn slang_version_without_a_session_is_the_sessions() {
        let tag = slangpack_slang::com::build_tag();
        assert!(!tag.is_empty());
        let compiler = crate::compile::Compiler::new().unwrap();
        assert_eq!(compiler.version(), tag);
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

//! From compiled programs to package bytes: the bake configuration, the per-permutation
//! results and their assembly through `slangpack_format::PackageBuilder`.

use crate::bake::{self, Job, Shard};
use crate::compile::{CompileOptions, CompiledProgram};
use crate::error::BakeError;
use crate::manifest;
use slangpack_reader::Package;
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
            .field("jobs", &self.jobs)
            .field("keep_going", &self.keep_going)
            .field("previous", &self.previous)
            .field("progress", &self.progress.is_some())
            .field("shard", &self.shard)
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
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
            keep_going: false,
            previous: None,
            progress: None,
            shard: None,
        }
    }
}

pub use slangpack_tools::assemble::{assemble, BakedEntry};

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
}

/// Compiles everything `config` names and assembles the package in memory.
///
/// # Errors
/// The first compile error (or, with `keep_going`, an error when every permutation failed),
/// I/O errors reading inputs, and [`BakeError::Input`] for unusable inputs.
pub fn bake(config: &BakeConfig) -> Result<BakeOutcome, BakeError> {
    let root = match &config.root {
        Some(root) => root.canonicalize().map_err(|e| BakeError::io(root, e))?,
        None => bake::bake_root(&config.inputs),
    };
    let mut jobs = plan(config, &root)?;
    if let Some(shard) = config.shard {
        jobs = shard.select(jobs);
    }
    // An unreadable or invalid previous package only means nothing is reused.
    let previous = config
        .previous
        .as_ref()
        .and_then(|path| Package::open(path).ok());
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let results = bake::compile_all(&jobs, config.jobs, config.keep_going, |compiler, job| {
        let options_hash = options_hash(&job.options, &root, compiler.version());
        let result = match previous
            .as_ref()
            .and_then(|p| reuse(p, job, &root, options_hash))
        {
            Some(entry) => Ok(Some((entry, true))),
            None => match bake::compile_job(compiler, job, &root) {
                Ok(Some(program)) => {
                    bake_entry(job, &program, &root, options_hash).map(|e| Some((e, false)))
                }
                Ok(None) => Ok(None),
                Err(e) => Err(e),
            },
        };
        if let Some(progress) = &config.progress {
            let done = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(done, jobs.len(), &job.key);
        }
        result
    })?;
    let mut entries = Vec::new();
    let mut failures = Vec::new();
    let mut reused = 0;
    for result in results {
        match result {
            Ok(Some((entry, was_reused))) => {
                reused += usize::from(was_reused);
                entries.push(entry);
            }
            Ok(None) => {}
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
    let bytes = assemble(&entries, config.compress)?;
    Ok(BakeOutcome {
        bytes,
        entries,
        failures,
        reused,
    })
}

/// Expands the inputs into jobs: manifests (`.toml`) into their programs and permutations,
/// `.slang` files into one job per combination of the axes they declare.
///
/// # Errors
/// Unreadable inputs, manifest errors, and [`BakeError::Input`] when two jobs share a key.
pub fn plan(config: &BakeConfig, root: &Path) -> Result<Vec<Job>, BakeError> {
    let mut jobs = Vec::new();
    for (path, scanned) in bake::discover(&config.inputs)? {
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

/// The previous package's entry for `job`, if its options and every dependency are unchanged.
fn reuse(previous: &Package, job: &Job, root: &Path, options_hash: u64) -> Option<BakedEntry> {
    let entry = previous.entry(&job.key)?;
    if entry.options_hash() != options_hash || !entry.has_reflection() {
        return None;
    }
    let mut dependencies = Vec::new();
    for dep in entry.dependencies() {
        let bytes = std::fs::read(root.join(dep.path())).ok()?;
        if xxhash_rust::xxh3::xxh3_64(&bytes) != dep.content_hash() {
            return None;
        }
        dependencies.push((dep.path().to_string(), dep.content_hash()));
    }
    let source = bake::relative_to(&job.source, root);
    if !dependencies.iter().any(|(path, _)| *path == source) {
        return None;
    }
    Some(BakedEntry {
        key: job.key.clone(),
        entry_points: entry.entry_points().map(|ep| (&ep).into()).collect(),
        reflection: entry.reflection().as_bytes().to_vec(),
        dependencies,
        options_hash,
        warnings: String::new(),
    })
}

/// Bakes and writes the package to `output` atomically (nothing is written on failure).
///
/// # Errors
/// As [`bake()`], plus [`BakeError::Io`] when the output cannot be written.
pub fn bake_to_file(config: &BakeConfig, output: &Path) -> Result<BakeOutcome, BakeError> {
    let outcome = bake(config)?;
    if std::fs::read(output).is_ok_and(|old| old == outcome.bytes) {
        // Unchanged: leave the file (and its modification time) alone.
        return Ok(outcome);
    }
    slangpack_tools::write_atomically(output, &outcome.bytes)?;
    Ok(outcome)
}

fn bake_entry(
    job: &Job,
    program: &CompiledProgram,
    root: &Path,
    options_hash: u64,
) -> Result<BakedEntry, BakeError> {
    let mut builder = crate::reflect::build_reflection(program)?;
    crate::bind_view::build_bind_view(program, &job.key, &mut builder)?;
    crate::targets::build_target_views(program, &job.key, &mut builder)?;
    let reflection = builder.finish();
    let mut dependencies = Vec::new();
    for path in &program.dependencies {
        let bytes = std::fs::read(path).map_err(|e| BakeError::io(path, e))?;
        dependencies.push((
            bake::relative_to(path, root),
            xxhash_rust::xxh3::xxh3_64(&bytes),
        ));
    }
    dependencies.sort();
    dependencies.dedup();
    Ok(BakedEntry {
        key: job.key.clone(),
        entry_points: program.entry_points.clone(),
        reflection,
        dependencies,
        options_hash,
        warnings: program.warnings.clone(),
    })
}

/// A hash of the Slang version and every option, with include directories relative to the
/// bake root so the hash does not depend on where the tree sits.
pub fn options_hash(options: &CompileOptions, root: &Path, slang_version: &str) -> u64 {
    let mut h = Xxh3::new();
    let mut field = |s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    field("slangpack-options-v1");
    field(slang_version);
    field(&options.profile);
    field(&format!("{:?}", options.optimization));
    field(&format!("{:?}", options.matrix_layout));
    field(if options.debug_info {
        "debug"
    } else {
        "nodebug"
    });
    for dir in &options.include_dirs {
        field(&bake::relative_to(dir, root));
    }
    let mut defines = options.defines.clone();
    defines.sort();
    for (name, value) in &defines {
        field(name);
        field(value);
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
    if !options.targets.is_empty() {
        // Only packages with further targets hash them, so SPIR-V-only entries keep the
        // options hash earlier bakes stored.
        field("targets");
        for target in &options.targets {
            field(target.name());
        }
    }
    h.digest()
}

//! A bake as one straight line: the configuration ([`BakeConfig`]) is planned into jobs
//! ([`crate::plan`]), what the previous package and the cache still answer is taken
//! (`crate::reuse`), the rest is compiled (through [`crate::execute`], each job by
//! [`crate::entry`]; the first of them while later jobs are still looked up in the cache),
//! and the entries are assembled into the package.

pub use crate::config::{BakeConfig, EntryReport, ProgressFn};
use crate::error::BakeError;
use crate::plan::Job;
use crate::reuse::{Answer, FileStamp, Reuse};
use std::path::{Path, PathBuf};

use slangpack_format::PackageBuilder;
use slangpack_pack::assemble::{add_entry, stored_builder, BakedEntry};

/// What a bake does with each entry compiled, as it arrives from its compile: stores it in
/// the cache, reports it, and adds it to the package builder.
struct Arrivals<'a, 'r> {
    reuse: &'a mut Reuse<'r>,
    package: &'a mut PackageBuilder,
    /// The first entry the builder refused.
    refused: &'a mut Option<BakeError>,
}

impl Arrivals<'_, '_> {
    /// `entry` (`None` for a module without entry points) compiled for `job`: its report.
    fn arrive(
        &mut self,
        job: &Job,
        entry: Option<BakedEntry>,
        assembled: Option<crate::cache::Assembled>,
    ) -> Option<EntryReport> {
        self.reuse.store(job, entry.as_ref(), assembled);
        let entry = entry?;
        let report = EntryReport::of(&entry);
        if let Err(e) = add_entry(self.package, entry) {
            self.refused.get_or_insert(e.into());
        }
        Some(report)
    }
}

/// An unnamed scratch file for the SPIR-V of a bake into `output`: beside it, where its
/// directory exists, else in the system's temporary directory; `None` when neither works
/// (the modules are then kept in memory).
fn spool_file(output: &Path) -> Option<std::fs::File> {
    let dir = output.parent().filter(|d| !d.as_os_str().is_empty());
    let beside = match dir {
        Some(dir) => tempfile::tempfile_in(dir),
        None => tempfile::tempfile_in("."),
    };
    beside.or_else(|_| tempfile::tempfile()).ok()
}

/// What a bake produced.
#[derive(Debug)]
pub struct BakeOutcome {
    /// The package bytes: assembled, or the previous package's as they are (mapped, not
    /// copied) when nothing changed ([`BakeOutcome::assembled`]).
    pub bytes: PackageBytes,
    /// The package's entries, in key order (their code and reflection are in
    /// [`BakeOutcome::bytes`]: see [`BakeOutcome::baked_entries`]).
    pub entries: Vec<EntryReport>,
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
    /// What the executor had to say: a build farm out of reach, the compiles run locally
    /// instead.
    pub executor_warnings: Vec<String>,
    /// Whether the package was assembled. A rebake that reuses every entry of the previous
    /// package, and stores them as that package does, takes its bytes as they are instead.
    pub assembled: bool,
    /// The bake root: the directory keys and dependency paths are relative to.
    pub root: PathBuf,
}

/// A baked package's bytes ([`BakeOutcome::bytes`]): read them as a `&[u8]` (`Deref`), or
/// take them with [`PackageBytes::into_vec`].
pub enum PackageBytes {
    /// Assembled in memory ([`bake()`]).
    Assembled(Vec<u8>),
    /// A package file, memory-mapped: the one [`bake_to_file`] streamed into its output, or
    /// the previous package reused whole (so that a rebake that changes nothing holds no copy
    /// of the package).
    Mapped(Box<slangpack_reader::Package>),
}

impl PackageBytes {
    /// The bytes as an owned vector (a copy for [`PackageBytes::Mapped`]).
    #[must_use]
    pub fn into_vec(self) -> Vec<u8> {
        match self {
            PackageBytes::Assembled(bytes) => bytes,
            PackageBytes::Mapped(package) => package.as_bytes().to_vec(),
        }
    }
}

impl std::ops::Deref for PackageBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            PackageBytes::Assembled(bytes) => bytes,
            PackageBytes::Mapped(package) => package.as_bytes(),
        }
    }
}

impl AsRef<[u8]> for PackageBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl PartialEq for PackageBytes {
    fn eq(&self, other: &PackageBytes) -> bool {
        **self == **other
    }
}

impl Eq for PackageBytes {}

impl std::fmt::Debug for PackageBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self {
            PackageBytes::Assembled(_) => "Assembled",
            PackageBytes::Mapped(_) => "Mapped",
        };
        write!(f, "PackageBytes::{how}({} bytes)", self.len())
    }
}

impl BakeOutcome {
    /// The package's entries as plain data, read out of [`BakeOutcome::bytes`], with the
    /// warnings of the bake.
    ///
    /// # Errors
    /// [`BakeError::Input`] if the bytes do not read back (they always should).
    pub fn baked_entries(&self) -> Result<Vec<BakedEntry>, BakeError> {
        let unreadable =
            |e: &dyn std::fmt::Display| BakeError::Input(format!("the package does not read: {e}"));
        let package =
            slangpack_reader::Package::from_bytes(&self.bytes).map_err(|e| unreadable(&e))?;
        self.entries
            .iter()
            .map(|report| {
                let entry = package.load(&report.key).map_err(|e| unreadable(&e))?;
                let mut baked =
                    slangpack_pack::merge::baked_entry(&entry).map_err(|e| unreadable(&e))?;
                baked.warnings.clone_from(&report.warnings);
                Ok(baked)
            })
            .collect()
    }
}

/// Compiles everything `config` names and assembles the package in memory: the plan
/// ([`crate::plan`]), what the previous package and the cache answer (`crate::reuse`), the
/// compilation of the rest ([`crate::execute`]) and the assembly.
///
/// # Errors
/// The first compile error (or, with `keep_going`, an error when every permutation failed),
/// I/O errors reading inputs, and [`BakeError::Input`] for unusable inputs.
pub fn bake(config: &BakeConfig) -> Result<BakeOutcome, BakeError> {
    bake_into(config, None).map(|(outcome, _)| outcome)
}

/// [`bake()`], the package assembled in memory (`output` `None`) or streamed into a temporary
/// file that replaces `output` unless `output` already holds exactly its bytes.
///
/// With the outcome, when it is the previous package reused whole, the stamp of the file it
/// was read from (`bake_to_file` then knows, without reading, whether the output is that
/// file).
fn bake_into(
    config: &BakeConfig,
    output: Option<&Path>,
) -> Result<(BakeOutcome, Option<FileStamp>), BakeError> {
    // The command line's cache server is dialed first: its connection and Capabilities
    // request are on their way while the bake plans.
    let dialed = crate::cache::dial(config);
    let plan = crate::plan::plan(config)?;
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let progress = |key: &str| {
        if let Some(progress) = &config.progress {
            let done = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(done, plan.jobs.len(), key);
        }
    };

    let mut reuse = Reuse::new(config, &plan, dialed)?;
    // Every entry goes into the package builder as it comes (its SPIR-V spooled beside the
    // output when that works), so that a bake of many permutations holds each module once,
    // and in a file rather than in memory, until the package is laid out.
    let mut package = stored_builder(config.compress, plan.compress_spirv);
    if let Some(file) = output.and_then(spool_file) {
        package.spool_spirv(file);
    }
    // The first entry the builder refused.
    let mut refused = None;
    let (mut answered, compiled, executor_warnings) = answer_and_compile(
        config,
        &plan,
        Arrivals {
            reuse: &mut reuse,
            package: &mut package,
            refused: &mut refused,
        },
        &progress,
    )?;
    if let Some(e) = refused {
        return Err(e);
    }
    // The last compiles go to the stores while the package is assembled.
    reuse.flush_cache();
    let (failures, compiled_keys) = answered.add_compiled(compiled);
    let Answered {
        mut reports,
        previous_keys,
        reused,
        libraries,
        pending,
    } = answered;
    if reports.is_empty() && (config.shard.is_none() || !failures.is_empty()) {
        return Err(failures
            .into_iter()
            .next()
            .unwrap_or_else(|| BakeError::Input("the inputs hold no entry points".into())));
    }

    reports.sort_by(|a, b| a.key.cmp(&b.key));
    let mut shard = plan.shard;
    if let Some(record) = &mut shard {
        record.library_count = crate::plan::count_u32(libraries)?;
    }
    let unchanged = match failures.is_empty() {
        true => reuse.whole_package(shard, reused, reports.len(), config.compress),
        false => None,
    };
    let assembled = unchanged.is_none();
    let mut written = write_package(package, &reuse, unchanged, &previous_keys, shard, output)?;
    let settled = settle(
        config,
        &plan,
        reuse,
        &mut written,
        output,
        assembled && failures.is_empty(),
    )?;
    let from_package = settled.from_package;
    let outcome = BakeOutcome {
        bytes: settled.bytes,
        entries: reports,
        failures,
        reused: reused - from_package.min(reused),
        compiled: pending.len(),
        compiled_keys,
        from_cache: settled.from_cache,
        cache_warnings: settled.cache_warnings,
        executor_warnings,
        assembled,
        root: plan.root,
    };
    Ok((outcome, written.source))
}

/// A bake's package in place and its cache told.
struct Settled {
    /// The package's bytes.
    bytes: PackageBytes,
    /// How many entries the cache's package answered (counted as the previous package's
    /// by the reuse, and as the cache's in the outcome).
    from_package: usize,
    /// How many permutations the cache answered.
    from_cache: usize,
    /// What went wrong with the cache.
    cache_warnings: Vec<String>,
}

/// Lets go of the previous package, fails the bake (nothing written) when `--cache-verify`
/// found a hit that differs, puts the package in place ([`Written::settle`]) and, when
/// `store` (a package assembled without failures), stores it in the cache keyed by its
/// permutations.
fn settle(
    config: &BakeConfig,
    plan: &crate::plan::Plan,
    mut reuse: Reuse<'_>,
    written: &mut Written,
    output: Option<&Path>,
    store: bool,
) -> Result<Settled, BakeError> {
    // What the cache's package answered counts as the cache's; what keys this package there.
    let from_package = reuse.answered_by_cached_package();
    let permutations = store.then(|| reuse.permutations()).flatten();
    let storage = crate::reuse::storage_arguments(config, plan);
    // Let go of the previous package (it may be the file the output replaces) first.
    let mut cache = reuse.into_cache();
    if let Some(cache) = cache.as_mut() {
        cache.flush();
    }
    let mismatches = cache
        .as_mut()
        .map(|c| std::mem::take(&mut c.mismatches))
        .unwrap_or_default();
    if !mismatches.is_empty() {
        // Nothing is written: the staged package is dropped, the output stays as it was.
        return Err(BakeError::Input(format!(
            "--cache-verify: {}",
            mismatches.join("; ")
        )));
    }
    let bytes = written.settle(output)?;
    if let (Some(cache), Some(permutations)) = (cache.as_mut(), permutations) {
        cache.store_package(&permutations, &storage, &bytes);
    }
    let (from_cache, cache_warnings) = match cache {
        Some(mut cache) => {
            // What the cache still holds goes to its stores before its warnings are read.
            cache.flush();
            cache.wait_for_writes();
            let counted = (
                cache.hits + from_package,
                std::mem::take(&mut cache.warnings),
            );
            cache.close();
            counted
        }
        None => (0, Vec::new()),
    };
    Ok(Settled {
        bytes,
        from_package,
        from_cache,
        cache_warnings,
    })
}

/// What the compiled jobs gave, in job order: an entry's report, `None` for a module without
/// entry points, or the permutation's failure.
type Compiled = Vec<Result<Option<EntryReport>, BakeError>>;

/// What the previous package and the cache answered before anything is compiled, and what
/// is left to compile.
struct Answered<'p> {
    /// Every entry as reported.
    reports: Vec<EntryReport>,
    /// The keys of the entries the previous package still holds (read out of it only if the
    /// package is assembled).
    previous_keys: Vec<String>,
    /// How many entries the previous package answered.
    reused: usize,
    /// How many modules without entry points were found.
    libraries: usize,
    /// The jobs neither answered, to compile.
    pending: Vec<&'p Job>,
}

/// How many permutations the cache is asked about at a time ([`answer_and_compile`]): those
/// it does not answer go to the executor before the next ones are asked about.
const LOOKUP_CHUNK: usize = 32;

/// Asks the previous package, then the cache, about each of `plan`'s jobs, and compiles the
/// rest on the executor `config` asks for, side by side: the cache is asked
/// [`LOOKUP_CHUNK`] jobs at a time, and the jobs it does not answer go to the executor as
/// they become known (a farm's lanes connect and its first action goes out while later
/// jobs are still looked up). Every entry, from the cache or compiled, goes to `arrivals`
/// (the package; a compiled one to the cache too) as it comes. What was answered, what the
/// compiles gave in the order of [`Answered::pending`] (see
/// [`crate::execute::Pool::run_fed`]), and what the executor had to say.
fn answer_and_compile<'p>(
    config: &BakeConfig,
    plan: &'p crate::plan::Plan,
    arrivals: Arrivals<'_, '_>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(Answered<'p>, Compiled, Vec<String>), BakeError> {
    let mut answered = Answered {
        reports: Vec::with_capacity(plan.jobs.len()),
        previous_keys: Vec::new(),
        reused: 0,
        libraries: 0,
        pending: Vec::new(),
    };
    // What the previous package answers, each job checked once; the cache is asked about
    // the rest.
    let mut asked: Vec<&Job> = Vec::new();
    for job in &plan.jobs {
        match arrivals.reuse.answer_previous(job) {
            Some(answer) => {
                answered.record(job, answer, arrivals.package, arrivals.refused);
                progress(&job.key);
            }
            None => asked.push(job),
        }
    }
    let caching = arrivals.reuse.caching();
    let arrivals = std::sync::Mutex::new(arrivals);
    let lock = || {
        arrivals
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let arrive = |job: &Job, finished: crate::execute::Finished| {
        progress(&job.key);
        let entry = finished.result?;
        // The cache's copy is made before the lock is taken: lanes make theirs side by side.
        // One that came in the cache's form and was checked (a farm's) is stored as it came.
        let assembled = caching.then(|| match finished.stored {
            Some(bytes) => crate::cache::Assembled::checked(bytes),
            None => crate::cache::Assembled::of(entry.as_ref()),
        });
        Ok(lock().arrive(job, entry, assembled))
    };
    let executor = choose(config, plan.remote.as_ref(), &plan.root);
    let pool = crate::execute::Pool {
        executor: executor.as_ref(),
        lanes: config.jobs,
        keep_going: config.keep_going,
        arrive: &arrive,
    };
    let compiled = pool.run_fed(asked.len(), &mut |compile| {
        for chunk in asked.chunks(LOOKUP_CHUNK) {
            let mut misses = Vec::new();
            {
                // Not held while a job is handed over: a lane's arrival takes it.
                let mut guard = lock();
                let arrivals = &mut *guard;
                arrivals.reuse.prefetch(chunk);
                for &job in chunk {
                    match arrivals.reuse.answer_cached(job) {
                        Some(answer) => {
                            answered.record(job, answer, arrivals.package, arrivals.refused);
                            progress(&job.key);
                        }
                        None => misses.push(job),
                    }
                }
            }
            for job in misses {
                answered.pending.push(job);
                compile(job);
            }
        }
        // Every lookup is made: what the compiles give goes to the cache's stores while the
        // bake goes on (the other lanes' compiles, the package's assembly).
        lock().reuse.write_in_background();
    })?;
    let executor_warnings = executor.warnings();
    drop(executor);
    Ok((answered, compiled, executor_warnings))
}

impl Answered<'_> {
    /// Notes what answered `job` without compiling it; an entry of the cache goes into
    /// `package` (the first one it refuses into `refused`).
    fn record(
        &mut self,
        job: &Job,
        answer: Answer,
        package: &mut PackageBuilder,
        refused: &mut Option<BakeError>,
    ) {
        match answer {
            Answer::Previous(report) => {
                self.reused += 1;
                self.reports.push(report);
                self.previous_keys.push(job.key.clone());
            }
            Answer::Cached(entry) => {
                self.reports.push(EntryReport::of(&entry));
                if let Err(e) = add_entry(package, entry) {
                    refused.get_or_insert(e.into());
                }
            }
            Answer::Library => self.libraries += 1,
        }
    }

    /// Adds what the compiled jobs gave: their reports, and the modules without entry points
    /// among them. The failures, and the keys of the compiled entries in key order.
    fn add_compiled(&mut self, compiled: Compiled) -> (Vec<BakeError>, Vec<String>) {
        let mut failures = Vec::new();
        let mut compiled_keys = Vec::new();
        for outcome in compiled {
            match outcome {
                Ok(Some(report)) => {
                    compiled_keys.push(report.key.clone());
                    self.reports.push(report);
                }
                Ok(None) => self.libraries += 1,
                Err(e) => failures.push(e),
            }
        }
        compiled_keys.sort();
        (failures, compiled_keys)
    }
}

/// The package's bytes as [`write_package`] left them: in hand, or staged in a temporary
/// file that is to replace the output.
struct Written {
    /// The bytes, unless they are staged.
    bytes: Option<PackageBytes>,
    /// The temporary file the package was streamed into.
    staging: Option<slangpack_pack::Staged>,
    /// The stamp of the previous package's file, when it is reused whole.
    source: Option<FileStamp>,
}

/// The package: the previous one as it is when `unchanged` holds it, else `package` with the
/// entries of `previous_keys` read out of the previous package and `shard` recorded,
/// assembled in memory (`output` `None`) or streamed into a file staged beside `output`.
fn write_package(
    mut package: PackageBuilder,
    reuse: &Reuse<'_>,
    unchanged: Option<(slangpack_reader::Package, Option<FileStamp>)>,
    previous_keys: &[String],
    shard: Option<slangpack_format::ShardRecord>,
    output: Option<&Path>,
) -> Result<Written, BakeError> {
    if let Some((previous, stamp)) = unchanged {
        return Ok(Written {
            bytes: Some(PackageBytes::Mapped(Box::new(previous))),
            staging: None,
            source: stamp,
        });
    }
    for key in previous_keys {
        add_entry(&mut package, reuse.previous_entry(key)?)?;
    }
    if let Some(shard) = shard {
        package.set_shard(shard);
    }
    let Some(output) = output else {
        return Ok(Written {
            bytes: Some(PackageBytes::Assembled(slangpack_pack::assemble::finish(
                package,
            )?)),
            staging: None,
            source: None,
        });
    };
    let mut staged = slangpack_pack::Staged::new(output)?;
    let tmp = staged.temp_path().to_path_buf();
    let mut file = std::io::BufWriter::with_capacity(1 << 16, staged.file());
    let written = slangpack_pack::assemble::finish_to(package, &mut file, &tmp);
    let flushed = std::io::Write::flush(&mut file);
    drop(file);
    written?;
    flushed.map_err(|source| BakeError::Io {
        path: tmp.clone(),
        source,
    })?;
    Ok(Written {
        bytes: None,
        staging: Some(staged),
        source: None,
    })
}

impl Written {
    /// The bytes: those in hand, or the staged file moved over `output` (left as it is when
    /// it already holds them) and mapped.
    fn settle(&mut self, output: Option<&Path>) -> Result<PackageBytes, BakeError> {
        match (self.bytes.take(), self.staging.take(), output) {
            (Some(bytes), _, _) => Ok(bytes),
            (None, Some(staged), Some(output)) => {
                if same_contents(staged.temp_path(), output) {
                    drop(staged); // unchanged: the file (and its modification time) stays
                } else {
                    staged.commit()?;
                }
                let package = slangpack_reader::Package::open(output).map_err(|e| {
                    BakeError::Input(format!(
                        "{}: the package written does not read back: {e}",
                        output.display()
                    ))
                })?;
                Ok(PackageBytes::Mapped(Box::new(package)))
            }
            _ => unreachable!("a package assembled into a file has a staged file"),
        }
    }
}

/// Bakes and writes the package to `output` atomically (nothing is written on failure). An
/// `output` that already holds exactly these bytes is left untouched (no write, the same
/// inode and modification time); with `output` as [`BakeConfig::previous`] and nothing
/// changed, nothing is assembled either (see [`BakeOutcome::assembled`]).
///
/// # Errors
/// As [`bake()`], plus [`BakeError::Io`] when the output cannot be written.
pub fn bake_to_file(config: &BakeConfig, output: &Path) -> Result<BakeOutcome, BakeError> {
    // An assembled package is streamed into the output (never held whole in memory); the
    // previous package reused whole is written only where it is not the output already.
    // The previous package reused whole, read from the file that is still the output
    // (unchanged since: the same stamp), is the output's bytes without reading them again.
    let (outcome, source) = bake_into(config, Some(output))?;
    let is_output = source.is_some_and(|s| FileStamp::of(output) == Some(s));
    if outcome.assembled || is_output || holds(output, &outcome.bytes) {
        return Ok(outcome);
    }
    slangpack_pack::write_atomically(output, &outcome.bytes)?;
    Ok(outcome)
}

/// Whether the files at `a` and `b` have the same bytes, read a piece at a time.
fn same_contents(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (Ok(mut a), Ok(mut b)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let len = |f: &std::fs::File| f.metadata().map(|m| m.len()).ok();
    if len(&a).is_none() || len(&a) != len(&b) {
        return false;
    }
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = match a.read(&mut x) {
            Ok(0) => return b.read(&mut y).is_ok_and(|m| m == 0),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        };
        if b.read_exact(&mut y[..n]).is_err() || x[..n] != y[..n] {
            return false;
        }
    }
}

/// Whether the file at `path` holds exactly `bytes`, read a piece at a time (not a second
/// copy of the package in memory).
fn holds(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if file.metadata().map(|m| m.len()).ok() != u64::try_from(bytes.len()).ok() {
        return false;
    }
    let mut piece = vec![0u8; 1 << 16];
    let mut rest = bytes;
    loop {
        match file.read(&mut piece) {
            Ok(0) => return rest.is_empty(),
            Ok(n) => match (rest.get(..n), rest.get(n..)) {
                (Some(expected), Some(after)) if expected == &piece[..n] => rest = after,
                _ => return false,
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// The executor `config` asks for: the build farm `remote` when one is named (by the
/// configuration or a manifest), worker processes unless [`BakeConfig::in_process`] (also
/// where a farm falls back to).
fn choose(
    config: &crate::config::BakeConfig,
    remote: Option<&crate::config::RemoteSettings>,
    root: &std::path::Path,
) -> Box<dyn crate::execute::Executor> {
    let local = local(config, root);
    match remote {
        Some(settings) => Box::new(crate::remote::Remote::new(
            settings.clone(),
            root,
            config.limits,
            local,
        )),
        None => local,
    }
}

/// The executor of this machine `config` asks for.
fn local(
    config: &crate::config::BakeConfig,
    root: &std::path::Path,
) -> Box<dyn crate::execute::Executor> {
    if config.in_process {
        Box::new(crate::execute::InProcess {
            root: root.to_path_buf(),
        })
    } else {
        Box::new(crate::worker::Workers {
            root: root.to_path_buf(),
            limits: config.limits,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_holds_exactly_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p");
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        assert!(!super::holds(&path, &bytes));
        std::fs::write(&path, &bytes).unwrap();
        assert!(super::holds(&path, &bytes));
        assert!(!super::holds(&path, &bytes[1..]));
        let mut changed = bytes.clone();
        changed[150_000] ^= 1;
        assert!(!super::holds(&path, &changed));
        std::fs::write(&path, &bytes[..100]).unwrap();
        assert!(super::holds(&path, &bytes[..100]));
        std::fs::write(&path, b"").unwrap();
        assert!(super::holds(&path, b""));
    }

    #[test]
    fn slang_version_without_a_session_is_the_sessions() {
        let tag = slangpack_slang::com::build_tag();
        assert!(!tag.is_empty());
        let compiler = crate::compile::Compiler::new().unwrap();
        assert_eq!(compiler.version(), tag);
    }
}

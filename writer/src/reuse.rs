//! The second step of a bake: what is answered without compiling. The previous package (an
//! incremental rebake) answers a job whose options hash and dependencies are unchanged, and a
//! library module it knows; the shared cache (`crate::cache`) is asked next; what neither
//! answers is compiled. A rebake that reuses the whole previous package takes its bytes.

use crate::cache::{Cache, Cached};
use crate::config::{BakeConfig, EntryReport};
use crate::error::BakeError;
use crate::plan::{Job, Plan};
use slangpack_pack::assemble::BakedEntry;
use slangpack_reader::Package;
use std::collections::HashMap;

/// What tells a file's contents apart without reading them: its device and inode, its length
/// and its modification time. Two equal stamps of a path, taken at different times, mean the
/// path named the same file both times and no write that sets the time changed it (a package
/// is replaced by a rename, never written in place: SPEC's and the reader's contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    device: u64,
    inode: u64,
    len: u64,
    modified: std::time::SystemTime,
}

impl FileStamp {
    /// The stamp of the file at `path`; `None` when it has none (no such file, no modification
    /// time, or a platform without inode numbers).
    pub(crate) fn of(path: &std::path::Path) -> Option<FileStamp> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileStamp {
                device: m.dev(),
                inode: m.ino(),
                len: m.len(),
                modified: m.modified().ok()?,
            })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }
}

/// What answers a job without compiling it.
pub(crate) enum Answer {
    /// The previous package's entry, unchanged: reported here, and read out of the previous
    /// package ([`Reuse::previous_entry`]) only if the package is assembled.
    Previous(EntryReport),
    /// The shared cache's entry.
    Cached(BakedEntry),
    /// It is a library module: nothing to bake.
    Library,
}

/// The previous package and the cache of one bake. Each file is read and hashed at most once
/// per bake, however many permutations depend on it, and not at all when the plan read it.
pub(crate) struct Reuse<'a> {
    plan: &'a Plan,
    previous: Option<Package>,
    /// The previous package file's stamp, taken before and after it was opened (`None` when
    /// the two differ, or the file has none): the file the package reads.
    previous_stamp: Option<FileStamp>,
    cache: Option<Cache>,
    hashes: ContentHashes<'a>,
    /// Every dependency the previous package records, with its hash then.
    recorded: Option<HashMap<String, u64>>,
    /// Whether every section of the previous package matches its checksum (checked once, at
    /// open): an intact package's entries are judged by their records alone, a damaged one's
    /// each by a load, so that only its damaged entries are compiled again.
    intact: bool,
    /// Whether the previous package came from the cache (the result of this bake's assembly
    /// there, [`Cache::package`]) rather than from the output: its answers count as the
    /// cache's.
    previous_from_cache: bool,
    /// How many jobs the previous package answered (entries and library modules).
    previous_answers: usize,
}

impl<'a> Reuse<'a> {
    /// Opens the previous package and the cache `config` names for the bake `plan`.
    ///
    /// An unreadable or invalid previous package only means nothing is reused.
    ///
    /// `dialed` is the command line's cache server, dialed before the plan
    /// ([`crate::cache::dial`]), if it was.
    ///
    /// # Errors
    /// [`BakeError::Input`] for a cache URL that is not one.
    pub(crate) fn new(
        config: &BakeConfig,
        plan: &'a Plan,
        dialed: Option<crate::cache::Dialed>,
    ) -> Result<Reuse<'a>, BakeError> {
        // The configuration's cache (the command line's), else a manifest's.
        // A build farm's server is the cache where none is named: what it compiled is found
        // there by the next bake.
        let farm = plan.remote.as_ref().map(|r| crate::cache::CacheSettings {
            dir: None,
            url: Some(r.url.clone()),
            options: r.options.clone(),
        });
        let implicit = farm.is_some()
            && config.cache.is_none()
            && config.cache_url.is_none()
            && plan.cache.is_none();
        let settings = match (&config.cache, &config.cache_url, &plan.cache) {
            (None, None, Some(manifest)) => Some(manifest.clone()),
            (None, None, None) => farm,
            (dir, url, _) => Some(crate::cache::CacheSettings {
                dir: dir.clone(),
                url: url.clone(),
                options: config.cache_options.clone(),
            }),
        };
        let mut cache = match settings {
            None => None,
            Some(s) => Some(
                Cache::new(
                    s.dir.as_deref(),
                    s.url.as_deref(),
                    &plan.root,
                    &s.options,
                    dialed,
                )
                .map_err(BakeError::Input)?,
            ),
        };
        if let Some(cache) = cache.as_mut().filter(|_| implicit) {
            // The farm as the cache, out of reach: the executor says so, once.
            cache.warnings.clear();
        }
        let (previous, previous_stamp) = match &config.previous {
            None => (None, None),
            Some(path) => {
                let before = FileStamp::of(path);
                let package = Package::open(path).ok();
                let stamp = before.filter(|b| FileStamp::of(path).as_ref() == Some(b));
                (package, stamp)
            }
        };
        let mut reuse = Reuse {
            plan,
            previous_stamp,
            intact: previous
                .as_ref()
                .is_some_and(|p| p.check_checksums().is_ok()),
            previous,
            cache,
            hashes: ContentHashes {
                plan,
                read: HashMap::new(),
                untrusted: false,
            },
            recorded: None,
            previous_from_cache: false,
            previous_answers: 0,
        };
        // Without a previous package, the cache's package for these permutations (verified
        // whole) takes its place: an entry of it is used only where it is unchanged.
        if reuse.previous.is_none() && reuse.cache.is_some() {
            let storage = storage_arguments(config, plan);
            let cached = match reuse.permutations() {
                Some(list) => reuse
                    .cache
                    .as_mut()
                    .and_then(|c| c.package(&list, &storage)),
                None => None,
            };
            if let Some(package) = cached {
                reuse.previous = Some(package);
                reuse.intact = true;
                reuse.previous_from_cache = true;
                reuse.hashes.untrusted = true;
            }
        }
        Ok(reuse)
    }

    /// The bake's permutations as its package's assembly in the cache is keyed
    /// ([`slangpack_cache::action::describe_assembly`]): one line per job in key order, with
    /// its options hash, main module path and that module's content hash; `None` when a
    /// main module cannot be read, or there is no cache.
    pub(crate) fn permutations(&mut self) -> Option<Vec<u8>> {
        self.cache.as_ref()?;
        let mut jobs: Vec<&Job> = self.plan.jobs.iter().collect();
        jobs.sort_by(|a, b| a.key.cmp(&b.key));
        let mut list = Vec::with_capacity(jobs.len() * 96);
        for job in jobs {
            let content = self.hashes.get(&job.relative)?;
            for (field, end) in [
                (job.key.as_bytes(), b'\t'),
                (&hex16(job.options_hash), b'\t'),
                (job.relative.as_bytes(), b'\t'),
                (&hex16(content), b'\n'),
            ] {
                list.extend_from_slice(field);
                list.push(end);
            }
        }
        Some(list)
    }

    /// How many jobs the cache answered beyond its own count: those its package answered.
    pub(crate) fn answered_by_cached_package(&self) -> usize {
        match self.previous_from_cache {
            true => self.previous_answers,
            false => 0,
        }
    }

    /// What the previous package answers for `job` without compiling it: its entry, or a
    /// library module it knows. Each job is asked once (the check reads the entry's record
    /// and its dependencies' content hashes).
    pub(crate) fn answer_previous(&mut self, job: &Job) -> Option<Answer> {
        if let Some(report) = self.unchanged(job) {
            self.previous_answers += 1;
            return Some(Answer::Previous(report));
        }
        if self.is_library(job) {
            self.previous_answers += 1;
            return Some(Answer::Library);
        }
        None
    }

    /// What the cache answers for `job`, one the previous package did not answer
    /// ([`Reuse::answer_previous`]).
    pub(crate) fn answer_cached(&mut self, job: &Job) -> Option<Answer> {
        Some(match self.cache.as_mut()?.lookup(job)? {
            Cached::Entry(entry) => Answer::Cached(entry),
            Cached::Library => Answer::Library,
        })
    }

    /// Asks the cache ahead for `jobs`, those the previous package does not answer
    /// ([`Cache::prefetch`]).
    pub(crate) fn prefetch(&mut self, jobs: &[&Job]) {
        if let Some(cache) = &mut self.cache {
            cache.prefetch(jobs);
        }
    }

    /// Sends what the cache records from now on to its stores on a thread of its own
    /// ([`Cache::write_in_background`]): for when every lookup of the bake is made.
    pub(crate) fn write_in_background(&mut self) {
        if let Some(cache) = &mut self.cache {
            cache.write_in_background();
        }
    }

    /// Sends what the cache has gathered to its stores ([`Cache::flush`]), without waiting
    /// for a writing thread to have written it.
    pub(crate) fn flush_cache(&mut self) {
        if let Some(cache) = &mut self.cache {
            cache.flush();
        }
    }

    /// Whether there is a cache to record compiles in.
    pub(crate) fn caching(&self) -> bool {
        self.cache.is_some()
    }

    /// Records in the cache what compiling `job` gave (`None`: a library module), with
    /// `entry`'s package for the cache when it was assembled beforehand.
    pub(crate) fn store(
        &mut self,
        job: &Job,
        entry: Option<&BakedEntry>,
        assembled: Option<crate::cache::Assembled>,
    ) {
        if let Some(cache) = &mut self.cache {
            cache.store(job, entry, assembled);
        }
    }

    /// The previous package's bytes when they are the package this bake would assemble:
    /// every entry reused from it (`reused` of `entries`, no failure), with the same shard
    /// record, stored alike. Assembly is deterministic, and the entries' options hashes say
    /// that this writer build made that package.
    ///
    /// Taken out of `self` (nothing more is read from it), and only when every section
    /// matched its checksum.
    pub(crate) fn whole_package(
        &mut self,
        shard: Option<slangpack_format::ShardRecord>,
        reused: usize,
        entries: usize,
        compress: bool,
    ) -> Option<(Package, Option<FileStamp>)> {
        let previous = self.previous.as_ref()?;
        let same = previous.shard_plan().ok().flatten() == shard
            && reused == entries
            && previous.len() == entries
            && slangpack_pack::assemble::stored_as(previous, compress, self.plan.compress_spirv)
            && self.intact;
        let stamp = self.previous_stamp;
        same.then(|| self.previous.take().map(|p| (p, stamp)))
            .flatten()
    }

    /// The cache, letting go of the previous package (it may be the file the output
    /// replaces).
    pub(crate) fn into_cache(self) -> Option<Cache> {
        self.cache
    }

    /// The previous package's entry `key` (one [`Answer::Previous`] named) as plain data,
    /// for assembly.
    ///
    /// # Errors
    /// [`BakeError::Input`] when the previous package no longer gives it.
    pub(crate) fn previous_entry(&self, key: &str) -> Result<BakedEntry, BakeError> {
        let gone = |e: &dyn std::fmt::Display| {
            BakeError::Input(format!("{key}: the previous package no longer reads: {e}"))
        };
        let previous = self.previous.as_ref().ok_or_else(|| gone(&"not open"))?;
        let entry = previous.load(key).map_err(|e| gone(&e))?;
        slangpack_pack::merge::baked_entry(&entry).map_err(|e| gone(&e))
    }

    /// The report of the previous package's entry for `job`, if its options and every
    /// dependency are unchanged.
    fn unchanged(&mut self, job: &Job) -> Option<EntryReport> {
        // Of an intact package, the record alone (no section loaded: a package whose every
        // entry is reused is taken as it is, and one being assembled loads what it copies,
        // `previous_entry`); of a damaged one, the entry loaded and checked.
        let previous = self.previous.as_ref()?;
        let entry = match self.intact {
            true => previous.info(&job.key).ok()?,
            false => previous.load(&job.key).ok()?.info(),
        };
        if entry.options_hash() != job.options_hash {
            return None;
        }
        let mut has_source = false;
        for dep in entry.dependencies() {
            if self.hashes.get(dep.path()) != Some(dep.content_hash()) {
                return None;
            }
            has_source |= dep.path() == &*job.relative;
        }
        // An entry without reflection (not the writer's) is recompiled.
        if !has_source || !entry.has_reflection() {
            return None;
        }
        Some(report_of(&entry))
    }

    /// Whether `job` is a module without entry points found by scanning a directory that
    /// needs no compiling to know it: the previous package has no entry for it, records it,
    /// unchanged, as a dependency of an entry (so it compiled as an import), and its text has
    /// no `shader(`, without which it declares no entry point (`[shader("...")]`).
    fn is_library(&mut self, job: &Job) -> bool {
        let Some(previous) = &self.previous else {
            return false;
        };
        if !job.skip_if_library || previous.find(&job.key).is_some() {
            return false;
        }
        let recorded = self.recorded.get_or_insert_with(|| {
            (0..previous.len())
                .filter_map(|i| previous.info_at(i).ok())
                .flat_map(|entry| {
                    entry
                        .dependencies()
                        .map(|dep| (dep.path().to_string(), dep.content_hash()))
                        .collect::<Vec<_>>()
                })
                .collect()
        });
        let Some(&then) = recorded.get(&*job.relative) else {
            return false;
        };
        if self.hashes.get(&job.relative) != Some(then) {
            return false;
        }
        match self.plan.sources.get(&*job.relative) {
            Some(facts) => !facts.declares_shader,
            None => std::fs::read_to_string(&job.source)
                .is_ok_and(|text| !crate::plan::declares_shader(&text)),
        }
    }
}

/// The content hashes of the files a bake's entries depend on: those of the `.slang` inputs
/// from the plan, the others read once.
struct ContentHashes<'a> {
    plan: &'a Plan,
    /// Content hash per dependency path (as stored: relative to the root); `None` when the
    /// file cannot be read.
    read: HashMap<String, Option<u64>>,
    /// Whether the paths come from a package the cache gave: then only a relative path of
    /// plain names naming a regular file inside the root is read (never a device, a FIFO or
    /// a file elsewhere), up to the cache's blob limit.
    untrusted: bool,
}

impl ContentHashes<'_> {
    /// The content hash of the dependency at `path` (relative to the root, or absolute).
    fn get(&mut self, path: &str) -> Option<u64> {
        if let Some(facts) = self.plan.sources.get(path) {
            return Some(facts.content_hash);
        }
        let root = &self.plan.root;
        let untrusted = self.untrusted;
        *self.read.entry(path.to_string()).or_insert_with(|| {
            let bytes = match untrusted {
                true => crate::cache::read_inside(root, root.canonicalize().ok().as_deref(), path),
                false => std::fs::read(root.join(path)).ok(),
            };
            bytes.map(|bytes| xxhash_rust::xxh3::xxh3_64(&bytes))
        })
    }
}

/// The report of a packaged entry (its warnings are not stored).
fn report_of(entry: &slangpack_reader::EntryInfo<'_>) -> EntryReport {
    EntryReport {
        key: entry.key().to_string(),
        entry_points: entry.entry_point_count(),
        dependencies: entry
            .dependencies()
            .map(|d| (d.path().to_string(), d.content_hash()))
            .collect(),
        warnings: String::new(),
    }
}

/// `value` as 16 lower-case hex digits.
fn hex16(value: u64) -> [u8; 16] {
    let mut digits = [0u8; 16];
    for (i, digit) in digits.iter_mut().enumerate() {
        let nibble = (value >> (60 - 4 * i)) & 0xf;
        *digit = b"0123456789abcdef"[nibble as usize];
    }
    digits
}

/// What decides a package's bytes beside its entries, as the cache's assembly action names
/// it: this writer build, how sections are stored, and the shard.
pub(crate) fn storage_arguments(config: &BakeConfig, plan: &Plan) -> Vec<String> {
    let mut arguments = vec![
        format!("--writer={}", crate::WRITER_BUILD),
        format!("--compress={}", config.compress),
        format!("--compress-spirv={}", plan.compress_spirv),
    ];
    if let Some(shard) = &plan.shard {
        arguments.push(format!(
            "--shard={}/{}",
            shard.shard_index, shard.shard_count
        ));
    }
    arguments
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex16_spells_a_hash_as_the_permutations_list_always_has() {
        for value in [0, 1, 0xf, 0x10, 0x0123_4567_89ab_cdef, u64::MAX, 1 << 63] {
            assert_eq!(super::hex16(value), format!("{value:016x}").as_bytes());
        }
    }
}

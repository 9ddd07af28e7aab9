//! The shared bake cache (`slangpack bake --cache DIR|URL`): entries compiled once are reused
//! by every checkout and CI job that points at the same cache, whatever its path, instead of
//! being compiled again.
//!
//! Each permutation's compile is a Remote Execution API action ([`slangpack_cache::action`]):
//! its digest covers the options hash (this writer build, the format version, the Slang
//! version, every compile option and target, include directories relative to the bake root),
//! the permutation key and the main module's path and content. Its `ActionResult` names two
//! blobs of the content-addressed store: the entry as a package of one entry, and the `Tree`
//! of every file the compile read. The stores ([`slangpack_cache::Store`]): a directory, a
//! server speaking the Bazel HTTP cache protocol (`http://`, `https://`), a REAPI server
//! (`grpc://`, `grpcs://`); a directory and a server may be used together (the directory
//! first; what the server gives is copied into it).
//!
//! A lookup hits when a store holds a result for the action and every file its tree names is,
//! now, a regular file inside the bake root with that SHA-256, and the entry blob opens and
//! verifies as a package (`verify_all`) holding exactly that key, options hash and dependency
//! list. A tree naming a path that could leave the root (absolute, `..`, a symlink leading out,
//! a FIFO or device) is refused without reading it. Anything else wrong is a miss with a
//! warning, and the entry is compiled as usual: a cache never fails a bake, and a server that
//! fails once is not asked again in that bake. What a cache cannot be kept from doing is
//! serving a well-formed entry baked from the same inputs with other bytes (nothing signs
//! entries): `--cache-verify FRACTION` recompiles that share of hits and fails the bake when
//! the bytes differ, and `--cache-read-only` keeps a client from writing.

pub use crate::config::{resolve_header, CacheOptions, CacheSettings};
use crate::plan::Job;
use slangpack_cache::action::{self, Permutation, ENTRY_OUTPUT, INPUTS_OUTPUT, PACKAGE_OUTPUT};
use slangpack_cache::reapi::{ActionResult, Digest, OutputFile, Tree};
use slangpack_cache::{digest_of, encoded, Store};
use slangpack_pack::assemble::BakedEntry;
use slangpack_reader::Package;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

mod writes;
use writes::{Put, Stores};

/// What a lookup found.
#[derive(Debug)]
pub enum Cached {
    /// The entry, as it was baked.
    Entry(BakedEntry),
    /// The job is a module without entry points (found by scanning a directory).
    Library,
}

/// How to reach the server at `url` (`http(s)://` or `grpc(s)://`) with `options`' instance,
/// headers, TLS files and timeout: for the cache, and for a build farm (the `remote`
/// module).
///
/// # Errors
/// A message for a URL that names no server, or TLS files that cannot be read.
pub fn server_config(url: &str, options: &CacheOptions) -> Result<slangpack_cache::Config, String> {
    let mut config = slangpack_cache::Config::new(url);
    if !config.is_remote() {
        return Err(format!(
            "{url}: a cache URL is http(s)://HOST[:PORT][/PATH] or grpc(s)://HOST:PORT"
        ));
    }
    config.instance.clone_from(&options.instance);
    config.credentials.headers.clone_from(&options.headers);
    if let Some(ca) = &options.ca {
        config.credentials.ca_pem = Some(read_pem(ca, "the cache CA bundle")?);
    }
    match (&options.client_cert, &options.client_key) {
        (Some(cert), Some(key)) => {
            config.credentials.client_identity = Some((
                read_pem(cert, "the cache client certificate")?,
                read_pem(key, "the cache client key")?,
            ));
        }
        (None, None) => {}
        _ => return Err("--cache-client-cert and --cache-client-key go together".into()),
    }
    if let Some(timeout) = options.timeout {
        config.deadline = timeout;
    }
    Ok(config)
}

/// Drops `closing` on the process's closing thread, started at the first call and kept for
/// the next bakes (a thread per bake would cost about as much as the teardown it moves); where
/// no thread can be started, or it is gone, `closing` is dropped here.
fn close_in_background(closing: Box<dyn Send>) {
    type Closer = std::sync::Mutex<Option<std::sync::mpsc::Sender<Box<dyn Send>>>>;
    static CLOSER: std::sync::OnceLock<Closer> = std::sync::OnceLock::new();
    let closer = CLOSER.get_or_init(|| {
        let (send, receive) = std::sync::mpsc::channel::<Box<dyn Send>>();
        let started = std::thread::Builder::new()
            .name("slangpack-cache-close".into())
            .spawn(move || receive.into_iter().for_each(drop));
        std::sync::Mutex::new(started.ok().map(|_| send))
    });
    let sent = match closer.lock() {
        Ok(sender) => match sender.as_ref() {
            Some(sender) => sender.send(closing).map_err(|e| e.0),
            None => Err(closing),
        },
        Err(_) => Err(closing),
    };
    drop(sent);
}

/// A cache server dialed ahead of the bake's plan: the store, or why it could not be opened.
pub(crate) type Dialed = Result<Box<dyn Store>, String>;

/// The cache server `config` names itself (`--cache` with a URL), dialed now
/// ([`slangpack_cache::open`]): connected, with its Capabilities request sent, so that the
/// server answers it while the bake plans. `None` when the configuration names no server (a
/// manifest's cache is opened once the plan has read it).
pub(crate) fn dial(config: &crate::config::BakeConfig) -> Option<Dialed> {
    let url = config.cache_url.as_deref()?;
    // A location or TLS file in error is reported where the cache is opened.
    let server = server_config(url, &config.cache_options).ok()?;
    Some(slangpack_cache::open(&server))
}

/// What the bake knows of one file under its root.
#[derive(Debug, Clone)]
struct FileFacts {
    digest: Digest,
    xxh3: u64,
}

/// The most blob bytes [`Cache::prefetch`] holds ahead of the lookups.
const PREFETCH_BYTES: u64 = 256 << 20;

/// The largest package read as an assembly's result.
const MAX_PACKAGE: u64 = slangpack_cache::MAX_BLOB;

/// The largest `Tree` of inputs read.
const MAX_TREE_BLOB: u64 = 16 << 20;

/// How many compiles [`Cache::store`] gathers before sending them to the stores together:
/// a server then answers a few calls for them all (which blobs it lacks, those blobs in as
/// few batches as fit, the results several at a time) instead of several calls each.
const STORE_BATCH: usize = 32;

/// An entry as the cache stores it: a package of that one entry (`None` for a module without
/// entry points), or why it cannot be made. Compressing it is most of what storing costs the
/// bake, so a lane makes it for its own entries ([`Assembled::of`]) before handing them on,
/// beside the other lanes, rather than the cache making each in turn.
#[derive(Debug)]
pub struct Assembled(Result<Option<Vec<u8>>, String>);

impl Assembled {
    /// `entry`'s package, as [`Cache::store`] stores it.
    #[must_use]
    pub fn of(entry: Option<&BakedEntry>) -> Assembled {
        Assembled(
            entry
                .map(|entry| cache_entry(entry).map_err(|e| e.to_string()))
                .transpose(),
        )
    }

    /// An entry's package that an executor received in the cache's form ([`cache_form`]) and
    /// checked as a cache hit is checked (intact, exactly the job's key, options hash and
    /// dependencies): stored as it came.
    #[must_use]
    pub(crate) fn checked(bytes: Vec<u8>) -> Assembled {
        Assembled(Ok(Some(bytes)))
    }
}

/// How the cache stores an entry: reflection compressed, SPIR-V as it is (the `compress`
/// and `compress_spirv` of [`slangpack_pack::assemble::stored_builder`]).
const CACHE_FORM: (bool, bool) = (true, false);

/// The zstd level of an entry's reflection in the cache. Not the package's (19): an entry
/// from the cache is decompressed and compressed again when a package is assembled, so its
/// level decides only what the cache holds and sends, and level 19 costs about a millisecond
/// per entry of a cold bake (100 ms of a 100-permutation bake, on the farm's jobs or on this
/// machine) where level 3 costs a few tens of microseconds.
pub(crate) const CACHE_ZSTD_LEVEL: i32 = 3;

/// `entry` as the cache stores it: a one-entry package in [`CACHE_FORM`], its reflection at
/// [`CACHE_ZSTD_LEVEL`].
///
/// # Errors
/// When the package builder refuses the entry.
pub(crate) fn cache_entry(entry: &BakedEntry) -> Result<Vec<u8>, slangpack_pack::PackError> {
    let (compress, compress_spirv) = CACHE_FORM;
    let mut package = slangpack_pack::assemble::stored_builder(compress, compress_spirv);
    package.set_zstd_level(CACHE_ZSTD_LEVEL);
    slangpack_pack::assemble::add_entry(&mut package, entry.clone())?;
    slangpack_pack::assemble::finish(package)
}

/// Whether `package` stores its sections as the cache stores an entry ([`CACHE_FORM`]).
pub(crate) fn cache_form(package: &Package) -> bool {
    slangpack_pack::assemble::stored_as(package, CACHE_FORM.0, CACHE_FORM.1)
}

/// The cache in use by one bake: a directory, a server, or both (the directory first).
pub struct Cache {
    /// Each store, and whether it is still asked (a server that failed is not); empty while
    /// the stores are with the thread writing to them ([`Cache::write_in_background`]).
    stores: Stores,
    /// The thread writing to the stores, once the bake asks no more of the cache.
    behind: Option<writes::Behind>,
    root: PathBuf,
    /// The root, canonical: what every file a tree names must stay under (resolved at the
    /// first file read).
    canonical_root: std::sync::OnceLock<Option<PathBuf>>,
    /// Facts of files by path relative to the root (`None`: not a readable regular file
    /// inside the root), read once per bake.
    files: HashMap<String, Option<FileFacts>>,
    read_only: bool,
    verify: f64,
    /// Entries a store gave that are being compiled to compare: key -> the cached entry's
    /// package bytes.
    verifying: HashMap<String, Vec<u8>>,
    /// What [`Cache::prefetch`] asked a server for ahead of the lookups: (store, action hash)
    /// -> its result (taken once), and blobs by hash.
    prefetched: HashMap<(usize, String), Option<ActionResult>>,
    blobs: HashMap<String, Vec<u8>>,
    /// Inputs trees decoded, by blob hash: the permutations of a program share theirs.
    trees: HashMap<String, Vec<(String, Digest)>>,
    /// Actions described, by permutation key.
    described: HashMap<String, Option<action::Described>>,
    /// Compiles recorded by [`Cache::store`] and not yet sent to the stores
    /// ([`Cache::flush`]).
    pending: Vec<Put>,
    /// What went wrong, for the bake to report.
    pub warnings: Vec<String>,
    /// Cached entries that differ from compiling them: each fails the bake.
    pub mismatches: Vec<String>,
    /// Entries (and libraries) found.
    pub hits: usize,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stores: Vec<String> = self.stores.iter().map(|(s, _)| s.describe()).collect();
        f.debug_struct("Cache").field("stores", &stores).finish()
    }
}

/// The bytes of `path`, `None` when they cannot be read.
fn read_pem(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{what} {}: {e}", path.display()))
}

impl Cache {
    /// The cache in `dir` and/or at `url` for a bake rooted at `root`. A server that cannot
    /// be reached, or does not offer what the cache needs, is left out with a warning. The
    /// server at `url` is `dialed` where the bake opened it ahead (`dial`).
    ///
    /// # Errors
    /// A message for a location that is neither a directory nor a cache URL, or TLS files
    /// that cannot be read.
    pub fn new(
        dir: Option<&Path>,
        url: Option<&str>,
        root: &Path,
        options: &CacheOptions,
        dialed: Option<Dialed>,
    ) -> Result<Cache, String> {
        let mut cache = Cache {
            stores: Vec::new(),
            behind: None,
            root: root.to_path_buf(),
            canonical_root: std::sync::OnceLock::new(),
            files: HashMap::new(),
            read_only: options.read_only,
            verify: options.verify.clamp(0.0, 1.0),
            verifying: HashMap::new(),
            prefetched: HashMap::new(),
            blobs: HashMap::new(),
            trees: HashMap::new(),
            described: HashMap::new(),
            pending: Vec::new(),
            warnings: Vec::new(),
            mismatches: Vec::new(),
            hits: 0,
        };
        if let Some(dir) = dir {
            cache
                .stores
                .push((Box::new(slangpack_cache::dir::DirStore::new(dir)), true));
        }
        if let Some(url) = url {
            let opened = match dialed {
                Some(dialed) => dialed,
                None => slangpack_cache::open(&server_config(url, options)?),
            };
            match opened {
                Ok(store) => cache.stores.push((store, true)),
                Err(why) => cache
                    .warnings
                    .push(format!("cache: {why}; compiling without the remote cache")),
            }
        }
        Ok(cache)
    }

    /// Lets go of the stores once the bake is done with them, after sending what
    /// [`Cache::store`] still holds ([`Cache::flush`]). A server's connection (its
    /// client runtime and channel) is closed on a thread of its own, so that the bake's result
    /// does not wait for the teardown; where no thread can be started it is closed here.
    pub fn close(mut self) {
        // What is still gathered goes out here: the bake's result waits for its stores.
        self.flush();
        self.wait_for_writes();
        if self
            .stores
            .iter()
            .any(|(store, _)| store.describe().contains("://"))
        {
            close_in_background(Box::new(self));
        }
    }

    /// Notes that store `i` failed: a server is not asked again in this bake.
    fn failed(&mut self, i: usize, why: &str) {
        writes::failed(&mut self.stores, &mut self.warnings, i, why);
    }

    /// From now on, what [`Cache::store`] and [`Cache::store_package`] record goes to the
    /// stores on a thread of its own while the bake goes on: for when the bake has asked the
    /// cache all it will ask. Where no thread can be started, the writes stay in the caller's
    /// thread. A later lookup waits for the writes and is answered as before.
    pub fn write_in_background(&mut self) {
        let unused = !self.stores.iter().any(|(_, usable)| *usable);
        if self.behind.is_some() || self.read_only || unused {
            return;
        }
        match writes::Behind::start(std::mem::take(&mut self.stores)) {
            Ok(behind) => self.behind = Some(behind),
            Err(stores) => self.stores = stores,
        }
    }

    /// Waits for the writes handed to the writing thread ([`Cache::write_in_background`])
    /// and takes the stores back, with what went wrong in [`Cache::warnings`]; the writes
    /// after this are made in the caller's thread.
    pub fn wait_for_writes(&mut self) {
        let Some(behind) = self.behind.take() else {
            return;
        };
        match behind.finish() {
            Ok((stores, warnings)) => {
                self.stores = stores;
                self.warnings.extend(warnings);
            }
            Err(why) => self.warnings.push(format!("cache: {why}")),
        }
    }

    /// The facts of `path` (relative to the root): `None` unless it names a regular file
    /// inside the root (symlinks resolved) that can be read.
    fn file(&mut self, path: &str) -> Option<FileFacts> {
        if let Some(facts) = self.files.get(path) {
            return facts.clone();
        }
        let facts = self.read_file(path);
        self.files.insert(path.to_string(), facts.clone());
        facts
    }

    fn read_file(&self, path: &str) -> Option<FileFacts> {
        let canonical = self
            .canonical_root
            .get_or_init(|| self.root.canonicalize().ok());
        let bytes = read_inside(&self.root, canonical.as_deref(), path)?;
        Some(FileFacts {
            digest: digest_of(&bytes),
            xxh3: xxhash_rust::xxh3::xxh3_64(&bytes),
        })
    }

    /// `job`'s compile as an action; `None` when its main module cannot be read.
    fn describe(&mut self, job: &Job) -> Option<action::Described> {
        if let Some(described) = self.described.get(&job.key) {
            return described.clone();
        }
        let described = self.file(&job.relative).and_then(|source| {
            action::describe(&Permutation {
                key: &job.key,
                options_hash: job.options_hash,
                source: &job.relative,
                source_digest: source.digest,
            })
            .ok()
        });
        self.described.insert(job.key.clone(), described.clone());
        described
    }

    /// The cached outcome of `job`, if a store holds a valid one for the files as they are.
    /// A hit chosen for verification is not returned: the entry is compiled and compared.
    pub fn lookup(&mut self, job: &Job) -> Option<Cached> {
        self.wait_for_writes();
        let described = self.describe(job)?;
        for i in 0..self.stores.len() {
            if !self.stores[i].1 {
                continue;
            }
            let ahead = self.prefetched.remove(&(i, described.digest.hash.clone()));
            let answer = match ahead {
                Some(result) => Ok(result),
                None => self.stores[i].0.get_action_result(&described.digest),
            };
            let result = match answer {
                Ok(Some(result)) => result,
                Ok(None) => continue,
                Err(why) => {
                    self.failed(i, &why);
                    continue;
                }
            };
            let found = match self.check_result(i, job, &result) {
                Ok(Some(found)) => found,
                Ok(None) => continue, // the files changed since: a miss
                Err(why) => {
                    let store = self.stores[i].0.describe();
                    self.warnings.push(format!(
                        "cache: {store}: {why}; not using it for {}",
                        job.key
                    ));
                    continue;
                }
            };
            let (cached, blobs) = found;
            // Copy what a later store gave into the earlier ones (the server into the
            // directory).
            for earlier in 0..i {
                self.put(earlier, &described, &blobs, &result);
            }
            // The entry's blob comes last (see `check_result`).
            if let (Cached::Entry(_), Some((_, bytes))) = (&cached, blobs.last()) {
                if self.chosen_for_verification(&described.digest) {
                    self.verifying.insert(job.key.clone(), bytes.clone());
                    return None;
                }
            }
            self.hits += 1;
            return Some(cached);
        }
        None
    }

    /// Whether the hit of `action` is one of the share [`CacheOptions::verify`] compiles again:
    /// decided by the action's digest, so that the same hits are checked on every machine.
    fn chosen_for_verification(&self, action: &Digest) -> bool {
        if self.verify <= 0.0 {
            return false;
        }
        let head = u32::from_str_radix(action.hash.get(..8).unwrap_or("0"), 16).unwrap_or(0);
        f64::from(head) < self.verify * f64::from(u32::MAX) + 1.0
    }

    /// What `result` of store `i` gives for `job`: `Ok(None)` when the files it read have
    /// changed since, an error naming what is wrong with it otherwise; with the outcome, the
    /// blobs read (to copy into earlier stores).
    #[allow(clippy::type_complexity, reason = "one private call site")]
    fn check_result(
        &mut self,
        i: usize,
        job: &Job,
        result: &ActionResult,
    ) -> Result<Option<(Cached, Vec<(Digest, Vec<u8>)>)>, String> {
        let output = |name: &str| -> Option<&OutputFile> {
            result.output_files.iter().find(|f| f.path == name)
        };
        let Some((xxh3, inputs, tree_bytes)) = self.inputs_of(i, job, result)? else {
            return Ok(None);
        };
        let mut blobs = vec![(inputs, tree_bytes)];
        let Some(entry) = output(ENTRY_OUTPUT).and_then(|f| f.digest.clone()) else {
            return Ok(Some((Cached::Library, blobs)));
        };
        let bytes = self
            .read_blob(i, &entry)?
            .ok_or_else(|| format!("blob {} is missing", entry.hash))?;
        let baked = checked_entry(&bytes, job, &xxh3)
            .map_err(|why| format!("blob {}: {why}", entry.hash))?;
        blobs.push((entry, bytes));
        Ok(Some((Cached::Entry(baked), blobs)))
    }

    /// The files `result` (of store `i`) says `job`'s compile read, checked against the
    /// files now: `Ok(None)` when one has changed since, else their xxh3 hashes by path, with
    /// the tree's digest and bytes.
    #[allow(
        clippy::type_complexity,
        reason = "private; its two callers take it apart"
    )]
    fn inputs_of(
        &mut self,
        i: usize,
        job: &Job,
        result: &ActionResult,
    ) -> Result<Option<(HashMap<String, u64>, Digest, Vec<u8>)>, String> {
        use prost::Message;
        let inputs = result
            .output_files
            .iter()
            .find(|f| f.path == INPUTS_OUTPUT)
            .and_then(|f| f.digest.clone())
            .ok_or("the action result names no inputs")?;
        if u64::try_from(inputs.size_bytes).map_or(true, |n| n > MAX_TREE_BLOB) {
            return Err("its inputs tree is too large".into());
        }
        let tree_bytes = self
            .read_blob(i, &inputs)?
            .ok_or("its inputs tree is missing")?;
        // Kept: the permutations of a program share their tree.
        self.blobs
            .entry(inputs.hash.clone())
            .or_insert_with(|| tree_bytes.clone());
        let files = match self.trees.get(&inputs.hash) {
            Some(files) => files.clone(),
            None => {
                let tree = Tree::decode(tree_bytes.as_slice())
                    .map_err(|e| format!("its inputs tree: {e}"))?;
                let files =
                    action::tree_files(&tree).map_err(|e| format!("its inputs tree: {e}"))?;
                self.trees.insert(inputs.hash.clone(), files.clone());
                files
            }
        };
        if !files.iter().any(|(p, _)| *p == *job.relative) {
            return Err("its inputs tree does not name the main module".into());
        }
        let mut xxh3 = HashMap::new();
        for (path, digest) in &files {
            match self.file(path) {
                Some(facts) if facts.digest == *digest => {
                    xxh3.insert(path.clone(), facts.xxh3);
                }
                _ => return Ok(None),
            }
        }
        Ok(Some((xxh3, inputs, tree_bytes)))
    }

    /// Blob `blob` of store `i`: prefetched (kept: the permutations of one program share
    /// their inputs tree), or read now.
    fn read_blob(&mut self, i: usize, blob: &Digest) -> Result<Option<Vec<u8>>, String> {
        match self.blobs.get(&blob.hash) {
            Some(bytes) => Ok(Some(bytes.clone())),
            None => self.stores[i].0.read_blob(blob),
        }
    }

    /// Asks each server, ahead of the lookups of `jobs`, for all their action results at
    /// once and then for the blobs those name (at most 256 MiB in all), so that a
    /// warm bake costs a few round trips rather than three per permutation. What is asked
    /// here is checked at each lookup as if it had been asked then.
    pub fn prefetch(&mut self, jobs: &[&Job]) {
        if jobs.is_empty() {
            return;
        }
        self.wait_for_writes();
        let described: Vec<Digest> = jobs
            .iter()
            .filter_map(|job| self.describe(job).map(|d| d.digest))
            .collect();
        for i in 0..self.stores.len() {
            if !self.stores[i].1 || !self.stores[i].0.describe().contains("://") {
                continue;
            }
            // Only the actions whose `Action` the server holds can have a result there: every
            // write stores the `Action` with its result, and `FindMissingBlobs` keeps what it
            // finds alive. One call, instead of a `GetActionResult` per permutation that a
            // cold bake would spend on misses; the others are misses without asking.
            let absent: HashSet<String> = match self.stores[i].0.find_missing(&described) {
                Ok(missing) => missing.into_iter().map(|d| d.hash).collect(),
                Err(_) => HashSet::new(), // asked again below, where a failure counts
            };
            let (asked, unheld): (Vec<Digest>, Vec<Digest>) = described
                .iter()
                .cloned()
                .partition(|d| !absent.contains(&d.hash));
            for digest in unheld {
                self.prefetched.insert((i, digest.hash), None);
            }
            let described = asked;
            // What fails here is asked again at each lookup (where a failure counts).
            let Ok(results) = self.stores[i].0.get_action_results(&described) else {
                continue;
            };
            let mut wanted = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let mut budget = PREFETCH_BYTES;
            for (digest, result) in described.iter().zip(results) {
                for file in result.iter().flat_map(|r| &r.output_files) {
                    let Some(blob) = &file.digest else { continue };
                    let size = u64::try_from(blob.size_bytes).unwrap_or(u64::MAX);
                    if slangpack_cache::is_valid(blob)
                        && size <= budget
                        && seen.insert(blob.hash.clone())
                    {
                        budget -= size;
                        wanted.push(blob.clone());
                    }
                }
                self.prefetched.insert((i, digest.hash.clone()), result);
            }
            self.read_ahead(i, &wanted);
        }
    }

    /// Asks store `i` for `blobs` at once, kept for the lookups (what fails is asked again
    /// one by one where it is needed).
    fn read_ahead(&mut self, i: usize, blobs: &[Digest]) {
        if blobs.is_empty() {
            return;
        }
        if let Ok(found) = self.stores[i].0.read_blobs(blobs) {
            self.blobs
                .extend(found.into_iter().map(|(d, b)| (d.hash, b)));
        }
    }

    /// The package a store holds for a bake of `permutations` stored as `storage` says (the
    /// result of their assembly, [`action::describe_assembly`]), opened and verified
    /// (`verify_all`). What it holds is not trusted yet: the bake takes it as it takes a
    /// previous package, each entry only where its options hash and every dependency's
    /// content hash are those of the checkout now.
    ///
    /// Not asked with `--cache-verify` (its hits are compiled one by one and compared).
    pub fn package(&mut self, permutations: &[u8], storage: &[String]) -> Option<Package> {
        if self.verify > 0.0 {
            return None;
        }
        self.wait_for_writes();
        let assembly = action::describe_assembly(permutations, storage);
        for i in 0..self.stores.len() {
            if !self.stores[i].1 {
                continue;
            }
            let result = match self.stores[i].0.get_action_result(&assembly.digest) {
                Ok(Some(result)) => result,
                Ok(None) => continue,
                Err(why) => {
                    self.failed(i, &why);
                    continue;
                }
            };
            let blob = result
                .output_files
                .iter()
                .find(|f| f.path == PACKAGE_OUTPUT)
                .and_then(|f| f.digest.clone())
                .filter(|b| u64::try_from(b.size_bytes).is_ok_and(|n| n <= MAX_PACKAGE));
            let read = match blob {
                Some(blob) => self.stores[i].0.read_blob(&blob).map(|b| b.zip(Some(blob))),
                None => Err("its result names no package, or one too large".into()),
            };
            let checked = match read {
                Ok(Some((bytes, blob))) => Package::from_bytes(&bytes)
                    .and_then(|p| p.verify_all().map(|()| p))
                    .map(|package| (package, blob, bytes))
                    .map_err(|e| e.to_string()),
                Ok(None) => Err("its package is missing".into()),
                Err(why) => Err(why),
            };
            match checked {
                Ok((package, blob, bytes)) => {
                    // Copied into the earlier stores (the server's into the directory).
                    let blobs = [(blob, bytes)];
                    for earlier in 0..i {
                        self.put(earlier, &assembly, &blobs, &result);
                    }
                    return Some(package);
                }
                Err(why) => {
                    let store = self.stores[i].0.describe();
                    self.warnings
                        .push(format!("cache: {store}: the package: {why}; not using it"));
                }
            }
        }
        None
    }

    /// Stores `package`, baked from `permutations` stored as `storage` says, as the result of
    /// their assembly in every store (on the writing thread, when there is one:
    /// [`Cache::write_in_background`]).
    pub fn store_package(&mut self, permutations: &[u8], storage: &[String], package: &[u8]) {
        self.flush();
        if self.read_only || self.verify > 0.0 {
            return;
        }
        let assembly = action::describe_assembly(permutations, storage);
        let digest = digest_of(package);
        let result = ActionResult {
            output_files: vec![OutputFile {
                path: PACKAGE_OUTPUT.into(),
                digest: Some(digest.clone()),
                ..Default::default()
            }],
            ..Default::default()
        };
        self.pending.push(Put {
            described: assembly,
            blobs: vec![(digest, package.to_vec())],
            result,
        });
        self.flush();
    }

    /// Stores `blobs`, the action's own blobs and `result` in store `i` (blobs first: a
    /// result never names a blob that is not there).
    fn put(
        &mut self,
        i: usize,
        described: &action::Described,
        blobs: &[(Digest, Vec<u8>)],
        result: &ActionResult,
    ) {
        self.put_all(i, &[(described, blobs, result)]);
    }

    /// Stores each of `puts` (as [`Cache::put`] takes them) in store `i`: first the blobs it
    /// lacks (each once), then the results.
    fn put_all(&mut self, i: usize, puts: &[writes::PutRef<'_>]) {
        if let Err(why) = writes::put_all(&mut *self.stores[i].0, puts) {
            self.failed(i, &why);
        }
    }

    /// Records what compiling `job` gave (`None`: a library module) in every store, and
    /// compares it with what the cache gave where the hit was chosen for verification.
    /// `assembled`, when given, is [`Assembled::of`] `entry`, made beforehand.
    pub fn store(&mut self, job: &Job, entry: Option<&BakedEntry>, assembled: Option<Assembled>) {
        let bytes = match assembled.unwrap_or_else(|| Assembled::of(entry)).0 {
            Ok(bytes) => bytes,
            Err(e) => {
                self.warnings
                    .push(format!("cache: cannot store {}: {e}", job.key));
                return;
            }
        };
        if let Some(cached) = self.verifying.remove(&job.key) {
            if bytes.as_ref() != Some(&cached) {
                self.mismatches.push(format!(
                    "the cache gave an entry for {} ({}) that differs from compiling it ({})",
                    job.key,
                    digest_of(&cached).hash,
                    bytes
                        .as_deref()
                        .map_or("no entry".into(), |b| digest_of(b).hash)
                ));
            }
            self.hits += 1;
        }
        let unused = self.stores.iter().all(|(_, usable)| !usable);
        if self.read_only || (self.behind.is_none() && unused) {
            return;
        }
        let Some(described) = self.describe(job) else {
            return;
        };
        let mut inputs: Vec<String> = match entry {
            Some(entry) => entry.dependencies.iter().map(|(p, _)| p.clone()).collect(),
            None => Vec::new(),
        };
        if !inputs.iter().any(|p| **p == *job.relative) {
            inputs.push(job.relative.to_string());
        }
        let mut files = Vec::new();
        for path in inputs {
            // A file outside the root, or unreadable now: the entry is not cached.
            let Some(facts) = self.file(&path) else {
                return;
            };
            files.push((path, facts.digest));
        }
        let Ok(tree) = action::tree_of(&files) else {
            return;
        };
        let (tree_digest, tree_bytes) = encoded(&tree);
        let mut blobs = vec![(tree_digest.clone(), tree_bytes)];
        let mut result = ActionResult::default();
        if let Some(bytes) = bytes {
            let digest = digest_of(&bytes);
            result.output_files.push(OutputFile {
                path: ENTRY_OUTPUT.into(),
                digest: Some(digest.clone()),
                ..Default::default()
            });
            blobs.push((digest, bytes));
        }
        result.output_files.push(OutputFile {
            path: INPUTS_OUTPUT.into(),
            digest: Some(tree_digest),
            ..Default::default()
        });
        self.pending.push(Put {
            described,
            blobs,
            result,
        });
        if self.pending.len() >= STORE_BATCH {
            self.flush();
        }
    }

    /// Sends what [`Cache::store`] gathered to every store still in use (also done when the
    /// cache is dropped, and before [`Cache::store_package`]): to the writing thread when
    /// there is one ([`Cache::write_in_background`]), else written here.
    pub fn flush(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        if pending.is_empty() {
            return;
        }
        if let Some(behind) = &self.behind {
            if behind.send(pending).is_err() {
                // The thread is gone, and the stores with it: reported as it is waited for.
                self.wait_for_writes();
            }
            return;
        }
        writes::write(&mut self.stores, &mut self.warnings, &pending);
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        // A bake that stops early keeps what it compiled.
        self.flush();
        self.wait_for_writes();
    }
}

/// The bytes of `path` when it is a relative path of plain names naming a regular file inside
/// `root` (whose canonical form is `canonical_root`; symlinks resolved), read up to the
/// cache's blob limit; `None` otherwise, without opening anything that is not such a file:
/// how paths a cache names are read.
pub(crate) fn read_inside(
    root: &Path,
    canonical_root: Option<&Path>,
    path: &str,
) -> Option<Vec<u8>> {
    use std::io::Read;
    action::check_path(path).ok()?;
    let full = root.join(path);
    let inside = full
        .canonicalize()
        .ok()
        .zip(canonical_root)
        .is_some_and(|(f, r)| f.starts_with(r));
    if !inside {
        return None;
    }
    let (file, _) = slangpack_reader::open_regular_file(&full).ok()?;
    let mut bytes = Vec::new();
    file.take(slangpack_cache::MAX_BLOB)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

/// The entry in `bytes` when it is a package of exactly `job`'s entry, intact, baked with its
/// options hash from the files `xxh3` names as they are now.
fn checked_entry(
    bytes: &[u8],
    job: &Job,
    xxh3: &HashMap<String, u64>,
) -> Result<BakedEntry, String> {
    let package = Package::from_bytes(bytes).map_err(|e| e.to_string())?;
    package.verify_all().map_err(|e| e.to_string())?;
    let entry = match (package.len(), package.load(&job.key)) {
        (1, Ok(entry)) => entry,
        _ => return Err(format!("not the entry {}", job.key)),
    };
    let recorded: HashMap<String, u64> = entry
        .dependencies()
        .map(|d| (d.path().to_string(), d.content_hash()))
        .collect();
    let same_files =
        recorded.len() <= xxh3.len() && recorded.iter().all(|(p, h)| xxh3.get(p) == Some(h));
    if entry.options_hash() != job.options_hash || !same_files {
        return Err("baked from other inputs".into());
    }
    slangpack_pack::merge::baked_entry(&entry).map_err(|e| e.to_string())
}

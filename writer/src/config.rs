//! A bake's configuration and the reports its stages give back: the types every stage
//! (plan, reuse, execute, assemble) reads (the cache's, the workers' and the build farm's
//! settings and the shard among them), kept apart from the stages themselves so that none
//! of them imports another to learn what it was asked to do.

use crate::compile::CompileOptions;
use crate::error::BakeError;
use slangpack_pack::assemble::BakedEntry;
use std::path::PathBuf;
use std::time::Duration;

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
    /// Store reflection zstd-compressed (the default) or raw. Compressed with raw SPIR-V
    /// ([`compress_spirv`](Self::compress_spirv) off), each blob's bind view is stored as raw
    /// zstd blocks and only its raw tables are compressed: a load decompresses nothing.
    pub compress: bool,
    /// Store SPIR-V zstd-compressed, packed, consecutive modules in one frame (a module run of
    /// up to 64 KiB of packed bytes) against a dictionary shared across the package's modules
    /// and blobs, the bind views of consecutive blobs sharing raw tables in one frame too (a
    /// bind-view run of up to 16 KiB), and the directory as one compressed
    /// index: the default, the smallest layout that keeps every entry loadable on its own
    /// (a load decompresses the entry's modules once, and `spirv()` then borrows them). Off
    /// (`--spirv raw`, or `compress_spirv = false` in a manifest's `[package]` table), SPIR-V
    /// is stored as it is and served straight from a mapping.
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
    /// are available (Linux, see the `worker` module).
    pub in_process: bool,
    /// Limits of each compile job in a worker process.
    pub limits: Limits,
    /// A shared cache directory (`--cache DIR`, see the `cache` module): entries found there
    /// for the inputs as they are are taken instead of compiled, and compiled ones are stored.
    pub cache: Option<PathBuf>,
    /// A cache server (`--cache URL` or `--cache-url URL`): `http(s)://host[:port][/path]`
    /// speaking the Bazel HTTP cache protocol, or `grpc(s)://host:port` speaking the Remote
    /// Execution API; asked after [`BakeConfig::cache`]; see the `cache` module.
    pub cache_url: Option<String>,
    /// Credentials, TLS files, read-only and verification of the cache
    /// ([`CacheOptions`]); none of it is part of any entry's options hash.
    pub cache_options: CacheOptions,
    /// A build farm the compiles run on (`--remote-executor`, see the `remote` module); its
    /// server is also the cache where no other is named.
    pub remote: Option<RemoteSettings>,
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
            .field("cache_options", &self.cache_options)
            .field("remote", &self.remote)
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
            compress_spirv: true,
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
            keep_going: false,
            previous: None,
            progress: None,
            shard: None,
            in_process: !workers_available(),
            limits: Limits::default(),
            cache: None,
            cache_url: None,
            cache_options: CacheOptions::default(),
            remote: None,
        }
    }
}

/// One entry of a bake's package, as a bake's outcome (`BakeOutcome`) reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryReport {
    /// The permutation key.
    pub key: String,
    /// How many entry points it has.
    pub entry_points: usize,
    /// Files read, relative to the bake root, with their xxh3-64 content hashes.
    pub dependencies: Vec<(String, u64)>,
    /// Slang's warnings, verbatim (empty when none, and for an entry reused from the
    /// previous package).
    pub warnings: String,
}

impl EntryReport {
    /// The report of `entry`, as it was compiled or taken from a cache.
    #[must_use]
    pub fn of(entry: &BakedEntry) -> EntryReport {
        EntryReport {
            key: entry.key.clone(),
            entry_points: entry.entry_points.len(),
            dependencies: entry.dependencies.clone(),
            warnings: entry.warnings.clone(),
        }
    }
}

/// Whether compile jobs can run in worker processes on this system (Linux only).
pub fn workers_available() -> bool {
    cfg!(target_os = "linux")
}

/// Limits of one compile job in a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time one job may take.
    pub timeout: Duration,
    /// Address space of a worker in MiB (`RLIMIT_AS`); `None`: unlimited.
    pub memory_mib: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(300),
            memory_mib: None,
        }
    }
}

/// How a bake talks to its cache, beside where it is (see docs/cli.md, "The team cache").
#[derive(Clone, Default)]
pub struct CacheOptions {
    /// The REAPI instance name (`--cache-instance`; gRPC only).
    pub instance: String,
    /// Headers sent with every request (`--cache-header NAME=VALUE`), values resolved.
    pub headers: Vec<(String, String)>,
    /// A PEM bundle of the authorities the server's certificate must chain to (`--cache-ca`).
    pub ca: Option<PathBuf>,
    /// A PEM client certificate (`--cache-client-cert`), for mutual TLS.
    pub client_cert: Option<PathBuf>,
    /// The PEM private key of [`CacheOptions::client_cert`] (`--cache-client-key`).
    pub client_key: Option<PathBuf>,
    /// Read from the cache, never write to it (`--cache-read-only`).
    pub read_only: bool,
    /// The share of hits (0 to 1) compiled anyway and compared byte for byte with what the
    /// cache gave (`--cache-verify`); a difference fails the bake.
    pub verify: f64,
    /// The longest one request may take (`--cache-timeout`); 30 s when `None`.
    pub timeout: Option<Duration>,
}

impl std::fmt::Debug for CacheOptions {
    /// Header names only: values are secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("CacheOptions")
            .field("instance", &self.instance)
            .field("headers", &names)
            .field("ca", &self.ca)
            .field("client_cert", &self.client_cert)
            .field("client_key", &self.client_key.as_ref().map(|_| "(set)"))
            .field("read_only", &self.read_only)
            .field("verify", &self.verify)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// A cache header as `--cache-header` and a manifest's `[cache.headers]` give it: `VALUE`,
/// `@FILE` (the file's first line, trimmed) or `env:VAR` (that environment variable); the
/// value never appears in an error message.
///
/// # Errors
/// A message for a name that is not a header name, a file or variable that cannot be read,
/// or a value holding a control character.
pub fn resolve_header(name: &str, value: &str) -> Result<(String, String), String> {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    if name.is_empty() || !name.bytes().all(plain) {
        return Err(format!("cache header {name:?}: not a header name"));
    }
    let value = if let Some(file) = value.strip_prefix('@') {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cache header {name}: {file}: {e}"))?;
        text.lines().next().unwrap_or_default().trim().to_string()
    } else if let Some(var) = value.strip_prefix("env:") {
        std::env::var(var).map_err(|_| {
            format!("cache header {name}: the environment variable {var} is not set")
        })?
    } else {
        value.to_string()
    };
    if value.bytes().any(|b| b.is_ascii_control()) {
        return Err(format!(
            "cache header {name}: the value holds a control character"
        ));
    }
    Ok((name.to_string(), value))
}

/// Where a bake's cache is and how to talk to it: what `--cache` and its options, a
/// manifest's `[cache]` table or the `build.rs` API (`Bake::cache`) give.
#[derive(Debug, Clone, Default)]
pub struct CacheSettings {
    /// A cache directory.
    pub dir: Option<PathBuf>,
    /// A cache server URL.
    pub url: Option<String>,
    /// Credentials, TLS files, read-only and verification.
    pub options: CacheOptions,
}

impl CacheSettings {
    /// Adds `location`: a URL (`scheme://...`) or a directory.
    ///
    /// # Errors
    /// A message when a second directory or a second server is given.
    pub fn add_location(&mut self, location: &str) -> Result<(), String> {
        if location.contains("://") {
            if self.url.replace(location.to_string()).is_some() {
                return Err("at most one cache server".into());
            }
        } else if self.dir.replace(PathBuf::from(location)).is_some() {
            return Err("at most one cache directory".into());
        }
        Ok(())
    }
}

/// Where a bake's compiles run when a build farm is named.
#[derive(Debug, Clone)]
pub struct RemoteSettings {
    /// The farm: `grpc://HOST:PORT` or `grpcs://HOST:PORT`.
    pub url: String,
    /// Instance name, headers, TLS files and timeout: the cache's options
    /// ([`CacheOptions`]), shared by the farm.
    pub options: CacheOptions,
    /// Compile locally, with one warning, when the farm cannot be reached or refuses
    /// (`--remote-fallback`, on by default).
    pub fallback: bool,
    /// How many permutations one action compiles (`--remote-batch`); `None` chooses from
    /// the number of permutations and of actions in flight (see the `remote` module).
    pub batch: Option<usize>,
    /// Platform properties naming the toolchain on a farm that provisions its own workers
    /// (`--remote-platform KEY=VALUE`: `container-image`, `OSFamily`); empty (the default),
    /// the toolchain travels in each action's input root instead.
    pub platform: Vec<(String, String)>,
}

/// One of `count` slices of a bake's permutations (`slangpack bake --shard K/N`), so that
/// separate machines bake slices that `slangpack merge` joins into exactly the package one
/// bake makes.
///
/// The slices are balanced by count (their sizes differ by at most one) and depend only on
/// the permutation keys: the keys are sorted and dealt out in turn, the first to slice 1, the
/// second to slice 2, and so on, so every machine computes the same slices whatever its
/// thread count or directory order, and the programs a slice gets are spread over the key
/// range rather than bunched (permutations of one heavy program go to different slices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// Slice `index` (1-based) of `count`.
    ///
    /// # Errors
    /// [`BakeError::Input`] unless `1 <= index <= count`.
    pub fn new(index: usize, count: usize) -> Result<Shard, BakeError> {
        if count == 0 || index == 0 || index > count {
            return Err(BakeError::Input(format!(
                "shard {index}/{count}: expected K/N with 1 <= K <= N"
            )));
        }
        Ok(Shard { index, count })
    }

    /// The slice's number, 1-based.
    pub fn index(self) -> usize {
        self.index
    }

    /// How many slices there are.
    pub fn count(self) -> usize {
        self.count
    }
}

impl std::str::FromStr for Shard {
    type Err = BakeError;

    /// Parses `K/N` (1-based: `1/3`, `2/3`, `3/3`).
    fn from_str(text: &str) -> Result<Shard, BakeError> {
        let parsed = text
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) => Shard::new(index, count),
            None => Err(BakeError::Input(format!(
                "shard `{text}`: expected K/N, e.g. 2/4"
            ))),
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

//! A bake's configuration and the reports its stages give back: the types every stage
//! (plan, reuse, execute, assemble) reads, kept apart from the stages themselves so that none
//! of them imports another to learn what it was asked to do.

use crate::compile::CompileOptions;
use crate::plan::Shard;
use slangpack_pack::assemble::BakedEntry;
use std::path::PathBuf;

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
    /// Store SPIR-V zstd-compressed, each module in a frame of its own against a dictionary
    /// shared across the package's modules and blobs, and the directory as one compressed
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
    /// are available (Linux, see [`crate::worker`]).
    pub in_process: bool,
    /// Limits of each compile job in a worker process.
    pub limits: crate::worker::Limits,
    /// A shared cache directory (`--cache DIR`, see [`crate::cache`]): entries found there
    /// for the inputs as they are are taken instead of compiled, and compiled ones are stored.
    pub cache: Option<PathBuf>,
    /// A cache server (`--cache URL` or `--cache-url URL`): `http(s)://host[:port][/path]`
    /// speaking the Bazel HTTP cache protocol, or `grpc(s)://host:port` speaking the Remote
    /// Execution API; asked after [`BakeConfig::cache`]; see [`crate::cache`].
    pub cache_url: Option<String>,
    /// Credentials, TLS files, read-only and verification of the cache
    /// ([`crate::cache::CacheOptions`]); none of it is part of any entry's options hash.
    pub cache_options: crate::cache::CacheOptions,
    /// A build farm the compiles run on (`--remote-executor`, see [`crate::remote`]); its
    /// server is also the cache where no other is named.
    pub remote: Option<crate::remote::RemoteSettings>,
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
            in_process: !crate::worker::available(),
            limits: crate::worker::Limits::default(),
            cache: None,
            cache_url: None,
            cache_options: crate::cache::CacheOptions::default(),
            remote: None,
        }
    }
}

/// One entry of a bake's package, as [`crate::bake::BakeOutcome`] reports it.
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

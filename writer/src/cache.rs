//! A shared bake cache in a directory (`slangpack bake --cache DIR`) and/or on a server
//! speaking the Bazel remote-cache HTTP protocol (`--cache-url URL`): entries compiled once
//! are reused by every checkout and CI job that points at the same cache, whatever its path,
//! instead of being compiled again.
//!
//! The store is content-addressed, laid out as the Bazel remote-cache protocol names things:
//!
//! - `DIR/ac/<sha256>` — the action record of one permutation: the SHA-256 of what decides the
//!   entry before compiling it (see [`action_key`]) names a small text file saying what the
//!   compile produced (`entry <sha256>`, or `library` for a module without entry points) and
//!   every file it read, as `dep <xxh3-64> <path relative to the bake root>` lines.
//! - `DIR/cas/<sha256>` — a blob, named by the SHA-256 of its bytes: the entry as a package
//!   of one entry (its SPIR-V, reflection, further targets' code, dependencies and options
//!   hash, exactly as the bake stores them).
//!
//! A lookup hits when the action record exists, every dependency it lists has the recorded
//! content now, and the blob exists, has the SHA-256 it is named by, opens and verifies as a
//! package (`verify_all`), and holds exactly that key, options hash and dependency list.
//! Anything else — a missing, truncated or corrupt file, an unreadable directory — is a miss
//! (with a warning where something was wrong), and the entry is compiled as usual; a cache
//! never fails a bake. Files are written atomically (a temporary file renamed into place), so
//! concurrent bakes sharing a directory see whole files or none.
//!
//! What the key covers: the entry's options hash (this writer build, the format version, the
//! Slang version, every compile option and target, include directories relative to the bake
//! root), the permutation key, the main module's path relative to the bake root and its
//! content; the action record then names every other file the compile read, by relative path
//! and content. What it does not cover: files Slang did not report reading, and the
//! environment outside the options (it is the same as for incremental rebakes). Warnings of a
//! cached entry are not kept.

use crate::plan::Job;
use slangpack_pack::assemble::BakedEntry;
use slangpack_reader::Package;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a lookup found.
#[derive(Debug)]
pub enum Cached {
    /// The entry, as it was baked.
    Entry(BakedEntry),
    /// The job is a module without entry points (found by scanning a directory).
    Library,
}

/// Where cache files are kept.
#[derive(Debug)]
enum Store {
    /// A directory (`--cache DIR`).
    Dir(PathBuf),
    /// A server speaking the Bazel remote-cache HTTP protocol (`--cache-url URL`); `false`
    /// once it failed in this bake (it is not asked again: one timeout, not one per job).
    Http(crate::remote::HttpStore, bool),
}

impl Store {
    fn name(&self) -> String {
        match self {
            Store::Dir(dir) => dir.display().to_string(),
            Store::Http(..) => "the remote cache".to_string(),
        }
    }

    fn usable(&self) -> bool {
        !matches!(self, Store::Http(_, false))
    }

    fn get(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        match self {
            Store::Dir(dir) => match std::fs::read(dir.join(name)) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(format!("{name}: {e}")),
            },
            Store::Http(http, _) => http.get(name),
        }
    }

    /// Stores `bytes` as `name` unless it is there (a blob is named by its content: an
    /// existing one of that name is taken as whole, except in a directory, where a damaged one
    /// is noticed and replaced).
    fn put(&self, name: &str, bytes: &[u8], content_named: bool) -> Result<(), String> {
        match self {
            Store::Dir(dir) => {
                let path = dir.join(name);
                if std::fs::read(&path).ok().as_deref() == Some(bytes) {
                    return Ok(());
                }
                slangpack_pack::write_atomically(&path, bytes).map_err(|e| e.to_string())
            }
            Store::Http(http, _) => {
                if content_named && http.has(name)? {
                    return Ok(());
                }
                http.put(name, bytes)
            }
        }
    }
}

/// The cache in use by one bake: a directory, a remote, or both (the directory first; what
/// the remote gives is copied into the directory).
#[derive(Debug)]
pub struct Cache {
    stores: Vec<Store>,
    root: PathBuf,
    /// xxh3-64 of files by path relative to the root (`None`: unreadable), read once per bake.
    hashes: HashMap<String, Option<u64>>,
    /// What went wrong, for the bake to report.
    pub warnings: Vec<String>,
    /// Entries (and libraries) found.
    pub hits: usize,
}

impl Cache {
    /// The cache in `dir` and/or at `url` for a bake rooted at `root` (the directory is
    /// created at the first store).
    ///
    /// # Errors
    /// A message for a URL that is not `http://host[:port][/path]`.
    pub fn new(dir: Option<&Path>, url: Option<&str>, root: &Path) -> Result<Cache, String> {
        let mut stores = Vec::new();
        if let Some(dir) = dir {
            stores.push(Store::Dir(dir.to_path_buf()));
        }
        if let Some(url) = url {
            stores.push(Store::Http(crate::remote::HttpStore::new(url)?, true));
        }
        Ok(Cache {
            stores,
            root: root.to_path_buf(),
            hashes: HashMap::new(),
            warnings: Vec::new(),
            hits: 0,
        })
    }

    /// Notes that store `i` failed; a remote is not asked again in this bake.
    fn failed(&mut self, i: usize, why: &str) {
        let name = self.stores[i].name();
        if let Store::Http(_, usable) = &mut self.stores[i] {
            *usable = false;
            self.warnings.push(format!(
                "cache: {why}; not using the remote cache for the rest of this bake"
            ));
        } else {
            self.warnings.push(format!("cache: {name}: {why}"));
        }
    }

    fn content_hash(&mut self, path: &str) -> Option<u64> {
        let root = &self.root;
        *self.hashes.entry(path.to_string()).or_insert_with(|| {
            std::fs::read(root.join(path))
                .ok()
                .map(|bytes| xxhash_rust::xxh3::xxh3_64(&bytes))
        })
    }

    /// The action key of `job`: SHA-256 (hex) of the options hash, the key, the main
    /// module's relative path and its content hash; `None` when the source cannot be read.
    fn key_of(&mut self, job: &Job) -> Option<String> {
        let content = self.content_hash(&job.relative)?;
        Some(action_key(
            job.options_hash,
            &job.key,
            &job.relative,
            content,
        ))
    }

    /// The cached outcome of `job`, if a store holds a valid one for the files as they are.
    pub fn lookup(&mut self, job: &Job) -> Option<Cached> {
        let key = self.key_of(job)?;
        for i in 0..self.stores.len() {
            if !self.stores[i].usable() {
                continue;
            }
            let name = format!("ac/{key}");
            let record = match self.stores[i].get(&name) {
                Ok(Some(record)) => record,
                Ok(None) => continue,
                Err(why) => {
                    self.failed(i, &why);
                    continue;
                }
            };
            let Some(action) = std::str::from_utf8(&record).ok().and_then(Action::parse) else {
                let store = self.stores[i].name();
                self.warnings.push(format!(
                    "cache: {store}: the action record {key} is malformed; not using it for {}",
                    job.key
                ));
                continue;
            };
            let unchanged = action
                .dependencies
                .iter()
                .all(|(hash, path)| self.content_hash(path) == Some(*hash));
            if !unchanged {
                continue;
            }
            let found = match &action.output {
                Output::Library => Some((Cached::Library, None)),
                Output::Entry(blob) => match self.entry(i, blob, job, &action) {
                    Ok((entry, bytes)) => Some((Cached::Entry(entry), Some((blob.clone(), bytes)))),
                    Err(why) => {
                        let store = self.stores[i].name();
                        self.warnings.push(format!(
                            "cache: {store}: {why}; not using it for {}",
                            job.key
                        ));
                        None
                    }
                },
            };
            if let Some((found, blob)) = found {
                // Copy what a later store gave into the earlier ones (the remote into the
                // directory).
                for earlier in 0..i {
                    let stored = blob
                        .as_ref()
                        .map_or(Ok(()), |(name, bytes)| {
                            self.stores[earlier].put(&format!("cas/{name}"), bytes, true)
                        })
                        .and_then(|()| {
                            self.stores[earlier].put(&format!("ac/{key}"), &record, false)
                        });
                    if let Err(why) = stored {
                        self.failed(earlier, &why);
                    }
                }
                self.hits += 1;
                return Some(found);
            }
        }
        None
    }

    /// The blob `blob` of store `i`, checked as untrusted input, and its bytes.
    fn entry(
        &self,
        i: usize,
        blob: &str,
        job: &Job,
        action: &Action,
    ) -> Result<(BakedEntry, Vec<u8>), String> {
        use sha2::Digest;
        let bytes = match self.stores[i].get(&format!("cas/{blob}")) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Err(format!("blob {blob} is missing")),
            Err(why) => return Err(why),
        };
        if hex(&sha2::Sha256::digest(&bytes)) != blob {
            return Err(format!("blob {blob} does not have its SHA-256"));
        }
        let package = Package::from_bytes(&bytes).map_err(|e| format!("blob {blob}: {e}"))?;
        package
            .verify_all()
            .map_err(|e| format!("blob {blob}: {e}"))?;
        let entry = match (package.len(), package.load(&job.key)) {
            (1, Ok(entry)) => entry,
            _ => return Err(format!("blob {blob} is not the entry {}", job.key)),
        };
        let dependencies: Vec<(u64, String)> = entry
            .dependencies()
            .map(|d| (d.content_hash(), d.path().to_string()))
            .collect();
        if entry.options_hash() != job.options_hash || dependencies != action.dependencies {
            return Err(format!("blob {blob} was baked from other inputs"));
        }
        let entry =
            slangpack_pack::merge::baked_entry(&entry).map_err(|e| format!("blob {blob}: {e}"))?;
        Ok((entry, bytes))
    }

    /// Records what compiling `job` gave (`None`: a library module) in every store.
    pub fn store(&mut self, job: &Job, entry: Option<&BakedEntry>) {
        use sha2::Digest;
        let Some(key) = self.key_of(job) else {
            return;
        };
        let (output, dependencies, blob) = match entry {
            Some(entry) => {
                let bytes =
                    match slangpack_pack::assemble::assemble(std::slice::from_ref(entry), true) {
                        Ok(bytes) => bytes,
                        Err(e) => {
                            self.warnings
                                .push(format!("cache: cannot store {}: {e}", job.key));
                            return;
                        }
                    };
                let name = hex(&sha2::Sha256::digest(&bytes));
                let deps = entry
                    .dependencies
                    .iter()
                    .map(|(path, hash)| (*hash, path.clone()))
                    .collect();
                (Output::Entry(name.clone()), deps, Some((name, bytes)))
            }
            None => {
                let Some(hash) = self.content_hash(&job.relative) else {
                    return;
                };
                (
                    Output::Library,
                    vec![(hash, job.relative.to_string())],
                    None,
                )
            }
        };
        let record = Action {
            output,
            dependencies,
        }
        .render();
        for i in 0..self.stores.len() {
            if !self.stores[i].usable() {
                continue;
            }
            // The blob first: a record never names a blob that is not there.
            let stored = blob
                .as_ref()
                .map_or(Ok(()), |(name, bytes)| {
                    self.stores[i].put(&format!("cas/{name}"), bytes, true)
                })
                .and_then(|()| self.stores[i].put(&format!("ac/{key}"), record.as_bytes(), false));
            if let Err(why) = stored {
                let why = format!("cannot store {}: {why}", job.key);
                self.failed(i, &why);
            }
        }
    }
}

/// The action key of a permutation (SHA-256, lower-case hex): its options hash (see
/// [`crate::plan::options_hash`]), its key, its main module's path relative to the bake root and that
/// file's xxh3-64.
pub fn action_key(options_hash: u64, key: &str, source: &str, content: u64) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(b"slangpack-cache-v1\0");
    h.update(options_hash.to_le_bytes());
    for text in [key, source] {
        h.update((text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    }
    h.update(content.to_le_bytes());
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, PartialEq, Eq)]
enum Output {
    Entry(String),
    Library,
}

/// An action record: what the compile produced and every file it read.
#[derive(Debug, PartialEq, Eq)]
struct Action {
    output: Output,
    dependencies: Vec<(u64, String)>,
}

impl Action {
    fn render(&self) -> String {
        let mut text = match &self.output {
            Output::Entry(blob) => format!("slangpack-cache-v1\nentry {blob}\n"),
            Output::Library => "slangpack-cache-v1\nlibrary\n".to_string(),
        };
        for (hash, path) in &self.dependencies {
            text.push_str(&format!("dep {hash:016x} {path}\n"));
        }
        text
    }

    fn parse(text: &str) -> Option<Action> {
        let mut lines = text.lines();
        if lines.next()? != "slangpack-cache-v1" {
            return None;
        }
        let output = match lines.next()?.split_once(' ') {
            Some(("entry", blob))
                if blob.len() == 64 && blob.bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                Output::Entry(blob.to_ascii_lowercase())
            }
            None if text.lines().nth(1) == Some("library") => Output::Library,
            _ => return None,
        };
        let mut dependencies = Vec::new();
        for line in lines {
            let rest = line.strip_prefix("dep ")?;
            let (hash, path) = rest.split_once(' ')?;
            dependencies.push((u64::from_str_radix(hash, 16).ok()?, path.to_string()));
        }
        Some(Action {
            output,
            dependencies,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_records_round_trip_and_bad_ones_are_refused() {
        let action = Action {
            output: Output::Entry("ab".repeat(32)),
            dependencies: vec![(7, "a b/c.slang".into()), (u64::MAX, "d.slang".into())],
        };
        assert_eq!(Action::parse(&action.render()), Some(action));
        let library = Action {
            output: Output::Library,
            dependencies: vec![(1, "lib.slang".into())],
        };
        assert_eq!(Action::parse(&library.render()), Some(library));
        for bad in [
            "",
            "slangpack-cache-v2\nlibrary\n",
            "slangpack-cache-v1\nentry xyz\n",
            "slangpack-cache-v1\nlibrary\ndep zz a\n",
            "slangpack-cache-v1\nlibrary\nother\n",
        ] {
            assert_eq!(Action::parse(bad), None, "{bad:?}");
        }
        assert_ne!(
            action_key(1, "k", "k.slang", 2),
            action_key(1, "k", "k.slang", 3)
        );
        assert_ne!(
            action_key(1, "k", "k.slang", 2),
            action_key(2, "k", "k.slang", 2)
        );
    }
}

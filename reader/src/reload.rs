//! Hot reload: noticing that a package file was replaced and saying what changed (see
//! [`Reloader`]).

use crate::error::{Error, Result};
use crate::package::{Entry, Package};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// What tells one file from another at a path: device and inode (0 where the platform has no
/// such numbers), size and modification time. A package replaced by rename (how the writer
/// replaces packages) is always a new inode; a file rewritten in place (which readers must not
/// be exposed to: see [`Package::open`]) is noticed through its size or modification time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    /// The file system's device number.
    pub device: u64,
    /// The inode number.
    pub inode: u64,
    /// The size in bytes.
    pub len: u64,
    /// The modification time, where the platform reports one.
    pub modified: Option<SystemTime>,
}

impl FileIdentity {
    /// The identity of the file at `path` now (following symbolic links).
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) when the file cannot be queried (it does not exist, say).
    pub fn of(path: impl AsRef<Path>) -> Result<FileIdentity> {
        let path = path.as_ref();
        let metadata = std::fs::metadata(path)
            .map_err(|e| Error::io(format!("cannot stat {}", path.display()), e))?;
        Ok(FileIdentity::from_metadata(&metadata))
    }

    fn from_metadata(metadata: &std::fs::Metadata) -> FileIdentity {
        #[cfg(unix)]
        let (device, inode) = {
            use std::os::unix::fs::MetadataExt;
            (metadata.dev(), metadata.ino())
        };
        #[cfg(not(unix))]
        let (device, inode) = (0, 0);
        FileIdentity {
            device,
            inode,
            len: metadata.len(),
            modified: metadata.modified().ok(),
        }
    }
}

/// How an entry changed between two packages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// The key is new.
    Added,
    /// The key is gone.
    Removed,
    /// Only code changed (SPIR-V or further targets' code): the reflection and the entry
    /// points' declarations are byte for byte the same, so layouts made from the old entry
    /// still fit.
    Code,
    /// The reflection (bindings, layouts, ...) or the entry points' declarations changed, and
    /// perhaps the code too.
    Layout,
}

/// One key that differs between the old and the new package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyChange {
    key: String,
    kind: ChangeKind,
}

impl KeyChange {
    /// The permutation key.
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// How it changed.
    #[must_use]
    pub fn kind(&self) -> ChangeKind {
        self.kind
    }

    /// Whether layouts made from the old entry must be remade (added, or the layout changed).
    #[must_use]
    pub fn layout_changed(&self) -> bool {
        matches!(self.kind, ChangeKind::Added | ChangeKind::Layout)
    }
}

/// What one reload found: the package it replaced and the keys that differ.
#[derive(Debug)]
pub struct Reload {
    previous: Arc<Package>,
    changes: Vec<KeyChange>,
}

impl Reload {
    /// The package that was replaced; it stays valid until its last clone is dropped.
    #[must_use]
    pub fn previous(&self) -> &Arc<Package> {
        &self.previous
    }

    /// The keys that differ, in key order; empty when the new file holds the same entries
    /// (a rebake that changed nothing an engine sees).
    #[must_use]
    pub fn changes(&self) -> &[KeyChange] {
        &self.changes
    }

    /// How `key` changed, or `None` when it is the same in both packages (or in neither).
    #[must_use]
    pub fn change(&self, key: &str) -> Option<ChangeKind> {
        self.changes
            .binary_search_by(|c| c.key.as_str().cmp(key))
            .ok()
            .and_then(|i| self.changes.get(i))
            .map(|c| c.kind)
    }
}

/// Compares two packages key by key (see [`Reloader`] for what counts as a change of code and
/// of layout); the changes come in key order.
///
/// # Errors
/// The first entry of either package that fails to load, as [`Package::load_at`] reports it.
pub fn compare(old: &Package, new: &Package) -> Result<Vec<KeyChange>> {
    let mut changes = Vec::new();
    let (mut o, mut n) = (0, 0);
    let old_keys: Vec<&str> = sorted_keys(old);
    let new_keys: Vec<&str> = sorted_keys(new);
    loop {
        let change = match (old_keys.get(o).copied(), new_keys.get(n).copied()) {
            (None, None) => break,
            (Some(a), Some(b)) if a == b => {
                o += 1;
                n += 1;
                entry_change(&old.load(a)?, &new.load(a)?).map(|kind| (a, kind))
            }
            (Some(a), None) => {
                o += 1;
                Some((a, ChangeKind::Removed))
            }
            (Some(a), Some(b)) if a < b => {
                o += 1;
                Some((a, ChangeKind::Removed))
            }
            (_, Some(b)) => {
                n += 1;
                Some((b, ChangeKind::Added))
            }
        };
        if let Some((key, kind)) = change {
            changes.push(KeyChange {
                key: key.to_string(),
                kind,
            });
        }
    }
    Ok(changes)
}

fn sorted_keys(package: &Package) -> Vec<&str> {
    let mut keys: Vec<&str> = package.keys().collect();
    keys.sort_unstable();
    keys
}

/// Whether two entries' whole reflection blobs are byte-identical (raw tables that do not
/// load count as a difference).
fn same_reflection(old: &Entry<'_>, new: &Entry<'_>) -> bool {
    match (old.reflection(), new.reflection()) {
        (Ok(a), Ok(b)) => a.as_bytes() == b.as_bytes(),
        _ => false,
    }
}

/// How `new` differs from `old` (one key in two packages), or `None` when it does not.
fn entry_change(old: &Entry<'_>, new: &Entry<'_>) -> Option<ChangeKind> {
    if old.has_reflection() != new.has_reflection()
        || !same_reflection(old, new)
        || !old
            .entry_points()
            .map(|ep| declared(&ep))
            .eq(new.entry_points().map(|ep| declared(&ep)))
    {
        return Some(ChangeKind::Layout);
    }
    let same_code = old.entry_points().zip(new.entry_points()).all(|(a, b)| {
        a.spirv() == b.spirv()
            && a.targets()
                .map(|t| (t.target(), t.entry_name(), t.bytes()))
                .eq(b.targets().map(|t| (t.target(), t.entry_name(), t.bytes())))
    });
    (!same_code).then_some(ChangeKind::Code)
}

/// What an entry point declares beside its code.
type Declared<'a> = (
    &'a str,
    &'a str,
    slangpack_format::Stage,
    [u32; 3],
    Option<u32>,
);

fn declared<'a>(ep: &crate::package::EntryPoint<'a>) -> Declared<'a> {
    (
        ep.name(),
        ep.spirv_entry_name(),
        ep.stage(),
        ep.thread_group_size(),
        ep.wave_size(),
    )
}

/// Hot reload: noticing that a package file was replaced, reopening it, and saying what
/// changed, key by key, so that an engine recreates only what it must.
///
/// A [`Reloader`] holds the package opened from a path and the identity of the file it opened
/// (device, inode, size, modification time: [`FileIdentity`]). [`Reloader::reload`] compares
/// that identity with the file's now — one `stat`, no read — and when it differs opens the new
/// file and compares it with the old package entry by entry ([`Reload`]). The writer replaces a
/// package by renaming a new file over it (`slangpack bake`, `bake --watch`), so a replaced
/// package is a new inode and an open mapping of the old one stays valid: the old package is
/// handed back in the [`Reload`] as an `Arc` and lives until its last clone is dropped.
///
/// Entries borrow their package, so what outlives a reload is the permutation **key**: look
/// the key up again in [`Reloader::package`] (`find` gives its index there; indices are only
/// valid within one package). [`Reloader::generation`] counts successful reloads, for engines
/// that cache indices.
///
/// **What "changed" means.** Every key of either package is compared by content, not by
/// hashes that might be stale: both entries are loaded (checksums, decompression) and
///
/// - its reflection blob (raw tables and bind view: sets, bindings, descriptor kinds, buffer
///   layouts, push constants, vertex inputs, specialization constants) and its entry points'
///   declarations (names, stages, SPIR-V entry names, thread-group and wave sizes) equal →
///   the layout is the same;
/// - its entry points' SPIR-V words and further targets' code equal → the code is the same.
///
/// [`ChangeKind::Code`] is a change of code only (the descriptor set and pipeline layouts an
/// engine made from the old entry still fit: recreate shader modules and pipelines);
/// [`ChangeKind::Layout`] is any change of the reflection or the entry points' declarations
/// (recreate the layouts too). Entries whose bytes are equal are unchanged even when their
/// recorded dependency or options hashes differ. The writer's `entry_point_hash` and
/// `options_hash` are not used: Slang's entry-point hash describes the program, not every
/// byte the reader serves, and the options hash changes with the writer build.
///
/// ```no_run
/// use slangpack_reader::{ChangeKind, Reloader};
///
/// let mut shaders = Reloader::open("shaders.slangpack")?;
/// // Once per frame (or on a timer): one `stat` while nothing changed.
/// if let Some(reload) = shaders.reload()? {
///     for change in reload.changes() {
///         match change.kind() {
///             ChangeKind::Added | ChangeKind::Layout => { /* new layouts + pipelines */ }
///             ChangeKind::Code => { /* new shader modules + pipelines */ }
///             ChangeKind::Removed => { /* drop what was made from it */ }
///         }
///         println!("{}: {:?}", change.key(), change.kind());
///     }
///     // `reload.previous()` is the old package, valid until the last clone is dropped.
/// }
/// let package = shaders.package();
/// # Ok::<(), slangpack_reader::Error>(())
/// ```
#[derive(Debug)]
pub struct Reloader {
    path: PathBuf,
    package: Arc<Package>,
    identity: FileIdentity,
    /// The identity of a file that failed to open or compare, so that a broken file is
    /// reported once, not at every poll.
    refused: Option<FileIdentity>,
    generation: u64,
}

impl Reloader {
    /// Opens the package at `path`.
    ///
    /// # Errors
    /// As [`Package::open`].
    pub fn open(path: impl AsRef<Path>) -> Result<Reloader> {
        let path = path.as_ref().to_path_buf();
        // The identity first: a replacement between the two steps is then seen as a change
        // at the next poll rather than missed.
        let identity = FileIdentity::of(&path)?;
        let package = Arc::new(Package::open(&path)?);
        Ok(Reloader {
            path,
            package,
            identity,
            refused: None,
            generation: 0,
        })
    }

    /// The package in use: the one opened last (a clone of the `Arc` keeps it alive across
    /// later reloads).
    #[must_use]
    pub fn package(&self) -> &Arc<Package> {
        &self.package
    }

    /// The path it watches.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The identity of the file the package in use was opened from.
    #[must_use]
    pub fn identity(&self) -> FileIdentity {
        self.identity
    }

    /// How many reloads replaced the package (0 after [`Reloader::open`]).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether the file at the path is no longer the one the package was opened from (one
    /// `stat`). A missing file (between a delete and a new write, say) is not a change.
    #[must_use]
    pub fn changed_on_disk(&self) -> bool {
        FileIdentity::of(&self.path).is_ok_and(|now| now != self.identity)
    }

    /// Reopens the package if the file was replaced: `Ok(None)` when it was not (or is
    /// missing, or is the same broken file an earlier call reported), else the old package
    /// and the keys that differ. The new package is in use afterwards.
    ///
    /// # Errors
    /// Any error of [`Package::open`] for the new file, or of a load of an entry while
    /// comparing (a broken new package); the package in use is kept, and the same file is
    /// not reported again (a later replacement is tried as usual).
    pub fn reload(&mut self) -> Result<Option<Reload>> {
        let Ok(now) = FileIdentity::of(&self.path) else {
            return Ok(None);
        };
        if now == self.identity || Some(now) == self.refused {
            return Ok(None);
        }
        match self.replace_with(now) {
            Ok(reload) => Ok(Some(reload)),
            Err(e) => {
                self.refused = Some(now);
                Err(e)
            }
        }
    }

    /// Reopens the package whether or not the file seems replaced (after a copy that kept
    /// the modification time, say), and compares it with the package in use.
    ///
    /// # Errors
    /// As [`Reloader::reload`]; the package in use is kept.
    pub fn reload_now(&mut self) -> Result<Reload> {
        let now = FileIdentity::of(&self.path)?;
        self.replace_with(now)
    }

    fn replace_with(&mut self, now: FileIdentity) -> Result<Reload> {
        // `now` was taken before the open: a file replaced again in between is then seen as a
        // change at the next call (a harmless second reload) rather than missed.
        let package = Package::open(&self.path)?;
        let changes = compare(&self.package, &package)?;
        let previous = std::mem::replace(&mut self.package, Arc::new(package));
        self.identity = now;
        self.refused = None;
        self.generation += 1;
        Ok(Reload { previous, changes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slangpack_format::*;

    /// A package of `(key, variable name, SPIR-V word, thread-group x)` entries.
    fn package(entries: &[(&str, &str, u32, u32)]) -> Vec<u8> {
        let mut p = PackageBuilder::new();
        for &(key, var, word, threads) in entries {
            let mut rb = ReflectionBuilder::new();
            let name = rb.intern(var);
            rb.push(Variable {
                name,
                type_index: ABSENT,
                generic_container: ABSENT,
                ..Variable::default()
            });
            let reflection = p.add_reflection(rb.finish());
            let spirv = p.add_spirv(&[0x0723_0203, 0x0001_0600, word, 8, 0]);
            p.add_entry(EntryDesc {
                key: key.into(),
                reflection: Some(reflection),
                entry_points: vec![EntryPointDesc {
                    name: "main".into(),
                    spirv_entry_name: "main".into(),
                    stage: Stage::Compute,
                    thread_group_size: [threads, 1, 1],
                    wave_size: 0,
                    spirv,
                    reflection_entry_point: None,
                }],
                dependencies: vec![],
                options_hash: u64::from(word),
            })
            .unwrap();
        }
        p.finish().unwrap()
    }

    /// Replaces `path` as the writer does: a new file renamed over it.
    fn replace(path: &Path, bytes: &[u8]) {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, bytes).unwrap();
        std::fs::rename(&tmp, path).unwrap();
    }

    /// A new FIFO at `path` (made by `mkfifo`).
    fn make_fifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo runs");
        assert!(status.success(), "mkfifo {}", path.display());
    }

    /// What `f` returns, run on a thread: a call that blocks fails the test after 10 s
    /// instead of hanging it (the FIFO at `fifo` is then opened for writing, which lets a
    /// thread blocked opening it for reading go on).
    fn promptly<T: Send + 'static>(fifo: &Path, f: impl FnOnce() -> T + Send + 'static) -> T {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(f());
        });
        match receive.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(value) => value,
            Err(_) => {
                let _ = std::fs::OpenOptions::new().write(true).open(fifo);
                panic!("still blocked after 10 s on the FIFO {}", fifo.display());
            }
        }
    }

    #[test]
    fn a_fifo_is_refused_at_once_by_open_and_by_a_reloader() {
        let dir = std::env::temp_dir().join(format!("slangpack-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();

        // Package::open of a FIFO nobody writes to: refused, not waited on.
        let fifo = dir.join("fifo.slangpack");
        make_fifo(&fifo);
        let opened = promptly(&fifo, {
            let fifo = fifo.clone();
            move || Package::open(&fifo).map(|_| ())
        });
        let e = opened.expect_err("a FIFO is not a package");
        assert_eq!(e.kind(), crate::ErrorKind::Io);
        assert!(
            e.to_string().contains("is a FIFO, not a regular file"),
            "{e}"
        );
        assert!(
            promptly(&fifo, {
                let fifo = fifo.clone();
                move || Reloader::open(&fifo).is_err()
            }),
            "a reloader refuses it too"
        );

        // A FIFO renamed over a watched package: the reload is refused once, at once, and the
        // package in use is kept.
        let path = dir.join("p.slangpack");
        replace(&path, &package(&[("a", "g", 1, 8)]));
        let mut reloader = Reloader::open(&path).unwrap();
        std::fs::rename(&fifo, &path).unwrap();
        assert!(reloader.changed_on_disk());
        let (reloader, first, second) = promptly(&path, move || {
            let first = reloader.reload().map(|r| r.is_some());
            let second = reloader.reload().map(|r| r.is_some());
            (reloader, first, second)
        });
        let e = first.expect_err("a FIFO is not a package");
        assert!(e.to_string().contains("is a FIFO"), "{e}");
        assert!(!second.unwrap(), "the same FIFO is reported once");
        assert_eq!(reloader.package().len(), 1);
        assert_eq!(reloader.generation(), 0);

        // Other files that are not regular files are refused the same way.
        let e = Package::open(&dir).expect_err("a directory is not a package");
        assert!(
            e.to_string().contains("is a directory, not a regular file"),
            "{e}"
        );
        if Path::new("/dev/null").exists() {
            let e = Package::open("/dev/null").expect_err("a device is not a package");
            assert!(
                e.to_string().contains("is a device, not a regular file"),
                "{e}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn changes_are_classified_by_content() {
        let old = Package::from_bytes(&package(&[
            ("code", "g", 1, 8),
            ("gone", "g", 1, 8),
            ("layout", "g", 1, 8),
            ("same", "g", 1, 8),
            ("threads", "g", 1, 8),
        ]))
        .unwrap();
        let new = Package::from_bytes(&package(&[
            ("code", "g", 2, 8),
            ("layout", "h", 1, 8),
            ("new", "g", 1, 8),
            // Another options hash, the same bytes: unchanged.
            ("same", "g", 1, 8),
            ("threads", "g", 1, 16),
        ]))
        .unwrap();
        let changes = compare(&old, &new).unwrap();
        let got: Vec<(&str, ChangeKind)> = changes.iter().map(|c| (c.key(), c.kind())).collect();
        assert_eq!(
            got,
            [
                ("code", ChangeKind::Code),
                ("gone", ChangeKind::Removed),
                ("layout", ChangeKind::Layout),
                ("new", ChangeKind::Added),
                ("threads", ChangeKind::Layout),
            ]
        );
        assert!(compare(&new, &new).unwrap().is_empty());
    }

    #[test]
    fn a_replaced_file_is_reloaded_once_and_the_old_package_stays_valid() {
        let dir = std::env::temp_dir().join(format!("slangpack-reload-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.slangpack");
        replace(&path, &package(&[("a", "g", 1, 8)]));
        let mut reloader = Reloader::open(&path).unwrap();
        assert!(reloader.reload().unwrap().is_none(), "nothing changed");
        let old_entry_package = Arc::clone(reloader.package());
        let old = old_entry_package.load("a").unwrap();

        replace(&path, &package(&[("a", "g", 2, 8), ("b", "g", 1, 8)]));
        assert!(reloader.changed_on_disk());
        let reload = reloader.reload().unwrap().expect("a new file");
        assert_eq!(reload.change("a"), Some(ChangeKind::Code));
        assert_eq!(reload.change("b"), Some(ChangeKind::Added));
        assert_eq!(reload.change("c"), None);
        assert_eq!(reloader.generation(), 1);
        assert!(!reloader.changed_on_disk());
        assert!(reloader.reload().unwrap().is_none(), "reported once");
        // The old package (mapped, its file renamed over) still serves its bytes.
        assert_eq!(old.entry_points().next().unwrap().spirv()[2], 1);
        let new = reloader.package().load("a").unwrap();
        assert_eq!(new.entry_points().next().unwrap().spirv()[2], 2);

        // A broken replacement is an error once; the package in use is kept.
        replace(
            &path,
            b"not a package at all, just some bytes of text here......",
        );
        assert!(reloader.reload().is_err());
        assert!(reloader.reload().unwrap().is_none(), "the same broken file");
        assert_eq!(reloader.package().len(), 2);
        assert_eq!(reloader.generation(), 1);
        // A missing file is no change either.
        std::fs::remove_file(&path).unwrap();
        assert!(reloader.reload().unwrap().is_none());
        replace(&path, &package(&[("b", "g", 1, 8)]));
        let reload = reloader.reload().unwrap().expect("the file is back");
        assert_eq!(reload.change("a"), Some(ChangeKind::Removed));
        assert_eq!(reload.changes().len(), 1);
        assert_eq!(reload.previous().len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Watch mode (`slangpack bake --watch`): bake, then rebake whenever a file the package
//! depends on changes, until stopped.
//!
//! What is watched, after every bake: the directory of every file an entry of the package on
//! disk depends on (its recorded dependencies, resolved against the bake root), each input
//! file's directory (manifests, programs named explicitly) and each input directory
//! (recursively, for programs added or deleted), plus the include directories. An event
//! counts when it names a file the package depends on, an input file, or a `.slang` file in a
//! watched directory (a module a failing edit just started to import); everything else (the
//! package itself, its temporary files, editor backups) is ignored.
//!
//! Events are debounced: the rebake starts once no event has come for
//! [`WatchOptions::quiet`] (at the latest [`WatchOptions::max_debounce`] after the first).
//! The rebake is the ordinary incremental bake with the package on disk as the previous one
//! ([`bake_to_file`]), so only entries whose options or dependencies' contents changed are
//! compiled, and the package is replaced atomically. A failing rebake leaves the last good
//! package in place and is reported with Slang's diagnostics ([`WatchEvent::Failed`]).
//!
//! ```no_run
//! use slangpack_writer::bake::BakeConfig;
//! use slangpack_writer::watch::{watch, WatchEvent, WatchOptions};
//! use std::sync::atomic::AtomicBool;
//!
//! let config = BakeConfig::new(vec!["shaders".into()]);
//! let stop = AtomicBool::new(false); // set it from another thread to end the loop
//! watch(config, "shaders.slangpack".as_ref(), &WatchOptions::default(), &stop, |event| {
//!     if let WatchEvent::Baked { outcome, elapsed, .. } = event {
//!         println!("{:?} in {elapsed:?}", outcome.compiled_keys);
//!     }
//! })?;
//! # Ok::<(), slangpack_writer::BakeError>(())
//! ```

use crate::bake::{bake_to_file, BakeConfig, BakeOutcome};
use crate::error::BakeError;
use notify::{Event, EventKind, RecursiveMode, Watcher};
use slangpack_reader::Package;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// How watching behaves.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Write the package's dependencies here in make syntax after every successful bake
    /// ([`crate::depfile`]).
    pub depfile: Option<PathBuf>,
    /// How long the file system must stay quiet before a rebake starts (an editor's save is
    /// a burst of events: truncate, write, rename, attributes, all within a few
    /// milliseconds). Default 20 ms.
    pub quiet: Duration,
    /// The longest a rebake waits for quiet after the first event. Default 500 ms.
    pub max_debounce: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            depfile: None,
            quiet: Duration::from_millis(20),
            max_debounce: Duration::from_millis(500),
        }
    }
}

/// What [`watch`] reports.
#[derive(Debug)]
pub enum WatchEvent<'a> {
    /// A bake succeeded and the package on disk is its output (unchanged bytes are not
    /// rewritten: see [`bake_to_file`]).
    Baked {
        /// What it baked; [`BakeOutcome::compiled_keys`] are the entries that were compiled.
        outcome: &'a BakeOutcome,
        /// From the first event that started it (the start, for the first bake) to the
        /// package (and depfile) written.
        elapsed: Duration,
        /// Whether this is the first bake.
        first: bool,
    },
    /// A bake failed; the last good package (if any) is untouched.
    Failed {
        /// Why, with Slang's diagnostics for a compile error.
        error: &'a BakeError,
        /// The files whose change started it (empty for the first bake).
        changed: &'a [PathBuf],
    },
    /// Something went wrong that does not stop watching (a directory that cannot be watched,
    /// a depfile that cannot be written, a notification error).
    Warning(String),
}

/// Bakes `config` into `output`, then watches and rebakes until `stop` is set (checked at
/// least every 100 ms), reporting each bake through `report`.
///
/// # Errors
/// [`BakeError::Input`] when the bake root cannot be resolved or the file system cannot be
/// watched at all; bake failures are reported, not returned.
pub fn watch(
    mut config: BakeConfig,
    output: &Path,
    options: &WatchOptions,
    stop: &AtomicBool,
    mut report: impl FnMut(WatchEvent<'_>),
) -> Result<(), BakeError> {
    let root = crate::plan::resolve_root(config.root.as_deref(), &config.inputs)?;
    let (sender, events) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        // The receiver lives as long as the loop; a send error only means it has ended.
        let _ = sender.send(event);
    })
    .map_err(|e| BakeError::Input(format!("cannot watch files: {e}")))?;
    let mut watched: BTreeMap<PathBuf, RecursiveMode> = BTreeMap::new();
    let stopped = || stop.load(Ordering::Relaxed);
    // Rebakes reuse the compile workers and their Slang global sessions: an edit costs its
    // compile, not a process start and a global session.
    crate::worker::keep_workers_warm(true);
    let _cold = WarmWorkers;
    // The bake to make: since when, the files whose change asked for it, whether it is the
    // first.
    let mut pending = Some((Instant::now(), Vec::new(), true));
    // What is watched (recomputed after each bake).
    let mut set = WatchSet::new(&config, output, &root);
    loop {
        if let Some((since, changed, first)) = pending.take() {
            let started = SystemTime::now();
            let result = rebake(&mut config, output, options);
            // Watch what this bake depends on before reporting it, so that an edit made once
            // the report is out is seen; and rebake at once for a watched file written while
            // the bake ran (before its directory was watched, a change has no event).
            set = WatchSet::new(&config, output, &root);
            update_watches(&mut watcher, &mut watched, &set, &mut report);
            let raced = set.written_since(started);
            match &result {
                Ok((outcome, warning)) => {
                    if let Some(warning) = warning {
                        report(WatchEvent::Warning(warning.clone()));
                    }
                    report(WatchEvent::Baked {
                        outcome,
                        elapsed: since.elapsed(),
                        first,
                    });
                }
                Err(error) => report(WatchEvent::Failed {
                    error,
                    changed: &changed,
                }),
            }
            if !raced.is_empty() && !stopped() {
                pending = Some((Instant::now(), raced, false));
                continue;
            }
        }
        if stopped() {
            break;
        }
        // The first event that counts, then quiet.
        let mut changed = BTreeSet::new();
        let first = loop {
            match events.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(event)) => {
                    set.relevant(&event, &mut changed);
                    if !changed.is_empty() {
                        break Some(Instant::now());
                    }
                }
                Ok(Err(e)) => report(WatchEvent::Warning(e.to_string())),
                Err(mpsc::RecvTimeoutError::Timeout) if stopped() => break None,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(BakeError::Input("the file watcher stopped".into()))
                }
            }
        };
        let Some(first) = first else { break };
        while first.elapsed() < options.max_debounce {
            match events.recv_timeout(options.quiet) {
                Ok(Ok(event)) => set.relevant(&event, &mut changed),
                Ok(Err(e)) => report(WatchEvent::Warning(e.to_string())),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(BakeError::Input("the file watcher stopped".into()))
                }
            }
        }
        pending = Some((first, changed.into_iter().collect(), false));
    }
    Ok(())
}

/// Ends the kept workers when the watch loop ends (however it ends).
struct WarmWorkers;

impl Drop for WarmWorkers {
    fn drop(&mut self) {
        crate::worker::keep_workers_warm(false);
    }
}

/// Watches the directories of `set` that are not watched yet and stops watching the others.
fn update_watches(
    watcher: &mut notify::RecommendedWatcher,
    watched: &mut BTreeMap<PathBuf, RecursiveMode>,
    set: &WatchSet,
    report: &mut impl FnMut(WatchEvent<'_>),
) {
    for (dir, mode) in watched.iter() {
        if set.dirs.get(dir) != Some(mode) {
            let _ = watcher.unwatch(dir);
        }
    }
    for (dir, mode) in &set.dirs {
        if watched.get(dir) != Some(mode) {
            if let Err(e) = watcher.watch(dir, *mode) {
                report(WatchEvent::Warning(format!(
                    "cannot watch {}: {e}",
                    dir.display()
                )));
            }
        }
    }
    watched.clone_from(&set.dirs);
}

/// One (re)bake into `output`, reusing what the package on disk still answers, and the
/// depfile after a success (a depfile that cannot be written is an error of the bake only in
/// that it is reported; the package stands).
fn rebake(
    config: &mut BakeConfig,
    output: &Path,
    options: &WatchOptions,
) -> Result<(BakeOutcome, Option<String>), BakeError> {
    config.previous = output.exists().then(|| output.to_path_buf());
    let outcome = bake_to_file(config, output)?;
    let mut warning = None;
    if let Some(depfile) = &options.depfile {
        let written = crate::depfile::write(depfile, output, &outcome, &config.inputs);
        if let Err(e) = written {
            warning = Some(format!("--depfile: {e}"));
        }
    }
    Ok((outcome, warning))
}

/// What one round of watching looks at.
struct WatchSet {
    /// Directories to watch, and how.
    dirs: BTreeMap<PathBuf, RecursiveMode>,
    /// Files whose change counts wherever they lie.
    files: BTreeSet<PathBuf>,
    /// The package's name, which never counts.
    ignored: BTreeSet<PathBuf>,
}

impl WatchSet {
    fn new(config: &BakeConfig, output: &Path, root: &Path) -> WatchSet {
        let mut set = WatchSet {
            dirs: BTreeMap::new(),
            files: BTreeSet::new(),
            ignored: BTreeSet::new(),
        };
        set.ignored.insert(canonical(output));
        // The package on disk is the last good bake: its entries' dependencies.
        if let Ok(package) = Package::open(output) {
            for entry in package.entries().flatten() {
                for dep in entry.dependencies() {
                    set.file(root.join(dep.path()));
                }
            }
        }
        for input in &config.inputs {
            let input = canonical(input);
            if input.is_dir() {
                set.dirs.insert(input, RecursiveMode::Recursive);
            } else {
                set.file(input);
            }
        }
        for dir in &config.options.include_dirs {
            let dir = canonical(dir);
            if dir.is_dir() {
                set.dirs.entry(dir).or_insert(RecursiveMode::NonRecursive);
            }
        }
        set
    }

    /// Counts `path`, and watches its directory (an editor that saves by renaming a new file
    /// over the old one replaces the inode a file watch would hold).
    fn file(&mut self, path: PathBuf) {
        if let Some(dir) = path.parent().filter(|dir| dir.is_dir()) {
            self.dirs
                .entry(dir.to_path_buf())
                .or_insert(RecursiveMode::NonRecursive);
        }
        self.files.insert(path);
    }

    /// The files that count whose modification time is at or after `since` (less a margin
    /// for file systems whose timestamps lag the clock by a tick).
    fn written_since(&self, since: SystemTime) -> Vec<PathBuf> {
        let since = since - Duration::from_millis(10);
        let written = |path: &Path| {
            std::fs::metadata(path)
                .and_then(|m| m.modified())
                .is_ok_and(|modified| modified >= since)
        };
        let mut found: Vec<PathBuf> = self.files.iter().filter(|p| written(p)).cloned().collect();
        // Programs that appeared in a scanned directory.
        for (dir, mode) in &self.dirs {
            if *mode == RecursiveMode::Recursive {
                if let Ok(programs) = crate::plan::discover(std::slice::from_ref(dir)) {
                    found.extend(
                        programs
                            .into_iter()
                            .map(|(path, _)| path)
                            .filter(|p| written(p) && !self.files.contains(p)),
                    );
                }
            }
        }
        found
    }

    /// Adds the paths of `event` that count to `changed`.
    fn relevant(&self, event: &Event, changed: &mut BTreeSet<PathBuf>) {
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        for path in &event.paths {
            if self.ignored.contains(path) {
                continue;
            }
            let counts = self.files.contains(path)
                || (path.extension().is_some_and(|e| e == "slang")
                    && self.dirs.iter().any(|(dir, mode)| match mode {
                        RecursiveMode::Recursive => path.starts_with(dir),
                        RecursiveMode::NonRecursive => path.parent() == Some(dir.as_path()),
                    }));
            if counts {
                changed.insert(path.clone());
            }
        }
    }
}

/// `path` canonicalized, or its directory canonicalized where the file does not exist (yet).
fn canonical(path: &Path) -> PathBuf {
    if let Ok(path) = path.canonicalize() {
        return path;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map_or_else(|_| absolute.clone(), |dir| dir.join(name)),
        _ => absolute,
    }
}

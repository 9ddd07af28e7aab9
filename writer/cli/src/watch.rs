//! `slangpack bake --watch`: bake, then rebake whenever a file the package depends on changes.
//!
//! What is watched, after every bake: the directory of every file an entry of the package on
//! disk depends on (its recorded dependencies, resolved against the bake root), each input
//! file's directory (manifests, programs named explicitly) and each input directory
//! (recursively, for programs added or deleted), plus the include directories. An event
//! counts when it names a file the package depends on, an input file, or a `.slang` file in a
//! watched directory (a module a failing edit just started to import); everything else (the
//! package itself, its temporary files, editor backups) is ignored.
//!
//! Events are debounced: the rebake starts once no event has come for [`QUIET`] (at the
//! latest [`MAX_DEBOUNCE`] after the first). The rebake is the ordinary incremental bake with
//! the package on disk as the previous one, so only entries whose options or dependencies'
//! contents changed are compiled; the package is replaced atomically. A failing rebake prints
//! Slang's diagnostics verbatim and leaves the last good package in place.

use crate::bake::{print_diagnostics, report, write_depfile};
use notify::{Event, EventKind, RecursiveMode, Watcher};
use slangpack_reader::Package;
use slangpack_writer::bake::{self, BakeConfig};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the file system must stay quiet before a rebake starts (an editor's save is a
/// burst of events: truncate, write, rename, attributes).
pub(crate) const QUIET: Duration = Duration::from_millis(30);

/// The longest a rebake waits for quiet after the first event.
pub(crate) const MAX_DEBOUNCE: Duration = Duration::from_millis(500);

/// The most compiled keys a rebake line names before it says "and N more".
const KEYS_SHOWN: usize = 6;

/// Bakes, then watches and rebakes until interrupted (or the watcher fails: exit 1).
pub(crate) fn watch(
    mut config: BakeConfig,
    output: &Path,
    depfile: Option<&Path>,
    terminal: bool,
) -> ExitCode {
    let root = match slangpack_writer::depfile::resolve_root(config.root.as_deref(), &config.inputs)
    {
        Ok(root) => root,
        Err(error) => {
            report(&error, terminal);
            return ExitCode::from(2);
        }
    };
    let (sender, events) = mpsc::channel();
    let mut watcher = match notify::recommended_watcher(move |event| {
        // The receiver lives as long as the loop; a send error only means it has ended.
        let _ = sender.send(event);
    }) {
        Ok(watcher) => watcher,
        Err(e) => {
            eprintln!("error: --watch: cannot watch files: {e}");
            return ExitCode::from(1);
        }
    };
    let mut watched: BTreeMap<PathBuf, RecursiveMode> = BTreeMap::new();
    rebake(
        &mut config,
        output,
        depfile,
        terminal,
        Instant::now(),
        &[],
        true,
    );
    loop {
        let set = WatchSet::new(&config, output, &root);
        for (dir, mode) in &watched {
            if set.dirs.get(dir) != Some(mode) {
                let _ = watcher.unwatch(dir);
            }
        }
        for (dir, mode) in &set.dirs {
            if watched.get(dir) != Some(mode) {
                if let Err(e) = watcher.watch(dir, *mode) {
                    eprintln!("warning: --watch: cannot watch {}: {e}", dir.display());
                }
            }
        }
        watched = set.dirs.clone();
        // The first event that counts, then quiet.
        let mut changed = BTreeSet::new();
        let first = loop {
            match events.recv() {
                Ok(Ok(event)) => {
                    set.relevant(&event, &mut changed);
                    if !changed.is_empty() {
                        break Instant::now();
                    }
                }
                Ok(Err(e)) => eprintln!("warning: --watch: {e}"),
                Err(_) => {
                    eprintln!("error: --watch: the file watcher stopped");
                    return ExitCode::from(1);
                }
            }
        };
        while first.elapsed() < MAX_DEBOUNCE {
            match events.recv_timeout(QUIET) {
                Ok(Ok(event)) => set.relevant(&event, &mut changed),
                Ok(Err(e)) => eprintln!("warning: --watch: {e}"),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    eprintln!("error: --watch: the file watcher stopped");
                    return ExitCode::from(1);
                }
            }
        }
        let changed: Vec<PathBuf> = changed.into_iter().collect();
        rebake(
            &mut config,
            output,
            depfile,
            terminal,
            first,
            &changed,
            false,
        );
    }
}

/// One (re)bake into `output`, reusing what the package on disk still answers; prints one
/// line (what was compiled, how long since `since`) or the diagnostics of a failure.
fn rebake(
    config: &mut BakeConfig,
    output: &Path,
    depfile: Option<&Path>,
    terminal: bool,
    since: Instant,
    changed: &[PathBuf],
    first: bool,
) {
    config.previous = output.exists().then(|| output.to_path_buf());
    match bake::bake_to_file(config, output) {
        Ok(outcome) => {
            print_diagnostics(&outcome, terminal);
            if let Some(depfile) = depfile {
                if let Err(error) = write_depfile(depfile, output, &outcome, config) {
                    report(&error, terminal);
                }
            }
            let elapsed = since.elapsed().as_millis();
            let what = if first {
                "baked"
            } else if outcome.compiled_keys.is_empty() {
                "unchanged"
            } else {
                "rebaked"
            };
            let keys = if outcome.compiled_keys.is_empty() {
                String::new()
            } else {
                let shown: Vec<&str> = outcome
                    .compiled_keys
                    .iter()
                    .take(KEYS_SHOWN)
                    .map(String::as_str)
                    .collect();
                let more = outcome.compiled_keys.len().saturating_sub(KEYS_SHOWN);
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                format!(" [{}{more}]", shown.join(", "))
            };
            let failed = if outcome.failures.is_empty() {
                String::new()
            } else {
                format!("; {} permutations failed", outcome.failures.len())
            };
            if what == "unchanged" {
                eprintln!(
                    "unchanged: no entry of {} needed compiling ({elapsed} ms){failed}",
                    output.display()
                );
            } else {
                eprintln!(
                    "{what} {} of {} entries{keys} in {elapsed} ms: {} ({} bytes){failed}",
                    outcome.compiled_keys.len(),
                    outcome.entries.len(),
                    output.display(),
                    outcome.bytes.len(),
                );
            }
        }
        Err(error) => {
            report(&error, terminal);
            let cause = match changed {
                [] => String::new(),
                [one] => format!(" after a change to {}", one.display()),
                [one, rest @ ..] => format!(
                    " after changes to {} and {} more",
                    one.display(),
                    rest.len()
                ),
            };
            if output.exists() {
                eprintln!(
                    "error: bake failed{cause}; keeping the last good {}",
                    output.display()
                );
            } else {
                eprintln!(
                    "error: bake failed{cause}; {} was not written",
                    output.display()
                );
            }
        }
    }
}

/// What one round of watching looks at.
struct WatchSet {
    /// Directories to watch, and how.
    dirs: BTreeMap<PathBuf, RecursiveMode>,
    /// Files whose change counts wherever they lie.
    files: BTreeSet<PathBuf>,
    /// The package and its depfile's names, which never count.
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

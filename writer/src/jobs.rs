//! Jobs: finding the programs among the inputs, planning the permutations as jobs and compiling
//! them (in parallel, a Slang global session per worker). Assembly is in `bake`.

use crate::compile::{CompileOptions, CompiledProgram, Compiler, Source};
use crate::error::BakeError;
use std::path::{Path, PathBuf};

/// One compilation to make: a program source under a set of options, named by its key.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Job {
    /// The canonical permutation key (see [`permutation_key`]).
    pub key: String,
    /// The main module's path.
    pub source: PathBuf,
    /// Options of this permutation.
    pub options: CompileOptions,
    /// Whether a program without entry points is silently skipped (true for files found by
    /// scanning a directory: they are modules other programs import).
    pub skip_if_library: bool,
}

/// The canonical key of a permutation: the module path relative to the bake root with `/`
/// separators and without the `.slang` extension, then the defines sorted by name as
/// `?NAME=VALUE&NAME=VALUE` (nothing when there are none).
pub fn permutation_key(relative: &Path, defines: &[(String, String)]) -> String {
    let mut key: String = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let mut defines: Vec<&(String, String)> = defines.iter().collect();
    defines.sort();
    for (i, (name, value)) in defines.iter().enumerate() {
        key.push(if i == 0 { '?' } else { '&' });
        key.push_str(name);
        key.push('=');
        key.push_str(value);
    }
    key
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

    /// The jobs of this slice, in key order.
    pub fn select(self, mut jobs: Vec<Job>) -> Vec<Job> {
        jobs.sort_by(|a, b| a.key.cmp(&b.key));
        jobs.into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count == self.index - 1)
            .map(|(_, job)| job)
            .collect()
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

/// Expands the inputs: `.slang` files are taken as they are; directories are scanned
/// recursively for `.slang` files, in sorted order. Returns `(path, found_by_scan)`.
///
/// # Errors
/// [`BakeError::Io`] for unreadable inputs, [`BakeError::Input`] when nothing is found.
pub fn discover(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>, BakeError> {
    let mut found = Vec::new();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| BakeError::io(input, e))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            scan(input, &mut files)?;
            files.sort();
            found.extend(files.into_iter().map(|f| (f, true)));
        } else {
            found.push((input.clone(), false));
        }
    }
    if found.is_empty() {
        return Err(BakeError::Input(
            "no .slang files found in the inputs".into(),
        ));
    }
    Ok(found)
}

fn scan(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), BakeError> {
    let entries = std::fs::read_dir(dir).map_err(|e| BakeError::io(dir, e))?;
    for entry in entries {
        let path = entry.map_err(|e| BakeError::io(dir, e))?.path();
        if path.is_dir() {
            scan(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "slang") {
            out.push(path);
        }
    }
    Ok(())
}

/// The directory keys and dependency paths are relative to: the common ancestor of the inputs
/// (a file input contributes its directory).
pub fn bake_root(inputs: &[PathBuf]) -> PathBuf {
    let dirs: Vec<PathBuf> = inputs
        .iter()
        .map(|p| {
            let p = p.canonicalize().unwrap_or_else(|_| p.clone());
            if p.is_dir() {
                p
            } else {
                p.parent().map(Path::to_path_buf).unwrap_or_default()
            }
        })
        .collect();
    let Some(first) = dirs.first() else {
        return PathBuf::from(".");
    };
    let mut root = first.clone();
    for dir in &dirs[1..] {
        while !dir.starts_with(&root) {
            if !root.pop() {
                break;
            }
        }
    }
    root
}

/// `path` relative to `root`, with `/` separators; paths outside the root keep their absolute
/// form (and so make the package depend on where it was baked).
pub fn relative_to(path: &Path, root: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let rel = path.strip_prefix(root).unwrap_or(&path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Runs `work` on every job, spreading the jobs over `workers` threads, each with its own
/// Slang global session (Slang sessions are not shared between threads); the work compiles
/// (see [`compile_job`]) and turns the program into plain data on the thread that owns it.
/// Results come back in job order.
///
/// With `keep_going`, failed jobs are returned as errors beside the successes; without it the
/// first failure (in job order) is returned.
///
/// # Errors
/// The first error, when `keep_going` is false.
pub fn compile_all<T, F>(
    jobs: &[Job],
    workers: usize,
    keep_going: bool,
    work: F,
) -> Result<Vec<Result<T, BakeError>>, BakeError>
where
    T: Send,
    F: Fn(&Compiler, &Job) -> Result<T, BakeError> + Sync,
{
    if jobs.is_empty() {
        // Nothing to compile: start no Slang session.
        return Ok(Vec::new());
    }
    let workers = workers.clamp(1, jobs.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let collected = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let compiler = Compiler::new();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let result = match &compiler {
                        Ok(compiler) => work(compiler, job),
                        Err(e) => Err(BakeError::Slang(e.to_string())),
                    };
                    if let Ok(mut c) = collected.lock() {
                        c.push((i, result));
                    }
                }
            });
        }
    });
    let collected = collected
        .into_inner()
        .map_err(|_| BakeError::Slang("a compile worker panicked".into()))?;
    let mut results: Vec<Option<Result<T, BakeError>>> = (0..jobs.len()).map(|_| None).collect();
    for (i, result) in collected {
        results[i] = Some(result);
    }
    let mut out = Vec::with_capacity(jobs.len());
    for result in results {
        let result =
            result.unwrap_or_else(|| Err(BakeError::Slang("a compile worker stopped".into())));
        match result {
            Err(e) if !keep_going => return Err(e),
            other => out.push(other),
        }
    }
    Ok(out)
}

/// Compiles one job. `Ok(None)` is a library module found by a directory scan (a module
/// without entry points that other programs import); given explicitly, such a module is an
/// error.
///
/// # Errors
/// Compile errors, unreadable sources, and [`BakeError::Input`] for a program without entry
/// points.
pub fn compile_job(
    compiler: &Compiler,
    job: &Job,
    root: &Path,
) -> Result<Option<CompiledProgram>, BakeError> {
    let mut source = Source::read(&job.source)?;
    source.slang_path = Some(relative_to(&job.source, root));
    let program = compiler.compile(&job.key, &source, &job.options)?;
    if program.entry_points.is_empty() {
        if job.skip_if_library {
            return Ok(None);
        }
        return Err(BakeError::Input(format!(
            "{}: no entry points (mark them with [shader(\"stage\")])",
            job.source.display()
        )));
    }
    Ok(Some(program))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_canonical() {
        let defines = vec![
            ("B".to_string(), "2".to_string()),
            ("A".to_string(), "1".to_string()),
        ];
        assert_eq!(
            permutation_key(Path::new("dir/pbr.slang"), &defines),
            "dir/pbr?A=1&B=2"
        );
        assert_eq!(permutation_key(Path::new("blur.slang"), &[]), "blur");
    }

    fn jobs(keys: &[&str]) -> Vec<Job> {
        keys.iter()
            .map(|key| Job {
                key: key.to_string(),
                source: PathBuf::from("a.slang"),
                options: CompileOptions::default(),
                skip_if_library: false,
            })
            .collect()
    }

    #[test]
    fn shards_partition_the_keys_in_balanced_stable_slices() {
        let keys = ["e", "a", "g", "c", "b", "f", "d"];
        let mut reversed = keys;
        reversed.reverse();
        for count in 1..=9 {
            let mut seen = Vec::new();
            for index in 1..=count {
                let shard = Shard::new(index, count).unwrap();
                let slice: Vec<String> = shard
                    .select(jobs(&keys))
                    .into_iter()
                    .map(|j| j.key)
                    .collect();
                // Independent of the order the jobs came in.
                let again: Vec<String> = shard
                    .select(jobs(&reversed))
                    .into_iter()
                    .map(|j| j.key)
                    .collect();
                assert_eq!(slice, again);
                let expected = keys.len() / count + usize::from(index <= keys.len() % count);
                assert_eq!(slice.len(), expected, "{shard}");
                seen.extend(slice);
            }
            seen.sort();
            assert_eq!(seen, ["a", "b", "c", "d", "e", "f", "g"], "N = {count}");
        }
        let two: Vec<String> = "2/3"
            .parse::<Shard>()
            .unwrap()
            .select(jobs(&keys))
            .into_iter()
            .map(|j| j.key)
            .collect();
        assert_eq!(two, ["b", "e"]);
    }

    #[test]
    fn shard_specs_are_checked() {
        assert_eq!(
            " 3 / 7".parse::<Shard>().unwrap(),
            Shard::new(3, 7).unwrap()
        );
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}

//! Checkouts of the example shaders for the cache tests: the same sources at another path, as
//! a second machine or CI job would have them, and what a cache directory holds.

use slangpack_writer::bake::{bake, BakeConfig, BakeOutcome};
use std::path::{Path, PathBuf};

/// Copies the directory `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for item in std::fs::read_dir(from).unwrap() {
        let path = item.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// A copy of the example shaders at `dir/shaders`.
#[must_use]
pub fn checkout(dir: &Path) -> PathBuf {
    let shaders = dir.join("shaders");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders"),
        &shaders,
    );
    shaders
}

/// The files of `dir`, sorted (none when it cannot be read).
#[must_use]
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// The blobs of a cache's `cas` directory that are packages: one-entry packages, and the
/// packages the assembly actions name (the others are the compiles' input trees and their
/// Remote Execution API descriptions).
#[must_use]
pub fn packages(cas: &Path) -> Vec<PathBuf> {
    files(cas)
        .into_iter()
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b"SLANGPK")))
        .collect()
}

/// A free TCP port on 127.0.0.1 (bound, then released).
#[must_use]
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits up to `limit` for something to listen on `port`; whether it did.
#[must_use]
pub fn wait_for_port(port: u16, limit: std::time::Duration) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < limit {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    false
}

/// A bake of `shaders` with the cache server `url`, and the cache directory `dir` in front of
/// it if given (two jobs).
///
/// # Panics
/// When the bake fails: a cache never fails a bake.
#[must_use]
pub fn bake_with_cache(shaders: &Path, url: &str, dir: Option<&Path>) -> BakeOutcome {
    let mut config = BakeConfig::new(vec![shaders.to_path_buf()]);
    config.jobs = 2;
    config.cache_url = Some(url.to_string());
    config.cache = dir.map(Path::to_path_buf);
    bake(&config).expect("the bake succeeds whatever the cache does")
}

/// A bake of a checkout in `dir` without a cache: what every bake below must equal.
///
/// # Panics
/// When the bake fails.
#[must_use]
pub fn reference_bake(dir: &Path) -> BakeOutcome {
    let mut config = BakeConfig::new(vec![checkout(dir)]);
    config.jobs = 2;
    bake(&config).expect("the reference bake")
}

/// What every cache server passes: a cold bake of a checkout in `tmp/a` fills the cache at
/// `url` (5 compiles, no warning); a fresh checkout elsewhere, with a local directory in front,
/// bakes from it: nothing compiled, no warning, the same bytes, the package itself taken from
/// the server (its assembly's action result) and copied into the directory.
/// Returns the cold bake and the directory.
///
/// # Panics
/// When any of that does not hold.
#[must_use]
pub fn cold_then_warm(tmp: &Path, url: &str) -> (BakeOutcome, PathBuf) {
    let cold = bake_with_cache(&checkout(&tmp.join("a")), url, None);
    assert_eq!((cold.compiled, cold.from_cache), (5, 0));
    assert!(cold.cache_warnings.is_empty(), "{:?}", cold.cache_warnings);
    let local = tmp.join("local-cache");
    let warm = bake_with_cache(&checkout(&tmp.join("b/c")), url, Some(&local));
    assert_eq!((warm.compiled, warm.from_cache), (0, 5));
    assert!(warm.compiled_keys.is_empty());
    assert!(warm.cache_warnings.is_empty(), "{:?}", warm.cache_warnings);
    assert!(warm.bytes == cold.bytes);
    assert_eq!(files(&local.join("ac")).len(), 1, "the package's assembly");
    let copied = packages(&local.join("cas"));
    assert_eq!(copied.len(), 1, "the package, not its entries");
    assert_eq!(std::fs::read(&copied[0]).unwrap(), *cold.bytes);
    (cold, local)
}

/// Asserts what a bake whose cache failed it once gives: `counts` (compiled, from the cache),
/// the bytes of `cold`, and exactly one cache warning, which names `why`.
///
/// # Panics
/// When any of these does not hold.
pub fn assert_one_cache_warning(
    outcome: &BakeOutcome,
    cold: &BakeOutcome,
    counts: (usize, usize),
    why: &str,
) {
    assert_eq!((outcome.compiled, outcome.from_cache), counts);
    assert!(outcome.bytes == cold.bytes, "not the cold bake's bytes");
    let warnings = &outcome.cache_warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains(why), "{warnings:?}");
}

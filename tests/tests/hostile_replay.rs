//! Fuzz inputs replayed as ordinary tests: every file under `fuzz/regressions/` (inputs that
//! once crashed a target), the minimised corpus bundled in `fuzz/regressions/corpus.bundle.zst`,
//! the hostile fixtures
//! under `tests/fixtures/hostile/` and the seed packages under `fuzz/seeds/`, through the walk
//! the fuzz targets use (open, lazy loads in a scrambled order and from two threads at once,
//! the full check). No nightly
//! toolchain or libFuzzer needed.

use slangpack_reader::Package;
use slangpack_tests::walk::{replay, walk};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// Every file under `dir`, recursively, sorted; READMEs left out.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let path = e.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_none_or(|x| x != "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The packages of `fuzz/regressions/corpus.bundle.zst`: a zstd frame holding records of a
/// little-endian `u32` length and that many bytes (see `fuzz/regressions/README.md`).
fn corpus_bundle() -> Vec<Vec<u8>> {
    let path = fuzz_dir().join("regressions/corpus.bundle.zst");
    let packed = std::fs::read(&path).expect("the minimised corpus bundle");
    let mut rest: &[u8] = &zstd::decode_all(packed.as_slice()).expect("a zstd frame");
    let mut out = Vec::new();
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let len = u32::from_le_bytes(*len) as usize;
        assert!(
            len <= tail.len(),
            "corpus bundle truncated after {} inputs",
            out.len()
        );
        out.push(tail[..len].to_vec());
        rest = &tail[len..];
    }
    assert!(rest.is_empty(), "corpus bundle has a torn length");
    out
}

/// Regression files, hostile fixtures and the bundled corpus, each with a name for messages.
fn replay_inputs() -> Vec<(String, Vec<u8>)> {
    let hostile = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile");
    let mut inputs: Vec<(String, Vec<u8>)> = files(&fuzz_dir().join("regressions"))
        .into_iter()
        .filter(|p| p.extension().is_none_or(|x| x != "zst"))
        .chain(files(&hostile))
        .map(|p| {
            let bytes = std::fs::read(&p).expect("readable regression input");
            (p.display().to_string(), bytes)
        })
        .collect();
    let bundle = corpus_bundle();
    // The bundle is what makes this replay assert anything beyond the few crash files.
    assert!(
        bundle.len() >= 100,
        "the minimised corpus bundle holds {} inputs",
        bundle.len()
    );
    inputs.extend(
        bundle
            .into_iter()
            .enumerate()
            .map(|(i, bytes)| (format!("corpus.bundle.zst input {i}"), bytes)),
    );
    inputs
}

#[test]
fn regressions_never_panic() {
    let inputs = replay_inputs();
    let mut opened = 0;
    for (name, bytes) in &inputs {
        // A panic here names the input through the test's output.
        eprintln!("replaying {name}");
        opened += usize::from(replay(bytes));
    }
    eprintln!("{} inputs replayed, {opened} opened as given", inputs.len());
    // Minimised corpora keep packages that open and walk, not only refused bytes.
    assert!(
        opened >= 20,
        "only {opened} of {} inputs opened",
        inputs.len()
    );
}

#[test]
fn seed_packages_open_and_walk() {
    let seeds = files(&fuzz_dir().join("seeds"));
    assert!(seeds.len() >= 3, "seed packages missing: {seeds:?}");
    for path in seeds {
        let bytes = std::fs::read(&path).expect("readable seed");
        assert!(
            replay(&bytes),
            "seed {} no longer opens: rebake the seeds (fuzz/README.md)",
            path.display()
        );
    }
}

#[test]
fn mapped_seeds_walk_like_owned_ones() {
    for path in files(&fuzz_dir().join("seeds")) {
        let mapped = Package::open(&path).expect("seed opens mapped");
        let owned = Package::from_bytes(mapped.as_bytes()).expect("seed opens owned");
        assert!(mapped.is_mapped() && !owned.is_mapped());
        // The walk folds in `is_mapped`; everything else must read the same.
        assert_eq!(walk(&mapped), walk(&owned) + 1, "{}", path.display());
    }
}

/// The package tools (`dump`, `header`, `diff`, `extract`) on every regression, fixture, corpus
/// and seed package that opens, with the checks of the fuzz target `tools_on_packages`.
#[test]
fn tools_run_clean_on_regressions_and_seeds() {
    let seed = fuzz_dir().join("seeds/open_and_walk/examples.slangpack");
    let seed = Package::from_bytes(&std::fs::read(seed).expect("the examples seed")).unwrap();
    let mut ran = 0;
    let seeds = files(&fuzz_dir().join("seeds")).into_iter().map(|p| {
        let bytes = std::fs::read(&p).expect("readable seed");
        (p.display().to_string(), bytes)
    });
    for (name, bytes) in replay_inputs().into_iter().chain(seeds) {
        if let Ok(package) = Package::from_bytes(&bytes) {
            eprintln!("tools on {name}");
            slangpack_tests::tools_walk::tools_walk(&package, &seed);
            ran += 1;
        }
    }
    assert!(ran > 3, "no package to run the tools on");
}

//! Fuzz inputs replayed as ordinary tests: every file under `fuzz/regressions/` (inputs that
//! once crashed a target, and minimised corpus entries), the hostile fixtures
//! under `tests/fixtures/hostile/` and the seed packages under `fuzz/seeds/`, through the walk
//! the fuzz targets use (open, lazy loads in a scrambled order, the full check). No nightly
//! toolchain or libFuzzer needed.

use slangpack_reader::Package;
use slangpack_tests::walk::{refix_checksums, walk};
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

/// Opens `bytes` as given and with recomputed checksums; walks whatever opens. Returns whether
/// the bytes as given opened.
fn replay(bytes: &[u8]) -> bool {
    let opened = match Package::from_bytes(bytes) {
        Ok(package) => {
            walk(&package);
            true
        }
        Err(_) => false,
    };
    let mut fixed = bytes.to_vec();
    if refix_checksums(&mut fixed) && fixed != bytes {
        if let Ok(package) = Package::from_bytes(&fixed) {
            walk(&package);
        }
    }
    opened
}

#[test]
fn regressions_never_panic() {
    let hostile = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile");
    let inputs: Vec<PathBuf> = files(&fuzz_dir().join("regressions"))
        .into_iter()
        .chain(files(&hostile))
        .collect();
    // Empty directories would make this test assert nothing.
    assert!(
        !inputs.is_empty(),
        "no regression inputs or hostile fixtures found"
    );
    let mut opened = 0;
    for path in &inputs {
        let bytes = std::fs::read(path).expect("readable regression input");
        // A panic here names the input through the test's output.
        eprintln!("replaying {}", path.display());
        opened += usize::from(replay(&bytes));
    }
    eprintln!("{} inputs replayed, {opened} opened as given", inputs.len());
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

/// The package tools (`dump`, `header`, `diff`, `extract`) on every regression and seed
/// package that opens, with the checks of the fuzz target `tools_on_packages`.
#[test]
fn tools_run_clean_on_regressions_and_seeds() {
    let seed = fuzz_dir().join("seeds/open_and_walk/examples.slangpack");
    let seed = Package::from_bytes(&std::fs::read(seed).expect("the examples seed")).unwrap();
    let mut ran = 0;
    for path in files(&fuzz_dir().join("regressions"))
        .into_iter()
        .chain(files(&fuzz_dir().join("seeds")))
    {
        let bytes = std::fs::read(&path).expect("readable input");
        if let Ok(package) = Package::from_bytes(&bytes) {
            eprintln!("tools on {}", path.display());
            slangpack_tests::tools_walk::tools_walk(&package, &seed);
            ran += 1;
        }
    }
    assert!(ran > 3, "no package to run the tools on");
}

//! The shared bake cache (`BakeConfig::cache`, `slangpack bake --cache DIR`) with the real
//! compiler: a cold bake fills it; a bake of the same shaders in a fresh directory takes every
//! permutation from it, starts no Slang session and writes the same bytes; an edited import
//! recompiles only what imports it; damaged cache files (truncated, corrupt, named wrongly,
//! malformed records) are warnings and local compiles, never a failed bake or a wrong package.

use slangpack_writer::bake::{bake, BakeConfig, BakeOutcome};
use std::path::{Path, PathBuf};

fn copy_dir(from: &Path, to: &Path) {
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
fn checkout(dir: &Path) -> PathBuf {
    let shaders = dir.join("shaders");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders"),
        &shaders,
    );
    shaders
}

fn bake_with(shaders: &Path, cache: &Path) -> BakeOutcome {
    let mut config = BakeConfig::new(vec![shaders.to_path_buf()]);
    config.jobs = 2;
    config.cache = Some(cache.to_path_buf());
    bake(&config).expect("the bake succeeds")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// The blobs of the cache that are entry packages (the others are the compiles' input trees
/// and their Remote Execution API descriptions).
fn packages(cache: &Path) -> Vec<PathBuf> {
    files(&cache.join("cas"))
        .into_iter()
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b"SLANGPK")))
        .collect()
}

#[test]
fn a_warm_cache_bakes_a_fresh_checkout_without_slang() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let cold = bake_with(&checkout(&tmp.path().join("a")), &cache);
    assert_eq!(cold.compiled, 5, "4 programs and the imported module");
    assert_eq!(cold.from_cache, 0);
    assert!(cold.cache_warnings.is_empty(), "{:?}", cold.cache_warnings);
    assert_eq!(files(&cache.join("ac")).len(), 5);
    assert_eq!(packages(&cache).len(), 4, "one entry package per program");

    // Another checkout, another path: everything from the cache, byte for byte.
    let b = checkout(&tmp.path().join("elsewhere/b"));
    let warm = bake_with(&b, &cache);
    assert_eq!((warm.compiled, warm.from_cache), (0, 5));
    assert!(warm.compiled_keys.is_empty());
    assert!(warm.bytes == cold.bytes, "the same package");

    // An edited import: only the program importing it is compiled.
    let common = b.join("layered/common.slang");
    let text = std::fs::read_to_string(&common).unwrap();
    std::fs::write(&common, format!("{text}\n// edited\n")).unwrap();
    let edited = bake_with(&b, &cache);
    assert_eq!(edited.compiled_keys, ["layered/layered"]);
    assert_eq!(edited.from_cache, 3, "the three others");
}

#[test]
fn a_damaged_cache_costs_compiles_not_the_bake() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let cold = bake_with(&checkout(&tmp.path().join("a")), &cache);
    let blobs = packages(&cache);
    let records = files(&cache.join("ac"));
    // One blob truncated, one corrupted in place, one replaced by another blob's bytes (so
    // its name is not its hash), one action record malformed.
    let bytes = std::fs::read(&blobs[0]).unwrap();
    std::fs::write(&blobs[0], &bytes[..bytes.len() / 2]).unwrap();
    let mut bytes = std::fs::read(&blobs[1]).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&blobs[1], &bytes).unwrap();
    std::fs::copy(&blobs[3], &blobs[2]).unwrap();
    std::fs::write(&records[0], "not an ActionResult message").unwrap();

    let damaged = bake_with(&checkout(&tmp.path().join("b")), &cache);
    assert!(
        damaged.bytes == cold.bytes,
        "the same package whatever the cache held"
    );
    assert!(damaged.compiled >= 3, "{} compiled", damaged.compiled);
    assert!(
        damaged.cache_warnings.len() >= 3,
        "{:?}",
        damaged.cache_warnings
    );
    // The compiles repaired the cache: the next fresh bake needs no Slang.
    let repaired = bake_with(&checkout(&tmp.path().join("c")), &cache);
    assert_eq!((repaired.compiled, repaired.from_cache), (0, 5));
    assert!(repaired.bytes == cold.bytes);

    // A cache that cannot be written (a file where the directory should be): warnings only.
    let blocked = tmp.path().join("blocked");
    std::fs::write(&blocked, b"not a directory").unwrap();
    let outcome = bake_with(&checkout(&tmp.path().join("d")), &blocked);
    assert!(outcome.bytes == cold.bytes);
    assert!(!outcome.cache_warnings.is_empty());
}

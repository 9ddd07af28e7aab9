//! The shared bake cache (`BakeConfig::cache`, `slangpack bake --cache DIR`) with the real
//! compiler: a cold bake fills it; a bake of the same shaders in a fresh directory takes every
//! permutation from it, starts no Slang session and writes the same bytes; an edited import
//! recompiles only what imports it; damaged cache files (truncated, corrupt, named wrongly,
//! malformed records) are warnings and local compiles, never a failed bake or a wrong package.
//! Without a previous package, a bake takes the cache's package for its permutations (the
//! result of their assembly) in its place, each entry only where it is unchanged; a damaged
//! one is a warning, one naming hostile dependencies reads none of them.

use slangpack_tests::checkout::{assert_one_cache_warning, checkout, files, packages};
use slangpack_writer::bake::{bake, BakeConfig, BakeOutcome};
use std::path::{Path, PathBuf};

fn bake_with(shaders: &Path, cache: &Path) -> BakeOutcome {
    let mut config = BakeConfig::new(vec![shaders.to_path_buf()]);
    config.jobs = 2;
    config.cache = Some(cache.to_path_buf());
    bake(&config).expect("the bake succeeds")
}

#[test]
fn a_warm_cache_bakes_a_fresh_checkout_without_slang() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let cold = bake_with(&checkout(&tmp.path().join("a")), &cache);
    assert_eq!(cold.compiled, 5, "4 programs and the imported module");
    assert_eq!(cold.from_cache, 0);
    assert!(cold.cache_warnings.is_empty(), "{:?}", cold.cache_warnings);
    assert_eq!(files(&cache.join("ac")).len(), 6, "5 compiles, 1 assembly");
    assert_eq!(
        packages(&cache.join("cas")).len(),
        5,
        "one entry package per program, and the package"
    );

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
    assert_eq!(
        files(&cache.join("ac")).len(),
        8,
        "the edited compiles, a new assembly"
    );
}

#[test]
fn a_bake_that_fails_keeps_what_it_compiled_in_the_cache() {
    // The cache gathers its stores and sends them together: a bake that stops at a compile
    // error still stores every permutation that compiled.
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let shaders = checkout(&tmp.path().join("a"));
    let blur = shaders.join("blur.slang");
    let text = std::fs::read_to_string(&blur).unwrap();
    std::fs::write(&blur, format!("{text}\nthis is not Slang\n")).unwrap();
    let mut config = BakeConfig::new(vec![shaders.clone()]);
    config.jobs = 2;
    config.cache = Some(cache.clone());
    assert!(bake(&config).is_err(), "blur does not compile");
    assert_eq!(
        files(&cache.join("ac")).len(),
        4,
        "the three other programs and the imported module; no assembly"
    );
    // Mended, the bake compiles blur alone.
    std::fs::write(&blur, text).unwrap();
    let mended = bake_with(&shaders, &cache);
    assert_eq!(mended.compiled_keys, ["blur"]);
    assert_eq!(mended.from_cache, 4);
}

/// The assembly action results of `cache` (the package's), with their paths.
fn assemblies(cache: &Path) -> Vec<(PathBuf, slangpack_cache::reapi::ActionResult)> {
    results(cache)
        .into_iter()
        .filter(|(_, r)| r.output_files.iter().any(|f| f.path == "package.slangpack"))
        .collect()
}

/// The blob output `name` of `result` names.
fn output_blob(cache: &Path, result: &slangpack_cache::reapi::ActionResult, name: &str) -> PathBuf {
    let file = result.output_files.iter().find(|f| f.path == name).unwrap();
    cache.join("cas").join(&file.digest.as_ref().unwrap().hash)
}

/// A checkout in `dir` holding, beside the shaders, `fifo.bin` (a FIFO) and `zero.bin` (a
/// symlink to `/dev/zero`), with `outside.slang` in the directory above it.
fn hostile_checkout(dir: &Path) -> PathBuf {
    let b = checkout(dir);
    assert!(std::process::Command::new("mkfifo")
        .arg(b.join("fifo.bin"))
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink("/dev/zero", b.join("zero.bin")).unwrap();
    std::fs::write(b.parent().unwrap().join("outside.slang"), "// outside").unwrap();
    b
}

/// Removes the package's assembly from `cache` (its action result and package), so that
/// every entry is looked up on its own.
fn forget_the_package(cache: &Path) {
    let [(record, result)] = assemblies(cache).try_into().unwrap();
    std::fs::remove_file(output_blob(cache, &result, "package.slangpack")).unwrap();
    std::fs::remove_file(record).unwrap();
}

#[test]
fn the_cached_package_is_checked_like_a_previous_package() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let cold = bake_with(&checkout(&tmp.path().join("a")), &cache);
    let [(record, result)] = assemblies(&cache).try_into().unwrap();
    let blob = output_blob(&cache, &result, "package.slangpack");
    assert_eq!(std::fs::read(&blob).unwrap(), *cold.bytes);
    let package = slangpack_reader::Package::from_bytes(&cold.bytes).unwrap();
    let entries: Vec<_> = (0..package.len())
        .map(|i| slangpack_pack::merge::baked_entry(&package.load_at(i).unwrap()).unwrap())
        .collect();

    // A package holding one entry fewer, stored under its own hash: what it holds is used,
    // the missing entry comes from its own action result.
    let fewer = slangpack_pack::assemble::assemble(&entries[1..], true).unwrap();
    repoint(
        &record,
        &result,
        "package.slangpack",
        &put_blob(&cache, &fewer),
    );
    let partial = bake_with(&checkout(&tmp.path().join("b")), &cache);
    assert_eq!((partial.compiled, partial.from_cache), (0, 5));
    assert!(
        partial.cache_warnings.is_empty(),
        "{:?}",
        partial.cache_warnings
    );
    assert!(partial.bytes == cold.bytes);

    // A package whose entries name, as dependencies, a FIFO in the checkout, a file outside
    // it and a device: none is read (the bake returns), those entries are taken on their own.
    let b = hostile_checkout(&tmp.path().join("c"));
    let mut hostile = entries.clone();
    for (entry, name) in hostile
        .iter_mut()
        .zip(["fifo.bin", "../outside.slang", "zero.bin"])
    {
        entry.dependencies.push((name.to_string(), 0));
        entry.dependencies.sort();
    }
    let hostile = slangpack_pack::assemble::assemble(&hostile, true).unwrap();
    repoint(
        &record,
        &result,
        "package.slangpack",
        &put_blob(&cache, &hostile),
    );
    let started = std::time::Instant::now();
    let guarded = bake_with(&b, &cache);
    assert!(started.elapsed() < std::time::Duration::from_secs(120));
    assert_eq!((guarded.compiled, guarded.from_cache), (0, 5));
    assert!(guarded.bytes == cold.bytes);

    // The honest package back, then damaged in place (its name no longer its hash): a
    // warning, and every entry on its own.
    repoint(
        &record,
        &result,
        "package.slangpack",
        &put_blob(&cache, &cold.bytes),
    );
    let mut bytes = cold.bytes.to_vec();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&blob, &bytes).unwrap();
    let damaged = bake_with(&checkout(&tmp.path().join("d")), &cache);
    assert_one_cache_warning(&damaged, &cold, (0, 5), "the package");

    // Whole again: a fresh checkout reads the package and no entry.
    std::fs::write(&blob, &*cold.bytes).unwrap();
    let warm = bake_with(&checkout(&tmp.path().join("e")), &cache);
    assert_eq!((warm.compiled, warm.from_cache), (0, 5));
    assert!(warm.cache_warnings.is_empty(), "{:?}", warm.cache_warnings);
    assert!(warm.bytes == cold.bytes);
}

#[test]
fn a_damaged_cache_costs_compiles_not_the_bake() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let cold = bake_with(&checkout(&tmp.path().join("a")), &cache);
    forget_the_package(&cache);
    let blobs = packages(&cache.join("cas"));
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

/// The action results of `cache`, decoded, with their paths.
fn results(cache: &Path) -> Vec<(PathBuf, slangpack_cache::reapi::ActionResult)> {
    use prost::Message;
    files(&cache.join("ac"))
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (
                p,
                slangpack_cache::reapi::ActionResult::decode(&bytes[..]).unwrap(),
            )
        })
        .collect()
}

/// Stores `bytes` in the cache's CAS and returns their digest.
fn put_blob(cache: &Path, bytes: &[u8]) -> slangpack_cache::reapi::Digest {
    let digest = slangpack_cache::digest_of(bytes);
    std::fs::write(cache.join("cas").join(&digest.hash), bytes).unwrap();
    digest
}

/// Points output `name` of the action result at `path` to `digest`.
fn repoint(
    path: &Path,
    result: &slangpack_cache::reapi::ActionResult,
    name: &str,
    digest: &slangpack_cache::reapi::Digest,
) {
    use prost::Message;
    let mut result = result.clone();
    for f in &mut result.output_files {
        if f.path == name {
            f.digest = Some(digest.clone());
        }
    }
    std::fs::write(path, result.encode_to_vec()).unwrap();
}

#[test]
fn inputs_that_leave_the_bake_root_are_never_read() {
    use prost::Message;
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let cold = bake_with(&checkout(&tmp.path().join("a")), &cache);
    forget_the_package(&cache);
    // A symlink in the checkout to a device, a FIFO: a tree naming them must not make the
    // bake read them.
    let b = hostile_checkout(&tmp.path().join("b"));
    let hostile = [
        "../outside.slang",
        "/etc/passwd",
        "zero.bin",
        "fifo.bin",
        "blur/../../outside.slang",
    ];
    let records: Vec<_> = results(&cache)
        .into_iter()
        .filter(|(_, r)| r.output_files.iter().any(|f| f.path == "inputs.tree"))
        .collect();
    assert_eq!(records.len(), 5);
    for ((path, result), name) in records.iter().zip(hostile.iter().cycle()) {
        let inputs = result
            .output_files
            .iter()
            .find(|f| f.path == "inputs.tree")
            .unwrap();
        let digest = inputs.digest.clone().unwrap();
        let bytes = std::fs::read(cache.join("cas").join(&digest.hash)).unwrap();
        let mut tree = slangpack_cache::reapi::Tree::decode(&bytes[..]).unwrap();
        // One more file beside the real ones, named as a hostile cache would.
        tree.root
            .as_mut()
            .unwrap()
            .files
            .push(slangpack_cache::reapi::FileNode {
                name: (*name).to_string(),
                digest: Some(slangpack_cache::digest_of(b"anything")),
                ..Default::default()
            });
        let forged = put_blob(&cache, &tree.encode_to_vec());
        repoint(path, result, "inputs.tree", &forged);
    }
    let started = std::time::Instant::now();
    let outcome = bake_with(&b, &cache);
    // Every permutation compiled again (nothing read from the device or the FIFO: the bake
    // returns), the same package.
    assert_eq!(outcome.compiled, 5);
    assert!(outcome.bytes == cold.bytes);
    assert!(started.elapsed() < std::time::Duration::from_secs(120));
}

#[test]
fn a_substituted_entry_fails_a_verifying_bake() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let cold = bake_with(&checkout(&tmp.path().join("a")), &cache);
    forget_the_package(&cache);
    // An entry with one SPIR-V word changed, stored under its own SHA-256, the action result
    // pointed at it: a well-formed entry baked from "the same inputs".
    let (path, result) = results(&cache)
        .into_iter()
        .find(|(_, r)| r.output_files.iter().any(|f| f.path == "entry.slangpack"))
        .unwrap();
    let entry_digest = result
        .output_files
        .iter()
        .find(|f| f.path == "entry.slangpack")
        .and_then(|f| f.digest.clone())
        .unwrap();
    let bytes = std::fs::read(cache.join("cas").join(&entry_digest.hash)).unwrap();
    let package = slangpack_reader::Package::from_bytes(&bytes).unwrap();
    let mut entry = slangpack_pack::merge::baked_entry(&package.load_at(0).unwrap()).unwrap();
    let words = &mut entry.entry_points[0].spirv;
    let last = words.len() - 1;
    words[last] ^= 1;
    let forged = slangpack_pack::assemble::assemble(std::slice::from_ref(&entry), true).unwrap();
    let forged = put_blob(&cache, &forged);
    repoint(&path, &result, "entry.slangpack", &forged);

    // Trusted as it is, the substituted entry ships (nothing signs entries)...
    let trusting = bake_with(&checkout(&tmp.path().join("b")), &cache);
    assert_eq!(trusting.compiled, 0);
    assert!(trusting.bytes != cold.bytes);
    // ...and a bake that recompiles every hit fails loudly, naming the entry, writing nothing.
    let b = checkout(&tmp.path().join("c"));
    let output = tmp.path().join("out.slangpack");
    std::fs::write(&output, b"previous output").unwrap();
    let mut config = BakeConfig::new(vec![b]);
    config.jobs = 2;
    config.cache = Some(cache.clone());
    config.cache_options.verify = 1.0;
    let e = slangpack_writer::bake::bake_to_file(&config, &output)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--cache-verify") && e.contains(&entry.key),
        "{e}"
    );
    assert_eq!(std::fs::read(&output).unwrap(), b"previous output");
    // With the honest entry back, verification passes and counts the hits.
    repoint(&path, &result, "entry.slangpack", &entry_digest);
    let mut config = BakeConfig::new(vec![checkout(&tmp.path().join("d"))]);
    config.jobs = 2;
    config.cache = Some(cache.clone());
    config.cache_options.verify = 1.0;
    let verified = bake(&config).unwrap();
    assert_eq!((verified.compiled, verified.from_cache), (4, 5));
    assert!(verified.bytes == cold.bytes);
}

#[test]
fn a_read_only_client_never_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let mut config = BakeConfig::new(vec![checkout(&tmp.path().join("a"))]);
    config.jobs = 2;
    config.cache = Some(cache.clone());
    config.cache_options.read_only = true;
    let outcome = bake(&config).unwrap();
    assert_eq!(outcome.compiled, 5);
    assert!(!cache.exists(), "nothing written");
}

#[test]
fn a_manifest_names_its_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |dir: &Path| -> PathBuf {
        let shaders = checkout(dir);
        std::fs::create_dir_all(dir.join("secrets")).unwrap();
        std::fs::write(dir.join("secrets/token"), "Bearer from-a-file\n").unwrap();
        let manifest = shaders.join("bake.toml");
        std::fs::write(
            &manifest,
            "[cache]\nlocations = [\"../../cache\"]\nheaders = { Authorization = \"@../secrets/token\" }\n\
             \n[[program]]\nsource = \"blur.slang\"\n",
        )
        .unwrap();
        manifest
    };
    let bake_manifest = |manifest: PathBuf| {
        let mut config = BakeConfig::new(vec![manifest]);
        config.jobs = 2;
        bake(&config).unwrap()
    };
    let cold = bake_manifest(write(&tmp.path().join("a")));
    assert_eq!((cold.compiled, cold.from_cache), (1, 0));
    assert_eq!(
        packages(&tmp.path().join("cache/cas")).len(),
        2,
        "the entry, the package"
    );
    let warm = bake_manifest(write(&tmp.path().join("b")));
    assert_eq!((warm.compiled, warm.from_cache), (0, 1));
    assert!(warm.bytes == cold.bytes);
    // A header file that is not there is an error naming the manifest, not a silent miss.
    let broken = write(&tmp.path().join("c"));
    std::fs::remove_file(tmp.path().join("c/secrets/token")).unwrap();
    let mut config = BakeConfig::new(vec![broken]);
    config.jobs = 2;
    let e = bake(&config).unwrap_err().to_string();
    assert!(e.contains("bake.toml") && e.contains("[cache]"), "{e}");
}

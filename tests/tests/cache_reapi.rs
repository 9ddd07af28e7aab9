//! The team cache on a Remote Execution API server (`slangpack bake --cache grpc://...`):
//! BuildGrid from PyPI, started by the test on 127.0.0.1 with an in-memory CAS and action
//! cache. A cold bake fills it; a fresh checkout elsewhere bakes from it without compiling,
//! byte for byte; what it stored reads back through BuildGrid's own client (`bgd actioncache
//! get`, `bgd cas download-file`) as well-formed action results and the entry packages; a
//! server that stops mid-way, or was never there, costs one warning and local compiles.
//!
//! `cargo xtask test` installs BuildGrid into `target/buildgrid-venv` and sets
//! `SLANGPACK_REQUIRE_BUILDGRID`; a plain `cargo test` without it skips these tests.

use slangpack_tests::buildgrid::BuildGrid;
use slangpack_tests::checkout::{
    assert_one_cache_warning, bake_with_cache, checkout, cold_then_warm, files, packages,
};
use slangpack_writer::bake::{bake, BakeConfig};

#[test]
fn buildgrid_as_the_team_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(server) = BuildGrid::start(&tmp.path().join("buildgrid")) else {
        return;
    };
    let (cold, local) = cold_then_warm(tmp.path(), &server.url());
    // The package came whole, as its assembly's action result: BuildGrid's own client reads
    // that result and the package it names.
    let [assembly] = files(&local.join("ac")).try_into().unwrap();
    let shown = show_action(&server, &local, &assembly);
    assert!(shown.contains("package.slangpack"), "{shown}");
    let [package] = packages(&local.join("cas")).try_into().unwrap();
    assert_eq!(download(&server, &package, tmp.path()), *cold.bytes);

    // An edited import: the package is assembled again from the entries, three of them taken
    // from the server one by one (and copied into the directory), the edited one compiled.
    let edited = checkout(&tmp.path().join("e"));
    let common = edited.join("layered/common.slang");
    let text = std::fs::read_to_string(&common).unwrap();
    std::fs::write(&common, format!("{text}\n// edited\n")).unwrap();
    let local = tmp.path().join("local-cache-2");
    let rebaked = bake_with_cache(&edited, &server.url(), Some(&local));
    assert_eq!(rebaked.compiled_keys, ["layered/layered"]);
    assert!(
        rebaked.cache_warnings.is_empty(),
        "{:?}",
        rebaked.cache_warnings
    );
    let entries = packages(&local.join("cas"));

    // BuildGrid's own client reads what the bake stored: each action result, and the entry
    // it names, byte for byte the package the local directory holds.
    let actions: Vec<_> = files(&local.join("ac"))
        .into_iter()
        .filter(|a| !show_action(&server, &local, a).contains("package.slangpack"))
        .collect();
    assert_eq!(actions.len(), 5);
    let mut seen_entries = 0;
    for action in &actions {
        let shown = show_action(&server, &local, action);
        assert!(shown.contains("inputs.tree"), "{shown}");
        if let Some(entry) = entries
            .iter()
            .find(|e| shown.contains(&*e.file_name().unwrap().to_string_lossy()))
        {
            assert_eq!(
                download(&server, entry, tmp.path()),
                std::fs::read(entry).unwrap()
            );
            seen_entries += 1;
        }
    }
    assert_eq!(seen_entries, 4, "each entry named by one action result");

    // The server stops: one warning, local compiles, the same bytes.
    let url = server.url();
    drop(server);
    let stopped = bake_with_cache(&checkout(&tmp.path().join("d")), &url, None);
    assert_eq!(stopped.compiled, 5);
    assert!(stopped.bytes == cold.bytes);
    assert_eq!(
        stopped.cache_warnings.len(),
        1,
        "{:?}",
        stopped.cache_warnings
    );
}

/// `bgd actioncache get` of the action whose result `local`'s `ac` holds at `action` (the
/// action message is in `local`'s CAS too: its size completes the digest).
fn show_action(server: &BuildGrid, local: &std::path::Path, action: &std::path::Path) -> String {
    let hash = action.file_name().unwrap().to_string_lossy().into_owned();
    let size = std::fs::metadata(local.join("cas").join(&hash))
        .unwrap()
        .len();
    server.client("actioncache", &["get", "--json", &format!("{hash}/{size}")])
}

/// `bgd cas download-file --verify` of the blob `local` holds at `blob`, checked to open and
/// verify as a package: its bytes.
fn download(server: &BuildGrid, blob: &std::path::Path, scratch: &std::path::Path) -> Vec<u8> {
    let name = blob.file_name().unwrap().to_string_lossy().into_owned();
    let size = std::fs::metadata(blob).unwrap().len();
    let out = scratch.join(format!("downloaded-{name}"));
    server.client(
        "cas",
        &[
            "download-file",
            "--verify",
            &format!("{name}/{size}"),
            out.to_str().unwrap(),
        ],
    );
    slangpack_reader::Package::open(&out)
        .unwrap()
        .verify_all()
        .unwrap();
    std::fs::read(&out).unwrap()
}

#[test]
fn a_server_stopped_mid_bake_costs_one_warning() {
    use std::sync::{Arc, Mutex};
    let tmp = tempfile::tempdir().unwrap();
    let mut reference = BakeConfig::new(vec![checkout(&tmp.path().join("ref"))]);
    reference.jobs = 2;
    let reference = bake(&reference).unwrap();
    let Some(server) = BuildGrid::start(&tmp.path().join("buildgrid")) else {
        return;
    };
    let url = server.url();
    // The server is stopped when the first permutation is finished, while the others compile
    // and their results are being stored.
    let server = Arc::new(Mutex::new(Some(server)));
    let stopper = Arc::clone(&server);
    let mut config = BakeConfig::new(vec![checkout(&tmp.path().join("a"))]);
    config.jobs = 1;
    config.cache_url = Some(url);
    config.progress = Some(Arc::new(move |done, _, _| {
        if done == 1 {
            drop(stopper.lock().unwrap().take());
        }
    }));
    let outcome = bake(&config).expect("the bake succeeds whatever the cache does");
    assert!(server.lock().unwrap().is_none(), "stopped during the bake");
    assert_eq!(outcome.compiled, 5);
    assert!(outcome.bytes == reference.bytes);
    assert_eq!(
        outcome.cache_warnings.len(),
        1,
        "{:?}",
        outcome.cache_warnings
    );
}

#[test]
fn many_permutations_come_back_over_the_servers_call_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(server) = BuildGrid::start(&tmp.path().join("buildgrid")) else {
        return;
    };
    // 48 permutations: their action results are asked for together, more at once than
    // BuildGrid's limit of concurrent calls lets through (those are asked again).
    let values: Vec<String> = (1..=48).map(|v| v.to_string()).collect();
    let source = format!(
        "//! slangpack-axis RADIUS {}\nRWStructuredBuffer<float> gOut;\n\
         [shader(\"compute\")]\n[numthreads(64, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID)\n{{\n    float s = 0;\n\
         for (int i = 0; i < RADIUS; i++) s += gOut[id.x + i];\n    gOut[id.x] = s;\n}}\n",
        values.join(" ")
    );
    let bake_copy = |dir: &str| {
        let dir = tmp.path().join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("sum.slang"), &source).unwrap();
        let mut config = BakeConfig::new(vec![dir]);
        config.jobs = 2;
        config.cache_url = Some(server.url());
        bake(&config).unwrap()
    };
    let cold = bake_copy("a");
    assert_eq!((cold.compiled, cold.from_cache), (48, 0));
    assert!(cold.cache_warnings.is_empty(), "{:?}", cold.cache_warnings);
    let warm = bake_copy("b");
    assert_eq!((warm.compiled, warm.from_cache), (0, 48));
    assert!(warm.cache_warnings.is_empty(), "{:?}", warm.cache_warnings);
    assert!(warm.bytes == cold.bytes);
}

#[test]
fn capabilities_refused_costs_one_warning_and_nothing_taken() {
    // The Capabilities call goes out beside the first action-cache read; a server that
    // refuses it (here: an instance it does not serve) must not have that read's answer
    // taken, even where it holds the action.
    let tmp = tempfile::tempdir().unwrap();
    let Some(server) = BuildGrid::start(&tmp.path().join("buildgrid")) else {
        return;
    };
    let mut fill = BakeConfig::new(vec![checkout(&tmp.path().join("a"))]);
    fill.jobs = 2;
    fill.cache_url = Some(server.url());
    let cold = bake(&fill).unwrap();
    assert!(cold.cache_warnings.is_empty(), "{:?}", cold.cache_warnings);

    let mut other = fill.clone();
    other.inputs = vec![checkout(&tmp.path().join("b"))];
    other.cache_options.instance = "no-such-instance".into();
    let outcome = bake(&other).expect("the bake succeeds whatever the cache does");
    assert_one_cache_warning(&outcome, &cold, (5, 0), "GetCapabilities");
}

#[test]
fn a_large_file_goes_up_as_it_is_read_and_other_bytes_are_refused() {
    use slangpack_cache::execution::Upload;
    use slangpack_cache::Store;
    let tmp = tempfile::tempdir().unwrap();
    let Some(server) = BuildGrid::start(&tmp.path().join("buildgrid")) else {
        return;
    };
    let mut store =
        slangpack_cache::grpc::GrpcStore::connect(&slangpack_cache::Config::new(&server.url()))
            .unwrap();
    // Larger than a batch (4 MiB here), so it goes through ByteStream a chunk at a time: what
    // a toolchain's libraries take.
    let bytes: Vec<u8> = (0..9_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let path = tmp.path().join("library.so");
    std::fs::write(&path, &bytes).unwrap();
    let digest = slangpack_cache::digest_of_file(&path).unwrap();
    assert_eq!(digest, slangpack_cache::digest_of(&bytes));
    let sent = store
        .upload_missing(std::slice::from_ref(&digest), &mut |_| {
            Ok(Upload::File(path.clone()))
        })
        .unwrap();
    assert_eq!(sent, bytes.len() as u64);
    assert_eq!(
        store.read_blob(&digest).unwrap().as_deref(),
        Some(&bytes[..])
    );
    // Sent again: the server holds it, nothing goes up.
    let again = store
        .upload_missing(std::slice::from_ref(&digest), &mut |_| {
            Ok(Upload::File(path.clone()))
        })
        .unwrap();
    assert_eq!(again, 0);

    // The file changed after its digest was taken: the server refuses the bytes (another
    // digest), and a file that became shorter ends the upload unfinished.
    let mut other = bytes.clone();
    other[5_000_000] ^= 1;
    let stale = slangpack_cache::digest_of(&other);
    std::fs::write(&path, &bytes).unwrap();
    assert!(store.write_file(&stale, &path).is_err());
    let missing = store.find_missing(std::slice::from_ref(&stale)).unwrap();
    assert_eq!(missing, std::slice::from_ref(&stale));
    std::fs::write(&path, &other[..6_000_000]).unwrap();
    assert!(store.write_file(&stale, &path).is_err());
    assert_eq!(
        store.find_missing(std::slice::from_ref(&stale)).unwrap(),
        [stale]
    );
}

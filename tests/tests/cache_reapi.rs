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
use slangpack_tests::checkout::{bake_with_cache, checkout, cold_then_warm, files, packages};
use slangpack_writer::bake::{bake, BakeConfig};

#[test]
fn buildgrid_as_the_team_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(server) = BuildGrid::start(&tmp.path().join("buildgrid")) else {
        return;
    };
    let (cold, local) = cold_then_warm(tmp.path(), &server.url());
    let entries = packages(&local.join("cas"));

    // BuildGrid's own client reads what the bake stored: each action result, and the entry
    // it names, byte for byte the package the local directory holds.
    let actions = files(&local.join("ac"));
    assert_eq!(actions.len(), 5);
    let mut seen_entries = 0;
    for action in &actions {
        let hash = action.file_name().unwrap().to_string_lossy().into_owned();
        // The action message itself is in the CAS too: its size completes the digest.
        let size = std::fs::metadata(local.join("cas").join(&hash))
            .unwrap()
            .len();
        let shown = server.client("actioncache", &["get", "--json", &format!("{hash}/{size}")]);
        assert!(shown.contains("inputs.tree"), "{shown}");
        if let Some(entry) = entries
            .iter()
            .find(|e| shown.contains(&*e.file_name().unwrap().to_string_lossy()))
        {
            let name = entry.file_name().unwrap().to_string_lossy().into_owned();
            let size = std::fs::metadata(entry).unwrap().len();
            let out = tmp.path().join(format!("downloaded-{name}"));
            server.client(
                "cas",
                &[
                    "download-file",
                    "--verify",
                    &format!("{name}/{size}"),
                    out.to_str().unwrap(),
                ],
            );
            assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(entry).unwrap());
            slangpack_reader::Package::open(&out)
                .unwrap()
                .verify_all()
                .unwrap();
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

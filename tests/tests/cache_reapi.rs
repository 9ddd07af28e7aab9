//! The team cache on a Remote Execution API server (`slangpack bake --cache grpc://...`):
//! BuildGrid from PyPI, started by the test on 127.0.0.1 with an in-memory CAS and action
//! cache. A cold bake fills it; a fresh checkout elsewhere bakes from it without compiling,
//! byte for byte; what it stored reads back through BuildGrid's own client (`bgd actioncache
//! get`, `bgd cas download-file`) as well-formed action results and the entry packages; a
//! server that stops mid-way, or was never there, costs one warning and local compiles.
//!
//! `cargo xtask test` installs BuildGrid into `target/buildgrid-venv` and sets
//! `SLANGPACK_REQUIRE_BUILDGRID`; a plain `cargo test` without it skips these tests.

use slangpack_tests::checkout::{checkout, files, free_port, packages, wait_for_port};
use slangpack_writer::bake::{bake, BakeConfig, BakeOutcome};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// BuildGrid's `bgd`: `SLANGPACK_BGD`, else where `cargo xtask test` installs it.
fn bgd() -> Option<PathBuf> {
    let path = std::env::var_os("SLANGPACK_BGD")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/buildgrid-venv/bin/bgd")
        });
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("SLANGPACK_REQUIRE_BUILDGRID").is_none(),
        "BuildGrid is required but {} is missing",
        path.display()
    );
    eprintln!("BuildGrid is not installed (cargo xtask test installs it); skipping");
    None
}

/// A BuildGrid server with an in-memory CAS and action cache on a free port; stopped when
/// dropped.
struct BuildGrid {
    child: Child,
    port: u16,
    bgd: PathBuf,
}

impl BuildGrid {
    fn start(dir: &Path) -> Option<BuildGrid> {
        let bgd = bgd()?;
        std::fs::create_dir_all(dir).unwrap();
        let port = free_port();
        let config = dir.join("buildgrid.yml");
        std::fs::write(
            &config,
            format!(
                "server:\n  - !channel\n    address: \"127.0.0.1:{port}\"\n    insecure-mode: true\n\
                 storages:\n  - !lru-storage &cas\n    size: 256MB\n\
                 caches:\n  - !lru-action-cache &ac\n    storage: *cas\n    max-cached-refs: 10000\n    allow-updates: true\n\
                 instances:\n  - name: \"\"\n    services:\n      - !action-cache\n        cache: *ac\n\
                 \x20     - !cas\n        storage: *cas\n      - !bytestream\n        storage: *cas\n"
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        let child = Command::new(&bgd)
            .args(["server", "start"])
            .arg(&config)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("starting bgd");
        let server = BuildGrid { child, port, bgd };
        assert!(
            wait_for_port(port, Duration::from_secs(60)),
            "BuildGrid did not start: {}",
            std::fs::read_to_string(dir.join("server.log")).unwrap_or_default()
        );
        Some(server)
    }

    fn url(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }

    /// `bgd GROUP --remote ... ARGS`, which must succeed: its stdout.
    fn client(&self, group: &str, args: &[&str]) -> String {
        let out = Command::new(&self.bgd)
            .arg(group)
            .args(["--remote", &format!("http://127.0.0.1:{}", self.port)])
            .args(args)
            .output()
            .expect("running bgd");
        assert!(
            out.status.success(),
            "bgd {group} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for BuildGrid {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bake_with(shaders: &Path, url: &str, dir: Option<&Path>) -> BakeOutcome {
    let mut config = BakeConfig::new(vec![shaders.to_path_buf()]);
    config.jobs = 2;
    config.cache_url = Some(url.to_string());
    config.cache = dir.map(Path::to_path_buf);
    bake(&config).expect("the bake succeeds whatever the cache does")
}

#[test]
fn buildgrid_as_the_team_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(server) = BuildGrid::start(&tmp.path().join("buildgrid")) else {
        return;
    };
    let cold = bake_with(&checkout(&tmp.path().join("a")), &server.url(), None);
    assert_eq!((cold.compiled, cold.from_cache), (5, 0));
    assert!(cold.cache_warnings.is_empty(), "{:?}", cold.cache_warnings);

    // A fresh checkout elsewhere, with a local directory in front: nothing compiled, the
    // same bytes, and the directory filled from the server.
    let local = tmp.path().join("local-cache");
    let warm = bake_with(
        &checkout(&tmp.path().join("b/c")),
        &server.url(),
        Some(&local),
    );
    assert_eq!((warm.compiled, warm.from_cache), (0, 5));
    assert!(warm.compiled_keys.is_empty());
    assert!(warm.cache_warnings.is_empty(), "{:?}", warm.cache_warnings);
    assert!(warm.bytes == cold.bytes);
    let entries = packages(&local.join("cas"));
    assert_eq!(entries.len(), 4);

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
    let stopped = bake_with(&checkout(&tmp.path().join("d")), &url, None);
    assert_eq!(stopped.compiled, 5);
    assert!(stopped.bytes == cold.bytes);
    assert_eq!(
        stopped.cache_warnings.len(),
        1,
        "{:?}",
        stopped.cache_warnings
    );
}

//! BuildGrid, a Remote Execution API server from PyPI, started on 127.0.0.1 with an in-memory
//! CAS and action cache: the team cache the gRPC tests and the cache bench rows talk to.

use crate::checkout::{free_port, wait_for_port};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// BuildGrid's `bgd`: `SLANGPACK_BGD`, else where `cargo xtask test` installs it; `None`
/// (with a note) when it is not there, unless `SLANGPACK_REQUIRE_BUILDGRID` is set.
///
/// # Panics
/// When BuildGrid is required and missing.
#[must_use]
pub fn bgd() -> Option<PathBuf> {
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
pub struct BuildGrid {
    child: Child,
    port: u16,
    bgd: PathBuf,
}

impl BuildGrid {
    /// Starts a server whose files live in `dir`; `None` when BuildGrid is not installed.
    #[must_use]
    pub fn start(dir: &Path) -> Option<BuildGrid> {
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
        let child = start_server(&bgd, &config, dir);
        let server = BuildGrid { child, port, bgd };
        assert!(
            wait_for_port(port, Duration::from_secs(60)),
            "BuildGrid did not start: {}",
            std::fs::read_to_string(dir.join("server.log")).unwrap_or_default()
        );
        Some(server)
    }

    /// The server's `grpc://` URL.
    #[must_use]
    pub fn url(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }

    /// `bgd GROUP --remote ... ARGS`, which must succeed: its stdout.
    /// Runs BuildGrid's own client against the server.
    ///
    /// # Panics
    /// When the client fails.
    pub fn client(&self, group: &str, args: &[&str]) -> String {
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

/// `bgd server start CONFIG` in `dir`, its output in `dir/server.log`.
///
/// # Panics
/// When the log cannot be created or `bgd` cannot be started.
#[must_use]
pub fn start_server(bgd: &Path, config: &Path, dir: &Path) -> std::process::Child {
    let log = std::fs::File::create(dir.join("server.log")).unwrap();
    Command::new(bgd)
        .args(["server", "start"])
        .arg(config)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("starting bgd")
}

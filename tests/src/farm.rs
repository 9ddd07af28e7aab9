//! A build farm on 127.0.0.1 for the remote-execution tests: PostgreSQL in a scratch data
//! directory (BuildGrid's execution scheduler keeps its queue there), BuildGrid with its
//! execution, operations, bots, CAS and action-cache services, and bots
//! (`tests/farm/bot.py`, over BuildGrid's Bots API) that run the actions. Everything is
//! stopped when the [`Farm`] is dropped.

use crate::checkout::{free_port, wait_for_port};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// PostgreSQL's server programs (`initdb`, `postgres`): the newest Debian installs, or
/// `SLANGPACK_PG_BIN`.
fn postgres_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SLANGPACK_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    versions.sort();
    versions.pop()
}

/// The uid and gid of the `postgres` user, when this process runs as root (PostgreSQL
/// refuses to run as root).
fn postgres_user() -> Option<(u32, u32)> {
    let out = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&out.stdout).trim() != "0" {
        return None;
    }
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, "postgres"]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    Some((id("-u")?, id("-g")?))
}

/// A command that runs as `user` when given.
fn as_user(program: &Path, user: Option<(u32, u32)>) -> Command {
    let mut command = Command::new(program);
    if let Some((uid, gid)) = user {
        std::os::unix::process::CommandExt::uid(&mut command, uid);
        std::os::unix::process::CommandExt::gid(&mut command, gid);
    }
    command
}

/// A child stopped (killed, then waited for) when dropped.
struct Stopped(Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// PostgreSQL, BuildGrid and bots, running until dropped.
pub struct Farm {
    /// Bots first: they are stopped before the server they talk to.
    bots: Vec<Option<Stopped>>,
    _server: Stopped,
    _postgres: Stopped,
    port: u16,
    dir: PathBuf,
}

impl Farm {
    /// A farm with `bots` bots whose files live in `dir`; `None` (with a note) when BuildGrid
    /// or PostgreSQL is not installed, unless `SLANGPACK_REQUIRE_BUILDGRID` is set.
    ///
    /// # Panics
    /// When a part does not start, or one is required and missing.
    #[must_use]
    pub fn start(dir: &Path, bots: usize) -> Option<Farm> {
        let bgd = crate::buildgrid::bgd()?;
        let Some(pg) = postgres_bin() else {
            assert!(
                std::env::var_os("SLANGPACK_REQUIRE_BUILDGRID").is_none(),
                "PostgreSQL is required for the build farm tests but is not installed"
            );
            eprintln!("PostgreSQL is not installed (cargo xtask test installs it); skipping");
            return None;
        };
        std::fs::create_dir_all(dir).unwrap();
        let user = postgres_user();
        let data = dir.join("pgdata");
        std::fs::create_dir_all(&data).unwrap();
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&data, Some(uid), Some(gid)).unwrap();
            // The postgres user must reach the data directory through its parents.
            let mut parent = dir.to_path_buf();
            loop {
                use std::os::unix::fs::PermissionsExt;
                if let Ok(meta) = std::fs::metadata(&parent) {
                    let mode = meta.permissions().mode();
                    if mode & 0o001 == 0 {
                        let _ = std::fs::set_permissions(
                            &parent,
                            std::fs::Permissions::from_mode(mode | 0o001),
                        );
                    }
                }
                if !parent.pop() {
                    break;
                }
            }
        }
        let pg_log = std::fs::File::create(dir.join("postgres.log")).unwrap();
        let status = as_user(&pg.join("initdb"), user)
            .args(["-A", "trust", "-U", "postgres", "-D"])
            .arg(&data)
            .stdout(pg_log.try_clone().unwrap())
            .stderr(pg_log.try_clone().unwrap())
            .status()
            .expect("running initdb");
        assert!(status.success(), "initdb failed: see {}", dir.display());
        let pg_port = free_port();
        let postgres = as_user(&pg.join("postgres"), user)
            .arg("-D")
            .arg(&data)
            .args([
                "-p",
                &pg_port.to_string(),
                "-c",
                "listen_addresses=127.0.0.1",
            ])
            .arg("-c")
            .arg(format!("unix_socket_directories={}", data.display()))
            .args(["-c", "fsync=off", "-c", "max_connections=200"])
            .stdin(Stdio::null())
            .stdout(pg_log.try_clone().unwrap())
            .stderr(pg_log)
            .spawn()
            .expect("starting postgres");
        let postgres = Stopped(postgres);
        assert!(
            wait_for_port(pg_port, Duration::from_secs(60)),
            "PostgreSQL did not start: {}",
            std::fs::read_to_string(dir.join("postgres.log")).unwrap_or_default()
        );
        // SQLAlchemy 2.1 takes psycopg 3 for a plain `postgresql://`; BuildGrid's notifiers call
        // psycopg2's `poll()`, so the driver is named.
        let database = format!("postgresql+psycopg2://postgres@127.0.0.1:{pg_port}/postgres");
        // Migrations may race the server's start-up: asked again for a few seconds.
        let mut migrated = false;
        for _ in 0..50 {
            let out = Command::new(&bgd)
                .args(["migrate", "apply", &database])
                .output()
                .expect("running bgd migrate");
            if out.status.success() {
                migrated = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        assert!(migrated, "bgd migrate apply failed");

        let port = free_port();
        let config = dir.join("farm.yml");
        std::fs::write(&config, farm_config(port, &database, &dir.join("cas"))).unwrap();
        let server = Stopped(crate::buildgrid::start_server(&bgd, &config, dir));
        assert!(
            wait_for_port(port, Duration::from_secs(60)),
            "BuildGrid did not start: {}",
            std::fs::read_to_string(dir.join("server.log")).unwrap_or_default()
        );
        let mut farm = Farm {
            bots: Vec::new(),
            _server: server,
            _postgres: postgres,
            port,
            dir: dir.to_path_buf(),
        };
        for i in 0..bots {
            let bot = farm.start_bot(i);
            farm.bots.push(Some(bot));
        }
        Some(farm)
    }

    fn start_bot(&self, i: usize) -> Stopped {
        let python = crate::buildgrid::bgd()
            .and_then(|bgd| bgd.parent().map(|bin| bin.join("python")))
            .expect("the venv's python");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("farm/bot.py");
        let work = self.dir.join(format!("bot-{i}"));
        std::fs::create_dir_all(&work).unwrap();
        let log = std::fs::File::create(work.join("bot.log")).unwrap();
        let child = Command::new(python)
            .arg(script)
            .arg(format!("127.0.0.1:{}", self.port))
            .arg("")
            .arg(format!("bot-{i}"))
            .arg(&work)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("starting a bot");
        Stopped(child)
    }

    /// The farm's `grpc://` URL.
    #[must_use]
    pub fn url(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }

    /// Kills bot `i` (SIGKILL, as a lost machine).
    pub fn kill_bot(&mut self, i: usize) {
        self.bots[i] = None;
    }

    /// How many leases (actions) the bots have taken so far.
    #[must_use]
    pub fn leases(&self) -> usize {
        (0..self.bots.len())
            .map(|i| {
                self.bot_log(i)
                    .lines()
                    .filter(|l| l.starts_with("lease "))
                    .count()
            })
            .sum()
    }

    /// What bot `i` wrote to its log.
    #[must_use]
    pub fn bot_log(&self, i: usize) -> String {
        std::fs::read_to_string(self.dir.join(format!("bot-{i}/bot.log"))).unwrap_or_default()
    }
}

/// BuildGrid's configuration: one instance with execution (bots and operations included),
/// CAS, ByteStream and the action cache, on disk-backed storage, its queue in PostgreSQL; a
/// bot silent for 5 s is taken for lost and its lease given to another. The job assigner
/// looks for queued actions every 20-40 ms (BuildGrid's default is 1-2 s, which a bake that
/// waits for each action before sending the next pays on every action). The server answers
/// 40 calls at once (its default is five per core, 10 here, and every bot's waiting
/// UpdateBotSession and every Execute stream holds one while the bake's cache calls run).
fn farm_config(port: u16, database: &str, cas: &Path) -> String {
    format!(
        "thread-pool-size: 40
server:
  - !channel
    address: \"127.0.0.1:{port}\"
    insecure-mode: true
connections:
  - !sql-connection &sql
    connection-string: {database}
    pool-size: 10
    pool-timeout: 30
    max-overflow: 20
storages:
  - !disk-storage &cas
    path: {cas}
caches:
  - !lru-action-cache &ac
    storage: *cas
    max-cached-refs: 100000
    allow-updates: true
schedulers:
  - !sql-scheduler &state
    sql: *sql
    action-cache: *ac
    storage: *cas
    bot-session-keepalive-timeout: 5
    session-expiry-timer-interval: 1
    assigners:
      - !priority-age-assigner
        interval: 0.02
        jitter-factor: 0.02
instances:
  - name: \"\"
    services:
      - !action-cache
        cache: *ac
      - !execution
        scheduler: *state
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
",
        cas = cas.display()
    )
}

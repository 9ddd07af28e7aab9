//! Compile jobs in worker processes, so that a compiler crash costs one permutation, not the
//! bake.
//!
//! Slang can abort, segfault or throw a C++ exception through its API on valid input, and
//! any of these takes the process that called it down. A bake therefore runs its compile jobs
//! (Slang session, compilation, reflection walk, the checks against the emitted code) in
//! worker processes, each with its own Slang global session kept for many jobs; the parent
//! plans, hands out jobs, collects results and assembles the package.
//!
//! **How a worker starts.** A worker is the running executable itself (`/proc/self/exe`),
//! started with [`WORKER_ENV`] set: a constructor in this crate (an `.init_array` entry) sees
//! the variable before the program's `main` runs and serves jobs instead, so the same
//! mechanism works for the `slangpack` CLI, a `build.rs` bake and a test binary alike, and no
//! other binary has to be installed. Linux only; elsewhere jobs run in process.
//!
//! **The protocol** is frames on the worker's stdin and stdout (`u8` kind, `u64` little-endian
//! length, payload): the parent sends a request (the job) as JSON; the worker answers with a JSON
//! response, followed for a baked entry by the entry as a one-entry package. The parent
//! opens that package with the reader, which checks it like any other input, so a worker's
//! output is data. The worker's own stdout is moved to stderr at start, so nothing Slang
//! prints can break a frame.
//!
//! **Failures.** A worker that exits without answering (a signal, an abort, an exception
//! through the API), exceeds [`Limits::timeout`] or its memory limit
//! ([`Limits::memory_mib`], `RLIMIT_AS`) fails exactly its job, with [`BakeError::Worker`]
//! naming the key, what happened and the end of what the worker wrote to stderr; it is
//! replaced and the bake goes on. Workers die with their parent (`PR_SET_PDEATHSIG`) and
//! with the end of their stdin.

use crate::compile::Compiler;
pub use crate::config::{workers_available as available, Limits};
use crate::error::BakeError;
use crate::plan::Job;
use slangpack_pack::assemble::BakedEntry;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Set (to `1`) in a worker's environment: the process serves compile jobs.
pub const WORKER_ENV: &str = "SLANGPACK_COMPILE_WORKER";
/// The worker's address-space limit in MiB, when there is one.
const MEMORY_ENV: &str = "SLANGPACK_COMPILE_WORKER_MEMORY_MIB";
/// Test-only fault injection: `KEY=abort|segfault|hang|alloc`, comma-separated, makes a worker
/// fail in that way on the job of permutation `KEY`, where no shader triggers a compiler crash
/// reliably. The way is after the last `=`, so a key may hold `=` (`perm?A=1&B=2=abort`).
pub const FAULT_ENV: &str = "SLANGPACK_WORKER_FAULT";

/// Frame kinds.
const FRAME_JSON: u8 = 1;
const FRAME_PACKAGE: u8 = 2;
/// No frame is larger: a request or one entry's code and reflection.
const MAX_FRAME: u64 = 1 << 32;
/// How much of a worker's stderr a failure report keeps (the end of it).
const STDERR_TAIL: usize = 8 * 1024;

/// Set in the environment of compile jobs run on a build farm (the `remote` module): the
/// process reads a batch of jobs (JSON) from the file it names (a path relative to the working
/// directory, whose paths are relative to it too), bakes its jobs in order with one Slang
/// global session, writes [`RESPONSE_FILE`] and, for each job that gives an entry,
/// [`entry_file`] of its index into the working directory, and exits.
pub const JOB_ENV: &str = "SLANGPACK_COMPILE_JOB";
/// The responses a batch run from a file writes: a JSON list, one per job in order.
pub const RESPONSE_FILE: &str = "response.json";

/// The one-entry package a batch run from a file writes for its job at `index`.
#[must_use]
pub fn entry_file(index: usize) -> String {
    format!("entry-{index}.slangpack")
}

/// The jobs of one action on a build farm, and the root their paths are relative to.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Batch {
    pub(crate) jobs: Vec<Job>,
    pub(crate) root: PathBuf,
    /// The most milliseconds one job may take: the process exits with
    /// [`BATCH_TIMEOUT_EXIT`] when one runs longer, so that a hang inside a batch is known
    /// after one job's limit, not the whole batch's.
    pub(crate) job_timeout_ms: u64,
}

/// The exit code of a batch whose job ran past its time limit (the job process keeps it).
pub const BATCH_TIMEOUT_EXIT: i32 = 124;

/// One job as the parent hands it to a worker.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Request {
    pub(crate) job: Job,
    pub(crate) root: PathBuf,
}

/// A worker's answer to one request.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) enum Response {
    /// A baked entry; the one-entry package follows in a frame of its own.
    Entry { warnings: String },
    /// A library module found by a directory scan: nothing to bake.
    Library,
    /// The job failed the way an in-process bake fails.
    Failed(WireError),
}

/// A [`BakeError`] as data.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct WireError {
    kind: String,
    key: String,
    phase: String,
    message: String,
    path: PathBuf,
}

/// Slang's phases by name, for errors that come back from a worker.
const PHASES: &[&str] = &[
    "session",
    "load",
    "entry point",
    "compose",
    "layout",
    "specialize",
    "conformance",
    "link",
    "codegen",
];

impl WireError {
    fn from_error(error: &BakeError) -> WireError {
        let mut wire = WireError {
            kind: String::new(),
            key: String::new(),
            phase: String::new(),
            message: error.to_string(),
            path: PathBuf::new(),
        };
        match error {
            BakeError::Compile {
                key,
                phase,
                diagnostics,
            } => {
                wire.kind = "compile".into();
                wire.key.clone_from(key);
                wire.phase = (*phase).into();
                wire.message.clone_from(diagnostics);
            }
            BakeError::Io { path, source } => {
                wire.kind = "io".into();
                wire.path.clone_from(path);
                wire.message = source.to_string();
            }
            BakeError::Input(_) => wire.kind = "input".into(),
            BakeError::Target {
                key,
                target,
                message,
            } => {
                wire.kind = "target".into();
                wire.key.clone_from(key);
                wire.phase = (*target).into();
                wire.message.clone_from(message);
            }
            BakeError::Worker { key, failure, .. } => {
                wire.kind = "worker".into();
                wire.key.clone_from(key);
                wire.message.clone_from(failure);
            }
            _ => wire.kind = "other".into(),
        }
        wire
    }

    pub(crate) fn into_error(self) -> BakeError {
        match self.kind.as_str() {
            "compile" => BakeError::Compile {
                key: self.key,
                phase: PHASES
                    .iter()
                    .find(|p| **p == self.phase)
                    .copied()
                    .unwrap_or("compile"),
                diagnostics: self.message,
            },
            "io" => BakeError::Io {
                path: self.path,
                source: std::io::Error::other(self.message),
            },
            "input" => BakeError::Input(self.message),
            "target" => BakeError::Target {
                key: self.key,
                target: slangpack_format::Target::from_name(&self.phase)
                    .map_or("unknown", |t| t.name()),
                message: self.message,
            },
            "worker" => BakeError::Worker {
                key: self.key,
                failure: self.message,
                diagnostics: String::new(),
            },
            _ => BakeError::Slang(self.message),
        }
    }
}

fn write_frame(out: &mut impl Write, kind: u8, payload: &[u8]) -> std::io::Result<()> {
    out.write_all(&[kind])?;
    out.write_all(&(payload.len() as u64).to_le_bytes())?;
    out.write_all(payload)?;
    out.flush()
}

/// Reads one frame; `Ok(None)` at a clean end of the stream.
fn read_frame(input: &mut impl Read) -> std::io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 9];
    match input.read_exact(&mut head[..1]) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    input.read_exact(&mut head[1..])?;
    let len = u64::from_le_bytes(head[1..].try_into().unwrap_or_default());
    if len > MAX_FRAME {
        return Err(std::io::Error::other(format!(
            "a frame of {len} bytes, more than the {MAX_FRAME} a worker may send"
        )));
    }
    let mut payload = Vec::new();
    input.take(len).read_to_end(&mut payload)?;
    if payload.len() as u64 != len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Some((head[0], payload)))
}

// ---- the worker side ----

/// The constructor that turns a process started with [`WORKER_ENV`] into a worker before its
/// `main` runs.
#[cfg(target_os = "linux")]
#[allow(
    unsafe_code,
    reason = "a constructor must be placed in `.init_array`; the function it names is safe Rust"
)]
#[used]
#[link_section = ".init_array"]
static WORKER_CONSTRUCTOR: extern "C" fn() = worker_constructor;

#[cfg(target_os = "linux")]
extern "C" fn worker_constructor() {
    if let Some(file) = std::env::var_os(JOB_ENV) {
        std::env::remove_var(JOB_ENV);
        let code = std::panic::catch_unwind(|| serve_file(Path::new(&file))).unwrap_or(101);
        std::process::exit(code);
    }
    if std::env::var_os(WORKER_ENV).is_none() {
        return;
    }
    std::env::remove_var(WORKER_ENV);
    let code = std::panic::catch_unwind(serve).unwrap_or(101);
    std::process::exit(code);
}

/// Keeps the worker constructor in the link of any program that starts workers or hands
/// jobs to a farm (which runs this same program as the job).
pub(crate) fn keep_constructor() {
    #[cfg(target_os = "linux")]
    std::hint::black_box(&WORKER_CONSTRUCTOR);
}

/// Serves jobs from stdin until it closes; the exit code.
#[cfg(target_os = "linux")]
fn serve() -> i32 {
    crate::compile::SERVING.store(true, std::sync::atomic::Ordering::Relaxed);
    let memory = std::env::var(MEMORY_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let Some(mut protocol) = slangpack_slang::process::become_worker(memory) else {
        return 102;
    };
    let fault = std::env::var(FAULT_ENV).ok();
    let mut stdin = std::io::stdin().lock();
    let mut compiler: Option<Result<Compiler, BakeError>> = None;
    loop {
        let request = match read_frame(&mut stdin) {
            Ok(Some((FRAME_JSON, payload))) => payload,
            Ok(None) => return 0,
            _ => return 103,
        };
        let Ok(request) = serde_json::from_slice::<Request>(&request) else {
            return 104;
        };
        let result = run_request(&mut compiler, &request, fault.as_deref());
        if answer(&mut protocol, result).is_err() {
            return 105;
        }
    }
}

/// Bakes `request` on `compiler` (started at the first request), failing first where `fault`
/// (see [`FAULT_ENV`]) names its key.
#[cfg(target_os = "linux")]
fn run_request(
    compiler: &mut Option<Result<Compiler, BakeError>>,
    request: &Request,
    fault: Option<&str>,
) -> Result<Option<BakedEntry>, BakeError> {
    for (key, how) in fault
        .iter()
        .flat_map(|f| f.split(','))
        .filter_map(|f| f.rsplit_once('='))
    {
        if key == request.job.key {
            inject(how);
        }
    }
    let compiler = compiler.get_or_insert_with(Compiler::new);
    match compiler {
        Ok(compiler) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::entry::bake_job(compiler, &request.job, &request.root)
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("no message");
            Err(BakeError::Slang(format!(
                "{}: the writer panicked: {what}",
                request.job.key
            )))
        }),
        Err(e) => Err(BakeError::Slang(e.to_string())),
    }
}

/// Serves the jobs of the batch file `file` (see [`JOB_ENV`]); the exit code.
#[cfg(target_os = "linux")]
fn serve_file(file: &Path) -> i32 {
    crate::compile::SERVING.store(true, std::sync::atomic::Ordering::Relaxed);
    let Ok(text) = std::fs::read(file) else {
        return 103;
    };
    let Ok(batch) = serde_json::from_slice::<Batch>(&text) else {
        return 104;
    };
    // The batch's paths are relative to the working directory: made whole here, so that
    // dependencies are recorded relative to the root as in any bake.
    let Ok(here) = std::env::current_dir() else {
        return 103;
    };
    let Ok(root) = here.join(&batch.root).canonicalize() else {
        return 103;
    };
    let fault = std::env::var(FAULT_ENV).ok();
    let mut compiler = None;
    let current = watchdog(
        Duration::from_millis(batch.job_timeout_ms),
        here.join(RESPONSE_FILE),
        batch.jobs.len(),
    );
    for (index, mut job) in batch.jobs.into_iter().enumerate() {
        if let Ok(mut current) = current.lock() {
            current.key.clone_from(&job.key);
            current.started = Instant::now();
        }
        job.source = root.join(&*job.relative).into();
        let mut program = crate::compile::CompileOptions::clone(&job.program);
        for dir in &mut program.include_dirs {
            *dir = here.join(&*dir);
        }
        job.program = std::sync::Arc::new(program);
        let request = Request {
            job,
            root: root.clone(),
        };
        // Each entry is written as the cache stores it: the bake checks those bytes and
        // puts them in the cache as they are, so the farm, not the bake, compresses them.
        let result = run_request(&mut compiler, &request, fault.as_deref());
        let (response, package) = respond(result, crate::cache::cache_entry);
        if let Some(bytes) = package {
            if std::fs::write(here.join(entry_file(index)), bytes).is_err() {
                return 105;
            }
        }
        match current.lock() {
            Ok(mut current) => current.responses.push(response),
            Err(_) => return 105,
        }
    }
    let responses = match current.lock() {
        Ok(mut current) => std::mem::take(&mut current.responses),
        Err(_) => return 105,
    };
    let code = match std::fs::write(here.join(RESPONSE_FILE), json(&responses)) {
        Ok(()) => 0,
        Err(_) => 105,
    };
    // The process ends next: tearing the Slang global session down first would only make
    // the farm wait longer for the action's end (tens of milliseconds).
    std::mem::forget(compiler);
    code
}

/// What a batch's job process has done so far, shared with its [`watchdog`]: the job running
/// (its key and when it started) and the responses of the jobs before it.
struct Progress {
    key: String,
    started: Instant,
    responses: Vec<Response>,
}

/// Starts a thread that ends this process with [`BATCH_TIMEOUT_EXIT`] when the job named in
/// the returned cell runs longer than `limit`, after writing to `response` the responses of
/// the jobs before it and a [`BakeError::Worker`] for it: the bake keeps what was done, fails
/// that job alone and sends the ones after it again, one timeout in all.
#[cfg(target_os = "linux")]
fn watchdog(limit: Duration, response: PathBuf, jobs: usize) -> Arc<Mutex<Progress>> {
    let current = Arc::new(Mutex::new(Progress {
        key: String::new(),
        started: Instant::now(),
        responses: Vec::with_capacity(jobs),
    }));
    let watched = Arc::clone(&current);
    std::thread::spawn(move || loop {
        std::thread::sleep(limit.min(Duration::from_millis(500)));
        let Ok(mut progress) = watched.lock() else {
            continue;
        };
        if progress.started.elapsed() <= limit {
            continue;
        }
        let failure = format!(
            "ran past its time limit of {} s and was stopped",
            limit.as_secs_f64()
        );
        eprintln!("{}: {failure}", progress.key);
        let key = progress.key.clone();
        let error = BakeError::Worker {
            key,
            failure,
            diagnostics: String::new(),
        };
        progress
            .responses
            .push(Response::Failed(WireError::from_error(&error)));
        // Held while the process ends: no job's response is added after this one.
        let _ = std::fs::write(&response, json(&progress.responses));
        std::process::exit(BATCH_TIMEOUT_EXIT);
    });
    current
}

/// How an entry crosses to the bake: its one-entry package.
type Packed = fn(&BakedEntry) -> Result<Vec<u8>, slangpack_pack::PackError>;

/// The one-entry package of `entry`, stored raw.
fn raw_package(entry: &BakedEntry) -> Result<Vec<u8>, slangpack_pack::PackError> {
    slangpack_pack::assemble::assemble(std::slice::from_ref(entry), false)
}

/// A job's result as a response, and for an entry the one-entry package that follows it,
/// made by `package`.
fn respond(
    result: Result<Option<BakedEntry>, BakeError>,
    package: Packed,
) -> (Response, Option<Vec<u8>>) {
    match result {
        Ok(Some(entry)) => match package(&entry) {
            Ok(bytes) => (
                Response::Entry {
                    warnings: entry.warnings,
                },
                Some(bytes),
            ),
            Err(e) => respond(Err(e.into()), package),
        },
        Ok(None) => (Response::Library, None),
        Err(e) => (Response::Failed(WireError::from_error(&e)), None),
    }
}

fn answer(
    out: &mut impl Write,
    result: Result<Option<BakedEntry>, BakeError>,
) -> Result<(), BakeError> {
    let io = |e: std::io::Error| BakeError::Slang(format!("writing to the parent: {e}"));
    // Raw: the bake's lane makes the cache's copy itself, beside the other lanes.
    let (head, package) = respond(result, raw_package);
    write_frame(out, FRAME_JSON, &json(&head)).map_err(io)?;
    match package {
        Some(bytes) => write_frame(out, FRAME_PACKAGE, &bytes).map_err(io),
        None => Ok(()),
    }
}

pub(crate) fn json(value: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// Fails the way `how` says (test-only: see [`FAULT_ENV`]).
#[cfg(target_os = "linux")]
fn inject(how: &str) {
    match how {
        "abort" => std::process::abort(),
        "segfault" => slangpack_slang::process::raise_segfault(),
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
        "alloc" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 64 << 20]);
            }
        }
        _ => {}
    }
}

// ---- the parent side ----

/// Whether workers outlive the bake that started them ([`keep_workers_warm`]).
static KEEP_WARM: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Idle workers kept for this process's next bake, with the limits they were started with.
static IDLE: Mutex<Vec<(Limits, Worker)>> = Mutex::new(Vec::new());

/// Keeps compile workers (and their Slang global sessions) alive between the bakes of this
/// process, so that a rebake starts no process and no global session (watch mode turns this
/// on); `false` ends the idle ones. A kept worker still serves one job at a time and is
/// replaced when it fails, as in any bake.
pub fn keep_workers_warm(keep: bool) {
    KEEP_WARM.store(keep, std::sync::atomic::Ordering::Relaxed);
    if !keep {
        let idle = IDLE.lock().map(|mut idle| std::mem::take(&mut *idle));
        drop(idle);
    }
}

/// Starts `command`; while workers are kept warm, from one thread that lives as long as the
/// process: a worker dies with the thread that started it (`PR_SET_PDEATHSIG` follows the
/// parent thread), and a bake's threads end with the bake.
fn spawn(mut command: Command) -> std::io::Result<Child> {
    type Spawn = (Command, mpsc::Sender<std::io::Result<Child>>);
    static SPAWNER: std::sync::OnceLock<Mutex<mpsc::Sender<Spawn>>> = std::sync::OnceLock::new();
    if !KEEP_WARM.load(std::sync::atomic::Ordering::Relaxed) {
        return command.spawn();
    }
    let spawner = SPAWNER.get_or_init(|| {
        let (send, requests) = mpsc::channel::<Spawn>();
        std::thread::spawn(move || {
            for (mut command, reply) in requests {
                let _ = reply.send(command.spawn());
            }
        });
        Mutex::new(send)
    });
    let (reply, answer) = mpsc::channel();
    let sent = spawner
        .lock()
        .map_err(|_| std::io::Error::other("the worker spawner is poisoned"))?
        .send((command, reply));
    match sent {
        Ok(()) => answer
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the worker spawner stopped"))),
        Err(mpsc::SendError((mut command, _))) => command.spawn(),
    }
}

/// An idle worker started with `limits` that is still running, if one is kept.
fn idle_worker(limits: Limits) -> Option<Worker> {
    let mut idle = IDLE.lock().ok()?;
    while let Some(at) = idle.iter().position(|(l, _)| *l == limits) {
        let (_, mut worker) = idle.swap_remove(at);
        if matches!(worker.child.try_wait(), Ok(None)) {
            return Some(worker);
        }
    }
    None
}

/// Keeps `worker` for the next bake when workers are kept warm (else it ends here).
fn keep_idle(limits: Limits, worker: Option<Worker>) {
    if let Some(worker) = worker {
        if KEEP_WARM.load(std::sync::atomic::Ordering::Relaxed) {
            if let Ok(mut idle) = IDLE.lock() {
                idle.push((limits, worker));
            }
        }
    }
}

/// A running worker: the child, its stdin, the frames it sends and the end of its stderr.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    frames: Receiver<std::io::Result<(u8, Vec<u8>)>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The thread that keeps the end of stderr, until [`Worker::stderr_tail`] joins it.
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Worker {
    fn spawn(limits: Limits) -> Result<Worker, BakeError> {
        // Keep the constructor in the link wherever workers are started.
        #[cfg(target_os = "linux")]
        std::hint::black_box(&WORKER_CONSTRUCTOR);
        let exe = std::env::current_exe()
            .map_err(|e| BakeError::Slang(format!("cannot start a compile worker: {e}")))?;
        let mut command = Command::new(&exe);
        command
            .env(WORKER_ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match limits.memory_mib {
            Some(mib) => command.env(MEMORY_ENV, mib.to_string()),
            None => command.env_remove(MEMORY_ENV),
        };
        let mut child = spawn(command).map_err(|e| {
            BakeError::Slang(format!(
                "cannot start a compile worker ({}): {e}",
                exe.display()
            ))
        })?;
        let (Some(stdin), Some(mut stdout), Some(mut stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(BakeError::Slang("a compile worker has no pipes".into()));
        };
        let (send, frames) = mpsc::channel();
        std::thread::spawn(move || loop {
            match read_frame(&mut stdout) {
                Ok(Some(frame)) => {
                    if send.send(Ok(frame)).is_err() {
                        return;
                    }
                }
                Ok(None) => {
                    let _ = send.send(Err(std::io::ErrorKind::UnexpectedEof.into()));
                    return;
                }
                Err(e) => {
                    let _ = send.send(Err(e));
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        let stderr_reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = stderr_pipe.read(&mut chunk) {
                if let Ok(mut tail) = tail.lock() {
                    tail.extend_from_slice(&chunk[..n]);
                    let excess = tail.len().saturating_sub(STDERR_TAIL);
                    tail.drain(..excess);
                }
            }
        });
        Ok(Worker {
            child,
            stdin,
            frames,
            stderr,
            stderr_reader: Some(stderr_reader),
        })
    }

    /// Runs one job; `Err` with the worker's failure when it could not answer (the worker is
    /// then gone).
    fn run(
        &mut self,
        request: &Request,
        limits: Limits,
    ) -> Result<Result<Option<BakedEntry>, BakeError>, String> {
        if let Ok(mut tail) = self.stderr.lock() {
            tail.clear();
        }
        let deadline = Instant::now() + limits.timeout;
        write_frame(&mut self.stdin, FRAME_JSON, &json(request)).map_err(|_| self.died(limits))?;
        let head = self.frame(deadline, limits)?;
        let response: Response = match head {
            (FRAME_JSON, payload) => serde_json::from_slice(&payload)
                .map_err(|e| format!("sent an answer that is not one ({e})"))?,
            (kind, _) => return Err(format!("sent a frame of kind {kind} out of turn")),
        };
        Ok(match response {
            Response::Library => Ok(None),
            Response::Failed(wire) => Err(wire.into_error()),
            Response::Entry { warnings } => {
                let (kind, package) = self.frame(deadline, limits)?;
                if kind != FRAME_PACKAGE {
                    return Err(format!("sent a frame of kind {kind} for a package"));
                }
                entry_of(&package, &request.job.key, warnings)
            }
        })
    }

    fn frame(&mut self, deadline: Instant, limits: Limits) -> Result<(u8, Vec<u8>), String> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.frames.recv_timeout(wait) {
            Ok(Ok(frame)) => Ok(frame),
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => Err(self.died(limits)),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                Err(format!(
                    "ran past its time limit of {} s and was stopped",
                    limits.timeout.as_secs_f64()
                ))
            }
        }
    }

    /// What became of a worker that stopped answering.
    fn died(&mut self, limits: Limits) -> String {
        let status = self.child.wait();
        let memory = limits.memory_mib.map_or(String::new(), |mib| {
            format!(" (its memory limit is {mib} MiB)")
        });
        match status {
            Ok(status) => match exit_signal(&status) {
                Some(signal) => format!(
                    "was killed by signal {signal} ({}){memory}",
                    signal_name(signal)
                ),
                None => format!("exited with {status} without answering{memory}"),
            },
            Err(e) => format!("stopped answering ({e})"),
        }
    }

    /// The end of what the worker wrote to stderr, once it failed (it is stopped here if it
    /// still runs: a failed worker is not used again). The reader thread is joined first
    /// (the pipe ends with the worker), so that its last words, written just before a crash,
    /// are not lost to a race with that thread.
    fn stderr_tail(&mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
        self.stderr
            .lock()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing stdin ends a worker that waits for a job; one still compiling is stopped.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The signal that ended a process, if one did.
fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        std::os::unix::process::ExitStatusExt::signal(status)
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// The usual name of a signal that ends a crashing process.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

/// The entry of a worker's one-entry package, checked by the reader like any input.
pub(crate) fn entry_of(
    package: &[u8],
    key: &str,
    warnings: String,
) -> Result<Option<BakedEntry>, BakeError> {
    let bad = |e: &dyn std::fmt::Display| {
        BakeError::Slang(format!(
            "{key}: a compile worker sent a package that does not open: {e}"
        ))
    };
    let package = slangpack_reader::Package::from_bytes(package).map_err(|e| bad(&e))?;
    if package.len() != 1 {
        return Err(bad(&format!("{} entries, not one", package.len())));
    }
    let entry = package.load(key).map_err(|e| bad(&e))?;
    let mut baked = slangpack_pack::merge::baked_entry(&entry).map_err(|e| bad(&e))?;
    baked.warnings = warnings;
    Ok(Some(baked))
}

/// Jobs run in worker processes ([`crate::execute::Executor`]): each lane is one worker,
/// started at its first job (or taken from those kept warm), replaced when it fails, and kept
/// for the next bake when workers are kept warm.
#[derive(Debug)]
pub struct Workers {
    /// The bake root (dependency paths are recorded relative to it).
    pub root: PathBuf,
    /// The limits of each job.
    pub limits: Limits,
}

impl crate::execute::Executor for Workers {
    fn lane(&self) -> Box<dyn crate::execute::Lane + '_> {
        Box::new(WorkerLane {
            workers: self,
            worker: idle_worker(self.limits),
        })
    }
}

/// One worker process of [`Workers`].
struct WorkerLane<'a> {
    workers: &'a Workers,
    worker: Option<Worker>,
}

impl Drop for WorkerLane<'_> {
    fn drop(&mut self) {
        keep_idle(self.workers.limits, self.worker.take());
    }
}

impl crate::execute::Lane for WorkerLane<'_> {
    fn run(&mut self, job: &Job) -> crate::execute::JobResult {
        let limits = self.workers.limits;
        let running = match &mut self.worker {
            Some(w) => w,
            None => self.worker.insert(Worker::spawn(limits)?),
        };
        let request = Request {
            job: job.clone(),
            root: self.workers.root.clone(),
        };
        match running.run(&request, limits) {
            Ok(result) => result,
            Err(failure) => {
                let diagnostics = running.stderr_tail();
                self.worker = None;
                Err(BakeError::Worker {
                    key: job.key.clone(),
                    failure,
                    diagnostics,
                })
            }
        }
    }
}

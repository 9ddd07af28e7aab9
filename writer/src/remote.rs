//! Compile jobs on a build farm through the Remote Execution API (`--remote-executor
//! grpc[s]://HOST:PORT`): a batch of permutations' compiles is an `Action` sent through
//! `Execution.Execute`, and its result comes back as an `ActionResult` whose outputs, read from
//! the farm's CAS, are checked one by one like cache hits before they become entries.
//!
//! **Batches.** A process and a Slang global session cost more than compiling one
//! permutation, so one action compiles several consecutive permutations with one session
//! (`--remote-batch N`; by default the permutations over the actions in flight, at most
//! 256: a session per action costs more than a worker left idle at the end, see
//! `BATCH_SPREAD`). Each permutation of a batch still has an entry file and a response of its own, is
//! checked on its own, and lands in the cache on its own (the cache's action digests are per
//! permutation, whatever the batch): a second bake, batched in any way, finds them all.
//!
//! **The input root** of every action is the same but for one file:
//!
//! ```text
//! src/...            the bake root's shader sources (.slang, .slangh, .hlsl, .hlsli, .h, .glsl)
//! tool/<exe>         this executable: the compile job of this same build
//! tool/lib/libslang* the Slang libraries it was built against (LD_LIBRARY_PATH=tool/lib)
//! job.json           the batch: keys, options, main modules (paths relative to the root)
//! ```
//!
//! The toolchain travels in the input root, so that a farm nobody prepared runs the job; it
//! and the sources are put in the CAS once, by digest (a second bake sends none of it), by the
//! first lane to get ready ([`Lane::warm`]: as soon as the bake knows a job is coming, while
//! it still looks later jobs up in the cache). The command is the executable with [`crate::worker::JOB_ENV`] naming `job.json`: the worker
//! entry bakes the jobs in order and writes each entry as a one-entry package
//! ([`crate::worker::entry_file`]) and the list of responses.
//!
//! **Failures** cost one permutation: a compile error is its permutation's. A permutation
//! past its time limit ([`crate::worker::Limits::timeout`], kept by the job process itself)
//! is its own too: the process writes the responses before it and that permutation's
//! [`BakeError::Worker`], then ends, and the permutations after it go again as one action
//! (one timeout in all). A non-zero exit, the action's `timeout` (for the whole batch, at
//! most an hour), a lost worker or an error the farm reports for the action fails the action
//! as a whole: a batch is then sent again one permutation per action, and each such failure
//! is [`BakeError::Worker`] for its key. A farm that cannot be reached or refuses
//! (unavailable, execution not enabled) makes the rest of the bake compile locally with one
//! warning when fallback is on (the default), and fails each permutation when it is off.

pub use crate::config::RemoteSettings;
use crate::error::BakeError;
use crate::execute::{Executor, Finished, JobResult, Lane};
use crate::plan::Job;
use crate::worker::{
    entry_file, Batch, Limits, Response, BATCH_TIMEOUT_EXIT, FAULT_ENV, JOB_ENV, RESPONSE_FILE,
};
use slangpack_cache::execution::{ExecError, Upload};
use slangpack_cache::grpc::GrpcStore;
use slangpack_cache::reapi::{
    command, platform, Action, ActionResult, Command, Digest, Directory, DirectoryNode, FileNode,
    Platform,
};
use slangpack_cache::{action, digest_of, encoded};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

mod root;
use root::{directory_tree, source_files, toolchain};

/// How much longer than the action's own timeout the bake waits for the farm's answer (the
/// farm's queue, and fetching the input root).
const QUEUE_GRACE: Duration = Duration::from_secs(120);

/// How many actions each lane has to run in all when the batch size is chosen
/// ([`batch_size`]). More spreads the work better over workers of unequal speed; each costs a
/// process and a Slang global session on the worker. One: 100 permutations through BuildGrid
/// with two bots take 1.2-1.9x a local bake in two actions of 50, 1.9x in four of 25 and 4x in
/// eight of 13, 20x one permutation per action (the `bake/farm_cold_100_2_bots` bench row).
const BATCH_SPREAD: usize = 1;

/// The longest timeout a batch's action asks for (unless one job's limit is longer):
/// schedulers refuse actions past their own maximum (BuildGrid's default is two hours).
const MAX_ACTION_TIMEOUT: Duration = Duration::from_secs(3600);

/// How many entries of a batch are read back from the farm's CAS together.
const READ_CHUNK: usize = 32;

/// The most jobs one action holds.
const MAX_BATCH: usize = 256;

/// How much of an action's stderr a failure keeps (the end of it).
const STDERR_TAIL: usize = 8 * 1024;

/// A blob of the input root, and where its bytes are when the farm lacks it.
enum Blob {
    File(PathBuf),
    Bytes(Vec<u8>),
}

/// What every action shares: the `src` and `tool` directories, by digest.
struct Prepared {
    src: Digest,
    /// The `tool` directory; `None` when the farm's workers hold the toolchain (named by
    /// platform property).
    tool: Option<Digest>,
    /// The executable: its path in the input root, or [`NAMED_PROGRAM`].
    program: String,
}

/// The program a farm that provisions its own workers (`--remote-platform`) runs: the
/// `slangpack` command on the worker's `PATH`, of the same build (an entry from another build
/// is refused: its options hash differs).
const NAMED_PROGRAM: &str = "slangpack";

/// A build farm as an [`Executor`].
pub struct Remote {
    settings: RemoteSettings,
    root: PathBuf,
    limits: Limits,
    /// Where jobs run when the farm is out of reach (fallback).
    local: Box<dyn Executor>,
    prepared: OnceLock<Result<Prepared, String>>,
    /// Set once the farm is found out of reach or refusing: the rest runs locally.
    down: AtomicBool,
    warnings: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("url", &self.settings.url)
            .field("root", &self.root)
            .finish()
    }
}

impl Remote {
    /// The farm `settings` names, for a bake rooted at `root` whose jobs have `limits`;
    /// `local` runs them when the farm is out of reach and fallback is on.
    #[must_use]
    pub fn new(
        settings: RemoteSettings,
        root: &Path,
        limits: Limits,
        local: Box<dyn Executor>,
    ) -> Remote {
        crate::worker::keep_constructor();
        Remote {
            settings,
            root: root.to_path_buf(),
            limits,
            local,
            prepared: OnceLock::new(),
            down: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// Notes that the farm is out of reach: one warning when falling back.
    fn farm_down(&self, why: &str) {
        if !self.down.swap(true, Ordering::SeqCst) && self.settings.fallback {
            if let Ok(mut warnings) = self.warnings.lock() {
                let why = match why.contains(&self.settings.url) {
                    true => why.to_string(),
                    false => format!("{}: {why}", self.settings.url),
                };
                warnings.push(format!("remote executor: {why}; compiling locally"));
            }
        }
    }

    /// The failure of `job` when the farm is out of reach and there is no fallback.
    fn unreachable(&self, job: &Job, why: &str) -> BakeError {
        BakeError::Worker {
            key: job.key.clone(),
            failure: format!("the build farm {} cannot run it: {why}", self.settings.url),
            diagnostics: String::new(),
        }
    }

    /// Puts the sources and the toolchain in the farm's CAS (once per bake; only what it
    /// lacks is sent).
    fn prepare(&self, store: &mut GrpcStore) -> Result<Prepared, String> {
        let mut blobs: HashMap<String, Blob> = HashMap::new();
        let mut digests = Vec::new();
        let sources = source_files(&self.root)?;
        let mut files = Vec::with_capacity(sources.len());
        for (relative, path, digest) in sources {
            files.push((relative, digest.clone()));
            digests.push(digest.clone());
            blobs.insert(digest.hash, Blob::File(path));
        }
        let (src, mut directories) = directory_tree(&files, &[])?;
        let named = !self.settings.platform.is_empty();
        let tools = if named { Vec::new() } else { toolchain()? };
        let mut files = Vec::with_capacity(tools.len());
        let mut executables = Vec::new();
        for tool in tools {
            files.push((tool.name.clone(), tool.digest.clone()));
            if tool.executable {
                executables.push(tool.name.clone());
            }
            digests.push(tool.digest.clone());
            blobs.insert(tool.digest.hash, Blob::File(tool.path));
        }
        let tool = match named {
            true => None,
            false => {
                let (tool, more) = directory_tree(&files, &executables)?;
                directories.extend(more);
                Some(tool)
            }
        };
        for (digest, bytes) in directories {
            digests.push(digest.clone());
            blobs.insert(digest.hash, Blob::Bytes(bytes));
        }
        digests.sort_by(|a, b| a.hash.cmp(&b.hash));
        digests.dedup_by(|a, b| a.hash == b.hash);
        store.upload_missing(&digests, &mut |digest| match blobs.get(&digest.hash) {
            Some(Blob::Bytes(bytes)) => Ok(Upload::Bytes(bytes.clone())),
            Some(Blob::File(path)) => Ok(Upload::File(path.clone())),
            None => Err(format!("blob {} is not one of this bake's", digest.hash)),
        })?;
        let program = match named {
            true => NAMED_PROGRAM.to_string(),
            false => executables
                .first()
                .map(|name| format!("tool/{name}"))
                .ok_or("no executable to run")?,
        };
        Ok(Prepared { src, tool, program })
    }

    /// `jobs` as one action on the prepared input root, uploaded; its digest and its
    /// timeout (each job's, once per job).
    fn describe(
        &self,
        store: &mut GrpcStore,
        prepared: &Prepared,
        jobs: &[&Job],
    ) -> Result<(Digest, Duration), String> {
        let batch = Batch {
            jobs: jobs.iter().map(|job| remote_job(job, &self.root)).collect(),
            root: PathBuf::from("src"),
            job_timeout_ms: u64::try_from(self.limits.timeout.as_millis()).unwrap_or(u64::MAX),
        };
        let job_json = crate::worker::json(&batch);
        let job_digest = digest_of(&job_json);
        let platform = &self.settings.platform;
        let (input_root, command, platform) =
            action_parts(prepared, &job_digest, jobs.len(), platform);
        let (root_digest, root_bytes) = encoded(&input_root);
        let (command_digest, command_bytes) = encoded(&command);
        // The job process stops itself when one job runs past its limit; the action's
        // timeout covers all of them, within what farms commonly allow.
        let count = u32::try_from(jobs.len()).unwrap_or(u32::MAX);
        let timeout = (self.limits.timeout.saturating_mul(count))
            .min(MAX_ACTION_TIMEOUT.max(self.limits.timeout));
        let action = Action {
            command_digest: Some(command_digest.clone()),
            input_root_digest: Some(root_digest.clone()),
            timeout: Some(slangpack_cache::reapi_duration(timeout)),
            platform,
            ..Default::default()
        };
        let (action_digest, action_bytes) = encoded(&action);
        let blobs = [
            (job_digest, job_json),
            (root_digest, root_bytes),
            (command_digest, command_bytes),
            (action_digest.clone(), action_bytes),
        ];
        let digests: Vec<Digest> = blobs.iter().map(|(d, _)| d.clone()).collect();
        store.upload_missing(&digests, &mut |digest| {
            blobs
                .iter()
                .find(|(d, _)| d.hash == digest.hash)
                .map(|(_, bytes)| Upload::Bytes(bytes.clone()))
                .ok_or_else(|| format!("blob {} is not this action's", digest.hash))
        })?;
        Ok((action_digest, timeout))
    }

    /// What the farm's `result` for `jobs` gives, each entry checked like a cache hit; `Err`
    /// with what went wrong (and the end of the action's stderr) when the action failed as a
    /// whole (no job's result is known). After a job that ran past its time limit, the result
    /// holds the jobs up to that one (its failure last), not the ones after it.
    fn outcomes(
        &self,
        store: &mut GrpcStore,
        jobs: &[&Job],
        result: &ActionResult,
    ) -> Result<Vec<Finished>, (String, String)> {
        // A job past its time limit ends the process after writing the responses of the
        // jobs before it and its own failure: those are kept, and the jobs after it are sent
        // again ([`RemoteLane::run_batch`]).
        let timed_out = result.exit_code == BATCH_TIMEOUT_EXIT;
        let exited = |store: &mut GrpcStore| {
            (
                format!("exited with code {} on the build farm", result.exit_code),
                stderr_of(store, result),
            )
        };
        if result.exit_code != 0 && !timed_out {
            return Err(exited(store));
        }
        let output = |name: &str| {
            result
                .output_files
                .iter()
                .find(|f| f.path == name)
                .and_then(|f| f.digest.clone())
        };
        let Some(response) = output(RESPONSE_FILE) else {
            if timed_out {
                return Err(exited(store));
            }
            return Err((
                "the action wrote no response".into(),
                stderr_of(store, result),
            ));
        };
        let responses: Vec<Response> = match slangpack_cache::Store::read_blob(store, &response) {
            Ok(Some(bytes)) => serde_json::from_slice(&bytes).map_err(|e| e.to_string()),
            Ok(None) => Err(format!("the farm's CAS lacks it ({})", response.hash)),
            Err(why) => Err(why),
        }
        .map_err(|e| (format!("its response does not read: {e}"), String::new()))?;
        let partial = timed_out
            && (1..=jobs.len()).contains(&responses.len())
            && matches!(responses.last(), Some(Response::Failed(_)));
        if timed_out && !partial {
            return Err(exited(store));
        }
        if !partial && responses.len() != jobs.len() {
            return Err((
                format!(
                    "it answered {} jobs of the {} it was sent",
                    responses.len(),
                    jobs.len()
                ),
                String::new(),
            ));
        }
        let jobs = &jobs[..responses.len()];
        let mut out = Vec::with_capacity(jobs.len());
        let mut responses = responses.into_iter();
        // The entries are read a chunk at a time, each chunk in as few calls as the farm's
        // batch limit allows: few round trips, and a bounded share of the batch in memory.
        for (chunk, jobs) in jobs.chunks(READ_CHUNK).enumerate() {
            let digests: Vec<Digest> = (0..jobs.len())
                .filter_map(|i| output(&entry_file(chunk * READ_CHUNK + i)))
                .collect();
            let read = slangpack_cache::Store::read_blobs(store, &digests);
            let mut blobs: HashMap<String, Vec<u8>> = match read {
                Ok(found) => found.into_iter().map(|(d, b)| (d.hash, b)).collect(),
                Err(why) => return Err((format!("its outputs do not read: {why}"), String::new())),
            };
            for (i, (job, response)) in jobs.iter().zip(responses.by_ref()).enumerate() {
                let failed = |failure: String| BakeError::Worker {
                    key: job.key.clone(),
                    failure,
                    diagnostics: String::new(),
                };
                out.push(match response {
                    Response::Library => Ok(None).into(),
                    Response::Failed(wire) => Err(wire.into_error()).into(),
                    Response::Entry { warnings } => {
                        match output(&entry_file(chunk * READ_CHUNK + i)) {
                            None => Err(failed("the action wrote no entry".into())).into(),
                            Some(entry) => match blobs.remove(&entry.hash) {
                                None => Err(failed(format!(
                                    "the farm's CAS lacks output blob {}",
                                    entry.hash
                                )))
                                .into(),
                                Some(bytes) => checked_entry(bytes, job, &self.root, warnings),
                            },
                        }
                    }
                });
            }
        }
        Ok(out)
    }
}

impl Executor for Remote {
    fn lane(&self) -> Box<dyn Lane + '_> {
        Box::new(RemoteLane {
            remote: self,
            store: None,
            unready: None,
            local: None,
        })
    }

    fn batch(&self, total: usize, lanes: usize) -> usize {
        batch_size(self.settings.batch, total, lanes)
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.lock().map(|w| w.clone()).unwrap_or_default()
    }
}

/// How many jobs go in one action: `asked` (`--remote-batch`) when given, else enough that
/// each of the `lanes` actions in flight has [`BATCH_SPREAD`] actions to run in all, at most
/// [`MAX_BATCH`].
fn batch_size(asked: Option<usize>, total: usize, lanes: usize) -> usize {
    let auto = || total.div_ceil(BATCH_SPREAD * lanes.max(1)).min(MAX_BATCH);
    asked.unwrap_or_else(auto).max(1)
}

/// One action in flight at a time, on a connection of its own.
struct RemoteLane<'a> {
    remote: &'a Remote,
    store: Option<GrpcStore>,
    /// Why getting ready ([`Lane::warm`]) found the farm out of reach, for the first batch.
    unready: Option<String>,
    local: Option<Box<dyn Lane + 'a>>,
}

/// What one action on the farm gave: each job's result, or the action's failure as a whole
/// (what went wrong and the end of its stderr), when no job's result is known.
type ActionOutcome = Result<Vec<Finished>, (String, String)>;

impl<'a> RemoteLane<'a> {
    /// The lane's connection (opened at its first use) and what every action shares, put in
    /// the farm's CAS once per bake; `Err` with why when the farm is out of reach.
    fn ready(&mut self) -> Result<(&mut GrpcStore, &'a Prepared), String> {
        let remote = self.remote;
        if let Some(why) = self.unready.take() {
            return Err(why);
        }
        if self.store.is_none() {
            let config =
                crate::cache::server_config(&remote.settings.url, &remote.settings.options)?;
            let store = GrpcStore::connect(&config)?;
            if !store.executes() {
                return Err("the server does not execute actions".into());
            }
            self.store = Some(store);
        }
        let Some(store) = self.store.as_mut() else {
            return Err("no connection".into());
        };
        match remote.prepared.get_or_init(|| remote.prepare(store)) {
            Ok(prepared) => Ok((store, prepared)),
            Err(why) => Err(why.clone()),
        }
    }

    /// `jobs` as one action on the farm; `Err` with why when the farm is out of reach.
    fn on_farm(&mut self, jobs: &[&Job]) -> Result<ActionOutcome, String> {
        let remote = self.remote;
        let (store, prepared) = self.ready()?;
        let (action, timeout) = remote.describe(store, prepared, jobs)?;
        match store.execute(&action, false, timeout + QUEUE_GRACE) {
            Ok(executed) => Ok(remote.outcomes(store, jobs, &executed.result)),
            Err(ExecError::Farm(why)) => Err(why),
            Err(ExecError::Action(why)) => Ok(Err((
                format!("the build farm could not run it: {why}"),
                String::new(),
            ))),
        }
    }
}

impl Lane for RemoteLane<'_> {
    /// Connects and puts the sources and the toolchain in the farm's CAS while the bake
    /// still looks its jobs up; why the farm is out of reach, if it is, is for the first
    /// batch to report.
    fn warm(&mut self) {
        if !self.remote.down.load(Ordering::SeqCst) {
            if let Err(why) = self.ready() {
                self.unready = Some(why);
            }
        }
    }

    fn run(&mut self, job: &Job) -> JobResult {
        let mut out = None;
        self.run_batch(&[job], &mut |_, done| out = Some(done.result));
        out.unwrap_or_else(|| Err(BakeError::Slang(format!("{}: no result", job.key))))
    }

    /// One action for all of `jobs`. An action that fails as a whole (a crash, the action's
    /// timeout, a lost worker) is sent again one job per action, so that only the job that
    /// caused it fails. A job past its own time limit fails alone at once: the jobs before it
    /// keep their results and the ones after it go again as one action.
    fn run_batch(&mut self, jobs: &[&Job], done: &mut dyn FnMut(usize, Finished)) {
        let remote = self.remote;
        if !remote.down.load(Ordering::SeqCst) {
            match self.on_farm(jobs) {
                Ok(Ok(results)) => {
                    let answered = results.len();
                    for (i, result) in results.into_iter().enumerate() {
                        done(i, result);
                    }
                    // A job ran past its time limit: those after it were not run.
                    if let Some(rest) = jobs.get(answered..).filter(|r| !r.is_empty()) {
                        self.run_batch(rest, &mut |i, finished| done(answered + i, finished));
                    }
                    return;
                }
                Ok(Err(_)) if jobs.len() > 1 => {
                    for (i, job) in jobs.iter().enumerate() {
                        self.run_batch(&[job], &mut |_, finished| done(i, finished));
                    }
                    return;
                }
                Ok(Err((failure, diagnostics))) => {
                    for (i, job) in jobs.iter().enumerate() {
                        done(
                            i,
                            Err(BakeError::Worker {
                                key: job.key.clone(),
                                failure: failure.clone(),
                                diagnostics: diagnostics.clone(),
                            })
                            .into(),
                        );
                    }
                    return;
                }
                Err(why) => {
                    self.store = None;
                    remote.farm_down(&why);
                    if !remote.settings.fallback {
                        for (i, job) in jobs.iter().enumerate() {
                            done(i, Err(remote.unreachable(job, &why)).into());
                        }
                        return;
                    }
                }
            }
        }
        for (i, job) in jobs.iter().enumerate() {
            let result = match remote.settings.fallback {
                true => self
                    .local
                    .get_or_insert_with(|| remote.local.lane())
                    .run(job),
                false => Err(remote.unreachable(job, "it was found out of reach earlier")),
            };
            done(i, result.into());
        }
    }
}

/// The input root and the command of an action running the batch `job` (a `job.json` of
/// `count` jobs) on `prepared`, and `platform`'s properties (sorted, as the protocol asks) as
/// the action's platform (also in the command).
fn action_parts(
    prepared: &Prepared,
    job: &Digest,
    count: usize,
    platform: &[(String, String)],
) -> (Directory, Command, Option<Platform>) {
    let mut directories = vec![DirectoryNode {
        name: "src".into(),
        digest: Some(prepared.src.clone()),
    }];
    let mut environment = vec![(JOB_ENV, "job.json".to_string())];
    if let Some(tool) = &prepared.tool {
        directories.push(DirectoryNode {
            name: "tool".into(),
            digest: Some(tool.clone()),
        });
        environment.push(("LD_LIBRARY_PATH", "tool/lib".to_string()));
    }
    let input_root = Directory {
        files: vec![FileNode {
            name: "job.json".into(),
            digest: Some(job.clone()),
            ..Default::default()
        }],
        directories,
        ..Default::default()
    };
    // Test-only fault injection reaches the farm's workers too.
    if let Ok(fault) = std::env::var(FAULT_ENV) {
        environment.push((FAULT_ENV, fault));
    }
    environment.sort();
    let mut properties: Vec<platform::Property> = platform
        .iter()
        .map(|(name, value)| platform::Property {
            name: name.clone(),
            value: value.clone(),
        })
        .collect();
    properties.sort_by(|a, b| (&a.name, &a.value).cmp(&(&b.name, &b.value)));
    let command = Command {
        arguments: vec![prepared.program.clone()],
        environment_variables: environment
            .into_iter()
            .map(|(name, value)| command::EnvironmentVariable {
                name: name.into(),
                value,
            })
            .collect(),
        output_paths: std::iter::once(RESPONSE_FILE.to_string())
            .chain((0..count).map(entry_file))
            .collect(),
        ..Default::default()
    };
    let platform = (!properties.is_empty()).then_some(Platform { properties });
    (
        input_root,
        with_platform(command, platform.clone()),
        platform,
    )
}

/// `command` with `platform` in its own field too, for servers older than REAPI 2.2, which
/// read it there rather than in the `Action`.
#[allow(
    deprecated,
    reason = "REAPI 2.2 moved the platform to the Action; older farms still read the Command's"
)]
fn with_platform(mut command: Command, platform: Option<Platform>) -> Command {
    command.platform = platform;
    command
}

/// `job` with its paths relative to the input root: the main module under `src/`, include
/// directories inside the bake root under `src/` too (others are left as they are, and are
/// missing on the farm).
fn remote_job(job: &Job, root: &Path) -> Job {
    let mut remote = job.clone();
    remote.source = Path::new("src").join(&*job.relative).into();
    let mut program = crate::compile::CompileOptions::clone(&job.program);
    for dir in &mut program.include_dirs {
        if let Ok(inside) = dir.strip_prefix(root) {
            *dir = Path::new("src").join(inside);
        }
    }
    remote.program = std::sync::Arc::new(program);
    remote
}

/// The end of what a failed action wrote to stderr.
fn stderr_of(store: &mut GrpcStore, result: &ActionResult) -> String {
    use slangpack_cache::Store;
    let bytes = match &result.stderr_digest {
        Some(digest) if result.stderr_raw.is_empty() => {
            store.read_blob(digest).ok().flatten().unwrap_or_default()
        }
        _ => result.stderr_raw.clone(),
    };
    let start = bytes.len().saturating_sub(STDERR_TAIL);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// The entry in `bytes` when it is a package of exactly `job`'s entry, intact, baked with its
/// options hash from the files under `root` as they are now: what a cache hit must be too.
/// When the package is in the form the cache stores ([`crate::cache::cache_form`]), its bytes
/// come with the entry: checked here, they are what the bake puts in the cache.
fn checked_entry(bytes: Vec<u8>, job: &Job, root: &Path, warnings: String) -> Finished {
    let bad = |why: &dyn std::fmt::Display| -> Finished {
        Err(BakeError::Worker {
            key: job.key.clone(),
            failure: format!("the build farm sent an entry that is not one: {why}"),
            diagnostics: String::new(),
        })
        .into()
    };
    let package = match slangpack_reader::Package::from_bytes(&bytes) {
        Ok(package) => package,
        Err(e) => return bad(&e),
    };
    if let Err(e) = package.verify_all() {
        return bad(&e);
    }
    let entry = match (package.len(), package.load(&job.key)) {
        (1, Ok(entry)) => entry,
        _ => return bad(&format!("not the entry {}", job.key)),
    };
    if entry.options_hash() != job.options_hash {
        return bad(&"baked with other options");
    }
    for dependency in entry.dependencies() {
        let path = dependency.path();
        if let Err(e) = action::check_path(path) {
            return bad(&e);
        }
        let now = std::fs::read(root.join(path)).map(|b| xxhash_rust::xxh3::xxh3_64(&b));
        if now.ok() != Some(dependency.content_hash()) {
            return bad(&format!("baked from another {path}"));
        }
    }
    let mut baked = match slangpack_pack::merge::baked_entry(&entry) {
        Ok(baked) => baked,
        Err(e) => return bad(&e),
    };
    baked.warnings = warnings;
    let stored = crate::cache::cache_form(&package);
    drop(package);
    Finished {
        result: Ok(Some(baked)),
        stored: stored.then_some(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_in_the_cache_form_comes_with_its_checked_bytes() {
        use crate::execute::Executor;
        use slangpack_pack::assemble::assemble_with;
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("a.slang");
        let shader = "RWStructuredBuffer<float> o;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { o[0] = 1.0; }\n";
        std::fs::write(&source, shader).unwrap();
        let plan = crate::plan::plan(&crate::config::BakeConfig::new(vec![source])).unwrap();
        let mut job = plan.jobs[0].clone();
        let executor = crate::execute::InProcess {
            root: plan.root.clone(),
        };
        let entry = executor.lane().run(&job).unwrap().unwrap();
        let root = plan.root.as_path();
        let cached = crate::cache::cache_entry(&entry).unwrap();
        let raw = assemble_with(std::slice::from_ref(&entry), false, false).unwrap();
        assert_ne!(cached, raw);
        // In the cache's form: the entry, and the bytes to store as they came, which are
        // those the bake would make from the entry.
        let finished = checked_entry(cached.clone(), &job, root, "w".into());
        let baked = finished.result.unwrap().unwrap();
        assert_eq!((&baked.key, baked.warnings.as_str()), (&job.key, "w"));
        assert_eq!(crate::cache::cache_entry(&baked).unwrap(), cached);
        assert_eq!(finished.stored, Some(cached.clone()));
        // Raw: the entry alone (the bake compresses it for the cache).
        let finished = checked_entry(raw, &job, root, String::new());
        assert!(finished.result.unwrap().is_some());
        assert_eq!(finished.stored, None);
        // Checked first: bytes that are not the job's entry reach no cache.
        job.options_hash ^= 1;
        let finished = checked_entry(cached.clone(), &job, root, String::new());
        assert!(matches!(finished.result, Err(BakeError::Worker { .. })));
        assert_eq!(finished.stored, None);
        job.options_hash ^= 1;
        std::fs::write(root.join("a.slang"), "// changed").unwrap();
        let finished = checked_entry(cached, &job, root, String::new());
        assert!(matches!(finished.result, Err(BakeError::Worker { .. })));
        assert_eq!(finished.stored, None);
    }

    #[test]
    fn jobs_travel_with_paths_inside_the_input_root() {
        let root = Path::new("/checkout/shaders");
        let options = crate::compile::CompileOptions {
            include_dirs: vec![root.join("lib"), PathBuf::from("/opt/sdk/include")],
            ..Default::default()
        };
        let job = Job {
            key: "k".into(),
            source: root.join("sub/a.slang").into(),
            relative: "sub/a.slang".into(),
            program: std::sync::Arc::new(options),
            defines: Vec::new(),
            options_hash: 7,
            skip_if_library: false,
        };
        let remote = remote_job(&job, root);
        assert_eq!(&*remote.source, Path::new("src/sub/a.slang"));
        assert_eq!(
            remote.program.include_dirs,
            [PathBuf::from("src/lib"), PathBuf::from("/opt/sdk/include")]
        );
        assert_eq!((remote.key.as_str(), remote.options_hash), ("k", 7));
    }

    #[test]
    fn batches_give_each_lane_one_action() {
        // 100 permutations, 2 actions in flight: 2 actions of 50.
        assert_eq!(batch_size(None, 100, 2), 50);
        assert_eq!(batch_size(None, 101, 2), 51);
        assert_eq!(batch_size(None, 10_000, 100), 100);
        assert_eq!(batch_size(None, 3, 4), 1);
        assert_eq!(batch_size(None, 1_000_000, 1), MAX_BATCH);
        // Asked for: as asked, at least one.
        assert_eq!(batch_size(Some(50), 100, 2), 50);
        assert_eq!(batch_size(Some(0), 100, 2), 1);
    }

    #[test]
    fn a_named_toolchain_goes_in_the_platform_and_is_not_sent() {
        let job = digest_of(b"job");
        let mut prepared = Prepared {
            src: digest_of(b"src"),
            tool: Some(digest_of(b"tool")),
            program: "tool/bake".into(),
        };
        // The default: the toolchain travels, no platform.
        let (root, command, platform) = action_parts(&prepared, &job, 2, &[]);
        let names: Vec<&str> = root.directories.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["src", "tool"]);
        assert!(platform.is_none());
        assert_eq!(
            command.output_paths,
            ["response.json", "entry-0.slangpack", "entry-1.slangpack"]
        );
        let env = |c: &Command| -> Vec<String> {
            (c.environment_variables.iter())
                .map(|v| format!("{}={}", v.name, v.value))
                .collect()
        };
        assert!(env(&command).contains(&"LD_LIBRARY_PATH=tool/lib".to_string()));
        // Named: properties sorted into the platform, no tool directory, no library path.
        prepared.tool = None;
        prepared.program = NAMED_PROGRAM.into();
        let platform = [
            ("OSFamily".to_string(), "Linux".to_string()),
            ("container-image".to_string(), "docker://bake:1".to_string()),
        ];
        let (root, command, platform) = action_parts(&prepared, &job, 1, &platform);
        let names: Vec<&str> = root.directories.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["src"]);
        assert_eq!(command.arguments, ["slangpack"]);
        assert_eq!(env(&command), ["SLANGPACK_COMPILE_JOB=job.json"]);
        let properties: Vec<(&str, &str)> = (platform.as_ref().unwrap().properties)
            .iter()
            .map(|p| (p.name.as_str(), p.value.as_str()))
            .collect();
        assert_eq!(
            properties,
            [
                ("OSFamily", "Linux"),
                ("container-image", "docker://bake:1")
            ]
        );
    }
}

//! The compile pool in this process: jobs spread over threads, each with its own Slang global
//! session. [`crate::worker`] is the same pool in worker processes, where a compiler crash
//! costs one job.

use crate::compile::Compiler;
use crate::error::BakeError;
use crate::plan::Job;

/// Runs `work` on every job, spreading the jobs over `workers` threads, each with its own
/// Slang global session (Slang sessions are not shared between threads); the work compiles
/// (see [`crate::entry::compile_job`]) and turns the program into plain data on the thread
/// that owns it. Results come back in job order.
///
/// With `keep_going`, failed jobs are returned as errors beside the successes; without it the
/// first failure (in job order) is returned.
///
/// # Errors
/// The first error, when `keep_going` is false.
pub fn compile_all<T, F>(
    jobs: &[&Job],
    workers: usize,
    keep_going: bool,
    work: F,
) -> Result<Vec<Result<T, BakeError>>, BakeError>
where
    T: Send,
    F: Fn(&Compiler, &Job) -> Result<T, BakeError> + Sync,
{
    if jobs.is_empty() {
        // Nothing to compile: start no Slang session.
        return Ok(Vec::new());
    }
    let workers = workers.clamp(1, jobs.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let collected = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let compiler = Compiler::new();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let result = match &compiler {
                        Ok(compiler) => work(compiler, job),
                        Err(e) => Err(BakeError::Slang(e.to_string())),
                    };
                    if let Ok(mut c) = collected.lock() {
                        c.push((i, result));
                    }
                }
            });
        }
    });
    let collected = collected
        .into_inner()
        .map_err(|_| BakeError::Slang("a compile worker panicked".into()))?;
    let mut results: Vec<Option<Result<T, BakeError>>> = (0..jobs.len()).map(|_| None).collect();
    for (i, result) in collected {
        results[i] = Some(result);
    }
    let mut out = Vec::with_capacity(jobs.len());
    for result in results {
        let result =
            result.unwrap_or_else(|| Err(BakeError::Slang("a compile worker stopped".into())));
        match result {
            Err(e) if !keep_going => return Err(e),
            other => out.push(other),
        }
    }
    Ok(out)
}

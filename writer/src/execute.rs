//! The bake's execute stage: one interface ([`Executor`]) through which the scheduler hands a
//! compile job over and gets back the job's entry (`Ok(None)`: a library module) or the
//! permutation's failure, and the one pool ([`Pool`], [`run_all`]) that keeps a number of
//! jobs in flight on any executor, fed all at once or as jobs become known.
//!
//! The executors: [`InProcess`] (threads of this process, each with its own Slang global
//! session), `Workers` (worker processes, in the `worker` module: a compiler crash costs one
//! permutation) and `Remote` (a build farm through the Remote Execution API, in the `remote`
//! module); both of those implement [`Executor`] where they are, and the bake chooses one.
//! The scheduler never knows which one ran a job: what a worker process or a farm sends back
//! is a one-entry package, opened and checked like any other input before it becomes an entry.

use crate::compile::Compiler;
use crate::error::BakeError;
use crate::plan::Job;
use slangpack_pack::assemble::BakedEntry;
use std::path::PathBuf;

/// What one job gives: its entry, `None` for a module without entry points a directory scan
/// found, or the permutation's failure.
pub type JobResult = Result<Option<BakedEntry>, BakeError>;

/// What a lane hands back for one job ([`Lane::run_batch`]): its result and, where the
/// executor received the entry already in the form the cache stores (a one-entry package,
/// reflection compressed) and checked those bytes as a cache hit is checked, the bytes, so
/// that the bake does not make them again.
#[derive(Debug)]
pub struct Finished {
    /// The job's result.
    pub result: JobResult,
    /// The entry's one-entry package in the cache's form, checked; `None` when the executor
    /// has none (the bake then makes it from the entry when it caches).
    pub stored: Option<Vec<u8>>,
}

impl From<JobResult> for Finished {
    fn from(result: JobResult) -> Finished {
        Finished {
            result,
            stored: None,
        }
    }
}

/// A way of running compile jobs.
pub trait Executor: Sync {
    /// A lane: what one of the pool's threads runs its jobs on, one at a time (a Slang
    /// session, a worker process, a slot of actions in flight on a farm).
    fn lane(&self) -> Box<dyn Lane + '_>;

    /// How many jobs a lane takes at a time when `total` jobs run on `lanes` lanes (a farm
    /// sends several in one action, so that a process and a Slang global session serve
    /// them all); 1 by default.
    fn batch(&self, total: usize, lanes: usize) -> usize {
        let _ = (total, lanes);
        1
    }

    /// What the bake should say about how its jobs ran (a farm out of reach, say); empty by
    /// default.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// One lane of an [`Executor`]; what it holds (a session, a process) is kept from one job to
/// the next and let go when the lane is dropped.
pub trait Lane {
    /// Runs `job`.
    ///
    /// # Errors
    /// The permutation's failure: a compile error, or the executor's (a worker that died, an
    /// action the farm could not run), naming the key.
    fn run(&mut self, job: &Job) -> JobResult;

    /// Runs `jobs`, a batch of [`Executor::batch`] jobs, handing each one's result to
    /// `done` with its index in `jobs` (each exactly once, in any order); by default one at
    /// a time with [`Lane::run`].
    fn run_batch(&mut self, jobs: &[&Job], done: &mut dyn FnMut(usize, Finished)) {
        for (i, job) in jobs.iter().enumerate() {
            done(i, self.run(job).into());
        }
    }

    /// Gets ready for jobs that are on their way (a connection opened, shared inputs
    /// uploaded), so that this costs the first job nothing; by default nothing. What fails
    /// here is for the first job to find and report.
    fn warm(&mut self) {}
}

/// Runs `jobs` on `executor` with up to `lanes` lanes busy, each taking [`Executor::batch`]
/// consecutive jobs at a time. `arrive` is called as each job finishes (from the lane's
/// thread) with what it gave; its result is the job's. Results come back in job order.
///
/// With `keep_going`, failed jobs are returned as errors beside the successes; without it the
/// first failure in job order is returned.
///
/// # Errors
/// The first error, when `keep_going` is false.
pub fn run_all<T: Send>(
    executor: &dyn Executor,
    jobs: &[&Job],
    lanes: usize,
    keep_going: bool,
    arrive: &(dyn Fn(&Job, Finished) -> Result<T, BakeError> + Sync),
) -> Result<Vec<Result<T, BakeError>>, BakeError> {
    let pool = Pool {
        executor,
        lanes,
        keep_going,
        arrive,
    };
    pool.run_fed(jobs.len(), &mut |push| {
        jobs.iter().for_each(|job| push(job))
    })
}

/// How [`Pool::run_fed`] runs what it is fed: on `executor`, with up to `lanes` lanes busy,
/// `arrive` called as each job finishes (from the lane's thread) with what it gave (its
/// result is the job's), and with `keep_going`, failed jobs returned as errors beside the
/// successes (without it, the first failure in job order).
pub struct Pool<'e, T> {
    /// Where the jobs run.
    pub executor: &'e dyn Executor,
    /// How many lanes may be busy at once.
    pub lanes: usize,
    /// Whether a failed job leaves the others' results to be returned.
    pub keep_going: bool,
    /// What is done with each job as it finishes.
    pub arrive: &'e (dyn Fn(&Job, Finished) -> Result<T, BakeError> + Sync),
}

/// What [`Pool::run_fed`]'s feeder hands each job to.
pub type Hand<'h, 'j> = dyn FnMut(&'j Job) + 'h;

/// Whether any job is coming to the pool's lanes, and whether the feeding is over.
#[derive(Default)]
struct Coming {
    job: bool,
    over: bool,
}

/// Tells the lanes the feeding is over when dropped (also when the feeder panics, so that no
/// lane waits for ever).
struct FeedOver<'c>(&'c (std::sync::Mutex<Coming>, std::sync::Condvar));

impl Drop for FeedOver<'_> {
    fn drop(&mut self) {
        let (coming, changed) = self.0;
        coming
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .over = true;
        changed.notify_all();
    }
}

impl<T: Send> Pool<'_, T> {
    /// Runs the jobs `feed` hands, one at a time, to the function it is given (on the
    /// caller's thread, at most `total` of them, whose count sets [`Executor::batch`]),
    /// while earlier ones already run: a lane takes each batch of consecutive jobs as soon
    /// as it is fed whole (the last one when the feeding ends), and a lane gets ready for
    /// jobs ([`Lane::warm`]) as soon as the first is fed. When fewer than `total` jobs come,
    /// those left over at the end are shared by the lanes that have none yet. Results come
    /// back in the order the jobs were fed.
    ///
    /// At most one batch per lane waits to be taken: `feed` waits meanwhile.
    ///
    /// # Errors
    /// The first error, when `keep_going` is false.
    pub fn run_fed<'j>(
        &self,
        total: usize,
        feed: &mut dyn FnMut(&mut Hand<'_, 'j>),
    ) -> Result<Vec<Result<T, BakeError>>, BakeError> {
        use std::sync::{mpsc, Condvar, Mutex};
        let lanes = self.lanes.max(1);
        let batch = self.executor.batch(total, lanes).clamp(1, total.max(1));
        let lanes = lanes.min(total.div_ceil(batch)).max(1);
        let (send, receive) = mpsc::sync_channel::<(usize, Vec<&'j Job>)>(lanes);
        let receive = Mutex::new(receive);
        let coming = (Mutex::new(Coming::default()), Condvar::new());
        let collected = Mutex::new(Vec::new());
        let mut fed = 0usize;
        std::thread::scope(|scope| {
            for _ in 0..lanes {
                scope.spawn(|| self.lane(&coming, &receive, &collected));
            }
            let over = FeedOver(&coming);
            let mut chunk = Vec::with_capacity(batch);
            let mut start = 0;
            feed(&mut |job| {
                if fed == 0 {
                    let (state, changed) = &coming;
                    state
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .job = true;
                    changed.notify_all();
                }
                fed += 1;
                chunk.push(job);
                if chunk.len() == batch {
                    // A send fails only when every lane is gone (they panicked): the jobs
                    // are then reported lost below.
                    let _ = send.send((start, std::mem::take(&mut chunk)));
                    start = fed;
                }
            });
            // What is left when the feeding ends (fewer jobs than `total`: the cache answered
            // some) is shared by the lanes that have no batch yet.
            let idle = lanes.saturating_sub(start / batch).max(1);
            for piece in chunk.chunks(chunk.len().div_ceil(idle).max(1)) {
                let _ = send.send((start, piece.to_vec()));
                start += piece.len();
            }
            drop(send);
            drop(over);
        });
        let collected = collected
            .into_inner()
            .map_err(|_| BakeError::Slang("a compile lane panicked".into()))?;
        let mut results: Vec<Option<Result<T, BakeError>>> = (0..fed).map(|_| None).collect();
        for (i, result) in collected {
            if let Some(slot) = results.get_mut(i) {
                *slot = Some(result);
            }
        }
        let mut out = Vec::with_capacity(fed);
        for result in results {
            let result =
                result.unwrap_or_else(|| Err(BakeError::Slang("a compile job was lost".into())));
            match result {
                Err(e) if !self.keep_going => return Err(e),
                other => out.push(other),
            }
        }
        Ok(out)
    }

    /// One lane of [`Pool::run_fed`]: ready once a job is coming (not started at all when
    /// none is), then running batches until there are no more.
    #[allow(
        clippy::type_complexity,
        reason = "private; the pool's own channel and result list"
    )]
    fn lane(
        &self,
        coming: &(std::sync::Mutex<Coming>, std::sync::Condvar),
        receive: &std::sync::Mutex<std::sync::mpsc::Receiver<(usize, Vec<&Job>)>>,
        collected: &std::sync::Mutex<Vec<(usize, Result<T, BakeError>)>>,
    ) {
        let (state, changed) = coming;
        let job_coming = {
            let mut state = state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            while !state.job && !state.over {
                state = changed
                    .wait(state)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            state.job
        };
        if !job_coming {
            return;
        }
        let mut lane = self.executor.lane();
        lane.warm();
        loop {
            let next = match receive.lock() {
                Ok(receive) => receive.recv(),
                Err(_) => break,
            };
            let Ok((start, chunk)) = next else {
                break;
            };
            lane.run_batch(&chunk, &mut |i, result| {
                let result = (self.arrive)(chunk[i], result);
                if let Ok(mut c) = collected.lock() {
                    c.push((start + i, result));
                }
            });
        }
    }
}

/// Jobs compiled on threads of this process, each with its own Slang global session (Slang
/// sessions are not shared between threads): a compiler crash ends the bake.
#[derive(Debug)]
pub struct InProcess {
    /// The bake root (dependency paths are recorded relative to it).
    pub root: PathBuf,
}

impl Executor for InProcess {
    fn lane(&self) -> Box<dyn Lane + '_> {
        Box::new(InProcessLane {
            root: &self.root,
            compiler: None,
        })
    }
}

/// A thread's Slang global session, started at its first job.
struct InProcessLane<'a> {
    root: &'a std::path::Path,
    compiler: Option<Result<Compiler, BakeError>>,
}

impl Lane for InProcessLane<'_> {
    fn run(&mut self, job: &Job) -> JobResult {
        let compiler = self.compiler.get_or_insert_with(Compiler::new);
        match compiler {
            Ok(compiler) => crate::entry::bake_job(compiler, job, self.root),
            Err(e) => Err(BakeError::Slang(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn job(key: &str) -> Job {
        Job {
            key: key.to_string(),
            source: Path::new("a.slang").into(),
            relative: "a.slang".into(),
            program: Arc::default(),
            defines: Vec::new(),
            options_hash: 0,
            skip_if_library: false,
        }
    }

    /// Fails the jobs whose key starts with `bad`, gives a library for the others, and
    /// counts the lanes it handed out.
    struct Scripted {
        lanes: AtomicUsize,
        batch: usize,
    }

    struct ScriptedLane;

    impl Executor for Scripted {
        fn lane(&self) -> Box<dyn Lane + '_> {
            self.lanes.fetch_add(1, Ordering::SeqCst);
            Box::new(ScriptedLane)
        }

        fn batch(&self, _total: usize, _lanes: usize) -> usize {
            self.batch
        }
    }

    impl Lane for ScriptedLane {
        fn run(&mut self, job: &Job) -> JobResult {
            // Finish out of order: later jobs first.
            let wait = 20u64.saturating_sub(job.key.len() as u64 * 2);
            std::thread::sleep(std::time::Duration::from_millis(wait));
            match job.key.starts_with("bad") {
                true => Err(BakeError::Input(job.key.clone())),
                false => Ok(None),
            }
        }
    }

    /// Five jobs (two failing) run with `keep_going` on `lanes` lanes of a scripted executor
    /// taking `batch` at a time: what each gave in job order, and the executor.
    fn five_jobs(batch: usize, lanes: usize) -> (Vec<String>, Scripted, Vec<Job>) {
        let jobs: Vec<Job> = ["a", "bad1", "ccc", "bad22", "eeeee"]
            .iter()
            .copied()
            .map(job)
            .collect();
        let refs: Vec<&Job> = jobs.iter().collect();
        let executor = Scripted {
            lanes: AtomicUsize::new(0),
            batch,
        };
        let arrive = |job: &Job, done: Finished| done.result.map(|_| job.key.clone());
        let shown = run_all(&executor, &refs, lanes, true, &arrive)
            .unwrap()
            .into_iter()
            .map(|r| r.unwrap_or_else(|e| format!("failed {e}")))
            .collect();
        (shown, executor, jobs)
    }

    #[test]
    fn results_come_back_in_job_order_whatever_order_lanes_finish() {
        let (shown, executor, jobs) = five_jobs(1, 3);
        assert_eq!(shown, ["a", "failed bad1", "ccc", "failed bad22", "eeeee"]);
        assert_eq!(executor.lanes.load(Ordering::SeqCst), 3);
        let refs: Vec<&Job> = jobs.iter().collect();
        let arrive = |job: &Job, done: Finished| done.result.map(|_| job.key.clone());
        // Without keep_going: the first failure in job order.
        let first = run_all(&executor, &refs, 2, false, &arrive).unwrap_err();
        assert_eq!(
            first.to_string(),
            BakeError::Input("bad1".into()).to_string()
        );
        // No jobs: no lane is started.
        let before = executor.lanes.load(Ordering::SeqCst);
        assert!(run_all(&executor, &[], 4, true, &arrive)
            .unwrap()
            .is_empty());
        assert_eq!(executor.lanes.load(Ordering::SeqCst), before);
    }

    /// Counts how many of its lanes got ready ([`Lane::warm`]); each job gives a library.
    struct Warming {
        warmed: AtomicUsize,
    }

    struct WarmingLane<'a>(&'a AtomicUsize);

    impl Executor for Warming {
        fn lane(&self) -> Box<dyn Lane + '_> {
            Box::new(WarmingLane(&self.warmed))
        }

        fn batch(&self, _total: usize, _lanes: usize) -> usize {
            2
        }
    }

    impl Lane for WarmingLane<'_> {
        fn run(&mut self, _job: &Job) -> JobResult {
            Ok(None)
        }

        fn warm(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Batches of four, noting the size of each batch its lanes run.
    struct Counting<'a>(&'a std::sync::Mutex<Vec<usize>>);

    struct CountingLane<'a>(&'a std::sync::Mutex<Vec<usize>>);

    impl Executor for Counting<'_> {
        fn lane(&self) -> Box<dyn Lane + '_> {
            Box::new(CountingLane(self.0))
        }

        fn batch(&self, _total: usize, _lanes: usize) -> usize {
            4
        }
    }

    impl Lane for CountingLane<'_> {
        fn run(&mut self, _job: &Job) -> JobResult {
            Ok(None)
        }

        fn run_batch(&mut self, jobs: &[&Job], done: &mut dyn FnMut(usize, Finished)) {
            self.0.lock().unwrap().push(jobs.len());
            for i in 0..jobs.len() {
                done(i, Ok(None).into());
            }
        }
    }

    #[test]
    fn a_fed_pool_gets_its_lanes_ready_before_the_first_batch_is_whole() {
        let jobs: Vec<Job> = ["a", "b", "c", "d"].into_iter().map(job).collect();
        let executor = Warming {
            warmed: AtomicUsize::new(0),
        };
        let arrive = |job: &Job, done: Finished| done.result.map(|_| job.key.clone());
        let pool = Pool {
            executor: &executor,
            lanes: 2,
            keep_going: true,
            arrive: &arrive,
        };
        let mut ready_before_batch = false;
        let shown = pool
            .run_fed(jobs.len(), &mut |compile| {
                compile(&jobs[0]);
                // One job of a batch of two is fed: both lanes get ready meanwhile.
                let start = std::time::Instant::now();
                while executor.warmed.load(Ordering::SeqCst) < 2
                    && start.elapsed() < std::time::Duration::from_secs(20)
                {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                ready_before_batch = executor.warmed.load(Ordering::SeqCst) == 2;
                for job in &jobs[1..] {
                    compile(job);
                }
            })
            .unwrap();
        assert!(ready_before_batch);
        let shown: Vec<String> = shown.into_iter().map(Result::unwrap).collect();
        assert_eq!(shown, ["a", "b", "c", "d"]);
        // Fed two of a total of eight, in batches of four for two lanes: one each.
        let batches = std::sync::Mutex::new(Vec::new());
        let counted = Counting(&batches);
        let fewer = Pool {
            executor: &counted,
            ..pool
        };
        let fed = fewer.run_fed(8, &mut |compile| {
            compile(&jobs[0]);
            compile(&jobs[1]);
        });
        assert_eq!(fed.unwrap().len(), 2);
        let mut sizes = batches.lock().unwrap().clone();
        sizes.sort_unstable();
        assert_eq!(sizes, [1, 1]);
        // Fed nothing: no lane gets ready.
        executor.warmed.store(0, Ordering::SeqCst);
        assert!(pool.run_fed(4, &mut |_| {}).unwrap().is_empty());
        assert_eq!(executor.warmed.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn batches_are_consecutive_jobs_and_results_stay_in_job_order() {
        let (shown, executor, _) = five_jobs(2, 8);
        assert_eq!(shown, ["a", "failed bad1", "ccc", "failed bad22", "eeeee"]);
        // Five jobs in batches of two: three lanes are enough, whatever was asked for.
        assert_eq!(executor.lanes.load(Ordering::SeqCst), 3);
    }
}

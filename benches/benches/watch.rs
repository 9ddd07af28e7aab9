//! Watch mode: the latency from saving a shader to the package holding its new code, under
//! the writer's watch loop (`slangpack bake --watch`: real file-system notifications, the
//! debounce, the incremental rebake, the atomic replace) over the 4 example programs, one of
//! them (`blur.slang`) edited per iteration. Compared with what Slang alone needs for the
//! changed entry — its compile on a warm global session (what the watch loop's kept worker
//! has), and a global session plus the compile — plus the allowance of 100 ms; and
//! with the same rebake called directly, without watching (so with a worker and a global
//! session started for it).
//!
//! `cargo xtask bench` runs it with the others. In criterion's test mode each benchmark runs
//! once.

use criterion::{Criterion, SamplingMode};
use slangpack_benches::{criterion_test_mode, work_dir};
use slangpack_writer::bake::{bake_to_file, BakeConfig};
use slangpack_writer::compile::Compiler;
use slangpack_writer::entry::compile_job;
use slangpack_writer::plan::plan;
use slangpack_writer::watch::{watch, WatchEvent, WatchOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The example programs, copied where the bench may edit them.
fn copy_examples(dir: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders");
    let to = dir.join("shaders");
    let _ = std::fs::remove_dir_all(dir);
    copy_dir(&from, &to);
    to
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a work directory");
    for item in std::fs::read_dir(from).expect("the example shaders") {
        let path = item.expect("a directory entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copying a shader");
        }
    }
}

/// `blur.slang` with a constant of `clearHistogram`'s body changed: new code for every `n`.
fn edited_blur(original: &str, n: u64) -> String {
    original.replacen(
        "float(tid.x) / 63.0",
        &format!("float(tid.x) / {}.0", 64 + n % 500),
        1,
    )
}

/// Each bake the watch loop reports: its instant and compiled keys, or the error of a failed one.
type Baked = mpsc::Receiver<Result<(Instant, Vec<String>), String>>;

/// The watch loop over `config` in a thread, writing `output`, until `stop` is set; each bake
/// it reports goes to the channel with its instant.
fn spawn_watch(
    config: BakeConfig,
    output: &Path,
    stop: &Arc<AtomicBool>,
) -> (std::thread::JoinHandle<()>, Baked) {
    let (sender, baked) = mpsc::channel();
    let (stop, output) = (Arc::clone(stop), output.to_path_buf());
    let watcher = std::thread::spawn(move || {
        watch(
            config,
            &output,
            &WatchOptions::default(),
            &stop,
            |event| match event {
                WatchEvent::Baked { outcome, .. } => {
                    let _ = sender.send(Ok((Instant::now(), outcome.compiled_keys.clone())));
                }
                WatchEvent::Failed { error, .. } => {
                    let _ = sender.send(Err(error.to_string()));
                }
                WatchEvent::Warning(w) => eprintln!("warning: {w}"),
            },
        )
        .expect("watching");
    });
    (watcher, baked)
}

/// Slang alone on the changed entry (`blur`) of `plain`'s plan: a global session then the
/// compile, and the compile on a warm global session (what a kept worker has).
fn slang_alone(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    plain: BakeConfig,
) {
    // Slang alone on the changed entry: a global session, then the compile.
    let job = plan(&plain)
        .expect("planning")
        .jobs
        .into_iter()
        .find(|job| job.key == "blur")
        .expect("the blur job");
    g.bench_function("slang_only_blur", |b| {
        b.iter(|| {
            let compiler = Compiler::new().expect("Slang");
            compile_job(&compiler, &job)
                .expect("compile")
                .map_or(0, |p| p.entry_points.len())
        })
    });
    // Slang alone on the changed entry with a warm global session (what a kept worker has):
    // the compile itself.
    let compiler = Compiler::new().expect("Slang");
    g.bench_function("slang_compile_blur_warm_session", |b| {
        b.iter(|| {
            compile_job(&compiler, &job)
                .expect("compile")
                .map_or(0, |p| p.entry_points.len())
        })
    });
}

fn main() {
    let quick = criterion_test_mode();
    let dir = work_dir().join("watch");
    let shaders = copy_examples(&dir);
    let blur = shaders.join("blur.slang");
    let original = std::fs::read_to_string(&blur).expect("blur.slang");
    assert!(
        original.contains("float(tid.x) / 63.0"),
        "blur.slang as the bench edits it"
    );
    let output = dir.join("examples.slangpack");
    let config = || {
        let mut config = BakeConfig::new(vec![shaders.clone()]);
        config.jobs = 1;
        config
    };

    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("watch");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(if quick { 1 } else { 8 }));

    let stop = Arc::new(AtomicBool::new(false));
    let (watcher, baked) = spawn_watch(config(), &output, &stop);
    let (_, first) = baked
        .recv_timeout(Duration::from_secs(300))
        .expect("the first bake")
        .expect("the first bake succeeds");
    assert_eq!(first.len(), 4, "{first:?}");
    let mut edit = 0u64;
    g.bench_function("edit_to_package_blur", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                edit += 1;
                let saved = Instant::now();
                std::fs::write(&blur, edited_blur(&original, edit)).expect("saving blur.slang");
                let (done, keys) = baked
                    .recv_timeout(Duration::from_secs(120))
                    .expect("a rebake")
                    .expect("the rebake succeeds");
                assert_eq!(keys, ["blur"]);
                total += done - saved;
            }
            total
        })
    });
    stop.store(true, Ordering::Relaxed);
    watcher.join().expect("the watch loop ends");

    // The same rebake without watching.
    g.bench_function("rebake_blur", |b| {
        let mut rebake = config();
        rebake.previous = Some(output.clone());
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                edit += 1;
                std::fs::write(&blur, edited_blur(&original, edit)).expect("saving blur.slang");
                let start = Instant::now();
                let outcome = bake_to_file(&rebake, &output).expect("rebake");
                total += start.elapsed();
                assert_eq!(outcome.compiled_keys, ["blur"]);
            }
            total
        })
    });

    slang_alone(&mut g, config());
    g.finish();
    std::fs::write(&blur, &original).expect("restoring blur.slang");
    c.final_summary();
}

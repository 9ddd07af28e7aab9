//! Compile jobs in worker processes: a compiler that aborts, segfaults, hangs or allocates
//! without bound costs its own permutation, never the bake. Faults are injected with the
//! writer's test-only switch (`SLANGPACK_WORKER_FAULT`), since no shader crashes Slang
//! reliably; the rest of the package is byte-identical to a bake without the failing
//! programs, and no worker outlives the bake.
//!
//! One test function: the switch is an environment variable, which tests running in parallel
//! threads of one binary would share.

use slangpack_writer::bake::{self, BakeConfig};
use slangpack_writer::worker::{Limits, FAULT_ENV};
use slangpack_writer::BakeError;
use std::path::{Path, PathBuf};
use std::time::Duration;

const SHADER: &str = "RWStructuredBuffer<float4> gOut;\nuniform float4 gTint;\n\
                      [shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { gOut[0] = gTint; }\n";

const FAULTS: [(&str, &str); 4] = [
    ("crash_abort", "abort"),
    ("crash_segfault", "segfault"),
    ("crash_hang", "hang"),
    ("crash_alloc", "alloc"),
];

fn config(dir: &Path, names: &[&str], in_process: bool) -> BakeConfig {
    let inputs: Vec<PathBuf> = names
        .iter()
        .map(|n| dir.join(format!("{n}.slang")))
        .collect();
    let mut config = BakeConfig::new(inputs);
    config.root = Some(dir.to_path_buf());
    config.jobs = 2;
    config.in_process = in_process;
    config.limits = Limits {
        timeout: Duration::from_secs(8),
        memory_mib: Some(1024),
    };
    config
}

/// Processes whose parent is this one (running or not yet reaped).
fn children() -> Vec<u32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .to_string();
            (ppid == me).then_some(pid)
        })
        .collect()
}

#[test]
fn every_injected_fault_fails_only_its_own_permutation() {
    if !slangpack_writer::worker::available() {
        eprintln!("NOT RUN: compile workers need Linux");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut names = vec!["ok_a", "ok_b"];
    names.extend(FAULTS.iter().map(|(name, _)| *name));
    for name in &names {
        std::fs::write(dir.path().join(format!("{name}.slang")), SHADER).unwrap();
    }
    let spec: Vec<String> = FAULTS.iter().map(|(k, how)| format!("{k}={how}")).collect();
    std::env::set_var(FAULT_ENV, spec.join(","));

    // The healthy programs alone, in this process: what the rest of the package must be.
    let healthy = bake::bake(&config(dir.path(), &["ok_a", "ok_b"], true)).unwrap();

    // Every program, in workers, keeping going: each fault is reported for its own key.
    let mut all = config(dir.path(), &names, false);
    all.keep_going = true;
    let outcome = bake::bake(&all).unwrap();
    assert_eq!(
        outcome.bytes, healthy.bytes,
        "the rest of the package is unchanged"
    );
    let mut failed: Vec<(String, String)> = outcome
        .failures
        .iter()
        .map(|e| match e {
            BakeError::Worker { key, failure, .. } => (key.clone(), failure.clone()),
            other => panic!("not a worker failure: {other}"),
        })
        .collect();
    failed.sort();
    let keys: Vec<&str> = failed.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        ["crash_abort", "crash_alloc", "crash_hang", "crash_segfault"]
    );
    let failure = |key: &str| &failed.iter().find(|(k, _)| k == key).unwrap().1;
    assert!(failure("crash_abort").contains("SIGABRT"), "{failed:?}");
    assert!(failure("crash_segfault").contains("SIGSEGV"), "{failed:?}");
    assert!(
        failure("crash_hang").contains("time limit of 8 s"),
        "{failed:?}"
    );
    // Allocation past the address-space limit aborts the worker.
    assert!(
        failure("crash_alloc").contains("memory limit is 1024 MiB"),
        "{failed:?}"
    );
    assert!(
        children().is_empty(),
        "workers outlived the bake: {:?}",
        children()
    );

    // Without keep_going the bake fails, names the permutation and writes nothing.
    let output = dir.path().join("out.slangpack");
    let strict = config(dir.path(), &["ok_a", "crash_segfault"], false);
    let error = bake::bake_to_file(&strict, &output).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("crash_segfault: the compile worker was killed"),
        "{error}"
    );
    assert!(!output.exists());
    assert!(
        children().is_empty(),
        "workers outlived the bake: {:?}",
        children()
    );

    // A manifest's programs fail one by one too.
    std::fs::write(
        dir.path().join("bake.toml"),
        "[[program]]\nsource = \"ok_b.slang\"\n\n[[program]]\nsource = \"crash_segfault.slang\"\n",
    )
    .unwrap();
    let mut manifest = config(dir.path(), &[], false);
    manifest.inputs = vec![dir.path().join("bake.toml")];
    manifest.keep_going = true;
    let outcome = bake::bake(&manifest).unwrap();
    let keys: Vec<&str> = outcome.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["ok_b"]);
    assert!(
        matches!(outcome.failures.as_slice(), [BakeError::Worker { key, .. }] if key == "crash_segfault"),
        "{:?}",
        outcome.failures
    );

    // A build script's bake (`build::Bake::run`) gets the failure as an error: the build
    // script is not taken down.
    let from_build_rs = slangpack_writer::build::Bake::new()
        .input(dir.path().join("ok_a.slang"))
        .input(dir.path().join("crash_abort.slang"))
        .root(dir.path())
        .output(dir.path().join("build.slangpack"))
        .run()
        .unwrap_err();
    assert!(
        from_build_rs
            .to_string()
            .contains("crash_abort: the compile worker"),
        "{from_build_rs}"
    );
    assert!(
        children().is_empty(),
        "workers outlived the bake: {:?}",
        children()
    );

    // Workers and threads bake the same bytes.
    std::env::remove_var(FAULT_ENV);
    let threads = bake::bake(&config(dir.path(), &names, true)).unwrap();
    let workers = bake::bake(&config(dir.path(), &names, false)).unwrap();
    assert_eq!(threads.bytes, workers.bytes);
}

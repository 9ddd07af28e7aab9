//! Bakes on a build farm (`slangpack bake --remote-executor grpc://...`): BuildGrid with its
//! execution scheduler on PostgreSQL and two bots (`tests/farm/bot.py`), all on 127.0.0.1 and
//! started by the test. A 100-permutation bake through the farm is byte-identical to a bake
//! on this machine; a second bake is all action-cache hits; a compile error and a compiler
//! crash on the farm fail their own permutations only, also inside a batch of permutations
//! sent as one action; a bot killed mid-bake loses nothing
//! (its lease goes to the other bot); a farm that is not there costs one warning and local
//! compiles.
//!
//! One test function: the farm takes seconds to start, and the crash is injected through an
//! environment variable that tests on parallel threads would share. `cargo xtask test`
//! installs BuildGrid and PostgreSQL and sets `SLANGPACK_REQUIRE_BUILDGRID`; a plain
//! `cargo test` without them skips.

use slangpack_tests::farm::Farm;
use slangpack_writer::bake::{bake, BakeConfig, BakeOutcome};
use slangpack_writer::remote::RemoteSettings;
use slangpack_writer::worker::{Limits, FAULT_ENV};
use slangpack_writer::BakeError;
use std::path::Path;
use std::time::Duration;

const COMMON: &str = "float4 tint(float4 c, float k) { return c * k; }\n";

/// One permutation, `salt` making its action one of its own.
fn single(salt: &str) -> String {
    format!(
        "RWStructuredBuffer<float4> gOut;\nuniform float4 gTint;\n\
         [shader(\"compute\")][numthreads(1,1,1)]\nvoid main() {{ gOut[0] = gTint * {salt}; }}\n"
    )
}

/// 100 permutations (two axes of ten values) of a program importing `common`.
fn hundred(salt: &str) -> String {
    permutations(10, salt)
}

/// `n * n` permutations (two axes of `n` values) of a program importing `common`.
fn permutations(n: usize, salt: &str) -> String {
    let values: Vec<String> = (0..n).map(|v| v.to_string()).collect();
    format!(
        "//! slangpack-axis A {v}\n//! slangpack-axis B {v}\nimport common;\n\
         RWStructuredBuffer<float4> gOut;\nuniform float4 gTint;\n\
         [shader(\"compute\")][numthreads(1,1,1)]\n\
         void main() {{ gOut[0] = tint(gTint, float(A * 10 + B) + {salt}); }}\n",
        v = values.join(" ")
    )
}

fn config(dir: &Path, inputs: &[&str], farm: Option<String>) -> BakeConfig {
    let mut config = BakeConfig::new(inputs.iter().map(|i| dir.join(i)).collect());
    config.root = Some(dir.to_path_buf());
    config.jobs = 4;
    config.limits = Limits {
        timeout: Duration::from_secs(60),
        memory_mib: None,
    };
    config.remote = farm.map(|url| RemoteSettings {
        url,
        options: slangpack_writer::cache::CacheOptions::default(),
        fallback: true,
        batch: None,
        platform: Vec::new(),
    });
    config
}

/// How many blobs in the CAS directory `objects` (BuildGrid's disk storage) are one-entry
/// packages.
fn one_entry_packages(objects: &Path) -> usize {
    let mut count = 0;
    for dir in std::fs::read_dir(objects).unwrap().flatten() {
        for blob in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let bytes = std::fs::read(blob.path()).unwrap();
            let package = slangpack_reader::Package::from_bytes(&bytes);
            count += usize::from(package.is_ok_and(|p| p.len() == 1));
        }
    }
    count
}

/// Asserts that `outcome` holds every entry of `reference` but `missing`, in key order.
fn assert_all_but(outcome: &BakeOutcome, reference: &BakeOutcome, missing: &str) {
    let keys: Vec<&str> = outcome.entries.iter().map(|e| e.key.as_str()).collect();
    let expected: Vec<&str> = (reference.entries.iter())
        .map(|e| e.key.as_str())
        .filter(|k| *k != missing)
        .collect();
    assert_eq!(keys, expected);
}

fn baked(config: &BakeConfig) -> BakeOutcome {
    bake(config).expect("the bake succeeds")
}

#[test]
fn a_build_farm_bakes_what_this_machine_bakes() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = std::time::Instant::now();
    let Some(mut farm) = Farm::start(&tmp.path().join("farm"), 2) else {
        return;
    };
    eprintln!("farm started: {:?}", clock.elapsed());
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("common.slang"), COMMON).unwrap();
    std::fs::write(src.join("perm.slang"), hundred("0.0")).unwrap();

    // 100 permutations through the farm: the bytes of a bake on this machine.
    let clock = std::time::Instant::now();
    let local = baked(&config(&src, &["perm.slang"], None));
    assert_eq!(local.entries.len(), 100);
    eprintln!("local bake of 100: {:?}", clock.elapsed());
    let clock = std::time::Instant::now();
    let leases = farm.leases();
    let remote = baked(&config(&src, &["perm.slang"], Some(farm.url())));
    eprintln!("farm bake of 100: {:?}", clock.elapsed());
    // Batched: 4 actions in flight, of 25 permutations each.
    let actions = farm.leases() - leases;
    assert!(
        (4..100).contains(&actions),
        "{actions} actions for 100 permutations"
    );
    assert!(
        remote.executor_warnings.is_empty(),
        "{:?}",
        remote.executor_warnings
    );
    assert!(
        remote.cache_warnings.is_empty(),
        "{:?}",
        remote.cache_warnings
    );
    assert_eq!((remote.compiled, remote.from_cache), (100, 0));
    assert!(
        remote.bytes == local.bytes,
        "a remote bake differs from a local one"
    );
    // The farm's entries reach the cache as they came, once checked: its CAS holds one
    // package per permutation (a bake that compressed each entry again for the cache would
    // leave two).
    let objects = tmp.path().join("farm/cas/cas/objects");
    assert_eq!(one_entry_packages(&objects), 100);
    for bot in 0..2 {
        let fetched = std::fs::read_dir(tmp.path().join(format!("farm/bot-{bot}/store")))
            .map_or(0, Iterator::count);
        assert!(fetched > 0, "bot {bot} ran nothing: {}", farm.bot_log(bot));
    }

    // The second bake finds every permutation in the farm's action cache.
    let clock = std::time::Instant::now();
    let again = baked(&config(&src, &["perm.slang"], Some(farm.url())));
    eprintln!("warm farm bake of 100: {:?}", clock.elapsed());
    assert_eq!((again.compiled, again.from_cache), (0, 100));
    assert!(again.bytes == local.bytes);

    // A batch whose process crashes is sent again one permutation per action: only the
    // crashing permutation fails. A second bake, batched otherwise, finds the others in the
    // cache and compiles that one: the bytes of a bake on this machine.
    std::fs::write(src.join("batch.slang"), permutations(4, "5.0")).unwrap();
    let reference = baked(&config(&src, &["batch.slang"], None));
    let crash_key = reference.entries[5].key.clone();
    let batched = |batch: usize| {
        let mut config = config(&src, &["batch.slang"], Some(farm.url()));
        config.keep_going = true;
        if let Some(remote) = config.remote.as_mut() {
            remote.batch = Some(batch);
        }
        config
    };
    std::env::set_var(FAULT_ENV, format!("{crash_key}=abort"));
    let clock = std::time::Instant::now();
    let leases = farm.leases();
    let crashed = bake(&batched(8));
    std::env::remove_var(FAULT_ENV);
    let crashed = crashed.expect("a crash in a batch does not fail the bake");
    eprintln!("batched bake with a crash: {:?}", clock.elapsed());
    // Two actions of eight, then the eight of the crashed one each on its own.
    assert_eq!(farm.leases() - leases, 2 + 8);
    assert!(
        matches!(
            crashed.failures.as_slice(),
            [BakeError::Worker { key, failure, .. }] if *key == crash_key && failure.contains("on the build farm")
        ),
        "{:?}",
        crashed.failures
    );
    assert_all_but(&crashed, &reference, &crash_key);
    let rebaked = baked(&batched(3));
    assert_eq!((rebaked.compiled, rebaked.from_cache), (1, 15));
    assert!(rebaked.bytes == reference.bytes);

    // A permutation that hangs inside a batch: the job process stops itself after that
    // permutation's limit (not the batch's) and reports the ones before it; the hanging one
    // fails at once (one timeout, not two) and the ones after it go again as one action.
    std::fs::write(src.join("hang.slang"), permutations(2, "6.0")).unwrap();
    let reference = baked(&config(&src, &["hang.slang"], None));
    let hang_key = reference.entries[1].key.clone();
    let mut hanging = config(&src, &["hang.slang"], Some(farm.url()));
    hanging.keep_going = true;
    hanging.limits.timeout = Duration::from_secs(3);
    if let Some(remote) = hanging.remote.as_mut() {
        remote.batch = Some(4);
    }
    std::env::set_var(FAULT_ENV, format!("{hang_key}=hang"));
    let clock = std::time::Instant::now();
    let leases = farm.leases();
    let hung = bake(&hanging);
    std::env::remove_var(FAULT_ENV);
    let hung = hung.expect("a hang in a batch does not fail the bake");
    eprintln!("batched bake with a hang: {:?}", clock.elapsed());
    assert_eq!(farm.leases() - leases, 1 + 1);
    assert!(
        matches!(
            hung.failures.as_slice(),
            [BakeError::Worker { key, failure, .. }]
                if *key == hang_key && failure.contains("time limit of 3 s")
        ),
        "{:?}",
        hung.failures
    );
    assert_eq!(hung.entries.len(), 3);
    assert_all_but(&hung, &reference, &hang_key);
    assert!(clock.elapsed() < Duration::from_secs(30));

    // A compile error and a compiler crash on the farm fail their own permutations.
    std::fs::write(src.join("ok.slang"), single("1.0")).unwrap();
    std::fs::write(
        src.join("bad.slang"),
        "[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { undefined(); }\n",
    )
    .unwrap();
    std::fs::write(src.join("crash.slang"), single("2.0")).unwrap();
    std::env::set_var(FAULT_ENV, "crash=abort");
    let clock = std::time::Instant::now();
    let mut failing = config(
        &src,
        &["ok.slang", "bad.slang", "crash.slang"],
        Some(farm.url()),
    );
    failing.keep_going = true;
    let outcome = bake(&failing).unwrap();
    std::env::remove_var(FAULT_ENV);
    eprintln!("bake with failures: {:?}", clock.elapsed());
    let keys: Vec<&str> = outcome.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["ok"]);
    assert_eq!(outcome.failures.len(), 2, "{:?}", outcome.failures);
    assert!(
        outcome
            .failures
            .iter()
            .any(|f| matches!(f, BakeError::Compile { key, .. } if key == "bad")),
        "{:?}",
        outcome.failures
    );
    assert!(
        outcome.failures.iter().any(|f| matches!(
            f,
            BakeError::Worker { key, failure, .. } if key == "crash" && failure.contains("on the build farm")
        )),
        "{:?}",
        outcome.failures
    );

    // A bot killed mid-bake: its lease goes to the other bot, nothing is lost.
    std::fs::write(src.join("again.slang"), permutations(4, "3.0")).unwrap();
    let reference = baked(&config(&src, &["again.slang"], None));
    let clock = std::time::Instant::now();
    let url = farm.url();
    let scratch = tmp.path().join("farm/bot-0/scratch");
    let _ = std::fs::remove_dir_all(&scratch);
    let killed = std::thread::scope(|scope| {
        let bake = scope.spawn(|| bake(&config(&src, &["again.slang"], Some(url.clone()))));
        // Once bot 0 runs an action (its scratch directory exists), it is killed.
        let started = std::time::Instant::now();
        while !scratch.exists() && started.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(10));
        }
        farm.kill_bot(0);
        bake.join().unwrap()
    });
    let killed = killed.expect("a lost bot does not fail the bake");
    eprintln!("bake with a bot killed: {:?}", clock.elapsed());
    assert!(killed.failures.is_empty(), "{:?}", killed.failures);
    assert!(killed.bytes == reference.bytes);

    // A farm that is not there: one warning, and the bake compiles here.
    let clock = std::time::Instant::now();
    std::fs::write(src.join("perm.slang"), hundred("4.0")).unwrap();
    let port = slangpack_tests::checkout::free_port();
    let unreachable = baked(&config(
        &src,
        &["perm.slang"],
        Some(format!("grpc://127.0.0.1:{port}")),
    ));
    assert_eq!(
        unreachable.executor_warnings.len(),
        1,
        "{:?}",
        unreachable.executor_warnings
    );
    assert!(
        unreachable.cache_warnings.is_empty(),
        "{:?}",
        unreachable.cache_warnings
    );
    assert_eq!(unreachable.entries.len(), 100);
    eprintln!("bake with the farm out of reach: {:?}", clock.elapsed());
    let here = baked(&config(&src, &["perm.slang"], None));
    assert!(unreachable.bytes == here.bytes);
}

/// A manifest's `[remote]` table names the farm as `--remote-executor` does (the command
/// line's wins): for two programs, a farm out of reach costs one warning and local compiles (the same bytes as
/// without the table), and with `fallback = false` fails every permutation; a table whose
/// executor is no `grpc(s)://` URL is refused, naming the manifest. Needs no BuildGrid.
#[test]
fn a_manifest_names_the_build_farm() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::write(src.join("a.slang"), single("5.0")).unwrap();
    std::fs::write(src.join("b.slang"), single("6.0")).unwrap();
    let port = slangpack_tests::checkout::free_port();
    let manifest = |remote: &str| {
        format!("{remote}\n[[program]]\nsource = \"a.slang\"\n[[program]]\nsource = \"b.slang\"\n")
    };
    let bake_with = |remote: &str| {
        std::fs::write(src.join("shaders.toml"), manifest(remote)).unwrap();
        bake(&config(src, &["shaders.toml"], None))
    };
    let here = bake_with("").expect("a local bake");
    assert!(
        here.executor_warnings.is_empty(),
        "{:?}",
        here.executor_warnings
    );

    let farm = format!("[remote]\nexecutor = \"grpc://127.0.0.1:{port}\"\ntimeout = 5");
    let unreachable = bake_with(&farm).expect("the bake falls back");
    assert_eq!(
        unreachable.executor_warnings.len(),
        1,
        "{:?}",
        unreachable.executor_warnings
    );
    assert!(
        unreachable.executor_warnings[0].contains(&port.to_string()),
        "{:?}",
        unreachable.executor_warnings
    );
    assert_eq!(unreachable.compiled, 2);
    assert!(unreachable.bytes == here.bytes);

    let strict = bake_with(&format!("{farm}\nfallback = false"));
    match strict {
        Err(e) => assert!(e.to_string().contains("127.0.0.1"), "{e}"),
        Ok(outcome) => assert_eq!(outcome.failures.len(), 2, "{:?}", outcome.failures),
    }

    let wrong = bake_with("[remote]\nexecutor = \"http://127.0.0.1:1\"")
        .expect_err("an http:// executor is refused");
    let message = wrong.to_string();
    assert!(
        message.contains("shaders.toml") && message.contains("[remote]"),
        "{message}"
    );
}

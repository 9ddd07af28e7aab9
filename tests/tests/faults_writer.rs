//! Writer faults: an unwritable output, a full disk, a process killed mid-write and a
//! permutation that does not compile. Whatever happens, a package already at the output stays
//! intact and readable, and no partial file takes its place.
//!
//! Tests run as root, where permission bits stop nothing, so unwritable outputs are paths no
//! one can write: a path under a regular file (`ENOTDIR`), a path in `/proc`, and a path that
//! is a directory. The full disk is simulated two ways, both in a child process (this test
//! binary re-run with `FAULT_CHILD` set, see [`fault_child`]): a file-size limit
//! (`ulimit -f`, which makes `write` fail with `EFBIG` for root too, once the limit is reached,
//! like a disk filling mid-file), and, where the machine allows it, a real 64 KiB tmpfs mounted
//! in a private mount namespace (`unshare -m`), which fails with `ENOSPC`.

use slangpack_pack::{write_atomically, PackError};
use slangpack_reader::Package;
use slangpack_tests::walk::walk;
use slangpack_writer::bake::{bake_to_file, BakeConfig};
use slangpack_writer::BakeError;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders")
}

fn config(inputs: Vec<PathBuf>) -> BakeConfig {
    let mut config = BakeConfig::new(inputs);
    config.jobs = 2;
    config
}

/// A real package (the examples, `compress` as asked).
fn package_bytes(compress: bool) -> Vec<u8> {
    let mut c = config(vec![examples()]);
    c.compress = compress;
    slangpack_writer::bake::bake(&c)
        .expect("bake")
        .bytes
        .into_vec()
}

/// The names in `dir` other than `keep`.
fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    names.sort();
    names
}

/// The package at `path` is byte-for-byte `expected`, opens and walks.
fn intact(path: &Path, expected: &[u8]) {
    assert_eq!(std::fs::read(path).unwrap(), expected, "{}", path.display());
    walk(&Package::open(path).expect("the old package still opens"));
}

/// The child half of the process-level tests: a no-op unless `FAULT_CHILD` is set. Actions:
/// `write OUT NEW` (write file NEW's bytes over OUT atomically, print the outcome),
/// `write-zeros OUT MIB` (the same with MIB MiB of bytes: slow enough to be killed mid-write),
/// `full-disk DIR OLD NEW` (put OLD at DIR/p.slangpack, then try NEW over it; check OLD
/// survived and no temporary file is left; print the outcome).
#[test]
fn fault_child() {
    let Ok(action) = std::env::var("FAULT_CHILD") else {
        return;
    };
    let args: Vec<String> = action.split('\n').map(str::to_owned).collect();
    let report = |r: Result<(), PackError>| match r {
        Ok(()) => println!("CHILD OK"),
        Err(e) => println!("CHILD ERR {e}"),
    };
    match args[0].as_str() {
        "write" => report(write_atomically(
            Path::new(&args[1]),
            &std::fs::read(&args[2]).unwrap(),
        )),
        "write-zeros" => {
            let bytes = vec![0x5a; args[2].parse::<usize>().unwrap() << 20];
            report(write_atomically(Path::new(&args[1]), &bytes));
        }
        "full-disk" => {
            let dir = Path::new(&args[1]);
            let (old, new) = (
                std::fs::read(&args[2]).unwrap(),
                std::fs::read(&args[3]).unwrap(),
            );
            let out = dir.join("p.slangpack");
            write_atomically(&out, &old).expect("the old package fits");
            report(write_atomically(&out, &new));
            intact(&out, &old);
            assert_eq!(others(dir, &["p.slangpack"]), Vec::<String>::new());
            println!("CHILD CHECKED");
        }
        other => panic!("unknown FAULT_CHILD action {other:?}"),
    }
}

/// This test binary, re-run for [`fault_child`] with `action` (arguments separated by
/// newlines), through `sh -c PRELUDE`.
fn child(prelude: &str, action: &[&str]) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("{prelude} exec \"$@\""))
        .arg("sh")
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "fault_child", "--nocapture", "--test-threads=1"])
        .env("FAULT_CHILD", action.join("\n"));
    cmd
}

#[test]
fn an_output_under_a_regular_file_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let out = file.join("p.slangpack");
    let err = bake_to_file(&config(vec![examples()]), &out).expect_err("ENOTDIR");
    assert!(matches!(err, BakeError::Io { .. }), "{err}");
    assert!(
        err.to_string().contains("not-a-dir"),
        "names the path: {err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    assert_eq!(others(dir.path(), &["not-a-dir"]), Vec::<String>::new());
}

#[test]
fn an_output_in_proc_fails_for_root_too() {
    let bytes = package_bytes(true);
    let err = write_atomically(Path::new("/proc/slangpack-fault-test.slangpack"), &bytes)
        .expect_err("/proc takes no new files");
    assert!(matches!(err, PackError::Io { .. }), "{err}");
    assert!(!Path::new("/proc/slangpack-fault-test.slangpack").exists());
}

#[test]
fn an_output_that_is_a_directory_is_left_alone_without_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.slangpack");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("inside"), b"kept").unwrap();
    let err = write_atomically(&out, &package_bytes(true)).expect_err("rename over a directory");
    assert!(matches!(err, PackError::Io { .. }), "{err}");
    assert_eq!(std::fs::read(out.join("inside")).unwrap(), b"kept");
    assert_eq!(others(dir.path(), &["p.slangpack"]), Vec::<String>::new());
}

#[test]
fn a_disk_that_fills_mid_write_leaves_the_old_package() {
    // `ulimit -f 64` (64 blocks: 32 KiB in dash, 64 KiB in bash) with SIGXFSZ ignored: the
    // 89 KB package's write fails with EFBIG partway, for root too.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.slangpack");
    let old = package_bytes(true);
    std::fs::write(&out, &old).unwrap();
    let new_path = tempfile::NamedTempFile::new().unwrap();
    let new = package_bytes(false);
    assert!(new.len() > 64 << 10);
    std::fs::write(new_path.path(), &new).unwrap();
    let run = child(
        "trap '' XFSZ; ulimit -f 64 &&",
        &[
            "write",
            out.to_str().unwrap(),
            new_path.path().to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("CHILD ERR"), "the write failed: {stdout}");
    assert!(stdout.contains("File too large"), "{stdout}");
    intact(&out, &old);
    assert_eq!(
        others(dir.path(), &["p.slangpack"]),
        Vec::<String>::new(),
        "the partial temporary file was removed"
    );
}

#[test]
fn a_full_tmpfs_leaves_the_old_package() {
    // A real ENOSPC: a 64 KiB tmpfs in a private mount namespace (gone when the child exits).
    // Needs the privilege to mount; skipped, with a note, where that is refused.
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    std::fs::write(&old, package_bytes(true)).unwrap();
    std::fs::write(&new, package_bytes(false)).unwrap();
    let action = [
        "full-disk",
        mnt.to_str().unwrap(),
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ];
    let mut cmd = Command::new("unshare");
    cmd.args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(format!(
            "mount -t tmpfs -o size=64k tmpfs '{}' || exit 97; exec \"$@\"",
            mnt.display()
        ))
        .arg("sh")
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "fault_child", "--nocapture", "--test-threads=1"])
        .env("FAULT_CHILD", action.join("\n"));
    let run = match cmd.output() {
        Ok(run) => run,
        Err(e) => {
            eprintln!("skipped: cannot run unshare: {e}");
            return;
        }
    };
    if run.status.code() == Some(97) || (!run.status.success() && run.stdout.is_empty()) {
        eprintln!(
            "skipped: cannot mount a tmpfs here: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        return;
    }
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("CHILD ERR"), "{stdout}");
    assert!(stdout.contains("No space left on device"), "{stdout}");
    assert!(
        stdout.contains("CHILD CHECKED"),
        "old package intact, no temp: {stdout}"
    );
}

#[test]
fn a_writer_killed_mid_write_leaves_the_old_package() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.slangpack");
    let old = package_bytes(true);
    std::fs::write(&out, &old).unwrap();
    // 256 MiB: writing and syncing it takes long enough to kill the writer in between.
    let mut writer = child("", &["write-zeros", out.to_str().unwrap(), "256"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let temp = loop {
        let partial = std::fs::read_dir(dir.path()).unwrap().find_map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name != "p.slangpack" && e.metadata().is_ok_and(|m| m.len() > 0)).then_some(name)
        });
        if let Some(name) = partial {
            break name;
        }
        assert!(
            writer.try_wait().unwrap().is_none(),
            "the writer finished before it could be killed"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(1));
    };
    writer.kill().unwrap();
    writer.wait().unwrap();

    intact(&out, &old);
    // What a killed writer leaves: one hidden temporary file, never the package's name.
    let left = others(dir.path(), &["p.slangpack"]);
    assert_eq!(left, std::slice::from_ref(&temp));
    assert!(
        temp.starts_with(".slangpack-") && temp.ends_with(".tmp"),
        "{temp}"
    );
    assert!(std::fs::metadata(dir.path().join(&temp)).unwrap().len() < 256 << 20);
    // The leftover does not stand in the way of the next write.
    let new = package_bytes(false);
    write_atomically(&out, &new).unwrap();
    intact(&out, &new);
}

#[test]
fn a_permutation_that_fails_to_compile_is_named_and_the_old_package_kept() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir(&shaders).unwrap();
    let good = "RWStructuredBuffer<uint> o;\n[shader(\"compute\")][numthreads(1,1,1)]\n\
                void main() { o[0] = 1; }\n";
    std::fs::write(shaders.join("good.slang"), good).unwrap();
    std::fs::write(shaders.join("other.slang"), good).unwrap();
    let out = dir.path().join("p.slangpack");
    bake_to_file(&config(vec![shaders.clone()]), &out).expect("first bake");
    let old = std::fs::read(&out).unwrap();

    std::fs::write(
        shaders.join("other.slang"),
        "[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { undefinedOnPurpose(); }\n",
    )
    .unwrap();
    let err = bake_to_file(&config(vec![shaders.clone()]), &out).expect_err("compile error");
    match &err {
        BakeError::Compile {
            key, diagnostics, ..
        } => {
            assert_eq!(key, "other");
            assert!(diagnostics.contains("undefinedOnPurpose"), "{diagnostics}");
        }
        other => panic!("expected a compile error, got {other}"),
    }
    intact(&out, &old);

    let mut keep_going = config(vec![shaders]);
    keep_going.keep_going = true;
    let outcome = bake_to_file(&keep_going, &out).expect("the good permutation bakes");
    assert_eq!(outcome.failures.len(), 1);
    assert!(
        matches!(&outcome.failures[0], BakeError::Compile { key, .. } if key == "other"),
        "{:?}",
        outcome.failures
    );
    let package = Package::open(&out).unwrap();
    let keys: Vec<&str> = package.keys().collect();
    assert_eq!(keys, ["good"]);
    assert_eq!(
        others(dir.path(), &["p.slangpack", "shaders"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_corrupt_package_at_the_output_is_rebuilt_not_reused() {
    // `slangpack bake` reuses unchanged entries of the package already at the output
    // (`previous`); a damaged one must only mean its damaged entries are rebuilt.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.slangpack");
    let mut incremental = config(vec![examples()]);
    incremental.previous = Some(out.clone());
    let first = bake_to_file(&incremental, &out).expect("first bake");
    assert_eq!(first.reused, 0);
    let good = std::fs::read(&out).unwrap();
    assert_eq!(
        bake_to_file(&incremental, &out).unwrap().reused,
        4,
        "intact: all reused"
    );

    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last / 2] ^= 0x10;
    for damaged in [
        flipped,
        good[..good.len() / 2].to_vec(),
        b"not a package".to_vec(),
    ] {
        std::fs::write(&out, &damaged).unwrap();
        let outcome = bake_to_file(&incremental, &out).expect("rebake over a damaged package");
        // Entries load (and are checked) one by one: an intact entry of a damaged package may
        // be reused, a damaged one never.
        assert!(outcome.reused < 4, "a damaged entry was reused");
        intact(&out, &good);
    }
}

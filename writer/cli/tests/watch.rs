//! `slangpack bake --watch` as a child process, driven by edits to real shaders, and
//! `--depfile` read back by make.
//!
//! Nothing here sleeps for a fixed time to let something happen: every step polls for its
//! result (the watcher's next line on stderr, the package on disk) under a generous deadline,
//! so a loaded machine only makes the test slower.

mod common;

use common::{s, slangpack, text, write};
use slangpack_reader::Package;
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one step may take: a compile on a loaded 2-core machine, with room to spare.
const STEP: Duration = Duration::from_secs(180);

const COMMON: &str = "module common;\npublic static const uint SCALE = 2;\n";

fn program_a(extra_member: bool) -> String {
    let member = if extra_member {
        "    float4 tint;\n"
    } else {
        ""
    };
    format!(
        "import common;\nstruct Params {{\n    float4 color;\n{member}}};\n\
         ConstantBuffer<Params> gParams;\nRWStructuredBuffer<float4> gOut;\n\
         [shader(\"compute\")][numthreads(8, 1, 1)]\n\
         void mainA(uint3 id : SV_DispatchThreadID) {{ gOut[id.x] = gParams.color * SCALE; }}\n"
    )
}

const PROGRAM_B: &str = "RWStructuredBuffer<uint> gCount;\n\
    [shader(\"compute\")][numthreads(1, 1, 1)]\nvoid mainB() { gCount[0] = 7; }\n";

const PROGRAM_C: &str = "RWStructuredBuffer<uint> gOther;\n\
    [shader(\"compute\")][numthreads(4, 1, 1)]\nvoid mainC() { gOther[0] = 9; }\n";

/// A running `bake --watch`, killed when dropped; its stderr lines are collected.
struct Watcher {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Watcher {
    fn start(args: &[&str]) -> Watcher {
        let mut child = Command::new(env!("CARGO_BIN_EXE_slangpack"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("slangpack bake --watch starts");
        let stderr = child.stderr.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                sink.lock().unwrap().push(line);
            }
        });
        Watcher { child, lines }
    }

    /// Waits for a line after the first `seen` that satisfies `matches`; returns its index.
    fn wait_for(&mut self, seen: usize, what: &str, matches: impl Fn(&str) -> bool) -> usize {
        let deadline = Instant::now() + STEP;
        loop {
            {
                let lines = self.lines.lock().unwrap();
                if let Some(i) = lines.iter().skip(seen).position(|l| matches(l)) {
                    return seen + i;
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the watcher exited ({status}) before {what}:\n{}",
                    self.log()
                );
            }
            assert!(
                Instant::now() < deadline,
                "no {what} within {STEP:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn count(&self) -> usize {
        self.lines.lock().unwrap().len()
    }

    fn log(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keys(package: &Path) -> Vec<String> {
    let package = Package::open(package).unwrap();
    package.keys().map(str::to_string).collect()
}

fn spirv(package: &Path, key: &str) -> Vec<u32> {
    let package = Package::open(package).unwrap();
    let entry = package.load(key).unwrap();
    let spirv = entry.entry_points().next().unwrap().spirv().to_vec();
    spirv
}

fn reflection(package: &Path, key: &str) -> Vec<u8> {
    let package = Package::open(package).unwrap();
    let entry = package.load(key).unwrap();
    let bytes = entry.reflection().unwrap().as_bytes().to_vec();
    bytes
}

#[test]
fn watch_rebakes_changed_entries_keeps_the_last_good_package_and_follows_new_programs() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    write(&shaders, "common.slang", COMMON);
    write(&shaders, "a.slang", program_a(false));
    let b = write(&shaders, "b.slang", PROGRAM_B);
    let out = dir.path().join("out.slangpack");
    let depfile = dir.path().join("out.d");
    let mut watcher = Watcher::start(&[
        "bake",
        "--watch",
        s(&shaders),
        "-o",
        s(&out),
        "--depfile",
        s(&depfile),
        "-j",
        "1",
    ]);
    let mut seen = watcher.wait_for(0, "the first bake", |l| l.starts_with("baked 2 of 2")) + 1;
    assert_eq!(keys(&out), ["a", "b"]);
    let deps = std::fs::read_to_string(&depfile).unwrap();
    let canonical = shaders.canonicalize().unwrap();
    for name in ["a.slang", "b.slang", "common.slang"] {
        assert!(
            deps.contains(s(&canonical.join(name))),
            "{name} in the depfile:\n{deps}"
        );
    }
    let (a_code, b_code) = (spirv(&out, "a"), spirv(&out, "b"));

    // An imported module changes: only the entry importing it is compiled.
    write(
        &shaders,
        "common.slang",
        COMMON.replace("SCALE = 2", "SCALE = 3"),
    );
    seen = watcher.wait_for(seen, "a rebake of a", |l| l.starts_with("rebaked")) + 1;
    let line = watcher.lines.lock().unwrap()[seen - 1].clone();
    assert!(line.contains("1 of 2 entries [a]"), "{line}");
    assert_ne!(spirv(&out, "a"), a_code, "a's code follows the edit");
    assert_eq!(spirv(&out, "b"), b_code, "b is untouched");

    // A failing edit: Slang's diagnostics, and the last good package stays as it was.
    let good = std::fs::read(&out).unwrap();
    write(
        &shaders,
        "b.slang",
        PROGRAM_B.replace("= 7;", "= undefinedThing;"),
    );
    let failed = watcher.wait_for(seen, "the failure", |l| l.contains("keeping the last good"));
    let log = watcher.lines.lock().unwrap()[seen..failed].join("\n");
    assert!(
        log.contains("undefinedThing"),
        "Slang's diagnostics:\n{log}"
    );
    assert!(
        log.contains("b.slang"),
        "Slang's diagnostics name the file:\n{log}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), good, "the package is kept");
    seen = failed + 1;

    // Fixed again, with a layout change; a program added to the directory becomes an entry.
    write(&shaders, "b.slang", PROGRAM_B);
    write(&shaders, "a.slang", program_a(true));
    write(&shaders, "c.slang", PROGRAM_C);
    let before = reflection(&out, "a");
    let deadline = Instant::now() + STEP;
    while keys(&out) != ["a", "b", "c"] || reflection(&out, "a") == before {
        assert!(Instant::now() < deadline, "no a+b+c:\n{}", watcher.log());
        watcher.wait_for(seen, "a rebake", |l| l.starts_with("rebaked"));
        seen = watcher.count();
    }

    // A deleted program leaves the package.
    std::fs::remove_file(&b).unwrap();
    let deadline = Instant::now() + STEP;
    while keys(&out) != ["a", "c"] {
        assert!(Instant::now() < deadline, "b stays:\n{}", watcher.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    // The depfile is written right after the package.
    let deadline = Instant::now() + STEP;
    loop {
        let deps = std::fs::read_to_string(&depfile).unwrap();
        if !deps.contains("b.slang") && deps.contains("c.slang") {
            break;
        }
        assert!(Instant::now() < deadline, "{deps}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!watcher.log().contains("panicked"), "{}", watcher.log());
}

/// The depfile, read by make: a package newer than its dependencies is up to date, and a
/// touched dependency (in a directory whose name has a space and a `#`) makes it stale. Make
/// stops with "No rule to make target" when a path is escaped wrongly.
#[test]
fn make_reads_the_depfile() {
    if Command::new("make").arg("--version").output().is_err() {
        eprintln!("make is not installed; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("my shaders #1");
    write(
        &shaders,
        "lib dir/common.slang",
        "static const uint SCALE = 2;\n",
    );
    let program = write(
        &shaders,
        "a.slang",
        program_a(false).replace("import common;", "#include \"lib dir/common.slang\""),
    );
    let out = dir.path().join("out.slangpack");
    let depfile = dir.path().join("out.d");
    let bake = slangpack(&["bake", s(&program), "-o", s(&out), "--depfile", s(&depfile)]);
    assert!(bake.status.success(), "{}", text(&bake.stderr));
    let deps = std::fs::read_to_string(&depfile).unwrap();
    assert!(
        deps.contains("my\\ shaders\\ \\#1/lib\\ dir/common.slang"),
        "{deps}"
    );
    let makefile = write(
        dir.path(),
        "Makefile",
        format!(
            "{}:\n\t@echo stale\n-include out.d\n",
            s(&out.canonicalize().unwrap()).replace(' ', "\\ ")
        ),
    );
    let make = |expect: i32| {
        let run = Command::new("make")
            .args(["-q", "-f", s(&makefile)])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            run.status.code(),
            Some(expect),
            "make -q: {}{}",
            text(&run.stdout),
            text(&run.stderr)
        );
    };
    // Dependencies are older than the package.
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for file in [&program, &shaders.join("lib dir/common.slang")] {
        std::fs::File::options()
            .write(true)
            .open(file)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    make(0);
    // A dependency newer than the package.
    std::fs::File::options()
        .write(true)
        .open(shaders.join("lib dir/common.slang"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() + Duration::from_secs(3600))
        .unwrap();
    make(1);
}

/// Polls `reloader` until the package is replaced; returns the reload.
fn next_reload(
    reloader: &mut slangpack_reader::Reloader,
    watcher: &Watcher,
) -> slangpack_reader::Reload {
    let deadline = Instant::now() + STEP;
    loop {
        if let Some(reload) = reloader.reload().expect("the new package opens") {
            return reload;
        }
        assert!(
            Instant::now() < deadline,
            "no new package:\n{}",
            watcher.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What an engine sees through the reader's `Reloader` while `bake --watch` runs: a layout
/// edit is a layout change with the new buffer size, a body edit a change of code only, and a
/// failing edit no change at all.
#[test]
fn the_reloader_sees_what_watch_rebakes() {
    use slangpack_reader::ChangeKind;
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    write(&shaders, "common.slang", COMMON);
    write(&shaders, "a.slang", program_a(false));
    write(&shaders, "b.slang", PROGRAM_B);
    let out = dir.path().join("out.slangpack");
    let mut watcher = Watcher::start(&["bake", "--watch", s(&shaders), "-o", s(&out), "-j", "1"]);
    let seen = watcher.wait_for(0, "the first bake", |l| l.starts_with("baked 2 of 2")) + 1;
    let mut reloader = slangpack_reader::Reloader::open(&out).unwrap();
    let size = |package: &Package| {
        let entry = package.load("a").unwrap();
        let bind = entry.bind();
        bind.buffer("gParams").map(|layout| layout.size)
    };
    assert_eq!(size(reloader.package()), Some(16));

    // A new member: the layout changed, and the new package says how.
    write(&shaders, "a.slang", program_a(true));
    let reload = next_reload(&mut reloader, &watcher);
    assert_eq!(
        reload.change("a"),
        Some(ChangeKind::Layout),
        "{:?}",
        reload.changes()
    );
    assert_eq!(reload.change("b"), None, "{:?}", reload.changes());
    assert_eq!(size(reloader.package()), Some(32));
    // The old package is still valid and still says 16.
    assert_eq!(size(reload.previous()), Some(16));
    drop(reload);

    // A constant in an imported module: the code changed, the layout did not.
    write(
        &shaders,
        "common.slang",
        COMMON.replace("SCALE = 2", "SCALE = 5"),
    );
    let reload = next_reload(&mut reloader, &watcher);
    assert_eq!(reload.changes().len(), 1, "{:?}", reload.changes());
    assert_eq!(reload.change("a"), Some(ChangeKind::Code));
    drop(reload);

    // A failing edit replaces nothing: the reloader keeps seeing the same file.
    let before = watcher.count().max(seen);
    write(
        &shaders,
        "a.slang",
        program_a(true).replace("SCALE", "NOT_DECLARED"),
    );
    watcher.wait_for(before, "the failure", |l| {
        l.contains("keeping the last good")
    });
    assert!(!reloader.changed_on_disk());
    assert!(reloader.reload().unwrap().is_none());
    assert_eq!(reloader.generation(), 2);
}

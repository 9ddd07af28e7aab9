//! The shader loop end to end: `slangpack bake --watch` and the reload example
//! (`examples/reload`, binary `slangpack-reload`) run as child processes; the test edits a real
//! shader and the example, polling the package through the reader's `Reloader`, reports the
//! layout change with the new buffer size, then a change of code only.
//!
//! Both binaries are the ones cargo builds beside this test (the whole workspace's tests build
//! them; alone: `cargo build --bin slangpack --bin slangpack-bake --bin slangpack-reload`, as
//! `slangpack bake` runs `slangpack-bake`). Every step polls under a generous deadline; nothing
//! waits a fixed time.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(180);

fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe.parent().unwrap().join("..").join(name);
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build --bin {name}`",
        path.display()
    );
    path
}

/// A child process whose output lines are collected; killed when dropped.
struct Running {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Running {
    fn start(mut command: Command, stderr: bool) -> Running {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(if stderr {
                Stdio::null()
            } else {
                Stdio::piped()
            })
            .stderr(if stderr {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .unwrap();
        let pipe: Box<dyn std::io::Read + Send> = if stderr {
            Box::new(child.stderr.take().unwrap())
        } else {
            Box::new(child.stdout.take().unwrap())
        };
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                sink.lock().unwrap().push(line);
            }
        });
        Running { child, lines }
    }

    fn wait_for(&self, line: &str, other: &Running) {
        let deadline = Instant::now() + DEADLINE;
        while !self.lines.lock().unwrap().iter().any(|l| l == line) {
            assert!(
                Instant::now() < deadline,
                "no line {line:?}:\n{}\n--- the other process:\n{}",
                self.lines.lock().unwrap().join("\n"),
                other.lines.lock().unwrap().join("\n")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn shader(members: &str, scale: u32) -> String {
    format!(
        "struct Params {{ float4 color; {members} }};\nConstantBuffer<Params> gParams;\n\
         RWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(8, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {{ gOut[id.x] = gParams.color * {scale}; }}\n"
    )
}

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !done() {
        assert!(Instant::now() < deadline, "no {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_edit_under_bake_watch_reaches_the_reload_example() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir(&shaders).unwrap();
    let program = shaders.join("tint.slang");
    std::fs::write(&program, shader("", 2)).unwrap();
    let out: &Path = &dir.path().join("tint.slangpack");

    // `slangpack bake` runs the `slangpack-bake` beside it.
    binary("slangpack-bake");
    let mut bake = Command::new(binary("slangpack"));
    bake.args(["bake", "--watch", "-j", "1", "-o"])
        .arg(out)
        .arg(&shaders);
    let watch = Running::start(bake, true);
    wait_until("first bake", || out.exists());

    let mut example = Command::new(binary("slangpack-reload"));
    example.arg(out);
    let reload = Running::start(example, false);
    reload.wait_for("  tint buffer gParams 16 bytes", &watch);

    std::fs::write(&program, shader("float4 tint;", 2)).unwrap();
    reload.wait_for("reload 1: 1 changed", &watch);
    reload.wait_for("  tint layout", &watch);
    reload.wait_for("  tint buffer gParams 32 bytes", &watch);

    std::fs::write(&program, shader("float4 tint;", 3)).unwrap();
    reload.wait_for("reload 2: 1 changed", &watch);
    reload.wait_for("  tint code", &watch);

    // A failing edit: the watcher keeps the package, the example sees no reload.
    std::fs::write(
        &program,
        shader("float4 tint;", 3).replace("* 3", "* missing"),
    )
    .unwrap();
    watch.wait_for(
        &format!(
            "error: bake failed after a change to {}; keeping the last good {}",
            program.canonicalize().unwrap().display(),
            out.display()
        ),
        &reload,
    );
    std::fs::write(&program, shader("float4 tint; float4 more;", 3)).unwrap();
    reload.wait_for("reload 3: 1 changed", &watch);
    reload.wait_for("  tint buffer gParams 48 bytes", &watch);
    assert!(
        !reload
            .lines
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("refused")),
        "{}",
        reload.lines.lock().unwrap().join("\n")
    );
}

//! The reload example as a child process, watching a package that is rebaked (with the
//! writer's `bake_to_file`, what `slangpack bake --watch` calls for each rebake) after edits
//! to a real shader: it must report a layout change with the new buffer size, then a change of
//! code only, then exit after the requested number of reloads. Steps poll under generous
//! deadlines; nothing waits a fixed time.

use slangpack_writer::bake::{bake_to_file, BakeConfig};
use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(180);

fn shader(members: &str, scale: u32) -> String {
    format!(
        "struct Params {{ float4 color; {members} }};\nConstantBuffer<Params> gParams;\n\
         RWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(8, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {{ gOut[id.x] = gParams.color * {scale}; }}\n"
    )
}

fn bake(program: &Path, out: &Path) {
    let mut config = BakeConfig::new(vec![program.to_path_buf()]);
    config.jobs = 1;
    config.previous = out.exists().then(|| out.to_path_buf());
    bake_to_file(&config, out).expect("the shader bakes");
}

fn wait_for(lines: &Mutex<Vec<String>>, line: &str) {
    let deadline = Instant::now() + DEADLINE;
    while !lines.lock().unwrap().iter().any(|l| l == line) {
        assert!(
            Instant::now() < deadline,
            "no line {line:?} in:\n{}",
            lines.lock().unwrap().join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_example_reports_layout_and_code_changes() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("tint.slang");
    let out = dir.path().join("tint.slangpack");
    std::fs::write(&program, shader("", 2)).unwrap();
    bake(&program, &out);

    let mut child = Command::new(env!("CARGO_BIN_EXE_slangpack-reload"))
        .arg(&out)
        .args(["--reloads", "2"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            sink.lock().unwrap().push(line.unwrap());
        }
    });
    wait_for(&lines, "  tint buffer gParams 16 bytes");

    std::fs::write(&program, shader("float4 tint;", 2)).unwrap();
    bake(&program, &out);
    wait_for(&lines, "reload 1: 1 changed");
    wait_for(&lines, "  tint layout");
    wait_for(&lines, "  tint buffer gParams 32 bytes");

    std::fs::write(&program, shader("float4 tint;", 3)).unwrap();
    bake(&program, &out);
    wait_for(&lines, "reload 2: 1 changed");
    wait_for(&lines, "  tint code");

    let deadline = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the example did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    reader.join().unwrap();
    let lines = lines.lock().unwrap();
    // After a code-only change the example prints no layout.
    let code = lines.iter().position(|l| l == "  tint code").unwrap();
    assert_eq!(lines.len(), code + 1, "{}", lines.join("\n"));
}

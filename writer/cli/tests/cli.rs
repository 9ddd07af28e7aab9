//! The `slangpack` binary, run as a user would.

mod common;

use common::{examples, slangpack, text};

#[test]
fn bake_dump_verify_extract_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ex.slangpack");
    let out_s = out.to_str().unwrap();
    let bake = slangpack(&["bake", examples().to_str().unwrap(), "-o", out_s, "-j", "2"]);
    assert_eq!(bake.status.code(), Some(0), "{}", text(&bake.stderr));
    assert!(
        text(&bake.stderr).contains("baked 4 entries"),
        "{}",
        text(&bake.stderr)
    );
    // The examples declare what they need: a newcomer's first bake prints no Slang warning.
    assert!(
        !text(&bake.stderr).contains("warning"),
        "{}",
        text(&bake.stderr)
    );

    let dump = slangpack(&["dump", out_s]);
    assert_eq!(dump.status.code(), Some(0));
    let summary = text(&dump.stdout);
    for expected in [
        "entry pbr",
        "vertexMain",
        "set 1 binding 1",
        "gScene.material.textures.albedo",
        "threads 8x8x1",
    ] {
        assert!(
            summary.contains(expected),
            "dump lacks {expected:?}:\n{summary}"
        );
    }

    let json = slangpack(&["dump", "--json", out_s]);
    assert_eq!(json.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let entries = doc["entries"].as_array().unwrap();
    let blur = entries.iter().find(|e| e["key"] == "blur").unwrap();
    let ep = &blur["entry_points"][0];
    assert_eq!(ep["name"], "blurMain");
    assert_eq!(ep["stage"], "compute");
    assert_eq!(ep["spirv_entry"], "main");
    assert_eq!(ep["thread_group_size"], serde_json::json!([8, 8, 1]));
    assert!(ep["spirv_words"].as_u64().unwrap() > 100);
    let dest = blur["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "gDestination")
        .unwrap();
    assert_eq!(dest["kind"], "storage_image");
    assert_eq!(dest["image_format"], "rgba16f");
    assert_eq!(dest["count"], 1);
    assert_eq!(dest["stages"], serde_json::json!(["compute"]));
    let push = &blur["push_constants"][0];
    assert_eq!(push["size"], 24);
    assert_eq!(push["members"][1]["path"], "radius");
    let bindless = entries.iter().find(|e| e["key"] == "bindless").unwrap();
    assert_eq!(bindless["bindings"][0]["count"], "unbounded");
    let pbr = entries.iter().find(|e| e["key"] == "pbr").unwrap();
    let uv1 = pbr["vertex_inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "input.uv1")
        .unwrap();
    assert_eq!(
        (uv1["semantic"].as_str(), uv1["semantic_index"].as_u64()),
        (Some("TEXCOORD"), Some(1))
    );
    assert_eq!(uv1["format"], "r32g32_sfloat");
    let gdraw = pbr["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["path"] == "gDraw")
        .unwrap();
    assert!(
        gdraw["set"].is_null() && gdraw["binding"].is_null(),
        "push constants have no set"
    );

    let verify = slangpack(&["verify", out_s]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));

    let spv = dir.path().join("blur.spv");
    let extract = slangpack(&[
        "extract",
        out_s,
        "--entry",
        "blur",
        "--entry-point",
        "blurMain",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert_eq!(extract.status.code(), Some(0), "{}", text(&extract.stderr));
    let bytes = std::fs::read(&spv).unwrap();
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes());
    assert_eq!(bytes.len() as u64, ep["spirv_words"].as_u64().unwrap() * 4);
}

#[test]
fn verify_rejects_a_corrupted_package_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.slangpack");
    let bake = slangpack(&[
        "bake",
        examples().join("blur.slang").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bake.status.code(), Some(0), "{}", text(&bake.stderr));
    let mut bytes = std::fs::read(&out).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&out, &bytes).unwrap();
    let verify = slangpack(&["verify", out.to_str().unwrap()]);
    assert_eq!(verify.status.code(), Some(1));
    let err = text(&verify.stderr);
    assert!(err.contains("error:") && !err.contains("panicked"), "{err}");
}

#[test]
fn compile_failure_exits_1_with_slang_diagnostics_and_keeps_the_old_package() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("s.slang");
    let out = dir.path().join("s.slangpack");
    std::fs::write(&shader, "RWStructuredBuffer<uint> o;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { o[0] = 1; }\n").unwrap();
    assert_eq!(
        slangpack(&[
            "bake",
            shader.to_str().unwrap(),
            "-o",
            out.to_str().unwrap()
        ])
        .status
        .code(),
        Some(0)
    );
    let before = std::fs::read(&out).unwrap();
    std::fs::write(
        &shader,
        "[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { o[0] = notDeclared; }\n",
    )
    .unwrap();
    let bake = slangpack(&[
        "bake",
        shader.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bake.status.code(), Some(1));
    let err = text(&bake.stderr);
    assert!(
        err.contains("error[E"),
        "Slang's own diagnostic code is shown: {err}"
    );
    assert!(
        err.contains("notDeclared") || err.contains("undefined identifier"),
        "{err}"
    );
    assert!(err.contains("permutation `s` failed"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(slangpack(&["bake"]).status.code(), Some(2));
    assert_eq!(slangpack(&["frobnicate"]).status.code(), Some(2));
    let bad = slangpack(&["bake", "x.slang", "-o", "y", "--conformance", "nocolon"]);
    assert_eq!(bad.status.code(), Some(2));
    // A missing input and inputs holding no shaders are the command line's fault, not a
    // program's (1 is for compile failures).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.slangpack");
    let missing = dir.path().join("missing.slang");
    let bake = slangpack(&[
        "bake",
        missing.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bake.status.code(), Some(2), "{}", text(&bake.stderr));
    assert!(
        text(&bake.stderr).contains("No such file"),
        "{}",
        text(&bake.stderr)
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let bake = slangpack(&["bake", empty.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(bake.status.code(), Some(2), "{}", text(&bake.stderr));
    assert!(!out.exists());
    // `bake --help` names manifests, permutation axes, colours and exit codes.
    let help = text(&slangpack(&["bake", "--help"]).stdout);
    for needle in ["manifest", "slangpack-axis", "NO_COLOR", "Exit status"] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}

/// The messages of the package tools say what to do: the operating system's reason for a
/// package that cannot be opened (and no meaningless byte offset), the keys a mistyped key
/// may have meant, the entry points an entry has; `dump --entry` shows one entry with member
/// types.
#[test]
fn package_tool_messages_name_the_reason_and_the_alternatives() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ex.slangpack");
    let out_s = out.to_str().unwrap();
    let bake = slangpack(&["bake", examples().to_str().unwrap(), "-o", out_s, "-j", "2"]);
    assert_eq!(bake.status.code(), Some(0), "{}", text(&bake.stderr));

    let missing = dir.path().join("nosuch.slangpack");
    let dump = slangpack(&["dump", missing.to_str().unwrap()]);
    assert_eq!(dump.status.code(), Some(1));
    let err = text(&dump.stderr);
    assert!(err.contains("No such file or directory"), "{err}");
    assert!(!err.contains("offset"), "{err}");

    let spv = dir.path().join("x.spv");
    let extract = slangpack(&[
        "extract",
        out_s,
        "--entry",
        "layered",
        "--entry-point",
        "x",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert_eq!(extract.status.code(), Some(1));
    let err = text(&extract.stderr);
    assert!(err.contains("did you mean \"layered/layered\""), "{err}");
    let extract = slangpack(&[
        "extract",
        out_s,
        "--entry",
        "pbr",
        "--entry-point",
        "vertexMian",
        "-o",
        spv.to_str().unwrap(),
    ]);
    let err = text(&extract.stderr);
    assert!(
        err.contains("(it has \"vertexMain\", \"fragmentMain\")"),
        "{err}"
    );
    let dump = slangpack(&["dump", out_s, "--entry", "blurr"]);
    assert_eq!(dump.status.code(), Some(1));
    assert!(
        text(&dump.stderr).contains("did you mean \"blur\""),
        "{}",
        text(&dump.stderr)
    );

    let dump = slangpack(&["dump", out_s, "--entry", "pbr"]);
    assert_eq!(dump.status.code(), Some(0));
    let summary = text(&dump.stdout);
    assert!(summary.contains("entry pbr"), "{summary}");
    assert!(!summary.contains("entry blur"), "{summary}");
    assert!(
        summary.contains("view.viewProjection  float4x4 row_major (matrix stride 16)"),
        "{summary}"
    );
    let json = slangpack(&["dump", "--json", out_s, "--entry", "pbr"]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let entries = doc["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    let members = entries[0]["buffers"][0]["members"].as_array().unwrap();
    assert!(members.iter().any(|m| m["type"] == "float3"), "{members:?}");
}

/// Colours follow the conventions: none when piped, none with `NO_COLOR` even under
/// `--color auto`, and `--color always` forces them.
#[test]
fn diagnostics_colours_follow_color_and_no_color() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("w.slang");
    // An unused variable of a different type than its initializer: Slang warns.
    std::fs::write(
        &shader,
        "RWStructuredBuffer<uint> o;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { int x = 1.5; o[0] = x; }\n",
    )
    .unwrap();
    let out = dir.path().join("w.slangpack");
    let run = |color: &str, no_color: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_slangpack"));
        command.args([
            "bake",
            shader.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        command.args(["--color", color, "--force"]);
        match no_color {
            Some(v) => command.env("NO_COLOR", v),
            None => command.env_remove("NO_COLOR"),
        };
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        text(&output.stderr)
    };
    let plain = run("auto", None);
    assert!(plain.contains("warning"), "Slang warns here: {plain}");
    assert!(!plain.contains('\x1b'), "piped: no colour");
    assert!(run("always", None).contains("\x1b[1;33m"), "forced");
    assert!(!run("never", None).contains('\x1b'));
    assert!(!run("auto", Some("1")).contains('\x1b'));
}

#[test]
fn manifest_axes_keep_going_and_stage_checks() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("perm.slang");
    std::fs::write(
        &shader,
        r#"
        RWStructuredBuffer<uint> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main() {
        #if QUALITY > 2
            gOut[0] = missingOnPurpose;
        #else
            gOut[0] = QUALITY * (FAST + 1);
        #endif
        }
        "#,
    )
    .unwrap();
    let manifest = dir.path().join("bake.toml");
    std::fs::write(
        &manifest,
        r#"
        [options]
        defines = { FAST = "0" }
        [[program]]
        source = "perm.slang"
        entry_points = ["main:compute"]
        axes = { QUALITY = ["1", "2", "3"] }
        "#,
    )
    .unwrap();
    let out = dir.path().join("p.slangpack");
    let strict = slangpack(&[
        "bake",
        manifest.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(
        text(&strict.stderr).contains("perm?FAST=0&QUALITY=3"),
        "{}",
        text(&strict.stderr)
    );
    assert!(!out.exists(), "nothing is written when a permutation fails");

    let lenient = slangpack(&[
        "bake",
        manifest.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--keep-going",
    ]);
    assert_eq!(
        lenient.status.code(),
        Some(1),
        "a left-out permutation still fails the exit code"
    );
    assert!(
        text(&lenient.stderr).contains("1 permutations failed"),
        "{}",
        text(&lenient.stderr)
    );
    let json = slangpack(&["dump", "--json", out.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let keys: Vec<&str> = doc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["perm?FAST=0&QUALITY=1", "perm?FAST=0&QUALITY=2"]);

    std::fs::write(
        &manifest,
        "[[program]]\nsource = \"perm.slang\"\nentry_points = [\"main:vertex\"]\n",
    )
    .unwrap();
    let mismatch = slangpack(&[
        "bake",
        manifest.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-D",
        "QUALITY=1",
        "-D",
        "FAST",
    ]);
    assert_eq!(mismatch.status.code(), Some(1));
    assert!(
        text(&mismatch.stderr).contains("declared [shader(\"compute\")]"),
        "{}",
        text(&mismatch.stderr)
    );
}

/// A compiler crash on one permutation (injected: the worker of `blur` segfaults) costs that
/// permutation: with `--keep-going` the package holds the other entries and the exit code is
/// 1; without it nothing is written. `--in-process` keeps the old behaviour for debugging.
#[test]
fn a_crashing_compile_worker_costs_one_permutation() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ex.slangpack");
    let shaders = examples();
    let bake = |extra: &[&str]| {
        let mut args = vec![
            "bake",
            shaders.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        std::process::Command::new(env!("CARGO_BIN_EXE_slangpack"))
            .args(&args)
            .env("SLANGPACK_WORKER_FAULT", "blur=segfault")
            .output()
            .unwrap()
    };
    let strict = bake(&[]);
    assert_eq!(strict.status.code(), Some(1));
    let stderr = text(&strict.stderr);
    assert!(
        stderr.contains("blur: the compile worker was killed by signal 11 (SIGSEGV)"),
        "{stderr}"
    );
    assert!(!out.exists());
    let kept = bake(&["--keep-going"]);
    assert_eq!(kept.status.code(), Some(1), "{}", text(&kept.stderr));
    assert!(
        text(&kept.stderr).contains("baked 3 entries"),
        "{}",
        text(&kept.stderr)
    );
    let dump = text(&slangpack(&["dump", out.to_str().unwrap()]).stdout);
    assert!(
        dump.contains("entry pbr") && !dump.contains("entry blur"),
        "{dump}"
    );
    // In process, the fault switch is not read: the bake succeeds.
    let in_process = bake(&["--in-process", "--force"]);
    assert_eq!(
        in_process.status.code(),
        Some(0),
        "{}",
        text(&in_process.stderr)
    );
}

/// Processes whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let parent = parent.to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .to_string();
            (ppid == parent).then_some(pid)
        })
        .collect()
}

/// Whether `pid` is a live process (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| Some(s.rsplit_once(')')?.1.split_whitespace().next()? != "Z"))
        .unwrap_or(false)
}

/// Interrupting a bake (Ctrl-C reaches the `slangpack` process; here SIGINT to it alone) or
/// killing it stops its compile workers with it and leaves no temporary file.
#[test]
fn an_interrupted_or_killed_bake_leaves_no_worker_and_no_temporary_file() {
    if !cfg!(target_os = "linux") {
        return;
    }
    for signal in ["-INT", "-KILL"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("ex.slangpack");
        let mut bake = std::process::Command::new(env!("CARGO_BIN_EXE_slangpack"))
            .args([
                "bake",
                examples().to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .args(["-j", "2", "--keep-going"])
            .env("SLANGPACK_WORKER_FAULT", "blur=hang,pbr=hang")
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let workers = loop {
            let workers = children_of(bake.id());
            if workers.len() == 2 || started.elapsed().as_secs() > 60 {
                break workers;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert_eq!(workers.len(), 2, "the bake started its workers");
        // Let the workers reach the hanging jobs.
        std::thread::sleep(std::time::Duration::from_millis(500));
        let kill = std::process::Command::new("kill")
            .args([signal, &bake.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = bake.wait().unwrap();
        assert!(!status.success());
        let started = std::time::Instant::now();
        while workers.iter().any(|&w| alive(w)) && started.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(
            !workers.iter().any(|&w| alive(w)),
            "{signal}: workers {workers:?} outlived the bake"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{signal}: left behind {left:?}");
    }
}

/// The README's quickstart runs as written: each `cargo run -q -p slangpack-cli -- ...` line
/// of its first shell block, with this build's binary, in a directory that has the
/// repository's `examples/` (`cargo xtask demo`, the provisioning, has run for this test).
#[test]
fn the_readme_quickstart_commands_run_as_written() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"),
    )
    .unwrap();
    let quickstart = &readme[readme.find("## Quickstart").expect("a quickstart")..];
    let start = quickstart.find("```sh\n").expect("a shell block") + "```sh\n".len();
    let block = &quickstart[start..start + quickstart[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(examples().join(".."), dir.path().join("examples")).unwrap();
    let prefix = "cargo run -q -p slangpack-cli -- ";
    let mut ran = 0;
    for line in block.lines().filter_map(|l| l.strip_prefix(prefix)) {
        let args: Vec<&str> = line.split_whitespace().collect();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_slangpack"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(output.status.success(), "{line}: {}", text(&output.stderr));
        if args[0] == "dump" {
            assert!(text(&output.stdout).contains("entry pbr"), "{line}");
        }
        ran += 1;
    }
    assert_eq!(ran, 3, "bake, dump and header");
    let header = std::fs::read_to_string(dir.path().join("pbr_bind.h")).unwrap();
    assert!(header.contains("static_assert"), "{header}");
}

//! The package subcommands on a package made without Slang (by the format's own builder):
//! these run in the `slangpack` binary built with or without the `slang` feature, and CI runs
//! them with `--no-default-features` before Slang or libclang exist on the machine.

use slangpack_format::{
    EntryDesc, EntryPointDesc, EntryPointLayout, PackageBuilder, ReflectionBuilder, Stage, ABSENT,
};
mod common;
#[path = "../../../tests/src/fixtures.rs"]
mod fixtures;

use common::{slangpack, text, write};

/// A SPIR-V module's first words: magic, version 1.5, generator, bound, schema.
const SPIRV: [u32; 5] = [0x0723_0203, 0x0001_0500, 0, 1, 0];

/// One entry with one compute entry point `main` whose reflection holds only its entry-point
/// record.
fn package(key: &str) -> Vec<u8> {
    let mut builder = PackageBuilder::new();
    let spirv = builder.add_spirv(&SPIRV);
    let mut reflection = ReflectionBuilder::new();
    let name = reflection.intern("main");
    reflection.push(EntryPointLayout {
        name,
        name_override: ABSENT,
        stage: Stage::Compute.to_raw(),
        thread_group_size_x: 8,
        thread_group_size_y: 8,
        thread_group_size_z: 1,
        var_layout: ABSENT,
        result_var_layout: ABSENT,
        function: ABSENT,
        ..EntryPointLayout::default()
    });
    let reflection = builder.add_reflection(reflection.finish());
    builder
        .add_entry(EntryDesc {
            key: key.to_string(),
            reflection: Some(reflection),
            entry_points: vec![EntryPointDesc {
                thread_group_size: [8, 8, 1],
                reflection_entry_point: Some(0),
                ..fixtures::entry_point("main", Stage::Compute, spirv)
            }],
            dependencies: Vec::new(),
            options_hash: 1,
        })
        .expect("a valid entry");
    builder.finish().expect("a valid package")
}

/// Writes the packages `tiny.slangpack` and `other.slangpack` (one entry each, keyed by the
/// name) into `dir`, and returns their paths.
fn tiny_and_other(dir: &std::path::Path) -> (String, String) {
    let [tiny, other] = ["tiny", "other"].map(|key| {
        write(dir, &format!("{key}.slangpack"), package(key))
            .display()
            .to_string()
    });
    (tiny, other)
}

#[test]
fn package_subcommands_work_on_a_package_made_without_slang() {
    let dir = tempfile::tempdir().unwrap();
    let (tiny, other) = tiny_and_other(dir.path());

    let verify = slangpack(&["verify", &tiny]);
    assert!(verify.status.success(), "{}", text(&verify.stderr));
    assert!(text(&verify.stdout).contains("ok (1 entries)"));

    let dump = slangpack(&["dump", "--json", &tiny]);
    assert!(dump.status.success(), "{}", text(&dump.stderr));
    let json: serde_json::Value = serde_json::from_slice(&dump.stdout).expect("JSON");
    let entry = &json["entries"][0];
    assert_eq!(entry["key"], "tiny");
    assert_eq!(entry["entry_points"][0]["stage"], "compute");
    assert_eq!(
        entry["entry_points"][0]["thread_group_size"],
        serde_json::json!([8, 8, 1])
    );

    let spv = dir.path().join("main.spv");
    let extract = slangpack(&[
        "extract",
        &tiny,
        "--entry",
        "tiny",
        "--entry-point",
        "main",
        "-o",
        &spv.display().to_string(),
    ]);
    assert!(extract.status.success(), "{}", text(&extract.stderr));
    let words: Vec<u8> = SPIRV.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(std::fs::read(&spv).unwrap(), words);

    for lang in ["rust", "c", "cpp"] {
        let header = slangpack(&["header", &tiny, "--lang", lang]);
        assert!(header.status.success(), "{lang}: {}", text(&header.stderr));
        assert!(text(&header.stdout).contains("tiny"), "{lang}");
    }

    let same = slangpack(&["diff", &tiny, &tiny]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    let differ = slangpack(&["diff", &tiny, &other]);
    assert_eq!(differ.status.code(), Some(1), "{}", text(&differ.stderr));

    let merged = dir.path().join("merged.slangpack").display().to_string();
    let merge = slangpack(&["merge", &tiny, &other, "-o", &merged]);
    assert!(merge.status.success(), "{}", text(&merge.stderr));
    let dump = slangpack(&["dump", "--json", &merged]);
    assert!(dump.status.success(), "{}", text(&dump.stderr));
    let json: serde_json::Value = serde_json::from_slice(&dump.stdout).expect("JSON");
    let keys: Vec<&str> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["other", "tiny"]);
}

#[test]
fn a_fifo_given_as_a_package_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.slangpack");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let fifo = fifo.display().to_string();
    let (tiny, _) = tiny_and_other(dir.path());
    let merged = dir.path().join("merged.slangpack").display().to_string();
    for args in [
        vec!["verify", fifo.as_str()],
        vec!["dump", fifo.as_str()],
        vec![
            "extract",
            fifo.as_str(),
            "--entry",
            "tiny",
            "--entry-point",
            "main",
            "-o",
            merged.as_str(),
        ],
        vec!["diff", tiny.as_str(), fifo.as_str()],
        vec!["header", fifo.as_str(), "--lang", "c"],
        vec!["merge", tiny.as_str(), fifo.as_str(), "-o", merged.as_str()],
    ] {
        // Waited for 10 s at most: a subcommand blocked opening the FIFO fails the test
        // (and is killed) instead of hanging it.
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_slangpack"))
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the slangpack binary runs");
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > std::time::Duration::from_secs(10) {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("{args:?} still blocked on the FIFO after 10 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert!(!status.success(), "{args:?}");
        assert!(
            stderr.contains("is a FIFO, not a regular file"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!std::path::Path::new(&merged).exists());
}

#[test]
fn a_damaged_package_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = package("tiny");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    let bad = write(dir.path(), "bad.slangpack", &bytes)
        .display()
        .to_string();
    for args in [
        vec!["verify", bad.as_str()],
        vec!["dump", bad.as_str()],
        vec!["header", bad.as_str(), "--lang", "c"],
        vec!["explore", bad.as_str()],
    ] {
        let out = slangpack(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(text(&out.stderr).starts_with("error: "), "{args:?}");
    }
}

#[test]
fn no_output_carries_a_raw_control_character_of_a_key_or_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let key = "k\u{1b}]0;owned\u{7}\u{9b}2J";
    let evil = write(dir.path(), "evil\u{1b}[2J.slangpack", package(key))
        .display()
        .to_string();
    let raw = |s: &str| s.chars().any(|c| c.is_control() && c != '\n');
    let out_path = dir.path().join("x.spv").display().to_string();
    for args in [
        vec!["verify", evil.as_str()],
        vec!["dump", evil.as_str()],
        vec!["diff", evil.as_str(), evil.as_str()],
        vec![
            "extract",
            evil.as_str(),
            "--entry",
            key,
            "--entry-point",
            "nope\u{9b}",
            "-o",
            out_path.as_str(),
        ],
        vec!["header", evil.as_str(), "--lang", "c", "--entry", key],
    ] {
        let out = slangpack(&args);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            !raw(&stdout) && !raw(&stderr),
            "{args:?}: {stdout:?} {stderr:?}"
        );
        assert!(
            stdout.contains("\\u{1b}") || stderr.contains("\\u{1b}"),
            "{args:?}: {stdout:?} {stderr:?}"
        );
    }
}

#[test]
fn the_explore_page_carries_no_raw_control_character_of_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = "k\u{1b}]0;owned\u{7}\u{9b}2J\u{202e}";
    let evil = write(dir.path(), "evil.slangpack", package(key))
        .display()
        .to_string();
    for args in [
        vec!["explore", evil.as_str()],
        vec!["explore", "--diff", evil.as_str(), evil.as_str()],
    ] {
        let out = slangpack(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let page = text(&out.stdout);
        assert!(page.starts_with("<!DOCTYPE html>"), "{args:?}");
        assert!(
            !page
                .chars()
                .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
            "{args:?}"
        );
        // The key is in the page's data, escaped.
        assert!(
            page.contains("k\\u001b]0;owned\\u0007\\u009b2J\\u202e"),
            "{args:?}"
        );
    }
}

#[test]
fn extract_loads_only_its_entry_and_a_corrupt_other_entry_does_not_stop_it() {
    // Two entries with SPIR-V modules of their own; the second module's last word is damaged
    // (its checksum no longer matches): only that entry fails, at its load.
    let mut builder = PackageBuilder::new();
    let mut add = |key: &str, marker: u32| {
        let spirv = builder.add_spirv(&[0x0723_0203, 0x0001_0500, 0, 1, marker]);
        builder
            .add_entry(EntryDesc {
                key: key.into(),
                reflection: None,
                entry_points: vec![fixtures::entry_point("main", Stage::Compute, spirv)],
                dependencies: Vec::new(),
                options_hash: 0,
            })
            .unwrap();
    };
    add("healthy", 0x1111_1111);
    add("damaged", 0xDEAD_BEEF);
    let mut bytes = builder.finish().unwrap();
    let marker = 0xDEAD_BEEFu32.to_le_bytes();
    let at = bytes.windows(4).position(|w| w == marker).unwrap();
    bytes[at] ^= 1;
    let dir = tempfile::tempdir().unwrap();
    let package = write(dir.path(), "p.slangpack", &bytes)
        .display()
        .to_string();
    let verify = slangpack(&["verify", &package]);
    assert_eq!(verify.status.code(), Some(1), "verify checks every entry");
    let spv = dir.path().join("main.spv").display().to_string();
    let extract = |key: &str| {
        slangpack(&[
            "extract",
            &package,
            "--entry",
            key,
            "--entry-point",
            "main",
            "-o",
            &spv,
        ])
    };
    let healthy = extract("healthy");
    assert!(healthy.status.success(), "{}", text(&healthy.stderr));
    let words: Vec<u8> = [0x0723_0203u32, 0x0001_0500, 0, 1, 0x1111_1111]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(std::fs::read(&spv).unwrap(), words);
    let damaged = extract("damaged");
    assert_eq!(damaged.status.code(), Some(1));
    let stderr = text(&damaged.stderr);
    assert!(
        stderr.contains("entry \"damaged\"") && stderr.contains("checksum mismatch"),
        "{stderr}"
    );
    let missing = extract("nope");
    assert!(text(&missing.stderr).contains("no entry with key \"nope\""));
}

#[test]
fn dump_and_diff_print_their_committed_json_schemas_and_documents_that_say_their_version() {
    let schemas =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../reader/tools/schema");
    for (command, file) in [("dump", "dump.schema.json"), ("diff", "diff.schema.json")] {
        let out = slangpack(&[command, "--schema"]);
        assert_eq!(out.status.code(), Some(0), "{command} --schema");
        let committed = std::fs::read_to_string(schemas.join(file)).unwrap();
        assert_eq!(text(&out.stdout), committed, "{command} --schema");
    }
    let dir = tempfile::tempdir().unwrap();
    let (tiny, other) = tiny_and_other(dir.path());
    // --schema takes no package; without --schema a package is needed: usage errors.
    for args in [
        vec!["dump", "--schema", tiny.as_str()],
        vec!["dump", "--schema", "--json"],
        vec!["dump"],
        vec!["diff", "--schema", tiny.as_str(), other.as_str()],
        vec!["diff", tiny.as_str()],
    ] {
        assert_eq!(slangpack(&args).status.code(), Some(2), "{args:?}");
    }
    let dump: serde_json::Value =
        serde_json::from_slice(&slangpack(&["dump", "--json", &tiny]).stdout).unwrap();
    assert_eq!(
        dump["schema_version"],
        slangpack_tools::dump::SCHEMA_VERSION
    );
    let diff = slangpack(&["diff", "--json", &tiny, &other]);
    assert_eq!(diff.status.code(), Some(1));
    let diff: serde_json::Value = serde_json::from_slice(&diff.stdout).unwrap();
    assert_eq!(
        diff["schema_version"],
        slangpack_tools::diff::SCHEMA_VERSION
    );
    assert_eq!(diff["identical"], false);
    assert_eq!(diff["differences"][0]["change"], "added");
}

/// `slangpack` alone (as `cargo install --no-default-features` installs it; a copy, since a
/// `slangpack-bake` of an earlier build may sit beside this build's): every package subcommand
/// works, and `bake`, which runs `slangpack-bake` from beside it, says what to install instead
/// of failing obscurely.
#[test]
fn slangpack_alone_runs_the_tools_and_says_what_bake_needs() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir
        .path()
        .join(format!("slangpack{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(env!("CARGO_BIN_EXE_slangpack"), &alone).unwrap();
    let (tiny, _) = tiny_and_other(dir.path());
    let run = |args: &[&str]| {
        // A process another test forks while the copy is still open for writing inherits that
        // descriptor, and until it execs, running the copy fails with `ETXTBSY`: asked again.
        for _ in 0..100 {
            match std::process::Command::new(&alone).args(args).output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                result => return result.unwrap(),
            }
        }
        panic!("{} stayed busy", alone.display());
    };

    let verify = run(&["verify", &tiny]);
    assert!(verify.status.success(), "{}", text(&verify.stderr));

    let out = dir.path().join("out.slangpack").display().to_string();
    for args in [&["bake", "shaders", "-o", &out][..], &["bake", "--help"]] {
        let bake = run(args);
        assert_eq!(bake.status.code(), Some(2), "{args:?}");
        let stderr = text(&bake.stderr);
        let beside = dir.path().join("slangpack-bake").display().to_string();
        assert!(stderr.contains(&beside), "{args:?}: {stderr}");
        assert!(stderr.contains("the default `slang` feature"), "{stderr}");
        assert!(stderr.contains("cargo install slangpack-cli"), "{stderr}");
    }
    assert!(!std::path::Path::new(&out).exists());
}

//! The package tools start without the compiler: `slangpack` links no Slang, and `bake` runs
//! `slangpack-bake` (the binary beside it that does) with its arguments and exit status.

mod common;

use common::{examples, s, slangpack, text, write};
use std::process::Command;

/// The shared libraries the dynamic loader looked up while `binary` ran with `args` (glibc's
/// `LD_DEBUG=libs` trace on stderr), as `find library=NAME` names.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn libraries_loaded(binary: &str, args: &[&str]) -> Vec<String> {
    let output = Command::new(binary)
        .args(args)
        .env("LD_DEBUG", "libs")
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        text(&output.stderr)
    );
    text(&output.stderr)
        .lines()
        .filter_map(|line| line.split("find library=").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(|name| name.trim_end_matches(';').to_owned())
        .collect()
}

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn the_package_tools_do_not_load_slang_and_bake_does() {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("examples.slangpack");
    let bake = slangpack(&["bake", s(&examples()), "-o", s(&package)]);
    assert!(bake.status.success(), "{}", text(&bake.stderr));
    let spv = dir.path().join("main.spv");
    let tool_runs: [&[&str]; 3] = [
        &["--version"],
        &["dump", s(&package)],
        &[
            "extract",
            s(&package),
            "--entry",
            "pbr",
            "--entry-point",
            "fragmentMain",
            "-o",
            s(&spv),
        ],
    ];
    for args in tool_runs {
        let loaded = libraries_loaded(env!("CARGO_BIN_EXE_slangpack"), args);
        assert!(!loaded.is_empty(), "{args:?}: no loader trace (LD_DEBUG)");
        assert!(
            !loaded.iter().any(|name| name.contains("slang")),
            "slangpack {args:?} loaded {loaded:?}"
        );
    }
    let loaded = libraries_loaded(env!("CARGO_BIN_EXE_slangpack-bake"), &["--version"]);
    assert!(
        loaded.iter().any(|name| name.starts_with("libslang")),
        "slangpack-bake loaded only {loaded:?}"
    );
}

#[test]
fn bake_passes_its_arguments_and_exit_status_through() {
    let dir = tempfile::tempdir().unwrap();
    let shader = write(
        dir.path(),
        "broken.slang",
        "[shader(\"compute\")]\n[numthreads(1, 1, 1)]\nvoid main() { undefined_function(); }\n",
    );
    let out = dir.path().join("broken.slangpack");
    // Slang's diagnostic comes from slangpack-bake, through the `-g0` spelling only it rewrites.
    let failed = slangpack(&["bake", s(&shader), "-g0", "-o", s(&out), "--color", "never"]);
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    assert!(
        text(&failed.stderr).contains("undefined_function"),
        "{}",
        text(&failed.stderr)
    );
    assert!(!out.exists());
    let usage = slangpack(&["bake", s(&shader)]);
    assert_eq!(usage.status.code(), Some(2), "{}", text(&usage.stderr));
    assert!(
        text(&usage.stderr).contains("Usage: slangpack bake"),
        "{}",
        text(&usage.stderr)
    );
    let help = slangpack(&["bake", "--help"]);
    assert!(help.status.success(), "{}", text(&help.stderr));
    assert!(text(&help.stdout).contains("--buffer-layout"));
}

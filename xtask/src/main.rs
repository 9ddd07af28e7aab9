//! Project automation for slangpack: `cargo xtask <command>`.
//!
//! * `provision` — makes sure everything the writer needs to build is present: libclang (for
//!   the bindgen step of `shader-slang-sys`) and the pinned Slang SDK, unpacked into
//!   `.slang-sdk/` from a hash-checked wheel. Idempotent: a second run downloads nothing.
//! * `demo` — provisions, builds the `slangpack` CLI, bakes `examples/shaders` into a package
//!   and prints a summary of it.
//! * `test` — provisions, installs the system packages the test suite uses (Vulkan driver,
//!   validation layer, SPIR-V tools), then runs the whole suite.
//! * `bench` — provisions, runs the criterion benchmarks against the alternatives, prints
//!   one table of medians and ratios and writes it to `BENCHMARKS.md`.
//!
//! The xtask itself never links Slang, so it builds on a machine that has nothing yet.

mod provision;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match command.as_str() {
        "provision" => provision::provision(&repo_root(), provision::Needs::Build).map(|_| ()),
        "demo" => demo(rest),
        "test" => test(rest),
        "bench" => bench(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo xtask <command> [args]

commands:
  provision   install libclang if missing and unpack the pinned Slang SDK into .slang-sdk/
  demo        provision, bake examples/shaders into target/demo/examples.slangpack, print it
  test        provision, install the test suite's system packages, run the whole suite
              (extra arguments are passed to `cargo test`)
  bench       provision, run the benchmarks against the alternatives, print the table and
              write it to BENCHMARKS.md (extra arguments go to criterion, e.g. --test)";

/// The workspace root: the parent of this crate's manifest directory.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn demo(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("`demo` takes no arguments (got `{extra}`)"));
    }
    let root = repo_root();
    let sdk = provision::provision(&root, provision::Needs::Build)?;
    let package = root.join("target/demo/examples.slangpack");
    let mut bake = cargo(&sdk);
    bake.current_dir(&root).args([
        "run",
        "--quiet",
        "--package",
        "slangpack-writer",
        "--bin",
        "slangpack",
        "--",
        "bake",
        "examples/shaders",
        "-o",
    ]);
    bake.arg(&package);
    run(bake)?;
    let mut dump = cargo(&sdk);
    dump.current_dir(&root).args([
        "run",
        "--quiet",
        "--package",
        "slangpack-writer",
        "--bin",
        "slangpack",
        "--",
        "dump",
    ]);
    dump.arg(&package);
    run(dump)
}

fn test(args: &[String]) -> Result<(), String> {
    let root = repo_root();
    let sdk = provision::provision(&root, provision::Needs::Test)?;
    let mut test = cargo(&sdk);
    if provision::bindless_required() && std::env::var_os("SLANGPACK_REQUIRE_BINDLESS").is_none() {
        // This lavapipe has descriptor indexing: an unproven bindless array is a failure.
        test.env("SLANGPACK_REQUIRE_BINDLESS", "1");
    }
    test.current_dir(&root)
        .args(["test", "--workspace"])
        .args(args);
    run(test)
}

/// Runs the comparison benchmarks, then prints their one table and writes it to
/// BENCHMARKS.md. Extra arguments go to criterion (`-- --test` runs each benchmark once and
/// writes no table; a filter such as `hot/` runs a subset and the table shows the latest
/// result of every other row).
fn bench(args: &[String]) -> Result<(), String> {
    let root = repo_root();
    let sdk = provision::provision(&root, provision::Needs::Build)?;
    let mut bench = cargo(&sdk);
    bench
        .current_dir(&root)
        .args([
            "bench",
            "--package",
            "slangpack-benches",
            "--bench",
            "compare",
            "--",
        ])
        .args(args);
    run(bench)?;
    if args.iter().any(|a| a == "--test" || a == "--list") {
        return Ok(());
    }
    let mut table = cargo(&sdk);
    table
        .current_dir(&root)
        .args([
            "run",
            "--quiet",
            "--profile",
            "bench",
            "--package",
            "slangpack-benches",
            "--bin",
            "bench-table",
            "--",
            "--write",
        ])
        .arg(root.join("BENCHMARKS.md"));
    run(table)
}

/// A `cargo` command with the environment that points the build at the chosen Slang SDK.
fn cargo(sdk: &provision::SlangSdk) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    sdk.apply_env(&mut command);
    command
}

/// Runs a command to completion, turning a failure into an error naming the command.
fn run(mut command: Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("could not start {:?}: {e}", command.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed ({status})"))
    }
}

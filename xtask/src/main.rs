//! Project automation for slangpack: `cargo xtask <command>`.
//!
//! * `provision` — makes sure everything the writer needs to build is present: libclang (for
//!   the bindgen step of `shader-slang-sys`) and the pinned Slang SDK, unpacked into
//!   `.slang-sdk/` from a hash-checked wheel. Idempotent: a second run downloads nothing.
//! * `demo` — provisions, builds the `slangpack` CLI (`slangpack` and `slangpack-bake`), bakes
//!   `examples/shaders` into a package and prints a summary of it; one line per step, the
//!   package manager's output in `target/provision.log`.
//! * `test` — provisions, installs the system packages the test suite uses (Vulkan driver,
//!   validation layer, SPIR-V tools), then runs the whole suite.
//! * `bench` — provisions, runs the criterion benchmarks against the alternatives and the
//!   bake throughput benchmarks, prints one table of medians and ratios and writes it to
//!   `BENCHMARKS.md`.
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
        "outside" => provision::provision(&repo_root(), provision::Needs::Build)
            .and_then(|_| outside_crate(&repo_root())),
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
  outside     provision, then build and run examples/build-rs as a crate outside the
              workspace, set up as README.md says (part of `test`)
  bench       provision, run the benchmarks against the alternatives and the bake benchmarks,
              print the table and write it to BENCHMARKS.md (extra arguments go to
              criterion, e.g. --test)";

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
    eprintln!(
        "cargo xtask demo: bakes the example shaders (examples/shaders) with the Slang compiler \
         into one package, then prints what the package holds. Steps: provision libclang and \
         the pinned Slang SDK, build the CLI (minutes the first time), bake, dump."
    );
    let root = repo_root();
    let sdk = provision::provision(&root, provision::Needs::Build)?;
    eprintln!("xtask: building slangpack and slangpack-bake (cargo build -p slangpack-cli)");
    let mut build = cargo(&sdk);
    build
        .current_dir(&root)
        .args(["build", "--quiet", "--package", "slangpack-cli"]);
    run(build)?;
    let package = "target/demo/examples.slangpack";
    for args in [
        &["bake", "examples/shaders", "-o", package][..],
        &["dump", package],
    ] {
        eprintln!("xtask: slangpack {}", args.join(" "));
        let mut slangpack = cargo(&sdk);
        slangpack.current_dir(&root).args([
            "run",
            "--quiet",
            "--package",
            "slangpack-cli",
            "--bin",
            "slangpack",
            "--",
        ]);
        slangpack.args(args);
        run(slangpack)?;
    }
    Ok(())
}

fn test(args: &[String]) -> Result<(), String> {
    let root = repo_root();
    let sdk = provision::provision(&root, provision::Needs::Test)?;
    let mut test = cargo(&sdk);
    if provision::bindless_required() && std::env::var_os("SLANGPACK_REQUIRE_BINDLESS").is_none() {
        // This lavapipe has descriptor indexing: an unproven bindless array is a failure.
        test.env("SLANGPACK_REQUIRE_BINDLESS", "1");
    }
    // Provisioning installed Chromium: the browser tests must run, not skip.
    test.env("SLANGPACK_REQUIRE_CHROMIUM", "1");
    // And BuildGrid, the Remote Execution API server of the gRPC cache tests.
    let bgd = provision::ensure_buildgrid(&root)?;
    test.env("SLANGPACK_BGD", bgd)
        .env("SLANGPACK_REQUIRE_BUILDGRID", "1");
    test.current_dir(&root)
        .args(["test", "--workspace"])
        .args(args);
    run(test)?;
    if args.is_empty() {
        outside_crate(&root)?;
        packaged(&root, &sdk)?;
    }
    Ok(())
}

/// Removes what an earlier `cargo package --workspace` unpacked of this workspace's crates
/// into cargo's registry cache. Cargo serves the packages to each other through a temporary
/// local registry and unpacks them under `$CARGO_HOME/registry/src/<that registry>/`; with the
/// version unchanged it reuses an earlier run's unpacked sources, so a second run on one
/// machine would verify against stale code.
fn forget_packaged_sources() {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(home) = home else {
        return;
    };
    for kind in ["src", "cache"] {
        let Ok(registries) = std::fs::read_dir(home.join("registry").join(kind)) else {
            continue;
        };
        for registry in registries.flatten() {
            let Ok(entries) = std::fs::read_dir(registry.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry
                    .file_name()
                    .to_string_lossy()
                    .starts_with("slangpack-")
                {
                    let path = entry.path();
                    let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
                }
            }
        }
    }
}

/// The workspace members that are not published (tests, benchmarks, automation, examples).
const UNPUBLISHED: [&str; 6] = [
    "slangpack-tests",
    "slangpack-benches",
    "xtask",
    "slangpack-example-build-rs",
    "slangpack-example-wgpu",
    "slangpack-example-reload",
];

/// `cargo package --workspace` of every published crate: each `.crate` is built on its own
/// against the others' packaged sources, so a file a crate needs outside its directory, a
/// dependency without a version or a missing README fails here rather than at publication.
fn packaged(root: &Path, sdk: &provision::SlangSdk) -> Result<(), String> {
    eprintln!("xtask: cargo package --workspace (every published crate, verified)");
    forget_packaged_sources();
    // A target directory of its own: cargo takes registry crates as immutable, so what an
    // earlier run compiled of these crates (same names, same version) would be linked as is.
    // Their builds are removed; the third-party crates' stay.
    let dir = root.join("target/package-verify");
    for sub in ["debug/.fingerprint", "debug/deps", "debug/build"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("slangpack") || name.starts_with("libslangpack") {
                let path = entry.path();
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
    }
    let mut command = cargo(sdk);
    command
        .env("CARGO_TARGET_DIR", &dir)
        .current_dir(root)
        .args(["package", "--workspace", "--allow-dirty"]);
    for name in UNPUBLISHED {
        command.args(["--exclude", name]);
    }
    run(command)?;
    install_packaged_cli(sdk, &dir)?;
    // On a CI machine nothing reuses it, and it holds a second build of every dependency
    // (about 2.7 GB), which the benchmarks and lints that follow would otherwise sit beside.
    if std::env::var_os("CI").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// Installs the CLI as the README says (`cargo install slangpack-cli --no-default-features`),
/// from its packaged `.crate` as `cargo package` unpacked it, copied outside the workspace with
/// the packaged crates it depends on (patched in for crates.io, where they are not yet), and
/// runs the installed `slangpack` on commands that need no compiler.
fn install_packaged_cli(sdk: &provision::SlangSdk, dir: &Path) -> Result<(), String> {
    eprintln!("xtask: cargo install of the packaged slangpack-cli --no-default-features");
    let packaged = dir.join("package");
    let outside = std::env::temp_dir().join(format!("slangpack-install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    let io =
        |e: std::io::Error| format!("copying the packaged crates to {}: {e}", outside.display());
    let mut crates = Vec::new();
    for entry in std::fs::read_dir(&packaged).map_err(io)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("slangpack-") && entry.path().is_dir() {
            copy_tree(&entry.path(), &outside.join(&name)).map_err(io)?;
            crates.push(name);
        }
    }
    crates.sort();
    let cli = crates
        .iter()
        .find(|n| n.starts_with("slangpack-cli-"))
        .ok_or("cargo package unpacked no slangpack-cli")?;
    let root = outside.join("root");
    let mut command = cargo(sdk);
    command
        .env("CARGO_TARGET_DIR", dir.join("install"))
        .current_dir(outside.join(cli))
        .args([
            "install",
            "--path",
            ".",
            "--no-default-features",
            "--offline",
            "--root",
        ])
        .arg(&root);
    for name in crates.iter().filter(|n| *n != cli) {
        // `slangpack-format-0.1.0` is crate `slangpack-format`.
        let krate = name.rsplit_once('-').map_or(name.as_str(), |(k, _)| k);
        let path = outside.join(name);
        command.args([
            "--config",
            &format!(
                "patch.crates-io.{krate}.path={:?}",
                path.display().to_string()
            ),
        ]);
    }
    run(command)?;
    let binary = root.join("bin/slangpack");
    for args in [&["--version"][..], &["dump", "--schema"][..]] {
        let out = Command::new(&binary)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run the installed {}: {e}", binary.display()))?;
        if !out.status.success() || out.stdout.is_empty() {
            return Err(format!(
                "the installed slangpack {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    // Installed without the `slang` feature there is no `slangpack-bake` beside it: `bake`
    // says so (exit status 2) and names what to install.
    let bake = Command::new(&binary)
        .args(["bake", "shaders", "-o", "out.slangpack"])
        .output()
        .map_err(|e| format!("cannot run the installed {}: {e}", binary.display()))?;
    let stderr = String::from_utf8_lossy(&bake.stderr);
    if bake.status.code() != Some(2) || !stderr.contains("cargo install slangpack-cli") {
        return Err(format!(
            "the installed slangpack bake, with no slangpack-bake beside it, answered {}: {stderr}",
            bake.status
        ));
    }
    let _ = std::fs::remove_dir_all(&outside);
    Ok(())
}

/// Copies the directory `from` to `to`, recursively (files and directories only).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Builds and runs `examples/build-rs` as a crate of its own outside this workspace, set up
/// the way the README's "Using slangpack from your own crate" says: path dependencies on the
/// writer (build.rs) and the reader, `bytemuck` for the generated bind header's derives, and
/// the `.cargo/config.toml` lines `slangpack sdk install` prints, pointing at the provisioned
/// SDK. Nothing of this workspace's configuration reaches
/// it: it runs in a temporary directory with the Slang variables removed from the environment.
fn outside_crate(root: &Path) -> Result<(), String> {
    eprintln!("xtask: building examples/build-rs as a crate outside the workspace");
    let dir = std::env::temp_dir().join(format!("slangpack-outside-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let io = |e: std::io::Error| format!("preparing {}: {e}", dir.display());
    let example = root.join("examples/build-rs");
    for sub in ["src", "shaders", ".cargo"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(io)?;
    }
    for sub in ["src", "shaders"] {
        for file in std::fs::read_dir(example.join(sub)).map_err(io)? {
            let file = file.map_err(io)?;
            std::fs::copy(file.path(), dir.join(sub).join(file.file_name())).map_err(io)?;
        }
    }
    std::fs::copy(example.join("build.rs"), dir.join("build.rs")).map_err(io)?;
    let path = |p: &str| root.join(p).display().to_string().replace('\\', "/");
    let manifest = format!(
        "[package]\nname = \"outside\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [workspace]\n\n[dependencies]\nslangpack-reader = {{ path = \"{}\" }}\n\
         bytemuck = {{ version = \"1\", features = [\"derive\", \"min_const_generics\"] }}\n\n\
         [build-dependencies]\nslangpack-writer = {{ path = \"{}\" }}\n",
        path("reader"),
        path("writer")
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).map_err(io)?;
    let sdk = slangpack_sdk::installed(&root.join(".slang-sdk"))
        .ok_or("the pinned Slang SDK is not in .slang-sdk/ (a user SLANG_DIR is in use)")?;
    std::fs::write(
        dir.join(".cargo/config.toml"),
        slangpack_sdk::cargo_config(&sdk),
    )
    .map_err(io)?;
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for var in [
        "SLANG_DIR",
        "SLANG_INCLUDE_DIR",
        "SLANG_LIB_DIR",
        "VULKAN_SDK",
    ] {
        command.env_remove(var);
    }
    // A target directory of its own would compile every dependency again; the workspace's is
    // shared (another crate graph, so only what differs is built).
    command
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .args(["run", "--quiet"]);
    let result = run(command);
    if result.is_ok() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

/// Runs the comparison and bake benchmarks, then prints their one table and writes it to
/// BENCHMARKS.md. Extra arguments go to criterion (`--test` alone runs each benchmark of every
/// bench target once, in the test profile, the bakes on a tenth of the permutations, and
/// writes no table; a filter such as `hot/` runs a subset and the table shows the latest
/// result of every other row). A full run installs PostgreSQL and BuildGrid where they are
/// missing, for the team-cache and build-farm rows, and fails rather than leave those rows out.
fn bench(args: &[String]) -> Result<(), String> {
    let root = repo_root();
    let sdk = provision::provision(&root, provision::Needs::Build)?;
    if args == ["--test"] {
        // CI's quick mode: each benchmark of every bench target runs once (criterion's test
        // mode under `cargo test`), built with the test profile the test suite has already
        // built; the bench profile would compile every dependency a second time.
        let mut test = cargo(&sdk);
        test.current_dir(&root)
            .args(["test", "--package", "slangpack-benches", "--benches"]);
        return run(test);
    }
    // The team-cache and build-farm rows need BuildGrid: installed here, and required, so
    // that a full run on a fresh machine measures them rather than leaving them out.
    let bgd = provision::bench_servers(&root)?;
    // The whole-process rows (`tools/extract_*`) run the release `slangpack` binary.
    let mut cli = cargo(&sdk);
    cli.current_dir(&root)
        .args(["build", "--release", "--package", "slangpack-cli"]);
    run(cli)?;
    let mut bench = cargo(&sdk);
    bench
        .current_dir(&root)
        .env("SLANGPACK_BGD", bgd)
        .env("SLANGPACK_REQUIRE_BUILDGRID", "1")
        .args([
            "bench",
            "--package",
            "slangpack-benches",
            "--bench",
            "compare",
            "--bench",
            "bake",
            "--bench",
            "watch",
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

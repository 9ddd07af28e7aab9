//! Prints BENCHMARKS.md's table of what a bake costs as the permutation count grows: one
//! small compute shader under 100, 1,000 and 10,000 permutations (axes of ten values each),
//! baked by the `slangpack` binary as a user runs it, cold and then as a no-op rebake (the
//! package as it is, nothing changed), in the default layout and with `--spirv raw`: wall time, peak
//! memory (the process's maximum resident set) and the package's size.
//!
//! With `--farm`, the same cold bakes through a build farm on this machine instead (BuildGrid and
//! two test bots, as `tests/src/farm.rs` starts them; `SLANGPACK_BGD` names `bgd`).
//!
//! Usage: `cargo run --profile bench -p slangpack-benches --bin bake-scale [--farm] [COUNT ...]` after
//! `cargo build --release -p slangpack-cli` (`SLANGPACK_CLI` names another binary; the Slang
//! library must be where the binary finds it, e.g. through `LD_LIBRARY_PATH`). Counts are 100,
//! 1000 or 10000 (default: all three; 10,000 cold bakes take minutes on two cores).

use slangpack_benches::work_dir;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Ten values for each of `axes` axes: `10^axes` permutations. The axes change constants and
/// loop bounds, so every permutation's SPIR-V differs, while the layout stays the same.
fn shader(dir: &Path, axes: u32) -> PathBuf {
    let names = ["TAPS", "SCALE", "BIAS", "MODE"];
    let mut source = String::new();
    for name in &names[..axes as usize] {
        source.push_str(&format!("//! slangpack-axis {name} 0 1 2 3 4 5 6 7 8 9\n"));
    }
    for name in &names[axes as usize..] {
        source.push_str(&format!("#define {name} 0\n"));
    }
    source.push_str(
        "RWStructuredBuffer<float> gData;\n\
         [shader(\"compute\")]\n\
         [numthreads(64, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID)\n\
         {\n\
         \x20   float s = BIAS * 0.25;\n\
         \x20   for (int i = 0; i <= TAPS; i++)\n\
         \x20       s += gData[(id.x + i * (MODE + 1)) & 1023] * (SCALE + 1);\n\
         \x20   gData[id.x] = s;\n\
         }\n",
    );
    std::fs::create_dir_all(dir).expect("creating the directory");
    let path = dir.join(format!("scale{axes}.slang"));
    std::fs::write(&path, source).expect("writing the shader");
    path
}

/// The kernel's high-water mark of `pid`'s resident set (`VmHWM`), in bytes.
fn high_water(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// The pids of `pid`'s children (the bake's compile workers).
fn children(pid: &str) -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|c| c.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .collect()
}

/// What one run of `cli` took: wall time, and the peak resident set of the `slangpack`
/// process and of its largest compile worker, in bytes (the kernel's high-water marks, read
/// every millisecond while it runs: what a process grows in its last millisecond is not seen).
struct Run {
    wall: Duration,
    peak: u64,
    worker_peak: u64,
}

/// Runs `cli` with `args` (stderr to `log`). Panics when it fails.
fn run(cli: &Path, args: &[&str], log: &Path) -> Run {
    let started = Instant::now();
    let mut child = Command::new(cli)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(log).expect("creating the log"))
        .spawn()
        .expect("starting slangpack");
    let pid = child.id().to_string();
    let (mut peak, mut worker_peak) = (0, 0);
    let status = loop {
        peak = high_water(&pid).unwrap_or(0).max(peak);
        for worker in children(&pid) {
            worker_peak = high_water(&worker).unwrap_or(0).max(worker_peak);
        }
        if let Some(status) = child.try_wait().expect("waiting for slangpack") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    assert!(
        status.success(),
        "slangpack {args:?} failed: {status}\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
    Run {
        wall: started.elapsed(),
        peak,
        worker_peak,
    }
}

/// The same cold bakes through a build farm on this machine (BuildGrid with two bots, as the
/// tests start it: `tests/src/farm.rs`), default layout, each a source the farm has not seen
/// (a comment changes), with the farm as the cache (what it compiled is written back) and as
/// a read-only cache (`--cache-read-only`); the bake's process peak (the jobs run under the
/// bots). The first bake on the fresh farm also uploads the toolchain.
fn farm_table(cli: &Path, dir: &Path, counts: &[u32]) {
    let Some(farm) = slangpack_tests::farm::Farm::start(&dir.join("farm"), 2) else {
        panic!("no BuildGrid or PostgreSQL here (cargo xtask test installs them)");
    };
    let url = farm.url();
    println!("| permutations | farm as | cold | peak memory | actions | package |");
    println!("|---:|---|---:|---:|---:|---:|");
    let mut sample = 0;
    for &count in counts {
        let axes = match count {
            100 => 2,
            1000 => 3,
            10000 => 4,
            _ => panic!("a count: 100, 1000 or 10000"),
        };
        let text = std::fs::read_to_string(shader(dir, axes)).expect("the shader");
        let source = dir.join(format!("farm-src/scale{axes}.slang"));
        std::fs::create_dir_all(dir.join("farm-src")).expect("creating the directory");
        let source = source.to_str().expect("a UTF-8 path");
        let output = dir.join(format!("farm{count}.slangpack"));
        let output = output.to_str().expect("a UTF-8 path");
        let log = dir.join("bake.log");
        for (read_only, role) in [
            (false, "cache (first bake: toolchain sent)"),
            (false, "cache"),
            (true, "read-only cache"),
        ] {
            sample += 1;
            std::fs::write(source, format!("// sample {sample}\n{text}")).expect("the source");
            let before = farm.leases();
            let mut args = vec![
                "bake",
                source,
                "-j2",
                "-o",
                output,
                "--remote-executor",
                &url,
            ];
            if read_only {
                args.push("--cache-read-only");
            }
            let cold = run(cli, &args, &log);
            let package = std::fs::metadata(output).expect("the package").len();
            println!(
                "| {count} | {role} | {:.2} s | {} | {} | {} |",
                cold.wall.as_secs_f64(),
                size(cold.peak),
                farm.leases() - before,
                size(package),
            );
        }
    }
}

/// `bytes` in KB or MB.
fn size(bytes: u64) -> String {
    if bytes < 1_000_000 {
        format!("{:.1} KB", bytes as f64 / 1e3)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

fn main() {
    let cli = std::env::var_os("SLANGPACK_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let release = work_dir().parent().map(|t| t.join("release"));
            release.unwrap_or_default().join("slangpack")
        });
    assert!(
        cli.is_file(),
        "no slangpack binary at {} (cargo build --release -p slangpack-cli)",
        cli.display()
    );
    let farm = std::env::args().any(|a| a == "--farm");
    let counts: Vec<u32> = std::env::args()
        .skip(1)
        .filter(|a| a != "--farm")
        .map(|a| a.parse().expect("a count: 100, 1000 or 10000"))
        .collect();
    let counts = if counts.is_empty() {
        vec![100, 1000, 10000]
    } else {
        counts
    };
    let dir = work_dir().join("bake-scale");
    if farm {
        farm_table(&cli, &dir, &counts);
        return;
    }
    println!(
        "| permutations | bake | cold | peak memory (largest worker) | no-op rebake | per permutation | peak memory | package |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|");
    for count in counts {
        let axes = match count {
            100 => 2,
            1000 => 3,
            10000 => 4,
            _ => panic!("a count: 100, 1000 or 10000"),
        };
        let source = shader(&dir, axes);
        let source = source.to_str().expect("a UTF-8 path");
        let log = dir.join("bake.log");
        for spirvz in [false, true] {
            let name = format!("scale{count}{}.slangpack", ["", "z"][usize::from(spirvz)]);
            let output = dir.join(name);
            let _ = std::fs::remove_file(&output);
            let output = output.to_str().expect("a UTF-8 path");
            let mut args = vec!["bake", source, "-j2", "-o", output];
            if !spirvz {
                args.extend(["--spirv", "raw"]);
            }
            let cold = run(&cli, &args, &log);
            let noop = run(&cli, &args, &log);
            let package = std::fs::metadata(output).expect("the package").len();
            println!(
                "| {count} | {} | {:.2} s | {} ({}) | {:.1} ms | {:.1} µs | {} | {} |",
                if spirvz { "default" } else { "`--spirv raw`" },
                cold.wall.as_secs_f64(),
                size(cold.peak),
                size(cold.worker_peak),
                noop.wall.as_secs_f64() * 1e3,
                noop.wall.as_secs_f64() * 1e6 / f64::from(count),
                size(noop.peak),
                size(package),
            );
        }
    }
}

//! How the tools scale with the number of buffer members (the timings in issue 13's note):
//! one uniform buffer of N float members, all with distinct names and all with one name;
//! `header` in each language, `dump` (text and JSON) and `diff` against itself.
//!
//! ```sh
//! cargo run --release -p slangpack-tools --example scale -- 1000 10000 100000
//! ```
//!
//! With `--shared ENTRIES MEMBERS`, one package of ENTRIES entries sharing one blob of
//! MEMBERS members (issue 23: 300 entries, 100 000 members), each tool's time, its peak
//! memory growth (the process's high-water mark before and after, from
//! `/proc/self/status`; name one tool as a fourth argument to measure it alone, in a process
//! of its own) and whether it finished or refused with `LimitExceeded`. With
//! `SCALE_EXPLORE_PAGE=FILE`, the explorer page is written there (to open it in a browser).

#[path = "../tests/common/mod.rs"]
mod common;

use common::Hostile;
use slangpack_reader::Package;
use slangpack_tools::header::{generate, Language};
use std::path::Path;
use std::time::Instant;

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed().as_secs_f64() * 1e3)
}

/// The process's peak resident set (`VmHWM`) in KiB, 0 where `/proc` has none.
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

fn shared(entries: usize, members: u32, only: Option<&str>) {
    let bytes = Hostile::wide(members, |i| format!("m{i}")).shared_by(entries);
    let package = Package::from_bytes(&bytes).expect("opens");
    package.verify_all().expect("valid");
    println!(
        "{entries} entries sharing one blob of {members} members: {} bytes; budget {} bytes",
        bytes.len(),
        slangpack_tools::budget::output_budget(&[&package])
    );
    println!("| tool | time | peak growth | outcome |");
    println!("|---|---:|---:|---|");
    let run = |tool: &str, f: &dyn Fn() -> Result<usize, slangpack_tools::ToolError>| {
        if only.is_some_and(|only| only != tool) {
            return;
        }
        let before = peak_kib();
        let (outcome, ms) = time(f);
        let grown = peak_kib().saturating_sub(before);
        let outcome = match outcome {
            Ok(n) => format!("{n} bytes"),
            Err(slangpack_tools::ToolError::LimitExceeded(_)) => "LimitExceeded".to_string(),
            Err(e) => format!("error: {e}"),
        };
        println!("| {tool} | {ms:.0} ms | {} MiB | {outcome} |", grown / 1024);
    };
    run("verify", &|| {
        package
            .verify_all()
            .map(|()| 0)
            .map_err(|e| slangpack_tools::ToolError::Input(e.to_string()))
    });
    run("dump", &|| {
        slangpack_tools::dump::try_summary(Path::new("p"), &package).map(|t| t.len())
    });
    run("dump --json", &|| {
        slangpack_tools::dump::package_json_text(&package).map(|t| t.len())
    });
    run("explore", &|| {
        let page = slangpack_tools::explore::page(&package, "p")?;
        if let Ok(path) = std::env::var("SCALE_EXPLORE_PAGE") {
            std::fs::write(path, &page)
                .map_err(|e| slangpack_tools::ToolError::Input(e.to_string()))?;
        }
        Ok(page.len())
    });
    for (name, language) in [
        ("header --lang rust", Language::Rust),
        ("header --lang c", Language::C),
        ("header --lang cpp", Language::Cpp),
    ] {
        run(name, &|| {
            generate(&package, language, None).map(|t| t.len())
        });
    }
    run("diff (itself)", &|| {
        slangpack_tools::diff::try_diff(&package, &package).map(|d| d.len())
    });
    run("merge (with itself)", &|| {
        slangpack_pack::merge::merge(&[("a", &package), ("b", &package)], true, false)
            .map(|m| m.bytes.len())
            .map_err(|e| slangpack_tools::ToolError::Input(e.to_string()))
    });
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--shared") {
        let entries = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(300);
        let members = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100_000);
        shared(entries, members, args.get(3).map(String::as_str));
        return;
    }
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("member counts"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        sizes
    };
    println!(
        "| members | names | open | header rust | header c | header cpp | dump | dump --json | diff |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for &n in &sizes {
        for (label, hostile) in [
            ("distinct", Hostile::wide(n, |i| format!("m{i}"))),
            ("one name", Hostile::wide(n, |_| "x".into())),
        ] {
            let bytes = hostile.package();
            let (package, open) = time(|| Package::from_bytes(&bytes).expect("opens"));
            let mut cells = vec![format!("{open:.1} ms")];
            for language in [Language::Rust, Language::C, Language::Cpp] {
                let (source, ms) = time(|| generate(&package, language, None).expect("header"));
                assert!(source.len() > n as usize);
                cells.push(format!("{ms:.1} ms"));
            }
            let (_, ms) = time(|| slangpack_tools::dump::summary(Path::new("p"), &package));
            cells.push(format!("{ms:.1} ms"));
            let (_, ms) = time(|| {
                serde_json::to_string(&slangpack_tools::dump::package_doc(&package)).unwrap()
            });
            cells.push(format!("{ms:.1} ms"));
            let (d, ms) = time(|| slangpack_tools::diff::diff(&package, &package));
            assert!(d.is_empty());
            cells.push(format!("{ms:.1} ms"));
            println!("| {n} | {label} | {} |", cells.join(" | "));
        }
    }
}

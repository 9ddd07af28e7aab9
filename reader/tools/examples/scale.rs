//! How the tools scale with the number of buffer members (the timings in issue 13's note):
//! one uniform buffer of N float members, all with distinct names and all with one name;
//! `header` in each language, `dump` (text and JSON) and `diff` against itself.
//!
//! ```sh
//! cargo run --release -p slangpack-tools --example scale -- 1000 10000 100000
//! ```

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

fn main() {
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

//! Prints BENCHMARKS.md's table of package sizes in the default layout and with `--spirv raw`, and
//! where the bytes of each go: the example programs, 100 real permutations of a small compute
//! shader, the 100 permutations of issue 48's compute shader (`-O 3`), and the 1024
//! synthesized permutations of the large package; beside them the SPIR-V
//! alone, raw and as one zstd stream (level 19), and on stderr how long each default-layout
//! assembly took.
//!
//! Usage: `cargo run --profile bench -p slangpack-benches --bin package-sizes` (bakes with the
//! real compiler: a few seconds); with package files as arguments, where the bytes of each of
//! them go instead.

use slangpack_benches::{
    examples_baked, permutations_100, permutations_ab, spirv_stream, synthesize_large,
    where_the_bytes_go, work_dir,
};
use slangpack_pack::assemble::{assemble, assemble_with, BakedEntry};

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if !files.is_empty() {
        // Where the bytes of packages already baked go.
        for file in files {
            let bytes = std::fs::read(&file).expect("reading the package");
            let parts = where_the_bytes_go(&bytes);
            let parts: Vec<String> = parts.iter().map(|(p, b)| format!("{p} {b}")).collect();
            println!("{file}: {} bytes: {}", bytes.len(), parts.join(", "));
        }
        return;
    }
    let examples = examples_baked();
    let dir = work_dir();
    std::fs::create_dir_all(&dir).expect("creating target/slangpack-bench");
    let sets: [(&str, Vec<BakedEntry>); 4] = [
        ("examples (4 programs, 6 entry points)", examples.clone()),
        (
            "100 permutations of a small compute shader",
            permutations_100(&dir),
        ),
        (
            "100 permutations of the issue-48 compute shader (axes A, B; `-O 3`)",
            permutations_ab(&dir),
        ),
        (
            "1024 synthesized permutations (large package)",
            synthesize_large(&examples),
        ),
    ];
    let parts = where_the_bytes_go(&assemble(&examples, true).expect("assembling"));
    print!("| package | SPIR-V alone | SPIR-V as one zstd stream | `--spirv raw` | default |");
    for (part, _) in &parts {
        print!(" {part} |");
    }
    println!();
    println!("|---|---:|---:|---:|---:|{}", "---:|".repeat(parts.len()));
    for (name, entries) in &sets {
        let spirv: usize = entries
            .iter()
            .flat_map(|e| &e.entry_points)
            .map(|ep| 4 * ep.spirv.len())
            .sum();
        let stream = spirv_stream(entries);
        let default = assemble(entries, true).expect("assembling");
        let started = std::time::Instant::now();
        let small = assemble_with(entries, true, true).expect("assembling");
        eprintln!("{name}: default-layout assembly {:.2?}", started.elapsed());
        print!(
            "| {name} | {spirv} | {stream} | {} | {} |",
            default.len(),
            small.len()
        );
        for (_, bytes) in where_the_bytes_go(&small) {
            print!(" {bytes} |");
        }
        println!();
    }
}

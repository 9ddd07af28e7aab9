//! What a bake holds in memory, counted by the allocator: a cold bake of a program with many
//! permutations and a rebake that changes nothing, against the size of the package they
//! make. (Slang runs in worker processes, whose allocations are their own.)

use slangpack_tests::counting::Counting;
use slangpack_writer::bake::{bake_to_file, BakeConfig};

#[global_allocator]
static COUNTING: Counting = Counting::new();

#[test]
fn bakes_hold_a_few_packages_not_every_entry_twice() {
    if !slangpack_writer::worker::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<String> = (1..=16).map(|v| v.to_string()).collect();
    let source = dir.path().join("blur.slang");
    std::fs::write(
        &source,
        format!(
            "//! slangpack-axis RADIUS {values}\n//! slangpack-axis SCALE {values}\n\
             RWStructuredBuffer<float> gData;\n\
             [shader(\"compute\")]\n[numthreads(64, 1, 1)]\n\
             void main(uint3 id : SV_DispatchThreadID)\n{{\n\
             \x20   float s = 0;\n\
             \x20   for (int i = -RADIUS; i <= RADIUS; i++)\n\
             \x20       s += gData[(id.x + i) & 1023] * float(SCALE);\n\
             \x20   gData[id.x] = s / float(2 * RADIUS + 1);\n}}\n",
            values = values.join(" ")
        ),
    )
    .unwrap();
    let output = dir.path().join("blur.slangpack");
    let mut config = BakeConfig::new(vec![source]);
    config.jobs = 2;
    config.in_process = false;
    // The raw layout, whose package grows with its modules: the bounds below are multiples of
    // it. (The default layout trains its dictionary on every module, so its peak is bounded
    // by the modules, not by its far smaller package.)
    config.compress_spirv = false;

    let start = COUNTING.restart();
    let cold = bake_to_file(&config, &output).unwrap();
    let cold_peak = COUNTING.peak_above(start);
    assert_eq!((cold.entries.len(), cold.compiled), (256, 256));
    let size = cold.bytes.len();
    drop(cold);

    config.previous = Some(output.clone());
    let start = COUNTING.restart();
    let noop = bake_to_file(&config, &output).unwrap();
    let noop_peak = COUNTING.peak_above(start);
    assert_eq!((noop.reused, noop.assembled), (256, false));
    assert_eq!(noop.bytes.len(), size);
    drop(noop);

    eprintln!("package {size} bytes: cold bake peak {cold_peak}, no-op rebake peak {noop_peak}");
    // A rebake that changes nothing holds the plan and the reports of its entries (0.73 times
    // the package here): it judges entries by their records, takes the previous package as it
    // is mapped (no copy), and reads no entry out of it (1.7 times the package while its
    // outcome held a copy; 4.3 times at 4,096 permutations when it loaded every entry).
    assert!(
        noop_peak < size,
        "a no-op rebake held {noop_peak} bytes for a package of {size}"
    );
    // A cold bake adds each entry to the package builder as it arrives, which spools its
    // SPIR-V to a scratch file beside the output, and streams the package into its file: it
    // holds the reports, the builder's records and sections (1.09 times the package here),
    // not every module until the end (2.4 times while it did), nor the package besides, nor a
    // second copy of each module (3.2 times before), nor every entry twice over (7.5 times at
    // 1,000).
    assert!(
        2 * cold_peak < 3 * size,
        "a cold bake held {cold_peak} bytes for a package of {size}"
    );

    // With SPIR-V compressed: the modules are spooled as they arrive and read back in turn
    // (to choose the dictionary, then to compress each), and at most 4 MiB of them at once
    // into the buffer the dictionary trainer takes as it is (here all of them), each frame
    // kept at its size, not zstd's bound for it (which held about the uncompressed SPIR-V
    // again): 2.22 times the plain package here (3.27 while that buffer grew by doubling);
    // 2.07 while the trainer read the one buffer every module was read back into, 2.84 while
    // it copied the modules, 3.26 while every module was held from its compile, 3.53 before.
    // zstd's contexts and the trainer's tables are most of it at this size.
    config.compress_spirv = true;
    config.previous = None;
    let compressed = dir.path().join("blur-z.slangpack");
    let start = COUNTING.restart();
    let cold = bake_to_file(&config, &compressed).unwrap();
    let compressed_peak = COUNTING.peak_above(start);
    assert_eq!(cold.compiled, 256);
    eprintln!(
        "--compress-spirv: {} bytes, cold bake peak {compressed_peak}",
        cold.bytes.len()
    );
    assert!(
        2 * compressed_peak < 5 * size,
        "a --compress-spirv cold bake held {compressed_peak} bytes (the plain package: {size})"
    );
}

//! A quick, untimed pass over the benchmark code, so that `cargo test` catches a comparison
//! that stopped doing the same work as the bind view (the benchmark itself runs only under
//! `cargo xtask bench`).

use slangpack_benches::table::{render, Measure, ROWS};
use slangpack_benches::{cross_check, shader_dir, synthesize_large, PBR_KEY};
use slangpack_pack::assemble::assemble;
use slangpack_reader::Package;
use slangpack_writer::bake::{bake, BakeConfig};
use slangpack_writer::compile::Compiler;
use slangpack_writer::entry::compile_job;
use slangpack_writer::plan::plan;
use std::collections::BTreeMap;

#[test]
fn every_other_way_finds_what_the_bind_view_finds() {
    let dir = shader_dir();
    let mut config = BakeConfig::new(vec![dir.join("pbr.slang")]);
    config.jobs = 1;
    let outcome = bake(&config).expect("baking pbr");
    let entries = outcome.baked_entries().expect("reading pbr back");
    let entry = entries
        .iter()
        .find(|e| e.key == PBR_KEY)
        .expect("the pbr entry");

    let compiler = Compiler::new().expect("Slang");
    let job = plan(&config)
        .expect("planning pbr")
        .jobs
        .into_iter()
        .next()
        .expect("one job");
    let program = compile_job(&compiler, &job)
        .expect("compiling pbr")
        .expect("pbr has entry points");
    let json = program.reflection_json().expect("Slang's JSON");

    let global = shader_slang::GlobalSession::new().expect("a Slang global session");
    let spirv: Vec<&[u32]> = entry.entry_points.iter().map(|ep| &ep.spirv[..]).collect();
    let disagreements = cross_check(&global, &dir, &outcome.bytes, &spirv, &json);
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

#[test]
fn the_synthesized_permutations_are_distinct_and_valid() {
    let dir = shader_dir();
    let mut config = BakeConfig::new(vec![dir.join("blur.slang")]);
    config.jobs = 1;
    let outcome = bake(&config).expect("baking blur");
    let large = synthesize_large(&outcome.baked_entries().expect("reading blur back"));
    assert_eq!(large.len(), 256);
    // Raw: compressing 256 blobs at the writer's zstd level would dominate the test.
    let bytes = assemble(&large, false).expect("assembling");
    let package = Package::from_bytes(&bytes).expect("the synthesized package is valid");
    assert_eq!(package.entries().len(), 256);
    assert_eq!(
        package.reflection_count(),
        256,
        "no reflection blob deduplicated"
    );
    let entry = package
        .load("blur?LIGHTS=3&MSAA=4&QUALITY=1&SHADOWS=0")
        .expect("a permutation key as the writer writes it");
    assert!(entry.bind().binding("gDestination").is_some());
}

#[test]
fn the_table_has_a_number_for_every_measured_row() {
    let mut times = BTreeMap::new();
    let mut sizes = BTreeMap::new();
    for row in ROWS {
        for m in [row.ours, row.other] {
            match m {
                Measure::Time(id) | Measure::TimePlus(id, _) => {
                    times.insert(id.to_string(), 1000.0);
                }
                Measure::TimeSum(ids) => {
                    for id in ids {
                        times.insert(id.to_string(), 1000.0);
                    }
                }
                Measure::Bytes(name) => {
                    sizes.insert(name.to_string(), 1000.0);
                }
                Measure::Nanos(_) | Measure::Note(_) => {}
            }
        }
    }
    let table = render(&times, &sizes);
    assert!(!table.contains("not measured"), "{table}");
    assert_eq!(table.lines().count(), ROWS.len() + 2);
    assert!(table.contains("| 1.00 µs |"), "{table}");
}

//! Bake throughput: 100 permutations of one small compute shader, baked cold (`-j1`, `-j2`),
//! rebaked with nothing changed (the no-op rebake), and compiled by Slang alone (one global
//! session, every permutation's own session, module load, link and SPIR-V: the floor a bake
//! cannot go under). What a cold bake costs beyond the Slang-only run is the writer's own
//! work: reflection walk, bind view and its checks against the SPIR-V, dependency hashes,
//! package assembly.
//!
//! `cargo bench -p slangpack-benches --bench bake` runs it (minutes: every cold sample
//! compiles 100 programs); `-- --test` runs each benchmark once.

use criterion::{Criterion, SamplingMode};
use slangpack_benches::{permutations_100_source, work_dir, PERMUTATIONS_100_AXIS};
use slangpack_writer::bake::{bake, bake_to_file, BakeConfig};
use slangpack_writer::compile::{CompileOptions, Compiler};
use slangpack_writer::jobs::{compile_job, permutation_key, Job};
use std::time::Duration;

fn main() {
    let dir = work_dir().join("bake");
    let source = permutations_100_source(&dir);
    let output = dir.join("perm100.slangpack");
    let config = |jobs: usize| {
        let mut config = BakeConfig::new(vec![source.clone()]);
        config.jobs = jobs;
        config
    };
    // The package the no-op rebake starts from.
    let first = bake_to_file(&config(2), &output).expect("baking 100 permutations");
    assert_eq!(first.entries.len(), 100);

    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("bake");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100));

    g.bench_function("noop_rebake_100", |b| {
        let mut rebake = config(2);
        rebake.previous = Some(output.clone());
        b.iter(|| {
            let outcome = bake_to_file(&rebake, &output).expect("rebake");
            assert_eq!((outcome.reused, outcome.compiled), (100, 0));
            outcome.bytes.len()
        })
    });
    // The package assembly alone (zstd-compressing 100 reflection blobs): what a no-op
    // rebake would add if it assembled instead of taking the previous package's bytes.
    g.bench_function("assemble_100", |b| {
        b.iter(|| {
            slangpack_writer::bake::assemble(&first.entries, true)
                .expect("assemble")
                .len()
        })
    });
    for jobs in [1, 2] {
        g.bench_function(format!("cold_100_j{jobs}"), |b| {
            let cold = config(jobs);
            b.iter(|| bake(&cold).expect("bake").bytes.len())
        });
    }
    // Slang alone, serially: one global session, then per permutation what `compile_job`
    // asks of Slang (a session with the permutation's defines, load, compose, link, SPIR-V).
    let root = source
        .parent()
        .expect("the source's directory")
        .to_path_buf();
    let jobs: Vec<Job> = (1..=100)
        .map(|value| {
            let defines = vec![(PERMUTATIONS_100_AXIS.to_string(), value.to_string())];
            Job {
                key: permutation_key(source.file_name().expect("a file").as_ref(), &defines),
                source: source.clone(),
                options: CompileOptions {
                    defines,
                    ..CompileOptions::default()
                },
                skip_if_library: false,
            }
        })
        .collect();
    g.bench_function("slang_only_100_j1", |b| {
        b.iter(|| {
            let compiler = Compiler::new().expect("Slang");
            jobs.iter()
                .map(|job| {
                    let program = compile_job(&compiler, job, &root).expect("compile");
                    program.map_or(0, |p| p.entry_points.len())
                })
                .sum::<usize>()
        })
    });
    g.finish();
    c.final_summary();
}

//! Bake throughput: 100 permutations of one small compute shader, baked cold (`-j1`, `-j2`),
//! rebaked with nothing changed (the no-op rebake), and compiled by Slang alone (one global
//! session, every permutation's own session, module load, link and SPIR-V: the floor a bake
//! cannot go under). What a cold bake costs beyond the Slang-only run is the writer's own
//! work: reflection walk, bind view and its checks against the SPIR-V, dependency hashes,
//! package assembly.
//!
//! `cargo xtask bench` runs it after the comparisons and puts it in BENCHMARKS.md (minutes:
//! every cold sample compiles 100 programs). In criterion's test mode (`cargo xtask bench
//! --test`, CI's quick pass) each benchmark runs once, on a tenth of the permutations.

use criterion::{Criterion, SamplingMode};
use slangpack_benches::{criterion_test_mode, permutations_100_source, work_dir};
use slangpack_pack::assemble::assemble;
use slangpack_writer::bake::{bake, bake_to_file, BakeConfig};
use slangpack_writer::compile::Compiler;
use slangpack_writer::entry::compile_job;
use slangpack_writer::plan::{plan, Shard};
use std::path::Path;
use std::time::Duration;

/// What a warm bake of a fresh checkout reads from the cache whose every action and blob the
/// directory `cache` holds: the result of the package's assembly and the package it names.
fn warm_reads(
    cache: &std::path::Path,
) -> (
    Vec<slangpack_cache::reapi::Digest>,
    Vec<slangpack_cache::reapi::Digest>,
) {
    use prost::Message;
    let (mut actions, mut blobs) = (Vec::new(), Vec::new());
    for record in std::fs::read_dir(cache.join("ac")).expect("the cache's action results") {
        let record = record.expect("an action result").path();
        let bytes = std::fs::read(&record).expect("an action result");
        let result = slangpack_cache::reapi::ActionResult::decode(&bytes[..]).expect("decoded");
        let Some(package) = result
            .output_files
            .iter()
            .find(|f| f.path == slangpack_cache::action::PACKAGE_OUTPUT)
        else {
            continue;
        };
        let hash = record
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let size = std::fs::metadata(cache.join("cas").join(&hash))
            .expect("the action")
            .len();
        actions.push(slangpack_cache::reapi::Digest {
            hash,
            size_bytes: i64::try_from(size).expect("a size"),
        });
        blobs.extend(package.digest.clone());
    }
    assert_eq!(actions.len(), 1, "one assembly");
    (actions, blobs)
}

/// The cache directory of `config`, as a location.
fn cache_dir_location(config: &BakeConfig) -> String {
    config
        .cache
        .as_ref()
        .expect("a cache directory")
        .display()
        .to_string()
}

/// The bench group the rows go to.
type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// The team cache rows: a fresh checkout of `source` baked from a warm cache (`count`
/// entries, all from the cache), and the transfers alone, with `base` as the bake.
fn team_cache(g: &mut Group<'_>, base: &BakeConfig, source: &Path, count: usize) {
    // The team cache: a fresh checkout (the same sources at another path, no previous
    // package) baked from a warm cache, a directory and BuildGrid over gRPC (the Remote
    // Execution API; skipped where BuildGrid is not installed): every entry from the cache,
    // nothing compiled, the package itself taken from it. Beside each, the transfers alone:
    // what that bake reads from the store (the result of the package's assembly and the
    // package), read through the store's own calls after connecting.
    let fresh = permutations_100_source(&work_dir().join("bake-fresh"));
    let server = slangpack_tests::buildgrid::BuildGrid::start(&work_dir().join("buildgrid"));
    let mut caches = vec![("dir", work_dir().join("bake-cache").display().to_string())];
    if let Some(server) = &server {
        caches.push(("grpc", server.url()));
    }
    for (name, location) in caches {
        let mut warm = base.clone();
        warm.inputs = vec![fresh.clone()];
        if name == "dir" {
            let _ = std::fs::remove_dir_all(&location);
            warm.cache = Some(location.into());
        } else {
            warm.cache_url = Some(location);
        }
        let mut fill = warm.clone();
        fill.inputs = vec![source.to_path_buf()];
        // A directory beside the server holds, after the filling bake, all it stored.
        let mirror = work_dir().join(format!("bake-cache-mirror-{name}"));
        let _ = std::fs::remove_dir_all(&mirror);
        if name != "dir" {
            fill.cache = Some(mirror.clone());
        }
        bake(&fill).expect("filling the cache");
        let (actions, blobs) = warm_reads(fill.cache.as_deref().expect("a directory"));
        let location = fill
            .cache_url
            .clone()
            .unwrap_or_else(|| cache_dir_location(&fill));
        g.bench_function(format!("transfers_{name}_cache_fresh_checkout_100"), |b| {
            b.iter(|| {
                // Connecting (a server's capabilities checked) is part of every bake's reads.
                let config = slangpack_cache::Config::new(&location);
                let mut store = slangpack_cache::open(&config).expect("the store");
                let results = store.get_action_results(&actions).expect("action results");
                assert!(results.iter().all(Option::is_some));
                let read = store.read_blobs(&blobs).expect("blobs");
                assert_eq!(read.len(), blobs.len());
                read.len()
            })
        });
        g.bench_function(format!("warm_{name}_cache_fresh_checkout_100"), |b| {
            b.iter(|| {
                let outcome = bake(&warm).expect("bake");
                assert_eq!((outcome.compiled, outcome.from_cache), (0, count));
                outcome.bytes.len()
            })
        });
    }
}

/// The build-farm row: `count` permutations of `source` through BuildGrid with two bots,
/// with `base` as the bake.
fn farm(g: &mut Group<'_>, base: &BakeConfig, source: &Path, count: usize) {
    // A build farm on this machine: BuildGrid's execution service with two bots (skipped
    // where BuildGrid or PostgreSQL is not installed), against `cold_100_j2`. Each sample
    // bakes a source that differs by a comment, so that every action misses the farm's
    // action cache and runs: the overhead of the farm (upload, scheduling, a process and a
    // Slang global session per action, each action a batch of 50 permutations with -j2)
    // where the farm brings no extra cores.
    let farm_dir = work_dir().join("bake-farm");
    let _ = std::fs::remove_dir_all(&farm_dir);
    if let Some(farm) = slangpack_tests::farm::Farm::start(&farm_dir, 2) {
        let text = std::fs::read_to_string(source).expect("the source");
        let farm_source = permutations_100_source(&farm_dir.join("src"));
        let mut remote = base.clone();
        remote.inputs = vec![farm_source.clone()];
        remote.remote = Some(slangpack_writer::remote::RemoteSettings {
            url: farm.url(),
            options: slangpack_writer::cache::CacheOptions::default(),
            fallback: false,
            batch: None,
            platform: Vec::new(),
        });
        let mut sample = 0u64;
        let mut cold_on_farm = |g: &mut Group<'_>, name: &str, config: &BakeConfig| {
            g.bench_function(name, |b| {
                b.iter(|| {
                    sample += 1;
                    std::fs::write(&farm_source, format!("// sample {sample}\n{text}"))
                        .expect("the source");
                    let outcome = bake(config).expect("bake");
                    assert_eq!((outcome.compiled, outcome.failures.len()), (count, 0));
                    outcome.bytes.len()
                })
            });
        };
        cold_on_farm(g, "farm_cold_100_2_bots", &remote);
        // The same with the farm as a read-only cache (`--cache-read-only`): every action
        // still runs on the farm, but the bake writes neither the permutations' results nor
        // the package's: what those writes cost the farm bake on these two cores.
        let mut read_only = remote.clone();
        if let Some(settings) = read_only.remote.as_mut() {
            settings.options.read_only = true;
        }
        cold_on_farm(g, "farm_cold_100_2_bots_read_only", &read_only);
        // The local bake while the farm is up and idle (its scheduler polls PostgreSQL every
        // 20-40 ms): what the farm's own processes take from the local bake on these cores.
        g.bench_function("cold_100_j2_beside_idle_farm", |b| {
            b.iter(|| bake(base).expect("bake").bytes.len())
        });
    }
}

fn main() {
    let quick = criterion_test_mode();
    let dir = work_dir().join("bake");
    let source = permutations_100_source(&dir);
    let output = dir.join("perm100.slangpack");
    let config = |jobs: usize| {
        let mut config = BakeConfig::new(vec![source.clone()]);
        config.jobs = jobs;
        config.shard = quick.then(|| Shard::new(1, 10).expect("a shard"));
        config
    };
    // The package the no-op rebake starts from.
    let first = bake_to_file(&config(2), &output).expect("baking 100 permutations");
    let count = first.entries.len();
    assert_eq!(count, if quick { 10 } else { 100 });

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
            assert_eq!(
                (outcome.reused, outcome.compiled, outcome.assembled),
                (count, 0, false)
            );
            outcome.bytes.len()
        })
    });
    // The package assembly alone (zstd-compressing 100 reflection blobs): what a no-op
    // rebake would add if it assembled instead of taking the previous package's bytes.
    g.bench_function("assemble_100", |b| {
        let entries = first
            .baked_entries()
            .expect("reading the permutations back");
        b.iter(|| assemble(&entries, true).expect("assemble").len())
    });
    // In worker processes (the default) and in this process's threads (`--in-process`): what
    // isolating the compiler costs.
    for jobs in [1, 2] {
        for in_process in [false, true] {
            let name = if in_process { "_in_process" } else { "" };
            g.bench_function(format!("cold_100_j{jobs}{name}"), |b| {
                let mut cold = config(jobs);
                cold.in_process = in_process;
                b.iter(|| bake(&cold).expect("bake").bytes.len())
            });
        }
    }
    // The same cold bake into the raw layout (`--spirv raw`, the default before format 2.0):
    // what storing the package small costs the bake.
    g.bench_function("cold_100_j2_raw", |b| {
        let mut cold = config(2);
        cold.compress_spirv = false;
        b.iter(|| bake(&cold).expect("bake").bytes.len())
    });
    team_cache(&mut g, &config(2), &source, count);
    farm(&mut g, &config(2), &source, count);
    // Slang alone, serially: one global session, then per permutation what `compile_job`
    // asks of Slang (a session with the permutation's defines, load, compose, link, SPIR-V),
    // for exactly the jobs the bake plans.
    let serial = config(1);
    let jobs = plan(&serial).expect("planning the permutations").jobs;
    assert_eq!(jobs.len(), count);
    g.bench_function("slang_only_100_j1", |b| {
        b.iter(|| {
            let compiler = Compiler::new().expect("Slang");
            jobs.iter()
                .map(|job| {
                    let program = compile_job(&compiler, job).expect("compile");
                    program.map_or(0, |p| p.entry_points.len())
                })
                .sum::<usize>()
        })
    });
    g.finish();
    c.final_summary();
}

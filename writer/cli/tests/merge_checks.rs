//! `slangpack merge` checks its inputs: shards of one bake plan, all there and complete, or a
//! failure naming what is missing or mismatched (nothing written); `--allow-partial` for
//! deliberate subsets; the merged package is stored as the inputs are unless told otherwise.

mod common;

use common::{s, slangpack, text, write};
use slangpack_reader::Package;
use std::path::{Path, PathBuf};

/// Nine permutations of one program (axes A and B) from a manifest; with `broken`, the
/// permutation A=3,B=9 fails to compile.
fn write_manifest(dir: &Path, broken: bool) -> PathBuf {
    let check = if broken {
        "#if A == 3 && B == 9\n#error this permutation is broken\n#endif\n"
    } else {
        ""
    };
    write(
        dir,
        "fill.slang",
        format!(
            "{check}RWStructuredBuffer<uint> gOut;\n[shader(\"compute\")][numthreads(8, 1, 1)]\n\
             void fill(uint3 id: SV_DispatchThreadID) {{ gOut[id.x] = id.x * A + B; }}\n"
        ),
    );
    write(
        dir,
        "bake.toml",
        "[[program]]\nsource = \"fill.slang\"\naxes = { A = [\"1\", \"2\", \"3\"], B = [\"0\", \"5\", \"9\"] }\n",
    )
}

fn bake(args: &[&str]) -> std::process::Output {
    let mut all = vec!["bake", "-j", "2", "--force"];
    all.extend(args);
    slangpack(&all)
}

fn baked(args: &[&str]) {
    let result = bake(args);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
}

fn merge(args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["merge"];
    all.extend(args);
    let result = slangpack(&all);
    (result.status.code(), text(&result.stderr))
}

#[test]
fn merge_refuses_missing_mismatched_and_incomplete_shards() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write_manifest(&dir.path().join("shaders"), false);
    let m = s(&manifest);
    let shard = |k: usize, extra: &[&str]| {
        let out = dir
            .path()
            .join(format!("shard-{k}{}.slangpack", extra.join("")));
        let spec = format!("{k}/3");
        let mut args = vec![m, "-o", s(&out), "--shard", &spec];
        args.extend(extra);
        baked(&args);
        out
    };
    let (one, two, three) = (shard(1, &[]), shard(2, &[]), shard(3, &[]));
    let plan = Package::open(&one).unwrap().shard_plan().unwrap().unwrap();
    assert_eq!((plan.shard_index, plan.shard_count), (1, 3));
    assert_eq!((plan.plan_job_count, plan.job_count), (9, 3));
    let merged = dir.path().join("merged.slangpack");

    // One shard missing: named, and nothing written.
    let (code, err) = merge(&[s(&one), s(&three), "-o", s(&merged)]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("1 of 3 shards are missing: 2/3"), "{err}");
    assert!(err.contains("--allow-partial"), "{err}");
    assert!(!merged.exists());

    // A deliberate subset: merged, with the gap reported.
    let (code, err) = merge(&["--allow-partial", s(&one), s(&three), "-o", s(&merged)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("warning: --allow-partial: 1 of 3 shards are missing: 2/3"),
        "{err}"
    );
    assert_eq!(Package::open(&merged).unwrap().len(), 6);
    assert_eq!(Package::open(&merged).unwrap().shard_plan().unwrap(), None);
    std::fs::remove_file(&merged).unwrap();

    // A shard baked with other options comes from another plan, even with --allow-partial.
    let optimized = shard(2, &["-O", "2"]);
    for partial in [false, true] {
        let mut args = vec![s(&one), s(&optimized), s(&three), "-o", s(&merged)];
        if partial {
            args.insert(0, "--allow-partial");
        }
        let (code, err) = merge(&args);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("different bake plans: other compile options"),
            "{err}"
        );
        assert!(err.contains(s(&optimized)), "{err}");
        assert!(!merged.exists());
    }

    // Another N: slices of different plans.
    let other_n = dir.path().join("other-n.slangpack");
    baked(&[m, "-o", s(&other_n), "--shard", "2/4"]);
    let (code, err) = merge(&[s(&one), s(&other_n), s(&three), "-o", s(&merged)]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("is shard 2/4 but"), "{err}");

    // A whole package beside shards.
    let whole = dir.path().join("whole.slangpack");
    baked(&[m, "-o", s(&whole)]);
    let (code, err) = merge(&[s(&whole), s(&one), "-o", s(&merged)]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("not the output of a sharded bake"), "{err}");

    // All three: exactly the whole bake.
    let (code, err) = merge(&[s(&three), s(&one), s(&two), "-o", s(&merged)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&whole).unwrap());

    // A shard that --keep-going left a permutation out of is incomplete.
    let broken_dir = dir.path().join("broken");
    let broken = write_manifest(&broken_dir, true);
    let mut parts = Vec::new();
    for k in 1..=3 {
        let out = broken_dir.join(format!("part-{k}.slangpack"));
        let spec = format!("{k}/3");
        let result = bake(&[s(&broken), "-o", s(&out), "--shard", &spec, "--keep-going"]);
        assert!(out.exists(), "{}", text(&result.stderr));
        parts.push(out);
    }
    let mut args: Vec<&str> = parts.iter().map(|p| s(p)).collect();
    args.extend(["-o", s(&merged)]);
    let (code, err) = merge(&args);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("lacks 1 of its 3 permutations"), "{err}");
}

#[test]
fn merge_stores_as_its_inputs_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write_manifest(&dir.path().join("shaders"), false);
    let m = s(&manifest);
    let small = dir.path().join("small.slangpack");
    baked(&[m, "-o", s(&small), "--compress-spirv"]);
    let halves: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let out = dir.path().join(format!("small-{k}.slangpack"));
            let spec = format!("{k}/2");
            baked(&[m, "-o", s(&out), "--compress-spirv", "--shard", &spec]);
            out
        })
        .collect();
    // Without a flag the merge follows the inputs: the bytes of one --compress-spirv bake.
    let merged = dir.path().join("merged.slangpack");
    let (code, err) = merge(&[s(&halves[0]), s(&halves[1]), "-o", s(&merged)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&small).unwrap());

    // Told otherwise: the bytes of a raw-layout bake.
    let plain = dir.path().join("plain.slangpack");
    baked(&[m, "-o", s(&plain), "--spirv", "raw"]);
    let (code, err) = merge(&[
        "--no-compress-spirv",
        s(&halves[0]),
        s(&halves[1]),
        "-o",
        s(&merged),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&plain).unwrap());

    // Inputs stored differently: the merge asks which.
    let plain_half = dir.path().join("plain-2.slangpack");
    baked(&[m, "-o", s(&plain_half), "--spirv", "raw", "--shard", "2/2"]);
    let (code, err) = merge(&[
        s(&halves[0]),
        s(&plain_half),
        "-o",
        s(&dir.path().join("x")),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("--compress-spirv or --no-compress-spirv"),
        "{err}"
    );
}

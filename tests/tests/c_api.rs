//! The C API from C and C++ (crate `slangpack-c`): its examples and its corruption test are
//! compiled with `gcc`/`g++ -Wall -Wextra -Werror -pedantic` against the static library and run
//! under AddressSanitizer and UndefinedBehaviorSanitizer on packages baked with the real
//! compiler. The examples print what `slangpack dump --json` says; damaged packages are refused
//! with well-formed errors, never a crash, a bad read or a leak.

use slangpack_format::bind::{stage_flag_names, DescriptorKind};
use slangpack_format::{Stage, Target};
use slangpack_reader::Package;
use slangpack_writer::bake::{self, BakeConfig};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn capi() -> PathBuf {
    repo().join("reader/capi")
}

/// The static library cargo built for this test (`slangpack-c` is a dependency of this crate,
/// built with every crate type it declares).
fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let lib = deps.join("libslangpack_c.a");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

/// Compiles one C (`.c`, C11) or C++ (`.cpp`, C++17) program with the strictest warnings and
/// both sanitizers, linked against the static library.
fn build(source: &Path, out: &Path) -> PathBuf {
    let cxx = source.extension().is_some_and(|e| e == "cpp");
    let (compiler, std) = if cxx {
        ("g++", "c++17")
    } else {
        ("gcc", "c11")
    };
    let exe = out
        .join(source.file_stem().unwrap())
        .with_extension(if cxx { "cpp.bin" } else { "c.bin" });
    let output = Command::new(compiler)
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-g", "-O1"])
        .args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all"])
        .arg("-fno-omit-frame-pointer")
        .arg("-I")
        .arg(capi().join("include"))
        .arg(source)
        .arg(static_lib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e} (provisioning installs it)"));
    assert!(
        output.status.success(),
        "{compiler} -std={std} fails on {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// Runs a sanitized program in `cwd`; any sanitizer report fails it (and this test, with the
/// report).
fn run(exe: &Path, args: &[&Path], cwd: &Path) -> String {
    let output = Command::new(exe)
        .args(args)
        .current_dir(cwd)
        .env(
            "ASAN_OPTIONS",
            "detect_leaks=1:halt_on_error=1:abort_on_error=0",
        )
        .env("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{} failed ({}):\n{}",
        exe.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// `slangpack dump --json PATH`, from the CLI binary cargo builds beside this test (the whole
/// workspace's tests build it; `cargo build --bin slangpack` does alone).
fn dump_json(path: &Path) -> serde_json::Value {
    let exe = std::env::current_exe().unwrap();
    let cli = exe.parent().unwrap().join("../slangpack");
    let output = Command::new(&cli)
        .args(["dump", "--json"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): build it with `cargo build --bin slangpack`",
                cli.display()
            )
        });
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn bake(inputs: Vec<PathBuf>, compress: bool) -> Vec<u8> {
    bake_for(inputs, compress, &[])
}

/// Bakes `inputs` for SPIR-V and `targets`, leaving out the programs a target cannot take
/// (Slang refuses the examples' unbounded arrays and structure-field atomics on WGSL).
fn bake_for(inputs: Vec<PathBuf>, compress: bool, targets: &[Target]) -> Vec<u8> {
    let mut config = BakeConfig::new(inputs);
    config.jobs = 2;
    config.compress = compress;
    config.options.targets = targets.to_vec();
    config.keep_going = !targets.is_empty();
    bake::bake(&config)
        .expect("the examples bake")
        .bytes
        .into_vec()
}

/// The lines of `output` whose first word is one of `tags`.
fn tagged(output: &str, tags: &[&str]) -> String {
    output
        .lines()
        .filter(|l| tags.contains(&l.split(' ').next().unwrap_or("")))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The tags of the Vulkan lines, the further targets' and the D3D12 root parameters'.
const VULKAN_TAGS: [&str; 7] = [
    "entry",
    "entry_point",
    "binding",
    "push_constant",
    "vk_set_layout",
    "vk_binding",
    "vk_pipeline_layout",
];
const TARGET_TAGS: [&str; 2] = ["wgsl_binding", "hlsl_register"];
const D3D12_TAGS: [&str; 4] = [
    "d3d12_root_constants",
    "d3d12_table",
    "d3d12_range",
    "d3d12_root_signature",
];

/// The WGSL bindings and HLSL registers the examples must print, from `dump --json`, sorted.
fn expected_targets(json: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for entry in json["entries"].as_array().unwrap() {
        for (target, records) in entry["target_bindings"].as_object().unwrap() {
            for r in records.as_array().unwrap() {
                if r["place"].is_null() || r["space"].is_null() || r["kind"] == "push_constants" {
                    continue;
                }
                let place = match target.as_str() {
                    "wgsl" => format!("wgsl_binding group={} binding={}", r["space"], r["index"]),
                    "hlsl" => format!(
                        "hlsl_register register={}{} space={}",
                        r["register_class"].as_str().unwrap(),
                        r["index"],
                        r["space"]
                    ),
                    _ => continue,
                };
                let count = match &r["count"] {
                    serde_json::Value::String(u) => u.clone(),
                    n => n.to_string(),
                };
                out.push(format!(
                    "{place} count={count} kind={} path={}",
                    r["kind"].as_str().unwrap(),
                    r["path"].as_str().unwrap()
                ));
            }
        }
    }
    out.sort();
    out
}

/// The D3D12 root-parameter lines the examples must print, from the Rust reader's
/// `Pipeline::d3d12_root_parameters` of each entry baked for HLSL.
fn expected_d3d12(bytes: &[u8]) -> String {
    use slangpack_reader::{D3d12RangeType, D3d12RootParameter};
    let package = Package::from_bytes(bytes).unwrap();
    let mut out = String::new();
    for i in 0..package.len() {
        let entry = package.load_at(i).unwrap();
        if entry
            .entry_points()
            .next()
            .and_then(|ep| ep.code(Target::Hlsl))
            .is_none()
        {
            continue;
        }
        let Ok(pipeline) = entry.pipeline(entry.entry_points().map(|ep| ep.name())) else {
            continue;
        };
        let root = pipeline.d3d12_root_parameters().unwrap();
        let hlsl = entry.bind().target(Target::Hlsl);
        let count = |c: Option<u32>| c.map_or("unbounded".to_string(), |n| n.to_string());
        for (k, p) in root.parameters.iter().enumerate() {
            match p {
                D3d12RootParameter::Constants {
                    register,
                    space,
                    values,
                    binding,
                } => out.push_str(&format!(
                    "d3d12_root_constants index={k} register=b{register} space={space} \
                     values={values} path={}\n",
                    hlsl.path(binding)
                )),
                D3d12RootParameter::Table {
                    space,
                    samplers,
                    ranges,
                } => {
                    out.push_str(&format!(
                        "d3d12_table index={k} space={space} samplers={} ranges={}\n",
                        u32::from(*samplers),
                        ranges.len()
                    ));
                    for r in ranges {
                        let ty = match r.range_type {
                            D3d12RangeType::Srv => "SRV",
                            D3d12RangeType::Uav => "UAV",
                            D3d12RangeType::Cbv => "CBV",
                            D3d12RangeType::Sampler => "Sampler",
                        };
                        out.push_str(&format!(
                            "d3d12_range table={k} type={ty} base={} space={} count={} path={}\n",
                            r.base_register,
                            r.space,
                            count(r.count),
                            hlsl.path(r.binding)
                        ));
                    }
                }
            }
        }
        out.push_str(&format!(
            "d3d12_root_signature {}\n",
            root.to_root_signature_string()
        ));
    }
    out
}

/// `0x11` -> `vertex,fragment`, the names `dump --json` uses.
fn stages(flags: &str) -> String {
    let flags = u32::from_str_radix(flags.trim_start_matches("0x"), 16).unwrap();
    stage_flag_names(flags).collect::<Vec<_>>().join(",")
}

fn raw(value: &str) -> u32 {
    value.parse().unwrap()
}

/// The examples' output with numbers turned into `dump --json`'s names: stages, descriptor
/// kinds, counts. Lines stay in order.
fn normalize(output: &str) -> Vec<String> {
    output
        .lines()
        .map(|line| {
            let mut words = line.split(' ');
            let tag = words.next().unwrap();
            let mut fields: Vec<(String, String)> = words
                .map(|w| {
                    let (k, v) = w.split_once('=').unwrap();
                    (k.to_owned(), v.to_owned())
                })
                .collect();
            let count_kind = fields
                .iter()
                .find(|(k, _)| k == "count_kind")
                .map(|(_, v)| raw(v));
            for (k, v) in &mut fields {
                *v = match k.as_str() {
                    // `dump --json`'s stage names are the variants' names in lower case.
                    "stage" => format!("{:?}", Stage::from_raw(raw(v))).to_lowercase(),
                    "stages" | "stageFlags" => stages(v),
                    "type" | "descriptorType" => DescriptorKind::from_raw(raw(v)).name().to_owned(),
                    "count" => match count_kind {
                        Some(slangpack_format::bind::COUNT_UNBOUNDED) => "unbounded".to_owned(),
                        _ => v.clone(),
                    },
                    _ => v.clone(),
                };
            }
            fields.retain(|(k, _)| k != "count_kind");
            let fields: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{tag} {}", fields.join(" "))
        })
        .collect()
}

/// What the examples must print, from `slangpack dump --json`'s document alone.
fn expected(json: &serde_json::Value) -> Vec<String> {
    let s = |v: &serde_json::Value| v.as_str().unwrap().to_owned();
    let names = |v: &serde_json::Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(s)
            .collect::<Vec<_>>()
            .join(",")
    };
    let update_after_bind_pool = ash::vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL;
    let mut out = Vec::new();
    for entry in json["entries"].as_array().unwrap() {
        out.push(format!("entry key={}", s(&entry["key"])));
        for ep in entry["entry_points"].as_array().unwrap() {
            let t = &ep["thread_group_size"];
            out.push(format!(
                "entry_point name={} spirv_entry={} stage={} threads={},{},{} spirv_words={} magic=0x07230203",
                s(&ep["name"]),
                s(&ep["spirv_entry"]),
                s(&ep["stage"]),
                t[0],
                t[1],
                t[2],
                ep["spirv_words"]
            ));
        }
        let bindings = entry["bindings"].as_array().unwrap();
        for b in bindings {
            let count = match &b["count"] {
                serde_json::Value::String(u) => u.clone(),
                n => n.to_string(),
            };
            out.push(format!(
                "binding set={} binding={} type={} count={count} stages={} path={}",
                b["set"],
                b["binding"],
                s(&b["kind"]),
                names(&b["stages"]),
                s(&b["path"])
            ));
        }
        let push = entry["push_constants"].as_array().unwrap();
        for p in push {
            out.push(format!(
                "push_constant name={} offset={} size={} stages={}",
                s(&p["name"]),
                p["offset"],
                p["size"],
                names(&p["stages"])
            ));
        }
        let slots = entry["set_slot_count"].as_u64().unwrap();
        for set in 0..slots {
            let in_set: Vec<&serde_json::Value> = bindings
                .iter()
                .filter(|b| b["set"] == set && b["count"] != 0)
                .collect();
            let unbounded = in_set.iter().any(|b| b["count"] == "unbounded");
            let flags = if unbounded {
                update_after_bind_pool.as_raw()
            } else {
                0
            };
            out.push(format!(
                "vk_set_layout set={set} bindingCount={} flags={flags:#x}",
                in_set.len()
            ));
            for b in in_set {
                let count = if b["count"] == "unbounded" {
                    "1024".to_owned()
                } else {
                    b["count"].to_string()
                };
                out.push(format!(
                    "vk_binding set={set} binding={} descriptorType={} descriptorCount={count} stageFlags={}",
                    b["binding"],
                    s(&b["kind"]),
                    names(&b["stages"])
                ));
            }
        }
        out.push(format!(
            "vk_pipeline_layout setLayoutCount={slots} pushConstantRangeCount={}",
            push.len()
        ));
    }
    out
}

#[test]
fn c_and_cpp_examples_print_what_dump_json_says_under_sanitizers() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(&capi().join("examples/bindings.c"), dir.path());
    let cpp = build(&capi().join("examples/bindings.cpp"), dir.path());
    // Every example baked for HLSL; those WGSL takes baked for it.
    let mut target_lines = 0;
    let mut root_signatures = 0;
    for (name, target) in [("hlsl", Target::Hlsl), ("wgsl", Target::Wgsl)] {
        let bytes = bake_for(vec![repo().join("examples/shaders")], true, &[target]);
        let path = dir.path().join(format!("examples-{name}.slangpack"));
        std::fs::write(&path, &bytes).unwrap();
        let from_c = run(&c, &[&path], dir.path());
        let from_cpp = run(&cpp, &[&path], dir.path());
        assert_eq!(from_c, from_cpp, "the C and C++ examples agree ({name})");
        let json = dump_json(&path);
        assert_eq!(
            normalize(&tagged(&from_c, &VULKAN_TAGS)),
            expected(&json),
            "{name}"
        );
        let mut targets: Vec<String> = tagged(&from_c, &TARGET_TAGS)
            .lines()
            .map(str::to_string)
            .collect();
        targets.sort();
        assert_eq!(targets, expected_targets(&json), "{name}");
        assert!(targets.iter().all(|l| l.starts_with(name)), "{name}");
        target_lines += targets.len();
        let d3d12 = tagged(&from_c, &D3D12_TAGS);
        assert_eq!(d3d12, expected_d3d12(&bytes), "{name}");
        root_signatures += d3d12.matches("d3d12_root_signature").count();
    }
    assert!(target_lines > 20, "{target_lines} WGSL and HLSL lines");
    assert!(root_signatures >= 3, "{root_signatures} root signatures");

    let bytes = bake(vec![repo().join("examples/shaders")], true);
    let path = dir.path().join("examples.slangpack");
    std::fs::write(&path, &bytes).unwrap();
    let from_c = run(&c, &[&path], dir.path());
    let json = dump_json(&path);
    let expected = expected(&json);
    assert_eq!(normalize(&from_c), expected);
    // Every example entry and every kind of fact shows up, so the comparison compares something.
    for needle in [
        "entry key=pbr",
        "push_constant name=gDraw",
        "count=unbounded",
        "vk_set_layout set=1",
    ] {
        assert!(expected.iter().any(|l| l.contains(needle)), "{needle}");
    }
}

#[test]
fn the_readme_example_builds_as_c_and_cpp_and_runs_under_sanitizers() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = &readme[readme.find("## Quickstart").expect("the quickstart")..];
    let start = section.find("```c\n").expect("a C example") + "```c\n".len();
    let code = &section[start..start + section[start..].find("```").unwrap()];
    assert!(code.lines().count() <= 30, "the README example stays short");
    let dir = tempfile::tempdir().unwrap();
    let bytes = bake(vec![repo().join("examples/shaders/pbr.slang")], true);
    std::fs::write(dir.path().join("shaders.slangpack"), bytes).unwrap();
    // The quickstart compiles it as C++ (`app.cpp`); it is C11 as well.
    for name in ["readme.c", "app.cpp"] {
        std::fs::write(dir.path().join(name), code).unwrap();
        let exe = build(&dir.path().join(name), dir.path());
        let out = run(&exe, &[], dir.path());
        assert!(
            out.contains("set 1 binding 1 gScene.material.textures.albedo\n"),
            "{name}: {out}"
        );
    }
}

#[test]
fn every_truncation_and_byte_flip_through_the_c_api_is_refused_without_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&capi().join("tests/c/corrupt.c"), dir.path());
    // One small package stored compressed, one with raw reflection, where flipped bytes with
    // recomputed checksums reach validation itself.
    for compress in [true, false] {
        let bytes = bake(vec![repo().join("examples/shaders/blur.slang")], compress);
        let path = dir.path().join(format!("blur-{compress}.slangpack"));
        std::fs::write(&path, &bytes).unwrap();

        // Every 5th byte flipped, checksums recomputed: the C API must agree with the reader,
        // kind for kind, on which variants open.
        let mut variants = Vec::new();
        let mut expected = Vec::new();
        for i in (0..bytes.len()).step_by(5) {
            let mut v = bytes.clone();
            v[i] ^= 0x5A;
            if !slangpack_tests::walk::refix_checksums(&mut v) {
                continue;
            }
            let kind = match Package::from_bytes(&v).and_then(|p| p.verify_all()) {
                Ok(()) => slangpack_c::SlangpackErrorKind::Ok,
                Err(e) => e.kind().into(),
            };
            expected.push(format!("variant {} kind {}", expected.len(), kind as u32));
            variants.extend_from_slice(&(v.len() as u64).to_le_bytes());
            variants.extend_from_slice(&v);
        }
        let variants_path = dir.path().join(format!("variants-{compress}"));
        std::fs::write(&variants_path, variants).unwrap();

        let out = run(&exe, &[&path, &variants_path], dir.path());
        let mut lines = out.lines();
        let n = bytes.len();
        assert_eq!(
            lines.next().unwrap(),
            format!("truncations={n} refused={n} corruptions={n} refused={n} walked=0"),
            "every truncation and every flipped byte is refused by open or the full check (checksums)"
        );
        let got: Vec<&str> = lines.collect();
        assert_eq!(
            got, expected,
            "the C API opens exactly what the reader opens"
        );
        let opened = expected.iter().filter(|l| l.ends_with(" kind 0")).count();
        assert!(
            opened > 0 && opened < expected.len(),
            "some variants open (and are walked), some are refused: {opened} of {}",
            expected.len()
        );
    }
}

/// Compiles `examples/pipelines.c` as C11 (`gcc`) or as C++17 (`g++ -x c++`), with the
/// strictest warnings and UndefinedBehaviorSanitizer (AddressSanitizer's leak check would
/// report the Vulkan loader's and the layer's own allocations), linked against the static
/// library and the Vulkan loader.
fn build_vulkan_example(cxx: bool, out: &Path) -> PathBuf {
    let source = capi().join("examples/pipelines.c");
    let (compiler, std, name) = if cxx {
        ("g++", "c++17", "pipelines.cpp.bin")
    } else {
        ("gcc", "c11", "pipelines.c.bin")
    };
    let exe = out.join(name);
    let mut command = Command::new(compiler);
    if cxx {
        command.args(["-x", "c++"]);
    }
    let output = command
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-g", "-O1"])
        .args(["-fsanitize=undefined", "-fno-sanitize-recover=all"])
        .arg("-I")
        .arg(capi().join("include"))
        .arg(&source)
        .args(["-x", "none"])
        .arg(static_lib())
        .args(["-lvulkan", "-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e} (provisioning installs it)"));
    assert!(
        output.status.success(),
        "{compiler} -std={std} fails on {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// `examples/pipelines.c`, compiled as C and as C++, builds every compute and graphics
/// pipeline of the example shaders and of a one-stage-per-file pair on lavapipe with the
/// validation layer, from `slangpack_pipeline_*` and `SlangpackEntryPoint` alone (set layouts
/// with the pipeline's stage flags and binding flags, push-constant ranges, `vk_stage`,
/// `spirv_entry_name_c`): no validation message, and the layouts it reports are the reader's.
#[test]
fn the_c_pipelines_example_builds_every_pipeline_on_lavapipe_with_no_validation_message() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = repo().join("tests/shaders");
    let bytes = bake(
        vec![
            repo().join("examples/shaders"),
            shaders.join("split"),
            shaders.join("fullscreen_vertex.slang"),
        ],
        true,
    );
    let path = dir.path().join("pipelines.slangpack");
    std::fs::write(&path, &bytes).unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    // Several inputs: keys are relative to the folder they share.
    let (vert, frag) = (
        "tests/shaders/split/scene.vert",
        "tests/shaders/split/scene.frag",
    );
    let split = package.pipeline(&[(vert, "main"), (frag, "main")]).unwrap();
    let push: Vec<String> = split
        .push_constants()
        .map(|p| {
            format!(
                "{}..{}@{:#x}",
                p.record.offset,
                p.record.offset + p.record.size,
                p.stage_flags
            )
        })
        .collect();
    let split_line = format!(
        "pipeline {vert}:main+{frag}:main stages={:#x} sets={} push={}",
        split.stage_flags(),
        split.set_slot_count(),
        push.join(",")
    );
    assert_eq!(
        split_line,
        format!("pipeline {vert}:main+{frag}:main stages=0x11 sets=2 push=0..80@0x11")
    );

    for cxx in [false, true] {
        let exe = build_vulkan_example(cxx, dir.path());
        let output = Command::new(&exe)
            .arg(&path)
            .arg("tests/shaders/fullscreen_vertex:fullscreenMain")
            .env("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{} failed ({}):\n{stdout}\n{stderr}",
            exe.display(),
            output.status
        );
        let lines: Vec<&str> = stdout.lines().collect();
        let fullscreen = "pipeline tests/shaders/fullscreen_vertex:fullscreenMain";
        for expected in [
            split_line.clone(),
            "pipeline examples/shaders/blur:blurMain stages=0x20".into(),
            "pipeline examples/shaders/blur:clearHistogram stages=0x20".into(),
            "pipeline examples/shaders/pbr:vertexMain+examples/shaders/pbr:fragmentMain \
             stages=0x11"
                .into(),
            format!("{fullscreen}+examples/shaders/layered/layered:layeredFragment stages=0x11"),
            format!("{fullscreen}+tests/shaders/split/conflict.frag:main stages=0x11"),
        ] {
            assert!(
                lines.iter().any(|l| l.starts_with(&expected)),
                "{expected:?} missing from:\n{stdout}"
            );
        }
        let summary = lines.last().copied().unwrap_or("");
        assert!(
            summary.ends_with("validation_messages=0"),
            "{summary}\n{stderr}"
        );
        // Six pipelines, and the bindless kernel built or skipped by the device's features.
        assert!(
            summary.starts_with("built=7 skipped=0") || summary.starts_with("built=6 skipped=1"),
            "{stdout}"
        );
    }
}

/// Each entry point's code per target, every target binding and the HLSL and Metal member
/// layouts, read from C (under both sanitizers), are what the Rust reader says: the HLSL
/// registers, `proof_uniforms`' `gParams` 348 bytes for HLSL and 320 for Metal, member by
/// member.
#[test]
fn further_targets_code_bindings_and_member_layouts_read_from_c_match_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(&capi().join("tests/c/targets.c"), dir.path());
    let shaders = repo().join("tests/shaders");
    let mut config = BakeConfig::new(vec![
        shaders.join("proof_uniforms.slang"),
        shaders.join("proof_blocks.slang"),
    ]);
    config.jobs = 2;
    config.options.targets = vec![Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal];
    let bytes = bake::bake(&config).expect("bakes").bytes;
    let path = dir.path().join("targets.slangpack");
    std::fs::write(&path, &bytes).unwrap();
    let printed: Vec<String> = run(&exe, &[&path], dir.path())
        .lines()
        .map(str::to_string)
        .collect();
    let expected = target_lines(&bytes);
    assert_eq!(printed, expected);
    // What an engine on each target reads: the HLSL registers, and the target sizes.
    let hlsl = Target::Hlsl.to_raw();
    assert!(
        printed.contains(&format!("binding proof_uniforms {hlsl} gParams b 1 0")),
        "{printed:#?}"
    );
    assert!(printed.contains(&format!("buffer proof_uniforms {hlsl} gParams 348")));
    let metal = Target::Metal.to_raw();
    assert!(printed.contains(&format!("buffer proof_uniforms {metal} gParams 320")));
    assert!(printed.contains(&format!(
        "member proof_uniforms {hlsl} gParams items[].y 4 8 0 0"
    )));
    assert!(printed.contains(&format!(
        "member proof_uniforms {metal} gParams tail 304 16 0 0"
    )));
    // A Metal argument buffer's struct (argument_buffers bakes for Metal, not WGSL, whose
    // structs hold no textures): 240 bytes, its four textures 8 bytes apart at 168.
    let mut config = BakeConfig::new(vec![shaders.join("argument_buffers.slang")]);
    config.jobs = 1;
    config.options.targets = vec![Target::Metal];
    let bytes = bake::bake(&config).expect("bakes").bytes;
    std::fs::write(&path, &bytes).unwrap();
    let printed: Vec<String> = run(&exe, &[&path], dir.path())
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(printed, target_lines(&bytes));
    let texture = slangpack_format::ArgumentMemberKind::Texture.to_raw();
    assert!(printed.contains(&"argument_buffer argument_buffers gMaterial 240 16 17".to_string()));
    assert!(
        printed.contains(&format!(
            "argument argument_buffers gMaterial extra {texture} 168 32 4 8 15 gMaterial.extra"
        )),
        "{printed:#?}"
    );
}

/// What `tests/c/targets.c` prints for the package `bytes`, from the Rust reader.
fn target_lines(bytes: &[u8]) -> Vec<String> {
    use slangpack_format::Target;
    let package = Package::from_bytes(bytes).unwrap();
    let mut expected = Vec::new();
    for entry in package.entries() {
        let entry = entry.unwrap();
        let key = entry.key();
        for (e, ep) in entry.entry_points().enumerate() {
            for t in [Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal] {
                if let Some(code) = ep.code(t) {
                    let (raw, len, name) = (t.to_raw(), code.bytes().len(), code.entry_name());
                    expected.push(format!("code {key} {e} {raw} {len} {name}"));
                }
            }
        }
        let view = entry.reflection().unwrap();
        let bind = view.bind();
        let all = view.target_bindings();
        for b in all {
            let class = b.register_char().map_or("-".to_string(), String::from);
            let path = bind.string(b.path);
            let (t, index, space) = (b.target, b.index, b.space);
            expected.push(format!("binding {key} {t} {path} {class} {index} {space}"));
        }
        for t in view.target_buffers() {
            let b = &all[t.target_binding as usize];
            let path = bind.string(b.path);
            expected.push(format!("buffer {key} {} {path} {}", b.target, t.size));
            let target_view = bind.target(b.target_kind());
            let vulkan = bind.buffer_layout(t.buffer_layout).unwrap();
            for (m, own) in bind
                .members(vulkan)
                .iter()
                .zip(target_view.target_members(t))
            {
                expected.push(format!(
                    "member {key} {} {path} {} {} {} {} {}",
                    b.target,
                    bind.string(m.path),
                    own.offset,
                    own.size,
                    own.array_stride,
                    own.matrix_stride
                ));
            }
        }
        let metal = bind.target(Target::Metal);
        for b in all {
            let Some(ab) = metal.argument_buffer(b) else {
                continue;
            };
            let path = bind.string(b.path);
            let (size, align, n) = (ab.size(), ab.alignment(), ab.members().len());
            expected.push(format!("argument_buffer {key} {path} {size} {align} {n}"));
            for m in ab.members() {
                let own = ab.binding(m).map_or("-", |o| bind.string(o.path));
                expected.push(format!(
                    "argument {key} {path} {} {} {} {} {} {} {} {own}",
                    ab.path(m),
                    m.kind,
                    m.offset,
                    m.size,
                    m.count,
                    m.stride,
                    m.id
                ));
            }
        }
    }
    expected
}

//! Writer features with the real compiler: in-memory imports, warnings, type conformances,
//! module composition order, entry-point selection, incremental rebakes, parallel determinism.

use slangpack_reader::Package;
use slangpack_writer::bake::{self, BakeConfig};
use slangpack_writer::compile::{CompileOptions, Compiler, Source};
use std::path::{Path, PathBuf};

fn mem(name: &str, text: &str) -> Source {
    Source {
        path: PathBuf::from(name),
        text: text.to_string(),
        slang_path: None,
    }
}

#[test]
fn imports_resolve_from_memory_without_files() {
    let compiler = Compiler::new().unwrap();
    let common = mem(
        "nowhere/common.slang",
        "module common;\npublic float3 tint(float3 c) { return c * 0.5; }\n",
    );
    let main = mem(
        "nowhere/material.slang",
        "import common;\nRWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { gOut[0] = float4(tint(float3(1, 1, 1)), 1); }\n",
    );
    let program = compiler
        .compile_with_imports("material", &main, &[common], &CompileOptions::default())
        .expect("the import resolves from memory");
    assert_eq!(program.entry_points.len(), 1);
    let missing = compiler.compile("material", &main, &CompileOptions::default());
    let error = missing.expect_err("without the in-memory module the import fails");
    assert!(
        error.diagnostics().contains("common"),
        "{}",
        error.diagnostics()
    );
}

#[test]
fn warnings_are_kept_on_success() {
    let compiler = Compiler::new().unwrap();
    let source = mem(
        "w.slang",
        "Texture2D gT[];\nSamplerState gS;\nRWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid main(uint3 t : SV_DispatchThreadID) { gOut[0] = gT[NonUniformResourceIndex(t.x)].SampleLevel(gS, float2(0, 0), 0); }\n",
    );
    let program = compiler
        .compile("w", &source, &CompileOptions::default())
        .unwrap();
    assert!(
        program.warnings.contains("warning"),
        "warnings: {:?}",
        program.warnings
    );
}

/// Code generation of a program reading a parameter block of an interface without a
/// conformance reports E50100 once for each place Slang lowers the interface (four times in
/// one diagnostics text from Slang 2026.12); the error carries it once, verbatim, closing
/// line (dashes as wide as the excerpt's line-number gutter, then `'`) included.
#[test]
fn a_diagnostic_slang_repeats_in_one_compile_is_reported_once() {
    let compiler = Compiler::new().unwrap();
    let source = mem(
        "noconf.slang",
        "interface IShade { float4 shade(); };\nParameterBlock<IShade> gShade;\n\
         RWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(1,1,1)]\n\
         void main() { gOut[0] = gShade.shade(); }\n",
    );
    let error = compiler
        .compile("noconf", &source, &CompileOptions::default())
        .unwrap_err();
    let diagnostics = error.diagnostics();
    assert_eq!(
        diagnostics.matches("error[E50100]").count(),
        1,
        "{diagnostics}"
    );
    let closing = diagnostics
        .lines()
        .filter(|l| l.len() > 1 && l.trim_start_matches('-') == "'")
        .count();
    assert_eq!(closing, 1, "{diagnostics}");
    assert!(
        diagnostics.contains("No type conformances are found for interface 'IShade'"),
        "{diagnostics}"
    );
}

const INTERFACE_BLOCK: &str = r#"
interface IMaterial { float4 shade(float2 uv); }
struct Glossy : IMaterial { float4 tint; float4 shade(float2 uv) { return tint * uv.x; } }
ParameterBlock<IMaterial> gMaterial;
RWStructuredBuffer<float4> gOut;
[shader("compute")][numthreads(1,1,1)]
void main() { gOut[0] = gMaterial.shade(float2(1, 0)); }
"#;

#[test]
fn type_conformances_specialize_interface_typed_parameter_blocks() {
    let compiler = Compiler::new().unwrap();
    let source = mem("iface.slang", INTERFACE_BLOCK);
    let without = compiler.compile("iface", &source, &CompileOptions::default());
    assert!(
        without.is_err(),
        "an interface-typed block needs a conformance"
    );

    let options = CompileOptions {
        conformances: vec![("Glossy".into(), "IMaterial".into())],
        ..CompileOptions::default()
    };
    let program = compiler
        .compile("iface", &source, &options)
        .expect("specialized");
    assert_eq!(program.entry_points.len(), 1);

    let unknown = CompileOptions {
        conformances: vec![("Matte".into(), "IMaterial".into())],
        ..CompileOptions::default()
    };
    let error = compiler.compile("iface", &source, &unknown).unwrap_err();
    assert!(
        error.diagnostics().contains("Matte"),
        "{}",
        error.diagnostics()
    );
}

#[test]
fn composed_modules_follow_the_given_order_and_entry_points_can_be_chosen() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("extra.slang"),
        "module extra;\npublic Texture2D gExtra;\n",
    )
    .unwrap();
    let main = dir.path().join("main.slang");
    std::fs::write(
        &main,
        "import extra;\nTexture2D gMain;\nSamplerState gS;\nRWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid a() { gOut[0] = gMain.SampleLevel(gS, 0, 0) + gExtra.SampleLevel(gS, 0, 0); }\n[shader(\"compute\")][numthreads(2,1,1)]\nvoid b() { gOut[1] = 1; }\n",
    )
    .unwrap();
    let mut config = BakeConfig::new(vec![main.clone()]);
    config.options.modules = vec!["extra".into()];
    config.options.entry_points = vec!["b".into()];
    let outcome = bake::bake(&config).unwrap();
    let package = Package::from_bytes(&outcome.bytes).unwrap();
    let entry = package.load("main").unwrap();
    let names: Vec<&str> = entry.entry_points().map(|e| e.name()).collect();
    assert_eq!(names, ["b"], "only the chosen entry point is compiled");
    let bind = entry.bind();
    let main_binding = bind.binding("gMain").unwrap().binding;
    let extra_binding = bind.binding("gExtra").unwrap().binding;
    assert!(
        main_binding < extra_binding,
        "the main module's parameters come first"
    );
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

/// What changes when a file is replaced or rewritten: its inode and modification time.
fn file_identity(path: &Path) -> (u64, std::time::SystemTime) {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(path).unwrap();
    (metadata.ino(), metadata.modified().unwrap())
}

#[test]
fn incremental_rebakes_reuse_unchanged_entries_and_recompile_dependents() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    write(
        &src.join("shared.slang"),
        "module shared;\npublic float k() { return 2; }\n",
    );
    write(&src.join("a.slang"), "import shared;\nRWStructuredBuffer<float> o;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { o[0] = k(); }\n");
    write(&src.join("b.slang"), "RWStructuredBuffer<float> o;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { o[0] = 3; }\n");
    let out = dir.path().join("p.slangpack");
    let mut config = BakeConfig::new(vec![src.clone()]);
    let first = bake::bake_to_file(&config, &out).unwrap();
    assert_eq!((first.entries.len(), first.reused), (2, 0));

    config.previous = Some(out.clone());
    let before = file_identity(&out);
    let second = bake::bake_to_file(&config, &out).unwrap();
    assert_eq!(second.reused, 2, "nothing changed");
    assert_eq!(
        second.compiled, 0,
        "nothing went to Slang, not even the imported module the scan found"
    );
    assert!(!second.assembled, "the previous package is taken as it is");
    assert!(
        second.bytes == first.bytes,
        "a fully reused bake is byte-identical"
    );
    assert_eq!(file_identity(&out), before, "the package was not rewritten");
    // Reused whole into another output, the package is written there: that the output holds
    // it is known without reading only when the output is the file it was read from.
    let elsewhere = dir.path().join("elsewhere.slangpack");
    write(&elsewhere, "not a package");
    let copied = bake::bake_to_file(&config, &elsewhere).unwrap();
    assert!(!copied.assembled);
    assert!(std::fs::read(&elsewhere).unwrap() == std::fs::read(&out).unwrap());
    let mut force = config.clone();
    force.previous = None;
    assert!(
        bake::bake(&force).unwrap().bytes == second.bytes,
        "a no-op rebake gives what a full bake gives"
    );
    // Asked to store SPIR-V raw, the same entries are assembled anew (and then reused as they
    // are); asked for raw reflection, likewise.
    for (compress, compress_spirv) in [(true, false), (false, true), (false, false)] {
        let mut other = config.clone();
        (other.compress, other.compress_spirv) = (compress, compress_spirv);
        let again = bake::bake_to_file(&other, &out).unwrap();
        assert_eq!((again.reused, again.assembled), (2, true));
        let mut whole = other.clone();
        whole.previous = None;
        assert!(bake::bake(&whole).unwrap().bytes == again.bytes);
        let before = file_identity(&out);
        let noop = bake::bake_to_file(&other, &out).unwrap();
        assert_eq!((noop.reused, noop.assembled), (2, false));
        assert!(noop.bytes == again.bytes);
        assert_eq!(file_identity(&out), before);
    }
    let restored = bake::bake_to_file(&config, &out).unwrap();
    assert!(restored.assembled && restored.bytes == first.bytes);
    // Leaving a permutation out is a change: the package is assembled and rewritten.
    let mut only_b = config.clone();
    only_b.inputs = vec![src.join("b.slang")];
    only_b.root = Some(src.clone());
    let before = file_identity(&out);
    let fewer = bake::bake_to_file(&only_b, &out).unwrap();
    assert_eq!((fewer.reused, fewer.assembled), (1, true));
    assert_ne!(file_identity(&out), before, "the package was rewritten");
    assert!(bake::bake_to_file(&config, &out).unwrap().bytes == first.bytes);

    // The same package as another writer build would have made it: identical code and
    // reflection, but that build's options hash. Nothing of it may be reused.
    let older: Vec<_> = Package::from_bytes(&second.bytes)
        .unwrap()
        .entries()
        .map(|entry| {
            let mut baked = slangpack_pack::merge::baked_entry(&entry.unwrap()).unwrap();
            baked.options_hash ^= 1;
            baked
        })
        .collect();
    std::fs::write(
        &out,
        slangpack_pack::assemble::assemble(&older, true).unwrap(),
    )
    .unwrap();
    let rebuilt = bake::bake_to_file(&config, &out).unwrap();
    assert_eq!(
        rebuilt.reused, 0,
        "another writer build's entries are recompiled"
    );
    assert!(rebuilt.bytes == first.bytes);

    write(
        &src.join("shared.slang"),
        "module shared;\npublic float k() { return 5; }\n",
    );
    let before = file_identity(&out);
    let third = bake::bake_to_file(&config, &out).unwrap();
    assert_eq!(
        third.reused, 1,
        "only b is reused; a depends on the changed module"
    );
    assert!(third.assembled && third.bytes != first.bytes);
    assert_ne!(
        file_identity(&out),
        before,
        "a changed input rewrites the package"
    );
    assert!(std::fs::read(&out).unwrap() == *third.bytes);

    config.options.defines = vec![("X".into(), "1".into())];
    let fourth = bake::bake_to_file(&config, &out).unwrap();
    assert_eq!(
        fourth.reused, 0,
        "new options, new keys: everything recompiles"
    );
}

#[test]
fn parallel_and_serial_bakes_are_identical() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders");
    let mut serial = BakeConfig::new(vec![dir.clone()]);
    serial.jobs = 1;
    let mut parallel = BakeConfig::new(vec![dir]);
    parallel.jobs = 4;
    let a = bake::bake(&serial).unwrap().bytes;
    let b = bake::bake(&parallel).unwrap().bytes;
    assert!(a == b, "the worker count changed the package");
}

#[test]
fn generic_entry_points_are_specialized_by_type_arguments() {
    let compiler = Compiler::new().unwrap();
    let source = mem(
        "generic.slang",
        r#"
        interface IFilter { static float weight(int i); }
        struct Box : IFilter { static float weight(int i) { return 1.0; } }
        struct Tent : IFilter { static float weight(int i) { return 2.0 - float(abs(i)); } }
        RWStructuredBuffer<float> gOut;
        [shader("compute")][numthreads(4,1,1)]
        void filterMain<F : IFilter>(uint3 t : SV_DispatchThreadID) { gOut[t.x] = F.weight(int(t.x)); }
        "#,
    );
    let with = |arg: &str| CompileOptions {
        type_arguments: vec![arg.to_string()],
        ..CompileOptions::default()
    };
    let boxed = compiler
        .compile("g", &source, &with("Box"))
        .expect("Box specializes");
    let tent = compiler
        .compile("g", &source, &with("Tent"))
        .expect("Tent specializes");
    assert_eq!(boxed.entry_points[0].thread_group_size, [4, 1, 1]);
    assert_ne!(
        boxed.entry_points[0].spirv, tent.entry_points[0].spirv,
        "different code per type"
    );
    let wrong = compiler.compile("g", &source, &with("Nope")).unwrap_err();
    assert!(
        wrong.diagnostics().contains("Nope"),
        "{}",
        wrong.diagnostics()
    );
    let too_many = CompileOptions {
        type_arguments: vec!["Box".into(), "Tent".into()],
        ..CompileOptions::default()
    };
    let error = compiler.compile("g", &source, &too_many).unwrap_err();
    assert!(
        error.diagnostics().contains("1 generic parameters"),
        "{}",
        error.diagnostics()
    );
}

/// Whether `frame` (one zstd frame, RFC 8878) is made of raw blocks only: decoding it is a copy.
fn raw_blocks_only(frame: &[u8]) -> bool {
    let descriptor = frame[4];
    let single_segment = descriptor & 0x20 != 0;
    let dict_id = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let content_size = match descriptor >> 6 {
        0 => usize::from(single_segment),
        flag => 1 << flag,
    };
    let mut at = 5 + usize::from(!single_segment) + dict_id + content_size;
    loop {
        let header = u32::from_le_bytes([frame[at], frame[at + 1], frame[at + 2], 0]);
        let (last, kind, size) = (header & 1 != 0, (header >> 1) & 3, (header >> 3) as usize);
        if kind != 0 {
            return false;
        }
        at += 3 + size;
        if last {
            return true;
        }
    }
}

/// The first frames of the package's split reflection blobs (SPEC.md 6.1: the bind view),
/// each with the blob it belongs to.
fn bind_view_frames(bytes: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let package = Package::from_bytes(bytes).unwrap();
    let mut blobs = std::collections::HashMap::new();
    for entry in package.entries() {
        let entry = entry.unwrap();
        let blob = entry.reflection().unwrap().as_bytes().to_vec();
        blobs.insert(entry.record().reflection, blob);
    }
    let mut frames = Vec::new();
    let mut reflection = 0;
    for section in package.sections() {
        if section.section_kind() != slangpack_format::SectionKind::Reflection {
            continue;
        }
        let start = section.offset() as usize;
        let stored = &bytes[start..start + section.stored_size() as usize];
        // Frames as a builder takes them: whole, where the package stores them bare (2.4).
        let whole;
        let stored = match package.has_bare_frames() && section.compression_kind().is_zstd() {
            true => {
                whole = slangpack_format::restore_magic(stored).unwrap();
                &whole[..]
            }
            false => stored,
        };
        let first = zstd::zstd_safe::find_frame_compressed_size(stored).unwrap();
        if first < stored.len() {
            frames.push((stored[..first].to_vec(), blobs[&reflection].clone()));
        }
        reflection += 1;
    }
    frames
}

#[test]
fn a_raw_layout_bake_stores_bind_views_as_raw_blocks_and_the_default_compresses_them() {
    let dir = slangpack_tests::layout::example_shaders_dir();
    let mut config = BakeConfig::new(vec![dir]);
    config.jobs = 2;
    assert!(
        config.compress_spirv,
        "the default layout compresses SPIR-V"
    );
    config.compress_spirv = false;
    let raw = bake::bake(&config).unwrap().bytes.into_vec();
    let frames = bind_view_frames(&raw);
    assert!(!frames.is_empty(), "the examples have split blobs");
    for (frame, blob) in &frames {
        assert!(
            raw_blocks_only(frame),
            "a raw-layout bind view is stored raw"
        );
        let bind = zstd::bulk::decompress(frame, blob.len()).unwrap();
        assert!(!bind.is_empty() && blob.starts_with(&bind));
    }
    config.compress_spirv = true;
    let small = bake::bake(&config).unwrap().bytes.into_vec();
    let frames = bind_view_frames(&small);
    assert!(!frames.is_empty());
    assert!(
        frames.iter().all(|(frame, _)| !raw_blocks_only(frame)),
        "the default layout, the package for shipping, compresses the bind view"
    );
    assert!(small.len() < raw.len());
}

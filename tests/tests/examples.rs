//! The example shaders baked with the real Slang compiler and read back with the reader.

use slangpack_reader::Package;
use slangpack_writer::bake::{self, BakeConfig};
use slangpack_writer::compile::{CompileOptions, Compiler, Source};
use std::path::{Path, PathBuf};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders")
}

fn bake_examples(dir: &Path) -> bake::BakeOutcome {
    let mut config = BakeConfig::new(vec![dir.to_path_buf()]);
    config.jobs = 2;
    bake::bake(&config).expect("the examples bake")
}

#[test]
fn every_example_entry_point_is_stored_with_the_spirv_slang_produced() {
    let outcome = bake_examples(&examples_dir());
    let package = Package::from_bytes(&outcome.bytes).expect("the package opens");

    let keys: Vec<&str> = package.keys().collect();
    assert_eq!(
        keys,
        ["bindless", "blur", "layered/layered", "pbr"],
        "library modules are not entries"
    );

    let compiler = Compiler::new().unwrap();
    let expected = [
        ("bindless", vec![("shadeMain", "Compute", [16, 16, 1])]),
        (
            "blur",
            vec![
                ("blurMain", "Compute", [8, 8, 1]),
                ("clearHistogram", "Compute", [64, 1, 1]),
            ],
        ),
        (
            "layered/layered",
            vec![("layeredFragment", "Fragment", [1, 1, 1])],
        ),
        (
            "pbr",
            vec![
                ("vertexMain", "Vertex", [1, 1, 1]),
                ("fragmentMain", "Fragment", [1, 1, 1]),
            ],
        ),
    ];
    for (key, entry_points) in expected {
        let entry = package.load(key).unwrap_or_else(|_| panic!("entry {key}"));
        let source = Source::read(&examples_dir().join(format!("{key}.slang"))).unwrap();
        let direct = compiler
            .compile(key, &source, &CompileOptions::default())
            .unwrap();
        let stored: Vec<_> = entry.entry_points().collect();
        assert_eq!(stored.len(), entry_points.len(), "{key}");
        for ((ep, (name, stage, threads)), compiled) in
            stored.iter().zip(&entry_points).zip(&direct.entry_points)
        {
            assert_eq!(ep.name(), *name);
            assert_eq!(format!("{:?}", ep.stage()), *stage);
            assert_eq!(ep.thread_group_size(), *threads, "{name}");
            assert_eq!(ep.spirv_entry_name(), "main", "{name}");
            assert_eq!(
                ep.spirv()[0],
                0x0723_0203,
                "{name} starts with the SPIR-V magic"
            );
            assert_eq!(
                ep.spirv(),
                compiled.spirv.as_slice(),
                "{name}: stored SPIR-V differs"
            );
        }
    }
}

#[test]
fn baking_is_deterministic_and_independent_of_the_tree_location() {
    let first = bake_examples(&examples_dir()).bytes;
    let second = bake_examples(&examples_dir()).bytes;
    assert!(first == second, "two bakes of the same inputs differ");

    let copy = tempfile::tempdir().unwrap();
    copy_tree(&examples_dir(), &copy.path().join("shaders"));
    let moved = bake_examples(&copy.path().join("shaders")).bytes;
    assert!(
        first == moved,
        "the package depends on where the sources sit"
    );

    let package = Package::from_bytes(&first).unwrap();
    let layered = package.load("layered/layered").unwrap();
    let deps: Vec<&str> = layered.dependencies().map(|d| d.path()).collect();
    assert_eq!(deps, ["layered/common.slang", "layered/layered.slang"]);
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn a_failed_bake_reports_slang_verbatim_and_leaves_the_package_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.slang");
    std::fs::write(
        &good,
        "RWStructuredBuffer<uint> o;\n[shader(\"compute\")][numthreads(1,1,1)]\nvoid main(uint3 t : SV_DispatchThreadID) { o[t.x] = t.x; }\n",
    )
    .unwrap();
    let output = dir.path().join("out.slangpack");
    bake::bake_to_file(&BakeConfig::new(vec![good.clone()]), &output).unwrap();
    let before = std::fs::read(&output).unwrap();

    std::fs::write(
        &good,
        "[shader(\"compute\")][numthreads(1,1,1)]\nvoid main() { undefinedThing(); }\n",
    )
    .unwrap();
    let error = bake::bake_to_file(&BakeConfig::new(vec![good]), &output).unwrap_err();
    let diagnostics = error.diagnostics();
    assert!(
        diagnostics.contains("undefinedThing"),
        "diagnostics: {diagnostics}"
    );
    assert!(diagnostics.contains("error"), "diagnostics: {diagnostics}");
    assert!(
        error.to_string().starts_with("good: "),
        "message names the permutation: {error}"
    );
    assert_eq!(
        std::fs::read(&output).unwrap(),
        before,
        "the old package was modified"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 2, "no temporary files are left behind");
}

/// The default layout keeps the raw tables' dictionary apart from the one a load needs: the
/// first binding of an entry never decompresses it, the raw tables come out of it whole, as the
/// raw layout stores them.
#[test]
fn the_raw_tables_have_a_dictionary_of_their_own() {
    use slangpack_format::{Compression, SectionKind};
    let outcome = bake_examples(&examples_dir());
    let package = Package::from_bytes(&outcome.bytes).expect("the package opens");
    let sections: Vec<_> = package.sections().collect();
    let tables_dictionary: Vec<_> = sections
        .iter()
        .filter(|s| s.section_kind() == SectionKind::TablesDictionary)
        .collect();
    assert_eq!(tables_dictionary.len(), 1, "the four programs share one");
    let split = Compression::ZstdSplitDictionaries;
    assert!(sections
        .iter()
        .filter(|s| s.section_kind() == SectionKind::Reflection)
        .all(|s| s.compression_kind() == split));

    let mut config = BakeConfig::new(vec![examples_dir()]);
    config.jobs = 2;
    config.compress_spirv = false;
    let raw = bake::bake(&config).expect("the raw-layout bake");
    let raw = Package::from_bytes(&raw.bytes).expect("the raw-layout package opens");
    let tables_raw = tables_dictionary[0].raw_size();
    for key in ["bindless", "blur", "layered/layered", "pbr"] {
        let entry = package.load(key).unwrap();
        let before = package.owned_bytes();
        let view = entry.reflection().unwrap();
        let after = package.owned_bytes();
        let expected = raw.load(key).unwrap().reflection().unwrap();
        assert_eq!(view.types(), expected.types(), "{key}");
        assert_eq!(view.type_layouts(), expected.type_layouts(), "{key}");
        assert_eq!(view.var_layouts(), expected.var_layouts(), "{key}");
        assert_eq!(view.decls(), expected.decls(), "{key}");
        assert_eq!(view.u32_pool(), expected.u32_pool(), "{key}");
        if key == "bindless" {
            // The first entry's raw tables load the dictionary: until then no load needed it.
            assert!(after - before >= tables_raw, "{before} -> {after}");
        }
    }
}

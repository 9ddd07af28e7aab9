//! The JSON documents of `slangpack dump --json` and `slangpack diff --json` follow their
//! committed JSON Schemas (`reader/tools/schema/*.schema.json`), checked by an independent
//! validator (the `jsonschema` crate), and read back into the document types as the same
//! documents.
//!
//! The dumps are of every test shader under `tests/shaders` that bakes, baked for SPIR-V and
//! for each further target it bakes for; the diffs are of pairs of packages that differ in
//! bindings, in buffer layouts, in targets and in code alone.

use slangpack_format::Target;
use slangpack_reader::Package;
use slangpack_tests::layout::test_shaders_dir;
use slangpack_tools::diff::{Change, DiffDoc};
use slangpack_tools::dump::PackageDoc;
use std::path::{Path, PathBuf};

/// A validator of the committed schema `text`, itself checked against the meta-schema.
fn validator(text: &str) -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(text).expect("the schema is JSON");
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("the schema is not a valid JSON Schema: {e}");
    }
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// Panics with every schema violation of the document `text` (`what` names it).
fn conforms(validator: &jsonschema::Validator, what: &str, text: &str) {
    let document: serde_json::Value = serde_json::from_str(text).expect("the document is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: the document breaks its schema:\n{}",
        errors.join("\n")
    );
}

/// Bakes `inputs` for `targets` besides SPIR-V, leaving out the programs that fail (a shader
/// not every target takes); `None` when nothing baked.
fn bake(inputs: &[PathBuf], targets: &[Target]) -> Option<Vec<u8>> {
    let mut config = slangpack_writer::bake::BakeConfig::new(inputs.to_vec());
    config.jobs = 2;
    config.keep_going = true;
    config.options.targets = targets.to_vec();
    let outcome = slangpack_writer::bake::bake(&config).ok()?;
    (!outcome.entries.is_empty()).then_some(outcome.bytes.into_vec())
}

/// The packages of the test shaders: the shader directory (and the manifests of the
/// specialized ones) for SPIR-V alone and for each further target, each named.
fn test_packages() -> Vec<(String, Vec<u8>)> {
    let shaders = test_shaders_dir();
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(shaders.join("specialized"))
        .expect("the specialized shaders")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    manifests.sort();
    let mut packages = Vec::new();
    let targets: [(&str, &[Target]); 5] = [
        ("spirv", &[]),
        ("wgsl", &[Target::Wgsl]),
        ("glsl", &[Target::Glsl]),
        ("hlsl", &[Target::Hlsl]),
        ("metal", &[Target::Metal]),
    ];
    for (name, targets) in targets {
        if let Some(bytes) = bake(std::slice::from_ref(&shaders), targets) {
            packages.push((format!("tests/shaders for {name}"), bytes));
        }
        for manifest in &manifests {
            if let Some(bytes) = bake(std::slice::from_ref(manifest), targets) {
                packages.push((format!("{} for {name}", manifest.display()), bytes));
            }
        }
    }
    packages
}

/// Checks the `dump --json` document of `package` against the schema and the types.
fn check_dump(validator: &jsonschema::Validator, name: &str, package: &Package) -> PackageDoc {
    let text = slangpack_tools::dump::package_json_text(package).expect("within the budget");
    conforms(validator, name, &text);
    let read: PackageDoc = serde_json::from_str(&text).expect("reads back as a PackageDoc");
    let doc = slangpack_tools::dump::package_doc(package);
    assert_eq!(read, doc, "{name}: the document read back differs");
    assert_eq!(read.schema_version, slangpack_tools::dump::SCHEMA_VERSION);
    doc
}

#[test]
fn every_test_package_dump_follows_the_committed_schema_and_reads_back() {
    let validator = validator(slangpack_tools::dump::JSON_SCHEMA);
    let packages = test_packages();
    let mut entries = 0;
    let mut target_bindings = 0;
    for (name, bytes) in &packages {
        let package = Package::from_bytes(bytes).expect("a baked package opens");
        let doc = check_dump(&validator, name, &package);
        entries += doc.entries.len();
        target_bindings += doc
            .entries
            .iter()
            .map(|e| e.target_bindings.values().map(Vec::len).sum::<usize>())
            .sum::<usize>();
    }
    // Every further target baked something, and the documents held their bind views.
    for target in ["spirv", "wgsl", "glsl", "hlsl", "metal"] {
        assert!(
            packages
                .iter()
                .any(|(name, _)| name == &format!("tests/shaders for {target}")),
            "no test shader baked for {target}"
        );
    }
    assert!(entries > 100, "only {entries} entries dumped");
    // The validator refuses what breaks the schema: another schema version, a key that is no
    // string.
    let package = Package::from_bytes(&packages[0].1).unwrap();
    let mut broken = slangpack_tools::dump::package_json(&package);
    broken["schema_version"] = 2.into();
    assert!(!validator.is_valid(&broken));
    let mut broken = slangpack_tools::dump::package_json(&package);
    broken["entries"][0]["key"] = 5.into();
    assert!(!validator.is_valid(&broken));
    assert!(target_bindings > 0, "no further target's binding dumped");
}

/// A compute shader named `variant.slang` in a directory of its own (so every variant has the
/// key `variant`): a uniform buffer of `params`, the resources `resources`, and a body that
/// adds `constant`.
fn variant(dir: &Path, params: &str, resources: &str, constant: u32) -> PathBuf {
    let folder = dir.join(format!("v{}", std::fs::read_dir(dir).unwrap().count()));
    std::fs::create_dir(&folder).unwrap();
    let path = folder.join("variant.slang");
    let source = format!(
        "struct Light {{ float3 dir; float intensity; }};\n\
         struct Params {{ {params} }};\n\
         ConstantBuffer<Params> gParams;\n\
         {resources}\n\
         [shader(\"compute\")][numthreads(8, 1, 1)]\n\
         void main(uint3 id: SV_DispatchThreadID)\n\
         {{\n\
             float s = gTex.SampleLevel(gSampler, float2(0.5, 0.5), 0).x;\n\
             gOut[id.x] = asuint(gParams.tint.x + gParams.lights[1].intensity + s)\n\
                 + uint(gParams.count) + {constant};\n\
         }}\n"
    );
    std::fs::write(&path, source).unwrap();
    path
}

/// Checks the `diff --json` document of `a` to `b` against the schema and the types, and
/// returns it.
fn check_diff(validator: &jsonschema::Validator, name: &str, a: &[u8], b: &[u8]) -> DiffDoc {
    let (a, b) = (
        Package::from_bytes(a).unwrap(),
        Package::from_bytes(b).unwrap(),
    );
    let differences = slangpack_tools::diff::try_diff(&a, &b).expect("within the budget");
    let text = slangpack_tools::diff::diff_json_text(&differences).unwrap();
    conforms(validator, name, &text);
    let read: DiffDoc = serde_json::from_str(&text).expect("reads back as a DiffDoc");
    assert_eq!(
        read,
        slangpack_tools::diff::diff_doc(&differences),
        "{name}"
    );
    assert_eq!(read.schema_version, slangpack_tools::diff::SCHEMA_VERSION);
    assert_eq!(read.identical, differences.is_empty());
    read
}

/// Whether `doc` has a difference of `change` whose subject starts with `subject` (and whose
/// property is `property`, when given).
fn has(doc: &DiffDoc, change: Change, subject: &str, property: Option<&str>) -> bool {
    doc.differences.iter().any(|d| {
        d.change == change
            && d.subject.starts_with(subject)
            && (property.is_none() || d.property.as_deref() == property)
    })
}

#[test]
fn diffs_of_packages_differing_in_bindings_layouts_targets_and_code_follow_the_committed_schema() {
    let validator = validator(slangpack_tools::diff::JSON_SCHEMA);
    let dir = tempfile::tempdir().unwrap();
    let params = "float4 tint; Light lights[2]; uint count;";
    let resources =
        "RWStructuredBuffer<uint> gOut;\nTexture2D<float4> gTex;\nSamplerState gSampler;";
    let base = variant(dir.path(), params, resources, 1);
    // Layouts: a member's type, an array's length, a member added.
    let layout = variant(
        dir.path(),
        "float4 tint; float extra; Light lights[3]; float count;",
        resources,
        1,
    );
    // Bindings: one moved to another set and binding, one resource added.
    let bindings = variant(
        dir.path(),
        params,
        "[[vk::binding(4, 1)]] RWStructuredBuffer<uint> gOut;\n\
         Texture2D<float4> gTex;\nSamplerState gSampler;\nRWStructuredBuffer<float> gMore;",
        1,
    );
    // Code alone: another constant, the same bindings and layouts.
    let code = variant(dir.path(), params, resources, 2);
    let spirv = |path: &PathBuf| bake(std::slice::from_ref(path), &[]).expect("bakes");
    let base_bytes = spirv(&base);
    let text_targets = bake(
        std::slice::from_ref(&base),
        &[Target::Wgsl, Target::Hlsl, Target::Metal],
    )
    .expect("bakes for WGSL, HLSL and Metal");
    let glsl = bake(std::slice::from_ref(&base), &[Target::Glsl]).expect("bakes for GLSL");

    let doc = check_diff(&validator, "layouts", &base_bytes, &spirv(&layout));
    assert!(has(&doc, Change::Changed, "buffer gParams", Some("size")));
    assert!(has(
        &doc,
        Change::Changed,
        "member gParams.count",
        Some("type")
    ));
    assert!(has(&doc, Change::Added, "member gParams.extra", None));
    let doc = check_diff(&validator, "bindings", &base_bytes, &spirv(&bindings));
    assert!(has(
        &doc,
        Change::Changed,
        "binding gOut",
        Some("set/binding")
    ));
    assert!(has(&doc, Change::Added, "binding gMore", None));
    let doc = check_diff(&validator, "bindings back", &spirv(&bindings), &base_bytes);
    assert!(has(&doc, Change::Removed, "binding gMore", None));
    let doc = check_diff(&validator, "targets", &base_bytes, &text_targets);
    assert!(has(&doc, Change::Added, "target wgsl", None));
    let doc = check_diff(&validator, "other targets", &text_targets, &glsl);
    assert!(has(&doc, Change::Removed, "target metal", None));
    assert!(has(&doc, Change::Added, "target glsl", None));
    let doc = check_diff(&validator, "code", &base_bytes, &spirv(&code));
    assert!(doc.identical && doc.differences.is_empty());
    // Entries added and removed: the variant against a package of other keys.
    let other = bake(&[test_shaders_dir().join("buffer_fill.slang")], &[]).expect("bakes");
    let doc = check_diff(&validator, "entries", &base_bytes, &other);
    for change in [Change::Removed, Change::Added] {
        let entries = doc.differences.iter().filter(|d| d.subject == "entry");
        assert!(entries.clone().any(|d| d.change == change), "{change:?}");
    }
}

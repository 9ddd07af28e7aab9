//! The facts pipeline creation needs beyond bindings (fragment outputs, execution modes,
//! input-attachment use), checked on `tests/shaders/pipeline_facts.slang` — one pattern per
//! entry point — against two independent oracles run on the stored SPIR-V: `spirv-cross
//! --reflect` (outputs: location, type) and `spirv-dis` (every `OpExecutionMode`,
//! `OpCapability` and `Index` decoration).

use slangpack_format::bind::{ExecutionModes, FragmentOutput, ModeFlags, PrimitiveMode, Spacing};
use slangpack_format::ScalarType;
use slangpack_reader::Package;
use slangpack_tests::layout;
use slangpack_tests::vk::for_old_validator;
use std::collections::BTreeMap;

/// `spirv-dis` of a module (Debian package `spirv-tools`), its `OpSource` made readable to
/// Debian's SPIRV-Tools.
fn disassemble(words: &[u32]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("module.spv");
    let bytes: Vec<u8> = for_old_validator(words)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write(&path, bytes).unwrap();
    let output = std::process::Command::new("spirv-dis")
        .arg("--raw-id")
        .arg(&path)
        .output()
        .expect("spirv-dis (Debian package spirv-tools) runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// What `spirv-dis` says about an entry point: execution modes (name -> literal operands),
/// capabilities, and the ids decorated `Index N`.
struct Disassembly {
    modes: BTreeMap<String, Vec<u32>>,
    capabilities: Vec<String>,
    indices: BTreeMap<String, u32>,
}

fn read_disassembly(text: &str) -> Disassembly {
    let mut modes = BTreeMap::new();
    let mut capabilities = Vec::new();
    let mut indices = BTreeMap::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["OpExecutionMode" | "OpExecutionModeId", _, mode, args @ ..] => {
                modes.insert(
                    mode.to_string(),
                    args.iter().filter_map(|a| a.parse().ok()).collect(),
                );
            }
            ["OpCapability", cap] => capabilities.push(cap.to_string()),
            ["OpDecorate", id, "Index", n] => {
                indices.insert(id.to_string(), n.parse().unwrap());
            }
            _ => {}
        }
    }
    Disassembly {
        modes,
        capabilities,
        indices,
    }
}

/// The record spirv-dis's view implies.
fn expected_modes(d: &Disassembly) -> ExecutionModes {
    let mut flags = ModeFlags::empty();
    let mut modes = ExecutionModes::default();
    let value = |name: &str| d.modes.get(name).and_then(|v| v.first().copied());
    for (name, flag) in [
        ("EarlyFragmentTests", ModeFlags::EARLY_FRAGMENT_TESTS),
        ("DepthReplacing", ModeFlags::DEPTH_REPLACING),
        ("DepthGreater", ModeFlags::DEPTH_GREATER),
        ("DepthLess", ModeFlags::DEPTH_LESS),
        ("DepthUnchanged", ModeFlags::DEPTH_UNCHANGED),
        ("PointMode", ModeFlags::POINT_MODE),
        ("VertexOrderCw", ModeFlags::VERTEX_ORDER_CW),
        ("VertexOrderCcw", ModeFlags::VERTEX_ORDER_CCW),
        ("PostDepthCoverage", ModeFlags::POST_DEPTH_COVERAGE),
    ] {
        if d.modes.contains_key(name) {
            flags |= flag;
        }
    }
    for (name, flag) in [
        ("InputAttachment", ModeFlags::INPUT_ATTACHMENT_CAPABILITY),
        ("SampleRateShading", ModeFlags::SAMPLE_RATE_SHADING),
    ] {
        if d.capabilities.iter().any(|c| c == name) {
            flags |= flag;
        }
    }
    for (name, raw) in [
        ("InputPoints", 19),
        ("InputLines", 20),
        ("InputLinesAdjacency", 21),
        ("Triangles", 22),
        ("InputTrianglesAdjacency", 23),
        ("Quads", 24),
        ("Isolines", 25),
    ] {
        if d.modes.contains_key(name) {
            modes.input_primitive = raw;
        }
    }
    for (name, raw) in [
        ("OutputPoints", 27),
        ("OutputLineStrip", 28),
        ("OutputTriangleStrip", 29),
        ("OutputLinesEXT", 5269),
        ("OutputLinesNV", 5269),
        ("OutputTrianglesEXT", 5298),
        ("OutputTrianglesNV", 5298),
    ] {
        if d.modes.contains_key(name) {
            modes.output_primitive = raw;
        }
    }
    for (name, raw) in [
        ("SpacingEqual", 1),
        ("SpacingFractionalEven", 2),
        ("SpacingFractionalOdd", 3),
    ] {
        if d.modes.contains_key(name) {
            modes.spacing = raw;
        }
    }
    modes.output_vertices = value("OutputVertices").unwrap_or(0);
    modes.output_primitives = value("OutputPrimitivesEXT")
        .or_else(|| value("OutputPrimitivesNV"))
        .unwrap_or(0);
    modes.invocations = value("Invocations").unwrap_or(0);
    modes.flags = flags.to_raw();
    modes
}

/// `spirv-cross --reflect`'s type of an output: its numeric kind and component count.
fn cross_type(ty: &str) -> (ScalarType, u32) {
    let (kind, rest) = match ty {
        t if t.starts_with("f16vec") => (ScalarType::Float16, &t[6..]),
        t if t.starts_with("ivec") => (ScalarType::Int32, &t[4..]),
        t if t.starts_with("uvec") => (ScalarType::UInt32, &t[4..]),
        t if t.starts_with("vec") => (ScalarType::Float32, &t[3..]),
        "float" => (ScalarType::Float32, "1"),
        "int" => (ScalarType::Int32, "1"),
        "uint" => (ScalarType::UInt32, "1"),
        "float16_t" => (ScalarType::Float16, "1"),
        other => panic!("spirv-cross output type {other} not translated"),
    };
    (kind, rest.parse().unwrap())
}

#[test]
fn fragment_outputs_and_execution_modes_agree_with_spirv_cross_and_spirv_dis() {
    let bytes = layout::bake(&[layout::test_shaders_dir().join("pipeline_facts.slang")]);
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("pipeline_facts").unwrap();
    let bind = entry.bind();
    assert_eq!(
        bind.all_execution_modes().len(),
        entry.entry_points().count(),
        "one record per entry point"
    );
    let mut facts_checked = 0;
    for ep in entry.entry_points() {
        let text = disassemble(ep.spirv());
        let d = read_disassembly(&text);
        let modes = bind.execution_modes(ep.index()).expect("modes");
        let mut expected = expected_modes(&d);
        expected.entry_point = ep.index();
        // Whether an input attachment is read is not a mode: it is the attachment variable
        // in the entry point's interface.
        let mut got = *modes;
        got.flags &= !ModeFlags::READS_INPUT_ATTACHMENTS.to_raw();
        assert_eq!(got, expected, "{}: modes against spirv-dis", ep.name());
        facts_checked += expected.flag_names().count()
            + usize::from(expected.input_primitive != 0)
            + usize::from(expected.output_primitive != 0)
            + usize::from(expected.spacing != 0)
            + usize::from(expected.output_vertices != 0)
            + usize::from(expected.output_primitives != 0)
            + usize::from(expected.invocations != 0);

        let outputs: Vec<&FragmentOutput> = bind.fragment_outputs(ep.index()).iter().collect();
        if ep.stage() != slangpack_format::Stage::Fragment {
            assert!(outputs.is_empty(), "{}", ep.name());
            continue;
        }
        let cross = layout::spirv_cross_reflect(&for_old_validator(ep.spirv())).unwrap();
        let mut from_cross: Vec<(u32, ScalarType, u32, String)> = cross["outputs"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .map(|o| {
                let (kind, n) = cross_type(o["type"].as_str().unwrap());
                let location = o["location"].as_u64().unwrap() as u32;
                (location, kind, n, o["name"].as_str().unwrap().to_string())
            })
            .collect();
        from_cross.sort_by(|a, b| (a.0, &a.3).cmp(&(b.0, &b.3)));
        let mut ours: Vec<(u32, ScalarType, u32, String)> = outputs
            .iter()
            .map(|o| {
                (
                    o.location,
                    o.scalar(),
                    o.component_count,
                    bind.string(o.name).to_string(),
                )
            })
            .collect();
        ours.sort_by(|a, b| (a.0, &a.3).cmp(&(b.0, &b.3)));
        assert_eq!(
            ours,
            from_cross,
            "{}: outputs against spirv-cross",
            ep.name()
        );
        // Dual-source indices: as many `Index 1` decorations as outputs with index 1.
        let second_sources = d.indices.values().filter(|&&n| n == 1).count();
        assert_eq!(
            outputs.iter().filter(|o| o.index == 1).count(),
            second_sources,
            "{}: Index decorations",
            ep.name()
        );
        facts_checked += outputs.len() * 3;
    }
    assert!(facts_checked >= 40, "{facts_checked} facts compared");

    // What the shader asks for, stated once more by hand (the oracles could agree on a
    // module that does not say what the source means).
    let modes = |name: &str| {
        *bind
            .execution_modes(entry.entry_point(name).unwrap().index())
            .unwrap()
    };
    let gbuffer = bind.fragment_outputs(entry.entry_point("gbufferMain").unwrap().index());
    let kinds: Vec<(u32, ScalarType, u32)> = gbuffer
        .iter()
        .map(|o| (o.location, o.scalar(), o.component_count))
        .collect();
    // SV_Target0, 1 and 3: Slang numbers the SPIR-V locations 0, 1, 2 (what the driver reads).
    assert_eq!(
        kinds,
        [
            (0, ScalarType::Float32, 4),
            (1, ScalarType::Int32, 2),
            (2, ScalarType::UInt32, 1)
        ]
    );
    assert!(modes("gbufferMain")
        .mode_flags()
        .contains(ModeFlags::DEPTH_REPLACING));
    let dual = bind.fragment_outputs(entry.entry_point("dualSourceMain").unwrap().index());
    assert_eq!(
        dual.iter()
            .map(|o| (o.location, o.index))
            .collect::<Vec<_>>(),
        [(0, 0), (0, 1)]
    );
    assert!(modes("earlyMain")
        .mode_flags()
        .contains(ModeFlags::EARLY_FRAGMENT_TESTS));
    assert!(modes("conservativeDepthMain")
        .mode_flags()
        .contains(ModeFlags::DEPTH_GREATER));
    assert!(modes("perSampleMain")
        .mode_flags()
        .contains(ModeFlags::SAMPLE_RATE_SHADING));
    let geometry = modes("geometryMain");
    assert_eq!(
        (
            geometry.input_primitive(),
            geometry.output_primitive(),
            geometry.output_vertices,
            geometry.invocations
        ),
        (
            Some(PrimitiveMode::Triangles),
            Some(PrimitiveMode::OutputTriangleStrip),
            6,
            2
        )
    );
    let hull = modes("hullMain");
    assert_eq!(
        (hull.output_vertices, hull.spacing()),
        (3, Some(Spacing::FractionalOdd))
    );
    assert!(hull.mode_flags().contains(ModeFlags::VERTEX_ORDER_CW));
    let mesh = modes("meshMain");
    assert_eq!(
        (
            mesh.output_primitive(),
            mesh.output_vertices,
            mesh.output_primitives
        ),
        (Some(PrimitiveMode::OutputTriangles), 64, 32)
    );
    let subpass = modes("subpassMain").mode_flags();
    assert!(subpass
        .contains(ModeFlags::INPUT_ATTACHMENT_CAPABILITY | ModeFlags::READS_INPUT_ATTACHMENTS));
    for name in ["gbufferMain", "earlyMain", "geometryMain"] {
        assert!(
            !modes(name)
                .mode_flags()
                .contains(ModeFlags::READS_INPUT_ATTACHMENTS),
            "{name}"
        );
    }
}

//! Structured buffers' elements on every target: HLSL and Metal lay them out by rules of their
//! own, and the package holds that layout (a scalar, vector or matrix element its size and
//! stride alone), checked at bake time against the emitted text. WGSL and GLSL share the
//! Vulkan layout (std430 here), checked against naga's and glslang's.
//!
//! The oracle for HLSL and Metal is spirv-cross on the same program compiled to SPIR-V with
//! the scalar block layout (`--buffer-layout scalar`): HLSL's structured buffers and Slang's
//! Metal `device` structs (`packed_float3`) align each member to its scalar, as that layout
//! does, where std430 gives a `float3` and a struct holding one 16-byte alignment. Where the
//! two differ (a `bool` is 1 byte in Metal), the numbers are written out by the rules.

use slangpack_format::{Target, TargetBindingKind};
use slangpack_reader::{BindView, Package, TargetBindView, TargetBufferLayout};
use slangpack_tests::layout::{entry_point_code, spirv_cross_reflect, test_shaders_dir};
use slangpack_writer::compile::{BufferLayout, CompileOptions};

/// Bakes `tests/shaders/{key}.slang` with `options`.
fn bake(key: &str, options: CompileOptions) -> Vec<u8> {
    let path = test_shaders_dir().join(format!("{key}.slang"));
    let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
    config.jobs = 1;
    config.options = options;
    match slangpack_writer::bake::bake(&config) {
        Ok(outcome) => outcome.bytes.into_vec(),
        Err(e) => panic!("bake of {key} failed: {e}\n{}", e.diagnostics()),
    }
}

fn for_targets(targets: &[Target]) -> CompileOptions {
    CompileOptions {
        targets: targets.to_vec(),
        ..CompileOptions::default()
    }
}

/// `(path, offset, array stride, matrix stride)` of a member.
type Row = (String, u32, u32, u32);

/// The element stride and members of storage buffer `path` as the target stores them (the
/// Vulkan member paths, the target's numbers), or `None` when the package holds no layout.
fn stored(bind: &BindView<'_>, view: &TargetBindView<'_>, path: &str) -> Option<(u32, Vec<Row>)> {
    let b = view
        .bindings()
        .iter()
        .find(|b| view.path(b) == path && b.binding_kind() == TargetBindingKind::StorageBuffer)
        .unwrap_or_else(|| panic!("{}: no storage buffer {path}", view.target().name()));
    let own = view.buffer_layout(b).target_buffer()?;
    let vulkan = bind
        .buffer_layout(own.buffer_layout)
        .expect("its Vulkan layout");
    let members = view.target_members(own);
    assert_eq!(members.len(), bind.members(vulkan).len());
    let rows = bind
        .members(vulkan)
        .iter()
        .zip(members)
        .map(|(m, t)| {
            (
                bind.string(m.path).to_string(),
                t.offset,
                t.array_stride,
                t.matrix_stride,
            )
        })
        .collect();
    Some((own.stride, rows))
}

/// The element stride and members of the storage buffer named `name` in spirv-cross's
/// reflection of a module, flattened as the bind view names them (`segment.to`, `pieces[].to`
/// element-relative), Slang's `_Array_*` wrappers read as the arrays they hold.
fn reflected(json: &serde_json::Value, name: &str) -> (u32, Vec<Row>) {
    let ssbo = json["ssbos"]
        .as_array()
        .expect("ssbos")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("spirv-cross lists no buffer {name}"));
    let block = &json["types"][ssbo["type"].as_str().unwrap()];
    let data = &block["members"][0];
    let stride = data["array_stride"].as_u64().expect("an element stride") as u32;
    let mut rows = Vec::new();
    if let Some(element) = json["types"].get(data["type"].as_str().unwrap()) {
        flatten(json, element, 0, "", &mut rows);
    }
    (stride, rows)
}

fn flatten(
    json: &serde_json::Value,
    ty: &serde_json::Value,
    base: u32,
    prefix: &str,
    out: &mut Vec<Row>,
) {
    for m in ty["members"].as_array().into_iter().flatten() {
        let name = m["name"].as_str().unwrap();
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}.{name}")
        };
        let offset = base + m["offset"].as_u64().unwrap() as u32;
        let mut member = m;
        let mut inner = json["types"].get(m["type"].as_str().unwrap());
        // Slang's wrapper of an array: a struct `_Array_*` of one member `data`.
        if let Some(wrapper) =
            inner.filter(|t| t["name"].as_str().is_some_and(|n| n.starts_with("_Array_")))
        {
            member = &wrapper["members"][0];
            inner = json["types"].get(member["type"].as_str().unwrap());
        }
        let number = |key: &str| member[key].as_u64().unwrap_or(0) as u32;
        let array_stride = number("array_stride");
        out.push((path.clone(), offset, array_stride, number("matrix_stride")));
        if let Some(inner) = inner {
            if array_stride != 0 {
                flatten(json, inner, 0, &format!("{path}[]"), out);
            } else {
                flatten(json, inner, offset, &path, out);
            }
        }
    }
}

fn rows(list: &[(&str, u32, u32, u32)]) -> Vec<Row> {
    list.iter()
        .map(|&(p, o, a, m)| (p.to_string(), o, a, m))
        .collect()
}

/// The structured buffers of `structured_elements`.
const STRUCTURED: [&str; 6] = [
    "gParticles",
    "gDirections",
    "gCells",
    "gCounts",
    "gMatrices",
    "gPool.particles",
];

#[test]
fn hlsl_and_metal_structured_buffers_hold_their_own_element_layouts() {
    let all = [Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal];
    let bytes = bake("structured_elements", for_targets(&all));
    let package = Package::from_bytes(&bytes).expect("opens");
    let entry = package.load("structured_elements").expect("loads");
    let bind = entry.bind();

    // The oracle: the same program's SPIR-V with the scalar block layout, read by spirv-cross.
    let scalar = bake(
        "structured_elements",
        CompileOptions {
            buffer_layout: BufferLayout::Scalar,
            ..CompileOptions::default()
        },
    );
    let scalar = Package::from_bytes(&scalar).unwrap();
    let scalar = scalar.load("structured_elements").unwrap();
    let code = entry_point_code(&scalar).unwrap();
    let json = spirv_cross_reflect(&code[0].spirv).expect("spirv-cross reflects the SPIR-V");

    for target in [Target::Hlsl, Target::Metal] {
        let view = bind.target(target);
        for path in STRUCTURED {
            let ours = stored(&bind, &view, path)
                .unwrap_or_else(|| panic!("{}: no layout of {path}", target.name()));
            assert_eq!(ours, reflected(&json, path), "{}: {path}", target.name());
        }
        // A raw buffer has no element type: no layout, never the Vulkan one.
        for path in ["gRaw", "gRawOut"] {
            assert_eq!(
                stored(&bind, &view, path),
                None,
                "{}: {path}",
                target.name()
            );
        }
    }
    // By the rules, written out: each float3 takes 12 bytes aligned to 4, 32 bytes apart.
    let particle = rows(&[
        ("pos", 0, 0, 0),
        ("life", 12, 0, 0),
        ("vel", 16, 0, 0),
        ("id", 28, 0, 0),
    ]);
    for target in [Target::Hlsl, Target::Metal] {
        let view = bind.target(target);
        assert_eq!(
            stored(&bind, &view, "gParticles"),
            Some((32, particle.clone()))
        );
        assert_eq!(stored(&bind, &view, "gDirections"), Some((12, Vec::new())));
        assert_eq!(stored(&bind, &view, "gCounts"), Some((4, Vec::new())));
        assert_eq!(stored(&bind, &view, "gMatrices"), Some((64, Vec::new())));
        let (stride, cells) = stored(&bind, &view, "gCells").unwrap();
        assert_eq!(stride, 152, "{}", target.name());
        assert!(
            cells.contains(&("pieces[].to".into(), 8, 0, 0)),
            "{cells:?}"
        );
        assert!(cells.contains(&("basis".into(), 76, 0, 12)), "{cells:?}");
    }
    // The Vulkan layout (std430) is another: a float3 and a struct holding one align to 16.
    let vulkan = bind.buffer("gCells").expect("gCells");
    assert_eq!(vulkan.stride, 224);
    let (_, segment) = bind
        .buffer_member("gCells.segment")
        .expect("gCells.segment");
    assert_eq!(segment.offset, 16);

    // The code says so: Slang's Metal element is a `natural` struct of packed vectors, its
    // HLSL element the plain struct of a structured buffer.
    let ep = entry.entry_points().next().unwrap();
    let metal = ep.code(Target::Metal).unwrap().text().unwrap();
    assert!(metal.contains("packed_float3 pos_0;"), "{metal}");
    assert!(
        metal.contains("Particle_natural_0 device* gParticles"),
        "{metal}"
    );
    let hlsl = ep.code(Target::Hlsl).unwrap().text().unwrap();
    assert!(
        hlsl.contains("RWStructuredBuffer<Particle_0 > gParticles_0"),
        "{hlsl}"
    );

    // WGSL and GLSL: the Vulkan layout, checked against naga and glslang at bake time.
    for target in [Target::Wgsl, Target::Glsl] {
        let view = bind.target(target);
        for path in STRUCTURED {
            let b = view.find(path).unwrap_or_else(|| panic!("{path}"));
            assert!(
                matches!(view.buffer_layout(b), TargetBufferLayout::Vulkan(_)),
                "{}: {path}",
                target.name()
            );
        }
    }
}

#[test]
fn a_bool_member_takes_4_bytes_in_hlsl_and_1_in_metal() {
    let bytes = bake(
        "structured_bool",
        for_targets(&[Target::Glsl, Target::Hlsl, Target::Metal]),
    );
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("structured_bool").unwrap();
    let bind = entry.bind();
    let hlsl = stored(&bind, &bind.target(Target::Hlsl), "gFlagged");
    assert_eq!(
        hlsl,
        Some((
            36,
            rows(&[
                ("at", 0, 0, 0),
                ("on", 12, 0, 0),
                ("tag", 16, 0, 0),
                ("alive", 24, 4, 0),
                ("last", 32, 0, 0),
            ])
        ))
    );
    // Metal: the bools are bytes, so `last` follows the 2-byte array at 28.
    let metal = stored(&bind, &bind.target(Target::Metal), "gFlagged");
    assert_eq!(
        metal,
        Some((
            32,
            rows(&[
                ("at", 0, 0, 0),
                ("on", 12, 0, 0),
                ("tag", 16, 0, 0),
                ("alive", 24, 1, 0),
                ("last", 28, 0, 0),
            ])
        ))
    );
    let ep = entry.entry_points().next().unwrap();
    let text = ep.code(Target::Metal).unwrap().text().unwrap();
    assert!(text.contains("bool on_0;"), "{text}");
}

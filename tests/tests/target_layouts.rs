//! Buffer member layouts per target: WGSL and GLSL buffers have the Vulkan bind view's member
//! layout (checked at bake time against their code), HLSL and Metal lay buffers out by their
//! own rules, stored since format 1.4 (checked at bake time member by member against the
//! layout packed from their code by the language's rules), and the reader must never hand
//! the Vulkan offsets out as theirs.
//!
//! Slang's own per-target sizes show the difference: `proof_uniforms`' `gParams` is 384 bytes
//! for Vulkan and WGSL, 348 for HLSL (no 16-byte padding after arrays and structs), 320 for
//! Metal; in `proof_blocks` the Metal code's `float3 cameraPosition` takes 16 bytes, so
//! `frame` sits at 80 there, where the Vulkan layout has it at 76.

use slangpack_format::targets::TargetMember;
use slangpack_format::{Target, TargetBindingKind};
use slangpack_reader::BindView;
use slangpack_reader::{Package, TargetBindView, TargetBufferLayout};
use slangpack_tests::layout::test_shaders_dir;

/// Bakes `tests/shaders/{key}.slang` for every text target.
fn bake_all_targets(key: &str) -> Vec<u8> {
    let path = test_shaders_dir().join(format!("{key}.slang"));
    let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
    config.jobs = 1;
    config.options.targets = vec![Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal];
    match slangpack_writer::bake::bake(&config) {
        Ok(outcome) => outcome.bytes.into_vec(),
        Err(e) => panic!("bake of {key} failed: {e}\n{}", e.diagnostics()),
    }
}

/// The record of `path` of `kind` in `view`.
fn record<'a>(
    view: &TargetBindView<'a>,
    path: &str,
    kind: TargetBindingKind,
) -> &'a slangpack_format::targets::TargetBinding {
    view.bindings()
        .iter()
        .find(|b| view.path(b) == path && b.binding_kind() == kind)
        .unwrap_or_else(|| panic!("{}: no {kind:?} {path}", view.target().name()))
}

/// The target's members of binding `b`'s own layout, by Vulkan member path: (path, offset,
/// size, array stride, matrix stride).
fn own_members(
    bind: &BindView<'_>,
    view: &TargetBindView<'_>,
    b: &slangpack_format::targets::TargetBinding,
) -> Vec<(String, u32, u32, u32, u32)> {
    let own = view.buffer_layout(b).target_buffer().unwrap_or_else(|| {
        panic!(
            "{}: no own layout of {}",
            view.target().name(),
            view.path(b)
        )
    });
    let vulkan = bind
        .buffer_layout(own.buffer_layout)
        .expect("its Vulkan layout");
    let members: &[TargetMember] = view.target_members(own);
    assert_eq!(members.len(), bind.members(vulkan).len());
    bind.members(vulkan)
        .iter()
        .zip(members)
        .map(|(m, t)| {
            (
                bind.string(m.path).to_string(),
                t.offset,
                t.size,
                t.array_stride,
                t.matrix_stride,
            )
        })
        .collect()
}

/// `(path, offset, size, array stride, matrix stride)` rows as owned strings.
fn rows(list: &[(&str, u32, u32, u32, u32)]) -> Vec<(String, u32, u32, u32, u32)> {
    list.iter()
        .map(|&(p, o, s, a, m)| (p.to_string(), o, s, a, m))
        .collect()
}

#[test]
fn hlsl_and_metal_buffers_get_their_own_member_layouts() {
    let bytes = bake_all_targets("proof_uniforms");
    let package = Package::from_bytes(&bytes).expect("opens");
    let entry = package.load("proof_uniforms").expect("loads");
    let bind = entry.bind();
    let vulkan = bind
        .buffer("gParams")
        .expect("the Vulkan layout of gParams");
    assert_eq!(vulkan.size, 384);

    // WGSL and GLSL: the Vulkan layout, member offsets included, and the same size.
    for target in [Target::Wgsl, Target::Glsl] {
        let view = bind.target(target);
        let b = record(&view, "gParams", TargetBindingKind::UniformBuffer);
        assert_eq!(view.buffer_layout(b), TargetBufferLayout::Vulkan(vulkan));
        let layout = view.buffer_layout(b).layout().expect("a layout");
        let tail = bind
            .members(layout)
            .iter()
            .find(|m| bind.string(m.path) == "tail")
            .expect("member tail");
        assert_eq!((tail.offset, tail.size), (368, 12));
        if target == Target::Wgsl {
            assert_eq!(b.min_binding_size, 384);
        }
    }

    // HLSL and Metal: Slang's size for the target differs from the Vulkan layout's, and the
    // bind view gives the target's own layout, never the Vulkan one.
    for (target, size) in [(Target::Hlsl, 348), (Target::Metal, 320)] {
        let view = bind.target(target);
        let b = record(&view, "gParams", TargetBindingKind::UniformBuffer);
        assert_eq!(b.min_binding_size, size, "{}", target.name());
        assert_ne!(b.min_binding_size, vulkan.size);
        assert_eq!(view.buffer_layout(b).layout(), None);
        let own = view
            .buffer_layout(b)
            .target_buffer()
            .expect("its own layout");
        assert_eq!(own.size, size);
        // A structured buffer of `uint` has no members: its layout is its 4-byte stride.
        let out = record(&view, "gOut", TargetBindingKind::StorageBuffer);
        let out = view.buffer_layout(out).target_buffer().expect("its stride");
        assert_eq!((out.stride, out.member_count), (4, 0));
    }
    // HLSL's packing rules, by hand: a vector never straddles a 16-byte register (`i2` after
    // the 32-byte `items` at 288 + 32 = 320); each array element but the last takes whole
    // registers (`scalars`: 3 floats at stride 16, 36 bytes); a struct starts a register and is
    // not padded at its end (`inner` 28 bytes); a column-major float3x4 is 4 columns of 3 in
    // registers (60 bytes), a row-major one 3 rows of 4 (48); `tail` (float3) at 336.
    let hlsl = bind.target(Target::Hlsl);
    let b = record(&hlsl, "gParams", TargetBindingKind::UniformBuffer);
    assert_eq!(
        own_members(&bind, &hlsl, b),
        rows(&[
            ("v4", 0, 16, 0, 0),
            ("u", 16, 4, 0, 0),
            ("scalars", 32, 36, 16, 0),
            ("rowMajor", 80, 48, 0, 16),
            ("columnMajor", 128, 60, 0, 16),
            ("rowMajorSmall", 192, 28, 0, 16),
            ("columnMajorTall", 224, 32, 0, 16),
            ("inner", 256, 28, 0, 0),
            ("inner.a", 256, 8, 0, 0),
            ("inner.b", 264, 4, 0, 0),
            ("inner.c", 272, 12, 0, 0),
            ("items", 288, 32, 16, 0),
            ("items[].x", 0, 4, 0, 0),
            ("items[].y", 4, 8, 0, 0),
            ("items[].z", 12, 4, 0, 0),
            ("i2", 320, 8, 0, 0),
            ("tail", 336, 12, 0, 0),
        ])
    );
    // Metal's rules: a float3 takes 16 bytes aligned to 16 (`inner.c`, `tail`); an array of
    // floats is 4 apart (`scalars` at 20); matrices are column vectors (a float3x4 is four
    // float3 columns, 64 bytes); an array of 24-byte structs (a uint2 aligns to 8) is 24 apart.
    let metal = bind.target(Target::Metal);
    let b = record(&metal, "gParams", TargetBindingKind::UniformBuffer);
    assert_eq!(
        own_members(&bind, &metal, b),
        rows(&[
            ("v4", 0, 16, 0, 0),
            ("u", 16, 4, 0, 0),
            ("scalars", 20, 12, 4, 0),
            ("rowMajor", 32, 48, 0, 16),
            ("columnMajor", 80, 64, 0, 16),
            ("rowMajorSmall", 144, 32, 0, 16),
            ("columnMajorTall", 176, 32, 0, 16),
            ("inner", 208, 32, 0, 0),
            ("inner.a", 208, 8, 0, 0),
            ("inner.b", 216, 4, 0, 0),
            ("inner.c", 224, 16, 0, 0),
            ("items", 240, 48, 24, 0),
            ("items[].x", 0, 4, 0, 0),
            ("items[].y", 8, 8, 0, 0),
            ("items[].z", 16, 4, 0, 0),
            ("i2", 288, 8, 0, 0),
            ("tail", 304, 16, 0, 0),
        ])
    );
    // The implicit global uniform buffer: a float2x2 after a uint starts a register in HLSL
    // (32), and is two 8-byte columns aligned to 8 in Metal (24).
    let globals = |view: &TargetBindView<'_>| {
        let b = view
            .bindings()
            .iter()
            .find(|b| view.path(b).is_empty())
            .expect("the global uniform buffer");
        own_members(&bind, view, b)
    };
    assert_eq!(globals(&hlsl)[2], ("gGlobalMatrix".into(), 32, 24, 0, 16));
    assert_eq!(globals(&metal)[2], ("gGlobalMatrix".into(), 24, 16, 0, 8));
}

#[test]
fn a_metal_argument_buffer_holding_uniforms_gets_no_vulkan_member_layout_and_its_uniform_buffers_their_own(
) {
    let bytes = bake_all_targets("proof_blocks");
    let package = Package::from_bytes(&bytes).expect("opens");
    let entry = package.load("proof_blocks").expect("loads");
    let bind = entry.bind();
    let (_, frame) = bind.buffer_member("gScene.frame").expect("gScene.frame");
    assert_eq!(frame.offset, 76, "the Vulkan offset");

    // The Metal code declares the float3 (16 bytes in Metal) right before `frame`, after the
    // 64-byte matrix: `frame` is at 80 there, so the Vulkan 76 must not be handed out.
    let code = entry
        .entry_points()
        .next()
        .expect("an entry point")
        .code(Target::Metal)
        .expect("Metal code")
        .text()
        .expect("text");
    let scene = code
        .split("struct Scene_default_0")
        .nth(1)
        .expect("the Metal code declares the Scene struct");
    let fields: Vec<&str> = scene
        .lines()
        .map(str::trim)
        .filter(|l| l.ends_with(';'))
        .take(3)
        .collect();
    assert_eq!(
        fields,
        [
            "matrix<float,int(4),int(4)>  viewProjection_0;",
            "float3 cameraPosition_0;",
            "uint frame_0;"
        ]
    );

    let metal = bind.target(Target::Metal);
    // Slang's Metal layout of an argument buffer counts ids, not bytes: no member layout of
    // its uniform data (the Vulkan one must not stand in).
    let scene = record(&metal, "gScene", TargetBindingKind::ArgumentBuffer);
    assert_eq!(metal.buffer_layout(scene), TargetBufferLayout::NotProvided);
    // The ConstantBuffer inside it is a `constant Light_0*`: its own layout, the float3 16
    // bytes, so `intensity` is at 16 (std140: 12).
    let sun = record(&metal, "gScene.sun", TargetBindingKind::UniformBuffer);
    assert_eq!(
        own_members(&bind, &metal, sun),
        rows(&[("direction", 0, 16, 0, 0), ("intensity", 16, 4, 0, 0)])
    );
    let albedo = record(&metal, "gScene.material.albedo", TargetBindingKind::Texture);
    assert_eq!(metal.buffer_layout(albedo), TargetBufferLayout::NotABuffer);

    // HLSL: the block's uniforms are a cbuffer; `frame` follows the float3 at 76 there (it
    // fits the register), the array of lights starts a register at 80.
    let hlsl = bind.target(Target::Hlsl);
    let scene = record(&hlsl, "gScene", TargetBindingKind::UniformBuffer);
    let members = own_members(&bind, &hlsl, scene);
    assert_eq!(members[2], ("frame".into(), 76, 4, 0, 0));
    assert_eq!(members[3], ("lights".into(), 80, 32, 16, 0));
    // The material's array of 60-byte surfaces: 64 apart (a whole register each but the
    // last), 156 bytes in all (std140: 192); its column-major float2x3 is 3 columns of 2.
    let material = record(&hlsl, "gScene.material", TargetBindingKind::UniformBuffer);
    assert_eq!(material.min_binding_size, 156);
    let members = own_members(&bind, &hlsl, material);
    assert!(
        members.contains(&("surfaces".into(), 32, 124, 64, 0)),
        "{members:?}"
    );
    assert!(
        members.contains(&("surfaces[].uvTransform".into(), 16, 40, 0, 16)),
        "{members:?}"
    );

    // WGSL's ParameterBlock uniforms are the Vulkan layout, `frame` at 76 (naga agreed).
    let wgsl = bind.target(Target::Wgsl);
    let scene = record(&wgsl, "gScene", TargetBindingKind::UniformBuffer);
    let layout = wgsl
        .buffer_layout(scene)
        .layout()
        .expect("the Vulkan layout");
    assert_eq!(bind.string(layout.name), "gScene");
}

/// Bakes `tests/shaders/{key}.slang` for `targets` besides SPIR-V.
fn bake_for(key: &str, targets: &[Target]) -> Vec<u8> {
    let path = test_shaders_dir().join(format!("{key}.slang"));
    let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
    config.jobs = 1;
    config.options.targets = targets.to_vec();
    match slangpack_writer::bake::bake(&config) {
        Ok(outcome) => outcome.bytes.into_vec(),
        Err(e) => panic!("bake of {key} failed: {e}\n{}", e.diagnostics()),
    }
}

#[test]
fn resources_in_constant_buffers_entry_point_parameters_and_struct_arrays_have_a_place_on_every_target(
) {
    // Every text target for resources inside a cbuffer and for entry points with ordinary-data
    // `uniform` parameters (a push-constant block on Vulkan; WGSL's is a uniform buffer).
    // `pipelines`' global push-constant block at offset 16 is a WGSL uniform buffer of its own.
    let cases: [(&str, &str, &[Target]); 5] = [
        (
            "cbuffer_resources",
            "Uniforms.srcBuffer",
            &[Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal],
        ),
        (
            "entry_point_resources",
            "first.outBuf",
            &[Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal],
        ),
        (
            "entry_point_resources_graphics",
            "fragmentMain.maps.albedo",
            &[Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal],
        ),
        ("pipelines", "material", &[Target::Wgsl, Target::Glsl]),
        // An unbounded array of structs: on HLSL a register space per resource field
        // (Slang's Metal and WGSL lack its NonUniformResourceIndex).
        (
            "struct_resource_arrays",
            "materials.sampler",
            &[Target::Glsl, Target::Hlsl],
        ),
    ];
    for (key, path, targets) in cases {
        let bytes = bake_for(key, targets);
        let package = Package::from_bytes(&bytes).expect("opens");
        let entry = package.load(key).expect("loads");
        let bind = entry.bind();
        for &target in targets {
            let view = bind.target(target);
            let found = view.bindings().iter().find(|b| view.path(b) == path);
            assert!(
                found.is_some(),
                "{key}: {}: no binding {path}",
                target.name()
            );
            if (key, target) == ("pipelines", Target::Wgsl) {
                // Its members at their Vulkan offsets less the range's 16, as naga lays the
                // code out (checked at bake time); the buffer is the range's 20 bytes.
                let b = found.unwrap();
                assert_eq!(
                    b.binding_kind(),
                    slangpack_format::TargetBindingKind::UniformBuffer
                );
                assert_eq!(b.min_binding_size, 32);
                let range = bind
                    .push_constants()
                    .iter()
                    .find(|p| bind.string(p.name) == path);
                assert_eq!(range.map(|p| (p.offset, p.size)), Some((16, 20)));
            }
        }
    }
}

#[test]
fn interface_typed_values_packed_in_their_payload_bake_for_every_text_target() {
    // The code of every text target has Slang's existential tuple where the bind view has the
    // header; its payload holds only `uint` words there.
    for key in [
        "existential_value",
        "existential_field",
        "existential_block_packed",
    ] {
        let manifest = test_shaders_dir().join(format!("specialized/{key}.toml"));
        let mut config = slangpack_writer::bake::BakeConfig::new(vec![manifest]);
        config.jobs = 1;
        config.options.targets = vec![Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal];
        if let Err(e) = slangpack_writer::bake::bake(&config) {
            panic!("bake of {key} failed: {e}\n{}", e.diagnostics());
        }
    }
}

/// Programs whose HLSL glslang's HLSL front end cannot compile (a method on an element of an
/// array of buffers, DXR types), though Slang's HLSL is valid: the HLSL bind view's facts come
/// from the text, so they bake for HLSL, every binding with its register.
#[test]
fn hlsl_that_glslang_cannot_compile_bakes_with_its_registers() {
    for (key, at_least) in [
        ("proof_resources", 10),
        ("proof_bindless", 2),
        ("shader_record", 1),
        // Slang's SPIR-V heaps (`__slang_resource_heap`) are Vulkan's alone: the HLSL indexes
        // `ResourceDescriptorHeap` and `SamplerDescriptorHeap`, which take no register.
        ("descriptor_heap", 2),
        ("descriptor_heap_mutable", 1),
    ] {
        let path = test_shaders_dir().join(format!("{key}.slang"));
        let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
        config.jobs = 1;
        config.options.targets = vec![Target::Hlsl];
        let bytes = slangpack_writer::bake::bake(&config)
            .unwrap_or_else(|e| panic!("{key}: {e}"))
            .bytes;
        let package = Package::from_bytes(&bytes).unwrap();
        let entry = package.load(key).unwrap();
        let hlsl = entry.bind().target(Target::Hlsl);
        let registers = hlsl.bindings().len();
        assert!(registers >= at_least, "{key}: {registers} HLSL bindings");
        if key.starts_with("descriptor_heap") {
            let code = entry
                .entry_points()
                .next()
                .unwrap()
                .code(Target::Hlsl)
                .unwrap();
            assert!(
                code.text().unwrap().contains("ResourceDescriptorHeap["),
                "{key}"
            );
            // The handles' push-constant block is a constant buffer of its own layout.
            let params = hlsl.find("gParams").expect("gParams");
            assert!(
                hlsl.buffer_layout(params).target_buffer().is_some(),
                "{key}"
            );
        }
    }
}

/// `(class, first register, count (None: unbounded), space)` of every `register(...)` the
/// HLSL text declares, an array's count from the brackets before its `:`.
fn declared_registers(text: &str) -> Vec<(char, u32, Option<u32>, u32)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("register(") {
        let before = text[..at].trim_end();
        let Some(before) = before.strip_suffix(':') else {
            continue;
        };
        let before = before.trim_end();
        let count = match before.strip_suffix(']') {
            Some(inner) => {
                let open = inner.rfind('[').expect("an array's brackets");
                // `[4]`, `[int(4)]`; `[]` or a size that is no constant (Slang's HLSL sizes an
                // array by a specialization constant's cbuffer field): unbounded.
                let inner = inner[open + 1..].trim();
                let inner = inner
                    .strip_prefix("int(")
                    .and_then(|i| i.strip_suffix(')'))
                    .unwrap_or(inner);
                inner.parse().ok()
            }
            None => Some(1),
        };
        let args = &text[at + "register(".len()..];
        let args = &args[..args.find(')').expect("a closing parenthesis")];
        let mut parts = args.split(',').map(str::trim);
        let reg = parts.next().unwrap();
        let class = reg.chars().next().unwrap();
        let index: u32 = reg[1..].parse().unwrap();
        let space = parts
            .next()
            .and_then(|s| s.strip_prefix("space"))
            .map_or(0, |s| s.parse().unwrap());
        out.push((class, index, count, space));
    }
    out.sort();
    out.dedup();
    out
}

/// Every entry point of every test and example program that bakes for HLSL: its D3D12 root
/// parameters (one pipeline of that entry point) cover exactly the registers its HLSL text
/// declares — each range its declaration's class, first register, count and space, a
/// push-constant block's constant buffer as root constants — and the root-signature string
/// names each of them.
#[test]
fn d3d12_root_parameters_cover_exactly_the_registers_the_hlsl_declares() {
    use slangpack_reader::{D3d12RangeType, D3d12RootParameter};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<std::path::PathBuf> = [test_shaders_dir(), root.join("../examples/shaders")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slang"))
        .collect();
    files.sort();
    let (mut checked, mut constants, mut unbounded, mut samplers) = (0, 0, 0, 0);
    let mut baked = Vec::new();
    for file in files {
        let mut config = slangpack_writer::bake::BakeConfig::new(vec![file.clone()]);
        config.jobs = 1;
        config.options.targets = vec![Target::Hlsl];
        let Ok(outcome) = slangpack_writer::bake::bake(&config) else {
            continue;
        };
        baked.push(file.file_stem().unwrap().to_string_lossy().into_owned());
        let package = Package::from_bytes(&outcome.bytes).unwrap();
        for entry in package.entries() {
            let entry = entry.unwrap();
            let view = entry.bind().target(Target::Hlsl);
            for ep in entry.entry_points() {
                let text = ep.code(Target::Hlsl).unwrap().text().unwrap();
                let declared = declared_registers(text);
                let pipeline = entry.pipeline(&[ep.name()]).unwrap();
                let parameters = pipeline
                    .d3d12_root_parameters()
                    .unwrap_or_else(|e| panic!("{} {}: {e}", entry.key(), ep.name()));
                let mut covered = Vec::new();
                for p in &parameters.parameters {
                    match p {
                        D3d12RootParameter::Constants {
                            register,
                            space,
                            values,
                            binding,
                        } => {
                            assert_eq!(*values, binding.min_binding_size.div_ceil(4));
                            constants += 1;
                            covered.push(('b', *register, Some(1), *space));
                        }
                        D3d12RootParameter::Table {
                            space,
                            samplers: is_samplers,
                            ranges,
                        } => {
                            assert!(!ranges.is_empty());
                            for r in ranges {
                                assert_eq!(r.space, *space);
                                assert_eq!(r.range_type == D3d12RangeType::Sampler, *is_samplers);
                                assert_eq!(
                                    u32::from(r.range_type.register_char() as u8),
                                    r.binding.register_class
                                );
                                unbounded += usize::from(r.count.is_none());
                                samplers += usize::from(*is_samplers);
                                covered.push((
                                    r.range_type.register_char(),
                                    r.base_register,
                                    r.count,
                                    r.space,
                                ));
                            }
                        }
                    }
                }
                covered.sort();
                assert_eq!(
                    covered,
                    declared,
                    "{} {}: root parameters against the HLSL's registers\n{text}",
                    entry.key(),
                    ep.name()
                );
                let string = parameters.to_root_signature_string();
                for (class, reg, _, _) in &covered {
                    assert!(string.contains(&format!("{class}{reg}")), "{string}");
                }
                checked += 1;
            }
            // The whole program's view too, where its pipelines do not reuse registers.
            let _ = view.d3d12_root_parameters();
        }
    }
    assert!(
        checked >= 30,
        "only {checked} entry points checked: {baked:?}"
    );
    assert!(
        constants >= 3 && unbounded >= 2 && samplers >= 3,
        "{constants} {unbounded} {samplers}"
    );
}

/// The root-signature string follows HLSL's grammar, and what no root signature can hold
/// is an error naming both bindings.
#[test]
fn d3d12_root_signature_strings_and_overlaps() {
    use slangpack_reader::D3d12Error;
    let path = test_shaders_dir().join("pipelines.slang");
    let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
    config.jobs = 1;
    config.options.targets = vec![Target::Hlsl];
    let bytes = slangpack_writer::bake::bake(&config).unwrap().bytes;
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("pipelines").unwrap();
    let hlsl = entry.bind().target(Target::Hlsl);
    let graphics = entry.pipeline(&["vertexMain", "fragmentMain"]).unwrap();
    let string = graphics
        .d3d12_root_parameters()
        .unwrap()
        .to_root_signature_string();
    assert!(
        string.starts_with("RootConstants(num32BitConstants="),
        "{string}"
    );
    assert!(string.contains("DescriptorTable(CBV(b"), "{string}");
    // Another target's view has no root parameters, nor a pipeline baked without HLSL.
    let spirv_only = slangpack_writer::bake::bake(&slangpack_writer::bake::BakeConfig::new(vec![
        test_shaders_dir().join("pipelines.slang"),
    ]))
    .unwrap()
    .bytes;
    let spirv_only = Package::from_bytes(&spirv_only).unwrap();
    let spirv_entry = spirv_only.load("pipelines").unwrap();
    assert_eq!(
        spirv_entry
            .pipeline(&["simulate"])
            .unwrap()
            .d3d12_root_parameters(),
        Err(D3d12Error::NotHlsl)
    );
    assert_eq!(
        entry.bind().target(Target::Glsl).d3d12_root_parameters(),
        Err(D3d12Error::NotHlsl)
    );
    // Every binding's registers or none overlapping: the program view holds them all, or
    // says which two overlap.
    match hlsl.d3d12_root_parameters() {
        Ok(p) => assert!(!p.parameters.is_empty()),
        Err(D3d12Error::Overlap {
            first,
            second,
            place,
        }) => {
            assert!(place.starts_with("register("), "{place}");
            assert_ne!(first, second);
        }
        Err(e) => panic!("{e}"),
    }
}

/// A GLSL binding as (set, binding, kind, path, code name).
type GlslBinding = (u32, u32, TargetBindingKind, String, String);

/// The GLSL bind view of `tests/shaders/{file}.slang` as [`GlslBinding`]s, and the GLSL text
/// of its one entry point, with the bake's warnings.
fn glsl_view(file: &str) -> (Vec<GlslBinding>, String, String) {
    let path = test_shaders_dir().join(format!("{file}.slang"));
    // A file baked alone is keyed by its stem.
    let key = file.rsplit('/').next().unwrap_or(file);
    let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
    config.jobs = 1;
    config.options.targets = vec![Target::Glsl];
    let outcome = slangpack_writer::bake::bake(&config)
        .unwrap_or_else(|e| panic!("{key}: {e}\n{}", e.diagnostics()));
    let warnings: String = outcome.entries.iter().map(|e| e.warnings.clone()).collect();
    let package = Package::from_bytes(&outcome.bytes).unwrap();
    let entry = package.load(key).unwrap();
    let bind = entry.bind();
    let glsl = bind.target(Target::Glsl);
    let records = glsl
        .bindings()
        .iter()
        .filter(|b| b.binding_kind() != TargetBindingKind::PushConstants)
        .map(|b| {
            (
                b.space,
                b.index,
                b.binding_kind(),
                glsl.path(b).to_string(),
                glsl.code_name(b).unwrap_or("").to_string(),
            )
        })
        .collect();
    let code = entry
        .entry_points()
        .next()
        .unwrap()
        .code(Target::Glsl)
        .unwrap();
    (records, code.text().unwrap().to_string(), warnings)
}

/// GLSL that requires an extension Debian's glslang does not know (valid for a newer one):
/// the bake keeps it, says in one warning line which check it skipped and why, and each
/// binding sits at the set and binding the SPIR-V gives it (GLSL's places are SPIR-V's),
/// named as the text declares it.
#[test]
fn glsl_glslang_cannot_compile_here_bakes_with_the_places_its_text_declares() {
    let file = "glsl/newer_extension";
    let key = "newer_extension";
    let (records, text, warnings) = glsl_view(file);
    assert!(
        text.contains("#extension GL_EXT_maximal_reconvergence"),
        "{text}"
    );
    let skipped: Vec<&str> = warnings
        .lines()
        .filter(|l| l.contains("GL_EXT_maximal_reconvergence"))
        .collect();
    assert_eq!(skipped.len(), 1, "{warnings}");
    assert!(skipped[0].contains("skipped"), "{}", skipped[0]);
    // The SPIR-V's own places, from spirv-cross on the stored SPIR-V.
    let path = test_shaders_dir().join(format!("{file}.slang"));
    let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
    config.jobs = 1;
    let spirv_package = slangpack_writer::bake::bake(&config).unwrap().bytes;
    let package = Package::from_bytes(&spirv_package).unwrap();
    let entry = package.load(key).unwrap();
    let oracle = slangpack_tests::layout::describe_with_spirv_cross(&entry)
        .expect("spirv-cross reflects the SPIR-V");
    let mut theirs: Vec<(u32, u32)> = oracle.bindings.iter().map(|b| (b.set, b.binding)).collect();
    let mut ours: Vec<(u32, u32)> = records.iter().map(|r| (r.0, r.1)).collect();
    theirs.sort();
    ours.sort();
    assert_eq!(ours, theirs);
    assert_eq!(ours.len(), 5);
    for (set, binding, kind, path, code) in &records {
        assert!(
            !code.is_empty() && text.contains(code.as_str()),
            "{path} (set {set} binding {binding}, {kind:?}): code name `{code}` not in the text"
        );
    }
    let kind_of = |path: &str| records.iter().find(|r| r.3 == path).map(|r| r.2);
    assert_eq!(kind_of("gTex"), Some(TargetBindingKind::Texture));
    assert_eq!(kind_of("gSampler"), Some(TargetBindingKind::Sampler));
    assert_eq!(kind_of("gImage"), Some(TargetBindingKind::StorageTexture));
    assert_eq!(kind_of("gOut"), Some(TargetBindingKind::StorageBuffer));
}

/// Slang's descriptor heaps (`__slang_resource_heap`) on GLSL: unbounded arrays at the
/// SPIR-V heap's set and binding, one per resource kind the code indexes (two at the mutable
/// heap's binding). Each gets a record at its place, named as glslang's SPIR-V of the text
/// names it (spirv-cross's reflection, run here as the oracle).
#[test]
fn glsl_descriptor_heaps_bake_one_record_per_kind_the_code_declares() {
    for (key, expected) in [("descriptor_heap", 2), ("descriptor_heap_mutable", 3)] {
        let (records, text, _) = glsl_view(key);
        let heap: Vec<_> = records
            .iter()
            .filter(|r| r.3.starts_with("__slang_resource_heap."))
            .collect();
        assert_eq!(heap.len(), expected, "{key}: {records:?}");
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("shader.comp");
        let spv = dir.path().join("shader.spv");
        std::fs::write(&source, &text).unwrap();
        let status = std::process::Command::new("glslangValidator")
            .args(["-V", "--target-env", "vulkan1.2", "-o"])
            .arg(&spv)
            .arg(&source)
            .output()
            .unwrap();
        assert!(status.status.success(), "{key}: glslang: {status:?}");
        let json = std::process::Command::new("spirv-cross")
            .arg(&spv)
            .arg("--reflect")
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        let mut declared = Vec::new();
        for (list, kind) in [
            ("separate_images", TargetBindingKind::Texture),
            ("separate_samplers", TargetBindingKind::Sampler),
            ("ssbos", TargetBindingKind::StorageBuffer),
        ] {
            for r in doc[list].as_array().into_iter().flatten() {
                declared.push((
                    r["set"].as_u64().unwrap() as u32,
                    r["binding"].as_u64().unwrap() as u32,
                    kind,
                    r["name"].as_str().unwrap().to_string(),
                ));
            }
        }
        for (set, binding, kind, _, code) in heap {
            assert!(
                declared.contains(&(*set, *binding, *kind, code.clone())),
                "{key}: heap record set {set} binding {binding} {kind:?} `{code}` is not \
                 what glslang's SPIR-V declares: {declared:?}"
            );
        }
    }
}

/// A copy of a record finds the record's own layout and struct, as the record itself does
/// (the view looks a copy up among its sorted records).
#[test]
fn copied_records_find_their_own_layouts() {
    let bytes = bake_all_targets("proof_blocks");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("proof_blocks").unwrap();
    let bind = entry.bind();
    let mut found = 0;
    for target in [Target::Hlsl, Target::Metal] {
        let view = bind.target(target);
        for b in view.bindings() {
            let copy = *b;
            let own = view
                .buffer_layout(b)
                .target_buffer()
                .map(core::ptr::from_ref);
            let of_copy = view
                .buffer_layout(&copy)
                .target_buffer()
                .map(core::ptr::from_ref);
            assert_eq!(own, of_copy, "{}: {}", target.name(), view.path(b));
            let args = view.argument_buffer(b).map(|a| a.size());
            assert_eq!(args, view.argument_buffer(&copy).map(|a| a.size()));
            found += usize::from(own.is_some()) + usize::from(args.is_some());
        }
    }
    assert!(found >= 4, "{found} layouts and structs");
}

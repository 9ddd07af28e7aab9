//! Buffer member layouts per target: WGSL and GLSL buffers have the Vulkan bind view's member
//! layout (checked at bake time against their code), HLSL and Metal lay buffers out by their
//! own rules, and the reader must never hand the Vulkan offsets out as theirs.
//!
//! Slang's own per-target sizes show the difference: `proof_uniforms`' `gParams` is 384 bytes
//! for Vulkan and WGSL, 348 for HLSL (no 16-byte padding after arrays and structs), 320 for
//! Metal; in `proof_blocks` the Metal code's `float3 cameraPosition` takes 16 bytes, so
//! `frame` sits at 80 there, where the Vulkan layout has it at 76.

use slangpack_format::{Target, TargetBindingKind};
use slangpack_reader::{Package, TargetBindView, TargetBufferLayout};
use slangpack_tests::layout::test_shaders_dir;

/// Bakes `tests/shaders/{key}.slang` for every text target.
fn bake_all_targets(key: &str) -> Vec<u8> {
    let path = test_shaders_dir().join(format!("{key}.slang"));
    let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
    config.jobs = 1;
    config.options.targets = vec![Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal];
    match slangpack_writer::bake::bake(&config) {
        Ok(outcome) => outcome.bytes,
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

#[test]
fn hlsl_and_metal_buffers_get_no_vulkan_member_layout() {
    let bytes = bake_all_targets("proof_uniforms");
    let package = Package::from_bytes(&bytes).expect("opens");
    let entry = package.load("proof_uniforms").expect("loads");
    let bind = entry.reflection().bind();
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
    // bind view says it holds no member layout rather than the Vulkan one.
    for (target, size) in [(Target::Hlsl, 348), (Target::Metal, 320)] {
        let view = bind.target(target);
        let b = record(&view, "gParams", TargetBindingKind::UniformBuffer);
        assert_eq!(b.min_binding_size, size, "{}", target.name());
        assert_ne!(b.min_binding_size, vulkan.size);
        assert_eq!(view.buffer_layout(b), TargetBufferLayout::NotProvided);
        assert_eq!(view.buffer_layout(b).layout(), None);
        // The storage buffer too: its element layout is the target's own.
        let out = record(&view, "gOut", TargetBindingKind::StorageBuffer);
        assert_eq!(view.buffer_layout(out), TargetBufferLayout::NotProvided);
    }
}

#[test]
fn a_metal_argument_buffer_holding_uniforms_gets_no_vulkan_member_layout() {
    let bytes = bake_all_targets("proof_blocks");
    let package = Package::from_bytes(&bytes).expect("opens");
    let entry = package.load("proof_blocks").expect("loads");
    let bind = entry.reflection().bind();
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
    let scene = record(&metal, "gScene", TargetBindingKind::ArgumentBuffer);
    assert_eq!(metal.buffer_layout(scene), TargetBufferLayout::NotProvided);
    let sun = record(&metal, "gScene.sun", TargetBindingKind::UniformBuffer);
    assert_eq!(metal.buffer_layout(sun), TargetBufferLayout::NotProvided);
    let albedo = record(&metal, "gScene.material.albedo", TargetBindingKind::Texture);
    assert_eq!(metal.buffer_layout(albedo), TargetBufferLayout::NotABuffer);

    let hlsl = bind.target(Target::Hlsl);
    let scene = record(&hlsl, "gScene", TargetBindingKind::UniformBuffer);
    assert_eq!(hlsl.buffer_layout(scene), TargetBufferLayout::NotProvided);

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
        Ok(outcome) => outcome.bytes,
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
        let bind = entry.reflection().bind();
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
        let hlsl = entry.reflection().bind().target(Target::Hlsl);
        let registers = hlsl.bindings().len();
        assert!(registers >= at_least, "{key}: {registers} HLSL bindings");
    }
}

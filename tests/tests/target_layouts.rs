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
            let view = entry.reflection().bind().target(Target::Hlsl);
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
    let hlsl = entry.reflection().bind().target(Target::Hlsl);
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
        entry
            .reflection()
            .bind()
            .target(Target::Glsl)
            .d3d12_root_parameters(),
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

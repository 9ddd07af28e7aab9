//! Byte-for-byte binding proofs on lavapipe (seed 003): the shaders under `tests/shaders/`
//! read every binding kind and write what they read; the host fills every input and
//! predicts every output word from the layout description alone.

use ash::vk;
use slangpack_reader::Package;
use slangpack_tests::layout::{self, Count, Member, MemberType, ProgramLayout};
use slangpack_tests::proof::{self, Read, Spec};
use slangpack_tests::vk::Vk;
use slangpack_writer::compile::{BufferLayout, CompileOptions};

/// A description the test edits to make it wrong: its Vulkan layouts are built from the
/// edited description itself, not from the package's bind view.
fn edited(key: &str) -> ProgramLayout {
    let mut layout = program(key);
    layout.source = None;
    layout
}

/// Bakes one test shader into a package of its own (so one shader the writer refuses does
/// not take the others down) and describes it.
fn program(key: &str) -> ProgramLayout {
    program_with(key, CompileOptions::default())
}

/// [`program`] baked with `options`.
fn program_with(key: &str, options: CompileOptions) -> ProgramLayout {
    let bytes = layout::bake_with(
        &[layout::test_shaders_dir().join(format!("{key}.slang"))],
        options,
    );
    let package = Package::from_bytes(&bytes).expect("the package opens");
    let entry = package
        .load(key)
        .unwrap_or_else(|e| panic!("entry {key}: {e}"));
    layout::describe(&entry).expect("the entry is described")
}

fn uniforms_spec() -> Spec {
    Spec {
        entry: "main",
        output: "gOut",
        reads: vec![Read::Buffer("gParams"), Read::Buffer("globalParams")],
        runtime_lengths: vec![],
        samplers: vec![],
        unbounded_len: 0,
    }
}

#[test]
fn uniform_buffer_members_and_the_implicit_global_uniform_buffer_bind_byte_for_byte() {
    let layout = program("proof_uniforms_auto");
    let global = layout.binding("globalParams").unwrap();
    assert_eq!((global.set, global.binding), (0, 0));
    let report = proof::run(&layout, &uniforms_spec()).unwrap();
    // 65 words of gParams (vectors, a std140 scalar array, four matrices of both majors, a
    // nested struct, an array of structs) and 9 of the implicit global uniform buffer.
    assert_eq!(report.words, 74, "{report:?}");
}

/// `--buffer-layout scalar` and `dx` (what nvpro samples and engines sharing HLSL code compile
/// with): the bind view states the offsets of that layout, and every word binds byte for byte.
#[test]
fn scalar_and_direct3d_buffer_layouts_bind_byte_for_byte() {
    let tail = |layout: &ProgramLayout| -> u32 {
        let params = layout.binding("gParams").unwrap();
        let members = &params.buffer.as_ref().unwrap().members;
        members.iter().find(|m| m.name == "tail").unwrap().offset
    };
    let default = tail(&program("proof_uniforms_auto"));
    let mut tails = vec![default];
    for buffer_layout in [BufferLayout::Scalar, BufferLayout::Dx] {
        let layout = program_with(
            "proof_uniforms_auto",
            CompileOptions {
                buffer_layout,
                ..CompileOptions::default()
            },
        );
        tails.push(tail(&layout));
        let report = proof::run(&layout, &uniforms_spec())
            .unwrap_or_else(|e| panic!("{buffer_layout:?}: {e}"));
        assert_eq!(report.words, 74, "{buffer_layout:?}: {report:?}");
    }
    // Three layouts, three places for the last member.
    tails.sort();
    tails.dedup();
    assert_eq!(tails.len(), 3, "{tails:?}");
}

/// Seed 003's case: the implicit global uniform buffer placed by Slang around an explicitly
/// bound resource (binding 1 of set 0, beside `[[vk::binding(0, 0)]]`).
#[test]
fn the_implicit_global_uniform_buffer_beside_an_explicit_binding_binds_byte_for_byte() {
    let layout = program("proof_uniforms");
    let global = layout.binding("globalParams").unwrap();
    assert_eq!(
        (global.set, global.binding),
        (0, 1),
        "seed 003: beside the explicit binding 0"
    );
    let report = proof::run(&layout, &uniforms_spec()).unwrap();
    assert_eq!(report.words, 74, "{report:?}");
}

/// Runs the uniforms proof on a description changed by `perturb`, which must fail.
fn perturbed(what: &str, perturb: impl FnOnce(&mut ProgramLayout)) -> String {
    let mut layout = edited("proof_uniforms_auto");
    perturb(&mut layout);
    match proof::run(&layout, &uniforms_spec()) {
        Ok(report) => panic!("{what}: the proof passed on a wrong description: {report:?}"),
        Err(e) => {
            eprintln!("{what}: {e}");
            e
        }
    }
}

fn member<'a>(layout: &'a mut ProgramLayout, binding: &str, name: &str) -> &'a mut Member {
    let b = layout
        .bindings
        .iter_mut()
        .find(|b| b.name == binding)
        .unwrap();
    let members = &mut b.buffer.as_mut().unwrap().members;
    members.iter_mut().find(|m| m.name == name).unwrap()
}

#[test]
fn a_wrong_member_offset_fails_the_proof() {
    let error = perturbed("offset", |l| member(l, "gParams", "tail").offset += 4);
    assert!(error.contains("output word 62 "), "{error}");
}

#[test]
fn a_wrong_array_stride_fails_the_proof() {
    let error = perturbed("stride", |l| {
        member(l, "gParams", "scalars").array = Some((3, 4));
    });
    assert!(error.contains("output word 6 "), "{error}");
}

#[test]
fn a_wrong_matrix_layout_fails_the_proof() {
    let error = perturbed("matrix layout", |l| {
        if let MemberType::Matrix { row_major, .. } = &mut member(l, "gParams", "rowMajor").ty {
            *row_major = !*row_major;
        }
    });
    assert!(error.contains("output word 9 "), "{error}");
}

#[test]
fn swapped_bindings_fail_the_proof() {
    let error = perturbed("binding", |l| {
        let [a, b] = ["gParams", "globalParams"]
            .map(|n| l.bindings.iter().position(|b| b.name == n).unwrap());
        let (ba, bb) = (l.bindings[a].binding, l.bindings[b].binding);
        l.bindings[a].binding = bb;
        l.bindings[b].binding = ba;
    });
    assert!(error.contains("output word 0 "), "{error}");
}

#[test]
fn a_wrong_set_fails_the_proof() {
    let error = perturbed("set", |l| {
        l.bindings
            .iter_mut()
            .find(|b| b.name == "gParams")
            .unwrap()
            .set = 1;
    });
    assert!(
        error.contains("VUID-VkComputePipelineCreateInfo-layout-00703"),
        "{error}"
    );
}

fn resources_spec() -> Spec {
    let sampled = |sampler, outside| Read::Sampled {
        image: "gColor",
        sampler,
        outside,
    };
    Spec {
        entry: "main",
        output: "gOut",
        reads: vec![
            Read::PushConstants,
            Read::Buffer("gLights"),
            Read::Buffer("gCounters"),
            Read::Buffer("gRaw"),
            Read::Buffer("gTables"),
            Read::StorageImage("gStorage"),
            sampled("gClamp", false),
            sampled("gClamp", true),
            sampled("gWrap", true),
            Read::Combined("gCombined"),
            Read::Buffer("gFar"),
        ],
        runtime_lengths: vec![
            ("gLights", 3),
            ("gCounters", 4),
            ("gRaw", 8),
            ("gTables", 2),
            ("gFar", 4),
        ],
        samplers: vec![
            ("gClamp", vk::SamplerAddressMode::CLAMP_TO_EDGE),
            ("gWrap", vk::SamplerAddressMode::REPEAT),
        ],
        unbounded_len: 0,
    }
}

#[test]
fn push_constants_storage_buffers_images_and_samplers_bind_byte_for_byte() {
    let layout = program("proof_resources");
    let far = layout.binding("gFar").unwrap();
    assert_eq!((far.set, far.binding), (2, 0));
    let desc = layout.pipeline_layout_desc(1);
    assert_eq!(desc.sets.len(), 3);
    assert!(desc.sets[1].is_none(), "set 1 is a hole");
    let report = proof::run(&layout, &resources_spec()).unwrap();
    // push 4+2+1+6, lights 3*10, counters 4*2, raw 8, tables 3*2, five image reads 5*16, far 4.
    assert_eq!(report.words, 13 + 30 + 8 + 8 + 6 + 80 + 4, "{report:?}");
}

#[test]
fn swapped_samplers_fail_the_proof() {
    let mut layout = edited("proof_resources");
    let [a, b] =
        ["gClamp", "gWrap"].map(|n| layout.bindings.iter().position(|b| b.name == n).unwrap());
    let (ba, bb) = (layout.bindings[a].binding, layout.bindings[b].binding);
    layout.bindings[a].binding = bb;
    layout.bindings[b].binding = ba;
    let error = proof::run(&layout, &resources_spec()).unwrap_err();
    eprintln!("{error}");
    assert!(error.contains("Sampled"), "{error}");
}

#[test]
fn a_wrong_structured_buffer_stride_fails_the_proof() {
    let mut layout = edited("proof_resources");
    let lights = layout
        .bindings
        .iter_mut()
        .find(|b| b.name == "gLights")
        .unwrap();
    let element = &mut lights.buffer.as_mut().unwrap().members[0];
    element.array = Some((0, 32));
    let error = proof::run(&layout, &resources_spec()).unwrap_err();
    eprintln!("{error}");
    assert!(error.contains("gLights"), "{error}");
}

fn blocks_spec() -> Spec {
    Spec {
        entry: "main",
        output: "gOut",
        reads: vec![
            Read::Buffer("gScene"),
            Read::Buffer("gScene.sun"),
            Read::Buffer("gScene.material"),
            Read::Buffer("gScene.material.table"),
            Read::SampledArray {
                image: "gScene.material.albedo",
                element: 0,
            },
        ],
        runtime_lengths: vec![("gScene.material.table", 4)],
        samplers: vec![],
        unbounded_len: 0,
    }
}

#[test]
fn nested_parameter_blocks_bind_byte_for_byte() {
    let layout = program("proof_blocks");
    let place = |name: &str| {
        let b = layout.binding(name).unwrap();
        (b.set, b.binding)
    };
    assert_eq!(place("gOut"), (0, 0));
    assert_eq!(
        place("gScene"),
        (1, 0),
        "the block's implicit uniform buffer"
    );
    assert_eq!(place("gScene.sun"), (1, 1));
    assert_eq!(
        place("gScene.material"),
        (2, 0),
        "the nested block's own set"
    );
    assert_eq!(place("gScene.material.table"), (2, 1));
    assert_eq!(place("gScene.material.albedo"), (2, 2));
    let report = proof::run(&layout, &blocks_spec()).unwrap();
    // gScene 16+3+1+2*4, sun 4, material 4+1+2+2*(4+6+1), table 4, albedo 16.
    assert_eq!(report.words, 28 + 4 + 29 + 4 + 16, "{report:?}");
}

#[test]
fn a_wrong_member_layout_inside_an_array_of_structs_fails_the_proof() {
    let mut layout = edited("proof_blocks");
    let material = layout
        .bindings
        .iter_mut()
        .find(|b| b.name == "gScene.material")
        .unwrap();
    let surfaces = &mut material.buffer.as_mut().unwrap().members[3];
    let MemberType::Struct(fields) = &mut surfaces.ty else {
        panic!("surfaces is an array of structs: {surfaces:?}")
    };
    let MemberType::Matrix { row_major, .. } = &mut fields[1].ty else {
        panic!("uvTransform is a matrix: {:?}", fields[1])
    };
    *row_major = !*row_major;
    let error = proof::run(&layout, &blocks_spec()).unwrap_err();
    eprintln!("{error}");
    assert!(error.contains("Buffer(\"gScene.material\")"), "{error}");
}

#[test]
fn a_nested_block_in_the_wrong_set_fails_the_proof() {
    let mut layout = edited("proof_blocks");
    for b in layout.bindings.iter_mut().filter(|b| b.set == 2) {
        b.set = 3;
    }
    let error = proof::run(&layout, &blocks_spec()).unwrap_err();
    eprintln!("{error}");
    assert!(
        error.contains("VUID-VkComputePipelineCreateInfo-layout-00703"),
        "{error}"
    );
}

/// Unbounded (bindless) arrays need descriptor indexing, which Mesa 22.3's lavapipe (Debian
/// 12) does not have. Where the device has it, the proof runs and must pass; on lavapipe
/// 22.3 the validation layer must refuse the module for exactly that reason (so the proof
/// cannot pass silently), and `SLANGPACK_REQUIRE_BINDLESS=1` turns that into a failure.
/// `examples/device_proof.rs` runs the same proof on another device (`SLANGPACK_VK_DEVICE`).
#[test]
fn unbounded_arrays_bind_byte_for_byte_where_the_driver_has_descriptor_indexing() {
    let layout = program("proof_bindless");
    for name in ["gTextures", "gBuffers"] {
        assert_eq!(
            layout.binding(name).unwrap().count,
            Count::Unbounded,
            "{name}"
        );
    }
    let desc = layout.pipeline_layout_desc(8);
    let set = desc.sets[0].as_ref().expect("set 0");
    let bound =
        vk::DescriptorBindingFlags::PARTIALLY_BOUND | vk::DescriptorBindingFlags::UPDATE_AFTER_BIND;
    assert!(
        set.iter().all(|b| b.flags.contains(bound) && b.count == 8),
        "{set:?}"
    );
    assert!(set
        .last()
        .unwrap()
        .flags
        .contains(vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT));

    let capabilities = {
        let vk = Vk::new().expect("lavapipe");
        let capabilities = vk.capabilities.clone();
        assert!(vk.finish().is_empty());
        capabilities
    };
    let result = proof::run(&layout, &proof::bindless_spec());
    if capabilities.descriptor_indexing() {
        let report = result.unwrap();
        assert_eq!(report.words, 3 * 16 + 3 * 2, "{report:?}");
        return;
    }
    let error = result.expect_err("a proof without descriptor indexing cannot pass");
    assert!(
        error.contains("RuntimeDescriptorArray")
            && error.contains("VUID-VkShaderModuleCreateInfo-pCode-01091"),
        "{error}"
    );
    assert!(
        std::env::var_os("SLANGPACK_REQUIRE_BINDLESS").is_none(),
        "SLANGPACK_REQUIRE_BINDLESS is set and the device lacks {:?}",
        capabilities.descriptor_indexing_missing
    );
    eprintln!(
        "NOT PROVEN on this device (lacks {:?}); see examples/device_proof.rs",
        capabilities.descriptor_indexing_missing
    );
}

#[test]
fn vertex_inputs_bind_byte_for_byte() {
    let layout = program("proof_vertex");
    let inputs: Vec<(u32, vk::Format)> = layout.vertex_inputs[0]
        .iter()
        .map(|v| (v.location, v.format))
        .collect();
    assert_eq!(
        inputs,
        [
            (0, vk::Format::R32G32B32_SFLOAT),
            (1, vk::Format::R32G32_UINT),
            (2, vk::Format::R32G32B32A32_SFLOAT),
            (3, vk::Format::R32_SINT),
            (4, vk::Format::R32G32_SFLOAT),
        ],
        "SV_VertexID is no attribute"
    );
    let report = proof::run_vertex(&layout, "vertexMain", "fragmentMain", "gOut", 3).unwrap();
    assert_eq!(report.words, 3 * 12, "{report:?}");
}

#[test]
fn a_wrong_vertex_input_location_fails_the_proof() {
    let mut layout = edited("proof_vertex");
    let inputs = &mut layout.vertex_inputs[0];
    let (a, b) = (inputs[1].location, inputs[3].location);
    inputs[1].location = b;
    inputs[3].location = a;
    let error = proof::run_vertex(&layout, "vertexMain", "fragmentMain", "gOut", 3).unwrap_err();
    eprintln!("{error}");
    assert!(error.contains("InterfaceTypeMismatch"), "{error}");
}

fn parameter_shapes_spec() -> Spec {
    Spec {
        entry: "main",
        output: "gOut",
        reads: vec![
            Read::Buffer("Uniforms"),
            Read::Buffer("Uniforms.table"),
            Read::Buffer("gResources.values"),
            Read::Buffer("gPairs.first"),
            Read::Buffer("gPairs.second"),
            Read::SampledArray {
                image: "gImages",
                element: 0,
            },
            Read::SampledArray {
                image: "gImages",
                element: 1,
            },
            Read::Buffer("entryPointParams.epTable"),
            Read::PushConstants,
        ],
        runtime_lengths: vec![
            ("Uniforms.table", 2),
            ("gResources.values", 2),
            ("gPairs.first", 2),
            ("gPairs.second", 2),
            ("entryPointParams.epTable", 2),
        ],
        samplers: vec![],
        unbounded_len: 0,
    }
}

#[test]
fn resources_in_constant_buffers_struct_arrays_specialized_arrays_and_entry_point_parameters_bind_byte_for_byte(
) {
    let layout = program("proof_parameter_shapes");
    let place = |name: &str| {
        let b = layout.binding(name).unwrap();
        (b.binding, b.count)
    };
    assert_eq!(place("Uniforms.table"), (1, Count::Fixed(1)));
    assert_eq!(place("gResources.values"), (2, Count::Fixed(1)));
    assert_eq!(place("gPairs.second"), (4, Count::Fixed(2)));
    assert_eq!(
        place("gImages"),
        (5, Count::Fixed(2)),
        "the constant's default"
    );
    assert_eq!(place("entryPointParams.epTable"), (7, Count::Fixed(1)));
    let report = proof::run(&layout, &parameter_shapes_spec()).unwrap();
    // Uniforms 4+1, table 2, values 2, pairs 2*2*2, images 2*16, epTable 2, push 2.
    assert_eq!(report.words, 5 + 2 + 2 + 8 + 32 + 2 + 2, "{report:?}");
}

#[test]
fn an_entry_point_parameter_bound_where_the_reflection_alone_puts_it_fails_the_proof() {
    // Slang numbers an entry point's resource parameters after the globals; the reflection's
    // parameter offsets alone are relative to the entry point's own.
    let mut layout = edited("proof_parameter_shapes");
    let ep = layout
        .bindings
        .iter_mut()
        .find(|b| b.name == "entryPointParams.epTable")
        .unwrap();
    ep.binding = 0;
    let error = proof::run(&layout, &parameter_shapes_spec()).unwrap_err();
    assert!(
        error.contains("VUID-VkComputePipelineCreateInfo-layout-00703")
            || error.contains("output word"),
        "{error}"
    );
}

/// `tests/shaders/specialized/existential_value.slang` specialized by its manifest.
fn existential_value() -> ProgramLayout {
    let bytes =
        layout::bake(&[layout::test_shaders_dir().join("specialized/existential_value.toml")]);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    let entry = package.load("existential_value").expect("baked");
    layout::describe(&entry).expect("the entry is described")
}

#[test]
fn an_interface_typed_value_specialized_by_a_type_argument_binds_byte_for_byte() {
    let mut layout = existential_value();
    let global = layout
        .bindings
        .iter_mut()
        .find(|b| b.ty == vk::DescriptorType::UNIFORM_BUFFER)
        .unwrap();
    let name = global.name.clone();
    let members = &mut global.buffer.as_mut().unwrap().members;
    assert_eq!(members[0].name, "gLight");
    let MemberType::Struct(header) = &mut members[0].ty else {
        panic!("gLight is the existential header: {:?}", members[0])
    };
    let names: Vec<&str> = header.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["typeId", "witnessId", "value"]);
    // The specialized code reads the payload only: the proof predicts those words.
    header.retain(|m| m.name == "value");
    let spec = Spec {
        entry: "main",
        output: "gOut",
        reads: vec![Read::Buffer(Box::leak(name.into_boxed_str()))],
        runtime_lengths: vec![],
        samplers: vec![],
        unbounded_len: 0,
    };
    let report = proof::run(&layout, &spec).unwrap();
    // direction 3 + intensity 1, then gTint 4.
    assert_eq!(report.words, 8, "{report:?}");
}

#[test]
fn a_payload_packed_with_std140_offsets_fails_the_proof() {
    let mut layout = existential_value();
    layout.source = None;
    let global = layout
        .bindings
        .iter_mut()
        .find(|b| b.ty == vk::DescriptorType::UNIFORM_BUFFER)
        .unwrap();
    let name = global.name.clone();
    let members = &mut global.buffer.as_mut().unwrap().members;
    let MemberType::Struct(header) = &mut members[0].ty else {
        panic!("gLight is the existential header")
    };
    header.retain(|m| m.name == "value");
    let MemberType::Struct(value) = &mut header[0].ty else {
        panic!("the payload holds Sun's members")
    };
    // Where a std140 `Sun` would put `intensity` if it followed a padded float3.
    value[1].offset = 16;
    let spec = Spec {
        entry: "main",
        output: "gOut",
        reads: vec![Read::Buffer(Box::leak(name.into_boxed_str()))],
        runtime_lengths: vec![],
        samplers: vec![],
        unbounded_len: 0,
    };
    let error = proof::run(&layout, &spec).unwrap_err();
    assert!(error.contains("output word 3"), "{error}");
}

#[test]
fn an_interface_typed_field_with_one_conforming_type_binds_byte_for_byte() {
    let bytes =
        layout::bake(&[layout::test_shaders_dir().join("specialized/existential_field.toml")]);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    let entry = package.load("existential_field").expect("baked");
    let mut layout = layout::describe(&entry).expect("the entry is described");
    let scene = layout
        .bindings
        .iter_mut()
        .find(|b| b.name == "gScene")
        .unwrap();
    let members = &mut scene.buffer.as_mut().unwrap().members;
    assert_eq!(members[1].name, "light");
    let MemberType::Struct(header) = &mut members[1].ty else {
        panic!("light is the existential header: {:?}", members[1])
    };
    // The code reads the payload only: the proof predicts those words.
    header.retain(|m| m.name == "value");
    let spec = Spec {
        entry: "main",
        output: "gOut",
        reads: vec![Read::Buffer("gScene")],
        runtime_lengths: vec![],
        samplers: vec![],
        unbounded_len: 0,
    };
    let report = proof::run(&layout, &spec).unwrap();
    // tint 4, then direction 3 + intensity 1.
    assert_eq!(report.words, 8, "{report:?}");
}

#[test]
fn an_interface_typed_block_packed_in_its_payload_binds_byte_for_byte() {
    let bytes = layout::bake(&[
        layout::test_shaders_dir().join("specialized/existential_block_packed.toml")
    ]);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    let entry = package.load("existential_block_packed").expect("baked");
    let mut layout = layout::describe(&entry).expect("the entry is described");
    let block = layout
        .bindings
        .iter_mut()
        .find(|b| b.name == "gSurface")
        .unwrap();
    let members = &mut block.buffer.as_mut().unwrap().members;
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["existential", "value"]);
    // The specialized code reads the payload only: the proof predicts those words.
    members.retain(|m| m.name == "value");
    let spec = Spec {
        entry: "main",
        output: "gOut",
        reads: vec![Read::Buffer("gSurface")],
        runtime_lengths: vec![],
        samplers: vec![],
        unbounded_len: 0,
    };
    let report = proof::run(&layout, &spec).unwrap();
    // tint 2, gray 1, layer 1.
    assert_eq!(report.words, 4, "{report:?}");
}

//! The patterns real engines write, on lavapipe with the validation layer on, built from the
//! bind view alone: explicit `[[vk::offset]]` members and an array of constant buffers bind
//! byte for byte; input attachments build against a render pass whose subpass takes each at
//! the bind view's input attachment index; a texture and a sampler sharing a binding build as
//! one combined image sampler; Slang's descriptor heaps build as unbounded arrays. Any
//! validation message fails a test, and wrong facts are shown to fail.

use ash::vk;
use slangpack_reader::Package;
use slangpack_tests::layout::{self, ProgramLayout};
use slangpack_tests::proof::{self, Read, Spec};
use slangpack_tests::vk::{GraphicsDesc, Vk};

fn package(name: &str) -> Vec<u8> {
    layout::bake(&[layout::test_shaders_dir().join(format!("{name}.slang"))])
}

fn program(bytes: &[u8], key: &str) -> ProgramLayout {
    let package = Package::from_bytes(bytes).expect("the package opens");
    layout::describe(&package.load(key).expect("baked")).expect("the entry is described")
}

fn offsets_spec() -> Spec {
    Spec {
        entry: "main",
        output: "gOut",
        reads: vec![
            Read::PushConstants,
            Read::Buffer("gMaterial"),
            Read::Buffer("gLights"),
        ],
        runtime_lengths: vec![],
        samplers: vec![],
        unbounded_len: 0,
    }
}

#[test]
fn explicit_offsets_and_an_array_of_constant_buffers_bind_byte_for_byte() {
    let layout = program(&package("explicit_offsets"), "explicit_offsets");
    let report = proof::run(&layout, &offsets_spec()).unwrap();
    // push 1+1+4, material 4+2+8+2, two lights of 3+1.
    assert_eq!(report.words, 6 + 16 + 8, "{report:?}");
}

#[test]
fn the_offsets_slang_reflection_reports_fail_the_proof() {
    let mut layout = program(&package("explicit_offsets"), "explicit_offsets");
    // What Slang's reflection says without `[[vk::offset]]`: roughness 0, samples 4, tint 16.
    let push = layout.push_constants.first_mut().unwrap();
    for (member, offset) in push.layout.members.iter_mut().zip([0, 4, 16]) {
        member.offset = offset;
    }
    let error = proof::run(&layout, &offsets_spec()).unwrap_err();
    assert!(error.contains("output word 0 "), "{error}");
}

/// Ends `vk`, asserting the validation layer said nothing.
fn assert_silent(vk: Vk) {
    let messages = vk.finish();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}

/// Pairs `fragment` with the full-screen vertex shader and builds it, in `render_pass` when
/// given, else with dynamic rendering.
fn build_fragment(
    vk: &mut Vk,
    program: &ProgramLayout,
    render_pass: Option<vk::RenderPass>,
) -> Result<(), String> {
    let fullscreen = layout::bake(&[layout::test_shaders_dir().join("fullscreen_vertex.slang")]);
    let fullscreen = self::program(&fullscreen, "fullscreen_vertex");
    let pipeline_layout = vk.pipeline_layout(&program.pipeline_layout_desc(16))?;
    let vertex = &fullscreen.entry_points[0];
    let fragment = &program.entry_points[0];
    let desc = GraphicsDesc {
        vertex: (&vertex.spirv, &vertex.spirv_entry_name),
        fragment: (&fragment.spirv, &fragment.spirv_entry_name),
        attributes: &[],
        color_format: vk::Format::R8G8B8A8_UNORM,
    };
    match render_pass {
        Some(pass) => vk.graphics_pipeline_in(&pipeline_layout, &desc, pass)?,
        None => vk.graphics_pipeline(&pipeline_layout, &desc)?,
    };
    Ok(())
}

/// The render pass for `key`'s input attachments: one attachment per input attachment index
/// up to the highest the bind view states (or `count` when given).
fn input_pass(vk: &mut Vk, bytes: &[u8], key: &str, count: Option<u32>) -> vk::RenderPass {
    let package = Package::from_bytes(bytes).unwrap();
    let entry = package.load(key).unwrap();
    let bind = entry.bind();
    let highest = bind
        .bindings()
        .iter()
        .filter_map(|b| b.input_attachment())
        .max()
        .expect("input attachments");
    let inputs = vec![vk::Format::R8G8B8A8_UNORM; count.unwrap_or(highest + 1) as usize];
    vk.input_render_pass(&inputs, vk::Format::R8G8B8A8_UNORM)
        .unwrap()
}

#[test]
fn input_attachments_build_against_a_render_pass_at_their_indices() {
    let bytes = package("input_attachments");
    let program = program(&bytes, "input_attachments");
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let pass = input_pass(&mut vk, &bytes, "input_attachments", None);
    build_fragment(&mut vk, &program, Some(pass)).unwrap();
    assert_silent(vk);
}

#[test]
fn input_attachments_described_as_sampled_images_draw_validation_errors() {
    // What the bind view said before it knew input attachments.
    let bytes = package("input_attachments");
    let mut program = program(&bytes, "input_attachments");
    for b in &mut program.bindings {
        b.ty = vk::DescriptorType::SAMPLED_IMAGE;
    }
    // Build from this (wrong) description, not from the package's bind view.
    program.source = None;
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let pass = input_pass(&mut vk, &bytes, "input_attachments", None);
    let _ = build_fragment(&mut vk, &program, Some(pass));
    let messages = vk.finish();
    assert!(
        messages.iter().any(|m| m.contains("INPUT_ATTACHMENT")),
        "the layer accepted sampled images for input attachments: {messages:?}"
    );
}

#[test]
fn a_subpass_without_the_highest_input_attachment_index_draws_validation_errors() {
    let bytes = package("input_attachments");
    let program = program(&bytes, "input_attachments");
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    // gNormal reads input attachment 2: a subpass with two input attachments lacks it.
    let pass = input_pass(&mut vk, &bytes, "input_attachments", Some(2));
    let _ = build_fragment(&mut vk, &program, Some(pass));
    let messages = vk.finish();
    assert!(
        !messages.is_empty(),
        "the layer accepted a missing input attachment"
    );
}

#[test]
fn a_texture_and_a_sampler_sharing_a_binding_build_as_one_combined_image_sampler() {
    let program = program(&package("combined_sampler"), "combined_sampler");
    let albedo = program.bindings.iter().find(|b| b.binding == 0).unwrap();
    assert_eq!(albedo.ty, vk::DescriptorType::COMBINED_IMAGE_SAMPLER);
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    build_fragment(&mut vk, &program, None).unwrap();
    assert_silent(vk);
}

#[test]
fn descriptor_heaps_build_as_unbounded_arrays_where_the_driver_has_descriptor_indexing() {
    let program = program(&package("descriptor_heap"), "descriptor_heap");
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    if !vk.capabilities.descriptor_indexing() {
        eprintln!(
            "NOT BUILT on this device: descriptor heaps need {:?}",
            vk.capabilities.descriptor_indexing_missing
        );
        return;
    }
    let pipeline_layout = vk
        .pipeline_layout(&program.pipeline_layout_desc(16))
        .unwrap();
    let ep = &program.entry_points[0];
    vk.compute_pipeline(&pipeline_layout, &ep.spirv, &ep.spirv_entry_name)
        .unwrap();
    assert_silent(vk);
}

/// Structured buffers reached through descriptor handles: the storage-buffer heap binding the
/// package states their element layouts at builds, with the push constants holding the
/// handles, and the validation layer says nothing.
#[test]
fn a_heap_of_storage_buffers_with_element_layouts_builds_silently() {
    let bytes = package("heap_storage_buffer");
    let program = program(&bytes, "heap_storage_buffer");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("heap_storage_buffer").unwrap();
    let bind = entry.bind();
    let heap = bind
        .binding("__slang_resource_heap.storage_buffer")
        .unwrap();
    let built = (program.bindings.iter())
        .find(|b| (b.set, b.binding) == (heap.set, heap.binding))
        .expect("the heap binding is in the pipeline layout");
    assert_eq!(built.ty, vk::DescriptorType::STORAGE_BUFFER);
    assert_eq!(bind.heap_buffers(heap).count(), 3);
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    if !vk.capabilities.descriptor_indexing() {
        eprintln!(
            "NOT BUILT on this device: descriptor heaps need {:?}",
            vk.capabilities.descriptor_indexing_missing
        );
        return;
    }
    let pipeline_layout = vk
        .pipeline_layout(&program.pipeline_layout_desc(16))
        .unwrap();
    let ep = &program.entry_points[0];
    vk.compute_pipeline(&pipeline_layout, &ep.spirv, &ep.spirv_entry_name)
        .unwrap();
    assert_silent(vk);
}

#[test]
fn a_descriptor_heap_of_several_kinds_builds_as_a_mutable_descriptor() {
    build_mutable_heap("descriptor_heap_mutable", vk::DescriptorType::SAMPLED_IMAGE);
}

/// A constant buffer reached through a `DescriptorHandle<ConstantBuffer<T>>` beside a
/// storage-buffer handle: one mutable heap binding of both kinds.
#[test]
fn a_heap_holding_a_constant_buffer_builds_as_a_mutable_descriptor() {
    build_mutable_heap("heap_constant_buffer", vk::DescriptorType::UNIFORM_BUFFER);
}

fn build_mutable_heap(shader: &str, other: vk::DescriptorType) {
    let program = program(&package(shader), shader);
    let heap = program.bindings.iter().find(|b| b.binding == 2).unwrap();
    assert_eq!(heap.ty, vk::DescriptorType::MUTABLE_EXT);
    let both = (1 << other.as_raw()) | (1 << vk::DescriptorType::STORAGE_BUFFER.as_raw());
    assert_eq!(heap.mutable_types, both);
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    if !vk.capabilities.descriptor_indexing() || !vk.capabilities.mutable_descriptor_type {
        eprintln!(
            "NOT BUILT on this device: a mutable descriptor heap needs descriptor indexing \
             ({:?} missing) and VK_EXT_mutable_descriptor_type ({})",
            vk.capabilities.descriptor_indexing_missing, vk.capabilities.mutable_descriptor_type
        );
        return;
    }
    let pipeline_layout = vk
        .pipeline_layout(&program.pipeline_layout_desc(16))
        .unwrap();
    let ep = &program.entry_points[0];
    vk.compute_pipeline(&pipeline_layout, &ep.spirv, &ep.spirv_entry_name)
        .unwrap();
    assert_silent(vk);
}

#[test]
fn a_mutable_descriptor_without_its_type_list_draws_validation_errors() {
    let mut program = program(
        &package("descriptor_heap_mutable"),
        "descriptor_heap_mutable",
    );
    // Build from this (wrong) description, not from the package's bind view.
    program.source = None;
    for b in &mut program.bindings {
        b.mutable_types = 0;
    }
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    if !vk.capabilities.descriptor_indexing() || !vk.capabilities.mutable_descriptor_type {
        return;
    }
    let _ = vk.pipeline_layout(&program.pipeline_layout_desc(16));
    let messages = vk.finish();
    assert!(
        !messages.is_empty(),
        "the layer accepted a mutable descriptor without types"
    );
}

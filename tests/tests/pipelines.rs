//! One source file, several pipelines (`tests/shaders/pipelines.slang`): globals of a
//! vertex/fragment pipeline and of a compute pipeline reuse set 0's binding numbers, and push
//! constants mix an entry point's `uniform` parameters (vertex, compute) with a global
//! `[[vk::push_constant]]` block (fragment). The bind view keeps per-entry-point usage; an
//! engine gets each pipeline's layout from `Entry::pipeline` alone. Here: the facts, the
//! refusals (one entry point using two resources at one place, or two push-constant blocks),
//! each pipeline built on lavapipe from its layout with no validation message, and
//! byte-for-byte proofs that both pipelines bind what their layouts say.

use ash::vk;
use slangpack_format::bind::*;
use slangpack_reader::{Package, PipelineError};
use slangpack_tests::layout::{self, Member, ProgramLayout};
use slangpack_tests::proof::{self, expected_words, pattern, word, Read, Spec, IMAGE_EXTENT};
use slangpack_tests::vk::{GraphicsDesc, Vk};
use slangpack_writer::bake::{self as writer, BakeConfig};

const GRAPHICS: [&str; 2] = ["vertexMain", "fragmentMain"];
const COMPUTE: [&str; 1] = ["simulate"];

fn package() -> Package {
    let bytes = layout::bake(&[layout::test_shaders_dir().join("pipelines.slang")]);
    Package::from_bytes(&bytes).expect("the package opens")
}

fn bake_source(source: &str) -> Result<Package, slangpack_writer::BakeError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slang");
    std::fs::write(&path, source).unwrap();
    let outcome = writer::bake(&BakeConfig::new(vec![path]))?;
    Ok(Package::from_bytes(&outcome.bytes).unwrap())
}

#[test]
fn bindings_of_different_pipelines_share_numbers_and_each_pipeline_gets_its_own() {
    let package = package();
    let entry = package.load("pipelines").unwrap();
    let bind = entry.bind();

    // The union view (for tools) lists both pipelines' bindings, two at each shared place.
    let union: Vec<(u32, &str, u32, u32)> = bind
        .bindings()
        .iter()
        .map(|b| {
            (
                b.binding,
                bind.string(b.path),
                b.entry_point_mask,
                b.stage_flags,
            )
        })
        .collect();
    assert_eq!(
        union,
        [
            (0, "camera", 0b001, 0x1),
            (0, "particlesIn", 0b100, 0x20),
            (1, "albedo", 0b010, 0x10),
            (1, "particlesOut", 0b100, 0x20),
            (2, "albedoSampler", 0b010, 0x10),
            (3, "gOut", 0b011, 0x11),
        ]
    );
    let push: Vec<(&str, u32, u32, u32, u32)> = bind
        .push_constants()
        .iter()
        .map(|p| {
            (
                bind.string(p.name),
                p.offset,
                p.size,
                p.entry_point_mask,
                p.stage_flags,
            )
        })
        .collect();
    assert_eq!(
        push,
        [
            ("material", 16, 20, 0b010, 0x10),
            ("vertexMain", 0, 16, 0b001, 0x1),
            ("simulate", 0, 8, 0b100, 0x20),
        ],
        "each block has the stages of the entry points whose SPIR-V declares it"
    );

    let graphics = entry.pipeline(&GRAPHICS).unwrap();
    let bindings: Vec<(u32, DescriptorKind, u32)> = graphics
        .set(0)
        .map(|b| (b.record.binding, b.record.kind(), b.stage_flags))
        .collect();
    assert_eq!(
        bindings,
        [
            (0, DescriptorKind::UniformBuffer, 0x1),
            (1, DescriptorKind::SampledImage, 0x10),
            (2, DescriptorKind::Sampler, 0x10),
            (3, DescriptorKind::StorageBuffer, 0x11),
        ]
    );
    let ranges: Vec<(u32, u32, u32)> = graphics
        .push_constants()
        .map(|p| (p.record.offset, p.record.size, p.stage_flags))
        .collect();
    assert_eq!(ranges, [(16, 20, 0x10), (0, 16, 0x1)]);
    assert_eq!(
        (graphics.set_slot_count(), graphics.stage_flags()),
        (1, 0x11)
    );
    assert!(graphics.binding("particlesIn").is_none());
    assert_eq!(graphics.binding("gOut").map(|b| b.stage_flags), Some(0x11));

    // The fragment stage alone: gOut with the fragment stage only.
    let fragment = entry.pipeline(&["fragmentMain"]).unwrap();
    assert_eq!(fragment.binding("gOut").map(|b| b.stage_flags), Some(0x10));
    assert_eq!(fragment.push_constants().count(), 1);

    let compute = entry.pipeline(&COMPUTE).unwrap();
    let bindings: Vec<(u32, &str, u32)> = compute
        .bindings()
        .map(|b| (b.record.binding, bind.string(b.record.path), b.stage_flags))
        .collect();
    assert_eq!(
        bindings,
        [(0, "particlesIn", 0x20), (1, "particlesOut", 0x20)]
    );
    let ranges: Vec<(&str, u32)> = compute
        .push_constants()
        .map(|p| (bind.string(p.record.name), p.stage_flags))
        .collect();
    assert_eq!(ranges, [("simulate", 0x20)]);

    let error = entry.pipeline(&["vertexMain", "fragmentMian"]).unwrap_err();
    assert!(
        matches!(&error, PipelineError::UnknownEntryPoint { name, available, .. }
            if name == "fragmentMian" && available.contains("fragmentMain")),
        "{error:?}"
    );
    assert!(error.to_string().contains("fragmentMain"), "{error}");
}

#[test]
fn one_entry_point_using_two_resources_at_one_binding_is_a_bake_error_naming_both() {
    let error = bake_source(
        r#"
        [[vk::binding(0, 0)]] Texture2D gFirst;
        [[vk::binding(0, 0)]] Texture2D gSecond;
        [[vk::binding(1, 0)]] RWStructuredBuffer<float4> gOut;
        [shader("compute")][numthreads(1, 1, 1)]
        void main() { gOut[0] = gFirst.Load(int3(0, 0, 0)) + gSecond.Load(int3(0, 0, 0)); }
        "#,
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`main`")
            && message.contains("gFirst")
            && message.contains("gSecond")
            && message.contains("set 0 binding 0"),
        "{message}"
    );
}

#[test]
fn one_entry_point_with_two_push_constant_blocks_is_a_bake_error_naming_both() {
    // Slang emits two PushConstant variables for this entry point (invalid for Vulkan).
    let error = bake_source(
        r#"
        struct A { float4 a; };
        [[vk::push_constant]] ConstantBuffer<A> gGlobal;
        RWStructuredBuffer<float4> gOut;
        [shader("compute")][numthreads(1, 1, 1)]
        void main(uniform float4 extra) { gOut[0] = gGlobal.a + extra; }
        "#,
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`main`") && message.contains("gGlobal") && message.contains("uniform"),
        "{message}"
    );
}

#[test]
fn a_global_block_in_one_stage_and_uniform_parameters_in_another_bake_but_cannot_share_bytes() {
    // The corpus pattern, without `vk::offset`: Slang puts both blocks at offset 0.
    let package = bake_source(
        r#"
        struct Material { float4 color; float roughness; };
        [[vk::push_constant]] ConstantBuffer<Material> material;
        struct V { float4 pos : SV_Position; };
        [shader("vertex")]
        V vertexMain(float3 p : POSITION, uniform float3 objPos) { V o; o.pos = float4(p + objPos, 1); return o; }
        [shader("fragment")]
        float4 fragmentMain(V v) : SV_Target { return material.color * material.roughness; }
        "#,
    )
    .expect("bakes: each entry point's SPIR-V declares one block");
    let entry = package.load("t").unwrap();
    let bind = entry.bind();
    let ranges: Vec<(&str, u32, u32, u32)> = bind
        .push_constants()
        .iter()
        .map(|p| (bind.string(p.name), p.offset, p.size, p.stage_flags))
        .collect();
    assert_eq!(
        ranges,
        [("material", 0, 20, 0x10), ("vertexMain", 0, 12, 0x1)]
    );
    // In one pipeline both would read bytes 0..12 as different members: refused, naming
    // both.
    let error = entry.pipeline(&GRAPHICS).unwrap_err();
    assert!(
        matches!(&error, PipelineError::PushConstantOverlap { first, second }
            if first == "material" && second == "vertexMain"),
        "{error:?}"
    );
    assert!(entry.pipeline(&["fragmentMain"]).is_ok());
}

/// Builds the graphics pipeline and the compute pipeline, each from its own
/// `Entry::pipeline` layout, on lavapipe.
#[test]
fn each_pipeline_builds_on_lavapipe_from_its_own_layout_with_no_validation_message() {
    let package = package();
    let entry = package.load("pipelines").unwrap();
    let mut vk = Vk::new().expect("lavapipe with the validation layer");

    let graphics = layout::from_pipeline(&entry, &GRAPHICS).unwrap();
    let pipeline_layout = vk
        .pipeline_layout(&graphics.pipeline_layout_desc(1))
        .unwrap();
    let (vertex, fragment) = (&graphics.entry_points[0], &graphics.entry_points[1]);
    vk.graphics_pipeline(
        &pipeline_layout,
        &GraphicsDesc {
            vertex: (&vertex.spirv, &vertex.spirv_entry_name),
            fragment: (&fragment.spirv, &fragment.spirv_entry_name),
            attributes: &graphics.vertex_attributes(0),
            color_format: vk::Format::R8G8B8A8_UNORM,
        },
    )
    .unwrap();

    let compute = layout::from_pipeline(&entry, &COMPUTE).unwrap();
    let pipeline_layout = vk
        .pipeline_layout(&compute.pipeline_layout_desc(1))
        .unwrap();
    let kernel = &compute.entry_points[0];
    vk.compute_pipeline(&pipeline_layout, &kernel.spirv, &kernel.spirv_entry_name)
        .unwrap();

    let messages = vk.finish();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}

#[test]
fn the_compute_pipeline_binds_byte_for_byte_at_numbers_the_graphics_pipeline_also_uses() {
    let package = package();
    let entry = package.load("pipelines").unwrap();
    let compute = layout::from_pipeline(&entry, &COMPUTE).unwrap();
    let spec = Spec {
        entry: "simulate",
        output: "particlesOut",
        reads: vec![Read::Buffer("particlesIn"), Read::PushConstants],
        runtime_lengths: vec![("particlesIn", 2)],
        samplers: vec![],
        unbounded_len: 0,
    };
    let report = proof::run(&compute, &spec).unwrap();
    assert_eq!(report.words, 2 * 8 + 2);

    // The union layout would put two bindings at binding 0 and 1 of set 0: not a layout.
    let union = layout::from_bind_view(&entry).unwrap();
    assert_eq!(union.bindings.iter().filter(|b| b.binding == 0).count(), 2);
}

/// The members of the buffer bound as `name` in `layout`.
fn buffer_members<'l>(layout: &'l ProgramLayout, name: &str) -> &'l [Member] {
    let binding = layout.binding(name).unwrap_or_else(|| panic!("{name}"));
    &binding.buffer.as_ref().expect("a buffer").members
}

/// The members of the push-constant block of `stage` in `layout`.
fn push_members(layout: &ProgramLayout, stage: vk::ShaderStageFlags) -> &[Member] {
    let block = layout.push_constants.iter().find(|p| p.stages == stage);
    &block.expect("a push-constant block").layout.members
}

#[test]
fn the_graphics_pipeline_binds_byte_for_byte_with_one_push_constant_block_per_stage() {
    let package = package();
    let entry = package.load("pipelines").unwrap();
    let graphics = layout::from_pipeline(&entry, &GRAPHICS).unwrap();
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let desc = graphics.pipeline_layout_desc(1);
    let pipeline_layout = vk.pipeline_layout(&desc).unwrap();
    let (vertex, fragment) = (&graphics.entry_points[0], &graphics.entry_points[1]);
    let pipeline = vk
        .graphics_pipeline(
            &pipeline_layout,
            &GraphicsDesc {
                vertex: (&vertex.spirv, &vertex.spirv_entry_name),
                fragment: (&fragment.spirv, &fragment.spirv_entry_name),
                attributes: &[],
                color_format: vk::Format::R8G8B8A8_UNORM,
            },
        )
        .unwrap();
    let sets = vk.descriptor_sets(&pipeline_layout, &[]).unwrap();

    // Fill every binding from the pipeline's description.
    let binding = |name: &str| graphics.binding(name).unwrap_or_else(|| panic!("{name}"));
    let set = |name: &str| sets[binding(name).set as usize].expect("a descriptor set");
    let camera = binding("camera");
    let camera_bytes = pattern(camera.set, camera.binding, 0, 80);
    let camera_buffer = vk.buffer(80, vk::BufferUsageFlags::UNIFORM_BUFFER).unwrap();
    vk.write(&camera_buffer, 0, &camera_bytes);
    vk.write_buffer(set("camera"), camera.binding, 0, camera.ty, &camera_buffer);
    let albedo = binding("albedo");
    let texels = pattern(albedo.set, albedo.binding, 0, 4 * 16);
    let image = vk
        .image_2d(
            vk::Format::R8G8B8A8_UNORM,
            4,
            IMAGE_EXTENT,
            vk::ImageUsageFlags::SAMPLED,
            &texels,
        )
        .unwrap();
    vk.write_image(
        set("albedo"),
        albedo.binding,
        0,
        albedo.ty,
        image.view,
        vk::Sampler::null(),
    );
    let sampler = vk.sampler(vk::SamplerAddressMode::CLAMP_TO_EDGE).unwrap();
    let albedo_sampler = binding("albedoSampler");
    vk.write_image(
        set("albedoSampler"),
        albedo_sampler.binding,
        0,
        albedo_sampler.ty,
        vk::ImageView::null(),
        sampler,
    );
    let out = binding("gOut");
    let out_buffer = vk
        .buffer(4096, vk::BufferUsageFlags::STORAGE_BUFFER)
        .unwrap();
    vk.write(&out_buffer, 0, &[0xAB; 4096]);
    vk.write_buffer(set("gOut"), out.binding, 0, out.ty, &out_buffer);

    // One push-constant memory; each stage's range is pushed with that stage's flags.
    let end = graphics
        .push_constants
        .iter()
        .map(|p| p.offset + p.size)
        .max()
        .unwrap();
    let push = pattern(0xff, 0xff, 0, end as usize);
    let pushes: Vec<(vk::ShaderStageFlags, u32, &[u8])> = graphics
        .push_constants
        .iter()
        .map(|p| {
            let range = p.offset as usize..(p.offset + p.size) as usize;
            (p.stages, p.offset, &push[range])
        })
        .collect();
    let target = vk
        .image_2d(
            vk::Format::R8G8B8A8_UNORM,
            4,
            IMAGE_EXTENT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT,
            &[0; 64],
        )
        .unwrap();
    let dummy = vk.buffer(16, vk::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let before = vk.messages();
    assert!(before.is_empty(), "{}", before.join("\n"));
    vk.draw(
        pipeline,
        &pipeline_layout,
        &sets,
        &dummy,
        3,
        &target,
        &pushes,
    )
    .unwrap();

    // Predict every word from the description and the bytes written.
    let mut expected = expected_words(buffer_members(&graphics, "camera"), &camera_bytes, 0, 0);
    let vertex_block = push_members(&graphics, vk::ShaderStageFlags::VERTEX);
    expected.extend(expected_words(vertex_block, &push, 0, 0));
    let fragment_block = push_members(&graphics, vk::ShaderStageFlags::FRAGMENT);
    expected.extend(expected_words(fragment_block, &push, 0, 0));
    expected.push(word(&texels, 0));
    let actual = vk.read(&out_buffer);
    for (i, want) in expected.iter().enumerate() {
        assert_eq!(word(&actual, 4 * i as u32), *want, "output word {i}");
    }
    assert_eq!(word(&actual, 4 * expected.len() as u32), 0xABAB_ABAB);
    assert_eq!(expected.len(), 16 + 4 + 4 + 5 + 1);
    let messages = vk.finish();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}

/// The `ash` helpers of a pipeline keep its own stage flags: a buffer the vertex stage and a
/// compute kernel both read is `VERTEX` in the graphics pipeline's set layout and `COMPUTE` in
/// the kernel's, where the entry's record (every pipeline's) says both; push-constant ranges
/// carry their pipeline's stages.
#[test]
fn a_pipelines_ash_layout_has_its_own_stage_flags() {
    let package = bake_source(
        r#"
        StructuredBuffer<float4> gPositions;
        RWStructuredBuffer<float4> gOut;
        struct V { float4 pos : SV_Position; };
        [shader("vertex")]
        V vertexMain(uint id : SV_VertexID, uniform float4 offset) { V o; o.pos = gPositions[id] + offset; return o; }
        [shader("fragment")]
        float4 fragmentMain(V v) : SV_Target { return v.pos; }
        [shader("compute")][numthreads(1, 1, 1)]
        void simulate(uint3 id : SV_DispatchThreadID) { gOut[id.x] = gPositions[id.x]; }
        "#,
    )
    .unwrap();
    let entry = package.load("t").unwrap();
    let record = entry.bind().binding("gPositions").unwrap();
    assert_eq!(record.stage_flags, 0x21, "the record: vertex and compute");
    let stages = |raw| vk::ShaderStageFlags::from_raw(raw);
    let set0 = |names: &[&str]| -> Vec<(u32, vk::DescriptorType, vk::ShaderStageFlags)> {
        entry
            .pipeline(names)
            .unwrap()
            .vk_set_layout_bindings(0, 16)
            .map(|(b, _)| (b.binding, b.descriptor_type, b.stage_flags))
            .collect()
    };
    assert_eq!(
        set0(&GRAPHICS),
        [(0, vk::DescriptorType::STORAGE_BUFFER, stages(0x1))]
    );
    assert_eq!(
        set0(&COMPUTE),
        [
            (0, vk::DescriptorType::STORAGE_BUFFER, stages(0x20)),
            (1, vk::DescriptorType::STORAGE_BUFFER, stages(0x20))
        ]
    );
    let graphics = entry.pipeline(&GRAPHICS).unwrap();
    assert_eq!(
        graphics.vk_set_layout_create_flags(0),
        vk::DescriptorSetLayoutCreateFlags::empty()
    );
    let ranges: Vec<(u32, u32, vk::ShaderStageFlags)> = graphics
        .vk_push_constant_ranges()
        .map(|r| (r.offset, r.size, r.stage_flags))
        .collect();
    assert_eq!(ranges, [(0, 16, stages(0x1))]);
}

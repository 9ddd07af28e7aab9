//! Pipelines on lavapipe, with the validation layer on, for every entry point of every
//! example shader and every test shader: set layouts (holes filled), pipeline layouts with
//! push-constant ranges, compute and graphics pipelines from the stored SPIR-V and the
//! stored SPIR-V entry name, vertex inputs from the description. Any validation message
//! fails the test.

use ash::vk;
use slangpack_format::bind::{FragmentOutput, ModeFlags};
use slangpack_reader::{Package, PipelineError};
use slangpack_tests::layout::{self, Count, ProgramLayout};
use slangpack_tests::vk::{BindingDesc, GraphicsDesc, PipelineLayoutDesc, VertexAttribute, Vk};
use std::path::PathBuf;

/// Capacity given to every unbounded array.
const UNBOUNDED_CAPACITY: u32 = 64;

fn describe_all(inputs: &[PathBuf]) -> Vec<ProgramLayout> {
    let bytes = layout::bake(inputs);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    package
        .entries()
        .map(|entry| {
            layout::describe(&entry.expect("the entry loads")).expect("the entry is described")
        })
        .collect()
}

fn needs_descriptor_indexing(program: &ProgramLayout) -> bool {
    program.bindings.iter().any(|b| b.count == Count::Unbounded)
}

/// Builds every pipeline of `program` on `vk`; a fragment stage without a vertex stage is
/// paired with `fullscreen`'s vertex stage. Returns the number of pipelines built.
fn build_pipelines(vk: &mut Vk, program: &ProgramLayout, fullscreen: &ProgramLayout) -> usize {
    let desc = program.pipeline_layout_desc(UNBOUNDED_CAPACITY);
    let pipeline_layout = vk
        .pipeline_layout(&desc)
        .unwrap_or_else(|e| panic!("{}: {e}", program.key));
    let mut built = 0;
    let vertex = program
        .entry_points
        .iter()
        .position(|e| e.stage == vk::ShaderStageFlags::VERTEX);
    for ep in &program.entry_points {
        let what = format!("{} `{}`", program.key, ep.name);
        if ep.stage == vk::ShaderStageFlags::COMPUTE {
            vk.compute_pipeline(&pipeline_layout, &ep.spirv, &ep.spirv_entry_name)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            built += 1;
        } else if ep.stage == vk::ShaderStageFlags::FRAGMENT {
            let (vertex_program, vertex_index) = match vertex {
                Some(v) => (program, v),
                None => (fullscreen, 0),
            };
            let vertex_ep = &vertex_program.entry_points[vertex_index];
            let attributes = vertex_program.vertex_attributes(vertex_index);
            vk.graphics_pipeline(
                &pipeline_layout,
                &GraphicsDesc {
                    vertex: (&vertex_ep.spirv, &vertex_ep.spirv_entry_name),
                    fragment: (&ep.spirv, &ep.spirv_entry_name),
                    attributes: &attributes,
                    color_format: vk::Format::R8G8B8A8_UNORM,
                },
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            built += 1;
        } else {
            // A vertex stage is built with its program's fragment stage (above); a program
            // with a vertex stage only is a companion for fragment-only programs.
            assert_eq!(ep.stage, vk::ShaderStageFlags::VERTEX, "{what}");
        }
    }
    built
}

fn fullscreen() -> ProgramLayout {
    describe_all(&[layout::test_shaders_dir().join("fullscreen_vertex.slang")]).remove(0)
}

fn check_all(programs: &[ProgramLayout], expected: &[(&str, usize)]) {
    let fullscreen = fullscreen();
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let indexing = vk.capabilities.descriptor_indexing();
    let mut built = Vec::new();
    for program in programs {
        if needs_descriptor_indexing(program) && !indexing {
            // Mesa 22.3's lavapipe has no descriptor indexing: an unbounded array cannot get
            // a pipeline there (vulkan_proofs.rs checks the layer refuses it, and
            // examples/device_proof.rs runs it on a device that has the features).
            eprintln!(
                "NOT BUILT on this device: {} (unbounded arrays; the device lacks {:?})",
                program.key, vk.capabilities.descriptor_indexing_missing
            );
            continue;
        }
        built.push((
            program.key.as_str(),
            build_pipelines(&mut vk, program, &fullscreen),
        ));
        let messages = vk.messages();
        assert!(
            messages.is_empty(),
            "{}: validation messages:\n{}",
            program.key,
            messages.join("\n")
        );
    }
    let messages = vk.finish();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
    let expected: Vec<(&str, usize)> = expected
        .iter()
        .copied()
        .filter(|(key, _)| {
            indexing
                || !programs
                    .iter()
                    .any(|p| p.key == *key && needs_descriptor_indexing(p))
        })
        .collect();
    assert_eq!(built, expected);
}

#[test]
fn every_example_entry_point_gets_a_pipeline_with_no_validation_message() {
    let programs = describe_all(&[layout::example_shaders_dir()]);
    let pbr = programs.iter().find(|p| p.key == "pbr").unwrap();
    let locations: Vec<(u32, vk::Format)> = pbr.vertex_inputs[0]
        .iter()
        .map(|v| (v.location, v.format))
        .collect();
    assert_eq!(
        locations,
        [
            (0, vk::Format::R32G32B32_SFLOAT),
            (1, vk::Format::R32G32B32_SFLOAT),
            (2, vk::Format::R32G32B32A32_SFLOAT),
            (3, vk::Format::R32G32_SFLOAT),
            (4, vk::Format::R32G32_SFLOAT),
        ],
        "pbr's vertex inputs, SV_InstanceID excluded (the SPIR-V declares only 0, 1 and 3: \
         Slang drops the unused TANGENT and TEXCOORD1 but keeps the declared locations)"
    );
    check_all(
        &programs,
        &[
            ("bindless", 1),
            ("blur", 2),
            ("layered/layered", 1),
            ("pbr", 1),
        ],
    );
}

#[test]
fn every_test_shader_entry_point_gets_a_pipeline_with_no_validation_message() {
    // proof_uniforms (the seed-003 placement) is covered by its proof in vulkan_proofs.rs.
    let shaders = [
        "proof_uniforms_auto",
        "proof_vertex",
        "proof_blocks",
        "proof_bindless",
        "proof_resources",
        "fullscreen_vertex",
    ];
    let programs: Vec<ProgramLayout> = shaders
        .iter()
        .flat_map(|s| describe_all(&[layout::test_shaders_dir().join(format!("{s}.slang"))]))
        .collect();
    check_all(
        &programs,
        &[
            ("proof_uniforms_auto", 1),
            ("proof_vertex", 1),
            ("proof_blocks", 1),
            ("proof_bindless", 1),
            ("proof_resources", 1),
            ("fullscreen_vertex", 0),
        ],
    );
}

#[test]
fn the_parameter_shapes_real_code_uses_get_pipelines_with_no_validation_message() {
    // Resources as entry-point `uniform` parameters and inside constant buffers, arrays sized
    // by specialization constants (built at the constants' defaults), arrays of structs
    // holding resources.
    // Interface-typed values specialized by a type argument or a conformance (their
    // manifests): in a parameter block, a constant buffer, the global uniform buffer and
    // push constants, with payloads the concrete type fills and ones it leaves partly unused;
    // ones dispatched dynamically among two conforming types (in a parameter block's struct,
    // as a parameter block, in push constants).
    // A constant buffer holding nothing (no place of its own), and parameter blocks inside
    // constant buffers, read and unread.
    let shaders = [
        "entry_point_resources.slang",
        "entry_point_resources_graphics.slang",
        "cbuffer_resources.slang",
        "specialized_arrays.slang",
        "struct_resource_arrays.slang",
        "specialized/existential_block.toml",
        "specialized/existential_value.toml",
        "specialized/existential_field.toml",
        "specialized/existential_block_packed.toml",
        "specialized/existential_push.toml",
        "specialized/existential_small.toml",
        "specialized/existential_argument_buffer.toml",
        "dispatch/light_env.toml",
        "dispatch/light_env_block.toml",
        "dispatch/light_env_push.toml",
        "empty_constant_buffer.slang",
        "nested_parameter_block.slang",
        "nested_parameter_block_unused.slang",
    ];
    let programs: Vec<ProgramLayout> = shaders
        .iter()
        .flat_map(|s| describe_all(&[layout::test_shaders_dir().join(s)]))
        .collect();
    check_all(
        &programs,
        &[
            ("entry_point_resources", 2),
            ("entry_point_resources_graphics", 1),
            ("cbuffer_resources", 1),
            ("specialized_arrays", 1),
            ("struct_resource_arrays", 1),
            ("existential_block", 1),
            ("existential_value", 1),
            ("existential_field", 1),
            ("existential_block_packed", 1),
            ("existential_push", 1),
            ("existential_small", 1),
            ("existential_argument_buffer", 1),
            ("light_env", 1),
            ("light_env_block", 1),
            ("light_env_push", 1),
            ("empty_constant_buffer", 1),
            ("nested_parameter_block", 1),
            ("nested_parameter_block_unused", 1),
        ],
    );
}

/// Push-constant ranges are the blocks' extents in the SPIR-V (`uniform float3 objPos` is 12
/// bytes, not Slang's 16), and ranges of different stages may overlap where both blocks read
/// the same members: the pipeline of the two stages builds on lavapipe with both ranges and
/// no validation message; a fragment block that reads those bytes as something else is
/// refused, naming both blocks.
#[test]
fn per_stage_push_constant_blocks_overlap_where_they_agree() {
    let bytes = layout::bake(&[layout::test_shaders_dir().join("push_stages.slang")]);
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("push_stages").unwrap();
    let bind = entry.bind();
    let ranges: Vec<(u32, u32)> = bind
        .push_constants()
        .iter()
        .map(|r| (r.offset, r.size))
        .collect();
    assert_eq!(ranges, [(0, 12), (0, 16), (0, 16)]);
    let pipeline = entry.pipeline(&["vertexMain", "fragmentMain"]).unwrap();
    let stages: Vec<(u32, u32, u32)> = pipeline
        .push_constants()
        .map(|p| (p.record.offset, p.record.size, p.stage_flags))
        .collect();
    assert_eq!(
        stages,
        [
            (0, 12, vk::ShaderStageFlags::VERTEX.as_raw()),
            (0, 16, vk::ShaderStageFlags::FRAGMENT.as_raw())
        ]
    );
    let conflict = entry
        .pipeline(&["vertexMain", "conflictingFragment"])
        .unwrap_err()
        .to_string();
    assert!(conflict.contains("share bytes"), "{conflict}");

    let program = layout::from_pipeline(&entry, &["vertexMain", "fragmentMain"]).unwrap();
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let pipeline_layout = vk
        .pipeline_layout(&program.pipeline_layout_desc(UNBOUNDED_CAPACITY))
        .unwrap();
    let (vertex, fragment) = (&program.entry_points[0], &program.entry_points[1]);
    let attributes = program.vertex_attributes(0);
    graphics_pair_draws_no_message(
        vk,
        &pipeline_layout,
        (&vertex.spirv, &vertex.spirv_entry_name),
        (&fragment.spirv, &fragment.spirv_entry_name),
        &attributes,
    );
}

/// Builds a vertex/fragment pipeline in `layout` rendering to one RGBA8 attachment, then
/// finishes `vk`, asserting the validation layer said nothing.
fn graphics_pair_draws_no_message(
    mut vk: Vk,
    layout: &slangpack_tests::vk::PipelineLayout,
    vertex: (&[u32], &std::ffi::CStr),
    fragment: (&[u32], &std::ffi::CStr),
    attributes: &[VertexAttribute],
) {
    vk.graphics_pipeline(
        layout,
        &GraphicsDesc {
            vertex,
            fragment,
            attributes,
            color_format: vk::Format::R8G8B8A8_UNORM,
        },
    )
    .unwrap();
    let messages = vk.finish();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}

/// A pipeline layout description made only from the reader's `ash` helpers of `pipeline`:
/// [`slangpack_reader::Pipeline::vk_set_layout_bindings`] for each set slot and
/// [`slangpack_reader::Pipeline::vk_push_constant_ranges`].
fn desc_from_helpers(pipeline: &slangpack_reader::Pipeline<'_>) -> PipelineLayoutDesc {
    let sets = (0..pipeline.set_slot_count())
        .map(|set| {
            let bindings: Vec<BindingDesc> = pipeline
                .vk_set_layout_bindings(set, UNBOUNDED_CAPACITY)
                .map(|(b, flags)| BindingDesc {
                    binding: b.binding,
                    ty: b.descriptor_type,
                    count: b.descriptor_count,
                    stages: b.stage_flags,
                    flags,
                    mutable_types: pipeline
                        .set(set)
                        .find(|item| item.record.binding == b.binding)
                        .map_or(0, |item| item.record.mutable_types),
                })
                .collect();
            (!bindings.is_empty()).then_some(bindings)
        })
        .collect();
    PipelineLayoutDesc {
        sets,
        push_constants: pipeline.vk_push_constant_ranges().collect(),
    }
}

/// One stage per file (`split/scene.vert.slang`, `split/scene.frag.slang`: an entry each):
/// `Package::pipeline` merges the two entries' layouts — the camera both declare at set 0,
/// binding 0 once with both stages, the identical push-constant block as one range of both
/// stages, the fragment file's material set as its own — and the pipeline built from the
/// `ash` helpers draws no validation message on lavapipe. A fragment file with a storage
/// buffer at the camera's binding is refused, naming both.
#[test]
fn one_stage_per_file_entries_make_one_pipeline() {
    let split = layout::test_shaders_dir().join("split");
    let bytes = layout::bake(&[split]);
    let package = Package::from_bytes(&bytes).unwrap();
    let stages = [("scene.vert", "main"), ("scene.frag", "main")];
    let pipeline = package.pipeline(&stages).unwrap();
    let (vertex, fragment) = (
        vk::ShaderStageFlags::VERTEX.as_raw(),
        vk::ShaderStageFlags::FRAGMENT.as_raw(),
    );
    let bindings: Vec<(u32, u32, &str, u32)> = pipeline
        .bindings()
        .map(|b| {
            let path = b.bind_view().string(b.record.path);
            (b.record.set, b.record.binding, path, b.stage_flags)
        })
        .collect();
    assert_eq!(
        bindings,
        [
            (0, 0, "camera", vertex | fragment),
            (1, 0, "albedo", fragment),
            (1, 1, "linearSampler", fragment),
        ]
    );
    let push: Vec<(u32, u32, u32)> = pipeline
        .push_constants()
        .map(|p| (p.record.offset, p.record.size, p.stage_flags))
        .collect();
    assert_eq!(push, [(0, 80, vertex | fragment)]);
    assert_eq!(pipeline.stage_flags(), vertex | fragment);
    assert_eq!(pipeline.set_slot_count(), 2);
    assert_eq!(pipeline.entries().count(), 2);
    let camera = pipeline.binding("camera").unwrap();
    assert_eq!(camera.stage_flags, vertex | fragment);
    assert_eq!(
        pipeline.binding("albedo").map(|b| b.stage_flags),
        Some(fragment)
    );

    let desc = desc_from_helpers(&pipeline);
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let pipeline_layout = vk.pipeline_layout(&desc).unwrap();
    let vert_entry = package.load("scene.vert").unwrap();
    let frag_entry = package.load("scene.frag").unwrap();
    let (vert, frag) = (
        vert_entry.entry_point("main").unwrap(),
        frag_entry.entry_point("main").unwrap(),
    );
    let attributes = layout::describe(&vert_entry).unwrap().vertex_attributes(0);
    let (vert_spirv, frag_spirv) = (vert.spirv().to_vec(), frag.spirv().to_vec());
    let (vert_name, frag_name) = (
        std::ffi::CString::new(vert.spirv_entry_name()).unwrap(),
        std::ffi::CString::new(frag.spirv_entry_name()).unwrap(),
    );
    graphics_pair_draws_no_message(
        vk,
        &pipeline_layout,
        (&vert_spirv, &vert_name),
        (&frag_spirv, &frag_name),
        &attributes,
    );

    let conflict = package
        .pipeline(&[("scene.vert", "main"), ("conflict.frag", "main")])
        .unwrap_err();
    assert!(
        matches!(&conflict, PipelineError::BindingConflict { set: 0, binding: 0, first, second }
            if first == "camera" && second == "camera"),
        "{conflict:?}"
    );
    let unknown = package
        .pipeline(&[("scene.vert", "main"), ("scene.fragment", "main")])
        .unwrap_err();
    assert!(
        matches!(&unknown, PipelineError::UnknownEntry { key } if key == "scene.fragment"),
        "{unknown:?}"
    );
    // The error owns what it names: `?` takes it into `Box<dyn Error>`.
    fn boxed(package: &Package) -> Result<u32, Box<dyn std::error::Error>> {
        Ok(package
            .pipeline(&[("scene.vert", "main"), ("scene.frag", "mian")])?
            .stage_flags())
    }
    let error = boxed(&package).unwrap_err().to_string();
    assert!(
        error.contains("`mian`") && error.contains("main"),
        "{error}"
    );
}

/// A colour attachment format of an output's numeric type with at least its components.
fn color_format(output: &FragmentOutput) -> vk::Format {
    use slangpack_format::ScalarType as S;
    match (output.scalar(), output.component_count) {
        (S::Float32, 1) => vk::Format::R32_SFLOAT,
        (S::Float32, 2) => vk::Format::R32G32_SFLOAT,
        (S::Float32, _) => vk::Format::R32G32B32A32_SFLOAT,
        (S::Float16, 1) => vk::Format::R16_SFLOAT,
        (S::Float16, 2) => vk::Format::R16G16_SFLOAT,
        (S::Float16, _) => vk::Format::R16G16B16A16_SFLOAT,
        (S::Int32, 1) => vk::Format::R32_SINT,
        (S::Int32, 2) => vk::Format::R32G32_SINT,
        (S::Int32, _) => vk::Format::R32G32B32A32_SINT,
        (S::UInt32, 1) => vk::Format::R32_UINT,
        (S::UInt32, 2) => vk::Format::R32G32_UINT,
        (S::UInt32, _) => vk::Format::R32G32B32A32_UINT,
        other => panic!("no colour format for {other:?}"),
    }
}

/// Every compute and vertex/fragment pipeline of every test shader, the one-stage-per-file
/// pair and every example shader, built on lavapipe from the reader's helpers alone: the
/// layout from `Package::pipeline` and the `ash` helpers, vertex input from
/// `Pipeline::vk_vertex_attributes`, one colour attachment per fragment output of the output's
/// numeric type (`EntryPoint::fragment_outputs`), stages from the stored SPIR-V and its
/// entry name. A fragment-only entry takes `X.vert`'s vertex stage for `X.frag`, else the
/// full-screen triangle's. No validation message.
#[test]
fn every_shaders_pipelines_from_the_helpers_draw_no_validation_message() {
    let shaders = layout::test_shaders_dir();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&shaders)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slang"))
        .collect();
    inputs.sort();
    inputs.push(shaders.join("split"));
    inputs.push(layout::example_shaders_dir());
    let bytes = layout::bake(&inputs);
    let package = Package::from_bytes(&bytes).unwrap();
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let indexing = vk.capabilities.descriptor_indexing();
    let fullscreen = ("tests/shaders/fullscreen_vertex", "fullscreenMain");
    let (mut built, mut skipped) = (Vec::new(), Vec::new());
    for entry in package.entries() {
        let entry = entry.unwrap();
        let key = entry.key();
        let vertex_of = |entry: &slangpack_reader::Entry<'_>| {
            entry
                .entry_points()
                .find(|ep| ep.vk_stage() == vk::ShaderStageFlags::VERTEX)
                .map(|ep| ep.name().to_string())
        };
        let split_vertex = key.strip_suffix(".frag").and_then(|stem| {
            let key = format!("{stem}.vert");
            let vertex = vertex_of(&package.load(&key).ok()?)?;
            Some((key, vertex))
        });
        let vertex: (String, String) = vertex_of(&entry)
            .map(|name| (key.to_string(), name))
            .or(split_vertex)
            .unwrap_or((fullscreen.0.to_string(), fullscreen.1.to_string()));
        for ep in entry.entry_points() {
            let what = format!("{key} `{}`", ep.name());
            let stage = ep.vk_stage();
            let stages: Vec<(&str, &str)> = if stage == vk::ShaderStageFlags::COMPUTE {
                vec![(key, ep.name())]
            } else if stage == vk::ShaderStageFlags::FRAGMENT {
                vec![(vertex.0.as_str(), vertex.1.as_str()), (key, ep.name())]
            } else {
                continue; // built with its fragment stage, or a stage lavapipe is not asked for
            };
            let pipeline = match package.pipeline(&stages) {
                Ok(p) => p,
                Err(e) => {
                    skipped.push(format!("{what}: {e}"));
                    continue;
                }
            };
            let modes = ep.execution_modes().expect("a 1.3 package states modes");
            let outputs = ep.fragment_outputs();
            let why = if pipeline
                .bindings()
                .any(|b| b.record.array_kind() == slangpack_format::bind::ArrayKind::Unbounded)
                && !indexing
            {
                Some("unbounded arrays; the device lacks descriptor indexing")
            } else if pipeline
                .bindings()
                .any(|b| b.record.kind() == slangpack_format::bind::DescriptorKind::Mutable)
            {
                Some("a mutable descriptor (vulkan_proofs.rs builds those)")
            } else if modes
                .mode_flags()
                .contains(ModeFlags::INPUT_ATTACHMENT_CAPABILITY)
            {
                Some("input attachments need a subpass (vulkan_proofs.rs builds those)")
            } else if outputs.iter().any(|o| o.index != 0) {
                Some("dual-source blending")
            } else if modes.mode_flags().contains(ModeFlags::SAMPLE_RATE_SHADING) {
                // What the package says an engine must enable; this device is not asked to.
                Some("per-sample shading needs the sampleRateShading device feature")
            } else {
                None
            };
            if let Some(why) = why {
                skipped.push(format!("{what}: {why}"));
                continue;
            }
            let layout = vk
                .pipeline_layout(&desc_from_helpers(&pipeline))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let code = |ep: &slangpack_reader::EntryPoint<'_>| {
                (
                    ep.spirv().to_vec(),
                    std::ffi::CString::new(ep.spirv_entry_name()).unwrap(),
                )
            };
            if stage == vk::ShaderStageFlags::COMPUTE {
                let (spirv, name) = code(&ep);
                vk.compute_pipeline(&layout, &spirv, &name)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
            } else {
                let vertex_ep = pipeline
                    .entry_points()
                    .find(|e| e.vk_stage() == vk::ShaderStageFlags::VERTEX)
                    .unwrap();
                let described: Vec<vk::VertexInputAttributeDescription> =
                    pipeline.vk_vertex_attributes(0).collect();
                let stride = pipeline.vk_vertex_binding(0).map_or(0, |b| b.stride);
                let attributes: Vec<VertexAttribute> = described
                    .iter()
                    .enumerate()
                    .map(|(i, a)| VertexAttribute {
                        location: a.location,
                        format: a.format,
                        size: described.get(i + 1).map_or(stride, |n| n.offset) - a.offset,
                    })
                    .collect();
                let mut colors = vec![vk::Format::UNDEFINED; outputs.len()];
                for o in outputs {
                    let at = o.location as usize;
                    if colors.len() <= at {
                        colors.resize(at + 1, vk::Format::UNDEFINED);
                    }
                    colors[at] = color_format(o);
                }
                let ((vs, vs_name), (fs, fs_name)) = (code(&vertex_ep), code(&ep));
                vk.graphics_pipeline_to(
                    &layout,
                    &GraphicsDesc {
                        vertex: (&vs, &vs_name),
                        fragment: (&fs, &fs_name),
                        attributes: &attributes,
                        color_format: vk::Format::UNDEFINED,
                    },
                    &colors,
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            let messages = vk.messages();
            assert!(
                messages.is_empty(),
                "{what}: validation messages:\n{}",
                messages.join("\n")
            );
            built.push(what);
        }
    }
    let messages = vk.finish();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
    eprintln!(
        "built {} pipelines; not built:\n{}",
        built.len(),
        skipped.join("\n")
    );
    assert!(
        built.iter().any(|p| p.contains("split/scene.frag")),
        "the one-stage-per-file pair is built: {built:?}"
    );
    assert!(
        built.iter().any(|p| p.contains("gbufferMain")),
        "three attachments of three numeric types: {built:?}"
    );
    for shader in ["pointer_push_constant", "pointer_graph"] {
        assert!(
            built.iter().any(|p| p.contains(shader)),
            "buffer device addresses are built ({shader}): {built:?}"
        );
    }
    assert!(
        built.len() >= 25,
        "{} pipelines built: {built:?}",
        built.len()
    );
}

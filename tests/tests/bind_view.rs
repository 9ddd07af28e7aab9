//! The bind view of real Slang programs: concrete facts about the example shaders, edge cases
//! (implicit global uniform buffer, zero-length and unbounded arrays, two push-constant blocks,
//! matrix layouts, arrays of structs), and agreement with an independent oracle —
//! `spirv-cross --reflect` run on the stored SPIR-V.

use serde_json::Value;
use slangpack_format::bind::*;
use slangpack_format::ABSENT;
use slangpack_reader::{BindView, Package};
use slangpack_writer::bake::{self, BakeConfig};
use std::path::{Path, PathBuf};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders")
}

fn bake_dir(dir: &Path) -> Package {
    let mut config = BakeConfig::new(vec![dir.to_path_buf()]);
    config.jobs = 2;
    let outcome = bake::bake(&config).expect("bakes");
    Package::from_bytes(&outcome.bytes).expect("opens")
}

fn bake_source(source: &str) -> Result<Package, slangpack_writer::BakeError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slang");
    std::fs::write(&path, source).unwrap();
    let outcome = bake::bake(&BakeConfig::new(vec![path]))?;
    Ok(Package::from_bytes(&outcome.bytes).unwrap())
}

fn binding<'a>(bind: &BindView<'a>, path: &str) -> &'a DescriptorBinding {
    bind.binding(path)
        .unwrap_or_else(|| panic!("binding {path}"))
}

#[test]
fn pbr_nested_parameter_blocks_vertex_inputs_and_push_constants() {
    let package = bake_dir(&examples_dir());
    let entry = package.load("pbr").unwrap();
    let bind = entry.bind();

    assert_eq!(bind.set_slot_count(), 2);
    let scene = binding(&bind, "gScene");
    assert_eq!((scene.set, scene.binding), (0, 0));
    assert_eq!(scene.kind(), DescriptorKind::UniformBuffer);
    assert_ne!(scene.flags & BINDING_IMPLICIT_BLOCK_BUFFER, 0);
    let material = binding(&bind, "gScene.material");
    assert_eq!(
        (material.set, material.binding),
        (1, 0),
        "nested block gets the next set"
    );
    for (i, name) in ["albedo", "normalMap", "metallicRoughness"]
        .iter()
        .enumerate()
    {
        let b = binding(&bind, &format!("gScene.material.textures.{name}"));
        assert_eq!((b.set, b.binding), (1, 1 + i as u32), "{name}");
        assert_eq!(b.kind(), DescriptorKind::SampledImage);
        assert_eq!(
            b.stage_flags, 0x10,
            "{name}: only the fragment stage samples it"
        );
        assert_eq!(bind.string(b.name), *name);
    }
    let sampler = binding(&bind, "gScene.material.textures.sampler");
    assert_eq!(
        (sampler.set, sampler.binding, sampler.kind()),
        (1, 4, DescriptorKind::Sampler)
    );
    assert_eq!(bind.set(1).map(<[_]>::len), Some(5));
    assert!(
        bind.binding("gScene.material.textures").is_none(),
        "structs are not bindings"
    );

    // Buffer members by full path, offsets from Slang's std140 layout.
    let (layout, sun) = bind
        .buffer_member("gScene.view.light.sunDirection")
        .unwrap();
    assert_eq!(bind.string(layout.name), "gScene");
    assert_eq!((sun.offset, sun.size, sun.columns), (144, 12, 3));
    let (_, roughness) = bind
        .buffer_member("gScene.material.params.roughness")
        .unwrap();
    assert_eq!(roughness.offset, 16);
    let (_, view_proj) = bind.buffer_member("gScene.view.viewProjection").unwrap();
    assert_eq!(
        (view_proj.rows, view_proj.columns, view_proj.size),
        (4, 4, 64)
    );
    assert_ne!(view_proj.matrix_layout, 0);
    assert_eq!(view_proj.matrix_stride, 16);
    let members = bind.members(layout);
    let light = members
        .iter()
        .position(|m| bind.string(m.path) == "view.light")
        .unwrap() as u32
        + layout.first_member;
    let children: Vec<&str> = members
        .iter()
        .filter(|m| m.parent == light)
        .map(|m| bind.string(m.name))
        .collect();
    assert_eq!(
        children,
        ["sunDirection", "sunIntensity", "sunColor", "lightCount"]
    );

    let push = bind.push_constants();
    assert_eq!(push.len(), 1);
    // Only the vertex stage's SPIR-V declares gDraw: the range has its stage only.
    assert_eq!(
        (push[0].offset, push[0].size, push[0].stage_flags),
        (0, 68, 0x1)
    );
    assert_eq!(push[0].entry_point_mask, 0b01);
    let (_, base) = bind.buffer_member("gDraw.instanceBase").unwrap();
    assert_eq!(base.offset, 64);

    // Vertex inputs: system values excluded, semantics split, formats from type.
    let inputs = bind.vertex_inputs(0);
    let summary: Vec<(u32, &str, u32, u32)> = inputs
        .iter()
        .map(|v| {
            (
                v.location,
                bind.string(v.semantic_name),
                v.semantic_index,
                v.format,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (0, "POSITION", 0, 106),
            (1, "NORMAL", 0, 106),
            (2, "TANGENT", 0, 109),
            (3, "TEXCOORD", 0, 103),
            (4, "TEXCOORD", 1, 103)
        ]
    );
    assert!(
        bind.vertex_inputs(1).is_empty(),
        "the fragment stage has no vertex inputs"
    );
    // Slang drops the inputs the code never reads (tangent and uv1 are multiplied by zero).
    let used: Vec<bool> = inputs
        .iter()
        .map(|v| v.flags & VERTEX_INPUT_USED != 0)
        .collect();
    assert_eq!(used, [true, true, false, true, false]);
}

#[test]
fn compute_bindless_and_module_examples() {
    let package = bake_dir(&examples_dir());
    let blur = package.load("blur").unwrap().bind();
    let dest = binding(&blur, "gDestination");
    assert_eq!(dest.kind(), DescriptorKind::StorageImage);
    assert_eq!(image_format_name(dest.image_format), Some("rgba16f"));
    assert_ne!(dest.flags & BINDING_WRITABLE, 0);
    let histogram = binding(&blur, "gHistogram");
    assert_eq!(histogram.kind(), DescriptorKind::StorageBuffer);
    let element = blur.buffer_layout(histogram.buffer_layout).unwrap();
    assert_eq!(
        (element.kind, element.size, element.stride),
        (BUFFER_STRUCTURED_ELEMENT, 8, 8)
    );
    // Two compute entry points: clearHistogram touches only the histogram.
    assert_eq!(histogram.entry_point_mask, 0b11);
    assert_eq!(binding(&blur, "gSource").entry_point_mask, 0b01);

    let bindless = package.load("bindless").unwrap().bind();
    for name in ["gTextures", "gSamplers", "gBuffers"] {
        let b = binding(&bindless, name);
        assert_eq!(
            (b.count_kind, b.descriptor_count()),
            (COUNT_UNBOUNDED, None),
            "{name}"
        );
    }
    assert_eq!(
        bindless.sets()[0].flags & SET_HAS_UNBOUNDED,
        SET_HAS_UNBOUNDED
    );

    let layered = package.load("layered/layered").unwrap().bind();
    let (_, layers) = layered.buffer_member("gLayered.layers").unwrap();
    assert_eq!((layers.array_count, layers.array_stride), (3, 32));
    let layout = layered.buffer("gLayered").unwrap();
    let blend = layered
        .members(layout)
        .iter()
        .find(|m| layered.string(m.path) == "layers[].blend")
        .expect("array-of-struct element members are described");
    assert_eq!(
        (blend.offset, blend.flags & MEMBER_ELEMENT_RELATIVE),
        (16, MEMBER_ELEMENT_RELATIVE)
    );
}

#[test]
fn implicit_global_uniform_buffer_zero_length_arrays_and_specialization_constants() {
    let package = bake_source(
        r#"
        uniform float4 gTint;
        uniform float gScale;
        Texture2D gNone[0];
        RWStructuredBuffer<float4> gOut;
        [vk::constant_id(7)] const int kTaps = 5;
        [shader("compute")][numthreads(4,1,1)]
        void main(uint3 t : SV_DispatchThreadID) { gOut[t.x] = gTint * gScale * float(kTaps); }
        "#,
    )
    .unwrap();
    let bind = package.load("t").unwrap().bind();
    let global = bind.summary().unwrap().global_uniform_binding;
    let global = &bind.bindings()[global as usize];
    assert_eq!(global.kind(), DescriptorKind::UniformBuffer);
    let layout = bind.buffer_layout(global.buffer_layout).unwrap();
    assert_eq!(layout.kind, BUFFER_GLOBAL);
    let members: Vec<(&str, u32)> = bind
        .members(layout)
        .iter()
        .map(|m| (bind.string(m.path), m.offset))
        .collect();
    assert_eq!(members, [("gTint", 0), ("gScale", 16)]);
    assert_eq!(
        bind.buffer_member("gScale").map(|(_, m)| m.offset),
        Some(16)
    );

    let none = binding(&bind, "gNone");
    assert_eq!(
        (none.count_kind, none.descriptor_count()),
        (COUNT_ZERO, Some(0))
    );

    let spec = bind.specialization_constants();
    assert_eq!(spec.len(), 1);
    assert_eq!((spec[0].id, bind.string(spec[0].name)), (7, "kTaps"));
    assert_eq!(spec[0].flags & 1, 1, "has a default");
    assert_eq!(
        u64::from(spec[0].default_lo) | (u64::from(spec[0].default_hi) << 32),
        5
    );
}

#[test]
fn two_push_constant_blocks_are_a_bake_error_naming_both() {
    let error = bake_source(
        r#"
        struct A { float a; }; struct B { float b; };
        [[vk::push_constant]] ConstantBuffer<A> gFirst;
        [[vk::push_constant]] ConstantBuffer<B> gSecond;
        RWStructuredBuffer<float> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main() { gOut[0] = gFirst.a + gSecond.b; }
        "#,
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("gFirst") && message.contains("gSecond"),
        "{message}"
    );
}

#[test]
fn matrix_layouts_are_reported_per_member() {
    let package = bake_source(
        r#"
        struct M { row_major float3x4 r; column_major float3x4 c; float2x2 d; };
        ConstantBuffer<M> gM;
        RWStructuredBuffer<float> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main() { gOut[0] = gM.r[0][0] + gM.c[0][0] + gM.d[0][0]; }
        "#,
    )
    .unwrap();
    let bind = package.load("t").unwrap().bind();
    let (_, r) = bind.buffer_member("gM.r").unwrap();
    let (_, c) = bind.buffer_member("gM.c").unwrap();
    assert_eq!((r.rows, r.columns), (3, 4));
    assert_eq!(r.matrix_layout, 1, "row_major");
    assert_eq!(c.matrix_layout, 2, "column_major");
    assert_eq!(r.matrix_stride, 16);
    assert_eq!(c.matrix_stride, 16);
    assert_eq!(r.size, 48, "three rows of float4");
    assert_eq!(c.offset, 48);
}

/// `spirv-cross --reflect` on a stored SPIR-V module.
fn spirv_cross(words: &[u32]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.spv");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new("spirv-cross")
        .arg(&path)
        .arg("--reflect")
        .output()
        .expect("spirv-cross is installed by `cargo xtask test` (Debian package spirv-cross)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Compares one buffer's members with spirv-cross's view of the same block type.
fn check_members(
    bind: &BindView<'_>,
    layout: &BufferLayout,
    oracle: &Value,
    ty: &str,
    prefix: &str,
    base: u64,
) {
    let Some(members) = oracle["types"][ty]["members"].as_array() else {
        return;
    };
    let siblings: Vec<&BufferMember> = bind
        .members(layout)
        .iter()
        .filter(|x| {
            let p = bind.string(x.path);
            match p.rsplit_once('.') {
                Some((parent, _)) => parent == prefix,
                None => prefix.is_empty(),
            }
        })
        .collect();
    for (i, m) in members.iter().enumerate() {
        let name = m["name"].as_str().unwrap_or_default();
        let Some(offset) = m["offset"].as_u64() else {
            continue;
        };
        // A `ConstantBuffer<S>` nested in a ParameterBlock is emitted as a block whose only
        // (unnamed) member is the S: its members are the buffer's.
        let sub_type = m["type"]
            .as_str()
            .filter(|t| oracle["types"][*t].is_object());
        if name.starts_with("__member") && members.len() == 1 && offset == 0 {
            if let Some(sub) = sub_type {
                check_members(bind, layout, oracle, sub, prefix, base);
                continue;
            }
        }
        // Slang leaves some member names out of the SPIR-V (spirv-cross then says
        // `__memberN`): compare those by position instead.
        let ours = if name.starts_with("__member") {
            *siblings
                .get(i)
                .unwrap_or_else(|| panic!("member {i} of {prefix} missing"))
        } else {
            let path = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}.{name}")
            };
            bind.members(layout)
                .iter()
                .find(|x| bind.string(x.path) == path)
                .unwrap_or_else(|| panic!("member {path} of {} missing", bind.string(layout.name)))
        };
        let path = bind.string(ours.path);
        assert_eq!(u64::from(ours.offset), base + offset, "offset of {path}");
        if let Some(sub) = m["type"]
            .as_str()
            .filter(|t| oracle["types"][*t].is_object())
        {
            // Slang wraps std140 arrays in a struct with one `data` member; ours is the array.
            let wrapper = oracle["types"][sub]["members"][0]["name"] == "data";
            // A buffer device address: its pointee is a layout of its own (pointee_layouts.rs).
            let pointer = m["physical_pointer"] == true;
            if m["array"].is_null() && !wrapper && !pointer {
                check_members(bind, layout, oracle, sub, path, u64::from(ours.offset));
            }
        }
    }
}

/// Whether spirv-cross's type `ty` has exactly the top-level member names of `layout`.
fn same_top_members(
    bind: &BindView<'_>,
    layout: Option<&BufferLayout>,
    oracle: &Value,
    ty: &str,
) -> bool {
    let Some(layout) = layout else { return false };
    let ours: Vec<&str> = bind
        .members(layout)
        .iter()
        .filter(|m| m.parent == ABSENT)
        .map(|m| bind.string(m.name))
        .collect();
    let theirs: Vec<&str> = oracle["types"][ty]["members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["name"].as_str())
        .collect();
    !ours.is_empty() && ours == theirs
}

#[test]
fn every_descriptor_and_block_offset_agrees_with_spirv_cross() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut packages = vec![bake_dir(&examples_dir())];
    // Every test shader that bakes on its own (exotic.slang needs a type conformance).
    for dir in [root.join("shaders"), root.join("../writer/tests/shaders")] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "slang"))
            .filter(|p| !p.ends_with("exotic.slang"))
            .collect();
        files.sort();
        for file in files {
            let outcome = bake::bake(&BakeConfig::new(vec![file.clone()]))
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            packages.push(Package::from_bytes(&outcome.bytes).unwrap());
        }
    }
    let mut checked = 0;
    for package in &packages {
        checked += check_against_spirv_cross(package);
    }
    assert!(checked >= 40, "only {checked} resources compared");
}

fn check_against_spirv_cross(package: &Package) -> usize {
    let mut checked = 0;
    for entry in package.entries() {
        let entry = entry.expect("the entry loads");
        let bind = entry.bind();
        for (index, ep) in entry.entry_points().enumerate() {
            let oracle = spirv_cross(ep.spirv());
            for class in [
                "ubos",
                "ssbos",
                "separate_images",
                "separate_samplers",
                "images",
                "textures",
                "subpass_inputs",
                "acceleration_structures",
            ] {
                for res in oracle[class].as_array().into_iter().flatten() {
                    let (set, binding) = (
                        res["set"].as_u64().unwrap() as u32,
                        res["binding"].as_u64().unwrap() as u32,
                    );
                    // Bindings of different pipelines may share a place: take this entry
                    // point's.
                    let ours = bind
                        .bindings()
                        .iter()
                        .find(|b| {
                            b.set == set
                                && b.binding == binding
                                && b.entry_point_mask & (1 << index) != 0
                        })
                        .unwrap_or_else(|| {
                            panic!(
                                "{}: {class} {} at {set}.{binding} missing",
                                entry.key(),
                                res["name"]
                            )
                        });
                    // A texture and a sampler sharing one binding are one combined image
                    // sampler naming both variables.
                    let shared = ours.sampler_path != ABSENT;
                    let expected = match class {
                        "ubos" => DescriptorKind::UniformBuffer,
                        "ssbos" => DescriptorKind::StorageBuffer,
                        "separate_images" | "separate_samplers" if shared => {
                            let name = res["name"].as_str().unwrap();
                            let ours_name = if class == "separate_images" {
                                bind.string(ours.path)
                            } else {
                                bind.string(ours.sampler_path)
                            };
                            assert_eq!(ours_name, name, "{}: {class}", entry.key());
                            DescriptorKind::CombinedImageSampler
                        }
                        "separate_images" => DescriptorKind::SampledImage,
                        "separate_samplers" => DescriptorKind::Sampler,
                        "images" => DescriptorKind::StorageImage,
                        "subpass_inputs" => {
                            assert_eq!(
                                ours.input_attachment(),
                                res["input_attachment_index"].as_u64().map(|i| i as u32),
                                "{}: {}",
                                entry.key(),
                                bind.string(ours.path)
                            );
                            DescriptorKind::InputAttachment
                        }
                        "acceleration_structures" => DescriptorKind::AccelerationStructure,
                        _ => DescriptorKind::CombinedImageSampler,
                    };
                    // A mutable descriptor holds each of the variables aliased at its binding.
                    let held = ours.kind() == DescriptorKind::Mutable
                        && ours.mutable_kinds().any(|k| k == expected);
                    assert!(
                        held || ours.kind() == expected,
                        "{}: {}: {:?} vs {expected:?}",
                        entry.key(),
                        bind.string(ours.path),
                        ours.kind()
                    );
                    if let (Some(layout), "ubos") = (bind.buffer_layout(ours.buffer_layout), class)
                    {
                        check_members(&bind, layout, &oracle, res["type"].as_str().unwrap(), "", 0);
                    }
                    checked += 1;
                }
            }
            for pc in oracle["push_constants"].as_array().into_iter().flatten() {
                let ty = pc["type"].as_str().unwrap();
                // The block this entry point's SPIR-V declares.
                let range = bind
                    .push_constants()
                    .iter()
                    .find(|r| r.entry_point_mask & (1 << index) != 0)
                    .unwrap_or_else(|| panic!("{}: push constants {ty}", entry.key()));
                let layout = bind.buffer_layout(range.buffer_layout).unwrap();
                check_members(&bind, layout, &oracle, ty, "", 0);
                checked += 1;
            }
            // spirv-cross does not list shader-record variables, but it describes their
            // block types: compare each shader-record block with the type of its members.
            for record in bind.shader_record_blocks() {
                let layout = bind.buffer_layout(record.buffer_layout);
                let types = oracle["types"].as_object().into_iter().flatten();
                let matching: Vec<&String> = types
                    .filter(|(ty, _)| same_top_members(&bind, layout, &oracle, ty))
                    .map(|(ty, _)| ty)
                    .collect();
                if let (Some(layout), [ty]) = (layout, matching.as_slice()) {
                    check_members(&bind, layout, &oracle, ty, "", 0);
                    checked += 1;
                }
            }
        }
    }
    checked
}

#[test]
fn vertex_inputs_agree_with_spirv_cross_including_matrices() {
    let package = bake_source(
        r#"
        struct Instance { float4x4 world : WORLD; float3 color : COLOR1; };
        struct VIn { float3 pos : POSITION; uint id : SV_VertexID; Instance inst; half2 uv : TEXCOORD3; int4 bones : BLENDINDICES; };
        struct VOut { float4 pos : SV_Position; float3 color : COLOR; };
        [shader("vertex")]
        VOut main(VIn v) {
            VOut o;
            o.pos = mul(v.inst.world, float4(v.pos, 1)) + float4(float2(v.uv), float(v.bones.x + int(v.id)), 0);
            o.color = v.inst.color;
            return o;
        }
        "#,
    )
    .unwrap();
    let entry = package.load("t").unwrap();
    let bind = entry.bind();
    let ours: Vec<(u32, u32, &str, u32, u32)> = bind
        .vertex_inputs(0)
        .iter()
        .map(|v| {
            (
                v.location,
                v.location_count,
                bind.string(v.semantic_name),
                v.semantic_index,
                v.format,
            )
        })
        .collect();
    assert_eq!(
        ours,
        [
            (0, 1, "POSITION", 0, 106),
            (1, 4, "WORLD", 0, 109),
            (5, 1, "COLOR", 1, 106),
            (6, 1, "TEXCOORD", 3, 83),
            (7, 1, "BLENDINDICES", 0, 108)
        ],
        "SV_VertexID is excluded; the matrix spans four locations"
    );
    let oracle = spirv_cross(entry.entry_points().next().unwrap().spirv());
    let mut theirs: Vec<u64> = oracle["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["location"].as_u64())
        .collect();
    theirs.sort_unstable();
    let starts: Vec<u64> = ours.iter().map(|v| u64::from(v.0)).collect();
    assert_eq!(theirs, starts, "locations the SPIR-V declares");
}

#[test]
fn explicit_bindings_leave_holes_in_the_set_array() {
    let package = bake_source(
        r#"
        [[vk::binding(7, 2)]] SamplerState gSampler;
        [[vk::binding(0, 2)]] Texture2D gTexture;
        [[vk::binding(3, 0)]] RWStructuredBuffer<float4> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main() { gOut[0] = gTexture.SampleLevel(gSampler, float2(0, 0), 0); }
        "#,
    )
    .unwrap();
    let bind = package.load("t").unwrap().bind();
    assert_eq!(bind.set_slot_count(), 3, "highest set + 1");
    assert!(bind.set(1).is_none(), "set 1 is a hole");
    let sampler = binding(&bind, "gSampler");
    assert_eq!((sampler.set, sampler.binding), (2, 7));
    let texture = binding(&bind, "gTexture");
    assert_eq!((texture.set, texture.binding), (2, 0));
    assert_eq!(
        bind.set(2)
            .map(|s| s.iter().map(|b| b.binding).collect::<Vec<_>>()),
        Some(vec![0, 7])
    );
    let out = binding(&bind, "gOut");
    assert_eq!((out.set, out.binding), (0, 3));
}

#[test]
fn entry_point_uniform_parameters_become_per_stage_push_constants() {
    let package = bake_source(
        r#"
        struct V { float4 pos : SV_Position; };
        [shader("vertex")]
        V vs(float3 p : POSITION, uniform float4x4 mvp) { V o; o.pos = mul(mvp, float4(p, 1)); return o; }
        [shader("fragment")]
        float4 fs(V v, uniform float4 tint, uniform float gain) : SV_Target { return tint * gain; }
        "#,
    )
    .unwrap();
    let bind = package.load("t").unwrap().bind();
    let ranges: Vec<(&str, u32, u32)> = bind
        .push_constants()
        .iter()
        .map(|p| (bind.string(p.name), p.size, p.stage_flags))
        .collect();
    // The ranges end at their blocks' last bytes: Slang rounds the fragment block's size up
    // to its 16-byte alignment (32), the block's members end at 20.
    assert_eq!(ranges, [("vs", 64, 0x1), ("fs", 20, 0x10)]);
    assert_eq!(
        bind.buffer_member("fs.gain").map(|(_, m)| m.offset),
        Some(16)
    );
}

fn bake_test_shader(
    name: &str,
    capabilities: &[&str],
) -> Result<Package, slangpack_writer::BakeError> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("shaders/{name}.slang"));
    let mut config = BakeConfig::new(vec![path]);
    config.options.capabilities = capabilities.iter().map(|c| c.to_string()).collect();
    let outcome = bake::bake(&config)?;
    Ok(Package::from_bytes(&outcome.bytes).unwrap())
}

fn member_of<'a>(bind: &BindView<'a>, path: &str) -> &'a BufferMember {
    bind.buffer_member(path)
        .unwrap_or_else(|| panic!("member {path}"))
        .1
}

#[test]
fn explicit_offsets_come_from_the_spirv_and_arrays_of_constant_buffers_have_a_layout() {
    let package = bake_test_shader("explicit_offsets", &[]).unwrap();
    let bind = package.load("explicit_offsets").unwrap().bind();
    // `[[vk::offset]]` in a push-constant block: Slang's reflection says 0, 4, 16.
    let offsets: Vec<u32> = ["gPush.roughness", "gPush.samples", "gPush.tint"]
        .iter()
        .map(|p| member_of(&bind, p).offset)
        .collect();
    assert_eq!(offsets, [64, 68, 80]);
    let push = &bind.push_constants()[0];
    assert_eq!(
        (push.offset, push.size),
        (64, 32),
        "the range starts at the first moved member and covers the rest (so blocks of one \
         pipeline moved apart by vk::offset do not share bytes)"
    );
    // ... and in a uniform buffer, where std140 arrays and matrices keep their strides.
    assert_eq!(member_of(&bind, "gMaterial.scale").offset, 32);
    let transform = member_of(&bind, "gMaterial.transform");
    assert_eq!((transform.offset, transform.matrix_stride), (48, 16));
    let ids = member_of(&bind, "gMaterial.ids");
    assert_eq!((ids.offset, ids.array_count, ids.array_stride), (96, 2, 16));
    // `ConstantBuffer<Light> gLights[2]`: one binding of two descriptors, the element's layout.
    let lights = binding(&bind, "gLights");
    assert_eq!(
        (lights.kind(), lights.descriptor_count()),
        (DescriptorKind::UniformBuffer, Some(2))
    );
    let layout = bind
        .buffer_layout(lights.buffer_layout)
        .expect("element layout");
    assert_eq!((layout.kind, layout.size), (BUFFER_UNIFORM, 16));
    assert_eq!(member_of(&bind, "gLights.intensity").offset, 12);
}

#[test]
fn input_attachments_carry_their_index() {
    let package = bake_test_shader("input_attachments", &[]).unwrap();
    let bind = package.load("input_attachments").unwrap().bind();
    for (name, binding_number, index) in [("gAlbedo", 0, 0), ("gDepth", 1, 1), ("gNormal", 3, 2)] {
        let b = binding(&bind, name);
        assert_eq!(b.kind(), DescriptorKind::InputAttachment, "{name}");
        assert_eq!(
            (b.binding, b.input_attachment()),
            (binding_number, Some(index)),
            "{name}"
        );
    }
    let ms = bake_source(
        r#"
        [[vk::input_attachment_index(4)]] SubpassInputMS<float4> gSamples;
        [shader("fragment")]
        float4 main() : SV_Target { return gSamples.SubpassLoad(1); }
        "#,
    )
    .unwrap();
    let bind = ms.load("t").unwrap().bind();
    let samples = binding(&bind, "gSamples");
    assert_eq!(
        (samples.kind(), samples.input_attachment()),
        (DescriptorKind::InputAttachment, Some(4))
    );
    assert_eq!(binding(&bind, "gSamples").flags & BINDING_WRITABLE, 0);
}

#[test]
fn a_texture_and_a_sampler_at_one_binding_are_one_combined_image_sampler_naming_both() {
    let package = bake_test_shader("combined_sampler", &[]).unwrap();
    let bind = package.load("combined_sampler").unwrap().bind();
    let albedo = binding(&bind, "gAlbedo");
    assert_eq!(albedo.kind(), DescriptorKind::CombinedImageSampler);
    assert_eq!((albedo.set, albedo.binding), (1, 0));
    assert_eq!(bind.string(albedo.sampler_path), "gAlbedoSampler");
    assert!(
        std::ptr::eq(albedo, binding(&bind, "gAlbedoSampler")),
        "the sampler's path finds the same binding"
    );
    assert_eq!(bind.set(1).map(<[_]>::len), Some(3));
    assert_eq!(binding(&bind, "gNormal").sampler_path, ABSENT);
}

#[test]
fn shader_record_blocks_are_not_descriptors() {
    let package = bake_test_shader("shader_record", &[]).unwrap();
    let bind = package.load("shader_record").unwrap().bind();
    let places: Vec<(u32, u32, &str)> = bind
        .bindings()
        .iter()
        .map(|b| (b.set, b.binding, bind.string(b.path)))
        .collect();
    assert_eq!(places, [(0, 0, "gScene"), (0, 1, "gOutput")]);
    let records: Vec<(&str, u32, u32)> = bind
        .shader_record_blocks()
        .iter()
        .map(|r| (bind.string(r.name), r.stage_flags, r.entry_point_mask))
        .collect();
    assert_eq!(
        records,
        [("gRayGen", 0x100, 0b01), ("closestHit", 0x400, 0b10)],
        "a global block, and the closest-hit shader's uniform parameters"
    );
    let ray_gen = &bind.shader_record_blocks()[0];
    let layout = bind.buffer_layout(ray_gen.buffer_layout).unwrap();
    assert_eq!(layout.kind, BUFFER_SHADER_RECORD);
    assert_eq!(member_of(&bind, "gRayGen.jitter").offset, 32, "vk::offset");
    assert_eq!(
        member_of(&bind, "closestHit.hit.emission").offset,
        16,
        "std430"
    );
}

#[test]
fn interface_typed_blocks_with_one_conforming_type_are_described_and_with_several_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slang");
    std::fs::write(
        &path,
        r#"
        interface ISurface { float3 shade(float3 n); };
        struct Glossy : ISurface { float3 tint; float3 shade(float3 n) { return n * tint; } };
        struct Matte : ISurface { float gray; float3 shade(float3 n) { return n * gray; } };
        ParameterBlock<ISurface> gSurface;
        RWStructuredBuffer<float3> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main() { gOut[0] = gSurface.shade(float3(1, 0, 0)); }
        "#,
    )
    .unwrap();
    let bake_with = |conforming: &[&str]| {
        let mut config = BakeConfig::new(vec![path.clone()]);
        config.options.conformances = (conforming.iter())
            .map(|t| (t.to_string(), "ISurface".to_string()))
            .collect();
        bake::bake(&config)
    };
    // One conforming type that fits the payload: the block is the existential tuple, with
    // Glossy's members over the payload's words.
    let package = Package::from_bytes(&bake_with(&["Glossy"]).unwrap().bytes).unwrap();
    let bind = package.load("t").unwrap().bind();
    let block = binding(&bind, "gSurface");
    let members: Vec<(&str, u32, u32)> = bind
        .members(bind.buffer_layout(block.buffer_layout).unwrap())
        .iter()
        .map(|m| (bind.string(m.path), m.offset, m.flags))
        .collect();
    assert_eq!(
        members,
        [
            ("existential", 0, MEMBER_EXISTENTIAL),
            ("existential.typeId", 0, 0),
            ("existential.witnessId", 8, 0),
            ("value", 16, MEMBER_EXISTENTIAL_PAYLOAD),
            ("value.tint", 16, 0),
        ]
    );
    // Several: the dispatch switches on witness-table ids Slang's reflection does not report.
    let message = bake_with(&["Glossy", "Matte"]).unwrap_err().to_string();
    assert!(
        message.contains("`gSurface` is an interface-typed block (`ISurface`)"),
        "{message}"
    );
    assert!(message.contains("witness-table id"), "{message}");
}

#[test]
fn descriptor_heaps_are_baked_from_the_spirv_or_refused() {
    let package = bake_test_shader("descriptor_heap", &[]).unwrap();
    let bind = package.load("descriptor_heap").unwrap().bind();
    let heaps: Vec<(u32, u32, DescriptorKind, Option<u32>, &str)> = bind
        .bindings()
        .iter()
        .filter(|b| b.flags & BINDING_DESCRIPTOR_HEAP != 0)
        .map(|b| {
            (
                b.set,
                b.binding,
                b.kind(),
                b.descriptor_count(),
                bind.string(b.path),
            )
        })
        .collect();
    assert_eq!(
        heaps,
        [
            (
                0,
                0,
                DescriptorKind::Sampler,
                None,
                "__slang_resource_heap.sampler"
            ),
            (
                0,
                2,
                DescriptorKind::SampledImage,
                None,
                "__slang_resource_heap.sampled_image"
            ),
        ]
    );
    assert_ne!(bind.sets()[0].flags & SET_HAS_UNBOUNDED, 0);
    // Several resource kinds alias one heap binding: a mutable descriptor listing them.
    let mixed = bake_test_shader("descriptor_heap_mutable", &[]).unwrap();
    let bind = mixed.load("descriptor_heap_mutable").unwrap().bind();
    let heap = binding(&bind, "__slang_resource_heap.mutable");
    assert_eq!(
        (heap.set, heap.binding, heap.kind(), heap.descriptor_count()),
        (0, 2, DescriptorKind::Mutable, None)
    );
    assert_eq!(
        heap.mutable_kinds().collect::<Vec<_>>(),
        [DescriptorKind::SampledImage, DescriptorKind::StorageBuffer]
    );
    assert_eq!(
        binding(&bind, "__slang_resource_heap.sampler").mutable_types,
        0
    );
    // Slang's own descriptor-heap capability (`SPV_EXT_descriptor_heap`, untyped pointers)
    // reaches resources through the heap built-ins, not through descriptor sets: the module
    // is read past what the checks do not need, and the bind view states only what the code
    // binds through sets (the storage buffer) and its push constants.
    let heap_ext = bake_test_shader("descriptor_heap", &["spvDescriptorHeapEXT"]).unwrap();
    let bind = heap_ext.load("descriptor_heap").unwrap().bind();
    let bound: Vec<(u32, u32, DescriptorKind, &str)> = bind
        .bindings()
        .iter()
        .map(|b| (b.set, b.binding, b.kind(), bind.string(b.path)))
        .collect();
    assert_eq!(bound, [(1, 0, DescriptorKind::StorageBuffer, "gOut")]);
    assert_eq!(bind.push_constants().len(), 1);
    let unknown = bake_test_shader("descriptor_heap", &["noSuchCapability"])
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("unknown Slang capability `noSuchCapability`"),
        "{unknown}"
    );
}

/// A binding as (set, binding, kind, count, path, SPIR-V name).
type Place<'a> = (u32, u32, DescriptorKind, Option<u32>, &'a str, &'a str);

/// Each binding of `bind` as a [`Place`], in package order.
fn bindings_of<'a>(bind: &BindView<'a>) -> Vec<Place<'a>> {
    bind.bindings()
        .iter()
        .map(|b| {
            (
                b.set,
                b.binding,
                b.kind(),
                b.descriptor_count(),
                bind.string(b.path),
                bind.string(b.spirv_name),
            )
        })
        .collect()
}

#[test]
fn entry_point_resource_parameters_are_bindings_of_their_entry_point() {
    use DescriptorKind::{SampledImage as Image, Sampler, StorageBuffer as Storage};
    let package = bake_test_shader("entry_point_resources", &[]).unwrap();
    let entry = package.load("entry_point_resources").unwrap();
    let bind = entry.bind();
    assert_eq!(
        bindings_of(&bind),
        [
            (0, 0, Storage, Some(1), "gLog", "gLog"),
            (
                0,
                1,
                Storage,
                Some(1),
                "first.outBuf",
                "entryPointParams.outBuf"
            ),
            (
                0,
                2,
                Storage,
                Some(1),
                "second.counts",
                "entryPointParams.counts"
            ),
            (
                0,
                3,
                Image,
                Some(1),
                "second.image",
                "entryPointParams.image"
            ),
            (
                0,
                4,
                Image,
                Some(1),
                "second.lookup.table",
                "entryPointParams.lookup.table"
            ),
            (
                0,
                5,
                Sampler,
                Some(1),
                "second.lookup.sampler",
                "entryPointParams.lookup.sampler"
            ),
        ]
    );
    // Each is used by its own entry point only (bit 0: `first`, bit 1: `second`).
    let masks: Vec<u32> = bind.bindings().iter().map(|b| b.entry_point_mask).collect();
    assert_eq!(masks, [1, 1, 2, 2, 2, 2]);
    assert_eq!(
        bind.buffer_member("first.gain").map(|(_, m)| m.offset),
        Some(0)
    );

    let package = bake_test_shader("entry_point_resources_graphics", &[]).unwrap();
    let entry = package.load("entry_point_resources_graphics").unwrap();
    let bind = entry.bind();
    let paths: Vec<(u32, &str, u32)> = bind
        .bindings()
        .iter()
        .map(|b| (b.binding, bind.string(b.path), b.stage_flags))
        .collect();
    assert_eq!(
        paths,
        [
            (0, "vertexMain.positions", 0x1),
            (1, "fragmentMain.maps.albedo", 0x10),
            (2, "fragmentMain.maps.sampler", 0x10),
            (3, "fragmentMain.detail", 0x10),
        ]
    );
}

#[test]
fn resources_inside_constant_buffers_are_bindings_after_the_buffer() {
    use DescriptorKind::{SampledImage as Image, Sampler, StorageBuffer as Storage};
    let package = bake_test_shader("cbuffer_resources", &[]).unwrap();
    let bind = package.load("cbuffer_resources").unwrap().bind();
    let places: Vec<(u32, DescriptorKind, Option<u32>, &str)> = bindings_of(&bind)
        .into_iter()
        .map(|(_, binding, kind, count, path, _)| (binding, kind, count, path))
        .collect();
    // `gResources` holds no ordinary data: no uniform buffer, only its resources.
    assert_eq!(
        places,
        [
            (0, DescriptorKind::UniformBuffer, Some(1), "Uniforms"),
            (1, Storage, Some(1), "Uniforms.srcBuffer"),
            (2, Image, Some(1), "Uniforms.inner.tex"),
            (3, Storage, Some(1), "Uniforms.dstBuffer"),
            (4, Storage, Some(1), "gResources.values"),
            (5, Sampler, Some(1), "gResources.sampler"),
        ]
    );
    let members: Vec<(&str, u32)> = bind
        .members(
            bind.buffer_layout(bind.bindings()[0].buffer_layout)
                .unwrap(),
        )
        .iter()
        .map(|m| (bind.string(m.path), m.offset))
        .collect();
    assert_eq!(members, [("scale", 0), ("inner", 16), ("inner.tint", 16)]);
}

#[test]
fn arrays_sized_by_specialization_constants_are_counted_from_the_spirv() {
    let package = bake_test_shader("specialized_arrays", &[]).unwrap();
    let entry = package.load("specialized_arrays").unwrap();
    let bind = entry.bind();
    let textures = binding(&bind, "gTextures");
    assert_eq!(textures.descriptor_count(), Some(4));
    assert_ne!(textures.flags & BINDING_SPECIALIZED_COUNT, 0);
    assert_eq!(binding(&bind, "gOut").flags & BINDING_SPECIALIZED_COUNT, 0);
    // Slang's reflection has no default for either; the SPIR-V's `OpSpecConstant`s do.
    let spec: Vec<(u32, &str, u64)> = bind
        .specialization_constants()
        .iter()
        .map(|s| {
            assert_eq!(s.flags & 1, 1, "has a default");
            let default = u64::from(s.default_lo) | (u64::from(s.default_hi) << 32);
            (s.id, bind.string(s.name), default)
        })
        .collect();
    assert_eq!(spec, [(1, "CacheSize", 64), (2, "TextureCount", 4)]);
    // The raw tables record the groupshared array's size as not a constant.
    let reflection = entry.reflection().unwrap();
    let sized: Vec<u32> = reflection
        .types()
        .iter()
        .filter(|t| t.kind == slangpack_format::TypeKind::Array.to_raw())
        .map(|t| t.element_count)
        .collect();
    assert!(
        sized.contains(&slangpack_format::SPECIALIZED_COUNT),
        "{sized:?}"
    );

    // A buffer holding such an array has no layout in Slang: refused, saying why.
    let message = bake_source(
        r#"
        [[vk::constant_id(1)]] const int N = 4;
        struct P { float4 a[N]; float b; };
        ConstantBuffer<P> gP;
        RWStructuredBuffer<float4> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { gOut[id.x] = gP.a[id.x % N] * gP.b; }
        "#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.contains("`gP` holds an array sized by a specialization constant"),
        "{message}"
    );
}

#[test]
fn arrays_of_structs_holding_resources_are_one_array_per_field() {
    use DescriptorKind::{SampledImage as Image, Sampler};
    let package = bake_test_shader("struct_resource_arrays", &[]).unwrap();
    let bind = package.load("struct_resource_arrays").unwrap().bind();
    let places: Vec<(u32, DescriptorKind, Option<u32>, u32, &str)> = bind
        .bindings()
        .iter()
        .take(4)
        .map(|b| {
            (
                b.binding,
                b.kind(),
                b.descriptor_count(),
                b.count_kind,
                bind.string(b.path),
            )
        })
        .collect();
    assert_eq!(
        places,
        [
            (0, Image, None, COUNT_UNBOUNDED, "materials.albedo"),
            (1, Sampler, None, COUNT_UNBOUNDED, "materials.sampler"),
            (2, Image, Some(4), COUNT_FIXED, "lights.shadow"),
            (3, Sampler, Some(4), COUNT_FIXED, "lights.sampler"),
        ]
    );
}

#[test]
fn an_interface_typed_block_specialized_by_a_type_argument_has_the_concrete_layout() {
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/specialized/existential_block.toml");
    let outcome = bake::bake(&BakeConfig::new(vec![manifest])).unwrap();
    let package = Package::from_bytes(&outcome.bytes).unwrap();
    let bind = package.load("existential_block").unwrap().bind();
    let block = binding(&bind, "gSurface");
    assert_eq!((block.set, block.binding), (1, 0));
    assert_ne!(block.flags & BINDING_IMPLICIT_BLOCK_BUFFER, 0);
    let layout = bind.buffer_layout(block.buffer_layout).unwrap();
    let members: Vec<(&str, u32, u32)> = bind
        .members(layout)
        .iter()
        .filter(|m| !bind.string(m.path).contains(".payload."))
        .map(|m| (bind.string(m.path), m.offset, m.size))
        .collect();
    assert_eq!(
        members,
        [
            ("existential", 0, 32),
            ("existential.typeId", 0, 8),
            ("existential.witnessId", 8, 8),
            ("existential.payload", 16, 16),
            ("value", 32, 48),
            ("value.tint", 32, 16),
            ("value.gloss", 48, 4),
            ("value.sheen", 64, 12),
        ]
    );
    assert_ne!(
        member_of(&bind, "gSurface.existential").flags & MEMBER_EXISTENTIAL,
        0
    );
    assert_eq!(member_of(&bind, "gSurface.value.sheen").offset, 64);
}

#[test]
fn interface_typed_values_in_buffers_get_their_payload_or_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slang");
    std::fs::write(
        &path,
        r#"
        interface ILight { float3 illuminate(float3 n); };
        struct Sun : ILight { float3 dir; float3 illuminate(float3 n) { return max(dot(n, dir), 0); } };
        struct Spot : ILight { float4 color; float3 dir; float3 illuminate(float3 n) { return color.xyz * dot(n, dir); } };
        struct S { float4 c; ILight light; };
        ConstantBuffer<S> gScene;
        RWStructuredBuffer<float4> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main() { gOut[0] = gScene.c + float4(gScene.light.illuminate(float3(0, 1, 0)), 0); }
        "#,
    )
    .unwrap();
    // A type argument, or conformances (the types a dynamic dispatch may find there).
    let bake_with = |type_argument: Option<&str>, conforming: &[&str]| {
        let mut config = BakeConfig::new(vec![path.clone()]);
        config.options.type_arguments = type_argument.into_iter().map(Into::into).collect();
        config.options.conformances = (conforming.iter())
            .map(|t| (t.to_string(), "ILight".to_string()))
            .collect();
        bake::bake(&config)
    };
    // Specialized to a type that fits the payload, or with one conforming type: its members
    // over the payload's words.
    for (type_argument, conforming) in [(Some("Sun"), &[][..]), (None, &["Sun"][..])] {
        let package =
            Package::from_bytes(&bake_with(type_argument, conforming).unwrap().bytes).unwrap();
        let bind = package.load("t").unwrap().bind();
        let members: Vec<(&str, u32, u32)> = bind
            .members(
                bind.buffer_layout(binding(&bind, "gScene").buffer_layout)
                    .unwrap(),
            )
            .iter()
            .map(|m| (bind.string(m.path), m.offset, m.flags))
            .collect();
        assert_eq!(
            members,
            [
                ("c", 0, 0),
                ("light", 16, MEMBER_EXISTENTIAL),
                ("light.typeId", 16, 0),
                ("light.witnessId", 24, 0),
                ("light.value", 32, MEMBER_EXISTENTIAL_PAYLOAD),
                ("light.value.dir", 32, 0),
            ]
        );
    }
    // Dynamic dispatch among several types, or a type larger than the payload: refused,
    // naming the value.
    for (type_argument, conforming) in [(None, &["Sun", "Spot"][..]), (Some("Spot"), &[][..])] {
        let message = bake_with(type_argument, conforming)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains(
                "`light` in `gScene` is an interface-typed value (`ILight`, 32 bytes at offset 16)"
            ),
            "{message}"
        );
        assert!(message.contains("16-byte payload at 32"), "{message}");
        assert!(message.contains("generic parameter"), "{message}");
    }
}

#[test]
fn an_interface_typed_entry_point_parameter_specialized_by_a_type_argument_is_described() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slang");
    std::fs::write(
        &path,
        r#"
        interface ITransformer { float4 apply(float4 v); };
        struct Scale : ITransformer { float k; uint mode; float4 apply(float4 v) { return v * k + float(mode); } };
        RWStructuredBuffer<float4> gOut;
        [shader("compute")][numthreads(8,1,1)]
        void main(uint3 id : SV_DispatchThreadID, uniform ITransformer t) { gOut[id.x] = t.apply(float4(id.x)); }
        "#,
    )
    .unwrap();
    let mut config = BakeConfig::new(vec![path]);
    config.options.type_arguments = vec!["Scale".into()];
    let package = Package::from_bytes(&bake::bake(&config).unwrap().bytes).unwrap();
    let bind = package.load("t").unwrap().bind();
    // The entry point's push-constant block holds the header and Scale's words.
    let push = &bind.push_constants()[0];
    let members: Vec<(&str, u32, u32)> = bind
        .members(bind.buffer_layout(push.buffer_layout).unwrap())
        .iter()
        .map(|m| (bind.string(m.path), m.offset, m.size))
        .collect();
    assert_eq!(
        members,
        [
            ("t", 0, 32),
            ("t.typeId", 0, 8),
            ("t.witnessId", 8, 8),
            ("t.value", 16, 16),
            ("t.value.k", 16, 4),
            ("t.value.mode", 20, 4),
        ]
    );
}

#[test]
fn an_interface_typed_constant_buffer_is_described_when_its_type_fits_the_payload() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slang");
    std::fs::write(
        &path,
        r#"
        interface ISurface { float4 shade(float3 n); };
        struct Matte : ISurface { float4 tint; float4 shade(float3 n) { return tint; } };
        struct Glossy : ISurface { float4 tint; float gloss; float4 shade(float3 n) { return tint * gloss; } };
        ConstantBuffer<ISurface> gSurface;
        RWStructuredBuffer<float4> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main() { gOut[0] = gSurface.shade(float3(0, 1, 0)); }
        "#,
    )
    .unwrap();
    let bake_with = |type_argument: &str| {
        let mut config = BakeConfig::new(vec![path.clone()]);
        config.options.type_arguments = vec![type_argument.into()];
        bake::bake(&config)
    };
    let package = Package::from_bytes(&bake_with("Matte").unwrap().bytes).unwrap();
    let bind = package.load("t").unwrap().bind();
    let block = binding(&bind, "gSurface");
    assert_eq!(block.kind(), DescriptorKind::UniformBuffer);
    assert_eq!(member_of(&bind, "gSurface.value.tint").offset, 16);
    // Too large for the payload: where Slang puts it in a constant buffer is not described.
    let message = bake_with("Glossy").unwrap_err().to_string();
    assert!(
        message.contains("`gSurface` is an interface-typed block (`ISurface`)"),
        "{message}"
    );
}

/// A global generic parameter nothing specializes: Slang gives `ParameterBlock<T>` no place
/// and its SPIR-V declares nothing, so the bind view has no binding for it, and the bake says
/// so in a warning naming the parameter, its generic and `--type-arg`. Specialized, the block
/// is there and nothing is said.
#[test]
fn parameters_of_unspecialized_global_generics_are_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.slang");
    std::fs::write(
        &path,
        r#"
        interface IShade { float4 shade(); };
        struct Flat : IShade { float4 c; float4 shade() { return c; } };
        type_param M : IShade;
        ParameterBlock<M> gShade;
        RWStructuredBuffer<float4> gOut;
        [shader("compute")][numthreads(1,1,1)]
        void main() { gOut[0] = float4(1, 2, 3, 4); }
        "#,
    )
    .unwrap();
    let bake_with = |type_arguments: &[&str]| {
        let mut config = BakeConfig::new(vec![path.clone()]);
        config.options.type_arguments = type_arguments.iter().map(|t| t.to_string()).collect();
        bake::bake(&config).unwrap()
    };
    let outcome = bake_with(&[]);
    let warnings = &outcome.entries[0].warnings;
    assert!(
        warnings.contains("global generic parameter `M` left unspecialized")
            && warnings.contains("`gShade` (of `M`)")
            && warnings.contains("--type-arg"),
        "{warnings}"
    );
    let package = Package::from_bytes(&outcome.bytes).unwrap();
    assert!(package
        .load("t")
        .unwrap()
        .bind()
        .binding("gShade")
        .is_none());

    let outcome = bake_with(&["Flat"]);
    assert!(
        !outcome.entries[0].warnings.contains("unspecialized"),
        "{}",
        outcome.entries[0].warnings
    );
    let package = Package::from_bytes(&outcome.bytes).unwrap();
    let bind = package.load("t").unwrap().bind();
    assert_eq!(
        binding(&bind, "gShade").kind(),
        DescriptorKind::UniformBuffer
    );
}

/// An interface-typed block or value with no type conformance for its interface: the refusal
/// gives Slang's E50100 reason and offers the module's implementing types (a type merely
/// declaring the interface is not a conformance to Slang), instead of describing dynamic
/// dispatch over several conforming types.
#[test]
fn interface_typed_parameters_without_a_conformance_are_refused_with_slangs_reason() {
    for (declaration, what, offered) in [
        ("ParameterBlock<IShade> gShade;", "block", None),
        ("ConstantBuffer<IShade> gShade;", "block", None),
        ("uniform IShade gShade;", "value", None),
        (
            "struct Flat : IShade { float4 c; float4 shade() { return c; } };\n\
             ParameterBlock<IShade> gShade;",
            "block",
            Some("name `Flat`, which implements it"),
        ),
    ] {
        let source = format!(
            "interface IShade {{ float4 shade(); }};\n{declaration}\n\
             RWStructuredBuffer<float4> gOut;\n\
             [shader(\"compute\")][numthreads(1,1,1)]\n\
             void main() {{ gOut[0] = float4(1, 2, 3, 4); }}\n"
        );
        let message = bake_source(&source).unwrap_err().to_string();
        assert!(
            message.contains(&format!(
                "`gShade` is an interface-typed {what} (`IShade`), and the program has no type \
                 conformance for `IShade`"
            )) && message.contains("E50100")
                && !message.contains("dynamic dispatch"),
            "{declaration}: {message}"
        );
        match offered {
            Some(offer) => assert!(message.contains(offer), "{message}"),
            None => assert!(
                message.contains("declare a type that implements `IShade`"),
                "{message}"
            ),
        }
    }
}

//! The check against the SPIR-V, each fact tampered with in turn: the bake fails naming both
//! values.

use super::super::build_tampered;
use super::*;
use crate::compile::{CompileOptions, CompiledProgram, Compiler, Source};

/// A real shader with what the guard compares: a push-constant block with explicit
/// offsets, a uniform buffer with an array and a matrix, an input attachment-free compute.
const SHADER: &str = r#"
    struct Push { [[vk::offset(16)]] float gain; uint count; };
    struct Material { float4 tint; float weights[3]; float4x4 transform; };
    [[vk::push_constant]] Push gPush;
    [[vk::binding(0, 0)]] ConstantBuffer<Material> gMaterial;
    [[vk::binding(1, 0)]] RWStructuredBuffer<float4> gOut;
    [shader("compute")] [numthreads(1, 1, 1)]
    void main() {
        gOut[0] = gMaterial.tint * gPush.gain + gMaterial.weights[2] + float(gPush.count)
            + mul(gMaterial.transform, float4(1, 2, 3, 4));
    }
"#;

/// Input attachments and a texture and a sampler sharing a binding.
const FRAGMENT: &str = r#"
    [[vk::input_attachment_index(3)]] SubpassInput<float4> gColor;
    [[vk::binding(1, 0)]] Texture2D gAlbedo;
    [[vk::binding(1, 0)]] SamplerState gAlbedoSampler;
    [shader("fragment")]
    float4 main(float4 p : SV_Position) : SV_Target {
        return gColor.SubpassLoad() + gAlbedo.Sample(gAlbedoSampler, p.xy);
    }
"#;

fn program(text: &str) -> CompiledProgram {
    let source = Source {
        path: "guard.slang".into(),
        text: text.into(),
        slang_path: None,
    };
    Compiler::new()
        .and_then(|c| c.compile("guard", &source, &CompileOptions::default()))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn bake(tamper: impl FnOnce(&mut Walk<'_>)) -> Result<(), BakeError> {
    bake_source(SHADER, tamper)
}

fn bake_source(text: &str, tamper: impl FnOnce(&mut Walk<'_>)) -> Result<(), BakeError> {
    let program = program(text);
    let mut builder = slangpack_format::ReflectionBuilder::new();
    build_tampered(&program, "guard", &mut builder, &mut Vec::new(), tamper)
}

fn member<'m>(walk: &'m mut Walk<'_>, buffer: &str, path: &str) -> &'m mut BufferMember {
    let b = walk.buffers.iter_mut().find(|b| b.name == buffer).unwrap();
    &mut b.members.iter_mut().find(|m| m.path == path).unwrap().rec
}

fn message(result: Result<(), BakeError>) -> String {
    result.expect_err("the guard fires").to_string()
}

#[test]
fn the_untouched_view_passes_and_explicit_offsets_come_from_the_spirv() {
    bake(|walk| {
        assert_eq!(member(walk, "gPush", "gain").offset, 16);
        assert_eq!(member(walk, "gPush", "count").offset, 20);
    })
    .unwrap();
}

#[test]
fn a_wrong_member_offset_fails_the_bake_naming_both_values() {
    let e = message(bake(|walk| member(walk, "gPush", "count").offset = 24));
    assert!(e.contains("entry point `main`"), "{e}");
    assert!(e.contains("`gPush` member `count` offset"), "{e}");
    assert!(e.contains("says 24, the SPIR-V says 20"), "{e}");
}

#[test]
fn a_wrong_array_stride_matrix_stride_or_uniform_offset_fails_the_bake() {
    let e = message(bake(|walk| {
        member(walk, "gMaterial", "weights").array_stride = 4
    }));
    assert!(
        e.contains("`weights` array stride: the bind view says 4, the SPIR-V says 16"),
        "{e}"
    );
    let e = message(bake(|walk| {
        member(walk, "gMaterial", "transform").matrix_stride = 12
    }));
    assert!(
        e.contains("`transform` matrix stride: the bind view says 12"),
        "{e}"
    );
    let e = message(bake(|walk| member(walk, "gMaterial", "tint").offset = 4));
    assert!(e.contains("`gMaterial` member `tint` offset"), "{e}");
}

#[test]
fn a_wrong_descriptor_type_count_or_place_fails_the_bake() {
    let e = message(bake(|walk| {
        let i = walk.bindings.iter().position(|b| b.path == "gOut").unwrap();
        walk.bindings[i].descriptor_type = DescriptorKind::StorageImage.to_raw();
    }));
    assert!(
        e.contains(
            "descriptor type: the bind view says storage_image, the SPIR-V says storage_buffer"
        ),
        "{e}"
    );
    let e = message(bake(|walk| {
        let i = walk
            .bindings
            .iter()
            .position(|b| b.path == "gMaterial")
            .unwrap();
        walk.bindings[i].count = 2;
    }));
    assert!(
        e.contains("descriptor count: the bind view says 2, the SPIR-V says 1"),
        "{e}"
    );
    let e = message(bake(|walk| {
        let i = walk.bindings.iter().position(|b| b.path == "gOut").unwrap();
        walk.bindings[i].binding = 5;
    }));
    assert!(e.contains("the reflection walk did not find"), "{e}");
}

#[test]
fn input_attachment_indices_come_from_the_spirv_and_a_wrong_one_fails_the_bake() {
    bake_source(FRAGMENT, |walk| {
        let color = walk.bindings.iter().find(|b| b.path == "gColor").unwrap();
        assert_eq!(
            (color.descriptor_type, color.input_attachment_index),
            (DescriptorKind::InputAttachment.to_raw(), 3)
        );
        let albedo = walk.bindings.iter().find(|b| b.path == "gAlbedo").unwrap();
        assert_eq!(
            albedo.descriptor_type,
            DescriptorKind::CombinedImageSampler.to_raw()
        );
        assert_eq!(albedo.sampler_path.as_deref(), Some("gAlbedoSampler"));
    })
    .unwrap();
    let e = message(bake_source(FRAGMENT, |walk| {
        let i = walk
            .bindings
            .iter()
            .position(|b| b.path == "gColor")
            .unwrap();
        walk.bindings[i].input_attachment_index = 0;
    }));
    assert!(e.contains("`gColor` (set 0 binding 0) input attachment index: the bind view says 0, the SPIR-V says 3"), "{e}");
}

#[test]
fn a_missing_push_constant_block_fails_the_bake() {
    let e = message(bake(|walk| walk.push_constants.clear()));
    assert!(e.contains("push-constant block"), "{e}");
}

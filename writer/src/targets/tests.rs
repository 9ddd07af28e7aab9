//! Tests of the matching of walked slots, code declarations and the Vulkan bind view.

use super::*;

fn builder_with_texture() -> ReflectionBuilder {
    builder_with_texture_where(|_| {})
}

/// A builder holding one Vulkan binding `gTex` (set 0 binding 1), `edit`ed.
fn builder_with_texture_where(edit: impl FnOnce(&mut DescriptorBinding)) -> ReflectionBuilder {
    let mut b = ReflectionBuilder::new();
    let path = b.intern("gTex");
    let mut binding = DescriptorBinding {
        name: path,
        path,
        spirv_name: path,
        set: 0,
        binding: 1,
        buffer_layout: ABSENT,
        ..DescriptorBinding::default()
    };
    edit(&mut binding);
    b.push(binding);
    b
}

fn texture_slot(index: u32) -> Slot {
    Slot {
        path: "gTex".into(),
        kind: TargetBindingKind::Texture,
        space: 0,
        index,
        register_class: 0,
        count: 1,
        flags: 0,
        min_binding_size: 0,
        view_dimension: slangpack_format::targets::view_dimension::D2,
        sample_type: slangpack_format::targets::sample_type::FLOAT,
        format: 0,
        layout: None,
    }
}

fn declared(index: u32, facts: Option<Facts>) -> CodeBinding {
    CodeBinding {
        layout: None,
        name: "gTex_0".into(),
        space: 0,
        index,
        register_class: 0,
        facts,
        kind: None,
        uniform_size: None,
    }
}

#[test]
fn agreeing_code_gives_records_with_the_code_name() {
    let mut b = builder_with_texture();
    let records = reconcile(
        &mut b,
        Target::Wgsl,
        &[texture_slot(1)],
        &[declared(1, None)],
        &[],
        &[],
    )
    .expect("agrees");
    assert_eq!(records.len(), 1);
    assert_eq!(b.string(records[0].code_name), Some("gTex_0"));
    assert_eq!(records[0].binding, 0);
    assert_eq!((records[0].space, records[0].index), (0, 1));
}

#[test]
fn a_binding_elsewhere_in_the_code_fails_naming_both_places() {
    let mut b = builder_with_texture();
    let e = reconcile(
        &mut b,
        Target::Wgsl,
        &[texture_slot(1)],
        &[declared(2, None)],
        &[],
        &[],
    )
    .unwrap_err();
    assert!(e.contains("`gTex_0` at @group(0) @binding(2)"), "{e}");
    // Nothing at the bind view's place either: it names that place.
    let e = reconcile(&mut b, Target::Wgsl, &[texture_slot(1)], &[], &[], &[]).unwrap_err();
    assert!(e.contains("@group(0) @binding(1)"), "{e}");
}

#[test]
fn a_type_disagreement_fails_naming_both_values() {
    let mut b = builder_with_texture();
    let facts = Facts {
        kind: TargetBindingKind::Texture,
        flags: 0,
        view_dimension: slangpack_format::targets::view_dimension::D3,
        sample_type: slangpack_format::targets::sample_type::FLOAT,
    };
    let e = reconcile(
        &mut b,
        Target::Wgsl,
        &[texture_slot(1)],
        &[declared(1, Some(facts))],
        &[],
        &[],
    )
    .unwrap_err();
    assert!(e.contains("view dimension 2, the code 6"), "{e}");
}

#[test]
fn a_vulkan_binding_without_a_place_on_the_target_fails_naming_it() {
    let mut b = builder_with_texture();
    let e = reconcile(&mut b, Target::Hlsl, &[], &[], &[], &[]).unwrap_err();
    assert!(
        e.contains("`gTex` (Vulkan set 0 binding 1) has no place on hlsl"),
        "{e}"
    );
}

#[test]
fn metal_code_disagreeing_with_the_bind_view_fails() {
    let mut b = builder_with_texture();
    let metal_slot = |index: u32| Slot {
        register_class: b't',
        space: ABSENT,
        ..texture_slot(index)
    };
    let text =
        "[[kernel]] void main_0(texture2d<float, access::sample> gTex_0 [[texture(1)]])\n{\n}\n";
    let found = metal::check(text, "main_0", &|_| None).unwrap();
    reconcile(&mut b, Target::Metal, &[metal_slot(1)], &found, &[], &[]).expect("agrees");
    // The bind view one texture off: the code's attribute is where it has nothing.
    let e = reconcile(&mut b, Target::Metal, &[metal_slot(2)], &found, &[], &[]).unwrap_err();
    assert!(e.contains("`gTex_0` at [[texture(1)]]"), "{e}");
    // An argument-buffer member the bind view does not list.
    let text = "struct M_0\n{\n    texture2d<float, access::sample> other_0;\n};\n[[kernel]] void main_0(M_0 constant* gM_1 [[buffer(0)]])\n{\n}\n";
    let found = metal::check(text, "main_0", &|_| None).unwrap();
    let mut empty = ReflectionBuilder::new();
    let e = reconcile(&mut empty, Target::Metal, &[], &found, &[], &[]).unwrap_err();
    assert!(e.contains("`gM_1` at [[buffer(0)]]"), "{e}");
}

#[test]
fn metal_uniform_buffer_sizes_are_checked_against_the_code_by_metal_rules() {
    let mut b = builder_with_texture();
    let uniform_slot = |min_binding_size: u32| Slot {
        kind: TargetBindingKind::UniformBuffer,
        register_class: b'b',
        space: ABSENT,
        min_binding_size,
        ..texture_slot(0)
    };
    // float3 + float: 16 + 4, rounded to the float3's 16-byte alignment (std140: 16).
    let text = "struct Light_0\n{\n    float3 direction_0;\n    float intensity_0;\n};\n[[kernel]] void main_0(Light_0 constant* gSun_1 [[buffer(0)]])\n{\n}\n";
    let found = metal::check(text, "main_0", &|_| None).unwrap();
    assert_eq!(found[0].uniform_size, Some(32));
    reconcile(&mut b, Target::Metal, &[uniform_slot(32)], &found, &[], &[]).expect("agrees");
    let e = reconcile(&mut b, Target::Metal, &[uniform_slot(16)], &found, &[], &[]).unwrap_err();
    assert!(
        e.contains("the bind view says the uniform buffer is 16 bytes, the code's type is 32"),
        "{e}"
    );
    // A struct holding a texture has no known size: nothing is compared.
    let text = "struct M_0\n{\n    texture2d<float, access::sample> t_0;\n};\n[[kernel]] void main_0(M_0 constant* gM_1 [[buffer(0)]])\n{\n}\n";
    let found = metal::check(text, "main_0", &|_| None).unwrap();
    assert_eq!(found[0].uniform_size, None);
}

#[test]
fn metal_input_attachments_sit_at_the_color_attachment_the_code_reads() {
    // An input attachment with input attachment index 1, which Slang's Metal layout puts
    // at [[texture(0)]]; Slang's Metal reads it by framebuffer fetch.
    let mut b = builder_with_texture_where(|d| {
        d.descriptor_type = slangpack_format::vk::DescriptorKind::InputAttachment.to_raw();
        d.input_attachment_index = 1;
    });
    let mut slots = vec![Slot {
        register_class: b't',
        space: ABSENT,
        ..texture_slot(0)
    }];
    metal::input_attachments(&mut slots, |p| (p == "gTex").then_some(1));
    assert_eq!((slots[0].register_class, slots[0].index), (b'c', 1));
    // A color output of the same number in the return struct is no input attachment.
    let code = |n: u32| {
        format!(
            "struct Out_0\n{{\n    float4 o_0 [[color(0)]];\n}};\n[[fragment]] Out_0 main_0(float4 gTex_0 [[color({n})]])\n{{\n}}\n"
        )
    };
    let found = metal::check(&code(1), "main_0", &|_| None).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let records = reconcile(&mut b, Target::Metal, &slots, &found, &[], &[]).unwrap();
    assert_eq!(b.string(records[0].code_name), Some("gTex_0"));
    // The code reading another color attachment fails naming it.
    let found = metal::check(&code(0), "main_0", &|_| None).unwrap();
    let e = reconcile(&mut b, Target::Metal, &slots, &found, &[], &[]).unwrap_err();
    assert!(e.contains("`gTex_0` at [[color(0)]]"), "{e}");
}

/// A uniform buffer `gParams` (Vulkan set 0 binding 0) whose bind-view layout has `a` at
/// 0 (16 bytes) and `b` at `b_offset` (4 bytes), and its WGSL slot.
fn builder_with_uniform(b_offset: u32) -> (ReflectionBuilder, Slot) {
    let mut b = ReflectionBuilder::new();
    let path = b.intern("gParams");
    let first_member = b.table_len::<BufferMember>();
    for (name, offset, size) in [("a", 0, 16), ("b", b_offset, 4)] {
        let name = b.intern(name);
        b.push(BufferMember {
            path: name,
            name,
            parent: ABSENT,
            offset,
            size,
            stride: size,
            ..BufferMember::default()
        });
    }
    let layout = b.push(BufferLayout {
        name: path,
        kind: slangpack_format::bind::BUFFER_UNIFORM,
        size: 32,
        alignment: 16,
        stride: 32,
        first_member,
        member_count: 2,
        ..BufferLayout::default()
    });
    b.push(DescriptorBinding {
        name: path,
        path,
        spirv_name: path,
        buffer_layout: layout,
        ..DescriptorBinding::default()
    });
    let slot = Slot {
        path: "gParams".into(),
        kind: TargetBindingKind::UniformBuffer,
        min_binding_size: 32,
        view_dimension: 0,
        sample_type: 0,
        ..texture_slot(0)
    };
    (b, slot)
}

/// WGSL shaped as Slang emits a uniform buffer: `b` follows the 16-byte `a` at offset 16.
const UNIFORM_WGSL: &str = "struct Params_std140_0\n{\n    @align(16) a_0 : vec4<f32>,\n    @align(16) b_0 : f32,\n};\n@binding(0) @group(0) var<uniform> gParams_0 : Params_std140_0;\n@compute @workgroup_size(1, 1, 1)\nfn main()\n{\n    var x : f32 = gParams_0.b_0 + gParams_0.a_0.x;\n    return;\n}\n";

#[test]
fn wgsl_member_offsets_are_checked_against_naga_naming_entry_binding_and_member() {
    let found = wgsl::check(UNIFORM_WGSL, "main").unwrap();
    let (mut b, slot) = builder_with_uniform(16);
    reconcile(
        &mut b,
        Target::Wgsl,
        std::slice::from_ref(&slot),
        &found,
        &[1],
        &["main"],
    )
    .expect("naga lays `b` out at 16, as the bind view says");
    // The bind view four bytes off: the bake fails naming the entry point, the binding,
    // its place, the code's variable and the member, with both layouts.
    let (mut b, slot) = builder_with_uniform(20);
    let e = reconcile(&mut b, Target::Wgsl, &[slot], &found, &[1], &["main"]).unwrap_err();
    assert_eq!(
        e,
        "entry point `main`: `gParams` (@group(0) @binding(0), code `gParams_0`): member \
         `b`: the bind view says offset 20, size 4, stride 0; naga's layout of the code \
         says offset 16, size 4, stride 0"
    );
    // A member the code's type lacks.
    let found = wgsl::check(&UNIFORM_WGSL.replace("b_0", "c_0"), "main").unwrap();
    let (mut b, slot) = builder_with_uniform(16);
    let e = reconcile(&mut b, Target::Wgsl, &[slot], &found, &[1], &["main"]).unwrap_err();
    assert!(
        e.contains("member `b`: the bind view lays it out at offset 16"),
        "{e}"
    );
    assert!(e.contains("the code's type has no such member"), "{e}");
}

/// `spirv-cross --reflect` of glslang's SPIR-V for a uniform block shaped like
/// [`UNIFORM_WGSL`]'s (`b` at `b_offset`) and a structured buffer of `uint`.
fn glsl_reflection(b_offset: u32) -> String {
    format!(
        r#"{{"types": {{
            "_10": {{"name": "block_Params_0", "members": [
                {{"name": "a_0", "type": "vec4", "offset": 0}},
                {{"name": "b_0", "type": "float", "offset": {b_offset}}}]}},
            "_20": {{"name": "StructuredBuffer_uint_t_0", "members": [
                {{"name": "_data", "type": "uint", "array": [0], "offset": 0,
                  "array_stride": 4}}]}}}},
          "ubos": [{{"type": "_10", "name": "block_Params_0", "set": 0, "binding": 0}}],
          "ssbos": [{{"type": "_20", "name": "StructuredBuffer_uint_t_0", "set": 0,
                     "binding": 1}}]}}"#
    )
}

#[test]
fn glsl_member_offsets_are_checked_against_spirv_cross() {
    let found = glsl::bindings(&glsl_reflection(16)).unwrap();
    let storage = found[1].layout.as_ref().unwrap();
    assert_eq!(
        (storage.element_stride, storage.members.len()),
        (Some(4), 0)
    );
    let (mut b, slot) = builder_with_uniform(16);
    let uniform = &found[..1];
    reconcile(
        &mut b,
        Target::Glsl,
        std::slice::from_ref(&slot),
        uniform,
        &[1],
        &["main"],
    )
    .expect("spirv-cross finds `b` at 16, as the bind view says");
    let found = glsl::bindings(&glsl_reflection(20)).unwrap();
    let e = reconcile(&mut b, Target::Glsl, &[slot], &found[..1], &[1], &["main"]).unwrap_err();
    assert_eq!(
        e,
        "entry point `main`: `gParams` (set 0 binding 0, code `block_Params_0`): member \
         `b`: the bind view says offset 16, size 4, stride 0; spirv-cross's layout of the \
         code says offset 20, size ?, stride 0"
    );
}

#[test]
fn wgsl_array_and_matrix_wrappers_and_storage_strides_follow_naga() {
    // Slang's `_Array_std140_*` wrapper stands for its array: `v[]` elements 16 bytes
    // apart; a storage buffer's elements `Item` 32 bytes apart, `y` at 16 inside one.
    let text = "struct _Array_std140_float3_0\n{\n    @align(16) data_0 : array<vec4<f32>, i32(3)>,\n};\nstruct Item_std430_0\n{\n    @align(16) x_0 : vec3<f32>,\n    @align(16) y_0 : vec4<f32>,\n};\nstruct P_0\n{\n    @align(16) v_0 : _Array_std140_float3_0,\n};\n@binding(0) @group(0) var<uniform> gP_0 : P_0;\n@binding(1) @group(0) var<storage, read> gItems_0 : array<Item_std430_0>;\n@compute @workgroup_size(1, 1, 1)\nfn main()\n{\n    var x : f32 = gP_0.v_0.data_0[0].x + gItems_0[0].y_0.x;\n    return;\n}\n";
    let found = wgsl::check(text, "main").unwrap();
    let shape = |name: &str| {
        found
            .iter()
            .find(|d| d.name == name)
            .and_then(|d| d.layout.clone())
            .unwrap()
    };
    let v = shape("gP_0");
    assert_eq!(
        v.members,
        [CodeMember {
            path: "v".into(),
            offset: 0,
            size: Some(48),
            stride: 16
        }]
    );
    let items = shape("gItems_0");
    assert_eq!(items.element_stride, Some(32));
    let offsets: Vec<(&str, u32)> = items
        .members
        .iter()
        .map(|m| (m.path.as_str(), m.offset))
        .collect();
    assert_eq!(offsets, [("x", 0), ("y", 16)]);
}

/// Slang's WGSL for `[[vk::binding(0)]] Sampler2D gA; [[vk::binding(1)]] Sampler2D gB;`
/// and a push-constant block: each sampler half on the next texture's binding, the block
/// without a place.
const SPLIT_WGSL: &str = "@binding(0) @group(0) var gA_texture_0 : texture_2d<f32>;\n@binding(1) @group(0) var gA_sampler_0 : sampler;\n@binding(1) @group(0) var gB_texture_0 : texture_2d<f32>;\n@binding(2) @group(0) var gB_sampler_0 : sampler;\nstruct P_std430_0\n{\n    @align(16) s_0 : vec4<f32>,\n};\nvar<uniform> gPush_0 : P_std430_0;\n@fragment\nfn main() -> @location(0) vec4<f32>\n{\n    return textureSample(gA_texture_0, gA_sampler_0, vec2<f32>(0.5f)) + textureSample(gB_texture_0, gB_sampler_0, vec2<f32>(0.5f)) + gPush_0.s_0;\n}\n";

#[test]
fn wgsl_sampler_halves_on_taken_places_and_push_constants_move_after_the_group() {
    let slot = |path: &str, kind, index| Slot {
        path: path.into(),
        kind,
        index,
        ..texture_slot(0)
    };
    let mut slots = vec![
        slot("gA", TargetBindingKind::Texture, 0),
        slot("gA", TargetBindingKind::Sampler, 1),
        slot("gB", TargetBindingKind::Texture, 1),
        slot("gB", TargetBindingKind::Sampler, 2),
        Slot {
            space: ABSENT,
            index: ABSENT,
            ..slot("gPush", TargetBindingKind::PushConstants, 0)
        },
    ];
    // Slang's WGSL as it is: naga refuses the shared binding.
    let e = wgsl::check(
        &SPLIT_WGSL.replace(
            "var<uniform> gPush_0",
            "@binding(9) @group(0) var<uniform> gPush_0",
        ),
        "main",
    )
    .unwrap_err();
    assert!(e.contains("conflict"), "{e}");
    let moves = wgsl::relocate(&mut slots, |p| p != "gPush");
    // gA's sampler, on gB's texture, goes after the group's last binding (gB's sampler,
    // 2); gB's sampler, alone at 2, stays; the block follows.
    assert_eq!(
        moves,
        [
            wgsl::Relocation::Sampler {
                group: 0,
                from: 1,
                to: 3
            },
            wgsl::Relocation::PushConstants {
                path: "gPush".into(),
                group: 0,
                to: 4
            },
        ]
    );
    let places: Vec<(TargetBindingKind, u32, u32)> =
        slots.iter().map(|s| (s.kind, s.space, s.index)).collect();
    assert_eq!(
        places,
        [
            (TargetBindingKind::Texture, 0, 0),
            (TargetBindingKind::Sampler, 0, 3),
            (TargetBindingKind::Texture, 0, 1),
            (TargetBindingKind::Sampler, 0, 2),
            (TargetBindingKind::UniformBuffer, 0, 4),
        ]
    );
    let text = wgsl::rewrite(SPLIT_WGSL, &moves).unwrap();
    let found = wgsl::check(&text, "main").expect("naga validates the moved WGSL");
    let mut at: Vec<(&str, u32)> = found.iter().map(|d| (d.name.as_str(), d.index)).collect();
    at.sort();
    assert_eq!(
        at,
        [
            ("gA_sampler_0", 3),
            ("gA_texture_0", 0),
            ("gB_sampler_0", 2),
            ("gB_texture_0", 1),
            ("gPush_0", 4),
        ]
    );
    // Only the binding attributes changed.
    assert_eq!(
        text.len(),
        SPLIT_WGSL.len() + "@binding(4) @group(0) ".len()
    );
    // A sampler the rule does not name keeps its place: a combined texture-sampler whose
    // place no one else takes needs nothing.
    let mut alone = vec![
        slot("gA", TargetBindingKind::Texture, 0),
        slot("gA", TargetBindingKind::Sampler, 1),
    ];
    assert!(wgsl::relocate(&mut alone, |_| true).is_empty());
    // A block without a place that no move names is refused, not guessed.
    let moves = [
        wgsl::Relocation::PushConstants {
            path: "a".into(),
            group: 0,
            to: 3,
        },
        wgsl::Relocation::PushConstants {
            path: "b".into(),
            group: 0,
            to: 4,
        },
    ];
    let e = wgsl::rewrite(SPLIT_WGSL, &moves).unwrap_err();
    assert!(e.contains("`gPush_0`"), "{e}");
}

#[test]
fn targets_parse_with_spirv_implied_and_dxil_explained() {
    assert_eq!(
        parse_targets(["metal", "spirv", "wgsl", "wgsl"]).unwrap(),
        vec![Target::Wgsl, Target::Metal]
    );
    assert!(parse_targets(["dxil"]).unwrap_err().contains("dxc"));
    assert!(parse_targets(["vulkan"])
        .unwrap_err()
        .contains("unknown target"));
}

#[test]
fn a_target_member_layout_disagreeing_with_the_code_fails_naming_both_values() {
    // `gParams { float3 a; float b; }` as Slang's HLSL declares it: b at 12.
    let text = "cbuffer gParams_0 : register(b0)\n{\n    float3 a_0;\n    float b_0;\n}\n";
    let found = hlsl::registers(text).unwrap();
    let shape = found[0].layout.clone().expect("a shape");
    let layout = |b_offset: u32| members::TargetLayoutOut {
        size: 16,
        alignment: 16,
        stride: 16,
        matrix_layout: 0,
        members: vec![
            (
                "a".into(),
                TargetMember {
                    offset: 0,
                    size: 12,
                    ..TargetMember::default()
                },
            ),
            (
                "b".into(),
                TargetMember {
                    offset: b_offset,
                    size: 4,
                    ..TargetMember::default()
                },
            ),
        ],
    };
    same_target_members(Target::Hlsl, &layout(12), &shape).expect("agrees");
    let e = same_target_members(Target::Hlsl, &layout(16), &shape).unwrap_err();
    assert_eq!(
        e,
        "member `b`: Slang's hlsl layout says offset 16, size 4, stride 0; HLSL's packing \
         rules applied to the code say offset 12, size 4, stride 0"
    );
    // A member the code lacks.
    let mut extra = layout(12);
    extra.members.push(("c".into(), TargetMember::default()));
    let e = same_target_members(Target::Hlsl, &extra, &shape).unwrap_err();
    assert!(e.contains("member `c`"), "{e}");
    assert!(e.contains("the code's type has no such member"), "{e}");
    // A structured buffer's elements a different distance apart.
    let mut structured = shape.clone();
    structured.element_stride = Some(20);
    let e = same_target_members(Target::Hlsl, &layout(12), &structured).unwrap_err();
    assert!(e.contains("elements 16 bytes apart"), "{e}");
    assert!(e.contains("the code 20"), "{e}");
}

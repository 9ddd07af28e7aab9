//! A package with a bind view made with the format crate's builders: two entry points (a
//! vertex and a fragment shader), sets 0 and 2 with a hole at 1, a zero-length array, an
//! unbounded array, a push-constant block, vertex inputs (one unused, one matrix) and
//! specialization constants; and an entry whose bind view holds values this version does
//! not name.

use slangpack_format::bind::*;

#[path = "../../../tests/src/fixtures.rs"]
pub mod fixtures;
use slangpack_format::vk::{DescriptorKind, Format, ShaderStageFlags};
use slangpack_format::*;

/// A top-level `float` member at `path` (a string index), `offset` bytes in.
#[allow(
    dead_code,
    reason = "not every test crate that includes this module builds members"
)]
pub fn float_member(path: u32, offset: u32) -> BufferMember {
    BufferMember {
        path,
        name: path,
        parent: ABSENT,
        offset,
        size: 4,
        type_kind: TypeKind::Scalar.to_raw(),
        scalar_type: ScalarType::Float32.to_raw(),
        rows: 1,
        columns: 1,
        ..BufferMember::default()
    }
}

/// The key of the well-formed entry.
pub const KEY: &str = "pbr.slang|vs,fs";
/// The key of the entry with unknown enum values.
pub const UNKNOWN_KEY: &str = "future.slang|main";

const VS: u32 = ShaderStageFlags::VERTEX.to_raw();
const FS: u32 = ShaderStageFlags::FRAGMENT.to_raw();

fn binding(
    b: &mut ReflectionBuilder,
    path: &str,
    (set, binding): (u32, u32),
    kind: DescriptorKind,
    count: (ArrayKind, u32),
    stages: u32,
    mask: u32,
) -> DescriptorBinding {
    let name = b.intern(path.rsplit('.').next().unwrap_or(path));
    let path = b.intern(path);
    DescriptorBinding {
        name,
        path,
        spirv_name: path,
        set,
        binding,
        descriptor_type: kind.to_raw(),
        count: count.1,
        count_kind: count.0.to_raw(),
        stage_flags: stages,
        entry_point_mask: mask,
        buffer_layout: ABSENT,
        ..DescriptorBinding::default()
    }
}

fn vertex_input(
    b: &mut ReflectionBuilder,
    name: &str,
    location: u32,
    format: Format,
    location_count: u32,
    used: bool,
) -> VertexInput {
    let semantic = b.intern(name);
    VertexInput {
        entry_point: 0,
        location,
        location_count,
        format: format.to_raw(),
        scalar_type: ScalarType::Float32.to_raw(),
        component_count: format.size().unwrap_or(0) / 4,
        semantic_name: semantic,
        semantic_index: 0,
        name: semantic,
        flags: if used {
            VertexInputFlags::USED.to_raw()
        } else {
            0
        },
    }
}

fn pbr_blob() -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let fixed = |n| (ArrayKind::Fixed, n);
    let mut scene = binding(
        &mut b,
        "gScene",
        (0, 0),
        DescriptorKind::UniformBuffer,
        fixed(1),
        VS | FS,
        0b11,
    );
    scene.buffer_layout = 0;
    let bindings = [
        scene,
        binding(
            &mut b,
            "gAlbedo",
            (0, 1),
            DescriptorKind::SampledImage,
            fixed(1),
            FS,
            0b10,
        ),
        binding(
            &mut b,
            "gReserved",
            (0, 2),
            DescriptorKind::SampledImage,
            (ArrayKind::ZeroLength, 0),
            FS | VS,
            0,
        ),
        binding(
            &mut b,
            "gSampler",
            (2, 0),
            DescriptorKind::Sampler,
            fixed(1),
            FS,
            0b10,
        ),
        binding(
            &mut b,
            "gTextures",
            (2, 1),
            DescriptorKind::SampledImage,
            (ArrayKind::Unbounded, 0),
            FS,
            0b10,
        ),
    ];
    for rec in bindings {
        b.push(rec);
    }
    b.push(DescriptorSetLayout {
        set: 0,
        first_binding: 0,
        binding_count: 3,
        flags: 0,
    });
    b.push(DescriptorSetLayout {
        set: 2,
        first_binding: 3,
        binding_count: 2,
        flags: SetFlags::HAS_UNBOUNDED.to_raw(),
    });
    let draw = b.intern("gDraw");
    b.push(PushConstantRange {
        name: draw,
        offset: 0,
        size: 64,
        stage_flags: VS | FS,
        buffer_layout: 1,
        entry_point_mask: 1,
    });
    let scene_name = b.intern("gScene");
    let tint = b.intern("tint");
    let model = b.intern("model");
    b.push(BufferLayout {
        name: scene_name,
        kind: BufferKind::Uniform.to_raw(),
        set: 0,
        binding: 0,
        size: 16,
        alignment: 16,
        stride: 16,
        first_member: 0,
        member_count: 1,
        matrix_layout: 0,
    });
    b.push(BufferLayout {
        name: draw,
        kind: BufferKind::PushConstant.to_raw(),
        set: ABSENT,
        binding: ABSENT,
        size: 64,
        alignment: 16,
        stride: 64,
        first_member: 1,
        member_count: 1,
        matrix_layout: 0,
    });
    let (lo, hi) = split_u64(1.5f64.to_bits());
    b.push(BufferMember {
        path: tint,
        name: tint,
        parent: ABSENT,
        size: 16,
        stride: 16,
        alignment: 16,
        type_kind: TypeKind::Vector.to_raw(),
        scalar_type: ScalarType::Float32.to_raw(),
        rows: 1,
        columns: 4,
        flags: (MemberFlags::HAS_DEFAULT | MemberFlags::DEFAULT_IS_FLOAT).to_raw(),
        default_lo: lo,
        default_hi: hi,
        ..BufferMember::default()
    });
    b.push(BufferMember {
        path: model,
        name: model,
        parent: ABSENT,
        size: 64,
        stride: 64,
        alignment: 16,
        type_kind: TypeKind::Matrix.to_raw(),
        scalar_type: ScalarType::Float32.to_raw(),
        rows: 4,
        columns: 4,
        matrix_layout: MatrixLayout::RowMajor.to_raw(),
        matrix_stride: 16,
        ..BufferMember::default()
    });
    let inputs = [
        vertex_input(&mut b, "POSITION", 0, Format::R32G32B32Sfloat, 1, true),
        vertex_input(&mut b, "TANGENT", 1, Format::R32G32B32A32Sfloat, 1, false),
        vertex_input(&mut b, "INSTANCE", 2, Format::R32G32B32A32Sfloat, 4, true),
        vertex_input(&mut b, "TEXCOORD", 6, Format::R32G32Sfloat, 1, true),
    ];
    for rec in inputs {
        b.push(rec);
    }
    for (id, name, scalar, default) in [
        (7, "kTaps", ScalarType::Int32, Some(5u64)),
        (3, "kScale", ScalarType::Float64, Some(0.25f64.to_bits())),
        (1, "kEnable", ScalarType::Bool, None),
    ] {
        let name = b.intern(name);
        let (default_lo, default_hi) = split_u64(default.unwrap_or(0));
        let mut flags = SpecializationFlags::empty();
        if default.is_some() {
            flags |= SpecializationFlags::HAS_DEFAULT;
        }
        if scalar == ScalarType::Float64 {
            flags |= SpecializationFlags::DEFAULT_IS_FLOAT;
        }
        b.push(SpecializationConstant {
            id,
            name,
            scalar_type: scalar.to_raw(),
            default_lo,
            default_hi,
            flags: flags.to_raw(),
        });
    }
    b.push(BindSummary {
        set_slot_count: 3,
        global_uniform_binding: ABSENT,
        program_stage_flags: VS | FS,
        entry_point_count: 2,
        ..BindSummary::default()
    });
    let mut names: Vec<(String, NameKind, u32)> =
        ["gScene", "gAlbedo", "gReserved", "gSampler", "gTextures"]
            .iter()
            .enumerate()
            .map(|(i, n)| ((*n).to_string(), NameKind::Binding, i as u32))
            .collect();
    names.push(("gScene".into(), NameKind::Buffer, 0));
    names.push(("gDraw".into(), NameKind::Buffer, 1));
    names.push(("gScene.tint".into(), NameKind::Member, 0));
    names.push(("gDraw.model".into(), NameKind::Member, 1));
    for slot in build_name_index(names) {
        b.push(slot);
    }
    b.finish()
}

/// A bind view written by a newer writer: a descriptor type, stage bit, binding flag, set
/// flag, buffer kind and vertex format this version does not name (a count kind it does not
/// know is refused at load: it could not say how many descriptors the binding takes).
fn unknown_blob() -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let mut rec = binding(
        &mut b,
        "gFuture",
        (0, 0),
        DescriptorKind::Unknown(1_000_999_000),
        (ArrayKind::Fixed, 2),
        0x4000_0000 | 0x20,
        1,
    );
    rec.flags = 0x80 | BindingFlags::WRITABLE.to_raw();
    b.push(rec);
    b.push(DescriptorSetLayout {
        set: 0,
        first_binding: 0,
        binding_count: 1,
        flags: 0x40,
    });
    let name = b.intern("gFuture");
    b.push(BufferLayout {
        name,
        kind: 42,
        set: ABSENT,
        binding: ABSENT,
        ..BufferLayout::default()
    });
    let mut input = vertex_input(&mut b, "FUTURE", 0, Format::Unknown(1_000_156_000), 1, true);
    input.flags |= 0x10;
    b.push(input);
    b.push(BindSummary {
        set_slot_count: 1,
        global_uniform_binding: ABSENT,
        program_stage_flags: 0x20,
        entry_point_count: 1,
        ..BindSummary::default()
    });
    b.finish()
}

fn entry_point(name: &str, stage: Stage, spirv: u32) -> EntryPointDesc {
    EntryPointDesc {
        thread_group_size: [0; 3],
        ..fixtures::entry_point(name, stage, spirv)
    }
}

/// The package bytes.
pub fn package() -> Vec<u8> {
    let mut p = PackageBuilder::new();
    let vs = p.add_spirv(&[0x0723_0203, 1]);
    let fs = p.add_spirv(&[0x0723_0203, 2]);
    let pbr = p.add_reflection(pbr_blob());
    let unknown = p.add_reflection(unknown_blob());
    p.add_entry(EntryDesc {
        key: KEY.into(),
        reflection: Some(pbr),
        entry_points: vec![
            entry_point("vs", Stage::Vertex, vs),
            entry_point("fs", Stage::Fragment, fs),
        ],
        dependencies: vec![],
        options_hash: 0,
    })
    .unwrap();
    p.add_entry(EntryDesc {
        key: UNKNOWN_KEY.into(),
        reflection: Some(unknown),
        entry_points: vec![entry_point("main", Stage::Unknown(77), fs)],
        dependencies: vec![],
        options_hash: 0,
    })
    .unwrap();
    p.finish().unwrap()
}

//! Hostile packages made with the format crate's builders (no Slang): one entry whose bind
//! view holds a uniform buffer with members of any names, nesting and count, a binding and a
//! push-constant range with any paths, and entry points with any names. Used by the tests and
//! by `examples/scale.rs` (timings).
#![allow(dead_code, reason = "each test file uses part of it")]

use slangpack_format::bind::*;
use slangpack_format::vk::{DescriptorKind, ShaderStageFlags};
use slangpack_format::*;

/// One buffer member: a `float`, or a struct of `size` bytes whose children name it as
/// parent.
#[derive(Debug, Clone)]
pub struct Member {
    pub name: String,
    /// Local index of the parent member.
    pub parent: Option<u32>,
    /// Offset in the buffer (absolute, as the format stores it).
    pub offset: u32,
    pub size: u32,
    pub is_struct: bool,
    /// Elements of an array of floats (`ARRAY_UNBOUNDED` for a runtime-sized one), 0 when
    /// not an array.
    pub array_count: u32,
    /// Bytes between the array's elements.
    pub array_stride: u32,
}

impl Member {
    pub fn float(name: &str, offset: u32) -> Member {
        Member {
            name: name.into(),
            parent: None,
            offset,
            size: 4,
            is_struct: false,
            array_count: 0,
            array_stride: 0,
        }
    }

    /// An array of `count` floats `stride` bytes apart (`ARRAY_UNBOUNDED`: runtime-sized).
    pub fn floats(name: &str, offset: u32, count: u32, stride: u32) -> Member {
        Member {
            size: if count == ARRAY_UNBOUNDED {
                0
            } else {
                count * stride
            },
            array_count: count,
            array_stride: stride,
            ..Member::float(name, offset)
        }
    }

    pub fn structure(name: &str, offset: u32, size: u32) -> Member {
        Member {
            size,
            is_struct: true,
            ..Member::float(name, offset)
        }
    }

    pub fn in_parent(self, parent: u32) -> Member {
        Member {
            parent: Some(parent),
            ..self
        }
    }
}

/// What the hostile entry holds.
#[derive(Debug, Clone)]
pub struct Hostile {
    pub key: String,
    pub entry_points: Vec<String>,
    /// The uniform buffer's binding path and buffer name.
    pub buffer: String,
    pub buffer_size: u32,
    pub members: Vec<Member>,
    /// A push-constant range's name (no members).
    pub push_constant: String,
    /// With `Some(class)`, an HLSL target binding of the uniform buffer with that register
    /// class (`b'b'` is the one a writer gives it).
    pub hlsl_register_class: Option<u32>,
}

impl Hostile {
    /// An entry `key` with one uniform buffer `gScene` of `members`.
    pub fn new(key: &str, members: Vec<Member>) -> Hostile {
        let end = members.iter().map(|m| m.offset + m.size).max().unwrap_or(0);
        Hostile {
            key: key.into(),
            entry_points: vec!["main".into()],
            buffer: "gScene".into(),
            buffer_size: end.next_multiple_of(16),
            members,
            push_constant: "gPush".into(),
            hlsl_register_class: None,
        }
    }

    /// `count` sibling floats, all named `name`.
    pub fn wide(count: u32, name: impl Fn(u32) -> String) -> Hostile {
        let members = (0..count).map(|i| Member::float(&name(i), 4 * i)).collect();
        Hostile::new("wide", members)
    }

    /// Structs nested `depth` deep (member i's parent is member i - 1), a float innermost.
    pub fn deep(depth: u32) -> Hostile {
        let mut members: Vec<Member> = (0..depth)
            .map(|i| {
                let m = Member::structure(&format!("s{i}"), 0, 16);
                if i == 0 {
                    m
                } else {
                    m.in_parent(i - 1)
                }
            })
            .collect();
        let leaf = Member::float("leaf", 0);
        members.push(if depth == 0 {
            leaf
        } else {
            leaf.in_parent(depth - 1)
        });
        Hostile::new("deep", members)
    }

    /// The package bytes.
    pub fn package(&self) -> Vec<u8> {
        Hostile::package_of(std::slice::from_ref(self))
    }

    /// One package holding the entries of `all` (keys distinct).
    pub fn package_of(all: &[Hostile]) -> Vec<u8> {
        let mut p = PackageBuilder::new();
        let spirv = p.add_spirv(&[0x0723_0203, 0x0001_0500, 0, 1, 0]);
        for hostile in all {
            hostile.add_to(&mut p, spirv);
        }
        p.finish().expect("a valid package")
    }

    /// Adds this entry to `p`, its entry points using SPIR-V module `spirv`.
    fn add_to(&self, p: &mut PackageBuilder, spirv: u32) {
        let reflection = p.add_reflection(self.blob());
        self.add_entry(p, &self.key, reflection, spirv);
    }

    /// A package of `entries` entries (keys `e0`, `e1`, ...) sharing this entry's one
    /// reflection blob and SPIR-V module.
    pub fn shared_by(&self, entries: usize) -> Vec<u8> {
        let mut p = PackageBuilder::new();
        let spirv = p.add_spirv(&[0x0723_0203, 0x0001_0500, 0, 1, 0]);
        let reflection = p.add_reflection(self.blob());
        for i in 0..entries {
            self.add_entry(&mut p, &format!("e{i}"), reflection, spirv);
        }
        p.finish().expect("a valid package")
    }

    /// The reflection blob.
    fn blob(&self) -> Vec<u8> {
        let mut b = ReflectionBuilder::new();
        let stages = ShaderStageFlags::COMPUTE.to_raw();
        let mask = (1u32 << self.entry_points.len().min(32)) - 1;
        let buffer = b.intern(&self.buffer);
        b.push(DescriptorBinding {
            name: buffer,
            path: buffer,
            spirv_name: buffer,
            set: 0,
            binding: 0,
            descriptor_type: DescriptorKind::UniformBuffer.to_raw(),
            count: 1,
            count_kind: ArrayKind::Fixed.to_raw(),
            stage_flags: stages,
            entry_point_mask: mask,
            buffer_layout: 0,
            sampler_path: ABSENT,
            ..DescriptorBinding::default()
        });
        b.push(DescriptorSetLayout {
            set: 0,
            first_binding: 0,
            binding_count: 1,
            flags: 0,
        });
        let push = b.intern(&self.push_constant);
        b.push(PushConstantRange {
            name: push,
            offset: 0,
            size: 16,
            stage_flags: stages,
            buffer_layout: ABSENT,
            entry_point_mask: mask,
        });
        b.push(BufferLayout {
            name: buffer,
            kind: BufferKind::Uniform.to_raw(),
            set: 0,
            binding: 0,
            size: self.buffer_size,
            alignment: 16,
            stride: self.buffer_size,
            first_member: 0,
            member_count: self.members.len() as u32,
            matrix_layout: 0,
        });
        for m in &self.members {
            let name = b.intern(&m.name);
            let kind = if m.is_struct {
                TypeKind::Struct
            } else {
                TypeKind::Scalar
            };
            b.push(BufferMember {
                path: name,
                name,
                parent: m.parent.unwrap_or(ABSENT),
                offset: m.offset,
                size: m.size,
                stride: m.size,
                alignment: 4,
                type_kind: kind.to_raw(),
                scalar_type: if m.is_struct {
                    ScalarType::None.to_raw()
                } else {
                    ScalarType::Float32.to_raw()
                },
                array_count: m.array_count,
                array_stride: m.array_stride,
                ..BufferMember::default()
            });
        }
        if let Some(class) = self.hlsl_register_class {
            b.push(slangpack_format::targets::TargetBinding {
                target: Target::Hlsl.to_raw(),
                path: buffer,
                code_name: buffer,
                binding: 0,
                kind: TargetBindingKind::UniformBuffer.to_raw(),
                space: 0,
                index: 0,
                register_class: class,
                count: 1,
                min_binding_size: self.buffer_size,
                ..Default::default()
            });
        }
        b.push(BindSummary {
            set_slot_count: 1,
            global_uniform_binding: ABSENT,
            program_stage_flags: stages,
            entry_point_count: self.entry_points.len() as u32,
            ..BindSummary::default()
        });
        b.finish()
    }

    /// Adds an entry `key` of this entry's entry points, with reflection blob `reflection`.
    fn add_entry(&self, p: &mut PackageBuilder, key: &str, reflection: u32, spirv: u32) {
        p.add_entry(EntryDesc {
            key: key.to_string(),
            reflection: Some(reflection),
            entry_points: self
                .entry_points
                .iter()
                .map(|name| EntryPointDesc {
                    name: name.clone(),
                    spirv_entry_name: "main".into(),
                    stage: Stage::Compute,
                    thread_group_size: [1, 1, 1],
                    wave_size: 0,
                    spirv,
                    reflection_entry_point: None,
                })
                .collect(),
            dependencies: Vec::new(),
            options_hash: 0,
        })
        .expect("a valid entry");
    }
}

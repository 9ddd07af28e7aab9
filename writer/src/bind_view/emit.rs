//! Writing the bind view's tables and its name index (the one slot that says its names are
//! derived from its records, SPEC 6.7).

use super::buffers::MemberOut;
use super::vertex::VertexOut;
use super::walk::Walk;
use super::*;
use slangpack_format::ScalarType;

pub(super) fn emit(
    builder: &mut ReflectionBuilder,
    walk: &Walk<'_>,
    program_stages: u32,
    entry_point_count: u32,
    vertex_inputs: &[VertexOut],
    spirv: &[super::check::EntrySpirv<'_>],
) {
    let buffer_index = buffers(builder, walk);
    let (set_slot_count, global_uniform) = bindings(builder, walk, &buffer_index);
    blocks(builder, walk, &buffer_index);
    inputs(builder, walk, vertex_inputs);
    pipeline_facts(builder, spirv);
    builder.push(BindSummary {
        set_slot_count,
        global_uniform_binding: global_uniform,
        program_stage_flags: program_stages,
        entry_point_count,
        ..BindSummary::default()
    });

    // The names are the records' own (a binding's path and sampler path, a buffer's name,
    // `buffer.member`): the reader builds its table of them at load, as it did of a baked
    // index's slots, which were 8 bytes of incompressible hash a name.
    if !walk.bindings.is_empty() || !walk.buffers.is_empty() {
        builder.push(NameIndexSlot::DERIVED);
    }
}

/// The buffer layouts, their members (with their attributes and conformances) and what
/// members point at; each layout's index in the builder, in walk order.
fn buffers(builder: &mut ReflectionBuilder, walk: &Walk<'_>) -> Vec<u32> {
    let mut buffer_index = Vec::with_capacity(walk.buffers.len());
    let mut member_base = builder.table_len::<BufferMember>();
    let first_member_of_view = member_base;
    let mut attribute_base = builder.table_len::<MemberAttribute>();
    for (i, buffer) in walk.buffers.iter().enumerate() {
        let first_member = member_base;
        for member in &buffer.members {
            let first_attribute = attribute_base;
            for (name, args, count) in &member.attributes {
                let rec = MemberAttribute {
                    name: builder.intern(name),
                    arguments: builder.intern(args),
                    argument_count: *count,
                };
                builder.push(rec);
                attribute_base += 1;
            }
            let rec = BufferMember {
                path: builder.intern(&member.path),
                name: builder.intern(&member.name),
                parent: member.parent.map_or(ABSENT, |p| first_member + p as u32),
                first_attribute,
                attribute_count: member.attributes.len() as u32,
                ..member.rec
            };
            let index = builder.push(rec);
            if member.rec.flags & MEMBER_CONFORMANCE != 0 {
                conformance(builder, walk, &buffer.members, member, first_member, index);
            }
        }
        member_base += buffer.members.len() as u32;
        let rec = BufferLayout {
            name: builder.intern(&buffer.name),
            kind: buffer.kind,
            set: buffer.set,
            binding: buffer.binding,
            size: buffer.size,
            alignment: buffer.alignment,
            stride: buffer.stride,
            first_member,
            member_count: buffer.members.len() as u32,
            matrix_layout: buffer.matrix_layout,
        };
        let index = builder.push(rec);
        buffer_index.push(index);
        debug_assert_eq!(i + 1, buffer_index.len());
    }
    // What members lead to (SPEC.md 6.11): members were pushed in order, so the records come
    // sorted by member.
    let mut member = first_member_of_view;
    for buffer in &walk.buffers {
        for m in &buffer.members {
            if let Some(target) = m.pointee {
                builder.push(MemberPointee {
                    member,
                    buffer_layout: buffer_index[target],
                });
            }
            member += 1;
        }
    }

    buffer_index
}

/// The descriptor bindings and set layouts; the set slot count and the global uniform
/// buffer's binding (`ABSENT` when there is none).
fn bindings(builder: &mut ReflectionBuilder, walk: &Walk<'_>, buffer_index: &[u32]) -> (u32, u32) {
    // Bindings (already sorted by set, binding) and sets.
    let first_binding = builder.table_len::<DescriptorBinding>();
    let mut global_uniform = ABSENT;
    let mut sets: Vec<DescriptorSetLayout> = Vec::new();
    for (i, b) in walk.bindings.iter().enumerate() {
        let index = first_binding + i as u32;
        let spirv_name = if b.spirv_name.is_empty() {
            b.path.as_str()
        } else {
            b.spirv_name.as_str()
        };
        let rec = DescriptorBinding {
            name: builder.intern(&b.name),
            path: builder.intern(&b.path),
            spirv_name: builder.intern(spirv_name),
            set: b.set,
            binding: b.binding,
            descriptor_type: b.descriptor_type,
            count: b.count,
            count_kind: b.count_kind,
            image_format: b.image_format,
            stage_flags: b.stage_flags,
            entry_point_mask: b.entry_point_mask,
            buffer_layout: b.buffer.map_or(ABSENT, |x| buffer_index[x]),
            flags: b.flags,
            resource_shape: b.shape,
            resource_access: b.access,
            mutable_types: b.mutable_types,
            input_attachment_index: b.input_attachment_index,
            sampler_path: b
                .sampler_path
                .as_deref()
                .map_or(ABSENT, |p| builder.intern(p)),
        };
        builder.push(rec);
        if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
            global_uniform = index;
        }
        let unbounded = if b.count_kind == COUNT_UNBOUNDED {
            SET_HAS_UNBOUNDED
        } else {
            0
        };
        match sets.last_mut() {
            Some(set) if set.set == b.set => {
                set.binding_count += 1;
                set.flags |= unbounded;
            }
            _ => sets.push(DescriptorSetLayout {
                set: b.set,
                first_binding: index,
                binding_count: 1,
                flags: unbounded,
            }),
        }
    }
    let set_slot_count = sets.last().map_or(0, |s| s.set + 1);
    for set in sets {
        builder.push(set);
    }

    (set_slot_count, global_uniform)
}

/// The push-constant ranges and shader-record blocks.
fn blocks(builder: &mut ReflectionBuilder, walk: &Walk<'_>, buffer_index: &[u32]) {
    for push in &walk.push_constants {
        // The range starts at the block's first byte: Slang starts every block at 0, but
        // `[[vk::offset(N)]]` moves members (and so lets blocks of one pipeline sit side by
        // side).
        let members = &walk.buffers[push.buffer].members;
        let offset = members
            .iter()
            .filter(|m| m.parent.is_none())
            .map(|m| m.rec.offset)
            .min()
            .unwrap_or(0)
            .min(push.size);
        // The range ends where the block's last byte does, not at Slang's size of the block
        // (rounded up to its alignment: `uniform float3 p` is 12 bytes of a 16-byte block): a
        // range wider than its block makes blocks of two stages overlap that do not.
        let end = (0..members.len())
            .filter(|&i| members[i].parent.is_none())
            .map(|i| members[i].rec.offset.saturating_add(extent(members, i)))
            .max()
            .map_or(push.size, |end| end.min(push.size))
            .max(offset);
        let rec = PushConstantRange {
            name: builder.intern(&push.name),
            offset,
            size: end - offset,
            stage_flags: push.stage_flags,
            buffer_layout: buffer_index[push.buffer],
            entry_point_mask: push.entry_point_mask,
        };
        builder.push(rec);
    }

    for r in &walk.shader_records {
        let rec = ShaderRecordBlock {
            name: builder.intern(&r.name),
            size: r.size,
            stage_flags: r.stage_flags,
            entry_point_mask: r.entry_point_mask,
            buffer_layout: buffer_index[r.buffer],
            reserved: 0,
        };
        builder.push(rec);
    }
}

/// The vertex inputs and the specialization constants.
fn inputs(builder: &mut ReflectionBuilder, walk: &Walk<'_>, vertex_inputs: &[VertexOut]) {
    for v in vertex_inputs {
        let rec = VertexInput {
            entry_point: v.entry_point,
            location: v.location,
            location_count: v.location_count,
            format: v.format,
            scalar_type: v.scalar_type,
            component_count: v.components,
            semantic_name: builder.intern(&v.semantic),
            semantic_index: v.semantic_index,
            name: builder.intern(&v.name),
            flags: if v.used { VERTEX_INPUT_USED } else { 0 },
        };
        builder.push(rec);
    }

    for s in &walk.spec_constants {
        let (bits, is_float) = s.default.unwrap_or((0, false));
        let rec = SpecializationConstant {
            id: s.id,
            name: builder.intern(&s.name),
            scalar_type: s.scalar_type,
            default_lo: bits as u32,
            default_hi: (bits >> 32) as u32,
            flags: u32::from(s.default.is_some()) | (u32::from(is_float) << 1),
        };
        builder.push(rec);
    }
}

/// Fragment outputs and execution modes, straight from each entry point's SPIR-V.
fn pipeline_facts(builder: &mut ReflectionBuilder, spirv: &[super::check::EntrySpirv<'_>]) {
    for (i, ep) in spirv.iter().enumerate() {
        for o in &ep.facts.outputs {
            let rec = FragmentOutput {
                entry_point: i as u32,
                location: o.location,
                index: o.index,
                scalar_type: o.scalar.to_raw(),
                component_count: o.components,
                name: builder.intern(&o.name),
            };
            builder.push(rec);
        }
    }
    for (i, ep) in spirv.iter().enumerate() {
        builder.push(ExecutionModes {
            entry_point: i as u32,
            ..ep.facts.modes
        });
    }
}

/// The [`ExistentialConformance`] of `member`, a conforming type's data in the payload of a
/// dynamically dispatched existential (`Walk::dispatched_value`), at buffer member `index`:
/// its header is the payload's parent, its id the one the program was composed with.
fn conformance(
    builder: &mut ReflectionBuilder,
    walk: &Walk<'_>,
    members: &[MemberOut],
    member: &MemberOut,
    first_member: u32,
    index: u32,
) {
    let header = member.parent.and_then(|payload| members[payload].parent);
    let interface = (walk.conformances.iter())
        .find(|(ty, _)| *ty == member.name)
        .map_or("", |(_, interface)| interface.as_str());
    let id = crate::compile::conformance_id(&walk.conformances, &member.name, interface);
    let rec = ExistentialConformance {
        existential: header.map_or(ABSENT, |h| first_member + h as u32),
        member: index,
        interface: builder.intern(interface),
        id: u32::try_from(id).unwrap_or(ABSENT),
    };
    builder.push(rec);
}

/// The bytes member `i` of `members` spans from its offset to its last byte: padding after the
/// last row of a matrix, the last element of an array or the last member of a struct is not
/// counted (offsets are the SPIR-V's, strides checked against it).
fn extent(members: &[MemberOut], i: usize) -> u32 {
    let m = &members[i].rec;
    let children: Vec<usize> = (0..members.len())
        .filter(|&c| members[c].parent == Some(i))
        .collect();
    let element = if !children.is_empty() {
        // A struct's members: absolute offsets, or relative to an array element.
        let base = if m.array_count != 0 { 0 } else { m.offset };
        let members_end = children
            .iter()
            .map(|&c| {
                members[c]
                    .rec
                    .offset
                    .saturating_add(extent(members, c))
                    .saturating_sub(base)
            })
            .max()
            .unwrap_or(0);
        // An existential and its payload span what the SPIR-V declares of them (their size,
        // taken from it), whatever the concrete value packed into them leaves unused.
        if m.flags & (MEMBER_EXISTENTIAL | MEMBER_EXISTENTIAL_PAYLOAD) != 0 {
            members_end.max(m.size)
        } else {
            members_end
        }
    } else if m.matrix_stride != 0 {
        // Row-major (1) matrices are rows of `columns` scalars, others columns of `rows`.
        let (vectors, width) = if m.matrix_layout == 1 {
            (m.rows, m.columns)
        } else {
            (m.columns, m.rows)
        };
        let scalar = ScalarType::from_raw(m.scalar_type).byte_size().unwrap_or(4);
        vectors
            .saturating_sub(1)
            .saturating_mul(m.matrix_stride)
            .saturating_add(width.saturating_mul(scalar))
    } else if m.rows != 0 && m.columns != 0 {
        // A scalar or vector (of an array): its components, unpadded.
        let scalar = ScalarType::from_raw(m.scalar_type).byte_size().unwrap_or(4);
        m.rows.saturating_mul(m.columns).saturating_mul(scalar)
    } else {
        m.size
    };
    match (m.array_count, m.array_stride) {
        (0, _) | (_, 0) => element.min(m.size),
        (count, stride) => count
            .saturating_sub(1)
            .saturating_mul(stride)
            .saturating_add(element.min(stride)),
    }
}

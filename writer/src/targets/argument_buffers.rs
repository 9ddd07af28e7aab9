//! Metal argument buffers' structs (format 1.5, SPEC.md 6.10): every member of each
//! ParameterBlock's argument-buffer struct with its byte offset, size, kind, array count and
//! stride and `[[id(n)]]`, laid out from the emitted text ([`super::metal_layout`]) and checked
//! against the Metal bind view: each resource member and nested argument buffer is a binding of
//! that argument buffer of the same path and kind, at the same id, with the same count.

use super::metal_layout::ArgumentStruct;
use super::walk::Slot;
use slangpack_format::targets::{
    ArgumentBuffer, ArgumentBufferMember, TargetBinding, ARGUMENT_ELEMENT_RELATIVE,
    ARGUMENT_ID_EXPLICIT,
};
use slangpack_format::{ArgumentMemberKind, ReflectionBuilder, Target, TargetBindingKind, ABSENT};

/// One argument buffer's struct, checked, waiting for the target bindings' final order.
pub(crate) struct Pending {
    /// The argument buffer's binding path (string index).
    path: u32,
    /// Its struct; nested argument buffers' pointers already of their kind.
    layout: ArgumentStruct,
    /// Per member: the path (string index) and kind of its own binding, for resources.
    bindings: Vec<Option<(u32, TargetBindingKind)>>,
}

/// Whether a bind-view binding of `kind` can be a member of kind `member` in the code.
fn same_kind(member: ArgumentMemberKind, kind: TargetBindingKind) -> bool {
    use TargetBindingKind as K;
    match member {
        ArgumentMemberKind::Texture => matches!(kind, K::Texture | K::StorageTexture),
        ArgumentMemberKind::Sampler => kind == K::Sampler,
        ArgumentMemberKind::Buffer => {
            matches!(
                kind,
                K::UniformBuffer | K::StorageBuffer | K::ArgumentBuffer
            )
        }
        _ => false,
    }
}

/// Checks the struct of every argument buffer among `records` (the Metal records of `slots`,
/// in slot order) that the code declares (`structs`: by code name, from
/// [`super::metal::argument_structs`]) against the bind view, and returns them to store.
///
/// # Errors
/// A message naming the member and both values where a resource member of the code has no
/// binding of the argument buffer in the bind view, or its id or count differs.
pub(crate) fn check(
    builder: &mut ReflectionBuilder,
    records: &[TargetBinding],
    slots: &[Slot],
    structs: &[(String, ArgumentStruct)],
) -> Result<Vec<Pending>, String> {
    let mut out = Vec::new();
    for (record, slot) in records.iter().zip(slots) {
        if slot.kind != TargetBindingKind::ArgumentBuffer || record.code_name == ABSENT {
            continue;
        }
        let code_name = builder
            .string(record.code_name)
            .unwrap_or_default()
            .to_string();
        let Some((_, layout)) = structs.iter().find(|(n, _)| *n == code_name) else {
            continue;
        };
        let mut layout = layout.clone();
        let id = slot.format;
        let mut bindings = Vec::with_capacity(layout.members.len());
        for m in &mut layout.members {
            let resource = matches!(
                m.kind,
                ArgumentMemberKind::Buffer
                    | ArgumentMemberKind::Texture
                    | ArgumentMemberKind::Sampler
            );
            if !resource {
                bindings.push(None);
                continue;
            }
            // A resource inside an array of structs is one binding of the array's count.
            let full = format!("{}.{}", slot.path, m.path.replace("[]", ""));
            let Some(s) = slots
                .iter()
                .find(|s| s.space == id && s.path == full && same_kind(m.kind, s.kind))
            else {
                return Err(format!(
                    "argument buffer `{}` (id {id}): the code's struct has {} `{}` at byte \
                     {}, and the bind view has no such binding of the argument buffer",
                    slot.path,
                    m.kind.name(),
                    m.path,
                    m.offset
                ));
            };
            if s.kind == TargetBindingKind::ArgumentBuffer {
                m.kind = ArgumentMemberKind::ArgumentBuffer;
            }
            if !m.element_relative {
                let count = m.count.max(1);
                // Past a matrix, Slang's ids count the matrix's vectors, Metal's documented
                // numbering the matrix once: the implicit ids are not compared there.
                let id = if m.after_matrix && !m.explicit_id {
                    s.index
                } else {
                    m.id
                };
                if (s.index, s.count) != (id, count) {
                    return Err(format!(
                        "argument buffer `{}` (id {id}): `{}` is [[id({})]] of count {} in \
                         Slang's Metal layout, [[id({})]] of count {count} in the code's \
                         struct by Metal's rules",
                        slot.path, m.path, s.index, s.count, m.id
                    ));
                }
            }
            bindings.push(Some((builder.intern(&full), s.kind)));
        }
        out.push(Pending {
            path: builder.intern(&slot.path),
            layout,
            bindings,
        });
    }
    Ok(out)
}

/// Appends the records of `pending` to `builder`, whose target bindings `bindings` (the final
/// order, the first at index `first_binding`) are stored.
pub(crate) fn push(
    builder: &mut ReflectionBuilder,
    pending: Vec<Pending>,
    first_binding: u32,
    bindings: &[TargetBinding],
) {
    let index_of = |path: u32, kind: TargetBindingKind| {
        bindings
            .iter()
            .position(|b| {
                b.target == Target::Metal.to_raw() && b.path == path && b.kind == kind.to_raw()
            })
            .map_or(ABSENT, |i| first_binding + i as u32)
    };
    let mut found: Vec<(u32, Pending)> = pending
        .into_iter()
        .map(|p| (index_of(p.path, TargetBindingKind::ArgumentBuffer), p))
        .filter(|(i, _)| *i != ABSENT)
        .collect();
    found.sort_by_key(|(i, _)| *i);
    found.dedup_by_key(|(i, _)| *i);
    for (target_binding, p) in found {
        let first_member = builder.table_len::<ArgumentBufferMember>();
        for (m, binding) in p.layout.members.iter().zip(&p.bindings) {
            let path = builder.intern(&m.path);
            let mut flags = 0;
            if m.explicit_id {
                flags |= ARGUMENT_ID_EXPLICIT;
            }
            if m.element_relative {
                flags |= ARGUMENT_ELEMENT_RELATIVE;
            }
            builder.push(ArgumentBufferMember {
                path,
                kind: m.kind.to_raw(),
                offset: m.offset,
                size: m.size,
                alignment: m.alignment,
                count: m.count,
                stride: m.stride,
                id: m.id,
                flags,
                target_binding: binding.map_or(ABSENT, |(path, kind)| index_of(path, kind)),
            });
        }
        builder.push(ArgumentBuffer {
            target_binding,
            size: p.layout.size,
            alignment: p.layout.alignment,
            first_member,
            member_count: p.layout.members.len() as u32,
        });
    }
}

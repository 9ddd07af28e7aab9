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
/// Past a matrix or an existential, the id of a member the code gives no `[[id(n)]]` is the
/// one Metal assigns from the code by Apple's rules (a matrix is one member, one id; an
/// existential's type id, witness-table id and payload words one id each), which a
/// `MTLArgumentEncoder` takes; Slang's Metal layout counts the matrix's vectors there, and
/// nothing for the existential. The member's record and slot take the code's id (`index`).
///
/// # Errors
/// A message naming the member and both values where a resource member of the code has no
/// binding of the argument buffer in the bind view, or its id or count differs (other than
/// an implicit id past a matrix or an existential).
pub(crate) fn check(
    builder: &mut ReflectionBuilder,
    records: &mut [TargetBinding],
    slots: &mut [Slot],
    structs: &[(String, ArgumentStruct)],
) -> Result<Vec<Pending>, String> {
    let mut out = Vec::new();
    // (slot, the code's id) of the members past a matrix whose ids Slang numbers otherwise.
    let mut renumbered: Vec<(usize, u32)> = Vec::new();
    for (record, slot) in records.iter().zip(slots.iter()) {
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
            let Some((at, s)) = slots
                .iter()
                .enumerate()
                .find(|(_, s)| s.space == id && s.path == full && same_kind(m.kind, s.kind))
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
                // Past a matrix, Slang's ids count the matrix's vectors, Metal's numbering of
                // the code the matrix once; past an existential, Slang's ids count nothing of
                // it, Metal's its header and payload words: the code's id is stored.
                let implicit_past_renumbered = m.after_renumbered && !m.explicit_id;
                if implicit_past_renumbered && s.count == count && s.index != m.id {
                    renumbered.push((at, m.id));
                } else if (s.index, s.count) != (m.id, count) {
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
    for (at, id) in renumbered {
        if let (Some(record), Some(slot)) = (records.get_mut(at), slots.get_mut(at)) {
            record.index = id;
            slot.index = id;
        }
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

#[cfg(test)]
mod tests {
    use super::super::metal_layout::ArgumentMember;
    use super::*;

    fn slot(path: &str, kind: TargetBindingKind, space: u32, index: u32) -> Slot {
        Slot {
            path: path.into(),
            kind,
            space,
            index,
            register_class: 0,
            count: 1,
            flags: 0,
            min_binding_size: 0,
            view_dimension: 0,
            sample_type: 0,
            format: 0,
            layout: None,
        }
    }

    fn member(path: &str, kind: ArgumentMemberKind, offset: u32, id: u32) -> ArgumentMember {
        ArgumentMember {
            path: path.into(),
            kind,
            offset,
            size: if kind == ArgumentMemberKind::Data {
                16
            } else {
                8
            },
            alignment: 8,
            count: 0,
            stride: 0,
            id,
            explicit_id: false,
            element_relative: false,
            after_renumbered: false,
        }
    }

    /// Checks argument buffer `gAb` (code `gAb_1`, id 0) whose struct holds `members` against
    /// a bind view with its texture `gAb.t` at `[[id(1)]]` and its nested block `gAb.inner` at
    /// `[[id(2)]]`.
    fn checked(members: Vec<ArgumentMember>) -> Result<Vec<Pending>, String> {
        checked_with_records(members).0
    }

    /// [`checked`], with the records and slots after the check.
    fn checked_with_records(
        members: Vec<ArgumentMember>,
    ) -> (Result<Vec<Pending>, String>, Vec<TargetBinding>, Vec<Slot>) {
        let mut b = ReflectionBuilder::new();
        let code = b.intern("gAb_1");
        let record = TargetBinding {
            code_name: code,
            ..TargetBinding::default()
        };
        let mut slots = vec![
            slot("gAb", TargetBindingKind::ArgumentBuffer, ABSENT, 0),
            slot("gAb.t", TargetBindingKind::Texture, 0, 1),
            slot("gAb.inner", TargetBindingKind::ArgumentBuffer, 0, 2),
        ];
        let layout = ArgumentStruct {
            size: 32,
            alignment: 16,
            members,
        };
        let other = TargetBinding {
            code_name: ABSENT,
            ..TargetBinding::default()
        };
        let mut records = vec![record, other, other];
        let result = check(
            &mut b,
            &mut records,
            &mut slots,
            &[("gAb_1".to_string(), layout)],
        );
        (result, records, slots)
    }

    #[test]
    fn resource_members_are_matched_with_the_bind_view_and_nested_blocks_get_their_kind() {
        use ArgumentMemberKind as K;
        let ok = checked(vec![
            member("tint", K::Data, 0, 0),
            member("t", K::Texture, 16, 1),
            member("inner", K::Buffer, 24, 2),
        ])
        .unwrap();
        let kinds: Vec<K> = ok[0].layout.members.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, [K::Data, K::Texture, K::ArgumentBuffer]);
        assert!(ok[0].bindings[0].is_none() && ok[0].bindings[1].is_some());

        // An id the bind view does not give, or a resource it does not list, fails the bake
        // naming both sides.
        let e = checked(vec![member("t", K::Texture, 16, 3)]).err().unwrap();
        assert!(
            e.contains("`t` is [[id(1)]] of count 1 in Slang's Metal layout, [[id(3)]]"),
            "{e}"
        );
        let e = checked(vec![member("u", K::Sampler, 16, 1)]).err().unwrap();
        assert!(
            e.contains("has sampler `u` at byte 16, and the bind view"),
            "{e}"
        );
        // Past a matrix, an implicit id is the code's (Metal's numbering), not Slang's: the
        // binding takes it. An explicit id must agree.
        let mut late = member("t", K::Texture, 16, 3);
        late.after_renumbered = true;
        let (ok, records, slots) = checked_with_records(vec![late.clone()]);
        assert!(ok.is_ok());
        assert_eq!((records[1].index, slots[1].index), (3, 3));
        late.explicit_id = true;
        assert!(checked(vec![late]).is_err());
    }
}

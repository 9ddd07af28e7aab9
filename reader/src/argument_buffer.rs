//! Metal argument buffers' structs (format 1.5, SPEC.md 6.10): where each member of a
//! ParameterBlock's tier-2 argument buffer sits, for an engine that encodes one by hand
//! (buffers as GPU addresses, textures and samplers as `MTLResourceID`s, plain data by Metal's
//! layout rules).

use crate::TargetBindView;
use slangpack_format::targets::{ArgumentBuffer, ArgumentBufferMember, TargetBinding};

/// The struct of one Metal argument buffer ([`TargetBindView::argument_buffer`]): its size and
/// every member, nested structs' and array elements' included, in pre-order. Borrowed from the
/// loaded entry; every accessor is allocation-free and in range (checked at load).
#[derive(Debug, Clone, Copy)]
pub struct ArgumentBufferView<'a> {
    view: TargetBindView<'a>,
    record: &'a ArgumentBuffer,
    members: &'a [ArgumentBufferMember],
}

impl<'a> ArgumentBufferView<'a> {
    /// The stored record.
    #[must_use]
    pub fn record(&self) -> &'a ArgumentBuffer {
        self.record
    }

    /// Size in bytes of the struct: the bytes to allocate for one argument buffer.
    #[must_use]
    pub fn size(&self) -> u32 {
        self.record.size
    }

    /// Alignment in bytes of the struct.
    #[must_use]
    pub fn alignment(&self) -> u32 {
        self.record.alignment
    }

    /// Every member in pre-order: a struct's members follow it under its path, an array of
    /// structs' element members under `path[]` with element-relative offsets.
    #[must_use]
    pub fn members(&self) -> &'a [ArgumentBufferMember] {
        self.members
    }

    /// A member's path from the argument buffer (`detail.map`, `taps[].offset`).
    #[must_use]
    pub fn path(&self, member: &ArgumentBufferMember) -> &'a str {
        self.view.reflection().string(member.path)
    }

    /// The member at `path` (linear in the members; no allocation).
    #[must_use]
    pub fn member(&self, path: &str) -> Option<&'a ArgumentBufferMember> {
        self.members.iter().find(|m| self.path(m) == path)
    }

    /// A resource member's own binding in the Metal bind view (a buffer, texture, sampler or
    /// nested argument buffer, whose [`TargetBindView::argument_buffer`] lists its members);
    /// `None` for data and structs.
    #[must_use]
    pub fn binding(&self, member: &ArgumentBufferMember) -> Option<&'a TargetBinding> {
        self.view
            .reflection()
            .target_bindings()
            .get(member.target_binding as usize)
    }
}

impl<'a> TargetBindView<'a> {
    /// The struct of a Metal argument buffer (`binding` one of this view's records or a copy
    /// of one, of kind
    /// [`slangpack_format::TargetBindingKind::ArgumentBuffer`]): each member's byte offset,
    /// size, kind, array count and stride and `[[id(n)]]`, laid out from the Metal code and
    /// checked against this bind view at bake time. `None` for other bindings and in packages
    /// older than 1.5.
    ///
    /// Cost: a binary search; no allocation.
    #[must_use]
    pub fn argument_buffer(&self, binding: &TargetBinding) -> Option<ArgumentBufferView<'a>> {
        let index = self.record_index(binding)?;
        let view = self.reflection();
        let all = view.argument_buffers();
        let i = all
            .binary_search_by_key(&index, |b| b.target_binding)
            .ok()?;
        let record = all.get(i)?;
        let first = record.first_member as usize;
        let members = view
            .argument_buffer_members()
            .get(first..first.saturating_add(record.member_count as usize))
            .unwrap_or(&[]);
        Some(ArgumentBufferView {
            view: *self,
            record,
            members,
        })
    }

    /// [`Self::argument_buffer`] of the binding whose parameter path is `path` (`gMaterial`).
    #[must_use]
    pub fn find_argument_buffer(&self, path: &str) -> Option<ArgumentBufferView<'a>> {
        self.bindings()
            .iter()
            .filter(|b| self.path(b) == path)
            .find_map(|b| self.argument_buffer(b))
    }
}

//! [`BindView`]: the bind-time tables of an entry, with name lookup through the baked hash
//! index. Every accessor is O(1) or O(log n) and allocates nothing.

use crate::view::ReflectionView;
use slangpack_format::bind::*;
use slangpack_format::{TableKind, ABSENT};

/// What an engine binds with: descriptor bindings at absolute Vulkan sets and bindings,
/// set layouts, push-constant ranges, buffer member layouts, vertex inputs and specialization
/// constants. Obtained from [`ReflectionView::bind`]; an entry baked without a bind view gives
/// empty slices.
#[derive(Debug, Clone, Copy)]
pub struct BindView<'a> {
    pub(crate) view: ReflectionView<'a>,
}

impl<'a> ReflectionView<'a> {
    /// The bind view of this reflection.
    #[must_use]
    pub fn bind(&self) -> BindView<'a> {
        BindView { view: *self }
    }
}

impl<'a> BindView<'a> {
    /// Program-wide facts (set slot count, global uniform buffer, stages), if baked.
    #[must_use]
    pub fn summary(&self) -> Option<&'a BindSummary> {
        self.view
            .bind_table::<BindSummary>(TableKind::BindSummary)
            .first()
    }

    /// Length the pipeline layout's set array must have (highest set + 1); holes between
    /// populated sets take empty set layouts.
    #[must_use]
    pub fn set_slot_count(&self) -> u32 {
        self.summary().map_or(0, |s| s.set_slot_count)
    }

    /// Every descriptor binding, sorted by `(set, binding)`.
    #[must_use]
    pub fn bindings(&self) -> &'a [DescriptorBinding] {
        self.view.bind_table(TableKind::DescriptorBindings)
    }

    /// The populated sets, sorted by set number.
    #[must_use]
    pub fn sets(&self) -> &'a [DescriptorSetLayout] {
        self.view.bind_table(TableKind::DescriptorSetLayouts)
    }

    /// The bindings of set `set` (binary search; `None` for a hole or a set past the end).
    #[must_use]
    pub fn set(&self, set: u32) -> Option<&'a [DescriptorBinding]> {
        self.set_layout(set).map(|s| s.bindings())
    }

    /// Set `set` with its flags (binary search; `None` for a hole or a set past the end).
    #[must_use]
    pub fn set_layout(&self, set: u32) -> Option<SetLayout<'a>> {
        let sets = self.sets();
        let i = sets.binary_search_by_key(&set, |s| s.set).ok()?;
        let record = sets.get(i)?;
        Some(self.layout_of(record))
    }

    /// One [`SetLayout`] per slot of the pipeline layout's set array, set 0 to
    /// [`Self::set_slot_count`] - 1: holes (set numbers no binding uses) come as empty layouts,
    /// which a pipeline layout still needs.
    #[must_use]
    pub fn set_layouts(&self) -> SetLayoutIter<'a> {
        SetLayoutIter {
            view: *self,
            sets: self.sets(),
            next: 0,
            end: self.set_slot_count(),
        }
    }

    fn layout_of(&self, record: &'a DescriptorSetLayout) -> SetLayout<'a> {
        let first = record.first_binding as usize;
        let bindings = self
            .bindings()
            .get(first..first.saturating_add(record.binding_count as usize))
            .unwrap_or(&[]);
        SetLayout {
            set: record.set,
            flags: record.set_flags(),
            bindings,
        }
    }

    /// Push-constant ranges (at most one: the writer refuses more).
    #[must_use]
    pub fn push_constants(&self) -> &'a [PushConstantRange] {
        self.view.bind_table(TableKind::PushConstantRanges)
    }

    /// Shader-record blocks of ray-tracing stages (`[[vk::shader_record]]`): not descriptors;
    /// the engine writes their data into each shader record of the shader binding table,
    /// after the shader group handle, at the offsets of their buffer layouts.
    #[must_use]
    pub fn shader_record_blocks(&self) -> &'a [ShaderRecordBlock] {
        self.view.bind_table(TableKind::ShaderRecordBlocks)
    }

    /// Every buffer layout (uniform buffers, parameter-block and global implicit buffers,
    /// push-constant blocks, structured-buffer elements).
    #[must_use]
    pub fn buffer_layouts(&self) -> &'a [BufferLayout] {
        self.view.bind_table(TableKind::BufferLayouts)
    }

    /// The buffer layout a binding or push-constant range refers to (`None` when absent).
    #[must_use]
    pub fn buffer_layout(&self, index: u32) -> Option<&'a BufferLayout> {
        if index == ABSENT {
            return None;
        }
        self.buffer_layouts().get(index as usize)
    }

    /// The members of a buffer layout, flattened in pre-order.
    #[must_use]
    pub fn members(&self, layout: &BufferLayout) -> &'a [BufferMember] {
        let first = layout.first_member as usize;
        self.all_members()
            .get(first..first + layout.member_count as usize)
            .unwrap_or(&[])
    }

    fn all_members(&self) -> &'a [BufferMember] {
        self.view.bind_table(TableKind::BufferMembers)
    }

    /// The user attributes of a member.
    #[must_use]
    pub fn attributes(&self, member: &BufferMember) -> &'a [MemberAttribute] {
        let first = member.first_attribute as usize;
        self.view
            .bind_table::<MemberAttribute>(TableKind::MemberAttributes)
            .get(first..first + member.attribute_count as usize)
            .unwrap_or(&[])
    }

    /// Every vertex input, sorted by entry point and location.
    #[must_use]
    pub fn all_vertex_inputs(&self) -> &'a [VertexInput] {
        self.view.bind_table(TableKind::VertexInputs)
    }

    /// The vertex inputs of entry point `entry_point` (its index in the entry), by location.
    #[must_use]
    pub fn vertex_inputs(&self, entry_point: u32) -> &'a [VertexInput] {
        let all = self.all_vertex_inputs();
        let start = all.partition_point(|v| v.entry_point < entry_point);
        let end = all.partition_point(|v| v.entry_point <= entry_point);
        all.get(start..end).unwrap_or(&[])
    }

    /// Specialization constants.
    #[must_use]
    pub fn specialization_constants(&self) -> &'a [SpecializationConstant] {
        self.view.bind_table(TableKind::SpecializationConstants)
    }

    /// A string of the blob (names, paths): `""` for an absent index.
    #[must_use]
    pub fn string(&self, index: u32) -> &'a str {
        self.view.string(index)
    }

    /// The binding at `path` (`gScene.material.albedo`): O(1) expected through the baked
    /// hash index, no allocation. The sampler of a texture and a sampler sharing one binding
    /// finds that (combined image sampler) binding too.
    #[must_use]
    pub fn binding(&self, path: &str) -> Option<&'a DescriptorBinding> {
        let bindings = self.bindings();
        self.lookup(path, NameKind::Binding, |i| {
            let b = bindings.get(i)?;
            (self.string(b.path) == path || self.string(b.sampler_path) == path).then_some(b)
        })
    }

    /// The buffer layout named `name` (the owning parameter's path, `gScene.material`).
    #[must_use]
    pub fn buffer(&self, name: &str) -> Option<&'a BufferLayout> {
        let layouts = self.buffer_layouts();
        self.lookup(name, NameKind::Buffer, |i| {
            let l = layouts.get(i)?;
            (self.string(l.name) == name).then_some(l)
        })
    }

    /// The buffer member at `path` — the buffer's name, a dot, the member's path
    /// (`gScene.view.light.sunDirection`, `gDraw.model`) — with its buffer layout. Members
    /// inside arrays of structs are not indexed (address them through the array member).
    #[must_use]
    pub fn buffer_member(&self, path: &str) -> Option<(&'a BufferLayout, &'a BufferMember)> {
        let members = self.all_members();
        let layouts = self.buffer_layouts();
        self.lookup(path, NameKind::Member, |i| {
            let m = members.get(i)?;
            // Layouts are stored in member order: the owner is the last one starting at or
            // before the member.
            let owner = layouts.partition_point(|l| l.first_member as usize <= i);
            let layout = layouts.get(owner.checked_sub(1)?)?;
            let buffer = self.string(layout.name);
            let rest = if buffer.is_empty() {
                path
            } else {
                path.strip_prefix(buffer)?.strip_prefix('.')?
            };
            (self.string(m.path) == rest).then_some((layout, m))
        })
    }

    /// Probes the name index for `name` with target kind `kind`; `check` confirms a candidate.
    fn lookup<T>(
        &self,
        name: &str,
        kind: NameKind,
        check: impl Fn(usize) -> Option<T>,
    ) -> Option<T> {
        let slots = self.view.bind_table::<NameIndexSlot>(TableKind::NameIndex);
        probe_name_index(slots, name, kind).find_map(|i| check(i as usize))
    }
}

/// One descriptor set of the pipeline layout: its number, its bindings (sorted by binding
/// number, zero-length arrays included) and its flags. From [`BindView::set_layout`] and
/// [`BindView::set_layouts`]; a hole has no bindings and no flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetLayout<'a> {
    set: u32,
    flags: SetFlags,
    bindings: &'a [DescriptorBinding],
}

impl<'a> SetLayout<'a> {
    /// The Vulkan set number.
    #[must_use]
    pub fn set(&self) -> u32 {
        self.set
    }

    /// The bindings, sorted by binding number (zero-length arrays included: they reserve a
    /// number but are no descriptor).
    #[must_use]
    pub fn bindings(&self) -> &'a [DescriptorBinding] {
        self.bindings
    }

    /// The set's flags as stored.
    #[must_use]
    pub fn flags(&self) -> SetFlags {
        self.flags
    }

    /// Whether the set holds an unbounded array, so its layout wants update-after-bind
    /// (`VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT`, and the partially-bound
    /// and update-after-bind binding flags on the array).
    #[must_use]
    pub fn update_after_bind(&self) -> bool {
        self.flags.contains(SetFlags::HAS_UNBOUNDED)
    }

    /// Whether the set is a hole: no binding uses its number.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bindings.is_empty()
    }
}

/// Iterator over every set slot of a pipeline layout ([`BindView::set_layouts`]).
#[derive(Debug, Clone)]
pub struct SetLayoutIter<'a> {
    view: BindView<'a>,
    sets: &'a [DescriptorSetLayout],
    next: u32,
    end: u32,
}

impl<'a> Iterator for SetLayoutIter<'a> {
    type Item = SetLayout<'a>;

    fn next(&mut self) -> Option<SetLayout<'a>> {
        if self.next >= self.end {
            return None;
        }
        let set = self.next;
        self.next += 1;
        // Populated sets are sorted: the next one is at the front until it is passed.
        while let Some((first, rest)) = self.sets.split_first() {
            if first.set >= set {
                break;
            }
            self.sets = rest;
        }
        Some(match self.sets.first() {
            Some(record) if record.set == set => self.view.layout_of(record),
            _ => SetLayout {
                set,
                flags: SetFlags::empty(),
                bindings: &[],
            },
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end.saturating_sub(self.next) as usize;
        (left, Some(left))
    }
}

impl ExactSizeIterator for SetLayoutIter<'_> {}

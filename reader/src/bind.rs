//! [`BindView`]: the bind-time tables of an entry, with name lookup through the reader's table
//! of its names, and handles that resolve a name once. Every accessor is O(1) or O(log n) and
//! allocates nothing.

use crate::view::ReflectionView;
use slangpack_format::bind::*;
use slangpack_format::{StringRef, ABSENT};

mod names;
#[cfg(test)]
mod tests;
use crate::names::{same_bytes, NameLookup};

/// What an engine binds with: descriptor bindings at absolute Vulkan sets and bindings,
/// set layouts, push-constant ranges, buffer member layouts, vertex inputs and specialization
/// constants. Obtained from [`ReflectionView::bind`]; an entry baked without a bind view gives
/// empty slices.
///
/// Name lookups hash a few words of the name and read the table the load built of the baked
/// index (the reader's own name table, built once per blob); per-frame code that looks the
/// same names up again resolves them once into a [`BindingHandle`] or [`MemberHandle`] and
/// reads through those (a bounds-checked index, no hashing).
#[derive(Debug, Clone, Copy)]
pub struct BindView<'a> {
    pub(crate) view: ReflectionView<'a>,
    names: &'a [NameIndexSlot],
    bindings: &'a [DescriptorBinding],
    layouts: &'a [BufferLayout],
    members: &'a [BufferMember],
    refs: &'a [StringRef],
    strings: &'a [u8],
    resolved: NameLookup<'a>,
}

/// A descriptor binding resolved by name once ([`BindView::binding_handle`]); reading through
/// it ([`BindView::binding_at`]) is an index, no hashing. Valid for the bind view it came from
/// (the same entry's reflection).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BindingHandle(u32);

impl BindingHandle {
    /// The binding's index in [`BindView::bindings`].
    #[must_use]
    pub fn index(self) -> u32 {
        self.0
    }
}

/// A buffer member resolved by name once ([`BindView::member_handle`]): its buffer layout and
/// member indices. Reading through it ([`BindView::member_at`]) is two indexes, no hashing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemberHandle {
    layout: u32,
    member: u32,
}

impl MemberHandle {
    /// The buffer layout's index in [`BindView::buffer_layouts`].
    #[must_use]
    pub fn layout_index(self) -> u32 {
        self.layout
    }

    /// The member's index among all buffer members ([`ReflectionView::buffer_members`]).
    #[must_use]
    pub fn member_index(self) -> u32 {
        self.member
    }
}

impl<'a> ReflectionView<'a> {
    /// The bind view of this reflection.
    #[must_use]
    pub fn bind(&self) -> BindView<'a> {
        BindView {
            view: *self,
            names: self.name_index(),
            bindings: self.descriptor_bindings(),
            layouts: self.buffer_layouts(),
            members: self.buffer_members(),
            refs: self.string_refs(),
            strings: self.string_bytes(),
            resolved: self.blob().names.lookup(),
        }
    }
}

impl<'a> BindView<'a> {
    /// Program-wide facts (set slot count, global uniform buffer, stages), if baked.
    #[must_use]
    pub fn summary(&self) -> Option<&'a BindSummary> {
        self.view.bind_summary().first()
    }

    /// Length the pipeline layout's set array must have (highest set + 1); holes between
    /// populated sets take empty set layouts.
    #[must_use]
    pub fn set_slot_count(&self) -> u32 {
        self.summary().map_or(0, |s| s.set_slot_count)
    }

    /// Every descriptor binding of every pipeline, sorted by `(set, binding)`: bindings of
    /// different pipelines may share a number ([`crate::Entry::pipeline`] gives one
    /// pipeline's).
    #[must_use]
    pub fn bindings(&self) -> &'a [DescriptorBinding] {
        self.bindings
    }

    /// The populated sets, sorted by set number.
    #[must_use]
    pub fn sets(&self) -> &'a [DescriptorSetLayout] {
        self.view.descriptor_set_layouts()
    }

    /// The bindings of set `set` of every pipeline (binary search; `None` for a hole or a set
    /// past the end).
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

    /// Push-constant ranges of every pipeline (at most one per entry point; ranges of
    /// different entry points may share bytes — [`crate::Entry::pipeline`] gives one
    /// pipeline's).
    #[must_use]
    pub fn push_constants(&self) -> &'a [PushConstantRange] {
        self.view.push_constant_ranges()
    }

    /// Shader-record blocks of ray-tracing stages (`[[vk::shader_record]]`): not descriptors;
    /// the engine writes their data into each shader record of the shader binding table,
    /// after the shader group handle, at the offsets of their buffer layouts.
    #[must_use]
    pub fn shader_record_blocks(&self) -> &'a [ShaderRecordBlock] {
        self.view.shader_record_blocks()
    }

    /// Every buffer layout (uniform buffers, parameter-block and global implicit buffers,
    /// push-constant blocks, structured-buffer elements, the data behind buffer device
    /// addresses and heap buffers).
    #[must_use]
    pub fn buffer_layouts(&self) -> &'a [BufferLayout] {
        self.layouts
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

    /// Every type a dynamically dispatched existential may hold (an interface-typed value in a
    /// buffer with several conforming types), in member order: the header, the member
    /// holding the type's data ([`slangpack_format::bind::MEMBER_CONFORMANCE`], named after
    /// the type) and the conformance id to write into the first word of the header's
    /// `witnessId`. Empty when there is none, and in packages before 1.8.
    #[must_use]
    pub fn conformances(&self) -> &'a [ExistentialConformance] {
        self.view.existential_conformances()
    }

    /// The conformance of the member at `member_index` (its index among all buffer members,
    /// [`crate::MemberHandle::member_index`]), `None` for a member that holds no conforming
    /// type's data.
    #[must_use]
    pub fn conformance(&self, member_index: u32) -> Option<&'a ExistentialConformance> {
        self.conformances()
            .iter()
            .find(|c| c.member == member_index)
    }

    pub(crate) fn all_members(&self) -> &'a [BufferMember] {
        self.members
    }

    /// Every member that refers to another buffer layout (a buffer device address or a
    /// descriptor handle of a buffer), sorted by member (SPEC.md 6.11); empty before 1.7.
    #[must_use]
    pub fn member_pointees(&self) -> &'a [MemberPointee] {
        self.view.member_pointees()
    }

    /// The layout that member `member_index` (an index among all buffer members, as
    /// [`MemberHandle::member_index`] gives) points at: a [`BufferKind::Pointee`] for a buffer
    /// device address, a [`BufferKind::Heap`] for a descriptor handle of a buffer; `None` for
    /// a member that refers to nothing or whose pointee the package does not state. Pointee
    /// links may form cycles (a linked-list node points at its own layout).
    #[must_use]
    pub fn pointee(&self, member_index: u32) -> Option<&'a BufferLayout> {
        let links = self.member_pointees();
        let at = links
            .binary_search_by_key(&member_index, |p| p.member)
            .ok()?;
        self.buffer_layout(links.get(at)?.buffer_layout)
    }

    /// The buffers whose descriptors the shader takes from heap binding `heap` (a binding
    /// flagged [`BindingFlags::DESCRIPTOR_HEAP`]): the [`BufferKind::Heap`] layouts at its set
    /// and binding.
    pub fn heap_buffers(
        &self,
        heap: &DescriptorBinding,
    ) -> impl Iterator<Item = &'a BufferLayout> + use<'a> {
        let (set, binding) = (heap.set, heap.binding);
        self.layouts.iter().filter(move |l| {
            l.buffer_kind() == BufferKind::Heap && l.set == set && l.binding == binding
        })
    }

    /// The user attributes of a member.
    #[must_use]
    pub fn attributes(&self, member: &BufferMember) -> &'a [MemberAttribute] {
        let first = member.first_attribute as usize;
        self.view
            .member_attributes()
            .get(first..first + member.attribute_count as usize)
            .unwrap_or(&[])
    }

    /// Every vertex input, sorted by entry point and location.
    #[must_use]
    pub fn all_vertex_inputs(&self) -> &'a [VertexInput] {
        self.view.vertex_inputs()
    }

    /// The vertex inputs of entry point `entry_point` (its index in the entry), by location.
    #[must_use]
    pub fn vertex_inputs(&self, entry_point: u32) -> &'a [VertexInput] {
        let all = self.all_vertex_inputs();
        let start = all.partition_point(|v| v.entry_point < entry_point);
        let end = all.partition_point(|v| v.entry_point <= entry_point);
        all.get(start..end).unwrap_or(&[])
    }

    /// Every member layout of a further target's buffer (HLSL, Metal), sorted by target
    /// binding (since 1.4; empty in older packages). Reach one through
    /// [`crate::TargetBindView::buffer_layout`].
    #[must_use]
    pub fn target_buffers(&self) -> &'a [slangpack_format::targets::TargetBuffer] {
        self.view.target_buffers()
    }

    /// Every member of the further targets' buffers, parallel per buffer to the Vulkan
    /// layout's members (since 1.4; empty in older packages).
    #[must_use]
    pub fn target_members(&self) -> &'a [slangpack_format::targets::TargetMember] {
        self.view.target_members()
    }

    /// Every fragment output, sorted by entry point, location and index (since 1.3; empty in
    /// older packages).
    #[must_use]
    pub fn all_fragment_outputs(&self) -> &'a [FragmentOutput] {
        self.view.fragment_outputs()
    }

    /// The colour outputs of entry point `entry_point` (its index in the entry), by location:
    /// what its pipeline's colour attachments must match (one per location, of a format with
    /// the output's numeric type). Empty for a stage other than fragment.
    #[must_use]
    pub fn fragment_outputs(&self, entry_point: u32) -> &'a [FragmentOutput] {
        let all = self.all_fragment_outputs();
        let start = all.partition_point(|o| o.entry_point < entry_point);
        let end = all.partition_point(|o| o.entry_point <= entry_point);
        all.get(start..end).unwrap_or(&[])
    }

    /// Every entry point's execution modes, in entry-point order (since 1.3; empty in older
    /// packages).
    #[must_use]
    pub fn all_execution_modes(&self) -> &'a [ExecutionModes] {
        self.view.execution_modes()
    }

    /// The execution modes of entry point `entry_point`: tessellation, geometry and mesh
    /// primitives and limits, early fragment tests, the depth mode, input-attachment use.
    /// `None` in a package older than 1.3.
    #[must_use]
    pub fn execution_modes(&self, entry_point: u32) -> Option<&'a ExecutionModes> {
        self.all_execution_modes().get(entry_point as usize)
    }

    /// Specialization constants.
    #[must_use]
    pub fn specialization_constants(&self) -> &'a [SpecializationConstant] {
        self.view.specialization_constants()
    }

    /// A string of the blob (names, paths): `""` for an absent index.
    #[must_use]
    pub fn string(&self, index: u32) -> &'a str {
        self.view.string(index)
    }

    /// The bytes of string `index` (`&[]` when absent).
    #[inline]
    fn string_bytes(&self, index: u32) -> &'a [u8] {
        match self.refs.get(index as usize) {
            Some(r) => {
                let start = r.offset as usize;
                self.strings
                    .get(start..start.saturating_add(r.len as usize))
                    .unwrap_or(&[])
            }
            None => &[],
        }
    }

    /// The binding at `path` (`gScene.material.albedo`): O(1) expected through the baked
    /// hash index, no allocation. The sampler of a texture and a sampler sharing one binding
    /// finds that (combined image sampler) binding too.
    #[must_use]
    pub fn binding(&self, path: &str) -> Option<&'a DescriptorBinding> {
        self.binding_handle(path).and_then(|h| self.binding_at(h))
    }

    /// Resolves the binding at `path` once into a handle (see [`BindView::binding`]).
    #[inline]
    #[must_use]
    pub fn binding_handle(&self, path: &str) -> Option<BindingHandle> {
        self.lookup(
            path,
            NameKind::Binding,
            |i, _| Some(BindingHandle(i)),
            |view, path, i| {
                let b = view.bindings.get(i)?;
                let found = same_bytes(view.string_bytes(b.path), path.as_bytes())
                    || same_bytes(view.string_bytes(b.sampler_path), path.as_bytes());
                found.then_some(BindingHandle(i as u32))
            },
        )
    }

    /// The binding a handle names: one bounds-checked index (`None` only for a handle from
    /// another bind view).
    #[inline]
    #[must_use]
    pub fn binding_at(&self, handle: BindingHandle) -> Option<&'a DescriptorBinding> {
        self.bindings.get(handle.0 as usize)
    }

    /// The buffer layout named `name` (the owning parameter's path, `gScene.material`).
    #[must_use]
    pub fn buffer(&self, name: &str) -> Option<&'a BufferLayout> {
        let layouts = self.layouts;
        self.lookup(
            name,
            NameKind::Buffer,
            |i, _| layouts.get(i as usize),
            |view, name, i| {
                let l = view.layouts.get(i)?;
                same_bytes(view.string_bytes(l.name), name.as_bytes()).then_some(l)
            },
        )
    }

    /// The buffer member at `path` — the buffer's name, a dot, the member's path
    /// (`gScene.view.light.sunDirection`, `gDraw.model`) — with its buffer layout. Members
    /// inside arrays of structs are not indexed (address them through the array member).
    #[must_use]
    pub fn buffer_member(&self, path: &str) -> Option<(&'a BufferLayout, &'a BufferMember)> {
        self.member_handle(path).and_then(|h| self.member_at(h))
    }

    /// Resolves the buffer member at `path` once into a handle (see
    /// [`BindView::buffer_member`]).
    #[must_use]
    pub fn member_handle(&self, path: &str) -> Option<MemberHandle> {
        let hit = |member, layout| Some(MemberHandle { layout, member });
        self.lookup(path, NameKind::Member, hit, |view, path, i| {
            let path = path.as_bytes();
            let m = view.members.get(i)?;
            let layout_index = view.owner(i)?;
            let layout = view.layouts.get(layout_index)?;
            let buffer = view.string_bytes(layout.name);
            let rest = if buffer.is_empty() {
                path
            } else {
                let (head, rest) = path.split_at_checked(buffer.len())?;
                if !same_bytes(head, buffer) {
                    return None;
                }
                rest.strip_prefix(b".")?
            };
            same_bytes(view.string_bytes(m.path), rest).then_some(MemberHandle {
                layout: layout_index as u32,
                member: i as u32,
            })
        })
    }

    /// The buffer layout and member a handle names: two bounds-checked indexes (`None` only
    /// for a handle from another bind view).
    #[inline]
    #[must_use]
    pub fn member_at(&self, handle: MemberHandle) -> Option<(&'a BufferLayout, &'a BufferMember)> {
        Some((
            self.layouts.get(handle.layout as usize)?,
            self.members.get(handle.member as usize)?,
        ))
    }

    /// This view without the reader's name table: every lookup probes the baked index.
    #[cfg(test)]
    pub(crate) fn with_unresolved_names(self) -> Self {
        Self {
            resolved: NameLookup::EMPTY,
            ..self
        }
    }

    /// Whether the load built the reader's name table for this view.
    #[cfg(test)]
    pub(crate) fn has_name_table(&self) -> bool {
        self.resolved.is_built()
    }

    /// The index of the buffer layout owning member `member`: layouts are stored in member
    /// order, so the last one starting at or before it.
    fn owner(&self, member: usize) -> Option<usize> {
        self.layouts
            .partition_point(|l| l.first_member as usize <= member)
            .checked_sub(1)
    }

    /// Finds `name` of kind `kind`: in the reader's [`crate::names::NameTable`] where the load built one
    /// (`hit(index, layout)`), else by probing the baked index and confirming each candidate
    /// with `check(view, name, index)` against its records. `check` captures nothing (a
    /// function, not a closure over the caller's state), so the table's path keeps nothing
    /// aside for the probe's: the probe is a call with the lookup's own arguments.
    #[inline]
    fn lookup<T>(
        &self,
        name: &str,
        kind: NameKind,
        hit: impl Fn(u32, u32) -> Option<T>,
        check: fn(&Self, &str, usize) -> Option<T>,
    ) -> Option<T> {
        if !self.resolved.is_built() {
            return self.probe_baked(name, kind, check);
        }
        let (index, layout) = self.resolved.find(name.as_bytes(), kind)?;
        hit(index, layout)
    }

    /// [`BindView::lookup`] where the load built no [`crate::names::NameTable`] (a blob it could not
    /// mirror): probes the baked index, at most `MAX_NAME_INDEX_PROBE` + 1 slots from the
    /// name's home, confirming each candidate with `check`. Kept out of line so that the
    /// table's path stays small.
    #[cold]
    #[inline(never)]
    fn probe_baked<T>(
        &self,
        name: &str,
        kind: NameKind,
        check: fn(&Self, &str, usize) -> Option<T>,
    ) -> Option<T> {
        if derived_names(self.names) {
            return self.scan(name, kind, check);
        }
        let hash = name_hash(name);
        let slots = self.names;
        let mask = slots.len().wrapping_sub(1);
        let mut at = hash as usize & mask;
        // No slot sits more than MAX_NAME_INDEX_PROBE past its home (checked at load).
        let reach = slangpack_format::limits::MAX_NAME_INDEX_PROBE as usize + 1;
        for _ in 0..slots.len().min(reach) {
            let slot = slots.get(at)?;
            if slot.is_empty() {
                return None;
            }
            if slot.hash() == hash && slot.kind() == Some(kind) {
                if let Some(found) = check(self, name, slot.index() as usize) {
                    return Some(found);
                }
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// [`BindView::lookup`] of a view whose names are derived (2.5) where the load could not
    /// place them in a table (names crafted to collide under its hash): the records of `kind`
    /// in order, the first that `check` confirms and that has the name ([`derived_names`]).
    /// O(records); an honest blob never comes here.
    #[cold]
    #[inline(never)]
    fn scan<T>(
        &self,
        name: &str,
        kind: NameKind,
        check: fn(&Self, &str, usize) -> Option<T>,
    ) -> Option<T> {
        if name.is_empty() {
            return None;
        }
        let count = match kind {
            NameKind::Binding => self.bindings.len(),
            NameKind::Buffer => self.layouts.len(),
            NameKind::Member => self.members.len(),
            NameKind::Unknown(_) => 0,
        };
        (0..count).find_map(|i| {
            let named = match (kind, self.members.get(i)) {
                (NameKind::Member, Some(m)) => names::member_has_name(self.string(m.path)),
                _ => true,
            };
            named.then(|| check(self, name, i)).flatten()
        })
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

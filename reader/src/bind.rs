//! [`BindView`]: the bind-time tables of an entry, with name lookup through the baked hash
//! index, and handles that resolve a name once. Every accessor is O(1) or O(log n) and
//! allocates nothing.

use crate::view::ReflectionView;
use slangpack_format::bind::*;
use slangpack_format::{StringRef, ABSENT};

/// What an engine binds with: descriptor bindings at absolute Vulkan sets and bindings,
/// set layouts, push-constant ranges, buffer member layouts, vertex inputs and specialization
/// constants. Obtained from [`ReflectionView::bind`]; an entry baked without a bind view gives
/// empty slices.
///
/// Name lookups hash the name (xxh3) and probe the baked index; per-frame code that looks the
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
    resolved: &'a NameTable,
}

/// The reader's own hash table of a blob's names, built at load from the baked name index:
/// each name spelled out (a binding's path, a buffer's name, `buffer.member` for a member) in
/// one arena, and an open-addressing table at most a quarter full, keyed by the reader's
/// cheap [`probe_hash`] of the name and laid out under the hash rotation that puts the
/// entries nearest their homes, whose entries hold the name's place in the arena and the
/// target. A lookup then hashes a few words of the name, reads one entry and compares the
/// name once, instead of hashing the whole name with xxh3, probing the half-full baked
/// index and following each candidate to its record, its string reference and its string.
/// The load checks each baked slot's xxh3 ([`name_hash`]) against its name once.
///
/// Built only where it answers every lookup exactly as the baked index does: every slot's
/// name resolves (its record has a name with the slot's hash, and only one), no two slots
/// stand for one name and kind, and every slot is reachable by the baked index's probe. Otherwise
/// (a damaged or hostile blob) the table stays empty and lookups probe the baked index.
#[derive(Debug, Clone)]
pub(crate) struct NameTable {
    text: String,
    entries: Vec<NameEntry>,
    /// How far the hash is rotated right before its low bits pick the home slot: the load
    /// tries a few rotations and keeps the one whose entries sit nearest their homes.
    rotation: u32,
}

/// One entry of [`NameTable`]: the name's [`probe_hash`], the baked slot's target (kind and
/// index; absent when unused), the name as `text[start..start + len]`, and for a member its
/// buffer layout.
#[derive(Debug, Clone, Copy)]
struct NameEntry {
    hash: u64,
    target: u32,
    start: u32,
    len: u32,
    layout: u32,
}

impl NameEntry {
    const EMPTY: NameEntry = NameEntry {
        hash: 0,
        target: ABSENT,
        start: 0,
        len: 0,
        layout: ABSENT,
    };

    fn is_empty(&self) -> bool {
        self.target == ABSENT
    }

    /// The slot's target for `index` of `kind` (the baked slot's encoding).
    fn target(kind: NameKind, index: u32) -> u32 {
        slangpack_format::bind::name_target(kind.to_raw(), index)
    }
}

impl NameTable {
    /// No table (an entry without reflection, or a blob whose index it cannot mirror).
    pub(crate) const EMPTY: NameTable = NameTable {
        text: String::new(),
        entries: Vec::new(),
        rotation: 0,
    };

    /// The bytes the table keeps (what [`NameTable::resolve`] counted against the limit).
    pub(crate) fn owned_size(&self) -> u64 {
        (self.text.len() + self.entries.len() * size_of::<NameEntry>()) as u64
    }

    /// Builds the table for `bind`'s name index (whose records the load has checked),
    /// counting the bytes it keeps against the package's limit through `reserve`; the
    /// [`NameTable::EMPTY`] table where it cannot mirror the baked index exactly.
    pub(crate) fn resolve(
        bind: &BindView<'_>,
        reserve: &dyn Fn(u64) -> crate::error::Result<()>,
    ) -> crate::error::Result<NameTable> {
        let slots = bind.names;
        let used = slots.iter().filter(|s| !s.is_empty()).count();
        if used == 0 || !slots.len().is_power_of_two() || !baked_probe_reaches_every_slot(slots) {
            return Ok(NameTable::EMPTY);
        }
        let capacity = used.saturating_mul(4).next_power_of_two();
        reserve((capacity * size_of::<NameEntry>()) as u64)?;
        let mut table = NameTable {
            text: String::with_capacity(bind.strings.len()),
            entries: vec![NameEntry::EMPTY; capacity],
            rotation: 0,
        };
        reserve((used * size_of::<NameEntry>()) as u64)?;
        let mut pending = Vec::with_capacity(used);
        for slot in slots.iter().filter(|s| !s.is_empty()) {
            let index = slot.index() as usize;
            // The name the slot stands for, as parts to concatenate, and for a member its
            // buffer layout. A binding answers to its path and to its sampler's path: the one
            // with the slot's hash (both, and different: a crafted collision, not mirrored).
            let hash = slot.hash();
            let mut layout = ABSENT;
            let parts: Option<[&str; 3]> = match slot.kind() {
                Some(NameKind::Binding) => bind.bindings.get(index).and_then(|b| {
                    let (path, sampler) = (bind.string(b.path), bind.string(b.sampler_path));
                    // A binding without a sampler of its own has no second name to hash.
                    let has_sampler = !sampler.is_empty() && sampler != path;
                    let sampler_hashes = || has_sampler && name_hash(sampler) == hash;
                    match (name_hash(path) == hash, sampler_hashes()) {
                        (true, true) => None,
                        (true, false) => Some([path, "", ""]),
                        (false, true) => Some([sampler, "", ""]),
                        (false, false) => None,
                    }
                }),
                Some(NameKind::Buffer) => bind
                    .layouts
                    .get(index)
                    .map(|l| bind.string(l.name))
                    .filter(|name| name_hash(name) == hash)
                    .map(|name| [name, "", ""]),
                Some(NameKind::Member) => {
                    let owner = bind.owner(index);
                    layout = owner.map_or(ABSENT, |o| o as u32);
                    match (
                        bind.members.get(index),
                        owner.and_then(|o| bind.layouts.get(o)),
                    ) {
                        (Some(m), Some(l)) => {
                            let buffer = bind.string(l.name);
                            let dot = if buffer.is_empty() { "" } else { "." };
                            Some([buffer, dot, bind.string(m.path)])
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            let Some(parts) = parts else {
                return Ok(NameTable::EMPTY);
            };
            let start = table.text.len();
            table.text.extend(parts);
            let spelled = table.text.get(start..).unwrap_or_default();
            let (Ok(start), Ok(len)) = (u32::try_from(start), u32::try_from(spelled.len())) else {
                return Ok(NameTable::EMPTY);
            };
            // A binding's or buffer's name was matched to the hash above; a member's is
            // spelled only now.
            if slot.kind() == Some(NameKind::Member) && name_hash(spelled) != hash {
                return Ok(NameTable::EMPTY);
            }
            reserve(u64::from(len))?;
            let entry = NameEntry {
                hash: probe_hash(spelled.as_bytes()),
                target: slot.target,
                start,
                len,
                layout,
            };
            pending.push(entry);
        }
        if !table.place(&pending) {
            return Ok(NameTable::EMPTY);
        }
        Ok(table)
    }

    /// Rotations of the hash [`NameTable::place`] tries: four disjoint 16-bit windows of it.
    const ROTATIONS: [u32; 4] = [0, 16, 32, 48];

    /// Places `entries` (whose names are in the arena) under the rotation that leaves the
    /// fewest probes past an entry's home slot, stopping at the first that leaves none: a
    /// lookup of a name that is there then usually reads one entry. `false` when two entries
    /// have the same name and kind (see [`NameTable::insert`]).
    fn place(&mut self, entries: &[NameEntry]) -> bool {
        let mut best = (usize::MAX, 0);
        for rotation in Self::ROTATIONS {
            self.rotation = rotation;
            self.entries.fill(NameEntry::EMPTY);
            let mut displaced = 0;
            for entry in entries {
                match self.insert(*entry) {
                    Some(probes) => displaced += probes,
                    None => return false,
                }
            }
            if displaced < best.0 {
                best = (displaced, rotation);
            }
            if displaced == 0 {
                return true;
            }
        }
        self.rotation = best.1;
        self.entries.fill(NameEntry::EMPTY);
        entries.iter().all(|e| self.insert(*e).is_some())
    }

    /// The home slot of `hash` (the table's length is a power of two).
    #[inline]
    fn home(&self, hash: u64) -> usize {
        hash.rotate_right(self.rotation) as usize & self.entries.len().wrapping_sub(1)
    }

    /// Inserts `entry`, whose name is in the arena, returning how many slots past its home it
    /// went; `None` when an entry of the same name and kind is there already (two baked slots
    /// for one name: which one the baked probe finds first is not mirrored).
    fn insert(&mut self, entry: NameEntry) -> Option<usize> {
        let mask = self.entries.len() - 1;
        let mut at = self.home(entry.hash);
        let mut probes = 0;
        loop {
            let e = self.entries.get(at)?;
            if e.is_empty() {
                break;
            }
            if e.hash == entry.hash
                && e.target >> 28 == entry.target >> 28
                && self.name_of(e) == self.name_of(&entry)
            {
                return None;
            }
            at = (at + 1) & mask;
            probes += 1;
        }
        *self.entries.get_mut(at)? = entry;
        Some(probes)
    }

    /// The name of `e` in the arena.
    #[inline]
    fn name_of(&self, e: &NameEntry) -> &[u8] {
        let start = e.start as usize;
        self.text
            .as_bytes()
            .get(start..start + e.len as usize)
            .unwrap_or(&[])
    }

    /// The entry named `name` of kind `kind`: `(index, layout)`. `None` when there is no such
    /// name (or no table: [`NameTable::EMPTY`]).
    #[inline(always)]
    fn find(&self, name: &[u8], kind: NameKind) -> Option<(u32, u32)> {
        let hash = probe_hash(name);
        let kind = NameEntry::target(kind, 0);
        let mask = self.entries.len().wrapping_sub(1);
        let mut at = self.home(hash);
        for _ in 0..self.entries.len() {
            let e = self.entries.get(at)?;
            // The kind is the target's top 4 bits; an empty entry's (absent) matches none.
            if e.hash == hash && (e.target ^ kind) >> 28 == 0 && e.len as usize == name.len() {
                if same_bytes(self.name_of(e), name) {
                    return Some((e.target & NAME_INDEX_MASK, e.layout));
                }
            } else if e.is_empty() {
                return None;
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// Whether there is a table (lookups use it) or not (lookups probe the baked index).
    fn is_built(&self) -> bool {
        !self.entries.is_empty()
    }
}

/// The reader's own hash of a name, for its [`NameTable`] only: one 64x64-bit multiply of the
/// name's first, middle and last eight bytes (four and four below eight bytes, the bytes
/// themselves below four) and its length, folded (the mix of wyhash). A fraction of what the
/// baked index's xxh3-64 costs on a 30-byte name, which is most of a lookup; every lookup
/// still compares the whole name, so names that share those bytes cost only a longer probe.
#[inline]
fn probe_hash(name: &[u8]) -> u64 {
    const SEED: [u64; 2] = [0x9e37_79b9_7f4a_7c15, 0xbf58_476d_1ce4_e5b9];
    let n = name.len();
    let (a, b) = match (name.first_chunk::<8>(), name.last_chunk::<8>()) {
        (Some(first), Some(last)) => {
            let middle = name
                .get(n / 2 - 4..)
                .and_then(<[u8]>::first_chunk::<8>)
                .map_or(0, |m| u64::from_le_bytes(*m));
            (
                u64::from_le_bytes(*first) ^ middle.rotate_left(32),
                u64::from_le_bytes(*last),
            )
        }
        _ => match (name.first_chunk::<4>(), name.last_chunk::<4>()) {
            (Some(first), Some(last)) => (
                u64::from(u32::from_le_bytes(*first)),
                u64::from(u32::from_le_bytes(*last)),
            ),
            _ => (name.iter().fold(0, |v, &x| v << 8 | u64::from(x)), 0),
        },
    };
    let product = u128::from(a ^ SEED[0]) * u128::from(b ^ SEED[1] ^ n as u64);
    (product as u64) ^ ((product >> 64) as u64)
}

/// Whether the baked index's linear probe, which starts at a slot's hash and stops at the
/// first empty slot, reaches every used slot (a writer's table always; a damaged one may
/// leave a slot behind an empty one, which no lookup then finds). O(slots).
fn baked_probe_reaches_every_slot(slots: &[NameIndexSlot]) -> bool {
    let len = slots.len();
    let mask = len - 1;
    let Some(empty) = slots.iter().position(NameIndexSlot::is_empty) else {
        return true; // a full table: the probe visits every slot
    };
    // Walk once around from the slot after an empty one, counting the used slots in a row.
    let mut run = 0usize;
    for step in 1..=len {
        let at = (empty + step) & mask;
        let Some(slot) = slots.get(at) else {
            return false;
        };
        if slot.is_empty() {
            run = 0;
            continue;
        }
        run += 1;
        let home = slot.hash() as usize & mask;
        if (at.wrapping_sub(home) & mask) >= run {
            return false;
        }
    }
    true
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
            resolved: &self.blob().names,
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
    /// push-constant blocks, structured-buffer elements).
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

    pub(crate) fn all_members(&self) -> &'a [BufferMember] {
        self.members
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
        let bindings = self.bindings;
        self.lookup(
            path,
            NameKind::Binding,
            |i, _| Some(BindingHandle(i)),
            |i| {
                let b = bindings.get(i)?;
                let found = same_bytes(self.string_bytes(b.path), path.as_bytes())
                    || same_bytes(self.string_bytes(b.sampler_path), path.as_bytes());
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
            |i| {
                let l = layouts.get(i)?;
                same_bytes(self.string_bytes(l.name), name.as_bytes()).then_some(l)
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
        let members = self.members;
        let layouts = self.layouts;
        let hit = |member, layout| Some(MemberHandle { layout, member });
        self.lookup(path, NameKind::Member, hit, |i| {
            let path = path.as_bytes();
            let m = members.get(i)?;
            let layout_index = self.owner(i)?;
            let layout = layouts.get(layout_index)?;
            let buffer = self.string_bytes(layout.name);
            let rest = if buffer.is_empty() {
                path
            } else {
                let (head, rest) = path.split_at_checked(buffer.len())?;
                if !same_bytes(head, buffer) {
                    return None;
                }
                rest.strip_prefix(b".")?
            };
            same_bytes(self.string_bytes(m.path), rest).then_some(MemberHandle {
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
        static NONE: NameTable = NameTable::EMPTY;
        Self {
            resolved: &NONE,
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

    /// Finds `name` of kind `kind`: in the reader's [`NameTable`] where the load built one
    /// (`hit(index, layout)`), else by probing the baked index and confirming each candidate
    /// with `check(index)` against its records.
    #[inline]
    fn lookup<T>(
        &self,
        name: &str,
        kind: NameKind,
        hit: impl Fn(u32, u32) -> Option<T>,
        check: impl Fn(usize) -> Option<T>,
    ) -> Option<T> {
        if self.resolved.is_built() {
            let (index, layout) = self.resolved.find(name.as_bytes(), kind)?;
            return hit(index, layout);
        }
        self.probe_baked(name, kind, &check)
    }

    /// [`BindView::lookup`] where the load built no [`NameTable`] (a blob it could not
    /// mirror): probes the baked index, confirming each candidate with `check`. Kept out of
    /// line so that the table's path stays small.
    #[cold]
    #[inline(never)]
    fn probe_baked<T>(
        &self,
        name: &str,
        kind: NameKind,
        check: &dyn Fn(usize) -> Option<T>,
    ) -> Option<T> {
        let hash = name_hash(name);
        let slots = self.names;
        let mask = slots.len().wrapping_sub(1);
        let mut at = hash as usize & mask;
        for _ in 0..slots.len() {
            let slot = slots.get(at)?;
            if slot.is_empty() {
                return None;
            }
            if slot.hash() == hash && slot.kind() == Some(kind) {
                if let Some(found) = check(slot.index() as usize) {
                    return Some(found);
                }
            }
            at = (at + 1) & mask;
        }
        None
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

/// `a == b` for the short names a lookup confirms, inline: lengths first, then 8-byte words
/// (the last one overlapping), so that the hot path makes no call into `memcmp`.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| -> u64 {
        s.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_ne_bytes)
    };
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

#[cfg(test)]
mod tests {
    use super::{baked_probe_reaches_every_slot, same_bytes};
    use slangpack_format::bind::{name_hash, NameIndexSlot, NameKind};

    #[test]
    fn names_that_share_every_hashed_byte_are_told_apart_by_the_whole_name() {
        use super::{probe_hash, NameEntry, NameTable};
        // Forty bytes: the probe hash reads bytes 0..8, 16..24 and 32..40; byte 10 differs.
        let names: Vec<String> = (0..40u8)
            .map(|i| {
                let mut name = *b"gScene.materials.params.roughness.xyzw01";
                name[10] = b'A' + i;
                String::from_utf8(name.to_vec()).unwrap()
            })
            .collect();
        let hash = probe_hash(names[0].as_bytes());
        assert!(names.iter().all(|n| probe_hash(n.as_bytes()) == hash));
        let mut table = NameTable {
            text: String::new(),
            entries: vec![NameEntry::EMPTY; 256],
            rotation: 0,
        };
        let mut entries = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let start = table.text.len() as u32;
            table.text.push_str(name);
            entries.push(NameEntry {
                hash: probe_hash(name.as_bytes()),
                target: NameIndexSlot::new(name_hash(name), NameKind::Member, i as u32).target,
                start,
                len: name.len() as u32,
                layout: 7,
            });
        }
        assert!(table.place(&entries));
        for (i, name) in names.iter().enumerate() {
            assert_eq!(
                table.find(name.as_bytes(), NameKind::Member),
                Some((i as u32, 7))
            );
            assert_eq!(table.find(name.as_bytes(), NameKind::Binding), None);
        }
        let mut absent = names[0].clone().into_bytes();
        absent[10] = b'z';
        assert_eq!(probe_hash(&absent), hash);
        assert_eq!(table.find(&absent, NameKind::Member), None);
        // Short names: every length below eight bytes, each found and told apart.
        let short = [
            "", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "b", "ba",
        ];
        let mut table = NameTable {
            text: String::new(),
            entries: vec![NameEntry::EMPTY; 64],
            rotation: 0,
        };
        let mut entries = Vec::new();
        for (i, name) in short.iter().enumerate() {
            let start = table.text.len() as u32;
            table.text.push_str(name);
            entries.push(NameEntry {
                hash: probe_hash(name.as_bytes()),
                target: NameIndexSlot::new(name_hash(name), NameKind::Binding, i as u32).target,
                start,
                len: name.len() as u32,
                layout: 0,
            });
        }
        assert!(table.place(&entries));
        for (i, name) in short.iter().enumerate() {
            assert_eq!(
                table.find(name.as_bytes(), NameKind::Binding),
                Some((i as u32, 0)),
                "{name:?}"
            );
        }
        assert_eq!(table.find(b"abcdefgh", NameKind::Binding), None);
    }

    #[test]
    fn the_name_table_finds_by_name_and_kind_and_refuses_duplicates() {
        use super::{probe_hash, NameEntry, NameTable};
        let names = ["abcdefgh.X.12345678", "abcdefgh.Y.12345678"];
        let mut table = NameTable {
            text: String::new(),
            entries: vec![NameEntry::EMPTY; 8],
            rotation: 0,
        };
        for (i, name) in names.iter().enumerate() {
            let start = table.text.len() as u32;
            table.text.push_str(name);
            let entry = NameEntry {
                hash: probe_hash(name.as_bytes()),
                target: NameIndexSlot::new(name_hash(name), NameKind::Binding, i as u32).target,
                start,
                len: name.len() as u32,
                layout: 0,
            };
            assert!(table.insert(entry).is_some());
            // The same name and kind again: refused (the table would not mirror the index).
            assert!(table.insert(entry).is_none());
        }
        assert_eq!(
            table.find(names[0].as_bytes(), NameKind::Binding),
            Some((0, 0))
        );
        assert_eq!(
            table.find(names[1].as_bytes(), NameKind::Binding),
            Some((1, 0))
        );
        assert_eq!(table.find(b"abcdefgh.Z.12345678", NameKind::Binding), None);
        assert_eq!(table.find(names[0].as_bytes(), NameKind::Member), None);
    }

    #[test]
    fn reachability_of_baked_slots() {
        let at = |hash: u64| NameIndexSlot::new(hash, NameKind::Binding, 0);
        let empty = NameIndexSlot::EMPTY;
        // Home 1 at 1, home 1 pushed to 2, home 3 pushed around the end to 0.
        assert!(baked_probe_reaches_every_slot(&[
            at(3),
            at(1),
            at(1),
            at(3)
        ]));
        assert!(baked_probe_reaches_every_slot(&[
            at(3),
            at(1),
            empty,
            at(3)
        ]));
        // Home 1 behind the empty slot 2: no probe from 1 gets to 3.
        assert!(!baked_probe_reaches_every_slot(&[
            empty,
            at(1),
            empty,
            at(1)
        ]));
        // Home 3 wrapped to 0, but slot 3 is empty: unreachable.
        assert!(!baked_probe_reaches_every_slot(&[
            at(3),
            at(1),
            at(2),
            empty
        ]));
        assert!(baked_probe_reaches_every_slot(&[empty, empty]));
    }

    #[test]
    fn same_bytes_is_slice_equality() {
        let base: Vec<u8> = (0u8..40).map(|b| b.wrapping_mul(37)).collect();
        for n in 0..base.len() {
            let a = &base[..n];
            assert!(same_bytes(a, a));
            assert!(!same_bytes(a, &base[..n + 1]));
            for at in 0..n {
                let mut b = a.to_vec();
                b[at] ^= 1;
                assert!(!same_bytes(a, &b), "length {n}, differing at {at}");
            }
        }
    }
}

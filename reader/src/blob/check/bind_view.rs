//! The bind view's rules (SPEC.md 6.7-6.10), checked with the blob: what a load of a split
//! blob checks besides its header, directory and strings.

use super::{Checker, Rec};
use crate::error::{ErrorKind as K, Result};
use slangpack_format::*;

impl Checker<'_> {
    /// The per-target bind views (kind 30): their references as declared
    /// ([`Checker::refs`]), register classes of their target, sorted by target, space,
    /// register class, index.
    pub(super) fn check_target_bindings(&self) -> Result<()> {
        use slangpack_format::targets::TargetBinding;
        use TableKind as T;
        self.refs::<TargetBinding>()?;
        let records = self.table::<TargetBinding>();
        let mut last = None;
        for (i, b) in records.iter().enumerate() {
            let r = Rec {
                table: T::TargetBindings,
                index: i,
            };
            if !slangpack_format::targets::register_class_allowed(b.target_kind(), b.register_class)
            {
                return Err(self.bad_value(
                    r,
                    "register_class",
                    format!(
                        "= {:#x}, not a register class of {} (SPEC 6.8)",
                        b.register_class,
                        b.target_kind().name()
                    ),
                ));
            }
            let key = (b.target, b.space, b.register_class, b.index);
            if last.is_some_and(|l| l > key) {
                return Err(self.fail(
                    r,
                    "target",
                    "records not sorted by target, space, register class, index".into(),
                ));
            }
            last = Some(key);
        }
        self.check_target_buffers()
    }

    /// The member layouts of further targets (kinds 34 and 35): their references as declared
    /// ([`Checker::refs`]: the members within the target members), the target binding and
    /// buffer layout never absent; as many members as the Vulkan layout; sorted by target
    /// binding, strictly.
    pub(super) fn check_target_buffers(&self) -> Result<()> {
        use slangpack_format::bind::BufferLayout;
        use slangpack_format::targets::TargetBuffer;
        use TableKind as T;
        self.refs::<TargetBuffer>()?;
        let layouts = self.table::<BufferLayout>();
        let mut last = None;
        for (i, b) in self.table::<TargetBuffer>().iter().enumerate() {
            let r = Rec {
                table: T::TargetBuffers,
                index: i,
            };
            for (field, value, table) in [
                ("target_binding", b.target_binding, T::TargetBindings),
                ("buffer_layout", b.buffer_layout, T::BufferLayouts),
            ] {
                if u64::from(value) >= self.count(table) {
                    return Err(self.fail(
                        r,
                        field,
                        format!("= {value}, expected < {}", self.count(table)),
                    ));
                }
            }
            let vulkan = layouts
                .get(b.buffer_layout as usize)
                .map_or(0, |l| l.member_count);
            if b.member_count != vulkan {
                return Err(self.bad_value(
                    r,
                    "member_count",
                    format!(
                        "= {}, expected {vulkan}, the member count of buffer layout {}",
                        b.member_count, b.buffer_layout
                    ),
                ));
            }
            self.sorted_by_target_binding(r, b.target_binding, &mut last)?;
        }
        self.check_argument_buffers()
    }

    /// The conformances of dynamically dispatched existentials: references in bounds, the
    /// header flagged `EXISTENTIAL` and the type's member flagged `CONFORMANCE` (`BadValue`).
    fn check_conformances(&self) -> Result<()> {
        use bind::{BufferMember, ExistentialConformance, MEMBER_CONFORMANCE, MEMBER_EXISTENTIAL};
        self.refs::<ExistentialConformance>()?;
        let members = self.table::<BufferMember>();
        for (i, c) in self.table::<ExistentialConformance>().iter().enumerate() {
            let r = Rec {
                table: TableKind::ExistentialConformances,
                index: i,
            };
            for (field, at, flag) in [
                ("existential", c.existential, MEMBER_EXISTENTIAL),
                ("member", c.member, MEMBER_CONFORMANCE),
            ] {
                let flags = members.get(at as usize).map_or(0, |m| m.flags);
                if flags & flag == 0 {
                    return Err(self.bad_value(
                        r,
                        field,
                        format!("= {at}, a buffer member without flag 0x{flag:x}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Records sorted by `target_binding`, strictly (`BadValue`); `last` is the previous one's.
    pub(super) fn sorted_by_target_binding(
        &self,
        r: Rec,
        target_binding: u32,
        last: &mut Option<u32>,
    ) -> Result<()> {
        if last.is_some_and(|l| l >= target_binding) {
            return Err(self.bad_value(
                r,
                "target_binding",
                "records not sorted by target binding (or repeated)".into(),
            ));
        }
        *last = Some(target_binding);
        Ok(())
    }

    /// Member pointees (kind 38, SPEC 6.11): sorted by `member`, strictly (`BadValue`); their
    /// indices are checked with every other reference.
    fn check_member_pointees(&self) -> Result<()> {
        let mut last: Option<u32> = None;
        for (i, p) in self.table::<bind::MemberPointee>().iter().enumerate() {
            if last.is_some_and(|l| l >= p.member) {
                let r = Rec {
                    table: TableKind::MemberPointees,
                    index: i,
                };
                return Err(self.bad_value(
                    r,
                    "member",
                    "records not sorted by member (or repeated)".into(),
                ));
            }
            last = Some(p.member);
        }
        Ok(())
    }

    /// Metal argument buffers' structs (kinds 36 and 37, SPEC 6.10): each names a Metal
    /// argument-buffer binding, its members lie within the members table and are sorted by
    /// target binding, strictly; each member's path is a string, its kind known, a resource
    /// kind with a target binding and data without, its array count and stride both zero or
    /// both not and within its size, and outside array elements it ends within the struct.
    pub(super) fn check_argument_buffers(&self) -> Result<()> {
        use slangpack_format::targets::{
            ArgumentBuffer, ArgumentBufferMember, TargetBinding, ARGUMENT_ELEMENT_RELATIVE,
            ARGUMENT_ID_EXPLICIT,
        };
        use slangpack_format::{ArgumentMemberKind, Target, TargetBindingKind};
        use TableKind as T;
        self.refs::<ArgumentBuffer>()?;
        self.refs::<ArgumentBufferMember>()?;
        let bindings = self.table::<TargetBinding>();
        let members = self.table::<ArgumentBufferMember>();
        let mut last = None;
        for (i, b) in self.table::<ArgumentBuffer>().iter().enumerate() {
            let r = Rec {
                table: T::ArgumentBuffers,
                index: i,
            };
            let Some(binding) = bindings.get(b.target_binding as usize) else {
                return Err(self.fail(
                    r,
                    "target_binding",
                    format!("= {}, expected < {}", b.target_binding, bindings.len()),
                ));
            };
            if binding.target_kind() != Target::Metal
                || binding.binding_kind() != TargetBindingKind::ArgumentBuffer
            {
                return Err(self.bad_value(
                    r,
                    "target_binding",
                    format!(
                        "= {}, a {} binding of kind {:?}, not a Metal argument buffer",
                        b.target_binding,
                        binding.target_kind().name(),
                        binding.binding_kind()
                    ),
                ));
            }
            self.sorted_by_target_binding(r, b.target_binding, &mut last)?;
            let first = b.first_member as usize;
            let own = members
                .get(first..first + b.member_count as usize)
                .unwrap_or(&[]);
            for (k, m) in own.iter().enumerate() {
                let r = Rec {
                    table: T::ArgumentBufferMembers,
                    index: first + k,
                };
                if m.path == slangpack_format::ABSENT {
                    return Err(self.fail(r, "path", "absent, expected a string".into()));
                }
                let resource = match m.member_kind() {
                    ArgumentMemberKind::Data | ArgumentMemberKind::Struct => false,
                    ArgumentMemberKind::Unknown(raw) => {
                        return Err(self.bad_value(
                            r,
                            "kind",
                            format!("= {raw}, not an ArgumentMemberKind (SPEC 6.10)"),
                        ));
                    }
                    _ => true,
                };
                if resource != (m.target_binding != slangpack_format::ABSENT) {
                    return Err(self.bad_value(
                        r,
                        "target_binding",
                        format!(
                            "= {}, but a {} member {} one",
                            m.target_binding,
                            m.member_kind().name(),
                            if resource { "has" } else { "has no" }
                        ),
                    ));
                }
                // Ids are Metal's numbering of the struct's own members: none inside an
                // array element, and an explicit one only where there is one.
                let relative = m.flags & ARGUMENT_ELEMENT_RELATIVE != 0;
                if relative != (m.id == slangpack_format::ABSENT)
                    || (m.flags & ARGUMENT_ID_EXPLICIT != 0 && relative)
                {
                    return Err(self.bad_value(
                        r,
                        "id",
                        format!(
                            "= {:#x}, flags {:#x}: a member has an id exactly when it is not \
                             inside an array element (SPEC 6.10)",
                            m.id, m.flags
                        ),
                    ));
                }
                let fits = u64::from(m.count) * u64::from(m.stride) <= u64::from(m.size);
                if (m.count == 0) != (m.stride == 0) || !fits {
                    return Err(self.bad_value(
                        r,
                        "count",
                        format!(
                            "= {}, stride {}, size {}: an array's count and stride are both \
                             set and their product within the size",
                            m.count, m.stride, m.size
                        ),
                    ));
                }
                let end = u64::from(m.offset) + u64::from(m.size);
                if m.flags & ARGUMENT_ELEMENT_RELATIVE == 0 && end > u64::from(b.size) {
                    return Err(self.bad_value(
                        r,
                        "offset",
                        format!(
                            "= {}, size {}: ends past the argument buffer's {} bytes",
                            m.offset, m.size, b.size
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Descriptor bindings sorted by `(set, binding)`, and each set layout's run of bindings
    /// exactly its set's: set layouts sorted by set, strictly, every binding of a run in the
    /// layout's set, and the runs together as many bindings as the table holds (so every
    /// binding lies in its set's run and no set's bindings are left out; SPEC 6.7).
    fn check_set_runs(&self) -> Result<()> {
        use bind::{DescriptorBinding, DescriptorSetLayout};
        use TableKind as T;
        let bindings = self.table::<DescriptorBinding>();
        let mut last = None;
        for (i, b) in bindings.iter().enumerate() {
            let key = (b.set, b.binding);
            if last.is_some_and(|l| l > key) {
                return Err(self.bad_value(
                    Rec {
                        table: T::DescriptorBindings,
                        index: i,
                    },
                    "set",
                    "records not sorted by set, binding".into(),
                ));
            }
            last = Some(key);
        }
        let mut covered = 0u64;
        let mut last = None;
        for (i, set) in self.table::<DescriptorSetLayout>().iter().enumerate() {
            let r = Rec {
                table: T::DescriptorSetLayouts,
                index: i,
            };
            if last.is_some_and(|l| l >= set.set) {
                return Err(self.bad_value(
                    r,
                    "set",
                    "records not sorted by set (or repeated)".into(),
                ));
            }
            last = Some(set.set);
            let first = set.first_binding as usize;
            let run = bindings
                .get(first..first.saturating_add(set.binding_count as usize))
                .unwrap_or(&[]);
            if let Some(k) = run.iter().position(|b| b.set != set.set) {
                return Err(self.bad_value(
                    r,
                    "binding_count",
                    format!(
                        "= {}: its run from binding {first} holds binding {} of set {}, not \
                         of set {}",
                        set.binding_count,
                        first + k,
                        run.get(k).map_or(0, |b| b.set),
                        set.set
                    ),
                ));
            }
            let before = first.checked_sub(1).and_then(|k| bindings.get(k));
            let after = bindings.get(first + run.len());
            if let Some(b) = [before, after]
                .into_iter()
                .flatten()
                .find(|b| b.set == set.set)
            {
                return Err(self.bad_value(
                    r,
                    "binding_count",
                    format!(
                        "= {} from binding {first}: set {}'s binding {} lies outside the run",
                        set.binding_count, set.set, b.binding
                    ),
                ));
            }
            covered += run.len() as u64;
        }
        if covered != bindings.len() as u64 {
            return Err(self.bad_value(
                Rec {
                    table: T::DescriptorSetLayouts,
                    index: 0,
                },
                "binding_count",
                format!(
                    "the set layouts' runs hold {covered} bindings of {}: a binding's set has \
                     no layout",
                    bindings.len()
                ),
            ));
        }
        Ok(())
    }

    /// Sizes and strides of buffer layouts, further targets' buffer layouts and Metal argument
    /// buffers at most [`limits::MAX_BUFFER_SIZE`] (`LimitExceeded`).
    fn check_buffer_sizes(&self) -> Result<()> {
        use bind::BufferLayout;
        use slangpack_format::targets::{ArgumentBuffer, TargetBuffer};
        use TableKind as T;
        let sizes = self
            .table::<BufferLayout>()
            .iter()
            .enumerate()
            .map(|(i, b)| (T::BufferLayouts, i, b.size, b.stride))
            .chain(
                self.table::<TargetBuffer>()
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (T::TargetBuffers, i, b.size, b.stride)),
            )
            .chain(
                self.table::<ArgumentBuffer>()
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (T::ArgumentBuffers, i, b.size, 0)),
            );
        for (table, i, size, stride) in sizes {
            if size.max(stride) > limits::MAX_BUFFER_SIZE {
                return Err(self.at.err(
                    K::LimitExceeded,
                    0,
                    format_args!(
                        "{}[{i}]: size {size}, stride {stride}, limit {}",
                        table.name(),
                        limits::MAX_BUFFER_SIZE
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The bind-view tables (kinds 20..=30). The steps it calls once are `#[inline(always)]`,
    /// so that a blob's load costs what it did as one function.
    pub(super) fn check_bind(&self) -> Result<()> {
        use bind::*;
        let summaries = self.table::<BindSummary>();
        if summaries.len() > 1 {
            return Err(self.at.err(
                K::Duplicate,
                0,
                format_args!(
                    "{} bind summary records, expected one (SPEC 6.7)",
                    summaries.len()
                ),
            ));
        }
        // Without a summary (a blob without a bind view) no entry point and no set is in use.
        let (entry_points, set_slots) = summaries
            .first()
            .map_or((0, 0), |b| (b.entry_point_count, b.set_slot_count));
        // Every reference field the format declares (`RecordRefs`), table by table.
        self.refs::<BindSummary>()?;
        self.refs::<DescriptorBinding>()?;
        self.refs::<ShaderRecordBlock>()?;
        self.refs::<DescriptorSetLayout>()?;
        self.refs::<PushConstantRange>()?;
        self.refs::<BufferLayout>()?;
        self.refs::<BufferMember>()?;
        self.refs::<MemberAttribute>()?;
        self.refs::<MemberPointee>()?;
        self.refs::<VertexInput>()?;
        self.refs::<FragmentOutput>()?;
        self.refs::<SpecializationConstant>()?;
        self.check_conformances()?;
        self.check_summary(summaries)?;
        let uses = Uses {
            entry_points,
            set_slots,
        };
        self.check_descriptor_bindings(uses)?;
        self.check_set_runs()?;
        self.check_sets_and_ranges(uses)?;
        self.check_buffer_sizes()?;
        self.check_member_pointees()?;
        let members = self.table::<BufferMember>();
        self.member_parents(members)?;
        self.nesting(TableKind::BufferMembers, members.len(), |i| {
            members.get(i).map_or(ABSENT, |m| m.parent)
        })?;
        self.check_stage_io(entry_points)?;
        self.check_execution_modes(entry_points)?;
        self.check_name_index()
    }

    /// The bind summary (at most one record, checked by the caller): its entry-point count
    /// within the limit, its set slots one past the highest set.
    #[inline(always)]
    fn check_summary(&self, summaries: &[bind::BindSummary]) -> Result<()> {
        use bind::MAX_ENTRY_POINTS;
        for (i, b) in summaries.iter().enumerate() {
            let r = Rec {
                table: TableKind::BindSummary,
                index: i,
            };
            if b.entry_point_count > MAX_ENTRY_POINTS {
                return Err(self.at.err(
                    K::LimitExceeded,
                    0,
                    format_args!(
                        "bind_summary[{i}].entry_point_count = {}, limit {MAX_ENTRY_POINTS}",
                        b.entry_point_count
                    ),
                ));
            }
            let highest = self
                .table::<bind::DescriptorSetLayout>()
                .iter()
                .map(|set| u64::from(set.set) + 1)
                .max()
                .unwrap_or(0);
            if u64::from(b.set_slot_count) != highest {
                return Err(self.bad_value(
                    r,
                    "set_slot_count",
                    format!(
                        "= {}, expected the highest set number + 1 ({highest})",
                        b.set_slot_count
                    ),
                ));
            }
        }
        Ok(())
    }

    /// That an entry-point mask names only entry points in use.
    #[inline(always)]
    fn check_mask(&self, r: Rec, value: u32, uses: Uses) -> Result<()> {
        let entry_points = uses.entry_points;
        // Bits of entry points that exist (`entry_points` <= 32 once the summary is checked).
        let in_use = u32::MAX.checked_shr(32 - entry_points).unwrap_or(0);
        if value & !in_use == 0 {
            Ok(())
        } else {
            Err(self.bad_value(
                r,
                "entry_point_mask",
                format!("= {value:#x} names an entry point beyond the {entry_points} in use"),
            ))
        }
    }

    /// That a set number is one of the summary's set slots.
    #[inline(always)]
    fn check_in_set_slots(&self, r: Rec, value: u32, uses: Uses) -> Result<()> {
        let set_slots = uses.set_slots;
        if value < set_slots {
            Ok(())
        } else {
            Err(self.fail(
                r,
                "set",
                format!("= {value}, expected < {set_slots} (the summary's set_slot_count)"),
            ))
        }
    }

    /// The descriptor bindings: entry-point masks, sets, and counts by their count kind.
    #[inline(always)]
    fn check_descriptor_bindings(&self, uses: Uses) -> Result<()> {
        use bind::*;
        for (i, b) in self.table::<DescriptorBinding>().iter().enumerate() {
            let r = Rec {
                table: TableKind::DescriptorBindings,
                index: i,
            };
            self.check_mask(r, b.entry_point_mask, uses)?;
            self.check_in_set_slots(r, b.set, uses)?;
            match b.array_kind() {
                ArrayKind::Fixed => {}
                ArrayKind::Unbounded | ArrayKind::ZeroLength if b.count == 0 => {}
                ArrayKind::Unbounded | ArrayKind::ZeroLength => {
                    return Err(self.bad_value(
                        r,
                        "count",
                        format!(
                            "= {}, expected 0 for count_kind {} (SPEC 6.7)",
                            b.count, b.count_kind
                        ),
                    ));
                }
                ArrayKind::Unknown(raw) => {
                    return Err(self.bad_value(
                        r,
                        "count_kind",
                        format!(
                            "= {raw:#x}, expected {COUNT_FIXED}, {COUNT_UNBOUNDED} or \
                             {COUNT_ZERO} (SPEC 6.7)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The shader record blocks' and push-constant ranges' masks, the set layouts' sets.
    #[inline(always)]
    fn check_sets_and_ranges(&self, uses: Uses) -> Result<()> {
        use bind::*;
        use TableKind as T;
        let r = |table, index| Rec { table, index };
        for (i, b) in self.table::<ShaderRecordBlock>().iter().enumerate() {
            self.check_mask(r(T::ShaderRecordBlocks, i), b.entry_point_mask, uses)?;
        }
        for (i, set) in self.table::<DescriptorSetLayout>().iter().enumerate() {
            self.check_in_set_slots(r(T::DescriptorSetLayouts, i), set.set, uses)?;
        }
        for (i, p) in self.table::<PushConstantRange>().iter().enumerate() {
            self.check_mask(r(T::PushConstantRanges, i), p.entry_point_mask, uses)?;
        }
        Ok(())
    }

    /// The vertex inputs and fragment outputs: each of an entry point in use, sorted.
    #[inline(always)]
    fn check_stage_io(&self, entry_points: u32) -> Result<()> {
        use bind::*;
        use TableKind as T;
        let r = |table, index| Rec { table, index };
        let mut last = None;
        for (i, v) in self.table::<VertexInput>().iter().enumerate() {
            let r = r(T::VertexInputs, i);
            if v.entry_point >= entry_points {
                return Err(self.entry_point_beyond(r, v.entry_point, entry_points));
            }
            let key = (v.entry_point, v.location);
            if last.is_some_and(|l| l > key) {
                return Err(self.fail(
                    r,
                    "entry_point",
                    "records not sorted by entry point, location".into(),
                ));
            }
            last = Some(key);
        }
        let mut last = None;
        for (i, o) in self.table::<FragmentOutput>().iter().enumerate() {
            let r = r(T::FragmentOutputs, i);
            if o.entry_point >= entry_points {
                return Err(self.entry_point_beyond(r, o.entry_point, entry_points));
            }
            let key = (o.entry_point, o.location, o.index);
            if last.is_some_and(|l| l >= key) {
                return Err(self.bad_value(
                    r,
                    "entry_point",
                    "records not sorted by entry point, location, index (or repeated)".into(),
                ));
            }
            last = Some(key);
        }
        Ok(())
    }

    /// The error of record `r` naming entry point `value` of `entry_points`.
    #[cold]
    fn entry_point_beyond(&self, r: Rec, value: u32, entry_points: u32) -> crate::error::Error {
        self.fail(
            r,
            "entry_point",
            format!("= {value}, expected < {entry_points} (the summary's entry_point_count)"),
        )
    }

    /// The execution modes: none, or one record per entry point, in entry-point order.
    #[inline(always)]
    fn check_execution_modes(&self, entry_points: u32) -> Result<()> {
        let r = |index| Rec {
            table: TableKind::ExecutionModes,
            index,
        };
        let modes = self.table::<bind::ExecutionModes>();
        for (i, m) in modes.iter().enumerate() {
            if m.entry_point >= entry_points {
                return Err(self.entry_point_beyond(r(i), m.entry_point, entry_points));
            }
            if m.entry_point as usize != i {
                return Err(self.bad_value(
                    r(i),
                    "entry_point",
                    format!(
                        "= {}, expected {i}: one record per entry point, in entry-point order",
                        m.entry_point
                    ),
                ));
            }
        }
        // Records past the entry points failed above; fewer leave an entry point without one.
        if !modes.is_empty() && modes.len() < entry_points as usize {
            return Err(self.bad_value(
                r(modes.len() - 1),
                "entry_point",
                format!(
                    "{} records for {entry_points} entry points: exactly one per entry point \
                     (SPEC 6.7)",
                    modes.len()
                ),
            ));
        }
        Ok(())
    }

    /// The name index: a power of two long, at most half full, no slot too far from its home,
    /// every slot's target in its table; or the one slot that says the names are derived
    /// (2.5), whose names the load checks as it builds its table of them.
    #[inline(always)]
    fn check_name_index(&self) -> Result<()> {
        use bind::*;
        use TableKind as T;
        let r = |index| Rec {
            table: T::NameIndex,
            index,
        };
        let slots = self.table::<NameIndexSlot>();
        // 2.5: the names are the records' own; the load builds its table of them.
        if derived_names(slots) {
            return Ok(());
        }
        if !slots.is_empty() && !slots.len().is_power_of_two() {
            return Err(self.fail(
                r(0),
                "length",
                format!("{} slots, expected a power of two", slots.len()),
            ));
        }
        let used = slots.iter().filter(|s| !s.is_empty()).count();
        if used > slots.len() / 2 {
            return Err(self.bad_value(
                r(0),
                "length",
                format!(
                    "{used} of {} slots used, expected at most half (SPEC 6.7)",
                    slots.len()
                ),
            ));
        }
        if let Some(at) = name_index_displaced(slots) {
            let home = slots
                .get(at)
                .map_or(0, |s| s.hash() as usize & (slots.len() - 1));
            return Err(self.at.err(
                K::LimitExceeded,
                0,
                format_args!(
                    "name_index[{at}] sits {} slots past its home slot {home}, limit \
                     {}",
                    at.wrapping_sub(home) & (slots.len() - 1),
                    limits::MAX_NAME_INDEX_PROBE
                ),
            ));
        }
        for (i, slot) in slots.iter().enumerate() {
            let target = match slot.kind() {
                None => continue,
                Some(NameKind::Binding) => T::DescriptorBindings,
                Some(NameKind::Member) => T::BufferMembers,
                Some(NameKind::Buffer) => T::BufferLayouts,
                Some(NameKind::Unknown(other)) => {
                    return Err(self.fail(
                        r(i),
                        "target",
                        format!("kind {other}, expected 1, 2 or 3"),
                    ))
                }
            };
            self.idx(r(i), "target", slot.index(), target)?;
        }
        Ok(())
    }
}

/// What the bind summary says is in use: its entry points and set slots (0 and 0 without one).
#[derive(Clone, Copy)]
struct Uses {
    entry_points: u32,
    set_slots: u32,
}

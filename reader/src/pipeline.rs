//! [`Pipeline`]: the layout of exactly the entry points an engine puts in one pipeline.
//!
//! One source file often holds several pipelines (a vertex/fragment pair and a compute
//! kernel) whose bindings reuse set and binding numbers, and many engines keep one stage
//! per file (`scene.vert.slang`, `scene.frag.slang`: one entry each). The bind view records,
//! for every binding and push-constant block, which entry points' SPIR-V declares it (a
//! 32-bit mask); a [`Pipeline`] is up to [`MAX_PIPELINE_ENTRIES`] entries with a mask each
//! ([`Entry::pipeline`] for one entry, [`Package::pipeline`] across entries), and its
//! accessors merge the entries' tables by set and binding, OR-ing the stage flags of the
//! entry points that use each binding. Nothing allocates except an error.

use crate::bind::BindView;
use crate::package::{Entry, EntryPoint, Package};
use slangpack_format::bind::{
    BufferMember, DescriptorBinding, PushConstantRange, MAX_ENTRY_POINTS, MEMBER_ELEMENT_RELATIVE,
};
use slangpack_format::ABSENT;
use std::borrow::Borrow;
use std::fmt;

/// The most entries one [`Pipeline`] spans (each with up to 32 entry points).
pub const MAX_PIPELINE_ENTRIES: usize = 16;

/// Why [`Entry::pipeline`] or [`Package::pipeline`] gave no layout. Owns what it names, so
/// it travels through `?` into `Box<dyn Error>`.
#[derive(Debug)]
#[non_exhaustive]
pub enum PipelineError {
    /// The package has no entry with this key ([`Package::pipeline`]).
    UnknownEntry {
        /// The key asked for.
        key: String,
    },
    /// The entry exists but could not be loaded (its bytes are damaged).
    Load(crate::Error),
    /// The entry has no entry point of this (Slang) name.
    UnknownEntryPoint {
        /// The entry's key.
        key: String,
        /// The name asked for.
        name: String,
        /// The entry's entry points, comma-separated.
        available: String,
    },
    /// The entry has no per-entry-point usage: it was baked without a bind view, or by a
    /// writer of format 1.0 (which did not record which entry points declare each
    /// push-constant block). Rebake it.
    NoUsage {
        /// The entry's key.
        key: String,
    },
    /// Two push-constant blocks of the pipeline's entry points share bytes but disagree on
    /// them, or one stage would need both. Vulkan gives a pipeline one push-constant memory
    /// that every stage reads through its own block: ranges of different stages may overlap
    /// where both blocks read the same members (a shared prefix such as a `modelMatrix`, or
    /// one struct used by both stages), but otherwise the blocks would read each other's
    /// values (Slang places every block at offset 0; separate them with
    /// `[[vk::offset(N)]]` on the members of one of them).
    PushConstantOverlap {
        /// The first block's name.
        first: String,
        /// The second block's name.
        second: String,
    },
    /// Two entry points of the pipeline declare different resources at one set and binding
    /// (another descriptor type or count, or a buffer whose members disagree where they
    /// overlap): no descriptor set layout serves both.
    BindingConflict {
        /// The descriptor set.
        set: u32,
        /// The binding number.
        binding: u32,
        /// The first binding's path.
        first: String,
        /// The second binding's path.
        second: String,
    },
    /// The pipeline spans more than [`MAX_PIPELINE_ENTRIES`] entries.
    TooManyEntries,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownEntry { key } => write!(f, "the package has no entry {key:?}"),
            Self::Load(error) => write!(f, "cannot load the pipeline's entry: {error}"),
            Self::UnknownEntryPoint {
                key,
                name,
                available,
            } => write!(
                f,
                "entry {key:?} has no entry point `{name}` (it has: {available})"
            ),
            Self::NoUsage { key } => write!(
                f,
                "entry {key:?} records no per-entry-point usage (no bind view, or format \
                 1.0); rebake it"
            ),
            Self::PushConstantOverlap { first, second } => write!(
                f,
                "push-constant blocks `{first}` and `{second}` of the pipeline share bytes or \
                 a stage but disagree"
            ),
            Self::BindingConflict {
                set,
                binding,
                first,
                second,
            } => write!(
                f,
                "`{first}` and `{second}` are different resources at set {set}, binding \
                 {binding}"
            ),
            Self::TooManyEntries => {
                write!(f, "a pipeline spans at most {MAX_PIPELINE_ENTRIES} entries")
            }
        }
    }
}

impl std::error::Error for PipelineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Load(error) => Some(error),
            _ => None,
        }
    }
}

impl<'a> Entry<'a> {
    /// The entry points whose bit is set in `mask` (an `entry_point_mask` of a binding or
    /// push-constant range), in bake order.
    pub fn entry_points_in(&self, mask: u32) -> impl Iterator<Item = EntryPoint<'a>> + 'a {
        self.entry_points()
            .take(MAX_ENTRY_POINTS as usize)
            .enumerate()
            .filter(move |(i, _)| mask & (1 << i) != 0)
            .map(|(_, ep)| ep)
    }

    /// The layout of a pipeline made of the entry points named `entry_points` (Slang's
    /// names, e.g. `&["vertexMain", "fragmentMain"]`, or any iterator of strings): the sets, bindings and push-constant
    /// ranges those entry points' SPIR-V declares, with the stage flags of those entry points
    /// only. Allocates nothing unless it fails.
    ///
    /// # Errors
    /// [`PipelineError::UnknownEntryPoint`] for a name the entry does not have,
    /// [`PipelineError::NoUsage`] for an entry without per-entry-point usage,
    /// [`PipelineError::PushConstantOverlap`] when two push-constant blocks of the pipeline
    /// would share bytes, [`PipelineError::BindingConflict`] when two of its bindings would
    /// share a set and binding.
    pub fn pipeline<I>(&self, entry_points: I) -> Result<Pipeline<'a>, PipelineError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut builder = Builder::default();
        for name in entry_points {
            builder.add(*self, name.as_ref())?;
        }
        builder.finish()
    }

    fn entry_point_bit(&self, name: &str) -> Result<u32, PipelineError> {
        self.entry_points()
            .position(|ep| ep.name() == name)
            .filter(|&i| i < MAX_ENTRY_POINTS as usize)
            .map(|i| 1 << i)
            .ok_or_else(|| PipelineError::UnknownEntryPoint {
                key: self.key().to_owned(),
                name: name.to_owned(),
                available: entry_point_list(self),
            })
    }
}

impl Package {
    /// The layout of a pipeline whose stages come from several entries, one `(key, entry
    /// point)` pair per stage: the one-stage-per-file layout (`&[("scene.vert", "main"),
    /// ("scene.frag", "main")]`). The same result and rules as [`Entry::pipeline`]: each
    /// binding once, with the stages of every entry point that declares it; resources of
    /// different entries at one set and binding must be the same resource. Loads the
    /// entries it names (see [`Package::load`]); allocates nothing more unless it fails.
    ///
    /// # Errors
    /// [`PipelineError::UnknownEntry`] or [`PipelineError::Load`] for an entry it cannot
    /// load, [`PipelineError::TooManyEntries`] beyond [`MAX_PIPELINE_ENTRIES`] entries, and
    /// the errors of [`Entry::pipeline`].
    pub fn pipeline<'s, I>(&self, stages: I) -> Result<Pipeline<'_>, PipelineError>
    where
        I: IntoIterator,
        I::Item: Borrow<(&'s str, &'s str)>,
    {
        let mut builder = Builder::default();
        for stage in stages {
            let (key, name) = *stage.borrow();
            let Some(index) = self.find(key) else {
                return Err(PipelineError::UnknownEntry {
                    key: key.to_owned(),
                });
            };
            let entry = self.load_at(index).map_err(PipelineError::Load)?;
            builder.add(entry, name)?;
        }
        builder.finish()
    }
}

impl Package {
    /// The pipeline of [`Pipeline::entries`]' values given back as entry indices and masks
    /// (`(entry.index(), mask)`): how a handle that must not borrow the package (a C
    /// caller's, or one kept across a reload) stores a pipeline and gets it again. Checked as
    /// [`Package::pipeline`] checks.
    ///
    /// # Errors
    /// [`PipelineError::Load`] for an index the package lacks or an entry it cannot load,
    /// [`PipelineError::UnknownEntryPoint`] for a mask bit past the entry's entry points or
    /// a mask of none, and the errors of [`Package::pipeline`].
    pub fn pipeline_from_masks(
        &self,
        parts: &[(usize, u32)],
    ) -> Result<Pipeline<'_>, PipelineError> {
        let mut builder = Builder::default();
        for &(index, mask) in parts {
            let entry = self.load_at(index).map_err(PipelineError::Load)?;
            let count = entry.entry_points().count().min(MAX_ENTRY_POINTS as usize);
            let all = if count == 32 {
                u32::MAX
            } else {
                (1u32 << count) - 1
            };
            if mask == 0 || mask & !all != 0 {
                return Err(PipelineError::UnknownEntryPoint {
                    key: entry.key().to_owned(),
                    name: format!("(mask {mask:#x})"),
                    available: entry_point_list(&entry),
                });
            }
            builder.add_mask(entry, mask)?;
        }
        builder.finish()
    }
}

/// The entry's entry points, comma-separated.
fn entry_point_list(entry: &Entry<'_>) -> String {
    entry
        .entry_points()
        .map(|ep| ep.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One entry of a [`Pipeline`] and the entry points of it that the pipeline holds.
#[derive(Debug, Clone, Copy)]
struct Part<'a> {
    entry: Entry<'a>,
    mask: u32,
}

impl<'a> Part<'a> {
    fn bind(&self) -> BindView<'a> {
        self.entry.bind()
    }

    /// `VkShaderStageFlags` of this part's entry points whose bit is set in `mask`.
    fn stage_flags_of(&self, mask: u32) -> u32 {
        self.entry
            .entry_points_in(mask & self.mask)
            .fold(0, |flags, ep| flags | ep.stage().vk_stage_flags().to_raw())
    }
}

/// Collects the parts of a pipeline, then checks them.
#[derive(Default)]
struct Builder<'a> {
    parts: [Option<Part<'a>>; MAX_PIPELINE_ENTRIES],
}

impl<'a> Builder<'a> {
    fn add(&mut self, entry: Entry<'a>, name: &str) -> Result<(), PipelineError> {
        let bit = entry.entry_point_bit(name)?;
        self.add_mask(entry, bit)
    }

    fn add_mask(&mut self, entry: Entry<'a>, bit: u32) -> Result<(), PipelineError> {
        if entry.bind().summary().is_none() || entry.package_version() < (1, 1) {
            return Err(PipelineError::NoUsage {
                key: entry.key().to_owned(),
            });
        }
        for slot in &mut self.parts {
            match slot {
                Some(part)
                    if std::ptr::eq(part.entry.package, entry.package)
                        && part.entry.index() == entry.index() =>
                {
                    part.mask |= bit;
                    return Ok(());
                }
                Some(_) => {}
                None => {
                    *slot = Some(Part { entry, mask: bit });
                    return Ok(());
                }
            }
        }
        Err(PipelineError::TooManyEntries)
    }

    fn finish(self) -> Result<Pipeline<'a>, PipelineError> {
        let pipeline = Pipeline { parts: self.parts };
        pipeline.check_bindings()?;
        pipeline.check_push_constants()?;
        Ok(pipeline)
    }
}

/// Whether two records at one set and binding are one resource to a set layout: the same
/// descriptor type, count and kinds, and buffers whose members agree where they overlap.
fn same_resource(
    (a, va): (&DescriptorBinding, BindView<'_>),
    (b, vb): (&DescriptorBinding, BindView<'_>),
) -> bool {
    let shape = |r: &DescriptorBinding| {
        (
            r.descriptor_type,
            r.count,
            r.count_kind,
            r.mutable_types,
            r.input_attachment_index,
        )
    };
    shape(a) == shape(b)
        && match (a.buffer_layout == ABSENT, b.buffer_layout == ABSENT) {
            (true, true) => true,
            (false, false) => {
                let whole = |view: BindView<'_>, layout| {
                    let size = view.buffer_layout(layout).map_or(0, |l| l.size);
                    (0, size, layout)
                };
                let (wa, wb) = (whole(va, a.buffer_layout), whole(vb, b.buffer_layout));
                agree(va, wa, vb, wb) && agree(vb, wb, va, wa)
            }
            _ => false,
        }
}

/// Whether two push-constant ranges read the same bytes the same way where they overlap.
fn same_bytes(
    (a, va): (&PushConstantRange, BindView<'_>),
    (b, vb): (&PushConstantRange, BindView<'_>),
) -> bool {
    let range = |r: &PushConstantRange| (r.offset, r.size, r.buffer_layout);
    agree(va, range(a), vb, range(b)) && agree(vb, range(b), va, range(a))
}

/// Whether every leaf member of layout `a` that lies in `b`'s byte range `[offset, offset +
/// size)` is a member of layout `b` too: the same offset, size and type (the bytes mean the
/// same to both; names may differ, as they do between files).
fn agree(
    va: BindView<'_>,
    (_, _, a): (u32, u32, u32),
    vb: BindView<'_>,
    (b_offset, b_size, b): (u32, u32, u32),
) -> bool {
    let (Some(la), Some(lb)) = (va.buffer_layout(a), vb.buffer_layout(b)) else {
        return false;
    };
    let (ma, mb) = (va.members(la), vb.members(lb));
    let b_end = u64::from(b_offset) + u64::from(b_size);
    leaves(ma)
        .filter(|(_, m)| {
            u64::from(m.offset) < b_end
                && u64::from(b_offset) < u64::from(m.offset) + u64::from(m.size)
        })
        .all(|(_, m)| {
            leaves(mb).any(|(_, n)| {
                (
                    n.offset,
                    n.size,
                    n.type_kind,
                    n.scalar_type,
                    n.rows,
                    n.columns,
                    n.array_count,
                ) == (
                    m.offset,
                    m.size,
                    m.type_kind,
                    m.scalar_type,
                    m.rows,
                    m.columns,
                    m.array_count,
                )
            })
        })
}

/// The members of a layout that hold bytes of their own: leaves and arrays, not element
/// members (whose offsets are relative to an array element).
fn leaves(members: &[BufferMember]) -> impl Iterator<Item = (usize, &BufferMember)> + '_ {
    members.iter().enumerate().filter(move |(i, m)| {
        m.flags & MEMBER_ELEMENT_RELATIVE == 0
            && (m.array_count != 0
                || !members
                    .iter()
                    .any(|c| c.parent != ABSENT && c.parent as usize == *i))
    })
}

/// The layout of one pipeline: the bindings and push-constant ranges its entry points use,
/// from [`Entry::pipeline`] (one entry) or [`Package::pipeline`] (stages from several
/// entries). Bindings no entry point of the pipeline uses belong to no pipeline.
#[derive(Debug, Clone, Copy)]
pub struct Pipeline<'a> {
    /// The entries, in the order their first entry point was named; `None` after the last.
    parts: [Option<Part<'a>>; MAX_PIPELINE_ENTRIES],
}

impl<'a> Pipeline<'a> {
    fn parts(&self) -> impl Iterator<Item = Part<'a>> + Clone + 'a {
        self.parts.into_iter().map_while(|part| part)
    }

    #[allow(
        clippy::expect_used,
        reason = "a builder adds a part before it finishes: a pipeline has at least one"
    )]
    fn first(&self) -> Part<'a> {
        let [first, ..] = self.parts;
        first.expect("a pipeline has an entry")
    }

    /// The entries the pipeline's stages come from, each with the mask of its entry points
    /// in the pipeline (bit `i`: entry point `i` of that entry), in the order they were
    /// first named.
    pub fn entries(&self) -> impl Iterator<Item = (Entry<'a>, u32)> + Clone + 'a {
        self.parts().map(|part| (part.entry, part.mask))
    }

    /// Bit `i` set: entry point `i` of the pipeline's first entry is in the pipeline (for a
    /// pipeline from [`Entry::pipeline`], its only entry; see [`Pipeline::entries`]).
    #[must_use]
    pub fn entry_point_mask(&self) -> u32 {
        self.first().mask
    }

    /// The pipeline's entry points, entry by entry, in bake order within each.
    pub fn entry_points(&self) -> impl Iterator<Item = EntryPoint<'a>> + 'a {
        self.parts()
            .flat_map(|part| part.entry.entry_points_in(part.mask))
    }

    /// `VkShaderStageFlags` of the entry points of the pipeline's first entry whose bit is set
    /// in `mask` (an `entry_point_mask` of a record of that entry).
    #[cfg(feature = "wgpu")]
    pub(crate) fn first_stage_flags_of(&self, mask: u32) -> u32 {
        self.first().stage_flags_of(mask)
    }

    /// `VkShaderStageFlags` of the pipeline's entry points.
    #[must_use]
    pub fn stage_flags(&self) -> u32 {
        self.parts()
            .fold(0, |flags, part| flags | part.stage_flags_of(u32::MAX))
    }

    /// The bind view of the pipeline's first entry (names, buffer layouts, and the bindings
    /// of every pipeline of that entry). Each item of [`Pipeline::bindings`] and
    /// [`Pipeline::push_constants`] carries the bind view its record belongs to.
    #[must_use]
    pub fn bind_view(&self) -> BindView<'a> {
        self.first().bind()
    }

    /// Every binding of the pipeline, sorted by set and binding, each once.
    #[must_use]
    pub fn bindings(&self) -> PipelineBindingIter<'a> {
        self.merge(|bind| bind.bindings())
    }

    /// The bindings of the pipeline in set `set` (empty for a set it does not use).
    #[must_use]
    pub fn set(&self, set: u32) -> PipelineBindingIter<'a> {
        self.merge(move |bind| bind.set(set).unwrap_or(&[]))
    }

    /// Length the pipeline layout's set array must have: the highest set the pipeline uses
    /// + 1 (sets it does not use in between are holes, filled with empty set layouts).
    #[must_use]
    pub fn set_slot_count(&self) -> u32 {
        self.bindings()
            .map(|b| b.record.set.saturating_add(1))
            .max()
            .unwrap_or(0)
    }

    /// The binding at `path` (looked up in each entry, in order), if the pipeline uses it,
    /// with the stages of every entry point of the pipeline that uses its set and binding.
    #[must_use]
    pub fn binding(&self, path: &str) -> Option<PipelineBinding<'a>> {
        let (record, entry) = self.parts().find_map(|part| {
            let record = part
                .bind()
                .binding(path)
                .filter(|r| r.entry_point_mask & part.mask != 0)?;
            Some((record, part.entry))
        })?;
        let stage_flags = self.parts().fold(0, |flags, part| {
            let bind = part.bind();
            let at = bind.set(record.set).unwrap_or(&[]).iter();
            flags
                | at.filter(|r| r.binding == record.binding)
                    .fold(0, |f, r| f | part.stage_flags_of(r.entry_point_mask))
        });
        Some(PipelineItem {
            record,
            stage_flags,
            entry,
        })
    }

    /// The push-constant ranges of the pipeline, each with the stages whose block it is: at
    /// most one per stage, and ranges of different stages share bytes only where both read
    /// the same members (checked when the pipeline was made). Identical blocks of several
    /// stages (one struct in two files) are one range with every stage's flag.
    #[must_use]
    pub fn push_constants(&self) -> PipelinePushConstantIter<'a> {
        PipelinePushConstantIter {
            pipeline: *self,
            next: 0,
        }
    }

    fn merge(
        &self,
        table: impl Fn(&BindView<'a>) -> &'a [DescriptorBinding],
    ) -> PipelineBindingIter<'a> {
        let mut rest: [&'a [DescriptorBinding]; MAX_PIPELINE_ENTRIES] = [&[]; MAX_PIPELINE_ENTRIES];
        for (slot, part) in rest.iter_mut().zip(self.parts()) {
            *slot = table(&part.bind());
        }
        PipelineBindingIter {
            pipeline: *self,
            rest,
        }
    }

    /// Every push-constant record of the pipeline's entry points, entry by entry.
    fn push_records(&self) -> impl Iterator<Item = (Part<'a>, &'a PushConstantRange)> + Clone + 'a {
        self.parts().flat_map(|part| {
            let records: &'a [PushConstantRange] = part.bind().push_constants();
            records
                .iter()
                .filter(move |r| r.entry_point_mask & part.mask != 0)
                .map(move |r| (part, r))
        })
    }

    fn check_bindings(&self) -> Result<(), PipelineError> {
        let mut groups = self.bindings();
        while let Some((first, conflict)) = groups.next_group(true) {
            if let Some(second) = conflict {
                return Err(PipelineError::BindingConflict {
                    set: first.record.set,
                    binding: first.record.binding,
                    first: first.bind_view().string(first.record.path).to_owned(),
                    second: second.bind_view().string(second.record.path).to_owned(),
                });
            }
        }
        Ok(())
    }

    fn check_push_constants(&self) -> Result<(), PipelineError> {
        for (i, (pa, a)) in self.push_records().enumerate() {
            let a_end = u64::from(a.offset) + u64::from(a.size);
            for (pb, b) in self.push_records().skip(i + 1) {
                let b_end = u64::from(b.offset) + u64::from(b.size);
                let overlap = u64::from(a.offset) < b_end && u64::from(b.offset) < a_end;
                let shared_stage = pa.stage_flags_of(a.entry_point_mask)
                    & pb.stage_flags_of(b.entry_point_mask)
                    != 0;
                let agree = same_bytes((a, pa.bind()), (b, pb.bind()));
                let identical = (a.offset, a.size) == (b.offset, b.size) && agree;
                if (overlap && !agree) || (shared_stage && !identical) {
                    return Err(PipelineError::PushConstantOverlap {
                        first: pa.bind().string(a.name).to_owned(),
                        second: pb.bind().string(b.name).to_owned(),
                    });
                }
            }
        }
        Ok(())
    }
}

/// A record of one [`Pipeline`] — a binding ([`PipelineBinding`]) or a push-constant range
/// ([`PipelinePushConstant`]) — with the stage flags of the pipeline's entry points that use
/// it (the record's own `stage_flags` are those of every pipeline of its entry).
#[derive(Debug, Clone, Copy)]
pub struct PipelineItem<'a, R> {
    /// The record: set, binding, descriptor type, count and buffer layout of a binding;
    /// name, offset, size and buffer layout of a push-constant range.
    pub record: &'a R,
    /// `VkShaderStageFlags` for `VkDescriptorSetLayoutBinding::stageFlags` or
    /// `VkPushConstantRange::stageFlags`.
    pub stage_flags: u32,
    /// The entry the record belongs to: its string indices (`path`, `name`) and
    /// `buffer_layout` resolve in its bind view ([`PipelineItem::bind_view`]).
    pub entry: Entry<'a>,
}

impl<'a, R> PipelineItem<'a, R> {
    /// The bind view of the entry the record belongs to.
    #[must_use]
    pub fn bind_view(&self) -> BindView<'a> {
        self.entry.bind()
    }
}

/// A binding of a [`Pipeline`].
pub type PipelineBinding<'a> = PipelineItem<'a, DescriptorBinding>;

/// A push-constant range of a [`Pipeline`].
pub type PipelinePushConstant<'a> = PipelineItem<'a, PushConstantRange>;

/// The bindings of a [`Pipeline`] ([`Pipeline::bindings`], [`Pipeline::set`]): the entries'
/// tables merged by set and binding, one item per set and binding.
#[derive(Debug, Clone)]
pub struct PipelineBindingIter<'a> {
    pipeline: Pipeline<'a>,
    /// What is left of each part's table.
    rest: [&'a [DescriptorBinding]; MAX_PIPELINE_ENTRIES],
}

impl<'a> PipelineBindingIter<'a> {
    /// The next set and binding any part uses: the first record there, with the stages of
    /// every record of the pipeline there, and (when `check`) the first record there that is
    /// not the same resource.
    fn next_group(
        &mut self,
        check: bool,
    ) -> Option<(PipelineBinding<'a>, Option<PipelineBinding<'a>>)> {
        let parts = self.pipeline.parts;
        let visible = |part: &Part<'a>, r: &DescriptorBinding| r.entry_point_mask & part.mask != 0;
        let mut key = None;
        for (rest, part) in self
            .rest
            .iter_mut()
            .zip(parts.iter().map_while(Option::as_ref))
        {
            while let Some((r, tail)) = rest.split_first() {
                if visible(part, r) {
                    break;
                }
                *rest = tail;
            }
            if let Some(r) = rest.first() {
                let here = (r.set, r.binding);
                key = Some(key.map_or(here, |k: (u32, u32)| k.min(here)));
            }
        }
        let key = key?;
        let mut first: Option<PipelineBinding<'a>> = None;
        let mut conflict = None;
        let mut stage_flags = 0;
        for (rest, part) in self
            .rest
            .iter_mut()
            .zip(parts.iter().map_while(Option::as_ref))
        {
            while let Some((r, tail)) = rest.split_first() {
                if (r.set, r.binding) != key {
                    break;
                }
                *rest = tail;
                if !visible(part, r) {
                    continue;
                }
                stage_flags |= part.stage_flags_of(r.entry_point_mask);
                match first {
                    None => {
                        first = Some(PipelineItem {
                            record: r,
                            stage_flags: 0,
                            entry: part.entry,
                        });
                    }
                    Some(f) if check && conflict.is_none() => {
                        if !same_resource((f.record, f.bind_view()), (r, part.bind())) {
                            conflict = Some(PipelineItem {
                                record: r,
                                stage_flags: 0,
                                entry: part.entry,
                            });
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        let mut first = first?;
        first.stage_flags = stage_flags;
        Some((first, conflict))
    }
}

impl<'a> Iterator for PipelineBindingIter<'a> {
    type Item = PipelineBinding<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_group(false).map(|(item, _)| item)
    }
}

/// The push-constant ranges of a [`Pipeline`] ([`Pipeline::push_constants`]).
#[derive(Debug, Clone)]
pub struct PipelinePushConstantIter<'a> {
    pipeline: Pipeline<'a>,
    /// Index of the next record in [`Pipeline::push_records`] order.
    next: usize,
}

impl<'a> Iterator for PipelinePushConstantIter<'a> {
    type Item = PipelinePushConstant<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let records = self.pipeline.push_records();
        let identical = |(pa, a): (Part<'a>, &PushConstantRange),
                         (pb, b): (Part<'a>, &PushConstantRange)| {
            (a.offset, a.size) == (b.offset, b.size) && same_bytes((a, pa.bind()), (b, pb.bind()))
        };
        loop {
            let index = self.next;
            let this = records.clone().nth(index)?;
            self.next += 1;
            // A block identical to an earlier one was given with it.
            if records
                .clone()
                .take(index)
                .any(|earlier| identical(earlier, this))
            {
                continue;
            }
            let stage_flags = records
                .clone()
                .skip(index + 1)
                .filter(|&later| identical(this, later))
                .fold(
                    this.0.stage_flags_of(this.1.entry_point_mask),
                    |flags, (part, r)| flags | part.stage_flags_of(r.entry_point_mask),
                );
            return Some(PipelineItem {
                record: this.1,
                stage_flags,
                entry: this.0.entry,
            });
        }
    }
}

//! [`Pipeline`]: the layout of exactly the entry points an engine puts in one pipeline.
//!
//! One source file often holds several pipelines (a vertex/fragment pair and a compute
//! kernel) whose bindings reuse set and binding numbers. The bind view records, for every
//! binding and push-constant block, which entry points' SPIR-V declares it (a 32-bit mask);
//! a [`Pipeline`] filters the tables by the mask of the entry points it was made from, so
//! every accessor is O(bindings) and allocates nothing.

use crate::bind::BindView;
use crate::package::{Entry, EntryPoint};
use slangpack_format::bind::{
    BufferMember, DescriptorBinding, PushConstantRange, MAX_ENTRY_POINTS, MEMBER_ELEMENT_RELATIVE,
};
use slangpack_format::ABSENT;
use std::fmt;

/// Why [`Entry::pipeline`] gave no layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PipelineError<'n> {
    /// The entry has no entry point of this (Slang) name.
    UnknownEntryPoint(&'n str),
    /// The entry has no per-entry-point usage: it was baked without a bind view, or by a
    /// writer of format 1.0 (which did not record which entry points declare each
    /// push-constant block). Rebake it.
    NoUsage,
    /// Two push-constant blocks of the pipeline's entry points share bytes but disagree on
    /// them, or one stage would need both. Vulkan gives a pipeline one push-constant memory
    /// that every stage reads through its own block: ranges of different stages may overlap
    /// where both blocks read the same members (a shared prefix such as a `modelMatrix`, or
    /// one struct used by both stages), but otherwise the blocks would read each other's
    /// values (Slang places every block at offset 0; separate them with
    /// `[[vk::offset(N)]]` on the members of one of them).
    PushConstantOverlap {
        /// The first block's name.
        first: &'n str,
        /// The second block's name.
        second: &'n str,
    },
}

impl fmt::Display for PipelineError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownEntryPoint(name) => write!(f, "the entry has no entry point `{name}`"),
            Self::NoUsage => f.write_str(
                "the entry records no per-entry-point usage (no bind view, or format 1.0); \
                 rebake it",
            ),
            Self::PushConstantOverlap { first, second } => write!(
                f,
                "push-constant blocks `{first}` and `{second}` of the pipeline share bytes"
            ),
        }
    }
}

impl std::error::Error for PipelineError<'_> {}

impl<'a> Entry<'a> {
    /// The entry points whose bit is set in `mask` (an `entry_point_mask` of a binding or
    /// push-constant range, or [`Pipeline::entry_point_mask`]), in bake order.
    pub fn entry_points_in(&self, mask: u32) -> impl Iterator<Item = EntryPoint<'a>> + 'a {
        self.entry_points()
            .take(MAX_ENTRY_POINTS as usize)
            .enumerate()
            .filter(move |(i, _)| mask & (1 << i) != 0)
            .map(|(_, ep)| ep)
    }

    /// The layout of a pipeline made of the entry points named `entry_points` (Slang's
    /// names, e.g. `&["vertexMain", "fragmentMain"]`): the sets, bindings and push-constant
    /// ranges those entry points' SPIR-V declares, with the stage flags of those entry points
    /// only. Allocates nothing.
    ///
    /// # Errors
    /// [`PipelineError::UnknownEntryPoint`] for a name the entry does not have,
    /// [`PipelineError::NoUsage`] for an entry without per-entry-point usage,
    /// [`PipelineError::PushConstantOverlap`] when two push-constant blocks of the pipeline
    /// would share bytes.
    pub fn pipeline<'n>(&self, entry_points: &[&'n str]) -> Result<Pipeline<'a>, PipelineError<'n>>
    where
        'a: 'n,
    {
        let bind = self.reflection().bind();
        if bind.summary().is_none() || self.package_minor_version() < 1 {
            return Err(PipelineError::NoUsage);
        }
        let mut mask = 0u32;
        for name in entry_points {
            let index = self
                .entry_points()
                .position(|ep| ep.name() == *name)
                .filter(|&i| i < MAX_ENTRY_POINTS as usize)
                .ok_or(PipelineError::UnknownEntryPoint(name))?;
            mask |= 1 << index;
        }
        let pipeline = Pipeline {
            entry: *self,
            bind,
            mask,
        };
        let ranges = pipeline.push_constants();
        for (i, a) in ranges.clone().enumerate() {
            let a_end = u64::from(a.record.offset) + u64::from(a.record.size);
            for b in ranges.clone().skip(i + 1) {
                let b_end = u64::from(b.record.offset) + u64::from(b.record.size);
                let overlap =
                    u64::from(a.record.offset) < b_end && u64::from(b.record.offset) < a_end;
                if overlap
                    && (a.stage_flags & b.stage_flags != 0
                        || !agree(&bind, a.record, b.record)
                        || !agree(&bind, b.record, a.record))
                {
                    return Err(PipelineError::PushConstantOverlap {
                        first: bind.string(a.record.name),
                        second: bind.string(b.record.name),
                    });
                }
            }
        }
        Ok(pipeline)
    }
}

/// Whether every leaf member of block `a` that lies in `b`'s range is a member of `b` too: the
/// same offset, size, type and name (the bytes mean the same to both stages).
fn agree(bind: &BindView<'_>, a: &PushConstantRange, b: &PushConstantRange) -> bool {
    let (Some(la), Some(lb)) = (
        bind.buffer_layout(a.buffer_layout),
        bind.buffer_layout(b.buffer_layout),
    ) else {
        return false;
    };
    let (ma, mb) = (bind.members(la), bind.members(lb));
    let b_end = u64::from(b.offset) + u64::from(b.size);
    leaves(ma)
        .filter(|(_, m)| {
            u64::from(m.offset) < b_end
                && u64::from(b.offset) < u64::from(m.offset) + u64::from(m.size)
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
                ) && bind.string(n.name) == bind.string(m.name)
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
/// from [`Entry::pipeline`]. Bindings no entry point uses belong to no pipeline.
#[derive(Debug, Clone, Copy)]
pub struct Pipeline<'a> {
    entry: Entry<'a>,
    bind: BindView<'a>,
    mask: u32,
}

impl<'a> Pipeline<'a> {
    /// Bit `i` set: entry point `i` of the entry is in the pipeline.
    #[must_use]
    pub fn entry_point_mask(&self) -> u32 {
        self.mask
    }

    /// `VkShaderStageFlags` of the entry points whose bit is set in `mask` and in the
    /// pipeline's.
    #[must_use]
    pub fn stage_flags_of(&self, mask: u32) -> u32 {
        self.entry
            .entry_points_in(mask & self.mask)
            .fold(0, |flags, ep| flags | ep.stage().vk_stage_flags().to_raw())
    }

    /// The pipeline's entry points, in bake order.
    pub fn entry_points(&self) -> impl Iterator<Item = EntryPoint<'a>> + 'a {
        self.entry.entry_points_in(self.mask)
    }

    /// `VkShaderStageFlags` of the pipeline's entry points.
    #[must_use]
    pub fn stage_flags(&self) -> u32 {
        self.stage_flags_of(u32::MAX)
    }

    /// The whole bind view (bindings of every pipeline, names, buffer layouts).
    #[must_use]
    pub fn bind_view(&self) -> BindView<'a> {
        self.bind
    }

    /// Every binding of the pipeline, sorted by set and binding.
    #[must_use]
    pub fn bindings(&self) -> PipelineBindingIter<'a> {
        self.filter(self.bind.bindings())
    }

    /// The bindings of the pipeline in set `set` (empty for a set it does not use).
    #[must_use]
    pub fn set(&self, set: u32) -> PipelineBindingIter<'a> {
        self.filter(self.bind.set(set).unwrap_or(&[]))
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

    /// The binding at `path`, if the pipeline uses it.
    #[must_use]
    pub fn binding(&self, path: &str) -> Option<PipelineBinding<'a>> {
        let binding = self.bind.binding(path)?;
        self.filter(std::slice::from_ref(binding)).next()
    }

    /// The push-constant ranges of the pipeline (at most one per stage; ranges of different
    /// blocks share bytes only where both read the same members, [`Entry::pipeline`] checks).
    #[must_use]
    pub fn push_constants(&self) -> PipelinePushConstantIter<'a> {
        PipelineIter {
            pipeline: *self,
            records: self.bind.push_constants().iter(),
            mask_of: |r| r.entry_point_mask,
        }
    }

    fn filter(&self, bindings: &'a [DescriptorBinding]) -> PipelineBindingIter<'a> {
        PipelineIter {
            pipeline: *self,
            records: bindings.iter(),
            mask_of: |b| b.entry_point_mask,
        }
    }
}

/// A record of one [`Pipeline`] — a binding ([`PipelineBinding`]) or a push-constant range
/// ([`PipelinePushConstant`]) — with the stage flags of the pipeline's entry points that use
/// it (the record's own `stage_flags` are those of every pipeline).
#[derive(Debug, Clone, Copy)]
pub struct PipelineItem<'a, R> {
    /// The record: set, binding, descriptor type, count and buffer layout of a binding;
    /// name, offset, size and buffer layout of a push-constant range.
    pub record: &'a R,
    /// `VkShaderStageFlags` for `VkDescriptorSetLayoutBinding::stageFlags` or
    /// `VkPushConstantRange::stageFlags`.
    pub stage_flags: u32,
}

/// A binding of a [`Pipeline`].
pub type PipelineBinding<'a> = PipelineItem<'a, DescriptorBinding>;

/// A push-constant range of a [`Pipeline`].
pub type PipelinePushConstant<'a> = PipelineItem<'a, PushConstantRange>;

/// The records of a table that a [`Pipeline`]'s entry points use, in table order.
#[derive(Debug, Clone)]
pub struct PipelineIter<'a, R> {
    pipeline: Pipeline<'a>,
    records: std::slice::Iter<'a, R>,
    mask_of: fn(&R) -> u32,
}

/// The bindings of a [`Pipeline`] ([`Pipeline::bindings`], [`Pipeline::set`]).
pub type PipelineBindingIter<'a> = PipelineIter<'a, DescriptorBinding>;

/// The push-constant ranges of a [`Pipeline`] ([`Pipeline::push_constants`]).
pub type PipelinePushConstantIter<'a> = PipelineIter<'a, PushConstantRange>;

impl<'a, R> Iterator for PipelineIter<'a, R> {
    type Item = PipelineItem<'a, R>;

    fn next(&mut self) -> Option<Self::Item> {
        let (pipeline, mask_of) = (self.pipeline, self.mask_of);
        self.records.find_map(|record| {
            let mask = mask_of(record);
            (mask & pipeline.mask != 0).then(|| PipelineItem {
                record,
                stage_flags: pipeline.stage_flags_of(mask),
            })
        })
    }
}

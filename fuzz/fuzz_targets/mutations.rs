//! Mutations the structured targets share (`build_and_read`, `tools_on_packages`): a bind
//! view's name index of derived names (2.5), or as the format crate's `build_name_index` lays
//! it out, then with slots mutated (hash, kind, index; collisions of hash and of home slot;
//! tables filled to half and one past; clusters around the probe bound; slots emptied or
//! swapped), and a package's
//! `ShardPlan` sections (none, one or several; slice number and count, job counts, wider
//! strides).

use arbitrary::{Result, Unstructured};
use slangpack_format::bind::{build_name_index, name_target, NameIndexSlot, NameKind};
use slangpack_format::limits::MAX_NAME_INDEX_PROBE;
use slangpack_format::{
    assemble_sections, join_u64, read_sections, split_u64, Compression, RawSection, SectionKind,
    ShardRecord,
};
use zerocopy::IntoBytes;

/// The name index of `names` (`(name, kind, index)`): as `build_name_index` builds it (then
/// the second value is `true`: every name is found through it), or with one to four
/// mutations. `counts` are the lengths of the tables a binding's, member's and buffer's
/// index points into.
pub fn name_index(
    u: &mut Unstructured<'_>,
    names: Vec<(String, NameKind, u32)>,
    counts: [u32; 3],
) -> Result<(Vec<NameIndexSlot>, bool)> {
    if u.ratio(1u8, 4)? {
        // Derived names (2.5): the records' own. Every name is found where each is one the
        // records give (not empty, no member path under `[]` or empty).
        let found = names
            .iter()
            .all(|(n, _, _)| !n.is_empty() && !n.contains("[]") && !n.ends_with('.'));
        return Ok((vec![NameIndexSlot::DERIVED], found));
    }
    let mut slots = build_name_index(names);
    if u.ratio(1u8, 2)? {
        return Ok((slots, true));
    }
    for _ in 0..u.int_in_range(1..=4u8)? {
        mutate(u, &mut slots, counts)?;
    }
    Ok((slots, false))
}

fn set_hash(slot: &mut NameIndexSlot, hash: u64) {
    (slot.hash_lo, slot.hash_hi) = split_u64(hash);
}

/// A slot's target: mostly a kind the format knows and an index in range (or just past it),
/// sometimes kind 0 or an unknown kind, or any index.
fn target(u: &mut Unstructured<'_>, counts: [u32; 3]) -> Result<u32> {
    let kind = match u.arbitrary::<u8>()? % 16 {
        0..=13 => u.int_in_range(1..=3u32)?,
        14 => 0,
        _ => u.int_in_range(4..=15u32)?,
    };
    Ok(name_target(kind, index(u, kind, counts)?))
}

/// An index for a slot of raw kind `kind`: mostly in range of its table, sometimes one past
/// it, or anything.
fn index(u: &mut Unstructured<'_>, kind: u32, counts: [u32; 3]) -> Result<u32> {
    let count = counts
        .get(kind.wrapping_sub(1) as usize)
        .copied()
        .unwrap_or(0);
    Ok(match u.arbitrary::<u8>()? {
        0..=199 if count > 0 => u.int_in_range(0..=count - 1)?,
        0..=229 => count,
        _ => u.arbitrary()?,
    })
}

/// Places a slot by linear probing from `hash`'s home; `false` when the table is full.
fn insert(slots: &mut [NameIndexSlot], hash: u64, target: u32) -> bool {
    let len = slots.len();
    if !len.is_power_of_two() {
        return false;
    }
    let mut at = hash as usize & (len - 1);
    for _ in 0..len {
        if let Some(slot) = slots.get_mut(at).filter(|s| s.is_empty()) {
            set_hash(slot, hash);
            slot.target = target;
            return true;
        }
        at = (at + 1) & (len - 1);
    }
    false
}

/// The same slots laid out again in a table of `len` slots (a power of two).
fn resize(slots: &mut Vec<NameIndexSlot>, len: usize) {
    let used: Vec<NameIndexSlot> = slots.iter().filter(|s| !s.is_empty()).copied().collect();
    *slots = vec![NameIndexSlot::EMPTY; len];
    for s in used {
        insert(slots, s.hash(), s.target);
    }
}

fn used_slot(u: &mut Unstructured<'_>, slots: &[NameIndexSlot]) -> Result<Option<usize>> {
    let used: Vec<usize> = (0..slots.len()).filter(|&i| !slots[i].is_empty()).collect();
    Ok(if used.is_empty() {
        None
    } else {
        Some(used[u.choose_index(used.len())?])
    })
}

/// One mutation of the name index `slots` (of tables of `counts` records), chosen by `u`.
fn mutate(
    u: &mut Unstructured<'_>,
    slots: &mut Vec<NameIndexSlot>,
    counts: [u32; 3],
) -> Result<()> {
    let len = slots.len();
    let slot = used_slot(u, slots)?;
    match u.arbitrary::<u8>()? % 32 {
        // A bit of the hash: the name is no longer found, or sits elsewhere than its home.
        0..=3 => {
            if let Some(i) = slot {
                let bit = u.int_in_range(0..=63u32)?;
                let hash = slots[i].hash() ^ (1 << bit);
                set_hash(&mut slots[i], hash);
            }
        }
        // The kind, keeping the index.
        4..=6 => {
            if let Some(i) = slot {
                let kind = u.int_in_range(0..=15u32)?;
                slots[i].target = name_target(kind, slots[i].index());
            }
        }
        // The index, keeping the kind: another record (whose name is not the slot's), one
        // past the table, or anything.
        7..=9 => {
            if let Some(i) = slot {
                let kind = slots[i].target >> 28;
                slots[i].target = name_target(kind, index(u, kind, counts)?);
            }
        }
        10..=13 => same_hash(u, slots, slot, counts)?,
        14..=16 => same_home(u, slots, slot, counts)?,
        17..=20 => fill_to_half(u, slots, counts)?,
        21..=23 => probe_cluster(u, slots, slot, counts)?,
        // A used slot emptied: the probe stops short of the slots past it.
        24..=26 => {
            if let Some(i) = slot {
                slots[i] = NameIndexSlot::EMPTY;
            }
        }
        // Two slots swapped: a slot before its home, or behind an empty slot.
        27..=29 => {
            if len > 1 {
                let a = u.choose_index(len)?;
                let b = u.choose_index(len)?;
                slots.swap(a, b);
            }
        }
        // A hash made of one half of another slot's: equal low or high halves.
        30 => {
            if let (Some(i), Some(j)) = (slot, used_slot(u, slots)?) {
                let (lo, _) = split_u64(slots[i].hash());
                let (_, hi) = split_u64(slots[j].hash());
                set_hash(&mut slots[j], join_u64(lo, hi));
            }
        }
        // A length that is not a power of two.
        _ => slots.push(NameIndexSlot::EMPTY),
    }
    Ok(())
}

/// A second slot of the hash of used slot `slot` (and mostly the same kind): two candidates
/// for one name.
fn same_hash(
    u: &mut Unstructured<'_>,
    slots: &mut [NameIndexSlot],
    slot: Option<usize>,
    counts: [u32; 3],
) -> Result<()> {
    if let Some(i) = slot {
        let hash = slots[i].hash();
        let kind = slots[i].target >> 28;
        let t = if u.ratio(3u8, 4)? {
            name_target(kind, index(u, kind, counts)?)
        } else {
            target(u, counts)?
        };
        insert(slots, hash, t);
    }
    Ok(())
}

/// Another hash with the home slot of used slot `slot`: a longer probe for the name.
fn same_home(
    u: &mut Unstructured<'_>,
    slots: &mut [NameIndexSlot],
    slot: Option<usize>,
    counts: [u32; 3],
) -> Result<()> {
    if let Some(i) = slot {
        let mask = slots.len() as u64 - 1;
        let hash = (u.arbitrary::<u64>()? & !mask) | (slots[i].hash() & mask);
        let t = target(u, counts)?;
        insert(slots, hash, t);
    }
    Ok(())
}

/// The index filled to exactly half (the most the reader accepts), or one slot past it.
fn fill_to_half(
    u: &mut Unstructured<'_>,
    slots: &mut Vec<NameIndexSlot>,
    counts: [u32; 3],
) -> Result<()> {
    if slots.is_empty() {
        resize(slots, 1 << u.int_in_range(1..=4u32)?);
    }
    let len = slots.len();
    if len > 4096 {
        return Ok(());
    }
    let want = len / 2 + usize::from(u.ratio(1u8, 4)?);
    let mut used = slots.iter().filter(|s| !s.is_empty()).count();
    while used < want {
        let hash = match used_slot(u, slots)? {
            // Near a name that is there: its probe runs through the new slots.
            Some(i) if u.ratio(1u8, 2)? => slots[i].hash().wrapping_add(u.int_in_range(0..=3u64)?),
            _ => u.arbitrary()?,
        };
        let t = target(u, counts)?;
        if !insert(slots, hash, t) {
            break;
        }
        used += 1;
    }
    Ok(())
}

/// A cluster of distinct hashes sharing one home (mostly used slot `slot`'s), around the
/// probe bound: its last slot sits 256 slots past home (accepted) or 257 and more (refused).
fn probe_cluster(
    u: &mut Unstructured<'_>,
    slots: &mut Vec<NameIndexSlot>,
    slot: Option<usize>,
    counts: [u32; 3],
) -> Result<()> {
    if slots.len() < 1024 {
        resize(slots, 1024);
    }
    let len = slots.len() as u64;
    let home = match slot {
        Some(i) if u.ratio(1u8, 2)? => slots[i].hash() & (len - 1),
        _ => u.arbitrary::<u64>()? & (len - 1),
    };
    let bound = u64::from(MAX_NAME_INDEX_PROBE);
    let n = u.int_in_range(bound - 4..=bound + 3)?;
    let t = target(u, counts)?;
    for k in 0..n {
        // Distinct high bits (so distinct hashes), one home.
        let high = ((k + 1) << 32) | (u64::from(u.arbitrary::<u16>()?) << 16);
        let hash = (high & !(len - 1)) | home;
        if !insert(slots, hash, t) {
            break;
        }
    }
    Ok(())
}

/// One `ShardPlan` record to write, with the bytes of a wider stride after it.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The record (`reserved` 0, as the builder writes it).
    pub record: ShardRecord,
    /// Bytes after the record: a newer minor version's longer record (a multiple of 4).
    pub tail: Vec<u8>,
}

impl Plan {
    /// Whether the reader accepts the record (SPEC.md 5.9): `1 <= shard_index <=
    /// shard_count`, no more jobs in the slice than in the plan, no more libraries than jobs.
    pub fn valid(&self) -> bool {
        let s = &self.record;
        s.shard_index >= 1
            && s.shard_index <= s.shard_count
            && s.job_count <= s.plan_job_count
            && s.library_count <= s.job_count
    }
}

/// The `ShardPlan` sections of a package: none most often, one (mostly a valid slice), or
/// two or three.
pub fn shard_plans(u: &mut Unstructured<'_>) -> Result<Vec<Plan>> {
    let n = match u.arbitrary::<u8>()? {
        0..=159 => 0,
        160..=239 => 1,
        240..=251 => 2,
        _ => 3,
    };
    (0..n).map(|_| plan(u)).collect()
}

fn plan(u: &mut Unstructured<'_>) -> Result<Plan> {
    let shard_count = match u.arbitrary::<u8>()? {
        0..=199 => u.int_in_range(1..=8u32)?,
        200..=229 => u32::MAX,
        _ => u.arbitrary()?,
    }
    .max(1);
    let plan_job_count = match u.arbitrary::<u8>()? {
        0..=219 => u.int_in_range(0..=16u32)?,
        _ => u.arbitrary()?,
    };
    let job_count = u.int_in_range(0..=plan_job_count)?;
    let mut record = ShardRecord {
        shard_index: u.int_in_range(1..=shard_count)?,
        shard_count,
        plan_hash_lo: u.arbitrary()?,
        plan_hash_hi: u.arbitrary()?,
        plan_job_count,
        job_count,
        library_count: u.int_in_range(0..=job_count)?,
        reserved: 0,
    };
    if u.ratio(1u8, 8)? {
        // One rule broken.
        match u.arbitrary::<u8>()? % 5 {
            0 => record.shard_index = 0,
            1 => record.shard_index = shard_count.wrapping_add(1),
            2 => record.shard_count = 0,
            3 => record.job_count = plan_job_count.wrapping_add(1),
            _ => record.library_count = job_count.wrapping_add(1),
        }
    }
    let tail = if u.ratio(1u8, 8)? {
        (0..4 * u.int_in_range(1..=2usize)?)
            .map(|_| u.arbitrary())
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    Ok(Plan { record, tail })
}

/// `package` (builder output without a shard plan) with `plans` appended as `ShardPlan`
/// sections, laid out again by `assemble_sections` (a plain directory); `None` when the
/// package's sections cannot be read back or laid out.
pub fn with_shard_plans(package: &[u8], plans: &[Plan]) -> Option<Vec<u8>> {
    let mut sections = read_sections(package)?;
    for plan in plans {
        let mut stored = plan.record.as_bytes().to_vec();
        stored.extend_from_slice(&plan.tail);
        sections.push(RawSection {
            kind: SectionKind::ShardPlan.to_raw(),
            compression: Compression::None.to_raw(),
            stride: stored.len() as u32,
            count: 1,
            raw_size: stored.len() as u64,
            stored,
        });
    }
    assemble_sections(&sections).ok()
}

/// Writes `plans` into the package `finish` builds: a lone plan of the current record size
/// through `PackageBuilder::set_shard`, anything else through [`with_shard_plans`]. `None`
/// when the builder or the layout refuses.
pub fn finish_with_plans(
    mut builder: slangpack_format::PackageBuilder,
    plans: &[Plan],
) -> Option<Vec<u8>> {
    match plans {
        [] => builder.finish().ok(),
        [one] if one.tail.is_empty() => {
            builder.set_shard(one.record);
            builder.finish().ok()
        }
        _ => with_shard_plans(&builder.finish().ok()?, plans),
    }
}

//! The name index: an open-addressing hash table from a binding's, buffer's or member's name
//! to its record, baked with the bind view so that a lookup by name costs one hash and a
//! probe (SPEC 6.7).

use crate::enums::raw_enum;
use crate::limits::MAX_NAME_INDEX_PROBE;
use crate::records::record;
use crate::ABSENT;

raw_enum! {
    /// What a [`NameIndexSlot::target`] points at (its top 4 bits).
    pub enum NameKind {
        /// A descriptor binding, by its path.
        Binding = 1,
        /// A buffer member, by `<buffer name>.<member path>`.
        Member = 2,
        /// A buffer layout, by its name.
        Buffer = 3,
    }
}

/// [`NameKind::Binding`] as a raw value.
pub const NAME_BINDING: u32 = NameKind::Binding.to_raw();
/// [`NameKind::Member`] as a raw value.
pub const NAME_MEMBER: u32 = NameKind::Member.to_raw();
/// [`NameKind::Buffer`] as a raw value.
pub const NAME_BUFFER: u32 = NameKind::Buffer.to_raw();

/// Bits of [`NameIndexSlot::target`] below the kind: the index.
pub const NAME_INDEX_MASK: u32 = 0x0fff_ffff;

/// Builds a [`NameIndexSlot::target`] from a raw kind and a 28-bit index.
#[must_use]
pub const fn name_target(kind: u32, index: u32) -> u32 {
    (kind << 28) | (index & NAME_INDEX_MASK)
}

record! {
    /// One slot of the name index: an open-addressing hash table (linear probing) whose length
    /// is a power of two, keyed by the xxh3-64 of the name's UTF-8 bytes. An empty slot has
    /// `target` absent; a lookup probes from `hash & (len - 1)` until it finds the name or an
    /// empty slot.
    pub struct NameIndexSlot [12] {
        /// xxh3-64 of the name, low half.
        pub hash_lo: u32,
        /// xxh3-64 of the name, high half.
        pub hash_hi: u32,
        /// `kind << 28 | index` (see `NAME_*`), or absent for an empty slot.
        pub target: u32,
    }
}

impl NameIndexSlot {
    /// An empty slot.
    pub const EMPTY: Self = Self {
        hash_lo: 0,
        hash_hi: 0,
        target: ABSENT,
    };

    /// A slot naming entry `index` of the table `kind` selects, keyed by `hash`
    /// ([`name_hash`]).
    #[must_use]
    pub const fn new(hash: u64, kind: NameKind, index: u32) -> Self {
        let (hash_lo, hash_hi) = crate::split_u64(hash);
        Self {
            hash_lo,
            hash_hi,
            target: name_target(kind.to_raw(), index),
        }
    }

    /// Whether the slot is empty (ends a probe).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.target == ABSENT
    }

    /// The whole name index of a bind view whose names are derived from its records (2.5):
    /// this one slot, whose target [`NAMES_DERIVED`] is no kind's. A reader that knows it
    /// builds its own table of the names [`derived_names`] describes; a 2.4 reader refuses
    /// the blob at its load (one slot used of one: more than half the table, SPEC 6.7).
    pub const DERIVED: Self = Self {
        hash_lo: 0,
        hash_hi: 0,
        target: NAMES_DERIVED,
    };

    /// The name's hash.
    #[must_use]
    pub const fn hash(&self) -> u64 {
        crate::join_u64(self.hash_lo, self.hash_hi)
    }

    /// What the slot points at; `None` for an empty slot.
    #[must_use]
    pub const fn kind(&self) -> Option<NameKind> {
        if self.is_empty() {
            None
        } else {
            Some(NameKind::from_raw(self.target >> 28))
        }
    }

    /// The index into the table [`Self::kind`] selects.
    #[must_use]
    pub const fn index(&self) -> u32 {
        self.target & NAME_INDEX_MASK
    }
}

/// [`NameIndexSlot::DERIVED`]'s target: kind 15, index 0.
pub const NAMES_DERIVED: u32 = 0xf000_0000;

/// Whether the name index `slots` is [`NameIndexSlot::DERIVED`] alone: the bind view's names
/// are those its records give (SPEC 6.7, 2.5), and a lookup finds, of a name and kind, the
/// record of lowest index that bears it:
///
/// * a descriptor binding ([`NameKind::Binding`]) by its `path` and by its `sampler_path`;
/// * a buffer layout ([`NameKind::Buffer`]) by its `name`;
/// * a buffer member ([`NameKind::Member`]) by its buffer layout's `name`, a `.` and its own
///   `path` (the name alone where either is empty), unless that path contains `[]`.
///
/// An empty name names nothing.
#[must_use]
pub fn derived_names(slots: &[NameIndexSlot]) -> bool {
    matches!(slots, [only] if *only == NameIndexSlot::DERIVED)
}

/// The hash the name index is keyed by: xxh3-64 of the name's UTF-8 bytes.
#[inline]
#[must_use]
pub fn name_hash(name: &str) -> u64 {
    crate::xxh3_64(name.as_bytes())
}

/// Builds the name index of `names` (`(name, kind, index)`): one slot per distinct
/// `(name, kind)` (the lowest index wins), a power-of-two table at most half full, names
/// inserted in sorted order so the bytes are deterministic. No names give no slots.
///
/// No slot sits more than [`MAX_NAME_INDEX_PROBE`] slots past its home (readers refuse an
/// index where one does, SPEC 6.7): should one, the table is built again twice as long, up to
/// [`MAX_NAME_INDEX_GROWTH`] times. With xxh3-64 keys that never happens in practice (the
/// index of a million names displaces none by more than 36 slots); only
/// hundreds of distinct names whose 64-bit hashes are equal could exhaust the growth, and
/// the index then keeps its displaced slot and fails the reader's load check (the writer
/// validates its output with the reader), never a lookup.
#[must_use]
pub fn build_name_index(mut names: Vec<(String, NameKind, u32)>) -> Vec<NameIndexSlot> {
    names.sort_by(|a, b| (a.0.as_str(), a.1.to_raw(), a.2).cmp(&(b.0.as_str(), b.1.to_raw(), b.2)));
    // The same path may name a binding and a buffer: keep one slot per (name, kind).
    names.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    if names.is_empty() {
        return Vec::new();
    }
    let keys: Vec<(u64, NameKind, u32)> = names
        .iter()
        .map(|(name, kind, index)| (name_hash(name), *kind, *index))
        .collect();
    let mut len = (names.len() * 2).next_power_of_two();
    let mut growth = 0;
    loop {
        let (slots, farthest) = place_name_index(&keys, len);
        if farthest <= MAX_NAME_INDEX_PROBE as usize || growth == MAX_NAME_INDEX_GROWTH {
            return slots;
        }
        len *= 2;
        growth += 1;
    }
}

/// How many times [`build_name_index`] may double a table whose slots sit too far from home.
pub const MAX_NAME_INDEX_GROWTH: u32 = 4;

/// The name index of `keys` (`(hash, kind, index)`) in `len` slots (a power of two, at least
/// twice the keys), and the farthest any slot sits past its home.
fn place_name_index(keys: &[(u64, NameKind, u32)], len: usize) -> (Vec<NameIndexSlot>, usize) {
    let mut slots = vec![NameIndexSlot::EMPTY; len];
    let mut farthest = 0;
    for &(hash, kind, index) in keys {
        let mut i = (hash as usize) & (len - 1);
        let mut displaced = 0;
        // At most half full: the probe meets an empty slot.
        while let Some(slot) = slots.get_mut(i) {
            if slot.is_empty() {
                *slot = NameIndexSlot::new(hash, kind, index);
                break;
            }
            i = (i + 1) & (len - 1);
            displaced += 1;
        }
        farthest = farthest.max(displaced);
    }
    (slots, farthest)
}

/// Whether `slots` (a name index whose length is a power of two) has a used slot more than
/// [`MAX_NAME_INDEX_PROBE`] slots past its home; the first such slot's position. O(slots).
#[must_use]
pub fn name_index_displaced(slots: &[NameIndexSlot]) -> Option<usize> {
    let mask = slots.len().wrapping_sub(1);
    slots.iter().enumerate().position(|(at, slot)| {
        !slot.is_empty()
            && (at.wrapping_sub(slot.hash() as usize) & mask) > MAX_NAME_INDEX_PROBE as usize
    })
}

/// The indices the name index `slots` holds for `name` under `kind`, in probe order: the
/// candidates a lookup confirms by comparing the name itself (hashes can collide). Allocates
/// nothing; visits at most [`MAX_NAME_INDEX_PROBE`] + 1 slots and each slot at most once, so
/// a full table of any bytes ends too (a name further than that from its home, which readers
/// refuse at load, is not found).
#[inline]
#[must_use]
pub fn probe_name_index<'a>(
    slots: &'a [NameIndexSlot],
    name: &str,
    kind: NameKind,
) -> NameProbeIter<'a> {
    let hash = name_hash(name);
    let mask = slots.len().wrapping_sub(1);
    NameProbeIter {
        slots,
        hash,
        kind,
        at: (hash as usize) & mask,
        // A name sits at most MAX_NAME_INDEX_PROBE slots past its home (checked at load).
        left: if slots.len().is_power_of_two() {
            slots.len().min(MAX_NAME_INDEX_PROBE as usize + 1)
        } else {
            0
        },
    }
}

/// Iterator over a name's candidate indices ([`probe_name_index`]).
#[derive(Debug, Clone)]
pub struct NameProbeIter<'a> {
    slots: &'a [NameIndexSlot],
    hash: u64,
    kind: NameKind,
    at: usize,
    left: usize,
}

impl Iterator for NameProbeIter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.left > 0 {
            self.left -= 1;
            let slot = self.slots.get(self.at)?;
            self.at = (self.at + 1) & (self.slots.len() - 1);
            if slot.is_empty() {
                self.left = 0;
                return None;
            }
            if slot.hash() == self.hash && slot.kind() == Some(self.kind) {
                return Some(slot.index());
            }
        }
        None
    }
}

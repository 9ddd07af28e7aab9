//! The reader's own table of a bind view's names ([`NameTable`]): the arena, the placement
//! and the lookup, the check that the baked index's probe reaches every slot, and the byte
//! comparison lookups confirm a name with. The load fills it from the bind view
//! ([`crate::bind::BindView::name_table`]).

use slangpack_format::bind::*;
use slangpack_format::limits::MAX_NAME_INDEX_PROBE;
use slangpack_format::ABSENT;

/// The reader's own hash table of a blob's names, built at load from the baked name index (or,
/// for derived names, 2.5, from the records: [`crate::bind::BindView`]'s `derived_name_table`):
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
/// name resolves (its record has a name with the slot's hash, and only one), no two slots of
/// one kind share a hash (so no two stand for one name and kind), every slot is reachable by
/// the baked index's probe, and no entry would sit more than [`MAX_DISPLACEMENT`] entries past
/// its home. Otherwise (a damaged or hostile blob, or names crafted to collide under
/// [`probe_hash`]) the table stays empty and lookups probe the baked index, whose probe the
/// load bounded the same way. Filling it costs O(slots × [`MAX_DISPLACEMENT`]) and the bytes of
/// the names it spells, each counted against the package's budget before it is spelled.
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
pub(crate) struct NameEntry {
    hash: u64,
    target: u32,
    start: u32,
    len: u32,
    layout: u32,
}

impl NameEntry {
    /// An unused entry.
    pub(crate) const EMPTY: NameEntry = NameEntry {
        hash: 0,
        target: ABSENT,
        start: 0,
        len: 0,
        layout: ABSENT,
    };

    fn is_empty(&self) -> bool {
        self.target == ABSENT
    }

    /// The entry of the name `spelled` at `start..start + len` in the arena, standing for
    /// `target` (a baked slot's), with buffer layout `layout` for a member.
    pub(crate) fn new(spelled: &str, target: u32, start: u32, len: u32, layout: u32) -> Self {
        NameEntry {
            hash: probe_hash(spelled.as_bytes()),
            target,
            start,
            len,
            layout,
        }
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

    /// The bytes the table keeps (what [`crate::bind::BindView::name_table`] counted against
    /// the limit).
    pub(crate) fn owned_size(&self) -> u64 {
        (self.text.len() + self.entries.len() * size_of::<NameEntry>()) as u64
    }

    /// An empty table of `capacity` entries (a power of two) with an empty arena.
    pub(crate) fn with_capacity(capacity: usize) -> NameTable {
        NameTable {
            text: String::new(),
            entries: vec![NameEntry::EMPTY; capacity],
            rotation: 0,
        }
    }

    /// The bytes of the names spelled so far.
    pub(crate) fn text_len(&self) -> usize {
        self.text.len()
    }

    /// Spells `parts` out at the end of the arena: the name's start, and the name. The arena
    /// grows (doubling, as a `String` does) but never past `limit` bytes of capacity, what
    /// the caller counted against the budget; `limit` is at least the arena's length with the
    /// name.
    pub(crate) fn spell(&mut self, parts: [&str; 3], limit: usize) -> (usize, &str) {
        let start = self.text.len();
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let need = start.saturating_add(len);
        if need > self.text.capacity() {
            let grown = need
                .max(self.text.capacity().saturating_mul(2))
                .min(limit.max(need));
            self.text.reserve_exact(grown - start);
        }
        self.text.extend(parts);
        (start, self.text.get(start..).unwrap_or_default())
    }

    /// Leaves in `entries` (whose names are in the arena) one of each name and kind: the
    /// one of lowest index. O(n log n) comparisons, by hash first.
    pub(crate) fn keep_lowest_of_each_name(&self, entries: &mut Vec<NameEntry>) {
        let text = self.text.as_bytes();
        let name = |e: &NameEntry| {
            let start = e.start as usize;
            text.get(start..start.saturating_add(e.len as usize))
                .unwrap_or_default()
        };
        let key = |e: &NameEntry| (e.target >> 28, e.hash);
        entries.sort_unstable_by(|a, b| {
            key(a)
                .cmp(&key(b))
                .then_with(|| name(a).cmp(name(b)))
                .then_with(|| (a.target & NAME_INDEX_MASK).cmp(&(b.target & NAME_INDEX_MASK)))
        });
        entries.dedup_by(|later, first| key(later) == key(first) && name(later) == name(first));
    }

    /// Rotations of the hash [`NameTable::place`] tries: four disjoint 16-bit windows of it.
    const ROTATIONS: [u32; 4] = [0, 16, 32, 48];

    /// Places `entries` (whose names are in the arena, no two of one name and kind) in the
    /// table, which holds none yet, under the rotation that leaves the fewest probes past an
    /// entry's home slot, stopping at the first that leaves none: a lookup of a name that is
    /// there then usually reads one entry. `false` when every rotation would put some entry
    /// more than [`MAX_DISPLACEMENT`] entries past its home (names whose [`probe_hash`]es
    /// collide): the table is then left unused, and filling it cost O(entries ×
    /// [`MAX_DISPLACEMENT`]) per rotation, never a probe per entry placed before.
    ///
    /// The rotations are compared on a bitmap of the occupied slots (how far linear probing
    /// displaces an entry depends on nothing else), and the entries are inserted once, under
    /// the rotation chosen: the table itself is filled once, not once per rotation tried.
    pub(crate) fn place(&mut self, entries: &[NameEntry]) -> bool {
        let mask = self.entries.len().wrapping_sub(1);
        let words = self.entries.len().div_ceil(64);
        let (mut on_stack, mut on_heap) = ([0u64; TAKEN_ON_STACK], Vec::new());
        let taken: &mut [u64] = if words <= TAKEN_ON_STACK {
            on_stack.get_mut(..words).unwrap_or_default()
        } else {
            on_heap.resize(words, 0);
            &mut on_heap
        };
        let mut best = None;
        'rotations: for rotation in Self::ROTATIONS {
            taken.fill(0);
            let mut displaced = 0;
            for entry in entries {
                let mut at = entry.hash.rotate_right(rotation) as usize & mask;
                let mut probes = 0;
                loop {
                    let Some(word) = taken.get_mut(at / 64) else {
                        return false;
                    };
                    let bit = 1u64 << (at % 64);
                    if *word & bit == 0 {
                        *word |= bit;
                        break;
                    }
                    at = (at + 1) & mask;
                    probes += 1;
                    if probes > MAX_DISPLACEMENT {
                        continue 'rotations;
                    }
                }
                displaced += probes;
            }
            if best.is_none_or(|(fewest, _)| displaced < fewest) {
                best = Some((displaced, rotation));
            }
            if displaced == 0 {
                break;
            }
        }
        let Some((_, rotation)) = best else {
            return false;
        };
        self.rotation = rotation;
        debug_assert!(self.entries.iter().all(NameEntry::is_empty));
        entries.iter().all(|e| self.insert(*e).is_some())
    }

    /// The home slot of `hash` (the table's length is a power of two).
    #[inline]
    fn home(&self, hash: u64) -> usize {
        hash.rotate_right(self.rotation) as usize & self.entries.len().wrapping_sub(1)
    }

    /// Inserts `entry`, whose name is in the arena and differs from every entry's of its kind
    /// already there (the caller's promise: names are not compared here), returning how many
    /// slots past its home it went; `None` when it would go more than [`MAX_DISPLACEMENT`]
    /// past it.
    fn insert(&mut self, entry: NameEntry) -> Option<usize> {
        let mask = self.entries.len() - 1;
        let mut at = self.home(entry.hash);
        for probes in 0..=MAX_DISPLACEMENT {
            let e = self.entries.get_mut(at)?;
            if e.is_empty() {
                *e = entry;
                return Some(probes);
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// The table as a lookup reads it: its slices and rotation by value, which a
    /// [`crate::bind::BindView`] holds, so that a lookup reads them from the view itself
    /// rather than through a pointer to the table first (one dependent load fewer).
    pub(crate) fn lookup(&self) -> NameLookup<'_> {
        NameLookup {
            text: self.text.as_bytes(),
            entries: &self.entries,
            rotation: self.rotation,
        }
    }
}

/// A [`NameTable`] borrowed for lookups ([`NameTable::lookup`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameLookup<'a> {
    text: &'a [u8],
    entries: &'a [NameEntry],
    rotation: u32,
}

impl NameLookup<'_> {
    /// The lookup of no table ([`NameTable::EMPTY`]): [`NameLookup::is_built`] is false.
    #[cfg(test)]
    pub(crate) const EMPTY: NameLookup<'static> = NameLookup {
        text: &[],
        entries: &[],
        rotation: 0,
    };

    /// The entry named `name` of kind `kind`: `(index, layout)`. `None` when there is no such
    /// name (or no table: [`NameLookup::EMPTY`]).
    #[inline(always)]
    pub(crate) fn find(&self, name: &[u8], kind: NameKind) -> Option<(u32, u32)> {
        let hash = probe_hash(name);
        let kind = NameEntry::target(kind, 0);
        let mask = self.entries.len().wrapping_sub(1);
        let mut at = hash.rotate_right(self.rotation) as usize & mask;
        // No entry sits more than MAX_DISPLACEMENT past its home ([`NameTable::place`]).
        for _ in 0..=MAX_DISPLACEMENT {
            let e = self.entries.get(at)?;
            // The kind is the target's top 4 bits; an empty entry's (absent) matches none.
            if e.hash == hash && (e.target ^ kind) >> 28 == 0 && e.len as usize == name.len() {
                let start = e.start as usize;
                let spelled = self.text.get(start..start + e.len as usize).unwrap_or(&[]);
                if same_bytes(spelled, name) {
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
    #[inline]
    pub(crate) fn is_built(&self) -> bool {
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

/// Farthest an entry of a [`NameTable`] may sit past its home: the baked index's bound
/// ([`slangpack_format::limits::MAX_NAME_INDEX_PROBE`]), which a table at most a quarter full
/// of honest names never comes near. Bounds the fill to O(entries × this) and every lookup to
/// this many entries past the home, whatever the names.
pub(crate) const MAX_DISPLACEMENT: usize = slangpack_format::limits::MAX_NAME_INDEX_PROBE as usize;

/// Whether no two used slots of one kind of the baked index `slots` share a hash: then no two
/// stand for one name and kind (each slot's name hashes to its slot's hash), and the
/// [`NameTable`] needs to compare no names to fill. Two slots with one hash share a home, so
/// the later lies within [`MAX_NAME_INDEX_PROBE`] slots of it (the load checked that bound):
/// each slot is compared with the slots from its home to itself, O(slots ×
/// `MAX_NAME_INDEX_PROBE`) at worst, O(slots) for a writer's table.
pub(crate) fn baked_hashes_distinct(slots: &[NameIndexSlot]) -> bool {
    let mask = slots.len().wrapping_sub(1);
    slots.iter().enumerate().all(|(at, slot)| {
        if slot.is_empty() {
            return true;
        }
        let home = slot.hash() as usize & mask;
        let before = at.wrapping_sub(home) & mask;
        if before > MAX_NAME_INDEX_PROBE as usize {
            return false;
        }
        (1..=before).all(|back| {
            slots.get(at.wrapping_sub(back) & mask).is_none_or(|other| {
                other.is_empty() || other.hash() != slot.hash() || other.kind() != slot.kind()
            })
        })
    })
}

/// Whether the baked index's linear probe, which starts at a slot's hash and stops at the
/// first empty slot, reaches every used slot (a writer's table always; a damaged one may
/// leave a slot behind an empty one, which no lookup then finds). O(slots).
pub(crate) fn baked_probe_reaches_every_slot(slots: &[NameIndexSlot]) -> bool {
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

/// Words of occupancy bitmap (64 slots each) [`NameTable::place`] keeps on the stack.
const TAKEN_ON_STACK: usize = 16;

/// `a == b` for the short names a lookup confirms, inline: lengths first, then 8-byte words
/// (the last one overlapping), so that the hot path makes no call into `memcmp`.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
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
    // 16 to 32 bytes (most paths, `gScene.material.textures.albedo`): the first and the last
    // 16, overlapping, as two 128-bit compares.
    if (16..=32).contains(&n) {
        let half = |s: &[u8], at: usize| -> u128 {
            s.get(at..at + 16)
                .and_then(|w| <[u8; 16]>::try_from(w).ok())
                .map_or(0, u128::from_ne_bytes)
        };
        return half(a, 0) == half(b, 0) && half(a, n - 16) == half(b, n - 16);
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
mod tests;

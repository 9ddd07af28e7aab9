//! Filling the reader's [`NameTable`] from a bind view at load: each baked slot's name
//! spelled out and matched to the slot's hash.

use super::BindView;
use crate::names::{baked_hashes_distinct, baked_probe_reaches_every_slot, NameEntry, NameTable};
use slangpack_format::bind::*;
use slangpack_format::ABSENT;

/// Names a view may have for [`BindView::name_table`] to gather their entries on the stack.
const PENDING_ON_STACK: usize = 64;

/// The least [`BindView::name_table`] counts against the budget for names at a time (then
/// twice what it counted so far): a view's names cost a few calls to the budget, and the bytes
/// counted beyond those spelled are at most this or as many as were spelled.
const CHARGE_CHUNK: u64 = 1 << 10;

impl BindView<'_> {
    /// Builds the reader's [`NameTable`] of this view's name index (whose records the load
    /// has checked: at most half full, no slot farther than `MAX_NAME_INDEX_PROBE` from its
    /// home), counting the bytes it keeps against the package's limit through `reserve`
    /// before allocating them; the [`NameTable::EMPTY`] table where it cannot mirror the baked
    /// index exactly.
    ///
    /// # Errors
    /// `LimitExceeded` from `reserve`: the table's entries, or the names it spells (each
    /// counted before it is spelled, so a package whose slots spell more than the budget is
    /// refused before the memory is taken).
    pub(crate) fn name_table(
        &self,
        reserve: &dyn Fn(u64) -> crate::error::Result<()>,
    ) -> crate::error::Result<NameTable> {
        let bind = self;
        let slots = bind.names;
        if derived_names(slots) {
            return self.derived_name_table(reserve);
        }
        let used = slots.iter().filter(|s| !s.is_empty()).count();
        if used == 0
            || !slots.len().is_power_of_two()
            || !baked_probe_reaches_every_slot(slots)
            || !baked_hashes_distinct(slots)
        {
            return Ok(NameTable::EMPTY);
        }
        let capacity = used.saturating_mul(4).next_power_of_two();
        // The table, the entries gathered for it and the placement's bitmap, counted at once.
        let entry = size_of::<NameEntry>();
        reserve(((capacity + used) * entry + capacity / 8) as u64)?;
        let mut table = NameTable::with_capacity(capacity);
        // The entries until they are placed: on the stack for the few names most views have.
        let mut on_stack = [NameEntry::EMPTY; PENDING_ON_STACK];
        let mut on_heap = Vec::new();
        let pending: &mut [NameEntry] = if used <= PENDING_ON_STACK {
            on_stack.get_mut(..used).unwrap_or_default()
        } else {
            on_heap.resize(used, NameEntry::EMPTY);
            &mut on_heap
        };
        // The names' bytes: each slot's are counted (with the bytes hashed to tell a binding's
        // two names apart) before they are hashed or spelled, in chunks that double, so that
        // an honest view makes a few calls to `reserve` and the arena never holds more than
        // was counted. No two slots of one kind share a hash (checked above), so no name is
        // spelled twice.
        let (mut counted, mut charged) = (0u64, 0u64);
        let mut charge = |bytes: usize| -> crate::error::Result<usize> {
            counted = counted.saturating_add(bytes as u64);
            if counted > charged {
                let to = counted.max(charged.saturating_mul(2)).max(CHARGE_CHUNK);
                reserve(to - charged)?;
                charged = to;
            }
            Ok(usize::try_from(charged).unwrap_or(usize::MAX))
        };
        let mut placed = 0;
        for slot in slots.iter().filter(|s| !s.is_empty()) {
            let index = slot.index() as usize;
            // The name the slot stands for, as parts to concatenate, and for a member its
            // buffer layout. A binding answers to its path and to its sampler's path: the one
            // with the slot's hash (both, and different: a crafted collision, not mirrored).
            let hash = slot.hash();
            let mut layout = ABSENT;
            let mut limit = 0;
            let parts: Option<[&str; 3]> = match slot.kind() {
                Some(NameKind::Binding) => match bind.bindings.get(index) {
                    Some(b) => {
                        let (path, sampler) = (bind.string(b.path), bind.string(b.sampler_path));
                        limit = charge(path.len() + sampler.len())?;
                        // A binding without a sampler of its own has no second name to hash.
                        let has_sampler = !sampler.is_empty() && sampler != path;
                        let sampler_hashes = || has_sampler && name_hash(sampler) == hash;
                        match (name_hash(path) == hash, sampler_hashes()) {
                            (true, true) => None,
                            (true, false) => Some([path, "", ""]),
                            (false, true) => Some([sampler, "", ""]),
                            (false, false) => None,
                        }
                    }
                    None => None,
                },
                Some(NameKind::Buffer) => match bind.layouts.get(index) {
                    Some(l) => {
                        let name = bind.string(l.name);
                        limit = charge(name.len())?;
                        (name_hash(name) == hash).then_some([name, "", ""])
                    }
                    None => None,
                },
                Some(NameKind::Member) => {
                    let owner = bind.owner(index);
                    layout = owner.map_or(ABSENT, |o| o as u32);
                    match (
                        bind.members.get(index),
                        owner.and_then(|o| bind.layouts.get(o)),
                    ) {
                        (Some(m), Some(l)) => {
                            let (buffer, path) = (bind.string(l.name), bind.string(m.path));
                            limit = charge(buffer.len() + 1 + path.len())?;
                            let dot = if buffer.is_empty() { "" } else { "." };
                            Some([buffer, dot, path])
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            let Some(parts) = parts else {
                return Ok(NameTable::EMPTY);
            };
            let (start, spelled) = table.spell(parts, limit);
            let (Ok(start), Ok(len)) = (u32::try_from(start), u32::try_from(spelled.len())) else {
                return Ok(NameTable::EMPTY);
            };
            // A binding's or buffer's name was matched to the hash above; a member's is
            // spelled only now.
            if slot.kind() == Some(NameKind::Member) && name_hash(spelled) != hash {
                return Ok(NameTable::EMPTY);
            }
            let Some(next) = pending.get_mut(placed) else {
                return Ok(NameTable::EMPTY);
            };
            *next = NameEntry::new(spelled, slot.target, start, len, layout);
            placed += 1;
        }
        debug_assert!(table.text_len() as u64 <= charged);
        if !table.place(pending.get(..placed).unwrap_or_default()) {
            return Ok(NameTable::EMPTY);
        }
        Ok(table)
    }
}

impl<'a> BindView<'a> {
    /// The reader's [`NameTable`] of a view whose names are derived from its records (2.5,
    /// [`derived_names`]): every name spelled once, and of each name and kind only the record
    /// of lowest index, as a baked index keeps. The bytes it keeps are counted against the
    /// package's limit through `reserve` before they are allocated (the names' lengths are
    /// summed first). The [`NameTable::EMPTY`] table where the names cannot be placed (names
    /// crafted to collide under the table's hash): lookups then scan the records
    /// ([`BindView::lookup`]).
    ///
    /// # Errors
    /// `LimitExceeded` from `reserve`.
    fn derived_name_table(
        &self,
        reserve: &dyn Fn(u64) -> crate::error::Result<()>,
    ) -> crate::error::Result<NameTable> {
        let (mut used, mut bytes) = (0usize, 0usize);
        for (parts, _, _) in self.record_names() {
            used += 1;
            bytes = bytes.saturating_add(parts.iter().map(|p| p.len()).sum());
        }
        if used == 0 {
            return Ok(NameTable::EMPTY);
        }
        let capacity = used.saturating_mul(4).next_power_of_two();
        let entry = size_of::<NameEntry>();
        let table_bytes = (capacity.saturating_add(used))
            .saturating_mul(entry)
            .saturating_add(capacity / 8);
        reserve(table_bytes.saturating_add(bytes) as u64)?;
        let mut table = NameTable::with_capacity(capacity);
        let mut entries = Vec::with_capacity(used);
        for (parts, target, layout) in self.record_names() {
            let (start, spelled) = table.spell(parts, bytes);
            let (Ok(start), Ok(len)) = (u32::try_from(start), u32::try_from(spelled.len())) else {
                return Ok(NameTable::EMPTY);
            };
            entries.push(NameEntry::new(spelled, target, start, len, layout));
        }
        table.keep_lowest_of_each_name(&mut entries);
        if !table.place(&entries) {
            return Ok(NameTable::EMPTY);
        }
        Ok(table)
    }

    /// Every name the records give, in record order ([`derived_names`]): the name as parts to
    /// concatenate, the target (`kind << 28 | index`) and, for a member, its buffer layout
    /// (else absent). Empty names are left out.
    fn record_names(&self) -> impl Iterator<Item = ([&'a str; 3], u32, u32)> + '_ {
        let bindings = (0..self.bindings.len()).flat_map(move |i| {
            let b = self.bindings.get(i);
            let (path, sampler) = b.map_or(("", ""), |b| {
                (self.string(b.path), self.string(b.sampler_path))
            });
            let target = name_target(NAME_BINDING, i as u32);
            let sampler = (sampler != path).then_some(sampler);
            [Some(path), sampler]
                .into_iter()
                .flatten()
                .filter(|name| !name.is_empty())
                .map(move |name| ([name, "", ""], target, ABSENT))
        });
        let buffers = self.layouts.iter().enumerate().filter_map(|(i, l)| {
            let name = self.string(l.name);
            (!name.is_empty()).then(|| ([name, "", ""], name_target(NAME_BUFFER, i as u32), ABSENT))
        });
        let members = self.members.iter().enumerate().filter_map(|(i, m)| {
            let path = self.string(m.path);
            if !member_has_name(path) {
                return None;
            }
            let owner = self.owner(i)?;
            let buffer = self.string(self.layouts.get(owner)?.name);
            let dot = if buffer.is_empty() { "" } else { "." };
            Some((
                [buffer, dot, path],
                name_target(NAME_MEMBER, i as u32),
                owner as u32,
            ))
        });
        bindings.chain(buffers).chain(members)
    }
}

/// Whether a member with path `path` has a name of its own ([`derived_names`]): not an empty
/// path, nor one under `[]`.
pub(crate) fn member_has_name(path: &str) -> bool {
    !path.is_empty() && !path.contains("[]")
}

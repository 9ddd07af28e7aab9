//! Filling the reader's [`NameTable`] from a bind view at load: each baked slot's name
//! spelled out and matched to the slot's hash.

use super::BindView;
use crate::names::{baked_probe_reaches_every_slot, NameEntry, NameTable};
use slangpack_format::bind::*;
use slangpack_format::ABSENT;

/// Names a view may have for [`BindView::name_table`] to gather their entries on the stack.
const PENDING_ON_STACK: usize = 64;

impl BindView<'_> {
    /// Builds the reader's [`NameTable`] of this view's name index (whose records the load
    /// has checked), counting the bytes it keeps against the package's limit through
    /// `reserve`; the [`NameTable::EMPTY`] table where it cannot mirror the baked index
    /// exactly.
    pub(crate) fn name_table(
        &self,
        reserve: &dyn Fn(u64) -> crate::error::Result<()>,
    ) -> crate::error::Result<NameTable> {
        let bind = self;
        let slots = bind.names;
        let used = slots.iter().filter(|s| !s.is_empty()).count();
        if used == 0 || !slots.len().is_power_of_two() || !baked_probe_reaches_every_slot(slots) {
            return Ok(NameTable::EMPTY);
        }
        let capacity = used.saturating_mul(4).next_power_of_two();
        // The table and the entries gathered for it, counted at once; the spelled names once
        // spelled (each at most two of the view's strings and a dot, so the arena is bounded
        // by the view before it is counted).
        reserve(((capacity + used) * size_of::<NameEntry>()) as u64)?;
        let mut table = NameTable::with_capacity(bind.strings.len(), capacity);
        // The entries until they are placed: on the stack for the few names most views have.
        let mut on_stack = [NameEntry::EMPTY; PENDING_ON_STACK];
        let mut on_heap = Vec::new();
        let pending: &mut [NameEntry] = if used <= PENDING_ON_STACK {
            on_stack.get_mut(..used).unwrap_or_default()
        } else {
            on_heap.resize(used, NameEntry::EMPTY);
            &mut on_heap
        };
        let mut placed = 0;
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
            let (start, spelled) = table.spell(parts);
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
        reserve(table.text_len() as u64)?;
        if !table.place(pending.get(..placed).unwrap_or_default()) {
            return Ok(NameTable::EMPTY);
        }
        Ok(table)
    }
}

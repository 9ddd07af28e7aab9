//! Which entry points use each binding and push-constant block, from the emitted code: the
//! SPIR-V of an entry point declares exactly the descriptors and the push-constant block it
//! uses (Slang drops the rest).
//!
//! One source file may hold several pipelines (a vertex/fragment pair and a compute kernel)
//! whose globals reuse set and binding numbers. Slang's own usage metadata is keyed by set and
//! binding, so it cannot tell such globals apart; the SPIR-V variable's name (Slang names it
//! after the parameter's path) does. Two different resources at one place are a conflict only
//! when one entry point uses both; two push-constant blocks only when one entry point declares
//! both.

use super::check::{push_constant_for, EntrySpirv};
use super::walk::{BindingOut, Walk};
use super::*;
use crate::spirv::DescriptorVariable;

/// Whether binding `b` may be what entry point `ep`'s SPIR-V descriptor `var` declares (same
/// place, a real descriptor, a global or a `uniform` parameter of `ep`).
fn at_place(b: &BindingOut, ep: usize, var: &DescriptorVariable) -> bool {
    (b.set, b.binding) == (var.set, var.binding)
        && b.count_kind != COUNT_ZERO
        && b.entry_point.is_none_or(|e| e == ep)
}

/// Whether SPIR-V variable name `name` is binding `b`'s: its path or its sampler's path, or,
/// for an entry point's `uniform` parameter, Slang's `entryPointParams.<parameter path>`.
fn named(b: &BindingOut, name: &str) -> bool {
    if b.path == name || b.sampler_path.as_deref() == Some(name) {
        return true;
    }
    let parameter = |path: &str| {
        // The path without its leading entry-point name.
        let relative = path.split_once('.').map_or("", |(_, rest)| rest);
        match name.strip_prefix("entryPointParams") {
            Some("") => relative.is_empty(),
            Some(rest) => rest.strip_prefix('.') == Some(relative),
            None => false,
        }
    };
    b.entry_point.is_some()
        && (parameter(&b.path) || b.sampler_path.as_deref().is_some_and(parameter))
}

/// The binding of the walk that entry point `ep`'s SPIR-V descriptor `var` is: the only one at
/// its set and binding, or, where bindings of several pipelines share the place, the one the
/// variable is named after (its path, or the sampler path of a combined image sampler).
/// `None` when nothing (or nothing unambiguous) is there.
pub(super) fn binding_for(walk: &Walk<'_>, ep: usize, var: &DescriptorVariable) -> Option<usize> {
    let mut at = (0..walk.bindings.len()).filter(|&i| at_place(&walk.bindings[i], ep, var));
    let first = at.next()?;
    let Some(second) = at.next() else {
        return Some(first);
    };
    let mut named_at = [first, second]
        .into_iter()
        .chain(at)
        .filter(|&i| named(&walk.bindings[i], &var.name));
    let found = named_at.next()?;
    named_at.next().is_none().then_some(found)
}

/// How a binding is named in messages: its path, or what the implicit global buffer is.
fn display_path(path: &str) -> &str {
    if path.is_empty() {
        "the global uniform buffer"
    } else {
        path
    }
}

/// Sets the entry-point masks of bindings and push-constant blocks from each entry point's
/// SPIR-V, and the SPIR-V names of bindings.
///
/// # Errors
/// A descriptor whose binding cannot be told apart from others at its place, or an entry
/// point that declares two push-constant blocks (Vulkan allows one per entry point).
/// Descriptors and blocks the walk did not find at all are left to [`super::check::check`].
pub(super) fn mark(
    key: &str,
    walk: &mut Walk<'_>,
    entry_points: &[EntrySpirv<'_>],
) -> Result<(), BakeError> {
    for (ep, entry) in entry_points.iter().enumerate() {
        for var in &entry.facts.descriptors {
            let Some(found) = binding_for(walk, ep, var) else {
                let paths: Vec<&str> = (walk.bindings.iter())
                    .filter(|b| at_place(b, ep, var))
                    .map(|b| display_path(&b.path))
                    .collect();
                if paths.is_empty() {
                    continue;
                }
                return Err(BakeError::Slang(format!(
                    "{key}: entry point `{}` declares `{}` at set {} binding {}, where `{}` are \
                     declared; its SPIR-V name does not tell which one it is",
                    entry.name,
                    var.name,
                    var.set,
                    var.binding,
                    paths.join("`, `")
                )));
            };
            let b = &mut walk.bindings[found];
            b.entry_point_mask |= 1 << ep;
            if b.spirv_name.is_empty() {
                b.spirv_name.clone_from(&var.name);
            }
        }

        let declared: Vec<usize> = (entry.facts.push_constants.iter())
            .filter_map(|var| push_constant_for(walk, ep, &var.name))
            .collect();
        if let [a, b, ..] = declared.as_slice() {
            let describe = |p: usize| {
                let push = &walk.push_constants[p];
                match push.entry_point {
                    Some(_) => format!("`{}` (its `uniform` parameters)", push.name),
                    None => format!("`{}`", push.name),
                }
            };
            return Err(BakeError::Input(format!(
                "{key}: entry point `{}` needs two push-constant blocks, {} and {}; Vulkan allows \
                 one per entry point (move the `uniform` parameters into the global block, or \
                 read the global block in another entry point)",
                entry.name,
                describe(*a),
                describe(*b)
            )));
        }
        for p in declared {
            walk.push_constants[p].entry_point_mask |= 1 << ep;
        }
    }
    Ok(())
}

/// The `VkShaderStageFlags` of the entry points in `mask`.
pub(super) fn stages_of(mask: u32, entry_points: &[EntrySpirv<'_>]) -> u32 {
    (entry_points.iter().enumerate())
        .filter(|(i, _)| mask & (1 << i) != 0)
        .fold(0, |flags, (_, e)| flags | e.stage)
}

/// Two bindings at one place (`bindings` is sorted by set and binding) are a conflict only
/// when one entry point uses both.
///
/// # Errors
/// [`BakeError::Input`] naming both bindings and the entry point.
pub(super) fn check_shared_places(
    key: &str,
    bindings: &[BindingOut],
    entry_points: &[EntrySpirv<'_>],
) -> Result<(), BakeError> {
    for (i, a) in bindings.iter().enumerate() {
        let same_place = bindings[i + 1..]
            .iter()
            .take_while(|b| (b.set, b.binding) == (a.set, a.binding));
        for b in same_place {
            let both = a.entry_point_mask & b.entry_point_mask;
            if both != 0 {
                let ep = entry_points
                    .get(both.trailing_zeros() as usize)
                    .map_or("", |e| e.name);
                return Err(BakeError::Input(format!(
                    "{key}: entry point `{ep}` uses both `{}` and `{}` at set {} binding {}; \
                     one pipeline cannot bind two resources at one place",
                    display_path(&a.path),
                    display_path(&b.path),
                    a.set,
                    a.binding
                )));
            }
        }
    }
    Ok(())
}

//! Slang's descriptor-heap bindless (`Texture2D.Handle`, `DescriptorHandle<T>`): Slang
//! synthesizes the heap — unbounded descriptor arrays named `__slang_resource_heap` in the
//! bindless space — while lowering to SPIR-V, after layout, so its reflection never lists it.
//! The bind view takes each heap binding from the SPIR-V of the entry points that declare it.
//! One heap binding aliasing several descriptor types is a mutable descriptor.

use super::walk::BindingOut;
use super::*;
use crate::spirv::Block;
use check::EntrySpirv;
use std::collections::BTreeMap;
use walk::Walk;

/// The SPIR-V name Slang gives its synthesized heaps.
pub(super) const HEAP: &str = "__slang_resource_heap";

/// Adds one unbounded binding per heap set and binding the SPIR-V declares, named
/// `__slang_resource_heap.<kind>`. Where Slang aliases descriptors of several types at one
/// heap binding (`Texture2D.Handle` and `RWStructuredBuffer<T>.Handle` in one program), the
/// binding is a mutable descriptor (`VK_DESCRIPTOR_TYPE_MUTABLE_EXT`,
/// `VK_EXT_mutable_descriptor_type`) listing those types, named
/// `__slang_resource_heap.mutable`.
///
/// # Errors
/// [`BakeError::Input`] when a heap binding aliases a descriptor type that a mutable
/// descriptor cannot hold (Vulkan allows only the core types below 32 there).
pub(super) fn add_heaps(
    key: &str,
    bindings: &mut Vec<BindingOut>,
    entry_points: &[EntrySpirv<'_>],
) -> Result<(), BakeError> {
    let mut heaps: BTreeMap<(u32, u32), Vec<DescriptorKind>> = BTreeMap::new();
    for entry in entry_points {
        for var in entry.facts.descriptors.iter().filter(|v| v.name == HEAP) {
            let kinds = heaps.entry((var.set, var.binding)).or_default();
            if let Some(kind) = var.descriptor_type.filter(|k| !kinds.contains(k)) {
                kinds.push(kind);
            }
        }
    }
    for ((set, binding), mut kinds) in heaps {
        kinds.sort_by_key(|k| k.to_raw());
        let (kind, mutable_types) = match kinds.as_slice() {
            [kind] => (*kind, 0),
            _ => {
                let mut types = 0u32;
                for k in &kinds {
                    if !MUTABLE_KINDS.contains(k) {
                        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
                        return Err(BakeError::Input(format!(
                            "{key}: Slang's descriptor heap `{HEAP}` at set {set} binding \
                             {binding} holds {} descriptors at one binding; Vulkan binds that \
                             only as a mutable descriptor (VK_EXT_mutable_descriptor_type), \
                             which cannot hold {} descriptors",
                            names.join(" and "),
                            k.name()
                        )));
                    }
                    types |= 1 << k.to_raw();
                }
                (DescriptorKind::Mutable, types)
            }
        };
        let path = format!("{HEAP}.{}", kind.name());
        bindings.push(BindingOut {
            descriptor_type: kind.to_raw(),
            count: 0,
            count_kind: COUNT_UNBOUNDED,
            flags: BINDING_DESCRIPTOR_HEAP,
            mutable_types,
            ..BindingOut::uniform_buffer(&path, set, binding, 0, None, 0)
        });
    }
    Ok(())
}

/// The descriptor types a mutable descriptor may hold (`VkMutableDescriptorTypeListEXT`:
/// not the dynamic buffers, inline uniform blocks or mutable itself, and, in a 32-bit
/// mask, only core types).
const MUTABLE_KINDS: [DescriptorKind; 7] = [
    DescriptorKind::Sampler,
    DescriptorKind::SampledImage,
    DescriptorKind::StorageImage,
    DescriptorKind::UniformTexelBuffer,
    DescriptorKind::StorageTexelBuffer,
    DescriptorKind::UniformBuffer,
    DescriptorKind::StorageBuffer,
];

/// The heap buffer (a constant buffer reached through a descriptor handle) that the heap
/// variable at `set` and `binding` whose element block is named `type_name` holds: Slang
/// names the block after the element type and its layout rules (`ModelData_std140`).
pub(super) fn heap_buffer_for(
    walk: &Walk<'_>,
    set: u32,
    binding: u32,
    type_name: &str,
) -> Option<usize> {
    (walk.buffers.iter().enumerate())
        .filter(|(_, b)| b.kind == BUFFER_HEAP && b.set == set && b.binding == binding)
        .filter(|(i, _)| !walk.heap_storage.contains(i))
        .filter(|(_, b)| {
            type_name == b.name
                || type_name
                    .strip_prefix(b.name.as_str())
                    .is_some_and(|rest| rest.starts_with('_'))
        })
        .max_by_key(|(_, b)| b.name.len())
        .map(|(i, _)| i)
}

/// The heap buffer (the element of a structured buffer reached through a descriptor handle)
/// that the storage-buffer heap variable at `set` and `binding` holding `block` describes:
/// Slang names the element type after its layout rules (`Particle_std430`). An element with
/// no name in the SPIR-V (a scalar or vector) is the heap storage buffer whose element is no
/// struct and whose stride is the runtime array's.
pub(super) fn heap_storage_for(
    walk: &Walk<'_>,
    set: u32,
    binding: u32,
    block: &Block,
) -> Option<usize> {
    let stride = block.members.first().and_then(|m| m.array_stride);
    let element = block.element_type_name.as_str();
    let mut candidates = (walk.heap_storage.iter().copied())
        .filter(|&i| walk.buffers[i].set == set && walk.buffers[i].binding == binding);
    if element.is_empty() {
        return candidates.find(|&i| {
            walk.buffers[i].members.is_empty() && Some(walk.buffers[i].stride) == stride
        });
    }
    (candidates.filter(|&i| {
        let name = walk.buffers[i].name.as_str();
        element == name
            || element
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('_'))
    }))
    .max_by_key(|&i| walk.buffers[i].name.len())
}

//! Slang's descriptor-heap bindless (`Texture2D.Handle`, `DescriptorHandle<T>`): Slang
//! synthesizes the heap — unbounded descriptor arrays named `__slang_resource_heap` in the
//! bindless space — while lowering to SPIR-V, after layout, so its reflection never lists it.
//! The bind view takes each heap binding from the SPIR-V of the entry points that declare it.

use super::walk::BindingOut;
use super::*;
use check::EntrySpirv;
use std::collections::BTreeMap;

/// The SPIR-V name Slang gives its synthesized heaps.
const HEAP: &str = "__slang_resource_heap";

/// Adds one unbounded binding per heap set and binding the SPIR-V declares, named
/// `__slang_resource_heap.<kind>`.
///
/// # Errors
/// [`BakeError::Input`] when one heap binding holds descriptors of several types: Slang
/// aliases them there, which Vulkan allows only as `VK_DESCRIPTOR_TYPE_MUTABLE_EXT` with a
/// type list (`VK_EXT_mutable_descriptor_type`), and the bind view does not describe
/// mutable descriptors.
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
    for ((set, binding), kinds) in heaps {
        let kind = match kinds.as_slice() {
            [kind] => *kind,
            _ => {
                let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
                return Err(BakeError::Input(format!(
                    "{key}: Slang's descriptor heap `{HEAP}` at set {set} binding {binding} \
                     holds {} descriptors at one binding; Vulkan binds that only as a mutable \
                     descriptor (VK_EXT_mutable_descriptor_type), which slangpack does not \
                     describe: descriptor-heap bindless with several resource kinds is not \
                     supported (use one kind of handle per heap binding, or explicit unbounded \
                     arrays such as `Texture2D gTextures[]`)",
                    names.join(" and ")
                )));
            }
        };
        let path = format!("{HEAP}.{}", kind.name());
        bindings.push(BindingOut {
            descriptor_type: kind.to_raw(),
            count: 0,
            count_kind: COUNT_UNBOUNDED,
            flags: BINDING_DESCRIPTOR_HEAP,
            ..BindingOut::uniform_buffer(&path, set, binding, 0, None, 0)
        });
    }
    Ok(())
}

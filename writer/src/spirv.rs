//! The little of SPIR-V the writer reads itself: the word stream, `OpEntryPoint` names, the
//! descriptor decorations (to check the bind view against) and the `Input` locations.

use std::collections::{BTreeMap, BTreeSet};

/// SPIR-V's magic number, first word of every module.
pub const MAGIC: u32 = 0x0723_0203;

const OP_NAME: u32 = 5;
const OP_ENTRY_POINT: u32 = 15;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const DECORATION_LOCATION: u32 = 30;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
const STORAGE_CLASS_INPUT: u32 = 1;
const STORAGE_CLASS_PUSH_CONSTANT: u32 = 9;

/// Turns Slang's code blob into SPIR-V words, checking length and magic.
///
/// # Errors
/// A message when the bytes are not a SPIR-V module.
pub fn words(bytes: &[u8]) -> Result<Vec<u32>, String> {
    if bytes.len() % 4 != 0 || bytes.len() < 20 {
        return Err(format!(
            "code is {} bytes, not a SPIR-V module",
            bytes.len()
        ));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words[0] != MAGIC {
        return Err(format!(
            "code starts with 0x{:08x}, not the SPIR-V magic",
            words[0]
        ));
    }
    Ok(words)
}

/// The instructions after the 5-word header, as `(opcode, operands)`; stops at the first
/// malformed instruction (zero length, or running past the end).
fn instructions(words: &[u32]) -> impl Iterator<Item = (u32, &[u32])> {
    let mut at = 5;
    std::iter::from_fn(move || {
        let head = *words.get(at)?;
        let count = (head >> 16) as usize;
        let operands = words.get(at + 1..at + count).filter(|_| count > 0)?;
        at += count;
        Some((head & 0xffff, operands))
    })
}

/// A nul-terminated literal string packed into words.
fn literal_string(words: &[u32]) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect()
}

/// The name of the first `OpEntryPoint` in `words`, if any.
pub fn entry_point_name(words: &[u32]) -> Option<String> {
    instructions(words)
        .find(|(opcode, operands)| *opcode == OP_ENTRY_POINT && operands.len() > 2)
        .and_then(|(_, operands)| String::from_utf8(literal_string(&operands[2..])).ok())
}

/// A variable the SPIR-V decorates with a descriptor set and binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorVariable {
    /// `DescriptorSet` decoration.
    pub set: u32,
    /// `Binding` decoration.
    pub binding: u32,
    /// The variable's `OpName`, empty when it has none.
    pub name: String,
}

/// Every id decorated with both `DescriptorSet` and `Binding`, in id order.
pub fn descriptor_variables(words: &[u32]) -> Vec<DescriptorVariable> {
    let mut names: BTreeMap<u32, String> = BTreeMap::new();
    let mut sets: BTreeMap<u32, u32> = BTreeMap::new();
    let mut bindings: BTreeMap<u32, u32> = BTreeMap::new();
    for (opcode, operands) in instructions(words) {
        match (opcode, operands) {
            (OP_NAME, [id, text @ ..]) => {
                let name = String::from_utf8_lossy(&literal_string(text)).into_owned();
                names.insert(*id, name);
            }
            (OP_DECORATE, [id, DECORATION_DESCRIPTOR_SET, set, ..]) => {
                sets.insert(*id, *set);
            }
            (OP_DECORATE, [id, DECORATION_BINDING, binding, ..]) => {
                bindings.insert(*id, *binding);
            }
            _ => {}
        }
    }
    sets.iter()
        .filter_map(|(id, &set)| {
            bindings.get(id).map(|&binding| DescriptorVariable {
                set,
                binding,
                name: names.get(id).cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// The names of the module's `PushConstant` variables (empty for a variable without an
/// `OpName`), in id order. Vulkan allows at most one per entry point; Slang emits two when an
/// entry point reads a global `[[vk::push_constant]]` block and has `uniform` parameters.
pub fn push_constant_variables(words: &[u32]) -> Vec<String> {
    let mut names: BTreeMap<u32, String> = BTreeMap::new();
    let mut variables: BTreeSet<u32> = BTreeSet::new();
    for (opcode, operands) in instructions(words) {
        match (opcode, operands) {
            (OP_NAME, [id, text @ ..]) => {
                let name = String::from_utf8_lossy(&literal_string(text)).into_owned();
                names.insert(*id, name);
            }
            (OP_VARIABLE, [_, id, STORAGE_CLASS_PUSH_CONSTANT, ..]) => {
                variables.insert(*id);
            }
            _ => {}
        }
    }
    variables
        .iter()
        .map(|id| names.get(id).cloned().unwrap_or_default())
        .collect()
}

/// The `Location`s of the module's `Input` variables (what a vertex shader actually reads),
/// sorted.
pub fn input_locations(words: &[u32]) -> Vec<u32> {
    let mut inputs: BTreeSet<u32> = BTreeSet::new();
    let mut locations: BTreeMap<u32, u32> = BTreeMap::new();
    for (opcode, operands) in instructions(words) {
        match (opcode, operands) {
            (OP_VARIABLE, [_, id, STORAGE_CLASS_INPUT, ..]) => {
                inputs.insert(*id);
            }
            (OP_DECORATE, [id, DECORATION_LOCATION, location, ..]) => {
                locations.insert(*id, *location);
            }
            _ => {}
        }
    }
    let mut out: Vec<u32> = inputs
        .iter()
        .filter_map(|id| locations.get(id).copied())
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_spirv() {
        assert!(words(&[0; 3]).is_err());
        assert!(words(&[0; 20]).is_err());
    }

    #[test]
    fn finds_entry_point_name() {
        // header (5 words), then OpEntryPoint GLCompute %1 "main" (5 words)
        let module = [
            MAGIC,
            0x0001_0500,
            0,
            10,
            0,
            (5 << 16) | OP_ENTRY_POINT,
            5,
            1,
            u32::from_le_bytes(*b"main"),
            0,
        ];
        assert_eq!(entry_point_name(&module).as_deref(), Some("main"));
        assert_eq!(entry_point_name(&module[..7]), None);
    }
}

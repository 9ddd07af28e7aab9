//! The little of SPIR-V the writer reads itself: the word stream and `OpEntryPoint` names.

/// SPIR-V's magic number, first word of every module.
pub const MAGIC: u32 = 0x0723_0203;
const OP_ENTRY_POINT: u32 = 15;

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

/// The name of the first `OpEntryPoint` in `words`, if any.
pub fn entry_point_name(words: &[u32]) -> Option<String> {
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if count == 0 || i + count > words.len() {
            return None;
        }
        if opcode == OP_ENTRY_POINT && count > 3 {
            let bytes: Vec<u8> = words[i + 3..i + count]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            return String::from_utf8(bytes).ok();
        }
        i += count;
    }
    None
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

const OP_NAME: u32 = 5;
const OP_DECORATE: u32 = 71;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;

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
    use std::collections::BTreeMap;
    let mut names: BTreeMap<u32, String> = BTreeMap::new();
    let mut sets: BTreeMap<u32, u32> = BTreeMap::new();
    let mut bindings: BTreeMap<u32, u32> = BTreeMap::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if count == 0 || i + count > words.len() {
            break;
        }
        let operands = &words[i + 1..i + count];
        match opcode {
            OP_NAME if !operands.is_empty() => {
                let bytes: Vec<u8> = operands[1..]
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .take_while(|&b| b != 0)
                    .collect();
                names.insert(operands[0], String::from_utf8_lossy(&bytes).into_owned());
            }
            OP_DECORATE if operands.len() >= 3 => match operands[1] {
                DECORATION_DESCRIPTOR_SET => {
                    sets.insert(operands[0], operands[2]);
                }
                DECORATION_BINDING => {
                    bindings.insert(operands[0], operands[2]);
                }
                _ => {}
            },
            _ => {}
        }
        i += count;
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

const OP_VARIABLE: u32 = 59;
const STORAGE_CLASS_INPUT: u32 = 1;
const DECORATION_LOCATION: u32 = 30;

/// The `Location`s of the module's `Input` variables (what a vertex shader actually reads),
/// sorted.
pub fn input_locations(words: &[u32]) -> Vec<u32> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut inputs: BTreeSet<u32> = BTreeSet::new();
    let mut locations: BTreeMap<u32, u32> = BTreeMap::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if count == 0 || i + count > words.len() {
            break;
        }
        let operands = &words[i + 1..i + count];
        match opcode {
            OP_VARIABLE if operands.len() >= 3 && operands[2] == STORAGE_CLASS_INPUT => {
                inputs.insert(operands[1]);
            }
            OP_DECORATE if operands.len() >= 3 && operands[1] == DECORATION_LOCATION => {
                locations.insert(operands[0], operands[2]);
            }
            _ => {}
        }
        i += count;
    }
    let mut out: Vec<u32> = inputs
        .iter()
        .filter_map(|id| locations.get(id).copied())
        .collect();
    out.sort_unstable();
    out
}

//! The conformance ids dynamic-dispatch code compares an existential's witness-table id with:
//! every `OpSwitch` whose selector is the first word of a `uint2` read from a buffer, with the
//! byte offset of that `uint2` in its block and the case literals.
//!
//! Slang's dispatch code loads the existential's `witnessId` (`uint2`, 8 bytes into the
//! header), takes its first word and switches on it, one case per conforming type. The
//! selector is followed back through `OpCompositeExtract`, `OpLoad` and access chains with
//! constant indices to a global variable; a selector reached any other way (a function
//! parameter, a dynamic index) is not reported.

use super::{instructions, Index};
use ::spirv::{Decoration, Op, StorageClass};
use std::collections::BTreeMap;

/// Where a dispatch switch's selector comes from, and what it compares it with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchSwitch {
    /// `DescriptorSet` and `Binding` of the variable read, `None` for a push-constant block.
    pub place: Option<(u32, u32)>,
    /// Byte offset in the block of the `uint2` whose first word is the selector.
    pub offset: u32,
    /// The case literals, sorted, without repeats.
    pub cases: Vec<u32>,
}

/// How a value was computed, as far as the scan follows it.
enum Def<'w> {
    Variable(u32),
    Chain(u32, &'w [u32]),
    Load(u32),
    Extract(u32, &'w [u32]),
}

/// Every dispatch switch of `words` on the first word of a `uint2` read from a uniform,
/// storage or push-constant block (see the module's documentation). Empty for words that are
/// not SPIR-V.
pub fn switches(words: &[u32]) -> Vec<DispatchSwitch> {
    let Ok(all) = instructions(words) else {
        return Vec::new();
    };
    let module_scope = all
        .iter()
        .position(|i| i.opcode == Op::Function as u32)
        .map_or(&all[..], |end| &all[..end]);
    let index = Index::new(module_scope);
    // Result id -> (result type, definition).
    let mut defs: BTreeMap<u32, (u32, Def<'_>)> = BTreeMap::new();
    let mut variables: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    let mut found = Vec::new();
    for inst in &all {
        match (Op::from_u32(inst.opcode), inst.operands) {
            (Some(Op::Variable), &[ty, result, class, ..]) => {
                let block = class == StorageClass::Uniform as u32
                    || class == StorageClass::StorageBuffer as u32
                    || class == StorageClass::PushConstant as u32;
                if block {
                    variables.insert(result, (ty, class));
                    defs.insert(result, (ty, Def::Variable(result)));
                }
            }
            (Some(Op::AccessChain | Op::InBoundsAccessChain), [ty, result, base, rest @ ..]) => {
                defs.insert(*result, (*ty, Def::Chain(*base, rest)));
            }
            (Some(Op::Load), &[ty, result, pointer, ..]) => {
                defs.insert(result, (ty, Def::Load(pointer)));
            }
            (Some(Op::CompositeExtract), [ty, result, composite, rest @ ..]) => {
                defs.insert(*result, (*ty, Def::Extract(*composite, rest)));
            }
            (Some(Op::Switch), [selector, _default, cases @ ..]) => {
                let mut literals: Vec<u32> = cases.chunks_exact(2).map(|c| c[0]).collect();
                literals.sort_unstable();
                literals.dedup();
                found.push((*selector, literals));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (selector, cases) in found {
        let Some((var, path)) = trace(&defs, selector) else {
            continue;
        };
        let Some(&(pointer, class)) = variables.get(&var) else {
            continue;
        };
        let Some((Op::TypePointer, &[_, pointee, ..])) = index.op(pointer) else {
            continue;
        };
        // The selector is component 0 of a `uint2`: the last index picks the component.
        let Some((Step::Literal(0), to_vector)) = path.split_last() else {
            continue;
        };
        let Some((offset, vector)) = offset_of(&index, pointee, to_vector) else {
            continue;
        };
        if !matches!(index.op(vector), Some((Op::TypeVector, &[_, 2, ..]))) {
            continue;
        }
        let place = if class == StorageClass::PushConstant as u32 {
            None
        } else {
            let set = index.decoration(var, Decoration::DescriptorSet);
            let binding = index.decoration(var, Decoration::Binding);
            match (set, binding) {
                (Some(s), Some(b)) => Some((s, b)),
                _ => continue,
            }
        };
        out.push(DispatchSwitch {
            place,
            offset,
            cases,
        });
    }
    out
}

/// Follows `id` back to a block variable: the variable and the constant indices from it
/// (access-chain indices as constants, extract indices as literals), `None` when anything on
/// the way is not a constant index or not followed.
fn trace(defs: &BTreeMap<u32, (u32, Def<'_>)>, id: u32) -> Option<(u32, Vec<Step>)> {
    let mut path = Vec::new();
    let mut at = id;
    // Each step goes to an earlier definition; the bound guards against a malformed cycle.
    for _ in 0..=defs.len() {
        match &defs.get(&at)?.1 {
            Def::Variable(var) => {
                path.reverse();
                return Some((*var, path));
            }
            Def::Extract(composite, literals) => {
                path.extend(literals.iter().rev().map(|&i| Step::Literal(i)));
                at = *composite;
            }
            Def::Load(pointer) => at = *pointer,
            Def::Chain(base, indices) => {
                path.extend(indices.iter().rev().map(|&i| Step::Constant(i)));
                at = *base;
            }
        }
    }
    None
}

/// One index on the way from a variable to a value.
#[derive(Clone, Copy)]
enum Step {
    /// An access chain's index: the id of a constant.
    Constant(u32),
    /// A composite extract's literal index.
    Literal(u32),
}

/// The byte offset of the element `path` reaches in a value of type `ty`, and its type.
fn offset_of(index: &Index<'_>, mut ty: u32, path: &[Step]) -> Option<(u32, u32)> {
    let mut offset = 0u32;
    for &step in path {
        let i = match step {
            Step::Constant(id) => *index.constants.get(&id)?,
            Step::Literal(i) => i,
        };
        match index.op(ty)? {
            (Op::TypeStruct, members) => {
                offset =
                    offset.checked_add(index.member_decoration(ty, i, Decoration::Offset)?)?;
                ty = *members.get(i as usize)?;
            }
            (Op::TypeArray | Op::TypeRuntimeArray, ops) => {
                let stride = index.decoration(ty, Decoration::ArrayStride)?;
                offset = offset.checked_add(stride.checked_mul(i)?)?;
                ty = *ops.first()?;
            }
            _ => return None,
        }
    }
    Some((offset, ty))
}

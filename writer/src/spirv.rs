//! What the writer reads from the SPIR-V Slang emitted, parsed with `rspirv`: the entry
//! point's name, every descriptor variable with the descriptor type its SPIR-V type implies,
//! the layout of every block (`Offset`, `ArrayStride`, `MatrixStride`), push-constant and
//! shader-record blocks, input attachment indices and the `Input` locations. The bind view is
//! checked against these facts at bake time: they are what the driver reads.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Dim, Op, StorageClass};
use slangpack_format::bind::DescriptorKind;
use std::collections::BTreeMap;

/// SPIR-V's magic number, first word of every module.
pub const MAGIC: u32 = 0x0723_0203;

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

/// A variable the SPIR-V decorates with a descriptor set and binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorVariable {
    /// `DescriptorSet` decoration.
    pub set: u32,
    /// `Binding` decoration.
    pub binding: u32,
    /// The variable's `OpName`, empty when it has none.
    pub name: String,
    /// The descriptor type its type implies; `None` for a type that is no descriptor.
    pub descriptor_type: Option<DescriptorKind>,
    /// Descriptor count: `Some(1)` for a single descriptor, `Some(n)` for an array,
    /// `None` for a runtime-sized array.
    pub count: Option<u32>,
    /// `InputAttachmentIndex` decoration.
    pub input_attachment_index: Option<u32>,
    /// The block layout of a uniform or storage buffer.
    pub block: Option<Block>,
}

/// A push-constant or shader-record variable (no set or binding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockVariable {
    /// The variable's `OpName`, empty when it has none.
    pub name: String,
    /// The block's layout.
    pub block: Block,
}

/// The layout of a block as the SPIR-V decorates it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The block type's `OpName`.
    pub type_name: String,
    /// Members in pre-order, named like the bind view's buffer members (dotted paths, `[]`
    /// for the element of an array of structs, whose members' offsets are element-relative).
    pub members: Vec<BlockMember>,
}

/// One member of a [`Block`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockMember {
    /// Dotted path from the block; a member without a name (no `OpMemberName`, or Slang's
    /// placeholder `__memberN`) is named `#N` (its index).
    pub path: String,
    /// Index of the parent member in the same list.
    pub parent: Option<usize>,
    /// Position among its siblings.
    pub index: u32,
    /// `Offset` (plus the offsets of enclosing structs, up to the innermost array element).
    pub offset: u32,
    /// `ArrayStride` of an array member.
    pub array_stride: Option<u32>,
    /// `MatrixStride` of a matrix member (or of an array of matrices).
    pub matrix_stride: Option<u32>,
}

/// A vertex-stage `Input` variable with a location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputVariable {
    /// `Location` decoration.
    pub location: u32,
    /// The variable's `OpName`.
    pub name: String,
    /// Components of its type: 1 for a scalar, N for a vector, `None` for other types.
    pub components: Option<u32>,
}

/// The facts of one SPIR-V module the bind view is checked against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// The first `OpEntryPoint`'s name.
    pub entry_point_name: Option<String>,
    /// Variables with a `DescriptorSet` and a `Binding`, in id order.
    pub descriptors: Vec<DescriptorVariable>,
    /// `PushConstant` variables.
    pub push_constants: Vec<BlockVariable>,
    /// `ShaderRecordBufferKHR` variables.
    pub shader_records: Vec<BlockVariable>,
    /// `Input` variables with a `Location` (built-ins have none), sorted by location.
    pub inputs: Vec<InputVariable>,
}

/// Ids, decorations and names of a loaded module.
struct Index<'m> {
    defs: BTreeMap<u32, &'m Instruction>,
    names: BTreeMap<u32, String>,
    member_names: BTreeMap<(u32, u32), String>,
    decorations: BTreeMap<(u32, Decoration), Option<u32>>,
    member_decorations: BTreeMap<(u32, u32, Decoration), Option<u32>>,
    constants: BTreeMap<u32, u32>,
}

fn id(operand: Option<&Operand>) -> Option<u32> {
    match operand {
        Some(Operand::IdRef(id)) => Some(*id),
        _ => None,
    }
}

fn literal(operand: Option<&Operand>) -> Option<u32> {
    match operand {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    }
}

/// Slang names members it has no name for `__memberN`: those are matched by position.
fn is_placeholder(name: &str) -> bool {
    name.strip_prefix("__member")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

impl<'m> Index<'m> {
    fn new(module: &'m rspirv::dr::Module) -> Index<'m> {
        let mut index = Index {
            defs: BTreeMap::new(),
            names: BTreeMap::new(),
            member_names: BTreeMap::new(),
            decorations: BTreeMap::new(),
            member_decorations: BTreeMap::new(),
            constants: BTreeMap::new(),
        };
        for inst in &module.types_global_values {
            if let Some(result) = inst.result_id {
                index.defs.insert(result, inst);
                if inst.class.opcode == Op::Constant {
                    if let Some(v) = literal(inst.operands.first()) {
                        index.constants.insert(result, v);
                    }
                }
            }
        }
        for inst in &module.debug_names {
            match (inst.class.opcode, inst.operands.as_slice()) {
                (Op::Name, [Operand::IdRef(target), Operand::LiteralString(name)]) => {
                    index.names.insert(*target, name.clone());
                }
                (
                    Op::MemberName,
                    [Operand::IdRef(target), Operand::LiteralBit32(member), Operand::LiteralString(name)],
                ) => {
                    index.member_names.insert((*target, *member), name.clone());
                }
                _ => {}
            }
        }
        for inst in &module.annotations {
            match (inst.class.opcode, inst.operands.as_slice()) {
                (Op::Decorate, [Operand::IdRef(target), Operand::Decoration(d), rest @ ..]) => {
                    index
                        .decorations
                        .insert((*target, *d), literal(rest.first()));
                }
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(target), Operand::LiteralBit32(member), Operand::Decoration(d), rest @ ..],
                ) => {
                    index
                        .member_decorations
                        .insert((*target, *member, *d), literal(rest.first()));
                }
                _ => {}
            }
        }
        index
    }

    fn decoration(&self, target: u32, d: Decoration) -> Option<u32> {
        self.decorations.get(&(target, d)).copied().flatten()
    }

    fn has_decoration(&self, target: u32, d: Decoration) -> bool {
        self.decorations.contains_key(&(target, d))
    }

    fn member_decoration(&self, target: u32, member: u32, d: Decoration) -> Option<u32> {
        self.member_decorations
            .get(&(target, member, d))
            .copied()
            .flatten()
    }

    fn op(&self, ty: u32) -> Option<(Op, &'m [Operand])> {
        self.defs
            .get(&ty)
            .map(|i| (i.class.opcode, i.operands.as_slice()))
    }

    /// Strips arrays: the element type and the descriptor count (`None`: runtime array).
    fn unarray(&self, mut ty: u32) -> (u32, Option<u32>) {
        let mut count = Some(1u32);
        loop {
            match self.op(ty) {
                Some((Op::TypeArray, ops)) => {
                    let n = id(ops.get(1))
                        .and_then(|c| self.constants.get(&c).copied())
                        .unwrap_or(0);
                    count = count.map(|c| c.saturating_mul(n));
                    ty = id(ops.first()).unwrap_or(0);
                }
                Some((Op::TypeRuntimeArray, ops)) => {
                    count = None;
                    ty = id(ops.first()).unwrap_or(0);
                }
                _ => return (ty, count),
            }
        }
    }

    /// The descriptor type a variable of storage class `class` pointing to `ty` implies.
    fn descriptor_type(&self, class: StorageClass, ty: u32) -> Option<DescriptorKind> {
        match self.op(ty)? {
            (Op::TypeSampler, _) => Some(DescriptorKind::Sampler),
            (Op::TypeSampledImage, _) => Some(DescriptorKind::CombinedImageSampler),
            (Op::TypeAccelerationStructureKHR, _) => Some(DescriptorKind::AccelerationStructure),
            (Op::TypeImage, ops) => {
                let dim = match ops.get(1) {
                    Some(Operand::Dim(d)) => *d,
                    _ => return None,
                };
                let storage = literal(ops.get(5)) == Some(2);
                Some(match (dim, storage) {
                    (Dim::DimSubpassData, _) => DescriptorKind::InputAttachment,
                    (Dim::DimBuffer, false) => DescriptorKind::UniformTexelBuffer,
                    (Dim::DimBuffer, true) => DescriptorKind::StorageTexelBuffer,
                    (_, false) => DescriptorKind::SampledImage,
                    (_, true) => DescriptorKind::StorageImage,
                })
            }
            (Op::TypeStruct, _) => match class {
                StorageClass::StorageBuffer => Some(DescriptorKind::StorageBuffer),
                StorageClass::Uniform if self.has_decoration(ty, Decoration::BufferBlock) => {
                    Some(DescriptorKind::StorageBuffer)
                }
                StorageClass::Uniform => Some(DescriptorKind::UniformBuffer),
                _ => None,
            },
            _ => None,
        }
    }

    /// The block layout of struct `ty`.
    fn block(&self, ty: u32) -> Block {
        let mut block = Block {
            type_name: self.names.get(&ty).cloned().unwrap_or_default(),
            members: Vec::new(),
        };
        self.members(ty, 0, "", None, &mut block.members, 0);
        block
    }

    fn members(
        &self,
        ty: u32,
        base: u32,
        prefix: &str,
        parent: Option<usize>,
        out: &mut Vec<BlockMember>,
        depth: u32,
    ) {
        let Some((Op::TypeStruct, fields)) = self.op(ty) else {
            return;
        };
        if depth > 64 {
            return; // SPIR-V structs cannot recurse; a bound against malformed input
        }
        for (i, field) in fields.iter().enumerate() {
            let i = i as u32;
            let Some(field_ty) = id(Some(field)) else {
                continue;
            };
            let name = self
                .member_names
                .get(&(ty, i))
                .filter(|n| !n.is_empty() && !is_placeholder(n))
                .cloned()
                .unwrap_or_else(|| format!("#{i}"));
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}.{name}")
            };
            let mut offset = base.saturating_add(
                self.member_decoration(ty, i, Decoration::Offset)
                    .unwrap_or(0),
            );
            // Slang wraps each array of a std140 block in a struct `_Array_std140_...` whose
            // only member, `data`, is the array: the member is that array.
            let field_ty = match self.array_wrapper(field_ty) {
                Some((array, inner_offset)) => {
                    offset = offset.saturating_add(inner_offset);
                    array
                }
                None => field_ty,
            };
            let (element, is_array) = match self.op(field_ty) {
                Some((Op::TypeArray | Op::TypeRuntimeArray, ops)) => {
                    (id(ops.first()).unwrap_or(0), true)
                }
                _ => (field_ty, false),
            };
            let array_stride = if is_array {
                self.decoration(field_ty, Decoration::ArrayStride)
            } else {
                None
            };
            let matrix_stride = self.member_decoration(ty, i, Decoration::MatrixStride);
            let index = out.len();
            out.push(BlockMember {
                path: path.clone(),
                parent,
                index: i,
                offset,
                array_stride,
                matrix_stride,
            });
            if is_array {
                self.members(
                    element,
                    0,
                    &format!("{path}[]"),
                    Some(index),
                    out,
                    depth + 1,
                );
            } else {
                self.members(field_ty, offset, &path, Some(index), out, depth + 1);
            }
        }
    }

    /// The array inside one of Slang's std140 array wrappers (a struct named `_Array_...`
    /// whose only member is an array named `data`), with its offset in the wrapper.
    fn array_wrapper(&self, ty: u32) -> Option<(u32, u32)> {
        let (Op::TypeStruct, [only]) = self.op(ty)? else {
            return None;
        };
        let array = id(Some(only))?;
        let wrapped = self
            .names
            .get(&ty)
            .is_some_and(|n| n.starts_with("_Array_"))
            && self.member_names.get(&(ty, 0)).is_some_and(|n| n == "data")
            && matches!(
                self.op(array),
                Some((Op::TypeArray | Op::TypeRuntimeArray, _))
            );
        wrapped.then(|| {
            (
                array,
                self.member_decoration(ty, 0, Decoration::Offset)
                    .unwrap_or(0),
            )
        })
    }

    /// Components of a scalar or vector type.
    fn components(&self, ty: u32) -> Option<u32> {
        match self.op(ty)? {
            (Op::TypeVector, ops) => literal(ops.get(1)),
            (Op::TypeInt | Op::TypeFloat | Op::TypeBool, _) => Some(1),
            _ => None,
        }
    }
}

impl Facts {
    /// Parses `words` and gathers the facts.
    ///
    /// # Errors
    /// `rspirv`'s message when the words are not a SPIR-V module it can parse.
    pub fn parse(words: &[u32]) -> Result<Facts, String> {
        let module = rspirv::dr::load_words(words).map_err(|e| {
            format!(
                "the SPIR-V cannot be checked: {e} (slangpack reads SPIR-V with the grammar of \
                 Vulkan SDK 1.3.268; newer capabilities such as Slang's `spvDescriptorHeapEXT` \
                 descriptor heaps are not supported)"
            )
        })?;
        let index = Index::new(&module);
        let mut facts = Facts {
            entry_point_name: module.entry_points.first().and_then(|ep| {
                ep.operands.iter().find_map(|o| match o {
                    Operand::LiteralString(s) => Some(s.clone()),
                    _ => None,
                })
            }),
            ..Facts::default()
        };
        for inst in &module.types_global_values {
            let (Op::Variable, Some(var), Some(ptr)) =
                (inst.class.opcode, inst.result_id, inst.result_type)
            else {
                continue;
            };
            let Some(Operand::StorageClass(class)) = inst.operands.first() else {
                continue;
            };
            let pointee = match index.op(ptr) {
                Some((Op::TypePointer, ops)) => id(ops.get(1)).unwrap_or(0),
                _ => continue,
            };
            let name = index.names.get(&var).cloned().unwrap_or_default();
            let set = index.decoration(var, Decoration::DescriptorSet);
            let binding = index.decoration(var, Decoration::Binding);
            match (*class, set, binding) {
                (_, Some(set), Some(binding)) => {
                    let (element, count) = index.unarray(pointee);
                    let descriptor_type = index.descriptor_type(*class, element);
                    let block = matches!(
                        descriptor_type,
                        Some(DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer)
                    )
                    .then(|| index.block(element));
                    facts.descriptors.push(DescriptorVariable {
                        set,
                        binding,
                        name,
                        descriptor_type,
                        count,
                        input_attachment_index: index
                            .decoration(var, Decoration::InputAttachmentIndex),
                        block,
                    });
                }
                (StorageClass::PushConstant, ..) => facts.push_constants.push(BlockVariable {
                    name,
                    block: index.block(pointee),
                }),
                (StorageClass::ShaderRecordBufferKHR, ..) => {
                    facts.shader_records.push(BlockVariable {
                        name,
                        block: index.block(pointee),
                    });
                }
                (StorageClass::Input, ..) => {
                    if let Some(location) = index.decoration(var, Decoration::Location) {
                        facts.inputs.push(InputVariable {
                            location,
                            name,
                            components: index.components(pointee),
                        });
                    }
                }
                _ => {}
            }
        }
        facts.inputs.sort_by_key(|i| i.location);
        Ok(facts)
    }
}

/// The name of the first `OpEntryPoint` in `words`, if any.
pub fn entry_point_name(words: &[u32]) -> Option<String> {
    Facts::parse(words).ok()?.entry_point_name
}

/// Every variable decorated with both `DescriptorSet` and `Binding`, in id order (none when
/// the words do not parse).
pub fn descriptor_variables(words: &[u32]) -> Vec<DescriptorVariable> {
    Facts::parse(words)
        .map(|f| f.descriptors)
        .unwrap_or_default()
}

/// The `Location`s of the module's `Input` variables (what a vertex shader actually reads),
/// sorted.
pub fn input_locations(words: &[u32]) -> Vec<u32> {
    Facts::parse(words)
        .map(|f| f.inputs.iter().map(|i| i.location).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_spirv() {
        assert!(words(&[0; 3]).is_err());
        assert!(words(&[0; 20]).is_err());
        assert!(Facts::parse(&[MAGIC, 0x0001_0500, 0, 10, 0, 0xffff_0001]).is_err());
    }

    #[test]
    fn finds_entry_point_name() {
        // header (5 words), OpCapability Shader, OpMemoryModel Logical GLSL450,
        // OpEntryPoint GLCompute %1 "main"
        let module = [
            MAGIC,
            0x0001_0500,
            0,
            10,
            0,
            (2 << 16) | 17,
            1,
            (3 << 16) | 14,
            0,
            1,
            (5 << 16) | 15,
            5,
            1,
            u32::from_le_bytes(*b"main"),
            0,
        ];
        assert_eq!(entry_point_name(&module).as_deref(), Some("main"));
        assert_eq!(entry_point_name(&module[..12]), None);
    }
}

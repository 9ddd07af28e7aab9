//! What the writer reads from the SPIR-V Slang emitted: the entry point's name, every
//! descriptor variable with the descriptor type its SPIR-V type implies, the layout of every
//! block (`Offset`, `ArrayStride`, `MatrixStride`), push-constant and shader-record blocks,
//! input attachment indices and the `Input` locations. The bind view is checked against these
//! facts at bake time: they are what the driver reads.
//!
//! The module is read word by word, not through a grammar: every instruction says its own
//! length (SPIR-V 2.3), so an instruction, a capability or an operand this reader does not
//! know is stepped over rather than refused. Only the instructions the checks need are
//! decoded (names, decorations, the type and constant declarations, global variables, entry
//! points), with the opcode and enumerant values of the `spirv` crate (SDK 1.4.341). A
//! module is refused only when it is not SPIR-V at all: a bad header, or an instruction
//! whose length is zero or runs past the end. Debug information
//! (`NonSemantic.Shader.DebugInfo.100`'s `OpExtInst`s at module scope), shader execution
//! reordering, cooperative vectors and whatever the compiler learns next are read past.

use ::spirv::{Decoration, Dim, Op, StorageClass};
use slangpack_format::bind::{DescriptorKind, ExecutionModes};
use slangpack_format::ScalarType;
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
    /// The bytes the block's members span, from offset 0 to the last byte of the member that
    /// ends last (a runtime array spans nothing): what the code may read of the block,
    /// whatever Slang's reflection says of its size.
    pub extent: u32,
    /// For a block whose only member is a runtime array (a storage buffer's), the `OpName`
    /// of the array's element type (`Particle_std430`); empty for an element without a name
    /// (a scalar or vector) and for other blocks.
    pub element_type_name: String,
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
    /// The bytes the member spans from its offset to its last byte (see [`Block::extent`]).
    pub extent: u32,
    /// For a buffer device address (an `OpTypePointer PhysicalStorageBuffer`), the pointer
    /// type's id: its pointee's layout is [`Facts::pointees`]' entry of that id.
    pub pointer: Option<u32>,
}

/// The data a buffer device address points at, as the SPIR-V lays it out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pointee {
    /// The pointee type's layout (no members for a pointee that is no struct).
    pub block: Block,
    /// The pointer type's `ArrayStride`: what `p + 1` advances.
    pub stride: Option<u32>,
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

/// A fragment-stage `Output` variable with a location: a colour output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputVariable {
    /// `Location` decoration.
    pub location: u32,
    /// `Index` decoration (dual-source blending), 0 without one.
    pub index: u32,
    /// The variable's `OpName`.
    pub name: String,
    /// The scalar type of one component.
    pub scalar: ScalarType,
    /// Components of its type (1 for a scalar).
    pub components: u32,
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
    /// Specialization constants with a `SpecId`, in id order of their result ids.
    pub spec_constants: Vec<SpecConstant>,
    /// A fragment entry point's colour outputs, sorted by location and index.
    pub outputs: Vec<OutputVariable>,
    /// The first entry point's execution modes and the module's capabilities that decide
    /// pipeline creation (`entry_point` is 0: the caller places the record).
    pub modes: ExecutionModes,
    /// The pointees of the `PhysicalStorageBuffer` pointers that the blocks above (and these
    /// pointees, transitively) hold, by pointer type id.
    pub pointees: BTreeMap<u32, Pointee>,
}

/// An `OpSpecConstant` (or `OpSpecConstantTrue`/`False`) decorated with a `SpecId`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecConstant {
    /// `SpecId` decoration.
    pub id: u32,
    /// The default value's bits: the low word first for 64-bit types, 1 or 0 for booleans.
    pub default: u64,
}

/// One instruction of a module: its opcode and its operand words (every word after the
/// first).
#[derive(Clone, Copy, Debug)]
struct Instruction<'w> {
    opcode: u32,
    operands: &'w [u32],
}

/// Splits a module's words after the five-word header into instructions.
///
/// # Errors
/// When the header is missing or has the wrong magic, or an instruction's word count is zero
/// or runs past the end, with the word offset.
fn instructions(words: &[u32]) -> Result<Vec<Instruction<'_>>, String> {
    if words.len() < 5 {
        return Err(format!(
            "the SPIR-V has {} words, fewer than its 5-word header",
            words.len()
        ));
    }
    if words[0] != MAGIC {
        return Err(format!(
            "the SPIR-V starts with 0x{:08x}, not its magic 0x{MAGIC:08x}",
            words[0]
        ));
    }
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let first = words[at];
        let count = (first >> 16) as usize;
        if count == 0 {
            return Err(format!(
                "the SPIR-V instruction at word {at} has a word count of zero"
            ));
        }
        let Some(inst) = words.get(at + 1..at + count) else {
            return Err(format!(
                "the SPIR-V instruction at word {at} ({count} words) runs past the module's end \
                 ({} words)",
                words.len()
            ));
        };
        out.push(Instruction {
            opcode: first & 0xffff,
            operands: inst,
        });
        at += count;
    }
    Ok(out)
}

/// A literal string operand: UTF-8 bytes packed little-endian into words and ended by a NUL
/// (SPIR-V 2.2.1). Returns the string and the words it takes; `None` when no NUL ends it.
fn string(words: &[u32]) -> Option<(String, usize)> {
    let mut bytes = Vec::new();
    for (i, w) in words.iter().enumerate() {
        for b in w.to_le_bytes() {
            if b == 0 {
                return Some((String::from_utf8_lossy(&bytes).into_owned(), i + 1));
            }
            bytes.push(b);
        }
    }
    None
}

/// Ids, decorations and names of a module, from its module-scope instructions.
struct Index<'w> {
    /// Type declarations by result id: the opcode and the operands after the result id.
    types: BTreeMap<u32, (Op, &'w [u32])>,
    names: BTreeMap<u32, String>,
    member_names: BTreeMap<(u32, u32), String>,
    decorations: BTreeMap<(u32, u32), Option<u32>>,
    member_decorations: BTreeMap<(u32, u32, u32), Option<u32>>,
    /// 32-bit (or the low word of wider) `OpConstant` values by result id, and the defaults of
    /// `OpSpecConstant`s: an array sized by a specialization constant counts its default.
    constants: BTreeMap<u32, u32>,
}

/// Slang names members it has no name for `__memberN`: those are matched by position.
fn is_placeholder(name: &str) -> bool {
    name.strip_prefix("__member")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `op` declares a type whose first operand is its result id, among those the checks
/// read.
fn is_type(op: Op) -> bool {
    matches!(
        op,
        Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypeMatrix
            | Op::TypeImage
            | Op::TypeSampler
            | Op::TypeSampledImage
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypeStruct
            | Op::TypePointer
            | Op::TypeAccelerationStructureKHR
    )
}

impl<'w> Index<'w> {
    fn new(module: &[Instruction<'w>]) -> Index<'w> {
        let mut index = Index {
            types: BTreeMap::new(),
            names: BTreeMap::new(),
            member_names: BTreeMap::new(),
            decorations: BTreeMap::new(),
            member_decorations: BTreeMap::new(),
            constants: BTreeMap::new(),
        };
        for inst in module {
            let Some(op) = Op::from_u32(inst.opcode) else {
                continue;
            };
            match (op, inst.operands) {
                (op, [result, rest @ ..]) if is_type(op) => {
                    index.types.insert(*result, (op, rest));
                }
                (Op::Constant | Op::SpecConstant, [_, result, value, ..]) => {
                    index.constants.insert(*result, *value);
                }
                (Op::Name, [target, name @ ..]) => {
                    if let Some((name, _)) = string(name) {
                        index.names.insert(*target, name);
                    }
                }
                (Op::MemberName, [target, member, name @ ..]) => {
                    if let Some((name, _)) = string(name) {
                        index.member_names.insert((*target, *member), name);
                    }
                }
                (Op::Decorate, [target, decoration, rest @ ..]) => {
                    index
                        .decorations
                        .insert((*target, *decoration), rest.first().copied());
                }
                (Op::MemberDecorate, [target, member, decoration, rest @ ..]) => {
                    index
                        .member_decorations
                        .insert((*target, *member, *decoration), rest.first().copied());
                }
                _ => {}
            }
        }
        index
    }

    fn decoration(&self, target: u32, d: Decoration) -> Option<u32> {
        self.decorations.get(&(target, d as u32)).copied().flatten()
    }

    fn has_decoration(&self, target: u32, d: Decoration) -> bool {
        self.decorations.contains_key(&(target, d as u32))
    }

    fn has_member_decoration(&self, target: u32, member: u32, d: Decoration) -> bool {
        self.member_decorations
            .contains_key(&(target, member, d as u32))
    }

    fn member_decoration(&self, target: u32, member: u32, d: Decoration) -> Option<u32> {
        self.member_decorations
            .get(&(target, member, d as u32))
            .copied()
            .flatten()
    }

    /// The declaration of type `ty`: its opcode and the operands after its result id.
    fn op(&self, ty: u32) -> Option<(Op, &'w [u32])> {
        self.types.get(&ty).copied()
    }

    /// Strips arrays: the element type and the descriptor count (`None`: runtime array).
    fn unarray(&self, mut ty: u32) -> (u32, Option<u32>) {
        let mut count = Some(1u32);
        // Each step strips one declaration, and a module declares each id once: the bound
        // only guards against a malformed module whose ids form a cycle.
        for _ in 0..=self.types.len() {
            match self.op(ty) {
                Some((Op::TypeArray, ops)) => {
                    let n = ops
                        .get(1)
                        .and_then(|c| self.constants.get(c).copied())
                        .unwrap_or(0);
                    count = count.map(|c| c.saturating_mul(n));
                    ty = ops.first().copied().unwrap_or(0);
                }
                Some((Op::TypeRuntimeArray, ops)) => {
                    count = None;
                    ty = ops.first().copied().unwrap_or(0);
                }
                _ => break,
            }
        }
        (ty, count)
    }

    /// The descriptor type a variable of storage class `class` pointing to `ty` implies.
    fn descriptor_type(&self, class: Option<StorageClass>, ty: u32) -> Option<DescriptorKind> {
        match self.op(ty)? {
            (Op::TypeSampler, _) => Some(DescriptorKind::Sampler),
            (Op::TypeSampledImage, _) => Some(DescriptorKind::CombinedImageSampler),
            (Op::TypeAccelerationStructureKHR, _) => Some(DescriptorKind::AccelerationStructure),
            (Op::TypeImage, ops) => {
                // sampled type, Dim, depth, arrayed, MS, sampled (2: storage), format, ...
                let dim = Dim::from_u32(*ops.get(1)?)?;
                let storage = ops.get(5) == Some(&2);
                Some(match (dim, storage) {
                    (Dim::DimSubpassData, _) => DescriptorKind::InputAttachment,
                    (Dim::DimBuffer, false) => DescriptorKind::UniformTexelBuffer,
                    (Dim::DimBuffer, true) => DescriptorKind::StorageTexelBuffer,
                    (_, false) => DescriptorKind::SampledImage,
                    (_, true) => DescriptorKind::StorageImage,
                })
            }
            (Op::TypeStruct, _) => match class {
                Some(StorageClass::StorageBuffer) => Some(DescriptorKind::StorageBuffer),
                Some(StorageClass::Uniform) if self.has_decoration(ty, Decoration::BufferBlock) => {
                    Some(DescriptorKind::StorageBuffer)
                }
                Some(StorageClass::Uniform) => Some(DescriptorKind::UniformBuffer),
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
            extent: self.extent(ty, None, false, 0),
            element_type_name: String::new(),
        };
        if let Some((Op::TypeStruct, &[only])) = self.op(ty) {
            if let Some((Op::TypeRuntimeArray, &[element, ..])) = self.op(only) {
                block.element_type_name = self.names.get(&element).cloned().unwrap_or_default();
            }
        }
        self.members(ty, 0, "", None, &mut block.members, 0);
        block
    }

    /// The bytes a value of type `ty` spans under the module's explicit layout, from its first
    /// byte to its last: no padding after the last element of an array, the last column (or
    /// row) of a matrix or the last member of a struct. `matrix_stride` and `row_major` are
    /// the decorations of the member holding it, for a matrix or an array of matrices. A
    /// runtime array spans nothing (its length is the buffer's), a pointer 8 bytes.
    fn extent(&self, ty: u32, matrix_stride: Option<u32>, row_major: bool, depth: u32) -> u32 {
        if depth > 64 {
            return 0; // SPIR-V types cannot recurse; a bound against malformed input
        }
        match self.op(ty) {
            Some((Op::TypeBool, _)) => 4,
            Some((Op::TypeInt | Op::TypeFloat, &[width, ..])) => width / 8,
            Some((Op::TypeVector, &[component, count, ..])) => {
                count.saturating_mul(self.extent(component, None, false, depth + 1))
            }
            Some((Op::TypeMatrix, &[column, columns, ..])) => {
                let (scalar, rows) = match self.op(column) {
                    Some((Op::TypeVector, &[component, rows, ..])) => {
                        (self.extent(component, None, false, depth + 1), rows)
                    }
                    _ => (0, 0),
                };
                // Row-major: `rows` vectors of `columns` scalars, `matrix_stride` apart.
                let (vectors, width) = if row_major {
                    (rows, columns)
                } else {
                    (columns, rows)
                };
                let stride = matrix_stride.unwrap_or(width.saturating_mul(scalar));
                vectors
                    .saturating_sub(1)
                    .saturating_mul(stride)
                    .saturating_add(width.saturating_mul(scalar))
            }
            Some((Op::TypeArray, &[element, length, ..])) => {
                let length = self.constants.get(&length).copied().unwrap_or(0);
                let element_extent = self.extent(element, matrix_stride, row_major, depth + 1);
                let stride = self
                    .decoration(ty, Decoration::ArrayStride)
                    .unwrap_or(element_extent);
                match length {
                    0 => 0,
                    n => (n - 1)
                        .saturating_mul(stride)
                        .saturating_add(element_extent),
                }
            }
            Some((Op::TypeStruct, fields)) => (0u32..)
                .zip(fields)
                .map(|(i, &field)| {
                    let offset = self
                        .member_decoration(ty, i, Decoration::Offset)
                        .unwrap_or(0);
                    let stride = self.member_decoration(ty, i, Decoration::MatrixStride);
                    let row_major = self.has_member_decoration(ty, i, Decoration::RowMajor);
                    offset.saturating_add(self.extent(field, stride, row_major, depth + 1))
                })
                .max()
                .unwrap_or(0),
            Some((Op::TypePointer, _)) => 8,
            _ => 0,
        }
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
        for (i, &field_ty) in fields.iter().enumerate() {
            let i = i as u32;
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
                    (ops.first().copied().unwrap_or(0), true)
                }
                _ => (field_ty, false),
            };
            let array_stride = if is_array {
                self.decoration(field_ty, Decoration::ArrayStride)
            } else {
                None
            };
            let mut matrix_stride = self.member_decoration(ty, i, Decoration::MatrixStride);
            let row_major = self.has_member_decoration(ty, i, Decoration::RowMajor);
            let index = out.len();
            // Slang stores a matrix behind a pointer as a struct `_MatrixStorage_...` whose
            // only member, `data`, is an array of its row (or column) vectors: the member is
            // the matrix, its stride the array's.
            if let Some((array, inner_offset)) = self.matrix_wrapper(field_ty) {
                out.push(BlockMember {
                    path,
                    parent,
                    index: i,
                    offset: offset.saturating_add(inner_offset),
                    array_stride: None,
                    matrix_stride: self.decoration(array, Decoration::ArrayStride),
                    extent: self.extent(array, None, false, depth + 1),
                    pointer: None,
                });
                continue;
            }
            if is_array {
                matrix_stride = matrix_stride.or_else(|| {
                    self.matrix_wrapper(element)
                        .and_then(|(a, _)| self.decoration(a, Decoration::ArrayStride))
                });
            }
            out.push(BlockMember {
                path: path.clone(),
                parent,
                index: i,
                offset,
                array_stride,
                matrix_stride,
                extent: self.extent(field_ty, matrix_stride, row_major, depth + 1),
                pointer: self.physical_pointee(field_ty).map(|_| field_ty),
            });
            if is_array && self.matrix_wrapper(element).is_some() {
                // An array of matrices: its elements have no members.
            } else if is_array {
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
        let (Op::TypeStruct, &[array]) = self.op(ty)? else {
            return None;
        };
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

    /// The matrix inside one of Slang's matrix wrappers (a struct named `_MatrixStorage_...`
    /// whose only member is an array of vectors named `data`), with its offset in the wrapper.
    fn matrix_wrapper(&self, ty: u32) -> Option<(u32, u32)> {
        let (Op::TypeStruct, &[array]) = self.op(ty)? else {
            return None;
        };
        let (Op::TypeArray, &[vector, ..]) = self.op(array)? else {
            return None;
        };
        let wrapped = self
            .names
            .get(&ty)
            .is_some_and(|n| n.starts_with("_MatrixStorage_"))
            && self.member_names.get(&(ty, 0)).is_some_and(|n| n == "data")
            && matches!(self.op(vector), Some((Op::TypeVector, _)));
        wrapped.then(|| {
            (
                array,
                self.member_decoration(ty, 0, Decoration::Offset)
                    .unwrap_or(0),
            )
        })
    }

    /// The pointee type of an `OpTypePointer PhysicalStorageBuffer` (a buffer device address).
    fn physical_pointee(&self, ty: u32) -> Option<u32> {
        match self.op(ty)? {
            (Op::TypePointer, &[class, pointee, ..])
                if class == StorageClass::PhysicalStorageBuffer as u32 =>
            {
                Some(pointee)
            }
            _ => None,
        }
    }

    /// The pointees reachable from `blocks` through buffer device addresses, each pointer
    /// type once (a type that points at itself ends there).
    fn pointees<'b>(&self, blocks: impl Iterator<Item = &'b Block>) -> BTreeMap<u32, Pointee> {
        let mut found: BTreeMap<u32, Pointee> = BTreeMap::new();
        let mut pending: Vec<u32> = blocks
            .flat_map(|b| b.members.iter().filter_map(|m| m.pointer))
            .collect();
        while let Some(pointer) = pending.pop() {
            if found.contains_key(&pointer) || found.len() >= 4096 {
                continue;
            }
            let Some(pointee) = self.physical_pointee(pointer) else {
                continue;
            };
            let block = self.block(pointee);
            pending.extend(block.members.iter().filter_map(|m| m.pointer));
            let stride = self.decoration(pointer, Decoration::ArrayStride);
            found.insert(pointer, Pointee { block, stride });
        }
        found
    }

    /// Components of a scalar or vector type.
    /// The scalar type of a scalar or of a vector's components.
    fn scalar(&self, ty: u32) -> ScalarType {
        let ty = match self.op(ty) {
            Some((Op::TypeVector, &[component, ..])) => component,
            _ => ty,
        };
        match self.op(ty) {
            Some((Op::TypeBool, _)) => ScalarType::Bool,
            Some((Op::TypeFloat, &[16, ..])) => ScalarType::Float16,
            Some((Op::TypeFloat, &[32, ..])) => ScalarType::Float32,
            Some((Op::TypeFloat, &[64, ..])) => ScalarType::Float64,
            Some((Op::TypeInt, &[width, signed, ..])) => match (width, signed != 0) {
                (8, true) => ScalarType::Int8,
                (8, false) => ScalarType::UInt8,
                (16, true) => ScalarType::Int16,
                (16, false) => ScalarType::UInt16,
                (32, true) => ScalarType::Int32,
                (32, false) => ScalarType::UInt32,
                (64, true) => ScalarType::Int64,
                (64, false) => ScalarType::UInt64,
                _ => ScalarType::None,
            },
            _ => ScalarType::None,
        }
    }

    fn components(&self, ty: u32) -> Option<u32> {
        match self.op(ty)? {
            (Op::TypeVector, ops) => ops.get(1).copied(),
            (Op::TypeInt | Op::TypeFloat | Op::TypeBool, _) => Some(1),
            _ => None,
        }
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

pub mod dispatch;
mod facts;
#[cfg(test)]
mod tests;

//! Tests of the SPIR-V reader on modules assembled word by word.

use super::*;

/// Assembles a module: the header, then each instruction as `(opcode, operands)`.
fn module(instructions: &[(Op, Vec<u32>)]) -> Vec<u32> {
    let mut words = vec![MAGIC, 0x0001_0600, 0, 100, 0];
    for (op, operands) in instructions {
        words.push(((operands.len() as u32 + 1) << 16) | *op as u32);
        words.extend(operands);
    }
    words
}

/// A literal string operand.
fn lit(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.resize((bytes.len() / 4 + 1) * 4, 0);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn cat(parts: &[&[u32]]) -> Vec<u32> {
    parts.concat()
}

#[test]
fn rejects_non_spirv() {
    assert!(words(&[0; 3]).is_err());
    assert!(words(&[0; 20]).is_err());
    // An instruction whose word count is zero.
    let err = Facts::parse(&[MAGIC, 0x0001_0500, 0, 10, 0, 0x0000_0011]).unwrap_err();
    assert!(err.contains("word count of zero"), "{err}");
    // One that claims more words than the module has.
    let err = Facts::parse(&[MAGIC, 0x0001_0500, 0, 10, 0, 0xffff_0001]).unwrap_err();
    assert!(err.contains("runs past the module's end"), "{err}");
    let err = Facts::parse(&[0x0203_0723, 0, 0, 0, 0]).unwrap_err();
    assert!(err.contains("magic"), "{err}");
}

#[test]
fn finds_entry_point_name() {
    let m = module(&[
        (Op::Capability, vec![1]),
        (Op::MemoryModel, vec![0, 1]),
        (Op::EntryPoint, cat(&[&[5, 1], &lit("main")])),
    ]);
    assert_eq!(entry_point_name(&m).as_deref(), Some("main"));
    // Cut inside the entry point: not a module.
    assert_eq!(entry_point_name(&m[..m.len() - 1]), None);
}

/// `OpExtInst` of `NonSemantic.Shader.DebugInfo.100` at module scope (what `-g` emits),
/// an opcode no grammar of this reader knows and a capability from after its SDK are read
/// past; the descriptor, its block and its name are still found.
#[test]
fn reads_past_debug_info_and_unknown_instructions() {
    const UNKNOWN_OP: u32 = 0xfff0;
    let mut m = module(&[
        (Op::Capability, vec![1]),
        (Op::Capability, vec![0xfffe]),
        (Op::Extension, lit("SPV_KHR_non_semantic_info")),
        (
            Op::ExtInstImport,
            cat(&[&[1], &lit("NonSemantic.Shader.DebugInfo.100")]),
        ),
        (Op::MemoryModel, vec![0, 1]),
        (Op::EntryPoint, cat(&[&[5, 2], &lit("main"), &[10]])),
        (Op::Name, cat(&[&[10], &lit("gParams")])),
        (Op::Name, cat(&[&[7], &lit("Params")])),
        (Op::MemberName, cat(&[&[7, 0], &lit("scale")])),
        (Op::MemberName, cat(&[&[7, 1], &lit("bias")])),
        (Op::Decorate, vec![7, Decoration::Block as u32]),
        (Op::MemberDecorate, vec![7, 0, Decoration::Offset as u32, 0]),
        (
            Op::MemberDecorate,
            vec![7, 1, Decoration::Offset as u32, 16],
        ),
        (Op::Decorate, vec![10, Decoration::DescriptorSet as u32, 2]),
        (Op::Decorate, vec![10, Decoration::Binding as u32, 3]),
        (Op::TypeFloat, vec![5, 32]),
        (Op::TypeVector, vec![6, 5, 4]),
        (Op::TypeStruct, vec![7, 6, 6]),
        (Op::TypePointer, vec![8, StorageClass::Uniform as u32, 7]),
        // DebugSource, DebugCompilationUnit: module-scope extended instructions.
        (Op::ExtInst, vec![9, 11, 1, 35, 12]),
        (Op::ExtInst, vec![9, 13, 1, 1, 100, 5, 11, 12]),
        (Op::Variable, vec![8, 10, StorageClass::Uniform as u32]),
    ]);
    m.extend([(3 << 16) | UNKNOWN_OP, 20, 21]);
    let facts = Facts::parse(&m).unwrap();
    assert_eq!(facts.entry_point_name.as_deref(), Some("main"));
    assert_eq!(facts.descriptors.len(), 1);
    let d = &facts.descriptors[0];
    assert_eq!((d.set, d.binding, d.name.as_str()), (2, 3, "gParams"));
    assert_eq!(d.descriptor_type, Some(DescriptorKind::UniformBuffer));
    assert_eq!(d.count, Some(1));
    let block = d.block.as_ref().unwrap();
    let members: Vec<_> = block
        .members
        .iter()
        .map(|m| (m.path.as_str(), m.offset))
        .collect();
    assert_eq!(members, [("scale", 0), ("bias", 16)]);
}

/// A variable of a type this reader does not know (a hit object, say) is no descriptor; a
/// descriptor array's count and a runtime array are read from the constant and the type.
#[test]
fn unknown_types_are_no_descriptors_and_arrays_are_counted() {
    const TYPE_HIT_OBJECT_NV: u32 = 5281;
    let mut m = module(&[
        (Op::Decorate, vec![20, Decoration::DescriptorSet as u32, 0]),
        (Op::Decorate, vec![20, Decoration::Binding as u32, 1]),
        (Op::Decorate, vec![21, Decoration::DescriptorSet as u32, 0]),
        (Op::Decorate, vec![21, Decoration::Binding as u32, 2]),
        (Op::TypeInt, vec![1, 32, 0]),
        (Op::Constant, vec![1, 2, 8]),
        (Op::TypeSampler, vec![3]),
        (Op::TypeArray, vec![4, 3, 2]),
        (Op::TypeRuntimeArray, vec![5, 3]),
        (
            Op::TypePointer,
            vec![6, StorageClass::UniformConstant as u32, 4],
        ),
        (
            Op::TypePointer,
            vec![7, StorageClass::UniformConstant as u32, 5],
        ),
        (
            Op::Variable,
            vec![6, 20, StorageClass::UniformConstant as u32],
        ),
        (
            Op::Variable,
            vec![7, 21, StorageClass::UniformConstant as u32],
        ),
    ]);
    m.extend([(2 << 16) | TYPE_HIT_OBJECT_NV, 30]);
    m.extend([
        (4 << 16) | Op::TypePointer as u32,
        31,
        StorageClass::Private as u32,
        30,
    ]);
    m.extend([
        (4 << 16) | Op::Variable as u32,
        31,
        32,
        StorageClass::Private as u32,
    ]);
    let facts = Facts::parse(&m).unwrap();
    let got: Vec<_> = facts
        .descriptors
        .iter()
        .map(|d| (d.binding, d.descriptor_type, d.count))
        .collect();
    assert_eq!(
        got,
        [
            (1, Some(DescriptorKind::Sampler), Some(8)),
            (2, Some(DescriptorKind::Sampler), None)
        ]
    );
}

/// A cycle of array types (malformed: SPIR-V declares an id once) ends the walk.
#[test]
fn cyclic_arrays_end() {
    let m = module(&[
        (Op::Decorate, vec![20, Decoration::DescriptorSet as u32, 0]),
        (Op::Decorate, vec![20, Decoration::Binding as u32, 0]),
        (Op::TypeRuntimeArray, vec![4, 5]),
        (Op::TypeRuntimeArray, vec![5, 4]),
        (
            Op::TypePointer,
            vec![6, StorageClass::UniformConstant as u32, 4],
        ),
        (
            Op::Variable,
            vec![6, 20, StorageClass::UniformConstant as u32],
        ),
    ]);
    let facts = Facts::parse(&m).unwrap();
    assert_eq!(facts.descriptors[0].descriptor_type, None);
}

/// A block's extent ends at the last byte its members declare, with no padding after the last
/// array element, matrix column (or row) or struct member: a `float3` at 0, a column-major
/// `float3x3` with a 16-byte matrix stride at 16 (ends 16 + 2 * 16 + 12 = 60), an array of
/// two `float2` 16 bytes apart at 64 (ends 64 + 16 + 8 = 88) and a nested struct of a `uint2`
/// at 96 (ends 104); a row-major matrix of two `float3` columns (three rows of two floats)
/// with rows 32 bytes apart ends 2 * 32 + 8 after its offset.
#[test]
fn block_extents_end_at_the_last_byte_declared() {
    let m = module(&[
        (Op::Name, cat(&[&[30], &lit("gBlock")])),
        (Op::Decorate, vec![20, Decoration::Block as u32]),
        (Op::Decorate, vec![30, Decoration::DescriptorSet as u32, 0]),
        (Op::Decorate, vec![30, Decoration::Binding as u32, 0]),
        (Op::Decorate, vec![13, Decoration::ArrayStride as u32, 16]),
        (
            Op::MemberDecorate,
            vec![15, 0, Decoration::Offset as u32, 0],
        ),
        (
            Op::MemberDecorate,
            vec![20, 0, Decoration::Offset as u32, 0],
        ),
        (
            Op::MemberDecorate,
            vec![20, 1, Decoration::Offset as u32, 16],
        ),
        (Op::MemberDecorate, vec![20, 1, Decoration::ColMajor as u32]),
        (
            Op::MemberDecorate,
            vec![20, 1, Decoration::MatrixStride as u32, 16],
        ),
        (
            Op::MemberDecorate,
            vec![20, 2, Decoration::Offset as u32, 64],
        ),
        (
            Op::MemberDecorate,
            vec![20, 3, Decoration::Offset as u32, 96],
        ),
        (
            Op::MemberDecorate,
            vec![20, 4, Decoration::Offset as u32, 112],
        ),
        (Op::MemberDecorate, vec![20, 4, Decoration::RowMajor as u32]),
        (
            Op::MemberDecorate,
            vec![20, 4, Decoration::MatrixStride as u32, 32],
        ),
        (Op::TypeFloat, vec![1, 32]),
        (Op::TypeInt, vec![2, 32, 0]),
        (Op::TypeVector, vec![3, 1, 3]),
        (Op::TypeMatrix, vec![4, 3, 3]),
        (Op::TypeVector, vec![5, 1, 2]),
        (Op::Constant, vec![2, 6, 2]),
        (Op::TypeArray, vec![13, 5, 6]),
        (Op::TypeVector, vec![14, 2, 2]),
        (Op::TypeStruct, vec![15, 14]),
        (Op::TypeMatrix, vec![16, 3, 2]),
        (Op::TypeStruct, vec![20, 3, 4, 13, 15, 16]),
        (Op::TypePointer, vec![21, StorageClass::Uniform as u32, 20]),
        (Op::Variable, vec![21, 30, StorageClass::Uniform as u32]),
    ]);
    let facts = Facts::parse(&m).unwrap();
    let block = facts.descriptors[0].block.as_ref().unwrap();
    let extents: Vec<_> = block
        .members
        .iter()
        .filter(|m| m.parent.is_none())
        .map(|m| (m.offset, m.extent))
        .collect();
    assert_eq!(extents, [(0, 12), (16, 44), (64, 24), (96, 8), (112, 72)]);
    assert_eq!(block.extent, 184);
}

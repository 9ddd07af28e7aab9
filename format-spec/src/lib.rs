//! The slangpack on-disk format: the records, constants and enums of SPEC.md, and Slang-free
//! builders that produce every byte of a package.
//!
//! A package is a little-endian file: a [`FileHeader`], a directory of [`SectionRecord`]s, and
//! sections (see [`SectionKind`]). Records are `#[repr(C)]` structs of `u32` fields that derive
//! zerocopy's `FromBytes, IntoBytes, KnownLayout, Immutable` (and, with the `bytemuck` feature,
//! `Pod` and `Zeroable`), so a reader can view a table in place. Enumerations are stored as raw
//! Slang integers; typed getters map unknown values to `Unknown(raw)`.
//!
//! The normative byte-level description is `SPEC.md` beside this crate's `Cargo.toml`.
//!
//! ```
//! use slangpack_format::*;
//!
//! // One reflection blob with a struct type.
//! let mut rb = ReflectionBuilder::new();
//! let name = rb.intern("Params");
//! rb.push(Type { kind: TypeKind::Struct.to_raw(), name, full_name: name,
//!     element_type: ABSENT, resource_result_type: ABSENT, generic_container: ABSENT,
//!     ..Type::default() });
//!
//! // One package with one entry.
//! let mut pb = PackageBuilder::new();
//! let spirv = pb.add_spirv(&[0x0723_0203, 0x0001_0600, 0, 8, 0]);
//! let reflection = pb.add_reflection(rb.finish());
//! pb.add_entry(EntryDesc {
//!     key: "blur.slang|main|RADIUS=4".into(),
//!     reflection: Some(reflection),
//!     entry_points: vec![EntryPointDesc {
//!         name: "main".into(), spirv_entry_name: "main".into(), stage: Stage::Compute,
//!         thread_group_size: [64, 1, 1], wave_size: 0, spirv,
//!         reflection_entry_point: None, hash: 0x1234,
//!     }],
//!     dependencies: vec![DependencyDesc { path: "blur.slang".into(), hash: 42 }],
//!     options_hash: 9,
//!     entry_point_hash: 0x1234,
//! })?;
//! let bytes: Vec<u8> = pb.finish()?;
//! assert_eq!(&bytes[..8], &MAGIC);
//! # Ok::<(), BuildError>(())
//! ```
#![deny(missing_docs)]

pub mod bind;
mod builder;
mod enums;
pub mod limits;
#[allow(
    missing_debug_implementations,
    reason = "zerocopy's KnownLayout derive emits helper types without Debug; every record derives Debug"
)]
mod records;
#[allow(
    missing_debug_implementations,
    reason = "zerocopy's KnownLayout derive emits helper types without Debug; every record derives Debug"
)]
mod reflection;
#[allow(
    missing_debug_implementations,
    reason = "zerocopy's KnownLayout derive emits helper types without Debug; every record derives Debug"
)]
pub mod targets;
pub mod vk;

pub use builder::{
    assemble_sections, BuildError, DependencyDesc, EntryDesc, EntryPointDesc, PackageBuilder,
    RawSection, ReflectionBuilder, ReflectionScalars, TargetCodeDesc, DEFAULT_ZSTD_LEVEL,
};
pub use enums::{
    BindingType, Compression, DeclKind, MatrixLayout, ModifierId, ParameterCategory,
    ResourceAccess, ResourceShape, ScalarType, SectionKind, Stage, TableKind, Target,
    TargetBindingKind, TypeKind, ValueKind,
};
pub use records::{
    join_u64, split_u64, DependencyRecord, EntryPointRecord, EntryPointTargetRecord, EntryRecord,
    FieldLayout, FileHeader, KeyIndexRecord, PackageTableRecord, RecordLayout, SectionRecord,
    StringPoolHeader, StringRef, ABSENT, ENDIAN_TAG, HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN,
    VERSION_MAJOR, VERSION_MINOR,
};
pub use reflection::{
    Attribute, AttributeArg, BindingRange, Decl, DescriptorRange, DescriptorSet, EntryPointLayout,
    Function, Generic, HashedString, Modifier, ReflectionHeader, SubObjectRange, TableDirRecord,
    TableRecord, Type, TypeLayout, VarLayout, Variable, REFLECTION_MAGIC, UNBOUNDED,
};

/// Slang's 32-bit string hash (`spComputeStringHash`, Slang's `getStableHashCode32`), as stored
/// in [`HashedString::hash`]: `h = c + (h << 6) + (h << 16) - h` over the bytes, wrapping,
/// starting from 0. Each byte is sign-extended, as C `char` is on x86-64; for ASCII names (all
/// Slang identifiers) the sign does not matter.
///
/// ```
/// assert_eq!(slangpack_format::slang_string_hash(""), 0);
/// assert_eq!(slangpack_format::slang_string_hash("a"), 97);
/// ```
#[must_use]
pub fn slang_string_hash(s: &str) -> u32 {
    s.bytes().fold(0u32, |h, b| {
        (b as i8 as i32 as u32)
            .wrapping_add(h << 6)
            .wrapping_add(h << 16)
            .wrapping_sub(h)
    })
}

/// xxh3-64 as used for every checksum and key hash in the format.
#[must_use]
pub fn xxh3_64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

#[cfg(test)]
mod spec_tests {
    use super::*;

    /// Every record's size and every field's offset in SPEC.md match the code.
    #[test]
    fn spec_matches_records() {
        let spec = include_str!("../SPEC.md");
        type Fields = &'static [(&'static str, usize)];
        let records: &[(&str, usize, Fields)] = &[
            (
                "FileHeader",
                size_of::<FileHeader>(),
                FileHeader::FIELD_OFFSETS,
            ),
            (
                "SectionRecord",
                size_of::<SectionRecord>(),
                SectionRecord::FIELD_OFFSETS,
            ),
            (
                "StringPoolHeader",
                size_of::<StringPoolHeader>(),
                StringPoolHeader::FIELD_OFFSETS,
            ),
            (
                "StringRef",
                size_of::<StringRef>(),
                StringRef::FIELD_OFFSETS,
            ),
            (
                "EntryRecord",
                size_of::<EntryRecord>(),
                EntryRecord::FIELD_OFFSETS,
            ),
            (
                "KeyIndexRecord",
                size_of::<KeyIndexRecord>(),
                KeyIndexRecord::FIELD_OFFSETS,
            ),
            (
                "EntryPointRecord",
                size_of::<EntryPointRecord>(),
                EntryPointRecord::FIELD_OFFSETS,
            ),
            (
                "DependencyRecord",
                size_of::<DependencyRecord>(),
                DependencyRecord::FIELD_OFFSETS,
            ),
            (
                "ReflectionHeader",
                size_of::<ReflectionHeader>(),
                ReflectionHeader::FIELD_OFFSETS,
            ),
            (
                "TableDirRecord",
                size_of::<TableDirRecord>(),
                TableDirRecord::FIELD_OFFSETS,
            ),
            ("Type", size_of::<Type>(), Type::FIELD_OFFSETS),
            (
                "TypeLayout",
                size_of::<TypeLayout>(),
                TypeLayout::FIELD_OFFSETS,
            ),
            ("Variable", size_of::<Variable>(), Variable::FIELD_OFFSETS),
            (
                "VarLayout",
                size_of::<VarLayout>(),
                VarLayout::FIELD_OFFSETS,
            ),
            ("Function", size_of::<Function>(), Function::FIELD_OFFSETS),
            ("Generic", size_of::<Generic>(), Generic::FIELD_OFFSETS),
            ("Decl", size_of::<Decl>(), Decl::FIELD_OFFSETS),
            (
                "EntryPointLayout",
                size_of::<EntryPointLayout>(),
                EntryPointLayout::FIELD_OFFSETS,
            ),
            (
                "Attribute",
                size_of::<Attribute>(),
                Attribute::FIELD_OFFSETS,
            ),
            (
                "AttributeArg",
                size_of::<AttributeArg>(),
                AttributeArg::FIELD_OFFSETS,
            ),
            ("Modifier", size_of::<Modifier>(), Modifier::FIELD_OFFSETS),
            (
                "HashedString",
                size_of::<HashedString>(),
                HashedString::FIELD_OFFSETS,
            ),
            (
                "BindingRange",
                size_of::<BindingRange>(),
                BindingRange::FIELD_OFFSETS,
            ),
            (
                "DescriptorSet",
                size_of::<DescriptorSet>(),
                DescriptorSet::FIELD_OFFSETS,
            ),
            (
                "DescriptorRange",
                size_of::<DescriptorRange>(),
                DescriptorRange::FIELD_OFFSETS,
            ),
            (
                "SubObjectRange",
                size_of::<SubObjectRange>(),
                SubObjectRange::FIELD_OFFSETS,
            ),
            (
                "BindSummary",
                size_of::<bind::BindSummary>(),
                bind::BindSummary::FIELD_OFFSETS,
            ),
            (
                "DescriptorBinding",
                size_of::<bind::DescriptorBinding>(),
                bind::DescriptorBinding::FIELD_OFFSETS,
            ),
            (
                "DescriptorSetLayout",
                size_of::<bind::DescriptorSetLayout>(),
                bind::DescriptorSetLayout::FIELD_OFFSETS,
            ),
            (
                "PushConstantRange",
                size_of::<bind::PushConstantRange>(),
                bind::PushConstantRange::FIELD_OFFSETS,
            ),
            (
                "BufferLayout",
                size_of::<bind::BufferLayout>(),
                bind::BufferLayout::FIELD_OFFSETS,
            ),
            (
                "BufferMember",
                size_of::<bind::BufferMember>(),
                bind::BufferMember::FIELD_OFFSETS,
            ),
            (
                "MemberAttribute",
                size_of::<bind::MemberAttribute>(),
                bind::MemberAttribute::FIELD_OFFSETS,
            ),
            (
                "VertexInput",
                size_of::<bind::VertexInput>(),
                bind::VertexInput::FIELD_OFFSETS,
            ),
            (
                "SpecializationConstant",
                size_of::<bind::SpecializationConstant>(),
                bind::SpecializationConstant::FIELD_OFFSETS,
            ),
            (
                "EntryPointTargetRecord",
                size_of::<EntryPointTargetRecord>(),
                EntryPointTargetRecord::FIELD_OFFSETS,
            ),
            (
                "TargetBinding",
                size_of::<targets::TargetBinding>(),
                targets::TargetBinding::FIELD_OFFSETS,
            ),
            (
                "NameIndexSlot",
                size_of::<bind::NameIndexSlot>(),
                bind::NameIndexSlot::FIELD_OFFSETS,
            ),
            (
                "ShaderRecordBlock",
                size_of::<bind::ShaderRecordBlock>(),
                bind::ShaderRecordBlock::FIELD_OFFSETS,
            ),
        ];
        for &(name, size, fields) in records {
            let heading = format!("#### `{name}` ({size} bytes)");
            let start = spec
                .find(&heading)
                .unwrap_or_else(|| panic!("SPEC.md lacks {heading}"));
            let rows: Vec<(usize, String)> = spec[start + heading.len()..]
                .lines()
                .skip_while(|l| !l.starts_with('|'))
                .take_while(|l| l.starts_with('|'))
                .skip(2)
                .map(|l| {
                    let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                    (
                        cells[1].parse().unwrap(),
                        cells[3].trim_matches('`').to_owned(),
                    )
                })
                .collect();
            let expected: Vec<(usize, String)> =
                fields.iter().map(|&(f, o)| (o, f.to_owned())).collect();
            assert_eq!(rows, expected, "SPEC.md table of {name}");
        }
    }
}

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
//!         reflection_entry_point: None,
//!     }],
//!     dependencies: vec![DependencyDesc { path: "blur.slang".into(), hash: 42 }],
//!     options_hash: 9,
//! })?;
//! let bytes: Vec<u8> = pb.finish()?;
//! assert_eq!(&bytes[..8], &MAGIC);
//! # Ok::<(), BuildError>(())
//! ```
#![deny(missing_docs)]
// What the reader runs of this crate (records, enums, tables, checks) neither indexes unchecked
// nor panics; the builders, which only the writer runs on its own data, may.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic
    )
)]

pub mod bind;
#[allow(
    clippy::indexing_slicing,
    clippy::expect_used,
    reason = "the writer's builders index their own tables and stop on a package over 4 GiB"
)]
mod builder;
mod enums;
mod frames;
mod index;
pub mod limits;
mod packed;
mod packed_spirv;
#[allow(
    missing_debug_implementations,
    reason = "zerocopy's KnownLayout derive emits helper types without Debug; every record derives Debug"
)]
#[allow(
    clippy::indexing_slicing,
    reason = "paginate checks every index of the package it pages before it indexes with it"
)]
mod paged;
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
mod tables;
#[allow(
    missing_debug_implementations,
    reason = "zerocopy's KnownLayout derive emits helper types without Debug; every record derives Debug"
)]
pub mod targets;
pub mod vk;

pub use builder::{
    assemble_sections, assemble_sections_indexed, blob_split, BuildError, DependencyDesc,
    EntryDesc, EntryPointDesc, PackageBuilder, RawSection, ReflectionBuilder, ReflectionScalars,
    StoredDictionary, TargetCodeDesc, DEFAULT_ZSTD_LEVEL,
};
pub use enums::{
    ArgumentMemberKind, BindingType, Compression, DeclKind, MatrixLayout, ModifierId,
    ParameterCategory, ResourceAccess, ResourceShape, ScalarType, SectionKind, Stage, Target,
    TargetBindingKind, TypeKind, ValueKind,
};
pub use frames::{bare_frame, restore_magic, strip_magic, BareFrame, ZSTD_MAGIC};
pub use index::{
    bind_run_decompressed, bind_run_of, bind_run_views, bind_view_len, compress_index,
    decompress_index, index_content, module_run_decompressed, module_run_of, pack_index,
    read_sections, store_index, with_shared_tables, PackedIndex, PACKED_INDEX_PREFIX,
};
pub use packed::{pack_raw_tables, pack_table, unpack_raw_tables, unpack_table, UnpackError};
pub use packed_spirv::{
    pack_spirv, packed_spirv_bound, packed_spirv_len, unpack_spirv, unpack_spirv_prefix,
};
pub use paged::{
    paginate, PageRecord, DEFAULT_PAGE_ENTRIES, FLAG_PAGED_INDEX, PAGED_VERSION_MAJOR,
    PAGED_VERSION_MINOR, PAGE_FLAGS, PAGE_FROM, PAGE_VERSION,
};
pub use records::{
    join_u64, split_u64, DependencyRecord, EntryPointRecord, EntryPointTargetRecord, EntryRecord,
    FieldCheck, FieldLayout, FieldRef, FileHeader, KeyIndexRecord, PackageTableRecord,
    RecordLayout, RecordRefs, RefVisitor, SectionRecord, ShardRecord, StringPoolHeader, StringRef,
    ABSENT, ENDIAN_TAG, FLAG_BARE_FRAMES, FLAG_CHECKSUM_RUNS, FLAG_COMPRESSED_INDEX,
    FLAG_PACKED_INDEX, HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN, VERSION_MAJOR, VERSION_MAJOR_READ,
    VERSION_MINOR,
};
pub use reflection::{
    Attribute, AttributeArg, BindingRange, Decl, DescriptorRange, DescriptorSet, EntryPointLayout,
    Function, Generic, HashedString, Modifier, ReflectionHeader, SubObjectRange, TableDirRecord,
    TableRecord, Type, TypeLayout, VarLayout, Variable, REFLECTION_MAGIC, SPECIALIZED_COUNT,
    UNBOUNDED,
};
pub use tables::{TableInfo, TableKind, LAST_RAW_TABLE, TABLES, TABLE_KINDS};

/// xxh3-64 as used for every checksum and key hash in the format.
#[must_use]
#[inline]
pub fn xxh3_64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

#[cfg(test)]
mod spec_tests {
    use super::*;
    use crate::records::RecordFields;

    type Fields = &'static [(&'static str, usize)];

    fn record<R: RecordFields>() -> (&'static str, usize, Fields) {
        (R::NAME, size_of::<R>(), R::FIELD_OFFSETS)
    }

    /// The rows of the first Markdown table after `heading`, split into trimmed cells.
    fn table_after(spec: &str, heading: &str) -> Vec<Vec<String>> {
        let start = spec
            .find(heading)
            .unwrap_or_else(|| panic!("SPEC.md lacks {heading}"));
        spec[start + heading.len()..]
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .skip(2)
            .map(|l| {
                l.split('|')
                    .map(|c| c.trim().to_owned())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Every record's size and every field's offset in SPEC.md match the code: the container
    /// records listed here and every reflection table record of the table list.
    #[test]
    fn spec_matches_records() {
        let spec = include_str!("../SPEC.md");
        let mut records = vec![
            record::<FileHeader>(),
            record::<SectionRecord>(),
            record::<StringPoolHeader>(),
            record::<EntryRecord>(),
            record::<KeyIndexRecord>(),
            record::<EntryPointRecord>(),
            record::<DependencyRecord>(),
            record::<ReflectionHeader>(),
            record::<TableDirRecord>(),
            record::<EntryPointTargetRecord>(),
            record::<ShardRecord>(),
            record::<PageRecord>(),
        ];
        macro_rules! table_records {
            ($( $(#[$doc:meta])* $raw:literal $variant:ident $name:ident : $rec:ty; )*) => {
                $( records.push(record::<$rec>()); )*
            };
        }
        reflection_tables!(table_records);
        let mut checked = 0;
        for (name, size, fields) in records {
            if name.is_empty() {
                continue; // the u32 pool and string bytes are plain words and bytes
            }
            let heading = format!("#### `{name}` ({size} bytes)");
            let rows: Vec<(usize, String)> = table_after(spec, &heading)
                .iter()
                .map(|cells| {
                    (
                        cells[1].parse().unwrap(),
                        cells[3].trim_matches('`').to_owned(),
                    )
                })
                .collect();
            let expected: Vec<(usize, String)> =
                fields.iter().map(|&(f, o)| (o, f.to_owned())).collect();
            assert_eq!(rows, expected, "SPEC.md table of {name}");
            checked += 1;
        }
        assert_eq!(checked, 12 + TABLE_KINDS - 2);
    }

    /// SPEC.md's list of table kinds (6.3) is the table list: kind, name, record and size.
    #[test]
    fn spec_lists_every_table_kind() {
        let spec = include_str!("../SPEC.md");
        let rows = table_after(spec, "### 6.3 Table kinds");
        let mut names = Vec::new();
        macro_rules! table_names {
            ($( $(#[$doc:meta])* $raw:literal $variant:ident $name:ident : $rec:ty; )*) => {
                $( names.push(<$rec as RecordFields>::NAME); )*
            };
        }
        reflection_tables!(table_names);
        let known: Vec<_> = rows.iter().take(TABLE_KINDS).collect();
        assert_eq!(known.len(), TABLE_KINDS, "SPEC.md 6.3 lists every kind");
        for ((cells, info), record) in known.into_iter().zip(TABLES).zip(names) {
            let record = if record.is_empty() {
                if info.record_size == 1 {
                    "u8"
                } else {
                    "u32"
                }
            } else {
                record
            };
            assert_eq!(cells[1], info.kind.to_raw().to_string());
            assert!(
                cells[2].starts_with(&format!("`{}`", info.name)),
                "{cells:?}"
            );
            assert_eq!(cells[3], format!("`{record}`"));
            assert_eq!(cells[4], info.record_size.to_string());
            assert_eq!(TableKind::from_raw(info.kind.to_raw()).name(), info.name);
        }
        assert_eq!(TableKind::Unknown(40).name(), "unknown");
        assert_eq!(TableKind::NameIndex.slot(), Some(28));
        assert_eq!(TableKind::ExecutionModes.slot(), Some(32));
        assert_eq!(TableKind::TargetMembers.slot(), Some(34));
        assert_eq!(TableKind::ArgumentBufferMembers.slot(), Some(36));
        assert_eq!(TableKind::MemberPointees.slot(), Some(37));
        assert_eq!(
            TableKind::ExistentialConformances.slot(),
            Some(TABLE_KINDS - 1)
        );
    }
}

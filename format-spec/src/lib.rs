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

pub use builder::{
    assemble_sections, BuildError, DependencyDesc, EntryDesc, EntryPointDesc, PackageBuilder,
    RawSection, ReflectionBuilder, ReflectionScalars, DEFAULT_ZSTD_LEVEL,
};
pub use enums::{
    BindingType, Compression, DeclKind, MatrixLayout, ModifierId, ParameterCategory,
    ResourceAccess, ResourceShape, ScalarType, SectionKind, Stage, TableKind, TypeKind, ValueKind,
};
pub use records::{
    join_u64, split_u64, DependencyRecord, EntryPointRecord, EntryRecord, FileHeader,
    KeyIndexRecord, PackageTableRecord, SectionRecord, StringPoolHeader, StringRef, ABSENT,
    ENDIAN_TAG, HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN, VERSION_MAJOR, VERSION_MINOR,
};
pub use reflection::{
    Attribute, AttributeArg, BindingRange, Decl, DescriptorRange, DescriptorSet, EntryPointLayout,
    Function, Generic, HashedString, Modifier, ReflectionHeader, SubObjectRange, TableDirRecord,
    TableRecord, Type, TypeLayout, VarLayout, Variable, REFLECTION_MAGIC, UNBOUNDED,
};

/// xxh3-64 as used for every checksum and key hash in the format.
#[must_use]
pub fn xxh3_64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

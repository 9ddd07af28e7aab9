//! Package-level records: the file header, the section directory and the container tables.
//!
//! Every record is `#[repr(C)]`, made only of little-endian `u32` fields (a `u64` is split into
//! `_lo`/`_hi` halves), so it has no padding and an alignment of 4 (the header's magic is a byte
//! array). `u32::MAX` ([`ABSENT`]) in an index field means "absent". Sizes are checked at compile
//! time against SPEC.md.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// The value of an index field that refers to nothing.
pub const ABSENT: u32 = u32::MAX;

/// Joins the `_lo`/`_hi` halves of a split `u64` field.
#[must_use]
pub const fn join_u64(lo: u32, hi: u32) -> u64 {
    (lo as u64) | ((hi as u64) << 32)
}

/// Splits a `u64` into its `(lo, hi)` halves as stored in records.
#[must_use]
pub const fn split_u64(value: u64) -> (u32, u32) {
    (value as u32, (value >> 32) as u32)
}

/// One field of a record, as [`RecordLayout::FIELDS`] lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldLayout {
    /// The field's name, as in SPEC.md.
    pub name: &'static str,
    /// Byte offset from the start of the record.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
    /// The Rust type as written: `u32`, or a byte array such as `[u8; 8]`.
    pub ty: &'static str,
    /// The field's documentation (one line per doc-comment line).
    pub doc: &'static str,
}

/// The layout of a record, field by field: what declarations of the records in other
/// languages (the C header of `slangpack-c`) are generated from, so that the format is
/// written down once.
pub trait RecordLayout {
    /// The record's name (`DescriptorBinding`).
    const NAME: &'static str;
    /// The record's documentation (one line per doc-comment line).
    const DOC: &'static str;
    /// Every field, in order; offsets and sizes are the compiler's.
    const FIELDS: &'static [FieldLayout];
}

/// What a field of a record refers to, which a reader checks before it follows the field
/// (declared once, with the field: [`RecordRefs::REFS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldRef {
    /// An index into a table (a string: into [`crate::TableKind::StringRefs`]), or
    /// [`ABSENT`].
    Index(crate::TableKind),
    /// The first of `count` consecutive records of a table, the count being the `u32` field
    /// at byte offset `count` of the record (nothing to check when it is 0).
    Range {
        /// The table.
        table: crate::TableKind,
        /// Byte offset of the count field.
        count: usize,
    },
    /// An offset into the blob's `u32` pool of `count × words` words, the count being the
    /// `u32` field at byte offset `count`.
    Pool {
        /// Byte offset of the count field.
        count: usize,
        /// Words per counted item.
        words: u32,
    },
    /// An offset into the blob's `u32` pool of `count` indices into a table (none absent),
    /// the count being the `u32` field at byte offset `count`.
    PoolIndices {
        /// Byte offset of the count field.
        count: usize,
        /// The table the indices point into.
        table: crate::TableKind,
    },
}

/// One reference field of a record: its name, byte offset and what it refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldCheck {
    /// The field's name, as in SPEC.md.
    pub field: &'static str,
    /// Byte offset of the `u32` field from the start of the record.
    pub offset: usize,
    /// What the field refers to.
    pub refers: FieldRef,
}

/// The fields of a record that refer to other records or to the pool, declared with the
/// fields themselves (`#[refs(index Types)]`, `#[refs(string)]`, `#[refs(range Attributes,
/// attribute_count)]`, `#[refs(pool category_count, 3)]`, `#[refs(pool_indices field_count,
/// Variables)]`), in field order. A reader checks each against the blob it loads; references
/// that depend on another field's value (a payload whose table a kind picks) are not listed
/// and are checked by hand.
pub trait RecordRefs {
    /// The reference fields, in field order.
    const REFS: &'static [FieldCheck];

    /// Hands each reference field's name and value (with its count) to `visit`, in field
    /// order, stopping at the first error: the checks of [`Self::REFS`] as straight-line
    /// code over the fields.
    ///
    /// # Errors
    /// The first error `visit` returns.
    fn visit_refs<V: RefVisitor>(&self, visit: &mut V) -> Result<(), V::Error>;
}

/// What [`RecordRefs::visit_refs`] hands each reference field to: one method per kind of
/// reference, each given the field's name.
pub trait RefVisitor {
    /// What a failed check returns.
    type Error;
    /// An index into `table` (a string: [`crate::TableKind::StringRefs`]), or [`ABSENT`].
    ///
    /// # Errors
    /// The visitor's.
    fn index(
        &mut self,
        field: &'static str,
        table: crate::TableKind,
        value: u32,
    ) -> Result<(), Self::Error>;
    /// Records `first..first + count` of `table`.
    ///
    /// # Errors
    /// The visitor's.
    fn range(
        &mut self,
        field: &'static str,
        table: crate::TableKind,
        first: u32,
        count: u32,
    ) -> Result<(), Self::Error>;
    /// Pool words `offset..offset + count * words`.
    ///
    /// # Errors
    /// The visitor's.
    fn pool(
        &mut self,
        field: &'static str,
        offset: u32,
        count: u32,
        words: u32,
    ) -> Result<(), Self::Error>;
    /// Pool words `offset..offset + count`, each an index into `table`.
    ///
    /// # Errors
    /// The visitor's.
    fn pool_indices(
        &mut self,
        field: &'static str,
        table: crate::TableKind,
        offset: u32,
        count: u32,
    ) -> Result<(), Self::Error>;
}

/// The call of `$visit` for field `$field` of record value `$record` under one
/// `#[refs(...)]` annotation.
macro_rules! visit_ref {
    ($visit:ident, $record:ident . $field:ident; index $table:ident) => {
        $visit.index(
            stringify!($field),
            $crate::TableKind::$table,
            $record.$field,
        )
    };
    ($visit:ident, $record:ident . $field:ident; string) => {
        $visit.index(
            stringify!($field),
            $crate::TableKind::StringRefs,
            $record.$field,
        )
    };
    ($visit:ident, $record:ident . $field:ident; range $table:ident, $count:ident) => {
        $visit.range(
            stringify!($field),
            $crate::TableKind::$table,
            $record.$field,
            $record.$count,
        )
    };
    ($visit:ident, $record:ident . $field:ident; pool $count:ident, $words:literal) => {
        $visit.pool(stringify!($field), $record.$field, $record.$count, $words)
    };
    ($visit:ident, $record:ident . $field:ident; pool_indices $count:ident, $table:ident) => {
        $visit.pool_indices(
            stringify!($field),
            $crate::TableKind::$table,
            $record.$field,
            $record.$count,
        )
    };
}
pub(crate) use visit_ref;

/// The [`FieldRef`] of one `#[refs(...)]` annotation of a field of record `$name`.
macro_rules! field_ref {
    ($name:ident; index $table:ident) => {
        $crate::FieldRef::Index($crate::TableKind::$table)
    };
    ($name:ident; string) => {
        $crate::FieldRef::Index($crate::TableKind::StringRefs)
    };
    ($name:ident; range $table:ident, $count:ident) => {
        $crate::FieldRef::Range {
            table: $crate::TableKind::$table,
            count: core::mem::offset_of!($name, $count),
        }
    };
    ($name:ident; pool $count:ident, $words:literal) => {
        $crate::FieldRef::Pool {
            count: core::mem::offset_of!($name, $count),
            words: $words,
        }
    };
    ($name:ident; pool_indices $count:ident, $table:ident) => {
        $crate::FieldRef::PoolIndices {
            count: core::mem::offset_of!($name, $count),
            table: $crate::TableKind::$table,
        }
    };
}
pub(crate) use field_ref;

/// Declares a record: derives, `#[repr(C)]`, a compile-time size check, its
/// [`RecordLayout`] (what other languages' declarations are generated from) and its
/// [`RecordRefs`] (what a reader checks).
macro_rules! record {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident [$size:expr] {
            $(
                $(#[doc = $fdoc:literal])*
                $(#[refs($($refs:tt)*)])?
                pub $field:ident : $ty:ty,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, Default,
            zerocopy::FromBytes, zerocopy::IntoBytes, zerocopy::KnownLayout, zerocopy::Immutable,
        )]
        #[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
        #[repr(C)]
        pub struct $name {
            $( $(#[doc = $fdoc])* pub $field: $ty, )*
        }

        const _: () = assert!(core::mem::size_of::<$name>() == $size);

        #[cfg(test)]
        impl crate::records::RecordFields for $name {
            const NAME: &'static str = stringify!($name);
            const FIELD_OFFSETS: &'static [(&'static str, usize)] =
                &[$( (stringify!($field), core::mem::offset_of!($name, $field)), )*];
        }

        impl $crate::RecordRefs for $name {
            const REFS: &'static [$crate::FieldCheck] = &[$($(
                $crate::FieldCheck {
                    field: stringify!($field),
                    offset: core::mem::offset_of!($name, $field),
                    refers: $crate::records::field_ref!($name; $($refs)*),
                },
            )?)*];

            #[inline(always)]
            #[allow(unused_variables)]
            fn visit_refs<V: $crate::RefVisitor>(&self, visit: &mut V) -> Result<(), V::Error> {
                let record = self;
                $($(
                    $crate::records::visit_ref!(visit, record.$field; $($refs)*)?;
                )?)*
                Ok(())
            }
        }

        impl $crate::RecordLayout for $name {
            const NAME: &'static str = stringify!($name);
            const DOC: &'static str = concat!($($doc, "\n",)*);
            const FIELDS: &'static [$crate::FieldLayout] = &[$(
                $crate::FieldLayout {
                    name: stringify!($field),
                    offset: core::mem::offset_of!($name, $field),
                    size: core::mem::size_of::<$ty>(),
                    ty: stringify!($ty),
                    doc: concat!($($fdoc, "\n",)*),
                },
            )*];
        }
    };
}
pub(crate) use record;

/// The name and (field, byte offset) list of a record, for checking SPEC.md against the code.
#[cfg(test)]
pub(crate) trait RecordFields {
    /// The record's name as SPEC.md's heading spells it; empty for a plain word or byte.
    const NAME: &'static str;
    /// (field name, byte offset) of every field.
    const FIELD_OFFSETS: &'static [(&'static str, usize)];
}

#[cfg(test)]
impl RecordFields for u32 {
    const NAME: &'static str = "";
    const FIELD_OFFSETS: &'static [(&'static str, usize)] = &[];
}

#[cfg(test)]
impl RecordFields for u8 {
    const NAME: &'static str = "";
    const FIELD_OFFSETS: &'static [(&'static str, usize)] = &[];
}

/// The 8 bytes every package starts with.
pub const MAGIC: [u8; 8] = *b"SLANGPK\0";
/// The major version this crate writes. A reader reads this major version and
/// [`VERSION_MAJOR_READ`] (1.x, whose records have the same layout) and refuses any other.
pub const VERSION_MAJOR: u32 = 2;
/// The minor version this crate writes. A reader accepts any minor version of a major it reads.
pub const VERSION_MINOR: u32 = 9;
/// The older major version a reader still reads (1.x: the same records, plus the key index
/// and the stored hashes that 2.0 derives, SPEC.md 7).
pub const VERSION_MAJOR_READ: u32 = 1;
/// [`FileHeader::flags`] bit (since 1.2): the section directory and the container sections
/// are stored together as one zstd frame, the compressed index (SPEC.md 4.4).
pub const FLAG_COMPRESSED_INDEX: u32 = 1;
/// [`FileHeader::flags`] bit (since 2.2), with [`FLAG_COMPRESSED_INDEX`]: the compressed
/// index's content is packed, its directory and container tables column by column (SPEC.md
/// 4.4); meaningless, and ignored, without it.
pub const FLAG_PACKED_INDEX: u32 = 2;
/// [`FileHeader::flags`] bit (since 2.3), with [`FLAG_COMPRESSED_INDEX`]: sections in the file
/// may share one checksum, a checksum run's (SPEC.md 4.3 rule 3): a section whose `hash` is 0
/// is covered by the checksum of the first section after it in the directory that has one,
/// which then hashes the file bytes from the run's first section to its own end. Meaningless,
/// and ignored, without [`FLAG_COMPRESSED_INDEX`].
pub const FLAG_CHECKSUM_RUNS: u32 = 4;
/// [`FileHeader::flags`] bit (since 2.4), with [`FLAG_COMPRESSED_INDEX`]: every zstd frame of
/// a section in the file (stored `Zstd`, `ZstdDictionary` or `ZstdSplitDictionaries`) is
/// stored without its 4-byte magic number, a bare frame (SPEC.md 4.2; [`crate::bare_frame`]).
/// The compressed index keeps its magic numbers. Meaningless, and ignored, without
/// [`FLAG_COMPRESSED_INDEX`].
pub const FLAG_BARE_FRAMES: u32 = 8;
/// The value of [`FileHeader::endian_tag`]; it reads as `0x0D0C_0B0A` on a big-endian host.
pub const ENDIAN_TAG: u32 = 0x0A0B_0C0D;
/// Alignment of every section's offset in the file, in bytes.
pub const SECTION_ALIGN: u64 = 8;

record! {
    /// The file header at offset 0 (72 bytes in version 1.0).
    pub struct FileHeader [72] {
        /// [`MAGIC`].
        pub magic: [u8; 8],
        /// Major version; a reader refuses any major version other than its own [`VERSION_MAJOR`]
        /// and [`VERSION_MAJOR_READ`].
        pub version_major: u32,
        /// Minor version; newer minors add section kinds, table kinds, record fields.
        pub version_minor: u32,
        /// Size of this header in bytes (72 in 1.0); a reader reads the prefix it knows.
        pub header_size: u32,
        /// Flags: [`FLAG_COMPRESSED_INDEX`] (1.2), [`FLAG_PACKED_INDEX`] (2.2),
        /// [`FLAG_CHECKSUM_RUNS`] (2.3), [`FLAG_BARE_FRAMES`] (2.4); other bits are written 0
        /// and ignored.
        pub flags: u32,
        /// [`ENDIAN_TAG`], stored little-endian.
        pub endian_tag: u32,
        /// Number of records in the section directory.
        pub section_count: u32,
        /// Size of one directory record in bytes (48 in 1.0); may grow in a minor version.
        pub section_record_size: u32,
        /// With [`FLAG_COMPRESSED_INDEX`], the stored size of the compressed index in bytes;
        /// else 0 (reserved in 1.0 and 1.1).
        pub index_size: u32,
        /// File offset of the section directory (low half).
        pub section_dir_offset_lo: u32,
        /// File offset of the section directory (high half).
        pub section_dir_offset_hi: u32,
        /// Size of the whole file in bytes (low half).
        pub file_size_lo: u32,
        /// Size of the whole file in bytes (high half).
        pub file_size_hi: u32,
        /// xxh3-64 of the section directory bytes (low half).
        pub dir_hash_lo: u32,
        /// xxh3-64 of the section directory bytes (high half).
        pub dir_hash_hi: u32,
        /// xxh3-64 of header bytes `0..64` (low half).
        pub header_hash_lo: u32,
        /// xxh3-64 of header bytes `0..64` (high half).
        pub header_hash_hi: u32,
    }
}

impl FileHeader {
    /// Whether [`FLAG_COMPRESSED_INDEX`] is set: the directory is stored in the compressed
    /// index (SPEC.md 4.4).
    #[must_use]
    pub const fn has_compressed_index(&self) -> bool {
        self.flags & FLAG_COMPRESSED_INDEX != 0
    }
    /// Whether the compressed index's content is packed ([`FLAG_PACKED_INDEX`] with
    /// [`FLAG_COMPRESSED_INDEX`], SPEC.md 4.4).
    #[must_use]
    pub const fn has_packed_index(&self) -> bool {
        self.has_compressed_index() && self.flags & FLAG_PACKED_INDEX != 0
    }
    /// Whether sections in the file may share a checksum run's ([`FLAG_CHECKSUM_RUNS`] with
    /// [`FLAG_COMPRESSED_INDEX`], SPEC.md 4.3 rule 3).
    #[must_use]
    pub const fn has_checksum_runs(&self) -> bool {
        self.has_compressed_index() && self.flags & FLAG_CHECKSUM_RUNS != 0
    }
    /// Whether the sections' zstd frames are stored bare ([`FLAG_BARE_FRAMES`] with
    /// [`FLAG_COMPRESSED_INDEX`], SPEC.md 4.2).
    #[must_use]
    pub const fn has_bare_frames(&self) -> bool {
        self.has_compressed_index() && self.flags & FLAG_BARE_FRAMES != 0
    }
    /// Whether the directory is a page table (3.0, [`crate::FLAG_PAGED_INDEX`] in a package of
    /// major version [`crate::PAGED_VERSION_MAJOR`], SPEC.md 4.5).
    #[must_use]
    pub const fn is_paged(&self) -> bool {
        self.version_major == crate::PAGED_VERSION_MAJOR
            && self.flags & crate::FLAG_PAGED_INDEX != 0
    }
    /// File offset of the section directory (of the compressed index's frame, with one).
    #[must_use]
    pub const fn section_dir_offset(&self) -> u64 {
        join_u64(self.section_dir_offset_lo, self.section_dir_offset_hi)
    }
    /// Size of the whole file in bytes, as declared.
    #[must_use]
    pub const fn file_size(&self) -> u64 {
        join_u64(self.file_size_lo, self.file_size_hi)
    }
    /// Number of bytes the directory occupies in the file at
    /// [`FileHeader::section_dir_offset`]: `index_size` with a compressed index, else
    /// `section_count × section_record_size`.
    #[must_use]
    pub const fn stored_directory_size(&self) -> u64 {
        if self.has_compressed_index() || self.is_paged() {
            self.index_size as u64
        } else {
            self.section_count as u64 * self.section_record_size as u64
        }
    }
}

/// Number of leading header bytes covered by [`FileHeader::header_hash_lo`]/`_hi`.
pub const HEADER_HASHED_LEN: usize = 64;

record! {
    /// One record of the section directory (48 bytes in 1.0).
    pub struct SectionRecord [48] {
        /// [`crate::SectionKind`] raw value; readers skip kinds they do not know.
        pub kind: u32,
        /// [`crate::Compression`] raw value.
        pub compression: u32,
        /// For a table section, the size of one record in bytes; 0 for a byte section.
        pub record_stride: u32,
        /// For a table section, the number of records (`raw size = count * stride`); else 0.
        pub record_count: u32,
        /// File offset of the stored bytes (low half); a multiple of 8.
        pub offset_lo: u32,
        /// File offset of the stored bytes (high half).
        pub offset_hi: u32,
        /// Number of stored bytes (low half).
        pub stored_size_lo: u32,
        /// Number of stored bytes (high half).
        pub stored_size_hi: u32,
        /// Number of bytes after decompression (low half).
        pub raw_size_lo: u32,
        /// Number of bytes after decompression (high half).
        pub raw_size_hi: u32,
        /// xxh3-64 of the stored bytes (low half).
        pub hash_lo: u32,
        /// xxh3-64 of the stored bytes (high half); 2.0: 0 for a section stored compressed,
        /// whose checksum is the low half alone.
        pub hash_hi: u32,
    }
}

impl SectionRecord {
    /// The record of a section whose `[kind, compression, record_stride, record_count]` are
    /// `fields`, stored at `offset` in `stored_size` bytes that give `raw_size` raw bytes; its
    /// checksum zero (a writer sets `hash_lo` and `hash_hi` once the stored bytes are known).
    #[must_use]
    pub const fn new(fields: [u32; 4], offset: u64, stored_size: u64, raw_size: u64) -> Self {
        let [kind, compression, record_stride, record_count] = fields;
        let (offset_lo, offset_hi) = split_u64(offset);
        let (stored_size_lo, stored_size_hi) = split_u64(stored_size);
        let (raw_size_lo, raw_size_hi) = split_u64(raw_size);
        SectionRecord {
            kind,
            compression,
            record_stride,
            record_count,
            offset_lo,
            offset_hi,
            stored_size_lo,
            stored_size_hi,
            raw_size_lo,
            raw_size_hi,
            hash_lo: 0,
            hash_hi: 0,
        }
    }

    /// File offset of the stored bytes.
    #[must_use]
    pub const fn offset(&self) -> u64 {
        join_u64(self.offset_lo, self.offset_hi)
    }
    /// Number of stored bytes.
    #[must_use]
    pub const fn stored_size(&self) -> u64 {
        join_u64(self.stored_size_lo, self.stored_size_hi)
    }
    /// Number of raw (decompressed) bytes.
    #[must_use]
    pub const fn raw_size(&self) -> u64 {
        join_u64(self.raw_size_lo, self.raw_size_hi)
    }
    /// The checksum as stored: xxh3-64 of the stored bytes, or its low 32 bits (see
    /// [`SectionRecord::checksum_of`]).
    #[must_use]
    pub const fn hash(&self) -> u64 {
        join_u64(self.hash_lo, self.hash_hi)
    }
    /// The checksum this record states for stored bytes whose xxh3-64 is `hash`, in a package
    /// of major version `major` (SPEC.md 4.3 rule 3): `hash`, or in 2.0, for a section stored
    /// compressed (`Zstd`, `ZstdDictionary`, `ZstdSplitDictionaries`), its low 32 bits (`hash_hi` is written 0). A
    /// reader compares it with [`SectionRecord::hash`].
    #[must_use]
    pub const fn checksum_of(&self, major: u32, hash: u64) -> u64 {
        if major >= 2 && self.compression_kind().is_zstd() {
            hash & 0xFFFF_FFFF
        } else {
            hash
        }
    }
    /// The typed section kind.
    #[must_use]
    pub const fn section_kind(&self) -> crate::SectionKind {
        crate::SectionKind::from_raw(self.kind)
    }
    /// The typed compression.
    #[must_use]
    pub const fn compression_kind(&self) -> crate::Compression {
        crate::Compression::from_raw(self.compression)
    }
}

record! {
    /// A string reference: `len` bytes at `offset` in a string pool's byte area.
    pub struct StringRef [8] {
        /// Offset of the first byte, relative to the start of the pool's bytes.
        pub offset: u32,
        /// Length in bytes (UTF-8, no terminator).
        pub len: u32,
    }
}

record! {
    /// The first 8 bytes of the package string pool section.
    pub struct StringPoolHeader [8] {
        /// Number of [`StringRef`] records that follow.
        pub count: u32,
        /// Number of string bytes after the references.
        pub byte_len: u32,
    }
}

record! {
    /// One entry: one permutation of one shader, keyed by its canonical permutation key.
    pub struct EntryRecord [48] {
        /// Package string index of the canonical permutation key.
        pub key: u32,
        /// 1.x: xxh3-64 of the key's UTF-8 bytes (low half). 2.0: written 0, not read (a
        /// lookup compares keys).
        pub key_hash_lo: u32,
        /// 1.x: xxh3-64 of the key's UTF-8 bytes (high half). 2.0: written 0, not read.
        pub key_hash_hi: u32,
        /// Reflection blob index (ordinal among reflection sections), or [`ABSENT`].
        pub reflection: u32,
        /// Index of the first [`EntryPointRecord`] of this entry.
        pub entry_point_first: u32,
        /// Number of entry points.
        pub entry_point_count: u32,
        /// Index of the first [`DependencyRecord`] of this entry.
        pub dependency_first: u32,
        /// Number of dependencies.
        pub dependency_count: u32,
        /// Hash of the compile options (low half); opaque to the reader.
        pub options_hash_lo: u32,
        /// Hash of the compile options (high half).
        pub options_hash_hi: u32,
        /// 1.x: the first entry point's hash (low half). 2.0: written 0, not read (the hash
        /// is the first entry point's module's, derived from its words at the load).
        pub entry_point_hash_lo: u32,
        /// 1.x: the first entry point's hash (high half). 2.0: written 0, not read.
        pub entry_point_hash_hi: u32,
    }
}

record! {
    /// One key-index record (1.x only; 2.0 packages have no key index); the index is sorted by
    /// (`hash`, `entry`), strictly increasing.
    pub struct KeyIndexRecord [12] {
        /// xxh3-64 of the entry's key (low half).
        pub hash_lo: u32,
        /// xxh3-64 of the entry's key (high half).
        pub hash_hi: u32,
        /// Index of the entry.
        pub entry: u32,
    }
}

record! {
    /// One compiled entry point of an entry.
    pub struct EntryPointRecord [48] {
        /// Package string index of Slang's entry-point name.
        pub name: u32,
        /// Package string index of the name inside the SPIR-V (usually `main`): pass this as
        /// `pName`.
        pub spirv_entry_name: u32,
        /// [`crate::Stage`] raw value.
        pub stage: u32,
        /// Thread-group size X (0 when not a compute-like stage).
        pub thread_group_size_x: u32,
        /// Thread-group size Y.
        pub thread_group_size_y: u32,
        /// Thread-group size Z.
        pub thread_group_size_z: u32,
        /// Required wave size, 0 when not specified.
        pub wave_size: u32,
        /// SPIR-V blob index (ordinal among SPIR-V sections).
        pub spirv: u32,
        /// Index into the reflection blob's entry-point table, or [`ABSENT`].
        pub reflection_entry_point: u32,
        /// 1.x: xxh3-64 of this entry point's SPIR-V words (low half). 2.0: written 0, not
        /// read (the reader hashes the module's words at its load).
        pub hash_lo: u32,
        /// 1.x: the hash's high half. 2.0: written 0, not read.
        pub hash_hi: u32,
        /// Flags; none defined in 1.0 (written 0).
        pub flags: u32,
    }
}

record! {
    /// One source dependency of an entry.
    pub struct DependencyRecord [12] {
        /// Package string index of the path, relative to the bake root, `/`-separated.
        pub path: u32,
        /// xxh3-64 of the file's content (low half).
        pub hash_lo: u32,
        /// xxh3-64 of the file's content (high half).
        pub hash_hi: u32,
    }
}

record! {
    /// Where one entry point's code for one further target lives (SPIR-V is in
    /// [`EntryPointRecord::spirv`]). Sorted by (`entry_point`, `target`), strictly increasing.
    pub struct EntryPointTargetRecord [16] {
        /// Index of the entry point (into the entry-point table).
        pub entry_point: u32,
        /// [`crate::Target`] raw value; never `Spirv`.
        pub target: u32,
        /// Code blob index (ordinal among target-code sections).
        pub code: u32,
        /// Package string index of the entry point's name inside this target's code.
        pub entry_name: u32,
    }
}

record! {
    /// The one record of a `ShardPlan` section: the slice of a bake plan (`slangpack bake
    /// --shard K/N`) this package holds, so that `merge` can check that its inputs are the
    /// slices of one plan and together complete. Only sharded bakes carry it.
    pub struct ShardRecord [32] {
        /// The slice's number K, 1-based.
        pub shard_index: u32,
        /// How many slices the plan was cut into (N); `1 <= shard_index <= shard_count`.
        pub shard_count: u32,
        /// xxh3-64 of the whole plan (low half): every permutation's key and options hash.
        pub plan_hash_lo: u32,
        /// xxh3-64 of the whole plan (high half).
        pub plan_hash_hi: u32,
        /// Permutations in the whole plan (every slice together).
        pub plan_job_count: u32,
        /// Permutations in this slice.
        pub job_count: u32,
        /// Permutations of this slice that are modules without entry points (imports found by
        /// scanning a directory), so that have no entry.
        pub library_count: u32,
        /// Written 0.
        pub reserved: u32,
    }
}

impl PackageTableRecord for ShardRecord {
    const KIND: crate::SectionKind = crate::SectionKind::ShardPlan;
}

impl ShardRecord {
    /// The plan hash.
    #[must_use]
    pub const fn plan_hash(&self) -> u64 {
        join_u64(self.plan_hash_lo, self.plan_hash_hi)
    }
}

/// Marker for records that fill a package table section.
pub trait PackageTableRecord: FromBytes + IntoBytes + KnownLayout + Immutable + Copy {
    /// The section kind holding these records.
    const KIND: crate::SectionKind;
}

impl PackageTableRecord for EntryRecord {
    const KIND: crate::SectionKind = crate::SectionKind::Entries;
}
impl PackageTableRecord for KeyIndexRecord {
    const KIND: crate::SectionKind = crate::SectionKind::KeyIndex;
}
impl PackageTableRecord for EntryPointRecord {
    const KIND: crate::SectionKind = crate::SectionKind::EntryPoints;
}
impl PackageTableRecord for DependencyRecord {
    const KIND: crate::SectionKind = crate::SectionKind::Dependencies;
}
impl PackageTableRecord for EntryPointTargetRecord {
    const KIND: crate::SectionKind = crate::SectionKind::EntryPointTargets;
}

impl EntryPointRecord {
    /// The typed stage.
    #[must_use]
    pub const fn stage_kind(&self) -> crate::Stage {
        crate::Stage::from_raw(self.stage)
    }
}

//! Slang-free builders: [`ReflectionBuilder`] makes one reflection blob, [`PackageBuilder`]
//! assembles blobs, SPIR-V and entries into a package. The writer, the tests and the fuzzers
//! share them, so every byte a package holds is produced here.

use crate::limits;
use crate::records::{
    split_u64, DependencyRecord, EntryPointRecord, EntryPointTargetRecord, EntryRecord, FileHeader,
    KeyIndexRecord, SectionRecord, StringPoolHeader, StringRef, ENDIAN_TAG, FLAG_COMPRESSED_INDEX,
    HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN, VERSION_MAJOR, VERSION_MINOR,
};
use crate::reflection::{ReflectionHeader, TableDirRecord, TableRecord};
use crate::{Compression, SectionKind, Stage, TableKind, Target, ABSENT};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use xxhash_rust::xxh3::xxh3_64;
use zerocopy::{FromBytes, IntoBytes};

/// The program-wide scalars of a reflection blob's header (see [`ReflectionHeader`]).
///
/// `Default` gives "absent" ([`ABSENT`]) for every index and 0 for sizes and counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReflectionScalars {
    /// Binding of the implicit global constant buffer, or [`ABSENT`].
    pub global_constant_buffer_binding: u32,
    /// Set (space) of the implicit global constant buffer, or [`ABSENT`].
    pub global_constant_buffer_space: u32,
    /// Size in bytes of the implicit global constant buffer.
    pub global_constant_buffer_size: u32,
    /// Bindless space index, or [`ABSENT`].
    pub bindless_space_index: u32,
    /// Var layout of the global parameters, or [`ABSENT`].
    pub global_params_var_layout: u32,
    /// Type layout of the global parameters, or [`ABSENT`].
    pub global_params_type_layout: u32,
    /// Number of entry points of the program.
    pub entry_point_count: u32,
    /// Root decl, or [`ABSENT`].
    pub root_decl: u32,
}

impl Default for ReflectionScalars {
    fn default() -> Self {
        let h = ReflectionHeader::EMPTY;
        Self {
            global_constant_buffer_binding: h.global_constant_buffer_binding,
            global_constant_buffer_space: h.global_constant_buffer_space,
            global_constant_buffer_size: h.global_constant_buffer_size,
            bindless_space_index: h.bindless_space_index,
            global_params_var_layout: h.global_params_var_layout,
            global_params_type_layout: h.global_params_type_layout,
            entry_point_count: h.entry_point_count,
            root_decl: h.root_decl,
        }
    }
}

#[derive(Debug, Clone, Default)]
struct RawTable {
    stride: u32,
    count: u32,
    bytes: Vec<u8>,
}

/// Builds one reflection blob: interned strings, record tables, the `u32` pool and the header
/// scalars.
///
/// Indices come back in push order, so the same sequence of calls gives the same bytes.
/// Tables are emitted in ascending [`TableKind`] order; empty tables are omitted (a reader treats
/// a missing table as empty).
///
/// ```
/// use slangpack_format::{ReflectionBuilder, Type, TypeKind, ABSENT};
/// let mut b = ReflectionBuilder::new();
/// let name = b.intern("float4");
/// let t = b.push(Type { kind: TypeKind::Vector.to_raw(), name, full_name: name,
///     element_type: ABSENT, resource_result_type: ABSENT, generic_container: ABSENT,
///     ..Type::default() });
/// assert_eq!(t, 0);
/// let blob: Vec<u8> = b.finish();
/// assert_eq!(&blob[..4], b"SPRF");
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReflectionBuilder {
    tables: BTreeMap<u32, RawTable>,
    interned: HashMap<String, u32>,
    scalars: ReflectionScalars,
}

impl ReflectionBuilder {
    /// An empty builder.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns `s` and returns its string index; equal strings share one index.
    ///
    /// # Panics
    /// If the string pool would exceed 4 GiB or one string [`limits::MAX_STRING_LEN`].
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&index) = self.interned.get(s) {
            return index;
        }
        assert!(
            s.len() <= limits::MAX_STRING_LEN as usize,
            "string too long"
        );
        let bytes = self
            .tables
            .entry(TableKind::StringBytes.to_raw())
            .or_insert(RawTable {
                stride: 1,
                ..RawTable::default()
            });
        let offset = u32::try_from(bytes.bytes.len()).expect("string pool over 4 GiB");
        bytes.bytes.extend_from_slice(s.as_bytes());
        bytes.count = u32::try_from(bytes.bytes.len()).expect("string pool over 4 GiB");
        let len = s.len() as u32;
        let index = self.push(StringRef { offset, len });
        self.interned.insert(s.to_owned(), index);
        index
    }

    /// String `index` of the blob's string table, if interned.
    #[must_use]
    pub fn string(&self, index: u32) -> Option<&str> {
        let r = self.get::<StringRef>(index)?;
        let bytes = &self.tables.get(&TableKind::StringBytes.to_raw())?.bytes;
        let start = r.offset as usize;
        core::str::from_utf8(bytes.get(start..start.checked_add(r.len as usize)?)?).ok()
    }

    /// Interns `s` when present; `None` gives [`ABSENT`].
    pub fn intern_opt(&mut self, s: Option<&str>) -> u32 {
        s.map_or(ABSENT, |s| self.intern(s))
    }

    /// Appends one record to its table and returns its index.
    pub fn push<R: TableRecord>(&mut self, record: R) -> u32 {
        self.push_all(core::slice::from_ref(&record))
    }

    /// Appends records to their table and returns the index of the first (the table's length
    /// when `records` is empty).
    ///
    /// # Panics
    /// If the table would hold more than `u32::MAX - 1` records.
    pub fn push_all<R: TableRecord>(&mut self, records: &[R]) -> u32 {
        let stride = core::mem::size_of::<R>() as u32;
        self.push_raw(R::KIND.to_raw(), stride, records.as_bytes())
    }

    /// Appends raw records of `stride` bytes to table `kind`, for table kinds or record
    /// versions this crate does not define (tests of forward compatibility, newer writers).
    /// Returns the index of the first record.
    ///
    /// # Panics
    /// If `stride` is 0 or not a multiple of 4 (except for the string bytes table), differs from
    /// the table's existing stride, or `bytes` is not a whole number of records.
    pub fn push_raw(&mut self, kind: u32, stride: u32, bytes: &[u8]) -> u32 {
        assert!(stride > 0, "stride must be positive");
        assert!(
            stride % 4 == 0 || kind == TableKind::StringBytes.to_raw(),
            "stride must be a multiple of 4"
        );
        assert!(bytes.len() % stride as usize == 0, "partial record");
        let table = self.tables.entry(kind).or_insert(RawTable {
            stride,
            ..RawTable::default()
        });
        assert_eq!(table.stride, stride, "table {kind} stride changed");
        let first = table.count;
        let added = u32::try_from(bytes.len() / stride as usize).expect("too many records");
        table.count = first
            .checked_add(added)
            .filter(|&c| c < ABSENT)
            .expect("too many records");
        table.bytes.extend_from_slice(bytes);
        first
    }

    /// Appends a slice of the `u32` pool and returns its start offset.
    pub fn push_pool(&mut self, words: &[u32]) -> u32 {
        self.push_all(words)
    }

    /// Number of records in `R`'s table so far.
    #[must_use]
    pub fn table_len<R: TableRecord>(&self) -> u32 {
        self.tables.get(&R::KIND.to_raw()).map_or(0, |t| t.count)
    }

    /// A copy of record `index` of `R`'s table, or `None` when out of range.
    #[must_use]
    pub fn get<R: TableRecord>(&self, index: u32) -> Option<R> {
        let table = self.tables.get(&R::KIND.to_raw())?;
        let size = core::mem::size_of::<R>();
        let start = (index as usize).checked_mul(size)?;
        R::read_from_bytes(table.bytes.get(start..start.checked_add(size)?)?).ok()
    }

    /// Overwrites record `index` of `R`'s table (to patch links once known); returns `false`
    /// when out of range.
    pub fn set<R: TableRecord>(&mut self, index: u32, record: R) -> bool {
        let size = core::mem::size_of::<R>();
        let Some(table) = self.tables.get_mut(&R::KIND.to_raw()) else {
            return false;
        };
        let Some(start) = (index as usize).checked_mul(size) else {
            return false;
        };
        match table.bytes.get_mut(start..start + size) {
            Some(dst) => {
                dst.copy_from_slice(record.as_bytes());
                true
            }
            None => false,
        }
    }

    /// The header scalars, to set before [`ReflectionBuilder::finish`].
    pub fn scalars_mut(&mut self) -> &mut ReflectionScalars {
        &mut self.scalars
    }

    /// The header scalars.
    #[must_use]
    pub fn scalars(&self) -> &ReflectionScalars {
        &self.scalars
    }

    /// Emits the blob: header, table directory (ascending kind), then each non-empty table at
    /// a 4-aligned offset, padding with zero bytes: first every table but the raw Slang
    /// tables, in ascending kind, then (from the next multiple of 8, the header's
    /// `tables_offset`) the raw tables in ascending kind. Without raw tables `tables_offset`
    /// is 0.
    ///
    /// # Panics
    /// If the blob would exceed 4 GiB.
    #[must_use]
    pub fn finish(self) -> Vec<u8> {
        let tables: Vec<(u32, RawTable)> = self
            .tables
            .into_iter()
            .filter(|(_, t)| t.count > 0)
            .collect();
        let header_size = core::mem::size_of::<ReflectionHeader>();
        let dir_size = tables.len() * core::mem::size_of::<TableDirRecord>();
        let is_raw = |kind: u32| TableKind::from_raw(kind).is_raw();
        // Placement order: the bind part, then the raw tables.
        let order: Vec<usize> = (0..tables.len())
            .filter(|&i| !is_raw(tables[i].0))
            .chain((0..tables.len()).filter(|&i| is_raw(tables[i].0)))
            .collect();
        let mut offset = header_size + dir_size;
        let mut offsets = vec![0u32; tables.len()];
        let mut tables_offset = 0;
        for &i in &order {
            let table = &tables[i].1;
            if is_raw(tables[i].0) && tables_offset == 0 {
                offset = align_up(offset, 8);
                tables_offset = u32::try_from(offset).expect("blob over 4 GiB");
            }
            offsets[i] = u32::try_from(offset).expect("blob over 4 GiB");
            offset = align_up(offset + table.bytes.len(), 4);
        }
        let dir: Vec<TableDirRecord> = tables
            .iter()
            .zip(&offsets)
            .map(|((kind, table), &offset)| TableDirRecord {
                kind: *kind,
                offset,
                count: table.count,
                stride: table.stride,
            })
            .collect();
        let s = self.scalars;
        let header = ReflectionHeader {
            table_count: u32::try_from(tables.len()).expect("too many tables"),
            global_constant_buffer_binding: s.global_constant_buffer_binding,
            global_constant_buffer_space: s.global_constant_buffer_space,
            global_constant_buffer_size: s.global_constant_buffer_size,
            bindless_space_index: s.bindless_space_index,
            global_params_var_layout: s.global_params_var_layout,
            global_params_type_layout: s.global_params_type_layout,
            entry_point_count: s.entry_point_count,
            root_decl: s.root_decl,
            tables_offset,
            ..ReflectionHeader::EMPTY
        };
        let mut out = Vec::with_capacity(offset);
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(dir.as_bytes());
        for &i in &order {
            out.resize(offsets[i] as usize, 0);
            out.extend_from_slice(&tables[i].1.bytes);
        }
        out.resize(align_up(out.len(), 4), 0);
        out
    }
}

/// Where a reflection blob's raw tables begin ([`ReflectionHeader::tables_offset`]), when the
/// blob is split and the offset lies within it; `None` otherwise (stored as one frame).
#[must_use]
pub fn blob_split(blob: &[u8]) -> Option<usize> {
    let (header, _) = ReflectionHeader::read_from_prefix(blob).ok()?;
    if header.magic != crate::reflection::REFLECTION_MAGIC {
        return None;
    }
    let at = header.tables_offset as usize;
    (at != 0 && at < blob.len()).then_some(at)
}

/// Largest block of a zstd frame (RFC 8878 3.1.1.2.4: `Block_Maximum_Size`).
const ZSTD_MAX_BLOCK: usize = 128 * 1024;

/// `bytes` as one zstd frame of raw (stored) blocks (RFC 8878): a single-segment frame header
/// declaring the content size in 4 bytes, then blocks of at most 128 KiB, no checksum.
/// Decoding it is a copy. `bytes` is at most 4 GiB - 1 (a blob's part).
fn raw_blocks_frame(bytes: &[u8]) -> Vec<u8> {
    // Magic, then Frame_Header_Descriptor: Frame_Content_Size_flag 2 (4 bytes),
    // Single_Segment_flag 1 (no window descriptor).
    let mut out = Vec::with_capacity(bytes.len() + 9 + 3 * (bytes.len() / ZSTD_MAX_BLOCK + 1));
    out.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD, 0b1010_0000]);
    out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes());
    let mut blocks = bytes.chunks(ZSTD_MAX_BLOCK).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0]); // one empty last raw block
    }
    while let Some(block) = blocks.next() {
        // Block_Header: Last_Block, Block_Type 0 (raw), Block_Size.
        let last = u32::from(blocks.peek().is_none());
        let header = (block.len() as u32) << 3 | last;
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.extend_from_slice(block);
    }
    out
}

/// The stored bytes of a section of `kind`: a reflection blob as [`compress_blob`] makes them,
/// anything else one frame.
fn compress_section(
    c: &mut zstd::bulk::Compressor<'_>,
    kind: SectionKind,
    raw: &[u8],
    bind_raw: bool,
) -> Result<Vec<u8>, BuildError> {
    if kind == SectionKind::Reflection {
        compress_blob(c, raw, bind_raw)
    } else {
        compress(c, raw)
    }
}

/// A reflection blob compressed as zstd frames: one frame, or for a split blob
/// ([`blob_split`]) two, the bytes before `tables_offset` and the bytes from it (a reader
/// loads the bind view from the first frame alone), the first of raw blocks with `bind_raw`.
pub(crate) fn compress_blob(
    c: &mut zstd::bulk::Compressor<'_>,
    raw: &[u8],
    bind_raw: bool,
) -> Result<Vec<u8>, BuildError> {
    match blob_split(raw) {
        Some(at) => {
            let (bind, tables) = raw.split_at(at);
            let mut out = if bind_raw {
                raw_blocks_frame(bind)
            } else {
                compress(c, bind)?
            };
            out.extend_from_slice(&compress(c, tables)?);
            Ok(out)
        }
        None => compress(c, raw),
    }
}

/// Rounds `value` up to a multiple of `align` (a power of two).
const fn align_up(value: usize, align: usize) -> usize {
    (value + align - 1) & !(align - 1)
}

/// One compiled entry point, as given to [`PackageBuilder::add_entry`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPointDesc {
    /// Slang's entry-point name.
    pub name: String,
    /// The entry name inside the SPIR-V (usually `"main"`).
    pub spirv_entry_name: String,
    /// The stage.
    pub stage: Stage,
    /// Thread-group size (zeros when not compute-like).
    pub thread_group_size: [u32; 3],
    /// Wave size, 0 when not specified.
    pub wave_size: u32,
    /// A SPIR-V id returned by [`PackageBuilder::add_spirv`].
    pub spirv: u32,
    /// Index into the reflection blob's entry-point table, if any.
    pub reflection_entry_point: Option<u32>,
    /// Slang's hash of the entry point's code.
    pub hash: u64,
}

/// One source dependency, as given to [`PackageBuilder::add_entry`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DependencyDesc {
    /// Path relative to the bake root, `/`-separated.
    pub path: String,
    /// xxh3-64 of the file's content.
    pub hash: u64,
}

/// One entry (permutation), as given to [`PackageBuilder::add_entry`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryDesc {
    /// Canonical permutation key; unique within the package.
    pub key: String,
    /// A reflection id returned by [`PackageBuilder::add_reflection`], if any.
    pub reflection: Option<u32>,
    /// The entry points, in the order the reader will return them.
    pub entry_points: Vec<EntryPointDesc>,
    /// The dependencies, in the order the reader will return them.
    pub dependencies: Vec<DependencyDesc>,
    /// Hash of the compile options.
    pub options_hash: u64,
    /// Slang's hash of the first entry point (kept outside the shared reflection bytes).
    pub entry_point_hash: u64,
}

/// One entry point's code for a target other than SPIR-V, as given to
/// [`PackageBuilder::add_target_code`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetCodeDesc {
    /// The target; not [`Target::Spirv`] (SPIR-V is [`EntryPointDesc::spirv`]).
    pub target: Target,
    /// The entry point's name inside this code (Slang may rename it, e.g. to `main`).
    pub entry_name: String,
    /// The code: UTF-8 text for text targets ([`Target::is_text`]), bytes otherwise.
    pub code: Vec<u8>,
}

/// Why [`PackageBuilder`] refused an input or could not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// Two entries have the same key.
    DuplicateKey(String),
    /// An entry point names a SPIR-V id that [`PackageBuilder::add_spirv`] did not return.
    UnknownSpirv(u32),
    /// An entry names a reflection id that [`PackageBuilder::add_reflection`] did not return.
    UnknownReflection(u32),
    /// A size or count exceeds a limit of [`crate::limits`]; names what.
    LimitExceeded(&'static str),
    /// zstd failed; its message.
    Compression(String),
    /// [`PackageBuilder::add_target_code`] named an entry key not added before.
    UnknownEntry(String),
    /// [`PackageBuilder::add_target_code`] was given code it cannot store; names why.
    InvalidTargetCode(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateKey(key) => write!(f, "duplicate entry key {key:?}"),
            Self::UnknownSpirv(id) => write!(f, "unknown SPIR-V id {id}"),
            Self::UnknownReflection(id) => write!(f, "unknown reflection id {id}"),
            Self::LimitExceeded(what) => write!(f, "limit exceeded: {what}"),
            Self::Compression(msg) => write!(f, "zstd compression failed: {msg}"),
            Self::UnknownEntry(key) => write!(f, "no entry with key {key:?}"),
            Self::InvalidTargetCode(why) => write!(f, "invalid target code: {why}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Default zstd level for reflection blobs.
pub const DEFAULT_ZSTD_LEVEL: i32 = 19;

/// Assembles a package: SPIR-V modules and reflection blobs (each stored once by content) and
/// entries keyed by canonical permutation keys.
///
/// Output is deterministic: it depends only on the set of entries and the blobs they reference,
/// not on the order of calls. [`PackageBuilder::finish`] sorts entries by key (bytewise),
/// numbers blobs in order of first use by the sorted entries (unreferenced blobs are dropped),
/// and interns package strings in that order.
///
/// ```
/// use slangpack_format::{EntryDesc, EntryPointDesc, PackageBuilder, ReflectionBuilder, Stage};
/// let mut p = PackageBuilder::new();
/// let spirv = p.add_spirv(&[0x0723_0203, 0x0001_0000, 0, 1, 0]);
/// let refl = p.add_reflection(ReflectionBuilder::new().finish());
/// p.add_entry(EntryDesc {
///     key: "shader.slang|main".into(),
///     reflection: Some(refl),
///     entry_points: vec![EntryPointDesc {
///         name: "main".into(), spirv_entry_name: "main".into(), stage: Stage::Compute,
///         thread_group_size: [8, 8, 1], wave_size: 0, spirv, reflection_entry_point: None,
///         hash: 7,
///     }],
///     dependencies: vec![],
///     options_hash: 1,
///     entry_point_hash: 7,
/// })?;
/// let bytes = p.finish()?;
/// assert_eq!(&bytes[..8], b"SLANGPK\0");
/// # Ok::<(), slangpack_format::BuildError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PackageBuilder {
    spirv: Vec<Vec<u32>>,
    spirv_ids: HashMap<Vec<u32>, u32>,
    reflections: Vec<Vec<u8>>,
    reflection_ids: HashMap<Vec<u8>, u32>,
    entries: Vec<EntryDesc>,
    keys: HashSet<String>,
    reflection_compression: Compression,
    bind_view_compression: Compression,
    spirv_compression: Compression,
    compressed_index: bool,
    zstd_level: i32,
    target_code: Vec<Vec<u8>>,
    /// (text target?, code) -> code id: identical code is shared only among text targets or
    /// among binary ones (SPEC.md 5.7: no blob is named by both).
    target_code_ids: HashMap<(bool, Vec<u8>), u32>,
    /// (entry key, entry point index, target raw) -> (entry name, code id).
    entry_point_targets: BTreeMap<(String, u32, u32), (String, u32)>,
    /// The `ShardPlan` record of a sharded bake's package.
    shard: Option<crate::ShardRecord>,
}

impl Default for PackageBuilder {
    fn default() -> Self {
        Self::new()
    }
}

/// One section for [`assemble_sections`]: its directory fields and stored bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSection {
    /// Section kind (raw, so tests can emit kinds this version does not know).
    pub kind: u32,
    /// Compression (raw).
    pub compression: u32,
    /// Record stride for table sections, else 0.
    pub stride: u32,
    /// Record count for table sections, else 0.
    pub count: u32,
    /// Raw (decompressed) size in bytes.
    pub raw_size: u64,
    /// The stored bytes.
    pub stored: Vec<u8>,
}

impl RawSection {
    /// A copy of the section `record` describes, as stored in `package` (for re-assembling a
    /// package with changes); `None` when its bytes lie outside `package`.
    pub fn copied(package: &[u8], record: &crate::SectionRecord) -> Option<Self> {
        let start = usize::try_from(record.offset()).ok()?;
        let len = usize::try_from(record.stored_size()).ok()?;
        Some(Self {
            kind: record.kind,
            compression: record.compression,
            stride: record.record_stride,
            count: record.record_count,
            raw_size: record.raw_size(),
            stored: package.get(start..start.checked_add(len)?)?.to_vec(),
        })
    }
}

impl PackageBuilder {
    /// An empty builder; reflection blobs are zstd-compressed at [`DEFAULT_ZSTD_LEVEL`].
    #[must_use]
    pub fn new() -> Self {
        Self {
            spirv: Vec::new(),
            spirv_ids: HashMap::new(),
            reflections: Vec::new(),
            reflection_ids: HashMap::new(),
            entries: Vec::new(),
            keys: HashSet::new(),
            reflection_compression: Compression::Zstd,
            bind_view_compression: Compression::Zstd,
            spirv_compression: Compression::None,
            compressed_index: false,
            zstd_level: DEFAULT_ZSTD_LEVEL,
            target_code: Vec::new(),
            target_code_ids: HashMap::new(),
            entry_point_targets: BTreeMap::new(),
            shard: None,
        }
    }

    /// With reflection compressed (and SPIR-V not), chooses how the first frame of each split
    /// blob (SPEC.md 6.1: header, directory, strings, bind view) is stored:
    /// [`Compression::Zstd`] (default) or [`Compression::None`], a frame of raw zstd blocks
    /// (any zstd decoder reads it, by a copy) beside the raw tables' compressed frame: the
    /// load of an entry then decompresses nothing, for a larger package.
    pub fn set_bind_view_compression(&mut self, compression: Compression) -> &mut Self {
        self.bind_view_compression = compression;
        self
    }

    /// Chooses how reflection blobs and target code are stored: [`Compression::Zstd`]
    /// (default) or [`Compression::None`], which lets a reader serve them straight from the
    /// mapping.
    pub fn set_reflection_compression(&mut self, compression: Compression) -> &mut Self {
        self.reflection_compression = compression;
        self
    }

    /// Chooses how SPIR-V modules are stored: [`Compression::None`] (default: served as
    /// `&[u32]` straight from the mapping) or [`Compression::Zstd`], for smaller packages: each
    /// module and each reflection blob one zstd frame, compressed with a dictionary shared by
    /// the package's modules and blobs (trained on them, or one module and one blob as raw
    /// content) when that makes the package smaller, and the container tables compressed too.
    /// A reader decompresses a module or blob at the first load of an entry that uses it.
    pub fn set_spirv_compression(&mut self, compression: Compression) -> &mut Self {
        self.spirv_compression = compression;
        self
    }

    /// Stores the section directory and the container sections as one zstd frame, the
    /// compressed index (SPEC.md 4.4), when `compressed`: for small packages of many entries,
    /// where the directory's 48 bytes per section and the tables' repeated hashes are much of
    /// the file. A reader decompresses it at open. Off by default.
    pub fn set_compressed_index(&mut self, compressed: bool) -> &mut Self {
        self.compressed_index = compressed;
        self
    }

    /// Sets the zstd level used for reflection blobs (and compressed SPIR-V).
    pub fn set_zstd_level(&mut self, level: i32) -> &mut Self {
        self.zstd_level = level;
        self
    }

    /// Adds a SPIR-V module (stored uncompressed, 8-aligned) and returns its id; identical
    /// modules share one id.
    pub fn add_spirv(&mut self, words: &[u32]) -> u32 {
        if let Some(&id) = self.spirv_ids.get(words) {
            return id;
        }
        let id = self.spirv.len() as u32;
        self.spirv.push(words.to_vec());
        self.spirv_ids.insert(words.to_vec(), id);
        id
    }

    /// Adds a reflection blob (from [`ReflectionBuilder::finish`]) and returns its id;
    /// identical blobs share one id.
    pub fn add_reflection(&mut self, blob: Vec<u8>) -> u32 {
        if let Some(&id) = self.reflection_ids.get(&blob) {
            return id;
        }
        let id = self.reflections.len() as u32;
        self.reflection_ids.insert(blob.clone(), id);
        self.reflections.push(blob);
        id
    }

    /// Adds an entry.
    ///
    /// # Errors
    /// [`BuildError::DuplicateKey`] when the key is already present,
    /// [`BuildError::UnknownSpirv`] / [`BuildError::UnknownReflection`] for ids this builder
    /// did not return.
    pub fn add_entry(&mut self, entry: EntryDesc) -> Result<(), BuildError> {
        if self.keys.contains(&entry.key) {
            return Err(BuildError::DuplicateKey(entry.key));
        }
        if let Some(r) = entry.reflection {
            if r as usize >= self.reflections.len() {
                return Err(BuildError::UnknownReflection(r));
            }
        }
        for ep in &entry.entry_points {
            if ep.spirv as usize >= self.spirv.len() {
                return Err(BuildError::UnknownSpirv(ep.spirv));
            }
        }
        self.keys.insert(entry.key.clone());
        self.entries.push(entry);
        Ok(())
    }

    /// Adds entry point `entry_point` (its position in the entry's
    /// [`EntryDesc::entry_points`]) of the entry keyed `key` in one more target's code.
    /// Identical code is stored once, whichever entry points share it (text targets share
    /// with text targets, binary ones with binary ones).
    ///
    /// # Errors
    /// [`BuildError::UnknownEntry`] when no entry has the key,
    /// [`BuildError::InvalidTargetCode`] for [`Target::Spirv`] (use [`EntryPointDesc::spirv`]),
    /// an entry point index past the entry's, a target given twice, or text that is not UTF-8.
    pub fn add_target_code(
        &mut self,
        key: &str,
        entry_point: usize,
        desc: TargetCodeDesc,
    ) -> Result<(), BuildError> {
        let entry = self.entry(key)?;
        let invalid = |why: String| Err(BuildError::InvalidTargetCode(why));
        if desc.target == Target::Spirv {
            return invalid(format!("{key}: SPIR-V is the entry point's own code"));
        }
        if entry_point >= entry.entry_points.len() {
            return invalid(format!("{key}: no entry point {entry_point}"));
        }
        if desc.target.is_text() && core::str::from_utf8(&desc.code).is_err() {
            return invalid(format!("{key}: {} code is not UTF-8", desc.target.name()));
        }
        let slot = self.free_target_slot(key, entry_point, desc.target)?;
        let shared = (desc.target.is_text(), desc.code);
        let id = match self.target_code_ids.get(&shared) {
            Some(&id) => id,
            None => {
                let id = self.target_code.len() as u32;
                self.target_code.push(shared.1.clone());
                self.target_code_ids.insert(shared, id);
                id
            }
        };
        self.entry_point_targets.insert(slot, (desc.entry_name, id));
        Ok(())
    }

    /// Adds entry point `entry_point` of the entry keyed `key` in `target`'s code, with the
    /// code that entry point `like.1` of the entry keyed `like.0` already has for `target`
    /// (given by [`PackageBuilder::add_target_code`]): the same stored blob, without copying
    /// or hashing the code again (for tools that carry over code many entry points share).
    ///
    /// # Errors
    /// As [`PackageBuilder::add_target_code`], and [`BuildError::InvalidTargetCode`] when
    /// `like` has no code for `target`.
    pub fn add_target_code_like(
        &mut self,
        key: &str,
        entry_point: usize,
        target: Target,
        entry_name: String,
        like: (&str, usize),
    ) -> Result<(), BuildError> {
        let entry = self.entry(key)?;
        let invalid = |why: String| Err(BuildError::InvalidTargetCode(why));
        if entry_point >= entry.entry_points.len() {
            return invalid(format!("{key}: no entry point {entry_point}"));
        }
        let slot = self.free_target_slot(key, entry_point, target)?;
        let from = (like.0.to_owned(), like.1 as u32, target.to_raw());
        let Some(&(_, id)) = self.entry_point_targets.get(&from) else {
            return invalid(format!(
                "{}: entry point {} has no {} code to share",
                like.0,
                like.1,
                target.name()
            ));
        };
        self.entry_point_targets.insert(slot, (entry_name, id));
        Ok(())
    }

    /// The entry keyed `key`.
    fn entry(&self, key: &str) -> Result<&EntryDesc, BuildError> {
        self.entries
            .iter()
            .find(|e| e.key == key)
            .ok_or_else(|| BuildError::UnknownEntry(key.to_owned()))
    }

    /// The slot of entry point `entry_point` of the entry keyed `key` in `target`'s code,
    /// refused when that entry point has such code already.
    fn free_target_slot(
        &self,
        key: &str,
        entry_point: usize,
        target: Target,
    ) -> Result<(String, u32, u32), BuildError> {
        let slot = (key.to_owned(), entry_point as u32, target.to_raw());
        if self.entry_point_targets.contains_key(&slot) {
            return Err(BuildError::InvalidTargetCode(format!(
                "{key}: entry point {entry_point} has {} code already",
                target.name()
            )));
        }
        Ok(slot)
    }

    /// Number of entries added so far.
    #[must_use]
    pub fn entry_count(&self) -> usize {
        self.entries.len()
    }

    /// Marks the package as slice `shard_index` of `shard_count` of a bake plan (SPEC.md 5.9):
    /// a `ShardPlan` section is written last, uncompressed. `reserved` is written 0.
    pub fn set_shard(&mut self, shard: crate::ShardRecord) {
        self.shard = Some(crate::ShardRecord {
            reserved: 0,
            ..shard
        });
    }

    /// Emits the package bytes (layout in SPEC.md).
    ///
    /// # Errors
    /// [`BuildError::LimitExceeded`] when the package would break a limit of [`crate::limits`],
    /// [`BuildError::Compression`] when zstd fails.
    pub fn finish(mut self) -> Result<Vec<u8>, BuildError> {
        self.entries
            .sort_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));

        // Renumber blobs by first use in sorted-entry order.
        let mut spirv_map = vec![ABSENT; self.spirv.len()];
        let mut spirv_order = Vec::new();
        let mut refl_map = vec![ABSENT; self.reflections.len()];
        let mut refl_order = Vec::new();
        for e in &self.entries {
            if let Some(r) = e.reflection {
                let slot = &mut refl_map[r as usize];
                if *slot == ABSENT {
                    *slot = refl_order.len() as u32;
                    refl_order.push(r as usize);
                }
            }
            for ep in &e.entry_points {
                let slot = &mut spirv_map[ep.spirv as usize];
                if *slot == ABSENT {
                    *slot = spirv_order.len() as u32;
                    spirv_order.push(ep.spirv as usize);
                }
            }
        }

        let mut code_map = vec![ABSENT; self.target_code.len()];
        let mut code_order = Vec::new();
        let mut entry_point_targets = Vec::new();

        let mut strings = PoolBuilder::default();
        let mut entries = Vec::with_capacity(self.entries.len());
        let mut entry_points = Vec::new();
        let mut dependencies = Vec::new();
        for e in &self.entries {
            let key = strings.intern(&e.key);
            let (key_hash_lo, key_hash_hi) = split_u64(xxh3_64(e.key.as_bytes()));
            let (options_hash_lo, options_hash_hi) = split_u64(e.options_hash);
            let (entry_point_hash_lo, entry_point_hash_hi) = split_u64(e.entry_point_hash);
            let entry_point_first = count_u32(entry_points.len(), "entry points")?;
            let dependency_first = count_u32(dependencies.len(), "dependencies")?;
            for (ep_index, ep) in e.entry_points.iter().enumerate() {
                let (hash_lo, hash_hi) = split_u64(ep.hash);
                let range =
                    (e.key.clone(), ep_index as u32, 0)..(e.key.clone(), ep_index as u32 + 1, 0);
                let global_index = count_u32(entry_points.len(), "entry points")?;
                entry_points.push(EntryPointRecord {
                    name: strings.intern(&ep.name),
                    spirv_entry_name: strings.intern(&ep.spirv_entry_name),
                    stage: ep.stage.to_raw(),
                    thread_group_size_x: ep.thread_group_size[0],
                    thread_group_size_y: ep.thread_group_size[1],
                    thread_group_size_z: ep.thread_group_size[2],
                    wave_size: ep.wave_size,
                    spirv: spirv_map[ep.spirv as usize],
                    reflection_entry_point: ep.reflection_entry_point.unwrap_or(ABSENT),
                    hash_lo,
                    hash_hi,
                    flags: 0,
                });
                for ((_, _, target), (entry_name, id)) in self.entry_point_targets.range(range) {
                    let slot = &mut code_map[*id as usize];
                    if *slot == ABSENT {
                        *slot = code_order.len() as u32;
                        code_order.push(*id as usize);
                    }
                    entry_point_targets.push(EntryPointTargetRecord {
                        entry_point: global_index,
                        target: *target,
                        code: *slot,
                        entry_name: strings.intern(entry_name),
                    });
                }
            }
            for dep in &e.dependencies {
                let (hash_lo, hash_hi) = split_u64(dep.hash);
                dependencies.push(DependencyRecord {
                    path: strings.intern(&dep.path),
                    hash_lo,
                    hash_hi,
                });
            }
            entries.push(EntryRecord {
                key,
                key_hash_lo,
                key_hash_hi,
                reflection: e.reflection.map_or(ABSENT, |r| refl_map[r as usize]),
                entry_point_first,
                entry_point_count: count_u32(e.entry_points.len(), "entry points")?,
                dependency_first,
                dependency_count: count_u32(e.dependencies.len(), "dependencies")?,
                options_hash_lo,
                options_hash_hi,
                entry_point_hash_lo,
                entry_point_hash_hi,
            });
        }
        let mut key_index: Vec<KeyIndexRecord> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| KeyIndexRecord {
                hash_lo: e.key_hash_lo,
                hash_hi: e.key_hash_hi,
                entry: i as u32,
            })
            .collect();
        key_index.sort_by_key(|k| (crate::join_u64(k.hash_lo, k.hash_hi), k.entry));

        let mut containers = vec![
            raw_section(SectionKind::Strings, 0, 0, strings.finish()?),
            table_section(&entries)?,
            table_section(&key_index)?,
            table_section(&entry_points)?,
            table_section(&dependencies)?,
        ];
        debug_assert!(containers
            .iter()
            .map(|c| c.kind)
            .eq(SectionKind::CONTAINERS.map(SectionKind::to_raw)));
        let mut sections = Vec::new();
        let modules: Vec<&[u8]> = spirv_order
            .iter()
            .map(|&i| self.spirv[i].as_bytes())
            .collect();
        let blobs: Vec<&[u8]> = refl_order
            .iter()
            .map(|&i| self.reflections[i].as_slice())
            .collect();
        // Reflection blobs and target code: zstd without a dictionary unless stored raw.
        let mut zstd_blobs = match self.reflection_compression {
            Compression::Zstd => Some(compressor(self.zstd_level, None)?),
            _ => None,
        };
        if self.spirv_compression == Compression::Zstd {
            // Small packages: the container tables are compressed too (each, or in the
            // compressed index), and the modules and blobs share a dictionary.
            if !self.compressed_index {
                let mut c = compressor(self.zstd_level, None)?;
                for s in &mut containers {
                    let stored = compress(&mut c, &s.stored)?;
                    if stored.len() < s.stored.len() {
                        s.stored = stored;
                        s.compression = Compression::Zstd.to_raw();
                    }
                }
            }
            if zstd_blobs.is_some() {
                sections.extend(with_dictionary(&modules, &blobs, self.zstd_level)?);
            } else {
                sections.extend(with_dictionary(&modules, &[], self.zstd_level)?);
                for raw in &blobs {
                    sections.push(blob_section(SectionKind::Reflection, None, raw, false)?);
                }
            }
        } else {
            for m in &modules {
                sections.push(raw_section(SectionKind::Spirv, 0, 0, m.to_vec()));
            }
            let bind_raw = self.bind_view_compression == Compression::None;
            for raw in &blobs {
                sections.push(blob_section(
                    SectionKind::Reflection,
                    zstd_blobs.as_mut(),
                    raw,
                    bind_raw,
                )?);
            }
        }
        if !entry_point_targets.is_empty() {
            sections.push(table_section(&entry_point_targets)?);
        }
        for &i in &code_order {
            let raw = &self.target_code[i];
            sections.push(blob_section(
                SectionKind::TargetCode,
                zstd_blobs.as_mut(),
                raw,
                false,
            )?);
        }
        if let Some(shard) = self.shard {
            // Last, uncompressed: the package without it is the same bytes up to here.
            sections.push(table_section(&[shard])?);
        }
        if self.compressed_index {
            assemble_sections_indexed(&containers, &sections, self.zstd_level)
        } else {
            containers.extend(sections);
            assemble_sections(&containers)
        }
    }
}

/// A zstd compressor at `level`, with `dictionary` (frames then carry no dictionary id: a
/// package has one dictionary).
pub(crate) fn compressor(
    level: i32,
    dictionary: Option<&[u8]>,
) -> Result<zstd::bulk::Compressor<'static>, BuildError> {
    let err = |e: std::io::Error| BuildError::Compression(e.to_string());
    match dictionary {
        None => zstd::bulk::Compressor::new(level).map_err(err),
        Some(dict) => {
            let mut c = zstd::bulk::Compressor::with_dictionary(level, dict).map_err(err)?;
            c.set_parameter(zstd::zstd_safe::CParameter::DictIdFlag(false))
                .map_err(err)?;
            Ok(c)
        }
    }
}

pub(crate) fn compress(
    c: &mut zstd::bulk::Compressor<'_>,
    raw: &[u8],
) -> Result<Vec<u8>, BuildError> {
    c.compress(raw)
        .map_err(|e| BuildError::Compression(e.to_string()))
}

/// A byte section of `kind` holding `raw`: one zstd frame made by `zstd` (`Zstd`), or `raw`
/// itself without a compressor (`None`).
fn blob_section(
    kind: SectionKind,
    zstd: Option<&mut zstd::bulk::Compressor<'_>>,
    raw: &[u8],
    bind_raw: bool,
) -> Result<RawSection, BuildError> {
    Ok(match zstd {
        Some(c) => compressed_section(
            kind,
            Compression::Zstd,
            raw.len(),
            compress_section(c, kind, raw, bind_raw)?,
        ),
        None => raw_section(kind, 0, 0, raw.to_vec()),
    })
}

/// A byte section of `kind` whose `stored` bytes decompress (`compression`) to `raw_len` bytes.
pub(crate) fn compressed_section(
    kind: SectionKind,
    compression: Compression,
    raw_len: usize,
    stored: Vec<u8>,
) -> RawSection {
    RawSection {
        kind: kind.to_raw(),
        compression: compression.to_raw(),
        stride: 0,
        count: 0,
        raw_size: raw_len as u64,
        stored,
    }
}

/// At most this many sections of each kind (SPIR-V, reflection) decide which dictionary (if
/// any) a package uses.
const DICTIONARY_SAMPLE: usize = 64;

/// Sections compressed with one dictionary shared by the package: the `Dictionary` section
/// (when one pays for itself), then one section per module and one per blob, in order. The
/// dictionary is the smallest (its stored size plus the frames it gives, estimated on a sample)
/// among none, dictionaries trained on the modules and blobs at two sizes, and one module and
/// one blob as raw content. Each module or blob is one zstd frame of its own (an entry stays
/// loadable on its own), with the dictionary or without it, whichever is smaller.
fn with_dictionary(
    modules: &[&[u8]],
    blobs: &[&[u8]],
    level: i32,
) -> Result<Vec<RawSection>, BuildError> {
    let all: Vec<&[u8]> = modules.iter().chain(blobs).copied().collect();
    let (module_sample, module_step) = sample(modules);
    let (blob_sample, blob_step) = sample(blobs);
    let mut candidates: Vec<Option<Vec<u8>>> = vec![None];
    if all.len() >= 8 {
        let total: usize = all.iter().map(|m| m.len()).sum();
        for share in [64, 16] {
            let max_size = (total / share).clamp(1 << 10, MAX_DICTIONARY);
            if let Ok(trained) = zstd::dict::from_samples(&all, max_size) {
                candidates.push(Some(trained));
            }
        }
    }
    if all.len() >= 2 {
        // Raw content: the middle module and the middle blob of the samples; and evenly
        // spaced ones of each, for packages of several programs.
        candidates.push(Some(
            [middle(&module_sample), middle(&blob_sample)].concat(),
        ));
        let spread = spread(&[&module_sample, &blob_sample]);
        if spread.len() > middle(&module_sample).len() + middle(&blob_sample).len() {
            candidates.push(Some(spread));
        }
    }
    let mut plain = compressor(level, None)?;
    let mut best: Option<(usize, Option<Vec<u8>>)> = None;
    for dict in candidates {
        let stored_dict = match &dict {
            Some(d) => compress(&mut plain, d)?.len().min(d.len()),
            None => 0,
        };
        let mut c = compressor(level, dict.as_deref())?;
        let mut cost = stored_dict;
        for (items, step) in [(&module_sample, module_step), (&blob_sample, blob_step)] {
            for m in items.iter() {
                let with = compress(&mut c, m)?.len();
                let without = match dict {
                    Some(_) => compress(&mut plain, m)?.len(),
                    None => with,
                };
                cost += with.min(without) * step;
            }
        }
        if best.as_ref().is_none_or(|(b, _)| cost < *b) {
            best = Some((cost, dict));
        }
    }
    let dict = best.and_then(|(_, d)| d);
    let mut c = compressor(level, dict.as_deref())?;
    let kinds = modules
        .iter()
        .map(|m| (SectionKind::Spirv, *m))
        .chain(blobs.iter().map(|b| (SectionKind::Reflection, *b)));
    let mut sections = vec![];
    for (kind, raw) in kinds {
        let mut stored = compress_section(&mut plain, kind, raw, false)?;
        let mut compression = Compression::Zstd;
        if dict.is_some() {
            let with = compress_section(&mut c, kind, raw, false)?;
            if with.len() < stored.len() {
                stored = with;
                compression = Compression::ZstdDictionary;
            }
        }
        sections.push(compressed_section(kind, compression, raw.len(), stored));
    }
    let used = |s: &RawSection| s.compression == Compression::ZstdDictionary.to_raw();
    if let Some(d) = dict.filter(|_| sections.iter().any(used)) {
        let stored = compress(&mut plain, &d)?;
        let section = if stored.len() < d.len() {
            compressed_section(SectionKind::Dictionary, Compression::Zstd, d.len(), stored)
        } else {
            raw_section(SectionKind::Dictionary, 0, 0, d)
        };
        sections.insert(0, section);
    }
    Ok(sections)
}

/// Every `step`-th of `items` (at most [`DICTIONARY_SAMPLE`]), and `step`.
fn sample<'a>(items: &[&'a [u8]]) -> (Vec<&'a [u8]>, usize) {
    let step = items.len().div_ceil(DICTIONARY_SAMPLE).max(1);
    (items.iter().step_by(step).copied().collect(), step)
}

/// At most this many evenly spaced items of each sample make the spread dictionary.
const SPREAD: usize = 8;

/// Largest dictionary the writer makes.
const MAX_DICTIONARY: usize = 110 << 10;

/// Of each of `samples`, the most evenly spaced items (at most [`SPREAD`]) that fit in an
/// equal share of [`MAX_DICTIONARY`], concatenated.
fn spread(samples: &[&Vec<&[u8]>]) -> Vec<u8> {
    let share = MAX_DICTIONARY / samples.len().max(1);
    let mut out = Vec::new();
    for sample in samples {
        let picks = |k: usize| (0..k).map(move |j| (2 * j + 1) * sample.len() / (2 * k));
        let fits = |k: &usize| picks(*k).map(|i| sample[i].len()).sum::<usize>() <= share;
        if let Some(k) = (1..=SPREAD.min(sample.len())).rev().find(fits) {
            for i in picks(k) {
                out.extend_from_slice(sample[i]);
            }
        }
    }
    out
}

/// The middle one of `items` (empty when there is none).
fn middle<'a>(items: &[&'a [u8]]) -> &'a [u8] {
    items.get(items.len() / 2).copied().unwrap_or_default()
}

fn count_u32(n: usize, what: &'static str) -> Result<u32, BuildError> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n < ABSENT)
        .ok_or(BuildError::LimitExceeded(what))
}

fn raw_section(kind: SectionKind, stride: u32, count: u32, bytes: Vec<u8>) -> RawSection {
    RawSection {
        kind: kind.to_raw(),
        compression: Compression::None.to_raw(),
        stride,
        count,
        raw_size: bytes.len() as u64,
        stored: bytes,
    }
}

fn table_section<R: crate::PackageTableRecord>(records: &[R]) -> Result<RawSection, BuildError> {
    let count = count_u32(records.len(), "records in a package table")?;
    let stride = core::mem::size_of::<R>() as u32;
    Ok(raw_section(
        R::KIND,
        stride,
        count,
        records.as_bytes().to_vec(),
    ))
}

/// Lays out a package from sections, in the given order: header, directory right after it,
/// then each section at the next multiple of 8 (zero padding), and fills in every checksum.
///
/// This is the low level under [`PackageBuilder::finish`], public for tests and fuzzers that
/// need packages the builder would not make (unknown section kinds, odd strides). It does not
/// check the sections' contents.
///
/// # Errors
/// [`BuildError::LimitExceeded`] when a limit of [`crate::limits`] would be broken.
pub fn assemble_sections(sections: &[RawSection]) -> Result<Vec<u8>, BuildError> {
    lay_out(&[], sections, None)
}

/// Lays out a package with a compressed index (SPEC.md 4.4): the header, then each of
/// `sections` at the next multiple of 8, then one zstd frame (at `level`) holding the section
/// directory followed by the stored bytes of the `index` sections, back to back. The `index`
/// sections come first in the directory; they should be the container sections, stored
/// uncompressed. Public for tests and fuzzers, like [`assemble_sections`].
///
/// # Errors
/// [`BuildError::LimitExceeded`] when a limit of [`crate::limits`] would be broken,
/// [`BuildError::Compression`] when zstd fails.
pub fn assemble_sections_indexed(
    index: &[RawSection],
    sections: &[RawSection],
    level: i32,
) -> Result<Vec<u8>, BuildError> {
    lay_out(index, sections, Some(level))
}

/// [`assemble_sections`] (`level` `None`, `index` empty) or [`assemble_sections_indexed`].
fn lay_out(
    index: &[RawSection],
    sections: &[RawSection],
    level: Option<i32>,
) -> Result<Vec<u8>, BuildError> {
    let header_size = core::mem::size_of::<FileHeader>() as u64;
    let record_size = core::mem::size_of::<SectionRecord>() as u64;
    let count = u32::try_from(index.len() + sections.len())
        .ok()
        .filter(|&n| n <= limits::MAX_SECTIONS)
        .ok_or(BuildError::LimitExceeded("section count"))?;
    let dir_len = record_size * u64::from(count);
    let mut dir = Vec::with_capacity(count as usize);
    let mut total_raw = 0u64;
    let mut record = |s: &RawSection, offset: u64| -> Result<(), BuildError> {
        if s.raw_size > limits::MAX_SECTION_RAW_SIZE {
            return Err(BuildError::LimitExceeded("section raw size"));
        }
        total_raw += s.raw_size;
        let (offset_lo, offset_hi) = split_u64(offset);
        let (stored_size_lo, stored_size_hi) = split_u64(s.stored.len() as u64);
        let (raw_size_lo, raw_size_hi) = split_u64(s.raw_size);
        let (hash_lo, hash_hi) = split_u64(xxh3_64(&s.stored));
        dir.push(SectionRecord {
            kind: s.kind,
            compression: s.compression,
            record_stride: s.stride,
            record_count: s.count,
            offset_lo,
            offset_hi,
            stored_size_lo,
            stored_size_hi,
            raw_size_lo,
            raw_size_hi,
            hash_lo,
            hash_hi,
        });
        Ok(())
    };
    // Sections inside the index: offsets from the index's start, right after the directory.
    let mut index_offset = dir_len;
    for s in index {
        record(s, index_offset)?;
        index_offset += s.stored.len() as u64;
    }
    // Sections in the file: after the header, or after the directory when it is stored plain.
    let mut offset = match level {
        Some(_) => header_size,
        None => align_up_u64(header_size + dir_len, SECTION_ALIGN),
    };
    // With a compressed index, compressed sections are packed back to back (only sections
    // viewed in place need alignment).
    let place = |offset: u64, s: &RawSection| match level {
        Some(_) if s.compression != Compression::None.to_raw() => offset,
        _ => align_up_u64(offset, SECTION_ALIGN),
    };
    let mut offsets = Vec::with_capacity(sections.len());
    for s in sections {
        offset = place(offset, s);
        record(s, offset)?;
        offsets.push(offset);
        offset += s.stored.len() as u64;
    }
    let offset = align_up_u64(offset, SECTION_ALIGN);
    if total_raw > limits::MAX_TOTAL_OWNED_SIZE {
        return Err(BuildError::LimitExceeded("total raw size"));
    }
    // The directory as stored: plain after the header, or compressed with the index sections
    // after the last section.
    let (dir_offset, stored_dir, flags, index_size) = match level {
        None => (header_size, dir.as_bytes().to_vec(), 0, 0),
        Some(level) => {
            if index_offset > limits::MAX_SECTION_RAW_SIZE {
                return Err(BuildError::LimitExceeded("index size"));
            }
            let mut raw = Vec::with_capacity(index_offset as usize);
            raw.extend_from_slice(dir.as_bytes());
            for s in index {
                raw.extend_from_slice(&s.stored);
            }
            let frame = crate::compress_index(&raw, level)?;
            let size =
                u32::try_from(frame.len()).map_err(|_| BuildError::LimitExceeded("index size"))?;
            (offset, frame, FLAG_COMPRESSED_INDEX, size)
        }
    };
    let file_size = match level {
        None => offset,
        Some(_) => align_up_u64(dir_offset + stored_dir.len() as u64, SECTION_ALIGN),
    };
    if file_size > limits::MAX_FILE_SIZE {
        return Err(BuildError::LimitExceeded("file size"));
    }
    let (section_dir_offset_lo, section_dir_offset_hi) = split_u64(dir_offset);
    let (file_size_lo, file_size_hi) = split_u64(file_size);
    let (dir_hash_lo, dir_hash_hi) = split_u64(xxh3_64(&stored_dir));
    let mut header = FileHeader {
        magic: MAGIC,
        version_major: VERSION_MAJOR,
        version_minor: VERSION_MINOR,
        header_size: header_size as u32,
        flags,
        endian_tag: ENDIAN_TAG,
        section_count: count,
        section_record_size: record_size as u32,
        index_size,
        section_dir_offset_lo,
        section_dir_offset_hi,
        file_size_lo,
        file_size_hi,
        dir_hash_lo,
        dir_hash_hi,
        header_hash_lo: 0,
        header_hash_hi: 0,
    };
    let (lo, hi) = split_u64(xxh3_64(&header.as_bytes()[..HEADER_HASHED_LEN]));
    header.header_hash_lo = lo;
    header.header_hash_hi = hi;

    let mut out = Vec::with_capacity(file_size as usize);
    out.extend_from_slice(header.as_bytes());
    if level.is_none() {
        out.extend_from_slice(&stored_dir);
    }
    for (s, &at) in sections.iter().zip(&offsets) {
        out.resize(at as usize, 0);
        out.extend_from_slice(&s.stored);
    }
    if level.is_some() {
        out.resize(dir_offset as usize, 0);
        out.extend_from_slice(&stored_dir);
    }
    out.resize(file_size as usize, 0);
    Ok(out)
}

const fn align_up_u64(value: u64, align: u64) -> u64 {
    (value + align - 1) & !(align - 1)
}

/// The package string pool: [`StringPoolHeader`], [`StringRef`]s, bytes.
#[derive(Default)]
struct PoolBuilder {
    refs: Vec<StringRef>,
    bytes: Vec<u8>,
    interned: HashMap<String, u32>,
}

impl PoolBuilder {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.interned.get(s) {
            return i;
        }
        let i = self.refs.len() as u32;
        self.refs.push(StringRef {
            offset: self.bytes.len() as u32,
            len: s.len() as u32,
        });
        self.bytes.extend_from_slice(s.as_bytes());
        self.interned.insert(s.to_owned(), i);
        i
    }

    fn finish(self) -> Result<Vec<u8>, BuildError> {
        let header = StringPoolHeader {
            count: count_u32(self.refs.len(), "package strings")?,
            byte_len: count_u32(self.bytes.len(), "package string bytes")?,
        };
        let mut out = Vec::with_capacity(8 + self.refs.len() * 8 + self.bytes.len());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(self.refs.as_bytes());
        out.extend_from_slice(&self.bytes);
        Ok(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::reflection::REFLECTION_MAGIC;
    use zerocopy::FromBytes;

    #[test]
    fn code_added_like_another_entry_point_s_is_stored_once() {
        let code = |target| TargetCodeDesc {
            target,
            entry_name: "main".into(),
            code: b"@compute @workgroup_size(1) fn main() {}".to_vec(),
        };
        let build = |like: bool| {
            let mut p = PackageBuilder::new();
            let s = p.add_spirv(&[0x0723_0203]);
            for key in ["a", "b"] {
                p.add_entry(compute_entry(key.into(), None, s, 1)).unwrap();
            }
            p.add_target_code("a", 0, code(Target::Wgsl)).unwrap();
            if like {
                p.add_target_code_like("b", 0, Target::Wgsl, "main".into(), ("a", 0))
                    .unwrap();
            } else {
                p.add_target_code("b", 0, code(Target::Wgsl)).unwrap();
            }
            p
        };
        // The same package as adding the same code again.
        assert_eq!(
            build(true).finish().unwrap(),
            build(false).finish().unwrap()
        );
        let mut p = build(true);
        for (key, ep, target, like) in [
            ("b", 0, Target::Glsl, ("a", 0)),
            ("b", 0, Target::Wgsl, ("a", 0)),
            ("b", 1, Target::Wgsl, ("a", 0)),
            ("c", 0, Target::Wgsl, ("a", 0)),
        ] {
            assert!(p
                .add_target_code_like(key, ep, target, "main".into(), like)
                .is_err());
        }
    }

    /// An entry keyed `key` with one compute entry point `main` of module `spirv`, hashed
    /// `hash`, without dependencies.
    pub(crate) fn compute_entry(
        key: String,
        reflection: Option<u32>,
        spirv: u32,
        hash: u64,
    ) -> EntryDesc {
        EntryDesc {
            key,
            reflection,
            entry_points: vec![EntryPointDesc {
                name: "main".into(),
                spirv_entry_name: "main".into(),
                stage: Stage::Compute,
                thread_group_size: [1, 1, 1],
                wave_size: 0,
                spirv,
                reflection_entry_point: None,
                hash,
            }],
            dependencies: vec![],
            options_hash: 0,
            entry_point_hash: hash,
        }
    }

    #[test]
    fn reflection_builder_layout() {
        let mut b = ReflectionBuilder::new();
        assert_eq!(b.intern("a"), 0);
        assert_eq!(b.intern("bc"), 1);
        assert_eq!(b.intern("a"), 0);
        assert_eq!(b.push_pool(&[1, 2, 3]), 0);
        assert_eq!(b.push_pool(&[4]), 3);
        let blob = b.finish();
        let header = ReflectionHeader::read_from_prefix(&blob).unwrap().0;
        assert_eq!(header.magic, REFLECTION_MAGIC);
        assert_eq!(header.table_count, 3); // u32 pool, string refs, string bytes
        assert_eq!(blob.len() % 4, 0);
    }

    #[test]
    fn package_is_deterministic_regardless_of_call_order() {
        let make = |reverse: bool| {
            let mut p = PackageBuilder::new();
            let mut order: Vec<u32> = (0..4).collect();
            if reverse {
                order.reverse();
            }
            for i in order {
                let spirv = p.add_spirv(&[0x0723_0203, i % 2]);
                let mut rb = ReflectionBuilder::new();
                rb.intern(&format!("r{}", i % 3));
                let refl = p.add_reflection(rb.finish());
                let mut entry = compute_entry(format!("k{i}"), Some(refl), spirv, u64::from(i));
                entry.dependencies.push(DependencyDesc {
                    path: "a.slang".into(),
                    hash: 3,
                });
                p.add_entry(entry).unwrap();
            }
            p.finish().unwrap()
        };
        assert_eq!(make(false), make(true));
    }

    #[test]
    fn duplicate_key_is_refused() {
        let mut p = PackageBuilder::new();
        let e = EntryDesc {
            key: "k".into(),
            reflection: None,
            entry_points: vec![],
            dependencies: vec![],
            options_hash: 0,
            entry_point_hash: 0,
        };
        p.add_entry(e.clone()).unwrap();
        assert_eq!(p.add_entry(e), Err(BuildError::DuplicateKey("k".into())));
    }

    #[test]
    fn raw_block_frames_decode_to_their_bytes() {
        for len in [0usize, 1, 6008, ZSTD_MAX_BLOCK, 2 * ZSTD_MAX_BLOCK + 17] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let frame = raw_blocks_frame(&bytes);
            assert_eq!(
                zstd::zstd_safe::get_frame_content_size(&frame).unwrap(),
                Some(len as u64)
            );
            assert_eq!(
                zstd::zstd_safe::find_frame_compressed_size(&frame).unwrap(),
                frame.len()
            );
            assert_eq!(zstd::bulk::decompress(&frame, len).unwrap(), bytes);
        }
    }
}

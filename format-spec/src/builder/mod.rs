//! Slang-free builders: [`ReflectionBuilder`] makes one reflection blob, [`PackageBuilder`]
//! assembles blobs, SPIR-V and entries into a package. The writer, the tests and the fuzzers
//! share them, so every byte a package holds is produced here.

use crate::limits;
use crate::records::{
    split_u64, DependencyRecord, EntryPointRecord, EntryPointTargetRecord, EntryRecord, FileHeader,
    SectionRecord, StringPoolHeader, StringRef, ENDIAN_TAG, FLAG_BARE_FRAMES, FLAG_CHECKSUM_RUNS,
    FLAG_COMPRESSED_INDEX, FLAG_PACKED_INDEX, HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN,
    VERSION_MAJOR, VERSION_MINOR,
};
use crate::reflection::{ReflectionHeader, TableDirRecord, TableRecord};
use crate::{Compression, SectionKind, Stage, TableKind, Target, ABSENT};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use xxhash_rust::xxh3::xxh3_64;
use zerocopy::{FromBytes, IntoBytes};

mod compress;
mod finish;
mod layout;
mod reflection;
mod reuse;
mod spool;
#[cfg(test)]
pub(crate) mod tests;
mod train;

pub use compress::blob_split;
#[cfg(test)]
pub(crate) use compress::compressed_section;
use compress::*;
pub(crate) use compress::{compress, compressor};
use layout::*;
pub use layout::{assemble_sections, assemble_sections_indexed};
pub use reflection::{ReflectionBuilder, ReflectionScalars};
use reuse::Offers;
pub use reuse::StoredDictionary;
use spool::*;

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
    /// [`PackageBuilder::finish_to`] could not write; the writer's message.
    Write(String),
    /// The scratch file of [`PackageBuilder::spool_spirv`] could not be read back; the
    /// system's message.
    Spool(String),
    /// [`crate::paginate`] cannot page the package it was given; says why.
    Paging(String),
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
            Self::Paging(why) => write!(f, "cannot page the package: {why}"),
            Self::InvalidTargetCode(why) => write!(f, "invalid target code: {why}"),
            Self::Write(why) => write!(f, "cannot write the package: {why}"),
            Self::Spool(why) => write!(f, "cannot read the spooled SPIR-V back: {why}"),
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
///     }],
///     dependencies: vec![],
///     options_hash: 1,
/// })?;
/// let bytes = p.finish()?;
/// assert_eq!(&bytes[..8], b"SLANGPK\0");
/// # Ok::<(), slangpack_format::BuildError>(())
/// ```
#[derive(Debug)]
pub struct PackageBuilder {
    spirv: Vec<Module>,
    spirv_ids: HashMap<u64, Vec<u32>>,
    /// Where modules go when they are not kept in memory ([`PackageBuilder::spool_spirv`]).
    spool: Option<Spool>,
    reflections: Vec<Vec<u8>>,
    /// Per reflection blob: its zstd frames, where they were given and checked
    /// ([`PackageBuilder::add_reflection_stored`]).
    reflection_frames: Vec<Option<StoredFrames>>,
    reflection_ids: HashMap<u64, Vec<u32>>,
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
    /// Frames of other packages that may be stored as they are
    /// ([`PackageBuilder::offer_frames`]).
    offers: Offers,
    /// Entries a page and the entry count above which the package is paged
    /// ([`PackageBuilder::set_paging`]); 0 entries a page: never.
    paging: (usize, usize),
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
    /// Record count for table sections; for a reflection section stored
    /// [`Compression::ZstdSharedTables`] (2.5), how many sections before it lies the one whose
    /// raw tables it shares; else 0.
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

    /// Stores the section's zstd frames (a section stored `Zstd`, `ZstdDictionary` or
    /// `ZstdSplitDictionaries`) bare, as a package with [`crate::FLAG_BARE_FRAMES`] stores them
    /// (SPEC.md 4.2); any other section stays as it is.
    pub(super) fn make_bare(&mut self) -> Result<(), BuildError> {
        if Compression::from_raw(self.compression).is_zstd() {
            self.stored = crate::strip_magic(&self.stored).ok_or_else(|| {
                BuildError::Compression("a section's stored bytes are not whole zstd frames".into())
            })?;
        }
        Ok(())
    }
}

impl PackageBuilder {
    /// An empty builder; reflection blobs are zstd-compressed at [`DEFAULT_ZSTD_LEVEL`].
    #[must_use]
    pub fn new() -> Self {
        Self {
            spirv: Vec::new(),
            spirv_ids: HashMap::new(),
            spool: None,
            reflections: Vec::new(),
            reflection_frames: Vec::new(),
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
            offers: Offers::default(),
            paging: (0, 0),
        }
    }

    /// Pages the package (3.0, SPEC.md 4.5; [`crate::paginate`]) in pages of
    /// `entries_per_page` entries when it has more than `from` entries and a compressed index:
    /// its open then reads a page table, and each page's index is read at the first touch of
    /// one of its entries. `entries_per_page` 0 never pages (a new builder's setting); the
    /// writer's default layout pages from [`crate::PAGE_FROM`] entries,
    /// [`crate::DEFAULT_PAGE_ENTRIES`] a page. A package with code for further targets is not
    /// paged ([`crate::paginate`] does not page it yet).
    pub fn set_paging(&mut self, entries_per_page: usize, from: usize) -> &mut Self {
        self.paging = (entries_per_page, from);
        self
    }

    /// The entries a page when the package is to be paged.
    fn pages(&self) -> Option<usize> {
        let (per, from) = self.paging;
        // `paginate` keeps packages of SPIR-V alone (no code for further targets yet).
        let pageable = self.compressed_index && self.entry_point_targets.is_empty();
        (per > 0 && pageable && self.entries.len() > from).then_some(per)
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
        let hash = xxh3_64(words.as_bytes());
        self.spirv_id(hash, words)
            .unwrap_or_else(|| self.push_spirv(hash, words.to_vec()))
    }

    /// [`PackageBuilder::add_spirv`] of a module given by value: kept as it is when new (no
    /// copy), dropped when an identical module was added before.
    pub fn add_spirv_words(&mut self, words: Vec<u32>) -> u32 {
        let hash = xxh3_64(words.as_bytes());
        self.spirv_id(hash, &words)
            .unwrap_or_else(|| self.push_spirv(hash, words))
    }

    /// The id of a module identical to `words` (whose xxh3 is `hash`) added before.
    fn spirv_id(&self, hash: u64, words: &[u32]) -> Option<u32> {
        let ids = self.spirv_ids.get(&hash)?;
        ids.iter().copied().find(|&id| self.module_is(id, words))
    }

    /// Adds `words` (whose xxh3 is `hash`), known to be new, and returns its id.
    fn push_spirv(&mut self, hash: u64, words: Vec<u32>) -> u32 {
        let id = self.spirv.len() as u32;
        self.spirv_ids.entry(hash).or_default().push(id);
        let module = self.keep_module(hash, words);
        self.spirv.push(module);
        id
    }

    /// Adds a reflection blob (from [`ReflectionBuilder::finish`]) and returns its id;
    /// identical blobs share one id.
    pub fn add_reflection(&mut self, blob: Vec<u8>) -> u32 {
        self.reflection_id(&blob)
            .unwrap_or_else(|| self.push_reflection(blob))
    }

    /// [`PackageBuilder::add_reflection`] of a borrowed blob, copied only when no identical
    /// blob was added before.
    pub fn add_reflection_bytes(&mut self, blob: &[u8]) -> u32 {
        self.reflection_id(blob)
            .unwrap_or_else(|| self.push_reflection(blob.to_vec()))
    }

    /// [`PackageBuilder::add_reflection_bytes`] of a blob whose compressed form is known:
    /// `stored`, the bytes of a reflection section holding `blob` as this builder stores it
    /// with [`Compression::Zstd`] and no dictionary (one zstd frame; for a split blob,
    /// [`blob_split`], one frame of the bytes before its raw tables, then one of the rest).
    /// Where this builder stores blobs that way (reflection compressed, SPIR-V not), it stores
    /// those frames as they are instead of compressing `blob` again: what a tool that carries
    /// blobs over from packages (a merge) needs to stay linear in its inputs, since compressing
    /// at [`DEFAULT_ZSTD_LEVEL`] costs about a thousand times what decompressing does. The
    /// first frame of a split blob is made again as raw blocks where
    /// [`PackageBuilder::set_bind_view_compression`] asks for them (a copy); otherwise it is
    /// kept as given.
    ///
    /// `stored` is checked first, by decompressing it (no dictionary, each frame exactly one
    /// zstd frame) and comparing with `blob` as it streams, without holding a second copy:
    /// frames that do not give back exactly `blob` are ignored, and `blob` is compressed as
    /// [`PackageBuilder::add_reflection_bytes`] would. Identical blobs share one id; the first
    /// frames given for a blob that check out are the ones stored.
    ///
    /// Frames made at another zstd level or by another zstd version are stored as they are
    /// too: the package is then not byte for byte what compressing `blob` here gives, though
    /// it decompresses to the same blob.
    pub fn add_reflection_stored(&mut self, blob: &[u8], stored: &[u8]) -> u32 {
        let id = self.add_reflection_bytes(blob);
        if let Some(slot @ None) = self.reflection_frames.get_mut(id as usize) {
            *slot = checked_frames(blob, stored);
        }
        id
    }

    /// The id of a blob identical to `blob` added before.
    fn reflection_id(&self, blob: &[u8]) -> Option<u32> {
        let ids = self.reflection_ids.get(&xxh3_64(blob))?;
        ids.iter()
            .copied()
            .find(|&id| self.reflections[id as usize] == blob)
    }

    /// Adds `blob`, known to be new, and returns its id.
    fn push_reflection(&mut self, blob: Vec<u8>) -> u32 {
        let id = self.reflections.len() as u32;
        self.reflection_ids
            .entry(xxh3_64(&blob))
            .or_default()
            .push(id);
        self.reflections.push(blob);
        self.reflection_frames.push(None);
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
    pub fn finish(self) -> Result<Vec<u8>, BuildError> {
        let (pages, level) = (self.pages(), self.zstd_level);
        let mut out = Vec::new();
        self.finish_into(&mut out)?;
        match pages {
            Some(per) => crate::paginate(&out, per, level),
            None => Ok(out),
        }
    }

    /// Emits the package bytes, as [`PackageBuilder::finish`] does, to `out` in order
    /// (nothing is sought back), and returns how many: the package is never held whole in
    /// memory, only its sections are (a bake streams it into its output file).
    ///
    /// # Errors
    /// As [`PackageBuilder::finish`], and [`BuildError::Write`] when `out` fails; what was
    /// written before is then not a package.
    pub fn finish_to(self, out: &mut dyn std::io::Write) -> Result<u64, BuildError> {
        if self.pages().is_none() {
            return self.finish_into(&mut Writes(out));
        }
        // A paged package is made from the whole package's bytes (its index and sections).
        let bytes = self.finish()?;
        out.write_all(&bytes)
            .map_err(|e| BuildError::Write(e.to_string()))?;
        Ok(bytes.len() as u64)
    }
}

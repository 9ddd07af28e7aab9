//! Opening a package (header, directory, container tables) and loading its entries lazily.

use crate::blob::{load_blob, load_tables, Blob, Where, EMPTY_BLOB};
use crate::cells::{Cells, CellsBuilder};
use crate::error::{err, Error, ErrorKind as K, Result};
use crate::storage::{cast, open_regular_file, owned_words, Bytes, Storage};
use crate::view::ReflectionView;
use slangpack_format::{
    join_u64, limits, Compression, DependencyRecord, EntryPointLayout, EntryPointRecord,
    EntryRecord, FileHeader, KeyIndexRecord, SectionKind, SectionRecord, Stage, StringPoolHeader,
    StringRef, ABSENT, ENDIAN_TAG, FLAG_COMPRESSED_INDEX, HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN,
    VERSION_MAJOR, VERSION_MAJOR_READ,
};
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;
use xxhash_rust::xxh3::xxh3_64;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};
use zstd::zstd_safe::{DCtx, DDict, DParameter, FrameFormat};

mod bind_run;
mod handles;
mod layout;
mod module_run;
mod open;
mod paged;
mod section;
mod targets;

pub use handles::{
    Dependency, DependencyIter, Entry, EntryInfo, EntryIter, EntryPoint, EntryPointIter, KeyIter,
};
use layout::*;
use paged::Placement;
pub(crate) use section::repack;
use section::*;
pub(crate) use targets::LoadedCode;

/// The entry count above which a 2.0 package makes a key index of hashes after enough lookups
/// ([`Package::find`]); up to it a binary search of the keys is as fast.
const KEY_INDEX_FROM: usize = 64;

/// An opened package.
///
/// Opening ([`Package::open`], [`Package::from_bytes`]) checks the header, the section
/// directory and the container tables (the key index, the string pool, the entry table) —
/// nothing per entry. An entry's reflection blob and SPIR-V modules are checksummed,
/// decompressed and validated at the first [`Package::load`] of an entry that uses them, once
/// (thread-safe: concurrent loads of one blob do the work once); a failed load returns the
/// [`Error`] and every later load of that entry returns it again. Everything an [`Entry`] gives
/// afterwards is infallible, borrowed and allocation-free. [`Package::verify_all`] loads and
/// checks everything at once (what `slangpack verify` does).
///
/// `Package` is `Send + Sync`; entries and views borrow it.
#[derive(Debug)]
pub struct Package {
    pub(crate) storage: Storage,
    /// The string pool section (checked at open: UTF-8, every reference on character
    /// boundaries), viewed in place when stored uncompressed; its text starts at
    /// `strings_text_at`.
    strings: Bytes,
    strings_text_at: usize,
    string_refs: Bytes,
    entries: Bytes,
    /// A 1.x package's key index (empty in 2.0).
    key_index: Bytes,
    /// A 2.0 package's key index, made at the first lookup: each key's xxh3-64 and entry,
    /// sorted (what 1.x stored), so that a lookup compares hashes, not keys.
    key_hashes: OnceLock<Box<[KeyHash]>>,
    /// Lookups by key before `key_hashes` was made ([`Package::find`]).
    key_lookups: AtomicU32,
    entry_points: Bytes,
    dependencies: Bytes,
    /// SPIR-V blob `n`, loaded at first use.
    spirv: Cells<Module>,
    /// Reflection blob `n`, loaded at first use.
    reflections: Cells<Box<Blob>>,
    /// The zstd dictionary, loaded at the first load that needs it.
    dictionary: Option<Lazy<Dictionary>>,
    /// The zstd dictionary of split blobs' raw tables (2.1), loaded at their first use.
    tables_dictionary: Option<Lazy<Dictionary>>,
    /// Directory indices of sections of kinds this version does not know.
    unknown: Box<[u32]>,
    /// The section directory: in place in the file, or copied out of the compressed index.
    directory: Bytes,
    dir_stride: u32,
    section_count: u32,
    /// Whether sections in the file may share a checksum run's checksum (2.3,
    /// `FLAG_CHECKSUM_RUNS`; SPEC.md 4.3 rule 3).
    checksum_runs: bool,
    /// Whether the sections' zstd frames are stored without their magic numbers (2.4,
    /// `FLAG_BARE_FRAMES`; SPEC.md 4.2).
    bare_frames: bool,
    /// With checksum runs, one bit per section (bit `i % 64` of word `i / 64`): set once the
    /// checksum run that section `i` ends was found intact, so that the other sections of the
    /// run do not hash it again. Empty without runs.
    runs_checked: Box<[AtomicU64]>,
    /// Bytes decompressed or repacked so far (bounded by `MAX_TOTAL_OWNED_SIZE`): the
    /// package's own count, which a paged package's pages share.
    owned: std::sync::Arc<AtomicU64>,
    /// Per entry, one bit: whether a load succeeded (its own records were checked); bit
    /// `i % 64` of word `i / 64`.
    loaded: Box<[AtomicU64]>,
    /// Code for targets other than SPIR-V: the entry-point targets table (checked at open),
    /// each code blob loaded with the first entry that uses it.
    pub(crate) targets: targets::TargetTables,
    version: (u32, u32),
    /// A paged package's pages (3.0, SPEC.md 4.5); `None` in a package that is not paged and
    /// in a page.
    pages: Option<Box<paged::Pages>>,
    /// The number of a page's first entry among its paged package's entries; 0 elsewhere.
    entry_base: usize,
    /// A page's header, as its paged package's page table states it (SPEC.md 4.5); `None`
    /// elsewhere. A page's sections have the package's other pages' bytes between them.
    page_header: Option<FileHeader>,
    /// This package's own number among the packages opened in this process: what a thread's
    /// buffer of a module run's frame is kept under ([`module_run`]).
    id: u64,
}

/// [`Package::sections`]: a package's directory records in turn, or a paged package's pages'.
struct Sections<'a> {
    package: &'a Package,
    flat: core::ops::Range<usize>,
    paged: std::vec::IntoIter<SectionRecord>,
}

impl Iterator for Sections<'_> {
    type Item = SectionRecord;
    fn next(&mut self) -> Option<SectionRecord> {
        match self.flat.next() {
            Some(i) => Some(self.package.dir_record(i)),
            None => self.paged.next(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.flat.len() + self.paged.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for Sections<'_> {}

/// The number the next package opened gets ([`Package::id`]).
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// One key of a 2.0 package's key index, built at its first lookup.
#[derive(Debug, Clone, Copy)]
struct KeyHash {
    hash: u64,
    entry: u32,
}

/// A SPIR-V module, loaded: its words, and their xxh3-64 (the section's checksum for a
/// module stored uncompressed; else hashed at the first request, once: a load that never
/// asks for an entry point's hash does not read the words a second time).
#[derive(Debug)]
pub(super) struct Module {
    bytes: Bytes,
    hash: std::sync::OnceLock<u64>,
}

/// What a module that is not there reads as.
static EMPTY_MODULE: Module = Module {
    bytes: Bytes::EMPTY,
    hash: std::sync::OnceLock::new(),
};

/// A section loaded at its first use: the directory index, and the outcome once loaded.
#[derive(Debug)]
struct Lazy<T> {
    section: u32,
    cell: OnceLock<Result<T, Box<Error>>>,
}

impl<T> Lazy<T> {
    fn new(section: usize) -> Self {
        Self {
            section: section as u32,
            cell: OnceLock::new(),
        }
    }

    /// The loaded value (running `load` once, whoever calls first), or the load's error.
    fn get_or_load(&self, load: impl FnOnce(usize) -> Result<T>) -> Result<&T> {
        match self
            .cell
            .get_or_init(|| load(self.section as usize).map_err(Box::new))
        {
            Ok(value) => Ok(value),
            Err(e) => Err(e.duplicate()),
        }
    }
}

impl Package {
    /// Opens the package at `path` through a read-only memory mapping, checking its header,
    /// directory and container tables (see the type's documentation).
    ///
    /// Only a regular file is read: a FIFO, a device, a socket or a directory is refused at
    /// once, before anything is read from it (on unix the path is opened with `O_NONBLOCK`,
    /// so that a FIFO no process writes to does not block the open).
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) when the file cannot be opened or mapped, or is
    /// not a regular file; any error of [`Package::from_bytes`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let (file, metadata) = open_regular_file(path)?;
        let len = metadata.len();
        if len < core::mem::size_of::<FileHeader>() as u64 {
            // Too short to map usefully (an empty file cannot be mapped at all); read at most
            // the length just checked, whatever the file does meanwhile.
            use std::io::Read;
            let mut bytes = Vec::new();
            (&file)
                .take(len)
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
            return Self::from_bytes(&bytes);
        }
        let map = Storage::map(file)
            .map_err(|e| Error::io(format!("cannot map {}", path.display()), e))?;
        Self::parse(map)
    }

    /// Opens a package held in memory. The bytes are copied once into an 8-aligned owned
    /// buffer (so `&[u32]` SPIR-V and record views are aligned whatever `bytes`' alignment).
    /// Checks what [`Package::open`] checks.
    ///
    /// # Errors
    /// An [`Error`] whose [`ErrorKind`](crate::ErrorKind) names the first check that failed.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::parse(Storage::copy_of(bytes))
    }

    /// Validates a package held in memory that outlives it, without copying: the accessors
    /// then read `bytes` directly, like a mapping. `bytes` must start at an 8-aligned address
    /// (what a mapping, a `Vec<u64>` or an aligned `include_bytes!` wrapper gives); the C API
    /// opens caller-owned memory this way.
    ///
    /// # Errors
    /// [`ErrorKind::Misaligned`](crate::ErrorKind::Misaligned) when `bytes` is not 8-aligned;
    /// any validation error of [`Package::from_bytes`].
    pub fn from_static_bytes(bytes: &'static [u8]) -> Result<Self> {
        let misalignment = bytes.as_ptr() as usize % 8;
        if misalignment != 0 {
            return Err(err(
                K::Misaligned,
                0,
                format!(
                    "borrowed package bytes start {misalignment} bytes past an 8-byte boundary; \
                     records are viewed in place and need 8-aligned bytes (copy them instead)"
                ),
            ));
        }
        Self::parse(Storage::Static(bytes))
    }

    /// Loads entry `key`: finds it through the key index, then checksums, decompresses and
    /// validates its reflection blob and SPIR-V modules unless an earlier load did. After
    /// this, nothing the [`Entry`] gives can fail.
    ///
    /// Cost of a later load of the same entry: the key lookup (a binary search comparing
    /// keys) and a test of the bit the first load set; no check is made again and nothing is
    /// allocated.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when no entry has this key; else
    /// the first check the entry's sections fail (the same error on every later call).
    pub fn load(&self, key: &str) -> Result<Entry<'_>> {
        if let Some(pages) = self.paged() {
            return match self.page_of_key(pages, key)? {
                Some(page) => page.load(key),
                None => Err(not_found(key)),
            };
        }
        match self.find(key) {
            Some(index) => self.load_at(index),
            None => Err(not_found(key)),
        }
    }

    /// Loads entry number `index` in key order (see [`Package::load`]).
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when `index >= self.len()`; else
    /// as [`Package::load`].
    pub fn load_at(&self, index: usize) -> Result<Entry<'_>> {
        if let Some(pages) = self.paged() {
            let (page, local) = self
                .page_of_entry(pages, index)
                .unwrap_or_else(|| Err(self.no_entry(index)))?;
            return page.load_at(local);
        }
        // Every check below gives the same answer each time (each section's outcome is kept),
        // and the bit is set only after all of them passed: a later load needs none of them.
        if let Some(entry) = self.loaded_at(index) {
            return Ok(entry);
        }
        let (record, blob) = self.entry_blob(index)?;
        let entry_points = blob_view_entry_points(blob);
        for (j, ep) in self.entry_point_slice(record).iter().enumerate() {
            self.spirv_module(ep.spirv as usize)?;
            // In range: `check_entry` checked the entry's entry points.
            self.load_target_code(record.entry_point_first + j as u32)?;
            let r = ep.reflection_entry_point;
            if r != ABSENT && r as usize >= entry_points {
                return Err(err(
                    K::IndexOutOfRange,
                    self.section_offset_of(SectionKind::EntryPoints),
                    format!(
                        "entry {index}: entry point {j} reflection index {r} out of range ({entry_points} in the blob)"
                    ),
                ));
            }
        }
        if let Some(word) = self.loaded.get(index / 64) {
            word.fetch_or(1 << (index % 64), Ordering::Release);
        }
        Ok(Entry {
            package: self,
            record,
            index,
            blob,
        })
    }

    /// Entry `key`'s bind view alone, for a caller that needs its bindings before (or
    /// without) its code: what [`Package::load`] checks of the entry's record and reflection
    /// blob (the blob's bind view loaded and checked, its name table built), without touching
    /// its SPIR-V modules or code for further targets, so none of them is checksummed or
    /// decompressed. A later [`Package::load`] of the entry reuses the loaded blob and loads
    /// the rest.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when no entry has this key; else
    /// the first check of the entry's record or reflection blob that fails, as
    /// [`Package::load`] reports it.
    pub fn load_bind(&self, key: &str) -> Result<crate::BindView<'_>> {
        if let Some(pages) = self.paged() {
            return match self.page_of_key(pages, key)? {
                Some(page) => page.load_bind(key),
                None => Err(not_found(key)),
            };
        }
        let index = self.find(key).ok_or_else(|| not_found(key))?;
        let (_, blob) = self.entry_blob(index)?;
        // A bind view does not show the entry-point hash (and the modules are not loaded).
        Ok(ReflectionView::new(self.file(), blob, 0).bind())
    }

    /// Entry `index`'s record, checked, and its reflection blob, loaded and checked against
    /// the record: the part of a load that [`Package::load_bind`] makes alone.
    fn entry_blob(&self, index: usize) -> Result<(&EntryRecord, &Blob)> {
        let Some(record) = self.entry_records().get(index) else {
            return Err(self.no_entry(index));
        };
        self.check_entry(index, record)?;
        let blob = if record.reflection == ABSENT {
            &EMPTY_BLOB
        } else {
            self.reflection(record.reflection as usize)?
        };
        // Vertex inputs are sorted by entry point (checked with the blob): the last names
        // the highest.
        // So are fragment outputs and execution modes.
        let view = ReflectionView::new(self.file(), blob, 0);
        let bind = view.bind();
        let highest = [
            (
                "a vertex input",
                bind.all_vertex_inputs().last().map(|v| v.entry_point),
            ),
            (
                "a fragment output",
                bind.all_fragment_outputs().last().map(|o| o.entry_point),
            ),
            (
                "execution modes",
                bind.all_execution_modes().last().map(|m| m.entry_point),
            ),
        ];
        for (what, highest) in highest {
            if let Some(ep) = highest.filter(|&ep| ep >= record.entry_point_count) {
                return Err(err(
                    K::IndexOutOfRange,
                    self.section_offset_of(SectionKind::Entries),
                    format!(
                        "entry {index}: {what} of entry point {ep}, but the entry has {}",
                        record.entry_point_count
                    ),
                ));
            }
        }
        Ok((record, blob))
    }

    /// Entry `index` if an earlier [`Package::load`] or [`Package::load_at`] of it succeeded
    /// (no check, no hashing: for handles that keep an index, as the C API does); `None`
    /// otherwise.
    #[must_use]
    pub fn loaded_at(&self, index: usize) -> Option<Entry<'_>> {
        if let Some(pages) = self.paged() {
            let (page, local) = self.page_if_read(pages, index)?;
            return page.loaded_at(local);
        }
        if !self.is_loaded(index) {
            return None;
        }
        let record = self.entry_records().get(index)?;
        let blob = if record.reflection == ABSENT {
            &EMPTY_BLOB
        } else {
            &**self.reflections.loaded(record.reflection as usize)?
        };
        Some(Entry {
            package: self,
            record,
            index,
            blob,
        })
    }

    /// Entry `key`'s record, key and dependencies, without loading its sections: the checks
    /// of its record that a load makes first (key hash and order, its entry points' and
    /// dependencies' ranges and strings), and nothing else. No checksum is computed and
    /// nothing is decompressed or allocated; an entry that passes may still fail its load.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when no entry has this key; else
    /// the first check of its record that fails (as [`Package::load`] reports it).
    pub fn info(&self, key: &str) -> Result<EntryInfo<'_>> {
        if let Some(pages) = self.paged() {
            return match self.page_of_key(pages, key)? {
                Some(page) => page.info(key),
                None => Err(not_found(key)),
            };
        }
        match self.find(key) {
            Some(index) => self.info_at(index),
            None => Err(not_found(key)),
        }
    }

    /// Entry number `index`'s record, key and dependencies (see [`Package::info`]).
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when `index >= self.len()`; else
    /// as [`Package::info`].
    pub fn info_at(&self, index: usize) -> Result<EntryInfo<'_>> {
        if let Some(pages) = self.paged() {
            let (page, local) = self
                .page_of_entry(pages, index)
                .unwrap_or_else(|| Err(self.no_entry(index)))?;
            return page.info_at(local);
        }
        let Some(record) = self.entry_records().get(index) else {
            return Err(self.no_entry(index));
        };
        self.check_entry(index, record)?;
        Ok(EntryInfo {
            package: self,
            record,
            index,
        })
    }

    /// The dependencies `record` names (ranges checked by `check_entry`; empty if not).
    pub(super) fn dependencies_of<'a>(&'a self, record: &EntryRecord) -> DependencyIter<'a> {
        let first = record.dependency_first as usize;
        let count = record.dependency_count as usize;
        let records = self
            .dependency_records()
            .get(first..first.saturating_add(count))
            .unwrap_or(&[]);
        DependencyIter {
            package: self,
            records: records.iter(),
        }
    }

    /// The index of the entry whose key is `key`, without loading it.
    ///
    /// Cost: a binary search of the keys, which open checked are strictly sorted (O(log n)
    /// string comparisons), allocating nothing. A 1.x package, and a 2.0 package of more than
    /// 64 entries once it has been asked `len / 16` times, compare xxh3-64
    /// hashes instead: one hash of `key`, a binary search of the key hashes and a string
    /// comparison per entry sharing the hash (normally one). A 2.0 package makes that key
    /// index (16 bytes an entry: what 1.x stored) at the lookup that reaches the count, the
    /// one lookup that allocates; so the first lookups in a package of many entries do not
    /// pay for hashing and sorting every key.
    #[must_use]
    pub fn find(&self, key: &str) -> Option<usize> {
        if let Some(pages) = self.paged() {
            let page = self.page_of_key(pages, key).ok()??;
            return page.find(key).map(|local| page.entry_base + local);
        }
        if self.stores_hashes() {
            let index = self.key_index_records();
            let hash = xxh3_64(key.as_bytes());
            let start = index.partition_point(|k| join_u64(k.hash_lo, k.hash_hi) < hash);
            return index
                .get(start..)?
                .iter()
                .take_while(|k| join_u64(k.hash_lo, k.hash_hi) == hash)
                .map(|k| k.entry as usize)
                .find(|&i| self.key_is(i, key));
        }
        let records = self.entry_records();
        let hashes = match self.key_hashes.get() {
            Some(hashes) => Some(hashes),
            None if records.len() > KEY_INDEX_FROM
                && self.key_lookups.fetch_add(1, Ordering::Relaxed) as usize
                    >= records.len() / 16 =>
            {
                Some(self.key_hashes.get_or_init(|| self.hash_keys()))
            }
            None => None,
        };
        let Some(hashes) = hashes else {
            return records
                .binary_search_by(|e| self.string_bytes(e.key).cmp(key.as_bytes()))
                .ok();
        };
        let hash = xxh3_64(key.as_bytes());
        let start = hashes.partition_point(|k| k.hash < hash);
        hashes
            .get(start..)?
            .iter()
            .take_while(|k| k.hash == hash)
            .map(|k| k.entry as usize)
            .find(|&i| self.key_is(i, key))
    }

    /// Whether entry `i` exists and its key is `key`.
    fn key_is(&self, i: usize, key: &str) -> bool {
        self.entry_records()
            .get(i)
            .is_some_and(|e| self.string_bytes(e.key) == key.as_bytes())
    }

    /// Every key's xxh3-64 with its entry, sorted: a 2.0 package's key index (a third of the
    /// size of the entry table it is made from, which open bounded).
    #[cold]
    fn hash_keys(&self) -> Box<[KeyHash]> {
        let mut hashes: Box<[KeyHash]> = self
            .entry_records()
            .iter()
            .enumerate()
            .map(|(i, e)| KeyHash {
                hash: xxh3_64(self.string_bytes(e.key)),
                entry: i as u32,
            })
            .collect();
        hashes.sort_unstable_by_key(|k| (k.hash, k.entry));
        hashes
    }

    /// The key of entry `index` (without loading it), or `None` when out of range.
    #[must_use]
    pub fn key_at(&self, index: usize) -> Option<&str> {
        if let Some(pages) = self.paged() {
            let (page, local) = self.page_of_entry(pages, index)?.ok()?;
            return page.key_at(local);
        }
        self.entry_records().get(index).map(|e| self.string(e.key))
    }

    /// Every entry's key, in key order, without loading anything.
    #[must_use]
    pub fn keys(&self) -> KeyIter<'_> {
        KeyIter {
            package: self,
            range: 0..self.len(),
        }
    }

    /// Whether entry `index` has been loaded successfully (by [`Package::load`],
    /// [`Package::load_at`] or [`Package::verify_all`]): its own records were checked and its
    /// reflection, SPIR-V and further targets' code are cached. An entry that was never loaded
    /// is not, even when another entry's load cached the sections it shares with it.
    #[must_use]
    pub fn is_loaded(&self, index: usize) -> bool {
        if let Some(pages) = self.paged() {
            return self
                .page_if_read(pages, index)
                .is_some_and(|(page, local)| page.is_loaded(local));
        }
        self.loaded
            .get(index / 64)
            .is_some_and(|word| word.load(Ordering::Acquire) & (1 << (index % 64)) != 0)
    }

    /// Checks everything: checksums sections of kinds this version does not know, checks the
    /// shard plan ([`Package::shard_plan`]: at most one, and well-formed), loads the
    /// dictionary, every reflection blob and SPIR-V module in directory order (also those no
    /// entry uses), every code blob of further targets, then every entry. What it loads stays
    /// loaded.
    ///
    /// # Errors
    /// The first check that fails, in the order above.
    pub fn verify_all(&self) -> Result<()> {
        if let Some(pages) = self.paged() {
            // Each page as a package, then the layout of the whole file.
            for page in self.all_pages(pages)? {
                page.verify_all()?;
            }
            return self.check_paged_layout(pages);
        }
        // Zero padding (SPEC.md 4.3 rule 2) reads the bytes between all sections, every page
        // of the file, so open leaves it to the full check (of a paged package's page, other
        // pages lie between its sections: its paged package checks the padding).
        let file = self.storage.bytes();
        let (header, padding) = match self.page_header {
            Some(header) => (header, Padding::Unchecked),
            None => (parse_header(file)?, Padding::Checked),
        };
        let index = directory(file, &header)?;
        let index_bytes = index.bytes.get(file);
        let dir_len = header.section_count as usize * header.section_record_size as usize;
        let dir = index_bytes.get(..dir_len).unwrap_or(&[]);
        check_layout(file, &header, &index, dir, index_bytes, padding)?;
        for &i in self.unknown.iter() {
            let rec = self.dir_record(i as usize);
            self.check_checksum(i as usize, &rec)?;
        }
        self.shard_plan()?;
        for slot in [&self.dictionary, &self.tables_dictionary]
            .into_iter()
            .flatten()
        {
            self.load_dictionary(slot)?;
        }
        // Blobs and modules in directory order (the first damaged section is the one reported,
        // and nothing after it is decompressed), then every entry's own checks.
        let (mut r, mut s) = (0, 0);
        while r < self.reflections.len() || s < self.spirv.len() {
            let next_r = self.reflections.section(r).unwrap_or(usize::MAX);
            let next_s = self.spirv.section(s).unwrap_or(usize::MAX);
            if next_r < next_s {
                let blob = self.reflection(r)?;
                self.reflection_tables(blob)?;
                r += 1;
            } else {
                self.spirv_module(s)?;
                s += 1;
            }
        }
        self.load_all_target_code()?;
        for index in 0..self.len() {
            self.load_at(index)?;
        }
        Ok(())
    }

    /// Checks every section's checksum (SPEC.md 4.3) against its stored bytes, in directory
    /// order (the container tables', checked at open, are not computed again), and nothing
    /// else: no section is decompressed, loaded or kept. In format 2.0 a section stored as a
    /// zstd frame keeps the low 32 bits of its xxh3-64, an uncompressed one all 64 bits
    /// (`SectionRecord::checksum_of`). A mapped package ([`Package::open`])
    /// is read from its file through one 64 KiB buffer, in sequential reads, rather than
    /// through the mapping, so that the check leaves none of the package's pages in the
    /// process's resident memory (a no-op rebake of 10,000 permutations checked 16 MB this
    /// way); a package in memory is hashed in place, allocating nothing.
    /// For a tool that takes a package's bytes as they are (an incremental rebake that changes
    /// nothing) and needs to know they are the bytes that were written;
    /// [`Package::verify_all`] checks everything.
    ///
    /// # Errors
    /// [`ErrorKind::ChecksumMismatch`](crate::ErrorKind::ChecksumMismatch) for the first
    /// section whose bytes do not hash to its checksum.
    pub fn check_checksums(&self) -> Result<()> {
        if let Some(pages) = self.paged() {
            return self
                .all_pages(pages)?
                .into_iter()
                .try_for_each(Package::check_checksums);
        }
        let mut window = self.storage.read_window();
        // With checksum runs (2.3), where the current run began: its sections hold no
        // checksum, and its last one's covers the run's bytes.
        let mut run = None;
        (0..self.section_total())
            .map(|i| (i, self.dir_record(i)))
            .filter(|(_, rec)| !rec.section_kind().is_container())
            .try_for_each(|(i, rec)| {
                if self.checksum_runs && rec.hash() == 0 {
                    run = run.or(Some((i, rec.offset())));
                    return Ok(());
                }
                let (first, start) = run.take().unwrap_or((i, rec.offset()));
                let end = rec.offset().saturating_add(rec.stored_size());
                let hash = self
                    .storage
                    .xxh3_of(start, end.saturating_sub(start), window.as_mut());
                if rec.checksum_of(self.version.0, hash) == rec.hash() {
                    return Ok(());
                }
                let what = match first == i {
                    true => format!("section {i} checksum mismatch"),
                    false => {
                        format!("sections {first} to {i} checksum mismatch (one checksum run)")
                    }
                };
                Err(err(K::ChecksumMismatch, start, what))
            })
    }

    /// Bytes this package holds outside its file: decompressed sections, repacked tables and
    /// strings of what has been loaded so far, plus the container tables' copies.
    #[must_use]
    pub fn owned_bytes(&self) -> u64 {
        self.owned.load(Ordering::Relaxed)
    }

    fn entry_point_slice(&self, e: &EntryRecord) -> &[EntryPointRecord] {
        let first = e.entry_point_first as usize;
        self.entry_point_records()
            .get(first..first.saturating_add(e.entry_point_count as usize))
            .unwrap_or(&[])
    }

    /// The SPIR-V entry names ([`EntryPoint::spirv_entry_name`]) of every entry point of every
    /// entry, loaded or not, repeats included (most are `main`): what a binding layer that
    /// needs them NUL-terminated copies once at open.
    pub fn spirv_entry_names(&self) -> impl Iterator<Item = &str> + '_ {
        // A paged package's, page by page (a page that fails its checks names none).
        let pages = self
            .paged()
            .map(|pages| self.all_pages(pages).unwrap_or_default());
        let packages = pages.unwrap_or_else(|| vec![self]);
        packages.into_iter().flat_map(|package| {
            package
                .entry_point_records()
                .iter()
                .map(|ep| package.string(ep.spirv_entry_name))
        })
    }

    pub(crate) fn file(&self) -> &[u8] {
        self.storage.bytes()
    }

    fn table<'a, T: FromBytes + KnownLayout + Immutable>(&'a self, bytes: &'a Bytes) -> &'a [T] {
        cast(bytes.get(self.storage.bytes()))
    }

    fn entry_records(&self) -> &[EntryRecord] {
        self.table(&self.entries)
    }

    /// The key index of a 1.x package (empty in 2.0).
    fn key_index_records(&self) -> &[KeyIndexRecord] {
        self.table(&self.key_index)
    }

    pub(crate) fn entry_point_records(&self) -> &[EntryPointRecord] {
        self.table(&self.entry_points)
    }

    fn dependency_records(&self) -> &[DependencyRecord] {
        self.table(&self.dependencies)
    }

    fn string_count(&self) -> u32 {
        (self.string_refs.len() / size_of::<StringRef>()) as u32
    }

    /// Package string `index`; `""` when `index` is absent or out of range. (Open checked
    /// the pool; the check here is what lets the bytes be served as `&str` without `unsafe`.)
    pub(crate) fn string(&self, index: u32) -> &str {
        core::str::from_utf8(self.string_bytes(index)).unwrap_or("")
    }

    /// The package string pool's references and its text.
    fn string_table(&self) -> (&[StringRef], &[u8]) {
        let refs: &[StringRef] = self.table(&self.string_refs);
        let text = self
            .strings
            .get(self.file())
            .get(self.strings_text_at..)
            .unwrap_or(&[]);
        (refs, text)
    }

    /// The bytes of package string `index` (`&[]` when absent or out of range).
    fn string_bytes(&self, index: u32) -> &[u8] {
        let (refs, text) = self.string_table();
        refs.get(index as usize)
            .and_then(|r| {
                text.get(r.offset as usize..(r.offset as usize).saturating_add(r.len as usize))
            })
            .unwrap_or(&[])
    }

    /// The package's (major, minor) format version.
    #[must_use]
    pub fn version(&self) -> (u32, u32) {
        self.version
    }

    /// Whether the package stores its sections' zstd frames bare, without their magic
    /// numbers (2.4, `FLAG_BARE_FRAMES`, SPEC.md 4.2): what a tool that copies a section's
    /// stored bytes ([`Package::sections`]) into another package must know
    /// ([`slangpack_format::restore_magic`] makes them whole frames).
    #[must_use]
    pub fn has_bare_frames(&self) -> bool {
        match self.paged() {
            Some(pages) => pages.bare_frames(),
            None => self.bare_frames,
        }
    }

    /// The number, among its paged package's entries, of this package's first entry when it
    /// is a page of a paged package (3.0, SPEC.md 4.5; what [`Entry::package`] gives there);
    /// 0 for any other package. A page numbers its own SPIR-V modules and reflection blobs
    /// ([`EntryPoint::spirv_index`], [`EntryRecord::reflection`]): a tool that tells them apart
    /// across entries tells the pages apart by this.
    #[must_use]
    pub fn first_entry(&self) -> usize {
        self.entry_base
    }

    /// Whether the package is served from a memory mapping ([`Package::open`]).
    #[must_use]
    pub fn is_mapped(&self) -> bool {
        self.storage.is_mapped()
    }

    /// The whole package file.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        match self.paged() {
            Some(pages) => pages.len(),
            None => self.entry_records().len(),
        }
    }

    /// Whether the package has no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of distinct SPIR-V modules stored.
    #[must_use]
    pub fn spirv_count(&self) -> usize {
        self.each_page(|page| page.spirv.len())
    }

    /// Number of distinct reflection blobs stored.
    #[must_use]
    pub fn reflection_count(&self) -> usize {
        self.each_page(|page| page.reflections.len())
    }

    /// `count` of this package, or summed over a paged package's pages (read for it; a page
    /// that fails its checks counts 0).
    pub(crate) fn each_page(&self, count: impl Fn(&Package) -> usize) -> usize {
        match self.paged() {
            Some(pages) => self
                .all_pages(pages)
                .unwrap_or_default()
                .into_iter()
                .map(count)
                .sum(),
            None => count(self),
        }
    }

    /// The error for entry `index` past the last.
    fn no_entry(&self, index: usize) -> Error {
        err(
            K::NotFound,
            0,
            format!("no entry {index}: the package has {}", self.len()),
        )
    }

    /// The section directory, in directory order: each section's kind, compression, stored
    /// and raw sizes (the known prefix of each record; checked at open as SPEC.md section 10
    /// says, the sections' contents only when loaded).
    /// In a paged package (3.0), the sections of each page in turn, each page's as its
    /// directory lists them: a section that several pages list (the dictionary, a module two
    /// pages' entries share) comes once per page; a page that fails its checks lists none.
    pub fn sections(&self) -> impl ExactSizeIterator<Item = SectionRecord> + '_ {
        let records: Vec<SectionRecord> = match self.paged() {
            Some(pages) => self
                .all_pages(pages)
                .unwrap_or_default()
                .into_iter()
                .flat_map(|page| page.sections().collect::<Vec<_>>())
                .collect(),
            None => Vec::new(),
        };
        let flat = if self.pages.is_some() {
            0
        } else {
            self.section_total()
        };
        Sections {
            package: self,
            flat: 0..flat,
            paged: records.into_iter(),
        }
    }

    /// Loads every entry in key order ([`Package::load_at`] of 0, 1, 2, ...).
    #[must_use]
    pub fn entries(&self) -> EntryIter<'_> {
        EntryIter {
            package: self,
            range: 0..self.len(),
        }
    }

    /// SPIR-V module `index` as words, if loaded.
    fn spirv_words(&self, index: u32) -> &[u32] {
        self.spirv
            .loaded(index as usize)
            .map_or(&[], |m| cast(m.bytes.get(self.storage.bytes())))
    }

    /// The xxh3-64 of SPIR-V module `index`'s words, if loaded (0 if not).
    fn spirv_hash(&self, index: u32) -> u64 {
        self.spirv.loaded(index as usize).map_or(0, |m| {
            *m.hash
                .get_or_init(|| xxh3_64(m.bytes.get(self.storage.bytes())))
        })
    }

    /// Whether the package is of a 1.x format, which stores the key index, the key hashes and
    /// the entry points' hashes that 2.0 derives (SPEC.md 7).
    pub(super) fn stores_hashes(&self) -> bool {
        self.version.0 == slangpack_format::VERSION_MAJOR_READ
    }

    /// The hash of an entry's first entry point: stored in a 1.x record, else its module's.
    pub(super) fn entry_point_hash_of(&self, record: &EntryRecord) -> u64 {
        if self.stores_hashes() {
            return join_u64(record.entry_point_hash_lo, record.entry_point_hash_hi);
        }
        self.entry_point_slice(record)
            .first()
            .map_or(0, |ep| self.spirv_hash(ep.spirv))
    }

    /// The hash of an entry point: stored in a 1.x record, else its module's.
    pub(super) fn entry_point_hash(&self, record: &EntryPointRecord) -> u64 {
        if self.stores_hashes() {
            return join_u64(record.hash_lo, record.hash_hi);
        }
        self.spirv_hash(record.spirv)
    }
}

/// The number of entry-point layouts of `blob`, as its directory states (a split blob's
/// raw tables need not be loaded).
fn blob_view_entry_points(blob: &Blob) -> usize {
    blob.counts
        .get(crate::blob::slot(slangpack_format::TableKind::EntryPoints))
        .map_or(0, |&n| n as usize)
}

#[cold]
fn not_found(key: &str) -> Error {
    err(K::NotFound, 0, format!("no entry with key {key:?}"))
}

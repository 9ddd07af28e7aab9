//! Opening a package (header, directory, container tables) and loading its entries lazily.

use crate::blob::{load_blob, Blob, Where, EMPTY_BLOB};
use crate::cells::{Cells, CellsBuilder};
use crate::error::{err, Error, ErrorKind as K, Result};
use crate::storage::{cast, owned_words, Bytes, Storage};
use crate::view::ReflectionView;
use slangpack_format::{
    join_u64, limits, Compression, DependencyRecord, EntryPointLayout, EntryPointRecord,
    EntryRecord, FileHeader, KeyIndexRecord, SectionKind, SectionRecord, Stage, StringPoolHeader,
    StringRef, ABSENT, ENDIAN_TAG, FLAG_COMPRESSED_INDEX, HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN,
    VERSION_MAJOR,
};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use xxhash_rust::xxh3::xxh3_64;
use zerocopy::{FromBytes, Immutable, KnownLayout};
use zstd::zstd_safe::{DCtx, DDict};

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
    key_index: Bytes,
    entry_points: Bytes,
    dependencies: Bytes,
    /// SPIR-V blob `n`, loaded at first use.
    spirv: Cells<Bytes>,
    /// Reflection blob `n`, loaded at first use.
    reflections: Cells<Box<Blob>>,
    /// The zstd dictionary, loaded at the first load that needs it.
    dictionary: Option<Lazy<Dictionary>>,
    /// Directory indices of sections of kinds this version does not know.
    unknown: Box<[u32]>,
    /// The section directory: in place in the file, or copied out of the compressed index.
    directory: Bytes,
    dir_stride: u32,
    section_count: u32,
    /// Bytes decompressed or repacked so far (bounded by `MAX_TOTAL_OWNED_SIZE`).
    owned: AtomicU64,
    /// Per entry: whether a load succeeded (its own records were checked).
    loaded: Box<[std::sync::atomic::AtomicBool]>,
    /// Code for targets other than SPIR-V: the entry-point targets table (checked at open),
    /// each code blob loaded with the first entry that uses it.
    pub(crate) targets: crate::targets::TargetTables,
    version: (u32, u32),
}

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

/// Reads a `T` from the start of `bytes` (copying), or reports truncation.
fn read_prefix<T: FromBytes>(bytes: &[u8], offset: u64, what: &str) -> Result<T> {
    T::read_from_prefix(bytes).map(|(v, _)| v).map_err(|_| {
        err(
            K::Truncated,
            offset,
            format!(
                "{what}: expected {} bytes, found {}",
                core::mem::size_of::<T>(),
                bytes.len()
            ),
        )
    })
}

fn u(x: usize) -> u64 {
    x as u64
}

thread_local! {
    /// One zstd context per thread, reused across loads (a fresh context costs more than
    /// decompressing a small frame).
    static DCTX: std::cell::RefCell<Option<DCtx<'static>>> = const { std::cell::RefCell::new(None) };
}

/// The package's zstd dictionary, prepared once for decompression.
struct Dictionary(DDict<'static>);

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Dictionary")
    }
}

/// Decompresses one zstd frame (with `dict`, if any) into `dst`, returning the number of bytes
/// produced, or zstd's message.
fn decompress(
    stored: &[u8],
    dst: &mut [u8],
    dict: Option<&DDict<'static>>,
) -> Result<usize, String> {
    let run = |d: &mut DCtx<'static>, dst: &mut [u8]| {
        match dict {
            Some(dict) => d.decompress_using_ddict(dst, stored, dict),
            None => d.decompress(dst, stored),
        }
        .map_err(|code| zstd::zstd_safe::get_error_name(code).to_owned())
    };
    let cached = DCTX.try_with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            *slot = DCtx::try_create();
        }
        Some(run(slot.as_mut()?, &mut *dst))
    });
    match cached {
        Ok(Some(result)) => result,
        // The thread is ending, or no context could be made: a fresh one.
        _ => match DCtx::try_create() {
            Some(mut d) => run(&mut d, dst),
            None => Err("cannot create a zstd context".to_owned()),
        },
    }
}

impl Package {
    /// Opens the package at `path` through a read-only memory mapping, checking its header,
    /// directory and container tables (see the type's documentation).
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) when the file cannot be opened or mapped; any
    /// error of [`Package::from_bytes`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let file = std::fs::File::open(path)
            .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))?;
        let metadata = file
            .metadata()
            .map_err(|e| Error::io(format!("cannot stat {}", path.display()), e))?;
        if !metadata.is_file() {
            // A device (`/dev/zero` reads forever), a FIFO (blocks) or a directory.
            return Err(Error::new(
                crate::ErrorKind::Io,
                0,
                format!("{} is not a regular file", path.display()),
            ));
        }
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
        #[allow(
            unsafe_code,
            reason = "memory-mapping a file is unsafe; the one such call"
        )]
        // SAFETY: `Mmap::map` is unsafe because the mapped file may be modified or truncated
        // by another process while mapped, which would change bytes this reader already
        // validated (or raise SIGBUS on truncation). Nothing in Rust can prevent that; we
        // require, as documented on this function and in the README's threat model, that
        // package files are replaced by writing a new file and renaming it over the old one
        // (what the slangpack writer does), never modified in place. The mapping is
        // read-only and private to this `Package`.
        let map = unsafe { memmap2::Mmap::map(&file) }
            .map_err(|e| Error::io(format!("cannot map {}", path.display()), e))?;
        Self::parse(Storage::Mapped(map))
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

    fn parse(storage: Storage) -> Result<Self> {
        if cfg!(target_endian = "big") {
            return Err(err(
                K::BigEndianHost,
                0,
                "packages are little-endian and this reader views them in place; big-endian hosts are not supported",
            ));
        }
        let file = storage.bytes();
        let header = parse_header(file)?;
        let index = directory(file, &header)?;
        let index_bytes = index.bytes.get(file);
        let dir_stride = header.section_record_size;
        let dir_len = header.section_count as usize * dir_stride as usize;
        let dir = index_bytes.get(..dir_len).unwrap_or(&[]);
        check_layout(file, &header, &index, dir, index_bytes, Padding::Unchecked)?;

        // Where each container section is, in the order of `SectionKind::CONTAINERS`.
        let mut singles = [None; SectionKind::CONTAINERS.len()];
        // Where the blobs lie: a few words per run of consecutive sections, nothing per blob.
        let mut spirv = CellsBuilder::default();
        let mut reflections = CellsBuilder::default();
        let mut unknown = Vec::new();
        let mut dictionary: Option<usize> = None;
        let mut target_raw = crate::targets::RawTargetSections::default();
        let mut uses_dictionary = false;
        let mut decompressed = if index.compressed {
            u(index_bytes.len())
        } else {
            0
        };
        // One budget rule for every section kind: the raw sizes of all compressed sections
        // together fit the owned budget, checked here, before anything is decompressed.
        let mut charge = |i: usize, rec: &SectionRecord| -> Result<()> {
            if rec.compression_kind() == Compression::None {
                return Ok(());
            }
            decompressed = decompressed.saturating_add(rec.raw_size());
            if decompressed > limits::MAX_TOTAL_OWNED_SIZE {
                return Err(err(
                    K::LimitExceeded,
                    rec.offset(),
                    format!(
                        "section {i}: decompressed sections would reach {decompressed} bytes, limit {}",
                        limits::MAX_TOTAL_OWNED_SIZE
                    ),
                ));
            }
            Ok(())
        };
        for (i, rec) in records(dir, dir_stride).enumerate() {
            let offset = rec.offset();
            let kind = rec.section_kind();
            let slot = match kind {
                SectionKind::Spirv | SectionKind::Reflection => None,
                SectionKind::TargetCode | SectionKind::EntryPointTargets => {
                    // Code for further targets: its blobs are loaded with the entries.
                    check_sizes(i, rec)?;
                    if rec.compression_kind() == Compression::ZstdDictionary {
                        return Err(err(
                            K::UnsupportedCompression,
                            offset,
                            format!(
                                "section {i}: target code is not compressed with the dictionary"
                            ),
                        ));
                    }
                    charge(i, rec)?;
                    target_raw.add(i, rec)?;
                    continue;
                }
                SectionKind::Dictionary => {
                    check_sizes(i, rec)?;
                    if rec.compression_kind() == Compression::ZstdDictionary {
                        return Err(err(
                            K::UnsupportedCompression,
                            offset,
                            format!("section {i}: a dictionary compressed with itself"),
                        ));
                    }
                    if dictionary.replace(i).is_some() {
                        return Err(err(
                            K::Duplicate,
                            offset,
                            format!("section {i}: a second dictionary section"),
                        ));
                    }
                    charge(i, rec)?;
                    continue;
                }
                _ => match kind.container_slot() {
                    Some(slot) => Some(slot),
                    // A sharded bake's plan slice, read on request (`Package::shard_plan`), or
                    // a newer minor version's section: its checksum is checked by verify_all.
                    None => {
                        unknown.push(i as u32);
                        continue;
                    }
                },
            };
            check_sizes(i, rec)?;
            if rec.compression_kind() == Compression::ZstdDictionary {
                if slot.is_some() {
                    return Err(err(
                        K::UnsupportedCompression,
                        offset,
                        format!("section {i}: container sections are not compressed with the dictionary"),
                    ));
                }
                uses_dictionary = true;
            }
            charge(i, rec)?;
            match slot {
                Some(s) => {
                    if singles[s].replace(i).is_some() {
                        return Err(err(
                            K::Duplicate,
                            offset,
                            format!("section {i}: a second {kind:?} section"),
                        ));
                    }
                }
                None if kind == SectionKind::Spirv => {
                    if rec.raw_size() % 4 != 0 {
                        return Err(err(
                            K::SizeMismatch,
                            offset,
                            format!(
                                "section {i}: SPIR-V size {} is not a multiple of 4",
                                rec.raw_size()
                            ),
                        ));
                    }
                    spirv.push(i);
                }
                None => reflections.push(i),
            }
        }
        let need = |s: Option<usize>, kind: SectionKind| {
            s.ok_or_else(|| {
                err(
                    K::MissingSection,
                    0,
                    format!("no {kind:?} section (required)"),
                )
            })
        };
        if uses_dictionary && dictionary.is_none() {
            return Err(err(
                K::MissingSection,
                0,
                "sections are compressed with a dictionary but there is no dictionary section",
            ));
        }
        let mut containers = [0; SectionKind::CONTAINERS.len()];
        for ((found, slot), kind) in containers
            .iter_mut()
            .zip(singles)
            .zip(SectionKind::CONTAINERS)
        {
            *found = need(slot, kind)?;
        }
        let [strings, entries, key_index, entry_points, dependencies] = containers;

        let owned = AtomicU64::new(if index.compressed {
            u(index_bytes.len())
        } else {
            0
        });
        let reserve = |size: u64| reserve(&owned, size, 0);
        let record = |i: usize| record_at(dir, dir_stride, i);
        let load = |i: usize| {
            let rec = record(i);
            if index.compressed && rec.section_kind().is_container() {
                // In the index (uncompressed there, checked by check_layout): checksummed and
                // copied out, so that the index itself is not kept.
                check_checksum(index_bytes, i, &rec)?;
                let bytes = stored_bytes(index_bytes, &rec);
                reserve(u(bytes.len()))?;
                let words = owned_words(bytes.len(), |d| d.copy_from_slice(bytes));
                Ok(Bytes::Owned {
                    words,
                    len: bytes.len(),
                })
            } else {
                section_bytes(file, i, &rec, &reserve, None)
            }
        };
        let table = |i: usize, size: usize, what: &str| -> Result<Bytes> {
            let rec = record(i);
            repack(
                file,
                load(i)?,
                &rec,
                size,
                &format!("section {i} ({what})"),
                &reserve,
            )
        };

        // Package string pool.
        let (strings_raw, strings_text_at, string_refs) = {
            let off = record(strings).offset();
            let raw = load(strings)?;
            let bytes = raw.get(file);
            let what = format!("section {strings} (strings)");
            let h: StringPoolHeader = read_prefix(bytes, off, &what)
                .map_err(|e| err(K::BadString, e.offset(), e.message().to_owned()))?;
            let refs_len = u64::from(h.count) * 8;
            if 8 + refs_len + u64::from(h.byte_len) != u(bytes.len()) {
                return Err(err(
                    K::BadString,
                    off,
                    format!(
                        "{what}: {} strings and {} bytes do not fill {} bytes",
                        h.count,
                        h.byte_len,
                        bytes.len()
                    ),
                ));
            }
            let refs_bytes = bytes.get(8..8 + refs_len as usize).unwrap_or(&[]);
            let text_bytes = bytes.get(8 + refs_len as usize..).unwrap_or(&[]);
            let refs: &[StringRef] = cast(refs_bytes);
            crate::blob::check_strings(refs, text_bytes, |kind, detail| {
                err(kind, off, format!("{what}: {detail}"))
            })?;
            // The references, 8-aligned on their own (they follow an 8-byte header).
            let refs = match raw {
                Bytes::File { start, .. } => Bytes::File {
                    start: start + 8,
                    end: start + 8 + refs_len as usize,
                },
                Bytes::Owned { .. } => {
                    let words = owned_words(refs_bytes.len(), |d| d.copy_from_slice(refs_bytes));
                    Bytes::Owned {
                        words,
                        len: refs_bytes.len(),
                    }
                }
            };
            (raw, 8 + refs_len as usize, refs)
        };

        let entries_loc = table(entries, size_of::<EntryRecord>(), "entries")?;
        let key_index_loc = table(key_index, size_of::<KeyIndexRecord>(), "key index")?;
        let entry_points_loc = table(entry_points, size_of::<EntryPointRecord>(), "entry points")?;
        let dependencies_loc = table(dependencies, size_of::<DependencyRecord>(), "dependencies")?;
        let targets = target_raw.finish(file, &|i| load(i), &reserve)?;
        let entries_off = record(entries).offset();
        let key_index_off = record(key_index).offset();
        let owned_so_far = owned.load(Ordering::Relaxed);
        let directory = match index.bytes {
            Bytes::Owned { .. } => Bytes::Owned {
                words: owned_words(dir.len(), |d| d.copy_from_slice(dir)),
                len: dir.len(),
            },
            file_range => file_range,
        };
        let package = Package {
            storage,
            strings: strings_raw,
            strings_text_at,
            string_refs,
            entries: entries_loc,
            key_index: key_index_loc,
            entry_points: entry_points_loc,
            dependencies: dependencies_loc,
            spirv: spirv.finish(),
            reflections: reflections.finish(),
            dictionary: dictionary.map(Lazy::new),
            unknown: unknown.into_boxed_slice(),
            directory,
            dir_stride,
            section_count: header.section_count,
            owned: AtomicU64::new(owned_so_far),
            loaded: Box::new([]),
            targets,
            version: (header.version_major, header.version_minor),
        };
        package.check_key_index(entries_off, key_index_off)?;
        let package = Package {
            loaded: (0..package.len())
                .map(|_| std::sync::atomic::AtomicBool::new(false))
                .collect(),
            ..package
        };
        package.check_targets(package.string_count())?;
        Ok(package)
    }

    /// The checks of the container tables made at open: every entry's key is a package string,
    /// and the key index is sorted, complete and agrees with the entries' key hashes.
    fn check_key_index(&self, entries_off: u64, index_off: u64) -> Result<()> {
        let entries = self.entry_records();
        let index = self.key_index_records();
        let string_count = self.string_count();
        if let Some(i) = entries.iter().position(|e| e.key >= string_count) {
            return Err(err(
                K::IndexOutOfRange,
                entries_off,
                format!("entry {i}: key string {} out of range", entries[i].key),
            ));
        }
        if index.len() != entries.len() {
            return Err(err(
                K::BadKeyIndex,
                index_off,
                format!(
                    "key index has {} records for {} entries",
                    index.len(),
                    entries.len()
                ),
            ));
        }
        let mut last: Option<(u64, u32)> = None;
        for (i, k) in index.iter().enumerate() {
            let hash = join_u64(k.hash_lo, k.hash_hi);
            let matches = entries
                .get(k.entry as usize)
                .is_some_and(|e| join_u64(e.key_hash_lo, e.key_hash_hi) == hash);
            if !matches || last.is_some_and(|l| l >= (hash, k.entry)) {
                return Err(err(
                    K::BadKeyIndex,
                    index_off,
                    format!("key index record {i} is out of order or names the wrong entry"),
                ));
            }
            last = Some((hash, k.entry));
        }
        Ok(())
    }

    /// The checks of one entry's container records made at its load: its key's hash and order,
    /// its ranges of entry points and dependencies, their strings and SPIR-V indices.
    fn check_entry(&self, i: usize, e: &EntryRecord) -> Result<()> {
        let off = || self.section_offset_of(SectionKind::Entries);
        let string_count = self.string_count();
        let key = self.string_bytes(e.key);
        if xxh3_64(key) != join_u64(e.key_hash_lo, e.key_hash_hi) {
            return Err(err(
                K::BadKeyIndex,
                off(),
                format!(
                    "entry {i}: key hash does not match key {:?}",
                    String::from_utf8_lossy(key)
                ),
            ));
        }
        let previous = i
            .checked_sub(1)
            .and_then(|p| self.entry_records().get(p))
            .map(|p| self.string_bytes(p.key));
        if previous.is_some_and(|p| p >= key) {
            return Err(err(
                K::BadKeyIndex,
                off(),
                format!(
                    "entry {i}: keys not strictly sorted at {:?}",
                    String::from_utf8_lossy(key)
                ),
            ));
        }
        if e.reflection != ABSENT && e.reflection as usize >= self.reflections.len() {
            return Err(err(
                K::IndexOutOfRange,
                off(),
                format!("entry {i}: reflection blob {} out of range", e.reflection),
            ));
        }
        let eps = self.entry_point_records();
        let deps = self.dependency_records();
        let range = |first: u32, count: u32, len: usize| {
            let end = u64::from(first) + u64::from(count);
            (end <= u(len)).then_some(first as usize..end as usize)
        };
        let Some(ep_range) = range(e.entry_point_first, e.entry_point_count, eps.len()) else {
            return Err(err(
                K::IndexOutOfRange,
                off(),
                format!(
                    "entry {i}: entry points {}+{} out of range",
                    e.entry_point_first, e.entry_point_count
                ),
            ));
        };
        let Some(dep_range) = range(e.dependency_first, e.dependency_count, deps.len()) else {
            return Err(err(
                K::IndexOutOfRange,
                off(),
                format!(
                    "entry {i}: dependencies {}+{} out of range",
                    e.dependency_first, e.dependency_count
                ),
            ));
        };
        let ep_off = || self.section_offset_of(SectionKind::EntryPoints);
        for (j, ep) in eps.get(ep_range.clone()).unwrap_or(&[]).iter().enumerate() {
            let j = ep_range.start + j;
            if ep.name >= string_count || ep.spirv_entry_name >= string_count {
                return Err(err(
                    K::IndexOutOfRange,
                    ep_off(),
                    format!("entry point {j}: name string out of range"),
                ));
            }
            if ep.spirv as usize >= self.spirv.len() {
                return Err(err(
                    K::IndexOutOfRange,
                    ep_off(),
                    format!("entry point {j}: SPIR-V blob {} out of range", ep.spirv),
                ));
            }
        }
        let dep_off = || self.section_offset_of(SectionKind::Dependencies);
        for (j, d) in deps
            .get(dep_range.clone())
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            if d.path >= string_count {
                return Err(err(
                    K::IndexOutOfRange,
                    dep_off(),
                    format!(
                        "dependency {}: path string {} out of range",
                        dep_range.start + j,
                        d.path
                    ),
                ));
            }
        }
        Ok(())
    }

    fn dir_record(&self, i: usize) -> SectionRecord {
        record_at(self.directory.get(self.storage.bytes()), self.dir_stride, i)
    }

    fn section_total(&self) -> usize {
        self.section_count as usize
    }

    /// File offset of the first section of `kind` (for error offsets; 0 when none).
    #[cold]
    fn section_offset_of(&self, kind: SectionKind) -> u64 {
        (0..self.section_total())
            .map(|i| self.dir_record(i))
            .find(|r| r.section_kind() == kind)
            .map_or(0, |r| r.offset())
    }

    /// Reflection blob `n`, loaded (checksum, decompression, validation) at its first use.
    fn reflection(&self, n: usize) -> Result<&Blob> {
        let loaded = self.reflections.get_or_load(n, |i| {
            let file = self.storage.bytes();
            let rec = self.dir_record(i);
            let reserve = |size: u64| reserve(&self.owned, size, rec.offset());
            let dict = self.dictionary_for(&rec)?;
            let bytes = section_bytes(file, i, &rec, &reserve, dict)?;
            let at = Where {
                section: i,
                offset: rec.offset(),
            };
            load_blob(file, bytes, at, &reserve).map(Box::new)
        });
        match loaded {
            Some(blob) => blob.map(|b| &**b),
            None => Ok(&EMPTY_BLOB),
        }
    }

    /// Section `i` (of the directory) as stored, checksummed and decompressed (with the
    /// dictionary if it uses it), counted against the package's limit on owned bytes.
    pub(crate) fn load_section(&self, i: usize) -> Result<Bytes> {
        let rec = self.dir_record(i);
        let reserve = |size: u64| reserve(&self.owned, size, rec.offset());
        let dict = self.dictionary_for(&rec)?;
        section_bytes(self.storage.bytes(), i, &rec, &reserve, dict)
    }

    /// Section `i` checksummed and, when compressed, decompressed straight into the buffer
    /// returned (text code becomes the `String` it is served as without another copy); stored
    /// uncompressed, copied. Either way counted once against the owned budget.
    pub(crate) fn load_section_vec(&self, i: usize) -> Result<Vec<u8>> {
        let rec = self.dir_record(i);
        let file = self.storage.bytes();
        check_checksum(file, i, &rec)?;
        let offset = rec.offset();
        let stored = stored_bytes(file, &rec);
        match rec.compression_kind() {
            Compression::Zstd | Compression::ZstdDictionary => {
                let dict = self.dictionary_for(&rec)?;
                let len = rec.raw_size() as usize;
                self.reserve_owned(len as u64, offset)?;
                let mut out = vec![0u8; len];
                match decompress(stored, &mut out, dict) {
                    Ok(n) if n == len => Ok(out),
                    Ok(n) => Err(err(
                        K::SizeMismatch,
                        offset,
                        format!("section {i} decompressed to {n} bytes, declared {len}"),
                    )),
                    Err(e) => Err(err(
                        K::Decompress,
                        offset,
                        format!("section {i}: zstd: {e}"),
                    )),
                }
            }
            // Unknown compressions were refused at open.
            _ => {
                self.reserve_owned(u(stored.len()), offset)?;
                Ok(stored.to_vec())
            }
        }
    }

    /// The directory record of section `i`.
    pub(crate) fn section_record(&self, i: usize) -> SectionRecord {
        self.dir_record(i)
    }

    /// Counts `size` more owned bytes against the package's limit (error offset `offset`).
    pub(crate) fn reserve_owned(&self, size: u64, offset: u64) -> Result<()> {
        reserve(&self.owned, size, offset)
    }

    /// SPIR-V blob `n`, loaded (checksum, decompression) at its first use.
    fn spirv_module(&self, n: usize) -> Result<&Bytes> {
        let loaded = self.spirv.get_or_load(n, |i| self.load_section(i));
        loaded.unwrap_or(Ok(&Bytes::EMPTY))
    }

    /// The dictionary, when `rec` is compressed with it (loaded at the first such use: checksum,
    /// decompression, zstd's own checks of the dictionary).
    fn dictionary_for(&self, rec: &SectionRecord) -> Result<Option<&DDict<'static>>> {
        if rec.compression_kind() != Compression::ZstdDictionary {
            return Ok(None);
        }
        let Some(slot) = &self.dictionary else {
            return Ok(None); // refused at open
        };
        let dict = slot.get_or_load(|i| {
            let rec = self.dir_record(i);
            let reserve = |size: u64| reserve(&self.owned, size, rec.offset());
            let bytes = section_bytes(self.storage.bytes(), i, &rec, &reserve, None)?;
            DDict::try_create(bytes.get(self.storage.bytes()))
                .map(Dictionary)
                .ok_or_else(|| {
                    err(
                        K::Decompress,
                        rec.offset(),
                        format!("section {i}: zstd refuses the dictionary"),
                    )
                })
        })?;
        Ok(Some(&dict.0))
    }

    /// Loads entry `key`: finds it through the key index, then checksums, decompresses and
    /// validates its reflection blob and SPIR-V modules unless an earlier load did. After
    /// this, nothing the [`Entry`] gives can fail.
    ///
    /// Cost of a later load of the same entry: the key lookup (one xxh3 of `key`, a binary
    /// search) and a few range checks; no allocation.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when no entry has this key; else
    /// the first check the entry's sections fail (the same error on every later call).
    pub fn load(&self, key: &str) -> Result<Entry<'_>> {
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
        let Some(record) = self.entry_records().get(index) else {
            return Err(err(
                K::NotFound,
                0,
                format!("no entry {index}: the package has {}", self.len()),
            ));
        };
        self.check_entry(index, record)?;
        let blob = if record.reflection == ABSENT {
            &EMPTY_BLOB
        } else {
            self.reflection(record.reflection as usize)?
        };
        let entry_points = blob_view_entry_points(self, blob);
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
        if let Some(flag) = self.loaded.get(index) {
            flag.store(true, Ordering::Release);
        }
        Ok(Entry {
            package: self,
            record,
            index,
            blob,
        })
    }

    /// Entry `index` if an earlier [`Package::load`] or [`Package::load_at`] of it succeeded
    /// (no check, no hashing: for handles that keep an index, as the C API does); `None`
    /// otherwise.
    #[must_use]
    pub fn loaded_at(&self, index: usize) -> Option<Entry<'_>> {
        if !self.loaded.get(index)?.load(Ordering::Acquire) {
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

    /// The index of the entry whose key is `key`, without loading it.
    ///
    /// Cost: one xxh3 hash of `key`, a binary search of the key index (O(log n)), and a string
    /// comparison per entry sharing the hash (normally one). No allocation.
    #[must_use]
    pub fn find(&self, key: &str) -> Option<usize> {
        let hash = xxh3_64(key.as_bytes());
        let index = self.key_index_records();
        let start = index.partition_point(|k| join_u64(k.hash_lo, k.hash_hi) < hash);
        index
            .get(start..)?
            .iter()
            .take_while(|k| join_u64(k.hash_lo, k.hash_hi) == hash)
            .map(|k| k.entry as usize)
            .find(|&i| {
                self.entry_records()
                    .get(i)
                    .is_some_and(|e| self.string_bytes(e.key) == key.as_bytes())
            })
    }

    /// The key of entry `index` (without loading it), or `None` when out of range.
    #[must_use]
    pub fn key_at(&self, index: usize) -> Option<&str> {
        self.entry_records().get(index).map(|e| self.string(e.key))
    }

    /// Every entry's key, in key order, without loading anything.
    #[must_use]
    pub fn keys(&self) -> KeyIter<'_> {
        KeyIter {
            package: self,
            records: self.entry_records().iter(),
        }
    }

    /// Whether entry `index` has been loaded successfully (by [`Package::load`],
    /// [`Package::load_at`] or [`Package::verify_all`]): its own records were checked and its
    /// reflection, SPIR-V and further targets' code are cached. An entry that was never loaded
    /// is not, even when another entry's load cached the sections it shares with it.
    #[must_use]
    pub fn is_loaded(&self, index: usize) -> bool {
        self.loaded
            .get(index)
            .is_some_and(|flag| flag.load(Ordering::Acquire))
    }

    /// Checks everything: checksums sections of kinds this version does not know, loads the
    /// dictionary, every reflection blob and SPIR-V module in directory order (also those no
    /// entry uses), every code blob of further targets, then every entry. What it loads stays
    /// loaded.
    ///
    /// # Errors
    /// The first check that fails, in the order above.
    pub fn verify_all(&self) -> Result<()> {
        // Zero padding (SPEC.md 4.3 rule 2) reads the bytes between all sections, every page
        // of the file, so open leaves it to the full check.
        let file = self.storage.bytes();
        let header = parse_header(file)?;
        let index = directory(file, &header)?;
        let index_bytes = index.bytes.get(file);
        let dir_len = header.section_count as usize * header.section_record_size as usize;
        let dir = index_bytes.get(..dir_len).unwrap_or(&[]);
        check_layout(file, &header, &index, dir, index_bytes, Padding::Checked)?;
        for &i in self.unknown.iter() {
            let rec = self.dir_record(i as usize);
            check_checksum(self.storage.bytes(), i as usize, &rec)?;
        }
        if let Some(slot) = &self.dictionary {
            let mut rec = self.dir_record(slot.section as usize);
            rec.compression = Compression::ZstdDictionary.to_raw();
            self.dictionary_for(&rec)?;
        }
        // Blobs and modules in directory order (the first damaged section is the one reported,
        // and nothing after it is decompressed), then every entry's own checks.
        let (mut r, mut s) = (0, 0);
        while r < self.reflections.len() || s < self.spirv.len() {
            let next_r = self.reflections.section(r).unwrap_or(usize::MAX);
            let next_s = self.spirv.section(s).unwrap_or(usize::MAX);
            if next_r < next_s {
                self.reflection(r)?;
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
        self.entry_point_records()
            .iter()
            .map(|ep| self.string(ep.spirv_entry_name))
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

    /// The bytes of package string `index` (`&[]` when absent or out of range).
    fn string_bytes(&self, index: u32) -> &[u8] {
        let refs: &[StringRef] = self.table(&self.string_refs);
        let text = self
            .strings
            .get(self.file())
            .get(self.strings_text_at..)
            .unwrap_or(&[]);
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

    /// Whether the package is served from a memory mapping ([`Package::open`]).
    #[must_use]
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped(_))
    }

    /// The whole package file.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entry_records().len()
    }

    /// Whether the package has no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of distinct SPIR-V modules stored.
    #[must_use]
    pub fn spirv_count(&self) -> usize {
        self.spirv.len()
    }

    /// Number of distinct reflection blobs stored.
    #[must_use]
    pub fn reflection_count(&self) -> usize {
        self.reflections.len()
    }

    /// The section directory, in directory order: each section's kind, compression, stored
    /// and raw sizes (the known prefix of each record; checked at open as SPEC.md section 10
    /// says, the sections' contents only when loaded).
    pub fn sections(&self) -> impl ExactSizeIterator<Item = SectionRecord> + '_ {
        (0..self.section_total()).map(|i| self.dir_record(i))
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
            .map_or(&[], |bytes| cast(bytes.get(self.storage.bytes())))
    }
}

fn blob_view_entry_points(package: &Package, blob: &Blob) -> usize {
    ReflectionView::new(package.file(), blob, 0)
        .entry_points()
        .len()
}

#[cold]
fn not_found(key: &str) -> Error {
    err(K::NotFound, 0, format!("no entry with key {key:?}"))
}

/// Takes `size` bytes from the owned budget `owned`.
fn reserve(owned: &AtomicU64, size: u64, offset: u64) -> Result<()> {
    owned
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |total| {
            total
                .checked_add(size)
                .filter(|&t| t <= limits::MAX_TOTAL_OWNED_SIZE)
        })
        .map(|_| ())
        .map_err(|total| {
            err(
                K::LimitExceeded,
                offset,
                format!(
                    "owned bytes would exceed {} (already {total}, {size} more)",
                    limits::MAX_TOTAL_OWNED_SIZE
                ),
            )
        })
}

/// The directory records (their known prefix), in order.
/// The directory's records, viewed in place (the directory is 8-aligned and its stride a
/// multiple of 4, checked at open; a record that could not be viewed reads as zeros).
fn records(dir: &[u8], stride: u32) -> impl Iterator<Item = &SectionRecord> + '_ {
    static ZERO: SectionRecord = SectionRecord {
        kind: 0,
        compression: 0,
        offset_lo: 0,
        offset_hi: 0,
        stored_size_lo: 0,
        stored_size_hi: 0,
        raw_size_lo: 0,
        raw_size_hi: 0,
        hash_lo: 0,
        hash_hi: 0,
        record_stride: 0,
        record_count: 0,
    };
    // The 1.x stride: one slice. A wider one (a newer minor version): each record's prefix.
    let (exact, wider) = match <[SectionRecord]>::ref_from_bytes(dir) {
        Ok(all) if stride as usize == size_of::<SectionRecord>() => (all, &[][..]),
        _ => (&[][..], dir),
    };
    exact.iter().chain(
        wider
            .chunks_exact((stride as usize).max(1))
            .map(|r| SectionRecord::ref_from_prefix(r).map_or(&ZERO, |(v, _)| v)),
    )
}

fn record_at(dir: &[u8], stride: u32, i: usize) -> SectionRecord {
    let start = i.saturating_mul(stride as usize);
    dir.get(start..)
        .and_then(|r| SectionRecord::read_from_prefix(r).ok())
        .map_or_else(SectionRecord::default, |(v, _)| v)
}

/// Validates the fixed header fields.
fn parse_header(file: &[u8]) -> Result<FileHeader> {
    let prefix = file.get(..MAGIC.len()).unwrap_or(file);
    if prefix != MAGIC.get(..prefix.len()).unwrap_or(&MAGIC) {
        return Err(err(
            K::BadMagic,
            0,
            format!("expected magic {:?}", "SLANGPK\\0"),
        ));
    }
    let header: FileHeader = read_prefix(file, 0, "file header")?;
    if header.version_major != VERSION_MAJOR {
        return Err(err(
            K::UnsupportedVersion,
            8,
            format!(
                "package format version {}.{}, this reader supports {VERSION_MAJOR}.x",
                header.version_major, header.version_minor
            ),
        ));
    }
    if header.endian_tag != ENDIAN_TAG {
        let what = if header.endian_tag == ENDIAN_TAG.swap_bytes() {
            "the package was written big-endian"
        } else {
            "unrecognised endianness tag"
        };
        return Err(err(
            K::BadEndianTag,
            24,
            format!("{what}: expected 0x0a0b0c0d"),
        ));
    }
    let hash = xxh3_64(file.get(..HEADER_HASHED_LEN).unwrap_or(&[]));
    if hash != join_u64(header.header_hash_lo, header.header_hash_hi) {
        return Err(err(K::ChecksumMismatch, 0, "file header checksum mismatch"));
    }
    let header_size = u64::from(header.header_size);
    if header_size < u(core::mem::size_of::<FileHeader>())
        || header.header_size > limits::MAX_HEADER_SIZE
        || header_size > u(file.len())
        || header_size % SECTION_ALIGN != 0
    {
        return Err(err(
            K::BadHeader,
            16,
            format!("header size {} is invalid", header.header_size),
        ));
    }
    let file_size = join_u64(header.file_size_lo, header.file_size_hi);
    if file_size > limits::MAX_FILE_SIZE {
        return Err(err(
            K::LimitExceeded,
            48,
            format!(
                "file size {file_size} exceeds the limit {}",
                limits::MAX_FILE_SIZE
            ),
        ));
    }
    if file_size > u(file.len()) {
        return Err(err(
            K::Truncated,
            u(file.len()),
            format!("file is {} bytes, header says {file_size}", file.len()),
        ));
    }
    if file_size < u(file.len()) {
        return Err(err(
            K::BadHeader,
            48,
            format!("file is {} bytes, header says {file_size}", file.len()),
        ));
    }
    Ok(header)
}

/// The section directory as found: the bytes it occupies in the file, and the directory
/// (followed, in a compressed index, by the container sections).
struct Index {
    /// File offset of the directory, or of the compressed index's frame.
    start: u64,
    /// End of what `start` begins in the file.
    end: u64,
    /// The directory in place (a range of the file), or the decompressed index.
    bytes: Bytes,
    /// Whether the directory comes from a compressed index (SPEC.md 4.4).
    compressed: bool,
}

/// The section directory, after checking its bounds and checksum; in a package with a
/// compressed index, the index decompressed (its declared size bounded first).
fn directory(file: &[u8], header: &FileHeader) -> Result<Index> {
    let known = core::mem::size_of::<SectionRecord>() as u32;
    let stride = header.section_record_size;
    if stride < known || stride % 4 != 0 || stride > limits::MAX_RECORD_STRIDE {
        return Err(err(
            K::BadStride,
            32,
            format!("section record size {stride}, expected at least {known}"),
        ));
    }
    if header.section_count > limits::MAX_SECTIONS {
        return Err(err(
            K::LimitExceeded,
            28,
            format!(
                "{} sections, limit {}",
                header.section_count,
                limits::MAX_SECTIONS
            ),
        ));
    }
    let offset = join_u64(header.section_dir_offset_lo, header.section_dir_offset_hi);
    if offset % SECTION_ALIGN != 0 {
        return Err(err(
            K::Misaligned,
            40,
            format!("section directory offset {offset:#x} is not a multiple of 8"),
        ));
    }
    if offset < u64::from(header.header_size) {
        return Err(err(
            K::Overlap,
            40,
            "section directory overlaps the file header",
        ));
    }
    let len = u64::from(header.section_count) * u64::from(stride);
    let compressed = header.flags & FLAG_COMPRESSED_INDEX != 0;
    let stored_len = if compressed {
        u64::from(header.index_size)
    } else {
        len
    };
    let what = if compressed {
        "compressed index"
    } else {
        "section directory"
    };
    let stored = offset
        .checked_add(stored_len)
        .and_then(|end| file.get(offset as usize..end as usize))
        .ok_or_else(|| {
            err(
                K::OutOfBounds,
                offset,
                format!("{what} ({stored_len} bytes) extends past the end of the file"),
            )
        })?;
    if xxh3_64(stored) != join_u64(header.dir_hash_lo, header.dir_hash_hi) {
        return Err(err(
            K::ChecksumMismatch,
            offset,
            format!("{what} checksum mismatch"),
        ));
    }
    let end = offset + stored_len;
    if !compressed {
        let bytes = Bytes::File {
            start: offset as usize,
            end: end as usize,
        };
        return Ok(Index {
            start: offset,
            end,
            bytes,
            compressed,
        });
    }
    // The index's size is the frame's declared content size, bounded before allocating.
    let raw = zstd::zstd_safe::get_frame_content_size(stored)
        .ok()
        .flatten()
        .ok_or_else(|| {
            err(
                K::Decompress,
                offset,
                "the compressed index does not declare its size",
            )
        })?;
    if raw > limits::MAX_SECTION_RAW_SIZE || raw < len {
        return Err(err(
            K::LimitExceeded,
            offset,
            format!(
                "compressed index of {raw} bytes: at least the directory's {len}, at most {}",
                limits::MAX_SECTION_RAW_SIZE
            ),
        ));
    }
    let raw = raw as usize;
    let words = decompress_exact(stored, raw, None, offset, "compressed index")?;
    Ok(Index {
        start: offset,
        end,
        bytes: Bytes::Owned { words, len: raw },
        compressed,
    })
}

/// Decompresses the frame `stored` (of `what`, at file offset `offset`) into an owned
/// 8-aligned buffer, which it must fill exactly: `len` bytes.
fn decompress_exact(
    stored: &[u8],
    len: usize,
    dict: Option<&DDict<'static>>,
    offset: u64,
    what: &str,
) -> Result<Box<[u64]>> {
    let mut result = Ok(0);
    let words = owned_words(len, |dst| result = decompress(stored, dst, dict));
    match result {
        Ok(n) if n == len => Ok(words),
        Ok(n) => Err(err(
            K::SizeMismatch,
            offset,
            format!("{what} decompressed to {n} bytes, declared {len}"),
        )),
        Err(e) => Err(err(K::Decompress, offset, format!("{what}: zstd: {e}"))),
    }
}

/// Whether [`check_layout`] reads the bytes between regions to check that they are zero.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Padding {
    /// At open: the check needs only the directory, no page of the file beyond it.
    Unchecked,
    /// In the full check.
    Checked,
}

/// Checks every section's alignment and bounds and that nothing overlaps, and with
/// [`Padding::Checked`] that every byte between the directory, the sections and the end of the
/// file is zero; in a compressed index, that the container sections fill the index after the
/// directory, back to back. Linear when the sections are in file order (as writers place
/// them), else it sorts.
fn check_layout(
    file: &[u8],
    header: &FileHeader,
    index: &Index,
    dir: &[u8],
    index_bytes: &[u8],
    padding: Padding,
) -> Result<()> {
    let stride = header.section_record_size;
    // Each section on its own, in directory order; and whether the sections outside the
    // index follow each other in the file, clear of the header and the directory (what a
    // writer makes), in which case no two regions can overlap.
    let mut in_order = true;
    let mut previous_end = u64::from(header.header_size);
    let mut in_index = u(dir.len());
    for (i, rec) in records(dir, stride).enumerate() {
        let start = rec.offset();
        if index.compressed && rec.section_kind().is_container() {
            if rec.compression_kind() != Compression::None {
                return Err(err(
                    K::UnsupportedCompression,
                    start,
                    format!(
                        "section {i} lies in the compressed index and is stored uncompressed there"
                    ),
                ));
            }
            if start != in_index {
                return Err(err(
                    K::Overlap,
                    start,
                    format!("section {i} starts at {start} of the compressed index, expected {in_index}"),
                ));
            }
            in_index = start.saturating_add(rec.stored_size());
            if in_index > u(index_bytes.len()) {
                return Err(err(
                    K::OutOfBounds,
                    start,
                    format!(
                        "section {i} ({} bytes) extends past the end of the compressed index",
                        rec.stored_size()
                    ),
                ));
            }
            continue;
        }
        let end = file_range(file, i, rec)?;
        in_order &= start >= previous_end && (end <= index.start || start >= index.end);
        previous_end = end;
    }
    if index.compressed && in_index != u(index_bytes.len()) {
        return Err(err(
            K::SizeMismatch,
            index.start,
            format!(
                "the compressed index holds {} bytes, its directory and sections {in_index}",
                index_bytes.len()
            ),
        ));
    }
    if in_order && padding == Padding::Unchecked {
        return Ok(());
    }
    // Every region sorted by place: overlaps, and with `Padding::Checked` the gaps.
    let mut ranges = Vec::with_capacity(dir.len() / stride as usize + 2);
    ranges.push((0, u64::from(header.header_size), usize::MAX));
    ranges.push((index.start, index.end, usize::MAX));
    for (i, rec) in records(dir, stride).enumerate() {
        if !(index.compressed && rec.section_kind().is_container()) {
            ranges.push((rec.offset(), file_range(file, i, rec)?, i));
        }
    }
    if !ranges.is_sorted() {
        ranges.sort_unstable();
    }
    let mut cursor = 0u64;
    for &(start, end, i) in &ranges {
        if start < cursor {
            let what = if i == usize::MAX {
                "the section directory".to_owned()
            } else {
                format!("section {i}")
            };
            return Err(err(
                K::Overlap,
                start,
                format!("{what} overlaps the previous region"),
            ));
        }
        if padding == Padding::Checked {
            check_zero(file, cursor, start)?;
        }
        cursor = end;
    }
    match padding {
        Padding::Checked => check_zero(file, cursor, u(file.len())),
        Padding::Unchecked => Ok(()),
    }
}

/// The end of section `i` in the file, after checking that it lies within the file and, when
/// viewed in place (not a zstd frame, which is only ever decompressed), is 8-aligned.
#[inline]
fn file_range(file: &[u8], i: usize, rec: &SectionRecord) -> Result<u64> {
    let start = rec.offset();
    match start.checked_add(rec.stored_size()) {
        Some(end) if end <= u(file.len()) && aligned_if_viewed(rec) => Ok(end),
        _ => range_error(file, i, rec),
    }
}

/// Whether a section viewed in place starts 8-aligned (a zstd frame is only ever
/// decompressed, so it may start anywhere).
#[inline]
fn aligned_if_viewed(rec: &SectionRecord) -> bool {
    let compressed = matches!(
        rec.compression_kind(),
        Compression::Zstd | Compression::ZstdDictionary
    );
    compressed || rec.offset() % SECTION_ALIGN == 0
}

/// The error [`file_range`] reports.
#[cold]
fn range_error(file: &[u8], i: usize, rec: &SectionRecord) -> Result<u64> {
    let start = rec.offset();
    if !aligned_if_viewed(rec) {
        return Err(err(
            K::Misaligned,
            start,
            format!("section {i} offset {start:#x} is not a multiple of 8"),
        ));
    }
    start
        .checked_add(rec.stored_size())
        .filter(|&end| end <= u(file.len()))
        .ok_or_else(|| {
            err(
                K::OutOfBounds,
                start,
                format!(
                    "section {i} ({} bytes) extends past the end of the file",
                    rec.stored_size()
                ),
            )
        })
}

fn check_zero(file: &[u8], start: u64, end: u64) -> Result<()> {
    let gap = file.get(start as usize..end as usize).unwrap_or(&[]);
    match gap.iter().position(|&b| b != 0) {
        Some(p) => Err(err(
            K::NonZeroPadding,
            start + u(p),
            "padding byte is not zero",
        )),
        None => Ok(()),
    }
}

/// The directory-level checks of a known section: its raw size within the limit, a known
/// compression, and for uncompressed sections equal stored and raw sizes.
#[inline]
fn check_sizes(i: usize, rec: &SectionRecord) -> Result<()> {
    let raw_size = rec.raw_size();
    let ok = raw_size <= limits::MAX_SECTION_RAW_SIZE
        && match rec.compression_kind() {
            Compression::None => raw_size == rec.stored_size(),
            Compression::Zstd | Compression::ZstdDictionary => true,
            Compression::Unknown(_) => false,
        };
    if ok {
        Ok(())
    } else {
        sizes_error(i, rec)
    }
}

/// The error [`check_sizes`] reports.
#[cold]
fn sizes_error(i: usize, rec: &SectionRecord) -> Result<()> {
    let offset = rec.offset();
    let raw_size = rec.raw_size();
    if raw_size > limits::MAX_SECTION_RAW_SIZE {
        return Err(err(
            K::LimitExceeded,
            offset,
            format!(
                "section {i} raw size {raw_size} exceeds the limit {}",
                limits::MAX_SECTION_RAW_SIZE
            ),
        ));
    }
    match rec.compression_kind() {
        Compression::None if raw_size != rec.stored_size() => Err(err(
            K::SizeMismatch,
            offset,
            format!(
                "section {i}: uncompressed but raw size {raw_size} != stored size {}",
                rec.stored_size()
            ),
        )),
        Compression::None | Compression::Zstd | Compression::ZstdDictionary => Ok(()),
        Compression::Unknown(c) => Err(err(
            K::UnsupportedCompression,
            offset,
            format!("section {i}: unknown compression {c}"),
        )),
    }
}

fn stored_bytes<'f>(file: &'f [u8], rec: &SectionRecord) -> &'f [u8] {
    let start = rec.offset() as usize;
    let end = start.saturating_add(rec.stored_size() as usize);
    file.get(start..end).unwrap_or(&[])
}

fn check_checksum(file: &[u8], i: usize, rec: &SectionRecord) -> Result<()> {
    if xxh3_64(stored_bytes(file, rec)) != rec.hash() {
        return Err(err(
            K::ChecksumMismatch,
            rec.offset(),
            format!("section {i} checksum mismatch"),
        ));
    }
    Ok(())
}

/// Checks a section's checksum and returns its raw bytes: in place when stored uncompressed,
/// else decompressed into an owned buffer (sizes were bounded at open).
fn section_bytes(
    file: &[u8],
    i: usize,
    rec: &SectionRecord,
    reserve: &dyn Fn(u64) -> Result<()>,
    dict: Option<&DDict<'static>>,
) -> Result<Bytes> {
    check_checksum(file, i, rec)?;
    let offset = rec.offset();
    let stored = stored_bytes(file, rec);
    match rec.compression_kind() {
        Compression::Zstd | Compression::ZstdDictionary => {
            let len = rec.raw_size() as usize;
            reserve(len as u64)?;
            let words = decompress_exact(stored, len, dict, offset, &format!("section {i}"))?;
            Ok(Bytes::Owned { words, len })
        }
        // Unknown compressions were refused at open.
        _ => Ok(Bytes::File {
            start: offset as usize,
            end: offset as usize + stored.len(),
        }),
    }
}

/// Checks a container table's stride and size, and returns its records packed at `size`
/// bytes each: `raw` itself, or a repacked copy when the stride is wider (a newer minor
/// version appended fields; their bytes are ignored).
pub(crate) fn repack(
    file: &[u8],
    raw: Bytes,
    rec: &SectionRecord,
    size: usize,
    what: &str,
    reserve: &dyn Fn(u64) -> Result<()>,
) -> Result<Bytes> {
    let (count, stride, offset) = (rec.record_count, rec.record_stride, rec.offset());
    if (stride as usize) < size || stride % 4 != 0 || stride > limits::MAX_RECORD_STRIDE {
        return Err(err(
            K::BadStride,
            offset,
            format!("{what}: record stride {stride}, expected at least {size} and a multiple of 4"),
        ));
    }
    if u64::from(count) * u64::from(stride) != u(raw.len()) {
        return Err(err(
            K::SizeMismatch,
            offset,
            format!(
                "{what}: {count} records of {stride} bytes do not fill {} bytes",
                raw.len()
            ),
        ));
    }
    if stride as usize == size {
        return Ok(raw);
    }
    let packed = count as usize * size;
    reserve(packed as u64)?;
    let src = raw.get(file);
    let words = owned_words(packed, |dst| {
        for (d, r) in dst
            .chunks_exact_mut(size)
            .zip(src.chunks_exact(stride as usize))
        {
            if let Some(prefix) = r.get(..size) {
                d.copy_from_slice(prefix);
            }
        }
    });
    Ok(Bytes::Owned { words, len: packed })
}

/// One loaded entry: one permutation, with its entry points, reflection and dependencies.
/// Obtained from [`Package::load`]; every accessor is infallible and allocation-free.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub(crate) package: &'a Package,
    record: &'a EntryRecord,
    index: usize,
    blob: &'a Blob,
}

impl<'a> Entry<'a> {
    /// The canonical permutation key.
    #[must_use]
    pub fn key(&self) -> &'a str {
        self.package.string(self.record.key)
    }

    /// Position in key order.
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The package the entry belongs to.
    #[must_use]
    pub fn package(&self) -> &'a Package {
        self.package
    }

    /// The raw record.
    #[must_use]
    pub fn record(&self) -> &'a EntryRecord {
        self.record
    }

    /// Hash of the compile options.
    #[must_use]
    pub fn options_hash(&self) -> u64 {
        join_u64(self.record.options_hash_lo, self.record.options_hash_hi)
    }

    /// Slang's hash of the first entry point.
    #[must_use]
    pub fn entry_point_hash(&self) -> u64 {
        join_u64(
            self.record.entry_point_hash_lo,
            self.record.entry_point_hash_hi,
        )
    }

    /// The entry points, in bake order.
    #[must_use]
    pub fn entry_points(&self) -> EntryPointIter<'a> {
        EntryPointIter {
            entry: *self,
            records: self
                .package
                .entry_point_slice(self.record)
                .iter()
                .enumerate(),
        }
    }

    /// The entry point named `name` (Slang's name, as [`EntryPoint::name`] gives it); a
    /// linear scan of the entry's few entry points, no allocation.
    #[must_use]
    pub fn entry_point(&self, name: &str) -> Option<EntryPoint<'a>> {
        self.entry_points().find(|ep| ep.name() == name)
    }

    /// The dependencies, in bake order.
    #[must_use]
    pub fn dependencies(&self) -> DependencyIter<'a> {
        let first = self.record.dependency_first as usize;
        let count = self.record.dependency_count as usize;
        let records = self
            .package
            .dependency_records()
            .get(first..first.saturating_add(count))
            .unwrap_or(&[]);
        DependencyIter {
            package: self.package,
            records: records.iter(),
        }
    }

    /// The minor format version of the package holding the entry.
    pub(crate) fn package_minor_version(&self) -> u32 {
        self.package.version().1
    }

    /// Whether the entry has a reflection blob.
    #[must_use]
    pub fn has_reflection(&self) -> bool {
        self.record.reflection != ABSENT
    }

    /// The entry's reflection; an empty view when it has none.
    #[must_use]
    pub fn reflection(&self) -> ReflectionView<'a> {
        ReflectionView::new(self.package.file(), self.blob, self.entry_point_hash())
    }
}

/// One compiled entry point of an [`Entry`].
#[derive(Debug, Clone, Copy)]
pub struct EntryPoint<'a> {
    pub(crate) entry: Entry<'a>,
    pub(crate) record: &'a EntryPointRecord,
    index: u32,
}

impl<'a> EntryPoint<'a> {
    /// Slang's entry-point name.
    #[must_use]
    pub fn name(&self) -> &'a str {
        self.entry.package.string(self.record.name)
    }

    /// The colour outputs of this entry point (a fragment stage's; empty for others and in
    /// packages older than 1.3): [`crate::BindView::fragment_outputs`].
    #[must_use]
    pub fn fragment_outputs(&self) -> &'a [slangpack_format::bind::FragmentOutput] {
        self.entry.reflection().bind().fragment_outputs(self.index)
    }

    /// This entry point's execution modes (`None` in packages older than 1.3):
    /// [`crate::BindView::execution_modes`].
    #[must_use]
    pub fn execution_modes(&self) -> Option<&'a slangpack_format::bind::ExecutionModes> {
        self.entry.reflection().bind().execution_modes(self.index)
    }

    /// The entry point's name inside the SPIR-V module: pass this as `pName` (usually `main`).
    #[must_use]
    pub fn spirv_entry_name(&self) -> &'a str {
        self.entry.package.string(self.record.spirv_entry_name)
    }

    /// The stage.
    #[must_use]
    pub fn stage(&self) -> Stage {
        self.record.stage_kind()
    }

    /// The stage's `VkShaderStageFlags` bit (`VkPipelineShaderStageCreateInfo::stage`); empty
    /// for a stage Vulkan has no bit for.
    #[must_use]
    pub fn stage_flags(&self) -> slangpack_format::vk::ShaderStageFlags {
        self.stage().vk_stage_flags()
    }

    /// Position in the entry's entry points (bake order): the index bind-view records use
    /// ([`crate::BindView::vertex_inputs`], bit `index` of
    /// [`DescriptorBinding::entry_point_mask`](slangpack_format::bind::DescriptorBinding)).
    #[must_use]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The entry this entry point belongs to.
    #[must_use]
    pub fn entry(&self) -> Entry<'a> {
        self.entry
    }

    /// Thread-group size `[x, y, z]`.
    #[must_use]
    pub fn thread_group_size(&self) -> [u32; 3] {
        let r = self.record;
        [
            r.thread_group_size_x,
            r.thread_group_size_y,
            r.thread_group_size_z,
        ]
    }

    /// Required wave size, if specified.
    #[must_use]
    pub fn wave_size(&self) -> Option<u32> {
        (self.record.wave_size != 0).then_some(self.record.wave_size)
    }

    /// Slang's hash of this entry point's code.
    #[must_use]
    pub fn hash(&self) -> u64 {
        join_u64(self.record.hash_lo, self.record.hash_hi)
    }

    /// The SPIR-V module: zero-copy from the package when stored uncompressed, else from the
    /// buffer it was decompressed into when the entry was loaded.
    #[must_use]
    pub fn spirv(&self) -> &'a [u32] {
        self.entry.package.spirv_words(self.record.spirv)
    }

    /// The SPIR-V blob index (entry points with equal modules share it).
    #[must_use]
    pub fn spirv_index(&self) -> u32 {
        self.record.spirv
    }

    /// This entry point's record in the entry's reflection, if linked.
    #[must_use]
    pub fn layout(&self) -> Option<&'a EntryPointLayout> {
        self.entry
            .reflection()
            .entry_points()
            .get(self.record.reflection_entry_point as usize)
    }

    /// The raw record.
    #[must_use]
    pub fn record(&self) -> &'a EntryPointRecord {
        self.record
    }
}

/// One source dependency of an [`Entry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dependency<'a> {
    path: &'a str,
    hash: u64,
}

impl<'a> Dependency<'a> {
    /// Path relative to the bake root, `/`-separated.
    #[must_use]
    pub fn path(&self) -> &'a str {
        self.path
    }

    /// xxh3-64 of the file's content at bake time.
    #[must_use]
    pub fn content_hash(&self) -> u64 {
        self.hash
    }
}

/// Loads a package's entries in key order ([`Package::entries`]).
#[derive(Debug, Clone)]
pub struct EntryIter<'a> {
    package: &'a Package,
    range: core::ops::Range<usize>,
}

impl<'a> Iterator for EntryIter<'a> {
    type Item = Result<Entry<'a>>;
    fn next(&mut self) -> Option<Result<Entry<'a>>> {
        self.range.next().map(|i| self.package.load_at(i))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}
impl ExactSizeIterator for EntryIter<'_> {}

/// A package's keys in key order ([`Package::keys`]).
#[derive(Debug, Clone)]
pub struct KeyIter<'a> {
    package: &'a Package,
    records: core::slice::Iter<'a, EntryRecord>,
}

impl<'a> Iterator for KeyIter<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        self.records.next().map(|r| self.package.string(r.key))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}
impl ExactSizeIterator for KeyIter<'_> {}

/// Iterator over an entry's entry points ([`Entry::entry_points`]).
#[derive(Debug, Clone)]
pub struct EntryPointIter<'a> {
    entry: Entry<'a>,
    records: core::iter::Enumerate<core::slice::Iter<'a, EntryPointRecord>>,
}

impl<'a> Iterator for EntryPointIter<'a> {
    type Item = EntryPoint<'a>;
    fn next(&mut self) -> Option<EntryPoint<'a>> {
        self.records.next().map(|(index, record)| EntryPoint {
            entry: self.entry,
            record,
            // An entry's entry points are counted by a u32 record field.
            index: index as u32,
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}
impl ExactSizeIterator for EntryPointIter<'_> {}

/// Iterator over an entry's dependencies ([`Entry::dependencies`]).
#[derive(Debug, Clone)]
pub struct DependencyIter<'a> {
    package: &'a Package,
    records: core::slice::Iter<'a, DependencyRecord>,
}

impl<'a> Iterator for DependencyIter<'a> {
    type Item = Dependency<'a>;
    fn next(&mut self) -> Option<Dependency<'a>> {
        self.records.next().map(|r| Dependency {
            path: self.package.string(r.path),
            hash: join_u64(r.hash_lo, r.hash_hi),
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}
impl ExactSizeIterator for DependencyIter<'_> {}

//! Opening a package: header, directory, sections, container tables.

use crate::blob::{parse_blob, BlobInfo};
use crate::error::{err, Error, ErrorKind as K, Result};
use crate::storage::{cast, resolve, Loc, Storage};
use crate::view::ReflectionView;
use slangpack_format::{
    join_u64, limits, Compression, DependencyRecord, EntryPointLayout, EntryPointRecord,
    EntryRecord, FileHeader, KeyIndexRecord, SectionKind, SectionRecord, Stage, StringPoolHeader,
    StringRef, ABSENT, ENDIAN_TAG, HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN, VERSION_MAJOR,
};
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// A validated package.
///
/// Opening checks every byte the accessors can reach (see SPEC.md, "Validation"); afterwards
/// every accessor is infallible, never panics and never allocates. Reflection blobs stored
/// compressed are decompressed once, at open, into owned 8-aligned buffers; everything else is
/// served from the mapping (or the owned copy made by [`Package::from_bytes`]).
///
/// `Package` is `Send + Sync`; views borrow it.
#[derive(Debug)]
pub struct Package {
    pub(crate) storage: Storage,
    pub(crate) chunks: Vec<Box<[u64]>>,
    pub(crate) strings: Box<str>,
    string_refs: Loc,
    entries: Loc,
    key_index: Loc,
    entry_points: Loc,
    dependencies: Loc,
    spirv: Vec<Loc>,
    reflections: Vec<BlobInfo>,
    pub(crate) targets: crate::targets::TargetTables,
    version: (u32, u32),
}

/// State accumulated while opening: owned chunks, the string arena, the owned-bytes budget.
pub(crate) struct OpenCx {
    pub(crate) chunks: Vec<Box<[u64]>>,
    pub(crate) strings: String,
    owned: u64,
}

impl OpenCx {
    /// Reserves `size` bytes of the owned budget.
    pub(crate) fn budget(&mut self, size: u64, offset: u64, what: &str) -> Result<()> {
        let total = self.owned.saturating_add(size);
        if total > limits::MAX_TOTAL_OWNED_SIZE {
            return Err(err(
                K::LimitExceeded,
                offset,
                format!(
                    "{what}: owned bytes would reach {total}, limit {}",
                    limits::MAX_TOTAL_OWNED_SIZE
                ),
            ));
        }
        self.owned = total;
        Ok(())
    }

    /// Adds a zeroed 8-aligned chunk of `len` bytes filled by `fill`; returns its location.
    pub(crate) fn push_chunk(&mut self, len: usize, fill: impl FnOnce(&mut [u8])) -> Loc {
        let mut words = vec![0u64; len.div_ceil(8)].into_boxed_slice();
        if let Some(dst) = words.as_mut_bytes().get_mut(..len) {
            fill(dst);
        }
        self.chunks.push(words);
        Loc::Chunk {
            chunk: self.chunks.len() - 1,
            start: 0,
            end: len,
        }
    }

    /// Checks `count` records of `stride` bytes filling `raw` exactly, and returns a location
    /// of `count` packed `T` records: `raw` itself, or a repacked copy when `stride` is larger
    /// than `T` (a newer minor version appended fields; their bytes are ignored).
    pub(crate) fn table<T: FromBytes + KnownLayout + Immutable>(
        &mut self,
        file: &[u8],
        raw: Loc,
        count: u32,
        stride: u32,
        offset: u64,
        what: &str,
    ) -> Result<Loc> {
        let size = core::mem::size_of::<T>();
        let align = core::mem::align_of::<T>() as u32;
        if (stride as usize) < size
            || stride % align != 0
            || stride > limits::MAX_RECORD_STRIDE
            || (size == 1 && stride != 1)
        {
            return Err(err(
                K::BadStride,
                offset,
                format!("{what}: record stride {stride}, expected at least {size} and a multiple of {align}"),
            ));
        }
        let total = u64::from(count) * u64::from(stride);
        if total != raw.len() as u64 {
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
        self.budget(packed as u64, offset, what)?;
        let src = resolve(file, &self.chunks, raw);
        let mut copy = vec![0u8; packed];
        for (dst, rec) in copy
            .chunks_exact_mut(size)
            .zip(src.chunks_exact(stride as usize))
        {
            if let Some(prefix) = rec.get(..size) {
                dst.copy_from_slice(prefix);
            }
        }
        Ok(self.push_chunk(packed, |d| d.copy_from_slice(&copy)))
    }

    /// Parses a string pool (`refs` and UTF-8 `bytes`), appends its bytes to the arena, and
    /// returns the arena base of the pool.
    pub(crate) fn string_pool(
        &mut self,
        refs: &[StringRef],
        bytes: &[u8],
        offset: u64,
        what: &str,
    ) -> Result<usize> {
        let text = core::str::from_utf8(bytes).map_err(|e| {
            err(
                K::BadString,
                offset + e.valid_up_to() as u64,
                format!("{what}: string bytes are not valid UTF-8"),
            )
        })?;
        for (i, r) in refs.iter().enumerate() {
            let end = u64::from(r.offset) + u64::from(r.len);
            let ok = r.len <= limits::MAX_STRING_LEN
                && end <= text.len() as u64
                && text.get(r.offset as usize..end as usize).is_some();
            if !ok {
                return Err(err(
                    K::BadString,
                    offset,
                    format!(
                        "{what}: string {i} ({} bytes at {}) is outside the pool or splits a character",
                        r.len, r.offset
                    ),
                ));
            }
        }
        let base = self.strings.len();
        self.strings.push_str(text);
        Ok(base)
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

impl Package {
    /// Opens and validates the package at `path` through a read-only memory mapping.
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) when the file cannot be opened or mapped; any
    /// validation error of [`Package::from_bytes`].
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

    /// Validates a package held in memory. The bytes are copied once into an 8-aligned owned
    /// buffer (so `&[u32]` SPIR-V and record views are aligned whatever `bytes`' alignment).
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
        let dir = parse_directory(file, &header)?;
        check_layout(file, &header, &dir)?;

        let mut cx = OpenCx {
            chunks: Vec::new(),
            strings: String::new(),
            owned: 0,
        };
        let mut dctx = zstd::bulk::Decompressor::new().map_err(|e| {
            err(
                K::Decompress,
                0,
                format!("cannot create a zstd context: {e}"),
            )
        })?;
        let mut singles: [Option<(usize, Loc)>; 5] = [None; 5];
        let mut spirv = Vec::new();
        let mut reflection_raw = Vec::new();
        let mut target_raw = crate::targets::RawTargetSections::default();
        for (i, rec) in dir.iter().enumerate() {
            let offset = rec.offset();
            let stored = section_bytes(file, rec);
            if xxh3_64(stored) != rec.hash() {
                return Err(err(
                    K::ChecksumMismatch,
                    offset,
                    format!("section {i} checksum mismatch"),
                ));
            }
            let kind = rec.section_kind();
            let slot = match kind {
                SectionKind::Strings => Some(0),
                SectionKind::Entries => Some(1),
                SectionKind::KeyIndex => Some(2),
                SectionKind::EntryPoints => Some(3),
                SectionKind::Dependencies => Some(4),
                SectionKind::Spirv | SectionKind::Reflection => None,
                SectionKind::TargetCode | SectionKind::EntryPointTargets => {
                    let raw = load_section(file, &mut cx, &mut dctx, i, rec)?;
                    target_raw.add(i, rec, raw)?;
                    continue;
                }
                SectionKind::Unknown(_) => continue, // a newer minor version's section
            };
            let raw = load_section(file, &mut cx, &mut dctx, i, rec)?;
            match slot {
                Some(s) => {
                    if singles[s].is_some() {
                        return Err(err(
                            K::Duplicate,
                            offset,
                            format!("section {i}: a second {kind:?} section"),
                        ));
                    }
                    singles[s] = Some((i, raw));
                }
                None if kind == SectionKind::Spirv => {
                    if raw.len() % 4 != 0 {
                        return Err(err(
                            K::SizeMismatch,
                            offset,
                            format!(
                                "section {i}: SPIR-V size {} is not a multiple of 4",
                                raw.len()
                            ),
                        ));
                    }
                    spirv.push(raw);
                }
                None => reflection_raw.push((i, raw)),
            }
        }
        let [strings, entries, key_index, entry_points, dependencies] = singles;
        let need = |s: Option<(usize, Loc)>, kind: SectionKind| {
            s.ok_or_else(|| {
                err(
                    K::MissingSection,
                    0,
                    format!("no {kind:?} section (required)"),
                )
            })
        };
        let strings = need(strings, SectionKind::Strings)?;
        let entries = need(entries, SectionKind::Entries)?;
        let key_index = need(key_index, SectionKind::KeyIndex)?;
        let entry_points = need(entry_points, SectionKind::EntryPoints)?;
        let dependencies = need(dependencies, SectionKind::Dependencies)?;

        // Package string pool.
        let string_refs = {
            let (i, raw) = strings;
            let off = dir.get(i).map_or(0, SectionRecord::offset);
            let bytes = resolve(file, &cx.chunks, raw);
            let what = format!("section {i} (strings)");
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
            let refs_loc = raw.sub(8, refs_len as usize);
            let refs: &[StringRef] = cast(resolve(file, &cx.chunks, refs_loc));
            let text = bytes.get(8 + refs_len as usize..).unwrap_or(&[]);
            // `string_pool` needs `cx` mutably; copy the refs' bounds check inputs first.
            let refs = refs.to_vec();
            let text = text.to_vec();
            cx.string_pool(&refs, &text, off, &what)?;
            refs_loc
        };
        let string_count = (string_refs.len() / 8) as u32;

        let table = |cx: &mut OpenCx, (i, raw): (usize, Loc), what: &str| -> Result<Loc> {
            let rec = dir.get(i).copied().unwrap_or_default();
            let what = format!("section {i} ({what})");
            let (count, stride, off) = (rec.record_count, rec.record_stride, rec.offset());
            match rec.section_kind() {
                SectionKind::Entries => {
                    cx.table::<EntryRecord>(file, raw, count, stride, off, &what)
                }
                SectionKind::KeyIndex => {
                    cx.table::<KeyIndexRecord>(file, raw, count, stride, off, &what)
                }
                SectionKind::EntryPoints => {
                    cx.table::<EntryPointRecord>(file, raw, count, stride, off, &what)
                }
                _ => cx.table::<DependencyRecord>(file, raw, count, stride, off, &what),
            }
        };
        let entries_loc = table(&mut cx, entries, "entries")?;
        let key_index_loc = table(&mut cx, key_index, "key index")?;
        let entry_points_loc = table(&mut cx, entry_points, "entry points")?;
        let dependencies_loc = table(&mut cx, dependencies, "dependencies")?;

        let mut reflections = Vec::with_capacity(reflection_raw.len());
        for (i, raw) in reflection_raw {
            let off = dir.get(i).map_or(0, SectionRecord::offset);
            reflections.push(parse_blob(file, &mut cx, raw, i, off)?);
        }

        let targets = target_raw.finish(file, &mut cx)?;
        let version = (header.version_major, header.version_minor);
        let OpenCx {
            chunks, strings, ..
        } = cx;
        let package = Package {
            storage,
            chunks,
            strings: strings.into_boxed_str(),
            string_refs,
            entries: entries_loc,
            key_index: key_index_loc,
            entry_points: entry_points_loc,
            dependencies: dependencies_loc,
            spirv,
            reflections,
            targets,
            version,
        };
        package.check_targets(string_count)?;
        package.check_container(
            string_count,
            &dir,
            [entries.0, key_index.0, entry_points.0, dependencies.0],
        )?;
        Ok(package)
    }

    /// Cross-checks the container tables: indices, ranges, key order and the key index.
    fn check_container(
        &self,
        string_count: u32,
        dir: &[SectionRecord],
        sections: [usize; 4],
    ) -> Result<()> {
        let off = |s: usize| dir.get(sections[s]).map_or(0, SectionRecord::offset);
        let entries = self.entry_records();
        let eps = self.entry_point_records();
        let deps = self.dependency_records();
        let index = self.key_index_records();
        let bad = |s: usize, msg: String| err(K::IndexOutOfRange, off(s), msg);
        let in_range =
            |first: u32, count: u32, len: usize| u64::from(first) + u64::from(count) <= u(len);
        let mut previous: Option<&str> = None;
        for (i, e) in entries.iter().enumerate() {
            if e.key >= string_count {
                return Err(bad(
                    0,
                    format!("entry {i}: key string {} out of range", e.key),
                ));
            }
            let key = self.string(e.key);
            if xxh3_64(key.as_bytes()) != join_u64(e.key_hash_lo, e.key_hash_hi) {
                return Err(err(
                    K::BadKeyIndex,
                    off(0),
                    format!("entry {i}: key hash does not match key {key:?}"),
                ));
            }
            if previous.is_some_and(|p| p.as_bytes() >= key.as_bytes()) {
                return Err(err(
                    K::BadKeyIndex,
                    off(0),
                    format!("entry {i}: keys not strictly sorted at {key:?}"),
                ));
            }
            previous = Some(key);
            if e.reflection != ABSENT && e.reflection as usize >= self.reflections.len() {
                return Err(bad(
                    0,
                    format!("entry {i}: reflection blob {} out of range", e.reflection),
                ));
            }
            if !in_range(e.entry_point_first, e.entry_point_count, eps.len()) {
                return Err(bad(
                    0,
                    format!(
                        "entry {i}: entry points {}+{} out of range",
                        e.entry_point_first, e.entry_point_count
                    ),
                ));
            }
            if !in_range(e.dependency_first, e.dependency_count, deps.len()) {
                return Err(bad(
                    0,
                    format!(
                        "entry {i}: dependencies {}+{} out of range",
                        e.dependency_first, e.dependency_count
                    ),
                ));
            }
            let blob_eps = self
                .reflections
                .get(e.reflection as usize)
                .map_or(0, |b| self.blob_view(b, 0).entry_points().len());
            let first = e.entry_point_first as usize;
            for ep in eps
                .get(first..first.saturating_add(e.entry_point_count as usize))
                .unwrap_or(&[])
            {
                let r = ep.reflection_entry_point;
                if r != ABSENT && r as usize >= blob_eps {
                    return Err(bad(
                        2,
                        format!("entry {i}: entry point reflection index {r} out of range"),
                    ));
                }
            }
        }
        if index.len() != entries.len() {
            return Err(err(
                K::BadKeyIndex,
                off(1),
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
                    off(1),
                    format!("key index record {i} is out of order or names the wrong entry"),
                ));
            }
            last = Some((hash, k.entry));
        }
        for (i, ep) in eps.iter().enumerate() {
            if ep.name >= string_count || ep.spirv_entry_name >= string_count {
                return Err(bad(2, format!("entry point {i}: name string out of range")));
            }
            if ep.spirv as usize >= self.spirv.len() {
                return Err(bad(
                    2,
                    format!("entry point {i}: SPIR-V blob {} out of range", ep.spirv),
                ));
            }
        }
        for (i, d) in deps.iter().enumerate() {
            if d.path >= string_count {
                return Err(bad(
                    3,
                    format!("dependency {i}: path string {} out of range", d.path),
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn bytes(&self, loc: Loc) -> &[u8] {
        resolve(self.storage.bytes(), &self.chunks, loc)
    }

    fn entry_records(&self) -> &[EntryRecord] {
        cast(self.bytes(self.entries))
    }
    fn key_index_records(&self) -> &[KeyIndexRecord] {
        cast(self.bytes(self.key_index))
    }
    pub(crate) fn entry_point_records(&self) -> &[EntryPointRecord] {
        cast(self.bytes(self.entry_points))
    }
    fn dependency_records(&self) -> &[DependencyRecord] {
        cast(self.bytes(self.dependencies))
    }

    /// Package string `index`; `""` when `index` is absent or out of range.
    pub(crate) fn string(&self, index: u32) -> &str {
        let refs: &[StringRef] = cast(self.bytes(self.string_refs));
        refs.get(index as usize)
            .and_then(|r| {
                self.strings
                    .get(r.offset as usize..(r.offset as usize).saturating_add(r.len as usize))
            })
            .unwrap_or("")
    }

    pub(crate) fn blob_view<'a>(
        &'a self,
        blob: &'a BlobInfo,
        entry_point_hash: u64,
    ) -> ReflectionView<'a> {
        ReflectionView::new(self, blob, entry_point_hash)
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

    /// All entries, sorted by key (bytewise).
    #[must_use]
    pub fn entries(&self) -> EntryIter<'_> {
        EntryIter {
            package: self,
            records: self.entry_records().iter().enumerate(),
        }
    }

    /// Entry number `index` in key order, or `None` when out of range.
    #[must_use]
    pub fn entry_at(&self, index: usize) -> Option<Entry<'_>> {
        self.entry_records().get(index).map(|record| Entry {
            package: self,
            record,
            index,
        })
    }

    /// The entry whose canonical permutation key is `key`, or `None`.
    ///
    /// Cost: one xxh3 hash of `key`, a binary search of the key index (O(log n)), and a string
    /// comparison per entry sharing the hash (normally one). No allocation.
    #[must_use]
    pub fn entry(&self, key: &str) -> Option<Entry<'_>> {
        let hash = xxh3_64(key.as_bytes());
        let index = self.key_index_records();
        let start = index.partition_point(|k| join_u64(k.hash_lo, k.hash_hi) < hash);
        index
            .get(start..)?
            .iter()
            .take_while(|k| join_u64(k.hash_lo, k.hash_hi) == hash)
            .filter_map(|k| self.entry_at(k.entry as usize))
            .find(|e| e.key() == key)
    }

    /// SPIR-V module `index` as words.
    fn spirv_words(&self, index: u32) -> &[u32] {
        self.spirv
            .get(index as usize)
            .map_or(&[], |&loc| cast(self.bytes(loc)))
    }
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

/// Reads the section directory (each record's known prefix) after checking its bounds and hash.
fn parse_directory(file: &[u8], header: &FileHeader) -> Result<Vec<SectionRecord>> {
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
    let bytes = offset
        .checked_add(len)
        .and_then(|end| file.get(offset as usize..end as usize))
        .ok_or_else(|| {
            err(
                K::OutOfBounds,
                offset,
                format!("section directory ({len} bytes) extends past the end of the file"),
            )
        })?;
    if xxh3_64(bytes) != join_u64(header.dir_hash_lo, header.dir_hash_hi) {
        return Err(err(
            K::ChecksumMismatch,
            offset,
            "section directory checksum mismatch",
        ));
    }
    let mut dir = Vec::with_capacity(header.section_count as usize);
    for (i, rec) in bytes.chunks_exact(stride as usize).enumerate() {
        let r: SectionRecord =
            read_prefix(rec, offset + u(i) * u64::from(stride), "section record")?;
        dir.push(r);
    }
    Ok(dir)
}

/// Checks every section's alignment and bounds, that nothing overlaps, and that every byte
/// between the directory, the sections and the end of the file is zero.
fn check_layout(file: &[u8], header: &FileHeader, dir: &[SectionRecord]) -> Result<()> {
    let dir_start = join_u64(header.section_dir_offset_lo, header.section_dir_offset_hi);
    let dir_end =
        dir_start + u64::from(header.section_count) * u64::from(header.section_record_size);
    let mut ranges = Vec::with_capacity(dir.len() + 2);
    ranges.push((0, u64::from(header.header_size), usize::MAX));
    ranges.push((dir_start, dir_end, usize::MAX));
    for (i, rec) in dir.iter().enumerate() {
        let start = rec.offset();
        if start % SECTION_ALIGN != 0 {
            return Err(err(
                K::Misaligned,
                start,
                format!("section {i} offset {start:#x} is not a multiple of 8"),
            ));
        }
        let end = start
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
            })?;
        ranges.push((start, end, i));
    }
    ranges.sort_unstable();
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
        check_zero(file, cursor, start)?;
        cursor = end;
    }
    check_zero(file, cursor, u(file.len()))
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

fn section_bytes<'f>(file: &'f [u8], rec: &SectionRecord) -> &'f [u8] {
    let start = rec.offset() as usize;
    let end = start.saturating_add(rec.stored_size() as usize);
    file.get(start..end).unwrap_or(&[])
}

/// Returns the raw bytes of a section: in place when stored uncompressed, else decompressed
/// into a new chunk after bounding the declared raw size.
fn load_section(
    file: &[u8],
    cx: &mut OpenCx,
    dctx: &mut zstd::bulk::Decompressor<'_>,
    i: usize,
    rec: &SectionRecord,
) -> Result<Loc> {
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
    let start = offset as usize;
    let stored = section_bytes(file, rec);
    match rec.compression_kind() {
        Compression::None => {
            if raw_size != rec.stored_size() {
                return Err(err(
                    K::SizeMismatch,
                    offset,
                    format!(
                        "section {i}: uncompressed but raw size {raw_size} != stored size {}",
                        rec.stored_size()
                    ),
                ));
            }
            Ok(Loc::File {
                start,
                end: start + stored.len(),
            })
        }
        Compression::Zstd => {
            cx.budget(raw_size, offset, &format!("section {i}"))?;
            let len = raw_size as usize;
            let mut result = Ok(0);
            let loc = cx.push_chunk(len, |dst| result = dctx.decompress_to_buffer(stored, dst));
            match result {
                Ok(n) if n == len => Ok(loc),
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
        Compression::Unknown(c) => Err(err(
            K::UnsupportedCompression,
            offset,
            format!("section {i}: unknown compression {c}"),
        )),
    }
}

/// One entry: one permutation, with its entry points, reflection and dependencies.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub(crate) package: &'a Package,
    record: &'a EntryRecord,
    index: usize,
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
        let first = self.record.entry_point_first as usize;
        let count = self.record.entry_point_count as usize;
        let records = self
            .package
            .entry_point_records()
            .get(first..first.saturating_add(count))
            .unwrap_or(&[]);
        EntryPointIter {
            entry: *self,
            records: records.iter().enumerate(),
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

    /// Whether the entry has a reflection blob.
    #[must_use]
    pub fn has_reflection(&self) -> bool {
        self.record.reflection != ABSENT
    }

    /// The entry's reflection; an empty view when it has none.
    #[must_use]
    pub fn reflection(&self) -> ReflectionView<'a> {
        let blob = self
            .package
            .reflections
            .get(self.record.reflection as usize)
            .unwrap_or(&crate::blob::EMPTY_BLOB);
        self.package.blob_view(blob, self.entry_point_hash())
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

    /// The SPIR-V module, straight from the package (zero-copy when stored uncompressed).
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

/// Iterator over a package's entries ([`Package::entries`]).
#[derive(Debug, Clone)]
pub struct EntryIter<'a> {
    package: &'a Package,
    records: core::iter::Enumerate<core::slice::Iter<'a, EntryRecord>>,
}

impl<'a> Iterator for EntryIter<'a> {
    type Item = Entry<'a>;
    fn next(&mut self) -> Option<Entry<'a>> {
        let (index, record) = self.records.next()?;
        Some(Entry {
            package: self.package,
            record,
            index,
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}
impl ExactSizeIterator for EntryIter<'_> {}

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

//! What opening a package checks (SPEC.md section 4), in order: the header, the directory and
//! the layout ([`super::layout`]), then the container tables and the keys' order (in a 1.x
//! package, the key index); nothing per blob or module.
//!
//! `Package::parse` runs the steps of SPEC.md section 10's "at open" one after another: the
//! header and directory (`SectionLoader::new`), the sections placed from the directory alone
//! (`SectionLoader::map_sections`), the required ones found (`SectionMap::containers`), the
//! string pool and container tables loaded (`SectionLoader::string_pool`,
//! `SectionLoader::container_tables`, `SectionLoader::target_tables`), and last the keys and
//! the entry-point targets table checked on the assembled package.
//!
//! The steps that run once per open are `#[inline(always)]`: opening a package of a few
//! sections costs well under a microsecond, and calls between the steps (each passing the
//! loader and returning its part) measurably added to it.

use super::targets::{RawTargetSections, TargetTables};
use super::*;

impl Package {
    /// Opens the package in `storage`: the steps of the module's documentation, in order.
    pub(super) fn parse(storage: Storage) -> Result<Self> {
        refuse_big_endian_host()?;
        let header = parse_header(storage.bytes())?;
        if header.version_major == slangpack_format::PAGED_VERSION_MAJOR {
            return Self::parse_paged(storage, header);
        }
        Self::parse_index(storage, &header, Placement::WHOLE)
    }

    /// The steps after the header, for a package's directory named by `header`: the whole
    /// package's, or one page's of a paged package (`placement`).
    pub(super) fn parse_index(
        storage: Storage,
        header: &FileHeader,
        placement: Placement,
    ) -> Result<Self> {
        let file = storage.bytes();
        let header = *header;
        let index = directory(file, &header)?;
        let mut loader = SectionLoader::new(file, &header, &index)?;
        let map = loader.map_sections()?;
        let containers = map.containers(&loader)?;
        let strings = loader.string_pool(containers.strings)?;
        let tables = loader.container_tables(&containers)?;
        let targets = loader.target_tables(map.targets)?;
        let keys = loader.key_offsets(&containers);
        let directory = loader.kept_directory();
        let owned = loader.budget.owned.load(Ordering::Relaxed);
        let owned = match placement.owned {
            // A page's bytes count towards its package's one budget.
            Some(shared) => {
                section::reserve(&shared, owned, header.section_dir_offset())?;
                shared
            }
            None => std::sync::Arc::new(AtomicU64::new(owned)),
        };
        // Built here, not returned by a step: the package is large, and is made in place.
        let package = Package {
            storage,
            strings: strings.bytes,
            strings_text_at: strings.text_at,
            string_refs: strings.refs,
            entries: tables.entries,
            key_index: tables.key_index,
            key_hashes: OnceLock::new(),
            key_lookups: std::sync::atomic::AtomicU32::new(0),
            entry_points: tables.entry_points,
            dependencies: tables.dependencies,
            spirv: map.spirv.finish(),
            reflections: map.reflections.finish(),
            dictionary: map.dictionary.map(Lazy::new),
            tables_dictionary: map.tables_dictionary.map(Lazy::new),
            unknown: map.unknown.into_boxed_slice(),
            directory,
            dir_stride: header.section_record_size,
            section_count: header.section_count,
            checksum_runs: header.has_checksum_runs(),
            bare_frames: header.has_bare_frames(),
            runs_checked: match header.has_checksum_runs() {
                true => (0..(header.section_count as usize).div_ceil(64))
                    .map(|_| AtomicU64::new(0))
                    .collect(),
                false => Box::new([]),
            },
            owned,
            loaded: Box::new([]),
            pages: None,
            entry_base: placement.entry_base,
            page_header: placement.page_header,
            targets,
            version: (header.version_major, header.version_minor),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        };
        package.check_keys(keys)?;
        let package = Package {
            loaded: package.load_flags(),
            ..package
        };
        package.check_targets(package.string_count())?;
        Ok(package)
    }

    /// One "loaded" bit per entry, made once the keys were checked.
    #[inline(always)]
    fn load_flags(&self) -> Box<[AtomicU64]> {
        (0..self.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect()
    }

    /// The keys' checks made at open: the key index of a 1.x package, the keys' order in 2.0.
    #[inline(always)]
    fn check_keys(&self, at: KeyOffsets) -> Result<()> {
        if self.stores_hashes() {
            self.check_key_index(at.entries, at.key_index)
        } else {
            self.check_key_order(at.entries)
        }
    }

    /// The check of a 2.0 package's entries made at open, what makes the sorted keys its key
    /// index: every entry's key is a package string, and the keys strictly increase
    /// (bytewise), so that a binary search finds every key there is.
    pub(super) fn check_key_order(&self, entries_off: u64) -> Result<()> {
        let (refs, text) = self.string_table();
        let mut previous: Option<&[u8]> = None;
        for (i, e) in self.entry_records().iter().enumerate() {
            let Some(r) = refs.get(e.key as usize) else {
                return Err(err(
                    K::IndexOutOfRange,
                    entries_off,
                    format!("entry {i}: key string {} out of range", e.key),
                ));
            };
            // Within the text: the pool's check at open.
            let key = text
                .get(r.offset as usize..(r.offset as usize).saturating_add(r.len as usize))
                .unwrap_or(&[]);
            if previous.is_some_and(|p| p >= key) {
                return Err(err(
                    K::BadKeyIndex,
                    entries_off,
                    format!(
                        "entry {i}: keys not strictly sorted at {:?}",
                        String::from_utf8_lossy(key)
                    ),
                ));
            }
            previous = Some(key);
        }
        Ok(())
    }

    /// The checks of a 1.x package's container tables made at open: every entry's key is a
    /// package string, and the key index is sorted, complete and agrees with the entries' key
    /// hashes. (2.0 has no key index: [`Package::check_key_order`].)
    pub(super) fn check_key_index(&self, entries_off: u64, index_off: u64) -> Result<()> {
        let entries = self.entry_records();
        let index = self.key_index_records();
        let string_count = self.string_count();
        if let Some((i, e)) = entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.key >= string_count)
        {
            return Err(err(
                K::IndexOutOfRange,
                entries_off,
                format!("entry {i}: key string {} out of range", e.key),
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
    pub(super) fn check_entry(&self, i: usize, e: &EntryRecord) -> Result<()> {
        let off = || self.section_offset_of(SectionKind::Entries);
        let string_count = self.string_count();
        if e.key >= string_count {
            return Err(err(
                K::IndexOutOfRange,
                off(),
                format!("entry {i}: key string {} out of range", e.key),
            ));
        }
        let key = self.string_bytes(e.key);
        if self.stores_hashes() && xxh3_64(key) != join_u64(e.key_hash_lo, e.key_hash_hi) {
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

    pub(super) fn dir_record(&self, i: usize) -> SectionRecord {
        record_at(self.directory.get(self.storage.bytes()), self.dir_stride, i)
    }

    pub(super) fn section_total(&self) -> usize {
        self.section_count as usize
    }

    /// File offset of the first section of `kind` (for error offsets; 0 when none).
    #[cold]
    pub(super) fn section_offset_of(&self, kind: SectionKind) -> u64 {
        (0..self.section_total())
            .map(|i| self.dir_record(i))
            .find(|r| r.section_kind() == kind)
            .map_or(0, |r| r.offset())
    }
}

/// Packages are little-endian and viewed in place: a big-endian host is refused first.
fn refuse_big_endian_host() -> Result<()> {
    if cfg!(target_endian = "big") {
        return Err(err(
            K::BigEndianHost,
            0,
            "packages are little-endian and this reader views them in place; big-endian hosts are not supported",
        ));
    }
    Ok(())
}

/// The one decompression budget of an open (SPEC.md 4.3 rule 5, limit 8). Two counts of one
/// limit, `MAX_TOTAL_OWNED_SIZE`, both starting at the decompressed index's size: the raw
/// sizes of every compressed section, summed as the directory is read, before anything is
/// decompressed; and the bytes open itself then decompresses, repacks or copies, the count
/// the package goes on with.
struct Budget {
    planned: u64,
    owned: AtomicU64,
}

impl Budget {
    fn new(index_size: u64) -> Self {
        Budget {
            planned: index_size,
            owned: AtomicU64::new(index_size),
        }
    }

    /// Counts section `i`'s raw size when it is compressed (the planned sum).
    fn charge(&mut self, i: usize, rec: &SectionRecord) -> Result<()> {
        if rec.compression_kind() == Compression::None {
            return Ok(());
        }
        self.planned = self.planned.saturating_add(rec.raw_size());
        if self.planned > limits::MAX_TOTAL_OWNED_SIZE {
            return Err(err(
                K::LimitExceeded,
                rec.offset(),
                format!(
                    "section {i}: decompressed sections would reach {} bytes, limit {}",
                    self.planned,
                    limits::MAX_TOTAL_OWNED_SIZE
                ),
            ));
        }
        Ok(())
    }

    /// Takes `size` owned bytes.
    #[inline]
    fn reserve(&self, size: u64) -> Result<()> {
        reserve(&self.owned, size, 0)
    }
}

/// What the steps of open read sections through: the file, its header, the directory (in
/// place, or in the decompressed index) and the one [`Budget`].
struct SectionLoader<'a> {
    file: &'a [u8],
    header: &'a FileHeader,
    index: &'a Index,
    /// The index: the directory, followed in a compressed index by the container sections.
    index_bytes: &'a [u8],
    dir: &'a [u8],
    budget: Budget,
}

impl<'a> SectionLoader<'a> {
    /// The directory of `index` over `file`, its layout checked (SPEC.md 4.3 rules 1 and 2's
    /// disjoint ranges, 4.4); the budget starts with the decompressed index.
    #[inline(always)]
    fn new(file: &'a [u8], header: &'a FileHeader, index: &'a Index) -> Result<Self> {
        let index_bytes = index.bytes.get(file);
        let dir_len = header.section_count as usize * header.section_record_size as usize;
        let dir = index_bytes.get(..dir_len).unwrap_or(&[]);
        check_layout(file, header, index, dir, index_bytes, Padding::Unchecked)?;
        let index_size = index.decompressed;
        Ok(SectionLoader {
            file,
            header,
            index,
            index_bytes,
            dir,
            budget: Budget::new(index_size),
        })
    }

    #[inline]
    fn record(&self, i: usize) -> SectionRecord {
        record_at(self.dir, self.header.section_record_size, i)
    }

    /// Places every section the directory lists (SPEC.md 4.1, 4.3 rules 5 and 7), reading
    /// nothing but the directory, and charges the compressed ones to the budget.
    #[inline(always)]
    fn map_sections(&mut self) -> Result<SectionMap> {
        // What most sections of a package of many entries are: a SPIR-V module stored as it
        // is, whose checks are three comparisons (`SectionMap::place` makes the same ones,
        // and reports any that fails).
        // A module of the default layout, a zstd frame, makes the same comparisons and is
        // charged to the budget.
        const SPIRV: u32 = SectionKind::Spirv.to_raw();
        const STORED: u32 = Compression::None.to_raw();
        const ZSTD: u32 = Compression::Zstd.to_raw();
        const ZSTD_DICTIONARY: u32 = Compression::ZstdDictionary.to_raw();
        const PACKED: u32 = Compression::ZstdPackedSpirv.to_raw();
        const PACKED_DICTIONARY: u32 = Compression::ZstdDictionaryPackedSpirv.to_raw();
        const IN_RUN: u32 = Compression::InModuleRun.to_raw();
        let mut map = SectionMap::default();
        for (i, rec) in records(self.dir, self.header.section_record_size).enumerate() {
            if rec.kind == SPIRV {
                let size = rec.raw_size();
                let fits = size <= limits::MAX_SECTION_RAW_SIZE && size % 4 == 0;
                match rec.compression {
                    STORED if fits && size == rec.stored_size() => {
                        map.spirv.push(i);
                        continue;
                    }
                    ZSTD | ZSTD_DICTIONARY | PACKED | PACKED_DICTIONARY if fits => {
                        map.uses_dictionary |=
                            matches!(rec.compression, ZSTD_DICTIONARY | PACKED_DICTIONARY);
                        self.budget.charge(i, rec)?;
                        map.spirv.push(i);
                        continue;
                    }
                    // Its module lies in a later section's frame (5.6.2): found at its load.
                    IN_RUN if fits && rec.stored_size() == 0 => {
                        self.budget.charge(i, rec)?;
                        map.spirv.push(i);
                        continue;
                    }
                    _ => {}
                }
            }
            map.place(i, rec, &mut self.budget)?;
        }
        Ok(map)
    }

    /// Section `i`, checksummed and decompressed. A container section of a compressed index
    /// lies in the index (uncompressed there, its place checked with the layout): checksummed
    /// and viewed there, or copied out when it starts at an offset its records cannot be
    /// viewed at.
    fn load(&self, i: usize) -> Result<Bytes> {
        let rec = self.record(i);
        let major = self.header.version_major;
        if self.index.compressed && rec.section_kind().is_container() {
            // Where `directory` moved it to in the index's buffer (the layout check placed
            // it within the index).
            let start = self.index.container_start(i, &rec);
            let bytes = match &self.index.bytes {
                Bytes::Shared { words, .. } => IntoBytes::as_bytes(&words[..]),
                _ => self.index_bytes,
            };
            let bytes = start
                .checked_add(rec.stored_size() as usize)
                .and_then(|end| bytes.get(start..end))
                .unwrap_or(&[]);
            if rec.checksum_of(major, xxh3_64(bytes)) != rec.hash() {
                return Err(err(
                    K::ChecksumMismatch,
                    rec.offset(),
                    format!("section {i} checksum mismatch"),
                ));
            }
            // Viewed where it lies in the index (counted with it) when its records can be:
            // at a multiple of 4.
            if let (Bytes::Shared { words, .. }, 0) = (&self.index.bytes, start % 4) {
                return Ok(Bytes::Shared {
                    words: words.clone(),
                    start,
                    end: start + bytes.len(),
                });
            }
            self.budget.reserve(u(bytes.len()))?;
            let words = owned_words(bytes.len(), |d| d.copy_from_slice(bytes));
            Ok(Bytes::Owned {
                words,
                len: bytes.len(),
            })
        } else {
            let reserve = |size: u64| self.budget.reserve(size);
            let count = self.header.section_count as usize;
            let run = match self.header.has_checksum_runs() {
                true => run_of(&|j| self.record(j), count, i, &rec),
                false => None,
            };
            let bare = self.header.has_bare_frames();
            section_bytes(
                self.file,
                (i, major, bare),
                (&rec, run),
                &reserve,
                [None, None],
            )
        }
    }

    /// Container table `i` (of `what`), loaded and repacked to records of `size` bytes.
    fn table(&self, i: usize, size: usize, what: &str) -> Result<Bytes> {
        let rec = self.record(i);
        repack(
            self.file,
            self.load(i)?,
            &rec,
            size,
            &|| format!("section {i} ({what})"),
            &|size| self.budget.reserve(size),
        )
    }

    /// Loads the entries, key index, entry points and dependencies tables (SPEC.md 5.2 to
    /// 5.5), in that order.
    #[inline(always)]
    fn container_tables(&self, c: &Containers) -> Result<ContainerTables> {
        let entries = self.table(c.entries, size_of::<EntryRecord>(), "entries")?;
        let key_index = match c.key_index {
            Some(i) => self.table(i, size_of::<KeyIndexRecord>(), "key index")?,
            None => Bytes::EMPTY,
        };
        let entry_points = self.table(
            c.entry_points,
            size_of::<EntryPointRecord>(),
            "entry points",
        )?;
        let dependencies = self.table(
            c.dependencies,
            size_of::<DependencyRecord>(),
            "dependencies",
        )?;
        Ok(ContainerTables {
            entries,
            key_index,
            entry_points,
            dependencies,
        })
    }

    /// Loads the entry-point targets table (SPEC.md 5.8); the code blobs wait for their use.
    #[inline(always)]
    fn target_tables(&self, raw: RawTargetSections) -> Result<TargetTables> {
        raw.finish(self.file, &|i| self.load(i), &|size| {
            self.budget.reserve(size)
        })
    }

    /// Where the entries and the key index are, for the keys' errors.
    #[inline(always)]
    fn key_offsets(&self, c: &Containers) -> KeyOffsets {
        KeyOffsets {
            entries: self.record(c.entries).offset(),
            key_index: c.key_index.map_or(0, |i| self.record(i).offset()),
        }
    }

    /// The directory as the package keeps it: in place in the file, or at the start of the
    /// decompressed index.
    #[inline(always)]
    fn kept_directory(&self) -> Bytes {
        match &self.index.bytes {
            Bytes::Shared { words, .. } => Bytes::Shared {
                words: words.clone(),
                start: 0,
                end: self.dir.len(),
            },
            Bytes::Owned { .. } => Bytes::Owned {
                words: owned_words(self.dir.len(), |d| d.copy_from_slice(self.dir)),
                len: self.dir.len(),
            },
            &Bytes::File { start, end } => Bytes::File { start, end },
        }
    }

    /// The package string pool (SPEC.md 5.1): its header, its size, every reference and UTF-8.
    #[inline(always)]
    fn string_pool(&self, i: usize) -> Result<StringPool> {
        let off = self.record(i).offset();
        let raw = self.load(i)?;
        let bytes = raw.get(self.file);
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
        let refs_bytes = bytes.get(8..8 + refs_len as usize).unwrap_or(&[]);
        let text_bytes = bytes.get(8 + refs_len as usize..).unwrap_or(&[]);
        let refs: &[StringRef] = cast(refs_bytes);
        crate::blob::check_strings(refs, text_bytes, |kind, detail| {
            err(kind, off, format!("{what}: {detail}"))
        })?;
        // The references, 8-aligned on their own (they follow an 8-byte header).
        let refs = match &raw {
            &Bytes::File { start, .. } => Bytes::File {
                start: start + 8,
                end: start + 8 + refs_len as usize,
            },
            Bytes::Shared { words, start, .. } => Bytes::Shared {
                words: words.clone(),
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
        Ok(StringPool {
            bytes: raw,
            text_at: 8 + refs_len as usize,
            refs,
        })
    }
}

/// Where the directory places each section, as [`SectionLoader::map_sections`] finds it.
#[derive(Default)]
struct SectionMap {
    /// Where each container section is, in the order of `SectionKind::CONTAINERS`.
    singles: [Option<usize>; SectionKind::CONTAINERS.len()],
    /// Where the blobs lie: a few words per run of consecutive sections, nothing per blob.
    spirv: CellsBuilder,
    reflections: CellsBuilder,
    unknown: Vec<u32>,
    dictionary: Option<usize>,
    tables_dictionary: Option<usize>,
    targets: RawTargetSections,
    uses_dictionary: bool,
}

impl SectionMap {
    /// Places section `i` by its kind, checking its sizes and compression (SPEC.md 4.3 rules
    /// 5 and 7) and that a container section comes once (4.1).
    fn place(&mut self, i: usize, rec: &SectionRecord, budget: &mut Budget) -> Result<()> {
        let offset = rec.offset();
        let kind = rec.section_kind();
        let slot = match kind {
            SectionKind::Spirv | SectionKind::Reflection => None,
            SectionKind::TargetCode | SectionKind::EntryPointTargets => {
                return self.place_target(i, rec, budget)
            }
            SectionKind::Dictionary | SectionKind::TablesDictionary => {
                return self.place_dictionary(i, rec, budget)
            }
            _ => match kind.container_slot() {
                Some(slot) => Some(slot),
                // A sharded bake's plan slice, read on request (`Package::shard_plan`), or a
                // newer minor version's section: its checksum is checked by verify_all.
                None => {
                    self.unknown.push(i as u32);
                    return Ok(());
                }
            },
        };
        check_sizes(i, rec)?;
        if rec.compression_kind() == Compression::ZstdSplitDictionaries
            && kind != SectionKind::Reflection
        {
            return Err(err(
                K::UnsupportedCompression,
                offset,
                format!("section {i}: only reflection blobs are stored with two dictionaries"),
            ));
        }
        if matches!(
            rec.compression_kind(),
            Compression::ZstdSharedTables | Compression::InBindRun
        ) {
            if kind != SectionKind::Reflection {
                return Err(err(
                    K::UnsupportedCompression,
                    offset,
                    format!("section {i}: only reflection blobs share raw tables"),
                ));
            }
            // The section holding its raw tables comes before it (what it holds is checked
            // at the first use of the raw tables).
            let distance = rec.record_count as usize;
            if distance == 0 || distance > i {
                return Err(err(
                    K::IndexOutOfRange,
                    offset,
                    format!(
                        "section {i}: shares the raw tables of the section {distance} before it"
                    ),
                ));
            }
        }
        let packed = rec.compression_kind().is_packed_spirv();
        if (packed || rec.compression_kind() == Compression::InModuleRun)
            && kind != SectionKind::Spirv
        {
            return Err(err(
                K::UnsupportedCompression,
                offset,
                format!("section {i}: only SPIR-V modules are stored packed"),
            ));
        }
        if matches!(
            rec.compression_kind(),
            Compression::ZstdDictionary | Compression::ZstdDictionaryPackedSpirv
        ) {
            if slot.is_some() {
                return Err(err(
                    K::UnsupportedCompression,
                    offset,
                    format!(
                        "section {i}: container sections are not compressed with the dictionary"
                    ),
                ));
            }
            self.uses_dictionary = true;
        }
        budget.charge(i, rec)?;
        match slot {
            Some(s) => self.place_container(i, rec, s),
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
                self.spirv.push(i);
                Ok(())
            }
            None => {
                self.reflections.push(i);
                Ok(())
            }
        }
    }

    /// Code for further targets: its blobs are loaded with the entries.
    fn place_target(&mut self, i: usize, rec: &SectionRecord, budget: &mut Budget) -> Result<()> {
        check_sizes(i, rec)?;
        if matches!(
            rec.compression_kind(),
            Compression::ZstdDictionary
                | Compression::ZstdSplitDictionaries
                | Compression::ZstdSharedTables
                | Compression::ZstdPackedSpirv
                | Compression::ZstdDictionaryPackedSpirv
                | Compression::InModuleRun
                | Compression::InBindRun
        ) {
            return Err(err(
                K::UnsupportedCompression,
                rec.offset(),
                format!("section {i}: target code is stored plain or zstd alone"),
            ));
        }
        budget.charge(i, rec)?;
        self.targets.add(i, rec)
    }

    /// A dictionary section (`Dictionary` or `TablesDictionary`): at most one of each kind,
    /// not compressed with a dictionary.
    fn place_dictionary(
        &mut self,
        i: usize,
        rec: &SectionRecord,
        budget: &mut Budget,
    ) -> Result<()> {
        check_sizes(i, rec)?;
        if !matches!(
            rec.compression_kind(),
            Compression::None | Compression::Zstd
        ) {
            return Err(err(
                K::UnsupportedCompression,
                rec.offset(),
                format!("section {i}: a dictionary compressed with a dictionary"),
            ));
        }
        let slot = match rec.section_kind() {
            SectionKind::Dictionary => &mut self.dictionary,
            _ => &mut self.tables_dictionary,
        };
        if slot.replace(i).is_some() {
            return Err(err(
                K::Duplicate,
                rec.offset(),
                format!("section {i}: a second {:?} section", rec.section_kind()),
            ));
        }
        budget.charge(i, rec)
    }

    /// Container section `i`, of slot `s` of `SectionKind::CONTAINERS`: the first of its kind.
    fn place_container(&mut self, i: usize, rec: &SectionRecord, s: usize) -> Result<()> {
        #[allow(
            clippy::indexing_slicing,
            reason = "`s` is a position in CONTAINERS, the length of `singles`"
        )]
        if self.singles[s].replace(i).is_some() {
            return Err(err(
                K::Duplicate,
                rec.offset(),
                format!("section {i}: a second {:?} section", rec.section_kind()),
            ));
        }
        Ok(())
    }

    /// The container sections the package must have (SPEC.md 4.1): strings, entries, entry
    /// points, dependencies, and a key index in 1.x only; and the dictionary, if any section
    /// is compressed with it.
    #[inline(always)]
    fn containers(&self, loader: &SectionLoader<'_>) -> Result<Containers> {
        let need = |s: Option<usize>, kind: SectionKind| {
            s.ok_or_else(|| {
                err(
                    K::MissingSection,
                    0,
                    format!("no {kind:?} section (required)"),
                )
            })
        };
        if self.uses_dictionary && self.dictionary.is_none() {
            return Err(err(
                K::MissingSection,
                0,
                "sections are compressed with a dictionary but there is no dictionary section",
            ));
        }
        // 1.x stores a key index; 2.0 has none (lookups compare keys, SPEC.md 5.3).
        let stores_hashes = loader.header.version_major == VERSION_MAJOR_READ;
        let [strings, entries, key_index, entry_points, dependencies] = self.singles;
        let key_index = match (key_index, stores_hashes) {
            (Some(i), false) => {
                return Err(err(
                    K::BadKeyIndex,
                    loader.record(i).offset(),
                    format!("section {i}: a key index, which 2.0 packages do not have"),
                ))
            }
            (slot, false) => slot,
            (slot, true) => Some(need(slot, SectionKind::KeyIndex)?),
        };
        Ok(Containers {
            strings: need(strings, SectionKind::Strings)?,
            entries: need(entries, SectionKind::Entries)?,
            key_index,
            entry_points: need(entry_points, SectionKind::EntryPoints)?,
            dependencies: need(dependencies, SectionKind::Dependencies)?,
        })
    }
}

/// The directory indices of the container sections.
struct Containers {
    strings: usize,
    entries: usize,
    key_index: Option<usize>,
    entry_points: usize,
    dependencies: usize,
}

/// The package string pool, checked: the section, where its text starts, its references.
struct StringPool {
    bytes: Bytes,
    text_at: usize,
    refs: Bytes,
}

/// File offsets of the entries and the key index (0 when none), for the keys' errors.
#[derive(Clone, Copy)]
struct KeyOffsets {
    entries: u64,
    key_index: u64,
}

/// The container tables, loaded and repacked.
struct ContainerTables {
    entries: Bytes,
    key_index: Bytes,
    entry_points: Bytes,
    dependencies: Bytes,
}

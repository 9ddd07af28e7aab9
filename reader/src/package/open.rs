//! What opening a package checks (SPEC.md section 4), in order: the header, the directory and
//! the layout ([`super::layout`]), then the container tables and the keys' order (in a 1.x
//! package, the key index); nothing per blob or module.

use super::*;

impl Package {
    pub(super) fn parse(storage: Storage) -> Result<Self> {
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
        let mut target_raw = super::targets::RawTargetSections::default();
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
        // What most sections of a package of many entries are: a SPIR-V module stored as it
        // is, whose checks are three comparisons (the general path below makes the same ones,
        // and reports any that fails).
        const SPIRV: u32 = SectionKind::Spirv.to_raw();
        const STORED: u32 = Compression::None.to_raw();
        for (i, rec) in records(dir, dir_stride).enumerate() {
            if rec.kind == SPIRV && rec.compression == STORED {
                let size = rec.raw_size();
                if size == rec.stored_size()
                    && size <= limits::MAX_SECTION_RAW_SIZE
                    && size % 4 == 0
                {
                    spirv.push(i);
                    continue;
                }
            }
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
                Some(s) =>
                {
                    #[allow(
                        clippy::indexing_slicing,
                        reason = "`s` is a position in CONTAINERS, the length of `singles`"
                    )]
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
        // 1.x stores a key index; 2.0 has none (lookups compare keys, SPEC.md 5.3).
        let stores_hashes = header.version_major == VERSION_MAJOR_READ;
        let [strings, entries, key_index, entry_points, dependencies] = singles;
        let key_index = match (key_index, stores_hashes) {
            (Some(i), false) => {
                return Err(err(
                    K::BadKeyIndex,
                    record_at(dir, dir_stride, i).offset(),
                    format!("section {i}: a key index, which 2.0 packages do not have"),
                ))
            }
            (slot, false) => slot,
            (slot, true) => Some(need(slot, SectionKind::KeyIndex)?),
        };
        let strings = need(strings, SectionKind::Strings)?;
        let entries = need(entries, SectionKind::Entries)?;
        let entry_points = need(entry_points, SectionKind::EntryPoints)?;
        let dependencies = need(dependencies, SectionKind::Dependencies)?;

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
                check_checksum(index_bytes, i, &rec, header.version_major)?;
                let bytes = stored_bytes(index_bytes, &rec);
                reserve(u(bytes.len()))?;
                let words = owned_words(bytes.len(), |d| d.copy_from_slice(bytes));
                Ok(Bytes::Owned {
                    words,
                    len: bytes.len(),
                })
            } else {
                section_bytes(file, (i, header.version_major), &rec, &reserve, None)
            }
        };
        let table = |i: usize, size: usize, what: &str| -> Result<Bytes> {
            let rec = record(i);
            repack(
                file,
                load(i)?,
                &rec,
                size,
                &|| format!("section {i} ({what})"),
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
        let key_index_loc = match key_index {
            Some(i) => table(i, size_of::<KeyIndexRecord>(), "key index")?,
            None => Bytes::EMPTY,
        };
        let entry_points_loc = table(entry_points, size_of::<EntryPointRecord>(), "entry points")?;
        let dependencies_loc = table(dependencies, size_of::<DependencyRecord>(), "dependencies")?;
        let targets = target_raw.finish(file, &|i| load(i), &reserve)?;
        let entries_off = record(entries).offset();
        let key_index_off = key_index.map_or(0, |i| record(i).offset());
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
            key_hashes: OnceLock::new(),
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
        if stores_hashes {
            package.check_key_index(entries_off, key_index_off)?;
        } else {
            package.check_key_order(entries_off)?;
        }
        let package = Package {
            loaded: (0..package.len())
                .map(|_| std::sync::atomic::AtomicBool::new(false))
                .collect(),
            ..package
        };
        package.check_targets(package.string_count())?;
        Ok(package)
    }

    /// The check of a 2.0 package's entries made at open, what makes the sorted keys its key
    /// index: every entry's key is a package string, and the keys strictly increase
    /// (bytewise), so that a binary search finds every key there is.
    pub(super) fn check_key_order(&self, entries_off: u64) -> Result<()> {
        let string_count = self.string_count();
        let mut previous: Option<&[u8]> = None;
        for (i, e) in self.entry_records().iter().enumerate() {
            if e.key >= string_count {
                return Err(err(
                    K::IndexOutOfRange,
                    entries_off,
                    format!("entry {i}: key string {} out of range", e.key),
                ));
            }
            let key = self.string_bytes(e.key);
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

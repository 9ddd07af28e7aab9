//! What opening a package checks (SPEC.md section 4): the header, the section directory,
//! the layout of the sections in the file, the container tables, the key index and each entry
//! record; nothing per blob or module.

use super::*;

/// Reads a `T` from the start of `bytes` (copying), or reports truncation.
pub(super) fn read_prefix<T: FromBytes>(bytes: &[u8], offset: u64, what: &str) -> Result<T> {
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

pub(super) fn u(x: usize) -> u64 {
    x as u64
}

/// The directory records (their known prefix), in order.
/// The directory's records, viewed in place (the directory is 8-aligned and its stride a
/// multiple of 4, checked at open; a record that could not be viewed reads as zeros).
pub(super) fn records(dir: &[u8], stride: u32) -> impl Iterator<Item = &SectionRecord> + '_ {
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

pub(super) fn record_at(dir: &[u8], stride: u32, i: usize) -> SectionRecord {
    let start = i.saturating_mul(stride as usize);
    dir.get(start..)
        .and_then(|r| SectionRecord::read_from_prefix(r).ok())
        .map_or_else(SectionRecord::default, |(v, _)| v)
}

/// Validates the fixed header fields.
pub(super) fn parse_header(file: &[u8]) -> Result<FileHeader> {
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
pub(super) struct Index {
    /// File offset of the directory, or of the compressed index's frame.
    pub(super) start: u64,
    /// End of what `start` begins in the file.
    pub(super) end: u64,
    /// The directory in place (a range of the file), or the decompressed index.
    pub(super) bytes: Bytes,
    /// Whether the directory comes from a compressed index (SPEC.md 4.4).
    pub(super) compressed: bool,
}

/// The section directory, after checking its bounds and checksum; in a package with a
/// compressed index, the index decompressed (its declared size bounded first).
pub(super) fn directory(file: &[u8], header: &FileHeader) -> Result<Index> {
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
    let words = decompress_exact(stored, raw, None, offset, &|| "compressed index".to_owned())?;
    Ok(Index {
        start: offset,
        end,
        bytes: Bytes::Owned { words, len: raw },
        compressed,
    })
}

/// Whether [`check_layout`] reads the bytes between regions to check that they are zero.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Padding {
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
pub(super) fn check_layout(
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
pub(super) fn file_range(file: &[u8], i: usize, rec: &SectionRecord) -> Result<u64> {
    let start = rec.offset();
    match start.checked_add(rec.stored_size()) {
        Some(end) if end <= u(file.len()) && aligned_if_viewed(rec) => Ok(end),
        _ => range_error(file, i, rec),
    }
}

/// Whether a section viewed in place starts 8-aligned (a zstd frame is only ever
/// decompressed, so it may start anywhere).
#[inline]
pub(super) fn aligned_if_viewed(rec: &SectionRecord) -> bool {
    let compressed = matches!(
        rec.compression_kind(),
        Compression::Zstd | Compression::ZstdDictionary
    );
    compressed || rec.offset() % SECTION_ALIGN == 0
}

/// The error [`file_range`] reports.
#[cold]
pub(super) fn range_error(file: &[u8], i: usize, rec: &SectionRecord) -> Result<u64> {
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

pub(super) fn check_zero(file: &[u8], start: u64, end: u64) -> Result<()> {
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
pub(super) fn check_sizes(i: usize, rec: &SectionRecord) -> Result<()> {
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
pub(super) fn sizes_error(i: usize, rec: &SectionRecord) -> Result<()> {
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

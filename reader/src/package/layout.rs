//! The fixed header, the section directory and the layout of the sections in the file
//! (SPEC.md 4.1-4.3): what [`Package::parse`] checks before it reads any section.

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

/// The shape of the checksum runs (2.3, SPEC.md 4.3 rule 3) of the directory `dir` (records
/// of `stride` bytes, each within the file): among the sections in the file (not container
/// sections), in directory order, every section without a checksum (`hash` 0) is followed by
/// one that holds its run's; a run's sections follow each other in the file, and it covers at
/// most `MAX_CHECKSUM_RUN_SECTIONS` sections and `MAX_CHECKSUM_RUN_SIZE` bytes. The checksum
/// itself is checked at the first touch of a section of the run.
fn check_runs(dir: &[u8], stride: u32) -> Result<()> {
    // The run so far: its first section, where it starts in the file, how many sections.
    let mut run: Option<(usize, u64, u32)> = None;
    let mut previous_end = 0;
    for (i, rec) in records(dir, stride).enumerate() {
        if rec.section_kind().is_container() {
            continue;
        }
        let (start, end) = (rec.offset(), rec.offset().saturating_add(rec.stored_size()));
        if run.is_none() && rec.hash() == 0 {
            run = Some((i, start, 0));
        }
        if let Some((first, run_start, count)) = &mut run {
            if *count > 0 && start < previous_end {
                return Err(err(
                    K::Overlap,
                    start,
                    format!(
                        "section {i} starts before the section before it ends, in the checksum run from section {first}"
                    ),
                ));
            }
            *count += 1;
            if *count > limits::MAX_CHECKSUM_RUN_SECTIONS
                || end.saturating_sub(*run_start) > limits::MAX_CHECKSUM_RUN_SIZE
            {
                return Err(err(
                    K::LimitExceeded,
                    *run_start,
                    format!(
                        "the checksum run from section {first} covers more than {} sections or {} bytes",
                        limits::MAX_CHECKSUM_RUN_SECTIONS,
                        limits::MAX_CHECKSUM_RUN_SIZE
                    ),
                ));
            }
        }
        if rec.hash() != 0 {
            run = None;
        }
        previous_end = end;
    }
    match run {
        Some((first, start, _)) => Err(err(
            K::ChecksumMismatch,
            start,
            format!(
                "sections from {first} on hold no checksum, and no section after them holds their checksum run's"
            ),
        )),
        None => Ok(()),
    }
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
    let paged = slangpack_format::PAGED_VERSION_MAJOR;
    if ![VERSION_MAJOR, VERSION_MAJOR_READ, paged].contains(&header.version_major) {
        return Err(err(
            K::UnsupportedVersion,
            8,
            format!(
                "package format version {}.{}, this reader supports {VERSION_MAJOR_READ}.x, {VERSION_MAJOR}.x and {paged}.x",
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
    /// The directory in place (a range of the file), or the decompressed index (shared with
    /// the directory and container sections the package views in it).
    pub(super) bytes: Bytes,
    /// Whether the directory comes from a compressed index (SPEC.md 4.4).
    pub(super) compressed: bool,
    /// The bytes the index's decompression made: the index's, and a packed index's content
    /// besides (2.2); 0 for a plain directory.
    pub(super) decompressed: u64,
    /// In a compressed index, where each container section was moved to in the index's
    /// buffer (directory index, start), so that its records are 4-aligned there; a container
    /// not listed is where its record says.
    pub(super) moved: Vec<(usize, usize)>,
}

impl Index {
    /// Where container section `i` of a compressed index lies in the index's buffer.
    pub(super) fn container_start(&self, i: usize, rec: &SectionRecord) -> usize {
        self.moved
            .iter()
            .find(|&&(j, _)| j == i)
            .map_or(rec.offset() as usize, |&(_, start)| start)
    }
}

/// Bytes after a decompressed index, room to move each container section (at most 5, 4.4)
/// up to 3 bytes on to a multiple of 4.
const INDEX_SPARE: usize = 8 * SectionKind::CONTAINERS.len();

/// Moves the container sections of a decompressed index (`raw` bytes of `words`, the
/// directory `header` describes first) on to multiples of 4, into the spare bytes after it,
/// last first, so that their records can be viewed in place; returns where each went. Only where their
/// records place them back to back after the directory within the index, as SPEC.md 4.4
/// requires (`check_layout` reports any other placement): else nothing moves.
fn align_containers(words: &mut [u64], raw: usize, header: &FileHeader) -> Vec<(usize, usize)> {
    let stride = header.section_record_size;
    let dir_len = header.section_count as usize * stride as usize;
    let bytes = words.as_mut_bytes();
    let Some(dir) = bytes.get(..dir_len.min(raw)) else {
        return Vec::new();
    };
    // (directory index, start, size) of each container, in directory order.
    let mut found = Vec::with_capacity(SectionKind::CONTAINERS.len());
    let mut next = dir_len as u64;
    for (i, rec) in records(dir, stride).enumerate() {
        if !rec.section_kind().is_container() {
            continue;
        }
        let (start, size) = (rec.offset(), rec.stored_size());
        if start != next || found.len() == SectionKind::CONTAINERS.len() {
            return Vec::new();
        }
        next = start.saturating_add(size);
        found.push((i, start as usize, size as usize));
    }
    if next > u(raw) {
        return Vec::new();
    }
    let mut moved = Vec::with_capacity(found.len());
    let mut shift = 0;
    for &(i, start, _) in &found {
        shift += (4 - (start + shift) % 4) % 4;
        moved.push((i, start + shift));
    }
    for (&(_, start, size), &(_, to)) in found.iter().zip(&moved).rev() {
        if to != start && to + size <= bytes.len() {
            bytes.copy_within(start..start + size, to);
        }
    }
    moved
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
            decompressed: 0,
            moved: Vec::new(),
        });
    }
    // A packed index (2.2) is its prefix, then the frame of its packed content.
    let packed = header.has_packed_index();
    let stored = match packed {
        true => stored
            .strip_prefix(&slangpack_format::PACKED_INDEX_PREFIX)
            .ok_or_else(|| {
                let what = "the packed index does not start with its empty skippable frame";
                err(K::Decompress, offset, what)
            })?,
        false => stored,
    };
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
    // A packed index (2.2) holds less than its directory; its content is bounded alike.
    if raw > limits::MAX_SECTION_RAW_SIZE || (raw < len && !packed) {
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
    let what = || "compressed index".to_owned();
    let (mut words, raw, decompressed) = if packed {
        let content = decompress_exact(stored, (raw, false), None, offset, &what)?;
        let content = content.as_bytes().get(..raw).unwrap_or_default();
        let (words, len) = unpack_index(content, header, offset)?;
        (words, len, u(raw + len))
    } else {
        let words =
            decompress_exact_with_spare(stored, (raw, INDEX_SPARE, false), None, offset, &what)?;
        (words, raw, u(raw))
    };
    let moved = align_containers(&mut words, raw, header);
    // Shared: the package views its directory and container sections where they lie in it.
    Ok(Index {
        start: offset,
        end,
        bytes: Bytes::Shared {
            words: std::sync::Arc::new(words),
            start: 0,
            end: raw,
        },
        compressed,
        decompressed,
        moved,
    })
}

/// The index a packed index's `content` holds (SPEC.md 4.4, 2.2), unpacked into an owned
/// buffer with room to align its container sections after it; with its size. An index that
/// does not unpack is `Decompress`, one past the limit on a section's size `LimitExceeded`.
fn unpack_index(content: &[u8], header: &FileHeader, offset: u64) -> Result<(Box<[u64]>, usize)> {
    let (count, stride) = (header.section_count, header.section_record_size);
    let index =
        slangpack_format::PackedIndex::parse(content, count, stride, limits::MAX_SECTION_RAW_SIZE)
            .map_err(|e| err(K::Decompress, offset, e.to_string()))?;
    let len = index.len();
    let mut result = Ok(());
    let words = owned_words(len + INDEX_SPARE, |dst| result = index.unpack_into(dst));
    result.map_err(|e| err(K::Decompress, offset, e.to_string()))?;
    Ok((words, len))
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
    if header.has_checksum_runs() {
        check_runs(dir, stride)?;
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
    let c = rec.compression_kind();
    c.is_zstd()
        || matches!(c, Compression::InModuleRun | Compression::InBindRun)
        || rec.offset() % SECTION_ALIGN == 0
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
            Compression::InModuleRun | Compression::InBindRun => rec.stored_size() == 0,
            c => c.is_zstd(),
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
        Compression::ZstdSplitDictionaries | Compression::ZstdSharedTables => Ok(()),
        Compression::ZstdPackedSpirv | Compression::ZstdDictionaryPackedSpirv => Ok(()),
        Compression::InModuleRun if rec.stored_size() != 0 => Err(err(
            K::SizeMismatch,
            offset,
            format!(
                "section {i}: in a module run but {} bytes stored",
                rec.stored_size()
            ),
        )),
        Compression::InBindRun if rec.stored_size() != 0 => Err(err(
            K::SizeMismatch,
            offset,
            format!(
                "section {i}: in a bind-view run but {} bytes stored",
                rec.stored_size()
            ),
        )),
        Compression::InModuleRun | Compression::InBindRun => Ok(()),
        Compression::Unknown(c) => Err(err(
            K::UnsupportedCompression,
            offset,
            format!("section {i}: unknown compression {c}"),
        )),
    }
}

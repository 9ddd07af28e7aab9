//! Laying out a package's bytes (SPEC.md section 4): header, directory, each section at a
//! multiple of 8, the compressed index, the string pool, every checksum.

use super::*;

pub(super) fn count_u32(n: usize, what: &'static str) -> Result<u32, BuildError> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n < ABSENT)
        .ok_or(BuildError::LimitExceeded(what))
}

pub(super) fn raw_section(
    kind: SectionKind,
    stride: u32,
    count: u32,
    bytes: Vec<u8>,
) -> RawSection {
    RawSection {
        kind: kind.to_raw(),
        compression: Compression::None.to_raw(),
        stride,
        count,
        raw_size: bytes.len() as u64,
        stored: bytes,
    }
}

pub(super) fn table_section<R: crate::PackageTableRecord>(
    records: &[R],
) -> Result<RawSection, BuildError> {
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
    lay_out(&[], &Piece::borrowed(sections), None)
}

/// A section as [`lay_out`] places it: one made by the builder (or given by a caller), or a
/// SPIR-V module stored uncompressed, laid out straight from the builder's words rather than
/// copied into a section of its own first (a package's SPIR-V is held once, not twice).
pub(super) enum Piece<'a> {
    /// A section the builder made.
    Owned(RawSection),
    /// A section a caller of [`assemble_sections`] gave.
    Borrowed(&'a RawSection),
    /// An uncompressed `Spirv` section: the module's words.
    Words(&'a [u32]),
    /// An uncompressed `Spirv` section: `words` words at byte `offset` of `spool`, hashing to
    /// `hash`, copied into the package as it is written.
    Spooled {
        spool: &'a Spool,
        offset: u64,
        words: usize,
        hash: u64,
    },
}

impl Piece<'_> {
    fn borrowed(sections: &[RawSection]) -> Vec<Piece<'_>> {
        sections.iter().map(Piece::Borrowed).collect()
    }

    fn section(&self) -> Option<&RawSection> {
        match self {
            Piece::Owned(s) => Some(s),
            Piece::Borrowed(s) => Some(s),
            Piece::Words(_) | Piece::Spooled { .. } => None,
        }
    }

    /// The directory fields other than offset, sizes and checksum: kind, compression,
    /// stride, count.
    fn fields(&self) -> [u32; 4] {
        match self.section() {
            Some(s) => [s.kind, s.compression, s.stride, s.count],
            None => [
                SectionKind::Spirv.to_raw(),
                Compression::None.to_raw(),
                0,
                0,
            ],
        }
    }

    fn raw_size(&self) -> u64 {
        self.section().map_or(self.stored_len(), |s| s.raw_size)
    }

    /// The stored bytes, when they are in memory.
    fn stored(&self) -> Option<&[u8]> {
        match self {
            Piece::Owned(s) => Some(&s.stored),
            Piece::Borrowed(s) => Some(&s.stored),
            Piece::Words(words) => Some(words.as_bytes()),
            Piece::Spooled { .. } => None,
        }
    }

    fn stored_len(&self) -> u64 {
        match self {
            Piece::Spooled { words, .. } => *words as u64 * 4,
            _ => self.stored().map_or(0, |s| s.len() as u64),
        }
    }

    /// The xxh3-64 of the stored bytes (the directory's checksum).
    fn stored_hash(&self) -> u64 {
        match self {
            Piece::Spooled { hash, .. } => *hash,
            _ => xxh3_64(self.stored().unwrap_or_default()),
        }
    }
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
    lay_out(index, &Piece::borrowed(sections), Some(level))
}

/// [`assemble_sections`] (`level` `None`, `index` empty) or [`assemble_sections_indexed`].
/// With a compressed index (`level`), `bare` sets [`FLAG_BARE_FRAMES`]: the caller stored
/// every zstd frame of `sections` bare ([`RawSection::make_bare`]).
pub(super) fn lay_out_to(
    index: &[RawSection],
    sections: &[Piece<'_>],
    (level, bare): (Option<i32>, bool),
    out: &mut dyn Sink,
) -> Result<u64, BuildError> {
    let header_size = core::mem::size_of::<FileHeader>() as u64;
    let record_size = core::mem::size_of::<SectionRecord>() as u64;
    let count = u32::try_from(index.len() + sections.len())
        .ok()
        .filter(|&n| n <= limits::MAX_SECTIONS)
        .ok_or(BuildError::LimitExceeded("section count"))?;
    let dir_len = record_size * u64::from(count);
    let mut placed = place(index, sections, level, header_size, dir_len, count)?;
    // With a compressed index, small sections share their checksums (SPEC.md 4.3 rule 3).
    let runs = level.is_some() && {
        let files = placed.dir.get_mut(index.len()..).unwrap_or_default();
        checksum_runs(files, sections, &placed.offsets)
    };
    // The directory as stored: plain after the header, or compressed with the index sections
    // after the last section.
    let (dir_offset, stored_dir, flags, index_size) = match level {
        None => (header_size, placed.dir.as_bytes().to_vec(), 0, 0),
        Some(level) => {
            let (frame, size, packed) = index_and_lengths(
                &mut placed.dir,
                index,
                (placed.index_end, placed.end),
                level,
            )?;
            let mut flags = FLAG_COMPRESSED_INDEX;
            if packed {
                flags |= FLAG_PACKED_INDEX;
            }
            if runs {
                flags |= FLAG_CHECKSUM_RUNS;
            }
            if bare {
                flags |= FLAG_BARE_FRAMES;
            }
            (placed.end, frame, flags, size)
        }
    };
    let file_size = match level {
        None => placed.end,
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
    let stored_dir = (dir_offset, stored_dir.as_slice());
    write_out(
        out,
        &header,
        stored_dir,
        sections,
        &placed.offsets,
        level,
        file_size,
    )?;
    Ok(file_size)
}

/// Where [`place`] put the sections.
struct Placed {
    /// The directory's records: the index sections', then the file's.
    dir: Vec<SectionRecord>,
    /// Each section's offset in the file.
    offsets: Vec<u64>,
    /// Where the index's sections end, from the index's start (the directory's length when
    /// there are none).
    index_end: u64,
    /// Where the last section ends, aligned.
    end: u64,
}

/// Places the index's sections (offsets from the index's start, right after the directory)
/// and the file's (after the header, or after the directory when it is stored plain), each
/// with its directory record.
///
/// # Errors
/// [`BuildError::LimitExceeded`] for a section or sections too large.
fn place(
    index: &[RawSection],
    sections: &[Piece<'_>],
    level: Option<i32>,
    header_size: u64,
    dir_len: u64,
    count: u32,
) -> Result<Placed, BuildError> {
    let mut dir = Vec::with_capacity(count as usize);
    let mut total_raw = 0u64;
    let mut record = |s: &Piece<'_>, offset: u64| -> Result<(), BuildError> {
        let rec = section_record(s, offset)?;
        total_raw += s.raw_size();
        dir.push(rec);
        Ok(())
    };
    // Sections inside the index: offsets from the index's start, right after the directory.
    let mut index_offset = dir_len;
    for s in index {
        record(&Piece::Borrowed(s), index_offset)?;
        index_offset += s.stored.len() as u64;
    }
    // Sections in the file: after the header, or after the directory when it is stored plain.
    let mut offset = match level {
        Some(_) => header_size,
        None => align_up_u64(header_size + dir_len, SECTION_ALIGN),
    };
    // With a compressed index, compressed sections are packed back to back (only sections
    // viewed in place need alignment).
    let place = |offset: u64, s: &Piece<'_>| match level {
        Some(_) if s.fields()[1] != Compression::None.to_raw() => offset,
        _ => align_up_u64(offset, SECTION_ALIGN),
    };
    let mut offsets = Vec::with_capacity(sections.len());
    for s in sections {
        offset = place(offset, s);
        record(s, offset)?;
        offsets.push(offset);
        offset += s.stored_len();
    }
    let end = align_up_u64(offset, SECTION_ALIGN);
    if total_raw > limits::MAX_TOTAL_OWNED_SIZE {
        return Err(BuildError::LimitExceeded("total raw size"));
    }
    Ok(Placed {
        dir,
        offsets,
        index_end: index_offset,
        end,
    })
}

/// The directory record of `s` at `offset`, with its checksum.
///
/// # Errors
/// [`BuildError::LimitExceeded`] for a section too large.
fn section_record(s: &Piece<'_>, offset: u64) -> Result<SectionRecord, BuildError> {
    let (raw_size, stored_len) = (s.raw_size(), s.stored_len());
    if raw_size > limits::MAX_SECTION_RAW_SIZE {
        return Err(BuildError::LimitExceeded("section raw size"));
    }
    let mut rec = SectionRecord::new(s.fields(), offset, stored_len, raw_size);
    (rec.hash_lo, rec.hash_hi) = split_u64(rec.checksum_of(VERSION_MAJOR, s.stored_hash()));
    Ok(rec)
}

/// How many file bytes a checksum run spans at most as this writer makes them (SPEC.md 4.3
/// rule 3): the first touch of a section looks its run up in the directory and hashes it
/// (once per run), well under a microsecond; a run of 1 KiB of the large benchmark package's
/// sections (about 30 bytes each) still spends under 0.2 bytes of checksum per section.
const CHECKSUM_RUN_TARGET: u64 = 1 << 10;

/// Gives the sections in the file (`dir`, each of `sections` at its offset in `offsets`) shared
/// checksums (SPEC.md 4.3 rule 3, 2.3): consecutive sections spanning at most
/// [`CHECKSUM_RUN_TARGET`] bytes form a run, whose last section's `hash` is the checksum of the
/// run's bytes (as its own rule 3 takes it) and whose other sections' `hash` is 0. A section of
/// more bytes, or one spooled rather than in memory, keeps its own checksum. Returns whether
/// `dir` now uses runs; it is left as it was (and the package uses none) when a run's checksum
/// or a section's own would read 0, which a reader would take for a section in a run.
fn checksum_runs(dir: &mut [SectionRecord], sections: &[Piece<'_>], offsets: &[u64]) -> bool {
    let mut runs = dir.to_vec();
    let end = |k: usize| {
        offsets
            .get(k)
            .map_or(0, |o| o + sections.get(k).map_or(0, Piece::stored_len))
    };
    let in_memory = |k: usize| sections.get(k).and_then(Piece::stored).is_some();
    let mut first = 0;
    while first < runs.len() {
        let start = offsets.get(first).copied().unwrap_or(0);
        let mut last = first;
        while last + 1 < runs.len()
            && in_memory(first)
            && in_memory(last + 1)
            && end(last + 1) - start <= CHECKSUM_RUN_TARGET
            && last + 2 - first <= limits::MAX_CHECKSUM_RUN_SECTIONS as usize
        {
            last += 1;
        }
        if last > first {
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            let mut at = start;
            for k in first..=last {
                let offset = offsets.get(k).copied().unwrap_or(at);
                // Zero padding before the section (less than 8 bytes as this writer lays out).
                for _ in at..offset {
                    hasher.update(&[0]);
                }
                hasher.update(sections.get(k).and_then(Piece::stored).unwrap_or_default());
                at = end(k);
            }
            for rec in runs.get_mut(first..last).unwrap_or_default() {
                (rec.hash_lo, rec.hash_hi) = (0, 0);
            }
            if let Some(rec) = runs.get_mut(last) {
                (rec.hash_lo, rec.hash_hi) =
                    split_u64(rec.checksum_of(VERSION_MAJOR, hasher.digest()));
                if rec.hash() == 0 {
                    return false;
                }
            }
        } else if runs.get(first).is_some_and(|r| r.hash() == 0) {
            return false;
        }
        first = last + 1;
    }
    dir.copy_from_slice(&runs);
    true
}

/// The compressed index: the directory, then the index's sections (which end at
/// `index_end`), stored as [`crate::store_index`] stores it at `level`; with its size and
/// whether it is packed.
///
/// # Errors
/// [`BuildError::LimitExceeded`] for an index too large, [`BuildError::Compression`].
fn compressed_index(
    dir: &[SectionRecord],
    index: &[RawSection],
    index_end: u64,
    level: i32,
) -> Result<(Vec<u8>, u32, bool), BuildError> {
    if index_end > limits::MAX_SECTION_RAW_SIZE {
        return Err(BuildError::LimitExceeded("index size"));
    }
    let mut raw = Vec::with_capacity(index_end as usize);
    raw.extend_from_slice(dir.as_bytes());
    for s in index {
        raw.extend_from_slice(&s.stored);
    }
    let count = u32::try_from(dir.len()).map_err(|_| BuildError::LimitExceeded("index size"))?;
    let record_size = core::mem::size_of::<SectionRecord>() as u32;
    let (stored, packed) = crate::store_index(&raw, count, record_size, level)?;
    let size = u32::try_from(stored.len()).map_err(|_| BuildError::LimitExceeded("index size"))?;
    Ok((stored, size, packed))
}

/// The module runs' packed lengths (2.9, SPEC.md 5.6.2) are kept where they cost the package
/// at most one part in this many: a load then finds its module without stepping over the
/// modules before it. Where consecutive permutations' modules differ in length (the 10,000
/// permutations of a small compute shader: 9 KB on 71 KB) they cost about as much as the raw
/// sizes beside them, and are left out.
const LENGTHS_SHARE: usize = 100;

/// [`compressed_index`] of `dir`, whose `Spirv` records give their modules' packed lengths
/// (2.9), unless those would cost more than one part in [`LENGTHS_SHARE`] of the package (its
/// sections end at `sections_end`): then of `dir` without them, which is what `dir` is left
/// holding.
fn index_and_lengths(
    dir: &mut [SectionRecord],
    index: &[RawSection],
    (index_end, sections_end): (u64, u64),
    level: i32,
) -> Result<(Vec<u8>, u32, bool), BuildError> {
    let spirv = SectionKind::Spirv.to_raw();
    let with = compressed_index(dir, index, index_end, level)?;
    if !dir.iter().any(|r| r.kind == spirv && r.record_count != 0) {
        return Ok(with);
    }
    let mut without_lengths = dir.to_vec();
    for r in without_lengths.iter_mut().filter(|r| r.kind == spirv) {
        r.record_count = 0;
    }
    let without = compressed_index(&without_lengths, index, index_end, level)?;
    let cost = with.0.len().saturating_sub(without.0.len());
    let package = usize::try_from(sections_end).unwrap_or(usize::MAX) + without.0.len();
    if cost.saturating_mul(LENGTHS_SHARE) <= package {
        return Ok(with);
    }
    dir.copy_from_slice(&without_lengths);
    Ok(without)
}

/// Writes the package to `out` in order: the header, the directory (`stored_dir`: its offset
/// and bytes) after it when it is plain, each section at its offset, the compressed index
/// last, zero padding between them, up to `file_size`.
fn write_out(
    out: &mut dyn Sink,
    header: &FileHeader,
    stored_dir: (u64, &[u8]),
    sections: &[Piece<'_>],
    offsets: &[u64],
    level: Option<i32>,
    file_size: u64,
) -> Result<(), BuildError> {
    let (dir_offset, stored_dir) = stored_dir;
    out.expect(file_size);
    let mut written = 0u64;
    let mut put = |at: u64, bytes: &[u8]| -> Result<(), BuildError> {
        // Zero padding up to `at` (alignment: fewer than `SECTION_ALIGN` bytes), then `bytes`.
        while written < at {
            let n = (at - written).min(ZEROS.len() as u64);
            out.put(&ZEROS[..n as usize])?;
            written += n;
        }
        out.put(bytes)?;
        written += bytes.len() as u64;
        Ok(())
    };
    put(0, header.as_bytes())?;
    if level.is_none() {
        put(dir_offset, stored_dir)?;
    }
    for (s, &at) in sections.iter().zip(offsets) {
        match s.stored() {
            Some(stored) => put(at, stored)?,
            None => {
                put(at, &[])?;
                if let Piece::Spooled {
                    spool,
                    offset,
                    words,
                    ..
                } = s
                {
                    spool.copy(*offset, *words, &mut |bytes| put(at, bytes))?;
                }
            }
        }
    }
    if level.is_some() {
        put(dir_offset, stored_dir)?;
    }
    put(file_size, &[])?;
    Ok(())
}

/// Zero bytes for the padding between sections.
const ZEROS: [u8; SECTION_ALIGN as usize] = [0; SECTION_ALIGN as usize];

/// Where [`lay_out`] puts a package's bytes, in order: a vector, or a writer (a file the
/// package streams into, never held whole in memory).
pub(super) trait Sink {
    /// The package will be `size` bytes.
    fn expect(&mut self, size: u64);
    /// The next bytes.
    fn put(&mut self, bytes: &[u8]) -> Result<(), BuildError>;
}

impl Sink for Vec<u8> {
    fn expect(&mut self, size: u64) {
        self.reserve_exact(usize::try_from(size).unwrap_or(0));
    }
    fn put(&mut self, bytes: &[u8]) -> Result<(), BuildError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// A [`Sink`] writing to `W`; a failed write is [`BuildError::Write`].
pub(super) struct Writes<'a>(pub(super) &'a mut dyn std::io::Write);

impl Sink for Writes<'_> {
    fn expect(&mut self, _: u64) {}
    fn put(&mut self, bytes: &[u8]) -> Result<(), BuildError> {
        self.0
            .write_all(bytes)
            .map_err(|e| BuildError::Write(e.to_string()))
    }
}

/// [`lay_out_to`] into a vector.
pub(super) fn lay_out(
    index: &[RawSection],
    sections: &[Piece<'_>],
    level: Option<i32>,
) -> Result<Vec<u8>, BuildError> {
    let mut out = Vec::new();
    lay_out_to(index, sections, (level, false), &mut out)?;
    Ok(out)
}

pub(super) const fn align_up_u64(value: u64, align: u64) -> u64 {
    (value + align - 1) & !(align - 1)
}

/// The package string pool: [`StringPoolHeader`], [`StringRef`]s, bytes.
#[derive(Default)]
pub(super) struct PoolBuilder {
    refs: Vec<StringRef>,
    bytes: Vec<u8>,
    interned: HashMap<String, u32>,
}

impl PoolBuilder {
    /// The index of `s`, interned on first use.
    pub(super) fn intern(&mut self, s: &str) -> u32 {
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

    /// The pool section's bytes.
    pub(super) fn finish(self) -> Result<Vec<u8>, BuildError> {
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

//! Taking a package apart again: the compressed index's frame both ways (SPEC.md 4.4), the
//! sections of a package as stored (the inverse of [`crate::assemble_sections`] and
//! [`crate::assemble_sections_indexed`]) and a section's raw bytes.
//!
//! For tools and tests that rewrite packages (store them uncompressed, recompute checksums
//! after a mutation). These functions check only what they need to find bytes, never panic on
//! any input, and bound every decompression by a size declared up front; a reader validates
//! with its own rules and reports why a package is refused.

use crate::builder::{compress, compressor};
use crate::{limits, BuildError, Compression, FileHeader, RawSection, SectionRecord};
use zerocopy::FromBytes;

/// The frame a package stores as its compressed index (SPEC.md 4.4): `index` (the directory,
/// then the container sections' bytes) as one zstd frame at `level`, without a dictionary,
/// declaring its content size. The same `index` and `level` give the same bytes.
///
/// # Errors
/// [`BuildError::Compression`] when zstd fails.
pub fn compress_index(index: &[u8], level: i32) -> Result<Vec<u8>, BuildError> {
    let mut c = compressor(level, None)?;
    if index.len() > 1 << INDEX_TABLE_LOG {
        // A large index (thousands of entries): zstd would size its match tables for the
        // whole of it at a high level (18 MB of context for the 822 KB packed index of 10,000
        // permutations at level 19, the peak of that bake; 50 MB for a 2 MB index), for
        // nothing over a 128 KiB window on columns whose words repeat their neighbours' (that
        // index: 23,955 bytes so, 23,960 unbounded; 2^16 would make it 25,590).
        let err = |e: std::io::Error| BuildError::Compression(e.to_string());
        use zstd::zstd_safe::CParameter;
        for p in [
            CParameter::WindowLog(INDEX_TABLE_LOG),
            CParameter::ChainLog(INDEX_TABLE_LOG),
            CParameter::HashLog(INDEX_TABLE_LOG),
        ] {
            c.set_parameter(p).map_err(err)?;
        }
    }
    compress(&mut c, index)
}

/// The log2 of the largest window and match tables the index is compressed with.
const INDEX_TABLE_LOG: u32 = 17;

/// The index a compressed index's `frame` holds: `None` when the frame does not declare its
/// content size, declares more than `max_len` bytes, or does not decompress (without a
/// dictionary) to exactly the declared size. At most the declared size is allocated.
///
/// ```
/// use slangpack_format::{compress_index, decompress_index};
/// let frame = compress_index(b"directory and containers", 19)?;
/// assert_eq!(decompress_index(&frame, 1 << 20).as_deref(), Some(&b"directory and containers"[..]));
/// assert_eq!(decompress_index(&frame, 4), None);
/// assert_eq!(decompress_index(&frame[1..], 1 << 20), None);
/// # Ok::<(), slangpack_format::BuildError>(())
/// ```
#[must_use]
pub fn decompress_index(frame: &[u8], max_len: u64) -> Option<Vec<u8>> {
    let len = zstd::zstd_safe::get_frame_content_size(frame).ok()??;
    if len > max_len {
        return None;
    }
    let len = usize::try_from(len).ok()?;
    zstd::bulk::decompress(frame, len)
        .ok()
        .filter(|index| index.len() == len)
}

/// What a packed index's stored bytes start with (SPEC.md 4.4, 2.2): an empty zstd skippable
/// frame, which readers before 2.2 (that do not know [`crate::FLAG_PACKED_INDEX`]) take for an
/// index of 0 bytes and refuse, smaller than any directory.
pub const PACKED_INDEX_PREFIX: [u8; 8] = [0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0];

/// The largest index that [`store_index`] compresses both packed and as it is, to keep the
/// smaller; a larger one is stored packed.
const COMPARED_INDEX: usize = 1 << 20;

/// The stored bytes of a compressed index (SPEC.md 4.4) whose content is `index` (a directory
/// of `section_count` records of `record_size` bytes, then the container sections), at zstd
/// `level`, and whether they are packed: [`PACKED_INDEX_PREFIX`] then the frame of the packed
/// index ([`pack_index`]) where that is smaller (an index of more than 1 MiB is not compared:
/// packed, it always is), else the frame of `index` as it is.
///
/// # Errors
/// [`BuildError::Compression`] when zstd fails.
pub fn store_index(
    index: &[u8],
    section_count: u32,
    record_size: u32,
    level: i32,
) -> Result<(Vec<u8>, bool), BuildError> {
    let packed = match pack_index(index, section_count, record_size) {
        Some(packed) => {
            let mut stored = PACKED_INDEX_PREFIX.to_vec();
            stored.extend(compress_index(&packed, level)?);
            stored
        }
        None => return Ok((compress_index(index, level)?, false)),
    };
    if index.len() > COMPARED_INDEX {
        return Ok((packed, true));
    }
    let plain = compress_index(index, level)?;
    Ok(match packed.len() < plain.len() {
        true => (packed, true),
        false => (plain, false),
    })
}

/// The compressed index's content packed (SPEC.md 4.4, 2.2): `index` (the directory of
/// `section_count` records of `record_size` bytes, then the container sections back to back
/// in directory order) with the directory and every container table packed column by column
/// as raw tables are ([`crate::pack_table`]), the string pool as it is. `None` when `index`
/// is not laid out so (a container table not whole records, or not where the directory
/// says), so that unpacking would not give it back byte for byte.
#[must_use]
pub fn pack_index(index: &[u8], section_count: u32, record_size: u32) -> Option<Vec<u8>> {
    let dir_len = (section_count as usize).checked_mul(record_size as usize)?;
    let mut out = Vec::with_capacity(index.len() / 3);
    crate::pack_table(index.get(..dir_len)?, record_size as usize, &mut out);
    let mut at = dir_len;
    for record in containers(index.get(..dir_len)?, record_size as usize) {
        let len = usize::try_from(record.stored_size()).ok()?;
        if record.offset() != at as u64 {
            return None;
        }
        let bytes = index.get(at..at.checked_add(len)?)?;
        match record.record_stride as usize {
            0 => out.extend_from_slice(bytes),
            stride => crate::pack_table(bytes, stride, &mut out),
        }
        at += len;
    }
    let unpacked = PackedIndex::parse(&out, section_count, record_size, index.len() as u64).ok()?;
    let mut back = vec![0u8; unpacked.len()];
    unpacked.unpack_into(&mut back).ok()?;
    (back == index).then_some(out)
}

/// The container sections' records among the directory `dir` (records of `stride` bytes), in
/// directory order.
fn containers(dir: &[u8], stride: usize) -> impl Iterator<Item = SectionRecord> + '_ {
    dir.chunks_exact(stride.max(1))
        .filter_map(|r| SectionRecord::read_from_prefix(r).ok().map(|(r, _)| r))
        .filter(|r| r.section_kind().is_container())
}

/// A packed index (SPEC.md 4.4, 2.2) read as far as its size: its directory unpacked, and the
/// place and packing of each container section after it.
#[derive(Debug)]
pub struct PackedIndex<'a> {
    /// The directory, unpacked.
    directory: Vec<u8>,
    /// Each container section in directory order: its record stride (0: bytes as they are)
    /// and its size in the index.
    containers: Vec<(usize, usize)>,
    /// The packed bytes after the directory's.
    rest: &'a [u8],
    /// The size of the index unpacked.
    len: usize,
}

impl<'a> PackedIndex<'a> {
    /// Unpacks the directory of `packed` (`section_count` records of `record_size` bytes) and
    /// sizes the index: an error when a word does not unpack, a container section's stride
    /// is not a multiple of 4 or its size not a whole number of records, or the index would
    /// exceed `max_len` bytes.
    ///
    /// # Errors
    /// [`crate::UnpackError`] with what is wrong.
    pub fn parse(
        packed: &'a [u8],
        section_count: u32,
        record_size: u32,
        max_len: u64,
    ) -> Result<Self, crate::UnpackError> {
        let bad = |what: String| crate::UnpackError(format!("packed index: {what}"));
        let stride = record_size as usize;
        let dir_len = u64::from(section_count) * u64::from(record_size);
        if stride < core::mem::size_of::<SectionRecord>() || stride % 4 != 0 {
            return Err(bad(format!("a section record size of {stride}")));
        }
        if dir_len > max_len {
            return Err(bad(format!(
                "a directory of {dir_len} bytes, at most {max_len}"
            )));
        }
        // Every packed word takes a byte at least: what cannot be there is refused before
        // anything is allocated for it.
        let fits = |words: u64, bytes: &[u8]| words <= bytes.len() as u64;
        if !fits(dir_len / 4, packed) {
            return Err(bad(format!(
                "{} bytes for a directory of {dir_len}",
                packed.len()
            )));
        }
        let mut directory = vec![0u8; dir_len as usize];
        let mut bytes = packed.iter();
        crate::unpack_table(&mut bytes, &mut directory, stride)
            .map_err(|e| bad(format!("the directory: {e}")))?;
        let mut len = dir_len;
        let (mut sizes, mut least) = (Vec::new(), 0u64);
        for (i, r) in containers(&directory, stride).enumerate() {
            let (stride, size) = (r.record_stride as usize, r.stored_size());
            if stride % 4 != 0 || (stride != 0 && size % stride as u64 != 0) {
                let what = format!("container section {i}: {size} bytes of records of {stride}");
                return Err(bad(what));
            }
            len = len.saturating_add(size);
            if len > max_len {
                return Err(bad(format!("an index of more than {max_len} bytes")));
            }
            least += if stride == 0 { size } else { size / 4 };
            sizes.push((stride, size as usize));
        }
        let rest = bytes.as_slice();
        if !fits(least, rest) {
            let what = format!(
                "{} bytes for container sections of {least} at least",
                rest.len()
            );
            return Err(bad(what));
        }
        Ok(PackedIndex {
            directory,
            containers: sizes,
            rest,
            len: len as usize,
        })
    }

    /// The size of the index unpacked.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the index unpacks to nothing (no section at all).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The directory, unpacked.
    #[must_use]
    pub fn directory(&self) -> &[u8] {
        &self.directory
    }

    /// Unpacks the index into the first [`PackedIndex::len`] bytes of `out`: an error when
    /// `out` is shorter, a word does not unpack, the string pool runs past the packed bytes,
    /// or packed bytes are left over.
    ///
    /// # Errors
    /// [`crate::UnpackError`] with what is wrong.
    pub fn unpack_into(&self, out: &mut [u8]) -> Result<(), crate::UnpackError> {
        let bad = |what: String| crate::UnpackError(format!("packed index: {what}"));
        let Some(out) = out.get_mut(..self.len) else {
            return Err(bad(format!("{} bytes to unpack into", out.len())));
        };
        let Some((dir, mut rest)) = out.split_at_mut_checked(self.directory.len()) else {
            return Err(bad("an index shorter than its directory".into()));
        };
        dir.copy_from_slice(&self.directory);
        let mut bytes = self.rest.iter();
        for (i, &(stride, size)) in self.containers.iter().enumerate() {
            let Some((section, after)) = rest.split_at_mut_checked(size) else {
                return Err(bad(format!("container section {i} past the index")));
            };
            rest = after;
            if stride == 0 {
                let Some((from, after)) = bytes.as_slice().split_at_checked(size) else {
                    return Err(bad(format!("container section {i} runs past the end")));
                };
                section.copy_from_slice(from);
                bytes = after.iter();
            } else {
                crate::unpack_table(&mut bytes, section, stride)
                    .map_err(|e| bad(format!("container section {i}: {e}")))?;
            }
        }
        match bytes.len() {
            0 => Ok(()),
            n => Err(bad(format!("{n} bytes left over"))),
        }
    }
}

/// The index that the `stored` bytes of a compressed index hold, unpacked when `header` says
/// it is packed ([`FileHeader::has_packed_index`]): `None` as for [`decompress_index`], or
/// when a packed index does not start with [`PACKED_INDEX_PREFIX`] or does not unpack.
#[must_use]
pub fn index_content(header: &FileHeader, stored: &[u8], max_len: u64) -> Option<Vec<u8>> {
    if !header.has_packed_index() {
        return decompress_index(stored, max_len);
    }
    let content = decompress_index(stored.strip_prefix(&PACKED_INDEX_PREFIX)?, max_len)?;
    let packed = PackedIndex::parse(
        &content,
        header.section_count,
        header.section_record_size,
        max_len,
    )
    .ok()?;
    let mut index = vec![0u8; packed.len()];
    packed.unpack_into(&mut index).ok()?;
    Some(index)
}

/// The sections of `package` in directory order, each as stored (its directory fields and
/// stored bytes): with a compressed index, the index is decompressed (at most
/// [`limits::MAX_SECTION_RAW_SIZE`] bytes) and the container sections are read from it, so
/// the result is what [`crate::assemble_sections`] takes to lay the package out again with a
/// plain directory; bare frames (2.4, [`crate::FLAG_BARE_FRAMES`]) get their magic numbers
/// back, as a package without the flag stores them. `None` when the bytes hold no header, no
/// directory at the place it names, a section outside the bytes (or the index) it names, or
/// a section of bare frames that [`crate::restore_magic`] refuses. Checksums are not checked.
pub fn read_sections(package: &[u8]) -> Option<Vec<RawSection>> {
    let (header, _) = FileHeader::read_from_prefix(package).ok()?;
    if header.is_paged() {
        return None;
    }
    let at = usize::try_from(header.section_dir_offset()).ok()?;
    let size = usize::try_from(header.stored_directory_size()).ok()?;
    let stored = package.get(at..at.checked_add(size)?)?;
    let index = match header.has_compressed_index() {
        true => Some(index_content(
            &header,
            stored,
            limits::MAX_SECTION_RAW_SIZE,
        )?),
        false => None,
    };
    let dir = index.as_deref().unwrap_or(stored);
    let stride = header.section_record_size as usize;
    if stride < core::mem::size_of::<SectionRecord>() {
        return None;
    }
    (0..header.section_count as usize)
        .map(|i| {
            let (record, _) = SectionRecord::read_from_prefix(dir.get(i * stride..)?).ok()?;
            let mut section = match &index {
                Some(index) if record.section_kind().is_container() => {
                    return RawSection::copied(index, &record)
                }
                _ => RawSection::copied(package, &record)?,
            };
            if header.has_bare_frames() && record.compression_kind().is_zstd() {
                section.stored = crate::restore_magic(&section.stored)?;
            }
            Some(section)
        })
        .collect()
}

/// Section `i` of `sections` (as [`read_sections`] gives them: frames with their magic
/// numbers) with the raw tables it shares put back (2.5, [`Compression::ZstdSharedTables`]):
/// stored [`Compression::ZstdSplitDictionaries`], its own frame followed by the second frame of
/// the section `count` before it, which must be a reflection section stored
/// [`Compression::ZstdSplitDictionaries`]. Any other section as it is. `None` when `i` or the
/// section it names is not there, or that one is not such a section.
#[must_use]
pub fn with_shared_tables(sections: &[RawSection], i: usize) -> Option<RawSection> {
    let section = sections.get(i)?;
    if Compression::from_raw(section.compression) != Compression::ZstdSharedTables {
        return Some(section.clone());
    }
    let distance = usize::try_from(section.count).ok().filter(|&d| d > 0)?;
    let owner = sections.get(i.checked_sub(distance)?)?;
    let split = Compression::ZstdSplitDictionaries.to_raw();
    if owner.kind != crate::SectionKind::Reflection.to_raw() || owner.compression != split {
        return None;
    }
    let first = zstd::zstd_safe::find_frame_compressed_size(&owner.stored).ok()?;
    let tables = owner.stored.get(first..).filter(|t| !t.is_empty())?;
    let mut stored = section.stored.clone();
    stored.extend_from_slice(tables);
    Some(RawSection {
        compression: split,
        count: 0,
        stored,
        ..section.clone()
    })
}

/// The module run (2.7, SPEC.md 5.6.2) that section `i` of `sections` is in: the index of its
/// first section and of the section whose frame holds it, when section `i` is stored
/// [`Compression::InModuleRun`] or follows one; `None` otherwise (a section that
/// [`RawSection::decompressed`] takes on its own).
#[must_use]
pub fn module_run_of(sections: &[RawSection], i: usize) -> Option<(usize, usize)> {
    run_of(sections, i, Compression::InModuleRun)
}

/// Section `i` of `sections`, a module of a module run ([`module_run_of`]), stored
/// uncompressed: the run's frame decompressed (with `dictionary`, the raw bytes of the
/// package's `Dictionary`, when it was compressed with it) and the modules before it
/// unpacked, then its own; the run's last module must use up the frame. `None` when section
/// `i` is in no run, or the run's frame does not hold its modules.
#[must_use]
pub fn module_run_decompressed(
    sections: &[RawSection],
    i: usize,
    dictionary: Option<&[u8]>,
) -> Option<RawSection> {
    let (first, holder) = module_run_of(sections, i)?;
    let run = sections.get(first..=holder)?;
    let last = run.last()?;
    let with = match Compression::from_raw(last.compression) {
        Compression::ZstdPackedSpirv => None,
        Compression::ZstdDictionaryPackedSpirv => Some(dictionary?),
        _ => return None,
    };
    let mut sizes = Vec::with_capacity(run.len());
    for s in run {
        sizes.push(
            usize::try_from(s.raw_size)
                .ok()
                .filter(|&n| n as u64 <= limits::MAX_SECTION_RAW_SIZE)?,
        );
    }
    let most: usize = sizes.iter().map(|&n| crate::packed_spirv_bound(n)).sum();
    if most as u64 > limits::MAX_MODULE_RUN_PACKED {
        return None;
    }
    let packed = at_most(&last.stored, most, with)?;
    let mut at = 0;
    for (k, (s, &len)) in run.iter().zip(&sizes).enumerate() {
        let mut raw = vec![0u8; len];
        at += crate::unpack_spirv_prefix(packed.get(at..)?, &mut raw).ok()?;
        if first + k == i {
            let whole = first + k < holder || at == packed.len();
            return whole.then(|| RawSection {
                compression: Compression::None.to_raw(),
                stored: raw,
                ..s.clone()
            });
        }
    }
    None
}

/// The blob of `len` bytes whose bind view is `bind` and whose raw tables `rest` holds packed
/// (one frame declaring its size, compressed with `tables` when given, 6.1), unpacked after it.
fn with_raw_tables(
    mut bind: Vec<u8>,
    rest: &[u8],
    len: usize,
    tables: Option<&[u8]>,
) -> Option<Vec<u8>> {
    let packed_len = zstd::zstd_safe::get_frame_content_size(rest).ok()??;
    let packed = frames(rest, usize::try_from(packed_len).ok()?, tables)?;
    let mut unpacked = vec![0u8; len.checked_sub(bind.len())?];
    crate::unpack_raw_tables(&bind, &packed, &mut unpacked).ok()?;
    bind.extend(unpacked);
    Some(bind)
}

/// The bind-view run (2.8, SPEC.md 6.1.1) that section `i` of `sections` is in: the index of
/// its first section and of the section whose frame holds it, when section `i` is stored
/// [`Compression::InBindRun`] or follows one; `None` otherwise.
#[must_use]
pub fn bind_run_of(sections: &[RawSection], i: usize) -> Option<(usize, usize)> {
    run_of(sections, i, Compression::InBindRun)
}

/// The run of sections stored `member` around section `i`, as [`module_run_of`] and
/// [`bind_run_of`] find it.
fn run_of(sections: &[RawSection], i: usize, member: Compression) -> Option<(usize, usize)> {
    let in_run = |s: &RawSection| s.compression == member.to_raw();
    let holder = i + sections.get(i..)?.iter().position(|s| !in_run(s))?;
    let before = sections.get(..holder)?;
    let first = holder - before.iter().rev().take_while(|s| in_run(s)).count();
    (first < holder).then_some((first, holder))
}

/// Where each bind view of a bind-view run's frame content `content` starts and ends, for the
/// blobs of `raw_sizes` in turn (each view as long as the `tables_offset` its header states,
/// at least a header and less than its blob): `None` when a view does not fit, or the last one
/// does not end where the content does.
#[must_use]
pub fn bind_run_views(content: &[u8], raw_sizes: &[u64]) -> Option<Vec<(usize, usize)>> {
    let mut at = 0;
    let mut views = Vec::with_capacity(raw_sizes.len());
    for &raw in raw_sizes {
        let len = bind_view_len(content.get(at..)?, raw)?;
        views.push((at, at + len));
        at += len;
    }
    (at == content.len()).then_some(views)
}

/// The length of the bind view `content` starts with, in a bind-view run (2.8): its header's
/// `tables_offset`, at least the 64-byte header, less than `raw_size` (its blob's) and within
/// `content`.
#[must_use]
pub fn bind_view_len(content: &[u8], raw_size: u64) -> Option<usize> {
    let (header, _) = crate::ReflectionHeader::read_from_prefix(content).ok()?;
    let len = header.tables_offset as usize;
    let fits = len >= core::mem::size_of::<crate::ReflectionHeader>()
        && (len as u64) < raw_size
        && len <= content.len();
    fits.then_some(len)
}

/// Section `i` of `sections`, a blob of a bind-view run ([`bind_run_of`]), stored
/// uncompressed: its bind view out of the run's frame (decompressed with `dictionary`, the raw
/// bytes of the package's `Dictionary`, when the package has one; at most
/// [`limits::MAX_BIND_RUN_SIZE`] bytes), its raw tables those of the section `count` before
/// it (with `tables`, the `TablesDictionary`'s raw bytes). `None` when section `i` is in no
/// run, or the run's frame does not hold its bind views, or the raw tables are not there.
#[must_use]
pub fn bind_run_decompressed(
    sections: &[RawSection],
    i: usize,
    dictionary: Option<&[u8]>,
    tables: Option<&[u8]>,
) -> Option<RawSection> {
    let (first, holder) = bind_run_of(sections, i)?;
    let run = sections.get(first..=holder)?;
    let last = run.last()?;
    if Compression::from_raw(last.compression) != Compression::ZstdSharedTables {
        return None;
    }
    let declared = zstd::zstd_safe::get_frame_content_size(&last.stored).ok()??;
    let declared = usize::try_from(declared)
        .ok()
        .filter(|&n| n as u64 <= limits::MAX_BIND_RUN_SIZE)?;
    let content = frames(&last.stored, declared, dictionary)?;
    let raw_sizes: Vec<u64> = run.iter().map(|s| s.raw_size).collect();
    let (start, end) = *bind_run_views(&content, &raw_sizes)?.get(i - first)?;
    let section = sections.get(i)?;
    let len = usize::try_from(section.raw_size)
        .ok()
        .filter(|&n| n as u64 <= limits::MAX_SECTION_RAW_SIZE)?;
    let owner = sections.get(i.checked_sub(usize::try_from(section.count).ok()?)?)?;
    let split = Compression::ZstdSplitDictionaries.to_raw();
    if section.count == 0
        || owner.kind != crate::SectionKind::Reflection.to_raw()
        || owner.compression != split
    {
        return None;
    }
    let own = zstd::zstd_safe::find_frame_compressed_size(&owner.stored).ok()?;
    let rest = owner.stored.get(own..).filter(|t| !t.is_empty())?;
    let raw = with_raw_tables(content.get(start..end)?.to_vec(), rest, len, tables)?;
    (raw.len() == len).then(|| RawSection {
        compression: Compression::None.to_raw(),
        count: 0,
        stored: raw,
        ..section.clone()
    })
}

/// The zstd frame `stored` decompressed (with `dictionary` when given), when it holds at most
/// `most` bytes (a packed module's frame, which need not declare its size).
fn at_most(stored: &[u8], most: usize, dictionary: Option<&[u8]>) -> Option<Vec<u8>> {
    match dictionary {
        Some(d) => zstd::bulk::Decompressor::with_dictionary(d)
            .ok()?
            .decompress(stored, most)
            .ok(),
        None => zstd::bulk::decompress(stored, most).ok(),
    }
}

/// The zstd frames `stored` decompressed (with `dictionary` when given), when they hold
/// exactly `len` bytes.
fn frames(stored: &[u8], len: usize, dictionary: Option<&[u8]>) -> Option<Vec<u8>> {
    let raw = match dictionary {
        Some(d) => zstd::bulk::Decompressor::with_dictionary(d)
            .ok()?
            .decompress(stored, len)
            .ok()?,
        None => zstd::bulk::decompress(stored, len).ok()?,
    };
    (raw.len() == len).then_some(raw)
}

impl RawSection {
    /// The section with its raw bytes stored uncompressed (a copy when it is stored
    /// uncompressed already); `dictionary` is the raw bytes of the package's `Dictionary`
    /// section, for a section stored [`Compression::ZstdDictionary`] (or
    /// [`Compression::ZstdDictionaryPackedSpirv`]: a module packed, unpacked here). `None` when
    /// the raw size
    /// exceeds [`limits::MAX_SECTION_RAW_SIZE`], the compression is unknown, a dictionary is
    /// needed and not given, or the frame does not decompress to exactly the raw size.
    #[must_use]
    pub fn decompressed(&self, dictionary: Option<&[u8]>) -> Option<Self> {
        self.decompressed_with(dictionary, None)
    }

    /// [`RawSection::decompressed`] for a package that may also hold a `TablesDictionary`
    /// (`tables`, its raw bytes), which a section stored
    /// [`Compression::ZstdSplitDictionaries`] needs for its second frame (its raw tables
    /// packed, [`crate::unpack_raw_tables`]).
    #[must_use]
    pub fn decompressed_with(
        &self,
        dictionary: Option<&[u8]>,
        tables: Option<&[u8]>,
    ) -> Option<Self> {
        if self.raw_size > limits::MAX_SECTION_RAW_SIZE {
            return None;
        }
        let len = usize::try_from(self.raw_size).ok()?;
        let raw = match Compression::from_raw(self.compression) {
            Compression::None => self.stored.clone(),
            Compression::Zstd => frames(&self.stored, len, None)?,
            Compression::ZstdDictionary => frames(&self.stored, len, Some(dictionary?))?,
            Compression::ZstdSplitDictionaries => {
                let first = zstd::zstd_safe::find_frame_compressed_size(&self.stored).ok()?;
                let (bind, rest) = self.stored.split_at_checked(first)?;
                let head = zstd::zstd_safe::get_frame_content_size(bind).ok()??;
                let head = usize::try_from(head).ok().filter(|&h| h <= len)?;
                with_raw_tables(frames(bind, head, dictionary)?, rest, len, tables)?
            }
            c @ (Compression::ZstdPackedSpirv | Compression::ZstdDictionaryPackedSpirv) => {
                let with = match c {
                    Compression::ZstdDictionaryPackedSpirv => Some(dictionary?),
                    _ => None,
                };
                // The frame need not declare its size: at most the bound.
                let most = crate::packed_spirv_bound(len);
                let packed = at_most(&self.stored, most, with)?;
                let mut raw = vec![0u8; len];
                crate::unpack_spirv(&packed, &mut raw).ok()?;
                raw
            }
            // Its raw tables are another section's: [`with_shared_tables`] first. Its module
            // or its bind view lies in another section's frame: [`module_run_decompressed`],
            // [`bind_run_decompressed`].
            Compression::ZstdSharedTables
            | Compression::InModuleRun
            | Compression::InBindRun
            | Compression::Unknown(_) => return None,
        };
        (raw.len() == len).then(|| Self {
            compression: Compression::None.to_raw(),
            stored: raw,
            ..self.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::compressed_section;
    use crate::builder::tests::compute_entry;
    use crate::{assemble_sections, assemble_sections_indexed, PackageBuilder, SectionKind};

    fn section(
        kind: SectionKind,
        compression: Compression,
        raw: &[u8],
        stored: &[u8],
    ) -> RawSection {
        compressed_section(kind, compression, raw.len(), stored.to_vec())
    }

    /// A package of `n` entries, each with a module of its own, its index compressed.
    fn indexed_package(n: u32) -> Vec<u8> {
        let mut p = PackageBuilder::new();
        p.set_spirv_compression(Compression::Zstd)
            .set_compressed_index(true);
        for i in 0..n {
            let spirv = p.add_spirv(&[0x0723_0203, 0x0001_0600, 0, 16 + i, 0]);
            p.add_entry(compute_entry(format!("perm?N={i:03}"), None, spirv))
                .unwrap();
        }
        p.finish().unwrap()
    }

    /// The header of `package` and its stored index.
    fn stored_index(package: &[u8]) -> (FileHeader, &[u8]) {
        let (h, _) = FileHeader::read_from_prefix(package).unwrap();
        let at = h.section_dir_offset() as usize;
        (h, &package[at..at + h.stored_directory_size() as usize])
    }

    #[test]
    fn a_packed_index_is_smaller_and_unpacks_to_the_index() {
        let package = indexed_package(200);
        let (h, stored) = stored_index(&package);
        assert!(
            h.has_packed_index(),
            "200 entries: the packed index is smaller"
        );
        let index = index_content(&h, stored, 1 << 30).unwrap();
        let (count, size) = (h.section_count, h.section_record_size);
        let plain = compress_index(&index, 19).unwrap();
        assert!(
            stored.len() < plain.len(),
            "{} vs {}",
            stored.len(),
            plain.len()
        );
        // What the writer stores is the prefix, then the packed index's frame.
        let packed = pack_index(&index, count, size).unwrap();
        assert_eq!(
            stored,
            [
                &PACKED_INDEX_PREFIX[..],
                &compress_index(&packed, 19).unwrap()
            ]
            .concat()
        );
        // A reader before 2.2 takes the prefix for a frame of 0 bytes: less than a directory.
        assert!(matches!(
            zstd::zstd_safe::get_frame_content_size(stored),
            Ok(Some(0))
        ));
        assert_eq!(
            store_index(&index, count, size, 19).unwrap(),
            (stored.to_vec(), true)
        );
        // The same sections come back from either layout.
        let sections = read_sections(&package).unwrap();
        assert_eq!(sections.len(), count as usize);
    }

    #[test]
    fn a_small_index_is_stored_packed_only_where_that_is_smaller() {
        for n in [1, 3, 40] {
            let package = indexed_package(n);
            let (h, stored) = stored_index(&package);
            let index = index_content(&h, stored, 1 << 30).unwrap();
            let plain = compress_index(&index, 19).unwrap();
            let packed = pack_index(&index, h.section_count, h.section_record_size).unwrap();
            let packed = PACKED_INDEX_PREFIX.len() + compress_index(&packed, 19).unwrap().len();
            assert_eq!(h.has_packed_index(), packed < plain.len(), "{n} entries");
            assert_eq!(stored.len(), packed.min(plain.len()), "{n} entries");
        }
    }

    #[test]
    fn a_damaged_packed_index_does_not_unpack() {
        let package = indexed_package(50);
        let (h, stored) = stored_index(&package);
        let (count, size) = (h.section_count, h.section_record_size);
        let index = index_content(&h, stored, 1 << 30).unwrap();
        let packed = pack_index(&index, count, size).unwrap();
        let unpack = |p: &[u8], count: u32| -> Result<Vec<u8>, crate::UnpackError> {
            let i = PackedIndex::parse(p, count, size, 1 << 30)?;
            let mut out = vec![0u8; i.len()];
            i.unpack_into(&mut out).map(|()| out)
        };
        assert_eq!(unpack(&packed, count).unwrap(), index);
        // Cut short, a byte left over, a word of six bytes.
        assert!(unpack(&packed[..packed.len() - 1], count).is_err());
        assert!(unpack(&[&packed[..], &[0]].concat(), count).is_err());
        let wide = [&[0xFF, 0xFF, 0xFF, 0xFF, 0x7F][..], &packed[1..]].concat();
        assert!(unpack(&wide, count).is_err());
        // A directory far larger than the packed bytes could hold is refused before it is
        // allocated, and so is an index past the limit.
        let e = PackedIndex::parse(&packed, 1 << 24, size, 1 << 40).unwrap_err();
        assert!(e.0.contains("for a directory"), "{e}");
        assert!(PackedIndex::parse(&packed, count, size, index.len() as u64 - 1).is_err());
        // A record size that is not a record.
        assert!(PackedIndex::parse(&packed, count, 44, 1 << 30).is_err());
        // Without its prefix, a packed index is not one.
        assert_eq!(index_content(&h, &stored[8..], 1 << 30), None);
        // The index as it is, not packed, is not a packed index either.
        assert!(index_content(&h, &compress_index(&index, 19).unwrap(), 1 << 30).is_none());
    }

    #[test]
    fn read_sections_inverts_both_layouts() {
        let strings = section(SectionKind::Strings, Compression::None, b"abc", b"abc");
        let keys = section(SectionKind::KeyIndex, Compression::None, b"0123", b"0123");
        let raw = [7u8; 300];
        let frame = zstd::bulk::compress(&raw, 3).unwrap();
        let spirv = section(SectionKind::Spirv, Compression::Zstd, &raw, &frame);
        let other = section(SectionKind::Unknown(0x4000), Compression::None, b"x", b"x");
        let all = [strings.clone(), keys.clone(), spirv.clone(), other.clone()];
        let plain = assemble_sections(&all).unwrap();
        assert_eq!(read_sections(&plain).unwrap(), all);
        let index = [strings, keys];
        let indexed = assemble_sections_indexed(&index, &[spirv, other], 19).unwrap();
        assert_eq!(read_sections(&indexed).unwrap(), all);
        // Every cut into a section or the index, and a directory past the end, give `None`
        // (never a panic); the padding after the index is not needed.
        let (h, _) = FileHeader::read_from_prefix(&indexed).unwrap();
        let end = (h.section_dir_offset() + h.stored_directory_size()) as usize;
        assert_eq!(read_sections(&indexed[..end]).unwrap(), all);
        for len in 0..end {
            assert_eq!(read_sections(&indexed[..len]), None, "cut to {len}");
        }
        let mut moved = indexed.clone();
        moved[44] = 1; // the directory 4 GiB further

        assert_eq!(read_sections(&moved), None);
    }

    #[test]
    fn the_index_frame_round_trips_and_is_bounded() {
        let index = b"one directory record and some container bytes".repeat(20);
        let frame = compress_index(&index, 19).unwrap();
        assert_eq!(compress_index(&index, 19).unwrap(), frame, "deterministic");
        assert_eq!(decompress_index(&frame, index.len() as u64).unwrap(), index);
        assert_eq!(decompress_index(&frame, index.len() as u64 - 1), None);
        // A frame without its declared size, and one of two frames, are not an index.
        let mut c = zstd::bulk::Compressor::new(3).unwrap();
        c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(false))
            .unwrap();
        assert_eq!(
            decompress_index(&c.compress(&index).unwrap(), 1 << 20),
            None
        );
        assert_eq!(
            decompress_index(&[frame.clone(), frame].concat(), 1 << 20),
            None
        );
    }

    #[test]
    fn compressed_spirv_sections_decompress_to_the_modules() {
        // Twelve modules sharing a 2 KB body of noise: a dictionary pays for itself.
        let mut x = 1u32;
        let body: Vec<u32> = (0..512)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                x
            })
            .collect();
        let modules: Vec<Vec<u32>> = (0..12)
            .map(|n| [&[0x0723_0203, 0x0001_0600, 0, 16 + n, 0], &body[..]].concat())
            .collect();
        let mut p = PackageBuilder::new();
        p.set_spirv_compression(Compression::Zstd)
            .set_compressed_index(true);
        for (n, m) in modules.iter().enumerate() {
            let spirv = p.add_spirv(m);
            p.add_entry(compute_entry(format!("k{n:02}"), None, spirv))
                .unwrap();
        }
        let sections = read_sections(&p.finish().unwrap()).unwrap();
        let kind = |s: &RawSection| SectionKind::from_raw(s.kind);
        let dictionary = sections
            .iter()
            .find(|s| kind(s) == SectionKind::Dictionary)
            .map(|s| s.decompressed(None).expect("the dictionary").stored);
        let used = |c: Compression| sections.iter().any(|s| s.compression == c.to_raw());
        // Modules are stored packed (2.6), in one module run (2.7).
        assert!(dictionary.is_some() && used(Compression::ZstdDictionaryPackedSpirv));
        assert!(used(Compression::InModuleRun));
        let in_spirv = |i: &usize| kind(&sections[*i]) == SectionKind::Spirv;
        let modules_at: Vec<usize> = (0..sections.len()).filter(in_spirv).collect();
        let spirv: Vec<Vec<u8>> = modules_at
            .iter()
            .map(|&i| {
                assert_eq!(sections[i].decompressed(dictionary.as_deref()), None);
                module_run_decompressed(&sections, i, dictionary.as_deref())
                    .expect("a module")
                    .stored
            })
            .collect();
        let expected: Vec<Vec<u8>> = modules
            .iter()
            .map(|m| m.iter().flat_map(|w| w.to_le_bytes()).collect())
            .collect();
        assert_eq!(spirv, expected);
        // A run's frame without its dictionary, or with a module's raw size a word short or
        // long (the run's last module would leave bytes over or run past the frame), is
        // refused.
        let last = *modules_at.last().unwrap();
        assert_eq!(module_run_decompressed(&sections, last, None), None);
        for &i in &modules_at {
            for raw_size in [sections[i].raw_size - 4, sections[i].raw_size + 4] {
                let mut changed = sections.clone();
                changed[i].raw_size = raw_size;
                let dictionary = dictionary.as_deref();
                assert_eq!(module_run_decompressed(&changed, last, dictionary), None);
            }
        }
    }
}

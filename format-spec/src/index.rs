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
        // A large index (tens of thousands of entries): zstd would size its match tables for
        // the whole of it at a high level (50 MB of context for a 2 MB index at level 19),
        // for little gain over a 1 MB window on records that repeat their neighbours.
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
const INDEX_TABLE_LOG: u32 = 20;

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

/// The sections of `package` in directory order, each as stored (its directory fields and
/// stored bytes): with a compressed index, the index is decompressed (at most
/// [`limits::MAX_SECTION_RAW_SIZE`] bytes) and the container sections are read from it, so
/// the result is what [`crate::assemble_sections`] takes to lay the package out again with a
/// plain directory. `None` when the bytes hold no header, no directory at the place it names,
/// or a section outside the bytes (or the index) it names. Checksums are not checked.
pub fn read_sections(package: &[u8]) -> Option<Vec<RawSection>> {
    let (header, _) = FileHeader::read_from_prefix(package).ok()?;
    let at = usize::try_from(header.section_dir_offset()).ok()?;
    let size = usize::try_from(header.stored_directory_size()).ok()?;
    let stored = package.get(at..at.checked_add(size)?)?;
    let index = match header.has_compressed_index() {
        true => Some(decompress_index(stored, limits::MAX_SECTION_RAW_SIZE)?),
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
            let source = match &index {
                Some(index) if record.section_kind().is_container() => index,
                _ => package,
            };
            RawSection::copied(source, &record)
        })
        .collect()
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
    /// section, for a section stored [`Compression::ZstdDictionary`]. `None` when the raw size
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
                let mut raw = frames(bind, head, dictionary)?;
                let packed_len = zstd::zstd_safe::get_frame_content_size(rest).ok()??;
                let packed = frames(rest, usize::try_from(packed_len).ok()?, tables)?;
                let mut unpacked = vec![0u8; len - head];
                crate::unpack_raw_tables(&raw, &packed, &mut unpacked).ok()?;
                raw.extend(unpacked);
                raw
            }
            Compression::Unknown(_) => return None,
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
        assert!(dictionary.is_some() && used(Compression::ZstdDictionary));
        let spirv: Vec<Vec<u8>> = sections
            .iter()
            .filter(|s| kind(s) == SectionKind::Spirv)
            .map(|s| {
                s.decompressed(dictionary.as_deref())
                    .expect("a module")
                    .stored
            })
            .collect();
        let expected: Vec<Vec<u8>> = modules
            .iter()
            .map(|m| m.iter().flat_map(|w| w.to_le_bytes()).collect())
            .collect();
        assert_eq!(spirv, expected);
        // A dictionary frame without its dictionary, or with a wrong raw size, is refused.
        for s in sections.iter().filter(|s| kind(s) == SectionKind::Spirv) {
            if s.compression == Compression::ZstdDictionary.to_raw() {
                assert_eq!(s.decompressed(None), None);
            }
            let short = RawSection {
                raw_size: s.raw_size - 1,
                ..s.clone()
            };
            assert_eq!(short.decompressed(dictionary.as_deref()), None);
        }
    }
}

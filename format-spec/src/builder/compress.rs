//! How sections are stored: zstd frames (a split reflection blob as two, 6.1), raw-block
//! frames, and the package dictionary chosen by size.

use super::*;
use std::collections::hash_map::Entry;

/// Where a reflection blob's raw tables begin ([`ReflectionHeader::tables_offset`]), when the
/// blob is split and the offset lies within it; `None` otherwise (stored as one frame).
#[must_use]
pub fn blob_split(blob: &[u8]) -> Option<usize> {
    let (header, _) = ReflectionHeader::read_from_prefix(blob).ok()?;
    if header.magic != crate::reflection::REFLECTION_MAGIC {
        return None;
    }
    let at = header.tables_offset as usize;
    (at != 0 && at < blob.len()).then_some(at)
}

/// Largest block of a zstd frame (RFC 8878 3.1.1.2.4: `Block_Maximum_Size`).
pub(super) const ZSTD_MAX_BLOCK: usize = 128 * 1024;

/// `bytes` as one zstd frame of raw (stored) blocks (RFC 8878): a single-segment frame header
/// declaring the content size in 8 bytes, then blocks of at most 128 KiB, no checksum.
/// Decoding it is a copy. The first block's content starts 16 bytes into the frame (4 of
/// magic, 1 of descriptor, 8 of size, 3 of block header): at a multiple of 8 when the frame is,
/// so a reader may view a frame of one block in place.
pub(super) fn raw_blocks_frame(bytes: &[u8]) -> Vec<u8> {
    // Magic, then Frame_Header_Descriptor: Frame_Content_Size_flag 3 (8 bytes),
    // Single_Segment_flag 1 (no window descriptor).
    let mut out = Vec::with_capacity(bytes.len() + 13 + 3 * (bytes.len() / ZSTD_MAX_BLOCK + 1));
    out.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD, 0b1110_0000]);
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    let mut blocks = bytes.chunks(ZSTD_MAX_BLOCK).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0]); // one empty last raw block
    }
    while let Some(block) = blocks.next() {
        // Block_Header: Last_Block, Block_Type 0 (raw), Block_Size.
        let last = u32::from(blocks.peek().is_none());
        let header = (block.len() as u32) << 3 | last;
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.extend_from_slice(block);
    }
    out
}

/// The stored bytes of a section of `kind`: a reflection blob as [`compress_blob`] makes them,
/// anything else one frame.
pub(super) fn compress_section(
    c: &mut zstd::bulk::Compressor<'_>,
    kind: SectionKind,
    raw: &[u8],
    bind_raw: bool,
) -> Result<Vec<u8>, BuildError> {
    if kind == SectionKind::Reflection {
        compress_blob(c, raw, bind_raw)
    } else {
        compress_unsized(c, raw)
    }
}

/// A reflection blob compressed as zstd frames: one frame, or for a split blob
/// ([`blob_split`]) two, the bytes before `tables_offset` and the bytes from it (a reader
/// loads the bind view from the first frame alone), the first of raw blocks with `bind_raw`.
pub(crate) fn compress_blob(
    c: &mut zstd::bulk::Compressor<'_>,
    raw: &[u8],
    bind_raw: bool,
) -> Result<Vec<u8>, BuildError> {
    match blob_split(raw) {
        Some(at) => {
            let (bind, tables) = raw.split_at(at);
            let mut out = if bind_raw {
                raw_blocks_frame(bind)
            } else {
                compress_fast_literals(c, bind)?
            };
            out.extend_from_slice(&compress(c, tables)?);
            Ok(out)
        }
        None => compress_unsized(c, raw),
    }
}

/// A reflection blob's zstd frames as a package stores them, given to
/// [`PackageBuilder::add_reflection_stored`] and checked against the blob.
#[derive(Debug)]
pub(super) struct StoredFrames {
    /// The frames, back to back.
    stored: Vec<u8>,
    /// For a split blob ([`blob_split`]), where the first frame (the bytes before the raw
    /// tables) ends; 0 for a blob stored as one frame.
    first: usize,
}

impl StoredFrames {
    /// The stored bytes of `raw` (the blob these frames were checked against), the first
    /// frame of a split blob made again as raw blocks with `bind_raw`.
    pub(super) fn stored_as(&self, raw: &[u8], bind_raw: bool) -> Vec<u8> {
        match (blob_split(raw), self.stored.get(self.first..)) {
            (Some(at), Some(tables)) if bind_raw && self.first != 0 => {
                let mut out = raw_blocks_frame(raw.get(..at).unwrap_or_default());
                out.extend_from_slice(tables);
                out
            }
            _ => self.stored.clone(),
        }
    }
}

/// `stored` as [`StoredFrames`] when it holds `raw` as [`compress_blob`] lays a blob out
/// (one frame, or for a split blob one frame of the bytes before the raw tables and one of
/// the rest; any level, either kind of first frame), each frame whole and decompressing
/// without a dictionary to exactly its bytes; `None` otherwise.
pub(super) fn checked_frames(raw: &[u8], stored: &[u8]) -> Option<StoredFrames> {
    let first = blob_frames(raw, stored, None)?;
    Some(StoredFrames {
        stored: stored.to_vec(),
        first,
    })
}

/// Whether `stored` holds `raw` as a section of `kind` stores it ([`compress_section`]: a
/// blob as [`compress_blob`] lays it out, anything else one frame), each frame whole and
/// decompressing (with `dictionary`, if any) to exactly its bytes.
pub(super) fn frames_hold(
    kind: SectionKind,
    raw: &[u8],
    stored: &[u8],
    dictionary: Option<&[u8]>,
) -> bool {
    if kind == SectionKind::Reflection {
        blob_frames(raw, stored, dictionary).is_some()
    } else {
        one_frame_length(stored) == Some(stored.len()) && decompresses_to(stored, raw, dictionary)
    }
}

/// Where the first frame of `stored` ends when it holds the blob `raw` as [`compress_blob`]
/// lays it out (0 for a blob stored as one frame), each frame decompressing (with
/// `dictionary`, if any) to exactly its part of `raw`; `None` otherwise.
fn blob_frames(raw: &[u8], stored: &[u8], dictionary: Option<&[u8]>) -> Option<usize> {
    match blob_split(raw) {
        Some(at) => {
            let n = one_frame_length(stored)?;
            let (bind, tables) = stored.split_at(n);
            let ok = n < stored.len()
                && one_frame_length(tables) == Some(tables.len())
                && decompresses_to(bind, raw.get(..at)?, dictionary)
                && decompresses_to(tables, raw.get(at..)?, dictionary);
            ok.then_some(n)
        }
        None => {
            let ok = one_frame_length(stored) == Some(stored.len())
                && decompresses_to(stored, raw, dictionary);
            ok.then_some(0)
        }
    }
}

/// The length of the zstd frame `bytes` starts with (not a skippable frame); `None` when it
/// starts with none.
fn one_frame_length(bytes: &[u8]) -> Option<usize> {
    if bytes.get(..4)? != crate::ZSTD_MAGIC {
        return None;
    }
    zstd::zstd_safe::find_frame_compressed_size(bytes)
        .ok()
        .filter(|&n| n <= bytes.len())
}

/// Whether the zstd frame `frame` decompresses (with `dictionary`, if any) to exactly
/// `expected`, compared as it streams out through a small buffer: memory stays the decoder's
/// window, whatever the frame declares.
fn decompresses_to(frame: &[u8], expected: &[u8], dictionary: Option<&[u8]>) -> bool {
    use std::io::Read;
    let decoder = match dictionary {
        Some(d) => zstd::stream::read::Decoder::with_dictionary(frame, d),
        None => zstd::stream::read::Decoder::with_buffer(frame),
    };
    let Ok(mut decoder) = decoder else {
        return false;
    };
    let mut buffer = vec![0u8; 1 << 16];
    let mut rest = expected;
    loop {
        match decoder.read(&mut buffer) {
            Ok(0) => return rest.is_empty(),
            Ok(n) => {
                let (Some(got), Some(want)) = (buffer.get(..n), rest.get(..n)) else {
                    return false;
                };
                if got != want {
                    return false;
                }
                rest = rest.get(n..).unwrap_or_default();
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// A zstd compressor at `level`, with `dictionary` (frames then carry no dictionary id: a
/// package has one dictionary).
pub(crate) fn compressor(
    level: i32,
    dictionary: Option<&[u8]>,
) -> Result<zstd::bulk::Compressor<'static>, BuildError> {
    let err = |e: std::io::Error| BuildError::Compression(e.to_string());
    match dictionary {
        None => zstd::bulk::Compressor::new(level).map_err(err),
        Some(dict) => {
            let mut c = zstd::bulk::Compressor::with_dictionary(level, dict).map_err(err)?;
            c.set_parameter(zstd::zstd_safe::CParameter::DictIdFlag(false))
                .map_err(err)?;
            Ok(c)
        }
    }
}

/// `raw` as one frame whose literals are stored, not Huffman-coded: the frame a load
/// decompresses before the first binding. On a bind view, building and running the Huffman
/// decoder for a few kilobytes of literals costs more than the rest of the decompression, while
/// the matches already carry most of the gain (`pbr`'s bind view: 1,939 bytes instead of 1,906,
/// decompressed in about two thirds of the time). `c` is left as it was.
pub(crate) fn compress_fast_literals(
    c: &mut zstd::bulk::Compressor<'_>,
    raw: &[u8],
) -> Result<Vec<u8>, BuildError> {
    use zstd::zstd_safe::{CParameter::LiteralCompressionMode, ParamSwitch};
    let err = |e: std::io::Error| BuildError::Compression(e.to_string());
    c.set_parameter(LiteralCompressionMode(ParamSwitch::Disable))
        .map_err(err)?;
    let frame = compress(c, raw);
    c.set_parameter(LiteralCompressionMode(ParamSwitch::Auto))
        .map_err(err)?;
    frame
}

/// `raw` as one frame that does not declare its content size: the section's raw size says it
/// (4.3), and the field takes 2 bytes where the window descriptor that replaces it takes 1 (for
/// 256 bytes to 64 KiB, most modules). A frame of several (a split blob's) declares its size,
/// which a reader needs to find the next one. `c` is left as it was.
pub(crate) fn compress_unsized(
    c: &mut zstd::bulk::Compressor<'_>,
    raw: &[u8],
) -> Result<Vec<u8>, BuildError> {
    use zstd::zstd_safe::CParameter::ContentSizeFlag;
    let err = |e: std::io::Error| BuildError::Compression(e.to_string());
    c.set_parameter(ContentSizeFlag(false)).map_err(err)?;
    let frame = compress(c, raw);
    c.set_parameter(ContentSizeFlag(true)).map_err(err)?;
    frame
}

/// `raw` as one zstd frame made by `c`.
pub(crate) fn compress(
    c: &mut zstd::bulk::Compressor<'_>,
    raw: &[u8],
) -> Result<Vec<u8>, BuildError> {
    let mut frame = c
        .compress(raw)
        .map_err(|e| BuildError::Compression(e.to_string()))?;
    // zstd's bound is kept as the capacity otherwise: a 40-byte frame of a 1.4 KB module
    // would hold 1.5 KB, for every module of the package at once.
    frame.shrink_to_fit();
    Ok(frame)
}

/// A byte section of `kind` holding `raw`: one zstd frame made by `zstd` (`Zstd`), or `raw`
/// itself without a compressor (`None`).
pub(super) fn blob_section(
    kind: SectionKind,
    zstd: Option<&mut zstd::bulk::Compressor<'_>>,
    raw: &[u8],
    bind_raw: bool,
) -> Result<RawSection, BuildError> {
    Ok(match zstd {
        Some(c) => compressed_section(
            kind,
            Compression::Zstd,
            raw.len(),
            compress_section(c, kind, raw, bind_raw)?,
        ),
        None => raw_section(kind, 0, 0, raw.to_vec()),
    })
}

/// A byte section of `kind` whose `stored` bytes decompress (`compression`) to `raw_len` bytes.
pub(crate) fn compressed_section(
    kind: SectionKind,
    compression: Compression,
    raw_len: usize,
    stored: Vec<u8>,
) -> RawSection {
    RawSection {
        kind: kind.to_raw(),
        compression: compression.to_raw(),
        stride: 0,
        count: 0,
        raw_size: raw_len as u64,
        stored,
    }
}

/// At most this many sections of each kind (SPIR-V, reflection) decide which dictionary (if
/// any) a package uses.
pub(super) const DICTIONARY_SAMPLE: usize = 64;

/// Sections compressed with one dictionary shared by the package: the `Dictionary` section
/// (when one pays for itself), then one section per module and one per blob, in order. The
/// dictionary is the smallest (its stored size plus the frames it gives every module and blob,
/// estimated at `level` for a package whose samples hold everything in at most
/// [`EXACT_ESTIMATE_BYTES`], else at [`PROBE_LEVEL`])
/// among none, dictionaries trained on the modules and blobs at two sizes, and raw content:
/// the middle module and blob of the samples, evenly spaced ones ([`spread`]) and one of each
/// kind ([`novel`]). Each module or blob is one zstd frame of its own (an entry stays loadable
/// on its own), with the dictionary or without it, whichever is smaller; where the estimate
/// already has the dictionary's frame at most half the plain one, the plain frame is not made.
///
/// `modules` are read in turn (a spooled module is read back for each pass and let go), the
/// blobs are in memory. `offered` gives, for the chosen dictionary, the stored frames offered
/// for each module and blob ([`PackageBuilder::offer_frames`]): those that hold their module
/// or blob are stored as they are, not compressed again.
pub(super) fn with_dictionary<'o>(
    modules: &ModuleSource<'_>,
    blobs: &[&[u8]],
    level: i32,
    offered: impl FnOnce(Option<&[u8]>) -> Vec<Option<(Compression, &'o [u8])>>,
) -> Result<Vec<RawSection>, BuildError> {
    let parts = Parts::of(blobs);
    let binds = parts.binds();
    let chosen = {
        let training = load_training(modules, &binds)?;
        let all = Items {
            modules,
            rest: &binds,
        };
        choose_dictionary((&training.bytes, &training.sizes), all, level)?
    };
    let tables_items = parts.tables();
    let tables = if tables_items.is_empty() {
        Chosen::default()
    } else {
        let none = ModuleSource::new(Vec::new(), None, &[])?;
        let all = Items {
            modules: &none,
            rest: &tables_items,
        };
        choose_dictionary(parts.tables_training(), all, level)?
    };
    let dict = chosen.dictionary.as_deref();
    let offered = offered(dict);
    let mut plain = compressor(level, None)?;
    let mut c = compressor(level, dict)?;
    let mut t = compressor(level, tables.dictionary.as_deref())?;
    let mut sections = vec![];
    // Each split blob's packed raw tables stored so far, and the section that holds them.
    let mut shared: HashMap<&[u8], usize> = HashMap::new();
    let packed = modules.is_packed();
    // The packed modules waiting to be stored as one module run (2.7), with their raw sizes.
    let mut run = ModuleRun::default();
    modules.each(|i, raw| {
        let kind = SectionKind::Spirv;
        // An offered frame of a packed module holds the packed bytes.
        let offer = offered
            .get(i)
            .copied()
            .flatten()
            .and_then(|(c, stored)| match (packed, c) {
                (true, Compression::ZstdPackedSpirv) => Some((Compression::Zstd, stored)),
                (true, Compression::ZstdDictionaryPackedSpirv) => {
                    Some((Compression::ZstdDictionary, stored))
                }
                (true, _) => None,
                (false, c) => Some((c, stored)),
            });
        let estimate = (chosen.with.get(i), chosen.without.get(i));
        let section = match offered_section(kind, raw, offer, &chosen.dictionary) {
            Some(section) => section,
            // A packed module joins the run (a module whose offered frame is kept stands
            // alone, between runs).
            None if packed => {
                let size = modules.size(i);
                if !run.fits(size) {
                    run.store(&mut sections, (&mut plain, &mut c), dict.is_some())?;
                }
                run.push(raw, size, estimate);
                return Ok(());
            }
            None => one_dictionary(kind, raw, dict, estimate, (&mut plain, &mut c))?,
        };
        run.store(&mut sections, (&mut plain, &mut c), dict.is_some())?;
        sections.push(match packed {
            true => packed_module(section, modules.size(i)),
            false => section,
        });
        Ok(())
    })?;
    run.store(&mut sections, (&mut plain, &mut c), dict.is_some())?;
    // The blobs sharing raw tables waiting to be stored as one bind-view run (2.8).
    let mut views = BindRun::default();
    for (j, raw) in blobs.iter().copied().enumerate() {
        let kind = SectionKind::Reflection;
        let i = modules.len() + j;
        let offer = offered.get(i).copied().flatten();
        if let Some(section) = offered_section(kind, raw, offer, &chosen.dictionary) {
            views.store(&mut sections, &mut c, &mut plain, dict.is_some())?;
            sections.push(section);
        } else if let Some(split) = parts.split(j) {
            let packed = tables_items.get(split.tables).copied().unwrap_or_default();
            let estimates = [&chosen, &tables].map(|c| (c.with.as_slice(), &c.without[..]));
            let both = (dict.is_some(), tables.dictionary.is_some());
            let coders = Coders {
                plain: &mut plain,
                bind: &mut c,
                tables: &mut t,
            };
            // The bind view's estimates follow the modules'.
            let split = Split {
                bind: modules.len() + split.bind,
                ..split
            };
            let mut section = split_blob((raw, packed), split, both, estimates, coders)?;
            if section.compression == Compression::ZstdSplitDictionaries.to_raw() {
                match shared.entry(packed) {
                    // Raw tables stored before: this blob keeps its first frame alone, or
                    // its bind view joins a run.
                    Entry::Occupied(owner) => {
                        let at = sections.len() + views.sections.len();
                        share_tables(&mut section, at - owner.get())?;
                        let view = raw.get(..split.at).unwrap_or_default();
                        if !views.fits(view) {
                            views.store(&mut sections, &mut c, &mut plain, dict.is_some())?;
                        }
                        views.push(view, section);
                        continue;
                    }
                    Entry::Vacant(slot) => {
                        views.store(&mut sections, &mut c, &mut plain, dict.is_some())?;
                        slot.insert(sections.len());
                    }
                }
            }
            views.store(&mut sections, &mut c, &mut plain, dict.is_some())?;
            sections.push(section);
        } else {
            views.store(&mut sections, &mut c, &mut plain, dict.is_some())?;
            let estimate = (chosen.with.get(i), chosen.without.get(i));
            let coders = (&mut plain, &mut c);
            sections.push(one_dictionary(kind, raw, dict, estimate, coders)?);
        }
    }
    views.store(&mut sections, &mut c, &mut plain, dict.is_some())?;
    let used = |c: Compression| {
        let c = c.to_raw();
        move |s: &RawSection| s.compression == c
    };
    let split_used = sections
        .iter()
        .any(used(Compression::ZstdSplitDictionaries));
    let dict_used = sections
        .iter()
        .any(|s| Compression::from_raw(s.compression).uses_dictionary());
    if let Some(d) = tables.dictionary.filter(|_| split_used) {
        let section = dictionary_section(SectionKind::TablesDictionary, d, &mut plain)?;
        sections.insert(0, section);
    }
    if let Some(d) = chosen.dictionary.filter(|_| dict_used) {
        sections.insert(
            0,
            dictionary_section(SectionKind::Dictionary, d, &mut plain)?,
        );
    }
    Ok(sections)
}

/// `section`, a split blob stored [`Compression::ZstdSplitDictionaries`] whose raw tables are
/// those of the section `distance` before it (the same packed bytes, with the same dictionary),
/// as stored [`Compression::ZstdSharedTables`] (2.5, SPEC.md 4.2): its first frame alone. The
/// permutations of one program often differ in their bind views alone (which resources each
/// entry point uses), not in Slang's raw tables.
fn share_tables(section: &mut RawSection, distance: usize) -> Result<(), BuildError> {
    let first = zstd::zstd_safe::find_frame_compressed_size(&section.stored)
        .map_err(|_| BuildError::Compression("a split blob without its first frame".into()))?;
    section.stored.truncate(first);
    section.compression = Compression::ZstdSharedTables.to_raw();
    section.count = u32::try_from(distance).map_err(|_| BuildError::LimitExceeded("sections"))?;
    Ok(())
}

/// The most bytes of modules the dictionary of what a load decompresses is trained on: past
/// it, evenly spaced modules up to it (the trainer reads its samples from one buffer, which
/// would otherwise hold every module of a bake of thousands of permutations at once).
pub(super) const TRAINING_MODULE_BYTES: usize = 4 << 20;

/// What the load's dictionary is trained on: the modules, every one while they are at most
/// [`TRAINING_MODULE_BYTES`], else evenly spaced ones that fit in it; then the bind views.
fn load_training(modules: &ModuleSource<'_>, binds: &[&[u8]]) -> Result<Samples, BuildError> {
    let (n, total) = (modules.len(), modules.bytes());
    let picks: Vec<usize> = if total <= TRAINING_MODULE_BYTES {
        (0..n).collect()
    } else {
        let k = (TRAINING_MODULE_BYTES as u128 * n as u128 / total.max(1) as u128) as usize;
        let k = k.clamp(1, n);
        (0..k).map(|j| (2 * j + 1) * n / (2 * k)).collect()
    };
    let mut training = modules.gather(&picks, binds.iter().map(|b| b.len()).sum())?;
    for bind in binds {
        training.push(bind);
    }
    Ok(training)
}

/// What a dictionary is chosen for: the modules (read in turn), then items in memory.
#[derive(Clone, Copy)]
struct Items<'a, 's> {
    modules: &'a ModuleSource<'s>,
    rest: &'a [&'a [u8]],
}

impl Items<'_, '_> {
    /// How many items.
    fn len(&self) -> usize {
        self.modules.len() + self.rest.len()
    }

    /// Their bytes.
    fn total(&self) -> usize {
        self.modules.bytes() + self.rest.iter().map(|r| r.len()).sum::<usize>()
    }

    /// Calls `f` with each item in turn.
    fn each(&self, mut f: impl FnMut(&[u8]) -> Result<(), BuildError>) -> Result<(), BuildError> {
        self.modules.each(|_, m| f(m))?;
        self.rest.iter().try_for_each(|r| f(r))
    }

    /// The size `f` gives each item (a frame's estimated length), in order.
    fn sizes(
        &self,
        mut f: impl FnMut(&[u8]) -> Result<usize, BuildError>,
    ) -> Result<Vec<usize>, BuildError> {
        let mut out = Vec::with_capacity(self.len());
        self.each(|item| {
            out.push(f(item)?);
            Ok(())
        })?;
        Ok(out)
    }
}

/// A module or a blob that is not split, with the package's `Dictionary` (`dict`) or without,
/// whichever is smaller: where the estimate (`with`, `without`) has the dictionary's frame at
/// most half the plain one, the plain frame is not made at the package's level (the slow part
/// of a compressed bake).
fn one_dictionary(
    kind: SectionKind,
    raw: &[u8],
    dict: Option<&[u8]>,
    (with, without): (Option<&usize>, Option<&usize>),
    (plain, c): (
        &mut zstd::bulk::Compressor<'_>,
        &mut zstd::bulk::Compressor<'_>,
    ),
) -> Result<RawSection, BuildError> {
    let frame = |c: &mut zstd::bulk::Compressor<'_>| compress_section(c, kind, raw, false);
    let clear = dict.is_some() && with.zip(without).is_some_and(|(w, p)| 2 * w <= *p);
    let (stored, compression) = if clear {
        (frame(c)?, Compression::ZstdDictionary)
    } else {
        let mut stored = frame(plain)?;
        let mut compression = Compression::Zstd;
        if dict.is_some() {
            let frame = frame(c)?;
            if frame.len() < stored.len() {
                stored = frame;
                compression = Compression::ZstdDictionary;
            }
        }
        (stored, compression)
    };
    Ok(compressed_section(kind, compression, raw.len(), stored))
}

/// The most bytes the modules of one module run the writer makes may pack to
/// ([`crate::packed_spirv_bound`] of their raw sizes, summed): what the first load of any of
/// them decompresses (SPEC.md 5.6.2). About fifteen permutations of a small shader, whose
/// frames of their own would each spend a frame header and a block on a few matches into the
/// dictionary; a module of more stands alone.
pub(super) const MODULE_RUN_PACKED: usize = 64 << 10;

/// A module's estimated frames with the package's dictionary and without.
type Estimate<'a> = (Option<&'a usize>, Option<&'a usize>);

/// Consecutive packed modules gathered for one module run (2.7, SPEC.md 5.6.2).
#[derive(Default)]
struct ModuleRun {
    /// Their packed bytes, back to back.
    packed: Vec<u8>,
    /// Each one's raw size.
    sizes: Vec<usize>,
    /// Each one's packed size: its record's `record_count` (2.9), so that a reader finds its
    /// module in the frame without stepping over the modules before it (unless the lengths
    /// cost the package too much: `layout::index_and_lengths`).
    lens: Vec<usize>,
    /// The sum of [`crate::packed_spirv_bound`] of their raw sizes.
    bound: usize,
    /// Whether the estimates have every module's frame with the dictionary at most half its
    /// plain one (then the plain frame of the run is not made).
    clear: bool,
}

impl ModuleRun {
    /// Whether a module of `size` raw bytes may join the run (an empty run takes any).
    fn fits(&self, size: usize) -> bool {
        let bound = self.bound + crate::packed_spirv_bound(size);
        self.sizes.is_empty()
            || (bound <= MODULE_RUN_PACKED
                && self.sizes.len() < crate::limits::MAX_MODULE_RUN_SECTIONS as usize)
    }

    /// Adds a module: its packed bytes, raw size and estimated frames with the dictionary and
    /// without (as [`one_dictionary`] takes them).
    fn push(&mut self, packed: &[u8], size: usize, (with, without): Estimate<'_>) {
        let clear = with.zip(without).is_some_and(|(w, p)| 2 * w <= *p);
        self.clear = clear && (self.clear || self.sizes.is_empty());
        self.packed.extend_from_slice(packed);
        self.sizes.push(size);
        self.lens.push(packed.len());
        self.bound += crate::packed_spirv_bound(size);
    }

    /// Stores the run's modules (if any) at the end of `sections` and empties it: every one
    /// but the last stored [`Compression::InModuleRun`], the last holding one frame of all
    /// their packed bytes, with the package's dictionary (`with_dictionary`) or without,
    /// whichever is smaller. A run of one module is that module's own frame.
    fn store(
        &mut self,
        sections: &mut Vec<RawSection>,
        (plain, c): (
            &mut zstd::bulk::Compressor<'_>,
            &mut zstd::bulk::Compressor<'_>,
        ),
        with_dictionary: bool,
    ) -> Result<(), BuildError> {
        let Some((&last, members)) = self.sizes.split_last() else {
            return Ok(());
        };
        // A run of one module is that module's own frame: no packed length.
        let packed_len = |k: usize| match members.is_empty() {
            true => Ok(0),
            false => count_u32(self.lens.get(k).copied().unwrap_or(0), "a packed module"),
        };
        for (k, &size) in members.iter().enumerate() {
            let mut member = compressed_section(
                SectionKind::Spirv,
                Compression::InModuleRun,
                size,
                Vec::new(),
            );
            member.count = packed_len(k)?;
            sections.push(member);
        }
        let (stored, compression) = if with_dictionary && self.clear {
            (
                compress_unsized(c, &self.packed)?,
                Compression::ZstdDictionary,
            )
        } else {
            let mut stored = compress_unsized(plain, &self.packed)?;
            let mut compression = Compression::Zstd;
            if with_dictionary {
                let frame = compress_unsized(c, &self.packed)?;
                if frame.len() < stored.len() {
                    stored = frame;
                    compression = Compression::ZstdDictionary;
                }
            }
            (stored, compression)
        };
        let mut section = packed_module(
            compressed_section(SectionKind::Spirv, compression, 0, stored),
            last,
        );
        section.count = packed_len(members.len())?;
        sections.push(section);
        *self = ModuleRun::default();
        Ok(())
    }
}

/// The most bytes of bind views one bind-view run the writer makes holds (SPEC.md 6.1.1):
/// what the first load of any of its blobs decompresses. About seven permutations of the
/// examples' programs, whose frames of their own would each spend a frame header and a block
/// on a few matches into the dictionary (the large benchmark package's 1,020 bind views that
/// share raw tables: 19 bytes each alone); a bind view of more stands alone.
pub(super) const BIND_RUN_SIZE: usize = 16 << 10;

/// Consecutive blobs sharing their raw tables (2.5), gathered for one bind-view run (2.8,
/// SPEC.md 6.1.1).
#[derive(Default)]
struct BindRun {
    /// Their bind views, back to back.
    views: Vec<u8>,
    /// Their sections, each stored [`Compression::ZstdSharedTables`] (its own frame).
    sections: Vec<RawSection>,
}

impl BindRun {
    /// Whether `view` may join the run (an empty run takes any).
    fn fits(&self, view: &[u8]) -> bool {
        self.sections.is_empty()
            || (self.views.len() + view.len() <= BIND_RUN_SIZE
                && self.sections.len() < crate::limits::MAX_BIND_RUN_SECTIONS as usize)
    }

    /// Adds a blob: its bind view and its section as stored alone.
    fn push(&mut self, view: &[u8], section: RawSection) {
        self.views.extend_from_slice(view);
        self.sections.push(section);
    }

    /// Stores the run's blobs (if any) at the end of `sections` and empties it: every one but
    /// the last stored [`Compression::InBindRun`], the last holding one frame of all their
    /// bind views (with the package's dictionary when it has one: `with_dictionary`, made by
    /// `c`, else by `plain`), as its own bind view's frame is. A run of one blob is that blob's
    /// own frame.
    fn store(
        &mut self,
        sections: &mut Vec<RawSection>,
        c: &mut zstd::bulk::Compressor<'_>,
        plain: &mut zstd::bulk::Compressor<'_>,
        with_dictionary: bool,
    ) -> Result<(), BuildError> {
        let run = std::mem::take(self);
        let Some((mut last, members)) = run.sections.split_last().map(|(l, m)| (l.clone(), m))
        else {
            return Ok(());
        };
        if !members.is_empty() {
            last.stored = match with_dictionary {
                true => compress_fast_literals(c, &run.views)?,
                false => compress_fast_literals(plain, &run.views)?,
            };
        }
        for member in members {
            sections.push(RawSection {
                compression: Compression::InBindRun.to_raw(),
                stored: Vec::new(),
                ..member.clone()
            });
        }
        sections.push(last);
        Ok(())
    }
}

/// `section`, a module's packed bytes stored `Zstd` or `ZstdDictionary`, as the module of
/// `raw_len` bytes stored packed (2.6, SPEC.md 4.3).
fn packed_module(mut section: RawSection, raw_len: usize) -> RawSection {
    section.compression = match Compression::from_raw(section.compression) {
        Compression::ZstdDictionary => Compression::ZstdDictionaryPackedSpirv,
        _ => Compression::ZstdPackedSpirv,
    }
    .to_raw();
    section.raw_size = raw_len as u64;
    section
}

/// The compressors of a split blob's frames: without a dictionary, with the package's
/// `Dictionary` (the bind view's) and with its `TablesDictionary`.
struct Coders<'c, 'd> {
    plain: &'c mut zstd::bulk::Compressor<'d>,
    bind: &'c mut zstd::bulk::Compressor<'d>,
    tables: &'c mut zstd::bulk::Compressor<'d>,
}

/// A split blob `raw` (its bind view `split.bind`, its raw tables `split.tables`, each an
/// index into the estimates of its dictionary; `packed`, its raw tables packed) stored
/// `ZstdSplitDictionaries` (each frame with its dictionary, where the package has it: `both`;
/// the second of the packed tables) or `Zstd`, whichever is smaller; where the estimates have
/// the first at most half the second, the second is not made.
fn split_blob(
    (raw, packed): (&[u8], &[u8]),
    split: Split,
    both: (bool, bool),
    [bind, tables]: [(&[usize], &[usize]); 2],
    coders: Coders<'_, '_>,
) -> Result<RawSection, BuildError> {
    let bind_part = raw.get(..split.at).unwrap_or_default();
    let tables_part = packed;
    let Coders {
        plain,
        bind: with_bind,
        tables: with_tables,
    } = coders;
    let plain_frames = |plain: &mut zstd::bulk::Compressor<'_>| {
        let section = compress_blob(plain, raw, false)?;
        Ok::<_, BuildError>(compressed_section(
            SectionKind::Reflection,
            Compression::Zstd,
            raw.len(),
            section,
        ))
    };
    let at = |(with, without): (&[usize], &[usize]), i: usize, has: bool| {
        let plain = without.get(i).copied().unwrap_or(usize::MAX / 4);
        (if has { with.get(i).copied() } else { None }).map_or((plain, plain), |w| (w, plain))
    };
    let (bind_with, bind_plain) = at(bind, split.bind, both.0);
    let (tables_with, tables_plain) = at(tables, split.tables, both.1);
    let clear = 2 * (bind_with + tables_with) <= bind_plain + tables_plain;
    let mut stored =
        compress_fast_literals(if both.0 { with_bind } else { &mut *plain }, bind_part)?;
    stored.extend_from_slice(&compress(
        if both.1 { with_tables } else { &mut *plain },
        tables_part,
    )?);
    let section = compressed_section(
        SectionKind::Reflection,
        Compression::ZstdSplitDictionaries,
        raw.len(),
        stored,
    );
    if clear {
        return Ok(section);
    }
    let plain = plain_frames(plain)?;
    Ok(if plain.stored.len() <= section.stored.len() {
        plain
    } else {
        section
    })
}

/// The dictionary section of `kind` holding `d`: zstd-compressed when that is smaller.
fn dictionary_section(
    kind: SectionKind,
    d: Vec<u8>,
    plain: &mut zstd::bulk::Compressor<'_>,
) -> Result<RawSection, BuildError> {
    let stored = compress_unsized(plain, &d)?;
    Ok(if stored.len() < d.len() {
        compressed_section(kind, Compression::Zstd, d.len(), stored)
    } else {
        raw_section(kind, 0, 0, d)
    })
}

/// Where a split blob's parts are among the items of [`Parts`]: its raw tables begin at `at`;
/// its bind view is bind item `bind`, its raw tables tables item `tables`.
#[derive(Clone, Copy)]
struct Split {
    at: usize,
    bind: usize,
    tables: usize,
}

/// The blobs of [`with_dictionary`] regrouped for its two dictionaries: every blob's bind view
/// (a blob that is not split whole: what a load decompresses), then the raw tables of the
/// split blobs packed ([`crate::pack_raw_tables`]), back to back as the trainer takes them.
struct Parts {
    /// The bind views and packed raw tables, back to back.
    regrouped: Samples,
    /// How many blobs (bind views) come first.
    blobs: usize,
    /// Per blob, where it is split (`None`: stored as one frame).
    splits: Vec<Option<Split>>,
}

impl Parts {
    /// Regroups `blobs`.
    fn of(blobs: &[&[u8]]) -> Parts {
        // A blob whose raw tables do not pack (crate::pack_raw_tables) is stored whole.
        let mut packed = Vec::new();
        let splits: Vec<Option<Split>> = blobs
            .iter()
            .enumerate()
            .map(|(j, b)| {
                let at = blob_split(b)?;
                packed.push(crate::pack_raw_tables(b, at)?);
                Some(Split {
                    at,
                    bind: j,
                    tables: packed.len() - 1,
                })
            })
            .collect();
        let binds = |(b, split): (&&[u8], &Option<Split>)| split.map_or(b.len(), |s| s.at);
        let bytes = blobs.iter().zip(&splits).map(binds).sum::<usize>()
            + packed.iter().map(Vec::len).sum::<usize>();
        let mut regrouped = Samples::with_capacity(bytes, blobs.len() + packed.len());
        for (b, split) in blobs.iter().zip(&splits) {
            regrouped.push(split.map_or(b, |s| &b[..s.at]));
        }
        for tables in packed {
            regrouped.push(&tables);
        }
        Parts {
            regrouped,
            blobs: blobs.len(),
            splits,
        }
    }

    /// What a load decompresses of the blobs: their bind views.
    fn binds(&self) -> Vec<&[u8]> {
        let mut items = self.regrouped.items();
        items.truncate(self.blobs);
        items
    }

    /// The raw tables of the split blobs, packed.
    fn tables(&self) -> Vec<&[u8]> {
        let items = self.regrouped.items();
        items.get(self.blobs..).unwrap_or_default().to_vec()
    }

    /// The bytes and item sizes the trainer takes for the raw tables.
    fn tables_training(&self) -> (&[u8], &[usize]) {
        let Samples { bytes, sizes } = &self.regrouped;
        let (binds, rest) = sizes.split_at(self.blobs.min(sizes.len()));
        let binds_len: usize = binds.iter().sum();
        (bytes.get(binds_len..).unwrap_or_default(), rest)
    }

    /// Where blob `j` is split, if it is.
    fn split(&self, j: usize) -> Option<Split> {
        self.splits.get(j).copied().flatten()
    }
}

/// The section of `kind` holding `raw` stored as `offered` (its compression and stored
/// bytes), when those hold `raw` as this builder stores it with `dictionary`.
fn offered_section(
    kind: SectionKind,
    raw: &[u8],
    offered: Option<(Compression, &[u8])>,
    dictionary: &Option<Vec<u8>>,
) -> Option<RawSection> {
    let (compression, stored) = offered?;
    let with = match compression {
        Compression::Zstd => None,
        Compression::ZstdDictionary => Some(dictionary.as_deref()?),
        _ => return None,
    };
    frames_hold(kind, raw, stored, with)
        .then(|| compressed_section(kind, compression, raw.len(), stored.to_vec()))
}

/// The dictionary [`with_dictionary`] uses, with each module's and blob's estimated frame
/// with it (`with`) and without it (`without`).
#[derive(Default)]
struct Chosen {
    dictionary: Option<Vec<u8>>,
    with: Vec<usize>,
    without: Vec<usize>,
}

/// The smallest of the candidate dictionaries [`with_dictionary`] describes, for `all`, trained
/// on `training` (bytes and item sizes).
fn choose_dictionary(
    (training, training_sizes): (&[u8], &[usize]),
    all: Items<'_, '_>,
    level: i32,
) -> Result<Chosen, BuildError> {
    let module_step = sample_step(all.modules.len());
    let module_picks: Vec<usize> = sample_picks(all.modules.len(), module_step).collect();
    let module_samples = all.modules.gather(&module_picks, 0)?;
    let module_sample = module_samples.items();
    let (blob_sample, blob_step) = sample(all.rest);
    let mut candidates: Vec<Option<Vec<u8>>> = vec![None];
    let total = all.total();
    if all.len() >= 8 {
        for share in [64, 16] {
            let max_size = (total / share).clamp(1 << 10, MAX_DICTIONARY);
            if let Some(trained) = super::train::train(training, training_sizes, max_size) {
                candidates.push(Some(trained));
            }
        }
    }
    if all.len() >= 2 {
        // Raw content: the middle module and the middle blob of the samples (as much of them
        // as a dictionary holds: a blob of megabytes would make every estimate against it
        // cost as much as compressing it); and evenly spaced ones of each, for packages of
        // several programs.
        let mut middles = [middle(&module_sample), middle(&blob_sample)].concat();
        middles.truncate(MAX_DICTIONARY);
        candidates.push(Some(middles));
        let spread = spread(&[&module_sample, &blob_sample]);
        if spread.len() > middle(&module_sample).len() + middle(&blob_sample).len() {
            candidates.push(Some(spread));
        }
        candidates.push(Some(novel([&module_sample, &blob_sample], all)?));
    }
    // Every module and blob decides: at the package's level when the samples are all of
    // them and they are few bytes, else at the probe level (a few hundred MB/s: rare kinds of
    // content count too).
    let exact = module_step == 1 && blob_step == 1 && total <= EXACT_ESTIMATE_BYTES;
    let estimate_level = if exact { level } else { PROBE_LEVEL };
    let mut plain = compressor(level, None)?;
    let mut plain_estimate = compressor(estimate_level, None)?;
    let without = all.sizes(|m| Ok(compress(&mut plain_estimate, m)?.len()))?;
    let mut best: Option<(usize, Option<Vec<u8>>, Vec<usize>)> = None;
    for dict in candidates {
        let (stored_dict, with) = match &dict {
            Some(d) => {
                let mut c = compressor(estimate_level, Some(d))?;
                let with = all.sizes(|m| Ok(compress(&mut c, m)?.len()))?;
                (compress(&mut plain, d)?.len().min(d.len()), with)
            }
            None => (0, without.clone()),
        };
        let frames: usize = with.iter().zip(&without).map(|(w, p)| *w.min(p)).sum();
        let cost = stored_dict + frames;
        if best.as_ref().is_none_or(|(b, ..)| cost < *b) {
            best = Some((cost, dict, with));
        }
    }
    let (dictionary, with) = best.map(|(_, d, w)| (d, w)).unwrap_or_default();
    Ok(Chosen {
        dictionary,
        with,
        without,
    })
}

/// One of every `step` of `items` (at most [`DICTIONARY_SAMPLE`]), and `step`: item
/// `i * step + i % step` for each `i`, so that a sample of modules holds every entry point of
/// entries with several (every 24th of entries of two modules each would only ever be the
/// first).
pub(super) fn sample<'a>(items: &[&'a [u8]]) -> (Vec<&'a [u8]>, usize) {
    let step = sample_step(items.len());
    let picks = sample_picks(items.len(), step).filter_map(|i| items.get(i));
    (picks.copied().collect(), step)
}

/// The step of [`sample`] over `n` items.
fn sample_step(n: usize) -> usize {
    n.div_ceil(DICTIONARY_SAMPLE).max(1)
}

/// The positions [`sample`] takes of `n` items at `step`.
fn sample_picks(n: usize, step: usize) -> impl Iterator<Item = usize> {
    (0..n.div_ceil(step))
        .map(move |i| i * step + i % step)
        .filter(move |&k| k < n)
}

/// At most this many evenly spaced items of each sample make the spread dictionary.
pub(super) const SPREAD: usize = 8;

/// Largest dictionary the writer makes.
pub(super) const MAX_DICTIONARY: usize = 110 << 10;

/// The most bytes of modules and blobs whose dictionary candidates are judged at the
/// package's own level; past it, at [`PROBE_LEVEL`] (each candidate compresses every module
/// and blob once, and level 19 runs at a few MB/s).
const EXACT_ESTIMATE_BYTES: usize = 4 << 20;

/// Of each of `samples`, the most evenly spaced items (at most [`SPREAD`]) that fit in an
/// equal share of [`MAX_DICTIONARY`], concatenated.
pub(super) fn spread(samples: &[&Vec<&[u8]>]) -> Vec<u8> {
    let share = MAX_DICTIONARY / samples.len().max(1);
    let mut out = Vec::new();
    for sample in samples {
        let picks = |k: usize| (0..k).map(move |j| (2 * j + 1) * sample.len() / (2 * k));
        let fits = |k: &usize| picks(*k).map(|i| sample[i].len()).sum::<usize>() <= share;
        if let Some(k) = (1..=SPREAD.min(sample.len())).rev().find(fits) {
            for i in picks(k) {
                out.extend_from_slice(sample[i]);
            }
        }
    }
    out
}

/// An item the dictionary so far leaves more than this many bytes plus a 64th of its size to
/// store is new to it.
const NOVEL_BYTES: usize = 64;

/// Level of the quick compressions that decide whether an item is new to a dictionary.
const PROBE_LEVEL: i32 = 3;

/// Whole modules and blobs, each added while it fits in [`MAX_DICTIONARY`] if the dictionary
/// so far leaves more than [`NOVEL_BYTES`] and a 64th of it to store: one of each distinct kind
/// of content (every program of a package, every entry point, every family of permutations), so
/// that each section of a package of many near-copies is a few dozen bytes of matches into the
/// dictionary. The samples come first (taken in turn, a module then a blob: spread over the
/// package), then every module and blob in order, for what the samples missed.
fn novel(samples: [&[&[u8]]; 2], all: Items<'_, '_>) -> Result<Vec<u8>, BuildError> {
    let [modules, blobs] = samples;
    let mut dict: Vec<u8> = Vec::new();
    let mut probe = compressor(PROBE_LEVEL, None)?;
    let mut offer = |item: &[u8]| -> Result<(), BuildError> {
        if item.is_empty() || dict.len() + item.len() > MAX_DICTIONARY {
            return Ok(());
        }
        if compress(&mut probe, item)?.len() > NOVEL_BYTES + item.len() / 64 {
            dict.extend_from_slice(item);
            probe = compressor(PROBE_LEVEL, Some(&dict))?;
        }
        Ok(())
    };
    let turns = (0..modules.len().max(blobs.len()))
        .flat_map(|i| [modules.get(i), blobs.get(i)])
        .flatten();
    for item in turns {
        offer(item)?;
    }
    all.each(&mut offer)?;
    Ok(dict)
}

/// The middle one of `items` (empty when there is none).
pub(super) fn middle<'a>(items: &[&'a [u8]]) -> &'a [u8] {
    items.get(items.len() / 2).copied().unwrap_or_default()
}

//! One section's bytes: its checksum, its zstd frame (one reused context per thread, the
//! package's dictionary) within the package's decompression budget, container tables repacked
//! from a wider stride, and the lazily loaded reflection blobs and SPIR-V modules.

use super::*;

thread_local! {
    /// One zstd context per thread, reused across loads (a fresh context costs more than
    /// decompressing a small frame).
    static DCTX: std::cell::RefCell<Option<DCtx<'static>>> = const { std::cell::RefCell::new(None) };
    /// The packed bytes of the SPIR-V module being unpacked ([`packed_spirv`]), per thread.
    static PACKED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The most bytes a thread keeps in its buffer of packed SPIR-V between loads.
const PACKED_KEPT: usize = 1 << 20;

/// The dictionaries a section's frames are decompressed with: its first frame's, then its
/// further frames' (the same one but for a blob stored with two, SPEC.md 4.2).
pub(super) type Dicts<'p> = [Option<&'p DDict<'static>>; 2];

/// A checksum run (2.3, SPEC.md 4.3 rule 3): the file bytes it covers and the record of its
/// last section, which holds its checksum.
pub(super) struct ChecksumRun {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) last: SectionRecord,
    /// The directory index of the last section.
    pub(super) last_index: usize,
}

/// The package's zstd dictionary, prepared once for decompression.
pub(super) struct Dictionary(DDict<'static>);

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Dictionary")
    }
}

/// Decompresses one zstd frame (with `dict`, if any; a bare frame, without its magic number,
/// with `bare`: 2.4, SPEC.md 4.2) into `dst`, returning the number of bytes produced, or
/// zstd's message.
pub(super) fn decompress(
    stored: &[u8],
    dst: &mut [u8],
    dict: Option<&DDict<'static>>,
    bare: bool,
) -> Result<usize, String> {
    let run = |d: &mut DCtx<'static>, dst: &mut [u8]| {
        // Set on every call: the context is shared by every package the thread reads.
        let format = match bare {
            true => FrameFormat::Magicless,
            false => FrameFormat::One,
        };
        d.set_parameter(DParameter::Format(format))
            .map_err(|code| zstd::zstd_safe::get_error_name(code).to_owned())?;
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

/// Takes `size` bytes from the owned budget `owned`.
pub(super) fn reserve(owned: &AtomicU64, size: u64, offset: u64) -> Result<()> {
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

/// Decompresses the frame `stored` (of `what`, at file offset `offset`; bare with `bare`)
/// into an owned 8-aligned buffer, which it must fill exactly: `len` bytes.
pub(super) fn decompress_exact(
    stored: &[u8],
    (len, bare): (usize, bool),
    dict: Option<&DDict<'static>>,
    offset: u64,
    what: &dyn Fn() -> String,
) -> Result<Box<[u64]>> {
    decompress_exact_with_spare(stored, (len, 0, bare), dict, offset, what)
}

/// [`decompress_exact`] into a buffer of `len + spare` bytes, whose last `spare` bytes are
/// left zero.
pub(super) fn decompress_exact_with_spare(
    stored: &[u8],
    (len, spare, bare): (usize, usize, bool),
    dict: Option<&DDict<'static>>,
    offset: u64,
    what: &dyn Fn() -> String,
) -> Result<Box<[u64]>> {
    let mut result = Ok(0);
    let words = owned_words(len.saturating_add(spare), |dst| {
        if let Some(dst) = dst.get_mut(..len) {
            result = decompress(stored, dst, dict, bare);
        }
    });
    match result {
        Ok(n) if n == len => Ok(words),
        Ok(n) => Err(err(
            K::SizeMismatch,
            offset,
            format!("{} decompressed to {n} bytes, declared {len}", what()),
        )),
        Err(e) => Err(err(K::Decompress, offset, format!("{}: zstd: {e}", what()))),
    }
}

pub(super) fn stored_bytes<'f>(file: &'f [u8], rec: &SectionRecord) -> &'f [u8] {
    let start = rec.offset() as usize;
    let end = start.saturating_add(rec.stored_size() as usize);
    file.get(start..end).unwrap_or(&[])
}

/// Checks section `i`'s stored bytes against its checksum, as a package of major version
/// `major` states it (SPEC.md 4.3 rule 3).
pub(super) fn check_checksum(
    file: &[u8],
    i: usize,
    rec: &SectionRecord,
    major: u32,
    run: Option<ChecksumRun>,
) -> Result<()> {
    let Some(run) = run else {
        if rec.checksum_of(major, xxh3_64(stored_bytes(file, rec))) != rec.hash() {
            return Err(err(
                K::ChecksumMismatch,
                rec.offset(),
                format!("section {i} checksum mismatch"),
            ));
        }
        return Ok(());
    };
    let bytes = usize::try_from(run.start)
        .ok()
        .zip(usize::try_from(run.end).ok())
        .and_then(|(start, end)| file.get(start..end))
        .unwrap_or_default();
    if run.last.checksum_of(major, xxh3_64(bytes)) != run.last.hash() {
        return Err(err(
            K::ChecksumMismatch,
            rec.offset(),
            format!(
                "section {i} checksum mismatch (its checksum run, file bytes {}..{})",
                run.start, run.end
            ),
        ));
    }
    Ok(())
}

/// The checksum run (2.3, SPEC.md 4.3 rule 3) that section `i` (of record `rec`, among
/// `count` sections whose records `record` gives) is in: `None` when the section holds its own
/// checksum and none before it is in its run (and for a container section, never in one). A
/// run is the sections in the file (not container sections) without a checksum (`hash` 0) and
/// the first one after them that has one, in directory order; open checked every run's shape,
/// so each is looked for at most `MAX_CHECKSUM_RUN_SECTIONS` sections away.
pub(super) fn run_of(
    record: &dyn Fn(usize) -> SectionRecord,
    count: usize,
    i: usize,
    rec: &SectionRecord,
) -> Option<ChecksumRun> {
    if rec.section_kind().is_container() {
        return None;
    }
    let in_file = |j: usize| {
        let r = record(j);
        (!r.section_kind().is_container()).then_some(r)
    };
    let bound = limits::MAX_CHECKSUM_RUN_SECTIONS as usize;
    let (last_index, last) = match rec.hash() {
        0 => (i + 1..count)
            .filter_map(|j| Some((j, in_file(j)?)))
            .take(bound)
            .find(|(_, r)| r.hash() != 0)?,
        _ => (i, *rec),
    };
    let mut first = *rec;
    for before in (0..i).rev().filter_map(in_file).take(bound) {
        if before.hash() != 0 {
            break;
        }
        first = before;
    }
    if first.hash() != 0 {
        return None; // `rec` holds its own checksum and starts its run
    }
    Some(ChecksumRun {
        start: first.offset(),
        end: last.offset().saturating_add(last.stored_size()),
        last,
        last_index,
    })
}

/// Checks a section's checksum and returns its raw bytes: in place when stored uncompressed,
/// else decompressed into an owned buffer (sizes were bounded at open).
pub(super) fn section_bytes(
    file: &[u8],
    (i, major, bare): (usize, u32, bool),
    (rec, run): (&SectionRecord, Option<ChecksumRun>),
    reserve: &dyn Fn(u64) -> Result<()>,
    dicts: Dicts<'_>,
) -> Result<Bytes> {
    check_checksum(file, i, rec, major, run)?;
    raw_bytes(file, (i, bare), rec, reserve, dicts)
}

/// A section's raw bytes, as [`section_bytes`] gives them, without checking its checksum
/// (already checked); its frames bare with `bare`.
pub(super) fn raw_bytes(
    file: &[u8],
    (i, bare): (usize, bool),
    rec: &SectionRecord,
    reserve: &dyn Fn(u64) -> Result<()>,
    [first, rest]: Dicts<'_>,
) -> Result<Bytes> {
    let offset = rec.offset();
    let stored = stored_bytes(file, rec);
    match rec.compression_kind() {
        Compression::Zstd | Compression::ZstdDictionary => {
            let len = rec.raw_size() as usize;
            reserve(len as u64)?;
            let what = || format!("section {i}");
            let words = decompress_exact(stored, (len, bare), first, offset, &what)?;
            Ok(Bytes::Owned { words, len })
        }
        Compression::ZstdSplitDictionaries => {
            let words = split_dictionaries(stored, (i, rec, bare), reserve, [first, rest])?;
            Ok(Bytes::Owned {
                words,
                len: rec.raw_size() as usize,
            })
        }
        Compression::ZstdPackedSpirv | Compression::ZstdDictionaryPackedSpirv => {
            let words = packed_spirv(stored, (i, rec, bare), reserve, first)?;
            Ok(Bytes::Owned {
                words,
                len: rec.raw_size() as usize,
            })
        }
        // Its module lies in a later section's frame: [`Package::load_in_run`] reads it.
        Compression::InModuleRun => Err(err(
            K::Decompress,
            offset,
            format!("section {i}: its module is in a module run"),
        )),
        // Its bind view lies in a later section's frame: [`Package::bind_in_run`] reads it.
        Compression::InBindRun => Err(err(
            K::Decompress,
            offset,
            format!("section {i}: its bind view is in a bind-view run"),
        )),
        // Its raw tables lie in another section: [`Package::reflection_tables`] reads both.
        Compression::ZstdSharedTables => Err(err(
            K::Decompress,
            offset,
            format!("section {i}: its raw tables are another section's"),
        )),
        // Unknown compressions were refused at open.
        _ => Ok(Bytes::File {
            start: offset as usize,
            end: offset as usize + stored.len(),
        }),
    }
}

/// The SPIR-V module of section `i` stored packed (2.6, SPEC.md 4.3): its one frame
/// (decompressed with `dict`, if any) holds at most [`slangpack_format::packed_spirv_bound`]
/// packed bytes of the module's raw size, which is counted against the budget before it is
/// allocated. The packed bytes are decompressed into a buffer of the thread's, reused by
/// later loads (kept up to [`PACKED_KEPT`] bytes), and the module unpacked from them.
fn packed_spirv(
    stored: &[u8],
    (i, rec, bare): (usize, &SectionRecord, bool),
    reserve: &dyn Fn(u64) -> Result<()>,
    dict: Option<&DDict<'static>>,
) -> Result<Box<[u64]>> {
    let offset = rec.offset();
    let len = rec.raw_size() as usize;
    let fail = |kind, what: String| err(kind, offset, format!("section {i}: {what}"));
    reserve(len as u64)?;
    let most = slangpack_format::packed_spirv_bound(len);
    let unpack = |scratch: &mut Vec<u8>| -> Result<Box<[u64]>> {
        if scratch.len() < most {
            scratch.resize(most, 0);
        }
        let room = scratch.get_mut(..most).unwrap_or_default();
        let n = decompress(stored, room, dict, bare)
            .map_err(|e| fail(K::Decompress, format!("zstd: {e}")))?;
        let packed = scratch.get(..n).unwrap_or_default();
        let mut result = Ok(());
        let words = owned_words(len, |dst| {
            result = slangpack_format::unpack_spirv(packed, dst)
                .map_err(|e| fail(K::Decompress, format!("packed SPIR-V: {e}")));
        });
        result.map(|()| words)
    };
    let kept = PACKED.try_with(|cell| {
        let mut scratch = cell.try_borrow_mut().ok()?;
        let result = unpack(&mut scratch);
        if scratch.len() > PACKED_KEPT {
            *scratch = Vec::new();
        }
        Some(result)
    });
    match kept {
        Ok(Some(result)) => result,
        // The thread is ending, or its buffer is in use: one of this load's own.
        _ => unpack(&mut Vec::new()),
    }
}

/// The blob of section `i` stored `ZstdSplitDictionaries` (SPEC.md 4.2, 6.1): its first frame
/// decompressed with `first` (the bind view, `tables_offset` bytes), its second with `rest`
/// (the raw tables packed), unpacked after it. The packed bytes are counted against the budget
/// with the blob.
fn split_dictionaries(
    stored: &[u8],
    (i, rec, bare): (usize, &SectionRecord, bool),
    reserve: &dyn Fn(u64) -> Result<()>,
    [first, rest]: Dicts<'_>,
) -> Result<Box<[u64]>> {
    let offset = rec.offset();
    let len = rec.raw_size() as usize;
    let Some((frame, head)) = first_frame(stored, offset, (i, bare))?.filter(|f| f.1 <= len) else {
        let what = "stored with two dictionaries, but not as two frames within its size";
        return Err(err(K::Decompress, offset, format!("section {i}: {what}")));
    };
    let tail = stored.get(frame.len()..).unwrap_or_default();
    let head = Head::Frame(frame, head);
    split_frames((head, tail), (i, rec, bare), reserve, [first, rest])
}

/// The bind view of a split blob as [`split_frames`] takes it.
enum Head<'a> {
    /// Its own frame, declaring so many bytes (at most the raw size).
    Frame(&'a [u8], usize),
    /// The bind view itself, read out of a bind-view run (2.8).
    View(&'a [u8]),
}

/// The blob of section `i` from its bind view `head` (its frame, or the view itself, less than
/// the raw size) and its raw tables' packed frame `tail` (its own second frame, or the one it
/// shares, 2.5), as [`split_dictionaries`] reads them.
fn split_frames(
    (bind_view, tail): (Head<'_>, &[u8]),
    (i, rec, bare): (usize, &SectionRecord, bool),
    reserve: &dyn Fn(u64) -> Result<()>,
    [first, rest]: Dicts<'_>,
) -> Result<Box<[u64]>> {
    let offset = rec.offset();
    let len = rec.raw_size() as usize;
    let head = match bind_view {
        Head::Frame(_, head) => head,
        Head::View(view) => view.len(),
    };
    if head > len {
        let what = format!("a bind view of {head} bytes, of a blob of {len}");
        return Err(err(K::SizeMismatch, offset, format!("section {i}: {what}")));
    }
    let fail = |kind, what: String| err(kind, offset, format!("section {i}: {what}"));
    // Each word of the raw tables packs into at most 5 bytes.
    let most = (len - head) / 4 * 5;
    let packed_len = match frame_content_size(tail, bare) {
        Some(n) if n <= most as u64 => n as usize,
        Some(n) => {
            let what = format!("packed raw tables of {n} bytes, at most {most}");
            return Err(fail(K::SizeMismatch, what));
        }
        _ => {
            let what = "the packed raw tables' frame declares no content size";
            return Err(fail(K::Decompress, what.into()));
        }
    };
    reserve(len as u64 + packed_len as u64)?;
    let mut packed = vec![0u8; packed_len];
    let mut result = Ok(());
    let words = owned_words(len, |dst| {
        let (bind, tables) = dst.split_at_mut(head);
        let exact = |got: Result<usize, String>, want: usize, what: &str| match got {
            Ok(n) if n == want => Ok(()),
            Ok(n) => Err(fail(
                K::SizeMismatch,
                format!("{what} decompressed to {n} bytes, declared {want}"),
            )),
            Err(e) => Err(fail(K::Decompress, format!("{what}: zstd: {e}"))),
        };
        let view = match bind_view {
            Head::Frame(frame, _) => decompress(frame, bind, first, bare),
            Head::View(view) => {
                bind.copy_from_slice(view);
                Ok(view.len())
            }
        };
        result = exact(view, head, "the first frame")
            .and_then(|()| {
                exact(
                    decompress(tail, &mut packed, rest, bare),
                    packed_len,
                    "raw tables",
                )
            })
            .and_then(|()| {
                slangpack_format::unpack_raw_tables(bind, &packed, tables)
                    .map_err(|e| fail(K::Decompress, e.to_string()))
            });
    });
    result.map(|()| words)
}

/// Checks a container table's stride and size, and returns its records packed at `size`
/// bytes each: `raw` itself, or a repacked copy when the stride is wider (a newer minor
/// version appended fields; their bytes are ignored).
pub(crate) fn repack(
    file: &[u8],
    raw: Bytes,
    rec: &SectionRecord,
    size: usize,
    what: &dyn Fn() -> String,
    reserve: &dyn Fn(u64) -> Result<()>,
) -> Result<Bytes> {
    let (count, stride, offset) = (rec.record_count, rec.record_stride, rec.offset());
    if (stride as usize) < size || stride % 4 != 0 || stride > limits::MAX_RECORD_STRIDE {
        return Err(err(
            K::BadStride,
            offset,
            format!(
                "{}: record stride {stride}, expected at least {size} and a multiple of 4",
                what()
            ),
        ));
    }
    if u64::from(count) * u64::from(stride) != u(raw.len()) {
        return Err(err(
            K::SizeMismatch,
            offset,
            format!(
                "{}: {count} records of {stride} bytes do not fill {} bytes",
                what(),
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

/// The content size the frame at the start of `stored` declares (bare with `bare`), if it
/// declares one.
pub(super) fn frame_content_size(stored: &[u8], bare: bool) -> Option<u64> {
    match bare {
        true => slangpack_format::bare_frame(stored)?.content_size,
        false => zstd::zstd_safe::get_frame_content_size(stored).ok()?,
    }
}

/// The first frame of a reflection section stored as several (a split blob, 1.6; its frames
/// bare with `bare`, 2.4) and the size it declares; `None` when the section is one frame (or
/// not zstd at all).
fn first_frame(
    stored: &[u8],
    offset: u64,
    (i, bare): (usize, bool),
) -> Result<Option<(&[u8], usize)>> {
    let frame_err = |what: &str| err(K::Decompress, offset, format!("section {i}: zstd: {what}"));
    let len = match bare {
        true => slangpack_format::bare_frame(stored)
            .map(|f| f.len)
            .ok_or_else(|| frame_err("not a whole bare frame"))?,
        false => zstd::zstd_safe::find_frame_compressed_size(stored)
            .map_err(|code| frame_err(zstd::zstd_safe::get_error_name(code)))?,
    };
    let Some(first) = stored.get(..len).filter(|f| f.len() < stored.len()) else {
        return Ok(None);
    };
    match frame_content_size(first, bare) {
        Some(size) if size <= limits::MAX_SECTION_RAW_SIZE => Ok(Some((first, size as usize))),
        Some(size) => Err(err(
            K::LimitExceeded,
            offset,
            format!("section {i}: first frame declares {size} bytes"),
        )),
        _ => Err(frame_err(
            "the first of several frames declares no content size",
        )),
    }
}

/// The one frame of a reflection section stored `ZstdSharedTables` (2.5: the bind view of a
/// split blob whose raw tables another section holds) and the size it declares, less than the
/// section's raw size; anything else is `Decompress` (or `LimitExceeded`).
fn only_frame<'s>(
    stored: &'s [u8],
    (i, rec): (usize, &SectionRecord),
    bare: bool,
) -> Result<(&'s [u8], usize)> {
    let offset = rec.offset();
    let fail = |what: &str| err(K::Decompress, offset, format!("section {i}: {what}"));
    let whole = match bare {
        true => slangpack_format::bare_frame(stored).map(|f| f.len),
        false => zstd::zstd_safe::find_frame_compressed_size(stored).ok(),
    };
    if whole != Some(stored.len()) {
        return Err(fail("shares its raw tables, but is not one whole frame"));
    }
    match frame_content_size(stored, bare) {
        Some(size) if size < rec.raw_size() && size <= limits::MAX_SECTION_RAW_SIZE => {
            Ok((stored, size as usize))
        }
        Some(size) => Err(err(
            K::SizeMismatch,
            offset,
            format!(
                "section {i}: its bind view declares {size} bytes, of a blob of {}",
                rec.raw_size()
            ),
        )),
        None => Err(fail(
            "the frame of a blob sharing its raw tables declares no content size",
        )),
    }
}

/// Where in `file` the content of `frame` (at `offset`, declaring `len` bytes) lies when the
/// frame is one raw block that a view can be served from in place, else `None` (it is
/// decompressed): a single-segment frame header with an 8-byte content size and no checksum
/// or dictionary id, then one last raw block of `len` bytes, nothing after it; its content,
/// 16 bytes in, at a multiple of 8 in memory. Decompressing such a frame copies those bytes.
fn in_place(file: &[u8], offset: u64, frame: &[u8], len: usize) -> Option<usize> {
    const HEADER: usize = 16;
    let (head, content) = frame.split_first_chunk::<HEADER>()?;
    let block = u32::from_le_bytes([head[13], head[14], head[15], 0]);
    let fits = head[..5] == [0x28, 0xB5, 0x2F, 0xFD, 0b1110_0000]
        && u64::from_le_bytes(head[5..13].try_into().ok()?) == len as u64
        && block == (u32::try_from(len).ok()? << 3 | 1)
        && content.len() == len;
    let start = usize::try_from(offset).ok()?.checked_add(HEADER)?;
    let aligned = (file.as_ptr() as usize).wrapping_add(start) % 8 == 0;
    (fits && aligned && file.get(start..start + len).is_some()).then_some(start)
}

impl Package {
    /// Reflection blob `n`, loaded (checksum, decompression, validation) at its first use.
    /// A split blob (1.6) stored as two frames is loaded from its first frame: every table
    /// but the raw ones ([`Package::reflection_tables`] loads those).
    pub(crate) fn reflection(&self, n: usize) -> Result<&Blob> {
        let loaded = self.reflections.get_or_load(n, |i| {
            let file = self.storage.bytes();
            let rec = self.dir_record(i);
            let reserve = self.budget_at(rec.offset());
            let at = Where {
                section: i,
                offset: rec.offset(),
            };
            // A bind view in a bind-view run (2.8) comes out of its run's frame.
            if let Some(run) = self.bind_run(i, &rec)? {
                let bytes = self.bind_in_run(i, &rec, run)?;
                return self.bind_view_blob(file, bytes, at, &reserve, &rec);
            }
            let dict = self.first_dictionary_for(&rec)?;
            let compressed = rec.compression_kind().is_zstd();
            // Checksum first, over every stored byte, before any frame is looked into.
            self.check_checksum(i, &rec)?;
            let stored = stored_bytes(file, &rec);
            let first = match rec.compression_kind() {
                Compression::ZstdSharedTables => {
                    Some(only_frame(stored, (i, &rec), self.bare_frames)?)
                }
                _ if compressed => first_frame(stored, rec.offset(), (i, self.bare_frames))?,
                _ => None,
            };
            // A first frame of one raw block at an 8-aligned place: its content is the bytes.
            let in_file = first.and_then(|(frame, len)| {
                in_place(file, rec.offset(), frame, len).map(|start| (start, len))
            });
            let bytes = match (first, in_file) {
                (_, Some((start, len))) => Bytes::File {
                    start,
                    end: start + len,
                },
                (Some((frame, len)), None) => {
                    reserve(len as u64)?;
                    let what = || format!("section {i} (first frame)");
                    let words = decompress_exact(
                        frame,
                        (len, self.bare_frames),
                        dict,
                        rec.offset(),
                        &what,
                    )?;
                    Bytes::Owned { words, len }
                }
                (None, None) => {
                    let dicts = self.dictionaries_for(&rec)?;
                    raw_bytes(file, (i, self.bare_frames), &rec, &reserve, dicts)?
                }
            };
            self.bind_view_blob(file, bytes, at, &reserve, &rec)
        });
        match loaded {
            Some(blob) => blob.map(|b| &**b),
            None => Ok(&EMPTY_BLOB),
        }
    }

    /// The blob of section `at` (record `rec`) loaded from `bytes`, its first part (all of it,
    /// or a split blob's bind view), with the reader's own name table.
    fn bind_view_blob(
        &self,
        file: &[u8],
        bytes: Bytes,
        at: Where,
        reserve: &dyn Fn(u64) -> Result<()>,
        rec: &SectionRecord,
    ) -> Result<Box<Blob>> {
        let mut blob = load_blob(file, bytes, at, reserve, rec.raw_size())?;
        // The reader's own name table, from the bind view the load checked.
        blob.names = ReflectionView::new(file, &blob, 0)
            .bind()
            .name_table(reserve)?;
        Ok(Box::new(blob))
    }

    /// The whole of blob `blob` (loaded by [`Package::reflection`]), every table: `blob` itself
    /// unless it is split, else loaded at the first call (the whole section decompressed, its
    /// raw tables checked) and kept, as is an error.
    pub(crate) fn reflection_tables<'a>(&'a self, blob: &'a Blob) -> Result<&'a Blob> {
        let Some(split) = &blob.split else {
            return Ok(blob);
        };
        let full = split.full.get_or_init(|| {
            let i = split.section;
            let file = self.storage.bytes();
            let rec = self.dir_record(i);
            let reserve = self.budget_at(rec.offset());
            let dicts = self.dictionaries_for(&rec)?;
            // The checksum was verified when `blob` was loaded.
            let bytes = match rec.compression_kind() {
                Compression::ZstdSharedTables | Compression::InBindRun => {
                    let view = blob.bytes.get(file);
                    self.shared_tables(i, &rec, &reserve, dicts, view)?
                }
                _ => raw_bytes(file, (i, self.bare_frames), &rec, &reserve, dicts)?,
            };
            let at = Where {
                section: i,
                offset: rec.offset(),
            };
            load_tables(file, bytes, at, &reserve, blob)
                .map(Box::new)
                .map_err(Box::new)
        });
        match full {
            Ok(b) => Ok(b),
            Err(e) => Err(e.duplicate()),
        }
    }

    /// The whole of blob section `i` (record `rec`), stored `ZstdSharedTables` (2.5, SPEC.md
    /// 4.2) or `InBindRun` (2.8): its own frame (the bind view; in a bind-view run, `view`,
    /// the bind view its load read out of the run), then the raw tables of the section
    /// `record_count` before it, a reflection section stored `ZstdSplitDictionaries`, whose
    /// checksum is checked first and whose second frame is read as this blob's own would be.
    fn shared_tables(
        &self,
        i: usize,
        rec: &SectionRecord,
        reserve: &dyn Fn(u64) -> Result<()>,
        dicts: Dicts<'_>,
        view: &[u8],
    ) -> Result<Bytes> {
        let file = self.storage.bytes();
        let bare = self.bare_frames;
        let fail = |what: String| err(K::Decompress, rec.offset(), format!("section {i}: {what}"));
        // In range: checked at open.
        let j = i.saturating_sub(rec.record_count as usize);
        let owner = self.dir_record(j);
        if owner.section_kind() != SectionKind::Reflection
            || owner.compression_kind() != Compression::ZstdSplitDictionaries
        {
            let what = "a reflection blob stored with two dictionaries";
            return Err(fail(format!(
                "shares the raw tables of section {j}, which is not {what}"
            )));
        }
        self.check_checksum(j, &owner)?;
        let theirs = stored_bytes(file, &owner);
        let Some((their_frame, _)) = first_frame(theirs, owner.offset(), (j, bare))? else {
            return Err(fail(format!(
                "shares the raw tables of section {j}, which holds none"
            )));
        };
        let tail = theirs.get(their_frame.len()..).unwrap_or_default();
        let head = match self.bind_run(i, rec)? {
            Some(_) => Head::View(view),
            None => {
                let (frame, head) = only_frame(stored_bytes(file, rec), (i, rec), bare)?;
                Head::Frame(frame, head)
            }
        };
        let words = split_frames((head, tail), (i, rec, bare), reserve, dicts)?;
        Ok(Bytes::Owned {
            words,
            len: rec.raw_size() as usize,
        })
    }

    /// Section `i` (of the directory) as stored, checksummed and decompressed (with the
    /// dictionary if it uses it), counted against the package's limit on owned bytes.
    pub(crate) fn load_section(&self, i: usize) -> Result<Bytes> {
        let rec = self.dir_record(i);
        if let Some(run) = self.module_run(i, &rec)? {
            return self.load_in_run(i, &rec, run);
        }
        let reserve = self.budget_at(rec.offset());
        let dicts = self.dictionaries_for(&rec)?;
        self.check_checksum(i, &rec)?;
        raw_bytes(
            self.storage.bytes(),
            (i, self.bare_frames),
            &rec,
            &reserve,
            dicts,
        )
    }

    /// Section `i` checksummed and, when compressed, decompressed straight into the buffer
    /// returned (text code becomes the `String` it is served as without another copy); stored
    /// uncompressed, copied. Either way counted once against the owned budget.
    pub(crate) fn load_section_vec(&self, i: usize) -> Result<Vec<u8>> {
        let rec = self.dir_record(i);
        let file = self.storage.bytes();
        self.check_checksum(i, &rec)?;
        let offset = rec.offset();
        let stored = stored_bytes(file, &rec);
        match rec.compression_kind() {
            Compression::Zstd | Compression::ZstdDictionary => {
                let [dict, _] = self.dictionaries_for(&rec)?;
                let len = rec.raw_size() as usize;
                self.reserve_owned(len as u64, offset)?;
                let mut out = vec![0u8; len];
                match decompress(stored, &mut out, dict, self.bare_frames) {
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

    /// Checks section `i`'s checksum (SPEC.md 4.3 rule 3): its own, or its checksum run's
    /// (2.3, [`run_of`]).
    pub(crate) fn check_checksum(&self, i: usize, rec: &SectionRecord) -> Result<()> {
        let run = self.run_of(i, rec);
        // A run found intact once is not hashed again for its other sections.
        let bit = run
            .as_ref()
            .map(|r| (r.last_index / 64, 1u64 << (r.last_index % 64)));
        let word = bit.and_then(|(word, bit)| Some((self.runs_checked.get(word)?, bit)));
        if word.is_some_and(|(word, bit)| word.load(Ordering::Acquire) & bit != 0) {
            return Ok(());
        }
        check_checksum(self.storage.bytes(), i, rec, self.version.0, run)?;
        if let Some((word, bit)) = word {
            word.fetch_or(bit, Ordering::Release);
        }
        Ok(())
    }

    /// The checksum run (2.3) section `i` (of record `rec`) is in, as [`run_of`] finds it.
    pub(super) fn run_of(&self, i: usize, rec: &SectionRecord) -> Option<ChecksumRun> {
        if !self.checksum_runs {
            return None;
        }
        run_of(&|j| self.dir_record(j), self.section_total(), i, rec)
    }

    /// The package's owned budget, as the loads of a section at file offset `offset` take
    /// from it (the offset is the one their errors give).
    fn budget_at(&self, offset: u64) -> impl Fn(u64) -> Result<()> + '_ {
        move |size| reserve(&self.owned, size, offset)
    }

    /// SPIR-V blob `n`, loaded (checksum, decompression) at its first use, with the xxh3-64
    /// of its words: the section's checksum when stored uncompressed (the stored bytes are
    /// the words), else hashed once, at the first request (2.0 derives its entry points'
    /// hashes from it, SPEC.md 5.4).
    pub(super) fn spirv_module(&self, n: usize) -> Result<&Module> {
        let loaded = self.spirv.get_or_load(n, |i| {
            let bytes = self.load_section(i)?;
            let rec = self.dir_record(i);
            let hash = std::sync::OnceLock::new();
            // A section in a checksum run (2.3) holds no checksum of its own bytes.
            if rec.compression_kind() == Compression::None && self.run_of(i, &rec).is_none() {
                let _ = hash.set(rec.hash());
            }
            Ok(Module { bytes, hash })
        });
        loaded.unwrap_or(Ok(&EMPTY_MODULE))
    }

    /// The dictionaries `rec`'s frames are compressed with: its first frame's (the package's
    /// `Dictionary`, for a section stored `ZstdDictionary`, or `ZstdSplitDictionaries` when
    /// the package has one), and, for a section stored `ZstdSplitDictionaries`, its further
    /// frames' (the `TablesDictionary`, when the package has one); each loaded at its first
    /// use.
    pub(super) fn dictionaries_for<'p>(&'p self, rec: &SectionRecord) -> Result<Dicts<'p>> {
        let (first, rest) = match rec.compression_kind() {
            Compression::ZstdDictionary | Compression::ZstdDictionaryPackedSpirv => {
                (&self.dictionary, &self.dictionary)
            }
            Compression::ZstdSplitDictionaries
            | Compression::ZstdSharedTables
            | Compression::InBindRun => (&self.dictionary, &self.tables_dictionary),
            _ => return Ok([None, None]),
        };
        let load = |slot: &'p Option<Lazy<Dictionary>>| match slot {
            Some(slot) => self.load_dictionary(slot).map(Some),
            None => Ok(None), // `ZstdDictionary` without a dictionary is refused at open
        };
        Ok([load(first)?, load(rest)?])
    }

    /// The dictionary of `rec`'s first frame, as [`Package::dictionaries_for`] gives it, the
    /// other one left unloaded (a bind view's load never needs its raw tables' dictionary).
    fn first_dictionary_for(&self, rec: &SectionRecord) -> Result<Option<&DDict<'static>>> {
        match (rec.compression_kind(), &self.dictionary) {
            (
                Compression::ZstdDictionary
                | Compression::ZstdSplitDictionaries
                | Compression::ZstdSharedTables,
                Some(slot),
            ) => self.load_dictionary(slot).map(Some),
            _ => Ok(None),
        }
    }

    /// The dictionary of section `slot` (loaded at its first use: checksum, decompression,
    /// zstd's own checks of the dictionary).
    pub(super) fn load_dictionary<'p>(
        &'p self,
        slot: &'p Lazy<Dictionary>,
    ) -> Result<&'p DDict<'static>> {
        let dict = slot.get_or_load(|i| {
            let rec = self.dir_record(i);
            let reserve = self.budget_at(rec.offset());
            self.check_checksum(i, &rec)?;
            let bytes = raw_bytes(
                self.storage.bytes(),
                (i, self.bare_frames),
                &rec,
                &reserve,
                [None, None],
            )?;
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
        Ok(&dict.0)
    }
}

//! Loading a reflection blob: header, table directory, tables, strings, and every index in
//! them. Runs once per blob, at the first load of an entry that uses it.

use crate::error::{err, Error, ErrorKind as K, Result};
use crate::storage::{cast, owned_words, Bytes};
use slangpack_format::*;
use zerocopy::FromBytes;

mod check;
use check::Checker;

/// Where one known table of a loaded blob is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TableLoc {
    /// `start..end` of the blob's bytes (records of exactly the known size).
    Blob { start: usize, end: usize },
    /// The first `len` bytes of repacked buffer `index` (records read from a wider stride).
    Repacked { index: usize, len: usize },
}

impl TableLoc {
    const EMPTY: TableLoc = TableLoc::Blob { start: 0, end: 0 };
}

/// A loaded, validated reflection blob.
#[derive(Debug)]
pub(crate) struct Blob {
    /// The whole blob: in the package when stored raw, else decompressed.
    pub(crate) bytes: Bytes,
    /// Location of each known table, indexed by `kind - 1`.
    pub(crate) tables: [TableLoc; TABLE_KINDS],
    /// Tables repacked from a wider stride (a newer minor version appended fields).
    pub(crate) repacked: Vec<Box<[u64]>>,
    /// The blob's string bytes, checked to be UTF-8.
    pub(crate) strings: String,
    /// The header (its known prefix).
    pub(crate) header: ReflectionHeader,
    /// The name index's names, resolved at load ([`crate::names::NameTable`]).
    pub(crate) names: crate::names::NameTable,
    /// Record count of each known table, as its directory record states (also for raw
    /// tables not yet loaded), indexed by `kind - 1`.
    pub(crate) counts: [u64; TABLE_KINDS],
    /// For a split blob loaded without its raw tables (1.6): those tables, loaded at their
    /// first use. `None` when this blob holds every table.
    pub(crate) split: Option<Split>,
}

/// The raw tables of a split blob, loaded (the whole section, its raw tables checked) at the
/// first [`crate::Entry::reflection`].
#[derive(Debug)]
pub(crate) struct Split {
    /// Directory index of the blob's section.
    pub(crate) section: usize,
    /// The whole blob, every table, once loaded (or that load's error).
    pub(crate) full: std::sync::OnceLock<core::result::Result<Box<Blob>, Box<Error>>>,
}

/// Which tables a load of a blob reads and checks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The load of an entry: every table of a blob that is not split, else every table but
    /// the raw ones (those before `tables_offset`), which are bounded but not read.
    Load,
    /// The raw tables of a split blob, at their first use (the rest was checked at load).
    Tables,
}

/// The blob of an entry without reflection: every table empty, every scalar absent.
pub(crate) static EMPTY_BLOB: Blob = Blob {
    bytes: Bytes::EMPTY,
    tables: [TableLoc::EMPTY; TABLE_KINDS],
    repacked: Vec::new(),
    strings: String::new(),
    header: ReflectionHeader::EMPTY,
    names: crate::names::NameTable::EMPTY,
    counts: [0; TABLE_KINDS],
    split: None,
};

impl Blob {
    /// The bytes of table `slot` (`kind - 1`), given the blob's bytes.
    #[inline]
    pub(crate) fn table_bytes<'a>(&'a self, base: &'a [u8], slot: usize) -> &'a [u8] {
        match self.tables.get(slot) {
            Some(&TableLoc::Blob { start, end }) => base.get(start..end).unwrap_or(&[]),
            Some(&TableLoc::Repacked { index, len }) => self
                .repacked
                .get(index)
                .and_then(|w| zerocopy::IntoBytes::as_bytes(&**w).get(..len))
                .unwrap_or(&[]),
            None => &[],
        }
    }
}

/// Names a reflection section in errors.
#[derive(Clone, Copy)]
pub(crate) struct Where {
    /// Directory index of the section.
    pub(crate) section: usize,
    /// File offset of the section's stored bytes.
    pub(crate) offset: u64,
}

impl Where {
    #[cold]
    fn err(self, kind: K, at: u64, detail: std::fmt::Arguments<'_>) -> Error {
        err(
            kind,
            self.offset + at,
            format!("section {} (reflection): {detail}", self.section),
        )
    }
}

/// Loads and validates the reflection blob whose raw bytes are `bytes` (`raw` resolves them
/// against the package bytes `file`), `full_len` bytes long as stored. `reserve` takes bytes
/// from the package's owned budget.
///
/// With [`Part::Load`], a split blob (`tables_offset` not 0) may be given as its first
/// `tables_offset` bytes only, and its raw tables are bounded but neither read nor checked:
/// [`load_tables`] does that. Any other blob is given and checked whole.
pub(crate) fn load_blob(
    file: &[u8],
    bytes: Bytes,
    at: Where,
    reserve: &dyn Fn(u64) -> Result<()>,
    full_len: u64,
) -> Result<Blob> {
    let blob = parse(file, bytes, at, reserve, full_len, Part::Load)?;
    let base = blob.bytes.get(file);
    let checker = Checker::new(&blob, base, at);
    if blob.header.tables_offset == 0 {
        checker.check_all()?;
    } else {
        checker.check_bind_part()?;
    }
    Ok(blob)
}

/// Loads the whole of split blob `bind` (loaded by [`load_blob`]) from its section's raw
/// bytes `bytes`, and checks what the load left out: its raw tables.
pub(crate) fn load_tables(
    file: &[u8],
    bytes: Bytes,
    at: Where,
    reserve: &dyn Fn(u64) -> Result<()>,
    bind: &Blob,
) -> Result<Blob> {
    let full_len = bytes.get(file).len() as u64;
    let mut blob = parse(file, bytes, at, reserve, full_len, Part::Tables)?;
    Checker::new(&blob, blob.bytes.get(file), at).check_raw_tables()?;
    reserve(bind.names.owned_size())?;
    blob.names = bind.names.clone();
    Ok(blob)
}

/// The header, the table directory and the strings of a blob: every rule of SPEC.md 6.1, 6.2
/// and 6.4, and the tables `part` reads located (repacked when wider). Its steps are
/// `#[inline(always)]`, so that a blob's load costs what it did as one function.
fn parse(
    file: &[u8],
    bytes: Bytes,
    at: Where,
    reserve: &dyn Fn(u64) -> Result<()>,
    full_len: u64,
    part: Part,
) -> Result<Blob> {
    let raw = bytes.get(file);
    let header = read_header(raw, at)?;
    let extent = Extent::of(&header, at, raw.len() as u64, full_len, part)?;
    let lazy = extent.split != 0 && part == Part::Load;
    let mut located = Located {
        tables: [TableLoc::EMPTY; TABLE_KINDS],
        counts: [0u64; TABLE_KINDS],
        repacked: Vec::new(),
    };
    locate_tables(raw, &header, at, &extent, lazy, reserve, &mut located)?;
    let mut blob = Blob {
        bytes,
        tables: located.tables,
        repacked: located.repacked,
        strings: String::new(),
        header,
        names: crate::names::NameTable::EMPTY,
        counts: located.counts,
        split: lazy.then(|| Split {
            section: at.section,
            full: std::sync::OnceLock::new(),
        }),
    };
    blob.strings = {
        let base = blob.bytes.get(file);
        let refs: &[StringRef] = cast(blob.table_bytes(base, slot(TableKind::StringRefs)));
        let text = blob.table_bytes(base, slot(TableKind::StringBytes));
        let text = check_strings(refs, text, |kind, detail| {
            at.err(kind, 0, format_args!("{detail}"))
        })?;
        reserve(text.len() as u64)?;
        text.to_owned()
    };
    Ok(blob)
}

/// The blob's header (SPEC.md 6.1): its magic, its size, the table records' stride and count.
#[inline(always)]
fn read_header(raw: &[u8], at: Where) -> Result<ReflectionHeader> {
    let blob_len = raw.len() as u64;
    if raw.get(..4) != Some(&REFLECTION_MAGIC[..]) {
        return Err(at.err(K::BadMagic, 0, format_args!("expected magic \"SPRF\"")));
    }
    let header = ReflectionHeader::read_from_prefix(raw)
        .map(|(h, _)| h)
        .map_err(|_| {
            at.err(
                K::Truncated,
                0,
                format_args!("{blob_len} bytes, shorter than the header"),
            )
        })?;
    if header.header_size < 64 || u64::from(header.header_size) > blob_len {
        return Err(at.err(
            K::BadHeader,
            4,
            format_args!("header size {}", header.header_size),
        ));
    }
    let rec_size = header.table_record_size;
    if rec_size < 16 || rec_size % 4 != 0 || rec_size > limits::MAX_RECORD_STRIDE {
        return Err(at.err(
            K::BadStride,
            16,
            format_args!("table record size {rec_size}, expected at least 16"),
        ));
    }
    if header.table_count > limits::MAX_TABLES {
        return Err(at.err(
            K::LimitExceeded,
            12,
            format_args!(
                "{} tables, limit {}",
                header.table_count,
                limits::MAX_TABLES
            ),
        ));
    }
    Ok(header)
}

/// Where a blob's parts lie (SPEC.md 6.1, 6.2): its table directory, and for a split blob
/// (1.6) where its raw tables begin.
struct Extent {
    dir_off: u64,
    dir_end: u64,
    /// `tables_offset`: 0, or where the raw tables begin, everything else before it.
    split: u64,
    full_len: u64,
}

impl Extent {
    /// The extent `header` states, checked against the `blob_len` bytes given of a blob of
    /// `full_len` bytes.
    #[inline(always)]
    fn of(
        header: &ReflectionHeader,
        at: Where,
        blob_len: u64,
        full_len: u64,
        part: Part,
    ) -> Result<Extent> {
        let dir_off = u64::from(header.table_dir_offset);
        if dir_off % 4 != 0 {
            return Err(at.err(
                K::Misaligned,
                8,
                format_args!("table directory offset {dir_off} is not a multiple of 4"),
            ));
        }
        let dir_end = dir_off + u64::from(header.table_count) * u64::from(header.table_record_size);
        if dir_off < u64::from(header.header_size) || dir_end > blob_len {
            return Err(at.err(
                K::OutOfBounds,
                8,
                format_args!(
                    "table directory {dir_off}..{dir_end} outside the blob ({blob_len} bytes)"
                ),
            ));
        }
        let split = u64::from(header.tables_offset);
        if split != 0 {
            if split % 8 != 0 {
                return Err(at.err(
                    K::Misaligned,
                    56,
                    format_args!("tables_offset {split} is not a multiple of 8"),
                ));
            }
            if split < dir_end || split > full_len {
                return Err(at.err(
                    K::OutOfBounds,
                    56,
                    format_args!(
                        "tables_offset {split} outside the blob's data ({dir_end}..{full_len})"
                    ),
                ));
            }
        }
        // What the caller gave: the whole blob, or (a split blob's load) the bytes before the
        // raw tables, the first frame of its section.
        if blob_len != full_len && (split == 0 || blob_len != split || part == Part::Tables) {
            return Err(at.err(
                K::SizeMismatch,
                0,
                format_args!(
                    "the first frame holds {blob_len} bytes of the blob's {full_len}, expected {}",
                    if split == 0 { full_len } else { split }
                ),
            ));
        }
        Ok(Extent {
            dir_off,
            dir_end,
            split,
            full_len,
        })
    }

    /// The part of the blob a table of `kind` must lie in.
    fn bounds_of(&self, kind: TableKind) -> (u64, u64) {
        match (self.split, kind.is_raw()) {
            (0, _) => (self.dir_end, self.full_len),
            (_, true) => (self.split, self.full_len),
            (_, false) => (self.dir_end, self.split),
        }
    }
}

/// The known tables of a blob, located from its table directory (filled in place by
/// [`locate_tables`]: the tables are large, and a value returned would be copied once more).
struct Located {
    tables: [TableLoc; TABLE_KINDS],
    counts: [u64; TABLE_KINDS],
    repacked: Vec<Box<[u64]>>,
}

/// Reads the table directory (SPEC.md 6.2): every known table's place, stride and record
/// count checked, each located (repacked when its stride is wider). With `lazy`, the raw
/// tables are bounded and counted but not located (`load_tables` reads them).
#[inline(always)]
fn locate_tables(
    raw: &[u8],
    header: &ReflectionHeader,
    at: Where,
    extent: &Extent,
    lazy: bool,
    reserve: &dyn Fn(u64) -> Result<()>,
    located: &mut Located,
) -> Result<()> {
    let rec_size = header.table_record_size;
    let dir_bytes = raw
        .get(extent.dir_off as usize..extent.dir_end as usize)
        .unwrap_or(&[]);
    let mut seen = [false; TABLE_KINDS];
    for (i, rec) in dir_bytes.chunks_exact(rec_size as usize).enumerate() {
        let Ok((t, _)) = TableDirRecord::read_from_prefix(rec) else {
            continue;
        };
        let kind = TableKind::from_raw(t.kind);
        let Some(info) = kind.info() else {
            continue; // a newer minor version's table
        };
        let slot = kind.slot().unwrap_or(0);
        let rec_at = extent.dir_off + i as u64 * u64::from(rec_size);
        let end = check_table_place(&t, kind, info.name, at, rec_at, extent)?;
        #[allow(
            clippy::indexing_slicing,
            reason = "a known kind's slot is below TABLE_KINDS, the length of `seen` and `tables`"
        )]
        if std::mem::replace(&mut seen[slot], true) {
            let name = info.name;
            return Err(at.err(K::Duplicate, rec_at, format_args!("a second {name} table")));
        }
        check_table_stride(&t, info, at)?;
        if let Some(count) = located.counts.get_mut(slot) {
            *count = u64::from(t.count);
        }
        if lazy && kind.is_raw() {
            continue; // read by `load_tables`
        }
        let loc = table_loc(
            raw,
            &t,
            info.record_size,
            end,
            reserve,
            &mut located.repacked,
        )?;
        #[allow(clippy::indexing_slicing, reason = "as for `seen` above")]
        let table = &mut located.tables[slot];
        *table = loc;
    }
    Ok(())
}

/// Checks that table `t` (named `name`, its directory record at `rec_at`) is aligned and lies
/// in its part of the blob; returns where it ends.
#[inline(always)]
fn check_table_place(
    t: &TableDirRecord,
    kind: TableKind,
    name: &str,
    at: Where,
    rec_at: u64,
    extent: &Extent,
) -> Result<u64> {
    if t.offset % 4 != 0 {
        return Err(at.err(
            K::Misaligned,
            rec_at,
            format_args!("table {name} offset {} is not a multiple of 4", t.offset),
        ));
    }
    let end = u64::from(t.offset) + u64::from(t.count) * u64::from(t.stride);
    let (lo, hi) = extent.bounds_of(kind);
    if u64::from(t.offset) < lo || end > hi {
        return Err(at.err(
            K::OutOfBounds,
            rec_at,
            format_args!(
                "table {name} ({}..{end}) outside its part of the blob ({lo}..{hi})",
                t.offset
            ),
        ));
    }
    Ok(end)
}

/// Checks table `t`'s record stride against its kind's record size.
#[inline(always)]
fn check_table_stride(t: &TableDirRecord, info: &TableInfo, at: Where) -> Result<()> {
    let (name, size, stride) = (info.name, info.record_size, t.stride);
    if stride < size
        || (size > 1 && stride % 4 != 0)
        || (size == 1 && stride != 1)
        || stride > limits::MAX_RECORD_STRIDE
    {
        return Err(at.err(
            K::BadStride,
            u64::from(t.offset),
            format_args!(
                "table {name}: record stride {stride}, expected at least {size} and a multiple of 4"
            ),
        ));
    }
    Ok(())
}

/// Where table `t` (ending at `end`) is read from: in place when its records are `size`
/// bytes, else repacked into a buffer of `repacked` (taken from the budget).
fn table_loc(
    raw: &[u8],
    t: &TableDirRecord,
    size: u32,
    end: u64,
    reserve: &dyn Fn(u64) -> Result<()>,
    repacked: &mut Vec<Box<[u64]>>,
) -> Result<TableLoc> {
    let start = t.offset as usize;
    let stride = t.stride;
    if stride == size {
        return Ok(TableLoc::Blob {
            start,
            end: end as usize,
        });
    }
    let packed = t.count as usize * size as usize;
    reserve(packed as u64)?;
    let src = raw.get(start..end as usize).unwrap_or(&[]);
    let words = owned_words(packed, |dst| {
        for (d, r) in dst
            .chunks_exact_mut(size as usize)
            .zip(src.chunks_exact(stride as usize))
        {
            if let Some(prefix) = r.get(..size as usize) {
                d.copy_from_slice(prefix);
            }
        }
    });
    repacked.push(words);
    Ok(TableLoc::Repacked {
        index: repacked.len() - 1,
        len: packed,
    })
}

/// Checks that `text` is UTF-8 and every reference lies within it on character boundaries.
pub(crate) fn check_strings<'t>(
    refs: &[StringRef],
    text: &'t [u8],
    fail: impl Fn(K, String) -> Error,
) -> Result<&'t str> {
    let text = core::str::from_utf8(text).map_err(|e| {
        fail(
            K::BadString,
            format!(
                "string bytes are not valid UTF-8 (at string byte {})",
                e.valid_up_to()
            ),
        )
    })?;
    let bytes = text.as_bytes();
    let boundary =
        |i: usize| i >= bytes.len() || (bytes.get(i).is_some_and(|&b| (b as i8) >= -0x40));
    for (i, r) in refs.iter().enumerate() {
        let start = r.offset as usize;
        let end = start as u64 + u64::from(r.len);
        let ok = r.len <= limits::MAX_STRING_LEN
            && end <= bytes.len() as u64
            && boundary(start)
            && boundary(end as usize);
        if !ok {
            return Err(fail(
                K::BadString,
                format!(
                    "string {i} ({} bytes at {}) is outside the pool or splits a character",
                    r.len, r.offset
                ),
            ));
        }
    }
    Ok(text)
}

pub(crate) fn slot(kind: TableKind) -> usize {
    kind.slot().unwrap_or(usize::MAX)
}

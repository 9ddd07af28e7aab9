//! Loading a reflection blob: header, table directory, tables, strings, and every index in
//! them. Runs once per blob, at the first load of an entry that uses it.

use crate::error::{err, Error, ErrorKind as K, Result};
use crate::storage::{cast, owned_words, Bytes};
use slangpack_format::*;
use zerocopy::{FromBytes, Immutable, KnownLayout};

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
    /// The name index's names, resolved at load ([`crate::bind::NameTable`]).
    pub(crate) names: crate::bind::NameTable,
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
    names: crate::bind::NameTable::EMPTY,
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
    let mut blob = parse(file, bytes, at, reserve, full_len, Part::Load)?;
    let base = blob.bytes.get(file);
    let checker = Checker::new(&blob, base, at);
    if blob.header.tables_offset == 0 {
        checker.check_all()?;
    } else {
        checker.check_bind_part()?;
    }
    blob.names = crate::bind::NameTable::resolve(
        &crate::view::ReflectionView::new(file, &blob, 0).bind(),
        reserve,
    )?;
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
/// and 6.4, and the tables `part` reads located (repacked when wider).
fn parse(
    file: &[u8],
    bytes: Bytes,
    at: Where,
    reserve: &dyn Fn(u64) -> Result<()>,
    full_len: u64,
    part: Part,
) -> Result<Blob> {
    let raw = bytes.get(file);
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
    let dir_off = u64::from(header.table_dir_offset);
    if dir_off % 4 != 0 {
        return Err(at.err(
            K::Misaligned,
            8,
            format_args!("table directory offset {dir_off} is not a multiple of 4"),
        ));
    }
    let dir_end = dir_off + u64::from(header.table_count) * u64::from(rec_size);
    if dir_off < u64::from(header.header_size) || dir_end > blob_len {
        return Err(at.err(
            K::OutOfBounds,
            8,
            format_args!(
                "table directory {dir_off}..{dir_end} outside the blob ({blob_len} bytes)"
            ),
        ));
    }
    // A split blob (1.6): the raw tables from `tables_offset` on, everything else before it.
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
    let lazy = split != 0 && part == Part::Load;
    let dir_bytes = raw.get(dir_off as usize..dir_end as usize).unwrap_or(&[]);

    let mut tables = [TableLoc::EMPTY; TABLE_KINDS];
    let mut counts = [0u64; TABLE_KINDS];
    let mut seen = [false; TABLE_KINDS];
    let mut repacked = Vec::new();
    for (i, rec) in dir_bytes.chunks_exact(rec_size as usize).enumerate() {
        let Ok((t, _)) = TableDirRecord::read_from_prefix(rec) else {
            continue;
        };
        let kind = TableKind::from_raw(t.kind);
        let Some(info) = kind.info() else {
            continue; // a newer minor version's table
        };
        let slot = kind.slot().unwrap_or(0);
        let rec_at = dir_off + i as u64 * u64::from(rec_size);
        let name = info.name;
        if t.offset % 4 != 0 {
            return Err(at.err(
                K::Misaligned,
                rec_at,
                format_args!("table {name} offset {} is not a multiple of 4", t.offset),
            ));
        }
        let len = u64::from(t.count) * u64::from(t.stride);
        let end = u64::from(t.offset) + len;
        let (lo, hi) = match (split, kind.is_raw()) {
            (0, _) => (dir_end, full_len),
            (_, true) => (split, full_len),
            (_, false) => (dir_end, split),
        };
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
        if std::mem::replace(&mut seen[slot], true) {
            return Err(at.err(K::Duplicate, rec_at, format_args!("a second {name} table")));
        }
        let size = info.record_size;
        let stride = t.stride;
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
        counts[slot] = u64::from(t.count);
        if lazy && kind.is_raw() {
            continue; // read by `load_tables`
        }
        let start = t.offset as usize;
        tables[slot] = if stride == size {
            TableLoc::Blob {
                start,
                end: end as usize,
            }
        } else {
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
            TableLoc::Repacked {
                index: repacked.len() - 1,
                len: packed,
            }
        };
    }

    let mut blob = Blob {
        bytes,
        tables,
        repacked,
        strings: String::new(),
        header,
        names: crate::bind::NameTable::EMPTY,
        counts,
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

/// A record being checked, for error messages.
#[derive(Clone, Copy)]
struct Rec {
    table: TableKind,
    index: usize,
}

/// The checks of one record's reference fields ([`RecordRefs::visit_refs`]).
struct RefCheck<'c, 'b> {
    checker: &'c Checker<'b>,
    rec: Rec,
}

impl RefVisitor for RefCheck<'_, '_> {
    type Error = Error;

    #[inline(always)]
    fn index(&mut self, field: &'static str, table: TableKind, value: u32) -> Result<()> {
        self.checker.idx(self.rec, field, value, table)
    }

    #[inline(always)]
    fn range(
        &mut self,
        field: &'static str,
        table: TableKind,
        first: u32,
        count: u32,
    ) -> Result<()> {
        self.checker.range(self.rec, field, first, count, table)
    }

    #[inline(always)]
    fn pool(&mut self, field: &'static str, offset: u32, count: u32, words: u32) -> Result<()> {
        self.checker
            .pool(self.rec, field, offset, count, u64::from(words))
            .map(|_| ())
    }

    #[inline(always)]
    fn pool_indices(
        &mut self,
        field: &'static str,
        table: TableKind,
        offset: u32,
        count: u32,
    ) -> Result<()> {
        self.checker.pool_idx(self.rec, field, offset, count, table)
    }
}

/// Checks every index field of a blob against the table lengths.
struct Checker<'b> {
    blob: &'b Blob,
    base: &'b [u8],
    at: Where,
    counts: [u64; TABLE_KINDS],
    pool: &'b [u32],
    /// Pool words index-checked so far; bounded so that validation stays linear in the blob.
    pool_checks: std::cell::Cell<u64>,
}

impl<'b> Checker<'b> {
    fn new(blob: &'b Blob, base: &'b [u8], at: Where) -> Self {
        let counts = blob.counts;
        let pool = cast::<u32>(blob.table_bytes(base, slot(TableKind::U32Pool)));
        Self {
            blob,
            base,
            at,
            counts,
            pool,
            pool_checks: std::cell::Cell::new(0),
        }
    }

    fn table<T: FromBytes + zerocopy::KnownLayout + zerocopy::Immutable + TableRecord>(
        &self,
    ) -> &'b [T] {
        cast(self.blob.table_bytes(self.base, slot(T::KIND)))
    }

    #[inline(always)]
    fn count(&self, kind: TableKind) -> u64 {
        self.counts.get(slot(kind)).copied().unwrap_or(0)
    }

    #[cold]
    #[inline(never)]
    fn fail(&self, rec: Rec, field: &'static str, detail: String) -> Error {
        self.at.err(
            K::IndexOutOfRange,
            0,
            format_args!("{}[{}].{field} {detail}", rec.table.name(), rec.index),
        )
    }

    /// A field of `rec` holds a value the format does not allow.
    #[cold]
    #[inline(never)]
    fn bad_value(&self, rec: Rec, field: &'static str, detail: String) -> Error {
        self.at.err(
            K::BadValue,
            0,
            format_args!("{}[{}].{field} {detail}", rec.table.name(), rec.index),
        )
    }

    /// `value` is absent or indexes `target`.
    #[inline(always)]
    fn idx(&self, rec: Rec, field: &'static str, value: u32, target: TableKind) -> Result<()> {
        // `ABSENT + 1` wraps to 0: one comparison covers "absent or in range".
        if u64::from(value.wrapping_add(1)) <= self.count(target) {
            Ok(())
        } else {
            Err(self.idx_fail(rec, field, value, target))
        }
    }

    #[cold]
    #[inline(never)]
    fn idx_fail(&self, rec: Rec, field: &'static str, value: u32, target: TableKind) -> Error {
        self.fail(
            rec,
            field,
            format!("= {value}, expected < {} or absent", self.count(target)),
        )
    }

    /// Every reference field of every record of table `T`, as the format
    /// declares them ([`RecordRefs::REFS`]): an index in range or absent, a range of records
    /// within its table, a pool slice within the pool, a pool slice of indices in range.
    fn refs<T: RecordRefs + TableRecord + FromBytes + KnownLayout + Immutable>(
        &self,
    ) -> Result<()> {
        let table = T::KIND;
        for (index, record) in self.table::<T>().iter().enumerate() {
            record.visit_refs(&mut RefCheck {
                checker: self,
                rec: Rec { table, index },
            })?;
        }
        Ok(())
    }

    /// `first..first + count` lies within `target`.
    #[inline(always)]
    fn range(
        &self,
        rec: Rec,
        field: &'static str,
        first: u32,
        count: u32,
        target: TableKind,
    ) -> Result<()> {
        if count == 0 || u64::from(first) + u64::from(count) <= self.count(target) {
            Ok(())
        } else {
            Err(self.range_fail(rec, field, first, count, target))
        }
    }

    #[cold]
    #[inline(never)]
    fn range_fail(
        &self,
        rec: Rec,
        field: &'static str,
        first: u32,
        count: u32,
        target: TableKind,
    ) -> Error {
        {
            self.fail(
                rec,
                field,
                format!(
                    "range {first}+{count} exceeds {} records of {}",
                    self.count(target),
                    target.name()
                ),
            )
        }
    }

    /// The pool slice `off..off + count * per` lies within the pool.
    #[inline(always)]
    fn pool(
        &self,
        rec: Rec,
        field: &'static str,
        off: u32,
        count: u32,
        per: u64,
    ) -> Result<&'b [u32]> {
        if count == 0 {
            return Ok(&[]);
        }
        let end = u64::from(off) + u64::from(count) * per;
        if end <= self.pool.len() as u64 {
            Ok(self.pool.get(off as usize..end as usize).unwrap_or(&[]))
        } else {
            Err(self.pool_fail(rec, field, off, end))
        }
    }

    #[cold]
    #[inline(never)]
    fn pool_fail(&self, rec: Rec, field: &'static str, off: u32, end: u64) -> Error {
        self.fail(
            rec,
            field,
            format!(
                "pool slice {off}..{end} exceeds the pool ({} words)",
                self.pool.len()
            ),
        )
    }

    /// The pool slice holds `count` indices into `target` (absent not allowed).
    #[inline(always)]
    fn pool_idx(
        &self,
        rec: Rec,
        field: &'static str,
        off: u32,
        count: u32,
        target: TableKind,
    ) -> Result<()> {
        let n = self.count(target);
        let words = self.pool(rec, field, off, count, 1)?;
        // Many records may name the same long slice; checking each naming again would make
        // loading quadratic in a hostile blob. Real blobs name each slice a few times at most.
        let checks = self.pool_checks.get() + words.len() as u64;
        let budget =
            limits::POOL_CHECK_FACTOR * self.pool.len() as u64 + limits::POOL_CHECK_ALLOWANCE;
        if checks > budget {
            return Err(self.pool_budget(rec, field, checks));
        }
        self.pool_checks.set(checks);
        // No early exit: the whole slice is compared, then the first bad word is found.
        if words
            .iter()
            .fold(false, |bad, &v| bad | (u64::from(v) >= n))
        {
            return Err(self.pool_idx_fail(rec, field, words, n));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn pool_idx_fail(&self, rec: Rec, field: &'static str, words: &[u32], n: u64) -> Error {
        let v = words
            .iter()
            .find(|&&v| u64::from(v) >= n)
            .copied()
            .unwrap_or(0);
        self.fail(rec, field, format!("list holds {v}, expected < {n}"))
    }

    /// Refuses a parent chain longer than [`limits::MAX_NESTING_DEPTH`], or a cycle, in a
    /// table whose `parent` fields were range-checked: every walk over buffer members and decls
    /// may then recurse (SPEC.md, "Limits"). O(records × bound) steps, no allocation.
    fn nesting(&self, table: TableKind, len: usize, parent: impl Fn(usize) -> u32) -> Result<()> {
        for index in 0..len {
            let mut up = parent(index);
            let mut depth = 1;
            while up != ABSENT {
                depth += 1;
                if depth > limits::MAX_NESTING_DEPTH {
                    return Err(self.at.err(
                        K::LimitExceeded,
                        0,
                        format_args!(
                            "{}[{index}] is nested deeper than {} levels (or its parents form \
                             a cycle)",
                            table.name(),
                            limits::MAX_NESTING_DEPTH
                        ),
                    ));
                }
                up = parent(up as usize);
            }
        }
        Ok(())
    }

    /// Buffer layouts with members follow each other without sharing any (stored in the order
    /// of their first member, SPEC 6.7), and every member's parent is absent or an earlier
    /// member of its own layout (a flattened pre-order list). One pass over the members.
    fn member_parents(&self, members: &[bind::BufferMember]) -> Result<()> {
        use TableKind as T;
        let mut end_of_previous = 0u64;
        for (i, b) in self.table::<bind::BufferLayout>().iter().enumerate() {
            if b.member_count == 0 {
                continue;
            }
            let first = u64::from(b.first_member);
            let r = Rec {
                table: T::BufferLayouts,
                index: i,
            };
            if first < end_of_previous {
                return Err(self.bad_value(
                    r,
                    "first_member",
                    format!(
                        "= {first}, inside the members of an earlier buffer layout (which end at \
                         {end_of_previous})"
                    ),
                ));
            }
            end_of_previous = first + u64::from(b.member_count);
            let own = members
                .get(first as usize..end_of_previous as usize)
                .unwrap_or(&[]);
            for (k, m) in own.iter().enumerate() {
                let index = first + k as u64;
                let parent = u64::from(m.parent);
                if m.parent != ABSENT && !(first..index).contains(&parent) {
                    return Err(self.bad_value(
                        Rec {
                            table: T::BufferMembers,
                            index: index as usize,
                        },
                        "parent",
                        format!(
                            "= {parent}, not an earlier member of buffer layout {i} \
                             (members {first}..{index} come before it)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    #[cold]
    fn pool_budget(&self, rec: Rec, field: &str, checks: u64) -> Error {
        self.at.err(
            K::LimitExceeded,
            0,
            format_args!(
                "{}[{}].{field}: the blob's records name {checks} pool words, more than {} times \
                 its pool of {} words",
                rec.table.name(),
                rec.index,
                limits::POOL_CHECK_FACTOR,
                self.pool.len()
            ),
        )
    }

    /// Every rule of a blob that is not split.
    fn check_all(&self) -> Result<()> {
        self.check_raw_tables()?;
        self.check_bind_part()
    }

    /// What the load of a split blob checks: the header's scalars (against the directory's
    /// counts) and every table but the raw ones.
    fn check_bind_part(&self) -> Result<()> {
        self.check_header()?;
        self.check_bind()?;
        self.check_target_bindings()
    }

    /// The raw Slang tables (kinds 1 to 17): every index, range and pool reference in them.
    fn check_raw_tables(&self) -> Result<()> {
        use TableKind as T;
        let s = T::StringRefs;
        let r = |table, index| Rec { table, index };
        // Every reference field the format declares (`RecordRefs`), table by table.
        self.refs::<Type>()?;
        self.refs::<TypeLayout>()?;
        self.refs::<Variable>()?;
        self.refs::<VarLayout>()?;
        self.refs::<Function>()?;
        self.refs::<Generic>()?;
        self.refs::<Decl>()?;
        self.refs::<EntryPointLayout>()?;
        self.refs::<Attribute>()?;
        self.refs::<AttributeArg>()?;
        self.refs::<BindingRange>()?;
        self.refs::<DescriptorSet>()?;
        self.refs::<SubObjectRange>()?;
        // The references whose kind another field decides.
        for (i, v) in self.table::<Variable>().iter().enumerate() {
            if v.default_value_kind() == ValueKind::String {
                self.idx(r(T::Variables, i), "default_lo", v.default_lo, s)?;
            }
        }
        for (i, g) in self.table::<Generic>().iter().enumerate() {
            let r = r(T::Generics, i);
            let pairs = self.pool(
                r,
                "constraint_pool",
                g.constraint_pool,
                g.constraint_count,
                2,
            )?;
            for pair in pairs.chunks_exact(2) {
                if let [param, ty] = *pair {
                    if u64::from(param) >= self.count(T::Variables)
                        || u64::from(ty) >= self.count(T::Types)
                    {
                        return Err(self.fail(
                            r,
                            "constraint_pool",
                            format!("pair ({param}, {ty}) out of range"),
                        ));
                    }
                }
            }
        }
        for (i, d) in self.table::<Decl>().iter().enumerate() {
            let payload_table = match d.decl_kind() {
                DeclKind::Struct | DeclKind::Enum => Some(T::Types),
                DeclKind::Func => Some(T::Functions),
                DeclKind::Generic => Some(T::Generics),
                DeclKind::Variable => Some(T::Variables),
                _ => None,
            };
            if let Some(target) = payload_table {
                self.idx(r(T::Decls, i), "payload", d.payload, target)?;
            }
        }
        let decls = self.table::<Decl>();
        self.nesting(T::Decls, decls.len(), |i| {
            decls.get(i).map_or(ABSENT, |d| d.parent)
        })?;
        for (i, a) in self.table::<AttributeArg>().iter().enumerate() {
            if a.value_kind() == ValueKind::String {
                self.idx(r(T::AttributeArgs, i), "value_lo", a.value_lo, s)?;
            }
        }
        for (i, h) in self.table::<HashedString>().iter().enumerate() {
            let r = r(T::HashedStrings, i);
            if u64::from(h.string) >= self.count(s) {
                return Err(self.fail(
                    r,
                    "string",
                    format!("= {}, expected < {}", h.string, self.count(s)),
                ));
            }
        }
        Ok(())
    }

    /// The header's index scalars and entry-point count, against the directory's counts.
    fn check_header(&self) -> Result<()> {
        use TableKind as T;
        let h = &self.blob.header;
        let hr = Rec {
            table: TableKind::Unknown(0),
            index: 0,
        };
        let header_checks = [
            (
                "global_params_var_layout",
                h.global_params_var_layout,
                T::VarLayouts,
            ),
            (
                "global_params_type_layout",
                h.global_params_type_layout,
                T::TypeLayouts,
            ),
            ("root_decl", h.root_decl, T::Decls),
        ];
        for (field, value, target) in header_checks {
            self.idx(hr, field, value, target).map_err(|_| {
                self.at.err(
                    K::IndexOutOfRange,
                    0,
                    format_args!("header {field} = {value} out of range"),
                )
            })?;
        }
        // A count of the entry-point table's records: a C consumer may walk that many.
        if u64::from(h.entry_point_count) > self.count(T::EntryPoints) {
            return Err(self.at.err(
                K::IndexOutOfRange,
                0,
                format_args!(
                    "header entry_point_count = {}, but the entry-point table has {} records",
                    h.entry_point_count,
                    self.count(T::EntryPoints)
                ),
            ));
        }
        Ok(())
    }

    /// The per-target bind views (kind 30): string and binding indices in range, sorted by
    /// target, space, register class, index.
    fn check_target_bindings(&self) -> Result<()> {
        use slangpack_format::targets::TargetBinding;
        use TableKind as T;
        let records = self.table::<TargetBinding>();
        let mut last = None;
        for (i, b) in records.iter().enumerate() {
            let r = Rec {
                table: T::TargetBindings,
                index: i,
            };
            self.idx(r, "path", b.path, T::StringRefs)?;
            self.idx(r, "code_name", b.code_name, T::StringRefs)?;
            self.idx(r, "binding", b.binding, T::DescriptorBindings)?;
            if !slangpack_format::targets::register_class_allowed(b.target_kind(), b.register_class)
            {
                return Err(self.bad_value(
                    r,
                    "register_class",
                    format!(
                        "= {:#x}, not a register class of {} (SPEC 6.8)",
                        b.register_class,
                        b.target_kind().name()
                    ),
                ));
            }
            let key = (b.target, b.space, b.register_class, b.index);
            if last.is_some_and(|l| l > key) {
                return Err(self.fail(
                    r,
                    "target",
                    "records not sorted by target, space, register class, index".into(),
                ));
            }
            last = Some(key);
        }
        self.check_target_buffers()
    }

    /// The member layouts of further targets (kinds 34 and 35): target binding and buffer
    /// layout indices in range, never absent; as many members as the Vulkan layout, within the
    /// target members; sorted by target binding, strictly.
    fn check_target_buffers(&self) -> Result<()> {
        use slangpack_format::bind::BufferLayout;
        use slangpack_format::targets::TargetBuffer;
        use TableKind as T;
        let layouts = self.table::<BufferLayout>();
        let mut last = None;
        for (i, b) in self.table::<TargetBuffer>().iter().enumerate() {
            let r = Rec {
                table: T::TargetBuffers,
                index: i,
            };
            for (field, value, table) in [
                ("target_binding", b.target_binding, T::TargetBindings),
                ("buffer_layout", b.buffer_layout, T::BufferLayouts),
            ] {
                if u64::from(value) >= self.count(table) {
                    return Err(self.fail(
                        r,
                        field,
                        format!("= {value}, expected < {}", self.count(table)),
                    ));
                }
            }
            let vulkan = layouts
                .get(b.buffer_layout as usize)
                .map_or(0, |l| l.member_count);
            if b.member_count != vulkan {
                return Err(self.bad_value(
                    r,
                    "member_count",
                    format!(
                        "= {}, expected {vulkan}, the member count of buffer layout {}",
                        b.member_count, b.buffer_layout
                    ),
                ));
            }
            self.range(
                r,
                "first_member",
                b.first_member,
                b.member_count,
                T::TargetMembers,
            )?;
            self.sorted_by_target_binding(r, b.target_binding, &mut last)?;
        }
        self.check_argument_buffers()
    }

    /// Records sorted by `target_binding`, strictly (`BadValue`); `last` is the previous one's.
    fn sorted_by_target_binding(
        &self,
        r: Rec,
        target_binding: u32,
        last: &mut Option<u32>,
    ) -> Result<()> {
        if last.is_some_and(|l| l >= target_binding) {
            return Err(self.bad_value(
                r,
                "target_binding",
                "records not sorted by target binding (or repeated)".into(),
            ));
        }
        *last = Some(target_binding);
        Ok(())
    }

    /// Metal argument buffers' structs (kinds 36 and 37, SPEC 6.10): each names a Metal
    /// argument-buffer binding, its members lie within the members table and are sorted by
    /// target binding, strictly; each member's path is a string, its kind known, a resource
    /// kind with a target binding and data without, its array count and stride both zero or
    /// both not and within its size, and outside array elements it ends within the struct.
    fn check_argument_buffers(&self) -> Result<()> {
        use slangpack_format::targets::{
            ArgumentBuffer, ArgumentBufferMember, TargetBinding, ARGUMENT_ELEMENT_RELATIVE,
        };
        use slangpack_format::{ArgumentMemberKind, Target, TargetBindingKind};
        use TableKind as T;
        let bindings = self.table::<TargetBinding>();
        let members = self.table::<ArgumentBufferMember>();
        let mut last = None;
        for (i, b) in self.table::<ArgumentBuffer>().iter().enumerate() {
            let r = Rec {
                table: T::ArgumentBuffers,
                index: i,
            };
            let Some(binding) = bindings.get(b.target_binding as usize) else {
                return Err(self.fail(
                    r,
                    "target_binding",
                    format!("= {}, expected < {}", b.target_binding, bindings.len()),
                ));
            };
            if binding.target_kind() != Target::Metal
                || binding.binding_kind() != TargetBindingKind::ArgumentBuffer
            {
                return Err(self.bad_value(
                    r,
                    "target_binding",
                    format!(
                        "= {}, a {} binding of kind {:?}, not a Metal argument buffer",
                        b.target_binding,
                        binding.target_kind().name(),
                        binding.binding_kind()
                    ),
                ));
            }
            self.range(
                r,
                "first_member",
                b.first_member,
                b.member_count,
                T::ArgumentBufferMembers,
            )?;
            self.sorted_by_target_binding(r, b.target_binding, &mut last)?;
            let first = b.first_member as usize;
            let own = members
                .get(first..first + b.member_count as usize)
                .unwrap_or(&[]);
            for (k, m) in own.iter().enumerate() {
                let r = Rec {
                    table: T::ArgumentBufferMembers,
                    index: first + k,
                };
                if u64::from(m.path) >= self.count(T::StringRefs) {
                    return Err(self.fail(
                        r,
                        "path",
                        format!("= {}, expected < {}", m.path, self.count(T::StringRefs)),
                    ));
                }
                self.idx(r, "target_binding", m.target_binding, T::TargetBindings)?;
                let resource = match m.member_kind() {
                    ArgumentMemberKind::Data | ArgumentMemberKind::Struct => false,
                    ArgumentMemberKind::Unknown(raw) => {
                        return Err(self.bad_value(
                            r,
                            "kind",
                            format!("= {raw}, not an ArgumentMemberKind (SPEC 6.10)"),
                        ));
                    }
                    _ => true,
                };
                if resource != (m.target_binding != slangpack_format::ABSENT) {
                    return Err(self.bad_value(
                        r,
                        "target_binding",
                        format!(
                            "= {}, but a {} member {} one",
                            m.target_binding,
                            m.member_kind().name(),
                            if resource { "has" } else { "has no" }
                        ),
                    ));
                }
                let fits = u64::from(m.count) * u64::from(m.stride) <= u64::from(m.size);
                if (m.count == 0) != (m.stride == 0) || !fits {
                    return Err(self.bad_value(
                        r,
                        "count",
                        format!(
                            "= {}, stride {}, size {}: an array's count and stride are both \
                             set and their product within the size",
                            m.count, m.stride, m.size
                        ),
                    ));
                }
                let end = u64::from(m.offset) + u64::from(m.size);
                if m.flags & ARGUMENT_ELEMENT_RELATIVE == 0 && end > u64::from(b.size) {
                    return Err(self.bad_value(
                        r,
                        "offset",
                        format!(
                            "= {}, size {}: ends past the argument buffer's {} bytes",
                            m.offset, m.size, b.size
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The bind-view tables (kinds 20..=30).
    fn check_bind(&self) -> Result<()> {
        use bind::*;
        use TableKind as T;
        let r = |table, index| Rec { table, index };
        let summaries = self.table::<BindSummary>();
        if summaries.len() > 1 {
            return Err(self.at.err(
                K::Duplicate,
                0,
                format_args!(
                    "{} bind summary records, expected one (SPEC 6.7)",
                    summaries.len()
                ),
            ));
        }
        // Without a summary (a blob without a bind view) no entry point and no set is in use.
        let (entry_points, set_slots) = summaries
            .first()
            .map_or((0, 0), |b| (b.entry_point_count, b.set_slot_count));
        // Every reference field the format declares (`RecordRefs`), table by table.
        self.refs::<BindSummary>()?;
        self.refs::<DescriptorBinding>()?;
        self.refs::<ShaderRecordBlock>()?;
        self.refs::<DescriptorSetLayout>()?;
        self.refs::<PushConstantRange>()?;
        self.refs::<BufferLayout>()?;
        self.refs::<BufferMember>()?;
        self.refs::<MemberAttribute>()?;
        self.refs::<VertexInput>()?;
        self.refs::<FragmentOutput>()?;
        self.refs::<SpecializationConstant>()?;
        for (i, b) in summaries.iter().enumerate() {
            let r = r(T::BindSummary, i);
            if b.entry_point_count > MAX_ENTRY_POINTS {
                return Err(self.at.err(
                    K::LimitExceeded,
                    0,
                    format_args!(
                        "bind_summary[{i}].entry_point_count = {}, limit {MAX_ENTRY_POINTS}",
                        b.entry_point_count
                    ),
                ));
            }
            let highest = self
                .table::<DescriptorSetLayout>()
                .iter()
                .map(|set| u64::from(set.set) + 1)
                .max()
                .unwrap_or(0);
            if u64::from(b.set_slot_count) != highest {
                return Err(self.bad_value(
                    r,
                    "set_slot_count",
                    format!(
                        "= {}, expected the highest set number + 1 ({highest})",
                        b.set_slot_count
                    ),
                ));
            }
        }
        // Bits of entry points that exist (`entry_points` <= 32 from here on).
        let in_use = u32::MAX.checked_shr(32 - entry_points).unwrap_or(0);
        let mask = |r: Rec, value: u32| {
            if value & !in_use == 0 {
                Ok(())
            } else {
                Err(self.bad_value(
                    r,
                    "entry_point_mask",
                    format!("= {value:#x} names an entry point beyond the {entry_points} in use"),
                ))
            }
        };
        let in_set_slots = |r: Rec, value: u32| {
            if value < set_slots {
                Ok(())
            } else {
                Err(self.fail(
                    r,
                    "set",
                    format!("= {value}, expected < {set_slots} (the summary's set_slot_count)"),
                ))
            }
        };
        for (i, b) in self.table::<DescriptorBinding>().iter().enumerate() {
            let r = r(T::DescriptorBindings, i);
            mask(r, b.entry_point_mask)?;
            in_set_slots(r, b.set)?;
        }
        for (i, b) in self.table::<ShaderRecordBlock>().iter().enumerate() {
            let r = r(T::ShaderRecordBlocks, i);
            mask(r, b.entry_point_mask)?;
        }
        for (i, set) in self.table::<DescriptorSetLayout>().iter().enumerate() {
            let r = r(T::DescriptorSetLayouts, i);
            in_set_slots(r, set.set)?;
        }
        for (i, p) in self.table::<PushConstantRange>().iter().enumerate() {
            let r = r(T::PushConstantRanges, i);
            mask(r, p.entry_point_mask)?;
        }
        let members = self.table::<BufferMember>();
        self.member_parents(members)?;
        self.nesting(T::BufferMembers, members.len(), |i| {
            members.get(i).map_or(ABSENT, |m| m.parent)
        })?;
        let mut last = None;
        for (i, v) in self.table::<VertexInput>().iter().enumerate() {
            let r = r(T::VertexInputs, i);
            if v.entry_point >= entry_points {
                return Err(self.fail(
                    r,
                    "entry_point",
                    format!(
                        "= {}, expected < {entry_points} (the summary's entry_point_count)",
                        v.entry_point
                    ),
                ));
            }
            let key = (v.entry_point, v.location);
            if last.is_some_and(|l| l > key) {
                return Err(self.fail(
                    r,
                    "entry_point",
                    "records not sorted by entry point, location".into(),
                ));
            }
            last = Some(key);
        }
        let mut last = None;
        for (i, o) in self.table::<FragmentOutput>().iter().enumerate() {
            let r = r(T::FragmentOutputs, i);
            if o.entry_point >= entry_points {
                return Err(self.fail(
                    r,
                    "entry_point",
                    format!(
                        "= {}, expected < {entry_points} (the summary's entry_point_count)",
                        o.entry_point
                    ),
                ));
            }
            let key = (o.entry_point, o.location, o.index);
            if last.is_some_and(|l| l >= key) {
                return Err(self.bad_value(
                    r,
                    "entry_point",
                    "records not sorted by entry point, location, index (or repeated)".into(),
                ));
            }
            last = Some(key);
        }
        for (i, m) in self.table::<ExecutionModes>().iter().enumerate() {
            let r = r(T::ExecutionModes, i);
            if m.entry_point >= entry_points {
                return Err(self.fail(
                    r,
                    "entry_point",
                    format!(
                        "= {}, expected < {entry_points} (the summary's entry_point_count)",
                        m.entry_point
                    ),
                ));
            }
            if m.entry_point as usize != i {
                return Err(self.bad_value(
                    r,
                    "entry_point",
                    format!(
                        "= {}, expected {i}: one record per entry point, in entry-point order",
                        m.entry_point
                    ),
                ));
            }
        }
        let slots = self.table::<NameIndexSlot>();
        if !slots.is_empty() && !slots.len().is_power_of_two() {
            return Err(self.fail(
                r(T::NameIndex, 0),
                "length",
                format!("{} slots, expected a power of two", slots.len()),
            ));
        }
        for (i, slot) in slots.iter().enumerate() {
            let target = match slot.kind() {
                None => continue,
                Some(NameKind::Binding) => T::DescriptorBindings,
                Some(NameKind::Member) => T::BufferMembers,
                Some(NameKind::Buffer) => T::BufferLayouts,
                Some(NameKind::Unknown(other)) => {
                    return Err(self.fail(
                        r(T::NameIndex, i),
                        "target",
                        format!("kind {other}, expected 1, 2 or 3"),
                    ))
                }
            };
            self.idx(r(T::NameIndex, i), "target", slot.index(), target)?;
        }
        Ok(())
    }
}

//! Paged packages (3.0, SPEC.md 4.5): open reads the page table; each page's index is read at
//! the first touch of one of its entries, as a package of its own over the same bytes.
//!
//! A page is a [`Package`] in every respect but three: its storage is the paged package's
//! (shared), its decompression budget is the paged package's, and its entries are numbered
//! from its first entry's number in the paged package ([`Package::index`] of its entries).
//! Every check of SPEC.md section 10 that a 2.x package makes at open, a page makes at its
//! first touch, with three more: it holds the number of entries its page record states, its
//! first key is the one the page table names, and its last key comes before the next page's.

use super::*;
use slangpack_format::{PageRecord, FLAG_PAGED_INDEX, PAGE_FLAGS};
use std::sync::Arc;

/// Where [`Package::parse_index`] reads a directory: a whole package's, or a page's.
pub(crate) struct Placement {
    /// The paged package's budget, for a page.
    pub(super) owned: Option<Arc<AtomicU64>>,
    /// The number of the page's first entry.
    pub(super) entry_base: usize,
    /// The header a page's index is read with (what the full check reads it with again).
    pub(super) page_header: Option<FileHeader>,
}

impl Placement {
    /// A package that is not paged.
    pub(super) const WHOLE: Placement = Placement {
        owned: None,
        entry_base: 0,
        page_header: None,
    };
}

/// A page, read at its first touch: the page, or why it failed.
type PageCell = OnceLock<Result<Package, Box<Error>>>;

/// A paged package's page table, checked at open, and its pages, each read at its first touch.
#[derive(Debug)]
pub(crate) struct Pages {
    records: Box<[PageRecord]>,
    /// The first keys' bytes (UTF-8; each page's key on character boundaries).
    keys: Box<str>,
    /// Each page's first entry's number, then the entry count: one more than the pages.
    bases: Box<[usize]>,
    pages: Box<[PageCell]>,
    storage: Arc<Storage>,
    owned: Arc<AtomicU64>,
}

impl Pages {
    /// Page `p`'s first key (checked at open).
    fn key(&self, p: usize) -> &str {
        self.records
            .get(p)
            .and_then(|r| {
                let start = r.key_offset as usize;
                self.keys.get(start..start.checked_add(r.key_len as usize)?)
            })
            .unwrap_or_default()
    }

    /// The page that holds `key` if any page does: the last whose first key is not after it.
    fn page_of_key(&self, key: &str) -> Option<usize> {
        let (mut low, mut high) = (0, self.records.len());
        while low < high {
            let mid = low + (high - low) / 2;
            if self.key(mid) <= key {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low.checked_sub(1)
    }

    /// The page of entry `index` and its number within it.
    fn page_of_entry(&self, index: usize) -> Option<(usize, usize)> {
        if index >= *self.bases.last()? {
            return None;
        }
        let p = self.bases.partition_point(|&b| b <= index).checked_sub(1)?;
        Some((p, index - self.bases.get(p)?))
    }

    /// Whether the pages' sections store bare zstd frames (every page's index states it alike).
    pub(super) fn bare_frames(&self) -> bool {
        self.records
            .first()
            .is_some_and(|r| r.flags & slangpack_format::FLAG_BARE_FRAMES != 0)
    }

    /// The number of entries.
    pub(super) fn len(&self) -> usize {
        self.bases.last().copied().unwrap_or(0)
    }
}

/// An error at `offset`: `kind`, saying `what`.
fn bad(kind: K, offset: u64, what: String) -> Error {
    err(kind, offset, what)
}

impl Package {
    /// Opens a paged package (3.0): its page table, checked (SPEC.md 4.5); no page is read.
    pub(super) fn parse_paged(storage: Storage, header: FileHeader) -> Result<Self> {
        let file = storage.bytes();
        if header.flags & FLAG_PAGED_INDEX == 0 {
            let what = "a package of version 3 without a page table (flag 16)".to_owned();
            return Err(bad(K::BadHeader, 20, what));
        }
        let stride = header.section_record_size;
        let known = core::mem::size_of::<PageRecord>() as u32;
        if stride < known || stride % 4 != 0 || stride > limits::MAX_RECORD_STRIDE {
            let what = format!("page record size {stride}, expected at least {known}");
            return Err(bad(K::BadStride, 32, what));
        }
        let count = header.section_count as usize;
        if count == 0 || header.section_count > limits::MAX_SECTIONS {
            let what = format!(
                "{count} pages: at least 1, at most {}",
                limits::MAX_SECTIONS
            );
            return Err(bad(K::LimitExceeded, 28, what));
        }
        let offset = header.section_dir_offset();
        if offset % SECTION_ALIGN != 0 {
            let what = format!("page table offset {offset:#x} is not a multiple of 8");
            return Err(bad(K::Misaligned, 40, what));
        }
        if offset < u64::from(header.header_size) {
            let what = "the page table overlaps the file header".to_owned();
            return Err(bad(K::Overlap, 40, what));
        }
        let size = u64::from(header.index_size);
        let table = offset
            .checked_add(size)
            .and_then(|end| file.get(offset as usize..end as usize))
            .ok_or_else(|| {
                let what = format!("page table ({size} bytes) extends past the end of the file");
                bad(K::OutOfBounds, offset, what)
            })?;
        if xxh3_64(table) != join_u64(header.dir_hash_lo, header.dir_hash_hi) {
            let what = "page table checksum mismatch".to_owned();
            return Err(bad(K::ChecksumMismatch, offset, what));
        }
        let records_len = count * stride as usize;
        let Some((records_bytes, keys)) = table.split_at_checked(records_len) else {
            let what =
                format!("page table of {size} bytes, its {count} records take {records_len}");
            return Err(bad(K::SizeMismatch, offset, what));
        };
        let keys = std::str::from_utf8(keys).map_err(|e| {
            let at = offset + records_len as u64 + e.valid_up_to() as u64;
            bad(K::BadString, at, "page keys are not UTF-8".to_owned())
        })?;
        let records: Box<[PageRecord]> = records_bytes
            .chunks_exact(stride as usize)
            .filter_map(|r| PageRecord::read_from_prefix(r).ok().map(|(r, _)| r))
            .collect();
        let mut bases = Vec::with_capacity(count + 1);
        let mut total = 0usize;
        let mut previous: Option<&str> = None;
        for (p, r) in records.iter().enumerate() {
            let at = offset + (p * stride as usize) as u64;
            let (start, len) = (r.key_offset as usize, r.key_len as usize);
            let key = start
                .checked_add(len)
                .and_then(|end| keys.get(start..end))
                .ok_or_else(|| {
                    let what = format!("page {p}: its first key is not within the page keys");
                    bad(K::BadString, at, what)
                })?;
            if previous.is_some_and(|k| k >= key) {
                let what = format!("page {p}: first keys not strictly sorted at {key:?}");
                return Err(bad(K::BadKeyIndex, at, what));
            }
            previous = Some(key);
            if r.entry_count == 0 {
                return Err(bad(K::BadValue, at, format!("page {p} has no entry")));
            }
            if r.flags & FLAG_COMPRESSED_INDEX == 0 || r.flags & !PAGE_FLAGS != 0 {
                let what = format!("page {p}: index flags {:#x}", r.flags);
                return Err(bad(K::BadHeader, at, what));
            }
            if r.section_count > limits::MAX_SECTIONS {
                let what = format!("page {p}: {} sections", r.section_count);
                return Err(bad(K::LimitExceeded, at, what));
            }
            let index = r.index_offset();
            if index % SECTION_ALIGN != 0 {
                let what = format!("page {p}: index offset {index:#x} is not a multiple of 8");
                return Err(bad(K::Misaligned, at, what));
            }
            let end = index.checked_add(u64::from(r.index_size));
            if index < u64::from(header.header_size) || end.is_none_or(|e| e > u(file.len())) {
                let what = format!("page {p}: its index lies outside the file");
                return Err(bad(K::OutOfBounds, at, what));
            }
            bases.push(total);
            total += r.entry_count as usize;
        }
        if total > u32::MAX as usize {
            let what = format!("{total} entries");
            return Err(bad(K::LimitExceeded, offset, what));
        }
        bases.push(total);
        let keys: Box<str> = keys.into();
        let owned = Arc::new(AtomicU64::new(0));
        let storage = Arc::new(storage);
        let pages = Pages {
            pages: (0..count).map(|_| OnceLock::new()).collect(),
            records,
            keys,
            bases: bases.into_boxed_slice(),
            storage: Arc::clone(&storage),
            owned: Arc::clone(&owned),
        };
        Ok(Package {
            storage: Storage::Shared(storage),
            strings: Bytes::EMPTY,
            strings_text_at: 0,
            string_refs: Bytes::EMPTY,
            entries: Bytes::EMPTY,
            key_index: Bytes::EMPTY,
            key_hashes: OnceLock::new(),
            key_lookups: AtomicU32::new(0),
            entry_points: Bytes::EMPTY,
            dependencies: Bytes::EMPTY,
            spirv: crate::cells::CellsBuilder::default().finish(),
            reflections: crate::cells::CellsBuilder::default().finish(),
            dictionary: None,
            tables_dictionary: None,
            unknown: Box::new([]),
            directory: Bytes::EMPTY,
            dir_stride: core::mem::size_of::<SectionRecord>() as u32,
            section_count: 0,
            checksum_runs: false,
            bare_frames: false,
            runs_checked: Box::new([]),
            owned,
            loaded: Box::new([]),
            targets: super::targets::TargetTables::none(),
            version: (header.version_major, header.version_minor),
            pages: Some(Box::new(pages)),
            entry_base: 0,
            page_header: None,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The pages of a paged package; `None` for any other package.
    pub(crate) fn paged(&self) -> Option<&Pages> {
        self.pages.as_deref()
    }

    /// Page `p` of this paged package, read and checked at its first touch (once; a page that
    /// fails gives its error at every touch).
    pub(crate) fn page<'a>(&'a self, pages: &'a Pages, p: usize) -> Result<&'a Package> {
        let cell = pages.pages.get(p).ok_or_else(|| {
            bad(
                K::NotFound,
                0,
                format!("no page {p}: the package has {}", pages.records.len()),
            )
        })?;
        match cell.get_or_init(|| read_page(pages, p).map_err(Box::new)) {
            Ok(page) => Ok(page),
            Err(e) => Err(e.duplicate()),
        }
    }

    /// Page `p` if it was read and passed its checks; `None` otherwise (nothing is read).
    pub(super) fn page_if_read<'a>(
        &'a self,
        pages: &'a Pages,
        index: usize,
    ) -> Option<(&'a Package, usize)> {
        let (p, local) = pages.page_of_entry(index)?;
        match pages.pages.get(p)?.get()? {
            Ok(page) => Some((page, local)),
            Err(_) => None,
        }
    }

    /// The page holding `key`, if any page may.
    pub(super) fn page_of_key<'a>(
        &'a self,
        pages: &'a Pages,
        key: &str,
    ) -> Result<Option<&'a Package>> {
        match pages.page_of_key(key) {
            Some(p) => self.page(pages, p).map(Some),
            None => Ok(None),
        }
    }

    /// The page of entry `index` and its number within it: `None` past the last entry.
    pub(super) fn page_of_entry<'a>(
        &'a self,
        pages: &'a Pages,
        index: usize,
    ) -> Option<Result<(&'a Package, usize)>> {
        let (p, local) = pages.page_of_entry(index)?;
        Some(self.page(pages, p).map(|page| (page, local)))
    }

    /// Every page, read: the first error of a page that fails.
    pub(super) fn all_pages<'a>(&'a self, pages: &'a Pages) -> Result<Vec<&'a Package>> {
        (0..pages.records.len())
            .map(|p| self.page(pages, p))
            .collect()
    }

    /// The full check's part that sees the whole of a paged package (SPEC.md 10): every region
    /// its pages name (the header, the page table, each page's index and sections) lies clear
    /// of the others (regions two pages share are the same region), and every byte between
    /// them is zero.
    pub(super) fn check_paged_layout(&self, pages: &Pages) -> Result<()> {
        let file = self.storage.bytes();
        let header: FileHeader = read_prefix(file, 0, "file header")?;
        let table = header.section_dir_offset();
        let mut ranges = vec![
            (0, u64::from(header.header_size)),
            (table, table + u64::from(header.index_size)),
        ];
        for (p, r) in pages.records.iter().enumerate() {
            ranges.push((r.index_offset(), r.index_offset() + u64::from(r.index_size)));
            let page = self.page(pages, p)?;
            for s in page.sections() {
                if !s.section_kind().is_container() && s.stored_size() > 0 {
                    ranges.push((s.offset(), s.offset() + s.stored_size()));
                }
            }
        }
        ranges.sort_unstable();
        ranges.dedup();
        let mut cursor = 0u64;
        for (start, end) in ranges {
            if start < cursor {
                let what = "a region of one page overlaps another region".to_owned();
                return Err(bad(K::Overlap, start, what));
            }
            check_zero(file, cursor, start)?;
            cursor = end;
        }
        check_zero(file, cursor, u(file.len()))
    }
}

/// Reads page `p`: its index as a 2.9 package's over the paged package's bytes, then the three
/// checks that tie it to the page table.
fn read_page(pages: &Pages, p: usize) -> Result<Package> {
    let (Some(r), Some(&entry_base)) = (pages.records.get(p), pages.bases.get(p)) else {
        return Err(bad(K::NotFound, 0, format!("no page {p}")));
    };
    let at = r.index_offset();
    let header = r.page_header(u(pages.storage.bytes().len()));
    let placement = Placement {
        owned: Some(Arc::clone(&pages.owned)),
        entry_base,
        page_header: Some(header),
    };
    let page = Package::parse_index(
        Storage::Shared(Arc::clone(&pages.storage)),
        &header,
        placement,
    )?;
    if page.len() != r.entry_count as usize {
        let what = format!(
            "page {p} holds {} entries, its record says {}",
            page.len(),
            r.entry_count
        );
        return Err(bad(K::BadValue, at, what));
    }
    let first = page.key_at(0).unwrap_or_default();
    if first != pages.key(p) {
        let what = format!(
            "page {p}: first key {first:?}, the page table says {:?}",
            pages.key(p)
        );
        return Err(bad(K::BadKeyIndex, at, what));
    }
    let last = page.key_at(page.len() - 1).unwrap_or_default();
    if p + 1 < pages.records.len() && last >= pages.key(p + 1) {
        let what = format!("page {p}: key {last:?} is not before the next page's first");
        return Err(bad(K::BadKeyIndex, at, what));
    }
    Ok(page)
}

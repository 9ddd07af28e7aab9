//! Paged packages (3.0, SPEC.md 4.5): a package of many entries whose index is cut into pages
//! of consecutive entries, so that opening it reads a small page table and each page's index
//! is decoded at the first touch of one of its entries.
//!
//! [`paginate`] makes one from a package of this crate's default layout: the sections stay
//! where they are, byte for byte; each page gets an index of its own (a 2.9 compressed index,
//! SPEC.md 4.4) that lists the sections its entries need, with its own string pool and
//! container tables; the page table names each page's index and first key.

use crate::records::record;
use crate::{
    index_content, limits, split_u64, store_index, xxh3_64, BuildError, Compression,
    DependencyRecord, EntryPointRecord, EntryRecord, FileHeader, SectionKind, SectionRecord,
    StringPoolHeader, StringRef, ABSENT, ENDIAN_TAG, FLAG_BARE_FRAMES, FLAG_CHECKSUM_RUNS,
    FLAG_COMPRESSED_INDEX, FLAG_PACKED_INDEX, HEADER_HASHED_LEN, MAGIC, SECTION_ALIGN,
    VERSION_MAJOR, VERSION_MINOR,
};
use std::collections::HashMap;
use zerocopy::{FromBytes, IntoBytes};

/// The major version of a paged package (SPEC.md 4.5). Readers before 3.0 refuse it
/// (`UnsupportedVersion`); a 3.0 reader reads it and every 2.x and 1.x package. Packages that
/// are not paged keep [`VERSION_MAJOR`].
pub const PAGED_VERSION_MAJOR: u32 = 3;
/// The minor version of a paged package this crate writes.
pub const PAGED_VERSION_MINOR: u32 = 0;
/// [`FileHeader::flags`] bit (3.0): the directory is a page table (SPEC.md 4.5); set exactly in
/// packages of major version [`PAGED_VERSION_MAJOR`].
pub const FLAG_PAGED_INDEX: u32 = 16;
/// The flags a page's index may state ([`PageRecord::flags`]): those of a 2.9 compressed index.
pub const PAGE_FLAGS: u32 =
    FLAG_COMPRESSED_INDEX | FLAG_PACKED_INDEX | FLAG_CHECKSUM_RUNS | FLAG_BARE_FRAMES;
/// The version each page's index is read as (SPEC.md 4.5): 2.9.
pub const PAGE_VERSION: (u32, u32) = (VERSION_MAJOR, VERSION_MINOR);
/// Entries a page of the writer's default layout: a page's first touch decodes about this many
/// entries' records, about 9 µs (SPEC.md 4.5).
pub const DEFAULT_PAGE_ENTRIES: usize = 64;
/// The entry count above which the writer's default layout pages a package: below it, its
/// whole index opens in under about 0.6 ms (0.14 µs an entry), and each page's own index
/// would cost more bytes (about 0.7 KB a page of 64) than the open it saves is worth.
pub const PAGE_FROM: usize = 4096;

record! {
    /// One page of a paged package's page table (48 bytes in 3.0).
    pub struct PageRecord [48] {
        /// File offset of the page's index (low half); a multiple of 8.
        pub index_offset_lo: u32,
        /// File offset of the page's index (high half).
        pub index_offset_hi: u32,
        /// Stored size of the page's index in bytes.
        pub index_size: u32,
        /// Number of records in the page's section directory.
        pub section_count: u32,
        /// Number of entries in the page; at least 1.
        pub entry_count: u32,
        /// The page's index flags: [`FLAG_COMPRESSED_INDEX`] and any of [`PAGE_FLAGS`].
        pub flags: u32,
        /// Offset of the page's first key in the page table's key bytes.
        pub key_offset: u32,
        /// Length of the page's first key in bytes.
        pub key_len: u32,
        /// xxh3-64 of the page's index as stored (low half).
        pub index_hash_lo: u32,
        /// xxh3-64 of the page's index as stored (high half).
        pub index_hash_hi: u32,
        /// Written 0; not interpreted.
        pub reserved0: u32,
        /// Written 0; not interpreted.
        pub reserved1: u32,
    }
}

impl PageRecord {
    /// File offset of the page's index.
    #[must_use]
    pub const fn index_offset(&self) -> u64 {
        crate::join_u64(self.index_offset_lo, self.index_offset_hi)
    }
    /// xxh3-64 of the page's index as stored.
    #[must_use]
    pub const fn index_hash(&self) -> u64 {
        crate::join_u64(self.index_hash_lo, self.index_hash_hi)
    }
    /// The header a page's index is read with (SPEC.md 4.5): a 2.9 header naming the page's
    /// index in `file_size` bytes. Its own checksum is not stated (the page table's covers
    /// every field it comes from).
    #[must_use]
    pub fn page_header(&self, file_size: u64) -> FileHeader {
        let (section_dir_offset_lo, section_dir_offset_hi) = split_u64(self.index_offset());
        let (file_size_lo, file_size_hi) = split_u64(file_size);
        FileHeader {
            magic: MAGIC,
            version_major: PAGE_VERSION.0,
            version_minor: PAGE_VERSION.1,
            header_size: core::mem::size_of::<FileHeader>() as u32,
            flags: self.flags,
            endian_tag: ENDIAN_TAG,
            section_count: self.section_count,
            section_record_size: core::mem::size_of::<SectionRecord>() as u32,
            index_size: self.index_size,
            section_dir_offset_lo,
            section_dir_offset_hi,
            file_size_lo,
            file_size_hi,
            dir_hash_lo: self.index_hash_lo,
            dir_hash_hi: self.index_hash_hi,
            header_hash_lo: 0,
            header_hash_hi: 0,
        }
    }
}

/// Why [`paginate`] cannot page a package.
fn cannot(why: impl Into<String>) -> BuildError {
    BuildError::Paging(why.into())
}

/// `n` records of `T` read (copied) from `bytes`.
fn records<T: FromBytes>(bytes: &[u8], stride: usize) -> Vec<T> {
    bytes
        .chunks_exact(stride.max(1))
        .filter_map(|r| T::read_from_prefix(r).ok().map(|(r, _)| r))
        .collect()
}

/// The flat package's index, taken apart.
struct Flat<'a> {
    /// Where its index lies in the file: every section lies before it.
    index_at: usize,
    dir: Vec<SectionRecord>,
    strings: (Vec<StringRef>, &'a [u8]),
    entries: Vec<EntryRecord>,
    entry_points: Vec<EntryPointRecord>,
    dependencies: Vec<DependencyRecord>,
    /// The directory index of each SPIR-V and each reflection section, by ordinal.
    spirv: Vec<usize>,
    reflections: Vec<usize>,
}

impl<'a> Flat<'a> {
    fn read(package: &[u8], index: &'a [u8]) -> Result<Self, BuildError> {
        let (header, _) =
            FileHeader::read_from_prefix(package).map_err(|_| cannot("no package header"))?;
        let index_at = usize::try_from(header.section_dir_offset()).map_err(|_| cannot("size"))?;
        let record = core::mem::size_of::<SectionRecord>();
        let dir_len = header.section_count as usize * record;
        let dir: Vec<SectionRecord> = records(index.get(..dir_len).unwrap_or(&[]), record);
        let container = |kind: SectionKind| -> &'a [u8] {
            dir.iter()
                .find(|r| r.section_kind() == kind)
                .and_then(|r| {
                    index.get(r.offset() as usize..(r.offset() + r.stored_size()) as usize)
                })
                .unwrap_or(&[])
        };
        let pool = container(SectionKind::Strings);
        let (head, _) =
            StringPoolHeader::read_from_prefix(pool).map_err(|_| cannot("no string pool"))?;
        let refs_end = 8 + 8 * head.count as usize;
        let strings = (
            records(pool.get(8..refs_end).unwrap_or(&[]), 8),
            pool.get(refs_end..).unwrap_or(&[]),
        );
        let mut spirv = Vec::new();
        let mut reflections = Vec::new();
        for (i, r) in dir.iter().enumerate() {
            match r.section_kind() {
                SectionKind::Spirv => spirv.push(i),
                SectionKind::Reflection => reflections.push(i),
                SectionKind::KeyIndex
                | SectionKind::EntryPointTargets
                | SectionKind::TargetCode => {
                    return Err(cannot(format!(
                        "it holds a {:?} section; paging keeps SPIR-V packages of 2.x only",
                        r.section_kind()
                    )))
                }
                _ => {}
            }
            let end = r.offset().saturating_add(r.stored_size());
            if !r.section_kind().is_container() && end > index_at as u64 {
                return Err(cannot("a section lies after the index"));
            }
        }
        let flat = Flat {
            index_at,
            strings,
            entries: records(container(SectionKind::Entries), 48),
            entry_points: records(container(SectionKind::EntryPoints), 48),
            dependencies: records(container(SectionKind::Dependencies), 12),
            dir,
            spirv,
            reflections,
        };
        flat.check()?;
        Ok(flat)
    }

    /// Every index `paginate` follows is in range: what lets it index with them.
    fn check(&self) -> Result<(), BuildError> {
        let strings = self.strings.0.len();
        let string = |i: u32, what: &str| match (i as usize) < strings {
            true => Ok(()),
            false => Err(cannot(format!("{what} names string {i} of {strings}"))),
        };
        let within = |first: u32, count: u32, len: usize| {
            (first as usize)
                .checked_add(count as usize)
                .is_some_and(|end| end <= len)
        };
        if self.entries.is_empty() {
            return Err(cannot("it has no entry"));
        }
        for (i, e) in self.entries.iter().enumerate() {
            string(e.key, "an entry")?;
            let reflection =
                e.reflection == ABSENT || (e.reflection as usize) < self.reflections.len();
            if !reflection
                || !within(
                    e.entry_point_first,
                    e.entry_point_count,
                    self.entry_points.len(),
                )
                || !within(
                    e.dependency_first,
                    e.dependency_count,
                    self.dependencies.len(),
                )
            {
                return Err(cannot(format!(
                    "entry {i} names what the package does not hold"
                )));
            }
        }
        for ep in &self.entry_points {
            string(ep.name, "an entry point")?;
            string(ep.spirv_entry_name, "an entry point")?;
            if ep.spirv as usize >= self.spirv.len() {
                return Err(cannot(format!("an entry point names module {}", ep.spirv)));
            }
        }
        for d in &self.dependencies {
            string(d.path, "a dependency")?;
        }
        for (i, r) in self.dir.iter().enumerate() {
            let shares = matches!(
                r.compression_kind(),
                Compression::ZstdSharedTables | Compression::InBindRun
            );
            let back = r.record_count as usize;
            if r.section_kind() == SectionKind::Reflection && shares && (back == 0 || back > i) {
                return Err(cannot(format!(
                    "section {i} shares the tables of no section"
                )));
            }
        }
        Ok(())
    }

    fn string(&self, i: u32) -> &'a [u8] {
        let (refs, text) = &self.strings;
        refs.get(i as usize)
            .and_then(|r| text.get(r.offset as usize..(r.offset + r.len) as usize))
            .unwrap_or(&[])
    }

    /// The run of sections stored `member` that section `i` belongs to (as a member or as its
    /// holder, the first section after its members): `(first, holder)`.
    fn run_of(&self, i: usize, member: Compression) -> Option<(usize, usize)> {
        let in_run = |s: &SectionRecord| s.compression_kind() == member;
        let holder = i + self.dir.get(i..)?.iter().position(|s| !in_run(s))?;
        let first = holder
            - self.dir[..holder]
                .iter()
                .rev()
                .take_while(|s| in_run(s))
                .count();
        (first < holder).then_some((first, holder))
    }
}

/// How many file bytes a page's checksum run spans at most (as the writer's own runs).
const CHECKSUM_RUN_SPAN: u64 = 1 << 10;

/// Gives a page's sections in the file (`dir`, over `file`) checksums of the page's own
/// (SPEC.md 4.3 rule 3): the flat package's runs would tie every page to its neighbours' sections
/// (a run of one holds sections of the next), so a page makes runs of its own sections,
/// consecutive in its directory and ascending in the file, spanning at most
/// [`CHECKSUM_RUN_SPAN`] bytes (what lies between them, other pages' bytes, hashed with them).
/// Returns whether the page uses runs; with none (a run's checksum or a section's own reading
/// 0, which a reader would take for a section in a run), each section holds its own checksum.
fn page_checksums(dir: &mut [SectionRecord], file: &[u8]) -> bool {
    let own = |r: &SectionRecord| {
        let bytes = file
            .get(r.offset() as usize..(r.offset() + r.stored_size()) as usize)
            .unwrap_or_default();
        r.checksum_of(VERSION_MAJOR, xxh3_64(bytes))
    };
    let in_file: Vec<usize> = (0..dir.len())
        .filter(|&i| !dir[i].section_kind().is_container())
        .collect();
    let mut runs = dir.to_vec();
    let mut k = 0;
    while k < in_file.len() {
        let first = in_file[k];
        let start = runs[first].offset();
        let mut end = start + runs[first].stored_size();
        let mut last = k;
        while let Some(&next) = in_file.get(last + 1) {
            let r = &runs[next];
            let next_end = r.offset() + r.stored_size();
            if r.offset() < end
                || next_end - start > CHECKSUM_RUN_SPAN
                || last + 2 - k > limits::MAX_CHECKSUM_RUN_SECTIONS as usize
            {
                break;
            }
            end = next_end;
            last += 1;
        }
        let holder = in_file[last];
        let hash = match last > k {
            true => {
                let bytes = file.get(start as usize..end as usize).unwrap_or_default();
                runs[holder].checksum_of(VERSION_MAJOR, xxh3_64(bytes))
            }
            false => own(&runs[holder]),
        };
        for &i in &in_file[k..last] {
            (runs[i].hash_lo, runs[i].hash_hi) = (0, 0);
        }
        (runs[holder].hash_lo, runs[holder].hash_hi) = split_u64(hash);
        if hash == 0 {
            // Without runs: every section its own checksum (0 is then a checksum like any).
            for &i in &in_file {
                (dir[i].hash_lo, dir[i].hash_hi) = split_u64(own(&dir[i]));
            }
            return false;
        }
        k = last + 1;
    }
    dir.copy_from_slice(&runs);
    true
}

/// Interns strings in the order they are first met (SPEC.md 5.1), as a page's pool.
#[derive(Default)]
struct Pool {
    index: HashMap<Vec<u8>, u32>,
    refs: Vec<StringRef>,
    text: Vec<u8>,
}

impl Pool {
    fn intern(&mut self, s: &[u8]) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.refs.len() as u32;
        self.refs.push(StringRef {
            offset: self.text.len() as u32,
            len: s.len() as u32,
        });
        self.text.extend_from_slice(s);
        self.index.insert(s.to_vec(), i);
        i
    }

    fn bytes(&self) -> Vec<u8> {
        let head = StringPoolHeader {
            count: self.refs.len() as u32,
            byte_len: self.text.len() as u32,
        };
        let mut out = head.as_bytes().to_vec();
        for r in &self.refs {
            out.extend_from_slice(r.as_bytes());
        }
        out.extend_from_slice(&self.text);
        out
    }
}

/// `package` (a 2.x package with a compressed index, what the writer's default layout and its
/// raw layout both are) as a paged package of `entries_per_page` entries a page (the last may
/// hold fewer), each page's index compressed at zstd `level`. Every section keeps its bytes and
/// its place in the file; what changes is the index (SPEC.md 4.5).
///
/// # Errors
/// [`BuildError::Paging`] when `package` is not such a package, holds code for targets
/// besides SPIR-V (`EntryPointTargets`; not paged yet) or `entries_per_page` is 0;
/// [`BuildError::LimitExceeded`] past a limit; [`BuildError::Compression`] when zstd fails.
pub fn paginate(
    package: &[u8],
    entries_per_page: usize,
    level: i32,
) -> Result<Vec<u8>, BuildError> {
    let (header, _) =
        FileHeader::read_from_prefix(package).map_err(|_| cannot("no package header"))?;
    if header.version_major != VERSION_MAJOR
        || !header.has_compressed_index()
        || header.header_size as usize != core::mem::size_of::<FileHeader>()
        || header.section_record_size as usize != core::mem::size_of::<SectionRecord>()
    {
        return Err(cannot(
            "it is not a 2.x package with a compressed index and 1.0-sized records",
        ));
    }
    if entries_per_page == 0 {
        return Err(cannot("a page of no entries"));
    }
    let at = usize::try_from(header.section_dir_offset()).map_err(|_| cannot("size"))?;
    let stored = package
        .get(at..at + header.index_size as usize)
        .ok_or_else(|| cannot("the index lies outside the package"))?;
    let index = index_content(&header, stored, limits::MAX_SECTION_RAW_SIZE)
        .ok_or_else(|| cannot("the index does not decompress"))?;
    let flat = Flat::read(package, &index)?;
    // Sections every page lists: the dictionaries, a shard plan, kinds this crate does not
    // know (which readers skip).
    let always: Vec<usize> = (0..flat.dir.len())
        .filter(|&i| {
            let kind = flat.dir[i].section_kind();
            !kind.is_container() && !matches!(kind, SectionKind::Spirv | SectionKind::Reflection)
        })
        .collect();
    let page_flags = FLAG_COMPRESSED_INDEX | (header.flags & FLAG_BARE_FRAMES);
    let mut pages: Vec<(PageRecord, Vec<u8>)> = Vec::new();
    let mut keys: Vec<u8> = Vec::new();
    for chunk in flat.entries.chunks(entries_per_page) {
        // The sections the page's entries need, closed over what loading them reads.
        let mut include = vec![false; flat.dir.len()];
        let mut work = always.clone();
        for e in chunk {
            if e.reflection != ABSENT {
                work.extend(flat.reflections.get(e.reflection as usize));
            }
            let eps =
                e.entry_point_first as usize..(e.entry_point_first + e.entry_point_count) as usize;
            for ep in flat.entry_points.get(eps).unwrap_or(&[]) {
                work.extend(flat.spirv.get(ep.spirv as usize));
            }
        }
        while let Some(i) = work.pop() {
            if std::mem::replace(&mut include[i], true) {
                continue;
            }
            let r = &flat.dir[i];
            for member in [Compression::InModuleRun, Compression::InBindRun] {
                if let Some((first, holder)) = flat.run_of(i, member) {
                    work.extend(first..=holder);
                }
            }
            let shares = matches!(
                r.compression_kind(),
                Compression::ZstdSharedTables | Compression::InBindRun
            );
            if r.section_kind() == SectionKind::Reflection && shares {
                work.extend(i.checked_sub(r.record_count as usize));
            }
        }
        let listed: Vec<usize> = (0..flat.dir.len())
            .filter(|&i| include[i] || flat.dir[i].section_kind().is_container())
            .collect();
        let mut position = vec![usize::MAX; flat.dir.len()];
        let (mut spirv, mut reflections) = (HashMap::new(), HashMap::new());
        for (p, &i) in listed.iter().enumerate() {
            position[i] = p;
            match flat.dir[i].section_kind() {
                SectionKind::Spirv => {
                    spirv.insert(i, spirv.len() as u32);
                }
                SectionKind::Reflection => {
                    reflections.insert(i, reflections.len() as u32);
                }
                _ => {}
            }
        }
        // The page's container tables, its indices its own.
        let mut pool = Pool::default();
        let (mut entries, mut entry_points, mut dependencies) =
            (Vec::new(), Vec::new(), Vec::new());
        for e in chunk {
            let mut entry = *e;
            entry.key = pool.intern(flat.string(e.key));
            entry.reflection = match e.reflection {
                ABSENT => ABSENT,
                r => reflections[&flat.reflections[r as usize]],
            };
            entry.entry_point_first = entry_points.len() as u32;
            entry.dependency_first = dependencies.len() as u32;
            let eps =
                e.entry_point_first as usize..(e.entry_point_first + e.entry_point_count) as usize;
            for ep in flat.entry_points.get(eps).unwrap_or(&[]) {
                let mut ep = *ep;
                ep.name = pool.intern(flat.string(ep.name));
                ep.spirv_entry_name = pool.intern(flat.string(ep.spirv_entry_name));
                ep.spirv = spirv[&flat.spirv[ep.spirv as usize]];
                entry_points.push(ep);
            }
            let deps =
                e.dependency_first as usize..(e.dependency_first + e.dependency_count) as usize;
            for d in flat.dependencies.get(deps).unwrap_or(&[]) {
                let mut d = *d;
                d.path = pool.intern(flat.string(d.path));
                dependencies.push(d);
            }
            entries.push(entry);
        }
        let strings = pool.bytes();
        let container_bytes = |kind: SectionKind| -> Vec<u8> {
            match kind {
                SectionKind::Strings => strings.clone(),
                SectionKind::Entries => entries.as_bytes().to_vec(),
                SectionKind::EntryPoints => entry_points.as_bytes().to_vec(),
                SectionKind::Dependencies => dependencies.as_bytes().to_vec(),
                _ => Vec::new(),
            }
        };
        // The page's directory, then its container sections back to back.
        let dir_len = listed.len() * core::mem::size_of::<SectionRecord>();
        let mut dir = Vec::with_capacity(listed.len());
        let mut tail = Vec::new();
        for (p, &i) in listed.iter().enumerate() {
            let mut r = flat.dir[i];
            let kind = r.section_kind();
            if kind.is_container() {
                let bytes = container_bytes(kind);
                let size = bytes.len() as u64;
                (r.offset_lo, r.offset_hi) = split_u64((dir_len + tail.len()) as u64);
                (r.stored_size_lo, r.stored_size_hi) = split_u64(size);
                (r.raw_size_lo, r.raw_size_hi) = split_u64(size);
                r.record_count = match r.record_stride {
                    0 => 0,
                    stride => (size / u64::from(stride)) as u32,
                };
                (r.hash_lo, r.hash_hi) = split_u64(xxh3_64(&bytes));
                tail.extend_from_slice(&bytes);
            } else if kind == SectionKind::Reflection
                && matches!(
                    r.compression_kind(),
                    Compression::ZstdSharedTables | Compression::InBindRun
                )
            {
                let target = i - r.record_count as usize;
                r.record_count = (p - position[target]) as u32;
            }
            dir.push(r);
        }
        let runs = page_checksums(&mut dir, package);
        let mut page_index = dir.as_bytes().to_vec();
        page_index.extend_from_slice(&tail);
        let (stored, packed) = store_index(
            &page_index,
            listed.len() as u32,
            core::mem::size_of::<SectionRecord>() as u32,
            level,
        )?;
        let first_key = flat.string(chunk[0].key);
        let (index_hash_lo, index_hash_hi) = split_u64(xxh3_64(&stored));
        let record = PageRecord {
            index_offset_lo: 0,
            index_offset_hi: 0,
            index_size: u32::try_from(stored.len())
                .map_err(|_| BuildError::LimitExceeded("page index"))?,
            section_count: listed.len() as u32,
            entry_count: chunk.len() as u32,
            flags: page_flags
                | if packed { FLAG_PACKED_INDEX } else { 0 }
                | if runs { FLAG_CHECKSUM_RUNS } else { 0 },
            key_offset: keys.len() as u32,
            key_len: first_key.len() as u32,
            index_hash_lo,
            index_hash_hi,
            reserved0: 0,
            reserved1: 0,
        };
        keys.extend_from_slice(first_key);
        pages.push((record, stored));
    }
    if pages.len() > limits::MAX_SECTIONS as usize {
        return Err(BuildError::LimitExceeded("pages"));
    }
    // The sections as they lie, then each page's index, then the page table.
    let mut out = vec![0u8; core::mem::size_of::<FileHeader>()];
    out.extend_from_slice(
        package
            .get(out.len()..flat.index_at)
            .ok_or_else(|| cannot("the sections lie outside the package"))?,
    );
    let align =
        |out: &mut Vec<u8>| out.resize(out.len().next_multiple_of(SECTION_ALIGN as usize), 0);
    let mut table = Vec::new();
    for (record, stored) in &mut pages {
        align(&mut out);
        (record.index_offset_lo, record.index_offset_hi) = split_u64(out.len() as u64);
        out.extend_from_slice(stored);
        table.extend_from_slice(record.as_bytes());
    }
    table.extend_from_slice(&keys);
    align(&mut out);
    let table_at = out.len() as u64;
    out.extend_from_slice(&table);
    align(&mut out);
    if out.len() as u64 > limits::MAX_FILE_SIZE {
        return Err(BuildError::LimitExceeded("file size"));
    }
    let (section_dir_offset_lo, section_dir_offset_hi) = split_u64(table_at);
    let (file_size_lo, file_size_hi) = split_u64(out.len() as u64);
    let (dir_hash_lo, dir_hash_hi) = split_u64(xxh3_64(&table));
    let mut outer = FileHeader {
        magic: MAGIC,
        version_major: PAGED_VERSION_MAJOR,
        version_minor: PAGED_VERSION_MINOR,
        header_size: core::mem::size_of::<FileHeader>() as u32,
        flags: FLAG_PAGED_INDEX,
        endian_tag: ENDIAN_TAG,
        section_count: pages.len() as u32,
        section_record_size: core::mem::size_of::<PageRecord>() as u32,
        index_size: u32::try_from(table.len())
            .map_err(|_| BuildError::LimitExceeded("page table"))?,
        section_dir_offset_lo,
        section_dir_offset_hi,
        file_size_lo,
        file_size_hi,
        dir_hash_lo,
        dir_hash_hi,
        header_hash_lo: 0,
        header_hash_hi: 0,
    };
    (outer.header_hash_lo, outer.header_hash_hi) =
        split_u64(xxh3_64(&outer.as_bytes()[..HEADER_HASHED_LEN]));
    out[..core::mem::size_of::<FileHeader>()].copy_from_slice(outer.as_bytes());
    Ok(out)
}

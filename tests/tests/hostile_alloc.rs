//! Declared sizes cannot make the reader allocate beyond its limits: the bytes allocated
//! during `Package::from_bytes` are measured with a counting global allocator, on a real baked
//! package and on crafted ones (a raw size over the per-section limit, one at the limit with a
//! tiny frame, sections whose frames really expand to the limit until the per-package budget
//! runs out, and counts that claim more records than the bytes hold).

use slangpack_reader::format::{assemble_sections, join_u64};
use slangpack_reader::format::{
    limits, split_u64, xxh3_64, Compression, FileHeader, RawSection, SectionKind, SectionRecord,
    HEADER_HASHED_LEN,
};
use slangpack_reader::{ErrorKind, Package};
use slangpack_tests::walk::refix_checksums;
use slangpack_writer::bake::{self, BakeConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;
use zerocopy::{FromBytes, IntoBytes};

/// Counts the bytes live and the most live at once since the last [`measure`].
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, SeqCst) + by;
    PEAK.fetch_max(now, SeqCst);
}

#[allow(
    unsafe_code,
    reason = "a counting global allocator is the only way to measure what the reader allocates"
)]
// SAFETY: every method forwards to the system allocator with the caller's arguments unchanged
// and only updates two counters; `alloc_zeroed` forwards too, so large zeroed buffers stay
// lazily mapped as they would be without the wrapper.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), SeqCst);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, SeqCst);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Measurements must not overlap: the counters are process-wide.
static SERIAL: Mutex<()> = Mutex::new(());

/// Slack for the reader's small allocations (directory, error messages, bookkeeping).
const SLACK: usize = 64 << 10;

/// Opens `bytes`; returns the result's error kind (if any) and the peak bytes allocated
/// during the open beyond what was live before it.
fn measure(bytes: &[u8]) -> (Option<ErrorKind>, usize) {
    let base = LIVE.load(SeqCst);
    PEAK.store(base, SeqCst);
    // Open, then load everything: the peak of the whole check.
    let kind = Package::from_bytes(bytes)
        .and_then(|p| p.verify_all())
        .err()
        .map(|e| e.kind());
    (kind, PEAK.load(SeqCst) - base)
}

fn baked(compress: bool) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders");
    let mut config = BakeConfig::new(vec![dir]);
    config.compress = compress;
    // The raw layout: these tests patch records of the plain section directory.
    config.compress_spirv = false;
    config.jobs = 2;
    bake::bake(&config).expect("bake").bytes.into_vec()
}

fn directory(bytes: &[u8]) -> (usize, usize, Vec<SectionRecord>) {
    let h = FileHeader::read_from_prefix(bytes).expect("header").0;
    let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    let stride = h.section_record_size as usize;
    let records = (0..h.section_count as usize)
        .map(|i| {
            SectionRecord::read_from_prefix(&bytes[at + i * stride..])
                .expect("rec")
                .0
        })
        .collect();
    (at, stride, records)
}

/// Rewrites section record `i` with `f`, then recomputes every checksum (so only the limits,
/// not the checksums, stand in the way).
fn patch_section(bytes: &mut Vec<u8>, i: usize, f: impl FnOnce(&mut SectionRecord)) {
    let (at, stride, records) = directory(bytes);
    let mut r = records[i];
    f(&mut r);
    let start = at + i * stride;
    bytes[start..start + size_of::<SectionRecord>()].copy_from_slice(r.as_bytes());
    assert!(refix_checksums(bytes));
}

fn reflection_section(bytes: &[u8]) -> usize {
    let (_, _, records) = directory(bytes);
    records
        .iter()
        .position(|r| r.section_kind() == SectionKind::Reflection)
        .expect("a reflection section")
}

/// A zstd frame that expands to `len` zero bytes (a multiple of 128 KiB), written by hand:
/// single-segment frame header with a 4-byte content size, then RLE blocks of 128 KiB.
fn zeros_frame(len: u32) -> Vec<u8> {
    const BLOCK: u32 = 128 << 10;
    assert_eq!(len % BLOCK, 0);
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0b1010_0000];
    frame.extend_from_slice(&len.to_le_bytes());
    let blocks = len / BLOCK;
    for i in 0..blocks {
        let header = u32::from(i + 1 == blocks) | (1 << 1) | (BLOCK << 3);
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.push(0);
    }
    frame
}

#[test]
fn a_real_package_allocates_its_copy_and_its_decompressed_sections() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for compress in [true, false] {
        let bytes = baked(compress);
        let (_, _, records) = directory(&bytes);
        let owned: u64 = records
            .iter()
            .filter(|r| r.compression_kind() != Compression::None)
            .map(SectionRecord::raw_size)
            .sum();
        let (err, peak) = measure(&bytes);
        assert_eq!(err, None);
        let bound = 3 * (bytes.len() + owned as usize) + SLACK;
        eprintln!(
            "{} bytes, {owned} decompressed: open peaked at {peak} bytes (bound {bound})",
            bytes.len()
        );
        assert!(peak <= bound, "{peak} > {bound}");
    }
}

#[test]
fn a_raw_size_over_the_section_limit_allocates_nothing_for_it() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut bytes = baked(true);
    let r = reflection_section(&bytes);
    for raw in [limits::MAX_SECTION_RAW_SIZE + 1, 1 << 40, u64::MAX] {
        patch_section(&mut bytes, r, |s| {
            (s.raw_size_lo, s.raw_size_hi) = split_u64(raw)
        });
        let (err, peak) = measure(&bytes);
        assert_eq!(err, Some(ErrorKind::LimitExceeded), "raw size {raw}");
        assert!(
            peak <= 2 * bytes.len() + SLACK,
            "raw size {raw}: peak {peak}"
        );
    }
}

#[test]
fn a_raw_size_at_the_section_limit_is_the_most_one_section_allocates() {
    // The reader sizes the buffer from the declared raw size before decompressing, so a
    // 31 KB file can make it allocate (zeroed, lazily mapped) up to the per-section limit.
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut bytes = baked(true);
    let r = reflection_section(&bytes);
    patch_section(&mut bytes, r, |s| {
        (s.raw_size_lo, s.raw_size_hi) = split_u64(limits::MAX_SECTION_RAW_SIZE)
    });
    let (err, peak) = measure(&bytes);
    assert_eq!(err, Some(ErrorKind::SizeMismatch));
    let bound = bytes.len() + limits::MAX_SECTION_RAW_SIZE as usize + SLACK;
    eprintln!(
        "declared {} bytes: peak {peak} (bound {bound})",
        limits::MAX_SECTION_RAW_SIZE
    );
    assert!(peak <= bound, "{peak} > {bound}");
}

#[test]
fn frames_that_really_expand_stop_at_the_package_budget() {
    // Five reflection sections of ~8 KB, each a valid frame of 256 MiB of zeros: four fill the
    // 1 GiB budget, so the package is refused at open, from the directory alone, before any
    // frame is decompressed.
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let per = limits::MAX_SECTION_RAW_SIZE;
    let sections: Vec<RawSection> = (0..5)
        .map(|_| RawSection {
            kind: SectionKind::Reflection.to_raw(),
            compression: Compression::Zstd.to_raw(),
            stride: 0,
            count: 0,
            raw_size: 1, // the builder refuses a 1.25 GiB total; patched below
            stored: zeros_frame(per as u32),
        })
        .collect();
    let mut bytes = assemble_sections(&sections).expect("assemble");
    for i in 0..5 {
        patch_section(&mut bytes, i, |s| {
            (s.raw_size_lo, s.raw_size_hi) = split_u64(per)
        });
    }
    let (err, peak) = measure(&bytes);
    assert_eq!(err, Some(ErrorKind::LimitExceeded));
    let bound = 3 * bytes.len() + SLACK;
    eprintln!(
        "{} bytes expanding to 5 x {per}: peak {peak} (bound {bound})",
        bytes.len()
    );
    assert!(peak <= bound, "{peak} > {bound}: a frame was decompressed");
}

#[test]
fn frames_within_the_budget_are_decompressed_at_their_load() {
    // Four such frames (exactly the 1 GiB budget) and the sections a package needs: open
    // allocates none of them; the full check decompresses all four.
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let per = limits::MAX_SECTION_RAW_SIZE;
    let base = baked(false);
    let (_, _, records) = directory(&base);
    let mut sections: Vec<RawSection> = records
        .iter()
        .filter(|r| r.section_kind() != SectionKind::Reflection)
        .map(|r| RawSection::copied(&base, r).expect("a section within the package"))
        .collect();
    let first = sections.len();
    for _ in 0..4 {
        sections.push(RawSection {
            kind: SectionKind::Reflection.to_raw(),
            compression: Compression::Zstd.to_raw(),
            stride: 0,
            count: 0,
            raw_size: 1,
            stored: zeros_frame(per as u32),
        });
    }
    let mut bytes = assemble_sections(&sections).expect("assemble");
    for i in first..first + 4 {
        patch_section(&mut bytes, i, |s| {
            (s.raw_size_lo, s.raw_size_hi) = split_u64(per)
        });
    }
    let start = LIVE.load(SeqCst);
    PEAK.store(start, SeqCst);
    let package = Package::from_bytes(&bytes).expect("the directory is within the limits");
    let open_peak = PEAK.load(SeqCst) - start;
    assert!(
        open_peak <= 3 * bytes.len() + SLACK,
        "open peaked at {open_peak}"
    );
    // The zeros are no reflection blob: the first load fails after decompressing.
    let err = package.verify_all().expect_err("zeros are not a blob");
    assert_eq!(err.kind(), ErrorKind::BadMagic);
    let peak = PEAK.load(SeqCst) - start;
    assert!(peak >= per as usize, "a frame was decompressed at its load");
    assert!(peak <= bytes.len() + limits::MAX_TOTAL_OWNED_SIZE as usize + SLACK);
}

#[test]
fn counts_larger_than_their_bytes_allocate_nothing_for_them() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let bytes = baked(false);
    // A section count at the limit with no directory bytes behind it.
    let mut many = bytes.clone();
    let mut h = FileHeader::read_from_prefix(&many).expect("header").0;
    h.section_count = limits::MAX_SECTIONS;
    many[..size_of::<FileHeader>()].copy_from_slice(h.as_bytes());
    (h.header_hash_lo, h.header_hash_hi) = split_u64(xxh3_64(&many[..HEADER_HASHED_LEN]));
    many[..size_of::<FileHeader>()].copy_from_slice(h.as_bytes());
    let (err, peak) = measure(&many);
    assert_eq!(err, Some(ErrorKind::OutOfBounds));
    assert!(peak <= 2 * many.len() + SLACK, "section count: peak {peak}");
    // Every package table claiming u32::MAX records of its stride.
    let (_, _, records) = directory(&bytes);
    for (i, r) in records.iter().enumerate() {
        if r.record_stride == 0 {
            continue;
        }
        let mut huge = bytes.clone();
        patch_section(&mut huge, i, |s| s.record_count = u32::MAX);
        let (err, peak) = measure(&huge);
        assert!(err.is_some(), "section {i} with u32::MAX records opened");
        assert!(peak <= 3 * huge.len() + SLACK, "section {i}: peak {peak}");
    }
}

//! Paged packages (3.0, SPEC.md 4.5): the page table checked at open, each page at the first
//! touch of one of its entries; what a page serves is what the package it was paged from serves.

use super::compression::compressed_package;
use super::*;

/// `bytes` paged `per` entries a page.
fn paged(bytes: &[u8], per: usize) -> Vec<u8> {
    paginate(bytes, per, 3).unwrap()
}

/// Every entry of `flat` and `paged` serves the same key, index, reflection and SPIR-V.
fn same_entries(flat: &Package, paged: &Package) {
    assert_eq!(paged.len(), flat.len());
    let keys: Vec<&str> = flat.keys().collect();
    assert_eq!(paged.keys().collect::<Vec<_>>(), keys);
    // Backwards, so that pages are read out of order.
    for (i, key) in keys.iter().enumerate().rev() {
        assert_eq!(paged.find(key), Some(i));
        assert_eq!(paged.key_at(i), Some(*key));
        let (a, b) = (flat.load(key).unwrap(), paged.load(key).unwrap());
        assert_eq!(b.index(), i);
        assert_eq!(paged.load_at(i).unwrap().key(), *key);
        assert!(paged.is_loaded(i));
        assert_eq!(paged.loaded_at(i).unwrap().index(), i);
        assert_eq!(paged.info_at(i).unwrap().index(), i);
        assert_eq!(
            a.reflection().unwrap().as_bytes(),
            b.reflection().unwrap().as_bytes()
        );
        let words = |e: &crate::Entry<'_>| -> Vec<Vec<u32>> {
            e.entry_points().map(|ep| ep.spirv().to_vec()).collect()
        };
        assert_eq!(words(&a), words(&b));
    }
    assert_eq!(paged.find("not a key"), None);
    assert_eq!(paged.find(""), None);
    assert_eq!(
        paged.load_at(flat.len()).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(paged.load("zzz").unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn pages_serve_what_the_package_served() {
    let (flat, _) = compressed_package(true);
    let bind_runs = super::bind_runs::package_with(23, true);
    // What paging has to keep whole within a page: module runs and bind-view runs.
    let stored = |b: &[u8], c: Compression| {
        read_sections(b)
            .unwrap()
            .iter()
            .any(|s| s.compression == c.to_raw())
    };
    assert!(stored(&flat, Compression::InModuleRun));
    assert!(stored(&bind_runs, Compression::InBindRun));
    for bytes in [&flat, &bind_runs] {
        let package = Package::from_bytes(bytes).unwrap();
        for per in [1, 3, 7, 64] {
            let paged_bytes = paged(bytes, per);
            let paged = Package::from_bytes(&paged_bytes).unwrap();
            assert_eq!(paged.version(), (PAGED_VERSION_MAJOR, PAGED_VERSION_MINOR));
            same_entries(&package, &paged);
            paged.verify_all().unwrap();
            paged.check_checksums().unwrap();
            // What a page lists of the package's sections, it keeps byte for byte.
            assert!(paged.spirv_count() >= package.spirv_count());
            assert_eq!(paged.shard_plan().unwrap(), None);
        }
    }
}

#[test]
fn open_reads_no_page() {
    let (flat, _) = compressed_package(true);
    let bytes = paged(&flat, 4);
    let package = Package::from_bytes(&bytes).unwrap();
    assert_eq!(package.owned_bytes(), 0, "open decoded a page");
    assert!(!package.is_loaded(0));
    assert!(package.loaded_at(0).is_none());
    let key = package.key_at(17).unwrap().to_owned();
    let one = package.owned_bytes();
    assert!(one > 0);
    package.load(&key).unwrap();
    // Another entry of the same page reads no page again.
    let before = package.owned_bytes();
    package.info_at(16).unwrap();
    assert_eq!(package.owned_bytes(), before);
}

/// `bytes` (a paged package) with `edit` applied to its page table, the table's and the
/// header's checksums made right again.
fn edit_table(bytes: &[u8], edit: impl FnOnce(&mut Vec<PageRecord>, &mut Vec<u8>)) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let (mut header, _) = FileHeader::read_from_prefix(&out).unwrap();
    let at = header.section_dir_offset() as usize;
    let n = header.section_count as usize;
    let table = &out[at..at + header.index_size as usize];
    let mut records: Vec<PageRecord> = (0..n)
        .map(|p| PageRecord::read_from_prefix(&table[p * 48..]).unwrap().0)
        .collect();
    let mut keys = table[n * 48..].to_vec();
    edit(&mut records, &mut keys);
    let mut table: Vec<u8> = records.iter().flat_map(|r| r.as_bytes().to_vec()).collect();
    table.extend_from_slice(&keys);
    out.truncate(at);
    out.extend_from_slice(&table);
    out.resize(out.len().next_multiple_of(8), 0);
    header.index_size = table.len() as u32;
    header.section_count = records.len() as u32;
    (header.dir_hash_lo, header.dir_hash_hi) = split_u64(xxh3_64(&table));
    (header.file_size_lo, header.file_size_hi) = split_u64(out.len() as u64);
    (header.header_hash_lo, header.header_hash_hi) =
        split_u64(xxh3_64(&header.as_bytes()[..HEADER_HASHED_LEN]));
    out[..72].copy_from_slice(header.as_bytes());
    out
}

#[test]
fn a_bad_page_table_is_refused_at_open() {
    let (flat, _) = compressed_package(true);
    let bytes = paged(&flat, 4);
    let open = |b: &[u8]| Package::from_bytes(b).err().map(|e| e.kind());
    assert_eq!(open(&bytes), None);
    // The table's own checksum.
    let (header, _) = FileHeader::read_from_prefix(&bytes).unwrap();
    let mut flipped = bytes.clone();
    flipped[header.section_dir_offset() as usize + 9] ^= 1;
    assert_eq!(open(&flipped), Some(ErrorKind::ChecksumMismatch));
    // First keys out of order, or repeated.
    let swapped = edit_table(&bytes, |r, _| r.swap(1, 2));
    assert_eq!(open(&swapped), Some(ErrorKind::BadKeyIndex));
    let repeated = edit_table(&bytes, |r, _| r[2] = r[1]);
    assert_eq!(open(&repeated), Some(ErrorKind::BadKeyIndex));
    // A key outside the key bytes, or not UTF-8.
    let outside = edit_table(&bytes, |r, _| r[0].key_len = 10_000);
    assert_eq!(open(&outside), Some(ErrorKind::BadString));
    let not_utf8 = edit_table(&bytes, |_, k| k[0] = 0xFF);
    assert_eq!(open(&not_utf8), Some(ErrorKind::BadString));
    // A page of no entries; a page whose index lies outside the file or off 8.
    let empty = edit_table(&bytes, |r, _| r[3].entry_count = 0);
    assert_eq!(open(&empty), Some(ErrorKind::BadValue));
    let outside = edit_table(&bytes, |r, _| r[3].index_offset_lo = u32::MAX - 7);
    assert_eq!(open(&outside), Some(ErrorKind::OutOfBounds));
    let odd = edit_table(&bytes, |r, _| r[3].index_offset_lo += 4);
    assert_eq!(open(&odd), Some(ErrorKind::Misaligned));
    // Index flags a page cannot have.
    let flags = edit_table(&bytes, |r, _| r[0].flags = FLAG_PACKED_INDEX);
    assert_eq!(open(&flags), Some(ErrorKind::BadHeader));
    let flags = edit_table(&bytes, |r, _| r[0].flags |= FLAG_PAGED_INDEX);
    assert_eq!(open(&flags), Some(ErrorKind::BadHeader));
    // No page at all.
    let none = edit_table(&bytes, |r, _| r.clear());
    assert_eq!(open(&none), Some(ErrorKind::LimitExceeded));
    // Version 3 without its flag, and the flag without version 3 (a 2.x reader's bytes).
    let unflagged = edit_header(&bytes, |h| h.flags = 0);
    assert_eq!(open(&unflagged), Some(ErrorKind::BadHeader));
}

#[test]
fn a_bad_page_fails_its_own_entries_alone() {
    let (flat, _) = compressed_package(true);
    let bytes = paged(&flat, 4);
    let good = Package::from_bytes(&bytes).unwrap();
    let key_of = |i: usize| good.key_at(i).unwrap().to_owned();
    let load = |b: &[u8], i: usize| -> Result<(), ErrorKind> {
        let p = Package::from_bytes(b).map_err(|e| e.kind())?;
        p.load(&key_of(i)).map(|_| ()).map_err(|e| e.kind())
    };
    // A page whose index bytes changed: its entries fail, the others load.
    let (header, _) = FileHeader::read_from_prefix(&bytes).unwrap();
    let table = header.section_dir_offset() as usize;
    let (second, _) = PageRecord::read_from_prefix(&bytes[table + 48..]).unwrap();
    let mut damaged = bytes.clone();
    damaged[second.index_offset() as usize + 3] ^= 0x40;
    assert_eq!(load(&damaged, 5), Err(ErrorKind::ChecksumMismatch));
    assert_eq!(load(&damaged, 0), Ok(()));
    assert_eq!(load(&damaged, 9), Ok(()));
    let p = Package::from_bytes(&damaged).unwrap();
    assert_eq!(p.find(&key_of(5)), None);
    assert_eq!(p.key_at(5), None);
    assert_eq!(
        p.verify_all().unwrap_err().kind(),
        ErrorKind::ChecksumMismatch
    );
    // A page that holds more entries than its record says, or whose first key is not the
    // table's: checked at its first touch.
    let counted = edit_table(&bytes, |r, _| r[1].entry_count = 3);
    assert_eq!(load(&counted, 5), Err(ErrorKind::BadValue));
    assert_eq!(load(&counted, 0), Ok(()));
    let renamed = edit_table(&bytes, |r, k| {
        // Page 1's first key one byte shorter: still between pages 0 and 2.
        r[1].key_len -= 1;
        let _ = k;
    });
    assert_eq!(load(&renamed, 4), Err(ErrorKind::BadKeyIndex));
    // A page whose last key is not before the next page's first.
    let overlapping = edit_table(&bytes, |r, k| {
        let (at, len) = (r[2].key_offset as usize, r[2].key_len as usize);
        let earlier = key_of(6);
        let mut keys = k[..at].to_vec();
        keys.extend_from_slice(earlier.as_bytes());
        let moved = earlier.len() as i64 - len as i64;
        keys.extend_from_slice(&k[at + len..]);
        *k = keys;
        r[2].key_len = earlier.len() as u32;
        for later in r.iter_mut().skip(3) {
            later.key_offset = (later.key_offset as i64 + moved) as u32;
        }
    });
    assert_eq!(load(&overlapping, 4), Err(ErrorKind::BadKeyIndex));
}

#[test]
fn every_truncation_and_byte_flip_is_an_error_or_a_package() {
    let (flat, _) = compressed_package(true);
    let bytes = paged(&flat, 8);
    for len in (0..bytes.len()).step_by(13) {
        assert!(Package::from_bytes(&bytes[..len]).is_err());
    }
    for at in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[at] ^= 0x5A;
        if let Ok(p) = Package::from_bytes(&b) {
            let _ = p.verify_all();
            for i in 0..p.len() {
                let _ = p.load_at(i);
            }
        }
    }
}

#[test]
fn paginate_refuses_what_it_cannot_page() {
    let (flat, _) = compressed_package(true);
    assert!(matches!(paginate(&flat, 0, 3), Err(BuildError::Paging(_))));
    let (plain, _) = compressed_package(false);
    assert!(matches!(paginate(&plain, 4, 3), Err(BuildError::Paging(_))));
    let paged_bytes = paged(&flat, 4);
    assert!(matches!(
        paginate(&paged_bytes, 4, 3),
        Err(BuildError::Paging(_))
    ));
    assert!(matches!(paginate(&[], 4, 3), Err(BuildError::Paging(_))));
}

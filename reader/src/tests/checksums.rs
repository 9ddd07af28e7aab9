//! What reads the package without loading entries: the checksums alone, an entry's record,
//! a mapped package.

use super::compression::compressed_package;
use super::*;

#[test]
fn check_checksums_covers_every_section_without_loading_one() {
    for index in [false, true] {
        let (bytes, _) = compressed_package(index);
        let pkg = Package::from_bytes(&bytes).unwrap();
        let owned = pkg.owned_bytes();
        pkg.check_checksums().unwrap();
        assert_eq!(pkg.owned_bytes(), owned, "nothing decompressed or kept");
        assert!((0..pkg.len()).all(|i| !pkg.is_loaded(i)));
        // A byte of any section outside the index, flipped, is found; open does not look.
        let sections: Vec<SectionRecord> = pkg.sections().collect();
        for (i, rec) in sections.iter().enumerate() {
            if rec.section_kind().is_container() || rec.stored_size() == 0 {
                continue;
            }
            let mut damaged = bytes.clone();
            damaged[rec.offset() as usize + rec.stored_size() as usize / 2] ^= 0x40;
            let pkg = Package::from_bytes(&damaged).expect("open reads no blob");
            let e = pkg.check_checksums().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ChecksumMismatch, "section {i}");
            assert_eq!(
                e.to_string(),
                format!(
                    "section {i} checksum mismatch (at offset {:#x})",
                    rec.offset()
                )
            );
        }
    }
}

#[test]
fn info_reads_an_entry_record_without_loading_it() {
    let (bytes, _) = compressed_package(true);
    let pkg = Package::from_bytes(&bytes).unwrap();
    let owned = pkg.owned_bytes();
    for i in 0..pkg.len() {
        let key = pkg.key_at(i).unwrap();
        let info = pkg.info(key).unwrap();
        assert_eq!((info.key(), info.index()), (key, i));
        let entry = pkg.loaded_at(i);
        assert!(entry.is_none(), "info loads nothing");
    }
    assert_eq!(pkg.owned_bytes(), owned);
    let key = pkg.key_at(3).unwrap().to_owned();
    let entry = pkg.load(&key).unwrap();
    let info = pkg.info_at(3).unwrap();
    assert_eq!(info.options_hash(), entry.options_hash());
    assert_eq!(info.entry_point_count(), entry.entry_points().len());
    assert_eq!(info.has_reflection(), entry.has_reflection());
    assert!(info.dependencies().eq(entry.dependencies()));
    assert_eq!(entry.info().record(), info.record());
    assert_eq!(
        pkg.info("no such key").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        pkg.info_at(pkg.len()).unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn a_mapped_package_checks_its_checksums_through_reads_as_the_bytes_do() {
    // Raw SPIR-V, one module larger than the 64 KiB read window and small ones on either side,
    // so that sections start and end inside a window, span one and refill it.
    let mut p = PackageBuilder::new();
    let r = p.add_reflection(sample_blob());
    let mut sizes = vec![600usize; 20];
    sizes.insert(7, 400_000);
    for (n, words) in sizes.iter().enumerate() {
        let module: Vec<u32> = (0..*words as u32)
            .map(|i| 0x0723_0203 ^ (i ^ n as u32).wrapping_mul(2_654_435_761))
            .collect();
        let s = p.add_spirv(&module);
        p.add_entry(entry(&format!("big.slang|main|N={n:02}"), Some(r), s))
            .unwrap();
    }
    let bytes = p.finish().unwrap();
    assert!(bytes.len() > 1 << 20, "{} bytes", bytes.len());
    let path = std::env::temp_dir().join(format!(
        "slangpack-reader-checksums-{}.slangpack",
        std::process::id()
    ));
    let mapped = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        let pkg = Package::open(&path).unwrap();
        assert!(pkg.is_mapped());
        pkg
    };
    mapped(&bytes).check_checksums().unwrap();
    let sections: Vec<SectionRecord> = Package::from_bytes(&bytes).unwrap().sections().collect();
    for (i, rec) in sections.iter().enumerate() {
        if rec.section_kind().is_container() || rec.stored_size() == 0 {
            continue;
        }
        for at in [0, rec.stored_size() / 2, rec.stored_size() - 1] {
            let mut damaged = bytes.clone();
            damaged[(rec.offset() + at) as usize] ^= 0x10;
            let in_memory = Package::from_bytes(&damaged).unwrap().check_checksums();
            let through_reads = mapped(&damaged).check_checksums();
            let (a, b) = (in_memory.unwrap_err(), through_reads.unwrap_err());
            assert_eq!(
                (a.kind(), a.to_string()),
                (b.kind(), b.to_string()),
                "section {i}"
            );
            assert_eq!(b.kind(), ErrorKind::ChecksumMismatch);
        }
    }
    std::fs::remove_file(&path).unwrap();
}

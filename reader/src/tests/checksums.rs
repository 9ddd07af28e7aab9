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
        // With the index compressed, small sections share checksums (2.3): the run is named.
        let sections: Vec<SectionRecord> = pkg.sections().collect();
        let in_file: Vec<usize> = (0..sections.len())
            .filter(|&i| !sections[i].section_kind().is_container())
            .collect();
        assert_eq!(
            index,
            in_file.iter().any(|&i| sections[i].hash() == 0),
            "runs only with the compressed index"
        );
        for (at, &i) in in_file.iter().enumerate() {
            let rec = &sections[i];
            if rec.stored_size() == 0 {
                continue;
            }
            let first = in_file[..at]
                .iter()
                .rev()
                .take_while(|&&j| sections[j].hash() == 0)
                .last()
                .copied()
                .unwrap_or(i);
            let last = in_file[at..]
                .iter()
                .copied()
                .find(|&j| sections[j].hash() != 0)
                .unwrap();
            let mut damaged = bytes.clone();
            damaged[rec.offset() as usize + rec.stored_size() as usize / 2] ^= 0x40;
            let pkg = Package::from_bytes(&damaged).expect("open reads no blob");
            let e = pkg.check_checksums().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ChecksumMismatch, "section {i}");
            let what = match first == last {
                true => format!("section {i} checksum mismatch"),
                false => format!("sections {first} to {last} checksum mismatch (one checksum run)"),
            };
            let start = sections[first].offset();
            assert_eq!(e.to_string(), format!("{what} (at offset {start:#x})"));
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

/// The directory of a package with a compressed index, its records in order.
fn directory_of(bytes: &[u8]) -> Vec<SectionRecord> {
    Package::from_bytes(bytes).unwrap().sections().collect()
}

#[test]
fn a_checksum_run_covers_its_sections_and_its_shape_is_checked_at_open() {
    let (bytes, modules) = compressed_package(true);
    assert_ne!(header(&bytes).flags & FLAG_CHECKSUM_RUNS, 0);
    let dir = directory_of(&bytes);
    let in_file: Vec<usize> = (0..dir.len())
        .filter(|&i| !dir[i].section_kind().is_container())
        .collect();
    // A run: a section without a checksum, and the one after it that holds the run's.
    let member = in_file
        .iter()
        .copied()
        .find(|&i| dir[i].hash() == 0 && dir[i].stored_size() > 0)
        .expect("a section in a checksum run");
    let last = in_file
        .iter()
        .copied()
        .find(|&i| i > member && dir[i].hash() != 0)
        .unwrap();
    let last_in_file = *in_file.last().unwrap();
    // Every entry loads and serves its module.
    let pkg = Package::from_bytes(&bytes).unwrap();
    pkg.verify_all().unwrap();
    assert_eq!(
        super::compression::first_spirv(&pkg, "perm.slang|main|N=07"),
        &modules[7][..]
    );
    // A byte of the section, or of the one holding the run's checksum, damaged: the loads
    // that touch the run find it.
    for (i, damaged_section) in [(member, member), (member, last), (last, member)] {
        let mut damaged = bytes.clone();
        let rec = &dir[damaged_section];
        damaged[(rec.offset() + rec.stored_size() / 2) as usize] ^= 0x10;
        let pkg = Package::from_bytes(&damaged).expect("open reads no section");
        let e = pkg.verify_all().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ChecksumMismatch, "section {i}");
    }
    let edited = |f: &dyn Fn(&mut [u8])| {
        super::compression::edit_index(&bytes, true, |index| f(&mut index[..dir.len() * 48]))
    };
    let set_hash = |records: &mut [u8], i: usize, hash: u64| {
        let at = i * 48;
        let mut r = SectionRecord::read_from_prefix(&records[at..]).unwrap().0;
        (r.hash_lo, r.hash_hi) = split_u64(hash);
        records[at..at + 48].copy_from_slice(r.as_bytes());
    };
    // The same index stored again unpacked is the same package.
    Package::from_bytes(&edited(&|_| {}))
        .unwrap()
        .verify_all()
        .unwrap();
    // The last section in the file without a checksum: nothing holds its run's (at open).
    let open = |b: &[u8]| Package::from_bytes(b).map(|_| ()).unwrap_err().kind();
    let no_last = edited(&|records| set_hash(records, last_in_file, 0));
    assert_eq!(open(&no_last), ErrorKind::ChecksumMismatch);
    // A wrong run checksum is found at the first touch of any of its sections.
    let wrong = edited(&|records| set_hash(records, last, dir[last].hash() ^ 1));
    let pkg = Package::from_bytes(&wrong).unwrap();
    assert_eq!(
        pkg.verify_all().unwrap_err().kind(),
        ErrorKind::ChecksumMismatch
    );
    // Without the flag (as a reader before 2.3 reads it), a section of a run holds the
    // checksum 0 of its own bytes: refused at its first touch, never misread.
    let unflagged = edited(&|_| {});
    let h = header(&unflagged);
    let unflagged = super::compression::with_stored_index(
        &unflagged,
        h.flags & !FLAG_CHECKSUM_RUNS,
        &stored_index(&unflagged),
    );
    let pkg = Package::from_bytes(&unflagged).unwrap();
    assert_eq!(
        pkg.verify_all().unwrap_err().kind(),
        ErrorKind::ChecksumMismatch
    );
}

/// The stored bytes of a package's compressed index.
fn stored_index(bytes: &[u8]) -> Vec<u8> {
    let h = header(bytes);
    let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    bytes[at..at + h.index_size as usize].to_vec()
}

//! Compressed SPIR-V (with and without a dictionary) and the compressed index.

use super::*;

/// 40 permutations of one module (differing in a few words), with SPIR-V compressed.
pub(super) fn compressed_spirv_package() -> (Vec<u8>, Vec<Vec<u32>>) {
    compressed_package(false)
}

/// [`compressed_spirv_package`], with a compressed index when `index`.
pub(super) fn compressed_package(index: bool) -> (Vec<u8>, Vec<Vec<u32>>) {
    let mut p = PackageBuilder::new();
    p.set_spirv_compression(Compression::Zstd);
    p.set_compressed_index(index);
    let r = p.add_reflection(sample_blob());
    let base: Vec<u32> = (0..600u32)
        .map(|i| 0x0723_0203 ^ i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut modules = Vec::new();
    for n in 0..40u32 {
        let mut words = base.clone();
        words[0] = 0x0723_0203;
        words[100] = n;
        words[400] = n * 3;
        let s = p.add_spirv(&words);
        p.add_entry(entry(&format!("perm.slang|main|N={n:02}"), Some(r), s))
            .unwrap();
        modules.push(words);
    }
    (p.finish().unwrap(), modules)
}

#[test]
fn compressed_spirv_round_trips_with_a_dictionary() {
    let (bytes, modules) = compressed_spirv_package();
    let raw: usize = modules.iter().map(|m| m.len() * 4).sum();
    assert!(
        bytes.len() * 8 < raw,
        "{} bytes for {raw} of SPIR-V",
        bytes.len()
    );
    let d = dir(&bytes);
    let dict = d
        .iter()
        .filter(|r| r.section_kind() == SectionKind::Dictionary)
        .count();
    assert_eq!(dict, 1, "near-identical modules share a dictionary");
    // Module runs (2.7) whose frames use the dictionary.
    let spirv = || d.iter().filter(|r| r.section_kind() == SectionKind::Spirv);
    assert!(spirv().all(|r| matches!(
        r.compression_kind(),
        Compression::ZstdDictionaryPackedSpirv | Compression::InModuleRun
    )));
    assert!(spirv().any(|r| r.compression_kind() == Compression::InModuleRun));
    let pkg = Package::from_bytes(&bytes).unwrap();
    // At open only the (compressed) container tables are decompressed, no module.
    assert!(pkg.owned_bytes() < raw as u64 / 10, "{}", pkg.owned_bytes());
    // Loaded in reverse order, each entry serves its own module as words.
    for n in (0..40).rev() {
        let e = pkg.load(&format!("perm.slang|main|N={n:02}")).unwrap();
        let spirv = e.entry_points().next().unwrap().spirv();
        assert_eq!(spirv, &modules[n][..]);
    }
    open_all(&bytes).unwrap();
    assert_eq!(
        sample_package(Compression::Zstd),
        sample_package(Compression::Zstd),
        "deterministic"
    );
}

/// Entries of two entry points each (families A and B), every 50th with a third family in place
/// of B: every module, whichever family, is a near-copy of something in the dictionary.
#[test]
fn every_family_of_modules_lands_in_the_dictionary() {
    let family = |mut x: u32| -> Vec<u32> {
        (0..700)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x & 0x00ff_ffff
            })
            .collect()
    };
    let (a, b, c) = (family(1), family(2), family(3));
    let mut p = PackageBuilder::new();
    p.set_spirv_compression(Compression::Zstd);
    let r = p.add_reflection(sample_blob());
    let mut modules = Vec::new();
    for n in 0..300u32 {
        let mut pair = [a.clone(), if n % 50 == 7 { c.clone() } else { b.clone() }];
        for words in &mut pair {
            words[0] = 0x0723_0203;
            words[2] = n;
        }
        let first = p.add_spirv(&pair[0]);
        let second = p.add_spirv(&pair[1]);
        let key = format!("perm.slang|N={n:03}");
        let mut e = entry(&key, Some(r), first);
        e.entry_points.push(EntryPointDesc {
            name: "second".into(),
            spirv: second,
            ..e.entry_points[0].clone()
        });
        p.add_entry(e).unwrap();
        modules.extend(pair);
    }
    let bytes = p.finish().unwrap();
    let spirv: Vec<SectionRecord> = dir(&bytes)
        .into_iter()
        .filter(|r| r.section_kind() == SectionKind::Spirv)
        .collect();
    assert_eq!(spirv.len(), modules.len());
    // A sample of every 10th module alone would hold only family A: those are all even. The
    // modules are stored in module runs (2.7), whose frames use the dictionary.
    for (i, r) in spirv.iter().enumerate() {
        assert!(
            matches!(
                r.compression_kind(),
                Compression::ZstdDictionaryPackedSpirv | Compression::InModuleRun
            ),
            "module {i}: {:?}",
            r.compression_kind()
        );
    }
    let stored: u64 = spirv.iter().map(SectionRecord::stored_size).sum();
    assert!(
        stored < 24 * spirv.len() as u64,
        "{stored} bytes for {} modules",
        spirv.len()
    );
    let pkg = Package::from_bytes(&bytes).unwrap();
    for n in [0, 7, 157, 299] {
        let e = pkg.load(&format!("perm.slang|N={n:03}")).unwrap();
        for (j, ep) in e.entry_points().enumerate() {
            assert_eq!(ep.spirv(), &modules[2 * n + j][..]);
        }
    }
}

#[test]
fn a_damaged_dictionary_fails_the_loads_that_need_it() {
    let (bytes, _) = compressed_spirv_package();
    let i = section_index(&bytes, SectionKind::Dictionary);
    let mut damaged = bytes.clone();
    damaged[dir(&bytes)[i].offset() as usize + 3] ^= 0x40;
    let pkg = Package::from_bytes(&damaged).unwrap();
    let e = pkg.load("perm.slang|main|N=07").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(
        pkg.load("perm.slang|main|N=08").unwrap_err().kind(),
        ErrorKind::ChecksumMismatch
    );
    // Without the dictionary section the package is refused at open.
    let without = edit_section(&bytes, i, |s| s.kind = 0x4000);
    assert_eq!(kind_of(&without), ErrorKind::MissingSection);
    // A second one is a duplicate.
    let mut secs = sections(&bytes);
    let dict = secs[i].clone();
    secs.push(dict);
    assert_eq!(
        kind_of(&assemble_sections(&secs).unwrap()),
        ErrorKind::Duplicate
    );
}

/// The index of a package with a compressed index, decompressed.
fn index_of(bytes: &[u8]) -> Vec<u8> {
    let h = header(bytes);
    let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    let frame = &bytes[at..at + h.index_size as usize];
    slangpack_format::index_content(&h, frame, 1 << 30).unwrap()
}

/// `bytes` with its compressed index replaced by `f` of it, compressed again (declaring its
/// size when `declare_size`), with the header's sizes and checksums fixed.
pub(super) fn edit_index(
    bytes: &[u8],
    declare_size: bool,
    f: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    let mut index = index_of(bytes);
    f(&mut index);
    let mut c = zstd::bulk::Compressor::new(3).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(declare_size))
        .unwrap();
    let frame = c.compress(&index).unwrap();
    // Stored again unpacked.
    let flags = header(bytes).flags & !FLAG_PACKED_INDEX;
    with_stored_index(bytes, flags, &frame)
}

#[test]
fn a_compressed_index_round_trips_and_holds_the_container_sections() {
    let (plain, modules) = compressed_package(false);
    let (bytes, _) = compressed_package(true);
    assert!(
        bytes.len() < plain.len(),
        "{} bytes with the index compressed, {} without",
        bytes.len(),
        plain.len()
    );
    let h = header(&bytes);
    // Packed (2.2): smaller so.
    assert_eq!(
        h.flags,
        FLAG_COMPRESSED_INDEX
            | slangpack_format::FLAG_PACKED_INDEX
            | FLAG_CHECKSUM_RUNS
            | slangpack_format::FLAG_BARE_FRAMES
    );
    // The index is the directory, then the four container sections back to back.
    let index = index_of(&bytes);
    let dir_len = h.section_count as usize * 48;
    let records: Vec<SectionRecord> = (0..h.section_count as usize)
        .map(|i| SectionRecord::read_from_prefix(&index[i * 48..]).unwrap().0)
        .collect();
    let mut end = dir_len;
    for r in records.iter().take(4) {
        assert_eq!(r.offset() as usize, end);
        assert_eq!(r.compression_kind(), Compression::None);
        end += r.stored_size() as usize;
    }
    assert_eq!(end, index.len());
    let pkg = Package::from_bytes(&bytes).unwrap();
    assert_eq!(pkg.sections().len(), records.len());
    assert!(pkg.sections().zip(&records).all(|(a, b)| a == *b));
    // Entries load on their own, in any order, and serve their modules.
    for n in (0..40).rev() {
        let e = pkg.load(&format!("perm.slang|main|N={n:02}")).unwrap();
        assert_eq!(e.entry_points().next().unwrap().spirv(), &modules[n][..]);
    }
    open_all(&bytes).unwrap();
    assert_eq!(compressed_package(true).0, bytes, "deterministic");
    // The same entries either way.
    let other = Package::from_bytes(&plain).unwrap();
    assert!(pkg.keys().eq(other.keys()));
}

#[test]
fn a_compressed_index_is_checked_at_open() {
    let (bytes, _) = compressed_package(true);
    let open = |b: &[u8]| Package::from_bytes(b).map(|_| ()).unwrap_err().kind();
    // Bytes after the last container section.
    assert_eq!(
        open(&edit_index(&bytes, true, |i| i.push(0))),
        ErrorKind::SizeMismatch
    );
    // A container section moved by one byte.
    let shifted = edit_index(&bytes, true, |i| {
        let at = 48 + 16; // offset_lo of section 1 (Entries)
        let v = u32::from_le_bytes(i[at..at + 4].try_into().unwrap()) + 1;
        i[at..at + 4].copy_from_slice(&v.to_le_bytes());
    });
    assert_eq!(open(&shifted), ErrorKind::Overlap);
    // A container section compressed inside the index.
    let zstd = edit_index(&bytes, true, |i| {
        i[4..8].copy_from_slice(&Compression::Zstd.to_raw().to_le_bytes());
    });
    assert_eq!(open(&zstd), ErrorKind::UnsupportedCompression);
    // A container section's bytes changed in the index: its own checksum.
    let last = edit_index(&bytes, true, |i| {
        let n = i.len() - 1;
        i[n] ^= 1;
    });
    assert_eq!(open(&last), ErrorKind::ChecksumMismatch);
    // An index that does not declare its size, or declares less than the directory.
    assert_eq!(
        open(&edit_index(&bytes, false, |_| {})),
        ErrorKind::Decompress
    );
    assert_eq!(
        open(&edit_index(&bytes, true, |i| i.truncate(100))),
        ErrorKind::LimitExceeded
    );
    // Without the flag, the frame is read as a directory: its checksum fails.
    let mut unflagged = bytes.clone();
    let mut h = header(&bytes);
    h.flags = 0;
    (h.header_hash_lo, h.header_hash_hi) = split_u64(xxh3_64(&h.as_bytes()[..64]));
    unflagged[..72].copy_from_slice(h.as_bytes());
    assert!(Package::from_bytes(&unflagged).is_err());
    // Rebuilt unchanged, the package opens.
    assert!(open_all(&edit_index(&bytes, true, |_| {})).is_ok());
}

/// The directory and the container sections are viewed in the decompressed index, those that
/// start off a multiple of 4 there moved on to one: open owns the index and nothing more, and
/// every table reads as written.
#[test]
fn container_sections_are_viewed_in_the_compressed_index() {
    let mut p = PackageBuilder::new();
    p.set_spirv_compression(Compression::Zstd);
    p.set_compressed_index(true);
    let r = p.add_reflection(sample_blob());
    let mut keys = Vec::new();
    // Keys of 1 to 7 bytes past 20: a string pool whose length is not a multiple of 4.
    for n in 0..7u32 {
        let s = p.add_spirv(&[0x0723_0203, n, 7, 9]);
        let key = format!("perm.slang|main|N={n:02}{}", "x".repeat(n as usize + 1));
        p.add_entry(entry(&key, Some(r), s)).unwrap();
        keys.push(key);
    }
    let bytes = p.finish().unwrap();
    let index = index_of(&bytes);
    let h = header(&bytes);
    let dir_len = h.section_count as usize * h.section_record_size as usize;
    let containers: Vec<SectionRecord> = index[..dir_len]
        .chunks_exact(h.section_record_size as usize)
        .map(|r| SectionRecord::read_from_prefix(r).unwrap().0)
        .filter(|r| r.section_kind().is_container())
        .collect();
    assert!(
        containers.iter().any(|r| r.offset() % 4 != 0),
        "a container section starts off a multiple of 4: {:?}",
        containers.iter().map(|r| r.offset()).collect::<Vec<_>>()
    );
    let pkg = Package::from_bytes(&bytes).unwrap();
    // The index, and a packed index's content before it was unpacked.
    let packed = match h.flags & slangpack_format::FLAG_PACKED_INDEX {
        0 => 0,
        _ => {
            let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize + 8;
            zstd::zstd_safe::get_frame_content_size(&bytes[at..])
                .unwrap()
                .unwrap()
        }
    };
    assert_eq!(
        pkg.owned_bytes(),
        index.len() as u64 + packed,
        "nothing copied out"
    );
    assert_eq!(pkg.keys().collect::<Vec<_>>(), keys);
    for (n, key) in keys.iter().enumerate() {
        let e = pkg.load(key).unwrap();
        assert_eq!(e.entry_points().next().unwrap().spirv()[1], n as u32);
    }
    open_all(&bytes).unwrap();
}

/// `bytes` with its header's flags made `flags` and its stored index replaced by `stored`
/// (the file resized to hold it), the sizes and checksums fixed.
pub(super) fn with_stored_index(bytes: &[u8], flags: u32, stored: &[u8]) -> Vec<u8> {
    let mut h = header(bytes);
    let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(stored);
    out.resize(out.len().next_multiple_of(8), 0);
    h.flags = flags;
    h.index_size = stored.len() as u32;
    (h.file_size_lo, h.file_size_hi) = split_u64(out.len() as u64);
    (h.dir_hash_lo, h.dir_hash_hi) = split_u64(xxh3_64(stored));
    (h.header_hash_lo, h.header_hash_hi) = split_u64(xxh3_64(&h.as_bytes()[..64]));
    out[..72].copy_from_slice(h.as_bytes());
    out
}

/// The SPIR-V of entry `key`'s first entry point, loaded.
pub(super) fn first_spirv<'p>(pkg: &'p Package, key: &str) -> &'p [u32] {
    let entry = pkg.load(key).unwrap();
    entry.entry_points().next().unwrap().spirv()
}

#[test]
fn a_packed_index_is_checked_at_open_and_refused_without_its_flag() {
    let (bytes, modules) = compressed_package(true);
    let h = header(&bytes);
    assert_ne!(h.flags & FLAG_PACKED_INDEX, 0);
    let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    let stored = &bytes[at..at + h.index_size as usize];
    let open = |b: &[u8]| Package::from_bytes(b).map(|_| ()).unwrap_err().kind();
    // The same bytes re-stored as they are open to the same package.
    let same = with_stored_index(&bytes, h.flags, stored);
    assert_eq!(same, bytes);
    // Read as a plain compressed index (as a reader before 2.2 reads it): its prefix, an
    // empty skippable frame, declares less than the directory.
    assert_eq!(
        open(&with_stored_index(
            &bytes,
            h.flags & !FLAG_PACKED_INDEX,
            stored
        )),
        ErrorKind::LimitExceeded
    );
    // Without its prefix, or a plain index flagged packed.
    assert_eq!(
        open(&with_stored_index(&bytes, h.flags, &stored[8..])),
        ErrorKind::Decompress
    );
    let plain = compress_index(&index_of(&bytes), 19).unwrap();
    let plain_flagged = with_stored_index(&bytes, h.flags, &plain);
    assert_eq!(open(&plain_flagged), ErrorKind::Decompress);
    // The plain index, flagged plain, is the same package.
    let unpacked = with_stored_index(&bytes, h.flags & !FLAG_PACKED_INDEX, &plain);
    let pkg = Package::from_bytes(&unpacked).unwrap();
    assert_eq!(first_spirv(&pkg, "perm.slang|main|N=07"), &modules[7][..]);
    // Packed content that does not unpack: one byte more, one word cut.
    let content = zstd::decode_all(&stored[8..]).unwrap();
    for damaged in [
        [&content[..], &[0]].concat(),
        content[..content.len() - 1].to_vec(),
    ] {
        let frame = compress_index(&damaged, 19).unwrap();
        let stored = [&PACKED_INDEX_PREFIX[..], &frame].concat();
        assert_eq!(
            open(&with_stored_index(&bytes, h.flags, &stored)),
            ErrorKind::Decompress
        );
    }
}

/// A package of the default layout laid out again with every frame whole (what 2.3 wrote):
/// the frames get their magic numbers back ([`slangpack_format::read_sections`]), the index
/// the same container sections.
fn with_whole_frames(bytes: &[u8]) -> Vec<u8> {
    let sections = slangpack_format::read_sections(bytes).unwrap();
    let (index, rest): (Vec<_>, Vec<_>) = sections
        .into_iter()
        .partition(|s| SectionKind::from_raw(s.kind).is_container());
    slangpack_format::assemble_sections_indexed(&index, &rest, 19).unwrap()
}

#[test]
fn bare_frames_read_as_whole_ones_and_are_four_bytes_smaller_each() {
    let (bytes, modules) = compressed_package(true);
    assert!(Package::from_bytes(&bytes).unwrap().has_bare_frames());
    let whole = with_whole_frames(&bytes);
    assert_eq!(header(&whole).flags & slangpack_format::FLAG_BARE_FRAMES, 0);
    let records =
        |b: &[u8]| -> Vec<SectionRecord> { Package::from_bytes(b).unwrap().sections().collect() };
    let frames: usize = records(&whole)
        .iter()
        .filter(|r| r.compression_kind().is_zstd())
        .map(|r| match r.compression_kind() {
            Compression::ZstdSplitDictionaries => 2,
            _ => 1,
        })
        .sum();
    let stored = |b: &[u8]| -> u64 {
        records(b)
            .iter()
            .filter(|r| !r.section_kind().is_container())
            .map(SectionRecord::stored_size)
            .sum()
    };
    assert!(frames > 4, "{frames} frames");
    assert_eq!(stored(&whole), stored(&bytes) + 4 * frames as u64);
    for b in [&bytes, &whole] {
        let pkg = open_all(b).unwrap();
        for (n, words) in modules.iter().enumerate() {
            let e = pkg.load(&format!("perm.slang|main|N={n:02}")).unwrap();
            assert_eq!(e.entry_points().next().unwrap().spirv(), &words[..]);
            let tables = e.reflection().unwrap();
            assert!(!tables.as_bytes().is_empty());
        }
    }
    // The flag decides how frames are read: whole frames under it, or bare ones without it,
    // are refused at their first load.
    for (b, flags) in [
        (
            &whole,
            header(&whole).flags | slangpack_format::FLAG_BARE_FRAMES,
        ),
        (
            &bytes,
            header(&bytes).flags & !slangpack_format::FLAG_BARE_FRAMES,
        ),
    ] {
        let h = header(b);
        let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
        let flipped = with_stored_index(b, flags, &b[at..at + h.index_size as usize]);
        assert_eq!(kind_of(&flipped), ErrorKind::Decompress);
    }
}

#[test]
fn packed_modules_are_checked_at_their_load() {
    let (bytes, modules) = compressed_spirv_package();
    let secs = sections(&bytes);
    let kind = |s: &RawSection| SectionKind::from_raw(s.kind);
    let first = secs
        .iter()
        .position(|s| kind(s) == SectionKind::Spirv)
        .unwrap();
    let packed = Compression::ZstdPackedSpirv.to_raw();
    // Only SPIR-V is stored packed.
    let mut refl = secs.clone();
    let r = refl
        .iter()
        .position(|s| kind(s) == SectionKind::Reflection)
        .unwrap();
    refl[r].compression = packed;
    assert_eq!(
        kind_of(&assemble_sections(&refl).unwrap()),
        ErrorKind::UnsupportedCompression
    );
    // The first module stored packed without the dictionary, its packed bytes changed.
    let with = |edit: &dyn Fn(&mut Vec<u8>), raw_size: u64| {
        let mut p = slangpack_format::pack_spirv(&modules[0]);
        edit(&mut p);
        let mut s = secs.clone();
        s[first].compression = packed;
        s[first].stored = zstd::bulk::compress(&p, 3).unwrap();
        s[first].raw_size = raw_size;
        assemble_sections(&s).unwrap()
    };
    let raw = modules[0].len() as u64 * 4;
    let load = |b: &[u8]| {
        let pkg = Package::from_bytes(b).unwrap();
        // The other entries load whatever the first module holds.
        assert!(pkg.load("perm.slang|main|N=01").is_ok());
        pkg.load("perm.slang|main|N=00")
            .map(|e| e.entry_points().next().unwrap().spirv().to_vec())
    };
    assert_eq!(load(&with(&|_| {}, raw)).unwrap(), modules[0]);
    let fails = |b: Vec<u8>| load(&b).unwrap_err().kind();
    // A byte short, a byte over, a value past 32 bits where an opcode is.
    assert_eq!(
        fails(with(&|p| p.truncate(p.len() - 1), raw)),
        ErrorKind::Decompress
    );
    assert_eq!(fails(with(&|p| p.push(0), raw)), ErrorKind::Decompress);
    let wide: &dyn Fn(&mut Vec<u8>) = &|p| {
        p.splice(20..21, [0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
            .for_each(drop)
    };
    assert_eq!(fails(with(wide, raw)), ErrorKind::Decompress);
    // A raw size of fewer words than packed, or more: the words do not come out even.
    assert_eq!(fails(with(&|_| {}, raw - 4)), ErrorKind::Decompress);
    assert_eq!(fails(with(&|_| {}, raw + 4)), ErrorKind::Decompress);
    // More packed bytes than any module of its raw size packs into: refused before unpacking.
    let big: &dyn Fn(&mut Vec<u8>) = &|p| p.resize(p.len() + raw as usize * 2, 0);
    assert_eq!(fails(with(big, raw)), ErrorKind::Decompress);
    // A raw size that is not whole words: refused at open.
    assert_eq!(kind_of(&with(&|_| {}, raw - 1)), ErrorKind::SizeMismatch);
}

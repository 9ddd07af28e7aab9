//! Split reflection blobs (1.6): the load reads and checks the bind view alone, the raw tables
//! wait for `Entry::reflection`; one negative test per rule of SPEC.md 6.1 on them.

use crate::tests::{add_compute_entry, open_all, sample_blob};
use crate::{ErrorKind, Package};
use slangpack_format::*;
use zerocopy::{FromBytes, IntoBytes};

/// A package of one entry `k` holding `blob`, stored `compression`.
fn package(blob: Vec<u8>, compression: Compression) -> Vec<u8> {
    package_with(blob, |p| {
        p.set_reflection_compression(compression);
    })
}

/// One entry of one compute entry point using `blob`, from a builder `configure` has set up.
fn package_with(blob: Vec<u8>, configure: impl FnOnce(&mut PackageBuilder)) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    configure(&mut p);
    add_compute_entry(&mut p, "k", &[0x0723_0203], blob);
    p.finish().unwrap()
}

fn header(blob: &[u8]) -> ReflectionHeader {
    ReflectionHeader::read_from_prefix(blob).unwrap().0
}

/// The stored bytes of the reflection section of `bytes` (a package of one blob), and how it
/// is compressed.
fn stored_reflection(bytes: &[u8]) -> (&[u8], Compression) {
    let package = Package::from_bytes(bytes).unwrap();
    let rec = package
        .sections()
        .find(|s| s.kind == SectionKind::Reflection.to_raw())
        .unwrap();
    let stored = &bytes[rec.offset() as usize..][..rec.stored_size() as usize];
    (stored, rec.compression_kind())
}

/// `blob` with its header's `tables_offset` set to `at`.
fn with_tables_offset(mut blob: Vec<u8>, at: u32) -> Vec<u8> {
    blob[56..60].copy_from_slice(&at.to_le_bytes());
    blob
}

/// The directory records of `blob`.
fn directory(blob: &[u8]) -> Vec<TableDirRecord> {
    let h = header(blob);
    let start = h.table_dir_offset as usize;
    (0..h.table_count as usize)
        .map(|i| {
            TableDirRecord::read_from_prefix(&blob[start + i * 16..])
                .unwrap()
                .0
        })
        .collect()
}

/// The package of `blob` with its reflection section's stored bytes replaced by `stored`
/// (compressed `Zstd`), checksums recomputed.
fn with_stored(blob: &[u8], stored: Vec<u8>) -> Vec<u8> {
    let bytes = package(blob.to_vec(), Compression::None);
    let (h, _) = FileHeader::read_from_prefix(&bytes).unwrap();
    let off = h.section_dir_offset_lo as usize;
    let sections: Vec<RawSection> = (0..h.section_count as usize)
        .map(|i| {
            let rec = SectionRecord::read_from_prefix(&bytes[off + i * 48..])
                .unwrap()
                .0;
            let mut s = RawSection::copied(&bytes, &rec).unwrap();
            if s.kind == SectionKind::Reflection.to_raw() {
                s.compression = Compression::Zstd.to_raw();
                s.stored = stored.clone();
            }
            s
        })
        .collect();
    assemble_sections(&sections).unwrap()
}

fn frame(bytes: &[u8], content_size: bool) -> Vec<u8> {
    let mut c = zstd::bulk::Compressor::new(3).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(content_size))
        .unwrap();
    c.compress(bytes).unwrap()
}

fn load_kind(bytes: &[u8]) -> ErrorKind {
    let p = Package::from_bytes(bytes).unwrap();
    p.load("k").map(|_| ()).unwrap_err().kind()
}

#[test]
fn writers_split_blobs_and_store_two_frames() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset as usize;
    assert!(at > 0 && at % 8 == 0 && at < blob.len());
    for t in directory(&blob) {
        let raw = TableKind::from_raw(t.kind).is_raw();
        assert_eq!(t.offset as usize >= at, raw, "table {} on its side", t.kind);
    }
    let bytes = package(blob.clone(), Compression::Zstd);
    let (stored, _) = stored_reflection(&bytes);
    let first = zstd::zstd_safe::find_frame_compressed_size(stored).unwrap();
    assert!(first < stored.len(), "two frames");
    assert_eq!(
        zstd::zstd_safe::get_frame_content_size(&stored[..first]).unwrap(),
        Some(at as u64)
    );
}

#[test]
fn load_reads_the_bind_view_and_reflection_the_raw_tables() {
    let blob = sample_blob();
    for compression in [Compression::Zstd, Compression::None] {
        let bytes = package(blob.clone(), compression);
        let p = Package::from_bytes(&bytes).unwrap();
        let entry = p.load("k").unwrap();
        let after_load = p.owned_bytes();
        assert_eq!(
            entry.bind().string(0),
            "float",
            "the strings came with the bind view"
        );
        let view = entry.reflection().unwrap();
        assert!(!view.types().is_empty() && !view.variables().is_empty());
        assert_eq!(view.as_bytes(), &blob[..], "the whole blob");
        if compression == Compression::Zstd {
            // The load decompressed the first frame only.
            assert!(after_load < p.owned_bytes());
        }
        let again = entry.reflection().unwrap();
        assert_eq!(again.types().as_ptr(), view.types().as_ptr(), "loaded once");
    }
}

#[test]
fn damaged_raw_tables_fail_at_their_first_use_not_at_load() {
    let mut blob = sample_blob();
    let vars = directory(&blob)
        .into_iter()
        .find(|t| t.kind == TableKind::Variables.to_raw())
        .unwrap();
    let at = vars.offset as usize;
    let (mut v, _) = Variable::read_from_prefix(&blob[at..]).unwrap();
    v.type_index = 1000;
    blob[at..at + 48].copy_from_slice(v.as_bytes());
    for compression in [Compression::Zstd, Compression::None] {
        let bytes = package(blob.clone(), compression);
        let p = Package::from_bytes(&bytes).unwrap();
        let entry = p.load("k").unwrap();
        assert_eq!(entry.bind().string(0), "float", "the bind view is usable");
        let e = entry.reflection().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::IndexOutOfRange);
        let again = entry.reflection().unwrap_err();
        assert_eq!((again.kind(), again.offset()), (e.kind(), e.offset()));
        let full = open_all(&bytes).map(|_| ()).unwrap_err();
        assert_eq!(
            full.kind(),
            ErrorKind::IndexOutOfRange,
            "verify_all checks them"
        );
    }
}

#[test]
fn error_tables_offset_misaligned() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset;
    let bytes = package(with_tables_offset(blob, at + 4), Compression::None);
    assert_eq!(load_kind(&bytes), ErrorKind::Misaligned);
}

#[test]
fn error_tables_offset_out_of_bounds() {
    let blob = sample_blob();
    let len = blob.len() as u32;
    // Past the end of the blob, and inside the directory.
    let past = package(with_tables_offset(blob.clone(), len + 8), Compression::None);
    assert_eq!(load_kind(&past), ErrorKind::OutOfBounds);
    let inside = package(with_tables_offset(blob, 64), Compression::None);
    assert_eq!(load_kind(&inside), ErrorKind::OutOfBounds);
}

#[test]
fn error_table_on_the_wrong_side_of_tables_offset() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset;
    // A raw table before it: the offset moved past the first raw table.
    let raw_before = package(with_tables_offset(blob.clone(), at + 8), Compression::None);
    assert_eq!(load_kind(&raw_before), ErrorKind::OutOfBounds);
    // A bind-view table after it: the offset moved below the last one's end.
    let bind_after = package(with_tables_offset(blob, at - 8), Compression::None);
    assert_eq!(load_kind(&bind_after), ErrorKind::OutOfBounds);
}

#[test]
fn error_first_frame_size_mismatch() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset as usize;
    // The first frame holds 8 bytes fewer than `tables_offset`.
    let mut stored = frame(&blob[..at - 8], true);
    stored.extend(frame(&blob[at - 8..], true));
    assert_eq!(
        load_kind(&with_stored(&blob, stored)),
        ErrorKind::SizeMismatch
    );
    // An unsplit blob stored as two frames.
    let whole = with_tables_offset(blob, 0);
    let mut stored = frame(&whole[..at], true);
    stored.extend(frame(&whole[at..], true));
    assert_eq!(
        load_kind(&with_stored(&whole, stored)),
        ErrorKind::SizeMismatch
    );
}

#[test]
fn error_first_frame_without_content_size() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset as usize;
    let mut stored = frame(&blob[..at], false);
    stored.extend(frame(&blob[at..], true));
    assert_eq!(
        load_kind(&with_stored(&blob, stored)),
        ErrorKind::Decompress
    );
    // Two well-formed frames load, and the raw tables after them.
    let mut good = frame(&blob[..at], true);
    good.extend(frame(&blob[at..], true));
    let bytes = with_stored(&blob, good);
    let p = Package::from_bytes(&bytes).unwrap();
    assert!(p.load("k").unwrap().reflection().is_ok());
}

#[test]
fn a_bind_view_stored_as_raw_blocks_loads_without_decompressing() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset as usize;
    let bytes = package_with(blob.clone(), |p| {
        p.set_bind_view_compression(Compression::None);
    });
    let (stored, compression) = stored_reflection(&bytes);
    assert_eq!(compression, Compression::Zstd);
    let package = Package::from_bytes(&bytes).unwrap();
    // Frame header (13 bytes: an 8-byte content size) and one block header (3): then the bind
    // part verbatim, 16 bytes in.
    assert_eq!(&stored[16..16 + at], &blob[..at]);
    let entry = package.load("k").unwrap();
    assert_eq!(entry.bind().string(0), "float");
    // Served in place: the bind part is a range of the package's bytes, not a copy.
    assert!(bind_part_in_place(&package));
    assert_eq!(entry.reflection().unwrap().as_bytes(), &blob[..]);
    package.verify_all().unwrap();
}

/// The literals section types (RFC 8878 3.1.1.3.1.1: 0 raw, 1 RLE, 2 compressed, 3 treeless)
/// of the compressed blocks of the zstd frame at the start of `frame`.
fn literals_block_types(frame: &[u8]) -> Vec<u8> {
    let descriptor = frame[4];
    let single_segment = descriptor & 0x20 != 0;
    let dict_id = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let content_size = match descriptor >> 6 {
        0 => usize::from(single_segment),
        flag => 1 << flag,
    };
    let mut at = 5 + usize::from(!single_segment) + dict_id + content_size;
    let mut types = Vec::new();
    loop {
        let header = u32::from_le_bytes([frame[at], frame[at + 1], frame[at + 2], 0]);
        let (last, kind, size) = (header & 1 != 0, (header >> 1) & 3, (header >> 3) as usize);
        at += 3;
        match kind {
            1 => at += 1,
            2 => {
                types.push(frame[at] & 3);
                at += size;
            }
            _ => at += size,
        }
        if last {
            return types;
        }
    }
}

#[test]
fn the_bind_view_frame_stores_its_literals_without_huffman_coding() {
    let blob = sample_blob();
    let bytes = package_with(blob, |_| {});
    let (stored, _) = stored_reflection(&bytes);
    let first = zstd::zstd_safe::find_frame_compressed_size(stored).unwrap();
    assert!(first < stored.len(), "a split blob is two frames");
    let bind = literals_block_types(&stored[..first]);
    assert!(
        !bind.is_empty(),
        "the bind view frame has a compressed block"
    );
    assert!(bind.iter().all(|&t| t <= 1), "literals types {bind:?}");
    // The raw tables' frame keeps zstd's choice (Huffman-coded where it pays).
    let tables = literals_block_types(&stored[first..]);
    assert!(tables.contains(&2), "literals types {tables:?}");
}

/// Whether the first reflection blob's loaded part is a range of the package's bytes.
fn bind_part_in_place(package: &Package) -> bool {
    let blob = package.reflection(0).unwrap();
    matches!(blob.bytes, crate::storage::Bytes::File { .. })
}

/// `bytes` as one zstd frame of one raw block, its content size in `size_bytes` (4 or 8)
/// bytes, its block header declaring `block` bytes.
fn raw_frame(bytes: &[u8], size_bytes: usize, block: usize) -> Vec<u8> {
    let descriptor = if size_bytes == 8 {
        0b1110_0000
    } else {
        0b1010_0000
    };
    let mut out = vec![0x28, 0xB5, 0x2F, 0xFD, descriptor];
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes()[..size_bytes]);
    out.extend_from_slice(&((block as u32) << 3 | 1).to_le_bytes()[..3]);
    out.extend_from_slice(bytes);
    out
}

#[test]
fn only_a_frame_of_one_exact_raw_block_is_served_in_place() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset as usize;
    for (size_bytes, block, in_place) in [(8, at, true), (4, at, false)] {
        let mut stored = raw_frame(&blob[..at], size_bytes, block);
        stored.extend(frame(&blob[at..], true));
        let bytes = with_stored(&blob, stored);
        let package = Package::from_bytes(&bytes).unwrap();
        let entry = package.load("k").unwrap();
        assert_eq!(entry.bind().string(0), "float");
        assert_eq!(
            bind_part_in_place(&package),
            in_place,
            "{size_bytes}-byte content size"
        );
        assert_eq!(entry.reflection().unwrap().as_bytes(), &blob[..]);
    }
    // A block header that does not declare the frame's content is zstd's to refuse.
    let mut stored = raw_frame(&blob[..at], 8, at - 8);
    stored.extend(frame(&blob[at..], true));
    let bytes = with_stored(&blob, stored);
    assert!(Package::from_bytes(&bytes)
        .and_then(|p| p.load("k").map(|_| ()))
        .is_err());
}

/// `bytes` compressed as one zstd frame with `dictionary` (raw content, no dictionary id).
fn dictionary_frame(bytes: &[u8], dictionary: &[u8]) -> Vec<u8> {
    let mut c = zstd::bulk::Compressor::with_dictionary(3, dictionary).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::DictIdFlag(false))
        .unwrap();
    c.compress(bytes).unwrap()
}

/// A section of `kind` stored as one zstd frame of `raw`.
fn zstd_section(kind: SectionKind, raw: &[u8]) -> RawSection {
    RawSection {
        kind: kind.to_raw(),
        compression: Compression::Zstd.to_raw(),
        stride: 0,
        count: 0,
        raw_size: raw.len() as u64,
        stored: frame(raw, true),
    }
}

/// The sections of a package of `blob` stored `ZstdSplitDictionaries` (2.1): its bind view
/// with a `Dictionary` of the bind view itself, its raw tables packed with a `TablesDictionary`
/// of themselves (both stored zstd-compressed, so that loading either counts owned bytes).
fn split_dictionaries_sections(blob: &[u8]) -> Vec<RawSection> {
    let at = header(blob).tables_offset as usize;
    let bind = &blob[..at];
    let tables = pack_raw_tables(blob, at).unwrap();
    let mut stored = dictionary_frame(bind, bind);
    stored.extend(dictionary_frame(&tables, &tables));
    let bytes = with_stored(blob, stored);
    let mut sections = crate::tests::sections_of(&bytes);
    for s in &mut sections {
        if s.kind == SectionKind::Reflection.to_raw() {
            s.compression = Compression::ZstdSplitDictionaries.to_raw();
        }
    }
    sections.push(zstd_section(SectionKind::Dictionary, bind));
    sections.push(zstd_section(SectionKind::TablesDictionary, &tables));
    sections
}

#[test]
fn a_blob_with_two_dictionaries_loads_its_bind_view_without_the_tables_dictionary() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset as usize;
    let bytes = assemble_sections(&split_dictionaries_sections(&blob)).unwrap();
    let p = Package::from_bytes(&bytes).unwrap();
    let opened = p.owned_bytes();
    let entry = p.load("k").unwrap();
    assert_eq!(entry.bind().string(0), "float");
    let loaded = p.owned_bytes();
    // The bind view (`at` bytes), its dictionary (as many) and the names spelled from it;
    // nothing of the raw tables.
    let tables = pack_raw_tables(&blob, at).unwrap().len() as u64;
    let names = loaded - opened - 2 * at as u64;
    assert!(names < tables, "{names} bytes of names");
    assert_eq!(entry.reflection().unwrap().as_bytes(), &blob[..]);
    // The whole blob and the tables' dictionary (and names the raw tables spell).
    let more = p.owned_bytes() - loaded;
    assert!(more >= blob.len() as u64 + tables, "{more}");
    open_all(&bytes).unwrap();
}

/// The package `bytes` loads entry `k` and its bind view; its raw tables fail to decompress.
fn bind_view_loads_raw_tables_do_not(bytes: &[u8]) {
    let p = Package::from_bytes(bytes).unwrap();
    let entry = p.load("k").unwrap();
    assert_eq!(entry.bind().string(0), "float");
    let kind = entry.reflection().unwrap_err().kind();
    assert_eq!(kind, ErrorKind::Decompress);
}

#[test]
fn errors_of_the_two_dictionaries() {
    let blob = sample_blob();
    let sections = split_dictionaries_sections(&blob);
    let position = |kind: SectionKind| {
        sections
            .iter()
            .position(|s| s.kind == kind.to_raw())
            .unwrap()
    };
    let with = |i: usize, f: &dyn Fn(&mut RawSection)| {
        let mut s = sections.clone();
        f(&mut s[i]);
        assemble_sections(&s).unwrap()
    };
    let open_kind = |bytes: &[u8]| Package::from_bytes(bytes).unwrap_err().kind();
    // Only reflection blobs are stored with two dictionaries.
    let spirv = with(position(SectionKind::Spirv), &|s| {
        s.compression = Compression::ZstdSplitDictionaries.to_raw();
        s.stored = frame(&s.stored, true);
    });
    assert_eq!(open_kind(&spirv), ErrorKind::UnsupportedCompression);
    // A dictionary is not itself compressed with one.
    let tables = position(SectionKind::TablesDictionary);
    let nested = with(tables, &|s| {
        s.compression = Compression::ZstdDictionary.to_raw();
    });
    assert_eq!(open_kind(&nested), ErrorKind::UnsupportedCompression);
    // One tables dictionary at most.
    let mut twice = sections.clone();
    twice.push(sections[tables].clone());
    assert_eq!(
        open_kind(&assemble_sections(&twice).unwrap()),
        ErrorKind::Duplicate
    );
    // Without its tables dictionary the bind view still loads; the raw tables do not.
    let without = with(tables, &|s| s.kind = 0x4000);
    bind_view_loads_raw_tables_do_not(&without);
    // Packed raw tables cut short: the load reads the bind view, the raw tables are refused.
    let at = header(&blob).tables_offset as usize;
    let packed = pack_raw_tables(&blob, at).unwrap();
    let cut = with(position(SectionKind::Reflection), &|s| {
        let mut stored = dictionary_frame(&blob[..at], &blob[..at]);
        stored.extend(dictionary_frame(&packed[..packed.len() - 1], &packed));
        s.stored = stored;
    });
    bind_view_loads_raw_tables_do_not(&cut);
    // Such a blob is two frames: one is refused at load.
    let one = with(position(SectionKind::Reflection), &|s| {
        s.stored = dictionary_frame(&blob, &blob[..at]);
    });
    assert_eq!(load_kind(&one), ErrorKind::Decompress);
}

#[test]
fn the_packed_frame_declares_its_size_within_five_bytes_per_word() {
    let blob = sample_blob();
    let at = header(&blob).tables_offset as usize;
    let packed = pack_raw_tables(&blob, at).unwrap();
    let sections = split_dictionaries_sections(&blob);
    let reflection = sections
        .iter()
        .position(|s| s.kind == SectionKind::Reflection.to_raw())
        .unwrap();
    let with_second = |second: Vec<u8>| {
        let mut s = sections.clone();
        let mut stored = dictionary_frame(&blob[..at], &blob[..at]);
        stored.extend(second);
        s[reflection].stored = stored;
        assemble_sections(&s).unwrap()
    };
    let raw_tables_kind = |bytes: &[u8]| {
        let p = Package::from_bytes(bytes).unwrap();
        let entry = p.load("k").unwrap();
        entry.reflection().map(|_| ()).unwrap_err().kind()
    };
    // No declared size: refused at the raw tables' first use, the bind view loads.
    let mut c = zstd::bulk::Compressor::with_dictionary(3, &packed).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::DictIdFlag(false))
        .unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(false))
        .unwrap();
    let undeclared = with_second(c.compress(&packed).unwrap());
    assert_eq!(raw_tables_kind(&undeclared), ErrorKind::Decompress);
    // More than 5 bytes for each 4 of the raw tables.
    let most = (blob.len() - at) / 4 * 5;
    let mut long = packed.clone();
    long.resize(most + 1, 0);
    let too_long = with_second(dictionary_frame(&long, &packed));
    assert_eq!(raw_tables_kind(&too_long), ErrorKind::SizeMismatch);
    // The bound itself is not refused for its size (its words then leave bytes over).
    long.truncate(most);
    let at_most = with_second(dictionary_frame(&long, &packed));
    assert_eq!(raw_tables_kind(&at_most), ErrorKind::Decompress);
}

/// A package of entries `a` and `b` whose blobs differ in their bind views alone (`sample_blob`
/// with another header word), SPIR-V compressed: the writer stores `b`'s raw tables as `a`'s
/// (2.5, `ZstdSharedTables`). Its sections as `read_sections` gives them, and the two blobs.
fn sharing_package() -> (Vec<RawSection>, [Vec<u8>; 2]) {
    let a = sample_blob();
    let mut b = a.clone();
    b[60..64].copy_from_slice(&7u32.to_le_bytes()); // `reserved1`, in the bind view's frame
    let mut p = PackageBuilder::new();
    p.set_spirv_compression(Compression::Zstd);
    for (key, blob) in [("a", &a), ("b", &b)] {
        let spirv = [0x0723_0203, key.len() as u32, key.as_bytes()[0].into()];
        add_compute_entry(&mut p, key, &spirv, blob.clone());
    }
    let bytes = p.finish().unwrap();
    (read_sections(&bytes).unwrap(), [a, b])
}

/// The positions of the reflection sections of `sections`.
fn reflections(sections: &[RawSection]) -> Vec<usize> {
    (0..sections.len())
        .filter(|&i| sections[i].kind == SectionKind::Reflection.to_raw())
        .collect()
}

#[test]
fn blobs_of_the_same_raw_tables_store_them_once() {
    let (sections, blobs) = sharing_package();
    let r = reflections(&sections);
    let (owner, sharer) = (&sections[r[0]], &sections[r[1]]);
    assert_eq!(
        owner.compression,
        Compression::ZstdSplitDictionaries.to_raw()
    );
    assert_eq!(sharer.compression, Compression::ZstdSharedTables.to_raw());
    assert_eq!(sharer.count as usize, r[1] - r[0]);
    // Its own frame alone: the owner's second frame is not repeated.
    let whole = with_shared_tables(&sections, r[1]).unwrap();
    assert_eq!(whole.compression, owner.compression);
    assert!(whole.stored.len() > sharer.stored.len());
    let bytes = assemble_sections(&sections).unwrap();
    let p = open_all(&bytes).unwrap();
    for (key, blob) in ["a", "b"].iter().zip(&blobs) {
        let entry = p.load(key).unwrap();
        assert_eq!(entry.reflection().unwrap().as_bytes(), &blob[..], "{key}");
    }
}

#[test]
fn errors_of_shared_raw_tables() {
    let (sections, _) = sharing_package();
    let r = reflections(&sections);
    let with = |i: usize, f: &dyn Fn(&mut RawSection)| {
        let mut s = sections.clone();
        f(&mut s[i]);
        assemble_sections(&s).unwrap()
    };
    let open_kind = |bytes: &[u8]| Package::from_bytes(bytes).unwrap_err().kind();
    // The section it names is before it, and not itself.
    for count in [0, r[1] as u32 + 1] {
        let bytes = with(r[1], &|s| s.count = count);
        assert_eq!(open_kind(&bytes), ErrorKind::IndexOutOfRange, "{count}");
    }
    // Only reflection blobs share raw tables.
    let spirv = (0..sections.len())
        .find(|&i| sections[i].kind == SectionKind::Spirv.to_raw())
        .unwrap();
    let bytes = with(spirv, &|s| {
        s.compression = Compression::ZstdSharedTables.to_raw();
        s.count = 1;
    });
    assert_eq!(open_kind(&bytes), ErrorKind::UnsupportedCompression);
    // Naming a section that holds no raw tables (a module): the bind view loads, the raw
    // tables are `Decompress`.
    let bytes = with(r[1], &|s| s.count = (r[1] - spirv) as u32);
    let p = Package::from_bytes(&bytes).unwrap();
    let entry = p.load("b").unwrap();
    assert_eq!(
        entry.reflection().unwrap_err().kind(),
        ErrorKind::Decompress
    );
    assert!(p.load("a").unwrap().reflection().is_ok());
    // Its own bytes not one whole frame: the load fails.
    let bytes = with(r[1], &|s| {
        let again = s.stored.clone();
        s.stored.extend(again);
    });
    let p = Package::from_bytes(&bytes).unwrap();
    assert_eq!(p.load("b").unwrap_err().kind(), ErrorKind::Decompress);
    // The owner damaged in the file: the sharer's raw tables fail its checksum; its bind view
    // loads.
    let mut bytes = assemble_sections(&sections).unwrap();
    let owner = Package::from_bytes(&bytes)
        .unwrap()
        .sections()
        .nth(r[0])
        .unwrap();
    let last = (owner.offset() + owner.stored_size() - 1) as usize;
    bytes[last] ^= 1;
    let p = Package::from_bytes(&bytes).unwrap();
    let entry = p.load("b").unwrap();
    assert_eq!(
        entry.reflection().unwrap_err().kind(),
        ErrorKind::ChecksumMismatch
    );
    assert_eq!(p.load("a").unwrap_err().kind(), ErrorKind::ChecksumMismatch);
}

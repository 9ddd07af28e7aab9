//! One negative test per error kind (asserting the exact kind), of the checks open and a load
//! make on the header, the directory, the container tables and the blob.

use super::*;

#[test]
fn error_io() {
    let e = Package::open("/nonexistent/dir/x.slangpack").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(std::error::Error::source(&e).is_some());
}

#[cfg(target_endian = "big")]
#[test]
fn error_big_endian_host() {
    assert_eq!(
        kind_of(&sample_package(Compression::Zstd)),
        ErrorKind::BigEndianHost
    );
}

#[test]
fn error_truncated() {
    let bytes = sample_package(Compression::Zstd);
    assert_eq!(kind_of(&bytes[..40]), ErrorKind::Truncated);
    assert_eq!(kind_of(&bytes[..bytes.len() - 8]), ErrorKind::Truncated);
    assert_eq!(kind_of(&[]), ErrorKind::Truncated);
}

#[test]
fn error_bad_magic() {
    let mut bytes = sample_package(Compression::Zstd);
    bytes[0] = b'X';
    assert_eq!(kind_of(&bytes), ErrorKind::BadMagic);
    let mut blob = sample_blob();
    blob[0] = b'X';
    assert_eq!(kind_of(&package_with_blob(blob)), ErrorKind::BadMagic);
}

#[test]
fn error_unsupported_version() {
    let bytes = sample_package(Compression::Zstd);
    let newer = edit_header(&bytes, |h| h.version_major = 4);
    let e = Package::from_bytes(&newer).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedVersion);
    assert!(e.to_string().contains("version 4."), "{e}");
    // 3.0 is a paged package's (SPEC.md 4.5): one without its page table is refused.
    assert_eq!(
        kind_of(&edit_header(&bytes, |h| h.version_major = 3)),
        ErrorKind::BadHeader
    );
    assert_eq!(
        kind_of(&edit_header(&bytes, |h| h.version_major = 0)),
        ErrorKind::UnsupportedVersion
    );
}

#[test]
fn error_bad_endian_tag() {
    let bytes = edit_header(&sample_package(Compression::Zstd), |h| {
        h.endian_tag = ENDIAN_TAG.swap_bytes()
    });
    let e = Package::from_bytes(&bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadEndianTag);
    assert!(e.to_string().contains("big-endian"));
}

#[test]
fn error_bad_header() {
    let bytes = sample_package(Compression::Zstd);
    assert_eq!(
        kind_of(&edit_header(&bytes, |h| h.header_size = 64)),
        ErrorKind::BadHeader
    );
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 8]);
    assert_eq!(kind_of(&longer), ErrorKind::BadHeader);
}

#[test]
fn error_limit_exceeded() {
    let bytes = sample_package(Compression::Zstd);
    let r = section_index(&bytes, SectionKind::Reflection);
    // A crafted declared size must be refused before any allocation.
    let huge = edit_section(&bytes, r, |s| {
        (s.raw_size_lo, s.raw_size_hi) = split_u64(1 << 40)
    });
    assert_eq!(kind_of(&huge), ErrorKind::LimitExceeded);
    let mut many = bytes.clone();
    let mut h = header(&many);
    h.section_count = limits::MAX_SECTIONS + 1;
    many[..72].copy_from_slice(h.as_bytes());
    let (lo, hi) = split_u64(xxh3_64(&many[..64]));
    many[64..68].copy_from_slice(&lo.to_le_bytes());
    many[68..72].copy_from_slice(&hi.to_le_bytes());
    assert_eq!(kind_of(&many), ErrorKind::LimitExceeded);
}

#[test]
fn error_out_of_bounds() {
    let bytes = sample_package(Compression::Zstd);
    let past = edit_section(&bytes, 1, |s| {
        (s.offset_lo, s.offset_hi) = split_u64(1 << 20)
    });
    assert_eq!(kind_of(&past), ErrorKind::OutOfBounds);
    let mut blob = sample_blob();
    blob[12..16].copy_from_slice(&200u32.to_le_bytes()); // table_count: directory too long
    assert_eq!(kind_of(&package_with_blob(blob)), ErrorKind::OutOfBounds);
}

#[test]
fn error_misaligned() {
    let bytes = sample_package(Compression::Zstd);
    let odd = edit_section(&bytes, 1, |s| s.offset_lo += 4);
    assert_eq!(kind_of(&odd), ErrorKind::Misaligned);
}

#[test]
fn error_overlap() {
    let bytes = sample_package(Compression::Zstd);
    let d = dir(&bytes);
    let first = d[0];
    let same = edit_section(&bytes, 1, |s| {
        s.offset_lo = first.offset_lo;
        s.offset_hi = first.offset_hi;
    });
    assert_eq!(kind_of(&same), ErrorKind::Overlap);
}

#[test]
fn error_non_zero_padding() {
    let mut bytes = sample_package(Compression::Zstd);
    let gap = dir(&bytes)
        .iter()
        .map(|r| r.offset() + r.stored_size())
        .find(|end| end % 8 != 0)
        .expect("a section that needs padding") as usize;
    bytes[gap] = 1;
    // Open reads no byte between sections; the full check reads them all.
    let package = Package::from_bytes(&bytes).expect("open leaves padding to the full check");
    assert_eq!(
        package.verify_all().unwrap_err().kind(),
        ErrorKind::NonZeroPadding
    );
    assert_eq!(kind_of(&bytes), ErrorKind::NonZeroPadding);
}

#[test]
fn error_checksum_mismatch() {
    let mut bytes = sample_package(Compression::Zstd);
    let d = dir(&bytes);
    bytes[d[2].offset() as usize] ^= 1;
    let e = Package::from_bytes(&bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(
        e.to_string(),
        format!(
            "section 2 checksum mismatch (at offset {:#x})",
            d[2].offset()
        )
    );
    let mut header_flip = sample_package(Compression::Zstd);
    header_flip[20] ^= 1; // flags: covered by the header checksum
    assert_eq!(kind_of(&header_flip), ErrorKind::ChecksumMismatch);
}

#[test]
fn error_unsupported_compression() {
    let bytes = sample_package(Compression::Zstd);
    assert_eq!(
        kind_of(&edit_section(&bytes, 0, |s| s.compression = 9)),
        ErrorKind::UnsupportedCompression
    );
}

#[test]
fn error_decompress() {
    let mut bytes = sample_package(Compression::Zstd);
    let r = dir(&bytes)[section_index(&bytes, SectionKind::Reflection)];
    bytes[r.offset() as usize] ^= 0xFF; // break the zstd frame magic
    refix(&mut bytes);
    assert_eq!(kind_of(&bytes), ErrorKind::Decompress);
}

#[test]
fn error_size_mismatch() {
    let bytes = sample_package(Compression::Zstd);
    assert_eq!(
        kind_of(&edit_section(&bytes, 1, |s| s.raw_size_lo += 8)),
        ErrorKind::SizeMismatch
    );
    let r = section_index(&bytes, SectionKind::Reflection);
    // Declared raw size smaller than the frames' content: the split blob's directory bounds
    // its last raw table by the declared size before the second frame is decompressed.
    assert_eq!(
        kind_of(&edit_section(&bytes, r, |s| s.raw_size_lo -= 4)),
        ErrorKind::OutOfBounds
    );
    assert_eq!(
        kind_of(&edit_section(&bytes, 1, |s| s.record_count += 1)),
        ErrorKind::SizeMismatch
    );
}

#[test]
fn error_bad_stride() {
    let bytes = sample_package(Compression::Zstd);
    let e = section_index(&bytes, SectionKind::Entries);
    assert_eq!(
        kind_of(&edit_section(&bytes, e, |s| s.record_stride = 8)),
        ErrorKind::BadStride
    );
    assert_eq!(
        kind_of(&edit_header(&bytes, |h| h.section_record_size = 40)),
        ErrorKind::BadStride
    );
}

#[test]
fn error_duplicate() {
    let bytes = sample_package(Compression::Zstd);
    let deps = section_index(&bytes, SectionKind::Dependencies);
    let e = edit_section(&bytes, deps, |s| s.kind = SectionKind::Entries.to_raw());
    assert_eq!(kind_of(&e), ErrorKind::Duplicate);
    let mut b = ReflectionBuilder::new();
    b.push(Modifier { id: 1 });
    let mut blob = b.finish();
    // Duplicate the single directory record's kind into a second record: table_count = 2.
    blob[12..16].copy_from_slice(&2u32.to_le_bytes());
    let rec: Vec<u8> = blob[64..80].to_vec();
    blob.splice(80..80, rec);
    // Shift the table offset of both records, and where the raw tables begin, by the 16
    // inserted bytes.
    for at in [56usize, 68, 84] {
        let off = u32::from_le_bytes(blob[at..at + 4].try_into().unwrap()) + 16;
        blob[at..at + 4].copy_from_slice(&off.to_le_bytes());
    }
    assert_eq!(kind_of(&package_with_blob(blob)), ErrorKind::Duplicate);
}

#[test]
fn error_missing_section() {
    let bytes = sample_package(Compression::Zstd);
    let deps = section_index(&bytes, SectionKind::Dependencies);
    assert_eq!(
        kind_of(&edit_section(&bytes, deps, |s| s.kind = 0x4000)),
        ErrorKind::MissingSection
    );
}

#[test]
fn error_bad_string() {
    let mut bytes = sample_package(Compression::Zstd);
    let s = dir(&bytes)[section_index(&bytes, SectionKind::Strings)];
    let end = (s.offset() + s.stored_size()) as usize;
    bytes[end - 1] = 0xFF; // last byte of the last string
    refix(&mut bytes);
    assert_eq!(kind_of(&bytes), ErrorKind::BadString);
    // A reference past the end of a blob's string bytes.
    let mut b = ReflectionBuilder::new();
    b.intern("abc");
    b.push(StringRef { offset: 2, len: 5 });
    assert_eq!(
        kind_of(&package_with_blob(b.finish())),
        ErrorKind::BadString
    );
}

#[test]
fn error_index_out_of_range() {
    let mut b = ReflectionBuilder::new();
    b.push(Type {
        name: 999,
        ..Type::default()
    });
    let e = open_all(&package_with_blob(b.finish())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexOutOfRange);
    assert!(e.message().contains("types[0].name"), "{e}");

    let mut b = ReflectionBuilder::new();
    b.push(TypeLayout {
        field_pool: 0,
        field_count: 2,
        ..TypeLayout::default()
    });
    b.push_pool(&[0]);
    assert_eq!(
        kind_of(&package_with_blob(b.finish())),
        ErrorKind::IndexOutOfRange
    );

    let mut b = ReflectionBuilder::new();
    b.scalars_mut().root_decl = 3;
    assert_eq!(
        kind_of(&package_with_blob(b.finish())),
        ErrorKind::IndexOutOfRange
    );

    // The header's entry-point count: at most the entry-point table's records.
    let mut b = ReflectionBuilder::new();
    b.scalars_mut().entry_point_count = 0x7FFF_FFFF;
    let e = open_all(&package_with_blob(b.finish())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexOutOfRange);
    assert!(e.message().contains("entry_point_count"), "{e}");

    // A container index: an entry point naming a SPIR-V module that does not exist.
    let bytes = sample_package(Compression::Zstd);
    let mut secs = sections(&bytes);
    let eps = secs
        .iter_mut()
        .find(|s| s.kind == SectionKind::EntryPoints.to_raw())
        .unwrap();
    eps.stored[28..32].copy_from_slice(&9u32.to_le_bytes());
    assert_eq!(
        kind_of(&assemble_sections(&secs).unwrap()),
        ErrorKind::IndexOutOfRange
    );
}

/// A blob whose one target binding (HLSL, a texture) is edited by `edit`.
fn blob_with_target_binding(edit: impl FnOnce(&mut targets::TargetBinding)) -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let path = b.intern("gTex");
    let mut record = targets::TargetBinding {
        target: Target::Hlsl.to_raw(),
        path,
        code_name: path,
        binding: ABSENT,
        kind: TargetBindingKind::Texture.to_raw(),
        space: 0,
        index: 0,
        register_class: u32::from(b't'),
        count: 1,
        ..targets::TargetBinding::default()
    };
    edit(&mut record);
    b.push(record);
    b.finish()
}

#[test]
fn error_bad_value() {
    // A register class SPEC allows, then ESC, the C1 CSI, a class of another target, none.
    open_all(&package_with_blob(blob_with_target_binding(|_| {}))).unwrap();
    for class in [0x1b, 0x9b, u32::from(b'c'), 0, 0x174] {
        let bytes = package_with_blob(blob_with_target_binding(|r| r.register_class = class));
        let e = open_all(&bytes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BadValue, "{class:#x}: {e}");
        assert!(
            e.message().contains("target_bindings[0].register_class"),
            "{e}"
        );
    }
    // WGSL has no register classes.
    let bytes = package_with_blob(blob_with_target_binding(|r| {
        r.target = Target::Wgsl.to_raw();
        r.register_class = u32::from(b't');
    }));
    assert_eq!(kind_of(&bytes), ErrorKind::BadValue);
}

#[test]
fn error_bad_key_index() {
    let bytes = sample_package(Compression::Zstd);
    // 2.0 has no key index: one is refused at open.
    let mut secs = sections(&bytes);
    let at = secs
        .iter()
        .position(|s| s.kind == SectionKind::Dependencies.to_raw())
        .unwrap();
    let mut index = secs[at].clone();
    index.kind = SectionKind::KeyIndex.to_raw();
    index.stride = 12;
    index.count = 0;
    index.stored.clear();
    index.raw_size = 0;
    secs.insert(at, index);
    let e = Package::from_bytes(&assemble_sections(&secs).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadKeyIndex);
    assert!(e.message().contains("key index"), "{e}");

    // Keys out of order, or a key string out of range: refused at open.
    let mut secs = sections(&bytes);
    let entries = secs
        .iter_mut()
        .find(|s| s.kind == SectionKind::Entries.to_raw())
        .unwrap();
    let (a, b) = entries.stored.split_at_mut(48);
    a.swap_with_slice(&mut b[..48]); // keys no longer sorted
    let e = Package::from_bytes(&assemble_sections(&secs).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadKeyIndex);
    assert!(e.message().contains("not strictly sorted"), "{e}");
    let mut secs = sections(&bytes);
    let entries = secs
        .iter_mut()
        .find(|s| s.kind == SectionKind::Entries.to_raw())
        .unwrap();
    entries.stored[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = Package::from_bytes(&assemble_sections(&secs).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexOutOfRange);
}

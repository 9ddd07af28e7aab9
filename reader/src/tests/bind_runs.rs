//! Bind-view runs (2.8, SPEC.md 6.1.1): the bind views of consecutive blobs sharing raw tables
//! in one frame, read in any order from any number of packages, their shapes and bounds
//! checked at the load.

use super::*;

/// How many entries [`runs_package`] holds.
const BLOBS: u32 = 60;

/// Entry `k`'s blob: [`sample_blob`] with `reserved1` (in the bind view) set to `k`, so that
/// every blob differs in its bind view alone.
fn blob(k: u32) -> Vec<u8> {
    let mut b = sample_blob();
    b[60..64].copy_from_slice(&k.to_le_bytes());
    b
}

/// A package of [`BLOBS`] entries, SPIR-V compressed (the writer's default layout): their
/// blobs share raw tables, the first holds them and the others' bind views are in runs.
fn runs_package() -> Vec<u8> {
    package_of(BLOBS)
}

/// [`runs_package`] of `n` entries.
fn package_of(n: u32) -> Vec<u8> {
    package_with(n, false)
}

/// [`package_of`], with a compressed index when `index`.
pub(super) fn package_with(n: u32, index: bool) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    p.set_spirv_compression(Compression::Zstd);
    p.set_compressed_index(index);
    for k in 0..n {
        let spirv = [0x0723_0203, 0x0001_0600, 0, 16 + k, 0];
        add_compute_entry(&mut p, &format!("perm|K={k:03}"), &spirv, blob(k));
    }
    p.finish().unwrap()
}

/// Entry `k`'s blob, as `pkg` serves it: its bind view (the load), then all of it.
fn served(pkg: &Package, k: u32) -> crate::Result<Vec<u8>> {
    let e = pkg.load(&format!("perm|K={k:03}"))?;
    let reflection = e.reflection()?;
    Ok(reflection.as_bytes().to_vec())
}

/// The indices of the reflection sections of `secs`.
fn reflections(secs: &[RawSection]) -> Vec<usize> {
    (0..secs.len())
        .filter(|&i| secs[i].kind == SectionKind::Reflection.to_raw())
        .collect()
}

/// The raw bytes of the package's `Dictionary` section, if any.
fn dictionary(secs: &[RawSection]) -> Option<Vec<u8>> {
    let d = secs
        .iter()
        .find(|s| s.kind == SectionKind::Dictionary.to_raw())?;
    Some(d.decompressed(None).unwrap().stored)
}

/// `secs` (a package's sections, from [`runs_package`]) with the blobs after the first laid out
/// again as bind-view runs of `lens[k]` blobs each, in turn: every blob of a run but the last
/// stored `InBindRun`, the last holding one frame (zstd level 3, with the package's dictionary)
/// of `views` of them (their bind views, unless a test changes them).
fn in_runs(
    secs: &[RawSection],
    lens: &[usize],
    views: &dyn Fn(usize, &[u8]) -> Vec<u8>,
) -> Vec<RawSection> {
    let mut secs = secs.to_vec();
    let r = reflections(&secs);
    let dict = dictionary(&secs);
    let mut c = match &dict {
        Some(d) => zstd::bulk::Compressor::with_dictionary(3, d).unwrap(),
        None => zstd::bulk::Compressor::new(3).unwrap(),
    };
    c.set_parameter(zstd::zstd_safe::CParameter::DictIdFlag(false))
        .unwrap();
    let mut at = 1;
    for &len in lens {
        let mut content = Vec::new();
        for (k, &i) in r[at..at + len].iter().enumerate() {
            let whole = blob((at + k) as u32);
            let view = &whole[..header_of(&whole).tables_offset as usize];
            content.extend(views(at + k, view));
            let s = &mut secs[i];
            s.count = (i - r[0]) as u32;
            if k + 1 < len {
                s.compression = Compression::InBindRun.to_raw();
                s.stored = Vec::new();
            } else {
                s.compression = Compression::ZstdSharedTables.to_raw();
                s.stored = c.compress(&content).unwrap();
            }
        }
        at += len;
    }
    secs
}

/// The reflection header of `blob`.
fn header_of(blob: &[u8]) -> ReflectionHeader {
    ReflectionHeader::read_from_prefix(blob).unwrap().0
}

/// The views of a run as they are.
fn same(_: usize, view: &[u8]) -> Vec<u8> {
    view.to_vec()
}

#[test]
fn the_writer_stores_bind_views_sharing_raw_tables_in_runs() {
    let bytes = runs_package();
    let secs = sections_of(&bytes);
    let r = reflections(&secs);
    let kinds: Vec<Compression> = r
        .iter()
        .map(|&i| Compression::from_raw(secs[i].compression))
        .collect();
    assert_eq!(kinds[0], Compression::ZstdSplitDictionaries);
    let members = kinds
        .iter()
        .filter(|&&c| c == Compression::InBindRun)
        .count();
    let holders = kinds
        .iter()
        .filter(|&&c| c == Compression::ZstdSharedTables)
        .count();
    assert!(members > 0 && holders > 0, "{kinds:?}");
    assert_eq!(members + holders + 1, BLOBS as usize);
    // Every blob, out of its run by the tools' reading too.
    let dict = dictionary(&secs);
    let tables = secs
        .iter()
        .find(|s| s.kind == SectionKind::TablesDictionary.to_raw())
        .map(|s| s.decompressed(None).unwrap().stored);
    for (k, &i) in r.iter().enumerate().skip(1) {
        let whole = bind_run_decompressed(&secs, i, dict.as_deref(), tables.as_deref());
        match bind_run_of(&secs, i) {
            Some(_) => assert_eq!(whole.unwrap().stored, blob(k as u32), "blob {k}"),
            None => assert!(whole.is_none()),
        }
    }
}

#[test]
fn blobs_of_runs_load_in_any_order_from_several_packages() {
    let bytes = runs_package();
    let laid_out =
        assemble_sections(&in_runs(&sections_of(&bytes), &[7, 1, 12, 20, 19], &same)).unwrap();
    let ours = Package::from_bytes(&bytes).unwrap();
    let theirs = Package::from_bytes(&laid_out).unwrap();
    for j in 0..BLOBS {
        let k = (j * 17 + 3) % BLOBS;
        for pkg in [&ours, &theirs] {
            assert_eq!(served(pkg, k).unwrap(), blob(k), "blob {k}");
        }
    }
    // The bind view alone, from other threads, each in its own order.
    std::thread::scope(|s| {
        for t in 0..4 {
            let (bytes, laid_out) = (&bytes, &laid_out);
            s.spawn(move || {
                let (ours, theirs) = (
                    Package::from_bytes(bytes).unwrap(),
                    Package::from_bytes(laid_out).unwrap(),
                );
                for j in 0..BLOBS {
                    let k = (j * 7 + t * 11) % BLOBS;
                    let key = format!("perm|K={k:03}");
                    for pkg in [&ours, &theirs] {
                        assert!(pkg.load_bind(&key).is_ok(), "{key}");
                        assert_eq!(served(pkg, k).unwrap(), blob(k));
                    }
                }
            });
        }
    });
    for b in [&bytes, &laid_out] {
        let pkg = open_all(b).unwrap();
        pkg.check_checksums().unwrap();
        for k in 0..BLOBS {
            assert_eq!(served(&pkg, k).unwrap(), blob(k));
        }
    }
}

#[test]
fn a_damaged_run_fails_its_blobs_alone() {
    let secs = in_runs(&sections_of(&runs_package()), &[10, 10, 39], &same);
    let holder = reflections(&secs)[20];
    let mut bytes = assemble_sections(&secs).unwrap();
    let at = dir(&bytes)[holder].offset() as usize;
    bytes[at + 6] ^= 0x40;
    let pkg = Package::from_bytes(&bytes).unwrap();
    for k in 0..BLOBS {
        match k {
            11..=20 => {
                let e = served(&pkg, k).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::ChecksumMismatch, "blob {k}");
            }
            _ => assert_eq!(served(&pkg, k).unwrap(), blob(k), "blob {k}"),
        }
    }
}

#[test]
fn bind_run_shapes_and_bounds_are_checked_at_the_load() {
    let secs = in_runs(&sections_of(&runs_package()), &[20, 39], &same);
    let r = reflections(&secs);
    let (holder, last) = (r[20], r[59]);
    let fails = |s: &[RawSection], k: u32| {
        let pkg = Package::from_bytes(&assemble_sections(s).unwrap()).unwrap();
        // The other run loads whatever this one holds.
        let other = if k <= 20 { 30 } else { 5 };
        assert_eq!(served(&pkg, other).unwrap(), blob(other));
        served(&pkg, k).unwrap_err().kind()
    };
    // The second run ended by a blob stored with its own two frames: its other blobs have no
    // holder.
    let mut unended = secs.clone();
    unended[last] = sections_of(&runs_package())[r[0]].clone();
    unended[last].count = 0;
    assert_eq!(fails(&unended, 40), ErrorKind::Decompress);
    // Bytes left over after the holder's view: its own load fails, the others load.
    let over = in_runs(
        &sections_of(&runs_package()),
        &[20, 39],
        &|k, v: &[u8]| match k {
            59 => [v, &[0u8; 8]].concat(),
            _ => v.to_vec(),
        },
    );
    assert_eq!(fails(&over, 59), ErrorKind::Decompress);
    let pkg = Package::from_bytes(&assemble_sections(&over).unwrap()).unwrap();
    assert_eq!(served(&pkg, 40).unwrap(), blob(40));
    // A view stating a `tables_offset` past the frame (or below its header, or not less than
    // its blob): the views after it cannot be found.
    for bad in [1u32 << 20, 8, 0] {
        let broken = in_runs(&sections_of(&runs_package()), &[20, 39], &|k, v: &[u8]| {
            let mut v = v.to_vec();
            if k == 30 {
                v[56..60].copy_from_slice(&bad.to_le_bytes());
            }
            v
        });
        assert_eq!(fails(&broken, 45), ErrorKind::Decompress, "{bad}");
        assert_eq!(fails(&broken, 30), ErrorKind::Decompress, "{bad}");
    }
    // The holder's frame declaring no content size, or more than the bound: refused before
    // anything is decompressed.
    let mut unsized_frame = secs.clone();
    let content = bind_views(&secs, 21..60);
    let mut c = zstd::bulk::Compressor::new(3).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(false))
        .unwrap();
    unsized_frame[last].stored = c.compress(&content).unwrap();
    assert_eq!(fails(&unsized_frame, 40), ErrorKind::Decompress);
    let mut huge = secs.clone();
    let most = limits::MAX_BIND_RUN_SIZE as usize;
    huge[last].stored = zstd::bulk::compress(&vec![0u8; most + 1], 3).unwrap();
    assert_eq!(fails(&huge, 40), ErrorKind::LimitExceeded);
    huge[last].stored = zstd::bulk::compress(&vec![0u8; most], 3).unwrap();
    assert_eq!(fails(&huge, 40), ErrorKind::Decompress);
    // The holder's raw size a view shorter: its view no longer fits in it.
    let mut short = secs.clone();
    short[holder].raw_size = u64::from(header_of(&blob(20)).tables_offset);
    assert_eq!(fails(&short, 20), ErrorKind::Decompress);
}

/// The bind views of `blob(k)` for `ks`, back to back, as a run's frame holds them.
fn bind_views(_: &[RawSection], ks: std::ops::Range<u32>) -> Vec<u8> {
    ks.flat_map(|k| {
        let whole = blob(k);
        whole[..header_of(&whole).tables_offset as usize].to_vec()
    })
    .collect()
}

#[test]
fn bind_run_records_are_checked_at_open() {
    let secs = in_runs(&sections_of(&runs_package()), &[20, 39], &same);
    let r = reflections(&secs);
    let open_kind = |s: &[RawSection]| {
        Package::from_bytes(&assemble_sections(s).unwrap())
            .unwrap_err()
            .kind()
    };
    // Stored bytes in a member.
    let mut stored = secs.clone();
    stored[r[3]].stored = vec![0; 8];
    assert_eq!(open_kind(&stored), ErrorKind::SizeMismatch);
    // A member naming no section before it, or itself, for its raw tables.
    for count in [0, r[3] as u32 + 1] {
        let mut far = secs.clone();
        far[r[3]].count = count;
        assert_eq!(open_kind(&far), ErrorKind::IndexOutOfRange, "{count}");
    }
    // `InBindRun` on a module.
    let mut module = secs.clone();
    let spirv = module
        .iter()
        .position(|s| s.kind == SectionKind::Spirv.to_raw())
        .unwrap();
    module[spirv].compression = Compression::InBindRun.to_raw();
    module[spirv].stored = Vec::new();
    module[spirv].count = 1;
    assert_eq!(open_kind(&module), ErrorKind::UnsupportedCompression);
}

#[test]
fn a_run_holds_at_most_256_sections() {
    let most = limits::MAX_BIND_RUN_SECTIONS as usize;
    let secs = sections_of(&package_of(300));
    let r = reflections(&secs);
    let open = |lens: &[usize]| {
        let laid_out = assemble_sections(&in_runs(&secs, lens, &same)).unwrap();
        Package::from_bytes(&laid_out).unwrap()
    };
    // A run of 256 sections loads from either end; the blobs after it too.
    let pkg = open(&[most, 299 - most]);
    for k in [1, most as u32, most as u32 + 1, 299] {
        assert_eq!(served(&pkg, k).unwrap(), blob(k), "blob {k}");
    }
    // 257: every blob of the run is refused for its length.
    let pkg = open(&[most + 1, 298 - most]);
    let kind = |k: u32| served(&pkg, k).unwrap_err().kind();
    for k in [1, most as u32, most as u32 + 1] {
        assert_eq!(kind(k), ErrorKind::LimitExceeded, "blob {k}");
    }
    assert_eq!(served(&pkg, 299).unwrap(), blob(299));
    // 258: its first member finds no holder within 256 sections.
    let pkg = open(&[most + 2, 297 - most]);
    assert_eq!(served(&pkg, 1).unwrap_err().kind(), ErrorKind::Decompress);
    assert_eq!(
        served(&pkg, 2).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    assert_eq!(r.len(), 300);
}

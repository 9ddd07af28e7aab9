//! Lazy loading: open checks no entry, a load checks the entry's sections once, and a
//! failed section fails only the entries that use it.

use super::*;

#[test]
fn open_checks_no_entry_and_a_corrupt_entry_fails_at_its_load() {
    for compression in [Compression::Zstd, Compression::None] {
        let mut bytes = sample_package(compression);
        let r = dir(&bytes)[section_index(&bytes, SectionKind::Reflection)];
        bytes[r.offset() as usize + r.stored_size() as usize / 2] ^= 0x10;
        let pkg = Package::from_bytes(&bytes).expect("open does not read reflection");
        // The entry without reflection shares a SPIR-V module only: it loads.
        let copy = pkg.load("copy.slang|main").unwrap();
        assert_eq!(copy.entry_points().next().unwrap().spirv().len(), 5);
        // Both entries using the damaged blob fail, with the same error every time.
        for key in ["blur.slang|main|RADIUS=4", "blur.slang|main|RADIUS=2"] {
            let e = pkg.load(key).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ChecksumMismatch, "{e}");
            assert_eq!(e.offset(), r.offset());
            let again = pkg.load(key).unwrap_err();
            assert_eq!(again.to_string(), e.to_string());
        }
        assert_eq!(
            pkg.verify_all().unwrap_err().kind(),
            ErrorKind::ChecksumMismatch
        );
        assert!(pkg.is_loaded(2) && !pkg.is_loaded(0));
    }
}

#[test]
fn a_corrupt_spirv_module_fails_only_the_entries_using_it() {
    let mut bytes = sample_package(Compression::Zstd);
    let spirv: Vec<SectionRecord> = dir(&bytes)
        .into_iter()
        .filter(|r| r.section_kind() == SectionKind::Spirv)
        .collect();
    // The second module is used by RADIUS=4 only.
    bytes[spirv[1].offset() as usize] ^= 1;
    let pkg = Package::from_bytes(&bytes).unwrap();
    assert!(pkg.load("blur.slang|main|RADIUS=2").is_ok());
    assert!(pkg.load("copy.slang|main").is_ok());
    let e = pkg.load("blur.slang|main|RADIUS=4").unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (ErrorKind::ChecksumMismatch, spirv[1].offset())
    );
}

#[test]
fn load_bind_reads_the_bind_view_without_the_entry_s_code() {
    for compression in [Compression::Zstd, Compression::None] {
        let mut bytes = sample_package_with(|p| {
            p.set_reflection_compression(compression);
            p.set_spirv_compression(Compression::Zstd);
        });
        let spirv: Vec<SectionRecord> = dir(&bytes)
            .into_iter()
            .filter(|r| r.section_kind() == SectionKind::Spirv)
            .collect();
        // The module of RADIUS=4 damaged: its load fails, its bind view does not need it.
        bytes[spirv[1].offset() as usize] ^= 1;
        let pkg = Package::from_bytes(&bytes).unwrap();
        let before = pkg.owned_bytes();
        let key = "blur.slang|main|RADIUS=4";
        let bind = pkg.load_bind(key).unwrap();
        let owned = pkg.owned_bytes() - before;
        assert!(!pkg.is_loaded(1) && !pkg.is_loaded(2));
        let e = pkg.load(key).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::ChecksumMismatch, spirv[1].offset())
        );
        // The other entry of the blob: its module is in the same module run (2.7), whose
        // frame is the damaged one, so its load fails too; its bind view is the same blob's.
        assert_eq!(spirv[0].compression_kind(), Compression::InModuleRun);
        let e = pkg.load("blur.slang|main|RADIUS=2").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
        let other = pkg.load_bind("blur.slang|main|RADIUS=2").unwrap();
        assert!(std::ptr::eq(other.bindings(), bind.bindings()));
        assert_eq!(other.summary(), bind.summary());
        // Undamaged: the other entry's load after the bind view adds its module alone (not
        // the blob again, nor the run's other modules).
        let pkg = Package::from_bytes(&sample_package_with(|p| {
            p.set_reflection_compression(compression);
            p.set_spirv_compression(Compression::Zstd);
        }))
        .unwrap();
        let before = pkg.owned_bytes();
        pkg.load_bind(key).unwrap();
        assert_eq!(pkg.owned_bytes() - before, owned);
        pkg.load("blur.slang|main|RADIUS=2").unwrap();
        assert_eq!(
            pkg.owned_bytes() - before - owned,
            spirv[0].raw_size(),
            "{compression:?}"
        );
        assert_eq!(
            pkg.load_bind("nope").unwrap_err().kind(),
            ErrorKind::NotFound
        );
    }
}

#[test]
fn concurrent_loads_do_the_work_once_and_agree() {
    for compression in [Compression::Zstd, Compression::None] {
        let bytes = sample_package(compression);
        let pkg = Package::from_bytes(&bytes).unwrap();
        let before = pkg.owned_bytes();
        let keys: Vec<String> = pkg.keys().map(str::to_owned).collect();
        let seen: Vec<Vec<(usize, usize)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    let pkg = &pkg;
                    let keys = &keys;
                    s.spawn(move || {
                        // Each thread loads the entries in its own order.
                        (0..keys.len())
                            .map(|i| {
                                let key = &keys[(i + t) % keys.len()];
                                let e = pkg.load(key).unwrap();
                                let v = e.reflection().unwrap();
                                (e.index(), v.types().as_ptr() as usize)
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut by_entry = std::collections::BTreeMap::new();
        for (index, ptr) in seen.into_iter().flatten() {
            assert_eq!(
                *by_entry.entry(index).or_insert(ptr),
                ptr,
                "one blob per entry"
            );
        }
        // The shared blob was decompressed (or its strings copied) once, not per thread.
        let one_load = pkg.owned_bytes() - before;
        let again = Package::from_bytes(&bytes).unwrap();
        let single = again.owned_bytes();
        again.load(&keys[0]).unwrap().reflection().unwrap();
        assert_eq!(one_load, again.owned_bytes() - single);
    }
}

#[test]
fn handles_resolve_once_and_read_like_names() {
    let pkg = Package::from_bytes(&sample_package(Compression::Zstd)).unwrap();
    let bind = pkg.load("blur.slang|main|RADIUS=2").unwrap().bind();
    // The sample blob has no bind view: lookups and handles find nothing.
    assert!(bind.binding_handle("gTex").is_none());
    assert!(bind.member_handle("gTex.x").is_none());
}

#[test]
fn a_later_load_gives_the_entry_the_first_load_checked() {
    let bytes = sample_package(Compression::Zstd);
    let pkg = Package::from_bytes(&bytes).unwrap();
    let key = "blur.slang|main|RADIUS=4";
    let index = pkg.find(key).unwrap();
    assert!(pkg.loaded_at(index).is_none(), "not loaded before its load");
    let first = pkg.load(key).unwrap();
    let words = |e: &crate::Entry<'_>| {
        let ep = e.entry_points().next().unwrap();
        (ep.spirv().as_ptr(), ep.spirv().len())
    };
    let again = pkg.load(key).unwrap();
    assert_eq!(again.index(), first.index());
    assert_eq!(words(&again), words(&first), "the same borrowed module");
    assert_eq!(again.bind().bindings().len(), first.bind().bindings().len());
    let by_index = pkg.loaded_at(index).unwrap();
    assert_eq!(words(&by_index), words(&first));
}

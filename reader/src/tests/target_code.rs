//! Code for targets besides SPIR-V: round trips, the budget, and the entry-point targets
//! table's checks at open.

use super::compression::compressed_spirv_package;
use super::*;

const WGSL: &str = "@compute @workgroup_size(1) fn main() {}";
const HLSL: &str = "[numthreads(1, 1, 1)] void main() {}";

/// The sample package plus WGSL for two entries (sharing one blob) and HLSL for one.
fn package_with_targets(compression: Compression) -> Vec<u8> {
    use slangpack_format::{Target, TargetCodeDesc};
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(compression);
    let a = p.add_spirv(&[0x0723_0203, 0x0001_0600, 0, 10, 0]);
    let r = p.add_reflection(sample_blob());
    p.add_entry(entry("b", Some(r), a)).unwrap();
    p.add_entry(entry("a", Some(r), a)).unwrap();
    let code = |target, text: &str| TargetCodeDesc {
        target,
        entry_name: "main".into(),
        code: text.as_bytes().to_vec(),
    };
    p.add_target_code("b", 0, code(Target::Hlsl, HLSL)).unwrap();
    p.add_target_code("b", 0, code(Target::Wgsl, WGSL)).unwrap();
    p.add_target_code("a", 0, code(Target::Wgsl, WGSL)).unwrap();
    p.finish().unwrap()
}

/// A package whose entry (no reflection, SPIR-V stored raw) has `codes` as WGSL code of
/// `codes.len()` entry points, target code compressed.
fn package_with_code(codes: &[String]) -> Vec<u8> {
    use slangpack_format::{Target, TargetCodeDesc};
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::Zstd);
    let a = p.add_spirv(&[0x0723_0203, 0x0001_0600, 0, 10, 0]);
    let mut e = entry("k", None, a);
    let ep = e.entry_points[0].clone();
    e.entry_points = (0..codes.len())
        .map(|i| EntryPointDesc {
            name: format!("main{i}"),
            ..ep.clone()
        })
        .collect();
    p.add_entry(e).unwrap();
    for (i, code) in codes.iter().enumerate() {
        let desc = TargetCodeDesc {
            target: Target::Wgsl,
            entry_name: "main".into(),
            code: code.as_bytes().to_vec(),
        };
        p.add_target_code("k", i, desc).unwrap();
    }
    p.finish().unwrap()
}

#[test]
fn target_code_frames_declaring_more_than_the_budget_are_refused_at_open() {
    // Five frames of a few bytes each, each declaring 256 MiB of text: 1.25 GiB in all.
    let codes: Vec<String> = (0..5).map(|i| format!("// {i}\n{WGSL}")).collect();
    let bytes = package_with_code(&codes);
    Package::from_bytes(&bytes).unwrap().verify_all().unwrap();
    // (The builder refuses such a package: the directory is edited, its checksum redone.)
    let declare = |bytes: &[u8], kind: SectionKind, count: usize| {
        let mut out = bytes.to_vec();
        let mut edited = 0;
        for (i, r) in dir(bytes).iter().enumerate() {
            if r.section_kind() == kind && edited < count {
                assert_ne!(r.compression_kind(), Compression::None);
                out = edit_section(&out, i, |r| {
                    (r.raw_size_lo, r.raw_size_hi) = split_u64(limits::MAX_SECTION_RAW_SIZE);
                });
                edited += 1;
            }
        }
        assert_eq!(edited, count);
        out
    };
    let hostile = declare(&bytes, SectionKind::TargetCode, 5);
    assert!(hostile.len() < 4096, "{} bytes", hostile.len());
    let e = Package::from_bytes(&hostile).expect_err("refused at open");
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(
        e.message().contains("decompressed sections would reach"),
        "{e}"
    );
    // Dictionary-compressed SPIR-V: the same rule.
    let (bytes, _) = compressed_spirv_package();
    let e = Package::from_bytes(&declare(&bytes, SectionKind::Spirv, 5)).expect_err("over budget");
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
}

#[test]
fn compressed_text_code_is_decompressed_once_and_charged_once() {
    let text = format!("{WGSL}\n{}", "// padding\n".repeat(20_000));
    let bytes = package_with_code(std::slice::from_ref(&text));
    let package = Package::from_bytes(&bytes).unwrap();
    let before = package.owned_bytes();
    let entry = package.load("k").unwrap();
    let code = entry
        .entry_points()
        .next()
        .unwrap()
        .code(slangpack_format::Target::Wgsl)
        .unwrap();
    assert_eq!(code.text(), Some(text.as_str()));
    assert_eq!(package.owned_bytes() - before, text.len() as u64);
}

#[test]
fn target_code_round_trips_and_identical_code_is_stored_once() {
    use slangpack_format::Target;
    for compression in [Compression::Zstd, Compression::None] {
        let bytes = package_with_targets(compression);
        let pkg = Package::from_bytes(&bytes).unwrap();
        assert_eq!(pkg.target_code_count(), 2, "WGSL shared, HLSL once");
        let b = pkg.load("b").unwrap().entry_points().next().unwrap();
        let wgsl = b.code(Target::Wgsl).unwrap();
        assert_eq!(wgsl.text(), Some(WGSL));
        assert_eq!(wgsl.entry_name(), "main");
        assert_eq!(b.code(Target::Hlsl).unwrap().text(), Some(HLSL));
        assert_eq!(b.code(Target::Metal), None);
        let spirv = b.code(Target::Spirv).unwrap();
        assert_eq!(spirv.code(), crate::Code::Spirv(b.spirv()));
        let targets: Vec<Target> = b.targets().map(|t| t.target()).collect();
        assert_eq!(targets, [Target::Spirv, Target::Wgsl, Target::Hlsl]);
        let a = pkg.load("a").unwrap().entry_points().next().unwrap();
        assert_eq!(a.code(Target::Wgsl).unwrap().text(), Some(WGSL));
        assert_eq!(a.code(Target::Hlsl), None);
        // A package without further targets has no code at all.
        let plain = Package::from_bytes(&sample_package(compression)).unwrap();
        let ep = plain
            .entries()
            .next()
            .unwrap()
            .unwrap()
            .entry_points()
            .next()
            .unwrap();
        assert_eq!(ep.targets().len(), 1);
    }
}

#[test]
fn target_code_the_builder_refuses() {
    use slangpack_format::{BuildError, Target, TargetCodeDesc};
    let mut p = PackageBuilder::new();
    let a = p.add_spirv(&[0x0723_0203]);
    p.add_entry(entry("k", None, a)).unwrap();
    let desc = |target, code: &[u8]| TargetCodeDesc {
        target,
        entry_name: "main".into(),
        code: code.to_vec(),
    };
    let refused = |r: Result<(), BuildError>| matches!(r, Err(BuildError::InvalidTargetCode(_)));
    assert!(refused(p.add_target_code(
        "k",
        0,
        desc(Target::Spirv, b"x")
    )));
    assert!(refused(p.add_target_code("k", 1, desc(Target::Wgsl, b"x"))));
    assert!(refused(p.add_target_code(
        "k",
        0,
        desc(Target::Wgsl, &[0xff, 0xfe])
    )));
    assert!(matches!(
        p.add_target_code("nope", 0, desc(Target::Wgsl, b"x")),
        Err(BuildError::UnknownEntry(_))
    ));
    p.add_target_code("k", 0, desc(Target::Dxil, &[0xff, 0x00]))
        .unwrap();
    assert!(refused(p.add_target_code("k", 0, desc(Target::Dxil, b"y"))));
    let pkg = Package::from_bytes(&p.finish().unwrap()).unwrap();
    let ep = pkg.load("k").unwrap().entry_points().next().unwrap();
    let dxil = ep.code(Target::Dxil).unwrap();
    assert_eq!(dxil.code(), crate::Code::Binary(&[0xff, 0x00]));
    assert_eq!(dxil.text(), None);
}

/// `is_loaded` tells of the entry itself: not of another entry that shares its sections, nor
/// of one whose load failed after its sections loaded (the fuzz walk now asserts both).
#[test]
fn is_loaded_only_after_the_entry_itself_loaded() {
    let mut p = PackageBuilder::new();
    let a = p.add_spirv(&[0x0723_0203, 0x0001_0600, 0, 10, 0]);
    let r = p.add_reflection(sample_blob());
    p.add_entry(entry("a", Some(r), a)).unwrap();
    p.add_entry(entry("b", Some(r), a)).unwrap();
    let mut bad = entry("c", Some(r), a);
    bad.entry_points[0].reflection_entry_point = Some(1000);
    p.add_entry(bad).unwrap();
    let pkg = Package::from_bytes(&p.finish().unwrap()).unwrap();
    let (a, b, c) = (
        pkg.find("a").unwrap(),
        pkg.find("b").unwrap(),
        pkg.find("c").unwrap(),
    );
    assert!(!pkg.is_loaded(a) && !pkg.is_loaded(b));
    pkg.load("a").unwrap();
    assert!(pkg.is_loaded(a));
    assert!(
        !pkg.is_loaded(b),
        "b shares a's sections but was never loaded"
    );
    assert_eq!(
        pkg.load("c").unwrap_err().kind(),
        ErrorKind::IndexOutOfRange
    );
    assert!(!pkg.is_loaded(c) && pkg.loaded_at(c).is_none());
    assert!(pkg.verify_all().is_err());
    assert!(pkg.is_loaded(b), "verify_all loaded b");
    assert!(!pkg.is_loaded(pkg.len()));
}

/// The same bytes as a text target's and a binary target's code (empty here) are two blobs:
/// the format forbids a blob named by both (SPEC.md 5.7), so sharing one would make the
/// builder write a package the reader refuses (`build_and_read` now builds such packages).
#[test]
fn identical_text_and_binary_code_are_stored_apart() {
    use slangpack_format::{Target, TargetCodeDesc};
    for code in [&b""[..], b"main"] {
        let mut p = PackageBuilder::new();
        let a = p.add_spirv(&[0x0723_0203]);
        p.add_entry(entry("k", None, a)).unwrap();
        for target in [
            Target::Wgsl,
            Target::Dxil,
            Target::Glsl,
            Target::from_raw(7),
        ] {
            let desc = TargetCodeDesc {
                target,
                entry_name: "main".into(),
                code: code.to_vec(),
            };
            p.add_target_code("k", 0, desc).unwrap();
        }
        let pkg = Package::from_bytes(&p.finish().unwrap()).unwrap();
        pkg.verify_all().unwrap();
        assert_eq!(pkg.target_code_count(), 2, "one text blob, one binary blob");
        let ep = pkg.load("k").unwrap().entry_points().next().unwrap();
        for target in [Target::Wgsl, Target::Glsl] {
            assert_eq!(
                ep.code(target).unwrap().code(),
                crate::Code::Text(core::str::from_utf8(code).unwrap())
            );
        }
        for target in [Target::Dxil, Target::from_raw(7)] {
            assert_eq!(ep.code(target).unwrap().code(), crate::Code::Binary(code));
        }
    }
}

/// Rewrites the entry-point targets table of `bytes` with `f`.
fn edit_targets(
    bytes: &[u8],
    f: impl FnOnce(&mut Vec<slangpack_format::EntryPointTargetRecord>),
) -> Vec<u8> {
    let mut secs = sections(bytes);
    let s = secs
        .iter_mut()
        .find(|s| s.kind == SectionKind::EntryPointTargets.to_raw())
        .unwrap();
    let mut records = <[slangpack_format::EntryPointTargetRecord]>::ref_from_bytes(&s.stored)
        .unwrap()
        .to_vec();
    f(&mut records);
    s.stored = records.as_bytes().to_vec();
    s.raw_size = s.stored.len() as u64;
    s.count = records.len() as u32;
    assemble_sections(&secs).unwrap()
}

#[test]
fn target_tables_are_checked_at_open() {
    use slangpack_format::Target;
    let bytes = package_with_targets(Compression::None);
    let kind = |f: &dyn Fn(&mut Vec<slangpack_format::EntryPointTargetRecord>)| {
        kind_of(&edit_targets(&bytes, f))
    };
    assert_eq!(kind(&|r| r.swap(0, 1)), ErrorKind::BadKeyIndex);
    assert_eq!(kind(&|r| r[0].entry_point = 99), ErrorKind::IndexOutOfRange);
    assert_eq!(kind(&|r| r[0].code = 99), ErrorKind::IndexOutOfRange);
    assert_eq!(
        kind(&|r| r[0].entry_name = 9999),
        ErrorKind::IndexOutOfRange
    );
    assert_eq!(
        kind(&|r| r[0].target = Target::Spirv.to_raw()),
        ErrorKind::IndexOutOfRange
    );
    // A text blob named by a binary target too.
    assert_eq!(
        kind(&|r| r[0].target = Target::Dxil.to_raw()),
        ErrorKind::BadString
    );
    // Non-UTF-8 text.
    let mut secs = sections(&bytes);
    let code = secs
        .iter_mut()
        .find(|s| s.kind == SectionKind::TargetCode.to_raw())
        .unwrap();
    code.stored[0] = 0xff;
    assert_eq!(
        kind_of(&assemble_sections(&secs).unwrap()),
        ErrorKind::BadString
    );
    // Code is checked with the entries that use it, not at open: damage the HLSL, which only
    // "b" uses; "b" fails to load (again on every try) and "a" (WGSL only) loads.
    let mut secs = sections(&bytes);
    let hlsl = secs
        .iter_mut()
        .find(|s| s.kind == SectionKind::TargetCode.to_raw() && s.stored == HLSL.as_bytes())
        .unwrap();
    hlsl.stored[0] = 0xff;
    let pkg =
        Package::from_bytes(&assemble_sections(&secs).unwrap()).expect("code is not read at open");
    assert_eq!(pkg.load("b").unwrap_err().kind(), ErrorKind::BadString);
    assert_eq!(pkg.load("b").unwrap_err().kind(), ErrorKind::BadString);
    let a = pkg.load("a").expect("its code is intact");
    let ep = a.entry_points().next().unwrap();
    assert_eq!(ep.code(Target::Wgsl).and_then(|c| c.text()), Some(WGSL));
    // A second table.
    let mut secs = sections(&bytes);
    let table = secs
        .iter()
        .find(|s| s.kind == SectionKind::EntryPointTargets.to_raw())
        .unwrap()
        .clone();
    secs.push(table);
    assert_eq!(
        kind_of(&assemble_sections(&secs).unwrap()),
        ErrorKind::Duplicate
    );
}

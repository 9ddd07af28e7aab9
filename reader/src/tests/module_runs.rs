//! Module runs (2.7, SPEC.md 5.6.2): consecutive packed modules in one frame, read in any order
//! from any number of packages, their shapes and bounds checked at the load.

use super::compression::compressed_spirv_package;
use super::*;

/// `bytes`' sections with its modules (`modules`, stored in order from the first `Spirv`
/// section) laid out again as module runs of `lens[k]` modules each, in turn: every module of
/// a run but the last stored `InModuleRun`, the last holding one frame (zstd level 3, no
/// dictionary) of all their packed bytes. No record gives its module's packed length (as in
/// 2.7 and 2.8: a load steps over the modules before its own by their words).
fn in_runs(bytes: &[u8], modules: &[Vec<u32>], lens: &[usize]) -> Vec<RawSection> {
    let mut secs = sections(bytes);
    let first = secs
        .iter()
        .position(|s| s.kind == SectionKind::Spirv.to_raw())
        .unwrap();
    let mut at = 0;
    for &len in lens {
        let run = &modules[at..at + len];
        let packed: Vec<u8> = run.iter().flat_map(|m| pack_spirv(m)).collect();
        for (k, module) in run.iter().enumerate() {
            let s = &mut secs[first + at + k];
            s.raw_size = module.len() as u64 * 4;
            s.count = 0;
            if k + 1 < len {
                s.compression = Compression::InModuleRun.to_raw();
                s.stored = Vec::new();
            } else {
                s.compression = Compression::ZstdPackedSpirv.to_raw();
                s.stored = zstd::bulk::compress(&packed, 3).unwrap();
            }
        }
        at += len;
    }
    secs
}

/// [`in_runs`], with every module of a run of more than one giving its packed length in its
/// record (2.9).
fn in_runs_declared(bytes: &[u8], modules: &[Vec<u32>], lens: &[usize]) -> Vec<RawSection> {
    let mut secs = in_runs(bytes, modules, lens);
    let first = first_module(&secs);
    let mut at = 0;
    for &len in lens {
        for k in (0..len).filter(|_| len > 1) {
            secs[first + at + k].count = pack_spirv(&modules[at + k]).len() as u32;
        }
        at += len;
    }
    secs
}

/// Entry `n`'s module, as `pkg` serves it.
fn module(pkg: &Package, n: usize) -> crate::Result<Vec<u32>> {
    let e = pkg.load(&format!("perm.slang|main|N={n:02}"))?;
    Ok(e.entry_points().next().unwrap().spirv().to_vec())
}

/// The index of the first `Spirv` section of `secs`.
fn first_module(secs: &[RawSection]) -> usize {
    secs.iter()
        .position(|s| s.kind == SectionKind::Spirv.to_raw())
        .unwrap()
}

#[test]
fn modules_of_runs_load_in_any_order_from_several_packages() {
    let (bytes, modules) = compressed_spirv_package();
    let laid_out = assemble_sections(&in_runs(&bytes, &modules, &[7, 1, 12, 20])).unwrap();
    let declared = assemble_sections(&in_runs_declared(&bytes, &modules, &[3, 17, 1, 19])).unwrap();
    // The builder's own runs, and these, open side by side: a thread's buffer of the run read
    // last is the right package's and the right run's.
    let ours = Package::from_bytes(&bytes).unwrap();
    let theirs = Package::from_bytes(&laid_out).unwrap();
    let lengths = Package::from_bytes(&declared).unwrap();
    assert!(dir(&bytes)
        .iter()
        .any(|r| r.compression_kind() == Compression::InModuleRun));
    for k in 0..modules.len() {
        let n = (k * 17 + 3) % modules.len();
        for pkg in [&ours, &theirs, &lengths] {
            assert_eq!(module(pkg, n).unwrap(), modules[n], "module {n}");
        }
    }
    // From other threads, each in its own order; then a full check of fresh packages.
    std::thread::scope(|s| {
        for t in 0..4 {
            let (ours, theirs, lengths, modules) = (&ours, &theirs, &lengths, &modules);
            s.spawn(move || {
                for k in 0..modules.len() {
                    let n = (k * 7 + t * 11) % modules.len();
                    assert_eq!(module(theirs, n).unwrap(), modules[n]);
                    assert_eq!(module(ours, n).unwrap(), modules[n]);
                    assert_eq!(module(lengths, n).unwrap(), modules[n]);
                }
            });
        }
    });
    for b in [&bytes, &laid_out, &declared] {
        let pkg = open_all(b).unwrap();
        for (n, words) in modules.iter().enumerate() {
            assert_eq!(&module(&pkg, n).unwrap(), words);
        }
    }
}

#[test]
fn the_builder_gives_each_module_of_a_run_its_packed_length() {
    let (bytes, modules) = compressed_spirv_package();
    let secs = dir(&bytes);
    let first = secs
        .iter()
        .position(|r| r.section_kind() == SectionKind::Spirv)
        .unwrap();
    let mut in_run = 0;
    for (n, words) in modules.iter().enumerate() {
        let rec = &secs[first + n];
        let member = rec.compression_kind() == Compression::InModuleRun;
        let holder = n > 0 && secs[first + n - 1].compression_kind() == Compression::InModuleRun;
        let want = match member || holder {
            true => pack_spirv(words).len() as u32,
            false => 0,
        };
        assert_eq!(rec.record_count, want, "module {n}");
        in_run += usize::from(member || holder);
    }
    assert!(in_run > 2, "{in_run} modules in runs");
}

#[test]
fn the_builder_leaves_out_packed_lengths_that_cost_more_than_a_hundredth() {
    // 600 modules of a header and some `OpNop`s: the same number in each (lengths that cost
    // nothing), or a number that varies from module to module (lengths that cost about a byte
    // each, several percent of a package whose modules compress to almost nothing). In a
    // compressed index: a plain directory has room for them anyway.
    let build = |nops: &dyn Fn(u32) -> u32| {
        let mut p = PackageBuilder::new();
        p.set_spirv_compression(Compression::Zstd)
            .set_compressed_index(true);
        let mut modules = Vec::new();
        for n in 0..600u32 {
            let mut words = vec![0x0723_0203, 0x0001_0600, 0, n, 0];
            words.extend(std::iter::repeat_n(0x0001_0000, nops(n) as usize));
            let spirv = p.add_spirv(&words);
            p.add_entry(entry(&format!("perm.slang|main|N={n:03}"), None, spirv))
                .unwrap();
            modules.push(words);
        }
        (p.finish().unwrap(), modules)
    };
    let given = |bytes: &[u8]| {
        Package::from_bytes(bytes)
            .unwrap()
            .sections()
            .filter(|r| r.section_kind() == SectionKind::Spirv && r.record_count != 0)
            .count()
    };
    let (same, same_modules) = build(&|_| 40);
    let (varied, varied_modules) = build(&|n| n.wrapping_mul(2_654_435_761) >> 26);
    assert!(given(&same) > 500, "{} lengths given", given(&same));
    assert_eq!(given(&varied), 0);
    // Both load every module, with their lengths or by stepping.
    for (bytes, modules) in [(&same, &same_modules), (&varied, &varied_modules)] {
        let pkg = Package::from_bytes(bytes).unwrap();
        for n in (0..600).rev().step_by(7) {
            let e = pkg.load(&format!("perm.slang|main|N={n:03}")).unwrap();
            assert_eq!(e.entry_points().next().unwrap().spirv(), &modules[n][..]);
        }
    }
}

#[test]
fn packed_lengths_are_checked_where_a_load_takes_them() {
    let (bytes, modules) = compressed_spirv_package();
    let secs = in_runs_declared(&bytes, &modules, &[20, 20]);
    let first = first_module(&secs);
    let pkg_of = |s: &[RawSection]| Package::from_bytes(&assemble_sections(s).unwrap()).unwrap();
    // Module 5's length a byte long: its own load fails, and a later module of its run,
    // stepped to a byte late, does not load as it is; the other run loads.
    let mut long = secs.clone();
    long[first + 5].count += 1;
    let pkg = pkg_of(&long);
    assert_eq!(module(&pkg, 5).unwrap_err().kind(), ErrorKind::Decompress);
    assert_ne!(module(&pkg, 9).ok().as_ref(), Some(&modules[9]));
    assert_eq!(module(&pkg, 4).unwrap(), modules[4]);
    assert_eq!(module(&pkg, 25).unwrap(), modules[25]);
    // A length past the frame's content: the modules after it are not found.
    let mut past = secs.clone();
    past[first + 22].count = 1 << 20;
    let pkg = pkg_of(&past);
    for n in [22, 23, 39] {
        assert_eq!(module(&pkg, n).unwrap_err().kind(), ErrorKind::Decompress);
    }
    assert_eq!(module(&pkg, 21).unwrap(), modules[21]);
    // The holder's own length wrong: its load fails, the modules before it load.
    let mut holder = secs.clone();
    holder[first + 39].count -= 1;
    let pkg = pkg_of(&holder);
    assert_eq!(module(&pkg, 39).unwrap_err().kind(), ErrorKind::Decompress);
    assert_eq!(module(&pkg, 38).unwrap(), modules[38]);
    // Lengths given for some modules of a run and not others: both ways step alike.
    let mut mixed = secs.clone();
    for n in (0..40).step_by(3) {
        mixed[first + n].count = 0;
    }
    let pkg = pkg_of(&mixed);
    for n in (0..40).rev() {
        assert_eq!(module(&pkg, n).unwrap(), modules[n], "module {n}");
    }
}

#[test]
fn a_damaged_run_fails_its_modules_alone() {
    let (bytes, modules) = compressed_spirv_package();
    let secs = in_runs(&bytes, &modules, &[10, 10, 20]);
    let holder = first_module(&secs) + 19;
    let mut laid_out = assemble_sections(&secs).unwrap();
    let at = dir(&laid_out)[holder].offset() as usize;
    laid_out[at + 2] ^= 0x40;
    let pkg = Package::from_bytes(&laid_out).unwrap();
    for (n, words) in modules.iter().enumerate() {
        match n {
            10..=19 => {
                let e = module(&pkg, n).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::ChecksumMismatch, "module {n}");
            }
            _ => assert_eq!(&module(&pkg, n).unwrap(), words),
        }
    }
}

#[test]
fn module_run_shapes_and_bounds_are_checked_at_the_load() {
    let (bytes, modules) = compressed_spirv_package();
    let secs = in_runs(&bytes, &modules, &[20, 20]);
    let first = first_module(&secs);
    let (last, middle) = (first + 39, first + 5);
    let fails = |s: &[RawSection], n: usize| {
        let pkg = Package::from_bytes(&assemble_sections(s).unwrap()).unwrap();
        // The other run loads whatever this one holds.
        let other = if n < 20 { 20 } else { 0 };
        assert_eq!(module(&pkg, other).unwrap(), modules[other]);
        module(&pkg, n).unwrap_err().kind()
    };
    // The second run ended by a module stored plain zstd: its other modules have no holder.
    let mut unended = secs.clone();
    unended[last].compression = Compression::Zstd.to_raw();
    unended[last].stored = zstd::bulk::compress(modules[39].as_bytes(), 3).unwrap();
    assert_eq!(fails(&unended, 25), ErrorKind::Decompress);
    let pkg = Package::from_bytes(&assemble_sections(&unended).unwrap()).unwrap();
    assert_eq!(module(&pkg, 39).unwrap(), modules[39]);
    // Packed bytes left over after the holder's module: its own load fails, the others load.
    let mut over = secs.clone();
    let packed: Vec<u8> = modules[20..40].iter().flat_map(|m| pack_spirv(m)).collect();
    over[last].stored = zstd::bulk::compress(&[&packed[..], &[0]].concat(), 3).unwrap();
    assert_eq!(fails(&over, 39), ErrorKind::Decompress);
    let pkg = Package::from_bytes(&assemble_sections(&over).unwrap()).unwrap();
    assert_eq!(module(&pkg, 25).unwrap(), modules[25]);
    // The holder's raw size a word long: its module runs past the frame.
    let mut long = secs.clone();
    long[last].raw_size += 4;
    assert_eq!(fails(&long, 39), ErrorKind::Decompress);
    // A module's raw size so large that the run's frame could decompress past the bound:
    // refused before anything is decompressed (open takes it: it is within the budget).
    let mut huge = secs.clone();
    huge[middle].raw_size = 64 << 20;
    assert_eq!(fails(&huge, 5), ErrorKind::LimitExceeded);
    // Stored bytes in a module of a run: refused at open.
    let mut stored = secs.clone();
    stored[middle].stored = vec![0; 8];
    assert_eq!(
        kind_of(&assemble_sections(&stored).unwrap()),
        ErrorKind::SizeMismatch
    );
    // Only SPIR-V modules are in runs.
    let mut refl = secs.clone();
    let r = refl
        .iter()
        .position(|s| s.kind == SectionKind::Reflection.to_raw())
        .unwrap();
    refl[r].compression = Compression::InModuleRun.to_raw();
    refl[r].stored = Vec::new();
    assert_eq!(
        kind_of(&assemble_sections(&refl).unwrap()),
        ErrorKind::UnsupportedCompression
    );
}

#[test]
fn a_run_of_more_than_the_most_sections_is_refused() {
    let most = limits::MAX_MODULE_RUN_SECTIONS as usize;
    let mut p = PackageBuilder::new();
    p.set_spirv_compression(Compression::Zstd);
    let modules: Vec<Vec<u32>> = (0..most as u32 + 1)
        .map(|n| vec![0x0723_0203, 0x0001_0600, 0, n, 0])
        .collect();
    for (n, words) in modules.iter().enumerate() {
        let spirv = p.add_spirv(words);
        p.add_entry(entry(&format!("perm.slang|main|N={n:03}"), None, spirv))
            .unwrap();
    }
    let bytes = p.finish().unwrap();
    let load = |secs: &[RawSection], n: usize| {
        let pkg = Package::from_bytes(&assemble_sections(secs).unwrap()).unwrap();
        let e = pkg.load(&format!("perm.slang|main|N={n:03}"))?;
        Ok::<_, crate::Error>(e.entry_points().next().unwrap().spirv().to_vec())
    };
    // The most a run holds loads; one more is refused from either end.
    let fits = in_runs(&bytes, &modules, &[most, 1]);
    assert_eq!(load(&fits, 0).unwrap(), modules[0]);
    assert_eq!(load(&fits, most - 1).unwrap(), modules[most - 1]);
    let over = in_runs(&bytes, &modules, &[most + 1]);
    for n in [0, most] {
        let e = load(&over, n).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "module {n}");
    }
}

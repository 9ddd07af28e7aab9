use super::*;
use crate::reflection::REFLECTION_MAGIC;
use zerocopy::FromBytes;

#[test]
fn code_added_like_another_entry_point_s_is_stored_once() {
    let code = |target| TargetCodeDesc {
        target,
        entry_name: "main".into(),
        code: b"@compute @workgroup_size(1) fn main() {}".to_vec(),
    };
    let build = |like: bool| {
        let mut p = PackageBuilder::new();
        let s = p.add_spirv(&[0x0723_0203]);
        for key in ["a", "b"] {
            p.add_entry(compute_entry(key.into(), None, s)).unwrap();
        }
        p.add_target_code("a", 0, code(Target::Wgsl)).unwrap();
        if like {
            p.add_target_code_like("b", 0, Target::Wgsl, "main".into(), ("a", 0))
                .unwrap();
        } else {
            p.add_target_code("b", 0, code(Target::Wgsl)).unwrap();
        }
        p
    };
    // The same package as adding the same code again.
    assert_eq!(
        build(true).finish().unwrap(),
        build(false).finish().unwrap()
    );
    let mut p = build(true);
    for (key, ep, target, like) in [
        ("b", 0, Target::Glsl, ("a", 0)),
        ("b", 0, Target::Wgsl, ("a", 0)),
        ("b", 1, Target::Wgsl, ("a", 0)),
        ("c", 0, Target::Wgsl, ("a", 0)),
    ] {
        assert!(p
            .add_target_code_like(key, ep, target, "main".into(), like)
            .is_err());
    }
}

/// An entry keyed `key` with one compute entry point `main` of module `spirv`, without
/// dependencies.
pub(crate) fn compute_entry(key: String, reflection: Option<u32>, spirv: u32) -> EntryDesc {
    EntryDesc {
        key,
        reflection,
        entry_points: vec![EntryPointDesc {
            name: "main".into(),
            spirv_entry_name: "main".into(),
            stage: Stage::Compute,
            thread_group_size: [1, 1, 1],
            wave_size: 0,
            spirv,
            reflection_entry_point: None,
        }],
        dependencies: vec![],
        options_hash: 0,
    }
}

#[test]
fn reflection_builder_layout() {
    let mut b = ReflectionBuilder::new();
    assert_eq!(b.intern("a"), 0);
    assert_eq!(b.intern("bc"), 1);
    assert_eq!(b.intern("a"), 0);
    assert_eq!(b.push_pool(&[1, 2, 3]), 0);
    assert_eq!(b.push_pool(&[4]), 3);
    let blob = b.finish();
    let header = ReflectionHeader::read_from_prefix(&blob).unwrap().0;
    assert_eq!(header.magic, REFLECTION_MAGIC);
    assert_eq!(header.table_count, 3); // u32 pool, string refs, string bytes
    assert_eq!(blob.len() % 4, 0);
}

#[test]
fn package_is_deterministic_regardless_of_call_order() {
    let make = |reverse: bool| {
        let mut p = PackageBuilder::new();
        let mut order: Vec<u32> = (0..4).collect();
        if reverse {
            order.reverse();
        }
        for i in order {
            let spirv = p.add_spirv(&[0x0723_0203, i % 2]);
            let mut rb = ReflectionBuilder::new();
            rb.intern(&format!("r{}", i % 3));
            let refl = p.add_reflection(rb.finish());
            let mut entry = compute_entry(format!("k{i}"), Some(refl), spirv);
            entry.dependencies.push(DependencyDesc {
                path: "a.slang".into(),
                hash: 3,
            });
            p.add_entry(entry).unwrap();
        }
        p.finish().unwrap()
    };
    assert_eq!(make(false), make(true));
}

#[test]
fn duplicate_key_is_refused() {
    let mut p = PackageBuilder::new();
    let e = EntryDesc {
        key: "k".into(),
        reflection: None,
        entry_points: vec![],
        dependencies: vec![],
        options_hash: 0,
    };
    p.add_entry(e.clone()).unwrap();
    assert_eq!(p.add_entry(e), Err(BuildError::DuplicateKey("k".into())));
}

#[test]
fn raw_block_frames_decode_to_their_bytes() {
    for len in [0usize, 1, 6008, ZSTD_MAX_BLOCK, 2 * ZSTD_MAX_BLOCK + 17] {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        let frame = raw_blocks_frame(&bytes);
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(&frame).unwrap(),
            Some(len as u64)
        );
        assert_eq!(
            zstd::zstd_safe::find_frame_compressed_size(&frame).unwrap(),
            frame.len()
        );
        assert_eq!(zstd::bulk::decompress(&frame, len).unwrap(), bytes);
    }
}

#[test]
fn modules_by_value_or_borrowed_share_ids_and_stream_the_same_package() {
    let (a, b) = (vec![0x0723_0203, 1, 2], vec![0x0723_0203, 3]);
    let mut p = PackageBuilder::new();
    let first = p.add_spirv_words(a.clone());
    assert_eq!(p.add_spirv(&a), first, "an identical module shares the id");
    let second = p.add_spirv(&b);
    assert_eq!(p.add_spirv_words(b.clone()), second);
    assert_ne!(first, second);
    for (key, s) in [("a", first), ("b", second)] {
        p.add_entry(compute_entry(key.into(), None, s)).unwrap();
    }
    let mut q = PackageBuilder::new();
    let (qa, qb) = (q.add_spirv(&a), q.add_spirv(&b));
    for (key, s) in [("a", qa), ("b", qb)] {
        q.add_entry(compute_entry(key.into(), None, s)).unwrap();
    }
    let bytes = p.finish().unwrap();
    // Streamed to a writer: the same bytes, and their count.
    let mut streamed = Vec::new();
    assert_eq!(q.finish_to(&mut streamed).unwrap(), bytes.len() as u64);
    assert_eq!(streamed, bytes);
    // A writer that fails is a `Write` error, not a panic or a short package.
    struct Full(usize);
    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            match self.0.checked_sub(buf.len()) {
                Some(left) => {
                    self.0 = left;
                    Ok(buf.len())
                }
                None => Err(std::io::Error::other("disk full")),
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut r = PackageBuilder::new();
    let s = r.add_spirv(&a);
    r.add_entry(compute_entry("a".into(), None, s)).unwrap();
    assert_eq!(
        r.finish_to(&mut Full(100)).unwrap_err(),
        BuildError::Write("disk full".into())
    );
}

/// A builder holding `modules`, one entry each, SPIR-V stored as `compression` says.
fn spirv_package(
    modules: &[Vec<u32>],
    compression: Compression,
    spool: Option<std::fs::File>,
) -> PackageBuilder {
    let mut p = PackageBuilder::new();
    p.set_spirv_compression(compression);
    if let Some(file) = spool {
        p.spool_spirv(file);
    }
    for (i, words) in modules.iter().enumerate() {
        let id = p.add_spirv_words(words.clone());
        p.add_entry(compute_entry(format!("e{i}"), None, id))
            .unwrap();
    }
    p
}

#[test]
fn spooled_modules_make_the_same_package_and_stay_out_of_memory() {
    // Modules of a few words, one larger than a copy chunk, and repeats of both.
    let big: Vec<u32> = (0..50_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let mut modules: Vec<Vec<u32>> = (0..20u32)
        .map(|i| vec![0x0723_0203, 0x0001_0000, i % 7, i % 3, 5])
        .collect();
    modules.insert(3, big.clone());
    modules.push(big);
    for compression in [Compression::None, Compression::Zstd] {
        let plain = spirv_package(&modules, compression, None).finish().unwrap();
        let file = tempfile::tempfile().unwrap();
        let spooled = spirv_package(&modules, compression, Some(file.try_clone().unwrap()));
        // Equal modules share one id (compared against the spool), and every distinct one
        // went to the file.
        assert_eq!(
            spooled.spirv.len(),
            21,
            "20 distinct small modules and the large one"
        );
        assert!(spooled
            .spirv
            .iter()
            .all(|m| matches!(m, Module::Spooled { .. })));
        let distinct: u64 = spooled.spirv.iter().map(|m| m.len() as u64 * 4).sum();
        assert_eq!(file.metadata().unwrap().len(), distinct);
        let mut streamed = Vec::new();
        let n = spooled.finish_to(&mut streamed).unwrap();
        assert_eq!(n, plain.len() as u64);
        assert!(
            streamed == plain,
            "{compression:?}: spooling changed the package"
        );
    }
}

#[test]
fn a_spool_that_refuses_writes_keeps_modules_in_memory() {
    let modules = vec![
        vec![0x0723_0203, 1, 2],
        vec![0x0723_0203, 3],
        vec![0x0723_0203, 1, 2],
    ];
    let plain = spirv_package(&modules, Compression::None, None)
        .finish()
        .unwrap();
    // Opened for reading only: every write fails.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spool");
    std::fs::write(&path, b"").unwrap();
    let read_only = std::fs::File::open(&path).unwrap();
    let p = spirv_package(&modules, Compression::None, Some(read_only));
    assert!(p.spirv.iter().all(|m| matches!(m, Module::Words(_))));
    assert!(p.finish().unwrap() == plain);
}

#[test]
fn a_spool_that_cannot_be_read_back_is_an_error() {
    let modules = vec![vec![0x0723_0203, 1, 2], vec![0x0723_0203, 3]];
    let file = tempfile::tempfile().unwrap();
    let p = spirv_package(&modules, Compression::None, Some(file.try_clone().unwrap()));
    // The file loses what it held: the package cannot be laid out.
    file.set_len(0).unwrap();
    assert!(matches!(p.finish(), Err(BuildError::Spool(_))));
}

#[test]
fn module_sources_read_modules_in_layout_order_and_refuse_one_laid_out_twice() {
    let modules = vec![
        Module::Words(vec![0x0723_0203, 1, 2]),
        Module::Words(vec![0x0723_0203, 3]),
    ];
    let source = ModuleSource::new(modules, None, &[1, 0]).unwrap();
    assert_eq!((source.len(), source.bytes()), (2, 20));
    let mut seen = Vec::new();
    source
        .each(|k, m| {
            seen.push((k, m.to_vec()));
            Ok(())
        })
        .unwrap();
    assert_eq!(seen[0], (0, [0x0723_0203u32, 3].as_bytes().to_vec()));
    assert_eq!(seen[1].1, [0x0723_0203u32, 1, 2].as_bytes());
    let gathered = source.gather(&[1, 1], 5).unwrap();
    assert_eq!(gathered.sizes, [12, 12]);
    assert_eq!(gathered.bytes.capacity(), 29);
    let twice = vec![Module::Words(vec![1]), Module::Words(vec![2])];
    assert!(matches!(
        ModuleSource::new(twice, None, &[1, 1]),
        Err(BuildError::Spool(_))
    ));
    let spooled = vec![Module::Spooled {
        offset: 0,
        words: 1,
        hash: 0,
    }];
    let gone = ModuleSource::new(spooled, None, &[0]).unwrap();
    assert!(matches!(
        gone.each(|_, _| Ok(())),
        Err(BuildError::Spool(_))
    ));
}

/// A reflection blob of `n` variables (raw tables) and a bind summary, split
/// ([`blob_split`]) when `split`, else the bind summary alone, `n` names long.
fn blob_of(n: u32, split: bool) -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    for i in 0..n {
        let name = b.intern(&format!("variable_{}", i % 97));
        if split {
            b.push(crate::reflection::Variable {
                name,
                type_index: ABSENT,
                generic_container: ABSENT,
                ..Default::default()
            });
        }
    }
    b.push(crate::bind::BindSummary {
        set_slot_count: 0,
        global_uniform_binding: ABSENT,
        entry_point_count: 1,
        ..Default::default()
    });
    let blob = b.finish();
    assert_eq!(blob_split(&blob).is_some(), split);
    blob
}

/// The package of one entry with reflection blob `blob`, added by `add`, from a builder set
/// up by `setup`.
fn package_of_blob(
    setup: impl FnOnce(&mut PackageBuilder),
    add: impl FnOnce(&mut PackageBuilder) -> u32,
) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    setup(&mut p);
    let spirv = p.add_spirv(&[0x0723_0203, 1]);
    let reflection = add(&mut p);
    p.add_entry(compute_entry("k".into(), Some(reflection), spirv))
        .unwrap();
    p.finish().unwrap()
}

/// Whether `bytes` holds `part` somewhere.
fn holds(bytes: &[u8], part: &[u8]) -> bool {
    bytes.windows(part.len()).any(|w| w == part)
}

#[test]
fn stored_frames_are_kept_as_they_are() {
    for split in [false, true] {
        let blob = blob_of(2000, split);
        for bind in [Compression::Zstd, Compression::None] {
            let bind_raw = bind == Compression::None;
            let setup = |p: &mut PackageBuilder| {
                p.set_bind_view_compression(bind);
            };
            let fresh = package_of_blob(setup, |p| p.add_reflection_bytes(&blob));
            // Frames as this builder makes them: the same package, byte for byte.
            let ours = compress_blob(
                &mut compressor(DEFAULT_ZSTD_LEVEL, None).unwrap(),
                &blob,
                bind_raw,
            )
            .unwrap();
            let again = package_of_blob(setup, |p| p.add_reflection_stored(&blob, &ours));
            assert!(again == fresh, "split {split}, bind {bind:?}");
            // Frames made at level 1 are stored as they are, not compressed again; a split
            // blob's first frame is made again as raw blocks where they are asked for.
            let level_1 = compress_blob(&mut compressor(1, None).unwrap(), &blob, false).unwrap();
            assert_ne!(level_1, ours);
            let kept = package_of_blob(setup, |p| p.add_reflection_stored(&blob, &level_1));
            match blob_split(&blob) {
                Some(at) if bind_raw => {
                    let n = zstd::zstd_safe::find_frame_compressed_size(&level_1).unwrap();
                    let mut expected = raw_blocks_frame(&blob[..at]);
                    expected.extend_from_slice(&level_1[n..]);
                    assert!(holds(&kept, &expected), "split, bind raw");
                }
                _ => assert!(holds(&kept, &level_1), "split {split}, bind {bind:?}"),
            }
            assert_ne!(kept, fresh);
        }
    }
}

#[test]
fn stored_frames_that_do_not_hold_the_blob_are_compressed_again() {
    for split in [false, true] {
        let blob = blob_of(500, split);
        let other = blob_of(501, split);
        let fresh = package_of_blob(|_| {}, |p| p.add_reflection_bytes(&blob));
        let mut c = compressor(DEFAULT_ZSTD_LEVEL, None).unwrap();
        let ours = compress_blob(&mut c, &blob, false).unwrap();
        let whole = compress(&mut c, &blob).unwrap();
        let mut trailing = ours.clone();
        trailing.push(0);
        let dictionary = compressor(DEFAULT_ZSTD_LEVEL, Some(&other))
            .and_then(|mut c| compress_blob(&mut c, &blob, false))
            .unwrap();
        let mut flipped = ours.clone();
        let last = flipped.len() - 5;
        flipped[last] ^= 0x40;
        let bad: [(&str, Vec<u8>); 8] = [
            ("empty", Vec::new()),
            ("garbage", b"not a zstd frame at all".to_vec()),
            (
                "another blob's",
                compress_blob(&mut c, &other, false).unwrap(),
            ),
            ("truncated", ours[..ours.len() - 1].to_vec()),
            ("trailing bytes", trailing),
            ("with a dictionary", dictionary),
            ("a flipped bit", flipped),
            ("raw", blob.clone()),
        ];
        let mut cases = bad.to_vec();
        if split {
            // A split blob as one frame: not the layout a reader loads its bind view from.
            cases.push(("one frame", whole));
        }
        for (what, stored) in cases {
            let got = package_of_blob(|_| {}, |p| p.add_reflection_stored(&blob, &stored));
            assert!(got == fresh, "split {split}: {what}");
        }
        // Frames that check out, given after frames that do not, are taken.
        let level_1 = compress_blob(&mut compressor(1, None).unwrap(), &blob, false).unwrap();
        let kept = package_of_blob(
            |_| {},
            |p| {
                let a = p.add_reflection_stored(&blob, b"garbage");
                let b = p.add_reflection_stored(&blob, &level_1);
                assert_eq!(a, b);
                b
            },
        );
        assert!(holds(&kept, &level_1), "split {split}");
    }
}

#[test]
fn stored_frames_are_not_used_where_blobs_are_stored_otherwise() {
    let blob = blob_of(500, true);
    let level_1 = compress_blob(&mut compressor(1, None).unwrap(), &blob, false).unwrap();
    // Raw reflection, and the compressed bake's dictionary: the frames are not what such a
    // package stores.
    let raw = |p: &mut PackageBuilder| {
        p.set_reflection_compression(Compression::None);
    };
    let dictionary = |p: &mut PackageBuilder| {
        p.set_spirv_compression(Compression::Zstd);
        p.set_compressed_index(true);
    };
    for setup in [&raw as &dyn Fn(&mut PackageBuilder), &dictionary] {
        let fresh = package_of_blob(setup, |p| p.add_reflection_bytes(&blob));
        let got = package_of_blob(setup, |p| p.add_reflection_stored(&blob, &level_1));
        assert!(got == fresh);
    }
}

/// `count` modules of one family (the same words but one), for a package whose modules share
/// a dictionary.
fn module_family(count: u32) -> Vec<Vec<u32>> {
    (0..count)
        .map(|i| {
            let mut words = vec![0x0723_0203, 0x0001_0600, 0, 400, 0];
            words.extend((0..400u32).map(|w| w.wrapping_mul(2_654_435_761) >> 7));
            words[200] = i;
            words
        })
        .collect()
}

#[test]
fn offered_frames_made_with_the_chosen_dictionary_are_stored_as_they_are() {
    let modules = module_family(24);
    let fresh = spirv_package(&modules, Compression::Zstd, None)
        .finish()
        .unwrap();
    let sections = crate::read_sections(&fresh).unwrap();
    let of = |kind: SectionKind| sections.iter().filter(move |s| s.kind == kind.to_raw());
    let dict_section = of(SectionKind::Dictionary)
        .next()
        .expect("a dictionary pays");
    let dictionary = match Compression::from_raw(dict_section.compression) {
        Compression::Zstd => {
            zstd::bulk::decompress(&dict_section.stored, dict_section.raw_size as usize).unwrap()
        }
        _ => dict_section.stored.clone(),
    };
    // Each module's frame made again at level 1, with the dictionary where the package used
    // it for the module's run (2.7): other bytes than the bake's, holding the same module.
    let spirv: Vec<&RawSection> = of(SectionKind::Spirv).collect();
    let in_run = Compression::InModuleRun.to_raw();
    assert!(spirv.iter().any(|s| s.compression == in_run));
    let level_1: Vec<(Compression, Vec<u8>)> = (0..spirv.len())
        .zip(&modules)
        .map(|(i, words)| {
            // Modules are stored packed (2.6): the frame holds the packed bytes. A module of a
            // run is compressed as its run's frame is.
            let holder = spirv[i..].iter().find(|s| s.compression != in_run).unwrap();
            let compression = Compression::from_raw(holder.compression);
            let with =
                (compression == Compression::ZstdDictionaryPackedSpirv).then_some(&dictionary[..]);
            let packed = crate::pack_spirv(words);
            let frame = compress(&mut compressor(1, with).unwrap(), &packed).unwrap();
            (compression, frame)
        })
        .collect();
    assert!(level_1
        .iter()
        .any(|(c, _)| *c == Compression::ZstdDictionaryPackedSpirv));
    let stored = StoredDictionary {
        compression: Compression::from_raw(dict_section.compression),
        raw_size: dict_section.raw_size,
        stored: &dict_section.stored,
    };
    let offering = |dictionary: Option<StoredDictionary<'_>>, frames: &[(Compression, Vec<u8>)]| {
        let mut p = spirv_package(&modules, Compression::Zstd, None);
        let d = p.offer_dictionary(dictionary).unwrap();
        for (id, (compression, frame)) in frames.iter().enumerate() {
            p.offer_frames(SectionKind::Spirv, id as u32, d, *compression, frame);
        }
        p.finish().unwrap()
    };
    // Made with the dictionary the builder chooses: stored as they are.
    let kept = offering(Some(stored), &level_1);
    assert_ne!(kept, fresh);
    for (i, (_, frame)) in level_1.iter().enumerate() {
        assert!(holds(&kept, frame), "module {i}");
    }
    // Offered as made without a dictionary, while the builder chooses one: compressed again.
    assert!(offering(None, &level_1) == fresh);
    // Frames that do not hold their module (another module's, a flipped bit, a dictionary
    // frame said to be plain): compressed again.
    let mut shifted = level_1.clone();
    shifted.rotate_left(1);
    assert!(offering(Some(stored), &shifted) == fresh);
    let mut flipped = level_1.clone();
    for (_, frame) in &mut flipped {
        let at = frame.len() - 3;
        frame[at] ^= 0x10;
    }
    assert!(offering(Some(stored), &flipped) == fresh);
    let plain: Vec<_> = level_1
        .iter()
        .map(|(_, f)| (Compression::ZstdPackedSpirv, f.clone()))
        .collect();
    let mixed = offering(Some(stored), &plain);
    for (c, frame) in &level_1 {
        assert_eq!(holds(&mixed, frame), *c == Compression::ZstdPackedSpirv);
    }
    // Frames of the modules as they are (a package of 2.5), not packed: compressed again.
    let unpacked: Vec<_> = modules
        .iter()
        .zip(&level_1)
        .map(|(words, (c, _))| {
            let with = (*c == Compression::ZstdDictionaryPackedSpirv).then_some(&dictionary[..]);
            let frame = compress(&mut compressor(1, with).unwrap(), words.as_bytes()).unwrap();
            let c = match c {
                Compression::ZstdDictionaryPackedSpirv => Compression::ZstdDictionary,
                _ => Compression::Zstd,
            };
            (c, frame)
        })
        .collect();
    assert!(offering(Some(stored), &unpacked) == fresh);
}

#[test]
fn small_sections_share_checksum_runs_of_at_most_1_kib() {
    // 300 modules of one family (a few dozen bytes each compressed) and a few of random
    // words (larger than a run).
    let mut modules = module_family(300);
    for seed in 0..3u32 {
        let mut words = vec![0x0723_0203, 0x0001_0600, 0, 3000, 0];
        words.extend(
            (0..3000u32).map(|w| (w ^ seed).wrapping_mul(2_654_435_761).rotate_left(seed + 3)),
        );
        modules.push(words);
    }
    let mut p = spirv_package(&modules, Compression::Zstd, None);
    p.set_compressed_index(true);
    let bytes = p.finish().unwrap();
    let (h, _) = FileHeader::read_from_prefix(&bytes).unwrap();
    assert_ne!(h.flags & FLAG_CHECKSUM_RUNS, 0);
    let at = h.section_dir_offset() as usize;
    let stored = &bytes[at..at + h.index_size as usize];
    let index = crate::index_content(&h, stored, 1 << 30).unwrap();
    let records: Vec<SectionRecord> = index[..h.section_count as usize * 48]
        .chunks_exact(48)
        .map(|r| SectionRecord::read_from_prefix(r).unwrap().0)
        .filter(|r| !r.section_kind().is_container())
        .collect();
    let (mut runs, mut alone, mut start) = (0, 0, None);
    for r in &records {
        let end = (r.offset() + r.stored_size()) as usize;
        if r.hash() == 0 {
            start.get_or_insert(r.offset() as usize);
            continue;
        }
        let first = start.take();
        let from = first.unwrap_or(r.offset() as usize);
        assert!(
            first.is_none() || end - from <= 4096,
            "a run of {} bytes",
            end - from
        );
        assert_eq!(
            r.hash(),
            r.checksum_of(VERSION_MAJOR, xxh3_64(&bytes[from..end]))
        );
        match first {
            Some(_) => runs += 1,
            None => alone += 1,
        }
    }
    assert_eq!(
        start, None,
        "every run ends in a section holding its checksum"
    );
    // The dictionary (which holds the large modules' content) keeps its own; the family's
    // frames share a few runs.
    assert!(
        runs >= 2 && runs * 20 < records.len(),
        "{runs} runs of {} sections",
        records.len()
    );
    assert!(alone >= 1, "{alone}");
    // Without the compressed index, every section keeps its own checksum.
    let mut p = spirv_package(&modules, Compression::Zstd, None);
    p.set_compressed_index(false);
    let plain = p.finish().unwrap();
    let (h, _) = FileHeader::read_from_prefix(&plain).unwrap();
    assert_eq!(h.flags & FLAG_CHECKSUM_RUNS, 0);
}

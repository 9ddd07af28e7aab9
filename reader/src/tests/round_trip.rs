//! Round trips through the builders for the container and every table, and what a reader
//! of this version reads of other versions' packages: newer minors (unknown sections and
//! tables, wider strides) and the 1.x format.

use super::*;

#[test]
fn round_trip_container() {
    for compression in [Compression::Zstd, Compression::None] {
        let bytes = sample_package(compression);
        let pkg = Package::from_bytes(&bytes).unwrap();
        assert_eq!(pkg.version(), (VERSION_MAJOR, VERSION_MINOR));
        assert_eq!(pkg.len(), 3);
        assert_eq!(pkg.spirv_count(), 2);
        assert_eq!(pkg.reflection_count(), 1);
        let keys: Vec<&str> = pkg.keys().collect();
        assert_eq!(
            keys,
            [
                "blur.slang|main|RADIUS=2",
                "blur.slang|main|RADIUS=4",
                "copy.slang|main"
            ]
        );
        let e = pkg.load("blur.slang|main|RADIUS=4").unwrap();
        assert_eq!(e.index(), 1);
        assert_eq!(e.options_hash(), 0x0123_4567_89ab_cdef);
        // 2.0 derives the entry points' hashes from their modules' words.
        let module_hash = xxh3_64([0x0723_0203u32, 0x0001_0600, 0, 11, 0, 7].as_bytes());
        assert_eq!(e.entry_point_hash(), module_hash);
        let ep = e.entry_points().next().unwrap();
        assert_eq!(ep.name(), "main");
        assert_eq!(ep.spirv_entry_name(), "main");
        assert_eq!(ep.stage(), Stage::Compute);
        assert_eq!(ep.thread_group_size(), [8, 4, 1]);
        assert_eq!(ep.wave_size(), Some(32));
        assert_eq!(ep.hash(), module_hash);
        assert_eq!(ep.spirv(), &[0x0723_0203, 0x0001_0600, 0, 11, 0, 7]);
        assert_eq!(ep.layout().unwrap().thread_group_size(), [8, 4, 1]);
        let deps: Vec<(&str, u64)> = e
            .dependencies()
            .map(|d| (d.path(), d.content_hash()))
            .collect();
        assert_eq!(
            deps,
            [("shaders/blur.slang", 11), ("shaders/common.slang", 12)]
        );
        assert_eq!(
            pkg.load("blur.slang|main|RADIUS=3").unwrap_err().kind(),
            ErrorKind::NotFound
        );
        assert!(pkg.find("").is_none());
        assert_eq!(pkg.load_at(3).unwrap_err().kind(), ErrorKind::NotFound);
        let copy = pkg.load("copy.slang|main").unwrap();
        assert!(!copy.has_reflection());
        assert!(copy.reflection().unwrap().is_empty());
        assert!(copy.entry_points().next().unwrap().layout().is_none());
        assert_eq!(copy.entry_points().next().unwrap().spirv().len(), 5);
    }
}

#[test]
fn round_trip_every_table() {
    let blob = sample_blob();
    // What the builder put in, read back through the builder's own view of the blob.
    for compression in [Compression::Zstd, Compression::None] {
        let mut p = PackageBuilder::new();
        p.set_reflection_compression(compression);
        let s = p.add_spirv(&[1]);
        let r = p.add_reflection(blob.clone());
        p.add_entry(entry("k", Some(r), s)).unwrap();
        let pkg = Package::from_bytes(&p.finish().unwrap()).unwrap();
        let v = pkg.load("k").unwrap().reflection().unwrap();
        assert_eq!(v.types().len(), 2);
        assert_eq!(v.type_layouts().len(), 2);
        assert_eq!(v.variables().len(), 2);
        assert_eq!(v.var_layouts().len(), 2);
        assert_eq!(v.functions().len(), 1);
        assert_eq!(v.generics().len(), 1);
        assert_eq!(v.decls().len(), 4);
        assert_eq!(v.entry_points().len(), 1);
        assert_eq!(v.attributes().len(), 1);
        assert_eq!(v.attribute_args().len(), 1);
        assert_eq!(
            v.modifiers(),
            &[Modifier {
                id: ModifierId::Const.to_raw()
            }]
        );
        assert_eq!(v.hashed_strings().len(), 1);
        assert_eq!(v.binding_ranges().len(), 1);
        assert_eq!(v.descriptor_sets().len(), 1);
        assert_eq!(v.descriptor_ranges().len(), 1);
        assert_eq!(v.sub_object_ranges().len(), 1);
        assert_eq!(v.string_refs().len(), 7);

        // Values.
        let params = &v.types()[1];
        assert_eq!(params.type_kind(), TypeKind::Struct);
        assert_eq!(v.string(params.name), "Params");
        let fields: Vec<&str> = v.type_fields(params).map(|f| v.string(f.name)).collect();
        assert_eq!(fields, ["scale"]);
        let tl = &v.type_layouts()[1];
        assert_eq!(tl.matrix_layout_mode(), MatrixLayout::ColumnMajor);
        let field_layouts: Vec<&VarLayout> = v.struct_fields(tl).collect();
        assert_eq!(field_layouts.len(), 1);
        assert_eq!(v.string(field_layouts[0].name), "scale");
        assert_eq!(v.string(field_layouts[0].semantic_name), "TEXCOORD");
        let offsets: Vec<_> = v.var_layout_offsets(field_layouts[0]).collect();
        assert_eq!(
            offsets,
            [crate::CategoryOffset {
                category: ParameterCategory::Uniform,
                offset: 16,
                space: 0
            }]
        );
        assert_eq!(
            v.var_layout_offset(field_layouts[0], ParameterCategory::Uniform)
                .map(|o| o.offset),
            Some(16)
        );
        let sizes: Vec<_> = v.type_layout_sizes(tl).collect();
        assert_eq!(
            sizes,
            [crate::CategorySize {
                category: ParameterCategory::Uniform,
                size: 16,
                stride: 16,
                alignment: 16
            }]
        );
        let scale = &v.variables()[0];
        assert_eq!(v.variable_modifiers(scale)[0].modifier(), ModifierId::Const);
        let attr = &v.variable_attributes(scale)[0];
        assert_eq!(v.string(attr.name), "Range");
        let arg = &v.attribute_arguments(attr)[0];
        assert_eq!(arg.value_kind(), ValueKind::Float);
        assert_eq!(f64::from_bits(arg.value_bits()), 1.0);
        assert_eq!(f64::from_bits(scale.default_bits()), 2.0);
        let sets = v.type_layout_descriptor_sets(tl);
        assert_eq!(
            v.descriptor_set_ranges(&sets[0])[0].binding_kind(),
            BindingType::Texture
        );
        let br = &v.type_layout_binding_ranges(tl)[0];
        assert_eq!(v.binding_range_descriptor_ranges(br).len(), 1);
        assert_eq!(v.type_layout_sub_object_ranges(tl)[0].space_offset, 1);
        let ep = &v.entry_points()[0];
        assert_eq!(ep.stage_kind(), Stage::Compute);
        let ep_params: Vec<&str> = v
            .entry_point_parameters(ep)
            .map(|p| v.string(p.name))
            .collect();
        assert_eq!(ep_params, ["gTex"]);
        let func = &v.functions()[ep.function as usize];
        assert_eq!(v.function_parameters(func).count(), 1);
        let root = v.root_decl().unwrap();
        assert_eq!(root.decl_kind(), DeclKind::Module);
        let kinds: Vec<DeclKind> = v.decl_children(root).map(Decl::decl_kind).collect();
        assert_eq!(kinds, [DeclKind::Struct, DeclKind::Func, DeclKind::Generic]);
        assert_eq!(v.decl_parent(&v.decls()[1]), Some(root));
        assert_eq!(v.generics()[0].constraint_count, 1);
        assert_eq!(v.global_constant_buffer_binding(), Some(0));
        assert_eq!(v.global_constant_buffer_space(), Some(0));
        assert_eq!(v.global_constant_buffer_size(), 32);
        assert_eq!(v.bindless_space_index(), None);
        assert!(v.global_params_var_layout().is_some());
        assert!(v.global_params_type_layout().is_some());
        // The first entry point's module's words, hashed at the load.
        assert_eq!(v.first_entry_point_hash(), xxh3_64(1u32.as_bytes()));
        assert_eq!(v.string(ABSENT), "");
        assert_eq!(v.string_opt(ABSENT), None);
        assert_eq!(v.pool_slice(u32::MAX, 4), &[] as &[u32]);
    }
}

#[test]
fn reflection_is_deduplicated_and_entry_hashes_stay_outside() {
    let pkg = Package::from_bytes(&sample_package(Compression::Zstd)).unwrap();
    let a = pkg
        .load("blur.slang|main|RADIUS=2")
        .unwrap()
        .reflection()
        .unwrap();
    let b = pkg
        .load("blur.slang|main|RADIUS=4")
        .unwrap()
        .reflection()
        .unwrap();
    assert!(core::ptr::eq(a.types(), b.types()));
}

#[test]
fn builder_output_is_deterministic() {
    assert_eq!(
        sample_package(Compression::Zstd),
        sample_package(Compression::Zstd)
    );
    assert_eq!(
        sample_package(Compression::None),
        sample_package(Compression::None)
    );
}

#[test]
fn empty_package_opens() {
    let bytes = PackageBuilder::new().finish().unwrap();
    let pkg = Package::from_bytes(&bytes).unwrap();
    assert!(pkg.is_empty());
    assert_eq!(pkg.entries().count(), 0);
    assert!(pkg.find("x").is_none());
    pkg.verify_all().unwrap();
}

#[test]
fn types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Package>();
    check::<crate::Entry<'_>>();
    check::<crate::EntryPoint<'_>>();
    check::<crate::ReflectionView<'_>>();
    check::<crate::Error>();
}

#[test]
fn open_maps_a_file() {
    let bytes = sample_package(Compression::None);
    let path = std::env::temp_dir().join(format!(
        "slangpack-reader-test-{}.slangpack",
        std::process::id()
    ));
    std::fs::write(&path, &bytes).unwrap();
    let pkg = Package::open(&path).unwrap();
    assert!(pkg.is_mapped());
    assert_eq!(pkg.as_bytes(), &bytes[..]);
    assert_eq!(pkg.load("copy.slang|main").unwrap().entry_points().len(), 1);
    drop(pkg);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn newer_minor_version_is_read() {
    let bytes = edit_header(&sample_package(Compression::Zstd), |h| h.version_minor = 7);
    assert_eq!(
        Package::from_bytes(&bytes).unwrap().version(),
        (VERSION_MAJOR, 7)
    );
}

#[test]
fn unknown_section_kind_is_skipped() {
    let bytes = sample_package(Compression::Zstd);
    let mut secs = sections(&bytes);
    secs.push(RawSection {
        kind: 0x4000,
        compression: 99, // an unknown compression in an unknown section does not matter
        stride: 0,
        count: 0,
        raw_size: 5,
        stored: b"hello".to_vec(),
    });
    let pkg = Package::from_bytes(&assemble_sections(&secs).unwrap()).unwrap();
    assert_eq!(pkg.len(), 3);
}

#[test]
fn unknown_table_kind_is_skipped_and_wider_strides_are_read() {
    let mut b = ReflectionBuilder::new();
    b.intern("x");
    b.push_raw(200, 8, &[1, 2, 3, 4, 5, 6, 7, 8]);
    // A Decl from a future minor version with 8 more bytes.
    let mut wide = Decl {
        kind: 3,
        name: 0,
        parent: ABSENT,
        payload: ABSENT,
        ..Decl::default()
    }
    .as_bytes()
    .to_vec();
    wide.extend_from_slice(&[0xAA; 8]);
    b.push_raw(TableKind::Decls.to_raw(), 40, &wide);
    let pkg = Package::from_bytes(&package_with_blob(b.finish())).unwrap();
    let v = pkg.load("k").unwrap().reflection().unwrap();
    assert_eq!(v.decls().len(), 1);
    assert_eq!(v.decls()[0].decl_kind(), DeclKind::Module);
    assert_eq!(v.string(v.decls()[0].name), "x");
}

#[test]
fn wider_package_table_stride_is_read() {
    let bytes = sample_package(Compression::Zstd);
    let mut secs = sections(&bytes);
    let dep = secs
        .iter_mut()
        .find(|s| s.kind == SectionKind::Dependencies.to_raw())
        .unwrap();
    let widened: Vec<u8> = dep
        .stored
        .chunks(12)
        .flat_map(|r| r.iter().copied().chain([0xEE; 4]))
        .collect();
    dep.stride = 16;
    dep.raw_size = widened.len() as u64;
    dep.stored = widened;
    let pkg = Package::from_bytes(&assemble_sections(&secs).unwrap()).unwrap();
    let deps: Vec<_> = pkg
        .load("copy.slang|main")
        .unwrap()
        .dependencies()
        .map(|d| d.path())
        .collect();
    assert_eq!(deps, ["shaders/blur.slang", "shaders/common.slang"]);
}

/// A package of the 1.8 format (default layout: compressed index, dictionary), baked by that
/// version's writer from the 100 permutations of issue 48's compute shader (also a fuzz
/// seed): a 2.0 reader reads it, with its key index and stored hashes.
const PACKAGE_1_8: &[u8] =
    include_bytes!("../../../fuzz/seeds/open_and_walk/perm_ab-1.8.slangpack");

#[test]
fn packages_of_format_1_are_read() {
    let pkg = Package::from_bytes(PACKAGE_1_8).unwrap();
    assert_eq!(pkg.version(), (1, 8));
    pkg.verify_all().unwrap();
    for entry in pkg.entries() {
        let entry = entry.unwrap();
        assert_eq!(pkg.find(entry.key()), Some(entry.index()));
        // 1.x stored the hashes 2.0 derives: the reference writer's were the modules' xxh3.
        for ep in entry.entry_points() {
            assert_eq!(ep.hash(), xxh3_64(ep.spirv().as_bytes()));
            assert_ne!(ep.record().hash_lo, 0);
        }
        let first = entry.entry_points().next().map_or(0, |ep| ep.hash());
        assert_eq!(entry.entry_point_hash(), first);
    }
    // Its key index is checked at open.
    let mut secs = sections_of(PACKAGE_1_8);
    let index = secs
        .iter_mut()
        .find(|s| s.kind == SectionKind::KeyIndex.to_raw())
        .unwrap();
    let (a, b) = index.stored.split_at_mut(12);
    a.swap_with_slice(&mut b[..12]);
    let mut relaid = assemble_sections(&secs).unwrap();
    relaid = edit_header(&relaid, |h| (h.version_major, h.version_minor) = (1, 8));
    assert_eq!(
        Package::from_bytes(&relaid).unwrap_err().kind(),
        ErrorKind::BadKeyIndex
    );
    // Without a key index, a 1.x package is incomplete.
    secs.retain(|s| s.kind != SectionKind::KeyIndex.to_raw());
    let relaid = edit_header(&assemble_sections(&secs).unwrap(), |h| {
        (h.version_major, h.version_minor) = (1, 8)
    });
    assert_eq!(
        Package::from_bytes(&relaid).unwrap_err().kind(),
        ErrorKind::MissingSection
    );
}

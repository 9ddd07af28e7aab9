//! Byte-level tests: round trips through the builders for every table, one negative test per
//! error kind (asserting the exact kind), forward compatibility, truncation and bit flips.

use crate::{ErrorKind, Package};
use slangpack_format::*;
use zerocopy::{FromBytes, IntoBytes};

mod conformances;

/// A reflection blob using every raw table, with cross-references between them.
pub(crate) fn sample_blob() -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let s = |b: &mut ReflectionBuilder, x: &str| b.intern(x);
    let float_name = s(&mut b, "float");
    let params_name = s(&mut b, "Params");
    let scale_name = s(&mut b, "scale");
    let tex_name = s(&mut b, "gTex");
    let main_name = s(&mut b, "main");
    let attr_name = s(&mut b, "Range");
    let semantic = s(&mut b, "TEXCOORD");

    // types: 0 float, 1 Params { scale }
    let t_float = b.push(Type {
        kind: TypeKind::Scalar.to_raw(),
        name: float_name,
        full_name: float_name,
        scalar_type: ScalarType::Float32.to_raw(),
        row_count: 1,
        column_count: 1,
        element_type: ABSENT,
        resource_result_type: ABSENT,
        generic_container: ABSENT,
        ..Type::default()
    });
    let mods = b.push_all(&[Modifier {
        id: ModifierId::Const.to_raw(),
    }]);
    let arg = b.push(AttributeArg {
        kind: ValueKind::Float.to_raw(),
        value_lo: 0,
        value_hi: 0x3ff0_0000,
        type_index: t_float,
    });
    let attr = b.push(Attribute {
        name: attr_name,
        arg_first: arg,
        arg_count: 1,
        reserved: 0,
    });
    let v_scale = b.push(Variable {
        name: scale_name,
        type_index: t_float,
        modifier_first: mods,
        modifier_count: 1,
        attribute_first: attr,
        attribute_count: 1,
        default_kind: ValueKind::Float.to_raw(),
        default_lo: 0,
        default_hi: 0x4000_0000,
        generic_container: ABSENT,
        flags: 0,
        reserved: 0,
    });
    let fields = b.push_pool(&[v_scale]);
    let t_params = b.push(Type {
        kind: TypeKind::Struct.to_raw(),
        name: params_name,
        full_name: params_name,
        field_pool: fields,
        field_count: 1,
        element_type: ABSENT,
        resource_result_type: ABSENT,
        generic_container: ABSENT,
        ..Type::default()
    });
    let v_tex = b.push(Variable {
        name: tex_name,
        type_index: ABSENT,
        generic_container: ABSENT,
        ..Variable::default()
    });
    // type layouts: 0 float, 1 Params; var layouts: 0 scale (in Params), 1 gTex
    let cats = b.push_pool(&[ParameterCategory::Uniform.to_raw()]);
    let sizes = b.push_pool(&[4, 4, 4]);
    let tl_float = b.push(TypeLayout {
        type_index: t_float,
        kind: TypeKind::Scalar.to_raw(),
        parameter_category: ParameterCategory::Uniform.to_raw(),
        category_count: 1,
        category_pool: cats,
        size_pool: sizes,
        element_type_layout: ABSENT,
        element_var_layout: ABSENT,
        container_var_layout: ABSENT,
        explicit_counter_var_layout: ABSENT,
        uniform_size: 4,
        uniform_stride: 4,
        uniform_alignment: 4,
        generic_param_index: ABSENT,
        ..TypeLayout::default()
    });
    let vl_offsets = b.push_pool(&[16]);
    let vl_spaces = b.push_pool(&[0]);
    let vl_scale = b.push(VarLayout {
        variable: v_scale,
        type_layout: tl_float,
        name: scale_name,
        category_count: 1,
        category_pool: cats,
        offset_pool: vl_offsets,
        space_pool: vl_spaces,
        semantic_name: semantic,
        semantic_index: 2,
        uniform_offset: 16,
        ..VarLayout::default()
    });
    let desc_range = b.push(DescriptorRange {
        index_offset: 0,
        descriptor_count: 1,
        binding_type: BindingType::Texture.to_raw(),
        parameter_category: ParameterCategory::DescriptorTableSlot.to_raw(),
    });
    let set = b.push(DescriptorSet {
        space_offset: 0,
        descriptor_range_first: desc_range,
        descriptor_range_count: 1,
    });
    let binding = b.push(BindingRange {
        binding_type: BindingType::Texture.to_raw(),
        binding_count: 1,
        leaf_type_layout: tl_float,
        leaf_variable: v_tex,
        image_format: 0,
        is_specializable: 0,
        descriptor_set: set,
        first_descriptor_range: desc_range,
        descriptor_range_count: 1,
        sub_object_range: ABSENT,
    });
    b.push(SubObjectRange {
        binding_range: binding,
        space_offset: 1,
        offset_var_layout: vl_scale,
    });
    let field_layouts = b.push_pool(&[vl_scale]);
    let size_pool2 = b.push_pool(&[16, 16, 16]);
    let tl_params = b.push(TypeLayout {
        type_index: t_params,
        kind: TypeKind::Struct.to_raw(),
        parameter_category: ParameterCategory::Uniform.to_raw(),
        category_count: 1,
        category_pool: cats,
        size_pool: size_pool2,
        field_pool: field_layouts,
        field_count: 1,
        element_type_layout: ABSENT,
        element_var_layout: ABSENT,
        container_var_layout: ABSENT,
        explicit_counter_var_layout: ABSENT,
        matrix_layout: MatrixLayout::ColumnMajor.to_raw(),
        binding_range_first: binding,
        binding_range_count: 1,
        descriptor_set_first: set,
        descriptor_set_count: 1,
        sub_object_range_first: 0,
        sub_object_range_count: 1,
        generic_param_index: ABSENT,
        ..TypeLayout::default()
    });
    let vl_tex = b.push(VarLayout {
        variable: v_tex,
        type_layout: tl_params,
        name: tex_name,
        semantic_name: ABSENT,
        uniform_offset: ABSENT,
        ..VarLayout::default()
    });
    let params = b.push_pool(&[vl_tex]);
    let fparams = b.push_pool(&[v_scale]);
    let func = b.push(Function {
        name: main_name,
        return_type: ABSENT,
        parameter_pool: fparams,
        parameter_count: 1,
        generic_container: ABSENT,
        ..Function::default()
    });
    b.push(EntryPointLayout {
        name: main_name,
        name_override: ABSENT,
        stage: Stage::Compute.to_raw(),
        thread_group_size_x: 8,
        thread_group_size_y: 4,
        thread_group_size_z: 1,
        parameter_pool: params,
        parameter_count: 1,
        var_layout: vl_tex,
        result_var_layout: ABSENT,
        function: func,
        ..EntryPointLayout::default()
    });
    let tparams = b.push_pool(&[v_tex]);
    let constraints = b.push_pool(&[v_tex, t_params]);
    let generic = b.push(Generic {
        name: params_name,
        inner_decl: ABSENT,
        inner_kind: DeclKind::Struct.to_raw(),
        outer_generic: ABSENT,
        type_parameter_pool: tparams,
        type_parameter_count: 1,
        value_parameter_pool: 0,
        value_parameter_count: 0,
        constraint_pool: constraints,
        constraint_count: 1,
        ..Generic::default()
    });
    // decls: 0 module root with children 1 (struct Params), 2 (func main)
    let children = b.push_pool(&[1, 2, 3]);
    let root = b.push(Decl {
        kind: DeclKind::Module.to_raw(),
        name: ABSENT,
        parent: ABSENT,
        child_pool: children,
        child_count: 3,
        payload: ABSENT,
        ..Decl::default()
    });
    for (kind, name, payload) in [
        (DeclKind::Struct, params_name, t_params),
        (DeclKind::Func, main_name, func),
        (DeclKind::Generic, params_name, generic),
    ] {
        b.push(Decl {
            kind: kind.to_raw(),
            name,
            parent: root,
            child_pool: 0,
            child_count: 0,
            payload,
            ..Decl::default()
        });
    }
    b.push(HashedString {
        string: scale_name,
        hash: 0x1234_5678,
    });
    let scalars = b.scalars_mut();
    scalars.global_constant_buffer_binding = 0;
    scalars.global_constant_buffer_space = 0;
    scalars.global_constant_buffer_size = 32;
    scalars.global_params_var_layout = vl_tex;
    scalars.global_params_type_layout = tl_params;
    scalars.entry_point_count = 1;
    scalars.root_decl = root;
    b.finish()
}

fn entry(key: &str, reflection: Option<u32>, spirv: u32) -> EntryDesc {
    EntryDesc {
        key: key.into(),
        reflection,
        entry_points: vec![EntryPointDesc {
            name: "main".into(),
            spirv_entry_name: "main".into(),
            stage: Stage::Compute,
            thread_group_size: [8, 4, 1],
            wave_size: 32,
            spirv,
            reflection_entry_point: reflection.map(|_| 0),
        }],
        dependencies: vec![
            DependencyDesc {
                path: "shaders/blur.slang".into(),
                hash: 11,
            },
            DependencyDesc {
                path: "shaders/common.slang".into(),
                hash: 12,
            },
        ],
        options_hash: 0x0123_4567_89ab_cdef,
    }
}

/// A package with three entries sharing one reflection blob and two SPIR-V modules.
pub(crate) fn sample_package(compression: Compression) -> Vec<u8> {
    sample_package_with(|p| {
        p.set_reflection_compression(compression);
    })
}

/// [`sample_package`] from a builder `setup` prepared.
fn sample_package_with(setup: impl FnOnce(&mut PackageBuilder)) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    setup(&mut p);
    let a = p.add_spirv(&[0x0723_0203, 0x0001_0600, 0, 10, 0]);
    let b = p.add_spirv(&[0x0723_0203, 0x0001_0600, 0, 11, 0, 7]);
    let r = p.add_reflection(sample_blob());
    p.add_entry(entry("blur.slang|main|RADIUS=2", Some(r), a))
        .unwrap();
    p.add_entry(entry("blur.slang|main|RADIUS=4", Some(r), b))
        .unwrap();
    p.add_entry(entry("copy.slang|main", None, a)).unwrap();
    p.finish().unwrap()
}

/// Opens `bytes` and loads everything ([`Package::verify_all`]): the full check.
pub(crate) fn open_all(bytes: &[u8]) -> crate::Result<Package> {
    let package = Package::from_bytes(bytes)?;
    package.verify_all()?;
    Ok(package)
}

/// The kind of the error the full check (open, then load everything) reports.
fn kind_of(bytes: &[u8]) -> ErrorKind {
    match open_all(bytes) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind(),
    }
}

fn header(bytes: &[u8]) -> FileHeader {
    FileHeader::read_from_prefix(bytes).unwrap().0
}

fn dir(bytes: &[u8]) -> Vec<SectionRecord> {
    let h = header(bytes);
    let off = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    (0..h.section_count as usize)
        .map(|i| {
            SectionRecord::read_from_prefix(&bytes[off + i * 48..])
                .unwrap()
                .0
        })
        .collect()
}

fn section_index(bytes: &[u8], kind: SectionKind) -> usize {
    dir(bytes)
        .iter()
        .position(|r| r.section_kind() == kind)
        .unwrap()
}

/// Recomputes every checksum (sections, directory, header) after a test edited bytes.
fn refix(bytes: &mut [u8]) {
    let h = header(bytes);
    let off = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    for i in 0..h.section_count as usize {
        let at = off + i * 48;
        let mut r = SectionRecord::read_from_prefix(&bytes[at..]).unwrap().0;
        let start = r.offset() as usize;
        if let Some(stored) = bytes.get(start..start + r.stored_size() as usize) {
            (r.hash_lo, r.hash_hi) = split_u64(r.checksum_of(h.version_major, xxh3_64(stored)));
        }
        bytes[at..at + 48].copy_from_slice(r.as_bytes());
    }
    let mut h = header(bytes);
    let dir_len = h.section_count as usize * 48;
    (h.dir_hash_lo, h.dir_hash_hi) = split_u64(xxh3_64(&bytes[off..off + dir_len]));
    bytes[..72].copy_from_slice(h.as_bytes());
    let (lo, hi) = split_u64(xxh3_64(&bytes[..64]));
    h.header_hash_lo = lo;
    h.header_hash_hi = hi;
    bytes[..72].copy_from_slice(h.as_bytes());
}

/// The sections of any package, as stored (a compressed index read out).
fn sections_of(bytes: &[u8]) -> Vec<RawSection> {
    slangpack_format::read_sections(bytes).expect("a package's sections")
}

fn edit_header(bytes: &[u8], f: impl FnOnce(&mut FileHeader)) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut h = header(&out);
    f(&mut h);
    out[..72].copy_from_slice(h.as_bytes());
    refix(&mut out);
    out
}

fn edit_section(bytes: &[u8], i: usize, f: impl FnOnce(&mut SectionRecord)) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let h = header(&out);
    let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize + i * 48;
    let mut r = SectionRecord::read_from_prefix(&out[at..]).unwrap().0;
    let hash = (r.hash_lo, r.hash_hi);
    f(&mut r);
    let rehash = (r.hash_lo, r.hash_hi) == hash;
    out[at..at + 48].copy_from_slice(r.as_bytes());
    if rehash {
        refix(&mut out);
    }
    out
}

/// A package holding `blob` (stored raw) as its only reflection.
pub(crate) fn package_with_blob(blob: Vec<u8>) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::None);
    let s = p.add_spirv(&[0x0723_0203]);
    let r = p.add_reflection(blob);
    let mut e = entry("k", Some(r), s);
    e.entry_points[0].reflection_entry_point = None;
    p.add_entry(e).unwrap();
    p.finish().unwrap()
}

/// Splits a package into its sections (for re-assembly with changes).
fn sections(bytes: &[u8]) -> Vec<RawSection> {
    dir(bytes)
        .iter()
        .map(|r| RawSection::copied(bytes, r).expect("a section within the package"))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Round trips

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

// ---------------------------------------------------------------------------------------------
// Forward compatibility

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

// ---------------------------------------------------------------------------------------------
// One negative test per error kind

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
    let newer = edit_header(&bytes, |h| h.version_major = 3);
    let e = Package::from_bytes(&newer).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedVersion);
    assert!(e.to_string().contains("version 3."), "{e}");
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
        kind_of(&edit_section(&bytes, 0, |s| s.compression = 7)),
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

/// The bind-view records of [`bind_blob`], before a test edits them.
struct BindRecords {
    summaries: Vec<bind::BindSummary>,
    binding: bind::DescriptorBinding,
    /// Bindings after `binding` (none at first).
    more: Vec<bind::DescriptorBinding>,
    set: bind::DescriptorSetLayout,
    push: bind::PushConstantRange,
    record_block: bind::ShaderRecordBlock,
    inputs: Vec<bind::VertexInput>,
    outputs: Vec<bind::FragmentOutput>,
    modes: Vec<bind::ExecutionModes>,
}

/// A blob with a consistent bind view (one entry point, one set holding one binding, a
/// push-constant range, a shader-record block, two vertex inputs), `edit`ed first.
fn bind_blob(edit: impl FnOnce(&mut BindRecords)) -> Vec<u8> {
    use bind::*;
    let mut b = ReflectionBuilder::new();
    let name = b.intern("gScene");
    let input = VertexInput {
        entry_point: 0,
        location: 0,
        location_count: 1,
        semantic_name: name,
        name,
        ..VertexInput::default()
    };
    let mut r = BindRecords {
        summaries: vec![BindSummary {
            set_slot_count: 1,
            global_uniform_binding: ABSENT,
            entry_point_count: 1,
            ..BindSummary::default()
        }],
        binding: DescriptorBinding {
            name,
            path: name,
            spirv_name: name,
            set: 0,
            binding: 0,
            entry_point_mask: 1,
            buffer_layout: ABSENT,
            input_attachment_index: ABSENT,
            sampler_path: ABSENT,
            ..DescriptorBinding::default()
        },
        more: Vec::new(),
        set: DescriptorSetLayout {
            set: 0,
            first_binding: 0,
            binding_count: 1,
            flags: 0,
        },
        push: PushConstantRange {
            name,
            size: 16,
            buffer_layout: ABSENT,
            entry_point_mask: 1,
            ..PushConstantRange::default()
        },
        record_block: ShaderRecordBlock {
            name,
            size: 16,
            entry_point_mask: 1,
            buffer_layout: ABSENT,
            ..ShaderRecordBlock::default()
        },
        inputs: vec![
            input,
            VertexInput {
                location: 1,
                ..input
            },
        ],
        outputs: vec![
            FragmentOutput {
                name,
                component_count: 4,
                ..FragmentOutput::default()
            },
            FragmentOutput {
                name,
                component_count: 4,
                index: 1,
                ..FragmentOutput::default()
            },
        ],
        modes: vec![ExecutionModes::default()],
    };
    edit(&mut r);
    b.push_all(&r.summaries);
    b.push(r.binding);
    b.push_all(&r.more);
    b.push(r.set);
    b.push(r.push);
    b.push(r.record_block);
    b.push_all(&r.inputs);
    b.push_all(&r.outputs);
    b.push_all(&r.modes);
    b.finish()
}

/// A package whose one entry has `entry_points` entry points and [`bind_blob`] edited by
/// `edit`.
fn bind_package(entry_points: usize, edit: impl FnOnce(&mut BindRecords)) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::None);
    let s = p.add_spirv(&[0x0723_0203]);
    let r = p.add_reflection(bind_blob(edit));
    let mut e = entry("k", Some(r), s);
    e.entry_points[0].reflection_entry_point = None;
    let ep = e.entry_points[0].clone();
    e.entry_points = (0..entry_points)
        .map(|i| EntryPointDesc {
            name: format!("main{i}"),
            ..ep.clone()
        })
        .collect();
    p.add_entry(e).unwrap();
    p.finish().unwrap()
}

/// The full check's error for [`bind_package`] of one entry point.
fn bind_error(edit: impl FnOnce(&mut BindRecords)) -> crate::Error {
    open_all(&bind_package(1, edit)).expect_err("a bind view the reader refuses")
}

/// An edit of [`BindRecords`], the error kind it gives and what the message names.
type BindCase = (fn(&mut BindRecords), ErrorKind, &'static str);

#[test]
fn bind_view_counts_indices_and_bounded_values_are_checked() {
    let ok = |entry_points: usize, edit: fn(&mut BindRecords)| {
        open_all(&bind_package(entry_points, edit)).unwrap();
    };
    ok(1, |_| {});
    // 32 entry points, every mask bit in use.
    ok(32, |r| {
        r.summaries[0].entry_point_count = 32;
        r.binding.entry_point_mask = u32::MAX;
        r.inputs[1].entry_point = 31;
        r.outputs[1].entry_point = 31;
        r.modes = (0..32)
            .map(|entry_point| bind::ExecutionModes {
                entry_point,
                ..bind::ExecutionModes::default()
            })
            .collect();
    });
    let cases: [BindCase; 21] = [
        (
            |r| r.binding.count_kind = 3,
            ErrorKind::BadValue,
            "descriptor_bindings[0].count_kind = 0x3",
        ),
        (
            |r| r.binding.count_kind = u32::MAX,
            ErrorKind::BadValue,
            "descriptor_bindings[0].count_kind = 0xffffffff",
        ),
        (
            |r| {
                r.binding.count_kind = bind::COUNT_UNBOUNDED;
                r.binding.count = 4;
            },
            ErrorKind::BadValue,
            "descriptor_bindings[0].count = 4, expected 0",
        ),
        // One record for the blob's two entry points.
        (
            |r| r.summaries[0].entry_point_count = 2,
            ErrorKind::BadValue,
            "1 records for 2 entry points",
        ),
        (
            |r| r.summaries[0].entry_point_count = 32,
            ErrorKind::BadValue,
            "1 records for 32 entry points",
        ),
        (
            |r| r.outputs[1].entry_point = 1,
            ErrorKind::IndexOutOfRange,
            "fragment_outputs[1].entry_point",
        ),
        (
            |r| r.outputs[1].index = 0,
            ErrorKind::BadValue,
            "not sorted",
        ),
        (
            |r| {
                r.modes.push(bind::ExecutionModes {
                    entry_point: 1,
                    ..r.modes[0]
                });
            },
            ErrorKind::IndexOutOfRange,
            "execution_modes[1].entry_point",
        ),
        (
            |r| {
                r.summaries[0].entry_point_count = 2;
                r.modes[0].entry_point = 1;
            },
            ErrorKind::BadValue,
            "execution_modes[0].entry_point",
        ),
        // In range of the blob's two entry points, not of the entry's one.
        (
            |r| {
                r.summaries[0].entry_point_count = 2;
                r.modes.push(bind::ExecutionModes {
                    entry_point: 1,
                    ..r.modes[0]
                });
            },
            ErrorKind::IndexOutOfRange,
            "execution modes of entry point 1",
        ),
        (
            |r| r.inputs[1].entry_point = 0x7FFF_FFFF,
            ErrorKind::IndexOutOfRange,
            "vertex_inputs[1].entry_point",
        ),
        (
            |r| r.inputs.swap(0, 1),
            ErrorKind::IndexOutOfRange,
            "not sorted",
        ),
        // In range of the blob's two entry points, not of the entry's one.
        (
            |r| {
                r.summaries[0].entry_point_count = 2;
                r.inputs[1].entry_point = 1;
                r.modes.push(bind::ExecutionModes {
                    entry_point: 1,
                    ..r.modes[0]
                });
            },
            ErrorKind::IndexOutOfRange,
            "vertex input of entry point 1",
        ),
        (
            |r| r.summaries[0].entry_point_count = 0x7FFF_FFFF,
            ErrorKind::LimitExceeded,
            "entry_point_count",
        ),
        (
            |r| r.summaries[0].entry_point_count = 33,
            ErrorKind::LimitExceeded,
            "limit 32",
        ),
        (
            |r| r.summaries.push(r.summaries[0]),
            ErrorKind::Duplicate,
            "bind summary",
        ),
        (
            |r| r.binding.entry_point_mask = 0b10,
            ErrorKind::BadValue,
            "descriptor_bindings[0].entry_point_mask",
        ),
        (
            |r| r.push.entry_point_mask = 0x8000_0001,
            ErrorKind::BadValue,
            "push_constant_ranges[0].entry_point_mask",
        ),
        (
            |r| r.record_block.entry_point_mask = 0b11,
            ErrorKind::BadValue,
            "shader_record_blocks[0].entry_point_mask",
        ),
        (
            |r| r.summaries[0].set_slot_count = 0x7FFF_FFFF,
            ErrorKind::BadValue,
            "set_slot_count",
        ),
        (
            |r| r.binding.set = 5,
            ErrorKind::IndexOutOfRange,
            "descriptor_bindings[0].set",
        ),
    ];
    for (edit, kind, needle) in cases {
        let e = bind_error(edit);
        assert_eq!(e.kind(), kind, "{needle}: {e}");
        assert!(e.message().contains(needle), "{needle}: {e}");
    }
    // A set layout beyond the summary's set slots.
    let e = bind_error(|r| r.set.set = 3);
    assert_eq!(e.kind(), ErrorKind::BadValue, "{e}");
    // Every known count kind, and no execution modes at all (a package before 1.3), load.
    ok(1, |r| {
        r.binding.count_kind = bind::COUNT_UNBOUNDED;
        r.binding.count = 0;
    });
    ok(1, |r| r.binding.count_kind = bind::COUNT_ZERO);
    ok(2, |r| {
        r.summaries[0].entry_point_count = 2;
        r.modes.clear();
    });
}

/// [`bind_blob`] with five bindings in set 0 and one in set 2 (a hole at 1), their layouts
/// made by `layouts` from the runs `(set, first, count)` of the writer's.
fn sets_package(layouts: fn(&mut Vec<bind::DescriptorSetLayout>)) -> Vec<u8> {
    let mut sets = vec![
        bind::DescriptorSetLayout {
            set: 0,
            first_binding: 0,
            binding_count: 5,
            flags: 0,
        },
        bind::DescriptorSetLayout {
            set: 2,
            first_binding: 5,
            binding_count: 1,
            flags: 0,
        },
    ];
    layouts(&mut sets);
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::None);
    let s = p.add_spirv(&[0x0723_0203]);
    let mut b = ReflectionBuilder::new();
    let name = b.intern("gScene");
    let binding = |set, binding| bind::DescriptorBinding {
        name,
        path: name,
        spirv_name: name,
        set,
        binding,
        entry_point_mask: 1,
        buffer_layout: ABSENT,
        input_attachment_index: ABSENT,
        sampler_path: ABSENT,
        ..bind::DescriptorBinding::default()
    };
    for (set, number) in [(0, 0), (0, 1), (0, 1), (0, 3), (0, 4), (2, 0)] {
        b.push(binding(set, number));
    }
    b.push_all(&sets);
    b.push(bind::BindSummary {
        set_slot_count: 3,
        global_uniform_binding: ABSENT,
        entry_point_count: 1,
        ..bind::BindSummary::default()
    });
    b.push(bind::ExecutionModes::default());
    let r = p.add_reflection(b.finish());
    let mut e = entry("k", Some(r), s);
    e.entry_points[0].reflection_entry_point = None;
    p.add_entry(e).unwrap();
    p.finish().unwrap()
}

#[test]
fn a_set_layout_s_bindings_are_exactly_its_set_s() {
    let bytes = sets_package(|_| {});
    let package = Package::from_bytes(&bytes).unwrap();
    package.verify_all().unwrap();
    let entry = package.load("k").unwrap();
    let counts: Vec<usize> = entry
        .bind()
        .set_layouts()
        .map(|s| s.bindings().len())
        .collect();
    assert_eq!(counts, [5, 0, 1]);
    type Case = (fn(&mut Vec<bind::DescriptorSetLayout>), &'static str);
    let cases: [Case; 6] = [
        // Two of set 0's five bindings: an engine would make a set layout missing three.
        (
            |s| s[0].binding_count = 2,
            "set 0's binding 1 lies outside the run",
        ),
        (|s| s[0].first_binding = 1, "holds binding 5 of set 2"),
        (
            |s| {
                s[0].binding_count = 4;
                s[0].first_binding = 1;
            },
            "set 0's binding 0 lies outside the run",
        ),
        // Set 2's binding left out of its run.
        (
            |s| s[1].binding_count = 0,
            "set 2's binding 0 lies outside the run",
        ),
        (|s| s.swap(0, 1), "not sorted by set"),
        (|s| s[0] = s[1], "not sorted by set (or repeated)"),
    ];
    for (edit, needle) in cases {
        let e = open_all(&sets_package(edit)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BadValue, "{needle}: {e}");
        assert!(e.message().contains(needle), "{needle}: {e}");
    }
    // Bindings out of (set, binding) order.
    let e = bind_error(|r| {
        r.more.push(bind::DescriptorBinding {
            binding: 0,
            ..r.binding
        });
        r.binding.binding = 1;
        r.set.binding_count = 2;
    });
    assert_eq!(e.kind(), ErrorKind::BadValue, "{e}");
    assert!(e.message().contains("not sorted by set, binding"), "{e}");
}

/// An edit of [`layouts_blob`]'s members and layouts.
type LayoutsEdit = fn(&mut [bind::BufferMember], &mut [bind::BufferLayout]);

/// A blob with two buffer layouts of two members each (a struct and its float), members
/// edited by `edit` (given the members and the layouts).
fn layouts_blob(
    edit: impl FnOnce(&mut [bind::BufferMember], &mut [bind::BufferLayout]),
) -> Vec<u8> {
    use bind::*;
    let mut b = ReflectionBuilder::new();
    let name = b.intern("s");
    let member = |parent| BufferMember {
        path: name,
        name,
        parent,
        first_attribute: 0,
        attribute_count: 0,
        ..BufferMember::default()
    };
    let mut members = [member(ABSENT), member(0), member(ABSENT), member(2)];
    let layout = |first_member| BufferLayout {
        name,
        set: ABSENT,
        binding: ABSENT,
        first_member,
        member_count: 2,
        ..BufferLayout::default()
    };
    let mut layouts = [layout(0), layout(2)];
    edit(&mut members, &mut layouts);
    b.push_all(&layouts);
    b.push_all(&members);
    b.finish()
}

#[test]
fn buffer_sizes_are_bounded() {
    use slangpack_format::limits::MAX_BUFFER_SIZE;
    // At the limit: loaded, and a zeroed buffer of it is what `zeroed` would allocate.
    let bytes = package_with_blob(layouts_blob(|_, l| {
        (l[0].size, l[0].stride) = (MAX_BUFFER_SIZE, MAX_BUFFER_SIZE);
    }));
    let package = Package::from_bytes(&bytes).unwrap();
    package.verify_all().unwrap();
    let entry = package.load("k").unwrap();
    assert_eq!(
        entry.bind().buffer_view_at(0).unwrap().size(),
        MAX_BUFFER_SIZE
    );
    // Past it (a 4 GiB `zeroed`, a C struct of 4294967280 bytes), refused at load.
    type Case = (LayoutsEdit, &'static str);
    let cases: [Case; 3] = [
        (
            |_, l| (l[0].size, l[0].stride) = (0xFFFF_FFF0, 0xFFFF_FFF0),
            "buffer_layouts[0]: size 4294967280, stride 4294967280, limit 268435456",
        ),
        (
            |_, l| l[1].size = MAX_BUFFER_SIZE + 1,
            "buffer_layouts[1]: size 268435457",
        ),
        (
            |_, l| l[1].stride = MAX_BUFFER_SIZE + 1,
            "buffer_layouts[1]: size 0, stride 268435457",
        ),
    ];
    for (edit, needle) in cases {
        let e = open_all(&package_with_blob(layouts_blob(edit))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{needle}: {e}");
        assert!(e.message().contains(needle), "{needle}: {e}");
    }
    // A further target's layout and a Metal argument buffer too.
    let e = open_all(&package_with_blob(blob_with_target_buffer(|b, _| {
        b[0].size = u32::MAX;
    })))
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(
        e.message().contains("target_buffers[0]: size 4294967295"),
        "{e}"
    );
    let e = open_all(&package_with_blob(blob_with_argument_buffer(|b, _| {
        b[0].size = MAX_BUFFER_SIZE + 16;
    })))
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(e.message().contains("argument_buffers[0]: size"), "{e}");
}

#[test]
fn a_member_s_parent_is_an_earlier_member_of_its_layout() {
    open_all(&package_with_blob(layouts_blob(|_, _| {}))).unwrap();
    let cases: [(LayoutsEdit, &str); 4] = [
        // A later member of the same layout.
        (|m, _| m[2].parent = 3, "buffer_members[2].parent = 3"),
        // Itself.
        (|m, _| m[1].parent = 1, "buffer_members[1].parent = 1"),
        // A member of the other layout.
        (|m, _| m[3].parent = 0, "buffer_members[3].parent = 0"),
        // Layouts sharing a member.
        (
            |_, l| l[1].first_member = 1,
            "buffer_layouts[1].first_member",
        ),
    ];
    for (edit, needle) in cases {
        let e = open_all(&package_with_blob(layouts_blob(edit))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BadValue, "{needle}: {e}");
        assert!(e.message().contains(needle), "{needle}: {e}");
    }
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

/// A package of the 1.8 format (default layout: compressed index, dictionary), baked by that
/// version's writer from the 100 permutations of issue 48's compute shader (also a fuzz
/// seed): a 2.0 reader reads it, with its key index and stored hashes.
const PACKAGE_1_8: &[u8] = include_bytes!("../../fuzz/seeds/open_and_walk/perm_ab-1.8.slangpack");

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

// ---------------------------------------------------------------------------------------------
// Hostile bytes: never a panic

/// The sample package with reflection compressed, stored raw, and with compressed SPIR-V and
/// a compressed index.
fn hostile_samples() -> [Vec<u8>; 3] {
    let index = sample_package_with(|p| {
        p.set_spirv_compression(Compression::Zstd);
        p.set_compressed_index(true);
    });
    assert_eq!(header(&index).flags, FLAG_COMPRESSED_INDEX);
    [
        sample_package(Compression::Zstd),
        sample_package(Compression::None),
        index,
    ]
}

#[test]
fn every_truncation_is_an_error() {
    for bytes in hostile_samples() {
        open_all(&bytes).unwrap();
        for len in 0..bytes.len() {
            assert!(open_all(&bytes[..len]).is_err(), "length {len}");
        }
    }
}

#[test]
fn every_bit_flip_is_an_error() {
    for bytes in hostile_samples() {
        let mut copy = bytes.clone();
        for byte in 0..bytes.len() {
            for bit in 0..8 {
                copy[byte] ^= 1 << bit;
                assert!(open_all(&copy).is_err(), "byte {byte} bit {bit}");
                assert!(loads_fail_in_any_order(&copy), "byte {byte} bit {bit}");
                copy[byte] ^= 1 << bit;
            }
        }
    }
}

/// Opens `bytes` and loads the entries from last to first, then loads every one again: some
/// step fails (and a failed entry fails the same way again).
fn loads_fail_in_any_order(bytes: &[u8]) -> bool {
    let Ok(pkg) = Package::from_bytes(bytes) else {
        return true;
    };
    let mut failed = false;
    for i in (0..pkg.len()).rev() {
        if let Err(first) = pkg.load_at(i) {
            let again = pkg.load_at(i).unwrap_err();
            assert_eq!(
                (first.kind(), first.offset()),
                (again.kind(), again.offset())
            );
            failed = true;
        }
    }
    failed || pkg.verify_all().is_err()
}

/// Touches every accessor of an opened package (must not panic, whatever was accepted).
fn walk(pkg: &Package) -> usize {
    let mut n = 0;
    for e in pkg.entries() {
        let Ok(e) = e else { continue };
        n += e.key().len() + e.dependencies().map(|d| d.path().len()).sum::<usize>();
        for ep in e.entry_points() {
            n += ep.spirv().len() + ep.name().len() + ep.spirv_entry_name().len();
            n += ep.layout().map_or(0, |l| l.parameter_count as usize);
        }
        let Ok(v) = e.reflection() else { continue };
        for t in v.types() {
            n += v.string(t.name).len() + v.type_fields(t).count() + v.type_attributes(t).len();
        }
        for tl in v.type_layouts() {
            n += v.struct_fields(tl).count() + v.type_layout_sizes(tl).count();
            n += v.type_layout_binding_ranges(tl).len() + v.type_layout_sub_object_ranges(tl).len();
            for set in v.type_layout_descriptor_sets(tl) {
                n += v.descriptor_set_ranges(set).len();
            }
        }
        for var in v.variables() {
            n += v.variable_attributes(var).len() + v.variable_modifiers(var).len();
        }
        for vl in v.var_layouts() {
            n += v.var_layout_offsets(vl).count() + v.string(vl.semantic_name).len();
        }
        for f in v.functions() {
            n += v.function_parameters(f).count() + v.function_attributes(f).len();
        }
        for d in v.decls() {
            n += v.decl_children(d).count() + usize::from(v.decl_parent(d).is_some());
        }
        for ep in v.entry_points() {
            n += v.entry_point_parameters(ep).count();
        }
        for a in v.attributes() {
            n += v.attribute_arguments(a).len();
        }
        for b in v.binding_ranges() {
            n += v.binding_range_descriptor_ranges(b).len();
        }
        for h in v.hashed_strings() {
            n += v.string(h.string).len();
        }
        n += usize::from(v.root_decl().is_some())
            + usize::from(v.global_params_var_layout().is_some());
    }
    n
}

/// Random overwrites inside sections, with every checksum recomputed so validation (not the
/// checksums) has to catch them: never a panic, and whatever is accepted can be walked.
#[test]
fn corrupted_content_with_valid_checksums_never_panics() {
    let bytes = sample_package(Compression::None);
    let d = dir(&bytes);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..3000 {
        let mut copy = bytes.clone();
        let sec = d[(next() % d.len() as u64) as usize];
        if sec.stored_size() == 0 {
            continue;
        }
        for _ in 0..1 + next() % 3 {
            let at = sec.offset() + next() % sec.stored_size();
            copy[at as usize] = match next() % 3 {
                0 => 0xFF,
                1 => 0,
                _ => next() as u8,
            };
        }
        refix(&mut copy);
        match Package::from_bytes(&copy) {
            Ok(pkg) => {
                walk(&pkg);
                if pkg.verify_all().is_ok() {
                    accepted += 1;
                } else {
                    rejected += 1;
                }
            }
            Err(_) => rejected += 1,
        }
    }
    assert!(
        rejected > 0 && accepted > 0,
        "accepted {accepted}, rejected {rejected}"
    );
}

// ---------------------------------------------------------------------------------------------
// Lazy loading

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
        // The other entry of the blob: its load adds its module, not the blob again.
        let other = pkg.load("blur.slang|main|RADIUS=2").unwrap();
        assert!(std::ptr::eq(other.bind().bindings(), bind.bindings()));
        assert_eq!(other.bind().summary(), bind.summary());
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

// ---------------------------------------------------------------------------------------------
// Compressed SPIR-V

/// 40 permutations of one module (differing in a few words), with SPIR-V compressed.
fn compressed_spirv_package() -> (Vec<u8>, Vec<Vec<u32>>) {
    compressed_package(false)
}

/// [`compressed_spirv_package`], with a compressed index when `index`.
fn compressed_package(index: bool) -> (Vec<u8>, Vec<Vec<u32>>) {
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
    assert!(d
        .iter()
        .filter(|r| r.section_kind() == SectionKind::Spirv)
        .all(|r| r.compression_kind() == Compression::ZstdDictionary));
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
    // A sample of every 10th module alone would hold only family A: those are all even.
    for (i, r) in spirv.iter().enumerate() {
        assert_eq!(
            r.compression_kind(),
            Compression::ZstdDictionary,
            "module {i}: {} bytes",
            r.stored_size()
        );
        assert!(
            r.stored_size() < 48,
            "module {i}: {} bytes",
            r.stored_size()
        );
    }
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

// ---------------------------------------------------------------------------------------------
// Compressed index

/// The index of a package with a compressed index, decompressed.
fn index_of(bytes: &[u8]) -> Vec<u8> {
    let h = header(bytes);
    let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    zstd::decode_all(&bytes[at..at + h.index_size as usize]).unwrap()
}

/// `bytes` with its compressed index replaced by `f` of it, compressed again (declaring its
/// size when `declare_size`), with the header's sizes and checksums fixed.
fn edit_index(bytes: &[u8], declare_size: bool, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut index = index_of(bytes);
    f(&mut index);
    let mut c = zstd::bulk::Compressor::new(3).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(declare_size))
        .unwrap();
    let frame = c.compress(&index).unwrap();
    let h = header(bytes);
    let at = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(&frame);
    out.resize(out.len().next_multiple_of(8), 0);
    let mut h = h;
    h.index_size = frame.len() as u32;
    (h.file_size_lo, h.file_size_hi) = split_u64(out.len() as u64);
    (h.dir_hash_lo, h.dir_hash_hi) = split_u64(xxh3_64(&frame));
    (h.header_hash_lo, h.header_hash_hi) = split_u64(xxh3_64(&h.as_bytes()[..64]));
    out[..72].copy_from_slice(h.as_bytes());
    out
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
    assert_eq!(h.flags, FLAG_COMPRESSED_INDEX);
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

// ---------------------------------------------------------------------------------------------
// Targets besides SPIR-V

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

#[allow(
    dead_code,
    reason = "shared with the integration tests, which use all of it"
)]
#[path = "../tests/common/mod.rs"]
pub(crate) mod common;

#[test]
fn resolved_names_agree_with_the_records() {
    let bytes = common::package();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load(common::KEY).unwrap();
    let fast = entry.bind();
    let slow = fast.with_unresolved_names();
    assert!(
        fast.has_name_table(),
        "a well-formed blob gets the reader's name table"
    );
    assert!(!slow.has_name_table());
    let mut queries: Vec<String> = Vec::new();
    for b in fast.bindings() {
        queries.push(fast.string(b.path).to_owned());
        queries.push(fast.string(b.sampler_path).to_owned());
    }
    for l in fast.buffer_layouts() {
        let buffer = fast.string(l.name);
        queries.push(buffer.to_owned());
        for m in fast.members(l) {
            queries.push(format!("{buffer}.{}", fast.string(m.path)));
        }
    }
    queries.extend(["", "gScene.", "gScene.tintt", "gScen", "nothing"].map(String::from));
    let mut hits = 0;
    for q in &queries {
        assert_eq!(
            fast.binding_handle(q),
            slow.binding_handle(q),
            "binding {q:?}"
        );
        assert_eq!(fast.member_handle(q), slow.member_handle(q), "member {q:?}");
        assert_eq!(
            fast.buffer(q).map(|l| l.name),
            slow.buffer(q).map(|l| l.name),
            "buffer {q:?}"
        );
        hits += usize::from(fast.binding(q).is_some() || fast.buffer_member(q).is_some());
    }
    assert!(hits >= 7, "{hits} of {} names found", queries.len());
}

/// A blob with one HLSL uniform-buffer target binding whose Vulkan buffer layout has two
/// members, and its target buffer with two target members, `edit`ed first: (the target
/// buffers, the target members).
fn blob_with_target_buffer(
    edit: impl FnOnce(&mut Vec<targets::TargetBuffer>, &mut Vec<targets::TargetMember>),
) -> Vec<u8> {
    use bind::{BufferLayout, BufferMember};
    let mut b = ReflectionBuilder::new();
    let path = b.intern("gParams");
    let a = b.intern("a");
    let c = b.intern("c");
    b.push(targets::TargetBinding {
        target: Target::Hlsl.to_raw(),
        path,
        code_name: path,
        binding: ABSENT,
        kind: TargetBindingKind::UniformBuffer.to_raw(),
        space: 0,
        index: 0,
        register_class: u32::from(b'b'),
        count: 1,
        min_binding_size: 20,
        ..targets::TargetBinding::default()
    });
    for (name, offset) in [(a, 0), (c, 16)] {
        b.push(BufferMember {
            path: name,
            name,
            parent: ABSENT,
            offset,
            size: 4,
            first_attribute: ABSENT,
            type_kind: slangpack_format::TypeKind::Scalar.to_raw(),
            scalar_type: slangpack_format::ScalarType::UInt32.to_raw(),
            rows: 1,
            columns: 1,
            ..BufferMember::default()
        });
    }
    b.push(BufferLayout {
        name: path,
        size: 32,
        first_member: 0,
        member_count: 2,
        set: ABSENT,
        binding: ABSENT,
        ..BufferLayout::default()
    });
    let mut buffers = vec![targets::TargetBuffer {
        target_binding: 0,
        buffer_layout: 0,
        size: 20,
        alignment: 16,
        stride: 20,
        first_member: 0,
        member_count: 2,
        matrix_layout: 0,
    }];
    let mut members = vec![
        targets::TargetMember {
            offset: 0,
            size: 4,
            ..targets::TargetMember::default()
        },
        targets::TargetMember {
            offset: 4,
            size: 4,
            ..targets::TargetMember::default()
        },
    ];
    edit(&mut buffers, &mut members);
    b.push_all(&buffers);
    b.push_all(&members);
    use bind::NameKind;
    for slot in bind::build_name_index(vec![
        ("gParams".into(), NameKind::Buffer, 0),
        ("gParams.a".into(), NameKind::Member, 0),
        ("gParams.c".into(), NameKind::Member, 1),
    ]) {
        b.push(slot);
    }
    b.finish()
}

/// A blob of HLSL target bindings `(path, class, register, count, space)`, in record order.
fn blob_with_hlsl_bindings(records: &[(&str, u8, u32, u32, u32)]) -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    for &(name, class, index, count, space) in records {
        let path = b.intern(name);
        b.push(targets::TargetBinding {
            target: Target::Hlsl.to_raw(),
            path,
            code_name: path,
            binding: ABSENT,
            kind: match class {
                b's' => TargetBindingKind::Sampler,
                b'b' => TargetBindingKind::UniformBuffer,
                _ => TargetBindingKind::Texture,
            }
            .to_raw(),
            space,
            index,
            register_class: u32::from(class),
            count,
            ..targets::TargetBinding::default()
        });
    }
    b.finish()
}

#[test]
fn target_buffers_indices_counts_and_order_are_checked() {
    let bytes = package_with_blob(blob_with_target_buffer(|_, _| {}));
    open_all(&bytes).unwrap();
    // Served: the HLSL binding's own layout, filled at the target's offsets.
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let bind = entry.bind();
    let view = bind.target(Target::Hlsl);
    let b = view.find("gParams").unwrap();
    let own = view
        .buffer_layout(b)
        .target_buffer()
        .expect("its own layout");
    assert_eq!((own.size, view.target_members(own).len()), (20, 2));
    let layout = view.buffer_view(b).unwrap();
    assert_eq!(layout.size(), 20);
    let mut bytes = layout.zeroed();
    layout.writer(&mut bytes).set("gParams.c", 3u32).unwrap();
    assert_eq!(
        bytes[4..8],
        3u32.to_le_bytes(),
        "c at the target's 4, not 16"
    );

    type Case = (
        fn(&mut Vec<targets::TargetBuffer>, &mut Vec<targets::TargetMember>),
        ErrorKind,
        &'static str,
    );
    let cases: [Case; 6] = [
        (
            |b, _| b[0].target_binding = 1,
            ErrorKind::IndexOutOfRange,
            "target_buffers[0].target_binding",
        ),
        (
            |b, _| b[0].target_binding = ABSENT,
            ErrorKind::IndexOutOfRange,
            "target_buffers[0].target_binding",
        ),
        (
            |b, _| b[0].buffer_layout = 1,
            ErrorKind::IndexOutOfRange,
            "target_buffers[0].buffer_layout",
        ),
        (
            |b, _| b[0].member_count = 1,
            ErrorKind::BadValue,
            "target_buffers[0].member_count",
        ),
        (
            |_, m| {
                m.pop();
            },
            ErrorKind::IndexOutOfRange,
            "target_buffers[0].first_member",
        ),
        (|b, _| b.push(b[0]), ErrorKind::BadValue, "not sorted"),
    ];
    for (edit, kind, names) in cases {
        let e = open_all(&package_with_blob(blob_with_target_buffer(edit))).unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.message().contains(names), "{names}: {e}");
    }
}

#[test]
fn d3d12_root_parameters_group_ranges_by_space_and_refuse_overlaps() {
    use crate::{D3d12Error, D3d12RootParameter};
    let bytes = package_with_blob(blob_with_hlsl_bindings(&[
        ("gParams", b'b', 0, 1, 0),
        ("gSampler", b's', 0, 1, 0),
        ("gTextures", b't', 0, 4, 0),
        ("gAll", b't', 0, 0, 1),
    ]));
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let hlsl = entry.bind().target(Target::Hlsl);
    let p = hlsl.d3d12_root_parameters().unwrap();
    let tables: Vec<(u32, bool, usize)> = p
        .parameters
        .iter()
        .map(|t| match t {
            D3d12RootParameter::Table {
                space,
                samplers,
                ranges,
            } => (*space, *samplers, ranges.len()),
            D3d12RootParameter::Constants { .. } => panic!("no push-constant block here"),
        })
        .collect();
    assert_eq!(tables, [(0, false, 2), (0, true, 1), (1, false, 1)]);
    assert_eq!(
        p.to_root_signature_string(),
        "DescriptorTable(CBV(b0), SRV(t0, numDescriptors=4)), DescriptorTable(Sampler(s0)), \
         DescriptorTable(SRV(t0, numDescriptors=unbounded, space=1))"
    );
    // t0..t3 and t2 overlap; so does an unbounded range with any later one.
    for records in [
        [("gTextures", b't', 0, 4, 0), ("gOther", b't', 2, 1, 0)],
        [("gAll", b't', 0, 0, 0), ("gOther", b't', 9, 1, 0)],
    ] {
        let bytes = package_with_blob(blob_with_hlsl_bindings(&records));
        let package = Package::from_bytes(&bytes).unwrap();
        let entry = package.load("k").unwrap();
        let e = entry
            .bind()
            .target(Target::Hlsl)
            .d3d12_root_parameters()
            .unwrap_err();
        assert_eq!(
            e,
            D3d12Error::Overlap {
                first: records[0].0.into(),
                second: "gOther".into(),
                place: format!("register(t{}, space0)", records[1].2),
            }
        );
        assert!(e.to_string().contains("`gOther`"), "{e}");
    }
    // Another target's view has none.
    assert_eq!(
        entry.bind().target(Target::Wgsl).d3d12_root_parameters(),
        Err(D3d12Error::NotHlsl)
    );
}

/// A blob whose Metal bind view holds an argument buffer `gMaterial` at `[[buffer(0)]]` with a
/// texture member, and its struct: `tint` (data, 16 bytes), `albedo` (texture at 16) and
/// `taps` (an array of 2 structs of 8 bytes at 32, whose element member `taps[].w` is
/// element-relative); `edit` changes the records before they are stored.
fn blob_with_argument_buffer(
    edit: impl FnOnce(&mut Vec<targets::ArgumentBuffer>, &mut Vec<targets::ArgumentBufferMember>),
) -> Vec<u8> {
    use slangpack_format::ArgumentMemberKind as K;
    let mut b = ReflectionBuilder::new();
    let metal = |path, kind: TargetBindingKind, space, index, class: u8| targets::TargetBinding {
        target: Target::Metal.to_raw(),
        path,
        code_name: path,
        binding: ABSENT,
        kind: kind.to_raw(),
        space,
        index,
        register_class: u32::from(class),
        count: 1,
        ..targets::TargetBinding::default()
    };
    let albedo = b.intern("gMaterial.albedo");
    let material = b.intern("gMaterial");
    // Sorted by space: the member (space 0) before the top-level argument buffer (absent).
    b.push(metal(albedo, TargetBindingKind::Texture, 0, 1, 0));
    b.push(metal(
        material,
        TargetBindingKind::ArgumentBuffer,
        ABSENT,
        0,
        b'b',
    ));
    let member = |b: &mut ReflectionBuilder, path: &str, kind: K, offset, size| {
        targets::ArgumentBufferMember {
            path: b.intern(path),
            kind: kind.to_raw(),
            offset,
            size,
            alignment: size.min(16),
            id: ABSENT,
            target_binding: ABSENT,
            ..targets::ArgumentBufferMember::default()
        }
    };
    let mut members = vec![
        member(&mut b, "tint", K::Data, 0, 16),
        member(&mut b, "albedo", K::Texture, 16, 8),
        member(&mut b, "taps", K::Struct, 32, 16),
        member(&mut b, "taps[].w", K::Data, 4, 4),
    ];
    members[0].id = 0;
    members[1].id = 1;
    members[1].target_binding = 0;
    members[2].id = 2;
    (members[2].count, members[2].stride) = (2, 8);
    members[3].flags = targets::ARGUMENT_ELEMENT_RELATIVE;
    let mut buffers = vec![targets::ArgumentBuffer {
        target_binding: 1,
        size: 48,
        alignment: 16,
        first_member: 0,
        member_count: 4,
    }];
    edit(&mut buffers, &mut members);
    b.push_all(&buffers);
    b.push_all(&members);
    b.finish()
}

#[test]
fn argument_buffers_are_served_and_their_indices_ranges_and_values_checked() {
    use slangpack_format::ArgumentMemberKind as K;
    let bytes = package_with_blob(blob_with_argument_buffer(|_, _| {}));
    open_all(&bytes).unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let view = entry.bind().target(Target::Metal);
    let ab = view.find_argument_buffer("gMaterial").expect("its struct");
    assert_eq!((ab.size(), ab.alignment(), ab.members().len()), (48, 16, 4));
    let albedo = ab.member("albedo").expect("albedo");
    assert_eq!(
        (albedo.member_kind(), albedo.offset, albedo.id),
        (K::Texture, 16, 1)
    );
    let binding = ab.binding(albedo).expect("its binding");
    assert_eq!(view.path(binding), "gMaterial.albedo");
    assert_eq!(ab.binding(ab.member("tint").unwrap()), None);
    assert_eq!(ab.member("taps[].w").map(|m| m.offset), Some(4));
    // Only argument buffers have a struct.
    assert!(view.find_argument_buffer("gMaterial.albedo").is_none());
    assert!(entry
        .bind()
        .target(Target::Hlsl)
        .find_argument_buffer("gMaterial")
        .is_none());

    type Case = (
        fn(&mut Vec<targets::ArgumentBuffer>, &mut Vec<targets::ArgumentBufferMember>),
        ErrorKind,
        &'static str,
    );
    let cases: [Case; 14] = [
        (
            |_, m| m[0].id = ABSENT,
            ErrorKind::BadValue,
            "argument_buffer_members[0].id = 0xffffffff, flags 0x0",
        ),
        (
            |_, m| m[3].id = 1,
            ErrorKind::BadValue,
            "argument_buffer_members[3].id = 0x1, flags 0x2",
        ),
        (
            |_, m| m[3].flags |= targets::ARGUMENT_ID_EXPLICIT,
            ErrorKind::BadValue,
            "argument_buffer_members[3].id = 0xffffffff, flags 0x3",
        ),
        (
            |b, _| b[0].target_binding = 2,
            ErrorKind::IndexOutOfRange,
            "argument_buffers[0].target_binding",
        ),
        (
            |b, _| b[0].target_binding = 0,
            ErrorKind::BadValue,
            "not a Metal argument buffer",
        ),
        (
            |_, m| {
                m.pop();
            },
            ErrorKind::IndexOutOfRange,
            "argument_buffers[0].first_member",
        ),
        (|b, _| b.push(b[0]), ErrorKind::BadValue, "not sorted"),
        (
            |_, m| m[0].path = 999,
            ErrorKind::IndexOutOfRange,
            "argument_buffer_members[0].path",
        ),
        (
            |_, m| m[1].target_binding = 7,
            ErrorKind::IndexOutOfRange,
            "argument_buffer_members[1].target_binding",
        ),
        (
            |_, m| m[0].kind = 9,
            ErrorKind::BadValue,
            "argument_buffer_members[0].kind",
        ),
        (
            |_, m| m[1].target_binding = ABSENT,
            ErrorKind::BadValue,
            "a texture member has one",
        ),
        (
            |_, m| m[0].target_binding = 0,
            ErrorKind::BadValue,
            "a data member has no one",
        ),
        (
            |_, m| m[2].stride = 0,
            ErrorKind::BadValue,
            "argument_buffer_members[2].count",
        ),
        (
            |_, m| m[1].offset = 44,
            ErrorKind::BadValue,
            "ends past the argument buffer's 48 bytes",
        ),
    ];
    for (edit, kind, names) in cases {
        let e = open_all(&package_with_blob(blob_with_argument_buffer(edit))).unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.message().contains(names), "{names}: {e}");
    }
    // An element-relative member is not measured against the struct.
    let far = package_with_blob(blob_with_argument_buffer(|_, m| m[3].offset = 100));
    open_all(&far).unwrap();
}

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
        let sections: Vec<SectionRecord> = pkg.sections().collect();
        for (i, rec) in sections.iter().enumerate() {
            if rec.section_kind().is_container() || rec.stored_size() == 0 {
                continue;
            }
            let mut damaged = bytes.clone();
            damaged[rec.offset() as usize + rec.stored_size() as usize / 2] ^= 0x40;
            let pkg = Package::from_bytes(&damaged).expect("open reads no blob");
            let e = pkg.check_checksums().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ChecksumMismatch, "section {i}");
            assert_eq!(
                e.to_string(),
                format!(
                    "section {i} checksum mismatch (at offset {:#x})",
                    rec.offset()
                )
            );
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

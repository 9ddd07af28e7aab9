//! Byte-level tests, one module per concern: round trips and other versions' packages
//! (`round_trip`), one negative test per error kind (`errors`), the bind view's rules
//! (`bind_view`, `conformances`), hostile bytes (`hostile`), lazy loading (`load`), compressed
//! SPIR-V and index (`compression`), code of further targets (`target_code`), per-target bind
//! views (`target_bindings`, `argument_buffers`), the name table (`names`) and what reads a
//! package without loading entries (`checksums`). This file holds the packages and blobs they
//! share and the helpers that edit them.

use crate::{ErrorKind, Package};
use common::fixtures::entry_point;
use slangpack_format::*;
use zerocopy::{FromBytes, IntoBytes};

mod argument_buffers;
mod bind_runs;
mod bind_view;
mod checksums;
mod compression;
mod conformances;
mod errors;
mod hostile;
mod load;
mod module_runs;
mod names;
mod paged;
mod round_trip;
mod target_bindings;
mod target_code;

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
            thread_group_size: [8, 4, 1],
            wave_size: 32,
            reflection_entry_point: reflection.map(|_| 0),
            ..entry_point("main", Stage::Compute, spirv)
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

/// Adds to `p` entry `key`: one compute entry point, `main`, of module `spirv`, and `blob` as
/// its reflection.
pub(crate) fn add_compute_entry(p: &mut PackageBuilder, key: &str, spirv: &[u32], blob: Vec<u8>) {
    let s = p.add_spirv(spirv);
    let r = p.add_reflection(blob);
    p.add_entry(EntryDesc {
        key: key.into(),
        reflection: Some(r),
        entry_points: vec![entry_point("main", Stage::Compute, s)],
        dependencies: vec![],
        options_hash: 0,
    })
    .unwrap();
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
pub(crate) fn sections_of(bytes: &[u8]) -> Vec<RawSection> {
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

#[allow(
    dead_code,
    reason = "shared with the integration tests, which use all of it"
)]
#[path = "../tests/common/mod.rs"]
pub(crate) mod common;

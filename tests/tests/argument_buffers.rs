//! Metal argument buffers' structs (format 1.5): every member of every ParameterBlock's
//! argument buffer, checked against a layout computed here, independently of the writer, from
//! the ParameterBlock's Slang types as the package's reflection records them and the Metal
//! Shading Language specification's rules written out below. No Metal compiler runs here
//! (Apple's `metal` ships with Xcode only), and Slang's Metal layout states no byte offsets
//! inside an argument buffer (it numbers `[[id(n)]]`s), so the types and the specification's
//! rules are the oracle; the bind view's own records (paths, kinds, Slang's ids, counts) are
//! the cross-check for every resource member.
//!
//! MSL's rules (section 2, "Data types", and the argument-buffer chapter): a scalar takes its
//! width (`bool` 1, `half`/`short` 2, `float`/`int` 4), aligned to it; a vector of 2 takes twice
//! the scalar, of 3 or 4 four times (a `float3` is 16 bytes aligned to 16); a matrix is its
//! column vectors (Slang's `floatRxC` is emitted as `R` vectors of `C`); an array is N elements
//! of the element's size rounded to its alignment; a struct places each member at the next
//! multiple of its alignment and rounds its size to its largest alignment. In a tier-2
//! argument buffer a buffer is an 8-byte GPU address and a texture or sampler an 8-byte
//! `MTLResourceID`, aligned to 8; a nested argument buffer is a `constant` pointer.

use slangpack_format::targets::{ArgumentBufferMember, ARGUMENT_ELEMENT_RELATIVE};
use slangpack_format::{
    ArgumentMemberKind as K, ResourceShape, ScalarType, Target, TargetBindingKind, Type, TypeKind,
    ABSENT,
};
use slangpack_reader::{Package, ReflectionView, TargetBindView};
use slangpack_tests::layout::test_shaders_dir;
use std::path::{Path, PathBuf};

/// One member as the rules place it: (path, kind, offset, size, alignment, count, stride,
/// element-relative).
type Row = (String, K, u32, u32, u32, u32, u32, bool);

/// A Slang type's tier-2 layout by MSL's rules: (kind, size, alignment); `None` for a type
/// these rules do not cover.
fn msl(view: &ReflectionView<'_>, ty: &Type) -> Option<(K, u32, u32)> {
    let pointer = |kind| Some((kind, 8, 8));
    match TypeKind::from_raw(ty.kind) {
        TypeKind::Scalar => scalar(ty.scalar_type).map(|s| (K::Data, s, s)),
        TypeKind::Vector => {
            let (size, align) = vector(scalar(ty.scalar_type)?, ty.column_count)?;
            Some((K::Data, size, align))
        }
        TypeKind::Matrix => {
            let (size, align) = vector(scalar(ty.scalar_type)?, ty.column_count)?;
            Some((K::Data, size * ty.row_count, align))
        }
        TypeKind::Struct => {
            let (size, align) = fields(view, ty, "", 0, false, &mut Vec::new())?;
            Some((K::Struct, size, align))
        }
        TypeKind::Array => {
            let element = view.types().get(ty.element_type as usize)?;
            let (kind, size, align) = msl(view, element)?;
            Some((kind, size.next_multiple_of(align) * ty.element_count, align))
        }
        TypeKind::ConstantBuffer | TypeKind::TextureBuffer | TypeKind::ShaderStorageBuffer => {
            pointer(K::Buffer)
        }
        TypeKind::ParameterBlock => pointer(K::ArgumentBuffer),
        // An interface-typed value: Slang's existential tuple (see `existential`).
        TypeKind::Interface => Some((K::Struct, EXISTENTIAL_SIZE, 8)),
        TypeKind::SamplerState => pointer(K::Sampler),
        TypeKind::Resource => match ResourceShape::base(ty.resource_shape) {
            ResourceShape::StructuredBuffer | ResourceShape::ByteAddressBuffer => {
                pointer(K::Buffer)
            }
            ResourceShape::Texture1D
            | ResourceShape::Texture2D
            | ResourceShape::Texture3D
            | ResourceShape::TextureCube => pointer(K::Texture),
            _ => None,
        },
        _ => None,
    }
}

/// MSL's scalar widths.
fn scalar(raw: u32) -> Option<u32> {
    Some(match ScalarType::from_raw(raw) {
        ScalarType::Bool | ScalarType::Int8 | ScalarType::UInt8 => 1,
        ScalarType::Float16 | ScalarType::Int16 | ScalarType::UInt16 => 2,
        ScalarType::Float32 | ScalarType::Int32 | ScalarType::UInt32 => 4,
        ScalarType::Int64 | ScalarType::UInt64 => 8,
        _ => return None,
    })
}

/// MSL's vectors: 2 lanes twice the scalar, 3 and 4 lanes four times; size = alignment.
fn vector(scalar: u32, lanes: u32) -> Option<(u32, u32)> {
    let size = match lanes {
        2 => 2 * scalar,
        3 | 4 => 4 * scalar,
        _ => return None,
    };
    Some((size, size))
}

/// Lays out struct `ty`'s fields from byte `base` under `prefix`, pushing every member (and
/// its struct's, or array element's, members) to `out`: the struct's (size, alignment).
fn fields(
    view: &ReflectionView<'_>,
    ty: &Type,
    prefix: &str,
    base: u32,
    relative: bool,
    out: &mut Vec<Row>,
) -> Option<(u32, u32)> {
    let (mut offset, mut align) = (0u32, 1u32);
    for field in view.type_fields(ty) {
        let field_ty = view.types().get(field.type_index as usize)?;
        let (kind, size, a) = msl(view, field_ty)?;
        offset = offset.next_multiple_of(a);
        let name = view.string(field.name);
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}.{name}")
        };
        let at = base + offset;
        if TypeKind::from_raw(field_ty.kind) == TypeKind::Array {
            let element = view.types().get(field_ty.element_type as usize)?;
            let (_, element_size, _) = msl(view, element)?;
            let stride = element_size.next_multiple_of(a);
            out.push((
                path.clone(),
                kind,
                at,
                size,
                a,
                field_ty.element_count,
                stride,
                relative,
            ));
            if kind == K::Struct {
                fields(view, element, &format!("{path}[]"), 0, true, out)?;
            }
        } else {
            out.push((path.clone(), kind, at, size, a, 0, 0, relative));
            if TypeKind::from_raw(field_ty.kind) == TypeKind::Interface {
                existential(&path, at, relative, out);
            } else if kind == K::Struct {
                fields(view, field_ty, &path, at, relative, out)?;
            }
        }
        offset += size;
        align = align.max(a);
    }
    Some((offset.next_multiple_of(align), align))
}

/// The payload of an interface-typed value: Slang's default `[anyValueSize]`, 16 bytes.
const PAYLOAD_WORDS: u32 = 4;
/// An interface-typed value's bytes: a `uint2` type id, a `uint2` witness-table id and the
/// payload's 32-bit words.
const EXISTENTIAL_SIZE: u32 = 16 + 4 * PAYLOAD_WORDS;

/// The members of the existential Slang lays out for an interface-typed value at `path`,
/// byte `at` (SPEC.md 6.12), by MSL's rules: `value0` (the type id) and `value1` (the
/// witness-table id), `uint2`s at 0 and 8, and `value2`, the payload, a struct of `uint`
/// words `field0`... at 16.
fn existential(path: &str, at: u32, relative: bool, out: &mut Vec<Row>) {
    let row = |p: String, kind, offset, size, a| (p, kind, offset, size, a, 0, 0, relative);
    out.push(row(format!("{path}.value0"), K::Data, at, 8, 8));
    out.push(row(format!("{path}.value1"), K::Data, at + 8, 8, 8));
    out.push(row(
        format!("{path}.value2"),
        K::Struct,
        at + 16,
        4 * PAYLOAD_WORDS,
        4,
    ));
    for word in 0..PAYLOAD_WORDS {
        let p = format!("{path}.value2.field{word}");
        out.push(row(p, K::Data, at + 16 + 4 * word, 4, 4));
    }
}

/// The element struct type of the ParameterBlock at dotted `path` (`gMaterial.inner`), found
/// from the global scope's fields by name through the reflected types.
fn block_element<'a>(view: &ReflectionView<'a>, path: &str) -> Option<&'a Type> {
    let types = view.types();
    let element = |ty: &'a Type| match TypeKind::from_raw(ty.kind) {
        TypeKind::ParameterBlock => types.get(ty.element_type as usize),
        _ => Some(ty),
    };
    let mut names = path.split('.');
    let first = names.next()?;
    let globals = view.global_params_type_layout()?;
    let var = view
        .struct_fields(globals)
        .filter_map(|f| view.variables().get(f.variable as usize))
        .find(|v| view.string(v.name) == first)?;
    let mut ty = element(types.get(var.type_index as usize)?)?;
    for name in names {
        let field = view.type_fields(ty).find(|v| view.string(v.name) == name)?;
        ty = element(types.get(field.type_index as usize)?)?;
    }
    Some(ty)
}

/// A stored member as a [`Row`].
fn row(ab: &slangpack_reader::ArgumentBufferView<'_>, m: &ArgumentBufferMember) -> Row {
    (
        ab.path(m).to_string(),
        m.member_kind(),
        m.offset,
        m.size,
        m.alignment,
        m.count,
        m.stride,
        m.flags & ARGUMENT_ELEMENT_RELATIVE != 0,
    )
}

/// Checks every argument buffer of every entry of `bytes` against the bind view and, where its
/// block's type is a struct, the rules; returns how many were checked against the rules.
fn check_package(name: &str, bytes: &[u8]) -> usize {
    let package = Package::from_bytes(bytes).expect("opens");
    let mut checked = 0;
    for entry in package.entries() {
        let entry = entry.expect("loads");
        let reflection = entry.reflection().unwrap();
        let view: TargetBindView<'_> = reflection.bind().target(Target::Metal);
        for b in view.bindings() {
            if b.binding_kind() != TargetBindingKind::ArgumentBuffer {
                continue;
            }
            let path = view.path(b);
            let Some(ab) = view.argument_buffer(b) else {
                // Only a block the code does not declare (Slang dropped it) has no struct.
                assert!(
                    view.code_name(b).is_none(),
                    "{name}: argument buffer {path} declared by the code has no struct"
                );
                continue;
            };
            let element = block_element(&reflection, path)
                .unwrap_or_else(|| panic!("{name}: no reflected type for {path}"));
            // An interface-typed block is Slang's tuple in the code (type id, witness id,
            // payload), which the reflected interface does not describe: its members are
            // checked against the bind view only.
            if TypeKind::from_raw(element.kind) == TypeKind::Struct {
                let mut expected = Vec::new();
                let (size, align) = fields(&reflection, element, "", 0, false, &mut expected)
                    .unwrap_or_else(|| panic!("{name}: {path} has a type the rules do not cover"));
                let got: Vec<Row> = ab.members().iter().map(|m| row(&ab, m)).collect();
                assert_eq!(got, expected, "{name}: {path}'s members");
                assert_eq!((ab.size(), ab.alignment()), (size, align), "{name}: {path}");
                checked += 1;
            }
            for m in ab.members() {
                let member = ab.path(m);
                let resource = !matches!(m.member_kind(), K::Data | K::Struct);
                let Some(own) = ab.binding(m) else {
                    assert!(!resource, "{name}: {path}.{member} has no binding");
                    continue;
                };
                // The member's binding: of this argument buffer, at the same path.
                assert_eq!(
                    view.path(own),
                    format!("{path}.{}", member.replace("[]", "")),
                    "{name}"
                );
                assert_eq!(
                    own.space, b.format,
                    "{name}: {path}.{member}'s argument buffer"
                );
                let kind = own.binding_kind();
                let agrees = match m.member_kind() {
                    K::Texture => {
                        matches!(
                            kind,
                            TargetBindingKind::Texture | TargetBindingKind::StorageTexture
                        )
                    }
                    K::Sampler => kind == TargetBindingKind::Sampler,
                    K::ArgumentBuffer => kind == TargetBindingKind::ArgumentBuffer,
                    _ => matches!(
                        kind,
                        TargetBindingKind::UniformBuffer | TargetBindingKind::StorageBuffer
                    ),
                };
                assert!(agrees, "{name}: {path}.{member} is {kind:?}");
                if m.flags & ARGUMENT_ELEMENT_RELATIVE == 0 {
                    assert_eq!(own.count, m.count.max(1), "{name}: {path}.{member}");
                    assert_ne!(m.id, ABSENT, "{name}: {path}.{member}");
                    // The binding's id is the one the code's struct gives the member.
                    assert_eq!(own.index, m.id, "{name}: {path}.{member}'s [[id(n)]]");
                }
            }
        }
    }
    checked
}

/// Bakes `files` for Metal; `None` where Slang cannot (features Metal lacks) or the bake
/// refuses the program for a reason of its own, which other tests cover.
fn bake_metal(files: Vec<PathBuf>) -> Option<Vec<u8>> {
    let mut config = slangpack_writer::bake::BakeConfig::new(files);
    config.jobs = 1;
    config.options.targets = vec![Target::Metal];
    slangpack_writer::bake::bake(&config)
        .ok()
        .map(|o| o.bytes.into_vec())
}

#[test]
fn the_mixed_argument_buffers_are_laid_out_by_metal_rules_member_by_member() {
    let bytes = bake_metal(vec![test_shaders_dir().join("argument_buffers.slang")])
        .expect("argument_buffers bakes for Metal");
    assert_eq!(check_package("argument_buffers", &bytes), 3);
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("argument_buffers").unwrap();
    let view = entry.bind().target(Target::Metal);
    // The numbers themselves, from the rules by hand: a float3 takes 16, a bool 1 at 16, the
    // float4x4 aligned to 16 at 32, three 16-byte taps (8 + 4 + 1, rounded to 8) at 96, then
    // 8-byte ids and pointers from 144, four textures at 168, the detail struct (24 bytes) at
    // 200, a uint at 224 and the nested block's pointer at 232: 240 bytes.
    let material = view.find_argument_buffer("gMaterial").expect("gMaterial");
    let at = |path: &str| {
        let m = material.member(path).unwrap_or_else(|| panic!("{path}"));
        (m.member_kind(), m.offset, m.size, m.count, m.stride)
    };
    assert_eq!(material.size(), 240);
    assert_eq!(at("albedo"), (K::Data, 0, 16, 0, 0));
    assert_eq!(at("doubleSided"), (K::Data, 16, 1, 0, 0));
    assert_eq!(at("uvTransform"), (K::Data, 32, 64, 0, 0));
    assert_eq!(at("taps"), (K::Struct, 96, 48, 3, 16));
    assert_eq!(at("taps[].enabled"), (K::Data, 12, 1, 0, 0));
    assert_eq!(at("baseColor"), (K::Texture, 144, 8, 0, 0));
    assert_eq!(at("linearSampler"), (K::Sampler, 152, 8, 0, 0));
    assert_eq!(at("lights"), (K::Buffer, 160, 8, 0, 0));
    assert_eq!(at("extra"), (K::Texture, 168, 32, 4, 8));
    assert_eq!(at("detail"), (K::Struct, 200, 24, 0, 0));
    assert_eq!(at("detail.sampler"), (K::Sampler, 208, 8, 0, 0));
    assert_eq!(at("flags"), (K::Data, 224, 4, 0, 0));
    assert_eq!(at("inner"), (K::ArgumentBuffer, 232, 8, 0, 0));
    // The nested block's own struct: the float4, a pointer, three textures, then a float2 at
    // 48 (8-aligned); 64 with the struct rounded to 16.
    let inner = material
        .binding(material.member("inner").unwrap())
        .and_then(|b| view.argument_buffer(b))
        .expect("the nested argument buffer's struct");
    let layers = inner.member("layers").unwrap();
    assert_eq!((layers.offset, layers.count, layers.stride), (24, 3, 8));
    assert_eq!(
        (inner.member("gain").unwrap().offset, inner.size()),
        (48, 64)
    );
    // Ids: Metal numbers every member (an array its count of ids, a struct its members').
    // Past the float4x4 Slang's layout counts its 4 vectors (`extra` at 18); the binding
    // holds the code's id.
    let frame = view.find_argument_buffer("gFrame").expect("gFrame");
    let counters = frame.member("counters").unwrap();
    assert_eq!(counters.id, 2);
    assert_eq!(frame.binding(counters).map(|b| b.index), Some(2));
    let extra = material.member("extra").unwrap();
    assert_eq!(extra.id, 15);
    assert_eq!(material.binding(extra).map(|b| b.index), Some(15));
    assert_eq!(material.member("doubleSided").map(|m| m.id), Some(1));
}

/// The resource members of argument-buffer struct `name` of Metal `text` with the id Metal
/// gives each, read from the text by Apple's rules ("Indexing argument buffers"): the
/// member's `[[id(n)]]` where it has one, else 1 more than the highest id of the member
/// before (from 0); an array takes its count of ids, a struct its members' (its first
/// member's id is its own), Slang's `_Array_*` wrapper is the array it holds. Resources inside
/// an array of structs are left out (their ids are per element).
fn text_ids(text: &str, name: &str, prefix: &str, next: &mut u32, out: &mut Vec<(String, u32)>) {
    let body = |name: &str| -> Vec<(String, String)> {
        let open = text
            .find(&format!("struct {name}\n{{"))
            .unwrap_or_else(|| panic!("the code has no struct {name}"));
        let body = &text[open..];
        let body = &body[body.find('{').unwrap() + 1..body.find("};").unwrap()];
        body.split(';')
            .map(str::trim)
            .filter(|d| !d.is_empty() && !d.starts_with('#'))
            .map(|d| {
                let d: String = d
                    .lines()
                    .filter(|l| !l.trim_start().starts_with('#'))
                    .collect();
                let (ty, field) = d.trim().rsplit_once(' ').unwrap();
                (ty.trim().to_string(), field.to_string())
            })
            .collect()
    };
    for (ty, field) in body(name) {
        let (field, explicit) = match field.split_once("[[id(") {
            Some((f, id)) => (
                f.trim().to_string(),
                id.trim_end_matches(")]]").parse().ok(),
            ),
            None => (field, None),
        };
        if let Some(id) = explicit {
            *next = id;
        }
        let field = field.rsplit_once('_').map_or(field.as_str(), |(f, _)| f);
        let path = format!("{prefix}{field}");
        let mut ty = ty;
        if ty.starts_with("_Array_") {
            ty = body(&ty)[0].0.clone();
        }
        let (element, count) = match ty.strip_prefix("array<") {
            Some(args) => {
                let (element, n) = args.rsplit_once(", int(").unwrap();
                (
                    element.to_string(),
                    n.trim_end_matches(")>").parse::<u32>().unwrap(),
                )
            }
            None => (ty.clone(), 1),
        };
        let is_struct = text.contains(&format!("struct {element}\n{{")) && !element.contains('*');
        if is_struct && count == 1 {
            text_ids(text, &element, &format!("{path}."), next, out);
            continue;
        }
        let per_element = if is_struct {
            let mut ids = 0;
            text_ids(text, &element, "", &mut ids, &mut Vec::new());
            ids
        } else {
            1
        };
        let resource = element.contains('*')
            || element.starts_with("texture")
            || element.starts_with("depth")
            || element.starts_with("sampler");
        if resource {
            out.push((path, *next));
        }
        *next += per_element * count;
    }
}

#[test]
fn argument_buffer_ids_past_matrices_are_the_ones_the_code_gives() {
    let file = test_shaders_dir().join("argument_ids_after_matrices.slang");
    let bytes = bake_metal(vec![file]).expect("bakes for Metal");
    assert_eq!(check_package("argument_ids_after_matrices", &bytes), 1);
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("argument_ids_after_matrices").unwrap();
    let view = entry.bind().target(Target::Metal);
    let text = entry
        .entry_points()
        .next()
        .unwrap()
        .code(Target::Metal)
        .unwrap()
        .text()
        .unwrap();
    let mut ids = Vec::new();
    text_ids(text, "Shading_default_0", "gShading.", &mut 0, &mut ids);
    // By the rules, by hand: the float4x4 is id 0, then albedo 1, the float3x3 2, lights 3,
    // the two layers 4 and 5, the nested struct's float 6 and float2x2 7, its map 8 and
    // sampler 9, linear 10 (Slang's layout: 4, 8, 9, 14, 15, 16).
    let expected = [
        ("gShading.albedo", 1),
        ("gShading.lights", 3),
        ("gShading.layers", 4),
        ("gShading.lookup.map", 8),
        ("gShading.lookup.sampler", 9),
        ("gShading.linear", 10),
    ];
    let expected: Vec<(String, u32)> = expected.iter().map(|&(p, i)| (p.to_string(), i)).collect();
    assert_eq!(ids, expected, "{text}");
    for (path, id) in &ids {
        let b = view
            .find(path)
            .unwrap_or_else(|| panic!("no binding {path}"));
        assert_eq!(b.index, *id, "{path}");
    }
}

/// An interface-typed field of a parameter block (`IPattern pattern`, its one conformance
/// `Wave`), with a texture, a sampler and a matrix after it: the stored struct is the emitted
/// one (the existential's header and payload words where the code puts them) and the
/// resources after it hold the ids the code gives them by Metal's rules, which Slang's Metal
/// layout numbers without the existential's members (albedo 1, linear 2).
#[test]
fn argument_buffer_ids_and_bytes_past_an_existential_are_the_ones_the_code_gives() {
    let file = test_shaders_dir().join("specialized/existential_argument_buffer.toml");
    let bytes = bake_metal(vec![file]).expect("bakes for Metal");
    assert_eq!(check_package("existential_argument_buffer", &bytes), 1);
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("existential_argument_buffer").unwrap();
    let view = entry.bind().target(Target::Metal);
    let text = entry
        .entry_points()
        .next()
        .unwrap()
        .code(Target::Metal)
        .unwrap()
        .text()
        .unwrap();
    // The emitted struct: the existential is Slang's tuple of two `uint2`s and the payload's
    // four `uint` words, between the float4 and the texture.
    let code_struct = |name: &str| {
        let open = text
            .find(&format!("struct {name}\n{{"))
            .unwrap_or_else(|| panic!("{name}"));
        let body = &text[open..];
        let fields: Vec<String> = body[body.find('{').unwrap() + 1..body.find("};").unwrap()]
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        fields
    };
    let surface = code_struct("Surface_default_0");
    let tuple = surface[1].split_whitespace().next().unwrap().to_string();
    assert_eq!(surface[1], format!("{tuple} pattern_0;"), "{text}");
    assert!(surface[2].starts_with("texture2d<float"), "{text}");
    let header = code_struct(&tuple);
    assert_eq!(
        header[..2],
        ["uint2 value0_0;", "uint2 value1_0;"],
        "{text}"
    );
    let payload = header[2].split_whitespace().next().unwrap();
    assert_eq!(code_struct(payload).len(), PAYLOAD_WORDS as usize, "{text}");

    let mut ids = Vec::new();
    text_ids(text, "Surface_default_0", "gSurface.", &mut 0, &mut ids);
    // By the rules, by hand: tint 0, the existential's type id 1, witness id 2 and four
    // payload words 3 to 6, albedo 7, linear 8.
    let expected = [("gSurface.albedo", 7), ("gSurface.linear", 8)];
    let expected: Vec<(String, u32)> = expected.iter().map(|&(p, i)| (p.to_string(), i)).collect();
    assert_eq!(ids, expected, "{text}");
    for (path, id) in &ids {
        let b = view
            .find(path)
            .unwrap_or_else(|| panic!("no binding {path}"));
        assert_eq!(b.index, *id, "{path}");
    }
    // Bytes by MSL's rules, by hand: the float4 at 0, the 32-byte existential at 16 (its
    // payload at 32), the texture's and sampler's 8-byte ids at 48 and 56, the float at 64,
    // the float3x3 (three 16-byte vectors) at 80, the uint at 128: 144 bytes.
    let ab = view.find_argument_buffer("gSurface").expect("gSurface");
    let at = |path: &str| {
        let m = ab.member(path).unwrap_or_else(|| panic!("{path}"));
        (m.member_kind(), m.offset, m.size, m.id)
    };
    assert_eq!(ab.size(), 144);
    assert_eq!(at("pattern"), (K::Struct, 16, 32, 1));
    assert_eq!(at("pattern.value1"), (K::Data, 24, 8, 2));
    assert_eq!(at("pattern.value2.field3"), (K::Data, 44, 4, 6));
    assert_eq!(at("albedo"), (K::Texture, 48, 8, 7));
    assert_eq!(at("linear"), (K::Sampler, 56, 8, 8));
    assert_eq!(at("basis"), (K::Data, 80, 48, 10));
    assert_eq!(at("flags"), (K::Data, 128, 4, 11));
}

#[test]
fn every_program_that_bakes_for_metal_has_its_argument_buffers_checked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Every test and example program, and the specialized programs' manifests.
    let mut files: Vec<PathBuf> = [
        root.join("shaders"),
        root.join("shaders/specialized"),
        root.join("../examples/shaders"),
        root.join("../examples/wgpu/shaders"),
    ]
    .iter()
    .flat_map(|dir| std::fs::read_dir(dir).unwrap())
    .map(|e| e.unwrap().path())
    .filter(|p| {
        let in_specialized = p.parent().is_some_and(|d| d.ends_with("specialized"));
        p.extension()
            .is_some_and(|e| e == if in_specialized { "toml" } else { "slang" })
    })
    .collect();
    files.sort();
    let (mut baked, mut checked) = (0, 0);
    for file in files {
        let Some(bytes) = bake_metal(vec![file.clone()]) else {
            continue;
        };
        baked += 1;
        checked += check_package(&file.display().to_string(), &bytes);
    }
    // The argument buffers of argument_buffers (3), proof_blocks (2), the examples' pbr (2),
    // wgpu_compute, wgpu_render, scale and the specialized blocks: every one that bakes for
    // Metal.
    assert!(baked >= 20, "only {baked} programs baked for Metal");
    assert!(checked >= 10, "only {checked} argument buffers checked");
}

//! Sizes and alignments of the types of Slang's Metal code, computed from the emitted text by
//! the Metal Shading Language specification's rules (section 2, "Data types": scalars, vectors,
//! packed vectors, matrices, arrays, structs), independent of Slang's reflection.
//!
//! The rules: a scalar's size and alignment are its width (`bool`, `char` 1; `short`, `half` 2;
//! `int`, `uint`, `float` 4; `long`, `ulong` 8); a vector of 2 has twice the scalar's size and
//! alignment, a vector of 3 or 4 four times (a `float3` takes 16 bytes); a `packed_` vector of N
//! takes N scalars aligned as the scalar; a matrix of C columns of R rows is C column vectors of
//! R (Metal's `matrix<T, C, R>` and `floatCxR`); an array of N elements takes N times the
//! element's size (a multiple of its alignment), aligned as the element; a struct places each
//! member at the next multiple of the member's alignment, is aligned as its most aligned member
//! and its size is rounded up to that alignment; a pointer (`device T*`, `constant T*`) takes
//! 8 bytes. Textures, samplers and types this file does not know give `None`: unknown, never
//! a guess.

use super::MAX_DEPTH;
use slangpack_format::ArgumentMemberKind;

/// A struct of the code: its name and its members (type, then name).
pub(crate) type Struct = (String, Vec<(String, String)>);

/// The size and alignment in bytes of type `ty` of the code (`float3`, `array<Item_0, int(2)>`,
/// `matrix<float,int(3),int(4)>`, `Params_0`, `Light_0 constant*`, `float x[int(3)]`'s
/// `float [int(3)]`), with `structs` the code's structs; `None` when the type is unknown.
pub(crate) fn size_align(structs: &[Struct], ty: &str) -> Option<(u32, u32)> {
    layout_of(structs, ty, 0)
}

/// The member layout of struct `name` (a uniform buffer's type) by Metal's rules: every
/// member in pre-order with the bind view's paths (Slang's `_N` suffixes dropped, `[]` for an
/// array's element, element-relative offsets inside one), Slang's wrappers (`_Array_*` of one
/// `data_N` array, `_MatrixStorage_*` of one array of a matrix's vectors) read as what they
/// wrap; `None` when a member's layout is unknown.
pub(crate) fn struct_shape(structs: &[Struct], name: &str) -> Option<super::BufferShape> {
    let mut shape = super::BufferShape::new("Metal's layout rules");
    shape_members(structs, name.trim(), 0, "", 0, &mut shape.members)?;
    Some(shape)
}

fn shape_members(
    structs: &[Struct],
    name: &str,
    base: u32,
    prefix: &str,
    depth: usize,
    out: &mut Vec<super::CodeMember>,
) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    let (_, fields) = structs.iter().find(|(n, _)| n == name)?;
    let mut offset = 0u32;
    for (ty, field) in fields {
        if let Some(size) = argument(ty) {
            // A resource of an argument buffer: no uniform data, but it takes its place.
            offset = offset.checked_next_multiple_of(size)?.checked_add(size)?;
            continue;
        }
        let (size, align) = layout_of(structs, ty, depth + 1)?;
        offset = offset.checked_next_multiple_of(align)?;
        let field = super::strip_suffix(field);
        let path = if prefix.is_empty() {
            field
        } else {
            format!("{prefix}.{field}")
        };
        let at = base.checked_add(offset)?;
        let ty = unwrap(structs, ty.trim());
        let (stride, element) = match array_element(ty) {
            Some(element) => {
                let (s, a) = layout_of(structs, element, depth + 1)?;
                (s.checked_next_multiple_of(a)?, Some(element))
            }
            None if ty.starts_with("_MatrixStorage_") => {
                // One array of the matrix's vectors: the vectors' stride.
                let inner = structs.iter().find(|(n, _)| n == ty)?.1.first()?;
                let vector = array_element(inner.0.trim())?;
                let (s, a) = layout_of(structs, vector, depth + 1)?;
                (s.checked_next_multiple_of(a)?, None)
            }
            None => (matrix_stride(ty).unwrap_or(0), None),
        };
        out.push(super::CodeMember {
            path: path.clone(),
            offset: at,
            size: Some(size),
            stride,
        });
        match element {
            Some(e) if structs.iter().any(|(n, _)| n == e.trim()) => {
                shape_members(structs, e.trim(), 0, &format!("{path}[]"), depth + 1, out)?;
            }
            None if structs.iter().any(|(n, _)| n == ty) && !ty.starts_with("_MatrixStorage_") => {
                shape_members(structs, ty, at, &path, depth + 1, out)?;
            }
            _ => {}
        }
        offset = offset.checked_add(size)?;
    }
    Some(())
}

/// One member of an argument buffer's struct as the code lays it out (tier 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ArgumentMember {
    /// Path from the argument buffer, Slang's `_N` suffixes dropped, `[]` for an array
    /// element's members.
    pub path: String,
    /// What it is; a `constant` pointer reads as [`ArgumentMemberKind::Buffer`] here (the
    /// bind view says which of them are nested argument buffers).
    pub kind: ArgumentMemberKind,
    /// Byte offset from the struct's start, or from the array element's inside one.
    pub offset: u32,
    /// Size in bytes (an array's: all of it).
    pub size: u32,
    /// Alignment in bytes.
    pub alignment: u32,
    /// Array element count, 0 when not an array.
    pub count: u32,
    /// Bytes between array elements, 0 when not an array.
    pub stride: u32,
    /// The member's `[[id(n)]]`: the code's, else the one Metal assigns implicitly; absent
    /// inside an array element.
    pub id: u32,
    /// Whether the code states the id.
    pub explicit_id: bool,
    /// Whether the member lies inside an array element (its offset is from the element's).
    pub element_relative: bool,
    /// Whether a member Slang's Metal layout numbers otherwise than Metal's documented rules
    /// precedes the member in the id numbering: a matrix (one member by Metal's rules; one
    /// id per vector in Slang's layout) or an existential (an interface-typed value: the
    /// code's `Tuple_...` of a type id, a witness-table id and the payload words, one id each
    /// by Metal's rules; no id in Slang's layout).
    pub after_renumbered: bool,
}

/// An argument buffer's struct as the code lays it out: size, alignment and every member in
/// pre-order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ArgumentStruct {
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes.
    pub alignment: u32,
    /// Every member, nested structs' and array elements' included, in pre-order.
    pub members: Vec<ArgumentMember>,
}

/// The `[[id(n)]]` the code states for member `field` of struct `name`, if any.
pub(crate) type ExplicitId<'f> = &'f dyn Fn(&str, &str) -> Option<u32>;

/// Lays out struct `name` as a tier-2 argument buffer: buffers are 8-byte pointers, textures
/// and samplers 8-byte resource ids (both aligned to 8), plain data by Metal's rules (as
/// [`size_align`]), Slang's `_Array_*` wrappers read as the array they hold. Ids follow
/// Metal's implicit numbering (Apple's "Indexing argument buffers": one per member that is
/// not an array or struct — a scalar, vector, matrix, pointer, texture or sampler —, an array
/// its count times its element's, a struct the sum of its members'), restarting at an
/// explicit `[[id(n)]]` (`explicit`). `None` when a member's type is unknown.
pub(crate) fn argument_struct(
    structs: &[Struct],
    name: &str,
    explicit: ExplicitId<'_>,
) -> Option<ArgumentStruct> {
    let mut members = Vec::new();
    let (size, alignment, _, _) = argument_fields(
        structs,
        name.trim(),
        &Placing::TOP,
        0,
        explicit,
        &mut Some(&mut members),
    )?;
    Some(ArgumentStruct {
        size,
        alignment,
        members,
    })
}

/// Where the members of one struct go: under `prefix`, at byte `base`, ids from `first_id`
/// (`None` inside an array element).
struct Placing<'p> {
    prefix: &'p str,
    base: u32,
    first_id: Option<u32>,
    element_relative: bool,
    after_renumbered: bool,
}

impl Placing<'static> {
    /// A struct on its own: at byte 0, ids from 0.
    const TOP: Placing<'static> = Placing {
        prefix: "",
        base: 0,
        first_id: Some(0),
        element_relative: false,
        after_renumbered: false,
    };
}

/// The fields of struct `name`: (size, alignment, ids taken, whether a matrix or an existential
/// is among them, see [`ArgumentMember::after_renumbered`]);
/// pushes every member to `out` when given.
fn argument_fields(
    structs: &[Struct],
    name: &str,
    at: &Placing<'_>,
    depth: usize,
    explicit: ExplicitId<'_>,
    out: &mut Option<&mut Vec<ArgumentMember>>,
) -> Option<(u32, u32, u32, bool)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let (_, fields) = structs.iter().find(|(n, _)| n == name)?;
    let (mut offset, mut align, mut ids, mut matrix) = (0u32, 1u32, 0u32, false);
    for (ty, field) in fields {
        let ty = unwrap(structs, ty.trim().trim_start_matches("const ").trim());
        let (size, a, n, has_matrix) =
            argument_member(structs, ty, depth + 1, explicit, &mut None, None)?;
        let has_matrix = has_matrix || existential_tuple(structs, ty);
        offset = offset.checked_next_multiple_of(a)?;
        if let (Some(first), Some(stated)) = (at.first_id, explicit(name, field)) {
            // An explicit id restarts the numbering: later members follow it.
            ids = stated.checked_sub(first)?;
        }
        if let Some(list) = out {
            let stripped = super::strip_suffix(field);
            let path = if at.prefix.is_empty() {
                stripped
            } else {
                format!("{}.{stripped}", at.prefix)
            };
            let place = MemberPlace {
                path,
                offset: at.base.checked_add(offset)?,
                id: at.first_id.and_then(|f| f.checked_add(ids)),
                explicit_id: at.first_id.is_some() && explicit(name, field).is_some(),
                element_relative: at.element_relative,
                after_renumbered: at.after_renumbered || matrix,
            };
            argument_member(
                structs,
                ty,
                depth + 1,
                explicit,
                &mut Some(list),
                Some(place),
            )?;
        }
        offset = offset.checked_add(size)?;
        align = align.max(a);
        ids = ids.checked_add(n)?;
        matrix |= has_matrix;
    }
    Some((offset.checked_next_multiple_of(align)?, align, ids, matrix))
}

/// Whether `ty` is the struct Slang emits for an existential (an interface-typed value):
/// `Tuple_...` whose first two fields are the `uint2` type id and witness-table id
/// (`value0_N`, `value1_N`), the payload words after them.
fn existential_tuple(structs: &[Struct], ty: &str) -> bool {
    let Some((_, fields)) = structs.iter().find(|(n, _)| n == ty) else {
        return false;
    };
    let header = |i: usize, name: &str| {
        fields
            .get(i)
            .is_some_and(|(t, f)| t.trim() == "uint2" && super::strip_suffix(f) == name)
    };
    ty.starts_with("Tuple_") && header(0, "value0") && header(1, "value1")
}

/// A member's place, when it is pushed.
struct MemberPlace {
    path: String,
    offset: u32,
    id: Option<u32>,
    explicit_id: bool,
    element_relative: bool,
    after_renumbered: bool,
}

/// The kind, size and alignment of an argument buffer's resource type (tier 2); `None` for
/// plain data and structs.
fn resource_kind(ty: &str) -> Option<ArgumentMemberKind> {
    let ty = ty.trim();
    if ty.ends_with('*') || ty.ends_with(" constant") || ty.ends_with(" device") {
        return Some(ArgumentMemberKind::Buffer);
    }
    if ty.starts_with("texture") || ty.starts_with("depth") {
        return Some(ArgumentMemberKind::Texture);
    }
    (ty == "sampler").then_some(ArgumentMemberKind::Sampler)
}

/// One member of type `ty`: (size, alignment, ids taken, whether it is or holds a matrix);
/// with `place`, pushes it (and its
/// struct's or array element's members) to `out`.
fn argument_member(
    structs: &[Struct],
    ty: &str,
    depth: usize,
    explicit: ExplicitId<'_>,
    out: &mut Option<&mut Vec<ArgumentMember>>,
    place: Option<MemberPlace>,
) -> Option<(u32, u32, u32, bool)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let ty = unwrap(structs, ty.trim());
    let array = array_element(ty).and_then(|e| {
        let n = match ty.strip_suffix(']').and_then(|t| t.rfind('[')) {
            Some(open) => count(&ty[open + 1..ty.len() - 1]),
            None => template_args(ty, "array").and_then(|a| count(a.get(1)?)),
        }?;
        Some((unwrap(structs, e.trim()), n))
    });
    let (element, count) = array.unwrap_or((ty, 0));
    let is_struct = structs.iter().any(|(n, _)| n == element);
    let (size, align, ids, matrix, kind) = if let Some(kind) = resource_kind(element) {
        (8, 8, 1, false, kind)
    } else if is_struct {
        let mut none = None;
        let (s, a, n, m) = argument_fields(
            structs,
            element,
            &Placing::TOP,
            depth + 1,
            explicit,
            &mut none,
        )?;
        (s, a, n, m, ArgumentMemberKind::Struct)
    } else {
        let (s, a) = layout_of(structs, element, depth + 1)?;
        let matrix = template_args(element, "matrix").is_some() || matrix_stride(element).is_some();
        (s, a, 1, matrix, ArgumentMemberKind::Data)
    };
    let stride = size.checked_next_multiple_of(align)?;
    let (total, total_ids) = if array.is_some() {
        (stride.checked_mul(count)?, ids.checked_mul(count)?)
    } else {
        (size, ids)
    };
    if let (Some(list), Some(place)) = (out.as_deref_mut(), place) {
        list.push(ArgumentMember {
            path: place.path.clone(),
            kind,
            offset: place.offset,
            size: total,
            alignment: align,
            count,
            stride: if array.is_some() { stride } else { 0 },
            id: place.id.unwrap_or(slangpack_format::ABSENT),
            explicit_id: place.explicit_id,
            element_relative: place.element_relative,
            after_renumbered: place.after_renumbered,
        });
        if is_struct {
            let (prefix, base, first_id, element_relative) = if array.is_some() {
                (format!("{}[]", place.path), 0, None, true)
            } else {
                (place.path, place.offset, place.id, place.element_relative)
            };
            let after_renumbered = place.after_renumbered;
            argument_fields(
                structs,
                element,
                &Placing {
                    prefix: &prefix,
                    base,
                    first_id,
                    element_relative,
                    after_renumbered,
                },
                depth + 1,
                explicit,
                &mut Some(list),
            )?;
        }
    }
    Some((total, align, total_ids, matrix))
}

/// The bytes a resource member of an argument buffer's struct takes (tier 2: a texture or
/// sampler is a 64-bit resource id, a buffer a 64-bit pointer); `None` for other types.
fn argument(ty: &str) -> Option<u32> {
    let ty = ty.trim().trim_start_matches("const ").trim();
    // A pointer member's `*` goes with the name when structs are split (`Light_0 constant`).
    let resource = ty.ends_with('*')
        || ty.ends_with(" constant")
        || ty.ends_with(" device")
        || ["texture", "depth", "sampler"]
            .iter()
            .any(|k| ty.starts_with(k));
    resource.then_some(8)
}

/// The array an `_Array_*` wrapper struct holds (its one member, `data_N`), else `ty`.
fn unwrap<'s>(structs: &'s [Struct], ty: &'s str) -> &'s str {
    if !ty.starts_with("_Array_") {
        return ty;
    }
    match structs
        .iter()
        .find(|(n, _)| n == ty)
        .map(|(_, f)| f.as_slice())
    {
        Some([(inner, _)]) if array_element(inner.trim()).is_some() => inner.trim(),
        _ => ty,
    }
}

/// The element type of an array type (`array<T, int(N)>`, `T [int(N)]`).
fn array_element(ty: &str) -> Option<&str> {
    if let Some(open) = ty.strip_suffix(']').and_then(|t| t.rfind('[')) {
        return Some(ty[..open].trim());
    }
    let args = template_args(ty, "array")?;
    match args.as_slice() {
        [element, _] => Some(element),
        _ => None,
    }
}

/// Bytes between a matrix type's column vectors, if it is one.
fn matrix_stride(ty: &str) -> Option<u32> {
    if let Some(args) = template_args(ty, "matrix") {
        let [scalar_ty, _, rows] = args.as_slice() else {
            return None;
        };
        return vector(scalar(scalar_ty)?, count(rows)?).map(|(s, _)| s);
    }
    match numeric(ty)? {
        (s, [_, b'x', r]) => vector(s, u32::from(r.wrapping_sub(b'0'))).map(|(size, _)| size),
        _ => None,
    }
}

/// Lays struct `name` out: its size and alignment; `member` hears each member's name and
/// offset, in declaration order.
fn struct_layout(
    structs: &[Struct],
    name: &str,
    depth: usize,
    member: &mut dyn FnMut(&str, u32),
) -> Option<(u32, u32)> {
    let (_, fields) = structs.iter().find(|(n, _)| n == name)?;
    let (mut offset, mut align) = (0u32, 1u32);
    for (ty, field) in fields {
        let (size, a) = layout_of(structs, ty, depth + 1)?;
        offset = offset.checked_next_multiple_of(a)?;
        member(field, offset);
        offset = offset.checked_add(size)?;
        align = align.max(a);
    }
    Some((offset.checked_next_multiple_of(align)?, align))
}

fn layout_of(structs: &[Struct], ty: &str, depth: usize) -> Option<(u32, u32)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let ty = ty.trim();
    let ty = ty.strip_prefix("const ").unwrap_or(ty).trim();
    // A C array declarator moved onto the type: `float [int(3)]`.
    if let Some(open) = ty.strip_suffix(']').and_then(|t| t.rfind('[')) {
        let count = count(&ty[open + 1..ty.len() - 1])?;
        return array(structs, &ty[..open], count, depth);
    }
    if ty.ends_with('*') {
        return Some((8, 8));
    }
    if let Some(args) = template_args(ty, "array") {
        let [element, n] = args.as_slice() else {
            return None;
        };
        return array(structs, element, count(n)?, depth);
    }
    if let Some(args) = template_args(ty, "matrix") {
        let [scalar_ty, columns, rows] = args.as_slice() else {
            return None;
        };
        return matrix(scalar(scalar_ty)?, count(columns)?, count(rows)?);
    }
    if let Some(packed) = ty.strip_prefix("packed_") {
        return match numeric(packed)? {
            (s, [n]) if (b'2'..=b'4').contains(n) => Some((s * u32::from(n - b'0'), s)),
            _ => None,
        };
    }
    if let Some(s) = scalar(ty) {
        return Some((s, s));
    }
    if let Some((s, shape)) = numeric(ty) {
        return match shape {
            [n] => vector(s, u32::from(n.wrapping_sub(b'0'))),
            [c, b'x', r] => matrix(
                s,
                u32::from(c.wrapping_sub(b'0')),
                u32::from(r.wrapping_sub(b'0')),
            ),
            _ => None,
        };
    }
    struct_layout(structs, ty, depth, &mut |_, _| {})
}

fn array(structs: &[Struct], element: &str, count: u32, depth: usize) -> Option<(u32, u32)> {
    let (size, align) = layout_of(structs, element, depth + 1)?;
    let stride = size.checked_next_multiple_of(align)?;
    Some((stride.checked_mul(count)?, align))
}

fn matrix(scalar: u32, columns: u32, rows: u32) -> Option<(u32, u32)> {
    let (size, align) = vector(scalar, rows)?;
    (2..=4).contains(&columns).then(|| (size * columns, align))
}

fn vector(scalar: u32, n: u32) -> Option<(u32, u32)> {
    let lanes = match n {
        2 => 2,
        3 | 4 => 4,
        _ => return None,
    };
    Some((scalar * lanes, scalar * lanes))
}

/// A vector or matrix name (`float3`, `half4x2`) as (scalar size, the digits and `x` after
/// the scalar), when it starts with a scalar's name.
fn numeric(name: &str) -> Option<(u32, &[u8])> {
    let digit = name.find(|c: char| c.is_ascii_digit())?;
    Some((scalar(&name[..digit])?, &name.as_bytes()[digit..]))
}

/// The size of a scalar type.
fn scalar(name: &str) -> Option<u32> {
    Some(match name.trim() {
        "bool" | "char" | "uchar" | "int8_t" | "uint8_t" => 1,
        "short" | "ushort" | "half" | "int16_t" | "uint16_t" => 2,
        "int" | "uint" | "float" | "int32_t" | "uint32_t" => 4,
        "long" | "ulong" | "int64_t" | "uint64_t" => 8,
        _ => return None,
    })
}

/// An array count or matrix dimension: `3` or `int(3)`.
pub(super) fn count(text: &str) -> Option<u32> {
    let text = text.trim();
    let inner = text
        .strip_prefix("int(")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(text);
    inner.trim().parse().ok()
}

/// The top-level arguments of `name<...>` when `ty` is that template, else `None`.
pub(super) fn template_args<'t>(ty: &'t str, name: &str) -> Option<Vec<&'t str>> {
    let inner = ty
        .strip_prefix(name)?
        .trim_start()
        .strip_prefix('<')?
        .strip_suffix('>')?;
    let (mut depth, mut from, mut out) = (0i32, 0, Vec::new());
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(inner[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(inner[from..].trim());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offset of every member of struct `name`, in declaration order, and its size.
    fn member_offsets(structs: &[Struct], name: &str) -> Option<(Vec<u32>, u32)> {
        let mut offsets = Vec::new();
        let (size, _) = struct_layout(structs, name, 0, &mut |_, o| offsets.push(o))?;
        Some((offsets, size))
    }

    fn structs(list: &[(&str, &[(&str, &str)])]) -> Vec<Struct> {
        list.iter()
            .map(|(name, fields)| {
                let fields = fields
                    .iter()
                    .map(|(t, n)| ((*t).to_string(), (*n).to_string()))
                    .collect();
                ((*name).to_string(), fields)
            })
            .collect()
    }

    #[test]
    fn scalars_vectors_matrices_and_pointers_follow_the_metal_spec() {
        let none = structs(&[]);
        for (ty, expected) in [
            ("float", (4, 4)),
            ("half", (2, 2)),
            ("bool", (1, 1)),
            ("float2", (8, 8)),
            ("float3", (16, 16)),
            ("uint4", (16, 16)),
            ("half3", (8, 8)),
            ("packed_float3", (12, 4)),
            ("float4x4", (64, 16)),
            ("float2x3", (32, 16)),
            ("float3x2", (24, 8)),
            ("matrix<float,int(3),int(4)>", (48, 16)),
            ("matrix<float,int(2),int(2)>", (16, 8)),
            ("array<float, int(3)>", (12, 4)),
            ("array<float3, int(2)>", (32, 16)),
            ("float [int(3)]", (12, 4)),
            ("Light_0 constant*", (8, 8)),
            ("uint device*", (8, 8)),
        ] {
            assert_eq!(size_align(&none, ty), Some(expected), "{ty}");
        }
        for unknown in [
            "texture2d<float, access::sample>",
            "sampler",
            "Nope_0",
            "float5",
        ] {
            assert_eq!(size_align(&none, unknown), None, "{unknown}");
        }
    }

    #[test]
    fn structs_pad_members_to_their_alignment_and_round_their_size() {
        // proof_blocks' Scene as Slang writes it for Metal: the float3 takes 16 bytes, so
        // `frame` is at 80 (std140 puts it at 76).
        let s = structs(&[
            (
                "Light_0",
                &[("float3 ", "direction_0"), ("float ", "intensity_0")],
            ),
            (
                "Scene_0",
                &[
                    ("matrix<float,int(4),int(4)> ", "viewProjection_0"),
                    ("float3 ", "cameraPosition_0"),
                    ("uint ", "frame_0"),
                    ("array<Light_0, int(2)> ", "lights_0"),
                ],
            ),
        ]);
        assert_eq!(size_align(&s, "Light_0"), Some((32, 16)));
        let (offsets, size) = member_offsets(&s, "Scene_0").unwrap();
        assert_eq!(offsets, [0, 64, 80, 96]);
        assert_eq!(size, 160);
        // A struct holding a member of unknown layout has none.
        let t = structs(&[("T_0", &[("float ", "a_0"), ("texture2d<float> ", "t_0")])]);
        assert_eq!(member_offsets(&t, "T_0"), None);
    }

    #[test]
    fn argument_structs_nest_structs_and_arrays_and_count_a_matrix_as_one_id() {
        use slangpack_format::ArgumentMemberKind as K;
        // A struct of a texture and a float, in an array of 2 and on its own; a matrix, then a
        // sampler: Apple's rules give the matrix one id, the array its elements' ids.
        let s = structs(&[
            (
                "Pair_0",
                &[
                    ("texture2d<float, access::sample> ", "t_0"),
                    ("float ", "k_0"),
                ],
            ),
            (
                "_Array_default_Pair2_0",
                &[("array<Pair_0, int(2)> ", "data_0")],
            ),
            (
                "B_0",
                &[
                    ("bool ", "on_0"),
                    ("_Array_default_Pair2_0 ", "pairs_0"),
                    ("Pair_0 ", "one_0"),
                    ("matrix<float,int(4),int(4)> ", "m_0"),
                    ("sampler ", "s_0"),
                    ("half ", "h_0"),
                ],
            ),
        ]);
        let ab = argument_struct(&s, "B_0", &|_, _| None).unwrap();
        let got: Vec<_> = ab
            .members
            .iter()
            .map(|m| {
                let id = (m.id != slangpack_format::ABSENT).then_some(m.id);
                (
                    m.path.as_str(),
                    m.kind,
                    m.offset,
                    m.size,
                    m.count,
                    m.stride,
                    id,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("on", K::Data, 0, 1, 0, 0, Some(0)),
                ("pairs", K::Struct, 8, 32, 2, 16, Some(1)),
                ("pairs[].t", K::Texture, 0, 8, 0, 0, None),
                ("pairs[].k", K::Data, 8, 4, 0, 0, None),
                ("one", K::Struct, 40, 16, 0, 0, Some(5)),
                ("one.t", K::Texture, 40, 8, 0, 0, Some(5)),
                ("one.k", K::Data, 48, 4, 0, 0, Some(6)),
                ("m", K::Data, 64, 64, 0, 0, Some(7)),
                ("s", K::Sampler, 128, 8, 0, 0, Some(8)),
                ("h", K::Data, 136, 2, 0, 0, Some(9)),
            ]
        );
        assert_eq!((ab.size, ab.alignment), (144, 16));
        let after: Vec<bool> = ab.members.iter().map(|m| m.after_renumbered).collect();
        assert_eq!(after[..7], [false; 7]);
        assert_eq!(after[7..], [false, true, true]);
        // A type the rules do not know gives no struct.
        let unknown = structs(&[("U_0", &[("mystery_t ", "x_0")])]);
        assert_eq!(argument_struct(&unknown, "U_0", &|_, _| None), None);
    }

    #[test]
    fn members_past_an_existential_tuple_are_marked_renumbered() {
        // Slang's existential of an interface-typed field: a type id, a witness-table id and
        // four payload words, one id each by Apple's rules (none in Slang's layout). A struct
        // of the same shape not named `Tuple_...` is plain data.
        let s = structs(&[
            (
                "_default_0",
                &[("uint ", "field0_0"), ("uint ", "field1_0")],
            ),
            (
                "Tuple_default_0",
                &[
                    ("uint2 ", "value0_0"),
                    ("uint2 ", "value1_0"),
                    ("_default_0 ", "value2_0"),
                ],
            ),
            ("Pair_0", &[("uint2 ", "value0_0"), ("uint2 ", "value1_0")]),
            (
                "S_0",
                &[
                    ("Pair_0 ", "pair_0"),
                    ("sampler ", "early_0"),
                    ("Tuple_default_0 ", "shading_0"),
                    ("sampler ", "late_0"),
                ],
            ),
        ]);
        let ab = argument_struct(&s, "S_0", &|_, _| None).unwrap();
        let got: Vec<(&str, u32, bool)> = (ab.members.iter())
            .map(|m| (m.path.as_str(), m.id, m.after_renumbered))
            .collect();
        let early = got.iter().find(|m| m.0 == "early").unwrap();
        let late = got.iter().find(|m| m.0 == "late").unwrap();
        assert_eq!((early.1, early.2), (2, false));
        assert_eq!((late.1, late.2), (7, true));
    }

    #[test]
    fn every_member_is_placed_by_metal_rules_with_the_bind_views_paths() {
        // float3 takes 16 aligned to 16, packed_float3 12 aligned to 4, bool 1, a matrix is
        // column vectors (float2x3: 2 columns of float3, 16 apart), an array of structs under
        // `[]` with element-relative offsets, a nested struct with absolute ones; Slang's
        // `_Array_*` wrapper stands for its array.
        let s = structs(&[
            ("Inner_0", &[("bool ", "on_0"), ("float3 ", "v_0")]),
            ("Item_0", &[("float ", "x_0"), ("uint2 ", "y_0")]),
            (
                "_Array_default_Item3_0",
                &[("array<Item_0, int(3)> ", "data_0")],
            ),
            (
                "P_0",
                &[
                    ("float3 ", "a_0"),
                    ("packed_float3 ", "p_0"),
                    ("bool ", "b_0"),
                    ("float2x3 ", "m_0"),
                    ("Inner_0 ", "inner_0"),
                    ("_Array_default_Item3_0 ", "items_0"),
                    ("array<float, int(2)> ", "f_0"),
                ],
            ),
        ]);
        let shape = struct_shape(&s, "P_0").unwrap();
        let got: Vec<(&str, u32, u32, u32)> = shape
            .members
            .iter()
            .map(|m| (m.path.as_str(), m.offset, m.size.unwrap_or(0), m.stride))
            .collect();
        assert_eq!(
            got,
            [
                ("a", 0, 16, 0),
                ("p", 16, 12, 0),
                ("b", 28, 1, 0),
                ("m", 32, 32, 16),
                ("inner", 64, 32, 0),
                ("inner.on", 64, 1, 0),
                ("inner.v", 80, 16, 0),
                ("items", 96, 48, 16),
                ("items[].x", 0, 4, 0),
                ("items[].y", 8, 8, 0),
                ("f", 144, 8, 4),
            ]
        );
        assert_eq!(size_align(&s, "P_0"), Some((160, 16)));
    }
}

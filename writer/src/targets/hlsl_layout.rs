//! Sizes of the constant buffers of Slang's HLSL code, computed from the emitted text by
//! HLSL's documented packing rules for constant variables, independent of Slang's reflection
//! (glslang's `--hlsl-offsets` is no oracle here: it gives an array of 16-byte structs a
//! 32-byte stride, where HLSL packs them at 16).
//!
//! The rules: constants are packed into 16-byte registers; a scalar takes 4 bytes (`double` 8)
//! and a vector its components, placed at the current offset unless it would straddle a
//! register, then at the next one; an array starts a register, each element but the last
//! taking whole registers; a struct starts a register and takes its members packed from its
//! start (its size is not rounded up); a matrix starts a register and is an array of its rows
//! (row-major) or columns (column-major), the default major being column unless the code says
//! `#pragma pack_matrix(row_major)`. A buffer's size is the end of its last member. Types this
//! file does not know (16-bit types, resources) give `None`: unknown, never a guess.

use super::metal_layout::{count, template_args, Struct};
use super::MAX_DEPTH;
/// Bytes in a constant-buffer register.
const REGISTER: u32 = 16;

/// The size of the constant buffer declared at `register_at` (the byte offset of its
/// `register(bN)`): a `cbuffer NAME : register(bN) { members }` or a
/// `ConstantBuffer<T> NAME : register(bN)`; `None` when its layout is unknown.
pub(crate) fn cbuffer_size(text: &str, structs: &[Struct], register_at: usize) -> Option<u32> {
    let (fields, row_major) = cbuffer_fields(text, structs, register_at)?;
    members_end(structs, &fields, row_major, 0)
}

/// The member layout of the constant buffer declared at `register_at` (as [`cbuffer_size`]),
/// by HLSL's packing rules: every member in pre-order with the bind view's paths (Slang's `_N`
/// suffixes dropped, `[]` for an array's element, element-relative offsets inside one);
/// `None` when a member's layout is unknown. A buffer whose one member is a struct (Slang's
/// `cbuffer gParams_0 { Params_natural_0 gParams_0; }`) also lists that struct's members
/// under no prefix: the bind view's paths start inside it.
pub(crate) fn cbuffer_shape(
    text: &str,
    structs: &[Struct],
    register_at: usize,
) -> Option<super::BufferShape> {
    let (fields, row_major) = cbuffer_fields(text, structs, register_at)?;
    let mut shape = super::BufferShape::new("HLSL's packing rules");
    members(structs, &fields, 0, "", row_major, 0, &mut shape.members)?;
    if let [(ty, _)] = fields.as_slice() {
        if let Some((_, inner)) = structs.iter().find(|(n, _)| n == ty.trim()) {
            members(structs, inner, 0, "", row_major, 0, &mut shape.members)?;
        }
    }
    Some(shape)
}

/// The members of the constant buffer declared at `register_at`, and whether matrices are
/// row-major by default (`#pragma pack_matrix(row_major)`).
fn cbuffer_fields(
    text: &str,
    structs: &[Struct],
    register_at: usize,
) -> Option<(Vec<(String, String)>, bool)> {
    let row_major = text.contains("#pragma pack_matrix(row_major)");
    let line_start = text[..register_at]
        .rfind(['\n', ';', '}'])
        .map_or(0, |i| i + 1);
    let declaration = text[line_start..register_at].trim();
    if declaration.starts_with("ConstantBuffer") {
        let ty = &declaration[..=declaration.rfind('>')?];
        let args = template_args(ty, "ConstantBuffer")?;
        let [element] = args.as_slice() else {
            return None;
        };
        let element = element.trim();
        let fields = match structs.iter().find(|(n, _)| n == element) {
            Some((_, fields)) => fields.clone(),
            // A `ConstantBuffer<float4>`: one unnamed value.
            None => vec![(element.to_string(), String::new())],
        };
        return Some((fields, row_major));
    }
    if !declaration.starts_with("cbuffer ") {
        return None;
    }
    let after = &text[register_at..];
    let body = &after[after.find('{')? + 1..];
    let body = &body[..body.find('}')?];
    let fields: Vec<(String, String)> = body
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|decl| {
            let (ty, field) = decl.rsplit_once(char::is_whitespace)?;
            let (field, dims) = field.split_at(field.find('[').unwrap_or(field.len()));
            Some((format!("{ty} {dims}"), field.to_string()))
        })
        .collect::<Option<_>>()?;
    Some((fields, row_major))
}

/// Places `fields` packed from offset 0 of a struct (or buffer) that starts at `base`, pushing
/// each with its path under `prefix` and its offset from `base`'s own start (the buffer's, or
/// an array element's), then its struct's members.
fn members(
    structs: &[Struct],
    fields: &[(String, String)],
    base: u32,
    prefix: &str,
    row_major: bool,
    depth: usize,
    out: &mut Vec<super::CodeMember>,
) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut end = 0;
    for (ty, name) in fields {
        let (start, stop) = place(structs, ty, end, row_major, depth + 1)?;
        end = stop;
        let name = super::strip_suffix(name);
        let path = match (prefix.is_empty(), name.is_empty()) {
            (_, true) => prefix.to_string(),
            (true, _) => name,
            _ => format!("{prefix}.{name}"),
        };
        // Slang's wrapper of an array (`_Array_natural_Surface2_0 { Surface_natural_0
        // data_1[int(2)]; }`) stands for the array it holds.
        let ty = match structs.iter().find(|(n, _)| n == bare(ty)) {
            Some((n, f)) if n.starts_with("_Array_") => match f.as_slice() {
                [(inner, field)] if super::strip_suffix(field) == "data" => inner.as_str(),
                _ => ty.as_str(),
            },
            _ => ty.as_str(),
        };
        let (element, count) = split_array(ty);
        let element_row_major = majorness(element, row_major);
        let element = bare(element);
        // Slang's storage of a matrix whose major is not the code's default: a struct of one
        // array of its rows or columns (`_MatrixStorage_float3x4_ColMajornatural_0`).
        let storage = element.starts_with("_MatrixStorage_");
        let (_, element_size) = place(structs, element, 0, element_row_major, depth + 1)?;
        let stride = if count.is_some() {
            element_size.checked_next_multiple_of(REGISTER)?
        } else if storage || matrix_shape(element).is_some() {
            REGISTER
        } else {
            0
        };
        out.push(super::CodeMember {
            path: path.clone(),
            offset: base.checked_add(start)?,
            size: Some(stop - start),
            stride,
        });
        if storage {
            continue;
        }
        if let Some((_, inner)) = structs.iter().find(|(n, _)| n == element) {
            if count.is_some() {
                members(
                    structs,
                    inner,
                    0,
                    &format!("{path}[]"),
                    element_row_major,
                    depth + 1,
                    out,
                )?;
            } else {
                members(
                    structs,
                    inner,
                    base.checked_add(start)?,
                    &path,
                    element_row_major,
                    depth + 1,
                    out,
                )?;
            }
        }
    }
    Some(())
}

/// A type with its array declarator split off: (element type, count).
fn split_array(ty: &str) -> (&str, Option<u32>) {
    let ty = ty.trim();
    match ty.strip_suffix(']').and_then(|t| t.rfind('[')) {
        Some(open) => (ty[..open].trim(), count(&ty[open + 1..ty.len() - 1])),
        None => (ty, None),
    }
}

/// Whether a matrix of type `ty` is row-major, given the default.
fn majorness(ty: &str, row_major: bool) -> bool {
    let ty = ty.trim_start().trim_start_matches("const ");
    if ty.starts_with("row_major ") {
        true
    } else if ty.starts_with("column_major ") {
        false
    } else {
        row_major
    }
}

/// A type without its `row_major`, `column_major` and `const` modifiers.
fn bare(ty: &str) -> &str {
    let mut ty = ty.trim();
    for m in ["const ", "row_major ", "column_major "] {
        ty = ty.strip_prefix(m).map_or(ty, str::trim_start);
    }
    ty
}

/// The rows and columns of a matrix type (`float3x4`, `matrix<float, 3, 4>`), if it is one.
fn matrix_shape(ty: &str) -> Option<(u32, u32)> {
    if let Some(args) = template_args(ty, "matrix") {
        let [_, rows, columns] = args.as_slice() else {
            return None;
        };
        return Some((count(rows)?, count(columns)?));
    }
    let digit = ty.find(|c: char| c.is_ascii_digit())?;
    scalar(&ty[..digit])?;
    match ty.as_bytes()[digit..] {
        [r, b'x', c] => Some((
            u32::from(r.wrapping_sub(b'0')),
            u32::from(c.wrapping_sub(b'0')),
        )),
        _ => None,
    }
}

/// The end of the last of `fields` packed from offset 0.
fn members_end(
    structs: &[Struct],
    fields: &[(String, String)],
    row_major: bool,
    depth: usize,
) -> Option<u32> {
    let mut end = 0;
    for (ty, _) in fields {
        end = place(structs, ty, end, row_major, depth + 1)?.1;
    }
    Some(end)
}

/// Where type `ty` goes when the previous member ends at `offset`: (start, end).
fn place(
    structs: &[Struct],
    ty: &str,
    offset: u32,
    row_major: bool,
    depth: usize,
) -> Option<(u32, u32)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut ty = ty.trim();
    let mut row_major = row_major;
    loop {
        if let Some(rest) = ty.strip_prefix("row_major ") {
            (ty, row_major) = (rest.trim_start(), true);
        } else if let Some(rest) = ty.strip_prefix("column_major ") {
            (ty, row_major) = (rest.trim_start(), false);
        } else if let Some(rest) = ty.strip_prefix("const ") {
            ty = rest.trim_start();
        } else {
            break;
        }
    }
    let register_start = offset.checked_next_multiple_of(REGISTER)?;
    // A C array declarator moved onto the type: `float [int(3)]`.
    if let Some(open) = ty.strip_suffix(']').and_then(|t| t.rfind('[')) {
        let n = count(&ty[open + 1..ty.len() - 1])?;
        let (_, size) = place(structs, &ty[..open], 0, row_major, depth + 1)?;
        return array(register_start, size, n);
    }
    if let Some(s) = scalar(ty) {
        return vector(offset, s);
    }
    if let Some(args) = template_args(ty, "vector") {
        let [scalar_ty, n] = args.as_slice() else {
            return None;
        };
        return vector(offset, scalar(scalar_ty)?.checked_mul(count(n)?)?);
    }
    if let Some(args) = template_args(ty, "matrix") {
        let [scalar_ty, rows, columns] = args.as_slice() else {
            return None;
        };
        return matrix(
            register_start,
            scalar(scalar_ty)?,
            count(rows)?,
            count(columns)?,
            row_major,
        );
    }
    if let Some(digit) = ty.find(|c: char| c.is_ascii_digit()) {
        if let Some(s) = scalar(&ty[..digit]) {
            return match ty.as_bytes()[digit..] {
                [n] => vector(offset, s * u32::from(n.wrapping_sub(b'0'))),
                [r, b'x', c] => matrix(
                    register_start,
                    s,
                    u32::from(r.wrapping_sub(b'0')),
                    u32::from(c.wrapping_sub(b'0')),
                    row_major,
                ),
                _ => None,
            };
        }
    }
    let (_, fields) = structs.iter().find(|(n, _)| n == ty)?;
    let size = members_end(structs, fields, row_major, depth)?;
    Some((register_start, register_start.checked_add(size)?))
}

/// A scalar or vector of `size` bytes: where it goes, moved to the next register when it
/// would straddle one.
fn vector(offset: u32, size: u32) -> Option<(u32, u32)> {
    if !(1..=REGISTER).contains(&size) {
        return None;
    }
    let start = if offset % REGISTER + size > REGISTER {
        offset.checked_next_multiple_of(REGISTER)?
    } else {
        offset
    };
    Some((start, start.checked_add(size)?))
}

/// `n` elements of `size` bytes from register-aligned `start`, each but the last in whole
/// registers.
fn array(start: u32, size: u32, n: u32) -> Option<(u32, u32)> {
    if n == 0 {
        return None;
    }
    let stride = size.checked_next_multiple_of(REGISTER)?;
    Some((
        start,
        start
            .checked_add(stride.checked_mul(n - 1)?)?
            .checked_add(size)?,
    ))
}

/// A matrix of `rows` x `columns` scalars of `scalar` bytes from register-aligned `start`: an
/// array of its rows (row-major) or columns.
fn matrix(start: u32, scalar: u32, rows: u32, columns: u32, row_major: bool) -> Option<(u32, u32)> {
    if !(1..=4).contains(&rows) || !(1..=4).contains(&columns) {
        return None;
    }
    let (vectors, lanes) = if row_major {
        (rows, columns)
    } else {
        (columns, rows)
    };
    array(start, scalar * lanes, vectors)
}

/// The size of a 32- or 64-bit scalar type of a constant buffer.
fn scalar(name: &str) -> Option<u32> {
    Some(match name.trim() {
        "bool" | "int" | "uint" | "float" | "dword" | "int32_t" | "uint32_t" => 4,
        "double" | "int64_t" | "uint64_t" => 8,
        _ => return None,
    })
}

/// The structured-buffer kinds of HLSL whose element type is their one template argument.
const STRUCTURED_KINDS: [&str; 5] = [
    "StructuredBuffer",
    "RWStructuredBuffer",
    "RasterizerOrderedStructuredBuffer",
    "AppendStructuredBuffer",
    "ConsumeStructuredBuffer",
];

/// The element layout of the structured buffer declared at `register_at` (the byte offset of
/// its `register(tN)` or `register(uN)`: `RWStructuredBuffer<Particle_0 > NAME : register(u0)`),
/// by the rules of HLSL structured buffers, which are not the constant buffers' (no 16-byte
/// registers): a scalar takes its width and is aligned to it, a vector or matrix takes its
/// scalars aligned as one scalar (a `float3` is 12 bytes aligned to 4), a matrix is its rows
/// (row-major) or columns packed, an array's elements are its element's size rounded to its
/// alignment apart, a struct places each member at the next multiple of the member's
/// alignment, is aligned as its most aligned member and rounds its size to that alignment, and
/// the elements of the buffer are the element's rounded size apart. Every member in pre-order
/// with the bind view's paths (none for a scalar, vector or matrix element); `None` for other
/// declarations and unknown layouts (16-bit types).
pub(crate) fn structured_shape(
    text: &str,
    structs: &[Struct],
    register_at: usize,
) -> Option<super::BufferShape> {
    let row_major = text.contains("#pragma pack_matrix(row_major)");
    let line_start = text[..register_at]
        .rfind(['\n', ';', '}'])
        .map_or(0, |i| i + 1);
    let declaration = text[line_start..register_at].trim();
    let open = declaration.find('<')?;
    let start = declaration[..open]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let kind = &declaration[start..open];
    if !STRUCTURED_KINDS.contains(&kind) {
        return None;
    }
    let args = template_args(&declaration[start..=declaration.rfind('>')?], kind)?;
    let [element] = args.as_slice() else {
        return None;
    };
    let element = element.trim();
    let (size, align) = packed(structs, element, row_major, 0)?;
    let mut shape = super::BufferShape::new("HLSL's structured-buffer rules");
    shape.element_stride = Some(size.checked_next_multiple_of(align)?);
    if let Some((_, fields)) = structs.iter().find(|(n, _)| n == bare(element)) {
        packed_members(structs, fields, 0, "", row_major, 0, &mut shape.members)?;
    }
    Some(shape)
}

/// Places `fields` by the structured-buffer rules ([`structured_shape`]) from the start of a
/// struct at `base`, pushing each with its path under `prefix`, then its struct's members.
fn packed_members(
    structs: &[Struct],
    fields: &[(String, String)],
    base: u32,
    prefix: &str,
    row_major: bool,
    depth: usize,
    out: &mut Vec<super::CodeMember>,
) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut end = 0u32;
    for (ty, name) in fields {
        let (size, align) = packed(structs, ty, row_major, depth + 1)?;
        let start = end.checked_next_multiple_of(align)?;
        end = start.checked_add(size)?;
        let name = super::strip_suffix(name);
        let path = match (prefix.is_empty(), name.is_empty()) {
            (_, true) => prefix.to_string(),
            (true, _) => name,
            _ => format!("{prefix}.{name}"),
        };
        let ty = unwrapped(structs, ty);
        let (element, count) = split_array(ty);
        let element_row_major = majorness(element, row_major);
        let element = bare(element);
        let storage = element.starts_with("_MatrixStorage_");
        let stride = if count.is_some() {
            let (s, a) = packed(structs, element, element_row_major, depth + 1)?;
            s.checked_next_multiple_of(a)?
        } else if storage {
            // One array of the matrix's vectors: the vectors' stride.
            let (_, inner) = structs.iter().find(|(n, _)| n == element)?;
            let [(vectors, _)] = inner.as_slice() else {
                return None;
            };
            let (vector, _) = split_array(vectors);
            packed(structs, vector, element_row_major, depth + 1)?.0
        } else {
            match matrix_shape(element) {
                Some((rows, columns)) => {
                    let lanes = if element_row_major { columns } else { rows };
                    packed(structs, element, element_row_major, depth + 1)?
                        .1
                        .checked_mul(lanes)?
                }
                None => 0,
            }
        };
        let at = base.checked_add(start)?;
        out.push(super::CodeMember {
            path: path.clone(),
            offset: at,
            size: Some(size),
            stride,
        });
        if storage {
            continue;
        }
        if let Some((_, inner)) = structs.iter().find(|(n, _)| n == element) {
            let (base, prefix) = match count {
                Some(_) => (0, format!("{path}[]")),
                None => (at, path),
            };
            packed_members(
                structs,
                inner,
                base,
                &prefix,
                element_row_major,
                depth + 1,
                out,
            )?;
        }
    }
    Some(())
}

/// The array Slang's `_Array_*` wrapper struct of type `ty` holds, else `ty`.
fn unwrapped<'s>(structs: &'s [Struct], ty: &'s str) -> &'s str {
    match structs.iter().find(|(n, _)| n == bare(ty)) {
        Some((n, f)) if n.starts_with("_Array_") => match f.as_slice() {
            [(inner, field)] if super::strip_suffix(field) == "data" => inner.as_str(),
            _ => ty,
        },
        _ => ty,
    }
}

/// The size and alignment of type `ty` by the structured-buffer rules ([`structured_shape`]).
fn packed(structs: &[Struct], ty: &str, row_major: bool, depth: usize) -> Option<(u32, u32)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut ty = ty.trim();
    let mut row_major = row_major;
    loop {
        if let Some(rest) = ty.strip_prefix("row_major ") {
            (ty, row_major) = (rest.trim_start(), true);
        } else if let Some(rest) = ty.strip_prefix("column_major ") {
            (ty, row_major) = (rest.trim_start(), false);
        } else if let Some(rest) = ty.strip_prefix("const ") {
            ty = rest.trim_start();
        } else {
            break;
        }
    }
    if let Some(open) = ty.strip_suffix(']').and_then(|t| t.rfind('[')) {
        let n = count(&ty[open + 1..ty.len() - 1])?;
        let (size, align) = packed(structs, &ty[..open], row_major, depth + 1)?;
        return Some((size.checked_next_multiple_of(align)?.checked_mul(n)?, align));
    }
    if let Some(s) = scalar(ty) {
        return Some((s, s));
    }
    if let Some(args) = template_args(ty, "vector") {
        let [scalar_ty, n] = args.as_slice() else {
            return None;
        };
        let s = scalar(scalar_ty)?;
        return Some((s.checked_mul(count(n)?)?, s));
    }
    if let Some(args) = template_args(ty, "matrix") {
        let [scalar_ty, rows, columns] = args.as_slice() else {
            return None;
        };
        let s = scalar(scalar_ty)?;
        return Some((
            s.checked_mul(count(rows)?)?.checked_mul(count(columns)?)?,
            s,
        ));
    }
    if let Some(digit) = ty.find(|c: char| c.is_ascii_digit()) {
        if let Some(s) = scalar(&ty[..digit]) {
            let lanes = match ty.as_bytes()[digit..] {
                [n @ b'1'..=b'4'] => u32::from(n - b'0'),
                [r @ b'1'..=b'4', b'x', c @ b'1'..=b'4'] => {
                    u32::from(r - b'0') * u32::from(c - b'0')
                }
                _ => return None,
            };
            return Some((s * lanes, s));
        }
    }
    let (_, fields) = structs.iter().find(|(n, _)| n == ty)?;
    let (mut end, mut align) = (0u32, 1u32);
    for (field_ty, _) in fields {
        let (size, a) = packed(structs, field_ty, row_major, depth + 1)?;
        end = end.checked_next_multiple_of(a)?.checked_add(size)?;
        align = align.max(a);
    }
    Some((end.checked_next_multiple_of(align)?, align))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hlsl_packing_rules_for_vectors_arrays_structs_and_matrices() {
        let item = (
            "Item_0".to_string(),
            vec![
                ("float ".to_string(), "x_0".to_string()),
                ("uint2 ".to_string(), "y_0".to_string()),
                ("int ".to_string(), "z_0".to_string()),
            ],
        );
        let structs = vec![item];
        let text = "#pragma pack_matrix(row_major)\ncbuffer g_0 : register(b0)\n{\n    float3 a_0;\n    float b_0;\n    float2 c_0;\n    float3 d_0;\n    float  e_0[int(3)];\n    Item_0  f_0[int(2)];\n    float2x3 g_0;\n    column_major float2x3 h_0;\n}\n";
        let at = text.find("register(").unwrap();
        // a 0..12, b 12..16, c 16..24, d 32..44 (would straddle), e 48 + 2*16 + 4 = 84,
        // f 96 + 16 + 16 = 128, g (2 rows of 3) 128 + 16 + 12 = 156, h (3 columns of 2)
        // 160 + 2*16 + 8 = 200.
        assert_eq!(cbuffer_size(text, &structs, at), Some(200));
        let text = "ConstantBuffer<Item_0 > gItem_0 : register(b1);\n";
        let at = text.find("register(").unwrap();
        assert_eq!(cbuffer_size(text, &structs, at), Some(16));
        // Without the pragma a plain matrix is column-major: float2x3 is 3 columns of 2.
        let text = "cbuffer g_0 : register(b0)\n{\n    float2x3 m_0;\n}\n";
        let at = text.find("register(").unwrap();
        assert_eq!(cbuffer_size(text, &structs, at), Some(40));
        // A 16-bit type is not sized: no guess.
        let text = "cbuffer g_0 : register(b0)\n{\n    half h_0;\n}\n";
        let at = text.find("register(").unwrap();
        assert_eq!(cbuffer_size(text, &structs, at), None);
    }

    #[test]
    fn structured_buffers_pack_members_at_their_scalar_alignment() {
        // No 16-byte registers: the float3 after a float sits at 4, the struct holding a
        // float2 and a float3 is 20 bytes aligned to 4, arrays are their element's size apart,
        // a row-major float3x2 is 3 rows of 8 bytes; the element rounds to its alignment.
        let text = "#pragma pack_matrix(row_major)\nstruct S_0\n{\n    float2 a_0;\n    float3 b_0;\n};\nstruct E_0\n{\n    float x_0;\n    float3 y_0;\n    S_0 s_0;\n    S_0  list_0[int(2)];\n    float3x2 m_0;\n    uint2 last_0;\n};\nRWStructuredBuffer<E_0 > gE_0 : register(u0);\nStructuredBuffer<float3 > gV_0 : register(t0);\nByteAddressBuffer gRaw_0 : register(t1);\n";
        let structs = crate::targets::metal::structs(text);
        let at = |name: &str| {
            let declared = text.find(name).unwrap();
            declared + text[declared..].find("register(").unwrap()
        };
        let shape = structured_shape(text, &structs, at("gE_0")).unwrap();
        assert_eq!(shape.element_stride, Some(108));
        assert_eq!(
            shape_rows(&shape),
            rows(&[
                ("x", 0, 4, 0),
                ("y", 4, 12, 0),
                ("s", 16, 20, 0),
                ("s.a", 16, 8, 0),
                ("s.b", 24, 12, 0),
                ("list", 36, 40, 20),
                ("list[].a", 0, 8, 0),
                ("list[].b", 8, 12, 0),
                ("m", 76, 24, 8),
                ("last", 100, 8, 0),
            ])
        );
        let vector = structured_shape(text, &structs, at("gV_0")).unwrap();
        assert_eq!((vector.element_stride, vector.members.len()), (Some(12), 0));
        assert_eq!(structured_shape(text, &structs, at("gRaw_0")), None);
    }

    /// (path, offset, size, stride) of every member of a shape.
    fn shape_rows(shape: &crate::targets::BufferShape) -> Vec<(String, u32, u32, u32)> {
        shape
            .members
            .iter()
            .map(|m| (m.path.clone(), m.offset, m.size.unwrap_or(0), m.stride))
            .collect()
    }

    fn rows(list: &[(&str, u32, u32, u32)]) -> Vec<(String, u32, u32, u32)> {
        list.iter()
            .map(|&(p, o, s, t)| (p.to_string(), o, s, t))
            .collect()
    }

    #[test]
    fn every_member_is_placed_by_hlsl_packing_with_the_bind_views_paths() {
        // Straddling vectors, arrays taking whole registers, a struct starting a register,
        // both majors (the pragma makes plain matrices row-major; Slang's
        // `_MatrixStorage_*ColMajor*` holds a column-major one as an array of columns) and
        // Slang's `_Array_*` wrapper of an array of structs.
        let text = "#pragma pack_matrix(row_major)\nstruct _MatrixStorage_float3x4_ColMajornatural_0\n{\n    float3  data_0[int(4)];\n};\nstruct Item_0\n{\n    float x_0;\n    uint2 y_0;\n    int z_0;\n};\nstruct _Array_natural_Item2_0\n{\n    Item_0  data_1[int(2)];\n};\nstruct P_natural_0\n{\n    float3 a_0;\n    float2 b_0;\n    float  s_0[int(3)];\n    float2x3 r_0;\n    _MatrixStorage_float3x4_ColMajornatural_0 c_0;\n    column_major float2x3 h_0;\n    _Array_natural_Item2_0 items_0;\n    uint last_0;\n};\ncbuffer gP_0 : register(b0)\n{\n    P_natural_0 gP_0;\n}\n";
        let structs = crate::targets::metal::structs(text);
        let at = text.find("register(").unwrap();
        let shape = cbuffer_shape(text, &structs, at).unwrap();
        let got = shape_rows(&shape);
        // a 0..12; b would straddle (12 + 8 > 16): 16..24; s from 32, 2 * 16 + 4 = 36;
        // r: 2 rows of float3, 80 + 16 + 12 = 28; c: 4 columns of float3 from 112, 60;
        // h: 3 columns of float2 from 176, 2 * 16 + 8 = 40; items from 224, 16 apart, 32;
        // last fits right after the last item's 12..16 of its register: 256.
        let expected = rows(&[
            ("a", 0, 12, 0),
            ("b", 16, 8, 0),
            ("s", 32, 36, 16),
            ("r", 80, 28, 16),
            ("c", 112, 60, 16),
            ("h", 176, 40, 16),
            ("items", 224, 32, 16),
            ("items[].x", 0, 4, 0),
            ("items[].y", 4, 8, 0),
            ("items[].z", 12, 4, 0),
            ("last", 256, 4, 0),
        ]);
        // The cbuffer's one struct member is listed under its own name, then its members
        // under none (the bind view's paths start inside it).
        assert_eq!(got[0], ("gP".to_string(), 0, 260, 0));
        assert_eq!(got[got.len() - expected.len()..], expected[..]);
        assert_eq!(cbuffer_size(text, &structs, at), Some(260));
        // A member of a type the rules do not size (16-bit): no shape, never a guess.
        let text = text.replace("uint last_0", "half last_0");
        let structs = crate::targets::metal::structs(&text);
        assert_eq!(cbuffer_shape(&text, &structs, at), None);
    }
}

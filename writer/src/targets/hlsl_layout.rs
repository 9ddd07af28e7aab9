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

/// Deepest nesting of structs and arrays followed (Slang's code nests far less).
const MAX_DEPTH: usize = 32;
/// Bytes in a constant-buffer register.
const REGISTER: u32 = 16;

/// The size of the constant buffer declared at `register_at` (the byte offset of its
/// `register(bN)`): a `cbuffer NAME : register(bN) { members }` or a
/// `ConstantBuffer<T> NAME : register(bN)`; `None` when its layout is unknown.
pub(crate) fn cbuffer_size(text: &str, structs: &[Struct], register_at: usize) -> Option<u32> {
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
        return place(structs, element, 0, row_major, 0).map(|(_, end)| end);
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
    members_end(structs, &fields, row_major, 0)
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
}

//! The member layout of a buffer on a target whose layout rules are not Vulkan's (HLSL,
//! Metal), from Slang's layout for that target: every ordinary-data member of the buffer's
//! element type, flattened in the pre-order and with the paths of the Vulkan bind view's
//! buffer members (`light.dir`, `lights[].dir`), so that each can be paired with the Vulkan
//! member of the same path. Checked against the layout computed from the emitted text
//! ([`super::hlsl_layout`], [`super::metal_layout`]) before it is stored.

use super::MAX_DEPTH;
use crate::slang_ids::*;
use slangpack_format::targets::TargetMember;
use slangpack_slang::reflection::TypeLayout;

/// One buffer's layout on a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetLayoutOut {
    /// Size in bytes (of one element, for a structured buffer).
    pub size: u32,
    /// Alignment in bytes.
    pub alignment: u32,
    /// Bytes between a structured buffer's elements, else `size`.
    pub stride: u32,
    /// `SlangMatrixLayoutMode` raw value the buffer was laid out with.
    pub matrix_layout: u32,
    /// Every member, in pre-order, with its path.
    pub members: Vec<(String, TargetMember)>,
}

/// The layout of a buffer whose element has type layout `etl` (from Slang's layout for the
/// target); `stride` is a structured buffer's element stride (`None`: the size).
pub(crate) fn layout(etl: TypeLayout<'_>, stride: Option<u32>) -> TargetLayoutOut {
    let size = u(etl.size(CAT_UNIFORM));
    let mut members = Vec::new();
    flatten(etl, 0, "", 0, &mut members);
    TargetLayoutOut {
        size,
        alignment: u32::try_from(etl.alignment(CAT_UNIFORM).max(1)).unwrap_or(1),
        stride: stride.unwrap_or(size),
        matrix_layout: etl.matrix_layout(),
        members,
    }
}

fn u(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// Flattens the fields of struct `tl` at `base` under `prefix`, as the Vulkan walk
/// (`bind_view::buffers`) does: arrays of structs give their element's members paths under
/// `[]` and element-relative offsets.
fn flatten(
    tl: TypeLayout<'_>,
    base: usize,
    prefix: &str,
    depth: usize,
    out: &mut Vec<(String, TargetMember)>,
) {
    if tl.kind() != KIND_STRUCT || depth > MAX_DEPTH {
        return;
    }
    for field in tl.fields() {
        let Some(ftl) = field.type_layout() else {
            continue;
        };
        let size = ftl.size(CAT_UNIFORM);
        if size == 0 {
            continue;
        }
        let name = field.variable().and_then(|v| v.name()).unwrap_or_default();
        let path = join(prefix, &name);
        let offset = base + field.offset(CAT_UNIFORM);
        let (is_array, array_stride, value) = if ftl.kind() == KIND_ARRAY {
            (
                true,
                u(ftl.element_stride(CAT_UNIFORM)),
                ftl.element_type_layout().unwrap_or(ftl),
            )
        } else {
            (false, 0, ftl)
        };
        let (matrix_stride, matrix_layout) = if value.kind() == KIND_MATRIX {
            let mode = value.matrix_layout();
            let (rows, columns) = value
                .ty()
                .map_or((1, 1), |t| (t.row_count().max(1), t.column_count().max(1)));
            let (vectors, lanes) = if mode == 1 {
                (rows, columns)
            } else {
                (columns, rows)
            };
            let scalar = value
                .ty()
                .map(scalar_of)
                .and_then(|s| slangpack_format::ScalarType::from_raw(s).byte_size())
                .unwrap_or(4);
            let stride = match value.element_stride(CAT_UNIFORM) {
                0 => vector_stride(
                    u(value.size(CAT_UNIFORM)),
                    vectors,
                    scalar * lanes,
                    u32::try_from(value.alignment(CAT_UNIFORM).max(1)).unwrap_or(1),
                ),
                s => u(s),
            };
            (stride, mode)
        } else {
            (0, 0)
        };
        out.push((
            path.clone(),
            TargetMember {
                offset: u(offset),
                size: u(size),
                array_stride,
                matrix_stride,
                matrix_layout,
            },
        ));
        if value.kind() == KIND_STRUCT {
            if is_array {
                flatten(value, 0, &format!("{path}[]"), depth + 1, out);
            } else {
                flatten(value, offset, &path, depth + 1, out);
            }
        }
    }
}

/// Bytes between a matrix's `vectors` rows or columns of `vector` bytes each, from the
/// matrix's `size` and `alignment` (Slang reports no stride for a matrix): the vector rounded
/// to the alignment (Metal, std140), else a 16-byte register (an HLSL constant buffer, whose
/// last vector is not padded), else the vector itself (tightly packed), whichever accounts
/// for the size.
fn vector_stride(size: u32, vectors: u32, vector: u32, alignment: u32) -> u32 {
    let fits = |stride: u32| {
        let padded = stride.checked_mul(vectors);
        let unpadded = stride
            .checked_mul(vectors.saturating_sub(1))
            .and_then(|s| s.checked_add(vector));
        padded == Some(size) || unpadded == Some(size)
    };
    [vector.next_multiple_of(alignment.max(1)), 16, vector]
        .into_iter()
        .find(|&s| s >= vector && fits(s))
        .unwrap_or_else(|| size.checked_div(vectors).unwrap_or(0))
}

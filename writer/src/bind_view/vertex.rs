//! Vertex inputs of vertex entry points.

use super::*;
use slangpack_format::vk::Format;
use slangpack_format::ScalarType;
use slangpack_slang::reflection::VarLayout;

pub(super) struct VertexOut {
    pub(super) entry_point: u32,
    pub(super) location: u32,
    pub(super) location_count: u32,
    pub(super) format: u32,
    pub(super) scalar_type: u32,
    pub(super) components: u32,
    pub(super) semantic: String,
    pub(super) semantic_index: u32,
    pub(super) name: String,
    pub(super) used: bool,
}

/// Vertex inputs of every vertex entry point: varying inputs with a location, system values
/// (`SV_*`) excluded, structs recursed with locations accumulating.
pub(super) fn vertex_inputs(entry_points: &[EntryPoint<'_>]) -> Vec<VertexOut> {
    let mut out = Vec::new();
    for (index, ep) in entry_points.iter().enumerate() {
        if ep.stage() != 1 {
            continue;
        }
        for param in ep.parameters() {
            let name = param.variable().and_then(|v| v.name()).unwrap_or_default();
            collect_inputs(param, 0, &name, index as u32, &mut out);
        }
    }
    out.sort_by_key(|v| (v.entry_point, v.location));
    out
}

pub(super) fn collect_inputs(
    var: VarLayout<'_>,
    base: u32,
    path: &str,
    ep: u32,
    out: &mut Vec<VertexOut>,
) {
    let Some(tl) = var.type_layout() else {
        return;
    };
    if !tl.categories().contains(&CAT_VARYING_INPUT) {
        return;
    }
    let location = base + u(var.offset(CAT_VARYING_INPUT));
    if tl.kind() == KIND_STRUCT {
        for field in tl.fields() {
            let fname = field.variable().and_then(|v| v.name()).unwrap_or_default();
            collect_inputs(field, location, &join(path, &fname), ep, out);
        }
        return;
    }
    let semantic = var.semantic_name().unwrap_or_default();
    if semantic.to_ascii_uppercase().starts_with("SV_") {
        return;
    }
    let ty = tl.ty();
    let (rows, columns) = ty.map_or((1, 1), |t| (t.row_count().max(1), t.column_count().max(1)));
    let scalar_type = ty.map_or(0, scalar_of);
    let (location_count, components) = if tl.kind() == KIND_MATRIX {
        (rows, columns)
    } else {
        (u(tl.size(CAT_VARYING_INPUT)).max(1), columns.max(1))
    };
    out.push(VertexOut {
        entry_point: ep,
        location,
        location_count,
        format: Format::vertex(ScalarType::from_raw(scalar_type), components).to_raw(),
        scalar_type,
        components,
        semantic: semantic.to_ascii_uppercase(),
        semantic_index: u(var.semantic_index()),
        name: path.to_string(),
        used: false,
    });
}

//! WGSL: parsed and validated with naga; every resource variable's group, binding and type.

use super::{BufferShape, CodeBinding, CodeMember, Facts};
use naga::{AddressSpace, ImageClass, ImageDimension, ScalarKind, StorageAccess, TypeInner};
use slangpack_format::targets::{
    sample_type, view_dimension, TARGET_COMPARISON, TARGET_MULTISAMPLED, TARGET_READ_ONLY,
};
use slangpack_format::TargetBindingKind;

/// The flags WGSL's declarations state (read-only storage, multisampling, comparison).
pub(crate) const COMPARED_FLAGS: u32 = TARGET_READ_ONLY | TARGET_MULTISAMPLED | TARGET_COMPARISON;

/// Parses and validates `text`, checks that it has entry point `entry_name`, and returns its
/// resource bindings with the facts their types state.
pub(crate) fn check(text: &str, entry_name: &str) -> Result<Vec<CodeBinding>, String> {
    let module = naga::front::wgsl::parse_str(text)
        .map_err(|e| format!("naga cannot parse the WGSL: {}", e.emit_to_string(text)))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| format!("naga rejects the WGSL: {}", e.emit_to_string(text)))?;
    if !module.entry_points.iter().any(|ep| ep.name == entry_name) {
        let names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        return Err(format!(
            "the WGSL has no entry point `{entry_name}` (it has {names:?})"
        ));
    }
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| format!("naga cannot lay out the WGSL's types: {e}"))?;
    let mut out = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        let mut ty = var.ty;
        if let TypeInner::BindingArray { base, .. } = module.types[ty].inner {
            ty = base;
        }
        let mut facts = Facts {
            kind: TargetBindingKind::UniformBuffer,
            flags: 0,
            view_dimension: view_dimension::NONE,
            sample_type: sample_type::NONE,
        };
        let mut uniform_size = None;
        let mut layout = None;
        match var.space {
            AddressSpace::Uniform => {
                uniform_size = Some(layouter[ty].size);
                let shape = layout.insert(BufferShape::new("naga's"));
                members(&module, &layouter, ty, "", 0, shape);
            }
            AddressSpace::Storage { access } => {
                facts.kind = TargetBindingKind::StorageBuffer;
                if !access.contains(StorageAccess::STORE) {
                    facts.flags |= TARGET_READ_ONLY;
                }
                // A structured buffer is an array of its elements; the bind view's layout
                // is one element's.
                let shape = layout.insert(BufferShape::new("naga's"));
                let element = match module.types[ty].inner {
                    TypeInner::Array { base, stride, .. } => {
                        shape.element_stride = Some(stride);
                        base
                    }
                    _ => ty,
                };
                members(&module, &layouter, element, "", 0, shape);
            }
            _ => match &module.types[ty].inner {
                TypeInner::Sampler { comparison } => {
                    facts.kind = TargetBindingKind::Sampler;
                    if *comparison {
                        facts.flags |= TARGET_COMPARISON;
                    }
                }
                TypeInner::Image {
                    dim,
                    arrayed,
                    class,
                } => {
                    facts.view_dimension = match (dim, arrayed) {
                        (ImageDimension::D1, _) => view_dimension::D1,
                        (ImageDimension::D2, false) => view_dimension::D2,
                        (ImageDimension::D2, true) => view_dimension::D2_ARRAY,
                        (ImageDimension::D3, _) => view_dimension::D3,
                        (ImageDimension::Cube, false) => view_dimension::CUBE,
                        (ImageDimension::Cube, true) => view_dimension::CUBE_ARRAY,
                    };
                    match class {
                        ImageClass::Sampled { kind, multi } => {
                            facts.kind = TargetBindingKind::Texture;
                            facts.sample_type = match kind {
                                ScalarKind::Sint => sample_type::SINT,
                                ScalarKind::Uint => sample_type::UINT,
                                _ => sample_type::FLOAT,
                            };
                            if *multi {
                                facts.flags |= TARGET_MULTISAMPLED;
                            }
                        }
                        ImageClass::Depth { multi } => {
                            facts.kind = TargetBindingKind::Texture;
                            facts.sample_type = sample_type::DEPTH;
                            if *multi {
                                facts.flags |= TARGET_MULTISAMPLED;
                            }
                        }
                        ImageClass::Storage { access, .. } => {
                            facts.kind = TargetBindingKind::StorageTexture;
                            if !access.contains(StorageAccess::STORE) {
                                facts.flags |= TARGET_READ_ONLY;
                            }
                        }
                        #[allow(unreachable_patterns, reason = "naga may add image classes")]
                        _ => facts.kind = TargetBindingKind::Texture,
                    }
                }
                other => {
                    return Err(format!(
                    "`{}` at @group({}) @binding({}) has a type slangpack does not know: {other:?}",
                    var.name.as_deref().unwrap_or("?"),
                    rb.group,
                    rb.binding
                ))
                }
            },
        }
        out.push(CodeBinding {
            name: var.name.clone().unwrap_or_default(),
            space: rb.group,
            index: rb.binding,
            register_class: 0,
            facts: Some(facts),
            uniform_size,
            layout,
        });
    }
    Ok(out)
}

/// Appends the members of `ty` (when it is a struct) to `shape`: paths of Slang's names
/// without their `_N` suffixes, joined by `.`, `[]` marking an array element (as the bind
/// view's buffer members are named), offsets from `base` (0 inside an array element).
///
/// Slang wraps an array or matrix of a uniform buffer in a struct of its own (`_Array_std140_*`,
/// `_MatrixStorage_*`, one member `data_N`: an array of 16-byte aligned rows): such a member
/// stands for what it wraps, with the wrapped array's stride.
fn members(
    module: &naga::Module,
    layouter: &naga::proc::Layouter,
    ty: naga::Handle<naga::Type>,
    prefix: &str,
    base: u32,
    shape: &mut BufferShape,
) {
    let TypeInner::Struct {
        members: fields, ..
    } = &module.types[ty].inner
    else {
        return;
    };
    if shape.members.len() > MAX_MEMBERS {
        return;
    }
    for m in fields {
        let name = m.name.as_deref().unwrap_or_default();
        let path = format!("{prefix}{}", super::strip_suffix(name));
        let offset = base + m.offset;
        let size = layouter[m.ty].size;
        let inner = wrapped(module, m.ty).unwrap_or(m.ty);
        let (stride, element) = match module.types[inner].inner {
            TypeInner::Array { base, stride, .. } => (stride, Some(base)),
            TypeInner::Matrix { columns, .. } => (size / columns as u32, None),
            _ => (0, None),
        };
        shape.members.push(CodeMember {
            path: path.clone(),
            offset,
            size: Some(size),
            stride,
        });
        match element {
            Some(e) => members(module, layouter, e, &format!("{path}[]."), 0, shape),
            None => members(module, layouter, inner, &format!("{path}."), offset, shape),
        }
    }
}

/// Bounds the members listed per buffer (a crafted module cannot make the walk explode).
const MAX_MEMBERS: usize = 1 << 16;

/// The array that `ty` wraps when `ty` is one of Slang's wrapper structs (named `_Array_*` or
/// `_MatrixStorage_*`, one member `data_N` of array type at offset 0).
fn wrapped(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
) -> Option<naga::Handle<naga::Type>> {
    let t = &module.types[ty];
    let name = t.name.as_deref()?;
    if !(name.starts_with("_Array_") || name.starts_with("_MatrixStorage_")) {
        return None;
    }
    match &t.inner {
        TypeInner::Struct { members, .. } => match members.as_slice() {
            [m] if m.offset == 0
                && m.name.as_deref().map(super::strip_suffix).as_deref() == Some("data")
                && matches!(module.types[m.ty].inner, TypeInner::Array { .. }) =>
            {
                Some(m.ty)
            }
            _ => None,
        },
        _ => None,
    }
}

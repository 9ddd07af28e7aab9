//! WGSL: parsed and validated with naga; every resource variable's group, binding and type.

use super::{CodeBinding, Facts};
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
            uniform_size: None,
        };
        match var.space {
            AddressSpace::Uniform => facts.uniform_size = Some(layouter[ty].size),
            AddressSpace::Storage { access } => {
                facts.kind = TargetBindingKind::StorageBuffer;
                if !access.contains(StorageAccess::STORE) {
                    facts.flags |= TARGET_READ_ONLY;
                }
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
        });
    }
    Ok(out)
}

//! Per-target constants of a header: where each binding sits in the code of every further
//! target the entry was baked for — WGSL `@group/@binding`, GLSL `set/binding`, HLSL register
//! and space, Metal `[[buffer/texture/sampler(n)]]` index (an argument buffer's members have
//! none: Slang's tier-2 argument buffers are structs the code declares member by member). The
//! structs of the buffers HLSL and Metal lay out by their own rules are built beside the
//! Vulkan ones ([`super::model`]).

use super::model::Module;
use super::names::{upper_snake, NameError};
use slangpack_format::bind::{BINDING_IMPLICIT_BLOCK_BUFFER, BINDING_IMPLICIT_GLOBAL_BUFFER};
use slangpack_format::targets::{kind_name, TargetBinding};
use slangpack_format::{Target, TargetBindingKind, ABSENT};
use slangpack_reader::{BindView, TargetBufferLayout};
use std::collections::HashMap;

/// Pushes, for every binding of every further target of `bind`, the constants of its place
/// (`G_SCENE_WGSL_GROUP`, `G_SCENE_WGSL_BINDING`, `G_SCENE_HLSL_REGISTER`, ...) through
/// `push` (which claims a unique name).
///
/// # Errors
/// A path no identifier can be made from.
pub(super) fn push_target_constants(
    bind: &BindView<'_>,
    module: &mut Module,
    push: &mut dyn FnMut(&mut Module, String, u32, String),
) -> Result<(), NameError> {
    for target in bind.targets() {
        let view = bind.target(target);
        let records = view.bindings();
        // How many records share each path (counted once: a scan per record was quadratic).
        let mut per_path: HashMap<&str, usize> = HashMap::new();
        for b in records {
            *per_path.entry(view.path(b)).or_insert(0) += 1;
        }
        for (index, b) in records.iter().enumerate() {
            let path = view.path(b);
            let vulkan_flags = view.vulkan_binding(b).map_or(0, |v| v.flags);
            let mut stem = if vulkan_flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 || path.is_empty()
            {
                "GLOBAL_UNIFORMS".to_string()
            } else {
                let stem =
                    upper_snake(path, || format!("{} binding {index}'s path", target.name()))?;
                if vulkan_flags & BINDING_IMPLICIT_BLOCK_BUFFER != 0
                    && b.binding_kind() != TargetBindingKind::ArgumentBuffer
                {
                    format!("{stem}_UNIFORMS")
                } else {
                    stem
                }
            };
            // A combined texture-sampler split in two (WGSL, Metal): one record per half.
            if per_path.get(path).copied().unwrap_or(0) > 1 {
                stem = format!("{stem}_{}", kind_name(b.binding_kind()).to_uppercase());
            }
            let place = if b.binding_kind() == TargetBindingKind::PushConstants && b.index == ABSENT
            {
                "push constants".to_string()
            } else {
                crate::text::place(target, b)
            };
            let language = match target {
                Target::Metal => "Metal".to_string(),
                other => other.name().to_uppercase(),
            };
            let what = format!(
                "`{}` ({}); the {language} code has it at {place}",
                if path.is_empty() {
                    "(global uniforms)"
                } else {
                    path
                },
                kind_name(b.binding_kind()),
            );
            // The header's structs are the Vulkan member layout: say where they do not hold.
            let members = match view.buffer_layout(b) {
                // A structured buffer of scalars, vectors or matrices: no struct, its stride.
                TargetBufferLayout::Target(own) if own.member_count == 0 => format!(
                    " The {language} code lays its elements out {} bytes apart ({} bytes \
                     each).",
                    own.stride, own.size
                ),
                TargetBufferLayout::Target(own) => format!(
                    " The {language} code lays its members out by {language}'s own rules \
                     ({} bytes): this header's `{}{}` struct has that layout (the Vulkan \
                     structs do not apply to it).",
                    own.size,
                    if path.is_empty() {
                        "GlobalUniforms".to_string()
                    } else {
                        super::names::camel(path, String::new).unwrap_or_default()
                    },
                    super::names::camel(target.name(), String::new).unwrap_or_default()
                ),
                TargetBufferLayout::NotProvided => format!(
                    " The {language} code lays its members out by {language}'s own rules, which \
                     the package does not describe: this header's structs (Vulkan offsets) do \
                     not apply to it."
                ),
                _ => String::new(),
            };
            for (suffix, value, doc) in places(target, b) {
                if value != ABSENT {
                    push(
                        module,
                        format!("{stem}_{suffix}"),
                        value,
                        format!("{doc} of {what}.{members}"),
                    );
                }
            }
        }
    }
    Ok(())
}

/// The constants of one binding's place: (name suffix, value, what it is).
fn places(target: Target, b: &TargetBinding) -> Vec<(&'static str, u32, &'static str)> {
    match target {
        Target::Wgsl => vec![
            ("WGSL_GROUP", b.space, "WGSL `@group`"),
            ("WGSL_BINDING", b.index, "WGSL `@binding`"),
        ],
        Target::Glsl => vec![
            ("GLSL_SET", b.space, "GLSL `set`"),
            ("GLSL_BINDING", b.index, "GLSL `binding`"),
        ],
        Target::Hlsl => vec![
            ("HLSL_REGISTER", b.index, "HLSL register number"),
            ("HLSL_SPACE", b.space, "HLSL register space"),
        ],
        // A member of a ParameterBlock's argument buffer: a tier-2 argument buffer is a
        // struct the code declares member by member, with no `[[id(n)]]` to bind by.
        Target::Metal if b.space != ABSENT => Vec::new(),
        Target::Metal => vec![(
            "METAL_INDEX",
            b.index,
            "Metal `[[buffer(n)]]`, `[[texture(n)]]`, `[[sampler(n)]]` or `[[color(n)]]` index",
        )],
        _ => Vec::new(),
    }
}

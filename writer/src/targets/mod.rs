//! Targets besides SPIR-V: WGSL, GLSL, HLSL and Metal code per entry point, and a bind view
//! per target walked from Slang's program layout for that target and checked against the
//! code Slang emitted:
//!
//! - WGSL: parsed and validated with `naga`; every `@group/@binding` variable's group,
//!   binding, address space, access, texture class, dimension and sampler kind, the size of
//!   each uniform buffer, and naga's layout of each uniform and storage buffer (every member's
//!   offset, size and stride) must match the bind view.
//! - GLSL: compiled to SPIR-V with glslang (`glslangValidator`) and reflected with
//!   `spirv-cross --reflect`; sets and bindings, and each uniform and storage block's member
//!   offsets and array and matrix strides, must match. Where glslang lacks an extension the
//!   code requires, or spirv-cross cannot reflect glslang's SPIR-V, sets and bindings are read
//!   from the text's layout qualifiers and the bake warns which check it skipped.
//! - HLSL: every `register(...)` annotation parsed from the text must match, and each constant
//!   buffer's size packed from the text by HLSL's rules (the text is not compiled: see
//!   [`hlsl`]).
//! - Metal: every `[[buffer(n)]]`, `[[texture(n)]]`, `[[sampler(n)]]` attribute and every
//!   argument-buffer member parsed from the text must match, and every resource parameter of
//!   the entry point must carry an attribute; each argument buffer's struct, laid out from the
//!   text by Metal's rules, is stored with its resource members matched to the bind view
//!   (`argument_buffers.rs`).
//!
//! A disagreement fails the bake naming both values; a Vulkan binding with no place on a
//! target fails it naming the binding. DXIL is not produced here: it needs Microsoft's `dxc`,
//! which no reachable registry ships (a DXIL blob baked elsewhere can be added to a package
//! with `PackageBuilder::add_target_code`).

mod argument_buffers;
mod glsl;
mod hlsl;
mod hlsl_layout;
mod members;
mod metal;
mod metal_layout;
mod walk;
mod wgsl;

use crate::compile::CompiledProgram;
use crate::error::BakeError;
use shader_slang as slang;
use slangpack_format::bind::{
    BufferLayout, BufferMember, DescriptorBinding, PushConstantRange, BINDING_DESCRIPTOR_HEAP,
    BINDING_UNUSED, BUFFER_STRUCTURED_ELEMENT, COUNT_ZERO, MEMBER_EXISTENTIAL,
    MEMBER_EXISTENTIAL_PAYLOAD,
};
use slangpack_format::targets::{TargetBinding, TargetBuffer, TargetMember, TARGET_UNUSED};
use slangpack_format::{ReflectionBuilder, Target, TargetBindingKind, ABSENT};
use slangpack_slang::reflection::Program;
use walk::Slot;

/// Deepest nesting of structs and arrays the target layouts follow (in the code's text and in
/// Slang's type layouts); Slang's code and the Vulkan walk's buffers nest far less.
const MAX_DEPTH: usize = 32;

/// Slang's compile target for `target`, or `None` for targets slangpack does not compile
/// (SPIR-V is the primary target, DXIL needs `dxc`).
pub fn compile_target(target: Target) -> Option<slang::CompileTarget> {
    match target {
        Target::Wgsl => Some(slang::CompileTarget::Wgsl),
        Target::Glsl => Some(slang::CompileTarget::Glsl),
        Target::Hlsl => Some(slang::CompileTarget::Hlsl),
        Target::Metal => Some(slang::CompileTarget::Metal),
        _ => None,
    }
}

/// The name entry point `name` has in `target`'s `code`: GLSL's is always `main`; Metal's is
/// the function marked `[[kernel]]`, `[[vertex]]` or `[[fragment]]` (Slang renames `main`,
/// which Metal reserves, to `main_0`); WGSL and HLSL keep the function's name. Checked against
/// the code at bake time.
pub fn entry_name(target: Target, name: &str, code: &[u8]) -> String {
    match target {
        Target::Glsl => "main".to_string(),
        Target::Metal => std::str::from_utf8(code)
            .ok()
            .and_then(metal::entry_function)
            .unwrap_or(name)
            .to_string(),
        _ => name.to_string(),
    }
}

/// Parses a comma-separated target list (`spirv,wgsl,glsl,hlsl,metal`) into the further
/// targets (SPIR-V is always baked), in target order without duplicates.
///
/// # Errors
/// A message naming an unknown target, or DXIL (which needs `dxc`).
pub fn parse_targets<'s>(names: impl IntoIterator<Item = &'s str>) -> Result<Vec<Target>, String> {
    let mut out = Vec::new();
    for name in names {
        let name = name.trim();
        if name.is_empty() {
            continue;
        }
        let target = Target::from_name(name).ok_or_else(|| {
            format!("unknown target `{name}` (expected spirv, wgsl, glsl, hlsl or metal)")
        })?;
        if target == Target::Dxil {
            return Err(
                "target `dxil` needs Microsoft's dxc, which no reachable registry \
                        ships; bake DXIL elsewhere and add it with PackageBuilder::add_target_code"
                    .into(),
            );
        }
        if target != Target::Spirv && !out.contains(&target) {
            out.push(target);
        }
    }
    out.sort();
    Ok(out)
}

/// One binding declared by a target's code, as its checker parsed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CodeBinding {
    /// The variable's name in the code.
    pub name: String,
    /// Space (group, set, register space); Metal: the argument buffer's `[[buffer(n)]]` index
    /// or absent at the top level.
    pub space: u32,
    /// Binding / register / attribute index.
    pub index: u32,
    /// Register class, 0 when the target has none.
    pub register_class: u8,
    /// Facts the code states, compared with the bind view's when present.
    pub facts: Option<Facts>,
    /// The kind the code's declaration has, where the checker knows it but states no other
    /// [`Facts`] (GLSL: the list spirv-cross reflects it in): it only picks, among slots
    /// sharing the declaration's place (the resource kinds of a mutable descriptor heap), the
    /// one of that kind.
    pub kind: Option<TargetBindingKind>,
    /// Size of a uniform buffer's type in the code, when the checker knows it (WGSL: naga's
    /// layout; HLSL: the constant buffer packed by HLSL's rules, [`hlsl_layout`]; Metal: the
    /// struct laid out by Metal's rules, [`metal_layout`]), compared with the bind view's
    /// `min_binding_size`.
    pub uniform_size: Option<u32>,
    /// A buffer's member layout in the code, when the checker computes one (WGSL: naga's;
    /// GLSL: spirv-cross's reflection of glslang's SPIR-V), compared with the bind view's.
    pub layout: Option<BufferShape>,
}

/// The binding facts a code parser can state (WGSL's through naga).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    pub kind: TargetBindingKind,
    pub flags: u32,
    pub view_dimension: u32,
    pub sample_type: u32,
}

/// A buffer's layout as the code lays it out: one element's for a storage buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BufferShape {
    /// Whose layout it is, as errors name it (`naga's`).
    pub checker: &'static str,
    /// Bytes between a storage buffer's elements.
    pub element_stride: Option<u32>,
    /// Every member, in pre-order.
    pub members: Vec<CodeMember>,
}

impl BufferShape {
    /// An empty layout computed by `checker`.
    pub(crate) fn new(checker: &'static str) -> Self {
        BufferShape {
            checker,
            element_stride: None,
            members: Vec::new(),
        }
    }
}

/// One member of a buffer in the code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CodeMember {
    /// Path as the bind view's buffer members name it (`items[].x`).
    pub path: String,
    /// Byte offset (from the buffer's start; from the element's inside an array element).
    pub offset: u32,
    /// Size in bytes of the member's type, when the checker knows it.
    pub size: Option<u32>,
    /// Bytes between array elements, or between a matrix's rows or columns; 0 otherwise.
    pub stride: u32,
}

/// Computes the bind view of every further target of `program`, checks it against each
/// target's code and appends the records to `builder` (whose Vulkan bind view is complete).
/// Returns the program's entry points with the code to store: Slang's, except the WGSL
/// binding attributes moved where WGSL cannot take what Slang emits ([`wgsl::relocate`]).
/// `skipped` gets a line for each extra check skipped because the checking tool lacks what
/// the code uses (what was skipped and why); the checks made from the text stay.
///
/// # Errors
/// [`BakeError::Target`] when a target's code disagrees with the bind view, a Vulkan binding
/// has no place on a target, or a checking tool fails.
pub fn build_target_views(
    program: &CompiledProgram,
    key: &str,
    builder: &mut ReflectionBuilder,
    skipped: &mut Vec<String>,
) -> Result<Vec<slangpack_pack::assemble::CompiledEntryPoint>, BakeError> {
    let mut records = Vec::new();
    let mut argument_buffers = Vec::new();
    let mut entry_points = program.entry_points.clone();
    for &target in &program.targets {
        let layout = program.target_layout(target)?;
        let mut slots = walk::walk(Program::new(layout), target);
        let fail = |message: String| BakeError::Target {
            key: key.to_string(),
            target: target.name(),
            message,
        };
        if target == Target::Wgsl {
            let moves = wgsl::relocate(&mut slots, |path| combined(builder, path));
            for ep in &mut entry_points {
                for t in ep.targets.iter_mut().filter(|t| t.target == target) {
                    let text = std::str::from_utf8(&t.code).map_err(|_| {
                        fail(format!("entry point `{}`: code is not UTF-8", t.entry_name))
                    })?;
                    let text = wgsl::rewrite(text, &moves)
                        .map_err(|m| fail(format!("entry point `{}`: {m}", t.entry_name)))?;
                    t.code = text.into_bytes();
                }
            }
        }
        if target == Target::Metal {
            metal::input_attachments(&mut slots, |path| {
                (0..builder.table_len::<DescriptorBinding>())
                    .filter_map(|i| builder.get::<DescriptorBinding>(i))
                    .find(|b| builder.string(b.path) == Some(path))
                    .and_then(|b| b.input_attachment())
            });
        }
        if target == Target::Glsl {
            let vulkan: Vec<DescriptorBinding> = (0..builder.table_len::<DescriptorBinding>())
                .filter_map(|i| builder.get::<DescriptorBinding>(i))
                .collect();
            slots.extend(glsl::heap_slots(&vulkan, |b| {
                builder.string(b.path).unwrap_or_default().to_string()
            }));
        }
        if let Some(message) = match target {
            Target::Metal => metal::overlapping_ids(&slots),
            _ => None,
        } {
            return Err(fail(message));
        }
        let code: Vec<(&str, &[u8], u32, u32)> = entry_points
            .iter()
            .enumerate()
            .filter_map(|(i, ep)| {
                ep.targets.iter().find(|t| t.target == target).map(|t| {
                    let bit = 1u32.checked_shl(i as u32).unwrap_or(0);
                    (t.entry_name.as_str(), t.code.as_slice(), ep.stage, bit)
                })
            })
            .collect();
        let mut declared: Vec<CodeBinding> = Vec::new();
        // Which entry points' code declares each of `declared` (bit i: entry point i).
        let mut declared_by: Vec<u32> = Vec::new();
        for &(entry_name, bytes, stage, bit) in &code {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| fail(format!("entry point `{entry_name}`: code is not UTF-8")))?;
            let found = match target {
                Target::Wgsl => wgsl::check(text, entry_name),
                Target::Glsl => glsl::check(text, stage, &mut |why| {
                    skipped.push(format!(
                        "{key}: target glsl: entry point `{entry_name}`: {why}"
                    ))
                }),
                Target::Hlsl => hlsl::check(text, entry_name),
                Target::Metal => metal::check(text, entry_name, &|path| {
                    slots
                        .iter()
                        .find(|s| s.path == path)
                        .map(|s| describe(target, s.space, s.index, s.register_class))
                }),
                _ => Ok(Vec::new()),
            }
            .map_err(|m| fail(format!("entry point `{entry_name}`: {m}")))?;
            for b in found {
                match declared.iter().position(|d| *d == b) {
                    Some(i) => declared_by[i] |= bit,
                    None => {
                        declared.push(b);
                        declared_by.push(bit);
                    }
                }
            }
        }
        // Entry point i's name in the target's code (bit i of `declared_by`).
        let names: Vec<&str> = program
            .entry_points
            .iter()
            .map(|ep| {
                ep.targets
                    .iter()
                    .find(|t| t.target == target)
                    .map_or("?", |t| t.entry_name.as_str())
            })
            .collect();
        let mut checked = vec![false; slots.len()];
        let found = reconcile_checked(
            builder,
            target,
            &slots,
            &declared,
            &declared_by,
            &names,
            &mut checked,
        )
        .map_err(fail)?;
        if target == Target::Metal {
            // Each argument buffer's struct, laid out from the code and checked against the
            // bind view.
            let structs: Vec<_> = code
                .iter()
                .filter_map(|&(name, bytes, ..)| {
                    let text = std::str::from_utf8(bytes).ok()?;
                    Some(metal::argument_structs(text, name))
                })
                .flatten()
                .collect();
            argument_buffers
                .extend(argument_buffers::check(builder, &found, &slots, &structs).map_err(fail)?);
        }
        // One record per slot, in slot order: each takes its slot's checked member layout.
        for ((record, slot), checked) in found.into_iter().zip(&slots).zip(checked) {
            let layout = slot
                .layout
                .as_ref()
                .filter(|_| checked)
                .and_then(|l| paired_layout(builder, &record, &slot.path, l));
            records.push((record, layout));
        }
    }
    records.sort_by_key(|(r, _): &(TargetBinding, _)| {
        (r.target, r.space, r.register_class, r.index, r.kind)
    });
    let first_binding = builder.table_len::<TargetBinding>();
    let bindings: Vec<TargetBinding> = records.iter().map(|(r, _)| *r).collect();
    builder.push_all(&bindings);
    argument_buffers::push(builder, argument_buffers, first_binding, &bindings);
    for (k, (_, layout)) in records.iter().enumerate() {
        let Some((buffer_layout, l, members)) = layout else {
            continue;
        };
        let first_member = builder.table_len::<TargetMember>();
        for m in members {
            builder.push(*m);
        }
        builder.push(TargetBuffer {
            target_binding: first_binding + k as u32,
            buffer_layout: *buffer_layout,
            size: l.size,
            alignment: l.alignment,
            stride: l.stride,
            first_member,
            member_count: members.len() as u32,
            matrix_layout: l.matrix_layout,
        });
    }
    Ok(entry_points)
}

/// The target's members of a buffer, paired one for one with the Vulkan bind view's members
/// of the same buffer (found through `record`'s Vulkan binding, or the push-constant range or
/// buffer layout named `path`): (the Vulkan layout's index, the layout, the members in the
/// Vulkan order). `None` when the Vulkan layout has no members or a Vulkan member has no
/// counterpart.
fn paired_layout(
    builder: &ReflectionBuilder,
    record: &TargetBinding,
    path: &str,
    layout: &members::TargetLayoutOut,
) -> Option<(
    u32,
    members::TargetLayoutOut,
    Vec<slangpack_format::targets::TargetMember>,
)> {
    let index = match builder.get::<DescriptorBinding>(record.binding) {
        Some(b) => b.buffer_layout,
        // A push-constant block, or a Metal argument buffer (its ParameterBlock's uniform
        // data): the layout of that name.
        None => (0..builder.table_len::<PushConstantRange>())
            .filter_map(|i| builder.get::<PushConstantRange>(i))
            .find(|p| builder.string(p.name) == Some(path))
            .map(|p| p.buffer_layout)
            .or_else(|| {
                (0..builder.table_len::<BufferLayout>()).find(|&i| {
                    builder
                        .get::<BufferLayout>(i)
                        .is_some_and(|l| builder.string(l.name) == Some(path))
                })
            })?,
    };
    let vulkan = builder.get::<BufferLayout>(index)?;
    if vulkan.member_count == 0 {
        return None;
    }
    let mut out = Vec::with_capacity(vulkan.member_count as usize);
    for k in vulkan.first_member..vulkan.first_member.checked_add(vulkan.member_count)? {
        let m = builder.get::<BufferMember>(k)?;
        let member_path = builder.string(m.path)?;
        let (_, ours) = layout.members.iter().find(|(p, _)| p == member_path)?;
        out.push(*ours);
    }
    Some((index, layout.clone(), out))
}

/// Checks Slang's member layout of a buffer on `target` against `shape`, the layout packed
/// from the code by the language's rules: every member's offset, size and stride (an array's
/// element stride, else a matrix's vector stride).
fn same_target_members(
    target: Target,
    ours: &members::TargetLayoutOut,
    shape: &BufferShape,
) -> Result<(), String> {
    for (path, m) in &ours.members {
        let Some(code) = shape.members.iter().find(|c| &c.path == path) else {
            return Err(format!(
                "member `{path}`: Slang's {} layout puts it at offset {}, size {}, and the \
                 code's type has no such member",
                target.name(),
                m.offset,
                m.size
            ));
        };
        let stride = if m.array_stride != 0 {
            m.array_stride
        } else {
            m.matrix_stride
        };
        let theirs = (code.offset, code.size.unwrap_or(m.size), code.stride);
        if (m.offset, m.size, stride) != theirs {
            return Err(format!(
                "member `{path}`: Slang's {} layout says offset {}, size {}, stride {stride}; \
                 {} applied to the code say offset {}, size {}, stride {}",
                target.name(),
                m.offset,
                m.size,
                shape.checker,
                theirs.0,
                theirs.1,
                theirs.2
            ));
        }
    }
    Ok(())
}

/// Whether `path` is the texture or the sampler of a Vulkan combined image sampler (a
/// `Sampler2D`, or a texture and a sampler declared at one binding).
fn combined(builder: &ReflectionBuilder, path: &str) -> bool {
    (0..builder.table_len::<DescriptorBinding>())
        .filter_map(|i| builder.get::<DescriptorBinding>(i))
        .filter(|b| b.kind() == slangpack_format::vk::DescriptorKind::CombinedImageSampler)
        .any(|b| {
            builder.string(b.path) == Some(path)
                || (b.sampler_path != ABSENT && builder.string(b.sampler_path) == Some(path))
        })
}

/// Matches the walked slots with the code's declarations and the Vulkan bind view; returns
/// the target's records. `declared_by[i]` (when given) is the mask of the entry points whose
/// code declares `declared[i]`: where pipelines of one program reuse a place, a declaration
/// is matched with the slot of a binding those entry points use; `entry_names[i]` names entry
/// point i in errors.
#[cfg(test)]
fn reconcile(
    builder: &mut ReflectionBuilder,
    target: Target,
    slots: &[Slot],
    declared: &[CodeBinding],
    declared_by: &[u32],
    entry_names: &[&str],
) -> Result<Vec<TargetBinding>, String> {
    let mut checked = vec![false; slots.len()];
    reconcile_checked(
        builder,
        target,
        slots,
        declared,
        declared_by,
        entry_names,
        &mut checked,
    )
}

/// [`reconcile`], setting `checked[i]` when slot `i`'s own member layout (HLSL, Metal) was
/// checked against the code member by member.
fn reconcile_checked(
    builder: &mut ReflectionBuilder,
    target: Target,
    slots: &[Slot],
    declared: &[CodeBinding],
    declared_by: &[u32],
    entry_names: &[&str],
    checked: &mut [bool],
) -> Result<Vec<TargetBinding>, String> {
    let place = |s: &Slot| describe(target, s.space, s.index, s.register_class);
    // Every Vulkan binding has a place on the target.
    let vulkan: Vec<DescriptorBinding> = (0..builder.table_len::<DescriptorBinding>())
        .filter_map(|i| builder.get::<DescriptorBinding>(i))
        .collect();
    let pushes: Vec<PushConstantRange> = (0..builder.table_len::<PushConstantRange>())
        .filter_map(|i| builder.get::<PushConstantRange>(i))
        .collect();
    let paths: Vec<u32> = slots.iter().map(|s| builder.intern(&s.path)).collect();
    for b in &vulkan {
        // A descriptor heap Slang synthesized for the SPIR-V (`__slang_resource_heap`): the
        // other targets index their own heaps (HLSL's `ResourceDescriptorHeap`), which take no
        // binding.
        let heap = b.flags & BINDING_DESCRIPTOR_HEAP != 0;
        if b.count_kind != COUNT_ZERO && !heap && !paths.contains(&b.path) {
            return Err(format!(
                "the binding `{}` (Vulkan set {} binding {}) has no place on {} (Slang's layout \
                 for {} does not list it)",
                builder.string(b.path).unwrap_or("?"),
                b.set,
                b.binding,
                target.name(),
                target.name()
            ));
        }
    }
    // Every resource the code declares is a slot of the bind view, at the same place.
    let mut code_names: Vec<Option<&CodeBinding>> = vec![None; slots.len()];
    for (j, d) in declared.iter().enumerate() {
        let at_place = |s: &Slot| {
            if d.index == ABSENT {
                // A member of a Metal argument buffer, known by its dotted path.
                return s.space != ABSENT && metal::same_path(&s.path, &d.name);
            }
            s.space == d.space
                && s.index == d.index
                && s.register_class == d.register_class
                && s.kind != TargetBindingKind::PushConstants
        };
        // The entry points that declare it use the slot's Vulkan binding (or nothing says).
        let used_by_them = |(i, _): &(usize, &Slot)| {
            let Some(&by) = declared_by.get(j) else {
                return true;
            };
            vulkan
                .iter()
                .find(|b| b.path == paths[*i])
                .is_none_or(|b| b.entry_point_mask == 0 || b.entry_point_mask & by != 0)
        };
        // Of several slots at one place (a mutable descriptor heap), the one of the
        // declaration's kind.
        let of_kind = |(_, s): &(usize, &Slot)| d.kind.is_none_or(|k| k == s.kind);
        let matched = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| at_place(s))
            .filter(of_kind)
            .find(used_by_them)
            .or_else(|| slots.iter().enumerate().find(|(_, s)| at_place(s)));
        let Some((i, slot)) = matched else {
            return Err(format!(
                "the code declares `{}` at {}, where the bind view has no binding",
                d.name,
                describe_code(target, d)
            ));
        };
        if let Some(f) = &d.facts {
            let mut ours = slot.flags & !TARGET_UNUSED;
            let mut theirs = f.flags;
            // WGSL has no write-only storage: compare only what both state.
            ours &= wgsl::COMPARED_FLAGS;
            theirs &= wgsl::COMPARED_FLAGS;
            let checks = [
                ("kind", slot.kind.to_raw(), f.kind.to_raw()),
                ("flags", ours, theirs),
                ("view dimension", slot.view_dimension, f.view_dimension),
                ("sample type", slot.sample_type, f.sample_type),
            ];
            for (what, a, b) in checks {
                if a != b {
                    return Err(format!(
                        "`{}` ({}, code `{}`): the bind view says {what} {a}, the code {b}",
                        slot.path,
                        place(slot),
                        d.name
                    ));
                }
            }
        }
        let uniform = slot.kind == TargetBindingKind::UniformBuffer;
        if let Some(size) = d.uniform_size.filter(|_| uniform) {
            if size != slot.min_binding_size {
                return Err(format!(
                    "`{}` ({}): the bind view says the uniform buffer is {} bytes, the \
                     code's type is {size}",
                    slot.path,
                    place(slot),
                    slot.min_binding_size
                ));
            }
        }
        if let (Some(shape), false) = (&d.layout, target.shares_vulkan_member_layout()) {
            // HLSL and Metal: Slang's layout for the target, member by member, against the
            // layout packed from the code by the language's rules.
            if let Some(ours) = &slot.layout {
                same_target_members(target, ours, shape).map_err(|m| {
                    format!("`{}` ({}, code `{}`): {m}", slot.path, place(slot), d.name)
                })?;
                if let Some(c) = checked.get_mut(i) {
                    *c = true;
                }
            }
        } else if let Some(shape) = &d.layout {
            // A push-constant block's uniform buffer (WGSL) holds the block's range: its
            // members sit at their Vulkan offsets less the range's offset.
            let push = pushes.iter().find(|p| p.name == paths[i]);
            let (layout, shift) = match vulkan.iter().find(|b| b.path == paths[i]) {
                Some(b) => (b.buffer_layout, 0),
                None => push.map_or((ABSENT, 0), |p| (p.buffer_layout, p.offset)),
            };
            let entry = declared_by
                .get(j)
                .and_then(|by| entry_names.get(by.trailing_zeros() as usize))
                .map_or(String::new(), |e| format!("entry point `{e}`: "));
            same_members(builder, layout, shift, shape).map_err(|m| {
                format!(
                    "{entry}`{}` ({}, code `{}`): {m}",
                    slot.path,
                    place(slot),
                    d.name
                )
            })?;
        }
        code_names[i] = Some(d);
    }
    let mut out = Vec::with_capacity(slots.len());
    for ((slot, &path), code) in slots.iter().zip(&paths).zip(code_names) {
        let binding = vulkan
            .iter()
            .position(|b| b.path == path)
            .map_or(ABSENT, |i| i as u32);
        // A heap's kinds are those the SPIR-V indexes; another target's code may index
        // fewer of them.
        let vulkan_used = vulkan
            .get(binding as usize)
            .is_some_and(|b| b.flags & (BINDING_UNUSED | BINDING_DESCRIPTOR_HEAP) == 0);
        let mut flags = slot.flags;
        if code.is_none() && slot.kind != TargetBindingKind::PushConstants {
            let is_push = pushes.iter().any(|p| p.name == path);
            if vulkan_used && !is_push {
                return Err(format!(
                    "`{}`: the bind view places it at {}, but the code declares nothing there",
                    slot.path,
                    place(slot)
                ));
            }
            flags |= TARGET_UNUSED;
        }
        out.push(TargetBinding {
            target: target.to_raw(),
            path,
            code_name: match code {
                Some(c) => builder.intern(&c.name),
                None => ABSENT,
            },
            binding,
            kind: slot.kind.to_raw(),
            space: slot.space,
            index: slot.index,
            register_class: u32::from(slot.register_class),
            count: slot.count,
            flags,
            min_binding_size: slot.min_binding_size,
            view_dimension: slot.view_dimension,
            sample_type: slot.sample_type,
            format: slot.format,
        });
    }
    Ok(out)
}

/// Slang's name for a declaration without its `_N` uniqueness suffix.
fn strip_suffix(name: &str) -> String {
    match name.rsplit_once('_') {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            head.to_string()
        }
        _ => name.to_string(),
    }
}

/// Checks the code's layout of a buffer against the bind view's buffer layout `layout` (the
/// Vulkan binding's, which the target's binding shares): every member's offset, size and
/// array (or matrix) stride, and a structured buffer's element stride. Offsets outside array
/// elements are compared less `shift` (a push-constant range's offset: WGSL's uniform buffer
/// for the block starts at the range).
fn same_members(
    builder: &ReflectionBuilder,
    layout: u32,
    shift: u32,
    shape: &BufferShape,
) -> Result<(), String> {
    let Some(layout) = builder.get::<BufferLayout>(layout) else {
        return Ok(());
    };
    if let Some(stride) = shape.element_stride {
        if layout.kind == BUFFER_STRUCTURED_ELEMENT && stride != layout.stride {
            return Err(format!(
                "the bind view says its elements are {} bytes apart, {} layout of the code \
                 {stride}",
                layout.stride, shape.checker
            ));
        }
    }
    let first = layout.first_member;
    let member = |k: u32| builder.get::<BufferMember>(k);
    // The parts of an existential header are Slang's own tuple members in the code (`value0`,
    // `value1`...), found by place; the words of a payload holding a packed value are only
    // `uint`s there (their packing is checked against the SPIR-V and on Vulkan).
    let existential = |mut k: u32| -> (bool, bool) {
        let mut header = false;
        let mut in_payload = false;
        let start = k;
        for _ in 0..=layout.member_count {
            let Some(m) = member(k) else { break };
            header |= m.flags & MEMBER_EXISTENTIAL != 0;
            in_payload |= k != start && m.flags & MEMBER_EXISTENTIAL_PAYLOAD != 0;
            header |= m.flags & MEMBER_EXISTENTIAL_PAYLOAD != 0;
            // `parent` is an absolute member index, earlier than the member.
            match m.parent {
                p if p != ABSENT && p < k => k = p,
                _ => break,
            }
        }
        (header, in_payload)
    };
    for k in first..first.saturating_add(layout.member_count) {
        let Some(m) = member(k) else {
            continue;
        };
        let path = builder.string(m.path).unwrap_or("?");
        let stride = if m.array_count != 0 {
            m.array_stride
        } else {
            m.matrix_stride
        };
        let offset = if path.contains("[]") {
            m.offset
        } else {
            m.offset.wrapping_sub(shift)
        };
        let ours = (offset, Some(m.size), stride);
        let (header, in_payload) = existential(k);
        if in_payload {
            continue;
        }
        let found = if header {
            (shape.members.iter())
                .find(|c| c.offset == offset && c.size.is_none_or(|s| s == m.size))
        } else {
            shape.members.iter().find(|c| c.path == path)
        };
        // A header that groups the tuple's parts in the bind view only: its parts are
        // checked one by one.
        if found.is_none() && m.flags & MEMBER_EXISTENTIAL != 0 {
            continue;
        }
        let Some(code) = found else {
            return Err(format!(
                "member `{path}`: the bind view lays it out at offset {}, size {}, and the \
                 code's type has no such member",
                offset, m.size
            ));
        };
        // A checker that knows no sizes (spirv-cross) compares offsets and strides.
        let theirs = (code.offset, code.size.or(ours.1), code.stride);
        if ours != theirs {
            let size = |s: Option<u32>| s.map_or("?".to_string(), |s| s.to_string());
            return Err(format!(
                "member `{path}`: the bind view says offset {}, size {}, stride {}; {} layout \
                 of the code says offset {}, size {}, stride {}",
                ours.0,
                m.size,
                ours.2,
                shape.checker,
                theirs.0,
                size(code.size),
                theirs.2
            ));
        }
    }
    Ok(())
}

/// A slot's place in the target's words.
fn describe(target: Target, space: u32, index: u32, class: u8) -> String {
    slangpack_format::targets::place_name(target, space, index, u32::from(class))
}

fn describe_code(target: Target, d: &CodeBinding) -> String {
    if d.index == ABSENT {
        return "a member of an argument buffer".to_string();
    }
    describe(target, d.space, d.index, d.register_class)
}

/// Runs `program` with `args`, returning stdout, or a message naming the program (and the
/// Debian package that ships it) when it cannot run or fails.
pub(crate) fn run_tool(
    program: &str,
    package: &str,
    args: &[&std::ffi::OsStr],
) -> Result<String, String> {
    let out = std::process::Command::new(program)
        .args(args)
        .output()
        .map_err(|e| {
            format!("cannot run `{program}` (Debian package `{package}`) to check the code: {e}")
        })?;
    if !out.status.success() {
        return Err(format!(
            "`{program}` rejected the code:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The glslang stage name (`-S`) of a raw `SlangStage`.
pub(crate) fn glslang_stage(stage: u32) -> &'static str {
    match stage {
        1 => "vert",
        2 => "tesc",
        3 => "tese",
        4 => "geom",
        5 => "frag",
        7 => "rgen",
        8 => "rint",
        9 => "rahit",
        10 => "rchit",
        11 => "rmiss",
        12 => "rcall",
        13 => "mesh",
        14 => "task",
        _ => "comp",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder_with_texture() -> ReflectionBuilder {
        builder_with_texture_where(|_| {})
    }

    /// A builder holding one Vulkan binding `gTex` (set 0 binding 1), `edit`ed.
    fn builder_with_texture_where(edit: impl FnOnce(&mut DescriptorBinding)) -> ReflectionBuilder {
        let mut b = ReflectionBuilder::new();
        let path = b.intern("gTex");
        let mut binding = DescriptorBinding {
            name: path,
            path,
            spirv_name: path,
            set: 0,
            binding: 1,
            buffer_layout: ABSENT,
            ..DescriptorBinding::default()
        };
        edit(&mut binding);
        b.push(binding);
        b
    }

    fn texture_slot(index: u32) -> Slot {
        Slot {
            path: "gTex".into(),
            kind: TargetBindingKind::Texture,
            space: 0,
            index,
            register_class: 0,
            count: 1,
            flags: 0,
            min_binding_size: 0,
            view_dimension: slangpack_format::targets::view_dimension::D2,
            sample_type: slangpack_format::targets::sample_type::FLOAT,
            format: 0,
            layout: None,
        }
    }

    fn declared(index: u32, facts: Option<Facts>) -> CodeBinding {
        CodeBinding {
            layout: None,
            name: "gTex_0".into(),
            space: 0,
            index,
            register_class: 0,
            facts,
            kind: None,
            uniform_size: None,
        }
    }

    #[test]
    fn agreeing_code_gives_records_with_the_code_name() {
        let mut b = builder_with_texture();
        let records = reconcile(
            &mut b,
            Target::Wgsl,
            &[texture_slot(1)],
            &[declared(1, None)],
            &[],
            &[],
        )
        .expect("agrees");
        assert_eq!(records.len(), 1);
        assert_eq!(b.string(records[0].code_name), Some("gTex_0"));
        assert_eq!(records[0].binding, 0);
        assert_eq!((records[0].space, records[0].index), (0, 1));
    }

    #[test]
    fn a_binding_elsewhere_in_the_code_fails_naming_both_places() {
        let mut b = builder_with_texture();
        let e = reconcile(
            &mut b,
            Target::Wgsl,
            &[texture_slot(1)],
            &[declared(2, None)],
            &[],
            &[],
        )
        .unwrap_err();
        assert!(e.contains("`gTex_0` at @group(0) @binding(2)"), "{e}");
        // Nothing at the bind view's place either: it names that place.
        let e = reconcile(&mut b, Target::Wgsl, &[texture_slot(1)], &[], &[], &[]).unwrap_err();
        assert!(e.contains("@group(0) @binding(1)"), "{e}");
    }

    #[test]
    fn a_type_disagreement_fails_naming_both_values() {
        let mut b = builder_with_texture();
        let facts = Facts {
            kind: TargetBindingKind::Texture,
            flags: 0,
            view_dimension: slangpack_format::targets::view_dimension::D3,
            sample_type: slangpack_format::targets::sample_type::FLOAT,
        };
        let e = reconcile(
            &mut b,
            Target::Wgsl,
            &[texture_slot(1)],
            &[declared(1, Some(facts))],
            &[],
            &[],
        )
        .unwrap_err();
        assert!(e.contains("view dimension 2, the code 6"), "{e}");
    }

    #[test]
    fn a_vulkan_binding_without_a_place_on_the_target_fails_naming_it() {
        let mut b = builder_with_texture();
        let e = reconcile(&mut b, Target::Hlsl, &[], &[], &[], &[]).unwrap_err();
        assert!(
            e.contains("`gTex` (Vulkan set 0 binding 1) has no place on hlsl"),
            "{e}"
        );
    }

    #[test]
    fn metal_code_disagreeing_with_the_bind_view_fails() {
        let mut b = builder_with_texture();
        let metal_slot = |index: u32| Slot {
            register_class: b't',
            space: ABSENT,
            ..texture_slot(index)
        };
        let text = "[[kernel]] void main_0(texture2d<float, access::sample> gTex_0 [[texture(1)]])\n{\n}\n";
        let found = metal::check(text, "main_0", &|_| None).unwrap();
        reconcile(&mut b, Target::Metal, &[metal_slot(1)], &found, &[], &[]).expect("agrees");
        // The bind view one texture off: the code's attribute is where it has nothing.
        let e = reconcile(&mut b, Target::Metal, &[metal_slot(2)], &found, &[], &[]).unwrap_err();
        assert!(e.contains("`gTex_0` at [[texture(1)]]"), "{e}");
        // An argument-buffer member the bind view does not list.
        let text = "struct M_0\n{\n    texture2d<float, access::sample> other_0;\n};\n[[kernel]] void main_0(M_0 constant* gM_1 [[buffer(0)]])\n{\n}\n";
        let found = metal::check(text, "main_0", &|_| None).unwrap();
        let mut empty = ReflectionBuilder::new();
        let e = reconcile(&mut empty, Target::Metal, &[], &found, &[], &[]).unwrap_err();
        assert!(e.contains("`gM_1` at [[buffer(0)]]"), "{e}");
    }

    #[test]
    fn metal_uniform_buffer_sizes_are_checked_against_the_code_by_metal_rules() {
        let mut b = builder_with_texture();
        let uniform_slot = |min_binding_size: u32| Slot {
            kind: TargetBindingKind::UniformBuffer,
            register_class: b'b',
            space: ABSENT,
            min_binding_size,
            ..texture_slot(0)
        };
        // float3 + float: 16 + 4, rounded to the float3's 16-byte alignment (std140: 16).
        let text = "struct Light_0\n{\n    float3 direction_0;\n    float intensity_0;\n};\n[[kernel]] void main_0(Light_0 constant* gSun_1 [[buffer(0)]])\n{\n}\n";
        let found = metal::check(text, "main_0", &|_| None).unwrap();
        assert_eq!(found[0].uniform_size, Some(32));
        reconcile(&mut b, Target::Metal, &[uniform_slot(32)], &found, &[], &[]).expect("agrees");
        let e =
            reconcile(&mut b, Target::Metal, &[uniform_slot(16)], &found, &[], &[]).unwrap_err();
        assert!(
            e.contains("the bind view says the uniform buffer is 16 bytes, the code's type is 32"),
            "{e}"
        );
        // A struct holding a texture has no known size: nothing is compared.
        let text = "struct M_0\n{\n    texture2d<float, access::sample> t_0;\n};\n[[kernel]] void main_0(M_0 constant* gM_1 [[buffer(0)]])\n{\n}\n";
        let found = metal::check(text, "main_0", &|_| None).unwrap();
        assert_eq!(found[0].uniform_size, None);
    }

    #[test]
    fn metal_input_attachments_sit_at_the_color_attachment_the_code_reads() {
        // An input attachment with input attachment index 1, which Slang's Metal layout puts
        // at [[texture(0)]]; Slang's Metal reads it by framebuffer fetch.
        let mut b = builder_with_texture_where(|d| {
            d.descriptor_type = slangpack_format::vk::DescriptorKind::InputAttachment.to_raw();
            d.input_attachment_index = 1;
        });
        let mut slots = vec![Slot {
            register_class: b't',
            space: ABSENT,
            ..texture_slot(0)
        }];
        metal::input_attachments(&mut slots, |p| (p == "gTex").then_some(1));
        assert_eq!((slots[0].register_class, slots[0].index), (b'c', 1));
        // A color output of the same number in the return struct is no input attachment.
        let code = |n: u32| {
            format!(
                "struct Out_0\n{{\n    float4 o_0 [[color(0)]];\n}};\n[[fragment]] Out_0 main_0(float4 gTex_0 [[color({n})]])\n{{\n}}\n"
            )
        };
        let found = metal::check(&code(1), "main_0", &|_| None).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        let records = reconcile(&mut b, Target::Metal, &slots, &found, &[], &[]).unwrap();
        assert_eq!(b.string(records[0].code_name), Some("gTex_0"));
        // The code reading another color attachment fails naming it.
        let found = metal::check(&code(0), "main_0", &|_| None).unwrap();
        let e = reconcile(&mut b, Target::Metal, &slots, &found, &[], &[]).unwrap_err();
        assert!(e.contains("`gTex_0` at [[color(0)]]"), "{e}");
    }

    /// A uniform buffer `gParams` (Vulkan set 0 binding 0) whose bind-view layout has `a` at
    /// 0 (16 bytes) and `b` at `b_offset` (4 bytes), and its WGSL slot.
    fn builder_with_uniform(b_offset: u32) -> (ReflectionBuilder, Slot) {
        let mut b = ReflectionBuilder::new();
        let path = b.intern("gParams");
        let first_member = b.table_len::<BufferMember>();
        for (name, offset, size) in [("a", 0, 16), ("b", b_offset, 4)] {
            let name = b.intern(name);
            b.push(BufferMember {
                path: name,
                name,
                parent: ABSENT,
                offset,
                size,
                stride: size,
                ..BufferMember::default()
            });
        }
        let layout = b.push(BufferLayout {
            name: path,
            kind: slangpack_format::bind::BUFFER_UNIFORM,
            size: 32,
            alignment: 16,
            stride: 32,
            first_member,
            member_count: 2,
            ..BufferLayout::default()
        });
        b.push(DescriptorBinding {
            name: path,
            path,
            spirv_name: path,
            buffer_layout: layout,
            ..DescriptorBinding::default()
        });
        let slot = Slot {
            path: "gParams".into(),
            kind: TargetBindingKind::UniformBuffer,
            min_binding_size: 32,
            view_dimension: 0,
            sample_type: 0,
            ..texture_slot(0)
        };
        (b, slot)
    }

    /// WGSL shaped as Slang emits a uniform buffer: `b` follows the 16-byte `a` at offset 16.
    const UNIFORM_WGSL: &str = "struct Params_std140_0\n{\n    @align(16) a_0 : vec4<f32>,\n    @align(16) b_0 : f32,\n};\n@binding(0) @group(0) var<uniform> gParams_0 : Params_std140_0;\n@compute @workgroup_size(1, 1, 1)\nfn main()\n{\n    var x : f32 = gParams_0.b_0 + gParams_0.a_0.x;\n    return;\n}\n";

    #[test]
    fn wgsl_member_offsets_are_checked_against_naga_naming_entry_binding_and_member() {
        let found = wgsl::check(UNIFORM_WGSL, "main").unwrap();
        let (mut b, slot) = builder_with_uniform(16);
        reconcile(
            &mut b,
            Target::Wgsl,
            std::slice::from_ref(&slot),
            &found,
            &[1],
            &["main"],
        )
        .expect("naga lays `b` out at 16, as the bind view says");
        // The bind view four bytes off: the bake fails naming the entry point, the binding,
        // its place, the code's variable and the member, with both layouts.
        let (mut b, slot) = builder_with_uniform(20);
        let e = reconcile(&mut b, Target::Wgsl, &[slot], &found, &[1], &["main"]).unwrap_err();
        assert_eq!(
            e,
            "entry point `main`: `gParams` (@group(0) @binding(0), code `gParams_0`): member \
             `b`: the bind view says offset 20, size 4, stride 0; naga's layout of the code \
             says offset 16, size 4, stride 0"
        );
        // A member the code's type lacks.
        let found = wgsl::check(&UNIFORM_WGSL.replace("b_0", "c_0"), "main").unwrap();
        let (mut b, slot) = builder_with_uniform(16);
        let e = reconcile(&mut b, Target::Wgsl, &[slot], &found, &[1], &["main"]).unwrap_err();
        assert!(
            e.contains("member `b`: the bind view lays it out at offset 16"),
            "{e}"
        );
        assert!(e.contains("the code's type has no such member"), "{e}");
    }

    /// `spirv-cross --reflect` of glslang's SPIR-V for a uniform block shaped like
    /// [`UNIFORM_WGSL`]'s (`b` at `b_offset`) and a structured buffer of `uint`.
    fn glsl_reflection(b_offset: u32) -> String {
        format!(
            r#"{{"types": {{
                "_10": {{"name": "block_Params_0", "members": [
                    {{"name": "a_0", "type": "vec4", "offset": 0}},
                    {{"name": "b_0", "type": "float", "offset": {b_offset}}}]}},
                "_20": {{"name": "StructuredBuffer_uint_t_0", "members": [
                    {{"name": "_data", "type": "uint", "array": [0], "offset": 0,
                      "array_stride": 4}}]}}}},
              "ubos": [{{"type": "_10", "name": "block_Params_0", "set": 0, "binding": 0}}],
              "ssbos": [{{"type": "_20", "name": "StructuredBuffer_uint_t_0", "set": 0,
                         "binding": 1}}]}}"#
        )
    }

    #[test]
    fn glsl_member_offsets_are_checked_against_spirv_cross() {
        let found = glsl::bindings(&glsl_reflection(16)).unwrap();
        let storage = found[1].layout.as_ref().unwrap();
        assert_eq!(
            (storage.element_stride, storage.members.len()),
            (Some(4), 0)
        );
        let (mut b, slot) = builder_with_uniform(16);
        let uniform = &found[..1];
        reconcile(
            &mut b,
            Target::Glsl,
            std::slice::from_ref(&slot),
            uniform,
            &[1],
            &["main"],
        )
        .expect("spirv-cross finds `b` at 16, as the bind view says");
        let found = glsl::bindings(&glsl_reflection(20)).unwrap();
        let e = reconcile(&mut b, Target::Glsl, &[slot], &found[..1], &[1], &["main"]).unwrap_err();
        assert_eq!(
            e,
            "entry point `main`: `gParams` (set 0 binding 0, code `block_Params_0`): member \
             `b`: the bind view says offset 16, size 4, stride 0; spirv-cross's layout of the \
             code says offset 20, size ?, stride 0"
        );
    }

    #[test]
    fn wgsl_array_and_matrix_wrappers_and_storage_strides_follow_naga() {
        // Slang's `_Array_std140_*` wrapper stands for its array: `v[]` elements 16 bytes
        // apart; a storage buffer's elements `Item` 32 bytes apart, `y` at 16 inside one.
        let text = "struct _Array_std140_float3_0\n{\n    @align(16) data_0 : array<vec4<f32>, i32(3)>,\n};\nstruct Item_std430_0\n{\n    @align(16) x_0 : vec3<f32>,\n    @align(16) y_0 : vec4<f32>,\n};\nstruct P_0\n{\n    @align(16) v_0 : _Array_std140_float3_0,\n};\n@binding(0) @group(0) var<uniform> gP_0 : P_0;\n@binding(1) @group(0) var<storage, read> gItems_0 : array<Item_std430_0>;\n@compute @workgroup_size(1, 1, 1)\nfn main()\n{\n    var x : f32 = gP_0.v_0.data_0[0].x + gItems_0[0].y_0.x;\n    return;\n}\n";
        let found = wgsl::check(text, "main").unwrap();
        let shape = |name: &str| {
            found
                .iter()
                .find(|d| d.name == name)
                .and_then(|d| d.layout.clone())
                .unwrap()
        };
        let v = shape("gP_0");
        assert_eq!(
            v.members,
            [CodeMember {
                path: "v".into(),
                offset: 0,
                size: Some(48),
                stride: 16
            }]
        );
        let items = shape("gItems_0");
        assert_eq!(items.element_stride, Some(32));
        let offsets: Vec<(&str, u32)> = items
            .members
            .iter()
            .map(|m| (m.path.as_str(), m.offset))
            .collect();
        assert_eq!(offsets, [("x", 0), ("y", 16)]);
    }

    /// Slang's WGSL for `[[vk::binding(0)]] Sampler2D gA; [[vk::binding(1)]] Sampler2D gB;`
    /// and a push-constant block: each sampler half on the next texture's binding, the block
    /// without a place.
    const SPLIT_WGSL: &str = "@binding(0) @group(0) var gA_texture_0 : texture_2d<f32>;\n@binding(1) @group(0) var gA_sampler_0 : sampler;\n@binding(1) @group(0) var gB_texture_0 : texture_2d<f32>;\n@binding(2) @group(0) var gB_sampler_0 : sampler;\nstruct P_std430_0\n{\n    @align(16) s_0 : vec4<f32>,\n};\nvar<uniform> gPush_0 : P_std430_0;\n@fragment\nfn main() -> @location(0) vec4<f32>\n{\n    return textureSample(gA_texture_0, gA_sampler_0, vec2<f32>(0.5f)) + textureSample(gB_texture_0, gB_sampler_0, vec2<f32>(0.5f)) + gPush_0.s_0;\n}\n";

    #[test]
    fn wgsl_sampler_halves_on_taken_places_and_push_constants_move_after_the_group() {
        let slot = |path: &str, kind, index| Slot {
            path: path.into(),
            kind,
            index,
            ..texture_slot(0)
        };
        let mut slots = vec![
            slot("gA", TargetBindingKind::Texture, 0),
            slot("gA", TargetBindingKind::Sampler, 1),
            slot("gB", TargetBindingKind::Texture, 1),
            slot("gB", TargetBindingKind::Sampler, 2),
            Slot {
                space: ABSENT,
                index: ABSENT,
                ..slot("gPush", TargetBindingKind::PushConstants, 0)
            },
        ];
        // Slang's WGSL as it is: naga refuses the shared binding.
        let e = wgsl::check(
            &SPLIT_WGSL.replace(
                "var<uniform> gPush_0",
                "@binding(9) @group(0) var<uniform> gPush_0",
            ),
            "main",
        )
        .unwrap_err();
        assert!(e.contains("conflict"), "{e}");
        let moves = wgsl::relocate(&mut slots, |p| p != "gPush");
        // gA's sampler, on gB's texture, goes after the group's last binding (gB's sampler,
        // 2); gB's sampler, alone at 2, stays; the block follows.
        assert_eq!(
            moves,
            [
                wgsl::Relocation::Sampler {
                    group: 0,
                    from: 1,
                    to: 3
                },
                wgsl::Relocation::PushConstants {
                    path: "gPush".into(),
                    group: 0,
                    to: 4
                },
            ]
        );
        let places: Vec<(TargetBindingKind, u32, u32)> =
            slots.iter().map(|s| (s.kind, s.space, s.index)).collect();
        assert_eq!(
            places,
            [
                (TargetBindingKind::Texture, 0, 0),
                (TargetBindingKind::Sampler, 0, 3),
                (TargetBindingKind::Texture, 0, 1),
                (TargetBindingKind::Sampler, 0, 2),
                (TargetBindingKind::UniformBuffer, 0, 4),
            ]
        );
        let text = wgsl::rewrite(SPLIT_WGSL, &moves).unwrap();
        let found = wgsl::check(&text, "main").expect("naga validates the moved WGSL");
        let mut at: Vec<(&str, u32)> = found.iter().map(|d| (d.name.as_str(), d.index)).collect();
        at.sort();
        assert_eq!(
            at,
            [
                ("gA_sampler_0", 3),
                ("gA_texture_0", 0),
                ("gB_sampler_0", 2),
                ("gB_texture_0", 1),
                ("gPush_0", 4),
            ]
        );
        // Only the binding attributes changed.
        assert_eq!(
            text.len(),
            SPLIT_WGSL.len() + "@binding(4) @group(0) ".len()
        );
        // A sampler the rule does not name keeps its place: a combined texture-sampler whose
        // place no one else takes needs nothing.
        let mut alone = vec![
            slot("gA", TargetBindingKind::Texture, 0),
            slot("gA", TargetBindingKind::Sampler, 1),
        ];
        assert!(wgsl::relocate(&mut alone, |_| true).is_empty());
        // A block without a place that no move names is refused, not guessed.
        let moves = [
            wgsl::Relocation::PushConstants {
                path: "a".into(),
                group: 0,
                to: 3,
            },
            wgsl::Relocation::PushConstants {
                path: "b".into(),
                group: 0,
                to: 4,
            },
        ];
        let e = wgsl::rewrite(SPLIT_WGSL, &moves).unwrap_err();
        assert!(e.contains("`gPush_0`"), "{e}");
    }

    #[test]
    fn targets_parse_with_spirv_implied_and_dxil_explained() {
        assert_eq!(
            parse_targets(["metal", "spirv", "wgsl", "wgsl"]).unwrap(),
            vec![Target::Wgsl, Target::Metal]
        );
        assert!(parse_targets(["dxil"]).unwrap_err().contains("dxc"));
        assert!(parse_targets(["vulkan"])
            .unwrap_err()
            .contains("unknown target"));
    }

    #[test]
    fn a_target_member_layout_disagreeing_with_the_code_fails_naming_both_values() {
        // `gParams { float3 a; float b; }` as Slang's HLSL declares it: b at 12.
        let text = "cbuffer gParams_0 : register(b0)\n{\n    float3 a_0;\n    float b_0;\n}\n";
        let found = hlsl::registers(text).unwrap();
        let shape = found[0].layout.clone().expect("a shape");
        let layout = |b_offset: u32| members::TargetLayoutOut {
            size: 16,
            alignment: 16,
            stride: 16,
            matrix_layout: 0,
            members: vec![
                (
                    "a".into(),
                    TargetMember {
                        offset: 0,
                        size: 12,
                        ..TargetMember::default()
                    },
                ),
                (
                    "b".into(),
                    TargetMember {
                        offset: b_offset,
                        size: 4,
                        ..TargetMember::default()
                    },
                ),
            ],
        };
        same_target_members(Target::Hlsl, &layout(12), &shape).expect("agrees");
        let e = same_target_members(Target::Hlsl, &layout(16), &shape).unwrap_err();
        assert_eq!(
            e,
            "member `b`: Slang's hlsl layout says offset 16, size 4, stride 0; HLSL's packing \
             rules applied to the code say offset 12, size 4, stride 0"
        );
        // A member the code lacks.
        let mut extra = layout(12);
        extra.members.push(("c".into(), TargetMember::default()));
        let e = same_target_members(Target::Hlsl, &extra, &shape).unwrap_err();
        assert!(e.contains("member `c`"), "{e}");
        assert!(e.contains("the code's type has no such member"), "{e}");
    }
}

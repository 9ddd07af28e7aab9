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
//!   the `hlsl` module).
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
mod reconcile;
mod walk;
mod wgsl;

use crate::compile::CompiledProgram;
pub use crate::compile::{code_target, entry_name};
use crate::error::BakeError;
use reconcile::{combined, describe, reconcile_checked};
#[cfg(test)]
use reconcile::{reconcile, same_target_members};
use slangpack_format::bind::{
    BufferLayout, BufferMember, DescriptorBinding, PushConstantRange, BINDING_DESCRIPTOR_HEAP,
    BINDING_UNUSED, BUFFER_STRUCTURED_ELEMENT, COUNT_ZERO, MEMBER_EXISTENTIAL,
    MEMBER_EXISTENTIAL_PAYLOAD,
};
use slangpack_format::targets::{TargetBinding, TargetBuffer, TargetMember, TARGET_UNUSED};
use slangpack_format::{ReflectionBuilder, Target, TargetBindingKind, ABSENT};
use walk::Slot;

/// Deepest nesting of structs and arrays the target layouts follow (in the code's text and in
/// Slang's type layouts); Slang's code and the Vulkan walk's buffers nest far less.
const MAX_DEPTH: usize = 32;

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
/// binding attributes moved where WGSL cannot take what Slang emits (`wgsl::relocate`).
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
        let mut slots = walk::walk(layout, target);
        let fail = |message: String| BakeError::Target {
            key: key.to_string(),
            target: target.name(),
            message,
        };
        adjust_slots(builder, target, &mut slots, &mut entry_points, &fail)?;
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
        let (declared, declared_by) = declarations(target, &code, &slots, key, skipped, &fail)?;
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
        let mut found = reconcile_checked(
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
            argument_buffers.extend(
                argument_buffers::check(builder, &mut found, &mut slots, &structs).map_err(fail)?,
            );
            // The code's ids past matrices may meet an id Slang gave a binding the code's
            // structs do not hold.
            if let Some(message) = metal::overlapping_ids(&slots) {
                return Err(fail(message));
            }
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
    push_records(builder, records, argument_buffers);
    Ok(entry_points)
}

/// The target's slots made to match its code before the check: WGSL's combined
/// texture-samplers split (the code rewritten to match), Metal's input attachments given
/// their indices, GLSL's descriptor heaps added; Metal's ids must not overlap.
fn adjust_slots(
    builder: &mut ReflectionBuilder,
    target: Target,
    slots: &mut Vec<Slot>,
    entry_points: &mut [slangpack_pack::assemble::CompiledEntryPoint],
    fail: &dyn Fn(String) -> BakeError,
) -> Result<(), BakeError> {
    if target == Target::Wgsl {
        let moves = wgsl::relocate(slots, |path| combined(builder, path));
        for ep in entry_points.iter_mut() {
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
        metal::input_attachments(slots, |path| {
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
        Target::Metal => metal::overlapping_ids(slots),
        _ => None,
    } {
        return Err(fail(message));
    }
    Ok(())
}

/// The resources each entry point's `code` declares, each once, and which entry points'
/// code declares it (bit i: entry point i).
fn declarations(
    target: Target,
    code: &[(&str, &[u8], u32, u32)],
    slots: &[Slot],
    key: &str,
    skipped: &mut Vec<String>,
    fail: &dyn Fn(String) -> BakeError,
) -> Result<(Vec<CodeBinding>, Vec<u32>), BakeError> {
    let mut declared: Vec<CodeBinding> = Vec::new();
    // Which entry points' code declares each of `declared` (bit i: entry point i).
    let mut declared_by: Vec<u32> = Vec::new();
    for &(entry_name, bytes, stage, bit) in code {
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
    Ok((declared, declared_by))
}

/// The target bindings of every target, sorted, with their argument buffers and their own
/// member layouts.
fn push_records(
    builder: &mut ReflectionBuilder,
    mut records: Vec<(TargetBinding, Option<PairedLayout>)>,
    argument_buffers: Vec<argument_buffers::Pending>,
) {
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
}

/// A target buffer's layout as [`paired_layout`] gives it: the Vulkan layout's index, the
/// layout, the members in the Vulkan order.
type PairedLayout = (
    u32,
    members::TargetLayoutOut,
    Vec<slangpack_format::targets::TargetMember>,
);

/// The target's members of a buffer, paired one for one with the Vulkan bind view's members
/// of the same buffer (found through `record`'s Vulkan binding, or the push-constant range or
/// buffer layout named `path`): (the Vulkan layout's index, the layout, the members in the
/// Vulkan order). `None` when the Vulkan layout has no members (unless it is a structured
/// buffer's element, whose size and stride are its layout) or a Vulkan member has no
/// counterpart.
fn paired_layout(
    builder: &ReflectionBuilder,
    record: &TargetBinding,
    path: &str,
    layout: &members::TargetLayoutOut,
) -> Option<PairedLayout> {
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
    // A structured buffer of scalars or vectors has no members: its element's size and
    // stride are the layout.
    if vulkan.member_count == 0 && vulkan.kind != BUFFER_STRUCTURED_ELEMENT {
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

/// Slang's name for a declaration without its `_N` uniqueness suffix.
fn strip_suffix(name: &str) -> String {
    match name.rsplit_once('_') {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            head.to_string()
        }
        _ => name.to_string(),
    }
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
mod tests;

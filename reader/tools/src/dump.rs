//! What `slangpack dump` prints: a readable summary of a package, or its documented JSON
//! document, read back with the runtime reader.
//!
//! The JSON document is [`PackageDoc`]: serialize it with `serde_json`, or read a document
//! back with `serde_json::from_str::<PackageDoc>`. Its JSON Schema, generated from these
//! types and their doc comments, is [`JSON_SCHEMA`] (`reader/tools/schema/dump.schema.json`,
//! `slangpack dump --schema`); the document's `schema_version` says which version of it the
//! document follows ([`SCHEMA_VERSION`]).

use crate::text::shown;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use slangpack_format::bind::{
    buffer_kind_name, image_format_name, BufferLayout, DescriptorKind, BINDING_DESCRIPTOR_HEAP,
    BINDING_IMPLICIT_BLOCK_BUFFER, BINDING_IMPLICIT_GLOBAL_BUFFER, BINDING_UNUSED, COUNT_UNBOUNDED,
    COUNT_ZERO, MEMBER_DEFAULT_IS_FLOAT, MEMBER_ELEMENT_RELATIVE, MEMBER_HAS_DEFAULT,
};
use slangpack_format::targets::{
    kind_name, place_name, sample_type_name, target_flag_names, view_dimension_name,
};
use slangpack_format::TargetBindingKind;
use slangpack_format::ABSENT;
use slangpack_reader::{BindView, Entry, Package, TargetBufferLayout};
use std::fmt::Write as _;
use std::path::Path;

pub use doc::*;
pub use summary::*;

mod doc;
mod summary;

/// The names of the entry points in an entry-point mask (which entry points' SPIR-V declares
/// a binding or push-constant block: the pipelines it belongs to).
fn entry_point_names<'a>(entry: &Entry<'a>, mask: u32) -> Vec<&'a str> {
    entry.entry_points_in(mask).map(|ep| ep.name()).collect()
}

/// ` used by a, b` when the entry has several entry points (the pipelines a binding belongs
/// to), ` unused` for a binding none uses, else nothing.
fn used_by(entry: &Entry<'_>, mask: u32) -> String {
    if entry.entry_points().len() < 2 {
        return String::new();
    }
    match entry_point_names(entry, mask).as_slice() {
        [] => " unused".to_string(),
        names => {
            let names: Vec<_> = names.iter().map(|n| shown(n)).collect();
            format!(" used by {}", names.join(", "))
        }
    }
}

/// The names of the stages in a `VkShaderStageFlags` mask.
fn stage_names(flags: u32) -> Vec<&'static str> {
    slangpack_format::bind::stage_flag_names(flags).collect()
}

/// `None` for [`ABSENT`].
fn opt(v: u32) -> Option<u32> {
    (v != ABSENT).then_some(v)
}

/// The documented JSON document of `slangpack dump --json` ([`JSON_SCHEMA`]) as typed
/// values: serialize it with `serde_json`, or read such a document back with
/// `serde_json::from_str::<PackageDoc>`.
///
/// The document restates each entry's bindings and layouts and has no output budget: for an
/// untrusted package, [`package_json_text`] gives the same document as text, bounded.
pub fn package_doc(package: &Package) -> PackageDoc {
    let (major, minor) = package.version();
    PackageDoc {
        // Entries that fail to load are left out; `slangpack dump` verifies the package first.
        entries: package.entries().flatten().map(|e| entry_doc(&e)).collect(),
        format_version: [major, minor],
        schema_version: SCHEMA_VERSION,
    }
}

/// The JSON text of [`package_doc`] as `slangpack dump --json` prints it (pretty-printed, as
/// `serde_json::to_string_pretty` writes the document), made one entry at a time: memory holds
/// the text and one entry's document, never the whole document.
///
/// # Errors
/// [`ToolError::LimitExceeded`](crate::ToolError::LimitExceeded) when the text would pass the
/// output budget ([`crate::budget`]): the document restates each entry's bindings and layouts,
/// so entries sharing a reflection blob can make it far larger than the package.
pub fn package_json_text(package: &Package) -> Result<String, crate::ToolError> {
    package_json_text_of(package, None)
}

/// [`package_json_text`] holding the entry with key `only` alone (every entry for `None`).
///
/// # Errors
/// As [`package_json_text`].
pub fn package_json_text_of(
    package: &Package,
    only: Option<&str>,
) -> Result<String, crate::ToolError> {
    let mut budget = crate::budget::Budget::new("the JSON document", &[package]);
    let mut out = String::from("{\n  \"entries\": [");
    let mut first = true;
    // Entries that fail to load are left out, as in `package_doc`.
    for entry in selected(package, only) {
        let estimate = budget.charge_entry(&entry)?;
        let text = serde_json::to_string_pretty(&entry_doc(&entry))
            .map_err(|e| crate::ToolError::Input(format!("JSON: {e}")))?;
        budget.settle(estimate, text.len())?;
        out.push_str(if first { "\n" } else { ",\n" });
        first = false;
        // Nested two levels down; JSON strings hold no raw newline, so every line starts a
        // line of the document.
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str("    ");
            out.push_str(line);
        }
    }
    let (major, minor) = package.version();
    if first {
        out.push_str("],\n");
    } else {
        out.push_str("\n  ],\n");
    }
    let _ = write!(
        out,
        "  \"format_version\": [\n    {major},\n    {minor}\n  ],\n  \"schema_version\": {SCHEMA_VERSION}\n}}"
    );
    Ok(out)
}

/// [`package_doc`] as a `serde_json::Value`.
pub fn package_json(package: &Package) -> serde_json::Value {
    serde_json::to_value(package_doc(package)).unwrap_or(serde_json::Value::Null)
}

fn strings<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    names.into_iter().map(str::to_string).collect()
}

fn members_doc(bind: &BindView<'_>, layout: &BufferLayout) -> Vec<MemberDoc> {
    let layouts = bind.buffer_layouts();
    (layout.first_member..)
        .zip(bind.members(layout))
        .map(|(i, m)| {
            let bits = u64::from(m.default_lo) | (u64::from(m.default_hi) << 32);
            let conformance = bind.conformance(i).map(|c| ConformanceDoc {
                id: c.id,
                interface: bind.string(c.interface).to_string(),
            });
            MemberDoc {
                conformance,
                alignment: m.alignment,
                array_count: (m.array_count != 0).then(|| {
                    if m.array_count == ABSENT {
                        Count::Word("unbounded".into())
                    } else {
                        Count::Number(m.array_count)
                    }
                }),
                array_stride: (m.array_count != 0).then_some(m.array_stride),
                attributes: bind
                    .attributes(m)
                    .iter()
                    .map(|a| AttributeDoc {
                        arguments: bind.string(a.arguments).to_string(),
                        name: bind.string(a.name).to_string(),
                    })
                    .collect(),
                columns: (m.rows > 0).then_some(m.columns),
                default: (m.flags & MEMBER_HAS_DEFAULT != 0).then(|| {
                    if m.flags & MEMBER_DEFAULT_IS_FLOAT != 0 {
                        Scalar::Float(f64::from_bits(bits))
                    } else {
                        Scalar::Int(bits as i64)
                    }
                }),
                element_relative: m.flags & MEMBER_ELEMENT_RELATIVE != 0,
                matrix_layout: (m.matrix_layout != 0).then(|| {
                    if m.matrix_layout == 1 {
                        "row_major".to_string()
                    } else {
                        "column_major".to_string()
                    }
                }),
                matrix_stride: (m.matrix_layout != 0).then_some(m.matrix_stride),
                offset: m.offset,
                parent: (m.parent != ABSENT).then(|| m.parent.wrapping_sub(layout.first_member)),
                pointee: bind.pointee(i).and_then(|p| {
                    let at = layouts.iter().position(|l| core::ptr::eq(l, p))?;
                    u32::try_from(at).ok()
                }),
                path: bind.string(m.path).to_string(),
                rows: (m.rows > 0).then_some(m.rows),
                size: m.size,
                stride: m.stride,
                ty: crate::diff::member_type(m),
            }
        })
        .collect()
}

pub(crate) fn entry_doc(entry: &Entry<'_>) -> EntryDoc {
    let bind = entry.bind();
    let entry_points = entry_points_doc(entry);
    let bindings = bind
        .bindings()
        .iter()
        .map(|b| binding_doc(entry, &bind, b))
        .collect();
    let push_constants = bind
        .push_constants()
        .iter()
        .map(|p| PushConstantDoc {
            entry_points: strings(entry_point_names(entry, p.entry_point_mask)),
            members: bind
                .buffer_layout(p.buffer_layout)
                .map(|l| members_doc(&bind, l))
                .unwrap_or_default(),
            name: bind.string(p.name).to_string(),
            offset: p.offset,
            size: p.size,
            stages: strings(stage_names(p.stage_flags)),
        })
        .collect();
    let shader_records = bind
        .shader_record_blocks()
        .iter()
        .map(|r| ShaderRecordDoc {
            buffer: opt(r.buffer_layout),
            name: bind.string(r.name).to_string(),
            size: r.size,
            stages: strings(stage_names(r.stage_flags)),
        })
        .collect();
    let buffers = bind
        .buffer_layouts()
        .iter()
        .map(|l| BufferDoc {
            alignment: l.alignment,
            binding: opt(l.binding),
            kind: buffer_kind_name(l.kind).to_string(),
            members: members_doc(&bind, l),
            path: bind.string(l.name).to_string(),
            set: opt(l.set),
            size: l.size,
            stride: l.stride,
        })
        .collect();
    let (vertex_inputs, fragment_outputs, execution_modes) = stage_interface_docs(entry, &bind);
    let specialization_constants = bind
        .specialization_constants()
        .iter()
        .map(|c| specialization_constant_doc(&bind, c))
        .collect();
    EntryDoc {
        bindings,
        buffers,
        dependencies: entry
            .dependencies()
            .map(|d| DependencyDoc {
                hash: format!("{:016x}", d.content_hash()),
                path: d.path().to_string(),
            })
            .collect(),
        entry_points,
        key: entry.key().to_string(),
        options_hash: format!("{:016x}", entry.options_hash()),
        push_constants,
        set_slot_count: bind.set_slot_count(),
        shader_records,
        specialization_constants,
        target_bindings: target_bindings_doc(&bind),
        vertex_inputs,
        execution_modes,
        fragment_outputs,
    }
}

/// An entry's stage interface: its vertex inputs, fragment outputs and execution modes, each
/// with the name of its entry point.
fn stage_interface_docs(
    entry: &Entry<'_>,
    bind: &BindView<'_>,
) -> (
    Vec<VertexInputDoc>,
    Vec<FragmentOutputDoc>,
    Vec<ExecutionModesDoc>,
) {
    let entry_point_names_by_index: Vec<&str> = entry.entry_points().map(|e| e.name()).collect();
    let vertex_inputs = bind
        .all_vertex_inputs()
        .iter()
        .map(|v| VertexInputDoc {
            entry_point: entry_point_names_by_index
                .get(v.entry_point as usize)
                .map(|n| n.to_string()),
            format: vertex_format(v.format),
            location: v.location,
            location_count: v.location_count,
            name: bind.string(v.name).to_string(),
            semantic: bind.string(v.semantic_name).to_string(),
            semantic_index: v.semantic_index,
            used: v.flags & slangpack_format::bind::VERTEX_INPUT_USED != 0,
        })
        .collect();
    let ep_name = |i: u32| {
        entry_point_names_by_index
            .get(i as usize)
            .map(|n| n.to_string())
    };
    let fragment_outputs = bind
        .all_fragment_outputs()
        .iter()
        .map(|o| FragmentOutputDoc {
            components: o.component_count,
            entry_point: ep_name(o.entry_point),
            index: o.index,
            location: o.location,
            name: bind.string(o.name).to_string(),
            scalar: crate::diff::scalar_name(o.scalar_type).to_string(),
        })
        .collect();
    let execution_modes = bind
        .all_execution_modes()
        .iter()
        .map(|m| ExecutionModesDoc {
            entry_point: ep_name(m.entry_point),
            flags: m.flag_names().map(str::to_string).collect(),
            input_primitive: m.input_primitive().map(|p| p.name().to_string()),
            invocations: m.invocations,
            output_primitive: m.output_primitive().map(|p| p.name().to_string()),
            output_primitives: m.output_primitives,
            output_vertices: m.output_vertices,
            spacing: m.spacing().map(|p| p.name().to_string()),
        })
        .collect();
    (vertex_inputs, fragment_outputs, execution_modes)
}

/// An entry's entry points: name, SPIR-V entry and size, stage, further targets' code,
/// thread-group and wave sizes.
fn entry_points_doc(entry: &Entry<'_>) -> Vec<EntryPointDoc> {
    entry
        .entry_points()
        .map(|ep| EntryPointDoc {
            name: ep.name().to_string(),
            spirv_entry: ep.spirv_entry_name().to_string(),
            spirv_words: ep.spirv().len(),
            stage: ep.stage().name().to_string(),
            targets: ep
                .targets()
                .filter(|code| code.target() != slangpack_format::Target::Spirv)
                .map(|code| TargetCodeDoc {
                    bytes: code.bytes().len(),
                    entry: code.entry_name().to_string(),
                    target: code.target().name().to_string(),
                })
                .collect(),
            thread_group_size: ep.thread_group_size(),
            wave_size: ep.wave_size(),
        })
        .collect()
}

/// One descriptor binding of `entry`'s bind view.
fn binding_doc(
    entry: &Entry<'_>,
    bind: &BindView<'_>,
    b: &slangpack_format::bind::DescriptorBinding,
) -> BindingDoc {
    BindingDoc {
        binding: b.binding,
        buffer: opt(b.buffer_layout),
        count: match b.count_kind {
            COUNT_UNBOUNDED => Count::Word("unbounded".into()),
            COUNT_ZERO => Count::Number(0),
            _ => Count::Number(b.count),
        },
        entry_points: strings(entry_point_names(entry, b.entry_point_mask)),
        image_format: image_format_name(b.image_format).map(str::to_string),
        implicit: if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
            Some("global_uniform_buffer".into())
        } else if b.flags & BINDING_IMPLICIT_BLOCK_BUFFER != 0 {
            Some("parameter_block_buffer".into())
        } else if b.flags & BINDING_DESCRIPTOR_HEAP != 0 {
            Some("descriptor_heap".into())
        } else {
            None
        },
        input_attachment_index: b.input_attachment(),
        kind: b.kind().name().to_string(),
        name: bind.string(b.name).to_string(),
        path: bind.string(b.path).to_string(),
        sampler_path: (b.sampler_path != ABSENT).then(|| bind.string(b.sampler_path).to_string()),
        set: b.set,
        spirv_name: bind.string(b.spirv_name).to_string(),
        stages: strings(stage_names(b.stage_flags)),
        used: b.flags & BINDING_UNUSED == 0,
    }
}

/// One specialization constant, with its default value when it has one.
fn specialization_constant_doc(
    bind: &BindView<'_>,
    c: &slangpack_format::bind::SpecializationConstant,
) -> SpecializationConstantDoc {
    let bits = u64::from(c.default_lo) | (u64::from(c.default_hi) << 32);
    SpecializationConstantDoc {
        default: match c.flags {
            f if f & 1 == 0 => None,
            f if f & 2 != 0 => Some(Scalar::Float(f64::from_bits(bits))),
            _ => Some(Scalar::Int(bits as i64)),
        },
        id: c.id,
        name: bind.string(c.name).to_string(),
    }
}

/// Every further target's bind view, by target name.
fn target_bindings_doc(
    bind: &BindView<'_>,
) -> std::collections::BTreeMap<String, Vec<TargetBindingDoc>> {
    bind.targets()
        .map(|target| {
            let view = bind.target(target);
            let list = view
                .bindings()
                .iter()
                .map(|b| TargetBindingDoc {
                    code_name: view.code_name(b).map(str::to_string),
                    count: match b.count {
                        0 => Count::Word("unbounded".into()),
                        n => Count::Number(n),
                    },
                    flags: target_flag_names(b.flags).map(str::to_string).collect(),
                    format: image_format_name(b.format).map(str::to_string),
                    index: opt(b.index),
                    kind: kind_name(b.binding_kind()).to_string(),
                    member_layout: member_layout_name(view.buffer_layout(b)).map(str::to_string),
                    target_layout: target_layout_doc(bind, &view, b),
                    argument_buffer: view
                        .argument_buffer(b)
                        .map(|ab| argument_buffer_doc(&view, ab)),
                    min_binding_size: b.min_binding_size,
                    path: view.path(b).to_string(),
                    place: (b.binding_kind() != TargetBindingKind::PushConstants)
                        .then(|| place_name(target, b.space, b.index, b.register_class)),
                    register_class: b.register_char().map(String::from),
                    sample_type: sample_type_name(b.sample_type).map(str::to_string),
                    space: opt(b.space),
                    view_dimension: view_dimension_name(b.view_dimension).map(str::to_string),
                    vulkan: view.vulkan_binding(b).map(|v| [v.set, v.binding]),
                })
                .collect();
            (target.name().to_string(), list)
        })
        .collect()
}

/// A target binding's own member layout (HLSL, Metal), if the package holds one.
fn target_layout_doc(
    bind: &BindView<'_>,
    view: &slangpack_reader::TargetBindView<'_>,
    b: &slangpack_format::targets::TargetBinding,
) -> Option<TargetLayoutDoc> {
    let own = view.buffer_layout(b).target_buffer()?;
    let vulkan = bind.buffer_layout(own.buffer_layout)?;
    let members = bind
        .members(vulkan)
        .iter()
        .zip(view.target_members(own))
        .map(|(m, t)| TargetMemberDoc {
            path: bind.string(m.path).to_string(),
            offset: t.offset,
            size: t.size,
            array_stride: t.array_stride,
            matrix_stride: t.matrix_stride,
        })
        .collect();
    Some(TargetLayoutDoc {
        size: own.size,
        alignment: own.alignment,
        stride: own.stride,
        members,
    })
}

/// A Metal argument buffer's struct as the JSON document gives it.
fn argument_buffer_doc(
    view: &slangpack_reader::TargetBindView<'_>,
    ab: slangpack_reader::ArgumentBufferView<'_>,
) -> ArgumentBufferDoc {
    use slangpack_format::targets::{ARGUMENT_ELEMENT_RELATIVE, ARGUMENT_ID_EXPLICIT};
    ArgumentBufferDoc {
        size: ab.size(),
        alignment: ab.alignment(),
        members: ab
            .members()
            .iter()
            .map(|m| ArgumentMemberDoc {
                path: ab.path(m).to_string(),
                kind: m.member_kind().name().to_string(),
                offset: m.offset,
                size: m.size,
                alignment: m.alignment,
                count: m.count,
                stride: m.stride,
                id: opt(m.id),
                explicit_id: m.flags & ARGUMENT_ID_EXPLICIT != 0,
                element_relative: m.flags & ARGUMENT_ELEMENT_RELATIVE != 0,
                binding: ab.binding(m).map(|b| view.path(b).to_string()),
            })
            .collect(),
    }
}

/// The name `dump` gives a target buffer's member layout: `vulkan`, `target`, `none`, or
/// `None` when the binding is not a buffer.
fn member_layout_name(layout: TargetBufferLayout<'_>) -> Option<&'static str> {
    match layout {
        TargetBufferLayout::Vulkan(_) => Some("vulkan"),
        TargetBufferLayout::Target(_) => Some("target"),
        TargetBufferLayout::NotProvided => Some("none"),
        _ => None,
    }
}

/// A vertex input's `VkFormat`: its name (`r32g32b32_sfloat`), the number of one this
/// version does not name, `None` for `VK_FORMAT_UNDEFINED`.
fn vertex_format(format: u32) -> Option<VertexFormat> {
    match slangpack_format::vk::Format::from_raw(format) {
        slangpack_format::vk::Format::Undefined => None,
        slangpack_format::vk::Format::Unknown(other) => Some(VertexFormat::Raw(other)),
        named => Some(VertexFormat::Name(named.name().to_string())),
    }
}

//! What `slangpack dump` prints: a readable summary of a package, or its documented JSON
//! document (schema in README.md), read back with the runtime reader.

use serde_json::{json, Value};
use slangpack_format::bind::{
    buffer_kind_name, image_format_name, BufferLayout, DescriptorKind, BINDING_DESCRIPTOR_HEAP,
    BINDING_IMPLICIT_BLOCK_BUFFER, BINDING_IMPLICIT_GLOBAL_BUFFER, BINDING_UNUSED, COUNT_UNBOUNDED,
    COUNT_ZERO, MEMBER_DEFAULT_IS_FLOAT, MEMBER_ELEMENT_RELATIVE, MEMBER_HAS_DEFAULT,
};
use slangpack_format::targets::{kind_name, place_name};
use slangpack_format::TargetBindingKind;
use slangpack_format::ABSENT;
use slangpack_reader::{BindView, Entry, Package};
use std::fmt::Write as _;
use std::path::Path;

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
        names => format!(" used by {}", names.join(", ")),
    }
}

/// The names of the stages in a `VkShaderStageFlags` mask.
fn stage_names(flags: u32) -> Vec<&'static str> {
    slangpack_format::bind::stage_flag_names(flags).collect()
}

fn opt(v: u32) -> Value {
    if v == ABSENT {
        Value::Null
    } else {
        json!(v)
    }
}

/// The documented JSON schema of `slangpack dump --json` (see README.md).
pub fn package_json(package: &Package) -> Value {
    let (major, minor) = package.version();
    json!({
        "format_version": [major, minor],
        // Entries that fail to load are left out; `slangpack dump` verifies the package first.
        "entries": package.entries().flatten().map(|e| entry_json(&e)).collect::<Vec<_>>(),
    })
}

fn members_json(bind: &BindView<'_>, layout: &BufferLayout) -> Vec<Value> {
    let all = bind.members(layout);
    all.iter()
        .map(|m| {
            let mut v = json!({
                "path": bind.string(m.path),
                "offset": m.offset,
                "size": m.size,
                "stride": m.stride,
                "alignment": m.alignment,
                "parent": if m.parent == ABSENT { Value::Null } else { json!(m.parent - layout.first_member) },
                "element_relative": m.flags & MEMBER_ELEMENT_RELATIVE != 0,
            });
            if m.rows > 0 {
                v["rows"] = json!(m.rows);
                v["columns"] = json!(m.columns);
            }
            if m.matrix_layout != 0 {
                v["matrix_layout"] = json!(if m.matrix_layout == 1 { "row_major" } else { "column_major" });
                v["matrix_stride"] = json!(m.matrix_stride);
            }
            if m.array_count != 0 {
                v["array_count"] = if m.array_count == ABSENT { json!("unbounded") } else { json!(m.array_count) };
                v["array_stride"] = json!(m.array_stride);
            }
            if m.flags & MEMBER_HAS_DEFAULT != 0 {
                let bits = u64::from(m.default_lo) | (u64::from(m.default_hi) << 32);
                v["default"] = if m.flags & MEMBER_DEFAULT_IS_FLOAT != 0 {
                    json!(f64::from_bits(bits))
                } else {
                    json!(bits as i64)
                };
            }
            let attributes = bind.attributes(m);
            if !attributes.is_empty() {
                v["attributes"] = attributes
                    .iter()
                    .map(|a| json!({"name": bind.string(a.name), "arguments": bind.string(a.arguments)}))
                    .collect();
            }
            v
        })
        .collect()
}

fn entry_json(entry: &Entry<'_>) -> Value {
    let reflection = entry.reflection();
    let bind = reflection.bind();
    let entry_points: Vec<Value> = entry
        .entry_points()
        .map(|ep| {
            json!({
                "name": ep.name(),
                "stage": ep.stage().name(),
                "spirv_entry": ep.spirv_entry_name(),
                "thread_group_size": ep.thread_group_size(),
                "wave_size": ep.wave_size(),
                "spirv_words": ep.spirv().len(),
            })
        })
        .collect();
    let bindings: Vec<Value> = bind
        .bindings()
        .iter()
        .map(|b| {
            json!({
                "set": b.set,
                "binding": b.binding,
                "kind": b.kind().name(),
                "count": match b.count_kind {
                    COUNT_UNBOUNDED => json!("unbounded"),
                    COUNT_ZERO => json!(0),
                    _ => json!(b.count),
                },
                "name": bind.string(b.name),
                "path": bind.string(b.path),
                "spirv_name": bind.string(b.spirv_name),
                "image_format": image_format_name(b.image_format),
                "stages": stage_names(b.stage_flags),
                "entry_points": entry_point_names(entry, b.entry_point_mask),
                "used": b.flags & BINDING_UNUSED == 0,
                "implicit": if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
                    json!("global_uniform_buffer")
                } else if b.flags & BINDING_IMPLICIT_BLOCK_BUFFER != 0 {
                    json!("parameter_block_buffer")
                } else if b.flags & BINDING_DESCRIPTOR_HEAP != 0 {
                    json!("descriptor_heap")
                } else {
                    Value::Null
                },
                "input_attachment_index": b.input_attachment(),
                "sampler_path": (b.sampler_path != ABSENT).then(|| bind.string(b.sampler_path)),
                "buffer": opt(b.buffer_layout),
            })
        })
        .collect();
    let push_constants: Vec<Value> = bind
        .push_constants()
        .iter()
        .map(|p| {
            let members = bind
                .buffer_layout(p.buffer_layout)
                .map(|l| members_json(&bind, l))
                .unwrap_or_default();
            json!({
                "name": bind.string(p.name),
                "offset": p.offset,
                "size": p.size,
                "stages": stage_names(p.stage_flags),
                "entry_points": entry_point_names(entry, p.entry_point_mask),
                "members": members,
            })
        })
        .collect();
    let shader_records: Vec<Value> = bind
        .shader_record_blocks()
        .iter()
        .map(|r| {
            json!({
                "name": bind.string(r.name),
                "size": r.size,
                "stages": stage_names(r.stage_flags),
                "buffer": opt(r.buffer_layout),
            })
        })
        .collect();
    let buffers: Vec<Value> = bind
        .buffer_layouts()
        .iter()
        .map(|l| {
            json!({
                "set": opt(l.set),
                "binding": opt(l.binding),
                "path": bind.string(l.name),
                "kind": buffer_kind_name(l.kind),
                "size": l.size,
                "alignment": l.alignment,
                "stride": l.stride,
                "members": members_json(&bind, l),
            })
        })
        .collect();
    let vertex_inputs: Vec<Value> = bind
        .all_vertex_inputs()
        .iter()
        .map(|v| {
            let ep = entry.entry_points().nth(v.entry_point as usize);
            json!({
                "entry_point": ep.map(|e| e.name()),
                "location": v.location,
                "location_count": v.location_count,
                "format": vk_format_name(v.format),
                "semantic": bind.string(v.semantic_name),
                "semantic_index": v.semantic_index,
                "name": bind.string(v.name),
                "used": v.flags & slangpack_format::bind::VERTEX_INPUT_USED != 0,
            })
        })
        .collect();
    let specialization_constants: Vec<Value> = bind
        .specialization_constants()
        .iter()
        .map(|c| {
            let bits = u64::from(c.default_lo) | (u64::from(c.default_hi) << 32);
            json!({
                "id": c.id,
                "name": bind.string(c.name),
                "default": match c.flags {
                    f if f & 1 == 0 => Value::Null,
                    f if f & 2 != 0 => json!(f64::from_bits(bits)),
                    _ => json!(bits as i64),
                },
            })
        })
        .collect();
    json!({
        "key": entry.key(),
        "options_hash": format!("{:016x}", entry.options_hash()),
        "dependencies": entry.dependencies().map(|d| json!({
            "path": d.path(),
            "hash": format!("{:016x}", d.content_hash()),
        })).collect::<Vec<_>>(),
        "entry_points": entry_points,
        "set_slot_count": bind.set_slot_count(),
        "bindings": bindings,
        "push_constants": push_constants,
        "shader_records": shader_records,
        "buffers": buffers,
        "vertex_inputs": vertex_inputs,
        "specialization_constants": specialization_constants,
    })
}

/// A readable name of the `VkFormat`s vertex inputs use (`r32g32b32_sfloat`), else the number.
fn vk_format_name(format: u32) -> Value {
    match slangpack_format::vk::Format::from_raw(format) {
        slangpack_format::vk::Format::Undefined => Value::Null,
        slangpack_format::vk::Format::Unknown(other) => json!(other),
        named => json!(named.name()),
    }
}

/// The readable summary `slangpack dump` prints: every entry with its entry points, bindings,
/// push-constant ranges, buffer layouts and vertex inputs.
pub fn summary(path: &Path, package: &Package) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} entries, {} SPIR-V modules, {} reflection blobs, {} bytes",
        path.display(),
        package.len(),
        package.spirv_count(),
        package.reflection_count(),
        package.as_bytes().len()
    );
    for entry in package.entries().flatten() {
        let _ = writeln!(out, "\nentry {}", entry.key());
        for ep in entry.entry_points() {
            let [x, y, z] = ep.thread_group_size();
            let _ = write!(
                out,
                "  {:<9} {:<18} SPIR-V entry {:?}, {} words",
                ep.stage().name(),
                ep.name(),
                ep.spirv_entry_name(),
                ep.spirv().len()
            );
            if ep.stage() == slangpack_format::Stage::Compute {
                let _ = write!(out, ", threads {x}x{y}x{z}");
            }
            let _ = writeln!(out);
            for code in ep.targets().skip(1) {
                let _ = writeln!(
                    out,
                    "  {:<9} {:<18} {} entry {:?}, {} bytes",
                    "",
                    "",
                    code.target().name(),
                    code.entry_name(),
                    code.bytes().len()
                );
            }
        }
        let bind = entry.reflection().bind();
        if bind.set_slot_count() > 0 {
            let _ = writeln!(out, "  sets: {}", bind.set_slot_count());
        }
        for b in bind.bindings() {
            let count = match b.count_kind {
                COUNT_UNBOUNDED => "[]".to_string(),
                COUNT_ZERO => "[0]".to_string(),
                _ if b.count != 1 => format!("[{}]", b.count),
                _ => String::new(),
            };
            let path = bind.string(b.path);
            let label = if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
                "(global uniforms)".to_string()
            } else if b.flags & BINDING_IMPLICIT_BLOCK_BUFFER != 0 {
                format!("{path} (block uniforms)")
            } else {
                path.to_string()
            };
            let mut format = image_format_name(b.image_format)
                .map(|f| format!(" {f}"))
                .unwrap_or_default();
            if let Some(index) = b.input_attachment() {
                let _ = write!(format, " input_attachment_index {index}");
            }
            if b.sampler_path != ABSENT {
                let _ = write!(format, " + sampler {}", bind.string(b.sampler_path));
            }
            let _ = writeln!(
                out,
                "    set {} binding {:<2} {:<22} {label}{count}{format}  [{}]{}",
                b.set,
                b.binding,
                DescriptorKind::from_raw(b.descriptor_type).name(),
                stage_names(b.stage_flags).join(","),
                used_by(&entry, b.entry_point_mask)
            );
        }
        for p in bind.push_constants() {
            let _ = writeln!(
                out,
                "    push constants {} ({} bytes at {})  [{}]{}",
                bind.string(p.name),
                p.size,
                p.offset,
                stage_names(p.stage_flags).join(","),
                used_by(&entry, p.entry_point_mask)
            );
        }
        for r in bind.shader_record_blocks() {
            let _ = writeln!(
                out,
                "    shader record {} ({} bytes)  [{}]",
                bind.string(r.name),
                r.size,
                stage_names(r.stage_flags).join(",")
            );
        }
        for target in bind.targets() {
            let view = bind.target(target);
            let _ = writeln!(out, "  {} bindings:", target.name());
            for b in view.bindings() {
                let place = match b.binding_kind() {
                    TargetBindingKind::PushConstants => "push constants".to_string(),
                    _ => place_name(target, b.space, b.index, b.register_class),
                };
                let path = view.path(b);
                let code = view.code_name(b).map_or_else(
                    || " (not in the code)".to_string(),
                    |n| format!(" (code {n})"),
                );
                let _ = writeln!(
                    out,
                    "    {place:<36} {:<16} {}{code}",
                    kind_name(b.binding_kind()),
                    if path.is_empty() {
                        "(global uniforms)"
                    } else {
                        path
                    }
                );
            }
        }
        for l in bind.buffer_layouts() {
            let name = bind.string(l.name);
            let _ = writeln!(
                out,
                "  buffer {} ({}, {} bytes)",
                if name.is_empty() {
                    "(global uniforms)"
                } else {
                    name
                },
                buffer_kind_name(l.kind),
                l.size
            );
            for m in bind.members(l) {
                let _ = writeln!(
                    out,
                    "    {:>5} {:>4}  {}",
                    m.offset,
                    m.size,
                    bind.string(m.path)
                );
            }
        }
        for v in bind.all_vertex_inputs() {
            let _ = writeln!(
                out,
                "  vertex input location {} {} {}{} ({})",
                v.location,
                bind.string(v.name),
                bind.string(v.semantic_name),
                v.semantic_index,
                vk_format_name(v.format).as_str().unwrap_or("?")
            );
        }
        for c in bind.specialization_constants() {
            let _ = writeln!(
                out,
                "  specialization constant {} = id {}",
                bind.string(c.name),
                c.id
            );
        }
        for dep in entry.dependencies() {
            let _ = writeln!(
                out,
                "  depends on {} (xxh3 {:016x})",
                dep.path(),
                dep.content_hash()
            );
        }
    }
    out
}

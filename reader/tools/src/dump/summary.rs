//! The readable summary `slangpack dump` prints.

use super::*;
use slangpack_reader::{ArgumentBufferView, TargetBindView};

/// The readable summary `slangpack dump` prints: every entry with its entry points, bindings,
/// push-constant ranges, buffer layouts and vertex inputs. [`try_summary`], or when that
/// fails, the summary's first part with the error as its last line.
pub fn summary(path: &Path, package: &Package) -> String {
    match summary_within(path, package, None) {
        (text, None) => text,
        (mut text, Some(e)) => {
            let _ = writeln!(text, "error: {e}");
            text
        }
    }
}

/// The readable summary of [`summary`]. An entry whose reflection blob and entry-point names
/// are those of an earlier entry shows its entry points and dependencies and says whose
/// bindings and layouts it shares, instead of listing them again: the text grows with the
/// package's own records, not with entries × shared blobs.
///
/// # Errors
/// [`ToolError::LimitExceeded`](crate::ToolError::LimitExceeded) when the text would pass the
/// output budget ([`crate::budget`]).
pub fn try_summary(path: &Path, package: &Package) -> Result<String, crate::ToolError> {
    try_summary_of(path, package, None)
}

/// [`try_summary`] of the entry with key `only` alone (every entry for `None`).
///
/// # Errors
/// As [`try_summary`].
pub fn try_summary_of(
    path: &Path,
    package: &Package,
    only: Option<&str>,
) -> Result<String, crate::ToolError> {
    match summary_within(path, package, only) {
        (text, None) => Ok(text),
        (_, Some(e)) => Err(e),
    }
}

/// The summary being written, and how much of it the output budget has been charged for.
struct Summary {
    out: String,
    budget: crate::budget::Budget,
    charged: usize,
}

impl Summary {
    /// Charges what was written since the last call; an error once over the budget, or when
    /// `ahead` more bytes would not fit.
    fn over(&mut self, ahead: usize) -> Result<(), crate::ToolError> {
        let new = self.out.len() - self.charged;
        self.charged = self.out.len();
        self.budget
            .charge(new)
            .and_then(|()| self.budget.fits(ahead))
    }
}

/// The summary made so far, and the budget's error if it stopped early.
fn summary_within(
    path: &Path,
    package: &Package,
    only: Option<&str>,
) -> (String, Option<crate::ToolError>) {
    let mut summary = Summary {
        out: String::new(),
        budget: crate::budget::Budget::new("the summary", &[package]),
        charged: 0,
    };
    let written = write_summary(&mut summary, path, package, only);
    (summary.out, written.err())
}

/// Writes the package's line, then each selected entry: its entry points, and its bind view
/// in full or as the earlier entry whose reflection blob and entry-point names it shares.
fn write_summary(
    s: &mut Summary,
    path: &Path,
    package: &Package,
    only: Option<&str>,
) -> Result<(), crate::ToolError> {
    let _ = writeln!(
        s.out,
        "{}: {} entries, {} SPIR-V modules, {} reflection blobs, {} bytes",
        shown(&path.display().to_string()),
        package.len(),
        package.spirv_count(),
        package.reflection_count(),
        package.as_bytes().len()
    );
    // (reflection blob, entry-point names) of each entry whose bind view was listed; a blob
    // named with its page's first entry in a paged package (3.0), whose pages number their own.
    let mut listed: std::collections::HashMap<((usize, u32), Vec<&str>), &str> =
        std::collections::HashMap::new();
    for entry in selected(package, only) {
        let _ = writeln!(s.out, "\nentry {}", shown(entry.key()));
        entry_points(&mut s.out, &entry);
        s.over(0)?;
        let names: Vec<&str> = entry.entry_points().map(|ep| ep.name()).collect();
        let reflection = entry.record().reflection;
        if reflection != ABSENT {
            let page = entry.package().first_entry();
            match listed.entry(((page, reflection), names)) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    let _ = writeln!(
                        s.out,
                        "  bindings and layouts as entry {} (reflection blob {reflection})",
                        shown(first.get())
                    );
                    dependencies(&mut s.out, &entry);
                    continue;
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(entry.key());
                }
            }
        }
        // Listed in full: its estimate must fit first (one line may show long shared names).
        s.over(crate::budget::entry_weight(&entry))?;
        bind_view(s, &entry)?;
        dependencies(&mut s.out, &entry);
        s.over(0)?;
    }
    Ok(())
}

/// A line per entry point (stage, name, SPIR-V entry and size, a compute shader's
/// thread-group size), and one per further target's code.
fn entry_points(out: &mut String, entry: &Entry<'_>) {
    for ep in entry.entry_points() {
        let [x, y, z] = ep.thread_group_size();
        let _ = write!(
            out,
            "  {:<9} {:<18} SPIR-V entry \"{}\", {} words",
            ep.stage().name(),
            shown(ep.name()),
            shown(ep.spirv_entry_name()),
            ep.spirv().len()
        );
        if ep.stage() == slangpack_format::Stage::Compute {
            let _ = write!(out, ", threads {x}x{y}x{z}");
        }
        let _ = writeln!(out);
        for code in ep.targets().skip(1) {
            let _ = writeln!(
                out,
                "  {:<9} {:<18} {} entry \"{}\", {} bytes",
                "",
                "",
                code.target().name(),
                shown(code.entry_name()),
                code.bytes().len()
            );
        }
    }
}

/// A line per dependency of `entry`.
fn dependencies(out: &mut String, entry: &Entry<'_>) {
    for dep in entry.dependencies() {
        let _ = writeln!(
            out,
            "  depends on {} (xxh3 {:016x})",
            shown(dep.path()),
            dep.content_hash()
        );
    }
}

/// The entry's bind view: sets, bindings, push constants and shader records, each further
/// target's bindings, buffer layouts, and the pipeline facts.
fn bind_view(s: &mut Summary, entry: &Entry<'_>) -> Result<(), crate::ToolError> {
    let bind = entry.bind();
    if bind.set_slot_count() > 0 {
        let _ = writeln!(s.out, "  sets: {}", bind.set_slot_count());
    }
    for b in bind.bindings() {
        binding(&mut s.out, entry, &bind, b);
        // Per line: records may share long names, so one entry alone can be large.
        s.over(0)?;
    }
    for p in bind.push_constants() {
        let _ = writeln!(
            s.out,
            "    push constants {} ({} bytes at {})  [{}]{}",
            shown(bind.string(p.name)),
            p.size,
            p.offset,
            stage_names(p.stage_flags).join(","),
            used_by(entry, p.entry_point_mask)
        );
    }
    for r in bind.shader_record_blocks() {
        let _ = writeln!(
            s.out,
            "    shader record {} ({} bytes)  [{}]",
            shown(bind.string(r.name)),
            r.size,
            stage_names(r.stage_flags).join(",")
        );
    }
    for target in bind.targets() {
        target_bindings(&mut s.out, &bind, target, bind.target(target));
    }
    for l in bind.buffer_layouts() {
        buffer_layout(s, &bind, l)?;
    }
    pipeline_facts(&mut s.out, entry, &bind);
    Ok(())
}

/// The line of one descriptor binding: set, binding, descriptor type, path, count, image
/// format, input attachment, combined sampler, stages and entry points.
fn binding(
    out: &mut String,
    entry: &Entry<'_>,
    bind: &BindView<'_>,
    b: &slangpack_format::bind::DescriptorBinding,
) {
    let count = match b.count_kind {
        COUNT_UNBOUNDED => "[]".to_string(),
        COUNT_ZERO => "[0]".to_string(),
        _ if b.count != 1 => format!("[{}]", b.count),
        _ => String::new(),
    };
    let path = shown(bind.string(b.path));
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
        let _ = write!(format, " + sampler {}", shown(bind.string(b.sampler_path)));
    }
    let _ = writeln!(
        out,
        "    set {} binding {:<2} {:<22} {label}{count}{format}  [{}]{}",
        b.set,
        b.binding,
        DescriptorKind::from_raw(b.descriptor_type).name(),
        stage_names(b.stage_flags).join(","),
        used_by(entry, b.entry_point_mask)
    );
}

/// One further target's bindings: each binding's place, kind, path and name in the code,
/// then its argument buffer's members or its buffer's members as the target lays them out.
fn target_bindings(
    out: &mut String,
    bind: &BindView<'_>,
    target: slangpack_format::Target,
    view: TargetBindView<'_>,
) {
    let _ = writeln!(out, "  {} bindings:", target.name());
    for b in view.bindings() {
        let place = match b.binding_kind() {
            TargetBindingKind::PushConstants => "push constants".to_string(),
            _ => crate::text::place(target, b),
        };
        let path = shown(view.path(b));
        let code = view.code_name(b).map_or_else(
            || " (not in the code)".to_string(),
            |n| format!(" (code {})", shown(n)),
        );
        let layout = view.buffer_layout(b);
        let argument_buffer = view.argument_buffer(b);
        let members = target_layout_note(target, b, &layout, argument_buffer.as_ref());
        let _ = writeln!(
            out,
            "    {place:<36} {:<16} {}{code}{members}",
            kind_name(b.binding_kind()),
            if path.is_empty() {
                "(global uniforms)"
            } else {
                &path
            }
        );
        for (ab, m) in argument_buffer
            .iter()
            .flat_map(|ab| ab.members().iter().map(move |m| (ab, m)))
        {
            let array = match m.count {
                0 => String::new(),
                n => format!("[{n}] (stride {})", m.stride),
            };
            let id = match m.id {
                slangpack_format::ABSENT => String::new(),
                n => format!("  [[id({n})]]"),
            };
            let _ = writeln!(
                out,
                "      {:>5} {:>4}  {} {}{array}{id}",
                m.offset,
                m.size,
                shown(ab.path(m)),
                m.member_kind().name()
            );
        }
        if let Some(own) = layout.target_buffer() {
            let vulkan = bind.buffer_layout(own.buffer_layout);
            let vulkan_members = vulkan.map_or(&[][..], |l| bind.members(l));
            for (m, t) in vulkan_members.iter().zip(view.target_members(own)) {
                let stride = match (t.array_stride, t.matrix_stride) {
                    (0, 0) => String::new(),
                    (0, s) => format!("  matrix stride {s}"),
                    (s, _) => format!("  array stride {s}"),
                };
                let _ = writeln!(
                    out,
                    "      {:>5} {:>4}  {}{stride}",
                    t.offset,
                    t.size,
                    shown(bind.string(m.path))
                );
            }
        }
    }
}

/// What a target binding's line says of its members: an argument buffer's struct, the Vulkan
/// buffer's members, the target's own layout, or none in the package.
fn target_layout_note(
    target: slangpack_format::Target,
    b: &slangpack_format::targets::TargetBinding,
    layout: &TargetBufferLayout<'_>,
    argument_buffer: Option<&ArgumentBufferView<'_>>,
) -> String {
    match layout {
        _ if argument_buffer.is_some() => format!(
            ", argument buffer struct of {} bytes:",
            argument_buffer.map_or(0, |ab| ab.size())
        ),
        TargetBufferLayout::Vulkan(_) => ", members as the Vulkan buffer".to_string(),
        TargetBufferLayout::Target(own) => {
            // A structured buffer's elements: their distance too.
            let apart = match b.binding_kind() {
                TargetBindingKind::StorageBuffer => {
                    format!(" (elements {} apart)", own.stride)
                }
                _ => String::new(),
            };
            let colon = if own.member_count == 0 { "" } else { ":" };
            format!(
                ", {} bytes{apart} as {} lays it out{colon}",
                own.size,
                target.name()
            )
        }
        TargetBufferLayout::NotProvided => {
            format!(", no {} member layout in the package", target.name())
        }
        _ => String::new(),
    }
}

/// A buffer layout's line (name, kind, size, stride, a heap's place) and a line per member.
fn buffer_layout(
    s: &mut Summary,
    bind: &BindView<'_>,
    l: &BufferLayout,
) -> Result<(), crate::ToolError> {
    let name = shown(bind.string(l.name));
    let place = match l.buffer_kind() {
        slangpack_format::bind::BufferKind::Pointee if l.stride != l.size => {
            format!(", stride {}", l.stride)
        }
        slangpack_format::bind::BufferKind::Heap if l.set != ABSENT => {
            let stride = if l.stride == l.size {
                String::new()
            } else {
                format!(", element stride {}", l.stride)
            };
            format!("{stride}, heap at set {} binding {}", l.set, l.binding)
        }
        _ => String::new(),
    };
    let _ = writeln!(
        s.out,
        "  buffer {} ({}, {} bytes{place})",
        if name.is_empty() {
            "(global uniforms)"
        } else {
            &name
        },
        buffer_kind_name(l.kind),
        l.size
    );
    for (i, m) in (l.first_member..).zip(bind.members(l)) {
        let pointee = bind
            .pointee(i)
            .map(|p| format!(" -> {}", shown(bind.string(p.name))))
            .unwrap_or_default();
        // A conforming type's data in a dispatched existential's payload: its id.
        let conformance = bind
            .conformance(i)
            .map(|c| {
                let interface = shown(bind.string(c.interface));
                format!("  ({interface} conformance id {})", c.id)
            })
            .unwrap_or_default();
        let _ = writeln!(
            s.out,
            "    {:>5} {:>4}  {}  {}{pointee}{conformance}",
            m.offset,
            m.size,
            shown(bind.string(m.path)),
            crate::diff::member_type(m)
        );
        s.over(0)?;
    }
    Ok(())
}

/// Vertex inputs, fragment outputs, execution modes and specialization constants.
fn pipeline_facts(out: &mut String, entry: &Entry<'_>, bind: &BindView<'_>) {
    for v in bind.all_vertex_inputs() {
        let _ = writeln!(
            out,
            "  vertex input location {} {} {}{} ({})",
            v.location,
            shown(bind.string(v.name)),
            shown(bind.string(v.semantic_name)),
            v.semantic_index,
            match vertex_format(v.format) {
                Some(VertexFormat::Name(name)) => name,
                _ => "?".to_string(),
            }
        );
    }
    for o in bind.all_fragment_outputs() {
        let _ = writeln!(
            out,
            "  fragment output {} location {}{} {} ({}x{})",
            shown(entry_point_name(entry, o.entry_point)),
            o.location,
            if o.index != 0 {
                format!(" index {}", o.index)
            } else {
                String::new()
            },
            shown(bind.string(o.name)),
            crate::diff::scalar_name(o.scalar_type),
            o.component_count
        );
    }
    for m in bind.all_execution_modes() {
        let mut facts: Vec<String> = m.flag_names().map(str::to_string).collect();
        if let Some(p) = m.input_primitive() {
            facts.push(format!("input {}", p.name()));
        }
        if let Some(p) = m.output_primitive() {
            facts.push(p.name().to_string());
        }
        for (what, n) in [
            ("output vertices", m.output_vertices),
            ("output primitives", m.output_primitives),
            ("invocations", m.invocations),
        ] {
            if n != 0 {
                facts.push(format!("{what} {n}"));
            }
        }
        if let Some(p) = m.spacing() {
            facts.push(format!("spacing {}", p.name()));
        }
        if !facts.is_empty() {
            let _ = writeln!(
                out,
                "  execution modes {}: {}",
                shown(entry_point_name(entry, m.entry_point)),
                facts.join(", ")
            );
        }
    }
    for c in bind.specialization_constants() {
        let _ = writeln!(
            out,
            "  specialization constant {} = id {}",
            shown(bind.string(c.name)),
            c.id
        );
    }
}

/// The name of entry point `index` of `entry`, `?` when it has none.
pub(super) fn entry_point_name<'a>(entry: &Entry<'a>, index: u32) -> &'a str {
    entry
        .entry_points()
        .nth(index as usize)
        .map_or("?", |ep| ep.name())
}

/// The entries a dump shows: the one keyed `only`, loaded alone (its load checks all it
/// uses; nothing else of the package is read), or every entry that loads.
pub(super) fn selected<'p>(
    package: &'p Package,
    only: Option<&str>,
) -> Box<dyn Iterator<Item = Entry<'p>> + 'p> {
    match only {
        Some(key) => Box::new(package.load(key).ok().into_iter()),
        None => Box::new(package.entries().flatten()),
    }
}

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
    let module = parsed(text, entry_name)?;
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
                } => image_facts(*dim, *arrayed, class, &mut facts),
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
            kind: None,
            uniform_size,
            layout,
        });
    }
    Ok(out)
}

/// `text` parsed and validated by naga, with entry point `entry_name`.
fn parsed(text: &str, entry_name: &str) -> Result<naga::Module, String> {
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
    Ok(module)
}

/// What a texture's type states: its view dimension, kind (sampled, depth, storage), sample
/// type and flags.
fn image_facts(dim: ImageDimension, arrayed: bool, class: &ImageClass, facts: &mut Facts) {
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

/// A binding the bake moves in Slang's WGSL, where WGSL cannot take what Slang emits (the
/// rules, SPEC.md 6.8): the sampler half of a combined texture-sampler whose place another
/// binding takes, and a push-constant block, which WGSL lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Relocation {
    /// Every `sampler` (or `sampler_comparison`, or binding array of them) Slang declares at
    /// `@group(group) @binding(from)` moves to `@binding(to)` of the same group.
    Sampler { group: u32, from: u32, to: u32 },
    /// The push-constant block `path` (a `var<uniform>` Slang emits without a place) becomes
    /// the uniform buffer at `@group(group) @binding(to)`.
    PushConstants { path: String, group: u32, to: u32 },
}

/// The group a push-constant block's uniform buffer goes to (SPEC.md 6.8).
pub(crate) const PUSH_CONSTANT_GROUP: u32 = 0;

/// Finds what WGSL cannot take among `slots` (Slang's WGSL layout of one program), moves it
/// in `slots` and returns the moves for [`rewrite`]. `combined(path)` says whether `path` is
/// (the texture or the sampler of) a Vulkan combined image sampler.
///
/// New places are the group's first bindings after every binding the program has there, in
/// slot order: sampler halves first, then push-constant blocks in group 0. A texture keeps
/// the binding Slang gave it (its Vulkan binding, where that was explicit).
pub(crate) fn relocate(
    slots: &mut [super::walk::Slot],
    combined: impl Fn(&str) -> bool,
) -> Vec<Relocation> {
    use slangpack_format::ABSENT;
    let mut next_free = std::collections::BTreeMap::<u32, u32>::new();
    for s in slots.iter().filter(|s| s.space != ABSENT) {
        let next = next_free.entry(s.space).or_default();
        *next = (*next).max(s.index.saturating_add(1));
    }
    let mut moves = Vec::new();
    for i in 0..slots.len() {
        let s = &slots[i];
        if s.kind != TargetBindingKind::Sampler || s.space == ABSENT || !combined(&s.path) {
            continue;
        }
        let taken = slots
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.space == s.space && o.index == s.index);
        if !taken {
            continue;
        }
        let group = s.space;
        let next = next_free.entry(group).or_default();
        let to = *next;
        *next = next.saturating_add(1);
        moves.push(Relocation::Sampler {
            group,
            from: s.index,
            to,
        });
        slots[i].index = to;
    }
    for s in slots
        .iter_mut()
        .filter(|s| s.kind == TargetBindingKind::PushConstants)
    {
        let next = next_free.entry(PUSH_CONSTANT_GROUP).or_default();
        let to = *next;
        *next = next.saturating_add(1);
        s.kind = TargetBindingKind::UniformBuffer;
        s.space = PUSH_CONSTANT_GROUP;
        s.index = to;
        moves.push(Relocation::PushConstants {
            path: s.path.clone(),
            group: PUSH_CONSTANT_GROUP,
            to,
        });
    }
    moves
}

/// Applies `moves` to one entry point's WGSL as Slang emits it: a declaration is a line that
/// starts `@binding(B) @group(G) var` (or `var<uniform> NAME :` for a push-constant block,
/// which has no place). Only those attributes change; naga validates the result
/// ([`check`]), so a text this does not understand fails the bake, never ships.
///
/// # Errors
/// Two samplers of one entry point at one moved place, or a push-constant block the moves
/// cannot tell apart from another.
pub(crate) fn rewrite(text: &str, moves: &[Relocation]) -> Result<String, String> {
    if moves.is_empty() {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut moved = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some((binding, group, rest)) = declaration(line) {
            let ty = rest.split_once(':').map_or("", |(_, t)| t.trim_start());
            let is_sampler = ty.starts_with("sampler") || ty.starts_with("binding_array<sampler");
            let to = moves.iter().find_map(|m| match *m {
                Relocation::Sampler { group: g, from, to } if g == group && from == binding => {
                    Some(to)
                }
                _ => None,
            });
            if let (true, Some(to)) = (is_sampler, to) {
                if moved.contains(&(group, binding)) {
                    return Err(format!(
                        "two samplers at @group({group}) @binding({binding}) of one entry \
                         point share the place of a combined texture-sampler's sampler"
                    ));
                }
                moved.push((group, binding));
                out.push_str(&format!("@binding({to}) @group({group}) {rest}"));
                continue;
            }
        } else if let Some(rest) = line.strip_prefix("var<uniform> ") {
            let name = rest.split(':').next().unwrap_or("").trim();
            let pushes: Vec<(&str, u32, u32)> = moves
                .iter()
                .filter_map(|m| match m {
                    Relocation::PushConstants { path, group, to } => {
                        Some((path.as_str(), *group, *to))
                    }
                    _ => None,
                })
                .collect();
            let last = |path: &str| path.rsplit('.').next().unwrap_or(path).to_string();
            let found = match pushes.as_slice() {
                [only] => Some(*only),
                _ => pushes
                    .iter()
                    .find(|(path, _, _)| last(path) == super::strip_suffix(name))
                    .copied(),
            };
            let Some((_, group, to)) = found else {
                return Err(format!(
                    "the WGSL declares `{name}` as a uniform buffer without a place, which is \
                     no push-constant block the bind view knows"
                ));
            };
            out.push_str(&format!("@binding({to}) @group({group}) {line}"));
            continue;
        }
        out.push_str(line);
    }
    Ok(out)
}

/// `(binding, group, "var...")` of a line `@binding(B) @group(G) var...`.
fn declaration(line: &str) -> Option<(u32, u32, &str)> {
    let rest = line.strip_prefix("@binding(")?;
    let (binding, rest) = rest.split_once(')')?;
    let rest = rest.trim_start().strip_prefix("@group(")?;
    let (group, rest) = rest.split_once(')')?;
    let rest = rest.trim_start();
    rest.starts_with("var").then(|| {
        Some((
            binding.trim().parse().ok()?,
            group.trim().parse().ok()?,
            rest,
        ))
    })?
}

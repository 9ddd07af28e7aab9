//! The bake-time guard: every fact of the bind view that a driver also reads, compared with
//! the SPIR-V of every entry point — descriptor set, binding, type and count, input
//! attachment indices, the `Offset`, `ArrayStride` and `MatrixStride` of every member of every
//! uniform, storage, push-constant and shader-record block, push-constant presence per entry
//! point and vertex input locations. A disagreement fails the bake naming the entry point,
//! the variable and both values: a package never states what its SPIR-V contradicts.

use super::buffers::{BufferOut, MemberOut};
use super::usage::binding_for;
use super::vertex::VertexOut;
use super::walk::Walk;
use super::*;
use crate::spirv::{Block, Facts};

/// One entry point's SPIR-V facts.
pub(super) struct EntrySpirv<'p> {
    /// Slang's name of the entry point.
    pub(super) name: &'p str,
    /// Its `VkShaderStageFlagBits`.
    pub(super) stage: u32,
    /// What its SPIR-V declares.
    pub(super) facts: Facts,
}

/// How a SPIR-V block holds a buffer layout's members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Root {
    /// The block's top-level members are the buffer's.
    Block,
    /// The members of member `i` (an unnamed wrapper struct, or the runtime array of a
    /// structured buffer) are the buffer's.
    Member(usize),
}

/// A SPIR-V block matched with the buffer layout that describes it.
pub(super) struct Matched<'f> {
    /// The buffer layout (index into the walk's buffers).
    pub(super) buffer: usize,
    /// The SPIR-V variable's name.
    pub(super) variable: &'f str,
    pub(super) block: &'f Block,
    root: Root,
    /// SPIR-V member index -> buffer member index.
    pub(super) members: Vec<Option<usize>>,
    /// For the pointee of a buffer device address, the pointer's `ArrayStride`.
    stride: Option<u32>,
}

/// Where the buffer's members start in `block`: Slang emits a `ConstantBuffer<S>` nested in a
/// ParameterBlock as a block whose only, unnamed member is the `S`, a structured buffer as a
/// block whose only member is a runtime array of elements, and a constant buffer of a value
/// that is no struct (`ConstantBuffer<float4>`, whose bind-view layout has no members: the
/// buffer is the value) as a block whose only, unnamed member is that value.
fn root(buffer: &BufferOut, block: &Block) -> Root {
    let top: Vec<usize> = (0..block.members.len())
        .filter(|&i| block.members[i].parent.is_none())
        .collect();
    match top.as_slice() {
        [only] if buffer.kind == BUFFER_STRUCTURED_ELEMENT => Root::Member(*only),
        // A storage buffer in a descriptor heap: its runtime array holds the elements.
        [only] if buffer.kind == BUFFER_HEAP && !block.element_type_name.is_empty() => {
            Root::Member(*only)
        }
        [only]
            if buffer.members.is_empty()
                && block.members[*only].path.starts_with('#')
                && block.members[*only].offset == 0 =>
        {
            Root::Member(*only)
        }
        [only]
            if block.members[*only].path.starts_with('#')
                && block.members[*only].array_stride.is_none()
                && block.members.iter().any(|m| m.parent == Some(*only)) =>
        {
            Root::Member(*only)
        }
        _ => Root::Block,
    }
}

/// Maps each SPIR-V member to the buffer member of the same path (by name; by position among
/// its siblings where the SPIR-V has no name).
fn map_members(buffer: &BufferOut, block: &Block, root: Root) -> Vec<Option<usize>> {
    let mut map: Vec<Option<usize>> = vec![None; block.members.len()];
    let tuple = existential_tuple(buffer, block, root);
    for (i, m) in block.members.iter().enumerate() {
        if Root::Member(i) == root {
            continue;
        }
        if let Some(parts) = &tuple {
            if m.parent.is_none() {
                map[i] = parts.get(m.index as usize).copied().flatten();
                continue;
            }
        }
        let parent = match m.parent {
            None if root == Root::Block => None,
            None => continue, // a sibling of the wrapper: matched by nothing
            Some(p) if Root::Member(p) == root => None,
            Some(p) => match map[p] {
                Some(bp) => Some(bp),
                None => continue,
            },
        };
        let siblings = buffer
            .members
            .iter()
            .enumerate()
            .filter(|(_, b)| b.parent == parent);
        // The words of a payload holding a packed concrete value: the SPIR-V has only `uint`
        // words there, the bind view the concrete members over them (see `member_offsets`).
        if parent.is_some_and(|p| buffer.members[p].rec.flags & MEMBER_EXISTENTIAL_PAYLOAD != 0) {
            continue;
        }
        let name = m.path.rsplit('.').next().unwrap_or(&m.path);
        // Inside an existential header Slang names the parts of its own tuple (`value0`,
        // `field0`...): matched by position.
        map[i] = if name.starts_with('#') || parent.is_some_and(|p| existential(buffer, p)) {
            siblings.map(|(j, _)| j).nth(m.index as usize)
        } else {
            siblings
                .filter(|(_, b)| b.name == name)
                .map(|(j, _)| j)
                .next()
        };
    }
    map
}

/// A parameter block whose block is Slang's existential tuple itself (`value0` type id,
/// `value1` witness-table id, `value2` payload holding the packed concrete value): the
/// buffer members its top-level members are, by position — the header's `typeId` and
/// `witnessId` and the payload member (beside the header, or inside it for a block
/// dispatched among several types).
fn existential_tuple(buffer: &BufferOut, block: &Block, root: Root) -> Option<Vec<Option<usize>>> {
    if root != Root::Block
        || !block
            .members
            .iter()
            .any(|m| m.parent.is_none() && m.path == "value0")
    {
        return None;
    }
    let top = |flag: u32| {
        (buffer.members.iter()).position(|m| m.parent.is_none() && m.rec.flags & flag != 0)
    };
    let header = top(MEMBER_EXISTENTIAL)?;
    // The payload: the header's sibling (a specialized block) or its child (a block
    // dispatched among several types, `Walk::dispatched_value`).
    let payload = (buffer.members.iter()).position(|m| {
        m.rec.flags & MEMBER_EXISTENTIAL_PAYLOAD != 0
            && (m.parent.is_none() || m.parent == Some(header))
    })?;
    let parts: Vec<usize> = (0..buffer.members.len())
        .filter(|&j| buffer.members[j].parent == Some(header))
        .collect();
    Some(vec![
        parts.first().copied(),
        parts.get(1).copied(),
        Some(payload),
    ])
}

/// Whether buffer member `member` is, or lies inside, an existential header
/// ([`MEMBER_EXISTENTIAL`]).
fn existential(buffer: &BufferOut, member: usize) -> bool {
    let mut at = Some(member);
    // Parents come before their children: the walk up ends.
    while let Some(i) = at {
        let Some(m) = buffer.members.get(i) else {
            return false;
        };
        if m.rec.flags & MEMBER_EXISTENTIAL != 0 {
            return true;
        }
        at = m.parent.filter(|&p| p < i);
    }
    false
}

fn matched<'f>(buffer: usize, walk: &Walk<'_>, variable: &'f str, block: &'f Block) -> Matched<'f> {
    let b = &walk.buffers[buffer];
    let root = root(b, block);
    Matched {
        buffer,
        variable,
        block,
        root,
        members: map_members(b, block, root),
        stride: None,
    }
}

/// Which of `blocks` (each a name and the entry point whose `uniform` parameters it holds,
/// `None` for a global block) entry point `ep`'s SPIR-V variable `name` is: the one of that
/// name, else the entry point's own block, else the only global block.
fn pick<'n>(
    blocks: impl Iterator<Item = (&'n str, Option<usize>)>,
    ep: usize,
    name: &str,
) -> Option<usize> {
    let candidates: Vec<(usize, &str, Option<usize>)> = blocks
        .enumerate()
        .filter(|(_, (_, owner))| owner.is_none_or(|e| e == ep))
        .map(|(i, (n, owner))| (i, n, owner))
        .collect();
    let only = match candidates.as_slice() {
        [only] => Some(only),
        _ => None,
    };
    candidates
        .iter()
        .find(|c| c.1 == name)
        .or_else(|| candidates.iter().find(|c| c.2 == Some(ep)))
        .or(only)
        .map(|c| c.0)
}

/// The push-constant block of the walk that entry point `ep`'s SPIR-V variable `name` is.
pub(super) fn push_constant_for(walk: &Walk<'_>, ep: usize, name: &str) -> Option<usize> {
    let blocks = walk.push_constants.iter();
    pick(blocks.map(|p| (p.name.as_str(), p.entry_point)), ep, name)
}

/// The shader-record block of the walk that entry point `ep`'s SPIR-V variable `name` is.
pub(super) fn shader_record_for(walk: &Walk<'_>, ep: usize, name: &str) -> Option<usize> {
    let blocks = walk.shader_records.iter();
    pick(blocks.map(|r| (r.name.as_str(), r.entry_point)), ep, name)
}

/// Every block of entry point `ep`'s SPIR-V that a buffer layout of the walk describes.
pub(super) fn blocks<'f>(walk: &Walk<'_>, ep: usize, facts: &'f Facts) -> Vec<Matched<'f>> {
    let mut out = Vec::new();
    for var in &facts.descriptors {
        let Some(block) = &var.block else { continue };
        let buffer = binding_for(walk, ep, var).and_then(|b| walk.bindings[b].buffer);
        if let Some(buffer) = buffer {
            out.push(matched(buffer, walk, &var.name, block));
        }
    }
    for var in &facts.push_constants {
        if let Some(p) = push_constant_for(walk, ep, &var.name) {
            out.push(matched(
                walk.push_constants[p].buffer,
                walk,
                &var.name,
                &var.block,
            ));
        }
    }
    for var in &facts.shader_records {
        if let Some(r) = shader_record_for(walk, ep, &var.name) {
            out.push(matched(
                walk.shader_records[r].buffer,
                walk,
                &var.name,
                &var.block,
            ));
        }
    }
    for var in facts.descriptors.iter().filter(|v| v.name == heap::HEAP) {
        let Some(block) = &var.block else { continue };
        let storage = var.descriptor_type == Some(DescriptorKind::StorageBuffer);
        let buffer = if storage {
            heap::heap_storage_for(walk, var.set, var.binding, block)
        } else {
            heap::heap_buffer_for(walk, var.set, var.binding, &block.type_name)
        };
        if let Some(buffer) = buffer {
            out.push(matched(buffer, walk, &var.name, block));
        }
    }
    pointees(walk, facts, &mut out);
    out
}

/// Adds to `out` the pointee layout of every buffer device address its blocks hold, matched
/// with the SPIR-V's `PhysicalStorageBuffer` pointee type, and theirs in turn: each pair of
/// layout and pointer type once, so a type that points at itself ends the walk.
fn pointees<'f>(walk: &Walk<'_>, facts: &'f Facts, out: &mut Vec<Matched<'f>>) {
    let mut seen = std::collections::BTreeSet::new();
    let mut i = 0;
    while i < out.len() {
        let (buffer, block) = (out[i].buffer, out[i].block);
        let pairs: Vec<(usize, u32)> = (out[i].members.iter().zip(&block.members))
            .filter_map(|(ours, spirv)| Some(((*ours)?, spirv.pointer?)))
            .collect();
        for (ours, pointer) in pairs {
            let Some(target) = walk.buffers[buffer].members[ours].pointee else {
                continue;
            };
            let Some(pointee) = facts.pointees.get(&pointer) else {
                continue;
            };
            if seen.insert((target, pointer)) {
                let variable = pointee.block.type_name.as_str();
                out.push(Matched {
                    stride: pointee.stride,
                    ..matched(target, walk, variable, &pointee.block)
                });
            }
        }
        i += 1;
    }
}

/// `vk::offset`: Slang applies `[[vk::offset(N)]]` when it emits SPIR-V (an IR decoration),
/// but its reflection's type layouts ignore it, so the offsets Slang reports for such members
/// (and every member after them) are wrong. The SPIR-V's `Offset` decorations are what the
/// driver uses: take every member offset from them, and grow the buffer's size to cover the
/// moved members. A matrix's `MatrixStride` is taken over too: Slang's reflection gives no
/// stride for a matrix, and its size does not tell one under every packing rule (Direct3D's
/// leaves the last row unpadded). Array strides are not taken over: [`check`] compares them.
pub(super) fn take_spirv_offsets(walk: &mut Walk<'_>, entry_points: &[EntrySpirv<'_>]) {
    for (ep, entry) in entry_points.iter().enumerate() {
        let updates: Vec<(usize, usize, u32, Option<u32>)> = blocks(walk, ep, &entry.facts)
            .iter()
            .flat_map(|m| {
                m.members
                    .iter()
                    .enumerate()
                    .filter_map(|(i, b)| {
                        let spirv = &m.block.members[i];
                        b.map(|b| (m.buffer, b, spirv.offset, spirv.matrix_stride))
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        for (buffer, member, offset, matrix_stride) in updates {
            let b = &mut walk.buffers[buffer];
            let m = &mut b.members[member];
            if let Some(stride) = matrix_stride.filter(|_| m.rec.matrix_stride != 0) {
                m.rec.matrix_stride = stride;
            }
            if m.rec.offset == offset {
                continue;
            }
            let moved = offset.wrapping_sub(m.rec.offset);
            m.rec.offset = offset;
            if m.rec.flags & MEMBER_EXISTENTIAL_PAYLOAD != 0 {
                // The SPIR-V has only words in a payload: the types packed into it move with it.
                for j in descendants(&b.members, member) {
                    b.members[j].rec.offset = b.members[j].rec.offset.wrapping_add(moved);
                }
            }
            let m = &mut b.members[member];
            if m.rec.flags & MEMBER_ELEMENT_RELATIVE == 0 {
                let end = offset.saturating_add(m.rec.stride.max(m.rec.size));
                let align = b.alignment.max(1);
                let end = end.div_ceil(align).saturating_mul(align);
                if end > b.size {
                    if b.stride == b.size {
                        b.stride = end;
                    }
                    b.size = end;
                }
            }
        }
    }
    grow_to_spirv_extents(walk, entry_points);
    for push in &mut walk.push_constants {
        push.size = walk.buffers[push.buffer].size;
    }
    for record in &mut walk.shader_records {
        record.size = walk.buffers[record.buffer].size;
    }
}

/// The members below member `i` of `members` (parents come before their children).
fn descendants(members: &[MemberOut], i: usize) -> Vec<usize> {
    let mut inside = vec![false; members.len()];
    let mut out = Vec::new();
    for j in i + 1..members.len() {
        let under = members[j].parent.is_some_and(|p| p == i || inside[p]);
        inside[j] = under;
        if under {
            out.push(j);
        }
    }
    out
}

/// The code may read more of a block than Slang's reflection sizes: an interface-typed value
/// (an existential) has the payload its SPIR-V declares, however little of it the concrete
/// value fills (`uniform ITransformer t` specialized to a one-`float` type: reflection gives
/// 20 bytes, the SPIR-V's push-constant block 32, and the code reads all of it). Every block's
/// size, and the size of every existential and payload in it, is at least what the SPIR-V
/// declares: a push-constant range, a uniform buffer's size or a minimum binding size shorter
/// than the code reads is a lie the driver's validation catches. Structured buffers are left
/// alone: their element stride is checked, not taken.
fn grow_to_spirv_extents(walk: &mut Walk<'_>, entry_points: &[EntrySpirv<'_>]) {
    /// A buffer to grow: its index, the SPIR-V block's extent, and its existential members
    /// (index, extent) the SPIR-V declares larger than reflection.
    type Growth = (usize, u32, Vec<(usize, u32)>);
    for (ep, entry) in entry_points.iter().enumerate() {
        let grown: Vec<Growth> = blocks(walk, ep, &entry.facts)
            .iter()
            .map(|m| {
                let buffer = &walk.buffers[m.buffer];
                let opaque = (m.members.iter().zip(&m.block.members))
                    .filter_map(|(ours, spirv)| Some((ours.as_ref().copied()?, spirv.extent)))
                    .filter(|&(ours, extent)| {
                        let rec = &buffer.members[ours].rec;
                        rec.flags & (MEMBER_EXISTENTIAL | MEMBER_EXISTENTIAL_PAYLOAD) != 0
                            && extent > rec.size
                    })
                    .collect();
                (m.buffer, m.block.extent, opaque)
            })
            .collect();
        for (buffer, extent, opaque) in grown {
            let b = &mut walk.buffers[buffer];
            for (member, extent) in opaque {
                b.members[member].rec.size = extent;
            }
            if b.kind == BUFFER_STRUCTURED_ELEMENT || extent <= b.size {
                continue;
            }
            let align = b.alignment.max(1);
            let end = extent.div_ceil(align).saturating_mul(align);
            if b.stride == b.size {
                b.stride = end;
            }
            b.size = end;
        }
    }
}

/// A bake error naming the entry point, the variable and both values.
fn disagree(
    key: &str,
    ep: &str,
    what: String,
    ours: impl std::fmt::Display,
    spirv: impl std::fmt::Display,
) -> BakeError {
    BakeError::Slang(format!(
        "{key}: entry point `{ep}`: {what}: the bind view says {ours}, the SPIR-V says {spirv}; \
         the package would mis-bind"
    ))
}

fn member_offsets(key: &str, ep: &str, walk: &Walk<'_>, m: &Matched<'_>) -> Result<(), BakeError> {
    let buffer = &walk.buffers[m.buffer];
    if let Root::Member(root) = m.root {
        let spirv = &m.block.members[root];
        if let Some(stride) = spirv.array_stride {
            let element = matches!(buffer.kind, BUFFER_STRUCTURED_ELEMENT | BUFFER_HEAP);
            if element && buffer.stride != stride {
                return Err(disagree(
                    key,
                    ep,
                    format!("`{}` element stride", m.variable),
                    buffer.stride,
                    stride,
                ));
            }
        }
    }
    if buffer.kind == BUFFER_POINTEE {
        let what = format!("pointee `{}` stride", buffer.name);
        compare(key, ep, what, buffer.stride, m.stride)?;
    }
    for (i, spirv) in m.block.members.iter().enumerate() {
        if Root::Member(i) == m.root {
            continue;
        }
        let Some(ours) = m.members[i] else {
            let payload = spirv
                .parent
                .and_then(|p| m.members[p])
                .map(|p| &buffer.members[p]);
            if let Some(payload) = payload.filter(|p| p.rec.flags & MEMBER_EXISTENTIAL_PAYLOAD != 0)
            {
                // A payload word: it must lie inside the payload the bind view states.
                let end = payload.rec.offset.saturating_add(payload.rec.size);
                if !(payload.rec.offset..end).contains(&spirv.offset) {
                    return Err(disagree(
                        key,
                        ep,
                        format!("`{}` payload `{}` extent", m.variable, payload.path),
                        format!("{}..{end}", payload.rec.offset),
                        format!("a word at {}", spirv.offset),
                    ));
                }
                continue;
            }
            if m.root == Root::Block || spirv.parent.is_some() {
                return Err(BakeError::Slang(format!(
                    "{key}: entry point `{ep}`: `{}` member `{}` at offset {} of the SPIR-V is \
                     missing from the bind view's layout of `{}`; the package would be incomplete",
                    m.variable, spirv.path, spirv.offset, buffer.name
                )));
            }
            continue;
        };
        let ours = &buffer.members[ours];
        let what = |fact: &str| format!("`{}` member `{}` {fact}", m.variable, ours.path);
        compare(key, ep, what("offset"), ours.rec.offset, Some(spirv.offset))?;
        if ours.rec.array_count != 0 {
            compare(
                key,
                ep,
                what("array stride"),
                ours.rec.array_stride,
                spirv.array_stride,
            )?;
        }
        if ours.rec.matrix_stride != 0 {
            compare(
                key,
                ep,
                what("matrix stride"),
                ours.rec.matrix_stride,
                spirv.matrix_stride,
            )?;
        }
    }
    Ok(())
}

fn compare(
    key: &str,
    ep: &str,
    what: String,
    ours: u32,
    spirv: Option<u32>,
) -> Result<(), BakeError> {
    match spirv {
        Some(s) if s != ours => Err(disagree(key, ep, what, ours, s)),
        _ => Ok(()),
    }
}

/// Whether a binding of the bind view may hold what the SPIR-V variable's type implies.
fn compatible(ours: DescriptorKind, spirv: DescriptorKind) -> bool {
    use DescriptorKind as K;
    ours == spirv
        || (ours == K::CombinedImageSampler && matches!(spirv, K::SampledImage | K::Sampler))
}

/// Runs every comparison; see the module documentation.
///
/// # Errors
/// [`BakeError::Slang`] naming the entry point, the variable and both values.
pub(super) fn check(
    key: &str,
    walk: &Walk<'_>,
    vertex_inputs: &[VertexOut],
    entry_points: &[EntrySpirv<'_>],
) -> Result<(), BakeError> {
    for (ep, entry) in entry_points.iter().enumerate() {
        let name = entry.name;
        descriptors(key, walk, ep, entry)?;
        for m in blocks(walk, ep, &entry.facts) {
            member_offsets(key, name, walk, &m)?;
        }
        stage_blocks(key, walk, ep, entry)?;
        if entry.stage == slangpack_format::vk::ShaderStageFlags::VERTEX.to_raw() {
            vertex_locations(key, vertex_inputs, ep, entry)?;
        }
    }
    Ok(())
}

/// Entry point `ep`'s descriptors in its SPIR-V against the bindings of the bind view: each
/// one found, with the same descriptor type (or one a mutable descriptor holds), count and
/// input attachment index.
fn descriptors(
    key: &str,
    walk: &Walk<'_>,
    ep: usize,
    entry: &EntrySpirv<'_>,
) -> Result<(), BakeError> {
    let name = entry.name;
    for var in &entry.facts.descriptors {
        let Some(ours) = binding_for(walk, ep, var).map(|b| &walk.bindings[b]) else {
            return Err(BakeError::Slang(format!(
                "{key}: entry point `{name}` declares a descriptor `{}` at set {} binding {} \
                 that the reflection walk did not find; the bind view would be wrong",
                var.name, var.set, var.binding
            )));
        };
        let what = |fact: &str| {
            format!(
                "`{}` (set {} binding {}) {fact}",
                var.name, var.set, var.binding
            )
        };
        if let Some(t) = var.descriptor_type {
            let mutable_holds = DescriptorKind::from_raw(ours.descriptor_type)
                == DescriptorKind::Mutable
                && t.to_raw() < 32
                && ours.mutable_types & (1 << t.to_raw()) != 0;
            if !mutable_holds && !compatible(DescriptorKind::from_raw(ours.descriptor_type), t) {
                return Err(disagree(
                    key,
                    name,
                    what("descriptor type"),
                    DescriptorKind::from_raw(ours.descriptor_type).name(),
                    t.name(),
                ));
            }
        }
        let our_count = match ours.count_kind {
            COUNT_UNBOUNDED => None,
            _ => Some(ours.count),
        };
        if our_count != var.count {
            let show = |c: Option<u32>| c.map_or("unbounded".to_string(), |c| c.to_string());
            return Err(disagree(
                key,
                name,
                what("descriptor count"),
                show(our_count),
                show(var.count),
            ));
        }
        if let Some(index) = var.input_attachment_index {
            if ours.input_attachment_index != index {
                let show = |i: u32| {
                    if i == ABSENT {
                        "none".to_string()
                    } else {
                        i.to_string()
                    }
                };
                return Err(disagree(
                    key,
                    name,
                    what("input attachment index"),
                    show(ours.input_attachment_index),
                    index,
                ));
            }
        }
    }
    Ok(())
}

/// Entry point `ep`'s push-constant and shader-record blocks in its SPIR-V: each listed by
/// the bind view, for a stage that includes the entry point's.
fn stage_blocks(
    key: &str,
    walk: &Walk<'_>,
    ep: usize,
    entry: &EntrySpirv<'_>,
) -> Result<(), BakeError> {
    let name = entry.name;
    for var in &entry.facts.push_constants {
        let Some(p) = push_constant_for(walk, ep, &var.name) else {
            return Err(BakeError::Slang(format!(
                "{key}: entry point `{name}` declares a push-constant block `{}` that the \
                 bind view does not list for it",
                var.name
            )));
        };
        let push = &walk.push_constants[p];
        if push.stage_flags & entry.stage == 0 {
            return Err(disagree(
                key,
                name,
                format!("push-constant block `{}` stage flags", push.name),
                format!("{:#x}", push.stage_flags),
                format!("a block for stage {:#x}", entry.stage),
            ));
        }
    }
    for var in &entry.facts.shader_records {
        let Some(r) = shader_record_for(walk, ep, &var.name) else {
            return Err(BakeError::Slang(format!(
                "{key}: entry point `{name}` declares a shader-record block `{}` that the \
                 bind view does not list",
                var.name
            )));
        };
        if walk.shader_records[r].stage_flags & entry.stage == 0 {
            return Err(disagree(
                key,
                name,
                format!(
                    "shader-record block `{}` stage flags",
                    walk.shader_records[r].name
                ),
                format!("{:#x}", walk.shader_records[r].stage_flags),
                format!("a block for stage {:#x}", entry.stage),
            ));
        }
    }
    Ok(())
}

/// The locations a vertex entry point `ep` reads: each a vertex input of the bind view, with
/// the same component count.
fn vertex_locations(
    key: &str,
    vertex_inputs: &[VertexOut],
    ep: usize,
    entry: &EntrySpirv<'_>,
) -> Result<(), BakeError> {
    let name = entry.name;
    for input in &entry.facts.inputs {
        let ours = vertex_inputs.iter().find(|v| {
            v.entry_point as usize == ep
                && (v.location..v.location + v.location_count.max(1)).contains(&input.location)
        });
        let Some(ours) = ours else {
            return Err(BakeError::Slang(format!(
                "{key}: entry point `{name}` reads vertex input `{}` at location {} that \
                 the bind view does not list",
                input.name, input.location
            )));
        };
        if ours.location_count <= 1 {
            compare(
                key,
                name,
                format!("vertex input `{}` components", ours.name),
                ours.components,
                input.components,
            )?;
        }
    }
    Ok(())
}

/// Facts the SPIR-V states and Slang's reflection lacks: the input attachment index of each
/// input attachment (the reflection reports none we can rely on), and the stages of each
/// shader-record block (the entry points whose SPIR-V declares it).
pub(super) fn take_spirv_facts(walk: &mut Walk<'_>, entry_points: &[EntrySpirv<'_>]) {
    for (ep, entry) in entry_points.iter().enumerate() {
        for var in &entry.facts.descriptors {
            let Some(b) = binding_for(walk, ep, var) else {
                continue;
            };
            let b = &mut walk.bindings[b];
            if let Some(index) = var.input_attachment_index {
                if b.descriptor_type == DescriptorKind::InputAttachment.to_raw() {
                    b.input_attachment_index = index;
                }
            }
            // An array sized by a specialization constant: Slang cannot say its count, the
            // SPIR-V's array type is sized by the constant, counted at its default.
            if b.flags & BINDING_SPECIALIZED_COUNT != 0 {
                if let Some(count) = var.count {
                    b.count = count;
                }
            }
        }
        for spirv in &entry.facts.spec_constants {
            let ours = walk.spec_constants.iter_mut().find(|s| s.id == spirv.id);
            if let Some(ours) = ours.filter(|s| s.default.is_none()) {
                ours.default = Some(spec_default(ours.scalar_type, spirv.default));
            }
        }
        for var in &entry.facts.shader_records {
            if let Some(r) = shader_record_for(walk, ep, &var.name) {
                walk.shader_records[r].stage_flags |= entry.stage;
                if ep < 32 {
                    walk.shader_records[r].entry_point_mask |= 1 << ep;
                }
            }
        }
    }
}

/// A specialization constant's default as the bind view stores it (an integer sign-extended
/// to 64 bits, a float as `f64` bits) from the bits of its SPIR-V `OpSpecConstant`.
fn spec_default(scalar_type: u32, bits: u64) -> (u64, bool) {
    let low = bits as u32;
    use slangpack_format::ScalarType;
    match ScalarType::from_raw(scalar_type) {
        ScalarType::Float32 => (f64::from(f32::from_bits(low)).to_bits(), true),
        ScalarType::Float64 => (bits, true),
        ScalarType::Int32 => (i64::from(low as i32) as u64, false),
        ScalarType::Int16 => (i64::from(low as i16) as u64, false),
        ScalarType::Int8 => (i64::from(low as i8) as u64, false),
        _ => (bits, false),
    }
}

#[cfg(test)]
mod tests;

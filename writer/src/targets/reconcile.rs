//! Matching a target's walked slots with the code's declarations and the Vulkan bind view,
//! and checking each buffer's member layout against the code's.

use super::*;

/// Checks Slang's member layout of a buffer on `target` against `shape`, the layout packed
/// from the code by the language's rules: every member's offset, size and stride (an array's
/// element stride, else a matrix's vector stride).
pub(super) fn same_target_members(
    target: Target,
    ours: &members::TargetLayoutOut,
    shape: &BufferShape,
) -> Result<(), String> {
    if let Some(stride) = shape.element_stride.filter(|&s| s != ours.stride) {
        return Err(format!(
            "Slang's {} layout puts its elements {} bytes apart, {} applied to the code {stride}",
            target.name(),
            ours.stride,
            shape.checker
        ));
    }
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
pub(super) fn combined(builder: &ReflectionBuilder, path: &str) -> bool {
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
pub(super) fn reconcile(
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
pub(super) fn reconcile_checked(
    builder: &mut ReflectionBuilder,
    target: Target,
    slots: &[Slot],
    declared: &[CodeBinding],
    declared_by: &[u32],
    entry_names: &[&str],
    checked: &mut [bool],
) -> Result<Vec<TargetBinding>, String> {
    let vulkan: Vec<DescriptorBinding> = (0..builder.table_len::<DescriptorBinding>())
        .filter_map(|i| builder.get::<DescriptorBinding>(i))
        .collect();
    let pushes: Vec<PushConstantRange> = (0..builder.table_len::<PushConstantRange>())
        .filter_map(|i| builder.get::<PushConstantRange>(i))
        .collect();
    let paths: Vec<u32> = slots.iter().map(|s| builder.intern(&s.path)).collect();
    let view = Reconciling {
        target,
        slots,
        declared_by,
        entry_names,
        vulkan: &vulkan,
        pushes: &pushes,
        paths: &paths,
    };
    view.every_vulkan_binding_placed(builder)?;
    // Every resource the code declares is a slot of the bind view, at the same place.
    let mut code_names: Vec<Option<&CodeBinding>> = vec![None; slots.len()];
    for (j, d) in declared.iter().enumerate() {
        let (i, slot) = view.slot_of(j, d)?;
        view.same_facts(slot, d)?;
        view.same_layout(builder, j, d, i, checked.get_mut(i))?;
        code_names[i] = Some(d);
    }
    view.target_bindings(builder, code_names)
}

/// What [`reconcile_checked`] compares: the target's slots, the Vulkan bind view's bindings and
/// push-constant ranges, and each slot's path in the string table.
struct Reconciling<'r> {
    target: Target,
    slots: &'r [Slot],
    declared_by: &'r [u32],
    entry_names: &'r [&'r str],
    vulkan: &'r [DescriptorBinding],
    pushes: &'r [PushConstantRange],
    paths: &'r [u32],
}

impl<'r> Reconciling<'r> {
    fn place(&self, s: &Slot) -> String {
        describe(self.target, s.space, s.index, s.register_class)
    }

    /// Every Vulkan binding has a place on the target.
    fn every_vulkan_binding_placed(&self, builder: &ReflectionBuilder) -> Result<(), String> {
        let target = self.target;
        for b in self.vulkan {
            // A descriptor heap Slang synthesized for the SPIR-V (`__slang_resource_heap`):
            // the other targets index their own heaps (HLSL's `ResourceDescriptorHeap`), which
            // take no binding.
            let heap = b.flags & BINDING_DESCRIPTOR_HEAP != 0;
            if b.count_kind != COUNT_ZERO && !heap && !self.paths.contains(&b.path) {
                return Err(format!(
                    "the binding `{}` (Vulkan set {} binding {}) has no place on {} (Slang's \
                     layout for {} does not list it)",
                    builder.string(b.path).unwrap_or("?"),
                    b.set,
                    b.binding,
                    target.name(),
                    target.name()
                ));
            }
        }
        Ok(())
    }

    /// The slot the code's declaration `d` (the `j`th) sits at.
    fn slot_of(&self, j: usize, d: &CodeBinding) -> Result<(usize, &'r Slot), String> {
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
            let Some(&by) = self.declared_by.get(j) else {
                return true;
            };
            self.vulkan
                .iter()
                .find(|b| b.path == self.paths[*i])
                .is_none_or(|b| b.entry_point_mask == 0 || b.entry_point_mask & by != 0)
        };
        // Of several slots at one place (a mutable descriptor heap), the one of the
        // declaration's kind.
        let of_kind = |(_, s): &(usize, &Slot)| d.kind.is_none_or(|k| k == s.kind);
        let slots = self.slots;
        slots
            .iter()
            .enumerate()
            .filter(|(_, s)| at_place(s))
            .filter(of_kind)
            .find(used_by_them)
            .or_else(|| slots.iter().enumerate().find(|(_, s)| at_place(s)))
            .ok_or_else(|| {
                format!(
                    "the code declares `{}` at {}, where the bind view has no binding",
                    d.name,
                    describe_code(self.target, d)
                )
            })
    }

    /// The facts the code states of `d` (kind, flags, view dimension, sample type, a uniform
    /// buffer's size) are the slot's.
    fn same_facts(&self, slot: &Slot, d: &CodeBinding) -> Result<(), String> {
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
                        self.place(slot),
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
                    self.place(slot),
                    slot.min_binding_size
                ));
            }
        }
        Ok(())
    }

    /// The code's member layout of `d` (the `j`th declaration, at slot `i`) against the bind
    /// view's: Slang's layout for the target (HLSL, Metal; then `checked` is set), or the
    /// Vulkan binding's, which WGSL and GLSL share.
    fn same_layout(
        &self,
        builder: &ReflectionBuilder,
        j: usize,
        d: &CodeBinding,
        i: usize,
        checked: Option<&mut bool>,
    ) -> Result<(), String> {
        let (Some(shape), Some(slot)) = (&d.layout, self.slots.get(i)) else {
            return Ok(());
        };
        if !self.target.shares_vulkan_member_layout() {
            // HLSL and Metal: Slang's layout for the target, member by member, against the
            // layout packed from the code by the language's rules.
            if let Some(ours) = &slot.layout {
                same_target_members(self.target, ours, shape).map_err(|m| {
                    format!(
                        "`{}` ({}, code `{}`): {m}",
                        slot.path,
                        self.place(slot),
                        d.name
                    )
                })?;
                if let Some(c) = checked {
                    *c = true;
                }
            }
            return Ok(());
        }
        // A push-constant block's uniform buffer (WGSL) holds the block's range: its members
        // sit at their Vulkan offsets less the range's offset.
        let path = self.paths.get(i).copied().unwrap_or(ABSENT);
        let push = self.pushes.iter().find(|p| p.name == path);
        let (layout, shift) = match self.vulkan.iter().find(|b| b.path == path) {
            Some(b) => (b.buffer_layout, 0),
            None => push.map_or((ABSENT, 0), |p| (p.buffer_layout, p.offset)),
        };
        let entry = self
            .declared_by
            .get(j)
            .and_then(|by| self.entry_names.get(by.trailing_zeros() as usize))
            .map_or(String::new(), |e| format!("entry point `{e}`: "));
        same_members(builder, layout, shift, shape).map_err(|m| {
            format!(
                "{entry}`{}` ({}, code `{}`): {m}",
                slot.path,
                self.place(slot),
                d.name
            )
        })
    }

    /// The target's bindings, one per slot, with the code's name where the code declares it;
    /// a slot the code does not declare is unused, which only a binding the SPIR-V does not
    /// use either may be.
    fn target_bindings(
        &self,
        builder: &mut ReflectionBuilder,
        code_names: Vec<Option<&CodeBinding>>,
    ) -> Result<Vec<TargetBinding>, String> {
        let mut out = Vec::with_capacity(self.slots.len());
        for ((slot, &path), code) in self.slots.iter().zip(self.paths).zip(code_names) {
            let binding = self
                .vulkan
                .iter()
                .position(|b| b.path == path)
                .map_or(ABSENT, |i| i as u32);
            // A heap's kinds are those the SPIR-V indexes; another target's code may index
            // fewer of them.
            let vulkan_used = self
                .vulkan
                .get(binding as usize)
                .is_some_and(|b| b.flags & (BINDING_UNUSED | BINDING_DESCRIPTOR_HEAP) == 0);
            let mut flags = slot.flags;
            if code.is_none() && slot.kind != TargetBindingKind::PushConstants {
                let is_push = self.pushes.iter().any(|p| p.name == path);
                if vulkan_used && !is_push {
                    return Err(format!(
                        "`{}`: the bind view places it at {}, but the code declares nothing \
                         there",
                        slot.path,
                        self.place(slot)
                    ));
                }
                flags |= TARGET_UNUSED;
            }
            out.push(TargetBinding {
                target: self.target.to_raw(),
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
}

/// Checks the code's layout of a buffer against the bind view's buffer layout `layout` (the
/// Vulkan binding's, which the target's binding shares): every member's offset, size and
/// array (or matrix) stride, and a structured buffer's element stride. Offsets outside array
/// elements are compared less `shift` (a push-constant range's offset: WGSL's uniform buffer
/// for the block starts at the range).
pub(super) fn same_members(
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
pub(super) fn describe(target: Target, space: u32, index: u32, class: u8) -> String {
    slangpack_format::targets::place_name(target, space, index, u32::from(class))
}

pub(super) fn describe_code(target: Target, d: &CodeBinding) -> String {
    if d.index == ABSENT {
        return "a member of an argument buffer".to_string();
    }
    describe(target, d.space, d.index, d.register_class)
}

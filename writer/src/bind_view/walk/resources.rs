//! Arrays of parameters and the resources at the walk's leaves: descriptor type, count and
//! stage usage of each binding, with a structured buffer's counter beside it.

use super::{descriptor_type, BindingOut, State, VulkanSlot, VulkanSlotSize, Walk};
use crate::bind_view::*;
use crate::error::BakeError;
use slangpack_slang::reflection::{TypeLayout, VarLayout};

impl<'a> Walk<'a> {
    pub(super) fn array(
        &mut self,
        var: VarLayout<'a>,
        tl: TypeLayout<'a>,
        state: State,
        path: &str,
        name: &str,
    ) -> Result<(), BakeError> {
        let count = tl.ty().and_then(|t| t.element_count(self.program_layout));
        let Some(element) = tl.element_type_layout() else {
            return Ok(());
        };
        // Slang cannot evaluate an array size given by a specialization constant: its count
        // comes from the SPIR-V, at the constant's default (`take_spirv_facts`).
        let specialized = state.specialized || count.is_none();
        let (count, kind) = match count {
            None => (0, COUNT_FIXED),
            Some(n) if n == UNBOUNDED || n >= i32::MAX as usize => (0, COUNT_UNBOUNDED),
            Some(0) => (0, COUNT_ZERO),
            Some(n) => (u(n), COUNT_FIXED),
        };
        // Nested in an array of structs: the SPIR-V flattens the dimensions into one.
        let (count, kind) = match (kind, state.array_kind) {
            (COUNT_ZERO, _) => (0, COUNT_ZERO),
            (COUNT_UNBOUNDED, _) | (_, COUNT_UNBOUNDED) => (0, COUNT_UNBOUNDED),
            _ => (count.saturating_mul(state.array), COUNT_FIXED),
        };
        let state = State {
            specialized,
            ..state
        };
        match element.kind() {
            KIND_RESOURCE | KIND_SAMPLER | KIND_TEXTURE_BUFFER | KIND_STORAGE_BUFFER
            | KIND_CONSTANT_BUFFER => {
                self.resource(var, tl, state, path, name, count, kind);
                Ok(())
            }
            KIND_STRUCT if element.slot_size() > 0 => {
                let inner = State {
                    array: count.max(1),
                    array_kind: kind,
                    ..state
                };
                self.fields(element, inner, path)
            }
            _ => Ok(()),
        }
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "one call site per shape; a struct adds nothing"
    )]
    pub(super) fn resource(
        &mut self,
        var: VarLayout<'a>,
        tl: TypeLayout<'a>,
        state: State,
        path: &str,
        name: &str,
        count: u32,
        count_kind: u32,
    ) {
        let binding_type = if tl.binding_range_count() > 0 {
            tl.binding_range_type(0)
        } else {
            0
        };
        let leaf = if tl.kind() == KIND_ARRAY {
            tl.element_type_layout().unwrap_or(tl)
        } else {
            tl
        };
        let ty = leaf.ty();
        let shape = ty.map_or(0, |t| t.resource_shape());
        // Slang reports `SubpassInput` as a texture binding; its shape says what it is.
        let descriptor_type = if shape & SHAPE_BASE_MASK == SHAPE_TEXTURE_SUBPASS {
            DescriptorKind::InputAttachment.to_raw()
        } else {
            descriptor_type(binding_type, leaf.kind())
        };
        // A structured buffer's element is described like a buffer of its own.
        let element = (descriptor_type == DescriptorKind::StorageBuffer.to_raw()
            && leaf.kind() == KIND_RESOURCE)
            .then(|| leaf.element_type_layout())
            .flatten()
            .filter(|etl| etl.size(CAT_UNIFORM) > 0);
        let buffer = element.map(|etl| {
            let size = etl.size(CAT_UNIFORM);
            let stride = leaf
                .element_stride(CAT_UNIFORM)
                .max(etl.stride(CAT_UNIFORM))
                .max(size);
            let index = self.buffer(
                path,
                BUFFER_STRUCTURED_ELEMENT,
                etl,
                state.set,
                state.binding,
                size,
            );
            self.buffers[index].stride = u(stride);
            index
        });
        // An array of constant buffers: the layout of one element.
        let buffer = buffer.or_else(|| {
            let etl = (leaf.kind() == KIND_CONSTANT_BUFFER)
                .then(|| leaf.element_type_layout())
                .flatten()?;
            let size = etl.size(CAT_UNIFORM);
            Some(self.buffer(path, BUFFER_UNIFORM, etl, state.set, state.binding, size))
        });
        self.bindings.push(BindingOut {
            name: name.to_string(),
            path: path.to_string(),
            set: state.set,
            binding: state.binding,
            descriptor_type,
            count: if count_kind == COUNT_FIXED { count } else { 0 },
            count_kind,
            image_format: var.image_format(),
            stage_flags: 0,
            entry_point_mask: 0,
            buffer,
            flags: if binding_type & BT_MUTABLE != 0 {
                BINDING_WRITABLE
            } else {
                0
            } | if state.specialized {
                BINDING_SPECIALIZED_COUNT
            } else {
                0
            },
            shape,
            access: ty.map_or(0, |t| t.resource_access()),
            input_attachment_index: ABSENT,
            sampler_path: None,
            spirv_name: String::new(),
            entry_point: None,
            mutable_types: 0,
        });
        // Append/consume structured buffers: the counter is a storage buffer of its own.
        if let Some(counter) = leaf.explicit_counter() {
            let counter_path = join(path, "counter");
            self.bindings.push(BindingOut {
                name: "counter".to_string(),
                descriptor_type: DescriptorKind::StorageBuffer.to_raw(),
                binding: state.binding + u(counter.slot_offset()),
                buffer: None,
                flags: BINDING_WRITABLE,
                image_format: 0,
                shape: 0,
                access: 0,
                ..BindingOut::uniform_buffer(&counter_path, state.set, 0, count, None, 0)
            });
        }
    }
}

//! Parameter blocks and constant buffers the walk enters: a block's implicit uniform buffer
//! at binding 0 of its set, and interface-typed blocks laid out as existentials.

use super::{no_conformance, BindingOut, State, VulkanSlot, VulkanSlotSize, Walk};
use crate::bind_view::*;
use crate::error::BakeError;
use slangpack_slang::reflection::{TypeLayout, VarLayout};

impl<'a> Walk<'a> {
    pub(super) fn parameter_block(
        &mut self,
        var: VarLayout<'a>,
        tl: TypeLayout<'a>,
        parent: State,
        path: &str,
    ) -> Result<(), BakeError> {
        let set = parent.set
            + u(var.offset(CAT_SUB_ELEMENT_SPACE))
            + u(var.offset(CAT_REGISTER_SPACE))
            + u(var.space(CAT_SUB_ELEMENT_SPACE));
        let inner = State {
            set,
            binding: 0,
            array: 1,
            ..State::default()
        };
        let (Some(element), Some(etl)) = (tl.element_var_layout(), tl.element_type_layout()) else {
            return Ok(());
        };
        if etl.kind() == KIND_GENERIC_TYPE_PARAMETER {
            self.unspecialized_parameter(path, etl);
            return Ok(());
        }
        if etl.kind() == KIND_INTERFACE {
            let binding = tl.container_var_layout().map_or(0, |c| u(c.slot_offset()));
            let buffer = self.interface_block_layout(var, etl, path, BUFFER_BLOCK, set, binding)?;
            self.bindings.push(BindingOut::uniform_buffer(
                path,
                set,
                binding,
                1,
                Some(buffer),
                BINDING_IMPLICIT_BLOCK_BUFFER,
            ));
            return Ok(());
        }
        if etl.size(CAT_UNIFORM) > 0 {
            let container = tl.container_var_layout();
            let binding = container.map_or(0, |c| u(c.slot_offset()));
            let buffer = self.buffer(path, BUFFER_BLOCK, etl, set, binding, etl.size(CAT_UNIFORM));
            self.bindings.push(BindingOut::uniform_buffer(
                path,
                set,
                binding,
                1,
                Some(buffer),
                BINDING_IMPLICIT_BLOCK_BUFFER,
            ));
        }
        // Field offsets inside the block's element already count the implicit buffer's slot.
        let inner = State {
            set: inner.set + u(element.slot_space()),
            ..inner
        };

        match etl.kind() {
            KIND_STRUCT => self.fields(etl, inner, path),
            _ => self.parameter(element, inner, path),
        }
    }

    /// The layout of an interface-typed block (`ParameterBlock<ISurface>`,
    /// `ConstantBuffer<ISurface>`, element type layout `etl`) that a type argument or a single
    /// conforming type specializes. Slang's reflection still reports the interface (no pending
    /// data), while its SPIR-V has the existential header and the concrete type's data, which
    /// the specialized code reads: packed into the payload when it fits, else after the
    /// header (`existential_block`).
    ///
    /// # Errors
    /// [`BakeError::Input`] when nothing specializes it and it is not dispatched among
    /// several conforming types that pack into its payload, or the concrete type holds
    /// resources or does not fit the payload (without a type argument, or in a constant
    /// buffer).
    pub(super) fn interface_block_layout(
        &mut self,
        var: VarLayout<'a>,
        etl: TypeLayout<'a>,
        path: &str,
        kind: u32,
        set: u32,
        binding: u32,
    ) -> Result<usize, BakeError> {
        let slot = self.program_layout.type_parameter_count() as usize
            + var.offset(CAT_EXISTENTIAL_TYPE_PARAM);
        let interface = etl.ty().and_then(|t| t.name()).unwrap_or_default();
        let specialized = self.type_arguments.get(slot).cloned();
        // Without a type argument, one conforming type: Slang calls its methods directly
        // (the data must then sit in the payload: `existential_block` describes only that).
        let conforming = || {
            let mut types = (self.conformances.iter()).filter(|(_, i)| *i == interface);
            match (types.next(), types.next()) {
                (Some((ty, _)), None) => Some(ty.clone()),
                _ => None,
            }
        };
        // Where Slang puts data that does not fit the payload is known for parameter blocks
        // only (after the header, in the block).
        let pending_allowed = specialized.is_some() && kind == BUFFER_BLOCK;
        let unspecialized = specialized.is_none();
        let concrete = specialized.or_else(conforming).and_then(|name| {
            let ty = self.program_layout.find_type_by_name(&name)?;
            self.program_layout.type_layout_of(ty)
        });
        // Several conforming types: dynamic dispatch (`Walk::dispatched_block`).
        if let Some(index) = (unspecialized && concrete.is_none())
            .then(|| self.dispatched_block(path, kind, etl, set, binding))
            .flatten()
        {
            return Ok(index);
        }
        let Some(concrete) = concrete else {
            if self.no_conformance(&interface) {
                let implementations = self.implementations(&interface);
                return Err(BakeError::Input(no_conformance(
                    path,
                    "block",
                    &interface,
                    &implementations,
                )));
            }
            return Err(interface_block(path, etl));
        };
        if concrete.slot_size() > 0 {
            let name = concrete.ty().and_then(|t| t.name()).unwrap_or_default();
            return Err(BakeError::Input(format!(
                "`{path}` is an interface-typed block (`{interface}`) specialized to `{name}`, \
                 which holds resources: where Slang binds a specialized existential's resources \
                 its reflection does not report, so slangpack cannot describe it; declare the \
                 block with the concrete type (`ParameterBlock<{name}>`) or a generic parameter"
            )));
        }
        let header = etl.size(CAT_UNIFORM);
        self.existential_block(path, kind, header, concrete, set, binding, pending_allowed)
            .ok_or_else(|| interface_block(path, etl))
    }
}

/// The refusal of an interface-typed `ParameterBlock<IFoo>` / `ConstantBuffer<IFoo>` that
/// neither a type argument nor the program's conforming types describe: one conforming type
/// whose data does not fit the payload, or several of which one does not pack into it.
///
/// With type conformances Slang lays such a block out as an existential value — in the
/// SPIR-V a `Tuple` block of a `uint2` type id at offset 0, a `uint2` witness-table id at 8
/// and an `AnyValue` payload at 16 holding the conforming type's data packed into `uint`s —
/// and its reflection describes none of it: the element is an interface with a size and no
/// members. The bind view packs each conforming type into the payload itself; where Slang puts
/// data that does not pack that way is not reported anywhere the writer can check, so a
/// layout would look complete and not be.
pub(super) fn interface_block(path: &str, etl: TypeLayout<'_>) -> BakeError {
    let interface = etl.ty().and_then(|t| t.name()).unwrap_or_default();
    BakeError::Input(format!(
        "`{path}` is an interface-typed block (`{interface}`): Slang lays it out as an \
         existential (a uint2 type id at offset 0, a uint2 witness-table id at 8, then a \
         payload of the conforming type's data) whose payload layout its reflection does not \
         report, so slangpack describes it only when each conforming type (one, or several \
         dispatched dynamically) packs into the payload with 32-bit scalars and vectors; \
         specialize the block instead: `--type-arg` with the conforming type (the bind view \
         then describes that type's data in the payload or after the header), or \
         `ParameterBlock<ConcreteType>`"
    ))
}

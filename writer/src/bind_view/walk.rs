//! The reflection walk: each global and entry-point parameter followed down its
//! variable-layout tree to descriptor bindings, push-constant blocks, buffers and
//! specialization constants.

use super::*;
use buffers::{BufferOut, Target};
use slangpack_format::DeclKind;
use slangpack_slang::reflection::{Decl, Type, TypeLayout, VarLayout};

/// Accumulated offsets on the way down a variable-layout tree.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct State {
    pub(super) set: u32,
    pub(super) binding: u32,
    /// Multiplier from enclosing arrays of structs holding resources.
    pub(super) array: u32,
    /// How `array` reads: [`COUNT_FIXED`], or [`COUNT_UNBOUNDED`] inside an unbounded array of
    /// structs (`X ee[]`: every resource field of `X` is an unbounded array in the SPIR-V).
    pub(super) array_kind: u32,
    /// Inside an array sized by a specialization constant: counts come from the SPIR-V.
    pub(super) specialized: bool,
}

pub(super) struct BindingOut {
    pub(super) name: String,
    pub(super) path: String,
    pub(super) set: u32,
    pub(super) binding: u32,
    pub(super) descriptor_type: u32,
    pub(super) count: u32,
    pub(super) count_kind: u32,
    pub(super) image_format: u32,
    pub(super) stage_flags: u32,
    pub(super) entry_point_mask: u32,
    pub(super) buffer: Option<usize>,
    pub(super) flags: u32,
    pub(super) shape: u32,
    pub(super) access: u32,
    /// `InputAttachmentIndex` of an input attachment (from the SPIR-V), else absent.
    pub(super) input_attachment_index: u32,
    /// The sampler of a texture and a sampler sharing one binding (a combined image sampler).
    pub(super) sampler_path: Option<String>,
    /// The name of the SPIR-V variable an entry point declares for it (empty until one does).
    pub(super) spirv_name: String,
    /// The entry point whose `uniform` parameter it is (`None` for a global). Only that entry
    /// point's SPIR-V declares it, as `entryPointParams.<parameter path>`.
    pub(super) entry_point: Option<usize>,
    /// A mutable descriptor's types, bit `t` for `VkDescriptorType` `t`.
    pub(super) mutable_types: u32,
}

impl BindingOut {
    /// A uniform buffer binding holding the buffer layout `buffer`.
    pub(super) fn uniform_buffer(
        path: &str,
        set: u32,
        binding: u32,
        count: u32,
        buffer: Option<usize>,
        flags: u32,
    ) -> BindingOut {
        BindingOut {
            name: path.rsplit('.').next().unwrap_or(path).to_string(),
            path: path.to_string(),
            set,
            binding,
            descriptor_type: DescriptorKind::UniformBuffer.to_raw(),
            count,
            count_kind: COUNT_FIXED,
            image_format: 0,
            stage_flags: 0,
            entry_point_mask: 0,
            buffer,
            flags,
            shape: 0,
            access: 0,
            input_attachment_index: ABSENT,
            sampler_path: None,
            spirv_name: String::new(),
            entry_point: None,
            mutable_types: 0,
        }
    }
}

/// A shader-record block (`[[vk::shader_record]]`).
pub(super) struct RecordOut {
    pub(super) name: String,
    /// The entry point whose `uniform` parameters form the block; `None` for a global block.
    pub(super) entry_point: Option<usize>,
    pub(super) size: u32,
    pub(super) buffer: usize,
    pub(super) stage_flags: u32,
    pub(super) entry_point_mask: u32,
}

pub(super) struct PushOut {
    pub(super) name: String,
    pub(super) size: u32,
    pub(super) buffer: usize,
    /// The entry point whose `uniform` parameters form the block; `None` for a global block.
    pub(super) entry_point: Option<usize>,
    /// Bit `i`: the SPIR-V of entry point `i` declares the block.
    pub(super) entry_point_mask: u32,
    pub(super) stage_flags: u32,
}

pub(super) struct SpecOut {
    pub(super) id: u32,
    pub(super) name: String,
    pub(super) scalar_type: u32,
    pub(super) default: Option<(u64, bool)>,
}

pub(super) struct Walk<'a> {
    pub(super) program_layout: Program<'a>,
    pub(super) bindings: Vec<BindingOut>,
    pub(super) buffers: Vec<BufferOut>,
    pub(super) push_constants: Vec<PushOut>,
    pub(super) spec_constants: Vec<SpecOut>,
    pub(super) shader_records: Vec<RecordOut>,
    /// The program's type arguments (`--type-arg`): global generic parameters, then
    /// existential slots.
    pub(super) type_arguments: Vec<String>,
    /// The program's type conformances (`--conformance TYPE:INTERFACE`).
    pub(super) conformances: Vec<(String, String)>,
    /// The main module's declarations, where the walk looks for types conforming to an
    /// interface nothing specializes.
    pub(super) module: Option<Decl<'a>>,
    /// Parameters whose type is a global generic parameter left unspecialized (no
    /// `--type-arg`): `path` and the parameter's name. Slang lays them out with no place and
    /// its SPIR-V declares nothing for them, so the bind view has nothing to state.
    pub(super) unspecialized: Vec<(String, String)>,
    /// The layouts members lead to through buffer device addresses and descriptor handles,
    /// by key ([`MemberOut::refers`]), gathered while members are flattened.
    pub(super) targets: std::cell::RefCell<std::collections::BTreeMap<String, Target<'a>>>,
    /// The heap buffers (indices into `buffers`) that are storage buffers' elements, reached
    /// through handles of structured buffers: they live at the heap binding of storage
    /// buffers ([`Walk::place_heap_buffers`]).
    pub(super) heap_storage: Vec<usize>,
}

impl<'a> Walk<'a> {
    /// The global scope: a struct of parameters, or a constant buffer wrapping them when
    /// there are global uniforms (the implicit global uniform buffer).
    pub(super) fn global_scope(&mut self, globals: VarLayout<'a>) -> Result<(), BakeError> {
        let Some(tl) = globals.type_layout() else {
            return Ok(());
        };
        let state = State {
            array: 1,
            ..State::default()
        };
        if tl.kind() == KIND_CONSTANT_BUFFER {
            // Slang wraps the globals when some of them are ordinary data.
            let container = tl.container_var_layout();
            if let (Some(_), Some(etl)) = (tl.element_var_layout(), tl.element_type_layout()) {
                if etl.size(CAT_UNIFORM) > 0 {
                    // The buffer's binding: the global scope's own descriptor-slot offset plus
                    // its container's (nonzero when explicit bindings took the first slots).
                    let binding_slot =
                        globals.slot_offset() + container.map_or(0, |c| c.slot_offset());
                    let set_slot = globals.slot_space() + container.map_or(0, |c| c.slot_space());
                    let buffer = self.buffer(
                        "",
                        BUFFER_GLOBAL,
                        etl,
                        u(set_slot),
                        u(binding_slot),
                        etl.size(CAT_UNIFORM),
                    );
                    self.bindings.push(BindingOut::uniform_buffer(
                        "",
                        u(set_slot),
                        u(binding_slot),
                        1,
                        Some(buffer),
                        BINDING_IMPLICIT_GLOBAL_BUFFER,
                    ));
                }
                return self.fields(etl, state, "");
            }
            return Ok(());
        }
        self.fields(tl, state, "")
    }

    /// The parameters of entry point `index`. Its `uniform` parameters of ordinary data are
    /// gathered by Slang into one buffer — a push-constant block on Vulkan — named after the
    /// entry point; resource parameters are bindings like global ones.
    pub(super) fn entry_point_parameters(
        &mut self,
        index: usize,
        ep: EntryPoint<'a>,
    ) -> Result<(), BakeError> {
        let first = self.bindings.len();
        let walked = self.entry_point_parameters_of(index, ep);
        for b in &mut self.bindings[first..] {
            b.entry_point = Some(index);
        }
        walked
    }

    /// [`Self::entry_point_parameters`] before its bindings are marked as the entry point's.
    /// Resource parameters are named `<entry point>.<parameter>`: two entry points of one
    /// program may each have an `outBuf`.
    fn entry_point_parameters_of(
        &mut self,
        index: usize,
        ep: EntryPoint<'a>,
    ) -> Result<(), BakeError> {
        let ep_name = ep.name().unwrap_or_default();
        let state = State {
            array: 1,
            ..State::default()
        };
        let wrapper = ep
            .var_layout()
            .and_then(|v| v.type_layout().map(|tl| (v, tl)))
            .filter(|(_, tl)| tl.kind() == KIND_CONSTANT_BUFFER);
        let Some((var, tl)) = wrapper else {
            // Parameter offsets are relative to the entry point's own, which is past the
            // globals' and the previous entry points' parameters.
            let state = ep.var_layout().map_or(state, |v| State {
                set: u(v.slot_space()) + u(v.offset(CAT_REGISTER_SPACE)),
                binding: u(v.slot_offset()),
                ..state
            });
            for param in ep.parameters() {
                let name = param.variable().and_then(|v| v.name()).unwrap_or_default();
                self.parameter(param, state, &join(&ep_name, &name))?;
            }
            return Ok(());
        };
        let (Some(element), Some(etl)) = (tl.element_var_layout(), tl.element_type_layout()) else {
            return Ok(());
        };
        let size = etl.size(CAT_UNIFORM);
        if size > 0 {
            if tl.categories().contains(&CAT_SHADER_RECORD) || (7..=12).contains(&ep.stage()) {
                // Ray-tracing stages: Slang's SPIR-V puts `uniform` parameters in a
                // `ShaderRecordBufferKHR` block, while its reflection reports them as plain
                // uniform data (which the walk used to bind as a uniform buffer at set 0
                // binding 0).
                let buffer = self.buffer(&ep_name, BUFFER_SHADER_RECORD, etl, ABSENT, ABSENT, size);
                self.shader_records.push(RecordOut {
                    name: ep_name.clone(),
                    entry_point: Some(index),
                    size: u(size),
                    buffer,
                    stage_flags: 0,
                    entry_point_mask: 0,
                });
            } else if tl.categories().contains(&CAT_PUSH_CONSTANT) {
                let buffer = self.buffer(&ep_name, BUFFER_PUSH_CONSTANT, etl, ABSENT, ABSENT, size);
                self.push_constants.push(PushOut {
                    name: ep_name.clone(),
                    size: u(size),
                    buffer,
                    entry_point: Some(index),
                    entry_point_mask: 0,
                    stage_flags: 0,
                });
            } else {
                let container = tl.container_var_layout();
                let set = u(var.slot_space() + container.map_or(0, |c| c.slot_space()));
                let binding = u(var.slot_offset() + container.map_or(0, |c| c.slot_offset()));
                let buffer = self.buffer(&ep_name, BUFFER_UNIFORM, etl, set, binding, size);
                self.bindings.push(BindingOut::uniform_buffer(
                    &ep_name,
                    set,
                    binding,
                    1,
                    Some(buffer),
                    0,
                ));
            }
        }
        let state = State {
            set: u(var.slot_space() + element.slot_space()),
            binding: u(var.slot_offset() + element.slot_offset()),
            ..state
        };
        self.fields(etl, state, &ep_name)
    }

    /// Walks the fields of the struct type layout `tl`, each named `path.field`.
    pub(super) fn fields(
        &mut self,
        tl: TypeLayout<'a>,
        state: State,
        path: &str,
    ) -> Result<(), BakeError> {
        for field in tl.fields() {
            let name = field.variable().and_then(|v| v.name()).unwrap_or_default();
            self.parameter(field, state, &join(path, &name))?;
        }
        Ok(())
    }

    /// One variable at `state` (offsets of its parents), named `path`.
    pub(super) fn parameter(
        &mut self,
        var: VarLayout<'a>,
        parent: State,
        path: &str,
    ) -> Result<(), BakeError> {
        let Some(tl) = var.type_layout() else {
            return Ok(());
        };
        let categories = tl.categories();
        if categories.contains(&CAT_VARYING_INPUT) && categories.len() == 1 {
            return Ok(()); // vertex inputs are collected per entry point
        }
        // A parameter Slang gives no place at all (`ConstantBuffer<S>` of a struct with only
        // `static` members: its layout lists no category, its HLSL layout leaves it out and
        // its SPIR-V declares nothing) has no place in the bind view either. (A constant
        // buffer holding an array sized by a specialization constant lists no category
        // either, but holds data of unknown size and a SPIR-V block: it is refused later.)
        let holds_data = tl
            .element_type_layout()
            .is_some_and(|e| e.size(CAT_UNIFORM) > 0);
        if categories.is_empty() && !holds_data {
            return Ok(());
        }
        let state = State {
            set: parent.set + u(var.slot_space()) + u(var.offset(CAT_REGISTER_SPACE)),
            binding: parent.binding + u(var.slot_offset()),
            ..parent
        };
        let name = path.rsplit('.').next().unwrap_or(path).to_string();
        match tl.kind() {
            KIND_PARAMETER_BLOCK => self.parameter_block(var, tl, parent, path),
            KIND_CONSTANT_BUFFER if categories.contains(&CAT_PUSH_CONSTANT) => {
                let Some(etl) = tl.element_type_layout() else {
                    return Ok(());
                };
                let size = etl.size(CAT_UNIFORM);
                let buffer = self.buffer(path, BUFFER_PUSH_CONSTANT, etl, ABSENT, ABSENT, size);
                self.push_constants.push(PushOut {
                    name: path.to_string(),
                    size: u(size),
                    buffer,
                    entry_point: None,
                    entry_point_mask: 0,
                    stage_flags: 0,
                });
                Ok(())
            }
            KIND_CONSTANT_BUFFER if categories.contains(&CAT_SHADER_RECORD) => {
                // Not a descriptor: the data sits in the shader binding table's record.
                let Some(etl) = tl.element_type_layout() else {
                    return Ok(());
                };
                let size = etl.size(CAT_UNIFORM);
                let buffer = self.buffer(path, BUFFER_SHADER_RECORD, etl, ABSENT, ABSENT, size);
                self.shader_records.push(RecordOut {
                    name: path.to_string(),
                    entry_point: None,
                    size: u(size),
                    buffer,
                    stage_flags: 0,
                    entry_point_mask: 0,
                });
                Ok(())
            }
            KIND_CONSTANT_BUFFER => {
                let etl = tl.element_type_layout();
                if let Some(etl) = etl.filter(|e| e.kind() == KIND_GENERIC_TYPE_PARAMETER) {
                    self.unspecialized_parameter(path, etl);
                    return Ok(());
                }
                if let (Some(etl), Some(element)) = (
                    etl.filter(|e| e.kind() == KIND_PARAMETER_BLOCK),
                    tl.element_var_layout(),
                ) {
                    // `ConstantBuffer<ParameterBlock<T>>`: Slang lays it out as the parameter
                    // block alone, in a set of its own (the constant buffer takes no
                    // descriptor slot; its offset is in sub-element spaces), and its SPIR-V
                    // declares the block's uniform buffer there.
                    let outer = State {
                        set: parent.set
                            + u(var.offset(CAT_SUB_ELEMENT_SPACE))
                            + u(var.offset(CAT_REGISTER_SPACE)),
                        ..parent
                    };
                    return self.parameter_block(element, etl, outer, path);
                }
                if let Some(etl) = etl.filter(|e| e.kind() == KIND_INTERFACE) {
                    let buffer = self.interface_block_layout(
                        var,
                        etl,
                        path,
                        BUFFER_UNIFORM,
                        state.set,
                        state.binding,
                    )?;
                    self.bindings.push(BindingOut::uniform_buffer(
                        path,
                        state.set,
                        state.binding,
                        state.array,
                        Some(buffer),
                        0,
                    ));
                    return Ok(());
                }
                // Resources inside (`cbuffer U { RWStructuredBuffer<float> b; float scale; }`,
                // `ConstantBuffer<T>` of a `T` holding resources) are bindings of their own
                // after the buffer's: Slang moves them out of the block. A block with no
                // ordinary data is no uniform buffer at all (Slang's SPIR-V declares none).
                let resources = etl.filter(|e| e.slot_size() > 0);
                let data = etl.is_none_or(|e| e.size(CAT_UNIFORM) > 0);
                if data || resources.is_none() {
                    let binding = state.binding
                        + tl.container_var_layout()
                            .filter(|_| resources.is_some())
                            .map_or(0, |c| u(c.slot_offset()));
                    let buffer = etl.map(|etl| {
                        self.buffer(
                            path,
                            BUFFER_UNIFORM,
                            etl,
                            state.set,
                            binding,
                            etl.size(CAT_UNIFORM),
                        )
                    });
                    self.bindings.push(BindingOut::uniform_buffer(
                        path,
                        state.set,
                        binding,
                        state.array,
                        buffer,
                        0,
                    ));
                }
                match (resources, tl.element_var_layout()) {
                    (Some(etl), Some(element)) => {
                        // The fields' offsets already count the buffer's own slot.
                        let inner = State {
                            set: state.set + u(element.slot_space()),
                            ..state
                        };
                        self.fields(etl, inner, path)
                    }
                    _ => Ok(()),
                }
            }
            KIND_STRUCT => self.fields(tl, state, path),
            KIND_ARRAY => self.array(var, tl, state, path, &name),
            KIND_RESOURCE | KIND_SAMPLER | KIND_TEXTURE_BUFFER | KIND_STORAGE_BUFFER => {
                let count = if state.array_kind == COUNT_FIXED {
                    state.array
                } else {
                    0
                };
                self.resource(var, tl, state, path, &name, count, state.array_kind);
                Ok(())
            }
            KIND_SCALAR | KIND_VECTOR | KIND_MATRIX => {
                if categories.contains(&CAT_SPECIALIZATION_CONSTANT) {
                    let variable = var.variable();
                    let default = variable.and_then(|v| {
                        if !v.has_default_value() {
                            return None;
                        }
                        v.default_value_int()
                            .map(|i| (i as u64, false))
                            .or_else(|| {
                                v.default_value_float()
                                    .map(|f| (f64::from(f).to_bits(), true))
                            })
                    });
                    self.spec_constants.push(SpecOut {
                        id: u(var.offset(CAT_SPECIALIZATION_CONSTANT)),
                        name: path.to_string(),
                        scalar_type: tl.ty().map_or(0, |t| t.scalar_type()),
                        default,
                    });
                }
                Ok(()) // ordinary data lives in the enclosing buffer's layout
            }
            KIND_GENERIC_TYPE_PARAMETER => {
                self.unspecialized_parameter(path, tl);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Notes a parameter at `path` whose type (`ParameterBlock<T>`, `ConstantBuffer<T>`,
    /// `uniform T`) is the global generic parameter `generic` left unspecialized.
    fn unspecialized_parameter(&mut self, path: &str, generic: TypeLayout<'a>) {
        let name = generic.ty().and_then(|t| t.name()).unwrap_or_default();
        self.unspecialized.push((path.to_string(), name));
    }

    /// Whether no type conformance of the program names `interface` (`--conformance
    /// TYPE:INTERFACE`). Slang counts only those: a struct the module declares as
    /// implementing the interface is not a conformance of the program until one is given,
    /// and reading the interface then stops code generation with E50100.
    pub(super) fn no_conformance(&self, interface: &str) -> bool {
        !self.conformances.iter().any(|(_, i)| i == interface)
    }

    /// The structs and enums the main module declares (in namespaces too) that implement
    /// `interface`: the types a `--conformance` or `--type-arg` could name. Types of imported
    /// modules are not listed (their declarations are not at hand).
    pub(super) fn implementations(&self, interface: &str) -> Vec<String> {
        let (Some(module), Some(ty)) = (
            self.module,
            self.program_layout.find_type_by_name(interface),
        ) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        let mut pending = vec![module];
        while let Some(decl) = pending.pop() {
            let kind = DeclKind::from_raw(decl.kind());
            if matches!(kind, DeclKind::Struct | DeclKind::Enum) {
                let implementation = decl
                    .as_type()
                    .filter(|&t: &Type<'a>| self.program_layout.is_sub_type(t, ty));
                if let Some(t) = implementation {
                    found.push(t.full_name().or_else(|| t.name()).unwrap_or_default());
                }
            }
            if matches!(
                kind,
                DeclKind::Module | DeclKind::Namespace | DeclKind::Struct
            ) {
                // Children in declaration order once popped.
                pending.extend(decl.children().into_iter().rev());
            }
        }
        found
    }

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
    fn interface_block_layout(
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
fn interface_block(path: &str, etl: TypeLayout<'_>) -> BakeError {
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

/// The refusal of an interface-typed block or value (`what`) at `path` whose interface no type
/// conformance of the program names, and no type argument specializes. Slang compiles such a
/// program while nothing reads it, and once code does, stops with E50100 ("No type
/// conformances are found for interface ..."): there is no type whose data or methods the
/// existential could hold, so no layout to state. `implementations` are the types the module
/// declares as implementing the interface, which the message offers.
pub(super) fn no_conformance(
    path: &str,
    what: &str,
    interface: &str,
    implementations: &[String],
) -> String {
    let offer = match implementations {
        [] => format!("declare a type that implements `{interface}` and name it"),
        [one] => format!("name `{one}`, which implements it,"),
        several => format!(
            "name one of `{}`, which implement it,",
            several.join("`, `")
        ),
    };
    format!(
        "`{path}` is an interface-typed {what} (`{interface}`), and the program has no type \
         conformance for `{interface}`: Slang has no type to lay out in it (code reading it \
         stops Slang with E50100, \"No type conformances are found for interface \
         '{interface}'\"; a type the module declares as implementing it is not one until it \
         is given); {offer} with --type-arg (the {what} then holds that type) or \
         --conformance TYPE:{interface}, or give the {what} a concrete type"
    )
}

/// `VkDescriptorType` raw value of a `SlangBindingType`, falling back on the type's kind for
/// binding types that name no descriptor of their own.
pub(super) fn descriptor_type(binding_type: u32, kind: u32) -> u32 {
    let fallback = match kind {
        KIND_SAMPLER => DescriptorKind::Sampler,
        KIND_CONSTANT_BUFFER => DescriptorKind::UniformBuffer,
        KIND_STORAGE_BUFFER => DescriptorKind::StorageBuffer,
        _ => DescriptorKind::SampledImage,
    };
    DescriptorKind::from_binding_type(BindingType::from_raw(binding_type))
        .unwrap_or(fallback)
        .to_raw()
}

/// The category a Vulkan descriptor slot of `tl` is reported under. Slang reports a resource
/// placed by a binding shift (`--vk-shift`, `slangc -fvk-<class>-shift`) under its HLSL
/// register class (`ShaderResource`, `UnorderedAccess`, `SamplerState`, `ConstantBuffer`) with
/// the shifted binding as its offset and the set as its space, instead of under
/// `DescriptorTableSlot`; the bake-time check against the SPIR-V confirms each place.
fn slot_category(tl: Option<TypeLayout<'_>>) -> u32 {
    let Some(categories) = tl.map(|tl| tl.categories()) else {
        return CAT_DESCRIPTOR_SLOT;
    };
    if categories.contains(&CAT_DESCRIPTOR_SLOT) {
        return CAT_DESCRIPTOR_SLOT;
    }
    [
        CAT_SHADER_RESOURCE,
        CAT_UNORDERED_ACCESS,
        CAT_SAMPLER_STATE,
        CAT_CONSTANT_BUFFER,
    ]
    .into_iter()
    .find(|c| categories.contains(c))
    .unwrap_or(CAT_DESCRIPTOR_SLOT)
}

/// A layout's Vulkan descriptor slots, read through [`slot_category`].
trait VulkanSlot {
    /// The binding offset.
    fn slot_offset(self) -> usize;
    /// The set offset.
    fn slot_space(self) -> usize;
}

impl VulkanSlot for VarLayout<'_> {
    fn slot_offset(self) -> usize {
        self.offset(slot_category(self.type_layout()))
    }

    fn slot_space(self) -> usize {
        self.space(slot_category(self.type_layout()))
    }
}

/// How many Vulkan descriptor slots a type layout takes, read through [`slot_category`].
trait VulkanSlotSize {
    /// The slot count.
    fn slot_size(self) -> usize;
}

impl VulkanSlotSize for TypeLayout<'_> {
    fn slot_size(self) -> usize {
        self.size(slot_category(Some(self)))
    }
}

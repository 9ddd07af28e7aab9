//! The reflection walk: each global and entry-point parameter followed down its
//! variable-layout tree to descriptor bindings, push-constant blocks, buffers and
//! specialization constants.

use super::*;
use buffers::{BufferOut, Target};
use slangpack_format::DeclKind;
use slangpack_slang::reflection::{Decl, Type, TypeLayout, VarLayout};

mod blocks;
mod resources;

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
                self.push_constant_block(tl, path);
                Ok(())
            }
            KIND_CONSTANT_BUFFER if categories.contains(&CAT_SHADER_RECORD) => {
                self.shader_record(tl, path);
                Ok(())
            }
            KIND_CONSTANT_BUFFER => self.constant_buffer(var, tl, parent, state, path),
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
                    self.spec_constant(var, tl, path);
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

    /// A push-constant block (`[[vk::push_constant]]`, `ConstantBuffer<T>` in the push
    /// constant category): its buffer layout and its range.
    fn push_constant_block(&mut self, tl: TypeLayout<'a>, path: &str) {
        let Some(etl) = tl.element_type_layout() else {
            return;
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
    }

    /// A shader-record block (`[[vk::shader_record]]`): not a descriptor, the data sits in
    /// the shader binding table's record.
    fn shader_record(&mut self, tl: TypeLayout<'a>, path: &str) {
        let Some(etl) = tl.element_type_layout() else {
            return;
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
    }

    /// A constant buffer: of a global generic parameter, of a parameter block, of an
    /// interface, or of data (a uniform buffer) and resources (bindings of their own after
    /// it).
    fn constant_buffer(
        &mut self,
        var: VarLayout<'a>,
        tl: TypeLayout<'a>,
        parent: State,
        state: State,
        path: &str,
    ) -> Result<(), BakeError> {
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

    /// A specialization constant: its id, type and default value.
    fn spec_constant(&mut self, var: VarLayout<'a>, tl: TypeLayout<'a>, path: &str) {
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

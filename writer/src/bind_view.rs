//! The bind view: from Slang's reflection of a linked program to what a Vulkan engine binds
//! with — absolute sets and bindings, descriptor types and counts, stage flags, push-constant
//! ranges, buffer member layouts, vertex inputs and specialization constants — checked against
//! the decorations of the SPIR-V Slang emitted.
//!
//! The walk follows each global (and `uniform` entry-point) parameter down its variable-layout
//! tree, accumulating offsets: a binding is the sum of the descriptor-slot offsets since the
//! innermost ParameterBlock, a set is the sum of the descriptor-slot spaces plus the
//! sub-element spaces of every ParameterBlock on the way. Slang never lists a ParameterBlock's
//! implicit uniform buffer as a descriptor range; the walk adds it at the block's container
//! offset (binding 0) whenever the block's element has ordinary data.

use crate::compile::CompiledProgram;
use crate::error::BakeError;
use crate::spirv;
use slangpack_format::bind::*;
use slangpack_format::{ReflectionBuilder, ABSENT};
use slangpack_slang::reflection::{EntryPoint, Program, TypeLayout, VarLayout};
use std::collections::BTreeMap;

// SlangParameterCategory values.
const CAT_VARYING_INPUT: u32 = 5;
const CAT_UNIFORM: u32 = 8;
const CAT_DESCRIPTOR_SLOT: u32 = 9;
const CAT_SPECIALIZATION_CONSTANT: u32 = 10;
const CAT_PUSH_CONSTANT: u32 = 11;
const CAT_REGISTER_SPACE: u32 = 12;
const CAT_SUB_ELEMENT_SPACE: u32 = 20;

// SlangTypeKind values.
const KIND_STRUCT: u32 = 1;
const KIND_ARRAY: u32 = 2;
const KIND_MATRIX: u32 = 3;
const KIND_VECTOR: u32 = 4;
const KIND_SCALAR: u32 = 5;
const KIND_CONSTANT_BUFFER: u32 = 6;
const KIND_RESOURCE: u32 = 7;
const KIND_SAMPLER: u32 = 8;
const KIND_TEXTURE_BUFFER: u32 = 9;
const KIND_STORAGE_BUFFER: u32 = 10;
const KIND_PARAMETER_BLOCK: u32 = 11;

// SlangBindingType values.
const BT_MUTABLE: u32 = 0x100;

/// `SLANG_UNBOUNDED_SIZE`.
const UNBOUNDED: usize = usize::MAX;

/// Computes the bind view of `program` and appends its tables to `builder`.
///
/// # Errors
/// [`BakeError::Input`] for layouts a Vulkan engine cannot bind (more than one push-constant
/// block), and [`BakeError::Slang`] when the computed bindings disagree with the SPIR-V.
pub fn build_bind_view(
    program: &CompiledProgram,
    key: &str,
    builder: &mut ReflectionBuilder,
) -> Result<(), BakeError> {
    let layout = program.layout()?;
    let program_layout = Program::new(layout);
    let mut walk = Walk {
        program_layout,
        bindings: Vec::new(),
        buffers: Vec::new(),
        push_constants: Vec::new(),
        spec_constants: Vec::new(),
    };
    if let Some(globals) = program_layout.global_params_var_layout() {
        walk.global_scope(globals)?;
    }
    let entry_points: Vec<EntryPoint<'_>> = (0..program_layout.entry_point_count())
        .filter_map(|i| program_layout.entry_point(i))
        .collect();
    for (index, ep) in entry_points.iter().enumerate() {
        walk.entry_point_parameters(index, *ep)?;
    }

    let stages: Vec<u32> = program
        .entry_points
        .iter()
        .map(|ep| stage_flag(ep.stage))
        .collect();
    let program_stages = stages.iter().fold(0, |a, b| a | b);
    for push in &mut walk.push_constants {
        push.stage_flags = match push.entry_point {
            Some(i) => stages.get(i).copied().unwrap_or(program_stages),
            None => program_stages,
        };
    }
    for (i, a) in walk.push_constants.iter().enumerate() {
        if let Some(b) = walk.push_constants[i + 1..]
            .iter()
            .find(|b| b.stage_flags & a.stage_flags != 0)
        {
            return Err(BakeError::Input(format!(
                "{key}: more than one push-constant block ({} and {}) for the same stage; \
                 Vulkan pipelines have one push-constant range per stage and Slang reports no \
                 byte offsets between blocks",
                a.name, b.name
            )));
        }
    }
    let mut vertex_inputs = vertex_inputs(&entry_points);
    for v in &mut vertex_inputs {
        if let Some(ep) = program.entry_points.get(v.entry_point as usize) {
            v.used = spirv::input_locations(&ep.spirv).contains(&v.location);
        }
    }

    // Stage usage from the compiled code's metadata.
    for b in &mut walk.bindings {
        let mut mask = 0u32;
        let mut flags = 0u32;
        for (i, stage) in stages.iter().enumerate() {
            let used = program
                .entry_point_uses(
                    i,
                    slang_category(CAT_DESCRIPTOR_SLOT),
                    b.set.into(),
                    b.binding.into(),
                )
                .unwrap_or(true);
            if used {
                if i < 32 {
                    mask |= 1 << i;
                }
                flags |= stage;
            }
        }
        b.entry_point_mask = mask;
        if flags == 0 {
            b.flags |= BINDING_UNUSED;
            flags = program_stages;
        }
        b.stage_flags = flags;
    }

    // Cross-check with the SPIR-V: every descriptor Slang emitted must be one we computed.
    let mut spirv_names: BTreeMap<(u32, u32), String> = BTreeMap::new();
    for ep in &program.entry_points {
        for var in spirv::descriptor_variables(&ep.spirv) {
            let Some(found) = walk
                .bindings
                .iter()
                .find(|b| b.set == var.set && b.binding == var.binding)
            else {
                return Err(BakeError::Slang(format!(
                    "{key}: entry point `{}` declares a descriptor `{}` at set {} binding {} that \
                     the reflection walk did not find; the bind view would be wrong",
                    ep.name, var.name, var.set, var.binding
                )));
            };
            let _ = found;
            if !var.name.is_empty() {
                spirv_names
                    .entry((var.set, var.binding))
                    .or_insert(var.name);
            }
        }
    }

    walk.bindings.sort_by_key(|b| (b.set, b.binding));
    if let Some(pair) = walk
        .bindings
        .windows(2)
        .find(|w| (w[0].set, w[0].binding) == (w[1].set, w[1].binding))
    {
        return Err(BakeError::Slang(format!(
            "{key}: `{}` and `{}` both map to set {} binding {}",
            pair[0].path, pair[1].path, pair[0].set, pair[0].binding
        )));
    }
    emit(
        builder,
        &walk,
        &spirv_names,
        program_stages,
        entry_points.len() as u32,
        &vertex_inputs,
    );
    Ok(())
}

fn slang_category(raw: u32) -> shader_slang::ParameterCategory {
    use shader_slang::ParameterCategory as C;
    match raw {
        CAT_PUSH_CONSTANT => C::PushConstantBuffer,
        CAT_UNIFORM => C::Uniform,
        _ => C::DescriptorTableSlot,
    }
}

/// `VkShaderStageFlagBits` of a raw `SlangStage`.
pub fn stage_flag(stage: u32) -> u32 {
    match stage {
        1 => 0x1,     // vertex
        2 => 0x2,     // hull: tessellation control
        3 => 0x4,     // domain: tessellation evaluation
        4 => 0x8,     // geometry
        5 => 0x10,    // fragment
        6 => 0x20,    // compute
        7 => 0x100,   // ray generation
        8 => 0x1000,  // intersection
        9 => 0x200,   // any hit
        10 => 0x400,  // closest hit
        11 => 0x800,  // miss
        12 => 0x2000, // callable
        13 => 0x80,   // mesh
        14 => 0x40,   // amplification: task
        _ => 0,
    }
}

/// Accumulated offsets on the way down a variable-layout tree.
#[derive(Clone, Copy, Debug, Default)]
struct State {
    set: u32,
    binding: u32,
    /// Multiplier from enclosing arrays of structs holding resources.
    array: u32,
}

struct BindingOut {
    name: String,
    path: String,
    set: u32,
    binding: u32,
    descriptor_type: u32,
    count: u32,
    count_kind: u32,
    image_format: u32,
    stage_flags: u32,
    entry_point_mask: u32,
    buffer: Option<usize>,
    flags: u32,
    shape: u32,
    access: u32,
}

impl BindingOut {
    /// A uniform buffer binding holding the buffer layout `buffer`.
    fn uniform_buffer(
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
            descriptor_type: 6,
            count,
            count_kind: COUNT_FIXED,
            image_format: 0,
            stage_flags: 0,
            entry_point_mask: 0,
            buffer,
            flags,
            shape: 0,
            access: 0,
        }
    }
}

struct MemberOut {
    path: String,
    name: String,
    parent: Option<usize>,
    rec: BufferMember,
    attributes: Vec<(String, String, u32)>,
}

struct BufferOut {
    name: String,
    kind: u32,
    set: u32,
    binding: u32,
    size: u32,
    alignment: u32,
    stride: u32,
    matrix_layout: u32,
    members: Vec<MemberOut>,
}

struct PushOut {
    name: String,
    size: u32,
    buffer: usize,
    /// The entry point whose `uniform` parameters form the block; `None` for a global block.
    entry_point: Option<usize>,
    stage_flags: u32,
}

struct SpecOut {
    id: u32,
    name: String,
    scalar_type: u32,
    default: Option<(u64, bool)>,
}

struct Walk<'a> {
    program_layout: Program<'a>,
    bindings: Vec<BindingOut>,
    buffers: Vec<BufferOut>,
    push_constants: Vec<PushOut>,
    spec_constants: Vec<SpecOut>,
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else if name.is_empty() {
        prefix.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn u(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(ABSENT)
}

impl<'a> Walk<'a> {
    /// The global scope: a struct of parameters, or a constant buffer wrapping them when
    /// there are global uniforms (the implicit global uniform buffer).
    fn global_scope(&mut self, globals: VarLayout<'a>) -> Result<(), BakeError> {
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
                    let binding_slot = globals.offset(CAT_DESCRIPTOR_SLOT)
                        + container.map_or(0, |c| c.offset(CAT_DESCRIPTOR_SLOT));
                    let set_slot = globals.space(CAT_DESCRIPTOR_SLOT)
                        + container.map_or(0, |c| c.space(CAT_DESCRIPTOR_SLOT));
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
    fn entry_point_parameters(
        &mut self,
        index: usize,
        ep: EntryPoint<'a>,
    ) -> Result<(), BakeError> {
        let ep_name = ep.name().unwrap_or_default();
        let wrapper = ep
            .var_layout()
            .and_then(|v| v.type_layout().map(|tl| (v, tl)))
            .filter(|(_, tl)| tl.kind() == KIND_CONSTANT_BUFFER);
        let Some((var, tl)) = wrapper else {
            for param in ep.parameters() {
                let name = param.variable().and_then(|v| v.name()).unwrap_or_default();
                self.parameter(param, State::default(), &name)?;
            }
            return Ok(());
        };
        let (Some(element), Some(etl)) = (tl.element_var_layout(), tl.element_type_layout()) else {
            return Ok(());
        };
        let size = etl.size(CAT_UNIFORM);
        if size > 0 {
            if tl.categories().contains(&CAT_PUSH_CONSTANT) {
                let buffer = self.buffer(&ep_name, BUFFER_PUSH_CONSTANT, etl, ABSENT, ABSENT, size);
                self.push_constants.push(PushOut {
                    name: ep_name.clone(),
                    size: u(size),
                    buffer,
                    entry_point: Some(index),
                    stage_flags: 0,
                });
            } else {
                let container = tl.container_var_layout();
                let set = u(var.space(CAT_DESCRIPTOR_SLOT)
                    + container.map_or(0, |c| c.space(CAT_DESCRIPTOR_SLOT)));
                let binding = u(var.offset(CAT_DESCRIPTOR_SLOT)
                    + container.map_or(0, |c| c.offset(CAT_DESCRIPTOR_SLOT)));
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
            set: u(var.space(CAT_DESCRIPTOR_SLOT) + element.space(CAT_DESCRIPTOR_SLOT)),
            binding: u(var.offset(CAT_DESCRIPTOR_SLOT) + element.offset(CAT_DESCRIPTOR_SLOT)),
            array: 1,
        };
        self.fields(etl, state, "")
    }

    /// Walks the fields of the struct type layout `tl`, each named `path.field`.
    fn fields(&mut self, tl: TypeLayout<'a>, state: State, path: &str) -> Result<(), BakeError> {
        for field in tl.fields() {
            let name = field.variable().and_then(|v| v.name()).unwrap_or_default();
            self.parameter(field, state, &join(path, &name))?;
        }
        Ok(())
    }

    /// One variable at `state` (offsets of its parents), named `path`.
    fn parameter(
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
        let state = State {
            set: parent.set + u(var.space(CAT_DESCRIPTOR_SLOT)) + u(var.offset(CAT_REGISTER_SPACE)),
            binding: parent.binding + u(var.offset(CAT_DESCRIPTOR_SLOT)),
            array: parent.array,
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
                    stage_flags: 0,
                });
                Ok(())
            }
            KIND_CONSTANT_BUFFER => {
                let etl = tl.element_type_layout();
                let buffer = etl.map(|etl| {
                    self.buffer(
                        path,
                        BUFFER_UNIFORM,
                        etl,
                        state.set,
                        state.binding,
                        etl.size(CAT_UNIFORM),
                    )
                });
                self.bindings.push(BindingOut::uniform_buffer(
                    path,
                    state.set,
                    state.binding,
                    state.array,
                    buffer,
                    0,
                ));
                Ok(())
            }
            KIND_STRUCT => self.fields(tl, state, path),
            KIND_ARRAY => self.array(var, tl, state, path, &name),
            KIND_RESOURCE | KIND_SAMPLER | KIND_TEXTURE_BUFFER | KIND_STORAGE_BUFFER => {
                self.resource(var, tl, state, path, &name, state.array, COUNT_FIXED);
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
            _ => Ok(()),
        }
    }

    fn parameter_block(
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
        };
        let (Some(element), Some(etl)) = (tl.element_var_layout(), tl.element_type_layout()) else {
            return Ok(());
        };
        if etl.size(CAT_UNIFORM) > 0 {
            let container = tl.container_var_layout();
            let binding = container.map_or(0, |c| u(c.offset(CAT_DESCRIPTOR_SLOT)));
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
            set: inner.set + u(element.space(CAT_DESCRIPTOR_SLOT)),
            binding: 0,
            array: 1,
        };

        match etl.kind() {
            KIND_STRUCT => self.fields(etl, inner, path),
            _ => self.parameter(element, inner, path),
        }
    }

    fn array(
        &mut self,
        var: VarLayout<'a>,
        tl: TypeLayout<'a>,
        state: State,
        path: &str,
        name: &str,
    ) -> Result<(), BakeError> {
        let count = tl.ty().map_or(0, |t| t.element_count(self.program_layout));
        let Some(element) = tl.element_type_layout() else {
            return Ok(());
        };
        let (count, kind) = match count {
            n if n == UNBOUNDED || n >= i32::MAX as usize => (0, COUNT_UNBOUNDED),
            0 => (0, COUNT_ZERO),
            n => (u(n).saturating_mul(state.array), COUNT_FIXED),
        };
        match element.kind() {
            KIND_RESOURCE | KIND_SAMPLER | KIND_TEXTURE_BUFFER | KIND_STORAGE_BUFFER
            | KIND_CONSTANT_BUFFER => {
                self.resource(var, tl, state, path, name, count, kind);
                Ok(())
            }
            KIND_STRUCT if element.size(CAT_DESCRIPTOR_SLOT) > 0 => {
                let inner = State {
                    array: if kind == COUNT_FIXED { count.max(1) } else { 1 },
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
    fn resource(
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
        let descriptor_type = descriptor_type(binding_type, leaf.kind());
        // A structured buffer's element is described like a buffer of its own.
        let element = (descriptor_type == 7 && leaf.kind() == KIND_RESOURCE)
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
            },
            shape: ty.map_or(0, |t| t.resource_shape()),
            access: ty.map_or(0, |t| t.resource_access()),
        });
    }

    /// Records the layout of a buffer whose contents have type layout `tl`.
    fn buffer(
        &mut self,
        name: &str,
        kind: u32,
        tl: TypeLayout<'a>,
        set: u32,
        binding: u32,
        size: usize,
    ) -> usize {
        let mut members = Vec::new();
        self.members(tl, 0, "", None, false, &mut members);
        self.buffers.push(BufferOut {
            name: name.to_string(),
            kind,
            set,
            binding,
            size: u(size),
            alignment: u(tl.alignment(CAT_UNIFORM).max(1) as usize),
            stride: u(size),
            matrix_layout: tl.matrix_layout(),
            members,
        });
        self.buffers.len() - 1
    }

    /// Flattens the ordinary-data members of `tl` (a struct, or a single value) in pre-order.
    fn members(
        &self,
        tl: TypeLayout<'a>,
        base: usize,
        prefix: &str,
        parent: Option<usize>,
        element_relative: bool,
        out: &mut Vec<MemberOut>,
    ) {
        if tl.kind() != KIND_STRUCT {
            return;
        }
        for field in tl.fields() {
            let Some(ftl) = field.type_layout() else {
                continue;
            };
            let size = ftl.size(CAT_UNIFORM);
            if size == 0 {
                continue; // resources occupy no bytes
            }
            let variable = field.variable();
            let name = variable.and_then(|v| v.name()).unwrap_or_default();
            let path = join(prefix, &name);
            let offset = base + field.offset(CAT_UNIFORM);
            let (array_count, array_stride, value_tl) = if ftl.kind() == KIND_ARRAY {
                let n = ftl.ty().map_or(0, |t| t.element_count(self.program_layout));
                let n = if n == UNBOUNDED || n >= i32::MAX as usize {
                    ARRAY_UNBOUNDED
                } else {
                    u(n)
                };
                (
                    n,
                    u(ftl.element_stride(CAT_UNIFORM)),
                    ftl.element_type_layout().unwrap_or(ftl),
                )
            } else {
                (0, 0, ftl)
            };
            let ty = value_tl.ty();
            let kind = value_tl.kind();
            let (rows, columns) = match kind {
                KIND_MATRIX | KIND_VECTOR | KIND_SCALAR => {
                    ty.map_or((1, 1), |t| (t.row_count().max(1), t.column_count().max(1)))
                }
                _ => (0, 0),
            };
            let matrix_layout = if kind == KIND_MATRIX {
                value_tl.matrix_layout()
            } else {
                0
            };
            let matrix_stride = if kind == KIND_MATRIX {
                let vectors = if matrix_layout == 1 { rows } else { columns };
                let stride = value_tl.element_stride(CAT_UNIFORM);
                if stride > 0 {
                    u(stride)
                } else {
                    u(value_tl.size(CAT_UNIFORM))
                        .checked_div(vectors)
                        .unwrap_or(0)
                }
            } else {
                0
            };
            let scalar_type = match kind {
                KIND_SCALAR | KIND_VECTOR | KIND_MATRIX => ty.map_or(0, |t| scalar_of(t)),
                _ => 0,
            };
            let mut flags = if element_relative {
                MEMBER_ELEMENT_RELATIVE
            } else {
                0
            };
            let mut default = 0u64;
            if let Some(v) = variable.filter(|v| v.has_default_value()) {
                if let Some(i) = v.default_value_int() {
                    flags |= MEMBER_HAS_DEFAULT;
                    default = i as u64;
                } else if let Some(f) = v.default_value_float() {
                    flags |= MEMBER_HAS_DEFAULT | MEMBER_DEFAULT_IS_FLOAT;
                    default = f64::from(f).to_bits();
                }
            }
            let attributes = variable
                .map(|v| {
                    v.user_attributes()
                        .into_iter()
                        .map(|a| {
                            let n = a.argument_count();
                            let args: Vec<String> = (0..n)
                                .map(|i| {
                                    a.argument_int(i)
                                        .map(|x| x.to_string())
                                        .or_else(|| a.argument_float(i).map(|x| x.to_string()))
                                        .unwrap_or_default()
                                })
                                .collect();
                            (a.name().unwrap_or_default(), args.join(", "), n)
                        })
                        .collect()
                })
                .unwrap_or_default();
            let index = out.len();
            out.push(MemberOut {
                path: path.clone(),
                name,
                parent,
                rec: BufferMember {
                    offset: u(offset),
                    size: u(size),
                    stride: u(ftl.stride(CAT_UNIFORM).max(size)),
                    alignment: u(ftl.alignment(CAT_UNIFORM).max(1) as usize),
                    type_kind: kind,
                    scalar_type,
                    rows,
                    columns,
                    matrix_layout,
                    matrix_stride,
                    array_count,
                    array_stride,
                    flags,
                    default_lo: default as u32,
                    default_hi: (default >> 32) as u32,
                    ..BufferMember::default()
                },
                attributes,
            });
            if kind == KIND_STRUCT {
                if array_count > 0 {
                    self.members(value_tl, 0, &format!("{path}[]"), Some(index), true, out);
                } else {
                    self.members(value_tl, offset, &path, Some(index), element_relative, out);
                }
            }
        }
    }
}

/// The scalar type of a scalar, vector or matrix type.
fn scalar_of(ty: slangpack_slang::reflection::Type<'_>) -> u32 {
    let direct = ty.scalar_type();
    if direct != 0 {
        return direct;
    }
    let mut t = ty.element_type();
    while let Some(e) = t {
        let s = e.scalar_type();
        if s != 0 {
            return s;
        }
        t = e.element_type();
    }
    0
}

/// `VkDescriptorType` raw value of a `SlangBindingType`.
fn descriptor_type(binding_type: u32, kind: u32) -> u32 {
    match binding_type {
        1 => 0,                         // sampler
        2 => 2,                         // texture: sampled image
        0x102 => 3,                     // mutable texture: storage image
        3 | 4 => 6,                     // constant buffer / parameter block: uniform buffer
        5 => 4,                         // typed buffer: uniform texel buffer
        0x105 => 5,                     // mutable typed buffer: storage texel buffer
        6 | 0x106 => 7,                 // raw / structured buffer: storage buffer
        7 => 1,                         // combined texture sampler
        8 => 10,                        // input render target: input attachment
        9 => 1_000_138_000,             // inline uniform block
        10 => 1_000_150_000,            // acceleration structure
        _ if kind == KIND_SAMPLER => 0, // fall back on the type
        _ if kind == KIND_CONSTANT_BUFFER => 6,
        _ if kind == KIND_STORAGE_BUFFER => 7,
        _ => 2,
    }
}

struct VertexOut {
    entry_point: u32,
    location: u32,
    location_count: u32,
    format: u32,
    scalar_type: u32,
    components: u32,
    semantic: String,
    semantic_index: u32,
    name: String,
    used: bool,
}

/// Vertex inputs of every vertex entry point: varying inputs with a location, system values
/// (`SV_*`) excluded, structs recursed with locations accumulating.
fn vertex_inputs(entry_points: &[EntryPoint<'_>]) -> Vec<VertexOut> {
    let mut out = Vec::new();
    for (index, ep) in entry_points.iter().enumerate() {
        if ep.stage() != 1 {
            continue;
        }
        for param in ep.parameters() {
            let name = param.variable().and_then(|v| v.name()).unwrap_or_default();
            collect_inputs(param, 0, &name, index as u32, &mut out);
        }
    }
    out.sort_by_key(|v| (v.entry_point, v.location));
    out
}

fn collect_inputs(var: VarLayout<'_>, base: u32, path: &str, ep: u32, out: &mut Vec<VertexOut>) {
    let Some(tl) = var.type_layout() else {
        return;
    };
    if !tl.categories().contains(&CAT_VARYING_INPUT) {
        return;
    }
    let location = base + u(var.offset(CAT_VARYING_INPUT));
    if tl.kind() == KIND_STRUCT {
        for field in tl.fields() {
            let fname = field.variable().and_then(|v| v.name()).unwrap_or_default();
            collect_inputs(field, location, &join(path, &fname), ep, out);
        }
        return;
    }
    let semantic = var.semantic_name().unwrap_or_default();
    if semantic.to_ascii_uppercase().starts_with("SV_") {
        return;
    }
    let ty = tl.ty();
    let (rows, columns) = ty.map_or((1, 1), |t| (t.row_count().max(1), t.column_count().max(1)));
    let scalar_type = ty.map_or(0, scalar_of);
    let (location_count, components) = if tl.kind() == KIND_MATRIX {
        (rows, columns)
    } else {
        (u(tl.size(CAT_VARYING_INPUT)).max(1), columns.max(1))
    };
    out.push(VertexOut {
        entry_point: ep,
        location,
        location_count,
        format: vertex_format(scalar_type, components),
        scalar_type,
        components,
        semantic: semantic.to_ascii_uppercase(),
        semantic_index: u(var.semantic_index()),
        name: path.to_string(),
        used: false,
    });
}

/// `VkFormat` for `components` values of a `SlangScalarType`; 0 when Vulkan has none.
pub fn vertex_format(scalar_type: u32, components: u32) -> u32 {
    let base = match scalar_type {
        8 => 100, // float32: R32_SFLOAT
        3 => 99,  // int32: R32_SINT
        4 => 98,  // uint32: R32_UINT
        9 => 112, // float64: R64_SFLOAT (step 3)
        7 => 76,  // float16: R16_SFLOAT (step 7)
        12 => 75, // int16: R16_SINT
        13 => 74, // uint16: R16_UINT
        _ => return 0,
    };
    if !(1..=4).contains(&components) {
        return 0;
    }
    let step = match scalar_type {
        8 | 3 | 4 | 9 => 3,
        _ => 7,
    };
    base + step * (components - 1)
}

fn emit(
    builder: &mut ReflectionBuilder,
    walk: &Walk<'_>,
    spirv_names: &BTreeMap<(u32, u32), String>,
    program_stages: u32,
    entry_point_count: u32,
    vertex_inputs: &[VertexOut],
) {
    let mut names: Vec<(String, u32)> = Vec::new();

    // Buffer layouts and members.
    let mut buffer_index = Vec::with_capacity(walk.buffers.len());
    let mut member_base = builder.table_len::<BufferMember>();
    let mut attribute_base = builder.table_len::<MemberAttribute>();
    for (i, buffer) in walk.buffers.iter().enumerate() {
        let first_member = member_base;
        for member in &buffer.members {
            let first_attribute = attribute_base;
            for (name, args, count) in &member.attributes {
                let rec = MemberAttribute {
                    name: builder.intern(name),
                    arguments: builder.intern(args),
                    argument_count: *count,
                };
                builder.push(rec);
                attribute_base += 1;
            }
            let rec = BufferMember {
                path: builder.intern(&member.path),
                name: builder.intern(&member.name),
                parent: member.parent.map_or(ABSENT, |p| first_member + p as u32),
                first_attribute,
                attribute_count: member.attributes.len() as u32,
                ..member.rec
            };
            let index = builder.push(rec);
            if !member.path.contains("[]") {
                names.push((
                    join(&buffer.name, &member.path),
                    name_target(NAME_MEMBER, index),
                ));
            }
        }
        member_base += buffer.members.len() as u32;
        let rec = BufferLayout {
            name: builder.intern(&buffer.name),
            kind: buffer.kind,
            set: buffer.set,
            binding: buffer.binding,
            size: buffer.size,
            alignment: buffer.alignment,
            stride: buffer.stride,
            first_member,
            member_count: buffer.members.len() as u32,
            matrix_layout: buffer.matrix_layout,
        };
        let index = builder.push(rec);
        buffer_index.push(index);
        if !buffer.name.is_empty() {
            names.push((buffer.name.clone(), name_target(NAME_BUFFER, index)));
        }
        debug_assert_eq!(i + 1, buffer_index.len());
    }

    // Bindings (already sorted by set, binding) and sets.
    let first_binding = builder.table_len::<DescriptorBinding>();
    let mut global_uniform = ABSENT;
    let mut sets: Vec<DescriptorSetLayout> = Vec::new();
    for (i, b) in walk.bindings.iter().enumerate() {
        let index = first_binding + i as u32;
        let spirv_name = spirv_names
            .get(&(b.set, b.binding))
            .map_or(b.path.as_str(), String::as_str);
        let rec = DescriptorBinding {
            name: builder.intern(&b.name),
            path: builder.intern(&b.path),
            spirv_name: builder.intern(spirv_name),
            set: b.set,
            binding: b.binding,
            descriptor_type: b.descriptor_type,
            count: b.count,
            count_kind: b.count_kind,
            image_format: b.image_format,
            stage_flags: b.stage_flags,
            entry_point_mask: b.entry_point_mask,
            buffer_layout: b.buffer.map_or(ABSENT, |x| buffer_index[x]),
            flags: b.flags,
            resource_shape: b.shape,
            resource_access: b.access,
            reserved: 0,
        };
        builder.push(rec);
        if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
            global_uniform = index;
        }
        if !b.path.is_empty() {
            names.push((b.path.clone(), name_target(NAME_BINDING, index)));
        }
        let unbounded = if b.count_kind == COUNT_UNBOUNDED {
            SET_HAS_UNBOUNDED
        } else {
            0
        };
        match sets.last_mut() {
            Some(set) if set.set == b.set => {
                set.binding_count += 1;
                set.flags |= unbounded;
            }
            _ => sets.push(DescriptorSetLayout {
                set: b.set,
                first_binding: index,
                binding_count: 1,
                flags: unbounded,
            }),
        }
    }
    let set_slot_count = sets.last().map_or(0, |s| s.set + 1);
    for set in sets {
        builder.push(set);
    }

    for push in &walk.push_constants {
        let rec = PushConstantRange {
            name: builder.intern(&push.name),
            offset: 0,
            size: push.size,
            stage_flags: push.stage_flags,
            buffer_layout: buffer_index[push.buffer],
            reserved: 0,
        };
        builder.push(rec);
    }

    for v in vertex_inputs {
        let rec = VertexInput {
            entry_point: v.entry_point,
            location: v.location,
            location_count: v.location_count,
            format: v.format,
            scalar_type: v.scalar_type,
            component_count: v.components,
            semantic_name: builder.intern(&v.semantic),
            semantic_index: v.semantic_index,
            name: builder.intern(&v.name),
            flags: if v.used { VERTEX_INPUT_USED } else { 0 },
        };
        builder.push(rec);
    }

    for s in &walk.spec_constants {
        let (bits, is_float) = s.default.unwrap_or((0, false));
        let rec = SpecializationConstant {
            id: s.id,
            name: builder.intern(&s.name),
            scalar_type: s.scalar_type,
            default_lo: bits as u32,
            default_hi: (bits >> 32) as u32,
            flags: u32::from(s.default.is_some()) | (u32::from(is_float) << 1),
        };
        builder.push(rec);
    }

    builder.push(BindSummary {
        set_slot_count,
        global_uniform_binding: global_uniform,
        program_stage_flags: program_stages,
        entry_point_count,
        ..BindSummary::default()
    });

    // The name index: open addressing, at most half full.
    names.sort();
    // The same path may name a binding and a buffer: keep one slot per (name, kind).
    names.dedup_by(|a, b| a.0 == b.0 && a.1 >> 28 == b.1 >> 28);
    let len = (names.len() * 2).next_power_of_two().max(1);
    let mut slots = vec![
        NameIndexSlot {
            hash_lo: 0,
            hash_hi: 0,
            target: ABSENT,
        };
        len
    ];
    for (name, target) in &names {
        let hash = xxhash_rust::xxh3::xxh3_64(name.as_bytes());
        let mut i = (hash as usize) & (len - 1);
        while slots[i].target != ABSENT {
            i = (i + 1) & (len - 1);
        }
        slots[i] = NameIndexSlot {
            hash_lo: hash as u32,
            hash_hi: (hash >> 32) as u32,
            target: *target,
        };
    }
    if !names.is_empty() {
        for slot in slots {
            builder.push(slot);
        }
    }
}

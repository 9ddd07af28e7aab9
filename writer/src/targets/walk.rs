//! The per-target layout walk: from Slang's program layout for one target to the slots of
//! every binding — WGSL group/binding and GLSL set/binding (category `DescriptorTableSlot`),
//! HLSL `b`/`t`/`u`/`s` registers in spaces, Metal buffer/texture/sampler indices and
//! argument-buffer ids — with the facts a WebGPU layout needs.
//!
//! Offsets accumulate down the variable-layout tree per parameter category; a ParameterBlock
//! opens a new space (group, set, register space) or, on Metal, an argument buffer whose
//! members are numbered by `MetalArgumentBufferElement`.

use crate::slang_ids::*;
use slangpack_format::targets::*;
use slangpack_format::{ResourceAccess, ResourceShape, Target, TargetBindingKind, ABSENT};
use slangpack_slang::reflection::{Program, TypeLayout, VarLayout};

/// The categories that give a binding a slot.
const SLOT_CATEGORIES: [u32; 6] = [
    CAT_CONSTANT_BUFFER,
    CAT_SHADER_RESOURCE,
    CAT_UNORDERED_ACCESS,
    CAT_SAMPLER_STATE,
    CAT_DESCRIPTOR_SLOT,
    CAT_METAL_ARGUMENT_BUFFER_ELEMENT,
];

/// One binding of a target, as the walk finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Dotted parameter path.
    pub path: String,
    /// Binding kind.
    pub kind: TargetBindingKind,
    /// Group / set / register space; for Metal the `[[buffer(n)]]` index of the argument
    /// buffer holding the binding, or absent at the top level.
    pub space: u32,
    /// Binding / register / attribute index.
    pub index: u32,
    /// Register class (`b`, `t`, `u`, `s`) or 0.
    pub register_class: u8,
    /// Array count, 0 unbounded, 1 when not an array.
    pub count: u32,
    /// `TARGET_*` flags.
    pub flags: u32,
    /// Smallest buffer size.
    pub min_binding_size: u32,
    /// Texture view dimension.
    pub view_dimension: u32,
    /// Texture sample type.
    pub sample_type: u32,
    /// Storage-texture image format.
    pub format: u32,
    /// A buffer's member layout on the target, from Slang's layout for it (HLSL and Metal
    /// only: WGSL and GLSL share the Vulkan view's).
    pub layout: Option<super::members::TargetLayoutOut>,
}

/// Per-category offsets and spaces accumulated from the root.
#[derive(Clone, Copy, Default)]
struct State {
    offset: [usize; 32],
    space: [usize; 32],
    /// Metal: the id of the argument buffer the walk is inside.
    argument_buffer: Option<usize>,
    /// Inside the element of an array of structs: the array's element count (0 unbounded),
    /// which each resource field's binding has (times its own).
    elements: Option<u32>,
}

impl State {
    fn enter(&self, var: VarLayout<'_>) -> State {
        let mut s = *self;
        for cat in SLOT_CATEGORIES {
            let c = cat as usize;
            s.offset[c] += var.offset(cat);
            s.space[c] += var.space(cat) + var.offset(CAT_REGISTER_SPACE);
        }
        s
    }
}

/// Walks `program` (the layout for `target`) and returns its slots.
pub(crate) fn walk(program: Program<'_>, target: Target) -> Vec<Slot> {
    let mut w = Walker {
        program,
        target,
        slots: Vec::new(),
    };
    if let Some(globals) = program.global_params_var_layout() {
        w.global_scope(globals);
    }
    for i in 0..program.entry_point_count() {
        if let Some(ep) = program.entry_point(i) {
            let name = ep.name().unwrap_or_default();
            match ep.var_layout() {
                Some(var) => w.parameter(var, State::default(), &name, true),
                None => {
                    for p in ep.parameters() {
                        let pname = p.variable().and_then(|v| v.name()).unwrap_or_default();
                        w.parameter(p, State::default(), &pname, false);
                    }
                }
            }
        }
    }
    w.slots
}

struct Walker<'a> {
    program: Program<'a>,
    target: Target,
    slots: Vec<Slot>,
}

fn join(prefix: &str, name: &str) -> String {
    match (prefix.is_empty(), name.is_empty()) {
        (true, _) => name.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}.{name}"),
    }
}

fn u(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(ABSENT)
}

impl<'a> Walker<'a> {
    /// The global scope: its fields start at slot 0 of space 0 (their offsets are
    /// absolute); the implicit global uniform buffer, when there are loose uniforms, sits at
    /// the scope's own offset plus its container's.
    fn global_scope(&mut self, globals: VarLayout<'a>) {
        let Some(tl) = globals.type_layout() else {
            return;
        };
        if tl.kind() == KIND_CONSTANT_BUFFER {
            if let Some(etl) = tl.element_type_layout() {
                if etl.size(CAT_UNIFORM) > 0 {
                    let mut s = State::default().enter(globals);
                    if let Some(c) = tl.container_var_layout() {
                        s = s.enter(c);
                    }
                    self.uniform_buffer("", tl, etl, s);
                }
                self.fields(etl, State::default(), "");
            }
            return;
        }
        self.fields(tl, State::default(), "");
    }

    fn fields(&mut self, tl: TypeLayout<'a>, state: State, path: &str) {
        for field in tl.fields() {
            let name = field.variable().and_then(|v| v.name()).unwrap_or_default();
            self.parameter(field, state, &join(path, &name), false);
        }
    }

    /// A variable at `parent`; `entry_wrapper` marks an entry point's parameter wrapper
    /// (a constant buffer or push-constant block of its uniforms, or a plain struct).
    fn parameter(&mut self, var: VarLayout<'a>, parent: State, path: &str, entry_wrapper: bool) {
        let Some(tl) = var.type_layout() else {
            return;
        };
        let categories = tl.categories();
        if !categories.is_empty()
            && categories
                .iter()
                .all(|&c| c == CAT_VARYING_INPUT || c == CAT_VARYING_OUTPUT)
        {
            return;
        }
        let state = parent.enter(var);
        match tl.kind() {
            KIND_PARAMETER_BLOCK => self.parameter_block(var, tl, parent, path),
            KIND_CONSTANT_BUFFER => {
                let Some(etl) = tl.element_type_layout() else {
                    return;
                };
                if let (KIND_PARAMETER_BLOCK, Some(element)) = (etl.kind(), tl.element_var_layout())
                {
                    // `ConstantBuffer<ParameterBlock<T>>` is the parameter block alone, in
                    // the space the constant buffer's sub-element offset gives (as in the
                    // Vulkan bind view).
                    let mut outer = state;
                    for cat in SLOT_CATEGORIES {
                        outer.space[cat as usize] += var.offset(CAT_SUB_ELEMENT_SPACE);
                    }
                    self.parameter_block(element, etl, outer, path);
                    return;
                }
                if etl.size(CAT_UNIFORM) > 0 {
                    let mut s = state;
                    if entry_wrapper {
                        if let Some(c) = tl.container_var_layout() {
                            s = s.enter(c);
                        }
                    }
                    self.uniform_buffer(path, tl, etl, s);
                }
                if entry_wrapper {
                    // Named `<entry point>.<parameter>`, as in the Vulkan bind view.
                    // Field offsets already count the buffer's own slot (Metal's
                    // `[[buffer(0)]]` of the block, then the resources): only the element's
                    // space is added, as in a parameter block.
                    let mut inner = state;
                    if let Some(e) = tl.element_var_layout() {
                        for cat in SLOT_CATEGORIES {
                            inner.space[cat as usize] += e.space(cat);
                        }
                    }
                    self.fields(etl, inner, path);
                } else if SLOT_CATEGORIES.iter().any(|&c| etl.size(c) > 0) {
                    // Resources inside a constant buffer (`cbuffer U { Texture2D t; float k; }`)
                    // are slots of their own; their offsets already count the buffer's.
                    self.fields(etl, state, path);
                }
            }
            KIND_STRUCT => self.fields(tl, state, path),
            KIND_ARRAY => self.array(
                tl,
                state,
                path,
                var.image_format(),
                var.offset(CAT_SUB_ELEMENT_SPACE),
            ),
            KIND_RESOURCE | KIND_SAMPLER | KIND_TEXTURE_BUFFER | KIND_STORAGE_BUFFER => {
                self.resource(tl, state, path, 1, var.image_format());
            }
            _ => {}
        }
    }

    fn parameter_block(
        &mut self,
        var: VarLayout<'a>,
        tl: TypeLayout<'a>,
        parent: State,
        path: &str,
    ) {
        let (Some(element), Some(etl)) = (tl.element_var_layout(), tl.element_type_layout()) else {
            return;
        };
        if self.target == Target::Metal {
            // An argument buffer: at a [[buffer(n)]] of the entry point, or a member of the
            // enclosing argument buffer. Its own id (the `space` of its members) counts the
            // argument buffers in walk order.
            let state = parent.enter(var);
            let id = self
                .slots
                .iter()
                .filter(|s| s.kind == TargetBindingKind::ArgumentBuffer)
                .count();
            let (space, index, class) = self.place(state, &[CAT_CONSTANT_BUFFER]);
            self.push(Slot {
                path: path.to_string(),
                kind: TargetBindingKind::ArgumentBuffer,
                space,
                index,
                register_class: class,
                count: 1,
                flags: 0,
                min_binding_size: u(etl.size(CAT_UNIFORM)),
                view_dimension: 0,
                sample_type: 0,
                format: u(id),
                // Slang's Metal layout of an argument buffer counts `[[id(n)]]`s, not bytes:
                // no member layout of its uniform data comes from it.
                layout: None,
            });
            let inner = State {
                argument_buffer: Some(id),
                ..State::default()
            }
            .enter(element);
            self.fields(etl, inner, path);
            return;
        }
        // A block opens a space of its own (a Vulkan/WGSL set or group, an HLSL register
        // space) where the target has them; otherwise (HLSL without spaces) its slots follow
        // the enclosing scope's, like a constant buffer's.
        let categories = tl.categories();
        let opens_space =
            categories.contains(&CAT_SUB_ELEMENT_SPACE) || categories.contains(&CAT_REGISTER_SPACE);
        let mut state = parent.enter(var);
        if opens_space {
            let space = parent.space[CAT_DESCRIPTOR_SLOT as usize]
                + var.offset(CAT_SUB_ELEMENT_SPACE)
                + var.offset(CAT_REGISTER_SPACE)
                + var.space(CAT_SUB_ELEMENT_SPACE);
            for cat in SLOT_CATEGORIES {
                state.offset[cat as usize] = 0;
                state.space[cat as usize] = space;
            }
        }
        if etl.size(CAT_UNIFORM) > 0 {
            let s = tl.container_var_layout().map_or(state, |c| state.enter(c));
            self.uniform_buffer(path, tl, etl, s);
        }
        // Field offsets inside the element already count the implicit buffer's slot; only
        // the element's space is added.
        let mut inner = state;
        for cat in SLOT_CATEGORIES {
            inner.space[cat as usize] += element.space(cat);
        }
        match etl.kind() {
            KIND_STRUCT => self.fields(etl, inner, path),
            _ => self.parameter(element, inner, path, false),
        }
    }

    /// An array at `state`; `sub_space` is the variable's `SubElementRegisterSpace` offset
    /// (the first register space an unbounded array of structs takes).
    fn array(
        &mut self,
        tl: TypeLayout<'a>,
        state: State,
        path: &str,
        format: u32,
        sub_space: usize,
    ) {
        let Some(element) = tl.element_type_layout() else {
            return;
        };
        let count = tl
            .ty()
            .map_or(Some(0), |t| t.element_count(self.program))
            .unwrap_or(0);
        let count = if count == usize::MAX || count >= i32::MAX as usize {
            0
        } else {
            u(count)
        };
        match element.kind() {
            KIND_RESOURCE | KIND_SAMPLER | KIND_TEXTURE_BUFFER | KIND_STORAGE_BUFFER
            | KIND_CONSTANT_BUFFER => self.resource(tl, state, path, count, format),
            KIND_STRUCT => {
                let mut state = state;
                state.elements = Some(match state.elements {
                    Some(outer) if outer == 0 || count == 0 => 0,
                    Some(outer) => outer.saturating_mul(count),
                    None => count,
                });
                // Arrays of structs of resources: each field's slots start at the array's.
                // Where an unbounded one takes register spaces of its own (HLSL: one per
                // resource field, `materials.albedo` at `t0, space1`), its fields' slots start
                // at register 0 of the array's first space.
                if !tl.categories().contains(&CAT_SUB_ELEMENT_SPACE) {
                    self.fields(element, state, path);
                    return;
                }
                for cat in SLOT_CATEGORIES {
                    state.space[cat as usize] += sub_space;
                    state.offset[cat as usize] = 0;
                }
                for field in element.fields() {
                    // A field's space there is reported both as its binding space and as its
                    // register-space offset: counted once.
                    let mut at = state;
                    for cat in SLOT_CATEGORIES {
                        let c = cat as usize;
                        at.space[c] = at.space[c].saturating_sub(field.offset(CAT_REGISTER_SPACE));
                    }
                    let name = field.variable().and_then(|v| v.name()).unwrap_or_default();
                    self.parameter(field, at, &join(path, &name), false);
                }
            }
            _ => {}
        }
    }

    /// The implicit or explicit uniform buffer of `tl` (a constant buffer, parameter block
    /// or the global scope) whose element is `etl`, at `state`.
    fn uniform_buffer(
        &mut self,
        path: &str,
        tl: TypeLayout<'a>,
        etl: TypeLayout<'a>,
        state: State,
    ) {
        let categories = tl.categories();
        let size = u(etl.size(CAT_UNIFORM));
        let layout = self.own_layout(etl, None);
        // An entry point's push-constant block that also gathers resource parameters has
        // their descriptor slots among its categories; it is still a push-constant block.
        if categories.contains(&CAT_PUSH_CONSTANT)
            && !categories
                .iter()
                .any(|c| SLOT_CATEGORIES.contains(c) && *c != CAT_DESCRIPTOR_SLOT)
        {
            self.push(Slot {
                path: path.to_string(),
                kind: TargetBindingKind::PushConstants,
                space: ABSENT,
                index: ABSENT,
                register_class: 0,
                count: 1,
                flags: 0,
                min_binding_size: size,
                view_dimension: 0,
                sample_type: 0,
                format: 0,
                layout,
            });
            return;
        }
        let (space, index, class) = self.place(state, &[CAT_CONSTANT_BUFFER]);
        self.push(Slot {
            path: path.to_string(),
            kind: TargetBindingKind::UniformBuffer,
            space,
            index,
            register_class: class,
            count: 1,
            flags: 0,
            min_binding_size: size,
            view_dimension: 0,
            sample_type: 0,
            format: 0,
            layout,
        });
    }

    /// Where a binding of register category `cats` sits: (space, index, register class).
    fn place(&self, state: State, cats: &[u32]) -> (u32, u32, u8) {
        if let Some(ab) = state.argument_buffer {
            let c = CAT_METAL_ARGUMENT_BUFFER_ELEMENT as usize;
            return (u(ab), u(state.offset[c]), 0);
        }
        match self.target {
            Target::Wgsl | Target::Glsl => {
                let c = CAT_DESCRIPTOR_SLOT as usize;
                (u(state.space[c]), u(state.offset[c]), 0)
            }
            Target::Metal => {
                let cat = cats.first().copied().unwrap_or(CAT_CONSTANT_BUFFER);
                let class = match cat {
                    CAT_SHADER_RESOURCE => b't',
                    CAT_SAMPLER_STATE => b's',
                    _ => b'b',
                };
                (ABSENT, u(state.offset[cat as usize]), class)
            }
            _ => {
                let cat = cats.first().copied().unwrap_or(CAT_CONSTANT_BUFFER);
                let class = match cat {
                    CAT_SHADER_RESOURCE => b't',
                    CAT_UNORDERED_ACCESS => b'u',
                    CAT_SAMPLER_STATE => b's',
                    _ => b'b',
                };
                (
                    u(state.space[cat as usize]),
                    u(state.offset[cat as usize]),
                    class,
                )
            }
        }
    }

    /// A resource (or array of them) of type layout `tl`; `format` is the variable's image
    /// format (Slang's `getBindingRangeImageFormat` crashes on some storage textures, so the
    /// variable's is used, as the Vulkan walk does).
    fn resource(&mut self, tl: TypeLayout<'a>, state: State, path: &str, count: u32, format: u32) {
        let count = match state.elements {
            None => count,
            Some(n) if n == 0 || count == 0 => 0,
            Some(n) => n.saturating_mul(count),
        };
        let leaf = if tl.kind() == KIND_ARRAY {
            tl.element_type_layout().unwrap_or(tl)
        } else {
            tl
        };
        let categories = leaf.categories();
        let ty = leaf.ty();
        let shape = ty.map_or(0, |t| t.resource_shape());
        let access = ResourceAccess::from_raw(ty.map_or(0, |t| t.resource_access()));
        let base = ResourceShape::base(shape);
        let binding_type = if leaf.binding_range_count() > 0 {
            leaf.binding_range_type(0)
        } else {
            0
        };
        let type_name = ty.and_then(|t| t.name()).unwrap_or_default();
        let cat_of = |wanted: u32| {
            if categories.contains(&wanted) {
                wanted
            } else {
                categories
                    .iter()
                    .copied()
                    .find(|c| SLOT_CATEGORIES.contains(c))
                    .unwrap_or(wanted)
            }
        };
        let mut slot = Slot {
            path: path.to_string(),
            kind: TargetBindingKind::Texture,
            space: 0,
            index: 0,
            register_class: 0,
            count,
            flags: 0,
            min_binding_size: 0,
            view_dimension: 0,
            sample_type: 0,
            format: 0,
            layout: None,
        };
        let writable = !matches!(access, ResourceAccess::Read | ResourceAccess::None);
        let cat = match leaf.kind() {
            KIND_SAMPLER => {
                slot.kind = TargetBindingKind::Sampler;
                if type_name.contains("Comparison") {
                    slot.flags |= TARGET_COMPARISON;
                }
                cat_of(CAT_SAMPLER_STATE)
            }
            KIND_CONSTANT_BUFFER => {
                slot.kind = TargetBindingKind::UniformBuffer;
                slot.min_binding_size = leaf
                    .element_type_layout()
                    .map_or(0, |e| u(e.size(CAT_UNIFORM)));
                slot.layout = leaf
                    .element_type_layout()
                    .and_then(|e| self.own_layout(e, None));
                cat_of(CAT_CONSTANT_BUFFER)
            }
            _ if matches!(
                base,
                ResourceShape::StructuredBuffer | ResourceShape::ByteAddressBuffer
            ) || leaf.kind() == KIND_STORAGE_BUFFER =>
            {
                self.storage_buffer(leaf, base, writable, &mut slot);
                cat_of(if writable {
                    CAT_UNORDERED_ACCESS
                } else {
                    CAT_SHADER_RESOURCE
                })
            }
            _ => {
                texture(leaf, access, format, &mut slot);
                cat_of(if writable {
                    CAT_UNORDERED_ACCESS
                } else {
                    CAT_SHADER_RESOURCE
                })
            }
        };
        let (space, index, class) = self.place(state, &[cat]);
        slot.space = space;
        slot.index = index;
        slot.register_class = class;
        if binding_type == BT_COMBINED_TEXTURE_SAMPLER && self.target != Target::Glsl {
            // Targets without combined texture-samplers split them: the texture at the
            // binding, the sampler beside it (Slang's layout for WGSL, HLSL and Metal).
            let (s_space, s_index, s_class) = self.place(state, &[cat_of(CAT_SAMPLER_STATE)]);
            let sampler = Slot {
                kind: TargetBindingKind::Sampler,
                space: s_space,
                index: if s_class == 0 { s_index + 1 } else { s_index },
                register_class: s_class,
                flags: 0,
                view_dimension: 0,
                sample_type: 0,
                ..slot.clone()
            };
            self.push(slot);
            self.push(sampler);
            return;
        }
        self.push(slot);
    }

    /// A storage buffer's facts (structured or byte-address): read-only or writable, its
    /// element's layout on the target, its smallest size.
    fn storage_buffer(
        &self,
        leaf: TypeLayout<'a>,
        base: ResourceShape,
        writable: bool,
        slot: &mut Slot,
    ) {
        slot.kind = TargetBindingKind::StorageBuffer;
        slot.flags |= if writable {
            TARGET_WRITE
        } else {
            TARGET_READ_ONLY
        };
        if base == ResourceShape::StructuredBuffer {
            slot.layout = leaf.element_type_layout().and_then(|e| {
                let stride = leaf
                    .element_stride(CAT_UNIFORM)
                    .max(e.stride(CAT_UNIFORM))
                    .max(e.size(CAT_UNIFORM));
                self.own_layout(e, Some(u(stride)))
            });
        }
        slot.min_binding_size = match base {
            ResourceShape::ByteAddressBuffer => 4,
            _ => leaf.element_type_layout().map_or(0, |e| {
                u(leaf
                    .element_stride(CAT_UNIFORM)
                    .max(e.stride(CAT_UNIFORM))
                    .max(e.size(CAT_UNIFORM)))
            }),
        };
    }

    /// The member layout on the target of a buffer whose element is `etl`, for targets
    /// whose layout rules are not Vulkan's (HLSL, Metal); `None` on the others.
    fn own_layout(
        &self,
        etl: TypeLayout<'a>,
        stride: Option<u32>,
    ) -> Option<super::members::TargetLayoutOut> {
        if self.target.shares_vulkan_member_layout() {
            return None;
        }
        Some(super::members::layout(etl, stride))
    }

    fn push(&mut self, slot: Slot) {
        self.slots.push(slot);
    }
}

/// WebGPU's view dimension of a Slang resource shape.
fn view_dimension(shape: u32) -> u32 {
    let array = shape & ResourceShape::ARRAY_FLAG != 0;
    match (ResourceShape::base(shape), array) {
        (ResourceShape::Texture1D, _) => view_dimension::D1,
        (ResourceShape::Texture2D, false) => view_dimension::D2,
        (ResourceShape::Texture2D, true) => view_dimension::D2_ARRAY,
        (ResourceShape::Texture3D, _) => view_dimension::D3,
        (ResourceShape::TextureCube, false) => view_dimension::CUBE,
        (ResourceShape::TextureCube, true) => view_dimension::CUBE_ARRAY,
        _ => view_dimension::NONE,
    }
}

/// A texture's facts: view dimension, multisampling, and either a storage texture's format
/// and access or a sampled texture's sample type.
fn texture(leaf: TypeLayout<'_>, access: ResourceAccess, format: u32, slot: &mut Slot) {
    let ty = leaf.ty();
    let shape = ty.map_or(0, |t| t.resource_shape());
    slot.view_dimension = view_dimension(shape);
    if shape & ResourceShape::MULTISAMPLE_FLAG != 0 {
        slot.flags |= TARGET_MULTISAMPLED;
    }
    if !matches!(access, ResourceAccess::Read | ResourceAccess::None) {
        slot.kind = TargetBindingKind::StorageTexture;
        slot.format = format;
        slot.flags |= if access == ResourceAccess::Write {
            0
        } else {
            TARGET_WRITE
        };
    } else {
        slot.sample_type = if shape & ResourceShape::SHADOW_FLAG != 0 {
            sample_type::DEPTH
        } else {
            match ty.and_then(|t| t.resource_result_type()).map(scalar_of) {
                Some(SCALAR_INT32 | SCALAR_INT64) => sample_type::SINT,
                Some(SCALAR_UINT32 | SCALAR_UINT64) => sample_type::UINT,
                _ => sample_type::FLOAT,
            }
        };
    }
}

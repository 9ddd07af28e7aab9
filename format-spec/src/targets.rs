//! The bind views of targets other than SPIR-V: where each binding sits in a target's code
//! (WGSL group/binding, GLSL set/binding, HLSL register class/index/space, Metal
//! buffer/texture/sampler indices and argument-buffer ids), with the facts a WebGPU bind group
//! layout needs. Stored as one table of a reflection blob ([`crate::TableKind::TargetBindings`]),
//! checked by the writer against the emitted code of each target.

use crate::records::record;

/// [`TargetBinding::flags`]: the shader only reads the resource (a read-only storage buffer
/// or storage texture).
pub const TARGET_READ_ONLY: u32 = 1;
/// [`TargetBinding::flags`]: a multisampled texture.
pub const TARGET_MULTISAMPLED: u32 = 2;
/// [`TargetBinding::flags`]: a comparison sampler (`SamplerComparisonState`), or a depth
/// texture sampled with one.
pub const TARGET_COMPARISON: u32 = 4;
/// [`TargetBinding::flags`]: the target's code does not declare the binding (Slang dropped it
/// as unused); the slot is still reserved for it.
pub const TARGET_UNUSED: u32 = 8;
/// [`TargetBinding::flags`]: the shader writes the resource (a read-write storage buffer or
/// storage texture).
pub const TARGET_WRITE: u32 = 16;

/// [`TargetBinding::view_dimension`] values, in WebGPU's terms.
pub mod view_dimension {
    /// Not a texture.
    pub const NONE: u32 = 0;
    /// `1d`.
    pub const D1: u32 = 1;
    /// `2d`.
    pub const D2: u32 = 2;
    /// `2d-array`.
    pub const D2_ARRAY: u32 = 3;
    /// `cube`.
    pub const CUBE: u32 = 4;
    /// `cube-array`.
    pub const CUBE_ARRAY: u32 = 5;
    /// `3d`.
    pub const D3: u32 = 6;
}

/// [`TargetBinding::sample_type`] values, in WebGPU's terms.
pub mod sample_type {
    /// Not a sampled texture.
    pub const NONE: u32 = 0;
    /// `float` (filterable or not: the package cannot know; see the reader's wgpu feature).
    pub const FLOAT: u32 = 1;
    /// `sint`.
    pub const SINT: u32 = 2;
    /// `uint`.
    pub const UINT: u32 = 3;
    /// `depth`.
    pub const DEPTH: u32 = 4;
}

record! {
    /// One binding of one target's code. For every target, each binding of the Vulkan bind
    /// view that the target can express has one record, plus the target's own (a WGSL
    /// uniform buffer standing in for push constants, a Metal argument buffer).
    pub struct TargetBinding [56] {
        /// [`crate::Target`] raw value.
        pub target: u32,
        /// Dotted path of the parameter (as [`crate::bind::DescriptorBinding::path`]; a
        /// push-constant block's or argument buffer's parameter name). String index.
        #[refs(string)]
        pub path: u32,
        /// Name of the variable in the target's code, or absent when the code does not
        /// declare it. String index.
        #[refs(string)]
        pub code_name: u32,
        /// The Vulkan bind view's binding of the same parameter (index into descriptor
        /// bindings), or absent (push constants, argument buffers).
        #[refs(index DescriptorBindings)]
        pub binding: u32,
        /// [`crate::TargetBindingKind`] raw value.
        pub kind: u32,
        /// WGSL group, GLSL set, HLSL register space; for Metal, the id of the binding's
        /// argument buffer (the `format` field of its `ArgumentBuffer` record) or absent at the
        /// top level.
        pub space: u32,
        /// WGSL binding, GLSL binding, HLSL register number, Metal `[[buffer/texture/sampler(n)]]`
        /// index (`[[color(n)]]`: an input attachment's color attachment), or `[[id(n)]]` inside
        /// an argument buffer; absent for push constants.
        pub index: u32,
        /// Register class as an ASCII byte: HLSL `b`, `t`, `u`, `s`; Metal `b` (buffer), `t`
        /// (texture), `s` (sampler), `c` (an input attachment, read by framebuffer fetch from
        /// color attachment `index`: nothing to bind); 0 for WGSL and GLSL.
        pub register_class: u32,
        /// Array element count (1 when not an array), 0 for an unbounded array.
        pub count: u32,
        /// `TARGET_*` flags.
        pub flags: u32,
        /// Smallest buffer size in bytes the binding accepts (a uniform buffer's size, a
        /// storage buffer's fixed part or one element), 0 when not a buffer.
        pub min_binding_size: u32,
        /// Texture view dimension ([`view_dimension`]), 0 when not a texture.
        pub view_dimension: u32,
        /// Texture sample type ([`sample_type`]), 0 when not a sampled texture.
        pub sample_type: u32,
        /// Storage-texture format (`SlangImageFormat` raw value), 0 when none.
        pub format: u32,
    }
}

record! {
    /// The member layout of one buffer of one target's code (table kind 34, since 1.4): an
    /// HLSL constant buffer (a push-constant block turned constant buffer included) or
    /// structured buffer's element, a Metal buffer's struct, as that target's code lays it
    /// out. Its members ([`TargetMember`]) parallel the Vulkan bind view's members of
    /// `buffer_layout` one for one, in the same pre-order, so paths, types and the name index
    /// are the Vulkan view's, and only the numbers are the target's.
    pub struct TargetBuffer [32] {
        /// The target binding whose buffer this is (index into target bindings; never
        /// absent).
        #[refs(index TargetBindings)]
        pub target_binding: u32,
        /// The Vulkan bind view's buffer layout of the same buffer (index into buffer
        /// layouts; never absent), whose members `first_member..` parallel.
        #[refs(index BufferLayouts)]
        pub buffer_layout: u32,
        /// Size in bytes on the target (of one element, for a structured buffer).
        pub size: u32,
        /// Alignment in bytes on the target.
        pub alignment: u32,
        /// Bytes between a structured buffer's elements, else equal to `size`.
        pub stride: u32,
        /// First member (index into target members).
        #[refs(range TargetMembers, member_count)]
        pub first_member: u32,
        /// Number of members: the Vulkan layout's `member_count`.
        pub member_count: u32,
        /// `SlangMatrixLayoutMode` raw value the buffer was laid out with on the target.
        pub matrix_layout: u32,
    }
}

record! {
    /// One member of a [`TargetBuffer`] (table kind 35, since 1.4): the numbers of the
    /// Vulkan bind view's member at the same position, as the target's code lays it out.
    pub struct TargetMember [20] {
        /// Byte offset from the start of the buffer (element-relative where the Vulkan
        /// member is, [`crate::bind::MEMBER_ELEMENT_RELATIVE`]).
        pub offset: u32,
        /// Size in bytes of the data on the target (a Metal `float3` is 16).
        pub size: u32,
        /// Bytes between array elements, 0 when not an array.
        pub array_stride: u32,
        /// Bytes between consecutive rows (row-major) or columns (column-major) of a matrix,
        /// 0 when not a matrix.
        pub matrix_stride: u32,
        /// `SlangMatrixLayoutMode` raw value for matrices on the target (1 row-major, 2
        /// column-major), 0 when not a matrix.
        pub matrix_layout: u32,
    }
}

/// [`ArgumentBufferMember::flags`]: the code states the member's `[[id(n)]]`; without it,
/// `id` is the index Metal assigns implicitly (each member the ids of the ones before it).
pub const ARGUMENT_ID_EXPLICIT: u32 = 1;
/// [`ArgumentBufferMember::flags`]: the member lies inside an array element (its path has
/// `[]`): its offset is from the start of that element.
pub const ARGUMENT_ELEMENT_RELATIVE: u32 = 2;

record! {
    /// The struct of one Metal argument buffer (table kind 36, since 1.5): a ParameterBlock
    /// as Slang's Metal code declares it, a tier-2 argument buffer whose buffers are 8-byte
    /// GPU addresses, whose textures and samplers are 8-byte `MTLResourceID`s and whose plain
    /// data follows Metal's layout rules. Its members ([`ArgumentBufferMember`]) are every
    /// member of the struct, nested structs and arrays included, in pre-order.
    pub struct ArgumentBuffer [20] {
        /// The argument buffer's target binding (index into target bindings; a Metal
        /// binding of kind `ArgumentBuffer`).
        #[refs(index TargetBindings)]
        pub target_binding: u32,
        /// Size in bytes of the struct (the bytes to allocate per argument buffer).
        pub size: u32,
        /// Alignment in bytes of the struct.
        pub alignment: u32,
        /// First member (index into argument-buffer members).
        #[refs(range ArgumentBufferMembers, member_count)]
        pub first_member: u32,
        /// Number of members.
        pub member_count: u32,
    }
}

record! {
    /// One member of an [`ArgumentBuffer`]'s struct (table kind 37, since 1.5).
    pub struct ArgumentBufferMember [40] {
        /// Dotted path from the argument buffer (`detail.map`, `taps[].offset`: `[]` for an
        /// array element's members), Slang's names without their `_N` suffixes. String index.
        #[refs(string)]
        pub path: u32,
        /// [`crate::ArgumentMemberKind`] raw value.
        pub kind: u32,
        /// Byte offset from the start of the struct (from the start of the array element when
        /// `flags` has [`ARGUMENT_ELEMENT_RELATIVE`]).
        pub offset: u32,
        /// Size in bytes (an array's: all its elements).
        pub size: u32,
        /// Alignment in bytes.
        pub alignment: u32,
        /// Array element count, 0 when not an array.
        pub count: u32,
        /// Bytes between array elements, 0 when not an array.
        pub stride: u32,
        /// `[[id(n)]]` of the member: the code's where it states one
        /// ([`ARGUMENT_ID_EXPLICIT`]), else the index Metal assigns implicitly; absent inside
        /// an array element.
        pub id: u32,
        /// `ARGUMENT_*` flags.
        pub flags: u32,
        /// The member's own target binding (a buffer, texture, sampler or nested argument
        /// buffer of the Metal bind view; index into target bindings), absent for data and
        /// structs.
        #[refs(index TargetBindings)]
        pub target_binding: u32,
    }
}

impl ArgumentBufferMember {
    /// The typed kind.
    #[must_use]
    pub fn member_kind(&self) -> crate::ArgumentMemberKind {
        crate::ArgumentMemberKind::from_raw(self.kind)
    }
}

impl TargetBinding {
    /// The typed target.
    #[must_use]
    pub const fn target_kind(&self) -> crate::Target {
        crate::Target::from_raw(self.target)
    }

    /// The typed binding kind.
    #[must_use]
    pub const fn binding_kind(&self) -> crate::TargetBindingKind {
        crate::TargetBindingKind::from_raw(self.kind)
    }

    /// The register class as a character (`'b'`, `'t'`, `'u'`, `'s'`, `'c'`), if any.
    #[must_use]
    pub fn register_char(&self) -> Option<char> {
        u8::try_from(self.register_class)
            .ok()
            .filter(u8::is_ascii_lowercase)
            .map(char::from)
    }
}

/// The register classes SPEC.md (6.8) allows for `target`, as ASCII bytes: HLSL and DXIL
/// `b`, `t`, `u`, `s`; Metal `b`, `t`, `s`, `c` (and 0 inside an argument buffer); 0 for
/// WGSL, GLSL and SPIR-V. A target this version does not know may use 0 or a lower-case ASCII
/// letter. Readers refuse any other value when a blob is loaded, so a register class never
/// puts a control character (a terminal escape) into text made from it.
#[must_use]
pub const fn register_class_allowed(target: crate::Target, register_class: u32) -> bool {
    use crate::Target;
    const fn class(c: u8) -> u32 {
        c as u32
    }
    let c = register_class;
    match target {
        Target::Wgsl | Target::Glsl | Target::Spirv => c == 0,
        Target::Hlsl | Target::Dxil => {
            c == class(b'b') || c == class(b't') || c == class(b'u') || c == class(b's')
        }
        Target::Metal => {
            c == 0 || c == class(b'b') || c == class(b't') || c == class(b's') || c == class(b'c')
        }
        Target::Unknown(_) => c == 0 || (c >= class(b'a') && c <= class(b'z')),
    }
}

/// A binding's place in its target's own words: `@group(1) @binding(0)` (WGSL),
/// `set 1 binding 0` (GLSL), `register(t0, space1)` (HLSL), `[[texture(0)]]`, `[[color(0)]]` or
/// `[[id(2)]] of argument buffer 0` (Metal: argument buffers by id, see `TargetBinding::space`).
#[must_use]
pub fn place_name(target: crate::Target, space: u32, index: u32, register_class: u32) -> String {
    use crate::Target;
    // Only a lower-case ASCII letter is shown as itself (readers allow no other class), so
    // the text never holds a control character whatever the caller passes.
    let class = u8::try_from(register_class)
        .ok()
        .filter(u8::is_ascii_lowercase)
        .map_or('?', char::from);
    match target {
        Target::Wgsl => format!("@group({space}) @binding({index})"),
        Target::Glsl | Target::Spirv => format!("set {space} binding {index}"),
        Target::Hlsl | Target::Dxil => format!("register({class}{index}, space{space})"),
        Target::Metal if space != crate::ABSENT => {
            format!("[[id({index})]] of argument buffer {space}")
        }
        Target::Metal => {
            let kind = match class {
                't' => "texture",
                's' => "sampler",
                'c' => "color",
                _ => "buffer",
            };
            format!("[[{kind}({index})]]")
        }
        Target::Unknown(_) => format!("space {space} index {index}"),
    }
}

/// WebGPU's name of a [`view_dimension`] value (`2d`, `cube-array`, ...), `None` for
/// [`view_dimension::NONE`] and unknown values.
#[must_use]
pub const fn view_dimension_name(raw: u32) -> Option<&'static str> {
    Some(match raw {
        view_dimension::D1 => "1d",
        view_dimension::D2 => "2d",
        view_dimension::D2_ARRAY => "2d-array",
        view_dimension::CUBE => "cube",
        view_dimension::CUBE_ARRAY => "cube-array",
        view_dimension::D3 => "3d",
        _ => return None,
    })
}

/// WebGPU's name of a [`sample_type`] value (`float`, `sint`, `uint`, `depth`), `None` for
/// [`sample_type::NONE`] and unknown values.
#[must_use]
pub const fn sample_type_name(raw: u32) -> Option<&'static str> {
    Some(match raw {
        sample_type::FLOAT => "float",
        sample_type::SINT => "sint",
        sample_type::UINT => "uint",
        sample_type::DEPTH => "depth",
        _ => return None,
    })
}

/// The names of the `TARGET_*` flags set in `flags` (`read_only`, `multisampled`,
/// `comparison`, `unused`, `write`), in bit order; unknown bits are left out.
pub fn target_flag_names(flags: u32) -> impl Iterator<Item = &'static str> {
    [
        (TARGET_READ_ONLY, "read_only"),
        (TARGET_MULTISAMPLED, "multisampled"),
        (TARGET_COMPARISON, "comparison"),
        (TARGET_UNUSED, "unused"),
        (TARGET_WRITE, "write"),
    ]
    .into_iter()
    .filter(move |(bit, _)| flags & bit != 0)
    .map(|(_, name)| name)
}

/// The lower-case name of a [`crate::TargetBindingKind`] (`uniform_buffer`, `texture`, ...).
#[must_use]
pub const fn kind_name(kind: crate::TargetBindingKind) -> &'static str {
    use crate::TargetBindingKind as K;
    match kind {
        K::UniformBuffer => "uniform_buffer",
        K::StorageBuffer => "storage_buffer",
        K::Sampler => "sampler",
        K::Texture => "texture",
        K::StorageTexture => "storage_texture",
        K::PushConstants => "push_constants",
        K::ArgumentBuffer => "argument_buffer",
        K::Unknown(_) => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;

    #[test]
    fn register_classes_are_the_ones_spec_allows() {
        let allowed = |t, c: u8| register_class_allowed(t, u32::from(c));
        for c in [b'b', b't', b'u', b's'] {
            assert!(allowed(Target::Hlsl, c) && allowed(Target::Dxil, c));
        }
        for c in [0, b'b', b't', b's', b'c'] {
            assert!(allowed(Target::Metal, c));
        }
        assert!(allowed(Target::Wgsl, 0) && allowed(Target::Glsl, 0));
        for (t, c) in [
            (Target::Hlsl, 0),
            (Target::Hlsl, b'c'),
            (Target::Metal, b'u'),
            (Target::Wgsl, b'b'),
            (Target::Hlsl, 0x1b),
            (Target::Metal, 0x9b),
            (Target::Unknown(99), 0x1b),
        ] {
            assert!(!allowed(t, c), "{t:?} {c:#x}");
        }
        assert!(!register_class_allowed(
            Target::Hlsl,
            0x100 | u32::from(b'b')
        ));
    }

    #[test]
    fn place_names_hold_no_control_character_whatever_the_class() {
        for class in [0x1b, 0x9b, 0x7f, 0x0a, 0x1_0062] {
            for target in [Target::Hlsl, Target::Metal, Target::Unknown(9)] {
                let text = place_name(target, 0, 1, class);
                assert!(!text.chars().any(char::is_control), "{text:?}");
            }
        }
        assert_eq!(place_name(Target::Hlsl, 2, 1, 0x1b), "register(?1, space2)");
        assert_eq!(
            place_name(Target::Hlsl, 2, 1, u32::from(b't')),
            "register(t1, space2)"
        );
    }
}

//! The bind view: what an engine needs at bind time, computed by the writer from Slang's
//! reflection and the compiled code, stored as tables of a reflection blob beside the raw ones.
//!
//! Everything here is in Vulkan's terms: absolute set and binding numbers, `VkDescriptorType`,
//! `VkShaderStageFlags` and `VkFormat` raw values. Bindings are sorted by `(set, binding)`;
//! every set's bindings are contiguous. Strings are indices into the blob's string table.

use crate::records::record;
use crate::{TableKind, TableRecord, ABSENT};

record! {
    /// Program-wide facts of the bind view (a table of exactly one record).
    pub struct BindSummary [32] {
        /// Length the pipeline layout's set array must have: highest set number + 1 (sets with
        /// no binding in between are holes, filled with empty set layouts).
        pub set_slot_count: u32,
        /// The implicit global uniform buffer (uniforms declared outside any buffer), as an
        /// index into descriptor bindings, or absent.
        pub global_uniform_binding: u32,
        /// Union of the stages of every entry point of the program (`VkShaderStageFlags`).
        pub program_stage_flags: u32,
        /// Number of entry points of the program (the bit width of entry-point masks).
        pub entry_point_count: u32,
        /// Reserved, zero.
        pub reserved0: u32,
        /// Reserved, zero.
        pub reserved1: u32,
        /// Reserved, zero.
        pub reserved2: u32,
        /// Reserved, zero.
        pub reserved3: u32,
    }
}

/// [`DescriptorBinding::count_kind`]: the array has the fixed size in `count` (1 when not an
/// array).
pub const COUNT_FIXED: u32 = 0;
/// [`DescriptorBinding::count_kind`]: an unbounded array (`Texture2D t[]`); the engine chooses
/// the capacity.
pub const COUNT_UNBOUNDED: u32 = 1;
/// [`DescriptorBinding::count_kind`]: a zero-length array; Slang reserves the binding number
/// but the SPIR-V declares nothing, so it is not a Vulkan descriptor binding.
pub const COUNT_ZERO: u32 = 2;

/// [`DescriptorBinding::flags`]: the implicit uniform buffer Slang puts at binding 0 of a
/// ParameterBlock's set for the block's ordinary data.
pub const BINDING_IMPLICIT_BLOCK_BUFFER: u32 = 1;
/// [`DescriptorBinding::flags`]: the implicit global uniform buffer.
pub const BINDING_IMPLICIT_GLOBAL_BUFFER: u32 = 2;
/// [`DescriptorBinding::flags`]: the shader may write the resource.
pub const BINDING_WRITABLE: u32 = 4;
/// [`DescriptorBinding::flags`]: no entry point's compiled code uses the binding (its stage
/// flags fall back to the union of the program's stages).
pub const BINDING_UNUSED: u32 = 8;
/// [`DescriptorBinding::flags`]: a descriptor heap Slang synthesized for descriptor-handle
/// bindless (`Texture2D.Handle`, named `__slang_resource_heap.<kind>`): an unbounded array the
/// shader indexes with the handles' first word. Since 1.1.
pub const BINDING_DESCRIPTOR_HEAP: u32 = 16;

record! {
    /// One descriptor binding, at its absolute Vulkan set and binding.
    pub struct DescriptorBinding [72] {
        /// Field name (the last path component), string index.
        pub name: u32,
        /// Full dotted path from the program's global scope, e.g. `gScene.material.albedo`.
        pub path: u32,
        /// Name of the variable in the SPIR-V (what a SPIR-V tool shows), string index.
        pub spirv_name: u32,
        /// Vulkan descriptor set number.
        pub set: u32,
        /// Vulkan binding number within the set.
        pub binding: u32,
        /// `VkDescriptorType` raw value (see [`crate::DescriptorKind`]).
        pub descriptor_type: u32,
        /// Descriptor count when [`Self::count_kind`] is [`COUNT_FIXED`], else 0.
        pub count: u32,
        /// [`COUNT_FIXED`], [`COUNT_UNBOUNDED`] or [`COUNT_ZERO`].
        pub count_kind: u32,
        /// Slang's image format (`SlangImageFormat` raw value; 0 = unknown).
        pub image_format: u32,
        /// `VkShaderStageFlags`: the stages whose compiled code uses the binding, or the union
        /// of the program's stages when none does.
        pub stage_flags: u32,
        /// Bit `i` set: entry point `i` uses the binding (from the compiled code's metadata).
        /// Entry points past the 32nd are not represented.
        pub entry_point_mask: u32,
        /// The buffer layout of a uniform or storage buffer (index into buffer layouts), or
        /// absent.
        pub buffer_layout: u32,
        /// `BINDING_*` flags.
        pub flags: u32,
        /// `SlangResourceShape` raw value (0 for samplers and buffers without a shape).
        pub resource_shape: u32,
        /// `SlangResourceAccess` raw value.
        pub resource_access: u32,
        /// Reserved, zero.
        pub reserved: u32,
        /// The input attachment index (`[[vk::input_attachment_index(i)]]`, as the SPIR-V's
        /// `InputAttachmentIndex` decoration says) of an input attachment, else absent.
        /// Since 1.1.
        pub input_attachment_index: u32,
        /// A combined image sampler made of a texture and a sampler variable sharing the
        /// binding (`[[vk::binding(0, 1)]] Texture2D t; [[vk::binding(0, 1)]] SamplerState
        /// s;`): the sampler's path, string index; `path` is the texture's. Absent otherwise.
        /// Since 1.1.
        pub sampler_path: u32,
    }
}

record! {
    /// One populated descriptor set: a contiguous run of descriptor bindings.
    pub struct DescriptorSetLayout [16] {
        /// The Vulkan set number.
        pub set: u32,
        /// First binding of the set (index into descriptor bindings).
        pub first_binding: u32,
        /// Number of bindings (zero-count bindings included).
        pub binding_count: u32,
        /// Bit 0: the set holds an unbounded array (it wants update-after-bind and
        /// partially-bound flags, and the device features for them).
        pub flags: u32,
    }
}

/// [`DescriptorSetLayout::flags`]: the set holds an unbounded array.
pub const SET_HAS_UNBOUNDED: u32 = 1;

record! {
    /// A push-constant range.
    pub struct PushConstantRange [24] {
        /// The push-constant parameter's path, string index.
        pub name: u32,
        /// Byte offset of the range.
        pub offset: u32,
        /// Byte size of the range.
        pub size: u32,
        /// `VkShaderStageFlags` (the union of the program's stages: Slang cannot narrow push
        /// constants per stage).
        pub stage_flags: u32,
        /// The block's buffer layout (index into buffer layouts).
        pub buffer_layout: u32,
        /// Reserved, zero.
        pub reserved: u32,
    }
}

/// [`BufferLayout::kind`]: a `ConstantBuffer<T>` / `cbuffer` (for an array of constant
/// buffers, the layout of one element).
pub const BUFFER_UNIFORM: u32 = 0;
/// [`BufferLayout::kind`]: a push-constant block.
pub const BUFFER_PUSH_CONSTANT: u32 = 1;
/// [`BufferLayout::kind`]: the element of a structured buffer (`StructuredBuffer<T>`).
pub const BUFFER_STRUCTURED_ELEMENT: u32 = 2;
/// [`BufferLayout::kind`]: a ParameterBlock's implicit uniform buffer.
pub const BUFFER_BLOCK: u32 = 3;
/// [`BufferLayout::kind`]: the implicit global uniform buffer.
pub const BUFFER_GLOBAL: u32 = 4;
/// [`BufferLayout::kind`]: a shader-record block (`[[vk::shader_record]]`), read from the
/// shader binding table, not a descriptor.
pub const BUFFER_SHADER_RECORD: u32 = 5;

record! {
    /// The memory layout of one buffer: a flattened pre-order list of members.
    pub struct BufferLayout [40] {
        /// Path of the parameter that owns the buffer (`gScene`, `gDraw`, `gHistogram`);
        /// member paths are relative to it. String index.
        pub name: u32,
        /// `BUFFER_*` kind.
        pub kind: u32,
        /// Set of the buffer's descriptor, absent for push constants.
        pub set: u32,
        /// Binding of the buffer's descriptor, absent for push constants.
        pub binding: u32,
        /// Size in bytes (of one element, for structured buffers).
        pub size: u32,
        /// Alignment in bytes.
        pub alignment: u32,
        /// Element stride of a structured buffer, else equal to `size`.
        pub stride: u32,
        /// First member (index into buffer members).
        pub first_member: u32,
        /// Number of members.
        pub member_count: u32,
        /// `SlangMatrixLayoutMode` raw value the buffer was laid out with (0 = Slang default).
        pub matrix_layout: u32,
    }
}

/// [`BufferMember::flags`]: the member lies inside an element of an array of structs; its
/// offset is relative to the start of that element (element `i` of the array is at the
/// array's offset + `i` * its stride).
pub const MEMBER_ELEMENT_RELATIVE: u32 = 1;
/// [`BufferMember::flags`]: the member has a default value (in `default_lo`/`default_hi`).
pub const MEMBER_HAS_DEFAULT: u32 = 2;
/// [`BufferMember::flags`]: the default value is an `f64` (bits), else an `i64`.
pub const MEMBER_DEFAULT_IS_FLOAT: u32 = 4;

/// [`BufferMember::array_count`] of a runtime-sized array.
pub const ARRAY_UNBOUNDED: u32 = ABSENT;

record! {
    /// One member of a buffer layout.
    pub struct BufferMember [80] {
        /// Dotted path relative to the buffer, `[]` marking an array element:
        /// `light.sunDirection`, `layers[].tint`. String index.
        pub path: u32,
        /// The member's own name. String index.
        pub name: u32,
        /// Parent member (absolute index into buffer members), absent at the top level.
        pub parent: u32,
        /// Byte offset from the start of the buffer (element-relative under
        /// [`MEMBER_ELEMENT_RELATIVE`]).
        pub offset: u32,
        /// Size in bytes of the data (a `float3` is 12).
        pub size: u32,
        /// Padded footprint in bytes (a `float3` in a uniform buffer takes 16).
        pub stride: u32,
        /// Alignment in bytes.
        pub alignment: u32,
        /// `SlangTypeKind` raw value (of the element type for arrays).
        pub type_kind: u32,
        /// `SlangScalarType` raw value of the (element) type, 0 for structs.
        pub scalar_type: u32,
        /// Rows (1 for scalars and vectors).
        pub rows: u32,
        /// Columns (component count of a vector).
        pub columns: u32,
        /// `SlangMatrixLayoutMode` raw value for matrices (1 row-major, 2 column-major).
        pub matrix_layout: u32,
        /// Bytes between consecutive rows (row-major) or columns (column-major) of a matrix.
        pub matrix_stride: u32,
        /// Array element count; 0 when the member is not an array, [`ARRAY_UNBOUNDED`] for a
        /// runtime-sized array.
        pub array_count: u32,
        /// Bytes between array elements, 0 when not an array.
        pub array_stride: u32,
        /// `MEMBER_*` flags.
        pub flags: u32,
        /// Default value bits, low half.
        pub default_lo: u32,
        /// Default value bits, high half.
        pub default_hi: u32,
        /// First user attribute (index into member attributes).
        pub first_attribute: u32,
        /// Number of user attributes.
        pub attribute_count: u32,
    }
}

record! {
    /// A user attribute attached to a buffer member (`[Range(0, 1)] float roughness;`).
    pub struct MemberAttribute [12] {
        /// The attribute's name. String index.
        pub name: u32,
        /// The arguments rendered as text, comma-separated (`0, 1`). String index.
        pub arguments: u32,
        /// Number of arguments.
        pub argument_count: u32,
    }
}

record! {
    /// One vertex input attribute of a vertex entry point (system values excluded).
    pub struct VertexInput [40] {
        /// The entry point (index into the entry's entry points).
        pub entry_point: u32,
        /// First location.
        pub location: u32,
        /// Locations used (a matrix input spans one per column or row).
        pub location_count: u32,
        /// `VkFormat` raw value of one location, 0 when there is none.
        pub format: u32,
        /// `SlangScalarType` raw value.
        pub scalar_type: u32,
        /// Components per location.
        pub component_count: u32,
        /// Semantic name without its index (`TEXCOORD`). String index.
        pub semantic_name: u32,
        /// Semantic index (`TEXCOORD1` has 1).
        pub semantic_index: u32,
        /// Dotted path of the input (`input.uv0`). String index.
        pub name: u32,
        /// Bit 0 ([`VERTEX_INPUT_USED`]): the compiled code reads the input (Slang drops unused
        /// inputs from the SPIR-V; feeding one anyway draws a validation-layer warning).
        pub flags: u32,
    }
}

/// [`VertexInput::flags`]: the entry point's SPIR-V declares the input.
pub const VERTEX_INPUT_USED: u32 = 1;

record! {
    /// A specialization constant.
    pub struct SpecializationConstant [24] {
        /// The constant id (`VkSpecializationMapEntry::constantID`).
        pub id: u32,
        /// Its name. String index.
        pub name: u32,
        /// `SlangScalarType` raw value.
        pub scalar_type: u32,
        /// Default value bits, low half (an `f64` for float types, else an `i64`).
        pub default_lo: u32,
        /// Default value bits, high half.
        pub default_hi: u32,
        /// Bit 0: has a default value. Bit 1: the default is an `f64`.
        pub flags: u32,
    }
}

record! {
    /// A shader-record block (`[[vk::shader_record]] ConstantBuffer<T> sbt;`) of ray-tracing
    /// stages: data the shader reads from its record in the shader binding table, after the
    /// shader group handle. Not a descriptor: it has no set or binding.
    pub struct ShaderRecordBlock [24] {
        /// The block parameter's path, string index.
        pub name: u32,
        /// Byte size of the data (from the record's data start).
        pub size: u32,
        /// `VkShaderStageFlags` of the entry points whose SPIR-V declares the block.
        pub stage_flags: u32,
        /// Bit `i` set: entry point `i`'s SPIR-V declares the block.
        pub entry_point_mask: u32,
        /// The block's buffer layout (index into buffer layouts, kind
        /// [`BUFFER_SHADER_RECORD`]).
        pub buffer_layout: u32,
        /// Reserved, zero.
        pub reserved: u32,
    }
}

/// [`NameIndexSlot::target`] kind (top 4 bits): a descriptor binding, by its path.
pub const NAME_BINDING: u32 = 1;
/// [`NameIndexSlot::target`] kind: a buffer member, by `<buffer name>.<member path>`.
pub const NAME_MEMBER: u32 = 2;
/// [`NameIndexSlot::target`] kind: a buffer layout, by its name.
pub const NAME_BUFFER: u32 = 3;

/// Builds a [`NameIndexSlot::target`] from a kind and a 28-bit index.
#[must_use]
pub const fn name_target(kind: u32, index: u32) -> u32 {
    (kind << 28) | (index & 0x0fff_ffff)
}

record! {
    /// One slot of the name index: an open-addressing hash table (linear probing) whose length
    /// is a power of two, keyed by the xxh3-64 of the name's UTF-8 bytes. An empty slot has
    /// `target` absent; a lookup probes from `hash & (len - 1)` until it finds the name or an
    /// empty slot.
    pub struct NameIndexSlot [12] {
        /// xxh3-64 of the name, low half.
        pub hash_lo: u32,
        /// xxh3-64 of the name, high half.
        pub hash_hi: u32,
        /// `kind << 28 | index` (see `NAME_*`), or absent for an empty slot.
        pub target: u32,
    }
}

macro_rules! table_records {
    ($( $ty:ty => $kind:ident, )*) => {
        $( impl TableRecord for $ty { const KIND: TableKind = TableKind::$kind; } )*
    };
}

table_records! {
    BindSummary => BindSummary,
    DescriptorBinding => DescriptorBindings,
    DescriptorSetLayout => DescriptorSetLayouts,
    PushConstantRange => PushConstantRanges,
    BufferLayout => BufferLayouts,
    BufferMember => BufferMembers,
    MemberAttribute => MemberAttributes,
    VertexInput => VertexInputs,
    SpecializationConstant => SpecializationConstants,
    NameIndexSlot => NameIndex,
    ShaderRecordBlock => ShaderRecordBlocks,
}

/// A Vulkan descriptor type (`VkDescriptorType`), as stored in
/// [`DescriptorBinding::descriptor_type`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    /// `VK_DESCRIPTOR_TYPE_SAMPLER`.
    Sampler,
    /// `VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER`.
    CombinedImageSampler,
    /// `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`.
    SampledImage,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`.
    StorageImage,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER`.
    UniformTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER`.
    StorageTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`.
    UniformBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`.
    StorageBuffer,
    /// `VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT`.
    InputAttachment,
    /// `VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK`.
    InlineUniformBlock,
    /// `VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR`.
    AccelerationStructure,
    /// A value this version does not name.
    Unknown(u32),
}

impl DescriptorKind {
    /// Maps a stored `VkDescriptorType` value.
    #[must_use]
    pub const fn from_raw(raw: u32) -> Self {
        match raw {
            0 => Self::Sampler,
            1 => Self::CombinedImageSampler,
            2 => Self::SampledImage,
            3 => Self::StorageImage,
            4 => Self::UniformTexelBuffer,
            5 => Self::StorageTexelBuffer,
            6 => Self::UniformBuffer,
            7 => Self::StorageBuffer,
            10 => Self::InputAttachment,
            1_000_138_000 => Self::InlineUniformBlock,
            1_000_150_000 => Self::AccelerationStructure,
            other => Self::Unknown(other),
        }
    }

    /// The `VkDescriptorType` value.
    #[must_use]
    pub const fn to_raw(self) -> u32 {
        match self {
            Self::Sampler => 0,
            Self::CombinedImageSampler => 1,
            Self::SampledImage => 2,
            Self::StorageImage => 3,
            Self::UniformTexelBuffer => 4,
            Self::StorageTexelBuffer => 5,
            Self::UniformBuffer => 6,
            Self::StorageBuffer => 7,
            Self::InputAttachment => 10,
            Self::InlineUniformBlock => 1_000_138_000,
            Self::AccelerationStructure => 1_000_150_000,
            Self::Unknown(raw) => raw,
        }
    }

    /// The snake-case name without prefix (`uniform_buffer`, `storage_image`, ...), as in
    /// `slangpack dump --json`; `unknown` for values this version does not name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Sampler => "sampler",
            Self::CombinedImageSampler => "combined_image_sampler",
            Self::SampledImage => "sampled_image",
            Self::StorageImage => "storage_image",
            Self::UniformTexelBuffer => "uniform_texel_buffer",
            Self::StorageTexelBuffer => "storage_texel_buffer",
            Self::UniformBuffer => "uniform_buffer",
            Self::StorageBuffer => "storage_buffer",
            Self::InputAttachment => "input_attachment",
            Self::InlineUniformBlock => "inline_uniform_block",
            Self::AccelerationStructure => "acceleration_structure",
            Self::Unknown(_) => "unknown",
        }
    }
}

impl DescriptorBinding {
    /// The descriptor type.
    #[must_use]
    pub const fn kind(&self) -> DescriptorKind {
        DescriptorKind::from_raw(self.descriptor_type)
    }

    /// The descriptor count to put in `VkDescriptorSetLayoutBinding::descriptorCount`:
    /// `Some(n)` for a fixed count, `None` for an unbounded array (the engine picks the
    /// capacity); a zero-length array gives `Some(0)` and is no descriptor at all.
    #[must_use]
    pub const fn descriptor_count(&self) -> Option<u32> {
        match self.count_kind {
            COUNT_UNBOUNDED => None,
            COUNT_ZERO => Some(0),
            _ => Some(self.count),
        }
    }

    /// The input attachment index of an input attachment (`InputAttachmentIndex` in the
    /// SPIR-V), `None` for other descriptors.
    #[must_use]
    pub const fn input_attachment(&self) -> Option<u32> {
        match (self.kind(), self.input_attachment_index) {
            (DescriptorKind::InputAttachment, i) if i != ABSENT => Some(i),
            _ => None,
        }
    }
}

/// The lower-case name of a `SlangImageFormat` value as written in
/// `[format("...")]` (`rgba8`, `r32f`, ...), `None` for unknown (0) or unnamed values.
#[must_use]
pub const fn image_format_name(raw: u32) -> Option<&'static str> {
    const NAMES: [&str; 43] = [
        "unknown",
        "rgba32f",
        "rgba16f",
        "rg32f",
        "rg16f",
        "r11f_g11f_b10f",
        "r32f",
        "r16f",
        "rgba16",
        "rgb10_a2",
        "rgba8",
        "rg16",
        "rg8",
        "r16",
        "r8",
        "rgba16_snorm",
        "rgba8_snorm",
        "rg16_snorm",
        "rg8_snorm",
        "r16_snorm",
        "r8_snorm",
        "rgba32i",
        "rgba16i",
        "rgba8i",
        "rg32i",
        "rg16i",
        "rg8i",
        "r32i",
        "r16i",
        "r8i",
        "rgba32ui",
        "rgba16ui",
        "rgb10_a2ui",
        "rgba8ui",
        "rg32ui",
        "rg16ui",
        "rg8ui",
        "r32ui",
        "r16ui",
        "r8ui",
        "r64ui",
        "r64i",
        "bgra8",
    ];
    if raw == 0 || raw as usize >= NAMES.len() {
        None
    } else {
        Some(NAMES[raw as usize])
    }
}

/// The snake-case name of a [`BufferLayout::kind`] (`uniform`, `push_constant`,
/// `structured_element`, `parameter_block`, `global`, `shader_record`), as in
/// `slangpack dump --json`; `unknown` for values this version does not name.
#[must_use]
pub const fn buffer_kind_name(kind: u32) -> &'static str {
    match kind {
        BUFFER_UNIFORM => "uniform",
        BUFFER_PUSH_CONSTANT => "push_constant",
        BUFFER_STRUCTURED_ELEMENT => "structured_element",
        BUFFER_BLOCK => "parameter_block",
        BUFFER_GLOBAL => "global",
        BUFFER_SHADER_RECORD => "shader_record",
        _ => "unknown",
    }
}

/// The stage names (`vertex`, `fragment`, `compute`, ...) of a `VkShaderStageFlags` mask, in
/// bit order: the names `slangpack dump --json` uses.
pub fn stage_flag_names(flags: u32) -> impl Iterator<Item = &'static str> {
    const STAGES: [(u32, &str); 14] = [
        (0x1, "vertex"),
        (0x2, "hull"),
        (0x4, "domain"),
        (0x8, "geometry"),
        (0x10, "fragment"),
        (0x20, "compute"),
        (0x40, "amplification"),
        (0x80, "mesh"),
        (0x100, "raygeneration"),
        (0x200, "anyhit"),
        (0x400, "closesthit"),
        (0x800, "miss"),
        (0x1000, "intersection"),
        (0x2000, "callable"),
    ];
    STAGES
        .into_iter()
        .filter(move |(bit, _)| flags & bit != 0)
        .map(|(_, name)| name)
}

//! The bind view: what an engine needs at bind time, computed by the writer from Slang's
//! reflection and the compiled code, stored as tables of a reflection blob beside the raw ones.
//!
//! Everything here is in Vulkan's terms: absolute set and binding numbers, `VkDescriptorType`,
//! `VkShaderStageFlags` and `VkFormat` raw values. Bindings are sorted by `(set, binding)`;
//! every set's bindings are contiguous. Bindings of different pipelines of one program may
//! share a set and binding; each binding's `entry_point_mask` says whose it is. Strings are indices into the blob's string table.

use crate::enums::{named_raw_enum, raw_enum, raw_flags};
use crate::records::record;
use crate::vk::{Format, ShaderStageFlags};
use crate::{MatrixLayout, ResourceAccess, ResourceShape, ScalarType, ABSENT};

pub use crate::vk::DescriptorKind;

record! {
    /// Program-wide facts of the bind view (a table of exactly one record).
    pub struct BindSummary [32] {
        /// Length the pipeline layout's set array must have: highest set number + 1 (sets with
        /// no binding in between are holes, filled with empty set layouts).
        pub set_slot_count: u32,
        /// The implicit global uniform buffer (uniforms declared outside any buffer), as an
        /// index into descriptor bindings, or absent.
        #[refs(index DescriptorBindings)]
        pub global_uniform_binding: u32,
        /// Union of the stages of every entry point of the program (`VkShaderStageFlags`).
        pub program_stage_flags: u32,
        /// Number of entry points of the program (at most [`MAX_ENTRY_POINTS`]; the bits of
        /// entry-point masks that are in use).
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

pub use crate::limits::MAX_ENTRY_POINTS;

raw_enum! {
    /// How [`DescriptorBinding::count`] reads ([`DescriptorBinding::count_kind`]).
    pub enum ArrayKind {
        /// The array has the fixed size in `count` (1 when not an array).
        Fixed = 0,
        /// An unbounded array (`Texture2D t[]`); the engine chooses the capacity.
        Unbounded = 1,
        /// A zero-length array; Slang reserves the binding number but the SPIR-V declares
        /// nothing, so it is not a Vulkan descriptor binding.
        ZeroLength = 2,
    }
}

/// [`DescriptorBinding::count_kind`] of [`ArrayKind::Fixed`].
pub const COUNT_FIXED: u32 = ArrayKind::Fixed.to_raw();
/// [`DescriptorBinding::count_kind`] of [`ArrayKind::Unbounded`].
pub const COUNT_UNBOUNDED: u32 = ArrayKind::Unbounded.to_raw();
/// [`DescriptorBinding::count_kind`] of [`ArrayKind::ZeroLength`].
pub const COUNT_ZERO: u32 = ArrayKind::ZeroLength.to_raw();

raw_flags! {
    /// [`DescriptorBinding::flags`].
    pub struct BindingFlags {
        /// The implicit uniform buffer Slang puts at binding 0 of a ParameterBlock's set for
        /// the block's ordinary data.
        const IMPLICIT_BLOCK_BUFFER = 1;
        /// The implicit global uniform buffer.
        const IMPLICIT_GLOBAL_BUFFER = 2;
        /// The shader may write the resource.
        const WRITABLE = 4;
        /// No entry point's SPIR-V declares the binding (its stage flags fall back to the
        /// union of the program's stages; it is in no pipeline).
        const UNUSED = 8;
        /// A descriptor heap Slang synthesized for descriptor-handle bindless
        /// (`Texture2D.Handle`, named `__slang_resource_heap.<kind>`): an unbounded array the
        /// shader indexes with the handles' first word. Since 1.1.
        const DESCRIPTOR_HEAP = 16;
        /// An array sized by a specialization constant (`[[vk::constant_id(1)]] const int
        /// N = 4; Texture2D t[N];`): `count` is the array's size at the constant's default,
        /// taken from the SPIR-V (Slang's reflection cannot evaluate it); a pipeline that
        /// specializes the constant needs as many descriptors as its value.
        const SPECIALIZED_COUNT = 32;
    }
}

/// [`BindingFlags::IMPLICIT_BLOCK_BUFFER`] as a raw value.
pub const BINDING_IMPLICIT_BLOCK_BUFFER: u32 = BindingFlags::IMPLICIT_BLOCK_BUFFER.to_raw();
/// [`BindingFlags::IMPLICIT_GLOBAL_BUFFER`] as a raw value.
pub const BINDING_IMPLICIT_GLOBAL_BUFFER: u32 = BindingFlags::IMPLICIT_GLOBAL_BUFFER.to_raw();
/// [`BindingFlags::WRITABLE`] as a raw value.
pub const BINDING_WRITABLE: u32 = BindingFlags::WRITABLE.to_raw();
/// [`BindingFlags::UNUSED`] as a raw value.
pub const BINDING_UNUSED: u32 = BindingFlags::UNUSED.to_raw();
/// [`BindingFlags::DESCRIPTOR_HEAP`] as a raw value.
pub const BINDING_DESCRIPTOR_HEAP: u32 = BindingFlags::DESCRIPTOR_HEAP.to_raw();
/// [`BindingFlags::SPECIALIZED_COUNT`] as a raw value.
pub const BINDING_SPECIALIZED_COUNT: u32 = BindingFlags::SPECIALIZED_COUNT.to_raw();

record! {
    /// One descriptor binding, at its absolute Vulkan set and binding.
    pub struct DescriptorBinding [72] {
        /// Field name (the last path component), string index.
        #[refs(string)]
        pub name: u32,
        /// Full dotted path from the program's global scope, e.g. `gScene.material.albedo`.
        #[refs(string)]
        pub path: u32,
        /// Name of the variable in the SPIR-V (what a SPIR-V tool shows), string index.
        #[refs(string)]
        pub spirv_name: u32,
        /// Vulkan descriptor set number.
        pub set: u32,
        /// Vulkan binding number within the set.
        pub binding: u32,
        /// `VkDescriptorType` raw value (see [`DescriptorKind`]).
        pub descriptor_type: u32,
        /// Descriptor count when [`Self::count_kind`] is [`COUNT_FIXED`], else 0.
        pub count: u32,
        /// [`ArrayKind`] raw value.
        pub count_kind: u32,
        /// Slang's image format (`SlangImageFormat` raw value; 0 = unknown).
        pub image_format: u32,
        /// `VkShaderStageFlags`: the stages whose SPIR-V declares the binding, or the union of
        /// the program's stages when none does.
        pub stage_flags: u32,
        /// Bit `i` set: the SPIR-V of entry point `i` declares the binding. A program has at
        /// most [`MAX_ENTRY_POINTS`] entry points, so every entry point has its bit. Bindings
        /// of different pipelines may share a set and binding number; their masks are
        /// disjoint.
        pub entry_point_mask: u32,
        /// The buffer layout of a uniform or storage buffer (index into buffer layouts), or
        /// absent.
        #[refs(index BufferLayouts)]
        pub buffer_layout: u32,
        /// [`BindingFlags`].
        pub flags: u32,
        /// `SlangResourceShape` raw value (0 for samplers and buffers without a shape).
        pub resource_shape: u32,
        /// `SlangResourceAccess` raw value.
        pub resource_access: u32,
        /// For a [`DescriptorKind::Mutable`] binding: the descriptor types it may hold, bit
        /// `t` for `VkDescriptorType` `t` (every type a mutable descriptor may hold is below
        /// 32); else 0 (zero in packages before mutable descriptors). Since 1.1.
        pub mutable_types: u32,
        /// The input attachment index (`[[vk::input_attachment_index(i)]]`, as the SPIR-V's
        /// `InputAttachmentIndex` decoration says) of an input attachment, else absent.
        /// Since 1.1.
        pub input_attachment_index: u32,
        /// A combined image sampler made of a texture and a sampler variable sharing the
        /// binding (`[[vk::binding(0, 1)]] Texture2D t; [[vk::binding(0, 1)]] SamplerState
        /// s;`): the sampler's path, string index; `path` is the texture's. Absent otherwise.
        /// Since 1.1.
        #[refs(string)]
        pub sampler_path: u32,
    }
}

record! {
    /// One populated descriptor set: a contiguous run of descriptor bindings.
    pub struct DescriptorSetLayout [16] {
        /// The Vulkan set number.
        pub set: u32,
        /// First binding of the set (index into descriptor bindings).
        #[refs(range DescriptorBindings, binding_count)]
        pub first_binding: u32,
        /// Number of bindings (zero-count bindings included).
        pub binding_count: u32,
        /// [`SetFlags`].
        pub flags: u32,
    }
}

raw_flags! {
    /// [`DescriptorSetLayout::flags`].
    pub struct SetFlags {
        /// The set holds an unbounded array: it wants the update-after-bind and
        /// partially-bound binding flags (and the device features for them).
        const HAS_UNBOUNDED = 1;
    }
}

/// [`SetFlags::HAS_UNBOUNDED`] as a raw value.
pub const SET_HAS_UNBOUNDED: u32 = SetFlags::HAS_UNBOUNDED.to_raw();

record! {
    /// A push-constant range.
    pub struct PushConstantRange [24] {
        /// The push-constant parameter's path, string index.
        #[refs(string)]
        pub name: u32,
        /// Byte offset of the range.
        pub offset: u32,
        /// Byte size of the range.
        pub size: u32,
        /// `VkShaderStageFlags`: the stages whose SPIR-V declares the block, or the union of
        /// the program's stages when none does.
        pub stage_flags: u32,
        /// The block's buffer layout (index into buffer layouts).
        #[refs(index BufferLayouts)]
        pub buffer_layout: u32,
        /// Bit `i` set: the SPIR-V of entry point `i` declares the block (at most one block
        /// per entry point).
        pub entry_point_mask: u32,
    }
}

named_raw_enum! {
    /// [`BufferLayout::kind`], named as `slangpack dump --json` prints it.
    pub enum BufferKind {
        /// A `ConstantBuffer<T>` / `cbuffer` (for an array of constant buffers, the layout
        /// of one element).
        Uniform = 0 => "uniform",
        /// A push-constant block.
        PushConstant = 1 => "push_constant",
        /// The element of a structured buffer (`StructuredBuffer<T>`).
        StructuredElement = 2 => "structured_element",
        /// A ParameterBlock's implicit uniform buffer.
        ParameterBlock = 3 => "parameter_block",
        /// The implicit global uniform buffer.
        Global = 4 => "global",
        /// A shader-record block (`[[vk::shader_record]]`), read from the shader binding
        /// table, not a descriptor.
        ShaderRecord = 5 => "shader_record",
    }
}

/// [`BufferKind::Uniform`] as a raw value.
pub const BUFFER_UNIFORM: u32 = BufferKind::Uniform.to_raw();
/// [`BufferKind::PushConstant`] as a raw value.
pub const BUFFER_PUSH_CONSTANT: u32 = BufferKind::PushConstant.to_raw();
/// [`BufferKind::StructuredElement`] as a raw value.
pub const BUFFER_STRUCTURED_ELEMENT: u32 = BufferKind::StructuredElement.to_raw();
/// [`BufferKind::ParameterBlock`] as a raw value.
pub const BUFFER_BLOCK: u32 = BufferKind::ParameterBlock.to_raw();
/// [`BufferKind::Global`] as a raw value.
pub const BUFFER_GLOBAL: u32 = BufferKind::Global.to_raw();
/// [`BufferKind::ShaderRecord`] as a raw value.
pub const BUFFER_SHADER_RECORD: u32 = BufferKind::ShaderRecord.to_raw();

record! {
    /// The memory layout of one buffer: a flattened pre-order list of members.
    pub struct BufferLayout [40] {
        /// Path of the parameter that owns the buffer (`gScene`, `gDraw`, `gHistogram`);
        /// member paths are relative to it. String index.
        #[refs(string)]
        pub name: u32,
        /// [`BufferKind`] raw value.
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
        #[refs(range BufferMembers, member_count)]
        pub first_member: u32,
        /// Number of members.
        pub member_count: u32,
        /// `SlangMatrixLayoutMode` raw value the buffer was laid out with (0 = Slang default).
        pub matrix_layout: u32,
    }
}

raw_flags! {
    /// [`BufferMember::flags`].
    pub struct MemberFlags {
        /// The member lies inside an element of an array of structs; its offset is relative
        /// to the start of that element (element `i` of the array is at the array's offset +
        /// `i` * its stride).
        const ELEMENT_RELATIVE = 1;
        /// The member has a default value (in `default_lo`/`default_hi`).
        const HAS_DEFAULT = 2;
        /// The default value is an `f64` (bits), else an `i64`.
        const DEFAULT_IS_FLOAT = 4;
        /// The header Slang lays out for an interface-typed value specialized with a type
        /// argument (`ParameterBlock<ISurface>` with `--type-arg Glossy`): a struct of the
        /// `typeId` and `witnessId` (`uint2` each) and the `payload` words. The specialized
        /// code reads none of it; the concrete type's data is the sibling member `value`
        /// (the payload itself, [`Self::EXISTENTIAL_PAYLOAD`], when the type fits it). Inside
        /// a buffer the interface-typed value itself is the header, its payload the child
        /// `value`.
        const EXISTENTIAL = 8;
        /// The payload of an existential header that holds the concrete value (an
        /// interface-typed value inside a buffer specialized with a type argument, `uniform
        /// ILight gLight` with `--type-arg Sun`): its children are the concrete type's
        /// members packed into consecutive 32-bit words in declaration order, as Slang's
        /// `AnyValue` marshalling stores them (the SPIR-V has only `uint` words there).
        const EXISTENTIAL_PAYLOAD = 16;
    }
}

/// [`MemberFlags::ELEMENT_RELATIVE`] as a raw value.
pub const MEMBER_ELEMENT_RELATIVE: u32 = MemberFlags::ELEMENT_RELATIVE.to_raw();
/// [`MemberFlags::HAS_DEFAULT`] as a raw value.
pub const MEMBER_HAS_DEFAULT: u32 = MemberFlags::HAS_DEFAULT.to_raw();
/// [`MemberFlags::DEFAULT_IS_FLOAT`] as a raw value.
pub const MEMBER_DEFAULT_IS_FLOAT: u32 = MemberFlags::DEFAULT_IS_FLOAT.to_raw();
/// [`MemberFlags::EXISTENTIAL`] as a raw value.
pub const MEMBER_EXISTENTIAL: u32 = MemberFlags::EXISTENTIAL.to_raw();
/// [`MemberFlags::EXISTENTIAL_PAYLOAD`] as a raw value.
pub const MEMBER_EXISTENTIAL_PAYLOAD: u32 = MemberFlags::EXISTENTIAL_PAYLOAD.to_raw();

/// [`BufferMember::array_count`] of a runtime-sized array.
pub const ARRAY_UNBOUNDED: u32 = ABSENT;

record! {
    /// One member of a buffer layout.
    pub struct BufferMember [80] {
        /// Dotted path relative to the buffer, `[]` marking an array element:
        /// `light.sunDirection`, `layers[].tint`. String index.
        #[refs(string)]
        pub path: u32,
        /// The member's own name. String index.
        #[refs(string)]
        pub name: u32,
        /// Parent member (absolute index into buffer members), absent at the top level.
        #[refs(index BufferMembers)]
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
        /// [`MemberFlags`].
        pub flags: u32,
        /// Default value bits, low half.
        pub default_lo: u32,
        /// Default value bits, high half.
        pub default_hi: u32,
        /// First user attribute (index into member attributes).
        #[refs(range MemberAttributes, attribute_count)]
        pub first_attribute: u32,
        /// Number of user attributes.
        pub attribute_count: u32,
    }
}

record! {
    /// A user attribute attached to a buffer member (`[Range(0, 1)] float roughness;`).
    pub struct MemberAttribute [12] {
        /// The attribute's name. String index.
        #[refs(string)]
        pub name: u32,
        /// The arguments rendered as text, comma-separated (`0, 1`). String index.
        #[refs(string)]
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
        #[refs(string)]
        pub semantic_name: u32,
        /// Semantic index (`TEXCOORD1` has 1).
        pub semantic_index: u32,
        /// Dotted path of the input (`input.uv0`). String index.
        #[refs(string)]
        pub name: u32,
        /// [`VertexInputFlags`].
        pub flags: u32,
    }
}

raw_flags! {
    /// [`VertexInput::flags`].
    pub struct VertexInputFlags {
        /// The entry point's SPIR-V declares the input: the compiled code reads it (Slang
        /// drops unused inputs from the SPIR-V; feeding one anyway draws a validation-layer
        /// warning).
        const USED = 1;
    }
}

/// [`VertexInputFlags::USED`] as a raw value.
pub const VERTEX_INPUT_USED: u32 = VertexInputFlags::USED.to_raw();

record! {
    /// A specialization constant.
    pub struct SpecializationConstant [24] {
        /// The constant id (`VkSpecializationMapEntry::constantID`).
        pub id: u32,
        /// Its name. String index.
        #[refs(string)]
        pub name: u32,
        /// `SlangScalarType` raw value.
        pub scalar_type: u32,
        /// Default value bits, low half (an `f64` for float types, else an `i64`).
        pub default_lo: u32,
        /// Default value bits, high half.
        pub default_hi: u32,
        /// [`SpecializationFlags`].
        pub flags: u32,
    }
}

raw_flags! {
    /// [`SpecializationConstant::flags`].
    pub struct SpecializationFlags {
        /// The constant has a default value (in `default_lo`/`default_hi`).
        const HAS_DEFAULT = 1;
        /// The default is an `f64` (bits), else an `i64`.
        const DEFAULT_IS_FLOAT = 2;
    }
}

record! {
    /// A shader-record block (`[[vk::shader_record]] ConstantBuffer<T> sbt;`) of ray-tracing
    /// stages: data the shader reads from its record in the shader binding table, after the
    /// shader group handle. Not a descriptor: it has no set or binding.
    pub struct ShaderRecordBlock [24] {
        /// The block parameter's path, string index.
        #[refs(string)]
        pub name: u32,
        /// Byte size of the data (from the record's data start).
        pub size: u32,
        /// `VkShaderStageFlags` of the entry points whose SPIR-V declares the block.
        pub stage_flags: u32,
        /// Bit `i` set: entry point `i`'s SPIR-V declares the block.
        pub entry_point_mask: u32,
        /// The block's buffer layout (index into buffer layouts, kind
        /// [`BufferKind::ShaderRecord`]).
        #[refs(index BufferLayouts)]
        pub buffer_layout: u32,
        /// Reserved, zero.
        pub reserved: u32,
    }
}

record! {
    /// One colour output of a fragment entry point, from its SPIR-V: an `Output` variable with
    /// a `Location` (`SV_Target<N>`; built-ins such as `SV_Depth` have none and are stated by
    /// [`ExecutionModes`]). What a pipeline's colour attachments must match: one per
    /// location, of a format whose numeric type (float, signed or unsigned integer) is the
    /// output's. Since 1.3.
    pub struct FragmentOutput [24] {
        /// The entry point (index into the entry's entry points).
        pub entry_point: u32,
        /// `Location`: the colour attachment index.
        pub location: u32,
        /// `Index` (dual-source blending: 1 is the second source of location 0), else 0.
        pub index: u32,
        /// `SlangScalarType` raw value of one component (float32, int32, uint32, float16, ...).
        pub scalar_type: u32,
        /// Components (1 to 4).
        pub component_count: u32,
        /// The variable's name in the SPIR-V (Slang's name for it), string index.
        #[refs(string)]
        pub name: u32,
    }
}

record! {
    /// How one entry point's SPIR-V executes, from its `OpExecutionMode`s and capabilities:
    /// the facts pipeline creation needs beyond bindings — tessellation output vertices,
    /// spacing and winding; geometry input and output primitives, maximum vertices and
    /// invocations; mesh output primitive and limits; early fragment tests and the depth
    /// mode; whether the module uses input attachments (a subpass, or dynamic rendering's
    /// local read). One per entry point, in entry-point order. Primitive and spacing fields
    /// hold the SPIR-V `ExecutionMode` value that states them, 0 when the module states none;
    /// counts are 0 when not stated. Since 1.3.
    pub struct ExecutionModes [32] {
        /// The entry point (index into the entry's entry points).
        pub entry_point: u32,
        /// [`ModeFlags`].
        pub flags: u32,
        /// Geometry input or tessellation domain: `InputPoints` 19, `InputLines` 20,
        /// `InputLinesAdjacency` 21, `Triangles` 22, `InputTrianglesAdjacency` 23, `Quads` 24,
        /// `Isolines` 25.
        pub input_primitive: u32,
        /// Geometry or mesh output: `OutputPoints` 27, `OutputLineStrip` 28,
        /// `OutputTriangleStrip` 29, `OutputLinesEXT` 5269, `OutputTrianglesEXT` 5298.
        pub output_primitive: u32,
        /// `OutputVertices`: a geometry stage's maximum vertices, a tessellation control
        /// stage's output patch size, a mesh stage's maximum vertices.
        pub output_vertices: u32,
        /// `OutputPrimitivesEXT`: a mesh stage's maximum primitives.
        pub output_primitives: u32,
        /// `Invocations`: a geometry stage's instance count.
        pub invocations: u32,
        /// Tessellation spacing: `SpacingEqual` 1, `SpacingFractionalEven` 2,
        /// `SpacingFractionalOdd` 3.
        pub spacing: u32,
    }
}

raw_flags! {
    /// [`ExecutionModes::flags`].
    pub struct ModeFlags {
        /// `EarlyFragmentTests` (`[earlydepthstencil]`).
        const EARLY_FRAGMENT_TESTS = 1;
        /// `DepthReplacing`: the fragment stage writes depth (`SV_Depth`).
        const DEPTH_REPLACING = 2;
        /// `DepthGreater` (`SV_DepthGreaterEqual`).
        const DEPTH_GREATER = 4;
        /// `DepthLess` (`SV_DepthLessEqual`).
        const DEPTH_LESS = 8;
        /// `DepthUnchanged`.
        const DEPTH_UNCHANGED = 16;
        /// `PointMode`: tessellation emits points.
        const POINT_MODE = 32;
        /// `VertexOrderCw`: tessellation emits clockwise triangles.
        const VERTEX_ORDER_CW = 64;
        /// `VertexOrderCcw`: tessellation emits counter-clockwise triangles.
        const VERTEX_ORDER_CCW = 128;
        /// The module declares the `InputAttachment` capability: it needs a render pass
        /// subpass (or `VK_KHR_dynamic_rendering_local_read`); plain dynamic rendering refuses
        /// it (`VUID-VkGraphicsPipelineCreateInfo-renderPass-06061`), even when no input
        /// attachment is read.
        const INPUT_ATTACHMENT_CAPABILITY = 256;
        /// The entry point's code reads an input attachment (an input-attachment variable is
        /// in its interface or used by its functions).
        const READS_INPUT_ATTACHMENTS = 512;
        /// `PostDepthCoverage`.
        const POST_DEPTH_COVERAGE = 1024;
        /// The module declares the `SampleRateShading` capability (it reads `SV_SampleIndex`
        /// or interpolates at samples): the stage runs per sample.
        const SAMPLE_RATE_SHADING = 2048;
    }
}

named_raw_enum! {
    /// A primitive an [`ExecutionModes`] record states, by its SPIR-V `ExecutionMode` value,
    /// named as `slangpack dump --json` prints it.
    pub enum PrimitiveMode {
        /// `InputPoints`: a geometry stage reads points.
        InputPoints = 19 => "points",
        /// `InputLines`.
        InputLines = 20 => "lines",
        /// `InputLinesAdjacency`.
        InputLinesAdjacency = 21 => "lines_adjacency",
        /// `Triangles`: a geometry stage reads triangles, or the tessellation domain is
        /// triangles.
        Triangles = 22 => "triangles",
        /// `InputTrianglesAdjacency`.
        InputTrianglesAdjacency = 23 => "triangles_adjacency",
        /// `Quads`: the tessellation domain is quads.
        Quads = 24 => "quads",
        /// `Isolines`: the tessellation domain is isolines.
        Isolines = 25 => "isolines",
        /// `OutputPoints`: a geometry or mesh stage emits points.
        OutputPoints = 27 => "output_points",
        /// `OutputLineStrip`: a geometry stage emits line strips.
        OutputLineStrip = 28 => "output_line_strip",
        /// `OutputTriangleStrip`: a geometry stage emits triangle strips.
        OutputTriangleStrip = 29 => "output_triangle_strip",
        /// `OutputLinesEXT`: a mesh stage emits lines.
        OutputLines = 5269 => "output_lines",
        /// `OutputTrianglesEXT`: a mesh stage emits triangles.
        OutputTriangles = 5298 => "output_triangles",
    }
}

named_raw_enum! {
    /// Tessellation spacing ([`ExecutionModes::spacing`]), by its SPIR-V `ExecutionMode`
    /// value.
    pub enum Spacing {
        /// `SpacingEqual` (`partitioning("integer")`).
        Equal = 1 => "equal",
        /// `SpacingFractionalEven`.
        FractionalEven = 2 => "fractional_even",
        /// `SpacingFractionalOdd`.
        FractionalOdd = 3 => "fractional_odd",
    }
}

/// [`ModeFlags::EARLY_FRAGMENT_TESTS`] as a raw value.
pub const MODE_EARLY_FRAGMENT_TESTS: u32 = ModeFlags::EARLY_FRAGMENT_TESTS.to_raw();
/// [`ModeFlags::DEPTH_REPLACING`] as a raw value.
pub const MODE_DEPTH_REPLACING: u32 = ModeFlags::DEPTH_REPLACING.to_raw();
/// [`ModeFlags::DEPTH_GREATER`] as a raw value.
pub const MODE_DEPTH_GREATER: u32 = ModeFlags::DEPTH_GREATER.to_raw();
/// [`ModeFlags::DEPTH_LESS`] as a raw value.
pub const MODE_DEPTH_LESS: u32 = ModeFlags::DEPTH_LESS.to_raw();
/// [`ModeFlags::DEPTH_UNCHANGED`] as a raw value.
pub const MODE_DEPTH_UNCHANGED: u32 = ModeFlags::DEPTH_UNCHANGED.to_raw();
/// [`ModeFlags::POINT_MODE`] as a raw value.
pub const MODE_POINT_MODE: u32 = ModeFlags::POINT_MODE.to_raw();
/// [`ModeFlags::VERTEX_ORDER_CW`] as a raw value.
pub const MODE_VERTEX_ORDER_CW: u32 = ModeFlags::VERTEX_ORDER_CW.to_raw();
/// [`ModeFlags::VERTEX_ORDER_CCW`] as a raw value.
pub const MODE_VERTEX_ORDER_CCW: u32 = ModeFlags::VERTEX_ORDER_CCW.to_raw();
/// [`ModeFlags::INPUT_ATTACHMENT_CAPABILITY`] as a raw value.
pub const MODE_INPUT_ATTACHMENT_CAPABILITY: u32 = ModeFlags::INPUT_ATTACHMENT_CAPABILITY.to_raw();
/// [`ModeFlags::READS_INPUT_ATTACHMENTS`] as a raw value.
pub const MODE_READS_INPUT_ATTACHMENTS: u32 = ModeFlags::READS_INPUT_ATTACHMENTS.to_raw();
/// [`ModeFlags::POST_DEPTH_COVERAGE`] as a raw value.
pub const MODE_POST_DEPTH_COVERAGE: u32 = ModeFlags::POST_DEPTH_COVERAGE.to_raw();
/// [`ModeFlags::SAMPLE_RATE_SHADING`] as a raw value.
pub const MODE_SAMPLE_RATE_SHADING: u32 = ModeFlags::SAMPLE_RATE_SHADING.to_raw();

/// Every [`ModeFlags`] bit with the name `slangpack dump --json` gives it, in bit order.
pub const MODE_FLAG_NAMES: [(ModeFlags, &str); 12] = [
    (ModeFlags::EARLY_FRAGMENT_TESTS, "early_fragment_tests"),
    (ModeFlags::DEPTH_REPLACING, "depth_replacing"),
    (ModeFlags::DEPTH_GREATER, "depth_greater"),
    (ModeFlags::DEPTH_LESS, "depth_less"),
    (ModeFlags::DEPTH_UNCHANGED, "depth_unchanged"),
    (ModeFlags::POINT_MODE, "point_mode"),
    (ModeFlags::VERTEX_ORDER_CW, "vertex_order_cw"),
    (ModeFlags::VERTEX_ORDER_CCW, "vertex_order_ccw"),
    (
        ModeFlags::INPUT_ATTACHMENT_CAPABILITY,
        "input_attachment_capability",
    ),
    (
        ModeFlags::READS_INPUT_ATTACHMENTS,
        "reads_input_attachments",
    ),
    (ModeFlags::POST_DEPTH_COVERAGE, "post_depth_coverage"),
    (ModeFlags::SAMPLE_RATE_SHADING, "sample_rate_shading"),
];

raw_enum! {
    /// What a [`NameIndexSlot::target`] points at (its top 4 bits).
    pub enum NameKind {
        /// A descriptor binding, by its path.
        Binding = 1,
        /// A buffer member, by `<buffer name>.<member path>`.
        Member = 2,
        /// A buffer layout, by its name.
        Buffer = 3,
    }
}

/// [`NameKind::Binding`] as a raw value.
pub const NAME_BINDING: u32 = NameKind::Binding.to_raw();
/// [`NameKind::Member`] as a raw value.
pub const NAME_MEMBER: u32 = NameKind::Member.to_raw();
/// [`NameKind::Buffer`] as a raw value.
pub const NAME_BUFFER: u32 = NameKind::Buffer.to_raw();

/// Bits of [`NameIndexSlot::target`] below the kind: the index.
const NAME_INDEX_MASK: u32 = 0x0fff_ffff;

/// Builds a [`NameIndexSlot::target`] from a raw kind and a 28-bit index.
#[must_use]
pub const fn name_target(kind: u32, index: u32) -> u32 {
    (kind << 28) | (index & NAME_INDEX_MASK)
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

/// A default value of a buffer member or specialization constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultValue {
    /// An integer (or boolean) default, sign-extended to 64 bits.
    Int(i64),
    /// A floating-point default.
    Float(f64),
}

impl DefaultValue {
    const fn from_bits(has: bool, is_float: bool, lo: u32, hi: u32) -> Option<Self> {
        if !has {
            return None;
        }
        let bits = crate::join_u64(lo, hi);
        Some(if is_float {
            Self::Float(f64::from_bits(bits))
        } else {
            Self::Int(bits as i64)
        })
    }
}

impl DescriptorBinding {
    /// The descriptor type.
    #[must_use]
    pub const fn kind(&self) -> DescriptorKind {
        DescriptorKind::from_raw(self.descriptor_type)
    }

    /// Whether the count is fixed, unbounded or zero-length.
    #[must_use]
    pub const fn array_kind(&self) -> ArrayKind {
        ArrayKind::from_raw(self.count_kind)
    }

    /// The descriptor types a [`DescriptorKind::Mutable`] binding may hold, in
    /// `VkDescriptorType` order; none for other bindings.
    pub fn mutable_kinds(&self) -> impl Iterator<Item = DescriptorKind> + '_ {
        (0..32u32)
            .filter(move |t| self.mutable_types & (1 << t) != 0)
            .map(DescriptorKind::from_raw)
    }

    /// The descriptor count to put in `VkDescriptorSetLayoutBinding::descriptorCount`:
    /// `Some(n)` for a fixed count, `None` for an unbounded array (the engine picks the
    /// capacity); a zero-length array gives `Some(0)` and is no descriptor at all. A count
    /// kind this version does not know reads as fixed.
    #[must_use]
    pub const fn descriptor_count(&self) -> Option<u32> {
        match self.array_kind() {
            ArrayKind::Unbounded => None,
            ArrayKind::ZeroLength => Some(0),
            _ => Some(self.count),
        }
    }

    /// The binding's flags (implicit buffers, writable, unused).
    #[must_use]
    pub const fn binding_flags(&self) -> BindingFlags {
        BindingFlags::from_raw(self.flags)
    }

    /// The stages that use the binding (`VkShaderStageFlags`).
    #[must_use]
    pub const fn stages(&self) -> ShaderStageFlags {
        ShaderStageFlags::from_raw(self.stage_flags)
    }

    /// Whether entry point `index` (its position in the entry) uses the binding; `false` past
    /// the 32nd entry point, which the mask does not represent.
    #[must_use]
    pub const fn used_by(&self, index: u32) -> bool {
        index < 32 && self.entry_point_mask & (1 << index) != 0
    }

    /// The image format's name as written in `[format("...")]`, `None` when unknown.
    #[must_use]
    pub const fn image_format_name(&self) -> Option<&'static str> {
        image_format_name(self.image_format)
    }

    /// The base resource shape (flags stripped).
    #[must_use]
    pub const fn shape(&self) -> ResourceShape {
        ResourceShape::base(self.resource_shape)
    }

    /// The resource access.
    #[must_use]
    pub const fn access(&self) -> ResourceAccess {
        ResourceAccess::from_raw(self.resource_access)
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

impl DescriptorSetLayout {
    /// The set's flags.
    #[must_use]
    pub const fn set_flags(&self) -> SetFlags {
        SetFlags::from_raw(self.flags)
    }
}

impl PushConstantRange {
    /// The stages of the range (`VkShaderStageFlags`).
    #[must_use]
    pub const fn stages(&self) -> ShaderStageFlags {
        ShaderStageFlags::from_raw(self.stage_flags)
    }
}

impl BufferLayout {
    /// What kind of buffer this is.
    #[must_use]
    pub const fn buffer_kind(&self) -> BufferKind {
        BufferKind::from_raw(self.kind)
    }

    /// The matrix layout the buffer was laid out with.
    #[must_use]
    pub const fn matrix_layout_mode(&self) -> MatrixLayout {
        MatrixLayout::from_raw(self.matrix_layout)
    }
}

impl BufferMember {
    /// The member's (element) type kind.
    #[must_use]
    pub const fn kind(&self) -> crate::TypeKind {
        crate::TypeKind::from_raw(self.type_kind)
    }

    /// The (element) scalar type.
    #[must_use]
    pub const fn scalar(&self) -> ScalarType {
        ScalarType::from_raw(self.scalar_type)
    }

    /// The matrix layout of a matrix member.
    #[must_use]
    pub const fn matrix_layout_mode(&self) -> MatrixLayout {
        MatrixLayout::from_raw(self.matrix_layout)
    }

    /// The member's flags.
    #[must_use]
    pub const fn member_flags(&self) -> MemberFlags {
        MemberFlags::from_raw(self.flags)
    }

    /// The default value, if the member has one.
    #[must_use]
    pub const fn default_value(&self) -> Option<DefaultValue> {
        let f = self.member_flags();
        DefaultValue::from_bits(
            f.contains(MemberFlags::HAS_DEFAULT),
            f.contains(MemberFlags::DEFAULT_IS_FLOAT),
            self.default_lo,
            self.default_hi,
        )
    }
}

impl VertexInput {
    /// The `VkFormat` of one location.
    #[must_use]
    pub const fn vk_format(&self) -> Format {
        Format::from_raw(self.format)
    }

    /// The scalar type.
    #[must_use]
    pub const fn scalar(&self) -> ScalarType {
        ScalarType::from_raw(self.scalar_type)
    }

    /// The input's flags.
    #[must_use]
    pub const fn input_flags(&self) -> VertexInputFlags {
        VertexInputFlags::from_raw(self.flags)
    }

    /// Whether the entry point's compiled code reads the input.
    #[must_use]
    pub const fn is_used(&self) -> bool {
        self.input_flags().contains(VertexInputFlags::USED)
    }
}

impl FragmentOutput {
    /// The scalar type of one component.
    #[must_use]
    pub const fn scalar(&self) -> ScalarType {
        ScalarType::from_raw(self.scalar_type)
    }
}

impl ExecutionModes {
    /// The modes' flags.
    #[must_use]
    pub const fn mode_flags(&self) -> ModeFlags {
        ModeFlags::from_raw(self.flags)
    }

    /// The names of the flags that are set ([`MODE_FLAG_NAMES`]), in bit order.
    pub fn flag_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        MODE_FLAG_NAMES
            .iter()
            .filter(|(flag, _)| self.mode_flags().contains(*flag))
            .map(|(_, name)| *name)
    }

    /// The geometry input primitive or tessellation domain, if stated.
    #[must_use]
    pub const fn input_primitive(&self) -> Option<PrimitiveMode> {
        match self.input_primitive {
            0 => None,
            raw => Some(PrimitiveMode::from_raw(raw)),
        }
    }

    /// The geometry or mesh output primitive, if stated.
    #[must_use]
    pub const fn output_primitive(&self) -> Option<PrimitiveMode> {
        match self.output_primitive {
            0 => None,
            raw => Some(PrimitiveMode::from_raw(raw)),
        }
    }

    /// The tessellation spacing, if stated.
    #[must_use]
    pub const fn spacing(&self) -> Option<Spacing> {
        match self.spacing {
            0 => None,
            raw => Some(Spacing::from_raw(raw)),
        }
    }
}

impl SpecializationConstant {
    /// The scalar type.
    #[must_use]
    pub const fn scalar(&self) -> ScalarType {
        ScalarType::from_raw(self.scalar_type)
    }

    /// The constant's flags.
    #[must_use]
    pub const fn specialization_flags(&self) -> SpecializationFlags {
        SpecializationFlags::from_raw(self.flags)
    }

    /// The default value, if the constant has one.
    #[must_use]
    pub const fn default_value(&self) -> Option<DefaultValue> {
        let f = self.specialization_flags();
        DefaultValue::from_bits(
            f.contains(SpecializationFlags::HAS_DEFAULT),
            f.contains(SpecializationFlags::DEFAULT_IS_FLOAT),
            self.default_lo,
            self.default_hi,
        )
    }
}

impl ShaderRecordBlock {
    /// The stages whose SPIR-V declares the block (`VkShaderStageFlags`).
    #[must_use]
    pub const fn stages(&self) -> ShaderStageFlags {
        ShaderStageFlags::from_raw(self.stage_flags)
    }
}

impl NameIndexSlot {
    /// An empty slot.
    pub const EMPTY: Self = Self {
        hash_lo: 0,
        hash_hi: 0,
        target: ABSENT,
    };

    /// A slot naming entry `index` of the table `kind` selects, keyed by `hash`
    /// ([`name_hash`]).
    #[must_use]
    pub const fn new(hash: u64, kind: NameKind, index: u32) -> Self {
        let (hash_lo, hash_hi) = crate::split_u64(hash);
        Self {
            hash_lo,
            hash_hi,
            target: name_target(kind.to_raw(), index),
        }
    }

    /// Whether the slot is empty (ends a probe).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.target == ABSENT
    }

    /// The name's hash.
    #[must_use]
    pub const fn hash(&self) -> u64 {
        crate::join_u64(self.hash_lo, self.hash_hi)
    }

    /// What the slot points at; `None` for an empty slot.
    #[must_use]
    pub const fn kind(&self) -> Option<NameKind> {
        if self.is_empty() {
            None
        } else {
            Some(NameKind::from_raw(self.target >> 28))
        }
    }

    /// The index into the table [`Self::kind`] selects.
    #[must_use]
    pub const fn index(&self) -> u32 {
        self.target & NAME_INDEX_MASK
    }
}

/// The hash the name index is keyed by: xxh3-64 of the name's UTF-8 bytes.
#[inline]
#[must_use]
pub fn name_hash(name: &str) -> u64 {
    crate::xxh3_64(name.as_bytes())
}

/// Builds the name index of `names` (`(name, kind, index)`): one slot per distinct
/// `(name, kind)` (the lowest index wins), a power-of-two table at most half full, names
/// inserted in sorted order so the bytes are deterministic. No names give no slots.
#[must_use]
pub fn build_name_index(mut names: Vec<(String, NameKind, u32)>) -> Vec<NameIndexSlot> {
    names.sort_by(|a, b| (a.0.as_str(), a.1.to_raw(), a.2).cmp(&(b.0.as_str(), b.1.to_raw(), b.2)));
    // The same path may name a binding and a buffer: keep one slot per (name, kind).
    names.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    if names.is_empty() {
        return Vec::new();
    }
    let len = (names.len() * 2).next_power_of_two();
    let mut slots = vec![NameIndexSlot::EMPTY; len];
    for (name, kind, index) in &names {
        let hash = name_hash(name);
        let mut i = (hash as usize) & (len - 1);
        while !slots[i].is_empty() {
            i = (i + 1) & (len - 1);
        }
        slots[i] = NameIndexSlot::new(hash, *kind, *index);
    }
    slots
}

/// The indices the name index `slots` holds for `name` under `kind`, in probe order: the
/// candidates a lookup confirms by comparing the name itself (hashes can collide). Allocates
/// nothing; visits each slot at most once, so a full table of any bytes ends too.
#[inline]
#[must_use]
pub fn probe_name_index<'a>(
    slots: &'a [NameIndexSlot],
    name: &str,
    kind: NameKind,
) -> NameProbe<'a> {
    let hash = name_hash(name);
    let mask = slots.len().wrapping_sub(1);
    NameProbe {
        slots,
        hash,
        kind,
        at: (hash as usize) & mask,
        left: if slots.len().is_power_of_two() {
            slots.len()
        } else {
            0
        },
    }
}

/// Iterator over a name's candidate indices ([`probe_name_index`]).
#[derive(Debug, Clone)]
pub struct NameProbe<'a> {
    slots: &'a [NameIndexSlot],
    hash: u64,
    kind: NameKind,
    at: usize,
    left: usize,
}

impl Iterator for NameProbe<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.left > 0 {
            self.left -= 1;
            let slot = self.slots.get(self.at)?;
            self.at = (self.at + 1) & (self.slots.len() - 1);
            if slot.is_empty() {
                self.left = 0;
                return None;
            }
            if slot.hash() == self.hash && slot.kind() == Some(self.kind) {
                return Some(slot.index());
            }
        }
        None
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
    BufferKind::from_raw(kind).name()
}

/// The stage names (`vertex`, `fragment`, `compute`, ...) of a `VkShaderStageFlags` mask, in
/// bit order: [`ShaderStageFlags::names`].
pub fn stage_flag_names(flags: u32) -> impl Iterator<Item = &'static str> {
    ShaderStageFlags::from_raw(flags).names()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_index_round_trip() {
        let names: Vec<(String, NameKind, u32)> = (0..300)
            .map(|i| (format!("gScene.member{i}"), NameKind::Member, i))
            .chain([
                ("gScene".to_string(), NameKind::Buffer, 0),
                // The same path as a binding and a buffer: one slot each.
                ("gScene".to_string(), NameKind::Binding, 4),
                // A duplicate (name, kind): the lowest index wins.
                ("gScene".to_string(), NameKind::Binding, 9),
            ])
            .collect();
        let slots = build_name_index(names);
        assert_eq!(slots.len(), 1024, "302 names, at most half full");
        assert_eq!(slots.iter().filter(|s| !s.is_empty()).count(), 302);
        for i in 0..300 {
            let found: Vec<u32> =
                probe_name_index(&slots, &format!("gScene.member{i}"), NameKind::Member).collect();
            assert_eq!(found, [i]);
        }
        let binding: Vec<u32> = probe_name_index(&slots, "gScene", NameKind::Binding).collect();
        assert_eq!(binding, [4]);
        let buffer: Vec<u32> = probe_name_index(&slots, "gScene", NameKind::Buffer).collect();
        assert_eq!(buffer, [0]);
        assert_eq!(
            probe_name_index(&slots, "gScene", NameKind::Member).count(),
            0
        );
        assert_eq!(
            probe_name_index(&slots, "missing", NameKind::Binding).count(),
            0
        );
        // The bytes are those of the documented layout: a slot's hash is xxh3-64 of the name.
        let slot = slots
            .iter()
            .find(|s| s.kind() == Some(NameKind::Buffer))
            .unwrap();
        assert_eq!(slot.hash(), crate::xxh3_64(b"gScene"));
        assert_eq!(slot.target, 3 << 28, "kind 3 (buffer), index 0");
        assert!(build_name_index(Vec::new()).is_empty());
    }

    #[test]
    fn name_index_probe_ends_on_any_table() {
        // A full table (no empty slot), a table that is not a power of two, an empty one, and
        // slots of an unknown kind: probes end and find only what matches.
        let full = vec![NameIndexSlot::new(name_hash("x"), NameKind::Binding, 1); 8];
        assert_eq!(probe_name_index(&full, "x", NameKind::Binding).count(), 8);
        assert_eq!(probe_name_index(&full, "y", NameKind::Binding).count(), 0);
        let odd = vec![NameIndexSlot::new(name_hash("x"), NameKind::Binding, 1); 3];
        assert_eq!(probe_name_index(&odd, "x", NameKind::Binding).count(), 0);
        assert_eq!(probe_name_index(&[], "x", NameKind::Binding).count(), 0);
        let unknown = NameIndexSlot {
            target: 9 << 28 | 5,
            ..NameIndexSlot::new(name_hash("x"), NameKind::Binding, 0)
        };
        assert_eq!(unknown.kind(), Some(NameKind::Unknown(9)));
        assert_eq!(unknown.index(), 5);
        assert_eq!(
            probe_name_index(&[unknown, NameIndexSlot::EMPTY], "x", NameKind::Binding).count(),
            0
        );
        assert_eq!(NameIndexSlot::EMPTY.kind(), None);
    }

    #[test]
    fn typed_getters_keep_unknown_values() {
        let b = DescriptorBinding {
            descriptor_type: 999,
            count_kind: 7,
            count: 3,
            stage_flags: 0x8000_0010,
            flags: 0x100 | BindingFlags::WRITABLE.to_raw(),
            entry_point_mask: 0b10,
            ..DescriptorBinding::default()
        };
        assert_eq!(b.kind(), DescriptorKind::Unknown(999));
        assert_eq!(b.array_kind(), ArrayKind::Unknown(7));
        assert_eq!(
            b.descriptor_count(),
            Some(3),
            "an unknown count kind reads as fixed"
        );
        assert!(b.stages().contains(ShaderStageFlags::FRAGMENT));
        assert_eq!(b.stages().unknown_bits(), 0x8000_0000);
        assert_eq!(b.binding_flags().unknown_bits(), 0x100);
        assert!(b.binding_flags().contains(BindingFlags::WRITABLE));
        assert!(!b.used_by(0) && b.used_by(1) && !b.used_by(40));
        let layout = BufferLayout {
            kind: 9,
            ..BufferLayout::default()
        };
        assert_eq!(layout.buffer_kind(), BufferKind::Unknown(9));
        assert_eq!(layout.buffer_kind().name(), "unknown");
        let input = VertexInput {
            format: 12345,
            flags: 2,
            ..VertexInput::default()
        };
        assert_eq!(input.vk_format(), Format::Unknown(12345));
        assert!(!input.is_used());
        let set = DescriptorSetLayout {
            flags: 3,
            ..DescriptorSetLayout::default()
        };
        assert!(set.set_flags().contains(SetFlags::HAS_UNBOUNDED));
        assert_eq!(set.set_flags().unknown_bits(), 2);
    }

    #[test]
    fn default_values() {
        let (lo, hi) = crate::split_u64(0.5f64.to_bits());
        let member = BufferMember {
            flags: (MemberFlags::HAS_DEFAULT | MemberFlags::DEFAULT_IS_FLOAT).to_raw(),
            default_lo: lo,
            default_hi: hi,
            ..BufferMember::default()
        };
        assert_eq!(member.default_value(), Some(DefaultValue::Float(0.5)));
        let (lo, hi) = crate::split_u64((-3i64) as u64);
        let constant = SpecializationConstant {
            flags: SpecializationFlags::HAS_DEFAULT.to_raw(),
            default_lo: lo,
            default_hi: hi,
            ..SpecializationConstant::default()
        };
        assert_eq!(constant.default_value(), Some(DefaultValue::Int(-3)));
        assert_eq!(BufferMember::default().default_value(), None);
    }
}

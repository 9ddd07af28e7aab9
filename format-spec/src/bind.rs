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
pub use names::*;
pub use pipeline::*;

mod names;
mod pipeline;

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
        /// The data a buffer device address points at (`ConstBufferPointer<T>`, `T*`): the
        /// layout of `T` in the buffer memory the address names, reached through a
        /// [`MemberPointee`]; no set or binding. Since 1.7.
        Pointee = 6 => "pointee",
        /// A uniform or storage buffer reached through a descriptor heap
        /// (`DescriptorHandle<ConstantBuffer<T>>`; `DescriptorHandle<RWStructuredBuffer<T>>`,
        /// whose layout is one element's and whose stride is the element stride): its set and
        /// binding are those of the heap binding (`__slang_resource_heap.*`) that holds its
        /// descriptor, and the handle member refers to it through a [`MemberPointee`]. Since
        /// 1.7.
        Heap = 7 => "heap",
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
/// [`BufferKind::Pointee`] as a raw value.
pub const BUFFER_POINTEE: u32 = BufferKind::Pointee.to_raw();
/// [`BufferKind::Heap`] as a raw value.
pub const BUFFER_HEAP: u32 = BufferKind::Heap.to_raw();

record! {
    /// The memory layout of one buffer: a flattened pre-order list of members.
    pub struct BufferLayout [40] {
        /// Path of the parameter that owns the buffer (`gScene`, `gDraw`, `gHistogram`);
        /// member paths are relative to it. String index.
        #[refs(string)]
        pub name: u32,
        /// [`BufferKind`] raw value.
        pub kind: u32,
        /// Set of the buffer's descriptor, absent for push constants and pointees (a heap
        /// buffer's is its heap binding's).
        pub set: u32,
        /// Binding of the buffer's descriptor, absent for push constants and pointees (a
        /// heap buffer's is its heap binding's).
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
        /// One type a dynamically dispatched existential may hold (`--conformance A:I
        /// --conformance B:I`), a child of the payload ([`Self::EXISTENTIAL_PAYLOAD`]) named
        /// after the type: its children are the type's members packed into the payload's
        /// words, so the payload's children overlap, one per type, like a union. Its
        /// [`ExistentialConformance`] gives the id to write into the header's `witnessId`.
        /// Since 1.8.
        const CONFORMANCE = 32;
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

/// [`MemberFlags::CONFORMANCE`] as a raw value.
pub const MEMBER_CONFORMANCE: u32 = MemberFlags::CONFORMANCE.to_raw();

record! {
    /// One type a dynamically dispatched existential (an interface-typed value in a buffer
    /// with several conforming types) may hold, and the id its code dispatches on. Since 1.8.
    pub struct ExistentialConformance [16] {
        /// The existential's header: the member flagged [`MemberFlags::EXISTENTIAL`], whose
        /// children are `typeId`, `witnessId` and the payload `value` (index into buffer
        /// members).
        #[refs(index BufferMembers)]
        pub existential: u32,
        /// The member holding this type's data in the payload, flagged
        /// [`MemberFlags::CONFORMANCE`] and named after the type (index into buffer members).
        #[refs(index BufferMembers)]
        pub member: u32,
        /// The interface's name. String index.
        #[refs(string)]
        pub interface: u32,
        /// The conformance id: the value the code compares the first word of the header's
        /// `witnessId` with to call this type's methods, so the value an engine writes there
        /// for a value of this type. The writer gives Slang these ids (`--conformance` order
        /// among the conformances to one interface, from 0) and checks them against the
        /// SPIR-V's dispatch switch. The `typeId` is not read by SPIR-V code.
        pub id: u32,
    }
}

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
    /// A buffer member that refers to another buffer layout: a buffer device address
    /// (`ConstBufferPointer<T>`, `T*`; the layout is a [`BufferKind::Pointee`]) or a
    /// descriptor handle of a buffer (`DescriptorHandle<ConstantBuffer<T>>`,
    /// `DescriptorHandle<StructuredBuffer<T>>`; the layout is a [`BufferKind::Heap`]). Sorted by `member`, one record per member. Pointee layouts are
    /// shared: every pointer to one type names one layout, and a type that points at itself
    /// (a linked-list node) names the layout it is a member of. Since 1.7.
    pub struct MemberPointee [8] {
        /// The pointer or handle member (index into buffer members).
        #[refs(index BufferMembers)]
        pub member: u32,
        /// The layout of the data it refers to (index into buffer layouts).
        #[refs(index BufferLayouts)]
        pub buffer_layout: u32,
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
    if raw == 0 {
        return None;
    }
    let mut rest: &[&str] = &NAMES;
    let mut at = 0;
    while let [name, tail @ ..] = rest {
        if at == raw {
            return Some(name);
        }
        (rest, at) = (tail, at + 1);
    }
    None
}

/// The snake-case name of a [`BufferLayout::kind`] (`uniform`, `push_constant`,
/// `structured_element`, `parameter_block`, `global`, `shader_record`, `pointee`, `heap`), as in
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

/// The `ash` form of a push-constant range (feature `ash`), beside [`crate::vk`]'s
/// conversions of the numbers it holds.
#[cfg(feature = "ash")]
impl From<&PushConstantRange> for ash::vk::PushConstantRange {
    fn from(range: &PushConstantRange) -> Self {
        Self {
            stage_flags: range.stages().into(),
            offset: range.offset,
            size: range.size,
        }
    }
}

#[cfg(test)]
mod tests;

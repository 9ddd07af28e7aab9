//! Vulkan's numbers as the bind view stores them: `VkShaderStageFlags`, `VkDescriptorType` and
//! the `VkFormat`s of vertex inputs, with the names `slangpack dump --json` and `diff` print.
//!
//! This is the one place these values are spelled: the writer stores them, the reader and the
//! tools name and convert them (the reader's `ash` feature turns them into `ash::vk` types).
//!
//! ```
//! use slangpack_format::vk::{DescriptorKind, Format, ShaderStageFlags};
//! use slangpack_format::{ScalarType, Stage};
//!
//! assert_eq!(Stage::Fragment.vk_stage_flags(), ShaderStageFlags::FRAGMENT);
//! let flags = ShaderStageFlags::VERTEX | ShaderStageFlags::FRAGMENT;
//! assert_eq!(flags.names().collect::<Vec<_>>(), ["vertex", "fragment"]);
//! assert_eq!(DescriptorKind::from_raw(7).name(), "storage_buffer");
//! let format = Format::vertex(ScalarType::Float32, 3);
//! assert_eq!((format.to_raw(), format.name(), format.size()), (106, "r32g32b32_sfloat", Some(12)));
//! ```

use crate::enums::{named_raw_enum, raw_flags};
use crate::{BindingType, ScalarType, Stage};

raw_flags! {
    /// `VkShaderStageFlags`, as stored in the bind view's `stage_flags` fields.
    pub struct ShaderStageFlags {
        /// `VK_SHADER_STAGE_VERTEX_BIT`.
        const VERTEX = 0x1;
        /// `VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT` (Slang's hull stage).
        const TESSELLATION_CONTROL = 0x2;
        /// `VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT` (Slang's domain stage).
        const TESSELLATION_EVALUATION = 0x4;
        /// `VK_SHADER_STAGE_GEOMETRY_BIT`.
        const GEOMETRY = 0x8;
        /// `VK_SHADER_STAGE_FRAGMENT_BIT`.
        const FRAGMENT = 0x10;
        /// `VK_SHADER_STAGE_COMPUTE_BIT`.
        const COMPUTE = 0x20;
        /// `VK_SHADER_STAGE_TASK_BIT_EXT` (Slang's amplification stage).
        const TASK = 0x40;
        /// `VK_SHADER_STAGE_MESH_BIT_EXT`.
        const MESH = 0x80;
        /// `VK_SHADER_STAGE_RAYGEN_BIT_KHR`.
        const RAYGEN = 0x100;
        /// `VK_SHADER_STAGE_ANY_HIT_BIT_KHR`.
        const ANY_HIT = 0x200;
        /// `VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR`.
        const CLOSEST_HIT = 0x400;
        /// `VK_SHADER_STAGE_MISS_BIT_KHR`.
        const MISS = 0x800;
        /// `VK_SHADER_STAGE_INTERSECTION_BIT_KHR`.
        const INTERSECTION = 0x1000;
        /// `VK_SHADER_STAGE_CALLABLE_BIT_KHR`.
        const CALLABLE = 0x2000;
    }
}

/// Every stage with a Vulkan stage bit, in bit order.
const STAGE_BITS: [(ShaderStageFlags, Stage); 14] = [
    (ShaderStageFlags::VERTEX, Stage::Vertex),
    (ShaderStageFlags::TESSELLATION_CONTROL, Stage::Hull),
    (ShaderStageFlags::TESSELLATION_EVALUATION, Stage::Domain),
    (ShaderStageFlags::GEOMETRY, Stage::Geometry),
    (ShaderStageFlags::FRAGMENT, Stage::Fragment),
    (ShaderStageFlags::COMPUTE, Stage::Compute),
    (ShaderStageFlags::TASK, Stage::Amplification),
    (ShaderStageFlags::MESH, Stage::Mesh),
    (ShaderStageFlags::RAYGEN, Stage::RayGeneration),
    (ShaderStageFlags::ANY_HIT, Stage::AnyHit),
    (ShaderStageFlags::CLOSEST_HIT, Stage::ClosestHit),
    (ShaderStageFlags::MISS, Stage::Miss),
    (ShaderStageFlags::INTERSECTION, Stage::Intersection),
    (ShaderStageFlags::CALLABLE, Stage::Callable),
];

impl Stage {
    /// The stage's `VkShaderStageFlags` bit; empty for stages Vulkan has no bit for
    /// (`None`, `Dispatch`, unknown values).
    #[must_use]
    pub const fn vk_stage_flags(self) -> ShaderStageFlags {
        let mut rest: &[(ShaderStageFlags, Stage)] = &STAGE_BITS;
        while let [(bit, stage), tail @ ..] = rest {
            if stage.to_raw() == self.to_raw() && !matches!(self, Stage::Unknown(_)) {
                return *bit;
            }
            rest = tail;
        }
        ShaderStageFlags::empty()
    }
}

impl ShaderStageFlags {
    /// The stages whose bits are set, in bit order (unknown bits are skipped).
    pub fn stages(self) -> impl Iterator<Item = Stage> {
        STAGE_BITS
            .into_iter()
            .filter(move |(bit, _)| self.contains(*bit))
            .map(|(_, stage)| stage)
    }

    /// The names of the stages whose bits are set, in bit order ([`Stage::name`]:
    /// `vertex`, `fragment`, `compute`, ...), as `slangpack dump --json` lists them.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        self.stages().map(Stage::name)
    }
}

named_raw_enum! {
    /// A Vulkan descriptor type (`VkDescriptorType`), as stored in
    /// [`crate::bind::DescriptorBinding::descriptor_type`], named in snake case without prefix
    /// as `slangpack dump --json` prints it.
    pub enum DescriptorKind {
        /// `VK_DESCRIPTOR_TYPE_SAMPLER`.
        Sampler = 0 => "sampler",
        /// `VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER`.
        CombinedImageSampler = 1 => "combined_image_sampler",
        /// `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`.
        SampledImage = 2 => "sampled_image",
        /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`.
        StorageImage = 3 => "storage_image",
        /// `VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER`.
        UniformTexelBuffer = 4 => "uniform_texel_buffer",
        /// `VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER`.
        StorageTexelBuffer = 5 => "storage_texel_buffer",
        /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`.
        UniformBuffer = 6 => "uniform_buffer",
        /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`.
        StorageBuffer = 7 => "storage_buffer",
        /// `VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT`.
        InputAttachment = 10 => "input_attachment",
        /// `VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK`.
        InlineUniformBlock = 1_000_138_000 => "inline_uniform_block",
        /// `VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR`.
        AccelerationStructure = 1_000_150_000 => "acceleration_structure",
        /// `VK_DESCRIPTOR_TYPE_MUTABLE_EXT` (`VK_EXT_mutable_descriptor_type`): a binding that
        /// may hold any of the descriptor types listed in
        /// [`crate::bind::DescriptorBinding::mutable_types`]. Since 1.1.
        Mutable = 1_000_351_000 => "mutable",
    }
}

impl DescriptorKind {
    /// The descriptor type of a Slang binding type (`SlangBindingType`, mutable flag
    /// included), `None` for binding types that are no Vulkan descriptor of their own (the
    /// writer then decides from the parameter's type).
    #[must_use]
    pub const fn from_binding_type(binding_type: BindingType) -> Option<Self> {
        Some(match binding_type {
            BindingType::Sampler => Self::Sampler,
            BindingType::Texture => Self::SampledImage,
            BindingType::MutableTexture => Self::StorageImage,
            BindingType::ConstantBuffer | BindingType::ParameterBlock => Self::UniformBuffer,
            BindingType::TypedBuffer => Self::UniformTexelBuffer,
            BindingType::MutableTypedBuffer => Self::StorageTexelBuffer,
            BindingType::RawBuffer | BindingType::MutableRawBuffer => Self::StorageBuffer,
            BindingType::CombinedTextureSampler => Self::CombinedImageSampler,
            BindingType::InputRenderTarget => Self::InputAttachment,
            BindingType::InlineUniformData => Self::InlineUniformBlock,
            BindingType::RayTracingAccelerationStructure => Self::AccelerationStructure,
            _ => return None,
        })
    }
}

named_raw_enum! {
    /// A `VkFormat`: the formats the writer stores for vertex inputs
    /// ([`crate::bind::VertexInput::format`]), named in snake case without prefix.
    pub enum Format {
        /// `VK_FORMAT_UNDEFINED`: the input has no Vulkan vertex format.
        Undefined = 0 => "undefined",
        /// `VK_FORMAT_R16_UINT`.
        R16Uint = 74 => "r16_uint",
        /// `VK_FORMAT_R16_SINT`.
        R16Sint = 75 => "r16_sint",
        /// `VK_FORMAT_R16_SFLOAT`.
        R16Sfloat = 76 => "r16_sfloat",
        /// `VK_FORMAT_R16G16_UINT`.
        R16G16Uint = 81 => "r16g16_uint",
        /// `VK_FORMAT_R16G16_SINT`.
        R16G16Sint = 82 => "r16g16_sint",
        /// `VK_FORMAT_R16G16_SFLOAT`.
        R16G16Sfloat = 83 => "r16g16_sfloat",
        /// `VK_FORMAT_R16G16B16_UINT`.
        R16G16B16Uint = 88 => "r16g16b16_uint",
        /// `VK_FORMAT_R16G16B16_SINT`.
        R16G16B16Sint = 89 => "r16g16b16_sint",
        /// `VK_FORMAT_R16G16B16_SFLOAT`.
        R16G16B16Sfloat = 90 => "r16g16b16_sfloat",
        /// `VK_FORMAT_R16G16B16A16_UINT`.
        R16G16B16A16Uint = 95 => "r16g16b16a16_uint",
        /// `VK_FORMAT_R16G16B16A16_SINT`.
        R16G16B16A16Sint = 96 => "r16g16b16a16_sint",
        /// `VK_FORMAT_R16G16B16A16_SFLOAT`.
        R16G16B16A16Sfloat = 97 => "r16g16b16a16_sfloat",
        /// `VK_FORMAT_R32_UINT`.
        R32Uint = 98 => "r32_uint",
        /// `VK_FORMAT_R32_SINT`.
        R32Sint = 99 => "r32_sint",
        /// `VK_FORMAT_R32_SFLOAT`.
        R32Sfloat = 100 => "r32_sfloat",
        /// `VK_FORMAT_R32G32_UINT`.
        R32G32Uint = 101 => "r32g32_uint",
        /// `VK_FORMAT_R32G32_SINT`.
        R32G32Sint = 102 => "r32g32_sint",
        /// `VK_FORMAT_R32G32_SFLOAT`.
        R32G32Sfloat = 103 => "r32g32_sfloat",
        /// `VK_FORMAT_R32G32B32_UINT`.
        R32G32B32Uint = 104 => "r32g32b32_uint",
        /// `VK_FORMAT_R32G32B32_SINT`.
        R32G32B32Sint = 105 => "r32g32b32_sint",
        /// `VK_FORMAT_R32G32B32_SFLOAT`.
        R32G32B32Sfloat = 106 => "r32g32b32_sfloat",
        /// `VK_FORMAT_R32G32B32A32_UINT`.
        R32G32B32A32Uint = 107 => "r32g32b32a32_uint",
        /// `VK_FORMAT_R32G32B32A32_SINT`.
        R32G32B32A32Sint = 108 => "r32g32b32a32_sint",
        /// `VK_FORMAT_R32G32B32A32_SFLOAT`.
        R32G32B32A32Sfloat = 109 => "r32g32b32a32_sfloat",
        /// `VK_FORMAT_R64_SFLOAT`.
        R64Sfloat = 112 => "r64_sfloat",
        /// `VK_FORMAT_R64G64_SFLOAT`.
        R64G64Sfloat = 115 => "r64g64_sfloat",
        /// `VK_FORMAT_R64G64B64_SFLOAT`.
        R64G64B64Sfloat = 118 => "r64g64b64_sfloat",
        /// `VK_FORMAT_R64G64B64A64_SFLOAT`.
        R64G64B64A64Sfloat = 121 => "r64g64b64a64_sfloat",
    }
}

impl Format {
    /// The vertex format of `components` (1 to 4) values of `scalar`, `Undefined` when Vulkan
    /// has none the writer uses (8-bit, 64-bit integer and boolean inputs, more than 4
    /// components).
    #[must_use]
    pub const fn vertex(scalar: ScalarType, components: u32) -> Self {
        // The one-component format and the distance between component counts: 3 for the
        // 32- and 64-bit families, 7 for the 16-bit ones (VkFormat lists UNORM, SNORM, ...
        // between them).
        let (first, step) = match scalar {
            ScalarType::Float32 => (100, 3),
            ScalarType::Int32 => (99, 3),
            ScalarType::UInt32 => (98, 3),
            ScalarType::Float64 => (112, 3),
            ScalarType::Float16 => (76, 7),
            ScalarType::Int16 => (75, 7),
            ScalarType::UInt16 => (74, 7),
            _ => return Self::Undefined,
        };
        if components < 1 || components > 4 {
            return Self::Undefined;
        }
        Self::from_raw(first + step * (components - 1))
    }

    /// Bytes of one attribute of this format, `None` for `Undefined` and unknown values.
    #[must_use]
    pub const fn size(self) -> Option<u32> {
        let raw = self.to_raw();
        let (first, step, bytes) = match raw {
            74..=97 => (74, 7, 2),
            98..=109 => (98, 3, 4),
            112..=121 => (112, 3, 8),
            _ => return None,
        };
        if matches!(self, Self::Unknown(_)) {
            return None;
        }
        Some(bytes * ((raw - first) / step + 1))
    }
}

/// Conversions into `ash::vk` types (feature `ash`): the stored raw values, unknown ones
/// included, become the `ash` newtypes of the same value.
#[cfg(feature = "ash")]
mod to_ash {
    use super::{DescriptorKind, Format, ShaderStageFlags};
    use ash::vk;

    impl From<ShaderStageFlags> for vk::ShaderStageFlags {
        fn from(flags: ShaderStageFlags) -> Self {
            Self::from_raw(flags.to_raw())
        }
    }

    impl From<DescriptorKind> for vk::DescriptorType {
        fn from(kind: DescriptorKind) -> Self {
            // VkDescriptorType is an i32 enum; stored values are its bit patterns.
            Self::from_raw(kind.to_raw() as i32)
        }
    }

    impl From<Format> for vk::Format {
        fn from(format: Format) -> Self {
            // VkFormat is an i32 enum; stored values are its bit patterns.
            Self::from_raw(format.to_raw() as i32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_bits_and_names() {
        for (bit, stage) in STAGE_BITS {
            assert_eq!(stage.vk_stage_flags(), bit);
            assert_eq!(bit.stages().collect::<Vec<_>>(), [stage]);
            assert_eq!(Stage::from_name(stage.name()), Some(stage));
        }
        assert!(Stage::None.vk_stage_flags().is_empty());
        assert!(Stage::Dispatch.vk_stage_flags().is_empty());
        assert!(Stage::Unknown(1).vk_stage_flags().is_empty());
        assert_eq!(Stage::Unknown(99).name(), "unknown");
        let all = STAGE_BITS
            .iter()
            .fold(ShaderStageFlags::empty(), |acc, (bit, _)| acc | *bit);
        assert_eq!(all, ShaderStageFlags::KNOWN);
        assert_eq!(all.to_raw(), 0x3fff);
        assert_eq!(
            ShaderStageFlags::from_raw(0x11 | 0x8000)
                .names()
                .collect::<Vec<_>>(),
            ["vertex", "fragment"]
        );
    }

    #[test]
    fn flags_keep_unknown_bits() {
        let flags = ShaderStageFlags::from_raw(0x8010);
        assert_eq!(flags.to_raw(), 0x8010);
        assert_eq!(flags.unknown_bits(), 0x8000);
        assert!(flags.contains(ShaderStageFlags::FRAGMENT));
        assert!(!flags.contains(ShaderStageFlags::VERTEX));
        assert_eq!(format!("{flags:?}"), "ShaderStageFlags(FRAGMENT | 0x8000)");
        assert_eq!(
            format!("{:?}", ShaderStageFlags::empty()),
            "ShaderStageFlags()"
        );
    }

    #[test]
    fn descriptor_kinds() {
        for raw in [
            0,
            1,
            2,
            3,
            4,
            5,
            6,
            7,
            10,
            1_000_138_000,
            1_000_150_000,
            1_000_351_000,
        ] {
            let kind = DescriptorKind::from_raw(raw);
            assert!(!matches!(kind, DescriptorKind::Unknown(_)));
            assert_eq!(kind.to_raw(), raw);
            assert_eq!(DescriptorKind::from_name(kind.name()), Some(kind));
        }
        for raw in [8, 9, 11, 1_000_351_001] {
            assert_eq!(DescriptorKind::from_raw(raw), DescriptorKind::Unknown(raw));
            assert_eq!(DescriptorKind::from_raw(raw).name(), "unknown");
        }
        assert_eq!(
            DescriptorKind::from_binding_type(BindingType::MutableTexture),
            Some(DescriptorKind::StorageImage)
        );
        assert_eq!(
            DescriptorKind::from_binding_type(BindingType::from_raw(0x106)),
            Some(DescriptorKind::StorageBuffer)
        );
        assert_eq!(
            DescriptorKind::from_binding_type(BindingType::PushConstant),
            None
        );
        assert_eq!(
            DescriptorKind::from_binding_type(BindingType::Unknown(99)),
            None
        );
    }

    #[test]
    fn vertex_formats() {
        use ScalarType as S;
        let cases = [
            (S::Float32, 1, 100, 4),
            (S::Float32, 4, 109, 16),
            (S::Int32, 2, 102, 8),
            (S::UInt32, 3, 104, 12),
            (S::Float64, 2, 115, 16),
            (S::Float16, 4, 97, 8),
            (S::Int16, 1, 75, 2),
            (S::UInt16, 3, 88, 6),
        ];
        for (scalar, n, raw, size) in cases {
            let f = Format::vertex(scalar, n);
            assert_eq!(f.to_raw(), raw, "{scalar:?} x {n}");
            assert!(!matches!(f, Format::Unknown(_)));
            assert_eq!(f.size(), Some(size), "{f:?}");
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::vertex(S::Float32, 0), Format::Undefined);
        assert_eq!(Format::vertex(S::Float32, 5), Format::Undefined);
        assert_eq!(Format::vertex(S::Bool, 1), Format::Undefined);
        assert_eq!(Format::vertex(S::Int64, 1), Format::Undefined);
        assert_eq!(Format::Undefined.size(), None);
        // Raw values between named formats (UNORM, SNORM, ... in Vulkan) are unknown here.
        for raw in [77, 110, 111, 122, 37] {
            assert_eq!(Format::from_raw(raw), Format::Unknown(raw));
            assert_eq!(Format::from_raw(raw).size(), None);
            assert_eq!(Format::from_raw(raw).name(), "unknown");
        }
    }
}

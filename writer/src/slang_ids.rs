//! Slang's raw enum values that the bind-view and per-target walks compare Slang's answers
//! against, named once (from `slangpack_format`'s enums), and the small type questions both
//! walks ask.

use slangpack_format::{BindingType, ParameterCategory, ResourceShape, ScalarType, TypeKind};

// SlangParameterCategory values.
pub(crate) const CAT_CONSTANT_BUFFER: u32 = ParameterCategory::ConstantBuffer.to_raw();
pub(crate) const CAT_SHADER_RESOURCE: u32 = ParameterCategory::ShaderResource.to_raw();
pub(crate) const CAT_UNORDERED_ACCESS: u32 = ParameterCategory::UnorderedAccess.to_raw();
pub(crate) const CAT_VARYING_OUTPUT: u32 = ParameterCategory::VaryingOutput.to_raw();
pub(crate) const CAT_SAMPLER_STATE: u32 = ParameterCategory::SamplerState.to_raw();
pub(crate) const CAT_METAL_ARGUMENT_BUFFER_ELEMENT: u32 =
    ParameterCategory::MetalArgumentBufferElement.to_raw();
pub(crate) const CAT_VARYING_INPUT: u32 = ParameterCategory::VaryingInput.to_raw();
pub(crate) const CAT_UNIFORM: u32 = ParameterCategory::Uniform.to_raw();
pub(crate) const CAT_DESCRIPTOR_SLOT: u32 = ParameterCategory::DescriptorTableSlot.to_raw();
pub(crate) const CAT_SPECIALIZATION_CONSTANT: u32 =
    ParameterCategory::SpecializationConstant.to_raw();
pub(crate) const CAT_PUSH_CONSTANT: u32 = ParameterCategory::PushConstantBuffer.to_raw();
pub(crate) const CAT_REGISTER_SPACE: u32 = ParameterCategory::RegisterSpace.to_raw();
pub(crate) const CAT_SHADER_RECORD: u32 = ParameterCategory::ShaderRecord.to_raw();
pub(crate) const CAT_SUB_ELEMENT_SPACE: u32 = ParameterCategory::SubElementRegisterSpace.to_raw();
pub(crate) const CAT_EXISTENTIAL_TYPE_PARAM: u32 = ParameterCategory::ExistentialTypeParam.to_raw();

// SlangTypeKind values.
pub(crate) const KIND_STRUCT: u32 = TypeKind::Struct.to_raw();
pub(crate) const KIND_ARRAY: u32 = TypeKind::Array.to_raw();
pub(crate) const KIND_MATRIX: u32 = TypeKind::Matrix.to_raw();
pub(crate) const KIND_VECTOR: u32 = TypeKind::Vector.to_raw();
pub(crate) const KIND_SCALAR: u32 = TypeKind::Scalar.to_raw();
pub(crate) const KIND_CONSTANT_BUFFER: u32 = TypeKind::ConstantBuffer.to_raw();
pub(crate) const KIND_RESOURCE: u32 = TypeKind::Resource.to_raw();
pub(crate) const KIND_SAMPLER: u32 = TypeKind::SamplerState.to_raw();
pub(crate) const KIND_TEXTURE_BUFFER: u32 = TypeKind::TextureBuffer.to_raw();
pub(crate) const KIND_STORAGE_BUFFER: u32 = TypeKind::ShaderStorageBuffer.to_raw();
pub(crate) const KIND_PARAMETER_BLOCK: u32 = TypeKind::ParameterBlock.to_raw();
pub(crate) const KIND_INTERFACE: u32 = TypeKind::Interface.to_raw();
pub(crate) const KIND_POINTER: u32 = TypeKind::Pointer.to_raw();
pub(crate) const KIND_GENERIC_TYPE_PARAMETER: u32 = TypeKind::GenericTypeParameter.to_raw();

// SlangResourceShape values.
pub(crate) const SHAPE_BASE_MASK: u32 = ResourceShape::BASE_MASK;
pub(crate) const SHAPE_TEXTURE_SUBPASS: u32 = ResourceShape::TextureSubpass.to_raw();
pub(crate) const SHAPE_STRUCTURED_BUFFER: u32 = ResourceShape::StructuredBuffer.to_raw();

// SlangBindingType values.
pub(crate) const BT_MUTABLE: u32 = BindingType::MUTABLE_FLAG;
pub(crate) const BT_COMBINED_TEXTURE_SAMPLER: u32 = BindingType::CombinedTextureSampler.to_raw();

// SlangScalarType values.
pub(crate) const SCALAR_INT32: u32 = ScalarType::Int32.to_raw();
pub(crate) const SCALAR_UINT32: u32 = ScalarType::UInt32.to_raw();
pub(crate) const SCALAR_INT64: u32 = ScalarType::Int64.to_raw();
pub(crate) const SCALAR_UINT64: u32 = ScalarType::UInt64.to_raw();

/// The scalar type of a scalar, vector or matrix type (`SlangScalarType`, 0 when none).
pub(crate) fn scalar_of(ty: slangpack_slang::reflection::Type<'_>) -> u32 {
    let mut t = Some(ty);
    while let Some(e) = t {
        let s = e.scalar_type();
        if s != 0 {
            return s;
        }
        t = e.element_type();
    }
    0
}

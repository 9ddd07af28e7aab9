//! The `wgpu` feature: a WGSL bind view as `wgpu::BindGroupLayoutEntry`s, per group.

use crate::targets::TargetBindView;
use slangpack_format::bind::image_format_name;
use slangpack_format::targets::*;
use slangpack_format::{Target, TargetBindingKind};
use wgpu::{
    BindGroupLayoutEntry, BindingType, BufferBindingType, SamplerBindingType, ShaderStages,
    StorageTextureAccess, TextureFormat, TextureSampleType, TextureViewDimension,
};

/// What the package cannot know and the caller decides for [`TargetBindView::wgpu_entries`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgpuLayoutOptions {
    /// Whether float textures are filterable (`TextureSampleType::Float { filterable }`) and
    /// non-comparison samplers filtering: true suits most color textures; false is needed
    /// for `r32float`-like formats without the `FLOAT32_FILTERABLE` feature.
    pub filterable: bool,
    /// Whether uniform and storage buffers take dynamic offsets.
    pub has_dynamic_offset: bool,
}

impl Default for WgpuLayoutOptions {
    fn default() -> Self {
        Self {
            filterable: true,
            has_dynamic_offset: false,
        }
    }
}

/// `wgpu::ShaderStages` of a `VkShaderStageFlags` mask (vertex, fragment, compute).
#[must_use]
pub fn wgpu_stages(vk_stage_flags: u32) -> ShaderStages {
    let mut s = ShaderStages::empty();
    if vk_stage_flags & 0x1 != 0 {
        s |= ShaderStages::VERTEX;
    }
    if vk_stage_flags & 0x10 != 0 {
        s |= ShaderStages::FRAGMENT;
    }
    if vk_stage_flags & 0x20 != 0 {
        s |= ShaderStages::COMPUTE;
    }
    s
}

/// The `wgpu::TextureFormat` of a `SlangImageFormat` raw value, for the formats WebGPU's
/// storage textures take.
#[must_use]
pub fn wgpu_storage_format(slang_image_format: u32) -> Option<TextureFormat> {
    Some(match image_format_name(slang_image_format)? {
        "rgba32f" => TextureFormat::Rgba32Float,
        "rgba16f" => TextureFormat::Rgba16Float,
        "rg32f" => TextureFormat::Rg32Float,
        "r32f" => TextureFormat::R32Float,
        "rgba8" => TextureFormat::Rgba8Unorm,
        "rgba8_snorm" => TextureFormat::Rgba8Snorm,
        "bgra8" => TextureFormat::Bgra8Unorm,
        "rgba32i" => TextureFormat::Rgba32Sint,
        "rgba16i" => TextureFormat::Rgba16Sint,
        "rgba8i" => TextureFormat::Rgba8Sint,
        "rg32i" => TextureFormat::Rg32Sint,
        "r32i" => TextureFormat::R32Sint,
        "rgba32ui" => TextureFormat::Rgba32Uint,
        "rgba16ui" => TextureFormat::Rgba16Uint,
        "rgba8ui" => TextureFormat::Rgba8Uint,
        "rg32ui" => TextureFormat::Rg32Uint,
        "r32ui" => TextureFormat::R32Uint,
        _ => return None,
    })
}

impl<'a> TargetBindView<'a> {
    /// The `wgpu::BindGroupLayoutEntry` of one WGSL binding, or `None` when it is not a
    /// WGSL binding or has no WebGPU form (a storage texture of a format WebGPU lacks).
    /// Visibility comes from the Vulkan binding's stages, or every stage of the program.
    #[must_use]
    pub fn wgpu_entry(
        &self,
        binding: &TargetBinding,
        options: WgpuLayoutOptions,
    ) -> Option<BindGroupLayoutEntry> {
        if binding.target != Target::Wgsl.to_raw() {
            return None;
        }
        let stages = self
            .vulkan_binding(binding)
            .map_or_else(|| self.program_stage_flags(), |b| b.stage_flags);
        let view_dimension = match binding.view_dimension {
            view_dimension::D1 => TextureViewDimension::D1,
            view_dimension::D2_ARRAY => TextureViewDimension::D2Array,
            view_dimension::CUBE => TextureViewDimension::Cube,
            view_dimension::CUBE_ARRAY => TextureViewDimension::CubeArray,
            view_dimension::D3 => TextureViewDimension::D3,
            _ => TextureViewDimension::D2,
        };
        let min_binding_size = core::num::NonZeroU64::new(binding.min_binding_size.into());
        let ty = match binding.binding_kind() {
            TargetBindingKind::UniformBuffer => BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                has_dynamic_offset: options.has_dynamic_offset,
                min_binding_size,
            },
            TargetBindingKind::StorageBuffer => BindingType::Buffer {
                ty: BufferBindingType::Storage {
                    read_only: binding.flags & TARGET_READ_ONLY != 0,
                },
                has_dynamic_offset: options.has_dynamic_offset,
                min_binding_size,
            },
            TargetBindingKind::Sampler => {
                BindingType::Sampler(if binding.flags & TARGET_COMPARISON != 0 {
                    SamplerBindingType::Comparison
                } else if options.filterable {
                    SamplerBindingType::Filtering
                } else {
                    SamplerBindingType::NonFiltering
                })
            }
            TargetBindingKind::Texture => BindingType::Texture {
                sample_type: match binding.sample_type {
                    sample_type::SINT => TextureSampleType::Sint,
                    sample_type::UINT => TextureSampleType::Uint,
                    sample_type::DEPTH => TextureSampleType::Depth,
                    _ => TextureSampleType::Float {
                        filterable: options.filterable,
                    },
                },
                view_dimension,
                multisampled: binding.flags & TARGET_MULTISAMPLED != 0,
            },
            TargetBindingKind::StorageTexture => BindingType::StorageTexture {
                access: if binding.flags & TARGET_READ_ONLY != 0 {
                    StorageTextureAccess::ReadOnly
                } else if binding.flags & TARGET_WRITE != 0 {
                    StorageTextureAccess::ReadWrite
                } else {
                    StorageTextureAccess::WriteOnly
                },
                format: wgpu_storage_format(binding.format)?,
                view_dimension,
            },
            _ => return None,
        };
        Some(BindGroupLayoutEntry {
            binding: binding.index,
            visibility: wgpu_stages(stages),
            ty,
            count: match binding.count {
                1 => None,
                n => core::num::NonZeroU32::new(n),
            },
        })
    }

    /// The entries of WGSL group `group`, in binding order: what
    /// `wgpu::Device::create_bind_group_layout` takes for that group. Bindings the code does
    /// not declare (unused) are included, so one layout serves every entry point. No
    /// allocation; collect into the descriptor's slice.
    pub fn wgpu_entries(
        &self,
        group: u32,
        options: WgpuLayoutOptions,
    ) -> impl Iterator<Item = BindGroupLayoutEntry> + 'a {
        let view = *self;
        self.space(group)
            .iter()
            .filter_map(move |b| view.wgpu_entry(b, options))
    }

    /// The number of bind groups a pipeline layout needs: highest group + 1 (0 when none).
    #[must_use]
    pub fn group_count(&self) -> u32 {
        self.bindings()
            .iter()
            .filter(|b| b.space != slangpack_format::ABSENT)
            .map(|b| b.space + 1)
            .max()
            .unwrap_or(0)
    }
}

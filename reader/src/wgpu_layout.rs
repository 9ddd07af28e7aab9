//! The `wgpu` feature: a WGSL bind view as `wgpu::BindGroupLayoutEntry`s, per group; one
//! pipeline's bind group layouts and pipeline layout in one call
//! ([`Pipeline::wgpu_layout`]); bind groups built by binding path ([`WgpuBindGroups`]).

use crate::pipeline::Pipeline;
use crate::targets::{TargetBindView, TargetCode};
use slangpack_format::bind::image_format_name;
use slangpack_format::targets::*;
use slangpack_format::vk::ShaderStageFlags;
use slangpack_format::{Target, TargetBindingKind, ABSENT};
use std::fmt;
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
    let flags = ShaderStageFlags::from_raw(vk_stage_flags);
    let mut s = ShaderStages::empty();
    for (vk, wgpu) in [
        (ShaderStageFlags::VERTEX, ShaderStages::VERTEX),
        (ShaderStageFlags::FRAGMENT, ShaderStages::FRAGMENT),
        (ShaderStageFlags::COMPUTE, ShaderStages::COMPUTE),
    ] {
        if flags.contains(vk) {
            s |= wgpu;
        }
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
    /// The `wgpu::BindGroupLayoutEntry` of one WGSL binding. Visibility comes from the Vulkan
    /// binding's stages, or every stage of the program.
    ///
    /// # Errors
    /// [`WgpuError::Inexpressible`], naming the binding, for one WebGPU has no form for (a
    /// storage texture of a format WebGPU lacks, a push-constant block, a binding of another
    /// target).
    pub fn wgpu_entry(
        &self,
        binding: &TargetBinding,
        options: WgpuLayoutOptions,
    ) -> Result<BindGroupLayoutEntry, WgpuError> {
        let stages = self
            .vulkan_binding(binding)
            .map_or_else(|| self.program_stage_flags(), |b| b.stage_flags);
        self.wgpu_entry_with(binding, stages, options)
    }

    /// [`Self::wgpu_entry`] with the binding's `VkShaderStageFlags` given.
    fn wgpu_entry_with(
        &self,
        binding: &TargetBinding,
        stages: u32,
        options: WgpuLayoutOptions,
    ) -> Result<BindGroupLayoutEntry, WgpuError> {
        let inexpressible = |why: String| WgpuError::Inexpressible {
            path: self.path(binding).to_owned(),
            why,
        };
        if binding.target != Target::Wgsl.to_raw() {
            return Err(inexpressible(format!(
                "a {} binding, not a WGSL one",
                Target::from_raw(binding.target).name()
            )));
        }
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
                format: wgpu_storage_format(binding.format).ok_or_else(|| {
                    inexpressible(format!(
                        "a storage texture of format {}, which WebGPU storage textures lack",
                        image_format_name(binding.format).unwrap_or("unknown")
                    ))
                })?,
                view_dimension,
            },
            kind => {
                return Err(inexpressible(format!(
                    "a {kind:?}, which WebGPU has no form for"
                )))
            }
        };
        Ok(BindGroupLayoutEntry {
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
    /// not declare (unused) are included, so one layout serves every entry point (one
    /// pipeline's: [`Pipeline::wgpu_entries`]). No allocation; collect into the descriptor's
    /// slice (`.collect::<Result<Vec<_>, _>>()?`).
    ///
    /// # Errors
    /// An item is [`WgpuError::Inexpressible`] for a binding WebGPU has no form for (see
    /// [`Self::wgpu_entry`]): an error, never a binding left out.
    pub fn wgpu_entries(
        &self,
        group: u32,
        options: WgpuLayoutOptions,
    ) -> impl Iterator<Item = Result<BindGroupLayoutEntry, WgpuError>> + 'a {
        let view = *self;
        self.space(group)
            .iter()
            .map(move |b| view.wgpu_entry(b, options))
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

/// Why a wgpu layout or bind group was not made. Owns what it names, so `?` takes it into
/// `Box<dyn Error>`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WgpuError {
    /// The entry has no WGSL bind view: it was baked without the WGSL target
    /// (`--target spirv,wgsl`, `Bake::target(Target::Wgsl)`).
    NoWgsl,
    /// The pipeline takes its stages from several entries ([`crate::Package::pipeline`]):
    /// the WebGPU helpers serve pipelines of one entry ([`crate::Entry::pipeline`]).
    AcrossEntries,
    /// A binding WebGPU cannot express (a storage texture of a format WebGPU lacks, a
    /// push-constant block).
    Inexpressible {
        /// The binding's path.
        path: String,
        /// What it is.
        why: String,
    },
    /// A binding of the pipeline that [`WgpuBindGroups::bind`] gave no resource.
    MissingResource {
        /// The binding's path.
        path: String,
    },
    /// A resource for a path that is no binding of the pipeline (or of no WGSL kind the
    /// resource fits: a sampler for a texture's path).
    UnexpectedResource {
        /// The path given.
        path: String,
    },
    /// A second resource for one binding.
    DuplicateResource {
        /// The path given.
        path: String,
    },
}

impl fmt::Display for WgpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoWgsl => f.write_str("the entry has no WGSL bind view (bake it for WGSL)"),
            Self::Inexpressible { path, why } => {
                write!(f, "binding `{path}` has no WebGPU form: {why}")
            }
            Self::AcrossEntries => f.write_str(
                "the pipeline spans several entries; the WebGPU helpers take a pipeline of one \
                 entry",
            ),
            Self::MissingResource { path } => {
                write!(f, "no resource given for binding `{path}` of the pipeline")
            }
            Self::UnexpectedResource { path } => write!(
                f,
                "a resource given for `{path}`, which is no binding of the pipeline"
            ),
            Self::DuplicateResource { path } => {
                write!(f, "a second resource given for binding `{path}`")
            }
        }
    }
}

impl std::error::Error for WgpuError {}

impl<'a> Pipeline<'a> {
    /// The pipeline's WGSL bind view (empty when the entry was not baked for WGSL).
    fn wgsl(&self) -> TargetBindView<'a> {
        self.bind_view().target(Target::Wgsl)
    }

    /// The `VkShaderStageFlags` of the pipeline's entry points that use WGSL binding
    /// `binding`, or `None` when none does (a binding of another pipeline of the file). A
    /// push-constant block's uniform buffer (no Vulkan binding) is used by the entry points
    /// whose SPIR-V declares the block.
    fn wgpu_stages_of(&self, view: &TargetBindView<'a>, binding: &TargetBinding) -> Option<u32> {
        let mask = match view.vulkan_binding(binding) {
            Some(vk) => vk.entry_point_mask,
            None => {
                let bind = self.bind_view();
                let path = view.path(binding);
                match bind
                    .push_constants()
                    .iter()
                    .find(|p| bind.string(p.name) == path)
                {
                    Some(range) if range.entry_point_mask != 0 => range.entry_point_mask,
                    _ => return Some(self.stage_flags()),
                }
            }
        };
        (mask & self.entry_point_mask() != 0).then(|| self.first_stage_flags_of(mask))
    }

    /// The WGSL bindings of the pipeline — those its entry points use — sorted by group and
    /// binding (of its first entry: the WebGPU helpers serve pipelines of one entry). No
    /// allocation.
    pub fn wgpu_bindings(&self) -> impl Iterator<Item = &'a TargetBinding> + 'a {
        let (pipeline, view) = (*self, self.wgsl());
        view.bindings()
            .iter()
            .filter(move |b| b.space != ABSENT && pipeline.wgpu_stages_of(&view, b).is_some())
    }

    /// The number of bind groups the pipeline's layout needs: its highest WGSL group + 1
    /// (groups it does not use in between take empty layouts).
    #[must_use]
    pub fn wgpu_group_count(&self) -> u32 {
        self.wgpu_bindings()
            .map(|b| b.space.saturating_add(1))
            .max()
            .unwrap_or(0)
    }

    /// The bind group layout entries of WGSL group `group` for this pipeline, in binding
    /// order: the bindings its entry points use, visible to those of its stages that use
    /// them. No allocation.
    ///
    /// # Errors
    /// An item is [`WgpuError::Inexpressible`] for a binding WebGPU has no form for.
    pub fn wgpu_entries(
        &self,
        group: u32,
        options: WgpuLayoutOptions,
    ) -> impl Iterator<Item = Result<BindGroupLayoutEntry, WgpuError>> + 'a {
        let (pipeline, view) = (*self, self.wgsl());
        view.space(group).iter().filter_map(move |b| {
            let stages = pipeline.wgpu_stages_of(&view, b)?;
            Some(view.wgpu_entry_with(b, stages, options))
        })
    }

    /// The pipeline's bind group layouts (one per group up to [`Self::wgpu_group_count`],
    /// empty ones for holes) and its pipeline layout, created on `device`; bind groups for it
    /// come from [`WgpuPipelineLayout::bind_groups`].
    ///
    /// # Errors
    /// [`WgpuError::NoWgsl`] for an entry without a WGSL bind view,
    /// [`WgpuError::Inexpressible`] for a binding WebGPU has no form for,
    /// [`WgpuError::AcrossEntries`] for a pipeline of several entries.
    pub fn wgpu_layout(
        &self,
        device: &wgpu::Device,
        options: WgpuLayoutOptions,
    ) -> Result<WgpuPipelineLayout<'a>, WgpuError> {
        if self.entries().count() > 1 {
            return Err(WgpuError::AcrossEntries);
        }
        let view = self.wgsl();
        if view.is_empty() {
            return Err(WgpuError::NoWgsl);
        }
        let mut bind_group_layouts = Vec::new();
        for group in 0..self.wgpu_group_count() {
            let entries = self
                .wgpu_entries(group, options)
                .collect::<Result<Vec<_>, _>>()?;
            bind_group_layouts.push(device.create_bind_group_layout(
                &wgpu::BindGroupLayoutDescriptor {
                    label: None,
                    entries: &entries,
                },
            ));
        }
        let refs: Vec<Option<&wgpu::BindGroupLayout>> =
            bind_group_layouts.iter().map(Some).collect();
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &refs,
            immediate_size: 0,
        });
        Ok(WgpuPipelineLayout {
            view,
            bindings: self.wgpu_bindings().collect(),
            bind_group_layouts,
            pipeline_layout,
        })
    }
}

/// One pipeline's wgpu layouts ([`Pipeline::wgpu_layout`]): a bind group layout per WGSL
/// group and the pipeline layout, with the bindings they describe.
#[derive(Debug)]
pub struct WgpuPipelineLayout<'a> {
    view: TargetBindView<'a>,
    bindings: Vec<&'a TargetBinding>,
    bind_group_layouts: Vec<wgpu::BindGroupLayout>,
    pipeline_layout: wgpu::PipelineLayout,
}

impl<'a> WgpuPipelineLayout<'a> {
    /// The pipeline layout, for `wgpu::ComputePipelineDescriptor::layout` and
    /// `wgpu::RenderPipelineDescriptor::layout`.
    #[must_use]
    pub fn pipeline_layout(&self) -> &wgpu::PipelineLayout {
        &self.pipeline_layout
    }

    /// The bind group layouts, by group (holes are empty layouts).
    #[must_use]
    pub fn bind_group_layouts(&self) -> &[wgpu::BindGroupLayout] {
        &self.bind_group_layouts
    }

    /// The WGSL bindings the layouts describe, sorted by group and binding.
    #[must_use]
    pub fn bindings(&self) -> &[&'a TargetBinding] {
        &self.bindings
    }

    /// The pipeline's WGSL bind view (paths, buffer layouts:
    /// [`TargetBindView::buffer_view`]).
    #[must_use]
    pub fn view(&self) -> TargetBindView<'a> {
        self.view
    }

    /// A builder of the pipeline's bind groups, resource by binding path.
    #[must_use]
    pub fn bind_groups<'r>(&'r self) -> WgpuBindGroups<'r, 'a> {
        WgpuBindGroups {
            layout: self,
            resources: vec![None; self.bindings.len()],
            error: None,
        }
    }
}

/// Bind groups built by binding path ([`WgpuPipelineLayout::bind_groups`]):
/// `.bind("gParams", buffer.as_entire_binding())` for each binding, then
/// [`WgpuBindGroups::finish`].
#[derive(Debug)]
pub struct WgpuBindGroups<'r, 'a> {
    layout: &'r WgpuPipelineLayout<'a>,
    resources: Vec<Option<wgpu::BindingResource<'r>>>,
    error: Option<WgpuError>,
}

impl<'r> WgpuBindGroups<'r, '_> {
    /// Gives `resource` to the binding at `path` (the parameter's path, as the bind view
    /// names it: `gParams`, `gBuffers.samples`; a texture and its sampler split from one
    /// combined binding share a path, and the resource's kind picks the record). A path that
    /// is no binding of the pipeline, or a second resource for one, makes
    /// [`WgpuBindGroups::finish`] fail.
    #[must_use]
    pub fn bind(mut self, path: &str, resource: wgpu::BindingResource<'r>) -> Self {
        if self.error.is_some() {
            return self;
        }
        let is_sampler = matches!(
            resource,
            wgpu::BindingResource::Sampler(_) | wgpu::BindingResource::SamplerArray(_)
        );
        let view = self.layout.view;
        let found = self.layout.bindings.iter().enumerate().find(|(_, b)| {
            let kind_fits = (b.binding_kind() == TargetBindingKind::Sampler) == is_sampler;
            let sampler_path = || {
                view.vulkan_binding(b)
                    .is_some_and(|v| view.string(v.sampler_path) == path)
            };
            kind_fits && (view.path(b) == path || (is_sampler && sampler_path()))
        });
        match found.map(|(i, _)| i) {
            Some(i) => match self.resources.get_mut(i) {
                Some(slot @ None) => *slot = Some(resource),
                _ => {
                    self.error = Some(WgpuError::DuplicateResource {
                        path: path.to_owned(),
                    });
                }
            },
            None => {
                self.error = Some(WgpuError::UnexpectedResource {
                    path: path.to_owned(),
                });
            }
        }
        self
    }

    /// Creates one bind group per group of the layout (empty ones for holes), by group:
    /// `pass.set_bind_group(i, &groups[i], &[])`.
    ///
    /// # Errors
    /// [`WgpuError::UnexpectedResource`] or [`WgpuError::DuplicateResource`] for the first
    /// wrong [`WgpuBindGroups::bind`], else [`WgpuError::MissingResource`] for the first
    /// binding given no resource.
    pub fn finish(self, device: &wgpu::Device) -> Result<Vec<wgpu::BindGroup>, WgpuError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let layout = self.layout;
        if let Some((b, _)) = layout
            .bindings
            .iter()
            .zip(&self.resources)
            .find(|(_, r)| r.is_none())
        {
            return Err(WgpuError::MissingResource {
                path: layout.view.path(b).to_owned(),
            });
        }
        let mut groups = Vec::with_capacity(layout.bind_group_layouts.len());
        for (group, bind_group_layout) in layout.bind_group_layouts.iter().enumerate() {
            let entries: Vec<wgpu::BindGroupEntry<'_>> = layout
                .bindings
                .iter()
                .zip(&self.resources)
                .filter(|(b, _)| b.space as usize == group)
                .filter_map(|(b, r)| {
                    Some(wgpu::BindGroupEntry {
                        binding: b.index,
                        resource: r.clone()?,
                    })
                })
                .collect();
            groups.push(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: bind_group_layout,
                entries: &entries,
            }));
        }
        Ok(groups)
    }
}

impl TargetCode<'_> {
    /// The WGSL as a `wgpu::ShaderModule` on `device` (labelled with the entry point's name in
    /// the code, which the pipeline descriptor's `entry_point` takes: [`Self::entry_name`]);
    /// `None` for code of another target.
    #[must_use]
    pub fn wgpu_shader_module(&self, device: &wgpu::Device) -> Option<wgpu::ShaderModule> {
        if self.target() != Target::Wgsl {
            return None;
        }
        let text = self.text()?;
        Some(device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(self.entry_name()),
            source: wgpu::ShaderSource::Wgsl(text.into()),
        }))
    }
}

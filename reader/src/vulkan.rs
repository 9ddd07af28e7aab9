//! The bind view in `ash::vk` types (feature `ash`): set layout bindings with their binding
//! flags, push-constant ranges, vertex input descriptions and specialization map entries.
//! Everything is an iterator over the mapped records or a value: nothing allocates, so an
//! engine collects into whatever storage it keeps (an array, a `SmallVec`, a `Vec`) or fills
//! its own slices ([`VkSetLayoutBindingIter::fill`]).
//!
//! Unbounded arrays (`Texture2D t[]`) get the capacity the caller chooses and the binding
//! flags bindless wants: partially bound and update after bind, and variable descriptor
//! count on the set's highest binding (Vulkan allows it there only). Zero-length arrays are
//! no descriptors and are left out.

use crate::bind::{BindView, SetLayout};
use crate::package::EntryPoint;
use ash::vk;
use core::borrow::Borrow;
use slangpack_format::bind::{ArrayKind, DescriptorBinding, SpecializationConstant, VertexInput};

/// The binding flags of an unbounded array that is not its set's highest binding.
const UNBOUNDED_FLAGS: vk::DescriptorBindingFlags = vk::DescriptorBindingFlags::from_raw(
    vk::DescriptorBindingFlags::PARTIALLY_BOUND.as_raw()
        | vk::DescriptorBindingFlags::UPDATE_AFTER_BIND.as_raw(),
);

/// The set layout bindings of `bindings` (one set's, sorted by binding number, as
/// [`SetLayout::bindings`] or a per-pipeline view gives them), with unbounded arrays at
/// `unbounded_capacity` descriptors. Generic over anything that borrows a
/// [`DescriptorBinding`], so records by reference and by value both work. A mutable
/// descriptor (`VK_DESCRIPTOR_TYPE_MUTABLE_EXT`, a descriptor heap of several kinds) also
/// needs its types in a `VkMutableDescriptorTypeCreateInfoEXT`:
/// [`DescriptorBinding::mutable_kinds`] lists them.
pub fn vk_set_layout_bindings<I>(
    bindings: I,
    unbounded_capacity: u32,
) -> VkSetLayoutBindingIter<I::IntoIter>
where
    I: IntoIterator,
    I::Item: Borrow<DescriptorBinding>,
{
    VkSetLayoutBindingIter {
        bindings: bindings.into_iter(),
        pending: None,
        unbounded_capacity,
    }
}

/// The `VkDescriptorSetLayoutCreateFlags` a set holding `bindings` needs:
/// `UPDATE_AFTER_BIND_POOL` when one of them is an unbounded array.
pub fn vk_set_layout_create_flags<I>(bindings: I) -> vk::DescriptorSetLayoutCreateFlags
where
    I: IntoIterator,
    I::Item: Borrow<DescriptorBinding>,
{
    if bindings
        .into_iter()
        .any(|b| b.borrow().array_kind() == ArrayKind::Unbounded)
    {
        vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL
    } else {
        vk::DescriptorSetLayoutCreateFlags::empty()
    }
}

/// Iterator over one set's `(VkDescriptorSetLayoutBinding, VkDescriptorBindingFlags)` pairs
/// ([`vk_set_layout_bindings`], [`SetLayout::vk_bindings`]).
#[derive(Debug, Clone)]
pub struct VkSetLayoutBindingIter<I> {
    bindings: I,
    /// The next descriptor binding, read ahead to know whether the current one is the last.
    pending: Option<DescriptorBinding>,
    unbounded_capacity: u32,
}

impl<I> VkSetLayoutBindingIter<I>
where
    I: Iterator,
    I::Item: Borrow<DescriptorBinding>,
{
    fn next_descriptor(&mut self) -> Option<DescriptorBinding> {
        self.bindings
            .by_ref()
            .map(|b| *b.borrow())
            .find(|b| b.array_kind() != ArrayKind::ZeroLength)
    }

    /// Writes the pairs into `bindings` and `flags` (the slices a
    /// `VkDescriptorSetLayoutCreateInfo` and its `VkDescriptorSetLayoutBindingFlagsCreateInfo`
    /// point at) and returns how many it wrote; `None` when the slices are too short (what
    /// fits is written).
    pub fn fill(
        self,
        bindings: &mut [vk::DescriptorSetLayoutBinding<'static>],
        flags: &mut [vk::DescriptorBindingFlags],
    ) -> Option<usize> {
        let mut written = 0;
        for (binding, binding_flags) in self {
            *bindings.get_mut(written)? = binding;
            *flags.get_mut(written)? = binding_flags;
            written += 1;
        }
        Some(written)
    }
}

impl<I> Iterator for VkSetLayoutBindingIter<I>
where
    I: Iterator,
    I::Item: Borrow<DescriptorBinding>,
{
    type Item = (
        vk::DescriptorSetLayoutBinding<'static>,
        vk::DescriptorBindingFlags,
    );

    fn next(&mut self) -> Option<Self::Item> {
        let current = match self.pending.take() {
            Some(b) => b,
            None => self.next_descriptor()?,
        };
        self.pending = self.next_descriptor();
        let (count, flags) = match current.descriptor_count() {
            Some(count) => (count, vk::DescriptorBindingFlags::empty()),
            None if self.pending.is_none() => (
                self.unbounded_capacity,
                UNBOUNDED_FLAGS | vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT,
            ),
            None => (self.unbounded_capacity, UNBOUNDED_FLAGS),
        };
        let binding = vk::DescriptorSetLayoutBinding::default()
            .binding(current.binding)
            .descriptor_type(current.kind().into())
            .descriptor_count(count)
            .stage_flags(current.stages().into());
        Some((binding, flags))
    }
}

impl<'a> SetLayout<'a> {
    /// This set's layout bindings and binding flags in `ash` types, unbounded arrays at
    /// `unbounded_capacity` descriptors ([`vk_set_layout_bindings`]).
    pub fn vk_bindings(
        &self,
        unbounded_capacity: u32,
    ) -> VkSetLayoutBindingIter<core::slice::Iter<'a, DescriptorBinding>> {
        vk_set_layout_bindings(self.bindings(), unbounded_capacity)
    }

    /// The set layout's create flags: `UPDATE_AFTER_BIND_POOL` for a set that holds an
    /// unbounded array (the stored set flag).
    #[must_use]
    pub fn vk_create_flags(&self) -> vk::DescriptorSetLayoutCreateFlags {
        if self.update_after_bind() {
            vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL
        } else {
            vk::DescriptorSetLayoutCreateFlags::empty()
        }
    }
}

impl<'a> BindView<'a> {
    /// The push-constant ranges as `VkPushConstantRange`s.
    pub fn vk_push_constant_ranges(
        &self,
    ) -> impl ExactSizeIterator<Item = vk::PushConstantRange> + Clone + 'a {
        self.push_constants()
            .iter()
            .map(vk::PushConstantRange::from)
    }

    /// The vertex attributes of entry point `entry_point` ([`EntryPoint::index`]) that its
    /// compiled code reads, in location order, packed tightly in that order into one vertex
    /// buffer at `binding` (a matrix input takes one attribute per location). Inputs the
    /// SPIR-V dropped are left out (feeding them draws a validation-layer warning); an input
    /// whose format Vulkan lacks (`VK_FORMAT_UNDEFINED`) is kept and takes no bytes, so the
    /// pipeline's creation names it.
    #[must_use]
    pub fn vk_vertex_attributes(
        &self,
        entry_point: u32,
        binding: u32,
    ) -> VkVertexAttributeIter<'a> {
        VkVertexAttributeIter {
            inputs: self.vertex_inputs(entry_point).iter(),
            current: None,
            binding,
            offset: 0,
        }
    }

    /// The vertex buffer binding [`Self::vk_vertex_attributes`] packs into: `binding`, per
    /// vertex, with the stride of all those attributes together.
    pub fn vk_vertex_binding(
        &self,
        entry_point: u32,
        binding: u32,
    ) -> vk::VertexInputBindingDescription {
        let stride = self.vk_vertex_attributes(entry_point, binding).end_offset();
        vk::VertexInputBindingDescription {
            binding,
            stride,
            input_rate: vk::VertexInputRate::VERTEX,
        }
    }

    /// One `VkSpecializationMapEntry` per specialization constant, packed in table order:
    /// each at the next offset, `size` from its scalar type (4 for `bool`, a `VkBool32`).
    #[must_use]
    pub fn vk_specialization_map_entries(&self) -> VkSpecializationMapEntryIter<'a> {
        VkSpecializationMapEntryIter {
            constants: self.specialization_constants().iter(),
            offset: 0,
        }
    }
}

impl EntryPoint<'_> {
    /// The stage as `VkShaderStageFlags` (`VkPipelineShaderStageCreateInfo::stage`).
    #[must_use]
    pub fn vk_stage(&self) -> vk::ShaderStageFlags {
        self.stage_flags().into()
    }
}

/// Iterator over an entry point's `VkVertexInputAttributeDescription`s
/// ([`BindView::vk_vertex_attributes`]).
#[derive(Debug, Clone)]
pub struct VkVertexAttributeIter<'a> {
    inputs: core::slice::Iter<'a, VertexInput>,
    /// The input being expanded and its next location's number and how many remain.
    current: Option<(&'a VertexInput, u32, u32)>,
    binding: u32,
    offset: u32,
}

impl VkVertexAttributeIter<'_> {
    /// The offset after the last attribute: the vertex stride.
    fn end_offset(mut self) -> u32 {
        self.by_ref().for_each(drop);
        self.offset
    }
}

impl Iterator for VkVertexAttributeIter<'_> {
    type Item = vk::VertexInputAttributeDescription;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((input, location, left)) = self.current.take() {
                if left > 0 {
                    let format = input.vk_format();
                    let attribute = vk::VertexInputAttributeDescription {
                        location,
                        binding: self.binding,
                        format: format.into(),
                        offset: self.offset,
                    };
                    self.offset = self.offset.wrapping_add(format.size().unwrap_or(0));
                    self.current = Some((input, location.wrapping_add(1), left - 1));
                    return Some(attribute);
                }
            }
            let input = self.inputs.find(|v| v.is_used())?;
            self.current = Some((input, input.location, input.location_count.max(1)));
        }
    }
}

/// Iterator over the `VkSpecializationMapEntry`s of a bind view
/// ([`BindView::vk_specialization_map_entries`]).
#[derive(Debug, Clone)]
pub struct VkSpecializationMapEntryIter<'a> {
    constants: core::slice::Iter<'a, SpecializationConstant>,
    offset: u32,
}

impl Iterator for VkSpecializationMapEntryIter<'_> {
    type Item = vk::SpecializationMapEntry;

    fn next(&mut self) -> Option<Self::Item> {
        let constant = self.constants.next()?;
        let size = constant.scalar().byte_size().unwrap_or(4);
        let entry = vk::SpecializationMapEntry {
            constant_id: constant.id,
            offset: self.offset,
            size: size as usize,
        };
        self.offset = self.offset.wrapping_add(size);
        Some(entry)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.constants.size_hint()
    }
}

impl ExactSizeIterator for VkSpecializationMapEntryIter<'_> {}

/// One set's bindings of a [`Pipeline`](crate::Pipeline), with the pipeline's own stage flags
/// ([`Pipeline::vk_set_layout_bindings`](crate::Pipeline::vk_set_layout_bindings)).
pub type VkPipelineSetLayoutBindings<'a> = VkSetLayoutBindingIter<
    core::iter::Map<
        crate::PipelineBindingIter<'a>,
        fn(crate::PipelineBinding<'a>) -> DescriptorBinding,
    >,
>;

/// A binding record with the stage flags of the pipeline's entry points that use it.
fn with_pipeline_stages(item: crate::PipelineBinding<'_>) -> DescriptorBinding {
    let mut binding = *item.record;
    binding.stage_flags = item.stage_flags;
    binding
}

impl<'a> crate::Pipeline<'a> {
    /// Set `set`'s layout bindings and binding flags in `ash` types, as
    /// [`vk_set_layout_bindings`] gives them, but with this pipeline's stage flags: only the
    /// stages of its entry points that use each binding (a binding's record has the stages
    /// of every pipeline of the entry). Unbounded arrays get `unbounded_capacity` descriptors.
    #[must_use]
    pub fn vk_set_layout_bindings(
        &self,
        set: u32,
        unbounded_capacity: u32,
    ) -> VkPipelineSetLayoutBindings<'a> {
        let with_stages: fn(crate::PipelineBinding<'a>) -> DescriptorBinding = with_pipeline_stages;
        vk_set_layout_bindings(self.set(set).map(with_stages), unbounded_capacity)
    }

    /// The create flags of set `set`'s layout in this pipeline: `UPDATE_AFTER_BIND_POOL`
    /// when one of its bindings the pipeline uses is an unbounded array.
    #[must_use]
    pub fn vk_set_layout_create_flags(&self, set: u32) -> vk::DescriptorSetLayoutCreateFlags {
        vk_set_layout_create_flags(self.set(set).map(|item| *item.record))
    }

    /// The vertex attributes of the pipeline's vertex stage (its first vertex entry point),
    /// packed tightly in location order into vertex buffer `binding`, as
    /// [`BindView::vk_vertex_attributes`] gives them; none without a vertex stage.
    #[must_use]
    pub fn vk_vertex_attributes(&self, binding: u32) -> VkVertexAttributeIter<'a> {
        match self.vertex_stage() {
            Some(ep) => ep.entry().bind().vk_vertex_attributes(ep.index(), binding),
            None => VkVertexAttributeIter {
                inputs: [].iter(),
                current: None,
                binding,
                offset: 0,
            },
        }
    }

    /// The vertex buffer binding [`Self::vk_vertex_attributes`] packs into (per vertex, the
    /// stride of all of them), or `None` without a vertex stage.
    #[must_use]
    pub fn vk_vertex_binding(&self, binding: u32) -> Option<vk::VertexInputBindingDescription> {
        let ep = self.vertex_stage()?;
        Some(ep.entry().bind().vk_vertex_binding(ep.index(), binding))
    }

    fn vertex_stage(&self) -> Option<EntryPoint<'a>> {
        self.entry_points()
            .find(|ep| ep.vk_stage() == vk::ShaderStageFlags::VERTEX)
    }

    /// The pipeline's push-constant ranges as `VkPushConstantRange`s, each with the stages of
    /// the pipeline's entry points whose block it is.
    pub fn vk_push_constant_ranges(
        &self,
    ) -> impl Iterator<Item = vk::PushConstantRange> + Clone + 'a {
        self.push_constants().map(|item| {
            vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::from_raw(item.stage_flags))
                .offset(item.record.offset)
                .size(item.record.size)
        })
    }
}

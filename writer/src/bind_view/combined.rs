//! A texture and a sampler declared at one set and binding — the usual port of GLSL's
//! `sampler2D` (`[[vk::binding(0, 1)]] Texture2D t; [[vk::binding(0, 1)]] SamplerState s;`) —
//! are one Vulkan descriptor: a `COMBINED_IMAGE_SAMPLER` that the shader uses through separate
//! image and sampler variables. The bind view makes them one binding naming both.

use super::walk::BindingOut;
use super::*;

/// Merges every (sampled image, sampler) pair at one set and binding with the same count into
/// the image's binding, which becomes a combined image sampler naming the sampler — unless
/// they belong to different pipelines (each is used, by disjoint entry points). Other bindings
/// sharing a number are left for the conflict check. Runs after the entry-point masks are set.
pub(super) fn merge(bindings: &mut Vec<BindingOut>) {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (i, a) in bindings.iter().enumerate() {
        let same: Vec<usize> = (0..bindings.len())
            .filter(|&j| (bindings[j].set, bindings[j].binding) == (a.set, a.binding))
            .collect();
        let [x, y] = same.as_slice() else { continue };
        let other = if *x == i { *y } else { *x };
        let b = &bindings[other];
        if a.descriptor_type == DescriptorKind::SampledImage.to_raw()
            && b.descriptor_type == DescriptorKind::Sampler.to_raw()
            && (a.count, a.count_kind) == (b.count, b.count_kind)
            && (a.entry_point.is_none()
                || b.entry_point.is_none()
                || a.entry_point == b.entry_point)
            && (a.entry_point_mask & b.entry_point_mask != 0
                || a.entry_point_mask == 0
                || b.entry_point_mask == 0)
        {
            pairs.push((i, other));
        }
    }
    let mut samplers: Vec<Option<BindingOut>> = Vec::new();
    let mut out: Vec<BindingOut> = Vec::with_capacity(bindings.len());
    let sampler_of: Vec<Option<usize>> = (0..bindings.len())
        .map(|i| pairs.iter().find(|p| p.0 == i).map(|p| p.1))
        .collect();
    let is_sampler: Vec<bool> = (0..bindings.len())
        .map(|i| pairs.iter().any(|p| p.1 == i))
        .collect();
    samplers.resize_with(bindings.len(), || None);
    for (i, b) in bindings.drain(..).enumerate() {
        if is_sampler[i] {
            samplers[i] = Some(b);
        } else {
            out.push(b);
        }
    }
    let mut images = out.iter_mut();
    for (i, sampler) in sampler_of.iter().enumerate() {
        if is_sampler[i] {
            continue;
        }
        let Some(image) = images.next() else { break };
        if let Some(sampler) = sampler.and_then(|s| samplers[s].take()) {
            image.descriptor_type = DescriptorKind::CombinedImageSampler.to_raw();
            image.entry_point_mask |= sampler.entry_point_mask;
            image.sampler_path = Some(sampler.path);
        }
    }
    *bindings = out;
}

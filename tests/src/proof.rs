//! Byte-for-byte binding proofs (seed 003, "Verify It Worked").
//!
//! A proof shader reads every binding it declares and writes every 32-bit word it read, in a
//! fixed order, to one `RWStructuredBuffer<uint>`. [`run`] builds the pipeline from a
//! [`ProgramLayout`] alone, fills every input from that description with a distinct
//! per-byte pattern ([`pattern`]), dispatches on lavapipe, predicts every output word from
//! the description and the bytes it wrote, and compares. A description with a wrong set,
//! binding, offset or stride predicts different words (or builds a layout the validation
//! layer rejects), so the proof can fail: [`run`] returns `Err` then.

use crate::layout::{Binding, BufferLayout, Count, Member, MemberType, ProgramLayout};
use crate::vk::{Buffer, Vk};
use ash::vk;
use std::collections::BTreeMap;

/// The fill pattern of one input: byte `i` of element `element` of (`set`, `binding`).
///
/// `(i*7 + (i>>8)*11 + binding*31 + set*13 + element*53) & 0xff`: the words at two
/// different 4-aligned offsets below 64 KiB of one input never coincide, and inputs differ.
pub fn pattern(set: u32, binding: u32, element: u32, len: usize) -> Vec<u8> {
    (0..len as u32)
        .map(|i| {
            (i.wrapping_mul(7)
                .wrapping_add((i >> 8).wrapping_mul(11))
                .wrapping_add(binding.wrapping_mul(31))
                .wrapping_add(set.wrapping_mul(13))
                .wrapping_add(element.wrapping_mul(53))
                & 0xff) as u8
        })
        .collect()
}

/// The little-endian word at `offset` of `bytes` (`0xFFFF_FFFF` past the end, which no
/// pattern word equals... except by chance; the proofs never read past the end).
pub fn word(bytes: &[u8], offset: u32) -> u32 {
    let o = offset as usize;
    match bytes.get(o..o + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0xFFFF_FFFF,
    }
}

/// The words a shader reading every scalar of `members` in declaration order (arrays
/// element by element, vectors component by component, matrices row by row) reads from
/// `bytes` at `base`. A runtime array has `runtime_len` elements.
pub fn expected_words(members: &[Member], bytes: &[u8], base: u32, runtime_len: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for m in members {
        let (count, stride) = match m.array {
            None => (1, 0),
            Some((0, stride)) => (runtime_len, stride),
            Some((n, stride)) => (n, stride),
        };
        for element in 0..count {
            let at = base + m.offset + element * stride;
            match &m.ty {
                MemberType::Scalar(_) => out.push(word(bytes, at)),
                MemberType::Vector(_, n) => out.extend((0..*n).map(|k| word(bytes, at + 4 * k))),
                MemberType::Matrix { rows, cols, .. } => {
                    for r in 0..*rows {
                        for c in 0..*cols {
                            let offset = m.ty.matrix_element_offset(r, c).unwrap_or(0);
                            out.push(word(bytes, at + offset));
                        }
                    }
                }
                MemberType::Struct(inner) => {
                    out.extend(expected_words(inner, bytes, at, runtime_len))
                }
            }
        }
    }
    out
}

/// One read of a proof shader, in the order the shader writes its words.
#[derive(Clone, Debug)]
pub enum Read {
    /// Every scalar of a uniform or storage buffer (every element of a descriptor array).
    Buffer(&'static str),
    /// Every scalar of the push-constant block.
    PushConstants,
    /// Every texel of a storage image (row by row), as one word each.
    StorageImage(&'static str),
    /// Every texel of an `rgba8` sampled image through a sampler, at texel centres moved one
    /// image width to the right when `outside` (the sampler's address mode then decides),
    /// packed back into one word per texel.
    Sampled {
        /// The sampled image's binding name.
        image: &'static str,
        /// The sampler's binding name.
        sampler: &'static str,
        /// Sample outside [0, 1) horizontally.
        outside: bool,
    },
    /// Every texel of an `rgba8` combined image sampler, at texel centres.
    Combined(&'static str),
    /// Every texel of element `element` of an `rgba8` sampled-image array, loaded (no
    /// sampler), row by row.
    SampledArray {
        /// The array's binding name.
        image: &'static str,
        /// Element index.
        element: u32,
    },
}

/// What a proof shader reads, beyond what the layout says.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Entry point (Slang's name).
    pub entry: &'static str,
    /// The output buffer's binding name.
    pub output: &'static str,
    /// The reads, in the order the shader writes them.
    pub reads: Vec<Read>,
    /// Element count of each runtime-sized buffer (`StructuredBuffer<T>`), by binding name.
    pub runtime_lengths: Vec<(&'static str, u32)>,
    /// Address mode of each sampler, by binding name (default: clamp to edge).
    pub samplers: Vec<(&'static str, vk::SamplerAddressMode)>,
    /// Descriptors written into each unbounded array.
    pub unbounded_len: u32,
}

/// Extent of every image a proof creates.
pub const IMAGE_EXTENT: [u32; 2] = [4, 4];

/// What a successful proof checked.
#[derive(Clone, Debug)]
pub struct Report {
    /// Output words compared.
    pub words: usize,
    /// Bindings filled.
    pub bindings: usize,
}

enum Filled {
    Buffer(Vec<Vec<u8>>),
    Image(Vec<Vec<u8>>),
    Sampler(vk::SamplerAddressMode),
}

fn image_format(binding: &Binding) -> Result<(vk::Format, u32), String> {
    match binding.image_format.as_deref() {
        Some("r32ui") => Ok((vk::Format::R32_UINT, 4)),
        Some("rgba8") => Ok((vk::Format::R8G8B8A8_UNORM, 4)),
        other => Err(format!(
            "{}: image format {other:?} not handled",
            binding.name
        )),
    }
}

/// Runs the proof of `spec` on `layout`: builds everything from the description, fills,
/// dispatches one workgroup, compares every output word, and checks that the validation
/// layer said nothing.
///
/// # Errors
/// The first mismatching word (with the read it belongs to), validation messages, or a
/// failed Vulkan call.
pub fn run(layout: &ProgramLayout, spec: &Spec) -> Result<Report, String> {
    let mut vk = Vk::new()?;
    let result = run_on(&mut vk, layout, spec);
    let messages = vk.finish();
    let report = result?;
    if !messages.is_empty() {
        return Err(format!("validation messages:\n{}", messages.join("\n")));
    }
    Ok(report)
}

fn run_on(vk: &mut Vk, layout: &ProgramLayout, spec: &Spec) -> Result<Report, String> {
    let entry = layout
        .entry_point(spec.entry)
        .ok_or_else(|| format!("no entry point {}", spec.entry))?;
    let desc = layout.pipeline_layout_desc(spec.unbounded_len.max(1));
    let pipeline_layout = vk.pipeline_layout(&desc)?;
    // A pipeline whose layout lacks a descriptor the shader uses is invalid; the validation
    // layer (1.3.239) reports it but still passes the call down, and lavapipe 25 may crash
    // on it. So a description that misses a descriptor the SPIR-V declares fails the proof
    // here, with the VUID the layer would report, before the driver sees it.
    for var in slangpack_writer::spirv::descriptor_variables(&entry.spirv) {
        let declared = desc
            .sets
            .get(var.set as usize)
            .and_then(Option::as_ref)
            .is_some_and(|set| set.iter().any(|b| b.binding == var.binding));
        if !declared {
            return Err(format!(
                "VUID-VkComputePipelineCreateInfo-layout-00703: the shader uses `{}` at set {} \
                 binding {}, which the pipeline layout does not declare",
                var.name, var.set, var.binding
            ));
        }
    }
    let pipeline = vk.compute_pipeline(&pipeline_layout, &entry.spirv, &entry.spirv_entry_name)?;
    let variable_counts: Vec<(u32, u32)> = (0..desc.sets.len() as u32)
        .map(|s| (s, spec.unbounded_len))
        .collect();
    let sets = vk.descriptor_sets(&pipeline_layout, &variable_counts)?;

    // Predict the output's length first, so it can be sized.
    let runtime_len = |name: &str| {
        spec.runtime_lengths
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, l)| *l)
    };
    let texels = (IMAGE_EXTENT[0] * IMAGE_EXTENT[1]) as usize;
    let mut filled: BTreeMap<String, Filled> = BTreeMap::new();
    let mut output: Option<Buffer> = None;
    for b in &layout.bindings {
        let set = sets[b.set as usize].ok_or("a populated set has no descriptor set")?;
        let elements = match b.count {
            Count::Fixed(n) => n,
            Count::Unbounded => spec.unbounded_len,
        };
        match b.ty {
            vk::DescriptorType::UNIFORM_BUFFER | vk::DescriptorType::STORAGE_BUFFER => {
                let usage = if b.ty == vk::DescriptorType::UNIFORM_BUFFER {
                    vk::BufferUsageFlags::UNIFORM_BUFFER
                } else {
                    vk::BufferUsageFlags::STORAGE_BUFFER
                };
                if b.name == spec.output {
                    let words = 4096;
                    let buffer = vk.buffer(words * 4, usage)?;
                    vk.write(&buffer, 0, &vec![0xAB; (words * 4) as usize]);
                    vk.write_buffer(set, b.binding, 0, b.ty, &buffer);
                    output = Some(buffer);
                    continue;
                }
                let size = buffer_size(b.buffer.as_ref(), runtime_len(&b.name));
                let mut contents = Vec::new();
                for element in 0..elements {
                    let bytes = pattern(b.set, b.binding, element, size as usize);
                    let buffer = vk.buffer(size as u64, usage)?;
                    vk.write(&buffer, 0, &bytes);
                    vk.write_buffer(set, b.binding, element, b.ty, &buffer);
                    contents.push(bytes);
                }
                filled.insert(b.name.clone(), Filled::Buffer(contents));
            }
            vk::DescriptorType::STORAGE_IMAGE
            | vk::DescriptorType::SAMPLED_IMAGE
            | vk::DescriptorType::COMBINED_IMAGE_SAMPLER => {
                let (format, texel_size, usage) = if b.ty == vk::DescriptorType::STORAGE_IMAGE {
                    let (format, size) = image_format(b)?;
                    (format, size, vk::ImageUsageFlags::STORAGE)
                } else {
                    (vk::Format::R8G8B8A8_UNORM, 4, vk::ImageUsageFlags::SAMPLED)
                };
                let sampler = if b.ty == vk::DescriptorType::COMBINED_IMAGE_SAMPLER {
                    vk.sampler(vk::SamplerAddressMode::CLAMP_TO_EDGE)?
                } else {
                    vk::Sampler::null()
                };
                let mut contents = Vec::new();
                for element in 0..elements {
                    let bytes = pattern(b.set, b.binding, element, texels * texel_size as usize);
                    let image = vk.image_2d(format, texel_size, IMAGE_EXTENT, usage, &bytes)?;
                    vk.write_image(set, b.binding, element, b.ty, image.view, sampler);
                    contents.push(bytes);
                }
                filled.insert(b.name.clone(), Filled::Image(contents));
            }
            vk::DescriptorType::SAMPLER => {
                let mode = spec
                    .samplers
                    .iter()
                    .find(|(n, _)| *n == b.name)
                    .map_or(vk::SamplerAddressMode::CLAMP_TO_EDGE, |(_, m)| *m);
                for element in 0..elements {
                    let sampler = vk.sampler(mode)?;
                    vk.write_image(
                        set,
                        b.binding,
                        element,
                        b.ty,
                        vk::ImageView::null(),
                        sampler,
                    );
                }
                filled.insert(b.name.clone(), Filled::Sampler(mode));
            }
            other => return Err(format!("{}: descriptor type {other:?} not handled", b.name)),
        }
    }
    let output =
        output.ok_or_else(|| format!("the layout has no output binding {}", spec.output))?;
    // The proof pushes one block: the bytes of its range (`[[vk::offset]]` may start it past
    // 0) out of one pattern whose byte `i` is push-constant byte `i`.
    let push_layout = match layout.push_constants.as_slice() {
        [] => None,
        [one] => Some(&one.layout),
        more => return Err(format!("the proof pushes one block, not {more:?}")),
    };
    let push = match layout.push_constants.first() {
        Some(p) => pattern(0xff, 0xff, 0, (p.offset + p.size) as usize),
        None => Vec::new(),
    };
    let pushes: Vec<(vk::ShaderStageFlags, u32, &[u8])> = layout
        .push_constants
        .iter()
        .map(|p| (p.stages, p.offset, &push[p.offset as usize..]))
        .collect();

    // A layout the shader does not match is undefined behaviour at dispatch (lavapipe
    // crashes on it): stop at what the layer reported while building.
    let messages = vk.messages();
    if !messages.is_empty() {
        return Err(format!(
            "validation messages before dispatch:\n{}",
            messages.join("\n")
        ));
    }
    vk.dispatch(pipeline, &pipeline_layout, &sets, &pushes, [1, 1, 1])?;

    let mut expected: Vec<(String, u32)> = Vec::new();
    for read in &spec.reads {
        let label = format!("{read:?}");
        let words = predict(read, layout, push_layout, &push, &filled, &runtime_len)
            .map_err(|e| format!("{label}: {e}"))?;
        expected.extend(words.into_iter().map(|w| (label.clone(), w)));
    }
    let actual = vk.read(&output);
    for (index, (label, want)) in expected.iter().enumerate() {
        let got = word(&actual, index as u32 * 4);
        if got != *want {
            return Err(format!(
                "output word {index} ({label}): expected {want:#010x}, got {got:#010x}"
            ));
        }
    }
    let after = word(&actual, expected.len() as u32 * 4);
    if after != 0xABAB_ABAB {
        return Err(format!(
            "the shader wrote more than the {} predicted words (word {} = {after:#010x})",
            expected.len(),
            expected.len()
        ));
    }
    Ok(Report {
        words: expected.len(),
        bindings: layout.bindings.len(),
    })
}

fn buffer_size(layout: Option<&BufferLayout>, runtime_len: u32) -> u32 {
    let Some(layout) = layout else { return 16 };
    let runtime = layout.members.iter().find_map(|m| match m.array {
        Some((0, stride)) => Some(m.offset + stride * runtime_len),
        _ => None,
    });
    runtime.unwrap_or(layout.size).max(4).next_multiple_of(16)
}

fn predict(
    read: &Read,
    layout: &ProgramLayout,
    push_layout: Option<&BufferLayout>,
    push: &[u8],
    filled: &BTreeMap<String, Filled>,
    runtime_len: &dyn Fn(&str) -> u32,
) -> Result<Vec<u32>, String> {
    let images = |name: &str| match filled.get(name) {
        Some(Filled::Image(contents)) => Ok(contents),
        _ => Err(format!("no image binding {name}")),
    };
    let [w, h] = IMAGE_EXTENT;
    let texel = |bytes: &[u8], x: u32, y: u32| word(bytes, (y * w + x) * 4);
    match read {
        Read::Buffer(name) => {
            let binding = layout
                .binding(name)
                .ok_or_else(|| format!("no binding {name}"))?;
            let buffer = binding
                .buffer
                .as_ref()
                .ok_or_else(|| format!("{name} has no buffer layout"))?;
            let Some(Filled::Buffer(contents)) = filled.get(*name) else {
                return Err(format!("{name} was not filled"));
            };
            Ok(contents
                .iter()
                .flat_map(|bytes| expected_words(&buffer.members, bytes, 0, runtime_len(name)))
                .collect())
        }
        Read::PushConstants => {
            let push_layout = push_layout.ok_or("no push constants")?;
            Ok(expected_words(&push_layout.members, push, 0, 0))
        }
        Read::StorageImage(name) | Read::Combined(name) => {
            let bytes = &images(name)?[0];
            Ok((0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .map(|(x, y)| texel(bytes, x, y))
                .collect())
        }
        Read::Sampled {
            image,
            sampler,
            outside,
        } => {
            let bytes = &images(image)?[0];
            let Some(Filled::Sampler(mode)) = filled.get(*sampler) else {
                return Err(format!("no sampler binding {sampler}"));
            };
            let clamp = *outside && *mode == vk::SamplerAddressMode::CLAMP_TO_EDGE;
            Ok((0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .map(|(x, y)| texel(bytes, if clamp { w - 1 } else { x }, y))
                .collect())
        }
        Read::SampledArray { image, element } => {
            let bytes = images(image)?
                .get(*element as usize)
                .ok_or_else(|| format!("{image}[{element}] was not written"))?;
            Ok((0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .map(|(x, y)| texel(bytes, x, y))
                .collect())
        }
    }
}

/// The byte offsets a proof reads from a buffer described by `members`, in read order (a
/// runtime array read with `runtime_len` elements): two descriptions that agree on every
/// offset, stride, count and matrix layout give the same list.
pub fn read_offsets(members: &[Member], runtime_len: u32) -> Vec<u32> {
    let identity: Vec<u8> = (0..1u32 << 14)
        .flat_map(|w| (w * 4).to_le_bytes())
        .collect();
    expected_words(members, &identity, 0, runtime_len)
}

/// The reads of `tests/shaders/proof_bindless.slang`: three textures, then two words of
/// each of three buffers, from two unbounded arrays with three descriptors written each.
pub fn bindless_spec() -> Spec {
    let textures = (0..3).map(|element| Read::SampledArray {
        image: "gTextures",
        element,
    });
    Spec {
        entry: "main",
        output: "gOut",
        reads: textures.chain([Read::Buffer("gBuffers")]).collect(),
        runtime_lengths: vec![("gBuffers", 2)],
        samplers: vec![],
        unbounded_len: 3,
    }
}

/// Runs the vertex-input proof: one vertex buffer packed (tightly, in location order) from
/// the description of `vertex`'s inputs and filled with a per-byte pattern, `vertex_count`
/// vertices drawn, and every word the vertex stage wrote to `output` (each component of each
/// input, in location order, per vertex) compared with what the description predicts.
///
/// # Errors
/// The first mismatching word, validation messages, or a failed Vulkan call.
pub fn run_vertex(
    layout: &ProgramLayout,
    vertex: &str,
    fragment: &str,
    output: &str,
    vertex_count: u32,
) -> Result<Report, String> {
    let mut vk = Vk::new()?;
    let result = run_vertex_on(&mut vk, layout, vertex, fragment, output, vertex_count);
    let messages = vk.finish();
    let report = result?;
    if !messages.is_empty() {
        return Err(format!("validation messages:\n{}", messages.join("\n")));
    }
    Ok(report)
}

fn run_vertex_on(
    vk: &mut Vk,
    layout: &ProgramLayout,
    vertex: &str,
    fragment: &str,
    output: &str,
    vertex_count: u32,
) -> Result<Report, String> {
    let index = layout
        .entry_points
        .iter()
        .position(|e| e.name == vertex)
        .ok_or_else(|| format!("no entry point {vertex}"))?;
    let fragment = layout
        .entry_point(fragment)
        .ok_or_else(|| format!("no entry point {fragment}"))?;
    let vertex_ep = &layout.entry_points[index];
    let attributes = layout.vertex_attributes(index);
    let desc = layout.pipeline_layout_desc(1);
    let pipeline_layout = vk.pipeline_layout(&desc)?;
    let pipeline = vk.graphics_pipeline(
        &pipeline_layout,
        &crate::vk::GraphicsDesc {
            vertex: (&vertex_ep.spirv, &vertex_ep.spirv_entry_name),
            fragment: (&fragment.spirv, &fragment.spirv_entry_name),
            attributes: &attributes,
            color_format: vk::Format::R8G8B8A8_UNORM,
        },
    )?;
    let sets = vk.descriptor_sets(&pipeline_layout, &[])?;
    let out = layout
        .binding(output)
        .ok_or_else(|| format!("no binding {output}"))?;
    let words = 4096u64;
    let out_buffer = vk.buffer(words * 4, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    vk.write(&out_buffer, 0, &vec![0xAB; (words * 4) as usize]);
    let set = sets[out.set as usize].ok_or("the output's set has no descriptor set")?;
    vk.write_buffer(set, out.binding, 0, out.ty, &out_buffer);

    let stride: u32 = attributes.iter().map(|a| a.size).sum();
    let bytes = pattern(0xfe, 0, 0, (stride * vertex_count) as usize);
    let vertices = vk.buffer(bytes.len() as u64, vk::BufferUsageFlags::VERTEX_BUFFER)?;
    vk.write(&vertices, 0, &bytes);
    let target = vk.image_2d(
        vk::Format::R8G8B8A8_UNORM,
        4,
        IMAGE_EXTENT,
        vk::ImageUsageFlags::COLOR_ATTACHMENT,
        &vec![0; (IMAGE_EXTENT[0] * IMAGE_EXTENT[1] * 4) as usize],
    )?;
    let messages = vk.messages();
    if !messages.is_empty() {
        return Err(format!(
            "validation messages before drawing:\n{}",
            messages.join("\n")
        ));
    }
    vk.draw(
        pipeline,
        &pipeline_layout,
        &sets,
        &vertices,
        vertex_count,
        &target,
        &[],
    )?;

    let mut expected = Vec::new();
    for v in 0..vertex_count {
        let mut offset = v * stride;
        for a in &attributes {
            for k in 0..a.size / 4 {
                expected.push((a.location, word(&bytes, offset + 4 * k)));
            }
            offset += a.size;
        }
    }
    let actual = vk.read(&out_buffer);
    for (i, (location, want)) in expected.iter().enumerate() {
        let got = word(&actual, i as u32 * 4);
        if got != *want {
            return Err(format!(
                "output word {i} (vertex {}, location {location}): expected {want:#010x}, \
                 got {got:#010x}",
                i as u32 / (stride / 4)
            ));
        }
    }
    Ok(Report {
        words: expected.len(),
        bindings: layout.bindings.len(),
    })
}

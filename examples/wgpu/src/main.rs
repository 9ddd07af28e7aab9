//! Runs a compute shader through wgpu from the WGSL of a package embedded with
//! `include_bytes!`. Nothing about the shader's bindings is written here: the bind group
//! layouts come from the package's WGSL bind view (`TargetBindView::wgpu_entries`), the bind
//! group entries from its bindings' paths and `@group/@binding` numbers, and the uniform
//! buffer is filled at the member offsets the bind view gives.

use slangpack_reader::format::{Target, TargetBindingKind};
use slangpack_reader::{Package, WgpuLayoutOptions};
use wgpu::util::DeviceExt;

/// The package `build.rs` baked for SPIR-V and WGSL, embedded.
static PACKAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/shaders.slangpack"));

/// What the shader computes on each sample.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    /// Multiplier.
    pub scale: f32,
    /// Added after scaling.
    pub bias: f32,
    /// The result is clamped to `[range.0, range.1]`.
    pub range: (f32, f32),
}

type Error = Box<dyn std::error::Error>;

/// Runs `scale.slang` on `samples` through wgpu (the first Vulkan adapter: lavapipe on a
/// machine without a GPU) and returns the results.
///
/// # Errors
/// No adapter or device, a package without the entry or its WGSL, or a wgpu validation error.
pub fn run(samples: &[f32], params: Scale) -> Result<Vec<f32>, Error> {
    let package = Package::from_bytes(PACKAGE)?;
    // The one fallible step per entry: checks, decompresses and validates it (once).
    let entry = package.load("scale")?;
    let entry_point = entry.entry_points().next().ok_or("no entry point")?;
    let code = entry_point
        .code(Target::Wgsl)
        .ok_or("the package has no WGSL")?;
    let bind = entry.reflection().bind();
    let view = bind.target(Target::Wgsl);

    let mut instance = wgpu::InstanceDescriptor::new_without_display_handle();
    instance.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(instance);
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))?;
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))?;
    let errors = device.push_error_scope(wgpu::ErrorFilter::Validation);

    // The uniform buffer, every member where the bind view puts it.
    let params_binding = view.find("gParams").ok_or("no WGSL binding gParams")?;
    let mut uniforms = vec![0u8; params_binding.min_binding_size as usize];
    let mut put = |path: &str, bytes: &[u8]| -> Result<(), Error> {
        let (_, member) = bind.buffer_member(path).ok_or("no such member")?;
        let at = member.offset as usize;
        uniforms
            .get_mut(at..at + bytes.len())
            .ok_or("member past the buffer")?
            .copy_from_slice(bytes);
        Ok(())
    };
    put("gParams.count", &(samples.len() as u32).to_le_bytes())?;
    put("gParams.scale", &params.scale.to_le_bytes())?;
    put("gParams.bias", &params.bias.to_le_bytes())?;
    put(
        "gParams.range",
        &[params.range.0.to_le_bytes(), params.range.1.to_le_bytes()].concat(),
    )?;

    let bytes = |floats: &[f32]| {
        floats
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    let size = (samples.len() * 4) as u64;
    let buffer = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage,
        })
    };
    let params_buffer = buffer("gParams", &uniforms, wgpu::BufferUsages::UNIFORM);
    let samples_buffer = buffer("samples", &bytes(samples), wgpu::BufferUsages::STORAGE);
    let result_buffer = buffer(
        "result",
        &vec![0; size as usize],
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );

    // One bind group layout and group per WGSL group, from the bind view alone.
    let options = WgpuLayoutOptions::default();
    let mut layouts = Vec::new();
    let mut groups = Vec::new();
    for group in 0..view.group_count() {
        let entries: Vec<_> = view.wgpu_entries(group, options).collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
        let mut resources = Vec::new();
        for binding in view.space(group) {
            let resource = match (view.path(binding), binding.binding_kind()) {
                ("gParams", TargetBindingKind::UniformBuffer) => &params_buffer,
                ("gBuffers.samples", TargetBindingKind::StorageBuffer) => &samples_buffer,
                ("gBuffers.result", TargetBindingKind::StorageBuffer) => &result_buffer,
                (path, kind) => {
                    return Err(format!(
                        "the shader has a binding this program lacks: {path} ({kind:?})"
                    )
                    .into())
                }
            };
            resources.push(wgpu::BindGroupEntry {
                binding: binding.index,
                resource: resource.as_entire_binding(),
            });
        }
        groups.push(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &resources,
        }));
        layouts.push(layout);
    }

    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(entry_point.name()),
        source: wgpu::ShaderSource::Wgsl(code.text().ok_or("WGSL is text")?.into()),
    });
    let layout_refs: Vec<_> = layouts.iter().map(Some).collect();
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(
            &device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &layout_refs,
                immediate_size: 0,
            }),
        ),
        module: &module,
        entry_point: Some(code.entry_name()),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(error) = pollster::block_on(errors.pop()) {
        return Err(error.to_string().into());
    }

    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        for (index, group) in groups.iter().enumerate() {
            pass.set_bind_group(index as u32, group, &[]);
        }
        let width = entry_point.thread_group_size()[0].max(1);
        pass.dispatch_workgroups((samples.len() as u32).div_ceil(width), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&result_buffer, 0, &readback, 0, size);
    queue.submit([encoder.finish()]);
    readback.map_async(wgpu::MapMode::Read, .., |r| {
        r.expect("mapping the readback buffer")
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let mapped = readback.get_mapped_range(..)?.to_vec();
    Ok(mapped
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn main() -> Result<(), Error> {
    let samples: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let params = Scale {
        scale: 0.5,
        bias: -1.0,
        range: (0.0, 5.0),
    };
    let result = run(&samples, params)?;
    println!("samples: {samples:?}");
    println!("0.5 * x - 1 clamped to [0, 5] on the GPU: {result:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shader_runs_through_wgpu_from_the_bind_view_and_computes_every_sample() {
        let samples: Vec<f32> = (0..200).map(|i| i as f32 - 50.0).collect();
        let params = Scale {
            scale: 2.0,
            bias: 3.0,
            range: (-40.0, 250.0),
        };
        let result = run(&samples, params).expect("the compute shader runs");
        // Small integers: exact on any rounding, fused or not.
        let want: Vec<f32> = samples
            .iter()
            .map(|x| (2.0 * x + 3.0).clamp(-40.0, 250.0))
            .collect();
        assert_eq!(result, want);
        // The clamp bounds came from `range`, at the offset the bind view gave (16, not 12).
        assert!(result.contains(&-40.0) && result.contains(&250.0));
        let package = Package::from_bytes(PACKAGE).unwrap();
        let entry = package.load("scale").unwrap();
        let (_, range) = entry
            .reflection()
            .bind()
            .buffer_member("gParams.range")
            .unwrap();
        assert_eq!(range.offset, 16);
    }
}

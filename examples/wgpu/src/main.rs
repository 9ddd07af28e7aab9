//! Runs a compute shader through wgpu from the WGSL of a package embedded with
//! `include_bytes!`. Nothing about the shader's bindings is written here: the bind group
//! layouts and the pipeline layout come from the package's WGSL bind view for the pipeline's
//! entry points (`Pipeline::wgpu_layout`), the bind groups are built by binding path (a
//! missing or unknown one is an error), and the uniform buffer is filled by member path,
//! type-checked, at the offsets the bind view gives (`BufferLayoutView::writer`).

use slangpack_reader::format::Target;
use slangpack_reader::{Package, WgpuLayoutOptions};
use wgpu::util::DeviceExt;
use wgpu::BufferUsages as Usage;

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
/// No adapter or device, a package without the entry or its WGSL, a binding or member the
/// shader lacks, or a wgpu validation error.
pub fn run(samples: &[f32], params: Scale) -> Result<Vec<f32>, Error> {
    let package = Package::from_bytes(PACKAGE)?;
    // The one fallible step per entry: checks, decompresses and validates it (once).
    let entry = package.load("scale")?;
    let entry_point = entry.entry_points().next().ok_or("no entry point")?;
    let code = entry_point.code(Target::Wgsl).ok_or("no WGSL")?;
    let pipeline = entry.pipeline(&[entry_point.name()])?;
    let mut instance = wgpu::InstanceDescriptor::new_without_display_handle();
    instance.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(instance);
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))?;
    let errors = device.push_error_scope(wgpu::ErrorFilter::Validation);
    // Bind group layouts and the pipeline layout of exactly this pipeline's entry points.
    let layout = pipeline.wgpu_layout(&device, WgpuLayoutOptions::default())?;

    // The uniform buffer, every member by path where the bind view puts it, type-checked.
    let params_layout = layout.view().find_buffer_view("gParams")?;
    let mut uniforms = params_layout.zeroed();
    params_layout
        .writer(&mut uniforms)
        .set("gParams.count", samples.len() as u32)?
        .set("gParams.scale", params.scale)?
        .set("gParams.bias", params.bias)?
        .set("gParams.range", [params.range.0, params.range.1])?;
    let sample_bytes: Vec<u8> = samples.iter().flat_map(|f| f.to_le_bytes()).collect();
    let zeros = vec![0; sample_bytes.len()];
    let params_buffer = buffer(&device, &uniforms, Usage::UNIFORM);
    let samples_buffer = buffer(&device, &sample_bytes, Usage::STORAGE);
    let result_buffer = buffer(&device, &zeros, Usage::STORAGE | Usage::COPY_SRC);
    // Resources by binding path: a missing or unknown one is an error naming it.
    let groups = layout
        .bind_groups()
        .bind("gParams", params_buffer.as_entire_binding())
        .bind("gBuffers.samples", samples_buffer.as_entire_binding())
        .bind("gBuffers.result", result_buffer.as_entire_binding())
        .finish(&device)?;

    let module = code.wgpu_shader_module(&device).ok_or("WGSL is text")?;
    let compute = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(layout.pipeline_layout()),
        module: &module,
        entry_point: Some(code.entry_name()),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(error) = pollster::block_on(errors.pop()) {
        return Err(error.to_string().into());
    }

    let mut encoder = device.create_command_encoder(&Default::default());
    let mut pass = encoder.begin_compute_pass(&Default::default());
    pass.set_pipeline(&compute);
    for (index, group) in groups.iter().enumerate() {
        pass.set_bind_group(index as u32, group, &[]);
    }
    let width = entry_point.thread_group_size()[0].max(1);
    pass.dispatch_workgroups((samples.len() as u32).div_ceil(width), 1, 1);
    drop(pass);
    let readback = buffer(&device, &zeros, Usage::MAP_READ | Usage::COPY_DST);
    encoder.copy_buffer_to_buffer(&result_buffer, 0, &readback, 0, zeros.len() as u64);
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

/// A buffer holding `contents` (plain wgpu, nothing about the shader).
fn buffer(device: &wgpu::Device, contents: &[u8], usage: Usage) -> wgpu::Buffer {
    let desc = wgpu::util::BufferInitDescriptor {
        label: None,
        contents,
        usage,
    };
    device.create_buffer_init(&desc)
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
        let (_, range) = entry.bind().buffer_member("gParams.range").unwrap();
        assert_eq!(range.offset, 16);
    }
}

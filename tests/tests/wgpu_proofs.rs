//! wgpu on lavapipe (wgpu's Vulkan backend, no window), with the Khronos validation layer on:
//! compute and render pipelines built from a package's WGSL, with bind group layouts made only
//! from the package's WGSL bind view (`TargetBindView::wgpu_entries`), and byte-for-byte
//! proofs as the Vulkan suite does them ([`slangpack_tests::proof`]): every buffer is filled
//! with a distinct per-byte pattern, the shader writes every scalar it reads, and the host
//! predicts each word from the bind view's member offsets alone. A layout entry at a wrong
//! binding or of a wrong type is refused by wgpu, and a description with a member offset four
//! bytes off predicts other words. The reader's pipeline helpers (`Pipeline::wgpu_layout`,
//! bind groups by path) bind the compute proof byte for byte too, give each binding the
//! visibility of the pipeline's own stages, and refuse what they cannot bind by name.

use slangpack_format::targets::TARGET_READ_ONLY;
use slangpack_format::{Target, TargetBindingKind};
use slangpack_reader::{Package, TargetBindView, WgpuLayoutOptions};
use slangpack_tests::layout::{from_bind_view, test_shaders_dir, Member, ProgramLayout};
use slangpack_tests::proof::{expected_words, pattern};
use slangpack_tests::vk::DEVICE_ENV;
use std::sync::{Mutex, MutexGuard};
use wgpu::util::DeviceExt;

/// Bakes `tests/shaders/{key}.slang` for SPIR-V and WGSL.
fn bake(key: &str) -> Vec<u8> {
    let path = test_shaders_dir().join(format!("{key}.slang"));
    let mut config = slangpack_writer::bake::BakeConfig::new(vec![path]);
    config.jobs = 1;
    config.options.targets = vec![Target::Wgsl];
    match slangpack_writer::bake::bake(&config) {
        Ok(outcome) => outcome.bytes.into_vec(),
        Err(e) => panic!("bake of {key} failed: {e}\n{}", e.diagnostics()),
    }
}

/// The validation layer's errors and warnings, as wgpu-hal logs them.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// One proof at a time: the log is process-wide.
static SERIAL: Mutex<()> = Mutex::new(());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn && metadata.target().starts_with("wgpu_hal")
    }
    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            if let Ok(mut m) = MESSAGES.lock() {
                m.push(format!("{}: {}", record.level(), record.args()));
            }
        }
    }
    fn flush(&self) {}
}

static CAPTURE: Capture = Capture;

/// A wgpu device on lavapipe (or the adapter named by `SLANGPACK_VK_DEVICE`) with the
/// validation layer, and the lock that keeps its log to this proof.
struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    _serial: MutexGuard<'static, ()>,
}

impl Gpu {
    fn new() -> Gpu {
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        if log::set_logger(&CAPTURE).is_ok() {
            log::set_max_level(log::LevelFilter::Warn);
        }
        MESSAGES.lock().unwrap().clear();
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN;
        // No DEBUG: with it naga tags its SPIR-V with source language WGSL (10), which the
        // validation layer of Debian 12 (1.3.239) does not know and reports as invalid.
        desc.flags = wgpu::InstanceFlags::VALIDATION;
        let instance = wgpu::Instance::new(desc);
        let wanted = std::env::var(DEVICE_ENV).ok().filter(|w| !w.is_empty());
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let adapter = adapters
            .into_iter()
            .find(|a| {
                let info = a.get_info();
                match &wanted {
                    Some(w) => info.name.contains(w.as_str()),
                    None => info.device_type == wgpu::DeviceType::Cpu,
                }
            })
            .unwrap_or_else(|| {
                panic!(
                    "no lavapipe adapter for wgpu (Debian package mesa-vulkan-drivers); \
                     adapters seen: {names:?}"
                )
            });
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
                .expect("a wgpu device");
        Gpu {
            device,
            queue,
            _serial: serial,
        }
    }

    /// Waits for the queue, then fails on any validation-layer message seen so far.
    fn finish(&self) -> Result<(), String> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        let messages = std::mem::take(&mut *MESSAGES.lock().unwrap());
        if messages.is_empty() {
            Ok(())
        } else {
            Err(format!("validation layer: {messages:#?}"))
        }
    }

    /// The bytes of `buffer` (COPY_SRC), read back.
    fn read(&self, encoder: wgpu::CommandEncoder, readback: &wgpu::Buffer) -> Vec<u32> {
        self.queue.submit([encoder.finish()]);
        readback.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the queue finishes");
        let bytes = readback
            .get_mapped_range(..)
            .expect("the readback buffer is mapped")
            .to_vec();
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn readback(&self, size: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn texture(&self, format: wgpu::TextureFormat, words: &[u32]) -> wgpu::TextureView {
        let texture = self.device.create_texture_with_data(
            &self.queue,
            &wgpu::TextureDescriptor {
                label: None,
                size: wgpu::Extent3d {
                    width: 2,
                    height: 2,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            &le_bytes(words),
        );
        texture.create_view(&wgpu::TextureViewDescriptor::default())
    }
}

fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The 2x2 texels of the proofs' textures, four words each: normal floats (no denormal
/// flushing, no NaN), distinct per texture.
fn texels(base: u32) -> Vec<u32> {
    (0..16).map(|i| base + i * 0x1000).collect()
}
const ALBEDO: u32 = 0x4300_0000;
const IDS: u32 = 0x0700_0000;

/// The four words of texel (`x`, `y`) of a 2x2 texture from [`texels`].
fn texel(base: u32, x: u32, y: u32) -> Vec<u32> {
    texels(base)[((y * 2 + x) * 4) as usize..][..4].to_vec()
}

/// A change to one bind group layout entry, by (group, entry): a wrong description.
type Tweak<'t> = &'t dyn Fn(u32, wgpu::BindGroupLayoutEntry) -> wgpu::BindGroupLayoutEntry;

/// Everything bound from the WGSL bind view: layouts, groups, and the bytes each buffer holds
/// (by WGSL group and binding) for the prediction.
struct Bound {
    layouts: Vec<wgpu::BindGroupLayout>,
    groups: Vec<wgpu::BindGroup>,
    filled: Vec<((u32, u32), Vec<u8>)>,
    output: wgpu::Buffer,
}

impl Bound {
    fn bytes(&self, view: &TargetBindView<'_>, path: &str) -> &[u8] {
        let b = view
            .find(path)
            .unwrap_or_else(|| panic!("no WGSL binding {path}"));
        self.filled
            .iter()
            .find(|(at, _)| *at == (b.space, b.index))
            .map(|(_, bytes)| &bytes[..])
            .unwrap_or_else(|| panic!("{path} was not filled"))
    }
}

/// Makes a resource for every binding of the WGSL bind view and one bind group per group,
/// with layouts from `view.wgpu_entries` only (`tweak` may change an entry). Buffers hold
/// `pattern(group, binding, ..)` at the size the bind view states (a storage buffer: 16
/// elements of the minimum size); a writable storage buffer is the 256-byte output.
fn bind_everything(gpu: &Gpu, view: &TargetBindView<'_>, tweak: Tweak<'_>) -> Bound {
    // rgba32float is not filterable without a device feature: the caller says so.
    let options = WgpuLayoutOptions {
        filterable: false,
        ..WgpuLayoutOptions::default()
    };
    let device = &gpu.device;
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("output"),
        size: 256,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let albedo = gpu.texture(wgpu::TextureFormat::Rgba32Float, &texels(ALBEDO));
    let ids = gpu.texture(wgpu::TextureFormat::Rgba32Uint, &texels(IDS));
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor::default());
    let mut bound = Bound {
        layouts: Vec::new(),
        groups: Vec::new(),
        filled: Vec::new(),
        output,
    };
    let mut buffers: Vec<((u32, u32), wgpu::Buffer)> = Vec::new();
    for group in 0..view.group_count() {
        let entries: Vec<wgpu::BindGroupLayoutEntry> = view
            .wgpu_entries(group, options)
            .map(|e| tweak(group, e.expect("every binding has a WebGPU form")))
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
        // The bindings `wgpu_entries` described, in its order.
        let described: Vec<_> = view
            .space(group)
            .iter()
            .filter(|b| view.wgpu_entry(b, options).is_ok())
            .collect();
        for b in &described {
            let size = match b.binding_kind() {
                TargetBindingKind::UniformBuffer => b.min_binding_size,
                TargetBindingKind::StorageBuffer if b.flags & TARGET_READ_ONLY != 0 => {
                    16 * b.min_binding_size
                }
                _ => continue,
            };
            let bytes = pattern(group, b.index, 0, size as usize);
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(view.path(b)),
                contents: &bytes,
                // Both usages: a wrong buffer type fails at the pipeline, not at the group.
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE,
            });
            buffers.push(((group, b.index), buffer));
            bound.filled.push(((group, b.index), bytes));
        }
        let resources: Vec<wgpu::BindGroupEntry<'_>> = described
            .iter()
            .zip(&entries)
            .map(|(b, entry)| {
                // Resources follow the (possibly wrong) description, as an engine's would.
                let resource = match (b.binding_kind(), entry.ty) {
                    (
                        TargetBindingKind::Texture,
                        wgpu::BindingType::Texture {
                            sample_type: wgpu::TextureSampleType::Uint,
                            ..
                        },
                    ) => wgpu::BindingResource::TextureView(&ids),
                    (TargetBindingKind::Texture, _) => wgpu::BindingResource::TextureView(&albedo),
                    (TargetBindingKind::Sampler, _) => wgpu::BindingResource::Sampler(&sampler),
                    (TargetBindingKind::StorageBuffer, _) if b.flags & TARGET_READ_ONLY == 0 => {
                        bound.output.as_entire_binding()
                    }
                    _ => buffers
                        .iter()
                        .find(|(at, _)| *at == (group, b.index))
                        .map(|(_, buffer)| buffer.as_entire_binding())
                        .expect("a buffer for every buffer binding"),
                };
                wgpu::BindGroupEntry {
                    binding: entry.binding,
                    resource,
                }
            })
            .collect();
        bound
            .groups
            .push(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &layout,
                entries: &resources,
            }));
        bound.layouts.push(layout);
    }
    bound
}

/// The WGSL of every entry point of `entry`, as (entry name in the code, module).
fn modules(gpu: &Gpu, package: &Package) -> Vec<(String, wgpu::ShaderModule)> {
    let entry = package.load_at(0).expect("one entry that loads");
    entry
        .entry_points()
        .map(|ep| {
            let code = ep.code(Target::Wgsl).expect("WGSL was baked");
            let module = gpu
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(ep.name()),
                    source: wgpu::ShaderSource::Wgsl(code.text().expect("WGSL is text").into()),
                });
            (code.entry_name().to_string(), module)
        })
        .collect()
}

fn pipeline_layout(gpu: &Gpu, bound: &Bound) -> wgpu::PipelineLayout {
    let layouts: Vec<Option<&wgpu::BindGroupLayout>> = bound.layouts.iter().map(Some).collect();
    gpu.device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &layouts,
            immediate_size: 0,
        })
}

/// The words the proof shaders write for one buffer, predicted from `description` and the
/// bytes the buffer holds; `shift` moves one member (by name, at the top level) some bytes.
fn predict(
    description: &ProgramLayout,
    view: &TargetBindView<'_>,
    bound: &Bound,
    path: &str,
    shift: Option<(&str, u32)>,
) -> Vec<u32> {
    let b = view
        .find(path)
        .unwrap_or_else(|| panic!("no WGSL binding {path}"));
    let vulkan = view
        .vulkan_binding(b)
        .expect("a Vulkan binding of the same parameter");
    let binding = description
        .bindings
        .iter()
        .find(|d| (d.set, d.binding) == (vulkan.set, vulkan.binding))
        .expect("the description has the binding");
    let mut members: Vec<Member> = binding.buffer.as_ref().expect("a buffer").members.clone();
    if let Some((name, delta)) = shift {
        if let Some(m) = members.iter_mut().find(|m| m.name == name) {
            m.offset += delta;
        }
    }
    expected_words(&members, bound.bytes(view, path), 0, 4)
}

/// The compute proof: everything bound from the WGSL bind view, one dispatch; the words the
/// shader wrote, or the error wgpu or the validation layer reported.
fn run_compute(package: &Package, tweak: Tweak<'_>) -> Result<(Vec<u32>, Bound), String> {
    let entry = package.load("wgpu_compute").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let gpu = Gpu::new();
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let modules = modules(&gpu, package);
    let bound = bind_everything(&gpu, &view, tweak);
    let layout = pipeline_layout(&gpu, &bound);
    let pipeline = gpu
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&layout),
            module: &modules[0].1,
            entry_point: Some(&modules[0].0),
            compilation_options: Default::default(),
            cache: None,
        });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(e.to_string());
    }
    let readback = gpu.readback(256);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        for (i, group) in bound.groups.iter().enumerate() {
            pass.set_bind_group(i as u32, group, &[]);
        }
        pass.dispatch_workgroups(1, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&bound.output, 0, &readback, 0, 256);
    let words = gpu.read(encoder, &readback);
    gpu.finish()?;
    Ok((words, bound))
}

/// What the compute shader writes, predicted from the bind view.
fn compute_expected(
    package: &Package,
    bound: &Bound,
    shift: Option<(&str, &str, u32)>,
) -> Vec<u32> {
    let entry = package.load("wgpu_compute").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let description = from_bind_view(&entry).unwrap();
    let at = |path: &str| shift.filter(|s| s.0 == path).map(|s| (s.1, s.2));
    let mut out = Vec::new();
    for path in ["gParams", "gInput", "gMaterial"] {
        out.extend(predict(&description, &view, bound, path, at(path)));
    }
    out.extend(texel(ALBEDO, 1, 0));
    out.extend(texel(ALBEDO, 0, 1));
    out
}

#[test]
fn a_compute_pipeline_from_the_packages_wgsl_binds_byte_for_byte_through_the_bind_view() {
    let bytes = bake("wgpu_compute");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("wgpu_compute").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    assert_eq!(
        view.group_count(),
        2,
        "the ParameterBlock is a group of its own"
    );
    let block = view
        .find("gMaterial")
        .expect("gMaterial's implicit uniform buffer");
    assert_eq!((block.space, block.index), (1, 0));

    let (written, bound) = run_compute(&package, &|_, e| e).expect("the pipeline builds and runs");
    let want = compute_expected(&package, &bound, None);
    // gParams: 3 + 1 + 2 + 1 + 12 (row_major float3x4) + 4; gInput: 4; gMaterial: 4 + 1;
    // two texels.
    assert_eq!(want.len(), 23 + 4 + 5 + 8);
    assert_eq!(
        &written[..want.len()],
        &want[..],
        "every word the shader read must be the one the bind view predicts"
    );
    assert!(
        written[want.len()..].iter().all(|w| *w == 0),
        "nothing written past the reads"
    );
    // A description with a member four bytes off predicts other words.
    for (path, member) in [
        ("gParams", "intensity"),
        ("gParams", "transform"),
        ("gMaterial", "layer"),
    ] {
        assert_ne!(
            &written[..want.len()],
            &compute_expected(&package, &bound, Some((path, member, 4)))[..],
            "{path}.{member} four bytes off must not match"
        );
    }
}

/// Runs the compute proof with a wrong description: wgpu must refuse the pipeline, naming the
/// mismatch.
fn refused(package: &Package, tweak: Tweak<'_>, why: &str) {
    match run_compute(package, tweak) {
        Ok(_) => panic!("a wrong layout was accepted (expected: {why})"),
        Err(error) => assert!(
            error.contains("create_compute_pipeline") && error.contains(why),
            "expected the pipeline refused with {why:?}, got: {error}"
        ),
    }
}

#[test]
fn a_layout_entry_at_a_wrong_binding_or_of_a_wrong_type_is_refused() {
    let bytes = bake("wgpu_compute");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("wgpu_compute").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let input = *view.find("gInput").unwrap();
    let albedo = *view.find("gMaterial.albedo").unwrap();
    // gInput moved to a binding the shader does not declare.
    let moved = move |group: u32, mut e: wgpu::BindGroupLayoutEntry| {
        if (group, e.binding) == (input.space, input.index) {
            e.binding += 7;
        }
        e
    };
    refused(
        &package,
        &moved,
        "Binding is missing from the pipeline layout",
    );
    // gInput described as a uniform buffer.
    let retyped = move |group: u32, mut e: wgpu::BindGroupLayoutEntry| {
        if (group, e.binding) == (input.space, input.index) {
            if let wgpu::BindingType::Buffer { ty, .. } = &mut e.ty {
                *ty = wgpu::BufferBindingType::Uniform;
            }
        }
        e
    };
    refused(
        &package,
        &retyped,
        "Storage class Uniform doesn't match the shader",
    );
    // gMaterial.albedo, a float texture, described as a uint texture.
    let uint_texture = move |group: u32, mut e: wgpu::BindGroupLayoutEntry| {
        if (group, e.binding) == (albedo.space, albedo.index) {
            if let wgpu::BindingType::Texture { sample_type, .. } = &mut e.ty {
                *sample_type = wgpu::TextureSampleType::Uint;
            }
        }
        e
    };
    refused(
        &package,
        &uint_texture,
        "Texture class Sampled { kind: Uint",
    );
    // The correct description still builds in the same process.
    run_compute(&package, &|_, e| e).expect("the package's own layout builds");
}

/// The render proof: a full-screen triangle into a 16x1 rgba32uint texture; the words of the
/// first 12 pixels.
fn run_render(package: &Package) -> Result<(Vec<u32>, Bound), String> {
    let entry = package.load("wgpu_render").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let gpu = Gpu::new();
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let modules = modules(&gpu, package);
    let bound = bind_everything(&gpu, &view, &|_, e| e);
    let layout = pipeline_layout(&gpu, &bound);
    let format = wgpu::TextureFormat::Rgba32Uint;
    let pipeline = gpu
        .device
        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: None,
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &modules[0].1,
                entry_point: Some(&modules[0].0),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &modules[1].1,
                entry_point: Some(&modules[1].0),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
    let target = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("target"),
        size: wgpu::Extent3d {
            width: 16,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(e.to_string());
    }
    let target_view = target.create_view(&Default::default());
    let readback = gpu.readback(256);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &target_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        pass.set_pipeline(&pipeline);
        for (i, group) in bound.groups.iter().enumerate() {
            pass.set_bind_group(i as u32, group, &[]);
        }
        pass.draw(0..3, 0..1);
    }
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(256),
                rows_per_image: None,
            },
        },
        target.size(),
    );
    let words = gpu.read(encoder, &readback);
    gpu.finish()?;
    Ok((words, bound))
}

#[test]
fn a_render_pipeline_from_the_packages_wgsl_binds_byte_for_byte_through_the_bind_view() {
    let bytes = bake("wgpu_render");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("wgpu_render").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    assert_eq!(
        view.group_count(),
        2,
        "the ParameterBlock is a group of its own"
    );
    let description = from_bind_view(&entry).unwrap();
    let (written, bound) = run_render(&package).expect("the pipeline builds and draws");

    let want = render_expected(&description, &view, &bound, None);
    assert_eq!(want.len(), 12 * 4);
    assert_eq!(
        &written[..want.len()],
        &want[..],
        "every word the shaders read must be the one the bind view predicts"
    );
    // A description with a member four bytes off predicts other words.
    for shift in [
        ("gFrame", "viewProjection", 4),
        ("gFrame", "size", 4),
        ("gSurface", "flags", 4),
    ] {
        assert_ne!(
            &written[..want.len()],
            &render_expected(&description, &view, &bound, Some(shift))[..],
            "{}.{} four bytes off must not match",
            shift.0,
            shift.1
        );
    }
}

/// What the render proof's 12 pixels hold, predicted from the bind view.
fn render_expected(
    description: &ProgramLayout,
    view: &TargetBindView<'_>,
    bound: &Bound,
    shift: Option<(&str, &str, u32)>,
) -> Vec<u32> {
    let at = |path: &str| shift.filter(|s| s.0 == path).map(|s| (s.1, s.2));
    let frame = predict(description, view, bound, "gFrame", at("gFrame"));
    let surface = predict(description, view, bound, "gSurface", at("gSurface"));
    // viewProjection (16), eye (3), exposure, size (2), jitter (2), color (4); tint (4),
    // roughness, flags.
    assert_eq!((frame.len(), surface.len()), (28, 6));
    let mut want = Vec::new();
    want.extend(&frame[16..20]); // eye and exposure, as the vertex stage read them
    want.extend(&frame);
    want.extend(&surface);
    want.extend([0, 0]);
    want.extend(texel(IDS, 1, 0));
    want.extend(texel(ALBEDO, 0, 1));
    want
}

/// The compute proof through the reader's pipeline helpers only: layouts from
/// `Pipeline::wgpu_layout`, bind groups by binding path (`WgpuBindGroups`), the same
/// per-byte patterns and the same prediction.
#[test]
fn a_compute_pipeline_from_the_pipeline_helpers_binds_byte_for_byte() {
    let bytes = bake("wgpu_compute");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("wgpu_compute").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let gpu = Gpu::new();
    let device = &gpu.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let modules = modules(&gpu, &package);
    let options = WgpuLayoutOptions {
        filterable: false,
        ..WgpuLayoutOptions::default()
    };
    let pipeline = entry.pipeline(&["main"]).expect("the pipeline");
    assert_eq!(pipeline.wgpu_group_count(), 2);
    let layout = pipeline.wgpu_layout(device, options).expect("layouts");
    assert_eq!(layout.bind_group_layouts().len(), 2);
    let paths: Vec<&str> = layout.bindings().iter().map(|b| view.path(b)).collect();
    assert_eq!(
        paths,
        [
            "gParams",
            "gInput",
            "gOut",
            "gMaterial",
            "gMaterial.albedo",
            "gMaterial.pointSampler"
        ]
    );
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("output"),
        size: 256,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut filled = Vec::new();
    let mut buffers = Vec::new();
    for (path, count) in [("gParams", 1), ("gInput", 16), ("gMaterial", 1)] {
        let b = view.find(path).unwrap();
        let contents = pattern(b.space, b.index, 0, (count * b.min_binding_size) as usize);
        buffers.push(
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(path),
                contents: &contents,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE,
            }),
        );
        filled.push(((b.space, b.index), contents));
    }
    let albedo = gpu.texture(wgpu::TextureFormat::Rgba32Float, &texels(ALBEDO));
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor::default());
    let groups = layout
        .bind_groups()
        .bind(
            "gMaterial.pointSampler",
            wgpu::BindingResource::Sampler(&sampler),
        )
        .bind("gParams", buffers[0].as_entire_binding())
        .bind("gInput", buffers[1].as_entire_binding())
        .bind("gMaterial", buffers[2].as_entire_binding())
        .bind(
            "gMaterial.albedo",
            wgpu::BindingResource::TextureView(&albedo),
        )
        .bind("gOut", output.as_entire_binding())
        .finish(device)
        .expect("bind groups");
    assert_eq!(groups.len(), 2);
    let written = dispatch_one_workgroup(
        &gpu,
        layout.pipeline_layout(),
        (&modules[0].0, &modules[0].1),
        &groups,
        &output,
    );
    assert!(pollster::block_on(scope.pop()).is_none(), "wgpu validation");
    gpu.finish().expect("no validation message");
    let bound = Bound {
        layouts: Vec::new(),
        groups,
        filled,
        output,
    };
    let want = compute_expected(&package, &bound, None);
    assert_eq!(want.len(), 23 + 4 + 5 + 8);
    assert_eq!(&written[..want.len()], &want[..]);
    assert!(written[want.len()..].iter().all(|w| *w == 0));
}

/// A missing, unknown, duplicated or ill-kinded resource, a binding WebGPU cannot express
/// and an entry without WGSL are errors naming what is wrong, never a silent gap.
#[test]
fn the_pipeline_helpers_refuse_what_they_cannot_bind_with_its_name() {
    use slangpack_reader::WgpuError;
    let bytes = bake("wgpu_compute");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("wgpu_compute").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let gpu = Gpu::new();
    let device = &gpu.device;
    let pipeline = entry.pipeline(&["main"]).unwrap();
    let options = WgpuLayoutOptions {
        filterable: false,
        ..WgpuLayoutOptions::default()
    };
    let layout = pipeline.wgpu_layout(device, options).unwrap();
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 1024,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor::default());
    let albedo = gpu.texture(wgpu::TextureFormat::Rgba32Float, &texels(ALBEDO));
    /// Every resource of the pipeline but `skip`'s.
    fn all<'r, 'a>(
        groups: slangpack_reader::WgpuBindGroups<'r, 'a>,
        skip: &str,
        (buffer, albedo, sampler): (&'r wgpu::Buffer, &'r wgpu::TextureView, &'r wgpu::Sampler),
    ) -> slangpack_reader::WgpuBindGroups<'r, 'a> {
        let mut groups = groups;
        for path in ["gParams", "gInput", "gOut", "gMaterial"] {
            if path != skip {
                groups = groups.bind(path, buffer.as_entire_binding());
            }
        }
        if skip != "gMaterial.albedo" {
            groups = groups.bind(
                "gMaterial.albedo",
                wgpu::BindingResource::TextureView(albedo),
            );
        }
        groups.bind(
            "gMaterial.pointSampler",
            wgpu::BindingResource::Sampler(sampler),
        )
    }
    let resources = (&buffer, &albedo, &sampler);
    let error = |e: WgpuError| {
        let text = e.to_string();
        let boxed: Box<dyn std::error::Error> = Box::new(e.clone());
        assert_eq!(boxed.to_string(), text);
        e
    };
    assert!(all(layout.bind_groups(), "", resources)
        .finish(device)
        .is_ok());
    assert_eq!(
        error(
            all(layout.bind_groups(), "gInput", resources)
                .finish(device)
                .unwrap_err()
        ),
        WgpuError::MissingResource {
            path: "gInput".into()
        }
    );
    assert_eq!(
        error(
            all(layout.bind_groups(), "", resources)
                .bind("gNowhere", buffer.as_entire_binding())
                .finish(device)
                .unwrap_err()
        ),
        WgpuError::UnexpectedResource {
            path: "gNowhere".into()
        }
    );
    assert_eq!(
        all(layout.bind_groups(), "", resources)
            .bind("gParams", buffer.as_entire_binding())
            .finish(device)
            .unwrap_err(),
        WgpuError::DuplicateResource {
            path: "gParams".into()
        }
    );
    // A sampler for a texture's path fits no binding there.
    assert_eq!(
        all(layout.bind_groups(), "gMaterial.albedo", resources)
            .bind("gMaterial.albedo", wgpu::BindingResource::Sampler(&sampler))
            .finish(device)
            .unwrap_err(),
        WgpuError::UnexpectedResource {
            path: "gMaterial.albedo".into()
        }
    );
    // A binding of a kind WebGPU has no form for (a push-constant block, a storage texture of
    // a format WebGPU lacks): an error naming it, where `wgpu_entries` used to drop it.
    let params = *view.find("gParams").unwrap();
    let push = slangpack_format::targets::TargetBinding {
        kind: TargetBindingKind::PushConstants.to_raw(),
        ..params
    };
    let storage_r16 = slangpack_format::targets::TargetBinding {
        kind: TargetBindingKind::StorageTexture.to_raw(),
        format: 0xFFFF,
        ..params
    };
    for record in [push, storage_r16] {
        match view.wgpu_entry(&record, WgpuLayoutOptions::default()) {
            Err(WgpuError::Inexpressible { path, why }) => {
                assert_eq!(path, "gParams");
                assert!(!why.is_empty());
            }
            other => panic!("not refused: {other:?}"),
        }
    }
    // An entry baked without WGSL has no WebGPU layout.
    let mut config =
        slangpack_writer::bake::BakeConfig::new(
            vec![test_shaders_dir().join("wgpu_compute.slang")],
        );
    config.jobs = 1;
    let spirv_only = slangpack_writer::bake::bake(&config).unwrap().bytes;
    let package = Package::from_bytes(&spirv_only).unwrap();
    let entry = package.load("wgpu_compute").unwrap();
    let pipeline = entry.pipeline(&["main"]).unwrap();
    assert_eq!(
        pipeline
            .wgpu_layout(device, WgpuLayoutOptions::default())
            .unwrap_err(),
        WgpuError::NoWgsl
    );
    gpu.finish().expect("no validation message");
}

/// One pipeline's layout: only the bindings its entry points use, visible to those stages.
#[test]
fn a_render_pipelines_layout_has_its_stages_visibility_and_a_vertex_only_one_has_less() {
    let bytes = bake("wgpu_render");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("wgpu_render").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let options = WgpuLayoutOptions::default();
    let both = entry.pipeline(&["vertexMain", "fragmentMain"]).unwrap();
    let vertex = entry.pipeline(&["vertexMain"]).unwrap();
    let visibility = |pipeline: &slangpack_reader::Pipeline<'_>| {
        let mut seen = Vec::new();
        for group in 0..pipeline.wgpu_group_count() {
            for (b, e) in view
                .space(group)
                .iter()
                .filter(|b| pipeline.wgpu_bindings().any(|p| std::ptr::eq(p, *b)))
                .zip(pipeline.wgpu_entries(group, options))
            {
                let e = e.expect("a WebGPU form");
                assert_eq!((e.binding, group), (b.index, b.space));
                seen.push((view.path(b).to_string(), e.visibility));
            }
        }
        seen
    };
    let frag = wgpu::ShaderStages::FRAGMENT;
    let all = visibility(&both);
    // Every binding's visibility is the stages of this pipeline whose code uses it.
    for (path, stages) in &all {
        let vk = view.vulkan_binding(view.find(path).unwrap()).unwrap();
        assert_eq!(
            *stages,
            slangpack_reader::wgpu_stages(
                both.entry_points()
                    .filter(|ep| vk.entry_point_mask & (1 << ep.index()) != 0)
                    .fold(0, |f, ep| f | ep.stage().vk_stage_flags().to_raw())
            ),
            "{path}"
        );
    }
    assert!(
        all.contains(&("gSurface.albedo".to_string(), frag)),
        "{all:?}"
    );
    // The vertex stage alone uses none of the fragment stage's surface.
    let only = visibility(&vertex);
    assert!(only.len() < all.len(), "{only:?}");
    assert!(only.iter().all(
        |(path, stages)| !path.starts_with("gSurface") && *stages == wgpu::ShaderStages::VERTEX
    ));
    // The layout of both stages binds and draws on lavapipe (the render proof, run through
    // the helpers' layout).
    let gpu = Gpu::new();
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let layout = both.wgpu_layout(&gpu.device, options).unwrap();
    assert_eq!(layout.bind_group_layouts().len(), 2);
    let vertex_layout = vertex.wgpu_layout(&gpu.device, options).unwrap();
    assert_eq!(vertex_layout.bind_group_layouts().len(), 1);
    assert!(pollster::block_on(scope.pop()).is_none());
    gpu.finish().expect("no validation message");
}

/// What WGSL cannot take as Slang emits it bakes for WGSL and binds through the reader's
/// helpers: `Sampler2D`s at explicit bindings (Slang's sampler halves land on the next
/// resources' bindings), a texture and a sampler declared at one Vulkan binding, and a
/// push-constant block. The bake moves the sampler halves and gives the block a uniform buffer
/// after the group's last binding (SPEC.md 6.8); the bind view states both places, the
/// textures keep their Vulkan bindings, and the shader samples each texture through its own
/// sampler and reads the block filled by member path from the package's layout.
#[test]
fn combined_samplers_and_push_constants_bake_for_wgsl_and_bind_by_path() {
    let bytes = bake("wgpu_split");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("wgpu_split").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let places: Vec<(&str, TargetBindingKind, u32, u32)> = view
        .bindings()
        .iter()
        .map(|b| (view.path(b), b.binding_kind(), b.space, b.index))
        .collect();
    use TargetBindingKind::{Sampler, StorageBuffer, Texture, UniformBuffer};
    assert_eq!(
        places,
        [
            ("gFirst", Texture, 0, 0),
            ("gSecond", Texture, 0, 1),
            ("gOut", StorageBuffer, 0, 2),
            ("gFirst", Sampler, 0, 3),
            ("gSecond", Sampler, 0, 4),
            ("gPush", UniformBuffer, 0, 5),
            ("gThird", Texture, 1, 0),
            ("gThirdSampler", Sampler, 1, 1),
        ]
    );
    // Each half keeps the Vulkan binding it came from; the block has none.
    let vulkan: Vec<Option<(u32, u32)>> = view
        .bindings()
        .iter()
        .map(|b| view.vulkan_binding(b).map(|v| (v.set, v.binding)))
        .collect();
    assert_eq!(
        vulkan,
        [
            Some((0, 0)),
            Some((0, 1)),
            Some((0, 2)),
            Some((0, 0)),
            Some((0, 1)),
            None,
            Some((1, 0)),
            None,
        ]
    );
    let gpu = Gpu::new();
    let device = &gpu.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let modules = modules(&gpu, &package);
    let options = WgpuLayoutOptions {
        filterable: false,
        ..WgpuLayoutOptions::default()
    };
    let pipeline = entry.pipeline(&["main"]).expect("the pipeline");
    let layout = pipeline.wgpu_layout(device, options).expect("layouts");
    let push = view.find("gPush").unwrap();
    let push_layout = view.find_buffer_view("gPush").expect("the block's layout");
    let mut contents = vec![0u8; push_layout.size().max(push.min_binding_size) as usize];
    push_layout
        .writer(&mut contents)
        .set("gPush.scale", [1.5f32, -2.0, 3.25, 0.125])
        .and_then(|w| w.set("gPush.count", 7u32))
        .and_then(|w| w.set("gPush.bias", 0.75f32))
        .expect("the block's members by path");
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("gPush"),
        contents: &contents,
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("output"),
        size: 256,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    const SECOND: u32 = 0x4400_0000;
    const THIRD: u32 = 0x4500_0000;
    let first = gpu.texture(wgpu::TextureFormat::Rgba32Float, &texels(ALBEDO));
    let second = gpu.texture(wgpu::TextureFormat::Rgba32Float, &texels(SECOND));
    let third = gpu.texture(wgpu::TextureFormat::Rgba32Float, &texels(THIRD));
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor::default());
    let groups = layout
        .bind_groups()
        .bind("gFirst", wgpu::BindingResource::TextureView(&first))
        .bind("gFirst", wgpu::BindingResource::Sampler(&sampler))
        .bind("gSecond", wgpu::BindingResource::TextureView(&second))
        .bind("gSecond", wgpu::BindingResource::Sampler(&sampler))
        .bind("gThird", wgpu::BindingResource::TextureView(&third))
        .bind("gThirdSampler", wgpu::BindingResource::Sampler(&sampler))
        .bind("gPush", uniform.as_entire_binding())
        .bind("gOut", output.as_entire_binding())
        .finish(device)
        .expect("bind groups");
    let written = dispatch_one_workgroup(
        &gpu,
        layout.pipeline_layout(),
        (&modules[0].0, &modules[0].1),
        &groups,
        &output,
    );
    assert!(pollster::block_on(scope.pop()).is_none(), "wgpu validation");
    gpu.finish().expect("no validation message");
    let mut want = Vec::new();
    for base in [ALBEDO, SECOND, THIRD] {
        want.extend(texel(base, 0, 1));
    }
    want.extend([1.5f32, -2.0, 3.25, 0.125].map(f32::to_bits));
    want.extend([7, 0.75f32.to_bits()]);
    assert_eq!(&written[..want.len()], &want[..]);
    assert!(written[want.len()..].iter().all(|w| *w == 0));
}

/// A push-constant block's WGSL uniform buffer belongs to the pipelines whose entry points
/// declare the block, visible to those stages only: `pipelines`' `material` (read by the
/// fragment stage) is in the graphics pipeline's layout and not in the compute one's.
#[test]
fn a_push_constant_blocks_uniform_buffer_belongs_to_the_pipelines_that_declare_it() {
    let bytes = bake("pipelines");
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("pipelines").unwrap();
    let view = entry.bind().target(Target::Wgsl);
    let material = view.find("material").expect("the block's uniform buffer");
    assert_eq!(material.binding_kind(), TargetBindingKind::UniformBuffer);
    assert!(view.vulkan_binding(material).is_none());
    let graphics = entry.pipeline(&["vertexMain", "fragmentMain"]).unwrap();
    let visibility: Vec<wgpu::ShaderStages> = graphics
        .wgpu_entries(material.space, WgpuLayoutOptions::default())
        .map(|e| e.unwrap())
        .filter(|e| e.binding == material.index)
        .map(|e| e.visibility)
        .collect();
    assert_eq!(visibility, [wgpu::ShaderStages::FRAGMENT]);
    let compute = entry.pipeline(&["simulate"]).unwrap();
    let paths: Vec<&str> = compute.wgpu_bindings().map(|b| view.path(b)).collect();
    assert!(!paths.contains(&"material"), "{paths:?}");
    assert!(!paths.is_empty());
}

/// Creates the compute pipeline of `module` (its entry name and module) in `layout`,
/// dispatches one workgroup with `groups` bound in order, and reads back the first 256 bytes
/// of `output`.
fn dispatch_one_workgroup(
    gpu: &Gpu,
    layout: &wgpu::PipelineLayout,
    module: (&str, &wgpu::ShaderModule),
    groups: &[wgpu::BindGroup],
    output: &wgpu::Buffer,
) -> Vec<u32> {
    let device = &gpu.device;
    let compute = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(layout),
        module: module.1,
        entry_point: Some(module.0),
        compilation_options: Default::default(),
        cache: None,
    });
    let readback = gpu.readback(256);
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&compute);
        for (i, group) in groups.iter().enumerate() {
            pass.set_bind_group(i as u32, group, &[]);
        }
        pass.dispatch_workgroups(1, 1, 1);
    }
    encoder.copy_buffer_to_buffer(output, 0, &readback, 0, 256);
    gpu.read(encoder, &readback)
}

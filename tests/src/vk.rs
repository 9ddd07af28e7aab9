//! A small Vulkan harness for the end-to-end tests: Mesa's lavapipe with the Khronos
//! validation layer, every validation message collected.
//!
//! A missing loader, layer or lavapipe device is an error ([`Vk::new`]), never a skip: the
//! suite proves bindings on a real driver or fails. Every object the harness creates is
//! tracked and destroyed, in reverse order, by [`Vk::finish`] (or on drop), so the layer's
//! leak checks at `vkDestroyDevice` run too. The debug-utils messenger (also chained into
//! instance creation, so creation and destruction are covered) collects every message;
//! `finish` returns every warning and error, and a test asserts that list is empty (the
//! layer's informational start-up banner is printed, not returned).
//!
//! Two facts of Debian 12's stack shape the harness: the layer's SPIR-V validator predates
//! Slang's source-language value ([`for_old_validator`]), and Mesa 22.3's lavapipe has no
//! descriptor indexing ([`Capabilities`]). [`DEVICE_ENV`] picks another device by name.
//!
//! Handles are plain `ash::vk` handles (`Copy`); they stay valid until `finish`.
#![allow(
    unsafe_code,
    reason = "the Vulkan API is unsafe FFI; this module is the one place the tests call it"
)]

use ash::vk;
use std::ffi::{c_void, CStr};
use std::sync::Mutex;

/// The validation layer every instance enables.
pub const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// `OpSource`'s source-language operand for Slang (SPIR-V 1.6 registry value 11).
pub const SOURCE_LANGUAGE_SLANG: u32 = 11;
/// `OpSource`'s "Unknown" source language.
pub const SOURCE_LANGUAGE_UNKNOWN: u32 = 0;

/// A copy of `words` the validation layer's SPIR-V validator accepts.
///
/// Debian 12's layer (1.3.239) embeds a SPIRV-Tools that predates source language 11
/// (Slang) and rejects the whole module as "Invalid source language operand: 11", after which
/// it checks none of the module's interface. `OpSource` is debug information, so the copy
/// changes that one operand to Unknown (0) and nothing else; everything else the layer checks
/// (descriptor types, sets, bindings, push constants, capabilities) sees the stored SPIR-V.
pub fn for_old_validator(words: &[u32]) -> Vec<u32> {
    const OP_SOURCE: u32 = 3;
    let mut out = words.to_vec();
    let mut at = 5; // after the header
    while at < out.len() {
        let count = (out[at] >> 16) as usize;
        let opcode = out[at] & 0xffff;
        if count == 0 {
            break;
        }
        if opcode == OP_SOURCE && at + 1 < out.len() && out[at + 1] == SOURCE_LANGUAGE_SLANG {
            out[at + 1] = SOURCE_LANGUAGE_UNKNOWN;
        }
        at += count;
    }
    out
}

/// One descriptor set layout binding, as a layout description states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindingDesc {
    /// Binding number within the set.
    pub binding: u32,
    /// Descriptor type.
    pub ty: vk::DescriptorType,
    /// Descriptor count (the capacity, for an unbounded array).
    pub count: u32,
    /// Stages that may access the binding.
    pub stages: vk::ShaderStageFlags,
    /// Binding flags (partially bound, update after bind, variable count).
    pub flags: vk::DescriptorBindingFlags,
    /// For a `MUTABLE_EXT` binding, the descriptor types it may hold (bit `t` for type `t`).
    pub mutable_types: u32,
}

/// A pipeline layout description: set layouts by set number and push-constant ranges.
#[derive(Clone, Debug, Default)]
pub struct PipelineLayoutDesc {
    /// `sets[n]` describes set `n`; `None` is a hole, filled with an empty set layout.
    pub sets: Vec<Option<Vec<BindingDesc>>>,
    /// Push-constant ranges.
    pub push_constants: Vec<vk::PushConstantRange>,
}

/// A pipeline layout and its set layouts, with the description they were made from.
#[derive(Clone, Debug)]
pub struct PipelineLayout {
    /// The pipeline layout.
    pub layout: vk::PipelineLayout,
    /// One set layout per set number (holes hold empty layouts).
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    /// The description.
    pub desc: PipelineLayoutDesc,
}

/// One vertex shader input, as a layout description states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexAttribute {
    /// Shader input location.
    pub location: u32,
    /// Attribute format.
    pub format: vk::Format,
    /// Size of one attribute in bytes (used to pack the attributes into one buffer).
    pub size: u32,
}

/// A graphics pipeline: vertex and fragment SPIR-V, dynamic rendering to one colour target.
#[derive(Clone, Copy, Debug)]
pub struct GraphicsDesc<'a> {
    /// Vertex shader SPIR-V and its entry name.
    pub vertex: (&'a [u32], &'a CStr),
    /// Fragment shader SPIR-V and its entry name.
    pub fragment: (&'a [u32], &'a CStr),
    /// Vertex inputs, packed tightly in this order into vertex buffer binding 0.
    pub attributes: &'a [VertexAttribute],
    /// Colour attachment format.
    pub color_format: vk::Format,
}

/// A host-visible buffer, mapped for its whole life.
#[derive(Clone, Copy, Debug)]
pub struct Buffer {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Its size in bytes.
    pub size: u64,
    mapped: *mut u8,
}

/// A 2D image with one view.
#[derive(Clone, Copy, Debug)]
pub struct Image {
    /// The image.
    pub image: vk::Image,
    /// A view of the whole image.
    pub view: vk::ImageView,
    /// Its format.
    pub format: vk::Format,
    /// Width and height.
    pub extent: [u32; 2],
}

enum Owned {
    Buffer(vk::Buffer, vk::DeviceMemory),
    Image(vk::Image, vk::DeviceMemory, vk::ImageView),
    Sampler(vk::Sampler),
    SetLayout(vk::DescriptorSetLayout),
    PipelineLayout(vk::PipelineLayout),
    Pipeline(vk::Pipeline),
    RenderPass(vk::RenderPass),
    ShaderModule(vk::ShaderModule),
    DescriptorPool(vk::DescriptorPool),
}

/// A collected message and its severity.
type Message = (vk::DebugUtilsMessageSeverityFlagsEXT, String);
/// Collected validation messages; boxed so the callback's pointer stays put.
type Sink = Box<Mutex<Vec<Message>>>;

fn is_problem(severity: vk::DebugUtilsMessageSeverityFlagsEXT) -> bool {
    severity.intersects(
        vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
            | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
    )
}

/// The harness: instance, lavapipe device, one queue, and everything created through it.
pub struct Vk {
    _entry: ash::Entry,
    instance: ash::Instance,
    debug_utils: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    command_pool: vk::CommandPool,
    memory_types: vk::PhysicalDeviceMemoryProperties,
    owned: Vec<Owned>,
    sink: Sink,
    finished: bool,
    /// The device's name, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub device_name: String,
    /// Optional features the device has, enabled when present.
    pub capabilities: Capabilities,
}

/// Optional device features: enabled when the device has them, reported either way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// The descriptor-indexing bits the device lacks (empty: all enabled). Unbounded
    /// (bindless) arrays need every one; Mesa 22.3's lavapipe (Debian 12) has none of them.
    pub descriptor_indexing_missing: Vec<&'static str>,
    /// `shaderStorageImageReadWithoutFormat` (reading a storage image with no declared format).
    pub storage_image_read_without_format: bool,
    /// `VK_EXT_mutable_descriptor_type` with its `mutableDescriptorType` feature (bindings of
    /// type `MUTABLE_EXT`).
    pub mutable_descriptor_type: bool,
}

impl Capabilities {
    /// Whether unbounded arrays, update-after-bind, partially bound and variable-count
    /// bindings and non-uniform indexing are all enabled.
    pub fn descriptor_indexing(&self) -> bool {
        self.descriptor_indexing_missing.is_empty()
    }
}

impl std::fmt::Debug for Vk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vk")
            .field("device_name", &self.device_name)
            .field("owned", &self.owned.len())
            .finish_non_exhaustive()
    }
}

unsafe extern "system" fn collect_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // Loader chatter (general INFO) is not a validation message; everything else is kept.
    let keep = types.contains(vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION)
        || severity.intersects(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        );
    if !keep || user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: the layer passes a valid callback-data pointer (or null, checked) whose message
    // is a NUL-terminated string (or null, checked) for the duration of the call; `user` is
    // the `Mutex` inside the `Sink` box that outlives the instance (see `Vk::finish`).
    let text = unsafe {
        match data.as_ref() {
            Some(d) if !d.p_message.is_null() => {
                CStr::from_ptr(d.p_message).to_string_lossy().into_owned()
            }
            _ => "<no message>".to_string(),
        }
    };
    // SAFETY: see above; the sink is only read after the instance is destroyed.
    let sink = unsafe { &*(user as *const Mutex<Vec<Message>>) };
    if let Ok(mut messages) = sink.lock() {
        messages.push((severity, format!("[{severity:?} {types:?}] {text}")));
    }
    vk::FALSE
}

fn check(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |r| format!("{what} failed: {r:?}")
}

impl Vk {
    /// Starts Vulkan: loader, `VK_LAYER_KHRONOS_validation`, a debug-utils messenger
    /// collecting every validation message, and a device on lavapipe with the
    /// descriptor-indexing, dynamic-rendering and draw-parameter features the tests use.
    ///
    /// # Errors
    /// A message naming what is missing: the Vulkan loader, the validation layer, a lavapipe
    /// device, a feature lavapipe does not advertise, or a failed call.
    pub fn new() -> Result<Vk, String> {
        // SAFETY: loading the system Vulkan loader runs its initialisers; libvulkan1 is a
        // well-behaved library and nothing else in the process is loading it concurrently.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| format!("the Vulkan loader (libvulkan1) cannot be loaded: {e}"))?;
        // SAFETY: plain query on a loaded entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }
            .map_err(check("vkEnumerateInstanceLayerProperties"))?;
        if !layers
            .iter()
            .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER))
        {
            return Err(format!(
                "the validation layer {VALIDATION_LAYER:?} is not installed \
                 (Debian package vulkan-validationlayers)"
            ));
        }

        let sink: Sink = Box::new(Mutex::new(Vec::new()));
        let sink_ptr = &*sink as *const Mutex<Vec<Message>> as *mut c_void;
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::INFO
                    | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(collect_message))
            .user_data(sink_ptr);
        let app = vk::ApplicationInfo::default()
            .application_name(c"slangpack-tests")
            .api_version(vk::API_VERSION_1_3);
        let layer_names = [VALIDATION_LAYER.as_ptr()];
        let extension_names = [ash::ext::debug_utils::NAME.as_ptr()];
        let instance_info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extension_names)
            .push_next(&mut messenger_info);
        // SAFETY: the create info and everything it points to live until the call returns;
        // the chained messenger's user data is the boxed sink, which outlives the instance.
        let instance = unsafe { entry.create_instance(&instance_info, None) }
            .map_err(check("vkCreateInstance with the validation layer"))?;
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        // SAFETY: valid instance; same create info as above.
        let messenger =
            match unsafe { debug_utils.create_debug_utils_messenger(&messenger_info, None) } {
                Ok(m) => m,
                Err(e) => {
                    // SAFETY: nothing else was created from the instance.
                    unsafe { instance.destroy_instance(None) };
                    return Err(check("vkCreateDebugUtilsMessengerEXT")(e));
                }
            };

        let chosen = pick_lavapipe(&instance).and_then(|(physical, name)| {
            create_device(&instance, physical)
                .map(|(device, family, caps)| (physical, name, device, family, caps))
        });
        let (physical, device_name, device, family, capabilities) = match chosen {
            Ok(chosen) => chosen,
            Err(e) => {
                // SAFETY: no device exists; the messenger and instance are destroyed once.
                unsafe {
                    debug_utils.destroy_debug_utils_messenger(messenger, None);
                    instance.destroy_instance(None);
                }
                return Err(e);
            }
        };
        // SAFETY: valid device and a family index it was created with, queue 0 exists.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device and create info.
        let command_pool = match unsafe { device.create_command_pool(&pool_info, None) } {
            Ok(pool) => pool,
            Err(e) => {
                // SAFETY: nothing was created from the device; device, messenger and
                // instance are destroyed once, in reverse creation order.
                unsafe {
                    device.destroy_device(None);
                    debug_utils.destroy_debug_utils_messenger(messenger, None);
                    instance.destroy_instance(None);
                }
                return Err(check("vkCreateCommandPool")(e));
            }
        };
        // SAFETY: valid physical device.
        let memory_types = unsafe { instance.get_physical_device_memory_properties(physical) };
        Ok(Vk {
            _entry: entry,
            instance,
            debug_utils,
            messenger,
            physical,
            device,
            queue,
            command_pool,
            memory_types,
            owned: Vec::new(),
            sink,
            finished: false,
            device_name,
            capabilities,
        })
    }

    /// The lavapipe physical device.
    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.physical
    }

    /// The device.
    pub fn device(&self) -> &ash::Device {
        &self.device
    }

    /// Warnings and errors the layer has sent so far (a copy).
    pub fn messages(&self) -> Vec<String> {
        let messages = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        messages
            .iter()
            .filter(|(severity, _)| is_problem(*severity))
            .map(|(_, text)| text.clone())
            .collect()
    }

    /// Destroys everything created through the harness, the device and the instance, and
    /// returns every warning and error the validation layer sent from instance creation to
    /// instance destruction (leak reports included). Informational messages (the layer's
    /// start-up banner, its shader-cache notes) are printed to stderr, not returned.
    pub fn finish(mut self) -> Vec<String> {
        self.destroy_all();
        let messages = std::mem::take(&mut *self.sink.lock().unwrap_or_else(|e| e.into_inner()));
        let (problems, info): (Vec<_>, Vec<_>) = messages
            .into_iter()
            .partition(|(severity, _)| is_problem(*severity));
        for (_, text) in info {
            eprintln!("vulkan info: {}", text.lines().next().unwrap_or_default());
        }
        problems.into_iter().map(|(_, text)| text).collect()
    }

    fn destroy_all(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        // SAFETY: every handle below was created from this device/instance, is destroyed
        // once (the list is drained), in reverse creation order, after the device is idle.
        unsafe {
            let _ = self.device.device_wait_idle();
            while let Some(owned) = self.owned.pop() {
                match owned {
                    Owned::Buffer(b, m) => {
                        self.device.destroy_buffer(b, None);
                        self.device.free_memory(m, None);
                    }
                    Owned::Image(i, m, v) => {
                        self.device.destroy_image_view(v, None);
                        self.device.destroy_image(i, None);
                        self.device.free_memory(m, None);
                    }
                    Owned::Sampler(s) => self.device.destroy_sampler(s, None),
                    Owned::SetLayout(l) => self.device.destroy_descriptor_set_layout(l, None),
                    Owned::PipelineLayout(l) => self.device.destroy_pipeline_layout(l, None),
                    Owned::Pipeline(p) => self.device.destroy_pipeline(p, None),
                    Owned::RenderPass(r) => self.device.destroy_render_pass(r, None),
                    Owned::ShaderModule(m) => self.device.destroy_shader_module(m, None),
                    Owned::DescriptorPool(p) => self.device.destroy_descriptor_pool(p, None),
                }
            }
            self.device.destroy_command_pool(self.command_pool, None);
            self.device.destroy_device(None);
            self.debug_utils
                .destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }

    fn memory_type(&self, bits: u32, wanted: vk::MemoryPropertyFlags) -> Result<u32, String> {
        let types = &self.memory_types.memory_types[..self.memory_types.memory_type_count as usize];
        (0..types.len() as u32)
            .find(|&i| bits & (1 << i) != 0 && types[i as usize].property_flags.contains(wanted))
            .ok_or_else(|| format!("no memory type with {wanted:?} in mask {bits:#x}"))
    }

    /// A host-visible, coherent buffer of `size` bytes (zeroed), mapped.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn buffer(&mut self, size: u64, usage: vk::BufferUsageFlags) -> Result<Buffer, String> {
        let size = size.max(4);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info; the buffer is tracked for destruction and
        // bound to freshly allocated memory of a type its requirements allow; the mapping
        // covers the whole allocation (at least `size` bytes) and lives as long as it does.
        unsafe {
            let buffer = self
                .device
                .create_buffer(&info, None)
                .map_err(check("vkCreateBuffer"))?;
            let req = self.device.get_buffer_memory_requirements(buffer);
            let type_index = self.memory_type(
                req.memory_type_bits,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            )?;
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(type_index);
            let memory = self
                .device
                .allocate_memory(&alloc, None)
                .map_err(check("vkAllocateMemory"))?;
            self.owned.push(Owned::Buffer(buffer, memory));
            self.device
                .bind_buffer_memory(buffer, memory, 0)
                .map_err(check("vkBindBufferMemory"))?;
            let mapped = self
                .device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(check("vkMapMemory"))? as *mut u8;
            std::ptr::write_bytes(mapped, 0, size as usize);
            Ok(Buffer {
                buffer,
                size,
                mapped,
            })
        }
    }

    /// Copies `bytes` into `buffer` at `offset`.
    ///
    /// # Panics
    /// When the bytes do not fit.
    pub fn write(&self, buffer: &Buffer, offset: u64, bytes: &[u8]) {
        assert!(
            offset + bytes.len() as u64 <= buffer.size,
            "write past the buffer"
        );
        // SAFETY: the mapping covers `buffer.size` bytes (checked above) and stays mapped
        // until `finish`; no GPU work is in flight between submissions.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                buffer.mapped.add(offset as usize),
                bytes.len(),
            )
        };
    }

    /// The buffer's contents.
    pub fn read(&self, buffer: &Buffer) -> Vec<u8> {
        // SAFETY: the mapping covers `buffer.size` bytes and stays mapped until `finish`;
        // submissions are waited on, so no GPU write is in flight.
        unsafe { std::slice::from_raw_parts(buffer.mapped, buffer.size as usize).to_vec() }
    }

    /// A 2D image of `format`, filled with `texels` (tightly packed rows) and left in
    /// `GENERAL` layout, with a view.
    ///
    /// # Errors
    /// A failed Vulkan call, or `texels` of the wrong size.
    pub fn image_2d(
        &mut self,
        format: vk::Format,
        texel_size: u32,
        extent: [u32; 2],
        usage: vk::ImageUsageFlags,
        texels: &[u8],
    ) -> Result<Image, String> {
        let bytes = (extent[0] * extent[1] * texel_size) as usize;
        if texels.len() != bytes {
            return Err(format!("image needs {bytes} bytes, got {}", texels.len()));
        }
        let staging = self.buffer(bytes as u64, vk::BufferUsageFlags::TRANSFER_SRC)?;
        self.write(&staging, 0, texels);
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: extent[0],
                height: extent[1],
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage | vk::ImageUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let range = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        // SAFETY: valid device and create infos; the image is bound to fresh memory of an
        // allowed type before its view is made, and all three are tracked for destruction.
        let image = unsafe {
            let image = self
                .device
                .create_image(&info, None)
                .map_err(check("vkCreateImage"))?;
            let req = self.device.get_image_memory_requirements(image);
            let type_index = self
                .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
                .or_else(|_| {
                    self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())
                })?;
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(type_index);
            let memory = match self.device.allocate_memory(&alloc, None) {
                Ok(m) => m,
                Err(e) => {
                    self.device.destroy_image(image, None);
                    return Err(check("vkAllocateMemory")(e));
                }
            };
            if let Err(e) = self.device.bind_image_memory(image, memory, 0) {
                self.device.destroy_image(image, None);
                self.device.free_memory(memory, None);
                return Err(check("vkBindImageMemory")(e));
            }
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(format)
                .subresource_range(range);
            let view = match self.device.create_image_view(&view_info, None) {
                Ok(v) => v,
                Err(e) => {
                    self.device.destroy_image(image, None);
                    self.device.free_memory(memory, None);
                    return Err(check("vkCreateImageView")(e));
                }
            };
            self.owned.push(Owned::Image(image, memory, view));
            Image {
                image,
                view,
                format,
                extent,
            }
        };
        self.submit(|device, cmd| {
            let to_transfer = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::empty())
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image.image)
                .subresource_range(range);
            let region = vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                })
                .image_extent(info.extent);
            let to_general = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE)
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::GENERAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image.image)
                .subresource_range(range);
            // SAFETY: recording into a command buffer in the recording state; the image and
            // the staging buffer outlive the submission, which `submit` waits for.
            unsafe {
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_transfer],
                );
                device.cmd_copy_buffer_to_image(
                    cmd,
                    staging.buffer,
                    image.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[region],
                );
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::ALL_COMMANDS,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_general],
                );
            }
        })?;
        Ok(image)
    }

    /// A sampler with nearest filtering, unnormalised-free, with `address` on every axis.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn sampler(&mut self, address: vk::SamplerAddressMode) -> Result<vk::Sampler, String> {
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(address)
            .address_mode_v(address)
            .address_mode_w(address)
            .max_lod(0.0);
        // SAFETY: valid device and create info; tracked for destruction.
        let sampler =
            unsafe { self.device.create_sampler(&info, None) }.map_err(check("vkCreateSampler"))?;
        self.owned.push(Owned::Sampler(sampler));
        Ok(sampler)
    }

    /// Set layouts (holes get empty ones; a set with an update-after-bind binding gets an
    /// update-after-bind-pool layout) and the pipeline layout, from a description.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn pipeline_layout(&mut self, desc: &PipelineLayoutDesc) -> Result<PipelineLayout, String> {
        let mut set_layouts = Vec::with_capacity(desc.sets.len());
        for set in &desc.sets {
            let bindings: &[BindingDesc] = set.as_deref().unwrap_or(&[]);
            let vk_bindings: Vec<_> = bindings
                .iter()
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(b.ty)
                        .descriptor_count(b.count)
                        .stage_flags(b.stages)
                })
                .collect();
            let flags: Vec<_> = bindings.iter().map(|b| b.flags).collect();
            // A mutable descriptor's types: one list per binding, empty for the others.
            let mutable: Vec<Vec<vk::DescriptorType>> = bindings
                .iter()
                .map(|b| {
                    (0..32)
                        .filter(|t| b.mutable_types & (1 << t) != 0)
                        .map(vk::DescriptorType::from_raw)
                        .collect()
                })
                .collect();
            let lists: Vec<vk::MutableDescriptorTypeListEXT<'_>> = mutable
                .iter()
                .map(|types| vk::MutableDescriptorTypeListEXT::default().descriptor_types(types))
                .collect();
            let mut mutable_info = vk::MutableDescriptorTypeCreateInfoEXT::default()
                .mutable_descriptor_type_lists(&lists);
            let update_after_bind = flags
                .iter()
                .any(|f| f.contains(vk::DescriptorBindingFlags::UPDATE_AFTER_BIND));
            let mut flags_info =
                vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
            let mut info = vk::DescriptorSetLayoutCreateInfo::default()
                .bindings(&vk_bindings)
                .push_next(&mut flags_info);
            if update_after_bind {
                info = info.flags(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL);
            }
            if bindings.iter().any(|b| b.mutable_types != 0) {
                info = info.push_next(&mut mutable_info);
            }
            // SAFETY: valid device; the create info and its chain live across the call.
            let layout = unsafe { self.device.create_descriptor_set_layout(&info, None) }
                .map_err(check("vkCreateDescriptorSetLayout"))?;
            self.owned.push(Owned::SetLayout(layout));
            set_layouts.push(layout);
        }
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&set_layouts)
            .push_constant_ranges(&desc.push_constants);
        // SAFETY: valid device and create info; the set layouts are alive.
        let layout = unsafe { self.device.create_pipeline_layout(&info, None) }
            .map_err(check("vkCreatePipelineLayout"))?;
        self.owned.push(Owned::PipelineLayout(layout));
        Ok(PipelineLayout {
            layout,
            set_layouts,
            desc: desc.clone(),
        })
    }

    fn shader_module(&mut self, words: &[u32]) -> Result<vk::ShaderModule, String> {
        let words = for_old_validator(words);
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: valid device; the words live across the call (the layer validates them).
        let module = unsafe { self.device.create_shader_module(&info, None) }
            .map_err(check("vkCreateShaderModule"))?;
        self.owned.push(Owned::ShaderModule(module));
        Ok(module)
    }

    /// A compute pipeline from SPIR-V words and the SPIR-V entry name.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn compute_pipeline(
        &mut self,
        layout: &PipelineLayout,
        spirv: &[u32],
        entry: &CStr,
    ) -> Result<vk::Pipeline, String> {
        let module = self.shader_module(spirv)?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(entry);
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout.layout);
        // SAFETY: valid device, module and layout; the create info lives across the call.
        let pipelines = unsafe {
            self.device
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, e)| check("vkCreateComputePipelines")(e))?;
        self.owned.push(Owned::Pipeline(pipelines[0]));
        Ok(pipelines[0])
    }

    /// A render pass of one subpass that reads input attachment `i` from attachment `i`
    /// (format `inputs[i]`) and writes one colour attachment of format `color` (the last
    /// attachment): what a fragment shader reading input attachments is built against.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn input_render_pass(
        &mut self,
        inputs: &[vk::Format],
        color: vk::Format,
    ) -> Result<vk::RenderPass, String> {
        let attachment = |format, layout| {
            vk::AttachmentDescription::default()
                .format(format)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::LOAD)
                .store_op(vk::AttachmentStoreOp::STORE)
                .initial_layout(layout)
                .final_layout(layout)
        };
        let read = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
        let write = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
        let mut attachments: Vec<_> = inputs.iter().map(|&f| attachment(f, read)).collect();
        attachments.push(attachment(color, write));
        let input_refs: Vec<_> = (0..inputs.len() as u32)
            .map(|i| vk::AttachmentReference {
                attachment: i,
                layout: read,
            })
            .collect();
        let color_refs = [vk::AttachmentReference {
            attachment: inputs.len() as u32,
            layout: write,
        }];
        let subpasses = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .input_attachments(&input_refs)
            .color_attachments(&color_refs)];
        let info = vk::RenderPassCreateInfo::default()
            .attachments(&attachments)
            .subpasses(&subpasses);
        // SAFETY: valid device; the create info and the arrays it points to live across the
        // call.
        let pass = unsafe { self.device.create_render_pass(&info, None) }
            .map_err(check("vkCreateRenderPass"))?;
        self.owned.push(Owned::RenderPass(pass));
        Ok(pass)
    }

    /// A graphics pipeline (vertex + fragment) for dynamic rendering to one colour
    /// attachment, with dynamic viewport and scissor.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn graphics_pipeline(
        &mut self,
        layout: &PipelineLayout,
        desc: &GraphicsDesc<'_>,
    ) -> Result<vk::Pipeline, String> {
        self.graphics_pipeline_for(layout, desc, None, &[desc.color_format])
    }

    /// [`Vk::graphics_pipeline`] rendering to one colour attachment per entry of `colors`
    /// (attachment `i` at location `i`; `UNDEFINED` for a location the shader leaves
    /// unwritten); `desc.color_format` is not used.
    pub fn graphics_pipeline_to(
        &mut self,
        layout: &PipelineLayout,
        desc: &GraphicsDesc<'_>,
        colors: &[vk::Format],
    ) -> Result<vk::Pipeline, String> {
        self.graphics_pipeline_for(layout, desc, None, colors)
    }

    /// [`Vk::graphics_pipeline`] for subpass 0 of `render_pass` instead of dynamic rendering.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn graphics_pipeline_in(
        &mut self,
        layout: &PipelineLayout,
        desc: &GraphicsDesc<'_>,
        render_pass: vk::RenderPass,
    ) -> Result<vk::Pipeline, String> {
        self.graphics_pipeline_for(layout, desc, Some(render_pass), &[desc.color_format])
    }

    fn graphics_pipeline_for(
        &mut self,
        layout: &PipelineLayout,
        desc: &GraphicsDesc<'_>,
        render_pass: Option<vk::RenderPass>,
        colors: &[vk::Format],
    ) -> Result<vk::Pipeline, String> {
        let vertex = self.shader_module(desc.vertex.0)?;
        let fragment = self.shader_module(desc.fragment.0)?;
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vertex)
                .name(desc.vertex.1),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fragment)
                .name(desc.fragment.1),
        ];
        let mut offset = 0;
        let attributes: Vec<_> = desc
            .attributes
            .iter()
            .map(|a| {
                let attribute = vk::VertexInputAttributeDescription {
                    location: a.location,
                    binding: 0,
                    format: a.format,
                    offset,
                };
                offset += a.size;
                attribute
            })
            .collect();
        let bindings = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: offset,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let vertex_input = if attributes.is_empty() {
            vk::PipelineVertexInputStateCreateInfo::default()
        } else {
            vk::PipelineVertexInputStateCreateInfo::default()
                .vertex_binding_descriptions(&bindings)
                .vertex_attribute_descriptions(&attributes)
        };
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let blend_attachments: Vec<_> = colors
            .iter()
            .map(|_| {
                vk::PipelineColorBlendAttachmentState::default()
                    .color_write_mask(vk::ColorComponentFlags::RGBA)
            })
            .collect();
        let blend =
            vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let mut rendering =
            vk::PipelineRenderingCreateInfo::default().color_attachment_formats(colors);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout.layout);
        let info = match render_pass {
            Some(pass) => info.render_pass(pass).subpass(0),
            None => info.push_next(&mut rendering),
        };
        // SAFETY: valid device, modules and layout; every state struct lives across the call.
        let pipelines = unsafe {
            self.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, e)| check("vkCreateGraphicsPipelines")(e))?;
        self.owned.push(Owned::Pipeline(pipelines[0]));
        Ok(pipelines[0])
    }

    /// One descriptor set per populated set of `layout` (holes get `None`), from a pool
    /// sized for exactly these sets. `variable_counts` gives, per set number, the count of
    /// that set's variable-count binding (its declared capacity when not listed).
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn descriptor_sets(
        &mut self,
        layout: &PipelineLayout,
        variable_counts: &[(u32, u32)],
    ) -> Result<Vec<Option<vk::DescriptorSet>>, String> {
        let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
        let mut update_after_bind = false;
        let mut populated = 0;
        for (set, bindings) in layout.desc.sets.iter().enumerate() {
            let Some(bindings) = bindings else { continue };
            populated += 1;
            for b in bindings {
                update_after_bind |= b
                    .flags
                    .contains(vk::DescriptorBindingFlags::UPDATE_AFTER_BIND);
                let count = if b
                    .flags
                    .contains(vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT)
                {
                    variable_counts
                        .iter()
                        .find(|(s, _)| *s == set as u32)
                        .map_or(b.count, |(_, c)| *c)
                } else {
                    b.count
                };
                match sizes.iter_mut().find(|s| s.ty == b.ty) {
                    Some(size) => size.descriptor_count += count.max(1),
                    None => sizes.push(vk::DescriptorPoolSize {
                        ty: b.ty,
                        descriptor_count: count.max(1),
                    }),
                }
            }
        }
        if populated == 0 {
            return Ok(vec![None; layout.desc.sets.len()]);
        }
        let mut flags = vk::DescriptorPoolCreateFlags::empty();
        if update_after_bind {
            flags |= vk::DescriptorPoolCreateFlags::UPDATE_AFTER_BIND;
        }
        let info = vk::DescriptorPoolCreateInfo::default()
            .flags(flags)
            .max_sets(populated)
            .pool_sizes(&sizes);
        // SAFETY: valid device and create info; tracked for destruction.
        let pool = unsafe { self.device.create_descriptor_pool(&info, None) }
            .map_err(check("vkCreateDescriptorPool"))?;
        self.owned.push(Owned::DescriptorPool(pool));
        let mut result = Vec::with_capacity(layout.desc.sets.len());
        for (set, bindings) in layout.desc.sets.iter().enumerate() {
            let Some(bindings) = bindings else {
                result.push(None);
                continue;
            };
            let variable = bindings.iter().find(|b| {
                b.flags
                    .contains(vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT)
            });
            let counts = [variable.map_or(0, |b| {
                variable_counts
                    .iter()
                    .find(|(s, _)| *s == set as u32)
                    .map_or(b.count, |(_, c)| *c)
            })];
            let mut variable_info = vk::DescriptorSetVariableDescriptorCountAllocateInfo::default()
                .descriptor_counts(&counts);
            let set_layouts = [layout.set_layouts[set]];
            let mut alloc = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&set_layouts);
            if variable.is_some() {
                alloc = alloc.push_next(&mut variable_info);
            }
            // SAFETY: valid device, pool and layout; freed with the pool.
            let sets = unsafe { self.device.allocate_descriptor_sets(&alloc) }
                .map_err(check("vkAllocateDescriptorSets"))?;
            result.push(Some(sets[0]));
        }
        Ok(result)
    }

    /// Writes one buffer descriptor (the whole buffer).
    pub fn write_buffer(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        element: u32,
        ty: vk::DescriptorType,
        buffer: &Buffer,
    ) {
        let infos = [vk::DescriptorBufferInfo {
            buffer: buffer.buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }];
        let write = vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(binding)
            .dst_array_element(element)
            .descriptor_type(ty)
            .buffer_info(&infos);
        // SAFETY: valid device, set and buffer; the layer checks the write against the layout.
        unsafe { self.device.update_descriptor_sets(&[write], &[]) };
    }

    /// Writes one image and/or sampler descriptor (images in `GENERAL` layout).
    pub fn write_image(
        &self,
        set: vk::DescriptorSet,
        binding: u32,
        element: u32,
        ty: vk::DescriptorType,
        view: vk::ImageView,
        sampler: vk::Sampler,
    ) {
        let infos = [vk::DescriptorImageInfo {
            sampler,
            image_view: view,
            image_layout: if view == vk::ImageView::null() {
                vk::ImageLayout::UNDEFINED
            } else {
                vk::ImageLayout::GENERAL
            },
        }];
        let write = vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(binding)
            .dst_array_element(element)
            .descriptor_type(ty)
            .image_info(&infos);
        // SAFETY: valid device, set, view and sampler; the layer checks the write.
        unsafe { self.device.update_descriptor_sets(&[write], &[]) };
    }

    /// Records one dispatch (`sets[n]` bound at set `n`, each `(stages, offset, bytes)` of
    /// `push_constants` pushed), submits it and waits; shader writes are made visible to the
    /// host.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn dispatch(
        &mut self,
        pipeline: vk::Pipeline,
        layout: &PipelineLayout,
        sets: &[Option<vk::DescriptorSet>],
        push_constants: &[(vk::ShaderStageFlags, u32, &[u8])],
        groups: [u32; 3],
    ) -> Result<(), String> {
        self.submit(|device, cmd| {
            // SAFETY: recording into a command buffer in the recording state; every object
            // bound outlives the submission, which `submit` waits for.
            unsafe {
                device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
                for (index, set) in sets.iter().enumerate() {
                    if let Some(set) = set {
                        device.cmd_bind_descriptor_sets(
                            cmd,
                            vk::PipelineBindPoint::COMPUTE,
                            layout.layout,
                            index as u32,
                            &[*set],
                            &[],
                        );
                    }
                }
                for (stages, offset, bytes) in push_constants {
                    device.cmd_push_constants(cmd, layout.layout, *stages, *offset, bytes);
                }
                device.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
                let barrier = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                    .dst_access_mask(vk::AccessFlags::HOST_READ);
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[barrier],
                    &[],
                    &[],
                );
            }
        })
    }

    /// Records one non-indexed draw of `vertex_count` vertices from `vertices` (vertex
    /// buffer binding 0) with dynamic rendering into `target` (in `GENERAL` layout, cleared
    /// first), `sets[n]` bound at set `n`, each `(stages, offset, bytes)` of `push_constants`
    /// pushed; submits it and waits; shader writes are made visible to the host.
    ///
    /// # Errors
    /// A failed Vulkan call.
    #[allow(
        clippy::too_many_arguments,
        reason = "one draw: each argument is a distinct object the command buffer records"
    )]
    pub fn draw(
        &mut self,
        pipeline: vk::Pipeline,
        layout: &PipelineLayout,
        sets: &[Option<vk::DescriptorSet>],
        vertices: &Buffer,
        vertex_count: u32,
        target: &Image,
        push_constants: &[(vk::ShaderStageFlags, u32, &[u8])],
    ) -> Result<(), String> {
        let extent = target.extent;
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: extent[0],
                height: extent[1],
            },
        };
        self.submit(|device, cmd| {
            let attachments = [vk::RenderingAttachmentInfo::default()
                .image_view(target.view)
                .image_layout(vk::ImageLayout::GENERAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue::default())];
            let rendering = vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1)
                .color_attachments(&attachments);
            let viewport = vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: extent[0] as f32,
                height: extent[1] as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            };
            // SAFETY: recording into a command buffer in the recording state; every object
            // used outlives the submission, which `submit` waits for.
            unsafe {
                device.cmd_begin_rendering(cmd, &rendering);
                device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
                device.cmd_set_viewport(cmd, 0, &[viewport]);
                device.cmd_set_scissor(cmd, 0, &[area]);
                for (index, set) in sets.iter().enumerate() {
                    if let Some(set) = set {
                        device.cmd_bind_descriptor_sets(
                            cmd,
                            vk::PipelineBindPoint::GRAPHICS,
                            layout.layout,
                            index as u32,
                            &[*set],
                            &[],
                        );
                    }
                }
                for (stages, offset, bytes) in push_constants {
                    device.cmd_push_constants(cmd, layout.layout, *stages, *offset, bytes);
                }
                device.cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
                device.cmd_draw(cmd, vertex_count, 1, 0, 0);
                device.cmd_end_rendering(cmd);
                let barrier = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                    .dst_access_mask(vk::AccessFlags::HOST_READ);
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::VERTEX_SHADER | vk::PipelineStageFlags::FRAGMENT_SHADER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[barrier],
                    &[],
                    &[],
                );
            }
        })
    }

    /// Records commands with `record`, submits them once and waits for completion.
    ///
    /// # Errors
    /// A failed Vulkan call.
    pub fn submit(
        &mut self,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<(), String> {
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid device and pool; the command buffer is recorded, submitted, waited on
        // through the fence and freed before returning, on every path after allocation.
        unsafe {
            let cmd = self
                .device
                .allocate_command_buffers(&alloc)
                .map_err(check("vkAllocateCommandBuffers"))?[0];
            let fence = match self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
            {
                Ok(f) => f,
                Err(e) => {
                    self.device.free_command_buffers(self.command_pool, &[cmd]);
                    return Err(check("vkCreateFence")(e));
                }
            };
            let result = (|| {
                let begin = vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
                self.device
                    .begin_command_buffer(cmd, &begin)
                    .map_err(check("vkBeginCommandBuffer"))?;
                record(&self.device, cmd);
                self.device
                    .end_command_buffer(cmd)
                    .map_err(check("vkEndCommandBuffer"))?;
                let cmds = [cmd];
                let submit = vk::SubmitInfo::default().command_buffers(&cmds);
                self.device
                    .queue_submit(self.queue, &[submit], fence)
                    .map_err(check("vkQueueSubmit"))?;
                self.device
                    .wait_for_fences(&[fence], true, u64::MAX)
                    .map_err(check("vkWaitForFences"))
            })();
            if result.is_err() {
                let _ = self.device.device_wait_idle();
            }
            self.device.destroy_fence(fence, None);
            self.device.free_command_buffers(self.command_pool, &[cmd]);
            result
        }
    }
}

impl Drop for Vk {
    fn drop(&mut self) {
        self.destroy_all();
    }
}

/// Environment variable naming another device to run on instead of lavapipe (a substring of
/// its name, e.g. `H200`), for proofs lavapipe cannot run.
pub const DEVICE_ENV: &str = "SLANGPACK_VK_DEVICE";

fn pick_lavapipe(instance: &ash::Instance) -> Result<(vk::PhysicalDevice, String), String> {
    let wanted = std::env::var(DEVICE_ENV).ok().filter(|w| !w.is_empty());
    // SAFETY: valid instance.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(check("vkEnumeratePhysicalDevices"))?;
    let mut seen = Vec::new();
    for device in devices {
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
        // SAFETY: valid physical device; the chain lives across the call.
        unsafe { instance.get_physical_device_properties2(device, &mut props) };
        let name = props
            .properties
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let api = props.properties.api_version;
        let chosen = match &wanted {
            Some(w) => name.contains(w.as_str()),
            None => driver.driver_id == vk::DriverId::MESA_LLVMPIPE,
        };
        if chosen {
            if vk::api_version_minor(api) < 3 {
                return Err(format!(
                    "{name} offers Vulkan {}.{}, the tests need 1.3",
                    vk::api_version_major(api),
                    vk::api_version_minor(api)
                ));
            }
            return Ok((device, name));
        }
        seen.push(name);
    }
    Err(match wanted {
        Some(w) => format!("no device named like {w:?} ({DEVICE_ENV}); devices seen: {seen:?}"),
        None => format!(
            "no lavapipe device (Debian package mesa-vulkan-drivers); devices seen: {seen:?}"
        ),
    })
}

fn create_device(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Result<(ash::Device, u32, Capabilities), String> {
    // SAFETY: valid physical device.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let family = families
        .iter()
        .position(|f| {
            f.queue_flags
                .contains(vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS)
        })
        .ok_or("lavapipe has no graphics+compute queue family")? as u32;

    let mut have11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut have12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut have13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut have_mutable = vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT::default();
    let mut have = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut have11)
        .push_next(&mut have12)
        .push_next(&mut have13)
        .push_next(&mut have_mutable);
    // SAFETY: valid physical device; the chain lives across the call.
    unsafe { instance.get_physical_device_features2(physical, &mut have) };
    let have10 = have.features;

    let mut want10 = vk::PhysicalDeviceFeatures::default();
    let mut want11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut want12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut want13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut missing = Vec::new();
    macro_rules! require {
        ($have:ident, $want:ident, $($field:ident),+ $(,)?) => {$(
            if $have.$field == vk::TRUE {
                $want.$field = vk::TRUE;
            } else {
                missing.push(stringify!($field));
            }
        )+};
    }
    require!(
        have10,
        want10,
        shader_storage_image_write_without_format,
        // The vertex-input proof writes what its vertex stage fetched to a storage buffer.
        vertex_pipeline_stores_and_atomics,
        // The pipelines proof writes what its fragment stage read to a storage buffer.
        fragment_stores_and_atomics,
    );
    // SV_InstanceID / SV_VertexID make Slang declare the DrawParameters capability.
    require!(have11, want11, shader_draw_parameters);
    require!(
        have12,
        want12,
        scalar_block_layout,
        uniform_buffer_standard_layout,
    );
    // Not vulkanMemoryModel: enabled without vulkanMemoryModelDeviceScope, it makes Slang's
    // device-scope atomics (blur's InterlockedAdd) a validation error (VUID-RuntimeSpirv-
    // vulkanMemoryModel-06265); Slang's SPIR-V does not use the Vulkan memory model.
    require!(
        have13,
        want13,
        dynamic_rendering,
        synchronization2,
        maintenance4
    );
    if !missing.is_empty() {
        return Err(format!(
            "lavapipe lacks device features the tests need: {missing:?}"
        ));
    }

    // Descriptor indexing (unbounded arrays, update-after-bind, partially bound, variable
    // counts, non-uniform indexing) is all or nothing: enabled when every bit is there.
    let mut indexing_missing = Vec::new();
    let mut indexing12 = want12;
    macro_rules! indexing {
        ($($field:ident),+ $(,)?) => {$(
            if have12.$field == vk::TRUE {
                indexing12.$field = vk::TRUE;
            } else {
                indexing_missing.push(stringify!($field));
            }
        )+};
    }
    indexing!(
        runtime_descriptor_array,
        descriptor_indexing,
        descriptor_binding_partially_bound,
        descriptor_binding_variable_descriptor_count,
        descriptor_binding_update_unused_while_pending,
        descriptor_binding_sampled_image_update_after_bind,
        descriptor_binding_storage_image_update_after_bind,
        descriptor_binding_storage_buffer_update_after_bind,
        descriptor_binding_uniform_buffer_update_after_bind,
        shader_sampled_image_array_non_uniform_indexing,
        shader_storage_buffer_array_non_uniform_indexing,
        shader_storage_image_array_non_uniform_indexing,
        shader_uniform_buffer_array_non_uniform_indexing,
    );
    if indexing_missing.is_empty() {
        want12 = indexing12;
    }
    if have10.shader_storage_image_read_without_format == vk::TRUE {
        want10.shader_storage_image_read_without_format = vk::TRUE;
    }
    // Buffer device addresses (`T*`, `ConstBufferPointer<T>`): Slang's SPIR-V declares them
    // with the `PhysicalStorageBufferAddresses` and `Int64` capabilities.
    if have12.buffer_device_address == vk::TRUE && have10.shader_int64 == vk::TRUE {
        want12.buffer_device_address = vk::TRUE;
        want10.shader_int64 = vk::TRUE;
    }
    // SAFETY: valid physical device.
    let extensions = unsafe { instance.enumerate_device_extension_properties(physical) }
        .map_err(check("vkEnumerateDeviceExtensionProperties"))?;
    let mutable = have_mutable.mutable_descriptor_type == vk::TRUE
        && extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::mutable_descriptor_type::NAME));
    let mut want_mutable = vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT::default()
        .mutable_descriptor_type(mutable);
    let capabilities = Capabilities {
        descriptor_indexing_missing: indexing_missing,
        storage_image_read_without_format: want10.shader_storage_image_read_without_format
            == vk::TRUE,
        mutable_descriptor_type: mutable,
    };

    let priorities = [1.0];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let mut features = vk::PhysicalDeviceFeatures2::default()
        .features(want10)
        .push_next(&mut want11)
        .push_next(&mut want12)
        .push_next(&mut want13);
    if mutable {
        features = features.push_next(&mut want_mutable);
    }
    let extension_names = [ash::ext::mutable_descriptor_type::NAME.as_ptr()];
    let enabled: &[*const std::ffi::c_char] = if mutable { &extension_names } else { &[] };
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(enabled)
        .push_next(&mut features);
    // SAFETY: valid physical device; only advertised features are requested; the create
    // info and its chain live across the call.
    let device = unsafe { instance.create_device(physical, &info, None) }
        .map_err(check("vkCreateDevice"))?;
    Ok((device, family, capabilities))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_source_language_operand_of_op_source_changes() {
        // Header, OpCapability Shader, OpSource Slang 1, OpName %1 "a".
        let words = [
            0x0723_0203,
            0x0001_0500,
            0,
            2,
            0,
            (2 << 16) | 17,
            1,
            (3 << 16) | 3,
            SOURCE_LANGUAGE_SLANG,
            1,
            (3 << 16) | 5,
            1,
            u32::from_le_bytes(*b"a\0\0\0"),
        ];
        let patched = for_old_validator(&words);
        let changed: Vec<usize> = (0..words.len())
            .filter(|&i| words[i] != patched[i])
            .collect();
        assert_eq!(changed, [8]);
        assert_eq!(patched[8], SOURCE_LANGUAGE_UNKNOWN);
        let other = [0x0723_0203, 0x0001_0500, 0, 2, 0, (3 << 16) | 3, 5, 450];
        assert_eq!(
            for_old_validator(&other),
            other,
            "GLSL sources stay as they are"
        );
    }
}

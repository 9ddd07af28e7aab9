//! What a package says about a program's bindings, in the shape the Vulkan tests consume.
//!
//! [`describe`] is the one place that decides where that description comes from: the
//! package's bind view (issue 5, [`from_bind_view`]). [`from_spirv_cross`] reads the same
//! description from `spirv-cross --reflect` run on the package's stored SPIR-V, an
//! independent oracle for sets, bindings, descriptor types, counts and buffer member offsets,
//! which the cross-check tests compare with the bind view.
//!
//! Everything here is stated in Slang's terms, as the bind view states it: a `float3x4` has
//! 3 rows and 4 columns whatever SPIR-V calls it, and `row_major` means HLSL's row-major
//! (consecutive elements of a row are adjacent). SPIR-V's own conventions (Slang emits an
//! HLSL row as a SPIR-V column, wraps std140 arrays in `_Array_std140_*` structs) are
//! translated in [`from_spirv_cross`] and nowhere else.

use crate::vk::{BindingDesc, PipelineLayoutDesc, VertexAttribute};
use ash::vk;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One entry point's code, straight from the package.
#[derive(Clone, Debug)]
pub struct EntryPointCode {
    /// Slang's name of the entry point.
    pub name: String,
    /// Its stage.
    pub stage: vk::ShaderStageFlags,
    /// The name inside the SPIR-V module (what `pName` must be).
    pub spirv_entry_name: CString,
    /// The stored SPIR-V words.
    pub spirv: Vec<u32>,
    /// Thread-group size.
    pub thread_group_size: [u32; 3],
}

/// A descriptor count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// A fixed count (1 for a single descriptor).
    Fixed(u32),
    /// An unbounded (bindless) array: the caller supplies the capacity.
    Unbounded,
}

/// A scalar's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// 32-bit float.
    Float,
    /// 32-bit unsigned integer.
    Uint,
    /// 32-bit signed integer.
    Int,
}

/// A buffer member's type, in Slang's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemberType {
    /// One scalar.
    Scalar(Scalar),
    /// A vector of `n` scalars, adjacent.
    Vector(Scalar, u32),
    /// A matrix of `rows` × `cols` (as declared in Slang).
    Matrix {
        /// Element type.
        scalar: Scalar,
        /// Rows, as declared.
        rows: u32,
        /// Columns, as declared.
        cols: u32,
        /// Whether consecutive elements of a row are adjacent (HLSL row-major).
        row_major: bool,
        /// Bytes from one row (row-major) or column (column-major) to the next.
        stride: u32,
    },
    /// A struct's members, with offsets relative to the struct.
    Struct(Vec<Member>),
}

/// A member of a buffer or struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The member's name.
    pub name: String,
    /// Offset in bytes from the start of the enclosing buffer or struct (element).
    pub offset: u32,
    /// Array dimension (`count`, `stride`), `None` for a non-array; count 0 = runtime array.
    pub array: Option<(u32, u32)>,
    /// The member's (element) type.
    pub ty: MemberType,
}

impl MemberType {
    /// Byte offset of matrix element (`row`, `col`) from the matrix start.
    pub fn matrix_element_offset(&self, row: u32, col: u32) -> Option<u32> {
        match *self {
            MemberType::Matrix {
                row_major, stride, ..
            } => Some(if row_major {
                row * stride + col * 4
            } else {
                col * stride + row * 4
            }),
            _ => None,
        }
    }
}

/// The layout of a buffer's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferLayout {
    /// Declared size in bytes (for a structured buffer, 0: its element is a runtime array).
    pub size: u32,
    /// Top-level members in declaration order.
    pub members: Vec<Member>,
}

/// One descriptor binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The SPIR-V variable name (for a member of a parameter block, Slang's dotted path).
    pub name: String,
    /// Vulkan set.
    pub set: u32,
    /// Vulkan binding.
    pub binding: u32,
    /// Descriptor type.
    pub ty: vk::DescriptorType,
    /// Descriptor count.
    pub count: Count,
    /// Stages whose code declares the binding.
    pub stages: vk::ShaderStageFlags,
    /// Declared image format (`rgba8`, `r32ui`, ...), for storage images that state one.
    pub image_format: Option<String>,
    /// The buffer's layout, for uniform and storage buffers.
    pub buffer: Option<BufferLayout>,
    /// For a mutable descriptor, the descriptor types it may hold (bit `t` for type `t`).
    pub mutable_types: u32,
}

/// A push-constant block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushConstants {
    /// Offset of the range in bytes (of its first member: Slang starts every block at 0,
    /// `[[vk::offset(N)]]` moves it).
    pub offset: u32,
    /// Size of the range in bytes.
    pub size: u32,
    /// Stages that declare it.
    pub stages: vk::ShaderStageFlags,
    /// The block's layout.
    pub layout: BufferLayout,
}

/// One vertex input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexInput {
    /// Its name.
    pub name: String,
    /// Location.
    pub location: u32,
    /// Attribute format.
    pub format: vk::Format,
    /// Size in bytes.
    pub size: u32,
    /// Whether the entry point's SPIR-V reads it (Slang drops unused inputs).
    pub used: bool,
}

/// The package a description was read from, so that Vulkan layouts are built from it through
/// the reader's `ash` conversion (`SetLayout::vk_bindings`, `BindView::vk_vertex_attributes`,
/// ...), as an engine builds them.
#[derive(Clone, Debug)]
pub struct PackageSource {
    /// The package bytes.
    pub bytes: Arc<[u8]>,
    /// The entry's key.
    pub key: String,
}

impl PackageSource {
    fn with_bind_view<T>(&self, f: impl FnOnce(&slangpack_reader::Entry<'_>) -> T) -> T {
        let package = slangpack_reader::Package::from_bytes(&self.bytes)
            .expect("a package that opened once opens again");
        let entry = package
            .load(&self.key)
            .expect("the entry is in its package and loads");
        f(&entry)
    }
}

/// The pipeline layout description of `entry`, built by the reader's `ash` conversion: one
/// set per slot of the bind view's set array (holes, and sets holding only zero-length
/// arrays, `None`), unbounded arrays at `unbounded_capacity`, push-constant ranges.
pub fn vk_pipeline_layout_desc(
    entry: &slangpack_reader::Entry<'_>,
    unbounded_capacity: u32,
) -> PipelineLayoutDesc {
    let bind = entry.bind();
    let sets = bind
        .set_layouts()
        .map(|set| {
            let bindings: Vec<BindingDesc> = set
                .vk_bindings(unbounded_capacity)
                .map(|(b, flags)| BindingDesc {
                    binding: b.binding,
                    ty: b.descriptor_type,
                    count: b.descriptor_count,
                    stages: b.stage_flags,
                    flags,
                    mutable_types: (bind.bindings().iter())
                        .find(|d| (d.set, d.binding) == (set.set(), b.binding))
                        .map_or(0, |d| d.mutable_types),
                })
                .collect();
            (!bindings.is_empty()).then_some(bindings)
        })
        .collect();
    PipelineLayoutDesc {
        sets,
        push_constants: bind.vk_push_constant_ranges().collect(),
    }
}

/// The vertex attributes of entry point `index` of `entry` the reader's `ash` conversion
/// gives (used inputs, packed tightly in location order), each with its byte size.
pub fn vk_vertex_attributes(
    entry: &slangpack_reader::Entry<'_>,
    index: u32,
) -> Vec<VertexAttribute> {
    let bind = entry.bind();
    let attributes: Vec<vk::VertexInputAttributeDescription> =
        bind.vk_vertex_attributes(index, 0).collect();
    let stride = bind.vk_vertex_binding(index, 0).stride;
    let ends = attributes.iter().skip(1).map(|a| a.offset).chain([stride]);
    attributes
        .iter()
        .zip(ends)
        .map(|(a, end)| VertexAttribute {
            location: a.location,
            format: a.format,
            size: end - a.offset,
        })
        .collect()
}

/// Everything about one program (a package entry) the Vulkan tests bind with.
#[derive(Clone, Debug)]
pub struct ProgramLayout {
    /// The permutation key.
    pub key: String,
    /// Entry points in package order.
    pub entry_points: Vec<EntryPointCode>,
    /// Descriptor bindings, sorted by (set, binding).
    pub bindings: Vec<Binding>,
    /// The push-constant blocks (one per stage at most), by offset.
    pub push_constants: Vec<PushConstants>,
    /// Vertex inputs of each entry point (empty for non-vertex stages), sorted by location.
    pub vertex_inputs: Vec<Vec<VertexInput>>,
    /// The package, for descriptions read from its bind view: their Vulkan layouts come from
    /// the reader's `ash` conversion. `None` for the spirv-cross oracle's descriptions.
    pub source: Option<PackageSource>,
}

impl ProgramLayout {
    /// The binding named `name`.
    pub fn binding(&self, name: &str) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.name == name)
    }

    /// The entry point named `name` (Slang's name).
    pub fn entry_point(&self, name: &str) -> Option<&EntryPointCode> {
        self.entry_points.iter().find(|e| e.name == name)
    }

    /// The pipeline layout description: for a bind-view description, the reader's `ash`
    /// conversion of the package's bind view ([`vk_pipeline_layout_desc`]); for the oracle's,
    /// [`Self::described_pipeline_layout_desc`].
    pub fn pipeline_layout_desc(&self, unbounded_capacity: u32) -> PipelineLayoutDesc {
        match &self.source {
            Some(source) => {
                source.with_bind_view(|entry| vk_pipeline_layout_desc(entry, unbounded_capacity))
            }
            None => self.described_pipeline_layout_desc(unbounded_capacity),
        }
    }

    /// The pipeline layout description stated by this description itself: one set layout per
    /// set number up to the highest (holes `None`), unbounded arrays with
    /// `unbounded_capacity` descriptors, flagged partially bound and update-after-bind, the
    /// highest binding of a set also variable-count; push constants as one range at offset 0.
    pub fn described_pipeline_layout_desc(&self, unbounded_capacity: u32) -> PipelineLayoutDesc {
        let set_count = self.bindings.iter().map(|b| b.set + 1).max().unwrap_or(0);
        let mut sets: Vec<Option<Vec<BindingDesc>>> = vec![None; set_count as usize];
        for b in &self.bindings {
            let (count, flags) = match b.count {
                Count::Fixed(n) => (n, vk::DescriptorBindingFlags::empty()),
                Count::Unbounded => (
                    unbounded_capacity,
                    vk::DescriptorBindingFlags::PARTIALLY_BOUND
                        | vk::DescriptorBindingFlags::UPDATE_AFTER_BIND,
                ),
            };
            sets[b.set as usize]
                .get_or_insert_with(Vec::new)
                .push(BindingDesc {
                    binding: b.binding,
                    ty: b.ty,
                    count,
                    stages: b.stages,
                    flags,
                    mutable_types: b.mutable_types,
                });
        }
        for bindings in sets.iter_mut().flatten() {
            bindings.sort_by_key(|b| b.binding);
            if let Some(last) = bindings.last_mut() {
                if last
                    .flags
                    .contains(vk::DescriptorBindingFlags::UPDATE_AFTER_BIND)
                {
                    last.flags |= vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT;
                }
            }
        }
        let push_constants = self
            .push_constants
            .iter()
            .map(|p| vk::PushConstantRange {
                stage_flags: p.stages,
                offset: p.offset,
                size: p.size,
            })
            .collect();
        PipelineLayoutDesc {
            sets,
            push_constants,
        }
    }

    /// The vertex attributes of entry point `index` that its SPIR-V consumes, in location
    /// order. The bind view lists every declared vertex input and marks the ones Slang's SPIR-V
    /// dropped (pbr's unused TANGENT and TEXCOORD1); feeding those draws the layer's
    /// `UNASSIGNED-CoreValidation-Shader-OutputNotConsumed` warning, so they are left out.
    pub fn vertex_attributes(&self, index: usize) -> Vec<VertexAttribute> {
        if let Some(source) = &self.source {
            return source.with_bind_view(|entry| vk_vertex_attributes(entry, index as u32));
        }
        self.vertex_inputs[index]
            .iter()
            .filter(|v| v.used)
            .map(|v| VertexAttribute {
                location: v.location,
                format: v.format,
                size: v.size,
            })
            .collect()
    }
}

/// Bakes `inputs` (files or directories) into package bytes with the real Slang compiler.
///
/// # Panics
/// When the bake fails (with Slang's diagnostics).
pub fn bake(inputs: &[PathBuf]) -> Vec<u8> {
    bake_with(inputs, slangpack_writer::compile::CompileOptions::default())
}

/// [`bake`] with compile options of the caller's.
///
/// # Panics
/// When the bake fails, with Slang's diagnostics.
pub fn bake_with(
    inputs: &[PathBuf],
    options: slangpack_writer::compile::CompileOptions,
) -> Vec<u8> {
    let mut config = slangpack_writer::bake::BakeConfig::new(inputs.to_vec());
    config.options = options;
    config.jobs = 2;
    match slangpack_writer::bake::bake(&config) {
        Ok(outcome) => outcome.bytes.into_vec(),
        Err(e) => panic!("bake of {inputs:?} failed: {e}\n{}", e.diagnostics()),
    }
}

/// The description of one package entry the Vulkan tests bind with: the package's bind view
/// (issue 5), read by [`from_bind_view`]. [`from_spirv_cross`] is the independent oracle the
/// cross-check tests compare it with.
///
/// # Errors
/// A message when the entry cannot be described.
pub fn describe(entry: &slangpack_reader::Entry<'_>) -> Result<ProgramLayout, String> {
    from_bind_view(entry)
}

/// The description read from `spirv-cross --reflect` on the entry's stored SPIR-V.
///
/// # Errors
/// A message when spirv-cross fails or prints something this adapter does not translate.
pub fn describe_with_spirv_cross(
    entry: &slangpack_reader::Entry<'_>,
) -> Result<ProgramLayout, String> {
    from_spirv_cross(entry.key(), entry_point_code(entry)?)
}

/// The description read from the package's bind view (issue 5): absolute sets and bindings,
/// descriptor types, counts, image formats, stages, buffer layouts (flattened pre-order
/// members with parent indices, rebuilt into a tree here), push constants, vertex inputs —
/// of every pipeline of the entry at once (the union view tools read).
///
/// A storage buffer is described as one runtime array of its element (as SPIR-V declares
/// it); a `ByteAddressBuffer`, which the bind view gives no layout, as a runtime array of
/// `uint`. A zero-length array is a reserved slot, not a descriptor, and is left out.
///
/// # Errors
/// A message when the entry has no bind view or holds a value this adapter does not know.
pub fn from_bind_view(entry: &slangpack_reader::Entry<'_>) -> Result<ProgramLayout, String> {
    let view = entry.bind();
    let bindings = view.bindings().iter().map(|b| (b, b.stage_flags));
    let push = view.push_constants().iter().map(|p| (p, p.stage_flags));
    described(entry, &view, bindings, push, |_| true)
}

/// The description of one pipeline of the entry, made of the entry points named
/// `entry_points`, read from [`slangpack_reader::Entry::pipeline`] alone: the bindings and
/// push-constant ranges those entry points use, with their stage flags only; entry points
/// (and their vertex inputs) are those named, in package order.
///
/// # Errors
/// The reader's [`slangpack_reader::PipelineError`], or what [`from_bind_view`] refuses.
pub fn from_pipeline(
    entry: &slangpack_reader::Entry<'_>,
    entry_points: &[&str],
) -> Result<ProgramLayout, String> {
    let pipeline = entry
        .pipeline(entry_points)
        .map_err(|e| format!("{}: {e}", entry.key()))?;
    let view = pipeline.bind_view();
    let bindings = pipeline.bindings().map(|b| (b.record, b.stage_flags));
    let push = pipeline.push_constants().map(|p| (p.record, p.stage_flags));
    let mut layout = described(entry, &view, bindings, push, |name| {
        entry_points.contains(&name)
    })?;
    // Its Vulkan layout is its own description, not the whole bind view's.
    layout.source = None;
    Ok(layout)
}

fn described<'a>(
    entry: &slangpack_reader::Entry<'a>,
    view: &slangpack_reader::BindView<'a>,
    bindings_in: impl Iterator<Item = (&'a slangpack_format::bind::DescriptorBinding, u32)>,
    push_in: impl Iterator<Item = (&'a slangpack_format::bind::PushConstantRange, u32)>,
    keep_entry_point: impl Fn(&str) -> bool,
) -> Result<ProgramLayout, String> {
    use slangpack_format::bind::{
        BUFFER_STRUCTURED_ELEMENT, COUNT_FIXED, COUNT_UNBOUNDED, COUNT_ZERO,
    };
    let key = entry.key();
    let all_entry_points = entry_point_code(entry)?;
    if view.summary().is_none() {
        return Err(format!("{key}: the package has no bind view"));
    }
    let layout_of = |index: u32, structured: bool| -> Option<BufferLayout> {
        let layout = view.buffer_layout(index)?;
        let members = bind_view_members(view, view.members(layout), layout.first_member as usize);
        if structured || layout.kind == BUFFER_STRUCTURED_ELEMENT {
            let element = if members.is_empty() {
                let words = (layout.size / 4).max(1);
                if words == 1 {
                    MemberType::Scalar(Scalar::Uint)
                } else {
                    MemberType::Vector(Scalar::Uint, words)
                }
            } else {
                MemberType::Struct(members)
            };
            return Some(BufferLayout {
                size: 0,
                members: vec![Member {
                    name: String::new(),
                    offset: 0,
                    array: Some((0, layout.stride)),
                    ty: element,
                }],
            });
        }
        Some(BufferLayout {
            size: layout.size,
            members,
        })
    };
    let mut bindings = Vec::new();
    for (b, stage_flags) in bindings_in {
        let count = match b.count_kind {
            COUNT_FIXED => Count::Fixed(b.count),
            COUNT_UNBOUNDED => Count::Unbounded,
            COUNT_ZERO => continue,
            other => return Err(format!("{key}: count kind {other}")),
        };
        let ty = vk::DescriptorType::from_raw(b.descriptor_type as i32);
        let path = view.string(b.path);
        let spirv_name = view.string(b.spirv_name);
        let name = if spirv_name.is_empty() {
            path
        } else {
            spirv_name
        };
        let buffer = match ty {
            vk::DescriptorType::UNIFORM_BUFFER => layout_of(b.buffer_layout, false),
            vk::DescriptorType::STORAGE_BUFFER => Some(
                layout_of(b.buffer_layout, true).unwrap_or_else(|| BufferLayout {
                    size: 0,
                    members: vec![Member {
                        name: String::new(),
                        offset: 0,
                        array: Some((0, 4)),
                        ty: MemberType::Scalar(Scalar::Uint),
                    }],
                }),
            ),
            _ => None,
        };
        bindings.push(Binding {
            name: name.to_string(),
            set: b.set,
            binding: b.binding,
            ty,
            count,
            stages: vk::ShaderStageFlags::from_raw(stage_flags),
            image_format: slangpack_format::bind::image_format_name(b.image_format)
                .map(str::to_string),
            buffer,
            mutable_types: b.mutable_types,
        });
    }
    let mut push_constants = Vec::new();
    for (range, stage_flags) in push_in {
        push_constants.push(PushConstants {
            offset: range.offset,
            size: range.size,
            stages: vk::ShaderStageFlags::from_raw(stage_flags),
            layout: layout_of(range.buffer_layout, false)
                .ok_or_else(|| format!("{key}: push constants without a layout"))?,
        });
    }
    push_constants.sort_by_key(|p| p.offset);
    let mut entry_points = Vec::new();
    let mut vertex_inputs = Vec::new();
    for (index, ep) in all_entry_points.into_iter().enumerate() {
        if !keep_entry_point(&ep.name) {
            continue;
        }
        let mut inputs: Vec<VertexInput> = view
            .vertex_inputs(index as u32)
            .iter()
            .map(|v| VertexInput {
                name: view.string(v.name).to_string(),
                location: v.location,
                format: vk::Format::from_raw(v.format as i32),
                size: 4 * v.component_count,
                used: v.flags & slangpack_format::bind::VERTEX_INPUT_USED != 0,
            })
            .collect();
        inputs.sort_by_key(|i| i.location);
        vertex_inputs.push(inputs);
        entry_points.push(ep);
    }
    Ok(ProgramLayout {
        key: key.to_string(),
        entry_points,
        bindings,
        push_constants,
        vertex_inputs,
        source: Some(PackageSource {
            bytes: entry.package().as_bytes().into(),
            key: key.to_string(),
        }),
    })
}

/// Rebuilds the member tree from the bind view's flattened pre-order list (`flat` starts at
/// absolute member index `base`; parent indices are absolute). A member's offset becomes
/// relative to its parent struct, or to the element of its parent array.
fn bind_view_members(
    view: &slangpack_reader::BindView<'_>,
    flat: &[slangpack_format::bind::BufferMember],
    base: usize,
) -> Vec<Member> {
    use slangpack_format::bind::{ARRAY_UNBOUNDED, MEMBER_CONFORMANCE, MEMBER_EXISTENTIAL_PAYLOAD};
    use slangpack_format::ABSENT;
    fn build(
        view: &slangpack_reader::BindView<'_>,
        flat: &[slangpack_format::bind::BufferMember],
        base: usize,
        parent: u32,
        parent_frame: u32,
    ) -> Vec<Member> {
        flat.iter()
            .enumerate()
            .filter(|(_, m)| m.parent == parent)
            .map(|(i, m)| {
                let array = match m.array_count {
                    0 => None,
                    ARRAY_UNBOUNDED => Some((0, m.array_stride)),
                    n => Some((n, m.array_stride)),
                };
                let scalar = match m.scalar_type {
                    3 => Scalar::Int,
                    4 => Scalar::Uint,
                    _ => Scalar::Float,
                };
                let ty = match m.type_kind {
                    1 => {
                        // Children of an array of structs are element-relative; children of
                        // a plain struct share its frame.
                        let frame = if array.is_some() { 0 } else { m.offset };
                        let mut children = build(view, flat, base, (base + i) as u32, frame);
                        let dispatched = flat.iter().any(|c| {
                            c.parent == (base + i) as u32 && c.flags & MEMBER_CONFORMANCE != 0
                        });
                        if dispatched {
                            // Several types' data over the same words, as a union: the
                            // SPIR-V declares the words, whichever type the engine writes.
                            children.clear();
                        }
                        if m.flags & MEMBER_EXISTENTIAL_PAYLOAD != 0 {
                            // The words of an existential's payload that the concrete value
                            // leaves unused: the SPIR-V declares them, and they are part of
                            // the bytes the bind view says the payload spans.
                            let used = crate::proof::read_offsets(&children, 0);
                            for word in (0..m.size / 4).map(|w| w * 4) {
                                if !used.contains(&word) {
                                    children.push(Member {
                                        name: format!("#unused{word}"),
                                        offset: word,
                                        array: None,
                                        ty: MemberType::Scalar(Scalar::Uint),
                                    });
                                }
                            }
                        }
                        MemberType::Struct(children)
                    }
                    3 => MemberType::Matrix {
                        scalar,
                        rows: m.rows,
                        cols: m.columns,
                        row_major: m.matrix_layout == 1,
                        stride: m.matrix_stride,
                    },
                    4 => MemberType::Vector(scalar, m.columns),
                    _ => MemberType::Scalar(scalar),
                };
                Member {
                    name: view.string(m.name).to_string(),
                    offset: m.offset - parent_frame,
                    array,
                    ty,
                }
            })
            .collect()
    }
    build(view, flat, base, ABSENT, 0)
}

/// The entry points of a package entry: name, stage, stored SPIR-V and SPIR-V entry name.
///
/// # Errors
/// A stage the tests do not handle, or an entry name with a NUL byte.
pub fn entry_point_code(
    entry: &slangpack_reader::Entry<'_>,
) -> Result<Vec<EntryPointCode>, String> {
    use slangpack_format::Stage;
    entry
        .entry_points()
        .map(|ep| {
            let stage = match ep.stage() {
                Stage::Vertex => vk::ShaderStageFlags::VERTEX,
                Stage::Fragment => vk::ShaderStageFlags::FRAGMENT,
                Stage::Compute => vk::ShaderStageFlags::COMPUTE,
                other => return Err(format!("{}: stage {other:?} is not tested", ep.name())),
            };
            Ok(EntryPointCode {
                name: ep.name().to_string(),
                stage,
                spirv_entry_name: CString::new(ep.spirv_entry_name())
                    .map_err(|e| format!("{}: {e}", ep.name()))?,
                spirv: ep.spirv().to_vec(),
                thread_group_size: ep.thread_group_size(),
            })
        })
        .collect()
}

/// Runs `spirv-cross --reflect` on SPIR-V words.
///
/// # Errors
/// When `spirv-cross` (Debian package `spirv-cross`) is missing or fails.
pub fn spirv_cross_reflect(words: &[u32]) -> Result<Value, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("module.spv");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let output = std::process::Command::new("spirv-cross")
        .arg(&path)
        .arg("--reflect")
        .output()
        .map_err(|e| format!("spirv-cross (Debian package spirv-cross) cannot run: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "spirv-cross failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("spirv-cross JSON: {e}"))
}

/// Names of the descriptor-bound variables of a SPIR-V module, by (set, binding), from its
/// `OpName` and `OpDecorate DescriptorSet/Binding` instructions (`spirv-cross --reflect`
/// names a buffer by its block type, not its variable).
pub fn spirv_binding_names(words: &[u32]) -> BTreeMap<(u32, u32), String> {
    slangpack_writer::spirv::descriptor_variables(words)
        .into_iter()
        .map(|v| ((v.set, v.binding), v.name))
        .collect()
}

/// The description of a program read from `spirv-cross --reflect` on each entry point's
/// SPIR-V (merged: a binding's stages are those whose code declares it).
///
/// The default of the specialization constant whose SPIR-V id is `variable_id`, from
/// spirv-cross's `specialization_constants`.
fn spec_constant_default(json: &Value, variable_id: u32) -> Option<u32> {
    json["specialization_constants"]
        .as_array()?
        .iter()
        .find(|c| c["variable_id"].as_u64() == Some(u64::from(variable_id)))
        .and_then(|c| u32::try_from(c["default_value"].as_u64()?).ok())
}

/// # Errors
/// When spirv-cross fails, or its output holds something this adapter does not translate.
pub fn from_spirv_cross(
    key: &str,
    entry_points: Vec<EntryPointCode>,
) -> Result<ProgramLayout, String> {
    let mut bindings: BTreeMap<(u32, u32), Binding> = BTreeMap::new();
    let mut push_constants: Vec<PushConstants> = Vec::new();
    let mut vertex_inputs = Vec::new();
    for ep in &entry_points {
        let json = spirv_cross_reflect(&ep.spirv)?;
        let names = spirv_binding_names(&ep.spirv);
        let types = &json["types"];
        let kinds = [
            ("ubos", vk::DescriptorType::UNIFORM_BUFFER),
            ("ssbos", vk::DescriptorType::STORAGE_BUFFER),
            ("separate_images", vk::DescriptorType::SAMPLED_IMAGE),
            ("separate_samplers", vk::DescriptorType::SAMPLER),
            ("textures", vk::DescriptorType::COMBINED_IMAGE_SAMPLER),
            ("images", vk::DescriptorType::STORAGE_IMAGE),
        ];
        for (list, ty) in kinds {
            for resource in json[list].as_array().into_iter().flatten() {
                let set = uint(&resource["set"])?;
                let binding = uint(&resource["binding"])?;
                let type_name = resource["type"].as_str().unwrap_or_default();
                let ty = match (ty, type_name) {
                    (vk::DescriptorType::SAMPLED_IMAGE, t) if t.ends_with("Buffer") => {
                        vk::DescriptorType::UNIFORM_TEXEL_BUFFER
                    }
                    (vk::DescriptorType::STORAGE_IMAGE, t) if t.ends_with("Buffer") => {
                        vk::DescriptorType::STORAGE_TEXEL_BUFFER
                    }
                    (ty, _) => ty,
                };
                let literal = resource["array_size_is_literal"][0].as_bool() != Some(false);
                let count = match resource["array"].as_array().map(Vec::as_slice) {
                    None | Some([]) => Count::Fixed(1),
                    Some([n]) if n.as_u64() == Some(0) => Count::Unbounded,
                    Some([n]) if literal => Count::Fixed(uint(n)?),
                    // Sized by a specialization constant: `n` is its id, counted at its default.
                    Some([n]) => {
                        Count::Fixed(spec_constant_default(&json, uint(n)?).ok_or_else(|| {
                            format!("{key}: {list} array sized by an unknown constant {n}")
                        })?)
                    }
                    Some(more) => return Err(format!("{key}: {list} array {more:?} not handled")),
                };
                let buffer = match ty {
                    vk::DescriptorType::UNIFORM_BUFFER | vk::DescriptorType::STORAGE_BUFFER => {
                        let block = &types[type_name];
                        Some(BufferLayout {
                            size: resource["block_size"].as_u64().unwrap_or(0) as u32,
                            members: members(types, block)?,
                        })
                    }
                    _ => None,
                };
                let described = Binding {
                    name: names
                        .get(&(set, binding))
                        .cloned()
                        .unwrap_or_else(|| resource["name"].as_str().unwrap_or_default().into()),
                    set,
                    binding,
                    ty,
                    count,
                    stages: ep.stage,
                    image_format: resource["format"].as_str().map(str::to_string),
                    buffer,
                    mutable_types: 0,
                };
                match bindings.get_mut(&(set, binding)) {
                    // Variables of different descriptor types aliased at one binding (Slang's
                    // descriptor heap for several kinds of handles): one mutable descriptor.
                    Some(seen)
                        if seen.ty != described.ty
                            && described.ty.as_raw() < 32
                            && (seen.ty.as_raw() < 32
                                || seen.ty == vk::DescriptorType::MUTABLE_EXT) =>
                    {
                        if seen.ty != vk::DescriptorType::MUTABLE_EXT {
                            seen.mutable_types = 1 << seen.ty.as_raw();
                            seen.ty = vk::DescriptorType::MUTABLE_EXT;
                            seen.buffer = None;
                            seen.image_format = None;
                        }
                        seen.mutable_types |= 1 << described.ty.as_raw();
                        seen.stages |= ep.stage;
                    }
                    Some(seen) => {
                        let stages = seen.stages | ep.stage;
                        let mut other = described.clone();
                        other.stages = stages;
                        seen.stages = stages;
                        if *seen != other {
                            return Err(format!(
                                "{key}: entry points disagree on set {set} binding {binding}: \
                                 {seen:?} vs {other:?}"
                            ));
                        }
                    }
                    None => {
                        bindings.insert((set, binding), described);
                    }
                }
            }
        }
        for block in json["push_constants"].as_array().into_iter().flatten() {
            let ty = &types[block["type"].as_str().unwrap_or_default()];
            let members = members(types, ty)?;
            let offset = members.iter().map(|m| m.offset).min().unwrap_or(0);
            let layout = BufferLayout {
                size: end_of(&members),
                members,
            };
            // The same block seen from several stages is one range.
            match push_constants.iter_mut().find(|p| p.layout == layout) {
                Some(seen) => seen.stages |= ep.stage,
                None => push_constants.push(PushConstants {
                    offset,
                    size: (layout.size - offset).next_multiple_of(4),
                    stages: ep.stage,
                    layout,
                }),
            }
        }
        let mut inputs = Vec::new();
        if ep.stage == vk::ShaderStageFlags::VERTEX {
            for input in json["inputs"].as_array().into_iter().flatten() {
                let type_name = input["type"].as_str().unwrap_or_default();
                let (format, size) = vertex_format(type_name)
                    .ok_or_else(|| format!("{key}: vertex input type {type_name} not handled"))?;
                inputs.push(VertexInput {
                    name: input["name"].as_str().unwrap_or_default().into(),
                    location: uint(&input["location"])?,
                    format,
                    size,
                    used: true,
                });
            }
            inputs.sort_by_key(|i| i.location);
        }
        vertex_inputs.push(inputs);
    }
    push_constants.sort_by_key(|p| p.offset);
    Ok(ProgramLayout {
        key: key.to_string(),
        entry_points,
        bindings: bindings.into_values().collect(),
        push_constants,
        vertex_inputs,
        source: None,
    })
}

/// The end of the last byte the members occupy.
fn end_of(members: &[Member]) -> u32 {
    members
        .iter()
        .map(|m| {
            let element = match &m.ty {
                MemberType::Scalar(_) => 4,
                MemberType::Vector(_, n) => 4 * n,
                MemberType::Matrix {
                    rows,
                    cols,
                    row_major,
                    stride,
                    ..
                } => {
                    let (lines, width) = if *row_major {
                        (rows, cols)
                    } else {
                        (cols, rows)
                    };
                    (lines - 1) * stride + 4 * width
                }
                MemberType::Struct(inner) => end_of(inner),
            };
            let arrayed = match m.array {
                Some((n, stride)) if n > 0 => (n - 1) * stride + element,
                _ => element,
            };
            m.offset + arrayed
        })
        .max()
        .unwrap_or(0)
}

fn uint(value: &Value) -> Result<u32, String> {
    value
        .as_u64()
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("expected an unsigned integer, got {value}"))
}

fn vertex_format(type_name: &str) -> Option<(vk::Format, u32)> {
    use vk::Format as F;
    Some(match type_name {
        "float" => (F::R32_SFLOAT, 4),
        "vec2" => (F::R32G32_SFLOAT, 8),
        "vec3" => (F::R32G32B32_SFLOAT, 12),
        "vec4" => (F::R32G32B32A32_SFLOAT, 16),
        "uint" => (F::R32_UINT, 4),
        "uvec2" => (F::R32G32_UINT, 8),
        "uvec3" => (F::R32G32B32_UINT, 12),
        "uvec4" => (F::R32G32B32A32_UINT, 16),
        "int" => (F::R32_SINT, 4),
        "ivec2" => (F::R32G32_SINT, 8),
        "ivec3" => (F::R32G32B32_SINT, 12),
        "ivec4" => (F::R32G32B32A32_SINT, 16),
        _ => return None,
    })
}

/// A GLSL-named scalar/vector/matrix type as spirv-cross prints it.
fn glsl_type(name: &str) -> Option<(Scalar, u32, u32)> {
    let (scalar, rest) = match name {
        "float" => return Some((Scalar::Float, 1, 1)),
        "uint" => return Some((Scalar::Uint, 1, 1)),
        "int" => return Some((Scalar::Int, 1, 1)),
        _ if name.starts_with("vec") => (Scalar::Float, &name[3..]),
        _ if name.starts_with("uvec") => (Scalar::Uint, &name[4..]),
        _ if name.starts_with("ivec") => (Scalar::Int, &name[4..]),
        _ if name.starts_with("mat") => {
            // matC or matCxR: C columns of R components, in SPIR-V's terms.
            let dims = &name[3..];
            let (c, r) = match dims.split_once('x') {
                Some((c, r)) => (c.parse().ok()?, r.parse().ok()?),
                None => {
                    let n = dims.parse().ok()?;
                    (n, n)
                }
            };
            return Some((Scalar::Float, c, r));
        }
        _ => return None,
    };
    Some((scalar, rest.parse().ok()?, 1))
}

fn members(types: &Value, block: &Value) -> Result<Vec<Member>, String> {
    let mut out = Vec::new();
    for m in block["members"].as_array().into_iter().flatten() {
        out.push(member(types, m)?);
    }
    Ok(out)
}

fn member(types: &Value, m: &Value) -> Result<Member, String> {
    let name = m["name"].as_str().unwrap_or_default().to_string();
    let offset = uint(&m["offset"])?;
    let type_name = m["type"].as_str().unwrap_or_default();
    let array = match m["array"].as_array().map(Vec::as_slice) {
        None | Some([]) => None,
        Some([n]) => Some((uint(n)?, uint(&m["array_stride"])?)),
        Some(more) => return Err(format!("{name}: multi-dimensional array {more:?}")),
    };
    if let Some((scalar, columns, rows)) = glsl_type(type_name) {
        let ty = if type_name.starts_with("mat") {
            // Slang emits an HLSL row as a SPIR-V column: SPIR-V's C columns of R are Slang's
            // C rows of R columns, and SPIR-V's ColMajor (no `row_major`) is Slang's
            // row-major.
            MemberType::Matrix {
                scalar,
                rows: columns,
                cols: rows,
                row_major: m["row_major"].as_bool() != Some(true),
                stride: uint(&m["matrix_stride"])?,
            }
        } else if columns == 1 {
            MemberType::Scalar(scalar)
        } else {
            MemberType::Vector(scalar, columns)
        };
        return Ok(Member {
            name,
            offset,
            array,
            ty,
        });
    }
    let ty = &types[type_name];
    if ty.is_null() {
        return Err(format!("{name}: type {type_name} not handled"));
    }
    // Slang wraps a std140 array in a struct `_Array_std140_*` whose one member `data` is
    // the array: unwrap it, so the member is the array.
    let wrapper = ty["name"]
        .as_str()
        .is_some_and(|n| n.starts_with("_Array_"));
    if let (true, Some([data])) = (wrapper, ty["members"].as_array().map(Vec::as_slice)) {
        if array.is_none() && data["name"] == "data" {
            let inner = member(types, data)?;
            return Ok(Member {
                name,
                offset: offset + inner.offset,
                array: inner.array,
                ty: inner.ty,
            });
        }
    }
    Ok(Member {
        name,
        offset,
        array,
        ty: MemberType::Struct(members(types, ty)?),
    })
}

/// The directory of the test shaders.
pub fn test_shaders_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders")
}

/// The directory of the example shaders.
pub fn example_shaders_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders")
}

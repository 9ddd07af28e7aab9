//! What `slangpack dump` prints: a readable summary of a package, or its documented JSON
//! document, read back with the runtime reader.
//!
//! The JSON document is [`PackageDoc`]: serialize it with `serde_json`, or read a document
//! back with `serde_json::from_str::<PackageDoc>`. Its JSON Schema, generated from these
//! types and their doc comments, is [`JSON_SCHEMA`] (`reader/tools/schema/dump.schema.json`,
//! `slangpack dump --schema`); the document's `schema_version` says which version of it the
//! document follows ([`SCHEMA_VERSION`]).

use crate::text::shown;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use slangpack_format::bind::{
    buffer_kind_name, image_format_name, BufferLayout, DescriptorKind, BINDING_DESCRIPTOR_HEAP,
    BINDING_IMPLICIT_BLOCK_BUFFER, BINDING_IMPLICIT_GLOBAL_BUFFER, BINDING_UNUSED, COUNT_UNBOUNDED,
    COUNT_ZERO, MEMBER_DEFAULT_IS_FLOAT, MEMBER_ELEMENT_RELATIVE, MEMBER_HAS_DEFAULT,
};
use slangpack_format::targets::{
    kind_name, place_name, sample_type_name, target_flag_names, view_dimension_name,
};
use slangpack_format::TargetBindingKind;
use slangpack_format::ABSENT;
use slangpack_reader::{BindView, Entry, Package, TargetBufferLayout};
use std::fmt::Write as _;
use std::path::Path;

/// The names of the entry points in an entry-point mask (which entry points' SPIR-V declares
/// a binding or push-constant block: the pipelines it belongs to).
fn entry_point_names<'a>(entry: &Entry<'a>, mask: u32) -> Vec<&'a str> {
    entry.entry_points_in(mask).map(|ep| ep.name()).collect()
}

/// ` used by a, b` when the entry has several entry points (the pipelines a binding belongs
/// to), ` unused` for a binding none uses, else nothing.
fn used_by(entry: &Entry<'_>, mask: u32) -> String {
    if entry.entry_points().len() < 2 {
        return String::new();
    }
    match entry_point_names(entry, mask).as_slice() {
        [] => " unused".to_string(),
        names => {
            let names: Vec<_> = names.iter().map(|n| shown(n)).collect();
            format!(" used by {}", names.join(", "))
        }
    }
}

/// The names of the stages in a `VkShaderStageFlags` mask.
fn stage_names(flags: u32) -> Vec<&'static str> {
    slangpack_format::bind::stage_flag_names(flags).collect()
}

/// `None` for [`ABSENT`].
fn opt(v: u32) -> Option<u32> {
    (v != ABSENT).then_some(v)
}

/// A count or array length that is a number or a word (`"unbounded"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Count {
    /// A fixed number.
    Number(u32),
    /// `"unbounded"`.
    Word(String),
}

/// A default value: a float when the value is floating-point, else an integer (its 64 bits
/// as `i64`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    /// An integer (or `bool`) default.
    Int(i64),
    /// A floating-point default (`null` in JSON when not finite).
    Float(#[schemars(with = "Option<f64>")] f64),
}

/// A vertex input's format: its `VkFormat` name (`r32g32b32_sfloat`), or the number of a
/// format this version does not name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum VertexFormat {
    /// A named format.
    Name(String),
    /// An unnamed `VkFormat` value.
    Raw(u32),
}

/// The version of the schema of the `dump --json` document ([`JSON_SCHEMA`]), the document's
/// `schema_version`. It goes up by one with every change a reader of the previous version
/// could misread: a field removed, renamed, given another type or meaning, or made optional or
/// nullable. A new field, or a new name in a field of names (a new `kind`, say), keeps it:
/// readers ignore fields they do not know.
pub const SCHEMA_VERSION: u32 = 1;

/// The JSON Schema (draft 2020-12) of the `dump --json` document, as committed in
/// `reader/tools/schema/dump.schema.json`: what `slangpack dump --schema` prints. A test
/// checks it is what [`json_schema`] generates.
pub const JSON_SCHEMA: &str = include_str!("../schema/dump.schema.json");

/// The JSON Schema of [`PackageDoc`], generated from the types (descriptions from their doc
/// comments): the text [`JSON_SCHEMA`] holds.
pub fn json_schema() -> String {
    crate::schema_text(schemars::schema_for!(PackageDoc))
}

// The documents below are the JSON schema of `slangpack dump --json`. Fields are declared in
// alphabetical order: that is the order the output has always had (serde_json objects sort
// their keys), so the bytes stay what they were.

/// The document `slangpack dump --json` prints: every entry of one package with its entry
/// points, bindings, layouts and further targets' bind views.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "slangpack dump --json")]
pub struct PackageDoc {
    /// Every entry, in key-index order.
    pub entries: Vec<EntryDoc>,
    /// The package's format version, major then minor.
    pub format_version: [u32; 2],
    /// The version of this document's schema (`SCHEMA_VERSION`): it goes up with every change
    /// a reader of the previous version could misread (a field removed, renamed, retyped or
    /// made optional); new fields keep it.
    #[schemars(extend("const" = SCHEMA_VERSION))]
    pub schema_version: u32,
}

/// One entry (permutation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntryDoc {
    /// Descriptor bindings.
    pub bindings: Vec<BindingDoc>,
    /// Buffer layouts (uniform buffers, blocks, push constants, structured-buffer elements).
    pub buffers: Vec<BufferDoc>,
    /// Source files the entry was baked from.
    pub dependencies: Vec<DependencyDoc>,
    /// Entry points and their SPIR-V.
    pub entry_points: Vec<EntryPointDoc>,
    /// Each entry point's execution modes (since format 1.3).
    #[serde(default)]
    pub execution_modes: Vec<ExecutionModesDoc>,
    /// Fragment entry points' colour outputs (since format 1.3).
    #[serde(default)]
    pub fragment_outputs: Vec<FragmentOutputDoc>,
    /// The canonical permutation key.
    pub key: String,
    /// The hash of the bake options, 16 hex digits.
    pub options_hash: String,
    /// Push-constant ranges.
    pub push_constants: Vec<PushConstantDoc>,
    /// Length of the pipeline layout's set array (highest set + 1).
    pub set_slot_count: u32,
    /// Shader-record blocks (ray tracing).
    pub shader_records: Vec<ShaderRecordDoc>,
    /// Specialization constants.
    pub specialization_constants: Vec<SpecializationConstantDoc>,
    /// Each further target's bind view, by target name (`wgsl`, `glsl`, `hlsl`, `metal`);
    /// empty for a SPIR-V-only entry.
    #[serde(default)]
    pub target_bindings: std::collections::BTreeMap<String, Vec<TargetBindingDoc>>,
    /// Vertex inputs of every entry point.
    pub vertex_inputs: Vec<VertexInputDoc>,
}

/// An entry point's code for a further target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TargetCodeDoc {
    /// The code's length in bytes (text: UTF-8).
    pub bytes: usize,
    /// The entry point's name in that code (`main_0` in Metal, `main` in GLSL).
    pub entry: String,
    /// The target's name (`wgsl`, `glsl`, `hlsl`, `metal`, `dxil`).
    pub target: String,
}

/// One binding of a further target's bind view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TargetBindingDoc {
    /// The variable's name in the target's code, `None` when the code does not declare it.
    pub code_name: Option<String>,
    /// Element count (a number), or `"unbounded"`.
    pub count: Count,
    /// `TARGET_*` flags by name: `read_only`, `multisampled`, `comparison`, `unused`, `write`.
    pub flags: Vec<String>,
    /// Storage-texture format (`rgba8`, ...), if any.
    pub format: Option<String>,
    /// WGSL binding, GLSL binding, HLSL register, Metal index; `None` for push constants.
    pub index: Option<u32>,
    /// `uniform_buffer`, `storage_buffer`, `sampler`, `texture`, `storage_texture`,
    /// `push_constants`, `argument_buffer`.
    pub kind: String,
    /// For a buffer binding, whose member layout its buffer has on this target: `"vulkan"`
    /// (the buffer's layout in the entry's `buffers`, which the bake checked against the
    /// target's code: WGSL, GLSL), `"target"` (the target's own, in `target_layout`: HLSL and
    /// Metal, since format 1.4) or `"none"` (the package holds no member layout for the
    /// target). `None` when not a buffer.
    #[serde(default)]
    pub member_layout: Option<String>,
    /// The target's own member layout of the buffer (`member_layout` `"target"`), checked at
    /// bake time against the target's code member by member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_layout: Option<TargetLayoutDoc>,
    /// A Metal argument buffer's struct (since format 1.5): every member's byte offset,
    /// size, kind, array count and stride and `[[id(n)]]`, checked at bake time against the
    /// Metal code and bind view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_buffer: Option<ArgumentBufferDoc>,
    /// Smallest buffer size the binding accepts (0 when not a buffer).
    pub min_binding_size: u32,
    /// The parameter's dotted path.
    pub path: String,
    /// The place in the target's own words (`@group(1) @binding(0)`, `register(t0, space1)`,
    /// `[[texture(0)]]`); `None` for push constants.
    pub place: Option<String>,
    /// HLSL or Metal register class (`b`, `t`, `u`, `s`), `None` for WGSL and GLSL.
    pub register_class: Option<String>,
    /// Texture sample type (`float`, `sint`, `uint`, `depth`), if a sampled texture.
    pub sample_type: Option<String>,
    /// WGSL group, GLSL set, HLSL space; Metal: the argument buffer's record, `None` at the
    /// top level.
    pub space: Option<u32>,
    /// Texture view dimension (`2d`, `cube`, ...), if a texture.
    pub view_dimension: Option<String>,
    /// The Vulkan `[set, binding]` of the same parameter, if it has one.
    pub vulkan: Option<[u32; 2]>,
}

/// A buffer's member layout on a further target (HLSL, Metal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TargetLayoutDoc {
    /// Size in bytes on the target (one element, for a structured buffer).
    pub size: u32,
    /// Alignment in bytes.
    pub alignment: u32,
    /// Bytes between a structured buffer's elements, else the size.
    pub stride: u32,
    /// Every member, in the Vulkan layout's pre-order, with the target's numbers.
    pub members: Vec<TargetMemberDoc>,
}

/// One member of a buffer's layout on a further target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TargetMemberDoc {
    /// The member's path, as the Vulkan layout's (`items[].x`).
    pub path: String,
    /// Byte offset (element-relative inside an array of structs).
    pub offset: u32,
    /// Size in bytes on the target.
    pub size: u32,
    /// Bytes between array elements, 0 when not an array.
    pub array_stride: u32,
    /// Bytes between a matrix's rows or columns, 0 when not a matrix.
    pub matrix_stride: u32,
}

/// A Metal argument buffer's struct, as a tier-2 argument buffer lays it out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArgumentBufferDoc {
    /// Size in bytes of the struct.
    pub size: u32,
    /// Alignment in bytes.
    pub alignment: u32,
    /// Every member in pre-order (a struct's members after it, an array of structs' element
    /// members under `path[]`).
    pub members: Vec<ArgumentMemberDoc>,
}

/// One member of a Metal argument buffer's struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArgumentMemberDoc {
    /// Path from the argument buffer (`detail.map`, `taps[].offset`).
    pub path: String,
    /// `data`, `struct`, `buffer` (an 8-byte pointer), `texture`, `sampler` (8-byte resource
    /// ids) or `argument_buffer` (an 8-byte pointer to a nested one).
    pub kind: String,
    /// Byte offset (from the array element's start when `element_relative`).
    pub offset: u32,
    /// Size in bytes (an array's: all its elements).
    pub size: u32,
    /// Alignment in bytes.
    pub alignment: u32,
    /// Array element count, 0 when not an array.
    pub count: u32,
    /// Bytes between array elements, 0 when not an array.
    pub stride: u32,
    /// `[[id(n)]]`: the code's when `explicit_id`, else the one Metal assigns; `None` inside
    /// an array element.
    pub id: Option<u32>,
    /// Whether the code states the id.
    pub explicit_id: bool,
    /// Whether the member lies inside an array element.
    pub element_relative: bool,
    /// The path of the member's own binding in the Metal bind view (resources), else `None`.
    pub binding: Option<String>,
}

/// One entry point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntryPointDoc {
    /// Slang's name of the entry point.
    pub name: String,
    /// The SPIR-V `OpEntryPoint` name (pass it as `pName`).
    pub spirv_entry: String,
    /// The module's length in 32-bit words.
    pub spirv_words: usize,
    /// The stage name (`vertex`, `compute`, ...).
    pub stage: String,
    /// The code of each further target the entry point was baked for.
    #[serde(default)]
    pub targets: Vec<TargetCodeDoc>,
    /// Thread-group size (zeros outside compute-like stages).
    pub thread_group_size: [u32; 3],
    /// The wave size Slang fixed, if any.
    pub wave_size: Option<u32>,
}

/// One descriptor binding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BindingDoc {
    /// Binding number.
    pub binding: u32,
    /// Index of the binding's buffer layout in `buffers`, if it has one.
    pub buffer: Option<u32>,
    /// Descriptor count: a number (0 for a zero-length array) or `"unbounded"`.
    pub count: Count,
    /// Names of the entry points whose SPIR-V uses it.
    pub entry_points: Vec<String>,
    /// Storage-image format name, if declared.
    pub image_format: Option<String>,
    /// `"global_uniform_buffer"`, `"parameter_block_buffer"` or `"descriptor_heap"` for
    /// bindings Slang makes implicitly, else `null`.
    pub implicit: Option<String>,
    /// Input attachment index, for input attachments.
    pub input_attachment_index: Option<u32>,
    /// Descriptor kind (`uniform_buffer`, `sampled_image`, ...).
    pub kind: String,
    /// The variable's name.
    pub name: String,
    /// The dotted path from the program's parameters.
    pub path: String,
    /// The combined sampler's path, when a texture and a sampler share one descriptor.
    pub sampler_path: Option<String>,
    /// Descriptor set.
    pub set: u32,
    /// The name in the SPIR-V.
    pub spirv_name: String,
    /// Stage names (`VkShaderStageFlags`).
    pub stages: Vec<String>,
    /// Whether any entry point uses it.
    pub used: bool,
}

/// One push-constant range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PushConstantDoc {
    /// Names of the entry points whose SPIR-V uses it.
    pub entry_points: Vec<String>,
    /// The block's members (its buffer layout's).
    pub members: Vec<MemberDoc>,
    /// The block's name.
    pub name: String,
    /// Byte offset of the range.
    pub offset: u32,
    /// Byte size of the range.
    pub size: u32,
    /// Stage names.
    pub stages: Vec<String>,
}

/// One shader-record block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShaderRecordDoc {
    /// Index of its buffer layout in `buffers`, if any.
    pub buffer: Option<u32>,
    /// The block's name.
    pub name: String,
    /// Byte size of the record data.
    pub size: u32,
    /// Stage names.
    pub stages: Vec<String>,
}

/// One buffer layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BufferDoc {
    /// Base alignment.
    pub alignment: u32,
    /// Binding number, for buffers with a descriptor.
    pub binding: Option<u32>,
    /// Buffer kind (`uniform`, `push_constant`, ...).
    pub kind: String,
    /// Flattened members in pre-order.
    pub members: Vec<MemberDoc>,
    /// The buffer's name (empty for the global uniforms).
    pub path: String,
    /// Descriptor set, for buffers with a descriptor.
    pub set: Option<u32>,
    /// Byte size.
    pub size: u32,
    /// Array stride (the element size for structured-buffer elements).
    pub stride: u32,
}

/// One buffer member.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemberDoc {
    /// Base alignment.
    pub alignment: u32,
    /// Array length (`"unbounded"` for runtime-sized arrays), for arrays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_count: Option<Count>,
    /// Array stride, for arrays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_stride: Option<u32>,
    /// User attributes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<AttributeDoc>,
    /// Columns, for vectors and matrices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<u32>,
    /// The default value, if the source gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Scalar>,
    /// Whether the offset is relative to an array element rather than the buffer.
    pub element_relative: bool,
    /// `"row_major"` or `"column_major"`, for matrices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_layout: Option<String>,
    /// Matrix stride, for matrices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_stride: Option<u32>,
    /// Byte offset.
    pub offset: u32,
    /// Index of the parent member in this list, `null` at the top level.
    pub parent: Option<u32>,
    /// The dotted path inside the buffer.
    pub path: String,
    /// Rows, for vectors and matrices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u32>,
    /// Byte size.
    pub size: u32,
    /// Stride.
    pub stride: u32,
    /// The member's type as `diff` and the text dump show it (`float3`,
    /// `float4x4 row_major (matrix stride 16)`, `uint[4] (stride 16)`, `struct`).
    #[serde(default, rename = "type")]
    pub ty: String,
}

/// One user attribute of a member.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttributeDoc {
    /// Its arguments, as written.
    pub arguments: String,
    /// Its name.
    pub name: String,
}

/// One colour output of a fragment entry point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FragmentOutputDoc {
    /// Components (1 to 4).
    pub components: u32,
    /// The entry point it belongs to.
    pub entry_point: Option<String>,
    /// `Index` (dual-source blending), 0 without one.
    pub index: u32,
    /// `Location`: the colour attachment.
    pub location: u32,
    /// The SPIR-V variable's name.
    pub name: String,
    /// The component scalar type as Slang spells it (`float`, `int`, `uint`, `half`, ...).
    pub scalar: String,
}

/// One entry point's execution modes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExecutionModesDoc {
    /// The entry point.
    pub entry_point: Option<String>,
    /// The flags that are set (`early_fragment_tests`, `depth_replacing`, ...).
    pub flags: Vec<String>,
    /// Geometry input primitive or tessellation domain (`triangles`, ...), `null` if none.
    pub input_primitive: Option<String>,
    /// `Invocations` (geometry), 0 if not stated.
    pub invocations: u32,
    /// Geometry or mesh output primitive (`output_triangle_strip`, ...), `null` if none.
    pub output_primitive: Option<String>,
    /// `OutputPrimitivesEXT` (mesh), 0 if not stated.
    pub output_primitives: u32,
    /// `OutputVertices`, 0 if not stated.
    pub output_vertices: u32,
    /// Tessellation spacing (`equal`, `fractional_even`, `fractional_odd`), `null` if none.
    pub spacing: Option<String>,
}

/// One vertex input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VertexInputDoc {
    /// The entry point it belongs to.
    pub entry_point: Option<String>,
    /// Its format, `null` for none.
    pub format: Option<VertexFormat>,
    /// First location.
    pub location: u32,
    /// Locations it takes (a matrix takes one per row or column).
    pub location_count: u32,
    /// The parameter's name.
    pub name: String,
    /// Semantic name.
    pub semantic: String,
    /// Semantic index.
    pub semantic_index: u32,
    /// Whether the entry point reads it.
    pub used: bool,
}

/// One specialization constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecializationConstantDoc {
    /// Its default value, if any.
    pub default: Option<Scalar>,
    /// The `constant_id`.
    pub id: u32,
    /// Its name.
    pub name: String,
}

/// One source dependency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DependencyDoc {
    /// xxh3-64 of the file's contents, 16 hex digits.
    pub hash: String,
    /// The path, relative to the bake root.
    pub path: String,
}

/// The documented JSON document of `slangpack dump --json` ([`JSON_SCHEMA`]) as typed
/// values: serialize it with `serde_json`, or read such a document back with
/// `serde_json::from_str::<PackageDoc>`.
///
/// The document restates each entry's bindings and layouts and has no output budget: for an
/// untrusted package, [`package_json_text`] gives the same document as text, bounded.
pub fn package_doc(package: &Package) -> PackageDoc {
    let (major, minor) = package.version();
    PackageDoc {
        // Entries that fail to load are left out; `slangpack dump` verifies the package first.
        entries: package.entries().flatten().map(|e| entry_doc(&e)).collect(),
        format_version: [major, minor],
        schema_version: SCHEMA_VERSION,
    }
}

/// The JSON text of [`package_doc`] as `slangpack dump --json` prints it (pretty-printed, as
/// `serde_json::to_string_pretty` writes the document), made one entry at a time: memory holds
/// the text and one entry's document, never the whole document.
///
/// # Errors
/// [`ToolError::LimitExceeded`](crate::ToolError::LimitExceeded) when the text would pass the
/// output budget ([`crate::budget`]): the document restates each entry's bindings and layouts,
/// so entries sharing a reflection blob can make it far larger than the package.
pub fn package_json_text(package: &Package) -> Result<String, crate::ToolError> {
    package_json_text_of(package, None)
}

/// [`package_json_text`] holding the entry with key `only` alone (every entry for `None`).
///
/// # Errors
/// As [`package_json_text`].
pub fn package_json_text_of(
    package: &Package,
    only: Option<&str>,
) -> Result<String, crate::ToolError> {
    let mut budget = crate::budget::Budget::new("the JSON document", &[package]);
    let mut out = String::from("{\n  \"entries\": [");
    let mut first = true;
    // Entries that fail to load are left out, as in `package_doc`.
    for entry in selected(package, only) {
        let estimate = budget.charge_entry(&entry)?;
        let text = serde_json::to_string_pretty(&entry_doc(&entry))
            .map_err(|e| crate::ToolError::Input(format!("JSON: {e}")))?;
        budget.settle(estimate, text.len())?;
        out.push_str(if first { "\n" } else { ",\n" });
        first = false;
        // Nested two levels down; JSON strings hold no raw newline, so every line starts a
        // line of the document.
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str("    ");
            out.push_str(line);
        }
    }
    let (major, minor) = package.version();
    if first {
        out.push_str("],\n");
    } else {
        out.push_str("\n  ],\n");
    }
    let _ = write!(
        out,
        "  \"format_version\": [\n    {major},\n    {minor}\n  ],\n  \"schema_version\": {SCHEMA_VERSION}\n}}"
    );
    Ok(out)
}

/// [`package_doc`] as a `serde_json::Value`.
pub fn package_json(package: &Package) -> serde_json::Value {
    serde_json::to_value(package_doc(package)).unwrap_or(serde_json::Value::Null)
}

fn strings<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    names.into_iter().map(str::to_string).collect()
}

fn members_doc(bind: &BindView<'_>, layout: &BufferLayout) -> Vec<MemberDoc> {
    bind.members(layout)
        .iter()
        .map(|m| {
            let bits = u64::from(m.default_lo) | (u64::from(m.default_hi) << 32);
            MemberDoc {
                alignment: m.alignment,
                array_count: (m.array_count != 0).then(|| {
                    if m.array_count == ABSENT {
                        Count::Word("unbounded".into())
                    } else {
                        Count::Number(m.array_count)
                    }
                }),
                array_stride: (m.array_count != 0).then_some(m.array_stride),
                attributes: bind
                    .attributes(m)
                    .iter()
                    .map(|a| AttributeDoc {
                        arguments: bind.string(a.arguments).to_string(),
                        name: bind.string(a.name).to_string(),
                    })
                    .collect(),
                columns: (m.rows > 0).then_some(m.columns),
                default: (m.flags & MEMBER_HAS_DEFAULT != 0).then(|| {
                    if m.flags & MEMBER_DEFAULT_IS_FLOAT != 0 {
                        Scalar::Float(f64::from_bits(bits))
                    } else {
                        Scalar::Int(bits as i64)
                    }
                }),
                element_relative: m.flags & MEMBER_ELEMENT_RELATIVE != 0,
                matrix_layout: (m.matrix_layout != 0).then(|| {
                    if m.matrix_layout == 1 {
                        "row_major".to_string()
                    } else {
                        "column_major".to_string()
                    }
                }),
                matrix_stride: (m.matrix_layout != 0).then_some(m.matrix_stride),
                offset: m.offset,
                parent: (m.parent != ABSENT).then(|| m.parent.wrapping_sub(layout.first_member)),
                path: bind.string(m.path).to_string(),
                rows: (m.rows > 0).then_some(m.rows),
                size: m.size,
                stride: m.stride,
                ty: crate::diff::member_type(m),
            }
        })
        .collect()
}

pub(crate) fn entry_doc(entry: &Entry<'_>) -> EntryDoc {
    let bind = entry.bind();
    let entry_points = entry
        .entry_points()
        .map(|ep| EntryPointDoc {
            name: ep.name().to_string(),
            spirv_entry: ep.spirv_entry_name().to_string(),
            spirv_words: ep.spirv().len(),
            stage: ep.stage().name().to_string(),
            targets: ep
                .targets()
                .filter(|code| code.target() != slangpack_format::Target::Spirv)
                .map(|code| TargetCodeDoc {
                    bytes: code.bytes().len(),
                    entry: code.entry_name().to_string(),
                    target: code.target().name().to_string(),
                })
                .collect(),
            thread_group_size: ep.thread_group_size(),
            wave_size: ep.wave_size(),
        })
        .collect();
    let bindings = bind
        .bindings()
        .iter()
        .map(|b| BindingDoc {
            binding: b.binding,
            buffer: opt(b.buffer_layout),
            count: match b.count_kind {
                COUNT_UNBOUNDED => Count::Word("unbounded".into()),
                COUNT_ZERO => Count::Number(0),
                _ => Count::Number(b.count),
            },
            entry_points: strings(entry_point_names(entry, b.entry_point_mask)),
            image_format: image_format_name(b.image_format).map(str::to_string),
            implicit: if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
                Some("global_uniform_buffer".into())
            } else if b.flags & BINDING_IMPLICIT_BLOCK_BUFFER != 0 {
                Some("parameter_block_buffer".into())
            } else if b.flags & BINDING_DESCRIPTOR_HEAP != 0 {
                Some("descriptor_heap".into())
            } else {
                None
            },
            input_attachment_index: b.input_attachment(),
            kind: b.kind().name().to_string(),
            name: bind.string(b.name).to_string(),
            path: bind.string(b.path).to_string(),
            sampler_path: (b.sampler_path != ABSENT)
                .then(|| bind.string(b.sampler_path).to_string()),
            set: b.set,
            spirv_name: bind.string(b.spirv_name).to_string(),
            stages: strings(stage_names(b.stage_flags)),
            used: b.flags & BINDING_UNUSED == 0,
        })
        .collect();
    let push_constants = bind
        .push_constants()
        .iter()
        .map(|p| PushConstantDoc {
            entry_points: strings(entry_point_names(entry, p.entry_point_mask)),
            members: bind
                .buffer_layout(p.buffer_layout)
                .map(|l| members_doc(&bind, l))
                .unwrap_or_default(),
            name: bind.string(p.name).to_string(),
            offset: p.offset,
            size: p.size,
            stages: strings(stage_names(p.stage_flags)),
        })
        .collect();
    let shader_records = bind
        .shader_record_blocks()
        .iter()
        .map(|r| ShaderRecordDoc {
            buffer: opt(r.buffer_layout),
            name: bind.string(r.name).to_string(),
            size: r.size,
            stages: strings(stage_names(r.stage_flags)),
        })
        .collect();
    let buffers = bind
        .buffer_layouts()
        .iter()
        .map(|l| BufferDoc {
            alignment: l.alignment,
            binding: opt(l.binding),
            kind: buffer_kind_name(l.kind).to_string(),
            members: members_doc(&bind, l),
            path: bind.string(l.name).to_string(),
            set: opt(l.set),
            size: l.size,
            stride: l.stride,
        })
        .collect();
    let entry_point_names_by_index: Vec<&str> = entry.entry_points().map(|e| e.name()).collect();
    let vertex_inputs = bind
        .all_vertex_inputs()
        .iter()
        .map(|v| VertexInputDoc {
            entry_point: entry_point_names_by_index
                .get(v.entry_point as usize)
                .map(|n| n.to_string()),
            format: vertex_format(v.format),
            location: v.location,
            location_count: v.location_count,
            name: bind.string(v.name).to_string(),
            semantic: bind.string(v.semantic_name).to_string(),
            semantic_index: v.semantic_index,
            used: v.flags & slangpack_format::bind::VERTEX_INPUT_USED != 0,
        })
        .collect();
    let ep_name = |i: u32| {
        entry_point_names_by_index
            .get(i as usize)
            .map(|n| n.to_string())
    };
    let fragment_outputs = bind
        .all_fragment_outputs()
        .iter()
        .map(|o| FragmentOutputDoc {
            components: o.component_count,
            entry_point: ep_name(o.entry_point),
            index: o.index,
            location: o.location,
            name: bind.string(o.name).to_string(),
            scalar: crate::diff::scalar_name(o.scalar_type).to_string(),
        })
        .collect();
    let execution_modes = bind
        .all_execution_modes()
        .iter()
        .map(|m| ExecutionModesDoc {
            entry_point: ep_name(m.entry_point),
            flags: m.flag_names().map(str::to_string).collect(),
            input_primitive: m.input_primitive().map(|p| p.name().to_string()),
            invocations: m.invocations,
            output_primitive: m.output_primitive().map(|p| p.name().to_string()),
            output_primitives: m.output_primitives,
            output_vertices: m.output_vertices,
            spacing: m.spacing().map(|p| p.name().to_string()),
        })
        .collect();
    let specialization_constants = bind
        .specialization_constants()
        .iter()
        .map(|c| {
            let bits = u64::from(c.default_lo) | (u64::from(c.default_hi) << 32);
            SpecializationConstantDoc {
                default: match c.flags {
                    f if f & 1 == 0 => None,
                    f if f & 2 != 0 => Some(Scalar::Float(f64::from_bits(bits))),
                    _ => Some(Scalar::Int(bits as i64)),
                },
                id: c.id,
                name: bind.string(c.name).to_string(),
            }
        })
        .collect();
    EntryDoc {
        bindings,
        buffers,
        dependencies: entry
            .dependencies()
            .map(|d| DependencyDoc {
                hash: format!("{:016x}", d.content_hash()),
                path: d.path().to_string(),
            })
            .collect(),
        entry_points,
        key: entry.key().to_string(),
        options_hash: format!("{:016x}", entry.options_hash()),
        push_constants,
        set_slot_count: bind.set_slot_count(),
        shader_records,
        specialization_constants,
        target_bindings: target_bindings_doc(&bind),
        vertex_inputs,
        execution_modes,
        fragment_outputs,
    }
}

/// Every further target's bind view, by target name.
fn target_bindings_doc(
    bind: &BindView<'_>,
) -> std::collections::BTreeMap<String, Vec<TargetBindingDoc>> {
    bind.targets()
        .map(|target| {
            let view = bind.target(target);
            let list = view
                .bindings()
                .iter()
                .map(|b| TargetBindingDoc {
                    code_name: view.code_name(b).map(str::to_string),
                    count: match b.count {
                        0 => Count::Word("unbounded".into()),
                        n => Count::Number(n),
                    },
                    flags: target_flag_names(b.flags).map(str::to_string).collect(),
                    format: image_format_name(b.format).map(str::to_string),
                    index: opt(b.index),
                    kind: kind_name(b.binding_kind()).to_string(),
                    member_layout: member_layout_name(view.buffer_layout(b)).map(str::to_string),
                    target_layout: target_layout_doc(bind, &view, b),
                    argument_buffer: view
                        .argument_buffer(b)
                        .map(|ab| argument_buffer_doc(&view, ab)),
                    min_binding_size: b.min_binding_size,
                    path: view.path(b).to_string(),
                    place: (b.binding_kind() != TargetBindingKind::PushConstants)
                        .then(|| place_name(target, b.space, b.index, b.register_class)),
                    register_class: b.register_char().map(String::from),
                    sample_type: sample_type_name(b.sample_type).map(str::to_string),
                    space: opt(b.space),
                    view_dimension: view_dimension_name(b.view_dimension).map(str::to_string),
                    vulkan: view.vulkan_binding(b).map(|v| [v.set, v.binding]),
                })
                .collect();
            (target.name().to_string(), list)
        })
        .collect()
}

/// A target binding's own member layout (HLSL, Metal), if the package holds one.
fn target_layout_doc(
    bind: &BindView<'_>,
    view: &slangpack_reader::TargetBindView<'_>,
    b: &slangpack_format::targets::TargetBinding,
) -> Option<TargetLayoutDoc> {
    let own = view.buffer_layout(b).target_buffer()?;
    let vulkan = bind.buffer_layout(own.buffer_layout)?;
    let members = bind
        .members(vulkan)
        .iter()
        .zip(view.target_members(own))
        .map(|(m, t)| TargetMemberDoc {
            path: bind.string(m.path).to_string(),
            offset: t.offset,
            size: t.size,
            array_stride: t.array_stride,
            matrix_stride: t.matrix_stride,
        })
        .collect();
    Some(TargetLayoutDoc {
        size: own.size,
        alignment: own.alignment,
        stride: own.stride,
        members,
    })
}

/// A Metal argument buffer's struct as the JSON document gives it.
fn argument_buffer_doc(
    view: &slangpack_reader::TargetBindView<'_>,
    ab: slangpack_reader::ArgumentBufferView<'_>,
) -> ArgumentBufferDoc {
    use slangpack_format::targets::{ARGUMENT_ELEMENT_RELATIVE, ARGUMENT_ID_EXPLICIT};
    ArgumentBufferDoc {
        size: ab.size(),
        alignment: ab.alignment(),
        members: ab
            .members()
            .iter()
            .map(|m| ArgumentMemberDoc {
                path: ab.path(m).to_string(),
                kind: m.member_kind().name().to_string(),
                offset: m.offset,
                size: m.size,
                alignment: m.alignment,
                count: m.count,
                stride: m.stride,
                id: opt(m.id),
                explicit_id: m.flags & ARGUMENT_ID_EXPLICIT != 0,
                element_relative: m.flags & ARGUMENT_ELEMENT_RELATIVE != 0,
                binding: ab.binding(m).map(|b| view.path(b).to_string()),
            })
            .collect(),
    }
}

/// The name `dump` gives a target buffer's member layout: `vulkan`, `target`, `none`, or
/// `None` when the binding is not a buffer.
fn member_layout_name(layout: TargetBufferLayout<'_>) -> Option<&'static str> {
    match layout {
        TargetBufferLayout::Vulkan(_) => Some("vulkan"),
        TargetBufferLayout::Target(_) => Some("target"),
        TargetBufferLayout::NotProvided => Some("none"),
        _ => None,
    }
}

/// A vertex input's `VkFormat`: its name (`r32g32b32_sfloat`), the number of one this
/// version does not name, `None` for `VK_FORMAT_UNDEFINED`.
fn vertex_format(format: u32) -> Option<VertexFormat> {
    match slangpack_format::vk::Format::from_raw(format) {
        slangpack_format::vk::Format::Undefined => None,
        slangpack_format::vk::Format::Unknown(other) => Some(VertexFormat::Raw(other)),
        named => Some(VertexFormat::Name(named.name().to_string())),
    }
}

/// The readable summary `slangpack dump` prints: every entry with its entry points, bindings,
/// push-constant ranges, buffer layouts and vertex inputs. [`try_summary`], or when that
/// fails, the summary's first part with the error as its last line.
pub fn summary(path: &Path, package: &Package) -> String {
    match summary_within(path, package, None) {
        (text, None) => text,
        (mut text, Some(e)) => {
            let _ = writeln!(text, "error: {e}");
            text
        }
    }
}

/// The readable summary of [`summary`]. An entry whose reflection blob and entry-point names
/// are those of an earlier entry shows its entry points and dependencies and says whose
/// bindings and layouts it shares, instead of listing them again: the text grows with the
/// package's own records, not with entries × shared blobs.
///
/// # Errors
/// [`ToolError::LimitExceeded`](crate::ToolError::LimitExceeded) when the text would pass the
/// output budget ([`crate::budget`]).
pub fn try_summary(path: &Path, package: &Package) -> Result<String, crate::ToolError> {
    try_summary_of(path, package, None)
}

/// [`try_summary`] of the entry with key `only` alone (every entry for `None`).
///
/// # Errors
/// As [`try_summary`].
pub fn try_summary_of(
    path: &Path,
    package: &Package,
    only: Option<&str>,
) -> Result<String, crate::ToolError> {
    match summary_within(path, package, only) {
        (text, None) => Ok(text),
        (_, Some(e)) => Err(e),
    }
}

/// The summary made so far, and the budget's error if it stopped early.
fn summary_within(
    path: &Path,
    package: &Package,
    only: Option<&str>,
) -> (String, Option<crate::ToolError>) {
    let mut budget = crate::budget::Budget::new("the summary", &[package]);
    let mut out = String::new();
    // (reflection blob, entry-point names) of each entry whose bind view was listed.
    let mut listed: std::collections::HashMap<(u32, Vec<&str>), &str> =
        std::collections::HashMap::new();
    let mut charged = 0;
    // Charges what was written since the last call; `Some` once over the budget, or when
    // `ahead` more bytes would not fit.
    let mut over = |out: &String, ahead: usize| -> Option<crate::ToolError> {
        let new = out.len() - charged;
        charged = out.len();
        budget.charge(new).and_then(|()| budget.fits(ahead)).err()
    };
    let _ = writeln!(
        out,
        "{}: {} entries, {} SPIR-V modules, {} reflection blobs, {} bytes",
        shown(&path.display().to_string()),
        package.len(),
        package.spirv_count(),
        package.reflection_count(),
        package.as_bytes().len()
    );
    for entry in selected(package, only) {
        let _ = writeln!(out, "\nentry {}", shown(entry.key()));
        for ep in entry.entry_points() {
            let [x, y, z] = ep.thread_group_size();
            let _ = write!(
                out,
                "  {:<9} {:<18} SPIR-V entry \"{}\", {} words",
                ep.stage().name(),
                shown(ep.name()),
                shown(ep.spirv_entry_name()),
                ep.spirv().len()
            );
            if ep.stage() == slangpack_format::Stage::Compute {
                let _ = write!(out, ", threads {x}x{y}x{z}");
            }
            let _ = writeln!(out);
            for code in ep.targets().skip(1) {
                let _ = writeln!(
                    out,
                    "  {:<9} {:<18} {} entry \"{}\", {} bytes",
                    "",
                    "",
                    code.target().name(),
                    shown(code.entry_name()),
                    code.bytes().len()
                );
            }
        }
        if let Some(e) = over(&out, 0) {
            return (out, Some(e));
        }
        let names: Vec<&str> = entry.entry_points().map(|ep| ep.name()).collect();
        let reflection = entry.record().reflection;
        if reflection != ABSENT {
            match listed.entry((reflection, names)) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    let _ = writeln!(
                        out,
                        "  bindings and layouts as entry {} (reflection blob {reflection})",
                        shown(first.get())
                    );
                    for dep in entry.dependencies() {
                        let _ = writeln!(
                            out,
                            "  depends on {} (xxh3 {:016x})",
                            shown(dep.path()),
                            dep.content_hash()
                        );
                    }
                    continue;
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(entry.key());
                }
            }
        }
        // Listed in full: its estimate must fit first (one line may show long shared names).
        if let Some(e) = over(&out, crate::budget::entry_weight(&entry)) {
            return (out, Some(e));
        }
        let bind = entry.bind();
        if bind.set_slot_count() > 0 {
            let _ = writeln!(out, "  sets: {}", bind.set_slot_count());
        }
        for b in bind.bindings() {
            let count = match b.count_kind {
                COUNT_UNBOUNDED => "[]".to_string(),
                COUNT_ZERO => "[0]".to_string(),
                _ if b.count != 1 => format!("[{}]", b.count),
                _ => String::new(),
            };
            let path = shown(bind.string(b.path));
            let label = if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
                "(global uniforms)".to_string()
            } else if b.flags & BINDING_IMPLICIT_BLOCK_BUFFER != 0 {
                format!("{path} (block uniforms)")
            } else {
                path.to_string()
            };
            let mut format = image_format_name(b.image_format)
                .map(|f| format!(" {f}"))
                .unwrap_or_default();
            if let Some(index) = b.input_attachment() {
                let _ = write!(format, " input_attachment_index {index}");
            }
            if b.sampler_path != ABSENT {
                let _ = write!(format, " + sampler {}", shown(bind.string(b.sampler_path)));
            }
            let _ = writeln!(
                out,
                "    set {} binding {:<2} {:<22} {label}{count}{format}  [{}]{}",
                b.set,
                b.binding,
                DescriptorKind::from_raw(b.descriptor_type).name(),
                stage_names(b.stage_flags).join(","),
                used_by(&entry, b.entry_point_mask)
            );
            // Per line: records may share long names, so one entry alone can be large.
            if let Some(e) = over(&out, 0) {
                return (out, Some(e));
            }
        }
        for p in bind.push_constants() {
            let _ = writeln!(
                out,
                "    push constants {} ({} bytes at {})  [{}]{}",
                shown(bind.string(p.name)),
                p.size,
                p.offset,
                stage_names(p.stage_flags).join(","),
                used_by(&entry, p.entry_point_mask)
            );
        }
        for r in bind.shader_record_blocks() {
            let _ = writeln!(
                out,
                "    shader record {} ({} bytes)  [{}]",
                shown(bind.string(r.name)),
                r.size,
                stage_names(r.stage_flags).join(",")
            );
        }
        for target in bind.targets() {
            let view = bind.target(target);
            let _ = writeln!(out, "  {} bindings:", target.name());
            for b in view.bindings() {
                let place = match b.binding_kind() {
                    TargetBindingKind::PushConstants => "push constants".to_string(),
                    _ => crate::text::place(target, b),
                };
                let path = shown(view.path(b));
                let code = view.code_name(b).map_or_else(
                    || " (not in the code)".to_string(),
                    |n| format!(" (code {})", shown(n)),
                );
                let layout = view.buffer_layout(b);
                let argument_buffer = view.argument_buffer(b);
                let members = match layout {
                    _ if argument_buffer.is_some() => format!(
                        ", argument buffer struct of {} bytes:",
                        argument_buffer.map_or(0, |ab| ab.size())
                    ),
                    TargetBufferLayout::Vulkan(_) => ", members as the Vulkan buffer".to_string(),
                    TargetBufferLayout::Target(own) => {
                        format!(", {} bytes as {} lays it out:", own.size, target.name())
                    }
                    TargetBufferLayout::NotProvided => {
                        format!(", no {} member layout in the package", target.name())
                    }
                    _ => String::new(),
                };
                let _ = writeln!(
                    out,
                    "    {place:<36} {:<16} {}{code}{members}",
                    kind_name(b.binding_kind()),
                    if path.is_empty() {
                        "(global uniforms)"
                    } else {
                        &path
                    }
                );
                for (ab, m) in argument_buffer
                    .iter()
                    .flat_map(|ab| ab.members().iter().map(move |m| (ab, m)))
                {
                    let array = match m.count {
                        0 => String::new(),
                        n => format!("[{n}] (stride {})", m.stride),
                    };
                    let id = match m.id {
                        slangpack_format::ABSENT => String::new(),
                        n => format!("  [[id({n})]]"),
                    };
                    let _ = writeln!(
                        out,
                        "      {:>5} {:>4}  {} {}{array}{id}",
                        m.offset,
                        m.size,
                        shown(ab.path(m)),
                        m.member_kind().name()
                    );
                }
                if let Some(own) = layout.target_buffer() {
                    let vulkan = bind.buffer_layout(own.buffer_layout);
                    let vulkan_members = vulkan.map_or(&[][..], |l| bind.members(l));
                    for (m, t) in vulkan_members.iter().zip(view.target_members(own)) {
                        let stride = match (t.array_stride, t.matrix_stride) {
                            (0, 0) => String::new(),
                            (0, s) => format!("  matrix stride {s}"),
                            (s, _) => format!("  array stride {s}"),
                        };
                        let _ = writeln!(
                            out,
                            "      {:>5} {:>4}  {}{stride}",
                            t.offset,
                            t.size,
                            shown(bind.string(m.path))
                        );
                    }
                }
            }
        }
        for l in bind.buffer_layouts() {
            let name = shown(bind.string(l.name));
            let _ = writeln!(
                out,
                "  buffer {} ({}, {} bytes)",
                if name.is_empty() {
                    "(global uniforms)"
                } else {
                    &name
                },
                buffer_kind_name(l.kind),
                l.size
            );
            for m in bind.members(l) {
                let _ = writeln!(
                    out,
                    "    {:>5} {:>4}  {}  {}",
                    m.offset,
                    m.size,
                    shown(bind.string(m.path)),
                    crate::diff::member_type(m)
                );
                if let Some(e) = over(&out, 0) {
                    return (out, Some(e));
                }
            }
        }
        for v in bind.all_vertex_inputs() {
            let _ = writeln!(
                out,
                "  vertex input location {} {} {}{} ({})",
                v.location,
                shown(bind.string(v.name)),
                shown(bind.string(v.semantic_name)),
                v.semantic_index,
                match vertex_format(v.format) {
                    Some(VertexFormat::Name(name)) => name,
                    _ => "?".to_string(),
                }
            );
        }
        for o in bind.all_fragment_outputs() {
            let _ = writeln!(
                out,
                "  fragment output {} location {}{} {} ({}x{})",
                shown(entry_point_name(&entry, o.entry_point)),
                o.location,
                if o.index != 0 {
                    format!(" index {}", o.index)
                } else {
                    String::new()
                },
                shown(bind.string(o.name)),
                crate::diff::scalar_name(o.scalar_type),
                o.component_count
            );
        }
        for m in bind.all_execution_modes() {
            let mut facts: Vec<String> = m.flag_names().map(str::to_string).collect();
            if let Some(p) = m.input_primitive() {
                facts.push(format!("input {}", p.name()));
            }
            if let Some(p) = m.output_primitive() {
                facts.push(p.name().to_string());
            }
            for (what, n) in [
                ("output vertices", m.output_vertices),
                ("output primitives", m.output_primitives),
                ("invocations", m.invocations),
            ] {
                if n != 0 {
                    facts.push(format!("{what} {n}"));
                }
            }
            if let Some(p) = m.spacing() {
                facts.push(format!("spacing {}", p.name()));
            }
            if !facts.is_empty() {
                let _ = writeln!(
                    out,
                    "  execution modes {}: {}",
                    shown(entry_point_name(&entry, m.entry_point)),
                    facts.join(", ")
                );
            }
        }
        for c in bind.specialization_constants() {
            let _ = writeln!(
                out,
                "  specialization constant {} = id {}",
                shown(bind.string(c.name)),
                c.id
            );
        }
        for dep in entry.dependencies() {
            let _ = writeln!(
                out,
                "  depends on {} (xxh3 {:016x})",
                shown(dep.path()),
                dep.content_hash()
            );
        }
        if let Some(e) = over(&out, 0) {
            return (out, Some(e));
        }
    }
    (out, None)
}

/// The name of entry point `index` of `entry`, `?` when it has none.
fn entry_point_name<'a>(entry: &Entry<'a>, index: u32) -> &'a str {
    entry
        .entry_points()
        .nth(index as usize)
        .map_or("?", |ep| ep.name())
}

/// The entries a dump shows: the one keyed `only`, loaded alone (its load checks all it
/// uses; nothing else of the package is read), or every entry that loads.
fn selected<'p>(
    package: &'p Package,
    only: Option<&str>,
) -> Box<dyn Iterator<Item = Entry<'p>> + 'p> {
    match only {
        Some(key) => Box::new(package.load(key).ok().into_iter()),
        None => Box::new(package.entries().flatten()),
    }
}

//! The typed JSON document of `slangpack dump --json` ([`super::PackageDoc`]), whose doc
//! comments become its JSON Schema.

use super::*;

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
pub const JSON_SCHEMA: &str = include_str!("../../schema/dump.schema.json");

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
    // Fields in name order: the streamed JSON text writes them in this order, the document
    // (a `serde_json::Value`) sorts them.
    /// A Metal argument buffer's struct (since format 1.5): every member's byte offset,
    /// size, kind, array count and stride and `[[id(n)]]`, checked at bake time against the
    /// Metal code and bind view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_buffer: Option<ArgumentBufferDoc>,
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
    /// The target's own member layout of the buffer (`member_layout` `"target"`), checked at
    /// bake time against the target's code member by member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_layout: Option<TargetLayoutDoc>,
    /// Texture view dimension (`2d`, `cube`, ...), if a texture.
    pub view_dimension: Option<String>,
    /// The Vulkan `[set, binding]` of the same parameter, if it has one.
    pub vulkan: Option<[u32; 2]>,
}

/// A buffer's member layout on a further target (HLSL, Metal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TargetLayoutDoc {
    /// Alignment in bytes.
    pub alignment: u32,
    /// Every member, in the Vulkan layout's pre-order, with the target's numbers.
    pub members: Vec<TargetMemberDoc>,
    /// Size in bytes on the target (one element, for a structured buffer).
    pub size: u32,
    /// Bytes between a structured buffer's elements, else the size.
    pub stride: u32,
}

/// One member of a buffer's layout on a further target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TargetMemberDoc {
    /// Bytes between array elements, 0 when not an array.
    pub array_stride: u32,
    /// Bytes between a matrix's rows or columns, 0 when not a matrix.
    pub matrix_stride: u32,
    /// Byte offset (element-relative inside an array of structs).
    pub offset: u32,
    /// The member's path, as the Vulkan layout's (`items[].x`).
    pub path: String,
    /// Size in bytes on the target.
    pub size: u32,
}

/// A Metal argument buffer's struct, as a tier-2 argument buffer lays it out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArgumentBufferDoc {
    /// Alignment in bytes.
    pub alignment: u32,
    /// Every member in pre-order (a struct's members after it, an array of structs' element
    /// members under `path[]`).
    pub members: Vec<ArgumentMemberDoc>,
    /// Size in bytes of the struct.
    pub size: u32,
}

/// One member of a Metal argument buffer's struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArgumentMemberDoc {
    /// Alignment in bytes.
    pub alignment: u32,
    /// The path of the member's own binding in the Metal bind view (resources), else `None`.
    pub binding: Option<String>,
    /// Array element count, 0 when not an array.
    pub count: u32,
    /// Whether the member lies inside an array element.
    pub element_relative: bool,
    /// Whether the code states the id.
    pub explicit_id: bool,
    /// `[[id(n)]]`: the code's when `explicit_id`, else the one Metal assigns; `None` inside
    /// an array element.
    pub id: Option<u32>,
    /// `data`, `struct`, `buffer` (an 8-byte pointer), `texture`, `sampler` (8-byte resource
    /// ids) or `argument_buffer` (an 8-byte pointer to a nested one).
    pub kind: String,
    /// Byte offset (from the array element's start when `element_relative`).
    pub offset: u32,
    /// Path from the argument buffer (`detail.map`, `taps[].offset`).
    pub path: String,
    /// Size in bytes (an array's: all its elements).
    pub size: u32,
    /// Bytes between array elements, 0 when not an array.
    pub stride: u32,
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
    /// Buffer kind (`uniform`, `push_constant`, ..., `pointee` for the data behind a buffer
    /// device address, `heap` for a constant buffer or a storage buffer's element reached
    /// through a descriptor heap, whose set and binding are the heap's).
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
    /// For the data of one type a dynamically dispatched existential may hold (a child of
    /// its payload named after the type, since format 1.8): the interface and the
    /// conformance id its code dispatches on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conformance: Option<ConformanceDoc>,
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
    /// For a buffer device address (`T*`, `ConstBufferPointer<T>`) or a descriptor handle of
    /// a constant buffer: the buffer (index into this entry's `buffers`) holding the layout
    /// of what it points at, a `pointee` or `heap` buffer (since format 1.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointee: Option<u32>,
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

/// The conformance of a type a dynamically dispatched existential may hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConformanceDoc {
    /// The id to write into the first word of the existential's `witnessId` for a value of
    /// this type: the value the code's dispatch switch compares it with.
    pub id: u32,
    /// The interface's name.
    pub interface: String,
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

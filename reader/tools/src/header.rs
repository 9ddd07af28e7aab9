//! Bind headers: host structs (Rust, C, C++) whose memory layout equals the shaders' buffer
//! layouts, with compile-time checks of every offset and size, and set/binding constants.
//!
//! Every buffer layout of an entry (uniform buffers, parameter-block and global uniforms,
//! push-constant blocks, structured-buffer elements) becomes a struct:
//! - members at their shader offsets, the gaps filled with explicit `_padN: [u8; N]` fields
//!   (a `float3` followed by a `float` shares one 16-byte slot, as in the shader);
//! - struct members become nested structs (named after the path: `GScene` → `GSceneView`);
//! - arrays are arrays of elements as long as the array stride; where the stride is larger
//!   than the element (`float a[4]` in a uniform buffer: 16-byte stride), each element is a
//!   wrapper struct `{ value, _pad0 }`; arrays of structs use the struct padded to the stride;
//! - matrices are arrays of their row (row-major) or column (column-major) vectors, each
//!   vector as long as the matrix stride (lanes past the vector's length are padding);
//! - the checks: `const _: () = assert!(core::mem::offset_of!(T, f) == N);` (Rust),
//!   `_Static_assert(offsetof(T, f) == N, ...)` (C), `static_assert(...)` (C++), and the
//!   size of every struct.
//!
//! Each entry gets its own namespace: a `pub mod` (Rust), a name prefix (C), a `namespace`
//! (C++), named after the entry key (`layered/layered` → `layered_layered`).
//!
//! ```no_run
//! use slangpack_reader::Package;
//! use slangpack_tools::header::{generate, Language};
//!
//! let package = Package::open("shaders.slangpack")?;
//! let source = generate(&package, Language::Rust, None)?;
//! std::fs::write("shaders.rs", source)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::diff::{entry_point_names, member_type, stages};
use crate::ToolError;
use slangpack_format::bind::{
    BufferLayout, BufferMember, ARRAY_UNBOUNDED, BINDING_IMPLICIT_BLOCK_BUFFER,
    BINDING_IMPLICIT_GLOBAL_BUFFER, BUFFER_BLOCK, BUFFER_GLOBAL, BUFFER_PUSH_CONSTANT,
    BUFFER_SHADER_RECORD, BUFFER_STRUCTURED_ELEMENT, COUNT_FIXED, COUNT_UNBOUNDED,
};
use slangpack_format::{ScalarType, TypeKind, ABSENT};
use slangpack_reader::{BindView, Entry, Package};
use std::collections::HashSet;
use std::fmt::Write as _;

/// The language of a generated header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// Rust: `#[repr(C)]` structs in one `pub mod` per entry.
    Rust,
    /// C11: `typedef struct`s with the entry as name prefix, `#define` constants.
    C,
    /// C++17: structs and `inline constexpr` constants in one `namespace` per entry.
    Cpp,
}

/// Generates the header for every entry of `package`, or only for the entry `only`.
///
/// # Errors
/// [`ToolError::Input`] when `only` names no entry.
pub fn generate(
    package: &Package,
    language: Language,
    only: Option<&str>,
) -> Result<String, ToolError> {
    let mut modules = Vec::new();
    let mut module_names = HashSet::new();
    for (index, key) in package.keys().enumerate() {
        if only.is_some_and(|only| only != key) {
            continue;
        }
        let entry = package
            .load_at(index)
            .map_err(|e| ToolError::Input(format!("entry `{key}`: {e}")))?;
        let name = unique(&mut module_names, module_ident(entry.key()));
        modules.push(build_module(&entry, name));
    }
    if let Some(key) = only {
        if modules.is_empty() {
            return Err(ToolError::Input(format!(
                "the package has no entry `{key}`"
            )));
        }
    }
    Ok(match language {
        Language::Rust => render_rust(&modules),
        Language::C => render_c(&modules),
        Language::Cpp => render_cpp(&modules),
    })
}

// ---------------------------------------------------------------------------------------
// The language-neutral model.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scalar {
    F16,
    F32,
    F64,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

impl Scalar {
    fn size(self) -> u32 {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::F16 | Scalar::I16 | Scalar::U16 => 2,
            Scalar::F32 | Scalar::I32 | Scalar::U32 => 4,
            Scalar::F64 | Scalar::I64 | Scalar::U64 => 8,
        }
    }

    /// A `SlangScalarType`; `bool` is 32 bits in buffers. `None` for types without a host
    /// equivalent.
    fn from_slang(raw: u32) -> Option<Scalar> {
        Some(match ScalarType::from_raw(raw) {
            ScalarType::Bool | ScalarType::UInt32 => Scalar::U32,
            ScalarType::Int32 => Scalar::I32,
            ScalarType::Int64 | ScalarType::IntPtr => Scalar::I64,
            ScalarType::UInt64 | ScalarType::UIntPtr => Scalar::U64,
            ScalarType::Float16 => Scalar::F16,
            ScalarType::Float32 => Scalar::F32,
            ScalarType::Float64 => Scalar::F64,
            ScalarType::Int8 => Scalar::I8,
            ScalarType::UInt8 => Scalar::U8,
            ScalarType::Int16 => Scalar::I16,
            ScalarType::UInt16 => Scalar::U16,
            _ => return None,
        })
    }

    /// The unsigned integer of a size (for enums without a recorded scalar type).
    fn unsigned_of_size(size: u32) -> Option<Scalar> {
        match size {
            1 => Some(Scalar::U8),
            2 => Some(Scalar::U16),
            4 => Some(Scalar::U32),
            8 => Some(Scalar::U64),
            _ => None,
        }
    }

    fn rust(self) -> &'static str {
        match self {
            // No stable f16 in Rust: the bits.
            Scalar::F16 | Scalar::U16 => "u16",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::I8 => "i8",
            Scalar::U8 => "u8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::I64 => "i64",
            Scalar::U64 => "u64",
        }
    }

    fn c(self) -> &'static str {
        match self {
            Scalar::F16 | Scalar::U16 => "uint16_t",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
            Scalar::I8 => "int8_t",
            Scalar::U8 => "uint8_t",
            Scalar::I16 => "int16_t",
            Scalar::I32 => "int32_t",
            Scalar::U32 => "uint32_t",
            Scalar::I64 => "int64_t",
            Scalar::U64 => "uint64_t",
        }
    }

    fn rust_zero(self) -> &'static str {
        match self {
            Scalar::F32 | Scalar::F64 => "0.0",
            _ => "0",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    Scalar(Scalar),
    /// An array; length 0 is a runtime-sized array.
    Array(Box<Ty>, u32),
    /// A generated struct of this module.
    Named(String),
    /// Opaque bytes (padding, or a type without a host equivalent).
    Bytes(u32),
}

#[derive(Debug)]
struct Field {
    name: String,
    ty: Ty,
    offset: u32,
    doc: String,
}

#[derive(Debug)]
struct StructDef {
    name: String,
    doc: String,
    fields: Vec<Field>,
    size: u32,
    /// Ends in a runtime-sized array: no size check.
    unsized_tail: bool,
}

#[derive(Debug)]
struct Constant {
    name: String,
    value: u32,
    doc: String,
}

#[derive(Debug)]
struct Module {
    name: String,
    key: String,
    constants: Vec<Constant>,
    structs: Vec<StructDef>,
    notes: Vec<String>,
}

fn unique(used: &mut HashSet<String>, name: String) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while !used.insert(candidate.clone()) {
        candidate = format!("{name}{n}");
        n += 1;
    }
    candidate
}

/// `layered/layered?Q=2` → `layered_layered_q_2`.
fn module_ident(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_string();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("e_{out}")
    } else {
        out
    }
}

/// `gScene.material` → `GSceneMaterial`.
fn camel(path: &str) -> String {
    let mut out = String::new();
    for part in path.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    out
}

/// `gScene.material.albedo` → `G_SCENE_MATERIAL_ALBEDO`.
fn upper_snake(path: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    let out = out.trim_end_matches('_').to_string();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("N_{out}")
    } else {
        out
    }
}

fn buffer_kind_words(kind: u32) -> &'static str {
    match kind {
        BUFFER_PUSH_CONSTANT => "push-constant block",
        BUFFER_STRUCTURED_ELEMENT => "structured-buffer element",
        BUFFER_BLOCK => "parameter-block uniforms",
        BUFFER_GLOBAL => "global uniforms",
        BUFFER_SHADER_RECORD => "shader-record block",
        _ => "uniform buffer",
    }
}

/// ` Used by entry points a, b.` for a program of several entry points (which may form
/// several pipelines whose bindings share numbers), else nothing.
fn used_by(entry: &Entry<'_>, mask: u32) -> String {
    if entry.entry_points().len() < 2 {
        return String::new();
    }
    match entry_point_names(entry, mask).as_str() {
        "unused" => " No entry point uses it.".to_string(),
        names => format!(" Used by entry points {}.", names.replace(',', ", ")),
    }
}

fn build_module(entry: &Entry<'_>, name: String) -> Module {
    let bind = entry.reflection().bind();
    let mut module = Module {
        name,
        key: entry.key().to_string(),
        constants: Vec::new(),
        structs: Vec::new(),
        notes: Vec::new(),
    };
    let mut constant_names = HashSet::new();
    let mut push_constant = |module: &mut Module, name: String, value: u32, doc: String| {
        let name = unique(&mut constant_names, name);
        module.constants.push(Constant { name, value, doc });
    };
    push_constant(
        &mut module,
        "SET_SLOT_COUNT".into(),
        bind.set_slot_count(),
        "Length of the pipeline layout's set array (highest set + 1).".into(),
    );
    for b in bind.bindings() {
        let path = bind.string(b.path);
        let (stem, what) = if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
            (
                "GLOBAL_UNIFORMS".to_string(),
                "the global uniforms".to_string(),
            )
        } else if b.flags & BINDING_IMPLICIT_BLOCK_BUFFER != 0 {
            (
                format!("{}_UNIFORMS", upper_snake(path)),
                format!("`{path}`'s uniforms"),
            )
        } else {
            (upper_snake(path), format!("`{path}`"))
        };
        let kind = b.kind().name();
        push_constant(
            &mut module,
            format!("{stem}_SET"),
            b.set,
            format!("Descriptor set of {what} ({kind})."),
        );
        push_constant(
            &mut module,
            format!("{stem}_BINDING"),
            b.binding,
            format!(
                "Binding of {what} ({kind}).{}",
                used_by(entry, b.entry_point_mask)
            ),
        );
        if b.count_kind == COUNT_FIXED && b.count != 1 {
            push_constant(
                &mut module,
                format!("{stem}_COUNT"),
                b.count,
                format!("Descriptor count of {what}."),
            );
        }
        if let Some(index) = b.input_attachment() {
            push_constant(
                &mut module,
                format!("{stem}_INPUT_ATTACHMENT_INDEX"),
                index,
                format!("Input attachment index of {what} (its place in the subpass's input attachments)."),
            );
        }
        if b.sampler_path != ABSENT {
            let sampler = bind.string(b.sampler_path);
            module.notes.push(format!(
                "{what} and `{sampler}` share one combined image sampler descriptor ({}_SET, {}_BINDING).",
                stem, stem
            ));
        }
        if b.count_kind == COUNT_UNBOUNDED {
            module.notes.push(format!(
                "{what} is an unbounded array: the engine picks the count."
            ));
        }
    }
    for r in bind.shader_record_blocks() {
        let path = bind.string(r.name);
        let stem = upper_snake(path);
        push_constant(
            &mut module,
            format!("{stem}_SHADER_RECORD_SIZE"),
            r.size,
            format!(
                "Byte size of the shader-record data `{path}` (after the shader group handle)."
            ),
        );
        push_constant(
            &mut module,
            format!("{stem}_STAGE_FLAGS"),
            r.stage_flags,
            format!(
                "`VkShaderStageFlags` of the shader-record block `{path}` ({}).",
                stages(r.stage_flags)
            ),
        );
    }
    for p in bind.push_constants() {
        let path = bind.string(p.name);
        let stem = upper_snake(path);
        push_constant(
            &mut module,
            format!("{stem}_OFFSET"),
            p.offset,
            format!("Byte offset of the push-constant range `{path}`."),
        );
        push_constant(
            &mut module,
            format!("{stem}_SIZE"),
            p.size,
            format!("Byte size of the push-constant range `{path}`."),
        );
        push_constant(
            &mut module,
            format!("{stem}_STAGE_FLAGS"),
            p.stage_flags,
            format!(
                "`VkShaderStageFlags` of the push-constant range `{path}` ({}).{}",
                stages(p.stage_flags),
                used_by(entry, p.entry_point_mask)
            ),
        );
    }

    let mut type_names = HashSet::new();
    for layout in bind.buffer_layouts() {
        let path = bind.string(layout.name);
        let label = if path.is_empty() {
            "(global uniforms)"
        } else {
            path
        };
        let base = if path.is_empty() {
            "GlobalUniforms".to_string()
        } else {
            camel(path)
        };
        let members = bind.members(layout);
        if members.is_empty() {
            module.notes.push(format!(
                "`{label}` ({}, {} bytes) has no struct members: no struct generated.",
                buffer_kind_words(layout.kind),
                layout.size
            ));
            continue;
        }
        let name = unique(&mut type_names, base);
        let mut doc = format!(
            "`{label}`: {}, {} bytes",
            buffer_kind_words(layout.kind),
            layout.size
        );
        if layout.set != ABSENT {
            let _ = write!(doc, ", set {} binding {}", layout.set, layout.binding);
        }
        if layout.kind == BUFFER_STRUCTURED_ELEMENT {
            let _ = write!(doc, ", array stride {}", layout.stride);
        }
        doc.push('.');
        let mut builder = StructBuilder {
            bind: &bind,
            layout,
            members,
            names: &mut type_names,
            structs: &mut module.structs,
            notes: &mut module.notes,
        };
        let top: Vec<usize> = (0..members.len())
            .filter(|&i| members[i].parent == ABSENT)
            .collect();
        let size = if layout.kind == BUFFER_STRUCTURED_ELEMENT {
            layout.stride.max(layout.size)
        } else {
            layout.size
        };
        builder.build(name, doc, &top, 0, size);
    }
    module
}

struct StructBuilder<'b, 'a> {
    bind: &'b BindView<'a>,
    layout: &'a BufferLayout,
    members: &'a [BufferMember],
    names: &'b mut HashSet<String>,
    structs: &'b mut Vec<StructDef>,
    notes: &'b mut Vec<String>,
}

impl StructBuilder<'_, '_> {
    /// The local indices of the children of local member `index`.
    fn children(&self, index: usize) -> Vec<usize> {
        let absolute = self.layout.first_member + index as u32;
        (index + 1..self.members.len())
            .filter(|&i| self.members[i].parent == absolute)
            .collect()
    }

    /// Emits the struct `name` made of the members `items` (local indices), whose offsets
    /// are relative to `base`, padded to `size`. Nested structs are emitted first.
    fn build(&mut self, name: String, doc: String, items: &[usize], base: u32, size: u32) {
        let mut fields = Vec::new();
        let mut field_names = HashSet::new();
        let mut cursor = 0u32;
        let mut pads = 0;
        let mut unsized_tail = false;
        for &i in items {
            let m = self.members[i];
            let member_name = self.bind.string(m.name).to_string();
            let field_name = unique(&mut field_names, member_name.clone());
            let Some(offset) = m.offset.checked_sub(base) else {
                self.notes.push(format!(
                    "{name}.{member_name}: offset {} before its parent; left out",
                    m.offset
                ));
                continue;
            };
            if offset < cursor {
                self.notes.push(format!(
                    "{name}.{member_name} at {offset} overlaps the previous member; left out"
                ));
                continue;
            }
            if offset > cursor {
                fields.push(Field {
                    name: unique(&mut field_names, format!("_pad{pads}")),
                    ty: Ty::Bytes(offset - cursor),
                    offset: cursor,
                    doc: String::new(),
                });
                pads += 1;
            }
            let (ty, field_size) = self.member_ty(&name, i, &member_name);
            if matches!(&ty, Ty::Array(_, 0)) {
                unsized_tail = true;
            }
            fields.push(Field {
                name: field_name,
                ty,
                offset,
                doc: format!(
                    "`{}`: offset {offset}, {} bytes, {}.{}",
                    self.bind.string(m.path),
                    m.size,
                    member_type(&m),
                    matrix_note(&m)
                ),
            });
            cursor = offset + field_size;
        }
        if size > cursor && !unsized_tail {
            fields.push(Field {
                name: unique(&mut field_names, format!("_pad{pads}")),
                ty: Ty::Bytes(size - cursor),
                offset: cursor,
                doc: String::new(),
            });
            cursor = size;
        }
        if cursor > size {
            self.notes.push(format!(
                "{name}: the host struct takes {cursor} bytes, the shader {size}; its size check \
                 will fail"
            ));
        }
        self.structs.push(StructDef {
            name,
            doc,
            fields,
            size,
            unsized_tail,
        });
    }

    /// The host type of member `i` and its size in bytes.
    fn member_ty(&mut self, parent: &str, i: usize, member_name: &str) -> (Ty, u32) {
        let m = self.members[i];
        let is_array = m.array_count != 0;
        let kind = TypeKind::from_raw(m.type_kind);
        // One value (of the element, for arrays) and its size.
        let value_size = if is_array { m.array_stride } else { m.size };
        let (value, value_len) = match kind {
            TypeKind::Struct => {
                let name = unique(self.names, format!("{parent}{}", camel(member_name)));
                let children = self.children(i);
                let base = if is_array { 0 } else { m.offset };
                let doc = format!(
                    "`{}`{}: {} bytes.",
                    self.bind.string(m.path),
                    if is_array { " (one array element)" } else { "" },
                    value_size
                );
                self.build(name.clone(), doc, &children, base, value_size);
                (Ty::Named(name), value_size)
            }
            TypeKind::Scalar | TypeKind::Enum | TypeKind::Vector | TypeKind::Pointer => {
                let scalar = if kind == TypeKind::Pointer {
                    Some(Scalar::U64)
                } else {
                    Scalar::from_slang(m.scalar_type).or_else(|| {
                        let columns = m.columns.max(1);
                        Scalar::unsigned_of_size(m.size / columns)
                    })
                };
                match scalar {
                    Some(s) if kind == TypeKind::Vector => (
                        Ty::Array(Box::new(Ty::Scalar(s)), m.columns),
                        s.size() * m.columns,
                    ),
                    Some(s) => (Ty::Scalar(s), s.size()),
                    None => (Ty::Bytes(value_size), value_size),
                }
            }
            TypeKind::Matrix => {
                let (vectors, length) = if m.matrix_layout == 1 {
                    (m.rows, m.columns)
                } else {
                    (m.columns, m.rows)
                };
                match Scalar::from_slang(m.scalar_type) {
                    Some(s)
                        if m.matrix_stride % s.size() == 0
                            && m.matrix_stride / s.size() >= length
                            && vectors > 0 =>
                    {
                        let lanes = m.matrix_stride / s.size();
                        (
                            Ty::Array(Box::new(Ty::Array(Box::new(Ty::Scalar(s)), lanes)), vectors),
                            vectors * m.matrix_stride,
                        )
                    }
                    _ => (Ty::Bytes(value_size), value_size),
                }
            }
            _ => (Ty::Bytes(value_size), value_size),
        };
        if !is_array {
            return (value, value_len);
        }
        let count = if m.array_count == ARRAY_UNBOUNDED {
            0
        } else {
            m.array_count
        };
        let element = if m.array_stride > value_len {
            // A wrapper padding the element to the stride.
            let name = unique(self.names, format!("{parent}{}Element", camel(member_name)));
            let pad = m.array_stride - value_len;
            self.structs.push(StructDef {
                name: name.clone(),
                doc: format!(
                    "One element of `{}`: the value, padded to the array stride ({} bytes).",
                    self.bind.string(m.path),
                    m.array_stride
                ),
                fields: vec![
                    Field {
                        name: "value".into(),
                        ty: value,
                        offset: 0,
                        doc: "The element.".to_string(),
                    },
                    Field {
                        name: "_pad0".into(),
                        ty: Ty::Bytes(pad),
                        offset: value_len,
                        doc: String::new(),
                    },
                ],
                size: m.array_stride,
                unsized_tail: false,
            });
            Ty::Named(name)
        } else {
            value
        };
        let stride = m.array_stride.max(value_len);
        (Ty::Array(Box::new(element), count), stride * count)
    }
}

/// How a matrix is stored on the host: ` Stored as 3 column vectors of 4 lanes (lane 3 is
/// padding).`; empty for other members.
fn matrix_note(m: &BufferMember) -> String {
    if TypeKind::from_raw(m.type_kind) != TypeKind::Matrix {
        return String::new();
    }
    let (vectors, length, what) = if m.matrix_layout == 1 {
        (m.rows, m.columns, "row")
    } else {
        (m.columns, m.rows, "column")
    };
    let lanes = Scalar::from_slang(m.scalar_type).map_or(0, |s| m.matrix_stride / s.size());
    let padding = match lanes.saturating_sub(length) {
        0 => String::new(),
        1 => format!(" (lane {length} is padding)"),
        _ => format!(" (lanes {length}..{lanes} are padding)"),
    };
    format!(" Stored as {vectors} {what} vectors of {lanes} lanes{padding}.")
}

// ---------------------------------------------------------------------------------------
// Rendering.

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

const C_KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "bool",
    "true",
    "false",
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "bitand",
    "bitor",
    "catch",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "delete",
    "dynamic_cast",
    "explicit",
    "export",
    "friend",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "reinterpret_cast",
    "requires",
    "static_assert",
    "static_cast",
    "template",
    "this",
    "thread_local",
    "throw",
    "try",
    "typeid",
    "typename",
    "using",
    "virtual",
    "wchar_t",
    "xor",
    "xor_eq",
];

fn rust_field(name: &str) -> String {
    match name {
        "self" | "Self" | "super" | "crate" | "_" => format!("{name}_"),
        n if RUST_KEYWORDS.contains(&n) => format!("r#{n}"),
        n => n.to_string(),
    }
}

fn c_field(name: &str) -> String {
    if C_KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

fn rust_ty(ty: &Ty) -> String {
    match ty {
        Ty::Scalar(s) => s.rust().to_string(),
        Ty::Array(inner, n) => format!("[{}; {n}]", rust_ty(inner)),
        Ty::Named(name) => name.clone(),
        Ty::Bytes(n) => format!("[u8; {n}]"),
    }
}

fn rust_zero(ty: &Ty) -> String {
    match ty {
        Ty::Scalar(s) => s.rust_zero().to_string(),
        Ty::Array(inner, n) => format!("[{}; {n}]", rust_zero(inner)),
        Ty::Named(name) => format!("{name}::ZEROED"),
        Ty::Bytes(n) => format!("[0; {n}]"),
    }
}

/// The C base type and array suffixes (`float`, `[3][4]`); `prefix` goes before struct names.
fn c_decl(ty: &Ty, prefix: &str) -> (String, String) {
    match ty {
        Ty::Scalar(s) => (s.c().to_string(), String::new()),
        Ty::Array(inner, n) => {
            let (base, dims) = c_decl(inner, prefix);
            let dim = if *n == 0 {
                "[]".to_string()
            } else {
                format!("[{n}]")
            };
            (base, format!("{dim}{dims}"))
        }
        Ty::Named(name) => (format!("{prefix}{name}"), String::new()),
        Ty::Bytes(n) => ("uint8_t".to_string(), format!("[{n}]")),
    }
}

fn doc_lines(out: &mut String, indent: &str, marker: &str, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{indent}{marker} {line}");
    }
}

/// Statements appending the little-endian bytes of `expr` (of type `ty`) to `out`.
fn rust_write(out: &mut String, expr: &str, ty: &Ty, depth: usize, indent: &str) {
    match ty {
        Ty::Scalar(_) => {
            let _ = writeln!(out, "{indent}out.extend_from_slice(&{expr}.to_le_bytes());");
        }
        Ty::Bytes(_) => {
            let _ = writeln!(out, "{indent}out.extend_from_slice(&{expr});");
        }
        Ty::Named(_) => {
            let _ = writeln!(out, "{indent}{expr}.write_le_bytes(out);");
        }
        Ty::Array(inner, _) => {
            let var = format!("v{depth}");
            let _ = writeln!(out, "{indent}for {var} in &{expr} {{");
            let deeper = format!("{indent}    ");
            rust_write(out, &format!("(*{var})"), inner, depth + 1, &deeper);
            let _ = writeln!(out, "{indent}}}");
        }
    }
}

fn render_rust(modules: &[Module]) -> String {
    let mut out = String::new();
    out.push_str(
        "// Generated by `slangpack header --lang rust`; do not edit.\n\
         // Host structs whose layout equals the shaders' buffer layouts (checked at compile\n\
         // time), and the descriptor set / binding numbers of every binding.\n",
    );
    for module in modules {
        let _ = writeln!(out);
        let _ = writeln!(out, "/// Entry `{}`.", module.key);
        for note in &module.notes {
            let _ = writeln!(out, "///");
            let _ = writeln!(out, "/// Note: {note}");
        }
        out.push_str(
            "#[allow(non_snake_case, non_camel_case_types, non_upper_case_globals, dead_code, \
             clippy::all)]\n",
        );
        let _ = writeln!(out, "pub mod {} {{", module.name);
        for c in &module.constants {
            doc_lines(&mut out, "    ", "///", &c.doc);
            let _ = writeln!(out, "    pub const {}: u32 = {};", c.name, c.value);
        }
        for s in &module.structs {
            let _ = writeln!(out);
            doc_lines(&mut out, "    ", "///", &s.doc);
            out.push_str("    #[repr(C)]\n    #[derive(Clone, Copy, Debug, PartialEq)]\n");
            let _ = writeln!(out, "    pub struct {} {{", s.name);
            for f in &s.fields {
                if f.doc.is_empty() {
                    let _ = writeln!(out, "        /// Padding.");
                } else {
                    doc_lines(&mut out, "        ", "///", &f.doc);
                }
                let _ = writeln!(
                    out,
                    "        pub {}: {},",
                    rust_field(&f.name),
                    rust_ty(&f.ty)
                );
            }
            out.push_str("    }\n");
            let _ = writeln!(out, "    impl {} {{", s.name);
            let _ = writeln!(out, "        /// Every byte zero.");
            let _ = writeln!(out, "        pub const ZEROED: Self = Self {{");
            for f in &s.fields {
                let _ = writeln!(
                    out,
                    "            {}: {},",
                    rust_field(&f.name),
                    rust_zero(&f.ty)
                );
            }
            out.push_str("        };\n");
            let _ = writeln!(
                out,
                "        /// Appends the {} bytes the shader reads (little-endian, padding \
                 included).",
                s.size
            );
            out.push_str("        pub fn write_le_bytes(&self, out: &mut Vec<u8>) {\n");
            for f in &s.fields {
                let expr = format!("self.{}", rust_field(&f.name));
                rust_write(&mut out, &expr, &f.ty, 0, "            ");
            }
            out.push_str("        }\n    }\n");
            let _ = writeln!(
                out,
                "    impl Default for {} {{\n        fn default() -> Self {{\n            \
                 Self::ZEROED\n        }}\n    }}",
                s.name
            );
            if !s.unsized_tail {
                let _ = writeln!(
                    out,
                    "    const _: () = assert!(core::mem::size_of::<{}>() == {});",
                    s.name, s.size
                );
            }
            for f in &s.fields {
                let _ = writeln!(
                    out,
                    "    const _: () = assert!(core::mem::offset_of!({}, {}) == {});",
                    s.name,
                    rust_field(&f.name),
                    f.offset
                );
            }
        }
        out.push_str("}\n");
    }
    out
}

fn render_c(modules: &[Module]) -> String {
    let mut out = String::new();
    out.push_str(
        "/* Generated by `slangpack header --lang c`; do not edit.\n \
         * Host structs whose layout equals the shaders' buffer layouts (checked at compile\n \
         * time), and the descriptor set / binding numbers of every binding. */\n\
         #pragma once\n#include <stddef.h>\n#include <stdint.h>\n",
    );
    for module in modules {
        let prefix = format!("{}_", module.name);
        let upper = module.name.to_ascii_uppercase();
        let _ = writeln!(out, "\n/* Entry `{}`. */", module.key);
        for note in &module.notes {
            let _ = writeln!(out, "/* Note: {note} */");
        }
        for c in &module.constants {
            let _ = writeln!(out, "/* {} */", c.doc);
            let _ = writeln!(out, "#define {upper}_{} {}u", c.name, c.value);
        }
        for s in &module.structs {
            let name = format!("{prefix}{}", s.name);
            let _ = writeln!(out);
            let _ = writeln!(out, "/* {} */", s.doc);
            let _ = writeln!(out, "typedef struct {name} {{");
            for f in &s.fields {
                if !f.doc.is_empty() {
                    let _ = writeln!(out, "    /* {} */", f.doc);
                }
                let (base, dims) = c_decl(&f.ty, &prefix);
                let _ = writeln!(out, "    {base} {}{dims};", c_field(&f.name));
            }
            let _ = writeln!(out, "}} {name};");
            if !s.unsized_tail {
                let _ = writeln!(
                    out,
                    "_Static_assert(sizeof({name}) == {}, \"{name}: size\");",
                    s.size
                );
            }
            for f in &s.fields {
                let field = c_field(&f.name);
                let _ = writeln!(
                    out,
                    "_Static_assert(offsetof({name}, {field}) == {}, \"{name}.{field}: offset\");",
                    f.offset
                );
            }
        }
    }
    out
}

fn render_cpp(modules: &[Module]) -> String {
    let mut out = String::new();
    out.push_str(
        "// Generated by `slangpack header --lang cpp`; do not edit.\n\
         // Host structs whose layout equals the shaders' buffer layouts (checked at compile\n\
         // time), and the descriptor set / binding numbers of every binding.\n\
         #pragma once\n#include <cstddef>\n#include <cstdint>\n",
    );
    for module in modules {
        let _ = writeln!(out, "\n// Entry `{}`.", module.key);
        for note in &module.notes {
            let _ = writeln!(out, "// Note: {note}");
        }
        let _ = writeln!(out, "namespace {} {{", module.name);
        for c in &module.constants {
            let _ = writeln!(out, "// {}", c.doc);
            let _ = writeln!(
                out,
                "inline constexpr std::uint32_t {} = {}u;",
                c.name, c.value
            );
        }
        for s in &module.structs {
            let _ = writeln!(out);
            let _ = writeln!(out, "// {}", s.doc);
            let _ = writeln!(out, "struct {} {{", s.name);
            for f in &s.fields {
                if !f.doc.is_empty() {
                    let _ = writeln!(out, "    // {}", f.doc);
                }
                let (base, dims) = c_decl(&f.ty, "");
                let base = match base.as_str() {
                    "uint8_t" | "uint16_t" | "uint32_t" | "uint64_t" | "int8_t" | "int16_t"
                    | "int32_t" | "int64_t" => format!("std::{base}"),
                    _ => base,
                };
                let _ = writeln!(out, "    {base} {}{dims};", c_field(&f.name));
            }
            let _ = writeln!(out, "}};");
            if !s.unsized_tail {
                let _ = writeln!(
                    out,
                    "static_assert(sizeof({0}) == {1}, \"{0}: size\");",
                    s.name, s.size
                );
            }
            for f in &s.fields {
                let field = c_field(&f.name);
                let _ = writeln!(
                    out,
                    "static_assert(offsetof({0}, {field}) == {1}, \"{0}.{field}: offset\");",
                    s.name, f.offset
                );
            }
        }
        let _ = writeln!(out, "}} // namespace {}", module.name);
    }
    out
}

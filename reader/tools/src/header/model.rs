//! The language-neutral model of a header (modules of constants and structs) and the walk
//! that builds it from an entry's bind view.

use super::names::{camel, unique, upper_snake};
use crate::diff::{entry_point_names, member_type, stages};
use slangpack_format::bind::{
    BufferLayout, BufferMember, ARRAY_UNBOUNDED, BINDING_IMPLICIT_BLOCK_BUFFER,
    BINDING_IMPLICIT_GLOBAL_BUFFER, BUFFER_BLOCK, BUFFER_GLOBAL, BUFFER_PUSH_CONSTANT,
    BUFFER_SHADER_RECORD, BUFFER_STRUCTURED_ELEMENT, COUNT_FIXED, COUNT_UNBOUNDED,
};
use slangpack_format::{ScalarType, TypeKind, ABSENT};
use slangpack_reader::{BindView, Entry};
use std::collections::HashSet;
use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scalar {
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
    pub(super) fn size(self) -> u32 {
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

    pub(super) fn rust(self) -> &'static str {
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

    pub(super) fn c(self) -> &'static str {
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

    pub(super) fn rust_zero(self) -> &'static str {
        match self {
            Scalar::F32 | Scalar::F64 => "0.0",
            _ => "0",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ty {
    Scalar(Scalar),
    /// An array; length 0 is a runtime-sized array.
    Array(Box<Ty>, u32),
    /// A generated struct of this module.
    Named(String),
    /// Opaque bytes (padding, or a type without a host equivalent).
    Bytes(u32),
}

#[derive(Debug)]
pub(super) struct Field {
    pub(super) name: String,
    pub(super) ty: Ty,
    pub(super) offset: u32,
    pub(super) doc: String,
}

#[derive(Debug)]
pub(super) struct StructDef {
    pub(super) name: String,
    pub(super) doc: String,
    pub(super) fields: Vec<Field>,
    pub(super) size: u32,
    /// Ends in a runtime-sized array: no size check.
    pub(super) unsized_tail: bool,
}

#[derive(Debug)]
pub(super) struct Constant {
    pub(super) name: String,
    pub(super) value: u32,
    pub(super) doc: String,
}

#[derive(Debug)]
pub(super) struct Module {
    pub(super) name: String,
    pub(super) key: String,
    pub(super) constants: Vec<Constant>,
    pub(super) structs: Vec<StructDef>,
    pub(super) notes: Vec<String>,
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

pub(super) fn build_module(entry: &Entry<'_>, name: String) -> Module {
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

//! The language-neutral model of a header (modules of constants and structs) and the walk
//! that builds it from an entry's bind view.

use super::names::{camel, upper_snake, Scope};
use crate::diff::{entry_point_names, stages};
use slangpack_format::bind::{
    BufferMember, BINDING_IMPLICIT_BLOCK_BUFFER, BINDING_IMPLICIT_GLOBAL_BUFFER, BUFFER_BLOCK,
    BUFFER_GLOBAL, BUFFER_HEAP, BUFFER_POINTEE, BUFFER_PUSH_CONSTANT, BUFFER_SHADER_RECORD,
    BUFFER_STRUCTURED_ELEMENT, COUNT_FIXED, COUNT_UNBOUNDED,
};
use slangpack_format::{ScalarType, ABSENT};
use slangpack_reader::{BindView, Entry};
use std::fmt::Write as _;
use structs::{Children, StructBuilder};

mod structs;

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
    pub(super) fn from_slang(raw: u32) -> Option<Scalar> {
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
    /// The name in its module (Rust, C++).
    pub(super) name: String,
    /// The `#define` of the C header: `MODULE_NAME`, unique in the header.
    pub(super) c_name: String,
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

impl Module {
    /// About the bytes this module takes in memory and in the header: its names and docs,
    /// and a line's worth for each declaration (what the output budget is charged).
    pub(super) fn weight(&self) -> usize {
        const LINE: usize = 64;
        let constants: usize = self
            .constants
            .iter()
            .map(|c| c.name.len() + c.doc.len() + LINE)
            .sum();
        let structs: usize = self
            .structs
            .iter()
            .map(|s| {
                s.name.len()
                    + s.doc.len()
                    + LINE
                    + s.fields
                        .iter()
                        .map(|f| f.name.len() + f.doc.len() + LINE)
                        .sum::<usize>()
            })
            .sum();
        let notes: usize = self.notes.iter().map(|n| n.len() + LINE).sum();
        self.name.len() + self.key.len() + constants + structs + notes
    }
}

fn buffer_kind_words(kind: u32) -> &'static str {
    match kind {
        BUFFER_PUSH_CONSTANT => "push-constant block",
        BUFFER_STRUCTURED_ELEMENT => "structured-buffer element",
        BUFFER_BLOCK => "parameter-block uniforms",
        BUFFER_GLOBAL => "global uniforms",
        BUFFER_SHADER_RECORD => "shader-record block",
        BUFFER_POINTEE => "the data behind a buffer device address",
        BUFFER_HEAP => "a buffer reached through a descriptor heap (a constant buffer, or a storage buffer's element)",
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

/// The module of one entry. Names are checked and made identifiers here (see `names`);
/// field names are claimed later, in [`Module::claim_field_names`], once every name they must
/// avoid is known.
///
/// # Errors
/// A name no identifier can be made from (see `names`), or members nested deeper than
/// `MAX_NESTING_DEPTH`.
pub(super) fn build_module(entry: &Entry<'_>, name: String) -> Result<Module, String> {
    let bind = entry.bind();
    let mut module = Module {
        name,
        key: entry.key().to_string(),
        constants: Vec::new(),
        structs: Vec::new(),
        notes: Vec::new(),
    };
    let mut constant_names = Scope::default();
    let mut push_constant = |module: &mut Module, name: String, value: u32, doc: String| {
        let name = constant_names.claim(name);
        module.constants.push(Constant {
            name,
            c_name: String::new(),
            value,
            doc,
        });
    };
    push_constant(
        &mut module,
        "SET_SLOT_COUNT".into(),
        bind.set_slot_count(),
        "Length of the pipeline layout's set array (highest set + 1).".into(),
    );
    binding_constants(entry, &bind, &mut module, &mut push_constant)?;
    for (name, id, doc) in super::conformance_ids(&bind)? {
        push_constant(&mut module, name, id, doc);
    }
    block_constants(entry, &bind, &mut module, &mut push_constant)?;
    super::targets::push_target_constants(&bind, &mut module, &mut push_constant)?;

    let mut type_names = Scope::default();
    buffer_structs(&bind, &mut module, &mut type_names)?;
    target_structs(&bind, &mut module, &mut type_names)?;
    Ok(module)
}

/// What [`build_module`] adds a named constant with: its name, value and doc.
type PushConstant<'p> = dyn FnMut(&mut Module, String, u32, String) + 'p;

/// The constants of each descriptor binding (set, binding, count, input attachment index),
/// and notes on combined samplers and unbounded arrays.
fn binding_constants(
    entry: &Entry<'_>,
    bind: &BindView<'_>,
    module: &mut Module,
    push: &mut PushConstant<'_>,
) -> Result<(), String> {
    for (index, b) in bind.bindings().iter().enumerate() {
        let path = bind.string(b.path);
        let stem = || upper_snake(path, || format!("binding {index}'s path"));
        let (stem, what) = if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
            (
                "GLOBAL_UNIFORMS".to_string(),
                "the global uniforms".to_string(),
            )
        } else if b.flags & BINDING_IMPLICIT_BLOCK_BUFFER != 0 {
            (
                format!("{}_UNIFORMS", stem()?),
                format!("`{path}`'s uniforms"),
            )
        } else {
            (stem()?, format!("`{path}`"))
        };
        let kind = b.kind().name();
        push(
            module,
            format!("{stem}_SET"),
            b.set,
            format!("Descriptor set of {what} ({kind})."),
        );
        push(
            module,
            format!("{stem}_BINDING"),
            b.binding,
            format!(
                "Binding of {what} ({kind}).{}",
                used_by(entry, b.entry_point_mask)
            ),
        );
        if b.count_kind == COUNT_FIXED && b.count != 1 {
            push(
                module,
                format!("{stem}_COUNT"),
                b.count,
                format!("Descriptor count of {what}."),
            );
        }
        if let Some(index) = b.input_attachment() {
            push(
                module,
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
    Ok(())
}

/// The constants of each shader-record block (size, stages) and push-constant range
/// (offset, size, stages).
fn block_constants(
    entry: &Entry<'_>,
    bind: &BindView<'_>,
    module: &mut Module,
    push: &mut PushConstant<'_>,
) -> Result<(), String> {
    for (index, r) in bind.shader_record_blocks().iter().enumerate() {
        let path = bind.string(r.name);
        let stem = upper_snake(path, || format!("shader-record block {index}"))?;
        push(
            module,
            format!("{stem}_SHADER_RECORD_SIZE"),
            r.size,
            format!(
                "Byte size of the shader-record data `{path}` (after the shader group handle)."
            ),
        );
        push(
            module,
            format!("{stem}_STAGE_FLAGS"),
            r.stage_flags,
            format!(
                "`VkShaderStageFlags` of the shader-record block `{path}` ({}).",
                stages(r.stage_flags)
            ),
        );
    }
    for (index, p) in bind.push_constants().iter().enumerate() {
        let path = bind.string(p.name);
        let stem = upper_snake(path, || format!("push-constant range {index}"))?;
        push(
            module,
            format!("{stem}_OFFSET"),
            p.offset,
            format!("Byte offset of the push-constant range `{path}`."),
        );
        push(
            module,
            format!("{stem}_SIZE"),
            p.size,
            format!("Byte size of the push-constant range `{path}`."),
        );
        push(
            module,
            format!("{stem}_STAGE_FLAGS"),
            p.stage_flags,
            format!(
                "`VkShaderStageFlags` of the push-constant range `{path}` ({}).{}",
                stages(p.stage_flags),
                used_by(entry, p.entry_point_mask)
            ),
        );
    }
    Ok(())
}

/// A struct per buffer layout with members (a note for one without), named uniquely in
/// `type_names`.
fn buffer_structs(
    bind: &BindView<'_>,
    module: &mut Module,
    type_names: &mut Scope,
) -> Result<(), String> {
    for (index, layout) in bind.buffer_layouts().iter().enumerate() {
        let path = bind.string(layout.name);
        let (label, base) = buffer_names(path, || format!("buffer {index}"))?;
        let members = bind.members(layout);
        if members.is_empty() {
            module.notes.push(format!(
                "`{label}` ({}, {} bytes) has no struct members: no struct generated.",
                buffer_kind_words(layout.kind),
                layout.size
            ));
            continue;
        }
        let name = type_names.claim(base);
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
        if layout.kind == BUFFER_POINTEE && layout.stride != layout.size {
            let _ = write!(doc, ", {} bytes apart in an array", layout.stride);
        }
        if layout.kind == BUFFER_HEAP && layout.set != ABSENT {
            doc.push_str(" (its descriptor's heap)");
        }
        doc.push('.');
        let children = Children::of(layout, members);
        let mut builder = StructBuilder {
            bind,
            buffer: label,
            members,
            first_member: layout.first_member,
            children: &children,
            names: type_names,
            structs: &mut module.structs,
            target: None,
        };
        // A structured buffer's element, and the data behind a pointer (`p + 1`), is padded
        // to its stride, as a host array of the struct is.
        let size = if matches!(layout.kind, BUFFER_STRUCTURED_ELEMENT | BUFFER_POINTEE) {
            layout.stride.max(layout.size)
        } else {
            layout.size
        };
        builder.build(name, doc, (children.top(), 1), 0, size)?;
    }
    Ok(())
}

/// A buffer's label in docs and errors (`(global uniforms)` for the unnamed one) and the
/// base name of its struct (`GlobalUniforms`, else its path in camel case; `what` names it
/// when no identifier can be made of it).
fn buffer_names(path: &str, what: impl FnOnce() -> String) -> Result<(&str, String), String> {
    if path.is_empty() {
        Ok(("(global uniforms)", "GlobalUniforms".to_string()))
    } else {
        Ok((path, camel(path, what)?))
    }
}

/// The structs of the buffers HLSL and Metal lay out by their own rules (since format 1.4):
/// `GParamsHlsl`, `GParamsMetal`, ... each the Vulkan layout's members at the target's
/// offsets, sizes and strides (checked at bake time against the target's code), padded as the
/// target packs them, with the same layout checks as the Vulkan structs.
///
/// # Errors
/// As [`build_module`].
fn target_structs(
    bind: &BindView<'_>,
    module: &mut Module,
    type_names: &mut Scope,
) -> Result<(), String> {
    for target in bind.targets() {
        let view = bind.target(target);
        let suffix = camel(target.name(), String::new).unwrap_or_default();
        for b in view.bindings() {
            let Some(own) = view.buffer_layout(b).target_buffer() else {
                continue;
            };
            let Some(layout) = bind.buffer_layout(own.buffer_layout) else {
                continue;
            };
            let vulkan = bind.members(layout);
            let theirs = view.target_members(own);
            if vulkan.is_empty() || vulkan.len() != theirs.len() {
                continue;
            }
            // The Vulkan members with the target's numbers (names, types and parents stay).
            let members: Vec<BufferMember> = vulkan
                .iter()
                .zip(theirs)
                .map(|(m, t)| BufferMember {
                    offset: t.offset,
                    size: t.size,
                    array_stride: t.array_stride,
                    matrix_stride: t.matrix_stride,
                    matrix_layout: t.matrix_layout,
                    ..*m
                })
                .collect();
            let path = view.path(b);
            let (label, base) = buffer_names(path, || format!("{} buffer {path}", target.name()))?;
            let name = type_names.claim(format!("{base}{suffix}"));
            let place =
                slangpack_format::targets::place_name(target, b.space, b.index, b.register_class);
            let mut doc = format!(
                "`{label}` as the {} code lays it out: {} bytes, {place}",
                target.name(),
                own.size
            );
            if own.stride != 0 {
                let _ = write!(doc, ", array stride {}", own.stride);
            }
            doc.push('.');
            let children = Children::of(layout, &members);
            let size = own.stride.max(own.size);
            let mut builder = StructBuilder {
                bind,
                buffer: label,
                members: &members,
                first_member: ABSENT,
                children: &children,
                names: type_names,
                structs: &mut module.structs,
                target: Some(target),
            };
            builder.build(name, doc, (children.top(), 1), 0, size)?;
        }
    }
    Ok(())
}

impl Module {
    /// Gives every field its name: its base name (`r_` when it equals a struct of this
    /// module or a name in `macros`, the C header's `#define`s), then `_2`, `_3`, ... on
    /// collisions inside its struct.
    pub(super) fn claim_field_names(&mut self, macros: &Scope) {
        let mut types = Scope::default();
        for s in &self.structs {
            types.claim(s.name.clone());
        }
        for s in &mut self.structs {
            let mut fields = Scope::default();
            for f in &mut s.fields {
                let base = std::mem::take(&mut f.name);
                let base = if types.contains(&base) || macros.contains(&base) {
                    format!("r_{base}")
                } else {
                    base
                };
                f.name = fields.claim(base);
            }
        }
    }
}

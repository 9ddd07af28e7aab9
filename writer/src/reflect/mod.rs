//! The complete reflection walk: every raw table of a reflection blob, filled from the linked
//! program's Slang reflection.
//!
//! [`build_reflection`] starts from the program layout (global parameters, entry points,
//! hashed strings) and from the main module's declaration tree, and follows every edge Slang
//! exposes: a record's index fields point at records made for the Slang objects those calls
//! return. Each Slang object becomes one record, keyed on its address (Slang hands out one
//! object per type, layout, variable, ...), so shared objects are stored once and cycles end.
//! Strings are interned by the builder. Absent links are [`ABSENT`]; unbounded sizes
//! [`UNBOUNDED`].
//!
//! Order is deterministic (it follows Slang's own order), so the same program gives the same
//! bytes. The declaration tree comes first, so its root is decl 0; entry point `i` of the
//! program is entry-point record `i`.
//!
//! What Slang calls relative indices (a binding range's descriptor set and first descriptor
//! range, a sub-object range's binding range) are stored absolute: the owning type layout's
//! first record of that table is added.
//!
//! Where Slang cannot be asked safely, the walk asks less (each case is one C++ exception or
//! crash inside Slang 2026.12, found with the test shaders under `tests/shaders/`):
//! * declarations inside a generic get no payload (their sizes depend on generic parameters,
//!   and Slang throws when asked for them); the generic has its [`Generic`] record;
//! * declarations reached only as a generic's inner declaration (from the core module or an
//!   imported one) get kind, name and parent chain, but no children and no payload;
//! * a generic's type parameters and an append/consume buffer's synthesized `counter` are
//!   variables of which only the name is recorded;
//! * a binding range's image format is read only when it has a leaf variable;
//! * row and column counts are read only for scalars, vectors and matrices, element counts
//!   only for arrays.
//!
//! One concern per file: this file holds the walk's state and its start ([`build_reflection`]);
//! `decls`, `types` (with the range tables of type layouts), `variables`, `functions`
//! (functions, generics, entry points) and `attributes` (attributes and modifiers) each add
//! the records of their tables; `values` converts Slang's numbers, string literals and
//! default values to stored form.
//!
//! Slang offers no list of a variable's modifiers: every `SlangModifierID` is probed. A
//! default value that is neither an integer nor a float (a vector, a struct) is stored as
//! [`ValueKind::None`].
//!
//! [`ABSENT`]: slangpack_format::ABSENT
//! [`UNBOUNDED`]: slangpack_format::UNBOUNDED
//! [`Generic`]: slangpack_format::Generic
//! [`ValueKind::None`]: slangpack_format::ValueKind::None

use crate::compile::CompiledProgram;
use crate::BakeError;
use slangpack_format::{HashedString, ReflectionBuilder, TypeKind, ABSENT};
use slangpack_slang::reflection as ffi;
use std::collections::HashMap;

mod attributes;
mod decls;
mod functions;
mod types;
mod values;
mod variables;

use values::size32;

/// Walks `program`'s reflection into a [`ReflectionBuilder`] holding every raw table and the
/// header scalars.
///
/// The builder is returned unfinished so that later steps (the bind view) can append their
/// own tables before [`ReflectionBuilder::finish`].
///
/// # Errors
/// [`BakeError::Compile`] when Slang cannot produce the program's layout.
pub fn build_reflection(program: &CompiledProgram) -> Result<ReflectionBuilder, BakeError> {
    let mut walk = Walk::new(program.layout()?);

    // The declaration tree first: its root becomes decl 0, and every declaration of the main
    // module has its record (with parent and children) before anything else refers to it.
    let root_decl = program
        .module_decl()
        .map_or(ABSENT, |root| walk.decl_tree(root));

    let global_params_var_layout = walk.opt_var_layout(walk.program.global_params_var_layout());
    let global_params_type_layout = walk.opt_type_layout(walk.program.global_params_type_layout());
    for i in 0..walk.program.parameter_count() {
        let parameter = walk.program.parameter(i);
        walk.opt_var_layout(parameter);
    }

    let entry_point_count = walk.program.entry_point_count();
    for i in 0..entry_point_count {
        if let Some(ep) = walk.program.entry_point(i) {
            walk.entry_point(ep);
        }
    }

    for s in walk.program.hashed_strings() {
        let string = walk.b.intern(&s);
        walk.b.push(HashedString {
            string,
            hash: crate::string_hash(&s),
        });
    }

    let (gcb_binding, gcb_space) = walk.global_constant_buffer();
    let bindless = walk.program.bindless_space_index();
    let scalars = walk.b.scalars_mut();
    scalars.global_constant_buffer_binding = gcb_binding;
    scalars.global_constant_buffer_space = gcb_space;
    scalars.global_constant_buffer_size = size32(walk.program.global_constant_buffer_size());
    scalars.bindless_space_index = u32::try_from(bindless).unwrap_or(ABSENT);
    scalars.global_params_var_layout = global_params_var_layout;
    scalars.global_params_type_layout = global_params_type_layout;
    scalars.entry_point_count = u32::try_from(entry_point_count).unwrap_or(ABSENT);
    scalars.root_decl = root_decl;
    Ok(walk.b)
}

/// The walk's state: the builder and, per table, Slang object address -> record index.
struct Walk<'a> {
    b: ReflectionBuilder,
    program: ffi::Program<'a>,
    types: HashMap<usize, u32>,
    type_layouts: HashMap<usize, u32>,
    variables: HashMap<usize, u32>,
    var_layouts: HashMap<usize, u32>,
    functions: HashMap<usize, u32>,
    generics: HashMap<usize, u32>,
    decls: HashMap<usize, u32>,
}

impl<'a> Walk<'a> {
    fn new(program: ffi::Program<'a>) -> Self {
        Walk {
            b: ReflectionBuilder::new(),
            program,
            types: HashMap::new(),
            type_layouts: HashMap::new(),
            variables: HashMap::new(),
            var_layouts: HashMap::new(),
            functions: HashMap::new(),
            generics: HashMap::new(),
            decls: HashMap::new(),
        }
    }

    fn intern(&mut self, s: Option<String>) -> u32 {
        self.b.intern_opt(s.as_deref())
    }

    fn opt_type(&mut self, t: Option<ffi::Type<'a>>) -> u32 {
        t.map_or(ABSENT, |t| self.ty(t))
    }

    fn opt_type_layout(&mut self, t: Option<ffi::TypeLayout<'a>>) -> u32 {
        t.map_or(ABSENT, |t| self.type_layout(t))
    }

    fn opt_var_layout(&mut self, v: Option<ffi::VarLayout<'a>>) -> u32 {
        v.map_or(ABSENT, |v| self.var_layout(v))
    }

    fn opt_variable(&mut self, v: Option<ffi::Variable<'a>>) -> u32 {
        v.map_or(ABSENT, |v| self.variable(v))
    }

    fn opt_generic(&mut self, g: Option<ffi::Generic<'a>>) -> u32 {
        g.map_or(ABSENT, |g| self.generic(g))
    }

    fn opt_function(&mut self, f: Option<ffi::Function<'a>>) -> u32 {
        f.map_or(ABSENT, |f| self.function(f))
    }

    /// The binding and set of the implicit global constant buffer, or absent when the program
    /// has no global uniform data. Slang's `getGlobalConstantBufferBinding` reports the
    /// `ConstantBuffer` category, which SPIR-V layouts do not use; the buffer's Vulkan binding
    /// is the descriptor-slot offset of the global scope's container (the constant buffer
    /// wrapping the globals) added to that of the global scope itself.
    fn global_constant_buffer(&self) -> (u32, u32) {
        use slangpack_slang::reflection::CATEGORY_DESCRIPTOR_TABLE_SLOT as SLOT;
        if self.program.global_constant_buffer_size() == 0 {
            return (ABSENT, ABSENT);
        }
        let Some(global) = self.program.global_params_var_layout() else {
            return (ABSENT, ABSENT);
        };
        let container = global
            .type_layout()
            .filter(|tl| tl.kind() == TypeKind::ConstantBuffer.to_raw())
            .and_then(|tl| tl.container_var_layout());
        match container {
            Some(c)
                if c.type_layout()
                    .is_some_and(|tl| tl.categories().contains(&SLOT)) =>
            {
                (
                    size32(global.offset(SLOT) + c.offset(SLOT)),
                    size32(global.space(SLOT) + c.space(SLOT)),
                )
            }
            _ => (
                u32::try_from(self.program.global_constant_buffer_binding()).unwrap_or(ABSENT),
                ABSENT,
            ),
        }
    }
}

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
//! Slang offers no list of a variable's modifiers: every `SlangModifierID` is probed. A
//! default value that is neither an integer nor a float (a vector, a struct) is stored as
//! [`ValueKind::None`].

use crate::compile::CompiledProgram;
use crate::BakeError;
use slangpack_format::{
    split_u64, Attribute, AttributeArg, BindingRange, Decl, DeclKind, DescriptorRange,
    DescriptorSet, EntryPointLayout, Function, Generic, HashedString, Modifier, ReflectionBuilder,
    ScalarType, SubObjectRange, Type, TypeKind, TypeLayout, ValueKind, VarLayout, Variable, ABSENT,
    UNBOUNDED,
};
use slangpack_slang::reflection::{self as ffi, CATEGORY_UNIFORM};
use std::collections::HashMap;

/// Walks `program`'s reflection into a [`ReflectionBuilder`] holding every raw table and the
/// header scalars.
///
/// The builder is returned unfinished so that later steps (the bind view) can append their
/// own tables before [`ReflectionBuilder::finish`].
///
/// # Errors
/// [`BakeError::Compile`] when Slang cannot produce the program's layout.
pub fn build_reflection(program: &CompiledProgram) -> Result<ReflectionBuilder, BakeError> {
    let layout = program.layout()?;
    let mut walk = Walk::new(ffi::Program::new(layout));

    // The declaration tree first: its root becomes decl 0, and every declaration of the main
    // module has its record (with parent and children) before anything else refers to it.
    let root_decl = program
        .module_decl()
        .map_or(ABSENT, |root| walk.decl_tree(ffi::Decl::new(root)));

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

/// The element count Slang reports for an unsized array (`T[]`).
const UNSIZED_ARRAY_LENGTH: usize = 0x7FFF_FFFF;

/// A size or offset as stored: Slang's unbounded (`~0`) and anything past `u32` become
/// [`UNBOUNDED`].
fn size32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(UNBOUNDED)
}

/// A Slang count that may be negative (unbounded or "none"): negatives become [`UNBOUNDED`].
fn count32(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(UNBOUNDED)
}

/// A Slang index that is negative when absent.
fn index32(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(ABSENT)
}

/// `len` as a record count.
fn len32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(ABSENT)
}

/// A string argument's value from what Slang reports: the literal's source text (without
/// quotes in Slang 2026.12; stripped here should a version include them), escapes not yet
/// processed. Undoes the escapes.
fn string_literal(token: &str) -> String {
    let inner = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(token);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
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

    // ---- declarations ----

    /// Registers the declaration tree under `root` (records with kind, name, parent and
    /// children, pre-order), then fills each record's payload. Returns the root's index.
    ///
    /// Declarations inside a generic get no payload: their types are unspecialized, and Slang
    /// throws (a C++ exception, which aborts the process) when asked for a size that depends
    /// on a generic parameter, e.g. the column count of `vector<T, N>`. The generic itself
    /// has its [`Generic`] record.
    fn decl_tree(&mut self, root: ffi::Decl<'a>) -> u32 {
        let mut order = Vec::new();
        let index = self.register_decl(root, ABSENT, false, &mut order);
        for (decl, i, inside_generic) in order {
            if inside_generic {
                continue;
            }
            let payload = self.decl_payload(decl);
            if let Some(mut record) = self.b.get::<Decl>(i) {
                record.payload = payload;
                self.b.set(i, record);
            }
        }
        index
    }

    fn register_decl(
        &mut self,
        decl: ffi::Decl<'a>,
        parent: u32,
        inside_generic: bool,
        order: &mut Vec<(ffi::Decl<'a>, u32, bool)>,
    ) -> u32 {
        if let Some(&i) = self.decls.get(&decl.key()) {
            return i;
        }
        let name = self.intern(decl.name());
        let index = self.b.push(Decl {
            kind: decl.kind(),
            name,
            parent,
            payload: ABSENT,
            ..Decl::default()
        });
        self.decls.insert(decl.key(), index);
        order.push((decl, index, inside_generic));
        let generic = inside_generic || decl.kind() == DeclKind::Generic.to_raw();
        let children: Vec<u32> = decl
            .children()
            .into_iter()
            .map(|child| self.register_decl(child, index, generic, order))
            .collect();
        let child_pool = self.b.push_pool(&children);
        if let Some(mut record) = self.b.get::<Decl>(index) {
            record.child_pool = child_pool;
            record.child_count = len32(children.len());
            self.b.set(index, record);
        }
        index
    }

    /// A declaration outside the main module's tree (a generic's inner declaration from an
    /// imported or core module): kind, name and parent chain; no children, and no payload
    /// (it is the unspecialized inner declaration of a generic, see [`Walk::decl_tree`]).
    fn decl(&mut self, decl: ffi::Decl<'a>) -> u32 {
        if let Some(&i) = self.decls.get(&decl.key()) {
            return i;
        }
        let name = self.intern(decl.name());
        let child_pool = self.b.push_pool(&[]);
        let index = self.b.push(Decl {
            kind: decl.kind(),
            name,
            parent: ABSENT,
            child_pool,
            child_count: 0,
            payload: ABSENT,
            ..Decl::default()
        });
        self.decls.insert(decl.key(), index);
        let parent = decl.parent().map_or(ABSENT, |p| self.decl(p));
        if let Some(mut record) = self.b.get::<Decl>(index) {
            record.parent = parent;
            self.b.set(index, record);
        }
        index
    }

    /// The record a declaration's kind points at ([`DeclKind`]'s payload table).
    fn decl_payload(&mut self, decl: ffi::Decl<'a>) -> u32 {
        match DeclKind::from_raw(decl.kind()) {
            // Enums (SLANG_DECL_KIND_ENUM = 7, not yet named by the format) declare a type too.
            DeclKind::Struct | DeclKind::Enum => self.opt_type(decl.as_type()),
            DeclKind::Func => self.opt_function(decl.as_function()),
            DeclKind::Generic => self.opt_generic(decl.as_generic()),
            DeclKind::Variable => self.opt_variable(decl.as_variable()),
            _ => ABSENT,
        }
    }

    // ---- types ----

    fn ty(&mut self, t: ffi::Type<'a>) -> u32 {
        if let Some(&i) = self.types.get(&t.key()) {
            return i;
        }
        let index = self.b.push(Type::default());
        self.types.insert(t.key(), index);

        let kind = t.kind();
        let name = self.intern(t.name());
        let full_name = self.intern(t.full_name());
        let element_type = self.opt_type(t.element_type());
        let resource_result_type = self.opt_type(t.resource_result_type());
        let fields: Vec<u32> = t.fields().into_iter().map(|f| self.variable(f)).collect();
        let field_pool = self.b.push_pool(&fields);
        let (attribute_first, attribute_count) = self.attributes(t.user_attributes());
        let generic_container = self.opt_generic(t.generic_container());
        // Asked only of the kinds that have them: on other (e.g. unspecialized) types Slang
        // may throw.
        let element_count = if kind == TypeKind::Array.to_raw() {
            // An unsized array (`T[]`) reports 0 through `getElementCount` and Slang's
            // unsized-array length 0x7FFF_FFFF through `getSpecializedElementCount`.
            match t.element_count(self.program) {
                UNSIZED_ARRAY_LENGTH | usize::MAX => UNBOUNDED,
                n => size32(n),
            }
        } else {
            0
        };
        let (row_count, column_count) = match TypeKind::from_raw(kind) {
            TypeKind::Scalar | TypeKind::Vector | TypeKind::Matrix => {
                (t.row_count(), t.column_count())
            }
            _ => (0, 0),
        };
        self.b.set(
            index,
            Type {
                kind,
                name,
                full_name,
                scalar_type: t.scalar_type(),
                row_count,
                column_count,
                element_count,
                element_type,
                resource_shape: t.resource_shape(),
                resource_access: t.resource_access(),
                resource_result_type,
                field_pool,
                field_count: len32(fields.len()),
                attribute_first,
                attribute_count,
                generic_container,
            },
        );
        index
    }

    fn type_layout(&mut self, tl: ffi::TypeLayout<'a>) -> u32 {
        if let Some(&i) = self.type_layouts.get(&tl.key()) {
            return i;
        }
        let index = self.b.push(TypeLayout::default());
        self.type_layouts.insert(tl.key(), index);
        // The explicit counter of an append/consume buffer is a variable Slang synthesizes
        // outside any module; asking for its type crashes Slang. Record it by name only,
        // before anything (its binding range's leaf variable) reaches it.
        let explicit_counter = tl.explicit_counter();
        if let Some(counter) = explicit_counter.and_then(|c| c.variable()) {
            self.name_only_variable(counter);
        }

        let type_index = self.opt_type(tl.ty());
        let categories = tl.categories();
        let category_pool = self.b.push_pool(&categories);
        let sizes: Vec<u32> = categories
            .iter()
            .flat_map(|&c| {
                [
                    size32(tl.size(c)),
                    size32(tl.stride(c)),
                    u32::try_from(tl.alignment(c)).unwrap_or(0),
                ]
            })
            .collect();
        let size_pool = self.b.push_pool(&sizes);
        let fields: Vec<u32> = tl
            .fields()
            .into_iter()
            .map(|f| self.var_layout(f))
            .collect();
        let field_pool = self.b.push_pool(&fields);
        let element_type_layout = self.opt_type_layout(tl.element_type_layout());
        let element_var_layout = self.opt_var_layout(tl.element_var_layout());
        let container_var_layout = self.opt_var_layout(tl.container_var_layout());
        let explicit_counter_var_layout = self.opt_var_layout(explicit_counter);
        let ranges = self.ranges(tl);

        self.b.set(
            index,
            TypeLayout {
                type_index,
                kind: tl.kind(),
                parameter_category: tl.parameter_category(),
                category_count: len32(categories.len()),
                category_pool,
                size_pool,
                field_pool,
                field_count: len32(fields.len()),
                element_type_layout,
                element_var_layout,
                container_var_layout,
                explicit_counter_var_layout,
                matrix_layout: tl.matrix_layout(),
                uniform_size: size32(tl.size(CATEGORY_UNIFORM)),
                uniform_stride: size32(tl.stride(CATEGORY_UNIFORM)),
                uniform_alignment: u32::try_from(tl.alignment(CATEGORY_UNIFORM)).unwrap_or(0),
                element_stride: size32(tl.element_stride(CATEGORY_UNIFORM)),
                binding_range_first: ranges.binding_range_first,
                binding_range_count: ranges.binding_range_count,
                descriptor_set_first: ranges.descriptor_set_first,
                descriptor_set_count: ranges.descriptor_set_count,
                sub_object_range_first: ranges.sub_object_range_first,
                sub_object_range_count: ranges.sub_object_range_count,
                generic_param_index: u32::try_from(tl.generic_param_index()).unwrap_or(ABSENT),
            },
        );
        index
    }

    /// Pushes `tl`'s descriptor ranges, descriptor sets, binding ranges and sub-object ranges
    /// (each contiguous), with Slang's layout-relative indices made absolute.
    fn ranges(&mut self, tl: ffi::TypeLayout<'a>) -> Ranges {
        // Resolve every referenced record first: the pushes below must not interleave with
        // records pushed by recursion.
        let binding_ranges: Vec<(i64, u32, u32, u32)> = (0..tl.binding_range_count())
            .map(|i| {
                let leaf_type_layout = self.opt_type_layout(tl.binding_range_leaf_type_layout(i));
                let leaf = tl.binding_range_leaf_variable(i);
                let leaf_variable = self.opt_variable(leaf);
                // Slang reads the format off the leaf variable and crashes without one
                // (SLANG_IMAGE_FORMAT_unknown = 0 then).
                let image_format = leaf.map_or(0, |_| tl.binding_range_image_format(i));
                (i, leaf_type_layout, leaf_variable, image_format)
            })
            .collect();
        let sub_objects: Vec<(i64, u32)> = (0..tl.sub_object_range_count())
            .map(|i| (i, self.opt_var_layout(tl.sub_object_range_offset(i))))
            .collect();

        // Descriptor ranges, set by set, then the sets.
        let mut set_firsts = Vec::new();
        let mut sets = Vec::new();
        for set in 0..tl.descriptor_set_count() {
            let ranges: Vec<DescriptorRange> = (0..tl.descriptor_set_range_count(set))
                .map(|r| DescriptorRange {
                    index_offset: count32(tl.descriptor_range_index_offset(set, r)),
                    descriptor_count: count32(tl.descriptor_range_descriptor_count(set, r)),
                    binding_type: tl.descriptor_range_type(set, r),
                    parameter_category: tl.descriptor_range_category(set, r),
                })
                .collect();
            let first = self.b.push_all(&ranges);
            set_firsts.push(first);
            sets.push(DescriptorSet {
                space_offset: count32(tl.descriptor_set_space_offset(set)),
                descriptor_range_first: first,
                descriptor_range_count: len32(ranges.len()),
            });
        }
        let descriptor_set_first = self.b.push_all(&sets);

        let binding_range_first = self.b.table_len::<BindingRange>();
        let sub_object_range_first = self.b.table_len::<SubObjectRange>();
        let mut sub_object_of_range = HashMap::new();
        let sub_object_records: Vec<SubObjectRange> = sub_objects
            .iter()
            .map(|&(i, offset_var_layout)| {
                let relative = tl.sub_object_range_binding_range_index(i);
                if let Ok(r) = u32::try_from(relative) {
                    sub_object_of_range
                        .entry(r)
                        .or_insert(sub_object_range_first + len32(i as usize));
                }
                SubObjectRange {
                    binding_range: index32(relative)
                        .checked_add(binding_range_first)
                        .unwrap_or(ABSENT),
                    space_offset: count32(tl.sub_object_range_space_offset(i)),
                    offset_var_layout,
                }
            })
            .collect();

        let binding_range_records: Vec<BindingRange> = binding_ranges
            .iter()
            .map(|&(i, leaf_type_layout, leaf_variable, image_format)| {
                let set = u32::try_from(tl.binding_range_descriptor_set_index(i)).ok();
                let first_range = u32::try_from(tl.binding_range_first_descriptor_range_index(i));
                let (descriptor_set, first_descriptor_range) = match (set, first_range) {
                    (Some(s), Ok(r)) if (s as usize) < set_firsts.len() => {
                        (descriptor_set_first + s, set_firsts[s as usize] + r)
                    }
                    (Some(s), _) if (s as usize) < set_firsts.len() => {
                        (descriptor_set_first + s, ABSENT)
                    }
                    _ => (ABSENT, ABSENT),
                };
                BindingRange {
                    binding_type: tl.binding_range_type(i),
                    binding_count: count32(tl.binding_range_binding_count(i)),
                    leaf_type_layout,
                    leaf_variable,
                    image_format,
                    is_specializable: u32::from(tl.is_binding_range_specializable(i)),
                    descriptor_set,
                    first_descriptor_range,
                    descriptor_range_count: count32(tl.binding_range_descriptor_range_count(i)),
                    sub_object_range: sub_object_of_range
                        .get(&len32(i as usize))
                        .copied()
                        .unwrap_or(ABSENT),
                }
            })
            .collect();
        let pushed = self.b.push_all(&binding_range_records);
        debug_assert_eq!(pushed, binding_range_first);
        let pushed = self.b.push_all(&sub_object_records);
        debug_assert_eq!(pushed, sub_object_range_first);

        Ranges {
            binding_range_first,
            binding_range_count: len32(binding_range_records.len()),
            descriptor_set_first,
            descriptor_set_count: len32(sets.len()),
            sub_object_range_first,
            sub_object_range_count: len32(sub_object_records.len()),
        }
    }

    // ---- variables ----

    fn variable(&mut self, v: ffi::Variable<'a>) -> u32 {
        if let Some(&i) = self.variables.get(&v.key()) {
            return i;
        }
        let index = self.b.push(Variable::default());
        self.variables.insert(v.key(), index);

        let name = self.intern(v.name());
        let ty = v.ty();
        let type_index = self.opt_type(ty);
        let (modifier_first, modifier_count) = self.modifiers(|id| v.has_modifier(id));
        let (attribute_first, attribute_count) = self.attributes(v.user_attributes());
        let (default_kind, default_lo, default_hi) = default_value(v, ty);
        let generic_container = self.opt_generic(v.generic_container());
        self.b.set(
            index,
            Variable {
                name,
                type_index,
                modifier_first,
                modifier_count,
                attribute_first,
                attribute_count,
                default_kind,
                default_lo,
                default_hi,
                generic_container,
                flags: 0,
                reserved: 0,
            },
        );
        index
    }

    /// A variable of which only the name can be asked: a generic's type parameter (Slang
    /// hands it out as a variable, but it is a type declaration) or a variable Slang
    /// synthesizes outside any module (an explicit counter).
    fn name_only_variable(&mut self, v: ffi::Variable<'a>) -> u32 {
        if let Some(&i) = self.variables.get(&v.key()) {
            return i;
        }
        let name = self.intern(v.name());
        let modifier_first = self.b.table_len::<Modifier>();
        let attribute_first = self.b.table_len::<Attribute>();
        let index = self.b.push(Variable {
            name,
            type_index: ABSENT,
            modifier_first,
            attribute_first,
            generic_container: ABSENT,
            ..Variable::default()
        });
        self.variables.insert(v.key(), index);
        index
    }

    fn var_layout(&mut self, v: ffi::VarLayout<'a>) -> u32 {
        if let Some(&i) = self.var_layouts.get(&v.key()) {
            return i;
        }
        let index = self.b.push(VarLayout::default());
        self.var_layouts.insert(v.key(), index);

        let variable_handle = v.variable();
        let variable = self.opt_variable(variable_handle);
        let name = self.intern(variable_handle.and_then(|var| var.name()));
        let type_layout_handle = v.type_layout();
        let type_layout = self.opt_type_layout(type_layout_handle);
        let categories = type_layout_handle
            .map(|tl| tl.categories())
            .unwrap_or_default();
        let category_pool = self.b.push_pool(&categories);
        let offsets: Vec<u32> = categories.iter().map(|&c| size32(v.offset(c))).collect();
        let offset_pool = self.b.push_pool(&offsets);
        let spaces: Vec<u32> = categories.iter().map(|&c| size32(v.space(c))).collect();
        let space_pool = self.b.push_pool(&spaces);
        let semantic_name = self.intern(v.semantic_name());
        let uniform_offset = if categories.contains(&CATEGORY_UNIFORM) {
            size32(v.offset(CATEGORY_UNIFORM))
        } else {
            ABSENT
        };
        self.b.set(
            index,
            VarLayout {
                variable,
                type_layout,
                name,
                category_count: len32(categories.len()),
                category_pool,
                offset_pool,
                space_pool,
                semantic_name,
                semantic_index: size32(v.semantic_index()),
                stage: v.stage(),
                image_format: v.image_format(),
                binding_index: v.binding_index(),
                binding_space: v.binding_space(),
                uniform_offset,
                flags: 0,
                reserved: 0,
            },
        );
        index
    }

    // ---- functions, generics, entry points ----

    fn function(&mut self, f: ffi::Function<'a>) -> u32 {
        if let Some(&i) = self.functions.get(&f.key()) {
            return i;
        }
        let index = self.b.push(Function::default());
        self.functions.insert(f.key(), index);

        let name = self.intern(f.name());
        let return_type = self.opt_type(f.result_type());
        let parameters: Vec<u32> = f
            .parameters()
            .into_iter()
            .map(|p| self.variable(p))
            .collect();
        let parameter_pool = self.b.push_pool(&parameters);
        let (modifier_first, modifier_count) = self.modifiers(|id| f.has_modifier(id));
        let (attribute_first, attribute_count) = self.attributes(f.user_attributes());
        let generic_container = self.opt_generic(f.generic_container());
        self.b.set(
            index,
            Function {
                name,
                return_type,
                parameter_pool,
                parameter_count: len32(parameters.len()),
                modifier_first,
                modifier_count,
                attribute_first,
                attribute_count,
                generic_container,
                flags: 0,
                reserved0: 0,
                reserved1: 0,
            },
        );
        index
    }

    /// A generic, keyed on its declaration: Slang hands out one `GenericReflection` per
    /// specialization context (`vector` once per vector type), and the record holds nothing
    /// that differs between them.
    fn generic(&mut self, g: ffi::Generic<'a>) -> u32 {
        let key = g.as_decl().map_or(g.key(), |d| d.key());
        if let Some(&i) = self.generics.get(&key) {
            return i;
        }
        let index = self.b.push(Generic::default());
        self.generics.insert(key, index);

        let name = self.intern(g.name());
        let inner_decl = g.inner_decl().map_or(ABSENT, |d| self.decl(d));
        let outer_generic = self.opt_generic(g.outer_generic());
        let type_params = g.type_parameters();
        let type_parameters: Vec<u32> = type_params
            .iter()
            .map(|&p| self.name_only_variable(p))
            .collect();
        let value_parameters: Vec<u32> = g
            .value_parameters()
            .into_iter()
            .map(|p| self.variable(p))
            .collect();
        let mut constraints = Vec::new();
        for (&param, &param_index) in type_params.iter().zip(&type_parameters) {
            for constraint in g.constraints(param) {
                let constraint_type = self.ty(constraint);
                constraints.extend([param_index, constraint_type]);
            }
        }
        let type_parameter_pool = self.b.push_pool(&type_parameters);
        let value_parameter_pool = self.b.push_pool(&value_parameters);
        let constraint_pool = self.b.push_pool(&constraints);
        self.b.set(
            index,
            Generic {
                name,
                inner_decl,
                inner_kind: g.inner_kind(),
                outer_generic,
                type_parameter_pool,
                type_parameter_count: len32(type_parameters.len()),
                value_parameter_pool,
                value_parameter_count: len32(value_parameters.len()),
                constraint_pool,
                constraint_count: len32(constraints.len() / 2),
                reserved0: 0,
                reserved1: 0,
            },
        );
        index
    }

    fn entry_point(&mut self, ep: ffi::EntryPoint<'a>) -> u32 {
        let index = self.b.push(EntryPointLayout::default());
        let name = self.intern(ep.name());
        let name_override = self.intern(ep.name_override());
        let parameters: Vec<u32> = ep
            .parameters()
            .into_iter()
            .map(|p| self.var_layout(p))
            .collect();
        let parameter_pool = self.b.push_pool(&parameters);
        let var_layout = self.opt_var_layout(ep.var_layout());
        let result_var_layout = self.opt_var_layout(ep.result_var_layout());
        let function = self.opt_function(ep.function());
        let [x, y, z] = ep.thread_group_size();
        self.b.set(
            index,
            EntryPointLayout {
                name,
                name_override,
                stage: ep.stage(),
                thread_group_size_x: u32::try_from(x).unwrap_or(UNBOUNDED),
                thread_group_size_y: u32::try_from(y).unwrap_or(UNBOUNDED),
                thread_group_size_z: u32::try_from(z).unwrap_or(UNBOUNDED),
                wave_size: u32::try_from(ep.wave_size()).unwrap_or(UNBOUNDED),
                parameter_pool,
                parameter_count: len32(parameters.len()),
                var_layout,
                result_var_layout,
                function,
                uses_any_sample_rate_input: u32::from(ep.uses_any_sample_rate_input()),
                has_default_constant_buffer: u32::from(ep.has_default_constant_buffer()),
                flags: 0,
                reserved: 0,
            },
        );
        index
    }

    // ---- attributes and modifiers ----

    /// Pushes the modifiers `has` reports (every `SlangModifierID` Slang defines is probed, as
    /// Slang offers no list) and returns (first, count).
    fn modifiers(&mut self, has: impl Fn(u32) -> bool) -> (u32, u32) {
        let found: Vec<Modifier> = (0..=ffi::MAX_MODIFIER_ID)
            .filter(|&id| has(id))
            .map(|id| Modifier { id })
            .collect();
        (self.b.push_all(&found), len32(found.len()))
    }

    /// Pushes user attributes (each one's arguments contiguous, the attributes contiguous)
    /// and returns (first, count).
    fn attributes(&mut self, attributes: Vec<ffi::UserAttribute<'a>>) -> (u32, u32) {
        let mut records = Vec::with_capacity(attributes.len());
        for attribute in attributes {
            let name = self.intern(attribute.name());
            let args: Vec<AttributeArg> = (0..attribute.argument_count())
                .map(|i| self.attribute_arg(attribute, i))
                .collect();
            let arg_first = self.b.push_all(&args);
            records.push(Attribute {
                name,
                arg_first,
                arg_count: len32(args.len()),
                reserved: 0,
            });
        }
        (self.b.push_all(&records), len32(records.len()))
    }

    fn attribute_arg(&mut self, attribute: ffi::UserAttribute<'a>, i: u32) -> AttributeArg {
        let arg_type = attribute.argument_type(i);
        let type_index = self.opt_type(arg_type);
        let is_bool = arg_type.is_some_and(|t| t.scalar_type() == ScalarType::Bool.to_raw());
        let (kind, value_lo, value_hi) = if let Some(s) = attribute.argument_string(i) {
            let string = self.b.intern(&string_literal(&s));
            (ValueKind::String, string, 0)
        } else if let Some(v) = attribute.argument_int(i) {
            let kind = if is_bool {
                ValueKind::Bool
            } else {
                ValueKind::Int
            };
            let (lo, hi) = split_u64(i64::from(v) as u64);
            (kind, lo, hi)
        } else if let Some(v) = attribute.argument_float(i) {
            let (lo, hi) = split_u64(f64::from(v).to_bits());
            (ValueKind::Float, lo, hi)
        } else {
            (ValueKind::None, 0, 0)
        };
        AttributeArg {
            kind: kind.to_raw(),
            value_lo,
            value_hi,
            type_index,
        }
    }
}

/// The first record and count of each range table a type layout owns.
struct Ranges {
    binding_range_first: u32,
    binding_range_count: u32,
    descriptor_set_first: u32,
    descriptor_set_count: u32,
    sub_object_range_first: u32,
    sub_object_range_count: u32,
}

/// A variable's default value as (kind, lo, hi), read the way its type says: floats through
/// `getDefaultValueFloat`, everything else through `getDefaultValueInt`.
fn default_value(v: ffi::Variable<'_>, ty: Option<ffi::Type<'_>>) -> (u32, u32, u32) {
    if !v.has_default_value() {
        return (ValueKind::None.to_raw(), 0, 0);
    }
    let scalar = ty.map(|t| ScalarType::from_raw(t.scalar_type()));
    let float = || {
        v.default_value_float().map(|f| {
            let (lo, hi) = split_u64(f64::from(f).to_bits());
            (ValueKind::Float.to_raw(), lo, hi)
        })
    };
    let int = |kind: ValueKind| {
        v.default_value_int().map(|i| {
            let (lo, hi) = split_u64(i as u64);
            (kind.to_raw(), lo, hi)
        })
    };
    let value = match scalar {
        Some(ScalarType::Float16 | ScalarType::Float32 | ScalarType::Float64) => {
            float().or_else(|| int(ValueKind::Int))
        }
        Some(ScalarType::Bool) => int(ValueKind::Bool),
        _ => int(ValueKind::Int).or_else(float),
    };
    value.unwrap_or((ValueKind::None.to_raw(), 0, 0))
}

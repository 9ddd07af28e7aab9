//! Reflection blob records: the blob header, its table directory, and every raw table.
//!
//! A reflection blob is a self-describing container: a [`ReflectionHeader`], a directory of
//! [`TableDirRecord`]s, then the tables. Field names follow Slang's reflection API. Index fields
//! name the table they point into; `u32::MAX` ([`crate::ABSENT`]) means absent. A `*_pool`
//! field is an offset into the `u32` pool ([`TableKind::U32Pool`]) and comes with a count.
//! Sizes that Slang reports as unbounded are stored as [`UNBOUNDED`].

use crate::records::record;
use crate::TableKind;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// The 4 bytes a reflection blob starts with.
pub const REFLECTION_MAGIC: [u8; 4] = *b"SPRF";

/// A size or count Slang reports as unbounded (`SLANG_UNBOUNDED_SIZE`), e.g. `Texture2D t[]`.
pub const UNBOUNDED: u32 = u32::MAX;

/// The element count of an array sized by a specialization constant
/// (`[[vk::constant_id(1)]] const int N = 64; groupshared float4 cache[N];`): decided when the
/// pipeline is created, not when the shader is compiled. The constant's id and default are in
/// the bind view's specialization constants.
pub const SPECIALIZED_COUNT: u32 = u32::MAX - 1;

record! {
    /// The reflection blob header (64 bytes in 1.0), holding the program-wide scalars.
    pub struct ReflectionHeader [64] {
        /// [`REFLECTION_MAGIC`].
        pub magic: [u8; 4],
        /// Size of this header in bytes (64 in 1.0); a reader reads the prefix it knows.
        pub header_size: u32,
        /// Offset of the table directory from the start of the blob; a multiple of 4.
        pub table_dir_offset: u32,
        /// Number of table directory records.
        pub table_count: u32,
        /// Size of one table directory record (16 in 1.0).
        pub table_record_size: u32,
        /// Flags; none defined in 1.0 (written 0).
        pub flags: u32,
        /// Binding of the implicit global constant buffer, or [`crate::ABSENT`].
        pub global_constant_buffer_binding: u32,
        /// Set (space) of the implicit global constant buffer, or [`crate::ABSENT`].
        pub global_constant_buffer_space: u32,
        /// Size in bytes of the implicit global constant buffer (0 when there is none).
        pub global_constant_buffer_size: u32,
        /// The bindless space index Slang reports, or [`crate::ABSENT`].
        pub bindless_space_index: u32,
        /// Var layout of the global parameters (`getGlobalParamsVarLayout`), or absent.
        pub global_params_var_layout: u32,
        /// Type layout of the global parameters (`getGlobalParamsTypeLayout`), or absent.
        pub global_params_type_layout: u32,
        /// Number of entry points in the program (as Slang counts them).
        pub entry_point_count: u32,
        /// Root decl (index into decls), or absent when the decl tree was not baked.
        pub root_decl: u32,
        /// Where the raw tables (kinds 1 to 17) begin (since 1.6): 0 when the blob is not
        /// split (every blob before 1.6); else a multiple of 8 at which every raw table lies
        /// and no other table does, and a compressed section stores the bytes before and from
        /// it as two frames, so that a reader can load the bind view without the raw tables.
        pub tables_offset: u32,
        /// Reserved, written 0.
        pub reserved1: u32,
    }
}

impl ReflectionHeader {
    /// The header of a blob with no tables: every index scalar absent, every size and count
    /// 0. The builder starts from it; the reader serves it for entries without reflection.
    pub const EMPTY: Self = Self {
        magic: REFLECTION_MAGIC,
        header_size: core::mem::size_of::<Self>() as u32,
        table_dir_offset: core::mem::size_of::<Self>() as u32,
        table_count: 0,
        table_record_size: core::mem::size_of::<TableDirRecord>() as u32,
        flags: 0,
        global_constant_buffer_binding: crate::ABSENT,
        global_constant_buffer_space: crate::ABSENT,
        global_constant_buffer_size: 0,
        bindless_space_index: crate::ABSENT,
        global_params_var_layout: crate::ABSENT,
        global_params_type_layout: crate::ABSENT,
        entry_point_count: 0,
        root_decl: crate::ABSENT,
        tables_offset: 0,
        reserved1: 0,
    };
}

record! {
    /// One record of a reflection blob's table directory (16 bytes in 1.0).
    pub struct TableDirRecord [16] {
        /// [`TableKind`] raw value; readers skip kinds they do not know.
        pub kind: u32,
        /// Offset of the first record from the start of the blob; a multiple of 4.
        pub offset: u32,
        /// Number of records.
        pub count: u32,
        /// Size of one record in bytes; at least the size this version defines (a newer minor
        /// may append fields, which older readers ignore).
        pub stride: u32,
    }
}

/// Marker for the records that fill a reflection table.
pub trait TableRecord: FromBytes + IntoBytes + KnownLayout + Immutable + Copy {
    /// The table kind holding these records.
    const KIND: TableKind;
}

record! {
    /// A type (`TypeReflection`).
    pub struct Type [64] {
        /// [`crate::TypeKind`] raw value.
        pub kind: u32,
        /// String index of the short name, or absent.
        #[refs(string)]
        pub name: u32,
        /// String index of the full name (`getFullName`), or absent.
        #[refs(string)]
        pub full_name: u32,
        /// [`crate::ScalarType`] raw value (scalars, vectors, matrices).
        pub scalar_type: u32,
        /// Row count (vectors: 1; matrices: rows).
        pub row_count: u32,
        /// Column count (vectors: element count; matrices: columns).
        pub column_count: u32,
        /// Array element count; [`UNBOUNDED`] for `T[]`; 0 when not an array.
        pub element_count: u32,
        /// Element type (arrays, vectors, matrices, buffers), index into types, or absent.
        #[refs(index Types)]
        pub element_type: u32,
        /// Full [`crate::ResourceShape`] raw value including flag bits.
        pub resource_shape: u32,
        /// [`crate::ResourceAccess`] raw value.
        pub resource_access: u32,
        /// Resource result type (`getResourceResultType`), index into types, or absent.
        #[refs(index Types)]
        pub resource_result_type: u32,
        /// u32 pool offset of the field list (indices into variables).
        #[refs(pool_indices field_count, Variables)]
        pub field_pool: u32,
        /// Number of fields.
        pub field_count: u32,
        /// First user attribute (index into attributes).
        #[refs(range Attributes, attribute_count)]
        pub attribute_first: u32,
        /// Number of user attributes.
        pub attribute_count: u32,
        /// Generic container (index into generics), or absent.
        #[refs(index Generics)]
        pub generic_container: u32,
    }
}

record! {
    /// A type layout (`TypeLayoutReflection`).
    pub struct TypeLayout [96] {
        /// The type laid out (index into types), or absent.
        #[refs(index Types)]
        pub type_index: u32,
        /// [`crate::TypeKind`] raw value.
        pub kind: u32,
        /// [`crate::ParameterCategory`] raw value (`getParameterCategory`).
        pub parameter_category: u32,
        /// Number of categories the layout occupies.
        pub category_count: u32,
        /// u32 pool offset of `category_count` [`crate::ParameterCategory`] values.
        #[refs(pool category_count, 1)]
        pub category_pool: u32,
        /// u32 pool offset of `3 * category_count` values: (size, stride, alignment) per
        /// category, parallel to `category_pool`; sizes may be [`UNBOUNDED`].
        #[refs(pool category_count, 3)]
        pub size_pool: u32,
        /// u32 pool offset of the field list (indices into var layouts).
        #[refs(pool_indices field_count, VarLayouts)]
        pub field_pool: u32,
        /// Number of fields.
        pub field_count: u32,
        /// Element type layout (arrays, buffers, blocks), index into type layouts, or absent.
        #[refs(index TypeLayouts)]
        pub element_type_layout: u32,
        /// Element var layout (`getElementVarLayout`), index into var layouts, or absent.
        #[refs(index VarLayouts)]
        pub element_var_layout: u32,
        /// Container var layout (`getContainerVarLayout`), index into var layouts, or absent.
        #[refs(index VarLayouts)]
        pub container_var_layout: u32,
        /// Explicit counter var layout (`getExplicitCounter`), or absent.
        #[refs(index VarLayouts)]
        pub explicit_counter_var_layout: u32,
        /// [`crate::MatrixLayout`] raw value.
        pub matrix_layout: u32,
        /// Size in bytes for the uniform category ([`UNBOUNDED`] allowed).
        pub uniform_size: u32,
        /// Stride in bytes for the uniform category.
        pub uniform_stride: u32,
        /// Alignment in bytes for the uniform category.
        pub uniform_alignment: u32,
        /// Element stride in bytes for the uniform category (arrays).
        pub element_stride: u32,
        /// First binding range (index into binding ranges).
        #[refs(range BindingRanges, binding_range_count)]
        pub binding_range_first: u32,
        /// Number of binding ranges.
        pub binding_range_count: u32,
        /// First descriptor set (index into descriptor sets).
        #[refs(range DescriptorSets, descriptor_set_count)]
        pub descriptor_set_first: u32,
        /// Number of descriptor sets.
        pub descriptor_set_count: u32,
        /// First sub-object range (index into sub-object ranges).
        #[refs(range SubObjectRanges, sub_object_range_count)]
        pub sub_object_range_first: u32,
        /// Number of sub-object ranges.
        pub sub_object_range_count: u32,
        /// Generic parameter index (`getGenericParamIndex`), or absent.
        pub generic_param_index: u32,
    }
}

record! {
    /// A variable (`VariableReflection`): a global, parameter or field.
    pub struct Variable [48] {
        /// String index of the name, or absent.
        #[refs(string)]
        pub name: u32,
        /// The variable's type (index into types), or absent.
        #[refs(index Types)]
        pub type_index: u32,
        /// First modifier (index into modifiers).
        #[refs(range Modifiers, modifier_count)]
        pub modifier_first: u32,
        /// Number of modifiers.
        pub modifier_count: u32,
        /// First user attribute (index into attributes).
        #[refs(range Attributes, attribute_count)]
        pub attribute_first: u32,
        /// Number of user attributes.
        pub attribute_count: u32,
        /// [`crate::ValueKind`] raw value of the default value.
        pub default_kind: u32,
        /// Default value, low 32 bits (see [`crate::ValueKind`]).
        pub default_lo: u32,
        /// Default value, high 32 bits.
        pub default_hi: u32,
        /// Generic container (index into generics), or absent.
        #[refs(index Generics)]
        pub generic_container: u32,
        /// Flags; none defined in 1.0.
        pub flags: u32,
        /// Reserved, written 0.
        pub reserved: u32,
    }
}

record! {
    /// A variable layout (`VariableLayoutReflection`).
    pub struct VarLayout [64] {
        /// The variable (index into variables), or absent.
        #[refs(index Variables)]
        pub variable: u32,
        /// The type layout (index into type layouts), or absent.
        #[refs(index TypeLayouts)]
        pub type_layout: u32,
        /// String index of the name (copied from the variable for convenience), or absent.
        #[refs(string)]
        pub name: u32,
        /// Number of categories.
        pub category_count: u32,
        /// u32 pool offset of `category_count` [`crate::ParameterCategory`] values.
        #[refs(pool category_count, 1)]
        pub category_pool: u32,
        /// u32 pool offset of one offset per category (`getOffset`).
        #[refs(pool category_count, 1)]
        pub offset_pool: u32,
        /// u32 pool offset of one binding space per category (`getBindingSpace`).
        #[refs(pool category_count, 1)]
        pub space_pool: u32,
        /// String index of the semantic name, or absent.
        #[refs(string)]
        pub semantic_name: u32,
        /// Semantic index.
        pub semantic_index: u32,
        /// [`crate::Stage`] raw value (`getStage`).
        pub stage: u32,
        /// Image format raw value (`SlangImageFormat`).
        pub image_format: u32,
        /// `getBindingIndex` (first category's offset).
        pub binding_index: u32,
        /// `getBindingSpace` (first category's space).
        pub binding_space: u32,
        /// Byte offset for the uniform category, or absent.
        pub uniform_offset: u32,
        /// Flags; none defined in 1.0.
        pub flags: u32,
        /// Reserved, written 0.
        pub reserved: u32,
    }
}

record! {
    /// A function (`FunctionReflection`).
    pub struct Function [48] {
        /// String index of the name, or absent.
        #[refs(string)]
        pub name: u32,
        /// Return type (index into types), or absent.
        #[refs(index Types)]
        pub return_type: u32,
        /// u32 pool offset of the parameter list (indices into variables).
        #[refs(pool_indices parameter_count, Variables)]
        pub parameter_pool: u32,
        /// Number of parameters.
        pub parameter_count: u32,
        /// First modifier (index into modifiers).
        #[refs(range Modifiers, modifier_count)]
        pub modifier_first: u32,
        /// Number of modifiers.
        pub modifier_count: u32,
        /// First user attribute (index into attributes).
        #[refs(range Attributes, attribute_count)]
        pub attribute_first: u32,
        /// Number of user attributes.
        pub attribute_count: u32,
        /// Generic container (index into generics), or absent.
        #[refs(index Generics)]
        pub generic_container: u32,
        /// Flags; none defined in 1.0.
        pub flags: u32,
        /// Reserved, written 0.
        pub reserved0: u32,
        /// Reserved, written 0.
        pub reserved1: u32,
    }
}

record! {
    /// A generic (`GenericReflection`).
    pub struct Generic [48] {
        /// String index of the name, or absent.
        #[refs(string)]
        pub name: u32,
        /// Inner decl (index into decls), or absent.
        #[refs(index Decls)]
        pub inner_decl: u32,
        /// [`crate::DeclKind`] raw value of the inner decl.
        pub inner_kind: u32,
        /// Outer generic container (index into generics), or absent.
        #[refs(index Generics)]
        pub outer_generic: u32,
        /// u32 pool offset of the type parameters (indices into variables).
        #[refs(pool_indices type_parameter_count, Variables)]
        pub type_parameter_pool: u32,
        /// Number of type parameters.
        pub type_parameter_count: u32,
        /// u32 pool offset of the value parameters (indices into variables).
        #[refs(pool_indices value_parameter_count, Variables)]
        pub value_parameter_pool: u32,
        /// Number of value parameters.
        pub value_parameter_count: u32,
        /// u32 pool offset of constraint pairs (type parameter variable, constraint type).
        pub constraint_pool: u32,
        /// Number of constraint pairs (the slice holds twice as many words).
        pub constraint_count: u32,
        /// Reserved, written 0.
        pub reserved0: u32,
        /// Reserved, written 0.
        pub reserved1: u32,
    }
}

record! {
    /// A declaration in the module's decl tree (`DeclReflection`).
    pub struct Decl [32] {
        /// [`crate::DeclKind`] raw value.
        pub kind: u32,
        /// String index of the name, or absent.
        #[refs(string)]
        pub name: u32,
        /// Parent decl (index into decls), or absent for the root.
        #[refs(index Decls)]
        pub parent: u32,
        /// u32 pool offset of the children (indices into decls).
        #[refs(pool_indices child_count, Decls)]
        pub child_pool: u32,
        /// Number of children.
        pub child_count: u32,
        /// Payload index; its table depends on `kind` ([`crate::DeclKind`]), or absent.
        pub payload: u32,
        /// Reserved, written 0.
        pub reserved0: u32,
        /// Reserved, written 0.
        pub reserved1: u32,
    }
}

record! {
    /// An entry point's layout (`EntryPointReflection`).
    ///
    /// The entry point's code hash is per permutation and lives in the package's
    /// [`crate::EntryPointRecord`], not here, so identical reflection is stored once.
    pub struct EntryPointLayout [64] {
        /// String index of the name.
        #[refs(string)]
        pub name: u32,
        /// String index of the name override (`getNameOverride`), or absent.
        #[refs(string)]
        pub name_override: u32,
        /// [`crate::Stage`] raw value.
        pub stage: u32,
        /// Thread-group size X.
        pub thread_group_size_x: u32,
        /// Thread-group size Y.
        pub thread_group_size_y: u32,
        /// Thread-group size Z.
        pub thread_group_size_z: u32,
        /// Wave size, 0 when not specified.
        pub wave_size: u32,
        /// u32 pool offset of the parameters (indices into var layouts).
        #[refs(pool_indices parameter_count, VarLayouts)]
        pub parameter_pool: u32,
        /// Number of parameters.
        pub parameter_count: u32,
        /// The entry point's var layout (`getVarLayout`), or absent.
        #[refs(index VarLayouts)]
        pub var_layout: u32,
        /// The result var layout (`getResultVarLayout`), or absent.
        #[refs(index VarLayouts)]
        pub result_var_layout: u32,
        /// The function (index into functions), or absent.
        #[refs(index Functions)]
        pub function: u32,
        /// 1 when the entry point uses any sample-rate input, else 0.
        pub uses_any_sample_rate_input: u32,
        /// 1 when it has a default constant buffer, else 0.
        pub has_default_constant_buffer: u32,
        /// Flags; none defined in 1.0.
        pub flags: u32,
        /// Reserved, written 0.
        pub reserved: u32,
    }
}

record! {
    /// A user attribute (`[name(args...)]`).
    pub struct Attribute [16] {
        /// String index of the name.
        #[refs(string)]
        pub name: u32,
        /// First argument (index into attribute args).
        #[refs(range AttributeArgs, arg_count)]
        pub arg_first: u32,
        /// Number of arguments.
        pub arg_count: u32,
        /// Reserved, written 0.
        pub reserved: u32,
    }
}

record! {
    /// One user-attribute argument.
    pub struct AttributeArg [16] {
        /// [`crate::ValueKind`] raw value.
        pub kind: u32,
        /// Value, low 32 bits (a string index for [`crate::ValueKind::String`]).
        pub value_lo: u32,
        /// Value, high 32 bits.
        pub value_hi: u32,
        /// Argument type (index into types), or absent.
        #[refs(index Types)]
        pub type_index: u32,
    }
}

record! {
    /// A modifier attached to a variable or function.
    pub struct Modifier [4] {
        /// [`crate::ModifierId`] raw value.
        pub id: u32,
    }
}

record! {
    /// A string with Slang's precomputed hash (`spComputeStringHash`).
    pub struct HashedString [8] {
        /// String index.
        pub string: u32,
        /// Slang's 32-bit string hash.
        pub hash: u32,
    }
}

record! {
    /// A binding range of a type layout (`getBindingRange*`).
    pub struct BindingRange [40] {
        /// [`crate::BindingType`] raw value.
        pub binding_type: u32,
        /// Number of bindings, [`UNBOUNDED`] for unbounded arrays.
        pub binding_count: u32,
        /// Leaf type layout (index into type layouts), or absent.
        #[refs(index TypeLayouts)]
        pub leaf_type_layout: u32,
        /// Leaf variable (index into variables), or absent.
        #[refs(index Variables)]
        pub leaf_variable: u32,
        /// Image format raw value (`SlangImageFormat`).
        pub image_format: u32,
        /// 1 when specializable, else 0.
        pub is_specializable: u32,
        /// Descriptor set (absolute index into descriptor sets), or absent. Slang reports it
        /// relative to the owning type layout; the writer adds that layout's first set.
        #[refs(index DescriptorSets)]
        pub descriptor_set: u32,
        /// First descriptor range (absolute index into descriptor ranges).
        #[refs(range DescriptorRanges, descriptor_range_count)]
        pub first_descriptor_range: u32,
        /// Number of descriptor ranges.
        pub descriptor_range_count: u32,
        /// Sub-object range (absolute index into sub-object ranges) of this binding range, or
        /// absent.
        #[refs(index SubObjectRanges)]
        pub sub_object_range: u32,
    }
}

record! {
    /// A descriptor set of a type layout (`getDescriptorSet*`).
    pub struct DescriptorSet [12] {
        /// Space offset (`getDescriptorSetSpaceOffset`).
        pub space_offset: u32,
        /// First descriptor range (index into descriptor ranges, absolute).
        #[refs(range DescriptorRanges, descriptor_range_count)]
        pub descriptor_range_first: u32,
        /// Number of descriptor ranges.
        pub descriptor_range_count: u32,
    }
}

record! {
    /// A descriptor range within a descriptor set (`getDescriptorSetDescriptorRange*`).
    pub struct DescriptorRange [16] {
        /// Index offset within the set.
        pub index_offset: u32,
        /// Descriptor count, [`UNBOUNDED`] for unbounded arrays.
        pub descriptor_count: u32,
        /// [`crate::BindingType`] raw value.
        pub binding_type: u32,
        /// [`crate::ParameterCategory`] raw value.
        pub parameter_category: u32,
    }
}

record! {
    /// A sub-object range (ParameterBlock, existential) of a type layout.
    pub struct SubObjectRange [12] {
        /// Binding range (absolute index into binding ranges); Slang reports it relative to the
        /// owning type layout, the writer adds that layout's first binding range.
        #[refs(index BindingRanges)]
        pub binding_range: u32,
        /// Space offset (`getSubObjectRangeSpaceOffset`).
        pub space_offset: u32,
        /// Offset var layout (`getSubObjectRangeOffset`), index into var layouts, or absent.
        #[refs(index VarLayouts)]
        pub offset_var_layout: u32,
    }
}

impl Type {
    /// The typed kind.
    #[must_use]
    pub const fn type_kind(&self) -> crate::TypeKind {
        crate::TypeKind::from_raw(self.kind)
    }
    /// The typed scalar type.
    #[must_use]
    pub const fn scalar(&self) -> crate::ScalarType {
        crate::ScalarType::from_raw(self.scalar_type)
    }
    /// The base resource shape (flags stripped).
    #[must_use]
    pub const fn shape(&self) -> crate::ResourceShape {
        crate::ResourceShape::base(self.resource_shape)
    }
    /// The typed resource access.
    #[must_use]
    pub const fn access(&self) -> crate::ResourceAccess {
        crate::ResourceAccess::from_raw(self.resource_access)
    }
}

impl TypeLayout {
    /// The typed kind.
    #[must_use]
    pub const fn type_kind(&self) -> crate::TypeKind {
        crate::TypeKind::from_raw(self.kind)
    }
    /// The typed parameter category.
    #[must_use]
    pub const fn category(&self) -> crate::ParameterCategory {
        crate::ParameterCategory::from_raw(self.parameter_category)
    }
    /// The typed matrix layout.
    #[must_use]
    pub const fn matrix_layout_mode(&self) -> crate::MatrixLayout {
        crate::MatrixLayout::from_raw(self.matrix_layout)
    }
}

impl VarLayout {
    /// The typed stage.
    #[must_use]
    pub const fn stage_kind(&self) -> crate::Stage {
        crate::Stage::from_raw(self.stage)
    }
}

impl EntryPointLayout {
    /// The typed stage.
    #[must_use]
    pub const fn stage_kind(&self) -> crate::Stage {
        crate::Stage::from_raw(self.stage)
    }
    /// Thread-group size as `[x, y, z]`.
    #[must_use]
    pub const fn thread_group_size(&self) -> [u32; 3] {
        [
            self.thread_group_size_x,
            self.thread_group_size_y,
            self.thread_group_size_z,
        ]
    }
}

impl Decl {
    /// The typed kind.
    #[must_use]
    pub const fn decl_kind(&self) -> crate::DeclKind {
        crate::DeclKind::from_raw(self.kind)
    }
}

impl Generic {
    /// The typed kind of the inner decl.
    #[must_use]
    pub const fn inner_decl_kind(&self) -> crate::DeclKind {
        crate::DeclKind::from_raw(self.inner_kind)
    }
}

impl AttributeArg {
    /// The typed value kind.
    #[must_use]
    pub const fn value_kind(&self) -> crate::ValueKind {
        crate::ValueKind::from_raw(self.kind)
    }
    /// The value's 64 bits.
    #[must_use]
    pub const fn value_bits(&self) -> u64 {
        crate::join_u64(self.value_lo, self.value_hi)
    }
}

impl Variable {
    /// The typed kind of the default value.
    #[must_use]
    pub const fn default_value_kind(&self) -> crate::ValueKind {
        crate::ValueKind::from_raw(self.default_kind)
    }
    /// The default value's 64 bits.
    #[must_use]
    pub const fn default_bits(&self) -> u64 {
        crate::join_u64(self.default_lo, self.default_hi)
    }
}

impl Modifier {
    /// The typed modifier.
    #[must_use]
    pub const fn modifier(&self) -> crate::ModifierId {
        crate::ModifierId::from_raw(self.id)
    }
}

impl BindingRange {
    /// The typed binding type.
    #[must_use]
    pub const fn binding_kind(&self) -> crate::BindingType {
        crate::BindingType::from_raw(self.binding_type)
    }
}

impl DescriptorRange {
    /// The typed binding type.
    #[must_use]
    pub const fn binding_kind(&self) -> crate::BindingType {
        crate::BindingType::from_raw(self.binding_type)
    }
    /// The typed parameter category.
    #[must_use]
    pub const fn category(&self) -> crate::ParameterCategory {
        crate::ParameterCategory::from_raw(self.parameter_category)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_header_is_what_an_empty_builder_writes() {
        let bytes = crate::ReflectionBuilder::new().finish();
        let (header, _) = ReflectionHeader::read_from_prefix(&bytes).unwrap();
        assert_eq!(header, ReflectionHeader::EMPTY);
        assert_eq!(
            crate::ReflectionScalars::default().root_decl,
            ReflectionHeader::EMPTY.root_decl
        );
    }
}

#[cfg(test)]
mod refs_tests {
    use super::*;
    use crate::{RecordLayout, RecordRefs};

    /// Reference fields a reader checks by hand: their table depends on another field (a
    /// value's kind, a decl's kind), or they are pairs, or they may not be absent.
    const BY_HAND: [(&str, &str); 7] = [
        ("Generic", "constraint_pool"),
        ("AttributeArg", "value_lo"),
        ("HashedString", "string"),
        ("Decl", "payload"),
        // Checked against the bind summary's entry-point count.
        ("VertexInput", "entry_point"),
        ("FragmentOutput", "entry_point"),
        ("ExecutionModes", "entry_point"),
    ];

    fn declared<T: RecordLayout + RecordRefs>() -> usize {
        for field in T::FIELDS {
            let doc = field.doc.to_lowercase();
            let refers = ["index into", "string index", "pool offset"]
                .iter()
                .any(|w| doc.contains(w));
            let listed = T::REFS.iter().any(|r| r.field == field.name);
            let by_hand = BY_HAND.contains(&(T::NAME, field.name));
            assert!(
                !refers || listed || by_hand,
                "{}.{}: its doc says it refers to other data, but it has no #[refs(...)]",
                T::NAME,
                field.name
            );
            assert!(
                !(listed && by_hand),
                "{}.{}: declared and listed as checked by hand",
                T::NAME,
                field.name
            );
        }
        for r in T::REFS {
            let field = T::FIELDS.iter().find(|f| f.name == r.field).unwrap();
            assert_eq!((field.offset, field.size), (r.offset, 4), "{}", r.field);
        }
        T::REFS.len()
    }

    /// Every field of the raw and bind-view tables whose documentation says it refers to
    /// another table or to the pool is declared a reference (or is one of the few checked by hand), so a reader's load checks
    /// cannot miss one.
    #[test]
    fn every_reference_field_is_declared() {
        let total = declared::<Type>()
            + declared::<TypeLayout>()
            + declared::<Variable>()
            + declared::<VarLayout>()
            + declared::<Function>()
            + declared::<Generic>()
            + declared::<Decl>()
            + declared::<EntryPointLayout>()
            + declared::<Attribute>()
            + declared::<AttributeArg>()
            + declared::<BindingRange>()
            + declared::<DescriptorSet>()
            + declared::<SubObjectRange>();
        assert_eq!(total, 61);
        use crate::bind::*;
        let bind = declared::<BindSummary>()
            + declared::<DescriptorBinding>()
            + declared::<ShaderRecordBlock>()
            + declared::<DescriptorSetLayout>()
            + declared::<PushConstantRange>()
            + declared::<BufferLayout>()
            + declared::<BufferMember>()
            + declared::<MemberAttribute>()
            + declared::<VertexInput>()
            + declared::<FragmentOutput>()
            + declared::<ExecutionModes>()
            + declared::<SpecializationConstant>()
            + declared::<ExistentialConformance>();
        assert_eq!(bind, 26);
        use crate::targets::*;
        let targets = declared::<TargetBinding>()
            + declared::<TargetBuffer>()
            + declared::<TargetMember>()
            + declared::<ArgumentBuffer>()
            + declared::<ArgumentBufferMember>()
            + declared::<NameIndexSlot>();
        assert_eq!(targets, 10);
    }
}

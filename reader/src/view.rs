//! [`ReflectionView`]: zero-copy access to one entry's reflection tables.

use crate::blob::Blob;
use crate::storage::cast;
use slangpack_format::*;
use zerocopy::{FromBytes, Immutable, KnownLayout};

/// One entry's reflection: the raw tables of SPEC.md as `&'a [Record]`, its strings and its
/// `u32` pool, plus typed helpers.
///
/// Everything was validated when the entry was loaded: every index field is in range or
/// [`ABSENT`], every pool slice fits. Accessors never fail, panic or allocate. Index with
/// `.get(i)` (an absent index, `u32::MAX`, gives `None`).
#[derive(Debug, Clone, Copy)]
pub struct ReflectionView<'a> {
    /// The blob's bytes (in the package, or decompressed).
    base: &'a [u8],
    blob: &'a Blob,
    entry_point_hash: u64,
}

macro_rules! view_tables {
    ($( $(#[$doc:meta])* $raw:literal $variant:ident $name:ident : $rec:ty; )*) => {
        $(
            $(#[$doc])*
            #[must_use]
            #[inline]
            pub fn $name(&self) -> &'a [$rec] {
                self.table($raw - 1)
            }
        )*
    };
}

impl<'a> ReflectionView<'a> {
    /// The loaded blob behind this view.
    pub(crate) fn blob(&self) -> &'a Blob {
        self.blob
    }

    pub(crate) fn new(file: &'a [u8], blob: &'a Blob, entry_point_hash: u64) -> Self {
        Self {
            base: blob.bytes.get(file),
            blob,
            entry_point_hash,
        }
    }

    #[inline]
    fn table<T: FromBytes + KnownLayout + Immutable>(&self, slot: usize) -> &'a [T] {
        cast(self.blob.table_bytes(self.base, slot))
    }

    // Every table of the format's table list (`slangpack_format::reflection_tables!`).
    slangpack_format::reflection_tables!(view_tables);

    /// The whole reflection blob as stored (decompressed): the bytes a
    /// `slangpack_format::ReflectionBuilder` produced, e.g. to copy an entry into another
    /// package. Empty for an entry without reflection.
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.base
    }

    /// Whether the view has no tables at all (an entry baked without reflection).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        (0..TABLE_KINDS).all(|k| self.blob.table_bytes(self.base, k).is_empty())
    }

    /// String `index` in O(1); `""` when `index` is [`ABSENT`] (or out of range, which
    /// validation rules out for every string field).
    #[must_use]
    pub fn string(&self, index: u32) -> &'a str {
        self.string_opt(index).unwrap_or("")
    }

    /// String `index`, or `None` when absent.
    #[must_use]
    pub fn string_opt(&self, index: u32) -> Option<&'a str> {
        let r = self.string_refs().get(index as usize)?;
        let start = r.offset as usize;
        self.blob
            .strings
            .get(start..start.saturating_add(r.len as usize))
    }

    /// The pool slice `offset..offset + count`; empty when `count` is 0 or out of range.
    #[must_use]
    pub fn pool_slice(&self, offset: u32, count: u32) -> &'a [u32] {
        let start = offset as usize;
        self.u32_pool()
            .get(start..start.saturating_add(count as usize))
            .unwrap_or(&[])
    }

    /// Slang's hash of the entry's first entry point (stored per entry, outside the blob).
    #[must_use]
    pub fn first_entry_point_hash(&self) -> u64 {
        self.entry_point_hash
    }

    /// The blob header with every program-wide scalar.
    #[must_use]
    pub fn header(&self) -> &'a ReflectionHeader {
        &self.blob.header
    }

    /// Binding of the implicit global constant buffer, if any.
    #[must_use]
    pub fn global_constant_buffer_binding(&self) -> Option<u32> {
        present(self.blob.header.global_constant_buffer_binding)
    }

    /// Set (space) of the implicit global constant buffer, if any.
    #[must_use]
    pub fn global_constant_buffer_space(&self) -> Option<u32> {
        present(self.blob.header.global_constant_buffer_space)
    }

    /// Size in bytes of the implicit global constant buffer (0 when none).
    #[must_use]
    pub fn global_constant_buffer_size(&self) -> u32 {
        self.blob.header.global_constant_buffer_size
    }

    /// The bindless space index, if any.
    #[must_use]
    pub fn bindless_space_index(&self) -> Option<u32> {
        present(self.blob.header.bindless_space_index)
    }

    /// The global parameters' var layout, if any.
    #[must_use]
    pub fn global_params_var_layout(&self) -> Option<&'a VarLayout> {
        self.var_layouts()
            .get(self.blob.header.global_params_var_layout as usize)
    }

    /// The global parameters' type layout, if any.
    #[must_use]
    pub fn global_params_type_layout(&self) -> Option<&'a TypeLayout> {
        self.type_layouts()
            .get(self.blob.header.global_params_type_layout as usize)
    }

    /// The root of the decl tree, if baked.
    #[must_use]
    pub fn root_decl(&self) -> Option<&'a Decl> {
        self.decls().get(self.blob.header.root_decl as usize)
    }

    /// The fields of a struct type layout, as var layouts.
    #[must_use]
    pub fn struct_fields(&self, layout: &TypeLayout) -> FieldIter<'a> {
        self.index_iter(layout.field_pool, layout.field_count, self.var_layouts())
    }

    /// The fields of a struct type, as variables.
    #[must_use]
    pub fn type_fields(&self, ty: &Type) -> VariableIter<'a> {
        self.index_iter(ty.field_pool, ty.field_count, self.variables())
    }

    /// The parameters of an entry point, as var layouts.
    #[must_use]
    pub fn entry_point_parameters(&self, entry_point: &EntryPointLayout) -> VarLayoutIter<'a> {
        self.index_iter(
            entry_point.parameter_pool,
            entry_point.parameter_count,
            self.var_layouts(),
        )
    }

    /// The parameters of a function, as variables.
    #[must_use]
    pub fn function_parameters(&self, function: &Function) -> VariableIter<'a> {
        self.index_iter(
            function.parameter_pool,
            function.parameter_count,
            self.variables(),
        )
    }

    /// The children of a decl.
    #[must_use]
    pub fn decl_children(&self, decl: &Decl) -> DeclIter<'a> {
        self.index_iter(decl.child_pool, decl.child_count, self.decls())
    }

    /// The parent of a decl, if any.
    #[must_use]
    pub fn decl_parent(&self, decl: &Decl) -> Option<&'a Decl> {
        self.decls().get(decl.parent as usize)
    }

    /// Per-category offset and space of a var layout.
    #[must_use]
    pub fn var_layout_offsets(&self, layout: &VarLayout) -> CategoryOffsetIter<'a> {
        let n = layout.category_count;
        CategoryOffsetIter {
            categories: self.pool_slice(layout.category_pool, n).iter(),
            offsets: self.pool_slice(layout.offset_pool, n).iter(),
            spaces: self.pool_slice(layout.space_pool, n).iter(),
        }
    }

    /// The offset of a var layout in `category`, if it occupies that category.
    #[must_use]
    pub fn var_layout_offset(
        &self,
        layout: &VarLayout,
        category: ParameterCategory,
    ) -> Option<CategoryOffset> {
        self.var_layout_offsets(layout)
            .find(|o| o.category == category)
    }

    /// Per-category size, stride and alignment of a type layout.
    #[must_use]
    pub fn type_layout_sizes(&self, layout: &TypeLayout) -> CategorySizeIter<'a> {
        let n = layout.category_count;
        let triples = self.pool_slice(layout.size_pool, n.saturating_mul(3));
        CategorySizeIter {
            categories: self.pool_slice(layout.category_pool, n).iter(),
            triples: triples.chunks_exact(3),
        }
    }

    /// The binding ranges of a type layout.
    #[must_use]
    pub fn type_layout_binding_ranges(&self, layout: &TypeLayout) -> &'a [BindingRange] {
        sub(
            self.binding_ranges(),
            layout.binding_range_first,
            layout.binding_range_count,
        )
    }

    /// The descriptor sets of a type layout.
    #[must_use]
    pub fn type_layout_descriptor_sets(&self, layout: &TypeLayout) -> &'a [DescriptorSet] {
        sub(
            self.descriptor_sets(),
            layout.descriptor_set_first,
            layout.descriptor_set_count,
        )
    }

    /// The sub-object ranges of a type layout.
    #[must_use]
    pub fn type_layout_sub_object_ranges(&self, layout: &TypeLayout) -> &'a [SubObjectRange] {
        sub(
            self.sub_object_ranges(),
            layout.sub_object_range_first,
            layout.sub_object_range_count,
        )
    }

    /// The descriptor ranges of a descriptor set.
    #[must_use]
    pub fn descriptor_set_ranges(&self, set: &DescriptorSet) -> &'a [DescriptorRange] {
        sub(
            self.descriptor_ranges(),
            set.descriptor_range_first,
            set.descriptor_range_count,
        )
    }

    /// The descriptor ranges of a binding range.
    #[must_use]
    pub fn binding_range_descriptor_ranges(&self, range: &BindingRange) -> &'a [DescriptorRange] {
        sub(
            self.descriptor_ranges(),
            range.first_descriptor_range,
            range.descriptor_range_count,
        )
    }

    /// The arguments of a user attribute.
    #[must_use]
    pub fn attribute_arguments(&self, attribute: &Attribute) -> &'a [AttributeArg] {
        sub(
            self.attribute_args(),
            attribute.arg_first,
            attribute.arg_count,
        )
    }

    /// The user attributes of a variable.
    #[must_use]
    pub fn variable_attributes(&self, variable: &Variable) -> &'a [Attribute] {
        sub(
            self.attributes(),
            variable.attribute_first,
            variable.attribute_count,
        )
    }

    /// The modifiers of a variable.
    #[must_use]
    pub fn variable_modifiers(&self, variable: &Variable) -> &'a [Modifier] {
        sub(
            self.modifiers(),
            variable.modifier_first,
            variable.modifier_count,
        )
    }

    /// The user attributes of a function.
    #[must_use]
    pub fn function_attributes(&self, function: &Function) -> &'a [Attribute] {
        sub(
            self.attributes(),
            function.attribute_first,
            function.attribute_count,
        )
    }

    /// The user attributes of a type.
    #[must_use]
    pub fn type_attributes(&self, ty: &Type) -> &'a [Attribute] {
        sub(self.attributes(), ty.attribute_first, ty.attribute_count)
    }

    fn index_iter<T>(&self, offset: u32, count: u32, table: &'a [T]) -> IndexIter<'a, T> {
        IndexIter {
            indices: self.pool_slice(offset, count).iter(),
            table,
        }
    }
}

fn present(value: u32) -> Option<u32> {
    (value != ABSENT).then_some(value)
}

fn sub<T>(table: &[T], first: u32, count: u32) -> &[T] {
    let start = first as usize;
    if count == 0 {
        return &[];
    }
    table
        .get(start..start.saturating_add(count as usize))
        .unwrap_or(&[])
}

/// Iterator over records named by a list of indices in the `u32` pool.
#[derive(Debug, Clone)]
pub struct IndexIter<'a, T> {
    indices: core::slice::Iter<'a, u32>,
    table: &'a [T],
}

impl<'a, T> Iterator for IndexIter<'a, T> {
    type Item = &'a T;
    fn next(&mut self) -> Option<&'a T> {
        // Validation guarantees every index is in range; `find_map` only guards the contract.
        let table = self.table;
        self.indices.find_map(|&i| table.get(i as usize))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.indices.size_hint().1)
    }
}

/// The fields of a struct type layout ([`ReflectionView::struct_fields`]).
pub type FieldIter<'a> = IndexIter<'a, VarLayout>;
/// Var layouts from a pool list ([`ReflectionView::entry_point_parameters`]).
pub type VarLayoutIter<'a> = IndexIter<'a, VarLayout>;
/// Variables from a pool list ([`ReflectionView::type_fields`]).
pub type VariableIter<'a> = IndexIter<'a, Variable>;
/// Decls from a pool list ([`ReflectionView::decl_children`]).
pub type DeclIter<'a> = IndexIter<'a, Decl>;

/// A var layout's offset in one category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CategoryOffset {
    /// The category.
    pub category: ParameterCategory,
    /// Offset in the category's unit (bytes for uniform, binding index for descriptor slots).
    pub offset: u32,
    /// Binding space (Vulkan set) for that category.
    pub space: u32,
}

/// Iterator over a var layout's per-category offsets ([`ReflectionView::var_layout_offsets`]).
#[derive(Debug, Clone)]
pub struct CategoryOffsetIter<'a> {
    categories: core::slice::Iter<'a, u32>,
    offsets: core::slice::Iter<'a, u32>,
    spaces: core::slice::Iter<'a, u32>,
}

impl Iterator for CategoryOffsetIter<'_> {
    type Item = CategoryOffset;
    fn next(&mut self) -> Option<CategoryOffset> {
        Some(CategoryOffset {
            category: ParameterCategory::from_raw(*self.categories.next()?),
            offset: *self.offsets.next()?,
            space: *self.spaces.next()?,
        })
    }
}

/// A type layout's size in one category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CategorySize {
    /// The category.
    pub category: ParameterCategory,
    /// Size in the category's unit; [`UNBOUNDED`] when unbounded.
    pub size: u32,
    /// Stride.
    pub stride: u32,
    /// Alignment.
    pub alignment: u32,
}

/// Iterator over a type layout's per-category sizes ([`ReflectionView::type_layout_sizes`]).
#[derive(Debug, Clone)]
pub struct CategorySizeIter<'a> {
    categories: core::slice::Iter<'a, u32>,
    triples: core::slice::ChunksExact<'a, u32>,
}

impl Iterator for CategorySizeIter<'_> {
    type Item = CategorySize;
    fn next(&mut self) -> Option<CategorySize> {
        let category = ParameterCategory::from_raw(*self.categories.next()?);
        match *self.triples.next()? {
            [size, stride, alignment] => Some(CategorySize {
                category,
                size,
                stride,
                alignment,
            }),
            _ => None,
        }
    }
}

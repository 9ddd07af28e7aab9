//! Type and type-layout records, with the range tables (descriptor ranges and sets, binding
//! and sub-object ranges) a type layout owns.

use super::values::{count32, index32, len32, size32, UNSIZED_ARRAY_LENGTH};
use super::Walk;
use slangpack_format::{
    BindingRange, DescriptorRange, DescriptorSet, SubObjectRange, Type, TypeKind, TypeLayout,
    ABSENT, SPECIALIZED_COUNT, UNBOUNDED,
};
use slangpack_slang::reflection::{self as ffi, CATEGORY_UNIFORM};
use std::collections::HashMap;

impl<'a> Walk<'a> {
    pub(super) fn ty(&mut self, t: ffi::Type<'a>) -> u32 {
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
                None => SPECIALIZED_COUNT,
                Some(UNSIZED_ARRAY_LENGTH | usize::MAX) => UNBOUNDED,
                Some(n) => size32(n),
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

    pub(super) fn type_layout(&mut self, tl: ffi::TypeLayout<'a>) -> u32 {
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
    pub(super) fn ranges(&mut self, tl: ffi::TypeLayout<'a>) -> Ranges {
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
}

/// The first record and count of each range table a type layout owns.
pub(super) struct Ranges {
    binding_range_first: u32,
    binding_range_count: u32,
    descriptor_set_first: u32,
    descriptor_set_count: u32,
    sub_object_range_first: u32,
    sub_object_range_count: u32,
}

//! Type layouts, variables and variable layouts: sizes, offsets, binding ranges, descriptor
//! sets and the categories a layout occupies.

use super::*;

impl<'a> TypeLayout<'a> {
    pub fn ty(self) -> Option<Type<'a>> {
        Type::wrap(call!(sys::spReflectionTypeLayout_GetType, self))
    }

    pub fn kind(self) -> u32 {
        call!(spReflectionTypeLayout_getKind, self)
    }

    pub fn size(self, category: u32) -> usize {
        call!(spReflectionTypeLayout_GetSize, self, category)
    }

    pub fn stride(self, category: u32) -> usize {
        call!(spReflectionTypeLayout_GetStride, self, category)
    }

    pub fn alignment(self, category: u32) -> i32 {
        call!(spReflectionTypeLayout_getAlignment, self, category)
    }

    pub fn element_stride(self, category: u32) -> usize {
        call!(spReflectionTypeLayout_GetElementStride, self, category)
    }

    pub fn fields(self) -> Vec<VarLayout<'a>> {
        let n = call!(sys::spReflectionTypeLayout_GetFieldCount, self);
        (0..n)
            .filter_map(|i| {
                VarLayout::wrap(call!(sys::spReflectionTypeLayout_GetFieldByIndex, self, i))
            })
            .collect()
    }

    pub fn explicit_counter(self) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(sys::spReflectionTypeLayout_GetExplicitCounter, self))
    }

    pub fn element_type_layout(self) -> Option<TypeLayout<'a>> {
        TypeLayout::wrap(call!(
            sys::spReflectionTypeLayout_GetElementTypeLayout,
            self
        ))
    }

    /// The layout of the concrete data Slang placed after this layout for its specialized
    /// existential (interface-typed) parts ("pending data"), if any.
    pub fn pending_data_type_layout(self) -> Option<TypeLayout<'a>> {
        TypeLayout::wrap(call!(
            sys::spReflectionTypeLayout_getPendingDataTypeLayout,
            self
        ))
    }

    /// Where the pending data of a specialized type layout sits.
    pub fn specialized_type_pending_data_var_layout(self) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(
            sys::spReflectionTypeLayout_getSpecializedTypePendingDataVarLayout,
            self
        ))
    }

    pub fn element_var_layout(self) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(sys::spReflectionTypeLayout_GetElementVarLayout, self))
    }

    pub fn container_var_layout(self) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(
            sys::spReflectionTypeLayout_getContainerVarLayout,
            self
        ))
    }

    pub fn parameter_category(self) -> u32 {
        call!(spReflectionTypeLayout_GetParameterCategory, self)
    }

    pub fn categories(self) -> Vec<u32> {
        let n = call!(sys::spReflectionTypeLayout_GetCategoryCount, self);
        (0..n)
            .map(|i| call!(spReflectionTypeLayout_GetCategoryByIndex, self, i))
            .collect()
    }

    pub fn matrix_layout(self) -> u32 {
        call!(spReflectionTypeLayout_GetMatrixLayoutMode, self)
    }

    pub fn generic_param_index(self) -> i32 {
        call!(sys::spReflectionTypeLayout_getGenericParamIndex, self)
    }

    /// Whether Slang can compute this layout's ranges (binding, descriptor-set and sub-object
    /// ranges, its "extended" layout): not when an array inside it is sized by a
    /// specialization constant, where Slang throws a C++ exception that aborts the process
    /// (see [`Type::element_count`]). The range counts below are 0 for such a layout.
    pub fn has_ranges(self) -> bool {
        !self.has_non_literal_array(16)
    }

    fn has_non_literal_array(self, depth: u32) -> bool {
        if depth == 0 {
            return false;
        }
        let array = self.ty().is_some_and(|t| {
            t.kind() == TYPE_KIND_ARRAY && t.full_name().is_some_and(|n| !literal_dimensions(&n))
        });
        array
            || self
                .fields()
                .into_iter()
                .filter_map(VarLayout::type_layout)
                .any(|f| f.has_non_literal_array(depth - 1))
            || self
                .element_type_layout()
                .is_some_and(|e| e.has_non_literal_array(depth - 1))
    }

    pub fn binding_range_count(self) -> i64 {
        if !self.has_ranges() {
            return 0;
        }
        count(call!(
            sys::spReflectionTypeLayout_getBindingRangeCount,
            self
        ))
    }

    pub fn binding_range_type(self, i: i64) -> u32 {
        call!(spReflectionTypeLayout_getBindingRangeType, self, i)
    }

    pub fn binding_range_binding_count(self, i: i64) -> i64 {
        call!(
            sys::spReflectionTypeLayout_getBindingRangeBindingCount,
            self,
            i
        )
    }

    pub fn binding_range_leaf_type_layout(self, i: i64) -> Option<TypeLayout<'a>> {
        TypeLayout::wrap(call!(
            sys::spReflectionTypeLayout_getBindingRangeLeafTypeLayout,
            self,
            i
        ))
    }

    pub fn binding_range_leaf_variable(self, i: i64) -> Option<Variable<'a>> {
        Variable::wrap(call!(
            sys::spReflectionTypeLayout_getBindingRangeLeafVariable,
            self,
            i
        ))
    }

    pub fn binding_range_image_format(self, i: i64) -> u32 {
        call!(spReflectionTypeLayout_getBindingRangeImageFormat, self, i)
    }

    pub fn is_binding_range_specializable(self, i: i64) -> bool {
        call!(
            sys::spReflectionTypeLayout_isBindingRangeSpecializable,
            self,
            i
        ) != 0
    }

    pub fn binding_range_descriptor_set_index(self, i: i64) -> i64 {
        call!(
            sys::spReflectionTypeLayout_getBindingRangeDescriptorSetIndex,
            self,
            i
        )
    }

    pub fn binding_range_first_descriptor_range_index(self, i: i64) -> i64 {
        call!(
            sys::spReflectionTypeLayout_getBindingRangeFirstDescriptorRangeIndex,
            self,
            i
        )
    }

    pub fn binding_range_descriptor_range_count(self, i: i64) -> i64 {
        count(call!(
            sys::spReflectionTypeLayout_getBindingRangeDescriptorRangeCount,
            self,
            i
        ))
    }

    pub fn descriptor_set_count(self) -> i64 {
        if !self.has_ranges() {
            return 0;
        }
        count(call!(
            sys::spReflectionTypeLayout_getDescriptorSetCount,
            self
        ))
    }

    pub fn descriptor_set_space_offset(self, set: i64) -> i64 {
        call!(
            sys::spReflectionTypeLayout_getDescriptorSetSpaceOffset,
            self,
            set
        )
    }

    pub fn descriptor_set_range_count(self, set: i64) -> i64 {
        count(call!(
            sys::spReflectionTypeLayout_getDescriptorSetDescriptorRangeCount,
            self,
            set
        ))
    }

    pub fn descriptor_range_index_offset(self, set: i64, range: i64) -> i64 {
        call!(
            sys::spReflectionTypeLayout_getDescriptorSetDescriptorRangeIndexOffset,
            self,
            set,
            range
        )
    }

    pub fn descriptor_range_descriptor_count(self, set: i64, range: i64) -> i64 {
        call!(
            sys::spReflectionTypeLayout_getDescriptorSetDescriptorRangeDescriptorCount,
            self,
            set,
            range
        )
    }

    pub fn descriptor_range_type(self, set: i64, range: i64) -> u32 {
        call!(
            spReflectionTypeLayout_getDescriptorSetDescriptorRangeType,
            self,
            set,
            range
        )
    }

    pub fn descriptor_range_category(self, set: i64, range: i64) -> u32 {
        call!(
            spReflectionTypeLayout_getDescriptorSetDescriptorRangeCategory,
            self,
            set,
            range
        )
    }

    pub fn sub_object_range_count(self) -> i64 {
        if !self.has_ranges() {
            return 0;
        }
        count(call!(
            sys::spReflectionTypeLayout_getSubObjectRangeCount,
            self
        ))
    }

    pub fn sub_object_range_binding_range_index(self, i: i64) -> i64 {
        call!(
            sys::spReflectionTypeLayout_getSubObjectRangeBindingRangeIndex,
            self,
            i
        )
    }

    pub fn sub_object_range_space_offset(self, i: i64) -> i64 {
        call!(
            sys::spReflectionTypeLayout_getSubObjectRangeSpaceOffset,
            self,
            i
        )
    }

    pub fn sub_object_range_offset(self, i: i64) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(
            sys::spReflectionTypeLayout_getSubObjectRangeOffset,
            self,
            i
        ))
    }
}

impl<'a> Variable<'a> {
    pub fn name(self) -> Option<String> {
        let ptr = call!(sys::spReflectionVariable_GetName, self);
        // SAFETY: Slang returns a string owned by the variable's name, or null.
        unsafe { c_string(ptr) }
    }

    pub fn ty(self) -> Option<Type<'a>> {
        Type::wrap(call!(sys::spReflectionVariable_GetType, self))
    }

    pub fn has_modifier(self, id: u32) -> bool {
        !call!(spReflectionVariable_FindModifier, self, id).is_null()
    }

    pub fn user_attributes(self) -> Vec<UserAttribute<'a>> {
        let n = call!(sys::spReflectionVariable_GetUserAttributeCount, self);
        (0..n)
            .filter_map(|i| {
                UserAttribute::wrap(call!(sys::spReflectionVariable_GetUserAttribute, self, i))
            })
            .collect()
    }

    pub fn has_default_value(self) -> bool {
        call!(sys::spReflectionVariable_HasDefaultValue, self)
    }

    pub fn default_value_int(self) -> Option<i64> {
        let mut value = 0i64;
        let code = call!(
            sys::spReflectionVariable_GetDefaultValueInt,
            self,
            &mut value
        );
        (code >= 0).then_some(value)
    }

    pub fn default_value_float(self) -> Option<f32> {
        let mut value = 0f32;
        let code = call!(
            sys::spReflectionVariable_GetDefaultValueFloat,
            self,
            &mut value
        );
        (code >= 0).then_some(value)
    }

    pub fn generic_container(self) -> Option<Generic<'a>> {
        Generic::wrap(call!(sys::spReflectionVariable_GetGenericContainer, self))
    }
}

impl<'a> VarLayout<'a> {
    /// Where the pending data of this variable's specialized existential parts sits.
    pub fn pending_data_layout(self) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(
            sys::spReflectionVariableLayout_getPendingDataLayout,
            self
        ))
    }

    pub fn variable(self) -> Option<Variable<'a>> {
        Variable::wrap(call!(sys::spReflectionVariableLayout_GetVariable, self))
    }

    pub fn type_layout(self) -> Option<TypeLayout<'a>> {
        TypeLayout::wrap(call!(sys::spReflectionVariableLayout_GetTypeLayout, self))
    }

    pub fn offset(self, category: u32) -> usize {
        call!(spReflectionVariableLayout_GetOffset, self, category)
    }

    pub fn space(self, category: u32) -> usize {
        call!(spReflectionVariableLayout_GetSpace, self, category)
    }

    pub fn image_format(self) -> u32 {
        call!(spReflectionVariableLayout_GetImageFormat, self)
    }

    pub fn semantic_name(self) -> Option<String> {
        let ptr = call!(sys::spReflectionVariableLayout_GetSemanticName, self);
        // SAFETY: Slang returns a string owned by the layout, or null.
        unsafe { c_string(ptr) }
    }

    pub fn semantic_index(self) -> usize {
        call!(sys::spReflectionVariableLayout_GetSemanticIndex, self)
    }

    pub fn stage(self) -> u32 {
        call!(spReflectionVariableLayout_getStage, self)
    }

    pub fn binding_index(self) -> u32 {
        call!(sys::spReflectionParameter_GetBindingIndex, self)
    }

    pub fn binding_space(self) -> u32 {
        call!(sys::spReflectionParameter_GetBindingSpace, self)
    }
}

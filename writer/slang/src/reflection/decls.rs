//! Functions, generics, declarations, entry points and user attributes.

use super::*;

impl<'a> Function<'a> {
    pub fn name(self) -> Option<String> {
        let ptr = call!(sys::spReflectionFunction_GetName, self);
        // SAFETY: Slang returns a string owned by the function's name, or null.
        unsafe { c_string(ptr) }
    }

    pub fn result_type(self) -> Option<Type<'a>> {
        Type::wrap(call!(sys::spReflectionFunction_GetResultType, self))
    }

    pub fn parameters(self) -> Vec<Variable<'a>> {
        let n = call!(sys::spReflectionFunction_GetParameterCount, self);
        (0..n)
            .filter_map(|i| Variable::wrap(call!(sys::spReflectionFunction_GetParameter, self, i)))
            .collect()
    }

    pub fn has_modifier(self, id: u32) -> bool {
        !call!(spReflectionFunction_FindModifier, self, id).is_null()
    }

    pub fn user_attributes(self) -> Vec<UserAttribute<'a>> {
        let n = call!(sys::spReflectionFunction_GetUserAttributeCount, self);
        (0..n)
            .filter_map(|i| {
                UserAttribute::wrap(call!(sys::spReflectionFunction_GetUserAttribute, self, i))
            })
            .collect()
    }

    pub fn generic_container(self) -> Option<Generic<'a>> {
        Generic::wrap(call!(sys::spReflectionFunction_GetGenericContainer, self))
    }
}

impl<'a> Generic<'a> {
    pub fn name(self) -> Option<String> {
        let ptr = call!(sys::spReflectionGeneric_GetName, self);
        // SAFETY: Slang returns a string owned by the generic's name, or null.
        unsafe { c_string(ptr) }
    }

    pub fn type_parameters(self) -> Vec<Variable<'a>> {
        let n = call!(sys::spReflectionGeneric_GetTypeParameterCount, self);
        (0..n)
            .filter_map(|i| {
                Variable::wrap(call!(sys::spReflectionGeneric_GetTypeParameter, self, i))
            })
            .collect()
    }

    pub fn value_parameters(self) -> Vec<Variable<'a>> {
        let n = call!(sys::spReflectionGeneric_GetValueParameterCount, self);
        (0..n)
            .filter_map(|i| {
                Variable::wrap(call!(sys::spReflectionGeneric_GetValueParameter, self, i))
            })
            .collect()
    }

    /// The constraint types of type parameter `param` (one of [`Generic::type_parameters`]).
    pub fn constraints(self, param: Variable<'a>) -> Vec<Type<'a>> {
        let n = call!(
            sys::spReflectionGeneric_GetTypeParameterConstraintCount,
            self,
            param.raw()
        );
        (0..n)
            .filter_map(|i| {
                Type::wrap(call!(
                    sys::spReflectionGeneric_GetTypeParameterConstraintType,
                    self,
                    param.raw(),
                    i
                ))
            })
            .collect()
    }

    pub fn inner_kind(self) -> u32 {
        call!(spReflectionGeneric_GetInnerKind, self)
    }

    pub fn inner_decl(self) -> Option<Decl<'a>> {
        Decl::wrap(call!(sys::spReflectionGeneric_GetInnerDecl, self))
    }

    /// The generic's declaration (one per declaration, however specialized the generic is).
    pub fn as_decl(self) -> Option<Decl<'a>> {
        Decl::wrap(call!(sys::spReflectionGeneric_asDecl, self))
    }

    pub fn outer_generic(self) -> Option<Generic<'a>> {
        Generic::wrap(call!(
            sys::spReflectionGeneric_GetOuterGenericContainer,
            self
        ))
    }
}

impl<'a> Decl<'a> {
    pub fn name(self) -> Option<String> {
        let ptr = call!(sys::spReflectionDecl_getName, self);
        // SAFETY: Slang returns a string owned by the decl's name, or null.
        unsafe { c_string(ptr) }
    }

    pub fn kind(self) -> u32 {
        call!(spReflectionDecl_getKind, self)
    }

    pub fn children(self) -> Vec<Decl<'a>> {
        let n = call!(sys::spReflectionDecl_getChildrenCount, self);
        (0..n)
            .filter_map(|i| Decl::wrap(call!(sys::spReflectionDecl_getChild, self, i)))
            .collect()
    }

    pub fn parent(self) -> Option<Decl<'a>> {
        Decl::wrap(call!(sys::spReflectionDecl_getParent, self))
    }

    pub fn as_function(self) -> Option<Function<'a>> {
        Function::wrap(call!(sys::spReflectionDecl_castToFunction, self))
    }

    pub fn as_variable(self) -> Option<Variable<'a>> {
        Variable::wrap(call!(sys::spReflectionDecl_castToVariable, self))
    }

    pub fn as_generic(self) -> Option<Generic<'a>> {
        Generic::wrap(call!(sys::spReflectionDecl_castToGeneric, self))
    }

    /// The type a struct (or enum) declaration declares.
    pub fn as_type(self) -> Option<Type<'a>> {
        Type::wrap(call!(sys::spReflection_getTypeFromDecl, self))
    }
}

impl<'a> EntryPoint<'a> {
    pub fn name(self) -> Option<String> {
        let ptr = call!(sys::spReflectionEntryPoint_getName, self);
        // SAFETY: Slang returns a string owned by the entry point, or null.
        unsafe { c_string(ptr) }
    }

    pub fn name_override(self) -> Option<String> {
        let ptr = call!(sys::spReflectionEntryPoint_getNameOverride, self);
        // SAFETY: as in `name`.
        unsafe { c_string(ptr) }
    }

    pub fn function(self) -> Option<Function<'a>> {
        Function::wrap(call!(sys::spReflectionEntryPoint_getFunction, self))
    }

    pub fn parameters(self) -> Vec<VarLayout<'a>> {
        let n = call!(sys::spReflectionEntryPoint_getParameterCount, self);
        (0..n)
            .filter_map(|i| {
                VarLayout::wrap(call!(
                    sys::spReflectionEntryPoint_getParameterByIndex,
                    self,
                    i
                ))
            })
            .collect()
    }

    pub fn stage(self) -> u32 {
        call!(spReflectionEntryPoint_getStage, self)
    }

    pub fn thread_group_size(self) -> [u64; 3] {
        let mut size = [0u64; 3];
        call!(
            sys::spReflectionEntryPoint_getComputeThreadGroupSize,
            self,
            3,
            size.as_mut_ptr()
        );
        size
    }

    pub fn wave_size(self) -> u64 {
        let mut size = 0u64;
        call!(
            sys::spReflectionEntryPoint_getComputeWaveSize,
            self,
            &mut size
        );
        size
    }

    pub fn uses_any_sample_rate_input(self) -> bool {
        call!(sys::spReflectionEntryPoint_usesAnySampleRateInput, self) != 0
    }

    pub fn var_layout(self) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(sys::spReflectionEntryPoint_getVarLayout, self))
    }

    pub fn result_var_layout(self) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(sys::spReflectionEntryPoint_getResultVarLayout, self))
    }

    pub fn has_default_constant_buffer(self) -> bool {
        call!(sys::spReflectionEntryPoint_hasDefaultConstantBuffer, self) != 0
    }
}

impl<'a> UserAttribute<'a> {
    pub fn name(self) -> Option<String> {
        let ptr = call!(sys::spReflectionUserAttribute_GetName, self);
        // SAFETY: Slang returns a string owned by the attribute, or null.
        unsafe { c_string(ptr) }
    }

    pub fn argument_count(self) -> u32 {
        call!(sys::spReflectionUserAttribute_GetArgumentCount, self)
    }

    pub fn argument_type(self, i: u32) -> Option<Type<'a>> {
        Type::wrap(call!(
            sys::spReflectionUserAttribute_GetArgumentType,
            self,
            i
        ))
    }

    pub fn argument_int(self, i: u32) -> Option<i32> {
        let mut value: c_int = 0;
        let code = call!(
            sys::spReflectionUserAttribute_GetArgumentValueInt,
            self,
            i,
            &mut value
        );
        (code >= 0).then_some(value)
    }

    pub fn argument_float(self, i: u32) -> Option<f32> {
        let mut value = 0f32;
        let code = call!(
            sys::spReflectionUserAttribute_GetArgumentValueFloat,
            self,
            i,
            &mut value
        );
        (code >= 0).then_some(value)
    }

    /// A string argument as Slang reports it (the literal's token text).
    pub fn argument_string(self, i: u32) -> Option<String> {
        let mut len = 0usize;
        let ptr = call!(
            sys::spReflectionUserAttribute_GetArgumentValueString,
            self,
            i,
            &mut len
        );
        // SAFETY: Slang returns `len` bytes owned by the attribute's syntax, or null.
        unsafe { sized_string(ptr, len) }
    }
}

//! Null-checked, copyable views of Slang's reflection C API (`spReflection*`), used by
//! the writer's reflection walk.
//!
//! `shader-slang` 0.1.0 wraps these calls too, but its wrappers turn possibly-null pointers
//! into references and unwrap C strings, and bindgen declares Slang's C enums as Rust enums,
//! so a value Slang returns that the enum does not list (`SlangResourceShape` flag
//! combinations such as `Sampler2D`'s `0x102`, a mutable `SlangBindingType`) would be
//! undefined behaviour. Here every pointer comes back as an `Option`, every string is copied
//! out (lossily) and every enum crosses as its raw `u32`: the calls that take or return a Slang
//! enum are declared below with their integral types, which is ABI-identical (Slang's enums
//! are declared over `unsigned int` / `uint32_t` integral typedefs).
//!
//! Soundness rests on one fact: every handle holds a non-null pointer that Slang returned from
//! a reflection object reachable from a program layout (or module) borrowed for `'a`; Slang
//! keeps all of those alive as long as the program layout (and its session) lives. Handles are
//! only created inside this module, from such pointers.
#![allow(
    unsafe_code,
    reason = "FFI to Slang's reflection C API; each block has a SAFETY note"
)]
#![allow(
    missing_docs,
    reason = "the accessors mirror Slang's reflection C API one to one: each undocumented method is \
              the `spReflection*` function its body calls, under that function's name in snake \
              case, and Slang's documentation of the function applies"
)]

use shader_slang as slang;
use shader_slang_sys as sys;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::marker::PhantomData;
use std::ptr::NonNull;

/// `SLANG_TYPE_KIND_ARRAY`.
const TYPE_KIND_ARRAY: u32 = 2;
/// `SLANG_PARAMETER_CATEGORY_UNIFORM`.
pub const CATEGORY_UNIFORM: u32 = 8;
/// `SLANG_PARAMETER_CATEGORY_DESCRIPTOR_TABLE_SLOT`.
pub const CATEGORY_DESCRIPTOR_TABLE_SLOT: u32 = 9;
/// The highest `SlangModifierID` Slang 2026.12 defines (`SLANG_MODIFIER_INOUT`).
pub const MAX_MODIFIER_ID: u32 = 10;

// The calls whose parameters or results are Slang enums, declared with the enums' integral
// types (see the module docs). The symbols come from the Slang library `shader-slang-sys`
// links.
extern "C" {
    fn spReflectionType_GetKind(t: *mut sys::SlangReflectionType) -> u32;
    fn spReflectionType_GetScalarType(t: *mut sys::SlangReflectionType) -> u32;
    fn spReflectionType_GetResourceShape(t: *mut sys::SlangReflectionType) -> u32;
    fn spReflectionType_GetResourceAccess(t: *mut sys::SlangReflectionType) -> u32;
    fn spReflectionTypeLayout_getKind(t: *mut sys::SlangReflectionTypeLayout) -> u32;
    fn spReflectionTypeLayout_GetSize(t: *mut sys::SlangReflectionTypeLayout, c: u32) -> usize;
    fn spReflectionTypeLayout_GetStride(t: *mut sys::SlangReflectionTypeLayout, c: u32) -> usize;
    fn spReflectionTypeLayout_getAlignment(t: *mut sys::SlangReflectionTypeLayout, c: u32) -> i32;
    fn spReflectionTypeLayout_GetElementStride(
        t: *mut sys::SlangReflectionTypeLayout,
        c: u32,
    ) -> usize;
    fn spReflectionTypeLayout_GetParameterCategory(t: *mut sys::SlangReflectionTypeLayout) -> u32;
    fn spReflectionTypeLayout_GetCategoryByIndex(
        t: *mut sys::SlangReflectionTypeLayout,
        index: c_uint,
    ) -> u32;
    fn spReflectionTypeLayout_GetMatrixLayoutMode(t: *mut sys::SlangReflectionTypeLayout) -> u32;
    fn spReflectionTypeLayout_getBindingRangeType(
        t: *mut sys::SlangReflectionTypeLayout,
        index: sys::SlangInt,
    ) -> u32;
    fn spReflectionTypeLayout_getBindingRangeImageFormat(
        t: *mut sys::SlangReflectionTypeLayout,
        index: sys::SlangInt,
    ) -> u32;
    fn spReflectionTypeLayout_getDescriptorSetDescriptorRangeType(
        t: *mut sys::SlangReflectionTypeLayout,
        set: sys::SlangInt,
        range: sys::SlangInt,
    ) -> u32;
    fn spReflectionTypeLayout_getDescriptorSetDescriptorRangeCategory(
        t: *mut sys::SlangReflectionTypeLayout,
        set: sys::SlangInt,
        range: sys::SlangInt,
    ) -> u32;
    fn spReflectionVariableLayout_GetOffset(
        v: *mut sys::SlangReflectionVariableLayout,
        c: u32,
    ) -> usize;
    fn spReflectionVariableLayout_GetSpace(
        v: *mut sys::SlangReflectionVariableLayout,
        c: u32,
    ) -> usize;
    fn spReflectionVariableLayout_GetImageFormat(v: *mut sys::SlangReflectionVariableLayout)
        -> u32;
    fn spReflectionVariableLayout_getStage(v: *mut sys::SlangReflectionVariableLayout) -> u32;
    fn spReflectionVariable_FindModifier(
        v: *mut sys::SlangReflectionVariable,
        id: u32,
    ) -> *mut sys::SlangReflectionModifier;
    fn spReflectionFunction_FindModifier(
        f: *mut sys::SlangReflectionFunction,
        id: u32,
    ) -> *mut sys::SlangReflectionModifier;
    fn spReflectionDecl_getKind(d: *mut sys::SlangReflectionDecl) -> u32;
    fn spReflectionGeneric_GetInnerKind(g: *mut sys::SlangReflectionGeneric) -> u32;
    fn spReflectionEntryPoint_getStage(e: *mut sys::SlangReflectionEntryPoint) -> u32;
}

macro_rules! handle {
    ($(#[$meta:meta])* $name:ident => $raw:ty) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name<'a>(NonNull<$raw>, PhantomData<&'a ()>);

        #[allow(dead_code, reason = "not every handle kind uses every helper")]
        impl<'a> $name<'a> {
            /// Wraps a pointer Slang returned from a reflection object living for `'a`.
            fn wrap(ptr: *mut $raw) -> Option<Self> {
                NonNull::new(ptr).map(|p| Self(p, PhantomData))
            }

            fn raw(self) -> *mut $raw {
                self.0.as_ptr()
            }

            /// Slang's identity of the object (its address), for deduplication.
            pub fn key(self) -> usize {
                self.0.as_ptr() as usize
            }
        }
    };
}

handle!(/** A program layout (`ProgramLayout`). */ Program => sys::SlangReflection);
handle!(/** A type (`TypeReflection`). */ Type => sys::SlangReflectionType);
handle!(/** A type layout (`TypeLayoutReflection`). */ TypeLayout => sys::SlangReflectionTypeLayout);
handle!(/** A variable (`VariableReflection`). */ Variable => sys::SlangReflectionVariable);
handle!(/** A variable layout (`VariableLayoutReflection`). */ VarLayout => sys::SlangReflectionVariableLayout);
handle!(/** A function (`FunctionReflection`). */ Function => sys::SlangReflectionFunction);
handle!(/** A generic (`GenericReflection`). */ Generic => sys::SlangReflectionGeneric);
handle!(/** A declaration (`DeclReflection`). */ Decl => sys::SlangReflectionDecl);
handle!(/** An entry point's layout (`EntryPointReflection`). */ EntryPoint => sys::SlangReflectionEntryPoint);
handle!(/** A user attribute (`UserAttribute`). */ UserAttribute => sys::SlangReflectionUserAttribute);

/// Copies a NUL-terminated C string; `None` for null.
///
/// # Safety
/// `ptr` must be null or point at a NUL-terminated string valid for the call.
unsafe fn c_string(ptr: *const c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null, and NUL-terminated and live per the caller.
    let s = unsafe { CStr::from_ptr(ptr) };
    Some(s.to_string_lossy().into_owned())
}

/// Copies `len` bytes at `ptr` as a string; `None` for null.
///
/// # Safety
/// `ptr` must be null or point at `len` readable bytes.
unsafe fn sized_string(ptr: *const c_char, len: usize) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// Reads and releases an `ISlangBlob` as text; `None` for null.
///
/// # Safety
/// `blob` must be null or an `ISlangBlob*` whose reference the caller owns.
unsafe fn blob_text(blob: *mut sys::ISlangBlob) -> Option<String> {
    let blob = NonNull::new(blob.cast::<c_void>())?;
    // SAFETY: a COM object's first word points at its vtable; an ISlangBlob's vtable starts
    // with IUnknown's and continues with getBufferPointer/getBufferSize (`IBlobVtable`). We
    // copy the bytes out, then release the one reference we own.
    unsafe {
        let vtable = &**(blob.as_ptr() as *const *const sys::IBlobVtable);
        let ptr = (vtable.getBufferPointer)(blob.as_ptr()).cast::<u8>();
        let len = (vtable.getBufferSize)(blob.as_ptr());
        let text = if ptr.is_null() {
            String::new()
        } else {
            let bytes = std::slice::from_raw_parts(ptr, len);
            // Slang's name blobs may carry a terminating NUL.
            let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
            String::from_utf8_lossy(bytes).into_owned()
        };
        let unknown = &**(blob.as_ptr() as *const *const sys::ISlangUnknown__bindgen_vtable);
        (unknown.ISlangUnknown_release)(blob.as_ptr().cast());
        Some(text)
    }
}

/// Calls a `spReflection*` function on a handle. Every function passed here only reads the
/// live reflection object the handle points at (see the module docs).
macro_rules! call {
    ($f:path, $h:expr $(, $arg:expr)*) => {
        // SAFETY: `$h` is a live, non-null reflection object of the right kind (handles are
        // only made from pointers Slang returned for that kind); the call only reads it.
        unsafe { $f($h.raw() $(, $arg)*) }
    };
}

fn count(n: sys::SlangInt) -> i64 {
    n.max(0)
}

impl<'a> Program<'a> {
    /// Views a program layout from `shader-slang`.
    pub fn new(layout: &'a slang::reflection::Shader) -> Program<'a> {
        Program(NonNull::from(layout).cast(), PhantomData)
    }

    pub fn parameter_count(self) -> u32 {
        call!(sys::spReflection_GetParameterCount, self)
    }

    pub fn parameter(self, index: u32) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(sys::spReflection_GetParameterByIndex, self, index))
    }

    pub fn entry_point_count(self) -> u64 {
        call!(sys::spReflection_getEntryPointCount, self)
    }

    pub fn entry_point(self, index: u64) -> Option<EntryPoint<'a>> {
        EntryPoint::wrap(call!(sys::spReflection_getEntryPointByIndex, self, index))
    }

    pub fn global_constant_buffer_binding(self) -> u64 {
        call!(sys::spReflection_getGlobalConstantBufferBinding, self)
    }

    pub fn global_constant_buffer_size(self) -> usize {
        call!(sys::spReflection_getGlobalConstantBufferSize, self)
    }

    pub fn bindless_space_index(self) -> i64 {
        call!(sys::spReflection_getBindlessSpaceIndex, self)
    }

    pub fn global_params_var_layout(self) -> Option<VarLayout<'a>> {
        VarLayout::wrap(call!(sys::spReflection_getGlobalParamsVarLayout, self))
    }

    pub fn type_parameter_count(self) -> u32 {
        call!(sys::spReflection_GetTypeParameterCount, self)
    }

    /// The type named `name` in the program (`None` when there is none, or the name holds a
    /// NUL byte).
    pub fn find_type_by_name(self, name: &str) -> Option<Type<'a>> {
        let name = std::ffi::CString::new(name).ok()?;
        Type::wrap(call!(sys::spReflection_FindTypeByName, self, name.as_ptr()))
    }

    /// The layout of `ty` as a constant buffer's contents, under the target's rules.
    pub fn type_layout_of(self, ty: Type<'a>) -> Option<TypeLayout<'a>> {
        TypeLayout::wrap(call!(
            sys::spReflection_GetTypeLayout,
            self,
            ty.raw(),
            sys::SlangLayoutRules::DefaultConstantBuffer
        ))
    }

    pub fn global_params_type_layout(self) -> Option<TypeLayout<'a>> {
        TypeLayout::wrap(call!(sys::spReflection_getGlobalParamsTypeLayout, self))
    }

    /// The strings Slang hashed for `getStringHash`, in Slang's order.
    pub fn hashed_strings(self) -> Vec<String> {
        let n = call!(sys::spReflection_getHashedStringCount, self);
        (0..n)
            .filter_map(|i| {
                let mut len = 0usize;
                let ptr = call!(sys::spReflection_getHashedString, self, i, &mut len);
                // SAFETY: Slang returns `len` bytes owned by the program layout, or null.
                unsafe { sized_string(ptr, len) }
            })
            .collect()
    }
}

impl<'a> Type<'a> {
    pub fn kind(self) -> u32 {
        call!(spReflectionType_GetKind, self)
    }

    pub fn name(self) -> Option<String> {
        let ptr = call!(sys::spReflectionType_GetName, self);
        // SAFETY: Slang returns a string owned by the type's name, or null.
        unsafe { c_string(ptr) }
    }

    pub fn full_name(self) -> Option<String> {
        let mut blob = std::ptr::null_mut();
        let code = call!(sys::spReflectionType_GetFullName, self, &mut blob);
        // SAFETY: on any result, a non-null blob is a new reference we own.
        let text = unsafe { blob_text(blob) };
        if code < 0 {
            None
        } else {
            text
        }
    }

    pub fn scalar_type(self) -> u32 {
        call!(spReflectionType_GetScalarType, self)
    }

    pub fn row_count(self) -> u32 {
        call!(sys::spReflectionType_GetRowCount, self)
    }

    pub fn column_count(self) -> u32 {
        call!(sys::spReflectionType_GetColumnCount, self)
    }

    /// Array element count with link-time constants resolved against `program`; `None` when
    /// the count is not a literal (an array sized by a specialization constant,
    /// `groupshared float4 cache[N]`).
    ///
    /// Slang answers the count of such an array by throwing a C++ exception from `getIntVal`
    /// (through `getElementCount` and `getSpecializedElementCount` alike), which no caller can
    /// catch: the process aborts. So the count is asked only of arrays whose full name
    /// (`vector<float,4>[64]`, `float[]`) shows literal or unsized dimensions.
    pub fn element_count(self, program: Program<'a>) -> Option<usize> {
        if self.full_name().is_some_and(|n| !literal_dimensions(&n)) {
            return None;
        }
        Some(call!(
            sys::spReflectionType_GetSpecializedElementCount,
            self,
            program.raw()
        ))
    }

    pub fn element_type(self) -> Option<Type<'a>> {
        Type::wrap(call!(sys::spReflectionType_GetElementType, self))
    }

    pub fn resource_shape(self) -> u32 {
        call!(spReflectionType_GetResourceShape, self)
    }

    pub fn resource_access(self) -> u32 {
        call!(spReflectionType_GetResourceAccess, self)
    }

    pub fn resource_result_type(self) -> Option<Type<'a>> {
        Type::wrap(call!(sys::spReflectionType_GetResourceResultType, self))
    }

    pub fn fields(self) -> Vec<Variable<'a>> {
        let n = call!(sys::spReflectionType_GetFieldCount, self);
        (0..n)
            .filter_map(|i| Variable::wrap(call!(sys::spReflectionType_GetFieldByIndex, self, i)))
            .collect()
    }

    pub fn user_attributes(self) -> Vec<UserAttribute<'a>> {
        let n = call!(sys::spReflectionType_GetUserAttributeCount, self);
        (0..n)
            .filter_map(|i| {
                UserAttribute::wrap(call!(sys::spReflectionType_GetUserAttribute, self, i))
            })
            .collect()
    }

    pub fn generic_container(self) -> Option<Generic<'a>> {
        Generic::wrap(call!(sys::spReflectionType_GetGenericContainer, self))
    }
}

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
    /// Views a module's declaration tree root from `shader-slang`.
    pub fn new(decl: &'a slang::reflection::Decl) -> Decl<'a> {
        Decl(NonNull::from(decl).cast(), PhantomData)
    }

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

/// Whether every bracketed dimension of the type name `name` is a decimal literal or empty
/// (unsized). A name such as `N` stands for a constant Slang cannot evaluate at reflection
/// time.
fn literal_dimensions(name: &str) -> bool {
    name.split('[').skip(1).all(|rest| {
        let dimension = rest.split(']').next().unwrap_or_default().trim();
        dimension.bytes().all(|b| b.is_ascii_digit())
    })
}

#[cfg(test)]
mod dimension_tests {
    use super::literal_dimensions;

    #[test]
    fn only_literal_and_unsized_dimensions_are_asked_for() {
        assert!(literal_dimensions("vector<float,4>[64]"));
        assert!(literal_dimensions("Texture2D<vector<float,4>>[]"));
        assert!(literal_dimensions("float[2][3]"));
        assert!(literal_dimensions("float"));
        assert!(!literal_dimensions("vector<float,4>[N]"));
        assert!(!literal_dimensions("float[4][N]"));
        assert!(!literal_dimensions("float[N + 1]"));
    }
}

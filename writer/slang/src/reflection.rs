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
            pub(crate) fn wrap(ptr: *mut $raw) -> Option<Self> {
                NonNull::new(ptr).map(|p| Self(p, PhantomData))
            }

            pub(crate) fn raw(self) -> *mut $raw {
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

mod decls;
mod layout;

fn count(n: sys::SlangInt) -> i64 {
    n.max(0)
}

impl<'a> Program<'a> {
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

    /// Whether `sub` conforms to (is a subtype of) `sup`, e.g. a struct to an interface.
    pub fn is_sub_type(self, sub: Type<'a>, sup: Type<'a>) -> bool {
        call!(sys::spReflection_isSubType, self, sub.raw(), sup.raw())
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

    /// The type arguments of a specialized generic type (`ConstantBuffer<T>` of
    /// `DescriptorHandle<ConstantBuffer<T>>`), in order; empty for a type that is none.
    pub fn specialized_type_args(self) -> Vec<Type<'a>> {
        let n = call!(sys::spReflectionType_getSpecializedTypeArgCount, self);
        (0..n.max(0))
            .filter_map(|i| {
                Type::wrap(call!(
                    sys::spReflectionType_getSpecializedTypeArgType,
                    self,
                    i
                ))
            })
            .collect()
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

//! The raw reflection tables of an entry (parity with Slang's reflection API: types, layouts,
//! variables, functions, generics, decls, entry points, attributes, modifiers, binding,
//! descriptor and sub-object ranges, the `u32` pool), as pointers to the format's records plus
//! counts. Index fields name the table they point into; `SLANGPACK_ABSENT` means none; a
//! `*_pool` field is an offset into `slangpack_reflection_u32_pool`.

use crate::bind::view_table;
use crate::error::shield;
use crate::package::{entry_ref, SlangpackEntry};
use slangpack_format::{
    Attribute, AttributeArg, BindingRange, Decl, DescriptorRange, DescriptorSet, EntryPointLayout,
    Function, Generic, HashedString, Modifier, ReflectionHeader, SubObjectRange, Type, TypeLayout,
    VarLayout, Variable,
};

/// The reflection blob's header (program-wide scalars: global constant buffer, bindless space,
/// global parameters' layouts, root decl), or NULL when the entry has no reflection.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_header(
    entry: SlangpackEntry,
) -> *const ReflectionHeader {
    shield(core::ptr::null(), || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        match unsafe { entry_ref(entry) } {
            Some(e) if e.has_reflection() => e
                .reflection()
                .map_or(core::ptr::null(), |v| v.header() as *const ReflectionHeader),
            _ => core::ptr::null(),
        }
    })
}

/// Slang's hash of the entry's first entry point (0 for an invalid entry).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_first_entry_point_hash(entry: SlangpackEntry) -> u64 {
    shield(0, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        unsafe { entry_ref(entry) }.map_or(0, |e| e.entry_point_hash())
    })
}

/// Every type the program references (`TypeReflection`).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_types(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const Type {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.types()) }
}

/// Type layouts (`TypeLayoutReflection`).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_type_layouts(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const TypeLayout {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.type_layouts()) }
}

/// Variables: globals, parameters, fields (`VariableReflection`).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_variables(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const Variable {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.variables()) }
}

/// Variable layouts (`VariableLayoutReflection`).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_var_layouts(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const VarLayout {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.var_layouts()) }
}

/// Functions (`FunctionReflection`).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_functions(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const Function {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.functions()) }
}

/// Generics (`GenericReflection`).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_generics(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const Generic {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.generics()) }
}

/// The declaration tree (`DeclReflection`); the header's `root_decl` is its root.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_decls(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const Decl {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.decls()) }
}

/// Entry-point layouts (`EntryPointReflection`).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_entry_points(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const EntryPointLayout {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.entry_points()) }
}

/// User attributes.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_attributes(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const Attribute {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.attributes()) }
}

/// User-attribute arguments.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_attribute_args(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const AttributeArg {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.attribute_args()) }
}

/// Modifiers.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_modifiers(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const Modifier {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.modifiers()) }
}

/// Strings with Slang's precomputed hash (`spComputeStringHash`).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_hashed_strings(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const HashedString {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.hashed_strings()) }
}

/// Binding ranges.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_binding_ranges(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const BindingRange {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.binding_ranges()) }
}

/// Descriptor sets of Slang's layout (not the bind view's Vulkan sets).
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_descriptor_sets(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const DescriptorSet {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.descriptor_sets()) }
}

/// Descriptor ranges.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_descriptor_ranges(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const DescriptorRange {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.descriptor_ranges()) }
}

/// Sub-object ranges.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_sub_object_ranges(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const SubObjectRange {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.sub_object_ranges()) }
}

/// The shared `u32` pool that `*_pool` fields point into.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reflection_u32_pool(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const u32 {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.u32_pool()) }
}

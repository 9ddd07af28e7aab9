//! Further targets through the C ABI: each entry point's code per target (WGSL, GLSL, HLSL,
//! Metal text, DXIL bytes), the per-target bind views (`SlangpackTargetBinding`: WGSL
//! group/binding, GLSL set/binding, HLSL register class/index/space, Metal indices) and the
//! HLSL and Metal member layouts (`SlangpackTargetBuffer`, `SlangpackTargetMember`, since
//! format 1.4) and Metal argument buffers' structs (`SlangpackArgumentBuffer`,
//! `SlangpackArgumentBufferMember`, since format 1.5), as pointers to the format's records plus
//! counts.

use crate::bind::{slice_out, view_table};
use crate::error::shield;
use crate::package::{entry_ref, SlangpackEntry, SlangpackStr};
use slangpack_format::targets::{
    ArgumentBuffer, ArgumentBufferMember, TargetBinding, TargetBuffer, TargetMember,
};
use slangpack_format::Target;

/// The code of entry point number `entry_point` for target `target` (a `SLANGPACK_TARGET_*`
/// value): its `*len` bytes (text is UTF-8, **not** NUL-terminated; SPIR-V gives the module's
/// bytes), and in `*entry_name` (when not NULL) the entry point's name inside that code (pass
/// it to the API that takes the code). NULL with `*len` 0 (and `*entry_name` empty) when the
/// entry point is out of range, the entry is invalid, or the package has no code for the
/// target.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `len` is NULL or valid for writing one `size_t`;
/// `entry_name` is NULL or valid for writing one `SlangpackStr`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_point_code(
    entry: SlangpackEntry,
    entry_point: usize,
    target: u32,
    len: *mut usize,
    entry_name: *mut SlangpackStr,
) -> *const u8 {
    let (bytes, name) = shield((&[][..], ""), || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        let Some(e) = (unsafe { entry_ref(entry) }) else {
            return (&[][..], "");
        };
        e.entry_points()
            .nth(entry_point)
            .and_then(|ep| ep.code(Target::from_raw(target)))
            .map_or((&[][..], ""), |code| (code.bytes(), code.entry_name()))
    });
    // SAFETY: the caller guarantees `entry_name` is NULL or writable.
    if let Some(out) = unsafe { entry_name.as_mut() } {
        *out = name.into();
    }
    // SAFETY: the caller guarantees `len` is NULL or writable.
    unsafe { slice_out(bytes, len) }
}

/// Every binding of every further target's bind view, sorted by target, space, register class
/// and index (a target's records are consecutive; `SlangpackTargetBuffer.target_binding`
/// indexes this table). Empty for a package baked for SPIR-V alone.
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
pub unsafe extern "C" fn slangpack_bind_target_bindings(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const TargetBinding {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.target_bindings()) }
}

/// The member layouts of HLSL and Metal buffers (since format 1.4), sorted by
/// `target_binding` (an index into `slangpack_bind_target_bindings`): each names the Vulkan
/// buffer layout whose members its own parallel (`buffer_layout`), and its members
/// (`first_member`, `member_count` into `slangpack_bind_target_members`). A target binding
/// with no record has no member layout in the package.
///
/// Ownership, thread safety: as for `slangpack_bind_target_bindings`.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_target_buffers(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const TargetBuffer {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.target_buffers()) }
}

/// The members of the target buffers: member `k` of a target buffer
/// (`first_member + k`) holds the target's offset, size, array stride and matrix stride of
/// member `k` of its Vulkan buffer layout (`slangpack_bind_buffer_members`), whose path,
/// name and type it shares.
///
/// Ownership, thread safety: as for `slangpack_bind_target_bindings`.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_target_members(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const TargetMember {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.target_members()) }
}

/// The structs of Metal argument buffers (since format 1.5), sorted by `target_binding` (an
/// index into `slangpack_bind_target_bindings`, a Metal binding of kind
/// `SLANGPACK_TARGET_BINDING_KIND_ARGUMENT_BUFFER`): each struct's size and alignment and its
/// members (`first_member`, `member_count` into `slangpack_bind_argument_buffer_members`).
///
/// Ownership, thread safety: as for `slangpack_bind_target_bindings`.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_argument_buffers(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const ArgumentBuffer {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.argument_buffers()) }
}

/// Every member of every Metal argument buffer's struct (since format 1.5), each struct's in
/// pre-order: kind (`SLANGPACK_ARGUMENT_MEMBER_KIND_*`), byte offset, size, alignment, array
/// count and stride, `[[id(n)]]`, flags (`ARGUMENT_*`), and for a resource its own target
/// binding.
///
/// Ownership, thread safety: as for `slangpack_bind_target_bindings`.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_argument_buffer_members(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const ArgumentBufferMember {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.argument_buffer_members()) }
}

/// The members of the Metal argument buffer at target binding number `target_binding` (an
/// index into `slangpack_bind_target_bindings`), in pre-order, with the struct's record in
/// `*buffer` when not NULL (its `size` is the bytes to allocate). A member's `path` is a
/// string index of the entry's reflection (`slangpack_entry_string`); `offset` is from the
/// struct's start, or from an array element's with `SLANGPACK_ARGUMENT_ELEMENT_RELATIVE`. NULL
/// with `*count` 0 (and `*buffer` NULL) when the binding is out of range, is not an argument
/// buffer whose struct the package holds, or the entry is invalid.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one
/// `size_t`; `buffer` is NULL or valid for writing one pointer.
#[no_mangle]
pub unsafe extern "C" fn slangpack_argument_buffer_members(
    entry: SlangpackEntry,
    target_binding: usize,
    count: *mut usize,
    buffer: *mut *const ArgumentBuffer,
) -> *const ArgumentBufferMember {
    let (members, record) = shield((&[][..], core::ptr::null()), || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        let Some(e) = (unsafe { entry_ref(entry) }) else {
            return (&[][..], core::ptr::null());
        };
        let Ok(reflection) = e.reflection() else {
            return (&[][..], core::ptr::null());
        };
        let Some(binding) = reflection.target_bindings().get(target_binding) else {
            return (&[][..], core::ptr::null());
        };
        reflection
            .bind()
            .target(binding.target_kind())
            .argument_buffer(binding)
            .map_or((&[][..], core::ptr::null()), |ab| {
                (ab.members(), core::ptr::from_ref(ab.record()))
            })
    });
    // SAFETY: the caller guarantees `buffer` is NULL or writable.
    if let Some(out) = unsafe { buffer.as_mut() } {
        *out = record;
    }
    // SAFETY: the caller guarantees `count` is NULL or writable.
    unsafe { slice_out(members, count) }
}

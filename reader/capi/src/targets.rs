//! Further targets through the C ABI: each entry point's code per target (WGSL, GLSL, HLSL,
//! Metal text, DXIL bytes), the per-target bind views (`SlangpackTargetBinding`: WGSL
//! group/binding, GLSL set/binding, HLSL register class/index/space, Metal indices) and the
//! HLSL and Metal member layouts (`SlangpackTargetBuffer`, `SlangpackTargetMember`, since
//! format 1.4), as pointers to the format's records plus counts.

use crate::bind::{slice_out, view_table};
use crate::error::shield;
use crate::package::{entry_ref, SlangpackEntry, SlangpackStr};
use slangpack_format::targets::{TargetBinding, TargetBuffer, TargetMember};
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

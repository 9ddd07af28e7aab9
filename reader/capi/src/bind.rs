//! The bind view of an entry: what an engine binds with, as pointers to the format's records
//! plus counts. Every record type is declared in the header with its size and field offsets
//! checked by `static_assert`; strings in records are indices for `slangpack_entry_string`.

use crate::error::shield;
use crate::package::{entry_ref, str_arg, SlangpackEntry, SlangpackStr};
use core::ffi::c_char;
use slangpack_format::bind::{
    BindSummary, BufferLayout, BufferMember, DescriptorBinding, DescriptorSetLayout,
    ExecutionModes, ExistentialConformance, FragmentOutput, MemberAttribute, MemberPointee,
    PushConstantRange, ShaderRecordBlock, SpecializationConstant, VertexInput,
};
use slangpack_reader::ReflectionView;

/// Gives `f`'s table of the entry's reflection as a pointer, and its length in `*count`; NULL
/// and 0 for an empty table or an invalid entry.
///
/// # Safety
/// `entry.package` is NULL or a live handle for `'a`; `count` is NULL or writable.
pub(crate) unsafe fn view_table<'a, T: 'a>(
    entry: SlangpackEntry,
    count: *mut usize,
    f: impl FnOnce(ReflectionView<'a>) -> &'a [T],
) -> *const T {
    let slice: &[T] = shield(&[], || {
        // SAFETY: forwarded from the caller.
        unsafe { entry_ref(entry) }
            .and_then(|e| e.reflection().ok())
            .map_or(&[], f)
    });
    // SAFETY: the caller guarantees `count` is NULL or writable.
    unsafe { slice_out(slice, count) }
}

/// `slice` as a pointer (NULL when empty) with its length stored in `*count`.
///
/// # Safety
/// `count` is NULL or valid for writing one `usize`.
pub(crate) unsafe fn slice_out<T>(slice: &[T], count: *mut usize) -> *const T {
    // SAFETY: the caller guarantees `count` is NULL or writable.
    if let Some(count) = unsafe { count.as_mut() } {
        *count = slice.len();
    }
    if slice.is_empty() {
        core::ptr::null()
    } else {
        slice.as_ptr()
    }
}

/// Runs a lookup on the entry's reflection; NULL for an invalid entry or name.
///
/// # Safety
/// `entry.package` is NULL or a live handle for `'a`; `name` is readable for `name_len` bytes.
unsafe fn lookup<'a, T: 'a>(
    entry: SlangpackEntry,
    name: *const c_char,
    name_len: usize,
    f: impl FnOnce(ReflectionView<'a>, &str) -> Option<&'a T>,
) -> *const T {
    shield(core::ptr::null(), || {
        // SAFETY: forwarded from the caller.
        let (Some(e), Some(name)) = (unsafe { entry_ref(entry) }, unsafe {
            str_arg(name, name_len)
        }) else {
            return core::ptr::null();
        };
        // A loaded handle's raw tables were loaded with it.
        let Ok(view) = e.reflection() else {
            return core::ptr::null();
        };
        f(view, name).map_or(core::ptr::null(), |r| r as *const T)
    })
}

/// String `index` of the entry's reflection (names and paths in records are such indices);
/// empty for `SLANGPACK_ABSENT`, an index out of range or an invalid entry.
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
pub unsafe extern "C" fn slangpack_entry_string(entry: SlangpackEntry, index: u32) -> SlangpackStr {
    let empty = SlangpackStr::from("");
    shield(empty, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        unsafe { entry_ref(entry) }.map_or(empty, |e| e.bind().string(index).into())
    })
}

/// The bind view's program-wide facts (set slot count, global uniform buffer, stages), or NULL
/// when the entry was baked without a bind view.
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
pub unsafe extern "C" fn slangpack_bind_summary(entry: SlangpackEntry) -> *const BindSummary {
    shield(core::ptr::null(), || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        unsafe { entry_ref(entry) }
            .and_then(|e| e.bind().summary())
            .map_or(core::ptr::null(), |s| s as *const BindSummary)
    })
}

/// Length the pipeline layout's set array must have (highest set + 1); sets between the
/// populated ones are holes that take empty set layouts. 0 without a bind view.
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
pub unsafe extern "C" fn slangpack_bind_set_slot_count(entry: SlangpackEntry) -> u32 {
    shield(0, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        unsafe { entry_ref(entry) }.map_or(0, |e| e.bind().set_slot_count())
    })
}

/// The populated descriptor sets, sorted by set number; each names its run of bindings
/// (`first_binding`, `binding_count`) and its flags (`SLANGPACK_SET_HAS_UNBOUNDED`).
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
pub unsafe extern "C" fn slangpack_bind_sets(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const DescriptorSetLayout {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().sets()) }
}

/// Every descriptor binding, sorted by (set, binding): absolute Vulkan set and binding,
/// `VkDescriptorType`, count and count kind, stage flags, flags.
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
pub unsafe extern "C" fn slangpack_bind_bindings(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const DescriptorBinding {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().bindings()) }
}

/// The bindings of Vulkan set `set`, sorted by binding; NULL and 0 for a hole or a set past the
/// end.
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
pub unsafe extern "C" fn slangpack_bind_set_bindings(
    entry: SlangpackEntry,
    set: u32,
    count: *mut usize,
) -> *const DescriptorBinding {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().set(set).unwrap_or(&[])) }
}

/// The push-constant ranges (at most one today).
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
pub unsafe extern "C" fn slangpack_bind_push_constants(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const PushConstantRange {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().push_constants()) }
}

/// The shader-record blocks of ray-tracing stages (`[[vk::shader_record]]`): not descriptors;
/// the engine writes their data into each shader record of the shader binding table, after the
/// shader group handle, at the offsets of their buffer layouts.
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
pub unsafe extern "C" fn slangpack_bind_shader_record_blocks(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const ShaderRecordBlock {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().shader_record_blocks()) }
}

/// Every buffer layout (uniform buffers, parameter-block and global implicit buffers,
/// push-constant blocks, structured-buffer elements). Bindings and push-constant ranges name
/// theirs by index (`buffer_layout`).
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
pub unsafe extern "C" fn slangpack_bind_buffer_layouts(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const BufferLayout {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().buffer_layouts()) }
}

/// The members of buffer layout number `layout` (an index, as in `buffer_layout` fields),
/// flattened in pre-order with dotted paths; NULL and 0 for `SLANGPACK_ABSENT` or an index out
/// of range. A member's `parent` is an index into the same table as the first member's.
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
pub unsafe extern "C" fn slangpack_bind_buffer_members(
    entry: SlangpackEntry,
    layout: u32,
    count: *mut usize,
) -> *const BufferMember {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe {
        view_table(entry, count, |v| {
            v.bind()
                .buffer_layout(layout)
                .map_or(&[], |l| v.bind().members(l))
        })
    }
}

/// Every buffer member that leads to another buffer layout (since format 1.7), sorted by
/// `member` (an index among all buffer members): a buffer device address (`T*`,
/// `ConstBufferPointer<T>`) whose `buffer_layout` is the data it points at
/// (`SLANGPACK_BUFFER_POINTEE`), or a descriptor handle of a constant or storage buffer whose
/// `buffer_layout` is that buffer, or one element of it with the element stride as `stride`
/// (`SLANGPACK_BUFFER_HEAP`, at its heap's set and binding).
/// Pointee links may form cycles (a linked-list node points at its own layout).
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
pub unsafe extern "C" fn slangpack_bind_member_pointees(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const MemberPointee {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().member_pointees()) }
}

/// The buffer layout that member `member` (an index among all buffer members: a layout's
/// `first_member` plus the member's place in it) leads to (since format 1.7): the data behind
/// a buffer device address or the constant buffer a descriptor handle names; NULL when it
/// leads nowhere, the index is out of range or the entry is invalid. O(log n); no allocation.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_pointee(
    entry: SlangpackEntry,
    member: u32,
) -> *const BufferLayout {
    // SAFETY: forwarded from the caller (see `# Safety`); a NULL count is allowed.
    unsafe {
        view_table(entry, core::ptr::null_mut(), |v| {
            v.bind().pointee(member).map_or(&[], core::slice::from_ref)
        })
    }
}

/// The types every dynamically dispatched existential may hold (since format 1.8): an
/// interface-typed value in a buffer with several conforming types. Each record names the
/// existential's header (`existential`, flagged `SLANGPACK_MEMBER_EXISTENTIAL`) and the member
/// holding the type's data in its payload (`member`, flagged `SLANGPACK_MEMBER_CONFORMANCE`,
/// named after the type), both as indices among all buffer members (member `k` of
/// `slangpack_bind_buffer_members` for a layout is `first_member + k`), the interface's name
/// (`slangpack_entry_string`) and `id`, the conformance id to write into the first word of the
/// header's `witnessId` for a value of that type.
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
pub unsafe extern "C" fn slangpack_bind_existential_conformances(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const ExistentialConformance {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().conformances()) }
}

/// The user attributes of a buffer member (`[Range(0, 1)] float roughness;`); NULL and 0 for a
/// NULL `member`.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `count` is NULL or valid for writing one `size_t`.
/// `member` is NULL or a record obtained from this entry.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_member_attributes(
    entry: SlangpackEntry,
    member: Option<&BufferMember>,
    count: *mut usize,
) -> *const MemberAttribute {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe {
        view_table(entry, count, |v| {
            member.map_or(&[], |m| v.bind().attributes(m))
        })
    }
}

/// The vertex inputs of entry point number `entry_point` of the entry, sorted by location
/// (system values excluded).
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
pub unsafe extern "C" fn slangpack_bind_vertex_inputs(
    entry: SlangpackEntry,
    entry_point: u32,
    count: *mut usize,
) -> *const VertexInput {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().vertex_inputs(entry_point)) }
}

/// Every vertex input of every entry point, sorted by entry point and location.
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
pub unsafe extern "C" fn slangpack_bind_all_vertex_inputs(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const VertexInput {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().all_vertex_inputs()) }
}

/// The colour outputs of fragment entry point number `entry_point`, sorted by location and
/// index (dual-source blending): what the pipeline's colour attachments must match. Empty for
/// other stages and for packages older than 1.3.
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
pub unsafe extern "C" fn slangpack_bind_fragment_outputs(
    entry: SlangpackEntry,
    entry_point: u32,
    count: *mut usize,
) -> *const FragmentOutput {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().fragment_outputs(entry_point)) }
}

/// The execution modes of entry point number `entry_point` (tessellation, geometry and mesh
/// primitives and limits, early fragment tests, depth mode, input-attachment use); NULL for an
/// entry point out of range, an invalid entry, or a package older than 1.3.
///
/// Ownership: the result points into the package and stays valid until it is closed.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_execution_modes(
    entry: SlangpackEntry,
    entry_point: u32,
) -> *const ExecutionModes {
    let mut count = 0;
    // SAFETY: forwarded from the caller (see `# Safety`); `count` is a local.
    let record = unsafe {
        view_table(entry, &mut count, |v| {
            v.bind()
                .execution_modes(entry_point)
                .map_or(&[][..], core::slice::from_ref)
        })
    };
    record
}

/// The specialization constants (id, name, scalar type, default).
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
pub unsafe extern "C" fn slangpack_bind_specialization_constants(
    entry: SlangpackEntry,
    count: *mut usize,
) -> *const SpecializationConstant {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { view_table(entry, count, |v| v.bind().specialization_constants()) }
}

/// The binding at `path` (`path_len` bytes, e.g. `gScene.material.albedo`), or NULL. O(1)
/// expected through the reader's hash table of the names; no allocation.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `path` is valid for reading `path_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_find_binding(
    entry: SlangpackEntry,
    path: *const c_char,
    path_len: usize,
) -> *const DescriptorBinding {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { lookup(entry, path, path_len, |v, path| v.bind().binding(path)) }
}

/// The buffer layout named `path` (the owning parameter's path, e.g. `gScene.material`), or
/// NULL. O(1) expected; no allocation.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `path` is valid for reading `path_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_find_buffer(
    entry: SlangpackEntry,
    path: *const c_char,
    path_len: usize,
) -> *const BufferLayout {
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { lookup(entry, path, path_len, |v, path| v.bind().buffer(path)) }
}

/// The buffer member at `path` (`path_len` bytes): the buffer's name, a dot, the member's path
/// (`gScene.view.light.sunDirection`, `gDraw.model`), or NULL. Stores its buffer layout in
/// `*out_layout` when found and `out_layout` is not NULL. Members inside arrays of structs are
/// not indexed (address them through the array member). O(1) expected; no allocation.
///
/// Ownership: the result points into the package (nothing to free) and stays valid until the
/// package is closed; tables come with their length in `*count` and are NULL with 0 when
/// empty or when `entry` is invalid.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `path` is valid for reading `path_len` bytes;
/// `out_layout` is NULL or valid for writing one pointer.
#[no_mangle]
pub unsafe extern "C" fn slangpack_bind_find_member(
    entry: SlangpackEntry,
    path: *const c_char,
    path_len: usize,
    out_layout: *mut *const BufferLayout,
) -> *const BufferMember {
    // SAFETY: forwarded from the caller.
    unsafe {
        lookup(entry, path, path_len, |v, path| {
            let (layout, member) = v.bind().buffer_member(path)?;
            if let Some(out) = out_layout.as_mut() {
                *out = layout;
            }
            Some(member)
        })
    }
}

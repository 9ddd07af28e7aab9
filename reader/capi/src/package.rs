//! Packages, entries, entry points and dependencies.

use crate::error::{ErrorOut, Failure, SlangpackError, SlangpackErrorKind};
use core::ffi::{c_char, c_void};
use slangpack_format::EntryPointLayout;
use slangpack_reader::{Entry, Package};

/// An open, validated package. Created by `slangpack_package_open*`, destroyed by
/// `slangpack_package_close`; every pointer and string obtained from it stays valid until then.
pub struct SlangpackPackage {
    pub(crate) package: Package,
    /// Every SPIR-V entry name of the package, NUL-terminated (`pName` wants a C string),
    /// made once at open.
    c_names: std::collections::HashMap<Box<str>, std::ffi::CString>,
}

impl SlangpackPackage {
    /// The handle's contents for an opened package: the package and its C strings.
    pub(crate) fn new(package: Package) -> Self {
        // A name with a NUL inside cannot be a C string; it gets none (an empty one).
        let c_names = package
            .spirv_entry_names()
            .filter_map(|name| Some((name.into(), std::ffi::CString::new(name).ok()?)))
            .collect();
        Self { package, c_names }
    }
}

/// A UTF-8 string borrowed from a package: `len` bytes at `ptr`, **not** NUL-terminated
/// (print it with `printf("%.*s", (int)s.len, s.ptr)`). `ptr` is never NULL; an empty or absent
/// string has `len == 0`. Valid until the package it came from is closed.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackStr {
    /// The first byte.
    pub ptr: *const c_char,
    /// The length in bytes.
    pub len: usize,
}

impl From<&str> for SlangpackStr {
    fn from(s: &str) -> Self {
        if s.is_empty() {
            // Never a dangling pointer, even for an empty string.
            return Self {
                ptr: c"".as_ptr(),
                len: 0,
            };
        }
        Self {
            ptr: s.as_ptr().cast(),
            len: s.len(),
        }
    }
}

/// One entry (one permutation) of an open package: a small value, copied freely, obtained from
/// `slangpack_package_entry` or `slangpack_package_entry_at` and valid until the package is
/// closed. Treat it as opaque; `index` is the entry's position in key order.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackEntry {
    /// The package the entry belongs to.
    pub package: *const SlangpackPackage,
    /// Position of the entry in key order.
    pub index: usize,
}

/// One compiled entry point of an entry, filled by `slangpack_entry_entry_point`. Every pointer
/// borrows from the package and stays valid until the package is closed.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackEntryPoint {
    /// Slang's name of the entry point.
    pub name: SlangpackStr,
    /// The entry point's name inside the SPIR-V (usually `main`); `spirv_entry_name_c` is
    /// the same name NUL-terminated.
    pub spirv_entry_name: SlangpackStr,
    /// The SPIR-V module, straight from the package (the mapping, or the package's own copy):
    /// pass it as `VkShaderModuleCreateInfo::pCode`. 4-aligned.
    pub spirv: *const u32,
    /// Number of 32-bit words at `spirv` (`codeSize` is 4 times this).
    pub spirv_word_count: usize,
    /// Slang's hash of this entry point's code.
    pub hash: u64,
    /// The stage, a `SLANGPACK_STAGE_*` value (Slang's `SlangStage`).
    pub stage: u32,
    /// Thread-group size x, y, z (1, 1, 1 for stages without one).
    pub thread_group_size: [u32; 3],
    /// Required wave size, 0 when not specified.
    pub wave_size: u32,
    /// SPIR-V blob index: entry points with equal modules share it.
    pub spirv_index: u32,
    /// This entry point's record in the entry's raw reflection, or NULL when not linked.
    pub layout: *const EntryPointLayout,
    /// The SPIR-V entry name, NUL-terminated: pass it as
    /// `VkPipelineShaderStageCreateInfo::pName`. Never NULL (empty for a name that holds a
    /// NUL byte, which no SPIR-V consumer accepts).
    pub spirv_entry_name_c: *const c_char,
    /// The `VkShaderStageFlagBits` of the stage, for `VkPipelineShaderStageCreateInfo::stage`
    /// (0 for a stage Vulkan lacks).
    pub vk_stage: u32,
    /// Always 0 (keeps the struct's size a multiple of 8 on every target).
    pub reserved: u32,
}

/// One source file an entry was compiled from, filled by `slangpack_entry_dependency`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackDependency {
    /// Path relative to the bake root, `/`-separated (arbitrary UTF-8: do not use it as a file
    /// path unchecked).
    pub path: SlangpackStr,
    /// xxh3-64 of the file's content at bake time.
    pub content_hash: u64,
}

/// The prologue of the C functions that take a package and report through a
/// `SlangpackError`: catches panics, reports a NULL package as
/// `SLANGPACK_ERROR_KIND_INVALID_ARGUMENT`, and runs `body` on the live package.
///
/// # Safety
/// `package` is NULL or a live handle; `error` is NULL or writable for the call.
unsafe fn on_package(
    package: *const SlangpackPackage,
    error: *mut SlangpackError,
    body: impl FnOnce(&Package, ErrorOut) -> SlangpackErrorKind,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        // SAFETY: the caller guarantees `package` is NULL or live.
        match unsafe { package_ref(package) } {
            Some(p) => body(p, error),
            None => error.boundary(SlangpackErrorKind::InvalidArgument, "package is NULL"),
        }
    })
}

/// The package behind a handle.
///
/// # Safety
/// `package` is NULL or a handle from `slangpack_package_open*` that is not closed for `'a`.
pub(crate) unsafe fn package_ref<'a>(package: *const SlangpackPackage) -> Option<&'a Package> {
    // SAFETY: the caller guarantees a non-NULL handle points to a live `SlangpackPackage`.
    unsafe { package.as_ref() }.map(|p| &p.package)
}

/// The entry behind a `SlangpackEntry` value (`None` for a NULL package or an index out of
/// range).
///
/// # Safety
/// `entry.package` is NULL or a live handle for `'a`.
pub(crate) unsafe fn entry_ref<'a>(entry: SlangpackEntry) -> Option<Entry<'a>> {
    // SAFETY: forwarded from the caller.
    unsafe { package_ref(entry.package) }?.loaded_at(entry.index)
}

/// Views `len` bytes at `ptr` (NULL allowed when `len` is 0).
///
/// # Safety
/// A non-NULL `ptr` is valid for reading `len` bytes for `'a`, unchanged meanwhile.
unsafe fn bytes_arg<'a>(ptr: *const c_void, len: usize) -> Option<&'a [u8]> {
    if ptr.is_null() {
        return (len == 0).then_some(&[]);
    }
    // SAFETY: the caller guarantees `ptr` is valid for reading `len` bytes for `'a`.
    Some(unsafe { core::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// A UTF-8 name argument (`ptr` + `len`; NULL allowed when `len` is 0).
///
/// # Safety
/// As for [`bytes_arg`].
pub(crate) unsafe fn str_arg<'a>(ptr: *const c_char, len: usize) -> Option<&'a str> {
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { bytes_arg(ptr.cast(), len) }?;
    core::str::from_utf8(bytes).ok()
}

/// Stores a new handle in `*out`, or reports why it could not be opened.
///
/// # Safety
/// `out` is valid for writing one pointer.
unsafe fn finish_open(
    opened: slangpack_reader::Result<Package>,
    out: *mut *mut SlangpackPackage,
    error: ErrorOut,
) -> SlangpackErrorKind {
    match opened {
        Ok(package) => {
            let handle = Box::into_raw(Box::new(SlangpackPackage::new(package)));
            // SAFETY: the caller guarantees `out` is valid for writing one pointer.
            unsafe { out.write(handle) };
            SlangpackErrorKind::Ok
        }
        Err(e) => error.reader(&e),
    }
}

/// Opens and validates the package file at `path` (`path_len` bytes, no NUL needed) through a
/// read-only memory mapping.
///
/// On success stores a new handle in `*out_package` (close it with `slangpack_package_close`)
/// and returns `SLANGPACK_ERROR_KIND_OK`; otherwise returns the error kind, fills `*error` when
/// `error` is not NULL, and leaves `*out_package` untouched. The file must not be modified or
/// truncated in place while the package is open (replace it by renaming a new file over it);
/// see the README's threat model.
///
/// Thread safety: may be called from any thread; allocates (the handle, the directory,
/// decompressed reflection).
///
/// # Safety
/// `path` is valid for reading `path_len` bytes; `out_package` is valid for writing one
/// pointer; `error` is NULL or valid for writing one `SlangpackError`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_open(
    path: *const c_char,
    path_len: usize,
    out_package: *mut *mut SlangpackPackage,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        if out_package.is_null() {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "out_package is NULL");
        }
        // SAFETY: the caller guarantees `path` is readable for `path_len` bytes.
        let Some(bytes) = (unsafe { bytes_arg(path.cast(), path_len) }) else {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "path is NULL");
        };
        #[cfg(unix)]
        let path = {
            use std::os::unix::ffi::OsStrExt;
            std::path::Path::new(std::ffi::OsStr::from_bytes(bytes))
        };
        #[cfg(not(unix))]
        let Ok(path) = core::str::from_utf8(bytes).map(std::path::Path::new) else {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "path is not UTF-8");
        };
        // SAFETY: `out_package` is non-NULL and, per the caller, writable.
        unsafe { finish_open(Package::open(path), out_package, error) }
    })
}

/// Validates a package held in caller memory **without copying it**: `bytes` (`len` bytes,
/// 8-aligned, else `SLANGPACK_ERROR_KIND_MISALIGNED`) must stay alive and unchanged until the
/// package is closed; every pointer the package hands out points into them.
///
/// Results and errors as for `slangpack_package_open`.
///
/// Thread safety: as for `slangpack_package_open`.
///
/// # Safety
/// `bytes` is valid for reading `len` bytes until `slangpack_package_close` returns for the new
/// handle, and nothing writes to them meanwhile; `out_package` is valid for writing one
/// pointer; `error` is NULL or valid for writing one `SlangpackError`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_open_borrowed(
    bytes: *const c_void,
    len: usize,
    out_package: *mut *mut SlangpackPackage,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        if out_package.is_null() {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "out_package is NULL");
        }
        // SAFETY: the caller keeps `bytes` alive and unchanged until the handle is closed, and
        // the handle is the only way to reach the package, so no borrow of them outlives it:
        // `'static` is what the reader's type asks for, the close is what bounds it.
        let Some(bytes) = (unsafe { bytes_arg::<'static>(bytes, len) }) else {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "bytes is NULL");
        };
        // SAFETY: `out_package` is non-NULL and, per the caller, writable.
        unsafe { finish_open(Package::from_static_bytes(bytes), out_package, error) }
    })
}

/// Validates a package held in caller memory after copying it (once, into an aligned buffer
/// the package owns): `bytes` may be freed as soon as this returns, and need not be aligned.
///
/// Results and errors as for `slangpack_package_open`.
///
/// Thread safety: as for `slangpack_package_open`.
///
/// # Safety
/// `bytes` is valid for reading `len` bytes during the call; `out_package` is valid for writing
/// one pointer; `error` is NULL or valid for writing one `SlangpackError`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_open_copy(
    bytes: *const c_void,
    len: usize,
    out_package: *mut *mut SlangpackPackage,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        if out_package.is_null() {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "out_package is NULL");
        }
        // SAFETY: the caller guarantees `bytes` is readable for `len` bytes during the call.
        let Some(bytes) = (unsafe { bytes_arg(bytes, len) }) else {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "bytes is NULL");
        };
        // SAFETY: `out_package` is non-NULL and, per the caller, writable.
        unsafe { finish_open(Package::from_bytes(bytes), out_package, error) }
    })
}

/// Closes a package: frees the handle, unmaps the file (or releases the copy; borrowed memory
/// may be freed by its owner afterwards). Every pointer, string and `SlangpackEntry` obtained
/// from the package becomes invalid. NULL is ignored.
///
/// Thread safety: no other call may use the package during or after this one.
///
/// # Safety
/// `package` is NULL or a handle from `slangpack_package_open*` not closed before.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_close(package: *mut SlangpackPackage) {
    if package.is_null() {
        return;
    }
    // SAFETY: the caller guarantees a live handle made by `Box::into_raw` in `finish_open`,
    // closed once.
    let handle = unsafe { Box::from_raw(package) };
    // Dropping releases only owned buffers and the mapping; a panic there is not expected, but
    // must not unwind into C.
    crate::error::shield((), move || drop(handle));
}

/// Checks the whole package, as `slangpack verify` does: every section's checksum, every
/// reflection blob and SPIR-V module decompressed and validated (those no entry uses too), then
/// every entry loaded. What it loads stays loaded, so afterwards no entry lookup of a valid key
/// fails. Opening checks only the directory; call this where a package comes from an untrusted
/// place and every entry should be known good up front.
///
/// Returns `SLANGPACK_ERROR_KIND_OK`, `SLANGPACK_ERROR_KIND_INVALID_ARGUMENT` (NULL package), or
/// the first failing check's error (the same on every call), with `*error` filled when not NULL.
/// Allocates what the loads decompress.
///
/// Thread safety: any number of threads may call it and the accessors at once.
///
/// # Safety
/// `package` is NULL or a live handle; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_verify_all(
    package: *const SlangpackPackage,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    let body = |p: &Package, error: ErrorOut| match p.verify_all() {
        Ok(()) => SlangpackErrorKind::Ok,
        Err(e) => error.reader(&e),
    };
    // SAFETY: the caller guarantees `package` is NULL or live and `error` NULL or writable.
    unsafe { on_package(package, error, body) }
}

/// Number of entries (0 for NULL).
///
/// Thread safety: any number of threads may call the accessors of one package at once; none
/// allocates.
///
/// # Safety
/// `package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_entry_count(package: *const SlangpackPackage) -> usize {
    crate::error::shield(0, || {
        // SAFETY: the caller guarantees `package` is NULL or live.
        unsafe { package_ref(package) }.map_or(0, Package::len)
    })
}

/// The package's format version (major, minor); either out-pointer may be NULL. Writes 0, 0 for
/// a NULL package.
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// `package` is NULL or a live handle; `major` and `minor` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_version(
    package: *const SlangpackPackage,
    major: *mut u32,
    minor: *mut u32,
) {
    let (a, b) = crate::error::shield((0, 0), || {
        // SAFETY: the caller guarantees `package` is NULL or live.
        unsafe { package_ref(package) }.map_or((0, 0), Package::version)
    });
    // SAFETY: the caller guarantees each pointer is NULL or writable.
    unsafe {
        if let Some(major) = major.as_mut() {
            *major = a;
        }
        if let Some(minor) = minor.as_mut() {
            *minor = b;
        }
    }
}

/// Finds the entry whose canonical permutation key is `key` (`key_len` bytes of UTF-8, no NUL
/// needed), e.g. `"pbr"` or `"pbr?MSAA=4&SHADOWS=1"`, and stores it in `*out_entry`.
///
/// The first call for an entry loads it: checksums, decompresses and validates its reflection
/// and SPIR-V (once; may allocate); the entry's accessors then cannot fail. The first call in
/// a package of format 2.0 also makes its key index (every key hashed and sorted, 16 bytes an
/// entry; once per package; may allocate).
///
/// Returns `SLANGPACK_ERROR_KIND_OK`, or `SLANGPACK_ERROR_KIND_NOT_FOUND` (no such key),
/// `SLANGPACK_ERROR_KIND_INVALID_ARGUMENT` (NULL pointer, key not UTF-8), or the validation
/// error of a damaged entry (the same on every call), with `*error` filled when not NULL. Cost
/// once loaded: one hash and a binary search; no allocation.
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// `package` is NULL or a live handle; `key` is valid for reading `key_len` bytes;
/// `out_entry` is valid for writing one `SlangpackEntry`; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_entry(
    package: *const SlangpackPackage,
    key: *const c_char,
    key_len: usize,
    out_entry: *mut SlangpackEntry,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    let body = |p: &Package, error: ErrorOut| {
        if out_entry.is_null() {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "out_entry is NULL");
        }
        // SAFETY: the caller guarantees `key` is readable for `key_len` bytes.
        let Some(key) = (unsafe { str_arg(key, key_len) }) else {
            return error.boundary(
                SlangpackErrorKind::InvalidArgument,
                "key is NULL or not UTF-8",
            );
        };
        // The entry is loaded here (checksums, decompression, validation of its sections,
        // the raw reflection tables included): the one fallible step; the handle's accessors
        // then read the loaded entry.
        // A miss is found without loading anything (and without allocating).
        let Some(index) = p.find(key) else {
            return error.fail(&Failure {
                kind: SlangpackErrorKind::NotFound,
                offset: 0,
                message: ["no entry has the key ", key],
            });
        };
        match p.load_at(index).and_then(|e| e.reflection().map(|_| e)) {
            Ok(entry) => {
                let value = SlangpackEntry {
                    package,
                    index: entry.index(),
                };
                // SAFETY: `out_entry` is non-NULL and, per the caller, writable.
                unsafe { out_entry.write(value) };
                SlangpackErrorKind::Ok
            }
            Err(e) => error.reader(&e),
        }
    };
    // SAFETY: the caller guarantees `package` is NULL or live and `error` NULL or writable.
    unsafe { on_package(package, error, body) }
}

/// Stores entry number `index` (in key order, `0 <= index < slangpack_package_entry_count`) in
/// `*out_entry`.
///
/// Loads the entry as `slangpack_package_entry` does.
///
/// Returns `SLANGPACK_ERROR_KIND_OK`, or `SLANGPACK_ERROR_KIND_NOT_FOUND` (index out of range),
/// `SLANGPACK_ERROR_KIND_INVALID_ARGUMENT` (NULL pointer), or the validation error of a damaged
/// entry, with `*error` filled when not NULL. No allocation once loaded.
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// As for `slangpack_package_entry`, without the key.
#[no_mangle]
pub unsafe extern "C" fn slangpack_package_entry_at(
    package: *const SlangpackPackage,
    index: usize,
    out_entry: *mut SlangpackEntry,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    let body = |p: &Package, error: ErrorOut| {
        if out_entry.is_null() {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "out_entry is NULL");
        }
        match p.load_at(index).and_then(|e| e.reflection()) {
            Ok(_) => {}
            Err(e) if e.kind() == slangpack_reader::ErrorKind::NotFound => {
                return error.boundary(
                    SlangpackErrorKind::NotFound,
                    "entry index is not below the entry count",
                );
            }
            Err(e) => return error.reader(&e),
        }
        // SAFETY: `out_entry` is non-NULL and, per the caller, writable.
        unsafe { out_entry.write(SlangpackEntry { package, index }) };
        SlangpackErrorKind::Ok
    };
    // SAFETY: the caller guarantees `package` is NULL or live and `error` NULL or writable.
    unsafe { on_package(package, error, body) }
}

/// The entry's canonical permutation key (empty for an invalid entry).
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// `entry.package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_key(entry: SlangpackEntry) -> SlangpackStr {
    let empty = SlangpackStr::from("");
    crate::error::shield(empty, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        unsafe { entry_ref(entry) }.map_or(empty, |e| e.key().into())
    })
}

/// Hash of the options the entry was compiled with (0 for an invalid entry).
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// `entry.package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_options_hash(entry: SlangpackEntry) -> u64 {
    crate::error::shield(0, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        unsafe { entry_ref(entry) }.map_or(0, |e| e.options_hash())
    })
}

/// Number of entry points of the entry (0 for an invalid entry).
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// `entry.package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_entry_point_count(entry: SlangpackEntry) -> usize {
    crate::error::shield(0, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        unsafe { entry_ref(entry) }.map_or(0, |e| e.entry_points().len())
    })
}

/// The C view of `ep`, an entry point of a package whose handle is `handle` (NULL gives an
/// empty C name).
///
/// # Safety
/// `handle` is NULL or a live handle.
unsafe fn entry_point_info(
    handle: *const SlangpackPackage,
    ep: &slangpack_reader::EntryPoint<'_>,
) -> SlangpackEntryPoint {
    let spirv = ep.spirv();
    // SAFETY: forwarded from the caller.
    let c_name = unsafe { handle.as_ref() }
        .and_then(|h| h.c_names.get(ep.spirv_entry_name()))
        .map_or(c"".as_ptr(), |name| name.as_ptr());
    SlangpackEntryPoint {
        name: ep.name().into(),
        spirv_entry_name: ep.spirv_entry_name().into(),
        spirv: if spirv.is_empty() {
            core::ptr::null()
        } else {
            spirv.as_ptr()
        },
        spirv_word_count: spirv.len(),
        hash: ep.hash(),
        stage: ep.stage().to_raw(),
        thread_group_size: ep.thread_group_size(),
        wave_size: ep.wave_size().unwrap_or(0),
        spirv_index: ep.spirv_index(),
        layout: ep
            .layout()
            .map_or(core::ptr::null(), |l| l as *const EntryPointLayout),
        spirv_entry_name_c: c_name,
        vk_stage: ep.stage().vk_stage_flags().to_raw(),
        reserved: 0,
    }
}

/// Fills `*out` with entry point number `index` of the entry (in bake order). Returns false
/// (leaving `*out` untouched) for an invalid entry, an index out of range or a NULL `out`.
/// No allocation.
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `out` is NULL or valid for writing one
/// `SlangpackEntryPoint`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_entry_point(
    entry: SlangpackEntry,
    index: usize,
    out: *mut SlangpackEntryPoint,
) -> bool {
    crate::error::shield(false, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        let Some(e) = (unsafe { entry_ref(entry) }) else {
            return false;
        };
        match (e.entry_points().nth(index), out.is_null()) {
            (Some(ep), false) => {
                // SAFETY: `out` is non-NULL and, per the caller, writable; the package is live.
                unsafe { out.write(entry_point_info(entry.package, &ep)) };
                true
            }
            _ => false,
        }
    })
}

/// Fills `*out` with the entry point Slang calls `name` (`name_len` bytes) and stores its index
/// in `*out_index` (when not NULL). Returns false when the entry has no such entry point.
/// A linear scan of the entry's few entry points; no allocation.
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// As for `slangpack_entry_entry_point`; `name` is valid for reading `name_len` bytes;
/// `out_index` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_find_entry_point(
    entry: SlangpackEntry,
    name: *const c_char,
    name_len: usize,
    out: *mut SlangpackEntryPoint,
    out_index: *mut usize,
) -> bool {
    crate::error::shield(false, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live and `name` readable.
        let (Some(e), Some(name)) = (unsafe { entry_ref(entry) }, unsafe {
            str_arg(name, name_len)
        }) else {
            return false;
        };
        let Some((index, ep)) = e
            .entry_points()
            .enumerate()
            .find(|(_, ep)| ep.name() == name)
        else {
            return false;
        };
        if out.is_null() {
            return false;
        }
        // SAFETY: `out` is non-NULL and writable; `out_index` is NULL or writable (caller).
        unsafe {
            out.write(entry_point_info(entry.package, &ep));
            if let Some(i) = out_index.as_mut() {
                *i = index;
            }
        }
        true
    })
}

/// Number of source dependencies of the entry (0 for an invalid entry).
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// `entry.package` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_dependency_count(entry: SlangpackEntry) -> usize {
    crate::error::shield(0, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        unsafe { entry_ref(entry) }.map_or(0, |e| e.dependencies().count())
    })
}

/// Fills `*out` with dependency number `index` of the entry. Returns false (leaving `*out`
/// untouched) for an invalid entry, an index out of range or a NULL `out`.
///
/// Thread safety: as for `slangpack_package_entry_count`.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_dependency(
    entry: SlangpackEntry,
    index: usize,
    out: *mut SlangpackDependency,
) -> bool {
    crate::error::shield(false, || {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        let Some(dep) = (unsafe { entry_ref(entry) }).and_then(|e| e.dependencies().nth(index))
        else {
            return false;
        };
        let value = SlangpackDependency {
            path: dep.path().into(),
            content_hash: dep.content_hash(),
        };
        // SAFETY: the caller guarantees `out` is NULL or writable.
        match unsafe { out.as_mut() } {
            Some(out) => {
                *out = value;
                true
            }
            None => false,
        }
    })
}

//! Hot reload: a package opened from a path that notices when the file is replaced (see the
//! reader's `Reloader`; what counts as a change of code and of layout is said there and in
//! docs/reader.md's "Hot reload" section).
//!
//! ```c
//! SlangpackReloader *shaders;
//! slangpack_reloader_open(path, strlen(path), &shaders, &error);
//! // each frame:
//! bool reloaded;
//! SlangpackPackage *previous = NULL;
//! if (slangpack_reloader_reload(shaders, &reloaded, &previous, &error) == SLANGPACK_ERROR_KIND_OK
//!     && reloaded) {
//!     for (size_t i = 0; i < slangpack_reloader_change_count(shaders); i++) {
//!         SlangpackKeyChange change;
//!         slangpack_reloader_change(shaders, i, &change);
//!         // change.key, change.kind: SLANGPACK_CHANGE_KIND_CODE, ..._LAYOUT, ...
//!     }
//!     slangpack_package_close(previous); // once nothing made from it is in use
//! }
//! const SlangpackPackage *package = slangpack_reloader_package(shaders);
//! ```

use crate::error::{ErrorOut, SlangpackError, SlangpackErrorKind};
use crate::package::{SlangpackPackage, SlangpackStr};
use core::ffi::c_char;
use slangpack_reader::{ChangeKind, FileIdentity, KeyChange, Package};
use std::path::PathBuf;

/// A package opened from a path, reopened when the file is replaced. Created by
/// `slangpack_reloader_open`, destroyed by `slangpack_reloader_close`.
pub struct SlangpackReloader {
    path: PathBuf,
    /// The package in use (owned by the reloader).
    package: Box<SlangpackPackage>,
    identity: FileIdentity,
    /// A file that failed to open or compare, reported once.
    refused: Option<FileIdentity>,
    /// What the last successful reload found.
    changes: Vec<KeyChange>,
    generation: u64,
}

/// How an entry changed between the replaced package and the new one.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlangpackChangeKind {
    /// The key is new.
    Added = 1,
    /// The key is gone.
    Removed = 2,
    /// Only code (SPIR-V, further targets' code) changed: layouts made from the old entry
    /// still fit; recreate shader modules and pipelines.
    Code = 3,
    /// The reflection or the entry points' declarations changed: recreate layouts too.
    Layout = 4,
}

impl From<ChangeKind> for SlangpackChangeKind {
    fn from(kind: ChangeKind) -> Self {
        match kind {
            ChangeKind::Added => SlangpackChangeKind::Added,
            ChangeKind::Removed => SlangpackChangeKind::Removed,
            ChangeKind::Code => SlangpackChangeKind::Code,
            ChangeKind::Layout => SlangpackChangeKind::Layout,
        }
    }
}

/// One key that differs, filled by `slangpack_reloader_change`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackKeyChange {
    /// The permutation key, owned by the reloader: valid until its next successful reload or
    /// its close. Look it up again in the new package with `slangpack_package_entry`.
    pub key: SlangpackStr,
    /// How it changed.
    pub kind: SlangpackChangeKind,
}

/// Opens the package file at `path` (`path_len` bytes, no NUL needed) as
/// `slangpack_package_open` does, and remembers the file's identity (device, inode, size,
/// modification time).
///
/// On success stores a new handle in `*out_reloader` (close it with
/// `slangpack_reloader_close`) and returns `SLANGPACK_ERROR_KIND_OK`; otherwise returns the
/// error kind, fills `*error` when not NULL and leaves `*out_reloader` untouched.
///
/// # Safety
/// `path` is valid for reading `path_len` bytes; `out_reloader` is valid for writing one
/// pointer; `error` is NULL or valid for writing one `SlangpackError`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reloader_open(
    path: *const c_char,
    path_len: usize,
    out_reloader: *mut *mut SlangpackReloader,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        if out_reloader.is_null() {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "out_reloader is NULL");
        }
        if path.is_null() {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "path is NULL");
        }
        // SAFETY: `path` is non-NULL and, per the caller, readable for `path_len` bytes.
        let bytes = unsafe { core::slice::from_raw_parts(path.cast::<u8>(), path_len) };
        #[cfg(unix)]
        let path = {
            use std::os::unix::ffi::OsStrExt;
            PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
        };
        #[cfg(not(unix))]
        let Ok(path) = core::str::from_utf8(bytes).map(PathBuf::from) else {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "path is not UTF-8");
        };
        let opened =
            FileIdentity::of(&path).and_then(|identity| Ok((identity, Package::open(&path)?)));
        match opened {
            Ok((identity, package)) => {
                let reloader = Box::new(SlangpackReloader {
                    path,
                    package: Box::new(SlangpackPackage::new(package)),
                    identity,
                    refused: None,
                    changes: Vec::new(),
                    generation: 0,
                });
                // SAFETY: `out_reloader` is non-NULL and, per the caller, writable.
                unsafe { out_reloader.write(Box::into_raw(reloader)) };
                SlangpackErrorKind::Ok
            }
            Err(e) => error.reader(&e),
        }
    })
}

/// Reopens the package if the file at the reloader's path was replaced (one `stat` when it
/// was not). Sets `*out_reloaded` to whether it was (false too when the file is missing, or
/// is the same broken file an earlier call reported).
///
/// After a reload the new package is in use (`slangpack_reloader_package`) and the changes
/// are listed by `slangpack_reloader_change`. The replaced package is stored in
/// `*out_previous` when `out_previous` is not NULL — the caller owns it and closes it with
/// `slangpack_package_close` once nothing made from it is in use; with `out_previous` NULL it
/// is closed at once. Without a reload `*out_previous` is set to NULL.
///
/// A new file that fails to open, or whose entries fail to load, returns its error (filling
/// `*error`); the package in use is kept and that file is not reported again.
///
/// Thread safety: no other call may use the reloader, or the package it hands out, during
/// this one.
///
/// # Safety
/// `reloader` is NULL or a live handle; `out_reloaded` is NULL or writable; `out_previous` is
/// NULL or valid for writing one pointer; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reloader_reload(
    reloader: *mut SlangpackReloader,
    out_reloaded: *mut bool,
    out_previous: *mut *mut SlangpackPackage,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        // SAFETY: the caller guarantees `reloader` is NULL or live, and not used elsewhere
        // during the call.
        let Some(reloader) = (unsafe { reloader.as_mut() }) else {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "reloader is NULL");
        };
        let report = |reloaded: bool, previous: Option<Box<SlangpackPackage>>| {
            if !out_reloaded.is_null() {
                // SAFETY: non-NULL and, per the caller, writable.
                unsafe { out_reloaded.write(reloaded) };
            }
            let previous = previous.map_or(core::ptr::null_mut(), Box::into_raw);
            if out_previous.is_null() {
                // SAFETY: made by `Box::into_raw` just above (or NULL), owned by nobody else.
                unsafe { crate::package::slangpack_package_close(previous) };
            } else {
                // SAFETY: non-NULL and, per the caller, writable.
                unsafe { out_previous.write(previous) };
            }
        };
        let Ok(now) = FileIdentity::of(&reloader.path) else {
            report(false, None);
            return SlangpackErrorKind::Ok;
        };
        if now == reloader.identity || Some(now) == reloader.refused {
            report(false, None);
            return SlangpackErrorKind::Ok;
        }
        let replaced = Package::open(&reloader.path).and_then(|package| {
            let changes = slangpack_reader::compare(&reloader.package.package, &package)?;
            Ok((package, changes))
        });
        match replaced {
            Ok((package, changes)) => {
                let previous = core::mem::replace(
                    &mut reloader.package,
                    Box::new(SlangpackPackage::new(package)),
                );
                reloader.identity = now;
                reloader.refused = None;
                reloader.changes = changes;
                reloader.generation += 1;
                report(true, Some(previous));
                SlangpackErrorKind::Ok
            }
            Err(e) => {
                reloader.refused = Some(now);
                report(false, None);
                error.reader(&e)
            }
        }
    })
}

/// The package in use: valid until the next successful `slangpack_reloader_reload` (which
/// hands it back as `*out_previous`) or `slangpack_reloader_close`. Do not close it yourself.
/// NULL for a NULL reloader.
///
/// # Safety
/// `reloader` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reloader_package(
    reloader: *const SlangpackReloader,
) -> *const SlangpackPackage {
    // SAFETY: the caller guarantees `reloader` is NULL or live.
    match unsafe { reloader.as_ref() } {
        Some(reloader) => &*reloader.package,
        None => core::ptr::null(),
    }
}

/// How many keys the last successful reload found changed (0 before the first, and for a
/// NULL reloader).
///
/// # Safety
/// `reloader` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reloader_change_count(
    reloader: *const SlangpackReloader,
) -> usize {
    // SAFETY: the caller guarantees `reloader` is NULL or live.
    unsafe { reloader.as_ref() }.map_or(0, |r| r.changes.len())
}

/// Fills `*out_change` with change `index` (in key order) of the last successful reload and
/// returns true; false (and `*out_change` untouched) for an index out of range or a NULL
/// argument.
///
/// # Safety
/// `reloader` is NULL or a live handle; `out_change` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reloader_change(
    reloader: *const SlangpackReloader,
    index: usize,
    out_change: *mut SlangpackKeyChange,
) -> bool {
    crate::error::shield(false, || {
        // SAFETY: the caller guarantees `reloader` is NULL or live.
        let Some(reloader) = (unsafe { reloader.as_ref() }) else {
            return false;
        };
        let Some(change) = reloader.changes.get(index) else {
            return false;
        };
        if out_change.is_null() {
            return false;
        }
        let change = SlangpackKeyChange {
            key: change.key().into(),
            kind: change.kind().into(),
        };
        // SAFETY: non-NULL and, per the caller, writable.
        unsafe { out_change.write(change) };
        true
    })
}

/// How many reloads replaced the package (0 after `slangpack_reloader_open`, and for a NULL
/// reloader).
///
/// # Safety
/// `reloader` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reloader_generation(reloader: *const SlangpackReloader) -> u64 {
    // SAFETY: the caller guarantees `reloader` is NULL or live.
    unsafe { reloader.as_ref() }.map_or(0, |r| r.generation)
}

/// Closes a reloader and the package in use (packages handed back by reloads are the
/// caller's and stay open). NULL is ignored.
///
/// # Safety
/// `reloader` is NULL or a handle from `slangpack_reloader_open` not closed before.
#[no_mangle]
pub unsafe extern "C" fn slangpack_reloader_close(reloader: *mut SlangpackReloader) {
    if reloader.is_null() {
        return;
    }
    // SAFETY: the caller guarantees a live handle made by `Box::into_raw`, closed once.
    let reloader = unsafe { Box::from_raw(reloader) };
    crate::error::shield((), move || drop(reloader));
}

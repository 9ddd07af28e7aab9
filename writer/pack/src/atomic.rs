//! Atomic file replacement: the one way the writer and every tool write an output.
//!
//! Platform code lives here: on Unix a new file gets mode 0644 (or the replaced file's mode)
//! and the directory is synced after the rename; elsewhere the temporary file keeps the
//! platform's default permissions and the rename alone is relied on.

use crate::PackError;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, synced, then
/// renamed over the destination. On any failure the previous file is untouched.
///
/// # Errors
/// [`PackError::Io`] naming the file that could not be written.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), PackError> {
    use std::io::Write;
    let mut staged = Staged::new(path)?;
    let tmp = staged.temp_path().to_path_buf();
    staged
        .file()
        .write_all(bytes)
        .map_err(|e| PackError::io(&tmp, e))?;
    staged.commit()
}

/// A file being written in place of another, for output written piece by piece: a temporary
/// file in the destination's directory that replaces the destination only at
/// [`Staged::commit`] (synced, then renamed over it, as [`write_atomically`] does). Dropped
/// uncommitted, the temporary file is deleted and the destination is untouched.
#[derive(Debug)]
pub struct Staged {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    dir: PathBuf,
}

impl Staged {
    /// A new, empty temporary file beside `path` (whose directory is created if missing).
    ///
    /// # Errors
    /// [`PackError::Io`] when the directory or the file cannot be created.
    pub fn new(path: &Path) -> Result<Staged, PackError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(|e| PackError::io(&dir, e))?;
        let tmp = tempfile::Builder::new()
            .prefix(".slangpack-")
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|e| PackError::io(&dir, e))?;
        Ok(Staged {
            tmp,
            path: path.to_path_buf(),
            dir,
        })
    }

    /// The temporary file, to write to.
    pub fn file(&mut self) -> &mut std::fs::File {
        self.tmp.as_file_mut()
    }

    /// Where the temporary file is.
    #[must_use]
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// Replaces the destination with what was written: permissions (those of the file it
    /// replaces, else 0644 on Unix), sync, rename, and on Unix a sync of the directory.
    ///
    /// # Errors
    /// [`PackError::Io`] naming the file that could not be written; the destination is then
    /// untouched.
    pub fn commit(self) -> Result<(), PackError> {
        let Staged { tmp, path, dir } = self;
        // The temporary file is created 0600; a package is as readable as the one it
        // replaces, or world-readable like any build output.
        let permissions = match std::fs::metadata(&path) {
            Ok(old) if old.is_file() => Some(old.permissions()),
            _ => new_file_permissions(),
        };
        if let Some(permissions) = permissions {
            tmp.as_file()
                .set_permissions(permissions)
                .map_err(|e| PackError::io(tmp.path(), e))?;
        }
        tmp.as_file()
            .sync_all()
            .map_err(|e| PackError::io(tmp.path(), e))?;
        tmp.persist(&path)
            .map_err(|e| PackError::io(&path, e.error))?;
        sync_directory(&dir);
        Ok(())
    }
}

/// Mode 0644: as readable as any build output.
#[cfg(unix)]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

/// The platform's defaults for a new file.
#[cfg(not(unix))]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    None
}

/// Makes the rename itself durable (Unix: fsync the directory; elsewhere a directory cannot
/// be opened as a file, and the rename is left to the file system).
fn sync_directory(dir: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = std::fs::File::open(dir) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

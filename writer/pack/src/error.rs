//! The pack crate's error type.

use std::path::{Path, PathBuf};

/// Why assembling, merging or writing a package failed. Nothing was written when one of
/// these comes back.
#[derive(Debug)]
#[non_exhaustive]
pub enum PackError {
    /// Reading or writing a file failed.
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The input is not usable: an entry without reflection, two shards that disagree, ...
    Input(String),
    /// A package given as input could not be read: one of its entries, an entry's raw
    /// tables, its shard plan.
    Read {
        /// What was being read, for the user: the input's label, and the entry or part.
        what: String,
        /// The reader's error.
        source: slangpack_reader::Error,
    },
    /// The format crate's package builder refused the package (a duplicate key, a limit, the
    /// spool file).
    Refused(slangpack_format::BuildError),
}

impl PackError {
    #[cold]
    pub(crate) fn io(path: &Path, source: std::io::Error) -> PackError {
        PackError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl std::fmt::Display for PackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            PackError::Input(message) => f.write_str(message),
            PackError::Read { what, source } => write!(f, "{what}: {source}"),
            PackError::Refused(e) => write!(f, "cannot assemble the package: {e}"),
        }
    }
}

impl std::error::Error for PackError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PackError::Io { source, .. } => Some(source),
            PackError::Input(_) => None,
            PackError::Read { source, .. } => Some(source),
            PackError::Refused(e) => Some(e),
        }
    }
}

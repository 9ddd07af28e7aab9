//! The tools' error type.

use std::path::{Path, PathBuf};

/// Why a tool failed. Nothing was written when one of these comes back.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolError {
    /// Reading or writing a file failed.
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The input is not usable: an entry that does not exist, two shards that disagree, a
    /// package the format builder refuses, ...
    Input(String),
    /// The output would pass the tool's budget ([`crate::budget`]): the package restates
    /// shared records (a reflection blob named by many entries) more often than its size
    /// allows.
    LimitExceeded(String),
}

impl ToolError {
    #[cold]
    pub(crate) fn io(path: &Path, source: std::io::Error) -> ToolError {
        ToolError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ToolError::Input(message) | ToolError::LimitExceeded(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ToolError::Io { source, .. } => Some(source),
            ToolError::Input(_) | ToolError::LimitExceeded(_) => None,
        }
    }
}

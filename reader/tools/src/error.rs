//! The tools' error type.

/// Why a tool failed. The tools read packages and return text; they write nothing.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolError {
    /// The input is not usable: an entry that does not exist, a package the tool cannot
    /// describe, ...
    Input(String),
    /// The output would pass the tool's budget ([`crate::budget`]): the package restates
    /// shared records (a reflection blob named by many entries) more often than its size
    /// allows.
    LimitExceeded(String),
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Input(message) | ToolError::LimitExceeded(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ToolError {}

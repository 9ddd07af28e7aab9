//! The writer's error type.

use slangpack_slang::com::SlangFailure;
use std::path::{Path, PathBuf};

/// Why a bake failed. Nothing was written when one of these comes back.
///
/// `Display` is one line (the first of Slang's diagnostics for a compile error);
/// [`BakeError::diagnostics`] is everything Slang said. `Debug` prints the same as the CLI
/// does — the key, then Slang's diagnostics verbatim — so that `fn main() -> Result<(),
/// Box<dyn Error>>` in a `build.rs` shows the carets and file positions rather than one
/// escaped line.
#[non_exhaustive]
pub enum BakeError {
    /// Slang rejected a program: its diagnostics, verbatim.
    Compile {
        /// The permutation key of the failing compilation (empty when not known).
        key: String,
        /// Which step failed: `load`, `link`, `codegen`, ...
        phase: &'static str,
        /// Slang's diagnostics, verbatim, each once (Slang may repeat one in a call).
        diagnostics: String,
    },
    /// The Slang library itself misbehaved (no global session, ...).
    Slang(String),
    /// Reading an input or writing the output failed.
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The inputs or options are not usable (no shaders found, conflicting keys, ...).
    Input(String),
    /// A stage asked for does not match the stage the entry point declares.
    StageMismatch {
        /// The entry point.
        entry_point: String,
        /// The stage asked for.
        requested: String,
        /// The stage declared by `[shader(...)]`.
        declared: String,
    },
    /// A compile worker process failed on this permutation: it crashed (a signal, an abort,
    /// an exception thrown through Slang's API), ran past its time limit or out of its memory
    /// limit. The other permutations are not affected.
    Worker {
        /// The permutation key.
        key: String,
        /// What happened to the worker (`was killed by signal 11 (SIGSEGV)`, ...).
        failure: String,
        /// The end of what the worker wrote to stderr (what the compiler printed before it
        /// died), possibly empty.
        diagnostics: String,
    },
    /// A further target's code disagrees with its bind view, a binding has no place on the
    /// target, or the tool that checks the code failed.
    Target {
        /// The permutation key.
        key: String,
        /// The target's name (`wgsl`, `glsl`, `hlsl`, `metal`).
        target: &'static str,
        /// What disagrees, with both values.
        message: String,
    },
}

impl From<slangpack_pack::PackError> for BakeError {
    fn from(error: slangpack_pack::PackError) -> BakeError {
        match error {
            slangpack_pack::PackError::Io { path, source } => BakeError::Io { path, source },
            slangpack_pack::PackError::Input(message) => BakeError::Input(message),
            other => BakeError::Input(other.to_string()),
        }
    }
}

impl From<slangpack_tools::ToolError> for BakeError {
    fn from(error: slangpack_tools::ToolError) -> BakeError {
        BakeError::Input(error.to_string())
    }
}

impl BakeError {
    #[cold]
    pub(crate) fn compile(key: &str, phase: &'static str, failure: SlangFailure) -> BakeError {
        let diagnostics = if failure.diagnostics.trim().is_empty() {
            format!(
                "Slang failed in {phase} with result 0x{:08x} and no diagnostics",
                failure.code
            )
        } else {
            crate::diagnostics::dedupe(&failure.diagnostics)
        };
        BakeError::Compile {
            key: key.to_string(),
            phase,
            diagnostics,
        }
    }

    #[cold]
    pub(crate) fn io(path: &Path, source: std::io::Error) -> BakeError {
        BakeError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The full diagnostics text for compile errors (all lines), else the message.
    pub fn diagnostics(&self) -> String {
        match self {
            BakeError::Compile { diagnostics, .. } => diagnostics.clone(),
            BakeError::Worker { diagnostics, .. } if !diagnostics.trim().is_empty() => {
                format!("{self}\n{diagnostics}")
            }
            other => other.to_string(),
        }
    }
}

impl std::fmt::Debug for BakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BakeError::Compile {
                key,
                phase,
                diagnostics,
            } => {
                let what = if key.is_empty() { "a program" } else { key };
                writeln!(f, "{what} failed to compile ({phase}):")?;
                f.write_str(diagnostics.trim_end())
            }
            other => f.write_str(other.diagnostics().trim_end()),
        }
    }
}

impl std::fmt::Display for BakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BakeError::Compile {
                key, diagnostics, ..
            } => {
                let first = diagnostics
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("");
                if key.is_empty() {
                    write!(f, "{first}")
                } else {
                    write!(f, "{key}: {first}")
                }
            }
            BakeError::Slang(message) | BakeError::Input(message) => f.write_str(message),
            BakeError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            BakeError::StageMismatch {
                entry_point,
                requested,
                declared,
            } => write!(
                f,
                "entry point `{entry_point}` was requested as a {requested} shader but is \
                 declared [shader(\"{declared}\")]"
            ),
            BakeError::Target {
                key,
                target,
                message,
            } => write!(f, "{key}: target {target}: {message}"),
            BakeError::Worker { key, failure, .. } => write!(
                f,
                "{key}: the compile worker {failure}; no result for this permutation (the \
                 others are not affected)"
            ),
        }
    }
}

impl std::error::Error for BakeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BakeError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `main() -> Result<(), Box<dyn Error>>` prints its error with `Debug`: Slang's
    /// diagnostics verbatim (every line, carets included), not one escaped line.
    #[test]
    fn debug_prints_slangs_diagnostics_verbatim() {
        let diagnostics =
            "copy.slang(5): error 20001: unexpected token\n    o[0] = ;\n           ^\n";
        let error: Box<dyn std::error::Error> = Box::new(BakeError::Compile {
            key: "copy".into(),
            phase: "load",
            diagnostics: diagnostics.into(),
        });
        let shown = format!("{error:?}");
        assert!(
            shown.starts_with("copy failed to compile (load):\n"),
            "{shown}"
        );
        assert!(shown.contains("    o[0] = ;\n           ^"), "{shown}");
        assert!(!shown.contains("\\n"), "no escaped newlines: {shown}");
        let input = BakeError::Input("no .slang files found in the inputs".into());
        assert_eq!(format!("{input:?}"), "no .slang files found in the inputs");
    }
}

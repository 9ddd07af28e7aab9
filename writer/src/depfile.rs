//! Make-syntax dependency files (`slangpack bake --depfile FILE`): the package as the target,
//! every file a baked entry depends on (and every input file: manifests, explicitly named
//! programs) as its prerequisites, for ninja (`depfile =`), make (`-include`) and CMake
//! custom commands (`DEPFILE`).
//!
//! Paths are written absolute and escaped as GCC's `-MD` escapes them, which make and ninja
//! both read: a space or tab becomes `\ ` (the backslashes right before it doubled), `#`
//! becomes `\#` and `$` becomes `$$`. A path holding a newline cannot be spelled in that
//! syntax and is refused. Directories scanned for programs are not listed (make and ninja
//! track files): a program added to a scanned directory is noticed by `--watch`, not by the
//! depfile.
//!
//! ```
//! use std::path::Path;
//! let text = slangpack_writer::depfile::render(
//!     Path::new("/out/my shaders.slangpack"),
//!     [Path::new("/src/a.slang"), Path::new("/src/lib #1.slang")],
//! )?;
//! assert_eq!(text, "/out/my\\ shaders.slangpack: \\\n  /src/a.slang \\\n  /src/lib\\ \\#1.slang\n");
//! # Ok::<(), slangpack_writer::BakeError>(())
//! ```

use crate::bake::BakeOutcome;
use crate::error::BakeError;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every file the package of `outcome` depends on, absolute and sorted: each entry's
/// dependencies (stored relative to the bake root) and the inputs that are files.
pub fn dependencies(outcome: &BakeOutcome, inputs: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths = BTreeSet::new();
    for entry in &outcome.entries {
        for (path, _) in &entry.dependencies {
            paths.insert(outcome.root.join(path));
        }
    }
    for input in inputs.iter().filter(|input| input.is_file()) {
        paths.insert(input.canonicalize().unwrap_or_else(|_| input.clone()));
    }
    paths.into_iter().collect()
}

/// The depfile text: one rule, `target: prerequisites`, one prerequisite per continued line.
///
/// # Errors
/// [`BakeError::Input`] for a path that is not UTF-8 or holds a newline (make syntax cannot
/// spell it).
pub fn render<'p>(
    target: &Path,
    prerequisites: impl IntoIterator<Item = &'p Path>,
) -> Result<String, BakeError> {
    let mut text = escape(target)?;
    text.push(':');
    for path in prerequisites {
        text.push_str(" \\\n  ");
        text.push_str(&escape(path)?);
    }
    text.push('\n');
    Ok(text)
}

/// Writes the depfile of `outcome`'s package, written to `output`, to `depfile` atomically.
///
/// # Errors
/// As [`render`], and [`BakeError::Io`] when the file cannot be written.
pub fn write(
    depfile: &Path,
    output: &Path,
    outcome: &BakeOutcome,
    inputs: &[PathBuf],
) -> Result<(), BakeError> {
    let target = absolute(output);
    let paths = dependencies(outcome, inputs);
    let text = render(&target, paths.iter().map(PathBuf::as_path))?;
    if std::fs::read(depfile).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(());
    }
    slangpack_pack::write_atomically(depfile, text.as_bytes())?;
    Ok(())
}

/// `path` made absolute against the current directory (its directory canonicalized where it
/// exists, so that the target names the file the build system sees).
fn absolute(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map_or_else(|_| path.clone(), |dir| dir.join(name)),
        _ => path,
    }
}

/// One path in make syntax (GCC's `-MD` escaping).
fn escape(path: &Path) -> Result<String, BakeError> {
    let Some(text) = path.to_str() else {
        return Err(BakeError::Input(format!(
            "{}: a depfile path must be UTF-8",
            path.display()
        )));
    };
    if text.contains(['\n', '\r']) {
        return Err(BakeError::Input(format!(
            "{text:?}: make syntax cannot spell a path holding a line break"
        )));
    }
    let mut out = String::with_capacity(text.len());
    let mut backslashes = 0;
    for c in text.chars() {
        match c {
            ' ' | '\t' => {
                // The backslashes before a blank are doubled, then the blank is escaped.
                out.extend(std::iter::repeat_n('\\', backslashes + 1));
                out.push(c);
            }
            '#' => out.push_str("\\#"),
            '$' => out.push_str("$$"),
            _ => out.push(c),
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_escaped_as_gcc_escapes_them() {
        let e = |s: &str| escape(Path::new(s)).unwrap();
        assert_eq!(e("/a/b.slang"), "/a/b.slang");
        assert_eq!(e("/a b/c\td"), "/a\\ b/c\\\td");
        assert_eq!(e("/a#1/$x"), "/a\\#1/$$x");
        // A backslash before a blank is doubled; elsewhere it stays.
        assert_eq!(e("/a\\ b/c\\d"), "/a\\\\\\ b/c\\d");
        assert!(escape(Path::new("/a\nb")).is_err());
    }

    #[test]
    fn a_rule_without_prerequisites_is_still_a_rule() {
        assert_eq!(render(Path::new("/o"), []).unwrap(), "/o:\n");
    }
}

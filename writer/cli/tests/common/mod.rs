//! What the CLI test files share: running the real `slangpack` binary and small path and
//! text helpers.
#![allow(
    dead_code,
    reason = "each test file is its own crate and uses a part of these helpers"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `slangpack` binary of this build with `args`.
pub fn slangpack(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slangpack"))
        .args(args)
        .output()
        .expect("the slangpack binary runs")
}

/// The repository's example shaders.
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/shaders")
}

/// Output bytes as text (lossy).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A path as an argument.
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Writes `contents` to `dir/name` (creating directories) and returns the path.
pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    path
}

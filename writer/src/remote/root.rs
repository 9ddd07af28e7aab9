//! The input root's shared parts: the bake root's shader sources and the toolchain (this
//! executable and the Slang libraries it loaded), as files with their digests and as REAPI
//! `Directory` trees.

use slangpack_cache::reapi::Digest;
use slangpack_cache::{action, digest_of, encoded};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Extensions of the files under the bake root that travel as sources.
const SOURCE_EXTENSIONS: &[&str] = &["slang", "slangh", "hlsl", "hlsli", "h", "glsl"];

/// The most bytes of sources one bake sends.
const MAX_SOURCE_BYTES: u64 = 256 << 20;

/// The shader sources under `root` (hidden directories and `target` left out): path
/// relative to the root, full path, digest; in path order.
pub(super) fn source_files(root: &Path) -> Result<Vec<(String, PathBuf, Digest)>, String> {
    let mut out = Vec::new();
    let mut total = 0u64;
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    pending.push(path);
                }
                continue;
            }
            let wanted = path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e));
            if !kind.is_file() || !wanted {
                continue;
            }
            let relative = crate::plan::relative_to(&path, root);
            if action::check_path(&relative).is_err() {
                continue;
            }
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            total += bytes.len() as u64;
            if total > MAX_SOURCE_BYTES || out.len() >= action::MAX_TREE_FILES {
                return Err(format!(
                    "the sources under {} are more than a farm is sent",
                    root.display()
                ));
            }
            out.push((relative, path, digest_of(&bytes)));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// A serialized message and its digest.
pub(super) type Encoded = (Digest, Vec<u8>);

/// The `Directory` tree of `files` (`executables` marked so): its root's digest, and every
/// directory blob in it.
pub(super) fn directory_tree(
    files: &[(String, Digest)],
    executables: &[String],
) -> Result<(Digest, Vec<Encoded>), String> {
    let tree = action::tree_of(files)?;
    let mut root = tree.root.unwrap_or_default();
    for file in &mut root.files {
        file.is_executable = executables.contains(&file.name);
    }
    let (digest, bytes) = encoded(&root);
    let mut blobs = vec![(digest.clone(), bytes)];
    blobs.extend(tree.children.iter().map(encoded));
    Ok((digest, blobs))
}

/// A file of the toolchain.
#[derive(Clone)]
pub(super) struct ToolFile {
    /// Its path under `tool/`.
    pub(super) name: String,
    /// Where it is on this machine.
    pub(super) path: PathBuf,
    /// Its digest.
    pub(super) digest: Digest,
    /// Whether it is the executable the action runs.
    pub(super) executable: bool,
}

/// This executable and the Slang libraries it loaded, with their digests (computed once per
/// process).
pub(super) fn toolchain() -> Result<Vec<ToolFile>, String> {
    static TOOLCHAIN: OnceLock<Result<Vec<ToolFile>, String>> = OnceLock::new();
    TOOLCHAIN.get_or_init(read_toolchain).clone()
}

fn read_toolchain() -> Result<Vec<ToolFile>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("this executable: {e}"))?;
    let file = |name: String, path: PathBuf, executable: bool| -> Result<ToolFile, String> {
        let digest = slangpack_cache::digest_of_file(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(ToolFile {
            name,
            digest,
            path,
            executable,
        })
    };
    let exe_name = exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or("this executable has no name")?;
    let mut out = vec![file(exe_name, exe.clone(), true)?];
    let lib_dir =
        slang_library_dir().ok_or("the Slang library this process loaded is not found")?;
    let entries = std::fs::read_dir(&lib_dir).map_err(|e| format!("{}: {e}", lib_dir.display()))?;
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("libslang") && n.contains(".so"))
        .collect();
    names.sort();
    for name in names {
        out.push(file(format!("lib/{name}"), lib_dir.join(&name), false)?);
    }
    Ok(out)
}

/// The directory of the Slang compiler library mapped into this process.
fn slang_library_dir() -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| {
            Path::new(path)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("libslang"))
        })
        .and_then(|path| Path::new(path).parent().map(Path::to_path_buf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use slangpack_cache::reapi::Directory;

    #[test]
    fn sources_leave_hidden_and_target_directories_out() {
        let dir = tempfile::tempdir().unwrap();
        for path in [
            "a.slang",
            "lib/b.slangh",
            "notes.txt",
            ".git/c.slang",
            "target/d.slang",
        ] {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, path).unwrap();
        }
        let found: Vec<String> = source_files(dir.path())
            .unwrap()
            .into_iter()
            .map(|(relative, _, digest)| {
                assert_eq!(digest, digest_of(relative.as_bytes()));
                relative
            })
            .collect();
        assert_eq!(found, ["a.slang", "lib/b.slangh"]);
    }

    #[test]
    fn the_tool_tree_marks_its_executable() {
        let files = vec![
            ("bake".to_string(), digest_of(b"exe")),
            ("lib/libslang.so".to_string(), digest_of(b"lib")),
        ];
        let (root, blobs) = directory_tree(&files, &["bake".to_string()]).unwrap();
        use prost::Message;
        let top = Directory::decode(blobs[0].1.as_slice()).unwrap();
        assert_eq!(blobs[0].0, root);
        assert!(top.files[0].is_executable);
        assert_eq!(top.directories[0].name, "lib");
        assert_eq!(blobs.len(), 2);
    }
}

//! One permutation's compile as the Remote Execution API describes an action, and the `Tree`
//! of the files a compile read, built and checked.
//!
//! - The `Command` names what produces the entry: the permutation's key, its options hash
//!   (this writer build, the format version, the Slang version, every option and target) and
//!   its main module's path; its output paths are [`ENTRY_OUTPUT`] and [`INPUTS_OUTPUT`].
//! - The input root is a `Directory` tree holding the main module by digest, at its path
//!   relative to the bake root.
//! - The `ActionResult` names two output files: [`ENTRY_OUTPUT`], the entry as a one-entry
//!   package, and [`INPUTS_OUTPUT`], a serialized `Tree` of every file the compile read (the
//!   main module, imports and includes) by path and digest. A module without entry points
//!   has only the second.
//!
//! A lookup uses a result only where every file its tree names is, now, a regular file inside
//! the bake root with that digest ([`tree_files`] refuses names that could leave it).

use crate::reapi::{
    command, platform, Action, Command, Digest, Directory, DirectoryNode, FileNode, Platform, Tree,
};
use crate::{digest_of, encoded};
use std::collections::BTreeMap;

/// The output file holding the entry.
pub const ENTRY_OUTPUT: &str = "entry.slangpack";

/// The output file holding the `Tree` of the files the compile read.
pub const INPUTS_OUTPUT: &str = "inputs.tree";

/// The output file of an assembly action ([`describe_assembly`]): the package.
pub const PACKAGE_OUTPUT: &str = "package.slangpack";

/// The most files one compile's tree may name.
pub const MAX_TREE_FILES: usize = 100_000;

/// The deepest path a tree may name.
pub const MAX_TREE_DEPTH: usize = 64;

/// What decides one permutation's compile before it runs.
#[derive(Debug, Clone)]
pub struct Permutation<'a> {
    /// The permutation key.
    pub key: &'a str,
    /// The options hash (see the writer's `plan::options_hash`).
    pub options_hash: u64,
    /// The main module's path relative to the bake root, `/`-separated.
    pub source: &'a str,
    /// The main module's digest.
    pub source_digest: Digest,
}

/// An action and the blobs that describe it (its `Command` and every `Directory` of its input
/// root), which a store holding the action's result should hold too.
#[derive(Debug, Clone)]
pub struct Described {
    /// The digest of the serialized `Action`: the action cache's key.
    pub digest: Digest,
    /// The `Action`.
    pub action: Action,
    /// The serialized `Action`, `Command` and `Directory` messages, with their digests.
    pub blobs: Vec<(Digest, Vec<u8>)>,
}

/// The action of `command` over the input root `tree`, with the blobs that describe it.
fn action_of(command: &Command, tree: &Tree) -> Described {
    let (command_digest, command_bytes) = encoded(command);
    let (root_digest, _) = encoded(tree.root.as_ref().unwrap_or(&Directory::default()));
    let mut blobs = vec![(command_digest.clone(), command_bytes)];
    for directory in tree.root.iter().chain(&tree.children) {
        let (d, bytes) = encoded(directory);
        blobs.push((d, bytes));
    }
    let action = Action {
        command_digest: Some(command_digest),
        input_root_digest: Some(root_digest),
        platform: Some(Platform {
            properties: vec![platform::Property {
                name: "slangpack-cache".into(),
                value: "2".into(),
            }],
        }),
        ..Default::default()
    };
    let (digest, action_bytes) = encoded(&action);
    blobs.push((digest.clone(), action_bytes));
    blobs.sort_by(|a, b| a.0.hash.cmp(&b.0.hash));
    blobs.dedup_by(|a, b| a.0.hash == b.0.hash);
    Described {
        digest,
        action,
        blobs,
    }
}

/// The input file of an assembly action naming its permutations.
pub const PERMUTATIONS_INPUT: &str = "permutations";

/// The assembly of a package as an action, keyed by what a bake knows before it compiles:
/// `permutations` (the bake's canonical list of its permutations, one line each with the key,
/// options hash, main module path and content hash) as the one file of the input root, and
/// `storage` (what decides the package's bytes beside its entries) in the command. Its one
/// output is [`PACKAGE_OUTPUT`]. The list's blob is one of the described blobs.
///
/// What such a result holds is a candidate, not an answer: the bake checks every entry of it
/// against the checkout as it checks a previous package.
#[must_use]
pub fn describe_assembly(permutations: &[u8], storage: &[String]) -> Described {
    let mut arguments = vec!["slangpack".to_string(), "assemble".to_string()];
    arguments.extend(storage.iter().cloned());
    arguments.push(PERMUTATIONS_INPUT.into());
    let command = Command {
        arguments,
        output_paths: vec![PACKAGE_OUTPUT.into()],
        ..Default::default()
    };
    let list = digest_of(permutations);
    let root = Directory {
        files: vec![FileNode {
            name: PERMUTATIONS_INPUT.into(),
            digest: Some(list.clone()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let tree = Tree {
        root: Some(root),
        children: Vec::new(),
    };
    let mut described = action_of(&command, &tree);
    described.blobs.push((list, permutations.to_vec()));
    described
}

/// `permutation`'s compile as an action.
///
/// # Errors
/// A message when the source path cannot name a file inside the root ([`check_path`]).
pub fn describe(permutation: &Permutation<'_>) -> Result<Described, String> {
    let command = Command {
        arguments: vec![
            "slangpack".into(),
            "compile-entry".into(),
            "--key".into(),
            permutation.key.into(),
            "--options-hash".into(),
            format!("{:016x}", permutation.options_hash),
            permutation.source.into(),
        ],
        output_paths: vec![ENTRY_OUTPUT.into(), INPUTS_OUTPUT.into()],
        environment_variables: Vec::<command::EnvironmentVariable>::new(),
        ..Default::default()
    };
    let tree = tree_of(&[(
        permutation.source.to_string(),
        permutation.source_digest.clone(),
    )])?;
    Ok(action_of(&command, &tree))
}

/// Whether `path` may name a file inside a bake root: relative, `/`-separated, each component
/// a plain name (not empty, `.` or `..`, no `\`, no NUL or other control character), at most
/// [`MAX_TREE_DEPTH`] deep.
///
/// # Errors
/// A message naming the path and what is wrong with it.
pub fn check_path(path: &str) -> Result<(), String> {
    let components: Vec<&str> = path.split('/').collect();
    if components.len() > MAX_TREE_DEPTH {
        return Err(format!("{path:?} is deeper than {MAX_TREE_DEPTH}"));
    }
    for c in &components {
        check_name(c).map_err(|why| format!("{path:?}: {why}"))?;
    }
    Ok(())
}

/// Whether `name` is a plain file or directory name.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name == "." || name == ".." {
        return Err(format!("the component {name:?} is not a plain name"));
    }
    if name.contains(['\\', ':']) || name.chars().any(char::is_control) {
        return Err(format!(
            "the component {name:?} holds a separator or a control character"
        ));
    }
    Ok(())
}

/// A nested directory while a tree is built: files by name, subdirectories by name.
#[derive(Default)]
struct Node {
    files: BTreeMap<String, Digest>,
    dirs: BTreeMap<String, Node>,
}

/// The `Tree` of `files` (paths relative to the bake root, with their digests): the root
/// `Directory` and every directory under it, each with its entries sorted by name as REAPI
/// asks.
///
/// # Errors
/// A message for a path [`check_path`] refuses, or one named twice (as a file and a directory,
/// or as two files).
pub fn tree_of(files: &[(String, Digest)]) -> Result<Tree, String> {
    let mut root = Node::default();
    for (path, digest) in files {
        check_path(path)?;
        let mut node = &mut root;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                if node.dirs.contains_key(part)
                    || node
                        .files
                        .insert(part.to_string(), digest.clone())
                        .is_some_and(|d| d != *digest)
                {
                    return Err(format!("{path:?} is named twice"));
                }
            } else {
                if node.files.contains_key(part) {
                    return Err(format!("{path:?} is named twice"));
                }
                node = node.dirs.entry(part.to_string()).or_default();
            }
        }
    }
    let mut children = Vec::new();
    let root = directory(&root, &mut children);
    children.sort_by_key(|d| encoded(d).0.hash);
    children.dedup();
    Ok(Tree {
        root: Some(root),
        children,
    })
}

/// `node` as a `Directory`, every directory under it added to `children`.
fn directory(node: &Node, children: &mut Vec<Directory>) -> Directory {
    let mut out = Directory::default();
    for (name, digest) in &node.files {
        out.files.push(FileNode {
            name: name.clone(),
            digest: Some(digest.clone()),
            ..Default::default()
        });
    }
    for (name, sub) in &node.dirs {
        let child = directory(sub, children);
        out.directories.push(DirectoryNode {
            name: name.clone(),
            digest: Some(encoded(&child).0),
        });
        children.push(child);
    }
    out
}

/// Every file `tree` names, as (path relative to the bake root, digest), in path order.
///
/// # Errors
/// A message for a tree without a root, a name [`check_path`] refuses, a directory the tree
/// does not hold, a loop, a symlink, or more than [`MAX_TREE_FILES`] files: an untrusted
/// tree never names a path outside the root.
pub fn tree_files(tree: &Tree) -> Result<Vec<(String, Digest)>, String> {
    let root = tree.root.as_ref().ok_or("the tree has no root")?;
    let by_digest: BTreeMap<String, &Directory> = tree
        .children
        .iter()
        .map(|d| (encoded(d).0.hash, d))
        .collect();
    let mut out = Vec::new();
    let mut pending = vec![(String::new(), root, 0usize)];
    let mut visited = 0usize;
    while let Some((prefix, dir, depth)) = pending.pop() {
        visited += 1;
        if depth > MAX_TREE_DEPTH || visited > MAX_TREE_FILES {
            return Err("the tree is too deep or too large".into());
        }
        if !dir.symlinks.is_empty() {
            return Err(format!("the tree holds symlinks under {prefix:?}"));
        }
        for file in &dir.files {
            check_name(&file.name)?;
            let digest = file.digest.clone().ok_or("a file without a digest")?;
            if !crate::is_valid(&digest) {
                return Err(format!("{}{}: not a SHA-256 digest", prefix, file.name));
            }
            out.push((format!("{prefix}{}", file.name), digest));
            if out.len() > MAX_TREE_FILES {
                return Err(format!("the tree names more than {MAX_TREE_FILES} files"));
            }
        }
        for sub in &dir.directories {
            check_name(&sub.name)?;
            let digest = sub.digest.as_ref().ok_or("a directory without a digest")?;
            let child = by_digest
                .get(&digest.hash)
                .ok_or_else(|| format!("{prefix}{}: the tree does not hold it", sub.name))?;
            pending.push((format!("{prefix}{}/", sub.name), child, depth + 1));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    if out.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err("the tree names a file twice".into());
    }
    Ok(out)
}

/// The digest of `bytes` (a file's content), as the tree names it.
#[must_use]
pub fn file_digest(bytes: &[u8]) -> Digest {
    digest_of(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_round_trip_and_hostile_names_are_refused() {
        let files = vec![
            ("a.slang".to_string(), digest_of(b"a")),
            ("lib/common.slang".to_string(), digest_of(b"c")),
            ("lib/deep/x.slang".to_string(), digest_of(b"x")),
        ];
        let tree = tree_of(&files).unwrap();
        assert_eq!(tree_files(&tree).unwrap(), files);
        for bad in [
            "../up.slang",
            "/abs.slang",
            "a//b",
            "a/./b",
            "c:\\x",
            "a\nb",
            "",
        ] {
            assert!(check_path(bad).is_err(), "{bad:?}");
            assert!(tree_of(&[(bad.to_string(), digest_of(b""))]).is_err());
        }
        // A hostile tree: a `..` file, a directory the tree lacks, a loop.
        let mut escape = tree.clone();
        escape.root.as_mut().unwrap().files[0].name = "..".into();
        assert!(tree_files(&escape).is_err());
        let mut missing = tree.clone();
        missing.children.clear();
        assert!(tree_files(&missing).is_err());
        let mut lonely = Directory::default();
        lonely.directories.push(DirectoryNode {
            name: "self".into(),
            digest: Some(digest_of(b"whatever")),
        });
        assert!(tree_files(&Tree {
            root: Some(lonely),
            children: vec![]
        })
        .is_err());
    }

    #[test]
    fn actions_differ_by_every_input() {
        let base = Permutation {
            key: "k",
            options_hash: 1,
            source: "k.slang",
            source_digest: digest_of(b"src"),
        };
        let d = describe(&base).unwrap().digest;
        assert_eq!(describe(&base).unwrap().digest, d);
        for other in [
            Permutation {
                key: "j",
                ..base.clone()
            },
            Permutation {
                options_hash: 2,
                ..base.clone()
            },
            Permutation {
                source: "j.slang",
                ..base.clone()
            },
            Permutation {
                source_digest: digest_of(b"other"),
                ..base.clone()
            },
        ] {
            assert_ne!(describe(&other).unwrap().digest, d);
        }
    }
}

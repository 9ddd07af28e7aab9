//! ARCHITECTURE.md kept true: every path it names exists, every workspace crate is in its
//! table (and every published one in README.md's) with its directory, and the dependency
//! drawing's arrows are the published crates' dependencies as `cargo metadata` reports them:
//! each arrow a real dependency, and each real dependency drawn or implied by a path of arrows.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lies in the workspace")
        .to_path_buf()
}

fn read(name: &str) -> String {
    std::fs::read_to_string(root().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// One workspace crate: its directory relative to the root (`writer/pack`), whether it is
/// published, and the workspace crates it depends on as a normal dependency.
struct Crate {
    dir: String,
    published: bool,
    depends_on: BTreeSet<String>,
}

fn workspace() -> BTreeMap<String, Crate> {
    let out =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(root())
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .output()
            .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).expect("its JSON");
    let root = root();
    let packages = metadata["packages"].as_array().expect("packages");
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    packages
        .iter()
        .map(|p| {
            let manifest = PathBuf::from(p["manifest_path"].as_str().expect("manifest_path"));
            let dir = manifest
                .parent()
                .and_then(|d| d.strip_prefix(&root).ok())
                .expect("a crate of this workspace")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let depends_on = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].is_null())
                .filter_map(|d| d["name"].as_str())
                .filter(|n| names.contains(n))
                .map(str::to_string)
                .collect();
            let crate_ = Crate {
                dir,
                // `publish = false` is `[]`; unset is `null`.
                published: p["publish"].is_null(),
                depends_on,
            };
            (p["name"].as_str().expect("name").to_string(), crate_)
        })
        .collect()
}

/// The `(crate, directory)` rows of the first table under `heading` (backticks removed, the
/// directory without its trailing `/`).
fn table(text: &str, heading: &str) -> BTreeMap<String, String> {
    let section = text
        .split_once(heading)
        .unwrap_or_else(|| panic!("no heading {heading:?}"))
        .1;
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let cell = |i: usize| cells.get(i).copied().unwrap_or("").trim_matches('`');
            (
                cell(1).to_string(),
                cell(2).trim_end_matches('/').to_string(),
            )
        })
        .collect()
}

/// The arrows of the dependency drawing: `(dependency, dependent)` for each `A <- B`, with
/// the names as crate names (`pack` is `slangpack-pack`).
fn drawn_arrows(text: &str) -> BTreeSet<(String, String)> {
    let section = text
        .split_once("## Dependencies")
        .expect("a Dependencies section")
        .1;
    let drawing = section
        .split_once("```text\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("a text block with the drawing")
        .0;
    let name = |short: &str| format!("slangpack-{}", short.trim());
    let mut arrows = BTreeSet::new();
    for line in drawing.lines().filter(|l| l.contains("<-")) {
        let names: Vec<String> = line.split("<-").map(name).collect();
        for pair in names.windows(2) {
            arrows.insert((pair[0].clone(), pair[1].clone()));
        }
    }
    arrows
}

/// Spans in backticks and link targets that name files or directories of the repository:
/// those with a `/` (and no space or `<`), and file names ending in `.md`.
fn named_paths(text: &str) -> BTreeSet<String> {
    let mut spans: Vec<&str> = text.split('`').skip(1).step_by(2).collect();
    spans.extend(
        text.split("](")
            .skip(1)
            .filter_map(|rest| rest.split_once(')').map(|(target, _)| target)),
    );
    spans
        .into_iter()
        .filter(|s| !s.contains(' ') && !s.contains('<') && !s.contains("://"))
        .filter(|s| s.contains('/') || s.ends_with(".md"))
        .map(|s| s.split('#').next().unwrap_or(s).to_string())
        .collect()
}

#[test]
fn every_path_architecture_md_names_exists() {
    let text = read("ARCHITECTURE.md");
    let paths = named_paths(&text);
    assert!(paths.len() > 20, "too few paths found: {paths:?}");
    let missing: Vec<&String> = paths.iter().filter(|p| !root().join(p).exists()).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names missing paths: {missing:?}"
    );
}

#[test]
fn every_workspace_crate_is_in_the_tables() {
    let crates = workspace();
    let architecture = table(&read("ARCHITECTURE.md"), "## The crates");
    let readme = table(&read("README.md"), "## The crates");
    for (name, c) in &crates {
        assert_eq!(
            architecture.get(name),
            Some(&c.dir),
            "ARCHITECTURE.md's table: {name} in {}",
            c.dir
        );
        if c.published {
            assert_eq!(
                readme.get(name),
                Some(&c.dir),
                "README.md's crate table: {name} in {}",
                c.dir
            );
        }
    }
    let unknown: Vec<&String> = architecture
        .keys()
        .filter(|n| !crates.contains_key(*n))
        .collect();
    assert!(
        unknown.is_empty(),
        "ARCHITECTURE.md lists crates that do not exist: {unknown:?}"
    );
}

#[test]
fn the_dependency_drawing_is_cargo_metadata() {
    let crates = workspace();
    let arrows = drawn_arrows(&read("ARCHITECTURE.md"));
    let readme = table(&read("README.md"), "## The crates");
    for (dependency, dependent) in &arrows {
        for name in [dependency, dependent] {
            assert!(
                crates.get(name).is_some_and(|c| c.published) && readme.contains_key(name),
                "the drawing names {name}, which is no published crate of README.md's table"
            );
        }
        assert!(
            crates[dependent].depends_on.contains(dependency),
            "the drawing has {dependency} <- {dependent}, which is no dependency"
        );
    }
    // Every dependency between published crates is an arrow or a path of arrows.
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(at) = stack.pop() {
            if at == to {
                return true;
            }
            if seen.insert(at.clone()) {
                stack.extend(
                    arrows
                        .iter()
                        .filter(|(_, b)| *b == at)
                        .map(|(a, _)| a.clone()),
                );
            }
        }
        false
    };
    for (name, c) in crates.iter().filter(|(_, c)| c.published) {
        for dependency in c.depends_on.iter().filter(|d| crates[*d].published) {
            assert!(
                reaches(name, dependency),
                "{name} depends on {dependency}, which the drawing does not show"
            );
        }
    }
}

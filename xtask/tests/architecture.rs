//! ARCHITECTURE.md kept true: every path it names exists, every workspace crate is in its
//! table (and every published one in README.md's) with its directory, and the dependency
//! drawing's arrows are the published crates' dependencies as `cargo metadata` reports them:
//! each arrow a real dependency, and each real dependency drawn or implied by a path of arrows.
//! The drawing's arrows from Slang's crates (`shader-slang`, `shader-slang-sys`) are checked
//! the same way, and no other crate depends on them or names them in its code: Slang sits
//! behind one seam. And the reader's, format and writer crates' top-level modules name each
//! other in no circle (the writer's doc links included: a reader follows them too).

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
/// published, the workspace crates it depends on as a normal dependency, the crates outside
/// the workspace it depends on as a normal dependency, and every crate it depends on in any
/// way (normal, build or dev).
struct Crate {
    dir: String,
    published: bool,
    depends_on: BTreeSet<String>,
    external: BTreeSet<String>,
    any_kind: BTreeSet<String>,
}

/// Slang's crates on crates.io: the compiler's Rust API and its raw bindings.
const SLANG_CRATES: [&str; 2] = ["shader-slang", "shader-slang-sys"];

/// The crates that may depend on Slang's crates and name them in code: the Slang front end,
/// and the benchmarks, which measure Slang's own reflection as the peer slangpack's lookups
/// are compared with.
const SLANG_SIDE: [(&str, &str); 2] = [
    ("slangpack-slang", "writer/slang"),
    ("slangpack-benches", "benches"),
];

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
            let dependencies = p["dependencies"].as_array().expect("dependencies");
            let normal = |workspace: bool| -> BTreeSet<String> {
                dependencies
                    .iter()
                    .filter(|d| d["kind"].is_null())
                    .filter_map(|d| d["name"].as_str())
                    .filter(|n| names.contains(n) == workspace)
                    .map(str::to_string)
                    .collect()
            };
            let any_kind = dependencies
                .iter()
                .filter_map(|d| d["name"].as_str())
                .map(str::to_string)
                .collect();
            let crate_ = Crate {
                dir,
                // `publish = false` is `[]`; unset is `null`.
                published: p["publish"].is_null(),
                depends_on: normal(true),
                external: normal(false),
                any_kind,
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
/// the names as crate names (`pack` is `slangpack-pack`; Slang's crates keep their names).
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
    let name = |short: &str| {
        let short = short.trim();
        if SLANG_CRATES.contains(&short) {
            short.to_string()
        } else {
            format!("slangpack-{short}")
        }
    };
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
        let external = SLANG_CRATES.contains(&dependency.as_str());
        for name in [dependency, dependent] {
            assert!(
                (external && name == dependency)
                    || crates.get(name).is_some_and(|c| c.published) && readme.contains_key(name),
                "the drawing names {name}, which is no published crate of README.md's table"
            );
        }
        let depends = if external {
            &crates[dependent].external
        } else {
            &crates[dependent].depends_on
        };
        assert!(
            depends.contains(dependency),
            "the drawing has {dependency} <- {dependent}, which is no dependency"
        );
    }
    // Every published crate's dependency on Slang's crates is drawn.
    for (name, c) in crates.iter().filter(|(_, c)| c.published) {
        for slang in c
            .external
            .iter()
            .filter(|d| SLANG_CRATES.contains(&d.as_str()))
        {
            assert!(
                arrows.contains(&(slang.clone(), name.clone())),
                "{name} depends on {slang}, which the drawing does not show"
            );
        }
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

#[test]
fn only_the_slang_front_end_depends_on_or_names_slang() {
    let crates = workspace();
    let side: BTreeSet<&str> = SLANG_SIDE.iter().map(|(name, _)| *name).collect();
    for (name, c) in &crates {
        for slang in SLANG_CRATES {
            assert!(
                side.contains(name.as_str()) || !c.any_kind.contains(slang),
                "{name} depends on {slang}: only {side:?} may (ARCHITECTURE.md, Dependencies)"
            );
        }
    }
    // And no code outside those crates names Slang's crates (through a path in a
    // dependency's re-export, say). The fuzz targets are a workspace of their own. (The
    // name is put together so that this file does not name it.)
    let needle = ["shader", "slang"].join("_");
    let skip: BTreeSet<PathBuf> = SLANG_SIDE.iter().map(|(_, dir)| root().join(dir)).collect();
    let mut named = Vec::new();
    let mut stack: Vec<PathBuf> = crates
        .values()
        .map(|c| root().join(&c.dir))
        .chain([root().join("fuzz")])
        .collect();
    while let Some(dir) = stack.pop() {
        if skip.contains(&dir) || dir.ends_with("target") {
            continue;
        }
        for entry in std::fs::read_dir(&dir)
            .expect("a crate directory")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file");
                if text.contains(&needle) {
                    named.push(path);
                }
            }
        }
    }
    named.sort();
    named.dedup();
    assert!(
        named.is_empty(),
        "these files name {needle} outside the Slang front end: {named:?}"
    );
}

/// The top-level modules of the crate whose sources are `src` (relative to the root), each
/// with the sibling modules its code names (`crate::module`, outside tests; outside comments
/// too unless `comments`, when doc links and other comments count as well).
fn module_uses(src: &str, comments: bool) -> BTreeMap<String, BTreeSet<String>> {
    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir)
            .expect("a source directory")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let dir = root().join(src);
    let mut files = vec![];
    rust_files(&dir, &mut files);
    let top_level = |path: &Path| -> String {
        let rel = path.strip_prefix(&dir).expect("under the crate");
        let first = rel.components().next().expect("a file").as_os_str();
        first.to_string_lossy().trim_end_matches(".rs").to_owned()
    };
    let modules: BTreeSet<String> = files.iter().map(|f| top_level(f)).collect();
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        let from = top_level(file);
        if matches!(from.as_str(), "lib" | "main") || name.contains("tests") {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a source file");
        // Code before the file's own test module, without comments.
        let code = text
            .split("#[cfg(test)]\nmod tests {")
            .next()
            .unwrap_or_default();
        let used = uses.entry(from.clone()).or_default();
        for line in code
            .lines()
            .filter(|l| comments || !l.trim_start().starts_with("//"))
        {
            for (at, _) in line.match_indices("crate::") {
                let rest = &line[at + "crate::".len()..];
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if word != from && modules.contains(&word) {
                    used.insert(word);
                }
            }
        }
    }
    uses
}

/// A cycle among `uses`' modules, if there is one (depth-first search).
fn cycle(uses: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        uses: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut found = path[at..].to_vec();
            found.push(m.to_owned());
            return Some(found);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_owned());
        for next in uses.get(m).into_iter().flatten() {
            if let Some(found) = visit(next, uses, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    uses.keys()
        .find_map(|m| visit(m, uses, &mut vec![], &mut done))
}

#[test]
fn the_reader_format_and_writer_crates_have_no_file_circles() {
    // The writer's stages are read by following doc links as much as code: both count.
    for (src, comments) in [
        ("reader/src", false),
        ("format-spec/src", false),
        ("writer/src", true),
    ] {
        let uses = module_uses(src, comments);
        assert!(uses.len() > 5, "{src}: too few modules found ({uses:?})");
        if let Some(circle) = cycle(&uses) {
            panic!(
                "{src}: its modules name each other in a circle: {}",
                circle.join(" -> ")
            );
        }
    }
}

#[test]
fn a_file_circle_is_found() {
    let uses: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_owned(), to.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(cycle(&uses).map(|c| c.len()), Some(4));
    let mut acyclic = uses.clone();
    acyclic.get_mut("c").expect("c").clear();
    assert_eq!(cycle(&acyclic), None);
}

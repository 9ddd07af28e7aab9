//! The user guide holds together: README.md starts with the quickstart, every relative link in
//! it and in `docs/*.md` points to a file that exists (and a `#fragment` into a Markdown file
//! to one of its headings), and every guide in `docs/` has its code blocks doctested through
//! `reader/src/lib.rs`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// README.md and every `docs/*.md`, sorted.
fn guides() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files.insert(0, root().join("README.md"));
    files
}

/// Lines outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fence = false;
    text.lines()
        .filter(|l| {
            if l.starts_with("```") {
                fence = !fence;
                return false;
            }
            !fence
        })
        .collect()
}

/// The anchors of a Markdown file's headings, as GitHub makes them: lower case, punctuation
/// but `-` and `_` dropped, spaces as `-`, repeats numbered `-1`, `-2`, ...
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = std::collections::HashMap::new();
    let mut out = HashSet::new();
    for line in prose(text) {
        let Some(title) = line.trim_start_matches('#').strip_prefix(' ') else {
            continue;
        };
        if !line.starts_with('#') {
            continue;
        }
        let anchor: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(anchor.clone()).or_insert(0);
        out.insert(if *n == 0 {
            anchor.clone()
        } else {
            format!("{anchor}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of the inline links `[text](target)` in the prose of `text`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_guides_points_to_an_existing_file_and_heading() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in guides() {
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file.parent().unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            checked += 1;
            if !linked.exists() {
                broken.push(format!("{}: {target}: no such file", file.display()));
                continue;
            }
            if let Some(fragment) = fragment {
                let linked_text = std::fs::read_to_string(&linked).unwrap_or_default();
                if !anchors(&linked_text).contains(fragment) {
                    broken.push(format!("{}: {target}: no such heading", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 20, "only {checked} links checked");
}

#[test]
fn the_readme_starts_with_the_quickstart_and_links_every_guide() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let line = readme
        .lines()
        .position(|l| l == "## Quickstart")
        .expect("a quickstart");
    assert!(line < 25, "the quickstart starts at line {}", line + 1);
    for guide in guides().iter().skip(1) {
        let name = guide.file_name().unwrap().to_string_lossy();
        assert!(
            readme.contains(&format!("](docs/{name})")),
            "README.md does not link docs/{name}"
        );
    }
}

#[test]
fn every_guide_has_its_code_blocks_doctested() {
    let lib = std::fs::read_to_string(root().join("reader/src/lib.rs")).unwrap();
    for guide in guides() {
        let name = guide
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            lib.contains(&format!("include_str!(\"../../{name}\")")),
            "reader/src/lib.rs does not doctest {name}"
        );
    }
}

#[test]
fn the_anchor_rule_matches_github_on_the_guides_headings() {
    let a = anchors("# The `slangpack` tool\n## Sharded bakes: `--shard K/N`\n## x\n## x\n");
    for expected in ["the-slangpack-tool", "sharded-bakes---shard-kn", "x", "x-1"] {
        assert!(a.contains(expected), "{expected} in {a:?}");
    }
}

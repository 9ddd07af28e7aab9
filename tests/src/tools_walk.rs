//! The package tools run on one package, with the checks the fuzz target `tools_on_packages`
//! makes (it includes this file): `dump` (text and JSON), `header` in Rust, C and C++, `diff`
//! against itself and against another package, and what `extract` does. Replayed on the fuzz
//! regressions by `tests/tests/hostile_replay.rs`.

use slangpack_reader::Package;
use slangpack_tools::header::{check_identifiers, generate, Language};
use std::path::Path;

/// No control character but newlines in text meant for a terminal.
fn printable(text: &str) {
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "a control character reaches the terminal: {text:?}"
    );
}

/// Runs every tool on `package` (and `diff` against `other`); panics when a check fails: a
/// header that is neither refused nor made only of declared-form identifiers, a package that
/// differs from itself, a control character in human-readable output, JSON that does not
/// read back as the same document.
pub fn tools_walk(package: &Package, other: &Package) {
    printable(&slangpack_tools::dump::summary(Path::new("fuzz"), package));
    // The bounded forms the command line uses: within the output budget, or refused with
    // `LimitExceeded` (never anything else); the JSON text is the pretty-printed document.
    let bounded = |r: Result<String, slangpack_tools::ToolError>| match r {
        Ok(text) => Some(text),
        Err(slangpack_tools::ToolError::LimitExceeded(message)) => {
            printable(&message);
            None
        }
        Err(other) => panic!("a bounded tool: {other}"),
    };
    if let Some(text) = bounded(slangpack_tools::dump::try_summary(
        Path::new("fuzz"),
        package,
    )) {
        printable(&text);
    }
    if let Some(text) = bounded(slangpack_tools::dump::package_json_text(package)) {
        let whole = slangpack_tools::dump::package_json(package);
        assert_eq!(
            text,
            serde_json::to_string_pretty(&whole).unwrap(),
            "the streamed JSON is not the document"
        );
    }
    match slangpack_tools::diff::try_diff(package, package) {
        Ok(differences) => assert!(differences.is_empty(), "a package differs from itself"),
        Err(slangpack_tools::ToolError::LimitExceeded(_)) => {}
        Err(other) => panic!("diff: {other}"),
    }
    // merge of the package with itself: every entry a duplicate, one copy of each blob; a
    // package with an entry whose raw tables do not load (a 1.6 load checks only the bind
    // view) is refused as input, naming it.
    let loads = |e: &slangpack_reader::Entry<'_>| e.has_reflection() && e.reflection().is_ok();
    let entries_load = package.entries().all(|e| e.is_ok_and(|e| loads(&e)));
    let refused_tables = package
        .entries()
        .any(|e| e.is_ok_and(|e| e.has_reflection() && e.reflection().is_err()));
    if refused_tables {
        match slangpack_pack::merge::merge(&[("a", package), ("b", package)], false, false) {
            Err(
                e @ (slangpack_pack::PackError::Input(_) | slangpack_pack::PackError::Read { .. }),
            ) => {
                let why = e.to_string();
                assert!(
                    why.contains("reflection does not load") || why.contains("no reflection"),
                    "merge's refusal names the entry's reflection: {why}"
                )
            }
            other => panic!("merge of a package whose raw tables fail: {other:?}"),
        }
    }
    if entries_load {
        let merged = slangpack_pack::merge::merge(&[("a", package), ("b", package)], false, false)
            .expect("a package merges with itself");
        assert_eq!(merged.duplicates, package.len());
        let again = Package::from_bytes(&merged.bytes).expect("the merge opens");
        assert!(again.reflection_count() <= package.reflection_count());
        assert_eq!(again.len(), package.len());
    }
    let doc = slangpack_tools::dump::package_doc(package);
    let json = serde_json::to_string(&doc).expect("the document serializes");
    let back: slangpack_tools::dump::PackageDoc =
        serde_json::from_str(&json).expect("the JSON reads back");
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        json,
        "the JSON does not read back as the same document"
    );
    for language in [Language::Rust, Language::C, Language::Cpp] {
        match generate(package, language, None) {
            Ok(source) => {
                if let Err(e) = check_identifiers(&source, language) {
                    panic!("{language:?}: {e}\n{source}");
                }
            }
            Err(
                slangpack_tools::ToolError::Input(message)
                | slangpack_tools::ToolError::LimitExceeded(message),
            ) => printable(&message),
            Err(other) => panic!("header: {other}"),
        }
    }
    assert!(
        slangpack_tools::diff::diff(package, package).is_empty(),
        "a package differs from itself"
    );
    for differences in [
        slangpack_tools::diff::diff(package, other),
        slangpack_tools::diff::diff(other, package),
    ] {
        printable(&slangpack_tools::diff::render(&differences));
    }
    // What `slangpack extract` does: the entry by key, the entry point by name, its words.
    // Entries load lazily: the tools run on packages whose every entry loads (the CLI checks
    // with `verify_all` first) and on ones where some fail (those entries are left out).
    for entry in package.entries().flatten() {
        let found = package
            .load(entry.key())
            .expect("an entry is found by its key");
        for ep in found.entry_points() {
            let named = found.entry_points().find(|e| e.name() == ep.name());
            let words = named.expect("found by name").spirv();
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            assert_eq!(bytes.len(), 4 * words.len());
        }
    }
}

//! The committed JSON Schemas of `dump --json` and `diff --json` are the ones the document
//! types generate, and they are well-formed schemas that state the document's
//! `schema_version`.
//!
//! `SLANGPACK_BLESS=1 cargo test -p slangpack-tools --test json_schema` rewrites them.

use std::path::PathBuf;

/// Compares the committed schema `name` with `fresh` (or writes it, with `SLANGPACK_BLESS`).
fn check(name: &str, committed: &str, fresh: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(name);
    if std::env::var_os("SLANGPACK_BLESS").is_some() {
        std::fs::write(&path, fresh).expect("write the schema");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == fresh && committed == fresh,
        "schema/{name} differs from a fresh generation; regenerate it with \
         `SLANGPACK_BLESS=1 cargo test -p slangpack-tools --test json_schema` and commit it \
         (and raise SCHEMA_VERSION when a reader of the old document could misread the new)"
    );
}

/// The schema parses as JSON, names draft 2020-12, requires `schema_version` and has a
/// description for every property (from the doc comments), and pins `schema_version` to the
/// crate's.
fn well_formed(text: &str, version: u32) {
    assert!(
        !text.contains("[`"),
        "a rustdoc link in a description: write the name in backticks alone"
    );
    let schema: serde_json::Value = serde_json::from_str(text).expect("the schema is JSON");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let required = schema["required"].as_array().expect("required fields");
    assert!(required.iter().any(|r| r == "schema_version"));
    assert_eq!(schema["properties"]["schema_version"]["const"], version);
    let mut undocumented = Vec::new();
    let mut objects = vec![("".to_string(), &schema)];
    objects.extend(
        schema["$defs"]
            .as_object()
            .expect("definitions")
            .iter()
            .map(|(name, s)| (name.clone(), s)),
    );
    for (name, object) in objects {
        for (field, property) in object["properties"].as_object().into_iter().flatten() {
            if property.get("description").is_none() {
                undocumented.push(format!("{name}.{field}"));
            }
        }
    }
    assert!(undocumented.is_empty(), "undocumented: {undocumented:?}");
}

#[test]
fn committed_dump_schema_is_generated() {
    let fresh = slangpack_tools::dump::json_schema();
    well_formed(&fresh, slangpack_tools::dump::SCHEMA_VERSION);
    check(
        "dump.schema.json",
        slangpack_tools::dump::JSON_SCHEMA,
        &fresh,
    );
}

#[test]
fn committed_diff_schema_is_generated() {
    let fresh = slangpack_tools::diff::json_schema();
    well_formed(&fresh, slangpack_tools::diff::SCHEMA_VERSION);
    check(
        "diff.schema.json",
        slangpack_tools::diff::JSON_SCHEMA,
        &fresh,
    );
}

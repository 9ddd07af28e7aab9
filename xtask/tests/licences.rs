//! Every published crate carries the workspace's two licence texts (its licence is
//! "MIT OR Apache-2.0"): `LICENSE-MIT` and `LICENSE-APACHE` beside its manifest, the root's
//! texts (links to them), and in the list of files `cargo package` puts in its `.crate`.

use std::path::{Path, PathBuf};
use std::process::Command;

const LICENCES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The directories and names of the workspace members whose manifest does not say
/// `publish = false`.
fn published() -> Vec<(PathBuf, String)> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let members = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("the workspace's members");
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .filter_map(|member| {
            let dir = root().join(member);
            let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            if text.lines().any(|l| l.trim() == "publish = false") {
                return None;
            }
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|rest| rest.split('"').next())
                .expect("a package name")
                .to_string();
            Some((dir, name))
        })
        .collect()
}

#[test]
fn every_published_crate_packages_both_licence_texts() {
    let crates = published();
    assert!(crates.len() >= 8, "published crates: {crates:?}");
    let mit = std::fs::read_to_string(root().join("LICENSE-MIT")).unwrap();
    assert!(mit.starts_with("MIT License\n\nCopyright (c) The slangpack developers\n"));
    assert!(mit.contains("Permission is hereby granted, free of charge"));
    let apache = std::fs::read_to_string(root().join("LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Version 2.0, January 2004"));
    assert!(apache.contains("END OF TERMS AND CONDITIONS"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    for (dir, name) in &crates {
        for licence in LICENCES {
            assert_eq!(
                std::fs::read(dir.join(licence)).ok(),
                std::fs::read(root().join(licence)).ok(),
                "{name}: {licence} is not the workspace's"
            );
        }
        let out = Command::new(&cargo)
            .current_dir(root())
            .args([
                "package",
                "--list",
                "--allow-dirty",
                "--offline",
                "-p",
                name,
            ])
            .output()
            .expect("cargo runs");
        let listed = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "cargo package --list -p {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for licence in LICENCES {
            assert!(
                listed.lines().any(|l| l == licence),
                "{name}'s package lacks {licence}:\n{listed}"
            );
        }
    }
}

include!("slang_rpath.rs");

fn main() {
    link_slang_rpath();
    source_hash();
}

/// Exports `SLANGPACK_WRITER_SOURCE_HASH`: an xxh3 of the writer's sources (and, in this
/// workspace, of the code that shapes what it writes: the Slang front end, the format's
/// builders, the pack crate's assembly and merge). It goes into every entry's options hash,
/// so that an incremental rebake by a changed writer recompiles instead of reusing what an
/// older writer made. The tools crate (dump, diff, headers) writes no package bytes and is
/// left out: rewording a message there does not make every user's next incremental bake
/// recompile everything. A value already in the environment (`SLANGPACK_WRITER_SOURCE_HASH`)
/// is taken as it is. Files are taken in sorted order by their path relative to the crate, with `\r`
/// removed, so the hash is the same on every machine and checkout.
fn source_hash() {
    // A fixed value from the environment replaces the computed one, so that two writer builds
    // whose sources differ (a refactoring, say) can be checked to write the same bytes.
    println!("cargo:rerun-if-env-changed=SLANGPACK_WRITER_SOURCE_HASH");
    if let Ok(fixed) = std::env::var("SLANGPACK_WRITER_SOURCE_HASH") {
        println!("cargo:rustc-env=SLANGPACK_WRITER_SOURCE_HASH={fixed}");
        return;
    }
    let manifest_dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let mut files = Vec::new();
    for dir in ["src", "slang/src", "pack/src", "../format-spec/src"] {
        let path = manifest_dir.join(dir);
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, &manifest_dir, &mut files);
        }
    }
    files.sort();
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for (relative, path) in &files {
        let bytes: Vec<u8> = std::fs::read(path)
            .unwrap_or_default()
            .into_iter()
            .filter(|&b| b != b'\r')
            .collect();
        for part in [relative.as_bytes(), &bytes] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
    }
    println!(
        "cargo:rustc-env=SLANGPACK_WRITER_SOURCE_HASH={:016x}",
        hasher.digest()
    );
}

/// Every `.rs` file under `dir`, as (path relative to `base` with `/`, path).
fn collect(
    dir: &std::path::Path,
    base: &std::path::Path,
    out: &mut Vec<(String, std::path::PathBuf)>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix(base)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((relative, path));
        }
    }
}

//! `slangpack dump`, `verify` and `extract`: reading packages back with the runtime reader.

use slangpack_reader::Package;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

fn open(path: &Path) -> Result<Package, ExitCode> {
    Package::open(path).map_err(|e| {
        eprintln!("error: {}: {e}", path.display());
        ExitCode::from(1)
    })
}

/// Prints a readable summary of the package at `path`.
pub fn dump(path: &Path) -> ExitCode {
    let package = match open(path) {
        Ok(p) => p,
        Err(code) => return code,
    };
    print!("{}", summary(path, &package));
    ExitCode::SUCCESS
}

/// The readable summary `dump` prints.
fn summary(path: &Path, package: &Package) -> String {
    let mut out = String::new();
    let entries: Vec<_> = package.entries().collect();
    let _ = writeln!(out, "{}: {} entries", path.display(), entries.len());
    for entry in entries {
        let _ = writeln!(out, "entry {:?}", entry.key());
        let _ = writeln!(out, "  options hash {:016x}", entry.options_hash());
        for ep in entry.entry_points() {
            let [x, y, z] = ep.thread_group_size();
            let _ = write!(
                out,
                "  entry point {} ({:?}), SPIR-V entry {:?}, {} words",
                ep.name(),
                ep.stage(),
                ep.spirv_entry_name(),
                ep.spirv().len()
            );
            if (x, y, z) != (1, 1, 1) && (x, y, z) != (0, 0, 0) {
                let _ = write!(out, ", threads {x}x{y}x{z}");
            }
            let _ = writeln!(out);
        }
        for dep in entry.dependencies() {
            let _ = writeln!(
                out,
                "  depends on {} (xxh3 {:016x})",
                dep.path(),
                dep.content_hash()
            );
        }
    }
    out
}

/// Validates the package at `path`: opening it checks every section, index and checksum.
pub fn verify(path: &Path) -> ExitCode {
    match open(path) {
        Ok(package) => {
            let entries = package.entries().count();
            println!("{}: ok ({entries} entries)", path.display());
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// Writes the SPIR-V of entry point `entry_point` of entry `key` to `output`.
pub fn extract(path: &Path, key: &str, entry_point: &str, output: &Path) -> ExitCode {
    let package = match open(path) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let Some(entry) = package.entry(key) else {
        eprintln!("error: {}: no entry with key {key:?}", path.display());
        return ExitCode::from(1);
    };
    let Some(ep) = entry.entry_points().find(|ep| ep.name() == entry_point) else {
        eprintln!("error: entry {key:?} has no entry point {entry_point:?}");
        return ExitCode::from(1);
    };
    let bytes: Vec<u8> = ep.spirv().iter().flat_map(|w| w.to_le_bytes()).collect();
    match slangpack_writer::bake::write_atomically(output, &bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

//! `slangpack diff`, `header` and `merge`: the command-line ends of
//! `slangpack_writer::{diff, header, merge}`.

use serde_json::json;
use slangpack_reader::Package;
use slangpack_writer::diff::Change;
use slangpack_writer::header::Language;
use std::path::Path;
use std::process::ExitCode;

/// Writes to standard output; a closed pipe (`slangpack diff A B | head`) is not an error
/// worth a panic.
fn print(text: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

fn open(path: &Path, failure: u8) -> Result<Package, ExitCode> {
    // The tools check the whole package up front (as `verify` does), so every load after
    // this succeeds.
    Package::open(path)
        .and_then(|p| p.verify_all().map(|()| p))
        .map_err(|e| {
            eprintln!("error: {}: {e}", path.display());
            ExitCode::from(failure)
        })
}

/// Compares two packages: exit 0 when their layouts match, 1 when they differ, 2 when one
/// cannot be read.
pub fn diff(old: &Path, new: &Path, json: bool) -> ExitCode {
    let (a, b) = match (open(old, 2), open(new, 2)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let differences = slangpack_writer::diff::diff(&a, &b);
    if json {
        let list: Vec<_> = differences
            .iter()
            .map(|d| {
                json!({
                    "entry": d.entry,
                    "change": match d.change {
                        Change::Added => "added",
                        Change::Removed => "removed",
                        Change::Changed => "changed",
                    },
                    "subject": d.subject,
                    "property": d.property,
                    "before": d.before,
                    "after": d.after,
                })
            })
            .collect();
        let doc = json!({ "identical": differences.is_empty(), "differences": list });
        match serde_json::to_string_pretty(&doc) {
            Ok(text) => print(&format!("{text}\n")),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    } else if differences.is_empty() {
        print(&format!(
            "{} and {}: bindings and layouts match\n",
            old.display(),
            new.display()
        ));
    } else {
        print(&format!(
            "{}{} difference{} in bindings and layouts\n",
            slangpack_writer::diff::render(&differences),
            differences.len(),
            if differences.len() == 1 { "" } else { "s" }
        ));
    }
    if differences.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Writes the bind header of a package in `lang` to `output` (or standard output).
pub fn header(package: &Path, lang: &str, entry: Option<&str>, output: Option<&Path>) -> ExitCode {
    let language = match lang {
        "rust" => Language::Rust,
        "c" => Language::C,
        "cpp" => Language::Cpp,
        other => {
            eprintln!("error: unknown language `{other}` (rust, c, cpp)");
            return ExitCode::from(2);
        }
    };
    let package = match open(package, 1) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let text = match slangpack_writer::header::generate(&package, language, entry) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    match output {
        None => {
            print(&text);
            ExitCode::SUCCESS
        }
        Some(path) => match slangpack_writer::bake::write_atomically(path, text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
    }
}

/// Merges packages into `output`.
pub fn merge(inputs: &[std::path::PathBuf], output: &Path, compress: bool) -> ExitCode {
    let mut packages = Vec::new();
    for path in inputs {
        match open(path, 1) {
            Ok(p) => packages.push((path.display().to_string(), p)),
            Err(code) => return code,
        }
    }
    let labelled: Vec<(&str, &Package)> = packages.iter().map(|(l, p)| (l.as_str(), p)).collect();
    let outcome = match slangpack_writer::merge::merge(&labelled, compress) {
        Ok(outcome) => outcome,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!("error: merge failed; {} was not written", output.display());
            return ExitCode::from(1);
        }
    };
    for warning in &outcome.warnings {
        eprintln!("warning: {warning}");
    }
    if let Err(e) = slangpack_writer::bake::write_atomically(output, &outcome.bytes) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    eprintln!(
        "merged {} packages into {}: {} entries ({} duplicates stored once), {} bytes",
        inputs.len(),
        output.display(),
        outcome.entries.len(),
        outcome.duplicates,
        outcome.bytes.len()
    );
    ExitCode::SUCCESS
}

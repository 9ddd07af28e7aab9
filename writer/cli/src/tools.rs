//! The package subcommands (`dump`, `verify`, `extract`, `diff`, `header`, `merge`): the
//! command-line ends of `slangpack_tools` and, for `merge` and every file written,
//! `slangpack_pack`; none needs a compiler.

use slangpack_reader::Package;
use slangpack_tools::header::Language;
use slangpack_tools::{quoted, shown};
use std::path::Path;
use std::process::ExitCode;

/// Writes to standard output; a closed pipe (`slangpack dump x | head`) ends the output
/// quietly instead of panicking.
fn print(text: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// A file name as the tools show it: escaped like every name ([`shown`]), since a file name
/// may hold a terminal escape as well as a package can.
fn path_shown(path: &Path) -> String {
    shown(&path.display().to_string()).into_owned()
}

fn open(path: &Path, failure: u8) -> Result<Package, ExitCode> {
    // The tools that read every entry (`verify`, `dump`, `diff`, `header`, `merge`) check the
    // whole package up front, so every load after this succeeds; `extract` loads only its
    // entry.
    Package::open(path)
        .and_then(|p| p.verify_all().map(|()| p))
        .map_err(|e| {
            eprintln!("error: {}: {}", path_shown(path), shown(&e.to_string()));
            ExitCode::from(failure)
        })
}

/// The closest keys of `package` to `key`, for a "did you mean" hint: keys whose last path
/// component is `key` (`layered` for `layered/layered`), else keys within two edits.
fn similar_keys<'p>(package: &'p Package, key: &str) -> Vec<&'p str> {
    let keys: Vec<&str> = (0..package.len())
        .filter_map(|i| package.key_at(i))
        .collect();
    let by_name: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| k.rsplit('/').next() == Some(key) || k.split('?').next() == Some(key))
        .collect();
    if !by_name.is_empty() {
        return by_name;
    }
    keys.into_iter()
        .filter(|k| edit_distance(k, key) <= 2)
        .collect()
}

/// Levenshtein distance between two short strings (by char).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Reports that `package` at `path` has no entry `key`, with the keys it might have meant.
fn no_entry(path: &Path, package: &Package, key: &str) {
    let similar = similar_keys(package, key);
    let hint = match similar.as_slice() {
        [] => String::new(),
        keys => format!(
            " (did you mean {}?)",
            keys.iter()
                .map(|k| quoted(k))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    };
    eprintln!(
        "error: {}: no entry with key {}{hint}",
        path_shown(path),
        quoted(key)
    );
}

/// Loads the entry `key` of the package at `path` alone, or reports why not: no such key (with
/// the keys it may have meant) or an entry whose bytes fail their check.
fn load<'p>(
    path: &Path,
    package: &'p Package,
    key: &str,
) -> Result<slangpack_reader::Entry<'p>, ExitCode> {
    package.load(key).map_err(|e| {
        if e.kind() == slangpack_reader::ErrorKind::NotFound {
            no_entry(path, package, key);
        } else {
            eprintln!(
                "error: {}: entry {}: {}",
                path_shown(path),
                quoted(key),
                shown(&e.to_string())
            );
        }
        ExitCode::from(1)
    })
}

/// Prints the package at `path`: a readable summary, or the JSON document with `json`; with
/// `entry`, of that entry alone.
pub fn dump(path: &Path, json: bool, entry: Option<&str>) -> ExitCode {
    // One entry is loaded alone, as `extract` does (its load checks everything it uses);
    // the whole package is checked up front otherwise.
    let opened = match entry {
        Some(_) => Package::open(path).map_err(|e| {
            eprintln!("error: {}: {}", path_shown(path), shown(&e.to_string()));
            ExitCode::from(1)
        }),
        None => open(path, 1),
    };
    let package = match opened {
        Ok(p) => p,
        Err(code) => return code,
    };
    if let Some(key) = entry {
        if let Err(code) = load(path, &package, key) {
            return code;
        }
    }
    let text = if json {
        slangpack_tools::dump::package_json_text_of(&package, entry).map(|text| format!("{text}\n"))
    } else {
        slangpack_tools::dump::try_summary_of(path, &package, entry)
    };
    match text {
        Ok(text) => {
            print(&text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}: {e}", path_shown(path));
            ExitCode::from(1)
        }
    }
}

/// Prints a committed JSON Schema (`dump --schema`, `diff --schema`).
pub fn schema(text: &str) -> ExitCode {
    print(text);
    ExitCode::SUCCESS
}

/// A usage error clap's rules did not catch: the message, exit status 2.
pub fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// Validates the package at `path`: opens it and loads everything (`Package::verify_all`),
/// checking every section, index and checksum.
pub fn verify(path: &Path) -> ExitCode {
    match open(path, 1) {
        Ok(package) => {
            let entries = package.len();
            println!("{}: ok ({entries} entries)", path_shown(path));
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// Writes the code of entry point `entry_point` of entry `key` for `target` (SPIR-V as
/// little-endian words, the other targets' text as stored) to `output`.
pub fn extract(path: &Path, key: &str, entry_point: &str, target: &str, output: &Path) -> ExitCode {
    let Some(target) = slangpack_format::Target::from_name(target) else {
        eprintln!("error: --target: unknown target {target:?} (spirv, wgsl, glsl, hlsl, metal)");
        return ExitCode::from(2);
    };
    // A tool that reads one entry loads one entry: open checks the header, the directory and
    // the container tables, the load checks everything this entry uses, and damage elsewhere
    // in the package does not stop it (`verify` checks everything).
    let package = match Package::open(path) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {}: {}", path_shown(path), shown(&e.to_string()));
            return ExitCode::from(1);
        }
    };
    let entry = match load(path, &package, key) {
        Ok(entry) => entry,
        Err(code) => return code,
    };
    let Some(ep) = entry.entry_points().find(|ep| ep.name() == entry_point) else {
        let names: Vec<String> = entry.entry_points().map(|ep| quoted(ep.name())).collect();
        eprintln!(
            "error: entry {} has no entry point {} (it has {})",
            quoted(key),
            quoted(entry_point),
            names.join(", ")
        );
        return ExitCode::from(1);
    };
    let bytes: Vec<u8> = if target == slangpack_format::Target::Spirv {
        ep.spirv().iter().flat_map(|w| w.to_le_bytes()).collect()
    } else if let Some(code) = ep.code(target) {
        code.bytes().to_vec()
    } else {
        let baked: Vec<&str> = ep.targets().map(|c| c.target().name()).collect();
        eprintln!(
            "error: entry point {} of {} was not baked for {} (it has {})",
            quoted(entry_point),
            quoted(key),
            target.name(),
            baked.join(", ")
        );
        return ExitCode::from(1);
    };
    match slangpack_pack::write_atomically(output, &bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Compares two packages: exit 0 when their layouts match, 1 when they differ, 2 when one
/// cannot be read.
pub fn diff(old: &Path, new: &Path, json: bool) -> ExitCode {
    let (a, b) = match (open(old, 2), open(new, 2)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let differences = match slangpack_tools::diff::try_diff(&a, &b) {
        Ok(differences) => differences,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if json {
        match slangpack_tools::diff::diff_json_text(&differences) {
            Ok(text) => print(&format!("{text}\n")),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    } else if differences.is_empty() {
        print(&format!(
            "{} and {}: bindings and layouts match\n",
            path_shown(old),
            path_shown(new)
        ));
    } else {
        print(&format!(
            "{}{} difference{} in bindings and layouts\n",
            slangpack_tools::diff::render(&differences),
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
    let text = match slangpack_tools::header::generate(&package, language, entry) {
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
        Some(path) => match slangpack_pack::write_atomically(path, text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
    }
}

/// Merges packages into `output`, stored as `compress` and `compress_spirv` say.
pub fn merge(
    inputs: &[std::path::PathBuf],
    output: &Path,
    compress: Option<bool>,
    compress_spirv: Option<bool>,
    allow_partial: bool,
) -> ExitCode {
    use slangpack_pack::merge_check::{check_shards, storage, ShardCheck};
    let mut packages = Vec::new();
    for path in inputs {
        match open(path, 1) {
            Ok(p) => packages.push((path_shown(path), p)),
            Err(code) => return code,
        }
    }
    let labelled: Vec<(&str, &Package)> = packages.iter().map(|(l, p)| (l.as_str(), p)).collect();
    let checked = check_shards(&labelled, allow_partial)
        .and_then(|check| Ok((check, storage(&labelled, compress, compress_spirv)?)));
    let (compress, compress_spirv) = match checked {
        Ok((check, storage)) => {
            if let ShardCheck::Partial(missing) = check {
                for what in missing {
                    eprintln!("warning: --allow-partial: {what}");
                }
            }
            storage
        }
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!(
                "error: merge failed; {} was not written",
                path_shown(output)
            );
            return ExitCode::from(1);
        }
    };
    let outcome = match slangpack_pack::merge::merge(&labelled, compress, compress_spirv) {
        Ok(outcome) => outcome,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!(
                "error: merge failed; {} was not written",
                path_shown(output)
            );
            return ExitCode::from(1);
        }
    };
    for warning in &outcome.warnings {
        eprintln!("warning: {warning}");
    }
    if let Err(e) = slangpack_pack::write_atomically(output, &outcome.bytes) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    eprintln!(
        "merged {} packages into {}: {} entries ({} duplicates stored once), {} bytes",
        inputs.len(),
        path_shown(output),
        outcome.entries.len(),
        outcome.duplicates,
        outcome.bytes.len()
    );
    ExitCode::SUCCESS
}

/// Provisions the pinned Slang SDK into `dir` and prints how to point cargo at it.
pub fn sdk_install(dir: Option<std::path::PathBuf>) -> ExitCode {
    let dir = match dir {
        Some(dir) => dir,
        None => match std::env::var_os("HOME") {
            Some(home) => Path::new(&home).join(".slangpack/slang-sdk"),
            None => {
                eprintln!("error: HOME is not set; name the directory: slangpack sdk install DIR");
                return ExitCode::from(2);
            }
        },
    };
    match slangpack_sdk::install(&dir, &mut |line| eprintln!("{line}")) {
        Ok(sdk) => {
            eprintln!(
                "Slang {} SDK in {}. Put these lines in your crate's .cargo/config.toml (or \
                 export SLANG_DIR) so that building slangpack-writer finds it:",
                slangpack_sdk::SLANG_VERSION,
                sdk.dir.display()
            );
            print(&slangpack_sdk::cargo_config(&sdk));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Writes the explorer page of `package` (or of the differences from `old` to it) to
/// `output` (or standard output).
pub fn explore(package: &Path, old: Option<&Path>, output: Option<&Path>) -> ExitCode {
    let new = match open(package, 1) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let file_name = |p: &Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let page = match old.map(|p| open(p, 1).map(|o| (o, p))) {
        None => slangpack_tools::explore::page(&new, &file_name(package)),
        Some(Ok((o, p))) => slangpack_tools::explore::diff_page(
            &o,
            &new,
            &format!("{} \u{2192} {}", file_name(p), file_name(package)),
        ),
        Some(Err(code)) => return code,
    };
    let page = match page {
        Ok(page) => page,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    match output {
        None => {
            print(&page);
            ExitCode::SUCCESS
        }
        Some(path) => match slangpack_pack::write_atomically(path, page.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        },
    }
}

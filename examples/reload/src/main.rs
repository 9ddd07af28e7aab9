//! Hot reload as an engine does it: open a package with [`Reloader`], poll it once per
//! "frame", and on a reload print what changed and, for every entry whose layout is new, its
//! descriptor bindings and buffer sizes (what an engine would rebuild its set layouts from).
//! Entries whose code alone changed print `code`: an engine keeps their layouts and only
//! recreates shader modules and pipelines.
//!
//! ```text
//! slangpack bake --watch shaders -o shaders.slangpack &
//! slangpack-reload shaders.slangpack            # runs until interrupted
//! slangpack-reload shaders.slangpack --reloads 2 # exits after two reloads (for tests)
//! ```
//!
//! Output, one line per fact, flushed as it comes:
//!
//! ```text
//! opened shaders.slangpack: 4 entries
//!   blur binding 0.0 gImage StorageImage
//!   blur buffer gParams 16 bytes
//! reload 1: 1 changed
//!   blur layout
//!   blur buffer gParams 32 bytes
//! ```

use slangpack_reader::{ChangeKind, Package, Reloader};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

/// How often the package file is checked (one `stat` per poll).
const POLL: Duration = Duration::from_millis(25);

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: slangpack-reload PACKAGE [--reloads N]");
        return ExitCode::from(2);
    };
    let reloads = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--reloads"), Some(n)) => match n.parse::<u64>() {
            Ok(n) => Some(n),
            Err(e) => {
                eprintln!("error: --reloads {n}: {e}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: slangpack-reload PACKAGE [--reloads N]");
            return ExitCode::from(2);
        }
    };
    let mut shaders = match Reloader::open(&path) {
        Ok(reloader) => reloader,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let mut out = std::io::stdout().lock();
    let package = shaders.package();
    let _ = writeln!(out, "opened {path}: {} entries", package.len());
    for key in package.keys() {
        print_layout(&mut out, package, key);
    }
    let _ = out.flush();
    while reloads.is_none_or(|n| shaders.generation() < n) {
        std::thread::sleep(POLL);
        let reload = match shaders.reload() {
            Ok(Some(reload)) => reload,
            Ok(None) => continue,
            Err(e) => {
                // A broken package: keep running on the one in use.
                let _ = writeln!(out, "refused: {e}");
                let _ = out.flush();
                continue;
            }
        };
        let _ = writeln!(
            out,
            "reload {}: {} changed",
            shaders.generation(),
            reload.changes().len()
        );
        for change in reload.changes() {
            let kind = match change.kind() {
                ChangeKind::Added => "added",
                ChangeKind::Removed => "removed",
                ChangeKind::Code => "code",
                ChangeKind::Layout => "layout",
            };
            let _ = writeln!(out, "  {} {kind}", change.key());
            if change.layout_changed() {
                print_layout(&mut out, shaders.package(), change.key());
            }
        }
        // `reload.previous()` is the replaced package: an engine would drop it once the GPU
        // no longer uses what was made from it. Here it goes now.
        drop(reload);
        let _ = out.flush();
    }
    ExitCode::SUCCESS
}

/// Prints the descriptor bindings and buffer sizes of `key`'s bind view.
fn print_layout(out: &mut impl Write, package: &Package, key: &str) {
    let entry = match package.load(key) {
        Ok(entry) => entry,
        Err(e) => {
            let _ = writeln!(out, "  {key} error {e}");
            return;
        }
    };
    let bind = entry.bind();
    for b in bind.bindings() {
        let _ = writeln!(
            out,
            "  {key} binding {}.{} {} {:?}",
            b.set,
            b.binding,
            bind.string(b.path),
            b.kind(),
        );
    }
    for layout in bind.buffer_layouts() {
        let _ = writeln!(
            out,
            "  {key} buffer {} {} bytes",
            bind.string(layout.name),
            layout.size
        );
    }
}

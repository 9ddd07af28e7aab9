//! `slangpack bake --watch`: the writer's watch loop ([`slangpack_writer::watch`]) with one
//! line per rebake on stderr (which entries were compiled, how long from the save to the
//! package written), Slang's diagnostics verbatim for a failing edit.

use crate::bake::{print_diagnostics, report};
use slangpack_writer::bake::BakeConfig;
use slangpack_writer::watch::{watch as watch_loop, WatchEvent, WatchOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// The most compiled keys a rebake line names before it says "and N more".
const KEYS_SHOWN: usize = 6;

/// Bakes, then watches and rebakes until interrupted (or the watcher fails: exit 1).
pub(crate) fn watch(
    config: BakeConfig,
    output: &Path,
    depfile: Option<&Path>,
    terminal: bool,
) -> ExitCode {
    let options = WatchOptions {
        depfile: depfile.map(Path::to_path_buf),
        ..WatchOptions::default()
    };
    // Never set: the loop ends with the process (Ctrl-C).
    let stop = AtomicBool::new(false);
    let result = watch_loop(config, output, &options, &stop, |event| match event {
        WatchEvent::Baked {
            outcome,
            elapsed,
            first,
        } => {
            print_diagnostics(outcome, terminal);
            let elapsed = elapsed.as_millis();
            let failed = if outcome.failures.is_empty() {
                String::new()
            } else {
                format!("; {} permutations failed", outcome.failures.len())
            };
            if !first && outcome.compiled_keys.is_empty() {
                eprintln!(
                    "unchanged: no entry of {} needed compiling ({elapsed} ms){failed}",
                    output.display()
                );
                return;
            }
            let shown: Vec<&str> = outcome
                .compiled_keys
                .iter()
                .take(KEYS_SHOWN)
                .map(String::as_str)
                .collect();
            let more = match outcome.compiled_keys.len().saturating_sub(KEYS_SHOWN) {
                0 => String::new(),
                more => format!(" and {more} more"),
            };
            let keys = if shown.is_empty() {
                String::new()
            } else {
                format!(" [{}{more}]", shown.join(", "))
            };
            eprintln!(
                "{} {} of {} entries{keys} in {elapsed} ms: {} ({} bytes){failed}",
                if first { "baked" } else { "rebaked" },
                outcome.compiled_keys.len(),
                outcome.entries.len(),
                output.display(),
                outcome.bytes.len(),
            );
        }
        WatchEvent::Failed { error, changed } => {
            report(error, terminal);
            eprintln!(
                "error: bake failed{}; {}",
                cause(changed),
                if output.exists() {
                    format!("keeping the last good {}", output.display())
                } else {
                    format!("{} was not written", output.display())
                }
            );
        }
        WatchEvent::Warning(warning) => eprintln!("warning: --watch: {warning}"),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: --watch: {error}");
            ExitCode::from(1)
        }
    }
}

/// " after a change to FILE" (or "... and N more").
fn cause(changed: &[PathBuf]) -> String {
    match changed {
        [] => String::new(),
        [one] => format!(" after a change to {}", one.display()),
        [one, rest @ ..] => format!(
            " after changes to {} and {} more",
            one.display(),
            rest.len()
        ),
    }
}

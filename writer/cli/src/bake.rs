//! `slangpack bake`: the one subcommand that compiles, through `slangpack_writer`.

use crate::BakeArgs;
use slangpack_writer::bake::{self, BakeConfig};
use slangpack_writer::compile::{CompileOptions, MatrixLayout, Optimization};
use slangpack_writer::jobs::Shard;
use slangpack_writer::BakeError;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Bakes what `args` names; exit 0 on success, 1 on a failed or partial bake, 2 on bad usage.
pub(crate) fn bake(args: BakeArgs) -> ExitCode {
    let defines = args
        .defines
        .iter()
        .map(|d| match d.split_once('=') {
            Some((name, value)) => (name.to_string(), value.to_string()),
            None => (d.clone(), "1".to_string()),
        })
        .collect();
    let mut conformances = Vec::new();
    for spec in &args.conformances {
        match spec.split_once(':') {
            Some((ty, interface)) if !ty.is_empty() && !interface.is_empty() => {
                conformances.push((ty.to_string(), interface.to_string()))
            }
            _ => {
                eprintln!("error: --conformance expects TYPE:INTERFACE, got `{spec}`");
                return ExitCode::from(2);
            }
        }
    }
    let targets =
        match slangpack_writer::targets::parse_targets(args.targets.iter().map(String::as_str)) {
            Ok(targets) => targets,
            Err(e) => {
                eprintln!("error: --target: {e}");
                return ExitCode::from(2);
            }
        };
    let shard = match args.shard.as_deref().map(str::parse::<Shard>).transpose() {
        Ok(shard) => shard,
        Err(e) => {
            eprintln!("error: --shard: {e}");
            return ExitCode::from(2);
        }
    };
    let mut config = BakeConfig::new(args.inputs);
    config.shard = shard;
    config.root = args.root;
    config.compress = !args.no_compress;
    config.compress_spirv = args.compress_spirv;
    config.keep_going = args.keep_going;
    if !args.force && args.output.exists() {
        config.previous = Some(args.output.clone());
    }
    if let Some(jobs) = args.jobs {
        config.jobs = jobs.max(1);
    }
    config.options = CompileOptions {
        profile: args.profile,
        optimization: match args.optimization {
            0 => Optimization::None,
            1 => Optimization::Default,
            2 => Optimization::High,
            _ => Optimization::Maximal,
        },
        matrix_layout: match args.matrix_layout.as_deref() {
            Some("row") => Some(MatrixLayout::RowMajor),
            Some("column") => Some(MatrixLayout::ColumnMajor),
            _ => None,
        },
        include_dirs: args.include_dirs,
        defines,
        entry_points: args.entry_points,
        modules: args.modules,
        conformances,
        type_arguments: args.type_arguments,
        debug_info: args.debug_info,
        capabilities: args.capabilities,
        targets,
    };
    let terminal = std::io::stderr().is_terminal();
    if terminal {
        config.progress = Some(std::sync::Arc::new(
            |done: usize, total: usize, key: &str| {
                // One self-overwriting line: `[ 3/12] pbr?SHADOWS=1`.
                let width = total.to_string().len();
                eprint!("\r\x1b[2K[{done:>width$}/{total}] {key}");
                if done == total {
                    eprint!("\r\x1b[2K");
                }
            },
        ));
    }
    match bake::bake_to_file(&config, &args.output) {
        Ok(outcome) => {
            for entry in &outcome.entries {
                if !entry.warnings.is_empty() {
                    eprint!("{}", colorize(&entry.warnings, terminal));
                }
            }
            for failure in &outcome.failures {
                report(failure, terminal);
            }
            let entry_points: usize = outcome.entries.iter().map(|e| e.entry_points.len()).sum();
            eprintln!(
                "baked {} entries ({}{} reused, {} entry points) into {} ({} bytes){}",
                outcome.entries.len(),
                config
                    .shard
                    .map_or(String::new(), |shard| format!("shard {shard}, ")),
                outcome.reused,
                entry_points,
                args.output.display(),
                outcome.bytes.len(),
                if outcome.failures.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} permutations failed and were left out",
                        outcome.failures.len()
                    )
                }
            );
            if outcome.failures.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(error) => {
            report(&error, terminal);
            eprintln!(
                "error: bake failed; {} was not written",
                args.output.display()
            );
            ExitCode::from(1)
        }
    }
}

/// Colours Slang's `error` and `warning` severities on a terminal; the text is otherwise
/// verbatim (and exactly verbatim when not on a terminal).
fn colorize(diagnostics: &str, terminal: bool) -> String {
    if !terminal {
        return diagnostics.to_string();
    }
    diagnostics
        .lines()
        .map(|line| {
            if line.starts_with("error") {
                format!("\x1b[1;31m{line}\x1b[0m\n")
            } else if line.starts_with("warning") {
                format!("\x1b[1;33m{line}\x1b[0m\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect()
}

/// Prints an error: Slang's diagnostics verbatim for compile errors, the message otherwise.
fn report(error: &BakeError, terminal: bool) {
    match error {
        BakeError::Compile {
            key, diagnostics, ..
        } => {
            eprint!("{}", colorize(diagnostics, terminal));
            if !diagnostics.ends_with('\n') {
                eprintln!();
            }
            eprintln!("error: permutation `{key}` failed to compile");
        }
        other => eprintln!("error: {other}"),
    }
}

//! `slangpack bake`: the one subcommand that compiles, through `slangpack_writer`.

use crate::BakeArgs;
use slangpack_writer::bake::{self, BakeConfig};
use slangpack_writer::cache::CacheOptions;
use slangpack_writer::compile::{CompileOptions, DebugLevel, WarningControl};
use slangpack_writer::options;
use slangpack_writer::plan::Shard;
use slangpack_writer::BakeError;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Bakes what `args` names; exit 0 on success, 1 on a failed or partial bake, 2 on bad usage.
pub(crate) fn bake(args: BakeArgs) -> ExitCode {
    let options = match compile_options(&args) {
        Ok(options) => options,
        Err((what, e)) => {
            eprintln!("error: {what}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut config = match bake_config(&args) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    config.options = options;
    let on_terminal = std::io::stderr().is_terminal();
    // `terminal` below: whether diagnostics are coloured (the progress line needs a terminal).
    let terminal = colours(&args.color, on_terminal, std::env::var_os("NO_COLOR"));
    if on_terminal {
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
    if args.watch {
        return crate::watch::watch(config, &args.output, args.depfile.as_deref(), terminal);
    }
    match bake::bake_to_file(&config, &args.output) {
        Ok(outcome) => baked(&args, &config, &outcome, terminal),
        Err(error) => {
            report(&error, terminal);
            eprintln!(
                "error: bake failed; {} was not written",
                args.output.display()
            );
            if is_usage_error(&error, &config.inputs) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// The compile options `args` give, or the option that is wrong (`--define`) and why.
fn compile_options(args: &BakeArgs) -> Result<CompileOptions, (&'static str, String)> {
    let usage = |what: &'static str| move |e: String| (what, e);
    let defines = (args.defines.iter())
        .map(|spec| options::define(spec).map_err(usage("--define")))
        .collect::<Result<Vec<_>, _>>()?;
    let conformances = (args.conformances.iter())
        .map(|spec| options::conformance(spec).map_err(usage("--conformance")))
        .collect::<Result<Vec<_>, _>>()?;
    let binding_shifts = (args.vk_shift.chunks(3))
        .map(|shift| shift.join(" ").parse().map_err(usage("--vk-shift")))
        .collect::<Result<Vec<_>, _>>()?;
    let globals_binding = match args.bind_globals.is_empty() {
        true => None,
        false => Some((args.bind_globals.join(" ").parse()).map_err(usage("--bind-globals"))?),
    };
    let mut warnings = (args.warnings.iter())
        .map(|control| options::warning(control).map_err(usage("-W")))
        .collect::<Result<Vec<_>, _>>()?;
    if args.warnings_as_errors {
        warnings.push(WarningControl::AsErrors("all".into()));
    }
    let debug_level = match args.debug_level {
        Some(level) => options::debug_level(level),
        None if args.debug_info => Ok(DebugLevel::Standard),
        None => Ok(DebugLevel::None),
    };
    let (debug_level, optimization) = match (debug_level, options::optimization(args.optimization))
    {
        (Ok(d), Ok(o)) => (d, o),
        (Err(e), _) => return Err(("--debug-level", e)),
        (_, Err(e)) => return Err(("--optimize", e)),
    };
    let matrix_layout = (args.matrix_layout.as_deref().map(str::parse).transpose())
        .map_err(usage("--matrix-layout"))?;
    let buffer_layout = args
        .buffer_layout
        .parse()
        .map_err(usage("--buffer-layout"))?;
    let floating_point_mode = args.fp_mode.parse().map_err(usage("--fp-mode"))?;
    let targets = slangpack_writer::targets::parse_targets(args.targets.iter().map(String::as_str))
        .map_err(usage("--target"))?;
    Ok(CompileOptions {
        profile: args.profile.clone(),
        optimization,
        matrix_layout,
        include_dirs: args.include_dirs.clone(),
        defines,
        entry_points: args.entry_points.clone(),
        modules: args.modules.clone(),
        conformances,
        type_arguments: args.type_arguments.clone(),
        debug_level,
        buffer_layout,
        keep_entry_point_names: args.keep_entry_point_names,
        binding_shifts,
        globals_binding,
        warnings,
        floating_point_mode,
        capabilities: args.capabilities.clone(),
        targets,
    })
}

/// The platform properties of `--remote-platform KEY=VALUE` options.
fn remote_platform(options: &[String]) -> Result<Vec<(String, String)>, String> {
    options
        .iter()
        .map(|option| match option.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
            _ => Err(format!("--remote-platform {option}: expected KEY=VALUE")),
        })
        .collect()
}

/// The bake `args` ask for, with default compile options: inputs, shard, storage, the
/// cache, the build farm, limits and jobs; or what is wrong with them.
fn bake_config(args: &BakeArgs) -> Result<BakeConfig, String> {
    let shard = (args.shard.as_deref().map(str::parse::<Shard>).transpose())
        .map_err(|e| format!("--shard: {e}"))?;
    let (cache_dir, cache_url, cache_options) = cache_config(args)?;
    let mut config = BakeConfig::new(args.inputs.clone());
    config.shard = shard;
    config.root.clone_from(&args.root);
    config.compress = !args.no_compress;
    config.compress_spirv = args.compress_spirv || args.spirv == crate::SpirvLayout::Compressed;
    config.keep_going = args.keep_going;
    config.cache = cache_dir;
    config.cache_url = cache_url;
    if let Some(url) = &args.remote_executor {
        if !(url.starts_with("grpc://") || url.starts_with("grpcs://")) {
            return Err(format!(
                "--remote-executor {url}: expected grpc(s)://HOST:PORT"
            ));
        }
        config.remote = Some(slangpack_writer::remote::RemoteSettings {
            url: url.clone(),
            options: cache_options.clone(),
            fallback: args.remote_fallback,
            batch: args.remote_batch,
            platform: remote_platform(&args.remote_platform)?,
        });
    }
    config.cache_options = cache_options;
    config.in_process |= args.in_process;
    config.limits = slangpack_writer::worker::Limits {
        timeout: std::time::Duration::from_secs(args.job_timeout.max(1)),
        memory_mib: args.job_memory,
    };
    if !args.force && args.output.exists() {
        config.previous = Some(args.output.clone());
    }
    if let Some(jobs) = args.jobs {
        config.jobs = jobs.max(1);
    }
    Ok(config)
}

/// Reports a finished bake (and writes its depfile): exit 0, or 1 when permutations failed
/// or the depfile could not be written.
fn baked(
    args: &BakeArgs,
    config: &BakeConfig,
    outcome: &bake::BakeOutcome,
    terminal: bool,
) -> ExitCode {
    print_diagnostics(outcome, terminal);
    let entry_points: usize = outcome.entries.iter().map(|e| e.entry_points).sum();
    eprintln!(
        "baked {} entries ({}{} reused, {}{} entry points) into {} ({} bytes){}",
        outcome.entries.len(),
        config
            .shard
            .map_or(String::new(), |shard| format!("shard {shard}, ")),
        outcome.reused,
        if config.cache.is_some()
            || config.cache_url.is_some()
            || config.remote.is_some()
            || outcome.from_cache > 0
        {
            format!("{} from the cache, ", outcome.from_cache)
        } else {
            String::new()
        },
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
    if let Some(depfile) = &args.depfile {
        if let Err(error) = write_depfile(depfile, &args.output, outcome, config) {
            report(&error, terminal);
            return ExitCode::from(1);
        }
    }
    if outcome.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Whether diagnostics are coloured: `--color always`/`never`, or for `auto` on a terminal
/// unless `NO_COLOR` is set to anything non-empty (<https://no-color.org>).
fn colours(choice: &str, terminal: bool, no_color: Option<std::ffi::OsString>) -> bool {
    match choice {
        "always" => true,
        "never" => false,
        _ => terminal && no_color.is_none_or(|v| v.is_empty()),
    }
}

/// A failure of the command line rather than of a program: inputs that hold no shaders or
/// that do not exist (exit 2, as clap's usage errors).
fn is_usage_error(error: &BakeError, inputs: &[std::path::PathBuf]) -> bool {
    match error {
        BakeError::Input(message) => message.starts_with("no .slang files"),
        BakeError::Io { path, source } => {
            source.kind() == std::io::ErrorKind::NotFound && inputs.iter().any(|i| i == path)
        }
        _ => false,
    }
}

/// Prints the warnings of the baked entries, the cache's, and the failures `--keep-going`
/// left out.
pub(crate) fn print_diagnostics(outcome: &bake::BakeOutcome, terminal: bool) {
    for warning in outcome
        .cache_warnings
        .iter()
        .chain(&outcome.executor_warnings)
    {
        eprintln!("warning: {warning}");
    }
    for entry in &outcome.entries {
        if !entry.warnings.is_empty() {
            eprint!("{}", colorize(&entry.warnings, terminal));
        }
    }
    for failure in &outcome.failures {
        report(failure, terminal);
    }
}

/// Writes the depfile of a bake of `config` into `output` (`--depfile`).
pub(crate) fn write_depfile(
    depfile: &std::path::Path,
    output: &std::path::Path,
    outcome: &bake::BakeOutcome,
    config: &BakeConfig,
) -> Result<(), BakeError> {
    slangpack_writer::depfile::write(depfile, output, outcome, &config.inputs)
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
pub(crate) fn report(error: &BakeError, terminal: bool) {
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
        BakeError::Worker { diagnostics, .. } => {
            if !diagnostics.trim().is_empty() {
                eprint!("{}", colorize(diagnostics, terminal));
                if !diagnostics.ends_with('\n') {
                    eprintln!();
                }
            }
            eprintln!("error: {error}");
        }
        other => eprintln!("error: {other}"),
    }
}

/// The cache directory, the cache server and their options the command line gives.
fn cache_config(
    args: &crate::BakeArgs,
) -> Result<(Option<PathBuf>, Option<String>, CacheOptions), String> {
    let mut settings = slangpack_writer::cache::CacheSettings {
        url: args.cache_url.clone(),
        ..Default::default()
    };
    for location in &args.cache {
        settings
            .add_location(location)
            .map_err(|e| format!("--cache: {e}"))?;
    }
    if !(0.0..=1.0).contains(&args.cache_verify) {
        return Err(format!(
            "--cache-verify {}: a share from 0 to 1",
            args.cache_verify
        ));
    }
    let headers = args
        .cache_header
        .iter()
        .map(|spec| {
            let (name, value) = spec
                .split_once('=')
                .ok_or("--cache-header: expected NAME=VALUE")?;
            slangpack_writer::cache::resolve_header(name, value)
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((
        settings.dir,
        settings.url,
        CacheOptions {
            instance: args.cache_instance.clone(),
            headers,
            ca: args.cache_ca.clone(),
            client_cert: args.cache_client_cert.clone(),
            client_key: args.cache_client_key.clone(),
            read_only: args.cache_read_only,
            verify: args.cache_verify,
            timeout: Some(std::time::Duration::from_secs(args.cache_timeout.max(1))),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::remote_platform;

    #[test]
    fn remote_platform_options_are_key_value_pairs() {
        let options = ["OSFamily=Linux".to_string(), "image=a=b".to_string()];
        assert_eq!(
            remote_platform(&options).unwrap(),
            [
                ("OSFamily".to_string(), "Linux".to_string()),
                ("image".to_string(), "a=b".to_string())
            ]
        );
        let error = remote_platform(&["Linux".to_string()]).unwrap_err();
        assert!(error.contains("KEY=VALUE"), "{error}");
        assert!(remote_platform(&["=x".to_string()]).is_err());
    }
}

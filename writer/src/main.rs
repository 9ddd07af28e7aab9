//! The `slangpack` command line tool: bake Slang shaders into packages and inspect them.
//!
//! Exit codes: 0 success, 1 a compile failure or an invalid package, 2 a usage error.

mod dump;
mod tools;

use clap::{Parser, Subcommand};
use slangpack_writer::compile::{CompileOptions, MatrixLayout, Optimization};
use slangpack_writer::package::{self, BakeConfig};
use slangpack_writer::BakeError;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "slangpack",
    version,
    about = "Bake Slang shaders into slangpack packages"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile .slang files (or directories of them) into one package.
    Bake(Box<BakeArgs>),
    /// Print a readable summary of a package, or everything as JSON.
    Dump {
        /// The package.
        package: PathBuf,
        /// Print the documented JSON schema instead (see README.md).
        #[arg(long)]
        json: bool,
    },
    /// Validate a package completely (structure, indices, checksums).
    Verify {
        /// The package.
        package: PathBuf,
    },
    /// Write one entry point's SPIR-V to a file.
    Extract {
        /// The package.
        package: PathBuf,
        /// The entry's permutation key (see `dump`).
        #[arg(long)]
        entry: String,
        /// The entry point's Slang name.
        #[arg(long = "entry-point")]
        entry_point: String,
        /// Output .spv file.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Compare the bindings and layouts of two packages (exit 0: they match, 1: they differ,
    /// 2: error).
    Diff {
        /// The old package.
        old: PathBuf,
        /// The new package.
        new: PathBuf,
        /// Print the differences as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Generate host structs (with compile-time layout checks) and set/binding constants.
    Header {
        /// The package.
        package: PathBuf,
        /// Language of the header.
        #[arg(long, value_parser = ["rust", "c", "cpp"])]
        lang: String,
        /// Only this entry (permutation key); default: every entry.
        #[arg(long)]
        entry: Option<String>,
        /// The file to write (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Combine packages into one, storing identical SPIR-V and reflection once.
    Merge {
        /// The packages to combine.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The package to write (replaced atomically, only on success).
        #[arg(short, long)]
        output: PathBuf,
        /// Store reflection uncompressed.
        #[arg(long)]
        no_compress: bool,
    },
}

#[derive(clap::Args, Debug)]
struct BakeArgs {
    /// .slang files and directories (scanned recursively; modules without entry points are
    /// treated as imports).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The package to write (replaced atomically, only on success).
    #[arg(short, long)]
    output: PathBuf,
    /// Add a directory to the import / include search path.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include_dirs: Vec<PathBuf>,
    /// Define a preprocessor macro: NAME or NAME=VALUE.
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// Compile only these entry points, as NAME or NAME:STAGE (the stage is checked against
    /// the declared one); default: every [shader(...)] entry point.
    #[arg(short = 'e', long = "entry")]
    entry_points: Vec<String>,
    /// Compose another module (by name, through the search paths) into every program, in order.
    #[arg(short = 'm', long = "module")]
    modules: Vec<String>,
    /// Specialize the program's generic parameters (global type parameters, then generic
    /// entry points' parameters), in order, to these types.
    #[arg(long = "type-arg", value_name = "TYPE")]
    type_arguments: Vec<String>,
    /// Declare that TYPE conforms to INTERFACE (for interface-typed parameters).
    #[arg(long = "conformance", value_name = "TYPE:INTERFACE")]
    conformances: Vec<String>,
    /// Enable a Slang capability for the target (repeatable), e.g. spvDescriptorHeapEXT.
    #[arg(long = "capability", value_name = "NAME")]
    capabilities: Vec<String>,
    /// Slang profile.
    #[arg(long, default_value = "spirv_1_5")]
    profile: String,
    /// Optimisation level: 0 (none), 1 (default), 2 (high), 3 (maximal).
    #[arg(short = 'O', long = "optimize", default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=3))]
    optimization: u8,
    /// Matrix layout: row or column (default: Slang's).
    #[arg(long = "matrix-layout", value_parser = ["row", "column"])]
    matrix_layout: Option<String>,
    /// Emit debug information into the SPIR-V.
    #[arg(short = 'g', long = "debug-info")]
    debug_info: bool,
    /// Targets to bake, comma-separated: spirv, wgsl, glsl, hlsl, metal (SPIR-V always is).
    /// Each further target's bind view is checked against its code (naga for WGSL, glslang
    /// and spirv-cross for GLSL and HLSL).
    #[arg(
        long = "target",
        value_name = "TARGETS",
        value_delimiter = ',',
        default_value = "spirv"
    )]
    targets: Vec<String>,
    /// Directory keys and dependency paths are relative to (default: common ancestor of the
    /// inputs).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    /// Leave failing permutations out (reported) instead of failing the bake.
    #[arg(long)]
    keep_going: bool,
    /// Store reflection uncompressed (lets a reader view it straight from the mapping).
    #[arg(long)]
    no_compress: bool,
    /// Recompile everything instead of reusing unchanged entries of the existing output.
    #[arg(long)]
    force: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Bake(args) => bake(*args),
        Command::Dump { package, json } => dump::dump(&package, json),
        Command::Verify { package } => dump::verify(&package),
        Command::Extract {
            package,
            entry,
            entry_point,
            output,
        } => dump::extract(&package, &entry, &entry_point, &output),
        Command::Diff { old, new, json } => tools::diff(&old, &new, json),
        Command::Header {
            package,
            lang,
            entry,
            output,
        } => tools::header(&package, &lang, entry.as_deref(), output.as_deref()),
        Command::Merge {
            inputs,
            output,
            no_compress,
        } => tools::merge(&inputs, &output, !no_compress),
    }
}

fn bake(args: BakeArgs) -> ExitCode {
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
    let mut config = BakeConfig::new(args.inputs);
    config.root = args.root;
    config.compress = !args.no_compress;
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
    match package::bake_to_file(&config, &args.output) {
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
                "baked {} entries ({} reused, {} entry points) into {} ({} bytes){}",
                outcome.entries.len(),
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

//! The `slangpack` command line tool: bake Slang shaders into packages and inspect them.
//!
//! Exit codes: 0 success, 1 a compile failure or an invalid package, 2 a usage error.
//!
//! This binary does not link the Slang compiler, so the package tools start without loading
//! it. `bake` runs the `slangpack-bake` executable beside this one (built with the default
//! `slang` feature) with the same arguments, and ends with its exit status.

mod tools;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
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
    /// Compile .slang files (or directories of them) into one package (`bake --help`: options).
    ///
    /// Runs `slangpack-bake`, the executable beside this one that links the Slang compiler
    /// (built with the default `slang` feature), with these arguments.
    #[command(disable_help_flag = true)]
    Bake {
        /// Inputs and options, passed to `slangpack-bake` as they are.
        #[arg(num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Print a readable summary of a package, or everything as JSON.
    Dump {
        /// The package.
        #[arg(required_unless_present = "schema")]
        package: Option<PathBuf>,
        /// Print the documented JSON document instead (its schema: `--schema`).
        #[arg(long)]
        json: bool,
        /// Print the JSON Schema of the `--json` document (no package needed).
        #[arg(long, conflicts_with_all = ["package", "json", "entry"])]
        schema: bool,
        /// Only this entry (permutation key, as `dump` lists them).
        #[arg(long)]
        entry: Option<String>,
    },
    /// Validate a package completely (structure, indices, checksums).
    Verify {
        /// The package.
        package: PathBuf,
    },
    /// Write one entry point's code to a file: its SPIR-V, or with `--target` its WGSL, GLSL,
    /// HLSL or Metal text.
    Extract {
        /// The package.
        package: PathBuf,
        /// The entry's permutation key (see `dump`).
        #[arg(long)]
        entry: String,
        /// The entry point's Slang name.
        #[arg(long = "entry-point")]
        entry_point: String,
        /// Which code: spirv (default), wgsl, glsl, hlsl or metal.
        #[arg(long, default_value = "spirv")]
        target: String,
        /// Output file (.spv, .wgsl, .glsl, .hlsl, .metal).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Compare the bindings and layouts of two packages (exit 0: they match, 1: they differ,
    /// 2: error).
    Diff {
        /// The old package.
        #[arg(required_unless_present = "schema")]
        old: Option<PathBuf>,
        /// The new package.
        #[arg(required_unless_present = "schema")]
        new: Option<PathBuf>,
        /// Print the differences as JSON (its schema: `--schema`).
        #[arg(long)]
        json: bool,
        /// Print the JSON Schema of the `--json` document (no packages needed).
        #[arg(long, conflicts_with_all = ["old", "new", "json"])]
        schema: bool,
    },
    /// Write a self-contained HTML page that draws a package's bindings and layouts.
    Explore {
        /// The package (the new one, with `--diff`).
        package: PathBuf,
        /// Draw the differences from OLD to the package instead.
        #[arg(long, value_name = "OLD")]
        diff: Option<PathBuf>,
        /// The file to write (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
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
    /// Provision the Slang SDK this slangpack is pinned to (for crates that bake from
    /// build.rs outside this repository).
    Sdk {
        #[command(subcommand)]
        action: SdkAction,
    },
    /// Combine packages into one, storing identical SPIR-V and reflection once.
    Merge {
        /// The packages to combine.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The package to write (replaced atomically, only on success).
        #[arg(short, long)]
        output: PathBuf,
        /// Store reflection uncompressed (default: as the inputs store it).
        #[arg(long, conflicts_with = "compress")]
        no_compress: bool,
        /// Store reflection compressed (default: as the inputs store it).
        #[arg(long)]
        compress: bool,
        /// Store SPIR-V and reflection compressed with a shared dictionary and the directory
        /// as one compressed index, as `bake --compress-spirv` does (default: as the inputs
        /// store SPIR-V).
        #[arg(long, conflicts_with = "no_compress_spirv")]
        compress_spirv: bool,
        /// Store SPIR-V uncompressed (default: as the inputs store it).
        #[arg(long)]
        no_compress_spirv: bool,
        /// Merge shards of a sharded bake even when some are missing or incomplete, or beside
        /// packages that are no shards (a deliberate subset); what is missing is reported.
        #[arg(long)]
        allow_partial: bool,
    },
}

#[derive(Subcommand, Debug)]
enum SdkAction {
    /// Download the pinned Slang wheel (hash-checked) and unpack it into DIR, then print the
    /// `.cargo/config.toml` lines that point a build at it. Does nothing when DIR already holds
    /// it.
    Install {
        /// Where the SDK goes (default: `$HOME/.slangpack/slang-sdk`).
        dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Bake { args } => bake(&args),
        Command::Dump {
            package,
            json,
            schema,
            entry,
        } => match package {
            _ if schema => tools::schema(slangpack_tools::dump::JSON_SCHEMA),
            Some(package) => tools::dump(&package, json, entry.as_deref()),
            None => tools::usage("dump needs a package (or --schema)"),
        },
        Command::Verify { package } => tools::verify(&package),
        Command::Extract {
            package,
            entry,
            entry_point,
            target,
            output,
        } => tools::extract(&package, &entry, &entry_point, &target, &output),
        Command::Diff {
            old,
            new,
            json,
            schema,
        } => match (old, new) {
            _ if schema => tools::schema(slangpack_tools::diff::JSON_SCHEMA),
            (Some(old), Some(new)) => tools::diff(&old, &new, json),
            _ => tools::usage("diff needs two packages (or --schema)"),
        },
        Command::Explore {
            package,
            diff,
            output,
        } => tools::explore(&package, diff.as_deref(), output.as_deref()),
        Command::Header {
            package,
            lang,
            entry,
            output,
        } => tools::header(&package, &lang, entry.as_deref(), output.as_deref()),
        Command::Sdk {
            action: SdkAction::Install { dir },
        } => tools::sdk_install(dir),
        Command::Merge {
            inputs,
            output,
            no_compress,
            compress,
            compress_spirv,
            no_compress_spirv,
            allow_partial,
        } => {
            let choice = |yes: bool, no: bool| (yes || no).then_some(yes);
            tools::merge(
                &inputs,
                &output,
                choice(compress, no_compress),
                choice(compress_spirv, no_compress_spirv),
                allow_partial,
            )
        }
    }
}

/// Runs `slangpack-bake` (beside this executable) with `args`: on Unix in place of this
/// process (signals, such as Ctrl-C ending `bake --watch`, reach it directly), elsewhere as a
/// child whose exit status this process ends with.
fn bake(args: &[OsString]) -> ExitCode {
    let name = format!("slangpack-bake{}", std::env::consts::EXE_SUFFIX);
    let path = match std::env::current_exe() {
        Ok(exe) => exe.with_file_name(&name),
        Err(e) => {
            eprintln!("error: cannot find {name}: the path of this slangpack is unknown ({e})");
            return ExitCode::from(2);
        }
    };
    let mut command = std::process::Command::new(&path);
    command.args(args);
    #[cfg(unix)]
    let error = std::os::unix::process::CommandExt::exec(&mut command);
    #[cfg(not(unix))]
    let error = match command.status() {
        Ok(status) => {
            let code = status.code().and_then(|c| u8::try_from(c).ok());
            return ExitCode::from(code.unwrap_or(1));
        }
        Err(e) => e,
    };
    match error.kind() {
        std::io::ErrorKind::NotFound => eprintln!(
            "error: `slangpack bake` runs {name}, the compiling half of slangpack, which is not \
             beside this slangpack ({}). It is built with the default `slang` feature: \
             `cargo install slangpack-cli` installs both; in a checkout, \
             `cargo build -p slangpack-cli` builds both. Every other subcommand works without it.",
            path.display()
        ),
        _ => eprintln!("error: cannot run {}: {error}", path.display()),
    }
    ExitCode::from(2)
}

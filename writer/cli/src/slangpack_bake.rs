//! `slangpack-bake`: the `slangpack bake` subcommand, the one part of the command line tool
//! that compiles. It links the Slang compiler; `slangpack` does not, and runs this executable
//! (found beside itself) for `bake`, so that the package tools start without loading Slang.
//! Its command line is `slangpack bake`'s: `slangpack bake ARGS` runs `slangpack-bake ARGS`.
//!
//! Exit codes: 0 baked, 1 a compile failure or a failed write, 2 a usage error.

mod bake;
mod watch;

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Compile .slang files (or directories of them) into one package.
#[derive(Parser, Debug)]
#[command(name = "slangpack bake", bin_name = "slangpack bake", version, after_help = BAKE_HELP)]
struct BakeCli {
    #[command(flatten)]
    args: BakeArgs,
}

/// What `bake --help` adds after the options.
const BAKE_HELP: &str = "\
Inputs:
  A .slang file with [shader(...)] entry points is one program; a directory is scanned for
  them (modules without entry points are imports). A `NAME.toml` manifest beside `NAME.slang`
  sets its options and permutations ([[permutation]] tables or `axes`); a
  `//! slangpack-axis NAME = V1, V2` line in the source declares a permutation axis (every
  combination is baked; keys look like `pbr?SHADOWS=1`). See docs/cli.md, \"slangpack bake\".

Colours: --color auto (the default) colours Slang's diagnostics on a terminal unless NO_COLOR
is set; always and never force it.

Exit status: 0 baked, 1 a program failed to compile (or a bake with --keep-going left
permutations out, or the output could not be written), 2 a usage error (a bad option, a missing
input, inputs holding no shaders).";

/// How `bake --spirv` stores SPIR-V.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpirvLayout {
    /// zstd frames against a shared dictionary, the directory one compressed index.
    Compressed,
    /// As it is, 8-aligned, served straight from a mapping.
    Raw,
}

#[derive(clap::Args, Debug)]
pub(crate) struct BakeArgs {
    /// .slang files and directories (scanned recursively; modules without entry points are
    /// treated as imports).
    #[arg(required = true)]
    pub(crate) inputs: Vec<PathBuf>,
    /// The package to write (replaced atomically, only on success).
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    /// Add a directory to the import / include search path.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub(crate) include_dirs: Vec<PathBuf>,
    /// Define a preprocessor macro: NAME or NAME=VALUE.
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]")]
    pub(crate) defines: Vec<String>,
    /// Compile only these entry points, as NAME or NAME:STAGE (the stage is checked against
    /// the declared one) for every input, or FILE:NAME:STAGE for the input FILE names (its
    /// path as given, relative to the bake root, or its file name); default: every
    /// [shader(...)] entry point of each input no request applies to.
    #[arg(short = 'e', long = "entry", value_name = "[FILE:]NAME[:STAGE]")]
    pub(crate) entry_points: Vec<String>,
    /// Compose another module (by name, through the search paths) into every program, in order.
    #[arg(short = 'm', long = "module")]
    pub(crate) modules: Vec<String>,
    /// Specialize the program's generic parameters (global type parameters, then generic
    /// entry points' parameters), in order, to these types.
    #[arg(long = "type-arg", value_name = "TYPE")]
    pub(crate) type_arguments: Vec<String>,
    /// Declare that TYPE conforms to INTERFACE (for interface-typed parameters).
    #[arg(long = "conformance", value_name = "TYPE:INTERFACE")]
    pub(crate) conformances: Vec<String>,
    /// Enable a Slang capability for the target (repeatable), e.g. spvDescriptorHeapEXT.
    #[arg(long = "capability", value_name = "NAME")]
    pub(crate) capabilities: Vec<String>,
    /// Slang profile.
    #[arg(long, default_value = "spirv_1_5")]
    pub(crate) profile: String,
    /// Optimisation level: 0 (none), 1 (default), 2 (high), 3 (maximal).
    #[arg(short = 'O', long = "optimize", default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub(crate) optimization: u8,
    /// Matrix layout: row or column (default: Slang's).
    #[arg(long = "matrix-layout", value_parser = ["row", "column"])]
    pub(crate) matrix_layout: Option<String>,
    /// Emit debug information into the code at Slang's standard level (`-g2`); `-g0`..`-g3`
    /// choose the level as slangc's do.
    #[arg(short = 'g', long = "debug-info")]
    pub(crate) debug_info: bool,
    /// Debug-information level, 0..3 (what `-g0`..`-g3` set).
    #[arg(long = "debug-level", value_name = "N", value_parser = clap::value_parser!(u8).range(0..=3))]
    pub(crate) debug_level: Option<u8>,
    /// Member layout of buffers and push constants in the SPIR-V: default (std140 for
    /// uniform buffers, std430 otherwise), scalar (slangc -fvk-use-scalar-layout) or dx
    /// (-fvk-use-dx-layout). The bind view states, and is checked against, that layout.
    #[arg(
        long = "buffer-layout",
        value_name = "LAYOUT",
        default_value = "default"
    )]
    pub(crate) buffer_layout: String,
    /// Keep each entry point's Slang name as its SPIR-V entry name instead of `main`
    /// (slangc -fvk-use-entrypoint-name).
    #[arg(long = "keep-entry-point-names")]
    pub(crate) keep_entry_point_names: bool,
    /// Infer Vulkan bindings from HLSL registers: class b, t, s or u, the shift, the register
    /// space (= set), e.g. `--vk-shift t 10 0` (slangc -fvk-t-shift 10 0). Repeatable.
    #[arg(long = "vk-shift", num_args = 3, value_names = ["CLASS", "SHIFT", "SET"], action = clap::ArgAction::Append)]
    pub(crate) vk_shift: Vec<String>,
    /// Put the global uniform buffer at BINDING of SET (slangc -fvk-bind-globals).
    #[arg(long = "bind-globals", num_args = 2, value_names = ["BINDING", "SET"])]
    pub(crate) bind_globals: Vec<String>,
    /// Warning control, repeatable, in order: NAME enables a warning, no-NAME disables it,
    /// error makes every warning an error, error=NAME,NAME the named ones.
    #[arg(short = 'W', value_name = "[no-]NAME|error[=NAMES]")]
    pub(crate) warnings: Vec<String>,
    /// Treat every warning as an error (as `-W error`).
    #[arg(long = "warnings-as-errors")]
    pub(crate) warnings_as_errors: bool,
    /// Floating-point mode: default, precise or fast.
    #[arg(long = "fp-mode", value_name = "MODE", default_value = "default")]
    pub(crate) fp_mode: String,
    /// Targets to bake, comma-separated: spirv, wgsl, glsl, hlsl, metal (SPIR-V always is).
    /// Each further target's bind view is checked against its code (naga for WGSL, glslang
    /// and spirv-cross for GLSL and HLSL).
    #[arg(
        long = "target",
        value_name = "TARGETS",
        value_delimiter = ',',
        default_value = "spirv"
    )]
    pub(crate) targets: Vec<String>,
    /// Directory keys and dependency paths are relative to (default: common ancestor of the
    /// inputs).
    #[arg(long)]
    pub(crate) root: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long)]
    pub(crate) jobs: Option<usize>,
    /// Leave failing permutations out (reported) instead of failing the bake.
    #[arg(long)]
    pub(crate) keep_going: bool,
    /// Compile in this process instead of worker processes: a compiler crash then ends the
    /// whole bake (for debugging the compiler).
    #[arg(long)]
    pub(crate) in_process: bool,
    /// Time one permutation's compile job may take in its worker, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub(crate) job_timeout: u64,
    /// Address space of each compile worker, in MiB (default: unlimited).
    #[arg(long, value_name = "MIB")]
    pub(crate) job_memory: Option<u64>,
    /// Store reflection uncompressed (lets a reader view it straight from the mapping).
    #[arg(long)]
    pub(crate) no_compress: bool,
    /// How SPIR-V is stored. `compressed` (the default): modules packed, consecutive ones in
    /// one zstd frame (a module run) against a dictionary the package shares, each blob's bind
    /// view compressed too (those of permutations sharing raw tables several in one frame, a
    /// bind-view run), the directory one
    /// compressed index; an entry's modules are decompressed once, at its first load. `raw`:
    /// modules and bind views stored as they are, served straight from a mapping (larger).
    #[arg(long, value_enum, value_name = "LAYOUT", default_value_t = SpirvLayout::Compressed)]
    pub(crate) spirv: SpirvLayout,
    /// The same as `--spirv compressed` (the default), kept for existing scripts.
    #[arg(long, hide = true)]
    pub(crate) compress_spirv: bool,
    /// Recompile everything instead of reusing unchanged entries of the existing output.
    #[arg(long)]
    pub(crate) force: bool,
    /// Bake only the K-th (1-based) of N balanced slices of the permutations, e.g. `2/4`; the
    /// slices depend only on the permutation keys, and `slangpack merge` joins the N packages
    /// into exactly the package a whole bake writes.
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<String>,
    /// After the first bake, keep watching every file an entry depends on and the input
    /// directories, and rebake what changed (only those entries) each time one changes; a
    /// failing edit prints Slang's diagnostics and keeps the last good package. Stop with
    /// Ctrl-C.
    #[arg(long)]
    pub(crate) watch: bool,
    /// Write the package's dependencies to FILE in make syntax (for ninja's `depfile`, make's
    /// `-include` and CMake's `DEPFILE`), after every successful bake.
    #[arg(long, value_name = "FILE")]
    pub(crate) depfile: Option<PathBuf>,
    /// The team cache: a directory shared by checkouts and CI jobs, or a server:
    /// http(s)://HOST[:PORT][/PATH] (the Bazel HTTP cache protocol: bazel-remote, nginx with
    /// WebDAV, ...) or grpc(s)://HOST:PORT (the Remote Execution API: BuildGrid, Buildbarn,
    /// NativeLink, BuildBuddy, EngFlow, bazel-remote). Entries it holds for the inputs as
    /// they are are taken instead of compiled (checked like a package); compiled ones are
    /// stored. A broken, slow or unreachable cache is a warning, never a failed bake. Given
    /// twice (a directory and a server), the directory is asked first.
    #[arg(long, value_name = "DIR|URL")]
    pub(crate) cache: Vec<String>,
    /// A cache server, as --cache URL.
    #[arg(long, value_name = "URL", hide = true)]
    pub(crate) cache_url: Option<String>,
    /// The Remote Execution API instance name of a grpc(s):// cache.
    #[arg(long, value_name = "NAME", default_value = "")]
    pub(crate) cache_instance: String,
    /// A header sent with every cache request, as NAME=VALUE (repeatable). VALUE may be
    /// @FILE (the file's first line) or env:VAR (that environment variable), so that tokens
    /// stay out of command lines and logs.
    #[arg(long, value_name = "NAME=VALUE")]
    pub(crate) cache_header: Vec<String>,
    /// PEM certificates of the authorities a cache server's certificate must chain to
    /// (instead of the public web's).
    #[arg(long, value_name = "FILE")]
    pub(crate) cache_ca: Option<PathBuf>,
    /// A PEM client certificate for cache servers that ask for one (mutual TLS).
    #[arg(long, value_name = "FILE", requires = "cache_client_key")]
    pub(crate) cache_client_cert: Option<PathBuf>,
    /// The PEM private key of --cache-client-cert.
    #[arg(long, value_name = "FILE", requires = "cache_client_cert")]
    pub(crate) cache_client_key: Option<PathBuf>,
    /// Read from the cache, never write to it (for clients that should not feed it).
    #[arg(long)]
    pub(crate) cache_read_only: bool,
    /// Compile this share (0 to 1) of cache hits anyway and fail the bake when the bytes
    /// differ from what the cache gave (the compile is deterministic).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    pub(crate) cache_verify: f64,
    /// The longest one cache request may take, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub(crate) cache_timeout: u64,
    /// Run the compiles on a build farm speaking the Remote Execution API
    /// (grpc://HOST:PORT or grpcs://HOST:PORT), with --cache-instance, --cache-header and the
    /// TLS options; -j is then the number of actions in flight, and the farm is the cache
    /// where no other is named.
    #[arg(long, value_name = "URL")]
    pub(crate) remote_executor: Option<String>,
    /// Whether to compile locally, with one warning, when the farm cannot be reached or
    /// refuses (on by default).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub(crate) remote_fallback: bool,
    /// How many permutations one action on the farm compiles, with one process and one Slang
    /// global session (default: the permutations over -j, at most 256).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(usize))]
    pub(crate) remote_batch: Option<usize>,
    /// A platform property (repeatable) naming the toolchain on a farm that provisions its
    /// own workers (container-image=docker://..., OSFamily=Linux): the actions then run the
    /// workers' `slangpack` and carry no toolchain. Without it, the toolchain travels.
    #[arg(long, value_name = "KEY=VALUE")]
    pub(crate) remote_platform: Vec<String>,
    /// Colour diagnostics: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub(crate) color: String,
}

/// The command line with slangc's `-g0`..`-g3` spelled as `--debug-level N`.
fn args() -> impl Iterator<Item = std::ffi::OsString> {
    std::env::args_os().map(|arg| match arg.to_str() {
        Some(level @ ("-g0" | "-g1" | "-g2" | "-g3")) => {
            format!("--debug-level={}", &level[2..]).into()
        }
        _ => arg,
    })
}

fn main() -> ExitCode {
    bake::bake(BakeCli::parse_from(args()).args)
}

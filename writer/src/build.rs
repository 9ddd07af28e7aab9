//! Baking from a build script (`build.rs`).
//!
//! [`Bake`] compiles shaders into a package (incrementally: unchanged entries of the existing
//! package are reused) and tells cargo when to run the build script again: a
//! `cargo:rerun-if-changed=` line for every input and every file any baked entry read (the
//! entries' dependencies, resolved against the bake root). Optionally it writes the Rust bind
//! header (see `slangpack_tools::header`) beside the package.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
//!     slangpack_writer::build::Bake::new()
//!         .input("shaders")
//!         .output(out_dir.join("shaders.slangpack"))
//!         .rust_header(out_dir.join("shaders.rs"))
//!         .run()?;
//!     Ok(())
//! }
//! ```
//!
//! The program then embeds or opens the package, e.g.
//! `include_bytes!(concat!(env!("OUT_DIR"), "/shaders.slangpack"))` with
//! `slangpack_reader::Package::from_bytes`, and includes the structs with
//! `include!(concat!(env!("OUT_DIR"), "/shaders.rs"))`.
//!
//! The build script links Slang (through this crate), so it needs `libslang-compiler` at run
//! time, and an rpath printed by a build script (`cargo:rustc-link-arg`) reaches only the
//! printing package's own targets, never a dependent's build script. Instead, this crate's
//! build script links the Slang libraries into the target directory: into a directory it
//! announces with `cargo:rustc-link-search` (cargo puts such directories of a build script's
//! dependencies on `LD_LIBRARY_PATH` when it runs the build script under `cargo build`,
//! `test` and `run`) and into the host `deps` directory (on that path under `cargo check` and
//! `clippy` too). Nothing is needed in the depending crate.

use crate::bake::{bake_to_file, BakeConfig, BakeOutcome};
use crate::compile::{
    BindingShift, BufferLayout, CompileOptions, DebugLevel, FloatingPointMode, GlobalsBinding,
    MatrixLayout, Optimization, WarningControl,
};
use crate::error::BakeError;
use slangpack_tools::header::{self, Language};
use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A bake configured from a build script. Paths are relative to the build script's working
/// directory (the package's manifest directory).
#[derive(Debug, Clone)]
pub struct Bake {
    config: BakeConfig,
    output: Option<PathBuf>,
    rust_header: Option<PathBuf>,
    cargo_directives: bool,
    incremental: bool,
}

/// What [`Bake::run`] did.
#[derive(Debug)]
pub struct Baked {
    /// The package written.
    pub package: PathBuf,
    /// The Rust bind header written, if one was asked for.
    pub rust_header: Option<PathBuf>,
    /// The bake's outcome (entries, bytes, how many were reused).
    pub outcome: BakeOutcome,
    /// Every path reported with `cargo:rerun-if-changed` (inputs, include directories and
    /// dependency files), sorted.
    pub rerun_if_changed: Vec<PathBuf>,
}

impl Default for Bake {
    fn default() -> Self {
        Self::new()
    }
}

impl Bake {
    /// A bake with no inputs yet, default compile options, compressed reflection, as many
    /// workers as cargo allows the build script (`NUM_JOBS`), incremental, printing cargo
    /// directives.
    pub fn new() -> Bake {
        let mut config = BakeConfig::new(Vec::new());
        if let Some(jobs) = std::env::var("NUM_JOBS")
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
        {
            config.jobs = jobs.max(1);
        }
        Bake {
            config,
            output: None,
            rust_header: None,
            cargo_directives: true,
            incremental: true,
        }
    }

    /// Adds an input: a `.slang` file, a directory (scanned recursively) or a manifest.
    #[must_use]
    pub fn input(mut self, path: impl Into<PathBuf>) -> Bake {
        self.config.inputs.push(path.into());
        self
    }

    /// The package to write; default `$OUT_DIR/shaders.slangpack`.
    #[must_use]
    pub fn output(mut self, path: impl Into<PathBuf>) -> Bake {
        self.output = Some(path.into());
        self
    }

    /// Also writes the Rust bind header of the package (see `slangpack_tools::header`) to `path`.
    #[must_use]
    pub fn rust_header(mut self, path: impl Into<PathBuf>) -> Bake {
        self.rust_header = Some(path.into());
        self
    }

    /// The directory keys and dependency paths are relative to (default: the common ancestor
    /// of the inputs).
    #[must_use]
    pub fn root(mut self, path: impl Into<PathBuf>) -> Bake {
        self.config.root = Some(path.into());
        self
    }

    /// Adds a directory to the import / include search path.
    #[must_use]
    pub fn include_dir(mut self, path: impl Into<PathBuf>) -> Bake {
        self.config.options.include_dirs.push(path.into());
        self
    }

    /// Defines a preprocessor macro.
    #[must_use]
    pub fn define(mut self, name: impl Into<String>, value: impl Into<String>) -> Bake {
        self.config
            .options
            .defines
            .push((name.into(), value.into()));
        self
    }

    /// Compiles only the named entry points (`NAME` or `NAME:STAGE`); default: all.
    #[must_use]
    pub fn entry_point(mut self, name: impl Into<String>) -> Bake {
        self.config.options.entry_points.push(name.into());
        self
    }

    /// Composes another module (by name, through the search paths) into every program.
    #[must_use]
    pub fn module(mut self, name: impl Into<String>) -> Bake {
        self.config.options.modules.push(name.into());
        self
    }

    /// Declares that `ty` conforms to `interface`.
    #[must_use]
    pub fn conformance(mut self, ty: impl Into<String>, interface: impl Into<String>) -> Bake {
        self.config
            .options
            .conformances
            .push((ty.into(), interface.into()));
        self
    }

    /// Enables a Slang capability for the target (`spvDescriptorHeapEXT`, ...).
    #[must_use]
    pub fn capability(mut self, name: impl Into<String>) -> Bake {
        self.config.options.capabilities.push(name.into());
        self
    }

    /// The Slang profile (default `spirv_1_5`).
    #[must_use]
    pub fn profile(mut self, profile: impl Into<String>) -> Bake {
        self.config.options.profile = profile.into();
        self
    }

    /// Bakes `target`'s code and bind view too (WGSL, GLSL, HLSL, Metal; SPIR-V always is),
    /// each checked against its code at bake time. Repeatable. DXIL fails the bake: it needs
    /// Microsoft's `dxc`.
    #[must_use]
    pub fn target(mut self, target: slangpack_format::Target) -> Bake {
        let targets = &mut self.config.options.targets;
        if target != slangpack_format::Target::Spirv && !targets.contains(&target) {
            targets.push(target);
            targets.sort();
        }
        self
    }

    /// The optimisation level.
    #[must_use]
    pub fn optimization(mut self, level: Optimization) -> Bake {
        self.config.options.optimization = level;
        self
    }

    /// The default matrix layout (default: Slang's).
    #[must_use]
    pub fn matrix_layout(mut self, layout: MatrixLayout) -> Bake {
        self.config.options.matrix_layout = Some(layout);
        self
    }

    /// Emits debug information into the code at Slang's standard level (`slangc -g`), or
    /// none.
    #[must_use]
    pub fn debug_info(mut self, on: bool) -> Bake {
        self.config.options.debug_level = if on {
            DebugLevel::Standard
        } else {
            DebugLevel::None
        };
        self
    }

    /// The debug-information level (`slangc -g0`..`-g3`).
    #[must_use]
    pub fn debug_level(mut self, level: DebugLevel) -> Bake {
        self.config.options.debug_level = level;
        self
    }

    /// The member layout of buffers and push constants in the SPIR-V (default std140 and
    /// std430); the bind view states the layout chosen.
    #[must_use]
    pub fn buffer_layout(mut self, layout: BufferLayout) -> Bake {
        self.config.options.buffer_layout = layout;
        self
    }

    /// Keeps each entry point's Slang name as its SPIR-V entry name instead of `main`.
    #[must_use]
    pub fn keep_entry_point_names(mut self, on: bool) -> Bake {
        self.config.options.keep_entry_point_names = on;
        self
    }

    /// Infers Vulkan bindings from HLSL registers of one class and space. Repeatable.
    #[must_use]
    pub fn binding_shift(mut self, shift: BindingShift) -> Bake {
        self.config.options.binding_shifts.push(shift);
        self
    }

    /// Puts the global uniform buffer at `binding` of `set`.
    #[must_use]
    pub fn globals_binding(mut self, binding: u32, set: u32) -> Bake {
        self.config.options.globals_binding = Some(GlobalsBinding { binding, set });
        self
    }

    /// Adds a warning control (see [`crate::options::warning`] for the text form).
    /// Repeatable; applied in order.
    #[must_use]
    pub fn warning(mut self, control: WarningControl) -> Bake {
        self.config.options.warnings.push(control);
        self
    }

    /// Compiles in the build script's own process instead of worker processes: a compiler
    /// crash then ends the build script. For debugging.
    #[must_use]
    pub fn in_process(mut self, on: bool) -> Bake {
        self.config.in_process = on || !crate::worker::available();
        self
    }

    /// Limits of each permutation's compile job in its worker process.
    #[must_use]
    pub fn job_limits(mut self, limits: crate::worker::Limits) -> Bake {
        self.config.limits = limits;
        self
    }

    /// Slang's floating-point mode.
    #[must_use]
    pub fn floating_point_mode(mut self, mode: FloatingPointMode) -> Bake {
        self.config.options.floating_point_mode = mode;
        self
    }

    /// Replaces every compile option at once.
    #[must_use]
    pub fn options(mut self, options: CompileOptions) -> Bake {
        self.config.options = options;
        self
    }

    /// Stores reflection zstd-compressed (default) or raw.
    #[must_use]
    pub fn compress(mut self, on: bool) -> Bake {
        self.config.compress = on;
        self
    }

    /// Stores SPIR-V zstd-compressed with a shared dictionary (the default), or raw with
    /// `false` (SPIR-V is then served straight from the mapping).
    #[must_use]
    pub fn compress_spirv(mut self, on: bool) -> Bake {
        self.config.compress_spirv = on;
        self
    }

    /// The team cache (docs/cli.md, "The team cache"): a directory, an `http(s)://` server
    /// speaking the Bazel HTTP cache protocol or a `grpc(s)://` Remote Execution API server;
    /// call twice for a directory in front of a server.
    ///
    /// # Panics
    /// When a second directory or a second server is given.
    #[must_use]
    pub fn cache(mut self, location: &str) -> Bake {
        let mut settings = crate::cache::CacheSettings {
            dir: self.config.cache.take(),
            url: self.config.cache_url.take(),
            options: crate::cache::CacheOptions::default(),
        };
        if let Err(e) = settings.add_location(location) {
            panic!("Bake::cache({location:?}): {e}");
        }
        self.config.cache = settings.dir;
        self.config.cache_url = settings.url;
        self
    }

    /// Credentials, TLS files, read-only and verification of the cache ([`Bake::cache`]);
    /// none of it is part of any entry's options hash. Header values may be read with
    /// [`crate::cache::resolve_header`] (`@FILE`, `env:VAR`).
    #[must_use]
    pub fn cache_options(mut self, options: crate::cache::CacheOptions) -> Bake {
        if let Some(remote) = &mut self.config.remote {
            remote.options = options.clone();
        }
        self.config.cache_options = options;
        self
    }

    /// Runs the compiles on a build farm through the Remote Execution API
    /// (`grpc(s)://HOST:PORT`, see [`crate::remote`]), reached with the cache options
    /// ([`Bake::cache_options`]) and compiling locally, with a warning, when it is out of
    /// reach; [`Bake::jobs`] is then the number of actions in flight.
    #[must_use]
    pub fn remote_executor(mut self, url: &str) -> Bake {
        self.config.remote = Some(crate::remote::RemoteSettings {
            url: url.to_string(),
            options: self.config.cache_options.clone(),
            fallback: true,
            batch: None,
            platform: Vec::new(),
        });
        self
    }

    /// Worker threads.
    #[must_use]
    pub fn jobs(mut self, jobs: usize) -> Bake {
        self.config.jobs = jobs.max(1);
        self
    }

    /// Reuses unchanged entries of the existing output (default) or recompiles everything.
    #[must_use]
    pub fn incremental(mut self, on: bool) -> Bake {
        self.incremental = on;
        self
    }

    /// Prints `cargo:rerun-if-changed` and `cargo:warning` lines (default); turn off to use
    /// the builder outside a build script.
    #[must_use]
    pub fn cargo_directives(mut self, on: bool) -> Bake {
        self.cargo_directives = on;
        self
    }

    /// Bakes, writes the package (only when its bytes changed, atomically) and the header,
    /// and prints the cargo directives.
    ///
    /// # Errors
    /// [`BakeError::Input`] without inputs or without an output (no `OUT_DIR` either), the
    /// bake's errors (Slang's diagnostics for compile errors), and I/O errors.
    pub fn run(self) -> Result<Baked, BakeError> {
        if self.config.inputs.is_empty() {
            return Err(BakeError::Input("no inputs: call Bake::input".into()));
        }
        let output = match self.output.clone() {
            Some(path) => path,
            None => match std::env::var_os("OUT_DIR") {
                Some(dir) => PathBuf::from(dir).join("shaders.slangpack"),
                None => {
                    return Err(BakeError::Input(
                        "no output: call Bake::output (OUT_DIR is not set)".into(),
                    ))
                }
            },
        };
        let mut rerun = BTreeSet::new();
        for path in self
            .config
            .inputs
            .iter()
            .chain(&self.config.options.include_dirs)
        {
            rerun.insert(path.clone());
        }
        // Reported before baking, so that a failed bake also reruns once an input changes.
        let mut stdout = std::io::stdout().lock();
        if self.cargo_directives {
            for path in &rerun {
                let _ = writeln!(stdout, "cargo:rerun-if-changed={}", path.display());
            }
            let _ = stdout.flush();
        }
        let mut config = self.config.clone();
        if self.incremental && output.exists() {
            config.previous = Some(output.clone());
        }
        let outcome = bake_to_file(&config, &output)?;
        let root = &outcome.root;
        let mut dependencies = BTreeSet::new();
        for entry in &outcome.entries {
            for (path, _) in &entry.dependencies {
                dependencies.insert(root.join(path));
            }
        }
        if self.cargo_directives {
            for path in &dependencies {
                let _ = writeln!(stdout, "cargo:rerun-if-changed={}", path.display());
            }
            // Every line of Slang's warnings (cargo shows each `cargo:warning=` line alone), so
            // the file, line and caret stay with the message.
            for entry in &outcome.entries {
                for line in entry.warnings.lines().filter(|l| !l.trim().is_empty()) {
                    let _ = writeln!(stdout, "cargo:warning={}: {line}", entry.key);
                }
            }
            for warning in &outcome.executor_warnings {
                let _ = writeln!(stdout, "cargo:warning={warning}");
            }
        }
        rerun.extend(dependencies);
        if let Some(path) = &self.rust_header {
            let package = slangpack_reader::Package::from_bytes(&outcome.bytes).map_err(|e| {
                BakeError::Input(format!("the baked package does not read back: {e}"))
            })?;
            let text = header::generate(&package, Language::Rust, None)?;
            write_if_changed(path, text.as_bytes())?;
        }
        Ok(Baked {
            package: output,
            rust_header: self.rust_header,
            outcome,
            rerun_if_changed: rerun.into_iter().collect(),
        })
    }
}

/// Writes `bytes` to `path` atomically unless the file already holds them (so its
/// modification time, and whatever depends on it, stays put).
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), BakeError> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    Ok(slangpack_pack::write_atomically(path, bytes)?)
}

//! The Slang front end: one compilation of one program (a module, the modules it imports and
//! its entry points) to SPIR-V, with Slang's diagnostics kept verbatim.

use crate::error::BakeError;
use slangpack_format::Target;
use slangpack_slang::com::{Component, Module, Session, SlangFailure};
use slangpack_slang::reflection::{Decl, Program};
use slangpack_slang::session::{GlobalSession, SessionOptions};
use std::path::{Path, PathBuf};

mod defects;
mod steps;
mod target_code;

use steps::{Compilation, Request};
pub use target_code::{code_target, entry_name};

pub use slangpack_slang::session::{
    BindingShift, BufferLayout, DebugLevel, FloatingPointMode, GlobalsBinding, MatrixLayout,
    Optimization, RegisterClass, WarningControl,
};

/// Whether this process is a compile worker serving jobs (whose stderr the bake reports when
/// the worker dies).
pub(crate) static SERVING: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Whether this process is a compile worker: what it writes to stderr reaches the bake's
/// report only if it dies on a job.
pub(crate) fn serving() -> bool {
    SERVING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Options of one compilation. Every field takes part in an entry's options hash.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CompileOptions {
    /// Slang profile, e.g. `spirv_1_5` (the default).
    pub profile: String,
    /// Optimisation level.
    pub optimization: Optimization,
    /// Matrix layout; `None` keeps Slang's default.
    pub matrix_layout: Option<MatrixLayout>,
    /// Directories searched by `import` and `#include`, in order, after the source's own.
    pub include_dirs: Vec<PathBuf>,
    /// Preprocessor defines, `(name, value)`.
    pub defines: Vec<(String, String)>,
    /// Entry points to compile, as `name` or `name:stage` (the stage is checked against the
    /// declared `[shader("...")]` stage, which Slang itself does not do); empty means every
    /// `[shader(...)]` entry point.
    pub entry_points: Vec<String>,
    /// Further modules composed into the program after the main one, in this order (the
    /// order decides the parameter layout): module names resolved through the search paths.
    pub modules: Vec<String>,
    /// Type conformances `(type, interface)` for interface-typed parameters, e.g.
    /// `("PbrMaterial", "IMaterial")`.
    pub conformances: Vec<(String, String)>,
    /// Type arguments for the program's open generic parameters (global `type_param`s, then
    /// generic entry points' parameters, in composition order), by type name.
    pub type_arguments: Vec<String>,
    /// Debug information emitted into the code.
    pub debug_level: DebugLevel,
    /// The member layout of buffers and push constants in the SPIR-V.
    pub buffer_layout: BufferLayout,
    /// Keep each entry point's Slang name as its SPIR-V `OpEntryPoint` name instead of `main`
    /// (`slangc -fvk-use-entrypoint-name`).
    pub keep_entry_point_names: bool,
    /// Vulkan bindings inferred from HLSL registers, per register class and space.
    pub binding_shifts: Vec<BindingShift>,
    /// Where the global uniform buffer goes; `None` keeps Slang's choice.
    pub globals_binding: Option<GlobalsBinding>,
    /// Warning controls, in order.
    pub warnings: Vec<WarningControl>,
    /// Slang's floating-point mode.
    pub floating_point_mode: FloatingPointMode,
    /// Slang capabilities to enable for the target (`spvDescriptorHeapEXT`,
    /// `SPV_EXT_descriptor_indexing`, ...), by Slang's names.
    pub capabilities: Vec<String>,
    /// Targets compiled besides SPIR-V (which every bake produces: the Vulkan bind view is the
    /// base of every other target's), in [`Target`] order without duplicates; empty by default.
    #[serde(with = "target_names")]
    pub targets: Vec<Target>,
}

/// Targets as their names (`wgsl`, ...), for the options a bake hands its compile workers.
mod target_names {
    use slangpack_format::Target;

    pub(super) fn serialize<S: serde::Serializer>(
        targets: &[Target],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(targets.iter().map(|t| t.name()))
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Target>, D::Error> {
        let names: Vec<String> = serde::Deserialize::deserialize(deserializer)?;
        names
            .iter()
            .map(|n| {
                Target::from_name(n)
                    .ok_or_else(|| serde::de::Error::custom(format!("no target named `{n}`")))
            })
            .collect()
    }
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            profile: "spirv_1_5".into(),
            optimization: Optimization::Default,
            matrix_layout: None,
            include_dirs: Vec::new(),
            defines: Vec::new(),
            entry_points: Vec::new(),
            modules: Vec::new(),
            conformances: Vec::new(),
            type_arguments: Vec::new(),
            debug_level: DebugLevel::None,
            buffer_layout: BufferLayout::Default,
            keep_entry_point_names: false,
            binding_shifts: Vec::new(),
            globals_binding: None,
            warnings: Vec::new(),
            floating_point_mode: FloatingPointMode::Default,
            capabilities: Vec::new(),
            targets: Vec::new(),
        }
    }
}

/// A program's source: the main module's text, and where it came from.
#[derive(Clone, Debug)]
pub struct Source {
    /// Path of the main module; its directory is searched first for imports.
    pub path: PathBuf,
    /// The module's text.
    pub text: String,
    /// The path Slang is told, shown in diagnostics and part of Slang's entry-point hashes;
    /// `None` uses `path`. Bakes pass the path relative to the bake root, so that packages do
    /// not depend on where the tree sits.
    pub slang_path: Option<String>,
}

impl Source {
    /// Reads a `.slang` file.
    ///
    /// # Errors
    /// [`BakeError::Io`] when the file cannot be read or is not UTF-8.
    pub fn read(path: &Path) -> Result<Source, BakeError> {
        let text = std::fs::read_to_string(path).map_err(|e| BakeError::io(path, e))?;
        Ok(Source {
            path: path.to_path_buf(),
            text,
            slang_path: None,
        })
    }

    fn module_name(&self) -> String {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "main".into())
    }
}

use slangpack_pack::assemble::CompiledEntryPoint;

/// A compiled program: its entry points' code, the files it read, and the linked program
/// whose reflection the table builder walks.
pub struct CompiledProgram {
    /// Entry points in the order they were composed.
    pub entry_points: Vec<CompiledEntryPoint>,
    /// Every file the compilation read (the main module and its imports), as Slang reports them.
    pub dependencies: Vec<PathBuf>,
    /// Warnings Slang reported, verbatim and each once; empty when there were none.
    pub warnings: String,
    /// Slang's build tag (version) that compiled the program.
    pub slang_version: String,
    /// The further targets compiled, in session order (session target `i + 1`).
    pub targets: Vec<Target>,
    /// The type arguments the program was specialized with (`--type-arg`), in order: global
    /// generic parameters first, then existential (interface-typed) parameters.
    pub type_arguments: Vec<String>,
    /// The type conformances the program was composed with (`--conformance TYPE:INTERFACE`).
    pub conformances: Vec<(String, String)>,
    linked: Component,
    // The main module, whose declaration tree the reflection walk bakes.
    module: Module,
    // Keeps the session (and so the program's modules) alive as long as `linked`.
    _session: Session,
}

impl std::fmt::Debug for CompiledProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledProgram")
            .field("entry_points", &self.entry_points)
            .field("dependencies", &self.dependencies)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

impl CompiledProgram {
    /// The linked program's reflection (target 0).
    ///
    /// # Errors
    /// [`BakeError::Compile`] if Slang cannot produce a layout.
    pub fn layout(&self) -> Result<Program<'_>, BakeError> {
        self.linked
            .layout(0)
            .map_err(|f| BakeError::compile("", "layout", f))
    }

    /// The linked program's reflection for further target `target` (its layout differs from
    /// SPIR-V's: registers, argument buffers, split texture-samplers).
    ///
    /// # Errors
    /// [`BakeError::Compile`] if Slang cannot produce a layout, or the program was not compiled
    /// for `target`.
    pub fn target_layout(&self, target: Target) -> Result<Program<'_>, BakeError> {
        let index = self
            .targets
            .iter()
            .position(|&t| t == target)
            .ok_or_else(|| BakeError::Input(format!("not compiled for {}", target.name())))?;
        self.linked
            .layout(index as i64 + 1)
            .map_err(|f| BakeError::compile("", "layout", f))
    }

    /// Slang's own JSON reflection of the program (`spReflection_ToJson`).
    ///
    /// # Errors
    /// [`BakeError::Compile`] if Slang cannot produce it.
    pub fn reflection_json(&self) -> Result<String, BakeError> {
        self.linked
            .reflection_json()
            .map_err(|f| BakeError::compile("", "reflection json", f))
    }

    /// The main module's declaration tree (`IModule::getModuleReflection`), if Slang gives one.
    pub(crate) fn module_decl(&self) -> Option<Decl<'_>> {
        self.module.reflection()
    }

    /// Whether entry point `index` uses the binding (`category`, a raw
    /// [`slangpack_format::ParameterCategory`], `space`, `binding`), from the compiled code's
    /// metadata; `None` when Slang cannot say.
    pub fn entry_point_uses(
        &self,
        index: usize,
        category: u32,
        space: u64,
        binding: u64,
    ) -> Option<bool> {
        self.linked
            .entry_point_uses(index as i64, 0, category, space, binding)
    }
}

/// A Slang global session, reused for every compilation a worker makes.
pub struct Compiler {
    global: GlobalSession,
    version: String,
}

impl std::fmt::Debug for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field("version", &self.version)
            .finish()
    }
}

impl Compiler {
    /// Starts Slang.
    ///
    /// # Errors
    /// [`BakeError::Slang`] when the Slang library cannot create a global session.
    pub fn new() -> Result<Compiler, BakeError> {
        let global = GlobalSession::new()
            .ok_or_else(|| BakeError::Slang("Slang could not create a global session".into()))?;
        let version = global.build_tag();
        Ok(Compiler { global, version })
    }

    /// Slang's build tag (its version), part of every options hash.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Compiles `source` with `options` to SPIR-V.
    ///
    /// `key` names the permutation in errors.
    ///
    /// # Errors
    /// [`BakeError::Compile`] carrying Slang's diagnostics verbatim when loading, linking or
    /// code generation fails, or when a requested entry point does not exist.
    pub fn compile(
        &self,
        key: &str,
        source: &Source,
        options: &CompileOptions,
    ) -> Result<CompiledProgram, BakeError> {
        self.compile_with_imports(key, source, &[], options)
    }

    /// Compiles `source` with `imports` available to its `import` declarations from memory:
    /// each import is loaded first under its file stem as module name (`common.slang` answers
    /// `import common;`), so no file system is needed. Imports not given are still looked up
    /// through the search paths.
    ///
    /// # Errors
    /// As [`Compiler::compile`]; a failing import names its own file in Slang's diagnostics.
    pub fn compile_with_imports(
        &self,
        key: &str,
        source: &Source,
        imports: &[Source],
        options: &CompileOptions,
    ) -> Result<CompiledProgram, BakeError> {
        let session = self
            .session(source, options)
            .map_err(|f| BakeError::compile(key, "session", f))?;
        let path = source
            .slang_path
            .clone()
            .unwrap_or_else(|| source.path.to_string_lossy().into_owned());
        let mut run = Compilation {
            key,
            path: &path,
            options,
            session: &session,
            warnings: String::new(),
        };
        let (module, modules) = run.load(source, imports)?;
        // `FILE:NAME:STAGE` requests for other files do not apply (a bake's plan has already
        // chosen this file's; a caller of the compiler directly may pass them all).
        let requests = crate::options::entry_points_for(
            &options.entry_points,
            &source.path,
            source.slang_path.as_deref().unwrap_or_default(),
        );
        let requested: Vec<Request<'_>> = requests
            .iter()
            .map(|spec| match spec.split_once(':') {
                Some((name, stage)) => (name, Some(stage)),
                None => (spec.as_str(), None),
            })
            .collect();
        let chosen = run.entry_points(&module, &requested)?;
        let parts = run.specialize(modules, &chosen)?;
        let linked = run.link(&parts)?;
        let entry_points = run.code(&linked, &chosen, &requested)?;
        let warnings = run.warnings;

        // Slang reports the main module under the path it was told; map it back to the file.
        let dependencies = module
            .dependency_files()
            .into_iter()
            .map(|dep| {
                if dep == path {
                    source.path.clone()
                } else {
                    PathBuf::from(dep)
                }
            })
            .collect();
        Ok(CompiledProgram {
            entry_points,
            dependencies,
            // Each diagnostic once, however many of the calls above reported it.
            warnings: crate::diagnostics::dedupe(&warnings),
            slang_version: self.version.clone(),
            targets: options.targets.clone(),
            type_arguments: options.type_arguments.clone(),
            conformances: options.conformances.clone(),
            linked,
            module,
            _session: session,
        })
    }

    fn session(&self, source: &Source, options: &CompileOptions) -> Result<Session, SlangFailure> {
        let mut search_dirs: Vec<PathBuf> = Vec::new();
        if let Some(dir) = source.path.parent() {
            search_dirs.push(if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir.to_path_buf()
            });
        }
        search_dirs.extend(options.include_dirs.iter().cloned());
        let targets = options
            .targets
            .iter()
            .map(|&target| {
                target_code::code_target(target).ok_or_else(|| SlangFailure {
                    code: 0,
                    diagnostics: format!(
                        "error: slangpack cannot compile for target `{}`{}",
                        target.name(),
                        if target == Target::Dxil {
                            " (DXIL needs Microsoft's dxc, which no reachable registry ships; \
                             bake it elsewhere and add it with PackageBuilder::add_target_code)"
                        } else {
                            ""
                        }
                    ),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.global.session(&SessionOptions {
            search_dirs: &search_dirs,
            profile: &options.profile,
            optimization: options.optimization,
            debug_level: options.debug_level,
            floating_point_mode: options.floating_point_mode,
            matrix_layout: options.matrix_layout,
            keep_entry_point_names: options.keep_entry_point_names,
            warnings: &options.warnings,
            buffer_layout: options.buffer_layout,
            binding_shifts: &options.binding_shifts,
            globals_binding: options.globals_binding,
            defines: &options.defines,
            capabilities: &options.capabilities,
            targets: &targets,
        })
    }
}

/// A stage as requests spell it: the format's stage names, any case, `_` ignored, with
/// `pixel` for `fragment` and `task` for `amplification`.
fn normalized_stage(requested: &str) -> String {
    match requested.to_ascii_lowercase().as_str() {
        "pixel" => "fragment".to_string(),
        "task" => "amplification".to_string(),
        other => other.replace('_', ""),
    }
}

/// The stage a requested stage name names, as Slang's raw stage value (the format's).
fn slang_stage(requested: &str) -> Option<u32> {
    use slangpack_format::Stage;
    match Stage::from_name(&normalized_stage(requested))? {
        Stage::None | Stage::Unknown(_) => None,
        stage => Some(stage.to_raw()),
    }
}

/// Checks a requested stage (`pixel` is accepted for `fragment`) against the declared one.
fn check_stage(entry_point: &str, requested: &str, declared: u32) -> Result<(), BakeError> {
    let normalized = normalized_stage(requested);
    let declared_name = slangpack_format::Stage::from_raw(declared).name();
    if normalized == declared_name {
        Ok(())
    } else {
        Err(BakeError::StageMismatch {
            entry_point: entry_point.to_string(),
            requested: requested.to_string(),
            declared: declared_name.to_string(),
        })
    }
}

/// The conformance id the program is composed with for `ty : interface`: its position among
/// the conformances to the same interface, in the order they were given (`--conformance A:I
/// --conformance B:I` gives `A` 0 and `B` 1). Dynamic dispatch code compares an existential's
/// witness-table id against these ids, so the writer passes them to Slang explicitly rather
/// than letting it number the conformances itself (which its reflection does not report).
pub fn conformance_id(conformances: &[(String, String)], ty: &str, interface: &str) -> i64 {
    conformances
        .iter()
        .filter(|(_, i)| i == interface)
        .position(|(t, _)| t == ty)
        .map_or(-1, |at| at as i64)
}

//! The Slang front end: one compilation of one program (a module, the modules it imports and
//! its entry points) to SPIR-V, with Slang's diagnostics kept verbatim.

use crate::error::BakeError;
use crate::spirv;
use shader_slang as slang;
use slangpack_format::Target;
use slangpack_slang::com::{Component, IntOption, Module, Session, SlangFailure};
use std::ffi::CString;
use std::path::{Path, PathBuf};

mod defects;

/// How Slang lays out matrices in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MatrixLayout {
    /// Column-major storage (GLSL's default).
    ColumnMajor,
    /// Row-major storage (HLSL's default).
    RowMajor,
}

/// Slang's optimisation level for the generated SPIR-V.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Optimization {
    /// No optimisation.
    None,
    /// Slang's default.
    Default,
    /// Aggressive optimisation.
    High,
    /// Everything Slang has.
    Maximal,
}

/// How Slang lays out the members of uniform buffers, storage buffers and push constants for
/// SPIR-V (the bind view states, and checks against the code, the layout chosen).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum BufferLayout {
    /// std140 for uniform buffers, std430 for storage buffers and push constants.
    #[default]
    Default,
    /// The scalar layout (`VK_EXT_scalar_block_layout`; `slangc -fvk-use-scalar-layout`).
    Scalar,
    /// Direct3D's packing rules (`slangc -fvk-use-dx-layout`).
    Dx,
}

/// How much debug information Slang emits (`slangc -g0`..`-g3`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum DebugLevel {
    /// None.
    #[default]
    None,
    /// As little as still lets a debugger walk the stack.
    Minimal,
    /// Slang's standard level (`-g`): source and lines, `NonSemantic.Shader.DebugInfo.100`.
    Standard,
    /// Everything Slang has.
    Maximal,
}

/// Slang's floating-point mode (`slangc -fp-mode`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum FloatingPointMode {
    /// Slang's default.
    #[default]
    Default,
    /// No transformations that change results.
    Precise,
    /// Transformations that may change results.
    Fast,
}

/// An HLSL register class, as binding shifts name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum RegisterClass {
    /// `b`: constant buffers.
    ConstantBuffer,
    /// `t`: shader resources (textures, read-only buffers).
    ShaderResource,
    /// `s`: samplers.
    Sampler,
    /// `u`: unordered access (read-write resources).
    UnorderedAccess,
}

/// Vulkan bindings inferred from HLSL registers: a resource of register class `class` in
/// register space `set` gets binding `register + shift` in set `set` (`slangc -fvk-<class>-shift
/// SHIFT SET`). Slang then places the class's resources without a register after the shift too,
/// and the bind view states where each went, checked against the SPIR-V.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct BindingShift {
    /// The register class shifted.
    pub class: RegisterClass,
    /// Added to the register number.
    pub shift: u32,
    /// The register space, which is also the Vulkan set.
    pub set: u32,
}

/// Where the implicit uniform buffer of global uniforms goes (`slangc -fvk-bind-globals`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct GlobalsBinding {
    /// Its binding.
    pub binding: u32,
    /// Its set.
    pub set: u32,
}

/// One warning control, applied in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum WarningControl {
    /// Enable the warning (name or number).
    Enable(String),
    /// Disable the warning.
    Disable(String),
    /// Treat warnings as errors: `all`, or a comma-separated list of names or numbers.
    AsErrors(String),
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

use slangpack_pack::assemble::{CompiledEntryPoint, TargetOutput};

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
    pub fn layout(&self) -> Result<&slang::reflection::Shader, BakeError> {
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
    pub fn target_layout(&self, target: Target) -> Result<&slang::reflection::Shader, BakeError> {
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
    pub(crate) fn module_decl(&self) -> Option<&slang::reflection::Decl> {
        self.module.reflection()
    }

    /// Whether entry point `index` uses the binding (`category`, `space`, `binding`), from
    /// the compiled code's metadata; `None` when Slang cannot say.
    pub fn entry_point_uses(
        &self,
        index: usize,
        category: slang::ParameterCategory,
        space: u64,
        binding: u64,
    ) -> Option<bool> {
        self.linked
            .entry_point_uses(index as i64, 0, category, space, binding)
    }
}

/// A Slang global session, reused for every compilation a worker makes.
pub struct Compiler {
    global: slang::GlobalSession,
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
        let global = slangpack_slang::com::global_session()
            .ok_or_else(|| BakeError::Slang("Slang could not create a global session".into()))?;
        let version = global.build_tag_string().to_string();
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
        let fail = |phase: &'static str| move |f: SlangFailure| BakeError::compile(key, phase, f);
        let mut warnings = String::new();

        let session = self.session(source, options).map_err(fail("session"))?;
        for import in imports {
            let path = import
                .slang_path
                .clone()
                .unwrap_or_else(|| import.path.to_string_lossy().into_owned());
            let (_, w) = session
                .load_module_from_source(&import.module_name(), &path, &import.text)
                .map_err(fail("load"))?;
            warnings.push_str(&w);
        }
        let path = match &source.slang_path {
            Some(p) => std::borrow::Cow::Borrowed(p.as_str()),
            None => source.path.to_string_lossy(),
        };
        let (module, w) = session
            .load_module_from_source(&source.module_name(), &path, &source.text)
            .map_err(fail("load"))?;
        warnings.push_str(&w);

        let mut modules = vec![module.component()];
        for name in &options.modules {
            let (extra, w) = session.load_module(name).map_err(fail("load"))?;
            warnings.push_str(&w);
            modules.push(extra.component());
        }

        // `FILE:NAME:STAGE` requests for other files do not apply (a bake's plan has already
        // chosen this file's; a caller of the compiler directly may pass them all).
        let entry_points = crate::options::entry_points_for(
            &options.entry_points,
            &source.path,
            source.slang_path.as_deref().unwrap_or_default(),
        );
        let requested: Vec<(&str, Option<&str>)> = entry_points
            .iter()
            .map(|spec| match spec.split_once(':') {
                Some((name, stage)) => (name, Some(stage)),
                None => (spec.as_str(), None),
            })
            .collect();
        let mut chosen = Vec::new();
        for ep in module.defined_entry_points() {
            let Some(function) = ep.entry_point_function() else {
                continue;
            };
            let name = function.name().to_string();
            if requested.is_empty() || requested.iter().any(|(want, _)| *want == name) {
                chosen.push((name, ep));
            }
        }
        // A requested function without `[shader(...)]` becomes an entry point of the stage the
        // request gives (`slangc -entry NAME -stage STAGE`), in request order after the
        // declared ones.
        for (want, stage) in &requested {
            if chosen.iter().any(|(name, _)| name == want) {
                continue;
            }
            let Some(stage) = stage else {
                return Err(BakeError::compile(
                    key,
                    "entry point",
                    SlangFailure {
                        code: 0,
                        diagnostics: format!(
                            "{path}: error: no entry point named `{want}` (give its stage as \
                             `{want}:STAGE`, or declare it with a [shader(\"stage\")] \
                             attribute)"
                        ),
                    },
                ));
            };
            let slang_stage = slang_stage(stage).ok_or_else(|| {
                BakeError::compile(
                    key,
                    "entry point",
                    SlangFailure {
                        code: 0,
                        diagnostics: format!(
                            "{path}: error: `{want}:{stage}`: no stage named `{stage}` (vertex, \
                             hull, domain, geometry, fragment, compute, raygeneration, \
                             intersection, anyhit, closesthit, miss, callable, mesh, \
                             amplification)"
                        ),
                    },
                )
            })?;
            let (ep, w) = module
                .find_and_check_entry_point(want, slang_stage)
                .map_err(fail("entry point"))?;
            warnings.push_str(&w);
            chosen.push((want.to_string(), ep));
        }

        let mut parts: Vec<Component> = modules.clone();
        parts.extend(chosen.iter().map(|(_, ep)| ep.clone()));
        if !options.conformances.is_empty() || !options.type_arguments.is_empty() {
            // Type names resolve against the program as composed so far.
            let refs: Vec<&Component> = parts.iter().collect();
            let (unspecialized, w) = session.composite(&refs).map_err(fail("compose"))?;
            warnings.push_str(&w);
            let layout = unspecialized.layout(0).map_err(fail("layout"))?;
            let find = |name: &str, what: &str| {
                layout.find_type_by_name(name).ok_or_else(|| {
                    BakeError::compile(
                        key,
                        "specialize",
                        SlangFailure {
                            code: 0,
                            diagnostics: format!("{path}: error: {what}: no type named `{name}`"),
                        },
                    )
                })
            };
            let mut conformances = Vec::new();
            for (ty, interface) in &options.conformances {
                let what = format!("type conformance {ty}:{interface}");
                let id = conformance_id(&options.conformances, ty, interface);
                let (conformance, w) = session
                    .type_conformance(find(ty, &what)?, find(interface, &what)?, id)
                    .map_err(fail("conformance"))?;
                warnings.push_str(&w);
                conformances.push(conformance);
            }
            if !options.type_arguments.is_empty() {
                let open = unspecialized.specialization_param_count();
                if open != options.type_arguments.len() as i64 {
                    return Err(BakeError::compile(
                        key,
                        "specialize",
                        SlangFailure {
                            code: 0,
                            diagnostics: format!(
                                "{path}: error: the program has {open} generic parameters but {} \
                                 type arguments were given",
                                options.type_arguments.len()
                            ),
                        },
                    ));
                }
                let types = options
                    .type_arguments
                    .iter()
                    .map(|name| find(name, "type argument"))
                    .collect::<Result<Vec<_>, _>>()?;
                let (specialized, w) = unspecialized
                    .specialize(&types)
                    .map_err(fail("specialize"))?;
                warnings.push_str(&w);
                parts = vec![specialized];
            }
            parts.extend(conformances);
        }
        let refs: Vec<&Component> = parts.iter().collect();
        let (composite, w) = session.composite(&refs).map_err(fail("compose"))?;
        warnings.push_str(&w);
        let (linked, w) = composite.link().map_err(fail("link"))?;
        warnings.push_str(&w);

        let layout = linked.layout(0).map_err(fail("layout"))?;
        // Said before code generation too, where a compile worker's stderr keeps it: a
        // crash of Slang's leaves nothing else.
        let defect = defects::global_dispatch(layout, options);
        if let (Some(note), true) = (&defect, crate::worker::serving()) {
            eprintln!("{key}: {note}");
        }
        let mut entry_points = Vec::with_capacity(chosen.len());
        for (index, (name, _)) in chosen.iter().enumerate() {
            let (bytes, w) = linked
                .entry_point_code(index as i64, 0)
                .map_err(|f| fail("codegen")(defects::noted(f, defect.as_deref())))?;
            warnings.push_str(&w);
            let words = spirv::words(&bytes).map_err(|msg| {
                BakeError::compile(
                    key,
                    "codegen",
                    SlangFailure {
                        code: 0,
                        diagnostics: format!("entry point `{name}`: {msg}"),
                    },
                )
            })?;
            let spirv_entry_name = spirv::entry_point_name(&words).unwrap_or_else(|| name.clone());
            let reflected = layout.entry_point_by_index(index as u32);
            let (stage, thread_group_size, wave_size) = match reflected {
                Some(ep) => {
                    let [x, y, z] = ep.compute_thread_group_size();
                    (
                        ep.stage() as u32,
                        [x as u32, y as u32, z as u32],
                        ep.compute_wave_size() as u32,
                    )
                }
                None => (0, [1, 1, 1], 0),
            };
            if let Some((_, Some(want))) = requested.iter().find(|(n, _)| n == name) {
                check_stage(name, want, stage)?;
            }
            let mut targets = Vec::with_capacity(options.targets.len());
            for (t, &target) in options.targets.iter().enumerate() {
                let (code, w) = linked
                    .entry_point_code(index as i64, t as i64 + 1)
                    .map_err(|f| {
                        BakeError::compile(
                            key,
                            "codegen",
                            SlangFailure {
                                code: f.code,
                                diagnostics: format!(
                                    "target {}: entry point `{name}`: {}",
                                    target.name(),
                                    f.diagnostics
                                ),
                            },
                        )
                    })?;
                warnings.push_str(&w);
                targets.push(TargetOutput {
                    target,
                    entry_name: crate::targets::entry_name(target, name, &code),
                    code,
                });
            }
            entry_points.push(CompiledEntryPoint {
                name: name.clone(),
                stage,
                spirv_entry_name,
                thread_group_size,
                wave_size,
                hash: xxhash_rust::xxh3::xxh3_64(&bytes),
                spirv: words,
                targets,
            });
        }

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
        let search_strings = search_dirs
            .iter()
            .map(|d| {
                CString::new(d.to_string_lossy().into_owned()).map_err(|_| SlangFailure {
                    code: 0,
                    diagnostics: format!("search path contains a NUL byte: {}", d.display()),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let search_ptrs: Vec<*const i8> = search_strings.iter().map(|s| s.as_ptr()).collect();

        let mut session_options = slang::CompilerOptions::default()
            .optimization(match options.optimization {
                Optimization::None => slang::OptimizationLevel::None,
                Optimization::Default => slang::OptimizationLevel::Default,
                Optimization::High => slang::OptimizationLevel::High,
                Optimization::Maximal => slang::OptimizationLevel::Maximal,
            })
            .debug_information(match options.debug_level {
                DebugLevel::None => slang::DebugInfoLevel::None,
                DebugLevel::Minimal => slang::DebugInfoLevel::Minimal,
                DebugLevel::Standard => slang::DebugInfoLevel::Standard,
                DebugLevel::Maximal => slang::DebugInfoLevel::Maximal,
            })
            .floating_point_mode(match options.floating_point_mode {
                FloatingPointMode::Default => slang::FloatingPointMode::Default,
                FloatingPointMode::Precise => slang::FloatingPointMode::Precise,
                FloatingPointMode::Fast => slang::FloatingPointMode::Fast,
            });
        if options.keep_entry_point_names {
            session_options = session_options.vulkan_use_entry_point_name(true);
        }
        for control in &options.warnings {
            session_options = match control {
                WarningControl::Enable(name) => session_options.enable_warning(name),
                WarningControl::Disable(name) => session_options.disable_warning(name),
                WarningControl::AsErrors(names) => session_options.warnings_as_errors(names),
            };
        }
        // The layout and the globals placement are options of the SPIR-V target.
        let mut int_options = Vec::new();
        let int_option = |name, int0: u32, int1: u32| IntOption {
            name,
            int0: int0 as i32,
            int1: int1 as i32,
        };
        if options.buffer_layout == BufferLayout::Dx {
            int_options.push(int_option(slang::CompilerOptionName::ForceDXLayout, 1, 0));
        }
        for shift in &options.binding_shifts {
            // Slang's `HLSLToVulkanLayoutOptions::Kind` in the top byte, the set below it.
            let kind: u32 = match shift.class {
                RegisterClass::UnorderedAccess => 0,
                RegisterClass::Sampler => 1,
                RegisterClass::ShaderResource => 2,
                RegisterClass::ConstantBuffer => 3,
            };
            int_options.push(int_option(
                slang::CompilerOptionName::VulkanBindShift,
                kind << 24 | shift.set,
                shift.shift,
            ));
        }
        if let Some(globals) = options.globals_binding {
            int_options.push(int_option(
                slang::CompilerOptionName::VulkanBindGlobals,
                globals.binding,
                globals.set,
            ));
        }
        match options.matrix_layout {
            Some(MatrixLayout::ColumnMajor) => {
                session_options = session_options.matrix_layout_column(true)
            }
            Some(MatrixLayout::RowMajor) => {
                session_options = session_options.matrix_layout_row(true)
            }
            None => {}
        }
        for (name, value) in &options.defines {
            session_options = session_options.macro_define(name, value);
        }
        let profile = self.global.find_profile(&options.profile);
        if profile.is_unknown() {
            return Err(SlangFailure {
                code: 0,
                diagnostics: format!("error: unknown Slang profile `{}`", options.profile),
            });
        }
        let mut target_options = slang::CompilerOptions::default();
        if options.buffer_layout == BufferLayout::Scalar {
            target_options = target_options.glsl_force_scalar_layout(true);
        }
        for name in &options.capabilities {
            let capability = self.global.find_capability(name);
            if capability.is_unknown() {
                return Err(SlangFailure {
                    code: 0,
                    diagnostics: format!("error: unknown Slang capability `{name}`"),
                });
            }
            target_options = target_options.capability(capability);
        }
        let other_options = slang::CompilerOptions::default();
        let mut targets = vec![slang::TargetDesc::default()
            .format(slang::CompileTarget::Spirv)
            .profile(profile)
            .options(&target_options)];
        for &target in &options.targets {
            let format = crate::targets::compile_target(target).ok_or_else(|| SlangFailure {
                code: 0,
                diagnostics: format!(
                    "error: slangpack cannot compile for target `{}`{}",
                    target.name(),
                    if target == Target::Dxil {
                        " (DXIL needs Microsoft's dxc, which no reachable registry ships; bake \
                         it elsewhere and add it with PackageBuilder::add_target_code)"
                    } else {
                        ""
                    }
                ),
            })?;
            // Capabilities are SPIR-V's (descriptor heaps, extensions): further targets get
            // Slang's defaults.
            targets.push(
                slang::TargetDesc::default()
                    .format(format)
                    .options(&other_options),
            );
        }
        let desc = slang::SessionDesc::default()
            .targets(&targets)
            .search_paths(&search_ptrs)
            .options(&session_options);
        Session::new(&self.global, &desc, &int_options)
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

/// Slang's stage for a requested stage name.
fn slang_stage(requested: &str) -> Option<slang::Stage> {
    use slangpack_format::Stage;
    Some(match Stage::from_name(&normalized_stage(requested))? {
        Stage::Vertex => slang::Stage::Vertex,
        Stage::Hull => slang::Stage::Hull,
        Stage::Domain => slang::Stage::Domain,
        Stage::Geometry => slang::Stage::Geometry,
        Stage::Fragment => slang::Stage::Fragment,
        Stage::Compute => slang::Stage::Compute,
        Stage::RayGeneration => slang::Stage::RayGeneration,
        Stage::Intersection => slang::Stage::Intersection,
        Stage::AnyHit => slang::Stage::AnyHit,
        Stage::ClosestHit => slang::Stage::ClosestHit,
        Stage::Miss => slang::Stage::Miss,
        Stage::Callable => slang::Stage::Callable,
        Stage::Mesh => slang::Stage::Mesh,
        Stage::Amplification => slang::Stage::Amplification,
        Stage::Dispatch => slang::Stage::Dispatch,
        _ => return None,
    })
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

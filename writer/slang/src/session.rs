//! A compilation session described as plain data, and the one place that turns it into
//! Slang's session description: the writer states what it wants (optimisation, layouts,
//! bindings, targets) in these types and never names a `shader-slang` type.
//!
//! ```no_run
//! use slangpack_slang::session::{GlobalSession, SessionOptions};
//!
//! let global = GlobalSession::new().expect("Slang starts");
//! let session = global.session(&SessionOptions::default())?;
//! # Ok::<(), slangpack_slang::com::SlangFailure>(())
//! ```

use crate::com::{IntOption, Session, SlangFailure};
use shader_slang as slang;
use std::ffi::CString;
use std::path::PathBuf;
use std::str::FromStr;

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

// The option words of the values above, as the command line, manifests and the `build.rs`
// API spell them (slangc's where it has one).

impl FromStr for MatrixLayout {
    type Err = String;

    /// `row` or `column`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "row" => Ok(MatrixLayout::RowMajor),
            "column" => Ok(MatrixLayout::ColumnMajor),
            _ => Err(format!("the matrix layout is `row` or `column`, got `{s}`")),
        }
    }
}

impl FromStr for BufferLayout {
    type Err = String;

    /// `default` (std140 for uniform buffers, std430 for storage buffers and push
    /// constants), `scalar` or `dx`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "default" => Ok(BufferLayout::Default),
            "scalar" => Ok(BufferLayout::Scalar),
            "dx" => Ok(BufferLayout::Dx),
            _ => Err(format!(
                "the buffer layout is `default`, `scalar` or `dx`, got `{s}`"
            )),
        }
    }
}

impl FromStr for FloatingPointMode {
    type Err = String;

    /// `default`, `precise` or `fast`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "default" => Ok(FloatingPointMode::Default),
            "precise" => Ok(FloatingPointMode::Precise),
            "fast" => Ok(FloatingPointMode::Fast),
            _ => Err(format!(
                "the floating-point mode is `default`, `precise` or `fast`, got `{s}`"
            )),
        }
    }
}

/// Splits `s` into exactly `N` whitespace-separated words.
fn words<const N: usize>(s: &str, what: &str, form: &str) -> Result<[String; N], String> {
    let words: Vec<String> = s.split_whitespace().map(str::to_string).collect();
    words
        .try_into()
        .map_err(|_| format!("{what} is `{form}`, got `{s}`"))
}

fn number(word: &str, what: &str) -> Result<u32, String> {
    word.parse::<u32>()
        .ok()
        .filter(|&n| n < 1 << 24)
        .ok_or_else(|| format!("{what} is a number below 2^24, got `{word}`"))
}

impl FromStr for BindingShift {
    type Err = String;

    /// `CLASS SHIFT SET`, e.g. `t 10 0`: HLSL registers of class `b`, `t`, `s` or `u` in
    /// register space `SET` get Vulkan binding `register + SHIFT` in set `SET`
    /// (`slangc -fvk-t-shift 10 0`).
    fn from_str(s: &str) -> Result<Self, String> {
        let [class, shift, set] = words::<3>(s, "a binding shift", "CLASS SHIFT SET")?;
        let class = match class.as_str() {
            "b" => RegisterClass::ConstantBuffer,
            "t" => RegisterClass::ShaderResource,
            "s" => RegisterClass::Sampler,
            "u" => RegisterClass::UnorderedAccess,
            other => {
                return Err(format!(
                    "a binding shift's register class is b, t, s or u, got `{other}`"
                ))
            }
        };
        Ok(BindingShift {
            class,
            shift: number(&shift, "a binding shift")?,
            set: number(&set, "a binding shift's set")?,
        })
    }
}

impl FromStr for GlobalsBinding {
    type Err = String;

    /// `BINDING SET`: where the implicit uniform buffer of global uniforms goes
    /// (`slangc -fvk-bind-globals BINDING SET`).
    fn from_str(s: &str) -> Result<Self, String> {
        let [binding, set] = words::<2>(s, "the globals binding", "BINDING SET")?;
        Ok(GlobalsBinding {
            binding: number(&binding, "the globals binding")?,
            set: number(&set, "the globals binding's set")?,
        })
    }
}

/// A code target Slang compiles besides SPIR-V (which is always the session's first target).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodeTarget {
    /// WGSL text.
    Wgsl,
    /// GLSL text.
    Glsl,
    /// HLSL text.
    Hlsl,
    /// Metal Shading Language text.
    Metal,
}

impl CodeTarget {
    fn slang(self) -> slang::CompileTarget {
        match self {
            CodeTarget::Wgsl => slang::CompileTarget::Wgsl,
            CodeTarget::Glsl => slang::CompileTarget::Glsl,
            CodeTarget::Hlsl => slang::CompileTarget::Hlsl,
            CodeTarget::Metal => slang::CompileTarget::Metal,
        }
    }
}

/// Everything a compilation session is made of. Target 0 is SPIR-V with `profile`,
/// `capabilities` and the buffer layout; `targets` follow it in order, with Slang's defaults.
#[derive(Clone, Debug)]
pub struct SessionOptions<'a> {
    /// Directories searched by `import` and `#include`, in order.
    pub search_dirs: &'a [PathBuf],
    /// Slang profile name of the SPIR-V target, e.g. `spirv_1_5`.
    pub profile: &'a str,
    /// Optimisation level.
    pub optimization: Optimization,
    /// Debug information emitted into the code.
    pub debug_level: DebugLevel,
    /// Slang's floating-point mode.
    pub floating_point_mode: FloatingPointMode,
    /// Matrix layout; `None` keeps Slang's default.
    pub matrix_layout: Option<MatrixLayout>,
    /// Keep each entry point's Slang name as its SPIR-V entry name.
    pub keep_entry_point_names: bool,
    /// Warning controls, in order.
    pub warnings: &'a [WarningControl],
    /// The member layout of buffers and push constants in the SPIR-V.
    pub buffer_layout: BufferLayout,
    /// Vulkan bindings inferred from HLSL registers.
    pub binding_shifts: &'a [BindingShift],
    /// Where the global uniform buffer goes; `None` keeps Slang's choice.
    pub globals_binding: Option<GlobalsBinding>,
    /// Preprocessor defines, `(name, value)`.
    pub defines: &'a [(String, String)],
    /// Slang capabilities enabled for the SPIR-V target, by Slang's names.
    pub capabilities: &'a [String],
    /// Targets after SPIR-V, in session order (session target `i + 1`).
    pub targets: &'a [CodeTarget],
}

impl Default for SessionOptions<'_> {
    fn default() -> Self {
        SessionOptions {
            search_dirs: &[],
            profile: "spirv_1_5",
            optimization: Optimization::Default,
            debug_level: DebugLevel::None,
            floating_point_mode: FloatingPointMode::Default,
            matrix_layout: None,
            keep_entry_point_names: false,
            warnings: &[],
            buffer_layout: BufferLayout::Default,
            binding_shifts: &[],
            globals_binding: None,
            defines: &[],
            capabilities: &[],
            targets: &[],
        }
    }
}

/// A Slang global session (the compiler, its core module loaded), reused for every session a
/// compile worker makes.
pub struct GlobalSession(slang::GlobalSession);

impl std::fmt::Debug for GlobalSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlobalSession").finish_non_exhaustive()
    }
}

impl GlobalSession {
    /// Starts Slang with its GLSL module enabled ([`crate::com::global_session`]); `None`
    /// when Slang cannot create a global session.
    pub fn new() -> Option<GlobalSession> {
        crate::com::global_session().map(GlobalSession)
    }

    /// Slang's build tag (its version).
    pub fn build_tag(&self) -> String {
        self.0.build_tag_string().to_string()
    }

    /// A compilation session made of `options`.
    ///
    /// # Errors
    /// A [`SlangFailure`] with code 0 naming the problem when a search path holds a NUL byte,
    /// the profile or a capability is unknown to Slang, or Slang cannot create the session.
    pub fn session(&self, options: &SessionOptions<'_>) -> Result<Session, SlangFailure> {
        let search_strings = options
            .search_dirs
            .iter()
            .map(|d| {
                CString::new(d.to_string_lossy().into_owned()).map_err(|_| SlangFailure {
                    code: 0,
                    diagnostics: format!("search path contains a NUL byte: {}", d.display()),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let search_ptrs: Vec<*const i8> = search_strings.iter().map(|s| s.as_ptr()).collect();
        let session_options = session_options(options);
        let profile = self.0.find_profile(options.profile);
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
        for name in options.capabilities {
            let capability = self.0.find_capability(name);
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
        // Capabilities are SPIR-V's (descriptor heaps, extensions): further targets get
        // Slang's defaults.
        targets.extend(options.targets.iter().map(|target| {
            slang::TargetDesc::default()
                .format(target.slang())
                .options(&other_options)
        }));
        let desc = slang::SessionDesc::default()
            .targets(&targets)
            .search_paths(&search_ptrs)
            .options(&session_options);
        Session::new(&self.0, &desc, &spirv_int_options(options))
    }
}

/// The session-wide options: optimisation, debug information, floating point, entry-point
/// names, warnings, matrix layout, defines.
fn session_options(options: &SessionOptions<'_>) -> slang::CompilerOptions {
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
    for control in options.warnings {
        session_options = match control {
            WarningControl::Enable(name) => session_options.enable_warning(name),
            WarningControl::Disable(name) => session_options.disable_warning(name),
            WarningControl::AsErrors(names) => session_options.warnings_as_errors(names),
        };
    }
    match options.matrix_layout {
        Some(MatrixLayout::ColumnMajor) => {
            session_options = session_options.matrix_layout_column(true)
        }
        Some(MatrixLayout::RowMajor) => session_options = session_options.matrix_layout_row(true),
        None => {}
    }
    for (name, value) in options.defines {
        session_options = session_options.macro_define(name, value);
    }
    session_options
}

/// The options of the SPIR-V target that `shader-slang`'s builder has no method for: the DX
/// buffer layout, binding shifts and the globals' binding.
fn spirv_int_options(options: &SessionOptions<'_>) -> Vec<IntOption> {
    let mut int_options = Vec::new();
    let int_option = |name, int0: u32, int1: u32| IntOption {
        name,
        int0: int0 as i32,
        int1: int1 as i32,
    };
    if options.buffer_layout == BufferLayout::Dx {
        int_options.push(int_option(slang::CompilerOptionName::ForceDXLayout, 1, 0));
    }
    for shift in options.binding_shifts {
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
    int_options
}

/// Slang's stage for a stage as Slang numbers it (`SlangStage`, which the format's stage
/// values are); `None` for `SLANG_STAGE_NONE` and values past the last stage.
pub(crate) fn stage_from_raw(raw: u32) -> Option<slang::Stage> {
    use slang::Stage as S;
    Some(match raw {
        1 => S::Vertex,
        2 => S::Hull,
        3 => S::Domain,
        4 => S::Geometry,
        5 => S::Fragment,
        6 => S::Compute,
        7 => S::RayGeneration,
        8 => S::Intersection,
        9 => S::AnyHit,
        10 => S::ClosestHit,
        11 => S::Miss,
        12 => S::Callable,
        13 => S::Mesh,
        14 => S::Amplification,
        15 => S::Dispatch,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::stage_from_raw;

    #[test]
    fn every_slang_stage_value_maps_to_the_stage_of_that_value() {
        for raw in 1..=15 {
            assert_eq!(stage_from_raw(raw).map(|s| s as u32), Some(raw));
        }
        assert!(stage_from_raw(0).is_none(), "SLANG_STAGE_NONE is no stage");
        assert!(stage_from_raw(16).is_none());
        assert!(stage_from_raw(u32::MAX).is_none());
    }
}

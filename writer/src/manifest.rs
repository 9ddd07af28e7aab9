//! Bake manifests (TOML) and permutation axes declared in sources.
//!
//! A manifest lists programs with their options; paths in it are relative to the manifest's
//! directory:
//!
//! ```toml
//! [package]                     # how the package is stored (optional)
//! compress_spirv = false        # SPIR-V stored raw (default true: zstd, shared dictionary)
//!
//! [cache]                       # the team cache (optional; the command line's --cache wins)
//! locations = ["cache", "grpcs://cache.studio:443"]   # a directory and/or a server
//! instance = "shaders"          # REAPI instance name (grpc only)
//! headers = { Authorization = "@/home/ci/.cache-token" }   # VALUE, @FILE or env:VAR
//! ca = "certs/ca.pem"           # also client_cert, client_key (mutual TLS)
//! read_only = true              # verify = 0.05 (share of hits recompiled), timeout = 30
//!
//! [remote]                      # a build farm (optional; the command line's --remote-executor wins)
//! executor = "grpcs://farm.studio:443"   # instance, headers, ca, client_cert, client_key and
//! fallback = true               # timeout as in [cache]; fallback: compile here when it refuses
//! batch = 32                    # permutations per action (default: spread over -j actions)
//! platform = { container-image = "docker://bake:1" }  # the workers hold the toolchain
//!
//! [options]                     # shared by every program (all keys optional)
//! profile = "spirv_1_5"
//! optimization = 1              # 0..3
//! matrix_layout = "column"      # or "row"
//! include = ["include"]
//! defines = { QUALITY = "2" }
//! debug_info = false           # or debug_level = 0..3 (slangc -g0..-g3)
//! buffer_layout = "scalar"      # "default" (std140/std430), "scalar" or "dx"
//! keep_entry_point_names = true # SPIR-V entry names are Slang's, not `main`
//! vk_shift = ["t 10 0", "u 20 0"]   # CLASS SHIFT SET: HLSL registers to Vulkan bindings
//! bind_globals = "0 2"          # BINDING SET of the global uniform buffer
//! warnings = ["no-30081", "error"]  # NAME, no-NAME, error, error=NAME,NAME
//! fp_mode = "precise"           # "default", "precise" or "fast"
//! capabilities = ["spvDescriptorHeapEXT"]   # Slang capabilities, added to every program's
//! targets = ["spirv", "wgsl", "glsl", "hlsl", "metal"]   # default: ["spirv"]
//!
//! [[program]]
//! source = "pbr.slang"
//! entry_points = ["vertexMain:vertex", "fragmentMain:fragment"]   # default: all
//! modules = ["lighting"]        # composed after the main module, in order
//! defines = { USE_IBL = "1" }
//! conformances = ["PbrMaterial:IMaterial"]
//! type_arguments = ["Gaussian"]   # for generic entry points / global type parameters
//! capabilities = []             # added to the shared ones
//! axes = { SHADOWS = ["0", "1"], MSAA = ["1", "4"] }   # one entry per combination
//! options = { buffer_layout = "dx" }   # any [options] key, for this program only
//! ```
//!
//! Option values are read by [`crate::options`], the parser the command line uses too.
//!
//! A `.slang` file can declare its own axes with lines of the form
//! `//! slangpack-axis NAME VALUE VALUE...`; each combination of values becomes an entry.

use crate::compile::{CompileOptions, DebugLevel};
use crate::error::BakeError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A parsed manifest.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// How the package is stored.
    #[serde(default)]
    pub package: ManifestPackage,
    /// Options shared by every program.
    #[serde(default)]
    pub options: ManifestOptions,
    /// The programs.
    #[serde(default, rename = "program")]
    pub programs: Vec<ManifestProgram>,
    /// The team cache.
    pub cache: Option<ManifestCache>,
    /// The build farm.
    pub remote: Option<ManifestRemote>,
}

/// The `[remote]` table: what `--remote-executor` and its options say (docs/cli.md, "Bake on
/// a build farm"); paths are relative to the manifest's directory.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestRemote {
    /// The farm: `grpc://HOST:PORT` or `grpcs://HOST:PORT`.
    pub executor: String,
    /// The REAPI instance name.
    pub instance: Option<String>,
    /// Headers: `VALUE`, `@FILE` or `env:VAR` each.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// PEM authorities of the farm's certificate.
    pub ca: Option<PathBuf>,
    /// A PEM client certificate (mutual TLS).
    pub client_cert: Option<PathBuf>,
    /// Its PEM private key.
    pub client_key: Option<PathBuf>,
    /// The longest one request may take, in seconds.
    pub timeout: Option<u64>,
    /// Compile locally, with one warning, when the farm cannot be reached or refuses (on
    /// unless `false`).
    pub fallback: Option<bool>,
    /// How many permutations one action compiles (`--remote-batch`; chosen from the bake's
    /// size when absent).
    pub batch: Option<usize>,
    /// Platform properties naming the toolchain on the farm's workers
    /// (`--remote-platform`): `platform = { container-image = "docker://..." }`.
    #[serde(default)]
    pub platform: BTreeMap<String, String>,
}

impl ManifestRemote {
    /// The farm this table names, for a manifest at `path`.
    ///
    /// # Errors
    /// [`BakeError::Input`] naming the manifest for an executor that is not a `grpc://` or
    /// `grpcs://` URL, or a header that does not resolve.
    pub fn settings(&self, path: &Path) -> Result<crate::config::RemoteSettings, BakeError> {
        if !(self.executor.starts_with("grpc://") || self.executor.starts_with("grpcs://")) {
            return Err(BakeError::Input(format!(
                "{}: [remote]: executor = {:?}: expected grpc(s)://HOST:PORT",
                path.display(),
                self.executor
            )));
        }
        // The connection options are the cache table's, without its locations.
        let connection = ManifestCache {
            instance: self.instance.clone(),
            headers: self.headers.clone(),
            ca: self.ca.clone(),
            client_cert: self.client_cert.clone(),
            client_key: self.client_key.clone(),
            timeout: self.timeout,
            ..ManifestCache::default()
        };
        let options = connection
            .settings(path)
            .map_err(|e| match e {
                BakeError::Input(m) => BakeError::Input(m.replacen("[cache]", "[remote]", 1)),
                other => other,
            })?
            .options;
        Ok(crate::config::RemoteSettings {
            url: self.executor.clone(),
            options,
            fallback: self.fallback.unwrap_or(true),
            batch: self.batch,
            platform: self.platform.clone().into_iter().collect(),
        })
    }
}

/// The `[cache]` table: what `--cache` and its options say (docs/cli.md, "The team cache");
/// paths are relative to the manifest's directory.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestCache {
    /// A directory and/or a server URL.
    #[serde(default)]
    pub locations: Vec<String>,
    /// The REAPI instance name.
    pub instance: Option<String>,
    /// Headers: `VALUE`, `@FILE` or `env:VAR` each ([`crate::config::resolve_header`]).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// PEM authorities of the server's certificate.
    pub ca: Option<PathBuf>,
    /// A PEM client certificate (mutual TLS).
    pub client_cert: Option<PathBuf>,
    /// Its PEM private key.
    pub client_key: Option<PathBuf>,
    /// Never write to the cache.
    pub read_only: Option<bool>,
    /// The share of hits compiled anyway and compared.
    pub verify: Option<f64>,
    /// The longest one request may take, in seconds.
    pub timeout: Option<u64>,
}

impl ManifestCache {
    /// The settings this table gives, for a manifest at `path`.
    ///
    /// # Errors
    /// [`BakeError::Input`] naming the manifest for two directories or two servers, a share
    /// outside 0..1, or a header that does not resolve.
    pub fn settings(&self, path: &Path) -> Result<crate::config::CacheSettings, BakeError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let bad = |e: String| BakeError::Input(format!("{}: [cache]: {e}", path.display()));
        let mut settings = crate::config::CacheSettings::default();
        for location in &self.locations {
            if location.contains("://") {
                settings.add_location(location).map_err(bad)?;
            } else {
                settings
                    .add_location(&dir.join(location).to_string_lossy())
                    .map_err(bad)?;
            }
        }
        let verify = self.verify.unwrap_or(0.0);
        if !(0.0..=1.0).contains(&verify) {
            return Err(bad(format!("verify = {verify}: a share from 0 to 1")));
        }
        let options = &mut settings.options;
        options.instance = self.instance.clone().unwrap_or_default();
        for (name, value) in &self.headers {
            let value = match value.strip_prefix('@') {
                Some(file) => format!("@{}", dir.join(file).display()),
                None => value.clone(),
            };
            options
                .headers
                .push(crate::config::resolve_header(name, &value).map_err(bad)?);
        }
        options.ca = self.ca.as_ref().map(|p| dir.join(p));
        options.client_cert = self.client_cert.as_ref().map(|p| dir.join(p));
        options.client_key = self.client_key.as_ref().map(|p| dir.join(p));
        options.read_only = self.read_only.unwrap_or(false);
        options.verify = verify;
        options.timeout = self
            .timeout
            .map(|s| std::time::Duration::from_secs(s.max(1)));
        Ok(settings)
    }
}

/// The `[package]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestPackage {
    /// Store SPIR-V zstd-compressed (see `BakeConfig::compress_spirv`; the default), or raw
    /// with `false`.
    pub compress_spirv: Option<bool>,
}

/// The `[options]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestOptions {
    /// Slang profile.
    pub profile: Option<String>,
    /// Optimisation level 0..3.
    pub optimization: Option<u8>,
    /// `row` or `column`.
    pub matrix_layout: Option<String>,
    /// Search paths.
    #[serde(default)]
    pub include: Vec<PathBuf>,
    /// Defines for every program.
    #[serde(default)]
    pub defines: BTreeMap<String, String>,
    /// Emit debug information at Slang's standard level (`false`: none).
    pub debug_info: Option<bool>,
    /// Debug-information level 0..3 (wins over `debug_info`).
    pub debug_level: Option<u8>,
    /// `default`, `scalar` or `dx`.
    pub buffer_layout: Option<String>,
    /// Keep Slang's entry-point names in the SPIR-V.
    pub keep_entry_point_names: Option<bool>,
    /// Binding shifts, `CLASS SHIFT SET` each (added to those given before).
    #[serde(default)]
    pub vk_shift: Vec<String>,
    /// `BINDING SET` of the global uniform buffer.
    pub bind_globals: Option<String>,
    /// Warning controls (added after those given before).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// `default`, `precise` or `fast`.
    pub fp_mode: Option<String>,
    /// Slang capabilities for every program.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Targets to bake (`spirv`, `wgsl`, `glsl`, `hlsl`, `metal`); SPIR-V always is.
    pub targets: Option<Vec<String>>,
}

/// One `[[program]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestProgram {
    /// The main module's file.
    pub source: PathBuf,
    /// Entry points as `name` or `name:stage`; empty means all.
    #[serde(default)]
    pub entry_points: Vec<String>,
    /// Modules composed after the main one.
    #[serde(default)]
    pub modules: Vec<String>,
    /// Defines of this program.
    #[serde(default)]
    pub defines: BTreeMap<String, String>,
    /// `TYPE:INTERFACE` conformances.
    #[serde(default)]
    pub conformances: Vec<String>,
    /// Type arguments for the program's generic parameters, in order.
    #[serde(default)]
    pub type_arguments: Vec<String>,
    /// Slang capabilities of this program (after the shared ones).
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Permutation axes: define name to its values.
    #[serde(default)]
    pub axes: BTreeMap<String, Vec<String>>,
    /// Options of this program only, on top of the shared ones (any `[options]` key).
    #[serde(default)]
    pub options: Option<ManifestOptions>,
}

/// Applies an options table to `options`: scalars override, lists and defines add, include
/// directories are taken relative to `dir`.
fn apply(
    options: &mut CompileOptions,
    o: &ManifestOptions,
    dir: &Path,
    path: &Path,
) -> Result<(), BakeError> {
    let bad = |e: String| BakeError::Input(format!("{}: {e}", path.display()));
    if let Some(profile) = &o.profile {
        options.profile = profile.clone();
    }
    if let Some(level) = o.optimization {
        options.optimization = crate::options::optimization(level).map_err(bad)?;
    }
    if let Some(layout) = &o.matrix_layout {
        options.matrix_layout = Some(layout.parse().map_err(bad)?);
    }
    if let Some(debug) = o.debug_info {
        options.debug_level = if debug {
            DebugLevel::Standard
        } else {
            DebugLevel::None
        };
    }
    if let Some(level) = o.debug_level {
        options.debug_level = crate::options::debug_level(level).map_err(bad)?;
    }
    if let Some(layout) = &o.buffer_layout {
        options.buffer_layout = layout.parse().map_err(bad)?;
    }
    if let Some(keep) = o.keep_entry_point_names {
        options.keep_entry_point_names = keep;
    }
    for shift in &o.vk_shift {
        options.binding_shifts.push(shift.parse().map_err(bad)?);
    }
    if let Some(globals) = &o.bind_globals {
        options.globals_binding = Some(globals.parse().map_err(bad)?);
    }
    for control in &o.warnings {
        options
            .warnings
            .push(crate::options::warning(control).map_err(bad)?);
    }
    if let Some(mode) = &o.fp_mode {
        options.floating_point_mode = mode.parse().map_err(bad)?;
    }
    if let Some(targets) = &o.targets {
        options.targets = crate::targets::parse_targets(targets.iter().map(String::as_str))
            .map_err(|e| bad(e.to_string()))?;
    }
    options
        .include_dirs
        .extend(o.include.iter().map(|p| dir.join(p)));
    merge_defines(&mut options.defines, &o.defines);
    options.capabilities.extend(o.capabilities.iter().cloned());
    Ok(())
}

/// One program of a bake before its permutations: a main module, its options and its axes
/// (a manifest's `[[program]]`, or a `.slang` input with the axes it declares).
#[derive(Clone, Debug)]
pub struct Program {
    /// The main module's file.
    pub source: PathBuf,
    /// The program's options, on top of the command line's.
    pub options: CompileOptions,
    /// Permutation axes: define name to its values, sorted by name.
    pub axes: Vec<(String, Vec<String>)>,
    /// Whether the file was found by scanning a directory (see `Job::skip_if_library`).
    pub scanned: bool,
}

impl Manifest {
    /// Reads and parses the manifest at `path`.
    ///
    /// # Errors
    /// [`BakeError::Io`] when unreadable, [`BakeError::Input`] for TOML errors.
    pub fn read(path: &Path) -> Result<Manifest, BakeError> {
        let text = std::fs::read_to_string(path).map_err(|e| BakeError::io(path, e))?;
        toml::from_str(&text).map_err(|e| BakeError::Input(format!("{}: {e}", path.display())))
    }

    /// The programs of this manifest, read from `path`, on top of the command line's `base`
    /// options (manifest options override, defines add).
    ///
    /// # Errors
    /// [`BakeError::Input`] for option errors, or a manifest without programs.
    pub fn programs(&self, path: &Path, base: &CompileOptions) -> Result<Vec<Program>, BakeError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut options = base.clone();
        apply(&mut options, &self.options, dir, path)?;
        let mut programs = Vec::new();
        for program in &self.programs {
            let mut options = options.clone();
            merge_defines(&mut options.defines, &program.defines);
            options.entry_points.clone_from(&program.entry_points);
            options.modules.clone_from(&program.modules);
            options.type_arguments.clone_from(&program.type_arguments);
            options
                .capabilities
                .extend(program.capabilities.iter().cloned());
            for spec in &program.conformances {
                options.conformances.push(
                    crate::options::conformance(spec)
                        .map_err(|e| BakeError::Input(format!("{}: {e}", path.display())))?,
                );
            }
            if let Some(own) = &program.options {
                apply(&mut options, own, dir, path)?;
            }
            programs.push(Program {
                source: dir.join(&program.source),
                options,
                axes: program.axes.clone().into_iter().collect(),
                scanned: false,
            });
        }
        Ok(programs)
    }
}

/// The axes a source declares with `//! slangpack-axis NAME VALUE...` lines.
pub fn source_axes(text: &str) -> Vec<(String, Vec<String>)> {
    let mut axes: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("//! slangpack-axis") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        if let Some(name) = words.next() {
            let values: Vec<String> = words.map(str::to_string).collect();
            if !values.is_empty() {
                axes.retain(|(n, _)| n != name);
                axes.push((name.to_string(), values));
            }
        }
    }
    axes.sort();
    axes
}

/// Adds `extra` to `defines`, replacing values of names already defined; keeps them sorted.
pub(crate) fn merge_defines(defines: &mut Vec<(String, String)>, extra: &BTreeMap<String, String>) {
    for (name, value) in extra {
        defines.retain(|(n, _)| n != name);
        defines.push((name.clone(), value.clone()));
    }
    defines.sort();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_table_names_batch_and_platform() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("m.toml");
        std::fs::write(
            &manifest,
            "[remote]\nexecutor = \"grpc://farm:1\"\nbatch = 32\n\
             platform = { container-image = \"docker://bake:1\", OSFamily = \"Linux\" }\n\n\
             [[program]]\nsource = \"a.slang\"\n",
        )
        .unwrap();
        let remote = Manifest::read(&manifest).unwrap().remote.unwrap();
        let settings = remote.settings(&manifest).unwrap();
        assert_eq!(settings.batch, Some(32));
        assert_eq!(
            settings.platform,
            [
                ("OSFamily".to_string(), "Linux".to_string()),
                ("container-image".to_string(), "docker://bake:1".to_string())
            ]
        );
    }

    #[test]
    fn capabilities_of_the_options_then_of_the_program_reach_every_job() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("m.toml");
        std::fs::write(
            &manifest,
            "[options]\ncapabilities = [\"spvImageQuery\"]\n\n\
             [[program]]\nsource = \"a.slang\"\ncapabilities = [\"spvDerivativeControl\"]\n\n\
             [[program]]\nsource = \"b.slang\"\n",
        )
        .unwrap();
        let base = CompileOptions {
            capabilities: vec!["spvSparseResidency".into()],
            ..CompileOptions::default()
        };
        let programs = Manifest::read(&manifest)
            .unwrap()
            .programs(&manifest, &base)
            .unwrap();
        let capabilities: Vec<Vec<&str>> = programs
            .iter()
            .map(|j| j.options.capabilities.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            capabilities,
            [
                vec![
                    "spvSparseResidency",
                    "spvImageQuery",
                    "spvDerivativeControl"
                ],
                vec!["spvSparseResidency", "spvImageQuery"],
            ]
        );
    }

    #[test]
    fn source_axes_are_parsed_and_sorted() {
        let text = "//! slangpack-axis SHADOWS 0 1\n// ordinary comment\n//! slangpack-axis A x\n";
        assert_eq!(
            source_axes(text),
            vec![
                ("A".to_string(), vec!["x".to_string()]),
                (
                    "SHADOWS".to_string(),
                    vec!["0".to_string(), "1".to_string()]
                )
            ]
        );
    }
}

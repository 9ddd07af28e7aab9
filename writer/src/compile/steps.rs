//! The steps of one compilation, in the order Slang needs them: load the modules, choose the
//! entry points, compose them (with type conformances and type arguments), link, and generate
//! each entry point's code for every target.

use super::{check_stage, conformance_id, defects, slang_stage, CompileOptions, Source};
use crate::error::BakeError;
use crate::spirv;
use slangpack_pack::assemble::{CompiledEntryPoint, TargetOutput};
use slangpack_slang::com::{Component, Module, Session, SlangFailure};
use slangpack_slang::reflection::{Program, Type};

/// An entry point as requested: its name, and the stage the request gives, if it does.
pub(super) type Request<'r> = (&'r str, Option<&'r str>);

/// One compilation under way: what names it in errors, its session, and the warnings Slang
/// has reported so far, in call order.
pub(super) struct Compilation<'c> {
    /// The permutation's key.
    pub(super) key: &'c str,
    /// The path Slang is told for the main module.
    pub(super) path: &'c str,
    pub(super) options: &'c CompileOptions,
    pub(super) session: &'c Session,
    pub(super) warnings: String,
}

impl Compilation<'_> {
    /// Slang's failure in `phase`, as the bake reports it.
    fn fail(&self, phase: &'static str) -> impl Fn(SlangFailure) -> BakeError + '_ {
        move |f| BakeError::compile(self.key, phase, f)
    }

    /// A failure in `phase` that Slang did not report: `message` after the main module's path.
    fn refuse(&self, phase: &'static str, message: String) -> BakeError {
        BakeError::compile(
            self.key,
            phase,
            SlangFailure {
                code: 0,
                diagnostics: format!("{}: error: {message}", self.path),
            },
        )
    }

    /// Loads `imports` from memory, then the main module, then the further modules the
    /// options name. The program's components start with the main module's.
    pub(super) fn load(
        &mut self,
        source: &Source,
        imports: &[Source],
    ) -> Result<(Module, Vec<Component>), BakeError> {
        for import in imports {
            let path = import
                .slang_path
                .clone()
                .unwrap_or_else(|| import.path.to_string_lossy().into_owned());
            let (_, w) = self
                .session
                .load_module_from_source(&import.module_name(), &path, &import.text)
                .map_err(self.fail("load"))?;
            self.warnings.push_str(&w);
        }
        let (module, w) = self
            .session
            .load_module_from_source(&source.module_name(), self.path, &source.text)
            .map_err(self.fail("load"))?;
        self.warnings.push_str(&w);
        let mut modules = vec![module.component()];
        for name in &self.options.modules {
            let (extra, w) = self.session.load_module(name).map_err(self.fail("load"))?;
            self.warnings.push_str(&w);
            modules.push(extra.component());
        }
        Ok((module, modules))
    }

    /// The entry points to compile, by name: the module's `[shader(...)]` ones (all of them,
    /// or those requested), then each requested function without the attribute as an entry
    /// point of the stage the request gives (`slangc -entry NAME -stage STAGE`), in request
    /// order.
    pub(super) fn entry_points(
        &mut self,
        module: &Module,
        requested: &[Request<'_>],
    ) -> Result<Vec<(String, Component)>, BakeError> {
        let mut chosen = Vec::new();
        for ep in module.defined_entry_points() {
            let Some(function) = ep.entry_point_function() else {
                continue;
            };
            let name = function.name().unwrap_or_default();
            if requested.is_empty() || requested.iter().any(|(want, _)| *want == name) {
                chosen.push((name, ep));
            }
        }
        for &(want, stage) in requested {
            if chosen.iter().any(|(name, _)| name == want) {
                continue;
            }
            let Some(stage) = stage else {
                return Err(self.refuse(
                    "entry point",
                    format!(
                        "no entry point named `{want}` (give its stage as `{want}:STAGE`, or \
                         declare it with a [shader(\"stage\")] attribute)"
                    ),
                ));
            };
            let slang_stage = slang_stage(stage).ok_or_else(|| {
                self.refuse(
                    "entry point",
                    format!(
                        "`{want}:{stage}`: no stage named `{stage}` (vertex, hull, domain, \
                         geometry, fragment, compute, raygeneration, intersection, anyhit, \
                         closesthit, miss, callable, mesh, amplification)"
                    ),
                )
            })?;
            let (ep, w) = module
                .find_and_check_entry_point(want, slang_stage)
                .map_err(self.fail("entry point"))?;
            self.warnings.push_str(&w);
            chosen.push((want.to_string(), ep));
        }
        Ok(chosen)
    }

    /// The components the program is composed of: `modules` and the `chosen` entry points
    /// (or, with type arguments, their specialization), then one per type conformance. Type
    /// names resolve against the program as composed so far.
    pub(super) fn specialize(
        &mut self,
        modules: Vec<Component>,
        chosen: &[(String, Component)],
    ) -> Result<Vec<Component>, BakeError> {
        let options = self.options;
        let mut parts = modules;
        parts.extend(chosen.iter().map(|(_, ep)| ep.clone()));
        if options.conformances.is_empty() && options.type_arguments.is_empty() {
            return Ok(parts);
        }
        let refs: Vec<&Component> = parts.iter().collect();
        let (unspecialized, w) = self
            .session
            .composite(&refs)
            .map_err(self.fail("compose"))?;
        self.warnings.push_str(&w);
        let layout = unspecialized.layout(0).map_err(self.fail("layout"))?;
        let mut conformances = Vec::new();
        for (ty, interface) in &options.conformances {
            let what = format!("type conformance {ty}:{interface}");
            let id = conformance_id(&options.conformances, ty, interface);
            let (ty, interface) = (
                self.find(layout, ty, &what)?,
                self.find(layout, interface, &what)?,
            );
            let (conformance, w) = self
                .session
                .type_conformance(ty, interface, id)
                .map_err(self.fail("conformance"))?;
            self.warnings.push_str(&w);
            conformances.push(conformance);
        }
        if !options.type_arguments.is_empty() {
            let open = unspecialized.specialization_param_count();
            if open != options.type_arguments.len() as i64 {
                return Err(self.refuse(
                    "specialize",
                    format!(
                        "the program has {open} generic parameters but {} type arguments were \
                         given",
                        options.type_arguments.len()
                    ),
                ));
            }
            let types = options
                .type_arguments
                .iter()
                .map(|name| self.find(layout, name, "type argument"))
                .collect::<Result<Vec<_>, _>>()?;
            let (specialized, w) = unspecialized
                .specialize(&types)
                .map_err(self.fail("specialize"))?;
            self.warnings.push_str(&w);
            parts = vec![specialized];
        }
        parts.extend(conformances);
        Ok(parts)
    }

    /// The type `name` of the program `layout` describes.
    fn find<'l>(&self, layout: Program<'l>, name: &str, what: &str) -> Result<Type<'l>, BakeError> {
        layout
            .find_type_by_name(name)
            .ok_or_else(|| self.refuse("specialize", format!("{what}: no type named `{name}`")))
    }

    /// Composes `parts` and links them into the program.
    pub(super) fn link(&mut self, parts: &[Component]) -> Result<Component, BakeError> {
        let refs: Vec<&Component> = parts.iter().collect();
        let (composite, w) = self
            .session
            .composite(&refs)
            .map_err(self.fail("compose"))?;
        self.warnings.push_str(&w);
        let (linked, w) = composite.link().map_err(self.fail("link"))?;
        self.warnings.push_str(&w);
        Ok(linked)
    }

    /// Each chosen entry point's SPIR-V and further targets' code, with what the program's
    /// layout says of it (stage, thread-group size, wave size); a requested stage is checked
    /// against the declared one.
    pub(super) fn code(
        &mut self,
        linked: &Component,
        chosen: &[(String, Component)],
        requested: &[Request<'_>],
    ) -> Result<Vec<CompiledEntryPoint>, BakeError> {
        let layout = linked.layout(0).map_err(self.fail("layout"))?;
        // Said before code generation too, where a compile worker's stderr keeps it: a
        // crash of Slang's leaves nothing else.
        let defect = defects::global_dispatch(layout, self.options);
        if let (Some(note), true) = (&defect, super::serving()) {
            eprintln!("{}: {note}", self.key);
        }
        let mut entry_points = Vec::with_capacity(chosen.len());
        for (index, (name, _)) in chosen.iter().enumerate() {
            let (bytes, w) = linked
                .entry_point_code(index as i64, 0)
                .map_err(|f| self.fail("codegen")(defects::noted(f, defect.as_deref())))?;
            self.warnings.push_str(&w);
            let words = spirv::words(&bytes).map_err(|msg| {
                BakeError::compile(
                    self.key,
                    "codegen",
                    SlangFailure {
                        code: 0,
                        diagnostics: format!("entry point `{name}`: {msg}"),
                    },
                )
            })?;
            let spirv_entry_name = spirv::entry_point_name(&words).unwrap_or_else(|| name.clone());
            let (stage, thread_group_size, wave_size) = match layout.entry_point(index as u64) {
                Some(ep) => {
                    let [x, y, z] = ep.thread_group_size();
                    (
                        ep.stage(),
                        [x as u32, y as u32, z as u32],
                        ep.wave_size() as u32,
                    )
                }
                None => (0, [1, 1, 1], 0),
            };
            if let Some((_, Some(want))) = requested.iter().find(|(n, _)| n == name) {
                check_stage(name, want, stage)?;
            }
            let targets = self.target_code(linked, index, name)?;
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
        Ok(entry_points)
    }

    /// Entry point `index`'s code for each further target (session target `t + 1`).
    fn target_code(
        &mut self,
        linked: &Component,
        index: usize,
        name: &str,
    ) -> Result<Vec<TargetOutput>, BakeError> {
        let options = self.options;
        let mut targets = Vec::with_capacity(options.targets.len());
        for (t, &target) in options.targets.iter().enumerate() {
            let (code, w) = linked
                .entry_point_code(index as i64, t as i64 + 1)
                .map_err(|f| {
                    BakeError::compile(
                        self.key,
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
            self.warnings.push_str(&w);
            targets.push(TargetOutput {
                target,
                entry_name: super::entry_name(target, name, &code),
                code,
            });
        }
        Ok(targets)
    }
}

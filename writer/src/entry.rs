//! One job to one entry: compile the job with Slang, then flatten its reflection, build its
//! bind view and its targets' views, and hash its dependencies. What a compile worker (a
//! thread of the in-process executor or a worker process) does for each job.

use crate::compile::{CompiledProgram, Compiler, Source};
use crate::error::BakeError;
use crate::plan::{relative_to, Job};
use slangpack_pack::assemble::BakedEntry;
use std::path::Path;

/// Compiles one job. `Ok(None)` is a library module found by a directory scan (a module
/// without entry points that other programs import); given explicitly, such a module is an
/// error.
///
/// # Errors
/// Compile errors, unreadable sources, and [`BakeError::Input`] for a program without entry
/// points.
pub fn compile_job(compiler: &Compiler, job: &Job) -> Result<Option<CompiledProgram>, BakeError> {
    let mut source = Source::read(&job.source)?;
    source.slang_path = Some(job.relative.to_string());
    let program = compiler.compile(&job.key, &source, &job.options())?;
    if program.entry_points.is_empty() {
        if job.skip_if_library {
            return Ok(None);
        }
        return Err(BakeError::Input(format!(
            "{}: no entry points (mark them with [shader(\"stage\")])",
            job.source.display()
        )));
    }
    Ok(Some(program))
}

/// Compiles one job and bakes its entry: what a compile worker does for each job it is given.
/// `Ok(None)` is a library module a directory scan found.
///
/// # Errors
/// As [`compile_job`], and the bind view's and the targets' checks.
pub(crate) fn bake_job(
    compiler: &Compiler,
    job: &Job,
    root: &Path,
) -> Result<Option<BakedEntry>, BakeError> {
    match compile_job(compiler, job)? {
        Some(program) => bake_entry(job, &program, root).map(Some),
        None => Ok(None),
    }
}

fn bake_entry(job: &Job, program: &CompiledProgram, root: &Path) -> Result<BakedEntry, BakeError> {
    let mut builder = crate::reflect::build_reflection(program)?;
    // Lines the bake prints as warnings: what the bind view leaves out, extra target checks
    // skipped.
    let mut skipped = Vec::new();
    crate::bind_view::build_bind_view(program, &job.key, &mut builder, &mut skipped)?;
    let entry_points =
        crate::targets::build_target_views(program, &job.key, &mut builder, &mut skipped)?;
    let reflection = builder.finish();
    let mut dependencies = Vec::new();
    for path in &program.dependencies {
        let bytes = std::fs::read(path).map_err(|e| BakeError::io(path, e))?;
        dependencies.push((relative_to(path, root), xxhash_rust::xxh3::xxh3_64(&bytes)));
    }
    dependencies.sort();
    dependencies.dedup();
    Ok(BakedEntry {
        key: job.key.clone(),
        entry_points,
        reflection: reflection.into(),
        dependencies,
        options_hash: job.options_hash,
        warnings: skipped
            .iter()
            .fold(program.warnings.clone(), |mut all, line| {
                if !all.is_empty() && !all.ends_with('\n') {
                    all.push('\n');
                }
                all.push_str(&format!("warning: {line}\n"));
                all
            }),
    })
}

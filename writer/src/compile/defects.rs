//! Programs Slang's code generation is known to fail on, named before it runs so that a
//! failure (or a crash of the compile worker) comes with what to change.

use super::CompileOptions;
use crate::slang_ids::{KIND_CONSTANT_BUFFER, KIND_INTERFACE, KIND_STRUCT};
use slangpack_slang::com::SlangFailure;
use slangpack_slang::reflection::{Program, TypeLayout};

/// A note for a program with an interface-typed value in the implicit global uniform buffer
/// (`ILightEnv gLightEnv;` at global scope, or inside a struct there) whose interface has
/// type conformances and no type argument specializes it. Slang 2026.12's code generation
/// fails on such a value once code calls it (shader-slang/slang#10314): an internal error
/// ("Unexpected context type for parameter info retrieval", or an assertion in `slang-ir.cpp`
/// for a value inside a struct), or, when the interface's method is generic, a segmentation
/// fault in its type-flow specialization (which ends the compile worker). The same value in a
/// constant buffer, a parameter block or an entry point's `uniform` parameters compiles.
/// `None` when the program has no such value.
pub(super) fn global_dispatch(program: Program<'_>, options: &CompileOptions) -> Option<String> {
    if options.conformances.is_empty() {
        return None;
    }
    let generics = program.type_parameter_count() as usize;
    if options.type_arguments.len() > generics {
        return None;
    }
    let mut tl = program.global_params_type_layout()?;
    if tl.kind() == KIND_CONSTANT_BUFFER {
        tl = tl.element_type_layout()?;
    }
    let mut found = Vec::new();
    interfaces(tl, "", options, &mut found, 8);
    let (path, interface) = found.into_iter().next()?;
    Some(format!(
        "note: `{path}` is an interface-typed value (`{interface}`) in the global uniform \
         buffer, dispatched among the conformances given for `{interface}`; Slang's code \
         generation fails on such a value once code calls it (an internal error, or a crash \
         when the interface's methods are generic: shader-slang/slang#10314). Declare it in a \
         struct held by a ConstantBuffer or ParameterBlock, or as an entry point's `uniform` \
         parameter, or specialize it with --type-arg"
    ))
}

/// The interface-typed fields of `tl` (through plain structs) whose interface has a
/// conformance in `options`, as `(path, interface)`.
fn interfaces(
    tl: TypeLayout<'_>,
    prefix: &str,
    options: &CompileOptions,
    found: &mut Vec<(String, String)>,
    depth: u32,
) {
    if depth == 0 {
        return;
    }
    for field in tl.fields() {
        let (Some(ftl), Some(name)) =
            (field.type_layout(), field.variable().and_then(|v| v.name()))
        else {
            continue;
        };
        let path = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}.{name}")
        };
        match ftl.kind() {
            KIND_INTERFACE => {
                let interface = ftl.ty().and_then(|t| t.name()).unwrap_or_default();
                if options.conformances.iter().any(|(_, i)| *i == interface) {
                    found.push((path, interface));
                }
            }
            KIND_STRUCT => interfaces(ftl, &path, options, found, depth - 1),
            _ => {}
        }
    }
}

/// `failure` with `note` after Slang's diagnostics, when there is one.
pub(super) fn noted(mut failure: SlangFailure, note: Option<&str>) -> SlangFailure {
    if let Some(note) = note {
        if !failure.diagnostics.is_empty() && !failure.diagnostics.ends_with('\n') {
            failure.diagnostics.push('\n');
        }
        failure.diagnostics.push_str(note);
    }
    failure
}

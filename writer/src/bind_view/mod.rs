//! The bind view: from Slang's reflection of a linked program to what a Vulkan engine binds
//! with — absolute sets and bindings, descriptor types and counts, stage flags, push-constant
//! ranges, buffer member layouts, vertex inputs and specialization constants — checked against
//! the decorations of the SPIR-V Slang emitted.
//!
//! The walk follows each global (and `uniform` entry-point) parameter down its variable-layout
//! tree, accumulating offsets: a binding is the sum of the descriptor-slot offsets since the
//! innermost ParameterBlock, a set is the sum of the descriptor-slot spaces plus the
//! sub-element spaces of every ParameterBlock on the way. Slang never lists a ParameterBlock's
//! implicit uniform buffer as a descriptor range; the walk adds it at the block's container
//! offset (binding 0) whenever the block's element has ordinary data.

mod buffers;
mod check;
mod combined;
mod dispatch;
mod emit;
mod heap;
#[cfg(test)]
mod pointee_tests;
mod usage;
mod vertex;
mod walk;

use crate::compile::CompiledProgram;
use crate::error::BakeError;
use crate::spirv;
use emit::emit;
use slangpack_format::bind::*;
use slangpack_format::{BindingType, ReflectionBuilder, Stage, ABSENT};
use slangpack_slang::reflection::{EntryPoint, Program};
use vertex::vertex_inputs;
use walk::Walk;

pub(crate) use crate::slang_ids::*;

/// `SLANG_UNBOUNDED_SIZE`.
pub(crate) const UNBOUNDED: usize = usize::MAX;

/// Computes the bind view of `program` and appends its tables to `builder`. `warnings` gets a
/// line for what the bind view leaves out although the program declares it (parameters of
/// global generic types left unspecialized).
///
/// # Errors
/// [`BakeError::Input`] for layouts a Vulkan engine cannot bind (more than one push-constant
/// block), and [`BakeError::Slang`] when the computed bindings disagree with the SPIR-V.
pub fn build_bind_view(
    program: &CompiledProgram,
    key: &str,
    builder: &mut ReflectionBuilder,
    warnings: &mut Vec<String>,
) -> Result<(), BakeError> {
    build_tampered(program, key, builder, warnings, |_| {})
}

/// [`build_bind_view`], with `tamper` applied to the computed view just before the check
/// against the SPIR-V (tests corrupt a fact there and expect the bake to fail).
fn build_tampered(
    program: &CompiledProgram,
    key: &str,
    builder: &mut ReflectionBuilder,
    warnings: &mut Vec<String>,
    tamper: impl FnOnce(&mut Walk<'_>),
) -> Result<(), BakeError> {
    let program_layout = program.layout()?;
    let mut walk = Walk {
        program_layout,
        bindings: Vec::new(),
        buffers: Vec::new(),
        push_constants: Vec::new(),
        spec_constants: Vec::new(),
        shader_records: Vec::new(),
        type_arguments: program.type_arguments.clone(),
        conformances: program.conformances.clone(),
        module: program.module_decl(),
        unspecialized: Vec::new(),
        targets: Default::default(),
        heap_storage: Vec::new(),
    };
    if let Some(globals) = program_layout.global_params_var_layout() {
        walk.global_scope(globals)?;
    }
    let entry_points: Vec<EntryPoint<'_>> = (0..program_layout.entry_point_count())
        .filter_map(|i| program_layout.entry_point(i))
        .collect();
    for (index, ep) in entry_points.iter().enumerate() {
        walk.entry_point_parameters(index, *ep)?;
    }
    walk.resolve_targets();

    refuse_undescribed(key, &walk, program.entry_points.len(), warnings)?;
    let spirv = entry_spirv(key, program)?;
    let mut vertex_inputs = vertex_inputs(&entry_points);
    for v in &mut vertex_inputs {
        if let Some(ep) = spirv.get(v.entry_point as usize) {
            v.used = ep.facts.inputs.iter().any(|i| i.location == v.location);
        }
    }
    let program_stages = mark_usage(key, &mut walk, &spirv)?;
    check::take_spirv_facts(&mut walk, &spirv);
    check::take_spirv_offsets(&mut walk, &spirv);
    tamper(&mut walk);
    check::check(key, &walk, &vertex_inputs, &spirv)?;
    dispatch::check_ids(key, &walk, &program.entry_points)?;
    dispatch::check_payloads(key, &walk)?;

    // Ties (bindings of different pipelines at one place) keep declaration order.
    walk.bindings.sort_by_key(|b| (b.set, b.binding));
    usage::check_shared_places(key, &walk.bindings, &spirv)?;
    emit(
        builder,
        &walk,
        program_stages,
        entry_points.len() as u32,
        &vertex_inputs,
        &spirv,
    );
    Ok(())
}

/// Refuses what the walk found but the bind view cannot state: a buffer without a size (an
/// array sized by a specialization constant), an interface-typed value inside a buffer, more
/// entry points than the usage masks hold. Notes in `warnings` the parameters of global
/// generic types left unspecialized.
fn refuse_undescribed(
    key: &str,
    walk: &Walk<'_>,
    entry_point_count: usize,
    warnings: &mut Vec<String>,
) -> Result<(), BakeError> {
    // Slang lays out a buffer holding an array sized by a specialization constant with an
    // unknown (`~0`) size and emits SPIR-V whose block has no binding and overlapping member
    // offsets: there is no layout to state.
    if let Some(b) = walk.buffers.iter().find(|b| b.size == ABSENT) {
        let name = if b.name.is_empty() {
            "the global uniform buffer"
        } else {
            b.name.as_str()
        };
        return Err(BakeError::Input(format!(
            "{key}: `{name}` holds an array sized by a specialization constant; Slang's layout \
             of it has no size and its SPIR-V no consistent offsets, so no buffer layout can be \
             stated (size the array with a literal, or move it to a structured buffer)"
        )));
    }
    for b in &walk.buffers {
        for m in &b.members {
            if let Some(interface) = &m.interface {
                // Without a type argument either (one too large for the payload is the
                // refusal below).
                if walk.no_conformance(interface) && walk.type_arguments.is_empty() {
                    let implementations = walk.implementations(interface);
                    let why = walk::no_conformance(&m.path, "value", interface, &implementations);
                    return Err(BakeError::Input(format!("{key}: {why}")));
                }
                return Err(existential_member(key, b, m, interface));
            }
        }
    }
    if !walk.unspecialized.is_empty() {
        warnings.push(unspecialized(&walk.unspecialized));
    }
    if entry_point_count > MAX_ENTRY_POINTS as usize {
        return Err(BakeError::Input(format!(
            "{key}: {} entry points in one program; the bind view records which entry points \
             use each binding in a {MAX_ENTRY_POINTS}-bit mask, so a program may have at most \
             {MAX_ENTRY_POINTS} (select entry points with -e or a manifest's entry_points, or \
             split the file)",
            entry_point_count
        )));
    }
    Ok(())
}

/// Each entry point's SPIR-V facts, for the checks.
fn entry_spirv<'p>(
    key: &str,
    program: &'p CompiledProgram,
) -> Result<Vec<check::EntrySpirv<'p>>, BakeError> {
    program
        .entry_points
        .iter()
        .map(|ep| {
            Ok(check::EntrySpirv {
                name: &ep.name,
                stage: Stage::from_raw(ep.stage).vk_stage_flags().to_raw(),
                facts: spirv::Facts::parse(&ep.spirv)
                    .map_err(|e| BakeError::Slang(format!("{key}: `{}`: {e}", ep.name)))?,
            })
        })
        .collect::<Result<_, BakeError>>()
}

/// Which entry points use each binding and push-constant block, and so its stages (all of
/// the program's for one no entry point uses); descriptor heaps and combined samplers joined
/// first. Returns the program's stages.
fn mark_usage(
    key: &str,
    walk: &mut Walk<'_>,
    spirv: &[check::EntrySpirv<'_>],
) -> Result<u32, BakeError> {
    heap::add_heaps(key, &mut walk.bindings, spirv)?;
    walk.place_heap_buffers();
    // Which entry points use what: bindings of different pipelines may share a place.
    usage::mark(key, walk, spirv)?;
    combined::merge(&mut walk.bindings);
    let program_stages = usage::stages_of(u32::MAX, spirv);
    for b in &mut walk.bindings {
        b.stage_flags = usage::stages_of(b.entry_point_mask, spirv);
        if b.entry_point_mask == 0 {
            b.flags |= BINDING_UNUSED;
            b.stage_flags = program_stages;
        }
    }
    for push in &mut walk.push_constants {
        push.stage_flags = match push.entry_point_mask {
            0 => program_stages,
            mask => usage::stages_of(mask, spirv),
        };
    }
    Ok(program_stages)
}

/// The refusal of an interface-typed value inside a buffer (`uniform ILight gLight`, an entry
/// point's `uniform ITransformer t`, `struct S { float4 c; ILight light; }` in a constant
/// buffer) that the bind view cannot describe.
///
/// Slang lays such a value out as an existential: in the SPIR-V a `Tuple` of a `uint2` type
/// id, a `uint2` witness-table id and an `AnyValue` payload of `uint` words, into which the
/// conforming type's data is packed (or, specialized to a type too large for it, placed after
/// the whole buffer, which then nests its own members one level down). Its reflection reports
/// an interface with a size and no members — with `--conformance` and with `--type-arg`
/// alike (its pending-data layouts stay empty). The bind view packs each conforming type into
/// the payload itself (one type argument or conformance: that type; several conformances:
/// each, with the conformance ids the writer gives Slang, `dispatch.rs`); what is left is a
/// type that does not pack into the payload that way, or several existential slots told
/// apart by type arguments.
fn existential_member(
    key: &str,
    buffer: &buffers::BufferOut,
    member: &buffers::MemberOut,
    interface: &str,
) -> BakeError {
    let name = if buffer.name.is_empty() {
        "the global uniform buffer"
    } else {
        buffer.name.as_str()
    };
    let at = member.rec.offset;
    BakeError::Input(format!(
        "{key}: `{}` in `{name}` is an interface-typed value (`{interface}`, {} bytes at offset \
         {at}) that slangpack cannot describe: Slang lays it out as an existential (a uint2 \
         type id at {at}, a uint2 witness-table id at {}, a {}-byte payload at {}), and the \
         bind view describes it only when each type it may hold (the --type-arg of the \
         program's one interface-typed value, or each type of the --conformance list for \
         `{interface}`, named for no other interface) fits the payload with 32-bit scalars and \
         vectors only (where Slang puts a larger type's data its reflection does not say); make the type a generic parameter instead (`type_param L : \
         {interface};` or `struct S<L : {interface}>` or `void main<T : {interface}>(uniform \
         T t)`), specialized with --type-arg",
        member.path,
        member.rec.size,
        at.saturating_add(8),
        member.rec.size.saturating_sub(16),
        at.saturating_add(16),
    ))
}

/// The warning for parameters whose type is a global generic parameter nothing specializes
/// (`type_param T : IMaterial; ParameterBlock<T> gMaterial;` baked without `--type-arg`).
/// Slang compiles such a program while no code reads them, gives them no place in its layout
/// and declares nothing for them in the SPIR-V, so the bind view has nothing to state: an
/// engine would otherwise find the block missing without a word.
fn unspecialized(parameters: &[(String, String)]) -> String {
    let mut generics: Vec<&str> = parameters.iter().map(|(_, g)| g.as_str()).collect();
    generics.dedup();
    let listed: Vec<String> = parameters
        .iter()
        .map(|(path, generic)| format!("`{path}` (of `{generic}`)"))
        .collect();
    format!(
        "global generic parameter{} `{}` left unspecialized: Slang gives {} no place and the \
         bind view leaves {} out; specialize the program with --type-arg TYPE (one per global \
         generic parameter, in declaration order)",
        if generics.len() == 1 { "" } else { "s" },
        generics.join("`, `"),
        listed.join(", "),
        if listed.len() == 1 { "it" } else { "them" },
    )
}

/// Joins a dotted path.
fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else if name.is_empty() {
        prefix.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A `usize` as a record field, absent when it does not fit.
fn u(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(ABSENT)
}

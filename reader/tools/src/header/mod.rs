//! Bind headers: host structs (Rust, C, C++) whose memory layout equals the shaders' buffer
//! layouts, with compile-time checks of every offset and size, and set/binding constants.
//!
//! Every buffer layout of an entry (uniform buffers, parameter-block and global uniforms,
//! push-constant blocks, structured-buffer elements) becomes a struct:
//! - members at their shader offsets, the gaps filled with explicit `_padN: [u8; N]` fields
//!   (a `float3` followed by a `float` shares one 16-byte slot, as in the shader);
//! - struct members become nested structs (named after the path: `GScene` → `GSceneView`);
//! - arrays are arrays of elements as long as the array stride; where the stride is larger
//!   than the element (`float a[4]` in a uniform buffer: 16-byte stride), each element is a
//!   wrapper struct `{ value, _pad0 }`; arrays of structs use the struct padded to the stride;
//! - matrices are arrays of their row (row-major) or column (column-major) vectors, each
//!   vector as long as the matrix stride (lanes past the vector's length are padding);
//! - in Rust, every struct derives `bytemuck::Pod` and `Zeroable` (its padding is explicit,
//!   so `bytemuck::bytes_of(&value)` is the buffer's bytes); the crate including the header
//!   depends on `bytemuck` 1 with the `derive` and `min_const_generics` features. Only a
//!   struct ending in a runtime-sized array that Rust would pad after it derives neither (its
//!   doc says so; `write_le_bytes` writes it);
//! - the checks: `const _: () = assert!(core::mem::offset_of!(T, f) == N);` (Rust),
//!   `_Static_assert(offsetof(T, f) == N, ...)` (C), `static_assert(...)` (C++), and the
//!   size of every struct.
//!
//! For an entry baked for further targets, each binding also gets its place in every target's
//! code: `G_SCENE_WGSL_GROUP` / `_WGSL_BINDING`, `_GLSL_SET` / `_GLSL_BINDING`,
//! `_HLSL_REGISTER` / `_HLSL_SPACE` (the register class is in the constant's comment),
//! `_METAL_INDEX` (a ParameterBlock's argument buffer has one; its members, fields of a
//! tier-2 argument-buffer struct, have none).
//!
//! Each entry gets its own namespace: a `pub mod` (Rust), a name prefix (C), a `namespace`
//! (C++), named after the entry key (`layered/layered` → `layered_layered`).
//!
//! ```no_run
//! use slangpack_reader::Package;
//! use slangpack_tools::header::{generate, Language};
//!
//! let package = Package::open("shaders.slangpack")?;
//! let source = generate(&package, Language::Rust, None)?;
//! std::fs::write("shaders.rs", source)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod c;
mod check;
mod cpp;
mod model;
mod names;
mod rust;
mod targets;

use crate::ToolError;
pub use check::check_identifiers;
use model::build_module;
pub use names::is_emitted_identifier;
use names::{module_ident, Scope};
use slangpack_format::bind::BufferMember;
use slangpack_reader::Package;

/// The language of a generated header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// Rust: `#[repr(C)]` structs in one `pub mod` per entry.
    Rust,
    /// C11: `typedef struct`s with the entry as name prefix, `#define` constants.
    C,
    /// C++17: structs and `inline constexpr` constants in one `namespace` per entry.
    Cpp,
}

/// Generates the header for every entry of `package`, or only for the entry `only`.
///
/// Names from the package become identifiers only through the rules of docs/cli.md's "Names
/// in generated headers" (checked identifiers, `r_` before reserved words, `_2` on
/// collisions); comments show them escaped.
///
/// # Errors
/// [`ToolError::Input`] when `only` names no entry, or when a name cannot become an
/// identifier (a member name that is not a Slang identifier, a path without identifier
/// characters); the message names the entry and shows the name escaped.
/// [`ToolError::LimitExceeded`] when the header would pass the output budget
/// ([`crate::budget`]: entries restating a shared reflection blob too many times).
pub fn generate(
    package: &Package,
    language: Language,
    only: Option<&str>,
) -> Result<String, ToolError> {
    let mut budget = crate::budget::Budget::new(
        match language {
            Language::Rust => "the Rust header",
            Language::C => "the C header",
            Language::Cpp => "the C++ header",
        },
        &[package],
    );
    let mut modules = Vec::new();
    let mut module_names = Scope::default();
    for (index, key) in package.keys().enumerate() {
        if only.is_some_and(|only| only != key) {
            continue;
        }
        let entry = package
            .load_at(index)
            .map_err(|e| ToolError::Input(format!("entry {}: {e}", crate::text::quoted(key))))?;
        // Entries sharing a reflection blob each restate it, and records may share long
        // names: bounded by the output budget, charged before the module is built and
        // settled after (so memory stays within it too).
        let estimate = budget.charge_entry(&entry)?;
        let name = module_names.claim(module_ident(entry.key()));
        let module = build_module(&entry, name).map_err(|e| {
            ToolError::Input(format!("entry {}: {e}", crate::text::quoted(entry.key())))
        })?;
        budget.settle(estimate, module.weight())?;
        modules.push(module);
    }
    if let Some(key) = only {
        if modules.is_empty() {
            return Err(ToolError::Input(format!(
                "the package has no entry {}",
                crate::text::quoted(key)
            )));
        }
    }
    // The C header's `#define`s share one namespace across entries; fields avoid them in
    // every language, so the three headers name fields alike.
    let mut macros = Scope::default();
    for module in &mut modules {
        let upper = module.name.to_ascii_uppercase();
        for c in &mut module.constants {
            c.c_name = macros.claim(format!("{upper}_{}", c.name));
        }
    }
    for module in &mut modules {
        module.claim_field_names(&macros);
    }
    let text = match language {
        Language::Rust => rust::render(&modules),
        Language::C => c::render(&modules),
        Language::Cpp => cpp::render(&modules),
    };
    budget.check_total(text.len())?;
    Ok(text)
}

/// How a matrix is stored on the host: ` Stored as 3 column vectors of 4 lanes (lane 3 is
/// padding).`; empty for other members.
pub(super) fn matrix_note(m: &BufferMember) -> String {
    if slangpack_format::TypeKind::from_raw(m.type_kind) != slangpack_format::TypeKind::Matrix {
        return String::new();
    }
    let (vectors, length, what) = if m.matrix_layout == 1 {
        (m.rows, m.columns, "row")
    } else {
        (m.columns, m.rows, "column")
    };
    let lanes = model::Scalar::from_slang(m.scalar_type).map_or(0, |s| m.matrix_stride / s.size());
    let padding = match lanes.saturating_sub(length) {
        0 => String::new(),
        1 => format!(" (lane {length} is padding)"),
        _ => format!(" (lanes {length}..{lanes} are padding)"),
    };
    format!(" Stored as {vectors} {what} vectors of {lanes} lanes{padding}.")
}

/// Whether the members `children` (local indices into `members`) are the types a dynamically
/// dispatched existential's payload may hold (`MEMBER_CONFORMANCE`): they overlap, so the
/// host struct holds the payload as its words (each type's id and members are in the package,
/// 6.12).
fn dispatched(children: &[usize], members: &[BufferMember]) -> bool {
    use slangpack_format::bind::MEMBER_CONFORMANCE;
    (children.iter()).any(|&c| members[c].flags & MEMBER_CONFORMANCE != 0)
}

/// The conformance id of every type a dynamically dispatched existential may hold, as header
/// constants `(name, id, doc)`: `G_LIGHTING_ENV_VALUE_POINT_LIGHT_ID` for the member
/// `env.value.PointLight` of buffer `gLighting`.
///
/// # Errors
/// A path that makes no identifier.
fn conformance_ids(
    bind: &slangpack_reader::BindView<'_>,
) -> Result<Vec<(String, u32, String)>, String> {
    let all = bind.buffer_layouts();
    let mut out = Vec::new();
    for c in bind.conformances() {
        let within = |l: &&slangpack_format::bind::BufferLayout| {
            (l.first_member..l.first_member.saturating_add(l.member_count)).contains(&c.member)
        };
        let Some(layout) = all.iter().find(within) else {
            continue;
        };
        let member = &bind.members(layout)[(c.member - layout.first_member) as usize];
        let path = format!("{}.{}", bind.string(layout.name), bind.string(member.path));
        let path = path.trim_start_matches('.');
        let stem = names::upper_snake(path, || format!("conformance of member {}", c.member))?;
        let (ty, interface) = (bind.string(member.name), bind.string(c.interface));
        out.push((
            format!("{stem}_ID"),
            c.id,
            format!(
                "Conformance id of `{ty}` ({interface}) at `{path}`: write it into the first \
                 word of the existential's `witnessId` when it holds a `{ty}`."
            ),
        ));
    }
    Ok(out)
}

//! What the compile needs to know of the further targets: Slang's code target for each, and
//! the name an entry point has in a target's code.

use slangpack_format::Target;
use slangpack_slang::session::CodeTarget;

/// Slang's code target for `target`, or `None` for targets slangpack does not compile
/// (SPIR-V is the primary target, DXIL needs `dxc`).
pub fn code_target(target: Target) -> Option<CodeTarget> {
    match target {
        Target::Wgsl => Some(CodeTarget::Wgsl),
        Target::Glsl => Some(CodeTarget::Glsl),
        Target::Hlsl => Some(CodeTarget::Hlsl),
        Target::Metal => Some(CodeTarget::Metal),
        _ => None,
    }
}

/// The name entry point `name` has in `target`'s `code`: GLSL's is always `main`; Metal's is
/// the function marked `[[kernel]]`, `[[vertex]]` or `[[fragment]]` (Slang renames `main`,
/// which Metal reserves, to `main_0`); WGSL and HLSL keep the function's name. Checked against
/// the code at bake time.
pub fn entry_name(target: Target, name: &str, code: &[u8]) -> String {
    match target {
        Target::Glsl => "main".to_string(),
        Target::Metal => std::str::from_utf8(code)
            .ok()
            .and_then(metal_entry_function)
            .unwrap_or(name)
            .to_string(),
        _ => name.to_string(),
    }
}

/// The name of the Metal function marked as an entry point (`[[kernel]]`, `[[vertex]]`,
/// `[[fragment]]`), if any.
fn metal_entry_function(text: &str) -> Option<&str> {
    ["[[kernel]]", "[[vertex]]", "[[fragment]]"]
        .into_iter()
        .find_map(|attr| {
            let after = &text[text.find(attr)? + attr.len()..];
            let open = after.find('(')?;
            after[..open]
                .trim_end()
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
        })
}

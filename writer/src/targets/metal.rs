//! Metal: the `[[buffer(n)]]`, `[[texture(n)]]`, `[[sampler(n)]]` attributes of the entry
//! point's parameters and the `[[id(n)]]` members of argument-buffer structs, parsed from the
//! text.

use super::hlsl::declared_name;
use super::CodeBinding;
use slangpack_format::ABSENT;

/// Parses `text`'s binding attributes; checks that it has a function `entry_name`.
///
/// Slang emits ParameterBlocks as tier-2 argument buffers: a struct of pointers, textures and
/// samplers (no `[[id(n)]]`), reached through a `[[buffer(n)]]` parameter. Their members are
/// returned with `index` absent and `name` the dotted path of Slang's names without their `_N`
/// suffixes (`gScene.material.albedo`), matched by path.
pub(crate) fn check(text: &str, entry_name: &str) -> Result<Vec<CodeBinding>, String> {
    if !text.contains(&format!("{entry_name}(")) {
        return Err(format!("the Metal code has no function `{entry_name}`"));
    }
    let structs = structs(text);
    let mut out = Vec::new();
    for (class, attr) in [
        (b'b', "[[buffer("),
        (b't', "[[texture("),
        (b's', "[[sampler("),
    ] {
        for (at, index) in attributes(text, attr)? {
            let before = &text[..at];
            let name = declared_name(before);
            // The parameter's type: the text between the previous `(` or `,` and the name.
            let start = before.rfind(['(', ',']).map_or(0, |p| p + 1);
            let ty = before[start..].to_string();
            out.push(CodeBinding {
                name: name.clone(),
                space: ABSENT,
                index,
                register_class: class,
                facts: None,
            });
            if class == b'b' {
                members(&structs, &ty, &strip_suffix(&name), 0, &mut out);
            }
        }
    }
    Ok(out)
}

/// The argument-buffer members reachable from a parameter of type `ty` named `path`.
fn members(
    structs: &[(String, Vec<(String, String)>)],
    ty: &str,
    path: &str,
    depth: usize,
    out: &mut Vec<CodeBinding>,
) {
    let Some((_, fields)) = structs.iter().find(|(name, _)| {
        ty.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == name)
    }) else {
        return;
    };
    if depth > 16 {
        return;
    }
    for (field_ty, field) in fields {
        let is_binding = field_ty.contains('*')
            || field_ty.contains("texture")
            || field_ty.contains("depth")
            || field_ty.contains("sampler");
        let member_path = format!("{path}.{}", strip_suffix(field));
        if is_binding {
            out.push(CodeBinding {
                name: member_path.clone(),
                space: 0,
                index: ABSENT,
                register_class: 0,
                facts: None,
            });
        }
        // Plain struct members hold bindings of the same argument buffer; pointed-to
        // argument buffers hold their own.
        members(structs, field_ty, &member_path, depth + 1, out);
    }
}

/// Slang's name for a declaration without its `_N` uniqueness suffix.
fn strip_suffix(name: &str) -> String {
    match name.rsplit_once('_') {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            head.to_string()
        }
        _ => name.to_string(),
    }
}

/// Whether a bind-view path and a code path (Slang's names joined by `.`) name the same
/// parameter: Slang flattens nothing inside argument buffers, so they are equal.
pub(crate) fn same_path(path: &str, code_path: &str) -> bool {
    path == code_path
}

/// Every struct of `text`: (name, [(member type, member name)]).
fn structs(text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("struct ") {
        let at = from + found;
        from = at + "struct ".len();
        let rest = &text[from..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let (Some(open), Some(close)) = (rest.find('{'), rest.find("};")) else {
            continue;
        };
        if open > close || name.is_empty() {
            continue;
        }
        let fields = rest[open + 1..close]
            .split(';')
            .filter_map(|decl| {
                let decl = decl.trim();
                let (ty, field) = decl.rsplit_once(|c: char| c.is_whitespace() || c == '*')?;
                let field = field.split('[').next().unwrap_or(field).trim();
                Some((format!("{ty} "), field.to_string()))
            })
            .collect();
        out.push((name, fields));
    }
    out
}

/// The name of the function marked as an entry point (`[[kernel]]`, `[[vertex]]`,
/// `[[fragment]]`), if any.
pub(crate) fn entry_function(text: &str) -> Option<&str> {
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

/// Every `attr` (`[[buffer(`) occurrence: (byte offset, the number inside).
fn attributes(text: &str, attr: &str) -> Result<Vec<(usize, u32)>, String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(attr) {
        let at = from + found;
        let digits = &text[at + attr.len()..];
        let end = digits.find(')').unwrap_or(0);
        let index = digits[..end]
            .trim()
            .parse()
            .map_err(|_| format!("{attr}{}: not a number", &digits[..end]))?;
        out.push((at, index));
        from = at + attr.len();
    }
    Ok(out)
}

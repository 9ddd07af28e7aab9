//! Metal: the `[[buffer(n)]]`, `[[texture(n)]]`, `[[sampler(n)]]` attributes of the entry
//! point's parameters and the `[[id(n)]]` members of argument-buffer structs, parsed from the
//! text.

use super::hlsl::declared_name;
use super::walk::Slot;
use super::{strip_suffix, CodeBinding};
use slangpack_format::{TargetBindingKind, ABSENT};

/// Parses `text`'s binding attributes; checks that it has a function `entry_name` and that
/// every resource parameter of it has a binding attribute (`place_of` gives the place
/// Slang's Metal layout has for a parameter path, named in the error).
///
/// Slang emits ParameterBlocks as tier-2 argument buffers: a struct of pointers, textures and
/// samplers (no `[[id(n)]]`), reached through a `[[buffer(n)]]` parameter. Their members are
/// returned with `index` absent and `name` the dotted path of Slang's names without their `_N`
/// suffixes (`gScene.material.albedo`), matched by path. An array inside an argument buffer is
/// wrapped by Slang in a struct of its own (`_Array_...`, whose one member `data_N` is the
/// array): the array keeps the wrapping member's path.
pub(crate) fn check(
    text: &str,
    entry_name: &str,
    place_of: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<CodeBinding>, String> {
    let Some(params) = entry_parameters(text, entry_name) else {
        return Err(format!("the Metal code has no function `{entry_name}`"));
    };
    if let Some((ty, name)) = params.iter().find_map(|p| unbound_resource(p)) {
        let path = strip_suffix(name);
        let place = place_of(&path).map_or_else(
            || "Slang's Metal layout gives it no place".to_string(),
            |p| format!("Slang's Metal layout places `{path}` at {p}"),
        );
        let why = match (ty.starts_with("array<"), ty.contains("constant*")) {
            (true, false) if ty.contains('*') => {
                " Metal has no arrays of buffers as entry-point parameters (Slang emits the \
                 array without an attribute, and Metal refuses it): put the array in a \
                 ParameterBlock (an argument buffer) to bake for Metal"
            }
            (true, true) => {
                " Metal has no arrays of buffers as entry-point parameters (Slang emits the \
                 array without an attribute, and Metal refuses it), and in a ParameterBlock \
                 Slang's layout gives an array of constant buffers no id: use an array of \
                 StructuredBuffers in a ParameterBlock to bake for Metal"
            }
            _ => "",
        };
        return Err(format!(
            "the entry point's parameter `{name}` (`{ty}`) has no `[[buffer(n)]]`, \
             `[[texture(n)]]` or `[[sampler(n)]]` attribute, so the code binds it nowhere; \
             {place}.{why}"
        ));
    }
    let structs = structs(text);
    let mut out = Vec::new();
    // Input attachments are read by framebuffer fetch: a fragment parameter
    // `float4 gAlbedo_0 [[color(n)]]`, n the color attachment.
    for param in &params {
        if let Some((at, index)) = attributes(param, "[[color(")?.first() {
            out.push(CodeBinding {
                name: declared_name(&param[..*at]),
                space: ABSENT,
                index: *index,
                register_class: COLOR,
                facts: None,
                kind: None,
                uniform_size: None,
                layout: None,
            });
        }
    }
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
                kind: None,
                uniform_size: constant_size(&structs, &ty),
                layout: constant_shape(&structs, &ty).or_else(|| device_shape(&structs, &ty)),
            });
            if class == b'b' {
                members(&structs, &ty, &strip_suffix(&name), 0, &mut out);
            }
        }
    }
    Ok(out)
}

/// The register class of an input attachment, read from color attachment `index` by
/// framebuffer fetch (`[[color(n)]]`).
pub(crate) const COLOR: u8 = b'c';

/// Moves every input attachment of `slots` (Slang's Metal layout gives it a `[[texture(n)]]`)
/// to the color attachment Slang's Metal code reads it from: `[[color(i)]]`, i its input
/// attachment index (`input_attachment(path)`, the Vulkan binding's).
pub(crate) fn input_attachments(
    slots: &mut [Slot],
    input_attachment: impl Fn(&str) -> Option<u32>,
) {
    for slot in slots {
        if let Some(i) = input_attachment(&slot.path) {
            slot.register_class = COLOR;
            slot.index = i;
        }
    }
}

/// Two bindings of one argument buffer whose `[[id(n)]]` ranges (id .. id + count) overlap in
/// Slang's Metal layout, said as an error: the code cannot hold both there. Slang 2026.12 gives
/// an array of constant buffers inside an argument buffer no id of its own (it reads as 0, and
/// the members after it are numbered as if it were absent).
pub(crate) fn overlapping_ids(slots: &[Slot]) -> Option<String> {
    let members: Vec<&Slot> = slots
        .iter()
        .filter(|s| s.space != ABSENT && s.kind != TargetBindingKind::ArgumentBuffer)
        .collect();
    let end = |s: &Slot| s.index.saturating_add(s.count.max(1));
    for (i, a) in members.iter().enumerate() {
        if let Some(b) = members[i + 1..]
            .iter()
            .find(|b| b.space == a.space && a.index < end(b) && b.index < end(a))
        {
            return Some(format!(
                "Slang's Metal layout gives `{}` [[id({})]] and `{}` [[id({})]] of argument \
                 buffer {}, overlapping (counts {} and {}): the argument buffer's code cannot \
                 hold both there (an array of constant buffers in a ParameterBlock gets no id \
                 of its own from Slang 2026.12: use an array of StructuredBuffers)",
                a.path, a.index, b.path, b.index, a.space, a.count, b.count
            ));
        }
    }
    None
}

/// The struct of every argument buffer the code can reach from entry point `entry_name`,
/// laid out as a tier-2 argument buffer ([`super::metal_layout::argument_struct`]): (the name
/// [`check`] gives its binding — the parameter's name at the top level, the dotted path of
/// Slang's names inside another argument buffer —, the struct). Uniform buffers (`constant`
/// pointers to structs of plain data) are listed too; the bind view says which are argument
/// buffers. A struct whose layout the rules do not give is left out.
pub(crate) fn argument_structs(
    text: &str,
    entry_name: &str,
) -> Vec<(String, super::metal_layout::ArgumentStruct)> {
    let structs = structs(text);
    let ids = explicit_ids(text);
    let explicit = |name: &str, field: &str| {
        ids.iter()
            .find(|(s, f, _)| s == name && f == field)
            .map(|&(_, _, id)| id)
    };
    let mut out = Vec::new();
    let Some(params) = entry_parameters(text, entry_name) else {
        return out;
    };
    for param in params {
        if !param.contains("[[buffer(") {
            continue;
        }
        let before = &param[..param.find("[[").unwrap_or(param.len())];
        let name = declared_name(before);
        let ty = before
            .trim_end()
            .strip_suffix(name.as_str())
            .unwrap_or(before);
        let path = strip_suffix(&name);
        nested_structs(&structs, ty, name, &path, 0, &explicit, &mut out);
    }
    out
}

/// The argument-buffer struct a `constant` pointer type `ty` points at (pushed as `name`),
/// and those its members point at in turn (named by their dotted `path`).
fn nested_structs(
    structs: &[(String, Vec<(String, String)>)],
    ty: &str,
    name: String,
    path: &str,
    depth: usize,
    explicit: super::metal_layout::ExplicitId<'_>,
    out: &mut Vec<(String, super::metal_layout::ArgumentStruct)>,
) {
    let pointee = ty
        .trim()
        .strip_suffix('*')
        .and_then(|t| t.trim_end().strip_suffix("constant"))
        .map(str::trim);
    let Some(pointee) = pointee.filter(|p| structs.iter().any(|(n, _)| n == p)) else {
        return;
    };
    if depth > 16 {
        return;
    }
    let Some(layout) = super::metal_layout::argument_struct(structs, pointee, explicit) else {
        return;
    };
    for m in &layout.members {
        if m.kind == slangpack_format::ArgumentMemberKind::Buffer && !m.element_relative {
            if let Some((_, field_ty)) = member_type(structs, pointee, &m.path) {
                let member_path = format!("{path}.{}", m.path);
                nested_structs(
                    structs,
                    field_ty,
                    member_path.clone(),
                    &member_path,
                    depth + 1,
                    explicit,
                    out,
                );
            }
        }
    }
    out.push((name, layout));
}

/// The declared type of the member at dotted `path` (suffixes dropped) of struct `name`.
fn member_type<'s>(
    structs: &'s [(String, Vec<(String, String)>)],
    name: &str,
    path: &str,
) -> Option<(&'s str, &'s str)> {
    let (head, rest) = path
        .split_once('.')
        .map_or((path, None), |(h, r)| (h, Some(r)));
    let (_, fields) = structs.iter().find(|(n, _)| n == name)?;
    let (ty, field) = fields.iter().find(|(_, f)| strip_suffix(f) == head)?;
    match rest {
        None => Some((field.as_str(), ty.as_str())),
        Some(rest) => member_type(structs, ty.trim(), rest),
    }
}

/// Every `[[id(n)]]` a struct member of `text` states: (struct, member, n).
fn explicit_ids(text: &str) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    for (name, body) in struct_bodies(text) {
        for decl in body.split(';') {
            let Some(attr) = decl.find("[[id(") else {
                continue;
            };
            let digits = &decl[attr + "[[id(".len()..];
            let Ok(id) = digits[..digits.find(')').unwrap_or(0)].trim().parse() else {
                continue;
            };
            out.push((name.clone(), declared_name(&decl[..attr]), id));
        }
    }
    out
}

/// The argument-buffer members reachable from a parameter of type `ty` named `path`.
fn members(
    structs: &[(String, Vec<(String, String)>)],
    ty: &str,
    path: &str,
    depth: usize,
    out: &mut Vec<CodeBinding>,
) {
    let Some(fields) = struct_of(structs, ty) else {
        return;
    };
    if depth > 16 {
        return;
    }
    for (field_ty, field) in fields {
        let field_ty = array_wrapped(structs, field_ty).unwrap_or(field_ty);
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
                kind: None,
                uniform_size: constant_size(structs, field_ty),
                layout: constant_shape(structs, field_ty)
                    .or_else(|| device_shape(structs, field_ty)),
            });
        }
        // Plain struct members hold bindings of the same argument buffer; pointed-to
        // argument buffers hold their own.
        members(structs, field_ty, &member_path, depth + 1, out);
    }
}

/// The size by Metal's rules of the type a `constant` pointer (`Params_0 constant*`, a
/// uniform buffer or an argument buffer; a parameter's name may follow) points at; `None`
/// for other types and for a struct holding a type whose layout is unknown (a texture).
fn constant_size(structs: &[(String, Vec<(String, String)>)], ty: &str) -> Option<u32> {
    let pointee = ty[..ty.rfind('*')?].trim_end().strip_suffix("constant")?;
    super::metal_layout::size_align(structs, pointee).map(|(size, _)| size)
}

/// The member layout by Metal's rules of the struct a `constant` pointer points at (as
/// [`constant_size`]); `None` for other types and unknown layouts.
fn constant_shape(
    structs: &[(String, Vec<(String, String)>)],
    ty: &str,
) -> Option<super::BufferShape> {
    let pointee = ty[..ty.rfind('*')?].trim_end().strip_suffix("constant")?;
    super::metal_layout::struct_shape(structs, pointee)
}

/// The element layout by Metal's rules of a structured buffer, a `device` pointer
/// (`Particle_natural_0 device*`, `packed_float3 device*`): the element's members (none for a
/// scalar or vector element) and the bytes between elements, the element's size rounded to
/// its alignment; `None` for other types and unknown layouts.
fn device_shape(
    structs: &[(String, Vec<(String, String)>)],
    ty: &str,
) -> Option<super::BufferShape> {
    let pointee = ty[..ty.rfind('*')?]
        .trim_end()
        .strip_suffix("device")?
        .trim();
    let pointee = pointee.strip_prefix("const ").unwrap_or(pointee).trim();
    let (size, align) = super::metal_layout::size_align(structs, pointee)?;
    let mut shape = if structs.iter().any(|(n, _)| n == pointee) {
        super::metal_layout::struct_shape(structs, pointee)?
    } else {
        super::BufferShape::new("Metal's layout rules")
    };
    shape.element_stride = Some(size.checked_next_multiple_of(align)?);
    Some(shape)
}

/// The struct of `structs` that type `ty` names, if any.
fn struct_of<'s>(
    structs: &'s [(String, Vec<(String, String)>)],
    ty: &str,
) -> Option<&'s [(String, String)]> {
    structs
        .iter()
        .find(|(name, _)| {
            ty.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == name)
        })
        .map(|(_, fields)| fields.as_slice())
}

/// The array type that `ty` wraps when `ty` is one of Slang's array wrappers inside argument
/// buffers: a struct named `_Array_...` whose one member, `data_N`, is an `array<...>`.
fn array_wrapped<'s>(structs: &'s [(String, Vec<(String, String)>)], ty: &str) -> Option<&'s str> {
    let word = ty.trim().trim_start_matches("const ").trim();
    let name = word
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()?;
    if !name.starts_with("_Array_") || word.len() != name.len() {
        return None;
    }
    match struct_of(structs, name)? {
        [(inner, field)] if inner.starts_with("array<") && strip_suffix(field) == "data" => {
            Some(inner)
        }
        _ => None,
    }
}

/// The parameters of function `entry_name` (the one marked `[[kernel]]`, `[[vertex]]` or
/// `[[fragment]]` when several are), split at top-level commas; `None` without such a function.
fn entry_parameters<'t>(text: &'t str, entry_name: &str) -> Option<Vec<&'t str>> {
    let call = format!("{entry_name}(");
    let starts = text.match_indices(&call).map(|(at, _)| at).filter(|&at| {
        // A whole identifier, not the tail of a longer one.
        text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
    });
    let marked = |at: &usize| {
        let line = &text[text[..*at].rfind('\n').map_or(0, |n| n + 1)..*at];
        ["[[kernel]]", "[[vertex]]", "[[fragment]]"]
            .iter()
            .any(|m| line.contains(m))
    };
    let candidates: Vec<usize> = starts.collect();
    let at = candidates
        .iter()
        .copied()
        .find(marked)
        .or_else(|| candidates.first().copied())?;
    let open = at + call.len();
    let (mut depth, mut from, mut out) = (0i32, open, Vec::new());
    for (i, c) in text[open..].char_indices() {
        let i = open + i;
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' if depth == 0 => {
                out.push(&text[from..i]);
                return Some(out.into_iter().filter(|p| !p.trim().is_empty()).collect());
            }
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// A parameter (`array<uint device*, int(3)> gTables_1`) that is a resource — a pointer, a
/// texture, a sampler, or an array of them — and has no attribute: (its type, its name).
fn unbound_resource(param: &str) -> Option<(&str, &str)> {
    let param = param.trim();
    if param.contains("[[") {
        return None;
    }
    let (ty, name) = param.rsplit_once(|c: char| c.is_whitespace() || c == '*' || c == '&')?;
    let ty = param[..ty.len() + 1].trim();
    let resource = ty.contains('*')
        || ["texture", "depth", "sampler"]
            .iter()
            .any(|w| ty.contains(w));
    resource.then_some((ty, name.trim()))
}

/// Whether a bind-view path and a code path (Slang's names joined by `.`) name the same
/// parameter: Slang flattens nothing inside argument buffers, so they are equal.
pub(crate) fn same_path(path: &str, code_path: &str) -> bool {
    path == code_path
}

/// Every struct of `text`: (name, the text between its braces).
fn struct_bodies(text: &str) -> impl Iterator<Item = (String, &str)> {
    let mut from = 0;
    std::iter::from_fn(move || loop {
        let at = from + text[from..].find("struct ")?;
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
        if open < close && !name.is_empty() {
            return Some((name, &rest[open + 1..close]));
        }
    })
}

/// Every struct of `text`: (name, [(member type, member name)]).
pub(crate) fn structs(text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    for (name, body) in struct_bodies(text) {
        let fields = body
            .split(';')
            .filter_map(|decl| {
                // A member's attribute (`[[id(n)]]`) is not part of its type or name.
                let decl = decl.find("[[").map_or(decl, |at| &decl[..at]).trim();
                let (ty, field) = decl.rsplit_once(|c: char| c.is_whitespace() || c == '*')?;
                // A C array declarator (`x[int(3)]`) goes onto the type: `float [int(3)]`.
                let (field, dims) = field.split_at(field.find('[').unwrap_or(field.len()));
                Some((format!("{ty} {dims}"), field.trim().to_string()))
            })
            .collect();
        out.push((name, fields));
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Metal shaped as Slang 2026.12 emits it: an argument buffer holding a texture and an
    /// array of buffers (wrapped in an `_Array_` struct), and an entry point whose
    /// parameters carry attributes.
    const ARGUMENT_BUFFER: &str = "struct _Array_default_SB3_0\n{\n    array<uint device*, int(3)> data_0;\n};\nstruct Tables_default_0\n{\n    float4 color_0;\n    texture2d<float, access::sample> t_0;\n    _Array_default_SB3_0 tables_0;\n};\n[[kernel]] void main_0(uint device* gOut_1 [[buffer(1)]], Tables_default_0 constant* gTables_1 [[buffer(0)]], uint3 tid_0 [[thread_position_in_grid]])\n{\n}\n";

    fn names(found: &[CodeBinding]) -> Vec<(&str, u32, u8)> {
        found
            .iter()
            .map(|b| (b.name.as_str(), b.index, b.register_class))
            .collect()
    }

    #[test]
    fn arrays_in_argument_buffers_keep_the_path_of_their_wrapping_member() {
        let found = check(ARGUMENT_BUFFER, "main_0", &|_| None).unwrap();
        assert_eq!(
            names(&found),
            [
                ("gOut_1", 1, b'b'),
                ("gTables_1", 0, b'b'),
                ("gTables.t", ABSENT, 0),
                ("gTables.tables", ABSENT, 0),
            ]
        );
    }

    #[test]
    fn a_resource_parameter_without_an_attribute_fails_naming_it_and_its_layout_place() {
        let text = ARGUMENT_BUFFER.replace(
            "uint3 tid_0",
            "array<uint device*, int(3)> gLoose_1, uint3 tid_0",
        );
        let e = check(&text, "main_0", &|path| {
            (path == "gLoose").then(|| "[[buffer(5)]]".to_string())
        })
        .unwrap_err();
        assert!(
            e.contains("parameter `gLoose_1` (`array<uint device*, int(3)>`) has no"),
            "{e}"
        );
        assert!(e.contains("places `gLoose` at [[buffer(5)]]"), "{e}");
        assert!(e.contains("put the array in a ParameterBlock"), "{e}");
        // A lone pointer without an attribute fails too (Metal would place it itself).
        let text = ARGUMENT_BUFFER.replace("uint3 tid_0", "float device* gLone_1, uint3 tid_0");
        let e = check(&text, "main_0", &|_| None).unwrap_err();
        assert!(e.contains("`gLone_1` (`float device*`)"), "{e}");
        assert!(e.contains("gives it no place"), "{e}");
        assert!(!e.contains("ParameterBlock"), "{e}");
    }

    #[test]
    fn overlapping_ids_in_one_argument_buffer_are_refused_naming_both() {
        let slot = |path: &str, space: u32, index: u32, count: u32| Slot {
            path: path.into(),
            kind: TargetBindingKind::StorageBuffer,
            space,
            index,
            register_class: 0,
            count,
            flags: 0,
            min_binding_size: 4,
            view_dimension: 0,
            sample_type: 0,
            format: 0,
            layout: None,
        };
        // Ids 0..3 and 3: apart; the same ids in another argument buffer: apart.
        let apart = [
            slot("b.tables", 0, 0, 3),
            slot("b.x", 0, 3, 1),
            slot("c.y", 1, 0, 1),
        ];
        assert_eq!(overlapping_ids(&apart), None);
        let e = overlapping_ids(&[slot("b.tables", 0, 0, 3), slot("b.lights", 0, 2, 2)]).unwrap();
        assert!(
            e.contains("`b.tables` [[id(0)]] and `b.lights` [[id(2)]] of argument buffer 0"),
            "{e}"
        );
    }

    #[test]
    fn argument_buffer_structs_lay_resources_out_as_8_byte_ids_and_number_them_as_metal_does() {
        use slangpack_format::ArgumentMemberKind as K;
        let row = |m: &super::super::metal_layout::ArgumentMember| {
            (
                m.path.clone(),
                m.kind,
                m.offset,
                m.size,
                m.count,
                m.stride,
                m.id,
            )
        };
        let found = argument_structs(ARGUMENT_BUFFER, "main_0");
        // A uniform buffer is listed too (the bind view says which are argument buffers).
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["gTables_1"]);
        let tables = &found[0].1;
        assert_eq!((tables.size, tables.alignment), (48, 16));
        let rows: Vec<_> = tables.members.iter().map(row).collect();
        assert_eq!(
            rows,
            [
                ("color".into(), K::Data, 0, 16, 0, 0, 0),
                ("t".into(), K::Texture, 16, 8, 0, 0, 1),
                ("tables".into(), K::Buffer, 24, 24, 3, 8, 2),
            ]
        );
        // An explicit `[[id(n)]]` is the member's id, and the ones after it follow it; a
        // nested argument buffer (a `constant` pointer to a struct) is listed by its path.
        let text = ARGUMENT_BUFFER
            .replace("access::sample> t_0;", "access::sample> t_0 [[id(5)]];")
            .replace(
                "struct Tables_default_0\n{\n",
                "struct Inner_0\n{\n    sampler s_0;\n};\nstruct Tables_default_0\n{\n    Inner_0 constant* inner_0;\n",
            );
        let found = argument_structs(&text, "main_0");
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["gTables.inner", "gTables_1"]);
        let tables = &found[1].1;
        let t = tables.members.iter().find(|m| m.path == "t").unwrap();
        // After the 8-byte pointer, the float4 at 16 and the texture at 32.
        assert_eq!((t.offset, t.id, t.explicit_id), (32, 5, true));
        let after = tables.members.iter().find(|m| m.path == "tables").unwrap();
        assert_eq!((after.id, after.explicit_id), (6, false));
        let inner = &found[0].1.members[0];
        assert_eq!((inner.kind, inner.offset, inner.id), (K::Sampler, 0, 0));
    }

    #[test]
    fn a_missing_entry_function_and_a_struct_not_wrapping_an_array_are_told_apart() {
        let e = check(ARGUMENT_BUFFER, "main_1", &|_| None).unwrap_err();
        assert!(e.contains("no function `main_1`"), "{e}");
        // A struct named like a wrapper whose member is not `data_N` is an ordinary struct:
        // its members keep their own names in the path.
        let text = ARGUMENT_BUFFER.replace("data_0", "rows_0");
        let found = check(&text, "main_0", &|_| None).unwrap();
        assert!(
            names(&found).contains(&("gTables.tables.rows", ABSENT, 0)),
            "{:?}",
            names(&found)
        );
    }
}

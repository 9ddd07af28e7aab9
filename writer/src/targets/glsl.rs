//! GLSL: compiled to SPIR-V by glslang (`glslangValidator`), reflected by `spirv-cross`;
//! every resource's set and binding, and every buffer's member offsets and strides.

use super::walk::Slot;
use super::{glslang_stage, run_tool, strip_suffix, BufferShape, CodeBinding, CodeMember};
use serde_json::Value;
use slangpack_format::bind::{DescriptorBinding, BINDING_DESCRIPTOR_HEAP};
use slangpack_format::vk::DescriptorKind;
use slangpack_format::TargetBindingKind;

/// The resource lists of `spirv-cross --reflect` that hold descriptor bindings.
const RESOURCE_LISTS: [&str; 8] = [
    "ubos",
    "ssbos",
    "textures",
    "separate_images",
    "separate_samplers",
    "images",
    "acceleration_structures",
    "subpass_inputs",
];

/// Compiles `text` (a shader of raw `SlangStage` `stage`) and returns its bindings.
///
/// Where the checking tools lack what the code uses (glslang older than an extension the code
/// requires; spirv-cross refusing glslang's SPIR-V), the bindings come from the text's
/// `layout(set = .., binding = ..)` qualifiers instead, without member layouts, and `skipped`
/// is told which check was skipped and why: a tool's limit does not refuse the code. Any
/// other glslang error is the code's and fails the check.
pub(crate) fn check(
    text: &str,
    stage: u32,
    skipped: &mut dyn FnMut(String),
) -> Result<Vec<CodeBinding>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let stage = glslang_stage(stage);
    let source = dir.path().join(format!("shader.{stage}"));
    let spirv = dir.path().join("shader.spv");
    std::fs::write(&source, text).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    let compiled = run_tool(
        "glslangValidator",
        "glslang-tools",
        &[
            "-V".as_ref(),
            "--target-env".as_ref(),
            "vulkan1.2".as_ref(),
            "-S".as_ref(),
            stage.as_ref(),
            "-o".as_ref(),
            spirv.as_os_str(),
            source.as_os_str(),
        ],
    );
    if let Err(message) = compiled {
        let Some(extensions) = unknown_extensions(&message) else {
            return Err(message);
        };
        skipped(format!(
            "glslang here does not know {extensions}, which the GLSL requires: its compile and \
             spirv-cross's member layouts were skipped; sets and bindings checked from the text"
        ));
        return text_bindings(text);
    }
    let json = match run_tool(
        "spirv-cross",
        "spirv-cross",
        &[spirv.as_os_str(), "--reflect".as_ref()],
    ) {
        Ok(json) => json,
        Err(message) => {
            let first = message.lines().nth(1).unwrap_or(&message).trim();
            skipped(format!(
                "spirv-cross could not reflect glslang's SPIR-V ({first}): its member layouts \
                 were skipped; sets and bindings checked from the text"
            ));
            return text_bindings(text);
        }
    };
    bindings(&json)
}

/// The extensions glslang's `message` says it does not support (`'#extension' : extension
/// not supported: NAME`), when those are its only errors besides the ones that follow from
/// them; `None` when glslang rejected the code for anything else.
fn unknown_extensions(message: &str) -> Option<String> {
    let mut names = Vec::new();
    for line in message.lines().filter(|l| l.starts_with("ERROR:")) {
        if let Some((_, name)) = line.split_once("extension not supported:") {
            names.push(name.trim().to_string());
        } else if !(line.contains("'#extension' : extra tokens")
            || line.contains("compilation terminated")
            || line.contains("compilation errors")
            || line.contains("Linking")
            || line.contains("Missing entry point"))
        {
            return None;
        }
    }
    (!names.is_empty()).then(|| names.join(", "))
}

/// The descriptor bindings declared in GLSL `text`, from its `layout(...)` qualifiers: a
/// `binding` (and `set`, 0 when absent) followed by the declaration, named as spirv-cross
/// names them (a block by its block name, any other variable by its own). Push-constant and
/// input/output declarations have no binding and are passed over.
pub(crate) fn text_bindings(text: &str) -> Result<Vec<CodeBinding>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("layout(") {
        let after = &rest[at + "layout(".len()..];
        let close = after
            .find(')')
            .ok_or_else(|| "an unclosed `layout(` in the GLSL".to_string())?;
        let qualifiers = &after[..close];
        rest = &after[close + 1..];
        let number = |key: &str| {
            qualifiers.split(',').find_map(|q| {
                let (k, v) = q.split_once('=')?;
                (k.trim() == key).then(|| v.trim().parse::<u32>().ok())?
            })
        };
        let Some(binding) = number("binding") else {
            continue;
        };
        let set = number("set").unwrap_or(0);
        // The declaration: further `layout(...)` groups, then qualifiers and a type or block
        // name, up to `;` or a block's `{`.
        let mut decl = rest.trim_start();
        while let Some(more) = decl.strip_prefix("layout(") {
            decl = more.split_once(')').map_or("", |(_, d)| d).trim_start();
        }
        let end = decl.find([';', '{']).unwrap_or(decl.len());
        let words: Vec<&str> = decl[..end]
            .split(|c: char| c.is_whitespace() || c == '[')
            .filter(|w| !w.is_empty() && !w.ends_with(']'))
            .collect();
        let block = decl[end..].starts_with('{');
        let storage = words.contains(&"buffer");
        let (Some(ty), Some(name)) = (words.iter().rev().nth(usize::from(!block)), words.last())
        else {
            continue;
        };
        let kind = if block {
            Some(if storage {
                TargetBindingKind::StorageBuffer
            } else {
                TargetBindingKind::UniformBuffer
            })
        } else if *ty == "sampler" || *ty == "samplerShadow" {
            Some(TargetBindingKind::Sampler)
        } else if ty.starts_with("texture") || ty.starts_with("sampler") {
            Some(TargetBindingKind::Texture)
        } else if ty.starts_with("image") {
            Some(TargetBindingKind::StorageTexture)
        } else {
            None
        };
        out.push(CodeBinding {
            name: name.to_string(),
            space: set,
            index: binding,
            register_class: 0,
            facts: None,
            kind,
            uniform_size: None,
            layout: None,
        });
    }
    Ok(out)
}

/// The slots of the Vulkan bind view's descriptor heaps (`__slang_resource_heap`, which
/// Slang synthesizes while emitting SPIR-V and its layout does not list), `path` naming each
/// binding's path. Slang's GLSL declares a heap as unbounded arrays at the SPIR-V's set and
/// binding, one array per resource kind it indexes: a slot per kind, several at a mutable
/// binding (each of its descriptor types).
pub(crate) fn heap_slots<'b>(
    vulkan: impl IntoIterator<Item = &'b DescriptorBinding>,
    path: impl Fn(&DescriptorBinding) -> String,
) -> Vec<Slot> {
    let mut out = Vec::new();
    for b in vulkan
        .into_iter()
        .filter(|b| b.flags & BINDING_DESCRIPTOR_HEAP != 0)
    {
        let kinds: Vec<DescriptorKind> = match b.kind() {
            DescriptorKind::Mutable => b.mutable_kinds().collect(),
            kind => vec![kind],
        };
        for kind in kinds {
            let Some(kind) = heap_kind(kind) else {
                continue;
            };
            out.push(Slot {
                path: path(b),
                kind,
                space: b.set,
                index: b.binding,
                register_class: 0,
                count: 0,
                flags: 0,
                min_binding_size: 0,
                view_dimension: 0,
                sample_type: 0,
                format: 0,
                layout: None,
            });
        }
    }
    out
}

/// The GLSL declaration kind of a heap of Vulkan descriptors of `kind`.
fn heap_kind(kind: DescriptorKind) -> Option<TargetBindingKind> {
    Some(match kind {
        DescriptorKind::Sampler => TargetBindingKind::Sampler,
        DescriptorKind::SampledImage
        | DescriptorKind::CombinedImageSampler
        | DescriptorKind::UniformTexelBuffer => TargetBindingKind::Texture,
        DescriptorKind::StorageImage | DescriptorKind::StorageTexelBuffer => {
            TargetBindingKind::StorageTexture
        }
        DescriptorKind::UniformBuffer => TargetBindingKind::UniformBuffer,
        DescriptorKind::StorageBuffer => TargetBindingKind::StorageBuffer,
        _ => return None,
    })
}

/// The descriptor bindings of a `spirv-cross --reflect` document.
pub(crate) fn bindings(json: &str) -> Result<Vec<CodeBinding>, String> {
    let doc: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("spirv-cross printed no JSON: {e}"))?;
    let types = doc.get("types");
    let mut out = Vec::new();
    for list in RESOURCE_LISTS {
        for r in doc
            .get(list)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            let number = |key: &str| r.get(key).and_then(serde_json::Value::as_u64);
            let (Some(set), Some(binding)) = (number("set"), number("binding")) else {
                continue;
            };
            out.push(CodeBinding {
                name: r
                    .get("name")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string(),
                space: set as u32,
                index: binding as u32,
                register_class: 0,
                facts: None,
                kind: match list {
                    "ubos" => Some(TargetBindingKind::UniformBuffer),
                    "ssbos" => Some(TargetBindingKind::StorageBuffer),
                    "textures" | "separate_images" => Some(TargetBindingKind::Texture),
                    "separate_samplers" => Some(TargetBindingKind::Sampler),
                    "images" => Some(TargetBindingKind::StorageTexture),
                    _ => None,
                },
                uniform_size: None,
                layout: match list {
                    "ubos" | "ssbos" => types.and_then(|t| block_layout(t, r, list == "ssbos")),
                    _ => None,
                },
            });
        }
    }
    Ok(out)
}

/// The member layout of a uniform or storage block `r` of a `spirv-cross --reflect` document
/// (`types`: its `types` object). A storage block whose one member is a runtime array
/// (Slang's structured buffer: `_data[]`) is laid out as that array's element.
fn block_layout(types: &Value, r: &Value, storage: bool) -> Option<BufferShape> {
    let mut shape = BufferShape::new("spirv-cross's");
    let mut ty = types.get(r.get("type")?.as_str()?)?;
    if storage {
        if let Some([only]) = ty
            .get("members")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            if array_dims(only).first() == Some(&0) {
                shape.element_stride = number(only, "array_stride");
                match types.get(only.get("type")?.as_str()?) {
                    Some(element) => ty = element,
                    None => return Some(shape),
                }
            }
        }
    }
    members(types, ty, "", 0, &mut shape);
    Some(shape)
}

/// Appends the members of struct type `ty` to `shape` (paths and offsets as the WGSL
/// checker's: Slang's names without `_N`, `[]` for an array element, offsets from `base`, 0
/// inside an element). Slang's `_MatrixStorage_*` / `_Array_*` wrappers (one member `data_N`,
/// an array) stand for the array they wrap.
fn members(types: &Value, ty: &Value, prefix: &str, base: u32, shape: &mut BufferShape) {
    let Some(fields) = ty.get("members").and_then(Value::as_array) else {
        return;
    };
    if shape.members.len() > 1 << 16 {
        return;
    }
    for m in fields {
        let name = m.get("name").and_then(Value::as_str).unwrap_or_default();
        let path = format!("{prefix}{}", strip_suffix(name));
        let offset = base + number(m, "offset").unwrap_or(0);
        let mut field = m;
        let mut field_type = m
            .get("type")
            .and_then(Value::as_str)
            .and_then(|t| types.get(t));
        if let Some(inner) = field_type.and_then(|t| wrapped(t)) {
            field = inner;
            field_type = inner
                .get("type")
                .and_then(Value::as_str)
                .and_then(|t| types.get(t));
        }
        let array = !array_dims(field).is_empty();
        let stride = number(field, "array_stride")
            .or_else(|| number(field, "matrix_stride"))
            .unwrap_or(0);
        shape.members.push(CodeMember {
            path: path.clone(),
            offset,
            size: None,
            stride,
        });
        if let Some(t) = field_type {
            match array {
                true => members(types, t, &format!("{path}[]."), 0, shape),
                false => members(types, t, &format!("{path}."), offset, shape),
            }
        }
    }
}

/// The one member (an array) of a Slang wrapper struct type `ty`, if it is one.
fn wrapped(ty: &Value) -> Option<&Value> {
    let name = ty.get("name")?.as_str()?;
    if !(name.starts_with("_Array_") || name.starts_with("_MatrixStorage_")) {
        return None;
    }
    match ty.get("members")?.as_array()?.as_slice() {
        [m] if number(m, "offset") == Some(0)
            && m.get("name")
                .and_then(Value::as_str)
                .map(strip_suffix)
                .as_deref()
                == Some("data")
            && !array_dims(m).is_empty() =>
        {
            Some(m)
        }
        _ => None,
    }
}

/// A member's array dimensions (0 for a runtime array), empty when not an array.
fn array_dims(m: &Value) -> Vec<u64> {
    m.get("array")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// A number field of a reflection object.
fn number(v: &Value, key: &str) -> Option<u32> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// glslang's own words (Debian's 12.0) for GLSL needing an extension it does not know,
    /// and for GLSL that is wrong (Slang's GLSL of a hull shader's patch-constant function).
    #[test]
    fn only_unknown_extensions_skip_the_compile() {
        let unknown = "ERROR: shader.comp:3: '#extension' : extension not supported: \
                       GL_EXT_maximal_reconvergence\nERROR: shader.comp:3: '#extension' : \
                       extra tokens -- expected newline \nERROR: shader.comp:3: '' : \
                       compilation terminated \nERROR: 3 compilation errors.  No code \
                       generated.\n\nERROR: Linking compute stage: Missing entry point: Each \
                       stage requires one entry point\n";
        assert_eq!(
            unknown_extensions(unknown).as_deref(),
            Some("GL_EXT_maximal_reconvergence")
        );
        let wrong = "ERROR: 0:95: 'return' : non-void function must return a value \n\
                     ERROR: 0:95: '' : compilation terminated \n";
        assert_eq!(unknown_extensions(wrong), None);
        let both = format!("{unknown}{wrong}");
        assert_eq!(unknown_extensions(&both), None);
    }

    #[test]
    fn text_bindings_read_sets_bindings_kinds_and_names() {
        let text = "layout(binding = 2)\nuniform texture2D  heap_0[];\n\
                    layout(std430, binding = 0, set = 1) buffer Block_0 {\n uint _data[];\n} gOut_0;\n\
                    layout(push_constant)\nlayout(std140) uniform P_0 { float x; } p_0;\n\
                    layout(binding = 1, set = 3)\nlayout(rgba8)\nuniform image2D gImage_0;\n\
                    layout(location = 0) in vec4 v;\n";
        let found: Vec<_> = text_bindings(text)
            .unwrap()
            .into_iter()
            .map(|b| (b.space, b.index, b.kind, b.name))
            .collect();
        assert_eq!(
            found,
            [
                (0, 2, Some(TargetBindingKind::Texture), "heap_0".to_string()),
                (
                    1,
                    0,
                    Some(TargetBindingKind::StorageBuffer),
                    "Block_0".to_string()
                ),
                (
                    3,
                    1,
                    Some(TargetBindingKind::StorageTexture),
                    "gImage_0".to_string()
                ),
            ]
        );
    }
}

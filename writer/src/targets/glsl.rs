//! GLSL: compiled to SPIR-V by glslang (`glslangValidator`), reflected by `spirv-cross`;
//! every resource's set and binding, and every buffer's member offsets and strides.

use super::{glslang_stage, run_tool, strip_suffix, BufferShape, CodeBinding, CodeMember};
use serde_json::Value;

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
pub(crate) fn check(text: &str, stage: u32) -> Result<Vec<CodeBinding>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let stage = glslang_stage(stage);
    let source = dir.path().join(format!("shader.{stage}"));
    let spirv = dir.path().join("shader.spv");
    std::fs::write(&source, text).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    run_tool(
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
    )?;
    let json = run_tool(
        "spirv-cross",
        "spirv-cross",
        &[spirv.as_os_str(), "--reflect".as_ref()],
    )?;
    bindings(&json)
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

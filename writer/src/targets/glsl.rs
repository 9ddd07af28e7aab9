//! GLSL: compiled to SPIR-V by glslang (`glslangValidator`), reflected by `spirv-cross`;
//! every resource's set and binding.

use super::{glslang_stage, run_tool, CodeBinding};

/// The resource lists of `spirv-cross --reflect` that hold descriptor bindings.
const RESOURCE_LISTS: [&str; 7] = [
    "ubos",
    "ssbos",
    "textures",
    "separate_images",
    "separate_samplers",
    "images",
    "acceleration_structures",
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
            });
        }
    }
    Ok(out)
}

//! HLSL: every `register(...)` annotation parsed from the text, and each constant buffer
//! sized from the text by HLSL's packing rules ([`super::hlsl_layout`]). Those are the facts
//! the HLSL bind view states. The text is not compiled here: the HLSL compilers that judge
//! Slang's HLSL (dxc, fxc) are not on this platform, and glslang's HLSL front end, which once
//! compiled it as a check, refuses valid code (methods on elements of buffer arrays, SM 6.6
//! descriptor heaps, DXR types), which made the bake refuse programs for a limit of the tool.

use super::CodeBinding;

/// Parses the register annotations of `text` and checks that it defines entry point
/// `entry_name`.
pub(crate) fn check(text: &str, entry_name: &str) -> Result<Vec<CodeBinding>, String> {
    let bindings = registers(text)?;
    if !text.contains(&format!("{entry_name}(")) {
        return Err(format!("the HLSL has no function `{entry_name}`"));
    }
    Ok(bindings)
}

/// Every `NAME ... : register(CLASS INDEX [, spaceN])` of `text`.
pub(crate) fn registers(text: &str) -> Result<Vec<CodeBinding>, String> {
    let structs = super::metal::structs(text);
    let mut out = Vec::new();
    let mut rest = text;
    let mut consumed = 0;
    while let Some(at) = rest.find("register(") {
        let before = &text[..consumed + at];
        let after = &rest[at + "register(".len()..];
        let close = after
            .find(')')
            .ok_or_else(|| format!("unclosed register( at byte {}", consumed + at))?;
        let args = &after[..close];
        let mut parts = args.split(',').map(str::trim);
        let reg = parts.next().unwrap_or_default();
        let class = reg.bytes().next().unwrap_or(0).to_ascii_lowercase();
        let index: u32 = reg
            .get(1..)
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("register({args}): no register class and number"))?;
        let space: u32 = match parts.next() {
            Some(s) => s
                .strip_prefix("space")
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("register({args}): bad space"))?,
            None => 0,
        };
        out.push(CodeBinding {
            name: declared_name(before),
            space,
            index,
            register_class: class,
            facts: None,
            kind: None,
            // A constant buffer's size by HLSL's packing rules, compared with the bind view's.
            uniform_size: (class == b'b')
                .then(|| super::hlsl_layout::cbuffer_size(text, &structs, consumed + at))
                .flatten(),
            // Every member's offset, size and stride by the same rules, compared with Slang's
            // HLSL layout member by member.
            // A structured buffer's element by HLSL's structured-buffer rules.
            layout: match class {
                b'b' => super::hlsl_layout::cbuffer_shape(text, &structs, consumed + at),
                b't' | b'u' => super::hlsl_layout::structured_shape(text, &structs, consumed + at),
                _ => None,
            },
        });
        consumed += at + "register(".len() + close;
        rest = &text[consumed..];
    }
    Ok(out)
}

/// The identifier declared just before a `: register(` / `[[...]]` annotation: the last
/// identifier before the colon, skipping array brackets.
pub(crate) fn declared_name(before: &str) -> String {
    let head = before.trim_end().trim_end_matches(':').trim_end();
    let head = match head.strip_suffix(']') {
        Some(h) => h.rsplit_once('[').map_or(h, |(a, _)| a).trim_end(),
        None => head,
    };
    head.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_buffers_are_sized_by_hlsl_packing() {
        // proof_blocks' Material as Slang writes it for HLSL: the array of 60-byte structs
        // takes 64 + 60 bytes from offset 32, so the buffer is 156 bytes (std140: 192).
        let text = "#pragma pack_matrix(row_major)\nstruct _MatrixStorage_float2x3_ColMajornatural_0\n{\n    float2  data_0[int(3)];\n};\nstruct Surface_natural_0\n{\n    float4 tint_0;\n    _MatrixStorage_float2x3_ColMajornatural_0 uvTransform_0;\n    uint layer_0;\n};\nstruct Material_natural_0\n{\n    float4 baseColor_0;\n    float roughness_0;\n    uint2 ids_0;\n    Surface_natural_0  surfaces_0[int(2)];\n};\ncbuffer gScene_material_0 : register(b2)\n{\n    Material_natural_0 gScene_material_0;\n}\nTexture2D<float4 > gTex_0 : register(t0);\n";
        let found = registers(text).unwrap();
        let sizes: Vec<Option<u32>> = found.iter().map(|b| b.uniform_size).collect();
        assert_eq!(sizes, [Some(156), None]);
    }

    #[test]
    fn registers_are_parsed() {
        let text = "cbuffer gParams_0 : register(b0)\n{\n};\nTexture2D<float4 > gTex_0[4] : register(t2, space1);\nSamplerState s_0 : register(s3);";
        let found = registers(text).unwrap();
        let got: Vec<(String, u8, u32, u32)> = found
            .into_iter()
            .map(|b| (b.name, b.register_class, b.index, b.space))
            .collect();
        assert_eq!(
            got,
            vec![
                ("gParams_0".into(), b'b', 0, 0),
                ("gTex_0".into(), b't', 2, 1),
                ("s_0".into(), b's', 3, 0),
            ]
        );
    }
}

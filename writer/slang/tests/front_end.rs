//! The front end against the real Slang compiler: sessions, modules, diagnostics, linking,
//! code generation and the reflection wrappers, each checked against what the source says
//! or against the SPIR-V Slang emitted.

use slangpack_slang::com::{self, Component, Module, Session};
use slangpack_slang::reflection::CATEGORY_UNIFORM;
use slangpack_slang::session::{GlobalSession, SessionOptions};

/// `SLANG_STAGE_VERTEX` and `SLANG_STAGE_COMPUTE`.
const STAGE_VERTEX: u32 = 1;
const STAGE_COMPUTE: u32 = 6;

const SOURCE: &str = r#"
struct Material { float4 albedo; float roughness; uint flags; };
ConstantBuffer<Material> gMaterial;
Texture2D gTex;
SamplerState gSampler;
RWStructuredBuffer<uint> gOut;

[shader("compute")]
[numthreads(8, 4, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    gOut[0] = getStringHash("front end");
    gOut[id.x + 1] = uint(gMaterial.albedo.x * gTex.SampleLevel(gSampler, float2(0, 0), 0).x)
        + gMaterial.flags;
}

float4 unmarked(float4 position : POSITION) : SV_Position
{
    return position * gMaterial.roughness;
}
"#;

/// A session with one SPIR-V target.
fn session(global: &GlobalSession) -> Session {
    global
        .session(&SessionOptions::default())
        .expect("a SPIR-V session")
}

fn module(session: &Session) -> Module {
    let (module, warnings) = session
        .load_module_from_source("front_end", "front_end.slang", SOURCE)
        .expect("the test module compiles");
    assert!(!warnings.contains("error"), "{warnings}");
    module
}

/// The module's `main` entry point, composed and linked.
fn linked(session: &Session, module: &Module) -> Component {
    let entries = module.defined_entry_points();
    assert_eq!(entries.len(), 1, "only `main` carries [shader(...)]");
    let (composed, _) = session
        .composite(&[&module.component(), &entries[0]])
        .expect("composes");
    composed.link().expect("links").0
}

/// The SPIR-V words of `bytes`.
fn words(bytes: &[u8]) -> Vec<u32> {
    assert_eq!(bytes.len() % 4, 0);
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

#[test]
fn a_module_compiles_links_and_emits_spirv_whose_constants_match_slangs_string_hash() {
    let global = GlobalSession::new().expect("a global session");
    let session = session(&global);
    let module = module(&session);
    let program = linked(&session, &module);
    let (code, _) = program.entry_point_code(0, 0).expect("SPIR-V");
    let words = words(&code);
    assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
    // `getStringHash("front end")` is folded into an `OpConstant` of the hash.
    let hash = com::string_hash("front end");
    assert_ne!(hash, com::string_hash("front-end"));
    let mut at = 5;
    let mut found = false;
    while at < words.len() {
        let (len, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        assert!(len > 0);
        // OpConstant: result type, result id, value.
        found |= op == 43 && len == 4 && words[at + 3] == hash;
        at += len;
    }
    assert!(found, "no OpConstant {hash:#x} in the SPIR-V");
    let layout = program.layout(0).expect("a layout");
    let hashed = layout.hashed_strings();
    assert_eq!(hashed, ["front end"]);
}

#[test]
fn the_reflection_wrappers_read_the_program_the_source_declares() {
    let global = GlobalSession::new().expect("a global session");
    let session = session(&global);
    let module = module(&session);
    let linked = linked(&session, &module);
    let program = linked.layout(0).expect("a layout");

    let names: Vec<String> = (0..program.parameter_count())
        .filter_map(|i| program.parameter(i)?.variable()?.name())
        .collect();
    assert_eq!(names, ["gMaterial", "gTex", "gSampler", "gOut"]);

    let entry = program.entry_point(0).expect("main");
    assert_eq!(entry.name().as_deref(), Some("main"));
    assert_eq!(entry.thread_group_size(), [8, 4, 1]);
    assert_eq!(program.entry_point(1).map(|e| e.key()), None);

    // gMaterial's element: roughness after a float4, flags after it.
    let material = program
        .parameter(0)
        .and_then(|p| p.type_layout())
        .expect("layout");
    let element = material
        .element_type_layout()
        .expect("the constant buffer's element");
    let offsets: Vec<(String, usize)> = element
        .fields()
        .into_iter()
        .map(|f| {
            let name = f.variable().and_then(|v| v.name()).unwrap_or_default();
            (name, f.offset(CATEGORY_UNIFORM))
        })
        .collect();
    assert_eq!(
        offsets,
        [
            ("albedo".to_string(), 0),
            ("roughness".to_string(), 16),
            ("flags".to_string(), 20)
        ]
    );
    // Bindings in declaration order, all in space 0 (nothing is shifted).
    let bindings: Vec<(u32, u32)> = (0..program.parameter_count())
        .filter_map(|i| program.parameter(i))
        .map(|p| (p.binding_space(), p.binding_index()))
        .collect();
    assert_eq!(bindings, [(0, 0), (0, 1), (0, 2), (0, 3)]);
}

#[test]
fn a_function_without_an_attribute_becomes_an_entry_point_when_asked_for() {
    let global = GlobalSession::new().expect("a global session");
    let session = session(&global);
    let module = module(&session);
    let (entry, _) = module
        .find_and_check_entry_point("unmarked", STAGE_VERTEX)
        .expect("Slang checks `unmarked` as a vertex entry point");
    let (composed, _) = session
        .composite(&[&module.component(), &entry])
        .expect("composes");
    let (program, _) = composed.link().expect("links");
    let layout = program.layout(0).expect("a layout");
    let entry = layout.entry_point(0).expect("unmarked");
    assert_eq!(entry.name().as_deref(), Some("unmarked"));
    assert_eq!(entry.stage(), STAGE_VERTEX);

    let missing = module.find_and_check_entry_point("absent", STAGE_COMPUTE);
    let failure = missing.expect_err("no such function");
    assert!(
        failure.code < 0,
        "Slang's own failure code, got {}",
        failure.code
    );
}

#[test]
fn a_module_that_does_not_compile_fails_with_slangs_diagnostics_verbatim() {
    let global = GlobalSession::new().expect("a global session");
    let session = session(&global);
    let broken = "[shader(\"compute\")][numthreads(1,1,1)] void main() { undefinedThing = 1; }";
    let failure = session
        .load_module_from_source("broken", "broken_input.slang", broken)
        .expect_err("an undefined identifier is an error");
    assert!(
        failure.diagnostics.contains("broken_input.slang")
            && failure.diagnostics.contains("undefinedThing"),
        "{}",
        failure.diagnostics
    );
    let nul = session
        .load_module_from_source("nul", "nul.slang", "float x;\0")
        .expect_err("a NUL byte cannot cross into C");
    assert_eq!(nul.code, 0);
    assert!(nul.diagnostics.contains("NUL"), "{}", nul.diagnostics);
}

#[test]
fn the_build_tag_is_read_without_a_global_session() {
    let tag = com::build_tag();
    assert!(tag.bytes().any(|b| b.is_ascii_digit()), "{tag:?}");
}

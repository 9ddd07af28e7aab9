//! `slangpack diff`, `header` and `merge`, and the build-script builder, run against real
//! baked packages (the real binary and the real Slang compiler).

use slangpack_reader::Package;
mod common;

use common::{examples, s, slangpack, text, write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Bakes `inputs` (with extra arguments) into `out`, asserting success.
fn bake(inputs: &[&Path], extra: &[&str], out: &Path) {
    let mut args = vec!["bake"];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(["-o", s(out), "-j", "2", "--force"]);
    args.extend(extra);
    let result = slangpack(&args);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
}

/// A shader exercising every layout rule the headers handle: matrices of both majors with
/// padded vectors, `float3` followed by a `float`, scalar and vector arrays with a 16-byte
/// stride, arrays of structs holding nested structs, 16- and 64-bit scalars in a
/// structured buffer, and a push-constant block.
const LAYOUTS: &str = r#"
struct Inner
{
    float3 position;
    float weight;
    float2 uv;
};

struct Element
{
    float4 color;
    Inner inner;
    float3 direction;
};

struct Params
{
    row_major float3x3 rotationRow;
    column_major float3x3 rotationColumn;
    row_major float2x3 skewRow;
    column_major float2x3 skewColumn;
    column_major float4x4 projection;
    float3 padded;
    float afterPadded;
    float scalars[4];
    float3 directions[2];
    Element elements[2];
    Inner single;
    uint flags;
    int2 offsets[3];
    row_major float4x3 bones[2];
    float tail;
};

ConstantBuffer<Params> gParams;

struct Particle
{
    float3 position;
    float life;
    Inner inner;
    float3 velocities[2];
    column_major float3x3 basis;
    uint16_t id16;
    half h;
    double d;
};

RWStructuredBuffer<Particle> gParticles;

struct Push
{
    float2 scale;
    float3 tint;
    uint index;
};
[[vk::push_constant]] ConstantBuffer<Push> gPush;

[shader("compute")]
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID)
{
    Particle p = gParticles[tid.x];
    p.position = mul(gParams.rotationRow, p.position)
        + mul(gParams.rotationColumn, gParams.padded) * gParams.afterPadded;
    p.life += gParams.scalars[tid.x & 3] + gParams.directions[tid.x & 1].x
        + gParams.elements[tid.x & 1].inner.weight + gParams.single.uv.x + float(gParams.flags)
        + float(gParams.offsets[tid.x % 3].y) + gParams.tail;
    p.position += float3(mul(gParams.skewRow, p.position), 0)
        + float3(mul(gParams.skewColumn, p.position), 0)
        + mul(gParams.projection, float4(p.position, 1)).xyz
        + mul(float4(1, 2, 3, 4), gParams.bones[tid.x & 1]) + gParams.elements[0].direction
        + gParams.elements[1].color.rgb;
    p.life += gPush.scale.x + gPush.tint.y + float(gPush.index) + float(p.id16) + float(p.h)
        + float(p.d) + p.inner.weight + p.velocities[1].x + p.basis[0].x;
    gParticles[tid.x] = p;
}
"#;

/// Version 1 of a material whose layout version 2 changes (see the diff test).
const MATERIAL_V1: &str = r#"
struct Material
{
    float4 baseColor;
    float roughness;
    float metallic;
    float2 uvScale;
};
ConstantBuffer<Material> gMaterial;
Texture2D gAlbedo;
Texture2D gNormal;
SamplerState gSampler;

[shader("fragment")]
float4 main(float2 uv : TEXCOORD0) : SV_Target
{
    float4 n = gNormal.Sample(gSampler, uv);
    return gAlbedo.Sample(gSampler, uv * gMaterial.uvScale) * gMaterial.baseColor
        * gMaterial.roughness * gMaterial.metallic + n;
}
"#;

/// Version 2: `emissive` inserted before `roughness` (moves it and everything after it),
/// `metallic` removed, `gNormal` now a storage image, a new texture before the sampler (which
/// moves to another binding).
const MATERIAL_V2: &str = r#"
struct Material
{
    float4 baseColor;
    float3 emissive;
    float roughness;
    float2 uvScale;
};
ConstantBuffer<Material> gMaterial;
Texture2D gAlbedo;
RWTexture2D<float4> gNormal;
Texture2D gOcclusion;
SamplerState gSampler;

[shader("fragment")]
float4 main(float2 uv : TEXCOORD0) : SV_Target
{
    float4 n = gNormal[uint2(uv)];
    return gAlbedo.Sample(gSampler, uv * gMaterial.uvScale) * gMaterial.baseColor
        * gMaterial.roughness + float4(gMaterial.emissive, 0) + n
        + gOcclusion.Sample(gSampler, uv);
}
"#;

#[test]
fn diff_of_identical_layouts_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        dir.path().join("a.slangpack"),
        dir.path().join("b.slangpack"),
    );
    bake(&[&examples()], &[], &a);
    // A rebake with other optimisation: other SPIR-V, the same bindings and layouts.
    bake(&[&examples()], &["-O", "0"], &b);
    let result = slangpack(&["diff", s(&a), s(&b)]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stdout));
    assert!(text(&result.stdout).contains("bindings and layouts match"));
    let json = slangpack(&["diff", "--json", s(&a), s(&b)]);
    assert_eq!(json.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["identical"], true);
    assert_eq!(doc["differences"], serde_json::json!([]));
}

#[test]
fn diff_reports_binding_and_layout_changes_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = write(&dir.path().join("v1"), "material.slang", MATERIAL_V1);
    let v2 = write(&dir.path().join("v2"), "material.slang", MATERIAL_V2);
    write(&dir.path().join("v2"), "extra.slang", MATERIAL_V1);
    let (a, b) = (
        dir.path().join("a.slangpack"),
        dir.path().join("b.slangpack"),
    );
    bake(&[&v1], &[], &a);
    bake(&[&v2, &dir.path().join("v2/extra.slang")], &[], &b);

    let result = slangpack(&["diff", s(&a), s(&b)]);
    let out = text(&result.stdout);
    assert_eq!(
        result.status.code(),
        Some(1),
        "{out}{}",
        text(&result.stderr)
    );
    for expected in [
        "+ entry extra",
        "entry material",
        "~ binding gNormal kind: sampled_image -> storage_image",
        "~ binding gSampler set/binding: set 0 binding 3 -> set 0 binding 4",
        "+ binding gOcclusion (set 0 binding 3, sampled_image, count 1, fragment)",
        "~ buffer gMaterial size: 32 -> 48",
        "~ member gMaterial.roughness offset: 16 -> 28",
        "~ member gMaterial.uvScale offset: 24 -> 32",
        "- member gMaterial.metallic (offset 20, size 4, float)",
        "+ member gMaterial.emissive (offset 16, size 12, float3)",
    ] {
        assert!(out.contains(expected), "diff lacks {expected:?}:\n{out}");
    }
    assert!(out.contains("differences in bindings and layouts"), "{out}");

    // The other direction reports the mirror image.
    let back = text(&slangpack(&["diff", s(&b), s(&a)]).stdout);
    assert!(back.contains("- entry extra"), "{back}");
    assert!(
        back.contains("~ member gMaterial.roughness offset: 28 -> 16"),
        "{back}"
    );

    let json = slangpack(&["diff", "--json", s(&a), s(&b)]);
    assert_eq!(json.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["identical"], false);
    let moved = doc["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["subject"] == "member gMaterial.roughness")
        .unwrap();
    assert_eq!(moved["entry"], "material");
    assert_eq!(moved["change"], "changed");
    assert_eq!(moved["property"], "offset");
    assert_eq!(moved["before"], "16");
    assert_eq!(moved["after"], "28");
}

/// A raster program: push constants, vertex inputs, a specialization constant, two stages.
const RASTER_V1: &str = r#"
struct Draw
{
    float4x4 model;
    uint instanceBase;
};
[[vk::push_constant]] ConstantBuffer<Draw> gDraw;
[vk::constant_id(3)] const int kVariant = 2;

struct VertexIn
{
    float3 position : POSITION;
    float3 normal : NORMAL;
};

[shader("vertex")]
float4 vertexMain(VertexIn input) : SV_Position
{
    return mul(gDraw.model, float4(input.position + input.normal * float(kVariant), 1.0))
        + float(gDraw.instanceBase);
}

[shader("fragment")]
float4 fragmentMain() : SV_Target
{
    return float4(1, 0, 0, 1);
}
"#;

/// Version 2: a push-constant member more (the range grows), the normal a float4, the
/// specialization constant's id changed, the fragment entry point renamed.
const RASTER_V2: &str = r#"
struct Draw
{
    float4x4 model;
    uint instanceBase;
    float4 tint;
};
[[vk::push_constant]] ConstantBuffer<Draw> gDraw;
[vk::constant_id(5)] const int kVariant = 2;

struct VertexIn
{
    float3 position : POSITION;
    float4 normal : NORMAL;
};

[shader("vertex")]
float4 vertexMain(VertexIn input) : SV_Position
{
    return mul(gDraw.model, float4(input.position + input.normal.xyz * float(kVariant), 1.0))
        + float(gDraw.instanceBase) + gDraw.tint;
}

[shader("fragment")]
float4 shadeMain() : SV_Target
{
    return float4(1, 0, 0, 1);
}
"#;

#[test]
fn diff_reports_push_constant_vertex_input_entry_point_and_constant_changes() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = write(&dir.path().join("v1"), "raster.slang", RASTER_V1);
    let v2 = write(&dir.path().join("v2"), "raster.slang", RASTER_V2);
    let (a, b) = (
        dir.path().join("a.slangpack"),
        dir.path().join("b.slangpack"),
    );
    bake(&[&v1], &[], &a);
    bake(&[&v2], &[], &b);
    let result = slangpack(&["diff", s(&a), s(&b)]);
    let out = text(&result.stdout);
    assert_eq!(
        result.status.code(),
        Some(1),
        "{out}{}",
        text(&result.stderr)
    );
    for expected in [
        "- entry point fragmentMain (fragment)",
        "+ entry point shadeMain (fragment)",
        "~ push constants gDraw size: 68 -> 96",
        "~ buffer gDraw size: 80 -> 96",
        "+ member gDraw.tint (offset 80, size 16, float4)",
        "~ vertex input vertexMain location 1 format: r32g32b32_sfloat -> r32g32b32a32_sfloat",
        "~ specialization constant kVariant id: 3 -> 5",
    ] {
        assert!(out.contains(expected), "diff lacks {expected:?}:\n{out}");
    }
}

#[test]
fn diff_usage_errors_and_unreadable_packages_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.slangpack");
    bake(&[&examples().join("blur.slang")], &[], &a);
    assert_eq!(slangpack(&["diff", s(&a)]).status.code(), Some(2));
    let missing = dir.path().join("missing.slangpack");
    let result = slangpack(&["diff", s(&a), s(&missing)]);
    assert_eq!(result.status.code(), Some(2));
    assert!(text(&result.stderr).contains("missing.slangpack"));
    let garbage = write(dir.path(), "garbage.slangpack", "not a package");
    assert_eq!(
        slangpack(&["diff", s(&garbage), s(&a)]).status.code(),
        Some(2)
    );
}

/// A proc-macro crate named `bytemuck` whose `Pod` and `Zeroable` derives expand to nothing,
/// built in `dir`, as `--extern` arguments: the generated Rust derives them, and a bare
/// `rustc` has no registry crates (the real derives compile in
/// `tests/tests/vulkan_header_fill.rs`).
fn bytemuck_stub(dir: &Path) -> [String; 2] {
    let source = dir.join("bytemuck_stub.rs");
    std::fs::write(
        &source,
        "extern crate proc_macro;\nuse proc_macro::TokenStream;\n\
         #[proc_macro_derive(Pod)]\npub fn pod(_: TokenStream) -> TokenStream { TokenStream::new() }\n\
         #[proc_macro_derive(Zeroable)]\n\
         pub fn zeroable(_: TokenStream) -> TokenStream { TokenStream::new() }\n",
    )
    .unwrap();
    let built = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--crate-type", "proc-macro", "--edition", "2021"])
        .args(["--crate-name", "bytemuck", "--out-dir"])
        .arg(dir)
        .arg(&source)
        .output()
        .expect("rustc runs");
    assert!(built.status.success(), "{}", text(&built.stderr));
    let lib = dir.join(format!(
        "{}bytemuck{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    ["--extern".into(), format!("bytemuck={}", lib.display())]
}

/// Compiles generated Rust as a library with every warning an error.
fn compile_rust(source: &Path, out_dir: &Path) -> Output {
    Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--crate-type", "lib", "--edition", "2021", "-D", "warnings"])
        .args(bytemuck_stub(out_dir))
        .arg("--crate-name")
        .arg("bind_header")
        .arg("--out-dir")
        .arg(out_dir)
        .arg(source)
        .output()
        .expect("rustc runs")
}

/// Compiles a C or C++ file including `header`; `None` when the compiler is not installed.
fn compile_c(compiler: &str, std: &str, header: &Path, dir: &Path) -> Option<Output> {
    Command::new(compiler).arg("--version").output().ok()?;
    let ext = if compiler == "gcc" { "c" } else { "cpp" };
    let unit = dir.join(format!("unit_{ext}.{ext}"));
    std::fs::write(&unit, format!("#include \"{}\"\n", header.display())).unwrap();
    Some(
        Command::new(compiler)
            .args(["-c", std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-o"])
            .arg(dir.join(format!("unit_{ext}.o")))
            .arg(&unit)
            .output()
            .unwrap(),
    )
}

fn header(package: &Path, lang: &str, out: &Path) {
    let result = slangpack(&["header", s(package), "--lang", lang, "-o", s(out)]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
}

/// Generates, compiles and checks the headers of `package`; `facts` are lines the Rust
/// header must hold. Returns the Rust header.
fn headers_compile(package: &Path, dir: &Path, facts: &[&str]) -> String {
    let rs = dir.join("bind.rs");
    header(package, "rust", &rs);
    let rust = std::fs::read_to_string(&rs).unwrap();
    for fact in facts {
        assert!(
            rust.contains(fact),
            "the Rust header lacks {fact:?}:\n{rust}"
        );
    }
    let result = compile_rust(&rs, dir);
    assert!(
        result.status.success(),
        "generated Rust does not compile:\n{}\n{rust}",
        text(&result.stderr)
    );
    for (lang, compiler, std, file) in [
        ("c", "gcc", "-std=c11", "bind.h"),
        ("cpp", "g++", "-std=c++17", "bind.hpp"),
    ] {
        let path = dir.join(file);
        header(package, lang, &path);
        match compile_c(compiler, std, &path, dir) {
            Some(result) => assert!(
                result.status.success(),
                "generated {lang} does not compile:\n{}\n{}",
                text(&result.stderr),
                std::fs::read_to_string(&path).unwrap()
            ),
            None => {
                eprintln!("note: {compiler} is not installed; the {lang} header is not compiled")
            }
        }
    }
    rust
}

#[test]
fn headers_of_the_example_shaders_compile_in_rust_c_and_cpp() {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("ex.slangpack");
    bake(&[&examples()], &[], &package);
    let rust = headers_compile(
        &package,
        dir.path(),
        &[
            "pub mod pbr {",
            "pub mod layered_layered {",
            // pbr: the view data of the parameter block, with float3 + float sharing a slot.
            "pub struct GSceneView {",
            "pub cameraPosition: [f32; 3],",
            "const _: () = assert!(::core::mem::offset_of!(GSceneView, time) == 140);",
            "const _: () = assert!(::core::mem::size_of::<GScene>() == 176);",
            "pub const G_SCENE_MATERIAL_TEXTURES_ALBEDO_SET: u32 = 1;",
            "pub const G_SCENE_MATERIAL_TEXTURES_ALBEDO_BINDING: u32 = 1;",
            // The push-constant block: 68 bytes of members padded to 80; the range is the 68.
            "const _: () = assert!(::core::mem::size_of::<GDraw>() == 80);",
            "pub const G_DRAW_SIZE: u32 = 68;",
            // layered: an array of structs.
            "pub layers: [GLayeredLayers; 3],",
            "const _: () = assert!(::core::mem::size_of::<GLayeredLayers>() == 32);",
            // blur: structured-buffer elements.
            "pub struct GHistogram {",
        ],
    );
    // gWeights is a StructuredBuffer<float>: no struct, a note.
    assert!(rust.contains("`gWeights`"), "{rust}");
}

/// HLSL and Metal lay buffers out by rules of their own (since format 1.4 the package holds
/// those layouts, checked at bake time against the code): the header has a struct per target
/// buffer (`GParamsHlsl`, `GParamsMetal`) whose layout checks hold for that target's packing,
/// compiled in Rust, C and C++. `proof_uniforms`' `gParams` is 384 bytes for Vulkan, 348 for
/// HLSL (arrays and structs not padded to 16 bytes) and 320 for Metal.
#[test]
fn headers_have_structs_of_the_hlsl_and_metal_layouts_whose_checks_hold() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders");
    let package = dir.path().join("targets.slangpack");
    bake(
        &[
            &shaders.join("proof_uniforms.slang"),
            &shaders.join("proof_blocks.slang"),
        ],
        &["--target", "hlsl,metal"],
        &package,
    );
    let rust = headers_compile(
        &package,
        dir.path(),
        &[
            "const _: () = assert!(::core::mem::size_of::<GParams>() == 384);",
            "const _: () = assert!(::core::mem::size_of::<GParamsHlsl>() == 348);",
            "const _: () = assert!(::core::mem::size_of::<GParamsMetal>() == 320);",
            // HLSL packs `u` right after `v4`; its `float[3]` has 16-byte elements, the last
            // one unpadded (36 bytes), so it is bytes there.
            "const _: () = assert!(::core::mem::offset_of!(GParamsHlsl, u) == 16);",
            "pub scalars: [u8; 36],",
            // proof_blocks: the Metal code's `float3` takes 16 bytes.
            "const _: () = assert!(::core::mem::offset_of!(GSceneSunMetal, intensity) == 16);",
            "this header's `GParamsHlsl` struct has that layout",
        ],
    );
    // Every target struct's size is the size the reader gives for that target's buffer.
    let bytes = std::fs::read(&package).unwrap();
    let package = slangpack_reader::Package::from_bytes(&bytes).unwrap();
    let mut checked = 0;
    for key in ["proof_uniforms", "proof_blocks"] {
        let entry = package.load(key).unwrap();
        let bind = entry.bind();
        for target in [
            slangpack_format::Target::Hlsl,
            slangpack_format::Target::Metal,
        ] {
            let view = bind.target(target);
            for b in view.bindings() {
                // Structured buffers of scalars or vectors have an element stride and no
                // struct.
                let Some(own) = view
                    .buffer_layout(b)
                    .target_buffer()
                    .filter(|own| own.member_count > 0)
                else {
                    continue;
                };
                let path = view.path(b);
                if path.is_empty() || path.contains('.') {
                    continue;
                }
                let mut name: String = path[..1].to_uppercase();
                name.push_str(&path[1..]);
                let suffix = if target == slangpack_format::Target::Hlsl {
                    "Hlsl"
                } else {
                    "Metal"
                };
                let fact = format!(
                    "const _: () = assert!(::core::mem::size_of::<{name}{suffix}>() == {});",
                    own.stride.max(own.size)
                );
                assert!(rust.contains(&fact), "{fact}\n{rust}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 3, "{checked} target structs");
}

#[test]
fn headers_of_matrices_padding_and_nested_arrays_compile_and_their_checks_bite() {
    let dir = tempfile::tempdir().unwrap();
    let source = write(dir.path(), "layouts.slang", LAYOUTS);
    let package = dir.path().join("layouts.slangpack");
    bake(&[&source], &[], &package);
    let rust = headers_compile(
        &package,
        dir.path(),
        &[
            // Matrices: row vectors (row-major) or column vectors (column-major), each padded to
            // the 16-byte matrix stride.
            "pub rotationRow: [[f32; 4]; 3],",
            "pub rotationColumn: [[f32; 4]; 3],",
            "pub skewRow: [[f32; 4]; 2],",
            "pub skewColumn: [[f32; 4]; 3],",
            "pub bones: [[[f32; 4]; 4]; 2],",
            "Stored as 3 row vectors of 4 lanes (lane 3 is padding).",
            // float3 then float in one slot.
            "const _: () = assert!(::core::mem::offset_of!(GParams, afterPadded) == 252);",
            // Arrays with a stride larger than the element: padded element wrappers.
            "pub scalars: [GParamsScalarsElement; 4],",
            "const _: () = assert!(::core::mem::size_of::<GParamsScalarsElement>() == 16);",
            "pub directions: [GParamsDirectionsElement; 2],",
            "pub offsets: [GParamsOffsetsElement; 3],",
            // Arrays of structs with nested structs.
            "pub elements: [GParamsElements; 2],",
            "pub inner: GParamsElementsInner,",
            "const _: () = assert!(::core::mem::offset_of!(GParamsElements, direction) == 48);",
            "const _: () = assert!(::core::mem::offset_of!(GParams, single) == 480);",
            "const _: () = assert!(::core::mem::size_of::<GParams>() == 720);",
            // The structured-buffer element (std430): 16-bit values, a double after padding.
            "pub id16: u16,",
            "const _: () = assert!(::core::mem::offset_of!(GParticles, d) == 136);",
            "const _: () = assert!(::core::mem::size_of::<GParticles>() == 144);",
            // The push-constant block.
            "const _: () = assert!(::core::mem::offset_of!(GPush, tint) == 16);",
            "pub const G_PARTICLES_BINDING: u32 = 1;",
        ],
    );

    // The checks are live: a wrong offset or size fails to compile, in every language.
    let broken = dir.path().join("broken.rs");
    std::fs::write(
        &broken,
        rust.replace(
            "offset_of!(GParams, afterPadded) == 252",
            "offset_of!(GParams, afterPadded) == 256",
        ),
    )
    .unwrap();
    let result = compile_rust(&broken, dir.path());
    assert!(!result.status.success(), "a wrong offset compiled");
    let c = std::fs::read_to_string(dir.path().join("bind.h")).unwrap();
    let broken_c = dir.path().join("broken.h");
    std::fs::write(
        &broken_c,
        c.replace(
            "sizeof(layouts_GParams) == 720",
            "sizeof(layouts_GParams) == 724",
        ),
    )
    .unwrap();
    if let Some(result) = compile_c("gcc", "-std=c11", &broken_c, dir.path()) {
        assert!(!result.status.success(), "a wrong size compiled in C");
        assert!(text(&result.stderr).contains("layouts_GParams: size"));
    }

    // The generated struct's bytes are the shader's: a program writes them and the offsets
    // the package records hold the values.
    let main = dir.path().join("fill.rs");
    std::fs::write(
        &main,
        format!(
            "{rust}\nfn main() {{\n    let mut p = layouts::GParams::ZEROED;\n    \
             p.afterPadded = 2.5;\n    p.scalars[3].value = 7.0;\n    \
             p.elements[1].inner.weight = 3.0;\n    p.rotationColumn[2][1] = 9.0;\n    \
             p.tail = 1.5;\n    let mut bytes = Vec::new();\n    p.write_le_bytes(&mut bytes);\n    \
             std::fs::write(std::env::args().nth(1).unwrap(), bytes).unwrap();\n}}\n"
        ),
    )
    .unwrap();
    let exe = dir.path().join("fill");
    let built = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--edition", "2021", "-o"])
        .arg(&exe)
        .args(bytemuck_stub(dir.path()))
        .arg(&main)
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", text(&built.stderr));
    let bytes_path = dir.path().join("params.bin");
    assert!(Command::new(&exe)
        .arg(&bytes_path)
        .status()
        .unwrap()
        .success());
    let bytes = std::fs::read(&bytes_path).unwrap();
    let pkg = Package::open(&package).unwrap();
    let entry = pkg.load("layouts").unwrap();
    let bind = entry.bind();
    let layout = bind.buffer("gParams").unwrap();
    assert_eq!(bytes.len(), layout.size as usize);
    let f32_at =
        |at: u32| f32::from_le_bytes(bytes[at as usize..at as usize + 4].try_into().unwrap());
    let member = |path: &str| bind.buffer_member(&format!("gParams.{path}")).unwrap().1;
    assert_eq!(f32_at(member("afterPadded").offset), 2.5);
    assert_eq!(f32_at(member("tail").offset), 1.5);
    let scalars = member("scalars");
    assert_eq!(f32_at(scalars.offset + 3 * scalars.array_stride), 7.0);
    // elements[1].inner.weight: the array's offset + one stride + the element-relative offset.
    let elements = member("elements");
    let weight = bind
        .members(layout)
        .iter()
        .find(|m| bind.string(m.path) == "elements[].inner.weight")
        .unwrap();
    assert_eq!(
        f32_at(elements.offset + elements.array_stride + weight.offset),
        3.0
    );
    // Column-major: column 2, row 1.
    let rotation = member("rotationColumn");
    assert_eq!(rotation.matrix_layout, 2);
    assert_eq!(
        f32_at(rotation.offset + 2 * rotation.matrix_stride + 4),
        9.0
    );
    let sum: f32 = bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .sum();
    assert_eq!(sum, 2.5 + 7.0 + 3.0 + 9.0 + 1.5, "nothing else was written");
}

/// Member names that are Rust or C++ keywords, `bool`, an enum, `half`, 2x2 matrices whose
/// vectors are half padding, and the implicit global uniform buffer.
const EDGES: &str = r#"
enum Mode { A, B, C };
struct Odd
{
    float match;
    float new;
    uint loop;
    bool enabled;
    Mode mode;
    column_major float2x2 rot;
    row_major float2x2 rotRow;
    column_major float4x4 mats[2];
    float2 pairs[3];
    half4 color16;
};
uniform float4 gGlobalColor;
uniform float gGlobalScale;
ConstantBuffer<Odd> gOdd;
RWStructuredBuffer<uint> gOut;

[shader("compute")]
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID)
{
    float v = gOdd.match + gOdd.new + float(gOdd.loop) + (gOdd.enabled ? 1.0 : 0.0)
        + float(uint(gOdd.mode));
    v += mul(gOdd.rot, float2(1, 2)).x + mul(gOdd.rotRow, float2(1, 2)).y
        + gOdd.mats[tid.x & 1][0].x + gOdd.pairs[tid.x % 3].y + float(gOdd.color16.x);
    gOut[tid.x] = uint(v * gGlobalScale + gGlobalColor.x);
}
"#;

#[test]
fn headers_of_keywords_bools_enums_halves_and_global_uniforms_compile() {
    let dir = tempfile::tempdir().unwrap();
    let source = write(dir.path(), "edge.slang", EDGES);
    let package = dir.path().join("edge.slangpack");
    bake(&[&source], &[], &package);
    headers_compile(
        &package,
        dir.path(),
        &[
            "pub r_match: f32,",
            "pub r_loop: u32,",
            "pub enabled: u32,",
            "pub mode: i32,",
            "pub color16: [u16; 4],",
            "pub rot: [[f32; 4]; 2],",
            "Stored as 2 column vectors of 4 lanes (lanes 2..4 are padding).",
            "pub mats: [[[f32; 4]; 4]; 2],",
            "pub struct GlobalUniforms {",
            "pub gGlobalColor: [f32; 4],",
            "pub const GLOBAL_UNIFORMS_BINDING: u32 = 0;",
            "const _: () = assert!(::core::mem::size_of::<GOdd>() == 288);",
        ],
    );
    let cpp = std::fs::read_to_string(dir.path().join("bind.hpp")).unwrap();
    assert!(cpp.contains("float r_new;"), "{cpp}");
}

#[test]
fn header_of_one_entry_and_of_an_unknown_entry() {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("ex.slangpack");
    bake(&[&examples()], &[], &package);
    let result = slangpack(&["header", s(&package), "--lang", "cpp", "--entry", "blur"]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let cpp = text(&result.stdout);
    assert!(cpp.contains("namespace blur {"), "{cpp}");
    assert!(!cpp.contains("namespace pbr {"), "{cpp}");
    assert!(
        cpp.contains("inline constexpr std::uint32_t G_DESTINATION_BINDING = 3u;"),
        "{cpp}"
    );
    let result = slangpack(&["header", s(&package), "--lang", "c", "--entry", "nope"]);
    assert_eq!(result.status.code(), Some(1));
    assert!(text(&result.stderr).contains("\"nope\""));
    let result = slangpack(&["header", s(&package), "--lang", "go"]);
    assert_eq!(result.status.code(), Some(2));
}

/// Copies the example shaders into `dir` (so shards and the whole share one root).
fn copy_examples(dir: &Path) {
    for rel in [
        "blur.slang",
        "bindless.slang",
        "pbr.slang",
        "layered/layered.slang",
        "layered/common.slang",
    ] {
        let to = dir.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(examples().join(rel), to).unwrap();
    }
}

#[test]
fn merge_of_shards_equals_one_bake_of_everything() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shaders");
    copy_examples(&root);
    let root_arg = ["--root", s(&root)];
    let (a, b, whole, merged) = (
        dir.path().join("a.slangpack"),
        dir.path().join("b.slangpack"),
        dir.path().join("whole.slangpack"),
        dir.path().join("merged.slangpack"),
    );
    bake(
        &[&root.join("blur.slang"), &root.join("bindless.slang")],
        &root_arg,
        &a,
    );
    bake(
        &[&root.join("pbr.slang"), &root.join("layered/layered.slang")],
        &root_arg,
        &b,
    );
    bake(&[&root], &root_arg, &whole);

    let result = slangpack(&["merge", s(&a), s(&b), "-o", s(&merged)]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    assert!(
        text(&result.stderr).contains("4 entries"),
        "{}",
        text(&result.stderr)
    );
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&whole).unwrap(),
        "merging shards gives the package one bake of everything gives"
    );
    assert_eq!(slangpack(&["verify", s(&merged)]).status.code(), Some(0));
    assert_eq!(
        slangpack(&["diff", s(&merged), s(&whole)]).status.code(),
        Some(0)
    );

    // The same shard twice, in any order: identical entries are stored once.
    let again = dir.path().join("again.slangpack");
    let result = slangpack(&["merge", s(&b), s(&a), s(&a), "-o", s(&again)]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    assert!(
        text(&result.stderr).contains("2 duplicates"),
        "{}",
        text(&result.stderr)
    );
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&whole).unwrap()
    );
}

/// A cheap compute shader importing a module, and a manifest giving it 9 permutations (two
/// axes of three values); returns the manifest's path.
fn write_permutations(dir: &Path) -> PathBuf {
    write(
        dir,
        "fill.slang",
        "import common;\nRWStructuredBuffer<uint> gOut;\n\
         [shader(\"compute\")][numthreads(8, 1, 1)]\n\
         void fill(uint3 id: SV_DispatchThreadID) { gOut[id.x] = scale(id.x * A + B); }\n",
    );
    write(
        dir,
        "common.slang",
        "module common;\npublic uint scale(uint x) { return x * 3; }\n",
    );
    write(
        dir,
        "bake.toml",
        "[[program]]\nsource = \"fill.slang\"\naxes = { A = [\"1\", \"2\", \"3\"], B = [\"0\", \"5\", \"9\"] }\n",
    )
}

#[test]
fn sharded_bakes_merge_into_the_bytes_of_one_bake() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write_permutations(&dir.path().join("shaders"));
    let whole = dir.path().join("whole.slangpack");
    bake(&[&manifest], &[], &whole);
    let whole_bytes = std::fs::read(&whole).unwrap();
    let keys: Vec<String> = Package::open(&whole)
        .unwrap()
        .keys()
        .map(str::to_string)
        .collect();
    assert_eq!(keys.len(), 9, "{keys:?}");

    for count in [1usize, 2, 3, 7] {
        let mut shards = Vec::new();
        let mut shard_keys = Vec::new();
        for index in 1..=count {
            let out = dir
                .path()
                .join(format!("shard-{index}-of-{count}.slangpack"));
            let spec = format!("{index}/{count}");
            bake(&[&manifest], &["--shard", &spec], &out);
            let package = Package::open(&out).unwrap();
            let mine: Vec<String> = package.keys().map(str::to_string).collect();
            // Balanced by count: 9 over `count` slices differ by at most one.
            assert!(
                mine.len() == 9 / count || mine.len() == 9 / count + 1,
                "{spec}: {mine:?}"
            );
            shard_keys.extend(mine);
            shards.push(out);
        }
        shard_keys.sort();
        assert_eq!(shard_keys, keys, "the {count} slices partition the keys");
        let merged = dir.path().join(format!("merged-{count}.slangpack"));
        let mut args = vec!["merge"];
        args.extend(shards.iter().map(|p| s(p)));
        args.extend(["-o", s(&merged)]);
        let result = slangpack(&args);
        assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
        assert!(
            std::fs::read(&merged).unwrap() == whole_bytes,
            "{count} shards merged differ from one bake"
        );
    }

    // Shards baked with `--spirv raw` merge, with `--no-compress-spirv`, into the bytes of
    // one such bake (larger than the default layout's).
    let raw = dir.path().join("whole-raw.slangpack");
    bake(&[&manifest], &["--spirv", "raw"], &raw);
    let mut args = vec!["merge", "--no-compress-spirv", "-o"];
    let merged = dir.path().join("merged-raw.slangpack");
    args.push(s(&merged));
    let halves: Vec<PathBuf> = (1..=2)
        .map(|index| {
            let out = dir.path().join(format!("raw-{index}-of-2.slangpack"));
            bake(
                &[&manifest],
                &["--spirv", "raw", "--shard", &format!("{index}/2")],
                &out,
            );
            out
        })
        .collect();
    args.extend(halves.iter().map(|p| s(p)));
    let result = slangpack(&args);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let raw_bytes = std::fs::read(&raw).unwrap();
    assert!(std::fs::read(&merged).unwrap() == raw_bytes);
    assert!(whole_bytes.len() < raw_bytes.len());

    // More slices than permutations: a slice may be empty, and merges as nothing.
    let empty = dir.path().join("empty.slangpack");
    bake(&[&manifest], &["--shard", "12/12"], &empty);
    assert_eq!(Package::open(&empty).unwrap().entries().count(), 0);
    let merged = dir.path().join("merged-empty.slangpack");
    // A whole package beside one shard is a deliberate subset.
    let result = slangpack(&[
        "merge",
        "--allow-partial",
        s(&whole),
        s(&empty),
        "-o",
        s(&merged),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    assert!(std::fs::read(&merged).unwrap() == whole_bytes);

    for bad in ["0/3", "4/3", "3", "x/y"] {
        let result = slangpack(&["bake", s(&manifest), "-o", s(&empty), "--shard", bad]);
        assert_eq!(
            result.status.code(),
            Some(2),
            "{bad}: {}",
            text(&result.stderr)
        );
        assert!(
            text(&result.stderr).contains("--shard"),
            "{}",
            text(&result.stderr)
        );
    }
}

#[test]
fn merge_stores_identical_spirv_once() {
    let dir = tempfile::tempdir().unwrap();
    let blur = std::fs::read_to_string(examples().join("blur.slang")).unwrap();
    let one = write(dir.path(), "one/blur.slang", &blur);
    let two = write(dir.path(), "two/blur_copy.slang", &blur);
    let (a, b, merged) = (
        dir.path().join("a.slangpack"),
        dir.path().join("b.slangpack"),
        dir.path().join("merged.slangpack"),
    );
    bake(&[&one], &[], &a);
    bake(&[&two], &[], &b);
    let result = slangpack(&["merge", s(&a), s(&b), "-o", s(&merged), "--no-compress"]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let (pa, pm) = (Package::open(&a).unwrap(), Package::open(&merged).unwrap());
    assert_eq!(pm.len(), 2);
    // Two entries of two entry points each, one copy of each SPIR-V module.
    assert_eq!(pm.spirv_count(), pa.spirv_count());
    for key in ["blur", "blur_copy"] {
        let entry = pm.load(key).unwrap();
        let original = pa.load("blur").unwrap();
        let spirv: Vec<&[u32]> = entry.entry_points().map(|ep| ep.spirv()).collect();
        let expected: Vec<&[u32]> = original.entry_points().map(|ep| ep.spirv()).collect();
        assert_eq!(spirv, expected);
    }
    // Reflection survives the merge byte for byte.
    assert_eq!(
        pm.load("blur").unwrap().reflection().unwrap().as_bytes(),
        pa.load("blur").unwrap().reflection().unwrap().as_bytes()
    );
}

#[test]
fn merge_of_one_key_with_different_content_fails_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = write(&dir.path().join("v1"), "material.slang", MATERIAL_V1);
    let v2 = write(&dir.path().join("v2"), "material.slang", MATERIAL_V2);
    let (a, b, out) = (
        dir.path().join("a.slangpack"),
        dir.path().join("b.slangpack"),
        dir.path().join("out.slangpack"),
    );
    bake(&[&v1], &[], &a);
    bake(&[&v2], &[], &b);
    let result = slangpack(&["merge", s(&a), s(&b), "-o", s(&out)]);
    assert_eq!(result.status.code(), Some(1));
    let err = text(&result.stderr);
    assert!(err.contains("entry \"material\" differs between"), "{err}");
    assert!(
        err.contains("a.slangpack") && err.contains("b.slangpack"),
        "{err}"
    );
    assert!(!out.exists(), "a failed merge writes nothing");
    assert_eq!(slangpack(&["merge", "-o", s(&out)]).status.code(), Some(2));
}

#[test]
fn build_script_builder_reports_every_dependency_and_rebakes_incrementally() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shaders");
    copy_examples(&root);
    let out = dir.path().join("out/shaders.slangpack");
    let header = dir.path().join("out/shaders.rs");
    let run = || {
        slangpack_writer::build::Bake::new()
            .input(&root)
            .output(&out)
            .rust_header(&header)
            .jobs(2)
            .cargo_directives(false)
            .run()
            .unwrap()
    };
    let first = run();
    assert_eq!(first.outcome.entries.len(), 4);
    assert_eq!(first.outcome.reused, 0);
    let canonical = root.canonicalize().unwrap();
    for rel in [
        "blur.slang",
        "pbr.slang",
        "layered/layered.slang",
        "layered/common.slang",
    ] {
        assert!(
            first.rerun_if_changed.contains(&canonical.join(rel)),
            "{rel} not reported: {:?}",
            first.rerun_if_changed
        );
    }
    assert!(
        first.rerun_if_changed.contains(&root),
        "the input directory itself"
    );
    assert!(Package::open(&out).is_ok());
    let rust = std::fs::read_to_string(&header).unwrap();
    assert!(rust.contains("pub mod layered_layered {"));

    // Nothing changed: every entry reused, the package untouched.
    let before = std::fs::metadata(&out).unwrap().modified().unwrap();
    let second = run();
    assert_eq!(second.outcome.reused, 4);
    assert_eq!(std::fs::metadata(&out).unwrap().modified().unwrap(), before);

    // The imported module changed: only its importer is recompiled.
    let common = root.join("layered/common.slang");
    let mut source = std::fs::read_to_string(&common).unwrap();
    source.push_str("\n// touched\n");
    std::fs::write(&common, source).unwrap();
    let third = run();
    assert_eq!(third.outcome.reused, 3);

    let error = slangpack_writer::build::Bake::new()
        .output(&out)
        .cargo_directives(false)
        .run()
        .unwrap_err();
    assert!(error.to_string().contains("no inputs"), "{error}");
}

#[test]
fn dump_diff_and_header_show_input_attachments_shared_samplers_and_shader_records() {
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        dir.path().join("a.slangpack"),
        dir.path().join("b.slangpack"),
    );
    let inputs = ["input_attachments", "combined_sampler", "shader_record"]
        .map(|n| shaders.join(format!("{n}.slang")));
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    bake(&inputs, &["--root", s(&shaders)], &a);

    let dump = text(&slangpack(&["dump", s(&a)]).stdout);
    assert!(dump.contains("gNormal input_attachment_index 2"), "{dump}");
    assert!(dump.contains("gAlbedo + sampler gAlbedoSampler"), "{dump}");
    assert!(
        dump.contains("shader record gRayGen (48 bytes)  [raygeneration]"),
        "{dump}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&slangpack(&["dump", s(&a), "--json"]).stdout).unwrap();
    let entry = |key: &str| {
        json["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["key"] == key)
            .unwrap()
            .clone()
    };
    let attachments = entry("input_attachments");
    let indices: Vec<&serde_json::Value> = attachments["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["input_attachment_index"])
        .collect();
    assert_eq!(indices, [0, 1, 2]);
    assert_eq!(
        entry("combined_sampler")["bindings"][0]["sampler_path"],
        "gAlbedoSampler"
    );
    let records = entry("shader_record");
    assert_eq!(records["shader_records"][1]["name"], "closestHit");
    assert_eq!(records["buffers"][0]["kind"], "shader_record");

    // Move gNormal to input attachment 3: diff names it.
    let changed = dir.path().join("changed");
    std::fs::create_dir(&changed).unwrap();
    let source = std::fs::read_to_string(shaders.join("input_attachments.slang")).unwrap();
    let moved = changed.join("input_attachments.slang");
    std::fs::write(
        &moved,
        source.replace("input_attachment_index(2)", "input_attachment_index(3)"),
    )
    .unwrap();
    bake(&[&moved], &["--root", s(&changed)], &b);
    let old = dir.path().join("old.slangpack");
    bake(
        &[&shaders.join("input_attachments.slang")],
        &["--root", s(&shaders)],
        &old,
    );
    let diff = slangpack(&["diff", s(&old), s(&b)]);
    assert_eq!(diff.status.code(), Some(1));
    let diff = text(&diff.stdout);
    assert!(
        diff.contains("~ binding gNormal input attachment index: 2 -> 3"),
        "{diff}"
    );

    let header = text(&slangpack(&["header", s(&a), "--lang", "rust"]).stdout);
    assert!(
        header.contains("pub const G_NORMAL_INPUT_ATTACHMENT_INDEX: u32 = 2;"),
        "{header}"
    );
    assert!(
        header.contains("pub const G_RAY_GEN_SHADER_RECORD_SIZE: u32 = 48;"),
        "{header}"
    );
}

/// Two pipelines whose bindings share numbers (`tests/shaders/pipelines.slang`): `dump` and
/// `dump --json` say which entry points use each binding and push-constant block, `diff`
/// reports a binding moving to another pipeline, and the headers (which compile) name the
/// entry points beside each binding.
#[test]
fn dump_diff_and_header_show_which_pipeline_uses_each_binding() {
    let dir = tempfile::tempdir().unwrap();
    let shader = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders/pipelines.slang");
    let source = std::fs::read_to_string(&shader).unwrap();
    let v1 = write(&dir.path().join("v1"), "pipelines.slang", &source);
    // v2: the fragment stage reads the camera too, and `particlesIn` moves to binding 4.
    let v2 = write(
        &dir.path().join("v2"),
        "pipelines.slang",
        source
            .replace(
                "[[vk::binding(0, 0)]] StructuredBuffer<Particle> particlesIn;",
                "[[vk::binding(4, 0)]] StructuredBuffer<Particle> particlesIn;",
            )
            .replace(
                "return float4(input.uv, 0.0, 1.0);",
                "return float4(input.uv, 0.0, 1.0) * camera.tint;",
            ),
    );
    let (a, b) = (
        dir.path().join("a.slangpack"),
        dir.path().join("b.slangpack"),
    );
    bake(&[&v1], &[], &a);
    bake(&[&v2], &[], &b);

    let dump = text(&slangpack(&["dump", s(&a)]).stdout);
    for line in [
        "set 0 binding 0  uniform_buffer         camera  [vertex] used by vertexMain",
        "set 0 binding 0  storage_buffer         particlesIn  [compute] used by simulate",
        "set 0 binding 3  storage_buffer         gOut  [vertex,fragment] used by vertexMain, fragmentMain",
        "push constants material (20 bytes at 16)  [fragment] used by fragmentMain",
    ] {
        assert!(dump.contains(line), "dump lacks {line:?}:\n{dump}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&slangpack(&["dump", "--json", s(&a)]).stdout).unwrap();
    let entry = &json["entries"][0];
    let used: Vec<(String, serde_json::Value)> = entry["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["path"].as_str().unwrap().to_string(),
                b["entry_points"].clone(),
            )
        })
        .collect();
    assert_eq!(
        used[0],
        ("camera".into(), serde_json::json!(["vertexMain"]))
    );
    assert_eq!(
        used[1],
        ("particlesIn".into(), serde_json::json!(["simulate"]))
    );
    let push = &entry["push_constants"][2];
    assert_eq!(push["name"], "simulate");
    assert_eq!(push["entry_points"], serde_json::json!(["simulate"]));

    let diff = slangpack(&["diff", s(&a), s(&b)]);
    assert_eq!(diff.status.code(), Some(1));
    let diff = text(&diff.stdout);
    assert!(
        diff.contains("~ binding particlesIn set/binding: set 0 binding 0 -> set 0 binding 4"),
        "{diff}"
    );
    assert!(
        diff.contains("~ binding camera entry points: vertexMain -> vertexMain,fragmentMain"),
        "{diff}"
    );

    let rust = headers_compile(
        &a,
        dir.path(),
        &[
            "Binding of `camera` (uniform_buffer). Used by entry points vertexMain.",
            "Binding of `particlesIn` (storage_buffer). Used by entry points simulate.",
        ],
    );
    assert!(
        rust.contains("pub const CAMERA_BINDING: u32 = 0;"),
        "{rust}"
    );
    assert!(
        rust.contains("pub const PARTICLES_IN_BINDING: u32 = 0;"),
        "{rust}"
    );
}

/// A compute shader with a uniform buffer, a ParameterBlock (a WGSL group and a Metal
/// argument buffer of its own) and a storage buffer; `{extra}` goes before the texture.
const TARGETS: &str = r#"
struct Params { float4 tint; uint mode; };
struct Material { float4 color; {extra} Texture2D albedo; SamplerState linear; };
ConstantBuffer<Params> gParams;
ParameterBlock<Material> gMaterial;
RWStructuredBuffer<float4> gOut;
[shader("compute")]
[numthreads(1, 1, 1)]
void main()
{
    gOut[0] = gParams.tint * gMaterial.color
        + gMaterial.albedo.SampleLevel(gMaterial.linear, float2(0.5, 0.5), 0) + float(gParams.mode);
}
"#;

/// `diff` compares each HLSL and Metal buffer's own member layout (format 1.4): one more
/// element of a `float` array moves the next member by 16 bytes on HLSL (whose last array
/// element is not padded) and by 4 on Metal (whose arrays are packed by the element's size).
#[test]
fn diff_compares_the_hlsl_and_metal_member_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let shader = |n: u32| {
        format!(
            "cbuffer Params {{ float arr[{n}]; float x; float4 tail; }};\n\
             RWStructuredBuffer<float4> gOut;\n\
             [shader(\"compute\")]\n[numthreads(1, 1, 1)]\n\
             void main() {{ gOut[0] = float4(arr[0] + x, 0, 0, 0) + tail; }}\n"
        )
    };
    let mut packages = Vec::new();
    for n in [2, 3] {
        let source = write(dir.path(), &format!("v{n}/t.slang"), shader(n));
        let package = dir.path().join(format!("v{n}.slangpack"));
        bake(&[&source], &["--target", "hlsl,metal"], &package);
        packages.push(package);
    }
    let result = slangpack(&["diff", s(&packages[0]), s(&packages[1])]);
    let out = text(&result.stdout);
    for line in [
        "~ hlsl binding Params target layout: 48 bytes -> 64 bytes",
        "~ hlsl binding Params member x target offset: 20 -> 36",
        "~ hlsl binding Params member arr target size: 20 -> 36",
        "~ metal binding Params member x target offset: 8 -> 12",
    ] {
        assert!(out.contains(line), "{line:?} missing:\n{out}");
    }
    // The Metal buffer keeps its size (`tail` stays at 16): no layout-size line.
    assert!(!out.contains("metal binding Params target layout"), "{out}");
}

#[test]
fn dump_json_extract_diff_and_header_know_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let all = dir.path().join("all.slangpack");
    let spirv = dir.path().join("spirv.slangpack");
    let moved = dir.path().join("moved.slangpack");
    let source = write(dir.path(), "t.slang", TARGETS.replace("{extra}", ""));
    bake(
        &[&source],
        &["--target", "spirv,wgsl,glsl,hlsl,metal"],
        &all,
    );
    bake(&[&source], &[], &spirv);
    let shifted = write(
        dir.path(),
        "moved/t.slang",
        TARGETS.replace("{extra}", "Texture2D detail;"),
    );
    bake(&[&shifted], &["--target", "wgsl,hlsl"], &moved);

    // dump --json: each entry point's code per target, each target's bindings.
    let json = slangpack(&["dump", "--json", s(&all)]);
    assert_eq!(json.status.code(), Some(0), "{}", text(&json.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let entry = &doc["entries"][0];
    let targets: Vec<(&str, &str)> = entry["entry_points"][0]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["target"].as_str().unwrap(), t["entry"].as_str().unwrap()))
        .collect();
    assert_eq!(
        targets,
        [
            ("wgsl", "main"),
            ("glsl", "main"),
            ("hlsl", "main"),
            ("metal", "main_0")
        ]
    );
    let find = |target: &str, path: &str, kind: &str| {
        entry["target_bindings"][target]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["path"] == path && b["kind"] == kind)
            .unwrap_or_else(|| panic!("no {target} {kind} {path}: {}", entry["target_bindings"]))
            .clone()
    };
    let albedo = find("wgsl", "gMaterial.albedo", "texture");
    assert_eq!(albedo["place"], "@group(1) @binding(1)");
    assert_eq!(
        (albedo["space"].as_u64(), albedo["index"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(albedo["sample_type"], "float");
    assert_eq!(albedo["view_dimension"], "2d");
    assert_eq!(albedo["vulkan"], serde_json::json!([1, 1]));
    let params = find("wgsl", "gParams", "uniform_buffer");
    assert_eq!(params["min_binding_size"], 32);
    assert_eq!(
        find("wgsl", "gOut", "storage_buffer")["flags"],
        serde_json::json!(["write"])
    );
    let hlsl = find("hlsl", "gMaterial.albedo", "texture");
    assert_eq!(hlsl["register_class"], "t");
    // Whose member layout a buffer has on each target: the Vulkan one only where it holds.
    assert_eq!(params["member_layout"], "vulkan");
    assert_eq!(
        find("glsl", "gParams", "uniform_buffer")["member_layout"],
        "vulkan"
    );
    // HLSL and Metal: their own layouts (format 1.4), with every member.
    for target in ["hlsl", "metal"] {
        let params = find(target, "gParams", "uniform_buffer");
        assert_eq!(params["member_layout"], "target", "{target}");
        let layout = &params["target_layout"];
        assert_eq!(layout["size"], params["min_binding_size"], "{target}");
        assert!(
            !layout["members"].as_array().unwrap().is_empty(),
            "{target}: {layout}"
        );
    }
    assert_eq!(
        find("metal", "gMaterial", "argument_buffer")["member_layout"],
        "none"
    );
    // Metal: the argument buffer's struct (format 1.5), plain data by Metal's rules and each
    // texture and sampler an 8-byte resource id, with its binding.
    let ab = &find("metal", "gMaterial", "argument_buffer")["argument_buffer"];
    let members: Vec<(&str, &str, u64, u64, &str)> = ab["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["path"].as_str().unwrap(),
                m["kind"].as_str().unwrap(),
                m["offset"].as_u64().unwrap(),
                m["size"].as_u64().unwrap(),
                m["binding"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        members,
        [
            ("color", "data", 0, 16, ""),
            ("albedo", "texture", 16, 8, "gMaterial.albedo"),
            ("linear", "sampler", 24, 8, "gMaterial.linear"),
        ]
    );
    assert_eq!(
        (ab["size"].as_u64(), ab["alignment"].as_u64()),
        (Some(32), Some(16))
    );
    assert_eq!(albedo["member_layout"], serde_json::Value::Null);
    let summary = slangpack(&["dump", s(&all)]);
    let summary = text(&summary.stdout);
    for line in [
        "uniform_buffer   gParams (code gParams_0), members as the Vulkan buffer",
        "uniform_buffer   gParams (code gParams_0), 20 bytes as hlsl lays it out:",
        "         16    4  mode",
        "argument_buffer  gMaterial (code gMaterial_1), argument buffer struct of 32 bytes:",
        "         16    8  albedo texture  [[id(1)]]",
    ] {
        assert!(summary.contains(line), "{line:?} missing:\n{summary}");
    }
    assert_eq!(
        find("metal", "gMaterial", "argument_buffer")["place"],
        "[[buffer(1)]]"
    );
    assert_eq!(
        find("glsl", "gMaterial.linear", "sampler")["place"],
        "set 1 binding 2"
    );

    // extract --target: the stored text, byte for byte; a target not baked is an error.
    let extract = |package: &Path, target: &str, out: &Path| {
        slangpack(&[
            "extract",
            s(package),
            "--entry",
            "t",
            "--entry-point",
            "main",
            "--target",
            target,
            "-o",
            s(out),
        ])
    };
    let wgsl = dir.path().join("main.wgsl");
    let run = extract(&all, "wgsl", &wgsl);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let code = std::fs::read_to_string(&wgsl).unwrap();
    let package = Package::from_bytes(&std::fs::read(&all).unwrap()).unwrap();
    let stored = package.load("t").unwrap().entry_points().next().unwrap();
    assert_eq!(
        code,
        stored
            .code(slangpack_format::Target::Wgsl)
            .unwrap()
            .text()
            .unwrap()
    );
    assert!(code.contains("@binding(1) @group(1)"), "{code}");
    let missing = extract(&spirv, "metal", &dir.path().join("x.metal"));
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains("was not baked for metal (it has spirv)"),
        "{}",
        text(&missing.stderr)
    );
    let unknown = extract(&all, "dxbc", &dir.path().join("x"));
    assert_eq!(unknown.status.code(), Some(2));

    // diff: targets added and removed, a binding moved in one target's code.
    let added = slangpack(&["diff", s(&spirv), s(&all)]);
    assert_eq!(added.status.code(), Some(1));
    let report = text(&added.stdout);
    for line in ["+ target wgsl (", "+ target metal ("] {
        assert!(report.contains(line), "{line:?} missing:\n{report}");
    }
    let diff = slangpack(&["diff", s(&all), s(&moved)]);
    assert_eq!(diff.status.code(), Some(1));
    let report = text(&diff.stdout);
    for line in [
        "~ wgsl binding gMaterial.albedo place: @group(1) @binding(1) -> @group(1) @binding(2)",
        "~ hlsl binding gMaterial.albedo place: register(t0, space0) -> register(t1, space0)",
        "+ wgsl binding gMaterial.detail (@group(1) @binding(1), texture)",
        "- target metal (",
    ] {
        assert!(report.contains(line), "{line:?} missing:\n{report}");
    }

    // header: each target's place beside the Vulkan set and binding; it compiles.
    let header_dir = dir.path().join("header");
    std::fs::create_dir_all(&header_dir).unwrap();
    let rust = headers_compile(
        &all,
        &header_dir,
        &[
            "pub const G_MATERIAL_ALBEDO_WGSL_GROUP: u32 = 1;",
            "pub const G_MATERIAL_ALBEDO_WGSL_BINDING: u32 = 1;",
            "pub const G_MATERIAL_UNIFORMS_WGSL_BINDING: u32 = 0;",
            "pub const G_MATERIAL_LINEAR_GLSL_SET: u32 = 1;",
            "pub const G_MATERIAL_ALBEDO_HLSL_REGISTER: u32 = 0;",
            "pub const G_MATERIAL_METAL_INDEX: u32 = 1;",
            "pub const G_OUT_METAL_INDEX: u32 = 2;",
        ],
    );
    // The header's structs are the Vulkan layout: HLSL and Metal buffers' constants say
    // where their own layout differs (the structured buffer of `float4`s: its elements' stride
    // on that target, a layout the package describes since item 4 of issue 46); WGSL's and
    // GLSL's (whose layout the bake checked) say nothing of the kind.
    let prose: Vec<&str> = rust
        .lines()
        .map(|l| l.trim().trim_start_matches("///").trim())
        .collect();
    let prose = prose.join(" ");
    for language in ["HLSL", "Metal"] {
        let note =
            format!("The {language} code lays its elements out 16 bytes apart (16 bytes each).");
        assert!(prose.contains(&note), "{note:?} missing:\n{rust}");
    }
    for language in ["WGSL", "GLSL"] {
        assert!(
            !prose.contains(&format!("The {language} code lays its members out")),
            "{rust}"
        );
    }
}

#[test]
fn a_wgsl_bake_gives_push_constants_and_sampler_halves_places_and_names_what_it_cannot_take() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.slangpack");
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders");
    // A push-constant block: a uniform buffer after group 0's last binding (SPEC 6.8).
    bake(
        &[&examples().join("pbr.slang")],
        &["--target", "wgsl"],
        &out,
    );
    let wgsl = target_bindings(&out, "wgsl");
    let place = |path: &str, kind: &str| {
        let b = wgsl
            .iter()
            .find(|b| b["path"] == path && b["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} {path} in {wgsl:?}"));
        b["place"].as_str().unwrap().to_string()
    };
    assert_eq!(place("gDraw", "uniform_buffer"), "@group(0) @binding(1)");
    // A texture and a sampler declared at one Vulkan binding: the sampler after the group.
    bake(
        &[&tests.join("combined_sampler.slang")],
        &["--target", "wgsl"],
        &out,
    );
    let wgsl = target_bindings(&out, "wgsl");
    let place = |path: &str| {
        let b = wgsl.iter().find(|b| b["path"] == path).unwrap();
        b["place"].as_str().unwrap().to_string()
    };
    assert_eq!(place("gAlbedo"), "@group(1) @binding(0)");
    assert_eq!(place("gAlbedoSampler"), "@group(1) @binding(3)");
    std::fs::remove_file(&out).unwrap();
    // What Slang's WGSL gets wrong still fails, naming it, and writes nothing: explicit
    // `[[vk::offset]]`s, which Slang's WGSL does not honour.
    let run = slangpack(&[
        "bake",
        s(&tests.join("explicit_offsets.slang")),
        "--target",
        "wgsl",
        "-o",
        s(&out),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("target wgsl: entry point `main`: `gMaterial`")
            && stderr.contains("the bind view says offset 32"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn pipelines_reusing_a_place_bake_for_glsl_each_binding_matched_with_its_own_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.slangpack");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders/pipelines.slang");
    bake(&[&source], &["--target", "glsl"], &out);
    let glsl = target_bindings(&out, "glsl");
    let code = |path: &str| {
        let b = glsl.iter().find(|b| b["path"] == path).unwrap();
        assert_eq!(b["place"], "set 0 binding 0", "{b}");
        b["code_name"].as_str().unwrap().to_string()
    };
    // The graphics pipeline's uniform buffer and the compute pipeline's structured buffer
    // share set 0 binding 0; each is matched with the declaration of its own entry points.
    assert!(code("camera").contains("Camera"), "{}", code("camera"));
    assert!(
        code("particlesIn").contains("Particle"),
        "{}",
        code("particlesIn")
    );
}

/// The arrays of buffers of `proof_resources` and `explicit_offsets`, moved into a
/// ParameterBlock (a Metal argument buffer, where Slang wraps each array in a struct);
/// `{lights}` is `StructuredBuffer` or `ConstantBuffer`.
const BUFFER_ARRAYS_IN_A_BLOCK: &str = r#"
struct Light { float3 direction; float intensity; };
struct Tables { StructuredBuffer<uint> tables[3]; {lights}<Light> lights[2]; float4 tint; };
ParameterBlock<Tables> gTables;
RWStructuredBuffer<uint> gOut;
[shader("compute")]
[numthreads(1, 1, 1)]
void main()
{
    for (uint t = 0; t < 3; t++)
        gOut[t] = gTables.tables[t][0];
    for (uint i = 0; i < 2; i++)
        gOut[3 + i] = asuint(gTables.lights[i]{at}.intensity + gTables.tint.x);
}
"#;

#[test]
fn arrays_of_buffers_bake_for_metal_in_a_parameter_block_and_are_refused_at_the_entry_point() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.slangpack");
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders");
    // Slang emits an array of buffers at the entry point as a parameter without an
    // attribute (which Metal refuses): the bake says so, naming the parameter and the place
    // Slang's Metal layout gives it, and writes nothing.
    for (shader, parameter, place, advice) in [
        (
            "explicit_offsets",
            "`gLights_1` (`array<Light_0 constant*, int(2)>`)",
            "`gLights` at [[buffer(2)]]",
            "use an array of StructuredBuffers in a ParameterBlock",
        ),
        (
            "proof_resources",
            "`gTables_1` (`array<uint device*, int(3)>`)",
            "`gTables` at [[buffer(5)]]",
            "put the array in a ParameterBlock",
        ),
    ] {
        let source = tests.join(format!("{shader}.slang"));
        let run = slangpack(&["bake", s(&source), "--target", "metal", "-o", s(&out)]);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{err}");
        for part in [
            format!(
                "{shader}: target metal: entry point `main_0`: the entry point's parameter \
                 {parameter} has no"
            ),
            format!("Slang's Metal layout places {place}"),
            advice.to_string(),
        ] {
            assert!(err.contains(&part), "{part:?} missing:\n{err}");
        }
        assert!(!out.exists());
    }
    // In a ParameterBlock, arrays of structured buffers bake, each matched by path with its
    // code and at the ids Slang's layout gives them.
    let block = |lights: &str, at: &str| {
        let source = BUFFER_ARRAYS_IN_A_BLOCK
            .replace("{lights}", lights)
            .replace("{at}", at);
        write(dir.path(), "m.slang", source)
    };
    let source = block("StructuredBuffer", "[0]");
    bake(&[&source], &["--target", "metal"], &out);
    let metal = target_bindings(&out, "metal");
    for (path, kind, count, place) in [
        (
            "gTables.tables",
            "storage_buffer",
            3,
            "[[id(0)]] of argument buffer 0",
        ),
        (
            "gTables.lights",
            "storage_buffer",
            2,
            "[[id(3)]] of argument buffer 0",
        ),
    ] {
        let b = metal.iter().find(|b| b["path"] == path).unwrap();
        assert_eq!(b["code_name"], path, "{b}");
        assert_eq!(
            (b["kind"].as_str(), b["count"].as_u64()),
            (Some(kind), Some(count))
        );
        assert_eq!(b["place"], place, "{b}");
    }
    // The code wraps each array in a struct of its own: the case the path match handles.
    let code = dir.path().join("m.metal");
    let run = slangpack(&[
        "extract",
        s(&out),
        "--entry",
        "m",
        "--entry-point",
        "main",
        "--target",
        "metal",
        "-o",
        s(&code),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let code = std::fs::read_to_string(&code).unwrap();
    assert!(
        code.contains("struct _Array_") && code.contains("tables_0;"),
        "{code}"
    );
    // An array of constant buffers there gets no id of its own from Slang's layout (0, like
    // `tables`): refused, naming both.
    let source = block("ConstantBuffer", "");
    std::fs::remove_file(&out).unwrap();
    let run = slangpack(&["bake", s(&source), "--target", "metal", "-o", s(&out)]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "m: target metal: Slang's Metal layout gives `gTables.tables` [[id(0)]] and \
             `gTables.lights` [[id(0)]] of argument buffer 0, overlapping"
        ),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn wgsl_and_glsl_member_layouts_are_checked_at_bake_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.slangpack");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Every example and test program that bakes for WGSL: naga's layout of each uniform and
    // storage buffer, and spirv-cross's of glslang's SPIR-V of the GLSL, agree with the bind
    // view's, member by member (94 members each).
    let mut sources: Vec<PathBuf> = [
        "fullscreen_vertex",
        "header_fill",
        "proof_blocks",
        "proof_uniforms",
        "proof_uniforms_auto",
        "proof_vertex",
        "wgpu_compute",
        "wgpu_render",
    ]
    .iter()
    .map(|n| root.join(format!("tests/shaders/{n}.slang")))
    .collect();
    for example in [
        "build-rs/shaders/tint.slang",
        "shaders/layered/layered.slang",
        "wgpu/shaders/scale.slang",
    ] {
        sources.push(root.join("examples").join(example));
    }
    let sources: Vec<&Path> = sources.iter().map(PathBuf::as_path).collect();
    bake(&sources, &["--target", "wgsl,glsl"], &out);
    // `[[vk::offset]]` moves a member in the SPIR-V (and so in the bind view), but Slang's
    // WGSL lays the member out where it would be without it: the WGSL bake fails naming
    // the entry point, the binding, the member and both offsets; the other targets bake.
    let source = write(
        dir.path(),
        "off.slang",
        r#"
struct Material { float4 baseColor; [[vk::offset(32)]] float2 scale; };
[[vk::binding(0, 0)]] ConstantBuffer<Material> gMaterial;
[[vk::binding(1, 0)]] RWStructuredBuffer<float> gOut;
[shader("compute")]
[numthreads(1, 1, 1)]
void main() { gOut[0] = gMaterial.baseColor.x + gMaterial.scale.y; }
"#,
    );
    std::fs::remove_file(&out).unwrap();
    let run = slangpack(&["bake", s(&source), "--target", "wgsl", "-o", s(&out)]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "off: target wgsl: entry point `main`: `gMaterial` (@group(0) @binding(0), code \
             `gMaterial_0`): member `scale`: the bind view says offset 32, size 8, stride 0; \
             naga's layout of the code says offset 16, size 8, stride 0"
        ),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn input_attachments_bake_for_glsl_and_for_metal_at_the_color_attachments_the_code_reads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("i.slangpack");
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders/input_attachments.slang");
    bake(&[&source], &["--target", "glsl,metal"], &out);
    // GLSL declares them as `subpassInput`s at their Vulkan set and binding.
    let glsl = target_bindings(&out, "glsl");
    for (path, place) in [
        ("gAlbedo", "set 0 binding 0"),
        ("gDepth", "set 0 binding 1"),
        ("gNormal", "set 0 binding 3"),
    ] {
        let b = glsl.iter().find(|b| b["path"] == path).unwrap();
        assert_eq!(b["place"], place, "{b}");
        assert_eq!(b["code_name"], format!("{path}_0"), "{b}");
    }
    let metal = target_bindings(&out, "metal");
    // Slang's Metal reads each by framebuffer fetch from the color attachment numbered by
    // its input attachment index (not in the order of Vulkan bindings).
    for (path, place) in [
        ("gAlbedo", "[[color(0)]]"),
        ("gDepth", "[[color(1)]]"),
        ("gNormal", "[[color(2)]]"),
    ] {
        let b = metal.iter().find(|b| b["path"] == path).unwrap();
        assert_eq!(b["place"], place, "{b}");
        assert_eq!(b["register_class"], "c", "{b}");
        assert_eq!(b["code_name"], format!("{path}_0"), "{b}");
    }
}

/// The bind view of `target` in the first entry of `package`, as `dump --json` lists it.
fn target_bindings(package: &Path, target: &str) -> Vec<serde_json::Value> {
    let json = slangpack(&["dump", "--json", s(package)]);
    assert_eq!(json.status.code(), Some(0), "{}", text(&json.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    doc["entries"][0]["target_bindings"][target]
        .as_array()
        .unwrap()
        .clone()
}

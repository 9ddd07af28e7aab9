//! The compile options engines bake with, and SPIR-V newer than any grammar: each bakes, its
//! bind view passes the bake-time check against the SPIR-V, and what it states is what the
//! code declares (lavapipe builds the pipelines it has the features for, with the validation
//! layer silent).

use slangpack_reader::Package;
use slangpack_tests::layout;
use slangpack_tests::vk::Vk;
use slangpack_writer::bake::{self, BakeConfig};
use slangpack_writer::compile::{CompileOptions, DebugLevel, GlobalsBinding, WarningControl};
use slangpack_writer::options;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn bake_with(inputs: Vec<PathBuf>, options: CompileOptions) -> Result<Vec<u8>, String> {
    let mut config = BakeConfig::new(inputs);
    config.options = options;
    bake::bake(&config)
        .map(|o| o.bytes.into_vec())
        .map_err(|e| format!("{e}\n{}", e.diagnostics()))
}

const TWO_STAGES: &str = r#"
RWStructuredBuffer<float4> gOut;
uniform float4 gTint;

[shader("compute")]
[numthreads(1, 1, 1)]
void simulate() { gOut[0] = gTint; }

// No [shader(...)] attribute: an entry point only when a stage is given for it.
void fill(uint3 id : SV_DispatchThreadID) { gOut[id.x] = gTint * 2; }
"#;

/// `-e NAME:STAGE` gives a stage to a function without `[shader(...)]`, as `slangc -entry
/// NAME -stage S` does; without a stage the function is refused with a message saying how to
/// give one. `--keep-entry-point-names` makes each SPIR-V entry name Slang's, which the bind
/// view states and lavapipe builds with.
#[test]
fn stages_given_on_the_command_line_and_slang_entry_names_kept_build_on_lavapipe() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "stages.slang", TWO_STAGES);
    let without_stage = bake_with(
        vec![file.clone()],
        CompileOptions {
            entry_points: vec!["fill".into()],
            ..CompileOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        without_stage.contains("give its stage as `fill:STAGE`"),
        "{without_stage}"
    );
    let unknown = bake_with(
        vec![file.clone()],
        CompileOptions {
            entry_points: vec!["fill:sideways".into()],
            ..CompileOptions::default()
        },
    )
    .unwrap_err();
    assert!(unknown.contains("no stage named `sideways`"), "{unknown}");

    for keep in [false, true] {
        let bytes = bake_with(
            vec![file.clone()],
            CompileOptions {
                entry_points: vec!["simulate".into(), "fill:compute".into()],
                keep_entry_point_names: keep,
                ..CompileOptions::default()
            },
        )
        .unwrap();
        let package = Package::from_bytes(&bytes).unwrap();
        let entry = package.load("stages").unwrap();
        let names: Vec<(&str, &str)> = entry
            .entry_points()
            .map(|ep| (ep.name(), ep.spirv_entry_name()))
            .collect();
        let expected = if keep {
            [("simulate", "simulate"), ("fill", "fill")]
        } else {
            [("simulate", "main"), ("fill", "main")]
        };
        assert_eq!(names, expected);
        let program = layout::describe(&entry).unwrap();
        let mut vk = Vk::new().expect("lavapipe with the validation layer");
        let pipeline_layout = vk
            .pipeline_layout(&program.pipeline_layout_desc(16))
            .unwrap();
        for ep in &program.entry_points {
            vk.compute_pipeline(&pipeline_layout, &ep.spirv, &ep.spirv_entry_name)
                .unwrap();
        }
        let messages = vk.finish();
        assert!(messages.is_empty(), "{messages:?}");
    }
}

/// `--bind-globals BINDING SET` moves the implicit global uniform buffer; the bind view says
/// where, checked against the SPIR-V's decorations.
#[test]
fn the_globals_binding_moves_the_global_uniform_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "globals.slang", TWO_STAGES);
    let place = |globals_binding| {
        let bytes = bake_with(
            vec![file.clone()],
            CompileOptions {
                globals_binding,
                ..CompileOptions::default()
            },
        )
        .unwrap();
        let package = Package::from_bytes(&bytes).unwrap();
        let entry = package.load("globals").unwrap();
        let bind = entry.bind();
        let global = bind
            .bindings()
            .iter()
            .find(|b| b.kind() == slangpack_format::bind::DescriptorKind::UniformBuffer)
            .expect("the global uniform buffer");
        (global.set, global.binding)
    };
    assert_eq!(place(None), (0, 0));
    assert_eq!(place(Some(GlobalsBinding { binding: 5, set: 2 })), (2, 5));
}

/// Warning controls: `-W error` turns Slang's warning into a failed bake with the warning
/// verbatim, `-W no-<number>` silences it.
#[test]
fn warning_controls_fail_on_warnings_or_silence_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "warns.slang",
        "RWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(1,1,1)]\n\
         void main() { int unused = 0; float x; gOut[0] = float4(x, 0, 0, 1); }\n",
    );
    let warnings = |controls: &[&str]| -> Result<String, String> {
        let mut config = BakeConfig::new(vec![file.clone()]);
        config.options.warnings = controls
            .iter()
            .map(|c| options::warning(c).unwrap())
            .collect();
        bake::bake(&config)
            .map(|o| o.entries[0].warnings.clone())
            .map_err(|e| e.diagnostics().to_string())
    };
    let plain = warnings(&[]).unwrap();
    let code = plain
        .split("warning[E")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("Slang warns about the uninitialised variable: {plain}"))
        .to_string();
    let as_error = warnings(&["error"]).unwrap_err();
    assert!(as_error.contains(&code), "{as_error}");
    let silenced = warnings(&[&format!("no-{code}")]).unwrap();
    assert!(!silenced.contains(&format!("E{code}")), "{silenced}");
    assert_eq!(
        options::warning("error=30081").unwrap(),
        WarningControl::AsErrors("30081".into())
    );
}

/// A module in GLSL syntax (`#version`, a `buffer` block, `gl_GlobalInvocationID`) compiles:
/// Slang's GLSL module is enabled as `slangc` enables it.
#[test]
fn glsl_syntax_modules_compile() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "glslish.slang",
        "#version 460\nlayout(std430, binding = 3) buffer Data { float values[]; } data;\n\
         [shader(\"compute\")][numthreads(8, 1, 1)]\n\
         void main() { data.values[gl_GlobalInvocationID.x] *= 2.0; }\n",
    );
    let bytes = bake_with(vec![file], CompileOptions::default()).unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("glslish").unwrap();
    let bind = entry.bind();
    let places: Vec<(u32, u32, &str)> = bind
        .bindings()
        .iter()
        .map(|b| (b.set, b.binding, bind.string(b.path)))
        .collect();
    assert_eq!(places, [(0, 3, "data")]);
}

/// SPIR-V that uses what no grammar of the checker's SPIR-V crate needs to know — shader
/// execution reordering, cooperative vectors, compute derivatives, ray-tracing position fetch,
/// mesh and task shaders — and every debug level: each bakes, its bind view passes the check
/// against the SPIR-V, and states the bindings the code declares.
#[test]
fn newer_spirv_and_every_debug_level_bake_and_pass_the_check() {
    let dir = layout::test_shaders_dir().join("spirv");
    let expected: [(&str, &[&str]); 5] = [
        ("coopvec", &["gWeights", "gOut"]),
        ("derivatives", &["gTexture", "gSampler", "gOut"]),
        ("mesh", &["gTransform"]),
        ("position_fetch", &["gScene", "gOut"]),
        ("ser", &["gScene", "gImage"]),
    ];
    for debug_level in [
        DebugLevel::None,
        DebugLevel::Minimal,
        DebugLevel::Standard,
        DebugLevel::Maximal,
    ] {
        for (name, bindings) in expected {
            let bytes = bake_with(
                vec![dir.join(format!("{name}.slang"))],
                CompileOptions {
                    debug_level,
                    ..CompileOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{name} {debug_level:?}: {e}"));
            let package = Package::from_bytes(&bytes).unwrap();
            let entry = package.load(name).unwrap();
            let bind = entry.bind();
            let mut got: Vec<&str> = bind
                .bindings()
                .iter()
                .map(|b| bind.string(b.path))
                .collect();
            let mut want = bindings.to_vec();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{name} {debug_level:?}");
            // Debug information is in the stored SPIR-V (`OpExtInstImport` of
            // `NonSemantic.Shader.DebugInfo.100`) at the standard level and above.
            let debug_info = entry.entry_points().any(|ep| {
                let bytes: Vec<u8> = ep.spirv().iter().flat_map(|w| w.to_le_bytes()).collect();
                bytes.windows(9).any(|w| w == b"NonSemant")
            });
            assert_eq!(
                debug_info,
                matches!(debug_level, DebugLevel::Standard | DebugLevel::Maximal),
                "{name} {debug_level:?}"
            );
        }
    }
}

/// Shader execution reordering in its NV form too (`spvShaderInvocationReorderNV`:
/// `SPV_NV_shader_invocation_reorder`, `OpTypeHitObjectNV`), which an SDK 1.3.268 grammar
/// never knew: it bakes and its bind view passes the check.
#[test]
fn shader_execution_reordering_nv_bakes() {
    let bytes = bake_with(
        vec![layout::test_shaders_dir().join("spirv/ser.slang")],
        CompileOptions {
            capabilities: vec!["spvShaderInvocationReorderNV".into()],
            ..CompileOptions::default()
        },
    )
    .unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("ser").unwrap();
    let ray_gen = entry.entry_points().next().unwrap();
    let code: Vec<u8> = ray_gen
        .spirv()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let nv = b"SPV_NV_shader_invocation_reorder";
    assert!(code.windows(nv.len()).any(|w| w == nv));
    let bind = entry.bind();
    let mut names: Vec<&str> = bind
        .bindings()
        .iter()
        .map(|b| bind.string(b.path))
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["gImage", "gScene"]);
}

/// A constant buffer of a value that is no struct (`ConstantBuffer<float4>`): Slang wraps the
/// value in a block of one unnamed member; the bind view's buffer is the value (no members),
/// spirv-cross sees the same binding, and lavapipe builds the pipeline.
#[test]
fn constant_buffers_of_a_value_that_is_no_struct_bake() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "value.slang",
        "ConstantBuffer<float4> gColor;\nConstantBuffer<float4x4> gTransform;\n\
         RWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(1,1,1)]\n\
         void main() { gOut[0] = mul(gTransform, gColor); }\n",
    );
    let bytes = bake_with(vec![file], CompileOptions::default()).unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("value").unwrap();
    let bind = entry.bind();
    let sizes: Vec<(&str, u32)> = ["gColor", "gTransform"]
        .into_iter()
        .map(|name| (name, bind.buffer(name).expect(name).size))
        .collect();
    assert_eq!(sizes, [("gColor", 16), ("gTransform", 64)]);
    let ours = layout::describe(&entry).unwrap();
    let oracle = layout::describe_with_spirv_cross(&entry).unwrap();
    let places = |l: &layout::ProgramLayout| -> Vec<(u32, u32, String)> {
        l.bindings
            .iter()
            .map(|b| (b.set, b.binding, format!("{:?}", b.ty)))
            .collect()
    };
    assert_eq!(places(&ours), places(&oracle));
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let pipeline_layout = vk.pipeline_layout(&ours.pipeline_layout_desc(16)).unwrap();
    let ep = &ours.entry_points[0];
    vk.compute_pipeline(&pipeline_layout, &ep.spirv, &ep.spirv_entry_name)
        .unwrap();
    let messages = vk.finish();
    assert!(messages.is_empty(), "{messages:?}");
}

const HLSL_REGISTERS: &str = r#"
Texture2D<float4> tex : register(t2);
Texture2D<float4> texNoRegister;
SamplerState samp : register(s1);
RWStructuredBuffer<float4> outBuf : register(u0, space1);
cbuffer Consts : register(b0) { float4 tint; };
uniform float gScale;
[shader("compute")]
[numthreads(1, 1, 1)]
void main()
{
    outBuf[0] = (tex.SampleLevel(samp, float2(0, 0), 0) + texNoRegister.Load(int3(0, 0, 0)))
        * tint * gScale;
}
"#;

/// `--vk-shift CLASS SHIFT SET` (HLSL code shared with Direct3D) with `--bind-globals`: each
/// register class lands at its shifted binding (Slang reports such resources under their HLSL
/// register class, not as descriptor slots), the bind view agrees with spirv-cross, and
/// lavapipe builds the pipeline.
#[test]
fn binding_shifts_place_hlsl_registers_as_spirv_cross_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "registers.slang", HLSL_REGISTERS);
    let shifts = ["t 10 0", "s 20 0", "u 30 1", "b 40 0"]
        .map(|s| s.parse().unwrap())
        .to_vec();
    let bytes = bake_with(
        vec![file],
        CompileOptions {
            binding_shifts: shifts,
            globals_binding: Some(GlobalsBinding { binding: 5, set: 2 }),
            ..CompileOptions::default()
        },
    )
    .unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("registers").unwrap();
    let bind = entry.bind();
    let mut places: Vec<(u32, u32, &str)> = bind
        .bindings()
        .iter()
        .map(|b| (b.set, b.binding, bind.string(b.path)))
        .collect();
    places.sort_unstable();
    assert_eq!(
        places,
        [
            (0, 10, "texNoRegister"),
            (0, 12, "tex"),
            (0, 21, "samp"),
            (0, 40, "Consts"),
            (1, 30, "outBuf"),
            (2, 5, "")
        ]
    );
    let ours = layout::describe(&entry).unwrap();
    let oracle = layout::describe_with_spirv_cross(&entry).unwrap();
    let sorted = |l: &layout::ProgramLayout| -> Vec<(u32, u32, String)> {
        let mut v: Vec<_> = l
            .bindings
            .iter()
            .map(|b| (b.set, b.binding, format!("{:?} {:?}", b.ty, b.count)))
            .collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&ours), sorted(&oracle));
    let mut vk = Vk::new().expect("lavapipe with the validation layer");
    let pipeline_layout = vk.pipeline_layout(&ours.pipeline_layout_desc(64)).unwrap();
    let ep = &ours.entry_points[0];
    vk.compute_pipeline(&pipeline_layout, &ep.spirv, &ep.spirv_entry_name)
        .unwrap();
    let messages = vk.finish();
    assert!(messages.is_empty(), "{messages:?}");
}

/// A real compiler crash: Slang 2026.12 segfaults laying out the implicit global uniform
/// buffer when binding shifts are set and no `--bind-globals` places it. In a worker process
/// it costs that permutation: the error names the key and the signal, and the other
/// permutation of the bake is baked.
#[test]
fn a_real_slang_segfault_fails_only_its_permutation() {
    if !slangpack_writer::worker::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "registers.slang", HLSL_REGISTERS);
    write(
        dir.path(),
        "healthy.slang",
        "Texture2D<float4> tex : register(t0);\nRWStructuredBuffer<float4> gOut;\n\
         [shader(\"compute\")][numthreads(1,1,1)]\n\
         void main() { gOut[0] = tex.Load(int3(0, 0, 0)); }\n",
    );
    let mut config = BakeConfig::new(vec![dir.path().to_path_buf()]);
    config.options.binding_shifts = vec!["t 10 0".parse().unwrap()];
    config.keep_going = true;
    let outcome = bake::bake(&config).unwrap();
    let keys: Vec<&str> = outcome.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["healthy"]);
    match outcome.failures.as_slice() {
        [slangpack_writer::BakeError::Worker { key, failure, .. }] => {
            assert_eq!(key, "registers");
            assert!(failure.contains("SIGSEGV"), "{failure}");
        }
        other => panic!("{other:?}"),
    }
}

//! A uniform buffer filled through a generated bind header (`slangpack header --lang rust`)
//! binds byte for byte on lavapipe. The header is a golden file, checked to be what the writer
//! generates today (`SLANGPACK_BLESS=1` rewrites it).

use ash::vk;
use slangpack_reader::Package;
use slangpack_tests::vk::{BindingDesc, PipelineLayoutDesc, Vk};
use slangpack_tools::header::{generate, Language};
use slangpack_writer::bake::{self, BakeConfig};
use std::path::{Path, PathBuf};

mod golden {
    include!("../golden/header_fill.rs");
}
use golden::header_fill::{GParams, GParamsLights, G_OUT_BINDING, G_PARAMS_BINDING, G_PARAMS_SET};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn bake() -> Package {
    let shader = root().join("shaders/header_fill.slang");
    let outcome = bake::bake(&BakeConfig::new(vec![shader])).expect("bakes");
    Package::from_bytes(&outcome.bytes).expect("opens")
}

#[test]
fn the_golden_header_is_what_the_writer_generates() {
    let text = generate(&bake(), Language::Rust, None).expect("generates");
    let golden = root().join("golden/header_fill.rs");
    if std::env::var_os("SLANGPACK_BLESS").is_some() {
        std::fs::write(&golden, &text).unwrap();
    }
    let stored = std::fs::read_to_string(&golden).unwrap();
    assert!(
        stored == text,
        "tests/golden/header_fill.rs is stale: rerun with SLANGPACK_BLESS=1"
    );
}

#[test]
fn a_uniform_buffer_filled_through_the_generated_struct_binds_byte_for_byte() {
    let package = bake();
    let entry = package.load("header_fill").unwrap();
    let ep = entry.entry_points().next().unwrap();

    // Distinct values everywhere, through the generated struct only.
    let mut value = 1.0f32;
    let mut next = || {
        value += 0.25;
        value
    };
    let params = GParams {
        tint: [next(), next(), next(), next()],
        m: [
            [next(), next(), next(), next()],
            [next(), next(), next(), next()],
            [next(), next(), next(), next()],
        ],
        lights: [
            GParamsLights {
                dir: [next(), next(), next()],
                intensity: next(),
            },
            GParamsLights {
                dir: [next(), next(), next()],
                intensity: next(),
            },
        ],
        scale: next(),
        flags: 0xC0FF_EE11,
        ..GParams::ZEROED
    };
    // The struct derives `bytemuck::Pod` (its padding is explicit): its bytes are what
    // `write_le_bytes` appends, and they are what the GPU is given below.
    let mut written = Vec::new();
    params.write_le_bytes(&mut written);
    let bytes = bytemuck::bytes_of(&params).to_vec();
    assert_eq!(bytes, written);
    assert_eq!(bytes.len(), std::mem::size_of::<GParams>());
    assert_eq!(
        bytemuck::bytes_of(&<GParams as bytemuck::Zeroable>::zeroed()),
        bytemuck::bytes_of(&GParams::ZEROED)
    );
    let mut expected: Vec<u32> = params.tint.iter().map(|f| f.to_bits()).collect();
    expected.extend(params.m.iter().flatten().map(|f| f.to_bits()));
    for light in &params.lights {
        expected.extend(light.dir.iter().map(|f| f.to_bits()));
        expected.push(light.intensity.to_bits());
    }
    expected.push(params.scale.to_bits());
    expected.push(params.flags);

    let mut vk = Vk::new().expect("lavapipe");
    let layout = vk
        .pipeline_layout(&PipelineLayoutDesc {
            sets: vec![Some(vec![
                BindingDesc {
                    binding: G_PARAMS_BINDING,
                    ty: vk::DescriptorType::UNIFORM_BUFFER,
                    count: 1,
                    stages: vk::ShaderStageFlags::COMPUTE,
                    flags: vk::DescriptorBindingFlags::empty(),
                    mutable_types: 0,
                },
                BindingDesc {
                    binding: G_OUT_BINDING,
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    count: 1,
                    stages: vk::ShaderStageFlags::COMPUTE,
                    flags: vk::DescriptorBindingFlags::empty(),
                    mutable_types: 0,
                },
            ])],
            push_constants: vec![],
        })
        .expect("layout");
    assert_eq!(G_PARAMS_SET, 0);
    let name = std::ffi::CString::new(ep.spirv_entry_name()).unwrap();
    let spirv = slangpack_tests::vk::for_old_validator(ep.spirv());
    let pipeline = vk
        .compute_pipeline(&layout, &spirv, &name)
        .expect("pipeline");
    let uniforms = vk
        .buffer(bytes.len() as u64, vk::BufferUsageFlags::UNIFORM_BUFFER)
        .unwrap();
    vk.write(&uniforms, 0, &bytes);
    let out = vk
        .buffer(
            4 * expected.len() as u64,
            vk::BufferUsageFlags::STORAGE_BUFFER,
        )
        .unwrap();
    let sets = vk.descriptor_sets(&layout, &[]).expect("sets");
    let set = sets[0].unwrap();
    vk.write_buffer(
        set,
        G_PARAMS_BINDING,
        0,
        vk::DescriptorType::UNIFORM_BUFFER,
        &uniforms,
    );
    vk.write_buffer(
        set,
        G_OUT_BINDING,
        0,
        vk::DescriptorType::STORAGE_BUFFER,
        &out,
    );
    vk.dispatch(pipeline, &layout, &sets, &[], [1, 1, 1])
        .expect("dispatch");
    let words: Vec<u32> = vk
        .read(&out)
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let problems = vk.finish();
    assert!(problems.is_empty(), "validation: {problems:#?}");
    assert_eq!(words, expected);
}

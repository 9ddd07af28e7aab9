//! The hashed strings the writer bakes carry Slang's own hash: a shader computes
//! `getStringHash` on lavapipe, and the words it writes equal the baked `HashedString` hashes
//! (and `slangpack_writer::string_hash`, i.e. `spComputeStringHash`).

use ash::vk;
use slangpack_format::{HashedString, StringRef};
use slangpack_tests::vk::{BindingDesc, PipelineLayoutDesc, Vk};
use slangpack_writer::compile::{CompileOptions, Compiler, Source};
use slangpack_writer::reflect::build_reflection;
use slangpack_writer::string_hash;

#[test]
fn get_string_hash_on_the_gpu_equals_the_baked_hashed_strings() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../writer/tests/shaders/string_hash.slang");
    let source = Source::read(&path).expect("shader");
    let program = Compiler::new()
        .expect("Slang")
        .compile("string_hash", &source, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{}", e.diagnostics()));

    // What the writer bakes.
    let builder = build_reflection(&program).expect("walk");
    let baked: Vec<(String, u32)> = (0..builder.table_len::<HashedString>())
        .map(|i| {
            let h: HashedString = builder.get(i).unwrap();
            let r: StringRef = builder.get(h.string).unwrap();
            let bytes: Vec<u8> = (r.offset..r.offset + r.len)
                .map(|b| builder.get::<u8>(b).unwrap())
                .collect();
            (String::from_utf8(bytes).unwrap(), h.hash)
        })
        .collect();
    let names: Vec<&str> = baked.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        names,
        ["slangpack", "hello world", "gMaterial.params.roughness"]
    );

    // What the shader computes.
    let mut vk = Vk::new().expect("lavapipe");
    let layout = vk
        .pipeline_layout(&PipelineLayoutDesc {
            sets: vec![Some(vec![BindingDesc {
                binding: 0,
                ty: vk::DescriptorType::STORAGE_BUFFER,
                count: 1,
                stages: vk::ShaderStageFlags::COMPUTE,
                flags: vk::DescriptorBindingFlags::empty(),
                mutable_types: 0,
            }])],
            push_constants: vec![],
        })
        .expect("layout");
    let entry = &program.entry_points[0];
    let name = std::ffi::CString::new(entry.spirv_entry_name.clone()).unwrap();
    let pipeline = vk
        .compute_pipeline(&layout, &entry.spirv, &name)
        .expect("pipeline");
    let out = vk
        .buffer(16, vk::BufferUsageFlags::STORAGE_BUFFER)
        .expect("buffer");
    let sets = vk.descriptor_sets(&layout, &[]).expect("sets");
    vk.write_buffer(
        sets[0].unwrap(),
        0,
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

    for (i, (s, hash)) in baked.iter().enumerate() {
        assert_eq!(
            words[i], *hash,
            "GPU getStringHash({s:?}) vs the baked hash"
        );
        assert_eq!(string_hash(s), *hash);
    }
}

//! The package's bind view (what the Vulkan tests bind with) against an independent oracle:
//! `spirv-cross --reflect` on the same stored SPIR-V. For every example and test shader:
//! the same descriptors at the same sets and bindings with the same types, counts, image
//! formats and names; buffers whose every read lands on the same byte offsets (offsets,
//! strides, array counts, matrix layouts); the same push-constant reads; vertex inputs the
//! SPIR-V declares at the locations and formats the bind view states.

use slangpack_reader::Package;
use slangpack_tests::layout::{self, ProgramLayout};
use slangpack_tests::proof::read_offsets;
use slangpack_tests::vk::{BindingDesc, PipelineLayoutDesc};
use slangpack_writer::compile::{BufferLayout, CompileOptions, DebugLevel};
use std::path::PathBuf;

fn both(inputs: &[PathBuf], options: &CompileOptions) -> Vec<(ProgramLayout, ProgramLayout)> {
    let bytes = layout::bake_with(inputs, options.clone());
    let package = Package::from_bytes(&bytes).expect("the package opens");
    package
        .entries()
        .map(|entry| {
            let entry = entry.expect("the entry loads");
            (
                layout::from_bind_view(&entry).expect("bind view"),
                layout::describe_with_spirv_cross(&entry).expect("spirv-cross"),
            )
        })
        .collect()
}

/// Every difference between the bind view and the oracle, as readable lines.
fn differences(bind: &ProgramLayout, oracle: &ProgramLayout) -> Vec<String> {
    let key = &bind.key;
    let mut out = Vec::new();
    for o in &oracle.bindings {
        let Some(b) = bind
            .bindings
            .iter()
            .find(|b| (b.set, b.binding) == (o.set, o.binding))
        else {
            out.push(format!(
                "{key}: SPIR-V declares {} at set {} binding {}, the bind view does not",
                o.name, o.set, o.binding
            ));
            continue;
        };
        let what = format!("{key}: set {} binding {} ({})", o.set, o.binding, o.name);
        if (b.ty, b.count, &b.name, &b.image_format) != (o.ty, o.count, &o.name, &o.image_format) {
            out.push(format!(
                "{what}: bind view {:?} {:?} {:?} {:?}, SPIR-V {:?} {:?} {:?} {:?}",
                b.ty, b.count, b.name, b.image_format, o.ty, o.count, o.name, o.image_format
            ));
        }
        if !b.stages.contains(o.stages) {
            out.push(format!("{what}: stages {:?} miss {:?}", b.stages, o.stages));
        }
        match (&b.buffer, &o.buffer) {
            (Some(bb), Some(ob)) => {
                let (br, or) = (read_offsets(&bb.members, 3), read_offsets(&ob.members, 3));
                if br != or {
                    out.push(format!(
                        "{what}: buffer reads differ:\n  bind view {br:?}\n  SPIR-V    {or:?}"
                    ));
                }
            }
            (None, None) => {}
            (b, o) => out.push(format!("{what}: buffer layout {b:?} vs {o:?}")),
        }
    }
    for b in &bind.bindings {
        if !oracle
            .bindings
            .iter()
            .any(|o| (o.set, o.binding) == (b.set, b.binding))
        {
            out.push(format!(
                "{key}: the bind view has {} at set {} binding {}, no SPIR-V module declares it",
                b.name, b.set, b.binding
            ));
        }
    }
    if bind.push_constants.len() != oracle.push_constants.len() {
        out.push(format!(
            "{key}: push constants {:?} vs {:?}",
            bind.push_constants, oracle.push_constants
        ));
    }
    for (b, o) in bind.push_constants.iter().zip(&oracle.push_constants) {
        if read_offsets(&b.layout.members, 0) != read_offsets(&o.layout.members, 0) {
            out.push(format!("{key}: push-constant reads differ"));
        }
        // Exactly the block's extent in the SPIR-V: a wider range makes blocks of two stages
        // overlap that do not.
        if b.offset != o.offset
            || b.offset + b.size != o.offset + o.size
            || !b.stages.contains(o.stages)
        {
            out.push(format!(
                "{key}: push range {}+{} {:?} vs SPIR-V {}+{} {:?}",
                b.offset, b.size, b.stages, o.offset, o.size, o.stages
            ));
        }
    }
    for (index, oracle_inputs) in oracle.vertex_inputs.iter().enumerate() {
        for o in oracle_inputs {
            let found = bind.vertex_inputs[index]
                .iter()
                .any(|b| (b.location, b.format, b.size) == (o.location, o.format, o.size));
            if !found {
                out.push(format!("{key}: vertex input {o:?} is not in the bind view"));
            }
        }
    }
    out.extend(vk_differences(bind, oracle));
    out
}

/// The Vulkan layouts built from the bind view through the reader's `ash` conversion against
/// those built from the oracle's description: the same descriptors with the same types,
/// counts and binding flags (unbounded arrays partially bound, update after bind, the highest
/// one variable-count), stages covering the SPIR-V's, push-constant ranges covering the
/// SPIR-V's block, and the same vertex attributes.
fn vk_differences(bind: &ProgramLayout, oracle: &ProgramLayout) -> Vec<String> {
    // A whole-program description builds through the reader's `ash` conversion; a pipeline's
    // (`layout::from_pipeline`) from its own bindings.
    assert!(oracle.source.is_none());
    let key = &bind.key;
    let mut out = Vec::new();
    let (b, o) = (
        bind.pipeline_layout_desc(64),
        oracle.pipeline_layout_desc(64),
    );
    let flatten = |sets: &[Option<Vec<BindingDesc>>]| -> Vec<(u32, BindingDesc)> {
        sets.iter()
            .enumerate()
            .flat_map(|(set, bindings)| bindings.iter().flatten().map(move |b| (set as u32, *b)))
            .collect()
    };
    let (bs, os) = (flatten(&b.sets), flatten(&o.sets));
    let strip = |(set, d): &(u32, BindingDesc)| (*set, d.binding, d.ty, d.count, d.flags);
    if bs.iter().map(strip).collect::<Vec<_>>() != os.iter().map(strip).collect::<Vec<_>>() {
        out.push(format!("{key}: ash set layouts {bs:?}\n  oracle's {os:?}"));
    }
    for ((_, bd), (_, od)) in bs.iter().zip(&os) {
        if !bd.stages.contains(od.stages) {
            out.push(format!(
                "{key}: ash binding {bd:?} misses the stages of {od:?}"
            ));
        }
    }
    for (i, set) in b.sets.iter().enumerate() {
        if set.is_none() && o.sets.get(i).is_some_and(Option::is_some) {
            out.push(format!("{key}: set {i} is a hole in the ash layout only"));
        }
    }
    let ranges = |d: &PipelineLayoutDesc| -> Vec<_> {
        d.push_constants
            .iter()
            .map(|r| (r.offset, r.size, r.stage_flags))
            .collect()
    };
    // Each range (one per block, by offset) is the oracle's with at least its stages.
    let (br, or) = (ranges(&b), ranges(&o));
    let covers = br.len() == or.len()
        && br.iter().zip(&or).all(|(&(bo, bs, bst), &(oo, os, ost))| {
            bo == oo && bo + bs == oo + os && bst.contains(ost)
        });
    if !covers {
        out.push(format!("{key}: ash push ranges {br:?}, oracle's {or:?}"));
    }
    for index in 0..oracle.entry_points.len() {
        let (ba, oa) = (
            bind.vertex_attributes(index),
            oracle.vertex_attributes(index),
        );
        if ba != oa {
            out.push(format!(
                "{key}: ash vertex attributes of entry point {index} {ba:?}, oracle's {oa:?}"
            ));
        }
    }
    out
}

fn check(inputs: &[PathBuf]) -> usize {
    check_with(inputs, &CompileOptions::default())
}

fn check_with(inputs: &[PathBuf], options: &CompileOptions) -> usize {
    let mut all = Vec::new();
    let mut bindings = 0;
    for (bind, oracle) in both(inputs, options) {
        bindings += oracle.bindings.len();
        all.extend(differences(&bind, &oracle));
    }
    assert!(
        all.is_empty(),
        "bind view != spirv-cross:\n{}",
        all.join("\n")
    );
    bindings
}

#[test]
fn the_bind_view_of_every_example_matches_spirv_cross() {
    assert!(check(&[layout::example_shaders_dir()]) > 10);
}

fn check_test_shader(name: &str) -> usize {
    check(&[layout::test_shaders_dir().join(format!("{name}.slang"))])
}

#[test]
fn the_bind_view_of_the_uniforms_proof_matches_spirv_cross() {
    assert_eq!(check_test_shader("proof_uniforms"), 3);
}

#[test]
fn the_bind_view_of_the_uniforms_proof_without_explicit_bindings_matches_spirv_cross() {
    assert_eq!(check_test_shader("proof_uniforms_auto"), 3);
}

#[test]
fn the_bind_view_of_the_vertex_proof_matches_spirv_cross() {
    assert_eq!(check_test_shader("proof_vertex"), 1);
}

#[test]
fn the_bind_view_of_the_resources_proof_matches_spirv_cross() {
    assert_eq!(check_test_shader("proof_resources"), 11);
}

#[test]
fn the_bind_view_of_the_blocks_proof_matches_spirv_cross() {
    assert_eq!(check_test_shader("proof_blocks"), 6);
}

#[test]
fn the_bind_view_of_the_bindless_proof_matches_spirv_cross() {
    assert_eq!(check_test_shader("proof_bindless"), 3);
}

#[test]
fn the_bind_view_of_the_fullscreen_vertex_shader_matches_spirv_cross() {
    assert_eq!(check_test_shader("fullscreen_vertex"), 0);
}

/// Each pipeline of a file whose pipelines share binding numbers, described by
/// `Entry::pipeline`, against spirv-cross on the SPIR-V of that pipeline's entry points only:
/// the same bindings and push-constant reads, and exactly the same stage flags.
#[test]
fn each_pipeline_of_one_file_matches_spirv_cross_on_its_own_entry_points() {
    let bytes = layout::bake(&[layout::test_shaders_dir().join("pipelines.slang")]);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    let entry = package.load("pipelines").unwrap();
    let pipelines: [&[&str]; 4] = [
        &["vertexMain", "fragmentMain"],
        &["simulate"],
        &["vertexMain"],
        &["fragmentMain"],
    ];
    let mut compared = 0;
    for names in pipelines {
        let bind = layout::from_pipeline(&entry, names).unwrap();
        let code = layout::entry_point_code(&entry)
            .unwrap()
            .into_iter()
            .filter(|e| names.contains(&e.name.as_str()))
            .collect();
        let oracle = layout::from_spirv_cross(entry.key(), code).unwrap();
        let mut all = differences(&bind, &oracle);
        for (b, o) in bind.bindings.iter().zip(&oracle.bindings) {
            if (b.set, b.binding, b.stages) != (o.set, o.binding, o.stages) {
                all.push(format!("{names:?}: {b:?} vs {o:?}"));
            }
        }
        for (b, o) in bind.push_constants.iter().zip(&oracle.push_constants) {
            if b.stages != o.stages {
                all.push(format!(
                    "{names:?}: push stages {:?} vs {:?}",
                    b.stages, o.stages
                ));
            }
        }
        assert!(all.is_empty(), "{names:?}:\n{}", all.join("\n"));
        assert_eq!(bind.bindings.len(), oracle.bindings.len(), "{names:?}");
        compared += oracle.bindings.len() + oracle.push_constants.len();
    }
    assert_eq!(compared, (4 + 2) + (2 + 1) + (2 + 1) + (3 + 1));
}

/// Every example and every test shader of the oracle tests above, baked with each debug
/// level (Slang's `-g` writes `NonSemantic.Shader.DebugInfo.100` instructions at module
/// scope), with the scalar and Direct3D buffer layouts, and with Slang's entry-point names
/// kept: each bakes, and its bind view matches spirv-cross on the SPIR-V it describes.
#[test]
fn every_shader_baked_with_the_options_engines_use_matches_spirv_cross() {
    let mut inputs = vec![layout::example_shaders_dir()];
    for name in [
        "proof_uniforms",
        "proof_uniforms_auto",
        "proof_vertex",
        "proof_resources",
        "proof_blocks",
        "proof_bindless",
        "fullscreen_vertex",
        "entry_point_resources",
        "entry_point_resources_graphics",
        "cbuffer_resources",
        "specialized_arrays",
        "struct_resource_arrays",
        "proof_parameter_shapes",
        "empty_constant_buffer",
        "nested_parameter_block",
    ] {
        inputs.push(layout::test_shaders_dir().join(format!("{name}.slang")));
    }
    inputs.push(layout::test_shaders_dir().join("specialized/existential_block.toml"));
    inputs.push(layout::test_shaders_dir().join("specialized/existential_value.toml"));
    inputs.push(layout::test_shaders_dir().join("specialized/existential_field.toml"));
    inputs.push(layout::test_shaders_dir().join("specialized/existential_block_packed.toml"));
    inputs.push(layout::test_shaders_dir().join("specialized/existential_push.toml"));
    inputs.push(layout::test_shaders_dir().join("specialized/existential_small.toml"));
    inputs.push(layout::test_shaders_dir().join("specialized/existential_argument_buffer.toml"));
    let mut variants: Vec<(String, CompileOptions)> = [
        DebugLevel::Minimal,
        DebugLevel::Standard,
        DebugLevel::Maximal,
    ]
    .into_iter()
    .map(|debug_level| {
        (
            format!("{debug_level:?}"),
            CompileOptions {
                debug_level,
                ..CompileOptions::default()
            },
        )
    })
    .collect();
    for buffer_layout in [BufferLayout::Scalar, BufferLayout::Dx] {
        variants.push((
            format!("{buffer_layout:?}"),
            CompileOptions {
                buffer_layout,
                ..CompileOptions::default()
            },
        ));
    }
    variants.push((
        "keep_entry_point_names".into(),
        CompileOptions {
            keep_entry_point_names: true,
            ..CompileOptions::default()
        },
    ));
    for (name, options) in &variants {
        let bindings = check_with(&inputs, options);
        assert!(bindings > 30, "{name}: {bindings} bindings compared");
    }
}

#[test]
fn the_bind_view_of_entry_point_resource_parameters_matches_spirv_cross() {
    assert_eq!(check_test_shader("entry_point_resources"), 6);
    assert_eq!(check_test_shader("entry_point_resources_graphics"), 1 + 3);
}

#[test]
fn the_bind_view_of_resources_inside_constant_buffers_matches_spirv_cross() {
    assert_eq!(check_test_shader("cbuffer_resources"), 6);
}

#[test]
fn the_bind_view_of_arrays_sized_by_specialization_constants_matches_spirv_cross() {
    assert_eq!(check_test_shader("specialized_arrays"), 2);
}

#[test]
fn the_bind_view_of_arrays_of_structs_holding_resources_matches_spirv_cross() {
    assert_eq!(check_test_shader("struct_resource_arrays"), 5);
}

#[test]
fn the_bind_view_of_an_interface_typed_block_specialized_by_a_type_argument_matches_spirv_cross() {
    let manifest = layout::test_shaders_dir().join("specialized/existential_block.toml");
    assert_eq!(check(&[manifest]), 2);
    let manifest = layout::test_shaders_dir().join("specialized/existential_block_packed.toml");
    assert_eq!(check(&[manifest]), 2);
}

#[test]
fn the_bind_view_of_the_parameter_shapes_proof_matches_spirv_cross() {
    assert_eq!(check_test_shader("proof_parameter_shapes"), 8);
}

/// A constant buffer of a struct of `static` members only takes no place: the bind view has
/// only the real constant buffer at set 0 binding 0 (the SPIR-V's one descriptor there).
#[test]
fn the_bind_view_of_a_constant_buffer_holding_nothing_matches_spirv_cross() {
    assert_eq!(check_test_shader("empty_constant_buffer"), 2);
    let bytes = layout::bake(&[layout::test_shaders_dir().join("empty_constant_buffer.slang")]);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    let entry = package.load("empty_constant_buffer").unwrap();
    let bind = layout::from_bind_view(&entry).unwrap();
    let places: Vec<(u32, u32, &str)> = bind
        .bindings
        .iter()
        .map(|b| (b.set, b.binding, b.name.as_str()))
        .collect();
    assert_eq!(places, [(0, 0, "gMaterial"), (0, 1, "gResult")]);
}

/// `ConstantBuffer<ParameterBlock<T>>`: each block's uniform buffer in the set Slang gives it,
/// with its members, and nothing at set 0 binding 0 for the constant buffers themselves.
#[test]
fn the_bind_view_of_parameter_blocks_inside_constant_buffers_matches_spirv_cross() {
    assert_eq!(check_test_shader("nested_parameter_block"), 3);
    let bytes = layout::bake(&[layout::test_shaders_dir().join("nested_parameter_block.slang")]);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    let bind = layout::from_bind_view(&package.load("nested_parameter_block").unwrap()).unwrap();
    assert_eq!(places(&bind), [(0, 0, 0), (1, 0, 4), (2, 0, 2)]);
}

/// Each binding's set, binding and number of uniform-buffer members.
fn places(bind: &ProgramLayout) -> Vec<(u32, u32, usize)> {
    bind.bindings
        .iter()
        .map(|b| {
            let members = match &b.buffer {
                Some(buffer) if b.ty == ash::vk::DescriptorType::UNIFORM_BUFFER => {
                    buffer.members.len()
                }
                _ => 0,
            };
            (b.set, b.binding, members)
        })
        .collect()
}

/// A parameter block inside a constant buffer that nothing reads: the SPIR-V declares nothing
/// for it, so spirv-cross cannot place it. The bind view states the same place and layout as
/// for the same program reading the block (`READ_SKY=1`), which spirv-cross confirms.
#[test]
fn an_unread_parameter_block_inside_a_constant_buffer_keeps_the_place_spirv_cross_sees_when_read() {
    let source = layout::test_shaders_dir().join("nested_parameter_block_unused.slang");
    let read = CompileOptions {
        defines: vec![("READ_SKY".into(), "1".into())],
        ..CompileOptions::default()
    };
    assert_eq!(check_with(std::slice::from_ref(&source), &read), 2);
    let describe = |options: CompileOptions| {
        let bytes = layout::bake_with(std::slice::from_ref(&source), options);
        let package = Package::from_bytes(&bytes).expect("the package opens");
        let entry = package.entries().next().unwrap().unwrap();
        layout::from_bind_view(&entry).unwrap()
    };
    let (unread, read) = (describe(CompileOptions::default()), describe(read));
    let shape = |bind: &ProgramLayout| -> Vec<_> {
        bind.bindings
            .iter()
            .map(|b| (b.set, b.binding, b.ty, b.count, b.buffer.clone()))
            .collect()
    };
    assert_eq!(shape(&unread), shape(&read));
    assert_eq!(places(&unread), [(0, 0, 0), (1, 0, 1)]);
}

#[test]
fn the_bind_view_of_a_descriptor_heap_of_several_kinds_matches_spirv_cross() {
    // spirv-cross lists the heap's two variables at one binding; the oracle makes them one
    // mutable descriptor with both types.
    assert_eq!(check_test_shader("descriptor_heap_mutable"), 2);
}

#[test]
fn the_bind_view_of_an_interface_typed_value_specialized_by_a_type_argument_matches_spirv_cross() {
    let manifest = layout::test_shaders_dir().join("specialized/existential_value.toml");
    assert_eq!(check(&[manifest]), 2);
    let manifest = layout::test_shaders_dir().join("specialized/existential_field.toml");
    assert_eq!(check(&[manifest]), 2);
}

#[test]
fn the_bind_view_of_interface_typed_values_dispatched_among_several_types_matches_spirv_cross() {
    // In a parameter block's struct (and the block's global parameter), as a parameter block
    // of its own, and in push constants (no descriptor).
    for (shader, bindings) in [
        ("light_env", 1),
        ("light_env_block", 2),
        ("light_env_push", 1),
    ] {
        let manifest = layout::test_shaders_dir().join(format!("dispatch/{shader}.toml"));
        assert_eq!(check(&[manifest]), bindings, "{shader}");
    }
}

/// An uber-shader's four permutations (`tests/shaders/uber_permutations.slang`: switches that
/// decide which declared resources are used): each permutation's pipeline (the bindings its
/// SPIR-V declares; the others are in its bind view flagged unused) matches spirv-cross on that
/// SPIR-V, and the default layout stores Slang's raw tables, the same bytes in every
/// permutation, once (SPEC.md 4.2, `ZstdSharedTables`), and the other permutations' bind views
/// in one frame (a bind-view run, 6.1.1, `InBindRun`): every blob reads back as the raw layout,
/// which shares nothing, stores it.
#[test]
fn uber_shader_permutations_share_their_raw_tables_and_each_pipeline_matches_spirv_cross() {
    use slangpack_reader::format::{Compression, SectionKind};
    let input = layout::test_shaders_dir().join("uber_permutations.slang");
    let bake = |compress_spirv: bool| {
        let mut config = slangpack_writer::bake::BakeConfig::new(vec![input.clone()]);
        config.compress_spirv = compress_spirv;
        config.jobs = 2;
        slangpack_writer::bake::bake(&config)
            .expect("the uber-shader bakes")
            .bytes
            .into_vec()
    };
    let (small, raw) = (bake(true), bake(false));
    let (small, raw) = (
        Package::from_bytes(&small).unwrap(),
        Package::from_bytes(&raw).unwrap(),
    );
    let compressions: Vec<Compression> = small
        .sections()
        .filter(|s| s.section_kind() == SectionKind::Reflection)
        .map(|s| s.compression_kind())
        .collect();
    assert_eq!(
        compressions,
        [
            Compression::ZstdSplitDictionaries,
            Compression::InBindRun,
            Compression::InBindRun,
            Compression::ZstdSharedTables
        ]
    );
    assert_eq!(small.len(), 4);
    let (mut raw_tables, mut used) = (Vec::new(), Vec::new());
    for (a, b) in small.entries().zip(raw.entries()) {
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.key(), b.key());
        let (blob, expected) = (a.reflection().unwrap(), b.reflection().unwrap());
        assert_eq!(blob.as_bytes(), expected.as_bytes(), "{}", a.key());
        let at = blob.header().tables_offset as usize;
        raw_tables.push(blob.as_bytes()[at..].to_vec());
        // The pipeline of the permutation's entry point against spirv-cross on its SPIR-V.
        let bind = layout::from_pipeline(&a, &["main"]).unwrap();
        let oracle =
            layout::from_spirv_cross(a.key(), layout::entry_point_code(&a).unwrap()).unwrap();
        let all = differences(&bind, &oracle);
        assert!(all.is_empty(), "{}:\n{}", a.key(), all.join("\n"));
        assert_eq!(bind.bindings.len(), oracle.bindings.len(), "{}", a.key());
        used.push(bind.bindings.len());
    }
    assert!(raw_tables.windows(2).all(|w| w[0] == w[1]));
    // Output and Params always; the input buffer, and the texture with its sampler, by switch.
    used.sort_unstable();
    assert_eq!(used, [2, 3, 4, 5]);
    small.verify_all().unwrap();
}

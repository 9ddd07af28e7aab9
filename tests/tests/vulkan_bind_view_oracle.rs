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
use std::path::PathBuf;

fn both(inputs: &[PathBuf]) -> Vec<(ProgramLayout, ProgramLayout)> {
    let bytes = layout::bake(inputs);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    package
        .entries()
        .map(|entry| {
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
    match (&bind.push_constants, &oracle.push_constants) {
        (Some(b), Some(o)) => {
            if read_offsets(&b.layout.members, 0) != read_offsets(&o.layout.members, 0) {
                out.push(format!("{key}: push-constant reads differ"));
            }
            if b.size < o.size || !b.stages.contains(o.stages) {
                out.push(format!(
                    "{key}: push range {} {:?} vs SPIR-V {} {:?}",
                    b.size, b.stages, o.size, o.stages
                ));
            }
        }
        (None, None) => {}
        (b, o) => out.push(format!("{key}: push constants {b:?} vs {o:?}")),
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
    assert!(bind.source.is_some() && oracle.source.is_none());
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
    match (ranges(&b).as_slice(), ranges(&o).as_slice()) {
        ([], []) => {}
        ([(0, bsize, bstages)], [(0, osize, ostages)])
            if bsize >= osize && bstages.contains(*ostages) => {}
        (br, or) => out.push(format!("{key}: ash push ranges {br:?}, oracle's {or:?}")),
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
    let mut all = Vec::new();
    let mut bindings = 0;
    for (bind, oracle) in both(inputs) {
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

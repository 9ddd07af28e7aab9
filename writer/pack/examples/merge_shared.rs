//! How long `merge` takes, and how much memory it grows by, on one package of ENTRIES entries
//! sharing one reflection blob of MEMBERS buffer members (issue 47: 300 entries), merged with
//! itself. The package is stored in the raw layout (`bake --spirv raw`: reflection compressed,
//! its bind view as raw blocks, SPIR-V not), or with `--compress-spirv` in the bake's default
//! layout (SPIR-V and reflection against a shared dictionary).
//!
//! ```sh
//! cargo run --release -p slangpack-pack --example merge_shared -- OUT 300 100000 [distinct|one] [--compress-spirv]
//! cargo run --release -p slangpack-pack --example merge_shared -- --merge OUT [--compress-spirv]
//! ```
//!
//! The first makes the package (in a process of its own, so that the second's peak resident
//! set is the merge's: open, verify and merge).

use slangpack_format::bind::*;
use slangpack_format::vk::{DescriptorKind, ShaderStageFlags};
use slangpack_format::*;
use slangpack_reader::Package;
use std::time::Instant;

/// The process's peak resident set (`VmHWM`) in KiB, 0 where `/proc` has none.
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// A bind view of one uniform buffer of `members` floats, named `name(i)`.
fn blob(members: u32, name: impl Fn(u32) -> String) -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let stages = ShaderStageFlags::COMPUTE.to_raw();
    let buffer = b.intern("gScene");
    b.push(DescriptorBinding {
        name: buffer,
        path: buffer,
        spirv_name: buffer,
        set: 0,
        binding: 0,
        descriptor_type: DescriptorKind::UniformBuffer.to_raw(),
        count: 1,
        count_kind: ArrayKind::Fixed.to_raw(),
        stage_flags: stages,
        entry_point_mask: 1,
        buffer_layout: 0,
        sampler_path: ABSENT,
        ..DescriptorBinding::default()
    });
    b.push(DescriptorSetLayout {
        set: 0,
        first_binding: 0,
        binding_count: 1,
        flags: 0,
    });
    let size = (4 * members).next_multiple_of(16);
    b.push(BufferLayout {
        name: buffer,
        kind: BufferKind::Uniform.to_raw(),
        set: 0,
        binding: 0,
        size,
        alignment: 16,
        stride: size,
        first_member: 0,
        member_count: members,
        matrix_layout: 0,
    });
    for i in 0..members {
        let name = b.intern(&name(i));
        b.push(BufferMember {
            path: name,
            name,
            parent: ABSENT,
            offset: 4 * i,
            size: 4,
            stride: 4,
            alignment: 4,
            type_kind: TypeKind::Scalar.to_raw(),
            scalar_type: ScalarType::Float32.to_raw(),
            ..BufferMember::default()
        });
    }
    b.push(BindSummary {
        set_slot_count: 1,
        global_uniform_binding: ABSENT,
        program_stage_flags: stages,
        entry_point_count: 1,
        ..BindSummary::default()
    });
    b.finish()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let compress_spirv = args.iter().any(|a| a == "--compress-spirv");
    if args.first().map(String::as_str) == Some("--merge") {
        let path = args.get(1).expect("--merge FILE");
        let start = Instant::now();
        let package = Package::open(path).expect("opens");
        package.verify_all().expect("valid");
        let checked = start.elapsed();
        let merged =
            slangpack_pack::merge::merge(&[("a", &package), ("b", &package)], true, compress_spirv)
                .expect("merges");
        println!(
            "{path} merged with itself: {:.3} s (open and verify {:.3} s), peak RSS {} MiB, \
             {} bytes{}",
            start.elapsed().as_secs_f64(),
            checked.as_secs_f64(),
            peak_kib() / 1024,
            merged.bytes.len(),
            if merged.bytes == package.as_bytes() {
                " (the input's bytes)"
            } else {
                " (not the input's bytes)"
            }
        );
        return;
    }
    let out = args.first().expect("OUT ENTRIES MEMBERS");
    let entries: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(300);
    let members: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let one_name = args.get(3).map(String::as_str) == Some("one");
    let blob = if one_name {
        blob(members, |_| "x".into())
    } else {
        blob(members, |i| format!("m{i}"))
    };
    let mut p = slangpack_pack::assemble::stored_builder(true, compress_spirv);
    let spirv = p.add_spirv(&[0x0723_0203, 0x0001_0500, 0, 1, 0]);
    let reflection = p.add_reflection_bytes(&blob);
    for i in 0..entries {
        p.add_entry(EntryDesc {
            key: format!("e{i}"),
            reflection: Some(reflection),
            entry_points: vec![EntryPointDesc {
                name: "main".into(),
                spirv_entry_name: "main".into(),
                stage: Stage::Compute,
                thread_group_size: [1, 1, 1],
                wave_size: 0,
                spirv,
                reflection_entry_point: None,
            }],
            dependencies: Vec::new(),
            options_hash: 0,
        })
        .expect("a new key");
    }
    let start = Instant::now();
    let bytes = p.finish().expect("a valid package");
    println!(
        "{out}: {entries} entries sharing one blob of {members} members ({}), {} bytes (the \
         blob {} bytes raw), made in {:.2} s",
        if one_name {
            "one name"
        } else {
            "distinct names"
        },
        bytes.len(),
        blob.len(),
        start.elapsed().as_secs_f64()
    );
    std::fs::write(out, bytes).expect("written");
}

//! Records many entries share (code for further targets, SPIR-V, reflection blobs) cost the
//! tools once: `merge` carries each over once, however many entry points name it.

use slangpack_format::{
    Compression, EntryDesc, EntryPointDesc, PackageBuilder, Stage, Target, TargetCodeDesc,
};
use slangpack_reader::Package;

/// `entries` entries whose one entry point shares one WGSL code blob of `len` bytes.
fn package(entries: usize, len: usize) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::Zstd);
    let spirv = p.add_spirv(&[0x0723_0203, 0x0001_0500, 0, 1, 0]);
    let reflection = p.add_reflection(slangpack_format::ReflectionBuilder::new().finish());
    let text = format!("// {}\n", "x".repeat(len));
    for i in 0..entries {
        let key = format!("e{i:05}");
        p.add_entry(EntryDesc {
            key: key.clone(),
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
        .unwrap();
        let code = TargetCodeDesc {
            target: Target::Wgsl,
            entry_name: "main".into(),
            code: text.clone().into_bytes(),
        };
        p.add_target_code(&key, 0, code).unwrap();
    }
    p.finish().unwrap()
}

#[test]
fn merge_carries_code_many_entry_points_share_over_once() {
    let bytes = package(500, 256 << 10);
    assert!(bytes.len() < 256 << 10, "{} bytes", bytes.len());
    let package = Package::from_bytes(&bytes).unwrap();
    package.verify_all().unwrap();
    assert_eq!(package.target_code_count(), 1);
    // One copy of the text, not 500 copies and hashes of it.
    let merged = slangpack_pack::merge::merge(&[("a", &package)], true, false).unwrap();
    assert_eq!(merged.bytes, bytes, "a merge of one package gives it back");
    let again = Package::from_bytes(&merged.bytes).unwrap();
    assert_eq!(again.target_code_count(), 1);
}

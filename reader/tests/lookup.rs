//! Lookups by key: a package of many entries answers by a binary search of its sorted keys
//! until it has been asked often enough to make its key index of hashes, then by that index;
//! both find every key there is and no other.

use slangpack_format::*;
use slangpack_reader::Package;

/// A package of `count` entries whose keys are added out of order, sharing one module.
fn package_of(count: usize) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    let spirv = p.add_spirv(&[0x0723_0203, 1]);
    for i in (0..count).rev() {
        p.add_entry(EntryDesc {
            key: format!("shaders/lit?A={}&B={}", i % 7, i),
            reflection: None,
            entry_points: vec![EntryPointDesc {
                name: "main".into(),
                spirv_entry_name: "main".into(),
                stage: Stage::Compute,
                thread_group_size: [64, 1, 1],
                wave_size: 0,
                spirv,
                reflection_entry_point: None,
            }],
            dependencies: vec![],
            options_hash: 0,
        })
        .unwrap();
    }
    p.finish().unwrap()
}

#[test]
fn every_key_is_found_before_and_after_the_key_index_is_made() {
    for count in [1, 2, 64, 65, 300] {
        let bytes = package_of(count);
        let package = Package::from_bytes(&bytes).unwrap();
        let keys: Vec<String> = package.keys().map(str::to_string).collect();
        assert_eq!(keys.len(), count);
        // Three rounds over every key: the first lookups search the sorted keys, the later ones
        // (in a package of more than 64 entries) the hashes made on the way.
        for _ in 0..3 {
            for (i, key) in keys.iter().enumerate() {
                assert_eq!(package.find(key), Some(i), "{key} in {count}");
            }
            for absent in [
                "",
                "a",
                "shaders/lit",
                "shaders/lit?A=0&B=0x",
                "zzz",
                "shaders/lit?A=9",
            ] {
                assert_eq!(package.find(absent), None, "{absent:?} in {count}");
            }
            // Every key with its last byte dropped or a byte appended: found exactly where it is
            // a key (keys differ from their neighbours by a suffix as often as not).
            for key in &keys {
                for near in [key[..key.len() - 1].to_string(), format!("{key}0")] {
                    let at = keys.iter().position(|k| *k == near);
                    assert_eq!(package.find(&near), at, "{near:?} in {count}");
                }
            }
        }
    }
}

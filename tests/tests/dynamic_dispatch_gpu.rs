//! Dynamic dispatch on lavapipe: for each type an interface-typed value may hold, a host that
//! writes the conformance id the bind view states into `witnessId` and the type's members at
//! the offsets the bind view states gets that type's code run on exactly those values, with
//! no validation message.

use ash::vk;
use slangpack_format::bind::MEMBER_CONFORMANCE;
use slangpack_reader::Package;
use slangpack_tests::layout;
use slangpack_tests::vk::Vk;

#[test]
fn each_types_id_and_members_as_stated_run_that_types_code() {
    let shader = layout::test_shaders_dir().join("dispatch/light_env_proof.toml");
    let package = Package::from_bytes(&layout::bake(&[shader])).unwrap();
    let entry = package.load("light_env_proof").unwrap();
    let bind = entry.bind();
    let block = (bind.buffer_layouts().iter())
        .find(|l| bind.string(l.name) == "gLighting")
        .expect("gLighting");
    let members = bind.members(block);
    let offset_of = |path: &str| {
        let m = members.iter().find(|m| bind.string(m.path) == path);
        m.unwrap_or_else(|| panic!("no `{path}`")).offset
    };
    let ep = entry.entry_points().next().unwrap();
    let name = std::ffi::CString::new(ep.spirv_entry_name()).unwrap();
    let spirv = slangpack_tests::vk::for_old_validator(ep.spirv());
    // The tag each type's code returns.
    let tags = [("DirectionalLight", 11u32), ("PointLight", 22)];
    let mut checked = Vec::new();
    for c in bind.conformances() {
        let at = (c.member - block.first_member) as usize;
        assert_eq!(members[at].flags & MEMBER_CONFORMANCE, MEMBER_CONFORMANCE);
        let ty = bind.string(members[at].name);
        // The type's leaf members, in declaration order, each given its own value.
        let leaves: Vec<_> = members
            .iter()
            .filter(|m| bind.string(m.path).starts_with(&format!("env.value.{ty}.")))
            .collect();
        let mut bytes = vec![0u8; block.size as usize];
        let ambient = 0x3f80_0000u32; // 1.0
        bytes[offset_of("ambient") as usize..][..4].copy_from_slice(&ambient.to_le_bytes());
        let witness = offset_of("env.witnessId") as usize;
        bytes[witness..witness + 4].copy_from_slice(&c.id.to_le_bytes());
        let mut expected = Vec::new();
        let mut next = 0x4000_0000u32; // 2.0, 2.0000002, ...: plain floats, distinct words
        for m in &leaves {
            for word in 0..m.size / 4 {
                let at = (m.offset + 4 * word) as usize;
                bytes[at..at + 4].copy_from_slice(&next.to_le_bytes());
                expected.push(next);
                next += 1;
            }
        }
        expected.push(tags.iter().find(|(t, _)| *t == ty).expect("a known type").1);
        expected.push(ambient);

        let mut vk = Vk::new().expect("lavapipe");
        let pipeline_layout = vk
            .pipeline_layout(&layout::vk_pipeline_layout_desc(&entry, 0))
            .expect("layout");
        let pipeline = vk
            .compute_pipeline(&pipeline_layout, &spirv, &name)
            .expect("pipeline");
        let uniforms = vk
            .buffer(bytes.len() as u64, vk::BufferUsageFlags::UNIFORM_BUFFER)
            .unwrap();
        vk.write(&uniforms, 0, &bytes);
        let out = vk
            .buffer(4 * 6, vk::BufferUsageFlags::STORAGE_BUFFER)
            .unwrap();
        let sets = vk.descriptor_sets(&pipeline_layout, &[]).expect("sets");
        for b in bind.bindings() {
            let (buffer, ty) = match bind.string(b.path) {
                "gOut" => (&out, vk::DescriptorType::STORAGE_BUFFER),
                _ => (&uniforms, vk::DescriptorType::UNIFORM_BUFFER),
            };
            let set = sets[b.set as usize].expect("a set");
            vk.write_buffer(set, b.binding, 0, ty, buffer);
        }
        vk.dispatch(pipeline, &pipeline_layout, &sets, &[], [1, 1, 1])
            .expect("dispatch");
        let words: Vec<u32> = vk
            .read(&out)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let problems = vk.finish();
        assert!(problems.is_empty(), "{ty}: validation: {problems:#?}");
        assert_eq!(words, expected, "{ty} (id {})", c.id);
        checked.push((ty.to_string(), c.id));
    }
    // PointLight was listed first: id 0.
    assert_eq!(
        checked,
        [
            ("PointLight".to_string(), 0),
            ("DirectionalLight".to_string(), 1)
        ]
    );
}

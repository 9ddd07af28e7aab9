//! The accessors an engine binds with: entry points by name and index, set layouts with their
//! flags, typed enums and flags (unknown values kept), stage flags, and (feature `ash`) the
//! bind view in `ash::vk` types.

mod common;

use slangpack_format::bind::*;
use slangpack_format::vk::{DescriptorKind, Format, ShaderStageFlags};
use slangpack_format::Stage;
use slangpack_reader::Package;

#[test]
fn entry_points_by_name_and_index() {
    let bytes = common::package();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load(common::KEY).unwrap();
    let vs = entry.entry_point("vs").unwrap();
    let fs = entry.entry_point("fs").unwrap();
    assert_eq!((vs.index(), fs.index()), (0, 1));
    assert_eq!(fs.spirv(), [0x0723_0203, 2]);
    assert_eq!(fs.entry().key(), common::KEY);
    assert!(entry.entry_point("main").is_none());
    assert!(entry.entry_point("").is_none());
    let indices: Vec<u32> = entry.entry_points().map(|ep| ep.index()).collect();
    assert_eq!(indices, [0, 1]);
    assert_eq!(vs.stage_flags(), ShaderStageFlags::VERTEX);
    assert_eq!(fs.stage_flags(), ShaderStageFlags::FRAGMENT);
    // The index is the one bind-view records use.
    let bind = entry.bind();
    assert_eq!(bind.vertex_inputs(vs.index()).len(), 4);
    assert!(bind.vertex_inputs(fs.index()).is_empty());
    let albedo = bind.binding("gAlbedo").unwrap();
    assert!(albedo.used_by(fs.index()) && !albedo.used_by(vs.index()));
}

#[test]
fn set_layouts_keep_flags_and_holes() {
    let bytes = common::package();
    let package = Package::from_bytes(&bytes).unwrap();
    let bind = package.load(common::KEY).unwrap().bind();
    let sets: Vec<_> = bind.set_layouts().collect();
    assert_eq!(bind.set_layouts().len(), 3);
    assert_eq!(sets.iter().map(|s| s.set()).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(sets[0].bindings().len(), 3, "zero-length arrays included");
    assert!(!sets[0].update_after_bind());
    assert!(
        sets[1].is_empty() && sets[1].flags().is_empty(),
        "set 1 is a hole"
    );
    assert!(sets[2].update_after_bind());
    assert_eq!(sets[2].flags(), SetFlags::HAS_UNBOUNDED);
    assert_eq!(bind.set_layout(2), Some(sets[2]));
    assert_eq!(bind.set_layout(1), None);
    assert_eq!(bind.set_layout(3), None);
    assert_eq!(bind.set(2), Some(sets[2].bindings()));
    let textures = &sets[2].bindings()[1];
    assert_eq!(bind.string(textures.path), "gTextures");
    assert_eq!(textures.array_kind(), ArrayKind::Unbounded);
    assert_eq!(textures.descriptor_count(), None);
    assert_eq!(sets[0].bindings()[2].array_kind(), ArrayKind::ZeroLength);
}

#[test]
fn typed_enums_and_flags() {
    let bytes = common::package();
    let package = Package::from_bytes(&bytes).unwrap();
    let bind = package.load(common::KEY).unwrap().bind();
    let scene = bind.binding("gScene").unwrap();
    assert_eq!(scene.kind(), DescriptorKind::UniformBuffer);
    assert_eq!(
        scene.stages(),
        ShaderStageFlags::VERTEX | ShaderStageFlags::FRAGMENT
    );
    assert_eq!(
        scene.stages().names().collect::<Vec<_>>(),
        ["vertex", "fragment"]
    );
    assert_eq!(scene.array_kind(), ArrayKind::Fixed);
    let buffer = bind.buffer_layout(scene.buffer_layout).unwrap();
    assert_eq!(buffer.buffer_kind(), BufferKind::Uniform);
    let (_, tint) = bind.buffer_member("gScene.tint").unwrap();
    assert_eq!(tint.default_value(), Some(DefaultValue::Float(1.5)));
    assert!(tint.member_flags().contains(MemberFlags::HAS_DEFAULT));
    let (draw, model) = bind.buffer_member("gDraw.model").unwrap();
    assert_eq!(draw.buffer_kind(), BufferKind::PushConstant);
    assert_eq!(
        model.matrix_layout_mode(),
        slangpack_format::MatrixLayout::RowMajor
    );
    assert_eq!(model.kind(), slangpack_format::TypeKind::Matrix);
    let inputs = bind.vertex_inputs(0);
    assert_eq!(inputs[0].vk_format(), Format::R32G32B32Sfloat);
    assert!(inputs[0].is_used() && !inputs[1].is_used());
    let push = &bind.push_constants()[0];
    assert_eq!(
        push.stages(),
        ShaderStageFlags::VERTEX | ShaderStageFlags::FRAGMENT
    );
    let spec = bind.specialization_constants();
    assert_eq!(spec[0].default_value(), Some(DefaultValue::Int(5)));
    assert_eq!(spec[1].default_value(), Some(DefaultValue::Float(0.25)));
    assert_eq!(spec[2].default_value(), None);
}

#[test]
fn unknown_values_are_kept_not_refused() {
    let bytes = common::package();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load(common::UNKNOWN_KEY).unwrap();
    let ep = entry.entry_point("main").unwrap();
    assert_eq!(ep.stage(), Stage::Unknown(77));
    assert!(ep.stage_flags().is_empty());
    assert_eq!(ep.stage().name(), "unknown");
    let bind = entry.bind();
    let b = &bind.bindings()[0];
    assert_eq!(b.kind(), DescriptorKind::Unknown(1_000_999_000));
    assert_eq!(b.kind().to_raw(), 1_000_999_000);
    assert_eq!(b.kind().name(), "unknown");
    assert_eq!(b.array_kind(), ArrayKind::Fixed);
    assert_eq!(b.descriptor_count(), Some(2));
    assert_eq!(b.stages().unknown_bits(), 0x4000_0000);
    assert!(b.stages().contains(ShaderStageFlags::COMPUTE));
    assert_eq!(b.stages().names().collect::<Vec<_>>(), ["compute"]);
    assert_eq!(b.binding_flags().unknown_bits(), 0x80);
    assert!(b.binding_flags().contains(BindingFlags::WRITABLE));
    let set = bind.set_layout(0).unwrap();
    assert_eq!(set.flags().unknown_bits(), 0x40);
    assert!(!set.update_after_bind());
    assert_eq!(
        bind.buffer_layouts()[0].buffer_kind(),
        BufferKind::Unknown(42)
    );
    let input = &bind.vertex_inputs(0)[0];
    assert_eq!(input.vk_format(), Format::Unknown(1_000_156_000));
    assert_eq!(input.vk_format().size(), None);
    assert_eq!(input.input_flags().unknown_bits(), 0x10);
    assert!(input.is_used());
}

#[cfg(feature = "ash")]
mod ash_conversions {
    use super::common;
    use ash::vk;
    use slangpack_reader::{vk_set_layout_bindings, vk_set_layout_create_flags, Package};

    const UNBOUNDED: vk::DescriptorBindingFlags = vk::DescriptorBindingFlags::from_raw(
        vk::DescriptorBindingFlags::PARTIALLY_BOUND.as_raw()
            | vk::DescriptorBindingFlags::UPDATE_AFTER_BIND.as_raw(),
    );

    fn tuple(
        b: &vk::DescriptorSetLayoutBinding<'_>,
    ) -> (u32, vk::DescriptorType, u32, vk::ShaderStageFlags) {
        (
            b.binding,
            b.descriptor_type,
            b.descriptor_count,
            b.stage_flags,
        )
    }

    #[test]
    fn set_layout_bindings() {
        let bytes = common::package();
        let package = Package::from_bytes(&bytes).unwrap();
        let bind = package.load(common::KEY).unwrap().bind();
        let vf = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        let sets: Vec<Vec<_>> = bind
            .set_layouts()
            .map(|s| s.vk_bindings(1000).collect())
            .collect();
        let set0: Vec<_> = sets[0].iter().map(|(b, f)| (tuple(b), *f)).collect();
        assert_eq!(
            set0,
            [
                (
                    (0, vk::DescriptorType::UNIFORM_BUFFER, 1, vf),
                    vk::DescriptorBindingFlags::empty()
                ),
                (
                    (
                        1,
                        vk::DescriptorType::SAMPLED_IMAGE,
                        1,
                        vk::ShaderStageFlags::FRAGMENT
                    ),
                    vk::DescriptorBindingFlags::empty()
                ),
            ],
            "the zero-length array is no descriptor"
        );
        assert!(sets[1].is_empty());
        let set2: Vec<_> = sets[2].iter().map(|(b, f)| (tuple(b), *f)).collect();
        assert_eq!(
            set2,
            [
                (
                    (
                        0,
                        vk::DescriptorType::SAMPLER,
                        1,
                        vk::ShaderStageFlags::FRAGMENT
                    ),
                    vk::DescriptorBindingFlags::empty()
                ),
                (
                    (
                        1,
                        vk::DescriptorType::SAMPLED_IMAGE,
                        1000,
                        vk::ShaderStageFlags::FRAGMENT
                    ),
                    UNBOUNDED | vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT
                ),
            ]
        );
        for b in sets.iter().flatten() {
            assert!(b.0.p_immutable_samplers.is_null());
        }
        let layouts: Vec<_> = bind.set_layouts().map(|s| s.vk_create_flags()).collect();
        assert_eq!(
            layouts,
            [
                vk::DescriptorSetLayoutCreateFlags::empty(),
                vk::DescriptorSetLayoutCreateFlags::empty(),
                vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL
            ]
        );
        // The generic conversion agrees, by reference and by value, and on the flags.
        let set = bind.set_layout(2).unwrap();
        let by_value: Vec<_> = vk_set_layout_bindings(set.bindings().iter().copied(), 1000)
            .map(|(b, f)| (tuple(&b), f))
            .collect();
        assert_eq!(by_value, set2);
        assert_eq!(
            vk_set_layout_create_flags(set.bindings()),
            vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL
        );
        assert_eq!(
            vk_set_layout_create_flags(bind.set(0).unwrap()),
            vk::DescriptorSetLayoutCreateFlags::empty()
        );
    }

    #[test]
    fn variable_count_goes_to_the_highest_binding_only() {
        let bytes = common::package();
        let package = Package::from_bytes(&bytes).unwrap();
        let bind = package.load(common::KEY).unwrap().bind();
        let set = bind.set(2).unwrap();
        // Unbounded array first, then a sampler after it: it keeps partially bound and update
        // after bind but is not variable-count, since it is not the highest binding.
        let mut reordered = [set[1], set[0]];
        reordered[1].binding = 5;
        let flags: Vec<_> = vk_set_layout_bindings(&reordered, 8)
            .map(|(_, f)| f)
            .collect();
        assert_eq!(flags, [UNBOUNDED, vk::DescriptorBindingFlags::empty()]);
    }

    #[test]
    fn fill_writes_caller_slices() {
        let bytes = common::package();
        let package = Package::from_bytes(&bytes).unwrap();
        let bind = package.load(common::KEY).unwrap().bind();
        let set = bind.set_layout(2).unwrap();
        let mut bindings = [vk::DescriptorSetLayoutBinding::default(); 4];
        let mut flags = [vk::DescriptorBindingFlags::empty(); 4];
        assert_eq!(set.vk_bindings(64).fill(&mut bindings, &mut flags), Some(2));
        assert_eq!(bindings[1].descriptor_count, 64);
        assert!(flags[1].contains(vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT));
        let mut short = [vk::DescriptorSetLayoutBinding::default(); 1];
        assert_eq!(set.vk_bindings(64).fill(&mut short, &mut flags), None);
        assert_eq!(
            short[0].descriptor_type,
            vk::DescriptorType::SAMPLER,
            "what fits is written"
        );
    }

    #[test]
    fn push_constants_vertex_input_specialization_and_stage() {
        let bytes = common::package();
        let package = Package::from_bytes(&bytes).unwrap();
        let entry = package.load(common::KEY).unwrap();
        let bind = entry.bind();
        let ranges: Vec<_> = bind.vk_push_constant_ranges().collect();
        assert_eq!(ranges.len(), 1);
        assert_eq!((ranges[0].offset, ranges[0].size), (0, 64));
        assert_eq!(
            ranges[0].stage_flags,
            vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT
        );

        let vs = entry.entry_point("vs").unwrap();
        assert_eq!(vs.vk_stage(), vk::ShaderStageFlags::VERTEX);
        let attributes: Vec<_> = bind
            .vk_vertex_attributes(vs.index(), 3)
            .map(|a| (a.location, a.binding, a.format, a.offset))
            .collect();
        let f4 = vk::Format::R32G32B32A32_SFLOAT;
        assert_eq!(
            attributes,
            [
                (0, 3, vk::Format::R32G32B32_SFLOAT, 0),
                // TANGENT (location 1) is unused: left out. The matrix takes 4 locations.
                (2, 3, f4, 12),
                (3, 3, f4, 28),
                (4, 3, f4, 44),
                (5, 3, f4, 60),
                (6, 3, vk::Format::R32G32_SFLOAT, 76),
            ]
        );
        let binding = bind.vk_vertex_binding(vs.index(), 3);
        assert_eq!(
            (binding.binding, binding.stride, binding.input_rate),
            (3, 84, vk::VertexInputRate::VERTEX)
        );
        let fs = entry.entry_point("fs").unwrap();
        assert_eq!(bind.vk_vertex_attributes(fs.index(), 0).count(), 0);
        assert_eq!(bind.vk_vertex_binding(fs.index(), 0).stride, 0);

        let entries: Vec<_> = bind
            .vk_specialization_map_entries()
            .map(|e| (e.constant_id, e.offset, e.size))
            .collect();
        assert_eq!(entries, [(7, 0, 4), (3, 4, 8), (1, 12, 4)]);
    }

    #[test]
    fn unknown_values_pass_through_as_raw() {
        let bytes = common::package();
        let package = Package::from_bytes(&bytes).unwrap();
        let entry = package.load(common::UNKNOWN_KEY).unwrap();
        let bind = entry.bind();
        let (b, flags) = bind.set_layout(0).unwrap().vk_bindings(4).next().unwrap();
        assert_eq!(
            b.descriptor_type,
            vk::DescriptorType::from_raw(1_000_999_000)
        );
        assert_eq!(
            b.descriptor_count, 2,
            "the fixed count next to unknown values"
        );
        assert_eq!(b.stage_flags.as_raw(), 0x4000_0020);
        assert!(flags.is_empty());
        let a: Vec<_> = bind.vk_vertex_attributes(0, 0).collect();
        assert_eq!(a[0].format, vk::Format::from_raw(1_000_156_000));
        assert_eq!(
            bind.vk_vertex_binding(0, 0).stride,
            0,
            "an unknown format takes no bytes"
        );
        assert_eq!(
            entry.entry_point("main").unwrap().vk_stage(),
            vk::ShaderStageFlags::empty()
        );
    }
}

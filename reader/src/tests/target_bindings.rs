//! Per-target bind views: HLSL target bindings and buffers, and D3D12 root parameters.

use super::*;

/// A blob with one HLSL uniform-buffer target binding whose Vulkan buffer layout has two
/// members, and its target buffer with two target members, `edit`ed first: (the target
/// buffers, the target members).
pub(super) fn blob_with_target_buffer(
    edit: impl FnOnce(&mut Vec<targets::TargetBuffer>, &mut Vec<targets::TargetMember>),
) -> Vec<u8> {
    use bind::{BufferLayout, BufferMember};
    let mut b = ReflectionBuilder::new();
    let path = b.intern("gParams");
    let a = b.intern("a");
    let c = b.intern("c");
    b.push(targets::TargetBinding {
        target: Target::Hlsl.to_raw(),
        path,
        code_name: path,
        binding: ABSENT,
        kind: TargetBindingKind::UniformBuffer.to_raw(),
        space: 0,
        index: 0,
        register_class: u32::from(b'b'),
        count: 1,
        min_binding_size: 20,
        ..targets::TargetBinding::default()
    });
    for (name, offset) in [(a, 0), (c, 16)] {
        b.push(BufferMember {
            path: name,
            name,
            parent: ABSENT,
            offset,
            size: 4,
            first_attribute: ABSENT,
            type_kind: slangpack_format::TypeKind::Scalar.to_raw(),
            scalar_type: slangpack_format::ScalarType::UInt32.to_raw(),
            rows: 1,
            columns: 1,
            ..BufferMember::default()
        });
    }
    b.push(BufferLayout {
        name: path,
        size: 32,
        first_member: 0,
        member_count: 2,
        set: ABSENT,
        binding: ABSENT,
        ..BufferLayout::default()
    });
    let mut buffers = vec![targets::TargetBuffer {
        target_binding: 0,
        buffer_layout: 0,
        size: 20,
        alignment: 16,
        stride: 20,
        first_member: 0,
        member_count: 2,
        matrix_layout: 0,
    }];
    let mut members = vec![
        targets::TargetMember {
            offset: 0,
            size: 4,
            ..targets::TargetMember::default()
        },
        targets::TargetMember {
            offset: 4,
            size: 4,
            ..targets::TargetMember::default()
        },
    ];
    edit(&mut buffers, &mut members);
    b.push_all(&buffers);
    b.push_all(&members);
    use bind::NameKind;
    for slot in bind::build_name_index(vec![
        ("gParams".into(), NameKind::Buffer, 0),
        ("gParams.a".into(), NameKind::Member, 0),
        ("gParams.c".into(), NameKind::Member, 1),
    ]) {
        b.push(slot);
    }
    b.finish()
}

/// A blob of HLSL target bindings `(path, class, register, count, space)`, in record order.
fn blob_with_hlsl_bindings(records: &[(&str, u8, u32, u32, u32)]) -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    for &(name, class, index, count, space) in records {
        let path = b.intern(name);
        b.push(targets::TargetBinding {
            target: Target::Hlsl.to_raw(),
            path,
            code_name: path,
            binding: ABSENT,
            kind: match class {
                b's' => TargetBindingKind::Sampler,
                b'b' => TargetBindingKind::UniformBuffer,
                _ => TargetBindingKind::Texture,
            }
            .to_raw(),
            space,
            index,
            register_class: u32::from(class),
            count,
            ..targets::TargetBinding::default()
        });
    }
    b.finish()
}

#[test]
fn target_buffers_indices_counts_and_order_are_checked() {
    let bytes = package_with_blob(blob_with_target_buffer(|_, _| {}));
    open_all(&bytes).unwrap();
    // Served: the HLSL binding's own layout, filled at the target's offsets.
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let bind = entry.bind();
    let view = bind.target(Target::Hlsl);
    let b = view.find("gParams").unwrap();
    let own = view
        .buffer_layout(b)
        .target_buffer()
        .expect("its own layout");
    assert_eq!((own.size, view.target_members(own).len()), (20, 2));
    let layout = view.buffer_view(b).unwrap();
    assert_eq!(layout.size(), 20);
    let mut bytes = layout.zeroed();
    layout.writer(&mut bytes).set("gParams.c", 3u32).unwrap();
    assert_eq!(
        bytes[4..8],
        3u32.to_le_bytes(),
        "c at the target's 4, not 16"
    );

    type Case = (
        fn(&mut Vec<targets::TargetBuffer>, &mut Vec<targets::TargetMember>),
        ErrorKind,
        &'static str,
    );
    let cases: [Case; 6] = [
        (
            |b, _| b[0].target_binding = 1,
            ErrorKind::IndexOutOfRange,
            "target_buffers[0].target_binding",
        ),
        (
            |b, _| b[0].target_binding = ABSENT,
            ErrorKind::IndexOutOfRange,
            "target_buffers[0].target_binding",
        ),
        (
            |b, _| b[0].buffer_layout = 1,
            ErrorKind::IndexOutOfRange,
            "target_buffers[0].buffer_layout",
        ),
        (
            |b, _| b[0].member_count = 1,
            ErrorKind::BadValue,
            "target_buffers[0].member_count",
        ),
        (
            |_, m| {
                m.pop();
            },
            ErrorKind::IndexOutOfRange,
            "target_buffers[0].first_member",
        ),
        (|b, _| b.push(b[0]), ErrorKind::BadValue, "not sorted"),
    ];
    for (edit, kind, names) in cases {
        let e = open_all(&package_with_blob(blob_with_target_buffer(edit))).unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.message().contains(names), "{names}: {e}");
    }
}

#[test]
fn d3d12_root_parameters_group_ranges_by_space_and_refuse_overlaps() {
    use crate::{D3d12Error, D3d12RootParameter};
    let bytes = package_with_blob(blob_with_hlsl_bindings(&[
        ("gParams", b'b', 0, 1, 0),
        ("gSampler", b's', 0, 1, 0),
        ("gTextures", b't', 0, 4, 0),
        ("gAll", b't', 0, 0, 1),
    ]));
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let hlsl = entry.bind().target(Target::Hlsl);
    let p = hlsl.d3d12_root_parameters().unwrap();
    let tables: Vec<(u32, bool, usize)> = p
        .parameters
        .iter()
        .map(|t| match t {
            D3d12RootParameter::Table {
                space,
                samplers,
                ranges,
            } => (*space, *samplers, ranges.len()),
            D3d12RootParameter::Constants { .. } => panic!("no push-constant block here"),
        })
        .collect();
    assert_eq!(tables, [(0, false, 2), (0, true, 1), (1, false, 1)]);
    assert_eq!(
        p.to_root_signature_string(),
        "DescriptorTable(CBV(b0), SRV(t0, numDescriptors=4)), DescriptorTable(Sampler(s0)), \
         DescriptorTable(SRV(t0, numDescriptors=unbounded, space=1))"
    );
    // t0..t3 and t2 overlap; so does an unbounded range with any later one.
    for records in [
        [("gTextures", b't', 0, 4, 0), ("gOther", b't', 2, 1, 0)],
        [("gAll", b't', 0, 0, 0), ("gOther", b't', 9, 1, 0)],
    ] {
        let bytes = package_with_blob(blob_with_hlsl_bindings(&records));
        let package = Package::from_bytes(&bytes).unwrap();
        let entry = package.load("k").unwrap();
        let e = entry
            .bind()
            .target(Target::Hlsl)
            .d3d12_root_parameters()
            .unwrap_err();
        assert_eq!(
            e,
            D3d12Error::Overlap {
                first: records[0].0.into(),
                second: "gOther".into(),
                place: format!("register(t{}, space0)", records[1].2),
            }
        );
        assert!(e.to_string().contains("`gOther`"), "{e}");
    }
    // Another target's view has none.
    assert_eq!(
        entry.bind().target(Target::Wgsl).d3d12_root_parameters(),
        Err(D3d12Error::NotHlsl)
    );
}

//! Metal argument buffers: served, and their indices, ranges and values checked.

use super::*;

/// A blob whose Metal bind view holds an argument buffer `gMaterial` at `[[buffer(0)]]` with a
/// texture member, and its struct: `tint` (data, 16 bytes), `albedo` (texture at 16) and
/// `taps` (an array of 2 structs of 8 bytes at 32, whose element member `taps[].w` is
/// element-relative); `edit` changes the records before they are stored.
pub(super) fn blob_with_argument_buffer(
    edit: impl FnOnce(&mut Vec<targets::ArgumentBuffer>, &mut Vec<targets::ArgumentBufferMember>),
) -> Vec<u8> {
    use slangpack_format::ArgumentMemberKind as K;
    let mut b = ReflectionBuilder::new();
    let metal = |path, kind: TargetBindingKind, space, index, class: u8| targets::TargetBinding {
        target: Target::Metal.to_raw(),
        path,
        code_name: path,
        binding: ABSENT,
        kind: kind.to_raw(),
        space,
        index,
        register_class: u32::from(class),
        count: 1,
        ..targets::TargetBinding::default()
    };
    let albedo = b.intern("gMaterial.albedo");
    let material = b.intern("gMaterial");
    // Sorted by space: the member (space 0) before the top-level argument buffer (absent).
    b.push(metal(albedo, TargetBindingKind::Texture, 0, 1, 0));
    b.push(metal(
        material,
        TargetBindingKind::ArgumentBuffer,
        ABSENT,
        0,
        b'b',
    ));
    let member = |b: &mut ReflectionBuilder, path: &str, kind: K, offset, size| {
        targets::ArgumentBufferMember {
            path: b.intern(path),
            kind: kind.to_raw(),
            offset,
            size,
            alignment: size.min(16),
            id: ABSENT,
            target_binding: ABSENT,
            ..targets::ArgumentBufferMember::default()
        }
    };
    let mut members = vec![
        member(&mut b, "tint", K::Data, 0, 16),
        member(&mut b, "albedo", K::Texture, 16, 8),
        member(&mut b, "taps", K::Struct, 32, 16),
        member(&mut b, "taps[].w", K::Data, 4, 4),
    ];
    members[0].id = 0;
    members[1].id = 1;
    members[1].target_binding = 0;
    members[2].id = 2;
    (members[2].count, members[2].stride) = (2, 8);
    members[3].flags = targets::ARGUMENT_ELEMENT_RELATIVE;
    let mut buffers = vec![targets::ArgumentBuffer {
        target_binding: 1,
        size: 48,
        alignment: 16,
        first_member: 0,
        member_count: 4,
    }];
    edit(&mut buffers, &mut members);
    b.push_all(&buffers);
    b.push_all(&members);
    b.finish()
}

#[test]
fn argument_buffers_are_served_and_their_indices_ranges_and_values_checked() {
    use slangpack_format::ArgumentMemberKind as K;
    let bytes = package_with_blob(blob_with_argument_buffer(|_, _| {}));
    open_all(&bytes).unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let view = entry.bind().target(Target::Metal);
    let ab = view.find_argument_buffer("gMaterial").expect("its struct");
    assert_eq!((ab.size(), ab.alignment(), ab.members().len()), (48, 16, 4));
    let albedo = ab.member("albedo").expect("albedo");
    assert_eq!(
        (albedo.member_kind(), albedo.offset, albedo.id),
        (K::Texture, 16, 1)
    );
    let binding = ab.binding(albedo).expect("its binding");
    assert_eq!(view.path(binding), "gMaterial.albedo");
    assert_eq!(ab.binding(ab.member("tint").unwrap()), None);
    assert_eq!(ab.member("taps[].w").map(|m| m.offset), Some(4));
    // Only argument buffers have a struct.
    assert!(view.find_argument_buffer("gMaterial.albedo").is_none());
    assert!(entry
        .bind()
        .target(Target::Hlsl)
        .find_argument_buffer("gMaterial")
        .is_none());

    type Case = (
        fn(&mut Vec<targets::ArgumentBuffer>, &mut Vec<targets::ArgumentBufferMember>),
        ErrorKind,
        &'static str,
    );
    let cases: [Case; 14] = [
        (
            |_, m| m[0].id = ABSENT,
            ErrorKind::BadValue,
            "argument_buffer_members[0].id = 0xffffffff, flags 0x0",
        ),
        (
            |_, m| m[3].id = 1,
            ErrorKind::BadValue,
            "argument_buffer_members[3].id = 0x1, flags 0x2",
        ),
        (
            |_, m| m[3].flags |= targets::ARGUMENT_ID_EXPLICIT,
            ErrorKind::BadValue,
            "argument_buffer_members[3].id = 0xffffffff, flags 0x3",
        ),
        (
            |b, _| b[0].target_binding = 2,
            ErrorKind::IndexOutOfRange,
            "argument_buffers[0].target_binding",
        ),
        (
            |b, _| b[0].target_binding = 0,
            ErrorKind::BadValue,
            "not a Metal argument buffer",
        ),
        (
            |_, m| {
                m.pop();
            },
            ErrorKind::IndexOutOfRange,
            "argument_buffers[0].first_member",
        ),
        (|b, _| b.push(b[0]), ErrorKind::BadValue, "not sorted"),
        (
            |_, m| m[0].path = 999,
            ErrorKind::IndexOutOfRange,
            "argument_buffer_members[0].path",
        ),
        (
            |_, m| m[1].target_binding = 7,
            ErrorKind::IndexOutOfRange,
            "argument_buffer_members[1].target_binding",
        ),
        (
            |_, m| m[0].kind = 9,
            ErrorKind::BadValue,
            "argument_buffer_members[0].kind",
        ),
        (
            |_, m| m[1].target_binding = ABSENT,
            ErrorKind::BadValue,
            "a texture member has one",
        ),
        (
            |_, m| m[0].target_binding = 0,
            ErrorKind::BadValue,
            "a data member has no one",
        ),
        (
            |_, m| m[2].stride = 0,
            ErrorKind::BadValue,
            "argument_buffer_members[2].count",
        ),
        (
            |_, m| m[1].offset = 44,
            ErrorKind::BadValue,
            "ends past the argument buffer's 48 bytes",
        ),
    ];
    for (edit, kind, names) in cases {
        let e = open_all(&package_with_blob(blob_with_argument_buffer(edit))).unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.message().contains(names), "{names}: {e}");
    }
    // An element-relative member is not measured against the struct.
    let far = package_with_blob(blob_with_argument_buffer(|_, m| m[3].offset = 100));
    open_all(&far).unwrap();
}

//! The conformances of a dynamically dispatched existential (format 1.8): served by member,
//! and refused where an index or a flag is wrong.

use super::{open_all, package_with_blob};
use crate::{ErrorKind, Package};
use slangpack_format::bind::*;
use slangpack_format::{ReflectionBuilder, ABSENT};

/// A blob whose one buffer layout holds an existential `env` (header, payload and the two
/// types `Sun` and `Lamp` over it) and their two conformances; `edit` changes the records
/// before they are stored.
fn blob_with_conformances(edit: impl FnOnce(&mut Vec<ExistentialConformance>)) -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let member = |b: &mut ReflectionBuilder, path: &str, parent: u32, flags: u32| BufferMember {
        path: b.intern(path),
        name: b.intern(path.rsplit('.').next().unwrap_or(path)),
        parent,
        offset: 16,
        size: 16,
        stride: 16,
        alignment: 4,
        flags,
        first_attribute: 0,
        ..BufferMember::default()
    };
    let members = [
        member(&mut b, "env", ABSENT, MEMBER_EXISTENTIAL),
        member(&mut b, "env.value", 0, MEMBER_EXISTENTIAL_PAYLOAD),
        member(&mut b, "env.value.Sun", 1, MEMBER_CONFORMANCE),
        member(&mut b, "env.value.Lamp", 1, MEMBER_CONFORMANCE),
    ];
    let interface = b.intern("ILight");
    let name = b.intern("gScene");
    b.push(BufferLayout {
        name,
        kind: BUFFER_UNIFORM,
        set: 0,
        binding: 0,
        size: 32,
        alignment: 16,
        stride: 32,
        first_member: 0,
        member_count: 4,
        matrix_layout: 0,
    });
    b.push_all(&members);
    let mut conformances = vec![
        ExistentialConformance {
            existential: 0,
            member: 2,
            interface,
            id: 0,
        },
        ExistentialConformance {
            existential: 0,
            member: 3,
            interface,
            id: 1,
        },
    ];
    edit(&mut conformances);
    b.push_all(&conformances);
    b.finish()
}

#[test]
fn conformances_are_served_by_member_and_their_indices_and_flags_checked() {
    let bytes = package_with_blob(blob_with_conformances(|_| {}));
    open_all(&bytes).unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let bind = entry.bind();
    assert_eq!(bind.conformances().len(), 2);
    let lamp = bind.conformance(3).expect("Lamp's");
    assert_eq!((lamp.id, bind.string(lamp.interface)), (1, "ILight"));
    assert!(bind.conformance(1).is_none());

    type Case = (
        fn(&mut Vec<ExistentialConformance>),
        ErrorKind,
        &'static str,
    );
    let cases: [Case; 4] = [
        (
            |c| c[0].member = 9,
            ErrorKind::IndexOutOfRange,
            "existential_conformances[0].member",
        ),
        (
            |c| c[1].interface = 999,
            ErrorKind::IndexOutOfRange,
            "existential_conformances[1].interface",
        ),
        (
            |c| c[0].member = 1,
            ErrorKind::BadValue,
            "existential_conformances[0].member = 1, a buffer member without flag 0x20",
        ),
        (
            |c| c[1].existential = 2,
            ErrorKind::BadValue,
            "existential_conformances[1].existential = 2, a buffer member without flag 0x8",
        ),
    ];
    for (edit, kind, names) in cases {
        let e = open_all(&package_with_blob(blob_with_conformances(edit))).unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.message().contains(names), "{names}: {e}");
    }
}

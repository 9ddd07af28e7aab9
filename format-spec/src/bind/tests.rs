//! Tests of the bind-view records: the name index, flag names and record helpers.

use super::*;

#[test]
fn name_index_round_trip() {
    let names: Vec<(String, NameKind, u32)> = (0..300)
        .map(|i| (format!("gScene.member{i}"), NameKind::Member, i))
        .chain([
            ("gScene".to_string(), NameKind::Buffer, 0),
            // The same path as a binding and a buffer: one slot each.
            ("gScene".to_string(), NameKind::Binding, 4),
            // A duplicate (name, kind): the lowest index wins.
            ("gScene".to_string(), NameKind::Binding, 9),
        ])
        .collect();
    let slots = build_name_index(names);
    assert_eq!(slots.len(), 1024, "302 names, at most half full");
    assert_eq!(slots.iter().filter(|s| !s.is_empty()).count(), 302);
    for i in 0..300 {
        let found: Vec<u32> =
            probe_name_index(&slots, &format!("gScene.member{i}"), NameKind::Member).collect();
        assert_eq!(found, [i]);
    }
    let binding: Vec<u32> = probe_name_index(&slots, "gScene", NameKind::Binding).collect();
    assert_eq!(binding, [4]);
    let buffer: Vec<u32> = probe_name_index(&slots, "gScene", NameKind::Buffer).collect();
    assert_eq!(buffer, [0]);
    assert_eq!(
        probe_name_index(&slots, "gScene", NameKind::Member).count(),
        0
    );
    assert_eq!(
        probe_name_index(&slots, "missing", NameKind::Binding).count(),
        0
    );
    // The bytes are those of the documented layout: a slot's hash is xxh3-64 of the name.
    let slot = slots
        .iter()
        .find(|s| s.kind() == Some(NameKind::Buffer))
        .unwrap();
    assert_eq!(slot.hash(), crate::xxh3_64(b"gScene"));
    assert_eq!(slot.target, 3 << 28, "kind 3 (buffer), index 0");
    assert!(build_name_index(Vec::new()).is_empty());
}

#[test]
fn a_built_name_index_keeps_every_slot_within_the_probe_bound() {
    use crate::limits::MAX_NAME_INDEX_PROBE;
    let names: Vec<(String, NameKind, u32)> = (0..50_000)
        .map(|i| (format!("gScene.lights[{i}].color"), NameKind::Member, i))
        .collect();
    let slots = build_name_index(names);
    assert_eq!(name_index_displaced(&slots), None);
    // A slot displaced past the bound is found by the check, and no probe reaches it.
    let mut far = vec![NameIndexSlot::EMPTY; 1024];
    let bound = MAX_NAME_INDEX_PROBE as usize;
    let hash = name_hash("x");
    let home = hash as usize & 1023;
    for k in 0..=bound + 1 {
        far[(home + k) & 1023] = NameIndexSlot::new(hash, NameKind::Binding, k as u32);
    }
    assert_eq!(name_index_displaced(&far), Some((home + bound + 1) & 1023));
    let found: Vec<u32> = probe_name_index(&far, "x", NameKind::Binding).collect();
    assert_eq!(
        found.len(),
        bound + 1,
        "slots 0..=bound, not the one past it"
    );
}

#[test]
fn name_index_probe_ends_on_any_table() {
    // A full table (no empty slot), a table that is not a power of two, an empty one, and
    // slots of an unknown kind: probes end and find only what matches.
    let full = vec![NameIndexSlot::new(name_hash("x"), NameKind::Binding, 1); 8];
    assert_eq!(probe_name_index(&full, "x", NameKind::Binding).count(), 8);
    assert_eq!(probe_name_index(&full, "y", NameKind::Binding).count(), 0);
    let odd = vec![NameIndexSlot::new(name_hash("x"), NameKind::Binding, 1); 3];
    assert_eq!(probe_name_index(&odd, "x", NameKind::Binding).count(), 0);
    assert_eq!(probe_name_index(&[], "x", NameKind::Binding).count(), 0);
    let unknown = NameIndexSlot {
        target: 9 << 28 | 5,
        ..NameIndexSlot::new(name_hash("x"), NameKind::Binding, 0)
    };
    assert_eq!(unknown.kind(), Some(NameKind::Unknown(9)));
    assert_eq!(unknown.index(), 5);
    assert_eq!(
        probe_name_index(&[unknown, NameIndexSlot::EMPTY], "x", NameKind::Binding).count(),
        0
    );
    assert_eq!(NameIndexSlot::EMPTY.kind(), None);
}

#[test]
fn typed_getters_keep_unknown_values() {
    let b = DescriptorBinding {
        descriptor_type: 999,
        count_kind: 7,
        count: 3,
        stage_flags: 0x8000_0010,
        flags: 0x100 | BindingFlags::WRITABLE.to_raw(),
        entry_point_mask: 0b10,
        ..DescriptorBinding::default()
    };
    assert_eq!(b.kind(), DescriptorKind::Unknown(999));
    assert_eq!(b.array_kind(), ArrayKind::Unknown(7));
    assert_eq!(
        b.descriptor_count(),
        Some(3),
        "an unknown count kind reads as fixed"
    );
    assert!(b.stages().contains(ShaderStageFlags::FRAGMENT));
    assert_eq!(b.stages().unknown_bits(), 0x8000_0000);
    assert_eq!(b.binding_flags().unknown_bits(), 0x100);
    assert!(b.binding_flags().contains(BindingFlags::WRITABLE));
    assert!(!b.used_by(0) && b.used_by(1) && !b.used_by(40));
    let layout = BufferLayout {
        kind: 9,
        ..BufferLayout::default()
    };
    assert_eq!(layout.buffer_kind(), BufferKind::Unknown(9));
    assert_eq!(layout.buffer_kind().name(), "unknown");
    let input = VertexInput {
        format: 12345,
        flags: 2,
        ..VertexInput::default()
    };
    assert_eq!(input.vk_format(), Format::Unknown(12345));
    assert!(!input.is_used());
    let set = DescriptorSetLayout {
        flags: 3,
        ..DescriptorSetLayout::default()
    };
    assert!(set.set_flags().contains(SetFlags::HAS_UNBOUNDED));
    assert_eq!(set.set_flags().unknown_bits(), 2);
}

#[test]
fn default_values() {
    let (lo, hi) = crate::split_u64(0.5f64.to_bits());
    let member = BufferMember {
        flags: (MemberFlags::HAS_DEFAULT | MemberFlags::DEFAULT_IS_FLOAT).to_raw(),
        default_lo: lo,
        default_hi: hi,
        ..BufferMember::default()
    };
    assert_eq!(member.default_value(), Some(DefaultValue::Float(0.5)));
    let (lo, hi) = crate::split_u64((-3i64) as u64);
    let constant = SpecializationConstant {
        flags: SpecializationFlags::HAS_DEFAULT.to_raw(),
        default_lo: lo,
        default_hi: hi,
        ..SpecializationConstant::default()
    };
    assert_eq!(constant.default_value(), Some(DefaultValue::Int(-3)));
    assert_eq!(BufferMember::default().default_value(), None);
}

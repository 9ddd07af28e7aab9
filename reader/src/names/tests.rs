//! Tests of the name table and the byte comparison.

use super::{baked_probe_reaches_every_slot, same_bytes};
use slangpack_format::bind::{name_hash, NameIndexSlot, NameKind};

#[test]
fn names_that_share_every_hashed_byte_are_told_apart_by_the_whole_name() {
    use super::{probe_hash, NameEntry, NameTable};
    // Forty bytes: the probe hash reads bytes 0..8, 16..24 and 32..40; byte 10 differs.
    let names: Vec<String> = (0..40u8)
        .map(|i| {
            let mut name = *b"gScene.materials.params.roughness.xyzw01";
            name[10] = b'A' + i;
            String::from_utf8(name.to_vec()).unwrap()
        })
        .collect();
    let hash = probe_hash(names[0].as_bytes());
    assert!(names.iter().all(|n| probe_hash(n.as_bytes()) == hash));
    let mut table = NameTable {
        text: String::new(),
        entries: vec![NameEntry::EMPTY; 256],
        rotation: 0,
    };
    let mut entries = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let start = table.text.len() as u32;
        table.text.push_str(name);
        entries.push(NameEntry {
            hash: probe_hash(name.as_bytes()),
            target: NameIndexSlot::new(name_hash(name), NameKind::Member, i as u32).target,
            start,
            len: name.len() as u32,
            layout: 7,
        });
    }
    assert!(table.place(&entries));
    for (i, name) in names.iter().enumerate() {
        assert_eq!(
            table.lookup().find(name.as_bytes(), NameKind::Member),
            Some((i as u32, 7))
        );
        assert_eq!(
            table.lookup().find(name.as_bytes(), NameKind::Binding),
            None
        );
    }
    let mut absent = names[0].clone().into_bytes();
    absent[10] = b'z';
    assert_eq!(probe_hash(&absent), hash);
    assert_eq!(table.lookup().find(&absent, NameKind::Member), None);
    // Short names: every length below eight bytes, each found and told apart.
    let short = [
        "", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "b", "ba",
    ];
    let mut table = NameTable {
        text: String::new(),
        entries: vec![NameEntry::EMPTY; 64],
        rotation: 0,
    };
    let mut entries = Vec::new();
    for (i, name) in short.iter().enumerate() {
        let start = table.text.len() as u32;
        table.text.push_str(name);
        entries.push(NameEntry {
            hash: probe_hash(name.as_bytes()),
            target: NameIndexSlot::new(name_hash(name), NameKind::Binding, i as u32).target,
            start,
            len: name.len() as u32,
            layout: 0,
        });
    }
    assert!(table.place(&entries));
    for (i, name) in short.iter().enumerate() {
        assert_eq!(
            table.lookup().find(name.as_bytes(), NameKind::Binding),
            Some((i as u32, 0)),
            "{name:?}"
        );
    }
    assert_eq!(table.lookup().find(b"abcdefgh", NameKind::Binding), None);
}

#[test]
fn the_name_table_finds_by_name_and_kind() {
    use super::{probe_hash, NameEntry, NameTable};
    let names = ["abcdefgh.X.12345678", "abcdefgh.Y.12345678"];
    let mut table = NameTable {
        text: String::new(),
        entries: vec![NameEntry::EMPTY; 8],
        rotation: 0,
    };
    for (i, name) in names.iter().enumerate() {
        let start = table.text.len() as u32;
        table.text.push_str(name);
        let entry = NameEntry {
            hash: probe_hash(name.as_bytes()),
            target: NameIndexSlot::new(name_hash(name), NameKind::Binding, i as u32).target,
            start,
            len: name.len() as u32,
            layout: 0,
        };
        assert!(table.insert(entry).is_some());
    }
    assert_eq!(
        table.lookup().find(names[0].as_bytes(), NameKind::Binding),
        Some((0, 0))
    );
    assert_eq!(
        table.lookup().find(names[1].as_bytes(), NameKind::Binding),
        Some((1, 0))
    );
    assert_eq!(
        table
            .lookup()
            .find(b"abcdefgh.Z.12345678", NameKind::Binding),
        None
    );
    assert_eq!(
        table.lookup().find(names[0].as_bytes(), NameKind::Member),
        None
    );
}

/// Entries for `count` distinct member names that share every byte the probe hash reads
/// (and their length), spelled into `table`'s arena.
fn colliding_entries(table: &mut super::NameTable, count: u32) -> Vec<super::NameEntry> {
    use super::{probe_hash, NameEntry};
    (0..count)
        .map(|i| {
            // 40 bytes: the hash reads 0..8, 16..24 and 32..40; bytes 8..16 differ.
            let name = format!("gScene.m{i:07}.params.roughness.xyzw01");
            let start = table.text.len() as u32;
            table.text.push_str(&name);
            NameEntry {
                hash: probe_hash(name.as_bytes()),
                target: NameIndexSlot::new(name_hash(&name), NameKind::Member, i).target,
                start,
                len: name.len() as u32,
                layout: 0,
            }
        })
        .collect()
}

#[test]
fn placing_names_whose_probe_hashes_collide_gives_up_past_the_bound() {
    use super::{probe_hash, NameEntry, NameTable, MAX_DISPLACEMENT};
    // As many colliding names as the bound allows: placed, each found.
    let mut table = NameTable {
        text: String::new(),
        entries: vec![NameEntry::EMPTY; 2048],
        rotation: 0,
    };
    let fits = colliding_entries(&mut table, MAX_DISPLACEMENT as u32 + 1);
    assert!(fits.windows(2).all(|w| w[0].hash == w[1].hash));
    assert!(table.place(&fits));
    let name = |table: &NameTable, e: &NameEntry| {
        table.text[e.start as usize..(e.start + e.len) as usize].to_string()
    };
    for (i, e) in fits.iter().enumerate() {
        let spelled = name(&table, e);
        assert_eq!(probe_hash(spelled.as_bytes()), fits[0].hash);
        assert_eq!(
            table.lookup().find(spelled.as_bytes(), NameKind::Member),
            Some((i as u32, 0))
        );
    }
    // One more: the last would sit past the bound under every rotation. The placement gives
    // up, having probed at most the bound per entry and rotation (before, 65,536 such names
    // took 2^31 probes and a name comparison each, 21.5 s).
    let mut table = NameTable {
        text: String::new(),
        entries: vec![NameEntry::EMPTY; 1 << 18],
        rotation: 0,
    };
    let many = colliding_entries(&mut table, 65_536);
    assert!(!table.place(&many));
    let mut table = NameTable {
        text: String::new(),
        entries: vec![NameEntry::EMPTY; 2048],
        rotation: 0,
    };
    let one_more = colliding_entries(&mut table, MAX_DISPLACEMENT as u32 + 2);
    assert!(!table.place(&one_more));
}

#[test]
fn baked_hashes_of_one_kind_are_distinct() {
    use super::baked_hashes_distinct;
    let at = |hash: u64, kind| NameIndexSlot::new(hash, kind, 0);
    let empty = NameIndexSlot::EMPTY;
    let (b, m) = (NameKind::Binding, NameKind::Member);
    assert!(baked_hashes_distinct(&[
        at(1, b),
        at(1, m),
        at(3, b),
        empty
    ]));
    // Two slots of one kind and hash, the second displaced by one.
    assert!(!baked_hashes_distinct(&[empty, at(1, b), at(1, b), empty]));
    // ... or wrapped around the end.
    assert!(!baked_hashes_distinct(&[at(3, m), empty, empty, at(3, m)]));
    assert!(baked_hashes_distinct(&[at(3, m), empty, empty, at(7, m)]));
    assert!(baked_hashes_distinct(&[empty, empty]));
}

#[test]
fn reachability_of_baked_slots() {
    let at = |hash: u64| NameIndexSlot::new(hash, NameKind::Binding, 0);
    let empty = NameIndexSlot::EMPTY;
    // Home 1 at 1, home 1 pushed to 2, home 3 pushed around the end to 0.
    assert!(baked_probe_reaches_every_slot(&[
        at(3),
        at(1),
        at(1),
        at(3)
    ]));
    assert!(baked_probe_reaches_every_slot(&[
        at(3),
        at(1),
        empty,
        at(3)
    ]));
    // Home 1 behind the empty slot 2: no probe from 1 gets to 3.
    assert!(!baked_probe_reaches_every_slot(&[
        empty,
        at(1),
        empty,
        at(1)
    ]));
    // Home 3 wrapped to 0, but slot 3 is empty: unreachable.
    assert!(!baked_probe_reaches_every_slot(&[
        at(3),
        at(1),
        at(2),
        empty
    ]));
    assert!(baked_probe_reaches_every_slot(&[empty, empty]));
}

#[test]
fn same_bytes_is_slice_equality() {
    let base: Vec<u8> = (0u8..40).map(|b| b.wrapping_mul(37)).collect();
    for n in 0..base.len() {
        let a = &base[..n];
        assert!(same_bytes(a, a));
        assert!(!same_bytes(a, &base[..n + 1]));
        for at in 0..n {
            let mut b = a.to_vec();
            b[at] ^= 1;
            assert!(!same_bytes(a, &b), "length {n}, differing at {at}");
        }
    }
}

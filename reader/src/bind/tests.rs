//! Hostile name indices: what filling the reader's name table costs, and which indices the
//! load refuses (SPEC.md 6.7). Work is asserted as counts and refusals, never as time.

use crate::tests::common::float_member;
use crate::tests::{open_all, package_with_blob};
use crate::{ErrorKind, Package};
use slangpack_format::bind::*;
use slangpack_format::limits::MAX_NAME_INDEX_PROBE;
use slangpack_format::{ReflectionBuilder, ABSENT};

/// Set 0 of `bindings` bindings (the first ones), the bind summary of one set and one entry
/// point, and its execution modes.
fn set_zero(b: &mut ReflectionBuilder, bindings: u32) {
    b.push(DescriptorSetLayout {
        set: 0,
        first_binding: 0,
        binding_count: bindings,
        flags: 0,
    });
    b.push(BindSummary {
        set_slot_count: 1,
        global_uniform_binding: ABSENT,
        entry_point_count: 1,
        ..BindSummary::default()
    });
    b.push(ExecutionModes::default());
}

/// Binding number `binding` of set 0, used by entry point 0, named and found by `path` (a
/// string index) and by `sampler` (absent, or a sampler's path).
fn binding_at(binding: u32, path: u32, sampler: u32) -> DescriptorBinding {
    DescriptorBinding {
        name: path,
        path,
        spirv_name: path,
        binding,
        entry_point_mask: 1,
        buffer_layout: ABSENT,
        input_attachment_index: ABSENT,
        sampler_path: sampler,
        ..DescriptorBinding::default()
    }
}

/// A buffer named `name` (a string index), bound nowhere, of the `count` float members from
/// `first` on, 4 bytes each.
fn float_buffer(name: u32, first: u32, count: u32) -> BufferLayout {
    BufferLayout {
        name,
        set: ABSENT,
        binding: ABSENT,
        size: 4 * count,
        stride: 4 * count,
        first_member: first,
        member_count: count,
        ..BufferLayout::default()
    }
}

/// A blob of one binding, set 0's only, whose path is `path`, and a name index of `len` slots
/// (a power of two) holding `copies` slots that all name it by its path's hash, from its home
/// slot on.
fn binding_named_by(path: &str, len: usize, copies: usize) -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let at = b.intern(path);
    b.push(binding_at(0, at, ABSENT));
    set_zero(&mut b, 1);
    let hash = name_hash(path);
    let mut slots = vec![NameIndexSlot::EMPTY; len];
    for k in 0..copies {
        slots[(hash as usize + k) & (len - 1)] = NameIndexSlot::new(hash, NameKind::Binding, 0);
    }
    b.push_all(&slots);
    b.finish()
}

#[test]
fn slots_naming_one_binding_spell_its_name_at_most_once() {
    // A 16 MiB path (the longest string) named by 128 slots of a 256-slot index: spelling
    // every slot's name took 2 GiB before the budget was asked.
    let path = "p".repeat(16 << 20);
    let bytes = package_with_blob(binding_named_by(&path, 256, 128));
    let package = Package::from_bytes(&bytes).unwrap();
    let before = package.owned_bytes();
    let entry = package
        .load("k")
        .expect("a damaged index falls back, within the budget");
    // The blob itself (its 16 MiB string, copied out of the raw section), and no name.
    let charged = package.owned_bytes() - before;
    assert!(
        charged < path.len() as u64 + (1 << 20),
        "{charged} bytes counted for the blob and its names"
    );
    let bind = entry.bind();
    assert!(!bind.has_name_table(), "two slots of one name: no table");
    // Lookups probe the baked index.
    assert!(bind.binding(&path).is_some());
    assert!(bind.binding(&path[1..]).is_none());
}

#[test]
fn an_honest_view_counts_its_names_in_a_few_calls() {
    let bytes = crate::tests::common::package();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load(crate::tests::common::KEY).unwrap();
    let bind = entry.bind();
    let calls = std::cell::Cell::new(0);
    let total = std::cell::Cell::new(0);
    let table = bind
        .name_table(&|bytes| {
            calls.set(calls.get() + 1);
            total.set(total.get() + bytes);
            Ok(())
        })
        .unwrap();
    assert!(table.owned_size() > 0, "a well-formed view gets its table");
    assert!(table.owned_size() <= total.get());
    assert_eq!(calls.get(), 2, "the entries, then the names in one chunk");
}

#[test]
fn a_name_index_more_than_half_full_is_refused() {
    // Full: 4,096 slots naming one binding (131,072 took 34 s to fill, quadratically).
    let e = open_all(&package_with_blob(binding_named_by("gScene", 4096, 4096))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadValue, "{e}");
    assert!(
        e.message()
            .contains("4096 of 4096 slots used, expected at most half"),
        "{e}"
    );
    let e = open_all(&package_with_blob(binding_named_by("gScene", 16, 9))).unwrap_err();
    assert!(e.message().contains("9 of 16 slots used"), "{e}");
    // Half full loads (the table is not built: its slots name one binding).
    let bytes = package_with_blob(binding_named_by("gScene", 16, 8));
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    assert!(entry.bind().binding("gScene").is_some());
}

#[test]
fn a_slot_displaced_past_the_probe_bound_is_refused() {
    let bound = MAX_NAME_INDEX_PROBE as usize;
    // The last of bound + 1 slots sharing a home sits `bound` past it: loads.
    let at_bound = package_with_blob(binding_named_by("gScene", 1024, bound + 1));
    open_all(&at_bound).unwrap();
    // One more sits past it.
    let e = open_all(&package_with_blob(binding_named_by(
        "gScene",
        1024,
        bound + 2,
    )))
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(e.message().contains("slots past its home slot"), "{e}");
    assert!(e.message().contains("limit 256"), "{e}");
}

/// A blob of one buffer `gScene` of `count` float members whose names
/// (`gScene.m0000000.params.roughness.xyzw01`, ...) share every byte the reader's probe hash
/// reads and their length, indexed as a 2.4 writer does, or with `derived` as a 2.5 one does
/// (the names are the records').
fn colliding_members(count: u32, derived: bool) -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let name = b.intern("gScene");
    let mut names = vec![("gScene".to_string(), NameKind::Buffer, 0)];
    for i in 0..count {
        let member = format!("m{i:07}.params.roughness.xyzw01");
        let path = b.intern(&member);
        b.push(float_member(path, 4 * i));
        names.push((format!("gScene.{member}"), NameKind::Member, i));
    }
    b.push(float_buffer(name, 0, count));
    if derived {
        b.push(NameIndexSlot::DERIVED);
    } else {
        b.push_all(&build_name_index(names));
    }
    b.finish()
}

/// Lookups in the bind view of [`colliding_members`] (`derived` as there): with 2,048 names the
/// table is not built and each name is found (through the baked index, or by scanning the
/// records), none other; with 200, as many as the bound allows, the table is built and finds
/// each.
fn colliding_names_are_found(derived: bool) {
    let bytes = package_with_blob(colliding_members(2048, derived));
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let bind = entry.bind();
    assert!(!bind.has_name_table());
    for i in [0, 1, 1000, 2047] {
        let path = format!("gScene.m{i:07}.params.roughness.xyzw01");
        let (_, member) = bind.buffer_member(&path).expect("found without the table");
        assert_eq!(member.offset, 4 * i);
    }
    assert!(bind
        .buffer_member("gScene.m0002048.params.roughness.xyzw01")
        .is_none());
    assert!(bind.buffer("gScene").is_some());
    assert!(bind.buffer_member("gScene.").is_none());
    let bytes = package_with_blob(colliding_members(200, derived));
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let bind = entry.bind();
    assert!(bind.has_name_table());
    for i in [0, 199] {
        let path = format!("gScene.m{i:07}.params.roughness.xyzw01");
        assert_eq!(
            bind.buffer_member(&path).map(|(_, m)| m.offset),
            Some(4 * i)
        );
    }
}

#[test]
fn names_crafted_to_collide_leave_the_table_unbuilt_and_lookups_bounded() {
    // 2,048 names of one probe hash would sit up to 2,047 entries past their home (65,536
    // of them took 21.5 s to place, quadratically): the table is not built, and lookups probe
    // the baked xxh3 index, which no slot leaves by more than the bound.
    colliding_names_are_found(false);
}

#[test]
fn derived_names_crafted_to_collide_are_found_by_scanning_the_records() {
    // No baked index to fall back on (2.5): a lookup scans the members.
    colliding_names_are_found(true);
}

/// A bind view of derived names (2.5) with every case the rule names: bindings 0-3 (`tex`
/// twice, the second also by its sampler `smp`; `both` whose sampler path is its own; one of
/// no path, named by its sampler `lone`), buffers `cb` (twice: 0 and 1) and one of no name, and
/// members `a`, `arr[].x`, `b.c`, one of no path, then `a` again, all of buffer 0, and `z` of
/// the unnamed buffer.
fn derived_view() -> Vec<u8> {
    let mut b = ReflectionBuilder::new();
    let s = |b: &mut ReflectionBuilder, text: &str| b.intern(text);
    let bindings = [("tex", ""), ("tex", "smp"), ("both", "both"), ("", "lone")];
    for (i, (path, sampler)) in bindings.into_iter().enumerate() {
        let (path, sampler) = (s(&mut b, path), s(&mut b, sampler));
        b.push(binding_at(i as u32, path, sampler));
    }
    set_zero(&mut b, 4);
    let members = ["a", "arr[].x", "b.c", "", "a", "z"];
    for (i, path) in members.into_iter().enumerate() {
        let path = s(&mut b, path);
        b.push(float_member(path, 4 * i as u32));
    }
    for (name, first, count) in [("cb", 0, 5), ("cb", 5, 0), ("", 5, 1)] {
        let name = s(&mut b, name);
        b.push(float_buffer(name, first, count));
    }
    b.push(NameIndexSlot::DERIVED);
    b.finish()
}

#[test]
fn derived_names_are_the_records_own_and_the_lowest_index_wins() {
    let bytes = package_with_blob(derived_view());
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("k").unwrap();
    let built = entry.bind();
    assert!(built.has_name_table());
    // The same answers from the reader's table and from scanning the records.
    for bind in [built, built.with_unresolved_names()] {
        let binding = |name: &str| bind.binding_handle(name).map(|h| h.index());
        assert_eq!(binding("tex"), Some(0), "the lowest index of two");
        assert_eq!(binding("smp"), Some(1));
        assert_eq!(binding("both"), Some(2));
        assert_eq!(binding("lone"), Some(3));
        assert_eq!(binding(""), None, "an empty name names nothing");
        assert_eq!(binding("cb"), None, "a buffer is no binding");
        let buffer = |name: &str| bind.buffer(name).map(|l| l.first_member);
        assert_eq!(buffer("cb"), Some(0), "the lowest index of two");
        assert_eq!(buffer(""), None);
        let member = |name: &str| {
            bind.member_handle(name)
                .map(|h| (h.layout_index(), h.member_index()))
        };
        assert_eq!(member("cb.a"), Some((0, 0)), "the lowest index of two");
        assert_eq!(member("cb.b.c"), Some((0, 2)));
        assert_eq!(member("cb.arr[].x"), None, "under []: no name");
        assert_eq!(member("cb."), None, "no path: no name");
        assert_eq!(member("cb"), None);
        assert_eq!(
            member("z"),
            Some((2, 5)),
            "a member of an unnamed buffer: its path"
        );
        assert_eq!(member(".z"), None);
        assert_eq!(member("cb.z"), None);
    }
}

//! The bind view's rules (SPEC.md 6.7): counts, indices and bounded values, set layouts'
//! runs, buffer sizes and members' parents, each refused with its error kind.

use super::argument_buffers::blob_with_argument_buffer;
use super::target_bindings::blob_with_target_buffer;
use super::*;

/// The bind-view records of [`bind_blob`], before a test edits them.
struct BindRecords {
    summaries: Vec<bind::BindSummary>,
    binding: bind::DescriptorBinding,
    /// Bindings after `binding` (none at first).
    more: Vec<bind::DescriptorBinding>,
    set: bind::DescriptorSetLayout,
    push: bind::PushConstantRange,
    record_block: bind::ShaderRecordBlock,
    inputs: Vec<bind::VertexInput>,
    outputs: Vec<bind::FragmentOutput>,
    modes: Vec<bind::ExecutionModes>,
}

/// A blob with a consistent bind view (one entry point, one set holding one binding, a
/// push-constant range, a shader-record block, two vertex inputs), `edit`ed first.
fn bind_blob(edit: impl FnOnce(&mut BindRecords)) -> Vec<u8> {
    use bind::*;
    let mut b = ReflectionBuilder::new();
    let name = b.intern("gScene");
    let input = VertexInput {
        entry_point: 0,
        location: 0,
        location_count: 1,
        semantic_name: name,
        name,
        ..VertexInput::default()
    };
    let mut r = BindRecords {
        summaries: vec![BindSummary {
            set_slot_count: 1,
            global_uniform_binding: ABSENT,
            entry_point_count: 1,
            ..BindSummary::default()
        }],
        binding: DescriptorBinding {
            name,
            path: name,
            spirv_name: name,
            set: 0,
            binding: 0,
            entry_point_mask: 1,
            buffer_layout: ABSENT,
            input_attachment_index: ABSENT,
            sampler_path: ABSENT,
            ..DescriptorBinding::default()
        },
        more: Vec::new(),
        set: DescriptorSetLayout {
            set: 0,
            first_binding: 0,
            binding_count: 1,
            flags: 0,
        },
        push: PushConstantRange {
            name,
            size: 16,
            buffer_layout: ABSENT,
            entry_point_mask: 1,
            ..PushConstantRange::default()
        },
        record_block: ShaderRecordBlock {
            name,
            size: 16,
            entry_point_mask: 1,
            buffer_layout: ABSENT,
            ..ShaderRecordBlock::default()
        },
        inputs: vec![
            input,
            VertexInput {
                location: 1,
                ..input
            },
        ],
        outputs: vec![
            FragmentOutput {
                name,
                component_count: 4,
                ..FragmentOutput::default()
            },
            FragmentOutput {
                name,
                component_count: 4,
                index: 1,
                ..FragmentOutput::default()
            },
        ],
        modes: vec![ExecutionModes::default()],
    };
    edit(&mut r);
    b.push_all(&r.summaries);
    b.push(r.binding);
    b.push_all(&r.more);
    b.push(r.set);
    b.push(r.push);
    b.push(r.record_block);
    b.push_all(&r.inputs);
    b.push_all(&r.outputs);
    b.push_all(&r.modes);
    b.finish()
}

/// A package whose one entry has `entry_points` entry points and [`bind_blob`] edited by
/// `edit`.
fn bind_package(entry_points: usize, edit: impl FnOnce(&mut BindRecords)) -> Vec<u8> {
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::None);
    let s = p.add_spirv(&[0x0723_0203]);
    let r = p.add_reflection(bind_blob(edit));
    let mut e = entry("k", Some(r), s);
    e.entry_points[0].reflection_entry_point = None;
    let ep = e.entry_points[0].clone();
    e.entry_points = (0..entry_points)
        .map(|i| EntryPointDesc {
            name: format!("main{i}"),
            ..ep.clone()
        })
        .collect();
    p.add_entry(e).unwrap();
    p.finish().unwrap()
}

/// The full check's error for [`bind_package`] of one entry point.
fn bind_error(edit: impl FnOnce(&mut BindRecords)) -> crate::Error {
    open_all(&bind_package(1, edit)).expect_err("a bind view the reader refuses")
}

/// An edit of [`BindRecords`], the error kind it gives and what the message names.
type BindCase = (fn(&mut BindRecords), ErrorKind, &'static str);

#[test]
fn bind_view_counts_indices_and_bounded_values_are_checked() {
    let ok = |entry_points: usize, edit: fn(&mut BindRecords)| {
        open_all(&bind_package(entry_points, edit)).unwrap();
    };
    ok(1, |_| {});
    // 32 entry points, every mask bit in use.
    ok(32, |r| {
        r.summaries[0].entry_point_count = 32;
        r.binding.entry_point_mask = u32::MAX;
        r.inputs[1].entry_point = 31;
        r.outputs[1].entry_point = 31;
        r.modes = (0..32)
            .map(|entry_point| bind::ExecutionModes {
                entry_point,
                ..bind::ExecutionModes::default()
            })
            .collect();
    });
    let cases: [BindCase; 21] = [
        (
            |r| r.binding.count_kind = 3,
            ErrorKind::BadValue,
            "descriptor_bindings[0].count_kind = 0x3",
        ),
        (
            |r| r.binding.count_kind = u32::MAX,
            ErrorKind::BadValue,
            "descriptor_bindings[0].count_kind = 0xffffffff",
        ),
        (
            |r| {
                r.binding.count_kind = bind::COUNT_UNBOUNDED;
                r.binding.count = 4;
            },
            ErrorKind::BadValue,
            "descriptor_bindings[0].count = 4, expected 0",
        ),
        // One record for the blob's two entry points.
        (
            |r| r.summaries[0].entry_point_count = 2,
            ErrorKind::BadValue,
            "1 records for 2 entry points",
        ),
        (
            |r| r.summaries[0].entry_point_count = 32,
            ErrorKind::BadValue,
            "1 records for 32 entry points",
        ),
        (
            |r| r.outputs[1].entry_point = 1,
            ErrorKind::IndexOutOfRange,
            "fragment_outputs[1].entry_point",
        ),
        (
            |r| r.outputs[1].index = 0,
            ErrorKind::BadValue,
            "not sorted",
        ),
        (
            |r| {
                r.modes.push(bind::ExecutionModes {
                    entry_point: 1,
                    ..r.modes[0]
                });
            },
            ErrorKind::IndexOutOfRange,
            "execution_modes[1].entry_point",
        ),
        (
            |r| {
                r.summaries[0].entry_point_count = 2;
                r.modes[0].entry_point = 1;
            },
            ErrorKind::BadValue,
            "execution_modes[0].entry_point",
        ),
        // In range of the blob's two entry points, not of the entry's one.
        (
            |r| {
                r.summaries[0].entry_point_count = 2;
                r.modes.push(bind::ExecutionModes {
                    entry_point: 1,
                    ..r.modes[0]
                });
            },
            ErrorKind::IndexOutOfRange,
            "execution modes of entry point 1",
        ),
        (
            |r| r.inputs[1].entry_point = 0x7FFF_FFFF,
            ErrorKind::IndexOutOfRange,
            "vertex_inputs[1].entry_point",
        ),
        (
            |r| r.inputs.swap(0, 1),
            ErrorKind::IndexOutOfRange,
            "not sorted",
        ),
        // In range of the blob's two entry points, not of the entry's one.
        (
            |r| {
                r.summaries[0].entry_point_count = 2;
                r.inputs[1].entry_point = 1;
                r.modes.push(bind::ExecutionModes {
                    entry_point: 1,
                    ..r.modes[0]
                });
            },
            ErrorKind::IndexOutOfRange,
            "vertex input of entry point 1",
        ),
        (
            |r| r.summaries[0].entry_point_count = 0x7FFF_FFFF,
            ErrorKind::LimitExceeded,
            "entry_point_count",
        ),
        (
            |r| r.summaries[0].entry_point_count = 33,
            ErrorKind::LimitExceeded,
            "limit 32",
        ),
        (
            |r| r.summaries.push(r.summaries[0]),
            ErrorKind::Duplicate,
            "bind summary",
        ),
        (
            |r| r.binding.entry_point_mask = 0b10,
            ErrorKind::BadValue,
            "descriptor_bindings[0].entry_point_mask",
        ),
        (
            |r| r.push.entry_point_mask = 0x8000_0001,
            ErrorKind::BadValue,
            "push_constant_ranges[0].entry_point_mask",
        ),
        (
            |r| r.record_block.entry_point_mask = 0b11,
            ErrorKind::BadValue,
            "shader_record_blocks[0].entry_point_mask",
        ),
        (
            |r| r.summaries[0].set_slot_count = 0x7FFF_FFFF,
            ErrorKind::BadValue,
            "set_slot_count",
        ),
        (
            |r| r.binding.set = 5,
            ErrorKind::IndexOutOfRange,
            "descriptor_bindings[0].set",
        ),
    ];
    for (edit, kind, needle) in cases {
        let e = bind_error(edit);
        assert_eq!(e.kind(), kind, "{needle}: {e}");
        assert!(e.message().contains(needle), "{needle}: {e}");
    }
    // A set layout beyond the summary's set slots.
    let e = bind_error(|r| r.set.set = 3);
    assert_eq!(e.kind(), ErrorKind::BadValue, "{e}");
    // Every known count kind, and no execution modes at all (a package before 1.3), load.
    ok(1, |r| {
        r.binding.count_kind = bind::COUNT_UNBOUNDED;
        r.binding.count = 0;
    });
    ok(1, |r| r.binding.count_kind = bind::COUNT_ZERO);
    ok(2, |r| {
        r.summaries[0].entry_point_count = 2;
        r.modes.clear();
    });
}

/// [`bind_blob`] with five bindings in set 0 and one in set 2 (a hole at 1), their layouts
/// made by `layouts` from the runs `(set, first, count)` of the writer's.
fn sets_package(layouts: fn(&mut Vec<bind::DescriptorSetLayout>)) -> Vec<u8> {
    let mut sets = vec![
        bind::DescriptorSetLayout {
            set: 0,
            first_binding: 0,
            binding_count: 5,
            flags: 0,
        },
        bind::DescriptorSetLayout {
            set: 2,
            first_binding: 5,
            binding_count: 1,
            flags: 0,
        },
    ];
    layouts(&mut sets);
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::None);
    let s = p.add_spirv(&[0x0723_0203]);
    let mut b = ReflectionBuilder::new();
    let name = b.intern("gScene");
    let binding = |set, binding| bind::DescriptorBinding {
        name,
        path: name,
        spirv_name: name,
        set,
        binding,
        entry_point_mask: 1,
        buffer_layout: ABSENT,
        input_attachment_index: ABSENT,
        sampler_path: ABSENT,
        ..bind::DescriptorBinding::default()
    };
    for (set, number) in [(0, 0), (0, 1), (0, 1), (0, 3), (0, 4), (2, 0)] {
        b.push(binding(set, number));
    }
    b.push_all(&sets);
    b.push(bind::BindSummary {
        set_slot_count: 3,
        global_uniform_binding: ABSENT,
        entry_point_count: 1,
        ..bind::BindSummary::default()
    });
    b.push(bind::ExecutionModes::default());
    let r = p.add_reflection(b.finish());
    let mut e = entry("k", Some(r), s);
    e.entry_points[0].reflection_entry_point = None;
    p.add_entry(e).unwrap();
    p.finish().unwrap()
}

#[test]
fn a_set_layout_s_bindings_are_exactly_its_set_s() {
    let bytes = sets_package(|_| {});
    let package = Package::from_bytes(&bytes).unwrap();
    package.verify_all().unwrap();
    let entry = package.load("k").unwrap();
    let counts: Vec<usize> = entry
        .bind()
        .set_layouts()
        .map(|s| s.bindings().len())
        .collect();
    assert_eq!(counts, [5, 0, 1]);
    type Case = (fn(&mut Vec<bind::DescriptorSetLayout>), &'static str);
    let cases: [Case; 6] = [
        // Two of set 0's five bindings: an engine would make a set layout missing three.
        (
            |s| s[0].binding_count = 2,
            "set 0's binding 1 lies outside the run",
        ),
        (|s| s[0].first_binding = 1, "holds binding 5 of set 2"),
        (
            |s| {
                s[0].binding_count = 4;
                s[0].first_binding = 1;
            },
            "set 0's binding 0 lies outside the run",
        ),
        // Set 2's binding left out of its run.
        (
            |s| s[1].binding_count = 0,
            "set 2's binding 0 lies outside the run",
        ),
        (|s| s.swap(0, 1), "not sorted by set"),
        (|s| s[0] = s[1], "not sorted by set (or repeated)"),
    ];
    for (edit, needle) in cases {
        let e = open_all(&sets_package(edit)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BadValue, "{needle}: {e}");
        assert!(e.message().contains(needle), "{needle}: {e}");
    }
    // Bindings out of (set, binding) order.
    let e = bind_error(|r| {
        r.more.push(bind::DescriptorBinding {
            binding: 0,
            ..r.binding
        });
        r.binding.binding = 1;
        r.set.binding_count = 2;
    });
    assert_eq!(e.kind(), ErrorKind::BadValue, "{e}");
    assert!(e.message().contains("not sorted by set, binding"), "{e}");
}

/// An edit of [`layouts_blob`]'s members and layouts.
type LayoutsEdit = fn(&mut [bind::BufferMember], &mut [bind::BufferLayout]);

/// A blob with two buffer layouts of two members each (a struct and its float), members
/// edited by `edit` (given the members and the layouts).
fn layouts_blob(
    edit: impl FnOnce(&mut [bind::BufferMember], &mut [bind::BufferLayout]),
) -> Vec<u8> {
    use bind::*;
    let mut b = ReflectionBuilder::new();
    let name = b.intern("s");
    let member = |parent| BufferMember {
        path: name,
        name,
        parent,
        first_attribute: 0,
        attribute_count: 0,
        ..BufferMember::default()
    };
    let mut members = [member(ABSENT), member(0), member(ABSENT), member(2)];
    let layout = |first_member| BufferLayout {
        name,
        set: ABSENT,
        binding: ABSENT,
        first_member,
        member_count: 2,
        ..BufferLayout::default()
    };
    let mut layouts = [layout(0), layout(2)];
    edit(&mut members, &mut layouts);
    b.push_all(&layouts);
    b.push_all(&members);
    b.finish()
}

#[test]
fn buffer_sizes_are_bounded() {
    use slangpack_format::limits::MAX_BUFFER_SIZE;
    // At the limit: loaded, and a zeroed buffer of it is what `zeroed` would allocate.
    let bytes = package_with_blob(layouts_blob(|_, l| {
        (l[0].size, l[0].stride) = (MAX_BUFFER_SIZE, MAX_BUFFER_SIZE);
    }));
    let package = Package::from_bytes(&bytes).unwrap();
    package.verify_all().unwrap();
    let entry = package.load("k").unwrap();
    assert_eq!(
        entry.bind().buffer_view_at(0).unwrap().size(),
        MAX_BUFFER_SIZE
    );
    // Past it (a 4 GiB `zeroed`, a C struct of 4294967280 bytes), refused at load.
    type Case = (LayoutsEdit, &'static str);
    let cases: [Case; 3] = [
        (
            |_, l| (l[0].size, l[0].stride) = (0xFFFF_FFF0, 0xFFFF_FFF0),
            "buffer_layouts[0]: size 4294967280, stride 4294967280, limit 268435456",
        ),
        (
            |_, l| l[1].size = MAX_BUFFER_SIZE + 1,
            "buffer_layouts[1]: size 268435457",
        ),
        (
            |_, l| l[1].stride = MAX_BUFFER_SIZE + 1,
            "buffer_layouts[1]: size 0, stride 268435457",
        ),
    ];
    for (edit, needle) in cases {
        let e = open_all(&package_with_blob(layouts_blob(edit))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{needle}: {e}");
        assert!(e.message().contains(needle), "{needle}: {e}");
    }
    // A further target's layout and a Metal argument buffer too.
    let e = open_all(&package_with_blob(blob_with_target_buffer(|b, _| {
        b[0].size = u32::MAX;
    })))
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(
        e.message().contains("target_buffers[0]: size 4294967295"),
        "{e}"
    );
    let e = open_all(&package_with_blob(blob_with_argument_buffer(|b, _| {
        b[0].size = MAX_BUFFER_SIZE + 16;
    })))
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(e.message().contains("argument_buffers[0]: size"), "{e}");
}

#[test]
fn a_member_s_parent_is_an_earlier_member_of_its_layout() {
    open_all(&package_with_blob(layouts_blob(|_, _| {}))).unwrap();
    let cases: [(LayoutsEdit, &str); 4] = [
        // A later member of the same layout.
        (|m, _| m[2].parent = 3, "buffer_members[2].parent = 3"),
        // Itself.
        (|m, _| m[1].parent = 1, "buffer_members[1].parent = 1"),
        // A member of the other layout.
        (|m, _| m[3].parent = 0, "buffer_members[3].parent = 0"),
        // Layouts sharing a member.
        (
            |_, l| l[1].first_member = 1,
            "buffer_layouts[1].first_member",
        ),
    ];
    for (edit, needle) in cases {
        let e = open_all(&package_with_blob(layouts_blob(edit))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BadValue, "{needle}: {e}");
        assert!(e.message().contains(needle), "{needle}: {e}");
    }
}

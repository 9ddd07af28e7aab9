//! A counting global allocator proves that lookups and view accessors allocate nothing after
//! open, and that a load's own tables stay within the package's budget.

#![allow(
    unsafe_code,
    reason = "a GlobalAlloc implementation is unsafe by definition"
)]

mod common;

use slangpack_format::*;
use slangpack_reader::Package;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: every call forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees carry over; the only addition is a thread-local counter bump, which neither
// allocates (const-initialised `Cell`) nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        BYTES.with(|c| c.set(c.get() + layout.size()));
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, forwarded as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was returned by `System` through this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        BYTES.with(|c| c.set(c.get() + new_size));
        // SAFETY: forwarded unchanged; `ptr`/`layout` came from `System` through this allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

fn allocated_bytes() -> usize {
    BYTES.with(Cell::get)
}

fn package() -> Vec<u8> {
    let mut p = PackageBuilder::new();
    for i in 0..50u32 {
        let mut b = ReflectionBuilder::new();
        let name = b.intern(&format!("field{}", i % 5));
        let var = b.push(Variable {
            name,
            type_index: ABSENT,
            generic_container: ABSENT,
            ..Variable::default()
        });
        let fields = b.push_pool(&[var]);
        b.push(Type {
            field_pool: fields,
            field_count: 1,
            name,
            full_name: ABSENT,
            element_type: ABSENT,
            resource_result_type: ABSENT,
            generic_container: ABSENT,
            ..Type::default()
        });
        let cats = b.push_pool(&[8, 9]);
        let offs = b.push_pool(&[16, 3]);
        let vl = b.push(VarLayout {
            variable: var,
            type_layout: ABSENT,
            name,
            category_count: 2,
            category_pool: cats,
            offset_pool: offs,
            space_pool: offs,
            semantic_name: ABSENT,
            ..VarLayout::default()
        });
        let vls = b.push_pool(&[vl]);
        b.push(TypeLayout {
            type_index: 0,
            field_pool: vls,
            field_count: 1,
            category_count: 2,
            category_pool: cats,
            size_pool: 0,
            element_type_layout: ABSENT,
            element_var_layout: ABSENT,
            container_var_layout: ABSENT,
            explicit_counter_var_layout: ABSENT,
            ..TypeLayout::default()
        });
        b.push_pool(&[0, 0, 0, 0]);
        let kids = b.push_pool(&[1]);
        b.push(Decl {
            kind: 3,
            name: ABSENT,
            parent: ABSENT,
            child_pool: kids,
            child_count: 1,
            payload: ABSENT,
            ..Decl::default()
        });
        b.push(Decl {
            kind: 6,
            name,
            parent: 0,
            payload: ABSENT,
            ..Decl::default()
        });
        b.push(EntryPointLayout {
            name,
            name_override: ABSENT,
            parameter_pool: vls,
            parameter_count: 1,
            var_layout: ABSENT,
            result_var_layout: ABSENT,
            function: ABSENT,
            ..EntryPointLayout::default()
        });
        b.scalars_mut().root_decl = 0;
        let reflection = p.add_reflection(b.finish());
        let spirv = p.add_spirv(&[0x0723_0203, i]);
        p.add_entry(EntryDesc {
            key: format!("shader{i}.slang|main|N={i}"),
            reflection: Some(reflection),
            entry_points: vec![EntryPointDesc {
                thread_group_size: [0; 3],
                reflection_entry_point: Some(0),
                ..common::fixtures::entry_point("main", Stage::Fragment, spirv)
            }],
            dependencies: vec![DependencyDesc {
                path: format!("shader{i}.slang"),
                hash: 2,
            }],
            options_hash: 3,
        })
        .unwrap();
    }
    p.finish().unwrap()
}

#[test]
fn lookups_and_accessors_do_not_allocate() {
    let bytes = package();
    let package = Package::from_bytes(&bytes).unwrap();
    let keys: Vec<String> = (0..50)
        .map(|i| format!("shader{i}.slang|main|N={i}"))
        .collect();

    // The first load of each entry checks and decompresses (and may allocate); after that,
    // loading again and every accessor allocate nothing.
    for key in &keys {
        // The load, then the raw tables' one fallible step.
        package.load(key).unwrap().reflection().unwrap();
    }
    let before = allocations();
    let mut checksum = 0u64;
    for key in &keys {
        let entry = package.load(key).unwrap();
        checksum = checksum
            .wrapping_add(entry.options_hash() ^ entry.entry_point_hash())
            .wrapping_add(entry.key().len() as u64);
        for ep in entry.entry_points() {
            checksum += u64::from(ep.spirv()[1])
                + ep.name().len() as u64
                + ep.spirv_entry_name().len() as u64;
            checksum += u64::from(ep.stage().to_raw())
                + ep.layout().map_or(0, |l| u64::from(l.parameter_count));
        }
        for dep in entry.dependencies() {
            checksum += dep.path().len() as u64 + dep.content_hash();
        }
        let v = entry.reflection().unwrap();
        for t in v.types() {
            checksum += v.string(t.name).len() as u64;
            checksum += v.type_fields(t).count() as u64;
        }
        for tl in v.type_layouts() {
            checksum += v.struct_fields(tl).count() as u64 + v.type_layout_sizes(tl).count() as u64;
        }
        for vl in v.var_layouts() {
            checksum += v
                .var_layout_offsets(vl)
                .map(|o| u64::from(o.offset))
                .sum::<u64>();
        }
        if let Some(root) = v.root_decl() {
            checksum += v.decl_children(root).count() as u64;
        }
        for ep in v.entry_points() {
            checksum += v.entry_point_parameters(ep).count() as u64;
        }
        checksum += (v.u32_pool().len() + v.string_refs().len() + v.decls().len()) as u64;
    }
    assert!(package.find("missing").is_none());
    for entry in package.entries() {
        checksum += entry.unwrap().index() as u64;
    }
    checksum += package.keys().map(str::len).sum::<usize>() as u64;
    let after = allocations();
    assert_eq!(after - before, 0, "accessors allocated");
    assert!(checksum > 0);
    // The counter does count: one allocation is seen.
    let probe = std::hint::black_box(String::from("probe"));
    assert!(allocations() > after);
    drop(probe);
}

/// Opening a mapped package allocates in proportion to its directory (a few words per
/// section), not to what its sections hold: nothing is decompressed or copied until an entry
/// is loaded.
#[test]
fn names_spelling_more_than_the_budget_are_refused_before_they_are_spelled() {
    use slangpack_format::bind::*;
    // 192 members of a buffer whose name is 16 MiB, indexed as a writer does: the reader's
    // name table would spell 3 GiB of names (it did, then found them over the budget).
    let mut b = ReflectionBuilder::new();
    let buffer = "b".repeat(16 << 20);
    let name = b.intern(&buffer);
    let mut names = vec![(buffer.clone(), NameKind::Buffer, 0)];
    for i in 0..192 {
        let path = b.intern(&format!("m{i}"));
        b.push(common::float_member(path, 4 * i));
        names.push((format!("{buffer}.m{i}"), NameKind::Member, i));
    }
    b.push(BufferLayout {
        name,
        set: ABSENT,
        binding: ABSENT,
        size: 768,
        stride: 768,
        first_member: 0,
        member_count: 192,
        ..BufferLayout::default()
    });
    b.push_all(&build_name_index(names));
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::None);
    p.add_spirv(&[0x0723_0203]);
    let r = p.add_reflection(b.finish());
    p.add_entry(EntryDesc {
        key: "k".into(),
        reflection: Some(r),
        entry_points: Vec::new(),
        dependencies: Vec::new(),
        options_hash: 0,
    })
    .unwrap();
    let bytes = p.finish().unwrap();
    let package = Package::from_bytes(&bytes).unwrap();
    let before = allocated_bytes();
    let e = package.load("k").unwrap_err();
    let allocated = (allocated_bytes() - before) as u64;
    assert_eq!(e.kind(), slangpack_reader::ErrorKind::LimitExceeded, "{e}");
    // Every byte the names take is counted first: the arena, grown by doubling, allocates at
    // most twice the 1 GiB budget in all, never the 3 GiB it would spell.
    let budget = slangpack_format::limits::MAX_TOTAL_OWNED_SIZE;
    assert!(allocated <= 2 * budget, "{allocated} bytes allocated");
}

#[test]
fn open_allocates_the_directory_not_the_entries() {
    let bytes = package();
    let path = std::env::temp_dir().join(format!(
        "slangpack-no-alloc-{}.slangpack",
        std::process::id()
    ));
    std::fs::write(&path, &bytes).unwrap();
    let (count, size) = (allocations(), allocated_bytes());
    let package = Package::open(&path).unwrap();
    let open_count = allocations() - count;
    let open_bytes = allocated_bytes() - size;
    let sections = 5 + package.spirv_count() + package.reflection_count();
    assert!(
        open_bytes <= 128 * sections + 4096,
        "open allocated {open_bytes} bytes in {open_count} allocations for {sections} sections"
    );
    assert!(open_count <= 48, "open made {open_count} allocations");
    let size = allocated_bytes();
    package.verify_all().unwrap();
    let decompressed: u64 = package.owned_bytes();
    assert!(decompressed > 0);
    assert!(
        allocated_bytes() - size >= decompressed as usize,
        "loads decompress"
    );
    drop(package);
    std::fs::remove_file(&path).unwrap();
}

/// One program holding two pipelines whose bindings reuse set 0's numbers: a vertex/fragment
/// pair (entry points 0 and 1) and a compute kernel (entry point 2).
fn two_pipelines(material_offset: u32) -> Vec<u8> {
    use slangpack_format::bind::*;
    let mut b = ReflectionBuilder::new();
    // (path, binding, descriptor type, entry-point mask)
    let bindings = [
        ("ubo", 0, 6, 0b001),
        ("particlesIn", 0, 7, 0b100),
        ("albedo", 1, 2, 0b010),
        ("particlesOut", 1, 7, 0b100),
        ("samp", 2, 0, 0b010),
        ("unused", 3, 2, 0),
    ];
    for (path, binding, descriptor_type, mask) in bindings {
        let name = b.intern(path);
        b.push(DescriptorBinding {
            name,
            path: name,
            spirv_name: name,
            set: 0,
            binding,
            descriptor_type,
            count: 1,
            stage_flags: 0x31,
            entry_point_mask: mask,
            buffer_layout: ABSENT,
            flags: if mask == 0 { BINDING_UNUSED } else { 0 },
            ..DescriptorBinding::default()
        });
    }
    b.push(DescriptorSetLayout {
        set: 0,
        first_binding: 0,
        binding_count: bindings.len() as u32,
        flags: 0,
    });
    // (name, offset, size, entry-point mask); `material` sits after the vertex block.
    for (name, offset, size, mask) in [
        ("material", material_offset, 32, 0b010),
        ("vertexMain", 0, 16, 0b001),
        ("updateParticles", 0, 4, 0b100),
    ] {
        let name = b.intern(name);
        b.push(PushConstantRange {
            name,
            offset,
            size,
            stage_flags: 0x31,
            buffer_layout: ABSENT,
            entry_point_mask: mask,
        });
    }
    b.push(BindSummary {
        set_slot_count: 1,
        global_uniform_binding: ABSENT,
        program_stage_flags: 0x31,
        entry_point_count: 3,
        ..BindSummary::default()
    });
    let mut p = PackageBuilder::new();
    let reflection = p.add_reflection(b.finish());
    let spirv = p.add_spirv(&[0x0723_0203, 0]);
    let entry_points = [
        ("vertexMain", Stage::Vertex),
        ("fragmentMain", Stage::Fragment),
        ("updateParticles", Stage::Compute),
    ]
    .map(|(name, stage)| common::fixtures::entry_point(name, stage, spirv));
    p.add_entry(EntryDesc {
        key: "particles".into(),
        reflection: Some(reflection),
        entry_points: entry_points.to_vec(),
        dependencies: vec![],
        options_hash: 0,
    })
    .unwrap();
    p.finish().unwrap()
}

#[test]
fn pipeline_layouts_are_filtered_by_entry_point_without_allocating() {
    use slangpack_reader::PipelineError;
    let bytes = two_pipelines(16);
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("particles").unwrap();
    let _ = entry.reflection().unwrap(); // the first access may validate and allocate

    let mut seen = [(0u32, 0u32, 0u32); 8];
    let mut push = [(0u32, 0u32); 4];
    let before = allocations();
    let graphics = entry.pipeline(&["vertexMain", "fragmentMain"]).unwrap();
    let bind = graphics.bind_view();
    let mut n = 0;
    for b in graphics.set(0) {
        seen[n] = (b.record.binding, b.record.descriptor_type, b.stage_flags);
        n += 1;
    }
    let mut m = 0;
    for p in graphics.push_constants() {
        push[m] = (p.record.offset, p.stage_flags);
        m += 1;
    }
    let slots = graphics.set_slot_count();
    let compute = entry.pipeline(&["updateParticles"]).unwrap();
    let compute_count = compute.bindings().count();
    let compute_stages = compute.stage_flags();
    let name_len = bind.string(bind.bindings()[0].path).len();
    let after = allocations();
    assert_eq!(after - before, 0, "pipeline views allocated");
    // An error owns what it names (it allocates; the layouts above do not).
    let unknown = entry.pipeline(&["vertexMain", "nope"]).unwrap_err();

    assert_eq!(
        &seen[..n],
        [(0, 6, 0x1), (1, 2, 0x10), (2, 0, 0x10)],
        "ubo for the vertex stage, albedo and samp for the fragment stage; the compute \
         kernel's bindings at the same numbers and the unused binding are left out"
    );
    assert_eq!(&push[..m], [(16, 0x10), (0, 0x1)]);
    assert_eq!(slots, 1);
    assert_eq!((compute_count, compute_stages), (2, 0x20));
    assert!(
        matches!(&unknown, PipelineError::UnknownEntryPoint { name, available, .. }
            if name == "nope" && available == "vertexMain, fragmentMain, updateParticles"),
        "{unknown:?}"
    );
    assert_eq!(name_len, 3);
}

#[test]
fn a_pipeline_whose_push_constant_blocks_share_bytes_is_refused() {
    use slangpack_reader::PipelineError;
    // `material` at offset 8 shares bytes 8..16 with the vertex block.
    let bytes = two_pipelines(8);
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("particles").unwrap();
    let error = entry.pipeline(&["vertexMain", "fragmentMain"]).unwrap_err();
    assert!(
        matches!(&error, PipelineError::PushConstantOverlap { first, second }
            if first == "material" && second == "vertexMain"),
        "{error:?}"
    );
    assert!(entry.pipeline(&["fragmentMain"]).is_ok());
    assert!(entry.pipeline(&["updateParticles"]).is_ok());
}

/// The engine-facing accessors (entry points by name, set layouts with flags, typed getters,
/// name lookups and, with the `ash` feature, the `ash::vk` conversions) allocate nothing.
#[test]
fn engine_accessors_do_not_allocate() {
    let bytes = common::package();
    let package = Package::from_bytes(&bytes).unwrap();
    // Loading decompresses (allocates) once; what follows reads loaded entries.
    for key in [common::KEY, common::UNKNOWN_KEY] {
        package.load(key).unwrap();
    }

    let before = allocations();
    let mut checksum = 0u64;
    for key in [common::KEY, common::UNKNOWN_KEY] {
        let entry = package.load(key).unwrap();
        for name in ["vs", "fs", "main", "missing"] {
            if let Some(ep) = entry.entry_point(name) {
                checksum += u64::from(ep.index()) + u64::from(ep.stage_flags().to_raw());
                checksum += u64::from(ep.stage().name().len() as u32);
            }
        }
        let bind = entry.bind();
        for set in bind.set_layouts() {
            checksum += u64::from(set.set()) + u64::from(set.flags().to_raw());
            checksum += u64::from(set.update_after_bind());
            for b in set.bindings() {
                checksum += u64::from(b.kind().to_raw()) + u64::from(b.array_kind().to_raw());
                checksum += u64::from(b.stages().to_raw()) + u64::from(b.binding_flags().to_raw());
                checksum += b.stages().names().map(str::len).sum::<usize>() as u64;
                checksum += u64::from(b.descriptor_count().unwrap_or(7));
                checksum += u64::from(b.used_by(1)) + b.kind().name().len() as u64;
            }
        }
        checksum += bind.set_layout(2).map_or(0, |s| s.bindings().len() as u64);
        for layout in bind.buffer_layouts() {
            checksum += u64::from(layout.buffer_kind().to_raw());
            for m in bind.members(layout) {
                checksum += u64::from(m.member_flags().to_raw()) + u64::from(m.kind().to_raw());
                checksum += m.default_value().map_or(0, |_| 1);
            }
        }
        for v in bind.vertex_inputs(0) {
            checksum += u64::from(v.vk_format().to_raw()) + u64::from(v.is_used());
            checksum += u64::from(v.vk_format().size().unwrap_or(0));
        }
        for c in bind.specialization_constants() {
            checksum += c.default_value().map_or(0, |_| 1) + u64::from(c.scalar().to_raw());
        }
        for p in bind.push_constants() {
            checksum += u64::from(p.stages().to_raw());
        }
        for name in ["gScene", "gTextures", "missing"] {
            checksum += bind.binding(name).map_or(0, |b| u64::from(b.binding) + 1);
            checksum += bind.buffer(name).map_or(0, |b| u64::from(b.size));
        }
        checksum += bind
            .buffer_member("gScene.tint")
            .map_or(0, |(_, m)| u64::from(m.size));
        #[cfg(feature = "ash")]
        {
            checksum += ash_checksum(&entry);
        }
    }
    let after = allocations();
    assert_eq!(after - before, 0, "engine accessors allocated");
    assert!(checksum > 0);
}

#[cfg(feature = "ash")]
fn ash_checksum(entry: &slangpack_reader::Entry<'_>) -> u64 {
    let bind = entry.bind();
    let mut checksum = 0u64;
    let mut bindings = [ash::vk::DescriptorSetLayoutBinding::default(); 8];
    let mut flags = [ash::vk::DescriptorBindingFlags::empty(); 8];
    for set in bind.set_layouts() {
        for (b, f) in set.vk_bindings(256) {
            checksum += u64::from(b.descriptor_count) + u64::from(f.as_raw());
        }
        checksum += set
            .vk_bindings(256)
            .fill(&mut bindings, &mut flags)
            .unwrap_or(0) as u64;
        checksum += u64::from(set.vk_create_flags().as_raw());
        checksum +=
            u64::from(slangpack_reader::vk_set_layout_create_flags(set.bindings()).as_raw());
    }
    for r in bind.vk_push_constant_ranges() {
        checksum += u64::from(r.size);
    }
    for ep in entry.entry_points() {
        checksum += u64::from(ep.vk_stage().as_raw());
        for a in bind.vk_vertex_attributes(ep.index(), 0) {
            checksum += u64::from(a.offset + a.location);
        }
        checksum += u64::from(bind.vk_vertex_binding(ep.index(), 0).stride);
    }
    for e in bind.vk_specialization_map_entries() {
        checksum += u64::from(e.offset) + e.size as u64;
    }
    checksum
}

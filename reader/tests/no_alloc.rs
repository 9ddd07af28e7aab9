//! A counting global allocator proves that lookups and view accessors allocate nothing after
//! open.

#![allow(
    unsafe_code,
    reason = "a GlobalAlloc implementation is unsafe by definition"
)]

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
                name: "main".into(),
                spirv_entry_name: "main".into(),
                stage: Stage::Fragment,
                thread_group_size: [0; 3],
                wave_size: 0,
                spirv,
                reflection_entry_point: Some(0),
                hash: 1,
            }],
            dependencies: vec![DependencyDesc {
                path: format!("shader{i}.slang"),
                hash: 2,
            }],
            options_hash: 3,
            entry_point_hash: 4,
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
        package.load(key).unwrap();
    }
    let before = allocations();
    let mut checksum = 0u64;
    for key in &keys {
        let entry = package.load(key).unwrap();
        checksum += entry.options_hash() + entry.entry_point_hash() + entry.key().len() as u64;
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
        let v = entry.reflection();
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

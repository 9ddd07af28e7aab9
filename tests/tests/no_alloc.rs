//! Lookups on an open package allocate nothing: counted with a global allocator wrapper.
#![allow(
    unsafe_code,
    reason = "a counting global allocator is the only way to count allocations"
)]

use slangpack_reader::Package;
use slangpack_writer::package::{self, BakeConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees carry over; the only addition is an atomic counter bump, which neither allocates
// nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn entry_binding_member_and_spirv_lookups_do_not_allocate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders");
    let mut config = BakeConfig::new(vec![dir]);
    config.jobs = 1;
    let bytes = package::bake(&config).unwrap().bytes;
    let package = Package::from_bytes(&bytes).unwrap();

    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut checksum = 0u64;
    for _ in 0..100 {
        let entry = package.entry("pbr").expect("entry");
        let bind = entry.reflection().bind();
        let albedo = bind
            .binding("gScene.material.textures.albedo")
            .expect("binding");
        checksum += u64::from(albedo.set + albedo.binding);
        let (_, sun) = bind
            .buffer_member("gScene.view.light.sunDirection")
            .expect("member");
        checksum += u64::from(sun.offset);
        checksum += bind.buffer("gDraw").map_or(0, |l| u64::from(l.size));
        assert!(bind.binding("gScene.material.textures.missing").is_none());
        for b in bind.bindings() {
            checksum += u64::from(b.stage_flags) + bind.string(b.path).len() as u64;
        }
        for ep in entry.entry_points() {
            checksum += ep.spirv().len() as u64 + ep.spirv_entry_name().len() as u64;
            checksum += bind.vertex_inputs(0).len() as u64;
        }
        checksum += bind.set(1).map_or(0, |s| s.len() as u64);
        // One pipeline's layout: filtered by entry point, stage flags of its stages only.
        let pipeline = entry
            .pipeline(&["vertexMain", "fragmentMain"])
            .expect("pipeline");
        for set in 0..pipeline.set_slot_count() {
            for b in pipeline.set(set) {
                checksum += u64::from(b.record.binding + b.stage_flags);
            }
        }
        for p in pipeline.push_constants() {
            checksum += u64::from(p.record.size + p.stage_flags);
        }
        checksum += pipeline
            .binding("gScene")
            .map_or(0, |b| u64::from(b.stage_flags));
        checksum += pipeline.entry_points().count() as u64;
        assert!(entry.pipeline(&["vertexMain", "missing"]).is_err());
    }
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(
        after - before,
        0,
        "lookups allocated {} times",
        after - before
    );
    assert!(checksum > 0);
}

//! Lookups on an open package allocate nothing: counted with a global allocator wrapper.
#![allow(
    unsafe_code,
    reason = "a counting global allocator is the only way to count allocations"
)]

use slangpack_reader::Package;
use slangpack_writer::bake::{self, BakeConfig};
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
fn entry_binding_member_and_spirv_lookups_and_buffer_fills_do_not_allocate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders");
    let mut config = BakeConfig::new(vec![dir]);
    config.jobs = 1;
    let bytes = bake::bake(&config).unwrap().bytes;
    let package = Package::from_bytes(&bytes).unwrap();
    // The first load decompresses (allocates) once; the loop reads the loaded entry.
    package.load("pbr").expect("entry");

    // Arrays, nested arrays of structs and matrices by path (tests/shaders/buffer_fill.slang).
    let fill_shader = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/buffer_fill.slang");
    let mut fill_config = BakeConfig::new(vec![fill_shader]);
    fill_config.jobs = 1;
    let fill_bytes = bake::bake(&fill_config).unwrap().bytes;
    let fill_package = Package::from_bytes(&fill_bytes).unwrap();
    let fill_entry = fill_package.load("buffer_fill").expect("entry");
    let mut params_bytes = vec![0u8; 4096];
    // Metal argument buffers' structs (tests/shaders/argument_buffers.slang).
    let ab_shader = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/argument_buffers.slang");
    let mut ab_config = BakeConfig::new(vec![ab_shader]);
    ab_config.jobs = 1;
    ab_config.options.targets = vec![slangpack_format::Target::Metal];
    let ab_bytes = bake::bake(&ab_config).unwrap().bytes;
    let ab_package = Package::from_bytes(&ab_bytes).unwrap();
    let ab_entry = ab_package.load("argument_buffers").expect("entry");
    // Buffers filled by path in the loop, allocated before it.
    let mut material_bytes = vec![0u8; 4096];
    let mut draw_bytes = vec![0u8; 4096];
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut checksum = 0u64;
    for i in 0..100 {
        let entry = package.load("pbr").expect("entry");
        let bind = entry.bind();
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
        // Typed writes by path and through a handle resolved in the loop.
        let material = bind.buffer_view("gScene.material").expect("material");
        material
            .writer(&mut material_bytes)
            .set("gScene.material.params.roughness", 0.5f32)
            .expect("roughness")
            .set("gScene.material.params.baseColorFactor", [1.0f32; 4])
            .expect("base color");
        let draw = bind.buffer_view("gDraw").expect("gDraw");
        let model = draw.field::<[[f32; 4]; 4]>("gDraw.model").expect("model");
        draw.writer(&mut draw_bytes)
            .set_at(model, [[i as f32; 4]; 4])
            .expect("model")
            .set("gDraw.instanceBase", 3u32)
            .expect("instance base");
        checksum += model.offset() + u64::from(draw_bytes[4]);
        let params = fill_entry.bind().buffer_view("gParams").unwrap();
        params
            .writer(&mut params_bytes)
            .set("gParams.lights[1].dir", [1.0f32, 2.0, 3.0])
            .expect("light")
            .set("gParams.outers[1].inner[0].b", [4.0f32, 5.0])
            .expect("nested")
            .set("gParams.cm", [[i as f32; 4]; 3])
            .expect("matrix")
            .set("gParams.flag", true)
            .expect("bool");
        checksum += u64::from(params_bytes[100]);
        let metal = ab_entry.bind().target(slangpack_format::Target::Metal);
        let ab = metal.find_argument_buffer("gMaterial").expect("gMaterial");
        for m in ab.members() {
            checksum += u64::from(m.offset) + ab.path(m).len() as u64;
            checksum += ab.binding(m).map_or(0, |b| u64::from(b.index));
        }
        checksum += ab.member("detail.map").map_or(0, |m| u64::from(m.offset));
    }
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(
        after - before,
        0,
        "lookups and fills allocated {} times",
        after - before
    );
    assert!(checksum > 0);
    // An unknown name is an error that owns what it names (it allocates; lookups do not).
    let entry = package.load("pbr").expect("entry");
    assert!(entry.pipeline(&["vertexMain", "missing"]).is_err());

    c_api_lookups_do_not_allocate(&bytes);
    c_argument_buffer_lookups_do_not_allocate(&ab_bytes);
}

/// Metal argument buffers' structs through the C ABI (`slangpack_argument_buffer_members`,
/// for every target binding and one past the last) allocate nothing once the entry is loaded.
fn c_argument_buffer_lookups_do_not_allocate(bytes: &[u8]) {
    use slangpack_c::*;
    let handle = open_c(bytes);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let (mut structs, mut checksum) = (0usize, 0u64);
    for _ in 0..100 {
        // SAFETY: `handle` is open until the close below; every out-pointer is writable.
        unsafe {
            let mut entry = std::mem::MaybeUninit::uninit();
            let kind =
                slangpack_package_entry_at(handle, 0, entry.as_mut_ptr(), std::ptr::null_mut());
            assert_eq!(kind, SlangpackErrorKind::Ok);
            let entry = entry.assume_init();
            let mut bindings = 0usize;
            slangpack_bind_target_bindings(entry, &mut bindings);
            for i in 0..=bindings {
                let (mut count, mut record) = (0usize, std::ptr::null());
                let members = slangpack_argument_buffer_members(entry, i, &mut count, &mut record);
                if members.is_null() {
                    continue;
                }
                structs += 1;
                checksum += u64::from((*record).size);
                for m in std::slice::from_raw_parts(members, count) {
                    checksum +=
                        u64::from(m.offset) + slangpack_entry_string(entry, m.path).len as u64;
                }
            }
        }
    }
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(after - before, 0, "C argument-buffer lookups allocated");
    assert_eq!(structs, 300, "three argument buffers, 100 times");
    assert!(checksum > 0);
    // SAFETY: `handle` is open and closed once.
    unsafe { slangpack_package_close(handle) };
}

/// The same through the C ABI: after `slangpack_package_open_copy`, entry, entry-point, binding,
/// member and table calls (found or not) allocate nothing. In the same test as the reader's
/// loop, so no other test allocates meanwhile.
fn c_api_lookups_do_not_allocate(bytes: &[u8]) {
    use slangpack_c::*;
    let handle = open_c(bytes);

    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut checksum = 0u64;
    let mut error = std::mem::MaybeUninit::<SlangpackError>::uninit();
    for _ in 0..100 {
        // SAFETY: `handle` is open until the close below; every out-pointer is writable and
        // every name is readable for its length.
        unsafe {
            let mut entry = std::mem::MaybeUninit::uninit();
            let key = "pbr";
            let kind = slangpack_package_entry(
                handle,
                key.as_ptr().cast(),
                key.len(),
                entry.as_mut_ptr(),
                error.as_mut_ptr(),
            );
            assert_eq!(kind, SlangpackErrorKind::Ok);
            let entry = entry.assume_init();
            let missing = "no-such-entry";
            let mut other = std::mem::MaybeUninit::uninit();
            let kind = slangpack_package_entry(
                handle,
                missing.as_ptr().cast(),
                missing.len(),
                other.as_mut_ptr(),
                error.as_mut_ptr(),
            );
            assert_eq!(
                kind,
                SlangpackErrorKind::NotFound,
                "a miss is reported without allocating"
            );
            // Pipelines: one entry's, and across entries (here the same entry twice).
            let text = |s: &'static str| SlangpackStr {
                ptr: s.as_ptr().cast(),
                len: s.len(),
            };
            let names = [text("vertexMain"), text("fragmentMain")];
            let mut pipeline = std::mem::MaybeUninit::uninit();
            let kind = slangpack_entry_pipeline_init(
                entry,
                names.as_ptr(),
                names.len(),
                pipeline.as_mut_ptr(),
                error.as_mut_ptr(),
            );
            assert_eq!(kind, SlangpackErrorKind::Ok);
            let pipeline = pipeline.assume_init();
            let stages = [
                SlangpackPipelineStage {
                    key: text("pbr"),
                    entry_point: text("vertexMain"),
                },
                SlangpackPipelineStage {
                    key: text("pbr"),
                    entry_point: text("fragmentMain"),
                },
            ];
            let mut across = std::mem::MaybeUninit::uninit();
            let kind = slangpack_pipeline_init(
                handle,
                stages.as_ptr(),
                stages.len(),
                across.as_mut_ptr(),
                error.as_mut_ptr(),
            );
            assert_eq!(kind, SlangpackErrorKind::Ok);
            let across = across.assume_init();
            let mut items: [SlangpackPipelineBinding; 8] = std::mem::zeroed();
            let mut push: [SlangpackPipelinePushConstant; 4] = std::mem::zeroed();
            for p in [&pipeline, &across] {
                for set in 0..slangpack_pipeline_set_slot_count(p) {
                    let n = slangpack_pipeline_set_bindings(p, set, items.as_mut_ptr(), 8);
                    for item in &items[..n.min(8)] {
                        checksum += u64::from((*item.record).binding + item.stage_flags);
                    }
                }
                let n = slangpack_pipeline_push_constants(p, push.as_mut_ptr(), 4);
                for item in &push[..n.min(4)] {
                    checksum += u64::from((*item.record).size + item.stage_flags);
                }
                checksum += u64::from(slangpack_pipeline_stage_flags(p));
            }
            let path = "gScene.material.textures.albedo";
            let albedo = slangpack_bind_find_binding(entry, path.as_ptr().cast(), path.len());
            checksum += u64::from((*albedo).set + (*albedo).binding);
            let member = "gScene.view.light.sunDirection";
            let mut layout = std::ptr::null();
            let sun = slangpack_bind_find_member(
                entry,
                member.as_ptr().cast(),
                member.len(),
                &mut layout,
            );
            checksum += u64::from((*sun).offset + (*layout).size);
            let mut count = 0usize;
            let bindings = slangpack_bind_bindings(entry, &mut count);
            for b in std::slice::from_raw_parts(bindings, count) {
                checksum +=
                    u64::from(b.stage_flags) + slangpack_entry_string(entry, b.path).len as u64;
            }
            for i in 0..slangpack_entry_entry_point_count(entry) {
                let mut ep = std::mem::MaybeUninit::uninit();
                assert!(slangpack_entry_entry_point(entry, i, ep.as_mut_ptr()));
                let ep = ep.assume_init();
                checksum += ep.spirv_word_count as u64 + ep.spirv_entry_name.len as u64;
                checksum +=
                    slangpack_bind_vertex_inputs(entry, i as u32, &mut count) as usize as u64 % 2;
            }
            checksum += slangpack_bind_set_bindings(entry, 1, &mut count) as usize as u64 % 2
                + count as u64;
            checksum +=
                slangpack_reflection_types(entry, &mut count) as usize as u64 % 2 + count as u64;
        }
    }
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(
        after - before,
        0,
        "C API lookups allocated {} times",
        after - before
    );
    assert!(checksum > 0);
    // SAFETY: opened above, closed once, nothing borrowed from it is used afterwards.
    unsafe { slangpack_package_close(handle) };
}

/// `bytes` opened through the C ABI (`slangpack_package_open_copy`) with every entry loaded:
/// loading decompresses (allocates) once, so the lookups after it read loaded entries.
fn open_c(bytes: &[u8]) -> *mut slangpack_c::SlangpackPackage {
    use slangpack_c::*;
    let mut handle = std::ptr::null_mut();
    // SAFETY: `bytes` is readable for its length; `handle` is writable; NULL error is allowed.
    let kind = unsafe {
        slangpack_package_open_copy(
            bytes.as_ptr().cast(),
            bytes.len(),
            &mut handle,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(kind, SlangpackErrorKind::Ok);
    // SAFETY: `handle` is open; a NULL error pointer is allowed.
    let kind = unsafe { slangpack_package_verify_all(handle, std::ptr::null_mut()) };
    assert_eq!(kind, SlangpackErrorKind::Ok);
    // The first lookup by key makes a 2.0 package's key index (once per package, as the
    // first load decompresses once); the lookups counted come after it.
    let mut entry = std::mem::MaybeUninit::uninit();
    let key = "pbr";
    // SAFETY: `handle` is open; `key` is readable for its length; `entry` is writable; a
    // NULL error pointer is allowed.
    let kind = unsafe {
        slangpack_package_entry(
            handle,
            key.as_ptr().cast(),
            key.len(),
            entry.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    // Found or not (the package may have no such key), the index is made.
    assert!(matches!(
        kind,
        SlangpackErrorKind::Ok | SlangpackErrorKind::NotFound
    ));
    handle
}

//! One walk over every accessor of an opened package, shared by the hostile-input tests and
//! the fuzz targets (`fuzz/` includes this file with `#[path]`, so it depends on the reader
//! alone).
//!
//! What validation accepted must be servable: the walk touches entries, entry points, SPIR-V,
//! dependencies, every raw table of [`ReflectionView`] with its typed helpers, strings and pool
//! slices, and the whole bind view with its name lookups. It asserts the invariants validation
//! promises (every key finds its own entry, SPIR-V is word-aligned, every entry point's
//! reflection index resolves) and returns a number folded from everything it read, so nothing
//! is optimised away.

use slangpack_reader::format::bind::image_format_name;
use slangpack_reader::format::Target;
use slangpack_reader::{BindView, Code, EntryPoint, Package, ReflectionView, TargetBufferLayout};

/// Name lookups per table are capped so a hostile (but valid) package with huge tables and a
/// degenerate hash index cannot make one walk quadratic.
const MAX_LOOKUPS: usize = 256;

/// Touches every accessor of `package`; panics only when a promise of validation is broken.
///
/// Entries are loaded lazily in an order other than key order (odd indices from the last,
/// then even ones from the first), as an engine would; a load may fail (a damaged entry), and
/// must then fail again the same way. Whatever loads is walked in full.
pub fn walk(package: &Package) -> u64 {
    let mut n = package.len() as u64 + package.spirv_count() as u64;
    n = n.wrapping_add(package.reflection_count() as u64 + u64::from(package.version().0));
    n = n.wrapping_add(package.as_bytes().len() as u64 + u64::from(package.is_mapped()));
    // Open checked every key, except a paged package's (3.0, SPEC.md 4.5): its pages are read
    // at their first touch, and the entries of a page that fails have no key.
    let paged = package.version().0 == slangpack_format::PAGED_VERSION_MAJOR;
    assert!(paged || package.is_empty() == package.key_at(0).is_none());
    assert!(package.load_at(package.len()).is_err());
    assert!(package.key_at(package.len()).is_none());
    assert_eq!(package.entries().len(), package.len());
    assert_eq!(package.keys().len(), package.len());
    let len = package.len();
    let order = (0..len)
        .rev()
        .filter(|i| i % 2 == 1)
        .chain((0..len).filter(|i| i % 2 == 0));
    let mut all_loaded = true;
    for i in order {
        let Some(key) = package.key_at(i) else {
            assert!(paged, "entry {i} has no key");
            assert!(
                package.load_at(i).is_err(),
                "entry {i} has no key but loads"
            );
            all_loaded = false;
            continue;
        };
        let entry = match package.load_at(i) {
            Ok(entry) => entry,
            Err(e) => {
                all_loaded = false;
                let again = package.load_at(i).expect_err("a failed load fails again");
                assert_eq!((e.kind(), e.offset()), (again.kind(), again.offset()));
                assert!(
                    !package.is_loaded(i),
                    "entry {i} failed to load but is_loaded"
                );
                assert!(package.loaded_at(i).is_none());
                n = n.wrapping_add(e.offset() ^ e.message().len() as u64);
                continue;
            }
        };
        // A loaded entry's key hash was checked: its key finds an entry of that key (itself,
        // unless a damaged package holds the key twice).
        let found = package.find(key);
        assert_eq!(
            found.and_then(|j| package.key_at(j)),
            Some(key),
            "key {key:?} does not find its own entry"
        );
        assert!(package.is_loaded(i));
        assert_eq!(package.loaded_at(i).map(|e| e.key()), Some(key));
        assert_eq!(entry.index(), i);
        assert_eq!(entry.key(), key);
        n = n.wrapping_add(key.len() as u64 ^ entry.options_hash() ^ entry.entry_point_hash());
        n = n.wrapping_add(
            u64::from(entry.record().entry_point_count) + u64::from(entry.has_reflection()),
        );
        for dep in entry.dependencies() {
            n = n.wrapping_add(dep.path().len() as u64 ^ dep.content_hash());
        }
        // The bind view was checked by the load; the raw tables are checked at their first use
        // (a failure there fails the full check too, and fails again the same way).
        n = n.wrapping_add(walk_bind(&entry.bind(), entry.entry_points().len() as u32));
        let view = match entry.reflection() {
            Ok(view) => view,
            Err(e) => {
                all_loaded = false;
                let again = entry
                    .reflection()
                    .expect_err("failed raw tables fail again");
                assert_eq!((e.kind(), e.offset()), (again.kind(), again.offset()));
                n = n.wrapping_add(e.offset() ^ e.message().len() as u64);
                continue;
            }
        };
        let entry_points = view.entry_points().len();
        for ep in entry.entry_points() {
            let spirv = ep.spirv();
            assert_eq!(spirv.as_ptr() as usize % 4, 0, "SPIR-V not word-aligned");
            n = n.wrapping_add(spirv.len() as u64 + spirv.first().copied().map_or(0, u64::from));
            n = n.wrapping_add((ep.name().len() + ep.spirv_entry_name().len()) as u64);
            n = n.wrapping_add(u64::from(ep.stage().to_raw()) + u64::from(ep.spirv_index()));
            n = n.wrapping_add(
                ep.thread_group_size()
                    .iter()
                    .map(|&x| u64::from(x))
                    .sum::<u64>(),
            );
            n = n.wrapping_add(u64::from(ep.wave_size().unwrap_or(0)) ^ ep.hash());
            n = n.wrapping_add(u64::from(ep.record().name));
            let r = ep.record().reflection_entry_point;
            if r != slangpack_reader::format::ABSENT && entry.has_reflection() {
                assert!((r as usize) < entry_points, "entry point reflection index");
            }
            if let Some(layout) = ep.layout() {
                n = n.wrapping_add(view.entry_point_parameters(layout).count() as u64);
            }
            n = n.wrapping_add(walk_code(&ep));
        }
        n = n.wrapping_add(walk_view(&view));
        n = n.wrapping_add(walk_bind(&view.bind(), entry.entry_points().len() as u32));
        n = n.wrapping_add(walk_pipelines(&entry));
    }
    // The full check agrees with the loads: it passes only if every entry loaded.
    if package.verify_all().is_ok() {
        assert!(all_loaded, "verify_all passed but a load failed");
    }
    n
}

/// Opens `bytes` twice. One package is walked ([`walk`]: lazy loads in a scrambled order);
/// every entry of the other is first loaded from two threads at once ([`load_concurrently`]),
/// then that package is walked too. When every entry loads, both walks must read the same.
/// Returns whether `bytes` opened.
pub fn walk_bytes(bytes: &[u8]) -> bool {
    let Ok(package) = Package::from_bytes(bytes) else {
        return false;
    };
    let sequential = walk(&package);
    let raced = Package::from_bytes(bytes).expect("bytes that opened open again");
    load_concurrently(&raced);
    let after_race = walk(&raced);
    if package.verify_all().is_ok() {
        assert_eq!(sequential, after_race, "a racing load read differently");
    }
    true
}

/// [`walk_bytes`] of `bytes` as given, and again with every checksum recomputed
/// ([`refix_checksums`]) so that a mutation inside a section reaches the validation behind the
/// checksums. Returns whether `bytes` opened as given.
pub fn replay(bytes: &[u8]) -> bool {
    let opened = walk_bytes(bytes);
    let mut fixed = bytes.to_vec();
    if refix_checksums(&mut fixed) && fixed != bytes {
        walk_bytes(&fixed);
    }
    opened
}

/// Two threads load every entry of a package none of whose entries is loaded yet, in opposite
/// orders, so that they race on first loads. Both must see the same outcome for each entry:
/// the same error (kind and offset), or the same loaded data (the very same reflection bytes
/// and SPIR-V words, by address: a section is loaded once, whoever asks first).
pub fn load_concurrently(package: &Package) {
    type Outcome = Result<Vec<(usize, usize)>, (slangpack_reader::ErrorKind, u64)>;
    let outcome = |i: usize| -> Outcome {
        match package.load_at(i) {
            Ok(entry) => {
                let blob = match entry.reflection() {
                    Ok(view) => view.as_bytes(),
                    Err(e) => return Err((e.kind(), e.offset())),
                };
                let mut data = vec![(blob.as_ptr() as usize, blob.len())];
                for ep in entry.entry_points() {
                    data.extend(
                        ep.targets()
                            .map(|c| (c.bytes().as_ptr() as usize, c.bytes().len())),
                    );
                }
                Ok(data)
            }
            Err(e) => Err((e.kind(), e.offset())),
        }
    };
    let len = package.len();
    let (forward, mut backward) = std::thread::scope(|scope| {
        let other = scope.spawn(|| (0..len).map(outcome).collect::<Vec<_>>());
        let backward: Vec<_> = (0..len).rev().map(outcome).collect();
        (other.join().expect("the other loading thread"), backward)
    });
    backward.reverse();
    for (i, (a, b)) in forward.iter().zip(&backward).enumerate() {
        assert_eq!(a, b, "two threads loading entry {i} saw different outcomes");
        // The load is one step and the raw tables (1.6) another: an entry whose raw tables
        // are refused is still loaded.
        assert_eq!(package.is_loaded(i), package.load_at(i).is_ok());
    }
}

/// An entry point's code for every target: what [`EntryPoint::targets`] lists is what
/// [`EntryPoint::code`] finds, SPIR-V first and the same words as [`EntryPoint::spirv`], text
/// for text targets and bytes for the others.
pub fn walk_code(ep: &EntryPoint<'_>) -> u64 {
    let mut n = 0u64;
    let all = ep.targets();
    let count = all.len();
    let mut seen = 0;
    for (i, code) in all.enumerate() {
        seen += 1;
        let target = code.target();
        assert_eq!(i == 0, target == Target::Spirv, "SPIR-V comes first, once");
        assert_eq!(
            ep.code(target),
            Some(code),
            "{target:?}: code() and targets() differ"
        );
        match code.code() {
            Code::Spirv(words) => {
                assert!(core::ptr::eq(words, ep.spirv()));
                assert_eq!(code.entry_name(), ep.spirv_entry_name());
            }
            Code::Text(text) => {
                assert!(target.is_text(), "{target:?} served as text");
                assert_eq!(code.text(), Some(text));
            }
            Code::Binary(_) => assert!(!target.is_text() && code.text().is_none()),
        }
        n = n.wrapping_add(code.bytes().len() as u64 + code.entry_name().len() as u64);
        n = n.wrapping_add(u64::from(target.to_raw()));
    }
    assert_eq!(seen, count, "targets() told its length wrong");
    for target in [
        Target::Dxil,
        Target::from_raw(0),
        Target::from_raw(u32::MAX),
    ] {
        n = n.wrapping_add(ep.code(target).map_or(0, |c| c.bytes().len() as u64));
    }
    n
}

/// The pipeline of each entry point alone and of all of them together (an error is a result
/// too), every binding and push-constant range of each.
pub fn walk_pipelines(entry: &slangpack_reader::Entry<'_>) -> u64 {
    let names: Vec<&str> = entry.entry_points().take(8).map(|ep| ep.name()).collect();
    let mut n = 0u64;
    let single = names.iter().map(std::slice::from_ref);
    for pipeline in single.chain([names.as_slice(), &["no such entry point"]]) {
        match entry.pipeline(pipeline) {
            Ok(p) => {
                n = n.wrapping_add(u64::from(p.set_slot_count() ^ p.stage_flags()));
                for b in p.bindings() {
                    n = n.wrapping_add(u64::from(b.record.binding ^ b.stage_flags));
                }
                for r in p.push_constants() {
                    n = n.wrapping_add(u64::from(r.record.offset ^ r.stage_flags));
                }
                n = n.wrapping_add(p.entry_points().count() as u64);
            }
            Err(e) => n = n.wrapping_add(e.to_string().len() as u64),
        }
    }
    n
}

/// Every raw table of a reflection view, with the typed helpers of each record.
pub fn walk_view(v: &ReflectionView<'_>) -> u64 {
    let mut n = v.as_bytes().len() as u64 + u64::from(v.is_empty());
    let h = v.header();
    n = n.wrapping_add(u64::from(h.table_count) + u64::from(h.entry_point_count));
    n = n.wrapping_add(u64::from(v.global_constant_buffer_binding().unwrap_or(0)));
    n = n.wrapping_add(u64::from(v.global_constant_buffer_space().unwrap_or(0)));
    n = n.wrapping_add(u64::from(v.global_constant_buffer_size()));
    n = n.wrapping_add(
        u64::from(v.bindless_space_index().unwrap_or(0)) ^ v.first_entry_point_hash(),
    );
    n = n.wrapping_add(u64::from(v.global_params_var_layout().is_some()));
    n = n.wrapping_add(u64::from(v.global_params_type_layout().is_some()));
    n = n.wrapping_add(u64::from(v.root_decl().is_some()));
    for t in v.types() {
        n = n.wrapping_add((v.string(t.name).len() + v.string(t.full_name).len()) as u64);
        n = n.wrapping_add(u64::from(t.type_kind().to_raw()) + u64::from(t.scalar().to_raw()));
        n = n.wrapping_add(u64::from(t.shape().to_raw()) + u64::from(t.access().to_raw()));
        n = n.wrapping_add(v.type_fields(t).map(|f| u64::from(f.name)).sum::<u64>());
        n = n.wrapping_add(v.type_attributes(t).len() as u64);
    }
    for tl in v.type_layouts() {
        n = n.wrapping_add(u64::from(tl.type_kind().to_raw()) + u64::from(tl.category().to_raw()));
        n = n.wrapping_add(u64::from(tl.matrix_layout_mode().to_raw()));
        n = n.wrapping_add(v.struct_fields(tl).count() as u64);
        for size in v.type_layout_sizes(tl) {
            n = n.wrapping_add(u64::from(size.size ^ size.stride ^ size.alignment));
            n = n.wrapping_add(u64::from(size.category.to_raw()));
        }
        n = n.wrapping_add(v.type_layout_binding_ranges(tl).len() as u64);
        n = n.wrapping_add(v.type_layout_sub_object_ranges(tl).len() as u64);
        for set in v.type_layout_descriptor_sets(tl) {
            n = n.wrapping_add(v.descriptor_set_ranges(set).len() as u64);
        }
    }
    for var in v.variables() {
        n = n.wrapping_add(
            v.string(var.name).len() as u64 + u64::from(var.default_value_kind().to_raw()),
        );
        n = n.wrapping_add(var.default_bits() ^ v.variable_attributes(var).len() as u64);
        n = n.wrapping_add(
            v.variable_modifiers(var)
                .iter()
                .map(|m| u64::from(m.modifier().to_raw()))
                .sum::<u64>(),
        );
    }
    for vl in v.var_layouts() {
        n = n.wrapping_add((v.string(vl.name).len() + v.string(vl.semantic_name).len()) as u64);
        n = n.wrapping_add(u64::from(vl.stage_kind().to_raw()));
        for o in v.var_layout_offsets(vl) {
            n = n.wrapping_add(u64::from(o.offset ^ o.space) + u64::from(o.category.to_raw()));
            n = n.wrapping_add(u64::from(v.var_layout_offset(vl, o.category).is_some()));
        }
    }
    for f in v.functions() {
        n = n.wrapping_add(v.string(f.name).len() as u64 + v.function_parameters(f).count() as u64);
        n = n.wrapping_add(v.function_attributes(f).len() as u64);
    }
    for g in v.generics() {
        n = n.wrapping_add(v.string(g.name).len() as u64 + u64::from(g.inner_decl_kind().to_raw()));
    }
    for d in v.decls() {
        n = n.wrapping_add(v.string(d.name).len() as u64 + u64::from(d.decl_kind().to_raw()));
        n = n.wrapping_add(
            v.decl_children(d).count() as u64 + u64::from(v.decl_parent(d).is_some()),
        );
    }
    for ep in v.entry_points() {
        n = n.wrapping_add((v.string(ep.name).len() + v.string(ep.name_override).len()) as u64);
        n = n.wrapping_add(u64::from(ep.stage_kind().to_raw()));
        n = n.wrapping_add(
            ep.thread_group_size()
                .iter()
                .map(|&x| u64::from(x))
                .sum::<u64>(),
        );
        n = n.wrapping_add(v.entry_point_parameters(ep).count() as u64);
    }
    for a in v.attributes() {
        n = n.wrapping_add(v.string(a.name).len() as u64);
        for arg in v.attribute_arguments(a) {
            n = n.wrapping_add(u64::from(arg.value_kind().to_raw()) ^ arg.value_bits());
        }
    }
    for arg in v.attribute_args() {
        n = n.wrapping_add(u64::from(arg.type_index));
    }
    n = n.wrapping_add(v.modifiers().len() as u64);
    for hs in v.hashed_strings() {
        n = n.wrapping_add(v.string(hs.string).len() as u64 + u64::from(hs.hash));
    }
    for b in v.binding_ranges() {
        n = n.wrapping_add(u64::from(b.binding_kind().to_raw()));
        n = n.wrapping_add(v.binding_range_descriptor_ranges(b).len() as u64);
    }
    n = n.wrapping_add(v.descriptor_sets().len() as u64);
    for r in v.descriptor_ranges() {
        n = n.wrapping_add(u64::from(r.binding_kind().to_raw()) + u64::from(r.category().to_raw()));
    }
    n = n.wrapping_add(v.sub_object_ranges().len() as u64);
    let pool = v.u32_pool();
    n = n.wrapping_add(pool.len() as u64 + v.pool_slice(0, pool.len() as u32).len() as u64);
    n = n.wrapping_add(v.pool_slice(u32::MAX, u32::MAX).len() as u64);
    for (i, r) in v.string_refs().iter().enumerate() {
        let s = v.string(i as u32);
        assert_eq!(s.len(), r.len as usize, "string {i} length");
        assert_eq!(v.string_opt(i as u32), Some(s));
    }
    assert_eq!(v.string(u32::MAX), "");
    assert!(v.string_opt(v.string_refs().len() as u32).is_none());
    n
}

/// The bind view: summary, bindings, sets, push constants, buffers with members and
/// attributes, vertex inputs, specialization constants, and name lookups of each.
pub fn walk_bind(b: &BindView<'_>, entry_points: u32) -> u64 {
    let mut n = u64::from(b.set_slot_count());
    if let Some(s) = b.summary() {
        n = n.wrapping_add(u64::from(
            s.global_uniform_binding ^ s.program_stage_flags ^ s.entry_point_count,
        ));
    }
    for (i, d) in b.bindings().iter().enumerate() {
        n = n.wrapping_add((b.string(d.name).len() + b.string(d.spirv_name).len()) as u64);
        n = n.wrapping_add(
            u64::from(d.kind().to_raw()) + u64::from(d.descriptor_count().unwrap_or(7)),
        );
        n = n.wrapping_add(image_format_name(d.image_format).map_or(0, |s| s.len() as u64));
        n = n.wrapping_add(u64::from(b.buffer_layout(d.buffer_layout).is_some()));
        n = n.wrapping_add(b.string(d.sampler_path).len() as u64);
        n = n.wrapping_add(u64::from(d.input_attachment().unwrap_or(0)));
        if i < MAX_LOOKUPS {
            let path = b.string(d.path);
            let found = b.binding(path);
            n = n.wrapping_add(u64::from(found.is_some()));
            // A handle reads what the name finds.
            let handle = b.binding_handle(path);
            assert_eq!(handle.and_then(|h| b.binding_at(h)), found);
        }
    }
    for s in b.sets() {
        n = n.wrapping_add(b.set(s.set).map_or(0, |bindings| bindings.len() as u64));
        n = n.wrapping_add(u64::from(b.set(s.set.wrapping_add(1)).is_some()));
    }
    n = n.wrapping_add(u64::from(b.set(u32::MAX).is_some()));
    for p in b.push_constants() {
        n = n.wrapping_add(
            b.string(p.name).len() as u64 + u64::from(p.offset ^ p.size ^ p.stage_flags),
        );
        n = n.wrapping_add(u64::from(b.buffer_layout(p.buffer_layout).is_some()));
    }
    for r in b.shader_record_blocks() {
        n = n.wrapping_add(b.string(r.name).len() as u64 + u64::from(r.size ^ r.stage_flags));
        n = n.wrapping_add(u64::from(b.buffer_layout(r.buffer_layout).is_some()));
    }
    n = n.wrapping_add(u64::from(
        b.buffer_layout(slangpack_reader::format::ABSENT).is_some(),
    ));
    for (i, layout) in b.buffer_layouts().iter().enumerate() {
        let name = b.string(layout.name);
        n = n.wrapping_add(name.len() as u64 + u64::from(layout.size ^ layout.kind));
        if i < MAX_LOOKUPS {
            n = n.wrapping_add(u64::from(b.buffer(name).is_some()));
        }
        for (j, m) in b.members(layout).iter().enumerate() {
            let path = b.string(m.path);
            n = n.wrapping_add((path.len() + b.string(m.name).len()) as u64 + u64::from(m.offset));
            for a in b.attributes(m) {
                n = n.wrapping_add((b.string(a.name).len() + b.string(a.arguments).len()) as u64);
            }
            if i < MAX_LOOKUPS && j < MAX_LOOKUPS {
                let full = if name.is_empty() {
                    path.to_owned()
                } else {
                    format!("{name}.{path}")
                };
                let found = b.buffer_member(&full);
                n = n.wrapping_add(u64::from(found.is_some()));
                let handle = b.member_handle(&full);
                assert_eq!(handle.and_then(|h| b.member_at(h)), found);
            }
        }
    }
    for vi in b.all_vertex_inputs() {
        n = n.wrapping_add((b.string(vi.semantic_name).len() + b.string(vi.name).len()) as u64);
        n = n.wrapping_add(u64::from(vi.location ^ vi.format));
    }
    for ep in 0..=entry_points.min(64) {
        n = n.wrapping_add(b.vertex_inputs(ep).len() as u64);
    }
    n = n.wrapping_add(b.vertex_inputs(u32::MAX).len() as u64);
    for c in b.specialization_constants() {
        n = n.wrapping_add(b.string(c.name).len() as u64 + u64::from(c.id));
    }
    n = n.wrapping_add(u64::from(
        b.binding("").is_some() || b.buffer("no.such.name").is_some(),
    ));
    n.wrapping_add(walk_target_binds(b))
}

/// The bind view of every target: each binding found by its path and in its space, its name
/// in the code, its Vulkan binding and its buffer layout on the target.
pub fn walk_target_binds(b: &BindView<'_>) -> u64 {
    let mut n = 0u64;
    let mut last = None;
    for target in b.targets() {
        assert!(last < Some(target.to_raw()), "targets not in order");
        last = Some(target.to_raw());
        let view = b.target(target);
        assert!(!view.is_empty() && view.target() == target);
        n = n.wrapping_add(u64::from(view.program_stage_flags()));
        for (i, binding) in view.bindings().iter().enumerate() {
            assert_eq!(binding.target, target.to_raw());
            let path = view.path(binding);
            n = n.wrapping_add(
                path.len() as u64 + view.code_name(binding).map_or(0, |s| s.len() as u64),
            );
            n = n.wrapping_add(u64::from(binding.space ^ binding.index ^ binding.kind));
            assert!(view.space(binding.space).contains(binding));
            if i < MAX_LOOKUPS {
                let found = view.find(path).expect("a binding is found by its path");
                assert_eq!(view.path(found), path);
            }
            n = n.wrapping_add(
                view.vulkan_binding(binding)
                    .map_or(0, |v| u64::from(v.binding)),
            );
            n = n.wrapping_add(match view.buffer_layout(binding) {
                TargetBufferLayout::Vulkan(layout) => {
                    assert!(target.shares_vulkan_member_layout());
                    u64::from(layout.size)
                }
                TargetBufferLayout::NotProvided => 1,
                _ => 2,
            });
            // A Metal argument buffer's struct: every member in range, its binding too.
            if let Some(ab) = view.argument_buffer(binding) {
                n = n.wrapping_add(u64::from(ab.size() ^ ab.alignment()));
                for m in ab.members() {
                    n = n.wrapping_add(ab.path(m).len() as u64 + u64::from(m.offset ^ m.id));
                    n = n.wrapping_add(ab.binding(m).map_or(0, |o| u64::from(o.index)));
                }
            }
        }
    }
    for target in [
        Target::Spirv,
        Target::from_raw(0),
        Target::from_raw(u32::MAX),
    ] {
        n = n.wrapping_add(b.target(target).bindings().len() as u64);
    }
    n
}

/// zstd level at which [`refix_checksums`] and [`edit_index`] compress an index they changed
/// (fast, so that fuzzing and the hostile tests can afford one per input; any fixed level is
/// deterministic).
pub const REFIX_INDEX_LEVEL: i32 = 3;

/// Recomputes every checksum of a package-shaped byte string (each section's xxh3 in the
/// directory, the directory's and the header's), so that a mutation inside a section reaches
/// the validation behind the checksums. Bytes that do not parse as far as the directory are
/// left alone (returns `false`); never panics, on any bytes.
///
/// With a compressed index (SPEC.md 4.4) the index is decompressed (at most
/// `MAX_SECTION_RAW_SIZE` bytes, its declared size), the checksums of the container sections
/// inside it (positions in the index) and of the other sections (in the file) are recomputed,
/// and, when that changed the index, it is compressed again at [`REFIX_INDEX_LEVEL`] and
/// stored in place of the old frame; see [`edit_index`] for where it goes and when that
/// fails. An index that does not decompress keeps its bytes: only the directory checksum (over
/// the frame as stored) and the header's are recomputed, so the reader reaches the frame's
/// decompression.
pub fn refix_checksums(bytes: &mut Vec<u8>) -> bool {
    use slangpack_reader::format::FileHeader;
    use zerocopy::FromBytes;
    let Ok((h, _)) = FileHeader::read_from_prefix(bytes.as_slice()) else {
        return false;
    };
    if h.has_compressed_index() {
        return refix_indexed(bytes, h, false, |_| {});
    }
    let stride = h.section_record_size as usize;
    let Ok(dir) = usize::try_from(h.section_dir_offset()) else {
        return false;
    };
    let dir_len = (h.section_count as usize).saturating_mul(stride);
    if dir.saturating_add(dir_len) > bytes.len()
        || !refix_records(
            bytes,
            dir,
            (h.section_count as usize, h.version_major, false),
            stride,
            None,
        )
    {
        return false;
    }
    let dir_hash = slangpack_reader::format::xxh3_64(&bytes[dir..dir + dir_len]);
    refix_header(bytes, h, dir_hash)
}

/// Decompresses the compressed index of the package `bytes`, lets `edit` change it (the
/// directory, then the container sections' bytes), recomputes every checksum as
/// [`refix_checksums`] does, compresses the index again at [`REFIX_INDEX_LEVEL`] and stores
/// it: so that a test can mutate what the compressed index holds. Returns `false`, leaving
/// `bytes` unchanged, when the package has no compressed index, the index does not decompress
/// or (after `edit`) is shorter than its directory, or the new frame does not fit.
///
/// The new frame replaces the old one at the directory offset (`index_size` follows it): a
/// frame no longer than the old one is written in place and the rest of the old one is
/// zeroed, so nothing else moves; a longer one fits only when every byte after the old frame is
/// zero (the frame is last in the file, as writers place it), and the file then grows to the
/// next multiple of 8 past it (the header's `file_size` follows when it was the file's
/// length). Rebuilding the file instead (`assemble_sections_indexed`) would move the sections
/// and so undo mutations of their offsets and of the layout, which these tests exist to reach.
pub fn edit_index(bytes: &mut Vec<u8>, edit: impl FnOnce(&mut Vec<u8>)) -> bool {
    use slangpack_reader::format::FileHeader;
    use zerocopy::FromBytes;
    match FileHeader::read_from_prefix(bytes.as_slice()) {
        Ok((h, _)) if h.has_compressed_index() => refix_indexed(bytes, h, true, edit),
        _ => false,
    }
}

/// [`refix_checksums`] of a package with a compressed index (header `h`), after `edit` of
/// the index; when `edited`, an index that does not decompress is a failure.
fn refix_indexed(
    bytes: &mut Vec<u8>,
    mut h: slangpack_reader::format::FileHeader,
    edited: bool,
    edit: impl FnOnce(&mut Vec<u8>),
) -> bool {
    use slangpack_reader::format::{compress_index, index_content, limits, xxh3_64};
    let (Ok(at), Ok(size)) = (
        usize::try_from(h.section_dir_offset()),
        usize::try_from(h.stored_directory_size()),
    ) else {
        return false;
    };
    let Some(frame) = bytes.get(at..at.saturating_add(size)) else {
        return false;
    };
    let count = h.section_count as usize;
    let stride = h.section_record_size as usize;
    let Some(old) = index_content(&h, frame, limits::MAX_SECTION_RAW_SIZE) else {
        if edited {
            return false;
        }
        let dir_hash = xxh3_64(frame);
        return refix_header(bytes, h, dir_hash);
    };
    let mut index = old.clone();
    edit(&mut index);
    if index.len() < count.saturating_mul(stride) {
        return false;
    }
    let runs = h.has_checksum_runs();
    let refixed = refix_records(
        &mut index,
        0,
        (count, h.version_major, runs),
        stride,
        Some(bytes),
    );
    if !refixed {
        return false;
    }
    if index != old {
        let Ok(frame) = compress_index(&index, REFIX_INDEX_LEVEL) else {
            return false;
        };
        let Ok(frame_len) = u32::try_from(frame.len()) else {
            return false;
        };
        let end = at + size;
        if frame.len() <= size {
            bytes[at..at + frame.len()].copy_from_slice(&frame);
            bytes[at + frame.len()..end].fill(0);
        } else if bytes[end..].iter().all(|&b| b == 0) {
            let old_len = bytes.len() as u64;
            let new_len = bytes.len().max((at + frame.len()).next_multiple_of(8));
            bytes.resize(new_len, 0);
            bytes[at..at + frame.len()].copy_from_slice(&frame);
            if h.file_size() == old_len {
                let (lo, hi) = slangpack_reader::format::split_u64(new_len as u64);
                (h.file_size_lo, h.file_size_hi) = (lo, hi);
            }
        } else {
            return false;
        }
        h.index_size = frame_len;
        // Stored again unpacked (SPEC.md 4.4): what the edit made is judged as it is.
        h.flags &= !slangpack_reader::format::FLAG_PACKED_INDEX;
    }
    let dir_hash = xxh3_64(&bytes[at..at + h.index_size as usize]);
    refix_header(bytes, h, dir_hash)
}

/// Rewrites the hash of each of the `count` directory records at `dir` in `buf` (`stride`
/// bytes apart, within `buf`) to the checksum of the bytes it names (as a package of major
/// version `major` states it): in `buf`, or with `file`
/// given (`buf` is a compressed index) in `file` for sections other than container sections.
/// A record naming bytes out of bounds keeps its hash (so does one of a section that overlaps
/// a compressed index whose frame is then rewritten: the reader refuses the overlap first).
/// With `runs` (a 2.3 package's checksum runs, SPEC.md 4.3 rule 3), a section in the file
/// without a checksum keeps none, and the first one after such sections gets the checksum of
/// the file bytes from the first of them to its own end.
/// `false` when a stride is too short for a record.
fn refix_records(
    buf: &mut [u8],
    dir: usize,
    (count, major, runs): (usize, u32, bool),
    stride: usize,
    file: Option<&[u8]>,
) -> bool {
    use slangpack_reader::format::{split_u64, xxh3_64, SectionRecord};
    use zerocopy::{FromBytes, IntoBytes};
    const RECORD: usize = core::mem::size_of::<SectionRecord>();
    if stride < RECORD {
        return false;
    }
    // Where the current checksum run's first section starts in the file.
    let mut run_start: Option<usize> = None;
    for i in 0..count {
        let at = dir + i * stride;
        let Some(Ok((mut r, _))) = buf.get(at..).map(SectionRecord::read_from_prefix) else {
            return false;
        };
        let source: &[u8] = match file {
            Some(file) if !r.section_kind().is_container() => file,
            _ => buf,
        };
        let in_run = runs && file.is_some() && !r.section_kind().is_container();
        let mut start = usize::try_from(r.offset()).unwrap_or(usize::MAX);
        if in_run && r.hash() == 0 {
            run_start.get_or_insert(start);
            continue;
        }
        if in_run {
            start = run_start.take().unwrap_or(start).min(start);
        }
        let len = usize::try_from(r.offset())
            .unwrap_or(usize::MAX)
            .saturating_sub(start)
            .saturating_add(usize::try_from(r.stored_size()).unwrap_or(usize::MAX));
        if let Some(stored) = source.get(start..start.saturating_add(len)) {
            (r.hash_lo, r.hash_hi) = split_u64(r.checksum_of(major, xxh3_64(stored)));
        }
        buf[at..at + RECORD].copy_from_slice(r.as_bytes());
    }
    true
}

/// Writes header `h` with `dir_hash` and its own checksum over the start of `bytes`.
fn refix_header(
    bytes: &mut [u8],
    mut h: slangpack_reader::format::FileHeader,
    dir_hash: u64,
) -> bool {
    use slangpack_reader::format::{split_u64, xxh3_64, HEADER_HASHED_LEN};
    use zerocopy::IntoBytes;
    let Some(head) = bytes.get_mut(..core::mem::size_of_val(&h)) else {
        return false;
    };
    (h.dir_hash_lo, h.dir_hash_hi) = split_u64(dir_hash);
    head.copy_from_slice(h.as_bytes());
    (h.header_hash_lo, h.header_hash_hi) = split_u64(xxh3_64(&head[..HEADER_HASHED_LEN]));
    head.copy_from_slice(h.as_bytes());
    true
}

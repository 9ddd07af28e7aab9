//! The layouts a package states behind buffer device addresses (`T*`,
//! `ConstBufferPointer<T>`) and descriptor handles of constant buffers, against an independent
//! oracle: `spirv-cross --reflect` on the same stored SPIR-V. Every member of every block the
//! SPIR-V declares behind a `PhysicalStorageBuffer` pointer (followed from the push constants,
//! each pointee type once) and every constant buffer in a descriptor heap has a member of the
//! bind view at the same offset, with the same array and matrix strides; every pointer member
//! leads to a pointee layout whose stride is the pointer's `ArrayStride`.

use serde_json::Value;
use slangpack_format::bind::{BufferKind, BufferLayout, BINDING_DESCRIPTOR_HEAP};
use slangpack_format::ABSENT;
use slangpack_reader::{BindView, Package};
use slangpack_tests::layout;
use slangpack_writer::compile::{BufferLayout as Rules, CompileOptions};
use std::collections::BTreeSet;

/// One struct of spirv-cross's reflection compared with a bind-view layout.
struct Compare<'v, 'a> {
    types: &'v serde_json::Map<String, Value>,
    bind: BindView<'a>,
    /// Pairs of (pointee layout, spirv-cross type) already compared: a node that points at
    /// itself ends the walk.
    seen: BTreeSet<(usize, String)>,
    errors: Vec<String>,
    /// Facts compared (offsets, strides, pointees).
    facts: usize,
}

fn u(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok())
}

impl<'a> Compare<'_, 'a> {
    fn layout_index(&self, layout: &BufferLayout) -> usize {
        let all = self.bind.buffer_layouts();
        all.iter().position(|l| core::ptr::eq(l, layout)).unwrap()
    }

    /// The struct `ty`'s members against `layout`'s members under `parent` (absolute index,
    /// `ABSENT` at the top), whose offsets start at `base`.
    fn structure(&mut self, ty: &str, layout: &'a BufferLayout, parent: u32, base: u32) {
        let bind = self.bind;
        let label = bind.string(layout.name).to_string();
        let Some(members) = self.types[ty]["members"].as_array() else {
            return;
        };
        for sm in members {
            let name = sm["name"].as_str().unwrap_or_default();
            let ours = (layout.first_member..)
                .zip(bind.members(layout))
                .find(|(_, m)| m.parent == parent && bind.string(m.name) == name);
            let Some((index, m)) = ours else {
                self.errors.push(format!(
                    "{label}: SPIR-V member `{name}` of {ty} is not in the bind view"
                ));
                continue;
            };
            let path = format!("{label}.{}", bind.string(m.path));
            let mut offset = base + u(&sm["offset"]).unwrap_or(0);
            let member_ty = sm["type"].as_str().unwrap_or_default();
            let wrapper = self.types.get(member_ty).filter(|t| {
                let n = t["name"].as_str().unwrap_or_default();
                n.starts_with("_Array_") || n.starts_with("_MatrixStorage_")
            });
            let mut check = |errors: &mut Vec<String>, what: &str, ours: u32, theirs: u32| {
                self.facts += 1;
                if ours != theirs {
                    errors.push(format!(
                        "{path} {what}: bind view {ours}, spirv-cross {theirs}"
                    ));
                }
            };
            if let Some(w) = wrapper {
                // Slang's wrappers of an array (`_Array_natural_float4`) or a matrix
                // (`_MatrixStorage_float4x4natural`): one member `data` holding the array.
                let data = &w["members"][0];
                offset += u(&data["offset"]).unwrap_or(0);
                let stride = u(&data["array_stride"]).unwrap_or(0);
                if w["name"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("_Array_")
                {
                    check(&mut self.errors, "array stride", m.array_stride, stride);
                } else {
                    check(&mut self.errors, "matrix stride", m.matrix_stride, stride);
                }
            }
            check(&mut self.errors, "offset", m.offset, offset);
            if let Some(stride) = u(&sm["matrix_stride"]) {
                check(&mut self.errors, "matrix stride", m.matrix_stride, stride);
            }
            if sm["physical_pointer"].as_bool() == Some(true) {
                let stride = u(&sm["array_stride"]).unwrap_or(0);
                match bind.pointee(index) {
                    Some(p) => {
                        check(&mut self.errors, "pointee stride", p.stride, stride);
                        let at = self.layout_index(p);
                        if self.seen.insert((at, member_ty.to_string())) {
                            self.structure(member_ty, p, ABSENT, 0);
                        }
                    }
                    None => self.errors.push(format!(
                        "{path}: a buffer device address that leads nowhere"
                    )),
                }
                continue;
            }
            if let Some(stride) = u(&sm["array_stride"]) {
                check(&mut self.errors, "array stride", m.array_stride, stride);
            }
            let is_struct = self
                .types
                .get(member_ty)
                .is_some_and(|t| t["members"].is_array());
            if is_struct && wrapper.is_none() && sm["array"].is_null() {
                self.structure(member_ty, layout, index, m.offset);
            }
        }
    }
}

/// Compares every pointee and heap buffer of `shader` with spirv-cross; returns the number of
/// facts compared and the number of pointee and heap layouts the bind view states.
fn compare(shader: &str) -> (usize, usize) {
    compare_with(shader, CompileOptions::default())
}

/// [`compare`], baked with `options`.
fn compare_with(shader: &str, options: CompileOptions) -> (usize, usize) {
    let file = layout::test_shaders_dir().join(format!("{shader}.slang"));
    let bytes = layout::bake_with(&[file], options);
    let package = Package::from_bytes(&bytes).expect("the package opens");
    let entry = package.entries().next().unwrap().expect("the entry loads");
    let ep = entry.entry_points().next().unwrap();
    let reflection = layout::spirv_cross_reflect(ep.spirv()).expect("spirv-cross");
    let types = reflection["types"].as_object().expect("types");
    let bind = entry.bind();
    let mut c = Compare {
        types,
        bind,
        seen: BTreeSet::new(),
        errors: Vec::new(),
        facts: 0,
    };
    for push in reflection["push_constants"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let ty = push["type"].as_str().unwrap();
        let ours = bind.push_constants()[0].buffer_layout;
        c.structure(ty, bind.buffer_layout(ours).unwrap(), ABSENT, 0);
    }
    for ubo in reflection["ubos"].as_array().into_iter().flatten() {
        let (set, binding) = (u(&ubo["set"]).unwrap(), u(&ubo["binding"]).unwrap());
        let Some(heap) = bind
            .bindings()
            .iter()
            .find(|b| (b.set, b.binding) == (set, binding))
        else {
            continue;
        };
        let ty = ubo["type"].as_str().unwrap();
        let block = types[ty]["name"].as_str().unwrap_or_default();
        let ours = bind
            .heap_buffers(heap)
            .find(|l| block.starts_with(&format!("{}_", bind.string(l.name))));
        match ours {
            Some(l) => c.structure(ty, l, ABSENT, 0),
            None => c.errors.push(format!(
                "heap block {block} at set {set} binding {binding} has no heap buffer"
            )),
        }
    }
    for ssbo in reflection["ssbos"].as_array().into_iter().flatten() {
        storage_buffer(&mut c, ssbo);
    }
    assert!(c.errors.is_empty(), "{shader}:\n{}", c.errors.join("\n"));
    let stated = bind
        .buffer_layouts()
        .iter()
        .filter(|l| matches!(l.buffer_kind(), BufferKind::Pointee | BufferKind::Heap))
        .count();
    (c.facts, stated)
}

/// A storage buffer spirv-cross lists at a heap binding (`ssbo`): its runtime array's element
/// against the heap buffer of that element (by the element struct's name, `Particle_std430`;
/// an element that is no struct by its stride), the element stride against the layout's.
fn storage_buffer(c: &mut Compare<'_, '_>, ssbo: &Value) {
    let bind = c.bind;
    let (set, binding) = (u(&ssbo["set"]).unwrap(), u(&ssbo["binding"]).unwrap());
    let Some(heap) = (bind.bindings().iter())
        .find(|b| (b.set, b.binding) == (set, binding) && b.flags & BINDING_DESCRIPTOR_HEAP != 0)
    else {
        return;
    };
    let ty = ssbo["type"].as_str().unwrap();
    let array = &c.types[ty]["members"][0];
    let element = array["type"].as_str().unwrap_or_default();
    let stride = u(&array["array_stride"]).unwrap_or(0);
    let element_struct = c
        .types
        .get(element)
        .map(|t| t["name"].as_str().unwrap_or_default());
    let ours = bind.heap_buffers(heap).find(|l| match element_struct {
        Some(name) => name.starts_with(&format!("{}_", bind.string(l.name))),
        None => l.member_count == 0 && l.stride == stride,
    });
    let Some(l) = ours else {
        c.errors.push(format!(
            "storage buffer of {element} at set {set} binding {binding} has no heap buffer"
        ));
        return;
    };
    c.facts += 1;
    if l.stride != stride {
        c.errors.push(format!(
            "{}: element stride: bind view {}, spirv-cross {stride}",
            bind.string(l.name),
            l.stride
        ));
    }
    if element_struct.is_some() {
        c.structure(element, l, ABSENT, 0);
    }
}

#[test]
fn a_push_constant_buffer_pointer_states_its_pointee_as_spirv_cross_reads_it() {
    let (facts, stated) = compare("pointer_push_constant");
    assert_eq!(stated, 1, "Transform");
    assert!(facts >= 5, "{facts} facts compared");
}

#[test]
fn raw_pointers_nested_structs_arrays_and_a_linked_list_match_spirv_cross() {
    let (facts, stated) = compare("pointer_graph");
    // `Surface` and `Node` once each, though `Node` is reached three times.
    assert_eq!(stated, 2);
    assert!(facts >= 12, "{facts} facts compared");
}

#[test]
fn a_constant_buffer_reached_through_the_heap_matches_spirv_cross() {
    let (facts, stated) = compare("heap_constant_buffer");
    // `ModelData`, and the `float4` elements of the storage buffer beside it.
    assert_eq!(stated, 2, "ModelData and float4");
    assert!(facts >= 5, "{facts} facts compared");
}

/// Read-write and read-only structured buffers of structs (a `float3` under std430, an
/// array, a row-major matrix) and of a scalar, each reached through a descriptor handle: the
/// element layout and stride of each match spirv-cross's runtime array in the heap.
#[test]
fn storage_buffers_reached_through_the_heap_match_spirv_cross() {
    let (facts, stated) = compare("heap_storage_buffer");
    assert_eq!(stated, 3, "Particle, Light and float");
    assert!(facts >= 12, "{facts} facts compared");
    // Under the scalar and Direct3D layouts the elements pack tighter (`Particle` 36 bytes
    // apart); the layout follows, and spirv-cross agrees.
    for rules in [Rules::Scalar, Rules::Dx] {
        let options = CompileOptions {
            buffer_layout: rules,
            ..CompileOptions::default()
        };
        let (facts, stated) = compare_with("heap_storage_buffer", options);
        assert_eq!(stated, 3, "{rules:?}");
        assert!(facts >= 12, "{rules:?}: {facts} facts compared");
    }
}

/// The self-referential node's `next` leads to the layout it belongs to, and the handle to
/// the heap buffer at the heap binding's set and binding.
#[test]
fn pointee_links_reuse_layouts_and_heap_buffers_sit_at_their_heap() {
    let shader = |name: &str| layout::bake(&[layout::test_shaders_dir().join(name)]);
    let bytes = shader("pointer_graph.slang");
    let package = Package::from_bytes(&bytes).unwrap();
    let graph = package.entries().next().unwrap().unwrap();
    let bind = graph.bind();
    let (node, _) = bind.buffer_member("Node.next").expect("Node.next");
    let next = bind.member_handle("Node.next").unwrap().member_index();
    assert!(core::ptr::eq(bind.pointee(next).unwrap(), node));
    let nodes = bind.member_handle("Surface.nodes").unwrap().member_index();
    assert!(core::ptr::eq(bind.pointee(nodes).unwrap(), node));
    assert_eq!((node.size, node.stride, node.alignment), (12, 16, 8));

    let bytes = shader("heap_constant_buffer.slang");
    let package = Package::from_bytes(&bytes).unwrap();
    let heap = package.entries().next().unwrap().unwrap();
    let bind = heap.bind();
    let binding = bind
        .binding("__slang_resource_heap.mutable")
        .expect("the heap");
    let buffers: Vec<_> = bind.heap_buffers(binding).collect();
    assert_eq!(buffers.len(), 2);
    assert_eq!(bind.string(buffers[0].name), "ModelData");
    let handle = bind.member_handle("gPush.model").unwrap().member_index();
    assert!(core::ptr::eq(bind.pointee(handle).unwrap(), buffers[0]));
    // The storage buffer's `float4` elements: a stride, no members, the same heap binding.
    let output = bind.member_handle("gPush.output").unwrap().member_index();
    let elements = bind
        .pointee(output)
        .expect("a storage-buffer handle states its element");
    assert!(core::ptr::eq(elements, buffers[1]));
    assert_eq!(
        (elements.size, elements.stride, elements.member_count),
        (16, 16, 0)
    );
}

/// Each storage-buffer handle leads to its element's layout, with the element stride, at the
/// heap binding that holds storage buffers.
#[test]
fn a_storage_handle_leads_to_its_element_layout_at_the_storage_heap() {
    let bytes = layout::bake(&[layout::test_shaders_dir().join("heap_storage_buffer.slang")]);
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.entries().next().unwrap().unwrap();
    let bind = entry.bind();
    let heap = bind
        .binding("__slang_resource_heap.storage_buffer")
        .expect("the storage-buffer heap");
    let names: Vec<&str> = bind
        .heap_buffers(heap)
        .map(|l| bind.string(l.name))
        .collect();
    assert_eq!(names, ["Particle", "Light", "float"]);
    for (handle, element, stride) in [
        ("gPush.particles", "Particle", 48),
        ("gPush.lights", "Light", 64),
        ("gPush.weights", "float", 4),
    ] {
        let member = bind.member_handle(handle).unwrap().member_index();
        let l = bind.pointee(member).expect(handle);
        assert_eq!(
            (bind.string(l.name), l.stride),
            (element, stride),
            "{handle}"
        );
        assert_eq!((l.set, l.binding), (heap.set, heap.binding), "{handle}");
    }
}

//! The bake-time guard on what pointers and descriptor handles lead to: a pointee or heap
//! layout that disagrees with the SPIR-V fails the bake, naming both values.

use super::*;
use crate::compile::{CompileOptions, Compiler, Source};
use walk::Walk;

const SHADER: &str = r#"
    struct Leaf { float2 uv; uint id; };
    struct Node { Node* next; Leaf leaf; float4x4 m; };
    struct Data { float4 c; uint i; };
    struct Push { Node* head; DescriptorHandle<ConstantBuffer<Data>> data; };
    [[vk::push_constant]] Push gPush;
    [[vk::binding(0, 0)]] RWStructuredBuffer<float4> gOut;
    [shader("compute")]
    [numthreads(1, 1, 1)]
    void main() {
        ConstantBuffer<Data> d = *gPush.data;
        Node* n = gPush.head;
        gOut[0] = mul(n.m, d.c) + float4(n.next.leaf.uv, float(n.leaf.id), float(d.i));
    }
"#;

/// A struct reached both as a constant buffer and as storage buffers' elements through
/// handles: std140 and std430 lay its array out differently.
const STORAGE: &str = r#"
    struct Data { float4 c; float2 pairs[2]; uint i; };
    struct Push {
        DescriptorHandle<ConstantBuffer<Data>> uniform;
        DescriptorHandle<RWStructuredBuffer<Data>> storage;
        StructuredBuffer<Data>.Handle readonly;
    };
    [[vk::push_constant]] Push gPush;
    [shader("compute")]
    [numthreads(1, 1, 1)]
    void main() {
        ConstantBuffer<Data> u = *gPush.uniform;
        RWStructuredBuffer<Data> s = gPush.storage;
        Data r = gPush.readonly[1];
        s[1].c = u.c + float4(u.pairs[1], r.pairs[1]) + float(u.i + r.i);
    }
"#;

fn bake(tamper: impl FnOnce(&mut Walk<'_>)) -> Result<(), BakeError> {
    bake_shader(SHADER, tamper)
}

fn bake_shader(text: &str, tamper: impl FnOnce(&mut Walk<'_>)) -> Result<(), BakeError> {
    let source = Source {
        path: "pointees.slang".into(),
        text: text.into(),
        slang_path: None,
    };
    let program = Compiler::new()
        .and_then(|c| c.compile("pointees", &source, &CompileOptions::default()))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut builder = ReflectionBuilder::new();
    build_tampered(&program, "pointees", &mut builder, &mut Vec::new(), tamper)
}

fn member<'m>(walk: &'m mut Walk<'_>, buffer: &str, path: &str) -> &'m mut BufferMember {
    let b = walk.buffers.iter_mut().find(|b| b.name == buffer).unwrap();
    &mut b.members.iter_mut().find(|m| m.path == path).unwrap().rec
}

fn message(result: Result<(), BakeError>) -> String {
    result.expect_err("the guard fires").to_string()
}

#[test]
fn pointees_and_heap_buffers_are_laid_out_once_and_pass_untouched() {
    bake(|walk| {
        let kinds: Vec<(&str, u32)> = (walk.buffers.iter())
            .map(|b| (b.name.as_str(), b.kind))
            .collect();
        assert!(kinds.contains(&("Node", BUFFER_POINTEE)), "{kinds:?}");
        assert!(kinds.contains(&("Data", BUFFER_HEAP)), "{kinds:?}");
        let nodes = kinds.iter().filter(|k| k.0 == "Node").count();
        assert_eq!(nodes, 1, "a node that points at itself is laid out once");
        let node = walk.buffers.iter().position(|b| b.name == "Node").unwrap();
        let next = &walk.buffers[node].members[0];
        assert_eq!((next.path.as_str(), next.pointee), ("next", Some(node)));
    })
    .unwrap();
}

#[test]
fn a_wrong_pointee_offset_stride_or_matrix_stride_fails_the_bake() {
    let e = message(bake(|walk| member(walk, "Node", "leaf.id").offset = 12));
    assert!(
        e.contains("member `leaf.id` offset: the bind view says 12, the SPIR-V says 16"),
        "{e}"
    );
    let e = message(bake(|walk| {
        let node = walk.buffers.iter_mut().find(|b| b.name == "Node").unwrap();
        node.stride += 8;
    }));
    assert!(e.contains("pointee `Node` stride"), "{e}");
    let e = message(bake(|walk| member(walk, "Node", "m").matrix_stride = 32));
    assert!(
        e.contains("member `m` matrix stride: the bind view says 32"),
        "{e}"
    );
}

#[test]
fn a_wrong_heap_buffer_offset_fails_the_bake() {
    let e = message(bake(|walk| member(walk, "Data", "i").offset = 20));
    assert!(
        e.contains("member `i` offset: the bind view says 20"),
        "{e}"
    );
}

/// The storage buffers' element layout: one for both handles of `Data` as storage buffers,
/// apart from the constant buffer's.
fn storage_data<'w>(walk: &'w mut Walk<'_>) -> &'w mut buffers::BufferOut {
    let i = walk.heap_storage[0];
    &mut walk.buffers[i]
}

#[test]
fn storage_handles_lead_to_a_std430_element_apart_from_the_constant_buffer() {
    bake_shader(STORAGE, |walk| {
        let data: Vec<(usize, u32)> = (walk.buffers.iter().enumerate())
            .filter(|(_, b)| b.name == "Data" && b.kind == BUFFER_HEAP)
            .map(|(i, b)| (i, b.stride))
            .collect();
        assert_eq!(data.len(), 2, "a std140 and a std430 layout");
        assert_eq!(walk.heap_storage.len(), 1, "both storage handles share one");
        let storage = walk.heap_storage[0];
        let pairs = |b: usize| {
            let m = walk.buffers[b].members.iter().find(|m| m.name == "pairs");
            m.unwrap().rec.array_stride
        };
        let uniform = data.iter().find(|d| d.0 != storage).unwrap().0;
        assert_eq!((pairs(uniform), pairs(storage)), (16, 8));
        assert_eq!(walk.buffers[storage].stride, 48);
    })
    .unwrap();
}

#[test]
fn a_wrong_storage_element_stride_or_offset_fails_the_bake() {
    let e = message(bake_shader(STORAGE, |walk| storage_data(walk).stride = 40));
    assert!(
        e.contains("element stride: the bind view says 40, the SPIR-V says 48"),
        "{e}"
    );
    let e = message(bake_shader(STORAGE, |walk| {
        let pairs = storage_data(walk)
            .members
            .iter_mut()
            .find(|m| m.name == "pairs");
        pairs.unwrap().rec.array_stride = 16;
    }));
    assert!(
        e.contains("member `pairs` array stride: the bind view says 16, the SPIR-V says 8"),
        "{e}"
    );
}

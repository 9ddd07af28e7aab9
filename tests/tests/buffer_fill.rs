//! The reader's typed buffer writer (`BufferLayoutView::writer`): a uniform buffer and a
//! push-constant block filled by member path — scalars, vectors, row- and column-major
//! matrices, arrays of structs (nested) and of scalars, `bool` — bind byte for byte on lavapipe, and
//! every refusal names the path with its own error kind.

use ash::vk;
use slangpack_format::{ScalarType, Target, TypeKind};
use slangpack_reader::{FillErrorKind, Half, Package, Shape};
use slangpack_tests::layout::test_shaders_dir;
use slangpack_tests::vk::{BindingDesc, PipelineLayoutDesc, Vk};
use slangpack_writer::bake::{self, BakeConfig};

fn bake(targets: &[Target]) -> Package {
    bake_file("buffer_fill", targets)
}

fn bake_file(key: &str, targets: &[Target]) -> Package {
    let mut config = BakeConfig::new(vec![test_shaders_dir().join(format!("{key}.slang"))]);
    config.jobs = 1;
    config.options.targets = targets.to_vec();
    let outcome = bake::bake(&config).expect("bakes");
    Package::from_bytes(&outcome.bytes).expect("opens")
}

/// Distinct float values, each a small multiple of 1/4 (exact bits on any rounding).
struct Values(f32);
impl Values {
    fn next(&mut self) -> f32 {
        self.0 += 0.25;
        self.0
    }
    fn vec<const N: usize>(&mut self) -> [f32; N] {
        std::array::from_fn(|_| self.next())
    }
    fn mat<const C: usize, const R: usize>(&mut self) -> [[f32; C]; R] {
        std::array::from_fn(|_| self.vec())
    }
}

/// `Outer` of the shader: `x`, then `inner[i]`'s `a` and `b`.
type Outer = (f32, [(f32, [f32; 2]); 2]);

#[test]
fn a_uniform_buffer_and_push_constants_filled_by_path_bind_byte_for_byte() {
    let package = bake(&[]);
    let entry = package.load("buffer_fill").unwrap();
    let ep = entry.entry_points().next().unwrap();
    let bind = entry.bind();
    let params = bind.buffer_view("gParams").expect("gParams");
    let push = bind.buffer_view("gPush").expect("gPush");

    let mut v = Values(1.0);
    let tint: [f32; 4] = v.vec();
    let rm: [[f32; 4]; 3] = v.mat();
    let cm: [[f32; 4]; 3] = v.mat();
    let dm: [[f32; 3]; 2] = v.mat();
    let lights: [([f32; 3], f32, [u32; 2]); 2] = [
        (v.vec(), v.next(), [0xA1, 0xA2]),
        (v.vec(), v.next(), [0xB1, 0xB2]),
    ];
    let weights: [f32; 3] = v.vec();
    let offsets = [-7i32, 0, 123_456];
    let (scale, count) = (v.next(), 0xC0FF_EE11u32);
    // outers[o]: x, then inner[i]: a, b.
    let outers: [Outer; 2] = std::array::from_fn(|_| {
        let x = v.next();
        (x, std::array::from_fn(|_| (v.next(), v.vec())))
    });
    let n: [[f32; 3]; 3] = v.mat();
    let k = v.next();

    let mut uniforms = params.zeroed();
    let mut w = params.writer(&mut uniforms);
    w.set("gParams.tint", tint)
        .unwrap()
        .set("gParams.rm", rm)
        .unwrap()
        .set("gParams.cm", cm)
        .unwrap()
        .set("gParams.dm", dm)
        .unwrap();
    for (i, (dir, intensity, ids)) in lights.iter().enumerate() {
        w.set(&format!("gParams.lights[{i}].dir"), *dir).unwrap();
        w.set(&format!("gParams.lights[{i}].intensity"), *intensity)
            .unwrap();
        w.set(&format!("gParams.lights[{i}].ids"), *ids).unwrap();
    }
    // Through handles resolved once: the 16-byte array stride is the handle's business.
    for (i, weight) in weights.iter().enumerate() {
        let field = params
            .field::<f32>(&format!("gParams.weights[{i}]"))
            .unwrap();
        w.set_at(field, *weight).unwrap();
    }
    w.set("gParams.offsets", offsets)
        .unwrap()
        .set("gParams.flag", true)
        .unwrap()
        .set("gParams.scale", scale)
        .unwrap()
        .set("gParams.count", count)
        .unwrap();
    // Arrays of structs inside elements of arrays of structs.
    for (o, (x, inner)) in outers.iter().enumerate() {
        w.set(&format!("gParams.outers[{o}].x"), *x).unwrap();
        for (i, (a, b)) in inner.iter().enumerate() {
            w.set(&format!("gParams.outers[{o}].inner[{i}].a"), *a)
                .unwrap()
                .set(&format!("gParams.outers[{o}].inner[{i}].b"), *b)
                .unwrap();
        }
    }
    let mut push_bytes = push.zeroed();
    push.writer(&mut push_bytes)
        .set("gPush.n", n)
        .unwrap()
        .set("gPush.k", k)
        .unwrap();

    // The column-major matrix really is stored by columns: element [0][1] (row 0, column 1)
    // is the second column's first lane, one matrix stride after the first.
    let (_, cm_member) = bind.buffer_member("gParams.cm").unwrap();
    let at = cm_member.offset as usize + cm_member.matrix_stride as usize;
    assert_eq!(
        f32::from_le_bytes(uniforms[at..at + 4].try_into().unwrap()),
        cm[0][1]
    );

    let mut expected: Vec<u32> = tint.iter().map(|f| f.to_bits()).collect();
    for m in [&rm, &cm] {
        expected.extend(m.iter().flatten().map(|f| f.to_bits()));
    }
    expected.extend(dm.iter().flatten().map(|f| f.to_bits()));
    for (dir, intensity, ids) in &lights {
        expected.extend(dir.iter().map(|f| f.to_bits()));
        expected.push(intensity.to_bits());
        expected.extend(ids);
    }
    expected.extend(weights.iter().map(|f| f.to_bits()));
    expected.extend(offsets.iter().map(|i| *i as u32));
    expected.extend([1, scale.to_bits(), count]);
    for (x, inner) in &outers {
        expected.push(x.to_bits());
        for (a, b) in inner {
            expected.push(a.to_bits());
            expected.extend(b.iter().map(|f| f.to_bits()));
        }
    }
    expected.extend(n.iter().flatten().map(|f| f.to_bits()));
    expected.push(k.to_bits());

    let out_binding = bind.binding("gOut").unwrap();
    let params_binding = bind.binding("gParams").unwrap();
    let range = bind.push_constants()[0];
    let mut vk = Vk::new().expect("lavapipe");
    let layout = vk
        .pipeline_layout(&PipelineLayoutDesc {
            sets: vec![Some(vec![
                BindingDesc {
                    binding: params_binding.binding,
                    ty: vk::DescriptorType::UNIFORM_BUFFER,
                    count: 1,
                    stages: vk::ShaderStageFlags::COMPUTE,
                    flags: vk::DescriptorBindingFlags::empty(),
                    mutable_types: 0,
                },
                BindingDesc {
                    binding: out_binding.binding,
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    count: 1,
                    stages: vk::ShaderStageFlags::COMPUTE,
                    flags: vk::DescriptorBindingFlags::empty(),
                    mutable_types: 0,
                },
            ])],
            push_constants: vec![vk::PushConstantRange {
                stage_flags: vk::ShaderStageFlags::COMPUTE,
                offset: range.offset,
                size: range.size,
            }],
        })
        .expect("layout");
    let name = std::ffi::CString::new(ep.spirv_entry_name()).unwrap();
    let spirv = slangpack_tests::vk::for_old_validator(ep.spirv());
    let pipeline = vk
        .compute_pipeline(&layout, &spirv, &name)
        .expect("pipeline");
    let ubo = vk
        .buffer(uniforms.len() as u64, vk::BufferUsageFlags::UNIFORM_BUFFER)
        .unwrap();
    vk.write(&ubo, 0, &uniforms);
    let out = vk
        .buffer(
            4 * expected.len() as u64,
            vk::BufferUsageFlags::STORAGE_BUFFER,
        )
        .unwrap();
    let sets = vk.descriptor_sets(&layout, &[]).expect("sets");
    let set = sets[0].unwrap();
    vk.write_buffer(
        set,
        params_binding.binding,
        0,
        vk::DescriptorType::UNIFORM_BUFFER,
        &ubo,
    );
    vk.write_buffer(
        set,
        out_binding.binding,
        0,
        vk::DescriptorType::STORAGE_BUFFER,
        &out,
    );
    let pushed = &push_bytes[range.offset as usize..(range.offset + range.size) as usize];
    vk.dispatch(
        pipeline,
        &layout,
        &sets,
        &[(vk::ShaderStageFlags::COMPUTE, range.offset, pushed)],
        [1, 1, 1],
    )
    .expect("dispatch");
    let words: Vec<u32> = vk
        .read(&out)
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let problems = vk.finish();
    assert!(problems.is_empty(), "validation: {problems:#?}");
    assert_eq!(words, expected);
}

#[test]
fn every_refusal_names_the_path_with_its_own_kind() {
    let package = bake(&[]);
    let entry = package.load("buffer_fill").unwrap();
    let bind = entry.bind();
    let params = bind.buffer_view("gParams").unwrap();
    let mut bytes = params.zeroed();
    let mut w = params.writer(&mut bytes);
    let kind_of = |r: Result<(), slangpack_reader::FillError>, path: &str| {
        let e = r.expect_err("refused");
        assert_eq!(e.path(), path);
        assert!(e.to_string().contains(path), "{e}");
        // Owned: `?` takes it into a `Box<dyn Error>`.
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e.clone());
        assert_eq!(boxed.to_string(), e.to_string());
        e.kind().clone()
    };
    let path = "gParams.scale";
    assert_eq!(
        kind_of(w.set(path, 1u32).map(|_| ()), path),
        FillErrorKind::WrongScalarType {
            expected: ScalarType::Float32,
            found: ScalarType::UInt32
        }
    );
    let path = "gParams.tint";
    assert_eq!(
        kind_of(w.set(path, [1.0f32; 3]).map(|_| ()), path),
        FillErrorKind::WrongShape {
            expected: Shape {
                rows: 1,
                columns: 4,
                matrix: false
            },
            found: Shape {
                rows: 1,
                columns: 3,
                matrix: false
            }
        }
    );
    // A matrix wants rows: three rows of four, not four of three.
    let path = "gParams.rm";
    assert!(matches!(
        kind_of(w.set(path, [[0.0f32; 3]; 4]).map(|_| ()), path),
        FillErrorKind::WrongShape { .. }
    ));
    let path = "gParams.flag";
    assert!(matches!(
        kind_of(w.set(path, 1u32).map(|_| ()), path),
        FillErrorKind::WrongScalarType {
            expected: ScalarType::Bool,
            ..
        }
    ));
    let path = "gParams.lights[2].dir";
    assert_eq!(
        kind_of(w.set(path, [0.0f32; 3]).map(|_| ()), path),
        FillErrorKind::IndexOutOfRange { index: 2, count: 2 }
    );
    let path = "gParams.outers[1].inner[2].a";
    assert_eq!(
        kind_of(w.set(path, 0.0f32).map(|_| ()), path),
        FillErrorKind::IndexOutOfRange { index: 2, count: 2 }
    );
    let path = "gParams.weights[3]";
    assert_eq!(
        kind_of(w.set(path, 0.0f32).map(|_| ()), path),
        FillErrorKind::IndexOutOfRange { index: 3, count: 3 }
    );
    for path in ["gParams.missing", "gParams.lights[0].missing", "gOut.x"] {
        assert_eq!(
            kind_of(w.set(path, 0.0f32).map(|_| ()), path),
            FillErrorKind::NoSuchMember
        );
    }
    for path in [
        "gParams.weights[x]",
        "gParams.weights[1",
        "gParams.weights[1]z",
    ] {
        assert_eq!(
            kind_of(w.set(path, 0.0f32).map(|_| ()), path),
            FillErrorKind::BadIndex
        );
    }
    let path = "gParams.weights";
    assert_eq!(
        kind_of(w.set(path, 0.0f32).map(|_| ()), path),
        FillErrorKind::NeedsIndex { count: 3 }
    );
    let path = "gParams.scale[0]";
    assert_eq!(
        kind_of(w.set(path, 0.0f32).map(|_| ()), path),
        FillErrorKind::NotAnArray
    );
    let path = "gParams.lights[0]";
    assert_eq!(
        kind_of(w.set(path, 0.0f32).map(|_| ()), path),
        FillErrorKind::NotAValue {
            kind: TypeKind::Struct
        }
    );
    let path = "gPush.k";
    assert_eq!(
        kind_of(w.set(path, 0.0f32).map(|_| ()), path),
        FillErrorKind::OtherBuffer {
            buffer: "gPush".into()
        }
    );
    // A slice shorter than the member: refused, nothing written.
    let mut short = vec![0u8; 8];
    let path = "gParams.rm";
    assert_eq!(
        kind_of(
            params
                .writer(&mut short)
                .set(path, [[1.0f32; 4]; 3])
                .map(|_| ()),
            path
        ),
        FillErrorKind::OutOfBounds { end: 64, len: 8 }
    );
    assert!(short.iter().all(|b| *b == 0));
    // A handle of another layout.
    let push = bind.buffer_view("gPush").unwrap();
    let k = push.field::<f32>("gPush.k").unwrap();
    let mut w = params.writer(&mut bytes);
    assert_eq!(
        kind_of(w.set_at(k, 1.0).map(|_| ()), "gPush.k"),
        FillErrorKind::ForeignField
    );
}

#[test]
fn wgsl_and_glsl_buffers_fill_by_the_vulkan_layout_and_hlsl_and_metal_by_their_own() {
    let package = bake_file(
        "buffer_fill_targets",
        &[Target::Wgsl, Target::Glsl, Target::Hlsl, Target::Metal],
    );
    let entry = package.load("buffer_fill_targets").unwrap();
    let bind = entry.bind();
    let vulkan = bind.buffer_view("gParams").unwrap();
    for target in [Target::Wgsl, Target::Glsl] {
        let view = bind.target(target);
        let binding = view.find("gParams").expect("gParams");
        let layout = view.buffer_view(binding).expect("a layout");
        assert_eq!(layout.index(), vulkan.index(), "{}", target.name());
        let mut bytes = layout.zeroed();
        layout
            .writer(&mut bytes)
            .set("gParams.count", 7u32)
            .unwrap()
            .set("gParams.lights[1].intensity", 2.5f32)
            .unwrap();
        let (_, lights) = bind.buffer_member("gParams.lights").unwrap();
        let at = (lights.offset + lights.array_stride + 12) as usize;
        assert_eq!(bytes[at..at + 4], 2.5f32.to_le_bytes());
        let (_, count) = bind.buffer_member("gParams.count").unwrap();
        let at = count.offset as usize;
        assert_eq!(bytes[at..at + 4], 7u32.to_le_bytes());
        let out = view.find("gOut").expect("gOut");
        // A structured buffer's element layout is a layout too (a `uint` with no members).
        assert!(view.buffer_view(out).is_ok());
    }
    // HLSL and Metal fill by their own layouts (format 1.4): `Params { float4 tint; float3x4
    // m; Light lights[2]; uint count; }`, `Light { float3 dir; float intensity; }`, matrices
    // row-major (the code's `#pragma pack_matrix(row_major)`; Metal: three 16-byte vectors).
    // HLSL: a Light fills one register, so lights are 16 apart from 64 and count is at 96
    // (100 bytes; std140: 112). Metal: the float3 takes 16 bytes, so lights are 32 apart and
    // count is at 128 (144 bytes); `intensity` follows the 16-byte float3 at 16.
    for (target, size, lights_at, stride, intensity_at, count_at) in [
        (Target::Hlsl, 100, 64, 16, 12, 96),
        (Target::Metal, 144, 64, 32, 16, 128),
    ] {
        let view = bind.target(target);
        let binding = view.find("gParams").expect("gParams");
        let layout = view.buffer_view(binding).expect("the target's layout");
        assert!(layout.target_buffer().is_some(), "{}", target.name());
        assert_eq!(layout.size(), size, "{}", target.name());
        assert_eq!(layout.zeroed().len(), size as usize);
        let mut bytes = layout.zeroed();
        let m = [
            [1.0f32, 2.0, 3.0, 4.0],
            [5.0, 6.0, 7.0, 8.0],
            [9.0, 10.0, 11.0, 12.0],
        ];
        layout
            .writer(&mut bytes)
            .set("gParams.count", 7u32)
            .unwrap()
            .set("gParams.lights[1].intensity", 2.5f32)
            .unwrap()
            .set("gParams.m", m)
            .unwrap();
        let word = |at: usize| <[u8; 4]>::try_from(&bytes[at..at + 4]).unwrap();
        assert_eq!(word(count_at), 7u32.to_le_bytes(), "{}", target.name());
        let at = lights_at + stride + intensity_at;
        assert_eq!(word(at), 2.5f32.to_le_bytes(), "{}", target.name());
        // m[r][c] sits in row r at lane c: rows 16 bytes apart from offset 16.
        for (r, row) in m.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                let at = 16 + r * 16 + c * 4;
                assert_eq!(word(at), v.to_le_bytes(), "{} m[{r}][{c}]", target.name());
            }
        }
        // A handle resolved on the Vulkan layout is refused on the target's.
        let vulkan_field = vulkan.field::<u32>("gParams.count").unwrap();
        assert_eq!(
            layout
                .writer(&mut bytes)
                .set_at(vulkan_field, 1)
                .map(|_| ())
                .unwrap_err()
                .kind(),
            &FillErrorKind::ForeignField
        );
        // The storage buffer of `uint`s: a layout of its own on this target (its elements 4
        // bytes apart), with no members to fill by name.
        let out = view.find("gOut").expect("gOut");
        let own = view.buffer_view(out).expect("gOut's own layout");
        assert_eq!((own.record().stride, own.record().member_count), (4, 0));
        assert!(own.field::<u32>("gOut.x").is_err());
    }
}

#[test]
fn half_members_take_half_bits_and_refuse_floats() {
    // Baked from a temporary file: a `half` in a uniform buffer needs 16-bit storage, which
    // the suite's Vulkan device does not enable, so the program stays out of tests/shaders.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("halves.slang");
    std::fs::write(
        &path,
        "struct P { float a; half h; half2 v; half3x2 m; };\nConstantBuffer<P> gHalves;\n\
         RWStructuredBuffer<float> gOut;\n[shader(\"compute\")][numthreads(1,1,1)]\n\
         void main() { gOut[0] = gHalves.a + float(gHalves.h + gHalves.v.y + gHalves.m[2][1]); }\n",
    )
    .unwrap();
    let outcome = bake::bake(&BakeConfig::new(vec![path])).expect("bakes");
    let package = Package::from_bytes(&outcome.bytes).unwrap();
    let entry = package.load("halves").unwrap();
    let bind = entry.bind();
    let layout = bind.buffer_view("gHalves").unwrap();
    let mut bytes = layout.zeroed();
    let one = Half(0x3C00);
    layout
        .writer(&mut bytes)
        .set("gHalves.h", one)
        .unwrap()
        .set("gHalves.v", [Half(0x4000), Half(0x4200)])
        .unwrap()
        .set(
            "gHalves.m",
            [[Half(1), Half(2)], [Half(3), Half(4)], [Half(5), Half(6)]],
        )
        .unwrap();
    let at = |path: &str| bind.buffer_member(path).unwrap().1;
    let h = at("gHalves.h").offset as usize;
    assert_eq!(bytes[h..h + 2], [0x00, 0x3C]);
    let v = at("gHalves.v").offset as usize;
    assert_eq!(bytes[v..v + 4], [0x00, 0x40, 0x00, 0x42]);
    // Element [2][1] of the matrix, where its layout and stride put it.
    let m = at("gHalves.m");
    let place = match m.matrix_layout_mode() {
        slangpack_format::MatrixLayout::RowMajor => 2 * m.matrix_stride + 2,
        _ => m.matrix_stride + 2 * 2,
    };
    let e = (m.offset + place) as usize;
    assert_eq!(bytes[e..e + 2], 6u16.to_le_bytes());
    let e = layout
        .writer(&mut bytes)
        .set("gHalves.h", 1.0f32)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        e.kind(),
        &FillErrorKind::WrongScalarType {
            expected: ScalarType::Float16,
            found: ScalarType::Float32
        }
    );
}

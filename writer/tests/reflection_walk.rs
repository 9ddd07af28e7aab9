//! The reflection walk against the real Slang compiler: compile `tests/shaders/*.slang`, walk
//! the reflection, store it in a package and read it back through the validating reader, then
//! check concrete facts against the shader source and the SPIR-V Slang emitted.

use slangpack_format::{
    join_u64, BindingType, DeclKind, EntryDesc, EntryPointDesc, ModifierId, PackageBuilder,
    ParameterCategory, ReflectionBuilder, ScalarType, Stage, TypeKind, TypeLayout, ValueKind,
    VarLayout, ABSENT, UNBOUNDED,
};
use slangpack_reader::{Package, ReflectionView};
use slangpack_writer::compile::{CompileOptions, CompiledProgram, Compiler, Source};
use slangpack_writer::reflect::build_reflection;
use slangpack_writer::string_hash;
use std::collections::HashMap;

fn compile(name: &str) -> CompiledProgram {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shaders")
        .join(name);
    let source = Source::read(&path).expect("test shader");
    let compiler = Compiler::new().expect("Slang");
    compiler
        .compile(name, &source, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{}", e.diagnostics()))
}

/// Bakes the program's reflection into a one-entry package and opens it with the reader.
fn package(program: &CompiledProgram, builder: ReflectionBuilder) -> Package {
    let mut pb = PackageBuilder::new();
    let reflection = pb.add_reflection(builder.finish());
    let entry_points = program
        .entry_points
        .iter()
        .enumerate()
        .map(|(i, ep)| EntryPointDesc {
            name: ep.name.clone(),
            spirv_entry_name: ep.spirv_entry_name.clone(),
            stage: Stage::from_raw(ep.stage),
            thread_group_size: ep.thread_group_size,
            wave_size: ep.wave_size,
            spirv: pb.add_spirv(&ep.spirv),
            reflection_entry_point: Some(i as u32),
        })
        .collect();
    pb.add_entry(EntryDesc {
        key: "test".into(),
        reflection: Some(reflection),
        entry_points,
        dependencies: vec![],
        options_hash: 0,
    })
    .expect("entry");
    Package::from_bytes(&pb.finish().expect("package")).expect("the reader accepts the walk")
}

fn walked(name: &str) -> (CompiledProgram, Package) {
    let program = compile(name);
    let builder = build_reflection(&program).expect("walk");
    let package = package(&program, builder);
    (program, package)
}

fn view(package: &Package) -> ReflectionView<'_> {
    package.load("test").expect("entry").reflection().unwrap()
}

/// The one var layout named `name` (the walk stores each Slang var layout once).
fn var_layout<'a>(v: &ReflectionView<'a>, name: &str) -> &'a VarLayout {
    let found: Vec<&VarLayout> = v
        .var_layouts()
        .iter()
        .filter(|vl| v.string(vl.name) == name)
        .collect();
    assert_eq!(found.len(), 1, "var layouts named {name}");
    found[0]
}

fn type_layout<'a>(v: &ReflectionView<'a>, index: u32) -> &'a TypeLayout {
    &v.type_layouts()[index as usize]
}

fn offset(v: &ReflectionView<'_>, vl: &VarLayout, category: ParameterCategory) -> Option<u32> {
    v.var_layout_offset(vl, category).map(|o| o.offset)
}

fn field_names(v: &ReflectionView<'_>, tl: &TypeLayout) -> Vec<String> {
    v.struct_fields(tl)
        .map(|f| v.string(f.name).to_string())
        .collect()
}

/// `(set, binding)` of every SPIR-V variable by `OpName`, from `OpDecorate` (test-only scan).
fn spirv_bindings(words: &[u32]) -> HashMap<String, (u32, u32)> {
    const OP_NAME: u32 = 5;
    const OP_DECORATE: u32 = 71;
    const BINDING: u32 = 33;
    const DESCRIPTOR_SET: u32 = 34;
    let mut names = HashMap::new();
    let mut sets = HashMap::new();
    let mut bindings = HashMap::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        assert!(count > 0 && i + count <= words.len(), "malformed SPIR-V");
        let operands = &words[i + 1..i + count];
        if op == OP_NAME {
            let bytes: Vec<u8> = operands[1..]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            names.insert(operands[0], String::from_utf8(bytes).expect("name"));
        } else if op == OP_DECORATE && operands.len() == 3 && operands[1] == BINDING {
            bindings.insert(operands[0], operands[2]);
        } else if op == OP_DECORATE && operands.len() == 3 && operands[1] == DESCRIPTOR_SET {
            sets.insert(operands[0], operands[2]);
        }
        i += count;
    }
    bindings
        .into_iter()
        .map(|(id, binding)| (names[&id].clone(), (sets[&id], binding)))
        .collect()
}

#[test]
fn constant_buffer_struct_fields_offsets_and_binding() {
    let (program, package) = walked("walk.slang");
    let v = view(&package);
    let spirv = spirv_bindings(&program.entry_points[0].spirv);

    let params = var_layout(&v, "gParams");
    let cb = type_layout(&v, params.type_layout);
    assert_eq!(TypeKind::from_raw(cb.kind), TypeKind::ConstantBuffer);
    let binding = offset(&v, params, ParameterCategory::DescriptorTableSlot);
    assert_eq!(binding, Some(spirv["gParams"].1));
    assert_eq!(params.binding_space, spirv["gParams"].0);

    let element = type_layout(&v, cb.element_type_layout);
    assert_eq!(TypeKind::from_raw(element.kind), TypeKind::Struct);
    assert_eq!(
        field_names(&v, element),
        ["albedo", "roughness", "metallic", "lights", "mode"]
    );
    let offsets: Vec<u32> = v.struct_fields(element).map(|f| f.uniform_offset).collect();
    assert_eq!(offsets, [0, 16, 20, 32, 80]);
    assert_eq!(element.uniform_size, 96);
    assert_eq!(
        v.string(v.types()[element.type_index as usize].name),
        "MaterialParams"
    );

    let lights = v.struct_fields(element).nth(3).expect("lights");
    let lights_layout = type_layout(&v, lights.type_layout);
    assert_eq!(TypeKind::from_raw(lights_layout.kind), TypeKind::Array);
    assert_eq!(lights_layout.uniform_size, 48);
    assert_eq!(lights_layout.element_stride, 16);
    let lights_type = &v.types()[lights_layout.type_index as usize];
    assert_eq!(lights_type.element_count, 3);
    assert_eq!(
        v.string(v.types()[lights_type.element_type as usize].name),
        "Light"
    );
    let light = type_layout(&v, lights_layout.element_type_layout);
    assert_eq!(field_names(&v, light), ["color", "intensity"]);
    let color_type = &v.types()
        [type_layout(&v, v.struct_fields(light).next().unwrap().type_layout).type_index as usize];
    assert_eq!(TypeKind::from_raw(color_type.kind), TypeKind::Vector);
    assert_eq!(
        ScalarType::from_raw(color_type.scalar_type),
        ScalarType::Float32
    );
    assert_eq!(color_type.column_count, 3);
}

#[test]
fn implicit_global_constant_buffer_matches_spirv() {
    let (program, package) = walked("walk.slang");
    let v = view(&package);
    let spirv = spirv_bindings(&program.entry_points[0].spirv);
    // `uniform float gScale; uniform float4x4 gTransform;` beside gTexture at binding 0: Slang
    // puts the implicit buffer at binding 1 of set 0 (and names it globalParams).
    let (set, binding) = spirv["globalParams"];
    assert_eq!(v.global_constant_buffer_binding(), Some(binding));
    assert_eq!(v.global_constant_buffer_space(), Some(set));
    assert_eq!((set, binding), (0, 1));
    // gScale at 0, gTransform at 16 (64 bytes), gExposure-free: 80 bytes.
    assert_eq!(v.global_constant_buffer_size(), 80);
    assert_eq!(var_layout(&v, "gTransform").uniform_offset, 16);

    let header = v.header();
    assert_eq!(header.entry_point_count, 1);
    let globals = v
        .global_params_var_layout()
        .expect("global params var layout");
    assert_eq!(globals.type_layout, header.global_params_type_layout);
    // Every explicitly and implicitly bound global agrees with the SPIR-V decorations.
    for name in ["gTexture", "gParams", "gOut", "gImage", "gBindless", "gBox"] {
        let vl = var_layout(&v, name);
        let slot = offset(&v, vl, ParameterCategory::DescriptorTableSlot);
        assert_eq!(slot, Some(spirv[name].1), "{name} binding");
        assert_eq!(vl.binding_space, spirv[name].0, "{name} set");
    }
}

#[test]
fn parameter_block_sub_object_range_and_space() {
    let (program, package) = walked("walk.slang");
    let v = view(&package);
    let spirv = spirv_bindings(&program.entry_points[0].spirv);
    let material = var_layout(&v, "gMaterial");
    let block = type_layout(&v, material.type_layout);
    assert_eq!(TypeKind::from_raw(block.kind), TypeKind::ParameterBlock);

    // The global scope's binding range for gMaterial is a ParameterBlock range with a
    // sub-object range pointing back at it.
    let globals = v.global_params_type_layout().expect("global type layout");
    let globals = if TypeKind::from_raw(globals.kind) == TypeKind::ConstantBuffer {
        type_layout(&v, globals.element_type_layout)
    } else {
        globals
    };
    let ranges = v.type_layout_binding_ranges(globals);
    let (index, range) = ranges
        .iter()
        .enumerate()
        .find(|(_, r)| {
            r.leaf_variable != ABSENT
                && v.string(v.variables()[r.leaf_variable as usize].name) == "gMaterial"
        })
        .expect("gMaterial's binding range");
    assert_eq!(
        BindingType::from_raw(range.binding_type),
        BindingType::ParameterBlock
    );
    assert_ne!(range.sub_object_range, ABSENT);
    let sub_object = &v.sub_object_ranges()[range.sub_object_range as usize];
    assert_eq!(
        sub_object.binding_range,
        globals.binding_range_first + index as u32
    );
    assert!(v
        .type_layout_sub_object_ranges(globals)
        .iter()
        .any(|s| s == sub_object));

    // The block owns Vulkan set 1: its register-space offset, as in the SPIR-V.
    let (set, _) = spirv["gMaterial.albedoMap"];
    assert_eq!(set, 1);
    let space = offset(&v, material, ParameterCategory::SubElementRegisterSpace)
        .or_else(|| offset(&v, material, ParameterCategory::RegisterSpace));
    assert_eq!(space, Some(set));

    // Inside the block: the implicit uniform buffer at binding 0 (container), then
    // albedoMap at binding 1 (element var layout offset + field offset).
    let container = &v.var_layouts()[block.container_var_layout as usize];
    assert_eq!(
        offset(&v, container, ParameterCategory::DescriptorTableSlot),
        Some(0)
    );
    let element = &v.var_layouts()[block.element_var_layout as usize];
    let element_layout = type_layout(&v, element.type_layout);
    assert_eq!(
        field_names(&v, element_layout),
        ["params", "albedoMap", "sampler"]
    );
    let albedo_map = v.struct_fields(element_layout).nth(1).unwrap();
    let base = offset(&v, element, ParameterCategory::DescriptorTableSlot).unwrap();
    let field = offset(&v, albedo_map, ParameterCategory::DescriptorTableSlot).unwrap();
    assert_eq!(base + field, spirv["gMaterial.albedoMap"].1);

    // The element's descriptor set lists a texture and a sampler range.
    let sets = v.type_layout_descriptor_sets(element_layout);
    assert_eq!(sets.len(), 1);
    let kinds: Vec<BindingType> = v
        .descriptor_set_ranges(&sets[0])
        .iter()
        .map(|r| BindingType::from_raw(r.binding_type))
        .collect();
    assert_eq!(kinds, [BindingType::Texture, BindingType::Sampler]);
    // Each binding range's absolute descriptor range is one of its set's ranges, same kind.
    for range in v.type_layout_binding_ranges(element_layout) {
        let set = &v.descriptor_sets()[range.descriptor_set as usize];
        let first = range.first_descriptor_range;
        assert!(first >= set.descriptor_range_first);
        assert!(first < set.descriptor_range_first + set.descriptor_range_count);
        assert_eq!(
            v.descriptor_ranges()[first as usize].binding_type,
            range.binding_type
        );
    }
}

#[test]
fn resources_image_format_and_unbounded_array() {
    let (_, package) = walked("walk.slang");
    let v = view(&package);
    let by_leaf = |name: &str| {
        v.binding_ranges()
            .iter()
            .find(|r| {
                r.leaf_variable != ABSENT
                    && v.string(v.variables()[r.leaf_variable as usize].name) == name
            })
            .unwrap_or_else(|| panic!("binding range of {name}"))
    };
    // [[vk::image_format("rgba8")]]: SLANG_IMAGE_FORMAT_rgba8 = 10.
    let image = by_leaf("gImage");
    assert_eq!(image.image_format, 10);
    assert_eq!(
        BindingType::from_raw(image.binding_type),
        BindingType::MutableTexture
    );
    assert_eq!(var_layout(&v, "gImage").image_format, 10);
    assert_eq!(by_leaf("gTexture").image_format, 0);

    let bindless = by_leaf("gBindless");
    assert_eq!(bindless.binding_count, UNBOUNDED);
    let range = &v.descriptor_ranges()[bindless.first_descriptor_range as usize];
    assert_eq!(range.descriptor_count, UNBOUNDED);
    let ty =
        &v.types()[type_layout(&v, var_layout(&v, "gBindless").type_layout).type_index as usize];
    assert_eq!(TypeKind::from_raw(ty.kind), TypeKind::Array);
    assert_eq!(ty.element_count, UNBOUNDED);

    let out = by_leaf("gOut");
    assert_eq!(
        BindingType::from_raw(out.binding_type),
        BindingType::MutableRawBuffer
    );
    let out_type =
        &v.types()[type_layout(&v, var_layout(&v, "gOut").type_layout).type_index as usize];
    assert_eq!(
        v.string(out_type.full_name),
        "RWStructuredBuffer<uint, DefaultDataLayout>"
    );
    assert_eq!(TypeKind::from_raw(out_type.kind), TypeKind::Resource);
    assert_eq!(
        out_type.resource_shape & 0x0f,
        0x06,
        "SLANG_STRUCTURED_BUFFER"
    );
}

#[test]
fn entry_point_stage_thread_group_and_parameters() {
    let (program, package) = walked("walk.slang");
    let v = view(&package);
    let entry = package.load("test").unwrap();
    let ep = entry.entry_points().next().unwrap();
    let layout = ep.layout().expect("entry point layout");
    assert_eq!(v.string(layout.name), "main");
    assert_eq!(Stage::from_raw(layout.stage), Stage::Compute);
    assert_eq!(
        [
            layout.thread_group_size_x,
            layout.thread_group_size_y,
            layout.thread_group_size_z
        ],
        [8, 4, 2]
    );
    assert_eq!(program.entry_points[0].thread_group_size, [8, 4, 2]);
    let params: Vec<&str> = v
        .entry_point_parameters(layout)
        .map(|p| v.string(p.name))
        .collect();
    assert_eq!(params, ["tid", "gain"]);
    let tid = v.entry_point_parameters(layout).next().unwrap();
    assert_eq!(
        v.string(tid.semantic_name).to_ascii_uppercase(),
        "SV_DISPATCHTHREADID"
    );
    // `uniform float gain` makes the entry point's own constant buffer.
    assert_eq!(layout.has_default_constant_buffer, 1);
    let function = &v.functions()[layout.function as usize];
    assert_eq!(v.string(function.name), "main");
    assert_eq!(function.parameter_count, 2);
    assert_eq!(
        ScalarType::from_raw(v.types()[function.return_type as usize].scalar_type),
        ScalarType::Void
    );
}

#[test]
fn user_attributes_with_float_string_and_int_arguments() {
    let (_, package) = walked("walk.slang");
    let v = view(&package);
    let field = |name: &str| {
        v.variables()
            .iter()
            .find(|var| v.string(var.name) == name && var.attribute_count > 0)
            .unwrap_or_else(|| panic!("{name} with attributes"))
    };
    let roughness = field("roughness");
    let attributes = v.variable_attributes(roughness);
    assert_eq!(attributes.len(), 1);
    assert_eq!(v.string(attributes[0].name), "Range");
    let args = v.attribute_arguments(&attributes[0]);
    let floats: Vec<(ValueKind, f64)> = args
        .iter()
        .map(|a| {
            (
                ValueKind::from_raw(a.kind),
                f64::from_bits(join_u64(a.value_lo, a.value_hi)),
            )
        })
        .collect();
    assert_eq!(floats, [(ValueKind::Float, 0.0), (ValueKind::Float, 1.0)]);

    let metallic = field("metallic");
    let attributes = v.variable_attributes(metallic);
    assert_eq!(v.string(attributes[0].name), "Display");
    let args = v.attribute_arguments(&attributes[0]);
    assert_eq!(ValueKind::from_raw(args[0].kind), ValueKind::String);
    assert_eq!(v.string(args[0].value_lo), "Metal");
    assert_eq!(ValueKind::from_raw(args[1].kind), ValueKind::Int);
    assert_eq!(join_u64(args[1].value_lo, args[1].value_hi) as i64, 7);
    assert_eq!(v.string(v.types()[args[1].type_index as usize].name), "int");
}

#[test]
fn default_values_and_modifiers() {
    let (_, package) = walked("walk.slang");
    let v = view(&package);
    let variable = |name: &str| {
        v.variables()
            .iter()
            .find(|var| v.string(var.name) == name)
            .unwrap_or_else(|| panic!("variable {name}"))
    };
    let roughness = variable("roughness");
    assert_eq!(
        ValueKind::from_raw(roughness.default_kind),
        ValueKind::Float
    );
    assert_eq!(
        f64::from_bits(join_u64(roughness.default_lo, roughness.default_hi)),
        0.5
    );
    let mode = variable("mode");
    assert_eq!(ValueKind::from_raw(mode.default_kind), ValueKind::Int);
    assert_eq!(join_u64(mode.default_lo, mode.default_hi), 2);
    assert_eq!(
        ValueKind::from_raw(variable("metallic").default_kind),
        ValueKind::None
    );

    let count = variable("kCount");
    assert_eq!(join_u64(count.default_lo, count.default_hi), 4);
    let ids = |name: &str| -> Vec<ModifierId> {
        v.variable_modifiers(variable(name))
            .iter()
            .map(|m| ModifierId::from_raw(m.id))
            .collect()
    };
    assert_eq!(ids("kCount"), [ModifierId::Static, ModifierId::Const]);
    assert_eq!(ids("x"), [ModifierId::In]);
    assert_eq!(ids("y"), [ModifierId::Out]);
    assert!(ids("z").contains(&ModifierId::InOut));
    assert!(ids("gScale").is_empty());
}

#[test]
fn generics_and_specialized_types() {
    let (_, package) = walked("walk.slang");
    let v = view(&package);
    let generic = |name: &str| {
        v.generics()
            .iter()
            .find(|g| v.string(g.name) == name)
            .unwrap_or_else(|| panic!("generic {name}"))
    };
    let twice = generic("twice");
    assert_eq!(DeclKind::from_raw(twice.inner_kind), DeclKind::Func);
    assert_eq!(twice.type_parameter_count, 1);
    let t = v.pool_slice(twice.type_parameter_pool, 1)[0];
    assert_eq!(v.string(v.variables()[t as usize].name), "T");
    assert_eq!(twice.constraint_count, 1);
    let pair = v.pool_slice(twice.constraint_pool, 2);
    assert_eq!(pair[0], t);
    assert_eq!(v.string(v.types()[pair[1] as usize].name), "IArithmetic");
    let inner = &v.decls()[twice.inner_decl as usize];
    assert_eq!(v.string(inner.name), "twice");

    // ConstantBuffer<Box<float4>>: the element type is the specialized Box, whose generic
    // container is Box.
    let cb = type_layout(&v, var_layout(&v, "gBox").type_layout);
    let boxed = &v.types()[v.types()[cb.type_index as usize].element_type as usize];
    assert_eq!(v.string(boxed.full_name), "Box<vector<float,4>>");
    assert_eq!(
        v.string(v.generics()[boxed.generic_container as usize].name),
        "Box"
    );
}

#[test]
fn declaration_tree() {
    let (_, package) = walked("walk.slang");
    let v = view(&package);
    let root = v.root_decl().expect("root decl");
    assert_eq!(v.header().root_decl, 0);
    assert_eq!(DeclKind::from_raw(root.kind), DeclKind::Module);
    assert_eq!(v.string(root.name), "walk");
    assert_eq!(root.parent, ABSENT);
    let children: Vec<(DeclKind, &str)> = v
        .decl_children(root)
        .map(|d| (DeclKind::from_raw(d.kind), v.string(d.name)))
        .collect();
    for expected in [
        (DeclKind::Struct, "MaterialParams"),
        (DeclKind::Generic, "Box"),
        (DeclKind::Variable, "gParams"),
        (DeclKind::Generic, "twice"),
        (DeclKind::Func, "scaled"),
        (DeclKind::Func, "main"),
    ] {
        assert!(children.contains(&expected), "{expected:?} in {children:?}");
    }
    for (i, child) in v.decl_children(root).enumerate() {
        assert_eq!(v.decl_parent(child), Some(root), "child {i}");
    }
    let find = |name: &str| {
        v.decl_children(root)
            .find(|d| v.string(d.name) == name)
            .unwrap()
    };
    let params = find("MaterialParams");
    assert_eq!(
        v.string(v.types()[params.payload as usize].name),
        "MaterialParams"
    );
    let fields: Vec<&str> = v
        .decl_children(params)
        .filter(|d| DeclKind::from_raw(d.kind) == DeclKind::Variable)
        .map(|d| v.string(d.name))
        .collect();
    assert_eq!(
        fields,
        ["albedo", "roughness", "metallic", "lights", "mode"]
    );
    let scaled = find("scaled");
    let function = &v.functions()[scaled.payload as usize];
    assert_eq!(v.string(function.name), "scaled");
    assert_eq!(function.parameter_count, 3);
    let g = find("gParams");
    assert_eq!(v.string(v.variables()[g.payload as usize].name), "gParams");
    let twice = find("twice");
    assert_eq!(v.string(v.generics()[twice.payload as usize].name), "twice");
}

#[test]
fn hashed_strings_carry_slangs_hash() {
    let (program, package) = walked("walk.slang");
    let v = view(&package);
    let hashed: Vec<(&str, u32)> = v
        .hashed_strings()
        .iter()
        .map(|h| (v.string(h.string), h.hash))
        .collect();
    assert_eq!(
        hashed,
        [
            ("slangpack", string_hash("slangpack")),
            ("hello world", string_hash("hello world"))
        ]
    );
    // The value the shader computes with getStringHash is a constant in the SPIR-V.
    let words = &program.entry_points[0].spirv;
    for (s, hash) in hashed {
        assert!(
            words.contains(&hash),
            "getStringHash({s:?}) = {hash:#x} in the SPIR-V"
        );
    }
    // A wrong hash (e.g. FNV-1a, which some tools use) would not be there.
    let fnv = "slangpack".bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    assert!(!words.contains(&fnv));
}

#[test]
fn records_are_deduplicated_and_output_deterministic() {
    let program = compile("walk.slang");
    let first = build_reflection(&program).expect("walk");
    // A second compilation (new global session, new Slang objects at new addresses).
    let second = build_reflection(&compile("walk.slang")).expect("walk");
    let package = package(&program, first.clone());
    let v = view(&package);
    // Strings are interned: no string appears twice.
    let mut seen = std::collections::HashSet::new();
    for i in 0..v.string_refs().len() as u32 {
        assert!(
            seen.insert(v.string(i)),
            "string {:?} stored twice",
            v.string(i)
        );
    }
    // A Slang var layout reached from the global scope and from the program's parameter
    // list is one record (var_layout() asserts uniqueness by name).
    for name in [
        "gScale",
        "gTexture",
        "gMaterial",
        "gParams",
        "gOut",
        "gImage",
    ] {
        var_layout(&v, name);
    }
    // The same program compiled and walked twice gives the same bytes.
    assert_eq!(first.finish(), second.finish());
}

#[test]
fn every_example_shader_walks_and_validates() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders");
    let compiler = Compiler::new().expect("Slang");
    let mut walked = 0;
    for entry in std::fs::read_dir(&root).expect("examples") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "slang") {
            continue;
        }
        let source = Source::read(&path).expect("read");
        let program = compiler
            .compile("example", &source, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.diagnostics()));
        let builder = build_reflection(&program).expect("walk");
        let package = package(&program, builder);
        let v = view(&package);
        assert_eq!(
            v.entry_points().len(),
            program.entry_points.len(),
            "{}",
            path.display()
        );
        for (ep, compiled) in v.entry_points().iter().zip(&program.entry_points) {
            assert_eq!(v.string(ep.name), compiled.name);
            assert_eq!(ep.stage, compiled.stage);
        }
        walked += 1;
    }
    assert!(walked >= 3, "walked {walked} example shaders");
}

#[test]
fn vertex_fragment_varyings_push_constants_and_specialization_constants() {
    let (program, package) = walked("raster.slang");
    let v = view(&package);
    let eps = v.entry_points();
    assert_eq!(eps.len(), 2);
    assert_eq!(v.string(eps[0].name), "vertexMain");
    assert_eq!(Stage::from_raw(eps[0].stage), Stage::Vertex);
    assert_eq!(v.string(eps[1].name), "fragmentMain");
    assert_eq!(Stage::from_raw(eps[1].stage), Stage::Fragment);
    assert_eq!(program.entry_points[1].stage, eps[1].stage);

    // Vertex inputs: semantics split into name + index, locations as VaryingInput offsets,
    // system values occupying no location.
    let input = v.entry_point_parameters(&eps[0]).next().unwrap();
    let input_layout = type_layout(&v, input.type_layout);
    let varyings: Vec<(String, u32, Option<u32>)> = v
        .struct_fields(input_layout)
        .map(|f| {
            (
                v.string(f.semantic_name).to_string(),
                f.semantic_index,
                offset(&v, f, ParameterCategory::VaryingInput),
            )
        })
        .collect();
    assert_eq!(
        varyings,
        [
            ("POSITION".into(), 0, Some(0)),
            ("TEXCOORD".into(), 0, Some(1))
        ]
    );
    let vertex_id = v.entry_point_parameters(&eps[0]).nth(1).unwrap();
    assert_eq!(v.string(vertex_id.semantic_name), "SV_VERTEXID");
    assert_eq!(vertex_id.category_count, 0);

    // Outputs: the vertex result's TEXCOORD3, the fragment result's SV_Target.
    let out = &v.var_layouts()[eps[0].result_var_layout as usize];
    let uv = v
        .struct_fields(type_layout(&v, out.type_layout))
        .nth(1)
        .unwrap();
    assert_eq!(
        (v.string(uv.semantic_name), uv.semantic_index),
        ("TEXCOORD", 3)
    );
    assert_eq!(Stage::from_raw(uv.stage), Stage::Vertex);
    let target = &v.var_layouts()[eps[1].result_var_layout as usize];
    assert_eq!(v.string(target.semantic_name), "SV_TARGET");
    assert_eq!(
        offset(&v, target, ParameterCategory::VaryingOutput),
        Some(0)
    );

    // [[vk::push_constant]]: a push-constant range, not a descriptor.
    let push = var_layout(&v, "gPush");
    assert_eq!(
        offset(&v, push, ParameterCategory::PushConstantBuffer),
        Some(0)
    );
    assert_eq!(
        offset(&v, push, ParameterCategory::DescriptorTableSlot),
        None
    );
    let push_range = v
        .binding_ranges()
        .iter()
        .find(|r| {
            r.leaf_variable != ABSENT
                && v.string(v.variables()[r.leaf_variable as usize].name) == "gPush"
        })
        .unwrap();
    assert_eq!(
        BindingType::from_raw(push_range.binding_type),
        BindingType::PushConstant
    );
    let push_element = type_layout(&v, type_layout(&v, push.type_layout).element_type_layout);
    let push_offsets: Vec<u32> = v
        .struct_fields(push_element)
        .map(|f| f.uniform_offset)
        .collect();
    assert_eq!(push_offsets, [0, 64]);

    // [SpecializationConstant]: constant id 0, default 2.
    let variant = var_layout(&v, "kVariant");
    assert_eq!(
        offset(&v, variant, ParameterCategory::SpecializationConstant),
        Some(0)
    );
    let variable = &v.variables()[variant.variable as usize];
    assert_eq!(ValueKind::from_raw(variable.default_kind), ValueKind::Int);
    assert_eq!(join_u64(variable.default_lo, variable.default_hi), 2);

    // Sampler2D: a combined texture-sampler whose raw shape keeps the combined flag (0x100).
    let combined = var_layout(&v, "gCombined");
    let combined_type = &v.types()[type_layout(&v, combined.type_layout).type_index as usize];
    assert_eq!(combined_type.resource_shape, 0x102);
    assert!(v
        .binding_ranges()
        .iter()
        .any(|r| r.leaf_variable == combined.variable
            && BindingType::from_raw(r.binding_type) == BindingType::CombinedTextureSampler));
    let spirv = spirv_bindings(&program.entry_points[1].spirv);
    assert_eq!(
        offset(&v, combined, ParameterCategory::DescriptorTableSlot),
        Some(spirv["gCombined"].1)
    );

    // No uniform globals: no implicit global constant buffer.
    assert_eq!(v.global_constant_buffer_binding(), None);
    assert_eq!(v.global_constant_buffer_size(), 0);
}

#[test]
fn attributes_on_types_and_functions_and_enum_decls() {
    let (_, package) = walked("raster.slang");
    let v = view(&package);
    let push_data = v
        .types()
        .iter()
        .find(|t| v.string(t.name) == "PushData")
        .unwrap();
    let attributes = v.type_attributes(push_data);
    assert_eq!(attributes.len(), 1);
    assert_eq!(v.string(attributes[0].name), "MaterialTag");
    let arg = &v.attribute_arguments(&attributes[0])[0];
    assert_eq!(ValueKind::from_raw(arg.kind), ValueKind::String);
    assert_eq!(v.string(arg.value_lo), "say \"hi\"");

    let vertex = &v.functions()[v.entry_points()[0].function as usize];
    let attributes = v.function_attributes(vertex);
    assert_eq!(attributes.len(), 1);
    assert_eq!(v.string(attributes[0].name), "Pass");
    let args = v.attribute_arguments(&attributes[0]);
    assert_eq!(ValueKind::from_raw(args[0].kind), ValueKind::Int);
    assert_eq!(join_u64(args[0].value_lo, args[0].value_hi), 1);
    assert_eq!(ValueKind::from_raw(args[1].kind), ValueKind::Float);
    assert_eq!(
        f64::from_bits(join_u64(args[1].value_lo, args[1].value_hi)),
        0.25
    );

    // `enum class Mode` is SLANG_DECL_KIND_ENUM (7), with its type as payload.
    let root = v.root_decl().unwrap();
    let mode = v
        .decl_children(root)
        .find(|d| v.string(d.name) == "Mode")
        .unwrap();
    assert_eq!(mode.kind, 7);
    let mode_type = &v.types()[mode.payload as usize];
    assert_eq!(TypeKind::from_raw(mode_type.kind), TypeKind::Enum);
}

#[test]
fn interfaces_counters_nested_blocks_and_every_resource_shape() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/exotic.slang");
    let source = Source::read(&path).expect("test shader");
    let options = CompileOptions {
        conformances: vec![("Glossy".into(), "ISurface".into())],
        ..CompileOptions::default()
    };
    let program = Compiler::new()
        .expect("Slang")
        .compile("exotic", &source, &options)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics()));
    let builder = build_reflection(&program).expect("walk");
    let package = package(&program, builder);
    let v = view(&package);
    let spirv = spirv_bindings(&program.entry_points[0].spirv);
    let slot = |vl: &VarLayout| offset(&v, vl, ParameterCategory::DescriptorTableSlot).unwrap();
    let space =
        |vl: &VarLayout| offset(&v, vl, ParameterCategory::SubElementRegisterSpace).unwrap();

    // Nested ParameterBlocks: gOuter owns set 2, its `inner` block set 3.
    let outer = var_layout(&v, "gOuter");
    let outer_element =
        &v.var_layouts()[type_layout(&v, outer.type_layout).element_var_layout as usize];
    let inner = v
        .struct_fields(type_layout(&v, outer_element.type_layout))
        .find(|f| v.string(f.name) == "inner")
        .unwrap();
    assert_eq!(space(outer), spirv["gOuter"].0);
    // Offsets accumulate down the path: block, its element, the field.
    assert_eq!(
        space(outer) + space(outer_element) + space(inner),
        spirv["gOuter.inner.maps"].0
    );

    // An append buffer's explicit counter: a var layout named `counter` one slot on.
    let append = var_layout(&v, "gAppend");
    let counter_index = type_layout(&v, append.type_layout).explicit_counter_var_layout;
    assert_ne!(counter_index, ABSENT);
    let counter = &v.var_layouts()[counter_index as usize];
    assert_eq!(v.string(counter.name), "counter");
    assert_eq!(slot(append), spirv["gAppend.elements"].1);
    assert_eq!(slot(append) + slot(counter), spirv["gAppend.counter"].1);

    // An interface-typed block: existential categories and a specializable binding range.
    let surface = var_layout(&v, "gSurface");
    assert!(v
        .var_layout_offsets(surface)
        .any(|o| o.category == ParameterCategory::ExistentialTypeParam));
    assert_eq!(space(surface), spirv["gSurface"].0);
    assert!(v.binding_ranges().iter().any(|r| r.is_specializable == 1));

    // Raw resource shapes and binding types, flags included.
    let shape = |name: &str| {
        let tl = type_layout(&v, var_layout(&v, name).type_layout);
        v.types()[tl.type_index as usize].resource_shape
    };
    assert_eq!(shape("gMultisampled"), 0x82, "Texture2D | MULTISAMPLE");
    assert_eq!(shape("gCubes"), 0x44, "TextureCube | ARRAY");
    assert_eq!(shape("gBytes"), 0x07);
    assert_eq!(shape("gScene"), 0x09);
    assert_eq!(shape("gTyped"), 0x05);
    let scene = var_layout(&v, "gScene");
    assert!(v
        .binding_ranges()
        .iter()
        .any(|r| r.leaf_variable == scene.variable
            && BindingType::from_raw(r.binding_type)
                == BindingType::RayTracingAccelerationStructure));
    for name in [
        "gBytes",
        "gRwBytes",
        "gMultisampled",
        "gCubes",
        "gVolume",
        "gLine",
        "gTyped",
        "gSampler",
    ] {
        assert_eq!(slot(var_layout(&v, name)), spirv[name].1, "{name}");
    }

    // A generic struct with a value parameter, specialized: Sized<3>.
    let sized = type_layout(
        &v,
        type_layout(&v, var_layout(&v, "gSized").type_layout).element_type_layout,
    );
    assert_eq!(
        v.string(v.types()[sized.type_index as usize].full_name),
        "Sized<3>"
    );
    let fields: Vec<&VarLayout> = v.struct_fields(sized).collect();
    let values = &v.types()[type_layout(&v, fields[0].type_layout).type_index as usize];
    assert_eq!(values.element_count, 3);
    let packed = &v.types()[type_layout(&v, fields[1].type_layout).type_index as usize];
    assert_eq!((packed.column_count, fields[1].uniform_offset), (3, 48));

    // The declaration tree through namespaces and nested types; declarations inside a
    // generic (whose sizes depend on its parameters) are listed without a payload.
    let root = v.root_decl().expect("root");
    let child = |parent: &slangpack_format::Decl, name: &str| {
        *v.decl_children(parent)
            .find(|d| v.string(d.name) == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let lighting = child(root, "lighting");
    assert_eq!(DeclKind::from_raw(lighting.kind), DeclKind::Namespace);
    let probe = child(&lighting, "Probe");
    assert_eq!(v.string(v.types()[probe.payload as usize].name), "Probe");
    let falloff = child(&lighting, "falloff");
    assert_eq!(
        v.string(v.functions()[falloff.payload as usize].name),
        "falloff"
    );
    let nested = child(&child(root, "Outer2"), "Nested");
    assert_eq!(DeclKind::from_raw(nested.kind), DeclKind::Struct);
    let holder = child(root, "Holder");
    assert_eq!(DeclKind::from_raw(holder.kind), DeclKind::Generic);
    let generic = &v.generics()[holder.payload as usize];
    assert_eq!(
        (generic.type_parameter_count, generic.value_parameter_count),
        (1, 1)
    );
    let inner_decl = &v.decls()[generic.inner_decl as usize];
    assert_eq!(DeclKind::from_raw(inner_decl.kind), DeclKind::Struct);
    assert_eq!(inner_decl.payload, ABSENT);
}
#[test]
fn reflection_does_not_depend_on_where_the_sources_sit() {
    // A two-module program (layered imports common), compiled from the examples and from a
    // copy elsewhere: the walks give the same bytes.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders/layered");
    let copy = tempfile::tempdir().expect("temp dir");
    for name in ["common.slang", "layered.slang"] {
        std::fs::copy(dir.join(name), copy.path().join(name)).expect("copy");
    }
    let walk_at = |path: &std::path::Path| {
        let source = Source::read(&path.join("layered.slang")).expect("read");
        let program = Compiler::new()
            .expect("Slang")
            .compile("layered", &source, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{}", e.diagnostics()));
        build_reflection(&program).expect("walk").finish()
    };
    let here = walk_at(&dir);
    assert!(here.len() > 64, "a non-trivial blob");
    assert!(
        here == walk_at(copy.path()),
        "the blob depends on the source location"
    );
}

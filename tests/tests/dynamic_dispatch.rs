//! An interface-typed value with several conforming types (dynamic dispatch), baked with
//! `--conformance A:I --conformance B:I`: the bind view states the existential's header, its
//! payload, each type's data over the payload's words and the conformance id the code
//! dispatches on, checked here against the SPIR-V's dispatch switch and spirv-cross.

use slangpack_format::bind::*;
use slangpack_reader::Package;
use slangpack_tests::layout;

/// The case literals of every `OpSwitch` of a module, read word by word (opcode 251: the
/// selector, the default label, then literal and label pairs).
fn switch_cases(words: &[u32]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if words[at] & 0xffff == 251 {
            let mut cases: Vec<u32> = words[at + 3..at + count]
                .iter()
                .step_by(2)
                .copied()
                .collect();
            cases.sort_unstable();
            out.push(cases);
        }
        at += count.max(1);
    }
    out
}

#[test]
fn a_dispatched_existential_states_each_types_id_and_layout_over_its_payload() {
    let shader = layout::test_shaders_dir().join("dispatch/light_env.toml");
    let package = Package::from_bytes(&layout::bake(&[shader])).unwrap();
    let entry = package.load("light_env").unwrap();
    let bind = entry.bind();
    let block = bind
        .bindings()
        .iter()
        .find(|b| bind.string(b.path) == "gLighting")
        .expect("gLighting");
    let buffer = bind.buffer_layout(block.buffer_layout).unwrap();
    let members: Vec<(&str, u32, u32, u32)> = bind
        .members(buffer)
        .iter()
        .map(|m| (bind.string(m.path), m.offset, m.size, m.flags))
        .collect();
    assert_eq!(
        members,
        [
            ("ambient", 0, 16, 0),
            ("env", 16, 32, MEMBER_EXISTENTIAL),
            ("env.typeId", 16, 8, 0),
            ("env.witnessId", 24, 8, 0),
            ("env.value", 32, 16, MEMBER_EXISTENTIAL_PAYLOAD),
            ("env.value.DirectionalLight", 32, 16, MEMBER_CONFORMANCE),
            ("env.value.DirectionalLight.towards", 32, 12, 0),
            ("env.value.DirectionalLight.strength", 44, 4, 0),
            ("env.value.PointLight", 32, 16, MEMBER_CONFORMANCE),
            ("env.value.PointLight.position", 32, 12, 0),
            ("env.value.PointLight.radius", 44, 4, 0),
        ]
    );
    // Each type's id, in --conformance order, with its header.
    let all = bind.members(buffer);
    let header = buffer.first_member + 1;
    let stated: Vec<(&str, &str, u32, u32)> = bind
        .conformances()
        .iter()
        .map(|c| {
            let m = &all[(c.member - buffer.first_member) as usize];
            (
                bind.string(m.name),
                bind.string(c.interface),
                c.id,
                c.existential,
            )
        })
        .collect();
    assert_eq!(
        stated,
        [
            ("DirectionalLight", "ILightEnv", 0, header),
            ("PointLight", "ILightEnv", 1, header),
        ]
    );
    let member_index = buffer.first_member + 5;
    assert_eq!(bind.conformance(member_index).map(|c| c.id), Some(0));
    assert_eq!(bind.conformance(header), None);

    // The fragment shader switches on the witness-table id with exactly those ids: the
    // writer's scan finds the switch on the uint2 at `env.witnessId` of set 1 binding 0, and
    // the module's switches read word by word include one over exactly these cases.
    let fragment = entry
        .entry_points()
        .find(|ep| ep.name() == "shade")
        .expect("shade");
    let ids: Vec<u32> = bind.conformances().iter().map(|c| c.id).collect();
    let found = slangpack_writer::spirv::dispatch::switches(fragment.spirv());
    assert!(
        found
            .iter()
            .any(|s| s.place == Some((1, 0)) && s.offset == 24 && s.cases == ids),
        "{found:?}"
    );
    assert!(switch_cases(fragment.spirv()).contains(&ids));

    // spirv-cross agrees on the block's size.
    let reflected = layout::spirv_cross_reflect(fragment.spirv()).unwrap();
    let ubo = reflected["ubos"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|u| u["set"] == 1 && u["binding"] == 0)
        .expect("spirv-cross: the block at set 1 binding 0");
    assert_eq!(ubo["block_size"], buffer.size);

    // The dump says each id, and its JSON document too.
    let json = slangpack_tools::dump::package_json(&package).to_string();
    assert!(
        json.contains(r#""conformance":{"id":1,"interface":"ILightEnv"}"#),
        "{json}"
    );
    let text = slangpack_tools::dump::summary(std::path::Path::new("light_env.slpk"), &package);
    assert!(
        text.contains("env.value.PointLight  struct  (ILightEnv conformance id 1)"),
        "{text}"
    );
}

/// The value as a bare global with a generic method: Slang's code generation fails on it
/// (crashing the compile worker, or with an internal error), for one conformance or two;
/// the bake's report names the value, Slang's defect and where to declare it instead.
#[test]
fn a_dispatched_global_names_slangs_defect_when_slang_fails_on_it() {
    let shader = layout::test_shaders_dir().join("dispatch/global_light_env.slang");
    for conforming in [
        &["DirectionalLight"][..],
        &["DirectionalLight", "PointLight"],
    ] {
        let mut config = slangpack_writer::bake::BakeConfig::new(vec![shader.clone()]);
        config.options.conformances = (conforming.iter())
            .map(|t| (t.to_string(), "ILightEnv".to_string()))
            .collect();
        let error = slangpack_writer::bake::bake(&config).unwrap_err();
        let report = format!("{error}\n{}", error.diagnostics());
        assert!(
            report.contains("`gLightEnv` is an interface-typed value (`ILightEnv`) in the global")
                && report.contains("shader-slang/slang#10314"),
            "{report}"
        );
    }
}

/// The same value as a parameter block of its own and as an entry point's `uniform` in push
/// constants (behind another member, so that the SPIR-V moves it): each type's data lies in
/// the payload where the SPIR-V has it, and the ids are the cases of the code's switch on the
/// `witnessId` (set and binding, or push constants, and offset).
#[test]
fn dispatched_blocks_and_push_constants_state_their_ids_where_the_spirv_switches() {
    for (shader, place, buffer, header, payload) in [
        (
            "light_env_block",
            Some((1, 0)),
            "gLightEnv",
            "existential",
            16,
        ),
        ("light_env_push", None, "light", "env", 24),
    ] {
        let path = layout::test_shaders_dir().join(format!("dispatch/{shader}.toml"));
        let package = Package::from_bytes(&layout::bake(&[path])).unwrap();
        let entry = package.load(shader).unwrap();
        let bind = entry.bind();
        let layout = (bind.buffer_layouts().iter())
            .find(|l| bind.string(l.name) == buffer)
            .expect(buffer);
        let all = bind.members(layout);
        let at = |path: &str| {
            let i = all.iter().position(|m| bind.string(m.path) == path);
            i.unwrap_or_else(|| panic!("{shader}: no `{path}`"))
        };
        let witness = all[at(&format!("{header}.witnessId"))].offset;
        assert_eq!(
            all[at(&format!("{header}.value"))].offset,
            payload,
            "{shader}"
        );
        for ty in ["DirectionalLight", "PointLight"] {
            let m = &all[at(&format!("{header}.value.{ty}"))];
            assert_eq!(
                (m.offset, m.flags),
                (payload, MEMBER_CONFORMANCE),
                "{shader}"
            );
        }
        let ids: Vec<u32> = bind.conformances().iter().map(|c| c.id).collect();
        assert_eq!(ids, [0, 1], "{shader}");
        let spirv = entry.entry_points().next().unwrap().spirv();
        let found = slangpack_writer::spirv::dispatch::switches(spirv);
        assert!(
            found
                .iter()
                .any(|s| s.place == place && s.offset == witness && s.cases == ids),
            "{shader}: {found:?}"
        );
    }
}

/// The bind header of a dispatched existential: the payload as its words (the types' data
/// overlap), a constant per type with its conformance id, and the C header compiles with its
/// own layout checks.
#[test]
fn the_bind_header_holds_the_payload_as_words_and_each_types_id() {
    use slangpack_tools::header::{generate, Language};
    let shader = layout::test_shaders_dir().join("dispatch/light_env.toml");
    let package = Package::from_bytes(&layout::bake(&[shader])).unwrap();
    let c = generate(&package, Language::C, None).unwrap();
    assert!(
        c.contains("#define LIGHT_ENV_G_LIGHTING_ENV_VALUE_DIRECTIONAL_LIGHT_ID 0u"),
        "{c}"
    );
    assert!(
        c.contains("#define LIGHT_ENV_G_LIGHTING_ENV_VALUE_POINT_LIGHT_ID 1u"),
        "{c}"
    );
    assert!(c.contains("uint32_t value[4];"), "{c}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("light_env.h");
    std::fs::write(&path, &c).unwrap();
    let main = dir.path().join("main.c");
    std::fs::write(
        &main,
        "#include \"light_env.h\"\nint main(void) { return 0; }\n",
    )
    .unwrap();
    let output = std::process::Command::new("gcc")
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fsyntax-only",
        ])
        .arg(&main)
        .output()
        .unwrap_or_else(|e| panic!("cannot run gcc: {e} (provisioning installs it)"));
    assert!(
        output.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rust = generate(&package, Language::Rust, None).unwrap();
    assert!(
        rust.contains("pub const G_LIGHTING_ENV_VALUE_POINT_LIGHT_ID: u32 = 1;"),
        "{rust}"
    );
}

//! Names are data, never code: hostile names in packages the reader accepts either become
//! identifiers that Rust, C and C++ compile with every warning an error, or `header` refuses
//! the package with an error naming the entry and showing the name escaped. Human-readable
//! output (`dump`, `diff`) shows control characters as escapes.

mod common;

use common::{Hostile, Member};
use slangpack_reader::Package;
use slangpack_tools::header::{check_identifiers, generate, Language};
use std::path::Path;
use std::process::Command;

const LANGUAGES: [Language; 3] = [Language::Rust, Language::C, Language::Cpp];

fn open(bytes: &[u8]) -> Package {
    Package::from_bytes(bytes).expect("the reader accepts the hostile package")
}

/// Compiles a generated header with every warning an error: Rust as a library, C as C11 and
/// GNU C11 (which predefines `unix` and `linux`), C++ as C++17. Panics with the compiler's
/// output and the header when one fails.
fn compiles(source: &str, language: Language, dir: &Path) {
    let (file, commands): (&str, Vec<Vec<&str>>) = match language {
        Language::Rust => (
            "bind.rs",
            vec![vec![
                "rustc",
                "--crate-type",
                "lib",
                "--edition",
                "2021",
                "-D",
                "warnings",
                "--crate-name",
                "bind",
                "--emit",
                "metadata",
            ]],
        ),
        Language::C => (
            "bind.h",
            vec![
                vec!["gcc", "-std=c11", "-pedantic"],
                vec!["gcc", "-std=gnu11"],
            ],
        ),
        Language::Cpp => ("bind.hpp", vec![vec!["g++", "-std=c++17", "-pedantic"]]),
    };
    let path = dir.join(file);
    std::fs::write(&path, source).unwrap();
    for command in commands {
        let mut cmd = Command::new(if command[0] == "rustc" {
            std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into())
        } else {
            command[0].to_string()
        });
        cmd.args(&command[1..]).current_dir(dir);
        if language == Language::Rust {
            let bytemuck = bytemuck_stub(dir);
            cmd.arg("--extern")
                .arg(format!("bytemuck={}", bytemuck.display()))
                .arg("--out-dir")
                .arg(dir)
                .arg(&path);
        } else {
            // A unit including the header, as a user's file would (`#pragma once` in a
            // main file is a warning).
            let unit = dir.join(if language == Language::C {
                "unit.c"
            } else {
                "unit.cpp"
            });
            std::fs::write(&unit, format!("#include \"{file}\"\n")).unwrap();
            cmd.args(["-Wall", "-Wextra", "-Werror", "-fsyntax-only"])
                .arg(&unit);
        }
        let output = cmd.output().unwrap_or_else(|e| panic!("{command:?}: {e}"));
        assert!(
            output.status.success(),
            "{command:?} refuses the generated header:\n{}\n{source}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// A proc-macro crate named `bytemuck` whose `Pod` and `Zeroable` derives expand to nothing,
/// built in `dir`: the generated Rust derives them, and a bare `rustc` has no registry crates.
/// (The real derives, and the padding check they make, compile in
/// `tests/tests/vulkan_header_fill.rs`.)
fn bytemuck_stub(dir: &Path) -> std::path::PathBuf {
    let source = dir.join("bytemuck_stub.rs");
    std::fs::write(
        &source,
        "extern crate proc_macro;\n\
         use proc_macro::TokenStream;\n\
         #[proc_macro_derive(Pod)]\n\
         pub fn pod(_: TokenStream) -> TokenStream { TokenStream::new() }\n\
         #[proc_macro_derive(Zeroable)]\n\
         pub fn zeroable(_: TokenStream) -> TokenStream { TokenStream::new() }\n",
    )
    .unwrap();
    let output = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--crate-type", "proc-macro", "--edition", "2021"])
        .args(["--crate-name", "bytemuck", "--out-dir"])
        .arg(dir)
        .arg(&source)
        .output()
        .expect("rustc runs");
    assert!(
        output.status.success(),
        "the bytemuck stub: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    dir.join(format!(
        "{}bytemuck{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ))
}

#[test]
fn names_that_are_not_identifiers_are_refused_with_the_entry_and_the_name_escaped() {
    for (name, shown) in [
        ("x\n#error ", "x\\u{a}#error "),
        ("a*/b", "a*/b"),
        ("#define", "#define"),
        ("}", "}"),
        ("say\"hi\"", "say\\\"hi\\\""),
        ("it's", "it's"),
        ("back\\slash", "back\\\\slash"),
        ("", "\"\""),
        ("1x", "1x"),
        ("a b", "a b"),
        ("red\u{1b}[31m", "red\\u{1b}[31m"),
    ] {
        let package = Hostile::new("k\n", vec![Member::float(name, 0)]).package();
        let package = open(&package);
        for language in LANGUAGES {
            let error = generate(&package, language, None)
                .expect_err("a member name that is not an identifier")
                .to_string();
            assert!(error.starts_with("entry \"k\\u{a}\": "), "{error}");
            assert!(error.contains("member 0"), "{error}");
            assert!(error.contains(shown), "{error} lacks {shown}");
            assert!(
                !error.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{error:?}"
            );
        }
    }
}

#[test]
fn keywords_macros_non_ascii_and_colliding_names_compile_in_rust_c_and_cpp() {
    let names = [
        "match",
        "loop",
        "Self",
        "self",
        "int",
        "char",
        "_Bool",
        "class",
        "new",
        "template",
        "and",
        "_",
        "__LINE__",
        "_X",
        "NULL",
        "UINT32_MAX",
        "SIZE_MAX",
        "unix",
        "linux",
        "größe",
        "日本",
        "rtl\u{202e}",
        "r_match",
        "x",
        "x",
        "x_2",
        "_pad0",
        "value",
    ];
    let mut members: Vec<Member> = names
        .iter()
        .enumerate()
        .map(|(i, n)| Member::float(n, 8 * i as u32))
        .collect();
    // A nested struct named like a C++ keyword whose children collide with the struct's
    // own type name and a `#define` of the C header.
    let base = 8 * names.len() as u32;
    let nested = members.len() as u32;
    members.push(Member::structure("operator", base, 16));
    members.push(Member::float("GSceneOperator", base).in_parent(nested));
    members.push(Member::float("r_operator", base + 4).in_parent(nested));
    members.push(Member::float("K_ERROR_X_G_SCENE_SET", base + 8).in_parent(nested));
    let mut hostile = Hostile::new("k*/\n#error x\\", members);
    hostile.entry_points = vec!["a */ b".into(), "c\u{202e}\\".into()];
    hostile.buffer = "gScene".into();
    hostile.push_constant = "p*/\n#include \"/etc/passwd\"\u{1b}".into();
    let mut second = Hostile::new("wide", vec![Member::float("x", 0)]);
    second.buffer = "gScene".into();
    let dir = tempfile::tempdir().unwrap();
    for (i, hostile) in [&hostile, &second].iter().enumerate() {
        let package = open(&hostile.package());
        for language in LANGUAGES {
            let source = generate(&package, language, None).unwrap();
            if let Err(e) = check_identifiers(&source, language) {
                panic!("{e}\n{source}");
            }
            let sub = dir.path().join(format!("{i}-{language:?}"));
            std::fs::create_dir_all(&sub).unwrap();
            compiles(&source, language, &sub);
            if i == 0 {
                for field in [
                    "r_match",
                    "r_loop",
                    "r_Self",
                    "r_self",
                    "r_int",
                    "r__Bool",
                    "r___LINE__",
                    "r_NULL",
                    "r_UINT32_MAX",
                    "r_unix",
                    "gr_u00F6_u00DF_e",
                    "u65E5_u672C",
                    "rtl_u202E",
                    "r_match_2",
                    "x_2",
                    "x_2_2",
                    "_pad0_2",
                    "r_GSceneOperator",
                    "r_K_ERROR_X_G_SCENE_SET",
                ] {
                    assert!(
                        source.contains(&format!(" {field}")),
                        "{language:?}: no field {field}:\n{source}"
                    );
                }
            }
        }
    }
    // The same field names in all three languages.
    let package = open(&hostile.package());
    let rust = generate(&package, Language::Rust, None).unwrap();
    let c = generate(&package, Language::C, None).unwrap();
    assert!(rust.contains("pub r_match_2: f32,"), "{rust}");
    assert!(c.contains("    float r_match_2;"), "{c}");
}

#[test]
fn paths_without_identifier_characters_are_refused() {
    let mut hostile = Hostile::new("k", vec![Member::float("x", 0)]);
    hostile.buffer = "*/ \n".into();
    let package = open(&hostile.package());
    let error = generate(&package, Language::C, None)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("binding 0's path") && error.contains("\"*/ \\u{a}\""),
        "{error}"
    );
}

#[test]
fn many_members_of_one_name_get_distinct_suffixes() {
    let package = open(&Hostile::wide(10_000, |_| "x".into()).package());
    let source = generate(&package, Language::Rust, None).unwrap();
    assert!(source.contains("pub x: f32,") && source.contains("pub x_10000: f32,"));
    assert_eq!(source.matches(": f32,").count(), 10_000);
}

#[test]
fn dump_and_diff_show_control_characters_as_escapes_and_json_keeps_the_names() {
    let evil = "m\u{1b}]0;owned\u{7}\n\u{202e}";
    let mut hostile = Hostile::new(evil, vec![Member::float("x", 0)]);
    hostile.entry_points = vec![evil.into()];
    hostile.buffer = evil.into();
    hostile.push_constant = evil.into();
    let a = open(&hostile.package());
    hostile.members.push(Member::float(evil, 4));
    let b = open(&hostile.package());
    let clean = |text: &str| {
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{202e}'])
                && text.contains("m\\u{1b}]0;owned\\u{7}\\u{a}\\u{202e}"),
            "{text:?}"
        );
    };
    let summary = slangpack_tools::dump::summary(Path::new("evil\u{1b}.slangpack"), &a);
    clean(&summary);
    assert!(!summary.lines().any(|l| l.starts_with('\u{202e}')));
    let differences = slangpack_tools::diff::diff(&a, &b);
    assert_eq!(differences.len(), 1, "{differences:?}");
    clean(&slangpack_tools::diff::render(&differences));
    clean(&differences[0].to_string());
    // JSON keeps names as they are (serde escapes what JSON must), and reads back typed.
    let json = serde_json::to_string(&slangpack_tools::dump::package_doc(&a)).unwrap();
    assert!(
        !json.contains('\u{1b}') && json.contains("\\u001b"),
        "{json}"
    );
    let doc: slangpack_tools::dump::PackageDoc = serde_json::from_str(&json).unwrap();
    assert_eq!(doc.entries[0].key, evil);
    assert_eq!(doc.entries[0].buffers[0].path, evil);
    assert_eq!(doc, slangpack_tools::dump::package_doc(&a));
}

#[test]
fn members_nested_to_the_limit_compile_and_deeper_ones_are_refused_without_a_crash() {
    use slangpack_format::limits::MAX_NESTING_DEPTH;
    // The innermost float is at depth MAX_NESTING_DEPTH.
    let package = open(&Hostile::deep(MAX_NESTING_DEPTH - 1).package());
    let dir = tempfile::tempdir().unwrap();
    for language in LANGUAGES {
        let source = generate(&package, language, None).unwrap();
        let sub = dir.path().join(format!("{language:?}"));
        std::fs::create_dir_all(&sub).unwrap();
        compiles(&source, language, &sub);
    }
    // 10 000 levels overflowed the stack of `header` (SIGABRT) before the bound.
    for depth in [MAX_NESTING_DEPTH, 10_000] {
        let bytes = Hostile::deep(depth).package();
        // The directory opens; the entry's blob is refused when it loads.
        let package = Package::from_bytes(&bytes).expect("the directory opens");
        let error = package.verify_all().expect_err("nesting beyond the bound");
        assert_eq!(error.kind(), slangpack_reader::ErrorKind::LimitExceeded);
        assert!(
            error.to_string().contains("nested deeper than 64"),
            "{error}"
        );
        for language in LANGUAGES {
            let error = generate(&package, language, None).unwrap_err().to_string();
            assert!(error.contains("nested deeper than 64"), "{error}");
        }
        assert!(slangpack_tools::dump::package_doc(&package)
            .entries
            .is_empty());
    }
}

/// No raw control character (C0, DEL, C1 such as U+009B, the one-byte CSI) nor text-reordering
/// character in `text`.
fn no_raw_control(text: &str, what: &str) {
    assert!(
        !text
            .chars()
            .any(|c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c)),
        "{what}: {text:?}"
    );
}

#[test]
fn register_classes_are_checked_and_no_output_carries_a_raw_control_character() {
    let csi = "n\u{9b}2J\u{1b}[31m";
    let mut hostile = Hostile::new(csi, vec![Member::float(csi, 0)]);
    hostile.entry_points = vec![csi.into()];
    hostile.buffer = csi.into();
    hostile.push_constant = csi.into();
    hostile.hlsl_register_class = Some(u32::from(b'b'));
    let healthy = open(&hostile.package());
    healthy.verify_all().expect("a package the reader accepts");
    let mut other = hostile.clone();
    other.members.push(Member::float(csi, 4));
    let other = open(&other.package());
    let summary = slangpack_tools::dump::summary(Path::new("p\u{9b}.slangpack"), &healthy);
    assert!(summary.contains("register(b0, space0)"), "{summary}");
    assert!(summary.contains("n\\u{9b}2J\\u{1b}[31m"), "{summary}");
    no_raw_control(&summary, "dump");
    let differences = slangpack_tools::diff::diff(&healthy, &other);
    no_raw_control(&slangpack_tools::diff::render(&differences), "diff");
    for language in LANGUAGES {
        match generate(&healthy, language, None) {
            Ok(source) => no_raw_control(&source, "header"),
            Err(e) => no_raw_control(&e.to_string(), "header error"),
        }
    }
    // ESC and the C1 CSI as register classes: refused when the entry loads, with the error
    // kind for a value the format does not allow; dump shows no raw character either way.
    for class in [0x1b, 0x9b] {
        hostile.hlsl_register_class = Some(class);
        let bytes = hostile.package();
        let package = Package::from_bytes(&bytes).expect("the directory opens");
        let error = package
            .verify_all()
            .expect_err("a register class SPEC does not allow");
        assert_eq!(
            error.kind(),
            slangpack_reader::ErrorKind::BadValue,
            "{error}"
        );
        assert!(error.message().contains("register_class"), "{error}");
        no_raw_control(&error.to_string(), "verify");
        no_raw_control(
            &slangpack_tools::dump::summary(Path::new("p"), &package),
            "dump",
        );
        for language in LANGUAGES {
            no_raw_control(
                &generate(&package, language, None).unwrap_err().to_string(),
                "header",
            );
        }
    }
}

#[test]
fn keys_and_members_named_like_standard_typedefs_compile_in_rust_c_and_cpp() {
    let names = [
        "uint32_t",
        "size_t",
        "ptrdiff_t",
        "max_align_t",
        "nullptr_t",
        "int8_t",
        "intptr_t",
        "uintmax_t",
        "int_fast16_t",
        "uint_least64_t",
        "offsetof",
        "wchar_t",
        "bool",
        "true",
        "NULL",
        "INT8_C",
    ];
    // One entry per name (keys become modules: a C++ namespace, a Rust module, a C prefix),
    // each with members of every name.
    let entries: Vec<Hostile> = names
        .iter()
        .map(|key| {
            let members = names
                .iter()
                .enumerate()
                .map(|(i, n)| Member::float(n, 4 * i as u32))
                .collect();
            let mut hostile = Hostile::new(key, members);
            hostile.buffer = (*key).into();
            hostile.push_constant = format!("{key}.x");
            hostile
        })
        .collect();
    let package = open(&Hostile::package_of(&entries));
    assert_eq!(package.len(), names.len());
    let dir = tempfile::tempdir().unwrap();
    for language in LANGUAGES {
        let source = generate(&package, language, None).unwrap();
        if let Err(e) = check_identifiers(&source, language) {
            panic!("{e}\n{source}");
        }
        let sub = dir.path().join(format!("{language:?}"));
        std::fs::create_dir_all(&sub).unwrap();
        compiles(&source, language, &sub);
        if language == Language::Cpp {
            assert!(source.contains("namespace r_uint32_t {"), "{source}");
        }
    }
}

/// `hostile` verifies (the reader does not check member offsets), and `header` refuses it in
/// every language with an error holding every one of `needles`.
fn assert_header_refused(hostile: &Hostile, needles: &[&str]) {
    let package = open(&hostile.package());
    package
        .verify_all()
        .expect("the reader does not check member offsets");
    for language in LANGUAGES {
        let error = generate(&package, language, None)
            .expect_err("a layout no host struct has")
            .to_string();
        for needle in needles {
            assert!(
                error.contains(needle),
                "{language:?}: {error} lacks {needle}"
            );
        }
    }
}

#[test]
fn impossible_layouts_are_refused_with_the_member_and_both_values() {
    let overlapping = Hostile::new("k", vec![Member::float("a", 0), Member::float("b", 2)]);
    let mut past_end = Hostile::new("k", vec![Member::float("a", 0), Member::float("b", 8)]);
    past_end.buffer_size = 8;
    let before_parent = Hostile::new(
        "k",
        vec![
            Member::structure("s", 16, 16),
            Member::float("inner", 8).in_parent(0),
        ],
    );
    let mut child_past_parent = Hostile::new(
        "k",
        vec![
            Member::structure("s", 0, 8),
            Member::float("x", 0).in_parent(0),
            Member::float("y", 8).in_parent(0),
        ],
    );
    child_past_parent.buffer_size = 32;
    for (hostile, needles) in [
        (
            &overlapping,
            &["member `b`", "offset 2", "`a`", "ends at 4"][..],
        ),
        (&past_end, &["member `b`", "ends at 12", "8 bytes"][..]),
        (
            &before_parent,
            &["member `inner`", "offset 8", "start 16"][..],
        ),
        (
            &child_past_parent,
            &["member `y`", "ends at 12", "past the end of its parent"][..],
        ),
    ] {
        assert_header_refused(hostile, needles);
    }
}

#[test]
fn layouts_whose_host_structs_cannot_match_are_refused_with_the_member_and_both_values() {
    use slangpack_format::bind::ARRAY_UNBOUNDED;
    // A 4-aligned struct of 18 bytes: C and Rust round its size up to 20.
    let mut odd_size = Hostile::new("k", vec![Member::float("a", 0)]);
    odd_size.buffer_size = 18;
    let mut odd_parent = Hostile::new(
        "k",
        vec![
            Member::structure("s", 0, 18),
            Member::float("x", 0).in_parent(0),
        ],
    );
    odd_parent.buffer_size = 32;
    // A float at offset 2: the host puts it at 4.
    let misaligned = Hostile::new("k", vec![Member::float("a", 2)]);
    // A runtime-sized array before another member, and one inside a struct.
    let unbounded_first = Hostile::new(
        "k",
        vec![
            Member::floats("data", 0, ARRAY_UNBOUNDED, 4),
            Member::float("after", 16),
        ],
    );
    let unbounded_inside = Hostile::new(
        "k",
        vec![
            Member::structure("s", 0, 16),
            Member::floats("data", 0, ARRAY_UNBOUNDED, 4).in_parent(0),
        ],
    );
    // An array whose stride its element's alignment does not divide.
    let odd_stride = Hostile::new("k", vec![Member::floats("w", 0, 3, 6)]);
    for (hostile, needles) in [
        (
            &odd_size,
            &["member `a`", "alignment 4", "buffer's size 18"][..],
        ),
        (
            &odd_parent,
            &["member `x`", "alignment 4", "parent's size 18"][..],
        ),
        (&misaligned, &["member `a`", "offset 2", "alignment 4"][..]),
        (
            &unbounded_first,
            &["member `after`", "offset 16", "runtime-sized array `data`"][..],
        ),
        (
            &unbounded_inside,
            &["member `data`", "runtime-sized array inside a struct"][..],
        ),
        (
            &odd_stride,
            &["member `w`", "array stride 6", "alignment 4"][..],
        ),
    ] {
        assert_header_refused(hostile, needles);
    }
    // A runtime-sized array last, after a 4-aligned float: generated, and compiles as Rust
    // and C (ISO C++ has no flexible array member: `-pedantic` refuses one in any header).
    let tail = Hostile::new(
        "k",
        vec![
            Member::float("count", 0),
            Member::floats("data", 4, ARRAY_UNBOUNDED, 4),
        ],
    );
    let package = open(&tail.package());
    let dir = tempfile::tempdir().unwrap();
    for language in LANGUAGES {
        let source = generate(&package, language, None).unwrap();
        if language == Language::Cpp {
            continue;
        }
        let sub = dir.path().join(format!("{language:?}"));
        std::fs::create_dir_all(&sub).unwrap();
        compiles(&source, language, &sub);
    }
}

/// 300 entries sharing one reflection blob of 20 000 members: a package of about a hundred
/// KB that each tool restating the blob per entry would turn into 6 million members (issue
/// 23 measured 100 000 members: `examples/scale.rs --shared 300 100000` times that case).
#[test]
fn entries_sharing_a_blob_cost_the_package_not_entries_times_the_blob() {
    let hostile = Hostile::wide(20_000, |i| format!("m{i}"));
    let bytes = hostile.shared_by(300);
    assert!(bytes.len() < 1 << 20, "{} bytes", bytes.len());
    let package = open(&bytes);
    assert_eq!(package.reflection_count(), 1);
    package.verify_all().unwrap();
    let budget = slangpack_tools::budget::output_budget(&[&package]);
    // The summary lists the shared blob's members once, then names the entry it shares.
    let summary = slangpack_tools::dump::try_summary(Path::new("p"), &package).unwrap();
    assert!((summary.len() as u64) < budget, "{} bytes", summary.len());
    assert_eq!(summary.matches("  m19999  ").count(), 1);
    assert_eq!(
        summary.matches("bindings and layouts as entry e0").count(),
        299
    );
    // The JSON document and the headers restate the blob per entry: refused, within the
    // budget's time and memory.
    let start = std::time::Instant::now();
    let json = slangpack_tools::dump::package_json_text(&package).unwrap_err();
    assert!(
        matches!(json, slangpack_tools::ToolError::LimitExceeded(_)),
        "{json}"
    );
    for language in LANGUAGES {
        let error = generate(&package, language, None).unwrap_err();
        assert!(
            matches!(error, slangpack_tools::ToolError::LimitExceeded(_)),
            "{language:?}: {error}"
        );
        assert!(error.to_string().contains("output budget"), "{error}");
    }
    // diff compares the shared blob once per pair of blobs, merge copies it once.
    let mut changed = hostile.clone();
    changed.members[19_999].offset += 4;
    changed.buffer_size += 16;
    let other = open(&changed.shared_by(300));
    assert!(slangpack_tools::diff::try_diff(&package, &package)
        .unwrap()
        .is_empty());
    let differences = slangpack_tools::diff::try_diff(&package, &other).unwrap();
    assert_eq!(differences.len(), 2 * 300, "{:?}", &differences[..2]);
    let merged =
        slangpack_pack::merge::merge(&[("a", &package), ("b", &package)], true, false).unwrap();
    assert_eq!((merged.entries.len(), merged.duplicates), (300, 300));
    assert!(merged.bytes.len() < 2 * bytes.len());
    let merged = open(&merged.bytes);
    assert_eq!(merged.reflection_count(), 1);
    merged.verify_all().unwrap();
    let elapsed = start.elapsed();
    // One entry's header alone is fine.
    let one = generate(&package, Language::C, Some("e7")).unwrap();
    assert!(one.contains("m19999"));
    eprintln!("refusals, diffs and merge took {elapsed:?}");
}

#[test]
fn the_json_text_is_the_pretty_printed_document() {
    let mut hostile = Hostile::new("k\u{1b}", vec![Member::float("x", 0)]);
    hostile.hlsl_register_class = Some(u32::from(b'b'));
    let mut second = hostile.clone();
    second.key = "second".into();
    for bytes in [
        hostile.package(),
        Hostile::package_of(&[hostile.clone(), second]),
        Hostile::package_of(&[]),
    ] {
        let package = open(&bytes);
        let expected =
            serde_json::to_string_pretty(&slangpack_tools::dump::package_json(&package)).unwrap();
        assert_eq!(
            slangpack_tools::dump::package_json_text(&package).unwrap(),
            expected
        );
    }
}

/// One entry whose 1 000 members all name one 256 KiB string: a package of a few KB whose
/// every tool showing the members' names would make 256 MiB and more (10 000 members naming
/// 1 MiB: 10 GiB). Charged before it is made.
#[test]
fn records_sharing_one_long_name_are_charged_at_each_use() {
    let long = "x".repeat(256 << 10);
    let hostile = Hostile::wide(1_000, |_| long.clone());
    let bytes = hostile.package();
    assert!(bytes.len() < 256 << 10, "{} bytes", bytes.len());
    let package = open(&bytes);
    package.verify_all().unwrap();
    let refused = |r: Result<String, slangpack_tools::ToolError>, what: &str| match r {
        Err(slangpack_tools::ToolError::LimitExceeded(m)) => assert!(m.contains("budget"), "{m}"),
        Err(other) => panic!("{what}: {other}"),
        Ok(text) => panic!("{what}: {} bytes", text.len()),
    };
    refused(
        slangpack_tools::dump::try_summary(Path::new("p"), &package),
        "dump",
    );
    refused(slangpack_tools::dump::package_json_text(&package), "json");
    for language in LANGUAGES {
        refused(generate(&package, language, None), "header");
    }
    assert!(matches!(
        slangpack_tools::diff::try_diff(&package, &package),
        Err(slangpack_tools::ToolError::LimitExceeded(_))
    ));
}

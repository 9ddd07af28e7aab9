//! Names are data, never code: hostile names in packages the reader accepts either become
//! identifiers that Rust, C and C++ compile with every warning an error, or `header` refuses
//! the package with an error naming the entry and showing the name escaped. Human-readable
//! output (`dump`, `diff`) shows control characters as escapes.

mod common;

use common::{Hostile, Member};
use slangpack_reader::Package;
use slangpack_tools::header::{generate, is_emitted_identifier, Language};
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
            cmd.arg("--out-dir").arg(dir).arg(&path);
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

/// Every identifier-like token of generated code outside comments and string literals is
/// either a word the generator writes itself or of the emitted form; and no line outside a
/// comment starts a preprocessor directive other than the generator's own.
fn only_emitted_identifiers(source: &str, language: Language) {
    let mut in_block_comment = false;
    for line in source.lines() {
        let mut code = String::new();
        let mut rest = line;
        loop {
            if in_block_comment {
                match rest.find("*/") {
                    Some(end) => {
                        rest = &rest[end + 2..];
                        in_block_comment = false;
                    }
                    None => break,
                }
            } else if let Some(start) = rest.find("/*") {
                code.push_str(&rest[..start]);
                rest = &rest[start + 2..];
                in_block_comment = true;
            } else {
                code.push_str(rest.split("//").next().unwrap_or(""));
                break;
            }
        }
        let code = code.split('"').step_by(2).collect::<Vec<_>>().join(" ");
        let trimmed = code.trim_start();
        if trimmed.starts_with('#') && language != Language::Rust {
            assert!(
                ["#pragma once", "#include <", "#define "]
                    .iter()
                    .any(|d| trimmed.starts_with(d)),
                "unexpected directive: {line}"
            );
        }
        for token in code.split(|c: char| !(c == '_' || c.is_ascii_alphanumeric())) {
            if token.is_empty() || token.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            assert!(
                is_emitted_identifier(token) || GENERATOR_WORDS.contains(&token),
                "`{token}` is not of the emitted form:\n{line}"
            );
        }
        assert!(code.is_ascii(), "non-ASCII code: {line}");
    }
}

/// Words the generator writes itself (keywords and library names of its templates).
const GENERATOR_WORDS: &[&str] = &[
    "pub",
    "mod",
    "const",
    "u8",
    "u16",
    "u32",
    "u64",
    "i8",
    "i16",
    "i32",
    "i64",
    "f32",
    "f64",
    "struct",
    "impl",
    "for",
    "in",
    "fn",
    "self",
    "Self",
    "mut",
    "core",
    "std",
    "vec",
    "Vec",
    "mem",
    "offset_of",
    "size_of",
    "assert",
    "allow",
    "derive",
    "repr",
    "C",
    "clone",
    "Clone",
    "marker",
    "Copy",
    "fmt",
    "Debug",
    "cmp",
    "PartialEq",
    "default",
    "Default",
    "_",
    "typedef",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "float",
    "double",
    "_Static_assert",
    "sizeof",
    "offsetof",
    "pragma",
    "once",
    "include",
    "stddef",
    "stdint",
    "h",
    "define",
    "namespace",
    "inline",
    "constexpr",
    "static_assert",
    "cstddef",
    "cstdint",
    "non_snake_case",
    "non_camel_case_types",
    "non_upper_case_globals",
    "dead_code",
    "clippy",
    "all",
    "ZEROED",
    "write_le_bytes",
    "out",
    "extend_from_slice",
    "to_le_bytes",
    "v0",
    "v1",
    "v2",
    "value",
];

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
            only_emitted_identifiers(&source, language);
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

//! `include/slangpack.h` is what cbindgen generates from this crate, with the format's records
//! and constants declared from `slangpack-format` itself (so the format is written down once),
//! and it compiles as C11 and as C++17 with every size and offset `static_assert` holding.
//!
//! `SLANGPACK_BLESS=1 cargo test -p slangpack-c --test header` rewrites the header.

use slangpack_format::bind::{self, *};
use slangpack_format::targets::{
    self, ArgumentBuffer, ArgumentBufferMember, TargetBinding, TargetBuffer, TargetMember,
};
use slangpack_format::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    crate_dir().join("include/slangpack.h")
}

/// One record as the header declares it.
struct Rec {
    name: &'static str,
    doc: &'static str,
    size: usize,
    fields: &'static [FieldLayout],
}

macro_rules! records {
    ($($ty:ty),* $(,)?) => {
        vec![$(Rec {
            name: <$ty as RecordLayout>::NAME,
            doc: <$ty as RecordLayout>::DOC,
            size: core::mem::size_of::<$ty>(),
            fields: <$ty as RecordLayout>::FIELDS,
        }),*]
    };
}

/// Every record the C API hands out, in the order the header declares them.
fn records() -> Vec<Rec> {
    records![
        BindSummary,
        DescriptorBinding,
        DescriptorSetLayout,
        PushConstantRange,
        BufferLayout,
        BufferMember,
        MemberAttribute,
        MemberPointee,
        VertexInput,
        SpecializationConstant,
        ShaderRecordBlock,
        FragmentOutput,
        ExecutionModes,
        TargetBinding,
        TargetBuffer,
        TargetMember,
        ArgumentBuffer,
        ArgumentBufferMember,
        ReflectionHeader,
        Type,
        TypeLayout,
        Variable,
        VarLayout,
        Function,
        Generic,
        Decl,
        EntryPointLayout,
        Attribute,
        AttributeArg,
        Modifier,
        HashedString,
        BindingRange,
        DescriptorSet,
        DescriptorRange,
        SubObjectRange,
    ]
}

macro_rules! consts {
    ($($path:ident :: $name:ident),* $(,)?) => {
        vec![$((stringify!($name), u64::from($path::$name))),*]
    };
}

/// The format's flag and marker constants, with their values from the format crate.
fn constants() -> Vec<(&'static str, u64)> {
    let mut all = consts![
        slangpack_format::ABSENT,
        slangpack_format::UNBOUNDED,
        slangpack_format::SPECIALIZED_COUNT,
        bind::MAX_ENTRY_POINTS,
        bind::COUNT_FIXED,
        bind::COUNT_UNBOUNDED,
        bind::COUNT_ZERO,
        bind::BINDING_IMPLICIT_BLOCK_BUFFER,
        bind::BINDING_IMPLICIT_GLOBAL_BUFFER,
        bind::BINDING_WRITABLE,
        bind::BINDING_UNUSED,
        bind::BINDING_DESCRIPTOR_HEAP,
        bind::BINDING_SPECIALIZED_COUNT,
        bind::SET_HAS_UNBOUNDED,
        bind::BUFFER_UNIFORM,
        bind::BUFFER_PUSH_CONSTANT,
        bind::BUFFER_STRUCTURED_ELEMENT,
        bind::BUFFER_BLOCK,
        bind::BUFFER_GLOBAL,
        bind::BUFFER_SHADER_RECORD,
        bind::BUFFER_POINTEE,
        bind::BUFFER_HEAP,
        bind::MEMBER_ELEMENT_RELATIVE,
        bind::MEMBER_HAS_DEFAULT,
        bind::MEMBER_DEFAULT_IS_FLOAT,
        bind::MEMBER_EXISTENTIAL,
        bind::MEMBER_EXISTENTIAL_PAYLOAD,
        bind::ARRAY_UNBOUNDED,
        bind::VERTEX_INPUT_USED,
        bind::MODE_EARLY_FRAGMENT_TESTS,
        bind::MODE_DEPTH_REPLACING,
        bind::MODE_DEPTH_GREATER,
        bind::MODE_DEPTH_LESS,
        bind::MODE_DEPTH_UNCHANGED,
        bind::MODE_POINT_MODE,
        bind::MODE_VERTEX_ORDER_CW,
        bind::MODE_VERTEX_ORDER_CCW,
        bind::MODE_INPUT_ATTACHMENT_CAPABILITY,
        bind::MODE_READS_INPUT_ATTACHMENTS,
        bind::MODE_POST_DEPTH_COVERAGE,
        bind::MODE_SAMPLE_RATE_SHADING,
        targets::TARGET_READ_ONLY,
        targets::TARGET_MULTISAMPLED,
        targets::TARGET_COMPARISON,
        targets::TARGET_UNUSED,
        targets::TARGET_WRITE,
        targets::ARGUMENT_ID_EXPLICIT,
        targets::ARGUMENT_ELEMENT_RELATIVE,
    ];
    all.sort_by_key(|&(name, _)| name);
    all
}

/// The raw enumerations records store, as `(C prefix, [(variant, value)])`.
fn enums() -> Vec<(&'static str, Vec<(String, u32)>)> {
    fn values<E: core::fmt::Debug>(
        from_raw: fn(u32) -> E,
        unknown: fn(&E) -> bool,
    ) -> Vec<(String, u32)> {
        (0..0x1_0000)
            .map(|raw| (raw, from_raw(raw)))
            .filter(|(_, e)| !unknown(e))
            .map(|(raw, e)| (screaming(&format!("{e:?}")), raw))
            .collect()
    }
    macro_rules! e {
        ($prefix:literal, $ty:ident) => {
            (
                $prefix,
                values($ty::from_raw, |e| matches!(e, $ty::Unknown(_))),
            )
        };
    }
    vec![
        e!("STAGE", Stage),
        e!("TYPE_KIND", TypeKind),
        e!("SCALAR_TYPE", ScalarType),
        e!("PARAMETER_CATEGORY", ParameterCategory),
        e!("BINDING_TYPE", BindingType),
        e!("RESOURCE_SHAPE", ResourceShape),
        e!("RESOURCE_ACCESS", ResourceAccess),
        e!("MATRIX_LAYOUT", MatrixLayout),
        e!("DECL_KIND", DeclKind),
        e!("MODIFIER_ID", ModifierId),
        e!("VALUE_KIND", ValueKind),
        e!("PRIMITIVE_MODE", PrimitiveMode),
        e!("SPACING", Spacing),
        e!("TARGET", Target),
        e!("TARGET_BINDING_KIND", TargetBindingKind),
        e!("ARGUMENT_MEMBER_KIND", ArgumentMemberKind),
    ]
}

/// `RayGeneration` -> `RAY_GENERATION`, `Texture2D` -> `TEXTURE2D`.
fn screaming(camel: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = camel.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let boundary = i > 0
            && c.is_ascii_uppercase()
            && (chars[i - 1].is_ascii_lowercase()
                || chars.get(i + 1).is_some_and(char::is_ascii_lowercase)
                    && chars[i - 1].is_ascii_uppercase());
        if boundary {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// Rust doc text as C comment text: intra-doc links become plain code spans, the format's
/// constants get their C names.
fn c_doc(doc: &str, indent: &str) -> String {
    let consts: Vec<&str> = constants().iter().map(|&(n, _)| n).collect();
    let mut out = String::new();
    let lines: Vec<&str> = doc.lines().map(str::trim).collect();
    if lines.iter().all(|l| l.is_empty()) {
        return out;
    }
    writeln!(out, "{indent}/**").unwrap();
    for line in lines {
        let mut text = String::new();
        let mut rest = line;
        while let Some(start) = rest.find("[`") {
            text.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find("`]") else {
                text.push_str(&rest[start..]);
                rest = "";
                break;
            };
            let mut name = &after[..end];
            for prefix in ["crate::bind::", "crate::", "Self::"] {
                name = name.strip_prefix(prefix).unwrap_or(name);
            }
            // The format's typed wrappers of raw fields, named by their C constants.
            let family = [
                ("ArrayKind", "SLANGPACK_COUNT_*"),
                ("BindingFlags", "SLANGPACK_BINDING_*"),
                ("SetFlags", "SLANGPACK_SET_*"),
                ("BufferKind", "SLANGPACK_BUFFER_*"),
                ("MemberFlags", "SLANGPACK_MEMBER_*"),
                ("VertexInputFlags", "SLANGPACK_VERTEX_INPUT_*"),
                ("ModeFlags", "SLANGPACK_MODE_*"),
            ]
            .iter()
            .find(|(rust, _)| name.split("::").next() == Some(*rust));
            if consts.contains(&name) {
                write!(text, "`SLANGPACK_{name}`").unwrap();
            } else if let Some((_, c)) = family {
                write!(text, "`{c}`").unwrap();
            } else {
                write!(text, "`{name}`").unwrap();
            }
            rest = &after[end + 2..];
        }
        text.push_str(rest);
        let text = text.replace("*/", "* /");
        if text.is_empty() {
            writeln!(out, "{indent} *").unwrap();
        } else {
            writeln!(out, "{indent} * {text}").unwrap();
        }
    }
    writeln!(out, "{indent} */").unwrap();
    out
}

/// The block cbindgen inserts after the includes: constants, enumerations, records and their
/// layout checks.
fn format_block() -> String {
    let mut out = String::new();
    out.push_str(
        "\n/* ---- From slangpack-format: constants, enumerations and records (generated) ---- */\n\n\
         #if defined(__cplusplus)\n\
         #define SLANGPACK_STATIC_ASSERT(cond, msg) static_assert(cond, msg)\n\
         #else\n\
         #define SLANGPACK_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)\n\
         #endif\n\n",
    );
    for (name, value) in constants() {
        writeln!(out, "#define SLANGPACK_{name} {value:#x}u").unwrap();
    }
    out.push('\n');
    for (prefix, values) in enums() {
        writeln!(
            out,
            "/* Raw values of the records' `{}` fields (Slang's own values). */",
            prefix.to_ascii_lowercase()
        )
        .unwrap();
        for (variant, raw) in values {
            writeln!(out, "#define SLANGPACK_{prefix}_{variant} {raw}u").unwrap();
        }
        out.push('\n');
    }
    for rec in records() {
        out.push_str(&c_doc(rec.doc, ""));
        writeln!(out, "typedef struct Slangpack{} {{", rec.name).unwrap();
        for f in rec.fields {
            out.push_str(&c_doc(f.doc, "    "));
            match f.ty {
                "u32" => writeln!(out, "    uint32_t {};", f.name).unwrap(),
                array => {
                    let n = array
                        .strip_prefix("[u8;")
                        .and_then(|r| r.strip_suffix(']'))
                        .map(str::trim)
                        .unwrap_or_else(|| {
                            panic!("{}.{}: no C type for {array}", rec.name, f.name)
                        });
                    writeln!(out, "    uint8_t {}[{n}];", f.name).unwrap();
                }
            }
        }
        writeln!(out, "}} Slangpack{};", rec.name).unwrap();
        writeln!(
            out,
            "SLANGPACK_STATIC_ASSERT(sizeof(Slangpack{0}) == {1}, \"Slangpack{0} is {1} bytes in the format\");",
            rec.name, rec.size
        )
        .unwrap();
        for f in rec.fields {
            writeln!(
                out,
                "SLANGPACK_STATIC_ASSERT(offsetof(Slangpack{0}, {1}) == {2}, \"Slangpack{0}.{1} is at byte {2} in the format\");",
                rec.name, f.name, f.offset
            )
            .unwrap();
        }
        out.push('\n');
    }
    out.push_str("/* ---- Generated by cbindgen from reader/capi/src ---- */\n");
    out
}

fn generate() -> String {
    let mut config = cbindgen::Config::from_file(crate_dir().join("cbindgen.toml"))
        .expect("cbindgen.toml parses");
    config.after_includes = Some(format_block());
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir().join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header");
    let mut bytes = Vec::new();
    bindings.write(&mut bytes);
    String::from_utf8(bytes).expect("the header is UTF-8")
}

#[test]
fn committed_header_is_generated() {
    let fresh = generate();
    if std::env::var_os("SLANGPACK_BLESS").is_some() {
        std::fs::write(header_path(), &fresh).expect("write the header");
        return;
    }
    let committed = std::fs::read_to_string(header_path()).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/slangpack.h differs from a fresh generation; regenerate it with \
         `SLANGPACK_BLESS=1 cargo test -p slangpack-c --test header` and commit it"
    );
}

#[test]
fn every_renamed_record_is_declared_and_every_format_constant_exported() {
    let config = std::fs::read_to_string(crate_dir().join("cbindgen.toml")).unwrap();
    let renamed: Vec<&str> = config
        .lines()
        .filter_map(|l| l.strip_prefix('"')?.split('"').next())
        .collect();
    let declared: Vec<&str> = records().iter().map(|r| r.name).collect();
    assert_eq!(
        renamed, declared,
        "cbindgen.toml renames exactly the declared records"
    );

    // Every `pub const NAME: u32` of the bind module is in the header, but the name index's
    // target kinds: C reads the index through the lookup functions.
    let internal = ["NAME_BINDING", "NAME_MEMBER", "NAME_BUFFER"];
    let source = include_str!("../../../format-spec/src/bind.rs");
    let exported: Vec<&str> = constants().iter().map(|&(n, _)| n).collect();
    for line in source.lines() {
        if let Some(rest) = line
            .strip_prefix("pub const ")
            .filter(|r| !r.starts_with("fn ") && r.contains(": u32 ="))
        {
            let name = rest.split(':').next().unwrap();
            assert!(
                exported.contains(&name) || internal.contains(&name),
                "bind::{name} is not exported to C"
            );
        }
    }
}

/// Compiles `source` with `compiler` and the strictest flags; panics with its output.
/// The C function that serves each table of the format's one table list
/// ([`slangpack_format::TABLES`]): `slangpack_reflection_<name>` for a raw table,
/// `slangpack_bind_<name>` for a bind-view table, where the C name is the table's; the others
/// are named here with the function that serves them.
fn c_function_of(table: &str) -> String {
    let served_as = match table {
        "string_refs" | "string_bytes" => "slangpack_entry_string",
        "descriptor_bindings" => "slangpack_bind_bindings",
        "descriptor_set_layouts" => "slangpack_bind_sets",
        "push_constant_ranges" => "slangpack_bind_push_constants",
        "name_index" => "slangpack_bind_find_binding",
        "bind_summary" => "slangpack_bind_summary",
        name => {
            let raw = TABLES
                .iter()
                .find(|t| t.name == name)
                .is_some_and(|t| t.kind.is_raw());
            let prefix = if raw { "reflection" } else { "bind" };
            return format!("slangpack_{prefix}_{name}");
        }
    };
    served_as.to_owned()
}

#[test]
fn every_table_of_the_format_has_its_c_function() {
    let header = std::fs::read_to_string(header_path()).expect("the committed header");
    let missing: Vec<String> = TABLES
        .iter()
        .map(|t| c_function_of(t.name))
        .filter(|f| {
            // Declared: the name, not a longer one's tail, before its parameter list.
            let call = format!("{f}(");
            !header.match_indices(&call).any(|(at, _)| {
                header[..at]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
            })
        })
        .collect();
    assert!(TABLES.len() > 30, "the table list: {}", TABLES.len());
    assert!(
        missing.is_empty(),
        "tables of the format the C API does not serve: {missing:?}"
    );
}

fn compile(compiler: &str, std: &str, source: &Path, out: &Path) {
    let output = Command::new(compiler)
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-c", "-o"])
        .arg(out)
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e} (provisioning installs it)"));
    assert!(
        output.status.success(),
        "{compiler} -std={std} rejects the header:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn header_compiles_as_c11_and_cpp17_with_every_layout_check() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("use.c");
    let cpp = dir.path().join("use.cpp");
    let body = "#include <slangpack.h>\n\
                size_t slangpack_header_probe(void);\n\
                size_t slangpack_header_probe(void) { return sizeof(SlangpackError) + sizeof(SlangpackBufferMember); }\n";
    std::fs::write(&c, body).unwrap();
    std::fs::write(&cpp, body.replace("(void)", "()")).unwrap();
    compile("gcc", "c11", &c, &dir.path().join("c.o"));
    compile("g++", "c++17", &cpp, &dir.path().join("cpp.o"));
}

//! Identifiers: the names the generated code declares, made from the package's names.
//!
//! Names in a package are arbitrary UTF-8 chosen by whoever made the package; the headers are
//! compiled into programs. So no name is ever written into code as it is: every identifier
//! the generated code declares comes out of this module, and only in the form
//! `[A-Za-z_][A-Za-z0-9_]*` that is valid in Rust, C11 and C++17 alike. The rules (docs/cli.md,
//! "Names in generated headers"), the same for all three languages:
//!
//! 1. A **member name** becomes a field name only if it is a Slang identifier: not empty, made
//!    of ASCII letters, digits, `_` and non-ASCII characters, not starting with a digit. Any
//!    other member name is refused ([`NameError`]).
//! 2. Names of **things found by path** (bindings, push-constant ranges, buffers, shader
//!    records) give constant and struct names built from the runs of identifier characters
//!    in the path (`gScene.material` → `G_SCENE_MATERIAL_*`, `GSceneMaterial`); a path without
//!    any is refused. Entry keys give module names the same way, lower-cased
//!    (`layered/layered?Q=2` → `layered_layered_q_2`, `e_` before an empty or digit-led
//!    result).
//! 3. Every **non-ASCII character** becomes the word `uXXXX` (its code point in upper-case
//!    hexadecimal, at least four digits), set apart from its neighbours by `_`
//!    (`größe` → `gr_u00F6_u00DF_e`; `UXXXX` in constant names).
//! 4. A **reserved** result gets the prefix `r_` (`match` → `r_match`, `__LINE__` →
//!    `r___LINE__`): keywords and reserved words of Rust 2021, C11 and C++17 (C++20's too);
//!    `_` alone; every name C reserves for the implementation (`_` followed by an upper-case
//!    letter or a second `_`, where compilers put their macros); the object-like macros of
//!    the headers the C and C++ output include (`NULL`, the `<stdint.h>` limits: all-capital
//!    names ending in `_MIN`, `_MAX` or `_WIDTH`) and those GNU modes predefine (`unix`,
//!    `linux`, `i386`); the typedefs and macros `<stddef.h>`, `<stdint.h>`, `<stdbool.h>`,
//!    `<cstddef>` and `<cstdint>` declare (`size_t`, `uint32_t`, `int_fast16_t`, `offsetof`, ...),
//!    in every language, so that one package gives the same names in all three. A field is also reserved when it equals a struct name of its module
//!    or a `#define` of the C header (C++ would change the type's meaning, C would expand the
//!    macro). Module names additionally avoid `core`, `std` and `alloc` (Rust crate names).
//! 5. **Collisions** in one scope (fields of one struct, constants and types of one module,
//!    modules of one header, `#define`s of one C header) keep the first name and give later
//!    ones the suffix `_2`, `_3`, ... (the first free one), in the order of the tables.
//!
//! Comments show names through [`comment`]: control and bidirectional-override characters
//! and `\` as `\u{..}`, `*/` and `/*` broken up, so no name ends a comment or a line.

use crate::text::{escape, Escape};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// A name the generated code cannot declare, with where it was found.
#[derive(Debug)]
pub(super) struct NameError {
    /// What is named: `buffer "gScene" member 3`.
    pub(super) what: String,
    /// The name as found in the package.
    pub(super) name: String,
    /// Why it is refused.
    pub(super) why: &'static str,
}

impl From<NameError> for String {
    fn from(e: NameError) -> String {
        e.to_string()
    }
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} has the name {}, which {}; bind headers declare only identifiers made from names",
            self.what,
            crate::text::quoted(&self.name),
            self.why
        )
    }
}

const NOT_AN_IDENTIFIER: &str = "is not a Slang identifier (ASCII letters, digits, `_` and \
                                 non-ASCII characters, not empty, not starting with a digit)";
const NO_IDENTIFIER_CHARACTERS: &str = "holds no identifier characters";

/// One scope of names: the first claim of a name gets it, later ones `name_2`, `name_3`, ...
///
/// Linear in the number of claims: each base name remembers the next suffix to try, so a
/// thousand claims of one name probe each `name_N` once instead of counting up from 2 every
/// time (`name_N` strings are distinct for distinct bases and suffixes, so a taken one stops
/// at most one probe of one base).
#[derive(Debug, Default)]
pub(super) struct Scope {
    used: HashSet<String>,
    next: HashMap<String, u32>,
}

impl Scope {
    /// `name` (with `r_` when reserved), or the first free `name_N` (N ≥ 2), now taken.
    pub(super) fn claim(&mut self, name: String) -> String {
        let name = unreserved(name);
        if !self.used.contains(&name) {
            self.used.insert(name.clone());
            return name;
        }
        let n = self.next.entry(name.clone()).or_insert(2);
        loop {
            let candidate = format!("{name}_{n}");
            *n += 1;
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
    }

    /// Whether `name` is taken.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.used.contains(name)
    }
}

/// A Slang identifier: what Slang's lexer reads as one (ASCII letters, digits, `_`, any
/// non-ASCII character; not empty, no leading digit).
pub(super) fn is_slang_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic() || !c.is_ascii())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric() || !c.is_ascii())
}

/// The form every declared identifier has: `[A-Za-z_][A-Za-z0-9_]*`, not reserved (rule 4).
/// The fuzz target checks generated headers against it.
pub fn is_emitted_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !is_reserved(name)
}

/// The field name of a member named `name` (rules 1, 3, 4), before collisions.
pub(super) fn field_ident(name: &str, what: impl FnOnce() -> String) -> Result<String, NameError> {
    if !is_slang_identifier(name) {
        return Err(NameError {
            what: what(),
            name: name.to_string(),
            why: NOT_AN_IDENTIFIER,
        });
    }
    let mut out = String::with_capacity(name.len());
    let mut after_code = false;
    for c in name.chars() {
        if c.is_ascii() {
            if after_code && c != '_' {
                out.push('_');
            }
            out.push(c);
            after_code = false;
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            out.push_str(&code_word(c));
            after_code = true;
        }
    }
    Ok(unreserved(out))
}

/// `r_` before a reserved name (rule 4).
pub(super) fn unreserved(name: String) -> String {
    if is_reserved(&name) {
        format!("r_{name}")
    } else {
        name
    }
}

/// A non-ASCII character as a word: `u` and its code point in upper-case hexadecimal, at
/// least four digits (rule 3).
fn code_word(c: char) -> String {
    format!("u{:04X}", u32::from(c))
}

/// One word of a derived name: ASCII letters and digits, or a non-ASCII character's
/// [`code_word`] (`code`).
struct Word {
    text: String,
    code: bool,
}

/// The identifier words of `text`: runs of ASCII letters and digits; every non-ASCII
/// character is a word of its own (rule 3); everything else separates words.
fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(Word {
                text: std::mem::take(&mut word),
                code: false,
            });
        }
        if !c.is_ascii() {
            out.push(Word {
                text: code_word(c),
                code: true,
            });
        }
    }
    if !word.is_empty() {
        out.push(Word {
            text: word,
            code: false,
        });
    }
    out
}

/// `layered/layered?Q=2` → `layered_layered_q_2`; `e_` before an empty or digit-led result.
pub(super) fn module_ident(key: &str) -> String {
    let words: Vec<String> = words(key).into_iter().map(|w| w.text).collect();
    let out = words.join("_").to_ascii_lowercase();
    let out = if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("e_{out}")
    } else {
        out
    };
    if matches!(out.as_str(), "core" | "std" | "alloc") {
        format!("r_{out}")
    } else {
        unreserved(out)
    }
}

/// `gScene.material` → `GSceneMaterial` (a `T` before a leading digit); a stem, reserved words
/// are handled when the whole name is claimed.
pub(super) fn camel(path: &str, what: impl FnOnce() -> String) -> Result<String, NameError> {
    let mut out = String::new();
    for word in words(path) {
        let mut chars = word.text.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() {
        return Err(NameError {
            what: what(),
            name: path.to_string(),
            why: NO_IDENTIFIER_CHARACTERS,
        });
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    Ok(out)
}

/// `gScene.material.albedo` → `G_SCENE_MATERIAL_ALBEDO` (an `N_` before a leading digit); a
/// stem, as for [`camel`].
pub(super) fn upper_snake(path: &str, what: impl FnOnce() -> String) -> Result<String, NameError> {
    let mut parts = Vec::new();
    for word in words(path) {
        // camelCase boundaries split a word: `gScene` → `G_SCENE`.
        let mut part = String::new();
        let mut prev_lower = false;
        for c in word.text.chars() {
            if c.is_ascii_uppercase() && prev_lower && !word.code {
                part.push('_');
            }
            part.push(c.to_ascii_uppercase());
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
        parts.push(part);
    }
    let out = parts.join("_");
    if out.is_empty() {
        return Err(NameError {
            what: what(),
            name: path.to_string(),
            why: NO_IDENTIFIER_CHARACTERS,
        });
    }
    Ok(if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("N_{out}")
    } else {
        out
    })
}

/// Rule 4: a name no generated header may declare as it is.
fn is_reserved(name: &str) -> bool {
    let bytes = name.as_bytes();
    RESERVED_WORDS.binary_search(&name).is_ok()
        || name == "_"
        // C11 7.1.3 / C++17 [lex.name]: reserved for the implementation, where compilers put
        // their predefined macros (`__LINE__`, `_WIN32`).
        || (bytes.first() == Some(&b'_')
            && bytes.get(1).is_some_and(|&b| b == b'_' || b.is_ascii_uppercase()))
        // The `<stdint.h>` limit macros (`UINT32_MAX`, `SIZE_MAX`, `INT_LEAST8_MIN`, and
        // C23's `*_WIDTH`).
        || (bytes.iter().all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && (name.ends_with("_MIN") || name.ends_with("_MAX") || name.ends_with("_WIDTH")))
}

/// Keywords and reserved words of Rust 2021 (strict and reserved), C11 and C++17 (with C++20's),
/// the convenience macros of C11's headers, object-like macros of the headers the output
/// includes or that GNU modes predefine, and the names the C and C++ standard headers declare
/// at global scope (`<stddef.h>`/`<cstddef>`: `size_t`, `ptrdiff_t`, `max_align_t`,
/// `nullptr_t`, `wchar_t`, `offsetof`, `NULL`; `<stdint.h>`/`<cstdint>`: every exact-width,
/// least-width, fastest, pointer-sized and greatest-width integer typedef and the `INTn_C`
/// macros; `<stdbool.h>`: `bool`, `true`, `false`), since a module or struct of that name
/// would collide with them (`namespace uint32_t` does not compile). Sorted (checked by a test).
const RESERVED_WORDS: &[&str] = &[
    "INT16_C",
    "INT32_C",
    "INT64_C",
    "INT8_C",
    "INTMAX_C",
    "NULL",
    "Self",
    "UINT16_C",
    "UINT32_C",
    "UINT64_C",
    "UINT8_C",
    "UINTMAX_C",
    "abstract",
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "as",
    "asm",
    "async",
    "auto",
    "await",
    "become",
    "bitand",
    "bitor",
    "bool",
    "box",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "char8_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "compl",
    "complex",
    "concept",
    "const",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "continue",
    "crate",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dyn",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "final",
    "float",
    "fn",
    "for",
    "friend",
    "gen",
    "goto",
    "i386",
    "if",
    "imaginary",
    "impl",
    "in",
    "inline",
    "int",
    "int16_t",
    "int32_t",
    "int64_t",
    "int8_t",
    "int_fast16_t",
    "int_fast32_t",
    "int_fast64_t",
    "int_fast8_t",
    "int_least16_t",
    "int_least32_t",
    "int_least64_t",
    "int_least8_t",
    "intmax_t",
    "intptr_t",
    "let",
    "linux",
    "long",
    "loop",
    "macro",
    "match",
    "max_align_t",
    "mod",
    "move",
    "mut",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "noreturn",
    "not",
    "not_eq",
    "nullptr",
    "nullptr_t",
    "offsetof",
    "operator",
    "or",
    "or_eq",
    "override",
    "priv",
    "private",
    "protected",
    "ptrdiff_t",
    "pub",
    "public",
    "ref",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "self",
    "short",
    "signed",
    "size_t",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "super",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "trait",
    "true",
    "try",
    "type",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "uint8_t",
    "uint_fast16_t",
    "uint_fast32_t",
    "uint_fast64_t",
    "uint_fast8_t",
    "uint_least16_t",
    "uint_least32_t",
    "uint_least64_t",
    "uint_least8_t",
    "uintmax_t",
    "uintptr_t",
    "union",
    "unix",
    "unsafe",
    "unsigned",
    "unsized",
    "use",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "where",
    "while",
    "xor",
    "xor_eq",
    "yield",
];

/// `text` for a comment of generated code: see [`Escape::Comment`].
pub(super) fn comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape(&mut out, text, Escape::Comment);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_words_are_sorted_and_distinct() {
        assert!(RESERVED_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn field_names_follow_the_rules() {
        let what = || "m".to_string();
        assert_eq!(field_ident("albedo", what).unwrap(), "albedo");
        assert_eq!(field_ident("match", what).unwrap(), "r_match");
        assert_eq!(field_ident("Self", what).unwrap(), "r_Self");
        assert_eq!(field_ident("_", what).unwrap(), "r__");
        assert_eq!(field_ident("__LINE__", what).unwrap(), "r___LINE__");
        assert_eq!(field_ident("_Bool", what).unwrap(), "r__Bool");
        assert_eq!(field_ident("UINT32_MAX", what).unwrap(), "r_UINT32_MAX");
        assert_eq!(field_ident("_pad", what).unwrap(), "_pad");
        assert_eq!(field_ident("größe", what).unwrap(), "gr_u00F6_u00DF_e");
        assert_eq!(field_ident("ö_x", what).unwrap(), "u00F6_x");
        assert_eq!(field_ident("日本", what).unwrap(), "u65E5_u672C");
        for bad in [
            "",
            "1x",
            "x\n#error ",
            "a*/b",
            "#",
            "}",
            "\"",
            "\\",
            "a.b",
            "a b",
        ] {
            let error = field_ident(bad, what).unwrap_err();
            assert!(!error.to_string().contains('\n'), "{error}");
        }
    }

    #[test]
    fn derived_names_follow_the_rules() {
        let what = || "b".to_string();
        assert_eq!(camel("gScene.material", what).unwrap(), "GSceneMaterial");
        assert_eq!(camel("self", what).unwrap(), "Self");
        assert_eq!(Scope::default().claim("Self".into()), "r_Self");
        assert_eq!(camel("2d", what).unwrap(), "T2d");
        assert!(camel("*/ \n", what).is_err());
        assert_eq!(
            upper_snake("gScene.material.albedo", what).unwrap(),
            "G_SCENE_MATERIAL_ALBEDO"
        );
        assert_eq!(upper_snake("ö", what).unwrap(), "U00F6");
        assert_eq!(upper_snake("x\n#error ", what).unwrap(), "X_ERROR");
        assert!(upper_snake("", what).is_err());
        assert_eq!(module_ident("layered/layered?Q=2"), "layered_layered_q_2");
        assert_eq!(module_ident("type"), "r_type");
        assert_eq!(module_ident("std"), "r_std");
        assert_eq!(module_ident(""), "e_");
    }

    #[test]
    fn collisions_take_the_first_free_suffix() {
        let mut scope = Scope::default();
        assert_eq!(scope.claim("a".into()), "a");
        assert_eq!(scope.claim("a_2".into()), "a_2");
        assert_eq!(scope.claim("a".into()), "a_3");
        assert_eq!(scope.claim("a".into()), "a_4");
        assert_eq!(scope.claim("a_3".into()), "a_3_2");
        assert!(scope.contains("a_4"));
    }

    #[test]
    fn every_emitted_form_is_checked() {
        for good in [
            "a",
            "r_match",
            "_pad0",
            "GSceneMaterial",
            "gr_u00F6_u00DF_e",
        ] {
            assert!(is_emitted_identifier(good), "{good}");
        }
        for bad in ["", "match", "1a", "a-b", "ö", "__x", "NULL", "SIZE_MAX"] {
            assert!(!is_emitted_identifier(bad), "{bad}");
        }
    }
}

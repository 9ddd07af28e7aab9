//! The check the fuzz target and the tests run on generated headers: outside comments and
//! string literals, every identifier-like token is either a word of the generator's own
//! templates or of the form declared names have, the code is ASCII, and the only
//! preprocessor lines are the generator's own.

use super::names::is_emitted_identifier;
use super::Language;

/// Words the generator's templates write themselves (keywords, types and library paths).
const TEMPLATE_WORDS: &[&str] = &[
    "C",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "PartialEq",
    "Pod",
    "Self",
    "Vec",
    "ZEROED",
    "Zeroable",
    "_",
    "_Static_assert",
    "all",
    "allow",
    "assert",
    "bytemuck",
    "clippy",
    "clone",
    "cmp",
    "const",
    "constexpr",
    "core",
    "cstddef",
    "cstdint",
    "dead_code",
    "default",
    "define",
    "derive",
    "double",
    "extend_from_slice",
    "f32",
    "f64",
    "float",
    "fmt",
    "fn",
    "for",
    "h",
    "i16",
    "i32",
    "i64",
    "i8",
    "impl",
    "in",
    "include",
    "inline",
    "int16_t",
    "int32_t",
    "int64_t",
    "int8_t",
    "marker",
    "mem",
    "mod",
    "mut",
    "namespace",
    "non_camel_case_types",
    "non_snake_case",
    "non_upper_case_globals",
    "offset_of",
    "offsetof",
    "once",
    "out",
    "pragma",
    "pub",
    "repr",
    "self",
    "size_of",
    "sizeof",
    "static_assert",
    "std",
    "stddef",
    "stdint",
    "struct",
    "to_le_bytes",
    "typedef",
    "u16",
    "u32",
    "u64",
    "u8",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "uint8_t",
    "v0",
    "v1",
    "v2",
    "value",
    "vec",
    "write_le_bytes",
];

/// Checks a header [`generate`](super::generate) made in `language`.
///
/// # Errors
/// The first offending line, with what is wrong with it.
pub fn check_identifiers(source: &str, language: Language) -> Result<(), String> {
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
                code.push_str(rest[..start].split("//").next().unwrap_or(""));
                if rest[..start].contains("//") {
                    break;
                }
                rest = &rest[start + 2..];
                in_block_comment = true;
            } else {
                code.push_str(rest.split("//").next().unwrap_or(""));
                break;
            }
        }
        // String literals hold only `Name: size`-style messages made of declared names.
        let code = code.split('"').step_by(2).collect::<Vec<_>>().join(" ");
        if !code.is_ascii() {
            return Err(format!("non-ASCII code: {line}"));
        }
        let trimmed = code.trim_start();
        if trimmed.starts_with('#')
            && language != Language::Rust
            && !["#pragma once", "#include <", "#define "]
                .iter()
                .any(|d| trimmed.starts_with(d))
        {
            return Err(format!("a directive the generator does not write: {line}"));
        }
        for token in code.split(|c: char| !(c == '_' || c.is_ascii_alphanumeric())) {
            if token.is_empty()
                || token.starts_with(|c: char| c.is_ascii_digit())
                || TEMPLATE_WORDS.binary_search(&token).is_ok()
            {
                continue;
            }
            if !is_emitted_identifier(token) {
                return Err(format!("`{token}` is not of the declared form: {line}"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn template_words_are_sorted() {
        assert!(super::TEMPLATE_WORDS.windows(2).all(|w| w[0] < w[1]));
    }
}

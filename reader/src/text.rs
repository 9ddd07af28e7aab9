//! Names from a package shown to people: in terminals (`dump`, `diff`), error messages and
//! comments of generated code. Names are arbitrary UTF-8 chosen by whoever made the package,
//! so control characters (terminal escape sequences, newlines) and bidirectional overrides
//! ("Trojan Source") are shown as `\u{..}` escapes instead of being written out.
//!
//! Every slangpack tool, the package assembly's messages and the `slangpack` command line show
//! package-derived text through [`shown`] or [`quoted`].

use std::borrow::Cow;

/// How [`escape`] writes a backslash and comment delimiters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escape {
    /// Readable text: `\` is `\\`.
    Text,
    /// Inside a double-quoted string: `\` is `\\`, `"` is `\"`.
    Quoted,
    /// A comment of generated code: `\` is `\u{5c}` (so no line ends in a backslash, which C
    /// and C++ would splice with the next line), and a `/` after a `*` or a `*` after a `/`
    /// gets a `\` before it (so no name ends a block comment or opens a nested one).
    Comment,
}

/// Characters shown as escapes: control characters (C0, DEL, C1) and the characters that
/// reorder or hide text (bidirectional marks, embeddings, overrides and isolates; line and
/// paragraph separators; the byte-order mark).
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// Appends `text` to `out`, escaped as `how` says.
pub fn escape(out: &mut String, text: &str, how: Escape) {
    for c in text.chars() {
        match c {
            '\\' if how == Escape::Comment => out.push_str("\\u{5c}"),
            '\\' => out.push_str("\\\\"),
            '"' if how == Escape::Quoted => out.push_str("\\\""),
            '/' if how == Escape::Comment && out.ends_with('*') => out.push_str("\\/"),
            '*' if how == Escape::Comment && out.ends_with('/') => out.push_str("\\*"),
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
}

/// `text` for a terminal: control characters and characters that reorder text as `\u{..}`
/// escapes, `\` as `\\`; borrowed when nothing needs escaping. Every tool (and the
/// `slangpack` command line) shows package-derived text, file names and error messages
/// through this function or [`quoted`].
pub fn shown(text: &str) -> Cow<'_, str> {
    if text.chars().any(|c| c == '\\' || is_hidden(c)) {
        let mut out = String::with_capacity(text.len() + 8);
        escape(&mut out, text, Escape::Text);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` in double quotes, escaped as [`shown`] does (and `"` as `\"`): how errors show a
/// name.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    escape(&mut out, text, Escape::Quoted);
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(text: &str) -> String {
        let mut out = String::new();
        escape(&mut out, text, Escape::Comment);
        out
    }

    #[test]
    fn terminal_text_shows_control_characters_as_escapes() {
        assert_eq!(shown("gScene.albedo"), "gScene.albedo");
        assert!(matches!(shown("größe"), Cow::Borrowed(_)));
        assert_eq!(shown("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(shown("a\nb\r\t"), "a\\u{a}b\\u{d}\\u{9}");
        assert_eq!(shown("x\u{202E}y\u{9b}"), "x\\u{202e}y\\u{9b}");
        assert_eq!(shown("a\\b"), "a\\\\b");
        assert_eq!(quoted("say \"hi\"\n"), "\"say \\\"hi\\\"\\u{a}\"");
    }

    #[test]
    fn comments_cannot_be_closed_opened_or_spliced() {
        for text in [
            "*/",
            "/*",
            "/*/",
            "**//**",
            "a*/#error x",
            "x\\",
            "\\\n",
            "*\\/",
        ] {
            let c = comment(text);
            assert!(!c.contains("*/") && !c.contains("/*"), "{text:?} -> {c}");
            assert!(!c.contains('\n') && !c.ends_with('\\'), "{text:?} -> {c}");
        }
        assert_eq!(comment("x\\"), "x\\u{5c}");
    }
}

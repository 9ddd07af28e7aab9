//! Slang's diagnostic text, each diagnostic once.
//!
//! One Slang call can report the same diagnostic several times (code generation of a program
//! whose parameter block has an interface without a conforming type reports `E50100` once
//! for each place it lowers the interface), and a compile gathers the warnings of several
//! calls (load, compose, link, code generation), which may repeat one another. Slang's own
//! command line prints each diagnostic once; [`dedupe`] keeps the first of each, verbatim and
//! in order. The same warning from another compile (another permutation) is another
//! diagnostic: deduplication is per compile.

/// `text` with every diagnostic after the first identical one left out.
///
/// A diagnostic starts at a line naming its severity — `error[E50100]: ...`,
/// `warning[E31106]: ...` in Slang's current format, `file(12): error 50100: ...` in its
/// classic one — and runs to the line before the next such line; its notes, source excerpts,
/// carets and closing line (`---'` in Slang's current format, which draws the end of the
/// excerpt's gutter) belong to it. Text before the first diagnostic is kept as it is.
pub(crate) fn dedupe(text: &str) -> String {
    let mut blocks: Vec<String> = Vec::new();
    for line in text.split_inclusive('\n') {
        match blocks.last_mut() {
            Some(block) if !starts_diagnostic(line) => block.push_str(line),
            _ => blocks.push(line.to_string()),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut seen: Vec<&str> = Vec::new();
    for block in &blocks {
        let key = block.trim_end();
        if starts_diagnostic(block) && seen.contains(&key) {
            continue;
        }
        seen.push(key);
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(block);
    }
    out
}

/// Whether `line` is the first line of a diagnostic (see [`dedupe`]); notes are not: they
/// belong to the diagnostic before them.
fn starts_diagnostic(line: &str) -> bool {
    const SEVERITIES: [&str; 4] = ["error", "warning", "fatal error", "internal error"];
    let rich = SEVERITIES.iter().any(|severity| {
        line.strip_prefix(severity)
            .is_some_and(|rest| rest.starts_with('[') || rest.starts_with(':'))
    });
    let classic = !line.starts_with(char::is_whitespace)
        && SEVERITIES
            .iter()
            .any(|severity| line.contains(&format!("): {severity} ")));
    rich || classic
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One `E50100` as Slang 2026.12 writes it, its excerpt closed by `---'`.
    const E50100: &str = "error[E50100]: no type conformances found\n  --> noconf.slang:13:33\n   \
                          |\n13 | gOut[id.x] = gMaterial.color();\n   |                             \
                          ^ No type conformances are found for interface 'IMaterial'.\n---'\n";

    #[test]
    fn a_diagnostic_repeated_in_one_text_is_kept_once_verbatim() {
        let four = E50100.repeat(4);
        assert_eq!(dedupe(&four), E50100);
    }

    #[test]
    fn different_diagnostics_stay_in_order_with_their_notes() {
        let warning = "warning[E31106]: members moved\n  --> a.slang:20:39\n   |\n20 | x\n---'\n";
        let note = "note: see the declaration of `x`\n  --> a.slang:3:1\n";
        let text = format!("{warning}{note}{E50100}{warning}{note}{E50100}");
        assert_eq!(dedupe(&text), format!("{warning}{note}{E50100}"));
    }

    #[test]
    fn the_same_message_with_another_note_is_another_diagnostic() {
        let first = "warning[E1]: w\nnote: here\n";
        let second = "warning[E1]: w\nnote: there\n";
        let text = format!("{first}{second}{first}");
        assert_eq!(dedupe(&text), format!("{first}{second}"));
    }

    #[test]
    fn classic_diagnostics_are_deduplicated_and_other_text_is_kept() {
        let classic = "a.slang(4): error 30015: undefined identifier 'q'.\n    q = 1;\n    ^\n";
        let text = format!("preamble\n{classic}{classic}");
        assert_eq!(dedupe(&text), format!("preamble\n{classic}"));
        assert_eq!(dedupe(""), "");
        assert_eq!(
            dedupe("no diagnostic\nno diagnostic\n"),
            "no diagnostic\nno diagnostic\n"
        );
    }

    #[test]
    fn a_last_diagnostic_without_a_newline_matches_one_with_it() {
        let text = format!("{E50100}{}", E50100.trim_end());
        assert_eq!(dedupe(&text), E50100);
    }
}

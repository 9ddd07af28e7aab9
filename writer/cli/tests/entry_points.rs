//! `-e` per input file (`FILE:NAME:STAGE`), and each Slang diagnostic printed once.

mod common;

use common::{s, slangpack, text, write};

/// Two files, each with its own entry point (not marked `[shader(...)]`, so each needs its
/// stage): `-e NAME:STAGE` applies to every input and fails on the file without that
/// function; `-e FILE:NAME:STAGE` gives each file its own, matched by file name or by path;
/// a file named by no input is refused as a usage error before anything compiles.
#[test]
fn entry_points_can_be_chosen_per_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.slang",
        "RWStructuredBuffer<float> gA;\n\
         [numthreads(1,1,1)] void mainA(uint3 id: SV_DispatchThreadID) { gA[id.x] = 1.0; }\n\
         [numthreads(1,1,1)] void spareA(uint3 id: SV_DispatchThreadID) { gA[id.x] = 3.0; }\n",
    );
    let b = write(
        dir.path(),
        "sub/b.slang",
        "RWStructuredBuffer<float> gB;\n\
         [numthreads(1,1,1)] void mainB(uint3 id: SV_DispatchThreadID) { gB[id.x] = 2.0; }\n",
    );
    let out = dir.path().join("p.slangpack");
    let bake = |entries: &[&str]| {
        let mut args = vec!["bake", s(&a), s(&b), "-o", s(&out), "--force"];
        for e in entries {
            args.extend(["-e", e]);
        }
        slangpack(&args)
    };

    let shared = bake(&["mainA:compute", "mainB:compute"]);
    assert_eq!(shared.status.code(), Some(1), "{}", text(&shared.stderr));

    for entries in [
        ["a.slang:mainA:compute", "b.slang:mainB:compute"],
        ["a.slang:mainA:compute", "sub/b.slang:mainB:compute"],
    ] {
        let per_file = bake(&entries);
        assert_eq!(
            per_file.status.code(),
            Some(0),
            "{entries:?}: {}",
            text(&per_file.stderr)
        );
        let dump = slangpack(&["dump", s(&out)]);
        let dump = text(&dump.stdout);
        assert!(
            dump.contains("entry a\n") && dump.contains("entry sub/b\n"),
            "{dump}"
        );
        assert!(dump.contains("mainA") && dump.contains("mainB"), "{dump}");
        assert!(!dump.contains("spareA"), "{dump}");
    }

    let typo = bake(&["a.slang:mainA:compute", "c.slang:mainB:compute"]);
    assert_eq!(typo.status.code(), Some(1));
    let stderr = text(&typo.stderr);
    assert!(
        stderr.contains("-e c.slang:mainB:compute: `c.slang` names none of the bake's inputs"),
        "{stderr}"
    );
}

/// Slang's code generation repeats E50100 for a parameter block of an interface without a
/// conformance; the CLI prints it once, with Slang's closing line once (`--'` here: dashes
/// as wide as the excerpt's line-number gutter, then the corner).
#[test]
fn a_repeated_slang_diagnostic_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let shader = write(
        dir.path(),
        "noconf.slang",
        "interface IShade { float4 shade(); };\nParameterBlock<IShade> gShade;\n\
         RWStructuredBuffer<float4> gOut;\n[shader(\"compute\")][numthreads(1,1,1)]\n\
         void main() { gOut[0] = gShade.shade(); }\n",
    );
    let out = dir.path().join("p.slangpack");
    let bake = slangpack(&["bake", s(&shader), "-o", s(&out), "--color", "never"]);
    assert_eq!(bake.status.code(), Some(1));
    let stderr = text(&bake.stderr);
    assert_eq!(stderr.matches("E50100").count(), 1, "{stderr}");
    let closing = stderr
        .lines()
        .filter(|l| l.len() > 1 && l.trim_start_matches('-') == "'")
        .count();
    assert_eq!(closing, 1, "{stderr}");
}

//! The one parser of compile options written as text: the `slangpack bake` command line, the
//! `[options]` and `[[program]]` tables of a manifest and the `build.rs` API all turn their
//! values into the fields of the compiler's options (`CompileOptions`) through these functions, so an option means the same
//! and is refused by the same rule wherever it is given. The words of one value (a matrix
//! layout, a binding shift, ...) are its type's `FromStr`, beside the type in
//! `slangpack_slang::session`.

use slangpack_slang::session::{DebugLevel, Optimization, WarningControl};

/// `NAME` or `NAME=VALUE` (a bare name is defined as `1`, as `slangc -D` does).
///
/// # Errors
/// An empty name.
pub fn define(spec: &str) -> Result<(String, String), String> {
    let (name, value) = spec.split_once('=').unwrap_or((spec, "1"));
    if name.trim().is_empty() {
        return Err(format!("a define needs a name: `{spec}`"));
    }
    Ok((name.to_string(), value.to_string()))
}

/// `TYPE:INTERFACE`, both non-empty.
///
/// # Errors
/// A spec without `:` or with an empty side.
pub fn conformance(spec: &str) -> Result<(String, String), String> {
    match spec.split_once(':') {
        Some((ty, interface)) if !ty.trim().is_empty() && !interface.trim().is_empty() => {
            Ok((ty.to_string(), interface.to_string()))
        }
        _ => Err(format!("a conformance is TYPE:INTERFACE, got `{spec}`")),
    }
}

/// The per-file form of an entry-point request, `FILE:NAME:STAGE`, as (file, `NAME:STAGE`);
/// `None` for the forms that apply to every input (`NAME`, `NAME:STAGE`). The file is
/// everything before the last two `:`s, so it may hold `:`s itself (`C:\\shaders\\a.slang`).
pub fn entry_point_file(spec: &str) -> Option<(&str, &str)> {
    let (rest, _stage) = spec.rsplit_once(':')?;
    let (file, _name) = rest.rsplit_once(':')?;
    Some((file, &spec[file.len() + 1..]))
}

/// The entry-point requests (`-e`, a manifest's `entry_points`) that apply to the program
/// whose source is `source` (the path as given) and `relative` (its path relative to the bake
/// root): every `NAME` and `NAME:STAGE`, and every `FILE:NAME:STAGE` whose `FILE` names this
/// source, as `NAME:STAGE`. `FILE` names the source when it is the path as given, the path
/// relative to the bake root, or a trailing part of the path such as its file name
/// (`scene.slang`, `shaders/scene.slang`). A program no request applies to compiles every
/// entry point it declares.
pub fn entry_points_for(specs: &[String], source: &std::path::Path, relative: &str) -> Vec<String> {
    specs
        .iter()
        .filter_map(|spec| match entry_point_file(spec) {
            None => Some(spec.clone()),
            Some((file, request)) => names_file(file, source, relative).then(|| request.into()),
        })
        .collect()
}

/// Whether `file` (from `FILE:NAME:STAGE`) names the source at `source`, `relative` to the
/// bake root (see [`entry_points_for`]).
pub fn names_file(file: &str, source: &std::path::Path, relative: &str) -> bool {
    use std::path::{Component, Path, PathBuf};
    let file_path: PathBuf = Path::new(file)
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    !file.is_empty()
        && (file == relative
            || Path::new(file) == source
            || (file_path.components().next().is_some() && source.ends_with(&file_path)))
}

/// Checks that every `FILE:NAME:STAGE` among `specs` names one of `sources` (each the path as
/// given and the path relative to the bake root).
///
/// # Errors
/// The first request whose file names no input, with the inputs' relative paths.
pub fn check_entry_point_files<'s>(
    specs: &[String],
    sources: impl Iterator<Item = (&'s std::path::Path, &'s str)> + Clone,
) -> Result<(), String> {
    for spec in specs {
        let Some((file, _)) = entry_point_file(spec) else {
            continue;
        };
        if !sources
            .clone()
            .any(|(source, relative)| names_file(file, source, relative))
        {
            let mut inputs: Vec<&str> = sources.clone().map(|(_, relative)| relative).collect();
            inputs.sort_unstable();
            inputs.dedup();
            return Err(format!(
                "-e {spec}: `{file}` names none of the bake's inputs ({})",
                inputs.join(", ")
            ));
        }
    }
    Ok(())
}

/// An optimisation level `0..=3`.
///
/// # Errors
/// A level above 3.
pub fn optimization(level: u8) -> Result<Optimization, String> {
    Ok(match level {
        0 => Optimization::None,
        1 => Optimization::Default,
        2 => Optimization::High,
        3 => Optimization::Maximal,
        _ => return Err(format!("the optimisation level is 0..3, got {level}")),
    })
}

/// A debug-information level `0..=3` (`slangc -g0`..`-g3`; `-g` alone is level 2).
///
/// # Errors
/// A level above 3.
pub fn debug_level(level: u8) -> Result<DebugLevel, String> {
    Ok(match level {
        0 => DebugLevel::None,
        1 => DebugLevel::Minimal,
        2 => DebugLevel::Standard,
        3 => DebugLevel::Maximal,
        _ => return Err(format!("the debug level is 0..3, got {level}")),
    })
}

/// A warning control: `NAME` enables a warning, `no-NAME` disables it, `error` makes every
/// warning an error and `error=NAME,NAME` the named ones (`slangc -W`, `-Wno-`,
/// `-warnings-as-errors`). Names are Slang's warning names or numbers.
///
/// # Errors
/// An empty name.
pub fn warning(spec: &str) -> Result<WarningControl, String> {
    let empty = || format!("a warning control needs a warning name: `{spec}`");
    if spec == "error" {
        return Ok(WarningControl::AsErrors("all".into()));
    }
    if let Some(names) = spec.strip_prefix("error=") {
        return if names.split(',').any(|n| n.trim().is_empty()) {
            Err(empty())
        } else {
            Ok(WarningControl::AsErrors(names.into()))
        };
    }
    let (name, control): (&str, fn(String) -> WarningControl) = match spec.strip_prefix("no-") {
        Some(name) => (name, WarningControl::Disable),
        None => (spec, WarningControl::Enable),
    };
    if name.trim().is_empty() {
        return Err(empty());
    }
    Ok(control(name.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{
        BindingShift, BufferLayout, FloatingPointMode, GlobalsBinding, RegisterClass,
    };

    #[test]
    fn entry_point_requests_are_chosen_per_file() {
        let specs: Vec<String> = [
            "main",
            "blur.slang:blurH:compute",
            "fx/tone.slang:tone:compute",
        ]
        .map(String::from)
        .to_vec();
        let blur = std::path::Path::new("shaders/fx/blur.slang");
        assert_eq!(
            entry_points_for(&specs, blur, "fx/blur.slang"),
            ["main", "blurH:compute"]
        );
        let tone = std::path::Path::new("./shaders/fx/tone.slang");
        assert_eq!(
            entry_points_for(&specs, tone, "fx/tone.slang"),
            ["main", "tone:compute"]
        );
        let other = std::path::Path::new("shaders/other.slang");
        assert_eq!(entry_points_for(&specs, other, "other.slang"), ["main"]);
        // Not a trailing part of a name: `lur.slang` does not name `blur.slang`.
        assert!(!names_file("lur.slang", blur, "fx/blur.slang"));
        assert!(names_file("./fx/blur.slang", blur, "fx/blur.slang"));
        assert!(!names_file("", blur, "fx/blur.slang"));
        assert_eq!(entry_point_file("main:compute"), None);
        assert_eq!(entry_point_file("main"), None);
        assert_eq!(
            entry_point_file(r"C:\s\a.slang:main:compute"),
            Some((r"C:\s\a.slang", "main:compute"))
        );
        let sources = [(blur, "fx/blur.slang"), (tone, "fx/tone.slang")];
        assert!(check_entry_point_files(&specs, sources.iter().copied()).is_ok());
        let typo = ["blurr.slang:blurH:compute".to_string()];
        let e = check_entry_point_files(&typo, sources.iter().copied()).unwrap_err();
        assert_eq!(
            e,
            "-e blurr.slang:blurH:compute: `blurr.slang` names none of the bake's inputs \
             (fx/blur.slang, fx/tone.slang)"
        );
    }

    #[test]
    fn every_option_has_one_rule() {
        assert_eq!(define("A").unwrap(), ("A".into(), "1".into()));
        assert_eq!(define("A=").unwrap(), ("A".into(), String::new()));
        assert!(define("=1").is_err());
        assert_eq!(
            conformance("Glossy:ISurface").unwrap(),
            ("Glossy".into(), "ISurface".into())
        );
        for bad in ["Glossy", "Glossy:", ":ISurface", " : "] {
            assert!(conformance(bad).is_err(), "{bad}");
        }
        assert_eq!(optimization(3).unwrap(), Optimization::Maximal);
        assert!(optimization(4).is_err());
        assert_eq!(debug_level(0).unwrap(), DebugLevel::None);
        assert!(debug_level(4).is_err());
        assert_eq!("scalar".parse::<BufferLayout>(), Ok(BufferLayout::Scalar));
        assert!("std140".parse::<BufferLayout>().is_err());
        assert_eq!(
            "fast".parse::<FloatingPointMode>(),
            Ok(FloatingPointMode::Fast)
        );
        assert_eq!(
            "t 10 2".parse::<BindingShift>(),
            Ok(BindingShift {
                class: RegisterClass::ShaderResource,
                shift: 10,
                set: 2
            })
        );
        for bad in ["x 1 0", "t 1", "t -1 0", "t 1 0 0", "t 16777216 0"] {
            assert!(bad.parse::<BindingShift>().is_err(), "{bad}");
        }
        assert_eq!(
            "3 1".parse::<GlobalsBinding>(),
            Ok(GlobalsBinding { binding: 3, set: 1 })
        );
        assert!("3".parse::<GlobalsBinding>().is_err());
        assert_eq!(
            warning("no-30081").unwrap(),
            WarningControl::Disable("30081".into())
        );
        assert_eq!(
            warning("error").unwrap(),
            WarningControl::AsErrors("all".into())
        );
        assert_eq!(
            warning("error=30081,30856").unwrap(),
            WarningControl::AsErrors("30081,30856".into())
        );
        for bad in ["", "no-", "error=", "error=a,"] {
            assert!(warning(bad).is_err(), "{bad:?}");
        }
    }
}

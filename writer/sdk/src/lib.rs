//! The Slang SDK slangpack is pinned to, provisioned anywhere.
//!
//! Slang comes from the PyPI wheel `slangpy` at a pinned version, downloaded with pip
//! (`--require-hashes`), checked once more against the pinned sha256, and unpacked (the
//! compiler library, the two libraries it loads beside itself, and the `slang*.h` headers)
//! into a staging directory that replaces the destination only when complete. A stamp file
//! holding the wheel's hash marks a finished SDK, so installing again downloads nothing.
//!
//! The result is a directory `shader-slang-sys` accepts as `SLANG_DIR`: `include/slang.h`
//! and `lib/libslang.so` (a link to the compiler library, which is what `-lslang` finds).
//! Both the project's own `cargo xtask provision` and `slangpack sdk install DIR` (for crates
//! outside this repository that bake from `build.rs`) go through [`install`].
//!
//! ```no_run
//! let dir = std::path::Path::new("/opt/slang-sdk");
//! let sdk = slangpack_sdk::install(dir, &mut |line| eprintln!("{line}"))?;
//! println!("{}", slangpack_sdk::cargo_config(&sdk));
//! # Ok::<(), String>(())
//! ```
#![deny(missing_docs)]

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The wheel that carries the Slang compiler, pinned by version.
pub const WHEEL_REQUIREMENT: &str = "slangpy==0.43.1";
/// The wheel's file name for the platform pip is asked for.
pub const WHEEL_FILE: &str = "slangpy-0.43.1-cp311-cp311-manylinux_2_34_x86_64.whl";
/// The wheel's sha256, checked by pip and again here before anything is unpacked.
pub const WHEEL_SHA256: &str = "965dbbd1d907c90e17027945780146a67c66baf766f3d0b8af3f52ea2c4a8eb9";
/// The Slang release inside that wheel.
pub const SLANG_VERSION: &str = "2026.12";
/// The compiler library; `libslang.so` (what `shader-slang-sys` links) points at it.
const COMPILER_LIB: &str = "libslang-compiler.so.0.2026.12";
/// Libraries the compiler loads from its own directory at run time.
const SIDE_LIBS: [&str; 2] = [
    "libslang-glslang-2026.12.so",
    "libslang-glsl-module-2026.12.so",
];
/// Written last into the SDK directory; its presence (holding the wheel's hash) means the SDK
/// is complete.
const STAMP: &str = ".provisioned";

/// A complete Slang SDK directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sdk {
    /// The directory to set as `SLANG_DIR`.
    pub dir: PathBuf,
}

impl Sdk {
    /// `include/`: `slang.h` and the headers it includes.
    pub fn include_dir(&self) -> PathBuf {
        self.dir.join("include")
    }

    /// `lib/`: the compiler library, `libslang.so` and the libraries Slang loads beside itself.
    pub fn lib_dir(&self) -> PathBuf {
        self.dir.join("lib")
    }
}

/// The SDK in `dir` when a complete one of the pinned version is there, without touching the
/// network.
pub fn installed(dir: &Path) -> Option<Sdk> {
    std::fs::read_to_string(dir.join(STAMP))
        .is_ok_and(|s| s.trim() == WHEEL_SHA256)
        .then(|| Sdk {
            dir: dir.to_path_buf(),
        })
}

/// Makes `dir` hold the pinned Slang SDK: nothing to do when it already does, else downloads
/// the wheel with pip and unpacks it. `log` receives one line per step taken.
///
/// # Errors
/// A message naming what is missing (Python with pip, access to PyPI) or what went wrong
/// (hash mismatch, an unwritable directory); `dir` is left as it was.
pub fn install(dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Sdk, String> {
    if let Some(sdk) = installed(dir) {
        return Ok(sdk);
    }
    let python = find_python()?;
    let name = dir
        .file_name()
        .map_or_else(|| "slang-sdk".into(), |n| n.to_string_lossy().into_owned());
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let staging = parent.join(format!(".{name}.partial"));
    let _ = std::fs::remove_dir_all(&staging);
    let download = staging.join("download");
    std::fs::create_dir_all(&download)
        .map_err(|e| format!("cannot create {}: {e}", download.display()))?;

    log(&format!(
        "downloading {WHEEL_REQUIREMENT} (Slang {SLANG_VERSION}, ~92 MB) with pip"
    ));
    let requirements = staging.join("requirements.txt");
    std::fs::write(
        &requirements,
        format!("{WHEEL_REQUIREMENT} --hash=sha256:{WHEEL_SHA256}\n"),
    )
    .map_err(|e| format!("cannot write {}: {e}", requirements.display()))?;
    let status = Command::new(&python)
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .args([
            "--python-version",
            "3.11",
            "--platform",
            "manylinux_2_34_x86_64",
        ])
        .args([
            "--require-hashes",
            "--disable-pip-version-check",
            "--quiet",
            "-r",
        ])
        .arg(&requirements)
        .arg("-d")
        .arg(&download)
        .status()
        .map_err(|e| format!("could not run `{python} -m pip`: {e}"))?;
    if !status.success() {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!(
            "pip could not download {WHEEL_REQUIREMENT} ({status}); it needs access to PyPI. \
             Alternatively set SLANG_DIR to a Slang {SLANG_VERSION} SDK (include/slang.h, \
             lib/libslang.so)"
        ));
    }
    let wheel = download.join(WHEEL_FILE);
    let hex = sha256_hex(&wheel)?;
    if hex != WHEEL_SHA256 {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!(
            "{} has sha256 {hex}, expected {WHEEL_SHA256}; refusing to use it",
            wheel.display()
        ));
    }

    log("unpacking the Slang libraries and headers");
    let status = Command::new(&python)
        .args(["-c", UNPACK_SCRIPT])
        .arg(&wheel)
        .arg(&staging)
        .arg(COMPILER_LIB)
        .args(SIDE_LIBS)
        .status()
        .map_err(|e| format!("could not run {python}: {e}"))?;
    if !status.success() {
        return Err(format!("unpacking {} failed ({status})", wheel.display()));
    }
    link_compiler(&staging.join("lib"))?;
    for leftover in [&download, &requirements] {
        let _ = std::fs::remove_dir_all(leftover);
        let _ = std::fs::remove_file(leftover);
    }
    std::fs::write(staging.join(STAMP), format!("{WHEEL_SHA256}\n"))
        .map_err(|e| format!("cannot write the stamp: {e}"))?;
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .map_err(|e| format!("cannot replace {}: {e}", dir.display()))?;
    }
    std::fs::rename(&staging, dir).map_err(|e| format!("cannot move the SDK in place: {e}"))?;
    log(&format!(
        "Slang {SLANG_VERSION} SDK ready in {}",
        dir.display()
    ));
    Ok(Sdk {
        dir: dir.to_path_buf(),
    })
}

/// What a crate outside this repository puts in its `.cargo/config.toml` so that building
/// `slangpack-writer` (bindgen in `shader-slang-sys`, and the rpath its build scripts bake
/// into binaries) finds this SDK.
pub fn cargo_config(sdk: &Sdk) -> String {
    let dir = sdk.dir.canonicalize().unwrap_or_else(|_| sdk.dir.clone());
    let escaped = dir
        .display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    format!("[env]\nSLANG_DIR = \"{escaped}\"\n")
}

fn sha256_hex(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// `libslang.so` and `libslang-compiler.so` pointing at the compiler library.
#[cfg(unix)]
fn link_compiler(lib: &Path) -> Result<(), String> {
    for link in ["libslang.so", "libslang-compiler.so"] {
        std::os::unix::fs::symlink(COMPILER_LIB, lib.join(link))
            .map_err(|e| format!("cannot create {link}: {e}"))?;
    }
    Ok(())
}

/// The wheel is a Linux build: elsewhere there is nothing to link against.
#[cfg(not(unix))]
fn link_compiler(_: &Path) -> Result<(), String> {
    Err(format!(
        "the pinned Slang wheel is a Linux build; on this platform set SLANG_DIR to a Slang \
         {SLANG_VERSION} SDK"
    ))
}

/// Copies `slangpy/<lib>` into `<out>/lib` and `slangpy/include/slang*.h` into
/// `<out>/include`. Arguments: wheel, out, library names...
const UNPACK_SCRIPT: &str = r#"
import os, sys, zipfile
wheel, out, libs = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(os.path.join(out, "lib"), exist_ok=True)
os.makedirs(os.path.join(out, "include"), exist_ok=True)
with zipfile.ZipFile(wheel) as z:
    names = set(z.namelist())
    for lib in libs:
        member = "slangpy/" + lib
        if member not in names:
            sys.exit("the wheel has no " + member)
        with z.open(member) as src, open(os.path.join(out, "lib", lib), "wb") as dst:
            dst.write(src.read())
        os.chmod(os.path.join(out, "lib", lib), 0o755)
    headers = [n for n in names if n.startswith("slangpy/include/slang") and n.endswith(".h")
               and n.count("/") == 2]
    if "slangpy/include/slang.h" not in headers:
        sys.exit("the wheel has no slangpy/include/slang.h")
    for member in headers:
        with z.open(member) as src, open(os.path.join(out, "include", os.path.basename(member)), "wb") as dst:
            dst.write(src.read())
"#;

fn find_python() -> Result<String, String> {
    for candidate in ["python3", "python"] {
        let ok = Command::new(candidate)
            .args(["-m", "pip", "--version"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Ok(candidate.to_string());
        }
    }
    Err(
        "downloading Slang needs Python 3 with pip (Debian: `apt-get install python3-pip`), \
         or set SLANG_DIR to a Slang SDK"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_without_the_stamp_is_not_an_sdk() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(installed(dir.path()), None);
        std::fs::write(dir.path().join(STAMP), "some other hash\n").unwrap();
        assert_eq!(installed(dir.path()), None);
        std::fs::write(dir.path().join(STAMP), format!("{WHEEL_SHA256}\n")).unwrap();
        assert_eq!(
            installed(dir.path()).map(|s| s.dir),
            Some(dir.path().into())
        );
    }

    #[test]
    fn cargo_config_is_valid_toml_for_odd_paths() {
        let sdk = Sdk {
            dir: PathBuf::from("/tmp/a \"quoted\" dir"),
        };
        assert_eq!(
            cargo_config(&sdk),
            "[env]\nSLANG_DIR = \"/tmp/a \\\"quoted\\\" dir\"\n"
        );
    }
}

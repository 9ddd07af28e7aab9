//! Provisioning: libclang, the pinned Slang SDK and the test suite's system packages.
//!
//! Every step checks first and acts only when something is missing, so running it again is
//! cheap and downloads nothing. Every failure names what is missing and how to supply it.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The wheel that carries the Slang compiler, pinned by version and hash.
const WHEEL_REQUIREMENT: &str = "slangpy==0.43.1";
const WHEEL_FILE: &str = "slangpy-0.43.1-cp311-cp311-manylinux_2_34_x86_64.whl";
const WHEEL_SHA256: &str = "965dbbd1d907c90e17027945780146a67c66baf766f3d0b8af3f52ea2c4a8eb9";
/// The Slang release inside that wheel.
const SLANG_VERSION: &str = "2026.12";
/// The compiler library; `libslang.so` (what `shader-slang-sys` links) points at it.
const COMPILER_LIB: &str = "libslang-compiler.so.0.2026.12";
/// Libraries the compiler loads from its own directory at run time.
const SIDE_LIBS: [&str; 2] = [
    "libslang-glslang-2026.12.so",
    "libslang-glsl-module-2026.12.so",
];
/// Written last into the SDK directory; its presence means the SDK is complete.
const STAMP: &str = ".provisioned";

/// Debian packages the test suite needs: the Vulkan loader, the Khronos validation layer,
/// `spirv-cross` as an independent reflection oracle, C/C++ compilers for the generated bind
/// headers and the C API's examples, the Vulkan headers those examples include, and glslang
/// (`glslangValidator`), which checks the GLSL and HLSL a bake with `--target glsl,hlsl`
/// emits. The driver (lavapipe) is [`ensure_lavapipe`]'s business.
const TEST_PACKAGES: [&str; 7] = [
    "libvulkan1",
    "libvulkan-dev",
    "vulkan-validationlayers",
    "spirv-cross",
    "glslang-tools",
    "gcc",
    "g++",
];

/// What the caller is about to do, which decides what must be present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Building the writer: libclang and Slang.
    Build,
    /// Building and running the test suite: also the Vulkan driver and friends.
    Test,
}

/// Where the Slang headers and libraries are, however they were found.
#[derive(Debug)]
pub struct SlangSdk {
    include_dir: PathBuf,
    lib_dir: PathBuf,
}

impl SlangSdk {
    /// Points a child `cargo` at this SDK. `shader-slang-sys` reads `SLANG_INCLUDE_DIR` and
    /// `SLANG_LIB_DIR` before `SLANG_DIR`; the project's build scripts read the same variables
    /// to put the library directory on the binaries' run-time search path.
    pub fn apply_env(&self, command: &mut Command) {
        command.env("SLANG_INCLUDE_DIR", &self.include_dir);
        command.env("SLANG_LIB_DIR", &self.lib_dir);
    }
}

/// Makes sure what `needs` asks for is present and returns the Slang SDK to build against.
///
/// # Errors
/// A message naming what is missing and how to provide it.
pub fn provision(root: &Path, needs: Needs) -> Result<SlangSdk, String> {
    ensure_libclang()?;
    let sdk = ensure_slang(root)?;
    if needs == Needs::Test {
        ensure_lavapipe()?;
        ensure_debian_packages(&TEST_PACKAGES)?;
    }
    Ok(sdk)
}

/// The first Mesa release whose lavapipe has the descriptor-indexing features unbounded
/// (bindless) arrays need.
const MESA_WITH_DESCRIPTOR_INDEXING: u32 = 23;

/// Mesa's lavapipe, a real Vulkan driver on the CPU. Debian 12's own Mesa (22.3) lacks
/// descriptor indexing, so on bookworm the driver comes from bookworm-backports (Mesa 25).
fn ensure_lavapipe() -> Result<(), String> {
    if mesa_major().is_some_and(|v| v >= MESA_WITH_DESCRIPTOR_INDEXING) {
        return Ok(());
    }
    let bookworm = std::fs::read_to_string("/etc/os-release")
        .is_ok_and(|s| s.lines().any(|l| l.trim() == "VERSION_CODENAME=bookworm"));
    if !bookworm {
        // Elsewhere take the distribution's Mesa; the bindless proof then reports itself
        // unproven instead of failing (see `bindless_required`).
        return ensure_debian_packages(&["mesa-vulkan-drivers"]);
    }
    let list = Path::new("/etc/apt/sources.list.d/slangpack-bookworm-backports.sources");
    if !list.exists() {
        eprintln!("xtask: adding bookworm-backports for a lavapipe with descriptor indexing");
        let text = "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\n\
                    Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n";
        write_as_root(list, text)?;
    }
    eprintln!("xtask: installing mesa-vulkan-drivers from bookworm-backports");
    apt_install(&["-t", "bookworm-backports", "mesa-vulkan-drivers"]).map_err(|e| {
        format!(
            "the Vulkan tests need Mesa's lavapipe (Debian package mesa-vulkan-drivers, 23 or \
             newer for descriptor indexing; bookworm-backports has it): {e}"
        )
    })
}

/// Whether the installed lavapipe must prove unbounded arrays (Mesa 23 or newer).
pub fn bindless_required() -> bool {
    mesa_major().is_some_and(|v| v >= MESA_WITH_DESCRIPTOR_INDEXING)
}

fn mesa_major() -> Option<u32> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Status} ${Version}", "mesa-vulkan-drivers"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.strip_prefix("install ok installed ")?;
    version.split(['.', ':']).next()?.parse().ok()
}

fn write_as_root(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::write(path, text).is_ok() {
        return Ok(());
    }
    let mut child = Command::new("sudo")
        .args(["-n", "tee"])
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if let Some(stdin) = child.stdin.as_mut() {
        use std::io::Write;
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cannot write {} (need root)", path.display()))
    }
}

/// bindgen (run by `shader-slang-sys`) loads libclang.
fn ensure_libclang() -> Result<(), String> {
    if libclang_present() {
        return Ok(());
    }
    eprintln!("xtask: libclang not found; installing Debian package libclang-dev");
    apt_install(&["libclang-dev"]).map_err(|e| {
        format!(
            "libclang is needed to build shader-slang-sys (bindgen) and could not be installed: \
             {e}\n  install it yourself (Debian/Ubuntu: `apt-get install libclang-dev`) or point \
             LIBCLANG_PATH at the directory holding libclang.so"
        )
    })?;
    if libclang_present() {
        Ok(())
    } else {
        Err("libclang-dev was installed but no libclang.so was found; set LIBCLANG_PATH".into())
    }
}

fn libclang_present() -> bool {
    if let Some(dir) = std::env::var_os("LIBCLANG_PATH") {
        if dir_has_libclang(Path::new(&dir)) {
            return true;
        }
    }
    let mut dirs = vec![
        PathBuf::from("/usr/lib/x86_64-linux-gnu"),
        PathBuf::from("/usr/lib64"),
    ];
    if let Ok(read) = std::fs::read_dir("/usr/lib") {
        dirs.extend(
            read.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("llvm-"))
                .map(|e| e.path().join("lib")),
        );
    }
    dirs.iter().any(|d| dir_has_libclang(d))
}

/// Whether `dir` holds a library bindgen (through clang-sys) can load as libclang.
fn dir_has_libclang(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|read| {
        read.flatten()
            .any(|e| is_libclang_name(&e.file_name().to_string_lossy()))
    })
}

/// The file names clang-sys loads: `libclang.so`, `libclang.so.N`, `libclang-V.so` and
/// `libclang-V.so.N` with a numeric version `V`. `libclang-cpp.so.14` (the C++ interface,
/// Debian's `libclang-cpp14`) is not libclang and does not count.
fn is_libclang_name(name: &str) -> bool {
    if name == "libclang.so" || name.starts_with("libclang.so.") {
        return true;
    }
    let Some(rest) = name.strip_prefix("libclang-") else {
        return false;
    };
    let Some((version, suffix)) = rest.split_once(".so") else {
        return false;
    };
    version.starts_with(|c: char| c.is_ascii_digit())
        && version.chars().all(|c| c.is_ascii_digit() || c == '.')
        && (suffix.is_empty() || suffix.starts_with('.'))
}

/// Chooses the Slang SDK: a user's own `SLANG_DIR`, else a `VULKAN_SDK` that carries Slang,
/// else the pinned wheel unpacked into `<root>/.slang-sdk`.
fn ensure_slang(root: &Path) -> Result<SlangSdk, String> {
    let ours = root.join(".slang-sdk");
    // `.cargo/config.toml` sets SLANG_DIR to our directory for every cargo-run process; any
    // other value came from the user.
    if let Some(dir) = std::env::var_os("SLANG_DIR").map(PathBuf::from) {
        if !same_path(&dir, &ours) {
            return user_sdk("SLANG_DIR", dir.join("include"), dir.join("lib"));
        }
    }
    if let Some(dir) = std::env::var_os("VULKAN_SDK").map(PathBuf::from) {
        return user_sdk("VULKAN_SDK", dir.join("include/slang"), dir.join("lib"));
    }
    let sdk = SlangSdk {
        include_dir: ours.join("include"),
        lib_dir: ours.join("lib"),
    };
    let stamp = ours.join(STAMP);
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == WHEEL_SHA256) {
        eprintln!(
            "xtask: Slang {SLANG_VERSION} SDK present in {}",
            ours.display()
        );
        return Ok(sdk);
    }
    install_wheel(root, &ours)?;
    Ok(sdk)
}

fn user_sdk(var: &str, include_dir: PathBuf, lib_dir: PathBuf) -> Result<SlangSdk, String> {
    if !include_dir.join("slang.h").is_file() {
        return Err(format!(
            "{var} is set but {} has no slang.h; unset {var} to use the pinned Slang, or point \
             it at a Slang SDK",
            include_dir.display()
        ));
    }
    if !lib_dir.join("libslang.so").exists() {
        return Err(format!(
            "{var} is set but {} has no libslang.so (shader-slang-sys links -lslang); add a \
             libslang.so link to the compiler library or unset {var}",
            lib_dir.display()
        ));
    }
    eprintln!(
        "xtask: using the Slang SDK from {var} ({})",
        lib_dir.display()
    );
    Ok(SlangSdk {
        include_dir,
        lib_dir,
    })
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Downloads the pinned wheel with pip (hash-checked), checks the hash again, and unpacks the
/// libraries and headers into a fresh directory that replaces `dest` only once complete.
fn install_wheel(root: &Path, dest: &Path) -> Result<(), String> {
    let python = find_python()?;
    let staging = root.join(".slang-sdk.partial");
    let _ = std::fs::remove_dir_all(&staging);
    let download = staging.join("download");
    std::fs::create_dir_all(&download)
        .map_err(|e| format!("cannot create {}: {e}", download.display()))?;

    eprintln!("xtask: downloading {WHEEL_REQUIREMENT} (Slang {SLANG_VERSION}, ~92 MB) with pip");
    let requirements = root.join("xtask/slang-requirements.txt");
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
        return Err(format!(
            "pip could not download {WHEEL_REQUIREMENT} ({status}); it needs access to PyPI. \
             Alternatively set SLANG_DIR to a Slang {SLANG_VERSION} SDK (include/slang.h, \
             lib/libslang.so)"
        ));
    }
    let wheel = download.join(WHEEL_FILE);
    let bytes =
        std::fs::read(&wheel).map_err(|e| format!("cannot read {}: {e}", wheel.display()))?;
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    if hex != WHEEL_SHA256 {
        return Err(format!(
            "{} has sha256 {hex}, expected {WHEEL_SHA256}; refusing to use it",
            wheel.display()
        ));
    }
    drop(bytes);

    eprintln!("xtask: unpacking the Slang libraries and headers");
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
    let lib = staging.join("lib");
    for link in ["libslang.so", "libslang-compiler.so"] {
        std::os::unix::fs::symlink(COMPILER_LIB, lib.join(link))
            .map_err(|e| format!("cannot create {link}: {e}"))?;
    }
    std::fs::remove_dir_all(&download)
        .map_err(|e| format!("cannot remove {}: {e}", download.display()))?;
    std::fs::write(staging.join(STAMP), format!("{WHEEL_SHA256}\n"))
        .map_err(|e| format!("cannot write the stamp: {e}"))?;
    if dest.exists() {
        std::fs::remove_dir_all(dest)
            .map_err(|e| format!("cannot replace {}: {e}", dest.display()))?;
    }
    std::fs::rename(&staging, dest).map_err(|e| format!("cannot move the SDK in place: {e}"))?;
    eprintln!(
        "xtask: Slang {SLANG_VERSION} SDK ready in {}",
        dest.display()
    );
    Ok(())
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

/// Installs the Debian packages of `packages` that are not installed yet.
fn ensure_debian_packages(packages: &[&str]) -> Result<(), String> {
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| !dpkg_installed(p))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: installing Debian packages: {}", missing.join(" "));
    apt_install(&missing).map_err(|e| {
        format!(
            "the test suite needs these Debian packages: {} ({e}); install them and run again",
            missing.join(" ")
        )
    })
}

fn dpkg_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("ok installed")
        })
}

/// `apt-get update` then `apt-get install -y`, as root (directly, or through sudo).
fn apt_install(packages: &[&str]) -> Result<(), String> {
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let prefix: Vec<&str> = if is_root { vec![] } else { vec!["sudo", "-n"] };
    let apt = |args: &[&str]| -> Result<(), String> {
        let mut argv = prefix.clone();
        argv.push("apt-get");
        argv.extend_from_slice(args);
        let status = Command::new(argv[0])
            .args(&argv[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .status()
            .map_err(|e| format!("could not run {}: {e}", argv.join(" ")))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("`{}` failed ({status})", argv.join(" ")))
        }
    };
    apt(&["update", "-qq"])?;
    let mut args = vec!["install", "-y", "-qq", "--no-install-recommends"];
    args.extend_from_slice(packages);
    apt(&args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libclang_names() {
        for yes in [
            "libclang.so",
            "libclang.so.1",
            "libclang-14.so",
            "libclang-14.so.1",
            "libclang-14.0.6.so.14",
        ] {
            assert!(is_libclang_name(yes), "{yes}");
        }
        for no in [
            "libclang-cpp.so.14",
            "libclang-cpp.so",
            "libclangBasic.a",
            "libclang-14.a",
            "libclang.a",
            "libclang-.so",
        ] {
            assert!(!is_libclang_name(no), "{no}");
        }
    }

    #[test]
    fn directory_with_only_libclang_cpp_has_no_libclang() {
        let dir = std::env::temp_dir().join(format!("slangpack-libclang-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("libclang-cpp.so.14"), b"").unwrap();
        assert!(!dir_has_libclang(&dir));
        std::fs::write(dir.join("libclang-14.so.1"), b"").unwrap();
        assert!(dir_has_libclang(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

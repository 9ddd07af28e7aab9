//! Provisioning: libclang, the pinned Slang SDK and the test suite's system packages.
//!
//! Every step checks first and acts only when something is missing, so running it again is
//! cheap and downloads nothing. Every failure names what is missing and how to supply it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Debian packages the test suite needs: the Vulkan loader, the Khronos validation layer,
/// `spirv-cross` as an independent reflection oracle, C/C++ compilers for the generated bind
/// headers and the C API's examples, the Vulkan headers those examples include, and glslang
/// (`glslangValidator`), which checks the GLSL a bake with `--target glsl` emits, `spirv-tools`
/// (`spirv-dis`, the execution-mode oracle), `make`, which reads the depfile `bake --depfile`
/// writes, and `nginx` (with its WebDAV module), the remote bake cache the `--cache-url` tests
/// serve, and `chromium`, the headless browser the `slangpack explore` pages are tested in.
/// The driver (lavapipe) is [`ensure_lavapipe`]'s business.
const TEST_PACKAGES: [&str; 12] = [
    "libvulkan1",
    "libvulkan-dev",
    "vulkan-validationlayers",
    "spirv-cross",
    "spirv-tools",
    "glslang-tools",
    "gcc",
    "g++",
    "make",
    "nginx",
    "chromium",
    // BuildGrid's execution scheduler keeps its queue in PostgreSQL (the remote-execution
    // tests start one in a scratch directory).
    "postgresql",
];

/// What the caller is about to do, which decides what must be present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Building the writer: libclang and Slang.
    Build,
    /// Building and running the test suite: also the Vulkan driver and friends.
    Test,
}

/// What the team-cache and build-farm rows of a full `cargo xtask bench` run against:
/// PostgreSQL (BuildGrid's scheduler keeps its queue there) and BuildGrid itself. Returns
/// BuildGrid's `bgd`.
///
/// # Errors
/// As [`provision`] and [`ensure_buildgrid`].
pub fn bench_servers(root: &Path) -> Result<PathBuf, String> {
    let log = Log(root.join("target/provision.log"));
    ensure_debian_packages(&log, &["postgresql"])?;
    ensure_buildgrid(root)
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
    let log = Log(root.join("target/provision.log"));
    ensure_libclang(&log)?;
    let sdk = ensure_slang(root)?;
    if needs == Needs::Test {
        ensure_lavapipe(&log)?;
        ensure_debian_packages(&log, &TEST_PACKAGES)?;
    }
    Ok(sdk)
}

/// The file the package manager's output goes to: each step prints one line, and a failing
/// step prints the end of this file with its error.
struct Log(PathBuf);

/// How many of the log's last lines a failure shows.
const LOG_TAIL_LINES: usize = 25;

impl Log {
    /// The log opened for appending (its directory created), for a child's stdout and stderr.
    fn open(&self) -> Result<std::fs::File, String> {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.0)
            .map_err(|e| format!("cannot write the log {}: {e}", self.0.display()))
    }

    /// The log's last lines, indented, with its path: what a failure shows.
    fn tail(&self) -> String {
        let text = std::fs::read_to_string(&self.0).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.len().saturating_sub(LOG_TAIL_LINES);
        let shown: String = lines[start..]
            .iter()
            .map(|l| format!("\n  | {l}"))
            .collect();
        format!("the end of {}:{shown}", self.0.display())
    }
}

/// The first Mesa release whose lavapipe has the descriptor-indexing features unbounded
/// (bindless) arrays need.
const MESA_WITH_DESCRIPTOR_INDEXING: u32 = 23;

/// Mesa's lavapipe, a real Vulkan driver on the CPU. Debian 12's own Mesa (22.3) lacks
/// descriptor indexing, so on bookworm the driver comes from bookworm-backports (Mesa 25).
fn ensure_lavapipe(log: &Log) -> Result<(), String> {
    if mesa_major().is_some_and(|v| v >= MESA_WITH_DESCRIPTOR_INDEXING) {
        return Ok(());
    }
    let bookworm = std::fs::read_to_string("/etc/os-release")
        .is_ok_and(|s| s.lines().any(|l| l.trim() == "VERSION_CODENAME=bookworm"));
    if !bookworm {
        // Elsewhere take the distribution's Mesa; the bindless proof then reports itself
        // unproven instead of failing (see `bindless_required`).
        return ensure_debian_packages(log, &["mesa-vulkan-drivers"]);
    }
    let list = Path::new("/etc/apt/sources.list.d/slangpack-bookworm-backports.sources");
    if !list.exists() {
        eprintln!("xtask: adding bookworm-backports for a lavapipe with descriptor indexing");
        let text = "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\n\
                    Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n";
        write_as_root(list, text)?;
    }
    eprintln!(
        "xtask: installing mesa-vulkan-drivers from bookworm-backports (output: {})",
        log.0.display()
    );
    apt_install(log, &["-t", "bookworm-backports", "mesa-vulkan-drivers"]).map_err(|e| {
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
fn ensure_libclang(log: &Log) -> Result<(), String> {
    if libclang_present() {
        return Ok(());
    }
    eprintln!(
        "xtask: libclang not found; installing Debian package libclang-dev (output: {})",
        log.0.display()
    );
    apt_install(log, &["libclang-dev"]).map_err(|e| {
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
    if slangpack_sdk::installed(&ours).is_some() {
        eprintln!(
            "xtask: Slang {} SDK present in {}",
            slangpack_sdk::SLANG_VERSION,
            ours.display()
        );
    } else {
        slangpack_sdk::install(&ours, &mut |line| eprintln!("xtask: {line}"))?;
    }
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

/// BuildGrid, the Remote Execution API server the gRPC cache and remote-execution tests
/// start, pinned: PyPI's release the tests were written against, with the PostgreSQL driver
/// its execution scheduler needs.
const BUILDGRID: &str = "buildgrid[database]==0.4.4";

/// BuildGrid's `bgd` in a Python virtual environment of its own under `target/` (made and
/// filled on the first run; later runs find it and download nothing).
///
/// # Errors
/// A message when Python's `venv` or `pip` fails.
pub fn ensure_buildgrid(root: &Path) -> Result<PathBuf, String> {
    let venv = root.join("target/buildgrid-venv");
    let bgd = venv.join("bin/bgd");
    let marker = venv.join(".slangpack-pinned");
    if bgd.exists() && std::fs::read_to_string(&marker).is_ok_and(|m| m == BUILDGRID) {
        return Ok(bgd);
    }
    eprintln!(
        "xtask: installing {BUILDGRID} into {} (log: {}.log)",
        venv.display(),
        venv.display()
    );
    let log = std::fs::File::create(venv.with_extension("log"))
        .map_err(|e| format!("creating {}.log: {e}", venv.display()))?;
    let quiet = |mut c: Command| -> Result<(), String> {
        let described = format!("{c:?}");
        let status = c
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log.try_clone().map_err(|e| e.to_string())?)
            .status()
            .map_err(|e| format!("could not run {described}: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!(
                "{described} failed ({status}); see {}.log",
                venv.display()
            ))
        }
    };
    let mut make = Command::new("python3");
    make.args(["-m", "venv"]).arg(&venv);
    quiet(make).map_err(|e| format!("the gRPC cache tests need BuildGrid: {e}"))?;
    let mut pip = Command::new(venv.join("bin/pip"));
    pip.args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        BUILDGRID,
    ]);
    quiet(pip).map_err(|e| format!("the gRPC cache tests need BuildGrid: {e}"))?;
    std::fs::write(&marker, BUILDGRID).map_err(|e| format!("{}: {e}", marker.display()))?;
    Ok(bgd)
}

/// Installs the Debian packages of `packages` that are not installed yet.
fn ensure_debian_packages(log: &Log, packages: &[&str]) -> Result<(), String> {
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| !dpkg_installed(p))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!(
        "xtask: installing Debian packages {} (output: {})",
        missing.join(" "),
        log.0.display()
    );
    apt_install(log, &missing).map_err(|e| {
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

/// `apt-get update` then `apt-get install -y`, as root (directly, or through sudo), their
/// output appended to `log` (shown, its end, only when a command fails).
fn apt_install(log: &Log, packages: &[&str]) -> Result<(), String> {
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let prefix: Vec<&str> = if is_root { vec![] } else { vec!["sudo", "-n"] };
    let apt = |args: &[&str]| -> Result<(), String> {
        let mut argv = prefix.clone();
        argv.push("apt-get");
        argv.extend_from_slice(args);
        let out = log.open()?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let status = Command::new(argv[0])
            .args(&argv[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .status()
            .map_err(|e| format!("could not run {}: {e}", argv.join(" ")))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!(
                "`{}` failed ({status}); {}",
                argv.join(" "),
                log.tail()
            ))
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
    fn a_failure_shows_the_end_of_the_log() {
        let dir = std::env::temp_dir().join(format!("slangpack-log-{}", std::process::id()));
        let log = Log(dir.join("nested/provision.log"));
        let mut file = log.open().expect("the log and its directory are created");
        for i in 0..100 {
            std::io::Write::write_all(&mut file, format!("line {i}\n").as_bytes()).unwrap();
        }
        let tail = log.tail();
        assert!(tail.starts_with(&format!("the end of {}:", log.0.display())));
        assert!(tail.ends_with("\n  | line 99"), "{tail}");
        assert!(tail.contains("\n  | line 75\n"), "{tail}");
        assert!(!tail.contains("line 74"), "{tail}");
        std::fs::remove_dir_all(&dir).unwrap();
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

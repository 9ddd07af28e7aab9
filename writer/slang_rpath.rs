// Shared by the build scripts of every package whose binaries, tests or benches load Slang
// (`include!`d from their build.rs).
//
// Cargo does not put the Slang library directory on the loader path, not even for
// `cargo test`/`cargo run`, and an `[env] LD_LIBRARY_PATH` is overridden; so the directory is
// baked into the binaries as an rpath instead. The directory is found the way
// `shader-slang-sys` finds it: SLANG_LIB_DIR, else SLANG_DIR/lib, else VULKAN_SDK/lib.
fn main() {
    for var in ["SLANG_LIB_DIR", "SLANG_DIR", "VULKAN_SDK"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let lib_dir = var("SLANG_LIB_DIR")
        .or_else(|| var("SLANG_DIR").map(|d| format!("{d}/lib")))
        .or_else(|| var("VULKAN_SDK").map(|d| format!("{d}/lib")));
    match lib_dir {
        Some(dir) => {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
            loader_dir(std::path::Path::new(&dir));
        }
        None => println!(
            "cargo:warning=no Slang SDK configured (SLANG_DIR); run `cargo xtask provision`"
        ),
    }
}

// The build scripts of packages that depend on this one (a build script baking shaders links
// Slang through slangpack-writer) get no rpath: `rustc-link-arg` applies only to this
// package's own targets. What cargo does give them: it runs a build script with the
// `rustc-link-search` directories of its dependencies' build scripts that lie inside the
// target directory on the loader path (LD_LIBRARY_PATH). So the Slang libraries are linked
// into OUT_DIR (symbolic links, one per file: Slang finds its glslang modules beside itself)
// and that directory is announced as a search path.
fn loader_dir(lib_dir: &std::path::Path) {
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        return;
    };
    let dest = std::path::Path::new(&out_dir).join("slang-lib");
    let _ = std::fs::remove_dir_all(&dest);
    if std::fs::create_dir_all(&dest).is_err() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(lib_dir) else {
        return;
    };
    let lib_dir = lib_dir.canonicalize().unwrap_or_else(|_| lib_dir.to_path_buf());
    for entry in entries.flatten() {
        let name = entry.file_name();
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink(lib_dir.join(&name), dest.join(&name));
        #[cfg(not(unix))]
        let _ = std::fs::copy(lib_dir.join(&name), dest.join(&name));
    }
    println!("cargo:rustc-link-search=native={}", dest.display());
}

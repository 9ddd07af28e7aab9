// Shared by the build scripts of every package whose binaries, tests or benches load Slang
// (`include!`d from their build.rs, whose `main` calls `link_slang_rpath`).
//
// Cargo does not put the Slang library directory on the loader path, not even for
// `cargo test`/`cargo run`, and an `[env] LD_LIBRARY_PATH` is overridden; so the directory is
// baked into the binaries as an rpath instead. The directory is found the way
// `shader-slang-sys` finds it: SLANG_LIB_DIR, else SLANG_DIR/lib, else VULKAN_SDK/lib.
fn link_slang_rpath() {
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
// package's own targets. What cargo puts on a build script's loader path (LD_LIBRARY_PATH):
// with `cargo build`/`test`/`run`, the `rustc-link-search` directories inside the target
// directory that its dependencies' build scripts announced; with `cargo check`/`clippy`, only
// the host `deps` directory. So the Slang libraries are linked (symbolic links, one per file:
// Slang finds its glslang modules beside itself) into OUT_DIR/slang-lib, announced as a search
// path, and into the host deps directory (`OUT_DIR/../../../deps`).
fn loader_dir(lib_dir: &std::path::Path) {
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        return;
    };
    let out_dir = std::path::PathBuf::from(out_dir);
    let lib_dir = lib_dir.canonicalize().unwrap_or_else(|_| lib_dir.to_path_buf());
    let Ok(entries) = std::fs::read_dir(&lib_dir) else {
        return;
    };
    let names: Vec<std::ffi::OsString> = entries.flatten().map(|e| e.file_name()).collect();
    let link_all = |dest: &std::path::Path| {
        for name in &names {
            let (from, to) = (lib_dir.join(name), dest.join(name));
            if std::fs::read_link(&to).is_ok_and(|target| target == from) {
                continue;
            }
            let _ = std::fs::remove_file(&to);
            #[cfg(unix)]
            let _ = std::os::unix::fs::symlink(&from, &to);
            #[cfg(not(unix))]
            let _ = std::fs::copy(&from, &to);
        }
    };
    let dest = out_dir.join("slang-lib");
    if std::fs::create_dir_all(&dest).is_ok() {
        link_all(&dest);
        println!("cargo:rustc-link-search=native={}", dest.display());
    }
    // OUT_DIR is <target>/<profile>/build/<package>-<hash>/out.
    if let Some(deps) = out_dir.ancestors().nth(3).map(|p| p.join("deps")) {
        if deps.is_dir() {
            link_all(&deps);
        }
    }
}

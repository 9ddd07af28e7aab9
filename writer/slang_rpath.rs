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
        Some(dir) => println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}"),
        None => println!(
            "cargo:warning=no Slang SDK configured (SLANG_DIR); run `cargo xtask provision`"
        ),
    }
}

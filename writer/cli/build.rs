include!("slang_rpath.rs");

fn main() {
    // Only `slangpack-bake` (the default `slang` feature) links Slang; without the feature the
    // package builds `slangpack` alone, which needs no Slang SDK at build or run time.
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_SLANG");
    if std::env::var_os("CARGO_FEATURE_SLANG").is_some() {
        link_slang_rpath();
    }
}

//! Bakes `shaders/` into `$OUT_DIR/shaders.slangpack` and writes the Rust bind header beside
//! it; cargo reruns this script when a shader (or anything a shader imports) changes.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let baked = slangpack_writer::build::Bake::new()
        .input("shaders")
        .output(out_dir.join("shaders.slangpack"))
        .rust_header(out_dir.join("shaders.rs"))
        .run()?;
    println!(
        "cargo:rustc-env=SLANGPACK_EXAMPLE_ENTRIES={}",
        baked.outcome.entries.len()
    );
    Ok(())
}

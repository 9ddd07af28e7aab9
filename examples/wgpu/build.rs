//! Bakes `shaders/` for SPIR-V and WGSL into `$OUT_DIR/shaders.slangpack`; the WGSL bind view
//! is checked against the WGSL (parsed and validated with naga) at bake time.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    slangpack_writer::build::Bake::new()
        .input("shaders")
        .target(slangpack_format::Target::Wgsl)
        .output(out_dir.join("shaders.slangpack"))
        .run()?;
    Ok(())
}

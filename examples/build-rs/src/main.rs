//! Opens the package `build.rs` baked (embedded in the binary) with the runtime reader, and
//! fills the shader's uniform buffer through the struct `build.rs` generated.

use slangpack_reader::Package;

/// The package, embedded.
static PACKAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/shaders.slangpack"));

// The generated structs and set/binding constants: `pub mod tint { ... }`.
include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// The uniform data of the tint shader, as the bytes a GPU buffer upload takes.
fn tint_uniforms(strength: f32) -> Vec<u8> {
    let mut params = tint::GTint::ZEROED;
    params.colorMatrix = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    params.tint = [1.0, 0.5, 0.25];
    params.strength = strength;
    // The struct derives `bytemuck::Pod` (its padding is explicit): its bytes are the upload.
    bytemuck::bytes_of(&params).to_vec()
}

fn main() -> Result<(), slangpack_reader::Error> {
    let package = Package::from_bytes(PACKAGE)?;
    let entry = package
        .load("tint")
        .expect("build.rs baked shaders/tint.slang");
    let bind = entry.bind();
    for ep in entry.entry_points() {
        println!(
            "{} ({:?}): {} SPIR-V words",
            ep.name(),
            ep.stage(),
            ep.spirv().len()
        );
    }
    let buffer = bind.buffer("gTint").expect("the uniform buffer gTint");
    let binding = bind.binding("gTint").expect("the binding of gTint");
    println!(
        "gTint: set {} binding {}, {} bytes (host struct: {} bytes)",
        binding.set,
        binding.binding,
        buffer.size,
        std::mem::size_of::<tint::GTint>()
    );
    println!(
        "uniform upload: {} bytes; {} entries baked",
        tint_uniforms(0.5).len(),
        env!("SLANGPACK_EXAMPLE_ENTRIES")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_struct_matches_the_baked_layout() {
        let package = Package::from_bytes(PACKAGE).unwrap();
        let entry = package.load("tint").unwrap();
        let bind = entry.bind();
        let buffer = bind.buffer("gTint").unwrap();
        assert_eq!(std::mem::size_of::<tint::GTint>(), buffer.size as usize);
        let (_, strength) = bind.buffer_member("gTint.strength").unwrap();
        assert_eq!(
            std::mem::offset_of!(tint::GTint, strength),
            strength.offset as usize
        );
        let binding = bind.binding("gTint").unwrap();
        assert_eq!(
            (tint::G_TINT_SET, tint::G_TINT_BINDING),
            (binding.set, binding.binding)
        );
        let bytes = tint_uniforms(0.75);
        assert_eq!(bytes.len(), buffer.size as usize);
        // The same bytes as the little-endian writer the header also generates.
        let params: &tint::GTint = bytemuck::from_bytes(&bytes);
        let mut written = Vec::new();
        params.write_le_bytes(&mut written);
        assert_eq!(written, bytes);
        let at = strength.offset as usize;
        assert_eq!(bytes[at..at + 4], 0.75f32.to_le_bytes());
        let (_, tint) = bind.buffer_member("gTint.tint").unwrap();
        let at = tint.offset as usize + 4;
        assert_eq!(bytes[at..at + 4], 0.5f32.to_le_bytes());
    }
}

//! Runs one byte-for-byte proof from a package file on a chosen Vulkan device, without the
//! Slang compiler: for proofs lavapipe cannot run (Mesa 22.3's lavapipe has no descriptor
//! indexing, so no unbounded arrays).
//!
//! ```text
//! cargo run -p slangpack-tests --example device_proof -- bake OUT.slangpack
//! SLANGPACK_VK_DEVICE=H200 device_proof run OUT.slangpack
//! SLANGPACK_VK_DEVICE=H200 device_proof run-perturbed OUT.slangpack   # must fail
//! ```

use slangpack_reader::Package;
use slangpack_tests::{layout, proof};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [cmd, out] if cmd == "bake" => {
            let shader = layout::test_shaders_dir().join("proof_bindless.slang");
            std::fs::write(out, layout::bake(&[shader])).expect("write the package");
        }
        [cmd, package] if cmd == "run" || cmd == "run-perturbed" => {
            let bytes = std::fs::read(package).expect("read the package");
            let package = Package::from_bytes(&bytes).expect("the package opens");
            let entry = package
                .load("proof_bindless")
                .expect("entry proof_bindless");
            let mut described = layout::describe(&entry).expect("the bind view describes it");
            if cmd == "run-perturbed" {
                // A wrong element stride for the unbounded buffer array: the proof must fail.
                let buffers = described
                    .bindings
                    .iter_mut()
                    .find(|b| b.name == "gBuffers")
                    .expect("gBuffers");
                let element = &mut buffers.buffer.as_mut().expect("a layout").members[0];
                element.array = Some((0, 8));
            }
            match proof::run(&described, &proof::bindless_spec()) {
                Ok(report) => println!("PROVEN: {report:?}"),
                Err(e) => {
                    eprintln!("FAILED: {e}");
                    std::process::exit(1);
                }
            }
        }
        _ => {
            eprintln!("usage: device_proof bake OUT | device_proof run|run-perturbed PACKAGE");
            std::process::exit(2);
        }
    }
}

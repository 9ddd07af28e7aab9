//! With the `bytemuck` feature, every record is `Pod`: engines built on bytemuck can cast the
//! reader's slices (here: the bind view of a real package) without zerocopy.

use slangpack_format::bind::{BufferMember, DescriptorBinding};
use slangpack_format::{EntryRecord, TypeLayout};
use slangpack_reader::Package;
use slangpack_writer::bake::{self, BakeConfig};
use std::path::Path;

#[test]
fn records_are_pod_and_cast_from_reader_slices() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shaders/blur.slang");
    let bytes = bake::bake(&BakeConfig::new(vec![dir])).unwrap().bytes;
    let package = Package::from_bytes(&bytes).unwrap();
    let bind = package.load("blur").unwrap().bind();
    let words: &[u32] = bytemuck::cast_slice(bind.bindings());
    assert_eq!(words.len(), size_of_val(bind.bindings()) / 4);
    let back: &[DescriptorBinding] = bytemuck::cast_slice(words);
    assert_eq!(back, bind.bindings());
    let zero: BufferMember = bytemuck::Zeroable::zeroed();
    assert_eq!(zero, BufferMember::default());
    let _: &[u8] = bytemuck::bytes_of(&EntryRecord::default());
    let _: &[u8] = bytemuck::bytes_of(&TypeLayout::default());
}

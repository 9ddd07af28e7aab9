//! Exhaustive corruption of real baked packages (the reader's own tests do the same on
//! builder-made ones): every truncation and every single-bit flip is an error, never a panic
//! — at open, or at the load of an entry that uses the damaged section, whatever the order
//! the entries are loaded in; a flip inside a section is caught by that section's checksum;
//! and with every checksum recomputed after a flip, the package is either refused by
//! validation or fully walkable.
//!
//! Packages: `examples/shaders` (zstd reflection, 31 KB: every bit) and `tests/shaders/
//! proof_bindless.slang` stored raw (`--no-compress`, 11 KB: every bit), plus `examples/shaders`
//! raw (89 KB: every bit of the header and directory, one bit of every third byte elsewhere, to
//! keep the test fast in debug builds), and `examples/shaders` with `--compress-spirv` (the
//! compressed index; 16 KB: every truncation, every bit of the header, every third byte; and
//! flips inside the decompressed index, stored again behind recomputed checksums).

use slangpack_reader::format::{index_content, limits, FileHeader};
use slangpack_reader::{ErrorKind, Package};
use slangpack_tests::walk::{edit_index, refix_checksums, walk};
use slangpack_writer::bake::{self, BakeConfig};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;
use zerocopy::FromBytes;

fn bake(input: &str, compress: bool) -> Vec<u8> {
    bake_with(input, |config| config.compress = compress)
}

/// [`bake`], with the configuration `setup` makes.
fn bake_with(input: &str, setup: impl FnOnce(&mut BakeConfig)) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(input);
    let mut config = BakeConfig::new(vec![path]);
    config.jobs = 2;
    setup(&mut config);
    let bytes = bake::bake(&config).expect("bake").bytes.into_vec();
    walk(&Package::from_bytes(&bytes).expect("the baked package opens"));
    bytes
}

/// `examples/shaders` baked with `--compress-spirv` (the compressed index), once for the tests
/// that share it.
fn compressed_spirv() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let bytes = bake_with("../examples/shaders", |config| config.compress_spirv = true);
        let h = FileHeader::read_from_prefix(&bytes).unwrap().0;
        assert!(h.has_compressed_index());
        bytes
    })
}

/// The header and directory span, and the stored bytes of each section in the file (with a
/// compressed index: the header, and the sections outside the index, then the index).
fn layout(bytes: &[u8]) -> (Range<usize>, Vec<Range<usize>>) {
    let h = FileHeader::read_from_prefix(bytes).expect("header").0;
    let dir = h.section_dir_offset() as usize;
    let indexed = h.has_compressed_index();
    let package = Package::from_bytes(bytes).expect("a valid package");
    let mut sections: Vec<Range<usize>> = package
        .sections()
        .filter(|r| !(indexed && r.section_kind().is_container()))
        .map(|r| r.offset() as usize..(r.offset() + r.stored_size()) as usize)
        .collect();
    if indexed {
        sections.push(dir..dir + h.index_size as usize);
        return (0..h.header_size as usize, sections);
    }
    let stride = h.section_record_size as usize;
    (0..dir + h.section_count as usize * stride, sections)
}

/// Opens `bytes` and checks everything (`verify_all`): the first error.
fn open_and_verify(bytes: &[u8]) -> Result<Package, slangpack_reader::Error> {
    let package = Package::from_bytes(bytes)?;
    package.verify_all()?;
    Ok(package)
}

/// Opens `bytes`, then loads the entries lazily from the last to the first (as an engine would,
/// in any order), then checks the rest: the first error.
fn open_and_load(bytes: &[u8]) -> Result<Package, slangpack_reader::Error> {
    let package = Package::from_bytes(bytes)?;
    for i in (0..package.len()).rev() {
        package.load_at(i)?;
    }
    package.verify_all()?;
    Ok(package)
}

fn every_truncation_is_an_error(bytes: &[u8]) {
    for len in 0..bytes.len() {
        assert!(
            open_and_load(&bytes[..len]).is_err(),
            "a package cut to {len} bytes opened"
        );
    }
}

/// Flips bits of `bytes` (every bit of `all_bits`; outside it, bit `byte % 8` of every
/// `step`-th byte); each flip must be refused, and a flip
/// inside a section must be refused by that section's checksum. Returns the flips made.
fn every_flip_is_an_error(bytes: &[u8], all_bits: Range<usize>, step: usize) -> usize {
    let (_, sections) = layout(bytes);
    let mut copy = bytes.to_vec();
    let mut kinds = BTreeMap::<String, usize>::new();
    for byte in (0..bytes.len()).filter(|b| all_bits.contains(b) || b % step == 0) {
        let bits = if all_bits.contains(&byte) {
            0..8
        } else {
            let b = byte % 8;
            b..b + 1
        };
        for bit in bits {
            copy[byte] ^= 1 << bit;
            // Every flip through the full check; one in 13 also through lazy loads in
            // reverse order (each costs a whole open, so not all of them).
            if (byte * 8 + bit) % 13 == 0 {
                assert!(
                    open_and_load(&copy).is_err(),
                    "lazily loaded, flipping bit {bit} of byte {byte} was accepted"
                );
            }
            let kind = match open_and_verify(&copy) {
                Ok(_) => panic!("flipping bit {bit} of byte {byte} was accepted"),
                Err(e) => e.kind(),
            };
            copy[byte] ^= 1 << bit;
            if sections.iter().any(|s| s.contains(&byte)) {
                assert_eq!(
                    kind,
                    ErrorKind::ChecksumMismatch,
                    "flip of bit {bit} of byte {byte}, inside a section"
                );
            }
            *kinds.entry(format!("{kind:?}")).or_default() += 1;
        }
    }
    eprintln!("{} bytes: {kinds:?}", bytes.len());
    kinds.values().sum()
}

/// Flips one bit (bit `byte % 8`) of every `step`-th section byte and recomputes every
/// checksum, so validation proper has to judge the content: an error, or a package that
/// survives the full walk.
fn flips_behind_the_checksums_are_refused_or_walkable(bytes: &[u8], step: usize) -> (usize, usize) {
    let (_, sections) = layout(bytes);
    let (mut accepted, mut refused) = (0, 0);
    let mut copy = bytes.to_vec();
    for byte in sections.into_iter().flatten().step_by(step) {
        let bit = byte % 8;
        copy[byte] ^= 1 << bit;
        assert!(refix_checksums(&mut copy));
        // Open, then the walk's lazy loads (a load may fail), then the full check.
        match Package::from_bytes(&copy) {
            Ok(p) => {
                walk(&p);
                if p.verify_all().is_ok() {
                    accepted += 1;
                } else {
                    refused += 1;
                }
            }
            Err(_) => refused += 1,
        }
        copy.clear();
        copy.extend_from_slice(bytes);
    }
    eprintln!(
        "{} bytes, checksums recomputed: {accepted} accepted and walked, {refused} refused",
        bytes.len()
    );
    (accepted, refused)
}

#[test]
fn examples_zstd_every_truncation_and_every_bit_flip() {
    let bytes = bake("../examples/shaders", true);
    every_truncation_is_an_error(&bytes);
    let flips = every_flip_is_an_error(&bytes, 0..bytes.len(), 1);
    assert_eq!(flips, bytes.len() * 8);
}

#[test]
fn raw_reflection_every_truncation_and_every_bit_flip() {
    let bytes = bake("shaders/proof_bindless.slang", false);
    every_truncation_is_an_error(&bytes);
    let flips = every_flip_is_an_error(&bytes, 0..bytes.len(), 1);
    assert_eq!(flips, bytes.len() * 8);
}

#[test]
fn examples_raw_header_and_directory_every_bit_content_sampled() {
    // 89 KB stored raw: every bit of the header and directory, then one bit of every third
    // byte (the two tests above flip every bit of smaller packages of both kinds).
    let bytes = bake("../examples/shaders", false);
    let (head, _) = layout(&bytes);
    let flips = every_flip_is_an_error(&bytes, head.clone(), 3);
    assert!(flips >= head.len() * 8 + (bytes.len() - head.len()) / 3);
}

#[test]
fn compressed_spirv_every_truncation_header_bit_and_sampled_flip() {
    // `--compress-spirv` (the compressed index, a shared dictionary, frames packed back to
    // back; 16 KB): every truncation, every bit of the header, one bit of every third byte.
    let bytes = compressed_spirv();
    every_truncation_is_an_error(bytes);
    let (head, _) = layout(bytes);
    let flips = every_flip_is_an_error(bytes, head.clone(), 3);
    assert!(flips >= head.len() * 8 + (bytes.len() - head.len()) / 3);
}

#[test]
fn content_flips_with_recomputed_checksums_are_refused_or_walkable() {
    // Every byte of the raw package, every fifth byte of the larger compressed one.
    for (input, compress, step) in [
        ("shaders/proof_bindless.slang", false, 1),
        ("../examples/shaders", true, 5),
    ] {
        let bytes = bake(input, compress);
        let (accepted, refused) = flips_behind_the_checksums_are_refused_or_walkable(&bytes, step);
        assert!(
            accepted > 0 && refused > 0,
            "{input}: {accepted} / {refused}"
        );
    }
}

#[test]
fn metal_argument_buffer_flips_with_recomputed_checksums_are_refused_or_walkable() {
    // Every other byte of a raw package baked for Metal (records are words, so each field
    // gets flips), whose argument buffers' structs (format 1.5) the walk reads member by
    // member.
    let bytes = bake_with("shaders/argument_buffers.slang", |config| {
        config.compress = false;
        config.options.targets = vec![slangpack_format::Target::Metal];
    });
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load("argument_buffers").unwrap();
    let metal = entry.bind().target(slangpack_format::Target::Metal);
    assert!(metal.find_argument_buffer("gMaterial").is_some());
    let (accepted, refused) = flips_behind_the_checksums_are_refused_or_walkable(&bytes, 2);
    assert!(accepted > 0 && refused > 0, "{accepted} / {refused}");
}

#[test]
fn flips_inside_the_compressed_index_are_refused_or_walkable() {
    // The compressed index's content (the directory and the container tables) is what the
    // flips above cannot reach: a flip of the stored frame fails its checksum or its
    // decompression. Here one bit of every byte of the index (1.7 KB) is flipped after
    // decompression, and the index stored again behind recomputed checksums (section,
    // directory and header): validation itself judges it.
    let bytes = compressed_spirv();
    let mut same = bytes.to_vec();
    assert!(refix_checksums(&mut same));
    assert_eq!(
        same, bytes,
        "recomputing the checksums of an intact package changes nothing"
    );
    let h = FileHeader::read_from_prefix(bytes).unwrap().0;
    let frame = &bytes[h.section_dir_offset() as usize..][..h.index_size as usize];
    let index = index_content(&h, frame, limits::MAX_SECTION_RAW_SIZE).expect("the index");
    let directory = h.section_count as usize * h.section_record_size as usize;
    let (mut accepted, mut restored, mut kinds) = (0, 0, BTreeMap::<String, usize>::new());
    for byte in 0..index.len() {
        let mut copy = bytes.to_vec();
        assert!(edit_index(&mut copy, |index| index[byte] ^= 1 << (byte % 8)));
        if copy == bytes {
            // A flip of a section checksum, which recomputing restored.
            restored += 1;
            continue;
        }
        match Package::from_bytes(&copy) {
            Ok(p) => {
                walk(&p);
                match p.verify_all() {
                    Ok(()) => accepted += 1,
                    Err(e) => *kinds.entry(format!("{:?}", e.kind())).or_default() += 1,
                }
            }
            Err(e) => *kinds.entry(format!("{:?}", e.kind())).or_default() += 1,
        }
    }
    eprintln!(
        "index of {} bytes ({directory} of directory): {restored} checksum flips restored, \
         {accepted} accepted and walked, refused {kinds:?}",
        index.len()
    );
    // Every byte of a checksum a section holds is restored; a section in a checksum run (2.3)
    // holds none (`hash` 0), and a flip there gives it one, a different package.
    let holding = index[..directory]
        .chunks_exact(h.section_record_size as usize)
        .filter(|r| r[40..48].iter().any(|&b| b != 0))
        .count();
    assert!(
        holding < h.section_count as usize,
        "the package has checksum runs"
    );
    assert_eq!(restored, holding * 8, "the checksum bytes");
    // Every checksum was recomputed, so none is what refuses a flip; and some flips (of
    // strings, of unused fields) leave a valid package.
    assert!(!kinds.contains_key("ChecksumMismatch"), "{kinds:?}");
    assert!(accepted > 0 && kinds.len() > 3, "{accepted} / {kinds:?}");
}

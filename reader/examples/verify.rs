//! Opens a package and checks it in full (`Package::verify_all`), `N` times (default 1), and
//! prints the median time of one check against one copy and xxh3 of the same bytes:
//! `cargo run --release -p slangpack-reader --example verify -- PACKAGE [N] [--raw]`.
//! `--raw` first stores every zstd section uncompressed (isolating validation). Used to profile
//! the validator (`valgrind --tool=callgrind`); the numbers of record come from
//! `cargo xtask bench`.

use slangpack_reader::format::{assemble_sections, Compression, FileHeader, RawSection};
use slangpack_reader::format::{join_u64, SectionRecord};
use slangpack_reader::Package;
use std::time::Instant;
use zerocopy::FromBytes;

/// The package with every zstd section decompressed and stored as is.
fn uncompressed(bytes: &[u8]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let (h, _) = FileHeader::read_from_prefix(bytes).map_err(|_| "short header")?;
    let dir = join_u64(h.section_dir_offset_lo, h.section_dir_offset_hi) as usize;
    let mut sections = Vec::new();
    for i in 0..h.section_count as usize {
        let at = dir + i * h.section_record_size as usize;
        let (r, _) = SectionRecord::read_from_prefix(bytes.get(at..).ok_or("short directory")?)
            .map_err(|_| "short directory")?;
        let start = r.offset() as usize;
        let stored = bytes
            .get(start..start + r.stored_size() as usize)
            .ok_or("short section")?;
        let raw = match r.compression_kind() {
            Compression::Zstd => zstd::bulk::decompress(stored, r.raw_size() as usize)?,
            _ => stored.to_vec(),
        };
        sections.push(RawSection {
            kind: r.kind,
            compression: Compression::None.to_raw(),
            stride: r.record_stride,
            count: r.record_count,
            raw_size: raw.len() as u64,
            stored: raw,
        });
    }
    Ok(assemble_sections(&sections)?)
}

fn median_ns(times: usize, mut f: impl FnMut()) -> f64 {
    let mut samples: Vec<f64> = (0..times)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_nanos() as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(0.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: verify PACKAGE [N]")?;
    let times: usize = args.next().map_or(Ok(1), |n| n.parse())?;
    let mut bytes = std::fs::read(&path)?;
    if args.next().as_deref() == Some("--raw") {
        bytes = uncompressed(&bytes)?;
    }
    let package = Package::from_bytes(&bytes)?;
    package.verify_all()?;
    let entries = package.len();
    let verify = median_ns(times, || {
        let package = Package::from_bytes(std::hint::black_box(&bytes)).expect("checked above");
        package.verify_all().expect("checked above");
    });
    let mut copy = vec![0u8; bytes.len()];
    let limit = median_ns(times, || {
        copy.copy_from_slice(std::hint::black_box(&bytes));
        std::hint::black_box(xxhash_rust::xxh3::xxh3_64(&copy));
    });
    println!(
        "{path} ({} bytes): ok, {entries} entries; verify {verify:.0} ns, memcpy+xxh3 {limit:.0} ns ({:.1}x)",
        bytes.len(),
        verify / limit.max(1.0)
    );
    Ok(())
}

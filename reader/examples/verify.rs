//! Opens a package and checks it in full (`Package::verify_all`), `N` times (default 1), and
//! prints the median time of one check against one copy and xxh3 of the same bytes:
//! `cargo run --release -p slangpack-reader --example verify -- PACKAGE [N] [--raw]`.
//! `--raw` first stores the package with a plain directory and every section uncompressed
//! (zstd and dictionary frames decompressed, the dictionary dropped, a compressed index
//! expanded), isolating validation. Used to profile the validator
//! (`valgrind --tool=callgrind`); the numbers of record come from `cargo xtask bench`.

use slangpack_reader::format::{
    assemble_sections, bind_run_decompressed, bind_run_of, module_run_decompressed, module_run_of,
    read_sections, with_shared_tables, SectionKind,
};
use slangpack_reader::Package;
use std::time::Instant;

/// The package laid out again with a plain directory and every section stored uncompressed
/// (without its dictionary sections, which nothing then uses).
fn uncompressed(bytes: &[u8]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let sections = read_sections(bytes).ok_or("not a package whose sections can be read")?;
    let dictionary_of = |kind: SectionKind| -> Result<Option<Vec<u8>>, &str> {
        match sections
            .iter()
            .find(|s| SectionKind::from_raw(s.kind) == kind)
        {
            Some(s) => Ok(Some(
                s.decompressed(None)
                    .ok_or("a dictionary does not decompress")?
                    .stored,
            )),
            None => Ok(None),
        }
    };
    let dictionary = dictionary_of(SectionKind::Dictionary)?;
    let tables = dictionary_of(SectionKind::TablesDictionary)?;
    let is_dictionary = |kind: u32| {
        matches!(
            SectionKind::from_raw(kind),
            SectionKind::Dictionary | SectionKind::TablesDictionary
        )
    };
    // A blob sharing its raw tables (2.5) gets them back first; a module of a module run
    // (2.7) and a bind view of a bind-view run (2.8) come out of their run's frame.
    let raw = (0..sections.len())
        .filter(|&i| !is_dictionary(sections[i].kind))
        .map(|i| {
            let (dictionary, tables) = (dictionary.as_deref(), tables.as_deref());
            match (module_run_of(&sections, i), bind_run_of(&sections, i)) {
                (Some(_), _) => module_run_decompressed(&sections, i, dictionary),
                (_, Some(_)) => bind_run_decompressed(&sections, i, dictionary, tables),
                _ => with_shared_tables(&sections, i)
                    .and_then(|s| s.decompressed_with(dictionary, tables)),
            }
            .ok_or_else(|| format!("section {i} does not decompress"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(assemble_sections(&raw)?)
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
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let raw = args.iter().any(|a| a == "--raw");
    args.retain(|a| a != "--raw");
    let mut args = args.into_iter();
    let path = args.next().ok_or("usage: verify PACKAGE [N] [--raw]")?;
    let times: usize = args.next().map_or(Ok(1), |n| n.parse())?;
    let mut bytes = std::fs::read(&path)?;
    if raw {
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

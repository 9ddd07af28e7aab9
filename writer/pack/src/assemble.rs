//! From plain entries to package bytes: what the writer bakes and what a merge carries over
//! is the same data, assembled through `slangpack_format::PackageBuilder`.

use crate::PackError;
use slangpack_format::{
    Compression, DependencyDesc, EntryDesc, EntryPointDesc, PackageBuilder, SectionKind, Stage,
    Target, TargetCodeDesc,
};
use std::sync::Arc;

/// One compiled entry point: plain data, as the writer produced it or as a package stores it.
#[derive(Clone, Debug)]
pub struct CompiledEntryPoint {
    /// Slang's name for the entry point (the function name).
    pub name: String,
    /// The entry point's stage as Slang's raw `SlangStage` value.
    pub stage: u32,
    /// Name of the entry point inside the SPIR-V module (what `pName` must be).
    pub spirv_entry_name: String,
    /// Thread-group size (1, 1, 1 for stages without one).
    pub thread_group_size: [u32; 3],
    /// Required wave size, 0 when none is declared.
    pub wave_size: u32,
    /// xxh3-64 of the entry point's SPIR-V bytes. (Slang's own `getEntryPointHash` takes in
    /// the absolute search paths, which would make packages depend on where they were baked.)
    pub hash: u64,
    /// The SPIR-V words.
    pub spirv: Vec<u32>,
    /// The entry point's code for every further target, in the order the bake's targets were given.
    pub targets: Vec<TargetOutput>,
}

/// One entry point's code for a target other than SPIR-V.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetOutput {
    /// The target.
    pub target: Target,
    /// The entry point's name inside the code.
    pub entry_name: String,
    /// The code: UTF-8 text for the text targets.
    pub code: Vec<u8>,
}

impl From<&slangpack_reader::EntryPoint<'_>> for CompiledEntryPoint {
    /// An entry point as stored in a package (for reuse in incremental rebakes and merges).
    fn from(ep: &slangpack_reader::EntryPoint<'_>) -> Self {
        CompiledEntryPoint {
            name: ep.name().to_string(),
            stage: ep.stage().to_raw(),
            spirv_entry_name: ep.spirv_entry_name().to_string(),
            thread_group_size: ep.thread_group_size(),
            wave_size: ep.wave_size().unwrap_or(0),
            hash: ep.hash(),
            spirv: ep.spirv().to_vec(),
            targets: ep
                .targets()
                .filter(|t| t.target() != Target::Spirv)
                .map(|t| TargetOutput {
                    target: t.target(),
                    entry_name: t.entry_name().to_string(),
                    code: t.bytes().to_vec(),
                })
                .collect(),
        }
    }
}

/// One permutation, baked: plain data, ready for the package.
#[derive(Clone, Debug)]
pub struct BakedEntry {
    /// The permutation key.
    pub key: String,
    /// The compiled entry points.
    pub entry_points: Vec<CompiledEntryPoint>,
    /// The finished reflection blob.
    pub reflection: Arc<[u8]>,
    /// Files read, relative to the bake root, with their xxh3-64 content hashes.
    pub dependencies: Vec<(String, u64)>,
    /// Hash of everything besides the sources that decided the output.
    pub options_hash: u64,
    /// Slang's warnings, verbatim (empty when none).
    pub warnings: String,
}

/// Assembles baked permutations into package bytes.
///
/// # Errors
/// [`PackError::Refused`] when the format builder refuses the input (duplicate keys, limits).
pub fn assemble(entries: &[BakedEntry], compress: bool) -> Result<Vec<u8>, PackError> {
    assemble_with(entries, compress, false)
}

/// Whether `package` stores its code and reflection as [`assemble_with`] stores them with
/// `compress` and `compress_spirv`: reflection blobs and target code compressed exactly when
/// `compress`, SPIR-V modules exactly when `compress_spirv` (and then its frames stored bare,
/// as this writer stores them: SPEC.md 4.2, 2.4). `false` for a package without SPIR-V
/// (nothing to tell from).
#[must_use]
pub fn stored_as(
    package: &slangpack_reader::Package,
    compress: bool,
    compress_spirv: bool,
) -> bool {
    let mut has_spirv = false;
    package.sections().all(|s| {
        let compressed = s.compression_kind() != Compression::None;
        match s.section_kind() {
            SectionKind::Spirv => {
                has_spirv = true;
                compressed == compress_spirv
            }
            SectionKind::Reflection | SectionKind::TargetCode => compressed == compress,
            _ => true,
        }
    }) && has_spirv
        && package.has_bare_frames() == compress_spirv
}

/// [`assemble`], with every SPIR-V module zstd-compressed when `compress_spirv` (with a
/// dictionary shared by the package's modules and reflection blobs where that makes the
/// package smaller), and then the section directory and container tables stored as one zstd
/// frame (the compressed index).
///
/// # Errors
/// As [`assemble`].
pub fn assemble_with(
    entries: &[BakedEntry],
    compress: bool,
    compress_spirv: bool,
) -> Result<Vec<u8>, PackError> {
    assemble_shard(entries, compress, compress_spirv, None)
}

/// [`assemble_with`], marking the package as a slice of a bake plan when `shard` is given (a
/// `ShardPlan` section, SPEC.md 5.9, written last: the package is otherwise byte for byte
/// what [`assemble_with`] makes).
///
/// # Errors
/// As [`assemble`].
pub fn assemble_shard(
    entries: &[BakedEntry],
    compress: bool,
    compress_spirv: bool,
    shard: Option<slangpack_format::ShardRecord>,
) -> Result<Vec<u8>, PackError> {
    assemble_entries(entries.iter().cloned(), compress, compress_spirv, shard)
}

/// [`assemble_shard`] of entries taken by value, in key order: each entry's reflection and
/// code move into the package builder as it comes, so that a bake holds one copy of them,
/// not two.
///
/// # Errors
/// As [`assemble`].
pub fn assemble_entries(
    entries: impl IntoIterator<Item = BakedEntry>,
    compress: bool,
    compress_spirv: bool,
    shard: Option<slangpack_format::ShardRecord>,
) -> Result<Vec<u8>, PackError> {
    finish(builder(entries, compress, compress_spirv, shard)?)
}

/// [`assemble_entries`], the package streamed to `out` (its bytes in order, never held whole
/// in memory), which `path` names in errors; returns its size.
///
/// # Errors
/// As [`assemble`], and [`PackError::Io`] when writing to `out` fails (what it holds then is
/// not a package).
pub fn assemble_entries_to(
    entries: impl IntoIterator<Item = BakedEntry>,
    compress: bool,
    compress_spirv: bool,
    shard: Option<slangpack_format::ShardRecord>,
    out: &mut dyn std::io::Write,
    path: &std::path::Path,
) -> Result<u64, PackError> {
    finish_to(
        builder(entries, compress, compress_spirv, shard)?,
        out,
        path,
    )
}

/// An empty package builder that stores what it is given as a bake with `compress` and
/// `compress_spirv` stores it:
/// - reflection blobs and target code zstd-compressed exactly when `compress`;
/// - SPIR-V zstd-compressed, with the compressed index and bare frames (SPEC.md 4.2), exactly
///   when `compress_spirv`;
/// - with reflection compressed and SPIR-V not (the default bake), the bind view of each
///   split blob (SPEC.md 6.1: the blob's first frame) as raw zstd blocks, so that a load
///   decompresses nothing on the way to the first binding. It costs the bind view's
///   compressed share of the package (about 4 KB for `pbr`); `--compress-spirv`, the bake for
///   size, keeps it compressed;
/// - with `compress_spirv`, a package of more than [`slangpack_format::PAGE_FROM`] entries
///   paged, [`slangpack_format::DEFAULT_PAGE_ENTRIES`] entries a page (SPEC.md 4.5), so that
///   its open reads a page table rather than every entry's records (a package with code for
///   further targets is not paged yet).
#[must_use]
pub fn stored_builder(compress: bool, compress_spirv: bool) -> PackageBuilder {
    let mut package = PackageBuilder::new();
    if !compress {
        package.set_reflection_compression(Compression::None);
    } else if !compress_spirv {
        package.set_bind_view_compression(Compression::None);
    }
    if compress_spirv {
        package.set_spirv_compression(Compression::Zstd);
        package.set_compressed_index(true);
        package.set_paging(
            slangpack_format::DEFAULT_PAGE_ENTRIES,
            slangpack_format::PAGE_FROM,
        );
    }
    package
}

/// Why the format builder refused the package.
fn refused(e: &slangpack_format::BuildError) -> PackError {
    PackError::Refused(e.clone())
}

/// The package builder holding `entries`, set up as [`assemble_entries`] describes.
fn builder(
    entries: impl IntoIterator<Item = BakedEntry>,
    compress: bool,
    compress_spirv: bool,
    shard: Option<slangpack_format::ShardRecord>,
) -> Result<PackageBuilder, PackError> {
    let mut package = stored_builder(compress, compress_spirv);
    if let Some(shard) = shard {
        package.set_shard(shard);
    }
    for entry in entries {
        add_entry(&mut package, entry)?;
    }
    Ok(package)
}

/// Adds `entry` to `package` as a bake stores it: its reflection blob and SPIR-V modules
/// (moved in, each stored once by content), its entry points, dependencies and code for
/// further targets. Entries may come in any order (the package is sorted by key).
///
/// # Errors
/// [`PackError::Refused`] when the builder refuses the entry (a key added before).
pub fn add_entry(package: &mut PackageBuilder, entry: BakedEntry) -> Result<(), PackError> {
    let reflection = package.add_reflection_bytes(&entry.reflection);
    let mut targets = Vec::with_capacity(entry.entry_points.len());
    // A new vector of exactly this many descriptions, which the builder keeps until it
    // finishes: collected in place, they would keep the larger allocation of the compiled
    // entry points (about 4 MB at 10,000 entries).
    let mut entry_points = Vec::with_capacity(entry.entry_points.len());
    for (i, ep) in entry.entry_points.into_iter().enumerate() {
        targets.push(ep.targets);
        entry_points.push(EntryPointDesc {
            name: ep.name,
            spirv_entry_name: ep.spirv_entry_name,
            stage: Stage::from_raw(ep.stage),
            thread_group_size: ep.thread_group_size,
            wave_size: ep.wave_size,
            spirv: package.add_spirv_words(ep.spirv),
            reflection_entry_point: Some(i as u32),
        });
    }
    package
        .add_entry(EntryDesc {
            key: entry.key.clone(),
            reflection: Some(reflection),
            entry_points,
            dependencies: entry
                .dependencies
                .into_iter()
                .map(|(path, hash)| DependencyDesc { path, hash })
                .collect(),
            options_hash: entry.options_hash,
        })
        .map_err(|e| refused(&e))?;
    for (i, ep_targets) in targets.into_iter().enumerate() {
        for t in ep_targets {
            package
                .add_target_code(
                    &entry.key,
                    i,
                    TargetCodeDesc {
                        target: t.target,
                        entry_name: t.entry_name,
                        code: t.code,
                    },
                )
                .map_err(|e| refused(&e))?;
        }
    }
    Ok(())
}

/// The bytes of the package `package` holds.
///
/// # Errors
/// [`PackError::Refused`] when the builder refuses the package (a limit, the spool file).
pub fn finish(package: PackageBuilder) -> Result<Vec<u8>, PackError> {
    package.finish().map_err(|e| refused(&e))
}

/// Streams the package `package` holds to `out`, which `path` names in errors (as
/// [`assemble_entries_to`] does); returns its size.
///
/// # Errors
/// [`PackError::Io`] when writing to `out` fails, [`PackError::Refused`] when the builder
/// refuses the package.
pub fn finish_to(
    package: PackageBuilder,
    out: &mut dyn std::io::Write,
    path: &std::path::Path,
) -> Result<u64, PackError> {
    package.finish_to(out).map_err(|e| match e {
        slangpack_format::BuildError::Write(why) => PackError::io(path, std::io::Error::other(why)),
        e => refused(&e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entry `key` with one compute entry point whose module is `spirv`.
    fn entry(key: &str, blob: &[u8], spirv: Vec<u32>) -> BakedEntry {
        BakedEntry {
            key: key.into(),
            entry_points: vec![CompiledEntryPoint {
                name: "main".into(),
                stage: Stage::Compute.to_raw(),
                spirv_entry_name: "main".into(),
                thread_group_size: [1, 1, 1],
                wave_size: 0,
                hash: 100 + u64::from(spirv[1]),
                spirv,
                targets: Vec::new(),
            }],
            reflection: blob.into(),
            dependencies: vec![(format!("{key}.slang"), 1)],
            options_hash: 2,
            warnings: String::new(),
        }
    }

    #[test]
    fn entries_added_as_they_arrive_make_the_package_of_the_sorted_ones() {
        let entries: Vec<BakedEntry> = (0..12u32)
            .map(|i| {
                let blob = format!("layout {}", i % 3);
                entry(
                    &format!("k{i:02}"),
                    blob.as_bytes(),
                    vec![0x0723_0203, i % 4],
                )
            })
            .collect();
        for compress_spirv in [false, true] {
            let sorted = assemble_with(&entries, true, compress_spirv).unwrap();
            // In another order, the modules spooled to a file.
            let mut package = stored_builder(true, compress_spirv);
            package.spool_spirv(tempfile::tempfile().unwrap());
            for e in entries
                .iter()
                .rev()
                .step_by(2)
                .chain(entries.iter().step_by(2))
            {
                add_entry(&mut package, e.clone()).unwrap();
            }
            let mut out = Vec::new();
            let n = finish_to(package, &mut out, std::path::Path::new("p")).unwrap();
            assert_eq!(n, out.len() as u64);
            assert!(out == sorted, "compress_spirv {compress_spirv}");
        }
        // A key added twice is refused, not stored twice.
        let mut package = stored_builder(true, false);
        add_entry(&mut package, entries[0].clone()).unwrap();
        assert!(matches!(
            add_entry(&mut package, entries[0].clone()),
            Err(PackError::Refused(
                slangpack_format::BuildError::DuplicateKey(_)
            ))
        ));
    }
}

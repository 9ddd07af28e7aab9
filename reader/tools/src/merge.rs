//! Combining packages baked separately (sharded across build machines, say) into one.
//!
//! Every entry of every input is carried over as it is: its entry points' SPIR-V, its
//! reflection blob, its dependencies and options hash. The package builder stores identical
//! SPIR-V modules and reflection blobs once, so shards that share code share bytes. An entry
//! key present in several inputs is fine when the entries are identical, and an error naming
//! the key otherwise.
//!
//! ```no_run
//! use slangpack_reader::Package;
//! use slangpack_tools::merge::merge;
//!
//! let a = Package::open("shard-a.slangpack")?;
//! let b = Package::open("shard-b.slangpack")?;
//! let merged = merge(&[("shard-a", &a), ("shard-b", &b)], true, false)?;
//! std::fs::write("all.slangpack", &merged.bytes)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::assemble::{assemble_with, BakedEntry};
use crate::text::quoted;
use crate::ToolError;
use slangpack_reader::{Entry, Package};
use std::collections::BTreeMap;

/// What a merge produced.
#[derive(Debug)]
pub struct MergeOutcome {
    /// The merged package's bytes.
    pub bytes: Vec<u8>,
    /// The merged entries, in key order.
    pub entries: Vec<BakedEntry>,
    /// How many input entries were identical copies of an entry already taken (same key,
    /// same content) and so were stored once.
    pub duplicates: usize,
    /// Notes about entries taken once although their metadata differed (same SPIR-V and
    /// reflection, but other dependency hashes or options hash: one input is stale).
    pub warnings: Vec<String>,
}

/// An entry of a package as plain data, ready for [`crate::assemble::assemble`].
///
/// # Errors
/// [`ToolError::Input`] for an entry without reflection (a package the writer did not make).
pub fn baked_entry(entry: &Entry<'_>) -> Result<BakedEntry, ToolError> {
    if !entry.has_reflection() {
        return Err(ToolError::Input(format!(
            "entry {} has no reflection blob",
            quoted(entry.key())
        )));
    }
    let entry_points = entry.entry_points().map(|ep| (&ep).into()).collect();
    Ok(BakedEntry {
        key: entry.key().to_string(),
        entry_points,
        reflection: entry.reflection().as_bytes().to_vec(),
        dependencies: entry
            .dependencies()
            .map(|d| (d.path().to_string(), d.content_hash()))
            .collect(),
        options_hash: entry.options_hash(),
        warnings: String::new(),
    })
}

/// Why two entries with one key are not the same entry, or `None` when their code and
/// reflection are identical.
fn content_difference(a: &BakedEntry, b: &BakedEntry) -> Option<String> {
    let names = |e: &BakedEntry| e.entry_points.iter().map(|ep| ep.name.clone()).collect();
    let (a_names, b_names): (Vec<String>, Vec<String>) = (names(a), names(b));
    if a_names != b_names {
        let list = |names: &[String]| {
            names
                .iter()
                .map(|n| quoted(n))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Some(format!(
            "entry points [{}] vs [{}]",
            list(&a_names),
            list(&b_names)
        ));
    }
    for (x, y) in a.entry_points.iter().zip(&b.entry_points) {
        if x.spirv != y.spirv {
            return Some(format!(
                "the SPIR-V of entry point {} differs",
                quoted(&x.name)
            ));
        }
        if (
            x.stage,
            &x.spirv_entry_name,
            x.thread_group_size,
            x.wave_size,
            x.hash,
        ) != (
            y.stage,
            &y.spirv_entry_name,
            y.thread_group_size,
            y.wave_size,
            y.hash,
        ) {
            return Some(format!(
                "entry point {} is declared differently",
                quoted(&x.name)
            ));
        }
    }
    if a.reflection != b.reflection {
        return Some("the reflection (bindings and layouts) differs".to_string());
    }
    None
}

/// Merges `packages` (each with a label naming it in messages, typically its path) into
/// one package; with `compress`, reflection is stored zstd-compressed, and with
/// `compress_spirv` the package is stored as `--compress-spirv` bakes store it
/// ([`assemble_with`]).
///
/// # Errors
/// [`ToolError::Input`] naming the key when two inputs hold different entries under one key,
/// when an entry lacks reflection, or when the builder refuses the result.
pub fn merge(
    packages: &[(&str, &Package)],
    compress: bool,
    compress_spirv: bool,
) -> Result<MergeOutcome, ToolError> {
    let mut taken: BTreeMap<String, (BakedEntry, &str)> = BTreeMap::new();
    let mut duplicates = 0;
    let mut warnings = Vec::new();
    for (label, package) in packages {
        for entry in package.entries() {
            let entry = entry.map_err(|e| ToolError::Input(format!("{label}: {e}")))?;
            let baked =
                baked_entry(&entry).map_err(|e| ToolError::Input(format!("{label}: {e}")))?;
            match taken.get(&baked.key) {
                None => {
                    taken.insert(baked.key.clone(), (baked, label));
                }
                Some((first, first_label)) => {
                    if let Some(why) = content_difference(first, &baked) {
                        return Err(ToolError::Input(format!(
                            "entry {} differs between {first_label} and {label}: {why}",
                            quoted(&baked.key)
                        )));
                    }
                    if first.dependencies != baked.dependencies
                        || first.options_hash != baked.options_hash
                    {
                        warnings.push(format!(
                            "entry {}: {first_label} and {label} hold the same code but other \
                             dependency or options hashes; keeping {first_label}'s",
                            quoted(&baked.key)
                        ));
                    }
                    duplicates += 1;
                }
            }
        }
    }
    let entries: Vec<BakedEntry> = taken.into_values().map(|(e, _)| e).collect();
    let bytes = assemble_with(&entries, compress, compress_spirv)?;
    Ok(MergeOutcome {
        bytes,
        entries,
        duplicates,
        warnings,
    })
}

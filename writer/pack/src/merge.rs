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
//! use slangpack_pack::merge::merge;
//!
//! let a = Package::open("shard-a.slangpack")?;
//! let b = Package::open("shard-b.slangpack")?;
//! let merged = merge(&[("shard-a", &a), ("shard-b", &b)], true, false)?;
//! std::fs::write("all.slangpack", &merged.bytes)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::assemble::BakedEntry;
use crate::PackError;
use slangpack_reader::text::quoted;
use slangpack_reader::{Entry, Package};
use std::collections::{BTreeMap, HashMap};

/// What a merge produced.
#[derive(Debug)]
pub struct MergeOutcome {
    /// The merged package's bytes.
    pub bytes: Vec<u8>,
    /// The keys of the merged entries, in key order.
    pub entries: Vec<String>,
    /// How many input entries were identical copies of an entry already taken (same key,
    /// same content) and so were stored once.
    pub duplicates: usize,
    /// Notes about entries taken once although their metadata differed (same SPIR-V and
    /// reflection, but other dependency hashes or options hash: one input is stale).
    pub warnings: Vec<String>,
}

/// The entry's whole reflection blob (raw tables included), as it was baked.
fn whole_blob(entry: &Entry<'_>) -> Result<Vec<u8>, PackError> {
    let view = entry.reflection().map_err(|e| {
        PackError::Input(format!(
            "entry {}: its reflection does not load: {e}",
            quoted(entry.key())
        ))
    })?;
    Ok(view.as_bytes().to_vec())
}

/// An entry of a package as plain data, ready for [`crate::assemble::assemble`].
///
/// # Errors
/// [`PackError::Input`] for an entry without reflection (a package the writer did not make).
pub fn baked_entry(entry: &Entry<'_>) -> Result<BakedEntry, PackError> {
    if !entry.has_reflection() {
        return Err(PackError::Input(format!(
            "entry {} has no reflection blob",
            quoted(entry.key())
        )));
    }
    let entry_points = entry.entry_points().map(|ep| (&ep).into()).collect();
    Ok(BakedEntry {
        key: entry.key().to_string(),
        entry_points,
        reflection: whole_blob(entry)?.into(),
        dependencies: entry
            .dependencies()
            .map(|d| (d.path().to_string(), d.content_hash()))
            .collect(),
        options_hash: entry.options_hash(),
        warnings: String::new(),
    })
}

/// Merges `packages` (each with a label naming it in messages, typically its path) into
/// one package; with `compress`, reflection is stored zstd-compressed, and with
/// `compress_spirv` the package is stored as `--compress-spirv` bakes store it
/// ([`assemble_with`](crate::assemble::assemble_with)).
///
/// Work and memory are linear in the inputs: entries are read where they lie, and each
/// reflection blob and SPIR-V module is copied once however many entries share it (entries
/// of one input naming one blob stay one blob), so 300 entries sharing a blob of 100 000
/// members cost one blob. An entry point's `reflection_entry_point` is carried over as it is.
///
/// # Errors
/// [`PackError::Input`] naming the key when two inputs hold different entries under one key,
/// when an entry lacks reflection, or when the builder refuses the result.
pub fn merge(
    packages: &[(&str, &Package)],
    compress: bool,
    compress_spirv: bool,
) -> Result<MergeOutcome, PackError> {
    // The first entry of each key: (input, entry).
    let mut taken: BTreeMap<&str, (usize, Entry<'_>)> = BTreeMap::new();
    let mut duplicates = 0;
    let mut warnings = Vec::new();
    let mut same = Same::default();
    for (input, (label, package)) in packages.iter().enumerate() {
        for entry in package.entries() {
            let entry = entry.map_err(|e| PackError::Input(format!("{label}: {e}")))?;
            if !entry.has_reflection() {
                return Err(PackError::Input(format!(
                    "{label}: entry {} has no reflection blob",
                    quoted(entry.key())
                )));
            }
            // The whole blob is merged: its raw tables are checked here (SPEC 10), once.
            if let Err(e) = entry.reflection() {
                return Err(PackError::Input(format!(
                    "{label}: entry {}: its reflection does not load: {e}",
                    quoted(entry.key())
                )));
            }
            let Some((first_input, first)) = taken.get(entry.key()) else {
                taken.insert(entry.key(), (input, entry));
                continue;
            };
            let first_label = packages.get(*first_input).map_or("", |p| p.0);
            if let Some(why) = same.difference((*first_input, first), (input, &entry)) {
                return Err(PackError::Input(format!(
                    "entry {} differs between {first_label} and {label}: {why}",
                    quoted(entry.key())
                )));
            }
            let deps = |e: &Entry<'_>| -> Vec<(String, u64)> {
                e.dependencies()
                    .map(|d| (d.path().to_string(), d.content_hash()))
                    .collect()
            };
            if deps(first) != deps(&entry) || first.options_hash() != entry.options_hash() {
                warnings.push(format!(
                    "entry {}: {first_label} and {label} hold the same code but other \
                     dependency or options hashes; keeping {first_label}'s",
                    quoted(entry.key())
                ));
            }
            duplicates += 1;
        }
    }
    let bytes = assemble_shared(&taken, compress, compress_spirv)?;
    Ok(MergeOutcome {
        bytes,
        entries: taken.keys().map(|k| (*k).to_string()).collect(),
        duplicates,
        warnings,
    })
}

/// A blob or module of one input: (input, its index among the input's blobs or modules).
type Stored = (usize, u32);

/// Whether blobs and modules of two inputs hold the same bytes, each pair compared once.
#[derive(Default)]
struct Same {
    /// (reflection blob, reflection blob) -> equal.
    blobs: HashMap<(Stored, Stored), bool>,
    /// (SPIR-V module, SPIR-V module) -> equal.
    modules: HashMap<(Stored, Stored), bool>,
}

impl Same {
    /// Why entry `b` is not the same as entry `a` (code, entry points, reflection), if it is
    /// not.
    fn difference<'p>(
        &mut self,
        (ai, a): (usize, &Entry<'p>),
        (bi, b): (usize, &Entry<'p>),
    ) -> Option<String> {
        let names = |e: &Entry<'p>| e.entry_points().map(|ep| ep.name()).collect::<Vec<_>>();
        let (a_names, b_names) = (names(a), names(b));
        if a_names != b_names {
            let list = |names: &[&str]| {
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
        for (x, y) in a.entry_points().zip(b.entry_points()) {
            let key = ((ai, x.spirv_index()), (bi, y.spirv_index()));
            let same_spirv = *self
                .modules
                .entry(key)
                .or_insert_with(|| x.spirv() == y.spirv());
            if !same_spirv {
                return Some(format!(
                    "the SPIR-V of entry point {} differs",
                    quoted(x.name())
                ));
            }
            let targets = |ep: &slangpack_reader::EntryPoint<'p>| {
                ep.targets()
                    .map(|t| (t.target(), t.entry_name(), t.bytes()))
                    .collect::<Vec<_>>()
            };
            if (
                x.stage(),
                x.spirv_entry_name(),
                x.thread_group_size(),
                x.wave_size(),
                x.hash(),
            ) != (
                y.stage(),
                y.spirv_entry_name(),
                y.thread_group_size(),
                y.wave_size(),
                y.hash(),
            ) {
                return Some(format!(
                    "entry point {} is declared differently",
                    quoted(x.name())
                ));
            }
            if targets(&x) != targets(&y) {
                return Some(format!(
                    "the code of entry point {} for further targets differs",
                    quoted(x.name())
                ));
            }
        }
        let key = ((ai, a.record().reflection), (bi, b.record().reflection));
        let same_blob =
            *self
                .blobs
                .entry(key)
                .or_insert_with(|| match (a.reflection(), b.reflection()) {
                    (Ok(x), Ok(y)) => x.as_bytes() == y.as_bytes(),
                    _ => false,
                });
        if !same_blob {
            return Some("the reflection (bindings and layouts) differs".to_string());
        }
        None
    }
}

/// The package of the `taken` entries, stored as [`crate::assemble::assemble_with`] stores
/// baked entries (the same bytes for the same entries), each input's blob and module added
/// once.
fn assemble_shared(
    taken: &BTreeMap<&str, (usize, Entry<'_>)>,
    compress: bool,
    compress_spirv: bool,
) -> Result<Vec<u8>, PackError> {
    use slangpack_format::{
        DependencyDesc, EntryDesc, EntryPointDesc, Target, TargetCodeDesc, ABSENT,
    };
    let refused = |e: slangpack_format::BuildError| {
        PackError::Input(format!("cannot assemble the package: {e}"))
    };
    let mut package = crate::assemble::stored_builder(compress, compress_spirv);
    let mut blobs: HashMap<(usize, u32), u32> = HashMap::new();
    let mut modules: HashMap<(usize, u32), u32> = HashMap::new();
    // Code for further targets, by where its bytes lie in its input (one place per stored
    // blob, shared by every entry point that uses it): the first (entry, entry point) given it.
    let mut codes: HashMap<(usize, usize, usize, u32), (&str, usize)> = HashMap::new();
    for (key, (input, entry)) in taken {
        let slot = (*input, entry.record().reflection);
        let reflection = match blobs.get(&slot) {
            Some(&r) => r,
            None => {
                let r = package.add_reflection(whole_blob(entry)?);
                blobs.insert(slot, r);
                r
            }
        };
        let entry_points = entry
            .entry_points()
            .map(|ep| {
                let spirv = *modules
                    .entry((*input, ep.spirv_index()))
                    .or_insert_with(|| package.add_spirv(ep.spirv()));
                let r = ep.record().reflection_entry_point;
                EntryPointDesc {
                    name: ep.name().to_string(),
                    spirv_entry_name: ep.spirv_entry_name().to_string(),
                    stage: ep.stage(),
                    thread_group_size: ep.thread_group_size(),
                    wave_size: ep.wave_size().unwrap_or(0),
                    spirv,
                    reflection_entry_point: (r != ABSENT).then_some(r),
                    hash: ep.hash(),
                }
            })
            .collect();
        package
            .add_entry(EntryDesc {
                key: (*key).to_string(),
                reflection: Some(reflection),
                entry_points,
                dependencies: entry
                    .dependencies()
                    .map(|d| DependencyDesc {
                        path: d.path().to_string(),
                        hash: d.content_hash(),
                    })
                    .collect(),
                options_hash: entry.options_hash(),
                entry_point_hash: entry.entry_point_hash(),
            })
            .map_err(refused)?;
        for (i, ep) in entry.entry_points().enumerate() {
            for t in ep.targets().filter(|t| t.target() != Target::Spirv) {
                let bytes = t.bytes();
                let place = (
                    *input,
                    bytes.as_ptr() as usize,
                    bytes.len(),
                    t.target().to_raw(),
                );
                match codes.get(&place) {
                    Some(&like) => package.add_target_code_like(
                        key,
                        i,
                        t.target(),
                        t.entry_name().to_string(),
                        like,
                    ),
                    None => {
                        codes.insert(place, (key, i));
                        package.add_target_code(
                            key,
                            i,
                            TargetCodeDesc {
                                target: t.target(),
                                entry_name: t.entry_name().to_string(),
                                code: bytes.to_vec(),
                            },
                        )
                    }
                }
                .map_err(refused)?;
            }
        }
    }
    package.finish().map_err(refused)
}

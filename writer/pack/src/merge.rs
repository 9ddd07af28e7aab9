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
use slangpack_format::{restore_magic, Compression, PackageBuilder, SectionKind, StoredDictionary};
use slangpack_reader::text::quoted;
use slangpack_reader::{Entry, Package};
use std::borrow::Cow;
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
fn whole_blob<'p>(entry: &Entry<'p>) -> Result<&'p [u8], PackError> {
    let view = entry.reflection().map_err(|e| {
        PackError::Input(format!(
            "entry {}: its reflection does not load: {e}",
            quoted(entry.key())
        ))
    })?;
    Ok(view.as_bytes())
}

/// A section's compression and its stored bytes, as a package without bare frames stores
/// them.
type StoredSection<'p> = Option<(Compression, Cow<'p, [u8]>)>;

/// The compression and stored bytes of each section of `kind` in `package`, in order, zstd
/// frames with their magic numbers (put back where the package stores them bare, 2.4), as a
/// builder takes them; `None` where a section's bytes lie outside the package or are not bare
/// frames where they should be.
fn stored_sections(package: &Package, kind: SectionKind) -> Vec<StoredSection<'_>> {
    let bytes = package.as_bytes();
    let bare = package.has_bare_frames();
    package
        .sections()
        .filter(|s| s.section_kind() == kind)
        .map(|s| {
            let start = usize::try_from(s.offset()).ok()?;
            let end = start.checked_add(usize::try_from(s.stored_size()).ok()?)?;
            let stored = bytes.get(start..end)?;
            let compression = s.compression_kind();
            let stored = match bare && compression.is_zstd() {
                true => Cow::Owned(restore_magic(stored)?),
                false => Cow::Borrowed(stored),
            };
            Some((compression, stored))
        })
        .collect()
}

/// What an input offers the merged package's builder: its blobs' and modules' stored frames.
struct Offered<'p> {
    /// Per reflection blob of the input.
    blobs: Vec<StoredSection<'p>>,
    /// Per SPIR-V module of the input.
    modules: Vec<StoredSection<'p>>,
    /// The builder's id of the input's dictionary, where the input stores its SPIR-V
    /// compressed (the layout whose frames an output with SPIR-V compressed may reuse).
    dictionary: Option<u32>,
}

impl<'p> Offered<'p> {
    fn of(package: &'p Package, builder: &mut PackageBuilder) -> Self {
        let modules = stored_sections(package, SectionKind::Spirv);
        let compressed = |s: &StoredSection<'_>| {
            matches!(
                s,
                Some((
                    Compression::Zstd
                        | Compression::ZstdDictionary
                        | Compression::ZstdPackedSpirv
                        | Compression::ZstdDictionaryPackedSpirv
                        | Compression::InModuleRun,
                    _
                ))
            )
        };
        let dictionary = if !modules.is_empty() && modules.iter().all(compressed) {
            let stored = stored_sections(package, SectionKind::Dictionary);
            let raw_size = package
                .sections()
                .find(|s| s.section_kind() == SectionKind::Dictionary)
                .map(|s| s.raw_size());
            match (stored.first().and_then(Option::as_ref), raw_size) {
                (Some((compression, stored)), Some(raw_size)) => {
                    builder.offer_dictionary(Some(StoredDictionary {
                        compression: *compression,
                        raw_size,
                        stored,
                    }))
                }
                _ if stored.is_empty() => builder.offer_dictionary(None),
                _ => None,
            }
        } else {
            None
        };
        Self {
            blobs: stored_sections(package, SectionKind::Reflection),
            modules,
            dictionary,
        }
    }

    /// A blob stored as plain zstd frames (which a package builder can store again as they
    /// are: [`PackageBuilder::add_reflection_stored`], which checks them).
    fn zstd_blob(&self, index: u32) -> Option<&[u8]> {
        match self.blobs.get(index as usize)?.as_ref()? {
            (Compression::Zstd, stored) => Some(stored),
            _ => None,
        }
    }

    /// Offers the builder the frames of the input's blob or module `index` (of `kind`),
    /// stored there as builder item `id`.
    fn offer(&self, builder: &mut PackageBuilder, kind: SectionKind, index: u32, id: u32) {
        let sections = match kind {
            SectionKind::Spirv => &self.modules,
            _ => &self.blobs,
        };
        if let (Some(dictionary), Some((compression, stored))) = (
            self.dictionary,
            sections.get(index as usize).and_then(Option::as_ref),
        ) {
            builder.offer_frames(kind, id, dictionary, *compression, stored);
        }
    }
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
/// members cost one blob. A blob stored as plain zstd frames is stored again as those frames
/// where the output stores blobs that way (`compress` without `compress_spirv`), after a check
/// that they decompress to the blob, rather than compressed again: compressing is what
/// costs (12-15 s at the bake's level for a blob of 8 MB that the input holds in 171 KB).
/// With `compress_spirv`, the merged package's dictionary is chosen over its content, as one
/// bake of everything would choose it (the same bytes); where that is an input's dictionary
/// (a package merged with itself or with a part of itself), that input's frames are stored
/// again as they are, after the same check ([`PackageBuilder::offer_frames`]), and everything
/// else is compressed again, each distinct blob and module once. An entry point's
/// `reflection_entry_point` is carried over as it is.
///
/// # Errors
/// [`PackError::Input`] naming the key when two inputs hold different entries under one key,
/// or when an entry lacks reflection; [`PackError::Read`] naming the input and entry that do
/// not load; [`PackError::Refused`] when the builder refuses the result.
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
            let entry = entry.map_err(|source| PackError::Read {
                what: label.to_string(),
                source,
            })?;
            if !entry.has_reflection() {
                return Err(PackError::Input(format!(
                    "{label}: entry {} has no reflection blob",
                    quoted(entry.key())
                )));
            }
            // The whole blob is merged: its raw tables are checked here (SPEC 10), once.
            if let Err(source) = entry.reflection() {
                return Err(PackError::Read {
                    what: format!(
                        "{label}: entry {}: its reflection does not load",
                        quoted(entry.key())
                    ),
                    source,
                });
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

/// The part of an input that numbers its blobs and modules: the input, and in a paged
/// package (3.0) the page (its first entry's number), whose blobs and modules are its own.
type Part = (usize, usize);

/// The part of input `input` that holds `entry`.
fn part(input: usize, entry: &Entry<'_>) -> Part {
    (input, entry.package().first_entry())
}

/// A blob or module of one input: (its part, its index among the part's blobs or modules).
type Stored = (Part, u32);

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
            let key = (
                (part(ai, a), x.spirv_index()),
                (part(bi, b), y.spirv_index()),
            );
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
        let key = (
            (part(ai, a), a.record().reflection),
            (part(bi, b), b.record().reflection),
        );
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
    let refused = PackError::Refused;
    let mut package = crate::assemble::stored_builder(compress, compress_spirv);
    let mut blobs: HashMap<Stored, u32> = HashMap::new();
    // Per input (per page of a paged one), the stored frames of its reflection blobs and
    // modules.
    let mut offered: HashMap<Part, Offered<'_>> = HashMap::new();
    let mut modules: HashMap<Stored, u32> = HashMap::new();
    // Code for further targets, by where its bytes lie in its input (one place per stored
    // blob, shared by every entry point that uses it): the first (entry, entry point) given it.
    let mut codes: HashMap<(usize, usize, usize, u32), (&str, usize)> = HashMap::new();
    for (key, (input, entry)) in taken {
        let part = part(*input, entry);
        let slot = (part, entry.record().reflection);
        let offer = offered
            .entry(part)
            .or_insert_with(|| Offered::of(entry.package(), &mut package));
        let reflection = match blobs.get(&slot) {
            Some(&r) => r,
            None => {
                let blob = whole_blob(entry)?;
                let r = match offer.zstd_blob(slot.1) {
                    Some(stored) => package.add_reflection_stored(blob, stored),
                    None => package.add_reflection_bytes(blob),
                };
                offer.offer(&mut package, SectionKind::Reflection, slot.1, r);
                blobs.insert(slot, r);
                r
            }
        };
        let entry_points = entry
            .entry_points()
            .map(|ep| {
                let spirv = *modules.entry((part, ep.spirv_index())).or_insert_with(|| {
                    let id = package.add_spirv(ep.spirv());
                    offer.offer(&mut package, SectionKind::Spirv, ep.spirv_index(), id);
                    id
                });
                let r = ep.record().reflection_entry_point;
                EntryPointDesc {
                    name: ep.name().to_string(),
                    spirv_entry_name: ep.spirv_entry_name().to_string(),
                    stage: ep.stage(),
                    thread_group_size: ep.thread_group_size(),
                    wave_size: ep.wave_size().unwrap_or(0),
                    spirv,
                    reflection_entry_point: (r != ABSENT).then_some(r),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assemble::{assemble_with, stored_builder, CompiledEntryPoint};
    use slangpack_format::{
        bind::BindSummary, EntryPointLayout, ReflectionBuilder, Stage, Variable, ABSENT,
    };

    /// A split reflection blob (raw tables and a bind view) of a compute entry point `main` and
    /// `n` variables, named after `seed`.
    fn blob(n: u32, seed: u32) -> Vec<u8> {
        let mut b = ReflectionBuilder::new();
        let main = b.intern("main");
        b.push(EntryPointLayout {
            name: main,
            name_override: ABSENT,
            stage: Stage::Compute.to_raw(),
            thread_group_size_x: 1,
            thread_group_size_y: 1,
            thread_group_size_z: 1,
            parameter_pool: 0,
            parameter_count: 0,
            var_layout: ABSENT,
            result_var_layout: ABSENT,
            function: ABSENT,
            ..EntryPointLayout::default()
        });
        for i in 0..n {
            let name = b.intern(&format!("v{seed}_{}", i % 61));
            b.push(Variable {
                name,
                type_index: ABSENT,
                generic_container: ABSENT,
                ..Default::default()
            });
        }
        b.push(BindSummary {
            set_slot_count: 0,
            global_uniform_binding: ABSENT,
            entry_point_count: 1,
            ..Default::default()
        });
        let blob = b.finish();
        assert!(slangpack_format::blob_split(&blob).is_some());
        blob
    }

    /// Entry `key` of one compute entry point, with reflection `blob`.
    fn entry(key: &str, blob: &[u8], word: u32) -> BakedEntry {
        BakedEntry {
            key: key.into(),
            entry_points: vec![CompiledEntryPoint {
                name: "main".into(),
                stage: Stage::Compute.to_raw(),
                spirv_entry_name: "main".into(),
                thread_group_size: [1, 1, 1],
                wave_size: 0,
                hash: u64::from(word),
                spirv: vec![0x0723_0203, 0x0001_0500, word, 1, 0],
                targets: Vec::new(),
            }],
            reflection: blob.into(),
            dependencies: vec![(format!("{key}.slang"), 1)],
            options_hash: 2,
            warnings: String::new(),
        }
    }

    fn open(bytes: &[u8]) -> Package {
        let package = Package::from_bytes(bytes).expect("opens");
        package.verify_all().expect("valid");
        package
    }

    #[test]
    fn shards_merge_into_the_bytes_of_one_assembly() {
        let blobs: Vec<Vec<u8>> = (0..3).map(|i| blob(300, i)).collect();
        let entries: Vec<BakedEntry> = (0..12u32)
            .map(|i| entry(&format!("k{i:02}"), &blobs[(i % 3) as usize], i % 5))
            .collect();
        for (compress, compress_spirv) in [(true, false), (false, false), (true, true)] {
            let all = assemble_with(&entries, compress, compress_spirv).unwrap();
            let (a, b): (Vec<BakedEntry>, Vec<BakedEntry>) = entries
                .iter()
                .cloned()
                .partition(|e| e.key.as_str() < "k05");
            let a = open(&assemble_with(&a, compress, compress_spirv).unwrap());
            let b = open(&assemble_with(&b, compress, compress_spirv).unwrap());
            let merged = merge(&[("b", &b), ("a", &a)], compress, compress_spirv).unwrap();
            assert!(
                merged.bytes == all,
                "compress {compress}, compress_spirv {compress_spirv}"
            );
        }
    }

    #[test]
    fn paged_inputs_merge_into_the_bytes_of_one_assembly() {
        // Pages number their own blobs and modules: a merge that told entries' blobs and
        // modules apart by input alone would take one page's for another's.
        let blobs: Vec<Vec<u8>> = (0..3).map(|i| blob(300, i)).collect();
        let entries: Vec<BakedEntry> = (0..40u32)
            .map(|i| entry(&format!("k{i:02}"), &blobs[(i % 3) as usize], i % 7))
            .collect();
        let all = assemble_with(&entries, true, true).unwrap();
        let (a, b): (Vec<BakedEntry>, Vec<BakedEntry>) = entries
            .iter()
            .cloned()
            .partition(|e| e.key.as_str() < "k17");
        let paged = |part: &[BakedEntry], per: usize| {
            let flat = assemble_with(part, true, true).unwrap();
            slangpack_format::paginate(&flat, per, 19).unwrap()
        };
        let (a, b) = (open(&paged(&a, 3)), open(&paged(&b, 5)));
        assert_eq!(a.version().0, slangpack_format::PAGED_VERSION_MAJOR);
        let merged = merge(&[("b", &b), ("a", &a)], true, true).unwrap();
        assert!(merged.bytes == all, "the merge of paged inputs");
    }

    #[test]
    fn merge_stores_the_zstd_frames_of_its_inputs_as_they_are() {
        // 300 entries sharing one blob, its frames made at zstd level 1 (not the bake's): a
        // merge that compressed the blob again would store other frames (level 19's).
        let blob = blob(20_000, 7);
        let mut p = stored_builder(true, false);
        p.set_zstd_level(1);
        for i in 0..300 {
            crate::assemble::add_entry(&mut p, entry(&format!("e{i:03}"), &blob, 1)).unwrap();
        }
        let input = crate::assemble::finish(p).unwrap();
        let package = open(&input);
        let merged = merge(&[("a", &package), ("b", &package)], true, false).unwrap();
        assert_eq!(merged.entries.len(), 300);
        assert_eq!(merged.duplicates, 300);
        assert!(
            merged.bytes == input,
            "the input's bytes, frames as they were"
        );
        let out = open(&merged.bytes);
        let first = out.load("e000").unwrap();
        assert_eq!(first.reflection().unwrap().as_bytes(), blob.as_slice());

        // Stored without compression, or with the package's dictionary, the blob is
        // compressed again as such a bake compresses it.
        for (compress, compress_spirv) in [(false, false), (true, true)] {
            let merged = merge(&[("a", &package)], compress, compress_spirv).unwrap();
            let entries: Vec<BakedEntry> = (0..300)
                .map(|i| entry(&format!("e{i:03}"), &blob, 1))
                .collect();
            let reassembled = assemble_with(&entries, compress, compress_spirv).unwrap();
            assert!(
                merged.bytes == reassembled,
                "compress_spirv {compress_spirv}"
            );
        }
    }
}

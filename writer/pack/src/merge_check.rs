//! What `merge` checks of its inputs before combining them: that the shards of a sharded bake
//! come from one bake plan and together are complete (SPEC.md 5.9), and how the inputs are
//! stored, so that the merged package is stored alike unless told otherwise.
//!
//! ```no_run
//! use slangpack_reader::Package;
//! use slangpack_pack::merge_check::{check_shards, storage};
//!
//! let a = Package::open("shard-1.slangpack")?;
//! let b = Package::open("shard-2.slangpack")?;
//! let inputs = [("shard-1", &a), ("shard-2", &b)];
//! let plan = check_shards(&inputs, false)?; // an error names what is missing or mismatched
//! let (compress, compress_spirv) = storage(&inputs, None, None)?;
//! # let _ = (plan, compress, compress_spirv);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::PackError;
use slangpack_format::{Compression, SectionKind, ShardRecord};
use slangpack_reader::Package;
use std::collections::{BTreeMap, BTreeSet};

/// What [`check_shards`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardCheck {
    /// No input carries a shard plan: plain packages, merged as they are.
    NotShards,
    /// Every slice of one plan, each complete.
    Complete {
        /// N.
        shard_count: u32,
        /// Permutations in the plan.
        plan_job_count: u32,
    },
    /// A deliberate subset (`allow_partial`): what is missing, in words, one line each.
    Partial(Vec<String>),
}

/// Checks that `packages` (label, package) that carry shard plans are slices of one plan,
/// each complete, and all there; with `allow_partial`, missing or incomplete slices and
/// inputs that are no shard are reported in [`ShardCheck::Partial`] instead of failing.
///
/// Missing slices are named as runs (`1/9, 3/9 to 4/9`, at most 8 runs and how many more):
/// the work, the memory and the message are bounded by the inputs, not by the plan's N (a
/// plan of 4,294,967,295 slices costs what a plan of 3 does).
///
/// # Errors
/// [`PackError::Read`] naming the input whose shard plan does not read; [`PackError::Input`]
/// naming the input: slices of different plans
/// (another N, or another plan hash: other options, targets or permutations); one slice
/// given twice with other contents; and, without `allow_partial`, an input without a shard
/// plan beside shards, a slice missing permutations (`--keep-going` left them out), and
/// missing slices.
pub fn check_shards(
    packages: &[(&str, &Package)],
    allow_partial: bool,
) -> Result<ShardCheck, PackError> {
    let mut shards: Vec<(&str, &Package, ShardRecord)> = Vec::new();
    let mut plain = Vec::new();
    for &(label, package) in packages {
        match package.shard_plan() {
            Ok(Some(shard)) => shards.push((label, package, shard)),
            Ok(None) => plain.push(label),
            Err(source) => {
                return Err(PackError::Read {
                    what: format!("{label}: its shard plan"),
                    source,
                })
            }
        }
    }
    let Some(&(first_label, first_package, first)) = shards.first() else {
        return Ok(ShardCheck::NotShards);
    };
    let slice = |s: &ShardRecord| format!("{}/{}", s.shard_index, s.shard_count);
    let mut problems = Vec::new();
    if !plain.is_empty() {
        problems.push(format!(
            "{} {} not the output of a sharded bake (no shard plan), while {first_label} is \
             shard {}",
            plain.join(", "),
            if plain.len() == 1 { "is" } else { "are" },
            slice(&first)
        ));
    }
    let mut by_index: BTreeMap<u32, (&str, &Package)> = BTreeMap::new();
    for &(label, package, shard) in &shards {
        if shard.shard_count != first.shard_count {
            return Err(PackError::Input(format!(
                "{label} is shard {} but {first_label} is shard {}: slices of different \
                 plans (bake every shard with the same --shard N)",
                slice(&shard),
                slice(&first)
            )));
        }
        if shard.plan_hash() != first.plan_hash() || shard.plan_job_count != first.plan_job_count {
            let why = if options_hashes(package).is_disjoint(&options_hashes(first_package)) {
                "other compile options (-O, -g, --target, -D, the writer or Slang version, ...)"
            } else {
                "another set of permutations (other inputs, manifest axes or defines)"
            };
            return Err(PackError::Input(format!(
                "{label} (shard {}, plan {:016x}, {} permutations) and {first_label} (shard {}, \
                 plan {:016x}, {} permutations) come from different bake plans: {why}",
                slice(&shard),
                shard.plan_hash(),
                shard.plan_job_count,
                slice(&first),
                first.plan_hash(),
                first.plan_job_count
            )));
        }
        if let Some((other, other_package)) = by_index.insert(shard.shard_index, (label, package)) {
            if other_package.as_bytes() != package.as_bytes() {
                return Err(PackError::Input(format!(
                    "shard {} is given twice with other contents: {other} and {label}",
                    slice(&shard)
                )));
            }
        }
        let have = package.len() as u64 + u64::from(shard.library_count);
        if have < u64::from(shard.job_count) {
            problems.push(format!(
                "{label} (shard {}) lacks {} of its {} permutations (a --keep-going bake left \
                 them out)",
                slice(&shard),
                u64::from(shard.job_count) - have,
                shard.job_count
            ));
        }
    }
    let (missing, gaps) = missing_slices(by_index.keys().copied(), first.shard_count);
    if missing > 0 {
        let count = first.shard_count;
        let gaps: Vec<String> = gaps
            .iter()
            .map(|&(from, to)| {
                if from == to {
                    format!("{from}/{count}")
                } else {
                    format!("{from}/{count} to {to}/{count}")
                }
            })
            .collect();
        problems.push(format!(
            "{missing} of {count} shards are missing: {}",
            shown_list(&gaps)
        ));
    }
    if problems.is_empty() {
        return Ok(ShardCheck::Complete {
            shard_count: first.shard_count,
            plan_job_count: first.plan_job_count,
        });
    }
    if allow_partial {
        return Ok(ShardCheck::Partial(problems));
    }
    Err(PackError::Input(format!(
        "{} (pass --allow-partial to merge a deliberate subset)",
        problems.join("; ")
    )))
}

/// The slices of `1..=count` not in `present` (ascending, each in that range): how many, and
/// as inclusive runs `(first, last)`. The work and the runs are bounded by the slices present
/// (at most one run more than there are of them), not by `count`: a plan of 4,294,967,295
/// slices with two given is two runs.
fn missing_slices(present: impl IntoIterator<Item = u32>, count: u32) -> (u64, Vec<(u32, u32)>) {
    let mut runs = Vec::new();
    let mut missing = 0u64;
    // The first slice not yet accounted for (u64: one past `u32::MAX` is a value).
    let mut next = 1u64;
    for k in present
        .into_iter()
        .map(u64::from)
        .chain([u64::from(count) + 1])
    {
        if k > next {
            // Both ends lie in 1..=count, so they fit in u32.
            runs.push((next as u32, (k - 1) as u32));
            missing += k - next;
        }
        next = next.max(k + 1);
    }
    (missing, runs)
}

/// At most 8 items, then how many more.
fn shown_list(items: &[String]) -> String {
    let mut text = items.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > 8 {
        text.push_str(&format!(" and {} more", items.len() - 8));
    }
    text
}

fn options_hashes(package: &Package) -> BTreeSet<u64> {
    package
        .entries()
        .flatten()
        .map(|entry| entry.options_hash())
        .collect()
}

/// How the merged package is stored: `(compress, compress_spirv)` — reflection compressed,
/// SPIR-V compressed (with the compressed index, as `bake --compress-spirv` stores it). Each
/// is `requested` where given, else what the inputs do (inputs without such sections say
/// nothing), else the bake's default (reflection compressed, SPIR-V not).
///
/// # Errors
/// [`PackError::Input`] naming two inputs stored differently, when nothing was requested.
pub fn storage(
    packages: &[(&str, &Package)],
    compress: Option<bool>,
    compress_spirv: Option<bool>,
) -> Result<(bool, bool), PackError> {
    let follow = |requested: Option<bool>,
                  kinds: &[SectionKind],
                  what: &str,
                  flags: &str,
                  default: bool|
     -> Result<bool, PackError> {
        if let Some(requested) = requested {
            return Ok(requested);
        }
        let mut seen: Option<(&str, bool)> = None;
        for &(label, package) in packages {
            let mut sections = package
                .sections()
                .filter(|s| kinds.contains(&s.section_kind()))
                .peekable();
            if sections.peek().is_none() {
                continue;
            }
            let compressed = sections.any(|s| s.compression_kind() != Compression::None);
            match seen {
                None => seen = Some((label, compressed)),
                Some((first, then)) if then != compressed => {
                    let says = |c: bool| if c { "compressed" } else { "uncompressed" };
                    return Err(PackError::Input(format!(
                        "{first} stores {what} {} but {label} stores it {}: pass {flags} to \
                         choose",
                        says(then),
                        says(compressed)
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(seen.map_or(default, |(_, compressed)| compressed))
    };
    let compress_spirv = follow(
        compress_spirv,
        &[SectionKind::Spirv],
        "SPIR-V",
        "--compress-spirv or --no-compress-spirv",
        false,
    )?;
    let compress = follow(
        compress,
        &[SectionKind::Reflection, SectionKind::TargetCode],
        "reflection",
        "--compress or --no-compress",
        true,
    )?;
    Ok((compress, compress_spirv))
}

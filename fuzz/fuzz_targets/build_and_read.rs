//! Structure-aware: arbitrary tables → `ReflectionBuilder` / `PackageBuilder` → reader.
//!
//! Record fields are drawn mostly from small values and `ABSENT`, so many generated blobs are
//! valid and get past validation; some indices land out of range. The builders check no index,
//! so the one error the reader may answer at open is `IndexOutOfRange` (and at a load also
//! `LimitExceeded`, `BadValue`, `Duplicate`: nesting and bind-view values the builders leave
//! unchecked). Whatever opens must read back
//! exactly what was built (every blob, table, string, entry, entry point, SPIR-V module and
//! dependency, and code for further targets) and survive the full walk, including loads from
//! two threads at once. One table may get a wider stride (a newer minor
//! version's records) and an unknown table kind may be added: both must be read as the format
//! promises (prefix kept, unknown table skipped).
//!
//! The name index is random slots (hashes of the blob's strings) or the builder's index of the
//! strings with slots mutated (`mutations::name_index`: hashes, kinds, indices, collisions,
//! tables filled to half and one past, clusters around the probe bound); the package gets
//! none, one or several `ShardPlan` sections (`mutations::shard_plans`), which
//! `Package::shard_plan` and `verify_all` must read back or refuse exactly as SPEC.md 5.9
//! says. Every table kind of the format's table list reads back as built.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use slangpack_format::bind::{self, name_target, NameKind};
use slangpack_format::*;
use slangpack_reader::{ErrorKind, Package};
use std::collections::BTreeMap;
use std::mem::size_of;
use zerocopy::IntoBytes;

mod mutations;

#[path = "../../tests/src/walk.rs"]
#[allow(dead_code, reason = "the tests use helpers this target does not")]
mod walk;

/// A field value: mostly small (valid indices into small tables), sometimes absent or zero,
/// sometimes anything.
fn small(u: &mut Unstructured<'_>) -> Result<u32> {
    Ok(match u.arbitrary::<u8>()? {
        0..=159 => u32::from(u.arbitrary::<u8>()? % 6),
        160..=199 => ABSENT,
        200..=239 => 0,
        _ => u.arbitrary()?,
    })
}

/// What one table was built from: packed records as the reader must serve them.
type Expected = BTreeMap<u32, Vec<u8>>;

/// Pushes up to `max` records of `R`, each field drawn by [`small`]; `wide` appends that many
/// extra bytes to every record (a newer minor version's stride).
fn table<R: TableRecord>(
    u: &mut Unstructured<'_>,
    rb: &mut ReflectionBuilder,
    expected: &mut Expected,
    max: u32,
    wide: u32,
    fix: impl Fn(&mut R),
) -> Result<()> {
    let count = match R::KIND {
        TableKind::NameIndex => [0, 1, 2, 4][usize::from(u.arbitrary::<u8>()? % 4)],
        _ => u.int_in_range(0..=max)?,
    };
    let size = core::mem::size_of::<R>();
    let mut records = Vec::new();
    for _ in 0..count {
        let mut words = vec![0u32; size / 4];
        for w in &mut words {
            *w = small(u)?;
        }
        let Ok(mut rec) = R::read_from_bytes(words.as_bytes()) else {
            return Ok(());
        };
        fix(&mut rec);
        records.push(rec);
    }
    push(u, rb, expected, &records, wide)
}

/// Pushes `records` (none: no table), each followed by `wide` arbitrary bytes.
fn push<R: TableRecord>(
    u: &mut Unstructured<'_>,
    rb: &mut ReflectionBuilder,
    expected: &mut Expected,
    records: &[R],
    wide: u32,
) -> Result<()> {
    let mut raw = Vec::new();
    for rec in records {
        raw.extend_from_slice(rec.as_bytes());
        for _ in 0..wide {
            raw.push(u.arbitrary()?);
        }
    }
    if !records.is_empty() {
        let stride = core::mem::size_of::<R>() as u32 + wide;
        rb.push_raw(R::KIND.to_raw(), stride, &raw);
        expected.insert(R::KIND.to_raw(), records.as_bytes().to_vec());
    }
    Ok(())
}

/// The blob a run builds, with what it must read back as.
struct BuiltBlob {
    blob: Vec<u8>,
    /// Each interned string with its index.
    strings: Vec<(u32, String)>,
    pool: Vec<u32>,
    exp: Expected,
}

/// The entries a run adds, by key: each entry's description, its entry points (with the
/// module each uses) and dependencies.
type Entries = BTreeMap<String, (EntryDesc, Vec<(usize, EntryPointDesc)>, Vec<DependencyDesc>)>;

/// The package a run builds, with what it must read back as.
struct BuiltPackage {
    bytes: Vec<u8>,
    /// The SPIR-V modules, in the order they were added.
    spirv: Vec<Vec<u32>>,
    entries: Entries,
    codes: Codes,
    plans: Vec<mutations::Plan>,
}

/// Code for further targets, by key, entry point and target.
type Codes = BTreeMap<(String, usize, u32), TargetCodeDesc>;

/// Builds a blob of every table kind of the format's table list (drawn by [`table`]), a
/// name index, now and then an unknown table kind, and the header's scalars.
fn build_blob(u: &mut Unstructured<'_>) -> Result<BuiltBlob> {
    let mut rb = ReflectionBuilder::new();
    let mut strings = Vec::new();
    for _ in 0..u.int_in_range(0..=6)? {
        let s: String = u.arbitrary()?;
        let s: String = s.chars().take(24).collect();
        strings.push((rb.intern(&s), s));
    }
    let pool: Vec<u32> = (0..u.int_in_range(0..=24)?)
        .map(|_| small(u))
        .collect::<Result<_>>()?;
    if !pool.is_empty() {
        rb.push_pool(&pool);
    }
    let mut exp = Expected::new();
    // One known table may be stored with a wider stride (any kind but the pool and the
    // string table; now and then none).
    let wide_kind = u.int_in_range(0..=TABLE_KINDS as u32 + 3)?;
    let wide_by = 4 * u.int_in_range(1..=3u32)?;
    let w = |k: TableKind| if k.to_raw() == wide_kind { wide_by } else { 0 };
    // Every table kind of the format's table list, in kind order, but those built apart: the
    // pool and the string table (the builder's own), the bind summary (one record, below) and
    // the name index (of the blob's strings, below).
    macro_rules! table_of {
        (U32Pool $rec:ty) => {};
        (StringRefs $rec:ty) => {};
        (StringBytes $rec:ty) => {};
        (BindSummary $rec:ty) => {};
        (NameIndex $rec:ty) => {};
        ($variant:ident $rec:ty) => {
            table::<$rec>(u, &mut rb, &mut exp, 4, w(TableKind::$variant), |_| {})?;
        };
    }
    macro_rules! tables {
        ($( $(#[$doc:meta])* $raw:literal $variant:ident $name:ident : $rec:ty; )*) => {
            $( table_of!($variant $rec); )*
        };
    }
    slangpack_format::reflection_tables!(tables);
    table::<bind::BindSummary>(u, &mut rb, &mut exp, 1, w(TableKind::BindSummary), |_| {})?;
    name_index(u, &mut rb, &mut exp, &strings, w(TableKind::NameIndex))?;
    if u.ratio(1, 4)? {
        // A table kind from a newer minor version: skipped by the reader.
        let words: Vec<u32> = (0..u.int_in_range(0..=4)?)
            .map(|_| u.arbitrary())
            .collect::<Result<_>>()?;
        if !words.is_empty() {
            rb.push_raw(1000 + u32::from(u.arbitrary::<u8>()?), 4, words.as_bytes());
        }
    }
    {
        let s = rb.scalars_mut();
        s.global_constant_buffer_binding = small(u)?;
        s.global_constant_buffer_space = small(u)?;
        s.global_constant_buffer_size = small(u)?;
        s.bindless_space_index = small(u)?;
        s.global_params_var_layout = small(u)?;
        s.global_params_type_layout = small(u)?;
        s.entry_point_count = small(u)?;
        s.root_decl = small(u)?;
    }
    Ok(BuiltBlob {
        blob: rb.finish(),
        strings,
        pool,
        exp,
    })
}

/// The name index: random slots (hashes of the blob's strings) or the builder's index of the
/// strings, each naming a record of some kind, then mutated; `wide` as in [`push`].
fn name_index(
    u: &mut Unstructured<'_>,
    rb: &mut ReflectionBuilder,
    exp: &mut Expected,
    strings: &[(u32, String)],
    wide: u32,
) -> Result<()> {
    let kinds = [bind::NAME_BINDING, bind::NAME_MEMBER, bind::NAME_BUFFER];
    let targets: Vec<u32> = (0..4)
        .map(|_| -> Result<u32> {
            Ok(if u.ratio(1, 4)? {
                ABSENT
            } else {
                name_target(*u.choose(&kinds)?, u32::from(u.arbitrary::<u8>()? % 4))
            })
        })
        .collect::<Result<_>>()?;
    if u.ratio(1, 2)? {
        let names: Vec<u64> = strings.iter().map(|(_, s)| xxh3_64(s.as_bytes())).collect();
        table::<bind::NameIndexSlot>(u, rb, exp, 4, wide, |slot| {
            let i = slot.hash_lo as usize;
            slot.target = targets[i % targets.len()];
            let hash = names.get(i).copied().unwrap_or(u64::from(slot.hash_hi));
            (slot.hash_lo, slot.hash_hi) = split_u64(hash);
        })?;
    } else {
        // The builder's index of the strings, each naming a record of some kind (mostly in
        // range), then mutated.
        let records = |kind: TableKind, size: usize| {
            exp.get(&kind.to_raw())
                .map_or(0, |t| (t.len() / size) as u32)
        };
        let counts = [
            records(
                TableKind::DescriptorBindings,
                size_of::<bind::DescriptorBinding>(),
            ),
            records(TableKind::BufferMembers, size_of::<bind::BufferMember>()),
            records(TableKind::BufferLayouts, size_of::<bind::BufferLayout>()),
        ];
        let kinds = [NameKind::Binding, NameKind::Member, NameKind::Buffer];
        let mut names = Vec::new();
        for (_, s) in strings {
            let kind = *u.choose(&kinds)?;
            let count = counts[kind.to_raw() as usize - 1];
            names.push((
                s.clone(),
                kind,
                u32::from(u.arbitrary::<u8>()?) % count.max(1),
            ));
        }
        let (index, _) = mutations::name_index(u, names, counts)?;
        push(u, rb, exp, &index, wide)?;
    }
    Ok(())
}

/// Builds the package around `blob`: SPIR-V modules, entries, code for further targets and
/// shard plans; `None` when the builder refuses the plans.
fn build_package(u: &mut Unstructured<'_>, blob: &[u8]) -> Result<Option<BuiltPackage>> {
    let mut pb = PackageBuilder::new();
    // zstd (the default) now and then: creating a compression context per input is the
    // slowest step, and open_and_walk covers decompression on real packages.
    pb.set_zstd_level(1);
    if !u.ratio(1, 8)? {
        pb.set_reflection_compression(Compression::None);
    }
    // Compressed SPIR-V (the `--compress-spirv` path: dictionary, compressed tables) now and
    // then, for the same reason.
    if u.ratio(1, 16)? {
        pb.set_spirv_compression(Compression::Zstd);
        // The directory and container tables in one frame (what `--compress-spirv` writes).
        pb.set_compressed_index(u.arbitrary()?);
    }
    // Paged (3.0, SPEC.md 4.5) now and then: pages of one to four entries, each page's index
    // read at the first touch of one of its entries; every check below holds for it alike.
    if u.ratio(1, 4)? {
        pb.set_compressed_index(true);
        pb.set_paging(u.int_in_range(1..=4)?, 0);
    }
    let spirv: Vec<Vec<u32>> = (0..u.int_in_range(1..=3)?)
        .map(|_| {
            (0..u.int_in_range(0..=8)?)
                .map(|_| u.arbitrary())
                .collect::<Result<Vec<u32>>>()
        })
        .collect::<Result<_>>()?;
    let spirv_ids: Vec<u32> = spirv.iter().map(|w| pb.add_spirv(w)).collect();
    let reflection = pb.add_reflection(blob.to_vec());
    let entries = add_entries(u, &mut pb, &spirv, &spirv_ids, reflection)?;
    let codes = add_codes(u, &mut pb, &entries)?;
    let plans = mutations::shard_plans(u)?;
    let Some(bytes) = mutations::finish_with_plans(pb, &plans) else {
        return Ok(None);
    };

    Ok(Some(BuiltPackage {
        bytes,
        spirv,
        entries,
        codes,
        plans,
    }))
}

/// Adds up to three entries of up to two entry points each (those the builder takes).
fn add_entries(
    u: &mut Unstructured<'_>,
    pb: &mut PackageBuilder,
    spirv: &[Vec<u32>],
    spirv_ids: &[u32],
    reflection: u32,
) -> Result<Entries> {
    let mut entries = BTreeMap::new();
    for _ in 0..u.int_in_range(0..=3)? {
        let key: String = u.arbitrary()?;
        let with_reflection: bool = u.arbitrary()?;
        let mut eps = Vec::new();
        for _ in 0..u.int_in_range(0..=2)? {
            let which = usize::from(u.arbitrary::<u8>()?) % spirv.len();
            eps.push((
                which,
                EntryPointDesc {
                    name: u.arbitrary()?,
                    spirv_entry_name: "main".into(),
                    stage: Stage::from_raw(u32::from(u.arbitrary::<u8>()? % 16)),
                    thread_group_size: [small(u)?, small(u)?, small(u)?],
                    wave_size: small(u)?,
                    spirv: spirv_ids[which],
                    reflection_entry_point: if u.arbitrary()? {
                        Some(u32::from(u.arbitrary::<u8>()? % 6))
                    } else {
                        None
                    },
                },
            ));
        }
        let deps: Vec<DependencyDesc> = (0..u.int_in_range(0..=2)?)
            .map(|_| {
                Ok(DependencyDesc {
                    path: u.arbitrary()?,
                    hash: u.arbitrary()?,
                })
            })
            .collect::<Result<_>>()?;
        let desc = EntryDesc {
            key: key.clone(),
            reflection: with_reflection.then_some(reflection),
            entry_points: eps.iter().map(|(_, e)| e.clone()).collect(),
            dependencies: deps.clone(),
            options_hash: u.arbitrary()?,
        };
        if pb.add_entry(desc.clone()).is_ok() {
            entries.insert(key, (desc, eps, deps));
        }
    }
    Ok(entries)
}

/// Adds code for further targets (text or bytes; identical code stored once) to the entries.
fn add_codes(
    u: &mut Unstructured<'_>,
    pb: &mut PackageBuilder,
    entries: &Entries,
) -> Result<Codes> {
    // Code for further targets (text or bytes; identical code stored once), read back below.
    let mut codes = Codes::new();
    let keys: Vec<String> = entries.keys().cloned().collect();
    for _ in 0..u.int_in_range(0..=3)? {
        let (Ok(key), Ok(target)) = (u.choose(&keys), u.int_in_range(2..=7u32)) else {
            break;
        };
        let target = Target::from_raw(target);
        let code: Vec<u8> = if target.is_text() {
            let text: &str = u.arbitrary()?;
            text.as_bytes().to_vec()
        } else {
            u.arbitrary()?
        };
        let entry_point = usize::from(u.arbitrary::<u8>()? % 3);
        let desc = TargetCodeDesc {
            target,
            entry_name: u.arbitrary()?,
            code,
        };
        if pb.add_target_code(key, entry_point, desc.clone()).is_ok() {
            codes.insert((key.clone(), entry_point, target.to_raw()), desc);
        }
    }
    Ok(codes)
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let built = build_blob(u)?;
    let Some(p) = build_package(u, &built.blob)? else {
        return Ok(());
    };
    let Some(package) = open_and_verify(&p.bytes, &built.exp, &p.plans) else {
        return Ok(());
    };
    check_entries(&package, &built, &p.spirv, &p.entries, &p.codes);
    Ok(())
}

/// Opens the package, reads its shard plan, walks it and verifies it: `None` where an error
/// the builders leave unchecked stops it (any other error fails the run).
fn open_and_verify(bytes: &[u8], exp: &Expected, plans: &[mutations::Plan]) -> Option<Package> {
    if let Some(path) = std::env::var_os("SLANGPACK_FUZZ_SAVE") {
        // Replaying a crash: keep the built package for fuzz/regressions/.
        let _ = std::fs::write(path, bytes);
    }
    let opened = Package::from_bytes(bytes);
    stats(opened.is_ok(), exp.len());
    let package = match opened {
        Ok(p) => p,
        Err(e) => {
            // The builders check no index; every other check must pass on builder output.
            assert_eq!(e.kind(), ErrorKind::IndexOutOfRange, "{e}");
            return None;
        }
    };
    // The shard plan, read on request: the one built, or refused as SPEC.md 5.9 says (a
    // broken rule in the first plan, else a second plan); the full check refuses it alike.
    let plan = package.shard_plan();
    match (plans, &plan) {
        ([], Ok(None)) => {}
        ([one], Ok(Some(read))) if one.valid() => assert_eq!(*read, one.record),
        ([first, ..], Err(e)) if !first.valid() => assert_eq!(e.kind(), ErrorKind::BadValue),
        ([_, _, ..], Err(e)) => assert_eq!(e.kind(), ErrorKind::Duplicate, "{e}"),
        (plans, plan) => panic!("shard plans {plans:?} read as {plan:?}"),
    }
    // Lazy loads first (in the walk's order, and from two threads at once on another opening),
    // then the full check: the builders check no index, so an entry may still fail to load,
    // with that kind only.
    walk::walk_bytes(bytes);
    let verified = package.verify_all();
    if let Err(e) = &plan {
        let got = verified.as_ref().map_err(|e| e.kind());
        assert_eq!(got, Err(e.kind()), "verify_all after a refused shard plan");
    }
    if let Err(e) = verified {
        // Random parents may also nest too deep or form a cycle (refused at the load); the
        // builders check no bind-view value either (entry-point masks and counts, set slots,
        // register classes, a member's parent within its layout, one bind summary).
        assert!(
            matches!(
                e.kind(),
                ErrorKind::IndexOutOfRange
                    | ErrorKind::LimitExceeded
                    | ErrorKind::BadValue
                    | ErrorKind::Duplicate
            ),
            "{e}"
        );
        return None;
    }
    Some(package)
}

/// Every entry of the verified package reads back as built: key, hashes, entry points,
/// SPIR-V, target code, dependencies, and the blob with every table.
fn check_entries(
    package: &Package,
    built: &BuiltBlob,
    spirv: &[Vec<u32>],
    entries: &Entries,
    codes: &Codes,
) {
    let BuiltBlob {
        blob,
        strings,
        pool,
        exp,
    } = built;
    assert_eq!(package.len(), entries.len());
    for (entry, (key, (desc, eps, deps))) in package.entries().zip(entries) {
        let entry = entry.expect("verified");
        assert_eq!(entry.key(), key);
        assert_eq!(package.find(key), Some(entry.index()));
        assert_eq!(entry.options_hash(), desc.options_hash);
        // 2.0 derives the hashes from the modules' words.
        let first = eps.first().map_or(0, |(which, _)| {
            slangpack_format::xxh3_64(spirv[*which].as_bytes())
        });
        assert_eq!(entry.entry_point_hash(), first);
        assert_eq!(entry.has_reflection(), desc.reflection.is_some());
        let got: Vec<_> = entry.entry_points().collect();
        assert_eq!(got.len(), eps.len());
        for (ep, (which, d)) in got.iter().zip(eps) {
            assert_eq!(ep.name(), d.name);
            assert_eq!(ep.spirv_entry_name(), d.spirv_entry_name);
            assert_eq!(ep.stage(), d.stage);
            assert_eq!(
                ep.hash(),
                slangpack_format::xxh3_64(spirv[*which].as_bytes())
            );
            assert_eq!(ep.spirv(), &spirv[*which][..]);
            assert_eq!(
                ep.record().reflection_entry_point,
                d.reflection_entry_point.unwrap_or(ABSENT)
            );
        }
        for (j, ep) in got.iter().enumerate() {
            let built: Vec<_> = codes
                .range((key.clone(), j, 0)..=(key.clone(), j, u32::MAX))
                .map(|(_, c)| (c.target, c.entry_name.as_str(), c.code.as_slice()))
                .collect();
            let read: Vec<_> = ep
                .targets()
                .skip(1)
                .map(|c| (c.target(), c.entry_name(), c.bytes()))
                .collect();
            assert_eq!(read, built, "target code of {key:?} entry point {j}");
        }
        let got: Vec<_> = entry
            .dependencies()
            .map(|d| (d.path().to_owned(), d.content_hash()))
            .collect();
        let want: Vec<_> = deps.iter().map(|d| (d.path.clone(), d.hash)).collect();
        assert_eq!(got, want);
        let view = entry.reflection().expect("a built blob's raw tables load");
        if !entry.has_reflection() {
            assert!(view.is_empty() && view.as_bytes().is_empty());
            continue;
        }
        assert_eq!(view.as_bytes(), &blob[..]);
        for (index, s) in strings {
            assert_eq!(view.string(*index), s);
        }
        // Every table of the format's table list, through the view's accessor of that name.
        macro_rules! read_back {
            ($( $(#[$doc:meta])* $raw:literal $variant:ident $name:ident : $rec:ty; )*) => {
                [$( (TableKind::$variant, view.$name().as_bytes()), )*]
            };
        }
        for (kind, got) in slangpack_format::reflection_tables!(read_back) {
            let want: &[u8] = match kind {
                TableKind::U32Pool => pool.as_bytes(),
                // The builder's string table: checked through `string` above.
                TableKind::StringRefs | TableKind::StringBytes => continue,
                _ => exp.get(&kind.to_raw()).map_or(&[][..], |t| &t[..]),
            };
            assert_eq!(got, want, "table {kind:?} reads back differently");
        }
        let b = view.bind();
        // The summary accessor serves the first record only.
        let summary = exp
            .get(&TableKind::BindSummary.to_raw())
            .map_or(&[][..], |t| {
                &t[..t.len().min(size_of::<bind::BindSummary>())]
            });
        assert_eq!(b.summary().map_or(&[][..], |s| s.as_bytes()), summary);
        // Every member of every layout, through the bind view, against the built table.
        let members = exp.get(&TableKind::BufferMembers.to_raw());
        for layout in b.buffer_layouts() {
            let got = b.members(layout).as_bytes();
            let size = size_of::<bind::BufferMember>();
            let start = layout.first_member as usize * size;
            let want = members
                .and_then(|m| m.get(start..start + layout.member_count as usize * size))
                .unwrap_or(&[]);
            assert_eq!(got, want, "members of a buffer layout");
        }
    }
}

/// With `SLANGPACK_FUZZ_STATS` set, prints how many built packages were accepted and
/// rejected (every 2^16 packages), to check the generator reaches past validation.
fn stats(accepted: bool, tables: usize) {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    static COUNTS: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
    COUNTS[usize::from(accepted)].fetch_add(1, Relaxed);
    if accepted && tables >= 4 {
        COUNTS[2].fetch_add(1, Relaxed);
    }
    let (no, yes, rich) = (
        COUNTS[0].load(Relaxed),
        COUNTS[1].load(Relaxed),
        COUNTS[2].load(Relaxed),
    );
    if (no + yes) % (1 << 16) == 0 && std::env::var_os("SLANGPACK_FUZZ_STATS").is_some() {
        eprintln!("build_and_read: {yes} accepted ({rich} with 4+ tables), {no} rejected (IndexOutOfRange at open)");
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

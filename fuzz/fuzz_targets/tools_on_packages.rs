//! The package tools on every package the reader accepts: `dump` (text and JSON), `header`
//! in Rust, C and C++, `diff` against itself and against a real baked package, and what
//! `extract` does. Structure-aware: packages are built with the format crate's builders from
//! up to 64 entries, most sharing the reflection blob of an earlier one, whose bind views hold
//! deep, wide, self-referencing and duplicate-named tables, with
//! names drawn from a list of hostile ones (newlines, comment ends, `#`, quotes, backslashes,
//! keywords, reserved and non-ASCII names, control characters) or arbitrary. Bindings' array
//! kinds and counts, set layouts and buffer sizes are mostly what the reader accepts and
//! sometimes not; each blob carries a name index built by `build_name_index` over its
//! bindings, buffers and members, intact or mutated (`mutations::name_index`), and the package
//! none, one or several `ShardPlan` sections (`mutations::shard_plans`).
//!
//! Checks: no panic; a header is either refused with `ToolError::Input` or holds only
//! identifiers of the declared form (`header::check_identifiers`); a package diffed against
//! itself has no difference; human-readable output holds no control character other than
//! newlines; the JSON document is valid JSON that reads back as the same typed document; a
//! lookup by name finds only a record of that name, and through an intact index finds every
//! binding, buffer and member; `merge`'s shard check answers or refuses with an input error,
//! and refuses whenever the shard plan does not read.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use slangpack_format::bind::*;
use slangpack_format::limits::MAX_BUFFER_SIZE;
use slangpack_format::vk::DescriptorKind;
use slangpack_format::*;
use slangpack_reader::{BindView, Package};
use std::collections::BTreeMap;
use std::sync::OnceLock;

#[allow(
    dead_code,
    reason = "the shard plans' validity is build_and_read's check"
)]
mod mutations;

#[path = "../../tests/src/tools_walk.rs"]
mod tools_walk;

#[path = "../../tests/src/fixtures.rs"]
mod fixtures;

/// Hostile and ordinary names; a name is one of these, or arbitrary text.
const NAMES: &[&str] = &[
    "",
    "x",
    "x",
    "gScene",
    "gScene.material",
    "gScene_material",
    "material",
    "x\n#error ",
    "*/",
    "/*",
    "#",
    "}",
    "\"",
    "'",
    "\\",
    "a\\",
    "match",
    "Self",
    "self",
    "_",
    "int",
    "class",
    "new",
    "__LINE__",
    "_X",
    "NULL",
    "UINT32_MAX",
    "unix",
    "r_match",
    "x_2",
    "_pad0",
    "value",
    "größe",
    "日本",
    "\u{1b}[31m",
    "\u{202e}",
    "1x",
    "a b",
    "GScene",
    "GSceneMaterial",
    "G_SCENE_SET",
    "core",
    "std",
];

fn name(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(if u.ratio(7u8, 8)? {
        NAMES[u.choose_index(NAMES.len())?].to_string()
    } else {
        u.arbitrary::<&str>()?.chars().take(24).collect()
    })
}

/// A small field value, sometimes absent or anything.
fn small(u: &mut Unstructured<'_>) -> Result<u32> {
    Ok(match u.arbitrary::<u8>()? {
        0..=179 => u32::from(u.arbitrary::<u8>()? % 8),
        180..=219 => ABSENT,
        _ => u.arbitrary()?,
    })
}

const KINDS: [TypeKind; 6] = [
    TypeKind::Scalar,
    TypeKind::Vector,
    TypeKind::Matrix,
    TypeKind::Struct,
    TypeKind::Array,
    TypeKind::Pointer,
];

/// One member at local index `i` of a layout starting at `first`.
fn member(
    u: &mut Unstructured<'_>,
    b: &mut ReflectionBuilder,
    strings: &mut Strings,
    first: u32,
    i: u32,
) -> Result<BufferMember> {
    let name = intern(b, strings, name(u)?);
    // Parents: none, the previous member (deep), an earlier one, itself, a later one, or
    // another layout's.
    let parent = match u.arbitrary::<u8>()? % 6 {
        0 => ABSENT,
        1 if i > 0 => first + i - 1,
        2 if i > 0 => first + u.int_in_range(0..=i - 1)?,
        3 => first + i,
        4 => first + i + 1,
        _ => small(u)?,
    };
    let kind = KINDS[u.choose_index(KINDS.len())?];
    let scalar = u.int_in_range(0..=13u32)?;
    Ok(BufferMember {
        path: name,
        name,
        parent,
        offset: if u.ratio(3u8, 4)? { 4 * i } else { small(u)? },
        size: if u.ratio(3u8, 4)? {
            4
        } else {
            small(u)?.wrapping_mul(4)
        },
        stride: 4,
        alignment: 4,
        type_kind: kind.to_raw(),
        scalar_type: scalar,
        rows: small(u)?.min(4),
        columns: small(u)?.min(4),
        matrix_layout: u.int_in_range(0..=2)?,
        matrix_stride: small(u)?.wrapping_mul(4),
        array_count: if u.ratio(1u8, 4)? { small(u)? } else { 0 },
        array_stride: small(u)?.wrapping_mul(4),
        flags: u.int_in_range(0..=7)?,
        ..BufferMember::default()
    })
}

/// The members of one layout: arbitrary, a deep chain of structs, or many siblings of one
/// name.
fn members(
    u: &mut Unstructured<'_>,
    b: &mut ReflectionBuilder,
    strings: &mut Strings,
    first: u32,
) -> Result<Vec<BufferMember>> {
    match u.arbitrary::<u8>()? % 4 {
        0 => {
            let depth = u.int_in_range(1..=100u32)?;
            let name = intern(b, strings, name(u)?);
            Ok((0..depth)
                .map(|i| BufferMember {
                    path: name,
                    name,
                    parent: if i == 0 { ABSENT } else { first + i - 1 },
                    size: 16,
                    stride: 16,
                    alignment: 4,
                    type_kind: if i + 1 == depth {
                        TypeKind::Scalar
                    } else {
                        TypeKind::Struct
                    }
                    .to_raw(),
                    scalar_type: ScalarType::Float32.to_raw(),
                    ..BufferMember::default()
                })
                .collect())
        }
        1 => {
            let count = u.int_in_range(1..=300u32)?;
            let name = intern(b, strings, name(u)?);
            Ok((0..count)
                .map(|i| BufferMember {
                    path: name,
                    name,
                    parent: ABSENT,
                    offset: 4 * i,
                    size: 4,
                    stride: 4,
                    alignment: 4,
                    type_kind: TypeKind::Scalar.to_raw(),
                    scalar_type: ScalarType::Float32.to_raw(),
                    ..BufferMember::default()
                })
                .collect())
        }
        _ => {
            let n = u.int_in_range(0..=12u32)?;
            (0..n).map(|i| member(u, b, strings, first, i)).collect()
        }
    }
}

/// The blob's strings by their index, as interned (the name index hashes the names).
#[derive(Default)]
struct Strings(BTreeMap<u32, String>);

impl std::ops::Index<usize> for Strings {
    type Output = String;
    fn index(&self, i: usize) -> &String {
        &self.0[&(i as u32)]
    }
}

/// Interns `text`, remembering it in `strings`.
fn intern(b: &mut ReflectionBuilder, strings: &mut Strings, text: String) -> u32 {
    let i = b.intern(&text);
    strings.0.insert(i, text);
    i
}

/// One reflection blob: bindings, buffer layouts (two may share a name), push constants, the
/// name index. The second value: whether the name index is the builder's, untouched.
fn reflection(u: &mut Unstructured<'_>, entry_points: u32) -> Result<(Vec<u8>, bool)> {
    let mut b = ReflectionBuilder::new();
    let mask = (1u32 << entry_points) - 1;
    // What the name index holds: `(name, kind, index)`.
    let mut names: Vec<(String, NameKind, u32)> = Vec::new();
    let (layout_records, all_members) = buffer_layouts(u, &mut b, &mut names)?;
    let layouts = layout_records.len() as u32;
    let bindings = descriptor_bindings(u, &mut b, &mut names, mask, layouts)?;
    for _ in 0..u.int_in_range(0..=2u32)? {
        let name = b.intern(&name(u)?);
        b.push(PushConstantRange {
            name,
            offset: 0,
            size: 16,
            stage_flags: 0x20,
            buffer_layout: small(u)?,
            entry_point_mask: mask,
        });
    }
    let counts = [
        bindings,
        all_members.len() as u32,
        layout_records.len() as u32,
    ];
    let (index, intact) = mutations::name_index(u, names, counts)?;
    if !index.is_empty() {
        b.push_all(&index);
    }
    for layout in layout_records {
        b.push(layout);
    }
    for m in all_members {
        b.push(m);
    }
    b.push(BindSummary {
        set_slot_count: u32::from(bindings > 0),
        global_uniform_binding: ABSENT,
        program_stage_flags: 0x20,
        entry_point_count: entry_points,
        ..BindSummary::default()
    });
    Ok((b.finish(), intact))
}

/// Up to three buffer layouts (sizes at and past the limit among them) and their members,
/// each named in `names`: the layouts' records and all their members, in order.
fn buffer_layouts(
    u: &mut Unstructured<'_>,
    b: &mut ReflectionBuilder,
    names: &mut Vec<(String, NameKind, u32)>,
) -> Result<(Vec<BufferLayout>, Vec<BufferMember>)> {
    let layouts = u.int_in_range(0..=3u32)?;
    let mut all_members = Vec::new();
    let mut layout_records = Vec::new();
    let mut strings = Strings::default();
    for _ in 0..layouts {
        let first = all_members.len() as u32;
        let members = members(u, b, &mut strings, first)?;
        let layout_name = name(u)?;
        let name = b.intern(&layout_name);
        let size = match u.arbitrary::<u8>()? {
            // At the limit (accepted) and past it (refused at load).
            0..=1 => MAX_BUFFER_SIZE,
            2..=3 => MAX_BUFFER_SIZE + 16,
            _ => (members.len() as u32 * 4).max(16),
        };
        names.push((
            layout_name.clone(),
            NameKind::Buffer,
            layout_records.len() as u32,
        ));
        for (i, m) in members.iter().enumerate() {
            let path = &strings[m.path as usize];
            let full = if layout_name.is_empty() {
                path.clone()
            } else {
                format!("{layout_name}.{path}")
            };
            names.push((full, NameKind::Member, first + i as u32));
        }
        layout_records.push(BufferLayout {
            name,
            kind: u.int_in_range(0..=6)?,
            set: small(u)?,
            binding: small(u)?,
            size,
            alignment: 16,
            stride: size,
            first_member: first,
            member_count: members.len() as u32,
            matrix_layout: 0,
        });
        all_members.extend(members);
    }
    Ok((layout_records, all_members))
}

/// Up to four descriptor bindings in set 0 (the first `layouts` of them buffers), each named
/// in `names`, and the set's layout when there is one; returns how many bindings.
fn descriptor_bindings(
    u: &mut Unstructured<'_>,
    b: &mut ReflectionBuilder,
    names: &mut Vec<(String, NameKind, u32)>,
    mask: u32,
    layouts: u32,
) -> Result<u32> {
    let bindings = u.int_in_range(0..=4u32)?;
    for i in 0..bindings {
        let path_name = name(u)?;
        names.push((path_name.clone(), NameKind::Binding, i));
        let path = b.intern(&path_name);
        // An array kind the format knows with a count only when fixed, mostly; sometimes an
        // unknown kind or a count beside an unbounded one (both refused at load).
        let (count_kind, count) = match u.arbitrary::<u8>()? {
            0..=239 => match u.int_in_range(0..=2u32)? {
                COUNT_FIXED => (COUNT_FIXED, small(u)?),
                kind => (kind, 0),
            },
            240..=247 => (u.int_in_range(3..=4u32)?, small(u)?),
            _ => (u.int_in_range(0..=2u32)?, small(u)?),
        };
        b.push(DescriptorBinding {
            name: path,
            path,
            spirv_name: path,
            set: 0,
            binding: i,
            descriptor_type: if u.arbitrary()? {
                DescriptorKind::UniformBuffer.to_raw()
            } else {
                small(u)?
            },
            count,
            count_kind,
            stage_flags: 0x20,
            entry_point_mask: mask & small(u)?,
            buffer_layout: if i < layouts { i } else { ABSENT },
            flags: small(u)?,
            sampler_path: if u.arbitrary()? { ABSENT } else { path },
            ..DescriptorBinding::default()
        });
    }
    if bindings > 0 {
        // The set's run of bindings, mostly exactly its bindings.
        let (first_binding, binding_count) = match u.arbitrary::<u8>()? {
            0..=243 => (0, bindings),
            244..=249 => (0, bindings - 1),
            250..=252 => (1, bindings - 1),
            _ => (0, bindings + 1),
        };
        b.push(DescriptorSetLayout {
            set: 0,
            first_binding,
            binding_count,
            flags: 0,
        });
    }
    Ok(bindings)
}

/// A built package, and by entry key whether the entry's blob holds the builder's name index
/// untouched (every name is then found).
fn package(u: &mut Unstructured<'_>) -> Result<(Vec<u8>, BTreeMap<String, bool>)> {
    let mut p = PackageBuilder::new();
    p.set_reflection_compression(Compression::None);
    let spirv = p.add_spirv(&[0x0723_0203, 0x0001_0500, 0, 1, 0]);
    let mut keys = Vec::new();
    // Blobs made so far, with their entries' entry-point names: later entries may share one
    // (many entries naming one blob is what multiplies the tools' work, issue 23).
    let mut made: Vec<(u32, Vec<String>, bool)> = Vec::new();
    let mut intact_by_key = BTreeMap::new();
    for _ in 0..u.int_in_range(1..=64u32)? {
        let key = name(u)?;
        if keys.contains(&key) {
            continue;
        }
        keys.push(key.clone());
        let share = !made.is_empty() && u.ratio(3, 4)?;
        let (reflection, entry_points, intact) = if share {
            let i = u.choose_index(made.len())?;
            made[i].clone()
        } else {
            let entry_points: Vec<String> = (0..u.int_in_range(1..=3u32)?)
                .map(|_| name(u))
                .collect::<Result<_>>()?;
            let (blob, intact) = reflection(u, entry_points.len() as u32)?;
            let reflection = p.add_reflection(blob);
            made.push((reflection, entry_points.clone(), intact));
            (reflection, entry_points, intact)
        };
        intact_by_key.insert(key.clone(), intact);
        let _ = p.add_entry(EntryDesc {
            key,
            reflection: Some(reflection),
            entry_points: entry_points
                .into_iter()
                .map(|name| fixtures::entry_point(&name, Stage::Compute, spirv))
                .collect(),
            dependencies: Vec::new(),
            options_hash: 0,
        });
    }
    let plans = mutations::shard_plans(u)?;
    let bytes = mutations::finish_with_plans(p, &plans).ok_or(arbitrary::Error::IncorrectFormat)?;
    Ok((bytes, intact_by_key))
}

/// The first `MAX_LOOKUPS` bindings, buffers and members of each of the first entries'
/// bind views looked up by name: a lookup finds only a record of that name (the reader
/// confirms the name behind a hash), and through an intact index it finds one.
fn lookups(package: &Package, intact_by_key: &BTreeMap<String, bool>) {
    const MAX_LOOKUPS: usize = 256;
    for entry in package.entries().flatten().take(4) {
        let intact = intact_by_key.get(entry.key()).copied().unwrap_or(false);
        let b: BindView<'_> = entry.bind();
        for d in b.bindings().iter().take(MAX_LOOKUPS) {
            let path = b.string(d.path);
            match b.binding(path) {
                Some(found) => assert!(
                    b.string(found.path) == path || b.string(found.sampler_path) == path,
                    "binding({path:?}) found {:?}",
                    b.string(found.path)
                ),
                None => assert!(
                    !intact,
                    "binding {path:?} not found through an intact index"
                ),
            }
        }
        for layout in b.buffer_layouts().iter().take(MAX_LOOKUPS) {
            let name = b.string(layout.name);
            match b.buffer(name) {
                Some(found) => assert_eq!(b.string(found.name), name, "buffer({name:?})"),
                None => assert!(!intact, "buffer {name:?} not found through an intact index"),
            }
            for m in b.members(layout).iter().take(MAX_LOOKUPS) {
                let path = b.string(m.path);
                let full = if name.is_empty() {
                    path.to_owned()
                } else {
                    format!("{name}.{path}")
                };
                match b.buffer_member(&full) {
                    Some((l, found)) => {
                        let (buffer, member) = (b.string(l.name), b.string(found.path));
                        let spelled = if buffer.is_empty() {
                            member.to_owned()
                        } else {
                            format!("{buffer}.{member}")
                        };
                        assert_eq!(spelled, full, "buffer_member({full:?})");
                    }
                    None => assert!(!intact, "member {full:?} not found through an intact index"),
                }
            }
        }
    }
}

/// `merge`'s shard check on the package given twice: an answer or an input error, and an
/// error whenever the shard plan does not read.
fn shard_check(package: &Package) {
    use slangpack_pack::merge_check::{check_shards, ShardCheck};
    let plan = package.shard_plan();
    for allow_partial in [false, true] {
        let checked = check_shards(&[("a", package), ("b", package)], allow_partial);
        match (&plan, &checked) {
            (Err(_), Err(slangpack_pack::PackError::Read { .. })) => {}
            (Err(e), other) => panic!("shard plan {e}, but check_shards: {other:?}"),
            (Ok(None), Ok(ShardCheck::NotShards)) => {}
            (Ok(None), other) => panic!("no shard plan, but check_shards: {other:?}"),
            (Ok(Some(_)), Ok(ShardCheck::NotShards)) => panic!("a shard plan, but NotShards"),
            (Ok(Some(_)), Ok(_) | Err(slangpack_pack::PackError::Input(_))) => {}
            (Ok(Some(_)), Err(other)) => panic!("check_shards: {other}"),
        }
    }
}

/// A real baked package (the examples) to diff against.
fn seed() -> &'static Package {
    static SEED: OnceLock<Package> = OnceLock::new();
    SEED.get_or_init(|| {
        Package::from_bytes(include_bytes!("../seeds/open_and_walk/examples.slangpack"))
            .expect("the seed opens")
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok((bytes, intact_by_key)) = package(&mut u) else {
        return;
    };
    // `SLANGPACK_FUZZ_SAVE=path` keeps the package an input made (for fuzz/regressions/).
    if let Some(path) = std::env::var_os("SLANGPACK_FUZZ_SAVE") {
        let _ = std::fs::write(path, &bytes);
    }
    let Ok(package) = Package::from_bytes(&bytes) else {
        return;
    };
    tools_walk::tools_walk(&package, seed());
    lookups(&package, &intact_by_key);
    shard_check(&package);
});

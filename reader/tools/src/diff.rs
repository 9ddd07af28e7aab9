//! Binding and layout differences between two packages: an engine's ABI-break check.
//!
//! Entries are matched by key; inside an entry, entry points by name, descriptor bindings by
//! path (with the entry points that use them: moving a binding to another pipeline is a
//! difference), push-constant ranges and buffer layouts by name, buffer members by path, vertex
//! inputs by entry point and location, specialization constants by name, further targets
//! (WGSL, GLSL, HLSL, Metal) by name and their bindings by path. Every difference is
//! one [`Difference`]: something added, removed, or one property changed. SPIR-V code that
//! changed without changing any binding or layout is not a difference.
//!
//! `slangpack diff --json` prints [`DiffDoc`] ([`diff_doc`], [`diff_json_text`]); its JSON
//! Schema is [`JSON_SCHEMA`] (`reader/tools/schema/diff.schema.json`, `slangpack diff
//! --schema`).
//!
//! ```no_run
//! use slangpack_reader::Package;
//!
//! let old = Package::open("old.slangpack")?;
//! let new = Package::open("new.slangpack")?;
//! let differences = slangpack_tools::diff::diff(&old, &new);
//! print!("{}", slangpack_tools::diff::render(&differences));
//! # Ok::<(), slangpack_reader::Error>(())
//! ```

use crate::text::shown;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use slangpack_format::bind::{
    buffer_kind_name, image_format_name, BufferLayout, BufferMember, DescriptorBinding,
    ARRAY_UNBOUNDED, BINDING_IMPLICIT_GLOBAL_BUFFER, BUFFER_STRUCTURED_ELEMENT, COUNT_UNBOUNDED,
    COUNT_ZERO,
};
use slangpack_format::targets::{
    kind_name, sample_type_name, target_flag_names, view_dimension_name, TargetBinding,
    TargetMember,
};
use slangpack_format::{ScalarType, TypeKind};
use slangpack_reader::{BindView, Entry, Package, TargetBindView};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

mod targets;

/// What happened to a thing between the two packages (`"added"`, `"removed"`, `"changed"` in
/// the JSON document).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Only in the second package.
    Added,
    /// Only in the first package.
    Removed,
    /// In both, with one property different.
    Changed,
}

/// One difference between two packages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The entry key.
    pub entry: String,
    /// Added, removed or changed.
    pub change: Change,
    /// What differs: `entry`, `entry point vertexMain`, `binding gScene.albedo`,
    /// `push constants gDraw`, `buffer gScene`, `member gScene.view.time`,
    /// `vertex input vertexMain location 2`, `specialization constant kSamples`,
    /// `target wgsl`, `wgsl binding gScene.albedo` (a further target's binding).
    pub subject: String,
    /// The property that changed (`offset`, `set/binding`, `kind`, ...), for
    /// [`Change::Changed`].
    pub property: Option<&'static str>,
    /// The thing (added, removed) or the property's value (changed) in the first package.
    pub before: Option<String>,
    /// The thing or the property's value in the second package.
    pub after: Option<String>,
}

/// The version of the schema of the `diff --json` document ([`JSON_SCHEMA`]), the document's
/// `schema_version`. It follows the rule of [`crate::dump::SCHEMA_VERSION`]: up by one with
/// every change a reader of the previous version could misread (a field removed, renamed,
/// retyped, made optional or nullable); a new field keeps it.
pub const SCHEMA_VERSION: u32 = 1;

/// The JSON Schema (draft 2020-12) of the `diff --json` document, as committed in
/// `reader/tools/schema/diff.schema.json`: what `slangpack diff --schema` prints. A test
/// checks it is what [`json_schema`] generates.
pub const JSON_SCHEMA: &str = include_str!("../schema/diff.schema.json");

/// The JSON Schema of [`DiffDoc`], generated from the types (descriptions from their doc
/// comments): the text [`JSON_SCHEMA`] holds.
pub fn json_schema() -> String {
    crate::schema_text(schemars::schema_for!(DiffDoc))
}

// The documents below are the schema of `slangpack diff --json`. Fields are declared in
// alphabetical order, the order the output has always had (serde_json objects sort their
// keys).

/// The document `slangpack diff --json` prints: the binding and layout differences from one
/// package to another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "slangpack diff --json")]
pub struct DiffDoc {
    /// Every difference, entries in key order.
    pub differences: Vec<DifferenceDoc>,
    /// Whether the two packages' bindings and layouts match (no difference; the exit status
    /// is 0 then, 1 otherwise).
    pub identical: bool,
    /// The version of this document's schema (`SCHEMA_VERSION`): it goes up with every change
    /// a reader of the previous version could misread (a field removed, renamed, retyped or
    /// made optional); new fields keep it.
    #[schemars(extend("const" = SCHEMA_VERSION))]
    pub schema_version: u32,
}

/// One difference: something added, removed, or one property changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DifferenceDoc {
    /// The thing (`"removed"`: `null`) or the property's value (`"changed"`) in the second
    /// package; for an added thing, a few words about it (`set 0 binding 1, sampled_image,
    /// count 1, fragment`).
    pub after: Option<String>,
    /// The thing (`"added"`: `null`) or the property's value (`"changed"`) in the first
    /// package.
    pub before: Option<String>,
    /// What happened to the subject.
    pub change: Change,
    /// The entry's permutation key.
    pub entry: String,
    /// The property that changed (`offset`, `set/binding`, `kind`, `type`, ...), `null`
    /// unless `"changed"`.
    pub property: Option<String>,
    /// What differs: `entry`, `entry point vertexMain`, `binding gScene.albedo`,
    /// `push constants gDraw`, `buffer gScene`, `member gScene.view.time`,
    /// `vertex input vertexMain location 2`, `specialization constant kSamples`,
    /// `shader record gRecord`, `target wgsl`, `wgsl binding gScene.albedo` (a further
    /// target's binding).
    pub subject: String,
}

impl From<&Difference> for DifferenceDoc {
    fn from(d: &Difference) -> Self {
        DifferenceDoc {
            after: d.after.clone(),
            before: d.before.clone(),
            change: d.change,
            entry: d.entry.clone(),
            property: d.property.map(str::to_string),
            subject: d.subject.clone(),
        }
    }
}

/// The `diff --json` document of a list of differences (from [`diff`] or [`try_diff`]).
pub fn diff_doc(differences: &[Difference]) -> DiffDoc {
    DiffDoc {
        differences: differences.iter().map(DifferenceDoc::from).collect(),
        identical: differences.is_empty(),
        schema_version: SCHEMA_VERSION,
    }
}

/// The JSON text of [`diff_doc`] as `slangpack diff --json` prints it (pretty-printed).
///
/// # Errors
/// [`ToolError::Input`](crate::ToolError::Input) if serialization fails.
pub fn diff_json_text(differences: &[Difference]) -> Result<String, crate::ToolError> {
    serde_json::to_string_pretty(&diff_doc(differences))
        .map_err(|e| crate::ToolError::Input(format!("JSON: {e}")))
}

/// One line of text; names from the packages show control characters as escapes
/// (`\u{1b}`), so a package cannot send escape sequences to the terminal.
impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.change {
            Change::Added => write!(f, "+ {}", shown(&self.subject))?,
            Change::Removed => write!(f, "- {}", shown(&self.subject))?,
            Change::Changed => write!(
                f,
                "~ {} {}: {} -> {}",
                shown(&self.subject),
                self.property.unwrap_or("value"),
                shown(self.before.as_deref().unwrap_or("")),
                shown(self.after.as_deref().unwrap_or(""))
            )?,
        }
        let detail = match self.change {
            Change::Added => self.after.as_deref(),
            Change::Removed => self.before.as_deref(),
            Change::Changed => None,
        };
        if let Some(detail) = detail.filter(|d| !d.is_empty()) {
            write!(f, " ({})", shown(detail))?;
        }
        Ok(())
    }
}

/// The binding and layout differences from package `a` to package `b`, entries in key
/// order; empty when the layouts match. Entries that fail to load are left out: check both
/// packages with `Package::verify_all` first. No output budget: for untrusted packages,
/// [`try_diff`].
pub fn diff(a: &Package, b: &Package) -> Vec<Difference> {
    differences(a, b, None).unwrap_or_default()
}

/// [`diff`], bounded: the differences (counted as the text [`render`] makes of them) stay
/// within the output budget ([`crate::budget`]).
///
/// # Errors
/// [`ToolError::LimitExceeded`](crate::ToolError::LimitExceeded) when they would pass it.
pub fn try_diff(a: &Package, b: &Package) -> Result<Vec<Difference>, crate::ToolError> {
    let mut budget = crate::budget::Budget::new("the differences", &[a, b]);
    differences(a, b, Some(&mut budget))
}

/// About the bytes one difference takes (and its line of [`render`]'s text).
fn weight(d: &Difference) -> usize {
    d.entry.len()
        + d.subject.len()
        + d.before.as_ref().map_or(0, String::len)
        + d.after.as_ref().map_or(0, String::len)
        + 32
}

/// What the differences of two entries depend on: their reflection blobs and their entry
/// points' names and stages. Entries sharing all of it with an earlier pair have that pair's
/// differences, so a blob shared by many entries is compared once. A blob is named by its
/// number and, in a paged package (3.0), its page's first entry (pages number their own blobs).
type PairKey<'p> = (
    (usize, u32),
    (usize, u32),
    Vec<(&'p str, u32)>,
    Vec<(&'p str, u32)>,
);

fn pair_key<'p>(x: &Entry<'p>, y: &Entry<'p>) -> PairKey<'p> {
    let eps = |e: &Entry<'p>| {
        e.entry_points()
            .map(|ep| (ep.name(), ep.stage().to_raw()))
            .collect()
    };
    let blob = |e: &Entry<'p>| (e.package().first_entry(), e.record().reflection);
    (blob(x), blob(y), eps(x), eps(y))
}

fn differences(
    a: &Package,
    b: &Package,
    mut budget: Option<&mut crate::budget::Budget>,
) -> Result<Vec<Difference>, crate::ToolError> {
    let mut out = Vec::new();
    let mut compared: HashMap<PairKey<'_>, (usize, usize)> = HashMap::new();
    // Entries that fail to load are left out; `slangpack diff` verifies both packages first.
    let keys_a: BTreeMap<&str, Entry<'_>> = a.entries().flatten().map(|e| (e.key(), e)).collect();
    let keys_b: BTreeMap<&str, Entry<'_>> = b.entries().flatten().map(|e| (e.key(), e)).collect();
    let mut keys: Vec<&str> = keys_a.keys().chain(keys_b.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    for key in keys {
        let start = out.len();
        let mut d = Differ {
            entry: key,
            out: &mut out,
        };
        match (keys_a.get(key), keys_b.get(key)) {
            (Some(x), Some(y)) => {
                let pair = pair_key(x, y);
                if let Some(&(from, to)) = compared.get(&pair) {
                    for i in from..to {
                        if let Some(earlier) = out.get(i) {
                            let copy = Difference {
                                entry: key.to_string(),
                                ..earlier.clone()
                            };
                            out.push(copy);
                        }
                    }
                } else {
                    // The comparison labels every record of both entries.
                    if let Some(budget) = budget.as_deref_mut() {
                        budget.charge_entry(x)?;
                        budget.charge_entry(y)?;
                    }
                    d.entries(x, y);
                    compared.insert(pair, (start, out.len()));
                }
            }
            (Some(x), None) => d.push(Change::Removed, "entry", None, Some(entry_summary(x)), None),
            (None, Some(y)) => d.push(Change::Added, "entry", None, None, Some(entry_summary(y))),
            (None, None) => {}
        }
        if let Some(budget) = budget.as_deref_mut() {
            budget.charge(out.get(start..).unwrap_or(&[]).iter().map(weight).sum())?;
        }
    }
    Ok(out)
}

/// The differences as text, grouped by entry: `+` added, `-` removed, `~` changed. Names
/// show control characters as escapes (as [`Difference`]'s `Display` does).
pub fn render(differences: &[Difference]) -> String {
    let mut out = String::new();
    let mut current: Option<&str> = None;
    for d in differences {
        if d.subject == "entry" {
            let sign = if d.change == Change::Added { '+' } else { '-' };
            let detail = d.after.as_deref().or(d.before.as_deref()).unwrap_or("");
            let _ = writeln!(out, "{sign} entry {} ({})", shown(&d.entry), shown(detail));
            current = None;
            continue;
        }
        if current != Some(d.entry.as_str()) {
            let _ = writeln!(out, "entry {}", shown(&d.entry));
            current = Some(d.entry.as_str());
        }
        let _ = writeln!(out, "  {d}");
    }
    out
}

fn entry_summary(entry: &Entry<'_>) -> String {
    let bind = entry.bind();
    let names: Vec<&str> = entry.entry_points().map(|ep| ep.name()).collect();
    format!(
        "entry points {}; {} bindings, {} buffers",
        names.join(", "),
        bind.bindings().len(),
        bind.buffer_layouts().len()
    )
}

/// A readable type of a buffer member: `float3`, `float4x4 row_major (stride 16)`,
/// `uint[4] (stride 16)`, `struct[2] (stride 64)`.
pub(crate) fn member_type(m: &BufferMember) -> String {
    let scalar = scalar_name(m.scalar_type);
    let mut ty = match TypeKind::from_raw(m.type_kind) {
        TypeKind::Scalar | TypeKind::Enum => scalar.to_string(),
        TypeKind::Vector => format!("{scalar}{}", m.columns),
        TypeKind::Matrix => {
            let layout = match m.matrix_layout {
                1 => "row_major",
                2 => "column_major",
                _ => "default",
            };
            format!(
                "{scalar}{}x{} {layout} (matrix stride {})",
                m.rows, m.columns, m.matrix_stride
            )
        }
        TypeKind::Struct => "struct".to_string(),
        TypeKind::Pointer => "pointer".to_string(),
        TypeKind::Array => "array".to_string(),
        _ => format!("type kind {}", m.type_kind),
    };
    match m.array_count {
        0 => {}
        ARRAY_UNBOUNDED => {
            let _ = write!(ty, "[] (stride {})", m.array_stride);
        }
        n => {
            let _ = write!(ty, "[{n}] (stride {})", m.array_stride);
        }
    }
    ty
}

/// Slang's name of a `SlangScalarType` value (`float`, `uint`, `half`, ...).
pub(crate) fn scalar_name(raw: u32) -> &'static str {
    match ScalarType::from_raw(raw) {
        ScalarType::Bool => "bool",
        ScalarType::Int32 => "int",
        ScalarType::UInt32 => "uint",
        ScalarType::Int64 => "int64_t",
        ScalarType::UInt64 => "uint64_t",
        ScalarType::Float16 => "half",
        ScalarType::Float32 => "float",
        ScalarType::Float64 => "double",
        ScalarType::Int8 => "int8_t",
        ScalarType::UInt8 => "uint8_t",
        ScalarType::Int16 => "int16_t",
        ScalarType::UInt16 => "uint16_t",
        ScalarType::IntPtr => "intptr_t",
        ScalarType::UIntPtr => "uintptr_t",
        _ => "scalar",
    }
}

/// The names of the entry points of `entry` in an entry-point mask, comma-separated
/// (`unused` for none).
pub(crate) fn entry_point_names(entry: &Entry<'_>, mask: u32) -> String {
    let names: Vec<&str> = entry.entry_points_in(mask).map(|ep| ep.name()).collect();
    if names.is_empty() {
        "unused".to_string()
    } else {
        names.join(",")
    }
}

/// The stage names of a `VkShaderStageFlags` mask, comma-separated.
pub(crate) fn stages(flags: u32) -> String {
    slangpack_format::bind::stage_flag_names(flags)
        .collect::<Vec<_>>()
        .join(",")
}

fn binding_label(bind: &BindView<'_>, b: &DescriptorBinding) -> String {
    if b.flags & BINDING_IMPLICIT_GLOBAL_BUFFER != 0 {
        "(global uniforms)".to_string()
    } else {
        bind.string(b.path).to_string()
    }
}

fn count(b: &DescriptorBinding) -> String {
    match b.count_kind {
        COUNT_UNBOUNDED => "unbounded".to_string(),
        COUNT_ZERO => "0".to_string(),
        _ => b.count.to_string(),
    }
}

fn binding_summary(b: &DescriptorBinding) -> String {
    format!(
        "set {} binding {}, {}, count {}, {}",
        b.set,
        b.binding,
        b.kind().name(),
        count(b),
        stages(b.stage_flags)
    )
}

fn buffer_label(bind: &BindView<'_>, l: &BufferLayout) -> String {
    let name = bind.string(l.name);
    if name.is_empty() {
        "(global uniforms)".to_string()
    } else {
        name.to_string()
    }
}

struct Differ<'o, 'k> {
    entry: &'k str,
    out: &'o mut Vec<Difference>,
}

impl Differ<'_, '_> {
    fn push(
        &mut self,
        change: Change,
        subject: impl Into<String>,
        property: Option<&'static str>,
        before: Option<String>,
        after: Option<String>,
    ) {
        self.out.push(Difference {
            entry: self.entry.to_string(),
            change,
            subject: subject.into(),
            property,
            before,
            after,
        });
    }

    /// One `Changed` difference when `before != after`.
    fn property<T: PartialEq + ToString>(
        &mut self,
        subject: &str,
        property: &'static str,
        before: T,
        after: T,
    ) {
        if before != after {
            self.push(
                Change::Changed,
                subject,
                Some(property),
                Some(before.to_string()),
                Some(after.to_string()),
            );
        }
    }

    /// The stage flags and the entry points (by name, from each side's entry) that use a
    /// binding or push-constant range: `(entry, stage flags, entry-point mask)` per side.
    fn users(
        &mut self,
        subject: &str,
        (a, a_stages, a_mask): (&Entry<'_>, u32, u32),
        (b, b_stages, b_mask): (&Entry<'_>, u32, u32),
    ) {
        self.property(subject, "stages", stages(a_stages), stages(b_stages));
        self.property(
            subject,
            "entry points",
            entry_point_names(a, a_mask),
            entry_point_names(b, b_mask),
        );
    }

    /// Matches two keyed lists: `same` compares pairs, the rest are added or removed. A key
    /// that occurs several times in a list (two members of one name, say) pairs its n-th
    /// occurrence with the other list's n-th (`key #2`, `key #3` name the later ones), so a
    /// package compared with itself has no difference. O(n log n).
    fn matched<T>(
        &mut self,
        before: Vec<(String, T)>,
        after: Vec<(String, T)>,
        describe: impl Fn(&T) -> String,
        mut same: impl FnMut(&mut Self, &str, &T, &T),
    ) {
        // (key, occurrence) identifies an item; the subject shows `key #n` for n > 1. The
        // pair, not the shown text, is matched: a name that reads `x #2` is not the second `x`.
        fn numbered<T>(list: &[(String, T)]) -> Vec<((&str, usize), String, &T)> {
            let mut seen: HashMap<&str, usize> = HashMap::new();
            list.iter()
                .map(|(k, v)| {
                    let n = seen.entry(k.as_str()).or_insert(0);
                    *n += 1;
                    let shown = if *n == 1 {
                        k.clone()
                    } else {
                        format!("{k} #{n}")
                    };
                    ((k.as_str(), *n), shown, v)
                })
                .collect()
        }
        let (before, after) = (numbered(&before), numbered(&after));
        let after_map: BTreeMap<(&str, usize), &T> =
            after.iter().map(|(k, _, v)| (*k, *v)).collect();
        let before_map: BTreeMap<(&str, usize), &T> =
            before.iter().map(|(k, _, v)| (*k, *v)).collect();
        for (key, subject, x) in &before {
            match after_map.get(key) {
                Some(y) => same(self, subject, x, y),
                None => self.push(
                    Change::Removed,
                    subject.clone(),
                    None,
                    Some(describe(x)),
                    None,
                ),
            }
        }
        for (key, subject, y) in &after {
            if !before_map.contains_key(key) {
                self.push(
                    Change::Added,
                    subject.clone(),
                    None,
                    None,
                    Some(describe(y)),
                );
            }
        }
    }

    fn entries(&mut self, a: &Entry<'_>, b: &Entry<'_>) {
        let (ba, bb) = (a.bind(), b.bind());
        self.entry_points(a, b);
        self.bindings(a, b, &ba, &bb);
        self.blocks(a, b, &ba, &bb);
        self.buffers(&ba, &bb);
        self.inputs(a, b, &ba, &bb);
        self.targets(&ba, &bb);
    }

    /// The entry points of both entries, by name: their stages.
    fn entry_points(&mut self, a: &Entry<'_>, b: &Entry<'_>) {
        let eps = |e: &Entry<'_>| {
            e.entry_points()
                .map(|ep| (format!("entry point {}", ep.name()), ep.stage().to_raw()))
                .collect::<Vec<_>>()
        };
        self.matched(
            eps(a),
            eps(b),
            |s| slangpack_format::Stage::from_raw(*s).name().to_string(),
            |d, subject, x, y| {
                d.property(
                    subject,
                    "stage",
                    slangpack_format::Stage::from_raw(*x).name(),
                    slangpack_format::Stage::from_raw(*y).name(),
                )
            },
        );
    }

    /// The descriptor bindings, by path: place, kind, count, users, image format, input
    /// attachment index, sampler.
    fn bindings(&mut self, a: &Entry<'_>, b: &Entry<'_>, ba: &BindView<'_>, bb: &BindView<'_>) {
        let bindings = |bind: &BindView<'_>| {
            bind.bindings()
                .iter()
                .map(|b| (format!("binding {}", binding_label(bind, b)), *b))
                .collect::<Vec<_>>()
        };
        self.matched(
            bindings(ba),
            bindings(bb),
            binding_summary,
            |d, subject, x, y| {
                d.property(
                    subject,
                    "set/binding",
                    format!("set {} binding {}", x.set, x.binding),
                    format!("set {} binding {}", y.set, y.binding),
                );
                d.property(subject, "kind", x.kind().name(), y.kind().name());
                d.property(subject, "count", count(x), count(y));
                d.users(
                    subject,
                    (a, x.stage_flags, x.entry_point_mask),
                    (b, y.stage_flags, y.entry_point_mask),
                );
                d.property(
                    subject,
                    "image format",
                    image_format_name(x.image_format).unwrap_or("unknown"),
                    image_format_name(y.image_format).unwrap_or("unknown"),
                );
                let index = |b: &DescriptorBinding| {
                    b.input_attachment()
                        .map_or("none".to_string(), |i| i.to_string())
                };
                d.property(subject, "input attachment index", index(x), index(y));
                d.property(
                    subject,
                    "sampler",
                    ba.string(x.sampler_path),
                    bb.string(y.sampler_path),
                );
            },
        );
    }

    /// Shader-record blocks and push-constant ranges, by name: sizes, offsets, users.
    fn blocks(&mut self, a: &Entry<'_>, b: &Entry<'_>, ba: &BindView<'_>, bb: &BindView<'_>) {
        let records = |bind: &BindView<'_>| {
            bind.shader_record_blocks()
                .iter()
                .map(|r| (format!("shader record {}", bind.string(r.name)), *r))
                .collect::<Vec<_>>()
        };
        self.matched(
            records(ba),
            records(bb),
            |r| format!("{} bytes, {}", r.size, stages(r.stage_flags)),
            |d, subject, x, y| {
                d.property(subject, "size", x.size, y.size);
                d.property(
                    subject,
                    "stages",
                    stages(x.stage_flags),
                    stages(y.stage_flags),
                );
            },
        );

        let pushes = |bind: &BindView<'_>| {
            bind.push_constants()
                .iter()
                .map(|p| (format!("push constants {}", bind.string(p.name)), *p))
                .collect::<Vec<_>>()
        };
        self.matched(
            pushes(ba),
            pushes(bb),
            |p| {
                format!(
                    "{} bytes at {}, {}",
                    p.size,
                    p.offset,
                    stages(p.stage_flags)
                )
            },
            |d, subject, x, y| {
                d.property(subject, "offset", x.offset, y.offset);
                d.property(subject, "size", x.size, y.size);
                d.users(
                    subject,
                    (a, x.stage_flags, x.entry_point_mask),
                    (b, y.stage_flags, y.entry_point_mask),
                );
            },
        );
    }

    /// Buffer layouts, by name: kind, size, stride, and their members by path.
    fn buffers(&mut self, ba: &BindView<'_>, bb: &BindView<'_>) {
        let buffers = |bind: &BindView<'_>| {
            bind.buffer_layouts()
                .iter()
                .map(|l| (buffer_label(bind, l), *l))
                .collect::<Vec<_>>()
        };
        let (la, lb) = (buffers(ba), buffers(bb));
        self.matched(
            la.iter()
                .map(|(n, l)| (format!("buffer {n}"), *l))
                .collect(),
            lb.iter()
                .map(|(n, l)| (format!("buffer {n}"), *l))
                .collect(),
            |l| format!("{}, {} bytes", buffer_kind_name(l.kind), l.size),
            |d, subject, x, y| {
                d.property(
                    subject,
                    "kind",
                    buffer_kind_name(x.kind),
                    buffer_kind_name(y.kind),
                );
                d.property(subject, "size", x.size, y.size);
                if x.kind == BUFFER_STRUCTURED_ELEMENT || y.kind == BUFFER_STRUCTURED_ELEMENT {
                    d.property(subject, "stride", x.stride, y.stride);
                }
                let name = subject.trim_start_matches("buffer ");
                let members = |bind: &BindView<'_>, l: &BufferLayout| {
                    bind.members(l)
                        .iter()
                        .map(|m| (member_label(name, bind.string(m.path)), *m))
                        .collect::<Vec<_>>()
                };
                d.matched(
                    members(ba, x),
                    members(bb, y),
                    |m| format!("offset {}, size {}, {}", m.offset, m.size, member_type(m)),
                    |d, subject, p, q| {
                        d.property(subject, "offset", p.offset, q.offset);
                        d.property(subject, "size", p.size, q.size);
                        d.property(subject, "type", member_type(p), member_type(q));
                    },
                );
            },
        );
    }

    /// Vertex inputs by entry point and location, specialization constants by name.
    fn inputs(&mut self, a: &Entry<'_>, b: &Entry<'_>, ba: &BindView<'_>, bb: &BindView<'_>) {
        let inputs = |e: &Entry<'_>, bind: &BindView<'_>| {
            let names: Vec<&str> = e.entry_points().map(|ep| ep.name()).collect();
            bind.all_vertex_inputs()
                .iter()
                .map(|v| {
                    let ep = names.get(v.entry_point as usize).copied().unwrap_or("?");
                    (
                        format!("vertex input {ep} location {}", v.location),
                        (
                            v.format,
                            format!("{}{}", bind.string(v.semantic_name), v.semantic_index),
                            v.location_count,
                        ),
                    )
                })
                .collect::<Vec<_>>()
        };
        self.matched(
            inputs(a, ba),
            inputs(b, bb),
            |(format, semantic, _)| format!("{semantic}, {}", vk_format_name(*format)),
            |d, subject, x, y| {
                d.property(subject, "format", vk_format_name(x.0), vk_format_name(y.0));
                d.property(subject, "semantic", x.1.clone(), y.1.clone());
                d.property(subject, "locations", x.2, y.2);
            },
        );

        let constants = |bind: &BindView<'_>| {
            bind.specialization_constants()
                .iter()
                .map(|c| {
                    (
                        format!("specialization constant {}", bind.string(c.name)),
                        (c.id, c.scalar_type),
                    )
                })
                .collect::<Vec<_>>()
        };
        self.matched(
            constants(ba),
            constants(bb),
            |(id, ty)| format!("id {id}, {}", scalar_name(*ty)),
            |d, subject, x, y| {
                d.property(subject, "id", x.0, y.0);
                d.property(subject, "type", scalar_name(x.1), scalar_name(y.1));
            },
        );
    }
}

fn member_label(buffer: &str, path: &str) -> String {
    if buffer == "(global uniforms)" || buffer.is_empty() {
        format!("member {path}")
    } else {
        format!("member {buffer}.{path}")
    }
}

/// The snake-case name of the `VkFormat`s vertex inputs use (`r32g32b32_sfloat`), else
/// `VkFormat N`.
fn vk_format_name(format: u32) -> String {
    match slangpack_format::vk::Format::from_raw(format) {
        slangpack_format::vk::Format::Unknown(_) | slangpack_format::vk::Format::Undefined => {
            format!("VkFormat {format}")
        }
        named => named.name().to_string(),
    }
}

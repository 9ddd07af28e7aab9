//! Pipelines: the layout of exactly the entry points an engine puts in one pipeline, from one
//! entry or across entries (one stage per file), as the reader's `Pipeline` gives it — each
//! set and binding once with the stage flags of the pipeline's stages that use it, and the
//! push-constant ranges with theirs. A `SlangpackPipeline` is a plain value (entry indices and
//! entry-point masks) the caller keeps; accessors rebuild the reader's view from it without
//! allocating.

use crate::error::{shield, ErrorOut, SlangpackError, SlangpackErrorKind};
use crate::package::{package_ref, str_arg, SlangpackEntry, SlangpackPackage, SlangpackStr};
use slangpack_format::bind::{ArrayKind, DescriptorBinding, PushConstantRange};
use slangpack_reader::{Pipeline, PipelineError, MAX_PIPELINE_ENTRIES};

/// The most entries one pipeline spans (`SLANGPACK_PIPELINE_MAX_ENTRIES`).
pub const SLANGPACK_PIPELINE_MAX_ENTRIES: usize = 16;
const _: () = assert!(SLANGPACK_PIPELINE_MAX_ENTRIES == MAX_PIPELINE_ENTRIES);

/// `VkDescriptorBindingFlags` bits the pipeline accessors give unbounded arrays:
/// `UPDATE_AFTER_BIND` (1), `PARTIALLY_BOUND` (4), and `VARIABLE_DESCRIPTOR_COUNT` (8) on the
/// set's highest binding only (Vulkan allows it nowhere else).
const UPDATE_AFTER_BIND: u32 = 0x1;
const PARTIALLY_BOUND: u32 = 0x4;
const VARIABLE_DESCRIPTOR_COUNT: u32 = 0x8;

/// One stage of a pipeline across entries: the entry's key and the entry point's (Slang)
/// name.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackPipelineStage {
    /// The entry's key (`scene.vert`).
    pub key: SlangpackStr,
    /// The entry point's name (`main`).
    pub entry_point: SlangpackStr,
}

/// A pipeline's layout, filled by `slangpack_pipeline_init` or
/// `slangpack_entry_pipeline_init`: a small value the caller keeps (copy it freely), valid
/// until the package is closed. Treat it as opaque.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackPipeline {
    /// The package the pipeline's entries belong to.
    pub package: *const SlangpackPackage,
    /// Number of entries the pipeline spans.
    pub entry_count: u32,
    /// The entries' indices in key order (the first `entry_count`).
    pub entries: [u32; SLANGPACK_PIPELINE_MAX_ENTRIES],
    /// For each entry, bit `i` set: entry point `i` of the entry is a stage of the pipeline.
    pub masks: [u32; SLANGPACK_PIPELINE_MAX_ENTRIES],
}

/// One binding of a pipeline.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackPipelineBinding {
    /// The binding's record (set, binding, `VkDescriptorType`, count, buffer layout).
    pub record: *const DescriptorBinding,
    /// The entry the record belongs to: its string indices (`path`, `name`) resolve through
    /// `slangpack_entry_string` on it, its buffer layout through `slangpack_bind_buffer_layouts`.
    pub entry: SlangpackEntry,
    /// `VkShaderStageFlags` of the pipeline's stages that use the binding (the record's own
    /// `stage_flags` are every pipeline's).
    pub stage_flags: u32,
    /// `VkDescriptorBindingFlags` for `VkDescriptorSetLayoutBindingFlagsCreateInfo`: for an
    /// unbounded array `UPDATE_AFTER_BIND | PARTIALLY_BOUND`, plus `VARIABLE_DESCRIPTOR_COUNT`
    /// when it is its set's highest binding in the pipeline; else 0.
    pub binding_flags: u32,
}

/// One push-constant range of a pipeline.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackPipelinePushConstant {
    /// The block's record (name, offset, size, buffer layout).
    pub record: *const PushConstantRange,
    /// The entry the record belongs to.
    pub entry: SlangpackEntry,
    /// `VkShaderStageFlags` for `VkPushConstantRange::stageFlags`.
    pub stage_flags: u32,
    /// Always 0 (keeps the struct's size a multiple of 8 on every target).
    pub reserved: u32,
}

fn report(error: ErrorOut, e: &PipelineError) -> SlangpackErrorKind {
    let kind = match e {
        PipelineError::Load(reader) => return error.reader(reader),
        PipelineError::UnknownEntry { .. } | PipelineError::UnknownEntryPoint { .. } => {
            SlangpackErrorKind::NotFound
        }
        PipelineError::NoUsage { .. } => SlangpackErrorKind::UnsupportedVersion,
        PipelineError::TooManyEntries => SlangpackErrorKind::LimitExceeded,
        _ => SlangpackErrorKind::PipelineConflict,
    };
    error.boundary(kind, &e.to_string())
}

/// Stores `pipeline` in `*out` as indices and masks.
///
/// # Safety
/// `out` is valid for writing one `SlangpackPipeline`.
unsafe fn store(
    package: *const SlangpackPackage,
    pipeline: &Pipeline<'_>,
    out: *mut SlangpackPipeline,
) {
    let mut value = SlangpackPipeline {
        package,
        entry_count: 0,
        entries: [0; SLANGPACK_PIPELINE_MAX_ENTRIES],
        masks: [0; SLANGPACK_PIPELINE_MAX_ENTRIES],
    };
    for (i, (entry, mask)) in pipeline.entries().enumerate() {
        // Entry indices fit in u32: the format counts entries in u32.
        value.entries[i] = entry.index() as u32;
        value.masks[i] = mask;
        value.entry_count += 1;
    }
    // SAFETY: the caller guarantees `out` is writable.
    unsafe { out.write(value) };
}

/// The reader's pipeline behind a value, rebuilt from its indices and masks (checked again;
/// no allocation for a value `slangpack_pipeline_init` filled).
///
/// # Safety
/// `pipeline` is NULL or points to a value whose `package` is NULL or a live handle for `'a`.
unsafe fn pipeline_ref<'a>(pipeline: *const SlangpackPipeline) -> Option<Pipeline<'a>> {
    // SAFETY: forwarded from the caller.
    let value = unsafe { pipeline.as_ref() }?;
    // SAFETY: forwarded from the caller.
    let package = unsafe { package_ref(value.package) }?;
    let count = (value.entry_count as usize).min(SLANGPACK_PIPELINE_MAX_ENTRIES);
    let mut parts = [(0usize, 0u32); SLANGPACK_PIPELINE_MAX_ENTRIES];
    for (part, (&entry, &mask)) in parts.iter_mut().zip(value.entries.iter().zip(&value.masks)) {
        *part = (entry as usize, mask);
    }
    package.pipeline_from_masks(&parts[..count]).ok()
}

/// The package handle of `pipeline` and the reader's pipeline behind it; `None` for a NULL
/// or invalid value.
///
/// # Safety
/// As for [`pipeline_ref`].
pub(crate) unsafe fn resolve<'a>(
    pipeline: *const SlangpackPipeline,
) -> Option<(*const SlangpackPackage, Pipeline<'a>)> {
    // SAFETY: forwarded from the caller.
    let p = unsafe { pipeline_ref(pipeline) }?;
    // SAFETY: `pipeline` is non-NULL (it resolved).
    Some((unsafe { (*pipeline).package }, p))
}

/// Runs an accessor on the reader's pipeline behind `pipeline` and its package handle, giving
/// `fallback` for an invalid value (or a panic, which cannot happen: nothing unwinds into C).
///
/// # Safety
/// As for [`pipeline_ref`].
unsafe fn with_pipeline<T: Copy>(
    pipeline: *const SlangpackPipeline,
    fallback: T,
    f: impl FnOnce(*const SlangpackPackage, Pipeline<'_>) -> T,
) -> T {
    shield(fallback, || {
        // SAFETY: forwarded from the caller.
        let Some((handle, p)) = (unsafe { resolve(pipeline) }) else {
            return fallback;
        };
        f(handle, p)
    })
}

/// Fills `*out` with the pipeline made of `stages` (`stage_count` pairs of entry key and entry
/// point name; the same key may come several times): the one-stage-per-file pipeline
/// (`{"scene.vert", "main"}, {"scene.frag", "main"}`), or several entry points of one entry.
/// Loads the entries it names. Returns `SLANGPACK_ERROR_KIND_OK`, or the error kind (filling
/// `*error` when not NULL, `*out` untouched): `NOT_FOUND` for an unknown key or entry point
/// (the message lists the entry's entry points), `PIPELINE_CONFLICT` for two push-constant
/// blocks or two resources at one binding that disagree, `LIMIT_EXCEEDED` beyond
/// `SLANGPACK_PIPELINE_MAX_ENTRIES` entries, `UNSUPPORTED_VERSION` for an entry baked without
/// per-entry-point usage.
///
/// Thread safety: as for `slangpack_package_entry`; allocates only to load an entry the first
/// time (`slangpack_package_verify_all` loads every entry), or to report an error.
///
/// # Safety
/// `package` is NULL or a live handle; `stages` is valid for reading `stage_count` values
/// whose strings are readable; `out` is NULL or writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_pipeline_init(
    package: *const SlangpackPackage,
    stages: *const SlangpackPipelineStage,
    stage_count: usize,
    out: *mut SlangpackPipeline,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        // SAFETY: the caller guarantees `package` is NULL or live.
        let (Some(p), false, false) = (
            unsafe { package_ref(package) },
            out.is_null(),
            stages.is_null() && stage_count != 0,
        ) else {
            return error.boundary(
                SlangpackErrorKind::InvalidArgument,
                "package, stages or out is NULL",
            );
        };
        let stages: &[SlangpackPipelineStage] = if stage_count == 0 {
            &[]
        } else {
            // SAFETY: the caller guarantees `stages` is readable for `stage_count` values.
            unsafe { core::slice::from_raw_parts(stages, stage_count) }
        };
        let text = |s: &SlangpackStr| {
            // SAFETY: the caller guarantees each stage's strings are readable.
            unsafe { str_arg(s.ptr, s.len) }
        };
        if stages
            .iter()
            .any(|s| text(&s.key).is_none() || text(&s.entry_point).is_none())
        {
            return error.boundary(
                SlangpackErrorKind::InvalidArgument,
                "a stage's key or entry point is NULL or not UTF-8",
            );
        }
        let pairs = stages.iter().map(|s| {
            (
                text(&s.key).unwrap_or(""),
                text(&s.entry_point).unwrap_or(""),
            )
        });
        match p.pipeline(pairs) {
            Ok(pipeline) => {
                // SAFETY: `out` is non-NULL and, per the caller, writable.
                unsafe { store(package, &pipeline, out) };
                SlangpackErrorKind::Ok
            }
            Err(e) => report(error, &e),
        }
    })
}

/// Fills `*out` with the pipeline of `entry` made of the entry points named `names`
/// (`name_count` strings: `{"vertexMain", "fragmentMain"}`). Results as for
/// `slangpack_pipeline_init`.
///
/// Thread safety: as for `slangpack_pipeline_init`.
///
/// # Safety
/// `entry.package` is NULL or a live handle; `names` is valid for reading `name_count`
/// readable strings; `out` is NULL or writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_entry_pipeline_init(
    entry: SlangpackEntry,
    names: *const SlangpackStr,
    name_count: usize,
    out: *mut SlangpackPipeline,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        // SAFETY: the caller guarantees `entry.package` is NULL or live.
        let (Some(p), false, false) = (
            unsafe { package_ref(entry.package) },
            out.is_null(),
            names.is_null() && name_count != 0,
        ) else {
            return error.boundary(
                SlangpackErrorKind::InvalidArgument,
                "entry, names or out is NULL",
            );
        };
        let Some(e) = p.loaded_at(entry.index) else {
            return error.boundary(SlangpackErrorKind::NotFound, "no such entry");
        };
        let names: &[SlangpackStr] = if name_count == 0 {
            &[]
        } else {
            // SAFETY: the caller guarantees `names` is readable for `name_count` values.
            unsafe { core::slice::from_raw_parts(names, name_count) }
        };
        let text = |s: &SlangpackStr| {
            // SAFETY: the caller guarantees each name is readable.
            unsafe { str_arg(s.ptr, s.len) }
        };
        if names.iter().any(|n| text(n).is_none()) {
            return error.boundary(
                SlangpackErrorKind::InvalidArgument,
                "an entry point name is NULL or not UTF-8",
            );
        }
        let list = names.iter().map(|n| text(n).unwrap_or(""));
        match e.pipeline(list) {
            Ok(pipeline) => {
                // SAFETY: `out` is non-NULL and, per the caller, writable.
                unsafe { store(entry.package, &pipeline, out) };
                SlangpackErrorKind::Ok
            }
            Err(e) => report(error, &e),
        }
    })
}

/// `VkShaderStageFlags` of the pipeline's stages; 0 for an invalid value.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// `pipeline` is NULL or a value filled by `slangpack_pipeline_init` or
/// `slangpack_entry_pipeline_init` whose package is still open.
#[no_mangle]
pub unsafe extern "C" fn slangpack_pipeline_stage_flags(pipeline: *const SlangpackPipeline) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { with_pipeline(pipeline, 0, |_, p| p.stage_flags()) }
}

/// Length the pipeline layout's set array must have (highest set the pipeline uses + 1; sets
/// between are holes, filled with empty set layouts); 0 for an invalid value.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// As for `slangpack_pipeline_stage_flags`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_pipeline_set_slot_count(
    pipeline: *const SlangpackPipeline,
) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { with_pipeline(pipeline, 0, |_, p| p.set_slot_count()) }
}

/// The pipeline's bindings of Vulkan set `set`, sorted by binding, each once: writes the first
/// `capacity` into `out` (NULL allowed when `capacity` is 0) and returns how many there are
/// (call once with 0 to size the array). Zero-length arrays are left out (they are no
/// descriptors). 0 for a hole, a set past the end or an invalid value.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// As for `slangpack_pipeline_stage_flags`; `out` is NULL or valid for writing `capacity`
/// values.
#[no_mangle]
pub unsafe extern "C" fn slangpack_pipeline_set_bindings(
    pipeline: *const SlangpackPipeline,
    set: u32,
    out: *mut SlangpackPipelineBinding,
    capacity: usize,
) -> usize {
    // SAFETY: forwarded from the caller: `pipeline` as `with_pipeline` needs it, `out` as
    // `write_out` needs it.
    unsafe {
        with_pipeline(pipeline, 0, |handle, p| {
            let mut items = p
                .set(set)
                .filter(|b| b.record.array_kind() != ArrayKind::ZeroLength)
                .peekable();
            let values = core::iter::from_fn(|| {
                let item = items.next()?;
                let unbounded = item.record.array_kind() == ArrayKind::Unbounded;
                let binding_flags = match (unbounded, items.peek().is_none()) {
                    (false, _) => 0,
                    (true, false) => UPDATE_AFTER_BIND | PARTIALLY_BOUND,
                    (true, true) => UPDATE_AFTER_BIND | PARTIALLY_BOUND | VARIABLE_DESCRIPTOR_COUNT,
                };
                Some(SlangpackPipelineBinding {
                    record: item.record,
                    entry: entry_of(handle, &item.entry),
                    stage_flags: item.stage_flags,
                    binding_flags,
                })
            });
            write_out(values, out, capacity)
        })
    }
}

/// Writes the first `capacity` of `values` to `out` (nothing when it is NULL) and returns how
/// many values there are.
///
/// # Safety
/// `out` is NULL or valid for writing `capacity` values.
unsafe fn write_out<T>(values: impl Iterator<Item = T>, out: *mut T, capacity: usize) -> usize {
    let mut total = 0;
    for value in values {
        if total < capacity && !out.is_null() {
            // SAFETY: `total < capacity` and the caller guarantees `out` holds `capacity`.
            unsafe { out.add(total).write(value) };
        }
        total += 1;
    }
    total
}

/// The pipeline's push-constant ranges (at most one per stage; identical blocks of several
/// stages are one range of all of them): writes the first `capacity` into `out` and returns
/// how many there are, as `slangpack_pipeline_set_bindings` does.
///
/// Thread safety: any number of threads may call this at once; no allocation.
///
/// # Safety
/// As for `slangpack_pipeline_set_bindings`.
#[no_mangle]
pub unsafe extern "C" fn slangpack_pipeline_push_constants(
    pipeline: *const SlangpackPipeline,
    out: *mut SlangpackPipelinePushConstant,
    capacity: usize,
) -> usize {
    // SAFETY: forwarded from the caller: `pipeline` as `with_pipeline` needs it, `out` as
    // `write_out` needs it.
    unsafe {
        with_pipeline(pipeline, 0, |handle, p| {
            let values = p
                .push_constants()
                .map(|item| SlangpackPipelinePushConstant {
                    record: item.record,
                    entry: entry_of(handle, &item.entry),
                    stage_flags: item.stage_flags,
                    reserved: 0,
                });
            write_out(values, out, capacity)
        })
    }
}

/// The `SlangpackEntry` of a pipeline item's entry.
fn entry_of(
    handle: *const SlangpackPackage,
    entry: &slangpack_reader::Entry<'_>,
) -> SlangpackEntry {
    SlangpackEntry {
        package: handle,
        index: entry.index(),
    }
}

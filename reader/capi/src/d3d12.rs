//! D3D12 root parameters of a pipeline through the C ABI: the reader's
//! `Pipeline::d3d12_root_parameters` (derived from the HLSL bind view, whose registers are
//! checked at bake time against the HLSL text) as flat arrays whose numbers are D3D12's own
//! (`D3D12_ROOT_PARAMETER_TYPE`, `D3D12_DESCRIPTOR_RANGE_TYPE`, `UINT_MAX` for an unbounded
//! range), so an engine copies them into `D3D12_ROOT_PARAMETER1` and `D3D12_DESCRIPTOR_RANGE1`,
//! and the same parameters as a root-signature string.

use crate::error::{ErrorOut, SlangpackError, SlangpackErrorKind};
use crate::package::SlangpackEntry;
use crate::pipeline::SlangpackPipeline;
use slangpack_format::targets::TargetBinding;
use slangpack_reader::{D3d12Error, D3d12RangeType, D3d12RootParameter, D3d12RootParameters};

/// `D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE`.
pub const SLANGPACK_D3D12_ROOT_PARAMETER_TABLE: u32 = 0;
/// `D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS`.
pub const SLANGPACK_D3D12_ROOT_PARAMETER_CONSTANTS: u32 = 1;
/// `D3D12_DESCRIPTOR_RANGE_TYPE_SRV`.
pub const SLANGPACK_D3D12_RANGE_SRV: u32 = 0;
/// `D3D12_DESCRIPTOR_RANGE_TYPE_UAV`.
pub const SLANGPACK_D3D12_RANGE_UAV: u32 = 1;
/// `D3D12_DESCRIPTOR_RANGE_TYPE_CBV`.
pub const SLANGPACK_D3D12_RANGE_CBV: u32 = 2;
/// `D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER`.
pub const SLANGPACK_D3D12_RANGE_SAMPLER: u32 = 3;
/// `NumDescriptors` of an unbounded range (D3D12's `UINT_MAX`, `-1`).
pub const SLANGPACK_D3D12_UNBOUNDED: u32 = u32::MAX;

/// One root parameter (`D3D12_ROOT_PARAMETER1`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackD3d12RootParameter {
    /// `SLANGPACK_D3D12_ROOT_PARAMETER_TABLE` or `SLANGPACK_D3D12_ROOT_PARAMETER_CONSTANTS`
    /// (D3D12's `ParameterType` values).
    pub parameter_type: u32,
    /// The register space: of every range of a table, or of the constants.
    pub space: u32,
    /// Root constants: the `b` register (`ShaderRegister`); 0 for a table.
    pub shader_register: u32,
    /// Root constants: the number of 32-bit values (`Num32BitValues`); 0 for a table.
    pub values: u32,
    /// A table: 1 for the space's sampler table (D3D12 keeps samplers in tables of their
    /// own), 0 for its CBV/SRV/UAV table.
    pub samplers: u32,
    /// A table: its first range in the ranges array (`pDescriptorRanges`); 0 for constants.
    pub first_range: u32,
    /// A table: its number of ranges (`NumDescriptorRanges`); 0 for constants.
    pub range_count: u32,
    /// Root constants: the HLSL binding of the push-constant block (resolve its strings with
    /// `entry`); NULL for a table.
    pub binding: *const TargetBinding,
    /// The entry whose HLSL bind view the parameters come from.
    pub entry: SlangpackEntry,
}

/// One descriptor range of a table (`D3D12_DESCRIPTOR_RANGE1`), each appended after the
/// previous one in its table (`D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackD3d12Range {
    /// `SLANGPACK_D3D12_RANGE_*` (D3D12's `RangeType` values).
    pub range_type: u32,
    /// `NumDescriptors`; `SLANGPACK_D3D12_UNBOUNDED` for an unbounded array.
    pub num_descriptors: u32,
    /// `BaseShaderRegister`.
    pub base_register: u32,
    /// `RegisterSpace`.
    pub space: u32,
    /// The HLSL binding the range came from (its path: `slangpack_entry_string` of `path` on
    /// `entry`).
    pub binding: *const TargetBinding,
    /// The entry the binding belongs to.
    pub entry: SlangpackEntry,
}

/// D3D12's range type number of a range type.
const fn range_type(t: D3d12RangeType) -> u32 {
    match t {
        D3d12RangeType::Srv => SLANGPACK_D3D12_RANGE_SRV,
        D3d12RangeType::Uav => SLANGPACK_D3D12_RANGE_UAV,
        D3d12RangeType::Cbv => SLANGPACK_D3D12_RANGE_CBV,
        D3d12RangeType::Sampler => SLANGPACK_D3D12_RANGE_SAMPLER,
    }
}

fn report(error: ErrorOut, e: &D3d12Error) -> SlangpackErrorKind {
    let kind = match e {
        D3d12Error::NotHlsl => SlangpackErrorKind::NotFound,
        D3d12Error::Overlap { .. } => SlangpackErrorKind::PipelineConflict,
        _ => SlangpackErrorKind::BadValue,
    };
    error.boundary(kind, &e.to_string())
}

/// Derives the root parameters of `pipeline` and hands them and its first entry to `f`.
///
/// # Safety
/// `pipeline` as for `slangpack_pipeline_stage_flags`; `error` is NULL or writable.
unsafe fn with_root_parameters(
    pipeline: *const SlangpackPipeline,
    error: *mut SlangpackError,
    f: impl FnOnce(&D3d12RootParameters<'_>, SlangpackEntry) -> SlangpackErrorKind,
) -> SlangpackErrorKind {
    // SAFETY: the caller guarantees `error` is NULL or writable.
    let error = unsafe { ErrorOut::new(error) };
    error.guard(|| {
        // SAFETY: forwarded from the caller.
        let Some((handle, p)) = (unsafe { crate::pipeline::resolve(pipeline) }) else {
            return error.boundary(
                SlangpackErrorKind::InvalidArgument,
                "pipeline is NULL or not a pipeline of an open package",
            );
        };
        let Some((first, _)) = p.entries().next() else {
            return error.boundary(SlangpackErrorKind::InvalidArgument, "an empty pipeline");
        };
        let entry = SlangpackEntry {
            package: handle,
            index: first.index(),
        };
        match p.d3d12_root_parameters() {
            Ok(params) => f(&params, entry),
            Err(e) => report(error, &e),
        }
    })
}

/// The D3D12 root parameters of `pipeline` (SPEC.md 6.8.1): root constants first (one per
/// push-constant block), then per register space its CBV/SRV/UAV table and its sampler
/// table, from the HLSL bind view of the pipeline's first entry with only the bindings the
/// pipeline's entry points use. Writes the first `params_capacity` parameters to `params`
/// and the first `ranges_capacity` ranges to `ranges` (either NULL when its capacity is 0),
/// and the full counts to `*param_count` and `*range_count` (when not NULL): call once with
/// capacities 0 to size the arrays. A table's `first_range` indexes `ranges`.
///
/// Returns `SLANGPACK_ERROR_KIND_OK`, or (filling `*error` when not NULL) `NOT_FOUND` when
/// an entry point of the pipeline was not baked for HLSL, `PIPELINE_CONFLICT` when two
/// bindings overlap in registers (the message names both), `BAD_VALUE` for a record without
/// an HLSL register class, `INVALID_ARGUMENT` for a NULL or stale pipeline.
///
/// Thread safety: any number of threads may call this at once; allocates (the derivation's
/// lists) and frees before returning.
///
/// # Safety
/// `pipeline` is NULL or a value filled by `slangpack_pipeline_init` or
/// `slangpack_entry_pipeline_init` whose package is still open; `params` and `ranges` are NULL
/// or valid for writing their capacities; `param_count`, `range_count` and `error` are NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_pipeline_d3d12_root_parameters(
    pipeline: *const SlangpackPipeline,
    params: *mut SlangpackD3d12RootParameter,
    params_capacity: usize,
    param_count: *mut usize,
    ranges: *mut SlangpackD3d12Range,
    ranges_capacity: usize,
    range_count: *mut usize,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    let fill = |root: &D3d12RootParameters<'_>, entry: SlangpackEntry| {
        let mut flat_params = Vec::with_capacity(root.parameters.len());
        let mut flat_ranges = Vec::new();
        for p in &root.parameters {
            flat_params.push(match p {
                D3d12RootParameter::Constants {
                    register,
                    space,
                    values,
                    binding,
                } => SlangpackD3d12RootParameter {
                    parameter_type: SLANGPACK_D3D12_ROOT_PARAMETER_CONSTANTS,
                    space: *space,
                    shader_register: *register,
                    values: *values,
                    samplers: 0,
                    first_range: 0,
                    range_count: 0,
                    binding: *binding,
                    entry,
                },
                D3d12RootParameter::Table {
                    space,
                    samplers,
                    ranges: table,
                } => {
                    // Counts fit in u32: each range is a record of a u32-counted table.
                    let first_range = flat_ranges.len() as u32;
                    flat_ranges.extend(table.iter().map(|r| SlangpackD3d12Range {
                        range_type: range_type(r.range_type),
                        num_descriptors: r.count.unwrap_or(SLANGPACK_D3D12_UNBOUNDED),
                        base_register: r.base_register,
                        space: r.space,
                        binding: r.binding,
                        entry,
                    }));
                    SlangpackD3d12RootParameter {
                        parameter_type: SLANGPACK_D3D12_ROOT_PARAMETER_TABLE,
                        space: *space,
                        shader_register: 0,
                        values: 0,
                        samplers: u32::from(*samplers),
                        first_range,
                        range_count: table.len() as u32,
                        binding: core::ptr::null(),
                        entry,
                    }
                }
            });
        }
        // SAFETY: the caller guarantees each array holds its capacity and each count is
        // NULL or writable.
        unsafe {
            copy_out(&flat_params, params, params_capacity, param_count);
            copy_out(&flat_ranges, ranges, ranges_capacity, range_count);
        }
        SlangpackErrorKind::Ok
    };
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { with_root_parameters(pipeline, error, fill) }
}

/// The root parameters of `pipeline` as HLSL's root-signature grammar writes them (for a
/// `[RootSignature("...")]` attribute or `dxc -rootsig-define`; no root flags): writes at
/// most `capacity - 1` bytes and a NUL to `buffer` (nothing when it is NULL or `capacity` is
/// 0), and the string's full length, without the NUL, to `*len` (when not NULL). Results as
/// for `slangpack_pipeline_d3d12_root_parameters`.
///
/// Thread safety: as for `slangpack_pipeline_d3d12_root_parameters`.
///
/// # Safety
/// `pipeline` as for `slangpack_pipeline_d3d12_root_parameters`; `buffer` is NULL or valid
/// for writing `capacity` bytes; `len` and `error` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slangpack_pipeline_d3d12_root_signature(
    pipeline: *const SlangpackPipeline,
    buffer: *mut core::ffi::c_char,
    capacity: usize,
    len: *mut usize,
    error: *mut SlangpackError,
) -> SlangpackErrorKind {
    let write = |root: &D3d12RootParameters<'_>, _: SlangpackEntry| {
        let text = root.to_root_signature_string();
        if !buffer.is_null() && capacity > 0 {
            let n = text.len().min(capacity - 1);
            // SAFETY: `n + 1 <= capacity` bytes, which the caller guarantees writable.
            unsafe {
                core::ptr::copy_nonoverlapping(text.as_ptr().cast(), buffer, n);
                buffer.add(n).write(0);
            }
        }
        // SAFETY: the caller guarantees `len` is NULL or writable.
        if let Some(out) = unsafe { len.as_mut() } {
            *out = text.len();
        }
        SlangpackErrorKind::Ok
    };
    // SAFETY: forwarded from the caller (see `# Safety`).
    unsafe { with_root_parameters(pipeline, error, write) }
}

/// Copies the first `capacity` of `values` to `out` (nothing when it is NULL) and their
/// number to `*count` (when not NULL).
///
/// # Safety
/// `out` is NULL or valid for writing `capacity` values; `count` is NULL or writable.
unsafe fn copy_out<T: Copy>(values: &[T], out: *mut T, capacity: usize, count: *mut usize) {
    if !out.is_null() {
        let n = values.len().min(capacity);
        // SAFETY: `n <= capacity` values, which the caller guarantees writable.
        unsafe { core::ptr::copy_nonoverlapping(values.as_ptr(), out, n) };
    }
    // SAFETY: the caller guarantees `count` is NULL or writable.
    if let Some(c) = unsafe { count.as_mut() } {
        *c = values.len();
    }
}

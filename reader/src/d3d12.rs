//! D3D12 root parameters derived from an entry's HLSL bind view (SPEC.md 6.8.1): what an
//! engine turns into a `D3D12_ROOT_SIGNATURE_DESC`, and the same as a string of HLSL's
//! root-signature grammar. Computed from the stored `TargetBinding` records (their registers
//! are checked at bake time against the HLSL text), so the package format holds nothing more.

use crate::targets::TargetBindView;
use slangpack_format::targets::{TargetBinding, TARGET_UNUSED};
use slangpack_format::{Target, ABSENT};
use std::fmt;

/// The type of a descriptor range (`D3D12_DESCRIPTOR_RANGE_TYPE`), from the HLSL register
/// class: `b` CBV, `t` SRV, `u` UAV, `s` sampler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum D3d12RangeType {
    /// A constant buffer view (`b` registers).
    Cbv,
    /// A shader resource view (`t` registers).
    Srv,
    /// An unordered access view (`u` registers).
    Uav,
    /// A sampler (`s` registers).
    Sampler,
}

impl D3d12RangeType {
    /// The range type of an HLSL register class, `None` for another byte.
    #[must_use]
    pub const fn from_register_class(class: u32) -> Option<Self> {
        Some(match class {
            0x62 => Self::Cbv,
            0x74 => Self::Srv,
            0x75 => Self::Uav,
            0x73 => Self::Sampler,
            _ => return None,
        })
    }

    /// The name the root-signature grammar gives it (`CBV`, `SRV`, `UAV`, `Sampler`).
    #[must_use]
    pub const fn grammar_name(self) -> &'static str {
        match self {
            Self::Cbv => "CBV",
            Self::Srv => "SRV",
            Self::Uav => "UAV",
            Self::Sampler => "Sampler",
        }
    }

    /// The register class letter (`b`, `t`, `u`, `s`).
    #[must_use]
    pub const fn register_char(self) -> char {
        match self {
            Self::Cbv => 'b',
            Self::Srv => 't',
            Self::Uav => 'u',
            Self::Sampler => 's',
        }
    }
}

/// One range of a descriptor table (`D3D12_DESCRIPTOR_RANGE1`): one HLSL binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct D3d12DescriptorRange<'a> {
    /// CBV, SRV, UAV or sampler.
    pub range_type: D3d12RangeType,
    /// The first register (`BaseShaderRegister`).
    pub base_register: u32,
    /// The number of descriptors (`NumDescriptors`); `None` for an unbounded array (`-1`,
    /// `numDescriptors = unbounded`).
    pub count: Option<u32>,
    /// The register space (`RegisterSpace`).
    pub space: u32,
    /// The HLSL binding the range came from (its path: [`TargetBindView::path`]; its Vulkan
    /// binding: [`TargetBindView::vulkan_binding`]).
    pub binding: &'a TargetBinding,
}

/// One root parameter (`D3D12_ROOT_PARAMETER1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum D3d12RootParameter<'a> {
    /// Root constants (`D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS`): a push-constant block,
    /// which Slang's HLSL declares as a constant buffer of its own.
    Constants {
        /// The `b` register (`ShaderRegister`).
        register: u32,
        /// The register space.
        space: u32,
        /// The number of 32-bit values (`Num32BitValues`): the constant buffer's size in
        /// bytes divided by 4, rounded up.
        values: u32,
        /// The HLSL binding of the block.
        binding: &'a TargetBinding,
    },
    /// A descriptor table (`D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE`) of one register
    /// space: either CBV, SRV and UAV ranges, or sampler ranges (D3D12 keeps samplers in
    /// tables of their own).
    Table {
        /// The register space of every range.
        space: u32,
        /// Whether this is the space's sampler table.
        samplers: bool,
        /// The ranges, sorted by type (CBV, SRV, UAV) then register; each appended after the
        /// previous one in the table (`D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND`).
        ranges: Vec<D3d12DescriptorRange<'a>>,
    },
}

/// The root parameters of an entry's HLSL bind view ([`TargetBindView::d3d12_root_parameters`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct D3d12RootParameters<'a> {
    /// Root constants first (one per push-constant block), then per register space in
    /// ascending order its CBV/SRV/UAV table and then its sampler table.
    pub parameters: Vec<D3d12RootParameter<'a>>,
}

impl D3d12RootParameters<'_> {
    /// The parameters as HLSL's root-signature grammar writes them, for a
    /// `[RootSignature("...")]` attribute or `dxc -rootsig-define`:
    /// `RootConstants(num32BitConstants=4, b1), DescriptorTable(CBV(b0), SRV(t0,
    /// numDescriptors=unbounded, space=1)), DescriptorTable(Sampler(s0))`. No root flags are
    /// written (an engine adds `RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT)` for a pipeline
    /// with vertex input).
    #[must_use]
    pub fn to_root_signature_string(&self) -> String {
        let space = |s: u32| {
            if s == 0 {
                String::new()
            } else {
                format!(", space={s}")
            }
        };
        let mut parts = Vec::with_capacity(self.parameters.len());
        for p in &self.parameters {
            match p {
                D3d12RootParameter::Constants {
                    register,
                    space: s,
                    values,
                    ..
                } => parts.push(format!(
                    "RootConstants(num32BitConstants={values}, b{register}{})",
                    space(*s)
                )),
                D3d12RootParameter::Table { ranges, .. } => {
                    let ranges: Vec<String> = ranges
                        .iter()
                        .map(|r| {
                            let count = match r.count {
                                Some(1) => String::new(),
                                Some(n) => format!(", numDescriptors={n}"),
                                None => ", numDescriptors=unbounded".to_string(),
                            };
                            format!(
                                "{}({}{}{count}{})",
                                r.range_type.grammar_name(),
                                r.range_type.register_char(),
                                r.base_register,
                                space(r.space)
                            )
                        })
                        .collect();
                    parts.push(format!("DescriptorTable({})", ranges.join(", ")));
                }
            }
        }
        parts.join(", ")
    }
}

/// Why root parameters could not be derived.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum D3d12Error {
    /// The bind view is not an HLSL (or DXIL) one, or the pipeline's entry was not baked for
    /// HLSL.
    NotHlsl,
    /// A record's register class is none of `b`, `t`, `u`, `s` (a damaged or newer package).
    RegisterClass {
        /// The binding's path.
        path: String,
    },
    /// Two bindings take overlapping registers of one class and space (two pipelines of the
    /// program reusing a register: take one pipeline's parameters, or give them other
    /// registers), which a root signature cannot hold.
    Overlap {
        /// The first binding's path.
        first: String,
        /// The second binding's path.
        second: String,
        /// The place both take, as `register(t0, space1)`.
        place: String,
    },
}

impl fmt::Display for D3d12Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotHlsl => f.write_str("root parameters need an HLSL bind view (bake for HLSL)"),
            Self::RegisterClass { path } => {
                write!(f, "binding `{path}` has no HLSL register class")
            }
            Self::Overlap {
                first,
                second,
                place,
            } => write!(
                f,
                "bindings `{first}` and `{second}` overlap at {place}, which one root \
                 signature cannot hold"
            ),
        }
    }
}

impl std::error::Error for D3d12Error {}

impl<'a> TargetBindView<'a> {
    /// The D3D12 root parameters of this HLSL bind view (SPEC.md 6.8.1): a push-constant
    /// block (its constant buffer) as root constants; every other binding the code declares
    /// as one range of its register space's CBV/SRV/UAV or sampler table. Bindings the code
    /// does not declare (`TARGET_UNUSED`) take no range. Two records of one place and count
    /// (pipelines sharing a binding) give one range.
    ///
    /// No parameters for a view without bindings (an entry without resources, or one not
    /// baked for HLSL: [`crate::Pipeline::d3d12_root_parameters`] tells those apart).
    ///
    /// # Errors
    /// [`D3d12Error::NotHlsl`] for another target's view,
    /// [`D3d12Error::RegisterClass`] for a record without an HLSL class,
    /// [`D3d12Error::Overlap`] for two bindings whose registers overlap.
    pub fn d3d12_root_parameters(&self) -> Result<D3d12RootParameters<'a>, D3d12Error> {
        self.d3d12_root_parameters_of(|_| true)
    }

    /// [`Self::d3d12_root_parameters`] of the records `keep` accepts.
    pub(crate) fn d3d12_root_parameters_of(
        &self,
        keep: impl Fn(&TargetBinding) -> bool,
    ) -> Result<D3d12RootParameters<'a>, D3d12Error> {
        if !matches!(self.target(), Target::Hlsl | Target::Dxil) {
            return Err(D3d12Error::NotHlsl);
        }
        let bind = self.view_bind();
        let is_push = |b: &TargetBinding| {
            b.binding == ABSENT
                && bind
                    .push_constants()
                    .iter()
                    .any(|p| bind.string(p.name) == self.path(b))
        };
        let mut constants = Vec::new();
        // (space, samplers, range)
        let mut ranges: Vec<D3d12DescriptorRange<'a>> = Vec::new();
        for b in self.bindings() {
            if b.flags & TARGET_UNUSED != 0 || b.space == ABSENT || !keep(b) {
                continue;
            }
            let range_type =
                D3d12RangeType::from_register_class(b.register_class).ok_or_else(|| {
                    D3d12Error::RegisterClass {
                        path: self.path(b).to_owned(),
                    }
                })?;
            if range_type == D3d12RangeType::Cbv && is_push(b) {
                constants.push(D3d12RootParameter::Constants {
                    register: b.index,
                    space: b.space,
                    values: b.min_binding_size.div_ceil(4),
                    binding: b,
                });
                continue;
            }
            let range = D3d12DescriptorRange {
                range_type,
                base_register: b.index,
                count: (b.count != 0).then_some(b.count),
                space: b.space,
                binding: b,
            };
            if ranges.iter().any(|r| {
                (r.range_type, r.base_register, r.count, r.space)
                    == (range_type, range.base_register, range.count, range.space)
            }) {
                continue;
            }
            ranges.push(range);
        }
        ranges.sort_by_key(|r| {
            (
                r.space,
                r.range_type == D3d12RangeType::Sampler,
                r.range_type,
                r.base_register,
            )
        });
        // Overlaps: within one type and space, each range must end before the next begins.
        for (a, b) in ranges.iter().zip(ranges.iter().skip(1)) {
            if (a.range_type, a.space) != (b.range_type, b.space) {
                continue;
            }
            let overlaps = match a.count {
                None => true,
                Some(n) => u64::from(a.base_register) + u64::from(n) > u64::from(b.base_register),
            };
            if overlaps {
                return Err(D3d12Error::Overlap {
                    first: self.path(a.binding).to_owned(),
                    second: self.path(b.binding).to_owned(),
                    place: slangpack_format::targets::place_name(
                        self.target(),
                        b.space,
                        b.base_register,
                        b.binding.register_class,
                    ),
                });
            }
        }
        let mut parameters = constants;
        let mut rest = ranges.into_iter().peekable();
        while let Some(first) = rest.next() {
            let samplers = first.range_type == D3d12RangeType::Sampler;
            let mut table = vec![first];
            while let Some(next) = rest.next_if(|r| {
                r.space == first.space && (r.range_type == D3d12RangeType::Sampler) == samplers
            }) {
                table.push(next);
            }
            parameters.push(D3d12RootParameter::Table {
                space: first.space,
                samplers,
                ranges: table,
            });
        }
        Ok(D3d12RootParameters { parameters })
    }
}

impl<'a> crate::Pipeline<'a> {
    /// The D3D12 root parameters of this pipeline ([`TargetBindView::d3d12_root_parameters`]
    /// of its first entry's HLSL bind view, with only the bindings its entry points use: a
    /// program whose pipelines reuse registers has one root signature per pipeline).
    ///
    /// # Errors
    /// [`D3d12Error::NotHlsl`] when an entry point of the pipeline has no HLSL code (the
    /// entry was not baked for HLSL), else as [`TargetBindView::d3d12_root_parameters`].
    pub fn d3d12_root_parameters(&self) -> Result<D3d12RootParameters<'a>, D3d12Error> {
        if self
            .entry_points()
            .any(|ep| ep.code(Target::Hlsl).is_none())
        {
            return Err(D3d12Error::NotHlsl);
        }
        let view = self.bind_view().target(Target::Hlsl);
        let bind = self.bind_view();
        let mask = self.entry_point_mask();
        view.d3d12_root_parameters_of(|b| {
            let used_by = match view.vulkan_binding(b) {
                Some(v) => v.entry_point_mask,
                // A push-constant block's or a shader-record block's constant buffer is used
                // by the entry points that declare the block.
                None => {
                    let path = view.path(b);
                    let push = bind.push_constants().iter();
                    let record = bind.shader_record_blocks().iter();
                    push.filter(|p| bind.string(p.name) == path)
                        .map(|p| p.entry_point_mask)
                        .chain(
                            record
                                .filter(|r| bind.string(r.name) == path)
                                .map(|r| r.entry_point_mask),
                        )
                        .next()
                        .unwrap_or(0)
                }
            };
            used_by == 0 || used_by & mask != 0
        })
    }
}

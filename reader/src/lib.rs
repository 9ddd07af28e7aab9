//! The slangpack runtime reader: opens a package in the time of its directory, loads an entry
//! (checksums, decompression, validation of every byte its accessors can reach) at its first
//! use, then serves SPIR-V and reflection tables as borrowed slices — no allocation after the
//! load, no panics, no Slang dependency.
//!
//! ```
//! use slangpack_format::*;
//! use slangpack_reader::Package;
//!
//! // Bake a tiny package with the format crate's builders...
//! let mut rb = ReflectionBuilder::new();
//! let name = rb.intern("gParams");
//! let var = rb.push(Variable { name, type_index: ABSENT, generic_container: ABSENT,
//!     ..Variable::default() });
//! let mut pb = PackageBuilder::new();
//! let spirv = pb.add_spirv(&[0x0723_0203, 0x0001_0600, 0, 8, 0]);
//! let reflection = pb.add_reflection(rb.finish());
//! pb.add_entry(EntryDesc {
//!     key: "blur.slang|main".into(),
//!     reflection: Some(reflection),
//!     entry_points: vec![EntryPointDesc {
//!         name: "blurMain".into(), spirv_entry_name: "main".into(), stage: Stage::Compute,
//!         thread_group_size: [8, 8, 1], wave_size: 0, spirv, reflection_entry_point: None,
//!     }],
//!     dependencies: vec![],
//!     options_hash: 0,
//! })?;
//! let bytes = pb.finish()?;
//!
//! // ...and read it back (`Package::open(path)` maps a file instead). `load` is the one
//! // fallible step per entry for its code and bind view; `reflection` the one for the raw
//! // Slang tables (checked at its first call). Nothing after them can fail.
//! let package = Package::from_bytes(&bytes)?;
//! let entry = package.load("blur.slang|main")?;
//! let ep = entry.entry_points().next().expect("one entry point");
//! assert_eq!(ep.spirv_entry_name(), "main");
//! assert_eq!(ep.spirv()[0], 0x0723_0203);
//! let reflection = entry.reflection()?;
//! assert_eq!(reflection.string(reflection.variables()[var as usize].name), "gParams");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic
    )
)]

mod argument_buffer;
mod bind;
mod blob;
mod cells;
mod d3d12;
mod error;
mod fill;
mod names;
mod package;
mod pipeline;
mod reload;
mod shard;
mod storage;
mod targets;
pub mod text;
mod view;
#[cfg(feature = "ash")]
mod vulkan;
#[cfg(feature = "wgpu")]
mod wgpu_layout;

pub use argument_buffer::ArgumentBufferView;
pub use bind::{BindView, BindingHandle, MemberHandle, SetLayout, SetLayoutIter};
pub use d3d12::{
    D3d12DescriptorRange, D3d12Error, D3d12RangeType, D3d12RootParameter, D3d12RootParameters,
};
pub use error::{Error, ErrorKind, Result};
pub use fill::{
    BufferLayoutView, BufferWriter, Field, FillError, FillErrorKind, Half, Scalar, ShaderValue,
    Shape,
};
pub use package::{
    Dependency, DependencyIter, Entry, EntryInfo, EntryIter, EntryPoint, EntryPointIter, KeyIter,
    Package,
};
pub use pipeline::{
    Pipeline, PipelineBinding, PipelineBindingIter, PipelineError, PipelineItem,
    PipelinePushConstant, PipelinePushConstantIter, MAX_PIPELINE_ENTRIES,
};
pub use reload::{compare, ChangeKind, FileIdentity, KeyChange, Reload, Reloader};
pub use storage::open_regular_file;
pub use targets::{Code, TargetBindView, TargetBufferLayout, TargetCode, TargetCodeIter};
pub use view::{
    CategoryOffset, CategoryOffsetIter, CategorySize, CategorySizeIter, DeclIter, FieldIter,
    IndexIter, ReflectionView, VarLayoutIter, VariableIter,
};
#[cfg(feature = "wgpu")]
pub use wgpu_layout::{
    wgpu_stages, wgpu_storage_format, WgpuBindGroups, WgpuError, WgpuLayoutOptions,
    WgpuPipelineLayout,
};

#[cfg(feature = "ash")]
pub use vulkan::{
    vk_set_layout_bindings, vk_set_layout_create_flags, VkPipelineSetLayoutBindings,
    VkSetLayoutBindingIter, VkSpecializationMapEntryIter, VkVertexAttributeIter,
};

/// Re-export of the format crate (records, enums, builders).
pub use slangpack_format as format;

#[cfg(test)]
mod split_tests;
#[cfg(test)]
mod tests;

/// The README's code blocks, compiled as doctests (its quickstart's example uses the `ash`
/// feature).
#[cfg(all(doctest, feature = "ash"))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// The code blocks of each guide in `docs/`, compiled as doctests (one item per file; a test
/// in `xtask/tests/docs.rs` checks every guide has one).
#[cfg(all(doctest, feature = "ash"))]
mod guides {
    #[doc = include_str!("../../docs/benchmarks.md")]
    struct Benchmarks;
    #[doc = include_str!("../../docs/c.md")]
    struct C;
    #[doc = include_str!("../../docs/cli.md")]
    struct Cli;
    #[doc = include_str!("../../docs/development.md")]
    struct Development;
    #[doc = include_str!("../../docs/reader.md")]
    struct Reader;
    #[doc = include_str!("../../docs/targets.md")]
    struct Targets;
    #[doc = include_str!("../../docs/threat-model.md")]
    struct ThreatModel;
}

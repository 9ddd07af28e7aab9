//! The offline half of slangpack: compiles Slang programs with the Slang compiler, flattens
//! their reflection into slangpack's tables and writes packages.
//!
//! ```no_run
//! use slangpack_writer::compile::{CompileOptions, Compiler, Source};
//!
//! let compiler = Compiler::new()?;
//! let source = Source::read("examples/shaders/blur.slang".as_ref())?;
//! let program = compiler.compile("blur", &source, &CompileOptions::default())?;
//! for ep in &program.entry_points {
//!     println!("{} ({} SPIR-V words)", ep.name, ep.spirv.len());
//! }
//! # Ok::<(), slangpack_writer::BakeError>(())
//! ```
#![deny(missing_docs)]

pub mod bake;
mod bind_view;
pub mod build;
pub mod cache;
pub mod compile;
pub mod config;
pub mod depfile;
mod diagnostics;
pub mod entry;
mod error;
pub mod execute;
pub mod manifest;
pub mod options;
pub mod plan;
pub mod reflect;
pub mod remote;
mod reuse;
mod slang_ids;
pub mod spirv;
pub mod targets;
pub mod watch;
pub mod worker;

pub use error::BakeError;

/// This writer build: its crate version and a hash of the sources that shape what it writes
/// (see `build.rs`). It is part of every entry's options hash, with the format version and
/// Slang's, so an incremental rebake by another writer build recompiles every entry instead
/// of reusing what that writer made.
pub const WRITER_BUILD: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+src.",
    env!("SLANGPACK_WRITER_SOURCE_HASH")
);

/// Slang's own string hash (`spComputeStringHash`), the value `getStringHash` gives in shaders.
pub fn string_hash(s: &str) -> u32 {
    slangpack_slang::com::string_hash(s)
}

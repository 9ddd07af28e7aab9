//! The write half of slangpack that needs no compiler: what a bake produced, as plain data,
//! into package bytes, and packages into one. The writer compiles with Slang and hands its
//! results here; `slangpack merge` uses this crate directly.
//!
//! * [`assemble`] — baked entries (code, reflection, dependencies) into package bytes.
//! * [`merge`] — sharded bakes joined into one package, byte for byte what one bake gives.
//! * [`merge_check`] — what a merge checks of its inputs (one plan, every slice complete).
//! * [`write_atomically`] — the one way slangpack writes a file: whole, or not at all.
//!
//! ```no_run
//! use slangpack_pack::assemble::{assemble, BakedEntry};
//!
//! let entries: Vec<BakedEntry> = Vec::new(); // what a bake produced
//! let bytes = assemble(&entries, true)?;
//! slangpack_pack::write_atomically("shaders.slangpack".as_ref(), &bytes)?;
//! # Ok::<(), slangpack_pack::PackError>(())
//! ```
#![deny(missing_docs)]

pub mod assemble;
mod atomic;
mod error;
pub mod merge;
pub mod merge_check;

pub use atomic::{write_atomically, Staged};
pub use error::PackError;

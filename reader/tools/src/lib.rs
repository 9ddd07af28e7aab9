//! Package tools that need no compiler: everything `slangpack` does besides `bake`, as a
//! library over the runtime reader. Nothing here links Slang, so a CI job that checks a
//! package for ABI breaks, or a build script that generates bind headers from a package,
//! builds only the format, the reader and this crate.
//!
//! * [`dump`] — a readable summary and the documented JSON document of a package (its JSON
//!   Schema: [`dump::JSON_SCHEMA`]).
//! * [`diff`] — binding and layout differences between two packages (an ABI-break check), as
//!   text or a JSON document ([`diff::JSON_SCHEMA`]).
//! * [`explore`] — a self-contained HTML page that draws a package (or two packages'
//!   differences): pipelines, buffers to scale, targets.
//! * [`header`] — Rust, C and C++ bind headers with compile-time layout checks.
//! * [`budget`] — the bound on what a tool makes of one package.
//! * [`shown`], [`quoted`] — the one way every tool shows a name, a file name or an error
//!   message to people: control characters and text-reordering characters as escapes
//!   (the reader's [`slangpack_reader::text`]).
//!
//! Writing packages (assembly, merges, atomic writes) is the `slangpack-pack` crate's.
//!
//! ```no_run
//! use slangpack_reader::Package;
//! use slangpack_tools::header::{generate, Language};
//!
//! let package = Package::open("shaders.slangpack")?;
//! let header = generate(&package, Language::C, None)?;
//! std::fs::write("shaders.h", header)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod budget;
pub mod diff;
pub mod dump;
mod error;
pub mod explore;
pub mod header;
mod text;

/// A generated JSON Schema as the committed `schema/*.schema.json` files hold it:
/// pretty-printed, ending in a newline.
fn schema_text(schema: schemars::Schema) -> String {
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

pub use error::ToolError;
pub use text::{quoted, shown};

//! slangpack's Slang front end: everything the writer calls in the Slang compiler that goes
//! through raw pointers, and so all of the writer's `unsafe` code, behind safe wrappers.
//!
//! * [`com`] — the COM calls `shader-slang` 0.1.0 lacks: loading a module from a string,
//!   composing and linking while keeping the diagnostics of calls that succeeded, type
//!   conformances, specialization, and Slang's string hash.
//! * [`reflection`] — null-checked, lifetime-bound wrappers over Slang's C reflection API,
//!   with enums crossed as raw integers.
//! * `process` (Linux) — the system calls a compile worker process makes to set itself up:
//!   its memory limit, dying with its parent, and a protocol stream apart from stdout.
//!
//! The crate is one dependency deep on purpose: nothing that only reads packages (the reader,
//! the package tools, the C ABI) links Slang.
//!
//! ```no_run
//! let hash = slangpack_slang::com::string_hash("gMaterial");
//! println!("{hash:#010x}");
//! ```
#![deny(missing_docs)]

pub mod com;
#[cfg(target_os = "linux")]
pub mod process;
pub mod reflection;

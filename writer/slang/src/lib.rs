//! slangpack's Slang front end: everything the writer calls in the Slang compiler that goes
//! through raw pointers, and so all of the writer's `unsafe` code, behind safe wrappers.
//!
//! * [`com`] — the COM calls `shader-slang` 0.1.0 lacks: loading a module from a string,
//!   composing and linking while keeping the diagnostics of calls that succeeded, type
//!   conformances, specialization, and Slang's string hash.
//! * [`reflection`] — null-checked, lifetime-bound wrappers over Slang's C reflection API,
//!   with enums crossed as raw integers.
//! * [`session`] — a compilation session as plain data (optimisation, layouts, bindings,
//!   targets) and the global session that makes it: the writer never names a `shader-slang`
//!   type.
//! * `process` (Linux) — the system calls a compile worker process makes to set itself up:
//!   its memory limit, dying with its parent, and a protocol stream apart from stdout.
//!
//! The crate is one dependency deep on purpose: nothing that only reads packages (the reader,
//! the package tools, the C ABI) links Slang, and no other crate of the workspace but the
//! benchmarks (which measure Slang's own reflection as a peer) names `shader-slang`.
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
pub mod session;

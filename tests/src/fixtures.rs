//! Fixtures the tests of several crates build packages with. The crates below this one (the
//! reader, the tools, the command line, the fuzz targets) include this file by `#[path]`, as
//! they do the walk, so that a field added to a description is given a value here once.

use slangpack_format::{EntryPointDesc, Stage};

/// An entry point `name` of `stage` whose code is the SPIR-V module `spirv` (an id from
/// `PackageBuilder::add_spirv`): SPIR-V entry name `main`, thread-group size 1×1×1, no wave
/// size, no reflection entry point. A test that needs another value says only that one:
/// `EntryPointDesc { wave_size: 32, ..entry_point("main", Stage::Compute, spirv) }`.
pub fn entry_point(name: &str, stage: Stage, spirv: u32) -> EntryPointDesc {
    EntryPointDesc {
        name: name.into(),
        spirv_entry_name: "main".into(),
        stage,
        thread_group_size: [1, 1, 1],
        wave_size: 0,
        spirv,
        reflection_entry_point: None,
    }
}

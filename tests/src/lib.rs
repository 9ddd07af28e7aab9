//! Integration tests live in `tests/`; this library holds their shared helpers: the Vulkan
//! harness ([`vk`]), the layout description the tests bind with ([`layout`]) and the
//! byte-for-byte binding proofs ([`proof`]), and the walk over every reader accessor that the
//! hostile-input tests and the fuzz targets share ([`walk`]), a counting allocator
//! ([`counting`]), and the fixtures the tests of several crates build packages with
//! ([`fixtures`]).

pub mod buildgrid;
pub mod checkout;
pub mod counting;
pub mod farm;
pub mod fixtures;
pub mod layout;
pub mod proof;
pub mod tools_walk;
pub mod vk;
pub mod walk;

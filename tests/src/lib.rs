//! Integration tests live in `tests/`; this library only holds shared helpers.

pub mod vk;

//! Hard limits a reader enforces before allocating or decompressing anything.
//!
//! A package that exceeds one of these is rejected with `LimitExceeded`. The builders refuse
//! to produce such packages. The limits are part of the format (SPEC.md, "Limits").

/// Largest package file, in bytes (4 GiB − 1): every in-section offset is a `u32`.
pub const MAX_FILE_SIZE: u64 = u32::MAX as u64;

/// Most sections in one package.
pub const MAX_SECTIONS: u32 = 1 << 20;

/// Largest raw (decompressed) size of one section, in bytes (256 MiB).
pub const MAX_SECTION_RAW_SIZE: u64 = 256 << 20;

/// Largest total of raw sizes a reader decompresses or copies for one package (1 GiB).
pub const MAX_TOTAL_OWNED_SIZE: u64 = 1 << 30;

/// Most sections one checksum run covers (2.3, SPEC.md 4.3 rule 3): the sections without a
/// checksum and the one after them that holds the run's.
pub const MAX_CHECKSUM_RUN_SECTIONS: u32 = 1024;

/// Most file bytes one checksum run spans, from its first section's offset to its last
/// section's end (1 MiB): what the first touch of any of its sections hashes.
pub const MAX_CHECKSUM_RUN_SIZE: u64 = 1 << 20;

/// Most sections one module run holds (2.7, SPEC.md 5.6.2): the modules stored
/// [`crate::Compression::InModuleRun`] and the one after them whose frame holds them all.
pub const MAX_MODULE_RUN_SECTIONS: u32 = 256;

/// Most bytes the frame of one module run may decompress to (4 MiB): the sum of
/// [`crate::packed_spirv_bound`] of its modules' raw sizes, checked before anything of it is
/// decompressed.
pub const MAX_MODULE_RUN_PACKED: u64 = 4 << 20;

/// Most sections one bind-view run holds (2.8, SPEC.md 6.1.1): the blobs stored
/// [`crate::Compression::InBindRun`] and the one after them whose frame holds their bind views.
pub const MAX_BIND_RUN_SECTIONS: u32 = 256;

/// Most bytes the frame of one bind-view run may declare (1 MiB), checked before anything of
/// it is decompressed.
pub const MAX_BIND_RUN_SIZE: u64 = 1 << 20;

/// Most tables in one reflection blob's table directory.
pub const MAX_TABLES: u32 = 256;

/// Largest file header a reader accepts (`header_size`), in bytes.
pub const MAX_HEADER_SIZE: u32 = 4096;

/// Largest record stride a reader accepts for any table, in bytes.
pub const MAX_RECORD_STRIDE: u32 = 4096;

/// Largest length of one string, in bytes (16 MiB).
pub const MAX_STRING_LEN: u32 = 16 << 20;

/// Validation checks each pool slice of indices a record names; the words so checked in one
/// reflection blob may total at most this factor times the pool's length (plus
/// [`POOL_CHECK_ALLOWANCE`]), which keeps opening linear in the blob's size. Writers name
/// each slice a few times at most.
pub const POOL_CHECK_FACTOR: u64 = 16;

/// Pool words any blob may index-check beyond [`POOL_CHECK_FACTOR`] times its pool.
pub const POOL_CHECK_ALLOWANCE: u64 = 1 << 16;

/// Deepest nesting of a parent/child tree: buffer members (top-level members are at depth 1)
/// and decls (the root is at depth 1). Slang's programs nest a few levels; a chain of parents
/// longer than this, or a cycle, is refused (`LimitExceeded`), so walks over these trees may
/// recurse.
pub const MAX_NESTING_DEPTH: u32 = 64;

/// Most entry points one program (one entry of a package) may have: the width of the
/// entry-point masks of descriptor bindings and push-constant ranges (also
/// `bind::MAX_ENTRY_POINTS`).
pub const MAX_ENTRY_POINTS: u32 = 32;

/// Farthest a used slot of a baked name index may sit past its home slot (`hash & (len - 1)`),
/// in slots. A lookup's linear probe then finds a name within this many steps past its home,
/// or knows it is absent. A table at most half full of xxh3-64 keys stays far below it: a
/// writer's index of a million names (2^21 slots, 48% full) displaces none by more than 36.
/// Writers grow the table rather than exceed it; readers refuse an index that does.
pub const MAX_NAME_INDEX_PROBE: u32 = 256;

/// Largest size and stride of a buffer layout, of a further target's buffer layout and of a
/// Metal argument buffer, in bytes (256 MiB): a reader hands out zeroed buffers of a layout's
/// size, and generated headers declare structs of it.
pub const MAX_BUFFER_SIZE: u32 = 256 << 20;

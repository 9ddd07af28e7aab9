//! Where a package's bytes live, and locations into them.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// The package bytes: a read-only mapping, an owned 8-aligned copy, or borrowed 8-aligned
/// bytes that outlive the package.
#[derive(Debug)]
pub(crate) enum Storage {
    /// A read-only memory mapping of the package file.
    Mapped(memmap2::Mmap),
    /// Bytes the caller keeps alive (and unchanged) for as long as the program runs; checked
    /// to be 8-aligned before use.
    Static(&'static [u8]),
    /// An owned copy; `words` is 8-aligned and holds `len` meaningful bytes.
    Owned { words: Box<[u64]>, len: usize },
}

impl Storage {
    /// Copies `bytes` into an 8-aligned owned buffer.
    pub(crate) fn copy_of(bytes: &[u8]) -> Self {
        let mut words = vec![0u64; bytes.len().div_ceil(8)].into_boxed_slice();
        if let Some(dst) = words.as_mut_bytes().get_mut(..bytes.len()) {
            dst.copy_from_slice(bytes);
        }
        Self::Owned {
            words,
            len: bytes.len(),
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Self::Mapped(map) => map,
            Self::Static(bytes) => bytes,
            Self::Owned { words, len } => words.as_bytes().get(..*len).unwrap_or(&[]),
        }
    }
}

/// A byte range in the package storage or in one owned chunk (decompressed or repacked data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loc {
    /// `start..end` of the package bytes.
    File { start: usize, end: usize },
    /// `start..end` of chunk `chunk`.
    Chunk {
        chunk: usize,
        start: usize,
        end: usize,
    },
}

impl Loc {
    pub(crate) const EMPTY: Loc = Loc::File { start: 0, end: 0 };

    pub(crate) fn len(self) -> usize {
        match self {
            Loc::File { start, end } | Loc::Chunk { start, end, .. } => end.saturating_sub(start),
        }
    }

    /// The sub-range `offset..offset + len` of this location (caller checked bounds).
    pub(crate) fn sub(self, offset: usize, len: usize) -> Loc {
        match self {
            Loc::File { start, .. } => Loc::File {
                start: start + offset,
                end: start + offset + len,
            },
            Loc::Chunk { chunk, start, .. } => Loc::Chunk {
                chunk,
                start: start + offset,
                end: start + offset + len,
            },
        }
    }
}

/// Resolves a location; out-of-range locations (never produced after validation) give `&[]`.
pub(crate) fn resolve<'a>(file: &'a [u8], chunks: &'a [Box<[u64]>], loc: Loc) -> &'a [u8] {
    match loc {
        Loc::File { start, end } => file.get(start..end).unwrap_or(&[]),
        Loc::Chunk { chunk, start, end } => chunks
            .get(chunk)
            .and_then(|c| c.as_bytes().get(start..end))
            .unwrap_or(&[]),
    }
}

/// Views validated bytes as a table; bytes that do not fit (never after validation) give `&[]`.
pub(crate) fn cast<T: FromBytes + KnownLayout + Immutable>(bytes: &[u8]) -> &[T] {
    <[T]>::ref_from_bytes(bytes).unwrap_or(&[])
}

//! Where a package's bytes live, where a loaded section's bytes live, and typed views of them.

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
    /// Maps `file` read-only: the reader's one `unsafe`.
    ///
    /// # Errors
    /// The operating system's, when the file cannot be mapped.
    pub(crate) fn map(file: &std::fs::File) -> std::io::Result<Self> {
        #[allow(
            unsafe_code,
            reason = "memory-mapping a file is unsafe; the one such call"
        )]
        // SAFETY: `Mmap::map` is unsafe because the mapped file may be modified or truncated
        // by another process while mapped, which would change bytes this reader already
        // validated (or raise SIGBUS on truncation). Nothing in Rust can prevent that; we
        // require, as documented on `Package::open` and in the threat model
        // (docs/threat-model.md), that package files are replaced by writing a new file and
        // renaming it over the old one (what the slangpack writer does), never modified in
        // place. The mapping is read-only and private to the `Package` that holds it.
        let map = unsafe { memmap2::Mmap::map(file) }?;
        Ok(Self::Mapped(map))
    }

    /// Copies `bytes` into an 8-aligned owned buffer, in one pass (no zeroing first): a
    /// `memcpy` when `bytes` is itself 8-aligned (what `std::fs::read` and most allocators
    /// give), else word by word.
    pub(crate) fn copy_of(bytes: &[u8]) -> Self {
        let (whole, rest) = bytes.split_at(bytes.len() / 8 * 8);
        let mut words: Vec<u64> = Vec::with_capacity(bytes.len().div_ceil(8));
        match <[u64]>::ref_from_bytes(whole) {
            Ok(aligned) => words.extend_from_slice(aligned),
            Err(_) => words.extend(
                whole
                    .chunks_exact(8)
                    .map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8]))),
            ),
        }
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            if let Some(dst) = last.get_mut(..rest.len()) {
                dst.copy_from_slice(rest);
            }
            words.push(u64::from_ne_bytes(last));
        }
        Self::Owned {
            words: words.into_boxed_slice(),
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

/// A zeroed 8-aligned buffer of `len` bytes, its first `len` bytes filled by `fill`.
pub(crate) fn owned_words(len: usize, fill: impl FnOnce(&mut [u8])) -> Box<[u64]> {
    let mut words = vec![0u64; len.div_ceil(8)].into_boxed_slice();
    if let Some(dst) = words.as_mut_bytes().get_mut(..len) {
        fill(dst);
    }
    words
}

/// The bytes of a section or table once checked: a range of the package bytes (stored
/// uncompressed, viewed in place) or an owned 8-aligned buffer (decompressed or repacked).
#[derive(Debug)]
pub(crate) enum Bytes {
    /// `start..end` of the package bytes.
    File { start: usize, end: usize },
    /// `len` bytes at the start of `words`.
    Owned { words: Box<[u64]>, len: usize },
}

impl Bytes {
    /// No bytes.
    pub(crate) const EMPTY: Bytes = Bytes::File { start: 0, end: 0 };

    /// The bytes, given the package's bytes; out-of-range (never after validation) gives `&[]`.
    #[inline]
    pub(crate) fn get<'a>(&'a self, file: &'a [u8]) -> &'a [u8] {
        match self {
            Bytes::File { start, end } => file.get(*start..*end).unwrap_or(&[]),
            Bytes::Owned { words, len } => words.as_bytes().get(..*len).unwrap_or(&[]),
        }
    }

    /// Number of bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Bytes::File { start, end } => end.saturating_sub(*start),
            Bytes::Owned { len, .. } => *len,
        }
    }
}

/// Views validated bytes as a table; bytes that do not fit (never after validation) give `&[]`.
#[inline]
pub(crate) fn cast<T: FromBytes + KnownLayout + Immutable>(bytes: &[u8]) -> &[T] {
    <[T]>::ref_from_bytes(bytes).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::Storage;

    /// `copy_of` gives the same bytes whether its input is 8-aligned (the `memcpy` path) or
    /// not (word by word), for every length up to two words past a whole number of words.
    #[test]
    fn copy_of_is_the_bytes_aligned_or_not() {
        let words: Vec<u64> = (0..8u64)
            .map(|i| i.wrapping_mul(0x0123_4567_89ab_cdef))
            .collect();
        let all = zerocopy::IntoBytes::as_bytes(words.as_slice());
        for start in 0..8 {
            for len in 0..=all.len() - start {
                let bytes = &all[start..start + len];
                let copy = Storage::copy_of(bytes);
                assert_eq!(copy.bytes(), bytes, "start {start}, length {len}");
                let Storage::Owned { words, .. } = &copy else {
                    panic!("copy_of gives an owned copy");
                };
                assert_eq!(words.as_ptr() as usize % 8, 0);
                assert_eq!(words.len(), len.div_ceil(8));
            }
        }
    }
}

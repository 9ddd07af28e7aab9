//! Where a package's bytes live, where a loaded section's bytes live, and typed views of them.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// The package bytes: a read-only mapping, an owned 8-aligned copy, or borrowed 8-aligned
/// bytes that outlive the package.
#[derive(Debug)]
pub(crate) enum Storage {
    /// A read-only memory mapping of the package file, and the file (read through, rather
    /// than through the mapping, where the bytes are needed once: [`Storage::read_window`]).
    Mapped {
        map: memmap2::Mmap,
        file: std::fs::File,
    },
    /// Bytes the caller keeps alive (and unchanged) for as long as the program runs; checked
    /// to be 8-aligned before use.
    Static(&'static [u8]),
    /// An owned copy; `words` is 8-aligned and holds `len` meaningful bytes.
    Owned { words: Box<[u64]>, len: usize },
    /// The bytes of a paged package (3.0, SPEC.md 4.5), which the package and each of its
    /// pages read: every page views the whole file, as its sections' offsets are the file's.
    Shared(std::sync::Arc<Storage>),
}

/// `O_NONBLOCK` of `open(2)` on this platform (the value of the C headers, which `std` does
/// not export), or 0 where it is not known here. With it, opening a FIFO returns at once
/// instead of waiting for a writer to open the other end, so that [`open_regular_file`]'s
/// `fstat` gets to refuse it; it changes nothing for a regular file, whose reads never block.
#[cfg(unix)]
const O_NONBLOCK: i32 = if cfg!(any(target_os = "linux", target_os = "android")) {
    if cfg!(any(
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "mips32r6",
        target_arch = "mips64r6"
    )) {
        0x80
    } else if cfg!(any(target_arch = "sparc", target_arch = "sparc64")) {
        0x4000
    } else {
        0o4000
    }
} else if cfg!(any(
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
)) {
    0x4
} else if cfg!(any(target_os = "solaris", target_os = "illumos")) {
    0x80
} else {
    0
};

/// Opens `path` for reading if it is a regular file, and returns it with its metadata (from
/// the open file: `fstat`, so that what is checked is what is read).
///
/// What is not a regular file is refused before anything is read from it: a device
/// (`/dev/zero` reads forever), a directory, a socket, and a FIFO, which a plain `open`
/// would block on until some process opened it for writing (forever, for a FIFO renamed over
/// a package a [`crate::Reloader`] watches). On unix the file is opened with `O_NONBLOCK`, so
/// the open itself returns at once whatever the path names; where this module does not know
/// that flag's value, the path is checked with `stat` first (a FIFO swapped in between the
/// two steps could still block there). The writer opens every file an untrusted source names
/// (a cache's dependency lists) this way too.
///
/// # Errors
/// [`crate::ErrorKind::Io`] when the path cannot be opened or is not a regular file.
pub fn open_regular_file(
    path: &std::path::Path,
) -> crate::error::Result<(std::fs::File, std::fs::Metadata)> {
    let cannot = |what: &str, e: std::io::Error| {
        crate::error::Error::io(format!("cannot {what} {}", path.display()), e)
    };
    let refuse = |metadata: &std::fs::Metadata| -> crate::error::Result<()> {
        if metadata.is_file() {
            return Ok(());
        }
        let what = file_kind(&metadata.file_type());
        Err(crate::error::Error::new(
            crate::ErrorKind::Io,
            0,
            format!("{} is {what}, not a regular file", path.display()),
        ))
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        if O_NONBLOCK == 0 {
            refuse(&std::fs::metadata(path).map_err(|e| cannot("stat", e))?)?;
        }
        options.custom_flags(O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| cannot("open", e))?;
    let metadata = file.metadata().map_err(|e| cannot("stat", e))?;
    refuse(&metadata)?;
    Ok((file, metadata))
}

/// What a file that is not a regular file is, in words ("a FIFO", "a directory", ...).
fn file_kind(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else {
        "neither a regular file nor a directory"
    }
}

impl Storage {
    /// Maps `file` read-only: the reader's one `unsafe`.
    ///
    /// # Errors
    /// The operating system's, when the file cannot be mapped.
    pub(crate) fn map(file: std::fs::File) -> std::io::Result<Self> {
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
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        Ok(Self::Mapped { map, file })
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
            Self::Mapped { map, .. } => map,
            Self::Static(bytes) => bytes,
            Self::Owned { words, len } => words.as_bytes().get(..*len).unwrap_or(&[]),
            Self::Shared(whole) => whole.bytes(),
        }
    }

    /// Whether the bytes are a mapping of the package file.
    pub(crate) fn is_mapped(&self) -> bool {
        match self {
            Self::Mapped { .. } => true,
            Self::Shared(whole) => whole.is_mapped(),
            Self::Static(_) | Self::Owned { .. } => false,
        }
    }
}

impl Storage {
    /// The xxh3-64 of the package bytes `start..start + len`, which lie within the package:
    /// read through `window` when the package is mapped and one is given (see
    /// [`Storage::read_window`]), else hashed in place.
    pub(crate) fn xxh3_of(&self, start: u64, len: u64, window: Option<&mut ReadWindow>) -> u64 {
        let bytes = self.bytes();
        let in_place = || {
            let from = usize::try_from(start).unwrap_or(usize::MAX);
            let to = from.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
            xxhash_rust::xxh3::xxh3_64(bytes.get(from..to).unwrap_or(&[]))
        };
        match (self, window) {
            (Self::Mapped { file, .. }, Some(window)) => {
                window.xxh3_of(file, start, len).unwrap_or_else(in_place)
            }
            (Self::Shared(whole), window) => whole.xxh3_of(start, len, window),
            _ => in_place(),
        }
    }

    /// A window for [`Storage::xxh3_of`] when the package is mapped: bytes needed once (every
    /// section's checksum, [`crate::Package::check_checksums`]) are then read from the file
    /// into one reused buffer rather than faulted in through the mapping, so checking a
    /// package leaves its pages out of the process's resident memory (the page cache holds
    /// them either way). `None` for a package in memory.
    pub(crate) fn read_window(&self) -> Option<ReadWindow> {
        self.is_mapped()
            .then(|| ReadWindow::new(self.bytes().len()))
    }
}

/// The buffer [`Storage::xxh3_of`] reads a mapped package's file into: `READ_WINDOW` bytes
/// from file offset `start`, `len` of them valid. Sections in ascending offset order (what a
/// writer lays out) are read in one sequential pass of large reads.
#[derive(Debug)]
pub(crate) struct ReadWindow {
    buffer: Vec<u8>,
    start: u64,
    len: usize,
}

/// Size of a [`ReadWindow`]'s buffer: large enough that a read costs little beside the copy
/// it makes, small beside the packages it saves from being resident.
const READ_WINDOW: usize = 1 << 16;

impl ReadWindow {
    fn new(file_len: usize) -> Self {
        ReadWindow {
            buffer: vec![0; READ_WINDOW.min(file_len)],
            start: 0,
            len: 0,
        }
    }

    /// The xxh3-64 of `file`'s bytes `start..start + len`, read through the window; `None`
    /// when a read fails or the file ends first (the caller then hashes the mapping, which
    /// sees what the file holds).
    fn xxh3_of(&mut self, file: &std::fs::File, start: u64, len: u64) -> Option<u64> {
        use std::os::unix::fs::FileExt;
        let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
        let end = start.checked_add(len)?;
        let mut at = start;
        while at < end {
            let window_end = self.start + self.len as u64;
            if at < self.start || at >= window_end {
                // Refill from `at`: as much as the buffer holds, to the end of the file.
                let mut filled = 0;
                while filled < self.buffer.len() {
                    match file.read_at(self.buffer.get_mut(filled..)?, at + filled as u64) {
                        Ok(0) => break,
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => {
                            self.len = 0;
                            return None;
                        }
                    }
                }
                self.start = at;
                self.len = filled;
                if filled == 0 {
                    return None;
                }
                continue;
            }
            let from = usize::try_from(at - self.start).ok()?;
            let take = (end.min(window_end) - at) as usize;
            hasher.update(self.buffer.get(from..from + take)?);
            at += take as u64;
        }
        Some(hasher.digest())
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
/// uncompressed, viewed in place), an owned 8-aligned buffer (decompressed or repacked), or a
/// range of a buffer several of them share (the decompressed compressed index, whose
/// directory and container sections are viewed where they lie in it).
#[derive(Debug)]
pub(crate) enum Bytes {
    /// `start..end` of the package bytes.
    File { start: usize, end: usize },
    /// `len` bytes at the start of `words`.
    Owned { words: Box<[u64]>, len: usize },
    /// `start..end` of `words`' bytes; `start` is 4-aligned (every container record and
    /// string reference is made of `u32` fields).
    Shared {
        words: std::sync::Arc<Box<[u64]>>,
        start: usize,
        end: usize,
    },
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
            Bytes::Shared { words, start, end } => {
                words.as_bytes().get(*start..*end).unwrap_or(&[])
            }
        }
    }

    /// Number of bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Bytes::File { start, end } => end.saturating_sub(*start),
            Bytes::Owned { len, .. } => *len,
            Bytes::Shared { start, end, .. } => end.saturating_sub(*start),
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

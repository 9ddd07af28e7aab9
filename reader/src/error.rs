//! The one error type of the reader.

use std::fmt;

/// What went wrong, one variant per check the reader makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be opened, measured or mapped.
    Io,
    /// The host is big-endian; packages are little-endian and this reader views them in place.
    BigEndianHost,
    /// The bytes end before a structure the format requires.
    Truncated,
    /// The file (or a reflection blob) does not start with the expected magic bytes.
    BadMagic,
    /// The major version is newer (or older) than this reader supports.
    UnsupportedVersion,
    /// The endianness tag is not `0x0A0B0C0D` read little-endian.
    BadEndianTag,
    /// A header field is inconsistent (header size, record size, file size).
    BadHeader,
    /// A declared size or count exceeds a hard limit (`slangpack_format::limits`).
    LimitExceeded,
    /// A section, table or directory lies (partly) outside its container.
    OutOfBounds,
    /// An offset is not a multiple of the required alignment.
    Misaligned,
    /// Two sections, or a section and the header or directory, overlap.
    Overlap,
    /// A byte between sections is not zero.
    NonZeroPadding,
    /// An xxh3 checksum does not match the bytes it covers.
    ChecksumMismatch,
    /// A section uses a compression this reader does not know.
    UnsupportedCompression,
    /// zstd could not decompress a section.
    Decompress,
    /// A size does not match: raw vs stored, count × stride vs raw, decompressed vs declared.
    SizeMismatch,
    /// A record stride is smaller than the record this version defines, or unaligned.
    BadStride,
    /// A section or table kind that may appear once appears twice.
    Duplicate,
    /// A required section is missing.
    MissingSection,
    /// A string pool is malformed, or a string's bytes are not valid UTF-8.
    BadString,
    /// An index field is neither in range nor absent (`u32::MAX`), or a range or pool slice
    /// does not fit its table.
    IndexOutOfRange,
    /// Entries are not strictly sorted by key, or the key index does not match the entries.
    BadKeyIndex,
    /// No entry has the key (or index) asked for ([`crate::Package::load`]).
    NotFound,
    /// A field holds a value the format does not allow there: a register class outside the
    /// classes of its target, a count above its bound, a member whose parent does not come
    /// before it in its buffer layout.
    BadValue,
}

/// A package failed validation (or could not be opened).
///
/// Carries the [`ErrorKind`], the byte offset where the problem was found, and a message saying
/// what was expected. The offset is a file offset, except inside a decompressed section, where
/// it is relative to that section's decompressed bytes (the message names the section).
/// Displays as e.g. `section 3 checksum mismatch (at offset 0x1a0)`; an I/O error as its
/// message and the operating system's reason (`cannot open x.slangpack: No such file or
/// directory (os error 2)`), without an offset.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    offset: u64,
    message: Box<str>,
    source: Option<std::io::Error>,
}

impl Error {
    /// An error of `kind` at `offset`, described by `message`.
    #[cold]
    #[must_use]
    pub fn new(kind: ErrorKind, offset: u64, message: impl Into<Box<str>>) -> Self {
        Self {
            kind,
            offset,
            message: message.into(),
            source: None,
        }
    }

    #[cold]
    pub(crate) fn io(message: String, source: std::io::Error) -> Self {
        Self {
            kind: ErrorKind::Io,
            offset: 0,
            message: message.into(),
            source: Some(source),
        }
    }

    /// A copy of a validation error (kind, offset, message); the I/O source, which validation
    /// errors never have, is not copied.
    #[cold]
    pub(crate) fn duplicate(&self) -> Self {
        Self::new(self.kind, self.offset, self.message.clone())
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Where (see the type's documentation).
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// What was expected, without the offset.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.source, self.kind) {
            // The operating system's reason; a byte offset means nothing before any byte.
            (Some(source), _) => write!(f, "{}: {source}", self.message),
            (None, ErrorKind::Io) => f.write_str(&self.message),
            _ => write!(f, "{} (at offset {:#x})", self.message, self.offset),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}

/// `Result` with the reader's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Shorthand constructor used by the validators.
#[cold]
pub(crate) fn err(kind: ErrorKind, offset: u64, message: impl Into<Box<str>>) -> Error {
    Error::new(kind, offset, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_shows_the_reason_and_no_offset() {
        let e = crate::Package::open("/nonexistent/dir/x.slangpack").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io);
        let text = e.to_string();
        assert!(text.contains("No such file or directory"), "{text}");
        assert!(!text.contains("offset"), "{text}");
    }

    #[test]
    fn display_has_offset_in_hex() {
        let e = err(
            ErrorKind::ChecksumMismatch,
            0x1a0,
            "section 3 checksum mismatch",
        );
        assert_eq!(
            e.to_string(),
            "section 3 checksum mismatch (at offset 0x1a0)"
        );
        assert_eq!(e.kind(), ErrorKind::ChecksumMismatch);
    }
}

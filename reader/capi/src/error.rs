//! Errors across the boundary: [`SlangpackErrorKind`], [`SlangpackError`], and [`guard`], which
//! keeps panics from unwinding into C.

use core::ffi::c_char;
use slangpack_reader::{Error, ErrorKind};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Capacity of [`SlangpackError::message`] in bytes, its terminating NUL included.
pub const SLANGPACK_ERROR_MESSAGE_CAPACITY: usize = 256;

/// What a fallible function reports: `SLANGPACK_ERROR_KIND_OK` (0) on success, else the
/// reader's error kind (one per check it makes) or one of the kinds of the C boundary itself
/// (`INVALID_ARGUMENT`, `NOT_FOUND`, `PANIC`). Values are stable; new kinds are appended.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlangpackErrorKind {
    /// Success.
    Ok = 0,
    /// The file could not be opened, measured or mapped.
    Io = 1,
    /// The host is big-endian; packages are little-endian and are viewed in place.
    BigEndianHost = 2,
    /// The bytes end before a structure the format requires.
    Truncated = 3,
    /// The file (or a reflection blob) does not start with the expected magic bytes.
    BadMagic = 4,
    /// The major version is not the one this library reads.
    UnsupportedVersion = 5,
    /// The endianness tag is wrong.
    BadEndianTag = 6,
    /// A header field is inconsistent (header size, record size, file size).
    BadHeader = 7,
    /// A declared size or count exceeds a hard limit.
    LimitExceeded = 8,
    /// A section, table or directory lies (partly) outside its container.
    OutOfBounds = 9,
    /// An offset (or borrowed memory) is not aligned as required.
    Misaligned = 10,
    /// Two sections, or a section and the header or directory, overlap.
    Overlap = 11,
    /// A byte between sections is not zero.
    NonZeroPadding = 12,
    /// An xxh3 checksum does not match the bytes it covers.
    ChecksumMismatch = 13,
    /// A section uses a compression this library does not know.
    UnsupportedCompression = 14,
    /// zstd could not decompress a section.
    Decompress = 15,
    /// A size does not match another.
    SizeMismatch = 16,
    /// A record stride is too small or unaligned.
    BadStride = 17,
    /// A section or table that may appear once appears twice.
    Duplicate = 18,
    /// A required section is missing.
    MissingSection = 19,
    /// A string pool is malformed, or a string is not valid UTF-8.
    BadString = 20,
    /// An index, range or pool slice is out of range.
    IndexOutOfRange = 21,
    /// Entries are not sorted by key, or the key index does not match them.
    BadKeyIndex = 22,
    /// A field holds a value the format does not allow there (a register class outside its
    /// target's, a count above its bound, a member's parent not before it).
    BadValue = 23,
    /// A reader error of a kind this version of the C ABI does not name (the reader is newer).
    Other = 100,
    /// A required pointer argument was NULL, or a name was not UTF-8.
    InvalidArgument = 101,
    /// No entry has that key (or index).
    NotFound = 102,
    /// The library panicked (a bug): the panic was caught at the boundary and the call failed.
    Panic = 103,
    /// The stages asked for make no pipeline: two push-constant blocks disagree on shared
    /// bytes, or two resources share a set and binding (the message names both).
    PipelineConflict = 104,
}

impl From<ErrorKind> for SlangpackErrorKind {
    fn from(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::Io => Self::Io,
            ErrorKind::BigEndianHost => Self::BigEndianHost,
            ErrorKind::Truncated => Self::Truncated,
            ErrorKind::BadMagic => Self::BadMagic,
            ErrorKind::UnsupportedVersion => Self::UnsupportedVersion,
            ErrorKind::BadEndianTag => Self::BadEndianTag,
            ErrorKind::BadHeader => Self::BadHeader,
            ErrorKind::LimitExceeded => Self::LimitExceeded,
            ErrorKind::OutOfBounds => Self::OutOfBounds,
            ErrorKind::Misaligned => Self::Misaligned,
            ErrorKind::Overlap => Self::Overlap,
            ErrorKind::NonZeroPadding => Self::NonZeroPadding,
            ErrorKind::ChecksumMismatch => Self::ChecksumMismatch,
            ErrorKind::UnsupportedCompression => Self::UnsupportedCompression,
            ErrorKind::Decompress => Self::Decompress,
            ErrorKind::SizeMismatch => Self::SizeMismatch,
            ErrorKind::BadStride => Self::BadStride,
            ErrorKind::Duplicate => Self::Duplicate,
            ErrorKind::MissingSection => Self::MissingSection,
            ErrorKind::BadString => Self::BadString,
            ErrorKind::IndexOutOfRange => Self::IndexOutOfRange,
            ErrorKind::BadKeyIndex => Self::BadKeyIndex,
            ErrorKind::NotFound => Self::NotFound,
            ErrorKind::BadValue => Self::BadValue,
            _ => Self::Other,
        }
    }
}

/// A failure, written into caller-provided memory: nothing to free, no global state.
///
/// `message` is UTF-8, NUL-terminated, `message_len` bytes long (without the NUL), and cut at
/// a character boundary when longer than the capacity. On success a function leaves the
/// struct untouched.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SlangpackError {
    /// What went wrong.
    pub kind: SlangpackErrorKind,
    /// Reserved, written 0.
    pub reserved: u32,
    /// Byte offset in the package where the check failed: a file offset, or an offset into a
    /// decompressed section when the message names one; 0 when it does not apply.
    pub offset: u64,
    /// Length of `message` in bytes, without the terminating NUL.
    pub message_len: usize,
    /// What was expected (UTF-8, NUL-terminated).
    pub message: [c_char; SLANGPACK_ERROR_MESSAGE_CAPACITY],
}

/// A failure on its way to the caller: the kind, the offset and the message parts.
pub(crate) struct Failure<'a> {
    pub(crate) kind: SlangpackErrorKind,
    pub(crate) offset: u64,
    pub(crate) message: [&'a str; 2],
}

impl<'a> Failure<'a> {
    pub(crate) fn new(kind: SlangpackErrorKind, message: &'a str) -> Self {
        Self {
            kind,
            offset: 0,
            message: [message, ""],
        }
    }

    pub(crate) fn from_reader(error: &'a Error) -> Self {
        Self {
            kind: error.kind().into(),
            offset: error.offset(),
            message: [error.message(), ""],
        }
    }
}

/// Where a function reports its failure: the caller's `SlangpackError *`, or nowhere (NULL).
#[derive(Clone, Copy)]
pub(crate) struct ErrorOut(*mut SlangpackError);

impl ErrorOut {
    /// # Safety
    /// `out` is NULL or valid for writing one `SlangpackError` for the duration of the call.
    pub(crate) unsafe fn new(out: *mut SlangpackError) -> Self {
        Self(out)
    }

    /// Writes `failure` (when there is somewhere to write it) without allocating, and returns
    /// its kind.
    pub(crate) fn fail(self, failure: &Failure<'_>) -> SlangpackErrorKind {
        if !self.0.is_null() {
            let mut message = [0 as c_char; SLANGPACK_ERROR_MESSAGE_CAPACITY];
            let mut len = 0;
            for part in failure.message {
                let room = SLANGPACK_ERROR_MESSAGE_CAPACITY - 1 - len;
                let mut take = part.len().min(room);
                while !part.is_char_boundary(take) {
                    take -= 1;
                }
                for (dst, &b) in message[len..].iter_mut().zip(&part.as_bytes()[..take]) {
                    *dst = b as c_char;
                }
                len += take;
            }
            let error = SlangpackError {
                kind: failure.kind,
                reserved: 0,
                offset: failure.offset,
                message_len: len,
                message,
            };
            // SAFETY: `ErrorOut::new`'s caller guaranteed that a non-NULL pointer is valid for
            // writing one `SlangpackError`; `write` neither reads nor drops the old value.
            unsafe { self.0.write(error) };
        }
        failure.kind
    }

    /// Reports a reader error.
    pub(crate) fn reader(self, error: &Error) -> SlangpackErrorKind {
        self.fail(&Failure::from_reader(error))
    }

    /// Reports a failure of the C boundary itself (no offset).
    pub(crate) fn boundary(self, kind: SlangpackErrorKind, message: &str) -> SlangpackErrorKind {
        self.fail(&Failure::new(kind, message))
    }

    /// Runs `body`, turning a panic into a `SLANGPACK_ERROR_KIND_PANIC` failure: nothing
    /// unwinds into C.
    pub(crate) fn guard(self, body: impl FnOnce() -> SlangpackErrorKind) -> SlangpackErrorKind {
        match catch_unwind(AssertUnwindSafe(body)) {
            Ok(kind) => kind,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("(no message)");
                self.fail(&Failure {
                    kind: SlangpackErrorKind::Panic,
                    offset: 0,
                    message: ["slangpack panicked (a bug, please report it): ", what],
                })
            }
        }
    }
}

/// Runs an infallible accessor, giving `fallback` if it panics (it cannot: accessors read data
/// validated at open through checked indexing). Nothing unwinds into C.
pub(crate) fn shield<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(e: &SlangpackError) -> &str {
        let bytes: Vec<u8> = e.message[..e.message_len]
            .iter()
            .map(|&c| c as u8)
            .collect();
        assert_eq!(e.message[e.message_len], 0, "NUL-terminated");
        Box::leak(String::from_utf8(bytes).unwrap().into_boxed_str())
    }

    #[test]
    fn a_panic_is_reported_not_unwound() {
        let mut e = core::mem::MaybeUninit::<SlangpackError>::uninit();
        // SAFETY: `e` is valid for writing one error.
        let out = unsafe { ErrorOut::new(e.as_mut_ptr()) };
        let kind = out.guard(|| panic!("boom"));
        assert_eq!(kind, SlangpackErrorKind::Panic);
        // SAFETY: `guard` reported the failure, so `e` was written.
        let e = unsafe { e.assume_init() };
        assert_eq!(e.kind, SlangpackErrorKind::Panic);
        assert!(message(&e).ends_with(": boom"), "{}", message(&e));
        assert_eq!(shield(7, || panic!("boom")), 7);
    }

    #[test]
    fn long_messages_are_cut_at_a_character_boundary() {
        let mut e = core::mem::MaybeUninit::<SlangpackError>::uninit();
        // SAFETY: `e` is valid for writing one error.
        let out = unsafe { ErrorOut::new(e.as_mut_ptr()) };
        let long = "é".repeat(300);
        out.boundary(SlangpackErrorKind::InvalidArgument, &long);
        // SAFETY: written by `boundary`.
        let e = unsafe { e.assume_init() };
        assert_eq!(
            e.message_len, 254,
            "127 two-byte characters fit in 255 bytes"
        );
        assert_eq!(message(&e), "é".repeat(127));
    }

    #[test]
    fn every_reader_kind_has_its_own_value() {
        // The C values are the reader's kinds in declaration order, starting at 1.
        let kinds = [
            ErrorKind::Io,
            ErrorKind::BigEndianHost,
            ErrorKind::Truncated,
            ErrorKind::BadMagic,
            ErrorKind::UnsupportedVersion,
            ErrorKind::BadEndianTag,
            ErrorKind::BadHeader,
            ErrorKind::LimitExceeded,
            ErrorKind::OutOfBounds,
            ErrorKind::Misaligned,
            ErrorKind::Overlap,
            ErrorKind::NonZeroPadding,
            ErrorKind::ChecksumMismatch,
            ErrorKind::UnsupportedCompression,
            ErrorKind::Decompress,
            ErrorKind::SizeMismatch,
            ErrorKind::BadStride,
            ErrorKind::Duplicate,
            ErrorKind::MissingSection,
            ErrorKind::BadString,
            ErrorKind::IndexOutOfRange,
            ErrorKind::BadKeyIndex,
            // (`NotFound`, declared between them, is the C boundary's own 102.)
            ErrorKind::BadValue,
        ];
        for (i, kind) in kinds.into_iter().enumerate() {
            assert_eq!(
                SlangpackErrorKind::from(kind) as u32,
                i as u32 + 1,
                "{kind:?}"
            );
        }
    }
}

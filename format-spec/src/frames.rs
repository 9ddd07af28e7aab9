//! Bare zstd frames (2.4, SPEC.md 4.2): with [`crate::FLAG_BARE_FRAMES`] a package stores
//! each zstd frame of its sections without the 4-byte `Magic_Number` that opens every frame of
//! RFC 8878 (zstd's "magicless" format). Here: where a bare frame ends and what size it
//! declares, read from its header and block headers alone, and the two conversions between
//! sections of bare frames and of whole ones.

/// The `Magic_Number` that opens a whole zstd frame (RFC 8878 3.1.1), little-endian
/// `0xFD2FB528`.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Where a bare frame ends and the content size its header declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BareFrame {
    /// The frame's length in bytes: header, blocks and content checksum.
    pub len: usize,
    /// `Frame_Content_Size`, when the header has the field.
    pub content_size: Option<u64>,
}

/// The bare frame at the start of `bytes` (RFC 8878 3.1.1 without the magic number): its
/// `Frame_Header_Descriptor` (reserved bit clear), window descriptor, dictionary id and
/// content size fields, then each block header's type and size, block by block to the last,
/// then the content checksum when the descriptor has one. `None` when a field or block runs
/// past `bytes` or a block's type is the reserved one. Nothing is decompressed: a frame that
/// passes may still fail to decode.
#[must_use]
pub fn bare_frame(bytes: &[u8]) -> Option<BareFrame> {
    let &descriptor = bytes.first()?;
    if descriptor & 0b0000_1000 != 0 {
        return None; // Reserved_bit
    }
    let single_segment = descriptor & 0b0010_0000 != 0;
    let checksum = descriptor & 0b0000_0100 != 0;
    let dictionary_id = match descriptor & 0b11 {
        0 => 0,
        1 => 1,
        2 => 2,
        _ => 4,
    };
    let window = usize::from(!single_segment);
    let size_field = match descriptor >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let at = 1 + window + dictionary_id;
    let field = bytes.get(at..at + size_field)?;
    let mut le = [0u8; 8];
    le.get_mut(..size_field)?.copy_from_slice(field);
    let value = u64::from_le_bytes(le);
    let content_size = match size_field {
        0 => None,
        2 => Some(value + 256),
        _ => Some(value),
    };
    let mut pos = at + size_field;
    loop {
        let [a, b, c]: [u8; 3] = bytes.get(pos..pos + 3)?.try_into().ok()?;
        let header = u32::from_le_bytes([a, b, c, 0]);
        pos += 3;
        let size = (header >> 3) as usize;
        pos = pos.checked_add(match (header >> 1) & 0b11 {
            0 | 2 => size, // Raw_Block, Compressed_Block
            1 => 1,        // RLE_Block: one byte, repeated
            _ => return None,
        })?;
        if pos > bytes.len() {
            return None;
        }
        if header & 1 != 0 {
            break; // Last_Block
        }
    }
    if checksum {
        pos += 4;
    }
    (pos <= bytes.len()).then_some(BareFrame {
        len: pos,
        content_size,
    })
}

/// `stored`, whole zstd frames back to back, with each frame's magic number removed: the
/// section as a package with [`crate::FLAG_BARE_FRAMES`] stores it. `None` when `stored` is
/// not whole frames (a skippable frame included) that zstd can delimit.
#[must_use]
pub fn strip_magic(stored: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(stored.len());
    let mut rest = stored;
    while !rest.is_empty() {
        let len = zstd::zstd_safe::find_frame_compressed_size(rest).ok()?;
        let frame = rest.get(..len)?;
        out.extend_from_slice(frame.strip_prefix(&ZSTD_MAGIC)?);
        rest = rest.get(len..)?;
    }
    Some(out)
}

/// `stored`, bare frames back to back ([`bare_frame`]), with each frame's magic number put
/// back: the same section as a package without [`crate::FLAG_BARE_FRAMES`] stores it. `None`
/// when `stored` is not bare frames back to back.
#[must_use]
pub fn restore_magic(stored: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(stored.len() + 8);
    let mut rest = stored;
    while !rest.is_empty() {
        let frame = bare_frame(rest)?;
        out.extend_from_slice(&ZSTD_MAGIC);
        out.extend_from_slice(rest.get(..frame.len)?);
        rest = rest.get(frame.len..)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(bytes: &[u8], level: i32, checksum: bool) -> Vec<u8> {
        let mut c = zstd::bulk::Compressor::new(level).unwrap();
        c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(checksum))
            .unwrap();
        c.compress(bytes).unwrap()
    }

    #[test]
    fn a_bare_frame_is_delimited_as_zstd_delimits_the_whole_one() {
        let text: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let cases = [
            (vec![], 19, false),
            (vec![7u8; 100], 19, false),
            (b"hello, frames".to_vec(), 1, true),
            ((0..=255u8).cycle().take(70_000).collect(), 3, false),
            (text, 1, true),
        ];
        for (raw, level, checksum) in cases {
            let whole = frame(&raw, level, checksum);
            let bare = &whole[4..];
            let got = bare_frame(bare).unwrap();
            assert_eq!(got.len, bare.len());
            assert_eq!(
                got.content_size,
                zstd::zstd_safe::get_frame_content_size(&whole).unwrap()
            );
            // Two frames: the first one ends where zstd says.
            let two = [whole.clone(), frame(b"second", 19, false)].concat();
            let stripped = strip_magic(&two).unwrap();
            assert_eq!(bare_frame(&stripped).unwrap().len, bare.len());
            assert_eq!(restore_magic(&stripped).unwrap(), two);
            // Cut anywhere, it is refused.
            for cut in [0, 1, bare.len() / 2, bare.len() - 1] {
                assert!(bare_frame(&bare[..cut]).is_none(), "cut at {cut}");
            }
        }
    }

    #[test]
    fn reserved_bits_and_block_types_are_refused() {
        let whole = frame(b"some bytes to compress, some bytes", 19, false);
        let mut bare = whole[4..].to_vec();
        bare[0] |= 0b0000_1000;
        assert!(bare_frame(&bare).is_none());
        // A block header of the reserved type (3).
        assert!(bare_frame(&[0b0010_0000, 5, 0b111, 0, 0]).is_none());
        // Not whole frames: nothing to strip or restore.
        assert!(strip_magic(&whole[4..]).is_none());
        assert!(restore_magic(&whole).is_none());
    }
}

//! Packed raw tables (SPEC.md 6.1, 2.1): the raw tables of a split reflection blob as the second
//! frame of a section stored [`crate::Compression::ZstdSplitDictionaries`] holds them. Each
//! table, column by column (its records' `u32` words at one position), each word as the
//! zigzag LEB128 of its difference from the word above it, words counted one up (`ABSENT`, all
//! ones, becomes 0). Fixed-stride records of small indices and `ABSENT` markers compress poorly
//! as they are; columns of small differences compress well (the `pbr` blob's raw tables: 3,209
//! bytes at zstd level 19 as they are, 2,173 packed).

use crate::{ReflectionHeader, TableDirRecord};
use zerocopy::FromBytes;

/// Why packed raw tables do not unpack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnpackError(pub String);

impl std::fmt::Display for UnpackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where each table of the raw region lies, as `(offset, count, stride)` in the blob, sorted by
/// offset: the tables of the directory in `head` (the blob's bytes before `tables_offset`, its
/// header and directory among them) that start at `head.len()` or later, in a blob of `len`
/// bytes. An error when the header or directory does not lie within `head`, or a table of the
/// region is out of the blob, overlaps the one before, or has a stride that is not a positive
/// multiple of 4.
fn raw_region(head: &[u8], len: usize) -> Result<Vec<(usize, usize, usize)>, UnpackError> {
    let bad = |what: &str| Err(UnpackError(format!("packed raw tables: {what}")));
    let Ok((header, _)) = ReflectionHeader::read_from_prefix(head) else {
        return bad("no blob header");
    };
    let (start, count) = (
        header.table_dir_offset as usize,
        header.table_count as usize,
    );
    let stride = header.table_record_size as usize;
    if stride < 16 || count > crate::limits::MAX_TABLES as usize {
        return bad("a table directory this version does not read");
    }
    let mut tables = Vec::new();
    for i in 0..count {
        let at = start.saturating_add(i.saturating_mul(stride));
        let Some(Ok((record, _))) = head.get(at..).map(TableDirRecord::read_from_prefix) else {
            return bad("the table directory is not within the bind view");
        };
        let offset = record.offset as usize;
        if offset < head.len() {
            continue;
        }
        let (count, stride) = (record.count as usize, record.stride as usize);
        let end = count
            .checked_mul(stride)
            .and_then(|n| n.checked_add(offset));
        if stride == 0 || stride % 4 != 0 || offset % 4 != 0 || end.is_none_or(|e| e > len) {
            return bad(&format!("table {i} does not lie in the raw tables"));
        }
        tables.push((offset, count, stride));
    }
    tables.sort_unstable();
    let overlap = tables
        .windows(2)
        .any(|w| matches!(w, [(a, n, s), (b, ..)] if a + n * s > *b));
    if overlap {
        return bad("two raw tables overlap");
    }
    Ok(tables)
}

/// The raw tables of `blob` (from `at`, its `tables_offset`) packed, when unpacking them gives
/// them back byte for byte (every byte of the region in a table of it, or zero); `None`
/// otherwise (the writer then stores the blob as it is).
#[must_use]
pub fn pack_raw_tables(blob: &[u8], at: usize) -> Option<Vec<u8>> {
    let head = blob.get(..at)?;
    let tables = raw_region(head, blob.len()).ok()?;
    let mut out = Vec::with_capacity(blob.len().saturating_sub(at) / 3);
    for (offset, count, stride) in tables {
        pack_table(blob.get(offset..offset + count * stride)?, stride, &mut out);
    }
    let mut back = vec![0u8; blob.len().checked_sub(at)?];
    unpack_raw_tables(head, &out, &mut back).ok()?;
    (blob.get(at..) == Some(&back[..])).then_some(out)
}

/// Unpacks `packed` into `out`, the blob's bytes from `tables_offset` on (`head` being the
/// bytes before it), which must be zero: each table of the directory in `head` that starts at
/// `tables_offset` or later is written where the directory places it. An error when such a
/// table does not lie as it must, a word's encoding runs past 5 bytes or past the end, or
/// bytes are left over.
///
/// # Errors
/// [`UnpackError`] with what is wrong.
pub fn unpack_raw_tables(head: &[u8], packed: &[u8], out: &mut [u8]) -> Result<(), UnpackError> {
    let base = head.len();
    let tables = raw_region(head, base + out.len())?;
    let mut bytes = packed.iter();
    for (offset, count, stride) in tables {
        let start = offset - base;
        let table = out
            .get_mut(start..start + count * stride)
            .ok_or_else(|| UnpackError("packed raw tables: a table past the blob".into()))?;
        unpack_table(&mut bytes, table, stride)
            .map_err(|e| UnpackError(format!("packed raw tables: {e}")))?;
    }
    match bytes.len() {
        0 => Ok(()),
        n => Err(UnpackError(format!(
            "packed raw tables: {n} bytes left over"
        ))),
    }
}

/// Appends `table` (whole records of `stride` bytes, a multiple of 4) packed: column by column,
/// each `u32` word counted one up (so that `ABSENT` becomes 0) and written as the zigzag LEB128
/// of its difference from the word above it (the first from 0). Bytes past the last whole
/// record are not packed.
pub fn pack_table(table: &[u8], stride: usize, out: &mut Vec<u8>) {
    if stride == 0 {
        return;
    }
    for column in (0..stride - stride % 4).step_by(4) {
        let mut above = 0u32;
        for record in table.chunks_exact(stride) {
            let mut word = [0u8; 4];
            if let Some(bytes) = record.get(column..column + 4) {
                word.copy_from_slice(bytes);
            }
            let x = u32::from_le_bytes(word).wrapping_add(1);
            let d = x.wrapping_sub(above) as i32;
            above = x;
            let mut z = ((d << 1) ^ (d >> 31)) as u32;
            while z >= 0x80 {
                out.push(z as u8 | 0x80);
                z >>= 7;
            }
            out.push(z as u8);
        }
    }
}

/// Unpacks one table that [`pack_table`] packed from `bytes` (consuming exactly its words)
/// into `table`, whole records of `stride` bytes. An error when a word's encoding runs past 5
/// bytes, past 32 bits or past the end of `bytes`.
///
/// # Errors
/// [`UnpackError`] with what is wrong.
pub fn unpack_table(
    bytes: &mut std::slice::Iter<'_, u8>,
    table: &mut [u8],
    stride: usize,
) -> Result<(), UnpackError> {
    if stride == 0 {
        return Ok(());
    }
    let truncated = || UnpackError("a word runs past the end".into());
    for column in (0..stride - stride % 4).step_by(4) {
        let mut above = 0u32;
        for record in table.chunks_exact_mut(stride) {
            let mut z = 0u32;
            for shift in (0..35).step_by(7) {
                let b = *bytes.next().ok_or_else(truncated)?;
                if shift == 28 && b > 0x0F {
                    return Err(UnpackError("a word past 32 bits".into()));
                }
                z |= u32::from(b & 0x7F) << shift;
                if b < 0x80 {
                    break;
                }
            }
            let d = ((z >> 1) as i32) ^ -((z & 1) as i32);
            above = above.wrapping_add(d as u32);
            if let Some(word) = record.get_mut(column..column + 4) {
                word.copy_from_slice(&above.wrapping_sub(1).to_le_bytes());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob of a few raw tables of every kind of word, from the builder.
    fn blob() -> Vec<u8> {
        let mut b = crate::ReflectionBuilder::new();
        let name = b.intern("Params");
        for i in 0..40u32 {
            b.push(crate::Type {
                kind: crate::TypeKind::Struct.to_raw(),
                name,
                full_name: name,
                element_type: if i % 3 == 0 { crate::ABSENT } else { i * 7 },
                resource_result_type: crate::ABSENT,
                generic_container: u32::MAX - i,
                row_count: i,
                ..crate::Type::default()
            });
        }
        b.finish()
    }

    #[test]
    fn raw_tables_pack_smaller_and_unpack_to_the_same_bytes() {
        let blob = blob();
        let at = crate::blob_split(&blob).expect("a split blob");
        let packed = pack_raw_tables(&blob, at).expect("packs");
        assert!(packed.len() < blob.len() - at, "{}", packed.len());
        let mut out = vec![0u8; blob.len() - at];
        unpack_raw_tables(&blob[..at], &packed, &mut out).unwrap();
        assert_eq!(out, blob[at..]);
    }

    #[test]
    fn a_word_may_take_more_bytes_than_it_needs() {
        let blob = blob();
        let at = crate::blob_split(&blob).unwrap();
        let packed = pack_raw_tables(&blob, at).unwrap();
        // The first word (one byte: every difference of this blob's first column is small)
        // written in two bytes, its high byte zero: the same tables.
        assert!(packed[0] < 0x80);
        let mut longer = vec![packed[0] | 0x80, 0];
        longer.extend_from_slice(&packed[1..]);
        let mut out = vec![0u8; blob.len() - at];
        unpack_raw_tables(&blob[..at], &longer, &mut out).unwrap();
        assert_eq!(out, blob[at..]);
    }

    #[test]
    fn damaged_packed_tables_are_refused_not_misread() {
        let blob = blob();
        let at = crate::blob_split(&blob).unwrap();
        let packed = pack_raw_tables(&blob, at).unwrap();
        let mut out = vec![0u8; blob.len() - at];
        let unpack = |p: &[u8], out: &mut [u8]| unpack_raw_tables(&blob[..at], p, out);
        // Cut short, one byte more, a word of six bytes.
        assert!(unpack(&packed[..packed.len() - 1], &mut out).is_err());
        let mut longer = packed.clone();
        longer.push(0);
        assert!(unpack(&longer, &mut out).is_err());
        let mut wide = packed.clone();
        wide.splice(0..0, [0xFF, 0xFF, 0xFF, 0xFF, 0x7F]);
        assert!(unpack(&wide, &mut out).is_err());
        // A region one byte short of the directory's tables.
        let mut short = vec![0u8; blob.len() - at - 1];
        assert!(unpack(&packed, &mut short).is_err());
        // A head without the header.
        assert!(unpack_raw_tables(&blob[..8], &packed, &mut out).is_err());
    }
}

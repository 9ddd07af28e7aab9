//! Packed SPIR-V (SPEC.md 4.3, 2.6): a module's words re-encoded so that zstd finds more in them,
//! as the SPIR-V sections of the default layout store them. Each instruction's opcode and word
//! count, then its operands by what the SPIR-V grammar says they are: a result id as the zigzag
//! LEB128 of its difference from one past the previous result id (usually 0), an id operand as
//! that of its difference from the instruction's result id (or the previous one; ids refer to
//! recent results), literal integers and enumerants as LEB128, strings and context-dependent
//! numbers (constants' bits) as their words. Any words pack and unpack back byte for byte: a
//! module that is not well-formed SPIR-V (an instruction of 0 words, or one running past the
//! end) packs its remaining words as they are, and an opcode the grammar table does not know
//! packs its operands as literals.
//!
//! The grammar table ([`grammar`]) is part of the format: packing and unpacking read the same
//! table, generated once from the SPIR-V core grammar (a test checks it against `rspirv`'s).
//! It only decides how well a module packs, never whether it unpacks.

mod grammar;

use crate::UnpackError;

/// The words of a SPIR-V header (magic, version, generator, id bound, schema), stored as they
/// are.
const HEADER_WORDS: usize = 5;

/// How an operand word packs (the bytes of [`grammar::OPERANDS`]).
mod kind {
    /// An id: zigzag LEB128 of the base id minus it.
    pub const ID: u8 = b'I';
    /// A literal integer or an enumerant: LEB128.
    pub const LITERAL: u8 = b'L';
    /// A word as it is (a context-dependent number: a constant's bits).
    pub const WORD: u8 = b'W';
    /// A string: words as they are, up to and including the first whose top byte is 0.
    pub const STRING: u8 = b'S';
}

/// The layout of opcode `op`'s operands: whether it has a result type and a result id, then the
/// kinds of its operands by position, the last repeating for any further operands. An opcode
/// the table does not know: no result, every operand a literal.
#[inline]
fn layout(op: u16) -> (bool, bool, &'static [u8]) {
    let row = match DIRECT.get(usize::from(op)) {
        Some(&row) => usize::from(row).checked_sub(1),
        None => grammar::OPERANDS
            .binary_search_by_key(&op, |&(code, _, _)| code)
            .ok(),
    };
    match row.and_then(|row| grammar::OPERANDS.get(row)) {
        Some(&(_, flags, kinds)) => (flags & 1 != 0, flags & 2 != 0, kinds),
        None => (false, false, b"L"),
    }
}

/// The core opcodes below 1024 (most of a module's), each with its row of
/// [`grammar::OPERANDS`] plus one (0: none), so that their layout is one load.
static DIRECT: [u16; 1024] = direct_rows();

/// [`DIRECT`], made at compile time.
#[allow(
    clippy::indexing_slicing,
    reason = "evaluated at compile time: an index out of range fails the build"
)]
const fn direct_rows() -> [u16; 1024] {
    let mut rows = [0u16; 1024];
    let mut i = 0;
    while i < grammar::OPERANDS.len() {
        let op = grammar::OPERANDS[i].0 as usize;
        if op < rows.len() {
            rows[op] = i as u16 + 1;
        }
        i += 1;
    }
    rows
}

/// The opcodes whose first operand, an id, packs as its difference from the same opcode's
/// previous first operand (debug names, decorations and execution modes come sorted by their
/// target): `OpName`, `OpMemberName`, `OpExecutionMode`, `OpDecorate`, `OpMemberDecorate`,
/// `OpExecutionModeId`, `OpDecorateId`, `OpDecorateString`, `OpMemberDecorateString`.
const TARGETED: [u16; 9] = [5, 6, 16, 71, 72, 331, 332, 5632, 5633];

/// The slot of opcode `op`'s previous first operand, for the opcodes of [`TARGETED`].
#[inline]
fn target_slot(targets: &mut [u32; TARGETED.len()], op: u16) -> Option<&mut u32> {
    let i = TARGETED.iter().position(|&t| t == op)?;
    targets.get_mut(i)
}

fn put_leb(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(d: u32) -> u32 {
    let d = d as i32;
    ((d << 1) ^ (d >> 31)) as u32
}

#[inline]
fn unzigzag(z: u32) -> u32 {
    ((z >> 1) as i32 ^ -((z & 1) as i32)) as u32
}

/// `module`'s words packed (see the module's documentation).
#[must_use]
pub fn pack_spirv(module: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(module.len() * 2);
    let (header, body) = module.split_at(module.len().min(HEADER_WORDS));
    for w in header {
        out.extend_from_slice(&w.to_le_bytes());
    }
    let mut last = 0u32;
    let mut targets = [0u32; TARGETED.len()];
    let mut at = 0;
    while let Some(&first) = body.get(at) {
        let (count, op) = ((first >> 16) as usize, first as u16);
        put_leb(&mut out, u32::from(op));
        put_leb(&mut out, count as u32);
        let left = body.len() - at;
        if count == 0 || count > left {
            // Not an instruction: the rest as it is.
            for w in body.get(at + 1..).unwrap_or_default() {
                out.extend_from_slice(&w.to_le_bytes());
            }
            break;
        }
        let operands = body.get(at + 1..at + count).unwrap_or_default();
        at += count;
        let (has_type, has_result, kinds) = layout(op);
        let mut i = 0;
        if has_type {
            if let Some(&t) = operands.get(i) {
                put_leb(&mut out, t);
                i += 1;
            }
        }
        if has_result {
            if let Some(&r) = operands.get(i) {
                put_leb(&mut out, zigzag(r.wrapping_sub(last.wrapping_add(1))));
                last = r;
                i += 1;
            }
        }
        let mut target = target_slot(&mut targets, op);
        let mut position = 0;
        while let Some(&w) = operands.get(i) {
            let k = kinds
                .get(position)
                .or(kinds.last())
                .copied()
                .unwrap_or(kind::LITERAL);
            position += 1;
            i += 1;
            match k {
                kind::ID if position == 1 && target.is_some() => {
                    if let Some(target) = target.as_deref_mut() {
                        put_leb(&mut out, zigzag(w.wrapping_sub(*target)));
                        *target = w;
                    }
                }
                kind::ID => put_leb(&mut out, zigzag(last.wrapping_sub(w))),
                kind::WORD => out.extend_from_slice(&w.to_le_bytes()),
                kind::STRING => {
                    out.extend_from_slice(&w.to_le_bytes());
                    let mut end = w >> 24 == 0;
                    while !end {
                        let Some(&w) = operands.get(i) else { break };
                        out.extend_from_slice(&w.to_le_bytes());
                        end = w >> 24 == 0;
                        i += 1;
                    }
                }
                _ => put_leb(&mut out, w),
            }
        }
    }
    out
}

/// Reads packed bytes: LEB128 values and whole words, each bounds-checked.
struct Packed<'p> {
    bytes: &'p [u8],
    at: usize,
}

impl Packed<'_> {
    /// The next LEB128 value: one byte for most.
    #[inline]
    fn leb(&mut self) -> Result<u32, UnpackError> {
        match self.bytes.get(self.at) {
            Some(&b) if b < 0x80 => {
                self.at += 1;
                Ok(u32::from(b))
            }
            _ => self.long_leb(),
        }
    }

    /// [`Packed::leb`] of a value of several bytes, or none.
    fn long_leb(&mut self) -> Result<u32, UnpackError> {
        let mut v = 0u32;
        for shift in (0..35).step_by(7) {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(UnpackError("a value runs past the end".into()));
            };
            self.at += 1;
            if shift == 28 && b > 0x0F {
                return Err(UnpackError("a value past 32 bits".into()));
            }
            v |= u32::from(b & 0x7F) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(UnpackError("a value of more than 5 bytes".into()))
    }

    #[inline]
    fn word(&mut self) -> Result<u32, UnpackError> {
        let bytes = self
            .bytes
            .get(self.at..self.at + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .ok_or_else(|| UnpackError("a word runs past the end".into()))?;
        self.at += 4;
        Ok(u32::from_le_bytes(bytes))
    }
}

/// Unpacks `packed` (what [`pack_spirv`] made of a module of `out.len() / 4` words) into `out`,
/// whose length is a multiple of 4. An error when a value or word runs past the end of
/// `packed`, a value is not a `u32`, an instruction's word count is not the one it must be, or
/// bytes are left over.
///
/// # Errors
/// [`UnpackError`] with what is wrong.
pub fn unpack_spirv(packed: &[u8], out: &mut [u8]) -> Result<(), UnpackError> {
    let used = unpack_spirv_prefix(packed, out)?;
    if used != packed.len() {
        return Err(UnpackError(format!(
            "{} bytes left over after the module",
            packed.len() - used
        )));
    }
    Ok(())
}

/// Unpacks the module of `out.len() / 4` words that `packed` starts with (further bytes are
/// not looked at: a module run's frame holds several modules back to back, SPEC.md 5.6.2) into
/// `out`, and returns how many bytes of `packed` it took. The errors of [`unpack_spirv`] but
/// bytes left over.
///
/// # Errors
/// [`UnpackError`] with what is wrong.
pub fn unpack_spirv_prefix(packed: &[u8], out: &mut [u8]) -> Result<usize, UnpackError> {
    if out.len() % 4 != 0 {
        return Err(UnpackError(format!(
            "a module of {} bytes, not whole words",
            out.len()
        )));
    }
    let total = out.len() / 4;
    let mut words = out.chunks_exact_mut(4);
    let put = |w: u32| -> Result<(), UnpackError> {
        match words.next() {
            Some(dst) => {
                dst.copy_from_slice(&w.to_le_bytes());
                Ok(())
            }
            None => Err(UnpackError("more words than the module has".into())),
        }
    };
    unpack_words(packed, total, put)
}

/// How many bytes of `packed` the packed module of `raw_len` bytes it starts with takes: what
/// [`unpack_spirv_prefix`] returns, with the same checks, without writing the module (a reader
/// of a module run steps over the modules before the one it loads).
///
/// # Errors
/// [`UnpackError`] as [`unpack_spirv_prefix`] gives it.
pub fn packed_spirv_len(packed: &[u8], raw_len: usize) -> Result<usize, UnpackError> {
    if raw_len % 4 != 0 {
        return Err(UnpackError(format!(
            "a module of {raw_len} bytes, not whole words"
        )));
    }
    let total = raw_len / 4;
    let mut left = total;
    let put = |_: u32| -> Result<(), UnpackError> {
        left = left
            .checked_sub(1)
            .ok_or_else(|| UnpackError("more words than the module has".into()))?;
        Ok(())
    };
    unpack_words(packed, total, put)
}

/// Decodes the packed module of `total` words that `packed` starts with, giving each word to
/// `put` in order; returns how many bytes it took.
#[inline(always)]
fn unpack_words(
    packed: &[u8],
    total: usize,
    mut put: impl FnMut(u32) -> Result<(), UnpackError>,
) -> Result<usize, UnpackError> {
    let mut p = Packed {
        bytes: packed,
        at: 0,
    };
    let header = total.min(HEADER_WORDS);
    for _ in 0..header {
        put(p.word()?)?;
    }
    let mut left = total - header;
    let mut last = 0u32;
    let mut targets = [0u32; TARGETED.len()];
    while left > 0 {
        let op = p.leb()?;
        let count = p.leb()?;
        let (Ok(op16), Ok(count16)) = (u16::try_from(op), u16::try_from(count)) else {
            return Err(UnpackError(format!(
                "an instruction of opcode {op} and {count} words"
            )));
        };
        put(u32::from(count16) << 16 | u32::from(op16))?;
        let count = count as usize;
        if count == 0 || count > left {
            for _ in 1..left {
                put(p.word()?)?;
            }
            left = 0;
            break;
        }
        left -= count;
        let (has_type, has_result, kinds) = layout(op16);
        let mut i = 1;
        if has_type && i < count {
            put(p.leb()?)?;
            i += 1;
        }
        if has_result && i < count {
            let r = unzigzag(p.leb()?).wrapping_add(last.wrapping_add(1));
            put(r)?;
            last = r;
            i += 1;
        }
        let mut target = target_slot(&mut targets, op16);
        let rest = kinds.last().copied().unwrap_or(kind::LITERAL);
        let mut position = 0;
        while i < count {
            let k = kinds.get(position).copied().unwrap_or(rest);
            position += 1;
            i += 1;
            match k {
                kind::ID if position == 1 && target.is_some() => {
                    if let Some(target) = target.as_deref_mut() {
                        *target = unzigzag(p.leb()?).wrapping_add(*target);
                        put(*target)?;
                    }
                }
                kind::ID => put(last.wrapping_sub(unzigzag(p.leb()?)))?,
                kind::WORD => put(p.word()?)?,
                kind::STRING => {
                    let mut w = p.word()?;
                    put(w)?;
                    while w >> 24 != 0 && i < count {
                        w = p.word()?;
                        put(w)?;
                        i += 1;
                    }
                }
                _ => put(p.leb()?)?,
            }
        }
    }
    debug_assert_eq!(left, 0);
    Ok(p.at)
}

/// The most bytes [`pack_spirv`] makes of a module of `raw` bytes: each word at most 5 bytes,
/// an instruction's first word at most 6 (its opcode and count, 3 each).
#[must_use]
pub const fn packed_spirv_bound(raw: usize) -> usize {
    raw / 4 * 6 + 4 * HEADER_WORDS
}

#[cfg(test)]
mod tests;

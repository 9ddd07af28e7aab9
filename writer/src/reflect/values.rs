//! Slang's numbers, string literals and default values in stored form.

use slangpack_format::{split_u64, ScalarType, ValueKind, ABSENT, UNBOUNDED};
use slangpack_slang::reflection as ffi;

/// The element count Slang reports for an unsized array (`T[]`).
pub(super) const UNSIZED_ARRAY_LENGTH: usize = 0x7FFF_FFFF;

/// A size or offset as stored: Slang's unbounded (`~0`) and anything past `u32` become
/// [`UNBOUNDED`].
pub(super) fn size32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(UNBOUNDED)
}

/// A Slang count that may be negative (unbounded or "none"): negatives become [`UNBOUNDED`].
pub(super) fn count32(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(UNBOUNDED)
}

/// A Slang index that is negative when absent.
pub(super) fn index32(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(ABSENT)
}

/// `len` as a record count.
pub(super) fn len32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(ABSENT)
}

/// A string argument's value from what Slang reports: the literal's source text (without
/// quotes in Slang 2026.12; stripped here should a version include them), escapes not yet
/// processed. Undoes the escapes.
pub(super) fn string_literal(token: &str) -> String {
    let inner = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(token);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// A variable's default value as (kind, lo, hi), read the way its type says: floats through
/// `getDefaultValueFloat`, everything else through `getDefaultValueInt`.
pub(super) fn default_value(v: ffi::Variable<'_>, ty: Option<ffi::Type<'_>>) -> (u32, u32, u32) {
    if !v.has_default_value() {
        return (ValueKind::None.to_raw(), 0, 0);
    }
    let scalar = ty.map(|t| ScalarType::from_raw(t.scalar_type()));
    let float = || {
        v.default_value_float().map(|f| {
            let (lo, hi) = split_u64(f64::from(f).to_bits());
            (ValueKind::Float.to_raw(), lo, hi)
        })
    };
    let int = |kind: ValueKind| {
        v.default_value_int().map(|i| {
            let (lo, hi) = split_u64(i as u64);
            (kind.to_raw(), lo, hi)
        })
    };
    let value = match scalar {
        Some(ScalarType::Float16 | ScalarType::Float32 | ScalarType::Float64) => {
            float().or_else(|| int(ValueKind::Int))
        }
        Some(ScalarType::Bool) => int(ValueKind::Bool),
        _ => int(ValueKind::Int).or_else(float),
    };
    value.unwrap_or((ValueKind::None.to_raw(), 0, 0))
}

//! How much a tool may make of one package: an output budget linear in the package's size.
//!
//! A package's records can be reached many times over: every entry of a package may name the
//! same reflection blob, so `dump --json` or `header` for 300 entries sharing a blob of
//! 100 000 members would write 30 million members from a 202 KB package. Output that
//! restates shared records per entry (the JSON document, bind headers, diff listings) is
//! therefore bounded: at most [`OUTPUT_ALLOWANCE`] + [`OUTPUT_FACTOR`] × the package's size
//! in bytes (for two packages, their sizes added). A tool that would write more stops, before
//! making the rest, with [`ToolError::LimitExceeded`]. Each entry is charged before its output
//! is made, with an estimate from its records (a fixed cost per record and
//! the bytes of every name it shows, so records that share one long name are counted at each
//! use), and afterwards with whatever its output took beyond the estimate: memory stays within
//! a small multiple of the budget even for one entry. Real packages stay far below it: the
//! examples' JSON document is about as large as the package (its SPIR-V dominates), a Rust
//! header smaller. `dump`'s text lists a shared blob once and needs no budget to stay linear,
//! but keeps one as well; `verify` and `extract` check each blob once.

use crate::ToolError;
use slangpack_reader::{Entry, Package};

/// Bytes of output every package may make, whatever its size.
pub const OUTPUT_ALLOWANCE: u64 = 64 << 20;

/// Bytes of output each byte of the package may make, beyond [`OUTPUT_ALLOWANCE`].
pub const OUTPUT_FACTOR: u64 = 16;

/// The output budget of a tool reading `packages`: [`OUTPUT_ALLOWANCE`] + [`OUTPUT_FACTOR`] ×
/// their sizes.
#[must_use]
pub fn output_budget(packages: &[&Package]) -> u64 {
    let size: u64 = packages.iter().map(|p| p.as_bytes().len() as u64).sum();
    OUTPUT_ALLOWANCE.saturating_add(OUTPUT_FACTOR.saturating_mul(size))
}

/// The output a tool made so far, against its budget.
#[derive(Debug)]
pub(crate) struct Budget {
    /// What the tool makes, for the error (`the JSON document`, `the C header`).
    what: &'static str,
    limit: u64,
    used: u64,
}

impl Budget {
    /// A budget for `what`, made from `packages`.
    pub(crate) fn new(what: &'static str, packages: &[&Package]) -> Budget {
        Budget {
            what,
            limit: output_budget(packages),
            used: 0,
        }
    }

    /// Counts `bytes` more output; the error once the total passes the budget.
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), ToolError> {
        self.used = self.used.saturating_add(bytes as u64);
        if self.used <= self.limit {
            Ok(())
        } else {
            Err(self.exceeded())
        }
    }

    /// Charges entry `entry` before its output is made ([`entry_weight`]); returns the
    /// estimate, to be passed to [`Budget::settle`] with what the output took.
    pub(crate) fn charge_entry(&mut self, entry: &Entry<'_>) -> Result<usize, ToolError> {
        let estimate = entry_weight(entry);
        self.charge(estimate)?;
        Ok(estimate)
    }

    /// Charges what an entry's output took beyond its estimate.
    pub(crate) fn settle(&mut self, estimate: usize, actual: usize) -> Result<(), ToolError> {
        self.charge(actual.saturating_sub(estimate))
    }

    /// Whether `more` bytes beyond what was charged still fit (with nothing charged).
    pub(crate) fn fits(&self, more: usize) -> Result<(), ToolError> {
        if self.used.saturating_add(more as u64) <= self.limit {
            Ok(())
        } else {
            Err(self.exceeded())
        }
    }

    /// Whether `total` bytes of output would pass the budget (with nothing charged).
    pub(crate) fn check_total(&self, total: usize) -> Result<(), ToolError> {
        if total as u64 <= self.limit {
            Ok(())
        } else {
            Err(self.exceeded())
        }
    }

    #[cold]
    fn exceeded(&self) -> ToolError {
        ToolError::LimitExceeded(format!(
            "{} would pass the output budget of {} bytes ({} MiB + {} times the package's \
             size): the package's entries restate shared records too many times",
            self.what,
            self.limit,
            OUTPUT_ALLOWANCE >> 20,
            OUTPUT_FACTOR
        ))
    }
}

/// What one entry's output may take, estimated from its records before making it: 256 bytes
/// per record (entry point, binding, push-constant range, shader record, buffer, member,
/// member attribute, vertex input, specialization constant, target binding, dependency) plus
/// the bytes of every name the record shows (a binding's or range's entry points: all the
/// entry's entry-point names). Linear in the entry's records.
pub(crate) fn entry_weight(entry: &Entry<'_>) -> usize {
    const RECORD: usize = 256;
    let bind = entry.bind();
    let s = |i: u32| bind.string(i).len();
    let users: usize = entry.entry_points().map(|ep| ep.name().len() + 2).sum();
    let widest = entry
        .entry_points()
        .map(|ep| ep.name().len())
        .max()
        .unwrap_or(0);
    let mut w = RECORD + entry.key().len();
    for ep in entry.entry_points() {
        w += RECORD + ep.name().len() + ep.spirv_entry_name().len();
        w += ep
            .targets()
            .map(|t| RECORD + t.entry_name().len())
            .sum::<usize>();
    }
    for b in bind.bindings() {
        w += RECORD + s(b.name) + s(b.path) + s(b.spirv_name) + s(b.sampler_path) + users;
    }
    for p in bind.push_constants() {
        w += RECORD + s(p.name) + users;
    }
    for r in bind.shader_record_blocks() {
        w += RECORD + s(r.name) + users;
    }
    for l in bind.buffer_layouts() {
        let buffer = s(l.name);
        w += RECORD + buffer;
        for m in bind.members(l) {
            w += RECORD + buffer + s(m.path) + s(m.name);
            for a in bind.attributes(m) {
                w += RECORD + s(a.name) + s(a.arguments);
            }
        }
    }
    for v in bind.all_vertex_inputs() {
        w += RECORD + s(v.semantic_name) + s(v.name) + widest;
    }
    for c in bind.specialization_constants() {
        w += RECORD + s(c.name);
    }
    for target in bind.targets() {
        let view = bind.target(target);
        for b in view.bindings() {
            w += RECORD + view.path(b).len() + view.code_name(b).map_or(0, str::len);
        }
    }
    for d in entry.dependencies() {
        w += RECORD + d.path().len();
    }
    w
}

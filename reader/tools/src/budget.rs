//! How much a tool may make of one package: an output budget linear in the package's size.
//!
//! A package's records can be reached many times over: every entry of a package may name the
//! same reflection blob, so `dump --json` or `header` for 300 entries sharing a blob of
//! 100 000 members would write 30 million members from a 202 KB package. Output that
//! restates shared records per entry (the JSON document, bind headers, diff listings) is
//! therefore bounded: at most [`OUTPUT_ALLOWANCE`] + [`OUTPUT_FACTOR`] × the package's size
//! in bytes (for two packages, their sizes added). A tool that would write more stops, before
//! making the rest, with [`ToolError::LimitExceeded`]. Real packages stay far below it: the
//! examples' JSON document is about as large as the package (its SPIR-V dominates), a Rust
//! header smaller. `dump`'s text lists a shared blob once and needs no budget to stay linear,
//! but keeps one as well; `verify` and `extract` check each blob once.

use crate::ToolError;
use slangpack_reader::Package;

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

//! [`Cells`]: the sections of one kind (SPIR-V modules, reflection blobs, target code), each
//! loaded once at its first use, with nothing allocated per section until then.

use crate::error::{Error, Result};
use std::sync::OnceLock;

/// Sections per chunk of cells: a chunk is allocated at the first load of one of its sections.
const CHUNK: usize = 64;

/// The outcome of one section's load, kept for every later use.
type Cell<T> = OnceLock<core::result::Result<T, Box<Error>>>;

/// [`CHUNK`] cells, allocated at the first load of one of them.
type Chunk<T> = OnceLock<Box<[Cell<T>]>>;

/// The `n`-th section of a kind maps to a directory index through runs of consecutive
/// directory indices (a writer stores each kind's sections in one run).
#[derive(Debug, Clone, Copy)]
struct Run {
    /// The first `n` of the run.
    first: u32,
    /// Its directory index.
    section: u32,
}

/// Lazily loaded sections of one kind, numbered `0..len` in directory order.
///
/// Opening a package records where the kind's sections lie (a few words per run of
/// consecutive sections) and a pointer per [`CHUNK`] sections; the cells themselves are
/// allocated a chunk at a time by the first load in the chunk. Thread-safe: concurrent loads
/// of one section run `load` once, and readers of a loaded section never block.
#[derive(Debug)]
pub(crate) struct Cells<T> {
    runs: Vec<Run>,
    len: usize,
    chunks: Box<[Chunk<T>]>,
}

/// Collects the directory indices of a kind's sections, in order, into runs.
#[derive(Debug, Default)]
pub(crate) struct CellsBuilder {
    runs: Vec<Run>,
    len: usize,
}

impl CellsBuilder {
    /// Appends the section at directory index `section`.
    #[inline]
    pub(crate) fn push(&mut self, section: usize) {
        let section = section as u32;
        let continues = self.runs.last().is_some_and(|r| {
            u64::from(r.section) + (self.len as u64 - u64::from(r.first)) == u64::from(section)
        });
        if !continues {
            self.runs.push(Run {
                first: self.len as u32,
                section,
            });
        }
        self.len += 1;
    }

    /// The cells, none loaded.
    pub(crate) fn finish<T>(self) -> Cells<T> {
        Cells {
            chunks: (0..self.len.div_ceil(CHUNK))
                .map(|_| OnceLock::new())
                .collect(),
            runs: self.runs,
            len: self.len,
        }
    }
}

impl<T> Cells<T> {
    /// Number of sections.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The directory index of section `n`.
    pub(crate) fn section(&self, n: usize) -> Option<usize> {
        if n >= self.len {
            return None;
        }
        let run = self.runs.partition_point(|r| r.first as usize <= n);
        let r = self.runs.get(run.checked_sub(1)?)?;
        Some(r.section as usize + (n - r.first as usize))
    }

    /// Section `n`, loaded by `load(directory index)` at its first use (once, whoever calls
    /// first), or that load's error; `None` when `n` is out of range.
    pub(crate) fn get_or_load(
        &self,
        n: usize,
        load: impl FnOnce(usize) -> Result<T>,
    ) -> Option<Result<&T>> {
        let section = self.section(n)?;
        let start = n - n % CHUNK;
        let chunk = self.chunks.get(n / CHUNK)?.get_or_init(|| {
            (start..self.len.min(start + CHUNK))
                .map(|_| OnceLock::new())
                .collect()
        });
        let cell = chunk.get(n % CHUNK)?;
        Some(match cell.get_or_init(|| load(section).map_err(Box::new)) {
            Ok(value) => Ok(value),
            Err(e) => Err(e.duplicate()),
        })
    }

    /// Section `n` if a load of it succeeded (no load, no allocation).
    pub(crate) fn loaded(&self, n: usize) -> Option<&T> {
        let chunk = self.chunks.get(n / CHUNK)?.get()?;
        chunk.get(n % CHUNK)?.get()?.as_ref().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::CellsBuilder;

    #[test]
    fn runs_map_numbers_to_sections() {
        let mut b = CellsBuilder::default();
        let sections = [3, 4, 5, 9, 10, 2, 200];
        for s in sections {
            b.push(s);
        }
        assert_eq!(b.runs.len(), 4);
        let cells = b.finish::<u32>();
        for (n, s) in sections.iter().enumerate() {
            assert_eq!(cells.section(n), Some(*s));
        }
        assert_eq!(cells.section(sections.len()), None);
        assert!(cells.loaded(1).is_none());
        let loaded = cells.get_or_load(1, |s| Ok(s as u32 * 2));
        assert_eq!(loaded.map(|r| r.ok().copied()), Some(Some(8)));
        assert_eq!(cells.loaded(1), Some(&8));
        assert!(cells.loaded(0).is_none());
        assert!(cells.get_or_load(7, |_| Ok(0)).is_none());
    }

    #[test]
    fn many_sections_fill_several_chunks() {
        let mut b = CellsBuilder::default();
        for s in 0..1000 {
            b.push(10 + s);
        }
        let cells = b.finish::<usize>();
        assert_eq!(cells.len(), 1000);
        for n in [0, 63, 64, 999] {
            assert_eq!(
                cells.get_or_load(n, Ok).map(|r| r.ok().copied()),
                Some(Some(10 + n))
            );
        }
        assert_eq!(cells.loaded(999), Some(&1009));
    }
}

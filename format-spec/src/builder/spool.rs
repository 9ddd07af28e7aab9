//! Where [`PackageBuilder`] keeps SPIR-V modules until it lays the package out: in memory, or
//! in a scratch file the caller gives ([`PackageBuilder::spool_spirv`]), so that a bake of
//! thousands of permutations does not hold every module it compiled.

use super::*;
use std::io::{Read, Seek, SeekFrom, Write};

/// A SPIR-V module as the builder keeps it.
#[derive(Debug)]
pub(super) enum Module {
    /// Its words, in memory.
    Words(Vec<u32>),
    /// `words` words at byte `offset` of the spool file, whose bytes hash (xxh3-64) to `hash`.
    Spooled {
        offset: u64,
        words: usize,
        hash: u64,
    },
}

impl Module {
    /// Number of words.
    pub(super) fn len(&self) -> usize {
        match self {
            Module::Words(words) => words.len(),
            Module::Spooled { words, .. } => *words,
        }
    }
}

/// The scratch file modules are appended to; each one is written whole or not at all.
#[derive(Debug)]
pub(super) struct Spool {
    file: std::fs::File,
    /// Where the next module goes: the end of the last one written whole.
    end: u64,
}

impl Spool {
    pub(super) fn new(file: std::fs::File) -> Self {
        Self { file, end: 0 }
    }

    /// Appends `words`, returning their byte offset. A failed write leaves the end where it
    /// was: the next module overwrites what part of this one was written.
    pub(super) fn append(&mut self, words: &[u32]) -> std::io::Result<u64> {
        let at = self.end;
        let mut file = &self.file;
        file.seek(SeekFrom::Start(at))?;
        file.write_all(words.as_bytes())?;
        self.end = at + words.as_bytes().len() as u64;
        Ok(at)
    }

    /// Reads `out.len()` bytes from byte `offset`.
    pub(super) fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        let mut file = &self.file;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(out)
    }

    /// The words of `module`.
    pub(super) fn words(&self, module: &Module) -> std::io::Result<Vec<u32>> {
        match module {
            Module::Words(words) => Ok(words.clone()),
            Module::Spooled { offset, words, .. } => {
                let mut out = vec![0u32; *words];
                self.read(*offset, out.as_mut_bytes())?;
                Ok(out)
            }
        }
    }

    /// Passes the bytes of `words` words at `offset` to `put`, a piece of at most
    /// [`COPY_CHUNK`] bytes at a time.
    pub(super) fn copy(
        &self,
        offset: u64,
        words: usize,
        put: &mut dyn FnMut(&[u8]) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        let mut left = (words * 4) as u64;
        let mut at = offset;
        let mut buf = vec![0u8; COPY_CHUNK.min(left as usize)];
        while left > 0 {
            let n = (left as usize).min(buf.len());
            self.read(at, &mut buf[..n]).map_err(spool_error)?;
            put(&buf[..n])?;
            at += n as u64;
            left -= n as u64;
        }
        Ok(())
    }
}

/// Largest piece [`Spool::copy`] reads at once.
const COPY_CHUNK: usize = 64 << 10;

/// A failure of the spool file as a [`BuildError`].
pub(super) fn spool_error(e: std::io::Error) -> BuildError {
    BuildError::Spool(e.to_string())
}

impl PackageBuilder {
    /// Keeps every SPIR-V module added from now on in `file` (an empty scratch file: an
    /// unnamed temporary file beside the output, say) rather than in memory, until
    /// [`PackageBuilder::finish_to`] copies it into the package: a bake of many permutations
    /// then holds their modules' hashes, not their words. A module the file does not take
    /// (a failed write) is kept in memory instead; the package is the same either way. With
    /// compressed SPIR-V ([`PackageBuilder::set_spirv_compression`]), the modules are read
    /// back into memory when the package is laid out, to choose the dictionary.
    pub fn spool_spirv(&mut self, file: std::fs::File) -> &mut Self {
        self.spool = Some(Spool::new(file));
        self
    }

    /// Whether module `id` holds exactly `words`.
    pub(super) fn module_is(&self, id: u32, words: &[u32]) -> bool {
        let Some(module) = self.spirv.get(id as usize) else {
            return false;
        };
        match (module, &self.spool) {
            (Module::Words(w), _) => w == words,
            (Module::Spooled { .. }, Some(spool)) => {
                module.len() == words.len() && spool.words(module).is_ok_and(|w| w == words)
            }
            (Module::Spooled { .. }, None) => false,
        }
    }

    /// `words` (whose xxh3 is `hash`) as the builder keeps them: appended to the spool when
    /// there is one and it takes them, else in memory.
    pub(super) fn keep_module(&mut self, hash: u64, words: Vec<u32>) -> Module {
        match self.spool.as_mut().map(|s| s.append(&words)) {
            Some(Ok(offset)) => Module::Spooled {
                offset,
                words: words.len(),
                hash,
            },
            _ => Module::Words(words),
        }
    }
}

/// Modules (then reflection blobs) back to back, as the dictionary trainer takes them, and
/// where each one ends.
#[derive(Debug, Default)]
pub(super) struct Samples {
    pub(super) bytes: Vec<u8>,
    pub(super) sizes: Vec<usize>,
}

impl Samples {
    /// Appends `item`.
    pub(super) fn push(&mut self, item: &[u8]) {
        self.bytes.extend_from_slice(item);
        self.sizes.push(item.len());
    }

    /// Every item, in order.
    pub(super) fn items(&self) -> Vec<&[u8]> {
        let mut at = 0;
        self.sizes
            .iter()
            .map(|&n| {
                let item = self.bytes.get(at..at + n).unwrap_or_default();
                at += n;
                item
            })
            .collect()
    }
}

/// The bytes of every module of `modules` that `order` names, in that order, one after the
/// other (the compressed-SPIR-V path, which compresses them all together): read from `spool`
/// where they were spooled, each in-memory module let go once copied. Room is made for
/// `after` more bytes of `more` more items (the blobs that follow), so that pushing them
/// does not grow the buffer to twice its size.
pub(super) fn modules_in_memory(
    modules: Vec<Module>,
    spool: Option<&Spool>,
    order: &[usize],
    [more, after]: [usize; 2],
) -> Result<Samples, BuildError> {
    let total: usize = order
        .iter()
        .filter_map(|&i| modules.get(i))
        .map(|m| m.len() * 4)
        .sum();
    let mut samples = Samples {
        bytes: Vec::with_capacity(total + after),
        sizes: Vec::with_capacity(order.len() + more),
    };
    let mut slots: Vec<Option<Module>> = modules.into_iter().map(Some).collect();
    for &i in order {
        match slots.get_mut(i).and_then(Option::take) {
            Some(Module::Words(words)) => samples.push(words.as_bytes()),
            Some(Module::Spooled { offset, words, .. }) => {
                let spool = spool.ok_or_else(|| spool_error(gone()))?;
                let at = samples.bytes.len();
                samples.bytes.resize(at + words * 4, 0);
                spool
                    .read(offset, &mut samples.bytes[at..])
                    .map_err(spool_error)?;
                samples.sizes.push(words * 4);
            }
            None => return Err(BuildError::Spool(format!("module {i} is laid out twice"))),
        }
    }
    Ok(samples)
}

/// The error of a spooled module without a spool.
fn gone() -> std::io::Error {
    std::io::Error::other("a module's spool file is gone")
}

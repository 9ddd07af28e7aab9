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
    /// compressed SPIR-V ([`PackageBuilder::set_spirv_compression`]), each module is read back
    /// in turn when the package is laid out (to choose the dictionary, then to compress it),
    /// and at most 4 MiB of them at once, evenly spaced, to train the dictionary on.
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
    /// Empty, with room for `items` items of `bytes` bytes in all (pushing them then never
    /// grows the buffer to twice what it needs).
    pub(super) fn with_capacity(bytes: usize, items: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(bytes),
            sizes: Vec::with_capacity(items),
        }
    }

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

/// The modules of a compressed layout, in layout order, as the dictionary's choice and the
/// compression read them: each in turn, a spooled one read back into a buffer of its own size
/// and let go, so that a bake of thousands of permutations never holds every module at once
/// (the 10,000 small modules of `bake-scale` are 15 MB).
pub(super) struct ModuleSource<'s> {
    modules: Vec<Module>,
    spool: Option<&'s Spool>,
    order: Vec<usize>,
    /// Whether modules are read packed ([`crate::pack_spirv`]).
    packed: bool,
}

impl<'s> ModuleSource<'s> {
    /// The modules of `modules` that `order` names, in that order, spooled ones read from
    /// `spool`. An error when `order` names a module twice or one that is not there.
    pub(super) fn new(
        modules: Vec<Module>,
        spool: Option<&'s Spool>,
        order: &[usize],
    ) -> Result<Self, BuildError> {
        let mut seen = vec![false; modules.len()];
        for &i in order {
            match seen.get_mut(i) {
                Some(s) if !*s => *s = true,
                _ => return Err(BuildError::Spool(format!("module {i} is laid out twice"))),
            }
        }
        Ok(Self {
            modules,
            spool,
            order: order.to_vec(),
            packed: false,
        })
    }

    /// The same modules, each read packed ([`crate::pack_spirv`], SPEC.md 4.3): what the
    /// default layout compresses.
    pub(super) fn packed(self) -> Self {
        Self {
            packed: true,
            ..self
        }
    }

    /// Whether modules are read packed.
    pub(super) fn is_packed(&self) -> bool {
        self.packed
    }

    /// How many modules.
    pub(super) fn len(&self) -> usize {
        self.order.len()
    }

    /// The size in bytes of module `k` (in layout order), as it is (not packed).
    pub(super) fn size(&self, k: usize) -> usize {
        self.order
            .get(k)
            .and_then(|&i| self.modules.get(i))
            .map_or(0, |m| m.len() * 4)
    }

    /// The bytes of every module.
    pub(super) fn bytes(&self) -> usize {
        (0..self.len()).map(|k| self.size(k)).sum()
    }

    /// Module `k` (in layout order): borrowed when in memory and not packed, else read (and
    /// packed) into `buf`.
    pub(super) fn get<'b>(
        &'b self,
        k: usize,
        buf: &'b mut Vec<u8>,
    ) -> Result<&'b [u8], BuildError> {
        let module = self
            .order
            .get(k)
            .and_then(|&i| self.modules.get(i))
            .ok_or_else(|| BuildError::Spool(format!("no module {k}")))?;
        match module {
            Module::Words(words) if self.packed => {
                *buf = crate::pack_spirv(words);
                Ok(buf)
            }
            Module::Words(words) => Ok(words.as_bytes()),
            Module::Spooled { offset, words, .. } => {
                let spool = self.spool.ok_or_else(|| spool_error(gone()))?;
                buf.clear();
                buf.resize(words * 4, 0);
                spool.read(*offset, buf).map_err(spool_error)?;
                if self.packed {
                    let words: Vec<u32> = buf
                        .chunks_exact(4)
                        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                        .collect();
                    *buf = crate::pack_spirv(&words);
                }
                Ok(buf)
            }
        }
    }

    /// Calls `f` with each module in turn, with its position.
    pub(super) fn each(
        &self,
        mut f: impl FnMut(usize, &[u8]) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        let mut buf = Vec::new();
        for k in 0..self.len() {
            f(k, self.get(k, &mut buf)?)?;
        }
        Ok(())
    }

    /// Modules `picks` (positions in layout order), back to back, with room for `more` bytes
    /// of further items after them.
    pub(super) fn gather(&self, picks: &[usize], more: usize) -> Result<Samples, BuildError> {
        let bytes: usize = picks.iter().map(|&k| self.size(k)).sum();
        let mut out = Samples::with_capacity(bytes + more, picks.len());
        let mut buf = Vec::new();
        for &k in picks {
            out.push(self.get(k, &mut buf)?);
        }
        Ok(out)
    }
}

/// The error of a spooled module without a spool.
fn gone() -> std::io::Error {
    std::io::Error::other("a module's spool file is gone")
}

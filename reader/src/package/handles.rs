//! The handles a loaded package hands out (`Entry`, `EntryPoint`, `Dependency`) and its
//! iterators: every accessor infallible, borrowed and allocation-free.

use super::*;

/// One loaded entry: one permutation, with its entry points, reflection and dependencies.
/// Obtained from [`Package::load`]; every accessor is infallible and allocation-free.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub(crate) package: &'a Package,
    pub(super) record: &'a EntryRecord,
    pub(super) index: usize,
    pub(super) blob: &'a Blob,
}

impl<'a> Entry<'a> {
    /// The canonical permutation key.
    #[must_use]
    pub fn key(&self) -> &'a str {
        self.info().key()
    }

    /// Position in key order (in a paged package, among all its entries).
    #[must_use]
    pub fn index(&self) -> usize {
        self.package.entry_base + self.index
    }

    /// The package the entry belongs to: in a paged package (3.0), the page that holds it,
    /// a package of that page's entries (whose own `index` numbers start at 0), over the same
    /// bytes.
    #[must_use]
    pub fn package(&self) -> &'a Package {
        self.package
    }

    /// The raw record.
    #[must_use]
    pub fn record(&self) -> &'a EntryRecord {
        self.record
    }

    /// Hash of the compile options.
    #[must_use]
    pub fn options_hash(&self) -> u64 {
        self.info().options_hash()
    }

    /// The hash of the first entry point ([`EntryPoint::hash`]), 0 when the entry has none.
    #[must_use]
    pub fn entry_point_hash(&self) -> u64 {
        self.package.entry_point_hash_of(self.record)
    }

    /// The entry points, in bake order.
    #[must_use]
    pub fn entry_points(&self) -> EntryPointIter<'a> {
        EntryPointIter {
            entry: *self,
            records: self
                .package
                .entry_point_slice(self.record)
                .iter()
                .enumerate(),
        }
    }

    /// The entry point named `name` (Slang's name, as [`EntryPoint::name`] gives it); a
    /// linear scan of the entry's few entry points, no allocation.
    #[must_use]
    pub fn entry_point(&self, name: &str) -> Option<EntryPoint<'a>> {
        self.entry_points().find(|ep| ep.name() == name)
    }

    /// The dependencies, in bake order.
    #[must_use]
    pub fn dependencies(&self) -> DependencyIter<'a> {
        self.package.dependencies_of(self.record)
    }

    /// The (major, minor) format version of the package holding the entry.
    pub(crate) fn package_version(&self) -> (u32, u32) {
        self.package.version()
    }

    /// Whether the entry has a reflection blob.
    #[must_use]
    pub fn has_reflection(&self) -> bool {
        self.record.reflection != ABSENT
    }

    /// The entry's record, key and dependencies ([`Package::info`] without the checks the
    /// load made).
    #[must_use]
    pub fn info(&self) -> EntryInfo<'a> {
        EntryInfo {
            package: self.package,
            record: self.record,
            index: self.index,
        }
    }

    /// The entry's bind view (what an engine binds with), checked by the load: infallible.
    /// An empty view when the entry has no reflection.
    #[must_use]
    pub fn bind(&self) -> crate::BindView<'a> {
        ReflectionView::new(self.package.file(), self.blob, self.entry_point_hash()).bind()
    }

    /// The entry's whole reflection: the raw Slang tables beside the bind view; an empty view
    /// when the entry has none. The raw tables of a 1.6 package are loaded and checked at the
    /// first call for the entry's blob (SPEC.md 10: its section decompressed whole, every
    /// index, range and pool reference of the raw tables checked); later calls, and every
    /// accessor of the view, are infallible and allocation-free. Packages older than 1.6
    /// were checked whole by the load.
    ///
    /// # Errors
    /// As [`Package::load`] for the raw tables' section (`Decompress`, `SizeMismatch`,
    /// `LimitExceeded`) and contents (`IndexOutOfRange`, `BadStride`, ...); the same error at
    /// every call once it failed.
    pub fn reflection(&self) -> Result<ReflectionView<'a>> {
        let blob = self.package.reflection_tables(self.blob)?;
        Ok(ReflectionView::new(
            self.package.file(),
            blob,
            self.entry_point_hash(),
        ))
    }
}

/// One compiled entry point of an [`Entry`].
#[derive(Debug, Clone, Copy)]
pub struct EntryPoint<'a> {
    pub(crate) entry: Entry<'a>,
    pub(crate) record: &'a EntryPointRecord,
    pub(super) index: u32,
}

impl<'a> EntryPoint<'a> {
    /// Slang's entry-point name.
    #[must_use]
    pub fn name(&self) -> &'a str {
        self.entry.package.string(self.record.name)
    }

    /// The colour outputs of this entry point (a fragment stage's; empty for others and in
    /// packages older than 1.3): [`crate::BindView::fragment_outputs`].
    #[must_use]
    pub fn fragment_outputs(&self) -> &'a [slangpack_format::bind::FragmentOutput] {
        self.entry.bind().fragment_outputs(self.index)
    }

    /// This entry point's execution modes (`None` in packages older than 1.3):
    /// [`crate::BindView::execution_modes`].
    #[must_use]
    pub fn execution_modes(&self) -> Option<&'a slangpack_format::bind::ExecutionModes> {
        self.entry.bind().execution_modes(self.index)
    }

    /// The entry point's name inside the SPIR-V module: pass this as `pName` (usually `main`).
    #[must_use]
    pub fn spirv_entry_name(&self) -> &'a str {
        self.entry.package.string(self.record.spirv_entry_name)
    }

    /// The stage.
    #[must_use]
    pub fn stage(&self) -> Stage {
        self.record.stage_kind()
    }

    /// The stage's `VkShaderStageFlags` bit (`VkPipelineShaderStageCreateInfo::stage`); empty
    /// for a stage Vulkan has no bit for.
    #[must_use]
    pub fn stage_flags(&self) -> slangpack_format::vk::ShaderStageFlags {
        self.stage().vk_stage_flags()
    }

    /// Position in the entry's entry points (bake order): the index bind-view records use
    /// ([`crate::BindView::vertex_inputs`], bit `index` of
    /// [`DescriptorBinding::entry_point_mask`](slangpack_format::bind::DescriptorBinding)).
    #[must_use]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The entry this entry point belongs to.
    #[must_use]
    pub fn entry(&self) -> Entry<'a> {
        self.entry
    }

    /// Thread-group size `[x, y, z]`.
    #[must_use]
    pub fn thread_group_size(&self) -> [u32; 3] {
        let r = self.record;
        [
            r.thread_group_size_x,
            r.thread_group_size_y,
            r.thread_group_size_z,
        ]
    }

    /// Required wave size, if specified.
    #[must_use]
    pub fn wave_size(&self) -> Option<u32> {
        (self.record.wave_size != 0).then_some(self.record.wave_size)
    }

    /// The hash of this entry point's code: the xxh3-64 of its SPIR-V words (computed once,
    /// when its module was loaded; in a 1.x package, the hash its writer stored).
    #[must_use]
    pub fn hash(&self) -> u64 {
        self.entry.package.entry_point_hash(self.record)
    }

    /// The SPIR-V module: zero-copy from the package when stored uncompressed, else from the
    /// buffer it was decompressed into when the entry was loaded.
    #[must_use]
    pub fn spirv(&self) -> &'a [u32] {
        self.entry.package.spirv_words(self.record.spirv)
    }

    /// The SPIR-V blob index (entry points with equal modules share it).
    #[must_use]
    pub fn spirv_index(&self) -> u32 {
        self.record.spirv
    }

    /// This entry point's record in the entry's raw reflection tables, if linked; `None` also
    /// when those tables do not load ([`Entry::reflection`] says why).
    #[must_use]
    pub fn layout(&self) -> Option<&'a EntryPointLayout> {
        self.entry
            .reflection()
            .ok()?
            .entry_points()
            .get(self.record.reflection_entry_point as usize)
    }

    /// The raw record.
    #[must_use]
    pub fn record(&self) -> &'a EntryPointRecord {
        self.record
    }
}

/// An entry's record, key and dependencies, checked without loading its sections: what
/// [`Package::info`] gives, for a tool that decides from them whether to load the entry at all
/// (an incremental rebake, a listing). Every accessor is infallible and allocation-free.
#[derive(Debug, Clone, Copy)]
pub struct EntryInfo<'a> {
    pub(super) package: &'a Package,
    pub(super) record: &'a EntryRecord,
    pub(super) index: usize,
}

impl<'a> EntryInfo<'a> {
    /// The canonical permutation key.
    #[must_use]
    pub fn key(&self) -> &'a str {
        self.package.string(self.record.key)
    }

    /// Position in key order (in a paged package, among all its entries).
    #[must_use]
    pub fn index(&self) -> usize {
        self.package.entry_base + self.index
    }

    /// The raw record.
    #[must_use]
    pub fn record(&self) -> &'a EntryRecord {
        self.record
    }

    /// Hash of the compile options (as [`Entry::options_hash`]).
    #[must_use]
    pub fn options_hash(&self) -> u64 {
        join_u64(self.record.options_hash_lo, self.record.options_hash_hi)
    }

    /// How many entry points the entry has.
    #[must_use]
    pub fn entry_point_count(&self) -> usize {
        self.record.entry_point_count as usize
    }

    /// Whether the entry has a reflection blob.
    #[must_use]
    pub fn has_reflection(&self) -> bool {
        self.record.reflection != ABSENT
    }

    /// The dependencies, in bake order (as [`Entry::dependencies`]).
    #[must_use]
    pub fn dependencies(&self) -> DependencyIter<'a> {
        self.package.dependencies_of(self.record)
    }
}

/// One source dependency of an [`Entry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dependency<'a> {
    pub(super) path: &'a str,
    pub(super) hash: u64,
}

impl<'a> Dependency<'a> {
    /// Path relative to the bake root, `/`-separated.
    #[must_use]
    pub fn path(&self) -> &'a str {
        self.path
    }

    /// xxh3-64 of the file's content at bake time.
    #[must_use]
    pub fn content_hash(&self) -> u64 {
        self.hash
    }
}

/// Loads a package's entries in key order ([`Package::entries`]).
#[derive(Debug, Clone)]
pub struct EntryIter<'a> {
    pub(super) package: &'a Package,
    pub(super) range: core::ops::Range<usize>,
}

impl<'a> Iterator for EntryIter<'a> {
    type Item = Result<Entry<'a>>;
    fn next(&mut self) -> Option<Result<Entry<'a>>> {
        self.range.next().map(|i| self.package.load_at(i))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl ExactSizeIterator for EntryIter<'_> {}

/// A package's keys in key order ([`Package::keys`]).
#[derive(Debug, Clone)]
pub struct KeyIter<'a> {
    pub(super) package: &'a Package,
    pub(super) range: core::ops::Range<usize>,
}

impl<'a> Iterator for KeyIter<'a> {
    type Item = &'a str;
    /// In a paged package (3.0), an entry of a page that fails its checks gives an empty key
    /// (its load reports why).
    fn next(&mut self) -> Option<&'a str> {
        self.range
            .next()
            .map(|i| self.package.key_at(i).unwrap_or_default())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl ExactSizeIterator for KeyIter<'_> {}

/// Iterator over an entry's entry points ([`Entry::entry_points`]).
#[derive(Debug, Clone)]
pub struct EntryPointIter<'a> {
    pub(super) entry: Entry<'a>,
    pub(super) records: core::iter::Enumerate<core::slice::Iter<'a, EntryPointRecord>>,
}

impl<'a> Iterator for EntryPointIter<'a> {
    type Item = EntryPoint<'a>;
    fn next(&mut self) -> Option<EntryPoint<'a>> {
        self.records.next().map(|(index, record)| EntryPoint {
            entry: self.entry,
            record,
            // An entry's entry points are counted by a u32 record field.
            index: index as u32,
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}

impl ExactSizeIterator for EntryPointIter<'_> {}

/// Iterator over an entry's dependencies ([`Entry::dependencies`]).
#[derive(Debug, Clone)]
pub struct DependencyIter<'a> {
    pub(super) package: &'a Package,
    pub(super) records: core::slice::Iter<'a, DependencyRecord>,
}

impl<'a> Iterator for DependencyIter<'a> {
    type Item = Dependency<'a>;
    fn next(&mut self) -> Option<Dependency<'a>> {
        self.records.next().map(|r| Dependency {
            path: self.package.string(r.path),
            hash: join_u64(r.hash_lo, r.hash_hi),
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}

impl ExactSizeIterator for DependencyIter<'_> {}

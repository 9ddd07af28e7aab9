//! [`ReflectionBuilder`]: one reflection blob (SPEC.md section 6), tables in ascending kind
//! order, the raw tables after the bind view.

use super::*;

/// The program-wide scalars of a reflection blob's header (see [`ReflectionHeader`]).
///
/// `Default` gives "absent" ([`ABSENT`]) for every index and 0 for sizes and counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReflectionScalars {
    /// Binding of the implicit global constant buffer, or [`ABSENT`].
    pub global_constant_buffer_binding: u32,
    /// Set (space) of the implicit global constant buffer, or [`ABSENT`].
    pub global_constant_buffer_space: u32,
    /// Size in bytes of the implicit global constant buffer.
    pub global_constant_buffer_size: u32,
    /// Bindless space index, or [`ABSENT`].
    pub bindless_space_index: u32,
    /// Var layout of the global parameters, or [`ABSENT`].
    pub global_params_var_layout: u32,
    /// Type layout of the global parameters, or [`ABSENT`].
    pub global_params_type_layout: u32,
    /// Number of entry points of the program.
    pub entry_point_count: u32,
    /// Root decl, or [`ABSENT`].
    pub root_decl: u32,
}

impl Default for ReflectionScalars {
    fn default() -> Self {
        let h = ReflectionHeader::EMPTY;
        Self {
            global_constant_buffer_binding: h.global_constant_buffer_binding,
            global_constant_buffer_space: h.global_constant_buffer_space,
            global_constant_buffer_size: h.global_constant_buffer_size,
            bindless_space_index: h.bindless_space_index,
            global_params_var_layout: h.global_params_var_layout,
            global_params_type_layout: h.global_params_type_layout,
            entry_point_count: h.entry_point_count,
            root_decl: h.root_decl,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct RawTable {
    stride: u32,
    count: u32,
    bytes: Vec<u8>,
}

/// Builds one reflection blob: interned strings, record tables, the `u32` pool and the header
/// scalars.
///
/// Indices come back in push order, so the same sequence of calls gives the same bytes.
/// Tables are emitted in ascending [`TableKind`] order; empty tables are omitted (a reader treats
/// a missing table as empty).
///
/// ```
/// use slangpack_format::{ReflectionBuilder, Type, TypeKind, ABSENT};
/// let mut b = ReflectionBuilder::new();
/// let name = b.intern("float4");
/// let t = b.push(Type { kind: TypeKind::Vector.to_raw(), name, full_name: name,
///     element_type: ABSENT, resource_result_type: ABSENT, generic_container: ABSENT,
///     ..Type::default() });
/// assert_eq!(t, 0);
/// let blob: Vec<u8> = b.finish();
/// assert_eq!(&blob[..4], b"SPRF");
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReflectionBuilder {
    tables: BTreeMap<u32, RawTable>,
    interned: HashMap<String, u32>,
    scalars: ReflectionScalars,
}

impl ReflectionBuilder {
    /// An empty builder.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns `s` and returns its string index; equal strings share one index.
    ///
    /// # Panics
    /// If the string pool would exceed 4 GiB or one string [`limits::MAX_STRING_LEN`].
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&index) = self.interned.get(s) {
            return index;
        }
        assert!(
            s.len() <= limits::MAX_STRING_LEN as usize,
            "string too long"
        );
        let bytes = self
            .tables
            .entry(TableKind::StringBytes.to_raw())
            .or_insert(RawTable {
                stride: 1,
                ..RawTable::default()
            });
        let offset = u32::try_from(bytes.bytes.len()).expect("string pool over 4 GiB");
        bytes.bytes.extend_from_slice(s.as_bytes());
        bytes.count = u32::try_from(bytes.bytes.len()).expect("string pool over 4 GiB");
        let len = s.len() as u32;
        let index = self.push(StringRef { offset, len });
        self.interned.insert(s.to_owned(), index);
        index
    }

    /// String `index` of the blob's string table, if interned.
    #[must_use]
    pub fn string(&self, index: u32) -> Option<&str> {
        let r = self.get::<StringRef>(index)?;
        let bytes = &self.tables.get(&TableKind::StringBytes.to_raw())?.bytes;
        let start = r.offset as usize;
        core::str::from_utf8(bytes.get(start..start.checked_add(r.len as usize)?)?).ok()
    }

    /// Interns `s` when present; `None` gives [`ABSENT`].
    pub fn intern_opt(&mut self, s: Option<&str>) -> u32 {
        s.map_or(ABSENT, |s| self.intern(s))
    }

    /// Appends one record to its table and returns its index.
    pub fn push<R: TableRecord>(&mut self, record: R) -> u32 {
        self.push_all(core::slice::from_ref(&record))
    }

    /// Appends records to their table and returns the index of the first (the table's length
    /// when `records` is empty).
    ///
    /// # Panics
    /// If the table would hold more than `u32::MAX - 1` records.
    pub fn push_all<R: TableRecord>(&mut self, records: &[R]) -> u32 {
        let stride = core::mem::size_of::<R>() as u32;
        self.push_raw(R::KIND.to_raw(), stride, records.as_bytes())
    }

    /// Appends raw records of `stride` bytes to table `kind`, for table kinds or record
    /// versions this crate does not define (tests of forward compatibility, newer writers).
    /// Returns the index of the first record.
    ///
    /// # Panics
    /// If `stride` is 0 or not a multiple of 4 (except for the string bytes table), differs from
    /// the table's existing stride, or `bytes` is not a whole number of records.
    pub fn push_raw(&mut self, kind: u32, stride: u32, bytes: &[u8]) -> u32 {
        assert!(stride > 0, "stride must be positive");
        assert!(
            stride % 4 == 0 || kind == TableKind::StringBytes.to_raw(),
            "stride must be a multiple of 4"
        );
        assert!(bytes.len() % stride as usize == 0, "partial record");
        let table = self.tables.entry(kind).or_insert(RawTable {
            stride,
            ..RawTable::default()
        });
        assert_eq!(table.stride, stride, "table {kind} stride changed");
        let first = table.count;
        let added = u32::try_from(bytes.len() / stride as usize).expect("too many records");
        table.count = first
            .checked_add(added)
            .filter(|&c| c < ABSENT)
            .expect("too many records");
        table.bytes.extend_from_slice(bytes);
        first
    }

    /// Appends a slice of the `u32` pool and returns its start offset.
    pub fn push_pool(&mut self, words: &[u32]) -> u32 {
        self.push_all(words)
    }

    /// Number of records in `R`'s table so far.
    #[must_use]
    pub fn table_len<R: TableRecord>(&self) -> u32 {
        self.tables.get(&R::KIND.to_raw()).map_or(0, |t| t.count)
    }

    /// A copy of record `index` of `R`'s table, or `None` when out of range.
    #[must_use]
    pub fn get<R: TableRecord>(&self, index: u32) -> Option<R> {
        let table = self.tables.get(&R::KIND.to_raw())?;
        let size = core::mem::size_of::<R>();
        let start = (index as usize).checked_mul(size)?;
        R::read_from_bytes(table.bytes.get(start..start.checked_add(size)?)?).ok()
    }

    /// Overwrites record `index` of `R`'s table (to patch links once known); returns `false`
    /// when out of range.
    pub fn set<R: TableRecord>(&mut self, index: u32, record: R) -> bool {
        let size = core::mem::size_of::<R>();
        let Some(table) = self.tables.get_mut(&R::KIND.to_raw()) else {
            return false;
        };
        let Some(start) = (index as usize).checked_mul(size) else {
            return false;
        };
        match table.bytes.get_mut(start..start + size) {
            Some(dst) => {
                dst.copy_from_slice(record.as_bytes());
                true
            }
            None => false,
        }
    }

    /// The header scalars, to set before [`ReflectionBuilder::finish`].
    pub fn scalars_mut(&mut self) -> &mut ReflectionScalars {
        &mut self.scalars
    }

    /// The header scalars.
    #[must_use]
    pub fn scalars(&self) -> &ReflectionScalars {
        &self.scalars
    }

    /// Emits the blob: header, table directory (ascending kind), then each non-empty table at
    /// a 4-aligned offset, padding with zero bytes: first every table but the raw Slang
    /// tables, in ascending kind, then (from the next multiple of 8, the header's
    /// `tables_offset`) the raw tables in ascending kind. Without raw tables `tables_offset`
    /// is 0.
    ///
    /// # Panics
    /// If the blob would exceed 4 GiB.
    #[must_use]
    pub fn finish(self) -> Vec<u8> {
        let tables: Vec<(u32, RawTable)> = self
            .tables
            .into_iter()
            .filter(|(_, t)| t.count > 0)
            .collect();
        let header_size = core::mem::size_of::<ReflectionHeader>();
        let dir_size = tables.len() * core::mem::size_of::<TableDirRecord>();
        let is_raw = |kind: u32| TableKind::from_raw(kind).is_raw();
        // Placement order: the bind part, then the raw tables.
        let order: Vec<usize> = (0..tables.len())
            .filter(|&i| !is_raw(tables[i].0))
            .chain((0..tables.len()).filter(|&i| is_raw(tables[i].0)))
            .collect();
        let mut offset = header_size + dir_size;
        let mut offsets = vec![0u32; tables.len()];
        let mut tables_offset = 0;
        for &i in &order {
            let table = &tables[i].1;
            if is_raw(tables[i].0) && tables_offset == 0 {
                offset = align_up(offset, 8);
                tables_offset = u32::try_from(offset).expect("blob over 4 GiB");
            }
            offsets[i] = u32::try_from(offset).expect("blob over 4 GiB");
            offset = align_up(offset + table.bytes.len(), 4);
        }
        let dir: Vec<TableDirRecord> = tables
            .iter()
            .zip(&offsets)
            .map(|((kind, table), &offset)| TableDirRecord {
                kind: *kind,
                offset,
                count: table.count,
                stride: table.stride,
            })
            .collect();
        let s = self.scalars;
        let header = ReflectionHeader {
            table_count: u32::try_from(tables.len()).expect("too many tables"),
            global_constant_buffer_binding: s.global_constant_buffer_binding,
            global_constant_buffer_space: s.global_constant_buffer_space,
            global_constant_buffer_size: s.global_constant_buffer_size,
            bindless_space_index: s.bindless_space_index,
            global_params_var_layout: s.global_params_var_layout,
            global_params_type_layout: s.global_params_type_layout,
            entry_point_count: s.entry_point_count,
            root_decl: s.root_decl,
            tables_offset,
            ..ReflectionHeader::EMPTY
        };
        let mut out = Vec::with_capacity(offset);
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(dir.as_bytes());
        for &i in &order {
            out.resize(offsets[i] as usize, 0);
            out.extend_from_slice(&tables[i].1.bytes);
        }
        out.resize(align_up(out.len(), 4), 0);
        out
    }
}

/// Rounds `value` up to a multiple of `align` (a power of two).
pub(super) const fn align_up(value: usize, align: usize) -> usize {
    (value + align - 1) & !(align - 1)
}

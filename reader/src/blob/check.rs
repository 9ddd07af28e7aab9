//! The checks of a loaded blob's tables: every reference field the format declares, the
//! kind-dependent references, the header's scalars; the bind view's rules are in [`bind_view`].

use super::{slot, Blob, Where};
use crate::error::{Error, ErrorKind as K, Result};
use crate::storage::cast;
use slangpack_format::*;
use zerocopy::{FromBytes, Immutable, KnownLayout};

mod bind_view;

/// A record being checked, for error messages.
#[derive(Clone, Copy)]
struct Rec {
    table: TableKind,
    index: usize,
}

/// The checks of one record's reference fields ([`RecordRefs::visit_refs`]).
struct RefCheck<'c, 'b> {
    checker: &'c Checker<'b>,
    rec: Rec,
}

impl RefVisitor for RefCheck<'_, '_> {
    type Error = Error;

    #[inline(always)]
    fn index(&mut self, field: &'static str, table: TableKind, value: u32) -> Result<()> {
        self.checker.idx(self.rec, field, value, table)
    }

    #[inline(always)]
    fn range(
        &mut self,
        field: &'static str,
        table: TableKind,
        first: u32,
        count: u32,
    ) -> Result<()> {
        self.checker.range(self.rec, field, first, count, table)
    }

    #[inline(always)]
    fn pool(&mut self, field: &'static str, offset: u32, count: u32, words: u32) -> Result<()> {
        self.checker
            .pool(self.rec, field, offset, count, u64::from(words))
            .map(|_| ())
    }

    #[inline(always)]
    fn pool_indices(
        &mut self,
        field: &'static str,
        table: TableKind,
        offset: u32,
        count: u32,
    ) -> Result<()> {
        self.checker.pool_idx(self.rec, field, offset, count, table)
    }
}

/// Checks every index field of a blob against the table lengths.
pub(super) struct Checker<'b> {
    blob: &'b Blob,
    base: &'b [u8],
    at: Where,
    counts: [u64; TABLE_KINDS],
    pool: &'b [u32],
    /// Pool words index-checked so far; bounded so that validation stays linear in the blob.
    pool_checks: std::cell::Cell<u64>,
}

impl<'b> Checker<'b> {
    pub(super) fn new(blob: &'b Blob, base: &'b [u8], at: Where) -> Self {
        let counts = blob.counts;
        let pool = cast::<u32>(blob.table_bytes(base, slot(TableKind::U32Pool)));
        Self {
            blob,
            base,
            at,
            counts,
            pool,
            pool_checks: std::cell::Cell::new(0),
        }
    }

    fn table<T: FromBytes + zerocopy::KnownLayout + zerocopy::Immutable + TableRecord>(
        &self,
    ) -> &'b [T] {
        cast(self.blob.table_bytes(self.base, slot(T::KIND)))
    }

    #[inline(always)]
    fn count(&self, kind: TableKind) -> u64 {
        self.counts.get(slot(kind)).copied().unwrap_or(0)
    }

    #[cold]
    #[inline(never)]
    fn fail(&self, rec: Rec, field: &'static str, detail: String) -> Error {
        self.at.err(
            K::IndexOutOfRange,
            0,
            format_args!("{}[{}].{field} {detail}", rec.table.name(), rec.index),
        )
    }

    /// A field of `rec` holds a value the format does not allow.
    #[cold]
    #[inline(never)]
    fn bad_value(&self, rec: Rec, field: &'static str, detail: String) -> Error {
        self.at.err(
            K::BadValue,
            0,
            format_args!("{}[{}].{field} {detail}", rec.table.name(), rec.index),
        )
    }

    /// `value` is absent or indexes `target`.
    #[inline(always)]
    fn idx(&self, rec: Rec, field: &'static str, value: u32, target: TableKind) -> Result<()> {
        // `ABSENT + 1` wraps to 0: one comparison covers "absent or in range".
        if u64::from(value.wrapping_add(1)) <= self.count(target) {
            Ok(())
        } else {
            Err(self.idx_fail(rec, field, value, target))
        }
    }

    #[cold]
    #[inline(never)]
    fn idx_fail(&self, rec: Rec, field: &'static str, value: u32, target: TableKind) -> Error {
        self.fail(
            rec,
            field,
            format!("= {value}, expected < {} or absent", self.count(target)),
        )
    }

    /// Every reference field of every record of table `T`, as the format
    /// declares them ([`RecordRefs::REFS`]): an index in range or absent, a range of records
    /// within its table, a pool slice within the pool, a pool slice of indices in range.
    fn refs<T: RecordRefs + TableRecord + FromBytes + KnownLayout + Immutable>(
        &self,
    ) -> Result<()> {
        let table = T::KIND;
        for (index, record) in self.table::<T>().iter().enumerate() {
            record.visit_refs(&mut RefCheck {
                checker: self,
                rec: Rec { table, index },
            })?;
        }
        Ok(())
    }

    /// `first..first + count` lies within `target`.
    #[inline(always)]
    fn range(
        &self,
        rec: Rec,
        field: &'static str,
        first: u32,
        count: u32,
        target: TableKind,
    ) -> Result<()> {
        if count == 0 || u64::from(first) + u64::from(count) <= self.count(target) {
            Ok(())
        } else {
            Err(self.range_fail(rec, field, first, count, target))
        }
    }

    #[cold]
    #[inline(never)]
    fn range_fail(
        &self,
        rec: Rec,
        field: &'static str,
        first: u32,
        count: u32,
        target: TableKind,
    ) -> Error {
        {
            self.fail(
                rec,
                field,
                format!(
                    "range {first}+{count} exceeds {} records of {}",
                    self.count(target),
                    target.name()
                ),
            )
        }
    }

    /// The pool slice `off..off + count * per` lies within the pool.
    #[inline(always)]
    fn pool(
        &self,
        rec: Rec,
        field: &'static str,
        off: u32,
        count: u32,
        per: u64,
    ) -> Result<&'b [u32]> {
        if count == 0 {
            return Ok(&[]);
        }
        let end = u64::from(off) + u64::from(count) * per;
        if end <= self.pool.len() as u64 {
            Ok(self.pool.get(off as usize..end as usize).unwrap_or(&[]))
        } else {
            Err(self.pool_fail(rec, field, off, end))
        }
    }

    #[cold]
    #[inline(never)]
    fn pool_fail(&self, rec: Rec, field: &'static str, off: u32, end: u64) -> Error {
        self.fail(
            rec,
            field,
            format!(
                "pool slice {off}..{end} exceeds the pool ({} words)",
                self.pool.len()
            ),
        )
    }

    /// The pool slice holds `count` indices into `target` (absent not allowed).
    #[inline(always)]
    fn pool_idx(
        &self,
        rec: Rec,
        field: &'static str,
        off: u32,
        count: u32,
        target: TableKind,
    ) -> Result<()> {
        let n = self.count(target);
        let words = self.pool(rec, field, off, count, 1)?;
        // Many records may name the same long slice; checking each naming again would make
        // loading quadratic in a hostile blob. Real blobs name each slice a few times at most.
        let checks = self.pool_checks.get() + words.len() as u64;
        let budget =
            limits::POOL_CHECK_FACTOR * self.pool.len() as u64 + limits::POOL_CHECK_ALLOWANCE;
        if checks > budget {
            return Err(self.pool_budget(rec, field, checks));
        }
        self.pool_checks.set(checks);
        // No early exit: the whole slice is compared, then the first bad word is found.
        if words
            .iter()
            .fold(false, |bad, &v| bad | (u64::from(v) >= n))
        {
            return Err(self.pool_idx_fail(rec, field, words, n));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn pool_idx_fail(&self, rec: Rec, field: &'static str, words: &[u32], n: u64) -> Error {
        let v = words
            .iter()
            .find(|&&v| u64::from(v) >= n)
            .copied()
            .unwrap_or(0);
        self.fail(rec, field, format!("list holds {v}, expected < {n}"))
    }

    /// Refuses a parent chain longer than [`limits::MAX_NESTING_DEPTH`], or a cycle, in a
    /// table whose `parent` fields were range-checked: every walk over buffer members and decls
    /// may then recurse (SPEC.md, "Limits"). O(records × bound) steps, no allocation.
    fn nesting(&self, table: TableKind, len: usize, parent: impl Fn(usize) -> u32) -> Result<()> {
        for index in 0..len {
            let mut up = parent(index);
            let mut depth = 1;
            while up != ABSENT {
                depth += 1;
                if depth > limits::MAX_NESTING_DEPTH {
                    return Err(self.at.err(
                        K::LimitExceeded,
                        0,
                        format_args!(
                            "{}[{index}] is nested deeper than {} levels (or its parents form \
                             a cycle)",
                            table.name(),
                            limits::MAX_NESTING_DEPTH
                        ),
                    ));
                }
                up = parent(up as usize);
            }
        }
        Ok(())
    }

    /// Buffer layouts with members follow each other without sharing any (stored in the order
    /// of their first member, SPEC 6.7), and every member's parent is absent or an earlier
    /// member of its own layout (a flattened pre-order list). One pass over the members.
    fn member_parents(&self, members: &[bind::BufferMember]) -> Result<()> {
        use TableKind as T;
        let mut end_of_previous = 0u64;
        for (i, b) in self.table::<bind::BufferLayout>().iter().enumerate() {
            if b.member_count == 0 {
                continue;
            }
            let first = u64::from(b.first_member);
            let r = Rec {
                table: T::BufferLayouts,
                index: i,
            };
            if first < end_of_previous {
                return Err(self.bad_value(
                    r,
                    "first_member",
                    format!(
                        "= {first}, inside the members of an earlier buffer layout (which end at \
                         {end_of_previous})"
                    ),
                ));
            }
            end_of_previous = first + u64::from(b.member_count);
            let own = members
                .get(first as usize..end_of_previous as usize)
                .unwrap_or(&[]);
            for (k, m) in own.iter().enumerate() {
                let index = first + k as u64;
                let parent = u64::from(m.parent);
                if m.parent != ABSENT && !(first..index).contains(&parent) {
                    return Err(self.bad_value(
                        Rec {
                            table: T::BufferMembers,
                            index: index as usize,
                        },
                        "parent",
                        format!(
                            "= {parent}, not an earlier member of buffer layout {i} \
                             (members {first}..{index} come before it)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    #[cold]
    fn pool_budget(&self, rec: Rec, field: &str, checks: u64) -> Error {
        self.at.err(
            K::LimitExceeded,
            0,
            format_args!(
                "{}[{}].{field}: the blob's records name {checks} pool words, more than {} times \
                 its pool of {} words",
                rec.table.name(),
                rec.index,
                limits::POOL_CHECK_FACTOR,
                self.pool.len()
            ),
        )
    }

    /// Every rule of a blob that is not split.
    pub(super) fn check_all(&self) -> Result<()> {
        self.check_raw_tables()?;
        self.check_bind_part()
    }

    /// What the load of a split blob checks: the header's scalars (against the directory's
    /// counts) and every table but the raw ones.
    pub(super) fn check_bind_part(&self) -> Result<()> {
        self.check_header()?;
        self.check_bind()?;
        self.check_target_bindings()
    }

    /// The raw Slang tables (kinds 1 to 17): every index, range and pool reference in them.
    pub(super) fn check_raw_tables(&self) -> Result<()> {
        use TableKind as T;
        let s = T::StringRefs;
        let r = |table, index| Rec { table, index };
        // Every reference field the format declares (`RecordRefs`), table by table.
        self.refs::<Type>()?;
        self.refs::<TypeLayout>()?;
        self.refs::<Variable>()?;
        self.refs::<VarLayout>()?;
        self.refs::<Function>()?;
        self.refs::<Generic>()?;
        self.refs::<Decl>()?;
        self.refs::<EntryPointLayout>()?;
        self.refs::<Attribute>()?;
        self.refs::<AttributeArg>()?;
        self.refs::<BindingRange>()?;
        self.refs::<DescriptorSet>()?;
        self.refs::<SubObjectRange>()?;
        // The references whose kind another field decides.
        for (i, v) in self.table::<Variable>().iter().enumerate() {
            if v.default_value_kind() == ValueKind::String {
                self.idx(r(T::Variables, i), "default_lo", v.default_lo, s)?;
            }
        }
        for (i, g) in self.table::<Generic>().iter().enumerate() {
            let r = r(T::Generics, i);
            let pairs = self.pool(
                r,
                "constraint_pool",
                g.constraint_pool,
                g.constraint_count,
                2,
            )?;
            for pair in pairs.chunks_exact(2) {
                if let [param, ty] = *pair {
                    if u64::from(param) >= self.count(T::Variables)
                        || u64::from(ty) >= self.count(T::Types)
                    {
                        return Err(self.fail(
                            r,
                            "constraint_pool",
                            format!("pair ({param}, {ty}) out of range"),
                        ));
                    }
                }
            }
        }
        for (i, d) in self.table::<Decl>().iter().enumerate() {
            let payload_table = match d.decl_kind() {
                DeclKind::Struct | DeclKind::Enum => Some(T::Types),
                DeclKind::Func => Some(T::Functions),
                DeclKind::Generic => Some(T::Generics),
                DeclKind::Variable => Some(T::Variables),
                _ => None,
            };
            if let Some(target) = payload_table {
                self.idx(r(T::Decls, i), "payload", d.payload, target)?;
            }
        }
        let decls = self.table::<Decl>();
        self.nesting(T::Decls, decls.len(), |i| {
            decls.get(i).map_or(ABSENT, |d| d.parent)
        })?;
        for (i, a) in self.table::<AttributeArg>().iter().enumerate() {
            if a.value_kind() == ValueKind::String {
                self.idx(r(T::AttributeArgs, i), "value_lo", a.value_lo, s)?;
            }
        }
        for (i, h) in self.table::<HashedString>().iter().enumerate() {
            let r = r(T::HashedStrings, i);
            if u64::from(h.string) >= self.count(s) {
                return Err(self.fail(
                    r,
                    "string",
                    format!("= {}, expected < {}", h.string, self.count(s)),
                ));
            }
        }
        Ok(())
    }

    /// The header's index scalars and entry-point count, against the directory's counts.
    fn check_header(&self) -> Result<()> {
        use TableKind as T;
        let h = &self.blob.header;
        let hr = Rec {
            table: TableKind::Unknown(0),
            index: 0,
        };
        let header_checks = [
            (
                "global_params_var_layout",
                h.global_params_var_layout,
                T::VarLayouts,
            ),
            (
                "global_params_type_layout",
                h.global_params_type_layout,
                T::TypeLayouts,
            ),
            ("root_decl", h.root_decl, T::Decls),
        ];
        for (field, value, target) in header_checks {
            self.idx(hr, field, value, target).map_err(|_| {
                self.at.err(
                    K::IndexOutOfRange,
                    0,
                    format_args!("header {field} = {value} out of range"),
                )
            })?;
        }
        // A count of the entry-point table's records: a C consumer may walk that many.
        if u64::from(h.entry_point_count) > self.count(T::EntryPoints) {
            return Err(self.at.err(
                K::IndexOutOfRange,
                0,
                format_args!(
                    "header entry_point_count = {}, but the entry-point table has {} records",
                    h.entry_point_count,
                    self.count(T::EntryPoints)
                ),
            ));
        }
        Ok(())
    }
}

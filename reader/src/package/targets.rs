//! Target-code loading: the `TargetCode` sections, checked at the first load of an entry
//! that uses them, and the entry-point targets table, checked at open.

use super::Package;
use crate::cells::{Cells, CellsBuilder};
use crate::error::{err, ErrorKind as K, Result};
use crate::storage::{cast, Bytes};
use slangpack_format::{EntryPointTargetRecord, SectionKind, SectionRecord, Target};

/// One code blob, loaded: text (decompressed into, or copied into, a `String` once, UTF-8
/// checked, so that it is served as `&str` without further checks), or bytes (in the file or
/// decompressed).
#[derive(Debug)]
pub(crate) enum LoadedCode {
    /// WGSL, GLSL, HLSL or Metal source.
    Text(String),
    /// A binary target's code (DXIL).
    Bytes(Bytes),
}

/// The target sections of an opened package: the entry-point targets table (checked at
/// open) and the code blobs, each loaded at the first load of an entry whose entry points
/// use it.
#[derive(Debug)]
pub(crate) struct TargetTables {
    code: Cells<LoadedCode>,
    records: Bytes,
}

impl TargetTables {
    /// No target tables: a paged package's own (its pages have theirs).
    pub(crate) fn none() -> Self {
        TargetTables {
            code: CellsBuilder::default().finish(),
            records: Bytes::EMPTY,
        }
    }
}

/// Target sections met while reading the directory, before they can be checked together.
#[derive(Default)]
pub(crate) struct RawTargetSections {
    code: CellsBuilder,
    table: Option<(usize, SectionRecord)>,
}

impl RawTargetSections {
    /// Takes section `i` (a `TargetCode` or `EntryPointTargets` section).
    pub(crate) fn add(&mut self, i: usize, rec: &SectionRecord) -> Result<()> {
        if rec.section_kind() == SectionKind::TargetCode {
            self.code.push(i);
            return Ok(());
        }
        if self.table.is_some() {
            return Err(err(
                K::Duplicate,
                rec.offset(),
                format!("section {i}: a second EntryPointTargets section"),
            ));
        }
        self.table = Some((i, *rec));
        Ok(())
    }

    /// Loads the entry-point targets table (`load` checksums and decompresses a section) and
    /// checks its stride; the code blobs are left to their first use.
    pub(crate) fn finish(
        self,
        file: &[u8],
        load: &dyn Fn(usize) -> Result<Bytes>,
        reserve: &dyn Fn(u64) -> Result<()>,
    ) -> Result<TargetTables> {
        let records = match self.table {
            Some((i, rec)) => crate::package::repack(
                file,
                load(i)?,
                &rec,
                size_of::<EntryPointTargetRecord>(),
                &|| format!("section {i} (entry-point targets)"),
                reserve,
            )?,
            None => Bytes::EMPTY,
        };
        Ok(TargetTables {
            code: self.code.finish(),
            records,
        })
    }
}

impl Package {
    pub(crate) fn entry_point_target_records(&self) -> &[EntryPointTargetRecord] {
        cast(self.targets.records.get(self.file()))
    }

    /// Checks the entry-point targets table: sorted by (entry point, target), strictly; every
    /// index in range; SPIR-V never listed; a blob is text for every record or for none.
    pub(crate) fn check_targets(&self, string_count: u32) -> Result<()> {
        let records = self.entry_point_target_records();
        let entry_points = self.entry_point_records().len();
        // A blob is text when a record names it with a text target.
        let mut text = vec![false; self.targets.code.len()];
        for r in records {
            if let Some(t) = text.get_mut(r.code as usize) {
                *t |= Target::from_raw(r.target).is_text();
            }
        }
        let mut last: Option<(u32, u32)> = None;
        for (i, r) in records.iter().enumerate() {
            let bad =
                |kind, msg: String| Err(err(kind, 0, format!("entry-point target {i}: {msg}")));
            if last.is_some_and(|l| l >= (r.entry_point, r.target)) {
                return bad(K::BadKeyIndex, "not sorted by (entry point, target)".into());
            }
            last = Some((r.entry_point, r.target));
            if r.entry_point as usize >= entry_points {
                return bad(
                    K::IndexOutOfRange,
                    format!("entry point {} out of range", r.entry_point),
                );
            }
            if r.entry_name >= string_count {
                return bad(
                    K::IndexOutOfRange,
                    format!("entry name string {} out of range", r.entry_name),
                );
            }
            let target = Target::from_raw(r.target);
            if target == Target::Spirv {
                return bad(
                    K::IndexOutOfRange,
                    "lists SPIR-V, which is the entry point's own code, not a code blob".into(),
                );
            }
            match text.get(r.code as usize) {
                None => {
                    return bad(
                        K::IndexOutOfRange,
                        format!("code blob {} out of range", r.code),
                    )
                }
                Some(true) if !target.is_text() => {
                    return bad(
                        K::BadString,
                        format!("code blob {} is shared with a text target", r.code),
                    )
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Loads the code of every target of entry point `entry_point` (its index in the
    /// entry-point table) that no earlier load did: checksum, decompression, and for text
    /// targets the UTF-8 check.
    pub(crate) fn load_target_code(&self, entry_point: u32) -> Result<()> {
        for r in self.target_records_of(entry_point) {
            self.load_code_blob(r.code as usize, Target::from_raw(r.target))?;
        }
        Ok(())
    }

    /// Loads every code blob (for [`Package::verify_all`]), in directory order; a blob no
    /// record names is loaded as bytes (its checksum and frame are checked).
    pub(crate) fn load_all_target_code(&self) -> Result<()> {
        let records = self.entry_point_target_records();
        for n in 0..self.targets.code.len() {
            let target = records
                .iter()
                .find(|r| r.code as usize == n)
                .map_or(Target::Dxil, |r| Target::from_raw(r.target));
            self.load_code_blob(n, target)?;
        }
        Ok(())
    }

    /// Loads code blob `n` of `target` once (whoever calls first).
    fn load_code_blob(&self, n: usize, target: Target) -> Result<()> {
        let loaded = self.targets.code.get_or_load(n, |i| {
            if !target.is_text() {
                return Ok(LoadedCode::Bytes(self.load_section(i)?));
            }
            // Decompressed once, into the buffer the `String` then owns (no second copy).
            let offset = self.section_record(i).offset();
            let text = String::from_utf8(self.load_section_vec(i)?).map_err(|e| {
                err(
                    K::BadString,
                    offset + e.utf8_error().valid_up_to() as u64,
                    format!("section {i}: {} code is not valid UTF-8", target.name()),
                )
            })?;
            Ok(LoadedCode::Text(text))
        });
        match loaded {
            Some(result) => result.map(|_| ()),
            None => Ok(()), // range-checked at open
        }
    }

    /// Code blob `index`, once an entry using it was loaded.
    pub(crate) fn loaded_code(&self, index: usize) -> Option<&LoadedCode> {
        self.targets.code.loaded(index)
    }

    /// The records of entry point `entry_point` in the entry-point targets table.
    pub(crate) fn target_records_of(&self, entry_point: u32) -> &[EntryPointTargetRecord] {
        let records = self.entry_point_target_records();
        let start = records.partition_point(|r| r.entry_point < entry_point);
        let end = records.partition_point(|r| r.entry_point <= entry_point);
        records.get(start..end).unwrap_or(&[])
    }

    /// Number of distinct code blobs of targets other than SPIR-V.
    #[must_use]
    pub fn target_code_count(&self) -> usize {
        self.each_page(|page| page.targets.code.len())
    }
}

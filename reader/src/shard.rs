//! The `ShardPlan` section of a sharded bake's package (SPEC.md 5.9), read on request.

use crate::error::{err, ErrorKind as K, Result};
use crate::package::Package;
use slangpack_format::{Compression, SectionKind, ShardRecord};
use zerocopy::FromBytes;

impl Package {
    /// Which slice of which bake plan this package holds, when a sharded bake
    /// (`slangpack bake --shard K/N`) wrote it; `Ok(None)` for every other package. Checked
    /// here, not at open (SPEC.md 5.9).
    ///
    /// # Errors
    /// [`ErrorKind::Duplicate`](crate::ErrorKind::Duplicate) for a second `ShardPlan` section,
    /// `UnsupportedCompression` for a compressed one, `BadStride` / `SizeMismatch` for a
    /// section that is not one record, `OutOfBounds`, `ChecksumMismatch`, and `BadValue` for
    /// a slice number outside `1..=shard_count` or more slice than plan.
    pub fn shard_plan(&self) -> Result<Option<ShardRecord>> {
        if let Some(pages) = self.paged() {
            // Every page lists the package's shard plan: the first page's is the package's.
            return self.page(pages, 0)?.shard_plan();
        }
        let mut found = None;
        for (i, rec) in self.sections().enumerate() {
            if rec.section_kind() != SectionKind::ShardPlan {
                continue;
            }
            let at = rec.offset();
            if found.is_some() {
                return Err(err(K::Duplicate, at, "a second shard plan section"));
            }
            if rec.compression_kind() != Compression::None {
                return Err(err(
                    K::UnsupportedCompression,
                    at,
                    "the shard plan section is stored compressed",
                ));
            }
            let size = core::mem::size_of::<ShardRecord>() as u64;
            let stride = u64::from(rec.record_stride);
            if stride < size || stride % 4 != 0 || rec.record_count != 1 {
                return Err(err(
                    K::BadStride,
                    at,
                    format!(
                        "shard plan: {} records of {stride} bytes, expected one of at least {size}",
                        rec.record_count
                    ),
                ));
            }
            if rec.stored_size() != stride || rec.raw_size() != stride {
                return Err(err(
                    K::SizeMismatch,
                    at,
                    format!(
                        "shard plan: {} bytes for one record of {stride}",
                        rec.stored_size()
                    ),
                ));
            }
            let bytes = usize::try_from(at)
                .ok()
                .and_then(|start| Some(start..start.checked_add(usize::try_from(stride).ok()?)?))
                .and_then(|range| self.as_bytes().get(range))
                .ok_or_else(|| err(K::OutOfBounds, at, "the shard plan lies outside the file"))?;
            // Its own checksum, or its checksum run's (2.3, SPEC.md 4.3 rule 3).
            if self.check_checksum(i, &rec).is_err() {
                return Err(err(K::ChecksumMismatch, at, "shard plan checksum mismatch"));
            }
            let Ok((shard, _)) = ShardRecord::read_from_prefix(bytes) else {
                return Err(err(K::SizeMismatch, at, "shard plan record too short"));
            };
            if shard.shard_index == 0
                || shard.shard_index > shard.shard_count
                || shard.job_count > shard.plan_job_count
                || shard.library_count > shard.job_count
            {
                return Err(err(
                    K::BadValue,
                    at,
                    format!(
                        "shard plan: slice {}/{} of {} jobs holding {} ({} libraries)",
                        shard.shard_index,
                        shard.shard_count,
                        shard.plan_job_count,
                        shard.job_count,
                        shard.library_count
                    ),
                ));
            }
            found = Some(shard);
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use slangpack_format::*;

    fn package(shard: Option<ShardRecord>, compressed_index: bool) -> Vec<u8> {
        let mut p = PackageBuilder::new();
        if compressed_index {
            p.set_spirv_compression(Compression::Zstd);
            p.set_compressed_index(true);
        }
        if let Some(shard) = shard {
            p.set_shard(shard);
        }
        p.finish().unwrap()
    }

    fn shard() -> ShardRecord {
        ShardRecord {
            shard_index: 2,
            shard_count: 3,
            plan_hash_lo: 0x1234_5678,
            plan_hash_hi: 0x9abc_def0,
            plan_job_count: 7,
            job_count: 2,
            library_count: 1,
            reserved: 0,
        }
    }

    #[test]
    fn a_shard_plan_reads_back_and_other_packages_have_none() {
        for compressed_index in [false, true] {
            let bytes = package(Some(shard()), compressed_index);
            let p = crate::Package::from_bytes(&bytes).unwrap();
            assert_eq!(p.shard_plan().unwrap(), Some(shard()));
            assert_eq!(shard().plan_hash(), 0x9abc_def0_1234_5678);
            p.verify_all().unwrap();
            let plain = crate::Package::from_bytes(&package(None, compressed_index)).unwrap();
            assert_eq!(plain.shard_plan().unwrap(), None);
        }
    }

    #[test]
    fn a_second_shard_plan_fails_the_full_check() {
        let bytes = package(Some(shard()), false);
        let mut sections = read_sections(&bytes).unwrap();
        let plan = sections
            .iter()
            .find(|s| s.kind == SectionKind::ShardPlan.to_raw())
            .unwrap()
            .clone();
        sections.push(plan);
        let twice = assemble_sections(&sections).unwrap();
        let p = crate::Package::from_bytes(&twice).expect("open reads no shard plan");
        let e = p.verify_all().unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Duplicate, "{e}");
        assert!(e.message().contains("a second shard plan"), "{e}");
        // A bad slice number fails it too, not only `shard_plan` (`merge`).
        let bad = ShardRecord {
            shard_index: 0,
            ..shard()
        };
        let p = crate::Package::from_bytes(&package(Some(bad), false)).unwrap();
        assert_eq!(
            p.verify_all().unwrap_err().kind(),
            crate::ErrorKind::BadValue
        );
    }

    #[test]
    fn a_bad_slice_number_is_refused() {
        let bad = ShardRecord {
            shard_index: 4,
            ..shard()
        };
        let p = crate::Package::from_bytes(&package(Some(bad), false)).unwrap();
        assert_eq!(
            p.shard_plan().unwrap_err().kind(),
            crate::ErrorKind::BadValue
        );
    }
}

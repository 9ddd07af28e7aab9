//! Module runs (2.7, SPEC.md 5.6.2): consecutive SPIR-V sections whose packed modules share
//! one zstd frame, that of the run's last section. A module of a run is loaded from that frame:
//! decompressed once per thread into a buffer kept while later loads read the same run (an
//! entry's modules, a walk of the package), the modules before it stepped over (in 2.9 by the
//! packed lengths their records give, without reading them), its own unpacked into its own
//! buffer.

use super::*;

thread_local! {
    /// The frame of the module run read last on this thread, decompressed.
    static RUN: std::cell::RefCell<RunFrame> = std::cell::RefCell::new(RunFrame::default());
}

/// The most bytes a thread keeps in its buffer of a run's frame (a module run's, a bind-view
/// run's) between loads.
pub(super) const RUN_KEPT: usize = 1 << 20;

/// A module run's frame, decompressed, and where each module before the last looked for in it
/// starts.
#[derive(Default)]
struct RunFrame {
    /// The package ([`Package::id`]) and directory index of the section holding the frame;
    /// `None` when the buffer holds nothing whole.
    holder: Option<(u64, usize)>,
    /// The frame's content: the run's packed modules, back to back.
    packed: Vec<u8>,
    /// How many bytes of `packed` are content.
    len: usize,
    /// `starts[k]`: where module `k` of the run starts in the content, for every `k` reached so
    /// far (module 0 starts at 0).
    starts: Vec<usize>,
}

/// Where a run (a module run, 2.7; a bind-view run, 2.8) lies in the directory: its first
/// section and the one holding its frame.
#[derive(Debug, Clone, Copy)]
pub(super) struct Run {
    pub(super) first: usize,
    pub(super) holder: usize,
}

/// `load` with this thread's buffer of a run's frame in `cell` (a buffer of its own when the
/// thread is ending or the buffer is in use), the buffer dropped afterwards when `len` says it
/// holds more than [`RUN_KEPT`] bytes.
pub(super) fn with_run_buffer<B: Default + 'static, T>(
    cell: &'static std::thread::LocalKey<std::cell::RefCell<B>>,
    len: fn(&B) -> usize,
    load: impl Fn(&mut B) -> T,
) -> T {
    let kept = cell.try_with(|cell| {
        let mut frame = cell.try_borrow_mut().ok()?;
        let result = load(&mut frame);
        if len(&frame) > RUN_KEPT {
            *frame = B::default();
        }
        Some(result)
    });
    match kept {
        Ok(Some(result)) => result,
        _ => load(&mut B::default()),
    }
}

impl Package {
    /// The module run section `i` (of record `rec`) is in: when it is stored `InModuleRun`,
    /// or is a SPIR-V module stored packed right after one. `None` for any other section.
    ///
    /// # Errors
    /// `Decompress` for a section stored `InModuleRun` that no section stored packed ends
    /// (the directory ends, or another kind or compression comes first); `LimitExceeded` for a
    /// run of more than `MAX_MODULE_RUN_SECTIONS` sections.
    pub(super) fn module_run(&self, i: usize, rec: &SectionRecord) -> Result<Option<Run>> {
        let holds = |h: &SectionRecord| {
            h.section_kind() == SectionKind::Spirv && h.compression_kind().is_packed_spirv()
        };
        let run = self.run_around(
            (i, rec),
            (Compression::InModuleRun, &holds),
            (
                limits::MAX_MODULE_RUN_SECTIONS,
                "module run",
                "SPIR-V section stored packed",
            ),
        )?;
        Ok(run.map(|(first, holder)| Run { first, holder }))
    }

    /// The run of sections stored `member` that section `i` (of record `rec`) is in, as its
    /// first section and the one holding its frame (a section `holds` accepts, after at most
    /// `most - 1` members): when section `i` is stored `member`, or is a holder right after
    /// one; `None` for any other section. `what` and `holder` name the run and its holder in
    /// errors.
    ///
    /// # Errors
    /// `Decompress` for a member that no holder ends within `most` sections; `LimitExceeded`
    /// for a run of more than `most` sections.
    pub(super) fn run_around(
        &self,
        (i, rec): (usize, &SectionRecord),
        (member, holds): (Compression, &dyn Fn(&SectionRecord) -> bool),
        (most, what, holder): (u32, &str, &str),
    ) -> Result<Option<(usize, usize)>> {
        let in_run = |j: usize| self.dir_record(j).compression_kind() == member;
        let most = most as usize;
        let end = if rec.compression_kind() == member {
            let next = (i + 1..self.section_total())
                .take(most)
                .find(|&j| !in_run(j));
            match next.filter(|&j| holds(&self.dir_record(j))) {
                Some(h) => h,
                None => {
                    return Err(err(
                        K::Decompress,
                        rec.offset(),
                        format!(
                            "section {i}: in a {what} that no {holder} ends within {most} sections"
                        ),
                    ))
                }
            }
        } else if holds(rec) && i > 0 && in_run(i - 1) {
            i
        } else {
            return Ok(None);
        };
        // At most `most` sections in all: `most - 1` before the one holding the frame.
        let before = (0..end).rev().take(most).take_while(|&j| in_run(j)).count();
        if before >= most {
            return Err(err(
                K::LimitExceeded,
                rec.offset(),
                format!("section {i}: a {what} of more than {most} sections"),
            ));
        }
        Ok(Some((end - before, end)))
    }

    /// The module of section `i` (of record `rec`), in module run `run`: both sections'
    /// checksums verified (the run's frame is the holder's stored bytes), the frame
    /// decompressed (at most the sum of `packed_spirv_bound` of the run's raw sizes, itself at
    /// most `MAX_MODULE_RUN_PACKED`), the modules before it stepped over (by the packed lengths
    /// their records give, 2.9, where they give one: within the content; else by their words),
    /// its own unpacked into an owned buffer counted against the budget, taking the packed
    /// length its record gives if it gives one; the run's last module must end where the
    /// frame's content does.
    pub(super) fn load_in_run(&self, i: usize, rec: &SectionRecord, run: Run) -> Result<Bytes> {
        let offset = rec.offset();
        let fail = |kind, what: String| err(kind, offset, format!("section {i}: {what}"));
        let held = self.dir_record(run.holder);
        self.check_checksum(i, rec)?;
        self.check_checksum(run.holder, &held)?;
        let sizes = (run.first..=run.holder).map(|j| self.dir_record(j).raw_size() as usize);
        let most: u64 = sizes
            .clone()
            .map(|n| u(slangpack_format::packed_spirv_bound(n)))
            .sum();
        if most > limits::MAX_MODULE_RUN_PACKED {
            let what = format!(
                "a module run whose frame may hold {most} bytes, more than {}",
                limits::MAX_MODULE_RUN_PACKED
            );
            return Err(fail(K::LimitExceeded, what));
        }
        let len = rec.raw_size() as usize;
        self.reserve_owned(u(len), offset)?;
        let [dict, _] = self.dictionaries_for(&held)?;
        let stored = stored_bytes(self.storage.bytes(), &held);
        let key = (self.id, run.holder);
        let k = i - run.first;
        let load = |frame: &mut RunFrame| -> Result<Box<[u64]>> {
            if frame.holder != Some(key) {
                frame.holder = None;
                frame.starts.clear();
                frame.starts.push(0);
                let most = most as usize;
                if frame.packed.len() < most {
                    frame.packed.resize(most, 0);
                }
                let room = frame.packed.get_mut(..most).unwrap_or_default();
                frame.len = decompress(stored, room, dict, self.bare_frames).map_err(|e| {
                    fail(K::Decompress, format!("its module run's frame: zstd: {e}"))
                })?;
                frame.holder = Some(key);
            }
            let content = frame.packed.get(..frame.len).unwrap_or_default();
            // Step over the modules before this one that no earlier load stepped over: by the
            // packed length its record gives (2.9), else by its words.
            for (j, size) in sizes
                .clone()
                .enumerate()
                .take(k)
                .skip(frame.starts.len() - 1)
            {
                let at = frame.starts.last().copied().unwrap_or_default();
                let rest = content.get(at..).unwrap_or_default();
                let n = match self.dir_record(run.first + j).record_count as usize {
                    0 => slangpack_format::packed_spirv_len(rest, size).map_err(|e| {
                        let what = format!("packed SPIR-V of module {j} of its run: {e}");
                        fail(K::Decompress, what)
                    })?,
                    n if n <= rest.len() => n,
                    n => {
                        let what = format!(
                            "module {j} of its run: a packed length of {n} bytes, past the frame's content"
                        );
                        return Err(fail(K::Decompress, what));
                    }
                };
                frame.starts.push(at + n);
            }
            let at = frame.starts.get(k).copied().unwrap_or_default();
            let rest = content.get(at..).unwrap_or_default();
            let mut result = Ok(0);
            let words = owned_words(len, |dst| {
                result = slangpack_format::unpack_spirv_prefix(rest, dst);
            });
            let n = result.map_err(|e| fail(K::Decompress, format!("packed SPIR-V: {e}")))?;
            let declared = rec.record_count as usize;
            if declared != 0 && declared != n {
                let what = format!(
                    "its packed module takes {n} bytes of its run's frame, its record says {declared}"
                );
                return Err(fail(K::Decompress, what));
            }
            if frame.starts.len() == k + 1 {
                frame.starts.push(at + n);
            }
            if i == run.holder && at + n != content.len() {
                let what = format!(
                    "{} bytes left over after its module run",
                    content.len() - at - n
                );
                return Err(fail(K::Decompress, what));
            }
            Ok(words)
        };
        let words = with_run_buffer(&RUN, |f| f.packed.len(), load)?;
        Ok(Bytes::Owned { words, len })
    }
}

//! Bind-view runs (2.8, SPEC.md 6.1.1): consecutive reflection sections sharing raw tables
//! whose bind views share one zstd frame, that of the run's last section. A blob of a run has
//! its bind view read from that frame: decompressed once per thread into a buffer kept while
//! later loads read the same run (an entry's neighbours, a walk of the package), the views
//! before it stepped over by the sizes their headers state, its own copied into its own buffer.

use super::module_run::{with_run_buffer, Run};
use super::*;

thread_local! {
    /// The frame of the bind-view run read last on this thread, decompressed.
    static RUN: std::cell::RefCell<RunFrame> = std::cell::RefCell::new(RunFrame::default());
}

/// A bind-view run's frame, decompressed.
#[derive(Default)]
struct RunFrame {
    /// The package ([`Package::id`]) and directory index of the section holding the frame;
    /// `None` when the buffer holds nothing whole.
    holder: Option<(u64, usize)>,
    /// The frame's content: the run's bind views, back to back.
    views: Vec<u8>,
}

impl Package {
    /// The bind-view run section `i` (of record `rec`) is in: when it is stored `InBindRun`,
    /// or is a reflection section stored `ZstdSharedTables` right after one. `None` for any
    /// other section.
    ///
    /// # Errors
    /// `Decompress` for a section stored `InBindRun` that no reflection section stored
    /// `ZstdSharedTables` ends within `MAX_BIND_RUN_SECTIONS` sections; `LimitExceeded` for a
    /// run of more.
    pub(super) fn bind_run(&self, i: usize, rec: &SectionRecord) -> Result<Option<Run>> {
        let holds = |h: &SectionRecord| {
            h.section_kind() == SectionKind::Reflection
                && h.compression_kind() == Compression::ZstdSharedTables
        };
        let run = self.run_around(
            (i, rec),
            (Compression::InBindRun, &holds),
            (
                limits::MAX_BIND_RUN_SECTIONS,
                "bind-view run",
                "reflection section sharing raw tables",
            ),
        )?;
        Ok(run.map(|(first, holder)| Run { first, holder }))
    }

    /// The bind view of section `i` (of record `rec`), in bind-view run `run`: both sections'
    /// checksums verified (the run's frame is the holder's stored bytes), the frame (one whole
    /// frame declaring its content size, at most `MAX_BIND_RUN_SIZE`) decompressed with the
    /// package's `Dictionary` when it has one, the views before it stepped over (each as long
    /// as its header's `tables_offset`, at least a header and less than its blob), its own
    /// copied into an owned buffer counted against the budget; the run's last view must end
    /// where the frame's content does.
    pub(super) fn bind_in_run(&self, i: usize, rec: &SectionRecord, run: Run) -> Result<Bytes> {
        let offset = rec.offset();
        let fail = |kind, what: String| err(kind, offset, format!("section {i}: {what}"));
        let held = self.dir_record(run.holder);
        self.check_checksum(i, rec)?;
        self.check_checksum(run.holder, &held)?;
        let bare = self.bare_frames;
        let stored = stored_bytes(self.storage.bytes(), &held);
        let whole = match bare {
            true => slangpack_format::bare_frame(stored).map(|f| f.len),
            false => zstd::zstd_safe::find_frame_compressed_size(stored).ok(),
        };
        if whole != Some(stored.len()) {
            let what = "its bind-view run's frame is not one whole frame";
            return Err(fail(K::Decompress, what.into()));
        }
        let declared = match frame_content_size(stored, bare) {
            Some(n) if n <= limits::MAX_BIND_RUN_SIZE => n as usize,
            Some(n) => {
                let what = format!(
                    "a bind-view run whose frame declares {n} bytes, more than {}",
                    limits::MAX_BIND_RUN_SIZE
                );
                return Err(fail(K::LimitExceeded, what));
            }
            None => {
                let what = "its bind-view run's frame declares no content size";
                return Err(fail(K::Decompress, what.into()));
            }
        };
        let dict = match &self.dictionary {
            Some(slot) => Some(self.load_dictionary(slot)?),
            None => None,
        };
        let key = (self.id, run.holder);
        let k = i - run.first;
        let load = |frame: &mut RunFrame| -> Result<Bytes> {
            if frame.holder != Some(key) {
                frame.holder = None;
                frame.views.resize(declared, 0);
                match decompress(stored, &mut frame.views, dict, bare) {
                    Ok(n) if n == declared => {}
                    Ok(n) => {
                        let what = format!(
                            "its bind-view run's frame decompressed to {n} bytes, declared {declared}"
                        );
                        return Err(fail(K::SizeMismatch, what));
                    }
                    Err(e) => {
                        let what = format!("its bind-view run's frame: zstd: {e}");
                        return Err(fail(K::Decompress, what));
                    }
                }
                frame.holder = Some(key);
            }
            let content = frame.views.get(..declared).unwrap_or_default();
            let mut at = 0;
            for j in run.first..i {
                let raw = self.dir_record(j).raw_size();
                let rest = content.get(at..).unwrap_or_default();
                let Some(len) = slangpack_format::bind_view_len(rest, raw) else {
                    let what = format!("bind view {} of its run does not fit", j - run.first);
                    return Err(fail(K::Decompress, what));
                };
                at += len;
            }
            let rest = content.get(at..).unwrap_or_default();
            let Some(len) = slangpack_format::bind_view_len(rest, rec.raw_size()) else {
                let what = format!("its bind view, view {k} of its run, does not fit");
                return Err(fail(K::Decompress, what));
            };
            if i == run.holder && at + len != content.len() {
                let what = format!(
                    "{} bytes left over after its bind-view run",
                    content.len() - at - len
                );
                return Err(fail(K::Decompress, what));
            }
            self.reserve_owned(u(len), offset)?;
            let view = rest.get(..len).unwrap_or_default();
            let words = owned_words(len, |dst| dst.copy_from_slice(view));
            Ok(Bytes::Owned { words, len })
        };
        with_run_buffer(&RUN, |f| f.views.len(), load)
    }
}

//! A cache in a directory, laid out as the Bazel HTTP cache protocol names things:
//! `DIR/ac/<sha256>` holds an action's serialized `ActionResult`, `DIR/cas/<sha256>` a blob.
//! Files are written atomically (a temporary file renamed into place), so bakes sharing the
//! directory see whole files or none; a file that is not a regular file (a FIFO, a device, a
//! directory) is refused without being read, and nothing larger than [`crate::MAX_BLOB`] is
//! read.

use crate::reapi::{ActionResult, Digest};
use crate::{checked, is_valid, Store, MAX_BLOB};
use prost::Message;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A cache directory (`--cache DIR`).
#[derive(Debug)]
pub struct DirStore {
    root: PathBuf,
}

impl DirStore {
    /// The cache in `root` (created at the first write).
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Self {
        DirStore { root: root.into() }
    }

    fn path(&self, kind: &str, digest: &Digest) -> Result<PathBuf, String> {
        if !is_valid(digest) {
            return Err(format!("not a SHA-256 digest: {:?}", digest.hash));
        }
        Ok(self.root.join(kind).join(&digest.hash))
    }
}

/// The bytes of `path` if it is a regular file of at most `limit` bytes; `None` when there
/// is none.
fn read_bounded(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
        Ok(_) => {}
    }
    let (file, metadata) = slangpack_reader::open_regular_file(path).map_err(|e| e.to_string())?;
    if metadata.len() > limit {
        return Err(format!(
            "{} holds {} bytes, more than the {limit} expected",
            path.display(),
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(bytes))
}

/// The largest action result read (a handful of digests and paths).
const MAX_ACTION_RESULT: u64 = 1 << 20;

impl Store for DirStore {
    fn describe(&self) -> String {
        self.root.display().to_string()
    }

    fn get_action_result(&mut self, action: &Digest) -> Result<Option<ActionResult>, String> {
        let path = self.path("ac", action)?;
        match read_bounded(&path, MAX_ACTION_RESULT)? {
            None => Ok(None),
            Some(bytes) => ActionResult::decode(bytes.as_slice())
                .map(Some)
                .map_err(|e| format!("{}: not an ActionResult: {e}", path.display())),
        }
    }

    fn update_action_result(
        &mut self,
        action: &Digest,
        result: &ActionResult,
    ) -> Result<(), String> {
        let path = self.path("ac", action)?;
        let bytes = result.encode_to_vec();
        if std::fs::read(&path).ok().as_deref() == Some(bytes.as_slice()) {
            return Ok(());
        }
        slangpack_pack::write_atomically(&path, &bytes).map_err(|e| e.to_string())
    }

    fn find_missing(&mut self, blobs: &[Digest]) -> Result<Vec<Digest>, String> {
        let mut missing = Vec::new();
        for blob in blobs {
            // A damaged blob (other bytes, another size) is missing: it is written again.
            let whole = matches!(self.read_blob(blob), Ok(Some(_)));
            if !whole {
                missing.push(blob.clone());
            }
        }
        Ok(missing)
    }

    fn read_blob(&mut self, blob: &Digest) -> Result<Option<Vec<u8>>, String> {
        let path = self.path("cas", blob)?;
        let limit = u64::try_from(blob.size_bytes).unwrap_or(0).min(MAX_BLOB);
        match read_bounded(&path, limit)? {
            None => Ok(None),
            Some(bytes) => checked(blob, bytes).map(Some),
        }
    }

    fn write_blob(&mut self, blob: &Digest, bytes: &[u8]) -> Result<(), String> {
        let path = self.path("cas", blob)?;
        slangpack_pack::write_atomically(&path, bytes).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest_of;

    fn missing(store: &mut DirStore, d: &Digest) -> usize {
        store.find_missing(std::slice::from_ref(d)).unwrap().len()
    }

    #[test]
    fn blobs_and_results_round_trip_and_damage_is_noticed() {
        let tmp = tempfile::tempdir().unwrap();
        let mut store = DirStore::new(tmp.path().join("cache"));
        let blob = b"an entry".to_vec();
        let d = digest_of(&blob);
        assert_eq!(missing(&mut store, &d), 1);
        assert_eq!(store.read_blob(&d).unwrap(), None);
        store.write_blob(&d, &blob).unwrap();
        assert!(store
            .find_missing(std::slice::from_ref(&d))
            .unwrap()
            .is_empty());
        assert_eq!(store.read_blob(&d).unwrap().as_deref(), Some(&blob[..]));
        let result = ActionResult {
            exit_code: 0,
            ..Default::default()
        };
        let action = digest_of(b"action");
        assert_eq!(store.get_action_result(&action).unwrap(), None);
        store.update_action_result(&action, &result).unwrap();
        assert_eq!(store.get_action_result(&action).unwrap(), Some(result));
        // Another blob's bytes under this name, a longer file, a FIFO: refused, not hung.
        let path = tmp.path().join("cache/cas").join(&d.hash);
        std::fs::write(&path, b"an entrx").unwrap();
        assert!(store.read_blob(&d).is_err());
        assert_eq!(missing(&mut store, &d), 1);
        std::fs::write(&path, vec![0u8; 1 << 16]).unwrap();
        assert!(store.read_blob(&d).is_err());
        assert_eq!(missing(&mut store, &d), 1);
        std::fs::remove_file(&path).unwrap();
        let status = std::process::Command::new("mkfifo").arg(&path).status();
        if status.is_ok_and(|s| s.success()) {
            assert!(store.read_blob(&d).is_err());
        }
        // Names that are not digests never become paths.
        let escape = crate::reapi::Digest {
            hash: "../../etc/passwd".into(),
            size_bytes: 1,
        };
        assert!(store.read_blob(&escape).is_err());
    }
}

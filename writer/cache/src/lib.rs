//! The stores of the bake cache, and how a permutation's compile is described to them.
//!
//! A compile is described as the Remote Execution API (REAPI v2) describes an action
//! ([`action`]): a `Command` naming what produces the entry, an input root `Directory` tree of
//! the main module, and an `Action` of both digests. Its outcome is an `ActionResult` whose
//! output files, in the content-addressed store (CAS), are the entry as a one-entry package and
//! the `Tree` of every file the compile read. Three stores hold them:
//!
//! - a directory ([`dir::DirStore`]): `DIR/ac/<sha256>` holds the serialized `ActionResult`,
//!   `DIR/cas/<sha256>` each blob;
//! - a server speaking the Bazel HTTP cache protocol ([`http::HttpStore`], `http://` or
//!   `https://`): the same names under its URL, through `ureq` with rustls;
//! - a REAPI server over gRPC ([`grpc::GrpcStore`], `grpc://` or `grpcs://`): Capabilities
//!   checked first, then the ActionCache, the CAS's batch calls and ByteStream for large blobs,
//!   through `tonic` and the `bazel-remote-apis` bindings.
//!
//! Nothing here trusts what a store returns: every blob read is checked against the SHA-256 and
//! size it was asked for, bounded by [`MAX_BLOB`], and every request is bounded in time by the
//! deadline of its [`Config`]. What the blobs mean is checked by the bake.

pub mod action;
pub mod dir;
pub mod execution;
pub mod grpc;
pub mod http;

pub use bazel_remote_apis::build::bazel::remote::execution::v2 as reapi;
use reapi::{ActionResult, Digest};
use std::time::Duration;

/// The largest blob read from a store (an entry is a one-entry package; a package is at most
/// 4 GiB, and a cached entry of hundreds of megabytes is not one any bake makes).
pub const MAX_BLOB: u64 = 256 << 20;

/// The default time one request may take, from sending it to the end of its answer.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(30);

/// The digest (SHA-256, lower-case hex, and size) of `bytes`.
#[must_use]
pub fn digest_of(bytes: &[u8]) -> Digest {
    use sha2::Digest as _;
    Digest {
        hash: hex(&sha2::Sha256::digest(bytes)),
        size_bytes: i64::try_from(bytes.len()).unwrap_or(i64::MAX),
    }
}

/// The digest of the file at `path`, read a block at a time: a file of tens of megabytes (a
/// compiler library) is never held whole, so its size does not become the process's
/// footprint (nor raise the allocator's threshold for returning memory).
///
/// # Errors
/// The I/O error reading it.
pub fn digest_of_file(path: &std::path::Path) -> std::io::Result<Digest> {
    use sha2::Digest as _;
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut block = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = match file.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&block[..n]);
        size += n as u64;
    }
    Ok(Digest {
        hash: hex(&hasher.finalize()),
        size_bytes: i64::try_from(size).unwrap_or(i64::MAX),
    })
}

/// `duration` as the REAPI messages carry one (an action's timeout).
#[must_use]
pub fn reapi_duration(duration: Duration) -> bazel_remote_apis::google::protobuf::Duration {
    bazel_remote_apis::google::protobuf::Duration {
        seconds: i64::try_from(duration.as_secs()).unwrap_or(i64::MAX),
        nanos: i32::try_from(duration.subsec_nanos()).unwrap_or(0),
    }
}

/// `message` serialized, and the digest of those bytes.
#[must_use]
pub fn encoded<M: prost::Message>(message: &M) -> (Digest, Vec<u8>) {
    let bytes = message.encode_to_vec();
    (digest_of(&bytes), bytes)
}

/// Lower-case hex of `bytes`.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// Whether `digest` names a blob this crate may read or write: 64 lower-case hex digits and a
/// size from 0 to [`MAX_BLOB`].
#[must_use]
pub fn is_valid(digest: &Digest) -> bool {
    digest.hash.len() == 64
        && digest
            .hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && u64::try_from(digest.size_bytes).is_ok_and(|n| n <= MAX_BLOB)
}

/// `bytes` when they are the blob `digest` names; a message saying what is wrong otherwise.
///
/// # Errors
/// A message when the size or the SHA-256 differ.
pub fn checked(digest: &Digest, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    if u64::try_from(bytes.len()).ok() != u64::try_from(digest.size_bytes).ok() {
        return Err(format!(
            "blob {} came back with {} bytes, not {}",
            digest.hash,
            bytes.len(),
            digest.size_bytes
        ));
    }
    if digest_of(&bytes).hash != digest.hash {
        return Err(format!("blob {} does not have its SHA-256", digest.hash));
    }
    Ok(bytes)
}

/// Credentials a store sends or checks, as Bazel takes them.
#[derive(Clone, Default)]
pub struct Credentials {
    /// Headers sent with every request (`Authorization: Bearer ...`, say): HTTP headers, or
    /// gRPC metadata (names lower-cased).
    pub headers: Vec<(String, String)>,
    /// PEM certificates of the authorities a server's certificate must chain to, instead of
    /// the public web's (`--cache-ca`).
    pub ca_pem: Option<Vec<u8>>,
    /// A PEM client certificate chain and its PEM private key, for servers that ask for one
    /// (mutual TLS).
    pub client_identity: Option<(Vec<u8>, Vec<u8>)>,
}

impl std::fmt::Debug for Credentials {
    /// Header names only: values and keys are secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Credentials")
            .field("headers", &names)
            .field("ca_pem", &self.ca_pem.is_some())
            .field("client_identity", &self.client_identity.is_some())
            .finish()
    }
}

/// Where a store is and how to talk to it.
#[derive(Debug, Clone)]
pub struct Config {
    /// `grpc://HOST:PORT`, `grpcs://HOST:PORT`, `http://HOST[:PORT][/PATH]`,
    /// `https://HOST[:PORT][/PATH]`, or a directory.
    pub location: String,
    /// The REAPI instance name (gRPC only; empty for the default instance).
    pub instance: String,
    /// Headers and TLS material.
    pub credentials: Credentials,
    /// The longest one request may take.
    pub deadline: Duration,
}

impl Config {
    /// A store at `location` with no credentials, the default instance and
    /// [`DEFAULT_DEADLINE`].
    #[must_use]
    pub fn new(location: &str) -> Self {
        Config {
            location: location.to_string(),
            instance: String::new(),
            credentials: Credentials::default(),
            deadline: DEFAULT_DEADLINE,
        }
    }

    /// Whether the location names a server rather than a directory.
    #[must_use]
    pub fn is_remote(&self) -> bool {
        ["grpc://", "grpcs://", "http://", "https://"]
            .iter()
            .any(|scheme| self.location.starts_with(scheme))
    }
}

/// What every store answers. Errors are messages for a warning: a store that fails is not
/// asked again in that bake, and a bake never fails for its cache.
pub trait Store: Send {
    /// The store's name in messages (its location, without credentials).
    fn describe(&self) -> String;
    /// The action result stored for `action`, if any.
    ///
    /// # Errors
    /// A message when the store cannot answer.
    fn get_action_result(&mut self, action: &Digest) -> Result<Option<ActionResult>, String>;
    /// Stores `result` for `action`.
    ///
    /// # Errors
    /// A message when the store refuses or cannot be reached.
    fn update_action_result(
        &mut self,
        action: &Digest,
        result: &ActionResult,
    ) -> Result<(), String>;
    /// Of `blobs`, those the store does not hold.
    ///
    /// # Errors
    /// A message when the store cannot answer.
    fn find_missing(&mut self, blobs: &[Digest]) -> Result<Vec<Digest>, String>;
    /// The blob `blob`, checked against its digest ([`checked`]); `None` when the store does
    /// not hold it.
    ///
    /// # Errors
    /// A message when the store cannot answer or answers with other bytes.
    fn read_blob(&mut self, blob: &Digest) -> Result<Option<Vec<u8>>, String>;
    /// Stores `bytes` as the blob `blob` (the caller computed the digest).
    ///
    /// # Errors
    /// A message when the store refuses or cannot be reached.
    fn write_blob(&mut self, blob: &Digest, bytes: &[u8]) -> Result<(), String>;
    /// The action results of `actions`, in their order: one request each by default; a
    /// server keeps several in flight.
    ///
    /// # Errors
    /// A message when the store cannot answer.
    fn get_action_results(
        &mut self,
        actions: &[Digest],
    ) -> Result<Vec<Option<ActionResult>>, String> {
        actions.iter().map(|a| self.get_action_result(a)).collect()
    }
    /// Stores each of `blobs` (the caller computed the digests): one write each by default; a
    /// server sends as many together as its batch limit allows.
    ///
    /// # Errors
    /// A message when the store refuses one or cannot be reached.
    fn write_blobs(&mut self, blobs: &[(&Digest, &[u8])]) -> Result<(), String> {
        for (blob, bytes) in blobs {
            self.write_blob(blob, bytes)?;
        }
        Ok(())
    }
    /// Stores each of `results` for its action: one request each by default; a server keeps
    /// several in flight.
    ///
    /// # Errors
    /// A message when the store refuses one or cannot be reached.
    fn update_action_results(
        &mut self,
        results: &[(&Digest, &ActionResult)],
    ) -> Result<(), String> {
        for (action, result) in results {
            self.update_action_result(action, result)?;
        }
        Ok(())
    }
    /// Those of `blobs` the store holds, each checked against its digest: one read each by
    /// default; a server batches them.
    ///
    /// # Errors
    /// A message when the store cannot answer or answers with other bytes.
    fn read_blobs(&mut self, blobs: &[Digest]) -> Result<Vec<(Digest, Vec<u8>)>, String> {
        let mut found = Vec::new();
        for blob in blobs {
            if let Some(bytes) = self.read_blob(blob)? {
                found.push((blob.clone(), bytes));
            }
        }
        Ok(found)
    }
}

/// The store `config` names.
///
/// # Errors
/// A message for a malformed location, TLS material that does not parse, or (gRPC) a server
/// that cannot be reached. A gRPC server's capabilities (SHA-256 digests, an action cache)
/// are checked with its first call, whose error says when they fall short.
pub fn open(config: &Config) -> Result<Box<dyn Store>, String> {
    let l = config.location.as_str();
    if l.starts_with("grpc://") || l.starts_with("grpcs://") {
        Ok(Box::new(grpc::GrpcStore::dial(config)?))
    } else if l.starts_with("http://") || l.starts_with("https://") {
        Ok(Box::new(http::HttpStore::new(config)?))
    } else if l.contains("://") {
        Err(format!(
            "{l}: a cache is a directory, http(s)://HOST[:PORT][/PATH] or grpc(s)://HOST:PORT"
        ))
    } else {
        Ok(Box::new(dir::DirStore::new(l)))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_is_lower_case_two_digits_a_byte() {
        assert_eq!(super::hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(super::hex(&[]), "");
    }

    use super::*;

    #[test]
    fn digests_are_checked_by_size_and_hash() {
        let d = digest_of(b"abc");
        assert_eq!(
            d.hash,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(is_valid(&d));
        assert_eq!(checked(&d, b"abc".to_vec()).unwrap(), b"abc");
        assert!(checked(&d, b"abd".to_vec()).is_err());
        assert!(checked(&d, b"abcd".to_vec()).is_err());
        for bad in [
            Digest {
                hash: d.hash.to_uppercase(),
                ..d.clone()
            },
            Digest {
                hash: "../etc".into(),
                ..d.clone()
            },
            Digest {
                size_bytes: -1,
                ..d.clone()
            },
            Digest {
                size_bytes: MAX_BLOB as i64 + 1,
                ..d.clone()
            },
        ] {
            assert!(!is_valid(&bad), "{bad:?}");
        }
    }

    #[test]
    fn credentials_do_not_print_secrets() {
        let c = Credentials {
            headers: vec![("Authorization".into(), "Bearer s3cret".into())],
            ca_pem: None,
            client_identity: Some((b"cert".to_vec(), b"key".to_vec())),
        };
        let text = format!("{c:?}");
        assert!(
            text.contains("Authorization") && !text.contains("s3cret") && !text.contains("key\"")
        );
    }
}

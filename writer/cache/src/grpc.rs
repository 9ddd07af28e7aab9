//! A Remote Execution API v2 server over gRPC (`grpc://HOST:PORT`, `grpcs://HOST:PORT` for
//! TLS): the server's Capabilities are checked first (SHA-256 digests, an action cache), then
//! the cache speaks the ActionCache (`GetActionResult`, `UpdateActionResult`), the CAS
//! (`FindMissingBlobs`, `BatchReadBlobs`, `BatchUpdateBlobs`) and, for blobs over the
//! server's batch limit, ByteStream (`Read`, `Write`), through `tonic` and the
//! `bazel-remote-apis` bindings.
//!
//! The calls run on a single-threaded tokio runtime this store owns, one at a time: the bake
//! asks its cache from one thread. A store opened as a cache ([`GrpcStore::dial`]) sends its
//! Capabilities request beside its first action-cache read, on the same connection, and uses
//! neither answer before the capabilities are checked: one round trip fewer per bake, the
//! check still before anything the server says is taken. Every call carries the deadline of the [`Config`] (as gRPC's
//! `grpc-timeout` and as a local timeout), the configured headers as metadata, and reads at
//! most what it asked for.

use crate::reapi::{
    action_cache_client::ActionCacheClient, batch_update_blobs_request,
    capabilities_client::CapabilitiesClient,
    content_addressable_storage_client::ContentAddressableStorageClient, digest_function,
    ActionResult, BatchReadBlobsRequest, BatchUpdateBlobsRequest, Digest, FindMissingBlobsRequest,
    GetActionResultRequest, GetCapabilitiesRequest, ServerCapabilities, UpdateActionResultRequest,
};
use crate::{checked, is_valid, Config, Store, MAX_BLOB};
use bazel_remote_apis::google::bytestream::{
    byte_stream_client::ByteStreamClient, ReadRequest, WriteRequest,
};
use std::time::Duration;
use tonic::metadata::{MetadataKey, MetadataValue};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

/// The batch limit assumed when a server states none.
const DEFAULT_BATCH_LIMIT: u64 = 4 << 20;

/// Turns of the client runtime that [`GrpcStore::dial`] gives its Capabilities request to
/// reach the socket (the channel's buffer task, then the connection's).
const SEND_TURNS: usize = 8;

/// Room left in a batch for the request's own fields.
const BATCH_OVERHEAD: u64 = 64 << 10;

/// What each blob adds to a batch request beside its bytes (its digest and framing), counted
/// against the batch limit.
const BLOB_OVERHEAD: u64 = 128;

/// One ByteStream write message's data.
const WRITE_CHUNK: usize = 1 << 20;

/// A REAPI server.
pub struct GrpcStore {
    pub(crate) runtime: tokio::runtime::Runtime,
    pub(crate) channel: Channel,
    pub(crate) location: String,
    pub(crate) instance: String,
    headers: Vec<(
        MetadataKey<tonic::metadata::Ascii>,
        MetadataValue<tonic::metadata::Ascii>,
    )>,
    pub(crate) deadline: Duration,
    /// The largest blob sent or read in a batch call; larger ones go through ByteStream.
    batch_limit: u64,
    /// Whether the server lets this client update its action cache.
    update_enabled: bool,
    /// Whether the server executes actions (its execution capabilities say so).
    pub(crate) exec_enabled: bool,
    /// The Capabilities call sent and not yet checked ([`GrpcStore::dial`]).
    capabilities: Option<tokio::task::JoinHandle<Result<ServerCapabilities, String>>>,
}

impl std::fmt::Debug for GrpcStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrpcStore")
            .field("location", &self.location)
            .field("instance", &self.instance)
            .finish()
    }
}

/// `status` as a message naming the call.
fn failed(call: &str, status: &tonic::Status) -> String {
    format!("{call}: {:?}: {}", status.code(), status.message())
}

impl GrpcStore {
    /// Connects to the server `config.location` names and checks its capabilities.
    ///
    /// # Errors
    /// A message when the location is malformed, TLS material does not parse, the server is
    /// unreachable within the deadline, or it offers no SHA-256 action cache.
    pub fn connect(config: &Config) -> Result<GrpcStore, String> {
        let mut store = GrpcStore::dial(config)?;
        store.settle()?;
        Ok(store)
    }

    /// Connects to the server `config.location` names and sends its Capabilities request,
    /// checked at the first call: beside it when that call reads the action cache (the two
    /// answers awaited together, the result used only when the capabilities pass), else
    /// before it.
    ///
    /// # Errors
    /// A message when the location is malformed, TLS material does not parse or the server
    /// is unreachable within the deadline (what the capabilities say comes with the first
    /// call).
    pub fn dial(config: &Config) -> Result<GrpcStore, String> {
        let location = config.location.trim_end_matches('/');
        let (tls, authority) = match location.split_once("://") {
            Some(("grpcs", rest)) => (true, rest),
            Some(("grpc", rest)) => (false, rest),
            _ => return Err(format!("{location}: not a grpc(s):// location")),
        };
        if authority.is_empty() || authority.contains(['/', ' ', '@']) {
            return Err(format!("{location}: expected grpc(s)://HOST:PORT"));
        }
        let scheme = if tls { "https" } else { "http" };
        let mut endpoint = Endpoint::from_shared(format!("{scheme}://{authority}"))
            .map_err(|e| format!("{location}: {e}"))?
            .connect_timeout(config.deadline);
        if tls {
            let mut tls = ClientTlsConfig::new();
            tls = match &config.credentials.ca_pem {
                Some(ca) => tls.ca_certificate(Certificate::from_pem(ca)),
                None => tls.with_webpki_roots(),
            };
            if let Some((chain, key)) = &config.credentials.client_identity {
                tls = tls.identity(Identity::from_pem(chain, key));
            }
            endpoint = endpoint
                .tls_config(tls)
                .map_err(|e| format!("{location}: TLS: {e}"))?;
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("{location}: cannot start the gRPC client: {e}"))?;
        let channel = runtime
            .block_on(endpoint.connect())
            .map_err(|e| format!("{location}: cannot connect: {e}"))?;
        let mut headers = Vec::new();
        for (name, value) in &config.credentials.headers {
            let key = MetadataKey::from_bytes(name.to_ascii_lowercase().as_bytes())
                .map_err(|_| format!("the header name {name:?} cannot be sent over gRPC"))?;
            let value = MetadataValue::try_from(value.as_str())
                .map_err(|_| format!("the value of header {name:?} cannot be sent over gRPC"))?;
            headers.push((key, value));
        }
        let mut store = GrpcStore {
            runtime,
            channel,
            location: location.to_string(),
            instance: config.instance.clone(),
            headers,
            deadline: config.deadline,
            batch_limit: DEFAULT_BATCH_LIMIT,
            update_enabled: true,
            exec_enabled: false,
            capabilities: None,
        };
        let request = store.request(GetCapabilitiesRequest {
            instance_name: store.instance.clone(),
        });
        let mut client = CapabilitiesClient::new(store.channel.clone());
        store.capabilities = Some(store.runtime.spawn(async move {
            client
                .get_capabilities(request)
                .await
                .map(tonic::Response::into_inner)
                .map_err(|s| failed("GetCapabilities", &s))
        }));
        // The runtime runs only inside a call: let it write the request out now, so that the
        // server answers it while the caller goes on (a bake plans meanwhile).
        store.runtime.block_on(async {
            for _ in 0..SEND_TURNS {
                tokio::task::yield_now().await;
            }
        });
        Ok(store)
    }

    /// `message` as a request carrying the deadline and the headers.
    pub(crate) fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request.set_timeout(self.deadline);
        for (key, value) in &self.headers {
            request.metadata_mut().insert(key.clone(), value.clone());
        }
        request
    }

    /// Runs `call` on the store's runtime, bounded by the deadline (a server that accepts the
    /// call and then drips its answer is cut off too).
    fn run<F: std::future::Future<Output = Result<T, String>>, T>(
        &self,
        what: &str,
        call: F,
    ) -> Result<T, String> {
        self.run_for(what, self.deadline, call)
    }

    /// Runs `call` on the store's runtime, bounded by `deadline`.
    pub(crate) fn run_for<F: std::future::Future<Output = Result<T, String>>, T>(
        &self,
        what: &str,
        deadline: Duration,
        call: F,
    ) -> Result<T, String> {
        self.runtime.block_on(async move {
            match tokio::time::timeout(deadline, call).await {
                Ok(result) => result,
                Err(_) => Err(format!("{what}: no answer within {deadline:?}")),
            }
        })
    }

    /// Awaits and checks the capabilities, when they are still to come.
    fn settle(&mut self) -> Result<(), String> {
        let Some(pending) = self.capabilities.take() else {
            return Ok(());
        };
        let capabilities = self.run("GetCapabilities", joined(pending))?;
        self.apply(capabilities)
    }

    /// `call`, a read of the action cache, run beside the capabilities still to come; its
    /// answer is given only when they pass.
    fn run_first<F: std::future::Future<Output = Result<T, String>>, T>(
        &mut self,
        what: &str,
        call: F,
    ) -> Result<T, String> {
        let Some(pending) = self.capabilities.take() else {
            return self.run(what, call);
        };
        let (capabilities, answer) =
            self.run(what, async move { Ok(tokio::join!(joined(pending), call)) })?;
        self.apply(capabilities?)?;
        answer
    }

    /// Checks what the server offers (SHA-256 digests, an action cache) and keeps its limits.
    fn apply(&mut self, capabilities: ServerCapabilities) -> Result<(), String> {
        self.exec_enabled = capabilities
            .execution_capabilities
            .as_ref()
            .is_some_and(|e| e.exec_enabled);
        let cache = capabilities
            .cache_capabilities
            .ok_or_else(|| format!("{}: the server offers no cache", self.location))?;
        if !cache
            .digest_functions
            .contains(&(digest_function::Value::Sha256 as i32))
        {
            return Err(format!(
                "{}: the server does not take SHA-256 digests",
                self.location
            ));
        }
        if let Ok(limit) = u64::try_from(cache.max_batch_total_size_bytes) {
            if limit > BATCH_OVERHEAD {
                self.batch_limit = limit - BATCH_OVERHEAD;
            }
        }
        self.update_enabled = cache
            .action_cache_update_capabilities
            .is_none_or(|c| c.update_enabled);
        Ok(())
    }

    /// The blob through ByteStream `Read`, at most its size.
    fn read_stream(&self, blob: &Digest) -> Result<Option<Vec<u8>>, String> {
        let name = format!(
            "{}blobs/{}/{}",
            instance_prefix(&self.instance),
            blob.hash,
            blob.size_bytes
        );
        let request = self.request(ReadRequest {
            resource_name: name,
            read_offset: 0,
            read_limit: 0,
        });
        let limit = usize::try_from(blob.size_bytes).unwrap_or(0);
        let mut client = ByteStreamClient::new(self.channel.clone())
            .max_decoding_message_size(usize::try_from(MAX_BLOB).unwrap_or(usize::MAX));
        self.run("ByteStream.Read", async move {
            let mut stream = match client.read(request).await {
                Ok(r) => r.into_inner(),
                Err(s) if s.code() == tonic::Code::NotFound => return Ok(None),
                Err(s) => return Err(failed("ByteStream.Read", &s)),
            };
            let mut bytes = Vec::new();
            loop {
                match stream.message().await {
                    Ok(Some(chunk)) => {
                        if bytes.len() + chunk.data.len() > limit {
                            return Err("ByteStream.Read: more bytes than the blob has".into());
                        }
                        bytes.extend_from_slice(&chunk.data);
                    }
                    Ok(None) => return Ok(Some(bytes)),
                    Err(s) if s.code() == tonic::Code::NotFound => return Ok(None),
                    Err(s) => return Err(failed("ByteStream.Read", &s)),
                }
            }
        })
    }

    /// Where ByteStream `Write` puts `blob`.
    fn upload_name(&self, blob: &Digest) -> String {
        format!(
            "{}uploads/{}/blobs/{}/{}",
            instance_prefix(&self.instance),
            upload_id(blob),
            blob.hash,
            blob.size_bytes
        )
    }

    /// Puts the file at `path`, whose digest is `blob`, into the CAS: read whole when it fits
    /// a batch, else sent through ByteStream `Write` a chunk at a time as it is read, so that
    /// a file of tens of megabytes (a compiler library) is never held whole. A file that
    /// changed since its digest was taken is refused by the server (its bytes no longer have
    /// that digest) or, shorter, ends the upload unfinished.
    ///
    /// # Errors
    /// The file's I/O error, or the server's.
    pub fn write_file(&mut self, blob: &Digest, path: &std::path::Path) -> Result<(), String> {
        use std::io::Read;
        let size = u64::try_from(blob.size_bytes).unwrap_or(u64::MAX);
        if size <= self.batch_limit {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            return self.write_blob(blob, &bytes);
        }
        self.settle()?;
        let mut file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = self.upload_name(blob);
        let mut offset = 0u64;
        // Each request is read when the channel asks for it: at most a few chunks in memory.
        let requests = std::iter::from_fn(move || {
            if offset >= size {
                return None;
            }
            let want = usize::try_from((size - offset).min(WRITE_CHUNK as u64)).ok()?;
            let mut data = vec![0u8; want];
            // A read that fails or comes up short ends the stream before `finish_write`:
            // the server then refuses the upload.
            file.read_exact(&mut data).ok()?;
            let request = WriteRequest {
                resource_name: if offset == 0 {
                    name.clone()
                } else {
                    String::new()
                },
                write_offset: i64::try_from(offset).unwrap_or(i64::MAX),
                finish_write: offset + want as u64 == size,
                data,
            };
            offset += want as u64;
            Some(request)
        });
        self.send_writes(requests)
    }

    /// One ByteStream `Write` call of `requests`, taken from the iterator as the channel
    /// sends them.
    fn send_writes<I>(&self, requests: I) -> Result<(), String>
    where
        I: IntoIterator<Item = WriteRequest> + Send + 'static,
        I::IntoIter: Send,
    {
        let request = self.request(tonic::codegen::tokio_stream::iter(requests));
        let mut client = ByteStreamClient::new(self.channel.clone());
        self.run("ByteStream.Write", async move {
            client
                .write(request)
                .await
                .map(|_| ())
                .map_err(|s| failed("ByteStream.Write", &s))
        })
    }

    /// The blob through ByteStream `Write`.
    fn write_stream(&self, blob: &Digest, bytes: &[u8]) -> Result<(), String> {
        let name = self.upload_name(blob);
        let mut messages = Vec::new();
        let mut offset = 0usize;
        for chunk in bytes.chunks(WRITE_CHUNK) {
            messages.push(WriteRequest {
                resource_name: if offset == 0 {
                    name.clone()
                } else {
                    String::new()
                },
                write_offset: offset as i64,
                finish_write: offset + chunk.len() == bytes.len(),
                data: chunk.to_vec(),
            });
            offset += chunk.len();
        }
        if messages.is_empty() {
            messages.push(WriteRequest {
                resource_name: name,
                write_offset: 0,
                finish_write: true,
                data: Vec::new(),
            });
        }
        self.send_writes(messages)
    }
}

/// `instance/` (or nothing for the default instance), as ByteStream resource names start.
fn instance_prefix(instance: &str) -> String {
    if instance.is_empty() {
        String::new()
    } else {
        format!("{instance}/")
    }
}

/// An upload id (ByteStream asks for a UUID): the blob's hash and the time, laid out as one.
fn upload_id(blob: &Digest) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed =
        crate::digest_of(format!("{}{nanos}{}", blob.hash, std::process::id()).as_bytes()).hash;
    format!(
        "{}-{}-4{}-8{}-{}",
        &seed[0..8],
        &seed[8..12],
        &seed[13..16],
        &seed[17..20],
        &seed[20..32]
    )
}

/// The most requests of one kind a store keeps in flight (servers limit concurrent calls:
/// BuildGrid answers `RESOURCE_EXHAUSTED` past its limit, and those are asked again one at a
/// time).
const IN_FLIGHT: usize = 8;

impl GrpcStore {
    /// `GetActionResult` of each of `actions`, [`IN_FLIGHT`] at a time, in their order.
    fn action_results(&mut self, actions: &[Digest]) -> Result<Vec<Option<ActionResult>>, String> {
        let mut out = Vec::with_capacity(actions.len());
        for chunk in actions.chunks(IN_FLIGHT) {
            let requests: Vec<_> = chunk
                .iter()
                .map(|action| {
                    self.request(GetActionResultRequest {
                        instance_name: self.instance.clone(),
                        action_digest: Some(action.clone()),
                        digest_function: digest_function::Value::Sha256 as i32,
                        ..Default::default()
                    })
                })
                .collect();
            let calls = all_at_once(
                "GetActionResult",
                self.channel.clone(),
                requests,
                |mut client, request| async move { client.get_action_result(request).await },
            );
            let mut answers = Vec::with_capacity(chunk.len());
            for answer in self.run_first("GetActionResult", calls)? {
                answers.push(match answer {
                    Ok(r) => Ok(Some(r)),
                    Err(s) if s.code() == tonic::Code::NotFound => Ok(None),
                    // Over the server's limit of concurrent calls: asked again below.
                    Err(s) if s.code() == tonic::Code::ResourceExhausted => Err(()),
                    Err(s) => return Err(failed("GetActionResult", &s)),
                });
            }
            for (action, answer) in chunk.iter().zip(answers) {
                out.push(match answer {
                    Ok(result) => result,
                    Err(()) => self.get_one_action_result(action)?,
                });
            }
        }
        Ok(out)
    }

    /// `GetActionResult` of one action.
    fn get_one_action_result(&mut self, action: &Digest) -> Result<Option<ActionResult>, String> {
        let request = self.request(GetActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            digest_function: digest_function::Value::Sha256 as i32,
            ..Default::default()
        });
        let mut client = ActionCacheClient::new(self.channel.clone());
        self.run_first("GetActionResult", async move {
            match client.get_action_result(request).await {
                Ok(r) => Ok(Some(r.into_inner())),
                Err(s) if s.code() == tonic::Code::NotFound => Ok(None),
                Err(s) => Err(failed("GetActionResult", &s)),
            }
        })
    }

    /// `BatchReadBlobs` of `blobs` (each at most the batch limit), as few batches as fit the
    /// limit; the blobs the server holds, checked.
    fn batch_read(&self, blobs: &[Digest]) -> Result<Vec<(Digest, Vec<u8>)>, String> {
        let mut found = Vec::new();
        let mut batch: Vec<Digest> = Vec::new();
        let mut size = 0u64;
        let mut flush = |batch: &mut Vec<Digest>| -> Result<(), String> {
            if batch.is_empty() {
                return Ok(());
            }
            let request = self.request(BatchReadBlobsRequest {
                instance_name: self.instance.clone(),
                digests: std::mem::take(batch),
                digest_function: digest_function::Value::Sha256 as i32,
                ..Default::default()
            });
            let mut client = ContentAddressableStorageClient::new(self.channel.clone())
                .max_decoding_message_size(
                    usize::try_from(self.batch_limit + BATCH_OVERHEAD).unwrap_or(usize::MAX),
                );
            let responses = self.run("BatchReadBlobs", async move {
                client
                    .batch_read_blobs(request)
                    .await
                    .map(|r| r.into_inner().responses)
                    .map_err(|s| failed("BatchReadBlobs", &s))
            })?;
            for response in responses {
                let (Some(digest), 0) = (response.digest, response.status.map_or(0, |s| s.code))
                else {
                    continue;
                };
                if is_valid(&digest) {
                    found.push((digest.clone(), checked(&digest, response.data)?));
                }
            }
            Ok(())
        };
        for blob in blobs.iter().filter(|b| is_valid(b)) {
            let n = u64::try_from(blob.size_bytes).unwrap_or(u64::MAX);
            if n > self.batch_limit {
                continue;
            }
            if size + n > self.batch_limit {
                flush(&mut batch)?;
                size = 0;
            }
            batch.push(blob.clone());
            size += n;
        }
        flush(&mut batch)?;
        Ok(found)
    }

    /// `BatchUpdateBlobs` of `requests` (together within the batch limit), each of which must
    /// be stored.
    fn batch_update(
        &self,
        requests: Vec<batch_update_blobs_request::Request>,
    ) -> Result<(), String> {
        if requests.is_empty() {
            return Ok(());
        }
        let count = requests.len();
        let request = self.request(BatchUpdateBlobsRequest {
            instance_name: self.instance.clone(),
            requests,
            digest_function: digest_function::Value::Sha256 as i32,
        });
        let mut client = ContentAddressableStorageClient::new(self.channel.clone());
        self.run("BatchUpdateBlobs", async move {
            let responses = client
                .batch_update_blobs(request)
                .await
                .map_err(|s| failed("BatchUpdateBlobs", &s))?
                .into_inner()
                .responses;
            if responses.len() != count {
                return Err(format!(
                    "BatchUpdateBlobs: {} answers for {count} blobs",
                    responses.len()
                ));
            }
            match responses
                .iter()
                .find_map(|r| r.status.as_ref().filter(|s| s.code != 0))
            {
                None => Ok(()),
                Some(status) => Err(format!("BatchUpdateBlobs: status {}", status.code)),
            }
        })
    }
}

impl Store for GrpcStore {
    fn describe(&self) -> String {
        self.location.clone()
    }

    fn get_action_result(&mut self, action: &Digest) -> Result<Option<ActionResult>, String> {
        self.get_one_action_result(action)
    }

    fn update_action_result(
        &mut self,
        action: &Digest,
        result: &ActionResult,
    ) -> Result<(), String> {
        self.settle()?;
        if !self.update_enabled {
            return Err("the server does not let this client update its action cache".into());
        }
        let request = self.request(UpdateActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            action_result: Some(result.clone()),
            digest_function: digest_function::Value::Sha256 as i32,
            ..Default::default()
        });
        let mut client = ActionCacheClient::new(self.channel.clone());
        self.run("UpdateActionResult", async move {
            client
                .update_action_result(request)
                .await
                .map(|_| ())
                .map_err(|s| failed("UpdateActionResult", &s))
        })
    }

    fn find_missing(&mut self, blobs: &[Digest]) -> Result<Vec<Digest>, String> {
        self.settle()?;
        let request = self.request(FindMissingBlobsRequest {
            instance_name: self.instance.clone(),
            blob_digests: blobs.to_vec(),
            digest_function: digest_function::Value::Sha256 as i32,
        });
        let mut client = ContentAddressableStorageClient::new(self.channel.clone());
        let asked: Vec<String> = blobs.iter().map(|b| b.hash.clone()).collect();
        let missing = self.run("FindMissingBlobs", async move {
            client
                .find_missing_blobs(request)
                .await
                .map(|r| r.into_inner().missing_blob_digests)
                .map_err(|s| failed("FindMissingBlobs", &s))
        })?;
        // Only digests that were asked about.
        Ok(missing
            .into_iter()
            .filter(|d| asked.contains(&d.hash))
            .collect())
    }

    fn read_blob(&mut self, blob: &Digest) -> Result<Option<Vec<u8>>, String> {
        self.settle()?;
        if !is_valid(blob) {
            return Err(format!("not a SHA-256 digest: {:?}", blob.hash));
        }
        let size = u64::try_from(blob.size_bytes).unwrap_or(0);
        let bytes = if size > self.batch_limit {
            self.read_stream(blob)?
        } else {
            let request = self.request(BatchReadBlobsRequest {
                instance_name: self.instance.clone(),
                digests: vec![blob.clone()],
                digest_function: digest_function::Value::Sha256 as i32,
                ..Default::default()
            });
            let mut client = ContentAddressableStorageClient::new(self.channel.clone())
                .max_decoding_message_size(
                    usize::try_from(self.batch_limit + BATCH_OVERHEAD).unwrap_or(usize::MAX),
                );
            let hash = blob.hash.clone();
            self.run("BatchReadBlobs", async move {
                let responses = client
                    .batch_read_blobs(request)
                    .await
                    .map_err(|s| failed("BatchReadBlobs", &s))?
                    .into_inner()
                    .responses;
                let Some(found) = responses
                    .into_iter()
                    .find(|r| r.digest.as_ref().is_some_and(|d| d.hash == hash))
                else {
                    return Err("BatchReadBlobs: no answer for the blob asked".into());
                };
                match found.status.map_or(0, |s| s.code) {
                    0 => Ok(Some(found.data)),
                    5 => Ok(None), // NOT_FOUND
                    code => Err(format!("BatchReadBlobs: status {code}")),
                }
            })?
        };
        bytes.map(|b| checked(blob, b)).transpose()
    }

    fn get_action_results(
        &mut self,
        actions: &[Digest],
    ) -> Result<Vec<Option<ActionResult>>, String> {
        self.action_results(actions)
    }

    fn read_blobs(&mut self, blobs: &[Digest]) -> Result<Vec<(Digest, Vec<u8>)>, String> {
        self.settle()?;
        let mut found = self.batch_read(blobs)?;
        // Blobs over the batch limit, one ByteStream read each.
        for blob in blobs {
            if u64::try_from(blob.size_bytes).is_ok_and(|n| n > self.batch_limit) {
                if let Some(bytes) = self.read_blob(blob)? {
                    found.push((blob.clone(), bytes));
                }
            }
        }
        Ok(found)
    }

    fn write_blob(&mut self, blob: &Digest, bytes: &[u8]) -> Result<(), String> {
        self.write_blobs(&[(blob, bytes)])
    }

    fn write_blobs(&mut self, blobs: &[(&Digest, &[u8])]) -> Result<(), String> {
        self.settle()?;
        let mut batch = Vec::new();
        let mut size = 0u64;
        for (blob, bytes) in blobs {
            let n = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
            if n > self.batch_limit {
                self.write_stream(blob, bytes)?;
                continue;
            }
            if size + n + BLOB_OVERHEAD > self.batch_limit {
                self.batch_update(std::mem::take(&mut batch))?;
                size = 0;
            }
            batch.push(batch_update_blobs_request::Request {
                digest: Some((*blob).clone()),
                data: bytes.to_vec(),
                ..Default::default()
            });
            size += n + BLOB_OVERHEAD;
        }
        self.batch_update(batch)
    }

    fn update_action_results(
        &mut self,
        results: &[(&Digest, &ActionResult)],
    ) -> Result<(), String> {
        self.settle()?;
        if !self.update_enabled {
            return Err("the server does not let this client update its action cache".into());
        }
        for chunk in results.chunks(IN_FLIGHT) {
            let requests: Vec<_> = chunk
                .iter()
                .map(|(action, result)| {
                    self.request(UpdateActionResultRequest {
                        instance_name: self.instance.clone(),
                        action_digest: Some((*action).clone()),
                        action_result: Some((*result).clone()),
                        digest_function: digest_function::Value::Sha256 as i32,
                        ..Default::default()
                    })
                })
                .collect();
            let calls = all_at_once(
                "UpdateActionResult",
                self.channel.clone(),
                requests,
                |mut client, request| async move { client.update_action_result(request).await },
            );
            // Those over the server's limit of concurrent calls, asked again below.
            let mut refused = Vec::new();
            for (i, answer) in self
                .run("UpdateActionResult", calls)?
                .into_iter()
                .enumerate()
            {
                match answer {
                    Ok(_) => {}
                    Err(s) if s.code() == tonic::Code::ResourceExhausted => refused.push(i),
                    Err(s) => return Err(failed("UpdateActionResult", &s)),
                }
            }
            for i in refused {
                if let Some((action, result)) = chunk.get(i) {
                    self.update_action_result(action, result)?;
                }
            }
        }
        Ok(())
    }
}

/// Each of `requests` sent through `call` with an action-cache client of its own, all in
/// flight at once; their answers in the order of `requests` (an error only when a call's task
/// did not finish).
async fn all_at_once<Q, R, F, Fut>(
    what: &'static str,
    channel: Channel,
    requests: Vec<tonic::Request<Q>>,
    call: F,
) -> Result<Vec<Result<R, tonic::Status>>, String>
where
    R: Send + 'static,
    F: Fn(ActionCacheClient<Channel>, tonic::Request<Q>) -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<R>, tonic::Status>> + Send + 'static,
{
    let mut set = tokio::task::JoinSet::new();
    for (i, request) in requests.into_iter().enumerate() {
        let answer = call(ActionCacheClient::new(channel.clone()), request);
        set.spawn(async move { (i, answer.await.map(tonic::Response::into_inner)) });
    }
    let mut answers: Vec<Option<Result<R, tonic::Status>>> = Vec::new();
    answers.resize_with(set.len(), || None);
    while let Some(joined) = set.join_next().await {
        let (i, answer) = joined.map_err(|e| format!("{what}: {e}"))?;
        if let Some(slot) = answers.get_mut(i) {
            *slot = Some(answer);
        }
    }
    Ok(answers
        .into_iter()
        .map(|a| a.unwrap_or_else(|| Err(tonic::Status::internal("no answer"))))
        .collect())
}

/// The answer of a spawned call.
async fn joined<T>(call: tokio::task::JoinHandle<Result<T, String>>) -> Result<T, String> {
    call.await
        .map_err(|e| format!("the call did not finish: {e}"))?
}

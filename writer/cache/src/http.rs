//! A server speaking the Bazel HTTP cache protocol (`http://` or `https://`): `GET`, `PUT`
//! and `HEAD` of `URL/ac/<sha256>` (a serialized `ActionResult`, as bazel-remote checks it)
//! and `URL/cas/<sha256>` (a blob named by the SHA-256 of its bytes), through `ureq` with
//! rustls.
//!
//! Every request has one deadline for all of it (connecting, sending, every byte of the
//! answer: a server that drips a byte every few seconds is cut off when the deadline passes),
//! redirects are not followed, and a body is read only up to what was asked for. Any status
//! but 200 (404 for a miss; 200, 201 or 204 for a store) is an error, with the status named.

use crate::reapi::{ActionResult, Digest};
use crate::{checked, is_valid, Config, Store, MAX_BLOB};
use prost::Message;
use ureq::tls::{Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

/// A remote cache at an `http(s)://host[:port][/prefix]` URL.
pub struct HttpStore {
    agent: ureq::Agent,
    base: String,
    headers: Vec<(String, String)>,
}

impl std::fmt::Debug for HttpStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpStore")
            .field("base", &self.base)
            .finish()
    }
}

/// The certificates and private keys in `pem`.
fn pem_items(
    pem: &[u8],
    what: &str,
) -> Result<(Vec<Certificate<'static>>, Option<PrivateKey<'static>>), String> {
    let mut certs = Vec::new();
    let mut key = None;
    for item in ureq::tls::parse_pem(pem) {
        match item.map_err(|e| format!("{what}: {e}"))? {
            PemItem::Certificate(c) => certs.push(c),
            PemItem::PrivateKey(k) => key = Some(k),
            _ => {}
        }
    }
    Ok((certs, key))
}

/// The TLS settings `config` asks for: its authorities instead of the public web's, and its
/// client identity.
fn tls(config: &Config) -> Result<TlsConfig, String> {
    let mut tls = TlsConfig::builder();
    if let Some(ca) = &config.credentials.ca_pem {
        let (certs, _) = pem_items(ca, "the cache's CA bundle")?;
        if certs.is_empty() {
            return Err("the cache's CA bundle holds no certificate".into());
        }
        tls = tls.root_certs(RootCerts::new_with_certs(&certs));
    }
    if let Some((chain, key)) = &config.credentials.client_identity {
        let (certs, _) = pem_items(chain, "the client certificate")?;
        let (_, key) = pem_items(key, "the client key")?;
        let key = key.ok_or("the client key file holds no private key")?;
        tls = tls.client_cert(Some(ClientCert::new_with_certs(&certs, key)));
    }
    Ok(tls.build())
}

impl HttpStore {
    /// The store `config.location` names.
    ///
    /// # Errors
    /// A message for a URL with whitespace or no host, or TLS material that does not parse.
    pub fn new(config: &Config) -> Result<HttpStore, String> {
        let url = config.location.trim_end_matches('/');
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .ok_or_else(|| format!("{url}: not an http(s):// URL"))?;
        if rest.is_empty()
            || rest.starts_with('/')
            || url.contains(|c: char| c.is_whitespace() || c.is_control())
        {
            return Err(format!("{url}: expected http(s)://HOST[:PORT][/PATH]"));
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.deadline))
            .max_redirects(0)
            .http_status_as_error(false)
            .tls_config(tls(config)?)
            .build()
            .into();
        Ok(HttpStore {
            agent,
            base: url.to_string(),
            headers: config.credentials.headers.clone(),
        })
    }

    fn url(&self, kind: &str, digest: &Digest) -> Result<String, String> {
        if !is_valid(digest) {
            return Err(format!("not a SHA-256 digest: {:?}", digest.hash));
        }
        Ok(format!("{}/{kind}/{}", self.base, digest.hash))
    }

    /// `GET`: the body (at most `limit` bytes), `None` for a 404.
    fn get(&self, url: &str, limit: u64) -> Result<Option<Vec<u8>>, String> {
        let mut request = self.agent.get(url);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let mut response = request.call().map_err(|e| format!("GET {url}: {e}"))?;
        match response.status().as_u16() {
            200 => response
                .body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .map(Some)
                .map_err(|e| format!("GET {url}: {e}")),
            404 => Ok(None),
            status => Err(format!("GET {url}: HTTP {status}")),
        }
    }

    fn put(&self, url: &str, bytes: &[u8]) -> Result<(), String> {
        let mut request = self.agent.put(url);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let response = request.send(bytes).map_err(|e| format!("PUT {url}: {e}"))?;
        match response.status().as_u16() {
            200 | 201 | 204 => Ok(()),
            status => Err(format!("PUT {url}: HTTP {status}")),
        }
    }

    fn has(&self, url: &str) -> Result<bool, String> {
        let mut request = self.agent.head(url);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let response = request.call().map_err(|e| format!("HEAD {url}: {e}"))?;
        match response.status().as_u16() {
            200 => Ok(true),
            404 => Ok(false),
            status => Err(format!("HEAD {url}: HTTP {status}")),
        }
    }
}

/// The largest action result read (a handful of digests and paths).
const MAX_ACTION_RESULT: u64 = 1 << 20;

impl Store for HttpStore {
    fn describe(&self) -> String {
        self.base.clone()
    }

    fn get_action_result(&mut self, action: &Digest) -> Result<Option<ActionResult>, String> {
        let url = self.url("ac", action)?;
        match self.get(&url, MAX_ACTION_RESULT)? {
            None => Ok(None),
            Some(bytes) => ActionResult::decode(bytes.as_slice())
                .map(Some)
                .map_err(|e| format!("GET {url}: not an ActionResult: {e}")),
        }
    }

    fn update_action_result(
        &mut self,
        action: &Digest,
        result: &ActionResult,
    ) -> Result<(), String> {
        let url = self.url("ac", action)?;
        self.put(&url, &result.encode_to_vec())
    }

    fn find_missing(&mut self, blobs: &[Digest]) -> Result<Vec<Digest>, String> {
        let mut missing = Vec::new();
        for blob in blobs {
            if !self.has(&self.url("cas", blob)?)? {
                missing.push(blob.clone());
            }
        }
        Ok(missing)
    }

    fn read_blob(&mut self, blob: &Digest) -> Result<Option<Vec<u8>>, String> {
        let url = self.url("cas", blob)?;
        let limit = u64::try_from(blob.size_bytes).unwrap_or(0).min(MAX_BLOB);
        // One byte past the size: a longer body is another blob, not a truncated read of it.
        match self.get(&url, limit + 1)? {
            None => Ok(None),
            Some(bytes) => checked(blob, bytes).map(Some),
        }
    }

    fn write_blob(&mut self, blob: &Digest, bytes: &[u8]) -> Result<(), String> {
        let url = self.url("cas", blob)?;
        self.put(&url, bytes)
    }
}

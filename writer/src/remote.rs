//! The HTTP side of the bake cache (`--cache-url URL`): `GET`, `HEAD` and `PUT` of
//! `URL/ac/<sha256>` and `URL/cas/<sha256>`, the paths of the Bazel remote-cache HTTP
//! protocol, over plain HTTP/1.1 (one connection per request, `Connection: close`).
//!
//! Everything is bounded: connecting takes at most [`CONNECT_TIMEOUT`], every read or write
//! at most [`IO_TIMEOUT`], and a response body at most [`MAX_BODY`] bytes. A response whose
//! body is shorter than its `Content-Length` says is an error (a truncated transfer), as is
//! any status but 200 (and 404 for a miss, 200/201/204 for a store). What comes back is
//! checked by the cache like any untrusted input; nothing here trusts it.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The longest a connection may take to open.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest one read or write may block.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest response body accepted (a package is at most 4 GiB; a cached entry is one
/// entry of one).
pub const MAX_BODY: u64 = 256 << 20;

/// A remote cache at an `http://host[:port][/prefix]` URL.
#[derive(Debug, Clone)]
pub struct HttpStore {
    host: String,
    port: u16,
    prefix: String,
}

impl HttpStore {
    /// Parses `url`.
    ///
    /// # Errors
    /// A message for anything but `http://host[:port][/path]` (HTTPS is not supported: put
    /// a TLS-terminating proxy on the machine, or use a directory cache).
    pub fn new(url: &str) -> Result<HttpStore, String> {
        let Some(rest) = url.strip_prefix("http://") else {
            return Err(format!(
                "{url}: only http:// cache URLs are supported (no TLS)"
            ));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
            None => (rest, ""),
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => (
                host,
                port.parse::<u16>()
                    .map_err(|_| format!("{url}: bad port `{port}`"))?,
            ),
            None => (authority, 80),
        };
        if host.is_empty() || path.contains(|c: char| c.is_whitespace() || c.is_control()) {
            return Err(format!("{url}: expected http://host[:port][/path]"));
        }
        Ok(HttpStore {
            host: host.to_string(),
            port,
            prefix: path.to_string(),
        })
    }

    /// `GET prefix/name`: `Ok(None)` for a 404.
    pub fn get(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let (status, body) = self.request("GET", name, None)?;
        match status {
            200 => Ok(Some(body)),
            404 => Ok(None),
            other => Err(format!("GET {name}: HTTP {other}")),
        }
    }

    /// `HEAD prefix/name`: whether the server has it.
    pub fn has(&self, name: &str) -> Result<bool, String> {
        let (status, _) = self.request("HEAD", name, None)?;
        match status {
            200 => Ok(true),
            404 => Ok(false),
            other => Err(format!("HEAD {name}: HTTP {other}")),
        }
    }

    /// `PUT prefix/name` with `body`.
    pub fn put(&self, name: &str, body: &[u8]) -> Result<(), String> {
        let (status, _) = self.request("PUT", name, Some(body))?;
        match status {
            200 | 201 | 204 => Ok(()),
            other => Err(format!("PUT {name}: HTTP {other}")),
        }
    }

    fn request(
        &self,
        method: &str,
        name: &str,
        body: Option<&[u8]>,
    ) -> Result<(u16, Vec<u8>), String> {
        let failed = |e: std::io::Error| format!("{method} {name}: {e}");
        let address = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(failed)?
            .next()
            .ok_or_else(|| format!("{}: no address", self.host))?;
        let mut stream = TcpStream::connect_timeout(&address, CONNECT_TIMEOUT).map_err(failed)?;
        stream.set_read_timeout(Some(IO_TIMEOUT)).map_err(failed)?;
        stream.set_write_timeout(Some(IO_TIMEOUT)).map_err(failed)?;
        let mut head = format!(
            "{method} {}/{name} HTTP/1.1\r\nHost: {}:{}\r\nConnection: close\r\n",
            self.prefix, self.host, self.port
        );
        if let Some(body) = body {
            head.push_str(&format!(
                "Content-Length: {}\r\nContent-Type: application/octet-stream\r\n",
                body.len()
            ));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).map_err(failed)?;
        if let Some(body) = body {
            stream.write_all(body).map_err(failed)?;
        }
        stream.flush().map_err(failed)?;
        let mut response = Vec::new();
        stream
            .take(MAX_BODY + 64 * 1024)
            .read_to_end(&mut response)
            .map_err(failed)?;
        parse_response(&response, method == "HEAD").map_err(|e| format!("{method} {name}: {e}"))
    }
}

/// Status and body of an HTTP/1.1 response read to the end of the connection.
fn parse_response(response: &[u8], head_only: bool) -> Result<(u16, Vec<u8>), String> {
    let end = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no complete response header")?;
    let head = std::str::from_utf8(&response[..end]).map_err(|_| "a header that is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|_| status_line.starts_with("HTTP/1."))
        .ok_or_else(|| format!("a bad status line {status_line:?}"))?;
    let mut length: Option<u64> = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse().map_err(|_| "a bad Content-Length")?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        }
    }
    let rest = &response[end + 4..];
    if head_only {
        return Ok((status, Vec::new()));
    }
    let body = if chunked {
        dechunk(rest)?
    } else if let Some(length) = length {
        if length > MAX_BODY {
            return Err(format!("a body of {length} bytes (limit {MAX_BODY})"));
        }
        let length = usize::try_from(length).map_err(|_| "a body too large")?;
        if rest.len() < length {
            return Err(format!(
                "the body was cut short: {} of {length} bytes",
                rest.len()
            ));
        }
        rest[..length].to_vec()
    } else {
        rest.to_vec()
    };
    if body.len() as u64 > MAX_BODY {
        return Err(format!("a body over {MAX_BODY} bytes"));
    }
    Ok((status, body))
}

/// The body of a `Transfer-Encoding: chunked` response.
fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk without its size line")?;
        let size_text = std::str::from_utf8(&rest[..line_end]).map_err(|_| "a bad chunk size")?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| "a bad chunk size")?;
        rest = rest.get(line_end + 2..).unwrap_or_default();
        if size == 0 {
            return Ok(body);
        }
        // `size` comes from the network: every sum with it is checked (a chunk of
        // 0xFFFFFFFFFFFFFFFE bytes is refused, not an overflow).
        if body
            .len()
            .checked_add(size)
            .is_none_or(|total| total as u64 > MAX_BODY)
        {
            return Err(format!(
                "a chunk of {size} bytes takes the body over {MAX_BODY}"
            ));
        }
        let (chunk, after) = size
            .checked_add(2)
            .and_then(|with_end| Some((rest.get(..size)?, rest.get(with_end..)?)))
            .ok_or_else(|| format!("a chunk cut short: {size} bytes declared"))?;
        body.extend_from_slice(chunk);
        rest = after;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_parsed_and_https_refused() {
        let s = HttpStore::new("http://cache.local:9090/bazel/").unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.prefix.as_str()),
            ("cache.local", 9090, "/bazel")
        );
        let s = HttpStore::new("http://127.0.0.1").unwrap();
        assert_eq!((s.port, s.prefix.as_str()), (80, ""));
        for bad in [
            "https://x",
            "ftp://x",
            "http://",
            "http://x:port",
            "http://x/a b",
        ] {
            assert!(HttpStore::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn responses_are_parsed_and_truncation_is_an_error() {
        let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
        assert_eq!(parse_response(ok, false).unwrap(), (200, b"abc".to_vec()));
        let cut = b"HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\nabc";
        assert!(parse_response(cut, false).is_err());
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n1\r\nd\r\n0\r\n\r\n";
        assert_eq!(parse_response(chunked, false).unwrap().1, b"abcd");
        assert!(parse_response(b"HTTP/1.1 200 OK\r\n", false).is_err());
        // Chunk sizes near `usize::MAX` are refused, not overflowed (debug builds panicked).
        for size in ["FFFFFFFFFFFFFFFE", "FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFD"] {
            let huge = format!(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n{size}\r\nbc\r\n0\r\n\r\n"
            );
            assert!(parse_response(huge.as_bytes(), false).is_err(), "{size}");
        }
        // A chunk that declares more than the response holds.
        let short = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc\r\n0\r\n\r\n";
        assert!(parse_response(short, false).is_err());
        assert!(parse_response(b"garbage\r\n\r\n", false).is_err());
        assert_eq!(
            parse_response(b"HTTP/1.1 404 Not Found\r\n\r\n", false)
                .unwrap()
                .0,
            404
        );
    }
}

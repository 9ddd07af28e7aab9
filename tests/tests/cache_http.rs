//! The remote bake cache (`BakeConfig::cache_url`, `slangpack bake --cache-url URL`) against
//! real HTTP servers on 127.0.0.1: Debian's nginx with its WebDAV module, which serves exactly
//! the GET/HEAD/PUT paths of the Bazel remote-cache protocol; and small servers in this test
//! that answer with truncated or corrupt bodies, 500s, or stop after their first answer. A
//! warm remote bakes a fresh checkout without Slang and byte for byte; a broken remote costs
//! compiles and warnings, never the bake.

use slangpack_tests::checkout::{
    assert_one_cache_warning, bake_with_cache, checkout, cold_then_warm, free_port, packages,
    reference_bake,
};
use slangpack_writer::bake::{bake, BakeConfig};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// nginx serving `root` with WebDAV PUT on a free port; killed when dropped.
struct Nginx {
    child: Child,
    port: u16,
}

/// What an nginx of [`Nginx::start_with`] asks of its clients.
#[derive(Default)]
struct Guard<'a> {
    /// TLS: the server's PEM certificate and key files.
    tls: Option<(&'a Path, &'a Path)>,
    /// An `Authorization` header value every request must carry (others get 401).
    authorization: Option<&'a str>,
}

impl Nginx {
    fn start(dir: &Path) -> Option<Nginx> {
        Self::start_with(dir, &Guard::default())
    }

    fn start_with(dir: &Path, guard: &Guard<'_>) -> Option<Nginx> {
        let nginx = ["/usr/sbin/nginx", "nginx"]
            .into_iter()
            .find(|n| Command::new(n).arg("-v").output().is_ok())?;
        let port = free_port();
        let store = dir.join("store");
        std::fs::create_dir_all(&store).unwrap();
        let d = dir.display();
        let (ssl, certificate) = match guard.tls {
            Some((cert, key)) => (
                " ssl",
                format!(
                    "    ssl_certificate {};\n    ssl_certificate_key {};\n",
                    cert.display(),
                    key.display()
                ),
            ),
            None => ("", String::new()),
        };
        let check = guard.authorization.map_or(String::new(), |value| {
            format!("      if ($http_authorization != \"{value}\") {{ return 401; }}\n")
        });
        // `user` only matters when the master runs as root (then workers must write the store).
        let config = format!(
            "daemon off;\nmaster_process off;\nuser root;\npid {d}/nginx.pid;\n\
             error_log {d}/error.log;\nevents {{}}\nhttp {{\n  access_log off;\n\
             client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
             fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n\
             scgi_temp_path {d}/scgi;\n  server {{\n    listen 127.0.0.1:{port}{ssl};\n\
             {certificate}    root {};\n    client_max_body_size 0;\n    location / {{\n\
             {check}      dav_methods PUT;\n      create_full_put_path on;\n    }}\n  }}\n}}\n",
            store.display()
        );
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config).unwrap();
        let child = Command::new(nginx)
            .arg("-c")
            .arg(&conf)
            .arg("-p")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "nginx did not start: {}",
                std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(Nginx { child, port })
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/bazel", self.port)
    }

    fn https_url(&self) -> String {
        format!("https://127.0.0.1:{}/bazel", self.port)
    }
}

/// A certificate authority and a certificate it signed for 127.0.0.1, as PEM files in `dir`:
/// (CA certificate, server certificate, server key).
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
    std::fs::create_dir_all(dir).unwrap();
    let mut ca_params = CertificateParams::new(Vec::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let mut params = CertificateParams::new(Vec::new()).unwrap();
    params
        .subject_alt_names
        .push(SanType::IpAddress(std::net::Ipv4Addr::LOCALHOST.into()));
    let key = KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, &issuer).unwrap();
    let paths = (
        dir.join("ca.pem"),
        dir.join("server.pem"),
        dir.join("server.key"),
    );
    std::fs::write(&paths.0, ca_cert.pem()).unwrap();
    std::fs::write(&paths.1, cert.pem()).unwrap();
    std::fs::write(&paths.2, key.serialize_pem()).unwrap();
    paths
}

#[test]
fn https_with_a_credential_check() {
    let tmp = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(&tmp.path().join("tls"));
    let guard = Guard {
        tls: Some((&cert, &key)),
        authorization: Some("Bearer team-token"),
    };
    let Some(server) = Nginx::start_with(&tmp.path().join("nginx"), &guard) else {
        eprintln!("nginx is not installed (provisioning installs it); skipping");
        return;
    };
    let bake_as = |dir: &str, ca: Option<&Path>, token: Option<&str>| {
        let mut config = BakeConfig::new(vec![checkout(&tmp.path().join(dir))]);
        config.jobs = 2;
        config.cache_url = Some(server.https_url());
        config.cache_options.ca = ca.map(Path::to_path_buf);
        config.cache_options.headers = token
            .map(|t| vec![("Authorization".to_string(), t.to_string())])
            .unwrap_or_default();
        bake(&config).expect("the bake succeeds whatever the cache does")
    };
    let cold = bake_as("a", Some(&ca), Some("Bearer team-token"));
    assert_eq!((cold.compiled, cold.from_cache), (5, 0));
    assert!(cold.cache_warnings.is_empty(), "{:?}", cold.cache_warnings);
    let warm = bake_as("b", Some(&ca), Some("Bearer team-token"));
    assert_eq!((warm.compiled, warm.from_cache), (0, 5));
    assert!(warm.bytes == cold.bytes);

    // Without the credential: 401, one warning, local compiles, the same bytes; nothing the
    // server holds is read or written.
    for token in [None, Some("Bearer wrong")] {
        let refused = bake_as("c", Some(&ca), token);
        assert_one_cache_warning(&refused, &cold, (5, 0), "401");
    }
    // Without the CA that signed the server's certificate: the TLS handshake fails.
    let untrusted = bake_as("d", None, Some("Bearer team-token"));
    assert_eq!(untrusted.compiled, 5);
    assert!(untrusted.bytes == cold.bytes);
    assert_eq!(
        untrusted.cache_warnings.len(),
        1,
        "{:?}",
        untrusted.cache_warnings
    );
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn nginx_as_the_remote_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(server) = Nginx::start(&tmp.path().join("nginx")) else {
        eprintln!("nginx is not installed (provisioning installs it); skipping");
        return;
    };
    let (cold, _) = cold_then_warm(tmp.path(), &server.url());
    let store = tmp.path().join("nginx/store/bazel");
    assert_eq!(std::fs::read_dir(store.join("ac")).unwrap().count(), 6);
    assert_eq!(
        packages(&store.join("cas")).len(),
        5,
        "4 entries, the package"
    );

    // The server stops: one warning, local compiles, the same bytes.
    drop(server);
    let stopped = bake_with_cache(
        &checkout(&tmp.path().join("d")),
        &format!("http://127.0.0.1:{}/bazel", free_port()),
        None,
    );
    assert_eq!(stopped.compiled, 5);
    assert!(stopped.bytes == cold.bytes);
    assert_eq!(
        stopped.cache_warnings.len(),
        1,
        "{:?}",
        stopped.cache_warnings
    );
}

/// How a test server answers a request (given its head).
type Answer = fn(&str) -> Vec<u8>;

/// A server answering every request with `answer(request)`, until `requests` have been
/// answered (then it stops listening).
fn serve(requests: usize, answer: Answer) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut request = Vec::new();
            let mut buf = [0u8; 65536];
            // The head, then as much body as Content-Length says.
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&request).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text
                        .lines()
                        .find_map(|l| l.strip_prefix("Content-Length: "))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break;
                    }
                }
            }
            let head = String::from_utf8_lossy(&request).to_string();
            let _ = stream.write_all(&answer(&head));
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[test]
fn broken_servers_cost_compiles_not_the_bake() {
    let tmp = tempfile::tempdir().unwrap();
    let reference = reference_bake(&tmp.path().join("ref"));

    let answers: [(&str, Answer); 4] = [
        ("500s", |_| {
            b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n".to_vec()
        }),
        ("truncated bodies", |_| {
            b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n\x0a\x20".to_vec()
        }),
        ("garbage", |request| {
            if request.starts_with("GET /ac/") {
                // A well-formed action result naming blobs the server then serves as garbage.
                use prost::Message;
                let blob = slangpack_cache::reapi::Digest {
                    hash: "0".repeat(64),
                    size_bytes: 16,
                };
                let result = slangpack_cache::reapi::ActionResult {
                    output_files: ["entry.slangpack", "inputs.tree"]
                        .map(|path| slangpack_cache::reapi::OutputFile {
                            path: path.into(),
                            digest: Some(blob.clone()),
                            ..Default::default()
                        })
                        .to_vec(),
                    ..Default::default()
                };
                let body = result.encode_to_vec();
                let mut answer =
                    format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len())
                        .into_bytes();
                answer.extend_from_slice(&body);
                answer
            } else {
                b"HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\nSLANGPAK garbage".to_vec()
            }
        }),
        ("not HTTP", |_| {
            b"\x00\x01\x02 definitely not a response".to_vec()
        }),
    ];
    for (what, answer) in answers {
        let url = serve(1000, answer);
        let dir = tmp.path().join(what.replace(' ', "-"));
        let outcome = bake_with_cache(&checkout(&dir), &url, None);
        assert!(outcome.bytes == reference.bytes, "{what}");
        assert_eq!(outcome.compiled, 5, "{what}");
        assert!(!outcome.cache_warnings.is_empty(), "{what}");
    }

    // A server that stops after its first answer.
    let url = serve(1, |_| {
        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec()
    });
    let outcome = bake_with_cache(&checkout(&tmp.path().join("stops")), &url, None);
    assert!(outcome.bytes == reference.bytes);
    assert_eq!(outcome.compiled, 5);
    assert_eq!(
        outcome.cache_warnings.len(),
        1,
        "{:?}",
        outcome.cache_warnings
    );
}

/// A server that accepts every connection and sends the head of an answer one byte a second,
/// never finishing it.
fn drip() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".repeat(100) {
                    if stream.write_all(&[byte]).is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_secs(1));
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[test]
fn a_slow_drip_server_is_cut_off_by_the_deadline() {
    let tmp = tempfile::tempdir().unwrap();
    let reference = reference_bake(&tmp.path().join("ref"));

    let mut config = BakeConfig::new(vec![checkout(&tmp.path().join("drip"))]);
    config.jobs = 2;
    config.cache_url = Some(drip());
    config.cache_options.timeout = Some(Duration::from_secs(2));
    let started = Instant::now();
    let outcome = bake(&config).unwrap();
    // One request runs into the deadline; the server is then not asked again.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert!(outcome.bytes == reference.bytes);
    assert_eq!(outcome.compiled, 5);
    assert_eq!(
        outcome.cache_warnings.len(),
        1,
        "{:?}",
        outcome.cache_warnings
    );
}

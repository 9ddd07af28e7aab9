//! Headless Chromium (Debian's `chromium`, which `cargo xtask test` provisions): load a page
//! from disk and read back the DOM its script made, or a screenshot of it.
#![allow(dead_code, reason = "each test file uses part of it")]

use std::path::Path;
use std::process::Command;

/// Whether `chromium` runs here. CI's first step tests the package tools before anything is
/// provisioned, so without it the browser tests say so and pass; `cargo xtask test`
/// provisions Chromium and sets `SLANGPACK_REQUIRE_CHROMIUM=1`, which makes its absence a
/// failure.
pub fn available() -> bool {
    let runs = Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        runs || std::env::var_os("SLANGPACK_REQUIRE_CHROMIUM").is_none(),
        "SLANGPACK_REQUIRE_CHROMIUM is set and `chromium` does not run (Debian package `chromium`)"
    );
    if !runs {
        eprintln!("chromium not found: the browser checks did not run");
    }
    runs
}

/// Runs `chromium --headless` on `page` (with `#hash` after its URL) with `args`, each run
/// in a fresh profile directory; panics with its output when it fails.
fn chromium(page: &Path, hash: &str, args: &[&str]) -> Vec<u8> {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}{hash}", page.canonicalize().unwrap().display());
    let output = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--hide-scrollbars",
            "--window-size=1280,1024",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(&url)
        .output()
        .expect("chromium runs (Debian package `chromium`; `cargo xtask test` installs it)");
    assert!(
        output.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The DOM of `page` after its script ran, as Chromium serializes it.
pub fn dom(page: &Path, hash: &str) -> String {
    let dom = String::from_utf8(chromium(page, hash, &["--dump-dom"])).unwrap();
    assert!(
        dom.contains("data-rendered=\"yes\""),
        "the page's script did not finish: {}",
        &dom[..dom.len().min(2000)]
    );
    dom
}

/// A PNG screenshot of `page`, written to `png`.
pub fn screenshot(page: &Path, hash: &str, png: &Path) {
    chromium(page, hash, &[&format!("--screenshot={}", png.display())]);
    assert!(png.exists(), "chromium wrote no screenshot");
}

/// One start tag of a serialized DOM: its name and attributes (values unescaped).
#[derive(Debug, Clone)]
pub struct Tag {
    pub name: String,
    pub attributes: Vec<(String, String)>,
}

impl Tag {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn has_class(&self, class: &str) -> bool {
        self.get("class")
            .is_some_and(|c| c.split_whitespace().any(|x| x == class))
    }

    /// A `style` property in percent (`left: 12.5%`).
    pub fn percent(&self, property: &str) -> Option<f64> {
        let style = self.get("style")?;
        style.split(';').find_map(|decl| {
            let (name, value) = decl.split_once(':')?;
            (name.trim() == property)
                .then(|| value.trim().trim_end_matches('%').parse().ok())
                .flatten()
        })
    }
}

fn unescape(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// Every start tag of a serialized DOM (Chromium's serializer: attribute values in double
/// quotes with `"`, `&`, `<`, `>` escaped; text with `<`, `>`, `&` escaped; raw text inside
/// `<script>` and `<style>` skipped).
pub fn tags(dom: &str) -> Vec<Tag> {
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        if rest.starts_with('/') || rest.starts_with('!') {
            continue;
        }
        let name_end = rest
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let name = rest[..name_end].to_ascii_lowercase();
        let mut attributes = Vec::new();
        let mut s = &rest[name_end..];
        loop {
            s = s.trim_start();
            if s.starts_with('>') || s.starts_with("/>") || s.is_empty() {
                break;
            }
            let end = s
                .find(|c: char| c == '=' || c.is_whitespace() || c == '>')
                .unwrap_or(s.len());
            let attr = s[..end].to_ascii_lowercase();
            s = &s[end..];
            if let Some(after) = s.strip_prefix("=\"") {
                let close = after.find('"').expect("a closed attribute value");
                attributes.push((attr, unescape(&after[..close])));
                s = &after[close + 1..];
            } else {
                attributes.push((attr, String::new()));
            }
        }
        rest = s;
        if name == "script" || name == "style" {
            if let Some(end) = rest.find(&format!("</{name}>")) {
                rest = &rest[end..];
            }
        }
        out.push(Tag { name, attributes });
    }
    out
}

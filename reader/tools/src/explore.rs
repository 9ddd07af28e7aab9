//! What `slangpack explore` writes: one self-contained HTML page that draws a package's
//! bindings and layouts (entries with a filter, pipelines as set × binding grids, buffers to
//! scale on a byte ruler, vertex inputs, fragment outputs, execution modes, specialization
//! constants, per-target binding tables), or the differences between two packages drawn on
//! the same views.
//!
//! The page is inline CSS and JavaScript and one JSON document; it loads nothing (no network,
//! no fonts) and opens from disk. Names from the package are data: the document sits in a
//! `<script type="application/json">` element with every `<`, `>`, `&`, U+2028 and U+2029
//! escaped (so no name can end the element), and the script renders it with DOM calls and
//! `textContent` only, never by parsing markup.
//!
//! ```no_run
//! use slangpack_reader::Package;
//!
//! let package = Package::open("shaders.slangpack")?;
//! let html = slangpack_tools::explore::page(&package, "shaders.slangpack")?;
//! std::fs::write("page.html", html)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::diff::Change;
use crate::ToolError;
use slangpack_reader::Package;

const STYLE: &str = include_str!("explore/page.css");
const SCRIPT: &str = include_str!("explore/page.js");

/// The page for one package; `title` (a file name, say) is shown at its top, as data.
///
/// # Errors
/// [`ToolError::LimitExceeded`] when the package's JSON document would pass the output
/// budget ([`crate::budget`]), as `dump --json`.
pub fn page(package: &Package, title: &str) -> Result<String, ToolError> {
    let doc = package_data(package)?;
    let title = json_string(title)?;
    Ok(html(&format!(
        "{{\"mode\":\"package\",\"title\":{title},\"package\":{doc}}}"
    )))
}

/// The page for the differences from package `old` to package `new` (what `slangpack diff`
/// reports), drawn on the views of both; `title` is shown at its top, as data.
///
/// # Errors
/// [`ToolError::LimitExceeded`] when either package's JSON document or the differences would
/// pass the output budget.
pub fn diff_page(old: &Package, new: &Package, title: &str) -> Result<String, ToolError> {
    let a = package_data(old)?;
    let b = package_data(new)?;
    let differences: Vec<serde_json::Value> = crate::diff::try_diff(old, new)?
        .iter()
        .map(|d| {
            serde_json::json!({
                "entry": d.entry,
                "change": match d.change {
                    Change::Added => "added",
                    Change::Removed => "removed",
                    Change::Changed => "changed",
                },
                "subject": d.subject,
                "property": d.property,
                "before": d.before,
                "after": d.after,
            })
        })
        .collect();
    let differences =
        serde_json::to_string(&differences).map_err(|e| ToolError::Input(format!("JSON: {e}")))?;
    let title = json_string(title)?;
    Ok(html(&format!(
        "{{\"mode\":\"diff\",\"title\":{title},\"old\":{a},\"new\":{b},\"differences\":{differences}}}"
    )))
}

/// What the layout half of an entry's document depends on: its reflection blob and its entry
/// points' names and stages (as in `diff`). Entries sharing it share one layout document.
type LayoutKey<'p> = (u32, Vec<(&'p str, u32)>);

/// The package's document for the page: each entry's own part (`key`, `options_hash`,
/// `dependencies`, `entry_points`, and `layout`, the index of its layout document) and the
/// layout documents (the rest of `dump --json`'s entry: bindings, buffers, ...), one for each
/// distinct reflection blob and entry points, so that thousands of permutations sharing a few
/// layouts make a page of about the size of their keys.
///
/// `{"format_version": [major, minor], "entries": [...], "layouts": [...]}`.
fn package_data(package: &Package) -> Result<String, ToolError> {
    let mut budget = crate::budget::Budget::new("the explorer page", &[package]);
    let mut layouts: std::collections::HashMap<LayoutKey<'_>, usize> =
        std::collections::HashMap::new();
    let mut entries = String::from("[");
    let mut layout_docs = String::from("[");
    // Entries that fail to load are left out, as in `dump`; `slangpack explore` verifies the
    // package first.
    for entry in package.entries().flatten() {
        let key: LayoutKey<'_> = (
            entry.record().reflection,
            entry
                .entry_points()
                .map(|ep| (ep.name(), ep.stage().to_raw()))
                .collect(),
        );
        let next = layouts.len();
        let (index, fresh) = match layouts.entry(key) {
            std::collections::hash_map::Entry::Occupied(o) => (*o.get(), false),
            std::collections::hash_map::Entry::Vacant(v) => (*v.insert(next), true),
        };
        let estimate = if fresh {
            budget.charge_entry(&entry)?
        } else {
            0
        };
        let mut doc = crate::dump::entry_doc(&entry);
        let own = serde_json::json!({
            "key": std::mem::take(&mut doc.key),
            "options_hash": std::mem::take(&mut doc.options_hash),
            "dependencies": serde_json::to_value(std::mem::take(&mut doc.dependencies)).map_err(json_error)?,
            "entry_points": serde_json::to_value(std::mem::take(&mut doc.entry_points)).map_err(json_error)?,
            "layout": index,
        });
        let own = serde_json::to_string(&own).map_err(json_error)?;
        budget.charge(own.len())?;
        if entries.len() > 1 {
            entries.push(',');
        }
        entries.push_str(&own);
        if fresh {
            let layout = serde_json::to_string(&doc).map_err(json_error)?;
            budget.settle(estimate, layout.len())?;
            if layout_docs.len() > 1 {
                layout_docs.push(',');
            }
            layout_docs.push_str(&layout);
        }
    }
    entries.push(']');
    layout_docs.push(']');
    let (major, minor) = package.version();
    Ok(format!(
        "{{\"format_version\":[{major},{minor}],\"entries\":{entries},\"layouts\":{layout_docs}}}"
    ))
}

fn json_error(e: serde_json::Error) -> ToolError {
    ToolError::Input(format!("JSON: {e}"))
}

fn json_string(text: &str) -> Result<String, ToolError> {
    serde_json::to_string(text).map_err(json_error)
}

/// JSON text made safe inside a `<script>` element: `<`, `>` and `&` become `\u003c`,
/// `\u003e`, `\u0026` (so neither `</script>` nor `<!--` can appear), and U+2028, U+2029
/// (which end a line in older JavaScript), control characters (DEL, C1) and the characters
/// that reorder or hide text ([`shown`](crate::shown)'s set) `\uXXXX` escapes, so a page
/// printed to a terminal carries none raw. These characters occur in JSON only inside strings, where the escapes mean the
/// same characters, so the document parses to the same value.
pub fn script_safe_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        let escaped = matches!(c, '<' | '>' | '&') || (crate::text::is_hidden(c) && c != '\n');
        if escaped {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The page around a JSON document.
fn html(data: &str) -> String {
    let data = script_safe_json(data);
    let mut out = String::with_capacity(data.len() + STYLE.len() + SCRIPT.len() + 1024);
    out.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>slangpack explore</title>\n<style>\n",
    );
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<noscript>This page draws the package with JavaScript.</noscript>\n");
    out.push_str("<script type=\"application/json\" id=\"slangpack-data\">");
    out.push_str(&data);
    out.push_str("</script>\n<script>\n");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_name_can_close_the_data_element() {
        let json = serde_json::to_string(
            "</script><script>alert(1)</script>&<!--\u{2028}\u{2029}\u{7f}\u{9b}\u{202e}\u{feff}\u{1F600}",
        )
        .unwrap();
        let safe = script_safe_json(&json);
        for bad in [
            "<", ">", "&", "\u{2028}", "\u{2029}", "\u{7f}", "\u{9b}", "\u{202e}", "\u{feff}",
        ] {
            assert!(!safe.contains(bad), "{bad:?} in {safe}");
        }
        let back: String = serde_json::from_str(&safe).unwrap();
        let original: String = serde_json::from_str(&json).unwrap();
        assert_eq!(back, original);
    }

    #[test]
    fn the_page_loads_nothing() {
        let page = html("{}");
        for external in [
            "http://", "https://", "//", " src=", " href=", "@import", "url(",
        ] {
            assert!(!page.contains(external), "the page refers to {external:?}");
        }
        assert!(page.contains("default-src 'none'"));
    }
}

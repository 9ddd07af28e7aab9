//! The explorer page of a hostile package (names holding `</script>`, markup with event
//! handlers, quotes, newlines, U+2028), loaded in headless Chromium: every name shows as text,
//! no element or attribute comes from a name, and no script from the package runs.

#[path = "common/browser.rs"]
mod browser;
mod common;

use common::{Hostile, Member};
use slangpack_reader::Package;

/// What a name's payload does if it ever runs: mark the body.
const RUN: &str = "document.body.setAttribute('data-pwned','y'+'es')";

fn hostile_names() -> Vec<String> {
    vec![
        format!("</script><script>{RUN}</script>"),
        format!("<img src=x onerror=\"{RUN}\">"),
        format!("\"><svg onload={RUN}>"),
        format!("'quoted' \"double\" &amp; <!-- {RUN} -->"),
        "line\nbreak\u{2028}sep\u{2029}end".to_string(),
        format!("<style>body{{display:none}}</style><iframe srcdoc=\"<script>{RUN}</script>\">"),
    ]
}

#[test]
fn hostile_names_are_text_in_the_rendered_page() {
    let names = hostile_names();
    let members: Vec<Member> = names
        .iter()
        .enumerate()
        .map(|(i, n)| Member::float(n, 4 * i as u32))
        .collect();
    let mut hostile = Hostile::new(&names[0], members);
    hostile.buffer = names[1].clone();
    hostile.push_constant = names[2].clone();
    hostile.entry_points = vec![names[3].clone(), names[4].clone()];
    let mut second = Hostile::new(&names[5], vec![Member::float(&names[2], 0)]);
    second.buffer = names[3].clone();
    let bytes = Hostile::package_of(&[hostile, second]);
    let package = Package::from_bytes(&bytes).unwrap();

    let html = slangpack_tools::explore::page(&package, &names[1]).unwrap();
    // The data cannot end its element or open a comment: the page has exactly its own two
    // scripts and one style, whatever the names hold.
    assert_eq!(html.matches("</script").count(), 2, "{html}");
    assert_eq!(html.matches("<script").count(), 2);
    assert_eq!(html.matches("<style").count(), 1);
    assert!(!html.contains("<img") && !html.contains("<svg") && !html.contains("<iframe"));
    assert!(!html.contains("<!--"));

    if !browser::available() {
        return;
    }
    // The diff page of the two (every entry added and removed) holds the same promise.
    let other = Package::from_bytes(&Hostile::package_of(&[Hostile::new(
        &names[4],
        vec![Member::float(&names[0], 0)],
    )]))
    .unwrap();
    let diff = slangpack_tools::explore::diff_page(&package, &other, &names[2]).unwrap();
    assert_eq!(diff.matches("</script").count(), 2);
    assert_eq!(diff.matches("<script").count(), 2);
    assert!(!diff.contains("<img") && !diff.contains("<svg") && !diff.contains("<!--"));

    let dir = tempfile::tempdir().unwrap();
    let diff_path = dir.path().join("diff.html");
    std::fs::write(&diff_path, &diff).unwrap();
    let page = dir.path().join("hostile.html");
    std::fs::write(&page, &html).unwrap();
    for key in [&names[0], &names[5]] {
        let hash = format!(
            "#entry={}",
            key.bytes().map(|b| format!("%{b:02X}")).collect::<String>()
        );
        let dom = browser::dom(&page, &hash);
        let tags = browser::tags(&dom);
        assert!(
            tags.iter().all(|t| t.get("data-pwned").is_none()),
            "a name's script ran: {dom}"
        );
        // Only the page's own elements: none that a name could have made.
        for tag in &tags {
            assert!(
                !["img", "svg", "iframe", "a", "link", "object", "embed", "meta"]
                    .contains(&tag.name.as_str())
                    || (tag.name == "meta" && tag.get("charset").is_some())
                    || (tag.name == "meta" && tag.get("name") == Some("viewport"))
                    || (tag.name == "meta" && tag.get("http-equiv").is_some()),
                "an element from a name: {tag:?}"
            );
            for (attribute, _) in &tag.attributes {
                assert!(
                    !attribute.starts_with("on") && attribute != "srcdoc" && attribute != "src",
                    "an attribute from a name: {tag:?}"
                );
            }
        }
        assert_eq!(tags.iter().filter(|t| t.name == "script").count(), 2);
        assert_eq!(tags.iter().filter(|t| t.name == "style").count(), 1);
        // The selected entry is the one asked for, its name shown as text.
        let selected: Vec<_> = tags
            .iter()
            .filter(|t| t.name == "button" && t.has_class("selected"))
            .collect();
        assert_eq!(selected.len(), 1);
        assert_eq!(selected[0].get("data-key"), Some(key.as_str()));
    }
    // The diff page: each entry listed, marked added or removed, nothing from a name run.
    let tags = browser::tags(&browser::dom(&diff_path, ""));
    assert!(tags.iter().all(|t| t.get("data-pwned").is_none()));
    let mut marked: Vec<_> = tags
        .iter()
        .filter(|t| t.name == "button")
        .filter_map(|t| Some((t.get("data-key")?, t.get("data-diff")?)))
        .collect();
    marked.sort();
    let mut expected = vec![
        (names[0].as_str(), "removed"),
        (names[5].as_str(), "removed"),
        (names[4].as_str(), "added"),
    ];
    expected.sort();
    assert_eq!(marked, expected);

    // The first entry: every member is drawn at its offset, its name kept exactly (as the
    // data-path attribute, read back unescaped).
    let dom = browser::dom(&page, "");
    let tags = browser::tags(&dom);
    for (i, name) in names.iter().enumerate() {
        let member = tags
            .iter()
            .find(|t| t.has_class("member") && t.get("data-path") == Some(name.as_str()))
            .unwrap_or_else(|| panic!("member {name:?} is drawn"));
        assert_eq!(
            member.get("data-offset"),
            Some((4 * i).to_string().as_str())
        );
    }
    let binding = tags
        .iter()
        .find(|t| t.has_class("binding"))
        .expect("the binding is drawn");
    assert_eq!(binding.get("data-path"), Some(names[1].as_str()));
    assert!(
        dom.contains("&lt;/script&gt;&lt;script&gt;"),
        "the key shows as text"
    );
}

//! The reader's own table of the bind view's names, against the records.

use super::*;

#[test]
fn resolved_names_agree_with_the_records() {
    let bytes = common::package();
    let package = Package::from_bytes(&bytes).unwrap();
    let entry = package.load(common::KEY).unwrap();
    let fast = entry.bind();
    let slow = fast.with_unresolved_names();
    assert!(
        fast.has_name_table(),
        "a well-formed blob gets the reader's name table"
    );
    assert!(!slow.has_name_table());
    let mut queries: Vec<String> = Vec::new();
    for b in fast.bindings() {
        queries.push(fast.string(b.path).to_owned());
        queries.push(fast.string(b.sampler_path).to_owned());
    }
    for l in fast.buffer_layouts() {
        let buffer = fast.string(l.name);
        queries.push(buffer.to_owned());
        for m in fast.members(l) {
            queries.push(format!("{buffer}.{}", fast.string(m.path)));
        }
    }
    queries.extend(["", "gScene.", "gScene.tintt", "gScen", "nothing"].map(String::from));
    let mut hits = 0;
    for q in &queries {
        assert_eq!(
            fast.binding_handle(q),
            slow.binding_handle(q),
            "binding {q:?}"
        );
        assert_eq!(fast.member_handle(q), slow.member_handle(q), "member {q:?}");
        assert_eq!(
            fast.buffer(q).map(|l| l.name),
            slow.buffer(q).map(|l| l.name),
            "buffer {q:?}"
        );
        hits += usize::from(fast.binding(q).is_some() || fast.buffer_member(q).is_some());
    }
    assert!(hits >= 7, "{hits} of {} names found", queries.len());
}

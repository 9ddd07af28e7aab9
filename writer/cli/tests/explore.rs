//! `slangpack explore` on real baked packages (the real binary, the real Slang compiler),
//! its pages loaded in headless Chromium: the DOM the page's script made shows every binding
//! at its set and binding, every buffer member at its offset and to scale, the filter and
//! pipeline picks the URL asks for, and with `--diff` the changed members red and green.

#[path = "../../../reader/tools/tests/common/browser.rs"]
mod browser;
mod common;

use browser::Tag;
use common::{examples, s, slangpack, text, write};
use slangpack_reader::Package;
use slangpack_tools::dump::{package_doc, EntryDoc};
use std::path::Path;

fn bake(inputs: &[&Path], out: &Path) {
    let mut args = vec!["bake"];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(["-o", s(out), "-j", "2", "--force"]);
    let result = slangpack(&args);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
}

fn explore(args: &[&str]) {
    let mut all = vec!["explore"];
    all.extend(args);
    let result = slangpack(&all);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
}

fn with_class<'t>(tags: &'t [Tag], class: &str) -> Vec<&'t Tag> {
    tags.iter().filter(|t| t.has_class(class)).collect()
}

/// Chromium serializes percentages to six significant digits.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-3
}

/// Every binding of `entry` is one binding block in the grid at its set and binding, and
/// every buffer member one block at its offset and size, placed to scale.
fn check_entry(tags: &[Tag], entry: &EntryDoc) {
    let bindings = with_class(tags, "binding");
    assert_eq!(bindings.len(), entry.bindings.len(), "{}", entry.key);
    for b in &entry.bindings {
        assert!(
            bindings
                .iter()
                .any(|t| t.get("data-path") == Some(b.path.as_str())
                    && t.get("data-set") == Some(b.set.to_string().as_str())
                    && t.get("data-binding") == Some(b.binding.to_string().as_str())
                    && t.get("data-kind") == Some(b.kind.as_str())),
            "binding {} at set {} binding {}",
            b.path,
            b.set,
            b.binding
        );
    }
    let members = with_class(tags, "member");
    for buffer in &entry.buffers {
        let total = buffer
            .members
            .iter()
            .map(|m| m.offset + m.size)
            .max()
            .unwrap_or(0)
            .max(buffer.size)
            .max(1) as f64;
        for m in buffer.members.iter().filter(|m| !m.element_relative) {
            let drawn = members
                .iter()
                .find(|t| {
                    t.get("data-path") == Some(m.path.as_str())
                        && t.get("data-offset") == Some(m.offset.to_string().as_str())
                })
                .unwrap_or_else(|| panic!("member {}.{} is drawn", buffer.path, m.path));
            assert_eq!(drawn.get("data-size"), Some(m.size.to_string().as_str()));
            let left = drawn.percent("left").expect("a left");
            let width = drawn.percent("width").expect("a width");
            assert!(
                close(left, 100.0 * m.offset as f64 / total),
                "{}: left {left}",
                m.path
            );
            assert!(
                close(width, 100.0 * m.size as f64 / total),
                "{}: width {width}",
                m.path
            );
        }
    }
}

#[test]
fn the_examples_package_is_drawn_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let package_path = dir.path().join("shaders.slangpack");
    bake(&[&examples()], &package_path);
    let page = dir.path().join("page.html");
    explore(&[s(&package_path), "-o", s(&page)]);
    let html = std::fs::read_to_string(&page).unwrap();
    for external in ["http://", "https://", " src=", " href=", "@import", "url("] {
        assert!(!html.contains(external), "the page refers to {external:?}");
    }
    eprintln!("page: {} bytes", html.len());
    if !browser::available() {
        return;
    }

    let package = Package::open(&package_path).unwrap();
    let doc = package_doc(&package);
    let pbr = doc.entries.iter().find(|e| e.key == "pbr").unwrap();
    let dom = browser::dom(&page, "#entry=pbr");
    let tags = browser::tags(&dom);
    check_entry(&tags, pbr);
    // Hovering a member shows its lookup path, type, offset and size.
    let time = with_class(&tags, "member")
        .into_iter()
        .find(|t| t.get("data-path") == Some("view.time"))
        .expect("view.time drawn");
    let title = time.get("title").unwrap();
    for part in ["gScene.view.time\n", "\nfloat\n", "offset 140, size 4"] {
        assert!(title.contains(part), "{title:?} lacks {part:?}");
    }
    // pbr's push-constant block ends at 68 of its 80-byte layout: 12 bytes of padding.
    assert!(with_class(&tags, "pad")
        .iter()
        .any(|t| t.get("data-offset") == Some("68") && t.get("data-size") == Some("12")));
    let ranges = with_class(&tags, "pc-range");
    assert_eq!(ranges.len(), 1);
    assert_eq!(ranges[0].get("data-name"), Some("gDraw"));
    assert_eq!(ranges[0].get("data-stage"), Some("vertex"));
    // Sets 0 and 1, no holes.
    assert_eq!(with_class(&tags, "set-row").len(), 2);
    assert!(with_class(&tags, "hole").is_empty());

    // blur: the whole entry, then the pipeline of clearHistogram alone (one binding).
    let blur = doc.entries.iter().find(|e| e.key == "blur").unwrap();
    check_entry(&browser::tags(&browser::dom(&page, "#entry=blur")), blur);
    let tags = browser::tags(&browser::dom(&page, "#entry=blur&pipeline=clearHistogram"));
    let bindings = with_class(&tags, "binding");
    let expected: Vec<_> = blur
        .bindings
        .iter()
        .filter(|b| b.entry_points.iter().any(|n| n == "clearHistogram"))
        .collect();
    assert!(expected.len() < blur.bindings.len());
    assert_eq!(bindings.len(), expected.len());
    assert_eq!(
        bindings[0].get("data-path"),
        Some(expected[0].path.as_str())
    );
    // The bindings below it that the pipeline leaves out are holes.
    let holes = with_class(&tags, "hole");
    assert_eq!(holes.len() as u32, expected[0].binding, "{holes:?}");

    // The filter: one match; the list shows only it.
    let tags = browser::tags(&browser::dom(&page, "#filter=laye"));
    let listed: Vec<_> = tags.iter().filter_map(|t| t.get("data-key")).collect();
    assert_eq!(listed, ["layered/layered"]);

    // Not blank: a screenshot of the page is far larger than one of an empty page.
    let shot = dir.path().join("page.png");
    browser::screenshot(&page, "#entry=pbr", &shot);
    let empty = write(dir.path(), "empty.html", "<!DOCTYPE html><title>x</title>");
    let blank = dir.path().join("blank.png");
    browser::screenshot(&empty, "", &blank);
    let (shot, blank) = (
        std::fs::metadata(&shot).unwrap().len(),
        std::fs::metadata(&blank).unwrap().len(),
    );
    assert!(
        shot > 10 * blank,
        "screenshot {shot} bytes, blank page {blank}"
    );
}

#[test]
fn each_targets_binding_table_is_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let shader =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders/buffer_fill_targets.slang");
    let package_path = dir.path().join("targets.slangpack");
    let mut args = vec!["bake", s(&shader), "-o", s(&package_path), "-j", "2"];
    args.extend(["--target", "wgsl,glsl,hlsl,metal"]);
    let result = slangpack(&args);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let page = dir.path().join("targets.html");
    explore(&[s(&package_path), "-o", s(&page)]);
    if !browser::available() {
        return;
    }
    let doc = package_doc(&Package::open(&package_path).unwrap());
    let entry = &doc.entries[0];
    assert_eq!(entry.target_bindings.len(), 4);
    let tags = browser::tags(&browser::dom(&page, ""));
    check_entry(&tags, entry);
    let drawn = with_class(&tags, "target-binding");
    let expected: usize = entry.target_bindings.values().map(Vec::len).sum();
    assert_eq!(drawn.len(), expected);
    for (target, bindings) in &entry.target_bindings {
        for b in bindings {
            let place = b.place.as_deref().unwrap_or("");
            assert!(
                drawn
                    .iter()
                    .any(|t| t.get("data-target") == Some(target.as_str())
                        && t.get("data-path") == Some(b.path.as_str())
                        && t.get("data-place") == Some(place)),
                "{target} {} at {place}",
                b.path
            );
        }
    }
    // The array of structs `lights[2]` (stride 16): its members are drawn in its first
    // element and cover its second too, so the only padding is after `count` (100 to 112).
    let light = with_class(&tags, "member")
        .into_iter()
        .find(|t| t.get("data-path") == Some("lights"))
        .expect("lights drawn");
    assert!(light.has_class("array"));
    let pads: Vec<_> = with_class(&tags, "pad")
        .iter()
        .map(|t| (t.get("data-offset").unwrap(), t.get("data-size").unwrap()))
        .collect();
    assert_eq!(pads, [("100", "12")]);
    // The 3x4 matrix, 48 bytes at matrix stride 16: two stride marks inside it.
    assert_eq!(with_class(&tags, "mstride").len(), 2);
}

#[test]
fn fragment_outputs_and_execution_modes_are_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let shader =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders/pipeline_facts.slang");
    let package_path = dir.path().join("facts.slangpack");
    bake(&[&shader], &package_path);
    let page = dir.path().join("facts.html");
    explore(&[s(&package_path), "-o", s(&page)]);
    if !browser::available() {
        return;
    }
    let doc = package_doc(&Package::open(&package_path).unwrap());
    let entry = &doc.entries[0];
    let tags = browser::tags(&browser::dom(&page, ""));
    let rows = |class: &str| -> Vec<&Tag> {
        // Rows follow their table's start tag, up to the next table.
        let start = tags.iter().position(|t| t.has_class(class)).expect(class);
        tags[start + 1..]
            .iter()
            .take_while(|t| t.name != "table")
            .filter(|t| t.name == "tr" && t.has_class("row"))
            .collect()
    };
    let outputs = rows("fragment-outputs");
    assert_eq!(outputs.len(), entry.fragment_outputs.len());
    for (row, o) in outputs.iter().zip(&entry.fragment_outputs) {
        assert_eq!(row.get("data-ep"), o.entry_point.as_deref());
        assert_eq!(
            row.get("data-location"),
            Some(o.location.to_string().as_str())
        );
        assert_eq!(row.get("data-index"), Some(o.index.to_string().as_str()));
        let ty = format!("{}{}", o.scalar, o.components);
        assert_eq!(row.get("data-type"), Some(ty.as_str()));
    }
    // Only the entry points that state a mode get a row; each row's flags are the package's.
    let modes = rows("execution-modes");
    let stated: Vec<_> = entry
        .execution_modes
        .iter()
        .filter(|x| {
            !x.flags.is_empty()
                || x.input_primitive.is_some()
                || x.output_primitive.is_some()
                || x.output_vertices != 0
                || x.output_primitives != 0
                || x.invocations != 0
                || x.spacing.is_some()
        })
        .collect();
    assert!(stated.len() >= 8, "{stated:?}");
    assert_eq!(modes.len(), stated.len());
    for (row, x) in modes.iter().zip(&stated) {
        assert_eq!(row.get("data-ep"), x.entry_point.as_deref());
        assert_eq!(row.get("data-flags"), Some(x.flags.join(" ").as_str()));
    }
}

const OLD: &str = r#"
struct Params { float4 tint; float weight; float scale; };
ConstantBuffer<Params> gParams;
RWStructuredBuffer<float> gOut;
[shader("compute")][numthreads(1,1,1)]
void main() { gOut[0] = gParams.tint.x + gParams.weight + gParams.scale; }
"#;

const NEW: &str = r#"
struct Params { float4 tint; float2 weight; float scale; };
ConstantBuffer<Params> gParams;
RWStructuredBuffer<float> gOut;
RWStructuredBuffer<float> gExtra;
[shader("compute")][numthreads(1,1,1)]
void main() { gOut[0] = gParams.tint.x + gParams.weight.y + gParams.scale; gExtra[0] = 1.0; }
"#;

#[test]
fn the_diff_page_draws_changed_members_red_and_green() {
    let dir = tempfile::tempdir().unwrap();
    let old_src = write(dir.path(), "old/layout.slang", OLD);
    let new_src = write(dir.path(), "new/layout.slang", NEW);
    let (old, new) = (
        dir.path().join("old.slangpack"),
        dir.path().join("new.slangpack"),
    );
    bake(&[&old_src], &old);
    bake(&[&new_src], &new);
    let page = dir.path().join("diff.html");
    explore(&["--diff", s(&old), s(&new), "-o", s(&page)]);
    if !browser::available() {
        return;
    }
    let diff = slangpack(&["diff", "--json", s(&old), s(&new)]);
    let diff: serde_json::Value = serde_json::from_slice(&diff.stdout).unwrap();
    let differences = diff["differences"].as_array().unwrap();

    let tags = browser::tags(&browser::dom(&page, "#entry=layout"));
    // Every difference `slangpack diff` reports is listed.
    let listed: Vec<_> = tags
        .iter()
        .filter(|t| t.name == "li" && t.get("data-subject").is_some())
        .collect();
    assert_eq!(listed.len(), differences.len());
    // `scale` moved from 20 to 24: red at its old offset, green at its new one; `weight`
    // changed type and size.
    let member = |path: &str, side: &str| {
        tags.iter()
            .find(|t| {
                t.has_class("member")
                    && t.get("data-path") == Some(path)
                    && t.get("data-diff") == Some(side)
            })
            .unwrap_or_else(|| panic!("{path} drawn as {side}"))
    };
    assert_eq!(member("scale", "old").get("data-offset"), Some("20"));
    assert!(member("scale", "old").has_class("diff-old"));
    assert_eq!(member("scale", "new").get("data-offset"), Some("24"));
    assert!(member("scale", "new").has_class("diff-new"));
    assert_eq!(member("weight", "old").get("data-size"), Some("4"));
    assert_eq!(member("weight", "new").get("data-size"), Some("8"));
    // An unchanged member is not marked.
    assert!(tags
        .iter()
        .filter(|t| t.get("data-path") == Some("tint"))
        .all(|t| t.get("data-diff").is_none()));
    // The added binding is green in the grid.
    let extra = tags
        .iter()
        .find(|t| t.has_class("binding") && t.get("data-path") == Some("gExtra"))
        .expect("gExtra drawn");
    assert_eq!(extra.get("data-diff"), Some("added"));
}

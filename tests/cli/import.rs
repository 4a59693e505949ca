//! `jury import` as a process: sample data, re-imports, all-or-nothing on bad
//! records, `--skip-invalid`, and Mode 1 request files (S8.1.3).
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, item_json, jsonl, persona_json, text};
use serde_json::{Value, json};

fn item_count(ws: &Workspace) -> usize {
    jsonl(&ws.ok(&["list", "items", "--json"])).len()
}

#[test]
fn sample_data_imports_and_reimport_duplicates_nothing() {
    let ws = Workspace::new();
    let dir = common::sample_data();
    let out = ws.ok(&["import", dir.to_str().unwrap()]);
    assert!(
        out.contains("imported 94 items, 3 personas, 3 perspectives, 101 labels"),
        "{out}"
    );
    // The protocol folders come along: 66 inbox items, the valid rubric
    // examples and the guideline conversations.
    assert_eq!(item_count(&ws), 94);

    // Again, file by file: every id is updated in place.
    let files: Vec<String> = [
        "personas.json",
        "perspectives.json",
        "items.jsonl",
        "labels.jsonl",
    ]
    .iter()
    .map(|f| dir.join(f).to_string_lossy().into_owned())
    .collect();
    let mut args = vec!["import"];
    args.extend(files.iter().map(String::as_str));
    ws.ok(&args);
    ws.ok(&["import", dir.to_str().unwrap()]);
    let items = jsonl(&ws.ok(&["list", "items", "--json"]));
    assert_eq!(items.len(), 94);
    let ids: std::collections::HashSet<&str> =
        items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 94);
    let personas: Value = serde_json::from_str(&ws.ok(&["list", "personas", "--json"])).unwrap();
    assert_eq!(personas.as_array().map(Vec::len), Some(3));
    let persp: Value = serde_json::from_str(&ws.ok(&["list", "perspectives", "--json"])).unwrap();
    assert_eq!(persp.as_array().map(Vec::len), Some(3));
    let labels: Vec<Value> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label")
        .collect();
    assert_eq!(labels.len(), 101, "labels were duplicated by the re-import");
    // Imported labels were not given in blind review and replaced no verdict.
    assert!(
        labels
            .iter()
            .all(|r| r["blind"] == false && r["replaced_judge_value"].is_null()),
        "{:?}",
        labels[0]
    );
}

#[test]
fn the_bundled_sample_is_every_data_file_of_sample_data() {
    // A new workspace loads the copy compiled into the binary; it must hold
    // what `jury import sample-data/` reads, protocol folders included.
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("json" | "jsonl")
            ) {
                let rel = p
                    .strip_prefix(common::sample_data().parent().unwrap())
                    .unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut on_disk = Vec::new();
    walk(&common::sample_data(), &mut on_disk);
    on_disk.sort();
    let mut bundled: Vec<String> = jury::import::SAMPLE_DATA
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    bundled.sort();
    assert_eq!(bundled, on_disk);
    let dir = tempfile::tempdir().unwrap();
    let mut store = jury::store::Store::open(&dir.path().join("j.db")).unwrap();
    let r = jury::import::import_sample(&mut store, "me").unwrap();
    assert_eq!((r.items, r.labels), (94, 101));
}

/// Four good lines and one bad one at line 4; `mutate` breaks it.
fn file_with_bad_line(bad: &str) -> String {
    let mut lines: Vec<String> = (0..5).map(|i| item_json(i, 3).to_string()).collect();
    lines[3] = bad.to_string();
    lines.join("\n") + "\n"
}

fn broken(f: impl FnOnce(&mut Value)) -> String {
    let mut v = item_json(3, 3);
    f(&mut v);
    v.to_string()
}

struct Case {
    name: &'static str,
    line: String,
    /// What stderr must name besides the file and line.
    field: &'static str,
}

fn bad_cases() -> Vec<Case> {
    vec![
        Case {
            name: "selection-not-available",
            line: broken(|v| v["classifications"][1]["selected"] = json!("maybe")),
            field: "classifications[1].selected",
        },
        Case {
            name: "missing-available",
            line: broken(|v| {
                v["classifications"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("available");
            }),
            field: "classifications[0].available",
        },
        Case {
            name: "missing-id",
            line: broken(|v| {
                v.as_object_mut().unwrap().remove("itemId");
            }),
            field: "itemId",
        },
        Case {
            name: "invalid-json",
            line: r#"{"itemId": "g-3", "title": "#.into(),
            field: "invalid JSON",
        },
        Case {
            name: "nan",
            line: broken(|v| v["sent"] = json!("@@NAN@@")).replace("\"@@NAN@@\"", "NaN"),
            field: "invalid JSON",
        },
        Case {
            name: "sent-not-a-time",
            line: broken(|v| v["sent"] = json!("yesterday-ish")),
            field: "sent",
        },
        Case {
            name: "duplicate-id",
            line: item_json(1, 3).to_string(),
            field: "id",
        },
    ]
}

#[test]
fn one_bad_record_fails_the_whole_file_and_names_file_line_field() {
    for case in bad_cases() {
        let ws = Workspace::new();
        let f = ws.write(
            &format!("{}.jsonl", case.name),
            file_with_bad_line(&case.line),
        );
        let out = ws.run(&["import", f.to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", case.name);
        assert!(
            err.contains(&format!("{}.jsonl", case.name)),
            "{}: no file in {err}",
            case.name
        );
        assert!(err.contains("line 4"), "{}: no line in {err}", case.name);
        assert!(
            err.contains(case.field),
            "{}: no '{}' in {err}",
            case.name,
            case.field
        );
        assert!(err.contains("nothing was imported"), "{}: {err}", case.name);
        assert_eq!(
            item_count(&ws),
            0,
            "{}: part of the file was imported",
            case.name
        );
    }
}

#[test]
fn invalid_utf8_line_is_named_and_nothing_lands() {
    let ws = Workspace::new();
    let mut bytes = Vec::new();
    for i in 0..3 {
        bytes.extend_from_slice(item_json(i, 3).to_string().as_bytes());
        bytes.push(b'\n');
    }
    let mut bad = item_json(3, 3).to_string().into_bytes();
    let at = bad.iter().position(|b| *b == b'G').unwrap();
    bad[at] = 0xff;
    bytes.extend_from_slice(&bad);
    bytes.push(b'\n');
    let f = ws.write("latin.jsonl", &bytes);
    let out = ws.run(&["import", f.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("latin.jsonl") && err.contains("line 4") && err.contains("UTF-8"),
        "{err}"
    );
    assert_eq!(item_count(&ws), 0);
}

#[test]
fn a_bad_file_among_good_ones_imports_nothing_at_all() {
    let ws = Workspace::new();
    let good = ws.write("a-good.jsonl", common::items_jsonl(4, 3));
    let bad = ws.write("b-bad.jsonl", file_with_bad_line(&bad_cases()[0].line));
    let out = ws.run(&["import", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        item_count(&ws),
        0,
        "the good file landed although the import failed"
    );
}

#[test]
fn skip_invalid_imports_the_rest_and_reports_each_skipped_record() {
    let ws = Workspace::new();
    let mut lines: Vec<String> = (0..10).map(|i| item_json(i, 3).to_string()).collect();
    lines[2] = broken(|v| v["classifications"][1]["selected"] = json!("maybe"));
    lines[5] = "{not json".into();
    lines[7] = item_json(0, 3).to_string(); // duplicate of line 1
    let f = ws.write("mixed.jsonl", lines.join("\n"));
    let out = ws.run(&["import", "--skip-invalid", f.to_str().unwrap()]);
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{so}{se}");
    assert!(
        so.contains("imported 7 items") && so.contains("(3 skipped)"),
        "{so}"
    );
    for line in ["line 3", "line 6", "line 8"] {
        assert!(
            se.lines().any(|l| l.starts_with("skipped:")
                && l.contains("mixed.jsonl")
                && l.contains(line)),
            "{line} not reported: {se}"
        );
    }
    assert!(
        se.contains("classifications[1].selected") && se.contains("duplicate id"),
        "{se}"
    );
    assert_eq!(item_count(&ws), 7);

    // The JSON report names the same records.
    let ws2 = Workspace::new();
    let out = ws2.run(&["import", "--skip-invalid", "--json", f.to_str().unwrap()]);
    assert!(out.status.success());
    let report: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(report["items"], 7);
    let at: Vec<&str> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["at"].as_str().unwrap())
        .collect();
    assert_eq!(at, ["line 3", "line 6", "line 8"]);
}

fn mode1_request(snake: bool) -> Value {
    let persona = persona_json();
    let perspective = if snake {
        json!({"perspectiveId": "classification", "perspectiveName": "Classification", "perspectiveText": "Is it right?"})
    } else {
        json!({"id": "classification", "name": "Classification", "text": "Is it right?"})
    };
    let item = |id: &str, sent: Value| {
        json!({
            "itemId": id,
            "sent": sent,
            "title": "Server down",
            "summary": "The build server is down; can you look today?",
            "source": {"type": "chat", "originator": "ops", "channel": "slack"},
            "classifications": [
                {"name": "urgency", "desc": "Urgent?", "available": ["urgent", "not"], "selected": "urgent"},
                {"name": "work-pers", "desc": "Work or personal?", "available": ["work", "personal"], "selected": null},
            ],
        })
    };
    let mut items = vec![
        item("m-1", json!(1710777356.11)),
        item("m-2", json!("2024-03-18T15:55:56Z")),
    ];
    if snake {
        for it in &mut items {
            let o = it.as_object_mut().unwrap();
            let id = o.remove("itemId").unwrap();
            o.insert("item_id".into(), id);
            for c in o["classifications"].as_array_mut().unwrap() {
                let c = c.as_object_mut().unwrap();
                let a = c.remove("available").unwrap();
                c.insert("from_available_classifications".into(), a);
                let s = c.remove("selected").unwrap();
                c.insert("classified_as".into(), s);
            }
        }
    }
    json!({"persona": persona, "perspectives": [perspective], "items": items})
}

#[test]
fn mode1_request_files_import_in_both_spellings() {
    for snake in [false, true] {
        let ws = Workspace::new();
        let f = ws.write(
            "request.json",
            serde_json::to_string_pretty(&mode1_request(snake)).unwrap(),
        );
        let out = ws.ok(&["import", f.to_str().unwrap()]);
        assert!(
            out.contains("imported 2 items, 1 personas, 1 perspectives"),
            "snake={snake}: {out}"
        );
        let items = jsonl(&ws.ok(&["list", "items", "--json"]));
        assert_eq!(items.len(), 2);
        let m1 = items.iter().find(|i| i["id"] == "m-1").unwrap();
        // Epoch seconds become ISO text plus epoch milliseconds.
        assert_eq!(
            m1["sent_ms"],
            json!(1_710_777_356_110i64),
            "snake={snake}: {m1}"
        );
        let iso = m1["sent_text"].as_str().unwrap();
        assert!(
            iso.starts_with("2024-03-18T15:55:56"),
            "snake={snake}: {iso}"
        );
        let m2 = items.iter().find(|i| i["id"] == "m-2").unwrap();
        assert_eq!(m2["sent_ms"], json!(1_710_777_356_000i64));
        assert_eq!(
            m1["classifications"][0]["available"],
            json!(["urgent", "not"])
        );
        assert_eq!(m1["classifications"][0]["selected"], json!("urgent"));
        let persp: Value =
            serde_json::from_str(&ws.ok(&["list", "perspectives", "--json"])).unwrap();
        assert_eq!(persp[0]["id"], "classification", "snake={snake}");
        assert_eq!(persp[0]["text"], "Is it right?", "snake={snake}");
        let personas: Value =
            serde_json::from_str(&ws.ok(&["list", "personas", "--json"])).unwrap();
        assert_eq!(personas[0]["id"], "tester");
    }
}

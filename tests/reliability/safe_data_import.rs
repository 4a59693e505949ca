//! Safe data, imports and the CSV export: a re-import never silently rewrites
//! what a person stored, bad label files are named precisely, and exported
//! cells cannot drive a terminal or a spreadsheet. The real binary.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, generated_workspace, jsonl, text};
use serde_json::{Value, json};

fn label(item: &str, cls: &str, value: Value, created: Option<&str>) -> Value {
    let mut l = json!({"itemId": item, "classificationId": cls, "perspectiveId": "classification",
        "personaId": "tester", "value": value, "who": "ann"});
    if let Some(t) = created {
        l["createdAt"] = json!(t);
    }
    l
}

fn lines(v: &[Value]) -> String {
    v.iter().map(|l| format!("{l}\n")).collect()
}

fn stored_labels(ws: &Workspace) -> Vec<Value> {
    ws.export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label")
        .collect()
}

fn import(ws: &Workspace, file: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["import", file.to_str().expect("utf-8")];
    args.extend_from_slice(extra);
    ws.run(&args)
}

/// Per (item, classification, perspective, persona, who) the newer
/// label by its own createdAt wins, the file's timestamp is kept, and the
/// report counts new, unchanged and older.
#[test]
fn reimported_labels_keep_the_newer_and_their_own_timestamps() {
    let ws = generated_workspace(3, 2);
    let first = ws.write(
        "a.jsonl",
        lines(&[
            label(
                "g-000000",
                "urgency",
                json!(2),
                Some("2026-01-01T10:00:00Z"),
            ),
            label(
                "g-000001",
                "urgency",
                json!(4),
                Some("2026-01-05T10:00:00+02:00"),
            ),
        ]),
    );
    let out = import(&ws, &first, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("2 new, 0 newer"),
        "{}",
        text(&out.stdout)
    );
    let rows = stored_labels(&ws);
    assert_eq!(
        rows[0]["created_at"], "2026-01-01T10:00:00.000Z",
        "the file's time, not now"
    );
    assert_eq!(
        rows[1]["created_at"], "2026-01-05T08:00:00.000Z",
        "same instant, in UTC"
    );

    // A person relabels g-000001 now (newer than the file).
    ws.ok(&[
        "label",
        "g-000001",
        "urgency",
        "5",
        "--persona",
        "tester",
        "--who",
        "ann",
    ]);
    let second = ws.write(
        "b.jsonl",
        lines(&[
            // Same as stored.
            label(
                "g-000000",
                "urgency",
                json!(2),
                Some("2026-01-01T10:00:00Z"),
            ),
            // Older than the person's relabel: the store's is kept.
            label(
                "g-000001",
                "urgency",
                json!(1),
                Some("2026-01-06T00:00:00Z"),
            ),
            // Undated and different: never replaces a stored label.
            label("g-000000", "work-pers", json!(3), None),
            // New.
            label(
                "g-000002",
                "urgency",
                json!(4),
                Some("2026-02-01T00:00:00Z"),
            ),
        ]),
    );
    let out = import(&ws, &second, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("2 new, 0 newer than the store (replaced it), 1 unchanged, 1 older than the store (kept the store's)"),
        "{said}"
    );
    let by_key = |item: &str, cls: &str| -> Value {
        stored_labels(&ws)
            .into_iter()
            .find(|r| r["item_id"] == item && r["classification_id"] == cls)
            .unwrap_or_else(|| panic!("no label {item}/{cls}"))
    };
    assert_eq!(
        by_key("g-000001", "urgency")["value"],
        5,
        "the person's relabel stays"
    );
    assert_eq!(
        by_key("g-000002", "urgency")["created_at"],
        "2026-02-01T00:00:00.000Z"
    );

    // A dated newer label in a file does replace, with its own timestamp.
    let third = ws.write(
        "c.jsonl",
        lines(&[label(
            "g-000001",
            "urgency",
            json!(3),
            Some("2099-01-01T00:00:00Z"),
        )]),
    );
    let out = import(&ws, &third, &[]);
    assert!(
        text(&out.stdout).contains("0 new, 1 newer"),
        "{}",
        text(&out.stdout)
    );
    let l = by_key("g-000001", "urgency");
    assert_eq!(
        (l["value"].clone(), l["created_at"].clone()),
        (json!(3), json!("2099-01-01T00:00:00.000Z"))
    );
    // Exactly one label per combination throughout.
    assert_eq!(stored_labels(&ws).len(), 4);
}

/// Items whose content changed under existing labels (or verdicts)
/// are refused with the changed ids unless --replace; the same id in two
/// files of one import names both files and lines.
#[test]
fn changed_items_under_labels_need_replace_and_duplicate_ids_name_both_files() {
    let ws = generated_workspace(3, 2);
    ws.ok(&["label", "g-000001", "urgency", "2", "--persona", "tester"]);
    let mut changed = common::item_json(1, 2);
    changed["summary"] = json!("Completely different text.");
    let mut unlabelled = common::item_json(2, 2);
    unlabelled["summary"] = json!("Changed too, but nobody judged it.");
    let f = ws.write(
        "items2.jsonl",
        lines(&[common::item_json(0, 2), changed, unlabelled]),
    );
    let before = ws.ok(&["list", "items", "--json"]);
    let out = import(&ws, &f, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("1 item(s) already judged or labelled would change: g-000001")
            && err.contains("--replace")
            && err.contains("nothing was imported"),
        "{err}"
    );
    assert_eq!(
        ws.ok(&["list", "items", "--json"]),
        before,
        "nothing changed"
    );
    // Classifications count as content.
    let mut cls = common::item_json(1, 2);
    cls["classifications"][0]["selected"] = json!("urgent");
    cls["classifications"][0]["available"] = json!(["urgent", "not", "maybe"]);
    let g = ws.write("items3.jsonl", lines(&[cls]));
    assert_eq!(import(&ws, &g, &[]).status.code(), Some(1));
    // With --replace the new content lands; the label stays.
    let out = import(&ws, &f, &["--replace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        ws.ok(&["list", "items", "--json"])
            .contains("Completely different text.")
    );
    assert_eq!(stored_labels(&ws).len(), 1);

    // The same id in two files of one import.
    let dir = ws.path("two");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::write(dir.join("a-items.jsonl"), lines(&[common::item_json(7, 2)])).expect("w");
    std::fs::write(
        dir.join("b-items.jsonl"),
        lines(&[common::item_json(8, 2), common::item_json(7, 2)]),
    )
    .expect("w");
    let out = ws.run(&["import", dir.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("b-items.jsonl: line 2: field 'id'")
            && err.contains("item 'g-000007' is also in")
            && err.contains("a-items.jsonl: line 1"),
        "{err}"
    );
    assert!(
        !ws.ok(&["list", "items", "--json"]).contains("g-000008"),
        "all or nothing"
    );
}

/// Labels are checked like `jury label` checks them; every error
/// names file, line and field, and nothing is imported.
#[test]
fn bad_labels_name_file_line_and_field_and_import_nothing() {
    let ws = generated_workspace(2, 2);
    let good = label(
        "g-000000",
        "urgency",
        json!(2),
        Some("2026-01-01T00:00:00Z"),
    );
    let other = label(
        "g-000000",
        "work-pers",
        json!(2),
        Some("2026-01-01T00:00:00Z"),
    );
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            {
                let mut l = other.clone();
                l["personaId"] = json!("nobody");
                l
            },
            "personaId",
            "no persona 'nobody'",
        ),
        (
            {
                let mut l = other.clone();
                l["perspectiveId"] = json!("tone");
                l
            },
            "perspectiveId",
            "no perspective 'tone'",
        ),
        (
            {
                let mut l = other.clone();
                l["value"] = json!(true);
                l
            },
            "value",
            "on the bool scale",
        ),
        (
            {
                let mut l = other.clone();
                l["value"] = json!("partially");
                l
            },
            "value",
            "on the degree scale",
        ),
        (
            {
                let mut l = other.clone();
                l["createdAt"] = json!("yesterday");
                l
            },
            "createdAt",
            "not an RFC 3339 time",
        ),
        (
            {
                let mut l = other.clone();
                l["createdAt"] = json!(12);
                l
            },
            "createdAt",
            "must be an RFC 3339 time",
        ),
    ];
    for (bad, field, message) in cases {
        let f = ws.write("labels.jsonl", lines(&[good.clone(), bad.clone()]));
        let out = import(&ws, &f, &[]);
        assert_eq!(out.status.code(), Some(1), "{bad}");
        let err = text(&out.stderr);
        assert!(
            err.contains("labels.jsonl: line 2")
                && err.contains(&format!("field '{field}'"))
                && err.contains(message),
            "{bad}: {err}"
        );
        assert!(stored_labels(&ws).is_empty(), "all or nothing: {bad}");
    }
    // The protocol perspectives keep their own scales and the "-" persona.
    let ok = ws.write(
        "ok.jsonl",
        lines(&[
            json!({"itemId": "g-000000", "classificationId": "c-1", "perspectiveId": "proposition",
            "personaId": "-", "value": 7, "scale": "score09"}),
        ]),
    );
    let out = import(&ws, &ok, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A Mode 1 request whose `perspectives` or `items` is not an
/// array is an error naming the field; a BOM is accepted; a directory takes
/// `.JSON`/`.JSONL` in any case and reports what it did not read.
#[test]
fn mode1_shapes_bom_and_directory_listing() {
    let ws = Workspace::new();
    let persona = common::persona_json();
    for (field, doc) in [
        (
            "perspectives",
            json!({"persona": persona, "perspectives": {"id": "x"}, "items": []}),
        ),
        (
            "items",
            json!({"persona": persona, "perspectives": [], "items": "none"}),
        ),
    ] {
        let f = ws.write("request.json", doc.to_string());
        let out = import(&ws, &f, &[]);
        assert_eq!(out.status.code(), Some(1), "{field}");
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!("field '{field}'")) && err.contains("must be an array"),
            "{err}"
        );
    }
    // BOM in front of a JSON array and of a JSONL file.
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(json!([common::persona_json()]).to_string().as_bytes());
    let f = ws.write("personas.json", bom);
    let out = import(&ws, &f, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(lines(&[common::perspective_json()]).as_bytes());
    let f = ws.write("perspectives.jsonl", bom);
    assert!(import(&ws, &f, &[]).status.success());

    let dir = ws.path("data");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::write(dir.join("ITEMS.JSONL"), common::items_jsonl(2, 1)).expect("w");
    std::fs::write(
        dir.join("More.Json"),
        json!([common::item_json(5, 1)]).to_string(),
    )
    .expect("w");
    std::fs::write(dir.join("notes.txt"), "not data").expect("w");
    std::fs::write(dir.join(".hidden.json"), "[]").expect("w");
    let out = ws.run(&["import", dir.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("imported 3 items"),
        "{}",
        text(&out.stdout)
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("notes.txt: not a .json, .jsonl or .ndjson file"),
        "{err}"
    );
    assert!(err.contains(".hidden.json: hidden"), "{err}");
    let json_out = ws.ok(&["import", dir.to_str().expect("utf-8"), "--json"]);
    let v: Value = serde_json::from_str(json_out.trim()).expect("json");
    assert_eq!(v["skipped_files"].as_array().map(Vec::len), Some(2), "{v}");
}

/// CSV cells carry no terminal control characters and text that
/// a spreadsheet would run as a formula starts with `'`; numbers stay numbers.
#[test]
fn csv_cells_are_neutralised_for_terminals_and_spreadsheets() {
    let ws = generated_workspace(1, 1);
    // A formula as a person's name (without `:`, which no name may hold).
    let f = ws.write(
        "labels.jsonl",
        lines(&[json!({"itemId": "g-000000", "classificationId": "urgency", "perspectiveId": "classification",
            "personaId": "tester", "value": 2, "who": "=HYPERLINK(\"//x.y\")",
            "note": "@SUM(A1) \u{1b}]0;pwned\u{7} \u{1b}[2J", "createdAt": "2026-01-01T00:00:00Z"})]),
    );
    ws.ok(&["import", f.to_str().expect("utf-8")]);
    let csv = ws.ok(&["export", "--format", "csv"]);
    assert!(!csv.contains('\u{1b}') && !csv.contains('\u{7}'), "{csv:?}");
    assert!(csv.contains("\\e]0;pwned\\x07"), "{csv}");
    assert!(csv.contains("\"'=HYPERLINK(\"\"//x.y\"\")\""), "{csv}");
    assert!(csv.contains("'@SUM(A1)"), "{csv}");
    let row = csv.lines().nth(1).expect("a row");
    assert!(
        row.starts_with("label,,g-000000,urgency,classification,tester,,,,2,likert,"),
        "{row}"
    );
    // The same export as JSONL keeps the exact text (it is the round-trip format).
    let rows = jsonl(&ws.ok(&["export"]));
    assert_eq!(rows[0]["who"], "=HYPERLINK(\"//x.y\")");
}

/// With verdicts: an item a judge has answered on is protected too.
#[test]
fn changed_items_under_verdicts_need_replace() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = common::ServerRt::demo();
    let args = [
        "run",
        "--persona",
        "kenton",
        "--perspective",
        "classification",
        "--mode",
        "2",
        "--items",
        "k-002",
    ];
    let out = ws.run_with(&srv.url(), &args);
    common::assert_success(&out, &args);
    let mut item: Value = ws
        .ok(&["list", "items", "--json"])
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .find(|i| i["id"] == "k-002")
        .expect("k-002");
    let stored_text = item["text"].as_str().expect("text").to_string();
    item["itemId"] = item["id"].take();
    item["text"] = json!("The text the judge never saw.");
    let f = ws.write("k2.jsonl", lines(&[item]));
    let out = import(&ws, &f, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("would change: k-002"),
        "{}",
        text(&out.stderr)
    );
    assert!(ws.ok(&["list", "items", "--json"]).contains(&stored_text));
    let out = import(&ws, &f, &["--replace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        ws.ok(&["list", "items", "--json"])
            .contains("The text the judge never saw.")
    );
}

/// A folder that links to itself (`ln -s . s1`, four times) is read once:
/// each real directory is followed once, the links that lead back are named
/// and skipped (was: every path through the loop read again, 262143 copies).
#[test]
fn a_symlink_loop_is_followed_once_and_the_links_are_named() {
    let ws = Workspace::new();
    let dir = ws.path("data");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::write(dir.join("items.jsonl"), common::items_jsonl(2, 1)).expect("w");
    std::fs::write(
        dir.join("personas.json"),
        json!([common::persona_json()]).to_string(),
    )
    .expect("w");
    for n in 1..=4 {
        std::os::unix::fs::symlink(".", dir.join(format!("s{n}"))).expect("symlink");
    }
    // A link to a real directory outside is followed (once).
    let other = ws.path("other");
    std::fs::create_dir(&other).expect("mkdir");
    std::fs::write(
        other.join("more-items.jsonl"),
        format!("{}\n", common::item_json(7, 1)),
    )
    .expect("w");
    std::os::unix::fs::symlink(&other, dir.join("linked")).expect("symlink");
    std::os::unix::fs::symlink(&other, dir.join("linked-again")).expect("symlink");
    let out = ws.run(&["import", dir.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(said.contains("imported 3 items, 1 personas"), "{said}");
    let err = text(&out.stderr);
    for n in 1..=4 {
        assert!(
            err.contains(&format!("s{n}: a link to a directory already read")),
            "{err}"
        );
    }
    assert!(
        err.contains("linked-again: a link to a directory already read"),
        "{err}"
    );
    // The same file named twice on the command line is read once.
    let items = dir.join("items.jsonl");
    let items = items.to_str().expect("utf-8");
    let out = ws.run(&["import", items, items]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("imported 2 items"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("items.jsonl: the same file as one already read"),
        "{}",
        text(&out.stderr)
    );
}

/// `--persona owner` means "each item's owner": a persona with that id
/// would make the flag ambiguous, so import refuses it, naming the record.
#[test]
fn a_persona_named_owner_is_refused_at_import() {
    let ws = Workspace::new();
    let mut p = common::persona_json();
    p["id"] = json!("owner");
    let f = ws.write(
        "personas.jsonl",
        format!("{}\n{p}\n", common::persona_json()),
    );
    let out = import(&ws, &f, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}: line 2: field 'id': 'owner' is reserved: `jury run --persona owner` means each item's owner; give the persona another id",
            f.display()
        )),
        "{err}"
    );
    assert!(ws.store().personas().expect("personas").is_empty());
    // `-` is how runs without a persona are recorded; `rubric` (and the
    // other protocols' names) is where those protocols record theirs.
    p["id"] = json!("-");
    let f = ws.write("dash.jsonl", format!("{p}\n"));
    let err = text(&import(&ws, &f, &[]).stderr);
    assert!(err.contains("line 1: field 'id': '-' is reserved"), "{err}");
    let persp = json!({"id": "rubric", "text": "Is it good?"});
    let f = ws.write("persp.jsonl", format!("{persp}\n"));
    let err = text(&import(&ws, &f, &[]).stderr);
    assert!(
        err.contains("line 1: field 'id': 'rubric' is reserved"),
        "{err}"
    );
}

/// An import writes records as it reads them, in one transaction: an error
/// on the last line of a long file (JSONL or CSV) still leaves the store as
/// it was, and the next import works.
#[test]
fn an_error_on_the_last_line_of_a_long_file_writes_nothing() {
    let ws = Workspace::new();
    let mut jsonl = common::items_jsonl(20_000, 1);
    jsonl.push_str("{\"itemId\": \"last\", \"title\": \"no classifications\"}\n");
    let f = ws.write("items.jsonl", jsonl);
    let out = import(&ws, &f, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("line 20001") && err.contains("classifications"),
        "{err}"
    );
    let mut csv = String::from("ID,Subject,Urgent?\n");
    for i in 0..20_000 {
        csv.push_str(&format!("c-{i},Subject {i},yes\n"));
    }
    csv.push_str("c-last,one cell too many,yes,extra\n");
    let f = ws.write("items.csv", csv);
    let out = import(&ws, &f, &["--map", "classification:urgency=Urgent?"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("line 20002: has 4 cells, the header has 3"),
        "{err}"
    );
    // A JSON array is read an element at a time too.
    let mut array: Vec<Value> = (0..20_000).map(|i| common::item_json(i, 1)).collect();
    array.push(json!({"itemId": "last", "title": "no classifications"}));
    let f = ws.write("items.json", Value::Array(array).to_string());
    let out = import(&ws, &f, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("$[20000]") && err.contains("classifications"),
        "{err}"
    );
    let f = ws.write(
        "broken.json",
        format!("[{},\n{{\"itemId\": ]", common::item_json(0, 1)),
    );
    let err = text(&import(&ws, &f, &[]).stderr);
    assert!(
        err.contains("line 2") && err.contains("invalid JSON"),
        "{err}"
    );
    assert!(ws.store().items().expect("items").is_empty());
    let f = ws.write("one.jsonl", common::items_jsonl(1, 1));
    assert!(import(&ws, &f, &[]).status.success());
}

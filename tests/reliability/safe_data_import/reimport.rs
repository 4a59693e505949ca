//! A re-import never silently rewrites what a person stored: newer labels
//! stand, changed items under labels or verdicts need `--replace`, and an
//! error anywhere writes nothing.

use super::*;

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

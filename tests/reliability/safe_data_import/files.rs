//! The files read and written: bad label files named precisely, Mode 1
//! shapes, a BOM, directories and symlink loops, a persona named `owner`, and
//! CSV cells neutralised for terminals and spreadsheets.

use super::*;

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

//! Row 24: a bad input file is refused naming file, line and field.

use super::*;

fn import_error(name: &str, bytes: &[u8]) -> (String, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = base_store(dir.path());
    let f = dir.path().join(name);
    std::fs::write(&f, bytes).expect("write");
    let mut store = Store::open(&db).expect("store");
    let before = store.items().expect("items").len();
    let e = match import_paths(&mut store, std::slice::from_ref(&f), false, "tester") {
        Err(e) => e,
        Ok(r) => panic!("{name} imported: {r:?}"),
    };
    assert!(matches!(e, ImportError::Invalid(_)), "{name}: {e:?}");
    assert_eq!(
        store.items().expect("items").len(),
        before,
        "{name}: nothing imported"
    );
    assert_eq!(
        store.personas().expect("personas").len(),
        1,
        "{name}: nothing imported"
    );
    let msg = e.to_string();
    assert!(
        msg.contains(&f.display().to_string()),
        "{name}: names the file: {msg}"
    );
    assert!(msg.contains("nothing was imported"), "{msg}");
    (msg, f)
}

fn good(id: &str) -> String {
    item(id, "Hello", "World").to_string()
}

/// Row 24: invalid UTF-8, NaN, duplicate ids, missing required fields, a
/// selection not in `available` and deeply nested JSON → a clear error naming
/// file, line and field; no panic; nothing imported.
#[test]
fn reliability_24_bad_input_names_file_line_field() {
    // Invalid UTF-8 on line 2.
    let mut bytes = format!("{}\n", good("a")).into_bytes();
    bytes.extend_from_slice(b"{\"itemId\": \"b\xff\xfe\", \"title\": \"x\"}\n");
    let (msg, _) = import_error("items.jsonl", &bytes);
    assert!(msg.contains("line 2") && msg.contains("UTF-8"), "{msg}");
    // The same in a JSON array file: the line is named.
    let mut bytes = format!("[\n{},\n", good("a")).into_bytes();
    bytes.extend_from_slice(b"{\"itemId\": \"b\xff\"}]\n");
    let (msg, _) = import_error("items.json", &bytes);
    assert!(msg.contains("line 3") && msg.contains("UTF-8"), "{msg}");

    // NaN is not JSON; "NaN" as text is not a time.
    let nan = good("n").replace("\"2026-03-16T07:12:00Z\"", "NaN");
    let (msg, _) = import_error(
        "items.jsonl",
        format!("{}\n{}\n{nan}\n", good("a"), good("b")).as_bytes(),
    );
    assert!(
        msg.contains("line 3") && msg.contains("invalid JSON"),
        "{msg}"
    );
    let nan_text = good("n").replace("2026-03-16T07:12:00Z", "NaN");
    let (msg, _) = import_error("items.jsonl", format!("{nan_text}\n").as_bytes());
    assert!(
        msg.contains("line 1") && msg.contains("field 'sent'"),
        "{msg}"
    );
    let (msg, _) = import_error(
        "items.jsonl",
        good("i")
            .replace("\"2026-03-16T07:12:00Z\"", "1e400")
            .as_bytes(),
    );
    assert!(msg.contains("line 1"), "{msg}");

    // Duplicate ids.
    let (msg, _) = import_error(
        "items.jsonl",
        format!("{}\n{}\n{}\n", good("a"), good("b"), good("a")).as_bytes(),
    );
    assert!(
        msg.contains("line 3") && msg.contains("field 'id'") && msg.contains("duplicate id 'a'"),
        "{msg}"
    );

    // Missing required fields.
    let mut no_id = item("x", "t", "s");
    no_id.as_object_mut().expect("obj").remove("itemId");
    let (msg, _) = import_error(
        "items.jsonl",
        format!("{}\n{no_id}\n", good("a")).as_bytes(),
    );
    assert!(
        msg.contains("line 2") && msg.contains("field 'itemId'") && msg.contains("missing"),
        "{msg}"
    );
    let mut no_avail = item("x", "t", "s");
    no_avail["classifications"][0]
        .as_object_mut()
        .expect("obj")
        .remove("available");
    let (msg, _) = import_error("items.jsonl", format!("{no_avail}\n").as_bytes());
    assert!(
        msg.contains("line 1") && msg.contains("field 'classifications[0].available'"),
        "{msg}"
    );
    let (msg, _) = import_error("items.jsonl", b"{\"itemId\": \"x\", \"title\": \"t\"}\n");
    assert!(
        msg.contains("line 1") && msg.contains("classifications"),
        "{msg}"
    );

    // A selection not among the available values (none/not/null are fine).
    for ok in [json!("none"), json!("NOT"), json!("null"), Value::Null] {
        let mut v = item("ok", "t", "s");
        v["classifications"][0]["available"] = json!(["work", "personal"]);
        v["classifications"][0]["selected"] = ok.clone();
        let dir = tempfile::tempdir().expect("tempdir");
        let db = base_store(dir.path());
        import_items(&db, &[v]);
    }
    let mut maybe = item("m", "t", "s");
    maybe["classifications"][0]["selected"] = json!("maybe");
    let (msg, _) = import_error(
        "items.jsonl",
        format!("{}\n{maybe}\n", good("a")).as_bytes(),
    );
    assert!(
        msg.contains("line 2")
            && msg.contains("field 'classifications[0].selected'")
            && msg.contains("'maybe' is not one of"),
        "{msg}"
    );

    // Deeply nested JSON: 100 000 '[' as a file, as a JSONL line, inside a field.
    let deep = "[".repeat(100_000);
    let (msg, _) = import_error("items.json", deep.as_bytes());
    assert!(
        msg.contains("line 1") && msg.contains("recursion limit"),
        "{msg}"
    );
    let (msg, _) = import_error("items.jsonl", format!("{}\n{deep}\n", good("a")).as_bytes());
    assert!(msg.contains("line 2"), "{msg}");
    let nested_tags = good("d").replace(
        "\"tags\":[\"inbox:pa\"]",
        &format!("\"tags\":{}{}", "[".repeat(100_000), "]".repeat(100_000)),
    );
    assert!(nested_tags.len() > 200_000);
    let (msg, _) = import_error("items.jsonl", format!("{nested_tags}\n").as_bytes());
    assert!(msg.contains("line 1"), "{msg}");
    let (msg, _) = import_error(
        "items.json",
        format!("{{\"a\": {}", "{\"a\": ".repeat(50_000)).as_bytes(),
    );
    assert!(msg.contains("line 1"), "{msg}");

    // Through the CLI: exit 1 (not a panic's 101), one clear line, nothing imported.
    let dir = tempfile::tempdir().expect("tempdir");
    let db = base_store(dir.path());
    let f = dir.path().join("bad.jsonl");
    std::fs::write(&f, format!("{}\n{maybe}\n", good("a"))).expect("write");
    let out = jury(&db)
        .arg("import")
        .arg(&f)
        .output()
        .expect("jury import");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("bad.jsonl: line 2: field 'classifications[0].selected'"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
    let f = dir.path().join("deep.json");
    std::fs::write(&f, &deep).expect("write");
    let out = jury(&db)
        .arg("import")
        .arg(&f)
        .output()
        .expect("jury import");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        Store::open(&db).expect("db").items().expect("items").len(),
        0
    );
}

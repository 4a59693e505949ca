//! Items belong to a persona: import reads the owner from a `persona` field
//! or an `inbox:NAME` tag, keeps a name that is no persona as a tag and says
//! so once, stores the owner and lists it.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, item_json, jsonl, persona_json, text};
use serde_json::Value;

fn owners(ws: &Workspace) -> Vec<(String, Value, Value)> {
    jsonl(&ws.ok(&["list", "items", "--json"]))
        .into_iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_string(),
                i["owner"].clone(),
                i["tags"].clone(),
            )
        })
        .collect()
}

#[test]
fn the_sample_items_belong_to_their_inbox_persona() {
    let ws = Workspace::new();
    ws.import_sample();
    let items = jsonl(&ws.ok(&["list", "items", "--json"]));
    let owned = |who: &str| items.iter().filter(|i| i["owner"] == who).count();
    assert_eq!(
        (owned("kenton"), owned("maren"), owned("tomasz")),
        (22, 22, 22)
    );
    // Each owned item's owner is the persona its inbox tag names.
    for i in items.iter().filter(|i| !i["owner"].is_null()) {
        let tag = format!("inbox:{}", i["owner"].as_str().unwrap());
        assert!(
            i["tags"].as_array().unwrap().contains(&Value::from(tag)),
            "{i}"
        );
    }
}

#[test]
fn a_persona_field_or_an_inbox_tag_names_the_owner_and_unknown_names_stay_tags() {
    let ws = Workspace::new();
    let persona = ws.write("p.json", persona_json().to_string());
    let mut by_field = item_json(1, 1);
    by_field["persona"] = "tester".into();
    by_field["tags"] = serde_json::json!([]);
    let mut by_tag = item_json(2, 1);
    by_tag["tags"] = serde_json::json!(["inbox:tester"]);
    let mut unknown_field = item_json(3, 1);
    unknown_field["persona"] = "bob".into();
    unknown_field["tags"] = serde_json::json!([]);
    let mut unknown_tag = item_json(4, 1);
    unknown_tag["tags"] = serde_json::json!(["inbox:bob"]);
    let mut none = item_json(5, 1);
    none["tags"] = serde_json::json!(["generated"]);
    let items = ws.write(
        "items.jsonl",
        [by_field, by_tag, unknown_field, unknown_tag, none]
            .iter()
            .map(|v| format!("{v}\n"))
            .collect::<String>(),
    );
    let out = ws.run(&["import", persona.to_str().unwrap(), items.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    // Reported once for the two items that name it, not an error.
    assert_eq!(err.matches("note: 'bob'").count(), 1, "{err}");
    assert!(
        err.contains(
            "note: 'bob' (owner of 2 item(s)) is no persona: kept as the tag inbox:bob; import a persona 'bob' and re-import to make it the owner"
        ),
        "{err}"
    );
    let got = owners(&ws);
    let owner_of = |id: &str| got.iter().find(|(i, _, _)| i == id).unwrap().clone();
    assert_eq!(owner_of("g-000001").1, "tester");
    assert_eq!(owner_of("g-000002").1, "tester");
    assert_eq!(owner_of("g-000003").1, Value::Null);
    assert_eq!(owner_of("g-000003").2, serde_json::json!(["inbox:bob"]));
    assert_eq!(owner_of("g-000004").1, Value::Null);
    assert_eq!(owner_of("g-000004").2, serde_json::json!(["inbox:bob"]));
    assert_eq!(owner_of("g-000005").1, Value::Null);

    // --json says it too.
    let j: Value =
        serde_json::from_str(&ws.ok(&["import", "--json", items.to_str().unwrap()])).unwrap();
    assert_eq!(
        j["unknown_owners"],
        serde_json::json!([{"name": "bob", "items": 2}])
    );
}

#[test]
fn run_persona_owner_judges_each_item_as_its_owner() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = common::ServerRt::demo();
    let args = [
        "run",
        "--persona",
        "owner",
        "--perspective",
        "classification",
        "--mode",
        "2",
        "--items",
        "k-001,m-001,t-001,m-002",
    ];
    let out = ws.run_with(&srv.url(), &args);
    common::assert_success(&out, &args);
    let err = text(&out.stderr);
    assert!(
        err.contains("judging 1 item(s) as their owner kenton"),
        "{err}"
    );
    assert!(
        err.contains("judging 2 item(s) as their owner maren"),
        "{err}"
    );
    // One run per owner, each verdict under its item's owner.
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 3);
    let verdicts: Vec<Value> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .collect();
    assert!(!verdicts.is_empty());
    for v in &verdicts {
        let owner = match &v["item_id"].as_str().unwrap()[..1] {
            "k" => "kenton",
            "m" => "maren",
            _ => "tomasz",
        };
        assert_eq!(v["persona_id"], owner, "{v}");
    }
    // A cap would apply to each owner's run, not the whole: refused.
    let out = ws.run_with(
        &srv.url(),
        &[
            "run",
            "--persona",
            "owner",
            "--perspective",
            "classification",
            "--mode",
            "2",
            "--limit",
            "3",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("--limit, --subset-percent and --budget would apply to each run"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_store_from_before_owners_takes_them_from_inbox_tags() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    // Found by content: the lead may renumber migrations when merging.
    let all = jury::store::migrations();
    let owners = all
        .iter()
        .position(|m| m.contains("ADD COLUMN owner TEXT"))
        .expect("the owner migration");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        for sql in &all[..owners] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", owners as i64)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO personas (id, name, definition) VALUES ('maren', 'Maren', '{}');
             INSERT INTO items (id, title, text, source_type, source_originator, source_channel, tags, position)
               VALUES ('m1', 't', 'x', '', '', '', '[\"urgent\",\"inbox:maren\"]', 0),
                      ('b1', 't', 'x', '', '', '', '[\"inbox:bob\"]', 1),
                      ('n1', 't', 'x', '', '', '', '[]', 2);",
        )
        .unwrap();
    }
    let store = jury::store::Store::open(&path).unwrap();
    let got: Vec<(String, Option<String>)> = store
        .items()
        .unwrap()
        .into_iter()
        .map(|i| (i.id, i.owner))
        .collect();
    assert_eq!(
        got,
        vec![
            ("m1".to_string(), Some("maren".to_string())),
            ("b1".to_string(), None),
            ("n1".to_string(), None),
        ]
    );
}

/// Items are written as they are read, before a persona file named after
/// them: their owner is still found once the persona is in, and the note
/// names only what stays unknown.
#[test]
fn a_persona_file_after_the_items_still_owns_them() {
    let ws = Workspace::new();
    let mut by_field = item_json(1, 1);
    by_field["persona"] = "tester".into();
    by_field["tags"] = serde_json::json!([]);
    let mut by_tag = item_json(2, 1);
    by_tag["tags"] = serde_json::json!(["inbox:tester"]);
    let mut unknown = item_json(3, 1);
    unknown["tags"] = serde_json::json!(["inbox:bob"]);
    let items = ws.write(
        "items.jsonl",
        [by_field, by_tag, unknown]
            .iter()
            .map(|v| format!("{v}\n"))
            .collect::<String>(),
    );
    let persona = ws.write("p.json", persona_json().to_string());
    let out = ws.run(&["import", items.to_str().unwrap(), persona.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(!err.contains("'tester'"), "{err}");
    assert!(err.contains("note: 'bob' (owner of 1 item(s))"), "{err}");
    let got = owners(&ws);
    let of = |id: &str| got.iter().find(|(i, _, _)| i == id).unwrap().clone();
    assert_eq!(of("g-000001").1, "tester");
    assert_eq!(
        of("g-000001").2,
        serde_json::json!([]),
        "no inbox tag left behind"
    );
    assert_eq!(of("g-000002").1, "tester");
    assert_eq!(of("g-000002").2, serde_json::json!(["inbox:tester"]));
    assert_eq!(of("g-000003").1, Value::Null);
}

//! `jury import --map` for other tools' logs (issue #34 §1): when an
//! Inspect sample's or a promptfoo test's own id is not jury's, `--map
//! id=PATH` says where in it jury's item id is, and `persona=PATH` the
//! persona's; items are matched by that field. The logs are the fixtures
//! the real tools wrote (`tests/fixtures/*/make.sh`), their ids moved.

use crate::common;

use common::Workspace;
use serde_json::{Value, json};
use std::path::PathBuf;

fn fixture(path: &str) -> Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json")
}

/// The judged items of the verdict rows, sorted.
fn judged(ws: &Workspace) -> Vec<String> {
    let mut got: Vec<String> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| r["item_id"].as_str().expect("item").to_string())
        .collect();
    got.sort();
    got
}

#[test]
fn an_inspect_sample_finds_its_item_by_a_mapped_field() {
    let mut doc = fixture("inspect/urgency.json");
    for s in doc["samples"].as_array_mut().expect("samples") {
        let id = s["id"].take();
        s["id"] = json!(format!("sample-{}", id.as_str().expect("id")));
        s["metadata"]["ticket"] = id;
        let persona = s["metadata"]
            .as_object_mut()
            .expect("metadata")
            .remove("persona_id");
        s["metadata"]["reader"] = persona.expect("persona");
    }
    let ws = Workspace::sample();
    let log = ws.write("moved.json", doc.to_string());
    let log = log.to_str().expect("path");
    // Without the map the persona is missing, named with the sample.
    let out = ws.run(&["import", log]);
    let err = common::text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("moved.json: $.samples[0]: field 'metadata'"),
        "{err}"
    );
    assert!(err.contains("persona_id missing"), "{err}");
    // A path with nothing there is named too.
    let out = ws.run(&[
        "import",
        log,
        "--map",
        "id=metadata.nothing,persona=metadata.reader",
    ]);
    let err = common::text(&out.stderr);
    assert!(
        err.contains("field 'id'") && err.contains("--map id=metadata.nothing"),
        "{err}"
    );
    assert!(judged(&ws).is_empty());

    ws.ok(&[
        "import",
        log,
        "--map",
        "id=metadata.ticket,persona=metadata.reader",
    ]);
    assert_eq!(judged(&ws), ["k-001", "k-002", "k-003", "k-004"]);
}

#[test]
fn a_promptfoo_test_finds_its_item_by_a_mapped_var() {
    let mut doc = fixture("promptfoo/results.json");
    for r in doc["results"]["results"].as_array_mut().expect("results") {
        let vars = r["vars"].as_object_mut().expect("vars");
        let id = vars.remove("item_id").expect("item_id");
        vars.insert("message".into(), id);
    }
    let ws = Workspace::sample();
    let file = ws.write("moved.json", doc.to_string());
    let file = file.to_str().expect("path");
    let out = ws.run(&["import", file]);
    let err = common::text(&out.stderr);
    assert!(
        err.contains("field 'vars'") && err.contains("item_id missing"),
        "{err}"
    );
    ws.ok(&["import", file, "--map", "id=vars.message"]);
    let items = judged(&ws);
    assert!(!items.is_empty());
    assert!(items.iter().all(|i| i.starts_with("k-")), "{items:?}");
}

//! Exports carry a failure's raw answer once, however many combinations the
//! failed request covered; `jury report --format csv` neutralises its cells
//! as `jury export --format csv` does; the workbench fills only a store that
//! holds nothing with the sample data.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, generated_workspace, jsonl};
use jury::domain::{ComboKey, Failure, FailureKind, Label, Mode, Protocol, RunSpec, Scale};
use jury::store::Store;
use serde_json::{Value, json};

const RAW_LEN: usize = 2 * 1024 * 1024;
const REQUEST_LEN: usize = 256 * 1024;

fn spec() -> RunSpec {
    RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Two),
        persona_id: "tester".into(),
        perspective_ids: vec!["classification".into()],
        model: "m".into(),
        prompt_hash: "h".into(),
        record: None,
    }
}

/// A workspace of 10 items and one failed request about all 10 of them,
/// with a 2 MB raw answer and a 256 KB request body.
fn big_failure() -> (Workspace, String) {
    let ws = generated_workspace(10, 1);
    let raw = format!("not json {}", "r".repeat(RAW_LEN));
    let mut store = ws.store();
    let run = store.create_run(&spec(), 10).expect("run");
    store
        .insert_failure(&Failure {
            run_id: run,
            kind: FailureKind::Malformed,
            keys: (0..10)
                .map(|i| ComboKey::new(&format!("g-{i:06}"), "urgency", "classification"))
                .collect(),
            reason: "not json".into(),
            raw_response: raw.clone(),
            http_status: Some(200),
            finish_reason: Some("stop".into()),
            request: json!({"messages": [{"role": "user", "content": "q".repeat(REQUEST_LEN)}]})
                .to_string(),
            attempt: 1,
            created_at: jury::store::now(),
        })
        .expect("failure");
    (ws, raw)
}

fn export(ws: &Workspace, format: &str) -> String {
    let out = ws.path(&format!("export.{format}"));
    ws.ok(&[
        "export",
        "--format",
        format,
        "--out",
        out.to_str().expect("path"),
    ]);
    std::fs::read_to_string(out).expect("read export")
}

/// The answer's size once, plus room for rows, the request (once) and JSON.
fn assert_about_once(what: &str, doc: &str, raw: &str) {
    assert_eq!(doc.matches(raw).count(), 1, "{what}: raw answer not once");
    assert!(
        doc.len() < RAW_LEN + REQUEST_LEN + 200 * 1024,
        "{what}: {} bytes for a {RAW_LEN}-byte answer",
        doc.len()
    );
}

#[test]
fn jsonl_export_has_a_row_per_combination_and_the_raw_answer_once() {
    let (ws, raw) = big_failure();
    let doc = export(&ws, "jsonl");
    assert_about_once("jsonl", &doc, &raw);
    let rows: Vec<Value> = jsonl(&doc)
        .into_iter()
        .filter(|r| r["kind"] == "failure")
        .collect();
    assert_eq!(rows.len(), 10, "one row per combination");
    let id = rows[0]["failure_id"].clone();
    assert!(id.is_i64(), "{id}");
    let mut items: Vec<&str> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["failure_id"], id, "all rows point to the one failure");
        for f in [
            "run_id",
            "classification_id",
            "raw_response",
            "status",
            "reason",
        ] {
            assert!(r.get(f).is_some(), "{f} missing in row {i}");
        }
        assert_eq!(r["status"], 200);
        assert_eq!(r["reason"], "malformed: not json");
        items.push(r["item_id"].as_str().expect("item id"));
        if i == 0 {
            assert_eq!(r["raw_response"].as_str(), Some(raw.as_str()));
        } else {
            assert!(r["raw_response"].is_null(), "row {i} repeats the answer");
        }
    }
    items.sort();
    items.dedup();
    assert_eq!(items.len(), 10, "every combination is named");
}

#[test]
fn csv_export_carries_the_raw_answer_once() {
    let (ws, raw) = big_failure();
    let doc = export(&ws, "csv");
    assert_about_once("csv", &doc, &raw);
    let header: Vec<&str> = doc.lines().next().expect("header").split(',').collect();
    assert!(header.contains(&"failure_id"), "{header:?}");
    let failure_lines = doc.lines().filter(|l| l.starts_with("failure,")).count();
    assert_eq!(failure_lines, 10);
}

#[test]
fn awag_export_has_one_failure_record_per_request() {
    let (ws, raw) = big_failure();
    let doc = export(&ws, "awag");
    assert_about_once("awag", &doc, &raw);
    assert_eq!(
        doc.matches(&"q".repeat(REQUEST_LEN)).count(),
        1,
        "request once"
    );
    let v: Value = serde_json::from_str(&doc).expect("awag json");
    let failures = v["evaluationFailures"].as_array().expect("failures");
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0]["itemCount"], 10);
    assert_eq!(failures[0]["rawReponseText"].as_str(), Some(raw.as_str()));
}

#[test]
fn failures_command_shows_the_request_once() {
    let (ws, raw) = big_failure();
    let lines = jsonl(&ws.ok(&["failures", "--json"]));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["raw_response"].as_str(), Some(raw.as_str()));
    assert_eq!(lines[0]["keys"].as_array().map(Vec::len), Some(10));
    let shown = ws.ok(&["failures"]);
    assert!(shown.contains("10 combination(s)"), "{shown}");
    assert!(
        shown.len() < 64 * 1024,
        "the listing shows a cut of the answer"
    );
}

const FORMULA: &str = "=HYPERLINK(\"http://evil.example\",\"x\")";
const ESC_PERSONA: &str = "p\u{1b}[31mred";

/// Two people labelling four items of a classification named like a
/// spreadsheet formula, for a persona whose id holds an escape sequence.
fn hostile_names() -> Workspace {
    let ws = Workspace::new();
    let items: String = (0..4)
        .map(|i| {
            json!({"itemId": format!("i{i}"), "sent": 1_710_777_356.0, "title": "t",
                "summary": "s", "source": {"type": "email", "originator": "a", "channel": "c"},
                "tags": [], "classifications": [{"name": FORMULA, "desc": "d",
                "available": ["urgent", "not"], "selected": "urgent"}]})
            .to_string()
                + "\n"
        })
        .collect();
    let mut persona = common::persona_json();
    persona["id"] = json!(ESC_PERSONA);
    let files = [
        ws.write("items.jsonl", items),
        ws.write("personas.json", json!([persona]).to_string()),
        ws.write(
            "perspectives.json",
            json!([common::perspective_json()]).to_string(),
        ),
    ];
    let mut args = vec!["import"];
    args.extend(files.iter().map(|p| p.to_str().expect("path")));
    ws.ok(&args);
    for i in 0..4 {
        let item = format!("i{i}");
        for (who, value) in [
            ("alice", "AGREE"),
            ("bob", if i == 0 { "DISAGREE" } else { "AGREE" }),
        ] {
            let out = ws
                .cmd()
                .env("JURY_USER", who)
                .args(["label", &item, FORMULA, value, "--persona", ESC_PERSONA])
                .output()
                .expect("jury label");
            common::assert_success(&out, &["label"]);
        }
    }
    ws
}

#[test]
fn report_csv_neutralises_names_and_keeps_numbers() {
    let ws = hostile_names();
    for by in ["classification", "persona"] {
        let csv = ws.ok(&["report", "--format", "csv", "--by", by]);
        assert!(!csv.contains('\u{1b}'), "--by {by}: raw ESC in {csv:?}");
        let row = csv
            .lines()
            .find(|l| l.starts_with("human_vs_human,"))
            .unwrap_or_else(|| panic!("--by {by}: no human_vs_human row in {csv}"));
        let cells: Vec<&str> = row.split(',').collect();
        assert!(
            !row.contains(",=") && !row.contains(",\"="),
            "--by {by}: a cell starts a formula: {row}"
        );
        // n, undecided and percent agreement stay numbers (n is the 24th
        // cell from the end: 20 figure columns, `scale_mapped`, the kappa's
        // no-interval reason and the two human-ceiling columns follow it).
        let n_at = cells.len() - 24;
        assert_eq!(
            &cells[n_at..n_at + 3],
            ["4", "0", "0.75"],
            "--by {by}: {row}"
        );
        if by == "classification" {
            assert!(
                row.contains("\"'=HYPERLINK(\"\"http://evil.example\"\""),
                "{row}"
            );
        } else {
            assert!(row.contains("p\\e[31mred"), "{row}");
        }
    }
}

fn seed(store: &mut Store) -> Option<String> {
    jury::tui::seed_new_workspace(store, &jury::tui::TuiOptions::default(), "tester").expect("seed")
}

#[test]
fn a_new_store_gets_the_sample_data_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&dir.path().join("new.db")).expect("store");
    let note = seed(&mut store).expect("a note");
    assert!(note.contains("sample data loaded"), "{note}");
    assert!(!store.items().expect("items").is_empty());
    // Opened again (it has items now): nothing more is loaded.
    let items = store.items().expect("items").len();
    assert_eq!(seed(&mut store), None);
    assert_eq!(store.items().expect("items").len(), items);
}

#[test]
fn a_store_with_work_but_no_items_is_left_alone() {
    type Setup = fn(&mut Store);
    let cases: [(&str, Setup); 4] = [
        ("labels", |s| {
            s.upsert_label(&Label {
                key: ComboKey::new("gone", "urgency", "classification"),
                persona_id: "tester".into(),
                value: Scale::Likert.parse("4").expect("likert"),
                note: String::new(),
                who: "tester".into(),
                created_at: jury::store::now(),
                replaced_judge_value: None,
                blind: false,
                tags: Vec::new(),
            })
            .expect("label");
        }),
        ("a run", |s| {
            s.create_run(&spec(), 0).expect("run");
        }),
        ("personas", |s| {
            let p: jury::domain::Persona =
                serde_json::from_value(common::persona_json()).expect("persona");
            s.upsert_persona(&p).expect("persona");
        }),
        ("perspectives", |s| {
            let p: jury::domain::Perspective =
                serde_json::from_value(common::perspective_json()).expect("perspective");
            s.upsert_all(&[], &[], &[p], &[]).expect("perspective");
        }),
    ];
    for (what, setup) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("j.db");
        setup(&mut Store::open(&db).expect("store"));
        let mut store = Store::open(&db).expect("reopen");
        let note = seed(&mut store).unwrap_or_else(|| panic!("{what}: no note"));
        assert!(note.contains("sample data not loaded"), "{what}: {note}");
        assert!(store.items().expect("items").is_empty(), "{what}: filled");
        assert!(
            store.personas().expect("personas").len() <= 1,
            "{what}: sample personas loaded"
        );
    }
}

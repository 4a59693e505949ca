//! `jury run` builds its judge spec once, with the constructor the workbench
//! uses: bad flags get one clear error and exit 1 before anything is planned
//! or stored, and a run records its spec as it always has.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use serde_json::{Value, json};

#[test]
fn bad_judge_flags_get_one_clear_error_and_exit_1() {
    let ws = Workspace::new();
    ws.import_sample();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--protocol", "rubric", "--dimension", ""],
            "--dimension '': expected NAME=RUBRIC_FILE",
        ),
        (
            &["--protocol", "rubric", "--no-default-dimensions"],
            "no dimensions: give --dimension NAME=FILE",
        ),
        (
            &["--protocol", "proposition"],
            "the proposition protocol needs --claim",
        ),
        (
            &["--protocol", "proposition", "--claim", "  "],
            "the proposition protocol needs --claim",
        ),
        (
            &[
                "--protocol",
                "proposition",
                "--claim",
                "It is urgent",
                "--precondition",
                "colour == red",
            ],
            "--precondition: unknown field 'colour'",
        ),
        (
            &["--protocol", "guideline", "--claim", "x"],
            "apply to the proposition protocol",
        ),
        (
            &["--protocol", "rubric", "--mode", "1"],
            "--mode applies to the awag protocol only",
        ),
        (
            &["--protocol", "verdict-o-matic"],
            "unknown protocol 'verdict-o-matic'",
        ),
        (
            &["--mode", "2"],
            "the awag protocol needs --persona and --perspective",
        ),
        (
            &[
                "--mode",
                "7",
                "--persona",
                "kenton",
                "--perspective",
                "classification",
            ],
            "--mode must be 1, 2 or 3, got 7",
        ),
    ];
    for (flags, want) in cases {
        let mut args = vec!["run", "--dry-run"];
        args.extend_from_slice(flags);
        let out = ws.run(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: one error line, got {err}");
        assert!(
            lines[0].starts_with("error: ") && lines[0].contains(want),
            "{args:?}: wanted {want:?}, got {err}"
        );
        assert!(text(&out.stdout).is_empty(), "{args:?}: nothing planned");
    }
    assert!(ws.store().runs().unwrap().is_empty(), "no run was started");
}

#[test]
fn a_rubric_run_records_its_spec_as_before() {
    let ws = Workspace::new();
    let dir = sample_data().join("rubric");
    ws.ok(&["import", dir.to_str().unwrap()]);
    let srv = ServerRt::demo();
    let args = ["run", "--protocol", "rubric", "--json", "--limit", "1"];
    let out = ws.run_with(&srv.url(), &args);
    assert_success(&out, &args);
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).unwrap();
    let run = &runs.as_array().unwrap()[0];
    let spec = &run["spec"];
    assert_eq!(spec["protocol"], "rubric", "{run}");
    assert_eq!(spec["mode"], Value::Null);
    assert_eq!(spec["persona_id"], "-");
    assert_eq!(spec["perspective_ids"], json!(["rubric"]));
    let options = &spec["record"]["judge"];
    let names: Vec<&str> = options["dimensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["relevance", "tone"], "{options}");
    assert!(
        options["dimensions"][0]["rubric"]
            .as_str()
            .is_some_and(|r| !r.is_empty())
    );
    assert_eq!(spec["record"]["prompts"]["dir"], Value::Null);
}

#[test]
fn a_proposition_run_records_its_settings_as_before() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::demo();
    let args = [
        "run",
        "--protocol",
        "proposition",
        "--json",
        "--items",
        "k-001",
        "--claim",
        "{{title}} needs an answer today",
        "--claim-id",
        "today",
        "--scoring",
        "score",
        "--last-n",
        "3",
    ];
    let out = ws.run_with(&srv.url(), &args);
    assert_success(&out, &args);
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).unwrap();
    let spec = &runs.as_array().unwrap()[0]["spec"];
    assert_eq!(spec["persona_id"], "-", "no --persona: no one's view");
    assert_eq!(spec["perspective_ids"], json!(["proposition"]));
    assert_eq!(
        spec["record"]["judge"],
        json!({
            "protocol": "proposition",
            "settings": {
                "claim": "{{title}} needs an answer today",
                "claim_id": "today",
                "scoring": "score",
                "double_check": false,
                "precondition": null,
                "first_n": null,
                "last_n": 3,
            },
            "persona": null,
        })
    );
    assert_eq!(spec["record"]["prompts"]["dir"], Value::Null);
}

//! `jury run --dry-run --show-request` prints the first request of any
//! protocol exactly as it would be sent, without an endpoint or a key.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use serde_json::Value;

fn workspace() -> Workspace {
    let ws = Workspace::new();
    let dir = sample_data();
    let sub = |s: &str| dir.join(s).to_str().unwrap().to_string();
    ws.ok(&[
        "import",
        dir.to_str().unwrap(),
        &sub("rubric"),
        &sub("guideline"),
        &sub("proposition"),
    ]);
    ws
}

fn body(ws: &Workspace, args: &[&str]) -> Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--dry-run", "--show-request", "--json"]);
    serde_json::from_str(&ws.ok(&all)).unwrap()
}

fn forced_tool(b: &Value) -> &str {
    b["tool_choice"]["function"]["name"].as_str().unwrap()
}

fn all_text(b: &Value) -> String {
    b["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn guideline_request_holds_the_conversation_and_its_guidelines() {
    let ws = workspace();
    let b = body(&ws, &["--protocol", "guideline", "--items", "conv-001"]);
    assert_eq!(forced_tool(&b), "record_guideline_checks");
    let text = all_text(&b);
    assert!(
        text.contains("g-damage") && text.contains("g-refund-time"),
        "{text}"
    );
    assert!(text.contains("the lamp inside is broken"), "{text}");
    assert!(b.get("authorization").is_none());
}

#[test]
fn rubric_and_proposition_requests_are_shown_too() {
    let ws = workspace();
    let b = body(&ws, &["--protocol", "rubric", "--items", "ticket-001"]);
    assert_eq!(forced_tool(&b), "record_score");
    assert!(all_text(&b).contains("Jenkins"));
    let b = body(
        &ws,
        &[
            "--protocol",
            "proposition",
            "--items",
            "k-001",
            "--claim",
            "{{title}} needs an answer today",
        ],
    );
    // The placeholder is filled from the item.
    let text = all_text(&b);
    assert!(text.contains("Stock-out on BM-440 kettles"), "{text}");
    assert!(!text.contains("{{title}}"), "{text}");
}

#[test]
fn show_request_needs_dry_run() {
    let ws = workspace();
    let out = ws.run(&["run", "--protocol", "rubric", "--show-request"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--dry-run"),
        "{}",
        text(&out.stderr)
    );
}

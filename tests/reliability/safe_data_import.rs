//! Safe data, imports and the CSV export: a re-import never silently rewrites
//! what a person stored, bad label files are named precisely, and exported
//! cells cannot drive a terminal or a spreadsheet. The real binary.
#![cfg(feature = "tui")]

use crate::common;
use common::{Workspace, generated_workspace, jsonl, text};
use serde_json::{Value, json};

mod files;
mod reimport;

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

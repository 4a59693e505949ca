//! `jury report` as a process: the JSON contract of docs/design.md §5, the other
//! formats, grouping, reproducibility, and agreement with what
//! `jury export --format jsonl` holds (same pairs ⇒ same n and figures).
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::analytics::Figures;
use serde_json::Value;
use std::collections::HashMap;

mod contract;
mod figures;
mod prompt_names;

/// `jury run` for kenton from the classification perspective with the demo
/// judge's model name, in `mode`, followed by `extra`.
fn kenton_run<'a>(mode: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "--mode",
        mode,
        "--persona",
        "kenton",
        "--perspective",
        "classification",
        "--model",
        "demo",
    ];
    args.extend_from_slice(extra);
    args
}

/// Sample data judged in modes 1, 2 and 3 by the demo judge, plus labels by a
/// second person (carol) so human vs human has pairs on the Likert scale.
fn judged() -> Workspace {
    let ws = Workspace::sample_judged(&["1", "2", "3"], &["--model", "demo"]);
    for (item, cls, v) in [
        ("k-001", "urgency", "2"),
        ("k-001", "work-pers", "5"),
        ("k-002", "urgency", "4"),
        ("k-003", "work-pers", "1"),
        ("k-005", "urgency", "3"),
    ] {
        ws.ok(&[
            "label",
            item,
            cls,
            v,
            "--persona",
            "kenton",
            "--who",
            "carol",
        ]);
    }
    ws
}

fn report_json(ws: &Workspace, extra: &[&str]) -> Value {
    let mut args = vec![
        "report",
        "--format",
        "json",
        "--bootstrap",
        "200",
        "--seed",
        "7",
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&ws.ok(&args)).unwrap()
}

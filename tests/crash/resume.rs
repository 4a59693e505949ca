//! docs/reliability.md row 16: `kill -9` mid-run, then `--resume`, repeats no completed
//! verdict and duplicates no row.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, generated_workspace, text};
use jury::protocol::awag::request::undelimit;
use serde_json::Value;
use std::collections::HashMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn verdict_count(db: &std::path::Path) -> usize {
    match jury::store::Store::open(db) {
        Ok(s) => s
            .runs()
            .ok()
            .and_then(|r| r.first().map(|r| r.verdicts as usize))
            .unwrap_or(0),
        Err(_) => 0,
    }
}

#[test]
fn kill_9_mid_run_then_resume_judges_everything_exactly_once() {
    let ws = generated_workspace(64, 3);
    let total = 64 * 3;
    let srv =
        ServerRt::start(|r| jury::testserver::demo_judge::reply(r, Duration::from_millis(150)));
    let args = [
        "run",
        "--mode",
        "2",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--concurrency",
        "2",
        "--batch-size",
        "5",
    ];
    let mut child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill once part of the run is saved (about a second in), not at a fixed time.
    let give_up = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        if verdict_count(&ws.db) >= 30 {
            break;
        }
        assert!(Instant::now() < give_up, "no verdicts arrived");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let saved = verdict_count(&ws.db);
    assert!(saved >= 30 && saved < total, "{saved} verdicts at the kill");
    let sent_before = srv.completions().len();

    let mut resume: Vec<&str> = args.to_vec();
    resume.extend(["--resume", "--json"]);
    let out = ws.run_with(&srv.url(), &resume);
    common::assert_success(&out, &resume);
    let summary: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(summary["status"], "done", "{summary}");
    assert_eq!(
        summary["total"].as_u64().unwrap() as usize,
        total - saved,
        "resume must skip exactly what was saved"
    );
    // The resumed run asked only for what was missing.
    let asked: usize = srv.completions()[sent_before..]
        .iter()
        .map(|r| {
            let msg = r.last_user_message().unwrap();
            let body: Value = serde_json::from_str(undelimit(&msg).unwrap()).unwrap();
            body["items"].as_array().unwrap().len()
        })
        .sum();
    assert_eq!(asked, total - saved);

    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for r in ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
    {
        assert_eq!(
            (
                r["persona_id"].as_str(),
                r["mode"].as_u64(),
                r["perspective_id"].as_str()
            ),
            (Some("tester"), Some(2), Some("classification"))
        );
        assert_eq!(r["model"], "gpt-4o-mini");
        *seen
            .entry((r["item_id"].to_string(), r["classification_id"].to_string()))
            .or_default() += 1;
    }
    assert_eq!(seen.len(), total, "some combinations were never judged");
    assert!(
        seen.values().all(|n| *n == 1),
        "a combination was judged twice"
    );

    let store = ws.store();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        runs[0].status,
        jury::domain::RunStatus::Failed,
        "the killed run is shown as interrupted"
    );
    assert!(
        runs[0]
            .note
            .as_deref()
            .unwrap_or("")
            .contains("interrupted"),
        "{:?}",
        runs[0].note
    );
    assert_eq!(runs[1].status, jury::domain::RunStatus::Done);
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

//! `--batch-retry direct`, `jury runs --json` on batch runs, and the key kept
//! out of a batch's command line.

use super::*;

/// `--batch-retry direct`: the lines a batch did not answer (it expired
/// after the first) are asked again as streamed requests, each exactly
/// once, the same messages as their batch lines, and the run ends complete.
#[test]
fn batch_retry_direct_asks_exactly_the_failed_lines_directly() {
    let (srv, api) = batch_server(BatchScript {
        expire_after: Some(1),
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    let mut args = vec!["--mode", "1", "--items", ITEMS, "--batch-size", "1"];
    args.extend_from_slice(&["--batch", "--batch-poll", "1", "--json"]);
    args.extend_from_slice(&["--batch-retry", "direct"]);
    let out = ws.judge(&srv.url(), None, &args);
    common::assert_success(&out, &["run --batch --batch-retry direct"]);
    let s = summary(&out);
    assert_eq!(s["verdicts"], 15, "{s}");
    assert_eq!(api.created().len(), 1, "no second batch");
    let input = api.input(&api.created()[0]).expect("the batch's file");
    let lines = jsonl(&input);
    assert_eq!(lines.len(), 3);
    // The batch answered the first line only.
    let failed: BTreeSet<String> = lines[1..]
        .iter()
        .map(|l| l["body"]["messages"].to_string())
        .collect();
    let direct: Vec<Value> = srv
        .server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .map(|r| r.body)
        .collect();
    assert_eq!(direct.len(), 2, "one streamed request per failed line");
    assert!(direct.iter().all(|b| b["stream"] == true));
    let asked: BTreeSet<String> = direct.iter().map(|b| b["messages"].to_string()).collect();
    assert_eq!(asked, failed, "exactly the failed custom ids");
    assert_eq!(verdicts(&ws).len(), 15);
    let streamed = Workspace::sample();
    let out = streamed.judge(
        &ServerRt::demo().url(),
        None,
        &["--mode", "1", "--items", ITEMS, "--batch-size", "1"],
    );
    common::assert_success(&out, &["run"]);
    assert_eq!(verdicts(&ws), verdicts(&streamed));
}

/// `jury runs --json` carries each batch run's batches: id, status and
/// `request_counts`, and never the key.
#[test]
fn runs_json_carries_each_batch_runs_status() {
    let (srv, api) = batch_server(BatchScript::default());
    let ws = Workspace::sample();
    let mut args = vec!["--mode", "1", "--items", ITEMS, "--batch-size", "2"];
    args.extend_from_slice(&["--batch", "--batch-poll", "1", "--json"]);
    let out = ws.judge(&srv.url(), Some("sk-CANARY-BATCH-KEY"), &args);
    common::assert_success(&out, &["run --batch"]);
    let batch_run = summary(&out)["run_id"].clone();
    let listed = ws.ok(&["runs", "--json"]);
    assert!(!listed.contains("CANARY"), "{listed}");
    let runs: Value = serde_json::from_str(&listed).expect("runs");
    assert_eq!(runs[0]["id"], batch_run);
    let batches = runs[0]["batches"].as_array().expect("the run's batches");
    assert_eq!(batches.len(), 1, "{listed}");
    let b = &batches[0];
    assert_eq!(b["batch_id"], api.created()[0].as_str(), "{b}");
    assert_eq!(b["status"], "completed", "{b}");
    assert_eq!(
        b["request_counts"],
        serde_json::json!({"total": 2, "completed": 2, "failed": 0}),
        "{b}"
    );
    assert_eq!(b["answers_read"], true, "{b}");
    // A streamed run has none.
    let out = ws.judge(
        &ServerRt::demo().url(),
        None,
        &["--mode", "2", "--items", ITEMS],
    );
    common::assert_success(&out, &["run"]);
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    let streamed = runs
        .as_array()
        .expect("runs")
        .iter()
        .find(|r| r["id"] != batch_run)
        .expect("the streamed run");
    assert!(streamed.get("batches").is_none(), "{streamed}");
}

/// `--batch-retry direct` under a budget that holds the batch's worst case
/// and a little more: once the batch is over, what it held for its lines
/// is given back, so the requests asked directly go out (one at a time,
/// as the budget allows) instead of waiting forever.
#[test]
fn batch_retry_direct_under_a_tight_budget_is_not_held_back_by_the_batch() {
    let script = BatchScript {
        expire_after: Some(1),
        ..BatchScript::default()
    };
    let mut args = vec!["--mode", "1", "--items", ITEMS, "--batch-size", "1"];
    args.extend_from_slice(&["--batch", "--batch-poll", "1", "--json"]);
    args.extend_from_slice(&["--batch-retry", "direct"]);
    // The batch's worst case, from a first run's request file: every byte
    // a prompt token and every allowed answer token, at the batch price
    // (gpt-4o-mini's halved: $0.075 and $0.30 per million).
    let (srv, api) = batch_server(script.clone());
    let first = Workspace::sample();
    common::assert_success(&first.judge(&srv.url(), None, &args), &["run --batch"]);
    let input = api.input(&api.created()[0]).expect("the batch's file");
    let worst: f64 = input
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let max_tokens = jsonl(l)[0]["body"]["max_tokens"]
                .as_f64()
                .expect("max_tokens");
            (l.len() as f64 * 0.075 + max_tokens * 0.30) / 1e6
        })
        .sum();
    let budget = format!("{:.8}", worst * 1.2);

    let (srv, _api) = batch_server(script);
    let ws = Workspace::sample();
    let mut child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(RUN_AS_KENTON)
        .args(&args)
        .args(["--budget", &budget])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn jury");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let out = child.wait_with_output().expect("jury");
            panic!("still waiting after a minute: {}", text(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("jury");
    common::assert_success(&out, &["run --batch --batch-retry direct --budget"]);
    assert_eq!(summary(&out)["verdicts"], 15);
    assert_eq!(direct_requests(&srv), 2);
}

/// The record kept with a batch run (for `jury batch import`) keeps no
/// credential a `--base-url` carried: the store's bytes, WAL included, never
/// hold the URL's password.
#[test]
fn a_key_in_the_base_url_is_not_kept_with_the_batch_runs_record() {
    let (srv, _api) = batch_server(BatchScript::default());
    let ws = Workspace::sample();
    let url = srv
        .url()
        .replacen("http://", "http://user:sk-CANARY-URL-PASS@", 1);
    let out = ws
        .cmd()
        .args(RUN_AS_KENTON)
        .args(["--mode", "1", "--items", ITEMS, "--batch-size", "2"])
        .args(["--batch", "--batch-poll", "1", "--json"])
        .arg(format!("--base-url={url}"))
        .output()
        .expect("jury");
    common::assert_success(&out, &["run --batch --base-url=URL-with-a-key"]);
    let mut kept = Vec::new();
    for suffix in ["", "-wal"] {
        let path = format!("{}{suffix}", ws.db.display());
        kept.extend(std::fs::read(&path).unwrap_or_default());
    }
    let kept = String::from_utf8_lossy(&kept);
    assert!(!kept.contains("CANARY"), "a credential is in the store");
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    let servers = &runs[0]["spec"]["record"]["servers"];
    assert_eq!(servers.as_array().map(Vec::len), Some(1), "{runs}");
    assert!(
        servers[0]
            .as_str()
            .is_some_and(|s| s.starts_with("http://127.0.0.1:")),
        "the record keeps the server, without its credential: {runs}"
    );
}

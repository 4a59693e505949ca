//! A verdict's confidence from token probabilities (against the test server:
//! streamed and not, a value split over tokens, a server that sends none),
//! through `jury run --confidence`, the store and the exports, and `jury
//! trust` end to end on stores built through the binary.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, Workspace, text};
use jury::domain::{Agreement, ComboKey, Scale, Value as V};
use jury::provider::logprobs::{TokenLogprob, confidences};
use jury::provider::{ChatCall, Client, Message, ProviderConfig, ToolMode, ToolSpec};
use jury::testserver::{Reply, TestServer};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;

fn tok(t: &str, lp: f64, top: &[(&str, f64)]) -> TokenLogprob {
    TokenLogprob {
        token: t.into(),
        logprob: lp,
        top: top.iter().map(|(a, l)| (a.to_string(), *l)).collect(),
        bytes: None,
    }
}

/// A Mode 3 answer for two combinations as a tokenizer splits it: the keys
/// forced by the grammar (−10, meaningless), "AGREE" as `AG` + `REE` with
/// `DIS` beside `AG`, "DISAGREE" as `"DIS` (quote and value in one token).
fn split_answer() -> Vec<TokenLogprob> {
    let forced = |t: &str| tok(t, -10.0, &[(t, -10.0)]);
    vec![
        forced(
            r#"{"resultItems":[{"id":{"itemId":"a","classificationId":"c","perspectiveId":"p"},"#,
        ),
        forced(r#""evaluationAgreement":""#),
        tok("AG", -1.24, &[("AG", -1.24), ("DIS", -1.74), ("The", -2.0)]),
        tok("REE", -0.01, &[("REE", -0.01)]),
        forced(
            r#""},{"id":{"itemId":"b","classificationId":"c","perspectiveId":"p"},"evaluationAgreement":"#,
        ),
        tok(
            "\"DIS",
            -0.2,
            &[("\"DIS", -0.2), ("\"AG", -1.9), ("DIS", -0.5)],
        ),
        forced(r#"AGREE"}]}"#),
    ]
}

fn call() -> ChatCall {
    ChatCall {
        messages: vec![Message::user("judge")],
        tool: ToolSpec {
            name: "get_evaluations".into(),
            description: "Return the evaluations".into(),
            parameters: json!({"type": "object", "properties": {"resultItems": {"type": "array"}}}),
        },
        max_tokens: None,
    }
}

async fn complete(server: &TestServer, stream: bool) -> jury::provider::Completion {
    let mut cfg = ProviderConfig::new(server.base_url(), "m");
    cfg.stream = stream;
    cfg.logprobs = true;
    cfg.tool_mode = ToolMode::JsonSchema;
    cfg.fallback = false;
    let client = Client::new(cfg).expect("client");
    client
        .complete(&call(), &CancellationToken::new(), &mut |_| {})
        .await
        .expect("an answer")
}

#[tokio::test]
async fn logprobs_are_read_streamed_and_not_and_a_split_value_counts_its_first_token() {
    let server = TestServer::start(|_| Reply::logprobs(split_answer()))
        .await
        .expect("server");
    let (a, b) = (ComboKey::new("a", "c", "p"), ComboKey::new("b", "c", "p"));
    let p_agree = (-1.24f64).exp() / ((-1.24f64).exp() + (-1.74f64).exp());
    let p_dis = (-0.2f64).exp() / ((-0.2f64).exp() + (-1.9f64).exp());
    for stream in [true, false] {
        let c = complete(&server, stream).await;
        let tokens = c.logprobs.as_deref().expect("token probabilities");
        let spelled: Vec<(&str, f64, Option<&[u8]>)> = tokens
            .iter()
            .map(|t| (t.token.as_str(), t.logprob, t.bytes.as_deref()))
            .collect();
        let want = split_answer();
        let sent: Vec<(&str, f64, Option<&[u8]>)> = want
            .iter()
            .map(|t| (t.token.as_str(), t.logprob, Some(t.token.as_bytes())))
            .collect();
        assert_eq!(spelled, sent, "stream {stream}");
        let got = confidences(
            &c.content,
            tokens,
            Scale::Agreement,
            &[
                (&a, V::Agreement(Agreement::Agree)),
                (&b, V::Agreement(Agreement::Disagree)),
            ],
        );
        assert!(
            (got[&a].value - p_agree).abs() < 1e-12,
            "stream {stream}: {got:?}"
        );
        assert!(
            (got[&b].value - p_dis).abs() < 1e-12,
            "stream {stream}: {got:?}"
        );
    }
    // Both requests asked for them on the content path, never with tools.
    for r in server.requests() {
        assert_eq!(r.body["logprobs"], true);
        assert_eq!(r.body["top_logprobs"], 5);
        assert!(r.body.get("tools").is_none(), "{}", r.body);
        assert_eq!(r.body["response_format"]["type"], "json_schema");
    }
}

#[tokio::test]
async fn a_server_that_sends_no_logprobs_gives_none() {
    let text: String = split_answer().iter().map(|t| t.token.clone()).collect();
    let server = TestServer::start(move |_| Reply::content(text.clone()))
        .await
        .expect("server");
    for stream in [true, false] {
        let c = complete(&server, stream).await;
        assert_eq!(c.logprobs, None, "stream {stream}");
        assert!(c.content.contains("DISAGREE"));
    }
}

pub(crate) fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--mode",
        "3",
    ];
    a.extend_from_slice(extra);
    a
}

pub(crate) fn verdict_rows(ws: &Workspace) -> Vec<Value> {
    ws.export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .collect()
}

#[test]
fn run_with_logprobs_stores_and_exports_each_verdicts_confidence() {
    for stream in [true, false] {
        let ws = common::generated_workspace(4, 2);
        let srv = ServerRt::demo();
        let mut extra = vec!["--confidence", "logprobs"];
        if !stream {
            extra.push("--no-stream");
        }
        let out = ws.run_with(&srv.url(), &run_args(&extra));
        common::assert_success(&out, &extra);
        for r in srv.completions() {
            assert_eq!(r.body["logprobs"], true, "{}", r.body);
            assert_eq!(r.body["top_logprobs"], 5);
            assert!(r.body.get("tools").is_none());
        }
        let rows = verdict_rows(&ws);
        assert_eq!(rows.len(), 8, "stream {stream}");
        // The dry run shows the body as it is sent.
        let shown = ws.ok(&run_args(&[
            "--confidence",
            "logprobs",
            "--dry-run",
            "--show-request",
            "--json",
            "--items",
            "g-000000",
        ]));
        let body: Value = serde_json::from_str(&shown).expect("the body");
        assert_eq!(body["logprobs"], true, "{body}");
        assert_eq!(body["response_format"]["type"], "json_schema");
        for r in &rows {
            let c = r["confidence"].as_f64().expect("a confidence");
            assert!(c > 0.0 && c <= 1.0, "{r}");
            assert_eq!(r["confidence_source"], "logprobs");
            assert!(r["expected_score"].is_null(), "agreement has no score: {r}");
        }
        // The CSV carries the same numbers at full precision.
        let csv = ws.ok(&["export", "--format", "csv"]);
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let header = reader.headers().expect("header").clone();
        let at = |name: &str| header.iter().position(|h| h == name).expect(name);
        let (ci, si) = (at("confidence"), at("confidence_source"));
        let from_csv: Vec<f64> = reader
            .records()
            .map(|r| r.expect("a CSV record"))
            .filter(|r| &r[0] == "verdict")
            .map(|r| {
                assert_eq!(&r[si], "logprobs");
                r[ci].parse().expect("a number")
            })
            .collect();
        let from_jsonl: Vec<f64> = rows
            .iter()
            .map(|r| r["confidence"].as_f64().unwrap())
            .collect();
        assert_eq!(from_csv, from_jsonl);
    }
}

#[test]
fn mode_two_keeps_the_expected_score() {
    let ws = common::generated_workspace(3, 1);
    let srv = ServerRt::demo();
    let out = ws.run_with(
        &srv.url(),
        &[
            "run",
            "--persona",
            "tester",
            "--perspective",
            "classification",
            "--mode",
            "2",
            "--confidence",
            "logprobs",
        ],
    );
    common::assert_success(&out, &["mode 2"]);
    let rows = verdict_rows(&ws);
    assert_eq!(rows.len(), 3);
    for r in rows {
        let (c, e) = (r["confidence"].as_f64(), r["expected_score"].as_f64());
        assert!(c.is_some_and(|c| c > 0.0 && c <= 1.0), "{r}");
        assert!(e.is_some_and(|e| (1.0..=5.0).contains(&e)), "{r}");
    }
}

#[test]
fn a_server_without_logprobs_is_said_once_and_the_run_goes_on() {
    let ws = common::generated_workspace(6, 2);
    // The demo judge's verdicts, without the probabilities it was asked for.
    let srv = ServerRt::start(|r| {
        match jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO) {
            Reply::Logprobs { tokens, .. } => {
                Reply::content(tokens.iter().map(|t| t.token.as_str()).collect::<String>())
            }
            other => other,
        }
    });
    let out = ws.run_with(
        &srv.url(),
        &run_args(&["--confidence", "logprobs", "--batch-size", "2"]),
    );
    common::assert_success(&out, &["no logprobs"]);
    let err = text(&out.stderr);
    assert_eq!(err.matches("no token probabilities").count(), 1, "{err}");
    assert!(srv.completions().len() > 1);
    let rows = verdict_rows(&ws);
    assert_eq!(rows.len(), 12);
    assert!(rows.iter().all(|r| r["confidence"].is_null()));
}

#[test]
fn the_config_key_asks_for_logprobs_and_a_bad_value_names_file_and_key() {
    let ws = common::generated_workspace(2, 1);
    let srv = ServerRt::demo();
    let conf = ws.write("config.toml", "confidence = \"logprobs\"\n");
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &conf)
        .env("OPENAI_BASE_URL", srv.url())
        .args(run_args(&[]))
        .output()
        .expect("jury");
    common::assert_success(&out, &["config"]);
    assert!(srv.completions().iter().all(|r| r.body["logprobs"] == true));
    assert!(
        verdict_rows(&ws)
            .iter()
            .all(|r| r["confidence"].is_number())
    );
    // --confidence off overrides the file.
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &conf)
        .env("OPENAI_BASE_URL", srv.url())
        .args(run_args(&["--confidence", "off"]))
        .output()
        .expect("jury");
    common::assert_success(&out, &["off"]);
    let last = srv.completions().last().cloned().expect("a request");
    assert!(last.body.get("logprobs").is_none());
    // The logprobs run's content path is not remembered as the endpoint's
    // path: this run starts with a forced tool call again.
    assert!(last.body.get("tools").is_some(), "{}", last.body);
    let bad = ws.write("bad.toml", "confidence = \"maybe\"\n");
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &bad)
        .args(["runs"])
        .output()
        .expect("jury");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    // The file, the line and the key, as for every setting; the value is
    // not echoed (a key pasted in the wrong place stays hidden).
    assert!(
        err.contains("bad.toml") && err.contains("line 1") && err.contains("confidence:"),
        "{err}"
    );
    assert!(err.contains("logprobs") && !err.contains("maybe"), "{err}");
}

/// Labels (as an import file) for `(item, classification, value)`.
pub(crate) fn import_labels(ws: &Workspace, labels: &[(String, String, &str)]) {
    let lines: Vec<String> = labels
        .iter()
        .map(|(item, cls, value)| {
            json!({"itemId": item, "classificationId": cls, "perspectiveId": "classification",
                   "personaId": "tester", "value": value, "who": "alice"})
            .to_string()
        })
        .collect();
    let p = ws.write("labels.jsonl", lines.join("\n") + "\n");
    ws.ok(&["import", p.to_str().expect("path")]);
}

pub(crate) fn opposite(v: &str) -> &'static str {
    if v == "AGREE" { "DISAGREE" } else { "AGREE" }
}

#[test]
fn trust_finds_the_threshold_and_its_coverage_end_to_end() {
    let ws = common::generated_workspace(40, 2);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&["--confidence", "logprobs"]));
    common::assert_success(&out, &["run"]);
    let rows = verdict_rows(&ws);
    assert_eq!(rows.len(), 80);
    // By classification: (item, judge's value, confidence).
    let mut by_cls: BTreeMap<String, Vec<(String, String, f64)>> = BTreeMap::new();
    for r in &rows {
        by_cls
            .entry(r["classification_id"].as_str().unwrap().to_string())
            .or_default()
            .push((
                r["item_id"].as_str().unwrap().to_string(),
                r["value"].as_str().unwrap().to_string(),
                r["confidence"].as_f64().unwrap(),
            ));
    }
    let mut cls = by_cls.keys().cloned();
    let (good, bad) = (cls.next().unwrap(), cls.next().unwrap());
    // `good`: people label 30 of the 40 combinations, agreeing with the
    // judge on the 24 most confident and disagreeing on the 6 least; `bad`:
    // people disagree with the judge on 30.
    let mut g = by_cls[&good].clone();
    g.sort_by(|a, b| b.2.total_cmp(&a.2));
    let mut labels = Vec::new();
    let mut calibration = Vec::new();
    for (k, (item, value, c)) in g.iter().take(30).enumerate() {
        let agree = k < 24;
        labels.push((
            item.clone(),
            good.clone(),
            if agree {
                value.as_str()
            } else {
                opposite(value)
            },
        ));
        calibration.push((*c, agree));
    }
    for (item, value, _) in by_cls[&bad].iter().take(30) {
        labels.push((item.clone(), bad.clone(), opposite(value)));
    }
    import_labels(&ws, &labels);
    // α = 0.25: the first candidate (10 pairs, all agreeing) passes; the
    // walk down stops among the disagreements.
    let (alpha, delta) = (0.25, 0.1);
    // The expected threshold by the procedure (checked against scipy in the
    // library's tests) on the pairs this test made; coverage over all 40.
    let want = jury::analytics::trust::trust_threshold(&calibration, alpha, delta, 10);
    let want_t = want
        .threshold
        .unwrap_or_else(|| panic!("a threshold on the made data: {calibration:?}"));
    let all: Vec<f64> = by_cls[&good].iter().map(|x| x.2).collect();
    let want_cov = jury::analytics::trust::coverage(&all, want_t).unwrap();
    let args = [
        "trust",
        "--alpha",
        "0.25",
        "--delta",
        "0.1",
        "--min-calibration",
        "10",
        "--format",
        "json",
    ];
    let got: Value = serde_json::from_str(&ws.ok(&args)).expect("json");
    let got = got.as_array().expect("an array");
    assert_eq!(got.len(), 2, "{got:?}");
    let row = |c: &str| got.iter().find(|r| r["classification"] == c).expect(c);
    let g_row = row(&good);
    assert_eq!(g_row["perspective"], "classification");
    assert_eq!(g_row["persona"], "tester");
    assert!(
        g_row["judge"].as_str().unwrap().contains("mode 3"),
        "{g_row}"
    );
    assert_eq!(g_row["alpha"], 0.25);
    assert_eq!(g_row["delta"], 0.1);
    assert_eq!(g_row["n_calibration"], 30);
    assert_eq!(g_row["threshold"].as_f64(), Some(want_t));
    assert_eq!(g_row["coverage"].as_f64(), Some(want_cov));
    assert!(want_cov > 0.0 && want_cov < 1.0, "{want_cov}");
    let b_row = row(&bad);
    assert!(b_row["threshold"].is_null(), "{b_row}");
    assert_eq!(b_row["coverage"], 0.0);
    // The table says it plainly.
    let table = ws.ok(&[
        "trust",
        "--alpha",
        "0.25",
        "--delta",
        "0.1",
        "--min-calibration",
        "10",
    ]);
    assert!(table.contains("no threshold meets it"), "{table}");
    assert!(table.contains("random sample"), "{table}");
    assert!(table.contains(&format!("threshold {want_t:.4}")), "{table}");
    // The HTML report heads with the same verdicts (at its fixed α = δ = 0.1
    // and 30 calibration pairs: `bad` has none that qualify).
    let html_path = ws.path("r.html");
    ws.ok(&[
        "report",
        "--format",
        "html",
        "--out",
        html_path.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(
        html.contains("Which verdicts can stand without a person"),
        "no trust section"
    );
    assert!(
        html.contains(&format!(
            "{bad}: no confidence threshold guarantees 90 % agreement"
        )),
        "{html}"
    );
    // Every label so far was chosen by a person: the table says the
    // guarantee assumes a random sample.
    assert_eq!(g_row["calibration_sampled"], 0);
    assert_eq!(g_row["calibration_chosen"], 30);
    assert!(
        table.contains("30 of 30 calibration labels chosen by a person"),
        "{table}"
    );
    // The escalation queue: the unlabelled combinations of `good` below its
    // threshold, and every unlabelled one of `bad` (no threshold).
    let mut needs = args.to_vec();
    needs.push("--needs-person");
    let queue: Value = serde_json::from_str(&ws.ok(&needs)).expect("json");
    let mut got: Vec<(String, String)> = queue
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| {
            assert_eq!(r["persona"], "tester", "{r}");
            let s = |f: &str| r[f].as_str().expect(f).to_string();
            (s("classification"), s("item"))
        })
        .collect();
    got.sort();
    let mut want: Vec<(String, String)> = g
        .iter()
        .skip(30)
        .filter(|x| x.2 < want_t)
        .map(|x| (good.clone(), x.0.clone()))
        .chain(
            by_cls[&bad]
                .iter()
                .skip(30)
                .map(|x| (bad.clone(), x.0.clone())),
        )
        .collect();
    want.sort();
    assert_eq!(got, want);
    let mut table_args = args[..args.len() - 2].to_vec();
    table_args.push("--needs-person");
    let table = ws.ok(&table_args);
    assert!(
        table.starts_with(&format!("{} combination(s) need a person", want.len())),
        "{table}"
    );
    assert!(
        table.contains("no judge is trusted for this classification"),
        "{table}"
    );
    // Ten of them given in the workbench's random sample order (as it
    // records them): counted, and --sampled-only calibrates on them alone.
    {
        let mut store = ws.store();
        for (item, _, _) in g.iter().take(10) {
            let key = ComboKey::new(item, &good, "classification");
            store
                .mark_sampled(&key, "tester", "alice", 7)
                .expect("mark");
        }
    }
    let got: Value = serde_json::from_str(&ws.ok(&args)).expect("json");
    let g_row = got
        .as_array()
        .and_then(|a| a.iter().find(|r| r["classification"] == good.as_str()))
        .expect("good")
        .clone();
    assert_eq!(g_row["calibration_sampled"], 10);
    assert_eq!(g_row["calibration_chosen"], 20);
    let mut only = args.to_vec();
    only.push("--sampled-only");
    let got: Value = serde_json::from_str(&ws.ok(&only)).expect("json");
    let g_row = got
        .as_array()
        .and_then(|a| a.iter().find(|r| r["classification"] == good.as_str()))
        .expect("good")
        .clone();
    assert_eq!(g_row["n_calibration"], 10);
    assert_eq!(g_row["calibration_chosen"], 0);
}

#[test]
fn repeated_runs_give_a_confidence_when_reading() {
    let ws = common::generated_workspace(5, 1);
    let srv = ServerRt::demo();
    for seed in ["1", "2"] {
        let out = ws.run_with(&srv.url(), &run_args(&["--shuffle-seed", seed]));
        common::assert_success(&out, &[seed]);
    }
    // No confidence is stored: it comes from the two runs agreeing.
    assert!(verdict_rows(&ws).iter().all(|r| r["confidence"].is_null()));
    let got: Value = serde_json::from_str(&ws.ok(&[
        "trust", "--alpha", "0.1", "--delta", "0.1", "--format", "json",
    ]))
    .expect("json");
    let row = &got[0];
    assert_eq!(row["confidence_source"], "repeats", "{row}");
    assert_eq!(row["n_judged"], 5);
    // Without a verdict with a confidence, trust says how to get one.
    let empty = common::generated_workspace(1, 1);
    let said = empty.ok(&["trust", "--alpha", "0.1", "--delta", "0.1"]);
    assert!(said.contains("no verdict has a confidence"), "{said}");
}

/// `jury demo-judge`'s own server (not the test server's copy) sends token
/// probabilities on the content path, streamed and not: the workflow runs
/// offline.
#[test]
fn the_demo_judge_server_sends_logprobs() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let judge = rt
        .block_on(jury::demo_judge::DemoJudge::start(
            0,
            std::time::Duration::ZERO,
        ))
        .expect("demo judge");
    for stream in [true, false] {
        let ws = common::generated_workspace(3, 2);
        let mut extra = vec!["--confidence", "logprobs"];
        if !stream {
            extra.push("--no-stream");
        }
        let out = ws.run_with(&judge.base_url(), &run_args(&extra));
        common::assert_success(&out, &extra);
        let rows = verdict_rows(&ws);
        assert_eq!(rows.len(), 6);
        assert!(
            rows.iter().all(|r| r["confidence"]
                .as_f64()
                .is_some_and(|c| c > 0.0 && c <= 1.0)),
            "stream {stream}: {rows:?}"
        );
    }
}

/// `--repeats K` at a temperature above 0: K runs of one configuration,
/// whose majority share `jury trust` reads as the confidence; at
/// temperature 0 it is refused before anything is sent.
#[test]
fn repeats_k_runs_the_configuration_k_times() {
    let ws = common::generated_workspace(4, 1);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&["--repeats", "3"]));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("temperature above 0"),
        "{}",
        text(&out.stderr)
    );
    assert!(srv.completions().is_empty());
    let out = ws.run_with(
        &srv.url(),
        &run_args(&[
            "--repeats",
            "3",
            "--temperature",
            "0.7",
            "--confidence",
            "repeats",
        ]),
    );
    common::assert_success(&out, &["--repeats 3"]);
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    assert_eq!(runs.as_array().map(Vec::len), Some(3), "{runs}");
    assert_eq!(verdict_rows(&ws).len(), 12);
    let got: Value = serde_json::from_str(&ws.ok(&[
        "trust", "--alpha", "0.1", "--delta", "0.1", "--format", "json",
    ]))
    .expect("json");
    assert_eq!(got[0]["confidence_source"], "repeats", "{got}");
    assert_eq!(got[0]["n_judged"], 4);
}

/// With `confidence = "repeats"` in the config, the majority of a
/// configuration's repeated verdicts is the one `jury estimate` uses (and
/// `jury trust` reads its share); without it, the latest stands as before.
#[test]
fn with_repeats_the_majority_is_the_verdict_the_estimate_uses() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let ws = common::generated_workspace(6, 1);
    // Runs 1 and 2 answer as the demo judge; run 3 (requests from the
    // third on, one request per run) says DISAGREE everywhere.
    let seen = AtomicUsize::new(0);
    let srv = ServerRt::start(move |r| {
        let reply = jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO);
        if r.method != "POST" || seen.fetch_add(1, Ordering::SeqCst) < 2 {
            return reply;
        }
        reply.reshaped(0, |args| args.replace("\"AGREE\"", "\"DISAGREE\""))
    });
    for seed in ["1", "2", "3"] {
        let out = ws.run_with(
            &srv.url(),
            &run_args(&["--shuffle-seed", seed, "--batch-size", "50"]),
        );
        common::assert_success(&out, &[seed]);
    }
    assert_eq!(srv.completions().len(), 3);
    let judge_alone = |config: Option<&str>| -> f64 {
        let mut cmd = ws.cmd();
        if let Some(c) = config {
            cmd.env("JURY_CONFIG", ws.write("config.toml", c));
        }
        let out = cmd
            .args(["estimate", "--format", "json"])
            .output()
            .expect("jury");
        common::assert_success(&out, &["estimate"]);
        let es: Value = serde_json::from_slice(&out.stdout).expect("json");
        es[0]["judge_alone"].as_f64().expect("the judge's share")
    };
    let first_runs: f64 = {
        let rows = verdict_rows(&ws);
        let run1: Vec<&Value> = rows.iter().filter(|r| r["run_id"] == 1).collect();
        run1.iter().filter(|r| r["value"] == "AGREE").count() as f64 / run1.len() as f64
    };
    assert!(first_runs > 0.0, "the demo judge agreed somewhere");
    // The latest run (all DISAGREE) stands without the setting.
    assert_eq!(judge_alone(None), 0.0);
    // The majority (runs 1 and 2) stands with it.
    assert_eq!(judge_alone(Some("confidence = \"repeats\"\n")), first_runs);
    // The export carries each verdict's share among its repeats (of the
    // value it gave), computed when reading: 2/3 for runs 1 and 2 where run
    // 3 flipped, 1/3 for run 3 there, 1 where all three agree.
    let out = ws
        .cmd()
        .env(
            "JURY_CONFIG",
            ws.write("config.toml", "confidence = \"repeats\"\n"),
        )
        .args(["export", "--format", "jsonl"])
        .output()
        .expect("jury");
    common::assert_success(&out, &["export"]);
    let rows: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a row"))
        .filter(|r| r["kind"] == "verdict")
        .collect();
    assert_eq!(rows.len(), 18);
    for r in &rows {
        let same = rows
            .iter()
            .filter(|o| o["item_id"] == r["item_id"] && o["value"] == r["value"])
            .count();
        assert_eq!(r["confidence"].as_f64(), Some(same as f64 / 3.0), "{r}");
        assert_eq!(r["confidence_source"], "repeats");
    }
    assert!(
        rows.iter()
            .any(|r| r["confidence"].as_f64() == Some(2.0 / 3.0))
    );
    // Without the setting, nothing is made up.
    assert!(verdict_rows(&ws).iter().all(|r| r["confidence"].is_null()));
}

//! `jury run --confidence`: each verdict's confidence stored and exported,
//! Mode 2's expected score, a server without logprobs said once, and the
//! config key.

use super::*;

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

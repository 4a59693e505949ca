//! Token probabilities from the test server, streamed and not: a value split
//! over tokens counts its first token, a server that sends none gives none,
//! and the demo judge server sends them.

use super::*;

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

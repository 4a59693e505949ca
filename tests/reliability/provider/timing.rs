//! Rows 11 and 12 (time): idle timeouts, backoff with jitter under a cap,
//! Retry-After in its forms, and answers that trickle — on tokio's paused clock.

use super::*;

/// The idle timeout measures silence between chunks, not the answer's length:
/// a stream that trickles in for longer than the timeout is fine; one that
/// stalls mid-answer for longer is retried with a clear reason. Under paused
/// time: the pauses and the timeout run on tokio's clock, so a busy machine
/// cannot turn a 60 ms gap into a 300 ms silence.
#[tokio::test(start_paused = true)]
async fn reliability_11_idle_timeout_is_silence_not_length() {
    let server = TestServer::start(|r| {
        let answer = Reply::tool("get_evaluations", ARGS);
        match r.seq {
            // ~40 writes 60 ms apart: over 2 s in all, never 300 ms silent.
            0 => Reply::Paced(Duration::from_millis(60), Box::new(answer)),
            // Stalls 900 ms after the head, then an answer on the retry.
            1 => Reply::Paced(Duration::from_millis(900), Box::new(answer)),
            _ => answer,
        }
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    let client = Client::new(c).expect("client");
    let (r, frames) = run(&client).await;
    let done = r.expect("a slow but steady stream completes");
    assert_eq!(done.attempts, 1);
    assert!(retrying(&frames).is_empty());
    assert_eq!(done.tool_calls[0].arguments, ARGS);

    let (r, frames) = run(&client).await;
    assert_eq!(r.expect("completion").attempts, 2);
    let reasons: Vec<String> = retrying(&frames).into_iter().map(|r| r.2).collect();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].contains("went silent") && reasons[0].contains("300ms"),
        "{reasons:?}"
    );
}

/// Row 11: 408/409/5xx/timeout/reset back off with jitter and a cap; attempts
/// are counted. Under paused time: the idle timeout and the delays run on
/// tokio's clock.
#[tokio::test(start_paused = true)]
async fn reliability_11_transient_faults_backoff_jitter_cap() {
    for code in [408u16, 409, 500, 502, 503, 504] {
        let server = TestServer::start(move |r| match r.seq {
            0 => Reply::status(code, r#"{"error":{"message":"try again"}}"#),
            _ => Reply::tool("get_evaluations", ARGS),
        })
        .await
        .expect("server");
        let (r, frames) = run(&client(&server, true)).await;
        assert_eq!(r.expect("completion").attempts, 2, "{code}");
        let rt = retrying(&frames);
        assert_eq!(rt.len(), 1);
        assert!(rt[0].2.contains(&code.to_string()), "{}", rt[0].2);
    }
    // An idle timeout and a reset connection, then success.
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::tool("get_evaluations", "{}").delayed(Duration::from_secs(3)),
        1 => Reply::Raw(Vec::new()),
        _ => Reply::tool("get_evaluations", ARGS),
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    let (r, frames) = run(&Client::new(c).expect("client")).await;
    // The connection closed without an answer is resent at once, not counted.
    assert_eq!(r.expect("completion").attempts, 2);
    assert_eq!(server.request_count(), 3);
    let reasons: Vec<String> = retrying(&frames).into_iter().map(|r| r.2).collect();
    assert!(
        reasons[0].contains("did not answer") || reasons[0].contains("silent"),
        "{reasons:?}"
    );

    // Always 503: delays min(base·2ⁿ, cap) minus ≤ 25 % jitter, then a clear error.
    let server = TestServer::start(|_| Reply::status(503, "{}"))
        .await
        .expect("server");
    let mut c = cfg(&server, true);
    c.max_retries = 5;
    c.backoff_base = Duration::from_millis(10);
    c.backoff_cap = Duration::from_millis(40);
    let (r, frames) = run(&Client::new(c).expect("client")).await;
    match r {
        Err(ProviderError::RetriesExhausted { attempts, last }) => {
            assert_eq!(attempts, 6);
            assert!(last.contains("503"), "{last}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.request_count(), 6);
    let delays: Vec<Duration> = retrying(&frames).into_iter().map(|r| r.1).collect();
    assert_eq!(delays.len(), 5);
    for (n, d) in delays.iter().enumerate() {
        let full = Duration::from_millis(10 * (1 << n)).min(Duration::from_millis(40));
        assert!(
            *d <= full && *d >= full.mul_f64(0.75),
            "retry {n}: {d:?} vs {full:?}"
        );
    }
    assert!(
        delays[2..].iter().all(|d| *d <= Duration::from_millis(40)),
        "capped"
    );
    assert!(
        delays[2] != delays[3] || delays[3] != delays[4],
        "jittered: {delays:?}"
    );
}

/// Row 12: Retry-After as seconds, HTTP date, 0, garbage and 86400: honoured,
/// capped or a clear error. Under paused time: the retry goes out only once
/// tokio's clock has moved by the announced wait.
#[tokio::test(start_paused = true)]
async fn reliability_12_retry_after_forms() {
    async fn first_delay(
        value: String,
    ) -> (Result<Completion, ProviderError>, Option<Duration>, usize) {
        let server = TestServer::start(move |r| match r.seq {
            0 => Reply::Status {
                code: 429,
                headers: vec![("retry-after".into(), value.clone())],
                body: r#"{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}"#
                    .into(),
            },
            _ => Reply::tool("get_evaluations", "{}"),
        })
        .await
        .expect("server");
        let (r, frames) = run(&client(&server, true)).await;
        (
            r,
            retrying(&frames).first().map(|r| r.1),
            server.request_count(),
        )
    }
    // Seconds.
    let t = Instant::now();
    let (r, d, n) = first_delay("1".into()).await;
    assert_eq!(
        (r.expect("ok").attempts, d, n),
        (2, Some(Duration::from_secs(1)), 2)
    );
    assert!(
        t.elapsed() >= Duration::from_secs(1),
        "the wait was honoured"
    );
    // HTTP date two seconds ahead.
    let when = (chrono::Utc::now() + chrono::Duration::seconds(2))
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string();
    let (r, d, _) = first_delay(when).await;
    assert!(r.is_ok());
    let d = d.expect("delay");
    assert!(
        d > Duration::from_millis(900) && d <= Duration::from_secs(2),
        "{d:?}"
    );
    // Zero: retry at once.
    let (r, d, _) = first_delay("0".into()).await;
    assert!(r.is_ok());
    assert_eq!(d, Some(Duration::ZERO));
    // Garbage: ignored, the normal backoff applies (base 2 ms, cap 20 ms).
    let (r, d, _) = first_delay("soon-ish".into()).await;
    assert!(r.is_ok());
    assert!(d.expect("delay") <= Duration::from_millis(2));
    // A day: beyond the 120 s cap, a clear error at once.
    let (r, d, n) = first_delay("86400".into()).await;
    let e = r.expect_err("too long");
    assert_eq!(
        e,
        ProviderError::RetryAfterTooLong {
            wait: Duration::from_secs(86400),
            cap: Duration::from_secs(120)
        }
    );
    assert_eq!((d, n), (None, 1), "no retry, no wait");
    let msg = e.to_string();
    assert!(
        msg.contains("retry after") && msg.contains("86400") && msg.contains("120"),
        "{msg}"
    );
}

/// A tool call whose arguments open, then go on as one whitespace fragment
/// every `every` (SSE events keep coming, the answer does not grow).
fn whitespace_trickle(every: Duration) -> Reply {
    Reply::Paced(
        every,
        Box::new(Reply::ToolCall {
            name: "get_evaluations".into(),
            arguments: format!("{{\"resultItems\":[{}", " ".repeat(16 * 1000)),
            chunk: 16,
            finish: None,
            usage: None,
        }),
    )
}

/// Whitespace is not progress: a stream that only adds whitespace is idle,
/// cut after the idle timeout (not the request timeout), and the failure
/// says jury's own timeout cut it (was: 10 s, "cut off before it finished").
/// Under paused time.
#[tokio::test(start_paused = true)]
async fn a_whitespace_trickle_is_idle_and_the_cut_names_jurys_timeout() {
    let server = TestServer::start(|_| whitespace_trickle(Duration::from_millis(50)))
        .await
        .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    let client = Client::new(c).expect("client");
    let started = Instant::now();
    let (r, _) = run(&client).await;
    let e = r.expect_err("cut");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(e, ProviderError::Truncated { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("jury's idle timeout") && msg.contains("300ms"),
        "{msg}"
    );

    // A stream that does grow, but past the request timeout: that timeout
    // is named too.
    let server = TestServer::start(|_| {
        Reply::Paced(
            Duration::from_millis(50),
            Box::new(Reply::ToolCall {
                name: "get_evaluations".into(),
                arguments: format!("{{\"resultItems\":[\"{}", "x".repeat(4000)),
                chunk: 4,
                finish: None,
                usage: None,
            }),
        )
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    c.request_timeout = Duration::from_secs(2);
    let (r, _) = run(&Client::new(c).expect("client")).await;
    let msg = r.expect_err("cut").to_string();
    assert!(
        msg.contains("jury's request timeout") && msg.contains("2s"),
        "{msg}"
    );
}

/// A batch's time is bounded: answers that each deliver one new entry and
/// then keep growing until the request timeout would be free retries, one
/// per entry; the batch stops at `max_attempts` request timeouts and says
/// so. Under paused time.
#[tokio::test(start_paused = true)]
async fn a_batch_that_keeps_delivering_slowly_is_bounded_in_time() {
    // Four items of two classifications: one batch of 8.
    let fx = fixture(4);
    let server = TestServer::start(|r| {
        let args = demo_judge::reply(r, Duration::ZERO);
        let Reply::ToolCall { arguments, .. } = args else {
            return args;
        };
        // The first entry complete, then a second that never ends.
        let v: Value = serde_json::from_str(&arguments).expect("args");
        let first = v["resultItems"][0].to_string();
        let arguments = format!(
            "{{\"resultItems\":[{first},{{\"evaluationText\":\"{}",
            "y".repeat(100_000)
        );
        Reply::Paced(
            Duration::from_millis(50),
            Box::new(Reply::ToolCall {
                name: "get_evaluations".into(),
                arguments,
                chunk: 200,
                finish: None,
                usage: None,
            }),
        )
    })
    .await
    .expect("server");
    let mut cfg = engine_cfg(&fx.db, &server, None);
    cfg.provider.request_timeout = Duration::from_secs(1);
    cfg.provider.idle_timeout = Duration::from_millis(500);
    let started = Instant::now();
    let (out, _) = run_engine(cfg, req(Mode::Two, 8)).await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(3500),
        "{took:?}, {} requests: {:?}",
        server.request_count(),
        failure_rows(&fx.db)
    );
    assert!(server.request_count() <= 4, "{}", server.request_count());
    assert!(out.progress.verdicts >= 2, "{:?}", out.progress);
    let reasons: Vec<String> = failure_rows(&fx.db).into_iter().map(|f| f.1).collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("time limit for the batch (3 × the 1s request timeout)")),
        "{reasons:?}"
    );
}

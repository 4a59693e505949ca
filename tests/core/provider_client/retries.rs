//! Errors and waits: Retry-After in its forms and past the cap, 5xx then
//! success, a spent quota, client errors failing fast with the key redacted,
//! HTML 502s, idle timeouts and dropped connections, cancelling a wait.

use super::*;

#[tokio::test]
async fn rate_limited_with_retry_after_zero_then_success() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::Status {
            code: 429,
            headers: vec![("retry-after".into(), "0".into())],
            body: r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#.into(),
        },
        _ => Reply::tool("get_evaluations", "{}"),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    let c = r.expect("completion");
    assert_eq!(c.attempts, 2);
    assert_eq!(server.request_count(), 2);
    let retries = retrying(&frames);
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].0, 2);
    assert_eq!(retries[0].1, Duration::ZERO);
    assert!(retries[0].2.contains("429"), "{}", retries[0].2);
}

/// Under paused time: the retry goes out only once tokio's clock has moved
/// past the announced date.
#[tokio::test(start_paused = true)]
async fn retry_after_http_date_is_honoured() {
    let server = TestServer::start(|r| match r.seq {
        0 => {
            let when = chrono::Utc::now() + chrono::Duration::seconds(2);
            Reply::Status {
                code: 503,
                headers: vec![(
                    "Retry-After".into(),
                    when.format("%a, %d %b %Y %H:%M:%S GMT").to_string(),
                )],
                body: String::new(),
            }
        }
        _ => Reply::tool("get_evaluations", "{}"),
    })
    .await
    .expect("server");
    let start = Instant::now();
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(r.expect("completion").attempts, 2);
    let delay = retrying(&frames)[0].1;
    assert!(
        delay > Duration::from_millis(900) && delay <= Duration::from_secs(2),
        "{delay:?}"
    );
    assert!(start.elapsed() >= delay);
}

#[tokio::test]
async fn garbage_retry_after_uses_normal_backoff() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::Status {
            code: 429,
            headers: vec![("retry-after".into(), "soon-ish".into())],
            body: "{}".into(),
        },
        _ => Reply::tool("get_evaluations", "{}"),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(r.expect("completion").attempts, 2);
    let delay = retrying(&frames)[0].1;
    assert!(delay <= Duration::from_millis(2), "{delay:?}");
}

#[tokio::test]
async fn retry_after_beyond_cap_is_a_clear_error() {
    let server = TestServer::start(|_| Reply::Status {
        code: 429,
        headers: vec![("retry-after".into(), "86400".into())],
        body: "{}".into(),
    })
    .await
    .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    assert_eq!(
        r.expect_err("too long"),
        ProviderError::RetryAfterTooLong {
            wait: Duration::from_secs(86400),
            cap: Duration::from_secs(120)
        }
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn server_error_then_success() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::status(500, r#"{"error":{"message":"The server had an error"}}"#),
        _ => Reply::tool("get_evaluations", ARGS),
    })
    .await
    .expect("server");
    for stream in [true, false] {
        let server_seq_before = server.request_count();
        let (r, frames) = run(&client(&server, stream)).await;
        if server_seq_before == 0 {
            let c = r.expect("completion");
            assert_eq!(c.attempts, 2);
            assert_eq!(retrying(&frames).len(), 1);
        } else {
            assert_eq!(r.expect("completion").attempts, 1);
        }
    }
}

#[tokio::test]
async fn insufficient_quota_stops_at_once() {
    let server = TestServer::start(|_| {
        Reply::status(
            429,
            r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
        )
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    let e = r.expect_err("quota");
    assert!(
        matches!(e, ProviderError::InsufficientQuota { .. }),
        "{e:?}"
    );
    assert!(e.is_fatal_for_run());
    assert!(e.to_string().contains("exceeded your current quota"));
    assert_eq!(server.request_count(), 1);
    assert!(retrying(&frames).is_empty());
}

#[tokio::test]
async fn unauthorized_fails_fast_with_key_redacted() {
    let server = TestServer::start(|r: &RecordedRequest| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        let key = auth.trim_start_matches("Bearer ").to_string();
        Reply::status(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {key}. Header was: {auth}"),
                             "type": "invalid_request_error", "code": "invalid_api_key"}})
            .to_string(),
        )
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.api_key = Some(Secret::new("sk-CANARY-123"));
    let client = Client::new(c).expect("client");
    let (r, _) = run(&client).await;
    let e = r.expect_err("401");
    assert_eq!(server.request_count(), 1);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-CANARY-123")
    );
    assert!(
        matches!(e, ProviderError::Rejected { status: 401, .. }),
        "{e:?}"
    );
    let (display, debug) = (e.to_string(), format!("{e:?}"));
    for text in [&display, &debug] {
        assert!(!text.contains("sk-CANARY-123"), "{text}");
        assert!(!text.contains("CANARY"), "{text}");
    }
    assert!(display.contains("Incorrect API key provided"), "{display}");
    assert!(display.contains("<redacted>"), "{display}");
    assert!(!format!("{client:?}").contains("CANARY"));
}

#[tokio::test]
async fn other_client_errors_fail_fast() {
    for code in [400u16, 403, 404, 422] {
        let server = TestServer::start(move |_| {
            Reply::status(
                code,
                format!("plain text \u{1b}[31mproblem\u{7} {}", "x".repeat(2000)),
            )
        })
        .await
        .expect("server");
        let (r, _) = run(&client(&server, true)).await;
        match r.expect_err("fails") {
            ProviderError::Rejected { status, message } => {
                assert_eq!(status, code);
                assert!(message.chars().count() <= 301, "{}", message.len());
                assert!(!message.chars().any(char::is_control), "{message:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(server.request_count(), 1);
    }
}

#[tokio::test]
async fn html_bad_gateway_gives_short_clear_message() {
    let page = format!(
        "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>{}</body></html>",
        "<p>filler</p>".repeat(500)
    );
    let server = TestServer::start(move |_| Reply::status(502, page.clone()))
        .await
        .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(server.request_count(), 4);
    assert_eq!(retrying(&frames).len(), 3);
    match r.expect_err("502") {
        ProviderError::RetriesExhausted { attempts, last } => {
            assert_eq!(attempts, 4);
            assert!(last.contains("502") && last.contains("HTML page"), "{last}");
            assert!(last.contains("Bad Gateway"), "{last}");
            assert!(!last.contains("<p>") && last.len() < 300, "{last}");
        }
        other => panic!("{other:?}"),
    }
}

/// Under paused time: the cancel (100 ms) ends the call before the server's
/// answer (10 s) is written.
#[tokio::test(start_paused = true)]
async fn cancel_during_delay_returns_quickly() {
    let server = TestServer::start(|_| {
        Reply::tool("get_evaluations", "{}").delayed(Duration::from_secs(10))
    })
    .await
    .expect("server");
    let client = client(&server, true);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let (r, _) = run_with(&client, &cancel).await;
    assert_eq!(r, Err(ProviderError::Cancelled));
    assert_eq!(server.request_count(), 1);
    assert!(
        server.answer_times().is_empty(),
        "the call waited for the delayed answer"
    );
}

/// Under paused time: the cancel (200 ms) ends the 30 s Retry-After wait; no
/// second request is sent.
#[tokio::test(start_paused = true)]
async fn cancel_during_backoff_sleep() {
    let server = TestServer::start(|_| Reply::Status {
        code: 503,
        headers: vec![("retry-after".into(), "30".into())],
        body: String::new(),
    })
    .await
    .expect("server");
    let client = client(&server, true);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c2.cancel();
    });
    let (r, frames) = run_with(&client, &cancel).await;
    assert_eq!(r, Err(ProviderError::Cancelled));
    assert_eq!(retrying(&frames).len(), 1);
    assert_eq!(server.request_count(), 1, "the wait was not sat out");
}

/// Under paused time: the 300 ms idle timeout fires on tokio's clock, before
/// the 3 s delayed answer.
#[tokio::test(start_paused = true)]
async fn idle_timeout_and_dropped_connections_are_retried() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::tool("get_evaluations", "{}").delayed(Duration::from_secs(3)),
        1 => Reply::Raw(Vec::new()),
        // Cut inside its first event: no text arrived, so it is retried here.
        2 => Reply::Raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"par".to_vec()),
        _ => Reply::tool("get_evaluations", "{\"ok\":true}"),
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    let client = Client::new(c).expect("client");
    let (r, frames) = run(&client).await;
    let c = r.expect("completion");
    // The connection closed with no answer at all is sent again at once,
    // without spending an attempt (a dead kept-alive connection looks so).
    assert_eq!(server.request_count(), 4);
    assert_eq!(c.attempts, 3, "{:?}", retrying(&frames));
    assert_eq!(retrying(&frames).len(), 2);
    assert_eq!(c.answer_text(), "{\"ok\":true}");
}

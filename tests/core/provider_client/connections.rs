//! Keep-alive connections: an answer is read to the end of its body, so the
//! next request goes out on the same connection. A run with hundreds in
//! flight opened dozens of extra connections a run when each answer was left
//! at its `[DONE]` (and a server capping its connections refused those).

use super::*;

/// The body's terminating chunk comes a moment after `[DONE]` (each write
/// paced): the answer is read to it, and three requests one after another
/// take one connection, not one each.
#[tokio::test]
async fn an_answer_read_to_its_end_leaves_its_connection_for_the_next_request() {
    let server = TestServer::start(|_| {
        Reply::Paced(
            Duration::from_millis(3),
            Box::new(Reply::tool("get_evaluations", ARGS)),
        )
    })
    .await
    .expect("server");
    let client = client(&server, true);
    for _ in 0..3 {
        let (r, _) = run(&client).await;
        let c = r.expect("completion");
        assert_eq!(c.answer_text(), ARGS);
        assert_eq!(c.attempts, 1);
    }
    assert_eq!(server.request_count(), 3);
    assert_eq!(
        server.connection_count(),
        1,
        "each answer's connection should have gone back to the pool"
    );
}

/// A server that sends `[DONE]` and keeps the body open (its end held back
/// 30 s): every answer is still parsed and returned, and the client stops
/// waiting for the body's end — 48 answers take 32 drains (32 held in a
/// row), not 48 (the clock is tokio's, paused: no wall time
/// in the check).
#[tokio::test(start_paused = true)]
async fn a_body_kept_open_after_done_is_left_and_its_answer_kept() {
    let server = TestServer::start(|_| {
        Reply::HeldOpen(
            Duration::from_secs(30),
            Box::new(Reply::tool("get_evaluations", ARGS)),
        )
    })
    .await
    .expect("server");
    let client = client(&server, true);
    let t0 = Instant::now();
    for _ in 0..48 {
        let (r, _) = run(&client).await;
        let c = r.expect("completion");
        assert_eq!(c.answer_text(), ARGS);
        assert_eq!(c.attempts, 1);
    }
    assert_eq!(server.request_count(), 48);
    // On the paused clock only the drains advance time: 32 waits of 50 ms,
    // then the client knows the server holds its bodies.
    let waited = t0.elapsed();
    assert!(
        waited < Duration::from_millis(48 * 50),
        "waited {waited:?} on the paused clock: every answer waited for its body's end"
    );
}

//! A server that sends `[DONE]` and keeps the body open (the end of the
//! body held back ten minutes): `jury run` keeps every answer and finishes.

use crate::common::{self, ServerRt};
use jury::testserver::Reply;
use std::process::Stdio;
use std::time::{Duration, Instant};

#[test]
fn answers_whose_body_stays_open_after_done_are_stored_and_the_run_ends() {
    let ws = common::generated_workspace(4, 3);
    let srv = ServerRt::start(|r| {
        Reply::HeldOpen(
            Duration::from_secs(600),
            Box::new(jury::testserver::demo_judge::reply(r, Duration::ZERO)),
        )
    });
    let mut child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .env("JURY_MODEL", "jury-demo-judge")
        .args(["run", "--mode", "2", "--persona", "tester"])
        .args(["--perspective", "classification"])
        .args(["--batch-size", "1", "--concurrency", "2", "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn jury");
    // A generous deadline for a hang (a run waiting for bodies to end would
    // take 12 × 10 minutes), not a measure of speed.
    let deadline = Instant::now() + Duration::from_secs(240);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("jury run still waiting on bodies left open after [DONE]");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "jury run failed: {status}");
    assert_eq!(srv.completions().len(), 12, "one request per combination");
    let stored = ws.store().verdicts_for_run(1).expect("verdicts");
    assert_eq!(stored.len(), 12, "every answer parsed and stored");
}

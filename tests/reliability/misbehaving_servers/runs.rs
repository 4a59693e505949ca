//! Runs that say what happened: a huge item sent cut, a salvaged failure, a
//! held write lock, and ids named twice.

use super::*;

/// An item longer than the cap is sent cut, with a visible mark —
/// never megabytes to the judge; `jury prompt` shows the same.
#[test]
fn a_huge_item_is_sent_cut_with_a_mark() {
    let ws = Workspace::new();
    let mut item = common::item_json(0, 1);
    item["summary"] = json!("word ".repeat(400_000)); // 2 MB
    let items = ws.write("items.jsonl", format!("{item}\n"));
    let meta = ws.write(
        "meta.json",
        json!([common::persona_json(), common::perspective_json()]).to_string(),
    );
    ws.ok(&["import", meta.to_str().unwrap(), items.to_str().unwrap()]);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&[]));
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    let reqs = srv.completions();
    assert_eq!(reqs.len(), 1);
    let body = reqs[0].body.to_string();
    assert!(body.len() < 200_000, "{} bytes sent", body.len());
    assert!(body.contains("more were left out"), "no mark");
    let shown = ws.ok(&[
        "prompt",
        "--mode",
        "2",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--item",
        "g-000000",
    ]);
    assert!(shown.contains("more were left out") && shown.len() < 400_000);
}

/// A run whose every combination got its verdict after a
/// failure on the way exits 0 and prints the failure count.
#[test]
fn all_verdicts_after_a_salvaged_failure_exit_0_and_say_so() {
    let ws = generated_workspace(2, 2);
    let srv = ServerRt::start(|r| {
        if r.seq == 0 {
            cut(r, 0.6)
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    });
    let out = ws.run_with(&srv.url(), &run_args(&["--concurrency", "1"]));
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("4/4 verdicts") && all.contains("1 failure record(s)"),
        "{all}"
    );
    assert!(all.contains("jury failures 1"), "{all}");
}

/// Another process holds the store's write lock past the busy timeout while
/// answers arrive (a long `jury import`, a writer holding its lock): the
/// run's writer waits for the lock, says it is waiting, and keeps every
/// verdict; the run ends done, not "store refused a write".
#[test]
fn a_held_write_lock_is_waited_out_and_no_verdict_is_dropped() {
    use std::sync::atomic::AtomicBool;
    let (_dir, db) = store_with(6, 2);
    // The judge answers only once the lock is held, so every answer meets it.
    let held = Arc::new(AtomicBool::new(false));
    let gate = held.clone();
    let srv = ServerRt::start(move |r| {
        for _ in 0..6000 {
            if gate.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        demo_judge::reply(r, Duration::ZERO)
    });
    let cfg = config(&db, srv.url());
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (outcome, waited) = rt.block_on(async {
        let mut h = jury::engine::spawn_run(cfg, request(Mode::Two, 2, 4));
        let mut lock: Option<rusqlite::Connection> = None;
        let mut waited = false;
        while let Some(e) = h.events.recv().await {
            match e {
                jury::engine::EngineEvent::RunStarted { .. } => {
                    let conn = rusqlite::Connection::open(&db).expect("open");
                    conn.execute_batch("BEGIN IMMEDIATE")
                        .expect("take the lock");
                    lock = Some(conn);
                    held.store(true, Ordering::SeqCst);
                }
                jury::engine::EngineEvent::StoreWaiting { .. } => {
                    waited = true;
                    if let Some(conn) = lock.take() {
                        conn.execute_batch("COMMIT").expect("release the lock");
                    }
                }
                _ => {}
            }
        }
        let outcome = h.join.await.expect("join").expect("run");
        (outcome, waited)
    });
    assert!(waited, "the writer never said it was waiting for the lock");
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    assert_eq!(outcome.progress.verdicts, 12);
    let store = Store::open(&db).unwrap();
    assert_eq!(store.verdicts_for_run(outcome.run_id).unwrap().len(), 12);
    let run = store.run(outcome.run_id).unwrap().unwrap();
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!(run.requests, 6, "every request's usage was kept too");
}

// ---- duplicate ids ------------------------------------------------------------------

/// An item or a perspective named twice is one combination: it is asked for
/// once, the run ends complete (exit 0), the repeat is named, and a resumed
/// run finds nothing left (was: sent twice, "5 without a verdict", exit 2).
#[test]
fn an_id_named_twice_in_the_flags_is_judged_once_and_said() {
    let ws = generated_workspace(3, 2);
    let srv = ServerRt::demo();
    let out = ws.run_with(
        &srv.url(),
        &run_args(&[
            "--items",
            "g-000001,g-000000,g-000001",
            "--perspective",
            "classification",
        ]),
    );
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("--items names g-000001 twice"), "{all}");
    assert!(
        all.contains("--perspective names classification twice"),
        "{all}"
    );
    let asked: Vec<_> = srv.completions().iter().flat_map(asked_keys).collect();
    let unique: HashSet<_> = asked.iter().cloned().collect();
    assert_eq!(asked.len(), 4, "{asked:?}");
    assert_eq!(unique.len(), 4, "{asked:?}");
    let verdicts = ws
        .export_rows()
        .iter()
        .filter(|r| r["kind"] == "verdict")
        .count();
    assert_eq!(verdicts, 4);
    let again = ws.run_with(
        &srv.url(),
        &run_args(&["--items", "g-000001,g-000000", "--resume"]),
    );
    assert_eq!(again.status.code(), Some(0), "{}", out_text(&again));
    assert_eq!(srv.completions().len(), 1, "nothing left to ask");
}

/// Whatever built the request (the workbench, a claims file), a plan never
/// holds one combination twice: it is sent once, first place kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_naming_a_combination_twice_sends_it_once() {
    let (_dir, db) = store_with(3, 2);
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .unwrap();
    let mut req = jury::engine::RunRequest::new(
        Mode::Two,
        "tester",
        vec!["classification".into(), "classification".into()],
    );
    req.item_ids = Some(vec![
        "g-000002".into(),
        "g-000000".into(),
        "g-000002".into(),
    ]);
    req.batch_size = 10;
    let (outcome, _) = run(config(&db, server.base_url()), req).await;
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    assert_eq!(outcome.progress.total, 4, "{:?}", outcome.progress);
    assert_eq!(outcome.progress.verdicts, 4, "{:?}", outcome.progress);
    assert_eq!(outcome.progress.failed, 0);
    let asked: Vec<_> = server.requests().iter().flat_map(asked_keys).collect();
    assert_eq!(asked.len(), 4, "{asked:?}");
    assert_eq!(
        asked[0].item_id, "g-000002",
        "first appearance keeps its place"
    );
}

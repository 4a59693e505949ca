//! The executor against a real store and a real (local) judge server.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::effects::{EngineLink, Executor};
use jury::tui::msg::{AgreementPart, Msg};
use std::time::Duration;

fn store_with_items(path: &std::path::Path) {
    let mut s = jury::store::Store::open(path).unwrap();
    let d = loaded();
    s.upsert_all(&d.items, &d.personas, &d.perspectives, &[])
        .unwrap();
}

pub(crate) async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>) -> Msg {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a message in time")
        .expect("channel open")
}

#[tokio::test]
async fn labels_are_durable_before_shown_saved() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    store_with_items(&db);
    let (mut exec, mut rx) = executor(&db);
    let mut app = app();
    for fx in key(&mut app, '4') {
        exec.run(fx);
    }
    let msg = next(&mut rx).await;
    assert!(
        matches!(msg, Msg::LabelSaved { result: Ok(()), .. }),
        "{msg:?}"
    );
    // Already on disk when the answer arrives.
    let s = jury::store::Store::open(&db).unwrap();
    let labels = s.labels_for_item("k-001").unwrap();
    assert_eq!(labels.len(), 1);
    assert_eq!(labels[0].value, Value::Likert(4));
    update(&mut app, msg);
    assert!(screen(&app).contains("✓saved"));
}

#[tokio::test]
async fn a_store_that_cannot_be_opened_leaves_the_label_unsaved() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the database file should be: opening fails.
    let db = dir.path().join("not-a-file");
    std::fs::create_dir(&db).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut exec = Executor::new(db, EngineLink { config: None }, tx);
    let mut app = app();
    for fx in key(&mut app, '1') {
        exec.run(fx);
    }
    let msg = next(&mut rx).await;
    assert!(
        matches!(msg, Msg::LabelSaved { result: Err(_), .. }),
        "{msg:?}"
    );
    update(&mut app, msg);
    assert_eq!(app.unsaved_count(), 1);
    assert!(screen(&app).contains("UNSAVED"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judging_streams_from_a_real_server_into_the_verdict_pane() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    store_with_items(&db);
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(0))
    })
    .await
    .unwrap();
    let provider =
        jury::provider::ProviderConfig::new(server.base_url(), "jury-demo-judge".to_string());
    let cfg = jury::engine::EngineConfig {
        db_path: db.clone(),
        provider,
        prompts: std::sync::Arc::new(jury::prompt::PromptSet::embedded()),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut exec = Executor::new(db.clone(), EngineLink { config: Some(cfg) }, tx);
    let mut app = app();
    for fx in code(&mut app, crossterm::event::KeyCode::Enter) {
        exec.run(fx);
    }
    let mut deltas = 0;
    loop {
        let msg = next(&mut rx).await;
        if let Msg::Engine {
            event: jury::engine::EngineEvent::TextDelta { .. },
            ..
        } = &msg
        {
            deltas += 1;
        }
        let ended = matches!(msg, Msg::RunEnded { .. });
        for fx in update(&mut app, msg) {
            exec.run(fx);
        }
        if ended {
            break;
        }
    }
    // The engine sends TextDelta at most every 30 ms; this server answers in a
    // few ms, so deltas may be 0 here (streamed text is covered by tui_screens).
    eprintln!("text deltas seen: {deltas}");
    let s = screen(&app);
    assert!(!app.running());
    let k = ComboKey::new("k-001", "urgency", "classification");
    assert!(app.verdict(&k, "kenton", Mode::Two).is_some(), "{s}");
    assert!(s.contains("J "), "{s}");
    assert!(
        app.chrome
            .message
            .as_ref()
            .is_some_and(|m| m.1.contains("done")),
        "{:?}",
        app.chrome.message
    );
}

/// docs/reliability.md row 18: another process holds the write lock → the writer
/// waits (busy timeout), then the label shows unsaved and stays pending; a
/// retry after the lock is released saves it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_leaves_the_label_unsaved_until_retried() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    store_with_items(&db);
    let locker = rusqlite::Connection::open(&db).unwrap();
    locker
        .execute_batch("BEGIN IMMEDIATE; UPDATE items SET title = title WHERE id = 'k-001';")
        .unwrap();
    let (mut exec, mut rx) = executor(&db);
    let mut app = app();
    for fx in key(&mut app, '3') {
        exec.run(fx);
    }
    assert!(screen(&app).contains("…saving"));
    let msg = next(&mut rx).await;
    assert!(
        matches!(&msg, Msg::LabelSaved { result: Err(e), .. } if e.contains("busy") || e.contains("locked")),
        "{msg:?}"
    );
    update(&mut app, msg);
    let s = screen(&app);
    assert!(s.contains("UNSAVED") && s.contains("NOT saved"), "{s}");
    locker.execute_batch("COMMIT").unwrap();
    for fx in key(&mut app, 's') {
        exec.run(fx);
    }
    let msg = next(&mut rx).await;
    assert!(
        matches!(msg, Msg::LabelSaved { result: Ok(()), .. }),
        "{msg:?}"
    );
    update(&mut app, msg);
    assert_eq!(app.unsaved_count(), 0);
    assert!(screen(&app).contains("✓saved"));
    assert_eq!(
        jury::store::Store::open(&db)
            .unwrap()
            .labels_for_item("k-001")
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn the_agreement_effect_sends_the_figures_then_the_consistency_notes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    {
        let mut s = jury::store::Store::open(&db).unwrap();
        jury::import::import_sample(&mut s, "me").unwrap();
        // Two runs of one mode 1 judge with k-001 and k-002 in swapped places.
        let spec = kenton_spec(Mode::One, "demo");
        for order in [["k-001", "k-002"], ["k-002", "k-001"]] {
            let run = s.create_run(&spec, 0).unwrap();
            let mut vs = Vec::new();
            for (index, item) in order.iter().enumerate() {
                let mut v = verdict(run, item, "urgency", Mode::One, Value::Likert(4), "t");
                v.model = "demo".into();
                v.position = Some(RequestPosition {
                    index: index as u32,
                    items: 2,
                });
                vs.push(v);
            }
            s.insert_verdicts(&vs).unwrap();
        }
    }
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut exec = Executor::new(db, EngineLink { config: None }, tx);
    let mut app = app();
    app.chrome.size = (170, 44);
    for fx in key(&mut app, 'A') {
        exec.run(fx);
    }
    let first = next(&mut rx).await;
    assert!(
        matches!(
            first,
            Msg::Agreement {
                part: AgreementPart::Figures(Ok(_)),
                ..
            }
        ),
        "{first:?}"
    );
    update(&mut app, first);
    let notes = next(&mut rx).await;
    let Msg::Agreement {
        part: AgreementPart::Notes(lines),
        ..
    } = &notes
    else {
        panic!("expected the notes, got {notes:?}")
    };
    assert!(
        lines.iter().any(|l| l.starts_with("position bias")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("self-consistency")),
        "{lines:?}"
    );
    update(&mut app, notes);
    let s = screen(&app);
    assert!(
        s.contains("position bias") && s.contains("mode 1 · demo"),
        "{s}"
    );
}

/// Labels queued behind one the lock refused wait briefly, not the full busy
/// timeout each: the quit prompt is not kept waiting a timeout per label.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn labels_queued_behind_a_busy_one_wait_briefly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    store_with_items(&db);
    let locker = rusqlite::Connection::open(&db).unwrap();
    locker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (mut exec, mut rx) = executor(&db);
    let mut app = app();
    // Three labels handed over at once (three rows of two items).
    let mut fx = key(&mut app, '1');
    fx.extend(key(&mut app, ']'));
    fx.extend(key(&mut app, '2'));
    fx.extend(code(&mut app, crossterm::event::KeyCode::Down));
    fx.extend(key(&mut app, '3'));
    assert_eq!(fx.len(), 3, "{fx:?}");
    for f in fx {
        exec.run(f);
    }
    let mut errors = Vec::new();
    for _ in 0..3 {
        match next(&mut rx).await {
            Msg::LabelSaved { result: Err(e), .. } => errors.push(e),
            other => panic!("expected a busy answer, got {other:?}"),
        }
    }
    assert!(errors[0].contains("waited 5000 ms"), "{errors:?}");
    assert!(
        errors[1..].iter().all(|e| e.contains("waited 200 ms")),
        "{errors:?}"
    );
    // Once the lock is gone the next label saves.
    locker.execute_batch("COMMIT").unwrap();
    for f in key(&mut app, '4') {
        exec.run(f);
    }
    assert!(matches!(
        next(&mut rx).await,
        Msg::LabelSaved { result: Ok(()), .. }
    ));
}

/// An executor on the store at `db` with no endpoint, and its answers.
pub(crate) fn executor(
    db: &std::path::Path,
) -> (Executor, tokio::sync::mpsc::UnboundedReceiver<Msg>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let exec = Executor::new(db.to_path_buf(), EngineLink { config: None }, tx);
    (exec, rx)
}

/// A note edited in the workbench saves the note alone: a value another
/// process gave the label since (`jury label` from a shell) is not put back
/// to the one the workbench still shows.
#[tokio::test]
async fn a_note_edit_keeps_a_value_changed_since_by_another_process() {
    use crossterm::event::KeyCode;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    store_with_items(&db);
    let (mut exec, mut rx) = executor(&db);
    let mut app = app();
    for fx in key(&mut app, '2') {
        exec.run(fx);
    }
    let msg = next(&mut rx).await;
    update(&mut app, msg);
    // Another process changes the same label.
    let mut other = jury::store::Store::open(&db).unwrap();
    let mut newer = other.labels_for_item("k-001").unwrap().remove(0);
    newer.value = Value::Likert(5);
    newer.created_at = "2099-01-01T00:00:00.000Z".into();
    other.upsert_label(&newer).unwrap();
    drop(other);
    key(&mut app, 'n');
    update(&mut app, Msg::Paste("checked with the sender".into()));
    for fx in code(&mut app, KeyCode::Enter) {
        exec.run(fx);
    }
    let msg = next(&mut rx).await;
    assert!(
        matches!(msg, Msg::LabelSaved { result: Ok(()), .. }),
        "{msg:?}"
    );
    let s = jury::store::Store::open(&db).unwrap();
    let labels = s.labels_for_item("k-001").unwrap();
    assert_eq!(labels.len(), 1);
    assert_eq!(labels[0].value, Value::Likert(5), "the newer value stays");
    assert_eq!(labels[0].note, "checked with the sender");
}

/// The random `sample` order: labels given in it are recorded as sampled
/// (with the order's seed), `jury export` says so per label, and `jury
/// estimate` counts them apart from labels a person chose.
#[tokio::test]
async fn labels_given_in_the_sample_order_are_recorded_as_sampled() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    store_with_items(&db);
    let (mut exec, mut rx) = executor(&db);
    let mut app = app();
    // A label in file order: chosen by a person.
    let chosen = app.data.items[app.list.current_index().unwrap()]
        .id
        .to_string();
    for fx in key(&mut app, '2') {
        exec.run(fx);
    }
    assert!(matches!(
        next(&mut rx).await,
        Msg::LabelSaved { result: Ok(()), .. }
    ));
    // `o` until the sample order.
    for _ in 0..8 {
        if app.list.order == jury::tui::app::queue::Order::Sample {
            break;
        }
        key(&mut app, 'o');
    }
    assert_eq!(app.list.order, jury::tui::app::queue::Order::Sample);
    assert!(screen(&app).contains("random sample"), "{}", screen(&app));
    let current = |app: &jury::tui::app::App| {
        app.data.items[app.list.current_index().unwrap()]
            .id
            .to_string()
    };
    if current(&app) == chosen {
        key(&mut app, 'j');
    }
    let item = current(&app);
    assert_ne!(item, chosen);
    let fx = key(&mut app, '4');
    assert!(
        fx.iter().any(|f| matches!(
            f,
            jury::tui::msg::Effect::MarkSampled {
                how: jury::store::Selected::Sample(1),
                ..
            }
        )),
        "{fx:?}"
    );
    for f in fx {
        exec.run(f);
    }
    assert!(matches!(
        next(&mut rx).await,
        Msg::LabelSaved { result: Ok(()), .. }
    ));
    let s = jury::store::Store::open(&db).unwrap();
    let sampled = s.sampled_labels().unwrap();
    assert_eq!(sampled.len(), 1, "{sampled:?}");
    let ((key, _, _), seed) = sampled.iter().next().unwrap();
    assert_eq!((key.item_id.as_str(), *seed), (item.as_str(), Some(1)));
    // The export says which label was sampled.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
        .args(["--db", db.to_str().unwrap(), "export", "--format", "jsonl"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r["kind"] == "label")
        .collect();
    assert_eq!(rows.len(), 2);
    for r in &rows {
        let was = r["item_id"] == item.as_str();
        assert_eq!(r["sampled"], was, "{r}");
        assert_eq!(r["sample_seed"].as_u64(), was.then_some(1), "{r}");
    }
}

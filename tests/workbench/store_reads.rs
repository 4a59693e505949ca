//! The effect runner's store work (runs, a row's history, the escalation
//! queue, the split for `L`, a persona saved) through the real executor and
//! a real store: each answers with what the store holds, and a store that
//! cannot be opened answers each with its error instead of leaving the
//! workbench waiting.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::effects::{EngineLink, Executor};
use jury::tui::msg::{Effect, Msg};
use std::time::Duration;

/// The executor's answer to `fx`.
async fn ask(
    exec: &mut Executor,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    fx: Effect,
) -> Msg {
    exec.run(fx);
    tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .expect("an answer within a minute")
        .expect("the channel is open")
}

fn executor(db: std::path::PathBuf) -> (Executor, tokio::sync::mpsc::UnboundedReceiver<Msg>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    (Executor::new(db, EngineLink { config: None }, tx), rx)
}

fn persona() -> Persona {
    Persona {
        id: "maren".into(),
        name: "Maren, buyer".into(),
        definition: serde_json::json!({"type": "professional"}),
    }
}

#[tokio::test]
async fn each_store_read_answers_with_what_the_store_holds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    let mut store = judged_sample(&db);
    store
        .make_split(SplitRule::new(0.5, 1).unwrap(), "tester", false)
        .unwrap();
    let labelled = store.labels_for_item("k-001").unwrap()[0].key.clone();
    let (mut exec, mut rx) = executor(db.clone());

    let Msg::RunsLoaded(Ok((runs, failures))) = ask(&mut exec, &mut rx, Effect::LoadRuns).await
    else {
        panic!("no runs")
    };
    assert_eq!(runs.len(), 1, "the fixture's run");
    assert!(failures.is_empty());

    let msg = ask(
        &mut exec,
        &mut rx,
        Effect::LoadLabelHistory(labelled.clone()),
    )
    .await;
    let Msg::LabelHistory {
        key,
        result: Ok(events),
        ..
    } = msg
    else {
        panic!("no history: {msg:?}")
    };
    assert_eq!(key, labelled);
    assert!(!events.is_empty(), "the sample's label on {key:?}");

    let msg = ask(&mut exec, &mut rx, Effect::LoadEscalations).await;
    assert!(matches!(msg, Msg::EscalationsLoaded(Ok(_))), "{msg:?}");

    let msg = ask(&mut exec, &mut rx, Effect::LoadSplitForLoop).await;
    assert!(matches!(msg, Msg::SplitForLoop(Ok(Some(_)))), "{msg:?}");

    let msg = ask(&mut exec, &mut rx, Effect::SavePersona(persona())).await;
    let Msg::PersonaSaved(Ok(saved)) = msg else {
        panic!("not saved: {msg:?}")
    };
    assert_eq!(saved, persona());
    let held = jury::store::Store::open(&db).unwrap().personas().unwrap();
    assert!(held.iter().any(|p| p.id == "maren"), "{held:?}");
}

#[tokio::test]
async fn a_store_that_cannot_be_opened_answers_each_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the store should be: no store opens there.
    let (mut exec, mut rx) = executor(dir.path().to_path_buf());
    let key = ComboKey::new("k-001", "urgency", "classification");
    for fx in [
        Effect::LoadRuns,
        Effect::LoadLabelHistory(key),
        Effect::LoadEscalations,
        Effect::LoadSplitForLoop,
        Effect::SavePersona(persona()),
    ] {
        let asked = format!("{fx:?}");
        let msg = ask(&mut exec, &mut rx, fx).await;
        let failed = match &msg {
            Msg::RunsLoaded(r) => r.is_err(),
            Msg::LabelHistory { result, marks, .. } => result.is_err() && marks.is_empty(),
            Msg::EscalationsLoaded(r) => r.is_err(),
            Msg::SplitForLoop(r) => r.is_err(),
            Msg::PersonaSaved(r) => r.is_err(),
            _ => false,
        };
        assert!(failed, "{asked} answered {msg:?}");
    }
}

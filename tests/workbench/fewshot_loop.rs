//! The few-shot loop in the workbench: `L` builds the few-shot set from
//! `train` labels beside the store, confirms its run on the held-out `test`
//! items (saying how many requests), runs it with resume semantics and opens
//! the agreement view on `test` with the change it made (or says the change
//! needs a baseline run and offers it).
#![cfg(feature = "tui")]

use crate::tui_common;
use crossterm::event::KeyCode;
use jury::analytics::{CiMethod, Figure};
use jury::domain::*;
use jury::report::paired::PairedDelta;
use jury::report::prompt_change::PromptChange;
use jury::tui::app::{App, LoopReady, LoopStage, Popup, RunPlan, View};
use jury::tui::effects::{EngineLink, Executor};
use jury::tui::msg::{AgreementPart, Effect, Msg};
use std::path::PathBuf;
use std::time::Duration;
use tui_common::*;

mod end_to_end;
mod owner;
mod update;

fn label(item: &str, cls: &str, value: Value) -> Label {
    Label {
        key: ComboKey::new(item, cls, "classification"),
        persona_id: "kenton".into(),
        value,
        note: String::new(),
        who: "tester".into(),
        created_at: "2026-11-24T00:00:00Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

/// Runs effects and feeds their answers back until `done` says stop.
async fn drive(
    app: &mut App,
    exec: &mut Executor,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    fx: Vec<Effect>,
    done: impl Fn(&App, &Msg) -> bool,
) {
    for f in fx {
        exec.run(f);
    }
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .expect("a message in time")
            .expect("channel open");
        let stop = done(app, &msg);
        for f in update(app, msg) {
            exec.run(f);
        }
        if stop {
            return;
        }
    }
}

fn confirm(app: &App) -> LoopReady {
    match &app.chrome.popup {
        Some(Popup::ConfirmLoop(r)) => (**r).clone(),
        _ => panic!("expected the confirm step; {:?}", app.chrome.message),
    }
}

struct Bench {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    db: PathBuf,
    app: App,
    exec: Executor,
    rx: tokio::sync::mpsc::UnboundedReceiver<Msg>,
    _server: jury::testserver::TestServer,
}

async fn bench_on(
    fill: fn(&std::path::Path) -> Vec<Item>,
    responder: impl Fn(&jury::testserver::RecordedRequest) -> jury::testserver::Reply
    + Send
    + Sync
    + 'static,
) -> Bench {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let db = dir.join("j.db");
    fill(&db);
    let server = jury::testserver::TestServer::start(responder)
        .await
        .unwrap();
    let cfg = jury::engine::EngineConfig {
        db_path: db.clone(),
        provider: jury::provider::ProviderConfig::new(
            server.base_url(),
            "jury-demo-judge".to_string(),
        ),
        prompts: std::sync::Arc::new(jury::prompt::PromptSet::embedded()),
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let exec = Executor::new(db.clone(), EngineLink { config: Some(cfg) }, tx);
    let loaded = jury::tui::load(&jury::store::Store::open(&db).unwrap()).unwrap();
    let mut app = app_with(loaded);
    app.chrome.size = (160, 44);
    app.choices.mode = Mode::Two;
    Bench {
        _dir: tmp,
        dir,
        db,
        app,
        exec,
        rx,
        _server: server,
    }
}

impl Bench {
    async fn press(&mut self, c: char, done: impl Fn(&App, &Msg) -> bool) {
        let fx = key(&mut self.app, c);
        drive(&mut self.app, &mut self.exec, &mut self.rx, fx, done).await;
    }
}

fn is_ready(_: &App, m: &Msg) -> bool {
    matches!(m, Msg::LoopReady(_))
}

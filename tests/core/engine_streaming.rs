//! Streaming: every verdict's text is shown as it arrives — at least one
//! `TextDelta` per verdict, before the verdict, ending with its final text —
//! even when the whole answer arrives faster than the 30 ms re-parse window.

use crate::common;

use jury::domain::{ComboKey, Mode, RunStatus};
use jury::engine::{EngineConfig, EngineEvent, RunRequest, spawn_run};
use jury::prompt::PromptSet;
use jury::provider::ProviderConfig;
use jury::store::Store;
use jury::testserver::{TestServer, demo_judge};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_verdict_text_streams_before_the_verdict_even_for_instant_answers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("jury.db");
    let items = dir.path().join("items.jsonl");
    std::fs::write(&items, common::items_jsonl(6, 2)).unwrap();
    let meta = dir.path().join("meta.json");
    std::fs::write(
        &meta,
        json!([common::persona_json(), common::perspective_json()]).to_string(),
    )
    .unwrap();
    let mut store = Store::open(&db).unwrap();
    jury::import::import_paths(&mut store, &[meta, items], false, "t").unwrap();
    drop(store);
    // The demo judge's answer, streamed in 9-character fragments with no delay.
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO).reshaped(9, |a| a))
        .await
        .unwrap();
    let cfg = EngineConfig {
        db_path: db.clone(),
        provider: ProviderConfig::new(server.base_url(), "test-model"),
        prompts: Arc::new(PromptSet::embedded()),
    };
    let mut req = RunRequest::new(Mode::Two, "tester", vec!["classification".into()]);
    req.batch_size = 4;
    let mut h = spawn_run(cfg, req);
    let mut last_text: HashMap<ComboKey, String> = HashMap::new();
    let mut verdicts = 0;
    while let Some(e) = h.events.recv().await {
        match e {
            EngineEvent::TextDelta { key, text, .. } => {
                last_text.insert(key, text);
            }
            EngineEvent::Verdict { verdict, .. } => {
                verdicts += 1;
                let streamed = last_text.get(&verdict.key).unwrap_or_else(|| {
                    panic!("verdict {:?} arrived without streamed text", verdict.key)
                });
                assert_eq!(streamed, &verdict.text, "{:?}", verdict.key);
            }
            _ => {}
        }
    }
    let outcome = h.join.await.unwrap().unwrap();
    assert_eq!(outcome.status, RunStatus::Done);
    assert_eq!(verdicts, 12);
}

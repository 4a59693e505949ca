//! Soak: the engine against the in-process test server for a long time, at
//! concurrency 64, with about 10 % of answers faulty (429 with Retry-After,
//! 500, malformed arguments, a truncated stream, an error event after 200).
//!
//! `SOAK_MINUTES=30 cargo bench --bench soak` (default: until
//! `SOAK_REQUESTS`, 50 000, requests were served). Every 5 s it prints the
//! elapsed time, requests served, resident memory and open file descriptors;
//! after each run it checks that every combination ended as exactly one
//! verdict or as a recorded failure — nothing lost, nothing twice. At the
//! end: min/median/max RSS, first vs last RSS, descriptors at start and end.
//! Not part of `cargo test`.

#[path = "common/mod.rs"]
mod common;

use jury::domain::{ComboKey, Mode, RunStatus};
use jury::engine::{EngineConfig, RunRequest, spawn_run};
use jury::prompt::PromptSet;
use jury::provider::ProviderConfig;
use jury::store::Store;
use jury::testserver::{RecordedRequest, Reply, TestServer, demo_judge};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ITEMS: usize = 2_000;
const CONCURRENCY: usize = 64;

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

/// About one answer in ten is a fault, cycling through five kinds.
fn faulty(r: &RecordedRequest) -> Reply {
    if r.seq % 10 != 7 {
        return demo_judge::reply(r, Duration::ZERO);
    }
    match (r.seq / 10) % 5 {
        0 => Reply::Status {
            code: 429,
            headers: vec![("retry-after".into(), "0".into())],
            body: r#"{"error":{"message":"slow down","type":"rate_limit_exceeded"}}"#.into(),
        },
        1 => Reply::Status {
            code: 500,
            headers: vec![],
            body: r#"{"error":{"message":"upstream hiccup"}}"#.into(),
        },
        2 => Reply::ToolCall {
            name: "get_evaluations".into(),
            arguments: r#"{"resultItems": [{"id": "#.into(),
            chunk: 7,
            finish: None,
            usage: None,
        },
        3 => match demo_judge::reply(r, Duration::ZERO) {
            Reply::ToolCall { arguments, .. } => Reply::Truncated {
                cut_at: arguments.len() / 2,
                arguments,
            },
            other => other,
        },
        _ => Reply::ErrorEvent {
            message: "the model is overloaded".into(),
        },
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let minutes: Option<f64> = std::env::var("SOAK_MINUTES")
        .ok()
        .and_then(|v| v.parse().ok());
    let max_requests: usize = std::env::var("SOAK_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let items = dir.path().join("items.jsonl");
    common::write_items(&items, ITEMS);
    let meta = common::write_meta(dir.path());
    let db = dir.path().join("soak.db");
    let mut store = Store::open(&db).expect("store");
    jury::import::import_paths(&mut store, &[meta, items], false, "soak").expect("import");
    drop(store);
    let server = TestServer::start(faulty).await.expect("server");
    let mut provider = ProviderConfig::new(server.base_url(), "soak-model");
    provider.backoff_base = Duration::from_millis(5);
    provider.backoff_cap = Duration::from_millis(50);
    let cfg = EngineConfig {
        db_path: db.clone(),
        provider,
        prompts: Arc::new(PromptSet::embedded()),
    };
    let start = Instant::now();
    let (rss0, fd0) = (rss_kib(), fds());
    let mut samples: Vec<u64> = vec![rss0];
    let mut last_print = Instant::now();
    let mut runs = 0usize;
    println!(
        "soak: concurrency {CONCURRENCY}, {ITEMS} items × 3 classifications per run, batch 1; RSS {} MB, {fd0} fds",
        rss0 / 1024
    );
    loop {
        let done = match minutes {
            Some(m) => start.elapsed().as_secs_f64() >= m * 60.0,
            None => server.request_count() >= max_requests,
        };
        if done {
            break;
        }
        let mut req = RunRequest::new(Mode::Two, "bench", vec!["classification".into()]);
        req.batch_size = 1;
        req.concurrency = CONCURRENCY;
        let mut h = spawn_run(cfg.clone(), req);
        let sampler = async {
            while h.events.recv().await.is_some() {
                if last_print.elapsed() >= Duration::from_secs(5) {
                    server.forget_requests();
                    last_print = Instant::now();
                    let r = rss_kib();
                    samples.push(r);
                    println!(
                        "{:>7.1} s  {:>7} requests  RSS {:>6.1} MB  {:>4} fds",
                        start.elapsed().as_secs_f64(),
                        server.request_count(),
                        r as f64 / 1024.0,
                        fds()
                    );
                }
            }
        };
        sampler.await;
        let outcome = h
            .join
            .await
            .expect("run panicked")
            .expect("run failed to start");
        assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
        // Nothing lost, nothing twice: each combination is one verdict or a failure.
        let store = Store::open(&db).expect("store");
        let verdicts = store.verdicts_for_run(outcome.run_id).expect("verdicts");
        let keys: HashSet<ComboKey> = verdicts.iter().map(|v| v.key.clone()).collect();
        assert_eq!(keys.len(), verdicts.len(), "a combination got two verdicts");
        let failed: HashSet<ComboKey> = store
            .failures(Some(outcome.run_id))
            .expect("failures")
            .into_iter()
            .flat_map(|f| f.keys)
            .filter(|k| !keys.contains(k))
            .collect();
        assert_eq!(
            (keys.len() + failed.len()) as u64,
            outcome.progress.total,
            "run {}: {} verdicts + {} failed ≠ {}",
            outcome.run_id,
            keys.len(),
            failed.len(),
            outcome.progress.total
        );
        runs += 1;
        server.forget_requests();
    }
    let (rss1, fd1) = (rss_kib(), fds());
    samples.push(rss1);
    let mut sorted = samples.clone();
    sorted.sort();
    println!(
        "soak done: {:.1} min, {runs} runs, {} requests; RSS min {:.1} / median {:.1} / max {:.1} MB, first {:.1} → last {:.1} MB; fds {fd0} → {fd1}; every combination a verdict or a recorded failure",
        start.elapsed().as_secs_f64() / 60.0,
        server.request_count(),
        sorted[0] as f64 / 1024.0,
        sorted[sorted.len() / 2] as f64 / 1024.0,
        sorted[sorted.len() - 1] as f64 / 1024.0,
        samples[1.min(samples.len() - 1)] as f64 / 1024.0,
        rss1 as f64 / 1024.0
    );
}

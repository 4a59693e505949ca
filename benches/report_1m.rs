//! `jury report` over a store holding 1 000 000 verdicts and 100 000 labels.
//!
//! `cargo bench --bench report_1m` builds the store once (cached as
//! `target/report_1m-v3.db`; delete it to rebuild), then times the release
//! `jury report --format json` five times and prints the median wall time,
//! the peak RSS and the ratio to the 2 s target; then `jury estimate` and
//! `jury trust` the same way (their target is 2 s too). Measured 2026-11-23 on the
//! 2-core machine: median 1.52–1.68 s, ratio 0.76–0.84, 327–329 MB (15.0 G instructions
//! under callgrind before the last round of fixes). History: 32 s / 2.6 GB
//! (strings per pair) → 5.6 s / 293 MB (slim rows, interned ids) → 1.68 s
//! (matrix bootstrap, two reader connections, comparisons and groups over
//! both cores, rowid min/max, double checks read through the run index).
//! `JURY_DEBUG=1` makes `jury report` print its stage timings.
//!
//! The store: 50 000 items × 2 classifications = 100 000 combinations, each
//! judged by ten runs (modes 1/2/3 of two models, a second persona, an edited
//! prompt set, two repeats): every comparison the report makes has large
//! groups. alice labels 60 000 combinations, bob 40 000 (20 000 shared).

#[path = "common/mod.rs"]
mod common;
#[cfg(feature = "postgres")]
#[path = "report_1m/on_postgres.rs"]
mod on_postgres;

use jury::domain::*;
use jury::store::Store;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

const ITEMS: usize = 50_000;
const CLASSES: [&str; 2] = ["urgency", "work-pers"];
const RUNS: usize = 5;

struct RunDef {
    mode: Mode,
    model: &'static str,
    persona: &'static str,
    prompt_hash: &'static str,
}

const DEFS: [RunDef; 10] = [
    RunDef {
        mode: Mode::One,
        model: "model-a",
        persona: "p1",
        prompt_hash: "h1",
    },
    RunDef {
        mode: Mode::Two,
        model: "model-a",
        persona: "p1",
        prompt_hash: "h1",
    },
    RunDef {
        mode: Mode::Three,
        model: "model-a",
        persona: "p1",
        prompt_hash: "h1",
    },
    RunDef {
        mode: Mode::Two,
        model: "model-b",
        persona: "p1",
        prompt_hash: "h1",
    },
    RunDef {
        mode: Mode::Two,
        model: "model-a",
        persona: "p2",
        prompt_hash: "h1",
    },
    RunDef {
        mode: Mode::Two,
        model: "model-a",
        persona: "p1",
        prompt_hash: "h2",
    },
    RunDef {
        mode: Mode::Two,
        model: "model-a",
        persona: "p1",
        prompt_hash: "h1",
    },
    RunDef {
        mode: Mode::One,
        model: "model-b",
        persona: "p1",
        prompt_hash: "h1",
    },
    RunDef {
        mode: Mode::Three,
        model: "model-b",
        persona: "p1",
        prompt_hash: "h1",
    },
    RunDef {
        mode: Mode::One,
        model: "model-a",
        persona: "p1",
        prompt_hash: "h1",
    },
];

/// A deterministic, mostly-agreeing value for combination `c` of run `r`.
fn value(mode: Mode, c: usize, r: usize) -> Value {
    let base = (c * 7 + c / 3) % 5;
    let noise = usize::from((c * 31 + r * 17).is_multiple_of(10));
    let likert = ((base + noise) % 5 + 1) as u8;
    match mode {
        Mode::Three => match Value::Likert(likert).as_agreement() {
            Some(a) => Value::Agreement(a),
            None => Value::Agreement(Agreement::Agree),
        },
        _ => Value::Likert(likert),
    }
}

/// A logprob confidence for combination `c` of run `r`: lower where
/// [`value`] added noise, spread over (0.5, 1] so `jury trust` has many
/// distinct candidate thresholds to test.
fn confidence(c: usize, r: usize) -> Confidence {
    let noisy = (c * 31 + r * 17).is_multiple_of(10);
    let spread = ((c * 13 + r * 7) % 1000) as f64 / 1000.0;
    Confidence {
        value: if noisy {
            0.5 + 0.3 * spread
        } else {
            0.7 + 0.3 * spread
        },
        source: ConfidenceSource::Logprobs,
        expected_score: None,
    }
}

fn build(db: &Path) {
    let tmp = db.with_extension("building");
    let _ = std::fs::remove_file(&tmp);
    let mut store = Store::open(&tmp).expect("open");
    let at = "2026-11-23T00:00:00.000Z".to_string();
    for (r, def) in DEFS.iter().enumerate() {
        let spec = RunSpec {
            protocol: Protocol::Awag,
            mode: Some(def.mode),
            persona_id: def.persona.into(),
            perspective_ids: vec!["classification".into()],
            model: def.model.into(),
            prompt_hash: def.prompt_hash.into(),
            record: None,
        };
        let run_id = store.create_run(&spec, (ITEMS * 2) as u64).expect("run");
        let mut chunk = Vec::with_capacity(20_000);
        for i in 0..ITEMS {
            for (ci, cls) in CLASSES.iter().enumerate() {
                let c = i * 2 + ci;
                chunk.push(Verdict {
                    run_id,
                    key: ComboKey::new(&format!("it-{i:06}"), cls, "classification"),
                    persona_id: def.persona.into(),
                    protocol: Protocol::Awag,
                    mode: Some(def.mode),
                    model: def.model.into(),
                    value: value(def.mode, c, r),
                    text: "A short judge text of about the usual length for one verdict.".into(),
                    evaluated_selection: Some("not".into()),
                    selection_mismatch: false,
                    latency_ms: 900,
                    tokens: 120,
                    raw: String::new(),
                    created_at: at.clone(),
                    // Requests of five items, the items at other places in each run.
                    position: Some(RequestPosition {
                        index: ((i + r) % 5) as u32,
                        items: 5,
                    }),
                    confidence: Some(confidence(c, r)),
                    server: None,
                });
                if chunk.len() == 20_000 {
                    store.insert_verdicts(&chunk).expect("verdicts");
                    chunk.clear();
                }
            }
        }
        store.insert_verdicts(&chunk).expect("verdicts");
        store
            .finish_run(run_id, RunStatus::Done, None)
            .expect("finish");
    }
    drop(store);
    // Labels in bulk (the Store writes labels one durable commit at a time,
    // which is right for a person and slow for 100 000 generated ones).
    let conn = rusqlite::Connection::open(&tmp).expect("open labels");
    conn.execute_batch("BEGIN").unwrap();
    {
        let mut ins = conn
            .prepare(
                "INSERT INTO labels (item_id, classification_id, perspective_id, persona_id, who, scale, value, created_at)
                 VALUES (?1, ?2, 'classification', 'p1', ?3, 'likert', ?4, ?5)",
            )
            .unwrap();
        let mut label = |c: usize, who: &str, shift: usize| {
            let v = value(Mode::Two, c, 100 + shift).as_text();
            ins.execute(rusqlite::params![
                format!("it-{:06}", c / 2),
                CLASSES[c % 2],
                who,
                v,
                at
            ])
            .unwrap();
        };
        for c in 0..60_000 {
            label(c, "alice", 0);
        }
        for c in 40_000..80_000 {
            label(c, "bob", 1);
        }
    }
    conn.execute_batch("COMMIT").unwrap();
    drop(conn);
    std::fs::rename(&tmp, db).expect("rename");
    let _ = std::fs::remove_file(tmp.with_extension("building-wal"));
}

fn main() {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    // v2: verdicts carry their place in the request (position bias); v3:
    // and a confidence (trust thresholds).
    let db = target.join("report_1m-v3.db");
    if !db.exists() {
        println!("building {} (once; about a minute)…", db.display());
        let t = std::time::Instant::now();
        build(&db);
        println!("built in {:.1} s", t.elapsed().as_secs_f64());
    }
    let dir = tempfile::tempdir().expect("tempdir");
    if std::env::var("REPORT_1M_DB").is_ok_and(|v| v == "postgres") {
        #[cfg(feature = "postgres")]
        on_postgres::compare(&db, dir.path());
        #[cfg(not(feature = "postgres"))]
        println!("report_1m postgres: skipped (built without the postgres feature)");
        return;
    }
    let (m, peak, groups, out_len) = time_report(&db.to_string_lossy(), dir.path(), "");
    println!(
        "report_1m: median {:.3} s over {RUNS} runs (target 2 s, ratio {:.2}), peak RSS {:.0} MB, {groups} groups, {out_len} bytes of JSON",
        m.as_secs_f64(),
        m.as_secs_f64() / 2.0,
        peak as f64 / 1024.0
    );
    let db = db.to_string_lossy();
    // `jury estimate` over the same store: every standing verdict read,
    // each judge configuration's PPI++ per classification.
    let n = time_json(&db, dir.path(), &["estimate", "--format", "json"]);
    println!("estimate_1m: {n} estimates");
    // `jury trust`: the same reading, then per classification and judge
    // configuration a fixed-sequence test over its distinct confidences.
    let n = time_json(
        &db,
        dir.path(),
        &[
            "trust", "--alpha", "0.1", "--delta", "0.1", "--format", "json",
        ],
    );
    println!("trust_1m: {n} thresholds");
}

/// Times `jury report --format json` over the store at `db` (a path or a
/// URL) [`RUNS`] times: (median wall time, peak RSS in KiB, groups in the
/// report, bytes of JSON). `tag` names the backend in each run's line.
fn time_report(db: &str, dir: &Path, tag: &str) -> (Duration, u64, usize, u64) {
    let mut times: Vec<Duration> = Vec::new();
    let mut peak = 0u64;
    let mut out_len = 0u64;
    for i in 0..RUNS {
        let (wall, rss_kib, len) = report_once(db, dir, i);
        println!(
            "run {}{tag}: {:.3} s, peak RSS {:.1} MB",
            i + 1,
            wall.as_secs_f64(),
            rss_kib as f64 / 1024.0
        );
        out_len = len;
        times.push(wall);
        peak = peak.max(rss_kib);
    }
    let report: serde_json::Value = serde_json::from_reader(
        std::fs::File::open(dir.join("report0.json")).expect("open report"),
    )
    .expect("report is JSON");
    let groups: usize = report
        .as_object()
        .expect("object")
        .values()
        .map(|v| v.as_array().map_or(0, |a| a.len()))
        .sum();
    (common::median(times), peak, groups, out_len)
}

/// One `jury report --format json` over `db`, written to `report{i}.json`:
/// (wall time, peak RSS in KiB, bytes of JSON).
fn report_once(db: &str, dir: &Path, i: usize) -> (Duration, u64, u64) {
    let out = dir.join(format!("report{i}.json"));
    let mut cmd = common::jury_in(dir);
    cmd.env("JURY_DB", db)
        .args(["report", "--format", "json"])
        .stdout(Stdio::from(std::fs::File::create(&out).expect("out")));
    let (wall, rss_kib, code) = common::run_measured(&mut cmd);
    assert_eq!(code, 0, "jury report failed");
    let len = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    (wall, rss_kib, len)
}

/// Times `jury ARGS` over the store [`RUNS`] times, prints the median wall
/// time, the ratio to the 2 s target and the peak RSS; returns the length
/// of the JSON array it printed (or of its `thresholds`).
fn time_json(db: &str, dir: &Path, args: &[&str]) -> usize {
    let name = args[0];
    let mut times: Vec<Duration> = Vec::new();
    let mut peak = 0u64;
    let out = dir.join(format!("{name}.json"));
    for _ in 0..RUNS {
        let mut cmd = common::jury_in(dir);
        cmd.env("JURY_DB", db)
            .args(args)
            .stdout(Stdio::from(std::fs::File::create(&out).expect("out")));
        let (wall, rss_kib, code) = common::run_measured(&mut cmd);
        assert_eq!(code, 0, "jury {name} failed");
        times.push(wall);
        peak = peak.max(rss_kib);
    }
    let printed: serde_json::Value =
        serde_json::from_reader(std::fs::File::open(&out).expect("open output"))
            .expect("the output is JSON");
    let m = common::median(times);
    println!(
        "{name}_1m: median {:.3} s over {RUNS} runs (target 2 s, ratio {:.2}), peak RSS {:.0} MB",
        m.as_secs_f64(),
        m.as_secs_f64() / 2.0,
        peak as f64 / 1024.0,
    );
    // `jury trust` prints `{refused_confidences, thresholds: [...]}`.
    printed
        .as_array()
        .or_else(|| printed["thresholds"].as_array())
        .map_or(0, Vec::len)
}

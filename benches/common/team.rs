//! A team of simulated annotators on one store (issue 32 §5), shared by the
//! `team_load` bench and the load test in `tests/core/team_load.rs`.
//!
//! Each annotator is a thread with its own store connection, writing as the
//! workbench's label writer does (the same `Store` calls: `upsert_label`,
//! `set_label_note` then `upsert_label` when no label held it,
//! `record_mark`). A write that fails is kept, in order, and written again
//! before the next one on a new connection when the old one was lost: what
//! the workbench does with its unsaved labels. Every annotator remembers
//! what it meant the store to hold; [`verify`] compares that with what the
//! store holds afterwards.
#![allow(dead_code)]

use jury::domain::{ComboKey, Label, MarkKind, Value};
use jury::store::{MarkEventKind, MarkSlot, Store};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const PERSONA: &str = "team-load";
const CLASSES: [&str; 2] = ["urgency", "work-pers"];

/// One annotator's identity and where it writes.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Annotator {
    /// Stored as `who` (on PostgreSQL the role's name, which row-level
    /// security requires).
    pub who: String,
    /// A SQLite path or a `postgres://` URL (as `--db` takes it).
    pub location: String,
}

/// When an annotator stops.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
pub enum Until {
    /// After this many labelled items.
    Items(usize),
    /// After this long.
    Elapsed(Duration),
}

/// One write as the label writer hands it to the store.
#[derive(Clone, Debug)]
enum Write {
    Label(Label),
    Note(Label),
    Mark(MarkSlot, Option<MarkKind>),
}

/// What one annotator did and meant the store to hold.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    pub who: String,
    /// Per combination, the value and note last written.
    pub labels: BTreeMap<String, (String, String)>,
    /// Combinations left with a current mark.
    pub marks: BTreeSet<String>,
    /// Wall time of each first attempt at a label write that succeeded.
    pub label_latencies: Vec<Duration>,
    /// Wall time of every other write's first attempt that succeeded (notes, marks).
    pub other_latencies: Vec<Duration>,
    /// Writes that failed (said, not hidden): each was written again later.
    pub failed: Vec<String>,
    /// Writes still unsaved at the end (lost, if not zero).
    pub unsaved: usize,
}

fn key_name(k: &ComboKey) -> String {
    format!("{}/{}", k.item_id, k.classification_id)
}

fn combo(i: usize) -> ComboKey {
    ComboKey::new(
        &format!("tl-{:06}", i / 2),
        CLASSES[i % 2],
        "classification",
    )
}

/// Runs one annotator until `until` or `stop`, pausing `think` between
/// items (a person reads before labelling). Every annotator labels the same
/// combinations in the same order (overlap: the same rows under many
/// names), so a label stored under the wrong name would be seen.
pub fn annotate(a: &Annotator, until: Until, think: Duration, stop: &AtomicBool) -> Outcome {
    let mut out = Outcome {
        who: a.who.clone(),
        ..Outcome::default()
    };
    let mut store: Option<Store> = None;
    let mut unsaved: Vec<Write> = Vec::new();
    let started = Instant::now();
    let seed = a
        .who
        .bytes()
        .fold(7usize, |h, b| h.wrapping_mul(31) + b as usize);
    let mut i = 0usize;
    loop {
        let done = match until {
            Until::Items(n) => i >= n,
            Until::Elapsed(d) => started.elapsed() >= d,
        };
        if done || stop.load(Ordering::Relaxed) {
            break;
        }
        let key = combo(i);
        let v = ((i + seed) % 5 + 1) as u8;
        let label = Label {
            key: key.clone(),
            persona_id: PERSONA.into(),
            value: Value::Likert(v),
            note: String::new(),
            who: a.who.clone(),
            created_at: jury::store::now(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        };
        let slot = MarkSlot {
            key: key.clone(),
            persona_id: PERSONA.into(),
            who: a.who.clone(),
        };
        let mut writes = Vec::new();
        if i % 13 == 12 {
            // Left for later, never labelled: the mark stays current.
            writes.push(Write::Mark(slot, Some(MarkKind::Skip)));
        } else {
            if i % 7 == 3 {
                // Unsure first, then labelled: the label settles the mark.
                writes.push(Write::Mark(slot, Some(MarkKind::Unsure)));
            }
            writes.push(Write::Label(label.clone()));
            if i % 5 == 1 {
                let noted = Label {
                    note: format!("note {i} by {}", a.who),
                    ..label.clone()
                };
                writes.push(Write::Note(noted));
            }
            if i % 10 == 9 {
                // Changed their mind about the one before.
                let earlier = combo(i - 1);
                if let Some((value, _)) = out.labels.get(&key_name(&earlier)) {
                    let before: u8 = value.parse().unwrap_or(1);
                    writes.push(Write::Label(Label {
                        key: earlier,
                        value: Value::Likert(before % 5 + 1),
                        note: out.labels[&key_name(&combo(i - 1))].1.clone(),
                        ..label.clone()
                    }));
                }
            }
        }
        for w in writes {
            expect(&mut out, &w);
            unsaved.push(w);
            write_all(a, &mut store, &mut unsaved, &mut out, true);
        }
        i += 1;
        if !think.is_zero() {
            std::thread::sleep(think);
        }
    }
    // What failed is written again until it is saved (or, after a minute,
    // counted as unsaved: lost).
    let deadline = Instant::now() + Duration::from_secs(60);
    while !unsaved.is_empty() && Instant::now() < deadline {
        write_all(a, &mut store, &mut unsaved, &mut out, false);
        if !unsaved.is_empty() {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    out.unsaved = unsaved.len();
    out
}

/// What the store should hold once `w` is saved.
fn expect(out: &mut Outcome, w: &Write) {
    match w {
        Write::Label(l) | Write::Note(l) => {
            out.labels
                .insert(key_name(&l.key), (l.value.as_text(), l.note.clone()));
            out.marks.remove(&key_name(&l.key));
        }
        Write::Mark(s, Some(_)) => {
            out.marks.insert(key_name(&s.key));
        }
        Write::Mark(s, None) => {
            out.marks.remove(&key_name(&s.key));
        }
    }
}

/// Writes the unsaved writes in order, stopping at the first that fails
/// (kept for the next call). `timed`: the last of them is a first attempt,
/// timed when it succeeds.
fn write_all(
    a: &Annotator,
    store: &mut Option<Store>,
    unsaved: &mut Vec<Write>,
    out: &mut Outcome,
    timed: bool,
) {
    let first_attempt = unsaved.len() - usize::from(timed);
    let mut saved = 0;
    for (n, w) in unsaved.iter().enumerate() {
        if store.is_none() {
            match Store::open(&PathBuf::from(&a.location)) {
                Ok(s) => *store = Some(s),
                Err(e) => {
                    out.failed.push(format!("open: {e}"));
                    break;
                }
            }
        }
        let Some(s) = store.as_mut() else { break };
        let t = Instant::now();
        let result = match w {
            Write::Label(l) => s.upsert_label(l),
            Write::Note(l) => s
                .set_label_note(&l.key, &l.persona_id, &l.who, l.value.scale(), &l.note)
                .and_then(|held| if held { Ok(()) } else { s.upsert_label(l) }),
            Write::Mark(slot, mark) => s.record_mark(
                slot,
                mark.map(|m| (m, "")),
                &jury::store::now(),
                MarkEventKind::Mark,
            ),
        };
        let took = t.elapsed();
        match result {
            Ok(()) => {
                saved += 1;
                if n >= first_attempt {
                    match w {
                        Write::Label(_) => out.label_latencies.push(took),
                        _ => out.other_latencies.push(took),
                    }
                }
            }
            Err(e) => {
                out.failed.push(format!("{w:?}: {e}"));
                // As the label writer: a lost session is replaced next time.
                if s.connection_lost() {
                    *store = None;
                }
                break;
            }
        }
    }
    unsaved.drain(..saved);
}

/// Runs `annotators` at once, and `runs` judge runs writing verdicts into
/// `owner_location` meanwhile; returns each annotator's outcome and the
/// number of verdicts written. `during` runs on this thread while they work
/// (e.g. ends every session), then the annotators are let finish.
pub fn run_team(
    annotators: &[Annotator],
    until: Until,
    think: Duration,
    owner_location: &str,
    runs: usize,
    during: impl FnOnce(&AtomicBool),
) -> (Vec<Outcome>, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let judges_stop = Arc::new(AtomicBool::new(false));
    let judges: Vec<_> = (0..runs)
        .map(|r| {
            let loc = owner_location.to_string();
            let stop = judges_stop.clone();
            std::thread::spawn(move || judge_run(&loc, r, &stop))
        })
        .collect();
    let workers: Vec<_> = annotators
        .iter()
        .cloned()
        .map(|a| {
            let stop = stop.clone();
            std::thread::spawn(move || annotate(&a, until, think, &stop))
        })
        .collect();
    during(&stop);
    let outcomes = workers
        .into_iter()
        .map(|w| w.join().expect("an annotator panicked"))
        .collect();
    judges_stop.store(true, Ordering::Relaxed);
    let verdicts = judges
        .into_iter()
        .map(|j| j.join().expect("a judge run panicked"))
        .sum();
    (outcomes, verdicts)
}

/// Names the annotator a process started by [`run_team_processes`] runs
/// as (its [`ProcessSpec`] as JSON).
pub const ANNOTATOR_ENV: &str = "TEAM_LOAD_ANNOTATOR";

/// What one annotator process is to do.
#[derive(serde::Serialize, serde::Deserialize)]
struct ProcessSpec {
    annotator: Annotator,
    until: Until,
    think_ms: u64,
}

/// In a process [`run_team_processes`] started: runs its annotator and
/// prints the outcome as one JSON line on stdout. False in any other
/// process (call first thing in `main`).
pub fn annotator_process() -> bool {
    let Ok(spec) = std::env::var(ANNOTATOR_ENV) else {
        return false;
    };
    let spec: ProcessSpec = serde_json::from_str(&spec).expect("the annotator's spec");
    let out = annotate(
        &spec.annotator,
        spec.until,
        Duration::from_millis(spec.think_ms),
        &AtomicBool::new(false),
    );
    println!(
        "{}",
        serde_json::to_string(&out).expect("the outcome as JSON")
    );
    true
}

/// As [`run_team`], but each annotator is an OS process of its own (this
/// executable again, told by [`ANNOTATOR_ENV`] whom it runs as), as 20
/// people's workbenches are: its own address space, connection and
/// scheduler entity. The judge runs are threads of this process.
pub fn run_team_processes(
    annotators: &[Annotator],
    until: Until,
    think: Duration,
    owner_location: &str,
    runs: usize,
) -> (Vec<Outcome>, u64) {
    let judges_stop = Arc::new(AtomicBool::new(false));
    let judges: Vec<_> = (0..runs)
        .map(|r| {
            let loc = owner_location.to_string();
            let stop = judges_stop.clone();
            std::thread::spawn(move || judge_run(&loc, r, &stop))
        })
        .collect();
    let exe = std::env::current_exe().expect("this bench's executable");
    let children: Vec<_> = annotators
        .iter()
        .map(|a| {
            let spec = ProcessSpec {
                annotator: a.clone(),
                until,
                think_ms: think.as_millis() as u64,
            };
            std::process::Command::new(&exe)
                .env(ANNOTATOR_ENV, serde_json::to_string(&spec).expect("spec"))
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("an annotator process")
        })
        .collect();
    let outcomes = children
        .into_iter()
        .zip(annotators)
        .map(|(child, a)| {
            let out = child.wait_with_output().expect("the annotator's output");
            let line = String::from_utf8_lossy(&out.stdout);
            match serde_json::from_str::<Outcome>(line.trim()) {
                Ok(o) if out.status.success() => o,
                _ => Outcome {
                    who: a.who.clone(),
                    // Said by verify: a process that died lost its writes.
                    unsaved: 1,
                    failed: vec![format!("the annotator process ended {}", out.status)],
                    ..Outcome::default()
                },
            }
        })
        .collect();
    judges_stop.store(true, Ordering::Relaxed);
    let verdicts = judges
        .into_iter()
        .map(|j| j.join().expect("a judge run panicked"))
        .sum();
    (outcomes, verdicts)
}

/// A judge run writing verdicts in small batches, as `jury run` does with
/// its answers, until `stop`; returns how many it wrote.
fn judge_run(location: &str, r: usize, stop: &AtomicBool) -> u64 {
    use jury::domain::*;
    let mut store = Store::open(&PathBuf::from(location)).expect("the judge's store");
    let spec = RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Two),
        persona_id: PERSONA.into(),
        perspective_ids: vec!["classification".into()],
        model: format!("model-{r}"),
        prompt_hash: "h1".into(),
        record: None,
    };
    let run_id = store.create_run(&spec, 1_000_000).expect("a run");
    let mut written = 0u64;
    let mut c = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let batch: Vec<Verdict> = (0..20)
            .map(|k| {
                let i = c + k;
                Verdict {
                    run_id,
                    key: combo(i),
                    persona_id: PERSONA.into(),
                    protocol: Protocol::Awag,
                    mode: Some(Mode::Two),
                    model: spec.model.clone(),
                    value: Value::Likert((i % 5 + 1) as u8),
                    text: "A short judge text of about the usual length for one verdict.".into(),
                    evaluated_selection: Some("not".into()),
                    selection_mismatch: false,
                    latency_ms: 900,
                    tokens: 120,
                    raw: String::new(),
                    created_at: jury::store::now(),
                    position: None,
                    confidence: None,
                    server: None,
                }
            })
            .collect();
        // A refused batch (a lock held too long) is the run's own failure
        // to report, not the annotators': counted by what was written.
        if store.insert_verdicts(&batch).is_ok() {
            written += batch.len() as u64;
            c += batch.len();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = store.finish_run(run_id, RunStatus::Done, None);
    written
}

/// Compares what each annotator meant the store to hold with what it
/// holds: every label once, under its writer, with its last value and
/// note; no label of anyone else's; each one's current marks. Returns the
/// problems found (empty: all well).
pub fn verify(store: &Store, outcomes: &[Outcome]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut stored: BTreeMap<(String, String), Vec<(String, String)>> = BTreeMap::new();
    store
        .for_each_label(|l| {
            if l.persona_id == PERSONA {
                stored
                    .entry((l.who.clone(), key_name(&l.key)))
                    .or_default()
                    .push((l.value.as_text(), l.note.clone()));
            }
        })
        .expect("read the labels");
    let writers: BTreeSet<&str> = outcomes.iter().map(|o| o.who.as_str()).collect();
    for ((who, key), rows) in &stored {
        if !writers.contains(who.as_str()) {
            problems.push(format!("{key} stored under {who}, who wrote nothing"));
        }
        if rows.len() != 1 {
            problems.push(format!("{key} of {who} stored {} times", rows.len()));
        }
    }
    let marks: BTreeSet<(String, String)> = store
        .current_marks()
        .expect("read the marks")
        .into_iter()
        .filter(|m| m.persona_id == PERSONA)
        .map(|m| (m.who.clone(), key_name(&m.key)))
        .collect();
    for o in outcomes {
        let mine = stored.keys().filter(|(w, _)| *w == o.who).count();
        if mine != o.labels.len() {
            problems.push(format!(
                "{}: {} labels stored, {} written",
                o.who,
                mine,
                o.labels.len()
            ));
        }
        for (key, want) in &o.labels {
            match stored.get(&(o.who.clone(), key.clone())) {
                None => problems.push(format!("{key} of {} lost", o.who)),
                Some(rows) if rows[0] != *want => problems.push(format!(
                    "{key} of {}: stored {:?}, last written {want:?}",
                    o.who, rows[0]
                )),
                Some(_) => {}
            }
        }
        let my_marks: BTreeSet<String> = marks
            .iter()
            .filter(|(w, _)| *w == o.who)
            .map(|(_, k)| k.clone())
            .collect();
        if my_marks != o.marks {
            problems.push(format!(
                "{}: {} current marks stored, {} meant",
                o.who,
                my_marks.len(),
                o.marks.len()
            ));
        }
        if o.unsaved > 0 {
            problems.push(format!("{}: {} writes never saved", o.who, o.unsaved));
        }
    }
    problems
}

/// The `q` quantile (0..=1) of `v`, nearest rank.
pub fn quantile(v: &mut [Duration], q: f64) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

//! One store test suite on both engines (issue 32): each test runs its body
//! on a fresh SQLite store in memory and, when `JURY_TEST_POSTGRES_URL` names
//! a server (`.ci/postgres.sh`), on a database of its own there
//! (`jury::store::testing::each_backend`): the same assertions, not a copy.
//! Without a server the PostgreSQL half says it skipped.

use jury::domain::*;
use jury::store::testing::each_backend;
use jury::store::{Store, VerdictFilter};

fn spec(mode: Option<Mode>) -> RunSpec {
    RunSpec {
        protocol: Protocol::Awag,
        mode,
        persona_id: "kenton".into(),
        perspective_ids: vec!["classification".into()],
        model: "demo".into(),
        prompt_hash: "h1".into(),
        record: None,
    }
}

fn verdict(run_id: i64, item: &str, likert: u8, confidence: Option<f64>) -> Verdict {
    Verdict {
        run_id,
        key: ComboKey::new(item, "urgency", "classification"),
        persona_id: "kenton".into(),
        protocol: Protocol::Awag,
        mode: Some(Mode::One),
        model: "demo".into(),
        value: Value::Likert(likert),
        text: format!("because ünïcode ✓ '{item}'"),
        evaluated_selection: Some("urgent".into()),
        selection_mismatch: likert == 1,
        latency_ms: 12,
        tokens: 34,
        raw: "{\"raw\":true}".into(),
        created_at: jury::store::now(),
        position: Some(RequestPosition { index: 1, items: 5 }),
        confidence: confidence.map(|value| Confidence {
            value,
            source: ConfidenceSource::Logprobs,
            expected_score: Some(4.5),
        }),
        server: Some("http://127.0.0.1:1/v1".into()),
    }
}

/// Verdicts round-trip field for field; a repeat of a stored combination is
/// ignored; `--resume` finds what a judge configuration has (a NULL mode
/// too); repeats give a confidence computed with window functions.
#[test]
fn verdicts_round_trip_repeat_and_resume_on_both_engines() {
    each_backend(|s: &mut Store| {
        let run = s.create_run(&spec(Some(Mode::One)), 3).unwrap();
        let again = s.create_run(&spec(Some(Mode::One)), 3).unwrap();
        assert!(again > run, "ids grow");
        let v1 = verdict(run, "k-1", 5, Some(0.75));
        let fresh = s
            .insert_verdicts(&[v1.clone(), verdict(run, "k-2", 1, None)])
            .unwrap();
        assert_eq!(fresh, vec![true, true]);
        assert_eq!(
            s.insert_verdicts(std::slice::from_ref(&v1)).unwrap(),
            vec![false]
        );
        assert_eq!(s.verdicts_for_run(run).unwrap()[0], v1);
        // A repeat in the second run: same reading (4 and 5 agree).
        s.insert_verdict(&verdict(again, "k-1", 4, None)).unwrap();
        s.insert_verdict(&verdict(again, "k-2", 2, None)).unwrap();
        let mut repeats = Vec::new();
        s.for_each_verdict_with_repeats(|v| repeats.push(v))
            .unwrap();
        assert_eq!(repeats.len(), 4);
        let k2 = repeats
            .iter()
            .find(|v| v.key.item_id == "k-2" && v.run_id == again)
            .unwrap();
        assert_eq!(k2.confidence.map(|c| c.value), Some(1.0));
        let filter = VerdictFilter {
            persona_id: "kenton",
            protocol: Protocol::Awag,
            mode: Some(Mode::One),
            model: "demo",
            prompt_hash: "h1",
        };
        assert_eq!(s.judged_keys(&filter).unwrap().len(), 2);
        let none = VerdictFilter {
            mode: None,
            ..filter
        };
        assert!(s.judged_keys(&none).unwrap().is_empty());
        let mut values = 0;
        s.for_each_verdict_value(|v| {
            values += 1;
            assert_eq!(v.model, "demo");
        })
        .unwrap();
        assert_eq!(values, 4);
        // Ids may have gaps (a PostgreSQL identity spends one on an ignored
        // repeat): the range spans the four, whatever their numbers.
        let (lo, hi) = s.verdict_id_range().unwrap().unwrap();
        let mut in_range = 0;
        s.for_each_verdict_value_in(lo, hi, |_| in_range += 1)
            .unwrap();
        assert_eq!(in_range, 4);
    });
}

/// A run's usage, cost (unknown stays unknown), status and failures.
#[test]
fn runs_and_failures_on_both_engines() {
    each_backend(|s: &mut Store| {
        let run = s.create_run(&spec(None), 2).unwrap();
        s.add_run_usage(run, None, None).unwrap();
        s.add_run_usage(run, None, Some(0.25)).unwrap();
        s.add_run_usage(run, None, Some(0.5)).unwrap();
        s.insert_failure(&Failure {
            run_id: run,
            kind: FailureKind::Malformed,
            keys: vec![ComboKey::new("k-1", "urgency", "classification")],
            reason: "bad json".into(),
            raw_response: "{".into(),
            http_status: Some(200),
            finish_reason: None,
            request: "{}".into(),
            attempt: 2,
            created_at: jury::store::now(),
        })
        .unwrap();
        s.finish_run(run, RunStatus::Failed, Some("over")).unwrap();
        let r = s.run(run).unwrap().unwrap();
        assert_eq!(r.status, RunStatus::Failed);
        assert_eq!(r.requests, 3);
        assert_eq!(r.cost_usd, Some(0.75));
        assert_eq!(r.spec.mode, None);
        let f = s.failures(Some(run)).unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].attempt, 2);
        assert_eq!(s.failures(None).unwrap().len(), 1);
        assert!(s.failures(Some(run + 1)).unwrap().is_empty());
    });
}

/// Workbench sessions and prompt examples: upserts and "insert unless there".
#[test]
fn upserts_on_both_engines() {
    each_backend(|s: &mut Store| {
        s.save_workbench_session("ann", "{\"a\":1}").unwrap();
        s.save_workbench_session("ann", "{\"a\":2}").unwrap();
        assert_eq!(
            s.workbench_session("ann").unwrap().as_deref(),
            Some("{\"a\":2}")
        );
        assert_eq!(s.workbench_session("bob").unwrap(), None);
        let pairs = vec![("k-1".to_string(), "urgency".to_string())];
        s.record_prompt_examples("h", &pairs).unwrap();
        s.record_prompt_examples("h", &pairs).unwrap();
        assert_eq!(s.prompt_examples().unwrap()["h"], pairs);
    });
}

/// A label written again as it is (a replay after a connection lost at the
/// commit, or a recovery file not cleared before a kill -9) is stored once
/// with one history event; the same slot given a new answer still adds one.
#[test]
fn the_same_label_written_twice_is_stored_once_on_both_engines() {
    each_backend(|s: &mut Store| {
        let key = ComboKey::new("k-1", "urgency", "classification");
        let label = Label {
            key: key.clone(),
            persona_id: "kenton".into(),
            value: Value::Likert(4),
            note: "n".into(),
            who: "ann".into(),
            created_at: jury::store::now(),
            replaced_judge_value: Some(Value::Likert(2)),
            blind: false,
            tags: vec!["b".into(), "a".into()],
        };
        s.upsert_label(&label).unwrap();
        s.upsert_label(&label).unwrap();
        assert_eq!(s.labels_for_item("k-1").unwrap().len(), 1);
        assert_eq!(s.label_history(&key).unwrap().len(), 1, "one event");
        let changed = Label {
            value: Value::Likert(5),
            ..label.clone()
        };
        s.upsert_label(&changed).unwrap();
        let stored = s.labels_for_item("k-1").unwrap();
        assert_eq!((stored.len(), stored[0].value), (1, Value::Likert(5)));
        assert_eq!(s.label_history(&key).unwrap().len(), 2);
    });
}

/// The adjudication queue on an assigned item holds a disagreement of the
/// people assigned, not one a passer-by's label makes; an item without
/// assignments counts everyone's labels, as before (issue 32 §4).
#[test]
fn the_adjudication_queue_counts_the_assigned_people_on_both_engines() {
    each_backend(|s: &mut Store| {
        let label = |item: &str, who: &str, v: u8| Label {
            key: ComboKey::new(item, "urgency", "classification"),
            persona_id: "kenton".into(),
            value: Value::Likert(v),
            note: String::new(),
            who: who.into(),
            created_at: jury::store::now(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        };
        let items: Vec<Item> = ["k-1", "k-2", "k-3"]
            .iter()
            .map(|id| Item {
                id: id.to_string(),
                title: "t".into(),
                text: "x".into(),
                ..Default::default()
            })
            .collect();
        s.upsert_all(&items, &[], &[], &[]).unwrap();
        // k-1: ann and bob agree, dan (not assigned) says otherwise.
        // k-2: ann and bob disagree. k-3: not assigned, ann and dan disagree.
        for l in [
            label("k-1", "ann", 4),
            label("k-1", "bob", 5),
            label("k-1", "dan", 1),
            label("k-2", "ann", 4),
            label("k-2", "bob", 1),
            label("k-3", "ann", 4),
            label("k-3", "dan", 2),
        ] {
            s.upsert_label(&l).unwrap();
        }
        let queue = |s: &Store| -> Vec<String> {
            s.adjudication_queue()
                .unwrap()
                .into_iter()
                .map(|d| d.key.item_id)
                .collect()
        };
        assert_eq!(queue(s), ["k-1", "k-2", "k-3"], "no assignments yet");
        let pairs: Vec<(String, String)> = ["k-1", "k-2"]
            .iter()
            .flat_map(|i| ["ann", "bob"].map(|w| (i.to_string(), w.to_string())))
            .collect();
        s.assign(&pairs, &jury::store::now(), "owner").unwrap();
        assert_eq!(queue(s), ["k-2", "k-3"]);
    });
}

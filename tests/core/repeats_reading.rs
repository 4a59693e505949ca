//! Confidence from repeats reads AGREE/DISAGREE readings, not exact values
//! (issue #30 §6): a Likert 4, 5, 4 on one combination is a unanimous
//! "the classifier was right", share 1, not 2 in 3.

use jury::domain::*;

#[test]
fn repeats_agree_by_their_reading() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = jury::store::Store::open(&dir.path().join("r.db")).unwrap();
    jury::import::import_sample(&mut store, "me").unwrap();
    let spec = RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Three),
        persona_id: "kenton".into(),
        perspective_ids: vec!["classification".into()],
        model: "demo".into(),
        prompt_hash: "h".into(),
        record: None,
    };
    let mut ids: Vec<String> = store.labelled_item_ids().unwrap().into_iter().collect();
    ids.sort();
    let label = store.labels_for_item(&ids[0]).unwrap().remove(0);
    for value in [4u8, 5, 4] {
        let run = store.create_run(&spec, 0).unwrap();
        store
            .insert_verdicts(&[Verdict {
                run_id: run,
                key: label.key.clone(),
                persona_id: label.persona_id.clone(),
                protocol: Protocol::Awag,
                mode: Some(Mode::Three),
                model: "demo".into(),
                value: Value::Likert(value),
                text: "ok".into(),
                evaluated_selection: None,
                selection_mismatch: false,
                latency_ms: 1,
                tokens: 1,
                raw: String::new(),
                created_at: "2026-11-28T00:00:00Z".into(),
                position: None,
                confidence: None,
                server: None,
            }])
            .unwrap();
    }
    let mut shares = Vec::new();
    store
        .for_each_verdict_with_repeats(|v| shares.push(v.confidence.map(|c| c.value)))
        .unwrap();
    assert_eq!(shares, vec![Some(1.0); 3], "4, 5, 4 read alike");
}

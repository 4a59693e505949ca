//! One interval per figure in a report (issue #30 §3): a judge's agreement
//! and kappa against the one person who labelled, shown in the ranking and
//! in the comparison table, are one figure with one interval.

use crate::common;

use jury::domain::{Agreement, ComboKey, Label, Mode, Protocol, RunSpec, Value, Verdict};
use jury::report::Report;
use jury::report::pairs::Comparison;
use jury::store::Store;

fn agree(right: bool) -> Value {
    Value::Agreement(if right {
        Agreement::Agree
    } else {
        Agreement::Disagree
    })
}

#[test]
fn the_ranking_and_the_comparison_table_show_one_interval_for_one_kappa() {
    let (_dir, db) = common::store_with(60, 1);
    let mut s = Store::open(&db).expect("store");
    let key = |i: usize| ComboKey::new(&format!("g-{i:06}"), "urgency", "classification");
    for i in 0..60 {
        s.upsert_label(&Label {
            key: key(i),
            persona_id: "tester".into(),
            value: agree(i % 10 < 7),
            note: String::new(),
            who: "alice".into(),
            created_at: jury::store::now(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        })
        .expect("label");
    }
    for (model, wrong_every) in [("a-model", 4), ("z-model", 9)] {
        let spec = RunSpec {
            protocol: Protocol::Awag,
            mode: Some(Mode::Three),
            persona_id: "tester".into(),
            perspective_ids: vec!["classification".into()],
            model: model.into(),
            prompt_hash: "h".into(),
            params: serde_json::Value::Null,
        };
        let run = s.create_run(&spec, 60).expect("run");
        // Judged in another order than the items' ids (as a batch answers).
        let vs: Vec<Verdict> = (0..60)
            .map(|j| j * 7 % 60)
            .map(|i| Verdict {
                run_id: run,
                key: key(i),
                persona_id: "tester".into(),
                protocol: Protocol::Awag,
                mode: Some(Mode::Three),
                model: model.into(),
                value: agree((i % 10 < 7) ^ (i % wrong_every == 1)),
                text: "ok".into(),
                evaluated_selection: None,
                selection_mismatch: false,
                latency_ms: 1,
                tokens: 1,
                raw: String::new(),
                created_at: jury::store::now(),
                position: None,
                confidence: None,
                server: None,
            })
            .collect();
        s.insert_verdicts(&vs).expect("verdicts");
    }
    let report =
        Report::build(&s, None, None, jury::report::DEFAULT_SEED, &mut ()).expect("report");
    assert_eq!(report.rankings.len(), 1);
    let ranked = &report.rankings[0].configurations;
    assert_eq!(ranked.len(), 2);
    for c in ranked {
        let g = report
            .groups
            .iter()
            .find(|g| g.comparison == Comparison::JudgeVsHuman && g.left == c.judge)
            .expect("the judge's group");
        assert_eq!(g.figures.n, 60);
        assert!(c.kappa.ci95.is_some());
        assert_eq!(c.kappa, g.figures.cohen_kappa, "{}", c.judge);
        assert_eq!(c.agreement, g.figures.percent_agreement, "{}", c.judge);
    }
}

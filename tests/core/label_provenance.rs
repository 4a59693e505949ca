//! Which labels may stand for a random sample (issue #30 §4): labels the
//! judge selected (given in the disagreement-first queue) are left out of
//! PPI and trust by default, and said to be; `--sampled-only` keeps the
//! left-out combinations' verdicts in the population as unlabelled ones.

use jury::domain::{Agreement, ComboKey, Confidence, ConfidenceSource, Value};
use jury::report::estimate::{self, Sampling};
use jury::report::pairs::{Confident, Readings};
use jury::report::trust;
use std::sync::Arc;

const JUDGE: &str = "awag mode 3 · m";

fn agree(right: bool) -> Value {
    Value::Agreement(if right {
        Agreement::Agree
    } else {
        Agreement::Disagree
    })
}

fn key(i: usize) -> ComboKey {
    ComboKey::new(&format!("i{i}"), "urgency", "p")
}

/// 200 combinations, the classifier right on 70 %; the judge wrong on every
/// tenth. Labels on the first 60, in the random sample; and 20 more labels
/// given in the judge≠human queue, all where the judge was wrong.
fn world() -> (Readings, Sampling) {
    let mut r = Readings {
        verdicts: Vec::new(),
        labels: Vec::new(),
        confidences: Vec::new(),
    };
    let mut s = Sampling::default();
    let mut queue = 0;
    for i in 0..200 {
        let k = Arc::new(key(i));
        let truth = i % 10 < 7;
        let judge = truth ^ (i % 10 == 3);
        r.verdicts.push((
            Arc::from(JUDGE),
            Arc::from("kenton"),
            k.clone(),
            agree(judge),
        ));
        r.confidences.push(Some(Confident {
            value: agree(judge),
            confidence: Confidence {
                value: 0.9,
                source: ConfidenceSource::Logprobs,
                expected_score: None,
            },
        }));
        let who = (key(i), "kenton".to_string(), "alice".to_string());
        let sampled = i < 60;
        let by_judge = !sampled && judge != truth && queue < 20;
        if sampled || by_judge {
            r.labels
                .push((Arc::from("kenton"), k, Arc::from("alice"), agree(truth)));
        }
        if sampled {
            s.sampled.insert(who, Some(1));
        } else if by_judge {
            queue += 1;
            s.judge_selected.insert(who, "judge≠human first".into());
        }
    }
    assert_eq!(queue, 14);
    (r, s)
}

#[test]
fn judge_selected_labels_are_left_out_of_ppi_and_trust_by_default_and_said() {
    let (r, mut s) = world();
    let e = &estimate::estimates(&r, 0.05, None, &s)[0];
    // The 14 judge-selected combinations count as unlabelled.
    assert_eq!((e.n, e.big_n, e.left_out.judge_selected), (60, 140, 14));
    let table = estimate::table(std::slice::from_ref(e));
    assert!(
        table.contains(
            "14 labelled combination(s) read as unlabelled: their labels were selected by the judge"
        ),
        "{table}"
    );
    let t = &trust::thresholds(&r, 0.1, 0.1, 30, None, &s)[0];
    assert_eq!((t.n_calibration, t.judge_selected_left_out), (60, 14));
    assert!(trust::table(std::slice::from_ref(t)).contains("--include-judge-selected"));

    // Asked for, they count, and are said to.
    s.include_judge_selected = true;
    let e = &estimate::estimates(&r, 0.05, None, &s)[0];
    assert_eq!(
        (e.n, e.labels_judge_selected, e.left_out.judge_selected),
        (74, 14, 0)
    );
    assert!(
        estimate::table(std::slice::from_ref(e)).contains("14 of 74 labels selected by the judge")
    );
    assert_eq!(
        trust::thresholds(&r, 0.1, 0.1, 30, None, &s)[0].n_calibration,
        74
    );
}

#[test]
fn sampled_only_keeps_the_hand_labelled_combinations_as_unlabelled() {
    let (r, mut s) = world();
    // Made chosen rather than judge-selected: a search, say.
    s.judge_selected.clear();
    s.only = true;
    let e = &estimate::estimates(&r, 0.05, None, &s)[0];
    // Every one of the 200 combinations is in the population.
    assert_eq!((e.n, e.big_n, e.left_out.chosen_by_hand), (60, 140, 14));
    let p = e.ppi.expect("a PPI estimate");
    // The truth over the 200 is 0.70: the interval covers it.
    assert!(p.ci[0] <= 0.70 && 0.70 <= p.ci[1], "{p:?}");
    assert!(
        estimate::table(std::slice::from_ref(e)).contains("14 not sampled (read as unlabelled)")
    );
}

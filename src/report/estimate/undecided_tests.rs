//! A judge that hedges: undecided answers are kept and read as 0.5.

use super::*;
use crate::domain::Agreement::*;

/// 300 combinations, the classifier right on 70 %; people label the first
/// 90 (one person each). The judge answers Likert 5 where the classifier was
/// right and 3 — undecided — wherever it was wrong.
fn hedging_study() -> Readings {
    let judge: Arc<str> = Arc::from("rubric · m");
    let persona: Arc<str> = Arc::from("kenton");
    let mut verdicts = Vec::new();
    let mut labels = Vec::new();
    for i in 0..300usize {
        let right = (i * 7) % 10 < 7;
        let key = Arc::new(ComboKey::new(&format!("i{i}"), "urgency", "p"));
        let v = Value::Likert(if right { 5 } else { 3 });
        verdicts.push((judge.clone(), persona.clone(), key.clone(), v));
        if i < 90 {
            let l = Value::Agreement(if right { Agree } else { Disagree });
            labels.push((persona.clone(), key, Arc::from("alice"), l));
        }
    }
    let confidences = vec![None; verdicts.len()];
    Readings {
        verdicts,
        labels,
        confidences,
    }
}

/// Before, every combination answered 3 was dropped, labelled ones too:
/// the labels left were all "right" and the estimate read 1.00.
#[test]
fn a_judge_that_hedges_on_the_errors_keeps_every_combination() {
    let e = &estimates(&hedging_study(), 0.05, None, &Sampling::default())[0];
    assert_eq!((e.n, e.big_n), (90, 210), "every combination kept");
    assert_eq!(e.judge_undecided, 90);
    let p = e.ppi.unwrap();
    assert!((p.estimate - 0.7).abs() < 0.05, "{}", p.estimate);
    assert!(p.ci[0] < 0.7 && 0.7 < p.ci[1], "{:?}", p.ci);
    let h = e.human_only.unwrap();
    assert!(h.ci[0] < 0.7 && 0.7 < h.ci[1], "{:?}", h.ci);
    assert!(table(std::slice::from_ref(e)).contains(UNDECIDED_READING));
    assert!(csv(std::slice::from_ref(e)).contains(",90,"));
}

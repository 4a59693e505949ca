//! The agreement view keeps undecided answers in one figure: a Likert 3
//! against AGREE/DISAGREE read as 0.5.

use super::*;
use crate::domain::{ComboKey, Protocol};
use crate::report::pairs::PairContext;

fn pair(item: usize, a: Value, b: Value) -> Pair {
    Pair {
        ctx: PairContext {
            key: Arc::new(ComboKey::new(&format!("i{item}"), "urgency", "p")),
            protocol: Protocol::Awag,
            persona: Arc::from("kenton"),
            mode: None,
            model: Arc::from(""),
            run: None,
        },
        left: Arc::from("rubric · m"),
        right: Arc::from("alice"),
        a,
        b,
    }
}

/// A rubric judge right on 8 decided answers, undecided on the 2 where it
/// would have been wrong: 1.00 on the decided pairs, 0.90 with them.
#[test]
fn undecided_answers_count_as_half_agreement_beside_the_decided_figures() {
    let agree = Value::Agreement(Agreement::Agree);
    let ps: Vec<Pair> = (0..10)
        .map(|i| {
            let judge = if i < 8 {
                Value::Likert(5)
            } else {
                Value::Likert(3)
            };
            pair(i, judge, agree)
        })
        .collect();
    let all = BTreeMap::from([(Comparison::JudgeVsHuman, ps)]);
    let g = &compute_from(&all, None, Some(100), 1)[0];
    assert_eq!((g.figures.n, g.undecided), (8, 2));
    assert_eq!(g.figures.percent_agreement.value, Some(1.0));
    let half = g.agreement_undecided_half.unwrap();
    assert!((half.value.unwrap() - 0.9).abs() < 1e-12);
    let [lo, hi] = half.ci95.unwrap();
    assert!(lo < 0.9 && hi < 1.0, "[{lo}, {hi}]");
}

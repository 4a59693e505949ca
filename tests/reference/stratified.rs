//! The "all classifications" estimate when classifications are labelled at
//! different rates (issue #30): seeded studies with a known truth. Two
//! classifications of 1 000 combinations each: one right 90 % of the time
//! with 100 labels and a balanced judge, one right 50 % with 20 labels and
//! a judge leaning toward "right". The accuracy over both is 0.70. Pooling
//! the labels weighted each classification by its labels (labels alone
//! read about 0.83, PPI++ about 0.82); stratified, each counts by its share
//! of the combinations.

use super::sim::unit;
use jury::domain::{Agreement, ComboKey, Value};
use jury::report::estimate::{self, POOLED, Sampling};
use jury::report::pairs::Readings;
use jury::rng::Xoshiro256pp;
use std::sync::Arc;

const TRUTH: f64 = 0.7;

fn ag(b: bool) -> Value {
    Value::Agreement(if b {
        Agreement::Agree
    } else {
        Agreement::Disagree
    })
}

/// One study's readings; `one_name` files both classifications under one
/// name, which is what the unstratified pooling amounted to.
fn study(seed: u64, one_name: bool) -> Readings {
    let mut rng = Xoshiro256pp::for_stream(seed, 40);
    let (judge, persona, who): (Arc<str>, Arc<str>, Arc<str>) =
        (Arc::from("judge"), Arc::from("p"), Arc::from("alice"));
    let (mut verdicts, mut labels) = (Vec::new(), Vec::new());
    // (classification, accuracy, labels, judge leans toward "right")
    for (c, accuracy, n, leans) in [("easy", 0.9, 100, false), ("hard", 0.5, 20, true)] {
        for i in 0..1000 {
            let right = unit(&mut rng) < accuracy;
            let u = unit(&mut rng);
            let says = if leans {
                if right { u < 0.97 } else { u < 0.5 }
            } else if u < 0.85 {
                right
            } else {
                !right
            };
            let class = if one_name { "all" } else { c };
            let key = Arc::new(ComboKey::new(&format!("{c}{i}"), class, "p"));
            verdicts.push((judge.clone(), persona.clone(), key.clone(), ag(says)));
            if i < n {
                labels.push((persona.clone(), key, who.clone(), ag(right)));
            }
        }
    }
    let confidences = vec![None; verdicts.len()];
    Readings {
        verdicts,
        labels,
        confidences,
    }
}

#[test]
fn the_pooled_estimate_is_stratified_by_classification_and_covers() {
    let studies = 100u64;
    let covers = |ci: [f64; 2]| ci[0] <= TRUTH && TRUTH <= ci[1];
    let (mut labels, mut ppi, mut old_labels, mut old_ppi) = (0, 0, 0, 0);
    for s in 0..studies {
        let r = study(s, false);
        let pooled = estimate::pooled(&r, 0.05, None, &Sampling::default());
        assert_eq!(pooled.len(), 1);
        let e = &pooled[0];
        assert_eq!(
            (e.classification.as_str(), e.n, e.big_n),
            (POOLED, 120, 1880)
        );
        let strata = e.stratified.as_ref().expect("stratified");
        assert_eq!(strata.len(), 2);
        assert!(strata.iter().all(|st| (st.weight - 0.5).abs() < 1e-12));
        labels += usize::from(covers(e.human_only.expect("labels").ci));
        ppi += usize::from(covers(e.ppi.expect("ppi").ci));
        if s == 0 {
            let line = estimate::headline(e);
            assert!(
                line.contains("stratified over 2 classifications, each weighted by its share of the combinations"),
                "{line}"
            );
        }
        // The same readings pooled as one classification: what jury did.
        let old = &estimate::estimates(&study(s, true), 0.05, None, &Sampling::default())[0];
        old_labels += usize::from(covers(old.human_only.expect("labels").ci));
        old_ppi += usize::from(covers(old.ppi.expect("ppi").ci));
    }
    let pct = |k: usize| 100.0 * k as f64 / studies as f64;
    eprintln!(
        "stratified: labels alone {:.1} %, PPI++ {:.1} %; pooled as one: {:.1} %, {:.1} %",
        pct(labels),
        pct(ppi),
        pct(old_labels),
        pct(old_ppi)
    );
    assert!(pct(labels) >= 90.0 && pct(ppi) >= 90.0);
    assert!(pct(old_labels) <= 20.0 && pct(old_ppi) <= 50.0);
}

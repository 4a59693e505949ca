//! The accuracy and trust lines of a classification are about one
//! perspective of one configuration (issue #30 §3): the trust line takes
//! the configuration's thresholds on the perspective the accuracy line
//! names, not those of another perspective with more calibration pairs.

use super::headline_world::{World, key};
use jury::report::estimate::{self, Sampling};
use jury::report::headline::{self, Choice};
use jury::report::trust;

const JUDGE: &str = "awag mode 3 · a-model";

/// Perspective `p`: 40 labels, a confidence on 15 of its verdicts.
/// Perspective `q`: 30 labels, a confidence on every verdict.
fn world() -> World {
    let mut w = World::default();
    for (perspective, labelled, confident) in [("p", 40, 15), ("q", 30, 60)] {
        for i in 0..60 {
            let k = key(i, "c", perspective);
            let people: &[(&str, bool)] = if i < labelled {
                w.label("kenton", "alice", &k, true);
                &[("alice", true)]
            } else {
                &[]
            };
            w.verdict(JUDGE, "kenton", &k, i % 10 != 0, 0.9, people);
            if i >= confident {
                *w.readings().confidences.last_mut().expect("its confidence") = None;
            }
        }
    }
    w
}

#[test]
fn the_trust_line_is_about_the_perspective_the_accuracy_line_names() {
    let w = world();
    let readings = w.finish();
    let sampling = Sampling::default();
    let es = estimate::estimates(&readings, 0.05, None, &sampling);
    let ts = trust::thresholds(&readings, 0.2, 0.1, 10, None, &sampling);
    let calibration = |p: &str| {
        ts.iter()
            .find(|t| t.perspective == p)
            .map(|t| t.n_calibration)
    };
    // q has the most calibration pairs; p the most labels.
    assert_eq!((calibration("p"), calibration("q")), (Some(15), Some(30)));
    let choice = Choice::default();
    let accuracy = &estimate::headlines(&es, &[], &choice)[0];
    assert!(accuracy.contains("+ 40 labels"), "{accuracy}");
    let named = headline::trusts(&ts, &es, &choice);
    assert_eq!(named["c"].perspective, Some("p"));
    assert_eq!(named["c"].trust.map(|t| t.perspective.as_str()), Some("p"));
    let line = &trust::headlines(&ts, &es, &choice)[0];
    assert!(line.contains("15 calibration pairs"), "{line}");
}

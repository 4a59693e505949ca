//! Stored confidences outside [0, 1] or not finite are refused when read,
//! and counted (before, the store read them as "no confidence", silently).

use super::*;
use crate::domain::Agreement;
use crate::store::VerdictValue;

fn verdict(item: &str, confidence: Option<f64>) -> VerdictValue<'_> {
    VerdictValue {
        run_id: 1,
        item_id: item,
        classification_id: "c",
        perspective_id: "p",
        persona_id: "kenton",
        protocol: Protocol::Awag,
        mode: Some(Mode::Two),
        model: "m",
        value: Value::Agreement(Agreement::Agree),
        position: None,
        confidence,
        confidence_source: None,
    }
}

#[test]
fn confidences_outside_the_unit_range_are_refused_and_counted() {
    let mut b = Builder::new(&[]);
    let cases = [
        ("a", Some(0.7)),
        ("b", Some(0.0)),
        ("c", Some(1.0)),
        ("d", Some(1.5)),
        ("e", Some(-0.1)),
        ("f", Some(f64::NAN)),
        ("g", Some(f64::INFINITY)),
        ("h", None),
    ];
    for (item, c) in cases {
        b.add_verdict(verdict(item, c));
    }
    assert_eq!(b.refused_confidences(), 4);
    let r = b.finish_readings_with_confidence();
    let kept: Vec<Option<f64>> = r
        .confidences
        .iter()
        .map(|c| c.map(|c| c.confidence.value))
        .collect();
    assert_eq!(
        kept,
        vec![
            Some(0.7),
            Some(0.0),
            Some(1.0),
            None,
            None,
            None,
            None,
            None
        ]
    );
}

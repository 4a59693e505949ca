//! The reference reading: an adjudication stands for people where there is
//! one, else their majority; a tie is left out and counted.

use super::*;

/// Two combinations judged "right" (Likert 5): alice and bob tie on `a`
/// (4 and 2), alice alone says 2 on `b`.
fn tied() -> Readings {
    let judge: Arc<str> = Arc::from("awag mode 2 · m");
    let persona: Arc<str> = Arc::from("kenton");
    let key = |i: &str| Arc::new(ComboKey::new(i, "urgency", "classification"));
    let verdicts = vec![
        (judge.clone(), persona.clone(), key("a"), Value::Likert(5)),
        (judge.clone(), persona.clone(), key("b"), Value::Likert(5)),
    ];
    let labels = vec![
        (
            persona.clone(),
            key("a"),
            Arc::from("alice"),
            Value::Likert(4),
        ),
        (
            persona.clone(),
            key("a"),
            Arc::from("bob"),
            Value::Likert(2),
        ),
        (
            persona.clone(),
            key("b"),
            Arc::from("alice"),
            Value::Likert(2),
        ),
    ];
    let confidences = vec![None; verdicts.len()];
    Readings {
        verdicts,
        labels,
        confidences,
    }
}

fn adjudicated(item: &str, v: Value) -> Sampling {
    let mut index = crate::domain::AdjudicationIndex::default();
    index.insert(
        (
            ComboKey::new(item, "urgency", "classification"),
            "kenton".to_string(),
            v.scale(),
        ),
        v,
    );
    Sampling {
        adjudicated: adjudicated_readings(index),
        ..Sampling::default()
    }
}

#[test]
fn the_majority_leaves_a_tie_out_and_an_adjudication_settles_it() {
    let r = tied();
    let e = &estimates(&r, 0.05, None, &Sampling::default())[0];
    assert_eq!(e.n, 1);
    assert_eq!(e.left_out.people_undecided, 1);
    assert_eq!(
        e.reference,
        ReferenceCounts {
            one_person: 1,
            ties_left_out: 1,
            ..Default::default()
        }
    );
    let s = adjudicated("a", Value::Likert(5));
    let e = &estimates(&r, 0.05, None, &s)[0];
    assert_eq!(e.n, 2);
    assert_eq!(e.left_out.people_undecided, 0);
    assert_eq!((e.reference.adjudicated, e.reference.one_person), (1, 1));
    // The judge said "right" on both; the references say right on a, wrong on b.
    assert_eq!(e.human_only.unwrap().estimate, 0.5);
    let c = reference_counts(&r, None, &s);
    assert_eq!(
        c.describe(),
        "reference: 1 adjudicated, 0 majority of people, 1 one person's, 0 ties or undecided left out"
    );
}

#[test]
fn an_adjudication_overrides_the_majority_but_not_one_named_person() {
    let r = tied();
    // b: alice alone said wrong; the adjudicator says right.
    let s = adjudicated("b", Value::Likert(4));
    let e = &estimates(&r, 0.05, None, &s)[0];
    assert_eq!(e.reference.adjudicated, 1);
    assert_eq!(e.n, 1, "a is still a tie");
    assert_eq!(e.human_only.unwrap().estimate, 1.0);
    // With --who alice, alice's labels are the truth.
    let e = &estimates(&r, 0.05, Some("alice"), &s)[0];
    assert_eq!(e.reference.adjudicated, 0);
    assert_eq!(e.n, 2);
    // An undecided adjudication (Likert 3) leaves the combination out.
    let s = adjudicated("b", Value::Likert(3));
    let e = &estimates(&r, 0.05, None, &s)[0];
    assert_eq!(e.reference.ties_left_out, 2);
    assert_eq!(e.n, 0);
}

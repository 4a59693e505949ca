//! The trust headline and the escalation queue trust one configuration
//! (issue #30 §3): the one the ranking puts first, or the user's choice —
//! never, for the queue, the one with the most coverage while the headline
//! names another.

use super::headline_world::{World, key};
use jury::report::estimate::{self, Sampling};
use jury::report::headline::{self, Choice};
use jury::report::trust;

/// Ranked first: right on 4 of 5, one confidence for all (no threshold).
const BETTER: &str = "awag mode 3 · z-model";
/// Ranked last: right on 2 of 3, sure when right and unsure when wrong
/// (a threshold that lets its right verdicts stand: the most coverage).
const WORSE: &str = "awag mode 3 · a-model";

fn world() -> World {
    let mut w = World::default();
    for i in 0..100 {
        let k = key(i, "c", "p");
        let labelled = i < 40;
        if labelled {
            w.label("kenton", "alice", &k, true);
        }
        let people: &[(&str, bool)] = if labelled { &[("alice", true)] } else { &[] };
        w.verdict(BETTER, "kenton", &k, i % 5 != 0, 0.9, people);
        let right = i % 3 != 0;
        w.verdict(
            WORSE,
            "kenton",
            &k,
            right,
            if right { 0.95 } else { 0.3 },
            people,
        );
    }
    w
}

#[test]
fn the_queue_sends_to_a_person_the_verdicts_of_the_configuration_the_headline_names() {
    let w = world();
    let rankings = w.rankings(None);
    assert_eq!(rankings[0].configurations[0].judge, BETTER);
    let readings = w.finish();
    let sampling = Sampling::default();
    let es = estimate::estimates(&readings, 0.05, None, &sampling);
    let ts = trust::thresholds(&readings, 0.2, 0.1, 10, None, &sampling);
    // The most coverage is the worse judge's: the views must not trust it
    // while the headline names the better.
    let most = trust::best_per_classification(&ts);
    assert_eq!(most["c"].judge, WORSE);
    assert!(most["c"].threshold.is_some());

    let choice = Choice::new(&rankings, None);
    let line = &trust::headlines(&ts, &es, &choice)[0];
    assert!(
        line.contains(BETTER) && line.contains("no confidence threshold"),
        "{line}"
    );
    let named = headline::trusts(&ts, &es, &choice);
    assert_eq!(named["c"].judge, BETTER);
    // The named judge is not trusted: every unlabelled combination needs a
    // person, none attributed to the worse judge.
    let queue = trust::needs_a_person(&readings, &named);
    assert!(!trust::any_trusted(&named));
    assert_eq!(queue.len(), 60);
    assert!(queue.iter().all(|e| e.judge.is_none()));

    // The user's choice (`--judge`) is the queue's too.
    let mine = Choice::new(&rankings, Some("a-model"));
    let line = &trust::headlines(&ts, &es, &mine)[0];
    assert!(
        line.contains(WORSE) && line.contains("trust verdicts"),
        "{line}"
    );
    let named = headline::trusts(&ts, &es, &mine);
    let queue = trust::needs_a_person(&readings, &named);
    assert!(trust::any_trusted(&named));
    assert!(!queue.is_empty());
    assert!(queue.iter().all(|e| e.judge.as_deref() == Some(WORSE)));
}
